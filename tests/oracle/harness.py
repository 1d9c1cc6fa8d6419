"""The reference as an oracle: its per-loop decisions, slotsat's, and the differences
`05-decisions.md` allows between them.

The reference's decisions are read off its own IR (`slotsat.bridge` reports every loop of
the program just before and just after its LowerPipelineToSlots, in pre-order, with the
MemRefs on the tiles of each loop's own body): a pipeline loop of `F > 1` stages that is no
longer a pipeline loop afterwards was slotted, one that still is was declined; its slotted
tiles carry `pl.MemRef("pipe_<tile>", slots=F)[index]`.

slotsat's decisions come from its own slots pass, run the way the reference runs its pass
here: `memory_planner=PTOAS`, backend Ascend910B, and `--compat pypto` (the reference's
all-arguments view gate, decision 2) unless a test states otherwise.

Where the two designs agree (a unit step and `start % F == 0`) the decisions and the slot
indices must be equal. Elsewhere a difference must be one of these, and nothing else:

- decision 1 (`loop shapes`): the reference declines every loop with a step other than 1 or
  `start % F != 0`; slotsat slots it with the §4.2 form;
- decision 8 (`negative start`): the reference rotates a negative start that is a multiple
  of F (its truncating `start % F == 0`); slotsat declines it (`negative-start`);
- decision 2 (`view gate`), only without `--compat pypto`: the reference declines a loop
  whose load feeds any argument of an inheriting op (a store); slotsat slots it;
- their consequences: a loop nested in a loop decided differently (one side declines it as
  `under-declined`, §7), and a later loop of the same function that one side declines for
  `capacity` because the other side's budget was spent differently (§8.3).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from slotsat.analysis.budget import Backend
from slotsat.bridge import Kernel, RefLoop
from slotsat.core import ir
from slotsat.core.dsl.printer import FunctionPrinter
from slotsat.core.options import Planner
from slotsat.lowering.lower_pipeline_to_slots import LowerPipelineToSlots


@dataclass(frozen=True, slots=True)
class Verdict:
    """One pipeline loop's decision, comparable across the two compilers."""

    function: str
    position: int
    """The loop's index among the pipeline loops of its function, in pre-order: how loops
    are matched (the reference's spans point into the kernel file, slotsat's into whatever
    text it parsed)."""
    line: int
    depth: int
    stages: int
    start: int | str
    step: int | str
    decision: str
    """`slotted`, `declined` or `untouched` (`stage=1`)."""
    reason: str | None = None
    """slotsat's decline code (the reference gives none)."""
    index: str | None = None
    """The slot index of the slotted tiles, the loop variable spelled `IV`."""
    tiles: int = 0
    """How many tiles the loop's rotation binds."""
    ancestors: tuple[int, ...] = ()
    """The positions of the pipeline loops that enclose this one."""


def view_gate_loops(module: ir.Module) -> set[tuple[str, int]]:
    """The loops slotsat declines with `tile-view` under `--compat pypto` (decision 2's
    candidates when the default gate is compared)."""
    verdicts = slotsat_verdicts(module, compat=True)
    return {(v.function, v.position) for v in verdicts if v.reason == "tile-view"}


def _normal_index(text: str | int | None, iv: str) -> str | None:
    if text is None:
        return None
    return re.sub(rf"\b{re.escape(iv)}\b", "IV", str(text))


def reference_verdicts(kernel: Kernel) -> list[Verdict]:
    """The reference's decision for every pipeline loop of the hand-off IR."""
    pre, post = kernel.loops("pre"), kernel.loops("slots")
    assert len(pre) == len(post), f"{kernel.name}: the reference's slot pass changed the loop count"
    out: list[Verdict] = []
    stack: list[tuple[RefLoop, int | None]] = []  # enclosing loops, with their pipeline position
    count: dict[str, int] = {}
    for a, b in zip(pre, post, strict=True):
        assert (a.function, a.line, a.col) == (b.function, b.line, b.col), (a, b)
        while stack and (stack[-1][0].function != a.function or stack[-1][0].depth >= a.depth):
            stack.pop()
        ancestors = tuple(pos for _, pos in stack if pos is not None)
        position = None
        if a.kind == "Pipeline":
            position = count.get(a.function, 0)
            count[a.function] = position + 1
            out.append(_reference_verdict(a, b, position, ancestors))
        stack.append((a, position))
    return out


def _reference_verdict(a: RefLoop, b: RefLoop, position: int, ancestors: tuple[int, ...]) -> Verdict:
    stages = a.stages or 1
    mine = {t.tile for t in a.tiles}  # author-declared allocations are there before the pass
    new = [t for t in b.tiles if t.tile not in mine and t.base.startswith("pipe_")]
    if stages == 1:
        decision = "untouched"
    elif b.kind == "Pipeline":
        decision = "declined"
    else:
        decision = "slotted"
    indices = {_normal_index(t.index, a.iv) for t in new}
    assert len(indices) <= 1, f"one loop, several slot indices: {indices}"
    return Verdict(a.function, position, a.line, a.depth, stages, a.start, a.step, decision,
                   index=next(iter(indices)) if indices else None, tiles=len(new), ancestors=ancestors)


def slotsat_verdicts(module: ir.Module, *, compat: bool = True,
                     backend: Backend = Backend.ASCEND910B) -> list[Verdict]:
    """slotsat's decision for every pipeline loop of `module`."""
    from slotsat.analysis.loops import loop_nodes, loop_tree, pipeline_ancestors

    slots = LowerPipelineToSlots(planner=Planner.PTOAS, backend=backend, compat=compat)
    out: list[Verdict] = []
    for program in module.programs:
        for fn in program.functions:
            plan = slots.plan(fn)
            tree = loop_tree(fn)
            infos = {i.key: i for i in loop_nodes(tree)}
            position = {d.key: k for k, d in enumerate(plan.loops)}
            printer = FunctionPrinter()
            printer.function(plan.result)
            for d in plan.loops:
                loop = d.loop
                start, step = ir.index_literal(loop.start), ir.index_literal(loop.step)
                iv = printer.name(loop.loop_var)
                index = None if d.slot_index is None else _normal_index(printer.expr(d.slot_index), iv)
                ancestors = tuple(position[k] for k in reversed(pipeline_ancestors(tree, d.key)))
                out.append(Verdict(
                    fn.name, position[d.key], loop.span.line, infos[d.key].depth, d.stages,
                    start if start is not None else "runtime", step if step is not None else "runtime",
                    d.decision.value, None if d.decline is None else d.decline.code, index, len(d.tiles),
                    ancestors))
    return out


# -- the allowed differences -------------------------------------------------------------------


def _reference_shape_ok(v: Verdict) -> bool:
    """The reference's loop-shape gate: `step == 1` and `start % F == 0` (C++ truncating `%`),
    literals only, `2 <= F <= 16`."""
    if not isinstance(v.start, int) or not isinstance(v.step, int):
        return False
    trunc = abs(v.start) % v.stages * (1 if v.start >= 0 else -1)
    return 2 <= v.stages <= 16 and v.step == 1 and trunc == 0


def root_difference(ref: Verdict, mine: Verdict) -> str | None:
    """The decision of `05-decisions.md` that explains a difference on this loop by itself,
    or None."""
    if ref.decision == "declined" and mine.decision == "slotted" and not _reference_shape_ok(mine) \
            and isinstance(mine.start, int) and mine.start >= 0:
        return "decision 1: loop shapes"
    if ref.decision == "slotted" and mine.reason == "negative-start":
        return "decision 8: negative start"
    return None


@dataclass(frozen=True, slots=True)
class Comparison:
    agreed: list[tuple[Verdict, Verdict]]
    explained: list[tuple[Verdict, Verdict, str]]
    unexplained: list[tuple[Verdict, Verdict]]

    def assert_agree(self, where: str) -> None:
        lines = [f"  line {r.line} ({r.function} loop {r.position}, stage={r.stages}, start={r.start}, "
                 f"step={r.step}): "
                 f"reference {r.decision} {r.index or ''} / slotsat {m.decision} {m.reason or m.index or ''}"
                 for r, m in self.unexplained]
        assert not lines, f"{where}: differences 05-decisions.md does not explain:\n" + "\n".join(lines)


def _same(ref: Verdict, mine: Verdict) -> bool:
    if ref.decision != mine.decision or ref.stages != mine.stages:
        return False
    return ref.decision != "slotted" or (ref.index == mine.index and ref.tiles == mine.tiles)


def compare(ref: list[Verdict], mine: list[Verdict], *, same_lines: bool = False,
            view_gate_differs: set[tuple[str, int]] | None = None) -> Comparison:
    """Match the pipeline loops of the two sides (by function and pre-order position; with
    `same_lines`, when both read the same file, by line too) and sort every pair into agreed,
    explained by `05-decisions.md`, or unexplained.

    `view_gate_differs` names the loops (function, position) where slotsat with `--compat
    pypto` declines with `tile-view` (decision 2 applies there when `mine` was computed
    without compat)."""
    def keys(vs: list[Verdict]) -> list[tuple[object, ...]]:
        return [(v.function, v.position, v.stages, *((v.line,) if same_lines else ())) for v in vs]

    # functions in name order (the reference lists them by name, its printer by call order),
    # loops in pre-order within each
    ref = sorted(ref, key=lambda v: (v.function, v.position))
    mine = sorted(mine, key=lambda v: (v.function, v.position))
    assert keys(ref) == keys(mine), f"the two sides have different pipeline loops:\n{ref}\n{mine}"
    agreed: list[tuple[Verdict, Verdict]] = []
    explained: list[tuple[Verdict, Verdict, str]] = []
    unexplained: list[tuple[Verdict, Verdict]] = []
    differed: list[tuple[Verdict, Verdict]] = []  # the pairs decided differently so far, in pre-order
    for r, m in zip(ref, mine, strict=True):
        if _same(r, m):
            agreed.append((r, m))
            continue
        why = root_difference(r, m)
        if why is None and view_gate_differs is not None and (m.function, m.position) in view_gate_differs \
                and r.decision == "declined" and m.decision == "slotted":
            why = "decision 2: view gate"
        if why is None:
            why = _consequence(r, m, differed)
        if why is None:
            unexplained.append((r, m))
        else:
            explained.append((r, m, why))
        differed.append((r, m))
    return Comparison(agreed, explained, unexplained)


def _consequence(r: Verdict, m: Verdict, differed: list[tuple[Verdict, Verdict]]) -> str | None:
    """A difference that follows from an earlier one in the same function."""
    earlier = [(dr, dm) for dr, dm in differed if dm.function == m.function]
    # §7: one side declined an enclosing loop the other slotted, so everything below it is
    # declined on that side (slotsat says `under-declined`)
    for dr, dm in earlier:
        if dm.position not in m.ancestors:
            continue
        if dm.decision == "declined" and dr.decision == "slotted" and m.reason == "under-declined":
            return "a consequence (§7) of an enclosing loop only slotsat declined"
        if dr.decision == "declined" and dm.decision == "slotted" and r.decision == "declined":
            return "a consequence (§7) of an enclosing loop only the reference declined"
    # §8.3: the budget is function-wide and first-come in pre-order, so a loop one side
    # slotted and the other did not leaves the later loops a different remainder
    slotsat_spent_more = any(dm.decision == "slotted" and dr.decision != "slotted" for dr, dm in earlier)
    reference_spent_more = any(dr.decision == "slotted" and dm.decision != "slotted" for dr, dm in earlier)
    if slotsat_spent_more and m.reason in ("capacity", "capacity-size") and r.decision == "slotted":
        return "a consequence (§8.3) of an earlier loop only slotsat slotted"
    if reference_spent_more and r.decision == "declined" and m.decision == "slotted":
        return "a consequence (§8.3) of an earlier loop only the reference slotted"
    return None
