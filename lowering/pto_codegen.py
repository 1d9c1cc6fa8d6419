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

The signature has one parameter per function parameter, in program order (a tensor is its
`!pto.ptr<DT>`), then one `index` parameter per symbolic dimension of a tensor parameter's
shape (first-seen order), then the reference's hidden SPMD identity parameters the body
reads (`%__pypto_spmd_block_idx: i32, %__pypto_spmd_block_num: i32`,
`%__pypto_spmd_subblock_idx: i32`).

Ops are emitted from the spelling table (`lowering/pto_ops.json`, `lowering/pto_spelling.py`),
one method per emission form (`_emit_dps`, `_emit_load`, `_emit_store`, `_emit_alloc`, views,
`_emit_spmd`, `_emit_getval`, ...), never one branch per op: the entry names the ptoas op,
which of the call's arguments become operands and how a scalar operand is typed, and which
keywords become attributes and where ptoas prints them. Every use of a tile handle is
annotated with the type the handle was defined with (`handle_types`); a view
(`pto.treshape`, `pto.subview`) takes no valid-extent operands, so its type carries the
static valid extent where it is known, as the reference emits it, and a reshape back onto a
buffer's own type is that buffer's handle. Loads and stores move the valid region.

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
here, and the scalar operations the engine does not reason about (integer `pl.min` /
`pl.max`, bit and logical operations, float comparisons, casts involving a float or a bool or
changing signedness) are hoisted out of an expression (`Emitter._hoist`): each becomes one
`arith` op over its lowered operands and a variable the engine sees as an opaque value.

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
- The SPMD identity is read from the reference's hidden `i32` parameters (its kernel wrapper
  passes them; the sub-block index in particular is the runtime lane id, not ptoas's
  `pto.get_subblock_idx` register), not from ptoas's `pto.get_block_idx` ops.
- Where the project's ptoas checkout (0.27) and the reference's code generator (which
  targets a newer ptoas, as slotsat's multi-buffer regions do) disagree, the reference wins:
  `pto.subview` (0.27 spells `pto.subset`), `pto.tci ... {descending = false}` after
  `outs(...)`.
- Parameters stay in program order (the reference puts tensors first), as before issue 16.
- Cross-core pipes (the AIC / AIV halves of a mixed kernel; `pto_ops_crosscore.cpp`): emitted
  only under the ptoas planner (`pto.reserve_buffer ... auto = true`, ptoas places the slots;
  slotsat's pypto planner would not keep its tiles out of them, so it declines); the GM slot
  buffer's regions are laid out per Group function's members, as the reference emits one
  module per group; a region past the first is `pto.addptr` with the full `!pto.ptr<f32>`
  types (the reference prints ptoas's stripped `<f32>`, which ptoas reads the same). A return
  that ends a branch of a function's last `if` falls through to the function's end (the AIV
  half returns from both lanes' branches).

Related: `lowering/init_memref.py`, `lowering/regions.py`, `lowering/pto_dialect.py` (the
xdsl dialect the output round-trips through), `analysis/matcher.py`.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import ClassVar, TypeVar

from slotsat.analysis import matcher as mm
from slotsat.analysis.budget import Backend
from slotsat.analysis.liveness import liveness
from slotsat.core import heap, ir, ops, phases
from slotsat.core.batches import batched
from slotsat.core.dsl.calls import spelled
from slotsat.core.dsl.context import BEFORE_HAND_OFF
from slotsat.core.errors import NO_SPAN, PassError, Span
from slotsat.core.options import Mode, Planner
from slotsat.core.semantics import fold
from slotsat.egraph_rules.costs import EmitTerm
from slotsat.egraph_rules.costs import signless_type as _signless_type
from slotsat.egraph_rules.engine import CLOCK as ENGINE_CLOCK
from slotsat.egraph_rules.engine import Chosen, EmittedScope, IndexEngine, RootId, saturate_together
from slotsat.egraph_rules.loops import LoopInfo
from slotsat.egraph_rules.scope import ScopedMemo
from slotsat.lowering import pto_spelling
from slotsat.lowering.common import emitted_as_kernel, format_expr
from slotsat.lowering.dist_comm import is_comm_ctx
from slotsat.lowering.floor_lowering import MemoNamer, ValueRecorder, render
from slotsat.lowering.init_memref import Allocation, is_alloc_statement, resolved_allocations
from slotsat.lowering.memory_reuse import MemoryPlan, check_declared_slots, check_shared_buffers, plan_memory
from slotsat.lowering.regions import (
    Region,
    layout_of,
    pad_and_compact,
    plan_regions,
    tile_type_string,
    valid_extents,
)
from slotsat.lowering.target_constraints import check_target_constraints
from slotsat.lowering.valid_views import check_valid_view_use, materialized_symbols

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
    """The limit its saturation stopped at (None: its rules settled)."""
    matches: dict[str, int] = field(default_factory=dict)
    """Matches per rule name in the function's saturation (which rules fired)."""
    extraction_limit_hit: str | None = None
    """The limit its choices stopped at (None: every form was chosen from the e-graph)."""

    def as_dict(self) -> dict[str, str | float | int | dict[str, int] | None]:
        hits = [hit for hit in (self.limit_hit, self.extraction_limit_hit) if hit is not None]
        return {
            "function": self.function,
            "limit_hit": "; ".join(hits) if hits else None,
            "roots": self.roots,
            "slot_roots": self.slot_roots,
            "nodes": self.nodes,
            "iterations": self.iterations,
            "saturate_seconds": self.saturate_seconds,
            "extract_seconds": self.extract_seconds,
            "matches": dict(self.matches),
        }


class LocalArrays:
    """The on-core arrays of a function and their in-place realization.

    The IR's arrays are values: `array.update_element` returns a new version and leaves its
    operand unchanged. The reference emits every version of one `array.create` into the one
    `pto.declare_local_array` storage (`pto.local_array_set` writes in place, a loop or branch
    result names its operand's storage), which means the same only while each use reads its
    array's newest version. This records, per storage, the versions that are its newest; a use
    of an older one (read after a later version was written, or after a branch or loop wrote
    the storage without passing the new version out) is a located error instead of a
    silently wrong read."""

    def __init__(self) -> None:
        self.storage: dict[int, str] = {}
        """The storage (the `declare_local_array` SSA name) of each array value, by var id."""
        self.newest: dict[str, frozenset[int]] = {}
        """The versions (var ids) that are each storage's newest."""
        self.lost: dict[str, str] = {}
        """Why a storage's contents are no version the program can name, by storage."""

    def declare(self, v: ir.Var, storage: str) -> None:
        self.storage[v.id] = storage
        self.newest[storage] = frozenset({v.id})
        self.lost.pop(storage, None)

    def current(self, v: ir.Var, where: Span) -> str:
        """The storage of `v`, which must be its newest version."""
        storage = self.storage.get(v.id)
        if storage is None:
            raise PassError(f"array '{v.name_hint}' has no on-core storage here", where)
        if v.id not in self.newest.get(storage, frozenset()):
            why = self.lost.get(storage, "a later version of it was written before this use")
            raise PassError(f"array '{v.name_hint}' is used after {why}: slotsat's code generator writes an "
                            "array in place, as the reference does, so only its newest version can be used",
                            where)
        return storage

    def update(self, old: ir.Var, new: ir.Var, where: Span) -> None:
        """`new` is the version an update of `old` wrote."""
        self.bind(new, self.current(old, where))

    def rename(self, new: ir.Var, old: ir.Var, where: Span) -> None:
        """`new = old`: one more name of the same version."""
        storage = self.current(old, where)
        self.storage[new.id] = storage
        self.newest[storage] = self.newest[storage] | {new.id}

    def bind(self, v: ir.Var, storage: str) -> None:
        """`v` (a loop's iteration value or result, an if's result) is the storage's newest."""
        self.storage[v.id] = storage
        self.newest[storage] = frozenset({v.id})
        self.lost.pop(storage, None)

    def snapshot(self) -> dict[str, frozenset[int]]:
        return dict(self.newest)

    def written_since(self, before: dict[str, frozenset[int]]) -> set[str]:
        """The storages of `before` written since (not those declared since: a loop body's or
        branch's own array)."""
        return {k for k, v in self.newest.items() if k in before and before[k] != v}

    def forget(self, storage: str, why: str) -> None:
        """The storage was written where no version of it reaches this point."""
        self.newest[storage] = frozenset()
        self.lost[storage] = why


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
        self.at: Span = fn.span
        """The statement being emitted (the function before its first): where an error found
        while lowering its operands points."""
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
        self.hoisted: ScopedMemo[str] = ScopedMemo()
        """Default mode: the hoisted `arith` operations already emitted in scope, by op,
        operands and type (see `_hoisted_op`)."""
        self.namer = _Namer(self)
        self.recorder = _Recorder(self.graph, self.values)
        self.scalar_scope: dict[int, tuple[int, ...]] = {}
        """Scalar variable id -> the blocks (outermost first) around its definition."""
        self.plain_roots: ir.IdentityMap[RootId] = ir.IdentityMap()
        """Plain integer roots by their site: the IR expression the emitter lowers and the
        dtype its consumer needs (None: its own). One expression object can be both a scalar
        operand and an offset."""
        self._placeholders: ir.IdentityMap[ir.Var] = ir.IdentityMap()
        self._hoisted_forms: ir.IdentityMap[ir.Expr] = ir.IdentityMap()
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
            literal = ("true" if reduced else "false") if type_ == "i1" else f"{reduced} : {type_}"
            self.const_lines.append(f"{name} = arith.constant {literal}")  # an i1 prints as MLIR does
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
        self.hoisted.push()
        self.namer.push()
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            self.namer.pop()
            self.hoisted.pop()
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
        if _has_hoisted(e):
            e = self._hoist(e)
        folded = fold(e)
        if want is not None and want.is_int and not ir.expr_dtype(folded).is_int:
            raise PassError(f"'{format_expr(e)}' is pl.{ir.expr_dtype(folded).value} where an integer "
                            f"(pl.{want.value}) is needed", self.at)
        if ir.expr_dtype(folded).is_float:
            return self._lower_float(folded)
        _reject_float_compare(folded)
        root = self._plain_root(e, want)
        if root is None:  # not seen by the pre-pass (re-saturates once, batched)
            root = self._add_plain_root(e, want, _converted(e, want))
        name, _ = self.render(self._choose(root).term)
        return name

    def _plain_root(self, e: ir.Expr, want: ir.DType | None) -> RootId | None:
        return self.plain_roots.get(e, _want_key(e, want))

    def _add_plain_root(self, e: ir.Expr, want: ir.DType | None, root: ir.Expr) -> RootId:
        rid = self.engine.add_root(root)
        self.plain_roots.set(e, rid, _want_key(e, want))
        return rid

    def _hoist(self, e: ir.Expr) -> ir.Expr:
        """`e` with each integer `pl.min` / `pl.max` / bit operation (`_HOISTED_BINARY`), cast
        step and float comparison emitted first, as one `arith` op over its lowered operands,
        and replaced by a variable bound to its value: the index engine reasons about the rest
        and sees those as opaque values. The rest is `_hoisted_form(e)`, the expression the
        pre-pass registered as a root (so it is saturated with the others, not late)."""
        self._emit_hoisted(e)
        return self._hoisted_form(e)

    def _emit_hoisted(self, e: ir.Expr) -> None:
        """Emit the hoisted operations of `e` (see `_hoist`), binding their placeholders."""
        if isinstance(e, ir.ScalarBinary) and e.op in _HOISTED_BINARY:
            a, b = self.lower(e.a), self.lower(e.b)
            signed, unsigned = _HOISTED_BINARY[e.op]
            op = _FLOAT_MIN_MAX[e.op] if e.dtype.is_float else unsigned if e.dtype.is_unsigned else signed
            name = self._hoisted_op(op, [a, b], _int_type(e.dtype))
            self.handles[self._placeholder(e).id] = name
        elif isinstance(e, ir.ScalarUnary) and _lowered_unary(e):
            a = self.lower(e.a)
            op, operand = _HOISTED_UNARY[e.op]
            c = self.const(operand, e.dtype)
            mlir = _int_type(e.dtype)
            name = self._hoisted_op(op, [c, a] if op == "subi" else [a, c], mlir)
            self.handles[self._placeholder(e).id] = name
        elif isinstance(e, ir.Cmp) and ir.expr_dtype(e.a).is_float:
            a, b = self.lower(e.a), self.lower(e.b)
            name = self.arith("cmpf", [a, b], _int_type(ir.expr_dtype(e.a)), predicate=_CMPF[e.op],
                              result_type="i1")
            self.handles[self._placeholder(e).id] = name
        elif isinstance(e, ir.Cast) and _cast_ops(e) is not None:
            steps = _cast_ops(e)
            assert steps is not None
            value = self.lower(e.a)
            for op, src_t, dst_t in steps:
                value = self.arith(op, [value], dst_t, cast_from=src_t)
            self.handles[self._placeholder(e).id] = value
        elif isinstance(e, ir.Add | ir.Sub | ir.Mul | ir.FloorDiv | ir.FloorMod | ir.Cmp):
            self._emit_hoisted(e.a)
            self._emit_hoisted(e.b)
        elif isinstance(e, ir.Cast):
            self._emit_hoisted(e.a)

    def _hoisted_op(self, op: str, operands: list[str], mlir: str) -> str:
        """`arith.OP` of `operands`: in the default mode once per block scope (an operation of
        the same operands emitted earlier in scope is its value; these ops are pure), in
        `Mode.PYPTO` at every use, as the reference emits it."""
        key = (op, tuple(operands), mlir)
        if self.mode is Mode.SLOTSAT:
            known = self.hoisted.lookup(key)
            if known is not None:
                return known
        name = self.arith(op, operands, mlir)
        if self.mode is Mode.SLOTSAT:
            self.hoisted.add(key, name)
        return name

    def _placeholder(self, e: ir.Expr) -> ir.Var:
        """The variable standing for the hoisted operation `e` (one per expression object)."""
        known = self._placeholders.get(e)
        if known is not None:
            return known
        if isinstance(e, ir.ScalarBinary | ir.ScalarUnary):
            v = ir.Var(f"_{e.op}", ir.ScalarType(e.dtype))
        elif isinstance(e, ir.Cmp):
            v = ir.Var("_cmp", ir.ScalarType(ir.DType.BOOL))
        else:
            v = ir.Var("_cast", ir.ScalarType(ir.expr_dtype(e)))
        self._placeholders.set(e, v)
        return v

    def _hoisted_form(self, e: ir.Expr) -> ir.Expr:
        """`e` with each hoisted operation replaced by its placeholder (one object per `e`)."""
        known = self._hoisted_forms.get(e)
        if known is not None:
            return known
        out: ir.Expr
        if _is_hoisted(e):
            out = self._placeholder(e)
        elif isinstance(e, ir.Add | ir.Sub | ir.Mul | ir.FloorDiv | ir.FloorMod | ir.Cmp):
            out = replace(e, a=self._hoisted_form(e.a), b=self._hoisted_form(e.b))
        elif isinstance(e, ir.Cast):
            out = replace(e, a=self._hoisted_form(e.a))
        else:
            out = e
        self._hoisted_forms.set(e, out)
        return out

    def _hoisted_operands(self, e: ir.Expr) -> list[ir.Expr]:
        """The operands `_emit_hoisted` lowers for `e`, in its order."""
        if isinstance(e, ir.ScalarBinary) and e.op in _HOISTED_BINARY:
            return [e.a, e.b]
        if isinstance(e, ir.ScalarUnary) and _lowered_unary(e):
            return [e.a]
        if isinstance(e, ir.Cmp) and ir.expr_dtype(e.a).is_float:
            return [e.a, e.b]
        if isinstance(e, ir.Cast) and _cast_ops(e) is not None:
            return [e.a]
        if isinstance(e, ir.Add | ir.Sub | ir.Mul | ir.FloorDiv | ir.FloorMod | ir.Cmp):
            return [*self._hoisted_operands(e.a), *self._hoisted_operands(e.b)]
        if isinstance(e, ir.Cast):
            return self._hoisted_operands(e.a)
        return []

    def _choose(self, root: RootId) -> Chosen:
        before = self.engine.choosing_seconds
        try:
            return self.engine.choose(root, self.emitted)
        finally:
            seconds = self.engine.choosing_seconds - before
            self.extract_seconds += seconds
            phases.add("codegen.extract", seconds)

    def render(self, term: EmitTerm) -> tuple[str, int]:
        """Render an engine term at the current position: (SSA name, ops emitted)."""
        lines, name = render(term, self.namer, self.recorder, signless_types=True)
        for text in lines:
            self.line(text)
        self.op_count += len(lines)
        return name, len(lines)

    def _lower_float(self, e: ir.Expr) -> str:
        """Floating-point scalar expressions (`arith.addf` ..., `remf` / `divf`, `maximumf` /
        `minimumf`)."""
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
        if isinstance(e, ir.ScalarBinary) and e.op in _FLOAT_BINARY:
            a, b = self._lower_float_operand(e.a, e.dtype), self._lower_float_operand(e.b, e.dtype)
            return self.arith(_FLOAT_BINARY[e.op], [a, b], _int_type(e.dtype))
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
        if not self.in_scope(v):
            raise PassError(f"'{v.name_hint}' has no value here: it is defined inside a loop or branch that "
                            "has ended", v.span)
        return handle

    def in_scope(self, v: ir.Var) -> bool:
        """Whether the scalar `v` is defined in a block enclosing the current position (a value
        of an ended loop body or branch is not, though its handle is still recorded)."""
        scope = self.scalar_scope.get(v.id)
        return scope is None or tuple(self.block_ids[:len(scope)]) == scope

    def index_value(self, e: ir.Expr) -> str:
        """A non-slot `INDEX` value (an offset, a bound, an extent): folded, then lowered (§7.4),
        converted to `index` when `e` has another integer dtype."""
        folded = fold(e)
        if isinstance(folded, ir.ConstInt):
            return self.const(folded.value, ir.DType.INDEX)
        return self.lower(e, ir.DType.INDEX)


def _want_key(e: ir.Expr, want: ir.DType | None) -> ir.DType | None:
    """The dtype part of a plain root's site: None when `e`'s consumer takes its own dtype."""
    return None if want is ir.expr_dtype(e) else want


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


def _is_hoisted(sub: ir.Expr) -> bool:
    """An operation codegen emits itself before the index engine sees the rest (`_hoist`)."""
    return ((isinstance(sub, ir.ScalarBinary) and sub.op in _HOISTED_BINARY)
            or (isinstance(sub, ir.ScalarUnary) and _lowered_unary(sub))
            or (isinstance(sub, ir.Cast) and _cast_ops(sub) is not None)
            or (isinstance(sub, ir.Cmp) and ir.expr_dtype(sub.a).is_float))


def _has_hoisted(e: ir.Expr) -> bool:
    return _first_subexpr(e, _is_hoisted) is not None


def _opaque_hoisted(e: ir.Expr) -> ir.Expr:
    """`e` as the index engine sees it after `_hoist`: each hoisted operation replaced by an
    opaque variable of its dtype, named by the operation's text (`explore FILE`)."""
    if _is_hoisted(e):
        span = getattr(e, "span", NO_SPAN)
        return ir.Var(f"({format_expr(e)})", ir.ScalarType(ir.expr_dtype(e)), span=span)
    if isinstance(e, ir.Add | ir.Sub | ir.Mul | ir.FloorDiv | ir.FloorMod | ir.Cmp):
        return replace(e, a=_opaque_hoisted(e.a), b=_opaque_hoisted(e.b))
    if isinstance(e, ir.Cast):
        return replace(e, a=_opaque_hoisted(e.a))
    return e


_CMPF: dict[ir.CmpOp, str] = {ir.CmpOp.EQ: "oeq", ir.CmpOp.NE: "une", ir.CmpOp.LT: "olt",
                              ir.CmpOp.LE: "ole", ir.CmpOp.GT: "ogt", ir.CmpOp.GE: "oge"}
"""`arith.cmpf` predicates with Python's comparison semantics (false on NaN, except `!=`)."""


def _cast_ops(e: ir.Cast) -> list[tuple[str, str, str]] | None:
    """The `arith` casts (op, from, to) that convert `e`'s operand as the evaluator does, for a
    cast the index engine does not take (one involving a float or a bool, or changing
    signedness; none at all between integers of one width); None for the engine's own casts
    (same signedness) and for a conversion `_cast_supported` declines. Integers keep their low bits
    when narrowing and extend by the source's signedness when widening; floats convert to
    integers toward zero (`fptosi` / `fptoui`) and integers to floats by their signedness."""
    src, dst = ir.expr_dtype(e.a), e.dtype
    if src == dst:
        return None
    if src.is_int_arith and dst.is_int_arith and src.is_signed == dst.is_signed:
        return None  # the engine lowers it
    out: list[tuple[str, str, str]] = []
    cur = src
    if cur is ir.DType.INDEX:
        out.append(("index_cast", "index", "i64"))
        cur = ir.DType.INT64
    target = ir.DType.INT64 if dst is ir.DType.INDEX else dst
    cur_t, target_t = _int_type(cur), _int_type(target)
    if cur.is_float and target.is_float:
        if cur.bits == target.bits:
            return None  # no faithful single conversion (bf16 <-> f16): `_cast_supported` declines it
        out.append(("extf" if target.bits > cur.bits else "truncf", cur_t, target_t))
    elif cur.is_float:
        out.append(("fptoui" if target.is_unsigned or target is ir.DType.BOOL else "fptosi", cur_t, target_t))
    elif target.is_float:
        out.append(("uitofp" if cur.is_unsigned or cur is ir.DType.BOOL else "sitofp", cur_t, target_t))
    elif target.bits > cur.bits:
        out.append(("extui" if cur.is_unsigned or cur is ir.DType.BOOL else "extsi", cur_t, target_t))
    elif target.bits < cur.bits:
        out.append(("trunci", cur_t, target_t))
    if dst is ir.DType.INDEX:
        out.append(("index_cast", "i64", "index"))
    return out  # empty: the same bits (a signedness change of one width)


def _cast_supported(e: ir.Cast) -> bool:
    """Whether codegen lowers the cast: between integers, bools and FP16 / BF16 / FP32, except
    between two float types of one width (BF16 <-> FP16)."""
    src, dst = ir.expr_dtype(e.a), e.dtype
    if not (_is_scalar_dtype(src) and _is_scalar_dtype(dst)):
        return False
    return not (src.is_float and dst.is_float and src != dst and src.bits == dst.bits)


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


_SCALAR_EXPR_CLASSES = frozenset(ir.SCALAR_EXPRS)


def _is_scalar_expr(e: object) -> bool:
    t = type(e)  # by class: the IR's node classes are final, and this runs for every site
    if t is ir.Var:
        return isinstance(e.type, ir.ScalarType)  # type: ignore[attr-defined]
    return t in _SCALAR_EXPR_CLASSES


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
    elif isinstance(s, ir.WhileStmt):
        out.extend((it.init, None, "init") for it in s.iter_args if isinstance(it.var.type, ir.ScalarType))
        out.append((s.cond, None, "condition"))  # lowered in the loop's before region
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
    if isinstance(s, ir.WhileStmt):  # its condition is lowered in the loop's own block
        sites = [site for site in sites if site[0] is not s.cond]
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
            elif isinstance(s, ir.WhileStmt):
                count += 1  # the before region: the condition
                if _is_scalar_expr(s.cond):
                    out.append(EmissionSite(line, loops, (*blocks, count), (s.cond, None, "condition")))
                count += 1
                visit(s.body, loops, (*blocks, count))
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
                out.append(IndexSite(site.line, kind, _converted(_opaque_hoisted(e), want), None, site.loops))
    return out


SPMD_PARAMS: tuple[str, ...] = ("block_idx", "block_num", "subblock_idx")
"""The reference's hidden SPMD identity parameters, in its signature order."""


def _fold_or_keep(e: ir.Expr) -> ir.Expr:
    folded = _try_fold(e)
    return folded if isinstance(folded, ir.ConstInt) else e


def _times(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    """`a * b` for a stride product: a literal 1 factor is left out (the reference's stride of
    a symbolic innermost dimension is that dimension's value, not a product with 1)."""
    if ir.literal_value(b) == 1:
        return a
    if ir.literal_value(a) == 1:
        return b
    return _fold_or_keep(ir.Mul(a, b, ir.DType.INDEX))


RANDOM_ROUNDS = (7, 10)
"""The cipher round counts `pto.trandom` takes (ptoas's TRandomOp verifier; the dialect's
`TRandomOp` checks the same, kept apart so that codegen does not import xdsl)."""
RANDOM_DEFAULT_ROUNDS = 10
"""The count ptoas's TRandomOp runs without the attribute (`DefaultValuedAttr`)."""

_UNEMITTED_SPACES = frozenset(
    {ir.MemorySpace.LeftScale, ir.MemorySpace.RightScale, ir.MemorySpace.ScalarLocal})


def preflight(fn: ir.Function) -> None:
    """Decline, with a located `PassError`, a function that uses a construct of the
    reference's printed IR that the code generator does not emit: runtime
    scopes, unroll loops (a pl.parallel loop is an scf.for, as the reference emits it),
    returns inside branches, scalar operations outside what codegen lowers
    (`ir.is_index_expr`, integer `pl.min` / `pl.max` and bit operations), calls of other
    functions, ops without an entry in the spelling table (`lowering/pto_ops.json`) or with a
    keyword it does not account for, and tensor views other than plain strides. Never emits a
    guess."""
    for p in fn.params:
        t = p.type
        if isinstance(t, ir.TensorType):
            reason = _tensor_param_blocker(t)
            if reason is not None:
                raise PassError(f"parameter '{p.name_hint}' has {reason}, which slotsat's code generator "
                                "does not emit", p.span)
            for d in t.shape:
                if not isinstance(d, int):
                    _preflight_expr(d, p.span)
    _preflight_body(fn.body, top=True, fn_type=fn.type)
    _preflight_widths(fn)
    materialized_symbols(fn)


_SITE_NAMES = {"offset": "the offset", "shape": "the extent", "bound": "the loop bound",
               "extent": "the valid extent", "address": "the address"}
"""How an error names a site of each kind (`Site3`)."""


def _preflight_valid_literals(v: ir.Var, where: Span) -> None:
    """A literal valid extent lies in `[0, extent]` of its tile: one outside would size a
    transfer or a region past the tile's buffer (a runtime one is the program's to keep)."""
    t = v.type
    if not isinstance(t, ir.TileType) or t.valid_shape is None:
        return
    for valid, extent in zip(reversed(t.valid_shape), reversed(t.shape), strict=False):
        n = valid.value if isinstance(valid, ir.ConstInt) else None
        if n is not None and isinstance(extent, int) and not 0 <= n <= extent:
            raise PassError(f"tile '{v.name_hint}' has the valid extent {n}, outside [0, {extent}] "
                            "(its extent on that axis)", where)


def _preflight_widths(fn: ir.Function) -> None:
    """An integer codegen lowers (an offset, a bound, an operand, a slot index, ...) computes at
    INDEX or an 8- to 64-bit dtype (`DType.is_int_arith`): a packed 4-bit scalar has no
    `arith` type of its own in the emitted module and no place in the index engine. An
    offset, extent or bound (a site lowered at INDEX) is an integer: a float there is an error,
    never an `index` operand defined as a float."""
    for s in ir.walk_stmts(fn.body):
        sites = plain_sites(s, Planner.PTOAS)
        for e, need, kind in sites:
            d = ir.expr_dtype(e)
            if need is not None and not need.is_float and not d.is_int:  # a 4-bit one: below
                # a variable's own span is its binding; the statement is where it is used
                where = NO_SPAN if isinstance(e, ir.Var) else getattr(e, "span", NO_SPAN)
                raise PassError(f"{_SITE_NAMES.get(kind, kind)} '{format_expr(e)}' is pl.{d.value}; "
                                "it must be an integer", where if where != NO_SPAN else _span(s))
        for v in _tile_definitions(s):
            _preflight_valid_literals(v, _span(s))
        exprs = [site[0] for site in sites]
        exprs += [m.slot_index for v in _tile_definitions(s) if (m := _slot_memref(v)) is not None
                  and m.slot_index is not None]
        for e in exprs:
            sub = _first_subexpr(e, _packed)
            if sub is not None:
                where = getattr(sub, "span", NO_SPAN)
                raise PassError(
                    f"slotsat's code generator does not compute with pl.{sub.dtype.value} values "
                    f"('{format_expr(sub)}'); index arithmetic is INDEX or an 8- to 64-bit integer",
                    where if where != NO_SPAN else _span(s),
                )


_PACKED_INTS = frozenset(d for d in ir.DType if d.is_int and not d.is_int_arith)
"""The integer dtypes codegen does not compute with (the packed 4-bit ones)."""


def _packed(e: ir.Expr) -> bool:
    return e.dtype in _PACKED_INTS


def _tensor_param_blocker(t: ir.TensorType) -> str | None:
    view = t.view
    if view is not None:
        if view.pad is not None:
            return "a pl.TensorView with a pad"
        if not view.stride and view.layout != "ND":
            return f"a pl.TensorView layout {view.layout} without strides"
    return None


def _preflight_body(body: ir.SeqStmts, top: bool, fn_type: ir.FunctionType) -> None:
    for k, s in enumerate(body.stmts):
        span = _span(s)
        if isinstance(s, ir.ScopeStmt):
            raise PassError("slotsat's code generator does not emit runtime scopes (with pl.scope())", span)
        if isinstance(s, ir.ReturnStmt) and not (top and k == len(body.stmts) - 1):
            raise PassError("slotsat's code generator does not emit a return inside a branch", span)
        if isinstance(s, ir.ForStmt):
            _preflight_for(s, span)
        elif isinstance(s, ir.WhileStmt):
            _preflight_while(s, span)
        elif isinstance(s, ir.IfStmt):
            _preflight_expr(s.cond, span)
            _preflight_binders(list(s.return_vars), span)
        elif isinstance(s, ir.AssignStmt):
            if not (_binds_no_value(s) or _binds_prefetch_handle(s)):
                _preflight_binders([s.var], span)
            if isinstance(s.value, ir.Call):
                _preflight_call(s.value, span, fn_type)
            else:
                _preflight_expr(s.value, span)
        elif isinstance(s, ir.EvalStmt):
            _preflight_call(s.call, span, fn_type)
        elif isinstance(s, ir.YieldStmt | ir.ReturnStmt):
            for v in s.values:
                _preflight_expr(v, span)
        # a branch of an `if` in tail position is in tail position: its return falls through
        # to the function's end (ExpandMixedKernel's AIV half returns from both lanes' branches)
        tail = top and k == len(body.stmts) - 1 and isinstance(s, ir.IfStmt) and not s.return_vars
        for child in ir.stmt_children_bodies(s):
            _preflight_body(child, top=tail, fn_type=fn_type)


def _preflight_for(s: ir.ForStmt, span: Span) -> None:
    if s.kind is ir.ForKind.UNROLL:
        # The reference's UnrollLoops expands these long before the hand-off point.
        raise PassError("slotsat's code generator does not emit pl.unroll loops", span)
    for e in (s.start, s.stop, s.step, *(it.init for it in s.iter_args)):
        _preflight_expr(e, span)
    _preflight_binders([it.var for it in s.iter_args] + list(s.return_vars), span)


def _preflight_while(s: ir.WhileStmt, span: Span) -> None:
    for e in (s.cond, *(it.init for it in s.iter_args)):
        _preflight_expr(e, span)
    _preflight_binders([it.var for it in s.iter_args] + list(s.return_vars), span)


def _binds_no_value(s: ir.AssignStmt) -> bool:
    """A call the reference printed bound to a `pl.UnknownType` name: an op without a result
    (its lowering of `pld.tensor.barrier` binds each `notify` / `wait` so). Codegen emits the
    call alone; a later read of the name has no value and is a located error."""
    t = s.var.type
    return isinstance(t, ir.OpaqueType) and t.spelling == "pl.UnknownType" and isinstance(s.value, ir.Call)


PREFETCH_CONTEXT_TYPE = "!pto.prefetch_async_context"
ASYNC_EVENT_TYPE = "!pto.async_event"
ASYNC_SESSION_TYPE = "!pto.async_session"
"""The ptoas types of the handles of an asynchronous prefetch (`pl.PrefetchAsyncContext`,
`pl.AsyncEvent`, `pl.AsyncSession` in the IR: `ops.PREFETCH_HANDLE_RESULTS`)."""


def _binds_prefetch_handle(s: ir.AssignStmt) -> bool:
    """A prefetch handle bound by the op that makes it; any other binding of a handle (a loop
    carry, an `if` result, a copy) is still the opaque-type error."""
    t = s.var.type
    return (isinstance(t, ir.OpaqueType) and isinstance(s.value, ir.Call)
            and ops.PREFETCH_HANDLE_RESULTS.get(s.value.op) == t.spelling)


def _makes_prefetch_context(fn: ir.Function) -> bool:
    """Whether `fn` makes a prefetch context, bound or as a bare statement (which the reference
    emits all the same, over the hidden SDMA workspace parameter)."""
    calls = (s.value if isinstance(s, ir.AssignStmt) else s.call if isinstance(s, ir.EvalStmt) else None
             for s in ir.walk_stmts(fn.body))
    return any(isinstance(c, ir.Call) and c.op == "prefetch.make_context" for c in calls)


def _preflight_binders(binders: list[ir.Var], span: Span) -> None:
    for v in binders:
        t = v.type
        if isinstance(t, ir.TileType):
            if t.memory_space in _UNEMITTED_SPACES:
                raise PassError(f"tile '{v.name_hint}' lives in {t.memory_space.value}, which slotsat's code "
                                "generator does not emit", span)
            for e in t.valid_shape or ():
                _preflight_expr(e, span)
            if t.memref is not None and t.memref.slot_index is not None:
                _preflight_slot_index(v, t.memref.slot_index, span)
        elif isinstance(t, ir.ArrayType):
            _preflight_array(v, t, span)
        elif isinstance(t, ir.TupleType | ir.OpaqueType):
            kind = type(t).__name__.removesuffix("Type").lower()
            article = "an" if kind[0] in "aeiou" else "a"
            raise PassError(f"'{v.name_hint}' has {article} {kind} type, which slotsat's code generator does "
                            "not emit", span)


def _preflight_array(v: ir.Var, t: ir.ArrayType, span: Span) -> None:
    """An on-core array becomes a `!pto.local_array<NxT>`: a literal extent, an integer or
    float element type (the reference's FormatLocalArrayTypeString)."""
    if not isinstance(t.size, int):
        raise PassError(f"array '{v.name_hint}' needs a literal extent (a !pto.local_array's size is static)",
                        span)
    if not _is_scalar_dtype(t.dtype):
        raise PassError(f"array '{v.name_hint}' of {t.dtype.value} has no on-core form", span)


def local_array_type(t: ir.ArrayType) -> str:
    return f"!pto.local_array<{t.size}x{_int_type(t.dtype)}>"


def _hoisted_only(e: ir.Expr) -> bool:
    """A scalar operation outside the index language (codegen hoists it out of index math)."""
    return isinstance(e, ir.ScalarUnary | ir.ScalarBinary | ir.TupleGetItem)


def _preflight_slot_index(v: ir.Var, e: ir.Expr, span: Span) -> None:
    """A slot index is a root of the index engine: the index language only (integer literals
    and variables, `+ - * // %` and integer casts). The scalar operations codegen lowers
    elsewhere by hoisting them (`pl.min`, bit operations) have no slot-operand form."""
    if _first_subexpr(e, _hoisted_only) is not None:
        where = e.span if getattr(e, "span", NO_SPAN) != NO_SPAN else span
        raise PassError(f"slotsat's code generator does not lower the slot index '{format_expr(e)}' of tile "
                        f"'{v.name_hint}': a slot index is an integer expression of + - * // % and casts",
                        where)
    _preflight_expr(e, span)  # its casts; its dtypes are `_preflight_widths`'s


def _preflight_expr(e: ir.Expr, span: Span) -> None:
    if isinstance(e, ir.Var) or ir.is_index_expr(e) or isinstance(e, ir.ConstFloat):
        return
    for sub in _all_subexprs(e):
        where = sub.span if getattr(sub, "span", NO_SPAN) != NO_SPAN else span
        if isinstance(sub, ir.ScalarBinary) and _lowered_binary(sub):
            continue
        if isinstance(sub, ir.ScalarUnary) and _lowered_unary(sub):
            continue
        if isinstance(sub, ir.ScalarUnary | ir.ScalarBinary | ir.TupleGetItem):
            raise PassError(f"slotsat's code generator does not lower '{format_expr(sub)}'", where)
        if isinstance(sub, ir.Cast):
            src, dst = ir.expr_dtype(sub.a), sub.dtype
            if not _cast_supported(sub):
                raise PassError(f"slotsat's code generator does not lower the cast '{format_expr(sub)}' "
                                f"(pl.{src.value} to pl.{dst.value})", where)


def _is_scalar_dtype(d: ir.DType) -> bool:
    return d.is_int_arith or d is ir.DType.BOOL or d in (ir.DType.FP16, ir.DType.BF16, ir.DType.FP32)


_HOISTED_BINARY: dict[str, tuple[str, str]] = {
    "min": ("minsi", "minui"), "max": ("maxsi", "maxui"),
    "bitand": ("andi", "andi"), "bitor": ("ori", "ori"), "bitxor": ("xori", "xori"),
    "and": ("andi", "andi"), "or": ("ori", "ori"), "shl": ("shli", "shli"), "shr": ("shrsi", "shrui"),
}
"""Integer scalar operations outside the index language that codegen lowers to one `arith`
op each (signed / unsigned spelling): exact at the dtype, as the evaluator computes them. A
shift is defined for amounts in `[0, bits)` only, in the evaluator (a fault) as in `arith` (a
poison value); Python's `>>` of a negative value is the arithmetic shift `shrsi`."""
_HOISTED_UNARY: dict[str, tuple[str, int]] = {"neg": ("subi", 0), "bitnot": ("xori", -1)}
"""Integer negation and bitwise not, as the reference's scalar code generator spells them:
`arith.subi 0, x` and `arith.xori x, -1` (exact at the dtype: both wrap as the evaluator's)."""


def _lowered_unary(e: ir.ScalarUnary) -> bool:
    """`-x` and `~x` of an integer of the result's dtype (`_HOISTED_UNARY`)."""
    return e.op in _HOISTED_UNARY and e.dtype.is_int_arith and ir.expr_dtype(e.a) == e.dtype


_FLOAT_MIN_MAX: dict[str, str] = {"min": "minimumf", "max": "maximumf"}
_FLOAT_BINARY: dict[str, str] = {**_FLOAT_MIN_MAX, "truediv": "divf"}
"""`pl.min`, `pl.max` and `/` of two floats, as the reference's scalar code generator spells them."""


def _lowered_binary(e: ir.ScalarBinary) -> bool:
    """Logical `and` / `or` of two bools, `pl.min`, `pl.max` and `/` of two floats of the
    result's dtype, the others (`pl.min` and `pl.max` too) of two integers of it."""
    dtype = e.dtype
    if e.op in ("and", "or"):
        return dtype is ir.DType.BOOL and ir.expr_dtype(e.a) is dtype and ir.expr_dtype(e.b) is dtype
    if e.op in _FLOAT_BINARY and dtype in (ir.DType.FP16, ir.DType.BF16, ir.DType.FP32):
        return ir.expr_dtype(e.a) == dtype and ir.expr_dtype(e.b) == dtype
    return e.op in _HOISTED_BINARY and (dtype.is_int_arith or dtype is ir.DType.BOOL) and \
        ir.expr_dtype(e.a) == dtype and ir.expr_dtype(e.b) == dtype


def _all_subexprs(e: ir.Expr) -> Iterator[ir.Expr]:
    """`e` and every subexpression, in pre-order (one explicit stack)."""
    stack = [e]
    while stack:
        sub = stack.pop()
        yield sub
        stack.extend(reversed(ir.expr_children(sub)))


def _first_subexpr(e: ir.Expr, pred: Callable[[ir.Expr], bool]) -> ir.Expr | None:
    """The first node of `e` in `_all_subexprs`' order that satisfies `pred`, if any; the same
    walk without a generator resumed per node (codegen asks this of every integer it lowers)."""
    stack = [e]
    while stack:
        sub = stack.pop()
        if pred(sub):
            return sub
        stack.extend(reversed(ir.expr_children(sub)))
    return None


def _preflight_call(c: ir.Call, span: Span, fn_type: ir.FunctionType) -> None:
    where = c.span if c.span != NO_SPAN else span
    if c.op == "tile.alloc" or (c.op == "system.cacheinvalid" and not c.args and not c.kwargs):
        return  # the whole-GM form insert-comm-fence makes after a wait
    stage = ops.lowered_before_hand_off(c.op, fn_type.value)
    if stage is not None:
        raise PassError(BEFORE_HAND_OFF.format(what=f"'{spelled(c.op)}'", stage=stage), where)
    sp = pto_spelling.lookup(c.op)
    if sp is None:
        what = f"calls of other functions ({c.op})" if c.op.startswith("self.") else c.op
        raise PassError(f"slotsat's code generator does not support {what}", where)
    args = call_arguments(c, sp, where)
    needed = _required_arguments(c.op, sp)
    if len(args) < needed:
        raise PassError(f"slotsat's code generator does not support {c.op} with {len(args)} arguments (it "
                        f"takes {needed})", where)
    accounted = {a.keyword for a in sp.attrs if a.argument is None} | sp.type_keywords | sp.keywords
    accounted |= set(args)
    for key, value in c.kwargs:
        if key in accounted:
            continue
        if key in sp.defaults and _matches_default(value, sp.defaults[key]):
            continue
        if ops.is_default_keyword(key, value):
            continue
        raise PassError(f"slotsat's code generator does not support {c.op} with keyword '{key}'", where)
    for name, arg in args.items():
        if isinstance(arg, ir.StrArg | ir.EnumArg | ir.FuncRef | ir.ArgList):
            raise PassError(f"slotsat's code generator does not support {c.op} with argument '{name}'", where)
        if isinstance(arg, ir.ExprList):
            for item in arg.items:
                _preflight_expr(item, where)
        elif not isinstance(arg, ir.SpaceArg | ir.DTypeArg):
            _preflight_expr(arg, where)
    check_valid_view_use(c, where)


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
        if fn.type is ir.FunctionType.INCORE:
            # the reference's ExpandMixedKernel splits such a function into its AIC and AIV halves
            what = f"a mixed vector/cube kernel ('{fn.name}' uses {listed})"
            raise PassError(BEFORE_HAND_OFF.format(what=what, stage="ExpandMixedKernel"), fn.span)
        # a half the split already made (the reference's own IR can leave dead tiles of the other
        # core in one) or a plain function the reference does not split: nothing one core runs
        raise PassError(f"the {fn.type.value} function '{fn.name}' uses {listed}, tiles of both a vector "
                        "and a cube core, which no one core runs", fn.span)
    return "cube" if cube else "vector"


GM_PIPE_BUFFER = "__gm_pipe_buffer"
"""The parameter ExpandMixedKernel adds for the cross-core pipes' GM slot buffer."""

PIPE_SPLITS = range(5)
ODD_SPLITS = frozenset({3, 4})
PIPE_TYPES: tuple[str, ...] = ("MTE1", "MTE2", "MTE3", "M", "V", "S", "FIX", "ALL")
"""The reference's `pl.PipeType` members in their numbering (`ir/pipe.h`)."""
SYNC_CORE_TYPES: tuple[str, ...] = ("aiv_only", "aic_only", "mix")


@dataclass(frozen=True)
class PipeLayout:
    """Per kernel module of the reference (the members of one Group function, or a kernel
    alone): the symbol of each kernel function (an `import_peer_buffer`'s `peer_func`) and
    the element offset of each pipe's region in the GM slot buffer, by (pipe id, dir_mask):
    the regions follow one another in that order, each its full footprint (slot count x
    rings x slot size), as the reference's PrepareGMSlotBufferLayout lays them out."""

    symbols: dict[str, str] = field(default_factory=dict)
    offsets: dict[tuple[int, int], int] = field(default_factory=dict)


def _callees(fn: ir.Function) -> list[str]:
    out: list[str] = []
    for s in ir.walk_stmts(fn.body):
        call = s.call if isinstance(s, ir.EvalStmt) else s.value if isinstance(s, ir.AssignStmt) else None
        if isinstance(call, ir.Call) and call.op.startswith("self.") and call.op[5:] not in out:
            out.append(call.op[5:])
    return out


def pipe_layouts(program: ir.Program, symbols: dict[int, str]) -> dict[int, PipeLayout]:
    """The `PipeLayout` of every function of `program`, by `id`: the members of a Group
    function share one (the reference emits them as one module); a kernel outside every
    group has its own."""
    by_name = {f.name: f for f in program.functions}
    named = {f.name: symbols[id(f)] for f in program.functions if id(f) in symbols}
    modules: list[list[ir.Function]] = []
    grouped: set[str] = set()
    for fn in program.functions:
        if fn.type is ir.FunctionType.GROUP:
            members = [by_name[n] for n in _callees(fn) if n in by_name]
            grouped.update(f.name for f in members)
            modules.append(members)
    modules += [[f] for f in program.functions if f.name not in grouped]
    out: dict[int, PipeLayout] = {}
    for members in modules:
        layout = PipeLayout(named, _pipe_offsets(members))
        out.update((id(f), layout) for f in members)
    return out


def _pipe_offsets(members: list[ir.Function]) -> dict[tuple[int, int], int]:
    sizes: dict[tuple[int, int], tuple[int, int]] = {}
    for fn in members:
        for s in ir.walk_stmts(fn.body):
            call = s.call if isinstance(s, ir.EvalStmt) else None
            if call is None or call.op not in ("system.aic_initialize_pipe", "system.aiv_initialize_pipe"):
                continue
            pipe_id, mask = call.kwarg("id"), call.kwarg("dir_mask")
            size, num = call.kwarg("slot_size"), call.kwarg("slot_num")
            if not (isinstance(mask, ir.ConstInt) and mask.value in (1, 2, 3)
                    and isinstance(size, ir.ConstInt) and size.value > 0):
                continue  # the op's own emission reports it
            key = (pipe_id.value if isinstance(pipe_id, ir.ConstInt) else 0, mask.value)
            default = 4 if mask.value == 3 else 8  # gm_pipe_layout.h's slot count of a direction mask
            slots = num.value if isinstance(num, ir.ConstInt) and num.value > 0 else default
            if sizes.setdefault(key, (size.value, slots)) != (size.value, slots):
                raise PassError(f"initialize_pipe of pipe id {key[0]} and dir_mask {key[1]} is given two "
                                "slot sizes or slot counts in one kernel group", call.span)
    offsets: dict[tuple[int, int], int] = {}
    byte = 0
    for key in sorted(sizes):
        slot_size, slot_count = sizes[key]
        offsets[key] = byte // 4  # the buffer's elements are f32
        byte += slot_count * (2 if key[1] == 3 else 1) * slot_size
    return offsets


def _truthy_attr(value: ir.AttrValue | None) -> bool:
    if isinstance(value, bool | int):
        return bool(value)
    return isinstance(value, ir.ConstInt) and value.value != 0


def _const_dim(d: int | ir.Expr) -> ir.Expr:
    return ir.ConstInt(d, ir.DType.INDEX) if isinstance(d, int) else fold(d)


def _push_transport(tile: ir.TileType, split: int, *, to_aic: bool,
                    dual: bool) -> tuple[ir.Expr, ir.Expr] | None:
    """The (rows, cols) box the reference moves a pushed tile in where it differs from the
    tile's valid extent (EmitTpushTransportValidShape), or None: a split push carries the full
    box; a no-split push carries it only from a dual-AIV-dispatch function (columns only, its
    rows kept; a statically empty replay moves nothing) or for an Acc tile to the vector side
    (both axes; an empty tile stays empty)."""
    if len(tile.shape) < 2:
        return None
    dual_no_split = split == 0 and dual
    acc_no_split = split == 0 and not to_aic and tile.memory_space is ir.MemorySpace.Acc
    if split == 0 and not dual_no_split and not acc_no_split:
        return None
    rows, cols = (fold(e) for e in valid_extents(tile))
    box_rows, box_cols = _const_dim(tile.shape[0]), _const_dim(tile.shape[1])
    if acc_no_split and any(isinstance(e, ir.ConstInt) and e.value == 0 for e in (rows, cols)):
        return None
    if dual_no_split:
        box_rows = rows
        if isinstance(rows, ir.ConstInt) and rows.value == 0:
            return None
    return None if (box_rows == rows and box_cols == cols) else (box_rows, box_cols)


class FunctionEmitter(Emitter):
    """Emits one kernel function."""

    SUPPORTED_VIEW: ClassVar[frozenset[str]] = frozenset({"tile.reshape", "tile.slice"})

    def __init__(  # noqa: PLR0913 - the function, its options and its program's pipe facts
        self, fn: ir.Function, *, mode: Mode, planner: Planner, backend: Backend, symbol: str | None = None,
        pipes: PipeLayout | None = None,
    ) -> None:
        super().__init__(fn, mode=mode, planner=planner, backend=backend)
        self.symbol = fn.name if symbol is None else symbol
        self.pipes = PipeLayout() if pipes is None else pipes
        """The program's kernel symbols and GM pipe regions (`PipeLayout`)."""
        self.gm_pipe_arg: str | None = None
        """The `__gm_pipe_buffer` parameter's `%argK`: a raw pointer, no tensor view."""
        params = {p.id for p in fn.params}
        self.ffts_params: frozenset[int] = frozenset(
            a.id for st in ir.walk_stmts(fn.body)
            if isinstance(st, ir.EvalStmt) and st.call.op == "system.set_ffts"
            for a in st.call.args[:1] if isinstance(a, ir.Var) and a.id in params)
        """The parameters `system.set_ffts` passes (FFTS workspaces: raw pointers, no view)."""
        self.gm_regions: dict[tuple[int, int], str] = {}
        """A pipe's region of the GM slot buffer past the first (a `pto.addptr`), by (id, dir_mask)."""
        self.live = liveness(fn)
        """Sharing classes and live ranges of the tile buffers (`analysis/liveness.py`)."""
        self.tensor_views: dict[int, str] = {}
        self.tensor_types: dict[int, ir.TensorType] = {}
        self.arrays = LocalArrays()
        """The on-core arrays (`pl.Array`), each one `pto.declare_local_array` storage."""
        self.carry_guard: dict[int, tuple[int, str]] = {}
        self.notes: list[Note] = []
        self.loop_stack: list[LoopInfo] = []
        self.block_counts: set[int] = set()
        """The scalars bound to `tile.get_block_num()`: the SPMD block count, at least 1."""
        self.view_names: set[str] = set()
        """Handles that are SSA views (`pto.treshape`, `pto.subview` results)."""
        self.subview_names: set[str] = set()
        self.subview_base: dict[str, str] = {}
        self.subview_bytes: dict[str, tuple[int | None, tuple[int, ...]]] = {}
        """A `pto.subview` handle -> its byte offset into the buffer under it (None: not literal)
        and that buffer's shape (its rows' pitch)."""
        self.subview_windows: dict[str, tuple[str, str, list[str], ir.TileType]] = {}
        """A slice view's source handle and type, its offsets and its tile type (`_materialized`)."""
        self.view_root: dict[str, str] = {}
        """A `pto.treshape` handle -> the buffer handle at the bottom of its chain of views."""
        """A `pto.subview` handle -> the handle it is a window of."""
        self.handle_types: dict[str, str] = {}
        """The type each tile handle was defined with (a view's carries its static valid
        extent); every use of the handle is annotated with it."""
        self.view_ptrs: dict[str, str] = {}
        """The base pointer (`%argK`) of each tensor view."""
        self.view_ctx: dict[str, str] = {}
        """The communication context (`%argK: !pto.ptr<i64>`) of each distributed tensor's view."""
        self.spmd_params: dict[str, str] = {}
        """The reference's hidden SPMD identity parameters the body reads, by name."""
        self.sdma_workspace: str | None = None
        """The hidden `!pto.ptr<i8>` SDMA workspace parameter (`%argK`) of a function that makes
        a prefetch context (`prefetch.make_context`), as the reference's signature has it."""
        self._params: list[str] = []
        self._kind = ""
        self._emit_seconds = 0.0
        """Time in `prepare` / `finish` outside saturations and extraction (`codegen.emit`)."""
        self.arg_of: dict[int, str] = {}
        """A parameter's `%argK` (tensors first, then scalars)."""

    def release(self) -> None:
        """Drop everything the emission held (the function, its liveness, its index engine)
        once its lines and reports are taken: the emitter's helpers point back at it, so the
        cycle would keep all of it alive until a full collection (and so would the engine's own:
        `IndexEngine.release`)."""
        engine = getattr(self, "engine", None)
        if engine is not None:
            engine.release()
        vars(self).clear()

    # -- the function --------------------------------------------------------------------

    def emit(self) -> list[str]:
        """The lines of the function (its index engine saturated on its own)."""
        self.prepare()
        self.engine.saturate()
        return self.finish()

    def prepare(self) -> None:
        """Everything before the body: checks, parameters, regions, the head, and the index
        engine's roots (not saturated: `PtoCodegen` saturates every function's at once)."""
        t0 = time.perf_counter()
        sat0 = ENGINE_CLOCK.seconds
        try:
            self._prepare()
        finally:
            self._emit_seconds += time.perf_counter() - t0 - (ENGINE_CLOCK.seconds - sat0)

    def _prepare(self) -> None:
        fn = self.fn
        preflight(fn)
        kind = _kernel_kind(fn)
        check_shared_buffers(fn, self.live)
        check_target_constraints(fn, self.live, self.backend)
        params: list[str] = []
        # tensors first, then scalars, each in parameter order: the runtime passes a kernel's
        # arguments in that layout whatever the signature's order (the reference's PTOParam
        # dispatch), so the reference's signature has it too
        # the symbols only a declared valid shape names are leading `index` parameters after
        # the reference's MaterializeValidShapeSymbols: the first scalars
        tensors = [p for p in fn.params if isinstance(p.type, ir.TensorType)]
        order = [*tensors, *materialized_symbols(fn)]
        order += [p for p in fn.params if not isinstance(p.type, ir.TensorType)]
        self.arg_of = {p.id: f"%arg{k}" for k, p in enumerate(order)}
        for k, p in enumerate(order):
            arg = f"%arg{k}"
            self.used_names.add(arg[1:])
            self.var_names[p.id] = arg[1:]
            if isinstance(p.type, ir.TensorType):
                params.append(f"{arg}: !pto.ptr<{p.type.dtype.mlir}>")
            elif isinstance(p.type, ir.ScalarType):
                params.append(f"{arg}: {_int_type(p.type.dtype)}")
                self.handles[p.id] = arg
                self.values[arg] = self.graph.opaque(arg, _int_type(p.type.dtype))
            elif is_comm_ctx(p):
                params.append(f"{arg}: !pto.ptr<i64>")  # the runtime's CommContext (u64 slots)
            else:
                raise PassError(f"parameter '{p.name_hint}' cannot be passed to a device function", p.span)
        for v in ir.dynamic_dimensions(fn):
            # one trailing `index` parameter per symbolic dimension of a tensor parameter's
            # shape, in first-seen order, as the reference's signature has them
            arg = f"%arg{len(params)}"
            self.used_names.add(arg[1:])
            params.append(f"{arg}: index")
            self.handles[v.id] = arg
            self.values[arg] = self.graph.opaque(arg, "index")
        if _makes_prefetch_context(fn):
            # after the dynamic dimensions and before the SPMD identities, as the reference
            # appends the runtime-owned workspace
            self.sdma_workspace = f"%arg{len(params)}"
            self.used_names.add(self.sdma_workspace[1:])
            params.append(f"{self.sdma_workspace}: !pto.ptr<i8>")
        self.allocations = resolved_allocations(fn, self.backend)
        self.regions = plan_regions(fn, ptoas=self.planner is Planner.PTOAS, fresh_name=self.fresh_name)
        for region in self.regions.values():
            self.const(region.valid_row, ir.DType.INDEX)
            self.const(region.valid_col, ir.DType.INDEX)
        body, self.body_lines = self.body_lines, []
        for p in fn.params:
            if isinstance(p.type, ir.TensorType) and p.name_hint == GM_PIPE_BUFFER:
                if p.type.dtype is not ir.DType.FP32:
                    raise PassError(f"{GM_PIPE_BUFFER} must have pl.FP32 elements, got "
                                    f"pl.{p.type.dtype.value}", p.span)
                self.gm_pipe_arg = self.arg_of[p.id]  # the GM slot buffer: a raw pointer, as the reference
            elif isinstance(p.type, ir.TensorType) and p.id in self.ffts_params:
                continue  # the FFTS workspace: a raw pointer, as the reference passes it
            elif isinstance(p.type, ir.TensorType):
                self._tensor_view(p, self.arg_of[p.id])
        self._pair_contexts(fn)
        self.head_lines.extend(self.body_lines)
        self.body_lines = body
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
        self._params = params
        self._kind = kind

    def finish(self) -> list[str]:
        """The body and the function's lines (after `prepare` and the saturation)."""
        t0 = time.perf_counter()
        sat0, ext0 = ENGINE_CLOCK.seconds, self.extract_seconds
        try:
            return self._finish()
        finally:
            inner = (ENGINE_CLOCK.seconds - sat0) + (self.extract_seconds - ext0)
            self._emit_seconds += time.perf_counter() - t0 - inner
            phases.add("codegen.emit", self._emit_seconds)
            self._emit_seconds = 0.0

    def _finish(self) -> list[str]:
        params, kind = self._params, self._kind
        self.stmts(self.fn.body)
        params.extend(f"{name}: i32" for name in self.spmd_params.values())
        header = (
            f"func.func @{self.symbol}({', '.join(params)}) attributes "
            f"{{pto.kernel_kind = #pto.kernel_kind<{kind}>}} {{"
        )
        lines = [header, *self.const_lines, *self.head_lines, *self.body_lines, "return", "}"]
        return ["  " + line for line in lines]

    def spmd_param(self, which: str) -> str:
        """The hidden `i32` parameter `%__pypto_spmd_<which>`. As in the reference's signature,
        reading the block index or the block count adds both (`block_idx`, `block_num`),
        reading the sub-block index adds `subblock_idx`, after every other parameter."""
        name = self.spmd_params.get(which)
        if name is None:
            group = ("subblock_idx",) if which == "subblock_idx" else ("block_idx", "block_num")
            for k in group:
                self.spmd_params[k] = f"%__pypto_spmd_{k}"
                self.values[self.spmd_params[k]] = self.graph.opaque(self.spmd_params[k], "i32")
            self.spmd_params = {k: self.spmd_params[k] for k in SPMD_PARAMS if k in self.spmd_params}
            name = self.spmd_params[which]
        return name

    def _pair_contexts(self, fn: ir.Function) -> None:
        """The k-th distributed tensor parameter's context is the k-th context parameter
        (materialize-dist-tensor-ctx appends them in that order), as the reference pairs them."""
        dists = [p for p in fn.params if isinstance(p.type, ir.TensorType) and p.type.distributed]
        ctxs = [p for p in fn.params if is_comm_ctx(p)]
        if len(dists) != len(ctxs):
            raise PassError(f"function '{fn.name}' has {len(dists)} distributed tensor parameters but "
                            f"{len(ctxs)} communication contexts (materialize-dist-tensor-ctx pairs them)",
                            fn.span)
        for d, c in zip(dists, ctxs, strict=True):
            self.view_ctx[self.tensor_views[d.id]] = self.arg_of[c.id]

    def _tensor_view(self, p: ir.Var, arg: str) -> None:
        """`pto.make_tensor_view` of a tensor parameter: its shape (a symbolic dimension is the
        value of its trailing `index` parameter), row-major strides (a product with a symbolic
        factor is an `arith.muli`) or the explicit `pl.TensorView` strides, and its layout."""
        t = p.type
        assert isinstance(t, ir.TensorType)
        name = self._make_view(t, arg, self.fresh_name(f"{p.name_hint}_view"))
        self.tensor_views[p.id] = name
        self.tensor_types[p.id] = t
        self.view_ptrs[name] = arg

    def _make_view(self, t: ir.TensorType, arg: str, name: str) -> str:
        """The `pto.make_tensor_view` line of a tensor of type `t` at pointer `arg`, named `%name`."""
        dims_e = [ir.ConstInt(d, ir.DType.INDEX) if isinstance(d, int) else d for d in t.shape]
        shape = [self.index_value(d) for d in dims_e]
        layout = "nd"
        # `[..., M, 1]`: ptoas infers DN for a view whose innermost dimension is 1 and a load of
        # it is a column-major tile, so the reference forces DN (and, without explicit strides,
        # its column-vector strides: 1 along M, M across it) whatever the printed layout
        column = len(t.shape) >= 2 and t.shape[-1] == 1 and \
            (t.view is None or not t.view.layout.startswith("MX"))
        if t.view is not None and t.view.stride:
            strides = [self.index_value(e) for e in t.view.stride]
            layout = "dn" if column else t.view.layout.lower()
        elif column:
            rank = len(dims_e)
            col: list[ir.Expr] = [ir.ConstInt(1, ir.DType.INDEX)] * rank
            col[rank - 1] = dims_e[0] if rank == 2 else dims_e[rank - 1]
            if rank >= 3:
                col[rank - 3] = dims_e[rank - 2]
                for k in range(rank - 4, -1, -1):
                    col[k] = _times(col[k + 1], dims_e[k + 1])
            strides = [self.index_value(e) for e in col]
            layout = "dn"
        else:
            stride_e: list[ir.Expr] = [ir.ConstInt(1, ir.DType.INDEX)] * len(dims_e)
            for k in range(len(dims_e) - 2, -1, -1):
                stride_e[k] = _times(dims_e[k + 1], stride_e[k + 1])
            strides = [self.index_value(e) for e in stride_e]
            if t.view is not None:
                layout = t.view.layout.lower()
        dims = "x".join("?" for _ in t.shape)
        self.line(
            f"%{name} = pto.make_tensor_view {arg}, shape = [{', '.join(shape)}], "
            f"strides = [{', '.join(strides)}]"
            f" {{layout = #pto.layout<{layout}>}} : !pto.tensor_view<{dims}x{t.dtype.mlir}>"
        )
        return f"%{name}"

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
        # every use of the handle is annotated with the type it was defined with, also where
        # a value of another type shares the buffer (one SSA value has one type; the reference
        # annotates uses the same way)
        self.handle_types[name] = region.slot_type if region is not None and memref is not None \
            and memref.slot_index is not None else tile_type_string(tile)
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
        error is left for emission, so errors surface in emission order. The caller saturates
        (`emit`: this function's engine alone; `PtoCodegen`: every function's together).
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
        if _has_hoisted(e):
            # What `lower` will ask for: the hoisted operations' operands, then the rest.
            for operand in self._hoisted_operands(e):
                self._collect_operand(operand)
            e = self._hoisted_form(e)
        if self._plain_root(e, want) is not None:
            return
        root = plain_root(e, want)
        if root is not None:
            self._add_plain_root(e, want, root)

    def _collect_operand(self, e: ir.Expr) -> None:
        """An operand `_hoist` lowers: a root even when it is a literal (`lower` makes every
        integer it lowers a root; other sites emit their literals themselves)."""
        dtype = ir.expr_dtype(e)
        if _has_hoisted(e) or not (dtype.is_int or dtype is ir.DType.BOOL):
            self._collect_plain(e, None)
            return
        if self._plain_root(e, None) is not None:
            return
        try:
            fold(e)
        except PassError:
            return  # left for emission to report in order
        self._add_plain_root(e, None, e)

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
            self.engine.extraction_limit_hit,
        )

    # -- statements --------------------------------------------------------------------------

    def stmts(self, body: ir.SeqStmts) -> None:
        for s in body.stmts:
            self.stmt(s)

    def stmt(self, s: ir.Stmt) -> None:
        outer, self.at = self.at, _span(s)
        try:
            self._stmt(s)
        finally:
            self.at = outer

    def _stmt(self, s: ir.Stmt) -> None:
        if isinstance(s, ir.AssignStmt):
            if is_alloc_statement(s):
                return
            self.assign(s)
        elif isinstance(s, ir.EvalStmt):
            self.call(None, s.call, s.span)
        elif isinstance(s, ir.ForStmt):
            self.for_(s)
        elif isinstance(s, ir.WhileStmt):
            self.while_(s)
        elif isinstance(s, ir.IfStmt):
            self.if_(s)
        elif isinstance(s, ir.ReturnStmt):
            return
        else:
            raise AssertionError("a yield is handled by its loop or if")

    def assign(self, s: ir.AssignStmt) -> None:
        v = s.var
        if isinstance(s.value, ir.Call):
            self.call(None if _binds_no_value(s) else v, s.value, s.span)
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
        if isinstance(v.type, ir.ArrayType):
            if not isinstance(s.value, ir.Var):
                raise PassError(f"array '{v.name_hint}' must be assigned an array or an array op's result",
                                s.span)
            self.arrays.rename(v, s.value, s.span)
            return
        value = fold(s.value)
        dtype = ir.expr_dtype(value)
        if isinstance(value, ir.ConstInt):
            self.handles[v.id] = self.const(value.value, dtype)
        elif isinstance(value, ir.ConstFloat):
            self.handles[v.id] = self.const_float(value.value, dtype)
        else:
            self.handles[v.id] = self.lower(s.value)
        self.scalar_scope[v.id] = tuple(self.block_ids)

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

    def _partition(self, tensor: ir.Var, offsets: ir.CallArg, sizes: Sequence[ir.Expr], span: Span
                   ) -> tuple[str, str]:
        """`pto.partition_view` of `tensor` at `offsets` with `sizes` (an extent that is not a
        literal is `?` in the type and a runtime size operand)."""
        view, ttype = self.tensor_view(tensor), self.tensor_types[tensor.id]
        return self._partition_view(view, ttype, offsets, sizes, span)

    def _partition_view(self, view: str, ttype: ir.TensorType, offsets: ir.CallArg, sizes: Sequence[ir.Expr],
                        span: Span) -> tuple[str, str]:
        """`pto.partition_view` of the tensor view `view` (of type `ttype`)."""
        assert isinstance(offsets, ir.ExprList)
        rank = len(ttype.shape)
        if len(offsets.items) != rank or len(sizes) != rank:
            raise PassError(f"a rank-{rank} tensor needs {rank} offsets and {rank} sizes here, got "
                            f"{len(offsets.items)} and {len(sizes)}", span)
        offs = self._offsets(offsets)
        dims: list[str] = []
        size_names: list[str] = []
        for s in sizes:
            folded = _try_fold(s)
            literal = ir.literal_value(folded) if isinstance(folded, ir.ConstInt) else None
            dims.append("?" if literal is None else str(literal))
            size_names.append(self.index_value(s))
        name = self.new_tmp()
        tv = "x".join("?" for _ in ttype.shape)
        pv = f"!pto.partition_tensor_view<{'x'.join(dims)}x{ttype.dtype.mlir}>"
        self.line(
            f"{name} = pto.partition_view {view}, offsets = [{', '.join(offs)}], sizes = "
            f"[{', '.join(size_names)}] : !pto.tensor_view<{tv}x{ttype.dtype.mlir}> -> {pv}"
        )
        return name, pv

    # -- op emission: one method per form of `lowering/pto_ops.json` ---------------------------

    def _tile_arg(self, arg: ir.CallArg) -> tuple[str, str]:
        """A tile operand: its handle and the type the handle was defined with (a view's
        type carries its static valid extent)."""
        if not isinstance(arg, ir.Var) or not isinstance(arg.type, ir.TileType):
            raise PassError("expected a tile operand", getattr(arg, "span", NO_SPAN))
        handle = self.handle(arg)
        return handle, self.handle_types.get(handle, tile_type_string(arg.type))

    def _scalar_arg(self, arg: ir.CallArg, dtype: ir.DType) -> tuple[str, str]:
        """A scalar operand at `dtype`; a float literal at an integer dtype is its integer value
        when it has one (`value=2.0` of a UINT8 `tile.full` is 2), else a located error."""
        if isinstance(arg, ir.ConstFloat) and not dtype.is_float:
            whole = int(arg.value) if math.isfinite(arg.value) and float(arg.value).is_integer() else None
            if whole is None or dtype is ir.DType.BOOL or dtype.wrap(whole) != whole:
                raise PassError(f"the float literal {arg.value!r} is not a pl.{dtype.value} value",
                                arg.span if arg.span != NO_SPAN else self.at)
            return self.const(whole, dtype), _int_type(dtype)
        if isinstance(arg, ir.ConstFloat):
            return self.const_float(arg.value, dtype), dtype.mlir
        if isinstance(arg, ir.ConstInt):
            if dtype.is_float:
                return self.const_float(float(arg.value), dtype), dtype.mlir
            return self.const(arg.value, dtype), _int_type(dtype)
        if not _is_scalar_expr(arg):
            raise PassError("expected a scalar operand", getattr(arg, "span", NO_SPAN))
        assert not isinstance(arg, ir.ExprList | ir.SpaceArg | ir.DTypeArg | ir.StrArg | ir.EnumArg
                              | ir.FuncRef | ir.ArgList)
        return self.lower(arg), _int_type(ir.expr_dtype(arg))

    def call(self, target: ir.Var | None, c: ir.Call, span: Span) -> None:
        """Emit one op call by its entry in the spelling table (`pto_spelling`)."""
        sp = pto_spelling.lookup(c.op)
        where = c.span if c.span != NO_SPAN else span
        if sp is None:
            raise PassError(f"slotsat's code generator does not support {c.op}", where)
        emit = getattr(self, f"_emit_{sp.form}")
        emit(target, c, sp, where)

    def _operands(self, c: ir.Call, sp: pto_spelling.Spelling, result: ir.DType | None,
                  where: Span) -> list[tuple[str, str]]:
        """The `ins(...)` operands of a call, as (SSA name, type), in the entry's order."""
        args = call_arguments(c, sp, where)
        names = sp.ins if sp.ins is not None else tuple(n for n in sp.arg_names if n in args)
        source: ir.DType | None = None
        for n in names:
            a = args.get(n)
            if isinstance(a, ir.Var) and isinstance(a.type, ir.TileType):
                source = a.type.dtype
                break
        out: list[tuple[str, str]] = []
        for n in names:
            arg = args.get(n)
            if arg is None:
                continue
            if isinstance(arg, ir.Var) and isinstance(arg.type, ir.TileType):
                out.append(self._tile_arg(arg))
            elif n in sp.index and _is_scalar_expr(arg):
                assert isinstance(arg, ir.SCALAR_EXPRS)
                out.append((self.index_value(arg), "index"))  # type: ignore[arg-type]
            elif _is_scalar_expr(arg) and sp.scalar not in pto_spelling.SCALAR_MODES:
                # a fixed operand type (`tile.mrgsort_format1`'s block length is `i32`); a runtime
                # integer of another dtype is converted, as the reference's EmitCastToI32 does
                fixed = ir.DType(sp.scalar)
                own = ir.expr_dtype(arg)  # type: ignore[arg-type]
                if not isinstance(arg, ir.ConstInt) and own != fixed:
                    if not (own.is_int and fixed.is_int):
                        raise PassError(f"slotsat's code generator passes argument '{n}' of {c.op} only as a "
                                        f"literal or an integer scalar, got {own.value}", where)
                    arg = ir.Cast(arg, fixed, span=getattr(arg, "span", NO_SPAN))  # type: ignore[arg-type]
                out.append(self._scalar_arg(arg, fixed))
            elif _is_scalar_expr(arg):
                dtype = source if sp.scalar == "source" and source is not None else result
                if dtype is None:
                    dtype = ir.expr_dtype(arg)  # type: ignore[arg-type]
                if sp.scalar == "signed":
                    dtype = pto_spelling.signed(dtype)
                out.append(self._scalar_arg(arg, dtype))
            else:
                raise PassError(f"slotsat's code generator cannot pass argument '{n}' of {c.op} as an "
                                "operand", where)
        return out

    def _attr_dict(self, c: ir.Call, sp: pto_spelling.Spelling, where: Span) -> str:
        """The attributes the entry makes from the call's keywords, as ` {k = v, ...}` or ``."""
        parts: list[str] = []
        for a in sp.attrs:
            value = c.kwarg(a.keyword) if a.argument is None else None
            if a.flag:
                on = (a.argument in call_arguments(c, sp, where) if a.argument is not None
                      else value is not None and _truthy(value))
                if (on or a.always) and a.i32:
                    parts.append(f"{a.name} = {1 if on else 0} : i32")
                elif on or a.always:
                    parts.append(f"{a.name} = {'true' if on else 'false'}")
                continue
            key = a.default if value is None else _keyword_text(value)
            if key is None:
                continue
            if key not in a.values:
                raise PassError(f"slotsat's code generator does not support {c.op} with "
                                f"{a.keyword}={key}", where)
            case = a.values[key]
            if case is not None:
                parts.append(f"{a.name} = #pto<{a.enum} {case}>")
        return " {" + ", ".join(parts) + "}" if parts else ""

    def _dps_line(self, sp: pto_spelling.Spelling, ins: list[tuple[str, str]], dst: str, dst_type: str,
                  attrs: str) -> None:
        names = ", ".join(n for n, _ in ins)
        types = ", ".join(t for _, t in ins)
        inner = f"{names}{attrs}" if sp.attr_at == "ins" else names
        tail = attrs if sp.attr_at != "ins" else ""
        self.line(f"{sp.pto} ins({inner} : {types}) outs({dst} : {dst_type}){tail}")

    def _emit_dps(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling, where: Span) -> None:
        """`PTO ins(OPERANDS : TYPES) outs(%dst : TYPE)`: the result tile's buffer is the
        destination (an in-place op's destination is its argument's buffer, which the
        liveness classes already share). The buffer is allocated before the operands are read,
        as the reference allocates a statement's result before its op's code: the constants
        each makes are hoisted in the reference's order."""
        if target is None or not isinstance(target.type, ir.TileType):
            raise PassError(f"slotsat's code generator does not support {c.op} without a tile result", where)
        dst = self.define_tile(target)
        ins = self._operands(c, sp, target.type.dtype, where)
        if sp.pto is not None and sp.pto.startswith("pto.tcolexpand"):
            # ptoas lowers these reading the operand's physical extent, which a subview's type
            # does not give: a slice operand is copied out first, as the reference does
            ins = [self._materialized(name, c, where) if name in self.subview_windows else (name, t)
                   for name, t in ins]
        attrs = self._attr_dict(c, sp, where)
        if sp.scratch is not None and sp.scratch not in call_arguments(c, sp, where):
            src = c.args[0]
            assert isinstance(src, ir.Var)
            assert isinstance(src.type, ir.TileType)
            tmp = f"%{self.fresh_name(self.var_name(target) + '_tmp')}"
            self._alloc_line(tmp, src, src.type, scratch_of=target)
            ins.append((tmp, tile_type_string(src.type)))
        self._dps_line(sp, ins, dst, self.handle_types.get(dst, tile_type_string(target.type)), attrs)

    def _emit_gatherb(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling,
                      where: Span) -> None:
        """`tile.gatherb(src, offsets)`: `pto.tgatherb ins(%src, %offsets : TB, TB) outs(%dst :
        TB)`, the block gather by byte offsets. As PyPTO's backend does
        (`MakeGatherbCodegenPTO`), the source must start 32-byte aligned: a slice source at
        literal offsets whose byte offset is a multiple of 32, a declared slot at a literal byte
        offset that is one; anything else is an error, not an unaligned gather."""
        if len(c.args) != 2 or not all(isinstance(a, ir.Var) and isinstance(a.type, ir.TileType)
                                       for a in c.args):
            raise PassError(f"{c.op} takes a source tile and a tile of byte offsets", where)
        src = c.args[0]
        assert isinstance(src, ir.Var)
        assert isinstance(src.type, ir.TileType)
        handle = self.handle(src)
        if handle in self.subview_bytes:  # a slice: where it starts in the buffer under it
            offset, _ = self.subview_bytes[handle]
            if offset is None or offset % 32:
                raise PassError(f"{c.op}: the source slice '{src.name_hint}' must start at a byte offset "
                                "provably a multiple of 32 (literal offsets), as the reference requires"
                                + ("" if offset is None else f"; it starts at byte {offset}"), where)
        memref = src.type.memref
        if memref is not None:
            base = fold(memref.byte_offset)
            if not isinstance(base, ir.ConstInt):
                raise PassError(f"{c.op}: the source '{src.name_hint}' sits at a runtime byte offset of "
                                "its allocation; the reference requires a literal offset that is a multiple "
                                "of 32", where)
            if base.value >= 0 and base.value % 32:
                raise PassError(f"{c.op}: the source '{src.name_hint}' sits at byte offset {base.value} of "
                                "its allocation, not a multiple of 32, which the reference requires", where)
        self._emit_dps(target, c, sp, where)

    def _emit_barrier(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling,
                      where: Span) -> None:
        """`system.bar_v` / `bar_m` / `bar_all`: `pto.barrier <PIPE_V>` (the entry's pipe), as
        PyPTO's backend emits them; they take no arguments."""
        if c.args or c.kwargs:
            raise PassError(f"{c.op} takes no arguments", where)
        if target is not None:
            raise PassError(f"{c.op} has no result to assign", where)
        self.line(f"{sp.pto} <{sp.param}>")

    def _materialized(self, view: str, c: ir.Call, where: Span) -> tuple[str, str]:
        """The slice view `view` copied into a buffer of its own: `pto.alloc_tile` of the
        slice's tile type and `pto.textract` of its window out of the source, at each use (the
        reference copies it once, at the first such use, into the slice's own buffer)."""
        src, src_t, offs, tile = self.subview_windows[view]
        if tile.memory_space is ir.MemorySpace.Mat:
            raise PassError(f"slotsat's code generator does not emit {c.op} of a slice of a Mat tile (the "
                            "copy out would be a Mat-to-Mat pto.textract, which the hardware does not have)",
                            where)
        if self.planner is Planner.PYPTO:
            raise PassError(f"{c.op} of a tile.slice view needs the slice copied into a buffer of its own, "
                            "which slotsat places only under the ptoas planner", where)
        name = f"%{self.fresh_name(view[1:] + '_mat')}"
        rows, cols = valid_extents(tile)
        t = tile_type_string(tile)
        self.line(f"{name} = pto.alloc_tile valid_row = {self.index_value(rows)} valid_col = "
                  f"{self.index_value(cols)} : {t}")
        self.line(f"pto.textract ins({src}, {offs[0]}, {offs[1]} : {src_t}, index, index) outs({name} : {t})")
        return name, t

    def _emit_mrgsort(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling,
                      where: Span) -> None:
        """`tile.mrgsort_format2`, the 2- to 4-way merge: `pto.tmrgsort ins(%src0, ..., %tmp
        {exhausted = B} : ...) outs(%dst, %executed : TB, vector<4xi16>)`, the scratch tile
        last among the sources and the executed-status vector a zero constant defined just
        before, as PyPTO's backend emits it (`MakeMrgSortCodegenPTO`)."""
        if target is None or not isinstance(target.type, ir.TileType):
            raise PassError(f"slotsat's code generator does not support {c.op} without a tile result", where)
        if not 3 <= len(c.args) <= 5 or not all(
                isinstance(a, ir.Var) and isinstance(a.type, ir.TileType) for a in c.args):
            raise PassError(f"{c.op} merges 2 to 4 source tiles with a scratch tile last", where)
        ins = [self._tile_arg(a) for a in c.args if isinstance(a, ir.Var)]
        attrs = self._attr_dict(c, sp, where)
        dst = self.define_tile(target)
        dst_type = self.handle_types.get(dst, tile_type_string(target.type))
        executed = f"%{self.fresh_name('executed_vec')}"
        self.line(f"{executed} = arith.constant dense<0> : vector<4xi16>")
        self._dps_line(sp, ins, f"{dst}, {executed}", f"{dst_type}, vector<4xi16>", attrs)

    def _emit_gather_mask(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling,
                          where: Span) -> None:
        """`tile.gather_mask`, the mask form of the gather: `pto.tgather ins(%src, {maskPattern =
        #pto.mask_pattern<P0101>} : TB, "row") outs(%dst : TB)`, the keyword's value (1 to 7)
        mapped to ptoas's pattern by the entry, as PyPTO's backend emits it
        (`MakeGatherMaskCodegenPTO`). `output_dtype` only selects the result's dtype, which the
        result tile's type carries."""
        if target is None or not isinstance(target.type, ir.TileType):
            raise PassError(f"slotsat's code generator does not support {c.op} without a tile result", where)
        if len(c.args) != 1 or not isinstance(c.args[0], ir.Var) or \
                not isinstance(c.args[0].type, ir.TileType):
            raise PassError(f"{c.op} takes one source tile", where)
        _, pattern = self._mask_pattern(c, sp, where)
        src, src_type = self._tile_arg(c.args[0])
        dst = self.define_tile(target)
        dst_type = self.handle_types.get(dst, tile_type_string(target.type))
        self.line(f"{sp.pto} ins({src}, {pattern} : {src_type}, \"row\") outs({dst} : {dst_type})")

    @staticmethod
    def _mask_pattern(c: ir.Call, sp: pto_spelling.Spelling, where: Span) -> tuple[str, str]:
        """The mask forms' pattern (`P0101`, from the call's `mask_pattern` keyword, 1 to 7,
        through the entry's table) and their one attribute dictionary, `{maskPattern =
        #pto.mask_pattern<P0101>}`."""
        (mask,) = sp.attrs
        value = c.kwarg(mask.keyword)
        key = None if value is None else _keyword_text(value)
        if key is None or key not in mask.values:
            raise PassError(f"slotsat's code generator does not support {c.op} with {mask.keyword}="
                            f"{key if key is not None else 'absent'} (ptoas's patterns are "
                            f"{', '.join(sorted(mask.values))})", where)
        case = mask.values[key]
        assert case is not None  # the mask entries map every keyword value to a pattern
        return case, f"{{{mask.name} = #pto.{mask.enum}<{case}>}}"

    def _emit_scatter_mask(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling,
                           where: Span) -> None:
        """`tile.scatter_mask(dst, src, mask_pattern=P)`, the mask form of the scatter:
        `pto.tscatter ins(%src, {maskPattern = #pto.mask_pattern<P0101>} : TB, "row") outs(%dst :
        TB)`, into `dst`'s buffer, which the result is (the reference's op reuses its first
        argument), as PyPTO's backend emits it (`MakeScatterMaskCodegenPTO`). `dst` has `src`'s
        rows and dtype and `src`'s columns times the pattern's stride (2 for P0101 / P1010, 4 for
        P0001 .. P1000, 1 for P1111), as the reference's type rule requires."""
        if len(c.args) != 2 or not all(isinstance(a, ir.Var) and isinstance(a.type, ir.TileType)
                                       for a in c.args):
            raise PassError(f"{c.op} takes a destination tile and a source tile", where)
        dst_arg, src_arg = c.args
        assert isinstance(dst_arg, ir.Var)
        assert isinstance(src_arg, ir.Var)
        assert isinstance(dst_arg.type, ir.TileType)
        assert isinstance(src_arg.type, ir.TileType)
        case, pattern = self._mask_pattern(c, sp, where)
        stride = {"P0101": 2, "P1010": 2, "P1111": 1}.get(case, 4)
        (dr, dc), (sr, sc) = dst_arg.type.rows_cols, src_arg.type.rows_cols
        if dst_arg.type.dtype != src_arg.type.dtype or dr != sr or dc != sc * stride:
            raise PassError(f"{c.op} writes a [{sr}, {sc}] pl.{src_arg.type.dtype.value} source into a "
                            f"[{sr}, {sc * stride}] pl.{src_arg.type.dtype.value} destination with this "
                            f"pattern, not into [{dr}, {dc}] pl.{dst_arg.type.dtype.value}", where)
        src, src_type = self._tile_arg(src_arg)
        dst, dst_type = self._tile_arg(dst_arg)
        self.line(f"{sp.pto} ins({src}, {pattern} : {src_type}, \"row\") outs({dst} : {dst_type})")
        if target is not None:
            self.handles[target.id] = dst

    def _emit_tensor_view(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling,
                          where: Span) -> None:
        """`tensor.view`: a new `pto.make_tensor_view` of the input's base pointer with the
        result's own shape, strides and layout (its printed type), as the reference emits it;
        later loads and stores of the result address the input's storage. A view of a
        distributed tensor keeps its communication context (remote ops address the peer's copy
        from the same base)."""
        if target is None or not isinstance(target.type, ir.TensorType):
            raise PassError(f"{c.op} must be assigned to a tensor", where)
        src = c.args[0] if c.args else None
        if not isinstance(src, ir.Var) or src.id not in self.tensor_views:
            raise PassError(f"slotsat's code generator emits {c.op} only of a tensor parameter or a view of "
                            "one", where)
        base = self.view_ptrs.get(self.tensor_views[src.id])
        if base is None:
            raise PassError(f"slotsat's code generator emits {c.op} only of a tensor parameter or a view of "
                            "one", where)
        self._tensor_view(target, base)
        ctx = self.view_ctx.get(self.tensor_views[src.id])
        if ctx is not None:  # a view of a window from its base: the peer's copy is as far away
            self.view_ctx[self.tensor_views[target.id]] = ctx

    def _emit_matmul_acc(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling,
                         where: Span) -> None:
        """`pto.tmatmul.acc ins(%acc, %lhs, %rhs) outs(%acc)` (and `pto.tgemv.acc`, with its
        `accPhase`): the accumulator is updated in place.

        `tile.matmul_acc`'s `init_cond` (its fourth argument) overwrites the accumulator with
        `lhs @ rhs` where it holds, as the reference's code generator emits it: a literal picks
        `pto.tmatmul ins(%lhs, %rhs) outs(%acc)` or the accumulating form outright, a runtime
        predicate branches over the two (`scf.if`, no results: both arms write `%acc`)."""
        if target is None or not isinstance(target.type, ir.TileType):
            raise PassError(f"slotsat's code generator does not support {c.op} without a tile result", where)
        ins = self._operands(c, sp, target.type.dtype, where)
        attrs = self._attr_dict(c, sp, where)
        acc, acc_t = ins[0]
        self.handles[target.id] = acc
        init = ops.init_condition(c)
        if init is None:
            self._dps_line(sp, ins, acc, acc_t, attrs)  # acc_t: the accumulator handle's own type
            return
        fresh = pto_spelling.lookup("tile.matmul")
        if c.op != "tile.matmul_acc" or fresh is None:
            raise PassError(f"{c.op} takes no init_cond (the reference accepts one for tile.matmul_acc only)",
                            where)
        folded = fold(init)
        if isinstance(folded, ir.ConstInt):
            if folded.value:
                self._dps_line(fresh, ins[1:], acc, acc_t, attrs)
            else:
                self._dps_line(sp, ins, acc, acc_t, attrs)
            return
        cond = self.lower(init)
        self.line(f"scf.if {cond} {{")
        with self.block():
            self._dps_line(fresh, ins[1:], acc, acc_t, attrs)
        self.line("} else {")
        with self.block():
            self._dps_line(sp, ins, acc, acc_t, attrs)
        self.line("}")

    def _emit_tri(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling, where: Span) -> None:
        """`"pto.ttri"(%diagonal, %dst) {upperOrLower = U : i32} : (i32, TB) -> ()`: the
        triangular mask, in MLIR's generic form as the reference prints it (ptoas accepts the
        selector only there); the result's buffer first, then the diagonal, as the reference
        materializes them."""
        if target is None or not isinstance(target.type, ir.TileType):
            raise PassError(f"slotsat's code generator does not support {c.op} without a tile result", where)
        dst = self.define_tile(target)
        ((diagonal, diagonal_t),) = self._operands(c, sp, target.type.dtype, where)
        dst_t = self.handle_types.get(dst, tile_type_string(target.type))
        attrs = self._attr_dict(c, sp, where)
        self.line(f'"{sp.pto}"({diagonal}, {dst}){attrs} : ({diagonal_t}, {dst_t}) -> ()')

    def _emit_random(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling, where: Span) -> None:
        """`tile.random`: `pto.trandom ins(KEY0, ..., COUNTER3 : i32, ...) outs(%dst : TB)` at
        the default 10 cipher rounds; the other count ptoas takes, 7, in MLIR's generic form,
        `"pto.trandom"(KEY0, ..., COUNTER3, %dst) {rounds = N : i32} : (i32, ..., TB) -> ()`, as
        the reference prints it."""
        rounds = c.kwarg("rounds")
        n = rounds.value if isinstance(rounds, ir.ConstInt) else None
        if rounds is not None and n not in RANDOM_ROUNDS:
            got = _keyword_text(rounds) or "a value known only at run time"
            raise PassError(f"tile.random takes rounds={' or '.join(map(str, RANDOM_ROUNDS))} (the cipher "
                            f"rounds ptoas accepts), got {got}", where)
        if n is None or n == RANDOM_DEFAULT_ROUNDS:
            self._emit_dps(target, c, sp, where)
            return
        if target is None or not isinstance(target.type, ir.TileType):
            raise PassError(f"slotsat's code generator does not support {c.op} without a tile result", where)
        dst = self.define_tile(target)
        ins = self._operands(c, sp, target.type.dtype, where)
        dst_t = self.handle_types.get(dst, tile_type_string(target.type))
        names = "".join(f"{name}, " for name, _ in ins)
        types = "".join(f"{t}, " for _, t in ins)
        self.line(f'"{sp.pto}"({names}{dst}) {{rounds = {n} : i32}} : ({types}{dst_t}) -> ()')

    def _emit_alloc(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling, where: Span) -> None:
        """`tile.create`: the result's buffer only (`pto.alloc_tile`), as the reference emits."""
        if target is None or not isinstance(target.type, ir.TileType):
            raise PassError(f"{c.op} must be assigned to a tile", where)
        self.define_tile(target)

    def _emit_load(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling, where: Span) -> None:
        """`pto.partition_view` of the valid region (the valid shape, else the shape), then
        `pto.tload` into the result tile."""
        if target is None or not isinstance(target.type, ir.TileType):
            raise PassError("a tile.load result must be assigned to a tile", where)
        args = call_arguments(c, sp, where)
        tensor = args.get("tensor")
        shape = args.get("shapes")
        valid = args.get("valid_shape", shape)
        if not isinstance(tensor, ir.Var) or not isinstance(valid, ir.ExprList):
            raise PassError("tile.load takes a tensor, offsets and a shape", where)
        dst = self.define_tile(target)
        pv_name, pv = self._partition(tensor, args["offsets"], valid.items, where)
        dst_t = self.handle_types.get(dst, tile_type_string(target.type))
        self.line(f"pto.tload ins({pv_name} : {pv}) outs({dst} : {dst_t})")

    def _emit_store(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling, where: Span) -> None:
        """`pto.partition_view` of the tile's valid region (the explicit `shapes` of a tensor of
        higher rank), then `pto.tstore`."""
        args = call_arguments(c, sp, where)
        tile_arg = args.get("tile")
        tensor = args.get("output_tensor")
        if not isinstance(tile_arg, ir.Var) or not isinstance(tile_arg.type, ir.TileType):
            raise PassError("tile.store stores a tile", where)
        if not isinstance(tensor, ir.Var) or not isinstance(tensor.type, ir.TensorType):
            raise PassError("tile.store stores into a tensor", where)
        src, src_t = self._tile_arg(tile_arg)
        shapes = args.get("shapes")
        sizes: Sequence[ir.Expr]
        if isinstance(shapes, ir.ExprList) and len(tensor.type.shape) > 2:
            sizes = shapes.items
        else:
            sizes = tile_arg.type.effective_valid_shape
        attrs = self._attr_dict(c, sp, where)
        unbound = [v for d in sizes for v in ir.expr_vars(d)
                   if v.id not in self.handles or not self.in_scope(v)]
        if unbound:
            raise PassError(f"the valid shape of tile '{tile_arg.name_hint}' refers to "
                            f"'{unbound[0].name_hint}', which has no value where the tile is stored (the "
                            "printed type names a value defined inside the loop or branch that produces the "
                            "tile)", where)
        pv_name, pv = self._partition(tensor, args["offsets"], sizes, where)
        self.line(f"pto.tstore ins({src} : {src_t}) outs({pv_name} : {pv}){attrs}")
        if target is not None:
            self.tensor_views[target.id] = self.tensor_view(tensor)
            self.tensor_types[target.id] = self.tensor_types[tensor.id]

    def _emit_array_create(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling,
                           where: Span) -> None:
        """`array.create(N, dtype=T)`: `pto.declare_local_array -> !pto.local_array<NxT>`."""
        del c, sp
        if target is None or not isinstance(target.type, ir.ArrayType):
            raise PassError("array.create must be assigned to an array", where)
        name = f"%{self.var_name(target)}"
        self.line(f"{name} = pto.declare_local_array -> {local_array_type(target.type)}")
        self.arrays.declare(target, name)

    def _array_access(self, c: ir.Call, sp: pto_spelling.Spelling, where: Span
                      ) -> tuple[ir.Var, str, str, str]:
        """The array operand of `array.get_element` / `update_element`, its storage, its type
        and the element index as an `index` value."""
        args = call_arguments(c, sp, where)
        array, index = args.get("array"), args.get("index")
        if not isinstance(array, ir.Var) or not isinstance(array.type, ir.ArrayType):
            raise PassError(f"{c.op} takes an array", where)
        if not _is_scalar_expr(index):
            raise PassError(f"{c.op} takes a scalar index", where)
        storage = self.arrays.current(array, where)
        return array, storage, local_array_type(array.type), self.index_value(index)  # type: ignore[arg-type]

    def _emit_array_get(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling,
                        where: Span) -> None:
        """`array.get_element(a, i)`: `pto.local_array_get %a[%i] : !pto.local_array<NxT> -> T`."""
        array, storage, typ, index = self._array_access(c, sp, where)
        if target is None:
            return
        assert isinstance(array.type, ir.ArrayType)
        name = f"%{self.var_name(target)}"
        element = _int_type(array.type.dtype)
        self.line(f"{name} = pto.local_array_get {storage}[{index}] : {typ} -> {element}")
        self.handles[target.id] = name
        self.scalar_scope[target.id] = tuple(self.block_ids)

    def _emit_array_set(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling,
                        where: Span) -> None:
        """`array.update_element(a, i, v)`: `pto.local_array_set %a[%i], %v`, in place on the
        array's storage (the result is its new version); an integer value of another dtype is
        converted to the element's, as the reference's EmitLocalArrayValue does."""
        array, storage, typ, index = self._array_access(c, sp, where)
        assert isinstance(array.type, ir.ArrayType)
        dtype = array.type.dtype
        value = call_arguments(c, sp, where).get("value")
        if not _is_scalar_expr(value):
            raise PassError("array.update_element stores a scalar", where)
        own = ir.expr_dtype(value)  # type: ignore[arg-type]
        if own != dtype and not isinstance(value, ir.ConstInt | ir.ConstFloat):
            if not (own.is_int and dtype.is_int):
                raise PassError(f"array.update_element stores a {own.value} value into an array of "
                                f"{dtype.value}", where)
            value = ir.Cast(value, dtype, span=getattr(value, "span", NO_SPAN))  # type: ignore[arg-type]
        name, vtype = self._scalar_arg(value, dtype)  # type: ignore[arg-type]
        self.line(f"pto.local_array_set {storage}[{index}], {name} : {typ}, {vtype}")
        if target is not None:
            self.arrays.update(array, target, where)

    def _emit_mscatter(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling,
                       where: Span) -> None:
        """`tile.mscatter(src, idx, output_tensor)`: a `pto.partition_view` of the whole tensor
        (the indices address its elements), then `pto.mscatter ins(%src, %idx) outs(%pv)`, as
        the reference's MakeTileMscatterCodegenPTO emits it; the result names the tensor."""
        args = call_arguments(c, sp, where)
        tensor = args.get("output_tensor")
        if not isinstance(tensor, ir.Var) or not isinstance(tensor.type, ir.TensorType):
            raise PassError("tile.mscatter scatters into a tensor", where)
        src, src_t = self._tile_arg(args["src"])
        idx, idx_t = self._tile_arg(args["idx"])
        pv_name, pv = self._whole_partition(tensor, where)
        self.line(f"pto.mscatter ins({src}, {idx} : {src_t}, {idx_t}) outs({pv_name} : {pv})")
        if target is not None:
            self.tensor_views[target.id] = self.tensor_view(tensor)
            self.tensor_types[target.id] = self.tensor_types[tensor.id]

    def _emit_mgather(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling,
                      where: Span) -> None:
        """`tile.mgather(mem, idx[, scratch][, valid_shape], coalesce=, gather_oob=,
        target_memory=)`: a gather from GM into a fresh Vec or Mat tile, as the reference's
        MakeTileMgatherCodegenPTO emits it. The result is allocated first; `mem` is a
        `pto.partition_view` of the whole tensor; a Vec result reads a Vec tile of `INT32`
        indices, a Mat result a GM tensor of them (another whole-tensor view) and, in elem mode,
        stages through the GM tensor `scratch` (a third one, which must be neither `mem` nor
        `idx` nor a view of either). The reference's checks for the `a2a3` target hold under
        `--backend 910b`."""
        if target is None or not isinstance(target.type, ir.TileType):
            raise PassError("tile.mgather gathers into a tile: assign its result", where)
        modes = ops.mgather_modes(c)
        if modes is None:
            raise PassError(ops.MGATHER_MODES_MESSAGE, where)
        elem = modes[0]
        args = call_arguments(c, sp, where)
        mem, idx, scratch = self._mgather_operands(target.type, args, elem, where)
        if self.backend is Backend.ASCEND910B:
            self._mgather_a2a3(target.type, mem, idx, elem, where)
        dst = self.define_tile(target)
        ins = [self._whole_partition(mem, where)]
        if isinstance(idx.type, ir.TensorType):
            ins.append(self._whole_partition(idx, where))
        else:
            ins.append(self._tile_arg(idx))
        if scratch is not None:
            base = self._tensor_base(scratch)
            for other, role in ((mem, "mem"), (idx, "idx")):
                if scratch.id == other.id or base == self._tensor_base(other):
                    raise PassError(f"tile.mgather: the scratch tensor '{scratch.name_hint}' must not "
                                    f"overlap {role} '{other.name_hint}' (it is a view of the same storage)",
                                    where)
            ins.append(self._whole_partition(scratch, where))
        attrs = self._attr_dict(c, sp, where)
        self._dps_line(sp, ins, dst, self.handle_types.get(dst, tile_type_string(target.type)), attrs)

    @staticmethod
    def _mgather_operands(result: ir.TileType, args: Mapping[str, ir.CallArg], elem: bool,
                          where: Span) -> tuple[ir.Var, ir.Var, ir.Var | None]:
        """`tile.mgather`'s tensor, its indices and its scratch tensor (Mat elem mode only),
        checked as the reference's type deduction checks them."""
        mem, idx, scratch = args.get("mem"), args.get("idx"), args.get("scratch")
        if not elem and isinstance(scratch, ir.ExprList):  # row mode: argument 2 is the valid shape
            scratch = None
        if scratch is not None and not isinstance(scratch, ir.Var | ir.ExprList):
            raise PassError("tile.mgather's third argument is its scratch tensor (the op's, as the reference "
                            "prints it); pass coalesce= and gather_oob= by keyword", where)
        if not isinstance(mem, ir.Var) or not isinstance(mem.type, ir.TensorType):
            raise PassError("tile.mgather gathers from a tensor (its first argument)", where)
        if result.memory_space is ir.MemorySpace.Mat:
            if not isinstance(idx, ir.Var) or not isinstance(idx.type, ir.TensorType):
                raise PassError("tile.mgather into a Mat tile reads its indices from a GM tensor", where)
            staged = isinstance(scratch, ir.Var) and isinstance(scratch.type, ir.TensorType)
            if elem != staged or (scratch is not None and not staged):
                raise PassError("tile.mgather into a Mat tile takes a GM scratch tensor (scratch=) in elem "
                                "mode and only then", where)
        elif result.memory_space is ir.MemorySpace.Vec:
            if not isinstance(idx, ir.Var) or not isinstance(idx.type, ir.TileType):
                raise PassError("tile.mgather into a Vec tile reads its indices from a Vec tile", where)
            if scratch is not None:
                raise PassError("tile.mgather takes a scratch tensor only into a Mat tile in elem mode",
                                where)
        else:
            raise PassError("tile.mgather gathers into a Vec or Mat tile", where)
        if idx.type.dtype is not ir.DType.INT32:
            raise PassError(f"tile.mgather reads INT32 indices, but '{idx.name_hint}' is "
                            f"{idx.type.dtype.value}", where)
        if len(idx.type.shape) != 2 or len(result.shape) != 2:
            raise PassError("tile.mgather reads a 2-D index tile or tensor and gathers into a 2-D tile",
                            where)
        assert scratch is None or isinstance(scratch, ir.Var)
        return mem, idx, scratch

    @staticmethod
    def _mgather_a2a3(result: ir.TileType, mem: ir.Var, idx: ir.Var, elem: bool, where: Span) -> None:
        """The reference's `a2a3` preconditions of `tile.mgather` (MakeTileMgatherCodegenPTO)."""
        assert isinstance(mem.type, ir.TensorType)
        if mem.type.dtype in (ir.DType.FP8E4M3FN, ir.DType.FP8E5M2, ir.DType.HF8):
            raise PassError(f"tile.mgather dtype {mem.type.dtype.value} is not supported on the 'a2a3' "
                            "backend; use the A5 backend (--backend 950)", where)
        if result.memory_space is not ir.MemorySpace.Vec:
            return
        assert isinstance(idx.type, ir.TileType)
        if not elem and idx.type.shape[0] != 1:
            raise PassError("tile.mgather row mode on the 'a2a3' backend requires idx shape [1, R]", where)
        if mem.type.view is not None and mem.type.view.layout != "ND":
            raise PassError("tile.mgather Vec output on the 'a2a3' backend currently requires an ND source "
                            "tensor", where)
        blayout, slayout, _ = layout_of(result)
        if (blayout, slayout) != ("row_major", "none_box"):
            raise PassError("tile.mgather Vec output from an ND tensor on the 'a2a3' backend requires "
                            "row_major/none layout", where)
        if (result.shape[1] * mem.type.dtype.bits) % 256:
            raise PassError("tile.mgather Vec output on the 'a2a3' backend requires each physical row to be "
                            "32-byte aligned", where)

    def _tensor_base(self, tensor: ir.Var) -> str:
        """The base pointer under a tensor's view (a `tensor.view` keeps its input's), else the
        view itself."""
        view = self.tensor_view(tensor)
        return self.view_ptrs.get(view, view)

    def _whole_partition(self, tensor: ir.Var, where: Span) -> tuple[str, str]:
        """`pto.partition_view` of all of `tensor`: zero offsets, its own extents."""
        self.tensor_view(tensor)  # a located error for a tensor that has no view here
        shape = self.tensor_types[tensor.id].shape
        zeros = ir.ExprList(tuple(ir.ConstInt(0, ir.DType.INDEX) for _ in shape))
        return self._partition(tensor, zeros, [_const_dim(d) for d in shape], where)

    # -- asynchronous GM-to-L2 prefetch (the reference's `pto_ops_prefetch.cpp`) -------------

    def _prefetch_result(self, target: ir.Var | None) -> str:
        """The SSA name a prefetch op defines: its target's, else a temporary (a bare
        `pl.prefetch.wait(...)` statement)."""
        if target is None:
            return self.new_tmp()
        name = f"%{self.var_name(target)}"
        self.handles[target.id] = name
        return name

    def _prefetch_handle(self, arg: ir.CallArg, producer: str, where: Span) -> str:
        """The SSA name of a prefetch handle operand: a value of the type the op `producer`
        yields (`ops.PREFETCH_HANDLE_RESULTS`)."""
        kind = ops.PREFETCH_HANDLE_RESULTS[producer]
        if not (isinstance(arg, ir.Var) and arg.type == ir.OpaqueType(kind)):
            raise PassError(f"expected a {kind} made by its prefetch op here", where)
        name = self.handles.get(arg.id)
        if name is None:
            raise PassError(f"'{arg.name_hint}' has no value here", where)
        return name

    def _emit_prefetch_context(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling,
                               where: Span) -> None:
        """`prefetch.make_context()`: `pto.make_prefetch_async_context` over the hidden SDMA
        workspace parameter."""
        assert self.sdma_workspace is not None  # `prepare` adds it for every make_context
        ctx = self._prefetch_result(target)
        self.line(f"{ctx} = {sp.pto}({self.sdma_workspace} : !pto.ptr<i8>) -> {PREFETCH_CONTEXT_TYPE}")

    def _emit_prefetch(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling,
                       where: Span) -> None:
        """`prefetch.async_prefetch(src, ctx)`: a `pto.partition_view` of the whole tensor,
        then `pto.tprefetch_async` of it, whose event the result names."""
        args = call_arguments(c, sp, where)
        tensor = args.get("src")
        if not isinstance(tensor, ir.Var) or not isinstance(tensor.type, ir.TensorType):
            raise PassError("prefetch.async_prefetch prefetches a whole tensor", where)
        dims = self.tensor_types[tensor.id].shape
        if not all(isinstance(d, int) for d in dims) or any(d != 1 for d in dims[:-1]):
            # the reference's and ptoas's own check (verifyAsyncFlatContiguous1DGMViewLike): one
            # flat contiguous run of GM of a static size
            shown = ", ".join(str(d) if isinstance(d, int) else format_expr(d) for d in dims)
            raise PassError(f"prefetch.async_prefetch prefetches a flat region of a static size: every "
                            f"dimension of '{tensor.name_hint}' but the last must be 1, got [{shown}]; "
                            "reshape the tensor to [N] or [1, ..., N] first", where)
        ctx = self._prefetch_handle(args["ctx"], "prefetch.make_context", where)
        pv_name, pv = self._whole_partition(tensor, where)
        event = self._prefetch_result(target)
        self.line(f"{event} = {sp.pto}({pv_name}, {ctx} : {pv}, {PREFETCH_CONTEXT_TYPE}) -> "
                  f"{ASYNC_EVENT_TYPE}")

    def _emit_prefetch_session(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling,
                               where: Span) -> None:
        """`prefetch.session(ctx)`: `pto.get_prefetch_async_session`, a projection of the context."""
        args = call_arguments(c, sp, where)
        ctx = self._prefetch_handle(args["ctx"], "prefetch.make_context", where)
        session = self._prefetch_result(target)
        self.line(f"{session} = {sp.pto} {ctx} : {PREFETCH_CONTEXT_TYPE} -> {ASYNC_SESSION_TYPE}")

    def _emit_prefetch_wait(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling,
                            where: Span) -> None:
        """`prefetch.wait(event, session)`: `pto.comm.wait_async_event`, whose `i1` done flag the
        result (a pl.BOOL scalar) names."""
        args = call_arguments(c, sp, where)
        event = self._prefetch_handle(args["event"], "prefetch.async_prefetch", where)
        session = self._prefetch_handle(args["session"], "prefetch.session", where)
        done = self._prefetch_result(target)
        self.line(f"{done} = {sp.pto}({event}, {session} : {ASYNC_EVENT_TYPE}, {ASYNC_SESSION_TYPE}) -> i1")
        self.values[done] = self.graph.opaque(done, "i1")

    # -- communication (distributed kernels, `lowering/dist_comm.py`) -----------------------

    def _emit_cacheinvalid(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling,
                           where: Span) -> None:
        """`system.cacheinvalid(t, shapes, offsets)`: a `pto.partition_view` of the region and
        `pto.cmo.cacheinvalid %pv single_cache_line`; without arguments, all of GM."""
        if not c.args and not c.kwargs:
            self.line("pto.cmo.cacheinvalid all #pto.address_space<gm>")
            return
        args = call_arguments(c, sp, where)
        tensor, shapes = args.get("tensor"), args.get("shapes")
        if not isinstance(tensor, ir.Var) or not isinstance(tensor.type, ir.TensorType) or \
                not isinstance(shapes, ir.ExprList) or not isinstance(args.get("offsets"), ir.ExprList):
            raise PassError("system.cacheinvalid takes a tensor, a shape and offsets", where)
        pv_name, pv = self._partition(tensor, args["offsets"], shapes.items, where)
        self.line(f"{sp.pto} {pv_name} single_cache_line : {pv}")

    def _emit_fence(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling, where: Span) -> None:
        """`system.fence`: `pto.fence.barrier_all #pto.fence_scope<gm>` (a GM release fence)."""
        self.line(f"{sp.pto} #pto.fence_scope<gm>")

    def _window(self, t: ir.CallArg | None, op: str, where: Span) -> tuple[ir.Var, str]:
        """A distributed tensor argument and its tensor view (whose base pointer and context
        the view records)."""
        if not isinstance(t, ir.Var) or not isinstance(t.type, ir.TensorType) or not t.type.distributed:
            raise PassError(f"{op} takes a distributed tensor (a pld.DistributedTensor parameter or a store "
                            "into one)", where)
        view = self.tensor_view(t)
        if view not in self.view_ctx or view not in self.view_ptrs:
            raise PassError(f"{op}: '{t.name_hint}' is not a view of a distributed tensor parameter with a "
                            "communication context", where)
        return t, view

    def _peer_view(self, view: str, ttype: ir.TensorType, peer: ir.CallArg | None, where: Span) -> str:
        """The peer rank's copy of a window: the element distance between the peer's and this
        rank's window base, read from the CommContext (`rankId`: u64 slot 2, low 32 bits;
        `windowsIn[r]`: u64 slot 4 + r), added to the local pointer (`pto.addptr`), viewed with
        the local view's shape, strides and layout, as the reference emits it inline."""
        if not _is_scalar_expr(peer) or not ir.expr_dtype(peer).is_int:  # type: ignore[arg-type]
            raise PassError("the peer rank must be an integer scalar", where)
        bits = ttype.dtype.bits
        if bits < 8 or bits % 8 != 0:
            raise PassError(f"a remote access of a pl.{ttype.dtype.value} window (elements are not whole "
                            "bytes) has no element offset", where)
        ctx, ptr = self.view_ctx[view], self.view_ptrs[view]
        peer_idx = self.index_value(peer)  # type: ignore[arg-type]
        slot_rank, slot_windows = self.const(2, ir.DType.INDEX), self.const(4, ir.DType.INDEX)
        ptr_t = f"!pto.ptr<{ttype.dtype.mlir}>"
        names = [self.new_tmp() for _ in range(10)]
        pair, rank32, rank, loff, lbase, poff, pbase, dbytes, delems64, delems = names
        esize = self.const(bits // 8, ir.DType.INT64)
        for text in (
            f"{pair} = pto.load_scalar {ctx}[{slot_rank}] : !pto.ptr<i64> -> i64",
            f"{rank32} = arith.trunci {pair} : i64 to i32",
            f"{rank} = arith.index_cast {rank32} : i32 to index",
            f"{loff} = arith.addi {slot_windows}, {rank} : index",
            f"{lbase} = pto.load_scalar {ctx}[{loff}] : !pto.ptr<i64> -> i64",
            f"{poff} = arith.addi {slot_windows}, {peer_idx} : index",
            f"{pbase} = pto.load_scalar {ctx}[{poff}] : !pto.ptr<i64> -> i64",
            f"{dbytes} = arith.subi {pbase}, {lbase} : i64",
            f"{delems64} = arith.divsi {dbytes}, {esize} : i64",
            f"{delems} = arith.index_cast {delems64} : i64 to index",
        ):
            self.line(text)
        peer_ptr = self.new_tmp()
        self.line(f"{peer_ptr} = pto.addptr {ptr}, {delems} : {ptr_t} -> {ptr_t}")
        return self._make_view(ttype, peer_ptr, self.new_tmp()[1:])

    def _emit_comm_rank(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling,
                        where: Span) -> None:
        """`pld.system.rank(ctx)` / `pld.system.nranks(ctx)`: the CommContext's (rankId, rankNum)
        u64 slot (slot 2) read with `pto.load_scalar`; `rankId` is its low 32 bits
        (`arith.trunci` to `i32`), `rankNum` its high 32 bits (`arith.shrui` by 32 first), as the
        reference's backend emits them."""
        if target is None:
            raise PassError(f"{c.op} must be assigned to a scalar", where)
        ctx_arg = c.args[0] if c.args else None
        ctx = self.arg_of.get(ctx_arg.id) if isinstance(ctx_arg, ir.Var) and is_comm_ctx(ctx_arg) else None
        if ctx is None:
            raise PassError(f"{c.op} reads the communication context of a pld.DistributedTensor parameter "
                            "(pld.system.get_comm_ctx of one)", where)
        pair = self.new_tmp()
        self.line(f"{pair} = {sp.pto} {ctx}[{self.const(2, ir.DType.INDEX)}] : !pto.ptr<i64> -> i64")
        self.values[pair] = self.graph.opaque(pair, "i64")
        if c.op == "pld.system.nranks":
            pair = self.arith("shrui", [pair, self.const(32, ir.DType.INT64)], "i64")
        self.handles[target.id] = self.arith("trunci", [pair], "i32", cast_from="i64")

    def _i32(self, value: ir.CallArg | None, op: str, where: Span) -> str:
        """A signal value as ptoas's comm ops take it (`i32`)."""
        folds = self.mode is Mode.SLOTSAT  # an INDEX literal folds to the same i32; the reference casts it
        if isinstance(value, ir.ConstInt) and (value.dtype is not ir.DType.INDEX or folds):
            return self.const(value.value, ir.DType.INT32)
        dtype = ir.expr_dtype(value) if _is_scalar_expr(value) else None  # type: ignore[arg-type]
        if dtype is ir.DType.INT32:
            return self.lower(value)  # type: ignore[arg-type]
        if dtype is ir.DType.INDEX:
            return self.arith("index_cast", [self.lower(value)], "i32", cast_from="index")  # type: ignore[arg-type]
        got = "a non-scalar" if dtype is None else f"pl.{dtype.value}"
        raise PassError(f"slotsat's code generator passes the value of {op} only as a literal, a pl.INT32 "
                        f"or a pl.INDEX scalar, got {got}", where)

    def _signal_cell(self, view: str, ttype: ir.TensorType, offsets: ir.CallArg | None, op: str,
                     where: Span) -> tuple[str, str]:
        if not isinstance(offsets, ir.ExprList):
            raise PassError(f"{op} takes a list of offsets", where)
        ones = [ir.ConstInt(1, ir.DType.INDEX)] * len(ttype.shape)
        return self._partition_view(view, ttype, offsets, ones, where)

    def _emit_notify(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling, where: Span) -> None:
        """`pld.system.notify(signal, peer, offsets, value, op=)`: the peer's signal cell
        (`_peer_view`, a 1 x ... x 1 partition), every local pipe drained (`pto.barrier
        <PIPE_ALL>`), then `pto.comm.tnotify(%cell, %value : PV, i32) {notifyOp = ...}`."""
        args = call_arguments(c, sp, where)
        signal, view = self._window(args.get("target"), c.op, where)
        ttype = self.tensor_types[signal.id]
        peer_view = self._peer_view(view, ttype, args.get("peer"), where)
        cell, cell_t = self._signal_cell(peer_view, ttype, args.get("offsets"), c.op, where)
        value = self._i32(args.get("value"), c.op, where)
        attrs = self._attr_dict(c, sp, where)
        self.line("pto.barrier <PIPE_ALL>")
        self.line(f"{sp.pto}({cell}, {value} : {cell_t}, i32){attrs}")

    def _emit_wait(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling, where: Span) -> None:
        """`pld.system.wait(signal, offsets, expected, cmp=)`: this rank's own signal cell, then
        `pto.comm.twait(%cell, %expected : PV, i32) {cmp = ...}` (insert-comm-fence puts the
        whole-GM invalidation after it)."""
        args = call_arguments(c, sp, where)
        signal, view = self._window(args.get("signal"), c.op, where)
        ttype = self.tensor_types[signal.id]
        cell, cell_t = self._signal_cell(view, ttype, args.get("offsets"), c.op, where)
        expected = self._i32(args.get("expected"), c.op, where)
        attrs = self._attr_dict(c, sp, where)
        self.line(f"{sp.pto}({cell}, {expected} : {cell_t}, i32){attrs}")

    def _emit_remote_load(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling,
                          where: Span) -> None:
        """`pld.tile.remote_load(target, peer, offsets, shape[, valid_shape])`: the peer's copy
        of the window (`_peer_view`), a partition of the result tile's valid region at
        `offsets`, and `pto.tload` from it into the result tile."""
        if target is None or not isinstance(target.type, ir.TileType):
            raise PassError(f"a {c.op} result must be assigned to a tile", where)
        args = call_arguments(c, sp, where)
        window, view = self._window(args.get("target"), c.op, where)
        if not isinstance(args.get("offsets"), ir.ExprList):
            raise PassError(f"{c.op} takes a list of offsets", where)
        dst = self.define_tile(target)
        ttype = self.tensor_types[window.id]
        peer_view = self._peer_view(view, ttype, args.get("peer"), where)
        valid = target.type.effective_valid_shape
        pv_name, pv = self._partition_view(peer_view, ttype, args["offsets"], valid, where)
        dst_t = self.handle_types.get(dst, tile_type_string(target.type))
        self.line(f"{sp.pto} ins({pv_name} : {pv}) outs({dst} : {dst_t})")

    def _emit_remote_store(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling,
                           where: Span) -> None:
        """`pld.tile.remote_store(tile, target, peer, offsets, atomic=)`: the peer's copy of the
        window, a partition of the tile's valid region (leading dimensions of extent 1 for a
        window of higher rank), `pto.tstore` into it, then the invalidation of those peer lines
        (`pto.cmo.cacheinvalid %pv single_cache_line`: the peer address exists only here, so the
        reference's code generator emits it; insert-comm-fence puts the GM fence after it)."""
        args = call_arguments(c, sp, where)
        tile_arg = args.get("src_tile")
        if not isinstance(tile_arg, ir.Var) or not isinstance(tile_arg.type, ir.TileType):
            raise PassError(f"{c.op} stores a tile", where)
        window, view = self._window(args.get("target"), c.op, where)
        ttype = self.tensor_types[window.id]
        valid = tile_arg.type.effective_valid_shape
        if len(valid) != 2 or len(ttype.shape) < 2:
            raise PassError(f"{c.op} stores a 2-D tile into a window of rank 2 or more", where)
        if not isinstance(args.get("offsets"), ir.ExprList):
            raise PassError(f"{c.op} takes a list of offsets", where)
        attrs = self._attr_dict(c, sp, where)
        if attrs and ttype.dtype is ir.DType.BF16 and self.backend is not Backend.ASCEND910B:
            raise PassError(f"{c.op} with atomic=pl.AtomicType.Add into a pl.BF16 window needs the 910b "
                            "backend (the reference rejects it elsewhere)", where)
        src, src_t = self._tile_arg(tile_arg)
        peer_view = self._peer_view(view, ttype, args.get("peer"), where)
        sizes = [ir.ConstInt(1, ir.DType.INDEX)] * (len(ttype.shape) - 2) + list(valid)
        pv_name, pv = self._partition_view(peer_view, ttype, args["offsets"], sizes, where)
        self.line(f"{sp.pto} ins({src} : {src_t}) outs({pv_name} : {pv}){attrs}")
        self.line(f"pto.cmo.cacheinvalid {pv_name} single_cache_line : {pv}")

    def _emit_put(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling, where: Span) -> None:
        """`pld.tile.put(dst, peer, src, stage[, stage2][, dst_offsets, src_offsets, shape])`: the
        peer's copy of window `dst` and this rank's tensor `src`, each partitioned over the
        transfer (the whole tensor, or the region), every pipe drained, `pto.comm.tput(%dst_pv,
        %src_pv, buf(%stage[, %stage2]) : ...) {atomicType = ...}` through the staging tile(s),
        the pipes drained again (the transfer lands before a later notify), then the
        invalidation of the peer lines, as the reference's backend emits it."""
        self._transfer(c, sp, where, remote_dst=True)

    def _emit_get(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling, where: Span) -> None:
        """`pld.tile.get(dst, peer, src, stage[, stage2][, dst_offsets, src_offsets, shape])`: this
        rank's tensor `dst` and the peer's copy of window `src`, each partitioned over the
        transfer (the whole of `dst`, or the region), every pipe drained, `pto.comm.tget(%dst_pv,
        %src_pv, buf(%stage[, %stage2]) : ...)` through the staging tile(s), the pipes drained
        again (a later local read does not race the last chunk), as the reference's backend
        emits it."""
        self._transfer(c, sp, where, remote_dst=False)

    def _transfer(self, c: ir.Call, sp: pto_spelling.Spelling, where: Span, *, remote_dst: bool) -> None:
        """`pld.tile.put` (`remote_dst`: into a peer's window) and `pld.tile.get` (out of one)."""
        args = [a for a in c.args if not isinstance(a, ir.DTypeArg | ir.SpaceArg)]
        n = len(args)
        if n not in (4, 5, 7, 8):
            raise PassError(f"{c.op} takes 4, 5, 7 or 8 arguments (dst, peer, src, stage[, stage2][, "
                            f"dst_offsets, src_offsets, shape]), got {n}", where)
        window, view = self._window(args[0] if remote_dst else args[2], c.op, where)
        local = args[2] if remote_dst else args[0]
        if not isinstance(local, ir.Var) or not isinstance(local.type, ir.TensorType):
            raise PassError(f"{c.op} copies {'from' if remote_dst else 'into'} a tensor", where)
        local_view = self.tensor_view(local)
        # the whole transfer is the shape of the copy's destination
        ttype = self.tensor_types[window.id] if remote_dst else self.tensor_types[local.id]
        rank = len(ttype.shape)
        stage_args = args[3:5 if n in (5, 8) else 4]
        if not all(isinstance(a, ir.Var) and isinstance(a.type, ir.TileType) for a in stage_args):
            raise PassError(f"{c.op} copies through staging tiles: argument 4 (and 5 of the double-staged "
                            "form) must be a tile", where)
        stages = [self._tile_arg(a) for a in stage_args]
        transfer: Sequence[ir.Expr]
        if n in (7, 8):
            region = args[n - 3:]
            if not all(isinstance(r, ir.ExprList) and len(r.items) == rank for r in region):
                raise PassError(f"{c.op} takes rank-{rank} lists of destination offsets, source offsets and "
                                "the transfer shape", where)
            dst_offs, src_offs = self._offsets(region[0]), self._offsets(region[1])
            shape = region[2]
            assert isinstance(shape, ir.ExprList)
            transfer = shape.items
        else:
            dst_offs = src_offs = [self.const(0, ir.DType.INDEX)] * rank
            transfer = [ir.ConstInt(d, ir.DType.INDEX) if isinstance(d, int) else d for d in ttype.shape]
        sizes = [self.index_value(e) for e in transfer]
        dims = []
        for e in transfer:
            folded = _try_fold(e)
            literal = ir.literal_value(folded) if isinstance(folded, ir.ConstInt) else None
            dims.append("?" if literal is None else str(literal))
        pt = f"!pto.partition_tensor_view<{'x'.join(dims)}x{ttype.dtype.mlir}>"
        attrs = self._attr_dict(c, sp, where)
        window_t, local_t = self.tensor_types[window.id], self.tensor_types[local.id]
        if remote_dst:
            peer_view = self._peer_view(view, window_t, args[1], where)
            dst_pv = self._partition_line(peer_view, window_t, dst_offs, sizes, pt)
            src_pv = self._partition_line(local_view, local_t, src_offs, sizes, pt)
        else:
            dst_pv = self._partition_line(local_view, local_t, dst_offs, sizes, pt)
            peer_view = self._peer_view(view, window_t, args[1], where)
            src_pv = self._partition_line(peer_view, window_t, src_offs, sizes, pt)
        bufs = ", ".join(h for h, _ in stages)
        buf_types = ", ".join(t for _, t in stages)
        self.line("pto.barrier <PIPE_ALL>")
        self.line(f"{sp.pto}({dst_pv}, {src_pv}, buf({bufs}) : {pt}, {pt}, {buf_types}){attrs}")
        self.line("pto.barrier <PIPE_ALL>")
        if remote_dst:
            self.line(f"pto.cmo.cacheinvalid {dst_pv} single_cache_line : {pt}")

    # -- cross-core pipes (`pto_ops_crosscore.cpp`) ------------------------------------

    def _pipe_checks(self, c: ir.Call, where: Span) -> None:
        """What every cross-core op needs: the PTOAS planner (slotsat's PYPTO planner does not
        keep a pipe's reserved slot buffer out of its tiles' addresses) and an AIC / AIV
        function (the halves ExpandMixedKernel makes)."""
        if self.planner is not Planner.PTOAS:
            raise PassError(f"slotsat's code generator emits {c.op} only under the ptoas planner (its pypto "
                            "planner does not reserve the pipe's slot buffer)", where)
        if self.fn.type not in (ir.FunctionType.AIC, ir.FunctionType.AIV):
            raise PassError(f"{c.op} belongs in an AIC or AIV function (the halves of a mixed kernel), not "
                            f"in the {self.fn.type.value} function '{self.fn.name}'", where)

    def _int_keyword(self, c: ir.Call, key: str, where: Span, *, required: bool = True,
                     minimum: int = 0) -> int | None:
        value = c.kwarg(key)
        if value is None:
            if required:
                raise PassError(f"{c.op} needs its '{key}' keyword", where)
            return None
        if not isinstance(value, ir.ConstInt) or value.value < minimum:
            raise PassError(f"{c.op}: '{key}' must be an integer literal of at least {minimum}", where)
        return value.value

    def _pipe_attrs(self, c: ir.Call, where: Span, *, split_default: int | None) -> tuple[str, int]:
        """`{[id = I, ]split = S}` (the reference's FormatFrontendPipeAttrs) and the split."""
        lane = c.kwarg("lane_stride")
        if lane is not None and not _matches_default(lane, 0):
            raise PassError(f"slotsat's code generator does not support {c.op} with keyword 'lane_stride'",
                            where)
        pipe_id = self._int_keyword(c, "id", where, required=False)
        if c.kwarg("split") is None and split_default is not None:
            split = split_default
        else:
            split = self._int_keyword(c, "split", where)  # type: ignore[assignment]
        assert split is not None
        if split not in PIPE_SPLITS:
            raise PassError(f"{c.op} split must be 0 (none), 1 (up-down), 2 (left-right), 3 (up-down, odd) "
                            f"or 4 (left-right, odd), got {split}", where)
        head = "" if pipe_id is None else f"id = {pipe_id}, "
        return f"{{{head}split = {split}}}", split

    def _pipe_buffer(self, arg: ir.CallArg | None, c: ir.Call, where: Span) -> str:
        """An `i32` consumer-buffer operand: a literal placeholder or a reserved / imported
        buffer's value."""
        if isinstance(arg, ir.ConstInt):
            return self.const(arg.value, ir.DType.INT32)
        if isinstance(arg, ir.Var) and isinstance(arg.type, ir.ScalarType) \
                and arg.type.dtype is ir.DType.INT32 and arg.id in self.handles:
            return self.handles[arg.id]
        raise PassError(f"{c.op}: a consumer buffer is an integer literal or a pl.INT32 reserve_buffer / "
                        "import_peer_buffer result", where)

    def _named_result(self, target: ir.Var | None, c: ir.Call, where: Span) -> str:
        if target is None or not isinstance(target.type, ir.ScalarType) \
                or target.type.dtype is not ir.DType.INT32:
            raise PassError(f"{c.op} must be assigned to a pl.INT32 scalar", where)
        name = f"%{self.var_name(target)}"
        self.handles[target.id] = name
        self.values[name] = self.graph.opaque(name, "i32")
        return name

    def _buffer_name(self, c: ir.Call, key: str, where: Span) -> str:
        value = c.kwarg(key)
        if not isinstance(value, ir.StrArg) or not _MLIR_NAME.fullmatch(value.value) or "$" in value.value \
                or "." in value.value:
            raise PassError(f"{c.op} needs a '{key}' keyword that is an identifier", where)
        return value.value

    def _emit_reserve_buffer(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling,
                             where: Span) -> None:
        """`%b = pto.reserve_buffer {name = "N", size = S, location = #pto.address_space<mat|vec>,
        auto = true} -> i32`: under the ptoas planner ptoas places the region (`auto = true`,
        no `base`, whatever `base=` says: ptoas rejects both), in the Mat buffer of an AIC
        function and the Vec buffer of an AIV function."""
        self._pipe_checks(c, where)
        name = self._buffer_name(c, "name", where)
        size = self._int_keyword(c, "size", where, minimum=1)
        self._int_keyword(c, "base", where, required=False, minimum=-1)  # pl.AUTO or an address ptoas replans
        location = "mat" if self.fn.type is ir.FunctionType.AIC else "vec"
        result = self._named_result(target, c, where)
        self.line(f'{result} = {sp.pto} {{name = "{name}", size = {size}, location = '
                  f"#pto.address_space<{location}>, auto = true}} -> i32")

    def _emit_import_peer_buffer(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling,
                                 where: Span) -> None:
        """`%b = pto.import_reserved_buffer {name = "N", peer_func = @f} -> i32`: the peer
        kernel's reserved buffer, the peer named by its symbol in this module."""
        self._pipe_checks(c, where)
        name = self._buffer_name(c, "name", where)
        peer = self._buffer_name(c, "peer_func", where)
        symbol = self.pipes.symbols.get(peer)
        if symbol is None:
            raise PassError(f"{c.op}: peer_func '{peer}' is not a kernel function of this program", where)
        result = self._named_result(target, c, where)
        self.line(f'{result} = {sp.pto} {{name = "{name}", peer_func = @{symbol}}} -> i32')

    def _emit_initialize_pipe(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling,
                              where: Span) -> None:
        """`pto.aX_initialize_pipe {[id = I, ]dir_mask = D, slot_size = S[, slot_num = N][,
        local_slot_num = L]}` and its operands `([gm_slot_buffer = %p : !pto.ptr<f32>, ]
        c2v_consumer_buf = %a : i32, v2c_consumer_buf = %b : i32)`, on a line of their own
        when the function has the GM slot buffer (`__gm_pipe_buffer`), as the reference prints
        them. The GM buffer holds every pipe of the program one after the other (by pipe id,
        then direction); slotsat emits the first pipe's region (offset 0) and declines the
        others (the reference offsets them with a `pto.addptr`)."""
        self._pipe_checks(c, where)
        args = call_arguments(c, sp, where)
        pipe_id = self._int_keyword(c, "id", where, required=False)
        dir_mask = self._int_keyword(c, "dir_mask", where)
        slot_size = self._int_keyword(c, "slot_size", where, minimum=1)
        if dir_mask not in (1, 2, 3):
            raise PassError(f"{c.op} dir_mask must be 1 (cube to vector), 2 (vector to cube) or 3 (both), "
                            f"got {dir_mask}", where)
        parts = [] if pipe_id is None else [f"id = {pipe_id}"]
        parts += [f"dir_mask = {dir_mask}", f"slot_size = {slot_size}"]
        for key in ("slot_num", "local_slot_num"):
            count = self._int_keyword(c, key, where, required=False, minimum=1)
            if count is not None:
                parts.append(f"{key} = {count}")
        c2v = self._pipe_buffer(args.get("c2v_consumer_buf"), c, where)
        v2c = self._pipe_buffer(args.get("v2c_consumer_buf"), c, where)
        operands = f"c2v_consumer_buf = {c2v} : i32, v2c_consumer_buf = {v2c} : i32)"
        pipe = (pipe_id or 0, dir_mask)
        region = None if self.gm_pipe_arg is None else self._gm_pipe_region(pipe, c, where)
        inline = "" if region is not None else f" ({operands}"
        self.line(f"{sp.pto} {{{', '.join(parts)}}}{inline}")
        if region is not None:
            self.line(f"    (gm_slot_buffer = {region} : !pto.ptr<f32>, {operands}")

    def _gm_pipe_region(self, pipe: tuple[int, int], c: ir.Call, where: Span) -> str:
        """The pipe's region of the GM slot buffer: the buffer itself for the first pipe, else
        `pto.addptr` by the region's element offset (once per pipe and function)."""
        assert self.gm_pipe_arg is not None
        offset = self.pipes.offsets.get(pipe)
        if offset is None:
            raise PassError(f"{c.op}: pipe id {pipe[0]} (dir_mask {pipe[1]}) has no GM slot region", where)
        if offset == 0:
            return self.gm_pipe_arg
        name = self.gm_regions.get(pipe)
        if name is None:
            name = self.new_tmp()
            # ptoas reads the full type as well as the stripped `<f32>` the reference prints
            self.line(f"{name} = pto.addptr {self.gm_pipe_arg}, {self.const(offset, ir.DType.INDEX)} : "
                      "!pto.ptr<f32> -> !pto.ptr<f32>")
            self.gm_regions[pipe] = name
        return name

    def _emit_tpush(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling, where: Span) -> None:
        """`pto.tpush_to_X(%t : TB) {[id = I, ]split = S}`. Where the reference moves the full
        transport box (a split push, or a no-split push of an Acc tile to the vector side or of
        a dual-AIV-dispatch function, whose valid extent is narrower than the box:
        `_push_transport`), the push is bracketed by `pto.set_validshape` to the box and back
        to the tile's valid extent, as the reference emits it."""
        self._pipe_checks(c, where)
        attrs, split = self._pipe_attrs(c, where, split_default=None)
        to_aic = c.op.endswith("_aic")
        if to_aic and split in ODD_SPLITS:
            raise PassError(f"{c.op}: no odd split for the vector to cube direction (split = {split})", where)
        tile = c.args[0] if c.args else None
        if not isinstance(tile, ir.Var) or not isinstance(tile.type, ir.TileType):
            raise PassError(f"{c.op} takes a tile", where)
        handle = self.handle(tile)
        type_ = self.handle_types.get(handle, tile_type_string(tile.type))
        dual = _truthy_attr(dict(self.fn.attrs).get("dual_aiv_dispatch"))
        box = _push_transport(tile.type, split, to_aic=to_aic, dual=dual)
        if box is not None and (handle in self.view_names or handle in self.subview_names):
            raise PassError(f"slotsat's code generator does not widen {c.op}'s valid extent on a tile view "
                            "(a slice or reshape result) for the transport", where)
        if box is not None:
            rows, cols = box
            self.line(f"pto.set_validshape {handle}, {self.index_value(rows)}, {self.index_value(cols)} : "
                      f"{type_}")
        self.line(f"{sp.pto}({handle} : {type_}) {attrs}")
        if box is not None:
            rows, cols = valid_extents(tile.type)
            self.line(f"pto.set_validshape {handle}, {self.index_value(rows)}, {self.index_value(cols)} : "
                      f"{type_}")

    def _emit_tpop(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling, where: Span) -> None:
        """`%t = pto.tpop_from_X[(%valid_row, %valid_col)] {[id = I, ]split = S} -> TB`: the
        popped tile is the pipe's slot (no buffer of its own); the valid extents are operands
        where they are dynamic or differ from the box. A vector-side pop of a static, non-empty
        extent narrower than the box pops the full box and reshapes it to that extent
        (`%tpop_transport`, then `%tpop_logical = pto.treshape`), as the reference does (the
        FIFO copies the physical box)."""
        self._pipe_checks(c, where)
        attrs, split = self._pipe_attrs(c, where, split_default=0)
        from_aiv = c.op.endswith("_aiv")
        if from_aiv and split in ODD_SPLITS:
            raise PassError(f"{c.op}: no odd split for the vector to cube direction (split = {split})", where)
        if target is None or not isinstance(target.type, ir.TileType) or len(target.type.shape) != 2:
            raise PassError(f"{c.op} must be assigned to a two-dimensional tile", where)
        tile = target.type
        key = self.live.find(target.id)
        buffer = self.live.buffer(target)
        sharing = [m for m in (buffer.members if buffer is not None else ()) if m.id != target.id
                   and self.live.find(m.id) == key]
        if self.handles.get(key) is not None or sharing:
            # the popped tile is the pipe's slot: a tile sharing its buffer would write the slot
            raise PassError(f"slotsat's code generator does not pop {c.op} into a buffer another tile shares",
                            where)
        rows, cols = (fold(e) for e in valid_extents(tile))
        box = tuple(tile.shape)
        valid = (rows.value, cols.value) if isinstance(rows, ir.ConstInt) and isinstance(cols, ir.ConstInt) \
            else None
        name = f"%{self.var_name(target)}"
        type_ = tile_type_string(tile)
        if valid is not None and valid == box:
            if split in ODD_SPLITS:
                raise PassError(f"{c.op} with an odd split needs per-lane valid extents", where)
            self.line(f"{name} = {sp.pto} {attrs} -> {type_}")
        elif valid is not None and 0 not in valid and not from_aiv and split not in ODD_SPLITS \
                and (tile.memory_space or ir.MemorySpace.Vec) is ir.MemorySpace.Vec \
                and all(isinstance(d, int) for d in box):
            transport = f"%{self.fresh_name('tpop_transport')}"
            full = ", ".join(self.const(d, ir.DType.INDEX) for d in box)  # type: ignore[arg-type]
            self.line(f"{transport} = {sp.pto}({full}) {attrs} -> {type_}")
            logical_type = tile_type_string(tile, valid)
            name = f"%{self.fresh_name('tpop_logical')}"
            self.line(f"{name} = pto.treshape {transport} : {type_} -> {logical_type}")
            self.view_names.add(name)
            self.view_root[name] = transport
            type_ = logical_type
        else:
            extent = f"{self.index_value(rows)}, {self.index_value(cols)}"
            self.line(f"{name} = {sp.pto}({extent}) {attrs} -> {type_}")
        self.handle_types[name] = type_
        self.handles[self.live.find(target.id)] = name
        self.handles[target.id] = name

    def _emit_tfree(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling, where: Span) -> None:
        """`pto.tfree_from_X {[id = I, ]split = S}`: the popped slot given back (its split the
        pop's, which the reference's StampTfreeSplit copies onto the call)."""
        self._pipe_checks(c, where)
        attrs, _ = self._pipe_attrs(c, where, split_default=None)
        self.line(f"{sp.pto} {attrs}")

    def _emit_syncall(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling,
                      where: Span) -> None:
        """`pto.syncall() mode = #pto.sync_all_mode<hard>, core_type = #pto.sync_core_type<C>`:
        the hard (FFTS) barrier of every participating core. The soft form (a GM-polling
        barrier over a workspace tensor) is declined."""
        given = {k: _keyword_text(v) for k, v in c.kwargs}
        mode, core_type = given.get("mode", "hard"), given.get("core_type", "mix")
        if core_type not in SYNC_CORE_TYPES:
            raise PassError(f"system.syncall: core_type must be one of {', '.join(SYNC_CORE_TYPES)}, "
                            f"got {core_type!r}", where)
        if mode == "soft":
            raise PassError("slotsat's code generator does not emit system.syncall's soft form (a barrier "
                            "polling a GM workspace)", where)
        if mode != "hard":
            raise PassError(f"system.syncall: mode must be 'hard' or 'soft', got {mode!r}", where)
        if c.args:
            raise PassError("system.syncall's hard form takes no arguments", where)
        self.line(f"{sp.pto}() mode = #pto.sync_all_mode<hard>, core_type = #pto.sync_core_type<{core_type}>")

    def _emit_cross_core_sync(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling,
                              where: Span) -> None:
        """`pto.sync.set|wait <PIPE_X>, EVENT[ {ffts_mode = M : i32}]`: a cross-core event on a
        pipe, EVENT a literal in 0..13 (`event_id=`) or a dynamic `pl.INDEX` argument, exactly
        one of them; `ffts_mode` (0..2) only on a set."""
        pipe = c.kwarg("pipe")
        name: str | None = None
        if isinstance(pipe, ir.EnumArg) and pipe.enum.endswith("PipeType"):
            name = pipe.member
        elif isinstance(pipe, ir.ConstInt) and 0 <= pipe.value < len(PIPE_TYPES):
            name = PIPE_TYPES[pipe.value]
        if name not in PIPE_TYPES:
            raise PassError(f"{c.op} needs a pipe=pl.PipeType.X keyword", where)
        static = c.kwarg("event_id")
        if (static is None) == (not c.args):
            raise PassError(f"{c.op} takes exactly one of an event_id= literal and a dynamic event id", where)
        if static is not None:
            if not isinstance(static, ir.ConstInt) or not 0 <= static.value <= 13:
                raise PassError(f"{c.op}: event_id must be a literal in 0..13 (14 and 15 are reserved)",
                                where)
            event = str(static.value)
        else:
            dyn = c.args[0]
            if not _is_scalar_expr(dyn) or ir.expr_dtype(dyn) is not ir.DType.INDEX:  # type: ignore[arg-type]
                raise PassError(f"{c.op}: a dynamic event id must be a pl.INDEX scalar", where)
            event = self.lower(dyn)  # type: ignore[arg-type]
        tail = ""
        mode = c.kwarg("ffts_mode")
        if mode is not None:
            if c.op != "system.sync_set":
                raise PassError(f"{c.op} does not take ffts_mode", where)
            if not isinstance(mode, ir.ConstInt) or not 0 <= mode.value <= 2:
                raise PassError(f"{c.op}: ffts_mode must be a literal in 0..2", where)
            tail = f" {{ffts_mode = {mode.value} : i32}}"
        self.line(f"{sp.pto} <PIPE_{name}>, {event}{tail}")

    def _emit_set_ffts(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling,
                       where: Span) -> None:
        """`pto.set_ffts %argK : !pto.ptr<i64>`: a one-dimensional pl.INT64 workspace parameter
        of at least 256 elements, passed as a raw pointer."""
        ws = c.args[0] if len(c.args) == 1 else None
        if not isinstance(ws, ir.Var) or ws.id not in self.ffts_params:
            raise PassError("system.set_ffts takes one workspace tensor parameter of the function", where)
        t = ws.type
        assert isinstance(t, ir.TensorType)
        extent = t.shape[0] if len(t.shape) == 1 else None
        if t.dtype is not ir.DType.INT64 or not isinstance(extent, int) or extent < 256:
            raise PassError("system.set_ffts's workspace must be a one-dimensional pl.INT64 tensor of at "
                            "least 256 elements", where)
        self.line(f"{sp.pto} {self.arg_of[ws.id]} : !pto.ptr<i64>")

    def _partition_line(self, view: str, ttype: ir.TensorType, offsets: Sequence[str], sizes: Sequence[str],
                        pv: str) -> str:
        name = self.new_tmp()
        tv = "x".join("?" for _ in ttype.shape)
        self.line(f"{name} = pto.partition_view {view}, offsets = [{', '.join(offsets)}], sizes = "
                  f"[{', '.join(sizes)}] : !pto.tensor_view<{tv}x{ttype.dtype.mlir}> -> {pv}")
        return name

    def _emit_reshape(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling,
                      where: Span) -> None:
        self._view(target, c, where)

    def _emit_subview(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling,
                      where: Span) -> None:
        self._view(target, c, where)

    def _view(self, target: ir.Var | None, c: ir.Call, where: Span) -> None:
        """`pto.treshape` / `pto.subview`: an SSA view of the source's buffer. The view takes
        no valid-extent operands, so its result type carries the static valid extent where it
        is known (ptoas builds the view's tile from the type alone; `v_row=?` would leave it
        empty), as the reference does; uses of the view are annotated with that type."""
        if target is None or not isinstance(target.type, ir.TileType):
            raise PassError(f"a {c.op} result must be assigned to a tile", where)
        src_arg = c.args[0]
        src, src_t = self._tile_arg(src_arg)
        assert isinstance(src_arg, ir.Var)
        assert isinstance(src_arg.type, ir.TileType)
        name = f"%{self.var_name(target)}"
        if c.op != "tile.slice":  # tile.reshape, tile.transpose_view: a re-typed view of the bytes
            rows, cols = (ir.literal_value(_try_fold(e)) for e in valid_extents(target.type))
            dst_t = tile_type_string(target.type, valid=(rows, cols) if rows is not None and cols is not None
                                     else (None, None))
            root = self.view_root.get(src, src)
            same = {src: src_t, root: self.handle_types.get(root, src_t)}
            alias = next((h for h, t in same.items() if t in (dst_t, tile_type_string(target.type))), None)
            if alias is not None:
                # the type of the source or of the buffer under it (a rank-1 tile as [1, C], a
                # reshape back to the buffer's shape): the result is that handle, no op, as the
                # reference emits it
                self.handles[target.id] = alias
                self.handles.setdefault(self.live.find(target.id), alias)
                return
            self.line(f"{name} = pto.treshape {src} : {src_t} -> {dst_t}")
            self.view_root[name] = root
        else:
            shape, offsets = c.args[1], c.args[2]
            explicit = c.args[3] if len(c.args) > 3 else c.kwarg("valid_shape")
            if not isinstance(shape, ir.ExprList) or not isinstance(offsets, ir.ExprList) \
                    or len(shape.items) != 2 or len(offsets.items) != 2:
                raise PassError("slotsat's code generator emits tile.slice of two dimensions only", where)
            sizes = [ir.literal_value(_try_fold(d)) for d in shape.items]
            if sizes[0] is None or sizes[1] is None:
                raise PassError("tile.slice needs a literal shape (ptoas's subview sizes are static)", where)
            size_rc = (sizes[0], sizes[1])
            offs = [self.index_value(e) for e in offsets.items]
            valid_clause = ""
            if isinstance(explicit, ir.ExprList) and explicit.items:
                if len(explicit.items) != 2:
                    raise PassError("tile.slice's valid_shape must have two entries", where)
                vr, vc = (ir.literal_value(_try_fold(e)) for e in explicit.items)
                names = [self.index_value(e) for e in explicit.items]
                valid_clause = f" valid [{names[0]}, {names[1]}]"
                static: tuple[int | None, int | None] = (vr, vc)
            else:
                static = _subview_valid(src_arg.type, size_rc, offsets.items)
            dst_t = tile_type_string(target.type, valid=static)
            self.line(f"{name} = pto.subview {src}[{', '.join(offs)}] sizes [{size_rc[0]}, {size_rc[1]}]"
                      f"{valid_clause} : {src_t} -> {dst_t}")
        self.view_names.add(name)
        if c.op == "tile.slice":
            self.subview_names.add(name)
            at = c.args[2]
            assert isinstance(at, ir.ExprList)
            if src in self.subview_bytes:  # a slice of a slice: the rows keep the buffer's pitch
                under, pitch = self.subview_bytes[src]
            elif src in self.view_names:
                under, pitch = None, src_arg.type.shape
            else:
                under, pitch = 0, src_arg.type.shape
            self.subview_bytes[name] = (_slice_bytes(src_arg.type, pitch, at.items, under), pitch)
            self.subview_base[name] = src
            self.subview_windows[name] = (src, src_t, offs, target.type)
        self.handle_types[name] = dst_t
        self.handles[target.id] = name
        self.handles.setdefault(self.live.find(target.id), name)

    def _emit_assemble(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling,
                       where: Span) -> None:
        """`tile.assemble(target, source, [r, c])`, whose result is the target's buffer: a
        `pto.subview` window of it at the offset (the source's shape, its valid extent as
        `valid [...]`) and `pto.tmov` of the source into the window, as the reference emits
        for a same-space assemble. From Acc into a BF16 / FP16 Mat tile it is the cube's fixpipe
        write-back, `pto.tinsert ins(%src, %row, %col : ..., index, index) outs(%dst : ...)`; from
        Acc into an FP32 Mat tile the window is typed as the Mat result. Other moves across spaces
        and a source that is a slice of the target itself are declined."""
        args = call_arguments(c, sp, where)
        dest, source, offset = args.get("target"), args.get("source"), args.get("offset")
        if target is None or not isinstance(target.type, ir.TileType) or not isinstance(dest, ir.Var) \
                or not isinstance(source, ir.Var) or not isinstance(source.type, ir.TileType) \
                or not isinstance(offset, ir.ExprList) or len(offset.items) != 2:
            raise PassError("tile.assemble takes a target tile, a source tile and a [row, col] offset", where)
        acc_to_mat = source.type.memory_space is ir.MemorySpace.Acc \
            and target.type.memory_space is ir.MemorySpace.Mat
        if source.type.memory_space != target.type.memory_space and not acc_to_mat:
            raise PassError("slotsat's code generator does not emit tile.assemble across memory spaces "
                            f"({source.type.memory_space} into {target.type.memory_space})", where)
        if acc_to_mat and pad_and_compact(source.type)[0] + pad_and_compact(target.type)[0]:
            raise PassError("tile.assemble from Acc into Mat cannot carry a pad value (a pto.subview does "
                            "not pad); pad the result with tile.fillpad instead", where)
        src, src_t = self._tile_arg(source)
        dst = self.handle(dest)
        if self.subview_base.get(src) == dst:
            # the reference elides a copy of a window onto itself; slotsat declines it
            raise PassError("slotsat's code generator does not emit tile.assemble of a slice of its own "
                            "target", where)
        self.handles[target.id] = dst  # the result is the target's buffer (the reference's table: a view)
        self.handles.setdefault(self.live.find(target.id), dst)
        dst_t = self.handle_types.get(dst, tile_type_string(dest.type))  # type: ignore[arg-type]
        rows, cols = source.type.rows_cols
        vr_e, vc_e = valid_extents(source.type)
        vr, vc = ir.literal_value(_try_fold(vr_e)), ir.literal_value(_try_fold(vc_e))
        offs = [self.index_value(e) for e in offset.items]
        if acc_to_mat and target.type.dtype in (ir.DType.BF16, ir.DType.FP16):
            # the cube's fixpipe write-back, which converts the accumulator to the Mat dtype
            self.line(f"pto.tinsert ins({src}, {offs[0]}, {offs[1]} : {src_t}, index, index) "
                      f"outs({dst} : {dst_t})")
            return
        # a window of the result typed as the result (an Acc-to-Mat move changes the layout)
        view_t = tile_type_string(target.type, valid=(vr, vc), dims=(rows, cols)) if acc_to_mat \
            else tile_type_string(source.type, valid=(vr, vc))
        valid = [self.index_value(vr_e), self.index_value(vc_e)]
        view = f"%{self.fresh_name('assemble_view')}"
        self.line(f"{view} = pto.subview {dst}[{', '.join(offs)}] sizes [{rows}, {cols}] "
                  f"valid [{', '.join(valid)}] : {dst_t} -> {view_t}")
        self.line(f"{sp.pto} ins({src} : {src_t}) outs({view} : {view_t})")

    def _emit_gather_row(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling,
                         where: Span) -> None:
        """`tile.gather_row(dst, src, dst_offset, src_offset, [R, C][, valid_shape], transpose=)`:
        one GM window loaded straight into a window of the destination, whose buffer the result
        is (in place). As the reference's backend emits it (`pto_ops_datamove.cpp`): a
        `pto.subview` of the destination at `dst_offset`, `[R, C]` (`[C, R]` transposed) rounded up
        to whole boxes of a boxed (Mat) layout, valid the transfer extent (`valid_shape`, else
        `[R, C]`, swapped when transposed); a `pto.partition_view` of the source at `src_offset`
        with the transfer extent; `pto.tload` into the window. Transposed, the source is first
        re-viewed column-major (`pto.make_tensor_view` with swapped shape, strides `[1, C]`,
        `#pto.layout<dn>`) and partitioned at the swapped offsets."""
        args = call_arguments(c, sp, where)
        dest, source = args.get("dst"), args.get("src")
        dst_off, src_off, shapes = args.get("dst_offset"), args.get("src_offset"), args.get("shapes")
        valid = args.get("valid_shape", shapes)
        if target is None or not isinstance(target.type, ir.TileType) or not isinstance(dest, ir.Var) \
                or not isinstance(dest.type, ir.TileType) or not isinstance(source, ir.Var) \
                or not isinstance(source.type, ir.TensorType) or not isinstance(dst_off, ir.ExprList) \
                or not isinstance(src_off, ir.ExprList) or not isinstance(shapes, ir.ExprList) \
                or not isinstance(valid, ir.ExprList):
            raise PassError("tile.gather_row takes a destination tile, a source tensor, two offsets and a "
                            "shape", where)
        if len(dst_off.items) != 2 or len(shapes.items) != 2 or len(valid.items) != 2:
            raise PassError("slotsat's code generator emits tile.gather_row of two dimensions only", where)
        transpose_arg = c.kwarg("transpose")
        transpose = transpose_arg is not None and _truthy(transpose_arg)
        r, cols = (ir.literal_value(_try_fold(e)) for e in shapes.items)
        if r is None or cols is None:
            raise PassError("tile.gather_row needs a literal shape (ptoas's subview sizes are static)", where)
        xfer = [valid.items[1], valid.items[0]] if transpose else list(valid.items)
        v_row, v_col = (ir.literal_value(_try_fold(e)) for e in xfer)
        if transpose and (v_row is None or v_col is None):
            raise PassError("tile.gather_row with transpose=True needs a literal valid shape", where)
        if transpose and len(source.type.shape) != 2:
            raise PassError("tile.gather_row with transpose=True reads a rank-2 tensor", where)
        sv_rows, sv_cols = (cols, r) if transpose else (r, cols)
        box = _box_alignment(dest.type)
        if box == (0, 0):
            raise PassError("tile.gather_row writes into a boxed layout with no box size (the reference "
                            "declines it too)", where)
        phys = (sv_rows, sv_cols) if box is None else \
            (-(-sv_rows // box[0]) * box[0], -(-sv_cols // box[1]) * box[1])  # whole boxes
        dst = self.handle(dest)
        dst_t = self.handle_types.get(dst, tile_type_string(dest.type))
        view_t = tile_type_string(dest.type, valid=(v_row, v_col), dims=phys)
        offs = [self.index_value(e) for e in dst_off.items]
        sizes = [self.index_value(e) for e in xfer]
        view = f"%{self.fresh_name('gather_row_view')}"
        self.line(f"{view} = pto.subview {dst}[{', '.join(offs)}] sizes [{phys[0]}, {phys[1]}] "
                  f"valid [{', '.join(sizes)}] : {dst_t} -> {view_t}")
        if transpose:
            ttype = source.type
            base = self.view_ptrs.get(self.tensor_view(source))
            if base is None:
                raise PassError("tile.gather_row with transpose=True reads a tensor parameter", where)
            dims_e = [ir.ConstInt(d, ir.DType.INDEX) if isinstance(d, int) else d for d in ttype.shape]
            rows_v, cols_v = (self.index_value(d) for d in dims_e)
            dn = self.fresh_name(f"{source.name_hint}_dn_view")
            self.line(f"%{dn} = pto.make_tensor_view {base}, shape = [{cols_v}, {rows_v}], strides = "
                      f"[{self.const(1, ir.DType.INDEX)}, {cols_v}] {{layout = #pto.layout<dn>}} : "
                      f"!pto.tensor_view<?x?x{ttype.dtype.mlir}>")
            swapped = ir.ExprList((src_off.items[1], src_off.items[0]), src_off.span)
            pv_name, pv = self._partition_view(f"%{dn}", ttype, swapped, xfer, where)
        else:
            pv_name, pv = self._partition(source, src_off, xfer, where)
        self.line(f"{sp.pto} ins({pv_name} : {pv}) outs({view} : {view_t})")
        self.handles[target.id] = dst
        self.handles.setdefault(self.live.find(target.id), dst)

    def _emit_spmd(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling, where: Span) -> None:
        """`tile.get_block_idx` and kin: the reference's hidden `i32` parameter
        (`%__pypto_spmd_block_idx`, appended to the signature) cast to `index`."""
        if target is None:
            raise PassError(f"{c.op} must be assigned to a scalar", where)
        assert sp.param is not None
        param = self.spmd_param(sp.param)
        self.handles[target.id] = self.int_as(param, ir.DType.INT32, target.dtype)
        if c.op == "tile.get_block_num":
            self.block_counts.add(target.id)

    def _emit_dim(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling, where: Span) -> None:
        """`tensor.dim(t, axis)`: the dimension's value (a literal, or the dynamic dimension's
        `index` parameter)."""
        if target is None:
            raise PassError("tensor.dim must be assigned to a scalar", where)
        tensor, axis = (*c.args, None, None)[:2]
        ttype = tensor.type if isinstance(tensor, ir.Var) else None
        k = ir.literal_value(axis) if isinstance(axis, ir.ConstInt) else None
        if not isinstance(ttype, ir.TensorType) or k is None or not 0 <= k < len(ttype.shape):
            raise PassError("tensor.dim takes a tensor and a literal axis within its rank", where)
        dim = ttype.shape[k]
        value = self.const(dim, ir.DType.INDEX) if isinstance(dim, int) else self.index_value(dim)
        self.handles[target.id] = self.int_as(value, ir.DType.INDEX, target.dtype)

    def int_as(self, value: str, dtype: ir.DType, target: ir.DType) -> str:
        """`value`, an integer of `dtype`, as the integer dtype `target` (an op's INDEX or `i32`
        value bound at its variable's dtype, `d: pl.Scalar[pl.INT64] = pl.tensor.dim(t, 0)`):
        `arith.index_cast` to or from `index`, `extsi` / `trunci` between widths."""
        if target is dtype:
            return value
        src, dst = _int_type(dtype), _int_type(target)
        if ir.DType.INDEX in (dtype, target):
            return self.arith("index_cast", [value], dst, cast_from=src)
        if target.bits == dtype.bits:
            return value
        op = "extsi" if target.bits > dtype.bits else "trunci"
        return self.arith(op, [value], dst, cast_from=src)

    def _flat_offset(self, indices: ir.CallArg, shape: Sequence[int | ir.Expr], where: Span) -> str:
        """The row-major element offset of `indices` in a container of `shape`, as `index`."""
        if not isinstance(indices, ir.ExprList) or len(indices.items) != len(shape) or not shape:
            raise PassError(f"expected {len(shape)} indices", where)
        flat: ir.Expr = indices.items[0]
        for index, dim in zip(indices.items[1:], shape[1:], strict=True):
            extent = ir.ConstInt(dim, ir.DType.INDEX) if isinstance(dim, int) else dim
            flat = ir.Add(ir.Mul(flat, extent, ir.DType.INDEX), index, ir.DType.INDEX)
        return self.index_value(flat)

    def _emit_getval(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling, where: Span) -> None:
        """`tile.read(t, [i, j])`: `%v = pto.tgetval ins(%t, %off : TB, index) outs : DT`."""
        tile_arg = c.args[0]
        if target is None or not isinstance(tile_arg, ir.Var) or not isinstance(tile_arg.type, ir.TileType):
            raise PassError("tile.read reads a tile into a scalar", where)
        src, src_t = self._tile_arg(tile_arg)
        off = self._flat_offset(c.args[1], tile_arg.type.shape, where)
        name = f"%{self.var_name(target)}"
        dt = _int_type(tile_arg.type.dtype)
        self.line(f"{name} = {sp.pto} ins({src}, {off} : {src_t}, index) outs : {dt}")
        self.handles[target.id] = name
        self.values[name] = self.graph.opaque(name, _int_type(tile_arg.type.dtype))

    def _emit_setval(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling, where: Span) -> None:
        """`tile.write(t, [i, j], v)`: `pto.tsetval ins(%off, %v : index, DT) outs(%t : TB)`, in place."""
        tile_arg = c.args[0]
        if not isinstance(tile_arg, ir.Var) or not isinstance(tile_arg.type, ir.TileType) or len(c.args) < 3:
            raise PassError("tile.write writes a scalar into a tile", where)
        dst, dst_t = self._tile_arg(tile_arg)
        off = self._flat_offset(c.args[1], tile_arg.type.shape, where)
        value, value_t = self._scalar_arg(c.args[2], tile_arg.type.dtype)
        self.line(f"{sp.pto} ins({off}, {value} : index, {value_t}) outs({dst} : {dst_t})")
        if target is not None:
            self.handles[target.id] = dst

    def _tensor_ptr(self, tensor: ir.CallArg, where: Span) -> tuple[str, ir.TensorType]:
        view = self.tensor_view(tensor)
        ptr = self.view_ptrs.get(view)
        assert isinstance(tensor, ir.Var)
        assert isinstance(tensor.type, ir.TensorType)
        if ptr is None:
            raise PassError(f"tensor '{tensor.name_hint}' has no base pointer here", where)
        if tensor.type.dtype.mlir != _int_type(tensor.type.dtype):
            raise PassError(f"slotsat's code generator does not read or write scalars of "
                            f"pl.{tensor.type.dtype.value} tensors", where)
        return ptr, tensor.type

    def _emit_load_scalar(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling,
                          where: Span) -> None:
        """`tensor.read(t, [i, j])`: `%v = pto.load_scalar %ptr[%off] : !pto.ptr<DT> -> DT`."""
        if target is None:
            raise PassError("tensor.read must be assigned to a scalar", where)
        ptr, ttype = self._tensor_ptr(c.args[0], where)
        off = self._flat_offset(c.args[1], ttype.shape, where)
        name = f"%{self.var_name(target)}"
        dt = ttype.dtype.mlir
        self.line(f"{name} = {sp.pto} {ptr}[{off}] : !pto.ptr<{dt}> -> {dt}")
        self.handles[target.id] = name
        self.values[name] = self.graph.opaque(name, dt)

    def _emit_store_scalar(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling,
                           where: Span) -> None:
        """`tensor.write(t, [i, j], v)`: `pto.store_scalar %v, %ptr[%off] : !pto.ptr<DT>, DT`."""
        if len(c.args) < 3:
            raise PassError("tensor.write writes a scalar into a tensor", where)
        ptr, ttype = self._tensor_ptr(c.args[0], where)
        off = self._flat_offset(c.args[1], ttype.shape, where)
        value, value_t = self._scalar_arg(c.args[2], ttype.dtype)
        self.line(f"{sp.pto} {value}, {ptr}[{off}] : !pto.ptr<{ttype.dtype.mlir}>, {value_t}")
        if target is not None:
            tensor = c.args[0]
            assert isinstance(tensor, ir.Var)
            self.tensor_views[target.id] = self.tensor_view(tensor)
            self.tensor_types[target.id] = self.tensor_types[tensor.id]

    def _emit_set_validshape(self, target: ir.Var | None, c: ir.Call, sp: pto_spelling.Spelling,
                             where: Span) -> None:
        """`pto.set_validshape %t, %rows, %cols : TB`: the tile's runtime valid extent, in place."""
        tile_arg = c.args[0]
        if not isinstance(tile_arg, ir.Var) or not isinstance(tile_arg.type, ir.TileType) or len(c.args) < 3:
            raise PassError("tile.set_validshape sets the valid extent of a tile", where)
        if self.handle(tile_arg) in self.view_names:
            raise PassError("pl.set_validshape cannot narrow a tile view (a slice or reshape result); narrow "
                            "the slice itself or the tile before the view is taken", where)
        src, src_t = self._tile_arg(tile_arg)
        rows, cols = c.args[1], c.args[2]
        if not (_is_scalar_expr(rows) and _is_scalar_expr(cols)):
            raise PassError("tile.set_validshape takes two scalar extents", where)
        vr = self.index_value(rows)  # type: ignore[arg-type]
        vc = self.index_value(cols)  # type: ignore[arg-type]
        self.line(f"{sp.pto} {src}, {vr}, {vc} : {src_t}")
        if target is not None:
            self.handles[target.id] = src
            self.handles.setdefault(self.live.find(target.id), src)

    # -- control flow ------------------------------------------------------------------------

    def _bound(self, e: ir.Expr) -> str:
        return self.index_value(e)

    def _step(self, s: ir.ForStmt) -> ir.Expr:
        """The loop's step, folded, once it is known positive. `scf.for` counts upward by a
        positive step: a non-positive one drops the body or never ends, and ptoas accepts either
        silently. So the step is a positive literal, or the SPMD block count (a grid-stride loop,
        `for b in pl.range(idx, n, num)` with `num = pl.tile.get_block_num()`), which is at
        least 1. The reference also emits any other runtime step, unchecked; slotsat refuses it
        rather than guess its sign."""
        step = fold(s.step)
        if isinstance(step, ir.ConstInt) and ir.literal_value(step) is not None:
            if step.value > 0:
                return step
            raise PassError(f"loops in device functions must have a positive step, got {step.value}: scf.for "
                            "counts upward only; count up and invert the index in the body", s.span)
        if isinstance(step, ir.Var) and step.id in self.block_counts:
            return step
        raise PassError(f"loops in device functions need a step known to be positive: a literal, or the SPMD "
                        f"block count of pl.tile.get_block_num(); got {format_expr(s.step)}, whose sign "
                        "slotsat cannot prove (scf.for drops the body of a negative step and never ends at "
                        "zero)", s.span)

    def for_(self, s: ir.ForStmt) -> None:
        step = self._step(s)
        lb = self._bound(s.start)
        ub = self._bound(s.stop)
        st = self.index_value(step)  # after the bounds: the reference's order of hoisted constants
        iv = f"%{self.var_name(s.loop_var)}"
        self.handles[s.loop_var.id] = iv
        self.values[iv] = self.graph.opaque(iv)
        scalar_iters, carried_arrays = self._enter_iter_args(s)
        arrays_before = self.arrays.snapshot()
        header = f"scf.for {iv} = {lb} to {ub} step {st}"
        results = ""
        if scalar_iters:
            inits: list[str] = []
            for (it, _), init_name in zip(scalar_iters, self._iter_inits(scalar_iters), strict=True):
                name = f"%{self.var_name(it.var)}"
                self.handles[it.var.id] = name
                inits.append(f"{name} = {init_name}")
            types = [_int_type(ir.expr_dtype(it.var)) for it, _ in scalar_iters]
            header += f" iter_args({', '.join(inits)}) -> ({', '.join(types)})"
            outs = [f"%{self.var_name(s.return_vars[k])}" for _, k in scalar_iters]
            results = ", ".join(outs) + " = "
        self.line(f"{results}{header} {{")
        body = s.body.stmts
        last = body[-1] if body and isinstance(body[-1], ir.YieldStmt) else None
        self.loop_stack.append(LoopInfo(s.loop_var, fold(s.start), fold(s.stop), step))
        with self.block():
            for v in (s.loop_var, *(it.var for it, _ in scalar_iters)):
                self.scalar_scope[v.id] = tuple(self.block_ids)
            for stmt in body:
                if stmt is last:
                    continue
                self.stmt(stmt)
            if scalar_iters and last is not None:
                vals = [self._scalar_value(last.values[k]) for _, k in scalar_iters]
                types = [_int_type(ir.expr_dtype(it.var)) for it, _ in scalar_iters]
                self.line(f"scf.yield {', '.join(vals)} : {', '.join(types)}")
            self._carry_arrays(s, carried_arrays, last, arrays_before)
        self.loop_stack.pop()
        self.line("}")
        self._bind_results(s, carried_arrays)

    def _bind_results(self, s: ir.ForStmt | ir.WhileStmt, carried_arrays: dict[int, str]) -> None:
        """After a loop: each result names what its carry names (a tile's buffer, a tensor's
        view, an array's storage), or the loop's own result value (a scalar)."""
        for k, r in enumerate(s.return_vars):
            if isinstance(r.type, ir.TileType):
                self.handles[r.id] = (
                    self.handle(s.iter_args[k].var) if k < len(s.iter_args) else self.handle(r)
                )
            elif isinstance(r.type, ir.TensorType):
                self.tensor_views[r.id] = self.tensor_views[s.iter_args[k].var.id]
                self.tensor_types[r.id] = r.type
            elif isinstance(r.type, ir.ArrayType):
                self.arrays.bind(r, carried_arrays[k])
            else:
                self.handles[r.id] = f"%{self.var_name(r)}"

    def _iter_inits(self, scalar_iters: list[tuple[ir.IterArg, int]]) -> list[str]:
        """The initial values of a loop's scalar carries, lowered before the loop."""
        out: list[str] = []
        for it, _ in scalar_iters:
            init = fold(it.init)
            dtype = ir.expr_dtype(init)
            out.append(self.const(init.value, dtype) if isinstance(init, ir.ConstInt)
                       else self.lower(it.init))
        return out

    def _bind_scalar_iters(self, scalar_iters: list[tuple[ir.IterArg, int]], names: list[str]) -> None:
        """Inside a loop block: each carried scalar is the block argument `names[k]`."""
        for (it, _), name in zip(scalar_iters, names, strict=True):
            self.handles[it.var.id] = name
            self.scalar_scope[it.var.id] = tuple(self.block_ids)

    def while_(self, s: ir.WhileStmt) -> None:
        """`scf.while`: the before region evaluates the condition over the carried scalars and
        passes them on (`scf.condition`), the after region runs the body on them and yields
        the next ones, as the reference emits a while loop. Tiles, tensors and arrays are
        carried in their buffers, views and storage, as by a `for` loop."""
        scalar_iters, carried_arrays = self._enter_iter_args(s)
        inits = self._iter_inits(scalar_iters)
        arrays_before = self.arrays.snapshot()
        types = [_int_type(ir.expr_dtype(it.var)) for it, _ in scalar_iters]
        before = [f"%{self.var_name(it.var)}" for it, _ in scalar_iters]
        after = [f"%{self.fresh_name(it.var.name_hint)}" for it, _ in scalar_iters]
        outs = [f"%{self.var_name(s.return_vars[k])}" for _, k in scalar_iters]
        assigned = ", ".join(f"{n} = {v}" for n, v in zip(before, inits, strict=True))
        # one result type bare, as MLIR's and xdsl's printers spell a function type's results;
        # without carried scalars the assignment list is `()`, which both parsers read (a
        # condition that reads nothing the loop carries runs it zero times or forever)
        results = types[0] if len(types) == 1 else f"({', '.join(types)})"
        named = f"{', '.join(outs)} = " if outs else ""
        self.line(f"{named}scf.while ({assigned}) : ({', '.join(types)}) -> {results} {{")
        with self.block():
            self._bind_scalar_iters(scalar_iters, before)
            cond = self.lower(s.cond)
            passed = f" {', '.join(before)} : {', '.join(types)}" if before else ""
            self.line(f"scf.condition({cond}){passed}")
        self.line("} do {")
        if after:
            self.line(f"^bb0({', '.join(f'{n}: {t}' for n, t in zip(after, types, strict=True))}):")
        body = s.body.stmts
        last = body[-1] if body and isinstance(body[-1], ir.YieldStmt) else None
        with self.block():
            self._bind_scalar_iters(scalar_iters, after)
            for stmt in body:
                if stmt is not last:
                    self.stmt(stmt)
            vals = [self._scalar_value(last.values[k]) for _, k in scalar_iters] if last is not None else []
            if len(vals) != len(scalar_iters):
                raise PassError("the body of a while loop must yield every value the loop carries", s.span)
            self.line(f"scf.yield {', '.join(vals)} : {', '.join(types)}" if vals else "scf.yield")
            self._carry_arrays(s, carried_arrays, last, arrays_before)
        self.line("}")
        self._bind_results(s, carried_arrays)

    def _enter_iter_args(
        self, s: ir.ForStmt | ir.WhileStmt
    ) -> tuple[list[tuple[ir.IterArg, int]], dict[int, str]]:
        """Bind a loop's iteration values that name their initial value's buffer, view or array
        storage; return the scalar ones (`scf.for` iter_args, with their positions) and the
        storage of each carried array (by position)."""
        scalar_iters: list[tuple[ir.IterArg, int]] = []
        carried_arrays: dict[int, str] = {}
        for k, it in enumerate(s.iter_args):
            if isinstance(it.var.type, ir.TileType):
                if isinstance(it.init, ir.Var):
                    self.handles[it.var.id] = self.handle(it.init)
                    self.handles.setdefault(self.live.find(it.var.id), self.handles[it.var.id])
            elif isinstance(it.var.type, ir.TensorType):
                self.tensor_views[it.var.id] = self.tensor_view(it.init)
                self.tensor_types[it.var.id] = it.var.type
            elif isinstance(it.var.type, ir.ArrayType):
                if not isinstance(it.init, ir.Var):
                    raise PassError(f"loop-carried array '{it.var.name_hint}' must start from an array",
                                    s.span)
                carried_arrays[k] = self.arrays.current(it.init, s.span)
            else:
                scalar_iters.append((it, k))
        if len(set(carried_arrays.values())) != len(carried_arrays):
            raise PassError("a loop carries one array in two iteration values", s.span)
        for k, storage in carried_arrays.items():
            self.arrays.bind(s.iter_args[k].var, storage)
        return scalar_iters, carried_arrays

    def _carry_arrays(self, s: ir.ForStmt | ir.WhileStmt, carried: dict[int, str],
                      last: ir.YieldStmt | None, before: dict[str, frozenset[int]]) -> None:
        """At the end of a loop body: each carried array's yielded value is the newest version of
        its storage, and no other array was written (the next iteration would read the write)."""
        for k, storage in carried.items():
            value = last.values[k] if last is not None else None
            if not isinstance(value, ir.Var) or self.arrays.current(value, s.span) != storage:
                raise PassError(f"loop-carried array '{s.iter_args[k].var.name_hint}' must be yielded as a "
                                "version of the array it starts from", s.span)
        for storage in self.arrays.written_since(before) - set(carried.values()):
            raise PassError(f"array {storage} is written in a loop that does not carry it: slotsat's code "
                            "generator writes an array in place, so the next iteration would read the write",
                            s.span)

    def _if_results(self, s: ir.IfStmt) -> tuple[list[tuple[int, ir.Var]], ...]:
        """An if's results by kind, with their positions: scalars (`scf.if` results), tensors
        and arrays (named by what the branches yield); a tile result is defined here."""
        scalars: list[tuple[int, ir.Var]] = []
        tensors: list[tuple[int, ir.Var]] = []
        arrays: list[tuple[int, ir.Var]] = []
        for k, r in enumerate(s.return_vars):
            if isinstance(r.type, ir.TileType):
                self.define_tile(r)
            elif isinstance(r.type, ir.TensorType):
                tensors.append((k, r))
            elif isinstance(r.type, ir.ArrayType):
                arrays.append((k, r))
            else:
                scalars.append((k, r))
        return scalars, tensors, arrays

    def _join_arrays(self, s: ir.IfStmt, before: dict[str, frozenset[int]], written: set[str],
                     results: list[tuple[int, ir.Var]], storages: list[list[str]]) -> None:
        """After an if: each array result is the newest version of the one storage both branches
        yield; a storage a branch wrote without yielding it holds no nameable version."""
        self.arrays.newest = dict(before)
        for j, (_, r) in enumerate(results):
            denoted = {v[j] for v in storages}
            if len(denoted) != 1:
                raise PassError(f"array result '{r.name_hint}' of an if must be a version of one array in "
                                "both branches", s.span)
            self.arrays.bind(r, denoted.pop())
        for storage in written - {self.arrays.storage[r.id] for _, r in results}:
            self.arrays.forget(storage, "a branch of an if wrote it without passing the new version out")

    def _yielded_array(self, e: ir.Expr, span: Span) -> str:
        """The storage of an array a branch yields (its newest version)."""
        if not isinstance(e, ir.Var) or not isinstance(e.type, ir.ArrayType):
            raise PassError("an array result must be yielded an array", span)
        return self.arrays.current(e, span)

    def _scalar_value(self, e: ir.Expr) -> str:
        folded = fold(e)
        if isinstance(folded, ir.ConstInt):
            return self.const(folded.value, folded.dtype)
        return self.lower(e)

    def if_(self, s: ir.IfStmt) -> None:
        cond_name = self.lower(s.cond)
        scalar_results, tensor_results, array_results = self._if_results(s)
        prefix = ""
        suffix = ""
        if scalar_results:
            prefix = ", ".join(f"%{self.var_name(r)}" for _, r in scalar_results) + " = "
            suffix = " -> (" + ", ".join(_int_type(ir.expr_dtype(r)) for _, r in scalar_results) + ")"
        self.line(f"{prefix}scf.if {cond_name}{suffix} {{")
        views: list[list[str]] = []
        storages: list[list[str]] = []
        arrays_before = self.arrays.snapshot()
        written: set[str] = set()
        for branch_index, branch in enumerate((s.then_body, s.else_body)):
            if branch is None:
                continue
            if branch_index == 1:
                self.line("} else {")
                self.arrays.newest = dict(arrays_before)
            last = branch.stmts[-1] if branch.stmts and isinstance(branch.stmts[-1], ir.YieldStmt) else None
            with self.block():
                for stmt in branch.stmts:
                    if stmt is not last:
                        self.stmt(stmt)
                if last is not None:
                    views.append([self.tensor_view(last.values[k]) for k, _ in tensor_results])
                    storages.append([self._yielded_array(last.values[k], s.span) for k, _ in array_results])
                    if scalar_results:
                        vals = [self._scalar_value(last.values[k]) for k, _ in scalar_results]
                        types = [_int_type(ir.expr_dtype(r)) for _, r in scalar_results]
                        self.line(f"scf.yield {', '.join(vals)} : {', '.join(types)}")
            written |= self.arrays.written_since(arrays_before)
        self.line("}")
        self._join_arrays(s, arrays_before, written, array_results, storages)
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


def call_arguments(c: ir.Call, sp: pto_spelling.Spelling, where: Span) -> dict[str, ir.CallArg]:
    """The call's arguments by the reference's argument names: positional ones in order
    (dtype and memory-space arguments of slotsat's DSL forms, `tile.cast(t, pl.FP16)`, are
    type selectors and skipped), then those the printer writes as keywords (`value=`)."""
    names = sp.arg_names
    positional = [a for a in c.args if not isinstance(a, ir.DTypeArg | ir.SpaceArg)]
    if len(positional) > len(names):
        raise PassError(f"{c.op} takes at most {len(names)} arguments, got {len(positional)}", where)
    out: dict[str, ir.CallArg] = dict(zip(names, positional, strict=False))
    for key, value in c.kwargs:
        if key in names:
            out[key] = value
    return out


def _required_arguments(op: str, sp: pto_spelling.Spelling) -> int:
    """How many arguments a call of `op` must pass: the DSL subset's signature where slotsat
    models the op (`pl.load(t, offsets, shape)`, `pl.row_sum(t)`: codegen makes the scratch),
    else the reference's required ones (less a scratch codegen makes), unless the spelling
    entry says otherwise."""
    if sp.required is not None:
        return sp.required
    spec = ops.lookup(op)
    if spec is not None:
        return len(spec.params) - len(spec.optional)
    ref = ops.reference(op)
    needed = 0 if ref is None else ref.required_args
    return needed - (1 if sp.scratch is not None else 0)


def _keyword_text(value: ir.CallArg) -> str | None:
    """A keyword's value as the spelling table keys it: a string's text, an integer's digits,
    an enum member's name."""
    if isinstance(value, ir.StrArg):
        return value.value
    if isinstance(value, ir.EnumArg):
        return value.member
    if isinstance(value, ir.ConstInt):
        return str(value.value)
    return None


def _truthy(value: ir.CallArg) -> bool:
    return isinstance(value, ir.ConstInt) and value.value != 0


def _matches_default(value: ir.CallArg, default: object) -> bool:
    if isinstance(default, bool):
        return isinstance(value, ir.ConstInt) and bool(value.value) == default
    return _keyword_text(value) == str(default)


def _slice_bytes(source: ir.TileType, pitch: tuple[int, ...], offsets: Sequence[ir.Expr],
                 base: int | None) -> int | None:
    """The byte offset of a slice at `offsets` of `source` into the buffer under it, whose
    shape is `pitch` (`base`: the source's own offset there), or None when an offset is not
    literal."""
    at = [ir.literal_value(_try_fold(e)) for e in offsets]
    if base is None or any(a is None for a in at) or len(at) != 2 or len(pitch) != 2:
        return None
    row, col = at
    assert row is not None
    assert col is not None
    rows, cols = pitch
    blayout, _, _ = layout_of(source)
    element = row * cols + col if blayout == "row_major" else col * rows + row
    bits = element * source.dtype.bits
    return None if bits % 8 else base + bits // 8


def _subview_valid(source: ir.TileType, sizes: tuple[int, int], offsets: Sequence[ir.Expr]
                   ) -> tuple[int | None, int | None]:
    """The static valid extent ptoas infers for `pto.subview` of `source` with `sizes` at
    `offsets` (the reference's `InferSubviewTileTypeComponents`): per dimension, the rest of
    the source's valid extent past a literal offset (capped at the size), the size when the
    source is valid over at least the size, else unknown; one unknown makes both unknown."""
    valid = list(source.effective_valid_shape)
    if len(valid) == 1:
        valid = [ir.ConstInt(1, ir.DType.INDEX), valid[0]]
    if valid and all(ir.literal_value(_try_fold(v)) == 0 for v in valid):
        valid = [ir.ConstInt(d, ir.DType.INDEX) for d in source.shape]  # the all-zero sentinel
    out: list[int | None] = []
    for k, size in enumerate(sizes):
        folded = _try_fold(offsets[k])
        offset = ir.literal_value(folded) if isinstance(folded, ir.ConstInt) else None
        extent = ir.literal_value(_try_fold(valid[k])) if k < len(valid) else None
        if offset is not None and extent is not None:
            out.append(min(size, max(extent - offset, 0)))
        elif offset == 0 and extent == size:
            out.append(size)
        elif extent is not None and extent >= size:
            out.append(size)
        else:
            out.append(None)
    if None in out:
        return None, None
    return out[0], out[1]


def _box_alignment(tile: ir.TileType) -> tuple[int, int] | None:
    """(rows, cols) of one box of the tile's boxed layout; None for a layout without boxes
    (`none_box`), (0, 0) for a boxed layout without a known box. The reference's
    `GetBoxedTileAlignment`: 16 x 16 for the Acc fractal (1024); for fractal 512, 16 rows by
    32 bytes of stored elements (row-major boxes) or the transpose (column-major); for the MX scale
    fractal (32), 16 x 2 or 2 x 16."""
    _, slayout, fractal = layout_of(tile)
    if slayout == "none_box":
        return None
    if fractal == 1024:
        return 16, 16
    if fractal == 32 and slayout in ("row_major", "col_major"):
        return (16, 2) if slayout == "row_major" else (2, 16)
    bits = 4 if tile.dtype.bits == 4 else 8 * tile.dtype.nbytes  # storage bits: a bool is a byte
    if fractal == 512 and bits > 0 and 256 % bits == 0 and slayout in ("row_major", "col_major"):
        return (16, 256 // bits) if slayout == "row_major" else (256 // bits, 16)
    return 0, 0


def _span(s: ir.Stmt) -> Span:
    return getattr(s, "span", NO_SPAN)


# --------------------------------------------------------------------------------------
# the module


def kernel_functions(module: ir.Module) -> list[tuple[ir.Function, bool]]:
    """(function, is_opaque) for every function that becomes a `func.func`, in program order."""
    out: list[tuple[ir.Function, bool]] = []
    for program in module.programs:
        for fn in program.functions:
            if emitted_as_kernel(fn):
                out.append((fn, fn.type is ir.FunctionType.OPAQUE))
    return out


_T = TypeVar("_T")

BATCH_ROOTS = 8_000
"""The index roots (slot operands and offsets) of the functions prepared before their index
engines are saturated together and their bodies emitted (`PtoCodegen.run`). A joint e-graph
saves each function's fixed e-graph cost, but its view and the prepared functions' analyses
stay alive until the batch is emitted: unbounded, they are a few hundred MB of a 10,000-loop
module's peak memory. A function is never split (a batch holds whole functions)."""


def root_batches(items: Iterable[_T], roots: Callable[[_T], int]) -> Iterator[list[_T]]:
    """`items` in order, in batches that close once they hold `BATCH_ROOTS` roots (`roots`
    of an item: its engine's; `slotsat.core.batches.batched`). Lazy: an item is taken only
    once the batch before it is handed on (and, in codegen, emitted)."""
    return batched(items, roots, BATCH_ROOTS)


def limit_messages(saturation_hit: str | None, extraction_hit: str | None) -> list[str]:
    """What a function's index engine stopping at a limit means (`slotsat.core.limits` (d),
    (j)), given the limit its saturation and its choices stopped at (None: none): its program
    is still correct, but may be larger than the engine would have made it."""
    messages: list[str] = []
    if saturation_hit is not None:
        messages.append(f"its index e-graph stopped before its rules settled ({saturation_hit}); index "
                        "expressions use the forms and proofs found until then")
    if extraction_hit is not None:
        messages.append(f"choosing its index forms stopped at a limit ({extraction_hit}); the remaining "
                        "index expressions are lowered as written, with the proofs found")
    return messages


def _limit_warnings(fn: ir.Function, stats: EngineStats) -> list[Note]:
    """Codegen's warnings for a function whose index engine stopped at a limit."""
    return [Note("warning", f"function '{fn.name}': {m}", fn.span)
            for m in limit_messages(stats.limit_hit, stats.extraction_limit_hit)]


def _emit_batch(prepared: list[tuple[FunctionEmitter, list[Note]]], result: CodegenResult,
                lines: list[str]) -> None:
    """Saturate the index engines of `prepared` together and emit their bodies in order."""
    heap.settle()  # the functions' heads, analyses and index engines live until emission
    saturate_together([e.engine for e, _ in prepared])
    heap.settle()
    for emitter, first in prepared:
        result.notes.extend(first)
        lines.extend(emitter.finish())
        result.gets.extend(emitter.gets)
        stats = emitter.engine_stats()  # after `finish`, which makes the choices
        result.notes.extend(_limit_warnings(emitter.fn, stats))
        result.notes.extend(emitter.notes)
        result.engine_reports.append(stats)
        result.function_ops[emitter.fn.name] = emitter.op_count
        emitter.release()


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
        functions: list[tuple[ir.Function, str, list[Note]]] = []
        symbols: dict[int, str] = {}
        for fn, opaque in kernel_functions(module):
            symbol = mlir_name(fn.name)
            n = 1
            while symbol in used:
                # two programs may each define `kernel`; symbols must be unique in a module
                symbol = f"{mlir_name(fn.name)}_{n}"
                n += 1
            used.add(symbol)
            symbols[id(fn)] = symbol
            first: list[Note] = []
            if opaque:
                first.append(
                    Note(
                        "note",
                        f"function '{fn.name}' is a plain @pl.function with tile "
                        "operations; slotsat compiles it as a kernel (it does not "
                        "outline kernels from orchestration code)",
                        fn.span,
                    )
                )
            functions.append((fn, symbol, first))
        # The functions' heads and roots first, a batch at a time (`BATCH_ROOTS`), then one
        # saturation of the batch's index engines (`saturate_together`), then its bodies in
        # program order. An error while preparing function k stops there: functions before k
        # are saturated and emitted first (their errors come first, as in emission order),
        # then k's error is raised.
        layouts: dict[int, PipeLayout] = {}
        for program in module.programs:
            layouts.update(pipe_layouts(program, symbols))
        failure: list[Exception] = []

        def prepared() -> Iterator[tuple[FunctionEmitter, list[Note]]]:
            for fn, symbol, first in functions:
                try:
                    emitter = FunctionEmitter(
                        fn, mode=self.mode, planner=self.planner, backend=self.backend, symbol=symbol,
                        pipes=layouts.get(id(fn)),
                    )
                    emitter.prepare()
                except Exception as exc:
                    failure.append(exc)
                    return
                yield emitter, first

        for batch in root_batches(prepared(), lambda item: len(item[0].engine.roots)):
            _emit_batch(batch, result, lines)
        if failure:
            raise failure[0]
        lines.append("}")
        result.text = "\n".join(lines) + "\n"
        return result
