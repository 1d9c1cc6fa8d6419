# ruff: noqa: E501  (DSL statements in the kernel texts are one line each, as printed)
"""Pipeline-level properties (`20-lower-pipeline-to-slots.md` §14, §16 group J) over the
corpus kernels (`examples/kernels/*.py`, `bench/corpus/*.py`) and hypothesis-generated
kernels.

Groups:
- complementarity, nothing-else-changes, lockstep and no-pipeline-survives on every kernel;
- idempotence of the slots pass;
- semantic equivalence: a slot index visits 0, 1, ..., F-1, 0, ... in iteration order;
- decline_reason_first: the record's code is the first failing gate in §10's order
  (against an independent oracle kept by the generator).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slotsat.analysis.budget import Backend
from slotsat.analysis.loops import iter_loops
from slotsat.core import ir
from slotsat.core.dsl.parser import parse_file, parse_source
from slotsat.core.dsl.printer import print_module
from slotsat.core.errors import PassError
from slotsat.core.options import Planner
from slotsat.lowering.common import Rewriter
from slotsat.lowering.lower_pipeline_loops import LowerPipelineLoops
from slotsat.lowering.lower_pipeline_to_slots import Decision, FunctionPlan, LowerPipelineToSlots
from slotsat.lowering.resolve_pipeline_markers import ResolvePipelineMarkers

ROOT = Path(__file__).resolve().parents[2]
CORPUS = sorted([*ROOT.glob("examples/kernels/*.py"), *ROOT.glob("bench/corpus/*.py")])


# ------------------------------------------------------------------------------- checks


@dataclass
class _Strip(Rewriter):
    """Drops the synthesized MemRefs (by base id) and demotes the given loop keys."""

    bases: set[int] = field(default_factory=set)
    demote: set[int] = field(default_factory=set)
    _next: int = 0

    def type_(self, t: ir.Type) -> ir.Type:
        if isinstance(t, ir.TileType) and t.memref is not None and t.memref.base.id in self.bases:
            return ir.TileType(t.shape, t.dtype, t.memory_space, None, t.valid_shape)
        return super().type_(t)

    def for_(self, s: ir.ForStmt) -> ir.ForStmt:
        key = self._next
        self._next += 1
        out = super().for_(s)
        return out.demoted() if key in self.demote else out


def _unbound_top_loads(loop: ir.ForStmt) -> list[ir.Var]:
    return [s.var for s in loop.body.stmts if isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Call)
            and s.value.op == "tile.load" and isinstance(s.var.type, ir.TileType) and s.var.type.memref is None]


def _unreplicable(loop: ir.ForStmt) -> bool:
    if loop.stages is None or loop.stages < 2:
        return False
    step = ir.index_literal(loop.step)
    runtime = ir.index_literal(loop.start) is None or ir.index_literal(loop.stop) is None
    return step is None or (runtime and step <= 0)


def _lockstep(fn: ir.Function) -> None:
    for loop in iter_loops(fn.body):
        assert (loop.kind is ir.ForKind.PIPELINE) == (loop.stages is not None)


def check_function(fn: ir.Function, planner: Planner = Planner.PTOAS, backend: Backend = Backend.ASCEND950) -> FunctionPlan:
    plan = LowerPipelineToSlots(planner=planner, backend=backend).plan(fn)
    out = plan.result
    _lockstep(out)
    before = list(iter_loops(fn.body))
    after = list(iter_loops(out.body))
    assert len(before) == len(after)
    bases: set[int] = set()
    for d in plan.loops:
        orig, new = before[d.key], after[d.key]
        assert orig is d.loop
        if d.stages <= 1:
            assert new.kind is ir.ForKind.PIPELINE
            continue
        loads = _unbound_top_loads(orig)
        if d.decision is Decision.SLOTTED:
            # complementarity: demoted with every unbound top-level load slotted
            assert new.kind is ir.ForKind.SEQUENTIAL
            assert [t.old for t in d.tiles] == loads
            for s in new.body.stmts:
                if isinstance(s, ir.AssignStmt) and any(s.var is t.new for t in d.tiles):
                    mr = s.var.type.memref  # type: ignore[union-attr]
                    assert mr.slot_count == d.stages
                    assert mr.is_pinned
                    assert mr.slot_index is d.slot_index
            assert len({t.memref.base.id for t in d.tiles}) == len(d.tiles)  # one selection per region
            bases |= {t.memref.base.id for t in d.tiles}
        else:
            # ... or kept for replication with none slotted
            assert d.decision is Decision.DECLINED
            assert new is orig
    # nothing else changes
    demoted = {d.key for d in plan.loops if d.decision is Decision.SLOTTED}
    ir.assert_structural_equal(_Strip(bases=bases).body(out.body), _Strip(demote=demoted).body(fn.body))
    # idempotence
    again = LowerPipelineToSlots(planner=planner, backend=backend).plan(out)
    assert again.result is out
    # replication finishes the job (or rejects a loop it cannot replicate, §12)
    try:
        final = ResolvePipelineMarkers().run(LowerPipelineLoops().run(out).function).function
    except PassError:
        assert any(_unreplicable(loop) for loop in iter_loops(out.body))
        return plan
    _lockstep(final)
    assert not any(loop.kind is ir.ForKind.PIPELINE for loop in iter_loops(final.body))
    return plan


def _eval(e: ir.Expr, iv: ir.Var, value: int) -> int:
    if isinstance(e, ir.Var):
        assert e is iv
        return value
    assert isinstance(e, ir.ConstInt | ir.Sub | ir.FloorDiv | ir.FloorMod), e
    if isinstance(e, ir.ConstInt):
        return e.value
    a, b = _eval(e.a, iv, value), _eval(e.b, iv, value)
    return a - b if isinstance(e, ir.Sub) else a // b if isinstance(e, ir.FloorDiv) else a % b


def check_rotation(plan: FunctionPlan) -> None:
    for d in plan.loops:
        if d.decision is not Decision.SLOTTED:
            continue
        start, stop, step = (ir.index_literal(x) for x in (d.loop.start, d.loop.stop, d.loop.step))
        assert start is not None
        assert step is not None
        assert d.slot_index is not None
        end = stop if stop is not None else start + 40 * step
        ivs = range(start, min(end, start + 40 * step), step)
        assert [_eval(d.slot_index, d.loop.loop_var, v) for v in ivs] == [k % d.stages for k in range(len(ivs))]


# ------------------------------------------------------------------------------- corpus


def test_the_corpus_is_not_empty() -> None:
    assert CORPUS


@pytest.mark.parametrize("path", CORPUS, ids=[p.name for p in CORPUS])
@pytest.mark.parametrize("backend", [Backend.ASCEND950, Backend.ASCEND910B])
def test_invariants_hold_on_the_corpus(path: Path, backend: Backend) -> None:
    module = parse_file(path)
    for program in module.programs:
        for fn in program.functions:
            check_rotation(check_function(fn, backend=backend))
            check_function(fn, Planner.PYPTO, backend)


@pytest.mark.parametrize("path", CORPUS, ids=[p.name for p in CORPUS])
def test_slots_output_round_trips_on_the_corpus(path: Path) -> None:
    from slotsat.app.commands.slots import slots_report

    for replicate in (False, True):
        module = slots_report(parse_file(path), replicate=replicate).module
        text = print_module(module)
        reparsed = parse_source(text, "round-trip.py")
        ir.assert_structural_equal(reparsed, module)
        assert print_module(reparsed) == text


# ------------------------------------------------------------------------------- generator

CODE_ORDER = ("under-declined", "stage-range", "runtime-step", "non-positive-step", "runtime-start",
              "negative-start", "stepped-runtime-stop", "stop-overflow", "tile-space", "tile-valid-shape",
              "tile-phi", "tile-view", "no-candidates")
TILE = "pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec]"


@dataclass
class Gen:
    draw: st.DrawFn
    lines: list[str] = field(default_factory=list)
    count: int = 0
    expected: list[str | None] = field(default_factory=list)
    """Per pipeline loop with F > 1, in pre-order: the oracle's first decline code or None."""

    def fresh(self, p: str) -> str:
        self.count += 1
        return f"{p}{self.count}"

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    def loop(self, depth: int, carried: str, declined_above: bool) -> str:
        d = self.draw
        iv = self.fresh("i")
        kind = d(st.sampled_from(["pipeline", "pipeline", "pipeline", "range"]))
        stage = d(st.sampled_from([1, 2, 2, 3, 4, 16, 17])) if kind == "pipeline" else 0
        start = d(st.sampled_from(["0", "0", "1", "3", "4", "-2", "n"]))
        step = d(st.sampled_from(["1", "1", "2", "3", "-1", "n"]))
        stop = d(st.sampled_from(["0", "9", "32", "n"]))
        acc = self.fresh("c")
        stage_txt = f", stage={stage}" if kind == "pipeline" else ""
        self.emit(depth, f"for {iv}, ({acc},) in pl.{kind}({start}, {stop}, {step}{stage_txt}, "
                         f"init_values=({carried},)):")
        slot = len(self.expected)
        if stage > 1:
            self.expected.append(None)
        roots: dict[str, str] = {}  # tile var -> alias root (a load) for this loop's direct tiles
        loads: list[str] = []
        phi: set[str] = set()
        view: set[str] = set()
        items = d(st.lists(st.sampled_from(["load", "load", "bound", "exp", "view", "alias", "read", "loop",
                                            "push", "pop"]), max_size=5))
        cross: set[str] = set()
        for item in items:
            b = depth + 1
            tiles = list(roots)
            if item == "load":
                v = self.fresh("t")
                self.emit(b, f"{v}: {TILE} = pl.load(a, [0, 0], [8, 64])")
                roots[v] = v
                loads.append(v)
            elif item == "bound":
                v = self.fresh("m")
                self.emit(b, f'{v}: pl.Tile[[8, 64], pl.FP32, pl.MemRef("{v}", slots=2)[0], pl.Mem.Vec] = '
                             "pl.load(a, [0, 0], [8, 64])")
            elif item in ("exp", "view", "alias", "read") and tiles:
                src = d(st.sampled_from(tiles))
                v = self.fresh(item[0])
                if item == "exp":
                    self.emit(b, f"{v}: {TILE} = pl.exp({src})")
                elif item == "view":
                    self.emit(b, f"{v}: {TILE} = pl.reshape({src}, [8, 64])")
                    view.add(roots[src])
                    roots[v] = roots[src]
                elif item == "alias":
                    self.emit(b, f"{v}: {TILE} = {src}")
                    roots[v] = roots[src]
                else:
                    self.emit(b, f"{v}: pl.Scalar[pl.FP32] = pl.tile.read({src}, [0, 0])")
            elif item == "push" and tiles:
                self.emit(b, f"pl.tile.tpush_to_aiv({d(st.sampled_from(tiles))}, split=0)")
                cross.add("push")
            elif item == "pop":
                v = self.fresh("p")
                self.emit(b, f"{v}: {TILE} = pl.tile.tpop_from_aiv(split=0)")
                roots[v] = v
                cross.add("pop")
            elif item == "loop" and depth < 2:
                init = d(st.sampled_from([acc, *tiles]))
                if init in roots:
                    phi.add(roots[init])
                res = self.loop(b, init, declined_above)
                self.emit(b, f"{self.fresh('f')}: {TILE} = pl.exp({res})")
        yielded = d(st.sampled_from([acc, *roots]))
        if yielded in roots:
            phi.add(roots[yielded])
        res = self.fresh("r")
        self.emit(depth + 1, f"{res} = pl.yield_({yielded})")
        if stage > 1:
            self.expected[slot] = self._code(declined_above, stage, start, step, stop, loads=loads, phi=phi,
                                             view=view, cross=cross)
        return res

    @staticmethod
    def _code(above: bool, stage: int, start: str, step: str, stop: str, *, loads: list[str],
              phi: set[str], view: set[str], cross: set[str]) -> str | None:
        if cross == {"push", "pop"}:
            return "cross-core"
        if above:
            return "under-declined"
        if stage > 16:
            return "stage-range"
        if step == "n":
            return "runtime-step"
        if int(step) <= 0:
            return "non-positive-step"
        if start == "n":
            return "runtime-start"
        if int(start) < 0:
            return "negative-start"
        if int(step) > 1 and stop == "n":
            return "stepped-runtime-stop"
        if any(t in phi for t in loads):
            return "tile-phi"
        if any(t in view for t in loads):
            return "tile-view"
        if not loads:
            return "no-candidates"
        return None


@st.composite
def kernels(draw: st.DrawFn) -> tuple[str, list[str | None]]:
    g = Gen(draw)
    g.emit(0, f"s0: {TILE} = pl.load(a, [0, 0], [8, 64])")
    last = "s0"
    for _ in range(draw(st.integers(1, 2))):
        res = g.loop(0, last, False)
        nxt = g.fresh("f")
        g.emit(0, f"{nxt}: {TILE} = pl.exp({res})")
        last = nxt
    g.emit(0, "return out")
    body = "\n".join("        " + ln for ln in g.lines)
    src = ("import pypto.language as pl\n\n@pl.program\nclass G:\n    @pl.function\n"
           "    def main(self, a: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]], "
           "n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[256, 64], pl.FP32]:\n" + body + "\n")
    return src, g.expected


def _resolve_under(plan: FunctionPlan, expected: list[str | None]) -> list[str | None]:
    """Apply §7 to the oracle: a loop below a declined F > 1 loop is under-declined, unless it is
    cross-core itself (checked first)."""
    from slotsat.analysis.loops import loop_tree, pipeline_ancestors

    tree = loop_tree(plan.function)
    multi = [d for d in plan.loops if d.stages > 1]
    codes = dict(zip([d.key for d in multi], expected, strict=True))
    out: list[str | None] = []
    for d in multi:
        if codes[d.key] != "cross-core" and any(codes.get(a) is not None
                                                for a in pipeline_ancestors(tree, d.key)):
            codes[d.key] = "under-declined"
        out.append(codes[d.key])
    return out


@settings(max_examples=40)
@given(kernels())
def test_generated_kernels_keep_every_invariant(case: tuple[str, list[str | None]]) -> None:
    src, _ = case
    fn = parse_source(src, "gen.py").programs[0].functions[0]
    check_rotation(check_function(fn))
    check_function(fn, backend=Backend.ASCEND910B)


@settings(max_examples=100)
@given(kernels())
def test_generated_kernels_report_the_first_failing_gate(case: tuple[str, list[str | None]]) -> None:
    src, expected = case
    fn = parse_source(src, "gen.py").programs[0].functions[0]
    plan = LowerPipelineToSlots(backend=Backend.NONE).plan(fn)
    got = [None if d.decline is None else d.decline.code for d in plan.loops if d.stages > 1]
    assert got == _resolve_under(plan, expected), src
