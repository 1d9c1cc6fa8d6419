"""The slots pass's own e-graph rules (`egraph_rules/slotize.py`), proven with z3.

The slots pass builds its slot terms on the shared index language (`slotsat.egraph_rules.lang.Idx`)
with one ruleset of its own, `slotize` (the rotation counter); it then runs the shared
schedule `SLOTS_FORMS` (`nonneg_syntactic`, `ir_forms`), whose rules are registered in
`slotsat.egraph_rules.lang.RULES` and proven by `test_z3_rules.py`. The rotation has an obligation
of its own here; a lint test fails when `slotize` gains a rule this file does not account
for, or when a rule of the slots pass's schedule is left without a registered obligation.

Groups: coverage; the rotation obligation.
"""

from __future__ import annotations

import pytest
import z3

from slotsat.egraph_rules.lang import RULES
from slotsat.egraph_rules.normalize import ir_forms
from slotsat.egraph_rules.slotize import slotize
from slotsat.egraph_rules.syntactic import nonneg_syntactic
from tests.soundness.obligations import OBLIGATIONS, Obligation, _range, counterexample, fdiv, floor_qr, fmod


def _rule_count(ruleset: object) -> int:
    decls = ruleset.__egg_decls__  # type: ignore[attr-defined]
    return len(decls._rulesets[ruleset.ident].rules)  # type: ignore[attr-defined]


def test_every_slots_pass_rule_has_an_obligation() -> None:
    assert _rule_count(slotize) == 1  # the rotation, proven below
    # the slots pass's share of SLOTS_FORMS
    for name, ruleset in (("nonneg_syntactic", nonneg_syntactic), ("ir_forms", ir_forms)):
        count = _rule_count(ruleset)  # lowers the rules, which registers their names
        names = [n for n, info in RULES.items() if info.ruleset == name]
        assert count == len(names) > 0, name
        assert all(n in OBLIGATIONS for n in names), name


def _rotation(w: int) -> Obligation:
    """Iteration n of a loop from `start` by `step` gets ((iv - start) // step) % F == n % F:
    consecutive iterations take consecutive slots, F apart the same one.

    Stated on integers, as the suite does for symbolic divisors: with `iv` in the w-bit range
    and `0 <= start <= iv`, no w-bit operation of the counter wraps, so each equals its exact
    integer counterpart; floor division and remainder by a positive divisor by definition."""
    iv, start, step, n, f = z3.Ints("iv start step n f")
    q, _, pq = floor_qr(iv - start, step)
    _, rs, ps = floor_qr(q, f)
    _, expected, pe = floor_qr(n, f)
    premises = [start >= 0, step > 0, n >= 0, f > 0, iv == start + n * step,
                *_range(w, iv, start, step, f), *pq, *ps, *pe]
    return Obligation(premises, rs == expected)


@pytest.mark.parametrize("width", [32, 64])
def test_the_rotation_counter_visits_slots_in_iteration_order(width: int) -> None:
    assert counterexample(_rotation(width)) is None


def test_a_rotation_without_the_start_subtracted_is_refuted() -> None:
    iv, start, step, n, f = (z3.BitVec(x, 32) for x in ("iv", "start", "step", "n", "f"))
    wrong = Obligation([start >= 0, step > 0, n >= 0, f > 0, iv == start + n * step, step < 64, n < 64],
                       fmod(fdiv(iv, step), f) == fmod(n, f))
    assert counterexample(wrong, timeout_ms=20_000) is not None
