"""The algebra of issue 12 item 3, rule by rule, positive and guard-negative, through the
public engine API (`slotsat.egraph_rules.normalize`, `slotsat.egraph_rules.extract`):

- the floor-div residue shift: `(x + c) // k -> (x + c mod k) // k + q` and its `x - c` form,
  which gives `((k - 1) // 4) % 2` over `k >= 0` a non-negative, accepted form;
- the matcher filter at every depth: a `remui` whose cheapest operand peels too deep is
  completed with an operand that peels within ptoas's limit;
- common subexpressions shared between offsets and slot operands: one e-graph per function,
  one CSE-aware extraction;
- remainders by a power of two distributed over a sum that may wrap (`pow2_mod_*`: `(i + j) % 2`
  under a runtime stop), checked against the exact evaluator at the iterations where the
  written sum wraps.
"""

from __future__ import annotations

from slotsat.core import ir
from slotsat.core.semantics import eval_expr
from slotsat.egraph_rules.costs import EmitConst, EmitNode, describe, evaluate_term
from slotsat.egraph_rules.engine import EmittedScope, IndexEngine
from slotsat.egraph_rules.loops import LoopInfo
from tests.codegen.harness import compile_, kernel, lines
from tests.egraph.helpers import C, add, fdiv, fmod, mul, sub, var

INT64_MAX = (1 << 63) - 1


def _engine(start: int, stop: int | None, step: int = 1) -> tuple[IndexEngine, ir.Var]:
    """One loop `i`; `stop=None` is a runtime stop (the parameter `n`)."""
    i = var("i")
    engine = IndexEngine()
    engine.add_loop(LoopInfo(i, C(start), var("n") if stop is None else C(stop), C(step)))
    return engine, i


RUNTIME_POINTS = [0, 1, 2, 3, 5, 2**31 - 1, 2**31, 2**62 + 1, INT64_MAX - 4, INT64_MAX - 2, INT64_MAX - 1]
"""Values of an induction variable under a runtime stop (`iv < stop <= INT64_MAX`), with the
ones where a small addend wraps the written sum."""


def _agrees(term: object, e: ir.Expr, envs: list[dict[int, int]]) -> None:
    for env in envs:
        assert evaluate_term(term, env) == eval_expr(e, env), env  # type: ignore[arg-type]


def test_the_residue_shift_gives_a_shifted_quotient_an_accepted_form() -> None:
    """`((k - 1) // 4) % 2` over `k >= 0`: the residue shift gives `((k + 3) // 4 - 1) % 2`, the
    floor-mod shift `((k + 3) // 4 + 1) % 2` (4 ops), and moving the literal back into the
    dividend `((k + 7) // 4) % 2` (3 ops), every one a remainder of a proven value that peels."""
    engine, k = _engine(0, 24, 4)
    e = fmod(fdiv(sub(k, C(1)), C(4)), C(2))
    root = engine.add_root(e, slots=2)
    chosen = engine.choose(root, EmittedScope())
    assert describe(chosen.term) == "remui(divui((i + 7), 4), 2)"
    assert chosen.accepted
    assert chosen.cost == 3
    forms = {f.form: f for f in engine.forms(root)}
    assert forms["remui((divui((i + 3), 4) + 1), 2)"].ops == 4
    assert forms["remui((divui((i + 3), 4) + 1), 2)"].matcher_accepts
    for v in range(0, 24, 4):
        assert evaluate_term(chosen.term, {k.id: v}) == eval_expr(e, {k.id: v})
    matches = engine.saturate().report.matches
    assert matches["floordiv_residue_sub"] >= 1
    assert matches["floordiv_unshift_add"] >= 1


def test_the_unshift_does_not_fire_where_the_dividend_could_wrap() -> None:
    """`(i // 4 + 1) % 2` with `i` up to `INT64_MAX - 1`: `i + 4` may wrap, so the quotient keeps
    its literal outside."""
    engine, i = _engine(0, None)
    root = engine.add_root(fmod(add(fdiv(i, C(4)), C(1)), C(2)), slots=2)
    assert "+ 4" not in describe(engine.choose(root, EmittedScope()).term)
    assert engine.saturate().report.matches.get("floordiv_unshift_add", 0) == 0


def test_the_residue_shift_of_an_added_literal() -> None:
    engine, i = _engine(0, 64)
    e = fdiv(add(i, C(-5)), C(4))  # (i - 5) // 4 == (i + 3) // 4 - 2
    root = engine.add_root(e)
    chosen = engine.choose(root, EmittedScope())
    assert "divui((i + 3), 4)" in describe(chosen.term)
    assert chosen.cost == 3
    for v in range(64):
        assert evaluate_term(chosen.term, {i.id: v}) == eval_expr(e, {i.id: v})
    assert engine.saturate().report.matches["floordiv_residue_add"] >= 1


def test_the_residue_shift_does_not_fire_where_the_shifted_dividend_could_wrap() -> None:
    engine, i = _engine(INT64_MAX - 3, INT64_MAX)
    e = fdiv(sub(i, C(1)), C(4))  # i + 3 would wrap at INT64_MAX - 1
    root = engine.add_root(e)
    chosen = engine.choose(root, EmittedScope())
    assert "i + 3" not in describe(chosen.term)
    assert engine.saturate().report.matches.get("floordiv_residue_sub", 0) == 0


def test_a_remui_operand_that_peels_too_deep_is_replaced_by_one_that_peels() -> None:
    """The operand's class holds a five-layer chain already in scope (free, but ptoas peels
    only four layers) and `i + 5` (one op): extraction takes the one the matcher accepts (the
    root class has no other `remu` node: 5 lies in `[0, 8)`, so no floor-mod shift applies)."""
    engine, i = _engine(0, 64)
    chain: ir.Expr = i
    for _ in range(5):
        chain = add(chain, C(1))
    root = engine.add_root(fmod(chain, C(8)), slots=8)
    graph = engine.saturate()
    assert graph.view is not None
    operand = graph.view.resolve(graph.terms[root].args[0], set())  # type: ignore[union-attr]
    deep: EmitNode | ir.Var = i
    for _ in range(5):
        deep = EmitNode("arith.addi", (deep, EmitConst(1, "index")), "index", None)
    scope = EmittedScope()
    scope.add((graph.generation, operand), deep)
    chosen = engine.choose(root, scope)
    assert chosen.accepted
    assert describe(chosen.term) == "remui((i + 5), 8)"
    assert chosen.matcher_class == "peelable"


def test_an_offset_and_a_slot_operand_share_their_quotient() -> None:
    """`(i - 8) // 4` is emitted once for the offset and reused by the slot operand."""
    engine, i = _engine(8, 40, 4)
    q = fdiv(sub(i, C(8)), C(4))
    offset = engine.add_root(mul(q, C(64)))
    slot = engine.add_root(fmod(q, C(4)), slots=4)
    scope = EmittedScope()
    first = engine.choose(offset, scope)
    second = engine.choose(slot, scope)
    assert describe(first.term) == "(divui((i - 8), 4) * 64)"
    assert describe(second.term) == "remui(divui((i - 8), 4), 4)"
    assert second.cost == 1
    assert second.reused


def test_codegen_shares_a_quotient_between_an_offset_and_the_slot_operand() -> None:
    src = kernel(
        """
for i in pl.range(8, 40, 4):
    q: pl.Scalar[pl.INDEX] = 0
    t: pl.Tile[[64, 64], pl.FP32, SB[(i - 8) // 4 % 4], pl.Mem.Vec] = pl.load(
        a, [(i - 8) // 4 * 64, q], [64, 64]
    )
    _s = pl.store(t, [0, 0], out)
return out
""",
        decls="SB = pl.MemRef(slots=4)",
    )
    text = compile_(src).pto_text
    assert len(lines(text, "arith.divui")) == 1
    assert len(lines(text, "arith.subi")) == 1


def test_a_power_of_two_remainder_distributes_over_a_sum_that_may_wrap() -> None:
    """`(i + j) % 2` with `i` under a runtime stop: `i + j` may wrap, so no interval proves it
    and the written form is a correction chain; the distributed form is proven and peels."""
    engine, i = _engine(0, None)
    j = var("j")
    engine.add_loop(LoopInfo(j, C(0), C(4), C(1)))
    e = fmod(add(i, j), C(2))
    root = engine.add_root(e, slots=2)
    chosen = engine.choose(root, EmittedScope())
    assert describe(chosen.term) == "remui((remui(i, 2) + remui(j, 2)), 2)"
    assert (chosen.accepted, chosen.cost, chosen.nonneg) == (True, 4, "interval")
    _agrees(chosen.term, e, [{i.id: a, j.id: b} for a in RUNTIME_POINTS for b in range(4)])
    assert engine.saturate().report.matches["pow2_mod_add"] >= 1


def test_power_of_two_distribution_only_where_the_sum_may_wrap() -> None:
    """With a literal stop the sum fits, the interval proof holds and the rule stays idle."""
    engine, i = _engine(0, 64)
    j = var("j")
    engine.add_loop(LoopInfo(j, C(0), C(4), C(1)))
    root = engine.add_root(fmod(add(i, j), C(2)), slots=2)
    assert describe(engine.choose(root, EmittedScope()).term) == "remui((i + j), 2)"
    assert engine.saturate().report.matches.get("pow2_mod_add", 0) == 0


def test_no_distribution_by_a_remainder_that_is_not_a_power_of_two() -> None:
    engine, i = _engine(0, None)
    j = var("j")
    engine.add_loop(LoopInfo(j, C(0), C(4), C(1)))
    root = engine.add_root(fmod(add(i, j), C(3)), slots=3)
    chosen = engine.choose(root, EmittedScope())
    assert not chosen.accepted
    assert "remui" not in describe(chosen.term)
    assert engine.saturate().report.matches.get("pow2_mod_add", 0) == 0


def test_no_distribution_over_an_unproven_part() -> None:
    """`(i + x) % 2` with `x` a parameter: `x % 2` would be a correction, so nothing is won
    and the rule does not fire (a remui is never emitted for an unproven dividend)."""
    engine, i = _engine(0, None)
    root = engine.add_root(fmod(add(i, var("x")), C(2)), slots=2)
    chosen = engine.choose(root, EmittedScope())
    assert not chosen.accepted
    assert engine.saturate().report.matches.get("pow2_mod_add", 0) == 0


def test_a_power_of_two_remainder_of_a_shifted_variable_under_a_runtime_stop() -> None:
    """`(i + 3) % 4`, `(i - 1) % 4` and `(i + (-1)) % 4` with `i` under a runtime stop: the
    floor-mod shift cannot move the literal (`i + 3` may wrap); the power-of-two shifts can."""
    for e, form, rule_name in (
        (lambda i: fmod(add(i, C(3)), C(4)), "remui((remui(i, 4) + 3), 4)", "pow2_mod_add"),
        (lambda i: fmod(sub(i, C(1)), C(4)), "remui((remui(i, 4) + 3), 4)", "pow2_mod_shift_sub"),
        (lambda i: fmod(add(i, C(-1)), C(4)), "remui((remui(i, 4) + 3), 4)", "pow2_mod_shift_add"),
    ):
        engine, i = _engine(0, None)
        expr = e(i)
        root = engine.add_root(expr, slots=4)
        chosen = engine.choose(root, EmittedScope())
        assert describe(chosen.term) == form, expr
        assert chosen.accepted
        _agrees(chosen.term, expr, [{i.id: v} for v in RUNTIME_POINTS])
        assert engine.saturate().report.matches[rule_name] >= 1, rule_name
