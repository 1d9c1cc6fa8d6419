"""The egglog session layer (`slotsat.egraph_rules.session`): both paths to egglog (command
objects, public API) give the index engine identical e-graphs and choices; the bounded
runner names the limit it hit; calls round-trip through insertion, tables and extraction."""

from __future__ import annotations

import pytest

from slotsat.core import ir
from slotsat.core.options import Mode
from slotsat.egraph_rules import session as session_mod
from slotsat.egraph_rules.calls import Call, Set
from slotsat.egraph_rules.costs import describe
from slotsat.egraph_rules.engine import EmittedScope, IndexEngine
from slotsat.egraph_rules.lang import dtype_ref
from slotsat.egraph_rules.loops import LoopInfo
from slotsat.egraph_rules.schedules import CODEGEN_SLOTS, INDEX_ENGINE, SLOTS_FORMS, SLOTS_PASS
from slotsat.egraph_rules.session import Limits, session
from slotsat.egraph_rules.view import EGraphView
from tests.egraph.helpers import C, add, fdiv, fmod, mul, sub, var


def _choices(mode: Mode) -> list[tuple[str, int, str | None, str]]:
    i, x = var("i"), var("x")
    engine = IndexEngine(mode)
    engine.add_loop(LoopInfo(i, C(8), C(40), C(4)))
    roots = [
        engine.add_root(fmod(fdiv(sub(i, C(8)), C(4)), C(4)), slots=4),
        engine.add_root(fmod(fdiv(sub(add(i, C(4)), C(8)), C(4)), C(4)), slots=4),
        engine.add_root(fmod(add(i, C(3)), C(4)), slots=4),
        engine.add_root(fmod(mul(x, C(3)), C(5))),
        engine.add_root(
            ir.Cast(fmod(ir.Cast(i, ir.DType.INT32), C(4, ir.DType.INT32)), ir.DType.INDEX), slots=4
        ),
    ]
    scope = EmittedScope()
    out = []
    for r in roots:
        chosen = engine.choose(r, scope)
        forms = sorted(f.form for f in engine.forms(r))
        out.append((describe(chosen.term), chosen.cost, chosen.nonneg, ",".join(forms)))
    report = engine.saturate().report
    out.append((report.schedule, report.iterations, str(report.nodes), str(sorted(report.matches.items()))))
    return out


@pytest.mark.parametrize("mode", list(Mode))
def test_both_paths_give_the_engine_identical_choices(mode: Mode, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(session_mod, "LOW_LEVEL", True)
    low = _choices(mode)
    monkeypatch.setattr(session_mod, "LOW_LEVEL", False)
    with session(INDEX_ENGINE) as s:
        assert not s.low
    high = _choices(mode)
    assert low == high
    assert low[-1][1] > 1


def _rotation() -> list[Call | Set]:
    lp = Call("Loop", (3,))
    k = dtype_ref(ir.DType.INDEX)
    iv = Call("iv", (lp,))
    term = Call(
        "floormod",
        (
            Call("floordiv", (Call("sub", (iv, Call("const", (0, k)))), Call("const", (1, k)))),
            Call("const", (2, k)),
        ),
    )
    return [
        Set(Call("loop_start", (lp,)), 0),
        Set(Call("loop_step", (lp,)), 1),
        Call("ascending", (lp,)),
        term,
    ]


@pytest.mark.parametrize("low", [True, False])
def test_calls_round_trip_through_tables_and_extraction(low: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(session_mod, "LOW_LEVEL", low)
    actions = _rotation()
    with session(SLOTS_PASS) as s:
        s.insert(actions)
        assert s.table("loop_start") == [((Call("Loop", (3,)),), 0)]
        run = s.run(SLOTS_FORMS, Limits())
        assert run.saturated
        (term,) = s.extract([actions[-1]])  # type: ignore[list-item]
    k = dtype_ref(ir.DType.INDEX)
    assert term == Call("floormod", (Call("iv", (Call("Loop", (3,)),)), Call("const", (2, k))))


@pytest.mark.parametrize(
    ("limits", "reason"),
    [
        (Limits(rounds=1), "CODEGEN_SLOTS: round limit of 1 (SLOTSAT_CAP_CODEGEN_SLOTS"),
        (Limits(rows=1), "CODEGEN_SLOTS: row limit of 1 (SLOTSAT_EGRAPH_NODES"),
        (Limits(seconds=1e-9), "CODEGEN_SLOTS: time limit of 1e-09 s (SLOTSAT_EGRAPH_SECONDS"),
    ],
)
def test_the_runner_names_the_limit_it_hit(limits: Limits, reason: str) -> None:
    with session(INDEX_ENGINE) as s:
        s.insert(_rotation())
        run = s.run(CODEGEN_SLOTS, limits)
    assert run.limit_hit is not None
    assert run.limit_hit.startswith(reason)
    assert not run.saturated
    assert run.rounds >= 1


def test_a_schedule_cap_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLOTSAT_EGRAPH_ITERATIONS", "7")
    monkeypatch.setenv("SLOTSAT_CAP_SLOTS_FORMS", "3")
    limits = Limits.from_env()
    assert limits.rounds_for("SLOTS_FORMS") == 3
    assert limits.rounds_for("CODEGEN_SLOTS") == 7
    monkeypatch.setenv("SLOTSAT_CAP_SLOTS_FORMS", "lots")
    assert limits.rounds_for("SLOTS_FORMS") == 7


def test_a_template_is_rebuilt_once_its_sessions_held_template_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    def one_session() -> int:
        with session(INDEX_ENGINE) as s:
            s.insert(_rotation())
            assert s.run(CODEGEN_SLOTS, Limits()).saturated
            return s.rows_held

    held = one_session()
    assert held > 0
    template = session_mod._pool(INDEX_ENGINE)[-1]  # the one that served it, back in the pool
    monkeypatch.setattr(session_mod, "TEMPLATE_USES", template.uses + 100)
    monkeypatch.setattr(session_mod, "TEMPLATE_ROWS", template.rows + 2 * held - 1)
    assert one_session() == held
    assert session_mod._pool(INDEX_ENGINE)[-1] is template  # kept: below the bound
    assert one_session() == held
    assert all(t is not template for t in session_mod._pool(INDEX_ENGINE))  # at the bound: retired
    assert one_session() == held  # a new template serves the same e-graph


def test_a_session_runs_only_the_schedules_of_its_program() -> None:
    with (
        session(SLOTS_PASS) as s,
        pytest.raises(ValueError, match="CODEGEN_SLOTS is not part of the program SLOTS_PASS"),
    ):
        s.run(CODEGEN_SLOTS, Limits())


def _view_state(view: EGraphView) -> tuple[object, ...]:
    return (view.classes, view.lookup, view.width, view.lo, view.hi, view.syn, view.nonneg,
            view.literal_classes)


def test_the_table_view_equals_the_json_view() -> None:
    """The command path reads the frozen tables (`Session.view`); the JSON export is the
    reference reading: same e-classes under the same ids, same nodes in the same order, same
    facts, on an e-graph with loops, casts, runtime scalars and both proofs."""
    i, x = var("i"), var("x")
    engine = IndexEngine(Mode.SLOTSAT)
    engine.add_loop(LoopInfo(i, C(8), C(40), C(4)))
    for expr, slots in [
        (fmod(fdiv(sub(add(i, C(4)), C(8)), C(4)), C(4)), 4),
        (fmod(mul(x, C(3)), C(5)), None),
        (ir.Cast(fmod(ir.Cast(i, ir.DType.INT32), C(4, ir.DType.INT32)), ir.DType.INDEX), 4),
    ]:
        engine.add_root(expr, slots=slots)
    batch = engine._batch()
    with session(INDEX_ENGINE) as s:
        assert s.low
        s.insert([*batch.facts, *batch.inserted])
        s.run(CODEGEN_SLOTS, Limits())
        tables = EGraphView.from_tables(s._path.tables())  # type: ignore[attr-defined]
        exported = EGraphView.from_json(s.export())
        assert _view_state(s.view()) == _view_state(tables)
    assert _view_state(tables) == _view_state(exported)
    assert list(tables.classes) == list(exported.classes)
    assert tables.syn
    assert tables.nonneg
    assert tables.lo
    assert tables.width
    assert {n.kind for ns in tables.classes.values() for n in ns} >= {"iv", "var", "cast", "remu", "floormod"}


@pytest.mark.parametrize("chunk", [1, 3])
def test_insertion_chunks_do_not_change_the_e_graph(chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Actions go to egglog in chunks of `INSERT_CHUNK` commands (`_Commands.insert`); a
    subterm shared across chunks is the same e-class in each, so chunking changes nothing the
    engine decides."""
    monkeypatch.setattr(session_mod, "BULK", False)
    whole = _choices(Mode.SLOTSAT)
    monkeypatch.setattr(session_mod, "INSERT_CHUNK", chunk)
    assert _choices(Mode.SLOTSAT) == whole
