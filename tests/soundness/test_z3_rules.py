"""Every rewrite and proof rule of `egraph_rules`, proven with z3 at 32 and 64 bits
(`60-egraph-engine.md` §12).

Groups: the obligation registry covers every registered rule (lint); each obligation has no
counterexample at either width; a deliberately wrong rule is refuted (the checker can fail).
"""

from __future__ import annotations

import pytest
import z3

from slotsat.egraph_rules import engine  # noqa: F401 - materializes every ruleset
from slotsat.egraph_rules.intervals import intervals
from slotsat.egraph_rules.lang import RULES, widths
from slotsat.egraph_rules.lower_arith import lower_arith
from slotsat.egraph_rules.normalize import ir_forms, slot_forms
from slotsat.egraph_rules.syntactic import nonneg_syntactic
from tests.soundness.obligations import OBLIGATIONS, Obligation, bv, counterexample, fdiv, fmod

for _rs in (widths, nonneg_syntactic, intervals, slot_forms, ir_forms, lower_arith):
    _rs.__egg_decls__  # noqa: B018 - registers the rules' names


def test_every_rule_has_an_obligation() -> None:
    missing = sorted(n for n, info in RULES.items() if info.kind != "typing" and n not in OBLIGATIONS)
    assert not missing, f"rules without a z3 obligation: {missing}"
    assert len([n for n, i in RULES.items() if i.kind != "typing"]) >= 45


@pytest.mark.parametrize("width", [32, 64])
@pytest.mark.parametrize("name", sorted(OBLIGATIONS))
def test_rule_is_sound(name: str, width: int) -> None:
    assert counterexample(OBLIGATIONS[name](width)) is None


def test_an_unguarded_floor_mod_shift_is_refuted() -> None:
    x, c, f = bv("x", 32), bv("c", 32), bv("f", 32)
    wrong = Obligation([f > 0], fmod(x + c, f) == fmod(x + fmod(c, f), f))  # no no-wrap guard
    assert counterexample(wrong) is not None


def test_an_unguarded_remui_is_refuted() -> None:
    a, c = bv("a", 32), bv("c", 32)
    assert counterexample(Obligation([c > 0], fmod(a, c) == z3.URem(a, c))) is not None


def test_distributing_a_remainder_by_a_non_power_of_two_is_refuted() -> None:
    """`pow2_mod_add` needs `f` to divide `2**w`: with `f = 3` a wrapped sum differs."""
    a, b, f = bv("a", 32), bv("b", 32), z3.BitVecVal(3, 32)
    wrong = Obligation([], fmod(a + b, f) == fmod(fmod(a, f) + fmod(b, f), f))
    assert counterexample(wrong) is not None


def test_a_split_by_the_wrong_modulus_is_refuted() -> None:
    """`floordiv_mod_split` needs the modulus `a*b`: `(x // 4) % 2 == (x % 2) // 4` is false."""
    x = bv("x", 32)
    four, two = z3.BitVecVal(4, 32), z3.BitVecVal(2, 32)
    wrong = Obligation([], fmod(fdiv(x, four), two) == fdiv(fmod(x, two), four))
    assert counterexample(wrong) is not None
