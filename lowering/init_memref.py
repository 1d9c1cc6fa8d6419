"""init-memref: resolve every declared or synthesized allocation (`30-pto-codegen.md` §2).

Overview
--------
Every tile whose MemRef is pinned binds the allocation named by the MemRef's base binder
(an author `pl.MemRef(...)` declaration or a synthesized `pipe_<tile>`). For each
allocation, in order of first binding, the pass checks the declaration (§2.1), computes
its geometry (§2.2: `slot_size` is the largest static size of any bound tile,
`total = slot_size * slot_count`), resolves every binding (§2.3) and hoists one
allocation statement to the top of the function body.

Before / After (`10-dsl.md` §10)::

    t: pl.Tile[[64, 64], pl.FP32, pl.MemRef("pipe_t", slots=2)[i % 2], pl.Mem.Vec] = ...

    pipe_t: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768, pinned=True)
    ...
    t: pl.Tile[[64, 64], pl.FP32, pl.MemRef(pipe_t, i % 2 * 16384, 16384, slots=2)[i % 2], pl.Mem.Vec] = ...

Resolved bindings
-----------------
| Binding | `byte_offset` | `size` |
| --- | --- | --- |
| constant slot `k` (folds to a literal) | `ConstInt(k * slot_size, INT64)` | `slot_size` |
| runtime slot `e` | `Mul(e, ConstInt(slot_size, INDEX), INDEX)` | `slot_size` |
| unsubscripted | `ConstInt(0, INT64)` | `slot_size` |

`is_pinned` is cleared; the slot count and the slot index are kept, which is what codegen
needs to emit one region instead of `N` unrelated buffers.

Requires / produces and position
--------------------------------
Runs after resolve-pipeline-markers (no pipeline loop is left) and before pto-codegen, on
every function. Reads the planner (a single-slot declaration is rejected under `PTOAS`)
and the backend (the `Acc` row alignment of the slot size).

| Check | Why |
| --- | --- |
| static size | a declared allocation has one size, fixed before the kernel runs |
| slot counts agree | one allocation has one slot count |
| one memory space | one allocation lives in one buffer |
| no 64-bit overflow | the size is a 64-bit value in ptoas and in the address allocator |
| not a view / in-place result | such a result lands in its source's allocation already |
| no single slot under `PTOAS` | ptoas would be free to share a plain pinned buffer |

Decisions where the spec is silent: a runtime slot index whose dtype is not `INDEX` (an
`INT32` parameter) is widened with an explicit `Cast(e, INDEX)` before the multiplication,
so the offset stays a well-typed `INDEX` expression; the allocation statement's size is an
`INDEX` literal (it prints bare, as in §2.3).

Related: `lowering/regions.py` (which allocations become ptoas regions),
`lowering/pto_codegen.py` (the emitted `.pto`).
"""

from __future__ import annotations

import enum
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, fields, is_dataclass, replace
from typing import Any, ClassVar

from slotsat.analysis.budget import Backend, tile_bytes
from slotsat.core import ir, ops
from slotsat.core.errors import NO_SPAN, PassError, Span
from slotsat.core.options import Planner
from slotsat.lowering.common import PassResult

U64_MAX = (1 << 64) - 1
ALLOC_OP = "tile.alloc"


@dataclass(frozen=True, slots=True)
class Binding:
    """One tile bound to a declared allocation: the binder, the call that defines it (None
    for carried values, results and plain copies) and the statement's position."""

    var: ir.Var
    call: ir.Call | None
    span: Span

    @property
    def producer(self) -> str | None:
        """The op that defines the tile."""
        return None if self.call is None else self.call.op


@dataclass(frozen=True, slots=True)
class Allocation:
    """The geometry of one resolved allocation (§2.2)."""

    base: ir.Var
    space: ir.MemorySpace
    slot_count: int
    slot_size: int
    bindings: tuple[Binding, ...]

    @property
    def total(self) -> int:
        return self.slot_size * self.slot_count

    @property
    def name(self) -> str:
        return self.base.name_hint


def _span_of(var: ir.Var, stmt_span: Span) -> Span:
    return stmt_span if stmt_span != NO_SPAN else var.span


def _pinned_memref(v: ir.Var) -> ir.MemRef | None:
    t = v.type
    if isinstance(t, ir.TileType) and t.memref is not None and t.memref.is_pinned:
        return t.memref
    return None


def collect_bindings(body: ir.SeqStmts) -> list[tuple[ir.Var, list[Binding]]]:
    """Bindings grouped by base identity, in order of first binding (§2.1)."""
    groups: dict[int, tuple[ir.Var, list[Binding]]] = {}
    seen: set[int] = set()

    def add(v: ir.Var, call: ir.Call | None, span: Span) -> None:
        memref = _pinned_memref(v)
        if memref is None or v.id in seen:
            return
        seen.add(v.id)
        entry = groups.setdefault(memref.base.id, (memref.base, []))
        entry[1].append(Binding(v, call, _span_of(v, span)))

    for s in ir.walk_stmts(body):
        if isinstance(s, ir.AssignStmt):
            add(s.var, s.value if isinstance(s.value, ir.Call) else None, s.span)
        elif isinstance(s, ir.ForStmt | ir.WhileStmt):
            for it in s.iter_args:
                add(it.var, None, s.span)
            for r in s.return_vars:
                add(r, None, s.span)
        elif isinstance(s, ir.IfStmt):
            for r in s.return_vars:
                add(r, None, s.span)
    return list(groups.values())


# --------------------------------------------------------------------------------------
# constant folding of slot indices (§7.5)


def fold_literal(e: ir.Expr) -> int | None:
    """The value of `e` when it folds to a literal under §7.5, else None.

    Raises `PassError` for a literal divisor 0 and for `INT64_MIN // -1` / `% -1`.
    A typed literal outside its dtype's range never folds.
    """
    value = ir.literal_value(e)
    if value is not None or isinstance(e, ir.ConstInt):
        return value
    if isinstance(e, ir.FloorMod) and ir.literal_value(e.b) == 1:
        return 0
    if isinstance(e, ir.FloorDiv) and ir.literal_value(e.b) == 1:
        return fold_literal(e.a)
    if isinstance(e, ir.Add | ir.Sub | ir.Mul | ir.FloorDiv | ir.FloorMod):
        a = fold_literal(e.a)
        b = fold_literal(e.b)
        if a is None or b is None:
            return None
        dtype = ir.expr_dtype(e.a)
        if isinstance(e, ir.Add):
            return dtype.wrap(a + b)
        if isinstance(e, ir.Sub):
            return dtype.wrap(a - b)
        if isinstance(e, ir.Mul):
            return dtype.wrap(a * b)
        is_div = isinstance(e, ir.FloorDiv)
        if b == 0:
            raise PassError("Floor division by zero" if is_div else "Floor modulo by zero", e.span)
        if a == -(1 << 63) and b == -1 and dtype.bits == 64:
            raise PassError(
                "Floor division overflow: INT64_MIN // -1"
                if is_div
                else "Floor modulo overflow: INT64_MIN % -1",
                e.span,
            )
        return dtype.wrap(a // b if is_div else a % b)
    return None


# --------------------------------------------------------------------------------------
# substitution of binders


def substitute(node: Any, mapping: dict[int, ir.Var]) -> Any:
    """`node` with every reference to a binder in `mapping` (by id) replaced.

    Rebuilds only what changes; binders not in the mapping are kept as they are (their
    types are not rewritten). One walk over the body; shared dataclass nodes are visited
    once, and each type's init fields are looked up once.
    """
    if not mapping:
        return node
    return _Substitution(mapping).walk(node)


class _Substitution:
    """One `substitute` walk. A class, not a recursive closure: a closure that calls itself
    holds itself (and its memo: the old and the new body) in a cycle after the walk, which
    only a full collection frees. The memo's `id` keys are safe: every key is a node of the
    body being walked, alive for the whole walk."""

    __slots__ = ("mapping", "memo")

    def __init__(self, mapping: dict[int, ir.Var]) -> None:
        self.mapping = mapping
        self.memo: dict[int, Any] = {}

    def walk(self, x: Any) -> Any:
        t = type(x)
        names = _INIT_FIELDS.get(t)
        if names is None:
            names = _init_fields(t)
        if names is _LEAF:
            return x
        if names is _VAR:
            return self.mapping.get(x.id, x)
        walk = self.walk
        if names is _TUPLE:
            items = tuple(walk(i) for i in x)
            return x if all(a is b for a, b in zip(items, x, strict=True)) else items
        key = id(x)
        memo = self.memo
        if key in memo:
            return memo[key]
        changes: dict[str, Any] = {}
        for name in names:
            old = getattr(x, name)
            new = walk(old)
            if new is not old:
                changes[name] = new
        result = replace(x, **changes) if changes else x
        memo[key] = result
        return result


_LEAF: tuple[str, ...] = ("<leaf>",)
_VAR: tuple[str, ...] = ("<var>",)
_TUPLE: tuple[str, ...] = ("<tuple>",)
_INIT_FIELDS: dict[type, tuple[str, ...]] = {}


def _init_fields(t: type) -> tuple[str, ...]:
    """How `substitute` walks a value of type `t`: a binder, a tuple, a leaf, or the init
    fields of a dataclass that may hold a binder.

    A field whose declared type cannot hold an `ir.Var` (a `Span`, a `DType`, an `int`, a
    `ConstInt`, ...) is not walked, and a dataclass none of whose fields can is a leaf: most
    of a body's nodes are literals, spans and dtypes, and walking them was most of the pass's
    time. The declared types are the fields' annotations (mypy-checked); one that cannot be
    read is taken to hold a binder."""
    names: tuple[str, ...]
    if issubclass(t, ir.Var):
        names = _VAR
    elif issubclass(t, tuple):
        names = _TUPLE
    elif is_dataclass(t) and not issubclass(t, type):
        try:
            hints = typing.get_type_hints(t)
        except Exception:
            hints = {}
        names = tuple(f.name for f in fields(t)
                      if f.init and (f.name not in hints or _may_hold_var(hints[f.name], set())))
        if not names:
            names = _LEAF
    else:
        names = _LEAF
    _INIT_FIELDS[t] = names
    return names


_NO_VAR_TYPES: tuple[type, ...] = (int, float, str, bool, bytes, type(None), enum.Enum, Span)


def _may_hold_var(hint: Any, open_types: set[type]) -> bool:
    """Whether a value of the declared type `hint` may be or contain an `ir.Var`; True for
    anything not understood (`Any`, a type variable, a container other than a tuple)."""
    origin = typing.get_origin(hint)
    if origin is typing.Union or origin is types.UnionType:
        return any(_may_hold_var(a, open_types) for a in typing.get_args(hint))
    if origin is tuple:
        return any(_may_hold_var(a, open_types) for a in typing.get_args(hint) if a is not Ellipsis)
    if origin is not None or not isinstance(hint, type):
        return True
    if issubclass(hint, _NO_VAR_TYPES):
        return False
    if issubclass(hint, ir.Var) or not is_dataclass(hint) or hint in open_types:
        return True
    try:
        hints = typing.get_type_hints(hint)
    except Exception:
        return True
    open_types.add(hint)
    try:
        return any(f.name not in hints or _may_hold_var(hints[f.name], open_types) for f in fields(hint))
    finally:
        open_types.discard(hint)


# --------------------------------------------------------------------------------------
# the pass


def _check_allocation(base: ir.Var, bindings: list[Binding], ptoas: bool, backend: Backend) -> Allocation:
    name = base.name_hint
    first = bindings[0]
    first_ref = _pinned_memref(first.var)
    first_type = first.var.type
    assert first_ref is not None
    assert isinstance(first_type, ir.TileType)
    slot_size = 0
    for b in bindings:
        t = b.var.type
        memref = _pinned_memref(b.var)
        assert isinstance(t, ir.TileType)
        assert memref is not None
        size = tile_bytes(t, backend)
        if size is None:
            raise PassError(
                f"Tile '{b.var.name_hint}' is bound to the declared allocation '{name}' but has a "
                "dynamic shape; a declared allocation needs a static size",
                b.span,
            )
        if memref.slot_count < 1:
            raise PassError(f"The declared allocation '{name}' must have at least one slot", b.span)
        if memref.slot_count != first_ref.slot_count:
            raise PassError(
                f"References to the declared allocation '{name}' disagree on how many slots it has "
                f"({first_ref.slot_count} vs {memref.slot_count}); declare it once with "
                "pl.MemRef(slots=N)",
                b.span,
            )
        if t.memory_space != first_type.memory_space:
            a = first_type.memory_space.value if first_type.memory_space is not None else "none"
            c = t.memory_space.value if t.memory_space is not None else "none"
            raise PassError(
                f"Tiles bound to the declared allocation '{name}' must all live in the same memory "
                f"space, got {a} and {c}",
                b.span,
            )
        if b.producer is not None and ops.inherited_arg(b.producer) is not None:
            raise PassError(
                f"Tile '{b.var.name_hint}' is the result of {b.producer}, which lands in its source "
                f"tile's allocation, so it cannot also be bound to the declared allocation "
                f"'{name}'",
                b.span,
            )
        slot_size = max(slot_size, size)
    count = first_ref.slot_count
    if slot_size * count > U64_MAX:
        raise PassError(
            f"Declared allocation '{name}' is too large: {count} slots of {slot_size} bytes "
            "overflow a 64-bit size",
            first.span,
        )
    if ptoas and count == 1:
        raise PassError(
            f'A single-slot declared allocation (pl.MemRef("{name}")) is not supported under '
            "memory_planner=PTOAS, which would be free to share it with other tiles. Declare it "
            "with pl.MemRef(slots=N) to get a ptoas multi-buffer region, or compile with the "
            "default PyPTO memory planner",
            first.span,
        )
    space = first_type.memory_space
    assert space is not None, "the parser requires a memory space with a MemRef"
    return Allocation(base, space, count, slot_size, tuple(bindings))


def _resolved_memref(memref: ir.MemRef, slot_size: int) -> ir.MemRef:
    index = memref.slot_index
    offset: ir.Expr
    if index is None:
        offset = ir.ConstInt(0, ir.DType.INT64)
    else:
        dtype = ir.expr_dtype(index)
        if not dtype.is_int:
            raise PassError(
                f"A slot index must be an integer or index expression, got {dtype.value}",
                getattr(index, "span", NO_SPAN),
            )
        k = fold_literal(index)
        if k is not None:
            offset = ir.ConstInt(k * slot_size, ir.DType.INT64)
        else:
            widened = index if dtype is ir.DType.INDEX else ir.Cast(index, ir.DType.INDEX)
            offset = ir.Mul(widened, ir.ConstInt(slot_size, ir.DType.INDEX), ir.DType.INDEX)
    return ir.MemRef(memref.base, offset, slot_size, False, memref.slot_count, index)


def alloc_statement(alloc: Allocation) -> ir.AssignStmt:
    """`BASE: pl.Ptr = pl.tile.alloc(pl.Mem.SPACE, TOTAL, pinned=True)` (§2.3)."""
    call = ir.Call(
        ALLOC_OP,
        (ir.SpaceArg(alloc.space), ir.ConstInt(alloc.total, ir.DType.INDEX)),
        (("pinned", ir.ConstInt(1, ir.DType.BOOL)),),
    )
    return ir.AssignStmt(alloc.base, call)


def is_alloc_statement(s: ir.Stmt) -> bool:
    return isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Call) and s.value.op == ALLOC_OP


def resolve_function(
    fn: ir.Function,
    *,
    ptoas: bool,
    backend: Backend,
    make_alloc: Callable[[Allocation], ir.Stmt] = alloc_statement,
) -> tuple[ir.Function, list[Allocation]]:
    """The function with every allocation resolved and hoisted, and the allocations in
    order of first binding."""
    allocations = [
        _check_allocation(base, bindings, ptoas, backend) for base, bindings in collect_bindings(fn.body)
    ]
    if not allocations:
        return fn, []
    mapping: dict[int, ir.Var] = {}
    for alloc in allocations:
        for b in alloc.bindings:
            t = b.var.type
            assert isinstance(t, ir.TileType)
            assert t.memref is not None
            new_type = replace(t, memref=_resolved_memref(t.memref, alloc.slot_size))
            mapping[b.var.id] = ir.Var(b.var.name_hint, new_type, span=b.var.span)
    body = substitute(fn.body, mapping)
    assert isinstance(body, ir.SeqStmts)
    hoisted = tuple(make_alloc(a) for a in allocations)
    return replace(fn, body=ir.SeqStmts(hoisted + body.stmts)), allocations


def resolved_allocations(fn: ir.Function, backend: Backend) -> list[Allocation]:
    """The allocations of a function init-memref has already run on, in hoisting order:
    read back from the hoisted statements and the resolved bindings."""
    order: list[ir.Var] = []
    totals: dict[int, tuple[ir.MemorySpace, int]] = {}
    for s in fn.body.stmts:
        if is_alloc_statement(s):
            assert isinstance(s, ir.AssignStmt)
            assert isinstance(s.value, ir.Call)
            space_arg, total_arg = s.value.args[0], s.value.args[1]
            assert isinstance(space_arg, ir.SpaceArg)
            assert isinstance(total_arg, ir.ConstInt)
            order.append(s.var)
            totals[s.var.id] = (space_arg.space, total_arg.value)
    bindings: dict[int, list[Binding]] = {}
    counts: dict[int, int] = {}
    sizes: dict[int, int] = {}
    for s in ir.walk_stmts(fn.body):
        if isinstance(s, ir.AssignStmt) and isinstance(s.var.type, ir.TileType):
            memref = s.var.type.memref
            if memref is not None and memref.base.id in totals:
                call = s.value if isinstance(s.value, ir.Call) else None
                bindings.setdefault(memref.base.id, []).append(Binding(s.var, call, _span_of(s.var, s.span)))
                counts[memref.base.id] = memref.slot_count
                sizes[memref.base.id] = memref.size
    out: list[Allocation] = []
    for base in order:
        space, total = totals[base.id]
        count = counts.get(base.id, 1)
        size = sizes.get(base.id, total // max(count, 1))
        out.append(Allocation(base, space, count, size, tuple(bindings.get(base.id, []))))
    return out


@dataclass(frozen=True)
class InitMemRef:
    """Resolve declared allocations: geometry, checks, hoisted allocation statements (§2)."""

    name: ClassVar[str] = "init-memref"

    planner: Planner = Planner.PTOAS
    """Who places buffers; under `PTOAS` a single-slot declaration is an error."""
    backend: Backend = Backend.ASCEND910B
    """The backend (the `Acc` row alignment of slot sizes)."""

    def run(self, fn: ir.Function) -> PassResult:
        new, _ = resolve_function(fn, ptoas=self.planner is Planner.PTOAS, backend=self.backend)
        return PassResult(new)
