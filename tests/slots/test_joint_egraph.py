"""The slots pass with one e-graph for all functions (`LowerPipelineToSlots.plan_all`; a batch
of them at a time): every function is decided exactly as by its own e-graph (`plan`), and a
joint run that hits an e-graph limit falls back to one e-graph per function, so the failure
rule (`egraph-limit`) applies per function as documented."""

from __future__ import annotations

import pytest

from slotsat.analysis.budget import Backend
from slotsat.bench.generate import generate_kernel
from slotsat.core import ir
from slotsat.core.dsl.parser import parse_source
from slotsat.core.dsl.printer import print_function
from slotsat.egraph_rules import session as session_mod
from slotsat.lowering import lower_pipeline_to_slots
from slotsat.lowering.lower_pipeline_to_slots import EGRAPH_LIMIT, LowerPipelineToSlots
from tests.slots.harness import function, program, sl_body
from tests.slots.test_engine_session import _functions, _summary


def _generated(seed: int, loops: int) -> list[ir.Function]:
    kernel = generate_kernel(seed, loops)
    return [fn for prog in parse_source(kernel.text, "gen.py").programs for fn in prog.functions]


@pytest.mark.parametrize("backend", [Backend.ASCEND950, Backend.NONE])
def test_one_egraph_for_all_functions_decides_as_one_per_function(backend: Backend) -> None:
    fns = _functions() + _generated(3, 60)
    slots_pass = LowerPipelineToSlots(backend=backend)
    alone = [_summary(slots_pass.plan(fn)) for fn in fns]
    joint = [_summary(p) for p in slots_pass.plan_all(fns)]
    assert joint == alone
    assert sum(1 for rows in joint for d in rows[:-1] if d[2].value == "slotted") > 20


def test_batches_of_functions_decide_as_one_egraph(monkeypatch: pytest.MonkeyPatch) -> None:
    fns = _generated(9, 50)
    slots_pass = LowerPipelineToSlots(backend=Backend.NONE)
    whole = [_summary(p) for p in slots_pass.plan_all(fns)]
    sizes: list[int] = []
    real_joint = LowerPipelineToSlots._plan_joint

    def spy(self: LowerPipelineToSlots, preps: list[object]) -> object:
        sizes.append(len(preps))
        return real_joint(self, preps)  # type: ignore[arg-type]

    monkeypatch.setattr(LowerPipelineToSlots, "_plan_joint", spy)
    monkeypatch.setattr(lower_pipeline_to_slots, "JOINT_LOOPS", 12)
    batched = [_summary(p) for p in slots_pass.plan_all(fns)]
    assert len(sizes) > 2
    assert batched == whole


def test_the_rewritten_functions_are_the_same() -> None:
    fns = _generated(5, 40)
    slots_pass = LowerPipelineToSlots(backend=Backend.ASCEND910B)
    alone = [slots_pass.plan(fn).result for fn in fns]
    joint = [p.result for p in slots_pass.plan_all(fns)]
    assert [print_function(f) for f in joint] == [print_function(f) for f in alone]
    assert any(a is not fn for a, fn in zip(alone, fns, strict=True))


def test_a_capacity_decline_stays_in_its_function() -> None:
    # The same loop keys in two functions: one declined for capacity (a fact inserted between
    # two gate runs), the other slotted.
    big = function(program(sl_body("pipeline(0, 4, 1, stage=2", shape="[128, 256]")))
    small = function(program(sl_body("pipeline(0, 4, 1, stage=2")))
    plans = LowerPipelineToSlots(backend=Backend.ASCEND950).plan_all([big, small, big])
    codes = [[d.decline.code if d.decline else d.decision.value for d in p.loops] for p in plans]
    assert codes == [["capacity"], ["slotted"], ["capacity"]]


def test_a_joint_limit_hit_falls_back_to_one_egraph_per_function(monkeypatch: pytest.MonkeyPatch) -> None:
    fns = _generated(7, 30)
    slots_pass = LowerPipelineToSlots(backend=Backend.NONE)
    expected = [_summary(slots_pass.plan(fn)) for fn in fns]
    seen: list[int] = []
    real = session_mod.Session._over

    def recording(name: str, limits: session_mod.Limits, t0: float, rows: int | None) -> str | None:
        if rows is not None:
            seen.append(rows)
        return real(name, limits, t0, rows)

    with monkeypatch.context() as m:
        m.setattr(session_mod.Session, "_over", staticmethod(recording))
        for fn in fns:
            slots_pass.plan(fn)
    own = max(seen)
    # Rows enough for any function's own e-graph, not for all of them in one.
    monkeypatch.setenv("SLOTSAT_EGRAPH_NODES", str(own + 1))
    fell_back: list[bool] = []
    real_joint = LowerPipelineToSlots._plan_joint

    def spy(self: LowerPipelineToSlots, preps: list[object]) -> object:
        out = real_joint(self, preps)  # type: ignore[arg-type]
        fell_back.append(out is None)
        return out

    monkeypatch.setattr(LowerPipelineToSlots, "_plan_joint", spy)
    joint = [_summary(p) for p in slots_pass.plan_all(fns)]
    assert fell_back == [True]
    assert joint == expected
    assert not any(d[3] is not None and d[3][0] == EGRAPH_LIMIT for rows in joint for d in rows[:-1])


def test_a_function_over_the_limit_alone_is_declined_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    small = function(program(sl_body("pipeline(0, 4, 1, stage=2")))
    fns = [small, *_generated(11, 24)]
    slots_pass = LowerPipelineToSlots(backend=Backend.NONE)
    first = slots_pass.plan(small)
    assert [d.decision.value for d in first.loops] == ["slotted"]
    # A row limit the one-loop function stays under and the generated ones exceed.
    monkeypatch.setenv("SLOTSAT_EGRAPH_NODES", "60")
    plans = slots_pass.plan_all(fns)
    assert _summary(plans[0]) == _summary(slots_pass.plan(small))
    limited = [
        d for p in plans[1:] for d in p.loops if d.decline is not None and d.decline.code == EGRAPH_LIMIT
    ]
    assert limited
    assert all("row limit of 60" in d.decline.message for d in limited if d.decline is not None)
