"""Eligibility gates of lower-pipeline-to-slots as Datalog (`20-lower-pipeline-to-slots.md`
§4–§8, §11; `60-egraph-engine.md` §5.1, §7).

Python inserts structural facts keyed by a loop's pre-order key (`GateLoop`) and a tile
binder's id (`GateVar`); the ruleset `gates` derives the alias closure and one verdict per
pipeline loop:

- `ok(l)` is a `Bool` merged with `&` (an AND-lattice): seeded `True` for every loop with
  `stages(l) > 1`, set `False` by each gate, which also adds `declined_by(l, code)` and
  lowers `decline_rank(l)` (merged with `min`) to the code's position in §10's order, so
  the reported code is the first in that order among the loop's `declined_by` facts.
- egglog has no negation, so absence is stated: `*_runtime(l)` for non-literal bounds,
  `candidate_count(l) = 0` for a loop without candidates.
- Derived constants are computed in the query (`INT64_MAX - (step - 1)` under `step > 1`,
  which cannot overflow), never in an action.
- A `True` can still flip to `False` until `gates` has saturated, so `ok(l) == True` is
  consumed only by later strata (`slotsat.egraph_rules.slotize`). The capacity decision is made in
  Python and enters as `capacity_declined(l, code)`; re-saturating `gates` propagates it
  to nested loops (monotone: the lattice only moves towards `False`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, cast

from egglog import (
    ActionLike,
    BaseExpr,
    Bool,
    EGraph,
    Expr,
    RewriteOrRule,
    String,
    eq,
    function,
    get_callable_args,
    get_literal_value,
    i64,
    i64Like,
    relation,
    rule,
    ruleset,
    set_,
)

INT64_MAX = (1 << 63) - 1

CODES: tuple[str, ...] = (
    "planner",
    "cross-core",
    "under-declined",
    "stage-range",
    "runtime-step",
    "non-positive-step",
    "runtime-start",
    "negative-start",
    "stepped-runtime-stop",
    "stop-overflow",
    "tile-space",
    "tile-valid-shape",
    "tile-phi",
    "tile-view",
    "no-candidates",
    "capacity-size",
    "capacity",
)
"""Decline codes in the check order of §10, with `cross-core` right after `planner`: the
reference takes every pipeline loop that both pushes and pops across cores out of
LowerPipelineToSlots's hands (its SkewCrossCorePipeline runs first), so that is the first
question about a loop."""

RANK: dict[str, int] = {code: k for k, code in enumerate(CODES)}

GATES_CAP = int(os.environ.get("SLOTSAT_GATES_CAP", "64"))
"""Iteration cap of the `SLOTS_GATES` schedule (`60-egraph-engine.md` §8)."""


class GateLoop(Expr):
    """A loop of the function, by pre-order key (`slotsat.analysis.loops`)."""

    def __init__(self, key: i64Like) -> None: ...


class GateVar(Expr):
    """A tile binder of the function, by its id."""

    def __init__(self, key: i64Like) -> None: ...


# -- facts inserted by Python ---------------------------------------------------------


@function
def stages(loop: GateLoop) -> i64: ...


@function
def loop_start(loop: GateLoop) -> i64: ...


@function
def loop_step(loop: GateLoop) -> i64: ...


@function
def loop_stop(loop: GateLoop) -> i64: ...


@function
def candidate_count(loop: GateLoop) -> i64: ...


start_runtime = relation("start_runtime", GateLoop)
step_runtime = relation("step_runtime", GateLoop)
stop_runtime = relation("stop_runtime", GateLoop)
encloses = relation("encloses", GateLoop, GateLoop)
"""`encloses(m, l)`: pipeline loop `m` is an ancestor of pipeline loop `l`."""
candidate = relation("candidate", GateVar, GateLoop)
tile_var = relation("tile_var", GateVar)
tile_space_bad = relation("tile_space_bad", GateVar)
tile_shape_bad = relation("tile_shape_bad", GateVar)
alias_edge = relation("alias_edge", GateVar, GateVar)
"""`alias_edge(v, s)`: `v` shares `s`'s buffer (a bare copy or an inheriting op)."""
phi_read = relation("phi_read", GateVar)
inherit_read = relation("inherit_read", GateVar)
holds_tpush = relation("holds_tpush", GateLoop)
"""A statement of the loop's own body (not a nested one) pushes a tile to the other core."""
holds_tpop = relation("holds_tpop", GateLoop)
"""A statement of the loop's own body pops a tile from the other core."""
capacity_declined = relation("capacity_declined", GateLoop, String)
"""Set by Python's budget walk with the code `capacity` or `capacity-size`."""

# -- derived ---------------------------------------------------------------------------

reaches = relation("reaches", GateVar, GateVar)
phi_root = relation("phi_root", GateVar)
inherit_root = relation("inherit_root", GateVar)
declined_by = relation("declined_by", GateLoop, String)


@function(merge=lambda old, new: old & new)
def ok(loop: GateLoop) -> Bool: ...


@function(merge=lambda old, new: old.min(new))
def decline_rank(loop: GateLoop) -> i64: ...


gates = ruleset(name="gates")


def _decline(loop: GateLoop, code: str) -> tuple[ActionLike, ...]:
    return (
        set_(ok(loop)).to(Bool(False)),
        declined_by(loop, String(code)),
        set_(decline_rank(loop)).to(i64(RANK[code])),
    )


@gates.register
def _alias_closure(v: GateVar, s: GateVar, r: GateVar) -> Iterable[RewriteOrRule]:
    """reaches = reflexive-transitive closure of alias_edge; roots of phi / inherit reads."""
    yield rule(tile_var(v)).then(reaches(v, v))
    yield rule(alias_edge(v, s), reaches(s, r)).then(reaches(v, r))
    yield rule(phi_read(v), reaches(v, r)).then(phi_root(r))
    yield rule(inherit_read(v), reaches(v, r)).then(inherit_root(r))


@gates.register
def _seed(loop: GateLoop, f: i64) -> Iterable[RewriteOrRule]:
    """ok(l) = True for every pipeline loop asking for F > 1 stages."""
    yield rule(eq(stages(loop)).to(f), f > i64(1)).then(set_(ok(loop)).to(Bool(True)))


@gates.register
def _cross_core(loop: GateLoop, f: i64) -> Iterable[RewriteOrRule]:
    """A body that both pushes and pops across cores is a cross-core pipeline (the reference's
    `BodyHasCrossCorePair`): one direction alone is an ordinary op to the slots pass."""
    yield rule(holds_tpush(loop), holds_tpop(loop), eq(stages(loop)).to(f), f > i64(1)).then(
        *_decline(loop, "cross-core"))


@gates.register
def _loop_shape(loop: GateLoop, f: i64, s: i64, p: i64, m: i64) -> Iterable[RewriteOrRule]:
    """L1–L4 (§4.1)."""
    yield rule(eq(stages(loop)).to(f), f > i64(16)).then(*_decline(loop, "stage-range"))  # L1
    yield rule(step_runtime(loop), eq(stages(loop)).to(f), f > i64(1)).then(
        *_decline(loop, "runtime-step"))  # L2
    yield rule(eq(loop_step(loop)).to(s), s <= i64(0), eq(stages(loop)).to(f), f > i64(1)).then(
        *_decline(loop, "non-positive-step"))  # L2
    yield rule(start_runtime(loop), eq(stages(loop)).to(f), f > i64(1)).then(
        *_decline(loop, "runtime-start"))  # L3
    yield rule(eq(loop_start(loop)).to(s), s < i64(0), eq(stages(loop)).to(f), f > i64(1)).then(
        *_decline(loop, "negative-start"))  # L3
    yield rule(eq(loop_step(loop)).to(s), s > i64(1), stop_runtime(loop), eq(stages(loop)).to(f),
               f > i64(1)).then(*_decline(loop, "stepped-runtime-stop"))  # L4
    yield rule(
        eq(loop_step(loop)).to(s), s > i64(1), eq(loop_stop(loop)).to(p), eq(stages(loop)).to(f), f > i64(1),
        eq(m).to(i64(INT64_MAX) - (s - i64(1))), p > m,
    ).then(*_decline(loop, "stop-overflow"))  # L4: stop > INT64_MAX - (step - 1)


@gates.register
def _tiles(loop: GateLoop, t: GateVar, n: i64) -> Iterable[RewriteOrRule]:
    """T1–T4 on candidates (§6), the empty candidate set (§5), capacity (§8)."""
    yield rule(candidate(t, loop), tile_space_bad(t)).then(*_decline(loop, "tile-space"))  # T1
    yield rule(candidate(t, loop), tile_shape_bad(t)).then(*_decline(loop, "tile-valid-shape"))  # T2
    yield rule(candidate(t, loop), phi_root(t)).then(*_decline(loop, "tile-phi"))  # T3
    yield rule(candidate(t, loop), inherit_root(t)).then(*_decline(loop, "tile-view"))  # T4
    yield rule(eq(candidate_count(loop)).to(n), eq(n).to(i64(0))).then(*_decline(loop, "no-candidates"))
    for code in ("capacity-size", "capacity"):
        yield rule(capacity_declined(loop, String(code))).then(*_decline(loop, code))


@gates.register
def _enclosing(m: GateLoop, loop: GateLoop, f: i64) -> Iterable[RewriteOrRule]:
    """§7: a declined F > 1 pipeline loop disqualifies every F > 1 pipeline loop below it."""
    yield rule(eq(ok(m)).to(Bool(False)), encloses(m, loop), eq(stages(loop)).to(f), f > i64(1)).then(
        *_decline(loop, "under-declined"))


# -- fact batches -----------------------------------------------------------------------

FactArg = int | str
"""A fact argument: a `GateLoop` / `GateVar` key, or a `String` (decline code)."""

VALUE_FACTS: dict[str, Any] = {
    "stages": stages,
    "loop_start": loop_start,
    "loop_step": loop_step,
    "loop_stop": loop_stop,
    "candidate_count": candidate_count,
}
"""The `i64`-valued facts over one `GateLoop`, by name (`set_(f(GateLoop(k))).to(v)`)."""

RELATION_FACTS: dict[str, tuple[Any, tuple[type, ...]]] = {
    "start_runtime": (start_runtime, (GateLoop,)),
    "step_runtime": (step_runtime, (GateLoop,)),
    "stop_runtime": (stop_runtime, (GateLoop,)),
    "encloses": (encloses, (GateLoop, GateLoop)),
    "candidate": (candidate, (GateVar, GateLoop)),
    "tile_var": (tile_var, (GateVar,)),
    "tile_space_bad": (tile_space_bad, (GateVar,)),
    "tile_shape_bad": (tile_shape_bad, (GateVar,)),
    "alias_edge": (alias_edge, (GateVar, GateVar)),
    "phi_read": (phi_read, (GateVar,)),
    "inherit_read": (inherit_read, (GateVar,)),
    "holds_tpush": (holds_tpush, (GateLoop,)),
    "holds_tpop": (holds_tpop, (GateLoop,)),
    "capacity_declined": (capacity_declined, (GateLoop, String)),
}
"""The relations Python inserts, by name, with their argument sorts."""


@dataclass(slots=True)
class FactBatch:
    """Facts of one function in plain Python form, inserted with one call.

    Building egglog expressions costs about 0.1–0.2 ms per node in the high-level API, which
    dominated the pass (`60-egraph-engine.md` §10), so the pass collects keys here and the
    session (`slotsat.egraph_rules.slotize.SlotsEGraph`) lowers the whole batch at once: to egglog's
    command objects when available, otherwise to the high-level facts of `high_level()`.
    """

    values: list[tuple[str, int, int]] = field(default_factory=list)
    """(fact name, loop key, value)."""
    relations: list[tuple[str, tuple[FactArg, ...]]] = field(default_factory=list)
    """(relation name, arguments)."""

    def value(self, name: str, loop: int, value: int) -> None:
        assert name in VALUE_FACTS, name
        self.values.append((name, loop, value))

    def relation(self, name: str, *args: FactArg) -> None:
        assert name in RELATION_FACTS, name
        assert len(args) == len(RELATION_FACTS[name][1]), name
        self.relations.append((name, args))

    def __len__(self) -> int:
        return len(self.values) + len(self.relations)

    def high_level(self) -> list[ActionLike]:
        """The batch as high-level egglog facts (the portable path)."""
        loops: dict[int, GateLoop] = {}
        tvars: dict[int, GateVar] = {}

        def arg(sort: type, a: FactArg) -> BaseExpr:
            if sort is String:
                assert isinstance(a, str)
                return String(a)
            assert isinstance(a, int)
            if sort is GateLoop:
                if a not in loops:
                    loops[a] = GateLoop(a)
                return loops[a]
            if a not in tvars:
                tvars[a] = GateVar(a)
            return tvars[a]

        out: list[ActionLike] = []
        for name, key, v in self.values:
            out.append(set_(VALUE_FACTS[name](arg(GateLoop, key))).to(i64(v)))
        for name, args in self.relations:
            fn, sorts = RELATION_FACTS[name]
            out.append(fn(*(arg(sort, a) for sort, a in zip(sorts, args, strict=True))))
        return out


def literal(x: BaseExpr) -> object:
    """The Python value of an egglog primitive (`i64`, `Bool`, `String`)."""
    return get_literal_value(cast(Any, x))


def callable_args(call: BaseExpr) -> tuple[BaseExpr, ...]:
    """The arguments of a constructor call (egglog 14 types the accessor as optional)."""
    args = get_callable_args(call)
    assert args is not None, f"not a call: {call!r}"
    return tuple(args)


def loop_key(call: BaseExpr) -> int:
    """The loop key of a one-argument fact over `GateLoop` (`ok(GateLoop(3))` -> 3)."""
    (loop,) = callable_args(call)
    (key,) = callable_args(loop)
    k = literal(key)
    assert isinstance(k, int)
    return k


def run_gates(egraph: EGraph) -> int:
    """Saturate `gates` as a bounded repetition; returns the number of rounds."""
    for k in range(1, GATES_CAP + 1):
        report = egraph.run(gates)
        if not report.updated:
            return k
    raise RuntimeError(f"schedule SLOTS_GATES did not saturate within {GATES_CAP} rounds")
