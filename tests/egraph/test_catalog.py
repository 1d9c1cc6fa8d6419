"""Scenario catalogs I (floor-mod / floor-div lowering) and K (beyond the reference) of
`30-pto-codegen.md` §9, and slotsat's use of the matcher (`40-ptoas-slot-matcher.md` §10),
through the public engine API in both modes."""

from __future__ import annotations

import pytest

from slotsat.core import ir
from slotsat.core.errors import PassError
from slotsat.core.options import Mode
from slotsat.core.semantics import eval_expr
from slotsat.egraph_rules.costs import describe, evaluate_term
from slotsat.egraph_rules.engine import EmittedScope, IndexEngine
from slotsat.egraph_rules.loops import LoopInfo
from slotsat.lowering.floor_lowering import SimpleNamer, render
from tests.egraph.helpers import C, add, fdiv, fmod, mul, sub, var

INT64_MAX = (1 << 63) - 1
CORRECTION = ["arith.remsi", "arith.cmpi slt", "arith.addi", "arith.select"]


def lower(
    expr: ir.Expr,
    mode: Mode = Mode.SLOTSAT,
    *,
    slots: int | None = None,
    loops: tuple[tuple[ir.Var, ir.Expr, ir.Expr, ir.Expr], ...] = (),
) -> tuple[list[str], object]:
    engine = IndexEngine(mode)
    for v, start, stop, step in loops:
        engine.add_loop(LoopInfo(v, start, stop, step))
    root = engine.add_root(expr, slots=slots)
    chosen = engine.choose(root, EmittedScope())
    lines, _ = render(chosen.term, SimpleNamer())
    ops = []
    for line in lines:
        op = line.split(" = ", 1)[1].split(" ")[0]
        if op in ("arith.cmpi", "arith.cmpf"):
            op += " " + line.split(" = ", 1)[1].split(" ")[1].rstrip(",")
        ops.append(op)
    return ops, chosen


def loop(
    name: str, start: int | ir.Expr, stop: int | ir.Expr, step: int = 1
) -> tuple[ir.Var, ir.Expr, ir.Expr, ir.Expr]:
    s = C(start) if isinstance(start, int) else start
    t = C(stop) if isinstance(stop, int) else stop
    return (var(name), s, t, C(step))


def test_bare_slot_remainder() -> None:
    lp = loop("i", 0, 4)
    assert lower(fmod(lp[0], C(2)), slots=2, loops=(lp,))[0] == ["arith.remui"]
    assert lower(fmod(lp[0], C(2)), Mode.PYPTO, slots=2, loops=(lp,))[0] == ["arith.remsi"]


def test_negative_dividend() -> None:
    x = var("x")
    ops, chosen = lower(fmod(x, C(24)))
    assert ops == CORRECTION
    assert evaluate_term(chosen.term, {x.id: -97}) == 23  # type: ignore[attr-defined]


def test_negative_constant_divisor() -> None:
    x = var("x")
    ops, chosen = lower(fmod(x, C(-3)))
    assert ops == ["arith.remsi", "arith.cmpi sgt", "arith.addi", "arith.select"]
    assert evaluate_term(chosen.term, {x.id: 7}) == -2  # type: ignore[attr-defined]


def test_runtime_divisor() -> None:
    x, y = var("x"), var("y")
    ops, chosen = lower(fmod(x, y))
    assert ops == [
        "arith.remsi",
        "arith.cmpi ne",
        "arith.cmpi slt",
        "arith.cmpi slt",
        "arith.xori",
        "arith.andi",
        "arith.addi",
        "arith.select",
    ]
    assert evaluate_term(chosen.term, {x.id: -7, y.id: 2}) == 1  # type: ignore[attr-defined]
    assert evaluate_term(chosen.term, {x.id: 7, y.id: -2}) == -1  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("mode", "expected"),
    [(Mode.SLOTSAT, ["arith.subi", "arith.remui"]), (Mode.PYPTO, ["arith.subi", "arith.remsi"])],
)
def test_counter_form(mode: Mode, expected: list[str]) -> None:
    lp = loop("i", 1, 5)
    assert lower(fmod(sub(lp[0], C(1)), C(2)), mode, slots=2, loops=(lp,))[0] == expected


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        (Mode.SLOTSAT, ["arith.subi", "arith.divui", "arith.remui"]),
        (Mode.PYPTO, ["arith.subi", "arith.divsi", "arith.remsi"]),
    ],
)
def test_stepped_counter(mode: Mode, expected: list[str]) -> None:
    lp = loop("i", 8, 40, 4)
    assert lower(fmod(fdiv(sub(lp[0], C(8)), C(4)), C(4)), mode, slots=4, loops=(lp,))[0] == expected


def test_sum_not_syntactic_as_a_scalar() -> None:
    """The reference lowers a plain expression as written; the default mode extracts it too
    (`05-decisions.md` item 15, superseding `30-pto-codegen.md` §7.4 there)."""
    lp = loop("i", 0, 4)
    e = fmod(add(lp[0], C(1)), C(2))
    assert lower(e, Mode.PYPTO, loops=(lp,))[0] == ["arith.addi", *CORRECTION]
    ops, chosen = lower(e, loops=(lp,))
    assert ops == ["arith.addi", "arith.remui"]
    assert chosen.nonneg == "interval"  # type: ignore[attr-defined]


def test_sum_slot_interval() -> None:
    lp = loop("i", 0, 4)
    e = fmod(add(lp[0], C(1)), C(2))
    assert lower(e, slots=2, loops=(lp,))[0] == ["arith.addi", "arith.remui"]
    assert lower(e, Mode.PYPTO, slots=2, loops=(lp,))[0] == ["arith.addi", *CORRECTION]


def test_product_never_and_small_range() -> None:
    big = C(4611686018427387904)
    lp64 = loop("i", 0, 64)
    assert lower(fmod(mul(lp64[0], big), C(3)), slots=3, loops=(lp64,))[0] == ["arith.muli", *CORRECTION]
    lp2 = loop("i", 0, 2)
    assert lower(fmod(mul(lp2[0], big), C(3)), slots=3, loops=(lp2,))[0] == ["arith.muli", "arith.remui"]
    assert lower(fmod(mul(lp2[0], big), C(3)), Mode.PYPTO, slots=3, loops=(lp2,))[0] == [
        "arith.muli",
        *CORRECTION,
    ]
    lp4 = loop("i", 0, 4)
    assert lower(fmod(mul(lp4[0], big), C(2)), slots=2, loops=(lp4,))[0] == ["arith.muli", *CORRECTION]


def test_width_rule() -> None:
    lp = loop("i", 2147483648, 2147483700)
    e = fmod(ir.Cast(lp[0], ir.DType.INT32), C(2, ir.DType.INT32))
    for mode in Mode:
        ops, _ = lower(e, mode, slots=2, loops=(lp,))
        assert ops == ["arith.index_cast", *CORRECTION, "arith.index_cast"]


def test_width_nested() -> None:
    lp = loop("i", 0, 64)
    inner = fdiv(ir.Cast(lp[0], ir.DType.INT32), C(4, ir.DType.INT32))
    e = fmod(ir.Cast(inner, ir.DType.INDEX), C(2))
    assert lower(e, slots=2, loops=(lp,))[0] == ["arith.divui", "arith.remui"]
    assert lower(e, loops=(lp,))[0] == ["arith.divui", "arith.remui"]  # item 15: extracted too
    assert lower(e, Mode.PYPTO, loops=(lp,))[0] == [
        "arith.index_cast",
        "arith.floordivsi",
        "arith.index_cast",
        *CORRECTION,
    ]


def test_runtime_start_var() -> None:
    n, m = var("n"), var("m")
    lp = (var("i"), n, m, C(1))
    assert lower(fmod(lp[0], C(2)), slots=2, loops=(lp,))[0] == CORRECTION


def test_floordiv_forms() -> None:
    x, y = var("x"), var("y")
    assert lower(fdiv(x, y))[0] == ["arith.floordivsi"]
    lp = loop("i", 0, 256)
    assert lower(fdiv(lp[0], C(64)), Mode.PYPTO, loops=(lp,))[0] == ["arith.divsi"]
    assert lower(fdiv(lp[0], C(64)), loops=(lp,))[0] == ["arith.divui"]
    for mode in Mode:
        assert lower(fdiv(lp[0], C(-4)), mode, loops=(lp,))[0] == ["arith.floordivsi"]


def test_float_and_unsigned_ops() -> None:
    f, g = var("f", ir.DType.FP32), var("g", ir.DType.FP32)
    assert lower(ir.FloorMod(f, g, ir.DType.FP32))[0] == ["arith.remf"]
    assert lower(ir.FloorDiv(f, g, ir.DType.FP32))[0] == ["arith.divf"]
    u, v = var("u", ir.DType.UINT32), var("v", ir.DType.UINT32)
    assert lower(ir.FloorMod(u, v, ir.DType.UINT32))[0] == ["arith.remui"]
    assert lower(ir.FloorDiv(u, v, ir.DType.UINT32))[0] == ["arith.divui"]
    assert lower(ir.FloorMod(u, v, ir.DType.UINT32), Mode.PYPTO)[0] == ["arith.remsi"]
    assert lower(ir.FloorDiv(u, v, ir.DType.UINT32), Mode.PYPTO)[0] == ["arith.divsi"]


def test_folding() -> None:
    x = var("x")
    engine = IndexEngine()
    assert engine.add_root(fdiv(C(-7), C(2))) == 0
    assert engine.roots[0].expr == C(-4)
    engine.add_root(fmod(C(-7), C(2)))
    assert engine.roots[1].expr == C(1)
    engine.add_root(fmod(x, C(1)))
    assert engine.roots[2].expr == C(0)
    engine.add_root(fdiv(x, C(1)))
    assert engine.roots[3].expr is x
    engine.add_root(fmod(C(0), x))
    assert isinstance(engine.roots[4].expr, ir.FloorMod)


def test_fold_errors() -> None:
    with pytest.raises(PassError, match=r"^Floor division by zero$"):
        IndexEngine().add_root(fdiv(C(7), C(0)))
    with pytest.raises(PassError, match=r"^Floor modulo by zero$"):
        IndexEngine().add_root(fmod(var("x"), C(0)))
    with pytest.raises(PassError, match=r"^Floor division overflow: INT64_MIN // -1$"):
        IndexEngine().add_root(fdiv(C(-(1 << 63), ir.DType.INT64), C(-1, ir.DType.INT64)))


def test_out_of_range_literal_is_not_folded() -> None:
    e = ir.FloorMod(C(2147483648, ir.DType.INT32), C(3, ir.DType.INT32), ir.DType.INT32)
    engine = IndexEngine()
    root = engine.add_root(e)
    lines, _ = render(engine.choose(root, EmittedScope()).term, namer := SimpleNamer())
    assert "%cn2147483648_i32" in lines[0]
    assert len(lines) == 4
    assert namer.constants[(-2147483648, "i32")] == "%cn2147483648_i32"


# -- catalog K -------------------------------------------------------------------------------


def test_remui_only_when_proven() -> None:
    k = var("k")
    ops, chosen = lower(fmod(k, C(2)), slots=2)
    assert ops == CORRECTION
    assert chosen.matcher_class == "opaque"
    assert not chosen.accepted


def test_interval_sum() -> None:
    lp = loop("i", 0, 64)
    ops, chosen = lower(fmod(add(lp[0], C(3)), C(4)), slots=4, loops=(lp,))
    assert ops == ["arith.addi", "arith.remui"]
    assert chosen.nonneg == "interval"
    assert chosen.matcher_class == "peelable"


def test_interval_refuses_wrap_boundary() -> None:
    lp = loop("i", 0, INT64_MAX)
    assert lower(fmod(add(lp[0], C(1)), C(2)), slots=2, loops=(lp,))[0] == ["arith.addi", "arith.remui"]
    runtime = (var("i"), C(0), var("n"), C(1))
    assert lower(fmod(add(runtime[0], C(1)), C(2)), slots=2, loops=(runtime,))[0] == [
        "arith.addi",
        "arith.remui",
    ]
    # i + 2 may wrap (i reaches INT64_MAX - 1): the interval analysis proves nothing of it, so a
    # remainder by 3 keeps its correction ...
    engine = IndexEngine()
    engine.add_loop(LoopInfo(*runtime))
    wrapping = engine.add_root(add(runtime[0], C(2)))
    assert engine.proven(wrapping) is None
    assert lower(fmod(add(runtime[0], C(2)), C(3)), slots=3, loops=(runtime,))[0] == [
        "arith.addi",
        *CORRECTION,
    ]
    # ... while a remainder by a power of two does not depend on the wrap (pow2_mod_add:
    # (i + 2) % 2 == ((i % 2) + 0) % 2 == i % 2 modulo 2**64), so it takes i's own proof
    ops, chosen = lower(fmod(add(runtime[0], C(2)), C(2)), slots=2, loops=(runtime,))
    assert ops == ["arith.remui"]
    i = runtime[0]
    for v in (0, 1, INT64_MAX - 2, INT64_MAX - 1):
        expected = eval_expr(fmod(add(i, C(2)), C(2)), {i.id: v})
        assert evaluate_term(chosen.term, {i.id: v}) == expected  # type: ignore[attr-defined]


def test_accept_bare() -> None:
    lp = loop("i", 0, 2)
    ops, chosen = lower(fmod(lp[0], C(2)), slots=2, loops=(lp,))
    assert ops == []
    assert chosen.term is lp[0]
    assert chosen.matcher_class == "bare"


def test_reject_modulus_mismatch_and_interval() -> None:
    lp = loop("i", 0, 64)
    engine = IndexEngine()
    engine.add_loop(LoopInfo(*lp))
    root = engine.add_root(fmod(lp[0], C(4)), slots=2)
    chosen = engine.choose(root, EmittedScope())
    assert chosen.matcher_class == "mismatched"
    assert not chosen.accepted
    assert engine.slot_interval(root) == (0, 3)


def test_cse_two_gets_share_one_remui() -> None:
    lp = loop("i", 0, 4)
    engine = IndexEngine()
    engine.add_loop(LoopInfo(*lp))
    a = engine.add_root(fmod(lp[0], C(2)), slots=2)
    b = engine.add_root(fmod(lp[0], C(2)), slots=2)
    scope = EmittedScope()
    first, second = engine.choose(a, scope), engine.choose(b, scope)
    assert first.cost == 1
    assert second.cost == 0
    assert second.term is first.term
    assert second.reused
    namer = SimpleNamer()
    assert len(render(first.term, namer)[0]) == 1
    assert render(second.term, namer)[0] == []


def test_cse_is_scoped() -> None:
    lp = loop("i", 0, 4)
    engine = IndexEngine()
    engine.add_loop(LoopInfo(*lp))
    a = engine.add_root(fmod(lp[0], C(2)), slots=2)
    b = engine.add_root(fmod(lp[0], C(2)), slots=2)
    scope = EmittedScope()
    scope.push()
    engine.choose(a, scope)
    scope.pop()
    assert engine.choose(b, scope).cost == 1


def test_pypto_slots_are_not_shared() -> None:
    lp = loop("i", 0, 4)
    engine = IndexEngine(Mode.PYPTO)
    engine.add_loop(LoopInfo(*lp))
    a = engine.add_root(fmod(lp[0], C(2)), slots=2)
    b = engine.add_root(fmod(lp[0], C(2)), slots=2)
    scope = EmittedScope()
    assert engine.choose(a, scope).cost == 1
    assert engine.choose(b, scope).cost == 1


def test_next_iteration_stepped_shares_the_symbol() -> None:
    i = var("i")
    engine = IndexEngine()
    engine.add_loop(LoopInfo(i, C(8), C(40), C(4)))
    cur = engine.add_root(fmod(fdiv(sub(i, C(8)), C(4)), C(4)), slots=4)
    nxt = engine.add_root(fmod(fdiv(sub(add(i, C(4)), C(8)), C(4)), C(4)), slots=4)
    scope = EmittedScope()
    a, b = engine.choose(cur, scope), engine.choose(nxt, scope)
    assert a.cost == 3
    assert b.cost == 2
    from slotsat.analysis.matcher import Relation, ValueGraph, compare
    from slotsat.egraph_rules.costs import to_value

    graph, memo = ValueGraph(), {}
    assert compare(to_value(a.term, graph, memo), to_value(b.term, graph, memo), 4) is Relation.DISJOINT


def test_next_iteration_unit_step_is_disjoint() -> None:
    from slotsat.analysis.matcher import Relation, ValueGraph, compare
    from slotsat.egraph_rules.costs import to_value

    i = var("i")
    for mode, expected in ((Mode.SLOTSAT, Relation.DISJOINT), (Mode.PYPTO, Relation.UNKNOWN)):
        engine = IndexEngine(mode)
        engine.add_loop(LoopInfo(i, C(0), C(4), C(1)))
        cur = engine.add_root(fmod(i, C(2)), slots=2)
        nxt = engine.add_root(fmod(add(i, C(1)), C(2)), slots=2)
        scope = EmittedScope()
        a, b = engine.choose(cur, scope), engine.choose(nxt, scope)
        graph, memo = ValueGraph(), {}
        assert compare(to_value(a.term, graph, memo), to_value(b.term, graph, memo), 2) is expected


def test_int32_runtime_index() -> None:
    k = var("k", ir.DType.INT32)
    ops, chosen = lower(fmod(k, C(4, ir.DType.INT32)), slots=4)
    assert ops == [*CORRECTION, "arith.index_cast"]
    assert chosen.matcher_class == "opaque"  # type: ignore[attr-defined]


def test_emitted_lines_are_exact() -> None:
    x = var("x")
    engine = IndexEngine()
    root = engine.add_root(fmod(x, C(24)))
    lines, result = render(engine.choose(root, EmittedScope()).term, SimpleNamer())
    assert lines == [
        "%0 = arith.remsi %x, %c24_index : index",
        "%1 = arith.cmpi slt, %0, %c0_index : index",
        "%2 = arith.addi %0, %c24_index : index",
        "%3 = arith.select %1, %2, %0 : index",
    ]
    assert result == "%3"


def test_a_root_added_after_a_choice_never_reuses_a_stale_eclass() -> None:
    # issue 13.3: choosing ((i + 7) - 2) % 3 emits remui(i + 2, 3); adding (i + 5) % 4 later
    # re-saturates into a new e-graph whose class ids mean other values. Keyed by the engine
    # alone, the old (i + 2) was taken for a class of the new graph (remui((i + 2), 4), wrong
    # at every i); keyed by generation, the late root is chosen against its own graph.
    i = var("i")
    engine = IndexEngine()
    engine.add_loop(LoopInfo(i, C(0), C(64), C(1)))
    scope = EmittedScope()
    first_expr = fmod(sub(add(i, C(7)), C(2)), C(3))
    first = engine.choose(engine.add_root(first_expr, slots=3), scope)
    before = engine.saturate()
    late_expr = fmod(add(i, C(5)), C(4))
    late = engine.choose(engine.add_root(late_expr, slots=4), scope)
    assert engine.saturate() is not before
    assert before.classes == (before.classes[0],)  # the first graph is untouched by the late root
    for v in range(64):
        assert evaluate_term(first.term, {i.id: v}) == eval_expr(first_expr, {i.id: v})
        assert evaluate_term(late.term, {i.id: v}) == eval_expr(late_expr, {i.id: v}), v
    assert late.reused == ()
    assert describe(late.term) == "remui((i + 5), 4)"
