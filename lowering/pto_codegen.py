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

Every integer expression goes through the function's index engine
(`slotsat.egraph_rules.engine.IndexEngine`, `60-egraph-engine.md` §9): a pre-pass registers every
loop, every slot operand (with its slot count) and every plain integer expression codegen
lowers, the engine saturates once, and emission calls `choose` in emission order with an
`EmittedScope` pushed / popped per block; `slotsat.lowering.floor_lowering.render` prints the chosen
term with this module's constants and `%N` temporaries. Plain expressions (offsets, bounds,
scalars, PYPTO address arithmetic) lower node by node as written with the syntactic proof in
both modes, never shared (§7.4). Slot operands (§6) are the slot index, never the byte
offset; in the default mode extraction picks the cheapest matcher-accepted form (`remui` /
`divui`, a bare value the interval analysis bounds, values already emitted in scope reused),
and a proven range outside `[0, N)` is a warning; `--mode pypto` lowers them as written, one
chain per get, exactly as the reference. Only floating-point scalar expressions are lowered
here.

Handles that share a buffer get no allocation (§5.5): a bare copy, `matmul_acc`'s
accumulator, a loop carry (carried variable, yielded value, result: all the initial value's
handle), and the tiles an `if` yields for one result (one handle allocated before the
`scf.if`).

Under `PYPTO` (§5.9, `05-decisions.md` item 14) every `pto.alloc_tile` gets
`addr = %c<A>_i64` from `lowering/memory_reuse.py`, which reuses buffers by the live ranges
of `analysis/liveness.py` (declared allocations first and never shared); a slotted tile's
address is `base + byte_offset` (a runtime slot lowers `index * slot_size` and adds it with
`arith.index_cast` / `arith.addi`). Under every planner the same module rejects two live
tiles on one declared slot and a read of a shared buffer another value has overwritten.

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

import re
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import ClassVar

from slotsat.analysis import matcher as mm
from slotsat.analysis.budget import Backend
from slotsat.analysis.liveness import liveness
from slotsat.core import ir, ops
from slotsat.core.errors import NO_SPAN, PassError, Span
from slotsat.core.options import Mode, Planner
from slotsat.core.semantics import fold
from slotsat.egraph_rules.costs import EmitTerm
from slotsat.egraph_rules.costs import signless_type as _signless_type
from slotsat.egraph_rules.engine import Chosen, EmittedScope, IndexEngine, RootId
from slotsat.egraph_rules.loops import LoopInfo
from slotsat.egraph_rules.scope import ScopedMemo
from slotsat.lowering.common import format_expr
from slotsat.lowering.floor_lowering import MemoNamer, ValueRecorder, render
from slotsat.lowering.init_memref import Allocation, is_alloc_statement, resolved_allocations
from slotsat.lowering.memory_reuse import MemoryPlan, check_declared_slots, check_shared_buffers, plan_memory
from slotsat.lowering.regions import Region, plan_regions, tile_type_string, valid_extents

CUBE_SPACES = frozenset(
    {ir.MemorySpace.Mat, ir.MemorySpace.Left, ir.MemorySpace.Right, ir.MemorySpace.Acc, ir.MemorySpace.Bias}
)


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
    index: ir.Expr | None = None
    """The IR slot index (before folding)."""
    term: EmitTerm | None = None
    """The term rendered for the operand (None for a literal slot)."""
    loops: tuple[LoopInfo, ...] = ()
    """The loops enclosing the get, outermost first (starts, stops and steps folded)."""

    @property
    def accepted(self) -> bool:
        return mm.accepted(self.matcher_class)


@dataclass
class CodegenResult:
    text: str
    notes: list[Note] = field(default_factory=list)
    gets: list[GetRecord] = field(default_factory=list)
    function_ops: dict[str, int] = field(default_factory=dict)
    engine_reports: list[EngineStats] = field(default_factory=list)
    """Per function, the index engine's figures (roots, nodes, iterations, seconds)."""


def _int_type(dtype: ir.DType) -> str:
    """The MLIR spelling of an integer / index type in `arith` (signless)."""
    if dtype is ir.DType.INDEX:
        return "index"
    if dtype is ir.DType.BOOL:
        return "i1"
    if dtype.is_float:
        return dtype.mlir
    return f"i{dtype.bits}"


_MLIR_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*")


def mlir_name(hint: str) -> str:
    """`hint` as a name MLIR accepts after `%` or `@`: unchanged when it already is one, else
    each character outside `[A-Za-z0-9_$.]` spelled `u` plus its four-or-more hex digits
    (`ξ` -> `u03be`, `tξ` -> `tu03be`), so a Python identifier in any script gives the same
    name on every run."""
    if _MLIR_NAME.fullmatch(hint):
        return hint
    mangled = "".join(c if c.isascii() and (c.isalnum() or c in "_$.") else f"u{ord(c):04x}" for c in hint)
    return mangled if mangled and not mangled[0].isdigit() else f"v{mangled}"


def _const_name(value: int, type_: str) -> str:
    return f"%c{value}_{type_}" if value >= 0 else f"%cn{-value}_{type_}"


def _float_name(value: float, type_: str) -> str:
    text = repr(float(value)).replace("-", "n").replace(".", "p").replace("+", "")
    return f"%cf{text}_{type_}"


def _float_literal(value: float) -> str:
    return f"{float(value):.6e}"


@dataclass(frozen=True, slots=True)
class EngineStats:
    """One function's index-engine figures (`CodegenResult.engine_reports`)."""

    function: str
    roots: int
    slot_roots: int
    nodes: int
    iterations: int
    saturate_seconds: float
    extract_seconds: float
    limit_hit: str | None
    matches: dict[str, int] = field(default_factory=dict)
    """Matches per rule name in the function's saturation (which rules fired)."""

    def as_dict(self) -> dict[str, str | float | int | dict[str, int]]:
        return {
            "function": self.function,
            "roots": self.roots,
            "slot_roots": self.slot_roots,
            "nodes": self.nodes,
            "iterations": self.iterations,
            "saturate_seconds": self.saturate_seconds,
            "extract_seconds": self.extract_seconds,
            "matches": dict(self.matches),
        }


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
        self.engine = IndexEngine(mode)
        self.emitted = EmittedScope()
        self.clamps: ScopedMemo[str] = ScopedMemo()
        """Default mode: offsets already clamped in scope, by SSA name (see `_clamped`)."""
        self.namer = _Namer(self)
        self.recorder = _Recorder(self.graph, self.values)
        self.plain_roots: dict[Site, RootId] = {}
        """Plain integer roots by their site (see `Site`)."""
        self.slot_roots: dict[int, RootId] = {}
        """Slot-operand roots by the tile variable's id."""
        self.extract_seconds = 0.0
        self.block_ids: list[int] = [0]
        self.blocks = 0
        self.gets: list[GetRecord] = []
        self.op_count = 0
        self.regions: dict[int, Region] = {}
        self.plan = MemoryPlan()
        self.allocations: list[Allocation] = []

    # -- names -------------------------------------------------------------------------

    def fresh_name(self, hint: str) -> str:
        """A unique SSA name (without `%`) for `hint`, disambiguated as the printer does; a hint
        MLIR would not accept is spelled by `mlir_name` first."""
        hint = mlir_name(hint)
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
        reduced = dtype.wrap(value) if dtype is not ir.DType.BOOL else value & 1
        return self.const_typed(reduced, _int_type(dtype))

    def const_typed(self, reduced: int, type_: str) -> str:
        """The hoisted constant `reduced` (already reduced to the width) of MLIR type `type_`."""
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
        """A nested block: values emitted inside are not visible after it (engine and namer)."""
        self.blocks += 1
        self.block_ids.append(self.blocks)
        self.emitted.push()
        self.clamps.push()
        self.namer.push()
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            self.namer.pop()
            self.clamps.pop()
            self.emitted.pop()
            self.block_ids.pop()

    # -- integer expressions (§7): through the index engine --------------------------------

    def lower(self, e: ir.Expr, want: ir.DType | None = None) -> str:
        """Emit a plain (non-slot) expression `e` and return the SSA name of its value, converted
        to `want` when given (an offset, a bound or an extent is an `index` value: a scalar of
        another integer dtype gets `arith.index_cast`, or `arith.index_castui` when unsigned).

        Every integer expression is a root of the function's index engine (registered by the
        pre-pass, or here when the pre-pass missed it) and is chosen in emission order. Only
        floating-point expressions are lowered here.
        """
        folded = fold(e)
        if ir.expr_dtype(folded).is_float:
            return self._lower_float(folded)
        _reject_float_compare(folded)
        site = _site(e, want)
        root = self.plain_roots.get(site)
        if root is None:  # not seen by the pre-pass (re-saturates once, batched)
            root = self.plain_roots[site] = self.engine.add_root(_converted(e, want))
        name, _ = self.render(self._choose(root).term)
        return name

    def _choose(self, root: RootId) -> Chosen:
        t0 = time.perf_counter()
        try:
            return self.engine.choose(root, self.emitted)
        finally:
            self.extract_seconds += time.perf_counter() - t0

    def render(self, term: EmitTerm) -> tuple[str, int]:
        """Render an engine term at the current position: (SSA name, ops emitted)."""
        lines, name = render(term, self.namer, self.recorder, signless_types=True)
        for text in lines:
            self.line(text)
        self.op_count += len(lines)
        return name, len(lines)

    def _lower_float(self, e: ir.Expr) -> str:
        """Floating-point scalar expressions (`arith.addf` ..., `remf` / `divf`)."""
        if isinstance(e, ir.Var):
            return self.var_value(e)
        if isinstance(e, ir.ConstFloat):
            return self.const_float(e.value, e.dtype)
        if isinstance(e, ir.ConstInt):
            return self.const(e.value, e.dtype)
        if isinstance(e, ir.Add | ir.Sub | ir.Mul | ir.FloorDiv | ir.FloorMod):
            a, b = self._lower_float_operand(e.a, e.dtype), self._lower_float_operand(e.b, e.dtype)
            op = {ir.Add: "addf", ir.Sub: "subf", ir.Mul: "mulf", ir.FloorDiv: "divf", ir.FloorMod: "remf"}
            return self.arith(op[type(e)], [a, b], _int_type(e.dtype))
        raise PassError("unsupported floating-point expression in device code", getattr(e, "span", NO_SPAN))

    def _lower_float_operand(self, e: ir.Expr, dtype: ir.DType) -> str:
        if isinstance(e, ir.ConstInt):
            return self.const(e.value, dtype)
        if isinstance(e, ir.ConstFloat):
            return self.const_float(e.value, dtype)
        return self.lower(e)

    def var_value(self, v: ir.Var) -> str:
        handle = self.handles.get(v.id)
        if handle is None:
            raise PassError(f"'{v.name_hint}' has no value in the device function", v.span)
        return handle

    def index_value(self, e: ir.Expr) -> str:
        """A non-slot `INDEX` value (an offset, a bound, an extent): folded, then lowered (§7.4),
        converted to `index` when `e` has another integer dtype."""
        folded = fold(e)
        if isinstance(folded, ir.ConstInt):
            return self.const(folded.value, ir.DType.INDEX)
        return self.lower(e, ir.DType.INDEX)


Site = tuple[int, ir.DType | None]
"""A plain root's key: the `id` of the (unfolded) IR expression and the dtype its consumer
needs (None: its own). One expression object can be both a scalar operand and an offset."""


def _site(e: ir.Expr, want: ir.DType | None) -> Site:
    return (id(e), None if want is ir.expr_dtype(e) else want)


def _converted(e: ir.Expr, want: ir.DType | None) -> ir.Expr:
    """`e` as a value of `want`: an explicit `Cast` where the integer dtypes differ (the cast's
    semantics: narrowing keeps the low bits, widening extends the value, `10-dsl.md` §7)."""
    own = ir.expr_dtype(e)
    if want is None or want is own or not (own.is_int and want.is_int):
        return e
    if isinstance(e, ir.ConstInt) and own.fits(e.value):
        return ir.ConstInt(want.wrap(e.value), want)
    return ir.Cast(e, want)


class _Namer(MemoNamer):
    """`floor_lowering.Namer` over an emitter: its hoisted constants (§5.3, in request
    order), its `%N` temporaries, its variable handles, and a memo of emitted e-classes
    scoped like the engine's `EmittedScope`."""

    def __init__(self, emitter: Emitter) -> None:
        self.emitter = emitter
        self.memo: ScopedMemo[str] = ScopedMemo()

    def const(self, value: int, mlir_type: str) -> str:
        return self.emitter.const_typed(value, _signless_type(mlir_type))

    def temp(self) -> str:
        return self.emitter.new_tmp()

    def value(self, var: ir.Var) -> str:
        return self.emitter.var_value(var)


class _Recorder(ValueRecorder):
    """Records rendered chains into the emitter's matcher `ValueGraph` (an op the model
    does not know becomes an opaque value, as `Emitter.arith` does)."""

    def op(self, result: str, op: str, operands: list[str], type: str, predicate: str | None = None) -> None:
        try:
            super().op(result, op, operands, _signless_type(type), predicate)
        except (ValueError, KeyError):
            self.values[result] = self.graph.opaque(result, _signless_type(type))


def _reject_float_compare(e: ir.Expr) -> None:
    for sub in _subexprs(e):
        if isinstance(sub, ir.Cmp) and ir.expr_dtype(sub.a).is_float:
            raise PassError("floating-point comparisons are not supported in device code", sub.span)


def _subexprs(e: ir.Expr) -> Iterator[ir.Expr]:
    yield e
    if isinstance(e, ir.Add | ir.Sub | ir.Mul | ir.FloorDiv | ir.FloorMod | ir.Cmp):
        yield from _subexprs(e.a)
        yield from _subexprs(e.b)
    elif isinstance(e, ir.Cast):
        yield from _subexprs(e.a)


# --------------------------------------------------------------------------------------
# function emission


def _is_scalar_expr(e: object) -> bool:
    if isinstance(e, ir.Var):
        return isinstance(e.type, ir.ScalarType)
    return isinstance(e, ir.SCALAR_EXPRS)


def _try_fold(e: ir.Expr) -> ir.Expr:
    try:
        return fold(e)
    except PassError:
        return e


def _tile_definitions(s: ir.Stmt) -> list[ir.Var]:
    """The tile variables `s` defines with a buffer of their own (assignments, if results)."""
    if isinstance(s, ir.AssignStmt) and isinstance(s.var.type, ir.TileType):
        return [s.var]
    if isinstance(s, ir.IfStmt):
        return [r for r in s.return_vars if isinstance(r.type, ir.TileType)]
    return []


Site3 = tuple[ir.Expr, ir.DType | None, str]
"""A plain integer expression codegen lowers: the expression, the dtype its consumer needs
(None: its own) and what it is (`offset`, `shape`, `bound`, `extent`, `operand`, `value`,
`init`, `condition`, `yield`, `address`)."""


def _call_sites(c: ir.Call) -> list[Site3]:
    """A call's scalar arguments (at their own dtype) and list items (offsets, at `INDEX`),
    which codegen may lower."""
    out: list[Site3] = []
    offsets = {"tile.load": 1, "tile.store": 1, "tile.slice": 2}.get(c.op)
    for k, arg in enumerate(c.args):
        if isinstance(arg, ir.ExprList):
            kind = "offset" if k == offsets else "shape"
            out.extend((item, ir.DType.INDEX, kind) for item in arg.items)
        elif _is_scalar_expr(arg):
            out.append((arg, None, "operand"))  # type: ignore[arg-type]
    return out


def plain_sites(s: ir.Stmt, planner: Planner) -> list[Site3]:
    """The integer expressions codegen lowers for statement `s` (not its children), each with
    the dtype its consumer needs: `INDEX` for offsets, loop bounds, valid extents and PYPTO
    byte offsets, None (its own) for scalar operands, values, conditions and yields."""
    idx = ir.DType.INDEX
    out: list[Site3] = []
    if isinstance(s, ir.AssignStmt):
        if isinstance(s.value, ir.Call):
            out.extend(_call_sites(s.value))
        elif not isinstance(s.var.type, ir.TileType | ir.TensorType):
            out.append((s.value, None, "value"))
    elif isinstance(s, ir.EvalStmt):
        out.extend(_call_sites(s.call))
    elif isinstance(s, ir.ForStmt):
        out.extend(((s.start, idx, "bound"), (s.stop, idx, "bound")))
        out.extend((it.init, None, "init") for it in s.iter_args if isinstance(it.var.type, ir.ScalarType))
    elif isinstance(s, ir.IfStmt):
        out.append((s.cond, None, "condition"))
    elif isinstance(s, ir.YieldStmt):
        out.extend((v, None, "yield") for v in s.values)
    for v in _tile_definitions(s):
        tile = v.type
        if not isinstance(tile, ir.TileType):
            continue
        out.extend((x, idx, "extent") for x in valid_extents(tile))
        if planner is Planner.PYPTO and tile.memref is not None:
            out.append((tile.memref.byte_offset, idx, "address"))
    return [site for site in out if _is_scalar_expr(site[0])]


def _slot_memref(v: ir.Var) -> ir.MemRef | None:
    """The memref of a tile definition that is a slot of a multi-slot allocation (a get)."""
    tile = v.type
    m = tile.memref if isinstance(tile, ir.TileType) else None
    if m is None or m.slot_index is None or m.slot_count < 2:
        return None
    return m


def emission_order(s: ir.Stmt, planner: Planner) -> list[ir.Var | Site3]:
    """What codegen lowers for statement `s` (not its children), in the order it lowers it: a
    `Var` is the slot operand of that tile definition (its get), the rest are `plain_sites`.
    A tile's definition (its get, or its valid extents and PYPTO address) comes first for a
    `tile.load` (`_load` defines the tile, then builds the partition view), after the
    statement's own operands otherwise (`call` lowers scalar operands first; `if_` lowers
    the condition, then defines the results)."""
    sites = plain_sites(s, planner)
    definition: list[ir.Var | Site3] = [v for v in _tile_definitions(s) if _slot_memref(v) is not None]
    definition += [site for site in sites if site[2] in ("extent", "address")]
    rest: list[ir.Var | Site3] = [site for site in sites if site[2] not in ("extent", "address")]
    if isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Call) and s.value.op == "tile.load":
        return [*definition, *rest]
    return [*rest, *definition]


@dataclass(frozen=True, slots=True)
class EmissionSite:
    """One item of `emission_order` with where codegen lowers it: the statement's line, the
    enclosing loops (outermost first) and the enclosing blocks (`Emitter.block`: loop bodies
    and `if` branches, each numbered once per function, outermost first)."""

    line: int
    loops: tuple[LoopInfo, ...]
    blocks: tuple[int, ...]
    item: ir.Var | Site3


def emission_sites(fn: ir.Function, planner: Planner = Planner.PTOAS) -> list[EmissionSite]:
    """`emission_order` over the whole function, in codegen's emission order."""
    out: list[EmissionSite] = []
    count = 0

    def visit(body: ir.SeqStmts, loops: tuple[LoopInfo, ...], blocks: tuple[int, ...]) -> None:
        nonlocal count
        for s in body.stmts:
            line = _span(s).line
            out.extend(EmissionSite(line, loops, blocks, item) for item in emission_order(s, planner))
            if isinstance(s, ir.ForStmt):
                info = LoopInfo(s.loop_var, _try_fold(s.start), _try_fold(s.stop), _try_fold(s.step))
                count += 1
                visit(s.body, (*loops, info), (*blocks, count))
            elif isinstance(s, ir.IfStmt):
                for branch in (s.then_body, s.else_body):
                    if branch is not None:
                        count += 1
                        visit(branch, loops, (*blocks, count))

    visit(fn.body, (), ())
    return out


def plain_root(e: ir.Expr, want: ir.DType | None) -> ir.Expr | None:
    """The root codegen's index engine holds for a plain site (`e` converted to `want`), or
    None when there is none: not an integer or comparison, or folding to a literal (a
    constant), or a folding error (left for emission to report in order)."""
    dtype = ir.expr_dtype(e)
    if not (dtype.is_int or dtype is ir.DType.BOOL):
        return None
    try:
        if isinstance(fold(e), ir.ConstInt | ir.ConstFloat):
            return None
    except PassError:
        return None
    return _converted(e, want)


@dataclass(frozen=True, slots=True)
class IndexSite:
    """One integer expression of a kernel function as codegen sees it (`slotsat explore FILE`):
    the statement's line, what it is, the expression (converted to the dtype its consumer
    needs), the slot count of a slot operand, and the enclosing loops, outermost first."""

    line: int
    kind: str
    expr: ir.Expr
    slots: int | None
    loops: tuple[LoopInfo, ...]


def index_sites(fn: ir.Function, planner: Planner = Planner.PTOAS) -> list[IndexSite]:
    """Every slot operand and plain integer expression of `fn` codegen lowers, in emission
    order (`emission_sites`), without the ones that fold to a literal (those are constants,
    not arithmetic) and without comparisons."""
    out: list[IndexSite] = []
    for site in emission_sites(fn, planner):
        if isinstance(site.item, ir.Var):
            v = site.item
            m = _slot_memref(v)
            assert m is not None
            assert m.slot_index is not None
            index = m.slot_index
            if ir.expr_dtype(index).is_int and not isinstance(_try_fold(index), ir.ConstInt):
                kind = f"slot operand of '{v.name_hint}'"
                out.append(IndexSite(site.line, kind, index, m.slot_count, site.loops))
        else:
            e, want, kind = site.item
            if ir.expr_dtype(e).is_int and not isinstance(_try_fold(e), ir.ConstInt):
                out.append(IndexSite(site.line, kind, _converted(e, want), None, site.loops))
    return out


_UNEMITTED_SPACES = frozenset(
    {ir.MemorySpace.LeftScale, ir.MemorySpace.RightScale, ir.MemorySpace.ScalarLocal})
_CODEGEN_EXTRAS: dict[str, tuple[str, ...]] = {
    "tile.row_sum": ("tmp_tile",), "tile.row_max": ("tmp_tile",), "tile.row_min": ("tmp_tile",),
}
"""Extra positional arguments of the reference's forms that codegen emits (a scratch tile)."""


def preflight(fn: ir.Function) -> None:
    """Decline, with a located `PassError`, a function that uses a construct of the
    reference's printed IR that the code generator does not emit: while loops, runtime
    scopes, parallel / unroll loops, returns inside branches, scalar operations outside the
    index language (`ir.is_index_expr`), calls of other functions, ops without a PTO
    spelling or in a form the model does not cover, explicit tile layouts, tensors with
    dynamic shapes or views. Never emits a guess."""
    for p in fn.params:
        t = p.type
        if isinstance(t, ir.TensorType) and (t.static_shape is None or t.view is not None or t.distributed):
            what = "a dynamic shape" if t.static_shape is None else (
                "a distributed tensor" if t.distributed else "an explicit pl.TensorView")
            raise PassError(f"parameter '{p.name_hint}' has {what}, which slotsat's code generator does not "
                            "emit", p.span)
    _preflight_body(fn.body, top=True)
    _preflight_widths(fn)


def _preflight_widths(fn: ir.Function) -> None:
    """An integer codegen lowers (an offset, a bound, an operand, a slot index, ...) computes at
    INDEX or an 8- to 64-bit dtype (`DType.is_int_arith`): a packed 4-bit scalar has no
    `arith` type of its own in the emitted module and no place in the index engine."""
    for s in ir.walk_stmts(fn.body):
        exprs = [site[0] for site in plain_sites(s, Planner.PTOAS)]
        exprs += [m.slot_index for v in _tile_definitions(s) if (m := _slot_memref(v)) is not None
                  and m.slot_index is not None]
        for e in exprs:
            for sub in _all_subexprs(e):
                d = ir.expr_dtype(sub)
                if d.is_int and not d.is_int_arith:
                    where = getattr(sub, "span", NO_SPAN)
                    raise PassError(
                        f"slotsat's code generator does not compute with pl.{d.value} values "
                        f"('{format_expr(sub)}'); index arithmetic is INDEX or an 8- to 64-bit integer",
                        where if where != NO_SPAN else _span(s),
                    )


def _preflight_body(body: ir.SeqStmts, top: bool) -> None:
    for k, s in enumerate(body.stmts):
        span = _span(s)
        if isinstance(s, ir.WhileStmt | ir.ScopeStmt):
            what = "while loops" if isinstance(s, ir.WhileStmt) else "runtime scopes (with pl.scope())"
            raise PassError(f"slotsat's code generator does not emit {what}", span)
        if isinstance(s, ir.ReturnStmt) and not (top and k == len(body.stmts) - 1):
            raise PassError("slotsat's code generator does not emit a return inside a branch", span)
        if isinstance(s, ir.ForStmt):
            if s.kind in (ir.ForKind.PARALLEL, ir.ForKind.UNROLL):
                raise PassError(f"slotsat's code generator does not emit pl.{s.kind.value.lower()} loops",
                                span)
            for e in (s.start, s.stop, s.step, *(it.init for it in s.iter_args)):
                _preflight_expr(e, span)
            _preflight_binders([it.var for it in s.iter_args] + list(s.return_vars), span)
        elif isinstance(s, ir.IfStmt):
            _preflight_expr(s.cond, span)
            _preflight_binders(list(s.return_vars), span)
        elif isinstance(s, ir.AssignStmt):
            _preflight_binders([s.var], span)
            if isinstance(s.value, ir.Call):
                _preflight_call(s.value, span)
            else:
                _preflight_expr(s.value, span)
        elif isinstance(s, ir.EvalStmt):
            _preflight_call(s.call, span)
        elif isinstance(s, ir.YieldStmt | ir.ReturnStmt):
            for v in s.values:
                _preflight_expr(v, span)
        for child in ir.stmt_children_bodies(s):
            _preflight_body(child, top=False)


def _preflight_binders(binders: list[ir.Var], span: Span) -> None:
    for v in binders:
        t = v.type
        if isinstance(t, ir.TileType):
            if t.layout is not None:
                raise PassError(f"tile '{v.name_hint}' has an explicit pl.TileView layout, which slotsat's "
                                "code generator does not emit", span)
            if t.memory_space in _UNEMITTED_SPACES:
                raise PassError(f"tile '{v.name_hint}' lives in {t.memory_space.value}, which slotsat's code "
                                "generator does not emit", span)
            for e in t.valid_shape or ():
                _preflight_expr(e, span)
        elif isinstance(t, ir.TupleType | ir.ArrayType | ir.OpaqueType):
            kind = type(t).__name__.removesuffix("Type").lower()
            raise PassError(f"'{v.name_hint}' has a {kind} type, which slotsat's code generator does not "
                            "emit", span)
        elif isinstance(t, ir.TensorType) and t.static_shape is None:
            raise PassError(f"tensor '{v.name_hint}' has a dynamic shape, which slotsat's code generator "
                            "does not emit", span)


def _preflight_expr(e: ir.Expr, span: Span) -> None:
    if isinstance(e, ir.Var) or ir.is_index_expr(e) or isinstance(e, ir.ConstFloat):
        return
    for sub in _all_subexprs(e):
        if isinstance(sub, ir.ScalarUnary | ir.ScalarBinary | ir.TupleGetItem):
            raise PassError(f"slotsat's code generator does not lower '{format_expr(sub)}'",
                            sub.span if sub.span != NO_SPAN else span)
        if isinstance(sub, ir.Cast):
            src, dst = ir.expr_dtype(sub.a), sub.dtype
            if not (src.is_int_arith and dst.is_int_arith) or (src.is_signed != dst.is_signed):
                where = sub.span if sub.span != NO_SPAN else span
                raise PassError(f"slotsat's code generator does not lower the cast '{format_expr(sub)}' "
                                f"(pl.{src.value} to pl.{dst.value})", where)


def _all_subexprs(e: ir.Expr) -> Iterator[ir.Expr]:
    yield e
    for child in ir.expr_children(e):
        yield from _all_subexprs(child)


def _preflight_call(c: ir.Call, span: Span) -> None:
    where = c.span if c.span != NO_SPAN else span
    if c.op == "tile.alloc":
        return
    spec = ops.lookup(c.op)
    if spec is None or (spec.pto is None and c.op not in ("tile.load", "tile.store")):
        what = f"calls of other functions ({c.op})" if c.op.startswith("self.") else c.op
        raise PassError(f"slotsat's code generator does not support {what}", where)
    extras = _CODEGEN_EXTRAS.get(c.op, ())
    nargs = len(c.args)
    base = len({*spec.params, *spec.optional})
    if nargs > base and spec.ref_extra[:nargs - base] == extras[:nargs - base]:
        nargs = base
    reason = ops.unmodelled(c.op, nargs, dict(c.kwargs))
    if reason is not None:
        raise PassError(f"slotsat's code generator does not support {reason}", where)
    for arg in (*c.args, *(v for _, v in c.kwargs)):
        if isinstance(arg, ir.StrArg | ir.EnumArg | ir.FuncRef | ir.ArgList):
            raise PassError(f"slotsat's code generator does not support {c.op} with argument "
                            f"{arg!r}", where)
        if isinstance(arg, ir.ExprList):
            for item in arg.items:
                _preflight_expr(item, where)
        elif not isinstance(arg, ir.SpaceArg | ir.DTypeArg):
            _preflight_expr(arg, where)


def _calls_tile_ops(fn: ir.Function) -> bool:
    """Whether `fn` calls a `tile.` op (a plain `@pl.function` of orchestration code has none)."""
    for s in ir.walk_stmts(fn.body):
        call = s.value if isinstance(s, ir.AssignStmt) else s.call if isinstance(s, ir.EvalStmt) else None
        if isinstance(call, ir.Call) and call.op.startswith("tile.") and call.op != "tile.alloc":
            return True
    return False


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


class FunctionEmitter(Emitter):
    """Emits one kernel function."""

    SUPPORTED_VIEW: ClassVar[frozenset[str]] = frozenset({"tile.reshape", "tile.slice"})

    def __init__(
        self, fn: ir.Function, *, mode: Mode, planner: Planner, backend: Backend, symbol: str | None = None
    ) -> None:
        super().__init__(fn, mode=mode, planner=planner, backend=backend)
        self.symbol = fn.name if symbol is None else symbol
        self.live = liveness(fn)
        """Sharing classes and live ranges of the tile buffers (`analysis/liveness.py`)."""
        self.tensor_views: dict[int, str] = {}
        self.tensor_types: dict[int, ir.TensorType] = {}
        self.carry_guard: dict[int, tuple[int, str]] = {}
        self.notes: list[Note] = []
        self.loop_stack: list[LoopInfo] = []

    # -- planning ----------------------------------------------------------------------

    # -- the function --------------------------------------------------------------------

    def emit(self) -> list[str]:
        fn = self.fn
        preflight(fn)
        kind = _kernel_kind(fn)
        check_shared_buffers(fn, self.live)
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
        check_declared_slots(self.live, self.allocations)
        if self.planner is Planner.PYPTO:
            self.plan = plan_memory(fn, self.live, self.allocations, self.backend)
        self.collect_roots()
        self.stmts(fn.body)
        header = (
            f"func.func @{self.symbol}({', '.join(params)}) attributes "
            f"{{pto.kernel_kind = #pto.kernel_kind<{kind}>}} {{"
        )
        lines = [header, *self.const_lines, *self.head_lines, *self.body_lines, "return", "}"]
        return ["  " + line for line in lines]

    def _tensor_view(self, p: ir.Var, arg: str) -> None:
        t = p.type
        assert isinstance(t, ir.TensorType)
        static = t.static_shape
        assert static is not None  # preflight declined dynamic shapes
        shape = [self.const(d, ir.DType.INDEX) for d in static]
        strides_v = [1] * len(static)
        for k in range(len(static) - 2, -1, -1):
            strides_v[k] = strides_v[k + 1] * static[k + 1]
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

    def _address(self, v: ir.Var, tile: ir.TileType) -> str:
        """`v`'s address under PYPTO: a declared slot's `base + byte_offset`, else the start
        the planner gave `v`'s buffer (`lowering/memory_reuse.py`)."""
        memref = tile.memref
        if memref is not None and memref.base.id in self.plan.declared:
            base = self.plan.declared[memref.base.id]
            offset = fold(memref.byte_offset)
            if isinstance(offset, ir.ConstInt):
                return self.const(base + offset.value, ir.DType.INT64)
            value = self.lower(memref.byte_offset, ir.DType.INDEX)
            as_i64 = self.arith("index_cast", [value], "i64", cast_from="index")
            return self.arith("addi", [self.const(base, ir.DType.INT64), as_i64], "i64")
        buffer = self.live.buffer(v)
        if buffer is None or buffer.index not in self.plan.buffers:
            raise AssertionError(f"internal error: tile '{v.name_hint}' has no planned address")
        return self.const(self.plan.buffers[buffer.index], ir.DType.INT64)

    # -- tiles -------------------------------------------------------------------------------

    def handle(self, v: ir.Var) -> str:
        h = self.handles.get(self.live.find(v.id))
        if h is None:
            h = self.handles.get(v.id)
        if h is None:
            raise PassError(f"tile '{v.name_hint}' is used before it has a buffer", v.span)
        return h

    def _alloc_line(
        self, name: str, v: ir.Var, tile: ir.TileType, *, scratch_of: ir.Var | None = None
    ) -> None:
        """`pto.alloc_tile` for `v`'s buffer, or (`scratch_of`) for the scratch tile of the
        row reduction that defines `scratch_of`."""
        rows, cols = valid_extents(tile)
        addr = ""
        if self.planner is Planner.PYPTO:
            if scratch_of is not None:
                addr = f"addr = {self.const(self.plan.scratch[scratch_of.id], ir.DType.INT64)} "
            else:
                addr = f"addr = {self._address(v, tile)} "
        vr = self.index_value(rows)
        vc = self.index_value(cols)
        self.line(
            f"{name} = pto.alloc_tile {addr}valid_row = {vr} valid_col = {vc} : {tile_type_string(tile)}"
        )

    def define_tile(self, v: ir.Var) -> str:
        """Create `v`'s buffer at its definition (§5.5) unless its class already has one."""
        root = self.live.find(v.id)
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
        ops = 0
        term: EmitTerm | None = None
        if isinstance(folded, ir.ConstInt):
            name = self.const(folded.value, ir.DType.INDEX)
            value = self.value_of(name)
            interval = (value.value, value.value) if isinstance(value, mm.Const) else None
            cls = mm.classify(value, region.slot_count, interval)
        else:
            root = self.slot_roots.get(v.id)
            if root is None:  # not seen by the pre-pass (re-saturates once, batched)
                root = self.engine.add_root(index, slots=region.slot_count)
                self.slot_roots[v.id] = root
            chosen = self._choose(root)
            term = chosen.term
            name, ops = self.render(term)
            value = self.value_of(name)
            cls = mm.MatcherClass(chosen.matcher_class)
            self._check_interval(v, index, root, region.slot_count)
        self.gets.append(
            GetRecord(
                self.fn.name,
                v.name_hint,
                region.ssa_name,
                region.slot_count,
                value,
                cls,
                self.block_ids[-1],
                ops,
                index,
                term,
                tuple(self.loop_stack),
            )
        )
        return name

    def _check_interval(self, v: ir.Var, index: ir.Expr, root: RootId, count: int) -> None:
        """The warning of `40-ptoas-slot-matcher.md` §9: a proven slot range outside `[0, N)`."""
        interval = self.engine.slot_interval(root)
        if interval is None or interval[0] > interval[1]:
            return
        lo, hi = interval
        if lo < 0 or hi >= count:
            span = getattr(index, "span", NO_SPAN)
            self.notes.append(
                Note(
                    "warning",
                    f"slot index of '{v.name_hint}' ranges over [{lo}, {hi}], outside [0, {count})",
                    span if span != NO_SPAN else v.span,
                )
            )

    # -- the index engine's roots (pre-pass) -------------------------------------------------

    def collect_roots(self) -> None:
        """Register every loop, slot operand and plain integer expression codegen will lower
        with the function's index engine, then saturate once (batched, `60-...` §9).

        Plain roots are keyed by the `id` of the IR expression the emitter later lowers; an
        expression the pre-pass misses is still lowered by the engine (as written). A folding
        error is left for emission, so errors surface in emission order.
        """
        for s in ir.walk_stmts(self.fn.body):
            if isinstance(s, ir.ForStmt):
                self.engine.add_loop(
                    LoopInfo(s.loop_var, _try_fold(s.start), _try_fold(s.stop), _try_fold(s.step))
                )
        for s in ir.walk_stmts(self.fn.body):
            for v in _tile_definitions(s):
                self._collect_slot(v)
            for e, want, _ in plain_sites(s, self.planner):
                self._collect_plain(e, want)
        self.engine.saturate()

    def _collect_slot(self, v: ir.Var) -> None:
        tile = v.type
        if not isinstance(tile, ir.TileType) or tile.memref is None or tile.memref.slot_index is None:
            return
        region = self.regions.get(tile.memref.base.id)
        index = tile.memref.slot_index
        if region is None or v.id in self.slot_roots or not ir.expr_dtype(index).is_int:
            return
        try:
            if isinstance(fold(index), ir.ConstInt):
                return
            self.slot_roots[v.id] = self.engine.add_root(index, slots=region.slot_count)
        except PassError:
            return

    def _collect_plain(self, e: ir.Expr, want: ir.DType | None) -> None:
        site = _site(e, want)
        if site in self.plain_roots:
            return
        root = plain_root(e, want)
        if root is not None:
            self.plain_roots[site] = self.engine.add_root(root)

    def engine_stats(self) -> EngineStats:
        report = self.engine.saturate().report
        return EngineStats(
            self.fn.name,
            len(self.engine.roots),
            len(self.slot_roots),
            report.nodes,
            report.iterations,
            report.seconds,
            self.extract_seconds,
            report.limit_hit,
            dict(report.matches),
        )

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
            self.handles[v.id] = self.lower(s.value)

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
                out.append(self._clamped(e))
        return out

    def _clamped(self, e: ir.Expr) -> str:
        """A runtime offset clamped at 0 (`arith.maxsi %x, %c0_index`), as the reference emits
        it (`30-pto-codegen.md` §5.6); in the default mode once per value and block, like
        every other value extraction shares."""
        value = self.lower(e, ir.DType.INDEX)
        if self.mode is Mode.SLOTSAT:
            known = self.clamps.lookup(value)
            if known is not None:
                return known
        clamped = self.arith("maxsi", [value, self.const(0, ir.DType.INDEX)], "index")
        if self.mode is Mode.SLOTSAT:
            self.clamps.add(value, clamped)
        return clamped

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
        return self.lower(arg), _int_type(ir.expr_dtype(arg))

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
        for k, arg in enumerate(c.args[:len(spec.params)]):
            if isinstance(arg, ir.DTypeArg | ir.SpaceArg):
                continue
            if spec.params[k] == "scalar":
                ins.append(self._scalar_arg(arg, target.type.dtype))
            else:
                ins.append(self._tile_arg(arg))
        dst = self.define_tile(target)
        if spec.rule is ops.TypeRule.ROW_REDUCE:
            if len(c.args) > 1:  # the reference's form names its scratch tile
                ins.append(self._tile_arg(c.args[1]))
            else:
                src = c.args[0]
                assert isinstance(src, ir.Var)
                assert isinstance(src.type, ir.TileType)
                tmp = f"%{self.fresh_name(self.var_name(target) + '_tmp')}"
                self._alloc_line(tmp, src, src.type, scratch_of=target)
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
        self.handles.setdefault(self.live.find(target.id), name)

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
        iv = f"%{self.var_name(s.loop_var)}"
        self.handles[s.loop_var.id] = iv
        self.values[iv] = self.graph.opaque(iv)
        scalar_iters: list[tuple[ir.IterArg, int]] = []
        for k, it in enumerate(s.iter_args):
            if isinstance(it.var.type, ir.TileType):
                if isinstance(it.init, ir.Var):
                    self.handles[it.var.id] = self.handle(it.init)
                    self.handles.setdefault(self.live.find(it.var.id), self.handles[it.var.id])
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
                    self.const(init.value, dtype) if isinstance(init, ir.ConstInt) else self.lower(it.init)
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
        self.loop_stack.append(LoopInfo(s.loop_var, fold(s.start), fold(s.stop), step))
        with self.block():
            for stmt in body:
                if stmt is last:
                    continue
                self.stmt(stmt)
            if scalar_iters and last is not None:
                vals = [self._scalar_value(last.values[k]) for _, k in scalar_iters]
                types = [_int_type(ir.expr_dtype(it.var)) for it, _ in scalar_iters]
                self.line(f"scf.yield {', '.join(vals)} : {', '.join(types)}")
        self.loop_stack.pop()
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
        return self.lower(e)

    def if_(self, s: ir.IfStmt) -> None:
        cond_name = self.lower(s.cond)
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
            if fn.abstract or fn.role == "Orchestrator" or not (
                    fn.type.is_kernel or fn.type is ir.FunctionType.OPAQUE):
                continue  # orchestration, group, spmd, ... code is not compiled (only kernels are)
            if not _has_tile_ops(fn) or (fn.type is ir.FunctionType.OPAQUE and not _calls_tile_ops(fn)):
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
            symbol = mlir_name(fn.name)
            n = 1
            while symbol in used:
                # two programs may each define `kernel`; symbols must be unique in a module
                symbol = f"{mlir_name(fn.name)}_{n}"
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
            result.notes.extend(emitter.notes)
            result.engine_reports.append(emitter.engine_stats())
            result.function_ops[fn.name] = emitter.op_count
        lines.append("}")
        result.text = "\n".join(lines) + "\n"
        return result
