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
from typing import Any, Generic, TypeAlias, TypeVar

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
    INT4 = "INT4"
    UINT4 = "UINT4"
    FP4 = "FP4"
    FP8E4M3FN = "FP8E4M3FN"
    FP8E5M2 = "FP8E5M2"
    FP8E8M0 = "FP8E8M0"
    HF4 = "HF4"
    HF8 = "HF8"
    TASK_ID = "TASK_ID"
    """The reference's task handle (a scalar of orchestration code, never an index)."""

    # Per-member facts, set once below the class (`_set_dtype_facts`): the properties are
    # attribute reads, not set lookups through the enum's Python-level `__hash__`, because
    # every literal the parser and the passes build asks them.
    _nbytes: int
    _bits: int
    _mlir: str
    _is_int: bool
    _is_signed: bool
    _is_unsigned: bool
    _is_float: bool
    _is_int_arith: bool
    _min: int
    _max: int

    __hash__ = object.__hash__
    """Members are singletons compared by identity; the C-level identity hash keeps sets
    and dicts keyed by dtype fast (Python's string hash of the name was randomized per
    process anyway, so no order depended on it)."""

    @property
    def nbytes(self) -> int:
        """Bytes per element, rounded up (a 4-bit element takes a byte of its own here; tile
        sizes of packed 4-bit types are computed by `tile_bits`)."""
        return self._nbytes

    @property
    def bits(self) -> int:
        return self._bits

    @property
    def mlir(self) -> str:
        return self._mlir

    @property
    def is_int(self) -> bool:
        """Integer dtypes including INDEX (not BOOL)."""
        return self._is_int

    @property
    def is_signed(self) -> bool:
        return self._is_signed

    @property
    def is_unsigned(self) -> bool:
        return self._is_unsigned

    @property
    def is_float(self) -> bool:
        return self._is_float

    @property
    def is_int_arith(self) -> bool:
        """An integer dtype slotsat's index engine and evaluator compute with (INDEX and the
        8- to 64-bit integers; not the packed 4-bit ones, not BOOL, not TASK_ID)."""
        return self._is_int_arith

    @property
    def min_value(self) -> int:
        return self._min

    @property
    def max_value(self) -> int:
        return self._max

    def wrap(self, value: int) -> int:
        """Reduce an exact integer to this dtype's width (two's complement for signed)."""
        if self is DType.BOOL:
            return value & 1
        bits = self._bits
        value &= (1 << bits) - 1
        if self._is_signed and value >= 1 << (bits - 1):
            value -= 1 << bits
        return value

    def fits(self, value: int) -> bool:
        return self._min <= value <= self._max


_SIGNED = frozenset({DType.INDEX, DType.INT8, DType.INT16, DType.INT32, DType.INT64, DType.INT4})
_UNSIGNED = frozenset({DType.UINT8, DType.UINT16, DType.UINT32, DType.UINT64, DType.UINT4})
_FLOATS = frozenset({DType.FP16, DType.BF16, DType.FP32, DType.FP4, DType.FP8E4M3FN, DType.FP8E5M2,
                     DType.FP8E8M0, DType.HF4, DType.HF8})
_SUB_BYTE_BITS: dict[DType, int] = {DType.INT4: 4, DType.UINT4: 4, DType.FP4: 4, DType.HF4: 4}
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
    DType.INT4: (1, "i4"),
    DType.UINT4: (1, "ui4"),
    DType.FP4: (1, "f4E2M1FN"),
    DType.FP8E4M3FN: (1, "f8E4M3FN"),
    DType.FP8E5M2: (1, "f8E5M2"),
    DType.FP8E8M0: (1, "f8E8M0FNU"),
    DType.HF4: (1, "hf4"),
    DType.HF8: (1, "hf8"),
    DType.TASK_ID: (8, "i64"),
}


def _set_dtype_facts() -> None:
    for d in DType:
        nbytes, mlir = _DTYPE_FACTS[d]
        bits = 1 if d is DType.BOOL else _SUB_BYTE_BITS.get(d, 8 * nbytes)
        unsigned = d in _UNSIGNED
        is_int = d in _SIGNED or unsigned
        if unsigned or d is DType.BOOL:
            low, high = 0, (1 << bits) - 1
        else:
            low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        facts = {"_nbytes": nbytes, "_bits": bits, "_mlir": mlir, "_is_int": is_int,
                 "_is_signed": d in _SIGNED, "_is_unsigned": unsigned, "_is_float": d in _FLOATS,
                 "_is_int_arith": is_int and d not in _SUB_BYTE_BITS, "_min": low, "_max": high}
        for name, value in facts.items():
            setattr(d, name, value)


_set_dtype_facts()


class MemorySpace(enum.Enum):
    """On-chip memory spaces (`00-overview.md` §9); DDR holds tensors."""

    DDR = "DDR"
    Vec = "Vec"
    Mat = "Mat"
    Left = "Left"
    Right = "Right"
    Acc = "Acc"
    Bias = "Bias"
    LeftScale = "LeftScale"
    RightScale = "RightScale"
    ScalarLocal = "ScalarLocal"

    @property
    def loc(self) -> str:
        """The PTO `loc=` spelling."""
        return self.value.lower() if self is not MemorySpace.DDR else "gm"


REGION_SPACES = frozenset({MemorySpace.Vec, MemorySpace.Mat, MemorySpace.Acc})


class FunctionType(enum.Enum):
    """The reference's function types (`pl.FunctionType.X`)."""

    OPAQUE = "Opaque"
    INCORE = "InCore"
    ORCHESTRATION = "Orchestration"
    AIC = "AIC"
    AIV = "AIV"
    GROUP = "Group"
    SPMD = "Spmd"
    INLINE = "Inline"
    GRAPH = "Graph"

    @property
    def is_kernel(self) -> bool:
        """A device kernel: its tile code is what the passes transform and codegen emits."""
        return self in (FunctionType.INCORE, FunctionType.AIC, FunctionType.AIV)


LEVELS: tuple[str, ...] = (
    "AIV", "AIC", "CORE_GROUP", "CHIP_DIE", "CHIP", "HOST", "CLUSTER_0", "CLUSTER_1", "CLUSTER_2", "GLOBAL",
    "L2CACHE", "PROCESSOR", "UMA", "NODE", "POD", "CLOS1", "CLOS2",
)
"""`pl.Level.X` members (the reference's hierarchy levels)."""
ROLES: tuple[str, ...] = ("Orchestrator", "SubWorker")
"""`pl.Role.X` members."""


class ForKind(enum.Enum):
    SEQUENTIAL = "Sequential"
    PIPELINE = "Pipeline"
    PARALLEL = "Parallel"
    UNROLL = "Unroll"


PIPELINE_STAGES = "pipeline_stages"
PIPELINE_MEMBERSHIP = "pipeline_membership"

# --------------------------------------------------------------------------------------
# types


@dataclass(frozen=True, slots=True)
class ScalarType:
    dtype: DType


@dataclass(frozen=True, slots=True)
class TensorView:
    """`pl.TensorView(stride=[...], layout=pl.TensorLayout.X[, valid_shape=[...]][, pad=...])`."""

    stride: tuple[Expr, ...] = ()
    layout: str = "ND"
    valid_shape: tuple[Expr, ...] = ()
    pad: str | None = None


@dataclass(frozen=True, slots=True)
class TensorType:
    """A tensor in DDR. A dimension is an int or, when dynamic, an INDEX expression over
    symbolic dimensions (`pl.dynamic`) and the function's scalars. `is_out` / `is_inout` are
    the parameter directions `pl.Out[...]` / `pl.InOut[...]` (parameters only);
    `distributed` is `pld.DistributedTensor[...]`."""

    shape: tuple[int | Expr, ...]
    dtype: DType
    is_out: bool = False
    view: TensorView | None = None
    is_inout: bool = False
    distributed: bool = False

    @property
    def static_shape(self) -> tuple[int, ...] | None:
        """The shape when every dimension is an int, else None."""
        if all(isinstance(d, int) for d in self.shape):
            return tuple(d for d in self.shape if isinstance(d, int))
        return None


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
class TileLayoutView:
    """The `pl.TileView(...)` fields other than `valid_shape`: strides and start offset, the
    block / scatter layouts (`pl.TileLayout.X`), the fractal size, the pad value
    (`pl.PadValue.X`) and the compact mode (`pl.CompactMode.X`). A field left `None` is the
    implicit one for the tile's shape and memory space."""

    stride: tuple[Expr, ...] = ()
    start_offset: Expr | None = None
    blayout: str | None = None
    slayout: str | None = None
    fractal: int | None = None
    pad: str | None = None
    compact: str | None = None

    @property
    def is_empty(self) -> bool:
        return (not self.stride and self.start_offset is None and self.blayout is None
                and self.slayout is None and self.fractal is None and self.pad is None
                and self.compact is None)


@dataclass(frozen=True, slots=True)
class TileType:
    shape: tuple[int, ...]
    dtype: DType
    memory_space: MemorySpace | None = None
    memref: MemRef | None = None
    valid_shape: tuple[Expr, ...] | None = None
    layout: TileLayoutView | None = None
    """Explicit `pl.TileView` fields besides `valid_shape` (None: all implicit)."""

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


def implicit_layout(tile: TileType) -> tuple[str, str, int]:
    """(`blayout`, `slayout`, `fractal`) a tile of this shape implicitly has in its memory
    space (`10-dsl.md` §3.3; the reference's `GetImplicitTileLayout`). A `pl.TileView` field
    equal to it is one the reference does not print."""
    space = tile.memory_space
    rows, cols = tile.rows_cols
    vec_blayout = "col_major" if cols == 1 and rows > 1 else "row_major"
    if space in (MemorySpace.Mat, MemorySpace.Left):
        return "col_major", "row_major", 512
    if space is MemorySpace.Right:
        return vec_blayout, "col_major", 512
    if space is MemorySpace.Acc:
        return "col_major", "row_major", 1024
    return vec_blayout, "none_box", 512


@dataclass(frozen=True, slots=True)
class TupleType:
    """`pl.Tuple[T1, T2, ...]` (the result of a call returning several values)."""

    types: tuple[Type, ...]


@dataclass(frozen=True, slots=True)
class ArrayType:
    """`pl.Array[N, DTYPE]`: a small on-chip scalar array of orchestration code."""

    size: int | Expr
    dtype: DType


@dataclass(frozen=True, slots=True)
class OpaqueType:
    """A type the reference prints as a bare name (`pl.MemRefType`, `pl.AsyncEvent`,
    `pld.CommCtxType`, ...): passed through, never computed with."""

    spelling: str


Type: TypeAlias = ScalarType | TensorType | TileType | PtrType | TupleType | ArrayType | OpaqueType

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


UNARY_OPS: tuple[str, ...] = ("neg", "not", "bitnot", "abs")
"""`ScalarUnary.op`: `-x`, `not x`, `~x`, `abs(x)`."""
BINARY_OPS: dict[str, str] = {
    "truediv": "/", "pow": "**", "and": "and", "or": "or", "bitand": "&", "bitor": "|",
    "bitxor": "^", "shl": "<<", "shr": ">>", "min": "pl.min", "max": "pl.max",
}
"""`ScalarBinary.op` -> its printed spelling (`pl.min` / `pl.max` print as calls)."""


@dataclass(frozen=True, slots=True)
class ScalarUnary:
    """A scalar unary operation the reference prints (`-x`, `not x`, `~x`, `abs(x)`). The
    index engine does not reason about these: codegen declines them, the evaluator computes
    them exactly (wrapping at `dtype`)."""

    op: str
    a: Expr
    dtype: DType
    span: Span = field(default=NO_SPAN, compare=False)


@dataclass(frozen=True, slots=True)
class ScalarBinary:
    """A scalar binary operation beyond `+ - * // %` and comparisons: true division, power,
    logical and / or, bitwise and / or / xor / shifts, and `pl.min` / `pl.max`."""

    op: str
    a: Expr
    b: Expr
    dtype: DType
    span: Span = field(default=NO_SPAN, compare=False)


@dataclass(frozen=True, slots=True)
class TupleGetItem:
    """`t[k]` of a tuple-typed value (a call's results)."""

    tuple_value: Expr
    index: int
    span: Span = field(default=NO_SPAN, compare=False)

    @property
    def type(self) -> Type:
        t = self.tuple_value.type if isinstance(self.tuple_value, Var) else None
        assert isinstance(t, TupleType)
        assert 0 <= self.index < len(t.types)
        return t.types[self.index]

    @property
    def dtype(self) -> DType:
        t = self.type
        if isinstance(t, ScalarType | TensorType | TileType | ArrayType):
            return t.dtype
        return DType.INT64


BinOp: TypeAlias = Add | Sub | Mul | FloorDiv | FloorMod
BINOPS: tuple[type, ...] = (Add, Sub, Mul, FloorDiv, FloorMod)
BINOP_SYMBOL: dict[type, str] = {Add: "+", Sub: "-", Mul: "*", FloorDiv: "//", FloorMod: "%"}
Expr: TypeAlias = (Var | ConstInt | ConstFloat | Add | Sub | Mul | FloorDiv | FloorMod | Cmp | Cast
                   | ScalarUnary | ScalarBinary | TupleGetItem)
SCALAR_EXPRS: tuple[type, ...] = (Var, ConstInt, ConstFloat, Add, Sub, Mul, FloorDiv, FloorMod, Cmp, Cast,
                                  ScalarUnary, ScalarBinary, TupleGetItem)
INDEX_EXPRS: tuple[type, ...] = (Var, ConstInt, Add, Sub, Mul, FloorDiv, FloorMod, Cmp, Cast)
"""The expression nodes slotsat's index engine, proofs and codegen reason about."""


def expr_dtype(e: Expr) -> DType:
    return e.dtype


def is_index_expr(e: Expr) -> bool:
    """True when every node of `e` is one the index engine handles (`INDEX_EXPRS`) and
    every dtype is one it computes with: a float literal, a bool literal, a cast to or from
    a float, a min / max, ... make it False."""
    if not isinstance(e, INDEX_EXPRS):
        return False
    if isinstance(e, Var):
        return isinstance(e.type, ScalarType) and (e.dtype.is_int_arith or e.dtype is DType.BOOL)
    if isinstance(e, ConstInt):
        return e.dtype.is_int_arith or e.dtype is DType.BOOL
    if isinstance(e, Cast) and not (e.dtype.is_int_arith and expr_dtype(e.a).is_int_arith):
        return False
    if isinstance(e, Add | Sub | Mul | FloorDiv | FloorMod) and not e.dtype.is_int_arith:
        return False
    return all(is_index_expr(c) for c in expr_children(e))


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


@dataclass(frozen=True, slots=True)
class StrArg:
    """A string literal argument (`mode='round'`, `name='buf'`)."""

    value: str


@dataclass(frozen=True, slots=True)
class EnumArg:
    """A member of one of the reference's enums: `pl.TileLayout.row_major` is
    `EnumArg("pl.TileLayout", "row_major")`; also `pl.PadValue`, `pl.AtomicType`,
    `pl.PipeType`, `pl.adir`, `pld.NotifyOp`, ... (`SpaceArg` and `DTypeArg` cover memory
    spaces and dtypes)."""

    enum: str
    member: str


@dataclass(frozen=True, slots=True)
class FuncRef:
    """`self.NAME`: a reference to another function of the program (`pl.submit`'s callee)."""

    name: str


@dataclass(frozen=True, slots=True)
class ArgList:
    """A list literal whose items are not all index expressions (enums, nested lists)."""

    items: tuple[CallArg, ...]
    span: Span = field(default=NO_SPAN, compare=False)


CallArg: TypeAlias = Expr | ExprList | SpaceArg | DTypeArg | StrArg | EnumArg | FuncRef | ArgList
AttrValue: TypeAlias = int | bool | str | float | CallArg
"""Loop attributes are int / bool / str / float; call and function attributes may also hold
the reference's other attribute values (dtypes, enums, lists, variables, expressions)."""


@dataclass(frozen=True, slots=True)
class Call:
    """An operation call. `op` is the canonical name of a registered op (`tile.load`,
    `tensor.create`, `system.fence`, `pld.system.notify`; `slotsat.core.ops`), `self.NAME` for
    a call of another function of the program, or `submit` / `spmd_submit` for the
    reference's task launches (`pl.submit(self.f, ...)`). `attrs` are call attributes such as
    `pipeline_membership`, printed last as `attrs={...}`."""

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

    @property
    def callee(self) -> str | None:
        """The function a `self.NAME(...)` call calls, else None."""
        return self.op[5:] if self.op.startswith("self.") else None

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
class WhileStmt:
    """A while loop: `while COND:` (no carried values) or the SSA form
    `for (a,) in pl.while_(init_values=(A0,)):` whose body starts with `pl.cond(COND)` (the
    condition reads the carried values) and ends with a yield. Passes treat it as a loop
    with an unknown trip count: nothing is rotated or replicated through it."""

    cond: Expr
    iter_args: tuple[IterArg, ...]
    return_vars: tuple[Var, ...]
    body: SeqStmts
    span: Span = field(default=NO_SPAN, compare=False)


@dataclass(frozen=True, slots=True)
class ScopeStmt:
    """`with pl.scope():` / `with pl.scope(mode=pl.ScopeMode.MANUAL):`, the reference's
    runtime scope of orchestration code. Transparent for every pass."""

    manual: bool
    body: SeqStmts
    span: Span = field(default=NO_SPAN, compare=False)


@dataclass(frozen=True, slots=True)
class YieldStmt:
    values: tuple[Expr, ...]
    span: Span = field(default=NO_SPAN, compare=False)


@dataclass(frozen=True, slots=True)
class ReturnStmt:
    values: tuple[Expr, ...]
    span: Span = field(default=NO_SPAN, compare=False)


Stmt: TypeAlias = AssignStmt | EvalStmt | ForStmt | IfStmt | YieldStmt | ReturnStmt | WhileStmt | ScopeStmt


@dataclass(frozen=True, slots=True)
class Function:
    """A function of a program. `level` / `role` are `pl.Level.X` / `pl.Role.X` member names
    (a `SubWorker` prints without `self`); `attrs` is the `pl.func_attr({...})` prologue;
    `auto_scope` is False for `@pl.function(auto_scope=False)`; `external_source` is the
    decorator's `external_source=` path; `abstract` marks a body spelled `...` (a kernel
    bound at run time or backed by an external source); `inline_body` is the Python body of a
    HOST `SubWorker` (the reference's `InlineStmt`: a host callback, not DSL; its statements as
    `ast.unparse` writes them), whose `body` is empty."""

    name: str
    type: FunctionType
    params: tuple[Var, ...]
    return_types: tuple[Type, ...]
    body: SeqStmts
    span: Span = field(default=NO_SPAN, compare=False)
    level: str | None = None
    role: str | None = None
    attrs: tuple[tuple[str, AttrValue], ...] = ()
    auto_scope: bool = True
    external_source: str | None = None
    abstract: bool = False
    inline_body: str | None = None


LAUNCH_SYMBOLS: dict[str, str] = {"pld.system.world_size": "pld.system.world_size()"}
"""Nullary ops whose value is fixed for a whole launch (the reference's `pld.system.world_size()`,
INT64), read in a type's dimension (as the reference prints
`pld.DistributedTensor[[pld.system.world_size(), 1], ...]`, where no call can be hoisted) as a
symbol of the program, like a symbolic dimension: the op's name -> the symbol's name, which is
also how it prints. The symbol is an INT64 `Var` among the program's `dynamic_vars`."""


def is_launch_symbol(v: Var) -> bool:
    """Whether `v` is a program's `LAUNCH_SYMBOLS` symbol (a symbolic dimension is INDEX)."""
    return v.name_hint in _LAUNCH_NAMES and v.type == ScalarType(DType.INT64)


_LAUNCH_NAMES = frozenset(LAUNCH_SYMBOLS.values())


@dataclass(frozen=True, slots=True)
class Program:
    """A `@pl.program` class. `dynamic_vars` are the symbolic dimensions its types use
    (`N = pl.dynamic("N")` at module level, or a name the reference printed without a
    definition), sorted by name."""

    name: str
    functions: tuple[Function, ...]
    span: Span = field(default=NO_SPAN, compare=False)
    dynamic_vars: tuple[Var, ...] = ()


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


_BINARY_NODES = frozenset({Add, Sub, Mul, FloorDiv, FloorMod, Cmp, ScalarBinary})
_UNARY_NODES = frozenset({Cast, ScalarUnary})
_ARG_LEAVES = frozenset({SpaceArg, DTypeArg, ConstInt, ConstFloat, StrArg, EnumArg, FuncRef})
"""Expression and argument node classes by arity. The walks below dispatch on `type(e)`
rather than on `isinstance` chains: they run for every node of every pass (hundreds of
thousands of calls on a 1,000-loop kernel), and the IR's node classes are final (frozen,
slotted dataclasses nothing derives from)."""


def expr_children(e: Expr) -> tuple[Expr, ...]:
    t = type(e)
    if t in _BINARY_NODES:
        return (e.a, e.b)  # type: ignore[union-attr]
    if t in _UNARY_NODES:
        return (e.a,)  # type: ignore[union-attr]
    if t is TupleGetItem:
        return (e.tuple_value,)  # type: ignore[union-attr]
    return ()


def expr_vars(e: Expr | ExprList | CallArg | Call) -> Iterator[Var]:
    """Every variable read by an expression, call argument or call, in order (left to right,
    depth first; one explicit stack rather than a generator per level)."""
    stack: list[object] = [e]
    pop, push = stack.pop, stack.extend
    while stack:
        x = pop()
        t = type(x)
        if t is Var:
            yield x  # type: ignore[misc]
        elif t in _BINARY_NODES:
            push((x.b, x.a))  # type: ignore[attr-defined]
        elif t in _UNARY_NODES:
            push((x.a,))  # type: ignore[attr-defined]
        elif t in _ARG_LEAVES:
            continue
        elif t is ExprList or t is ArgList:
            push(reversed(x.items))  # type: ignore[attr-defined]
        elif t is Call:
            assert isinstance(x, Call)
            parts: list[object] = [*x.args, *(kv for _, kv in x.kwargs)]
            parts += [av for _, av in x.attrs if not isinstance(av, int | bool | str | float)]
            push(reversed(parts))
        else:
            push(reversed(expr_children(x)))  # type: ignore[arg-type]


def dynamic_dimensions(fn: Function) -> list[Var]:
    """The symbolic dimensions of the tensor parameters' shapes that are not parameters
    themselves, in first-seen order (the reference's trailing `index` parameters; the values
    the interpreter draws for a dynamic shape)."""
    params = {p.id for p in fn.params}
    out: dict[int, Var] = {}
    for p in fn.params:
        if isinstance(p.type, TensorType):
            for d in p.type.shape:
                if not isinstance(d, int):
                    for v in expr_vars(d):
                        if v.id not in params:
                            out.setdefault(v.id, v)
    return list(out.values())


def valid_shape_symbols(fn: Function) -> list[Var]:
    """The symbols a tensor parameter's `pl.TensorView(valid_shape=[...])` names bare that
    nothing else binds (not a parameter, not in a tensor parameter's shape), in first-seen
    order: the reference's MaterializeValidShapeSymbols makes each a leading `index`
    parameter; the interpreter draws their values as it draws a dynamic dimension's."""
    bound = {p.id for p in fn.params}
    for p in fn.params:
        if isinstance(p.type, TensorType):
            for d in p.type.shape:
                if not isinstance(d, int):
                    bound.update(v.id for v in expr_vars(d))
    out: dict[int, Var] = {}
    for p in fn.params:
        if isinstance(p.type, TensorType) and p.type.view is not None:
            for d in p.type.view.valid_shape:
                if isinstance(d, Var) and d.id not in bound:
                    out.setdefault(d.id, d)
    return list(out.values())


_LOOP_LIKE = frozenset({ForStmt, WhileStmt, ScopeStmt})


def stmt_children_bodies(s: Stmt) -> tuple[SeqStmts, ...]:
    t = type(s)
    if t in _LOOP_LIKE:
        return (s.body,)  # type: ignore[union-attr]
    if t is IfStmt:
        assert isinstance(s, IfStmt)
        return (s.then_body,) if s.else_body is None else (s.then_body, s.else_body)
    return ()


def walk_stmts(body: SeqStmts) -> Iterator[Stmt]:
    """Every statement in pre-order, nested bodies included (one explicit stack of bodies
    rather than a generator per nesting level)."""
    stack: list[Iterator[Stmt]] = [iter(body.stmts)]
    while stack:
        for s in stack[-1]:
            yield s
            children = stmt_children_bodies(s)
            if children:
                stack.extend(iter(b.stmts) for b in reversed(children))
                break
        else:
            stack.pop()


def tile_type(v: Var) -> TileType | None:
    return v.type if isinstance(v.type, TileType) else None


_V = TypeVar("_V")


class IdentityMap(Generic[_V]):
    """Values keyed by an object's identity, with an optional hashable qualifier: for IR
    objects that compare structurally but must not share an entry (two equal expressions at
    two sites). An entry holds its object, so no other object can take its `id` while the
    entry lives; a bare `id()` key would hand a dead temporary's value to whichever object is
    allocated at its address next."""

    __slots__ = ("_items",)

    def __init__(self) -> None:
        self._items: dict[tuple[int, object], tuple[object, _V]] = {}

    def get(self, obj: object, qualifier: object = None) -> _V | None:
        hit = self._items.get((id(obj), qualifier))
        return hit[1] if hit is not None and hit[0] is obj else None

    def set(self, obj: object, value: _V, qualifier: object = None) -> None:
        self._items[(id(obj), qualifier)] = (obj, value)

    def clear(self) -> None:
        self._items.clear()
