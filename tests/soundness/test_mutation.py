"""The mutation test (STYLE.md, Tests 4): every guard and every constant of every rule is
load-bearing, or listed as redundant with its reason.

For every rule of every ruleset, `tests/soundness/mutate.py` drops each guard conjunct and
perturbs each constant in turn (for a gate that declines eligibility: removes the gate),
derives the mutant's obligation again from the changed declaration, and z3 must find a
counterexample (`refuted`), or the fact must be the only binding of a variable (`binds`: the
mutant is no rule). A mutant that z3 proves names a guard the proof does not need: it fails
here unless `mutate.ALLOWED` lists it with the reason the guard is there anyway. A z3 timeout
fails naming the rule and the mutant, never a pass.

Groups: every non-allowed mutant is refuted; the allow-list names only current mutants with a
one-line reason; the mutants cover every guard; the test can fail (a redundant guard is
reported, a load-bearing one refuted).
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest
from egglog import RewriteOrRule, eq, i64, rule, ruleset, union

from slotsat.egraph_rules.lang import Dtype, Idx
from tests.soundness.mutate import (
    ALLOWED,
    Mutant,
    MutantVerdict,
    all_mutants,
    evaluate,
    is_pattern,
    mutants,
    writes_eligibility,
)
from tests.soundness.rules import Rule, all_rules, ruleset_decls, show

MUTANTS = all_mutants()
CHECKED = [mu for mu in MUTANTS if mu.key not in ALLOWED]


@pytest.fixture(scope="module")
def verdicts() -> dict[tuple[str, str], MutantVerdict]:
    return {v.mutant.key: v for v in evaluate(CHECKED)}


@pytest.mark.parametrize("mutant", CHECKED, ids=lambda mu: f"{mu.rule.name}: {mu.id}")
def test_the_mutant_is_refuted(mutant: Mutant, verdicts: dict[tuple[str, str], MutantVerdict]) -> None:
    v = verdicts[mutant.key]
    assert v.status in ("refuted", "binds"), (
        f"{v}\n(a guard the proof does not need: remove it, or list it in mutate.ALLOWED with its reason)"
        if v.status == "proven"
        else str(v)
    )


def test_the_allow_list_names_current_mutants_with_a_reason() -> None:
    current = {mu.key for mu in MUTANTS}
    stale = sorted(k for k in ALLOWED if k not in current)
    assert not stale, f"allow-list entries that name no mutant: {stale}"
    for key, reason in ALLOWED.items():
        assert reason.strip(), key
        assert "\n" not in reason, key


def test_the_mutants_cover_every_guard() -> None:
    """Every query fact after the matched term is dropped once (a gate that declines is removed
    instead), and every rule with a guard or a constant has a mutant."""
    for r in all_rules():
        ms = mutants(r)
        if writes_eligibility(r.decl) == "decline":
            assert ms[0].id == "delete", r.name
            continue
        body = r.decl.body[1:] if r.decl.body and is_pattern(r.decl.body[0]) else r.decl.body
        dropped = [mu.what for mu in ms if mu.kind == "drop"]
        assert dropped == [show(f) for f in body], r.name


# -- the test can fail --------------------------------------------------------------------------

_probe = ruleset(name="mutation_probe_for_the_test")


@_probe.register
def _probe_rules(x: Idx, c: i64, dt: Dtype) -> Iterable[RewriteOrRule]:
    yield rule(
        e := x * Idx.const(c, dt), eq(c).to(i64(1)), c >= i64(-5), name="times_one_with_a_spare_guard"
    ).then(union(e).with_(x))


def _probe_rule() -> Rule:
    (decl,) = ruleset_decls(_probe)
    return Rule("probe", "times_one_with_a_spare_guard", decl, decl.name)


def test_a_redundant_guard_is_reported_and_a_load_bearing_one_refuted() -> None:
    by_id = {v.mutant.id: v.status for v in evaluate(mutants(_probe_rule()))}
    assert by_id["drop (?c >= -5)"] == "proven"
    assert by_id["drop ?c == 1"] == "refuted"
    assert by_id["perturb 1 in ?c == 1"] == "refuted"
