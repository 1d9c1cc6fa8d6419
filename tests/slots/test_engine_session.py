"""The slots pass on the egglog session layer (`slotsat.egraph_rules.session`): the command
path and the public-API path decide identically, every function starts from an empty
e-graph, rules are lowered once per thread, a failure leaves the template clean, and an
e-graph limit is a safe decline (`egraph-limit`), never an internal error."""

from __future__ import annotations

from pathlib import Path

import pytest

from slotsat.analysis.budget import Backend
from slotsat.app.pipeline import CompileOptions, compile_source
from slotsat.core import ir
from slotsat.core.dsl.parser import parse_source
from slotsat.egraph_rules import session as session_mod
from slotsat.egraph_rules.schedules import SLOTS_PASS, ProgramSpec
from slotsat.lowering.lower_pipeline_to_slots import EGRAPH_LIMIT, FunctionPlan, LowerPipelineToSlots
from tests.slots.harness import function, program, sl_body

REPO = Path(__file__).resolve().parents[2]
CORPUS = [
    *sorted((REPO / "bench" / "corpus").glob("*.py")),
    *sorted((REPO / "examples" / "kernels").glob("*.py")),
]


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
        tiles = [
            (t.old.id, t.memref.slot_count, t.memref.slot_index, t.memref.base.name_hint) for t in d.tiles
        ]
        rows.append((d.key, d.stages, d.decision, decline, d.slot_index, tiles))
    rows.append(("declines", [(r.code, r.message, r.key) for r in plan.declines]))
    return rows


@pytest.mark.parametrize("backend", [Backend.ASCEND950, Backend.ASCEND910B, Backend.NONE])
def test_command_and_public_paths_decide_identically(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    fns = _functions()
    assert fns
    slots_pass = LowerPipelineToSlots(backend=backend)
    monkeypatch.setattr(session_mod, "LOW_LEVEL", True)
    low = [_summary(slots_pass.plan(fn)) for fn in fns]
    monkeypatch.setattr(session_mod, "LOW_LEVEL", False)
    high = [_summary(slots_pass.plan(fn)) for fn in fns]
    assert low == high
    assert any(d[2].value == "slotted" for rows in low for d in rows[:-1])


def test_the_command_path_is_available_on_this_egglog() -> None:
    with session_mod.session(SLOTS_PASS) as s:
        assert s.low, "egglog's internals changed: every e-graph runs on the slow public path"


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
    real = session_mod.Program

    class Counting(real):  # type: ignore[misc, valid-type]
        def __init__(self, spec: ProgramSpec, low: bool) -> None:
            built.append(low)
            super().__init__(spec, low)

    monkeypatch.setattr(session_mod, "_POOLS", type(session_mod._POOLS)())
    monkeypatch.setattr(session_mod, "Program", Counting)
    fn = function(program(sl_body("pipeline(0, 4, 1, stage=2")))
    for _ in range(5):
        LowerPipelineToSlots().plan(fn)
    assert built == [session_mod.LOW_LEVEL]


def test_a_failure_inside_a_function_leaves_the_template_clean(monkeypatch: pytest.MonkeyPatch) -> None:
    fn = function(program(sl_body("pipeline(0, 4, 1, stage=2")))
    expected = _summary(LowerPipelineToSlots().plan(fn))
    real = session_mod.Session.run

    def boom(self: session_mod.Session, schedule: object, *args: object, **kw: object) -> object:
        if getattr(schedule, "name", "") == "SLOTS_FORMS":
            raise RuntimeError("boom")
        return real(self, schedule, *args, **kw)  # type: ignore[arg-type]

    with monkeypatch.context() as m:
        m.setattr(session_mod.Session, "run", boom)
        with pytest.raises(RuntimeError, match="boom"):
            LowerPipelineToSlots().plan(fn)
    assert _summary(LowerPipelineToSlots().plan(fn)) == expected


@pytest.mark.parametrize("schedule", ["SLOTS_GATES", "SLOTS_FORMS"])
def test_a_round_limit_declines_every_pipeline_loop_and_names_the_limit(
    schedule: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(f"SLOTSAT_CAP_{schedule}", "1")
    plan = LowerPipelineToSlots().plan(function(program(sl_body("pipeline(0, 4, 1, stage=2"))))
    (d,) = plan.loops
    assert d.decision.value == "declined"
    assert d.decline is not None
    assert d.decline.code == EGRAPH_LIMIT
    assert f"{schedule}: round limit of 1 (SLOTSAT_CAP_{schedule}" in d.decline.message
    assert plan.result is plan.function


def test_a_round_limit_compiles_by_replication_not_an_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    src = program(sl_body("pipeline(0, 4, 1, stage=2"), incore=True)
    monkeypatch.setenv("SLOTSAT_CAP_SLOTS_GATES", "1")
    result = compile_source(src, "k.py", CompileOptions())
    assert "pto.multi_tile_get" not in result.pto_text
    assert result.pto_text.count("pto.tload") == 2  # the loop body, replicated for stage=2
