"""The slot-privacy checker: does any slotted tile get overwritten while it is still live?

Used by `slotsat check` on the program after lower-pipeline-to-slots (synthesized slots)
and on the original program (author-declared slots); nothing distinguishes the two, since
a synthesized declaration is shaped exactly like an author's (`20-lower-pipeline-to-slots.md`
§4.3, §9).

The model
    - Every allocation with `F` slots (a pinned `pl.MemRef(..., slots=F)` declaration or
      its resolved form after init-memref; keyed by its base binder) is `F` physical
      buffers. A tile whose type binds slot `k` occupies buffer `k` from its definition
      until its last use; the slot index is evaluated per definition with the exact integer
      semantics (`10-dsl.md` §7.2, via `slotsat.core.interpreter.eval_scalar`).
    - Liveness follows the buffer, not the name: a copy (`v = t`), a view, an in-place
      result, a yielded value and the loop-carried or `if` result that receives it all
      extend the occupancy of the slot they came from. Uses are dynamic: the program is
      executed symbolically (tile data is not computed; scalars, loop bounds and carried
      scalars are), so a use in a later iteration or after the loop counts.
    - The schedule is pipelined per loop instance: a top-level `tile.load` of loop `L`'s
      body in iteration `J`, bound to an allocation with `F > 1` slots that the body loads
      into once per iteration, may issue as soon as iteration `J - F + 1` starts (while
      iterations `J - F + 1 .. J - 1` still compute), which is what ptoas's per-slot
      synchronization allows for an `F`-slot region (`interpreter.run_ahead_loads`; an
      allocation loaded twice per iteration is no region and its loads issue in order). Loads
      inside an `if` or a nested loop issue in program order within their own loop; a
      definition that is not a load (a computed tile bound to a slot) is written in order.
      Within one iteration program order holds. A loop instance drains before the code
      after it runs (the pipeline does not cross a loop's exit).
    - Two occupancies of one buffer conflict when they overlap: the later definition's
      (possibly early) write happens at or before the earlier tile's last use. One overlap is
      no conflict: an op that reads the earlier tile for the last time and writes its result
      over it, where the op table lets its result share that operand's buffer (`r =
      pl.exp(t)` with both on one slot computes in place; `ops.forbidden_args` names the
      operands an op may not overwrite, as for the reference's memory planner).

Reports
    `loop 'i' at LINE:COL: tile 't' of iteration I is overwritten by iteration J's load
    into slot K while still live`, where `I` and `J` are induction-variable values (the
    earlier tile's own loop, the overwriting definition's loop), followed by the
    allocation and, if it is another tile, the overwriting tile's name. One report per
    (loop, tile, overwriting tile); `count` says how many iteration pairs conflicted.

Catches, for example: `(i // 2) % 2` with two slots (iterations 0 and 1 share slot 0 while
both in flight), `i % 2` on a loop of step 64 (every iteration takes slot 0), `i % 2` on a
four-slot allocation of a `stage=4` loop, and two tiles bound to one slot in one body.

Bounds: runtime scalars come from the caller (`scalars`); a slot index, loop bound or
branch condition that depends on tile data is reported as a note and skipped. Each loop
instance is simulated for at most `max_iterations` iterations (the rest are not checked,
noted), and the run for at most `max_steps` statements (`slotsat/limits.py`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from slotsat.core import ir
from slotsat.core.errors import Span
from slotsat.core.interpreter import Interpreter, SlotRef, run_ahead_loads

DEFAULT_MAX_ITERATIONS = 4096
DEFAULT_MAX_STEPS = 2_000_000
_LOOKBACK = 256
"""Earlier occupancies of one buffer examined per definition: a conflict further back would
need more than 256 writes of one slot in flight, beyond any 16-slot region."""


@dataclass(frozen=True, slots=True)
class Violation:
    """A slotted tile overwritten while live (see the module docstring for the message)."""

    function: str
    loop: str
    loop_span: Span
    tile: str
    iteration: int | None
    other_tile: str
    other_iteration: int | None
    other_is_load: bool
    slot: int
    region: str
    count: int = 1

    def message(self) -> str:
        where = f"loop '{self.loop}' at {self.loop_span.line}:{self.loop_span.col}" if self.loop else \
            f"function '{self.function}'"
        it = f"iteration {self.iteration}" if self.iteration is not None else "the function body"
        other_it = f"iteration {self.other_iteration}'s" if self.other_iteration is not None else "the"
        verb = "load" if self.other_is_load else "write"
        extra = f"allocation '{self.region}'"
        if self.other_tile != self.tile:
            extra += f", overwritten by '{self.other_tile}'"
        if self.count > 1:
            extra += f"; {self.count} conflicting pairs"
        return (f"{where}: tile '{self.tile}' of {it} is overwritten by {other_it} {verb} into slot "
                f"{self.slot} while still live ({extra})")


@dataclass(frozen=True, slots=True)
class PrivacyReport:
    function: str
    violations: tuple[Violation, ...]
    notes: tuple[str, ...]
    definitions: int
    """How many slot-bound tile definitions were simulated."""

    @property
    def ok(self) -> bool:
        return not self.violations


@dataclass(slots=True)
class _Frame:
    loop: ir.ForStmt
    ident: int
    top_level: frozenset[int]
    iter_starts: list[int] = field(default_factory=list)
    ordinal: int = -1
    iv: int = 0


@dataclass(slots=True)
class _Occupancy:
    ref: SlotRef
    tile: str
    defined: int
    early: int
    """When the write may happen under the pipelined schedule (`defined` unless hoisted)."""
    last_use: int
    frame: _Frame | None
    ordinal: int
    iv: int | None
    is_load: bool
    over: frozenset[int] = frozenset()
    """The ids of the slot refs of the operands the defining op may write this tile over as it
    reads them (`Interpreter._overwritable`)."""


@dataclass
class _Tracer:
    """Implements `slotsat.core.interpreter.Tracer`."""

    time: int = 0
    frames: list[_Frame] = field(default_factory=list)
    occupancies: list[_Occupancy] = field(default_factory=list)
    by_ref: dict[int, _Occupancy] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    _frame_ids: int = 0
    _top_level_cache: dict[int, frozenset[int]] = field(default_factory=dict)

    def statement(self) -> None:
        self.time += 1

    def begin_loop(self, loop: ir.ForStmt) -> None:
        key = id(loop)
        top = self._top_level_cache.get(key)
        if top is None:
            top = run_ahead_loads(loop)
            self._top_level_cache[key] = top
        self._frame_ids += 1
        self.frames.append(_Frame(loop, self._frame_ids, top))

    def begin_iteration(self, loop: ir.ForStmt, ordinal: int, iv: int) -> None:
        self.time += 1
        f = self.frames[-1]
        f.ordinal, f.iv = ordinal, iv
        f.iter_starts.append(self.time)

    def end_loop(self, loop: ir.ForStmt, truncated: bool) -> None:
        self.time += 1
        self.frames.pop()
        if truncated:
            self._note(f"loop '{loop.loop_var.name_hint}' at {_pos(loop.span)}: only the first iterations "
                       "were checked (iteration limit)")

    def define(self, var: ir.Var, ref: SlotRef, is_load: bool, span: Span,
               over: tuple[SlotRef, ...] = ()) -> None:
        frame = self.frames[-1] if self.frames else None
        early = self.time
        if frame is not None and is_load and ref.slot_count > 1 and var.id in frame.top_level:
            first = max(0, frame.ordinal - ref.slot_count + 1)
            early = frame.iter_starts[first]
        occ = _Occupancy(ref, var.name_hint, self.time, early, self.time, frame,
                         frame.ordinal if frame is not None else -1,
                         frame.iv if frame is not None else None, is_load, frozenset(id(r) for r in over))
        self.occupancies.append(occ)
        self.by_ref[id(ref)] = occ

    def use(self, ref: SlotRef) -> None:
        occ = self.by_ref.get(id(ref))
        if occ is not None:
            occ.last_use = self.time

    def undetermined(self, what: str, span: Span) -> None:
        self._note(f"{_pos(span)}: {what}; not checked")

    def _note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)


def _pos(span: Span) -> str:
    return f"{span.line}:{span.col}"


def _conflicts(fn_name: str, occupancies: list[_Occupancy]) -> list[Violation]:
    per_buffer: dict[tuple[int, int], list[_Occupancy]] = defaultdict(list)
    for occ in occupancies:
        per_buffer[(occ.ref.key, occ.ref.slot)].append(occ)
    found: dict[tuple[int, str, str], Violation] = {}
    order: list[tuple[int, str, str]] = []
    for occs in per_buffer.values():
        for j, later in enumerate(occs):
            for earlier in reversed(occs[max(0, j - _LOOKBACK):j]):
                same_iteration = later.frame is earlier.frame and later.ordinal == earlier.ordinal
                write = later.defined if same_iteration else later.early
                if write > earlier.last_use:
                    continue
                if write == later.defined == earlier.last_use and id(earlier.ref) in later.over:
                    continue  # the op that reads the tile last computes over it, in place
                _record(fn_name, earlier, later, found, order)
    return [found[k] for k in order]


def _record(fn_name: str, earlier: _Occupancy, later: _Occupancy,
            found: dict[tuple[int, str, str], Violation], order: list[tuple[int, str, str]]) -> None:
    loop = later.frame.loop if later.frame is not None else None
    key = (id(loop), earlier.tile, later.tile)
    if key in found:
        v = found[key]
        found[key] = Violation(v.function, v.loop, v.loop_span, v.tile, v.iteration, v.other_tile,
                               v.other_iteration, v.other_is_load, v.slot, v.region, v.count + 1)
        return
    order.append(key)
    found[key] = Violation(
        function=fn_name,
        loop=loop.loop_var.name_hint if loop is not None else "",
        loop_span=loop.span if loop is not None else Span(0, 0),
        tile=earlier.tile,
        iteration=earlier.iv,
        other_tile=later.tile,
        other_iteration=later.iv,
        other_is_load=later.is_load,
        slot=later.ref.slot,
        region=later.ref.region,
    )


def check_privacy(fn: ir.Function, scalars: Mapping[str, int] | None = None, *,
                  max_iterations: int = DEFAULT_MAX_ITERATIONS,
                  max_steps: int = DEFAULT_MAX_STEPS) -> PrivacyReport:
    """Simulate `fn` under the pipelined schedule and report every slot-privacy conflict.

    `scalars` gives the scalar parameters by name, and the symbolic dimensions and declared
    valid extents the types name; a missing one is unknown (loops bounded by it are skipped
    with a note). Tensor data is never needed.
    """
    tracer = _Tracer()
    interp = Interpreter(physical=True, prefetch=False, compute=False, tracer=tracer,
                         max_steps=max_steps, max_iterations=max_iterations, truncate_loops=True)
    args: dict[str, Any] = {}
    for p in fn.params:
        args[p.name_hint] = (scalars or {}).get(p.name_hint)
    for v in (*ir.dynamic_dimensions(fn), *ir.valid_shape_symbols(fn)):
        if scalars and v.name_hint in scalars:  # the drawn value of a symbol a type names
            args[v.name_hint] = scalars[v.name_hint]
    interp.run(fn, args)
    violations = _conflicts(fn.name, tracer.occupancies)
    return PrivacyReport(fn.name, tuple(violations), tuple(tracer.notes), len(tracer.occupancies))
