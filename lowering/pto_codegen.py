"""pto-codegen: emit the `.pto` module (PTO MLIR text for ptoas) (`30-pto-codegen.md` §5–§7).

Overview
--------
One `func.func` per kernel function (every `InCore` function, and every `Opaque` function
that contains tile operations, with a note), in program order, inside one
`module attributes {pto.target_arch = "..."}`. Per function, in this order:

1. region planning (`lowering/regions.py`; `PTOAS` only), which requests the regions'
   valid-extent constants first;
2. the head: hoisted `arith.constant`s (one per value and type, `%c64_index`,
   `%cn3_index`, in order of first request), one `pto.make_tensor_view` per tensor
   parameter, one `pto.alloc_multi_tile` per region (no `addr`);
3. the body, statement by statement: a tile's buffer is created at its definition
   (`pto.multi_tile_get %R_mb[%slot]` for a slotted tile of a region, with the slot
   operand's chain before it; `pto.alloc_tile` otherwise, with `addr = ...` under `PYPTO`),
   then the op that writes it (`pto.tload`, `pto.tadd`, ...).

Integer expressions lower node by node (§5.7, §7): floor-mod / floor-div with Python
semantics, the sign correction skipped where the dividend is proven non-negative. Slot
operands (§6) are the slot index, never the byte offset; in the default mode a proven
remainder / quotient is `arith.remui` / `arith.divui` (the form ptoas's matcher peels) and a
value already emitted in scope is reused; `--mode pypto` emits `remsi` / `divsi` with a
separate chain per get, exactly as the reference.

Handles that share a buffer get no allocation (§5.5): a bare copy, `matmul_acc`'s
accumulator, a loop carry (carried variable, yielded value, result: all the initial value's
handle), and the tiles an `if` yields for one result (one handle allocated before the
`scf.if`).

Under `PYPTO` (§5.9) every `pto.alloc_tile` gets `addr = %c<A>_i64` from a non-reusing
allocator: per memory space, declared allocations first (init-memref order), then every
other tile handle in emission order, each start aligned up to 512 bytes; a slotted tile's
address is `base + byte_offset` (a runtime slot lowers `index * slot_size` and adds it with
`arith.index_cast` / `arith.addi`).

Requires: init-memref has run (resolved MemRefs, hoisted `tile.alloc` statements). Produces
the module text plus, per `pto.multi_tile_get`, the matcher model's view of its slot
operand (`GetRecord`).

Decisions where the spec is silent
----------------------------------
- Row reductions (`pto.trowsum` / `trowmax` / `trowmin`) need ptoas's scratch operand: a
  tile of the source's type is allocated right before the op as `%<result>_tmp`.
- A float literal is a hoisted `arith.constant` named `%cf<V>_<TYPE>` (`.` spelled `p`, a
  minus `n`): `%cf0p5_f32`.
- Unsigned scalars use the signless MLIR spelling of their width (`i32`) in `arith`
  operations, which accept only signless integers.
- A function with several scalar loop results prints `%a, %b = scf.for ...`.
- Two kernel functions with one name (in two programs) get `_<n>` suffixes on their symbols.
- The kernel-kind error lists the spaces in order of first appearance, joined by `and`.

Related: `lowering/init_memref.py`, `lowering/regions.py`, `lowering/pto_dialect.py` (the
xdsl dialect the output round-trips through), `analysis/matcher.py`.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import ClassVar

from analysis import matcher as mm
from analysis.budget import Backend, tile_bytes
from lowering.common import Planner, format_expr
from lowering.init_memref import Allocation, is_alloc_statement, resolved_allocations
from lowering.regions import Region, plan_regions, tile_type_string, valid_extents
from slotsat import ir, ops
from slotsat.errors import NO_SPAN, PassError, Span

ALIGN = 512
CUBE_SPACES = frozenset(
    {ir.MemorySpace.Mat, ir.MemorySpace.Left, ir.MemorySpace.Right, ir.MemorySpace.Acc, ir.MemorySpace.Bias}
)


class Mode(enum.Enum):
    """How index arithmetic is proven and emitted (`00-overview.md` §7)."""

    SLOTSAT = "slotsat"
    PYPTO = "pypto"

    @classmethod
    def parse(cls, text: str) -> Mode:
        for m in cls:
            if m.value == text.strip().lower():
                return m
        raise ValueError(f"unknown mode '{text}'; expected slotsat or pypto")


@dataclass(frozen=True, slots=True)
class Note:
    """A `note:` or `warning:` line for the command line."""

    severity: str
    message: str
    span: Span


@dataclass(frozen=True, slots=True)
class GetRecord:
    """One `pto.multi_tile_get`: its region, slot operand (matcher model) and class."""

    function: str
    tile: str
    region: str
    count: int
    operand: mm.Value
    matcher_class: mm.MatcherClass
    block: int
    """An id of the block (loop body, branch, function body) the get sits in."""
    ops: int
    """Ops emitted for this slot operand (0 when it reused values)."""

    @property
    def accepted(self) -> bool:
        return mm.accepted(self.matcher_class)


@dataclass
class CodegenResult:
    text: str
    notes: list[Note] = field(default_factory=list)
    gets: list[GetRecord] = field(default_factory=list)
    function_ops: dict[str, int] = field(default_factory=dict)


def _int_type(dtype: ir.DType) -> str:
    """The MLIR spelling of an integer / index type in `arith` (signless)."""
    if dtype is ir.DType.INDEX:
        return "index"
    if dtype is ir.DType.BOOL:
        return "i1"
    if dtype.is_float:
        return dtype.mlir
    return f"i{dtype.bits}"


def _const_name(value: int, type_: str) -> str:
    return f"%c{value}_{type_}" if value >= 0 else f"%cn{-value}_{type_}"


def _float_name(value: float, type_: str) -> str:
    text = repr(float(value)).replace("-", "n").replace(".", "p").replace("+", "")
    return f"%cf{text}_{type_}"


def _float_literal(value: float) -> str:
    return f"{float(value):.6e}"


_CMP_PRED = {
    ir.CmpOp.EQ: "eq",
    ir.CmpOp.NE: "ne",
    ir.CmpOp.LT: "lt",
    ir.CmpOp.LE: "le",
    ir.CmpOp.GT: "gt",
    ir.CmpOp.GE: "ge",
}


@dataclass(frozen=True, slots=True)
class _LoopFact:
    start: int | None
    """The loop's start when it is a non-negative INDEX literal."""


@dataclass
class _Scope:
    """Values available in one block: slot-chain values by structural key."""

    block: int
    cse: dict[object, tuple[str, mm.Value]] = field(default_factory=dict)


class Emitter:
    """The text of one `func.func`: hoisted constants, head, body; names and temporaries."""

    def __init__(
        self,
        fn: ir.Function,
        *,
        mode: Mode,
        planner: Planner,
        backend: Backend,
        names: dict[int, str] | None = None,
    ) -> None:
        self.fn = fn
        self.mode = mode
        self.planner = planner
        self.backend = backend
        self.const_lines: list[str] = []
        self.const_names: dict[tuple[object, str], str] = {}
        self.head_lines: list[str] = []
        self.body_lines: list[str] = []
        self.used_names: set[str] = set()
        self.var_names: dict[int, str] = {} if names is None else dict(names)
        self.handles: dict[int, str] = {}
        self.tile_types: dict[int, ir.TileType] = {}
        self.tmp = 0
        self.depth = 0
        self.values: dict[str, mm.Value] = {}
        self.graph = mm.ValueGraph()
        self.loops: dict[int, _LoopFact] = {}
        self.scopes: list[_Scope] = [_Scope(0)]
        self.blocks = 0
        self.gets: list[GetRecord] = []
        self.op_count = 0
        self.regions: dict[int, Region] = {}
        self.addresses: dict[ir.MemorySpace, int] = {}
        self.alloc_base: dict[int, int] = {}
        self.allocations: list[Allocation] = []

    # -- names -------------------------------------------------------------------------

    def fresh_name(self, hint: str) -> str:
        """A unique SSA name (without `%`) for `hint`, disambiguated as the printer does."""
        if hint not in self.used_names:
            self.used_names.add(hint)
            return hint
        n = 1
        while f"{hint}_{n}" in self.used_names:
            n += 1
        name = f"{hint}_{n}"
        self.used_names.add(name)
        return name

    def var_name(self, v: ir.Var) -> str:
        name = self.var_names.get(v.id)
        if name is None:
            name = self.fresh_name(v.name_hint)
            self.var_names[v.id] = name
        return name

    def new_tmp(self) -> str:
        name = f"%{self.tmp}"
        self.tmp += 1
        return name

    def const(self, value: int, dtype: ir.DType) -> str:
        """The hoisted constant `value` at `dtype`, its value reduced to the width."""
        type_ = _int_type(dtype)
        reduced = dtype.wrap(value) if dtype is not ir.DType.BOOL else value & 1
        key = (reduced, type_)
        name = self.const_names.get(key)
        if name is None:
            name = _const_name(reduced, type_)
            self.const_names[key] = name
            self.const_lines.append(f"{name} = arith.constant {reduced} : {type_}")
            self.values[name] = self.graph.const(reduced, type_)
        return name

    def const_float(self, value: float, dtype: ir.DType) -> str:
        type_ = dtype.mlir
        key = (("f", float(value)), type_)
        name = self.const_names.get(key)
        if name is None:
            name = _float_name(value, type_)
            self.const_names[key] = name
            self.const_lines.append(f"{name} = arith.constant {_float_literal(value)} : {type_}")
        return name

    # -- lines -------------------------------------------------------------------------

    def line(self, text: str) -> None:
        self.body_lines.append("  " * self.depth + text)

    def value_of(self, name: str) -> mm.Value:
        value = self.values.get(name)
        if value is None:
            value = self.graph.opaque(name)
            self.values[name] = value
        return value

    def arith(  # noqa: PLR0913 - op, operands, type and the three optional spellings
        self,
        op: str,
        operands: Sequence[str],
        type_: str,
        *,
        predicate: str | None = None,
        result_type: str | None = None,
        cast_from: str | None = None,
    ) -> str:
        """Emit `%N = arith.OP ...` and record it in the value graph."""
        name = self.new_tmp()
        self.op_count += 1
        args = ", ".join(operands)
        if predicate is not None:
            self.line(f"{name} = arith.{op} {predicate}, {args} : {type_}")
        elif cast_from is not None:
            self.line(f"{name} = arith.{op} {args} : {cast_from} to {type_}")
        else:
            self.line(f"{name} = arith.{op} {args} : {type_}")
        graph_type = result_type if result_type is not None else ("i1" if op == "cmpi" else type_)
        value: mm.Value
        try:
            value = self.graph.op(
                f"arith.{op}", *(self.value_of(o) for o in operands), type=graph_type, predicate=predicate
            )
        except ValueError:
            value = self.graph.opaque(name, graph_type)
        self.values[name] = value
        return name

    # -- scopes ------------------------------------------------------------------------

    @contextmanager
    def block(self) -> Iterator[None]:
        self.blocks += 1
        self.scopes.append(_Scope(self.blocks))
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            self.scopes.pop()

    def _cse_lookup(self, key: object) -> tuple[str, mm.Value] | None:
        for scope in reversed(self.scopes):
            hit = scope.cse.get(key)
            if hit is not None:
                return hit
        return None

    # -- integer expressions (§7) ----------------------------------------------------------

    def proven(self, e: ir.Expr, dtype: ir.DType) -> bool:
        """The syntactic non-negativity proof of §7.2, at `dtype`."""
        if ir.expr_dtype(e) is not dtype:
            return False
        if isinstance(e, ir.ConstInt):
            return e.dtype.fits(e.value) and e.value >= 0
        if isinstance(e, ir.Var):
            fact = self.loops.get(e.id)
            return fact is not None and fact.start is not None
        if isinstance(e, ir.Sub) and isinstance(e.a, ir.Var):
            fact = self.loops.get(e.a.id)
            return (
                fact is not None
                and fact.start is not None
                and isinstance(e.b, ir.ConstInt)
                and e.b.dtype is dtype
                and e.b.value == fact.start
            )
        if isinstance(e, ir.FloorDiv | ir.FloorMod):
            c = ir.literal_value(e.b)
            return c is not None and c > 0 and self.proven(e.a, dtype)
        return False

    def lower(self, e: ir.Expr, *, slot: bool = False) -> str:
        """Emit `e` (already folded) and return the SSA name of its value.

        `slot`: a slot operand in the default mode (proven remainders and quotients become
        `remui` / `divui`, and values already emitted in scope are reused).
        """
        if slot:
            key = self._key(e)
            hit = self._cse_lookup(key) if key is not None else None
            if hit is not None:
                return hit[0]
            name = self._lower(e, slot)
            if key is not None:
                self.scopes[-1].cse[key] = (name, self.value_of(name))
            return name
        return self._lower(e, slot)

    def _key(self, e: ir.Expr) -> object:
        if isinstance(e, ir.Var):
            return None
        if isinstance(e, ir.ConstInt | ir.ConstFloat):
            return None
        return self._structure(e)

    def _structure(self, e: ir.Expr) -> object:
        if isinstance(e, ir.Var):
            return ("var", e.id)
        if isinstance(e, ir.ConstInt):
            return ("int", e.value, e.dtype)
        if isinstance(e, ir.ConstFloat):
            return ("float", e.value, e.dtype)
        if isinstance(e, ir.Cast):
            return ("cast", e.dtype, self._structure(e.a))
        if isinstance(e, ir.Cmp):
            return ("cmp", e.op, self._structure(e.a), self._structure(e.b))
        return (type(e).__name__, e.dtype, self._structure(e.a), self._structure(e.b))

    def _operand(self, e: ir.Expr, dtype: ir.DType, slot: bool) -> str:
        if isinstance(e, ir.ConstInt):
            return self.const(e.value, dtype)
        if isinstance(e, ir.ConstFloat):
            return self.const_float(e.value, dtype)
        return self.lower(e, slot=slot)

    def _lower(self, e: ir.Expr, slot: bool) -> str:
        if isinstance(e, ir.Var):
            handle = self.handles.get(e.id)
            if handle is None:
                raise PassError(f"'{e.name_hint}' has no value in the device function", e.span)
            return handle
        if isinstance(e, ir.ConstInt):
            return self.const(e.value, e.dtype)
        if isinstance(e, ir.ConstFloat):
            return self.const_float(e.value, e.dtype)
        if isinstance(e, ir.Cast):
            return self._cast(e, slot)
        if isinstance(e, ir.Cmp):
            dtype = ir.expr_dtype(e.a)
            a = self._operand(e.a, dtype, slot)
            b = self._operand(e.b, dtype, slot)
            pred = _CMP_PRED[e.op]
            pred = ("u" if dtype.is_unsigned else "s") + pred if pred not in ("eq", "ne") else pred
            if dtype.is_float:
                raise PassError("floating-point comparisons are not supported in device code", e.span)
            return self.arith("cmpi", [a, b], _int_type(dtype), predicate=pred)
        dtype = e.dtype
        type_ = _int_type(dtype)
        if isinstance(e, ir.FloorMod | ir.FloorDiv):
            return self._floor(e, slot)
        a = self._operand(e.a, dtype, slot)
        b = self._operand(e.b, dtype, slot)
        if dtype.is_float:
            op = {ir.Add: "addf", ir.Sub: "subf", ir.Mul: "mulf"}[type(e)]
        else:
            op = {ir.Add: "addi", ir.Sub: "subi", ir.Mul: "muli"}[type(e)]
        return self.arith(op, [a, b], type_)

    def _cast(self, e: ir.Cast, slot: bool) -> str:
        src_dtype = ir.expr_dtype(e.a)
        a = self._operand(e.a, src_dtype, slot)
        src, dst = _int_type(src_dtype), _int_type(e.dtype)
        if src == dst:
            return a
        if src == "index" or dst == "index":
            op = "index_cast"
        elif e.dtype.bits > src_dtype.bits:
            op = "extsi"
        else:
            op = "trunci"
        return self.arith(op, [a], dst, cast_from=src)

    def _floor(self, e: ir.FloorMod | ir.FloorDiv, slot: bool) -> str:
        dtype = e.dtype
        type_ = _int_type(dtype)
        is_mod = isinstance(e, ir.FloorMod)
        if dtype.is_float:
            a = self._operand(e.a, dtype, slot)
            b = self._operand(e.b, dtype, slot)
            return self.arith("remf" if is_mod else "divf", [a, b], type_)
        if dtype.is_unsigned:
            a = self._operand(e.a, dtype, slot)
            b = self._operand(e.b, dtype, slot)
            unsigned = self.mode is Mode.SLOTSAT
            op = ("remui" if is_mod else "divui") if unsigned else ("remsi" if is_mod else "divsi")
            return self.arith(op, [a, b], type_)
        d = ir.literal_value(e.b)
        proven = d is not None and d > 0 and self.proven(e.a, dtype)
        a = self._operand(e.a, dtype, slot)
        if proven:
            assert d is not None
            unsigned = slot and self.mode is Mode.SLOTSAT
            op = ("remui" if is_mod else "divui") if unsigned else ("remsi" if is_mod else "divsi")
            return self.arith(op, [a, self.const(d, dtype)], type_)
        b = self._operand(e.b, dtype, slot)
        if not is_mod:
            return self.arith("floordivsi", [a, b], type_)
        zero = self.const(0, dtype)
        r = self.arith("remsi", [a, b], type_)
        if d is not None:
            n = self.arith("cmpi", [r, zero], type_, predicate="slt" if d > 0 else "sgt")
            s = self.arith("addi", [r, b], type_)
            return self.arith("select", [n, s, r], type_)
        nz = self.arith("cmpi", [r, zero], type_, predicate="ne")
        rn = self.arith("cmpi", [r, zero], type_, predicate="slt")
        bn = self.arith("cmpi", [b, zero], type_, predicate="slt")
        x = self.arith("xori", [rn, bn], "i1")
        f = self.arith("andi", [nz, x], "i1")
        s = self.arith("addi", [r, b], type_)
        return self.arith("select", [f, s, r], type_)

    def index_value(self, e: ir.Expr) -> str:
        """A non-slot `INDEX` value: folded, then lowered node by node (§7.4)."""
        folded = fold(e)
        if isinstance(folded, ir.ConstInt):
            return self.const(folded.value, ir.DType.INDEX)
        return self.lower(folded)


# --------------------------------------------------------------------------------------
# constant folding (§7.5)


_INT64_MIN = -(1 << 63)


def fold(e: ir.Expr) -> ir.Expr:
    """Fold integer literals bottom-up (§7.5); raise the folding errors at the expression."""
    if isinstance(e, ir.Var | ir.ConstInt | ir.ConstFloat):
        return e
    if isinstance(e, ir.Cast):
        a = fold(e.a)
        return e if a is e.a else ir.Cast(a, e.dtype, e.span)
    if isinstance(e, ir.Cmp):
        a, b = fold(e.a), fold(e.b)
        return e if a is e.a and b is e.b else ir.Cmp(e.op, a, b, e.dtype, e.span)
    a, b = fold(e.a), fold(e.b)
    va, vb = ir.literal_value(a), ir.literal_value(b)
    dtype = e.dtype
    if dtype.is_int:
        if isinstance(e, ir.FloorDiv | ir.FloorMod):
            is_div = isinstance(e, ir.FloorDiv)
            if vb == 0 and isinstance(b, ir.ConstInt):
                raise PassError("Floor division by zero" if is_div else "Floor modulo by zero", e.span)
            if vb == 1:
                return a if is_div else ir.ConstInt(0, ir.expr_dtype(a), e.span)
            if va is not None and vb is not None:
                if va == _INT64_MIN and vb == -1 and ir.expr_dtype(a).bits == 64:
                    raise PassError(
                        "Floor division overflow: INT64_MIN // -1"
                        if is_div
                        else "Floor modulo overflow: INT64_MIN % -1",
                        e.span,
                    )
                value = va // vb if is_div else va % vb
                return ir.ConstInt(ir.expr_dtype(a).wrap(value), ir.expr_dtype(a), e.span)
        elif va is not None and vb is not None:
            value = va + vb if isinstance(e, ir.Add) else va - vb if isinstance(e, ir.Sub) else va * vb
            return ir.ConstInt(ir.expr_dtype(a).wrap(value), ir.expr_dtype(a), e.span)
    if a is e.a and b is e.b:
        return e
    return type(e)(a, b, e.dtype, e.span)


# --------------------------------------------------------------------------------------
# function emission


def _has_tile_ops(fn: ir.Function) -> bool:
    for s in ir.walk_stmts(fn.body):
        if isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Call) and s.value.op != "tile.alloc":
            return True
        if isinstance(s, ir.EvalStmt):
            return True
    return False


def _kernel_kind(fn: ir.Function) -> str:
    spaces: list[ir.MemorySpace] = []
    for s in ir.walk_stmts(fn.body):
        binders: list[ir.Var] = []
        if isinstance(s, ir.AssignStmt):
            binders.append(s.var)
        elif isinstance(s, ir.ForStmt):
            binders.extend(it.var for it in s.iter_args)
        for v in binders:
            if isinstance(v.type, ir.TileType):
                space = v.type.memory_space or ir.MemorySpace.Vec
                if space not in spaces:
                    spaces.append(space)
    vector = [s for s in spaces if s not in CUBE_SPACES]
    cube = [s for s in spaces if s in CUBE_SPACES]
    if vector and cube:
        names = [s.value for s in spaces]
        listed = ", ".join(names[:-1]) + " and " + names[-1]
        raise PassError(
            f"slotsat does not split mixed vector/cube kernels; function {fn.name} uses {listed}", fn.span
        )
    return "cube" if cube else "vector"


class _UnionFind:
    def __init__(self) -> None:
        self.parent: dict[int, int] = {}

    def find(self, x: int) -> int:
        root = x
        while self.parent.get(root, root) != root:
            root = self.parent[root]
        while self.parent.get(x, x) != root:
            self.parent[x], x = root, self.parent[x]
        return root

    def union(self, keep: int, other: int) -> None:
        a, b = self.find(keep), self.find(other)
        if a != b:
            self.parent[b] = a


class FunctionEmitter(Emitter):
    """Emits one kernel function."""

    SUPPORTED_VIEW: ClassVar[frozenset[str]] = frozenset({"tile.reshape", "tile.slice"})

    def __init__(
        self, fn: ir.Function, *, mode: Mode, planner: Planner, backend: Backend, symbol: str | None = None
    ) -> None:
        super().__init__(fn, mode=mode, planner=planner, backend=backend)
        self.symbol = fn.name if symbol is None else symbol
        self.share = _UnionFind()
        self.tensor_views: dict[int, str] = {}
        self.tensor_types: dict[int, ir.TensorType] = {}
        self.carry_guard: dict[int, tuple[int, str]] = {}

    # -- planning ----------------------------------------------------------------------

    def _plan_sharing(self) -> None:  # noqa: C901 - one case per sharing rule of §5.5
        """Union the handles that share a buffer (§5.5); each class is allocated once."""
        for s in ir.walk_stmts(self.fn.body):
            if isinstance(s, ir.AssignStmt) and isinstance(s.var.type, ir.TileType):
                if isinstance(s.value, ir.Var):
                    self.share.union(s.value.id, s.var.id)
                elif isinstance(s.value, ir.Call) and s.value.op == "tile.matmul_acc":
                    acc = s.value.args[0]
                    if isinstance(acc, ir.Var):
                        self.share.union(acc.id, s.var.id)
            elif isinstance(s, ir.ForStmt):
                last = s.body.stmts[-1] if s.body.stmts else None
                yielded = last.values if isinstance(last, ir.YieldStmt) else ()
                for k, it in enumerate(s.iter_args):
                    if not isinstance(it.var.type, ir.TileType):
                        continue
                    if isinstance(it.init, ir.Var):
                        self.share.union(it.init.id, it.var.id)
                    if k < len(yielded) and isinstance(yielded[k], ir.Var):
                        self.share.union(it.var.id, yielded[k].id)  # type: ignore[union-attr]
                    if k < len(s.return_vars):
                        self.share.union(it.var.id, s.return_vars[k].id)
            elif isinstance(s, ir.IfStmt):
                for k, r in enumerate(s.return_vars):
                    if not isinstance(r.type, ir.TileType):
                        continue
                    for branch in (s.then_body, s.else_body):
                        if branch is None or not branch.stmts:
                            continue
                        last = branch.stmts[-1]
                        if isinstance(last, ir.YieldStmt) and k < len(last.values):
                            v = last.values[k]
                            if isinstance(v, ir.Var):
                                self.share.union(r.id, v.id)

    def _check_carries(self) -> None:
        """A carried tile must not be read after its next value is written (§5.5)."""
        for s in ir.walk_stmts(self.fn.body):
            if not isinstance(s, ir.ForStmt) or not s.body.stmts:
                continue
            last = s.body.stmts[-1]
            if not isinstance(last, ir.YieldStmt):
                continue
            for k, it in enumerate(s.iter_args):
                if not isinstance(it.var.type, ir.TileType) or k >= len(last.values):
                    continue
                nxt = last.values[k]
                if not isinstance(nxt, ir.Var) or nxt.id == it.var.id:
                    continue
                written = False
                for stmt in s.body.stmts[:-1]:
                    reads = self._reads(stmt)
                    if written and it.var.id in reads:
                        raise PassError(
                            f"tile carry '{it.var.name_hint}' is read after its next value is "
                            "written; slotsat shares one buffer per carry",
                            _span(stmt),
                        )
                    if self._defines(stmt, nxt.id):
                        written = True

    @staticmethod
    def _reads(stmt: ir.Stmt) -> set[int]:
        out: set[int] = set()
        for s in [stmt, *ir.walk_stmts(ir.SeqStmts((stmt,)))]:
            if isinstance(s, ir.AssignStmt):
                out.update(v.id for v in ir.expr_vars(s.value))
            elif isinstance(s, ir.EvalStmt):
                out.update(v.id for v in ir.expr_vars(s.call))
            elif isinstance(s, ir.YieldStmt | ir.ReturnStmt):
                for e in s.values:
                    out.update(v.id for v in ir.expr_vars(e))
            elif isinstance(s, ir.ForStmt):
                for it in s.iter_args:
                    out.update(v.id for v in ir.expr_vars(it.init))
            elif isinstance(s, ir.IfStmt):
                out.update(v.id for v in ir.expr_vars(s.cond))
        return out

    @staticmethod
    def _defines(stmt: ir.Stmt, vid: int) -> bool:
        for s in ir.walk_stmts(ir.SeqStmts((stmt,))):
            if isinstance(s, ir.AssignStmt) and s.var.id == vid:
                return True
            if isinstance(s, ir.ForStmt | ir.IfStmt) and any(r.id == vid for r in s.return_vars):
                return True
        return False

    # -- the function --------------------------------------------------------------------

    def emit(self) -> list[str]:
        fn = self.fn
        kind = _kernel_kind(fn)
        self._plan_sharing()
        self._check_carries()
        params: list[str] = []
        for k, p in enumerate(fn.params):
            arg = f"%arg{k}"
            self.used_names.add(arg[1:])
            self.var_names[p.id] = arg[1:]
            if isinstance(p.type, ir.TensorType):
                params.append(f"{arg}: !pto.ptr<{p.type.dtype.mlir}>")
            elif isinstance(p.type, ir.ScalarType):
                params.append(f"{arg}: {_int_type(p.type.dtype)}")
                self.handles[p.id] = arg
                self.values[arg] = self.graph.opaque(arg, _int_type(p.type.dtype))
            else:
                raise PassError(f"parameter '{p.name_hint}' cannot be passed to a device function", p.span)
        self.allocations = resolved_allocations(fn, self.backend)
        self.regions = plan_regions(fn, ptoas=self.planner is Planner.PTOAS, fresh_name=self.fresh_name)
        for region in self.regions.values():
            self.const(region.valid_row, ir.DType.INDEX)
            self.const(region.valid_col, ir.DType.INDEX)
        for k, p in enumerate(fn.params):
            if isinstance(p.type, ir.TensorType):
                self._tensor_view(p, f"%arg{k}")
        for region in self.regions.values():
            self.head_lines.append(
                f"%{region.ssa_name} = pto.alloc_multi_tile "
                f"valid_row = {self.const(region.valid_row, ir.DType.INDEX)}"
                f" valid_col = {self.const(region.valid_col, ir.DType.INDEX)} : {region.type_string}"
            )
        if self.planner is Planner.PYPTO:
            for alloc in self.allocations:
                self.alloc_base[alloc.base.id] = self._reserve(alloc.space, alloc.total)
        self.stmts(fn.body)
        if self.planner is Planner.PYPTO:
            self._check_capacity()
        header = (
            f"func.func @{self.symbol}({', '.join(params)}) attributes "
            f"{{pto.kernel_kind = #pto.kernel_kind<{kind}>}} {{"
        )
        lines = [header, *self.const_lines, *self.head_lines, *self.body_lines, "return", "}"]
        return ["  " + line for line in lines]

    def _tensor_view(self, p: ir.Var, arg: str) -> None:
        t = p.type
        assert isinstance(t, ir.TensorType)
        shape = [self.const(d, ir.DType.INDEX) for d in t.shape]
        strides_v = [1] * len(t.shape)
        for k in range(len(t.shape) - 2, -1, -1):
            strides_v[k] = strides_v[k + 1] * t.shape[k + 1]
        strides = [self.const(s, ir.DType.INDEX) for s in strides_v]
        name = self.fresh_name(f"{p.name_hint}_view")
        dims = "x".join("?" for _ in t.shape)
        self.head_lines.append(
            f"%{name} = pto.make_tensor_view {arg}, shape = [{', '.join(shape)}], "
            f"strides = [{', '.join(strides)}]"
            f" {{layout = #pto.layout<nd>}} : !pto.tensor_view<{dims}x{t.dtype.mlir}>"
        )
        self.tensor_views[p.id] = f"%{name}"
        self.tensor_types[p.id] = t

    # -- PYPTO addresses ---------------------------------------------------------------------

    def _reserve(self, space: ir.MemorySpace, size: int) -> int:
        start = -(-self.addresses.get(space, 0) // ALIGN) * ALIGN
        self.addresses[space] = start + size
        return start

    def _check_capacity(self) -> None:
        for space, end in self.addresses.items():
            cap = self.backend.capacity(space)
            if cap and end > cap:
                raise PassError(
                    f"PYPTO planner: {space.value} needs {end} bytes but the backend provides {cap} "
                    "(slotsat's address allocator does not reuse buffers)",
                    self.fn.span,
                )

    def _address(self, v: ir.Var, tile: ir.TileType) -> str:
        memref = tile.memref
        if memref is not None and memref.base.id in self.alloc_base:
            base = self.alloc_base[memref.base.id]
            offset = fold(memref.byte_offset)
            if isinstance(offset, ir.ConstInt):
                return self.const(base + offset.value, ir.DType.INT64)
            value = self.lower(offset)
            as_i64 = self.arith("index_cast", [value], "i64", cast_from="index")
            return self.arith("addi", [self.const(base, ir.DType.INT64), as_i64], "i64")
        space = tile.memory_space or ir.MemorySpace.Vec
        size = tile_bytes(tile, self.backend)
        if size is None:
            raise PassError(f"tile '{v.name_hint}' has no static size", v.span)
        return self.const(self._reserve(space, size), ir.DType.INT64)

    # -- tiles -------------------------------------------------------------------------------

    def handle(self, v: ir.Var) -> str:
        h = self.handles.get(self.share.find(v.id))
        if h is None:
            h = self.handles.get(v.id)
        if h is None:
            raise PassError(f"tile '{v.name_hint}' is used before it has a buffer", v.span)
        return h

    def _alloc_line(self, name: str, v: ir.Var, tile: ir.TileType) -> None:
        rows, cols = valid_extents(tile)
        addr = ""
        if self.planner is Planner.PYPTO:
            addr = f"addr = {self._address(v, tile)} "
        vr = self.index_value(rows)
        vc = self.index_value(cols)
        self.line(
            f"{name} = pto.alloc_tile {addr}valid_row = {vr} valid_col = {vc} : {tile_type_string(tile)}"
        )

    def define_tile(self, v: ir.Var) -> str:
        """Create `v`'s buffer at its definition (§5.5) unless its class already has one."""
        root = self.share.find(v.id)
        existing = self.handles.get(root)
        if existing is not None:
            self.handles[v.id] = existing
            return existing
        tile = v.type
        assert isinstance(tile, ir.TileType)
        name = f"%{self.var_name(v)}"
        memref = tile.memref
        region = self.regions.get(memref.base.id) if memref is not None else None
        if region is not None and memref is not None and memref.slot_index is not None:
            slot = self.slot_operand(v, memref.slot_index, region)
            self.line(
                f"{name} = pto.multi_tile_get %{region.ssa_name}[{slot}] : {region.type_string} -> "
                f"{region.slot_type}"
            )
        else:
            self._alloc_line(name, v, tile)
        self.handles[root] = name
        self.handles[v.id] = name
        return name

    def slot_operand(self, v: ir.Var, index: ir.Expr, region: Region) -> str:
        """The slot operand's chain (§6): from the slot index, never the byte offset."""
        dtype = ir.expr_dtype(index)
        if not dtype.is_int:
            raise PassError(f"A slot index must be an integer or index expression, got {dtype.value}", v.span)
        folded = fold(index)
        before = self.op_count
        slot = self.mode is Mode.SLOTSAT
        if isinstance(folded, ir.ConstInt):
            name = self.const(folded.value, ir.DType.INDEX)
        else:
            if slot:
                name = self.lower(folded, slot=True)
            else:
                name = self.lower(folded)
            if dtype is not ir.DType.INDEX:
                name = self.arith("index_cast", [name], "index", cast_from=_int_type(dtype))
        value = self.value_of(name)
        interval = None
        if isinstance(value, mm.Const):
            interval = (value.value, value.value)
        cls = mm.classify(value, region.slot_count, interval)
        self.gets.append(
            GetRecord(
                self.fn.name,
                v.name_hint,
                region.ssa_name,
                region.slot_count,
                value,
                cls,
                self.scopes[-1].block,
                self.op_count - before,
            )
        )
        return name

    # -- statements --------------------------------------------------------------------------

    def stmts(self, body: ir.SeqStmts) -> None:
        for s in body.stmts:
            self.stmt(s)

    def stmt(self, s: ir.Stmt) -> None:
        if isinstance(s, ir.AssignStmt):
            if is_alloc_statement(s):
                return
            self.assign(s)
        elif isinstance(s, ir.EvalStmt):
            self.call(None, s.call, s.span)
        elif isinstance(s, ir.ForStmt):
            self.for_(s)
        elif isinstance(s, ir.IfStmt):
            self.if_(s)
        elif isinstance(s, ir.ReturnStmt):
            return
        else:
            raise AssertionError("a yield is handled by its loop or if")

    def assign(self, s: ir.AssignStmt) -> None:
        v = s.var
        if isinstance(s.value, ir.Call):
            self.call(v, s.value, s.span)
            return
        if isinstance(v.type, ir.TileType):
            assert isinstance(s.value, ir.Var)
            self.handles[v.id] = self.handle(s.value)
            return
        if isinstance(v.type, ir.TensorType):
            assert isinstance(s.value, ir.Var)
            self.tensor_views[v.id] = self.tensor_view(s.value)
            self.tensor_types[v.id] = v.type
            return
        value = fold(s.value)
        dtype = ir.expr_dtype(value)
        if isinstance(value, ir.ConstInt):
            self.handles[v.id] = self.const(value.value, dtype)
        elif isinstance(value, ir.ConstFloat):
            self.handles[v.id] = self.const_float(value.value, dtype)
        else:
            self.handles[v.id] = self.lower(value)

    def tensor_view(self, t: ir.Expr | ir.CallArg) -> str:
        if not isinstance(t, ir.Var) or t.id not in self.tensor_views:
            raise PassError(
                "a tensor argument must name a tensor parameter, carried tensor or store result",
                getattr(t, "span", NO_SPAN),
            )
        return self.tensor_views[t.id]

    def _offsets(self, arg: ir.CallArg) -> list[str]:
        assert isinstance(arg, ir.ExprList)
        out: list[str] = []
        for e in arg.items:
            folded = fold(e)
            if isinstance(folded, ir.ConstInt):
                out.append(self.const(folded.value, ir.DType.INDEX))
            else:
                value = self.lower(folded)
                out.append(self.arith("maxsi", [value, self.const(0, ir.DType.INDEX)], "index"))
        return out

    def _partition(self, tensor: ir.Var, offsets: ir.CallArg, shape: Sequence[int]) -> tuple[str, str]:
        view = self.tensor_view(tensor)
        ttype = self.tensor_types[tensor.id]
        offs = self._offsets(offsets)
        sizes = [self.const(d, ir.DType.INDEX) for d in shape]
        name = self.new_tmp()
        dims = "x".join("?" for _ in ttype.shape)
        pv = f"!pto.partition_tensor_view<{'x'.join(str(d) for d in shape)}x{ttype.dtype.mlir}>"
        self.line(
            f"{name} = pto.partition_view {view}, offsets = [{', '.join(offs)}], sizes = "
            f"[{', '.join(sizes)}] : !pto.tensor_view<{dims}x{ttype.dtype.mlir}> -> {pv}"
        )
        return name, pv

    def _tile_arg(self, arg: ir.CallArg) -> tuple[str, str]:
        if not isinstance(arg, ir.Var) or not isinstance(arg.type, ir.TileType):
            raise PassError("expected a tile operand", getattr(arg, "span", NO_SPAN))
        return self.handle(arg), tile_type_string(arg.type)

    def _scalar_arg(self, arg: ir.CallArg, dtype: ir.DType) -> tuple[str, str]:
        if isinstance(arg, ir.ConstFloat):
            return self.const_float(arg.value, dtype), dtype.mlir
        if isinstance(arg, ir.ConstInt):
            if dtype.is_float:
                return self.const_float(float(arg.value), dtype), dtype.mlir
            return self.const(arg.value, dtype), _int_type(dtype)
        if not isinstance(
            arg, ir.Var | ir.Add | ir.Sub | ir.Mul | ir.FloorDiv | ir.FloorMod | ir.Cast | ir.Cmp
        ):
            raise PassError("expected a scalar operand", getattr(arg, "span", NO_SPAN))
        return self.lower(fold(arg)), _int_type(ir.expr_dtype(arg))

    def call(self, target: ir.Var | None, c: ir.Call, span: Span) -> None:
        spec = ops.lookup(c.op)
        if spec is None or (spec.pto is None and c.op not in ("tile.load", "tile.store")):
            raise PassError(
                f"slotsat's code generator does not support {c.op}", c.span if c.span != NO_SPAN else span
            )
        if c.op == "tile.load":
            self._load(target, c)
            return
        if c.op == "tile.store":
            self._store(target, c)
            return
        if target is None or not isinstance(target.type, ir.TileType):
            raise PassError(f"slotsat's code generator does not support {c.op} without a tile result", span)
        if c.op in self.SUPPORTED_VIEW:
            self._view(target, c)
            return
        dst_type = tile_type_string(target.type)
        if c.op == "tile.matmul_acc":
            acc, acc_t = self._tile_arg(c.args[0])
            lhs, lhs_t = self._tile_arg(c.args[1])
            rhs, rhs_t = self._tile_arg(c.args[2])
            self.handles[target.id] = acc
            self.line(
                f"pto.tmatmul.acc ins({acc}, {lhs}, {rhs} : {acc_t}, {lhs_t}, {rhs_t}) outs({acc} : {acc_t})"
            )
            return
        ins: list[tuple[str, str]] = []
        for k, arg in enumerate(c.args):
            if isinstance(arg, ir.DTypeArg | ir.SpaceArg):
                continue
            if spec.params[k] == "scalar":
                ins.append(self._scalar_arg(arg, target.type.dtype))
            else:
                ins.append(self._tile_arg(arg))
        dst = self.define_tile(target)
        if spec.rule is ops.TypeRule.ROW_REDUCE:
            src = c.args[0]
            assert isinstance(src, ir.Var)
            assert isinstance(src.type, ir.TileType)
            tmp = f"%{self.fresh_name(self.var_name(target) + '_tmp')}"
            self._alloc_line(tmp, src, src.type)
            ins.append((tmp, tile_type_string(src.type)))
        names = ", ".join(n for n, _ in ins)
        types = ", ".join(t for _, t in ins)
        self.line(f"{spec.pto} ins({names} : {types}) outs({dst} : {dst_type})")

    def _load(self, target: ir.Var | None, c: ir.Call) -> None:
        if target is None or not isinstance(target.type, ir.TileType):
            raise PassError("a tile.load result must be assigned to a tile", c.span)
        dst = self.define_tile(target)
        tensor = c.args[0]
        assert isinstance(tensor, ir.Var)
        shape = c.args[2]
        assert isinstance(shape, ir.ExprList)
        dims = [ir.literal_value(d) for d in shape.items]
        if any(d is None for d in dims):
            raise PassError("tile shape entries must be positive integer literals", c.span)
        pv_name, pv = self._partition(tensor, c.args[1], [d for d in dims if d is not None])
        self.line(f"pto.tload ins({pv_name} : {pv}) outs({dst} : {tile_type_string(target.type)})")

    def _store(self, target: ir.Var | None, c: ir.Call) -> None:
        tile_arg = c.args[0]
        tensor = c.args[2]
        if not isinstance(tile_arg, ir.Var) or not isinstance(tile_arg.type, ir.TileType):
            raise PassError("tile.store stores a tile", c.span)
        assert isinstance(tensor, ir.Var)
        src, src_t = self._tile_arg(tile_arg)
        pv_name, pv = self._partition(tensor, c.args[1], tile_arg.type.shape)
        self.line(f"pto.tstore ins({src} : {src_t}) outs({pv_name} : {pv})")
        if target is not None:
            self.tensor_views[target.id] = self.tensor_view(tensor)
            self.tensor_types[target.id] = self.tensor_types[tensor.id]

    def _view(self, target: ir.Var, c: ir.Call) -> None:
        assert isinstance(target.type, ir.TileType)
        src, src_t = self._tile_arg(c.args[0])
        name = f"%{self.var_name(target)}"
        dst_t = tile_type_string(target.type)
        if c.op == "tile.reshape":
            self.line(f"{name} = pto.treshape {src} : {src_t} -> {dst_t}")
        else:
            offsets = c.args[2]
            assert isinstance(offsets, ir.ExprList)
            offs = [self.index_value(e) for e in offsets.items]
            rows, cols = target.type.rows_cols
            self.line(
                f"{name} = pto.subview {src}[{', '.join(offs)}] sizes [{rows}, {cols}] : {src_t} -> {dst_t}"
            )
        self.handles[target.id] = name
        self.handles.setdefault(self.share.find(target.id), name)

    # -- control flow ------------------------------------------------------------------------

    def _bound(self, e: ir.Expr) -> str:
        return self.index_value(e)

    def for_(self, s: ir.ForStmt) -> None:
        step = fold(s.step)
        if not isinstance(step, ir.ConstInt) or ir.literal_value(step) is None or step.value <= 0:
            raise PassError(
                f"loops in device functions must have a positive constant step, got {format_expr(s.step)}",
                s.span,
            )
        lb = self._bound(s.start)
        ub = self._bound(s.stop)
        st = self.const(step.value, ir.DType.INDEX)
        start = fold(s.start)
        start_literal = ir.index_literal(start)
        self.loops[s.loop_var.id] = _LoopFact(
            start_literal if start_literal is not None and start_literal >= 0 else None
        )
        iv = f"%{self.var_name(s.loop_var)}"
        self.handles[s.loop_var.id] = iv
        self.values[iv] = self.graph.opaque(iv)
        scalar_iters: list[tuple[ir.IterArg, int]] = []
        for k, it in enumerate(s.iter_args):
            if isinstance(it.var.type, ir.TileType):
                if isinstance(it.init, ir.Var):
                    self.handles[it.var.id] = self.handle(it.init)
                    self.handles.setdefault(self.share.find(it.var.id), self.handles[it.var.id])
            elif isinstance(it.var.type, ir.TensorType):
                self.tensor_views[it.var.id] = self.tensor_view(it.init)
                self.tensor_types[it.var.id] = it.var.type
            else:
                scalar_iters.append((it, k))
        header = f"scf.for {iv} = {lb} to {ub} step {st}"
        results = ""
        if scalar_iters:
            inits: list[str] = []
            types: list[str] = []
            for it, _ in scalar_iters:
                init = fold(it.init)
                dtype = ir.expr_dtype(init)
                init_name = (
                    self.const(init.value, dtype) if isinstance(init, ir.ConstInt) else self.lower(init)
                )
                name = f"%{self.var_name(it.var)}"
                self.handles[it.var.id] = name
                inits.append(f"{name} = {init_name}")
                types.append(_int_type(ir.expr_dtype(it.var)))
            header += f" iter_args({', '.join(inits)}) -> ({', '.join(types)})"
            outs = [f"%{self.var_name(s.return_vars[k])}" for _, k in scalar_iters]
            results = ", ".join(outs) + " = "
        self.line(f"{results}{header} {{")
        body = s.body.stmts
        last = body[-1] if body and isinstance(body[-1], ir.YieldStmt) else None
        with self.block():
            for stmt in body:
                if stmt is last:
                    continue
                self.stmt(stmt)
            if scalar_iters and last is not None:
                vals = [self._scalar_value(last.values[k]) for _, k in scalar_iters]
                types = [_int_type(ir.expr_dtype(it.var)) for it, _ in scalar_iters]
                self.line(f"scf.yield {', '.join(vals)} : {', '.join(types)}")
        self.line("}")
        for k, r in enumerate(s.return_vars):
            if isinstance(r.type, ir.TileType):
                self.handles[r.id] = (
                    self.handle(s.iter_args[k].var) if k < len(s.iter_args) else self.handle(r)
                )
            elif isinstance(r.type, ir.TensorType):
                self.tensor_views[r.id] = self.tensor_views[s.iter_args[k].var.id]
                self.tensor_types[r.id] = r.type
            else:
                self.handles[r.id] = f"%{self.var_name(r)}"

    def _scalar_value(self, e: ir.Expr) -> str:
        folded = fold(e)
        if isinstance(folded, ir.ConstInt):
            return self.const(folded.value, folded.dtype)
        return self.lower(folded)

    def if_(self, s: ir.IfStmt) -> None:
        cond = fold(s.cond)
        cond_name = self.lower(cond)
        scalar_results: list[tuple[int, ir.Var]] = []
        tensor_results: list[tuple[int, ir.Var]] = []
        for k, r in enumerate(s.return_vars):
            if isinstance(r.type, ir.TileType):
                self.define_tile(r)
            elif isinstance(r.type, ir.TensorType):
                tensor_results.append((k, r))
            else:
                scalar_results.append((k, r))
        prefix = ""
        suffix = ""
        if scalar_results:
            prefix = ", ".join(f"%{self.var_name(r)}" for _, r in scalar_results) + " = "
            suffix = " -> (" + ", ".join(_int_type(ir.expr_dtype(r)) for _, r in scalar_results) + ")"
        self.line(f"{prefix}scf.if {cond_name}{suffix} {{")
        views: list[list[str]] = []
        for branch_index, branch in enumerate((s.then_body, s.else_body)):
            if branch is None:
                continue
            if branch_index == 1:
                self.line("} else {")
            last = branch.stmts[-1] if branch.stmts and isinstance(branch.stmts[-1], ir.YieldStmt) else None
            with self.block():
                for stmt in branch.stmts:
                    if stmt is not last:
                        self.stmt(stmt)
                if last is not None:
                    views.append([self.tensor_view(last.values[k]) for k, _ in tensor_results])
                    if scalar_results:
                        vals = [self._scalar_value(last.values[k]) for k, _ in scalar_results]
                        types = [_int_type(ir.expr_dtype(r)) for _, r in scalar_results]
                        self.line(f"scf.yield {', '.join(vals)} : {', '.join(types)}")
        self.line("}")
        for k, r in scalar_results:
            self.handles[r.id] = f"%{self.var_name(r)}"
            del k
        for j, (_, r) in enumerate(tensor_results):
            denoted = {v[j] for v in views}
            if len(denoted) != 1:
                raise PassError(
                    f"tensor result '{r.name_hint}' of an if must denote one tensor in both branches", s.span
                )
            self.tensor_views[r.id] = denoted.pop()
            assert isinstance(r.type, ir.TensorType)
            self.tensor_types[r.id] = r.type


def _span(s: ir.Stmt) -> Span:
    return getattr(s, "span", NO_SPAN)


# --------------------------------------------------------------------------------------
# the module


def kernel_functions(module: ir.Module) -> list[tuple[ir.Function, bool]]:
    """(function, is_opaque) for every function that becomes a `func.func`, in program order."""
    out: list[tuple[ir.Function, bool]] = []
    for program in module.programs:
        for fn in program.functions:
            if not _has_tile_ops(fn):
                continue
            out.append((fn, fn.type is ir.FunctionType.OPAQUE))
    return out


@dataclass(frozen=True)
class PtoCodegen:
    """Emit the `.pto` module of a program init-memref has run on (§5)."""

    name: ClassVar[str] = "pto-codegen"

    planner: Planner = Planner.PTOAS
    mode: Mode = Mode.SLOTSAT
    backend: Backend = Backend.ASCEND910B

    def run(self, module: ir.Module) -> CodegenResult:
        result = CodegenResult("")
        arch = self.backend.target_arch
        attrs = f' attributes {{pto.target_arch = "{arch}"}}' if arch is not None else ""
        lines = [f"module{attrs} {{"]
        used: set[str] = set()
        for fn, opaque in kernel_functions(module):
            symbol = fn.name
            n = 1
            while symbol in used:
                # two programs may each define `kernel`; symbols must be unique in a module
                symbol = f"{fn.name}_{n}"
                n += 1
            used.add(symbol)
            if opaque:
                result.notes.append(
                    Note(
                        "note",
                        f"function '{fn.name}' is a plain @pl.function with tile "
                        "operations; slotsat compiles it as a kernel (it does not "
                        "outline kernels from orchestration code)",
                        fn.span,
                    )
                )
            emitter = FunctionEmitter(
                fn, mode=self.mode, planner=self.planner, backend=self.backend, symbol=symbol
            )
            lines.extend(emitter.emit())
            result.gets.extend(emitter.gets)
            result.function_ops[fn.name] = emitter.op_count
        lines.append("}")
        result.text = "\n".join(lines) + "\n"
        return result
