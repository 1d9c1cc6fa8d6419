"""Rule coverage (`60-egraph-engine.md` §12): over the corpus every named rule fires at least
once; plus the pinned iteration counts of the schedules and the export adapter."""

from __future__ import annotations

from collections import Counter

from slotsat.core import ir
from slotsat.core.options import Mode
from slotsat.egraph_rules.calls import Call
from slotsat.egraph_rules.engine import EmittedScope, IndexEngine
from slotsat.egraph_rules.lang import dtype_ref
from slotsat.egraph_rules.loops import LoopInfo, loop_facts
from slotsat.egraph_rules.schedules import (
    CODEGEN_SLOTS,
    INDEX_ENGINE,
    SLOTS_FORMS,
    SLOTS_PASS,
    registered_rules,
)
from slotsat.egraph_rules.session import Limits, session
from slotsat.egraph_rules.view import EGraphView
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
        (  # a runtime stop: sums that may wrap (pow2_mod_*), a quotient that may be negative
            (C(0), n, 1),
            [
                (fmod(add(i, i), C(2)), 2),
                (fmod(add(i, C(-1)), C(4)), 4),
                (fmod(sub(i, C(1)), C(4)), 4),
                (fmod(fdiv(sub(i, C(1)), C(4)), C(2)), 2),
            ],
        ),
        (
            (C(0), C(24), 4),
            [(fmod(fdiv(sub(i, C(1)), C(4)), C(2)), 2), (fmod(fdiv(add(i, C(-5)), C(4)), C(2)), 2)],
        ),
        ((n, C(64), 1), [(fmod(add(i, C(1)), C(2)), 2)]),
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
    for mode in Mode:
        for (start, stop, step), roots in cases:
            engine = IndexEngine(mode)
            engine.add_loop(LoopInfo(i, start, stop, C(step)))
            ids = [engine.add_root(e, slots=s) for e, s in roots]
            fired.update(engine.saturate().report.matches)
            scope = EmittedScope()
            for r in ids:
                engine.choose(r, scope)
    return fired


def _direct_corpus() -> Counter[str]:
    """Terms the engine never inserts as such (folding runs before insertion; `ir_forms` is
    the slots pass's schedule)."""
    fired: Counter[str] = Counter()
    facts = loop_facts(1, LoopInfo(var("i"), C(4), C(20), C(2)))

    def k(v: int) -> Call:
        return Call("const", (v, dtype_ref(ir.DType.INDEX)))

    def op(kind: str, a: Call, b: Call) -> Call:
        return Call(kind, (a, b))

    def cast(a: Call, d: ir.DType) -> Call:
        return Call("cast", (a, dtype_ref(d)))

    iv = Call("iv", (Call("Loop", (1,)),))
    terms = [
        op("add", k(3), k(4)),
        op("sub", k(3), k(4)),
        op("mul", k(3), k(4)),
        op("floordiv", k(7), k(2)),
        op("floormod", k(7), k(2)),
        op("floormod", op("floordiv", op("floordiv", op("sub", iv, k(4)), k(2)), k(1)), k(2)),
        op("floormod", op("sub", iv, k(0)), k(2)),
        op("floormod", cast(cast(iv, ir.DType.INT32), ir.DType.INDEX), k(2)),
        op("floormod", op("sub", op("sub", iv, k(4)), k(2)), k(2)),
    ]
    for spec, schedule in ((INDEX_ENGINE, CODEGEN_SLOTS), (SLOTS_PASS, SLOTS_FORMS)):
        with session(spec) as s:
            s.insert([*facts, *terms])
            fired.update(s.run(schedule, Limits()).matches)
    return fired


def test_every_rule_fires_on_the_corpus() -> None:
    fired = _engine_corpus() + _direct_corpus()
    never = sorted(name for name in registered_rules() if fired[name] == 0)
    assert not never, f"rules that never fired: {never}"


def test_iteration_counts_are_pinned() -> None:
    i = var("i")
    engine = IndexEngine()
    engine.add_loop(LoopInfo(i, C(8), C(40), C(4)))
    engine.add_root(fmod(fdiv(sub(i, C(8)), C(4)), C(4)), slots=4)
    engine.add_root(fmod(fdiv(sub(add(i, C(4)), C(8)), C(4)), C(4)), slots=4)
    report = engine.saturate().report
    assert report.iterations == 6  # floordiv_unshift_add unions (i - 8) // 4 + 1 with (i - 4) // 4
    assert report.limit_hit is None
    engine = IndexEngine()
    engine.add_loop(LoopInfo(i, C(0), C(4), C(1)))
    engine.add_root(fmod(i, C(2)), slots=2)
    assert engine.saturate().report.iterations == 2


def test_a_hit_limit_is_reported_and_the_form_stays_correct() -> None:
    i = var("i")
    engine = IndexEngine(limits=Limits(rounds=1))
    engine.add_loop(LoopInfo(i, C(8), C(40), C(4)))
    root = engine.add_root(fmod(fdiv(sub(add(i, C(4)), C(8)), C(4)), C(4)), slots=4)
    report = engine.saturate().report
    assert report.limit_hit is not None
    assert report.limit_hit.startswith("CODEGEN_SLOTS: round limit of 1")
    chosen = engine.choose(root, EmittedScope())
    from slotsat.core.semantics import eval_expr
    from slotsat.egraph_rules.costs import evaluate_term

    for v in range(8, 40, 4):
        assert evaluate_term(chosen.term, {i.id: v}) == eval_expr(engine.roots[root].expr, {i.id: v})


def test_export_adapter_reads_classes_and_facts() -> None:
    iv = Call("iv", (Call("Loop", (7,)),))
    with session(INDEX_ENGINE) as s:
        s.insert(
            [
                *loop_facts(7, LoopInfo(var("i"), C(0), C(10), C(1))),
                Call("floormod", (iv, Call("const", (4, dtype_ref(ir.DType.INDEX))))),
            ]
        )
        s.run(CODEGEN_SLOTS, Limits())
        view = EGraphView(s.export())
    iv_cls = view.find(("iv", (7,), ()))
    assert iv_cls is not None
    assert view.interval(iv_cls) == (0, 9)
    assert view.proof(iv_cls) == "syntactic"
    kinds = {n.kind for nodes in view.classes.values() for n in nodes}
    assert {"iv", "const", "floormod", "remu"} <= kinds
