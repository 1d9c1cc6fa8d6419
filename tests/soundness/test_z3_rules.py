"""Every rule of every ruleset of `slotsat.egraph_rules`, proven with z3 from its own declaration
(`60-egraph-engine.md` §12; STYLE.md, Tests 4: the rule is the thing proven).

The rules are enumerated from the ruleset objects (`schedules.RULESETS`,
`tests/soundness/rules.py`), each obligation is derived from the rule's query, guards and
actions (`tests/soundness/derive.py`) against the meaning of the index language and the
analyses (`tests/soundness/meaning.py`), at 32 and 64 bits with two's complement wrap
(`tests/soundness/suite.py`), and discharged by z3 (`tests/soundness/prover.py`: bit-vectors,
or the integer encoding of the same bit patterns where bit-blasting times out): a timeout is a
failure naming the rule, never a pass. Nothing here names a rule: a rule added to a ruleset
gets its obligation, and one that cannot be translated fails naming itself.

Groups: the suite enumerates every ruleset and every registered rule; every rule is
translatable and proven at its widths; no proof is vacuous (the rule's query can match); the
checker can fail (deliberately wrong rules are refuted, a rule using an undefined symbol
names itself); the dtype facts the e-graph registers agree with the meaning.
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest
from egglog import RewriteOrRule, eq, i64, relation, rule, ruleset, union
from egglog import declarations as d

from slotsat.egraph_rules import lang
from slotsat.egraph_rules.lang import Dtype, Idx
from slotsat.egraph_rules.schedules import RULESETS, registered_rules
from tests.soundness import meaning as m
from tests.soundness.derive import Untranslatable, instances
from tests.soundness.prover import Verdict, check
from tests.soundness.rules import Rule, all_rules, module_rulesets, ruleset_decls
from tests.soundness.suite import NARROWED, Planned, excluded, plan_all, prove

RULES = all_rules()


@pytest.fixture(scope="module")
def results() -> tuple[dict[str, list[tuple[Planned, Verdict]]], dict[str, str]]:
    planned, untranslatable = plan_all(RULES)
    by_rule: dict[str, list[tuple[Planned, Verdict]]] = {}
    for p, v in zip(planned, prove(planned), strict=True):
        by_rule.setdefault(p.rule.name, []).append((p, v))
    return by_rule, untranslatable


def test_the_suite_enumerates_every_ruleset_and_every_registered_rule() -> None:
    assert sorted(module_rulesets()) == sorted(RULESETS), "a module-level ruleset missing from RULESETS"
    assert {r.ruleset for r in RULES} == set(RULESETS)
    named = {r.egg_name for r in RULES if r.egg_name is not None}
    assert named == set(registered_rules()), "named rules and lang.RULES differ"


@pytest.mark.parametrize("rule", [r for r in RULES if r.egg_name is not None], ids=lambda r: r.name)
def test_a_named_rule_is_registered_in_its_ruleset(rule: Rule) -> None:
    assert registered_rules()[rule.name].ruleset == rule.ruleset


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.name)
def test_rule_is_proven(
    rule: Rule, results: tuple[dict[str, list[tuple[Planned, Verdict]]], dict[str, str]]
) -> None:
    by_rule, untranslatable = results
    assert rule.name not in untranslatable, untranslatable.get(rule.name)
    entries = by_rule.get(rule.name, [])
    assert entries, f"{rule.name}: no dtype assignment at 32 or 64 bits"
    widths = {p.width for p, _ in entries}
    if widths != {"fixed"}:
        narrow = "16" if rule.name in NARROWED else "32"
        assert "64" in widths, f"{rule.name}: no 64-bit obligation"
        assert narrow in widths or excluded(rule, int(narrow)), f"{rule.name}: no {narrow}-bit obligation"
    failures = [str(v) for _, v in entries if v.status != "proven"]
    assert not failures, "\n".join(failures)
    vacuous = [f"{v.rule} [{v.instance}] {v.query}" for _, v in entries if v.query != "matches"]
    assert not vacuous, "the rule's query cannot be shown to match:\n" + "\n".join(vacuous)


# -- the checker can fail ---------------------------------------------------------------------------


_wrong = ruleset(name="wrong_rules_for_the_test")


@_wrong.register
def _wrong_rules(x: Idx, y: Idx, c: i64, f: i64, r: i64, dt: Dtype) -> Iterable[RewriteOrRule]:  # noqa: PLR0917
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
    yield rule(  # pow2_mod_add without its power-of-two guard: a wrapped sum differs mod 3
        e := (x + y) % Idx.const(f, dt), f > i64(0), name="remainder_distributed_by_any_divisor"
    ).then(union(e).with_((x % Idx.const(f, dt) + y % Idx.const(f, dt)) % Idx.const(f, dt)))


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
        "remainder_distributed_by_any_divisor",
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
    yield rule(_undefined(x), name="uses_an_undefined_relation").then(
        union(x).with_(x + Idx.const(0, Dtype.INT32))
    )


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
        field = m.DTYPE_FACTS.get(decl.call.callable)
        if field is None:  # `spelling`: the MLIR type, no arithmetic meaning
            continue
        (arg,) = decl.call.args
        code = m.code_of_constant(arg.expr)
        assert code is not None, arg
        value = decl.rhs
        if isinstance(value, d.CallDecl):  # BigInt(v)
            (inner,) = value.args
            value = inner.expr
        registered[(field, code)] = value.value
    expected = {(f, c): m.dtype_fact(f, c) for f in m.DTYPE_FACTS.values() for c in m.SIGNED_CODES}
    assert registered == expected
