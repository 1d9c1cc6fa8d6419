"""The slots pass's e-graph plumbing (`slotsat.egraph_rules.slotize.function_egraph`): the low-level
command path and the high-level expression path decide identically, every function starts
from an empty e-graph, and rules are lowered once per thread, not once per function."""

from __future__ import annotations

from pathlib import Path

import pytest

from slotsat.analysis.budget import Backend
from slotsat.core import ir
from slotsat.core.dsl.parser import parse_source
from slotsat.egraph_rules import slotize
from slotsat.lowering.lower_pipeline_to_slots import FunctionPlan, LowerPipelineToSlots
from tests.slots.harness import function, program, sl_body

REPO = Path(__file__).resolve().parents[2]
CORPUS = [*sorted((REPO / "bench" / "corpus").glob("*.py")),
          *sorted((REPO / "examples" / "kernels").glob("*.py"))]


def _functions() -> list[ir.Function]:
    out: list[ir.Function] = []
    for path in CORPUS:
        for prog in parse_source(path.read_text(), path.name).programs:
            out.extend(prog.functions)
    return out


def _summary(plan: FunctionPlan) -> list[tuple[object, ...]]:
    rows: list[tuple[object, ...]] = []
    for d in plan.loops:
        decline = None if d.decline is None else (d.decline.code, d.decline.message, d.decline.key)
        tiles = [(t.old.id, t.memref.slot_count, t.memref.slot_index, t.memref.base.name_hint)
                 for t in d.tiles]
        rows.append((d.key, d.stages, d.decision, decline, d.slot_index, tiles))
    rows.append(("declines", [(r.code, r.message, r.key) for r in plan.declines]))
    return rows


@pytest.mark.parametrize("backend", [Backend.ASCEND950, Backend.ASCEND910B, Backend.NONE])
def test_low_level_and_high_level_paths_decide_identically(backend: Backend,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    fns = _functions()
    assert fns
    slots_pass = LowerPipelineToSlots(backend=backend)
    monkeypatch.setattr(slotize, "LOW_LEVEL", True)
    low = [_summary(slots_pass.plan(fn)) for fn in fns]
    monkeypatch.setattr(slotize, "LOW_LEVEL", False)
    high = [_summary(slots_pass.plan(fn)) for fn in fns]
    assert low == high


def test_the_low_level_adapter_is_available_on_this_egglog() -> None:
    with slotize.function_egraph() as eg:
        assert eg.low is not None, "egglog's internals changed: the pass runs on the slow public path"


def test_every_function_starts_from_an_empty_egraph() -> None:
    # A capacity decline inserts a fact into the first function's e-graph; the same loop keys
    # in the next function must not see it.
    big = function(program(sl_body("pipeline(0, 4, 1, stage=2", shape="[128, 256]")))
    small = function(program(sl_body("pipeline(0, 4, 1, stage=2")))
    p = LowerPipelineToSlots(backend=Backend.ASCEND950)
    first = p.plan(big)
    assert [d.decline.code for d in first.loops if d.decline is not None] == ["capacity"]
    again = p.plan(small)
    assert [d.decision.value for d in again.loops] == ["slotted"]
    assert _summary(p.plan(big)) == _summary(first)


def test_rules_are_lowered_once_per_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[bool] = []
    real = slotize._Template.build

    def counting(low: bool) -> slotize._Template:
        built.append(low)
        return real(low)

    monkeypatch.setattr(slotize, "_TEMPLATES", type(slotize._TEMPLATES)())
    monkeypatch.setattr(slotize._Template, "build", staticmethod(counting))
    fn = function(program(sl_body("pipeline(0, 4, 1, stage=2")))
    for _ in range(5):
        LowerPipelineToSlots().plan(fn)
    assert built == [slotize.LOW_LEVEL]


def test_a_failure_inside_a_function_leaves_the_template_clean(monkeypatch: pytest.MonkeyPatch) -> None:
    fn = function(program(sl_body("pipeline(0, 4, 1, stage=2")))
    expected = _summary(LowerPipelineToSlots().plan(fn))

    def boom(self: slotize.SlotsEGraph) -> None:
        raise RuntimeError("boom")

    with monkeypatch.context() as m:
        m.setattr(slotize.SlotsEGraph, "run_slot_forms", boom)
        with pytest.raises(RuntimeError, match="boom"):
            LowerPipelineToSlots().plan(fn)
    assert _summary(LowerPipelineToSlots().plan(fn)) == expected
