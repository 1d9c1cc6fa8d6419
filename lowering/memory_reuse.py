"""memory-reuse: the PYPTO planner's buffer placement, and the declared-slot check of every
planner (`05-decisions.md` item 14, superseding `30-pto-codegen.md` §5.9's allocator).

Overview
--------
Under `PYPTO` codegen gives every `pto.alloc_tile` an address. This module chooses them
the way the reference's MemoryReuse + AllocateMemoryAddr do, on the live ranges of
`analysis/liveness.py`:

1. Declared allocations (author `pl.MemRef`, in init-memref order) are never shared: each
   gets its own range at the bottom of its space, as before.
2. Every other buffer (one per tile handle, plus the scratch tile a row reduction needs)
   is packed per memory space first-fit-decreasing (largest first, ties by definition
   order): it joins the first existing buffer whose every member it may share with, else
   opens a new one. A buffer is as large as its first (largest) member, so a later member
   always fits. Two tiles may share when their live ranges do not overlap (touching is
   allowed: an op reads its operands before it writes its result), unless the op forbids
   its result on that operand (below), or they are stages of one replicated pipeline that
   should stay apart (below).
3. Buffers are laid out in order of their first definition, each start aligned up to 512
   bytes (slotsat's alignment, unchanged). A space whose end exceeds its capacity is the
   capacity error, naming the space, the bytes needed and the line where the most bytes
   are live at once.

Before / After (RowScale, `pl.pipeline(8, stage=2)` replicated, Vec, 910B)::

    xt, gt, prod, xt_1, gt_1, prod_1 at 0, 32768, ..., 163840   (196,608 B: rejected)
    xt, prod at 0; gt at 32768; xt_1, prod_1 at 65536; gt_1 at 98304   (131,072 B)

Why the op guard
----------------
The reference marks ops that cannot write their result over an operand they still read:
row reductions, `recip`, `rsqrt` and `move` (all operands), the row-expand family (the
broadcast row, re-read for every row), and a widening `cast` (its write cursor outruns
its read cursor). Their result never shares a buffer with those operands. A row
reduction's scratch tile is read and written during the op: it shares with nothing live
at that statement.

Why the pipeline guard
----------------------
Clone `k` of a replicated pipeline (`pipeline_membership` `"G:k"`, `20-...` §12.2) is
meant to run while clone `k + 1` loads: their live ranges are disjoint in program order,
but sharing one buffer would serialize them. As the reference does (capacity-gated):
stages of one group `G` in one space keep `F_G = min(stages, capacity // largest tile)`
residues apart (stage ordinal mod `F_G`); while the space overflows, the group with the
largest tile sheds one residue and the space is packed again (at most 256 times); if it
still overflows, the space is packed with the reference's legacy rule (only loads kept
apart, the L0 spaces exempt), which is also the rule where the capacity is unknown.

One buffer, one value (every planner)
-------------------------------------
Codegen keeps a loop carry (initial value, carried variable, yielded value, result), an `if`
result with the values its branches yield, and an in-place result with its operand in one
buffer (`30-pto-codegen.md` §5.5). That is right only while the buffer holds the value a
name is read for: a tile read inside a loop after the loop overwrote its buffer (the initial
value of a carry read in the body, or the operand of an in-place op in a loop), a carried
value read after its next value is written, or a branch yielding a value its buffer no
longer holds would read the wrong data. A view yielded into a carry or result that has a
buffer of its own is rejected too (its bytes are its source's). An abstract walk tracks
which value each buffer holds (a loop's body once, with the buffers it writes marked as
holding "an earlier iteration's" value; an `if`'s branches from one state, joined) and
rejects such a read. It also rejects a result the sharing would write into the buffer of an
operand its op may not overwrite while reading it (`forbidden_args`: `x = pl.recip(x)`
carried), which the reference compiles by giving the result a buffer of its own and moving
it into the carry's.

Declared slots (every planner)
------------------------------
Two tiles independently bound to one slot of a declared allocation (a constant slot, an
unsubscripted binding, or the same runtime slot expression) while both are live would
overwrite each other: that is an error with the reference's wording, under every planner.
Where the source lines are shown the reference prints its statement order numbers.

Related: `analysis/liveness.py`, `lowering/pto_codegen.py` (emits the addresses),
`lowering/init_memref.py` (the declared allocations).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise

from slotsat.analysis.budget import Backend, tile_bytes
from slotsat.analysis.liveness import Buffer, Liveness, Membership
from slotsat.core import ir, ops
from slotsat.core.errors import NO_SPAN, PassError, Span
from slotsat.core.semantics import fold
from slotsat.lowering.init_memref import Allocation, Binding

ALIGN = 512
MAX_SHED_REPACKS = 256
"""The reference's bound on capacity-driven re-packs (`kMaxShedRepacks`)."""
L0_SPACES = frozenset({ir.MemorySpace.Left, ir.MemorySpace.Right, ir.MemorySpace.Acc, ir.MemorySpace.Bias})
LOAD_OPS = frozenset({"tile.load", "tile.read"})

def align_up(n: int) -> int:
    return -(-n // ALIGN) * ALIGN


# --------------------------------------------------------------------------------------
# declared slots (every planner)


def _expr_key(e: object) -> object:
    """A hashable structural key of an expression, binders by identity."""
    if isinstance(e, ir.Var):
        return ("var", e.id)
    if isinstance(e, ir.ConstInt):
        return ("int", e.value, e.dtype)
    if isinstance(e, ir.Cast):
        return ("cast", e.dtype, _expr_key(e.a))
    if isinstance(e, ir.Cmp):
        return ("cmp", e.op, _expr_key(e.a), _expr_key(e.b))
    if isinstance(e, ir.Add | ir.Sub | ir.Mul | ir.FloorDiv | ir.FloorMod):
        return (type(e).__name__, e.dtype, _expr_key(e.a), _expr_key(e.b))
    return ("other", id(e))


def _slot_key(memref: ir.MemRef) -> object:
    """Which slot a resolved binding selects, as a static fact: its constant byte offset, or
    its runtime slot expression (one expression is one slot wherever both are evaluated)."""
    try:
        offset = fold(memref.byte_offset)
    except PassError:
        offset = memref.byte_offset
    if isinstance(offset, ir.ConstInt):
        return ("offset", offset.value)
    return ("index", _expr_key(memref.slot_index if memref.slot_index is not None else memref.byte_offset))


def check_declared_slots(live: Liveness, allocations: Sequence[Allocation]) -> None:
    """Reject two tiles bound to one slot of a declared allocation while both are live (the
    reference's `ValidateDeclaredAllocs`, extended to a repeated runtime slot expression).

    Only bindings that own their buffer occupy their slot. Such a tile is live within one
    iteration of each loop around it (a value carried on would belong to the carry's
    buffer), so two of them with one slot expression select one slot.

    Touching lifetimes are allowed, as in the reference (the last read of one tile may be the
    statement that produces the next), except where that statement's op may not write over the
    operand it reads (`forbidden_args`: `r = pl.recip(t)` with both on one slot would be an
    in-place `trecip`). The reference accepts that binding; slotsat rejects it, because the
    author pinned both tiles and no placement can repair it."""
    for alloc in allocations:
        by_slot: dict[object, dict[int, Binding]] = {}
        for binding in alloc.bindings:
            v = binding.var
            t = v.type
            buf = live.buffer(v)
            if buf is None or not isinstance(t, ir.TileType) or t.memref is None:
                continue
            if binding.call is None or ops.inherited_arg(binding.call.op) is not None:
                continue  # a copy or a view is the same data as its source
            if buf.owner.id != v.id:
                continue  # written into a carry's or an if result's buffer, not into the slot
            by_slot.setdefault(_slot_key(t.memref), {}).setdefault(buf.index, binding)
        for members in by_slot.values():
            ordered = sorted(members.items(), key=lambda kv: live.buffers[kv[0]].start)
            for (pk, first), (ck, second) in pairwise(ordered):
                prev, cur, call = first.var, second.var, second.call
                assert call is not None  # only bindings with a defining call are members
                a, b = live.buffers[pk], live.buffers[ck]
                if a.end > b.start:
                    raise PassError(_co_live_message(live, alloc.name, (prev, a), (cur, b)), cur.span)
                arg = _overwritten_operand(live, call, cur, pk) if a.end == b.start else None
                if arg is not None:
                    op = call.op
                    raise PassError(
                        f"Tiles '{prev.name_hint}' and '{cur.name_hint}' are both bound to the same slot "
                        f"of the declared allocation '{alloc.name}', and {op} would write "
                        f"'{cur.name_hint}' over '{arg.name_hint}' while it reads it, which {op} may not "
                        "do in place — put them on different slots or declare separate allocations.",
                        cur.span,
                    )


def _overwritten_operand(live: Liveness, call: ir.Call, result: ir.Var, index: int) -> ir.Var | None:
    """The tile operand of `call` held in buffer `index` that the op may not write its result
    `result` over while it reads it (`forbidden_args`), if any: the buffer `result` is written
    into, or one that shares its place (a tile before it on the same declared slot)."""
    for arg in ops.forbidden_args(call, result):
        if isinstance(arg, ir.Var) and isinstance(arg.type, ir.TileType):
            held = live.buffer(arg)
            if held is not None and held.index == index:
                return arg
    return None


def _co_live_message(
    live: Liveness, name: str, first: tuple[ir.Var, Buffer], second: tuple[ir.Var, Buffer]
) -> str:
    (prev, a), (cur, b) = first, second

    def rng(buf: Buffer) -> str:
        return f"[{live.line(buf.start)}, {live.line(buf.end)}]"

    return (
        f"Tiles '{prev.name_hint}' and '{cur.name_hint}' are both bound to the same slot of the declared "
        f"allocation '{name}' but are live at the same time ({prev.name_hint}: {rng(a)}, "
        f"{cur.name_hint}: {rng(b)}). Sharing one slot would overwrite data that is still needed — put "
        "them on different slots, declare separate allocations, or bind only tiles whose lifetimes do "
        "not overlap."
    )


# --------------------------------------------------------------------------------------
# one buffer, one value at a time (every planner)


class SharedBufferConflict(PassError):
    """`check_shared_buffers`' rejection: `var` is read where its buffer holds another value
    (`lowering/carry_copies.py` repairs the loop carries among them)."""

    def __init__(self, message: str, span: Span, var: ir.Var) -> None:
        super().__init__(message, span)
        self.var = var


@dataclass(frozen=True, eq=False)
class _Value:
    """What a buffer holds after a write (`writer`) or where its content is not one value
    of the program (`where`: a loop's iteration start or exit, an if's join)."""

    writer: ir.Var | None = None
    where: str = ""

    def describe(self) -> str:
        return f"'{self.writer.name_hint}'" if self.writer is not None else self.where


@dataclass
class _BufferValues:
    """The abstract walk of `check_shared_buffers`: per buffer the value it holds, per tile
    variable the value it names."""

    live: Liveness
    holds: dict[int, _Value] = field(default_factory=dict)
    names: dict[int, _Value] = field(default_factory=dict)
    logs: list[dict[int, _Value | None]] = field(default_factory=list)
    """One undo log per open `if` branch: each buffer's value before the branch wrote it."""

    def hold(self, b: int, value: _Value) -> None:
        if self.logs and b not in self.logs[-1]:
            self.logs[-1][b] = self.holds.get(b)
        self.holds[b] = value

    def branch(self, body: ir.SeqStmts | None) -> tuple[tuple[ir.Expr, ...], dict[int, _Value | None]]:
        """Walk one branch; its yielded values and the buffers it changed (then undone)."""
        if body is None:
            return (), {}
        self.logs.append({})
        values = self.body(body)
        log = self.logs.pop()
        changed = {b: self.holds.get(b) for b in log}
        for b, old in log.items():
            if old is None:
                self.holds.pop(b, None)
            else:
                self.holds[b] = old
        return values, changed

    def buf(self, v: object) -> int | None:
        if not isinstance(v, ir.Var):
            return None
        b = self.live.buffer(v)
        return None if b is None else b.index

    def read(self, v: ir.Var, span: Span, verb: str = "read",
             state: dict[int, _Value | None] | None = None) -> None:
        """Check that `v`'s buffer holds `v`'s value (in `state` over the current one)."""
        b = self.buf(v)
        value = self.names.get(v.id)
        held = None
        if b is not None:
            held = state[b] if state is not None and b in state else self.holds.get(b)
        if value is None or held is None or held is value:
            return
        raise SharedBufferConflict(
            f"tile '{v.name_hint}' is {verb} after its buffer was overwritten by {held.describe()}: a loop "
            "carry, an if result and an in-place result stay in the buffer of the value they start from, "
            "so they share one address with it; read the carried value instead, or copy the tile first",
            span if span != NO_SPAN else v.span, v,
        )

    def reads(self, e: object, span: Span) -> None:
        for v in ir.expr_vars(e):  # type: ignore[arg-type]
            if isinstance(v.type, ir.TileType):
                self.read(v, span)

    def written(self, body: ir.SeqStmts) -> set[int]:
        """Buffers some assignment in `body` (at any depth) writes."""
        out: set[int] = set()
        for s in ir.walk_stmts(body):
            if isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Call) \
                    and s.var.id not in self.live.views:
                b = self.buf(s.var)
                if b is not None:
                    out.add(b)
        return out

    def body(self, b: ir.SeqStmts) -> tuple[ir.Expr, ...]:
        """Walk `b`; the values of its trailing yield (not checked here)."""
        for s in b.stmts:
            if isinstance(s, ir.YieldStmt):
                return s.values
            self.stmt(s)
        return ()

    def stmt(self, s: ir.Stmt) -> None:
        if isinstance(s, ir.AssignStmt):
            self.reads(s.value, s.span)
            if not isinstance(s.var.type, ir.TileType):
                return
            if isinstance(s.value, ir.Var):
                self.names[s.var.id] = self.names.get(s.value.id, _Value(s.value))
            elif isinstance(s.value, ir.Call) and s.var.id in self.live.views:
                src = s.value.args[0] if s.value.args else None
                if isinstance(src, ir.Var) and src.id in self.names:
                    self.names[s.var.id] = self.names[src.id]
            else:
                value = _Value(s.var)
                self.names[s.var.id] = value
                b = self.buf(s.var)
                if b is not None and isinstance(s.value, ir.Call):
                    self.in_place(s.var, s.value, b, s.span)
                if b is not None:
                    self.hold(b, value)
        elif isinstance(s, ir.EvalStmt):
            self.reads(s.call, s.span)
        elif isinstance(s, ir.ReturnStmt):
            for e in s.values:
                self.reads(e, s.span)
        elif isinstance(s, ir.ForStmt | ir.WhileStmt):
            self.loop(s)  # a while loop's condition reads scalars only
        elif isinstance(s, ir.IfStmt):
            self.if_(s)

    def in_place(self, result: ir.Var, call: ir.Call, b: int, span: Span) -> None:
        """Reject a result written into the buffer of an operand the op may not overwrite while
        it reads it (`forbidden_args`): a loop carry or an if result keeps the operand and the
        result in one buffer (carry-copies repairs it as the reference's YieldFixup does)."""
        if ops.inherited_arg(call.op) is not None:
            return  # a view or an in-place op: its result is that argument's buffer by design
        arg = _overwritten_operand(self.live, call, result, b)
        if arg is not None:
            raise SharedBufferConflict(
                f"tile '{result.name_hint}' would be written by {call.op} into the buffer of "
                f"'{arg.name_hint}', which it reads and may not overwrite: a loop carry or an if "
                "result keeps both in one buffer; yield a copy of the result instead",
                span if span != NO_SPAN else result.span, result,
            )

    def loop(self, s: ir.ForStmt | ir.WhileStmt) -> None:
        line = f"the loop at line {s.span.line}"
        for it in s.iter_args:
            self.reads(it.init, s.span)
        written = self.written(s.body)
        carried: dict[int, int] = {}
        for k, it in enumerate(s.iter_args):
            b = self.buf(it.var)
            if b is None or not isinstance(it.init, ir.Var):
                continue
            if b in written:
                carried[k] = b
                self.names[it.var.id] = head = _Value(where=line)
                self.hold(b, head)
            elif it.init.id in self.names:
                self.names[it.var.id] = self.names[it.init.id]
        for b in written - set(carried.values()):
            self.hold(b, _Value(where=f"an earlier iteration of {line}"))
        yielded = self.body(s.body)
        for k in carried:
            v = yielded[k] if k < len(yielded) else None
            if isinstance(v, ir.Var):
                self.read(v, s.span, "yielded")
        for b in written:
            self.hold(b, _Value(where=line))
        for k, b in carried.items():
            if k < len(s.return_vars):
                self.names[s.return_vars[k].id] = self.holds[b]
        for k, r in enumerate(s.return_vars):
            if k not in carried and k < len(s.iter_args) and r.id not in self.names:
                init = s.iter_args[k].init
                if isinstance(init, ir.Var) and init.id in self.names:
                    self.names[r.id] = self.names[init.id]

    def if_(self, s: ir.IfStmt) -> None:
        self.reads(s.cond, s.span)
        then, after_then = self.branch(s.then_body)
        other, after_else = self.branch(s.else_body)
        for k in range(len(s.return_vars)):
            for values, state in ((then, after_then), (other, after_else)):
                v = values[k] if k < len(values) else None
                if isinstance(v, ir.Var) and isinstance(v.type, ir.TileType):
                    self.read(v, s.span, "yielded", state)
        branch = _Value(where=f"one branch of the if at line {s.span.line}")
        for key in after_then.keys() | after_else.keys():
            x = after_then[key] if key in after_then else self.holds.get(key)
            y = after_else[key] if key in after_else else self.holds.get(key)
            self.hold(key, x if x is y and x is not None else branch)
        for r in s.return_vars:
            b = self.buf(r)
            if b is not None:
                self.names[r.id] = value = _Value(r)
                self.hold(b, value)


def check_shared_buffers(fn: ir.Function, live: Liveness) -> None:
    """Reject a tile read after another value overwrote the buffer it shares (see the module
    docstring, "One buffer, one value")."""
    misplaced = _misplaced_view(live)
    if misplaced is not None:
        raise misplaced
    _BufferValues(live).body(fn.body)


def _misplaced_view(live: Liveness) -> SharedBufferConflict | None:
    """A view (`tile.reshape`, `tile.slice`) that a loop or a branch of an `if` yields into a
    carry or result with a buffer of its own: the view's bytes are its source's, so the
    result's buffer would never receive them (the first such view, in buffer order)."""
    for buf in live.buffers:
        for v in buf.members:
            src = live.views.get(v.id)
            home = None if src is None else live.buffer_of.get(src)
            if home is not None and home != buf.index:
                source = live.buffers[home].owner
                return SharedBufferConflict(
                    f"tile '{v.name_hint}' is a view of the buffer of '{source.name_hint}' but is yielded "
                    f"as a loop carry or if result that keeps the buffer of '{buf.owner.name_hint}': a view "
                    "writes no bytes of its own; yield a copy of it (pl.tile.move)",
                    v.span, v,
                )
    return None


# --------------------------------------------------------------------------------------
# the plan


@dataclass(frozen=True, slots=True)
class _Item:
    """One thing to place: a buffer of the liveness analysis, or a row reduction's scratch."""

    key: int
    """The buffer index, or `-1 - position` for the scratch tile of the reduction there."""
    target: int
    """For a scratch tile, the id of the reduction's result (else -1)."""
    space: ir.MemorySpace
    size: int
    start: int
    end: int
    membership: Membership
    loaded: bool
    span: Span

    def overlaps(self, other: _Item) -> bool:
        return not (self.end <= other.start or other.end <= self.start)


@dataclass
class MemoryPlan:
    """Addresses under the PYPTO planner: per declared allocation its base, per buffer and
    per row-reduction scratch tile its start."""

    declared: dict[int, int] = field(default_factory=dict)
    """Base binder id -> address."""
    buffers: dict[int, int] = field(default_factory=dict)
    """Buffer index (`Liveness.buffers`) -> address."""
    scratch: dict[int, int] = field(default_factory=dict)
    """The id of a row reduction's result -> the address of the reduction's scratch tile."""
    ends: dict[ir.MemorySpace, int] = field(default_factory=dict)
    """Per space, the first byte above everything placed."""


def _space(t: ir.TileType) -> ir.MemorySpace:
    return t.memory_space if t.memory_space is not None else ir.MemorySpace.Vec


def _items(fn: ir.Function, live: Liveness, backend: Backend, declared: set[int]) -> list[_Item]:
    out: list[_Item] = []
    for buf in live.buffers:
        memref = buf.tile.memref
        if memref is not None and memref.base.id in declared:
            continue
        size = tile_bytes(buf.tile, backend)
        if size is None:
            raise PassError(f"tile '{buf.owner.name_hint}' has no static size", buf.owner.span)
        loaded = buf.producer in LOAD_OPS
        span = live.points[buf.start] if buf.start < len(live.points) else NO_SPAN
        out.append(
            _Item(buf.index, -1, _space(buf.tile), size, buf.start, buf.end, buf.membership, loaded, span)
        )
    for s in ir.walk_stmts(fn.body):
        if not (isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Call)):
            continue
        if not synthesizes_scratch(s.value):
            continue
        src = s.value.args[0]
        assert isinstance(src, ir.Var)
        if not isinstance(src.type, ir.TileType):
            continue
        size = tile_bytes(src.type, backend)
        if size is None:
            raise PassError(f"tile '{src.name_hint}' has no static size", src.span)
        p = live.positions[id(s)]
        out.append(_Item(-1 - p, s.var.id, _space(src.type), size, p, p, (), False, s.span))
    return out


def _forbidden(fn: ir.Function, live: Liveness) -> dict[int, set[int]]:
    """Item key -> the item keys it may never share a buffer with (the op guard, symmetric)."""
    out: dict[int, set[int]] = {}

    def forbid(a: int, b: int) -> None:
        out.setdefault(a, set()).add(b)
        out.setdefault(b, set()).add(a)

    def key(v: object) -> int | None:
        if not isinstance(v, ir.Var):
            return None
        buf = live.buffer(v)
        return None if buf is None else buf.index

    for s in ir.walk_stmts(fn.body):
        if not (isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Call)):
            continue
        call = s.value
        result = key(s.var)
        if result is None:
            continue
        args = [a for a in call.args if not isinstance(a, ir.DTypeArg | ir.SpaceArg)]
        picked = ops.forbidden_args(call, s.var)
        if synthesizes_scratch(call):
            scratch = -1 - live.positions[id(s)]
            for k in (result, key(args[0]) if args else None):
                if k is not None:
                    forbid(scratch, k)
        for operand in picked:
            k = key(operand)
            if k is not None and k != result:
                forbid(result, k)
    return out


def synthesizes_scratch(call: ir.Call) -> bool:
    """A row reduction written without its scratch tile (`pl.row_sum(t)`): codegen makes the
    scratch, so the plan places it. The reference's printed form names the scratch tile as its
    second argument (`pl.tile.row_sum(t, tmp)`), an ordinary tile placed with the others."""
    spec = ops.lookup(call.op)
    return (spec is not None and spec.rule is ops.TypeRule.ROW_REDUCE and len(call.args) == 1
            and isinstance(call.args[0], ir.Var))


@dataclass
class _Bin:
    """One physical buffer of a pack: its members (the first is the largest), their live
    ranges sorted (pairwise disjoint, so their ends rise too), their keys, and per pipeline
    group the residues (gated guard) or stages (legacy guard) already inside."""

    members: list[_Item] = field(default_factory=list)
    spans: list[tuple[int, int]] = field(default_factory=list)
    keys: set[int] = field(default_factory=set)
    residues: dict[int, set[int]] = field(default_factory=dict)
    stages: dict[int, set[int]] = field(default_factory=dict)
    loaded_stages: dict[int, set[int]] = field(default_factory=dict)

    def add(self, item: _Item, packer: _Packer) -> None:
        bisect.insort(self.spans, (item.start, item.end))
        self.members.append(item)
        self.keys.add(item.key)
        for g, st in item.membership:
            self.residues.setdefault(g, set()).add(packer.residue(g, st))
            self.stages.setdefault(g, set()).add(st)
            if item.loaded:
                self.loaded_stages.setdefault(g, set()).add(st)


@dataclass
class _Packer:
    """The reference's first-fit-decreasing pack of one space, with the pipeline guard."""

    space: ir.MemorySpace
    items: list[_Item]
    forbidden: dict[int, set[int]]
    """Item key -> the keys it may never share a buffer with (the op guard, both ways)."""
    capacity: int
    reserved: int
    depth: dict[int, int] = field(default_factory=dict)
    """Group -> `F_G`, the residues its stages keep apart (mutable: the shed loop lowers it)."""
    requested: dict[int, int] = field(default_factory=dict)
    ordinal: dict[int, dict[int, int]] = field(default_factory=dict)
    slot: dict[int, int] = field(default_factory=dict)
    legacy: bool = False

    def __post_init__(self) -> None:
        stages: dict[int, set[int]] = {}
        for item in self.items:
            for g, st in item.membership:
                self.slot[g] = max(self.slot.get(g, 0), item.size)
                stages.setdefault(g, set()).add(st)
        for g, size in self.slot.items():
            depth = len(stages[g])
            self.requested[g] = depth
            gated = self.capacity != 0 and size != 0
            self.depth[g] = max(1, min(depth, self.capacity // size)) if gated else 1
            self.ordinal[g] = {st: k for k, st in enumerate(sorted(stages[g]))}
        self.items.sort(key=lambda it: (-it.size, it.start, it.key))

    def residue(self, group: int, stage: int) -> int:
        return self.ordinal[group].get(stage, stage) % self.depth.get(group, 1)

    def fits(self, item: _Item, b: _Bin) -> bool:
        """May `item` join buffer `b`: no member's live range overlaps its own (touching is
        fine), no op forbids the pair, and the pipeline guard keeps no member apart from it."""
        k = bisect.bisect_left(b.spans, (item.end, -1))
        if k > 0 and b.spans[k - 1][1] > item.start:
            return False  # members are disjoint, so their ends rise with their starts
        if self.forbidden.get(item.key, set()) & b.keys:
            return False
        return not self.pipeline_blocks(item, b)

    def pipeline_blocks(self, item: _Item, b: _Bin) -> bool:
        if not item.membership:
            return False
        gated = not self.legacy and self.capacity != 0
        if gated:
            for g, st in item.membership:
                r = self.residue(g, st)
                if b.residues.get(g, set()) - {r}:
                    return True
            return False
        if self.space in L0_SPACES:
            return False
        for g, st in item.membership:
            others = b.stages.get(g, set()) if item.loaded else b.loaded_stages.get(g, set())
            if others - {st}:
                return True
        return False

    def pack(self) -> list[_Bin]:
        bins: list[_Bin] = []
        for item in self.items:
            for b in bins:
                if self.fits(item, b):
                    b.add(item, self)
                    break
            else:
                b = _Bin()
                b.add(item, self)
                bins.append(b)
        return bins

    def footprint(self, bins: Iterable[_Bin]) -> int:
        end = self.reserved
        for b in bins:
            end = align_up(end + b.members[0].size)
        return end

    def run(self) -> list[_Bin]:
        buffers = self.pack()
        if self.capacity == 0:
            return buffers
        repacks = 0
        while self.footprint(buffers) > self.capacity:
            repacks += 1
            sheddable = [g for g, f in self.depth.items() if f > 1]
            if repacks > MAX_SHED_REPACKS or not sheddable:
                self.legacy = True
                return self.pack()
            group = min(sheddable, key=lambda g: (-align_up(self.slot[g]), g))
            self.depth[group] -= 1
            buffers = self.pack()
        return buffers


def plan_memory(
    fn: ir.Function, live: Liveness, allocations: Sequence[Allocation], backend: Backend
) -> MemoryPlan:
    """The PYPTO planner's addresses for `fn` (see the module docstring); raises the capacity
    error when a space does not fit."""
    plan = MemoryPlan()
    for alloc in allocations:
        start = align_up(plan.ends.get(alloc.space, 0))
        plan.declared[alloc.base.id] = start
        plan.ends[alloc.space] = start + alloc.total
    declared = {a.base.id for a in allocations}
    items = _items(fn, live, backend, declared)
    forbidden = _forbidden(fn, live)
    spaces: list[ir.MemorySpace] = []
    for item in items:
        if item.space not in spaces:
            spaces.append(item.space)
    for space in spaces:
        reserved = align_up(plan.ends.get(space, 0))
        packer = _Packer(space, [it for it in items if it.space is space], forbidden,
                         backend.capacity(space), reserved)
        bins = packer.run()
        bins.sort(key=lambda b: min((m.start, m.key) for m in b.members))
        end = reserved
        for b in bins:
            members = b.members
            start = align_up(end)
            for m in members:
                if m.key >= 0:
                    plan.buffers[m.key] = start
                else:
                    plan.scratch[m.target] = start
            end = start + max(m.size for m in members)
        plan.ends[space] = max(plan.ends.get(space, 0), end)
    for space, end in plan.ends.items():
        cap = backend.capacity(space)
        if cap and end > cap:
            peak, span = _peak(live, [it for it in items if it.space is space], allocations, space)
            where = f"line {span.line}" if span.line > 0 else "its peak"
            raise PassError(
                f"PYPTO planner: {space.value} needs {end} bytes but the backend provides {cap}; at "
                f"{where}, {peak} bytes of tiles are live at once",
                span,
            )
    return plan


def _peak(
    live: Liveness, items: Sequence[_Item], allocations: Sequence[Allocation], space: ir.MemorySpace
) -> tuple[int, Span]:
    """The most bytes live at once in `space` (declared allocations included) and where."""
    reserved = 0
    for alloc in allocations:
        if alloc.space is space:
            reserved = align_up(reserved) + alloc.total
    events: dict[int, int] = {}
    for it in items:
        events[it.start] = events.get(it.start, 0) + align_up(it.size)
        stop = max(it.end, it.start + 1)
        events[stop] = events.get(stop, 0) - align_up(it.size)
    peak, peak_at, running = -1, -1, 0
    for p in sorted(events):
        running += events[p]
        if running > peak:
            peak, peak_at = running, p
    if peak_at >= 0:
        return reserved + peak, live.points[peak_at]
    declared = [a for a in allocations if a.space is space and a.bindings]
    return reserved, declared[0].bindings[0].span if declared else NO_SPAN
