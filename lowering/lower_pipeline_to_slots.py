"""lower-pipeline-to-slots: multi-buffer a pipeline loop by slot rotation instead of replication.

Overview
--------
For each `pl.pipeline(..., stage=F)` loop with `F > 1` that passes every gate, every
top-level `tile.load` result without a declared allocation is rebound onto a fresh pinned
`pl.MemRef("pipe_<tile>", slots=F)[slot]` and the loop is demoted to a plain range. Nothing
else changes: bounds, step, carried values, results and the statement list stay. Every other
pipeline loop keeps its marking, gets a decline record naming the gate, and is replicated
by lower-pipeline-loops (`20-lower-pipeline-to-slots.md`, the normative spec).

Before / After (PTOAS planner)
------------------------------
```python
for i, (acc,) in pl.pipeline(4, stage=2, init_values=(out,)):
    t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [i * 64, 0], [64, 64], [64, 64], ...)
    e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
    nxt: pl.Tensor[[256, 64], pl.FP32] = pl.tile.store(e, [i * 64, 0], acc)
    y: pl.Tensor[[256, 64], pl.FP32] = pl.yield_(nxt)
# becomes
for i, (acc,) in pl.range(4, init_values=(out,)):
    t: pl.Tile[[64, 64], pl.FP32, pl.MemRef("pipe_t", slots=2)[i % 2], pl.Mem.Vec] = pl.tile.load(...)
    ...
```

Requires / produces / position
------------------------------
Requires SSA form, a memory space on every tile, rank 1 or 2 tiles, no compiler-owned
MemRef. Produces nothing new (it adds no IR operation). Position: after
complete-memory-spaces, immediately before lower-pipeline-loops. Options: `planner`
(anything but `PTOAS` makes the pass a no-op with one `planner` record), `backend`
(capacities; `Backend.NONE` is ungated), `compat` (`--compat pypto`, T4 only).

Gates (§10 order; the first failing code is reported)
------------------------------------------------------
| Gate | Why |
| --- | --- |
| planner is `PTOAS` | under `PYPTO` codegen emits no regions (§3) |
| the body does not both push and pop across cores | the reference pipelines it across cores first |
| not under a declined `F > 1` pipeline loop | its `F` clones would select two slots in one body (B9, §7) |
| `2 <= F <= 16` | a ptoas region holds 2 to 16 slots (L1) |
| step a literal `> 0` | the slot is a function of the iteration number (L2) |
| start a literal `>= 0` | a negative iv would select a negative slot (L3) |
| `step > 1` needs a literal stop `<= INT64_MAX - (step - 1)` | the final increment must not wrap (L4) |
| candidates in `Vec` / `Mat` / `Acc` | regions exist only there (T1) |
| candidates have a static valid shape | a region has one valid extent (T2) |
| no candidate reaches a phi through its alias root | the phi would share the slot (T3) |
| no candidate feeds the inherited argument of a view or in-place op | it would share the slot (T4) |
| at least one candidate | nothing to rotate (§5) |
| the regions fit the per-space budget | pinned bytes cannot be reused; ptoas fails hard on overflow (§8) |

Why loads only, why no invariance filter, why author-bound tiles are skipped
---------------------------------------------------------------------------
A load's buffer is what must stay private for `i + 1`'s prefetch to overlap `i`'s compute;
invariance cannot be read off the iv; and declining for an author-bound tile would push its
declaration onto the replication path, where codegen rejects it (§5).

Why a whole-loop decline
------------------------
A surviving sibling would still demote the loop and strand the blocked load with neither a
slot nor a replicated copy (§6).

How it runs
-----------
Graph analyses (`slotsat.analysis.loops`, `slotsat.analysis.alias`) become facts; `slotsat.egraph_rules.gates`
decides; Python applies the budget (`slotsat.analysis.budget`) and re-saturates;
`slotsat.egraph_rules.slotize` builds and normalizes the slot terms, extracted in one batch (§11);
the pass writes the extracted term (checked to be a remainder by `F` of the loop's variable)
and reads each decline's sentence from the facts that made it.

Cost: a function without a pipeline loop of `F > 1` never builds an e-graph. Otherwise its
e-graph is one session (`slotsat.egraph_rules.session`): a fresh copy of a per-thread
template in which the rulesets are already lowered; the loop facts (`loops.loop_facts`)
and the gate facts (`gates.FactBatch`) are inserted in one batch; schedules, reads and the
one `Vec` extraction go through egglog's command objects. The pipeline runs the pass over
a whole module at once (`run_all` / `plan_all`): the functions that need an e-graph share
one session, a batch of them at a time (`JOINT_LOOPS`), their loops keyed apart, advancing
in lock-step (each schedule once for all, one extraction, each table read once), so a batch
pays the session's fixed costs once.
A joint run that hits a limit plans each function on its own instead, so the failure rule
below applies per function.

A schedule that hits an e-graph limit (rounds, rows or time, `slotsat.core.limits`)
leaves verdicts that may still change, so every pipeline loop of `F > 1` in the function
is declined with the code `egraph-limit`, naming the limit, and replicated.

Emitted .pto
------------
One `pto.alloc_multi_tile` per synthesized allocation in the function head and one
`pto.multi_tile_get` per slotted load, exactly as for an author's declaration
(`30-pto-codegen.md`).

Related passes
--------------
`slotsat.lowering.lower_pipeline_loops.LowerPipelineLoops` replicates every declined loop;
`slotsat.lowering.resolve_pipeline_markers.ResolvePipelineMarkers` clears the `stage=1` markers.
"""

from __future__ import annotations

import bisect
import enum
import time
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Protocol

import networkx as nx

from slotsat.analysis.alias import AliasFacts, alias_facts, tile_definitions
from slotsat.analysis.budget import Backend, Budget, CapacityDecline, region_bytes
from slotsat.analysis.loops import LoopNode, loop_nodes, loop_tree, pipeline_ancestors
from slotsat.core import ir, ops, phases
from slotsat.core.batches import batched
from slotsat.core.ops import CrossCore, cross_core_role
from slotsat.core.options import Planner
from slotsat.egraph_rules import gates as g
from slotsat.egraph_rules.calls import Action, Arg, Call, Set
from slotsat.egraph_rules.loops import LoopInfo, loop_facts
from slotsat.egraph_rules.schedules import SLOTS_FORMS, SLOTS_GATES, SLOTS_PASS, NamedSchedule
from slotsat.egraph_rules.session import Limits, ScheduleRun, Session, session
from slotsat.egraph_rules.slotize import slot_expr, slot_root
from slotsat.lowering.common import Decline, PassResult, Rewriter

INT64_MAX = (1 << 63) - 1
EGRAPH_LIMIT = "egraph-limit"
"""The decline code of a function whose e-graph hit a limit (see the module docstring)."""

JOINT_LOOPS = 1_000
"""The loops of the functions that share one e-graph in `plan_all` (a batch closes once it
holds this many; a function is never split). A joint e-graph saves each function's fixed
e-graph cost, but one over a whole large module is slower per loop than batches of it and
holds every function's rows at once: at 10,000 loops over about 2,300 functions, one e-graph
saturated in 1.6 s (14 times the 1,000-loop figure) and batches in 1.15-1.4 s, and the
compile's peak memory fell from 910 to 865 MB."""


class Decision(enum.Enum):
    SLOTTED = "slotted"
    DECLINED = "declined"
    UNTOUCHED = "untouched"


@dataclass(frozen=True, slots=True)
class SlottedTile:
    old: ir.Var
    new: ir.Var

    @property
    def memref(self) -> ir.MemRef:
        memref = _tile(self.new).memref
        assert memref is not None
        return memref


@dataclass(frozen=True, slots=True)
class LoopDecision:
    """The outcome for one pipeline loop (kind `Pipeline` in the input)."""

    key: int
    loop: ir.ForStmt
    stages: int
    decision: Decision
    decline: Decline | None = None
    slot_index: ir.Expr | None = None
    tiles: tuple[SlottedTile, ...] = ()


@dataclass(frozen=True, slots=True)
class FunctionPlan:
    function: ir.Function
    loops: tuple[LoopDecision, ...]
    declines: tuple[Decline, ...]
    result: ir.Function


@dataclass
class _Loop:
    info: LoopNode
    stages: int
    candidates: list[ir.AssignStmt] = field(default_factory=list)
    ancestors: list[int] = field(default_factory=list)
    """Keys of the enclosing pipeline loops, nearest first."""


@dataclass(frozen=True)
class _Context:
    fn: ir.Function
    tree: nx.DiGraph
    pipes: list[_Loop]
    by_key: dict[int, _Loop]
    facts: AliasFacts
    ok: dict[int, bool]
    capacity: dict[int, tuple[str, str]]
    """Loops the budget walk declined: key -> (code, message)."""


@dataclass(frozen=True)
class _Prepared:
    """What a function's e-graph needs (`LowerPipelineToSlots._prepare`)."""

    fn: ir.Function
    tree: nx.DiGraph
    infos: list[LoopNode]
    pipes: list[_Loop]
    facts: AliasFacts
    tiles: list[ir.Var]


_Request = NamedSchedule | list[Call]
"""What a plan's steps ask for: a schedule run, or the extraction of slot roots."""


class _Graph(Protocol):
    """What a plan reads and writes of its e-graph: a `Session`, or a `_Scope` of a joint one."""

    def insert(self, actions: Sequence[Action]) -> None: ...

    def table(self, fn: str) -> list[tuple[tuple[Arg, ...], Arg]]: ...


class _Own:
    """A function's own session, its reads and writes marked as e-graph work."""

    def __init__(self, s: Session) -> None:
        self.s = s

    def insert(self, actions: Sequence[Action]) -> None:
        with phases.phase("slots.saturate"):
            self.s.insert(actions)

    def table(self, fn: str) -> list[tuple[tuple[Arg, ...], Arg]]:
        with phases.phase("slots.saturate"):
            return self.s.table(fn)


class _Shared:
    """The joint session of `plan_all`: inserts buffered until the next run, and each table
    read once per run and split by function."""

    def __init__(self, s: Session) -> None:
        self.s = s
        self.pending: list[Action] = []
        self.tables: dict[str, dict[int, list[tuple[tuple[Arg, ...], Arg]]]] = {}
        self.loop_owner: list[tuple[int, int]] = []
        """(first loop key, function index) in key order."""
        self.tile_owner: dict[int, int] = {}

    def flush(self) -> None:
        if self.pending:
            with phases.phase("slots.saturate"):
                self.s.insert(self.pending)
            self.pending = []

    def changed(self) -> None:
        self.tables.clear()

    def rows(self, fn: str, owner: int) -> list[tuple[tuple[Arg, ...], Arg]]:
        split = self.tables.get(fn)
        if split is None:
            split = {}
            with phases.phase("slots.saturate"):
                rows = self.s.table(fn)
            for row in rows:
                split.setdefault(self._owner(row[0]), []).append(row)
            self.tables[fn] = split
        return split.get(owner, [])

    def _owner(self, args: tuple[Arg, ...]) -> int:
        for a in args:
            if isinstance(a, Call) and a.fn == "Loop":
                (key,) = a.args
                assert isinstance(key, int)
                at = bisect.bisect_right(self.loop_owner, (key, len(self.loop_owner))) - 1
                return self.loop_owner[at][1]
        for a in args:
            if isinstance(a, Call) and a.fn == "Tile":
                (key,) = a.args
                assert isinstance(key, int)
                return self.tile_owner[key]
        raise AssertionError(f"a table row of no function: {args!r}")


class _Scope:
    """One function's view of a joint e-graph: its loop keys `k` are `base + k` there (tiles
    keep their binders' ids), its inserts are buffered and its table reads hold its rows."""

    def __init__(self, shared: _Shared, base: int, index: int) -> None:
        self.shared = shared
        self.base = base
        self.index = index
        shared.loop_owner.append((base, index))

    def insert(self, actions: Sequence[Action]) -> None:
        for a in actions:
            self.shared.pending.append(self._shift(a, self.base, own=True))

    def table(self, fn: str) -> list[tuple[tuple[Arg, ...], Arg]]:
        return [
            (tuple(self.local(a) for a in args), self.local(value))
            for args, value in self.shared.rows(fn, self.index)
        ]

    def local(self, arg: Any) -> Any:
        """A term read back, with this function's own loop keys."""
        return self._shift(arg, -self.base)

    def _shift(self, arg: Any, by: int, *, own: bool = False) -> Any:
        """`arg` with every loop key moved by `by`; `own`: its tiles are this function's."""
        if isinstance(arg, Set):
            return Set(self._shift(arg.target, by, own=own), self._shift(arg.value, by, own=own))
        if not isinstance(arg, Call):
            return arg
        if arg.fn == "Loop":
            (key,) = arg.args
            assert isinstance(key, int)
            return Call("Loop", (key + by,))
        if arg.fn == "Tile" and own:
            (key,) = arg.args
            assert isinstance(key, int)
            self.shared.tile_owner[key] = self.index
        if not arg.args:
            return arg
        return Call(arg.fn, tuple(self._shift(a, by, own=own) for a in arg.args))


def _candidates(loop: ir.ForStmt) -> list[ir.AssignStmt]:
    """§5: direct statements assigning an unbound tile from exactly `tile.load`."""
    out: list[ir.AssignStmt] = []
    for s in loop.body.stmts:
        if not isinstance(s, ir.AssignStmt):
            continue
        t = s.var.type
        if isinstance(t, ir.TileType) and isinstance(s.value, ir.Call) and s.value.op == "tile.load" \
                and t.memref is None:
            out.append(s)
    return out


def _cross_core_ops(loop: ir.ForStmt) -> dict[CrossCore, str]:
    """The first push and the first pop among the loop's own statements (the reference's
    `BodyHasCrossCorePair` looks no deeper), by role."""
    found: dict[CrossCore, str] = {}
    for s in loop.body.stmts:
        call = s.value if isinstance(s, ir.AssignStmt) else s.call if isinstance(s, ir.EvalStmt) else None
        if isinstance(call, ir.Call):
            role = cross_core_role(call.op)
            if role is not None:
                found.setdefault(role, call.op)
    return found


def _space_bad(t: ir.TileType) -> bool:
    return t.memory_space not in ir.REGION_SPACES


def _shape_bad(t: ir.TileType) -> bool:
    vs = t.effective_valid_shape
    return len(vs) == 0 or any(not isinstance(x, ir.ConstInt) for x in vs)


def _tile(v: ir.Var) -> ir.TileType:
    assert isinstance(v.type, ir.TileType)
    return v.type


@dataclass(frozen=True)
class LowerPipelineToSlots:
    """See the module docstring (the pass doc)."""

    name: ClassVar[str] = "lower-pipeline-to-slots"

    planner: Planner | None = Planner.PTOAS
    """Who places buffers; anything but PTOAS makes the pass a no-op."""
    backend: Backend = Backend.ASCEND950
    """Capacities for the budget gate; `Backend.NONE` leaves every space ungated."""
    compat: bool = False
    """`--compat pypto`: T4 counts every argument of an inheriting op (decision 2)."""

    def run(self, fn: ir.Function) -> PassResult:
        plan = self.plan(fn)
        return PassResult(plan.result, plan.declines)

    def run_all(self, fns: Sequence[ir.Function]) -> list[PassResult]:
        """`run` of every function, with e-graphs shared between them (`plan_all`)."""
        return [PassResult(p.result, p.declines) for p in self.plan_all(fns)]

    # ----------------------------------------------------------------------------------

    def plan(self, fn: ir.Function) -> FunctionPlan:
        """Decide every pipeline loop of `fn` and build the rewritten function."""
        early = self._prepare(fn)
        if isinstance(early, FunctionPlan):
            return early
        return self._plan_alone(early)

    def _plan_alone(self, prep: _Prepared) -> FunctionPlan:
        """The plan of a prepared function, in an e-graph of its own."""
        limits, started = Limits.from_env(), time.perf_counter()
        with session(SLOTS_PASS) as s:  # one fresh e-graph per function (§11)
            steps = self._decide(prep, _Own(s))
            request = next(steps)
            while True:
                if isinstance(request, NamedSchedule):
                    with phases.phase("slots.saturate"):
                        answer: object = s.run(request, limits, started=started)
                else:
                    with phases.phase("slots.saturate"):
                        answer = s.extract(request)
                try:
                    request = steps.send(answer)
                except StopIteration as done:
                    result: FunctionPlan = done.value
                    return result

    def plan_all(self, fns: Sequence[ir.Function]) -> list[FunctionPlan]:
        """`plan` of every function, the functions that need an e-graph sharing one (a
        batch of them at a time, `JOINT_LOOPS`).

        Each function's loops are keyed apart (`_Scope`; tiles are keyed by their binders'
        process-unique ids), so its facts and terms meet no other function's except in
        literal-only terms, and its part of the e-graph evolves exactly as in an e-graph of
        its own. The functions advance in lock-step: each schedule runs once for all that ask
        for it, `SLOTS_GATES` (also the re-run after the capacity facts) before any
        `SLOTS_FORMS`, which reads the final gate verdicts, then one extraction of every slot
        term. A joint run within the limits means each function's own would have been (its
        e-graph is part of the joint one, whose rounds are the slowest function's); if a
        joint run hits a limit, every function is planned on its own instead, so the failure
        rule (`egraph-limit`) applies per function as documented.
        """
        plans: list[FunctionPlan | None] = []
        joint: list[tuple[int, _Prepared]] = []
        failure: Exception | None = None
        for k, fn in enumerate(fns):
            try:
                early = self._prepare(fn)
            except Exception as exc:
                failure = exc  # raised after the functions before it, as `run` one by one would
                break
            if isinstance(early, FunctionPlan):
                plans.append(early)
            else:
                plans.append(None)
                joint.append((k, early))
        for batch in batched(joint, lambda item: len(item[1].infos), JOINT_LOOPS):
            if len(batch) == 1:
                k, prep = batch[0]
                plans[k] = self._plan_alone(prep)
                continue
            done = self._plan_joint([prep for _, prep in batch])
            for n, (k, _) in enumerate(batch):
                # after a joint run that hit a limit, each function planned afresh on its own
                plans[k] = done[n] if done is not None else self.plan(fns[k])
        out = [p for p in plans if p is not None]
        if failure is not None:
            raise failure
        assert len(out) == len(fns)
        return out

    def _plan_joint(self, preps: list[_Prepared]) -> list[FunctionPlan] | None:
        """The lock-step of `plan_all` in one session; None when a joint run hit a limit."""
        limits, started = Limits.from_env(), time.perf_counter()
        with session(SLOTS_PASS) as s:
            shared = _Shared(s)
            scopes: list[_Scope] = []
            base = 0
            for prep in preps:
                scopes.append(_Scope(shared, base, len(scopes)))
                base += len(prep.infos)
            steps = [self._decide(prep, scope) for prep, scope in zip(preps, scopes, strict=True)]
            waiting: dict[int, _Request] = {k: next(g) for k, g in enumerate(steps)}
            results: dict[int, FunctionPlan] = {}
            while waiting:
                runs = [r for r in waiting.values() if isinstance(r, NamedSchedule)]
                if runs:
                    schedule = SLOTS_GATES if any(r is SLOTS_GATES for r in runs) else runs[0]
                    shared.flush()
                    with phases.phase("slots.saturate"):
                        run = s.run(schedule, limits, started=started)
                    if run.limit_hit is not None:
                        return None
                    shared.changed()
                    served: dict[int, object] = {k: run for k, r in waiting.items() if r is schedule}
                else:
                    shared.flush()
                    wanted = {k: r for k, r in waiting.items() if isinstance(r, list)}
                    with phases.phase("slots.saturate"):
                        terms = s.extract([root for r in wanted.values() for root in r])
                    served = {}
                    at = 0
                    for k, r in wanted.items():
                        served[k] = [scopes[k].local(t) for t in terms[at : at + len(r)]]
                        at += len(r)
                for k, answer in served.items():
                    try:
                        waiting[k] = steps[k].send(answer)
                    except StopIteration as stop:
                        results[k] = stop.value
                        del waiting[k]
            return [results[k] for k in range(len(preps))]

    def _prepare(self, fn: ir.Function) -> FunctionPlan | _Prepared:
        """The plan of a function that needs no e-graph, or what its e-graph needs."""
        tree = loop_tree(fn)
        infos = loop_nodes(tree)
        pipes = [_Loop(i, i.stmt.stages) for i in infos if i.stmt.stages is not None]
        if self.planner is not Planner.PTOAS:
            name = "unset" if self.planner is None else self.planner.display_name
            rec = Decline(None, "planner",
                          f"memory planner is {name}; slot rotation needs memory_planner=PTOAS", fn.name)
            loops = tuple(
                LoopDecision(p.info.key, p.info.stmt, p.stages,
                             Decision.UNTOUCHED if p.stages == 1 else Decision.DECLINED,
                             None if p.stages == 1 else rec)
                for p in pipes)
            return FunctionPlan(fn, loops, (rec,), fn)
        if not any(p.stages > 1 for p in pipes):
            loops = tuple(LoopDecision(p.info.key, p.info.stmt, p.stages, Decision.UNTOUCHED) for p in pipes)
            return FunctionPlan(fn, loops, (), fn)
        keyed = {p.info.key for p in pipes}
        for p in pipes:
            p.ancestors = [a for a in pipeline_ancestors(tree, p.info.key) if a in keyed]
            if p.stages > 1:
                p.candidates = _candidates(p.info.stmt)
        facts = alias_facts(fn.body, compat=self.compat)
        tiles = tile_definitions(fn.body)
        return _Prepared(fn, tree, infos, pipes, facts, tiles)

    def _decide(self, prep: _Prepared, s: _Graph) -> Generator[_Request, object, FunctionPlan]:
        """The e-graph part of a plan, as steps: yields a schedule to run (and is sent its
        `ScheduleRun`) or the roots to extract (and is sent their terms); returns the plan."""
        fn, tree, pipes, facts, tiles = prep.fn, prep.tree, prep.pipes, prep.facts, prep.tiles
        s.insert(self._facts(pipes, facts, tiles).actions)
        run = yield SLOTS_GATES
        assert isinstance(run, ScheduleRun)
        if run.limit_hit is not None:
            return _limit_hit(fn, pipes, run)
        ok = _ok(s)
        capacity = self._capacity(s, pipes, ok, tiles)
        if capacity:
            run = yield SLOTS_GATES
            assert isinstance(run, ScheduleRun)
            if run.limit_hit is not None:
                return _limit_hit(fn, pipes, run)
            ok = _ok(s)
        ctx = _Context(fn, tree, pipes, {p.info.key: p for p in pipes}, facts, ok, capacity)
        eligible = [p for p in pipes if p.stages > 1 and ok.get(p.info.key, False)]
        run = yield SLOTS_FORMS
        assert isinstance(run, ScheduleRun)
        if run.limit_hit is not None:
            return _limit_hit(fn, pipes, run)
        tile_ids = [c.var.id for p in eligible for c in p.candidates]
        loop_vars = {p.info.key: p.info.stmt.loop_var for p in eligible}
        extracted = yield [slot_root(t) for t in tile_ids]
        assert isinstance(extracted, list)
        terms = {t: slot_expr(term, loop_vars) for t, term in zip(tile_ids, extracted, strict=True)}
        ranks = {k: v for k, v in g.loop_rows(s.table("decline_rank")).items() if isinstance(v, int)}
        return self._finish(ctx, terms, ranks, _Reasons.read(s))

    # ----------------------------------------------------------------------------------

    @staticmethod
    def _facts(pipes: list[_Loop], facts: AliasFacts, tiles: list[ir.Var]) -> g.FactBatch:
        """The §11 facts of one function, collected as plain keys (inserted in one batch)."""
        batch = g.FactBatch()
        for p in pipes:
            key = p.info.key
            batch.extend(loop_facts(key, LoopInfo.of(p.info.stmt)))
            for anc in p.ancestors:
                batch.encloses(anc, key)
            if p.stages > 1:
                cross = _cross_core_ops(p.info.stmt)
                if CrossCore.PUSH in cross:
                    batch.cross_core(key, "holds_tpush")
                if CrossCore.POP in cross:
                    batch.cross_core(key, "holds_tpop")
                batch.candidate_count(key, len(p.candidates))
                for c in p.candidates:
                    tv = c.var.id
                    batch.candidate(tv, key)
                    if _space_bad(_tile(c.var)):
                        batch.tile("tile_space_bad", tv)
                    if _shape_bad(_tile(c.var)):
                        batch.tile("tile_shape_bad", tv)
        for v in tiles:
            batch.tile("tile_var", v.id)
        for a, b in facts.edge_ids():
            batch.alias_edge(a, b)
        for vid in dict.fromkeys(v.id for v in facts.phi_reads):
            batch.tile("phi_read", vid)
        for vid in dict.fromkeys(v.id for v, _ in facts.inherit_reads):
            batch.tile("inherit_read", vid)
        return batch

    def _capacity(self, s: _Graph, pipes: list[_Loop], ok: dict[int, bool],
                  tiles: list[ir.Var]) -> dict[int, tuple[str, str]]:
        """§8: the budget walk in pre-order; inserts `capacity_declined` facts. Returns
        key -> (code, message) for the loops it declined."""
        budget = Budget(self.backend)
        budget.seed(tiles)
        declined: dict[int, tuple[str, str]] = {}
        batch = g.FactBatch()
        for p in pipes:
            key = p.info.key
            if not ok.get(key, False):
                continue
            if any(a in declined for a in p.ancestors):
                continue  # its bytes are never committed; gates propagate under-declined
            added = region_bytes([_tile(c.var) for c in p.candidates], p.stages, self.backend)
            verdict: tuple[str, str] | None = None
            if isinstance(added, int):
                verdict = ("capacity-size", f"load '{p.candidates[added].var.name_hint}' has no static size")
            else:
                over: CapacityDecline | None = budget.check(added)
                if over is not None:
                    verdict = ("capacity", over.message)
                else:
                    budget.commit(added)
            if verdict is not None:
                declined[key] = verdict
                batch.capacity_declined(key, verdict[0])
        s.insert(batch.actions)
        return declined

    def _finish(
        self, ctx: _Context, terms: dict[int, ir.Expr], ranks: dict[int, int], reasons: _Reasons
    ) -> FunctionPlan:
        fn, pipes, ok = ctx.fn, ctx.pipes, ctx.ok
        env: dict[int, ir.Expr] = {}
        decisions: list[LoopDecision] = []
        declines: list[Decline] = []
        for p in pipes:
            key, loop = p.info.key, p.info.stmt
            if p.stages == 1:
                decisions.append(LoopDecision(key, loop, 1, Decision.UNTOUCHED))
                continue
            if not ok.get(key, False):
                code = g.CODES[ranks[key]]
                rec = Decline(loop, code, _message(code, p, ctx, reasons), fn.name, key)
                declines.append(rec)
                decisions.append(LoopDecision(key, loop, p.stages, Decision.DECLINED, rec))
                continue
            tiles: list[SlottedTile] = []
            index: ir.Expr | None = None
            for c in p.candidates:
                term = terms[c.var.id]
                _check_slot_term(term, loop.loop_var, p.stages)
                if index is None:
                    index = term
                elif term != index:  # one e-class: every candidate of a loop rotates alike
                    raise AssertionError(f"slot terms {term!r} and {index!r} of one loop differ")
                base = ir.Var("pipe_" + c.var.name_hint, ir.PtrType())
                memref = ir.MemRef(base, ir.ConstInt(0, ir.DType.INDEX), 0, True, p.stages, index)
                new = c.var.retyped(replace(_tile(c.var), memref=memref))
                env[c.var.id] = new
                tiles.append(SlottedTile(c.var, new))
            decisions.append(
                LoopDecision(key, loop, p.stages, Decision.SLOTTED, None, index, tuple(tiles)))
        demote = {d.key for d in decisions if d.decision is Decision.SLOTTED}
        result = fn
        if demote:
            body = _SlotRewriter(env=env, demote=demote).body(fn.body)
            result = replace(fn, body=body)
        return FunctionPlan(fn, tuple(decisions), tuple(declines), result)


def _ok(s: _Graph) -> dict[int, bool]:
    """Loop key -> the `ok` verdict, for every loop with one."""
    return {k: v for k, v in g.loop_rows(s.table("ok")).items() if isinstance(v, bool)}


def _limit_hit(fn: ir.Function, pipes: list[_Loop], run: ScheduleRun) -> FunctionPlan:
    """The failure rule: every `F > 1` pipeline loop declined, naming the limit."""
    assert run.limit_hit is not None
    message = f"the e-graph stopped before its rules settled ({run.limit_hit}); the loop is replicated"
    loops: list[LoopDecision] = []
    declines: list[Decline] = []
    for p in pipes:
        if p.stages == 1:
            loops.append(LoopDecision(p.info.key, p.info.stmt, 1, Decision.UNTOUCHED))
            continue
        rec = Decline(p.info.stmt, EGRAPH_LIMIT, message, fn.name, p.info.key)
        declines.append(rec)
        loops.append(LoopDecision(p.info.key, p.info.stmt, p.stages, Decision.DECLINED, rec))
    return FunctionPlan(fn, tuple(loops), tuple(declines), fn)


@dataclass(frozen=True)
class _Reasons:
    """The facts that made each decline (`slotsat.egraph_rules.gates`), read back once: the
    candidates a tile gate blocked, the declined enclosing loops, and the reads that carry a
    root into a phi or an inheriting op."""

    tiles: dict[tuple[int, str], frozenset[int]]
    under: dict[int, frozenset[int]]
    phi_via: dict[int, frozenset[int]]
    inherit_via: dict[int, frozenset[int]]

    @classmethod
    def read(cls, s: _Graph) -> _Reasons:
        tiles: dict[tuple[int, str], set[int]] = {}
        for (lp, code, t), _ in s.table("declined_tile"):
            assert isinstance(code, str)
            tiles.setdefault((_key(lp), code), set()).add(_key(t))
        under: dict[int, set[int]] = {}
        for (lp, m), _ in s.table("declined_under"):
            under.setdefault(_key(lp), set()).add(_key(m))
        via: list[dict[int, set[int]]] = [{}, {}]
        for k, name in enumerate(("phi_via", "inherit_via")):
            for (r, v), _ in s.table(name):
                via[k].setdefault(_key(r), set()).add(_key(v))

        def frozen(d: dict[object, set[int]]) -> dict[object, frozenset[int]]:
            return {k: frozenset(v) for k, v in d.items()}

        return cls(
            frozen(tiles),  # type: ignore[arg-type]
            frozen(under),  # type: ignore[arg-type]
            frozen(via[0]),  # type: ignore[arg-type]
            frozen(via[1]),  # type: ignore[arg-type]
        )


def _key(arg: object) -> int:
    """The key of a `Loop(k)` / `Tile(k)` call read from a table."""
    assert isinstance(arg, tuple)
    (k,) = arg[1]
    assert isinstance(k, int)
    return k


def _check_slot_term(term: ir.Expr, iv: ir.Var, stages: int) -> None:
    """The extracted slot term is a remainder by the loop's `F` that reads only its induction
    variable (the vocabulary itself is checked by `slotize.slot_expr`); anything else is an
    internal error, never a wrong program."""
    if not (isinstance(term, ir.FloorMod) and term.b == ir.ConstInt(stages, ir.DType.INDEX)):
        raise AssertionError(f"slot term {term!r} is not a remainder by {stages}")
    if any(v is not iv for v in ir.expr_vars(term)):
        raise AssertionError(f"slot term {term!r} reads a variable other than {iv.name_hint}")


def _message(code: str, p: _Loop, ctx: _Context, reasons: _Reasons) -> str:
    """The sentence of a decline, from the facts that made it (`_Reasons`) and the loop."""
    loop = p.info.stmt
    if code == "cross-core":
        cross = _cross_core_ops(loop)
        return (f"the body exchanges tiles with the other core ({cross[CrossCore.PUSH]}, "
                f"{cross[CrossCore.POP]}); a cross-core loop is pipelined across the cores, "
                "not rotated through slots")
    if code == "under-declined":
        declined = reasons.under.get(p.info.key, frozenset())
        for anc in p.ancestors:  # nearest first
            if anc in declined:
                sp = ctx.by_key[anc].info.stmt.span
                return (f"an enclosing pipeline loop at {sp.line}:{sp.col} was declined "
                        "and will be replicated")
        raise AssertionError("under-declined without a declined ancestor")
    if code == "stage-range":
        return f"stage={p.stages} is outside the 2..16 slots a ptoas region holds"
    if code == "runtime-step":
        return "the step is not a compile-time constant"
    if code == "non-positive-step":
        return f"the step {ir.index_literal(loop.step)} is not positive"
    if code == "runtime-start":
        return "the start is not a compile-time constant"
    if code == "negative-start":
        return f"the start {ir.index_literal(loop.start)} is negative"
    if code == "stepped-runtime-stop":
        return f"a loop with step {ir.index_literal(loop.step)} > 1 needs a compile-time stop"
    if code == "stop-overflow":
        step = ir.index_literal(loop.step)
        assert step is not None
        return (f"stop {ir.index_literal(loop.stop)} exceeds INT64_MAX - (step - 1) = "
                f"{INT64_MAX - (step - 1)}; the final increment would overflow")
    if code == "no-candidates":
        return "no top-level tile.load without a declared allocation"
    if code in ("capacity", "capacity-size"):
        return ctx.capacity[p.info.key][1]
    return _tile_message(code, p, ctx, reasons)


def _tile_message(code: str, p: _Loop, ctx: _Context, reasons: _Reasons) -> str:
    blocked = reasons.tiles.get((p.info.key, code), frozenset())
    names = {v.id: v for v in tile_definitions(ctx.fn.body)}
    for c in p.candidates:  # the first blocked candidate in program order
        if c.var.id not in blocked:
            continue
        t = _tile(c.var)
        name = c.var.name_hint
        if code == "tile-space":
            space = "unset" if t.memory_space is None else t.memory_space.value
            return f"load '{name}' lives in {space}; ptoas regions cover Vec, Mat and Acc only"
        if code == "tile-valid-shape":
            return f"load '{name}' has a runtime valid shape"
        if code == "tile-phi":
            via = _first(reasons.phi_via.get(c.var.id, frozenset()), [v.id for v in ctx.facts.phi_reads])
            return f"load '{name}' is carried into a phi through '{names[via].name_hint}'"
        if code == "tile-view":
            via = _first(reasons.inherit_via.get(c.var.id, frozenset()),
                         [v.id for v, _ in ctx.facts.inherit_reads])
            op = next(op for v, op in ctx.facts.inherit_reads if v.id == via)
            if not ops.effect_known(op):
                callee = op if op.startswith("self.") else f"pl.{op}"
                return (f"load '{name}' is passed to {callee}, whose effect on its arguments slotsat does "
                        "not analyse")
            return f"load '{name}' is consumed by {op}, whose result shares its buffer"
    raise AssertionError(f"no candidate explains decline code {code}")


def _first(keys: frozenset[int], order: list[int]) -> int:
    """The first of `keys` in `order` (the program order of the reads)."""
    return next(k for k in order if k in keys)


@dataclass
class _SlotRewriter(Rewriter):
    """Substitutes the rebound loads and demotes the eligible loops (keys in pre-order)."""

    demote: set[int] = field(default_factory=set)
    _next: int = 0

    def for_(self, s: ir.ForStmt) -> ir.ForStmt:
        key = self._next
        self._next += 1
        out = super().for_(s)
        return out.demoted() if key in self.demote else out


