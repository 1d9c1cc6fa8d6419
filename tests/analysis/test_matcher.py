"""Tests of the ptoas slot matcher model, `analysis/matcher.py` (`40-ptoas-slot-matcher.md`).

Groups:
- the §10 matcher scenarios S1–S22, one test each, named after the row;
- the pure-model rows of §10 "slotsat's use" (acceptance classes, next-iteration pairs, the
  future `remsi` model);
- `slot_form`, `compare` edge rules, `classify` for each class, `find_slot`'s hop limit,
  the verifier messages, SSA identity against structural equality;
- the exact evaluator;
- a hypothesis property: every EQUAL / DISJOINT answer on `remui` forms over one symbol
  agrees with exact evaluation where the dividends do not wrap.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slotsat.analysis.matcher import (
    HOP_LIMIT,
    PEEL_LIMIT,
    REMAINDER_OPS,
    Const,
    ConstantOnly,
    CountSite,
    MatcherClass,
    Op,
    Opaque,
    Relation,
    Symbolic,
    UndefinedBehavior,
    Unrepresentable,
    Value,
    ValueGraph,
    VerifierError,
    accepted,
    check_constant_slot,
    check_region_count,
    classify,
    compare,
    constant_slot_error,
    evaluate,
    find_slot,
    region_count_error,
    render,
    slot_form,
    structurally_equal,
)

REMSI_TOO = frozenset({"arith.remui", "arith.remsi"})


def rem(g: ValueGraph, x: Value, c: int | Value, name: str = "arith.remui") -> Op:
    return g.op(name, x, g.const(c) if isinstance(c, int) else c)


def add(g: ValueGraph, x: Value, c: int) -> Op:
    return g.op("arith.addi", x, g.const(c))


def sub(g: ValueGraph, x: Value, c: int) -> Op:
    return g.op("arith.subi", x, g.const(c))


def adds(g: ValueGraph, x: Value, count: int) -> Value:
    for _ in range(count):
        x = add(g, x, 1)
    return x


def correction_chain(g: ValueGraph, x: Value, d: int) -> Op:
    """`30-pto-codegen.md` §7.1: remsi, cmpi slt, addi, select."""
    r = rem(g, x, d, "arith.remsi")
    negative = g.op("arith.cmpi", r, g.const(0), predicate="slt")
    return g.op("arith.select", negative, add(g, r, d), r)


# --------------------------------------------------------------------------------------
# §10 matcher scenarios (N = 2 unless noted)


def test_s1_same_value() -> None:
    g = ValueGraph()
    a = rem(g, g.opaque("%i"), 2)
    assert compare(a, a, 2) is Relation.EQUAL


def test_s2_offset_one() -> None:
    g = ValueGraph()
    i = g.opaque("%i")
    assert compare(rem(g, add(g, i, 1), 2), rem(g, i, 2), 2) is Relation.DISJOINT


def test_s3_offset_three() -> None:
    g = ValueGraph()
    i = g.opaque("%i")
    assert compare(rem(g, add(g, i, 3), 2), rem(g, i, 2), 2) is Relation.DISJOINT


def test_s4_offset_two_is_equal_for_a_distinct_value() -> None:
    g = ValueGraph()
    i = g.opaque("%i")
    a, b = rem(g, add(g, i, 2), 2), rem(g, i, 2)
    assert a != b
    assert compare(a, b, 2) is Relation.EQUAL


def test_s5_sub_and_add() -> None:
    g = ValueGraph()
    i = g.opaque("%i")
    assert compare(rem(g, sub(g, i, 1), 2), rem(g, add(g, i, 1), 2), 2) is Relation.EQUAL


def test_s6_different_symbols() -> None:
    g = ValueGraph()
    assert compare(rem(g, g.opaque("%i"), 2), rem(g, g.opaque("%j"), 2), 2) is Relation.UNKNOWN


def test_s7_constants_differ() -> None:
    g = ValueGraph()
    assert compare(g.const(0), g.const(1), 2) is Relation.DISJOINT


def test_s8_constants_congruent() -> None:
    g = ValueGraph()
    assert compare(g.const(0), g.const(2), 2) is Relation.EQUAL


def test_s9_constant_vs_symbol() -> None:
    g = ValueGraph()
    assert compare(g.const(0), rem(g, g.opaque("%i"), 2), 2) is Relation.UNKNOWN


def test_s10_remsi_is_opaque() -> None:
    g = ValueGraph()
    i = g.opaque("%i")
    a, b = rem(g, i, 2, "arith.remsi"), rem(g, add(g, i, 1), 2, "arith.remsi")
    assert slot_form(b, 2) == Symbolic(b, 0, 2)
    assert compare(a, b, 2) is Relation.UNKNOWN


def test_s11_remsi_same_value() -> None:
    g = ValueGraph()
    a = rem(g, g.opaque("%i"), 2, "arith.remsi")
    assert compare(a, a, 2) is Relation.EQUAL


def test_s12_division_is_never_traversed() -> None:
    g = ValueGraph()
    i = g.opaque("%i")
    div_a = g.op("arith.floordivsi", sub(g, i, 1), g.const(3))
    div_b = g.op("arith.floordivsi", add(g, i, 2), g.const(3))
    a, b = rem(g, div_a, 2), rem(g, div_b, 2)
    assert slot_form(a, 2) == Symbolic(div_a, 0, 2)
    assert compare(a, b, 2) is Relation.UNKNOWN
    # Conservative, not wrong: the two slots in fact always differ.
    assert all(evaluate(a, {"%i": k}) != evaluate(b, {"%i": k}) for k in range(1, 40))


def test_s13_modulus_mismatch() -> None:
    g = ValueGraph()
    i = g.opaque("%i")
    assert compare(rem(g, add(g, i, 1), 4), rem(g, i, 4), 2) is Relation.UNKNOWN


def test_s14_dynamic_divisor() -> None:
    g = ValueGraph()
    i = g.opaque("%i")
    a = rem(g, i, g.opaque("%n"))
    assert slot_form(a, 2) == Unrepresentable()
    assert compare(a, rem(g, i, 2), 2) is Relation.UNKNOWN
    assert compare(a, g.const(0), 2) is Relation.UNKNOWN
    assert compare(a, a, 2) is Relation.EQUAL  # the same-value rule comes first


def test_s15_c_minus_x_is_not_peeled() -> None:
    g = ValueGraph()
    i = g.opaque("%i")
    five_minus_i = g.op("arith.subi", g.const(5), i)
    a = rem(g, five_minus_i, 2)
    assert slot_form(a, 2) == Symbolic(five_minus_i, 0, 2)
    assert compare(a, rem(g, i, 2), 2) is Relation.UNKNOWN


def test_s16_bare_symbol_vs_remui_compares_by_offset() -> None:
    g = ValueGraph()
    i = g.opaque("%i")
    assert compare(i, rem(g, add(g, i, 1), 2), 2) is Relation.DISJOINT


def test_s17_cast_blocks_peel() -> None:
    g = ValueGraph()
    i = g.opaque("%i", "i32")
    a = rem(g, g.op("arith.index_cast", add(g, i, 1), type="index"), 2)
    b = rem(g, g.op("arith.index_cast", i, type="index"), 2)
    assert compare(a, b, 2) is Relation.UNKNOWN


def test_s18_peel_limit_leaves_the_fifth_add_as_symbol() -> None:
    g = ValueGraph()
    i = g.opaque("%i")
    innermost = add(g, i, 1)
    five = adds(g, innermost, PEEL_LIMIT)
    a = rem(g, five, 2)
    assert slot_form(a, 2) == Symbolic(innermost, 4, 2)
    assert compare(a, rem(g, i, 2), 2) is Relation.UNKNOWN


def test_s18b_peel_four() -> None:
    g = ValueGraph()
    i = g.opaque("%i")
    a = rem(g, adds(g, i, 4), 2)
    assert slot_form(a, 2) == Symbolic(i, 4, 2)
    assert compare(a, rem(g, i, 2), 2) is Relation.EQUAL


def test_s19_verifier_count() -> None:
    with pytest.raises(VerifierError, match=r"^multi_tile_buf count must be >= 2 \(got 1\)$"):
        check_region_count(1)
    with pytest.raises(VerifierError, match=r"^multi_tile_buf count must be <= 16 \(got 17\)$"):
        check_region_count(17)


def test_s20_verifier_constant_slot() -> None:
    with pytest.raises(VerifierError, match=r"^constant slot 5 is out of range for multi_tile_buf count=2$"):
        check_constant_slot(5, 2)


def test_s21_unreduced_constant_quirk() -> None:
    g = ValueGraph()
    a = rem(g, g.const(3), 2)
    assert slot_form(a, 4) == ConstantOnly(3, 2)
    assert compare(a, g.const(3), 4) is Relation.EQUAL
    assert compare(a, g.const(1), 4) is Relation.DISJOINT  # though remui(3, 2) is 1


def test_s22_correction_chain() -> None:
    g = ValueGraph()
    i = g.opaque("%i")
    chain = correction_chain(g, i, 2)
    assert compare(chain, rem(g, i, 2), 2) is Relation.UNKNOWN


# --------------------------------------------------------------------------------------
# §10 slotsat's use, the pure-model part


def test_accept_remui_is_peelable() -> None:
    g = ValueGraph()
    cls = classify(rem(g, g.opaque("%i"), 2), 2, (0, 63))
    assert cls is MatcherClass.PEELABLE
    assert accepted(cls)


def test_accept_bare_needs_the_interval_within_the_region() -> None:
    g = ValueGraph()
    i = g.opaque("%i")
    assert classify(i, 2, (0, 1)) is MatcherClass.BARE
    assert accepted(MatcherClass.BARE)
    assert classify(i, 2, (0, 2)) is MatcherClass.OPAQUE
    assert classify(i, 2, (-1, 1)) is MatcherClass.OPAQUE
    assert classify(i, 2, None) is MatcherClass.OPAQUE


def test_reject_modulus_mismatch_is_mismatched() -> None:
    g = ValueGraph()
    cls = classify(rem(g, g.opaque("%i"), 4), 2, (0, 3))
    assert cls is MatcherClass.MISMATCHED
    assert not accepted(cls)


def test_opaque_cast_is_opaque() -> None:
    g = ValueGraph()
    k = g.opaque("%k", "i32")
    slot = g.op("arith.index_cast", correction_chain(g, k, 2), type="index")
    assert classify(slot, 2, None) is MatcherClass.OPAQUE


def test_next_iteration_unit_step_pair() -> None:
    g = ValueGraph()
    i = g.opaque("%i")
    # Default mode: remui(i, 2) against remui(i + 1, 2).
    assert compare(rem(g, i, 2), rem(g, add(g, i, 1), 2), 2) is Relation.DISJOINT
    # --mode pypto: remsi(i, 2) against the correction chain of (i + 1) % 2.
    pypto = compare(rem(g, i, 2, "arith.remsi"), correction_chain(g, add(g, i, 1), 2), 2)
    assert pypto is Relation.UNKNOWN


def test_next_iteration_stepped_shares_the_division() -> None:
    g = ValueGraph()
    i = g.opaque("%i")
    quotient = g.op("arith.divui", sub(g, i, 8), g.const(4))
    now, then = rem(g, quotient, 4), rem(g, add(g, quotient, 1), 4)
    assert compare(now, then, 4) is Relation.DISJOINT
    # Two unshared divisions are two symbols.
    other = g.op("arith.divui", sub(g, i, 8), g.const(4))
    assert compare(now, rem(g, add(g, other, 1), 4), 4) is Relation.UNKNOWN


def test_constant_pair() -> None:
    g = ValueGraph()
    assert compare(g.const(1), g.const(1), 4) is Relation.EQUAL
    assert compare(g.const(1), g.const(3), 4) is Relation.DISJOINT


def test_remsi_as_remui_future_model_unwraps_remsi() -> None:
    g = ValueGraph()
    i = g.opaque("%i")
    a, b = rem(g, i, 2, "arith.remsi"), rem(g, add(g, i, 1), 2, "arith.remsi")
    assert compare(a, b, 2, remainder_ops=REMSI_TOO) is Relation.DISJOINT
    assert classify(a, 2, None, remainder_ops=REMSI_TOO) is MatcherClass.PEELABLE
    assert classify(a, 2, None) is MatcherClass.OPAQUE
    assert REMAINDER_OPS == frozenset({"arith.remui"})


def test_remsi_as_remui_future_model_is_unsound_on_negative_dividends() -> None:
    # The benchmark's soundness_failure_detected row: the wrong model says EQUAL for
    # remsi(k + 2, 2) against remsi(k, 2), but at k = -1 they are 1 and -1.
    g = ValueGraph()
    k = g.opaque("%k")
    a, b = rem(g, add(g, k, 2), 2, "arith.remsi"), rem(g, k, 2, "arith.remsi")
    assert compare(a, b, 2, remainder_ops=REMSI_TOO) is Relation.EQUAL
    assert (evaluate(a, {"%k": -1}), evaluate(b, {"%k": -1})) == (1, -1)


def test_monkeypatched_remainder_ops_is_read_at_call_time(monkeypatch: pytest.MonkeyPatch) -> None:
    g = ValueGraph()
    i = g.opaque("%i")
    a, b = rem(g, i, 2, "arith.remsi"), rem(g, add(g, i, 1), 2, "arith.remsi")
    monkeypatch.setattr("slotsat.analysis.matcher.REMAINDER_OPS", REMSI_TOO)
    assert compare(a, b, 2) is Relation.DISJOINT


# --------------------------------------------------------------------------------------
# slot_form and compare details


def test_addi_peels_a_constant_on_either_side() -> None:
    g = ValueGraph()
    i = g.opaque("%i")
    a = rem(g, g.op("arith.addi", g.const(3), sub(g, i, 7)), 4)
    assert slot_form(a, 4) == Symbolic(i, -4, 4)


def test_a_constant_dividend_sums_the_peels_unreduced() -> None:
    g = ValueGraph()
    a = rem(g, add(g, sub(g, g.const(9), 2), 5), 4)
    assert slot_form(a, 4) == ConstantOnly(12, 4)


def test_a_peel_whose_sum_leaves_int64_stops_peeling() -> None:
    g = ValueGraph()
    i = g.opaque("%i")
    inner = add(g, i, 2**62)
    outer = add(g, inner, 2**62)  # 2**62 + 2**62 = 2**63 > INT64_MAX
    assert slot_form(rem(g, outer, 2), 2) == Symbolic(inner, 2**62, 2)
    negative = sub(g, sub(g, i, 2**62), 2**62)  # -2**63 still fits
    assert slot_form(rem(g, negative, 2), 2) == Symbolic(i, -(2**63), 2)


def test_a_constant_wider_than_64_bits_is_not_peeled() -> None:
    g = ValueGraph()
    wide = add(g, g.opaque("%i"), 2**64)
    assert slot_form(rem(g, wide, 2), 2) == Symbolic(wide, 0, 2)


def test_a_divisor_that_is_not_a_positive_constant_is_unrepresentable() -> None:
    g = ValueGraph()
    i = g.opaque("%i")
    assert slot_form(rem(g, i, 0), 2) == Unrepresentable()
    assert slot_form(rem(g, i, -2), 2) == Unrepresentable()
    assert classify(rem(g, i, 0), 2, None) is MatcherClass.UNREPRESENTABLE


def test_a_nested_remui_is_the_symbol() -> None:
    g = ValueGraph()
    inner = rem(g, g.opaque("%i"), 4)
    assert slot_form(rem(g, add(g, inner, 1), 2), 2) == Symbolic(inner, 1, 2)


def test_case_two_and_three_use_the_region_count() -> None:
    g = ValueGraph()
    i = g.opaque("%i")
    assert slot_form(g.const(7), 4) == ConstantOnly(7, 4)
    top = add(g, i, 1)
    assert slot_form(top, 4) == Symbolic(top, 0, 4)  # nothing peeled outside a remainder


def test_missing_operand_or_zero_count_is_unknown() -> None:
    g = ValueGraph()
    a = g.const(0)
    assert compare(None, a, 2) is Relation.UNKNOWN
    assert compare(a, None, 2) is Relation.UNKNOWN
    assert compare(a, a, 0) is Relation.UNKNOWN
    with pytest.raises(ValueError, match="non-negative"):
        compare(a, a, -1)


def test_mismatched_constant_forms_project_mod_n() -> None:
    g = ValueGraph()
    assert compare(rem(g, g.const(5), 8), g.const(1), 4) is Relation.EQUAL
    assert compare(rem(g, g.const(5), 8), rem(g, g.const(2), 8), 4) is Relation.DISJOINT
    # A negative un-reduced offset takes the non-negative remainder: -1 mod 4 == 3.
    assert compare(rem(g, sub(g, g.const(0), 1), 8), g.const(3), 4) is Relation.EQUAL


# --------------------------------------------------------------------------------------
# classify, one test per class beyond the §10 rows


def test_classify_peelable_forms() -> None:
    g = ValueGraph()
    i = g.opaque("%i")
    assert classify(rem(g, adds(g, i, 4), 2), 2, None) is MatcherClass.PEELABLE
    assert classify(g.const(1), 2, None) is MatcherClass.PEELABLE
    assert classify(rem(g, g.const(3), 2), 2, None) is MatcherClass.PEELABLE
    quotient = g.op("arith.divui", sub(g, i, 8), g.const(4))
    assert classify(rem(g, add(g, quotient, 1), 4), 4, None) is MatcherClass.PEELABLE


def test_classify_a_peel_cut_off_by_the_limit_is_opaque() -> None:
    g = ValueGraph()
    assert classify(rem(g, adds(g, g.opaque("%i"), 5), 2), 2, None) is MatcherClass.OPAQUE


def test_classify_opaque_forms() -> None:
    g = ValueGraph()
    i = g.opaque("%i")
    for form in (correction_chain(g, i, 2), rem(g, i, 2, "arith.remsi"), add(g, i, 1)):
        assert classify(form, 2, None) is MatcherClass.OPAQUE
    assert not accepted(MatcherClass.OPAQUE)


def test_classify_mismatched_and_unrepresentable() -> None:
    g = ValueGraph()
    i = g.opaque("%i")
    assert classify(rem(g, g.const(3), 4), 2, None) is MatcherClass.MISMATCHED
    cls = classify(rem(g, i, g.opaque("%n")), 2, (0, 1))
    assert cls is MatcherClass.UNREPRESENTABLE
    assert not accepted(cls)
    assert not accepted(MatcherClass.MISMATCHED)


def test_classify_an_out_of_range_constant_is_unrepresentable() -> None:
    g = ValueGraph()
    assert classify(g.const(2), 2, None) is MatcherClass.UNREPRESENTABLE
    assert classify(g.const(-1), 2, None) is MatcherClass.UNREPRESENTABLE


def test_classify_rejects_an_empty_interval() -> None:
    g = ValueGraph()
    with pytest.raises(ValueError, match="empty interval"):
        classify(g.opaque("%i"), 2, (1, 0))


# --------------------------------------------------------------------------------------
# find_slot (§2)


def _views(g: ValueGraph, tile: Value, count: int) -> Value:
    kinds = ("pto.subview", "pto.treshape", "pto.bitcast")
    for k in range(count):
        tile = g.op(kinds[k % 3], tile)
    return tile


def test_find_slot_walks_views_to_the_get() -> None:
    g = ValueGraph()
    slot = rem(g, g.opaque("%i"), 2)
    get = g.op("pto.multi_tile_get", g.opaque("%mb"), slot)
    sub_view = g.op("pto.subview", get, g.const(0), g.const(16))
    assert find_slot(get) == slot
    assert find_slot(_views(g, sub_view, 2)) == slot


def test_find_slot_follows_at_most_hop_limit_hops() -> None:
    g = ValueGraph()
    slot = g.const(1)
    get = g.op("pto.multi_tile_get", g.opaque("%mb"), slot)
    assert find_slot(_views(g, get, HOP_LIMIT)) == slot
    assert find_slot(_views(g, get, HOP_LIMIT + 1)) is None


def test_find_slot_stops_at_a_block_argument_or_another_op() -> None:
    g = ValueGraph()
    assert find_slot(g.op("pto.subview", g.opaque("%arg0"))) is None
    assert find_slot(g.op("pto.treshape", g.op("pto.alloc_tile"))) is None


# --------------------------------------------------------------------------------------
# Verifiers (§1)


@pytest.mark.parametrize(
    ("n", "site", "message"),
    [
        (1, "type", "multi_tile_buf count must be >= 2 (got 1)"),
        (17, "type", "multi_tile_buf count must be <= 16 (got 17)"),
        (1, "alloc", "multi_tile_buf count must be in [2, 16] (got 1)"),
        (17, "alloc", "multi_tile_buf count must be in [2, 16] (got 17)"),
        (2, "type", None),
        (16, "alloc", None),
    ],
)
def test_region_count_messages(n: int, site: CountSite, message: str | None) -> None:
    assert region_count_error(n, site) == message


def test_check_region_count_alloc_raises_the_op_message() -> None:
    with pytest.raises(VerifierError, match=r"^multi_tile_buf count must be in \[2, 16\] \(got 0\)$"):
        check_region_count(0, "alloc")
    check_region_count(16, "alloc")


def test_constant_slot_messages() -> None:
    assert constant_slot_error(1, 2) is None
    assert constant_slot_error(-1, 4) == "constant slot -1 is out of range for multi_tile_buf count=4"
    assert constant_slot_error(16, 16) == "constant slot 16 is out of range for multi_tile_buf count=16"


# --------------------------------------------------------------------------------------
# The value graph


def test_equal_operands_make_distinct_but_structurally_equal_values() -> None:
    g = ValueGraph()
    i = g.opaque("%i")
    a, b = rem(g, i, 2), rem(g, i, 2)
    assert a != b
    assert len({a, b}) == 2
    assert structurally_equal(a, b)
    assert not structurally_equal(a, rem(g, g.opaque("%j"), 2))
    assert render(a) == "remui(%i, 2)"


def test_the_graph_interns_constants_and_names() -> None:
    g = ValueGraph()
    assert g.const(2) is g.const(2)
    assert g.opaque("%i") is g.opaque("%i")
    assert Const(2) == g.const(2)
    assert Opaque("%i") == g.opaque("%i")
    with pytest.raises(ValueError, match="has type index, not i32"):
        g.opaque("%i", "i32")


def test_ops_check_arity_and_predicates() -> None:
    g = ValueGraph()
    i = g.opaque("%i")
    with pytest.raises(ValueError, match="takes 2 operands, got 1"):
        g.op("arith.remui", i)
    with pytest.raises(ValueError, match="needs a predicate"):
        g.op("arith.cmpi", i, i)
    with pytest.raises(ValueError, match="takes no predicate"):
        g.op("arith.addi", i, i, predicate="slt")
    with pytest.raises(ValueError, match="explicit result type"):
        g.op("arith.index_cast", i)
    assert g.op("arith.cmpi", i, i, predicate="eq").type == "i1"


# --------------------------------------------------------------------------------------
# The evaluator


def _binary(name: str, a: int, b: int, type: str = "index") -> int:
    g = ValueGraph()
    return evaluate(g.op(name, g.const(a, type), g.const(b, type)), {})


def test_evaluate_wraps_at_the_width() -> None:
    assert _binary("arith.addi", 2**63 - 1, 1) == -(2**63)
    assert _binary("arith.muli", 2**31, 2, "i32") == 0
    assert _binary("arith.subi", -(2**31), 1, "i32") == 2**31 - 1


def test_evaluate_signed_division_truncates_and_floordiv_floors() -> None:
    assert _binary("arith.divsi", -7, 2) == -3
    assert _binary("arith.remsi", -7, 2) == -1
    assert _binary("arith.floordivsi", -7, 2) == -4
    assert _binary("arith.ceildivsi", -7, 2) == -3
    assert _binary("arith.ceildivsi", 7, 2) == 4


def test_evaluate_unsigned_ops_read_the_bit_pattern() -> None:
    assert _binary("arith.remui", -1, 3) == (2**64 - 1) % 3
    assert _binary("arith.divui", -2, 2) == 2**63 - 1
    assert _binary("arith.remui", -1, 10, "i32") == (2**32 - 1) % 10
    assert _binary("arith.shrui", -1, 60) == 15
    assert _binary("arith.shrsi", -16, 2) == -4
    assert _binary("arith.maxui", -1, 1) == -1
    assert _binary("arith.maxsi", -1, 1) == 1


def test_evaluate_the_correction_chain_is_floor_mod() -> None:
    g = ValueGraph()
    x = g.opaque("%x")
    chain = correction_chain(g, x, 24)
    assert evaluate(chain, {"%x": -97}) == 23
    assert all(evaluate(chain, {"%x": k}) == k % 24 for k in range(-60, 60))


def test_evaluate_comparisons_and_select() -> None:
    g = ValueGraph()
    x = g.opaque("%x")
    lt = g.op("arith.cmpi", x, g.const(0), predicate="slt")
    ult = g.op("arith.cmpi", x, g.const(0), predicate="ult")
    pick = g.op("arith.select", lt, g.const(10), g.const(20))
    assert (evaluate(lt, {"%x": -1}), evaluate(ult, {"%x": -1}), evaluate(pick, {"%x": -1})) == (1, 0, 10)
    assert evaluate(pick, {"%x": 1}) == 20


def test_evaluate_casts() -> None:
    g = ValueGraph()
    x = g.opaque("%x", "i32")
    assert evaluate(g.op("arith.index_cast", x, type="index"), {"%x": -1}) == -1
    assert evaluate(g.op("arith.index_castui", x, type="index"), {"%x": -1}) == 2**32 - 1
    assert evaluate(g.op("arith.extui", x, type="i64"), {"%x": -2}) == 2**32 - 2
    y = g.opaque("%y")
    assert evaluate(g.op("arith.trunci", y, type="i32"), {"%y": 2**31}) == -(2**31)
    assert evaluate(x, {"%x": 2**31}) == -(2**31)  # the environment wraps too


def test_evaluate_raises_on_undefined_behaviour_and_unknown_ops() -> None:
    with pytest.raises(UndefinedBehavior, match="division by zero"):
        _binary("arith.remui", 1, 0)
    with pytest.raises(UndefinedBehavior, match="MIN / -1"):
        _binary("arith.divsi", -(2**63), -1)
    with pytest.raises(UndefinedBehavior, match="shift by 64"):
        _binary("arith.shli", 1, 64)
    g = ValueGraph()
    with pytest.raises(KeyError, match="no value for %i"):
        evaluate(g.opaque("%i"), {})
    with pytest.raises(ValueError, match=r"cannot evaluate affine\.apply"):
        evaluate(g.op("affine.apply", g.const(1)), {})


# --------------------------------------------------------------------------------------
# Soundness against the evaluator

_LAYER = st.tuples(st.sampled_from(["add_right", "add_left", "sub_right"]), st.integers(-50, 50))
_SAME_MODULUS = st.sampled_from([True, True, True, False])


@st.composite
def _operand(draw: st.DrawFn, g: ValueGraph, base: Value, n: int) -> tuple[Value, bool]:
    """A slot operand over `base` and whether the matcher must resolve it against another."""
    layers = draw(st.lists(_LAYER, max_size=PEEL_LIMIT + 1))
    x = base
    for kind, c in layers:
        if kind == "add_right":
            x = add(g, x, c)
        elif kind == "add_left":
            x = g.op("arith.addi", g.const(c), x)
        else:
            x = sub(g, x, c)
    if not layers and draw(st.booleans()):
        return x, True  # the bare symbol
    divisor = n if draw(_SAME_MODULUS) else draw(st.integers(1, 16))
    return rem(g, x, divisor), divisor == n and len(layers) <= PEEL_LIMIT


@settings(deadline=None)
@given(data=st.data(), n=st.integers(1, 16), base_kind=st.sampled_from(["iv", "divui", "muli"]))
def test_resolved_answers_agree_with_evaluation(data: st.DataObject, n: int, base_kind: str) -> None:
    g = ValueGraph()
    i = g.opaque("%i")
    base: Value = i
    if base_kind == "divui":
        base = g.op("arith.divui", i, g.const(data.draw(st.integers(1, 8))))
    elif base_kind == "muli":
        base = g.op("arith.muli", i, g.const(data.draw(st.integers(1, 5))))
    a, complete_a = data.draw(_operand(g, base, n))
    b, complete_b = data.draw(_operand(g, base, n))
    relation = compare(a, b, n)
    if complete_a and complete_b:
        assert relation is not Relation.UNKNOWN, (render(a), render(b))
    # i >= 10**5 keeps every dividend positive (|peeled sum| <= 250), so nothing wraps.
    for k in data.draw(st.lists(st.integers(10**5, 10**7), min_size=1, max_size=8)):
        for side in (a, b):
            if isinstance(side, Op) and side.name == "arith.remui":
                assert evaluate(side.operands[0], {"%i": k}) > 0
        same = evaluate(a, {"%i": k}) % n == evaluate(b, {"%i": k}) % n
        if relation is Relation.EQUAL:
            assert same, (render(a), render(b), k)
        elif relation is Relation.DISJOINT:
            assert not same, (render(a), render(b), k)
