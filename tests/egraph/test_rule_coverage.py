"""Rule coverage (`60-egraph-engine.md` §12): over the corpus every named rule fires at least
once; plus the pinned iteration counts of the schedules and the export adapter."""

from __future__ import annotations

from collections import Counter

from egglog import EGraph, i64, set_

from slotsat.core import ir
from slotsat.core.options import Mode
from slotsat.egraph_rules.engine import EmittedScope, IndexEngine, LoopInfo
from slotsat.egraph_rules.extract import EGraphView, export
from slotsat.egraph_rules.lang import RULES, Dtype, Idx, Loop, dtype_facts, loop_start, loop_step, loop_stop
from slotsat.egraph_rules.schedules import CODEGEN_SLOTS, SLOTS_FORMS, run_bounded
from tests.egraph.helpers import C, add, fdiv, fmod, mul, sub, var

INT64_MAX = (1 << 63) - 1


def _engine_corpus() -> Counter[str]:
    fired: Counter[str] = Counter()
    i, n, x = var("i"), var("n"), var("x")
    cases: list[tuple[tuple[ir.Expr, ir.Expr, int], list[tuple[ir.Expr, int | None]]]] = [
        (
            (C(8), C(40), 4),
            [
                (fmod(fdiv(sub(i, C(8)), C(4)), C(4)), 4),
                (fmod(fdiv(sub(add(i, C(4)), C(8)), C(4)), C(4)), 4),
                (fmod(fdiv(sub(sub(i, C(4)), C(8)), C(4)), C(4)), 4),
            ],
        ),
        (
            (C(1), C(5), 1),
            [
                (fmod(sub(i, C(1)), C(2)), 2),
                (fmod(sub(add(i, C(1)), C(1)), C(2)), 2),
                (fmod(add(i, C(-3)), C(2)), 2),
                (fmod(sub(i, C(-3)), C(4)), 4),
            ],
        ),
        (
            (C(0), C(64), 1),
            [
                (fmod(add(i, C(3)), C(4)), 4),
                (fmod(add(i, C(5)), C(4)), 4),
                (fmod(mul(i, C(1)), C(2)), 2),
                (fmod(add(add(i, C(1)), C(2)), C(4)), 4),
                (fmod(sub(i, C(4)), C(2)), 2),
                (
                    fmod(
                        ir.Cast(fdiv(ir.Cast(i, ir.DType.INT32), C(4, ir.DType.INT32)), ir.DType.INDEX), C(2)
                    ),
                    2,
                ),
                (
                    fmod(
                        ir.Cast(fmod(ir.Cast(i, ir.DType.INT32), C(4, ir.DType.INT32)), ir.DType.INDEX), C(2)
                    ),
                    2,
                ),
                (fmod(fdiv(add(i, C(8)), C(4)), C(2)), 2),
                (fmod(add(x, mul(i, C(2))), C(2)), 2),
            ],
        ),
        ((C(0), n, 1), [(fmod(add(i, C(1)), C(2)), 2)]),
        ((C(0), C(2), 1), [(fmod(i, C(2)), 2)]),
        (
            (C(0), C(64), 1),
            [
                (fmod(sub(sub(i, C(1)), C(2)), C(4)), 4),
                (fmod(sub(i, C(2)), C(4)), 4),
                (fmod(sub(i, C(1)), C(4)), 4),
            ],
        ),
    ]
    for (start, stop, step), roots in cases:
        engine = IndexEngine(Mode.SLOTSAT)
        engine.add_loop(LoopInfo(i, start, stop, C(step)))
        ids = [engine.add_root(e, slots=s) for e, s in roots]
        fired.update(engine.saturate().matches)
        scope = EmittedScope()
        for r in ids:
            engine.choose(r, scope)
    return fired


def _direct_corpus() -> Counter[str]:
    """Terms the engine never inserts as such (folding runs before insertion; `ir_forms` is
    the slots pass's schedule)."""
    fired: Counter[str] = Counter()
    lp = Loop("L1")
    facts = [set_(loop_start(lp)).to(i64(4)), set_(loop_stop(lp)).to(i64(20)), set_(loop_step(lp)).to(i64(2))]
    def k(v: int) -> Idx:
        return Idx.const(v, Dtype.INDEX)

    iv = Idx.iv(lp)
    terms = [
        k(3) + k(4),
        k(3) - k(4),
        k(3) * k(4),
        k(7) // k(2),
        k(7) % k(2),
        ((iv - k(4)) // k(2)) // k(1) % k(2),
        (iv - k(0)) % k(2),
        Idx.cast(Idx.cast(iv, Dtype.INT32), Dtype.INDEX) % k(2),
        ((iv - k(4)) - k(2)) % k(2),
    ]
    for schedule in (CODEGEN_SLOTS, SLOTS_FORMS):
        eg = EGraph()
        eg.register(*dtype_facts(), *facts)
        eg.register(*terms)
        fired.update(run_bounded(eg, schedule).matches)
    return fired


def test_every_rule_fires_on_the_corpus() -> None:
    fired = _engine_corpus() + _direct_corpus()
    never = sorted(name for name in RULES if fired[name] == 0)
    assert not never, f"rules that never fired: {never}"


def test_iteration_counts_are_pinned() -> None:
    i = var("i")
    engine = IndexEngine()
    engine.add_loop(LoopInfo(i, C(8), C(40), C(4)))
    engine.add_root(fmod(fdiv(sub(i, C(8)), C(4)), C(4)), slots=4)
    engine.add_root(fmod(fdiv(sub(add(i, C(4)), C(8)), C(4)), C(4)), slots=4)
    report = engine.saturate()
    assert report.iterations == 5
    assert report.limit_hit is None
    engine = IndexEngine()
    engine.add_loop(LoopInfo(i, C(0), C(4), C(1)))
    engine.add_root(fmod(i, C(2)), slots=2)
    assert engine.saturate().iterations == 2


def test_a_hit_limit_is_reported_and_the_form_stays_correct() -> None:
    from slotsat.egraph_rules.limits import Limits

    i = var("i")
    engine = IndexEngine(limits=Limits(iterations=1))
    engine.add_loop(LoopInfo(i, C(8), C(40), C(4)))
    root = engine.add_root(fmod(fdiv(sub(add(i, C(4)), C(8)), C(4)), C(4)), slots=4)
    report = engine.saturate()
    assert report.limit_hit is not None
    assert "iteration cap" in report.limit_hit
    chosen = engine.choose(root, EmittedScope())
    from slotsat.core.semantics import eval_expr
    from slotsat.egraph_rules.costs import evaluate_term

    for v in range(8, 40, 4):
        assert evaluate_term(chosen.term, {i.id: v}) == eval_expr(engine.roots[root].expr, {i.id: v})


def test_export_adapter_reads_classes_and_facts() -> None:
    eg = EGraph()
    lp = Loop("L7")
    eg.register(
        *dtype_facts(),
        set_(loop_start(lp)).to(i64(0)),
        set_(loop_step(lp)).to(i64(1)),
        set_(loop_stop(lp)).to(i64(10)),
    )
    eg.register(Idx.iv(lp) % Idx.const(4, Dtype.INDEX))
    run_bounded(eg, CODEGEN_SLOTS)
    view = EGraphView(export(eg))
    iv_cls = view.find(("iv", ("L7",), ()))
    assert iv_cls is not None
    assert view.interval(iv_cls) == (0, 9)
    assert view.proof(iv_cls) == "syntactic"
    kinds = {n.kind for nodes in view.classes.values() for n in nodes}
    assert {"iv", "const", "floormod", "remu"} <= kinds
