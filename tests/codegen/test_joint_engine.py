"""Codegen with one index e-graph for every kernel function of a module
(`slotsat.egraph_rules.engine.saturate_together`): the emitted module is the one the
functions' own e-graphs give, a joint run that hits a limit falls back to one e-graph per
function, and a root added late to one engine of a joint graph is chosen against a graph of
its own (issue 13.3's generations)."""

from __future__ import annotations

import pytest

from slotsat.analysis.budget import Backend
from slotsat.app.pipeline import CompileOptions, function_passes, run_passes
from slotsat.bench.generate import generate_kernel
from slotsat.core import ir
from slotsat.core.dsl.parser import parse_source
from slotsat.core.options import Mode
from slotsat.core.semantics import eval_expr
from slotsat.egraph_rules import engine as engine_mod
from slotsat.egraph_rules.costs import describe, evaluate_term
from slotsat.egraph_rules.engine import EmittedScope, IndexEngine, saturate_together
from slotsat.egraph_rules.loops import LoopInfo
from slotsat.lowering.pto_codegen import CodegenResult, PtoCodegen
from tests.egraph.helpers import C, add, fmod, mul, sub, var


def _lowered(seed: int, loops: int) -> ir.Module:
    module = parse_source(generate_kernel(seed, loops).text, "gen.py")
    lowered, _ = run_passes(module, function_passes(CompileOptions(backend=Backend.NONE)))
    return lowered


def _codegen(module: ir.Module, mode: Mode) -> CodegenResult:
    return PtoCodegen(mode=mode, backend=Backend.NONE).run(module)


def _alone(module: ir.Module, mode: Mode, monkeypatch: pytest.MonkeyPatch) -> CodegenResult:
    with monkeypatch.context() as m:
        m.setattr(engine_mod, "_saturate_split", lambda batches: batches)
        return _codegen(module, mode)


@pytest.mark.parametrize("mode", [Mode.SLOTSAT, Mode.PYPTO])
def test_one_egraph_for_all_functions_emits_what_one_per_function_does(
    mode: Mode, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = _lowered(21, 80)
    joint = _codegen(module, mode)
    alone = _alone(module, mode, monkeypatch)
    assert len(joint.engine_reports) > 5
    assert joint.text == alone.text
    assert [n.message for n in joint.notes] == [n.message for n in alone.notes]
    assert [(g.count, g.matcher_class, g.ops) for g in joint.gets] == [
        (g.count, g.matcher_class, g.ops) for g in alone.gets
    ]
    # the joint e-graph's figures are reported once, by the first function that has roots
    nodes = [r.nodes for r in joint.engine_reports if r.roots]
    assert nodes[0] > max(r.nodes for r in alone.engine_reports)
    assert all(n == 0 for n in nodes[1:])
    assert sum(r.nodes for r in alone.engine_reports) >= nodes[0]


def test_a_joint_limit_hit_falls_back_to_one_egraph_per_function(monkeypatch: pytest.MonkeyPatch) -> None:
    module = _lowered(22, 50)
    alone = _alone(module, Mode.SLOTSAT, monkeypatch)
    own = max(r.nodes for r in alone.engine_reports)
    calls: list[bool] = []
    real = engine_mod._saturate_split

    def spy(batches: list[engine_mod._Batch]) -> list[engine_mod._Batch]:
        left = real(batches)
        calls.append(not left)
        return left

    # Rows every function's own e-graph stays within (its final size, with room for the
    # sizes seen during the run), far fewer than all of them together.
    monkeypatch.setenv("SLOTSAT_EGRAPH_NODES", str(2 * own))
    monkeypatch.setattr(engine_mod, "_saturate_split", spy)
    result = _codegen(module, Mode.SLOTSAT)
    assert calls == [False]
    assert result.text == alone.text
    assert all(r.limit_hit is None for r in result.engine_reports)


def test_a_late_root_in_a_joint_graph_is_chosen_against_a_graph_of_its_own() -> None:
    i, j = var("i"), var("j")
    engines = [IndexEngine(), IndexEngine()]
    for e, v in zip(engines, (i, j), strict=True):
        e.add_loop(LoopInfo(v, C(0), C(64), C(1)))
    first = fmod(sub(add(i, C(7)), C(2)), C(3))
    a = engines[0].add_root(first, slots=3)
    b = engines[1].add_root(mul(j, C(8)))
    saturate_together(engines)
    joint = engines[1].saturate()
    assert joint.view is engines[0].saturate().view  # one e-graph, one export, one parse
    scope = EmittedScope()
    chosen = engines[0].choose(a, scope)
    assert describe(chosen.term) == "remui((i + 2), 3)"
    assert describe(engines[1].choose(b, EmittedScope()).term) == "(j * 8)"
    late_expr = fmod(add(i, C(5)), C(4))
    late = engines[0].choose(engines[0].add_root(late_expr, slots=4), scope)
    assert engines[0].saturate().view is not joint.view
    assert engines[1].saturate() is joint
    for v in range(64):
        assert evaluate_term(chosen.term, {i.id: v}) == eval_expr(first, {i.id: v})
        assert evaluate_term(late.term, {i.id: v}) == eval_expr(late_expr, {i.id: v}), v
    assert late.reused == ()


def test_a_function_alone_over_the_limit_keeps_its_best_form_and_reports_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SLOTSAT_CAP_CODEGEN_SLOTS", "1")
    i, j = var("i"), var("j")
    engines = [IndexEngine(), IndexEngine()]
    for e, v in zip(engines, (i, j), strict=True):
        e.add_loop(LoopInfo(v, C(0), C(64), C(1)))
    roots = [engines[0].add_root(fmod(add(i, C(5)), C(4)), slots=4), engines[1].add_root(mul(j, C(8)))]
    saturate_together(engines)
    reports = [e.saturate().report for e in engines]
    assert all(r.limit_hit is not None and "round limit of 1" in r.limit_hit for r in reports)
    assert all(r.nodes > 0 for r in reports)  # each saturated in an e-graph of its own
    for e, r in zip(engines, roots, strict=True):
        assert e.choose(r, EmittedScope()).term is not None


def test_hoisted_operations_are_saturated_with_the_other_roots(monkeypatch: pytest.MonkeyPatch) -> None:
    # valid_rows computes pl.min / pl.max of index expressions: their operands and the rest of
    # each expression are roots of the pre-pass, so the function saturates once (no late root).
    from pathlib import Path

    from slotsat.app.pipeline import compile_source

    path = Path(__file__).resolve().parents[1] / "data" / "printed" / "valid_rows.pre.py"
    groups: list[int] = []
    real = engine_mod._saturate_groups

    def spy(pending: list[IndexEngine]) -> None:
        groups.append(len(pending))
        real(pending)

    monkeypatch.setattr(engine_mod, "_saturate_groups", spy)
    result = compile_source(path.read_text(), path.name, CompileOptions(backend=Backend.NONE))
    assert "arith.maxsi" in result.pto_text
    assert "arith.minsi" in result.pto_text
    assert groups == [len(result.engine_reports)]
