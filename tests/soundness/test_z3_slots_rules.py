"""The slots pass's own e-graph rules (`egraph_rules/slotize.py`), proven with z3.

The slots pass builds its slot terms on its own sort (`SlotIdx`, INDEX only) with three
rulesets: `slotize` (the rotation counter), `slot_syntactic` (the reference's syntactic
proof) and `slot_ir_forms` (the three IR identities of `20-lower-pipeline-to-slots.md` §11).
The proof and the identities are the same algebra as the codegen rules of the same name, so
they share those obligations; the rotation has one of its own. A lint test fails when a
slotize ruleset gains a rule this table does not account for.

Groups: coverage of the three rulesets; the rotation obligation; the shared obligations at
32 and 64 bits.
"""

from __future__ import annotations

import pytest
import z3

from egraph_rules.slotize import slot_ir_forms, slot_syntactic, slotize
from tests.soundness.obligations import OBLIGATIONS, Obligation, _range, counterexample, fdiv, floor_qr, fmod

SHARED: dict[str, tuple[str, ...]] = {
    # in the order the rules are registered
    slot_syntactic.ident.name: ("syn_const", "syn_iv", "syn_counter", "syn_floordiv", "syn_floormod"),
    slot_ir_forms.ident.name: ("ir_div_one", "ir_sub_zero", "ir_mod_multiple"),
}


def _rule_count(ruleset: object) -> int:
    decls = ruleset.__egg_decls__  # type: ignore[attr-defined]
    return len(decls._rulesets[ruleset.ident].rules)  # type: ignore[attr-defined]


def test_every_slots_pass_rule_has_an_obligation() -> None:
    assert _rule_count(slotize) == 1  # the rotation, proven below
    for ruleset in (slot_syntactic, slot_ir_forms):
        names = SHARED[ruleset.ident.name]
        assert _rule_count(ruleset) == len(names), ruleset.ident.name
        assert all(n in OBLIGATIONS for n in names)


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


@pytest.mark.parametrize("width", [32, 64])
@pytest.mark.parametrize("name", sorted({n for names in SHARED.values() for n in names}))
def test_shared_obligation_holds(name: str, width: int) -> None:
    assert counterexample(OBLIGATIONS[name](width)) is None


def test_a_rotation_without_the_start_subtracted_is_refuted() -> None:
    iv, start, step, n, f = (z3.BitVec(x, 32) for x in ("iv", "start", "step", "n", "f"))
    wrong = Obligation([start >= 0, step > 0, n >= 0, f > 0, iv == start + n * step, step < 64, n < 64],
                       fmod(fdiv(iv, step), f) == fmod(n, f))
    assert counterexample(wrong, timeout_ms=20_000) is not None
