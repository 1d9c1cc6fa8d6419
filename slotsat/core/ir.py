"""The kernel IR: an immutable tree of frozen dataclasses (`10-dsl.md` §8).

Binders (`Var`) have identity: two `Var` objects are the same variable only if they are the
same object, whatever their `name_hint`. Every other node compares structurally, so two IRs
built from the same source compare equal with `==` only if they share binders;
`structural_equal` / `assert_structural_equal` compare up to a renaming of binders (binders
are matched by the position of their first occurrence, as PyPTO does).

Source positions (`span`) never take part in equality.
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field, fields, is_dataclass, replace
from typing import Any, TypeAlias

from slotsat.core.errors import NO_SPAN, Span

__all__ = ["NO_SPAN", "Span"]

# --------------------------------------------------------------------------------------
# dtypes and memory spaces


class DType(enum.Enum):
    """Element and scalar types (`10-dsl.md` §3.1)."""

    INDEX = "INDEX"
    INT8 = "INT8"
    INT16 = "INT16"
    INT32 = "INT32"
    INT64 = "INT64"
    UINT8 = "UINT8"
    UINT16 = "UINT16"
    UINT32 = "UINT32"
    UINT64 = "UINT64"
    BOOL = "BOOL"
    FP16 = "FP16"
    BF16 = "BF16"
    FP32 = "FP32"

    @property
    def nbytes(self) -> int:
        return _DTYPE_FACTS[self][0]

    @property
    def bits(self) -> int:
        return 1 if self is DType.BOOL else 8 * self.nbytes

    @property
    def mlir(self) -> str:
        return _DTYPE_FACTS[self][1]

    @property
    def is_int(self) -> bool:
        """Integer dtypes including INDEX (not BOOL)."""
        return self in _SIGNED or self in _UNSIGNED

    @property
    def is_signed(self) -> bool:
        return self in _SIGNED

    @property
    def is_unsigned(self) -> bool:
        return self in _UNSIGNED

    @property
    def is_float(self) -> bool:
        return self in (DType.FP16, DType.BF16, DType.FP32)

    @property
    def min_value(self) -> int:
        if self.is_unsigned:
            return 0
        if self is DType.BOOL:
            return 0
        return -(1 << (self.bits - 1))

    @property
    def max_value(self) -> int:
        if self.is_unsigned:
            return (1 << self.bits) - 1
        if self is DType.BOOL:
            return 1
        return (1 << (self.bits - 1)) - 1

    def wrap(self, value: int) -> int:
        """Reduce an exact integer to this dtype's width (two's complement for signed)."""
        if self is DType.BOOL:
            return value & 1
        mask = (1 << self.bits) - 1
        value &= mask
        if self.is_signed and value >= 1 << (self.bits - 1):
            value -= 1 << self.bits
        return value

    def fits(self, value: int) -> bool:
        return self.min_value <= value <= self.max_value


_SIGNED = frozenset({DType.INDEX, DType.INT8, DType.INT16, DType.INT32, DType.INT64})
_UNSIGNED = frozenset({DType.UINT8, DType.UINT16, DType.UINT32, DType.UINT64})
_DTYPE_FACTS: dict[DType, tuple[int, str]] = {
    DType.INDEX: (8, "index"),
    DType.INT8: (1, "i8"),
    DType.INT16: (2, "i16"),
    DType.INT32: (4, "i32"),
    DType.INT64: (8, "i64"),
    DType.UINT8: (1, "ui8"),
    DType.UINT16: (2, "ui16"),
    DType.UINT32: (4, "ui32"),
    DType.UINT64: (8, "ui64"),
    DType.BOOL: (1, "i1"),
    DType.FP16: (2, "f16"),
    DType.BF16: (2, "bf16"),
    DType.FP32: (4, "f32"),
}


class MemorySpace(enum.Enum):
    """On-chip memory spaces (`00-overview.md` §9); DDR holds tensors."""

    DDR = "DDR"
    Vec = "Vec"
    Mat = "Mat"
    Left = "Left"
    Right = "Right"
    Acc = "Acc"
    Bias = "Bias"

    @property
    def loc(self) -> str:
        """The PTO `loc=` spelling."""
        return self.value.lower() if self is not MemorySpace.DDR else "gm"


REGION_SPACES = frozenset({MemorySpace.Vec, MemorySpace.Mat, MemorySpace.Acc})


class FunctionType(enum.Enum):
    OPAQUE = "Opaque"
    INCORE = "InCore"


class ForKind(enum.Enum):
    SEQUENTIAL = "Sequential"
    PIPELINE = "Pipeline"


PIPELINE_STAGES = "pipeline_stages"
PIPELINE_MEMBERSHIP = "pipeline_membership"

# --------------------------------------------------------------------------------------
# types


@dataclass(frozen=True, slots=True)
class ScalarType:
    dtype: DType


@dataclass(frozen=True, slots=True)
class TensorType:
    shape: tuple[int, ...]
    dtype: DType
    is_out: bool = False


@dataclass(frozen=True, slots=True)
class PtrType:
    """The base pointer of an allocation (printed after init-memref only)."""

    memory_space: MemorySpace | None = None


@dataclass(frozen=True, slots=True)
class MemRef:
    """A tile's binding to an allocation.

    `base` is the allocation's binder: every binding of one allocation in a function shares
    it. A declaration (author or synthesized) is pinned with offset 0 and size 0; after
    init-memref it is resolved: not pinned, `byte_offset` the slot's offset, `size` one slot.
    The slot count and the slot index survive resolution.
    """

    base: Var
    byte_offset: Expr
    size: int
    is_pinned: bool
    slot_count: int
    slot_index: Expr | None = None

    def __post_init__(self) -> None:
        if self.slot_count < 1:
            raise ValueError("a MemRef must have at least one slot")

    @property
    def is_resolved(self) -> bool:
        return not self.is_pinned


@dataclass(frozen=True, slots=True)
class TileType:
    shape: tuple[int, ...]
    dtype: DType
    memory_space: MemorySpace | None = None
    memref: MemRef | None = None
    valid_shape: tuple[Expr, ...] | None = None

    @property
    def effective_valid_shape(self) -> tuple[Expr, ...]:
        if self.valid_shape is not None:
            return self.valid_shape
        return tuple(ConstInt(d, DType.INDEX) for d in self.shape)

    @property
    def rows_cols(self) -> tuple[int, int]:
        """Rank-1 `[C]` is treated as `[1, C]` (`10-dsl.md` §3.2)."""
        if len(self.shape) == 1:
            return 1, self.shape[0]
        return self.shape[-2], self.shape[-1]


Type: TypeAlias = ScalarType | TensorType | TileType | PtrType

# --------------------------------------------------------------------------------------
# expressions

_ids = itertools.count(1)


@dataclass(frozen=True, slots=True, eq=False)
class Var:
    """A binder. Identity, not the name, is what a reference means."""

    name_hint: str
    type: Type
    id: int = field(default_factory=lambda: next(_ids))
    span: Span = field(default=NO_SPAN)

    def __repr__(self) -> str:
        return f"Var({self.name_hint}#{self.id})"

    @property
    def dtype(self) -> DType:
        t = self.type
        if isinstance(t, ScalarType | TensorType | TileType):
            return t.dtype
        return DType.INT64

    def retyped(self, new_type: Type) -> Var:
        """A fresh binder with the same name hint and a new type."""
        return Var(self.name_hint, new_type, span=self.span)

    def fresh(self) -> Var:
        return Var(self.name_hint, self.type, span=self.span)


@dataclass(frozen=True, slots=True)
class ConstInt:
    """An integer literal of a dtype. The stored value may lie outside the dtype's range
    (`pl.const(2147483648, pl.INT32)`); it then denotes its wrapped bit pattern at run time
    and constant folding leaves it alone (`30-pto-codegen.md` §7.5)."""

    value: int
    dtype: DType = DType.INDEX
    span: Span = field(default=NO_SPAN, compare=False)


@dataclass(frozen=True, slots=True)
class ConstFloat:
    value: float
    dtype: DType = DType.FP32
    span: Span = field(default=NO_SPAN, compare=False)


@dataclass(frozen=True, slots=True)
class Add:
    """`a + b`, exact then wrapped to `dtype`."""

    a: Expr
    b: Expr
    dtype: DType
    span: Span = field(default=NO_SPAN, compare=False)


@dataclass(frozen=True, slots=True)
class Sub:
    """`a - b`, exact then wrapped to `dtype`."""

    a: Expr
    b: Expr
    dtype: DType
    span: Span = field(default=NO_SPAN, compare=False)


@dataclass(frozen=True, slots=True)
class Mul:
    """`a * b`, exact then wrapped to `dtype`."""

    a: Expr
    b: Expr
    dtype: DType
    span: Span = field(default=NO_SPAN, compare=False)


@dataclass(frozen=True, slots=True)
class FloorDiv:
    """Python `a // b`: rounds toward negative infinity, then wraps (only `MIN // -1` can)."""

    a: Expr
    b: Expr
    dtype: DType
    span: Span = field(default=NO_SPAN, compare=False)


@dataclass(frozen=True, slots=True)
class FloorMod:
    """Python `a % b`: a nonzero result has the divisor's sign; never wraps."""

    a: Expr
    b: Expr
    dtype: DType
    span: Span = field(default=NO_SPAN, compare=False)


class CmpOp(enum.Enum):
    EQ = "=="
    NE = "!="
    LT = "<"
    LE = "<="
    GT = ">"
    GE = ">="


@dataclass(frozen=True, slots=True)
class Cmp:
    """A comparison; signed for signed dtypes and INDEX, unsigned for unsigned. BOOL result."""

    op: CmpOp
    a: Expr
    b: Expr
    dtype: DType = DType.BOOL
    span: Span = field(default=NO_SPAN, compare=False)


@dataclass(frozen=True, slots=True)
class Cast:
    """Integer conversion: keep the low bits when narrowing, sign-extend when widening."""

    a: Expr
    dtype: DType
    span: Span = field(default=NO_SPAN, compare=False)


BinOp: TypeAlias = Add | Sub | Mul | FloorDiv | FloorMod
BINOPS: tuple[type, ...] = (Add, Sub, Mul, FloorDiv, FloorMod)
BINOP_SYMBOL: dict[type, str] = {Add: "+", Sub: "-", Mul: "*", FloorDiv: "//", FloorMod: "%"}
Expr: TypeAlias = Var | ConstInt | ConstFloat | Add | Sub | Mul | FloorDiv | FloorMod | Cmp | Cast
SCALAR_EXPRS: tuple[type, ...] = (Var, ConstInt, ConstFloat, Add, Sub, Mul, FloorDiv, FloorMod, Cmp, Cast)


def expr_dtype(e: Expr) -> DType:
    if isinstance(e, Var):
        return e.dtype
    return e.dtype


# --------------------------------------------------------------------------------------
# calls and their arguments


@dataclass(frozen=True, slots=True)
class ExprList:
    """A list literal of index expressions (offsets, shapes, valid shapes, indices)."""

    items: tuple[Expr, ...]
    span: Span = field(default=NO_SPAN, compare=False)


@dataclass(frozen=True, slots=True)
class SpaceArg:
    """A memory-space argument (`pl.Mem.Vec`)."""

    space: MemorySpace


@dataclass(frozen=True, slots=True)
class DTypeArg:
    """A dtype argument (`pl.FP16`)."""

    dtype: DType


CallArg: TypeAlias = Expr | ExprList | SpaceArg | DTypeArg
AttrValue: TypeAlias = int | bool | str


@dataclass(frozen=True, slots=True)
class Call:
    """An operation call. `op` is the canonical name (`tile.load`). `attrs` are call
    attributes such as `pipeline_membership`, printed last as `attrs={...}`."""

    op: str
    args: tuple[CallArg, ...]
    kwargs: tuple[tuple[str, CallArg], ...] = ()
    attrs: tuple[tuple[str, AttrValue], ...] = ()
    span: Span = field(default=NO_SPAN, compare=False)

    def kwarg(self, name: str) -> CallArg | None:
        for k, v in self.kwargs:
            if k == name:
                return v
        return None

    def attr(self, name: str) -> AttrValue | None:
        for k, v in self.attrs:
            if k == name:
                return v
        return None

    def with_attr(self, name: str, value: AttrValue) -> Call:
        attrs = tuple((k, v) for k, v in self.attrs if k != name)
        if any(k == name for k, _ in self.attrs):
            attrs = tuple((k, value if k == name else v) for k, v in self.attrs)
        else:
            attrs = (*self.attrs, (name, value))
        return replace(self, attrs=attrs)


# --------------------------------------------------------------------------------------
# statements


@dataclass(frozen=True, slots=True)
class AssignStmt:
    """`var = value`; a bare `Var` value is a tile copy (alias) or a scalar copy."""

    var: Var
    value: Expr | Call
    span: Span = field(default=NO_SPAN, compare=False)


@dataclass(frozen=True, slots=True)
class EvalStmt:
    """A call evaluated for its effect (its result is unused)."""

    call: Call
    span: Span = field(default=NO_SPAN, compare=False)


@dataclass(frozen=True, slots=True)
class IterArg:
    var: Var
    init: Expr


@dataclass(frozen=True, slots=True)
class SeqStmts:
    stmts: tuple[Stmt, ...]

    def __iter__(self) -> Iterator[Stmt]:
        return iter(self.stmts)

    def __len__(self) -> int:
        return len(self.stmts)


@dataclass(frozen=True, slots=True)
class ForStmt:
    """A counted loop. `kind` is `Pipeline` exactly when `attrs` holds `pipeline_stages`
    (checked at construction, so no observable state breaks the lockstep)."""

    kind: ForKind
    loop_var: Var
    start: Expr
    stop: Expr
    step: Expr
    iter_args: tuple[IterArg, ...]
    return_vars: tuple[Var, ...]
    body: SeqStmts
    attrs: tuple[tuple[str, AttrValue], ...] = ()
    span: Span = field(default=NO_SPAN, compare=False)

    def __post_init__(self) -> None:
        has_stages = any(k == PIPELINE_STAGES for k, _ in self.attrs)
        if has_stages != (self.kind is ForKind.PIPELINE):
            raise ValueError("a loop has kind Pipeline exactly when it has pipeline_stages")

    @property
    def stages(self) -> int | None:
        for k, v in self.attrs:
            if k == PIPELINE_STAGES:
                assert isinstance(v, int)
                return v
        return None

    @property
    def other_attrs(self) -> tuple[tuple[str, AttrValue], ...]:
        return tuple((k, v) for k, v in self.attrs if k != PIPELINE_STAGES)

    def demoted(self) -> ForStmt:
        """The same loop as a plain range: kind and attribute removed together."""
        return replace(self, kind=ForKind.SEQUENTIAL, attrs=self.other_attrs)

    def with_stages(self, stages: int) -> ForStmt:
        return replace(self, kind=ForKind.PIPELINE, attrs=((PIPELINE_STAGES, stages), *self.other_attrs))


@dataclass(frozen=True, slots=True)
class IfStmt:
    cond: Expr
    then_body: SeqStmts
    else_body: SeqStmts | None
    return_vars: tuple[Var, ...] = ()
    span: Span = field(default=NO_SPAN, compare=False)


@dataclass(frozen=True, slots=True)
class YieldStmt:
    values: tuple[Expr, ...]
    span: Span = field(default=NO_SPAN, compare=False)


@dataclass(frozen=True, slots=True)
class ReturnStmt:
    values: tuple[Expr, ...]
    span: Span = field(default=NO_SPAN, compare=False)


Stmt: TypeAlias = AssignStmt | EvalStmt | ForStmt | IfStmt | YieldStmt | ReturnStmt


@dataclass(frozen=True, slots=True)
class Function:
    name: str
    type: FunctionType
    params: tuple[Var, ...]
    return_types: tuple[Type, ...]
    body: SeqStmts
    span: Span = field(default=NO_SPAN, compare=False)


@dataclass(frozen=True, slots=True)
class Program:
    name: str
    functions: tuple[Function, ...]
    span: Span = field(default=NO_SPAN, compare=False)


@dataclass(frozen=True, slots=True)
class Module:
    """One kernel file: one or more programs."""

    programs: tuple[Program, ...]


# --------------------------------------------------------------------------------------
# structural equality up to binder renaming


class StructuralMismatch(AssertionError):
    pass


def _walk_equal(a: Any, b: Any, fwd: dict[int, int], back: dict[int, int], path: str) -> None:
    if isinstance(a, Var) or isinstance(b, Var):
        if not (isinstance(a, Var) and isinstance(b, Var)):
            raise StructuralMismatch(f"{path}: {a!r} vs {b!r}")
        seen_a = fwd.get(a.id)
        seen_b = back.get(b.id)
        if seen_a is None and seen_b is None:
            fwd[a.id] = b.id
            back[b.id] = a.id
            _walk_equal(a.type, b.type, fwd, back, f"{path}.type")
            return
        if seen_a != b.id or seen_b != a.id:
            raise StructuralMismatch(f"{path}: binder {a!r} does not correspond to {b!r}")
        return
    if is_dataclass(a) and not isinstance(a, type):
        if type(a) is not type(b):
            raise StructuralMismatch(f"{path}: {type(a).__name__} vs {type(b).__name__}")
        for f in fields(a):
            if not f.compare:
                continue
            _walk_equal(getattr(a, f.name), getattr(b, f.name), fwd, back, f"{path}.{f.name}")
        return
    if isinstance(a, tuple):
        if not isinstance(b, tuple) or len(a) != len(b):
            raise StructuralMismatch(f"{path}: {a!r} vs {b!r}")
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _walk_equal(x, y, fwd, back, f"{path}[{i}]")
        return
    if type(a) is not type(b) or a != b:
        raise StructuralMismatch(f"{path}: {a!r} vs {b!r}")


def assert_structural_equal(a: Any, b: Any) -> None:
    """Raise `StructuralMismatch` naming the first difference, binders mapped by position."""
    _walk_equal(a, b, {}, {}, type(a).__name__)


def structural_equal(a: Any, b: Any) -> bool:
    try:
        assert_structural_equal(a, b)
    except StructuralMismatch:
        return False
    return True


# --------------------------------------------------------------------------------------
# small helpers used across passes


def const(value: int, dtype: DType = DType.INDEX) -> ConstInt:
    return ConstInt(value, dtype)


def literal_value(e: Expr) -> int | None:
    """The value of an integer literal that fits its dtype, else None."""
    if isinstance(e, ConstInt) and e.dtype.is_int and e.dtype.fits(e.value):
        return e.value
    return None


def index_literal(e: Expr) -> int | None:
    """The value an INDEX `ConstInt` denotes (the loop-shape gate's notion of a literal): its
    bit pattern read as a signed 64-bit integer, so `pl.const(2**64 - 8, pl.INDEX)` is -8
    (`10-dsl.md` §7.2)."""
    if isinstance(e, ConstInt) and e.dtype is DType.INDEX:
        return DType.INDEX.wrap(e.value)
    return None


def expr_children(e: Expr) -> tuple[Expr, ...]:
    if isinstance(e, Add | Sub | Mul | FloorDiv | FloorMod | Cmp):
        return (e.a, e.b)
    if isinstance(e, Cast):
        return (e.a,)
    return ()


def expr_vars(e: Expr | ExprList | CallArg | Call) -> Iterator[Var]:
    """Every variable read by an expression, call argument or call, in order."""
    if isinstance(e, Var):
        yield e
    elif isinstance(e, ExprList):
        for item in e.items:
            yield from expr_vars(item)
    elif isinstance(e, Call):
        for arg in e.args:
            yield from expr_vars(arg)
        for _, kv in e.kwargs:
            yield from expr_vars(kv)
    elif isinstance(e, SpaceArg | DTypeArg | ConstInt | ConstFloat):
        return
    else:
        for child in expr_children(e):
            yield from expr_vars(child)


def stmt_children_bodies(s: Stmt) -> tuple[SeqStmts, ...]:
    if isinstance(s, ForStmt):
        return (s.body,)
    if isinstance(s, IfStmt):
        return (s.then_body,) if s.else_body is None else (s.then_body, s.else_body)
    return ()


def walk_stmts(body: SeqStmts) -> Iterator[Stmt]:
    """Every statement in pre-order, nested bodies included."""
    for s in body.stmts:
        yield s
        for child in stmt_children_bodies(s):
            yield from walk_stmts(child)


def tile_type(v: Var) -> TileType | None:
    return v.type if isinstance(v.type, TileType) else None
