"""The index engine's saturation split between two threads
(`slotsat.egraph_rules.engine.saturate_together`, "Two threads"): the cut never separates
terms that share a loop or a variable, the merged view resolves every term in its own
e-graph, the emitted module is the one a single e-graph gives (functions split apart, and
one function's loops split apart), a split over the row limit is redone as one e-graph, an
error on the worker reaches the caller, and each thread's templates, retired or left at exit,
are freed on that thread."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

import pytest

from slotsat.analysis.budget import Backend
from slotsat.app.pipeline import CompileOptions, function_passes, run_passes
from slotsat.bench.generate import generate_kernel, generate_single_function
from slotsat.core import ir, phases
from slotsat.core.dsl.parser import parse_source
from slotsat.core.options import Mode
from slotsat.egraph_rules import engine as engine_mod
from slotsat.egraph_rules.calls import Action, Call, Set
from slotsat.egraph_rules.costs import describe, evaluate_term
from slotsat.egraph_rules.engine import EmittedScope, IndexEngine, saturate_together
from slotsat.egraph_rules.loops import LoopInfo
from slotsat.egraph_rules.session import ScheduleRun
from slotsat.egraph_rules.view import EGraphView
from slotsat.lowering.pto_codegen import CodegenResult, PtoCodegen
from tests.egraph.helpers import C, add, fdiv, fmod, mul, sub, var

Run = tuple[ScheduleRun, int, EGraphView | None]


def _lowered(text: str) -> ir.Module:
    module = parse_source(text, "gen.py")
    lowered, _ = run_passes(module, function_passes(CompileOptions(backend=Backend.NONE)))
    return lowered


def _codegen(module: ir.Module, mode: Mode, monkeypatch: pytest.MonkeyPatch, *, split: bool) -> CodegenResult:
    with monkeypatch.context() as m:
        m.setattr(engine_mod, "PARALLEL", split)
        m.setattr(engine_mod, "PARALLEL_MIN_ACTIONS", 1)
        return PtoCodegen(mode=mode, backend=Backend.NONE).run(module)


def _prefixes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The view prefixes of the e-graphs run from now on (a spy on `_run_joint`)."""
    seen: list[str] = []
    real = engine_mod._run_joint

    def spy(actions: list[Action], engine: IndexEngine, started: float, prefix: str) -> Run:
        seen.append(prefix)
        return real(actions, engine, started, prefix)

    monkeypatch.setattr(engine_mod, "_run_joint", spy)
    return seen


def _atoms(arg: object, out: set[tuple[str, object]]) -> set[tuple[str, object]]:
    if isinstance(arg, Set):
        _atoms(arg.target, out)
        _atoms(arg.value, out)
    elif isinstance(arg, Call):
        if arg.fn in ("Loop", "var"):
            out.add((arg.fn, arg.args[0]))
        for a in arg.args:
            _atoms(a, out)
    return out


@pytest.mark.parametrize("mode", [Mode.SLOTSAT, Mode.PYPTO])
@pytest.mark.parametrize("shape", ["functions", "one function"])
def test_a_split_saturation_emits_what_one_egraph_does(
    mode: Mode, shape: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = generate_kernel(31, 40).text if shape == "functions" else generate_single_function(32, 40).text
    module = _lowered(text)
    one = _codegen(module, mode, monkeypatch, split=False)
    prefixes = _prefixes(monkeypatch)
    two = _codegen(module, mode, monkeypatch, split=True)
    assert prefixes == ["0|", "1|"]  # it did split (the worker's run is the second)
    assert two.text == one.text
    assert [n.message for n in two.notes] == [n.message for n in one.notes]
    assert [(g.count, g.matcher_class, g.ops) for g in two.gets] == [
        (g.count, g.matcher_class, g.ops) for g in one.gets
    ]
    rows = [r.nodes for r in two.engine_reports if r.roots]
    assert rows[0] > 0
    assert all(n == 0 for n in rows[1:])


def test_the_cut_keeps_every_loop_and_variable_on_one_side(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine_mod, "PARALLEL_MIN_ACTIONS", 1)
    engine = IndexEngine()
    ivs = [var(f"i{k}") for k in range(6)]
    n = var("n", ir.DType.INDEX)
    for v in ivs:
        engine.add_loop(LoopInfo(v, C(0), C(64), C(1)))
    for k, v in enumerate(ivs):
        engine.add_root(fmod(add(v, C(k)), C(2)), slots=2)
        engine.add_root(mul(fdiv(sub(v, C(1)), C(2)), C(8)))
    engine.add_root(add(mul(ivs[1], C(4)), ivs[4]))  # joins loops 1 and 4
    engine.add_root(add(n, ivs[2]))  # joins loop 2 and the variable n
    engine.add_root(mul(n, C(3)))
    batch = engine._batch()
    actions = [*batch.facts, *batch.inserted]
    halves = engine_mod._halves(actions)
    assert halves is not None
    first, second = halves
    assert first
    assert second
    assert sorted(map(id, first + second)) == sorted(map(id, actions))
    for half in (first, second):  # each half keeps the original order
        positions = [next(k for k, a in enumerate(actions) if a is b) for b in half]
        assert positions == sorted(positions)
    left = set().union(*(_atoms(a, set()) for a in first))
    right = set().union(*(_atoms(a, set()) for a in second))
    assert left
    assert right
    assert not left & right


def test_actions_of_one_component_or_too_few_are_not_split(monkeypatch: pytest.MonkeyPatch) -> None:
    engine = IndexEngine()
    i = var("i")
    engine.add_loop(LoopInfo(i, C(0), C(64), C(1)))
    for k in range(8):
        engine.add_root(fmod(add(i, C(k)), C(4)), slots=4)
    batch = engine._batch()
    actions = [*batch.facts, *batch.inserted]
    assert engine_mod._halves(actions) is None  # below PARALLEL_MIN_ACTIONS
    monkeypatch.setattr(engine_mod, "PARALLEL_MIN_ACTIONS", 1)
    assert engine_mod._halves(actions) is None  # one loop: one component


def test_the_merged_view_resolves_each_term_in_its_own_egraph(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine_mod, "PARALLEL_MIN_ACTIONS", 1)
    i, j = var("i"), var("j")
    engine = IndexEngine()
    for v in (i, j):
        engine.add_loop(LoopInfo(v, C(0), C(64), C(1)))
    # the same literals on both sides: their `const` leaves are in both e-graphs
    a = engine.add_root(fmod(sub(add(i, C(7)), C(2)), C(3)), slots=3)
    b = engine.add_root(fmod(sub(add(j, C(7)), C(2)), C(3)), slots=3)
    graph = engine.saturate()
    assert graph.view is not None
    ca, cb = graph.classes[a], graph.classes[b]
    assert ca is not None
    assert cb is not None
    assert {ca.partition("|")[0], cb.partition("|")[0]} == {"0", "1"}
    scope = EmittedScope()
    assert engine.choose(a, scope).term is not None
    picked = engine.choose(b, scope)
    assert picked.reused == ()  # nothing of i's e-graph stands for j's value
    assert engine.proven(a) == engine.proven(b) is not None


def test_a_literal_of_one_egraph_only_resolves_in_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # `28` is inserted into j's e-graph only; the written form (`--mode pypto`) and its proof
    # resolve it there, not in the first e-graph
    monkeypatch.setattr(engine_mod, "PARALLEL_MIN_ACTIONS", 1)
    i, j = var("i"), var("j")
    engine = IndexEngine(Mode.PYPTO)
    for v in (i, j):
        engine.add_loop(LoopInfo(v, C(0), C(64), C(1)))
    a = engine.add_root(mul(i, C(3)))
    b = engine.add_root(fmod(C(28), add(j, C(1))))
    graph = engine.saturate()
    classes = [graph.classes[a], graph.classes[b]]
    assert [c.partition("|")[0] for c in classes if c is not None] == ["0", "1"]
    assert describe(engine.choose(a, EmittedScope()).term) == "(i * 3)"
    chosen = engine.choose(b, EmittedScope())
    assert chosen.nonneg is not None  # 28 >= 0, proven in j's e-graph
    for value in range(64):
        assert evaluate_term(chosen.term, {j.id: value}) == 28 % (value + 1)


def test_a_split_over_the_row_limit_is_redone_as_one_egraph(monkeypatch: pytest.MonkeyPatch) -> None:
    module = _lowered(generate_single_function(33, 30).text)
    one = _codegen(module, Mode.SLOTSAT, monkeypatch, split=False)
    rows = max(r.nodes for r in one.engine_reports)
    # each half stays within this, both together do not: the split must not hide the limit
    monkeypatch.setenv("SLOTSAT_EGRAPH_NODES", str(rows - 1))
    capped_one = _codegen(module, Mode.SLOTSAT, monkeypatch, split=False)
    prefixes = _prefixes(monkeypatch)
    capped_two = _codegen(module, Mode.SLOTSAT, monkeypatch, split=True)
    assert prefixes == ["0|", "1|"]  # it tried the split, then saturated the function alone
    assert capped_two.text == capped_one.text
    hits = [r.limit_hit for r in capped_one.engine_reports]
    assert [r.limit_hit for r in capped_two.engine_reports] == hits
    assert any(r.limit_hit for r in capped_two.engine_reports)


def test_an_error_on_the_worker_reaches_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine_mod, "PARALLEL_MIN_ACTIONS", 1)
    real = engine_mod._run_joint

    def failing(actions: list[Action], engine: IndexEngine, started: float, prefix: str) -> Run:
        if prefix == "1|":
            raise RuntimeError("the worker's e-graph failed")
        return real(actions, engine, started, prefix)

    monkeypatch.setattr(engine_mod, "_run_joint", failing)
    i, j = var("i"), var("j")
    engines = [IndexEngine(), IndexEngine()]
    for e, v in zip(engines, (i, j), strict=True):
        e.add_loop(LoopInfo(v, C(0), C(64), C(1)))
        e.add_root(fmod(add(v, C(5)), C(4)), slots=4)
    with pytest.raises(RuntimeError, match="the worker's e-graph failed"):
        saturate_together(engines)


def test_the_workers_phases_are_not_counted_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine_mod, "PARALLEL_MIN_ACTIONS", 1)
    module = _lowered(generate_kernel(34, 30).text)
    with phases.recording() as recorded:
        start = time.perf_counter()
        _codegen(module, Mode.SLOTSAT, monkeypatch, split=True)
        wall = time.perf_counter() - start
    inner = recorded.get("codegen.insert", 0.0) + recorded.get("codegen.saturate", 0.0)
    assert 0.0 < inner <= wall


def _runs_quietly(script: str, printed: str) -> None:
    """`script` in a fresh interpreter exits 0, prints `printed` and nothing on stderr (where
    egglog reports an e-graph dropped on another thread than its own)."""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == printed
    assert "unsendable" not in done.stderr
    assert done.stderr.strip() == ""


def test_the_worker_drops_its_templates_on_its_own_thread() -> None:
    # egglog's e-graph reports a drop on another thread on stderr; the worker stops at exit
    script = textwrap.dedent(
        """
        from slotsat.egraph_rules import engine
        engine.start_worker()
        print("started")
        """
    )
    _runs_quietly(script, "started")


def test_retired_templates_are_freed_on_the_thread_that_built_them() -> None:
    # Templates retire after TEMPLATE_USES sessions on both threads; a collection on one
    # thread must never be the one to free the other's (egglog reports it on stderr).
    script = textwrap.dedent(
        """
        import gc
        from slotsat.analysis.budget import Backend
        from slotsat.app.pipeline import CompileOptions, compile_module
        from slotsat.bench.generate import generate_kernel
        from slotsat.core.dsl.parser import parse_source
        from slotsat.egraph_rules import engine, session
        session.TEMPLATE_USES = 2
        engine.PARALLEL_MIN_ACTIONS = 1
        engine.start_worker()
        module = parse_source(generate_kernel(7, 12).text, "k.py")
        for _ in range(5):
            compile_module(module, CompileOptions(backend=Backend.NONE))
            gc.collect()
        print("compiled")
        """
    )
    _runs_quietly(script, "compiled")


def test_a_stopped_worker_is_restarted_by_the_next_split(monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    engine_mod.start_worker()
    engine_mod.stop_worker()
    assert not [t for t in threading.enumerate() if t.name == "slotsat-egraph"]
    module = _lowered(generate_kernel(35, 12).text)
    split = _codegen(module, Mode.SLOTSAT, monkeypatch, split=True)
    assert [t for t in threading.enumerate() if t.name == "slotsat-egraph"]
    assert split.text == _codegen(module, Mode.SLOTSAT, monkeypatch, split=False).text
