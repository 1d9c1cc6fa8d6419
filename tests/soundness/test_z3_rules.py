"""Every rule of every ruleset of `slotsat.egraph_rules`, proven with z3 from its own declaration
(`60-egraph-engine.md` §12; STYLE.md, Tests 4: the rule is the thing proven).

The rules are enumerated from the ruleset objects (`tests/soundness/rules.py`), each
obligation is derived from the rule's query, guards and actions (`tests/soundness/derive.py`)
against the meaning of the index language and the analyses (`tests/soundness/meaning.py`), at
32 and 64 bits (`tests/soundness/suite.py`), and discharged by z3 (`tests/soundness/prover.py`):
a timeout is a failure naming the rule, never a pass.

Groups: every rule is translatable and proven at its widths; no proof is vacuous (the rule's
query can match); the checker can fail (deliberately wrong rules are refuted, a rule using an
undefined symbol names itself); the dtype facts the e-graph registers agree with the meaning.
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest
from egglog import RewriteOrRule, eq, i64, relation, rule, ruleset, union
from egglog import declarations as d

from slotsat.egraph_rules import lang
from slotsat.egraph_rules.lang import Idx
from tests.soundness import meaning as m
from tests.soundness.derive import Untranslatable, instances
from tests.soundness.prover import Verdict, check
from tests.soundness.rules import Rule, all_rules, ruleset_decls
from tests.soundness.suite import Planned, plan_all, prove

RULES = all_rules()


@pytest.fixture(scope="module")
def results() -> tuple[dict[str, list[tuple[Planned, Verdict, Verdict]]], dict[str, str]]:
    planned, untranslatable = plan_all(RULES)
    proofs = prove(planned)
    matches = prove(planned, mode="match")
    by_rule: dict[str, list[tuple[Planned, Verdict, Verdict]]] = {}
    for p, v, w in zip(planned, proofs, matches, strict=True):
        by_rule.setdefault(p.rule.name, []).append((p, v, w))
    return by_rule, untranslatable


def test_the_suite_enumerates_every_ruleset_of_the_engine() -> None:
    names = {r.ruleset for r in RULES}
    assert {
        "widths",
        "nonneg_syntactic",
        "intervals",
        "slot_forms",
        "ir_forms",
        "lower_arith",
        "gates",
        "slotize",
    } <= names
    assert len(RULES) >= 80


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.name)
def test_rule_is_proven(
    rule: Rule, results: tuple[dict[str, list[tuple[Planned, Verdict, Verdict]]], dict[str, str]]
) -> None:
    by_rule, untranslatable = results
    assert rule.name not in untranslatable, untranslatable.get(rule.name)
    entries = by_rule.get(rule.name, [])
    assert entries, f"{rule.name}: no dtype assignment at 32 or 64 bits"
    failures = [str(v) for _, v, _ in entries if v.status != "proven"]
    assert not failures, "\n".join(failures)
    vacuous = [str(w) for _, _, w in entries if w.status != "matches"]
    assert not vacuous, "the rule's query cannot be shown to match:\n" + "\n".join(vacuous)


# -- the checker can fail ---------------------------------------------------------------------------


_wrong = ruleset(name="wrong_rules_for_the_test")


@_wrong.register
def _wrong_rules(x: Idx, c: i64, f: i64, r: i64, dt: i64) -> Iterable[RewriteOrRule]:
    yield rule(
        e := (x + Idx.const(c, dt)) % Idx.const(f, dt),
        f > i64(0),
        eq(r).to((c % f + f) % f),
        name="shift_without_a_no_wrap_guard",
    ).then(union(e).with_((x + Idx.const(r, dt)) % Idx.const(f, dt)))
    yield rule(e := x % Idx.const(c, dt), c > i64(0), name="remu_without_a_proof").then(
        union(e).with_(Idx.remu(x, Idx.const(c, dt)))
    )
    yield rule(
        e := (x + Idx.const(c, dt)) + Idx.const(c, dt), eq(r).to(c + c), name="literal_that_may_not_fit"
    ).then(union(e).with_(x + Idx.const(r, dt)))  # reassociation without its `fits` guard
    yield rule(e := x * Idx.const(2, dt), name="sum_for_a_product").then(union(e).with_(x + x + x))


def _wrong_rule(name: str) -> Rule:
    for decl in ruleset_decls(_wrong):
        if decl.name == name:
            return Rule("wrong", name, decl, name)
    raise KeyError(name)


@pytest.mark.parametrize(
    "name",
    [
        "shift_without_a_no_wrap_guard",
        "remu_without_a_proof",
        "literal_that_may_not_fit",
        "sum_for_a_product",
    ],
)
def test_a_wrong_rule_is_refuted(name: str) -> None:
    r = _wrong_rule(name)
    inst = next(i for i in instances(r.decl) if all(m.bits_of(c) == 32 for _, c in i.codes))
    assert check(r, inst).status == "refuted"


_undefined = relation("undefined_for_the_test", Idx)
_unknown = ruleset(name="unknown_symbols_for_the_test")


@_unknown.register
def _unknown_rules(x: Idx) -> Iterable[RewriteOrRule]:
    yield rule(_undefined(x), name="uses_an_undefined_relation").then(union(x).with_(x + Idx.const(0, 0)))


def test_a_rule_with_an_undefined_symbol_names_itself() -> None:
    (decl,) = ruleset_decls(_unknown)
    r = Rule("unknown", "uses_an_undefined_relation", decl, decl.name)
    with pytest.raises(Untranslatable, match="uses_an_undefined_relation"):
        plan_all_or_raise(r)


def plan_all_or_raise(r: Rule) -> None:
    _, failed = plan_all([r])
    if failed:
        raise Untranslatable(failed[r.name])


# -- the dtype facts ---------------------------------------------------------------------------------


def test_the_registered_dtype_facts_are_the_dtypes_ranges() -> None:
    registered: dict[tuple[str, int], int] = {}
    for action in lang.dtype_facts():
        decl = action.action  # type: ignore[union-attr]
        field = m.DTYPE_FACTS[decl.call.callable]
        (arg,) = decl.call.args
        value = decl.rhs
        if isinstance(value, d.CallDecl):  # BigInt(v)
            (inner,) = value.args
            value = inner.expr
        registered[(field, arg.expr.value)] = value.value
    expected = {(f, c): m.dtype_fact(f, c) for f in m.DTYPE_FACTS.values() for c in m.SIGNED_CODES}
    assert registered == expected
