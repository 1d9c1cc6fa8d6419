"""Eligibility gates of lower-pipeline-to-slots as Datalog (`20-lower-pipeline-to-slots.md`
§4–§8, §11; `60-egraph-engine.md` §5.1, §7).

Python inserts structural facts about loops (`slotsat.egraph_rules.loops.Loop`, keyed by
the loop's pre-order position, with the one loop fact schema of `loops.loop_facts`) and tile
binders (`Tile`, keyed by the binder's id); the ruleset `gates` derives the alias closure and
one verdict per pipeline loop:

- `ok(l)` is a `Bool` merged with `&` (an AND-lattice): seeded `True` for every loop with
  `stages(l) > 1`, set `False` by each gate, which also adds `declined_by(l, code)` and
  lowers `decline_rank(l)` (merged with `min`) to the code's position in §10's order, so
  the reported code is the first in that order among the loop's `declined_by` facts.
- egglog has no negation, so absence is stated: `*_runtime(l)` for non-literal bounds,
  `candidate_count(l) = 0` for a loop without candidates.
- The message of a decline is read from the facts that made it: `declined_tile(l, code, t)`
  names the candidate a tile gate blocked, `declined_under(l, m)` the declined enclosing
  loop, `phi_via` / `inherit_via` the read that carries a root into a phi or an inheriting op.
- A cap hit while `gates` saturates leaves verdicts that may still flip, so the pass
  declines the whole function instead (`slotsat.egraph_rules.session`'s failure rule).
- Derived constants are computed in the query (`INT64_MAX - (step - 1)` under `step > 1`,
  which cannot overflow), never in an action.
- A `True` can still flip to `False` until `gates` has saturated, so `ok(l) == True` is
  consumed only by later strata (`slotsat.egraph_rules.slotize`). The capacity decision is made in
  Python and enters as `capacity_declined(l, code)`; re-saturating `gates` propagates it
  to nested loops (monotone: the lattice only moves towards `False`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from egglog import (
    ActionLike,
    Bool,
    Expr,
    RewriteOrRule,
    String,
    eq,
    function,
    i64,
    i64Like,
    relation,
    rule,
    ruleset,
    set_,
)

from slotsat.egraph_rules.calls import Action, Arg, Call, Set
from slotsat.egraph_rules.lang import rname
from slotsat.egraph_rules.loops import (
    Loop,
    loop_ref,
    loop_start,
    loop_step,
    loop_stop,
    stages,
    start_runtime,
    step_runtime,
    stop_runtime,
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


class Tile(Expr):
    """A tile binder of the function, by its id."""

    def __init__(self, key: i64Like) -> None: ...


# -- facts inserted by Python (besides the loop facts of `loops.loop_facts`) -----------


@function
def candidate_count(loop: Loop) -> i64: ...


encloses = relation("encloses", Loop, Loop)
"""`encloses(m, l)`: pipeline loop `m` is an ancestor of pipeline loop `l`."""
candidate = relation("candidate", Tile, Loop)
tile_var = relation("tile_var", Tile)
tile_space_bad = relation("tile_space_bad", Tile)
tile_shape_bad = relation("tile_shape_bad", Tile)
alias_edge = relation("alias_edge", Tile, Tile)
"""`alias_edge(v, s)`: `v` shares `s`'s buffer (a bare copy or an inheriting op)."""
phi_read = relation("phi_read", Tile)
inherit_read = relation("inherit_read", Tile)
holds_tpush = relation("holds_tpush", Loop)
"""A statement of the loop's own body (not a nested one) pushes a tile to the other core."""
holds_tpop = relation("holds_tpop", Loop)
"""A statement of the loop's own body pops a tile from the other core."""
capacity_declined = relation("capacity_declined", Loop, String)
"""Set by Python's budget walk with the code `capacity` or `capacity-size`."""

# -- derived ---------------------------------------------------------------------------

reaches = relation("reaches", Tile, Tile)
phi_root = relation("phi_root", Tile)
inherit_root = relation("inherit_root", Tile)
phi_via = relation("phi_via", Tile, Tile)
"""`phi_via(r, v)`: the phi read `v` reaches root `r` (the tile-phi message names `v`)."""
inherit_via = relation("inherit_via", Tile, Tile)
"""`inherit_via(r, v)`: the inheriting read `v` reaches root `r` (the tile-view message)."""
declined_by = relation("declined_by", Loop, String)
declined_tile = relation("declined_tile", Loop, String, Tile)
"""`declined_tile(l, code, t)`: candidate `t` is a reason gate `code` declined `l`."""
declined_under = relation("declined_under", Loop, Loop)
"""`declined_under(l, m)`: `l` is under the declined pipeline loop `m`."""


@function(merge=lambda old, new: old & new)
def ok(loop: Loop) -> Bool: ...


@function(merge=lambda old, new: old.min(new))
def decline_rank(loop: Loop) -> i64: ...


gates = ruleset(name="gates")


def _g(name: str, algebra: str) -> str:
    """A gate rule's name (`lang.RULES`: what a run reports its matches under)."""
    return rname("gates", "gate", name, algebra)


def _decline(loop: Loop, code: str) -> tuple[ActionLike, ...]:
    return (
        set_(ok(loop)).to(Bool(False)),
        declined_by(loop, String(code)),
        set_(decline_rank(loop)).to(i64(RANK[code])),
    )


def _decline_tile(loop: Loop, code: str, t: Tile) -> tuple[ActionLike, ...]:
    return (*_decline(loop, code), declined_tile(loop, String(code), t))


@gates.register
def _alias_closure(v: Tile, s: Tile, r: Tile) -> Iterable[RewriteOrRule]:
    """reaches = reflexive-transitive closure of alias_edge; roots of phi / inherit reads."""
    yield rule(tile_var(v), name=_g("alias_reflexive", "tile_var(v) -> reaches(v, v)")).then(reaches(v, v))
    yield rule(
        alias_edge(v, s),
        reaches(s, r),
        name=_g("alias_step", "alias_edge(v, s), reaches(s, r) -> reaches(v, r)"),
    ).then(reaches(v, r))
    yield rule(
        phi_read(v), reaches(v, r), name=_g("phi_root_of", "phi_read(v), reaches(v, r) -> phi_root(r)")
    ).then(phi_root(r), phi_via(r, v))
    yield rule(
        inherit_read(v),
        reaches(v, r),
        name=_g("inherit_root_of", "inherit_read(v), reaches(v, r) -> inherit_root(r)"),
    ).then(inherit_root(r), inherit_via(r, v))


@gates.register
def _seed(loop: Loop, f: i64) -> Iterable[RewriteOrRule]:
    """ok(l) = True for every pipeline loop asking for F > 1 stages."""
    yield rule(
        eq(stages(loop)).to(f), f > i64(1), name=_g("seed_ok", "stages(l) = F > 1 -> ok(l) = True")
    ).then(set_(ok(loop)).to(Bool(True)))


@gates.register
def _cross_core(loop: Loop, f: i64) -> Iterable[RewriteOrRule]:
    """A body that both pushes and pops across cores is a cross-core pipeline (the reference's
    `BodyHasCrossCorePair`): one direction alone is an ordinary op to the slots pass."""
    yield rule(
        holds_tpush(loop),
        holds_tpop(loop),
        eq(stages(loop)).to(f),
        f > i64(1),
        name=_g("gate_cross_core", "decline cross-core"),
    ).then(*_decline(loop, "cross-core"))


@gates.register
def _loop_shape(loop: Loop, f: i64, s: i64, p: i64, m: i64) -> Iterable[RewriteOrRule]:
    """L1–L4 (§4.1)."""
    yield rule(eq(stages(loop)).to(f), f > i64(16), name=_g("gate_stage_range", "decline stage-range")).then(
        *_decline(loop, "stage-range")
    )  # L1
    yield rule(
        step_runtime(loop),
        eq(stages(loop)).to(f),
        f > i64(1),
        name=_g("gate_runtime_step", "decline runtime-step"),
    ).then(*_decline(loop, "runtime-step"))  # L2
    yield rule(
        eq(loop_step(loop)).to(s),
        s <= i64(0),
        eq(stages(loop)).to(f),
        f > i64(1),
        name=_g("gate_non_positive_step", "decline non-positive-step"),
    ).then(*_decline(loop, "non-positive-step"))  # L2
    yield rule(
        start_runtime(loop),
        eq(stages(loop)).to(f),
        f > i64(1),
        name=_g("gate_runtime_start", "decline runtime-start"),
    ).then(*_decline(loop, "runtime-start"))  # L3
    yield rule(
        eq(loop_start(loop)).to(s),
        s < i64(0),
        eq(stages(loop)).to(f),
        f > i64(1),
        name=_g("gate_negative_start", "decline negative-start"),
    ).then(*_decline(loop, "negative-start"))  # L3
    yield rule(
        eq(loop_step(loop)).to(s),
        s > i64(1),
        stop_runtime(loop),
        eq(stages(loop)).to(f),
        f > i64(1),
        name=_g("gate_stepped_runtime_stop", "decline stepped-runtime-stop"),
    ).then(*_decline(loop, "stepped-runtime-stop"))  # L4
    yield rule(
        eq(loop_step(loop)).to(s),
        s > i64(1),
        eq(loop_stop(loop)).to(p),
        eq(stages(loop)).to(f),
        f > i64(1),
        eq(m).to(i64(INT64_MAX) - (s - i64(1))),
        p > m,
        name=_g("gate_stop_overflow", "decline stop-overflow"),
    ).then(*_decline(loop, "stop-overflow"))  # L4: stop > INT64_MAX - (step - 1)


@gates.register
def _tiles(loop: Loop, t: Tile, n: i64) -> Iterable[RewriteOrRule]:
    """T1–T4 on candidates (§6), the empty candidate set (§5), capacity (§8)."""
    yield rule(candidate(t, loop), tile_space_bad(t), name=_g("gate_tile_space", "decline tile-space")).then(
        *_decline_tile(loop, "tile-space", t)
    )  # T1
    yield rule(
        candidate(t, loop), tile_shape_bad(t), name=_g("gate_tile_valid_shape", "decline tile-valid-shape")
    ).then(*_decline_tile(loop, "tile-valid-shape", t))  # T2
    yield rule(candidate(t, loop), phi_root(t), name=_g("gate_tile_phi", "decline tile-phi")).then(
        *_decline_tile(loop, "tile-phi", t)
    )  # T3
    yield rule(candidate(t, loop), inherit_root(t), name=_g("gate_tile_view", "decline tile-view")).then(
        *_decline_tile(loop, "tile-view", t)
    )  # T4
    yield rule(
        eq(candidate_count(loop)).to(n),
        eq(n).to(i64(0)),
        name=_g("gate_no_candidates", "decline no-candidates"),
    ).then(*_decline(loop, "no-candidates"))
    for code in ("capacity-size", "capacity"):
        yield rule(
            capacity_declined(loop, String(code)),
            name=_g(f"gate_{code.replace('-', '_')}", f"decline {code}"),
        ).then(*_decline(loop, code))


@gates.register
def _enclosing(m: Loop, loop: Loop, f: i64) -> Iterable[RewriteOrRule]:
    """§7: a declined F > 1 pipeline loop disqualifies every F > 1 pipeline loop below it."""
    yield rule(
        eq(ok(m)).to(Bool(False)),
        encloses(m, loop),
        eq(stages(loop)).to(f),
        f > i64(1),
        name=_g("gate_under_declined", "decline under-declined"),
    ).then(*_decline(loop, "under-declined"), declined_under(loop, m))


# -- facts, as calls ------------------------------------------------------------------

SYMBOLS: dict[str, object] = {
    "Tile": Tile,
    "candidate_count": candidate_count,
    "encloses": encloses,
    "candidate": candidate,
    "tile_var": tile_var,
    "tile_space_bad": tile_space_bad,
    "tile_shape_bad": tile_shape_bad,
    "alias_edge": alias_edge,
    "phi_read": phi_read,
    "inherit_read": inherit_read,
    "holds_tpush": holds_tpush,
    "holds_tpop": holds_tpop,
    "capacity_declined": capacity_declined,
    "ok": ok,
    "decline_rank": decline_rank,
    "declined_tile": declined_tile,
    "declined_under": declined_under,
    "phi_via": phi_via,
    "inherit_via": inherit_via,
}
"""The gates' symbols Python inserts or reads, by name (`slotsat.egraph_rules.calls`)."""

_TILE_RELATIONS = frozenset({"tile_var", "tile_space_bad", "tile_shape_bad", "phi_read", "inherit_read"})


def tile_ref(key: int) -> Call:
    return Call("Tile", (key,))


@dataclass(slots=True)
class FactBatch:
    """The gate facts of one function as calls, collected from plain keys and inserted with
    one call (`slotsat.egraph_rules.session.Session.insert`)."""

    actions: list[Action] = field(default_factory=list)

    def candidate_count(self, loop: int, n: int) -> None:
        self.actions.append(Set(Call("candidate_count", (loop_ref(loop),)), n))

    def encloses(self, outer: int, inner: int) -> None:
        self.actions.append(Call("encloses", (loop_ref(outer), loop_ref(inner))))

    def candidate(self, tile: int, loop: int) -> None:
        self.actions.append(Call("candidate", (tile_ref(tile), loop_ref(loop))))

    def tile(self, name: str, tile: int) -> None:
        """A one-tile relation: `tile_var`, `tile_space_bad`, `tile_shape_bad`, `phi_read`, `inherit_read`."""
        assert name in _TILE_RELATIONS, name
        self.actions.append(Call(name, (tile_ref(tile),)))

    def alias_edge(self, v: int, s: int) -> None:
        self.actions.append(Call("alias_edge", (tile_ref(v), tile_ref(s))))

    def cross_core(self, loop: int, name: str) -> None:
        """A loop relation of the cross-core gate: `holds_tpush` or `holds_tpop`."""
        assert name in ("holds_tpush", "holds_tpop"), name
        self.actions.append(Call(name, (loop_ref(loop),)))

    def capacity_declined(self, loop: int, code: str) -> None:
        assert code in ("capacity", "capacity-size"), code
        self.actions.append(Call("capacity_declined", (loop_ref(loop), code)))

    def extend(self, actions: Iterable[Action]) -> None:
        self.actions.extend(actions)

    def __len__(self) -> int:
        return len(self.actions)


def loop_rows(rows: Iterable[tuple[tuple[Arg, ...], Arg]]) -> dict[int, Arg]:
    """Rows `f(Loop(k)) = v` of a function over one loop (`Session.table`), as `k -> v`."""
    out: dict[int, Arg] = {}
    for args, value in rows:
        (loop,) = args
        assert isinstance(loop, Call)
        assert loop.fn == "Loop", loop
        (key,) = loop.args
        assert isinstance(key, int)
        out[key] = value
    return out
