"""Loops as the e-graph sees them: the `Loop` sort, its one fact schema, and `LoopInfo`
(`60-egraph-engine.md` §5.1, `20-lower-pipeline-to-slots.md` §11).

**Key.** A loop is `Loop(key)` with an `i64` key unique within its e-graph: the slots pass
keys a loop by its pre-order position in the function (`slotsat.analysis.loops`), the
index engine by the order in which its loops were added (pre-order in codegen). Every rule
(gates, slotization, proofs, intervals) reads the same facts of the same `Loop`.

**Facts**, written only by `loop_facts` (so the slots pass and the index engine state a
loop identically):

- `loop_start(l)`, `loop_stop(l)`, `loop_step(l)` (`i64`): that bound is an `INDEX` literal
  (it fits `i64`);
- `start_runtime(l)`, `stop_runtime(l)`, `step_runtime(l)`: that bound is anything else
  (egglog has no negation, so the absence of a literal is stated);
- `ascending(l)`: the step is a positive literal, so the induction variable takes
  `start, start + step, ...` while below `stop`: it never drops below the start and never
  reaches the stop;
- `stages(l)`: a pipeline loop's `stage=F`.

`ascending` is the step's sign as a fact: every rule that bounds an induction variable from
its start or stop (the syntactic proof, the intervals) is guarded on it, so a descending or
runtime-step loop (`slotsat explore --loop i=0:-10:-1`) proves nothing from its start.
"""

from __future__ import annotations

from dataclasses import dataclass

from egglog import Expr, function, i64, i64Like, relation

from slotsat.core import ir
from slotsat.egraph_rules.calls import Action, Call, Set


class Loop(Expr):
    """A loop, keyed by an `i64` unique within its e-graph."""

    def __init__(self, key: i64Like) -> None: ...


@function
def loop_start(loop: Loop) -> i64: ...


@function
def loop_stop(loop: Loop) -> i64: ...


@function
def loop_step(loop: Loop) -> i64: ...


@function
def stages(loop: Loop) -> i64: ...


start_runtime = relation("start_runtime", Loop)
stop_runtime = relation("stop_runtime", Loop)
step_runtime = relation("step_runtime", Loop)
ascending = relation("ascending", Loop)
"""The step is a positive literal (see the module docstring)."""

SYMBOLS: dict[str, object] = {
    "Loop": Loop,
    "loop_start": loop_start,
    "loop_stop": loop_stop,
    "loop_step": loop_step,
    "stages": stages,
    "start_runtime": start_runtime,
    "stop_runtime": stop_runtime,
    "step_runtime": step_runtime,
    "ascending": ascending,
}
"""The loop symbols Python inserts, by name (`slotsat.egraph_rules.session`)."""


@dataclass(frozen=True)
class LoopInfo:
    """One loop: its induction variable, bounds and, for a pipeline loop, its stage count."""

    var: ir.Var
    start: ir.Expr
    stop: ir.Expr
    step: ir.Expr
    stages: int | None = None

    @classmethod
    def of(cls, loop: ir.ForStmt) -> LoopInfo:
        return cls(loop.loop_var, loop.start, loop.stop, loop.step, loop.stages)


def literal(bound: ir.Expr) -> int | None:
    """A bound's value when it is an `INDEX` literal that fits `i64`, else None (a runtime bound)."""
    value = ir.index_literal(bound)
    return value if value is not None and ir.DType.INDEX.fits(value) else None


def ascends(loop: LoopInfo) -> bool:
    """The step is a positive literal (the `ascending` fact)."""
    step = literal(loop.step)
    return step is not None and step > 0


def loop_ref(key: int) -> Call:
    return Call("Loop", (key,))


def loop_facts(key: int, loop: LoopInfo) -> list[Action]:
    """The facts of one loop (the schema of the module docstring)."""
    lp = loop_ref(key)
    out: list[Action] = []
    for bound, fact in ((loop.start, "start"), (loop.stop, "stop"), (loop.step, "step")):
        value = literal(bound)
        if value is None:
            out.append(Call(f"{fact}_runtime", (lp,)))
        else:
            out.append(Set(Call(f"loop_{fact}", (lp,)), value))
    if ascends(loop):
        out.append(Call("ascending", (lp,)))
    if loop.stages is not None:
        out.append(Set(Call("stages", (lp,)), loop.stages))
    return out
