"""Mutants of a rule: each guard conjunct dropped, each constant perturbed (STYLE.md, Tests 4).

A mutant is the rule's declaration with one change; its obligation is derived again from the
changed declaration (`tests/soundness/derive.py`), and the mutation test expects z3 to refute
it: then the dropped guard or the constant was load-bearing.

- `drop`: every fact of the query except its first when that is the matched term (the
  pattern itself) is a guard conjunct: comparisons, relations, bindings (`eq(s).to(c + d)`:
  dropped, `s` is unconstrained), term-existence guards.
- `perturb`: every integer literal of the rule, outside dtype positions and reports, becomes
  `v - 1` and `v + 1` (a Boolean literal is negated); the literal is changed in the innermost
  call or fact holding it, everywhere that call occurs in the rule (so the matched term and
  the action's copy of it stay the same term). The constant is load-bearing when one of its
  perturbations is refuted.
- A rule that declines the eligibility lattice (`ok(l) := False`) only ever makes the
  `slotize` rotation's premise stronger, so dropping one of its guards cannot be refuted; its
  mutant is `delete`: the rule is removed, and the obligations of the rules reading `ok` are
  derived again without it.

For every rule writing `ok`, the mutant's world (`derive.World`) holds the mutated rule in
place of the original, and the obligations of the rules reading `ok` (`consumers`) are part of
the mutant's verdict.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass

from egglog import declarations as d

from tests.soundness import meaning as m
from tests.soundness.derive import Untranslatable, World
from tests.soundness.prover import Task, run
from tests.soundness.suite import Planned, plan
from tests.soundness.domains import I64_MAX, I64_MIN
from tests.soundness.rules import Rule, all_rules, show


@dataclass(frozen=True)
class Mutant:
    rule: Rule
    """The original rule."""
    kind: str
    """`drop`, `perturb` or `delete`."""
    what: str
    """The mutation's id: the dropped fact, the perturbed call, or `delete`."""
    variants: tuple[Rule | None, ...]
    """The mutated rule(s): one per perturbation direction; None for a deleted rule."""

    @property
    def id(self) -> str:
        return f"{self.kind} {self.what}" if self.kind != "delete" else "delete"


def _eligibility(node: object) -> bool:
    return isinstance(node, d.CallDecl) and m.FUNCTIONS.get(node.callable, m.Meaning("")).kind == "eligible"


def writes_eligibility(decl: d.RuleDecl) -> str | None:
    """`"seed"` / `"decline"` for a rule setting `ok(l)` to True / False, else None."""
    for a in decl.head:
        if isinstance(a, d.SetDecl) and _eligibility(a.call) and isinstance(a.rhs, d.LitDecl):
            return "seed" if a.rhs.value is True else "decline"
    return None


def reads_eligibility(decl: d.RuleDecl) -> bool:
    return any(_eligibility(n) for f in decl.body for n in _nodes(f))


def consumers(rules: tuple[Rule, ...] | None = None) -> tuple[Rule, ...]:
    """The rules whose query reads `ok`, other than the gates' own declines."""
    rules = rules if rules is not None else all_rules()
    return tuple(r for r in rules if reads_eligibility(r.decl) and writes_eligibility(r.decl) is None)


def world_with(rule: Rule, replacement: Rule | None) -> World:
    """The current rules with `rule` replaced (or removed, for None)."""
    rules: list[Rule] = []
    for r in all_rules():
        if r.name != rule.name:
            rules.append(r)
        elif replacement is not None:
            rules.append(replacement)
    return World(tuple(rules))


# -- declaration surgery ------------------------------------------------------------------


def _nodes(node: object) -> Iterator[object]:
    yield node
    for child in _children(node):
        yield from _nodes(child)


def _children(node: object) -> list[object]:
    if isinstance(node, d.TypedExprDecl):
        return [node.expr]
    if isinstance(node, d.CallDecl):
        return list(node.args)
    if isinstance(node, d.EqDecl):
        return [node.left, node.right]
    if isinstance(node, d.ExprFactDecl | d.ExprActionDecl):
        return [node.typed_expr]
    if isinstance(node, d.UnionDecl):
        return [node.lhs, node.rhs]
    if isinstance(node, d.SetDecl):
        return [node.call, node.rhs]
    return []


def replace_all(node: object, old: object, new: object) -> object:
    """`node` with every occurrence of `old` (structurally equal) replaced by `new`."""
    if node == old:
        return new
    if isinstance(node, d.TypedExprDecl):
        return dataclasses.replace(node, expr=replace_all(node.expr, old, new))
    if isinstance(node, d.CallDecl):
        return dataclasses.replace(node, args=tuple(replace_all(a, old, new) for a in node.args))  # type: ignore[misc]
    if isinstance(node, d.EqDecl):
        return dataclasses.replace(node, left=replace_all(node.left, old, new), right=replace_all(node.right, old, new))
    if isinstance(node, d.ExprFactDecl | d.ExprActionDecl):
        return dataclasses.replace(node, typed_expr=replace_all(node.typed_expr, old, new))
    if isinstance(node, d.UnionDecl):
        return dataclasses.replace(node, lhs=replace_all(node.lhs, old, new), rhs=replace_all(node.rhs, old, new))
    if isinstance(node, d.SetDecl):
        return dataclasses.replace(node, call=replace_all(node.call, old, new), rhs=replace_all(node.rhs, old, new))
    return node


def _replace_in_rule(decl: d.RuleDecl, old: object, new: object) -> d.RuleDecl:
    return dataclasses.replace(
        decl,
        body=tuple(replace_all(f, old, new) for f in decl.body),  # type: ignore[misc]
        head=tuple(replace_all(a, old, new) for a in decl.head),  # type: ignore[misc]
    )


def _is_pattern(f: d.FactDecl) -> bool:
    return isinstance(f, d.ExprFactDecl) and f.typed_expr.tp.ident.name != "Unit"


def _meaning_of(call: object) -> str:
    return m.FUNCTIONS.get(call.callable, m.Meaning("")).kind if isinstance(call, d.CallDecl) else ""


def _skip_literal(parent: object, index: int) -> bool:
    """Dtype positions, reports and the eligibility lattice's written value are not constants a
    guard computes with (turning a decline into a seed is what `delete` already covers, and a
    seed into a decline only declines more)."""
    if isinstance(parent, d.SetDecl) and _meaning_of(parent.call) in ("report", "width", "eligible"):
        return True
    if isinstance(parent, d.EqDecl) and "width" in (_meaning_of(parent.left), _meaning_of(parent.right)):
        return True
    if isinstance(parent, d.CallDecl):
        kind = m.CONSTRUCTORS.get(parent.callable)
        if kind in m.DTYPE_ARG and index == m.DTYPE_ARG[kind]:
            return True
        if parent.callable in m.DTYPE_FACTS:
            return True
        if _meaning_of(parent) == "report":
            return True
    return False


def _with_child(parent: object, index: int, child: object) -> object:
    if isinstance(parent, d.CallDecl):
        args = list(parent.args)
        args[index] = dataclasses.replace(args[index], expr=child)
        return dataclasses.replace(parent, args=tuple(args))
    if isinstance(parent, d.EqDecl):
        return dataclasses.replace(parent, **{("left", "right")[index]: child})
    if isinstance(parent, d.SetDecl):
        assert index == 1
        return dataclasses.replace(parent, rhs=child)
    raise TypeError(type(parent).__name__)


def _literal_sites(decl: d.RuleDecl) -> Iterator[tuple[object, int, d.LitDecl]]:
    """(innermost call or fact holding the literal, its position, the literal)."""

    def walk(node: object) -> Iterator[tuple[object, int, d.LitDecl]]:
        if isinstance(node, d.CallDecl):
            for k, a in enumerate(node.args):
                if isinstance(a.expr, d.LitDecl):
                    yield node, k, a.expr
                else:
                    yield from walk(a.expr)
        elif isinstance(node, d.EqDecl | d.SetDecl):
            pair = (node.left, node.right) if isinstance(node, d.EqDecl) else (node.call, node.rhs)
            for k, x in enumerate(pair):
                if isinstance(x, d.LitDecl):
                    yield node, k, x
                else:
                    yield from walk(x)
        else:
            for c in _children(node):
                yield from walk(c)

    for f in (*decl.body, *decl.head):
        yield from walk(f)


def _perturbed(lit: d.LitDecl) -> list[d.LitDecl]:
    v = lit.value
    if isinstance(v, bool):
        return [d.LitDecl(not v)]
    if isinstance(v, int):
        return [d.LitDecl(x) for x in (v - 1, v + 1) if I64_MIN <= x <= I64_MAX]
    return []


def mutants(rule: Rule) -> list[Mutant]:
    decl = rule.decl
    out: list[Mutant] = []
    eligibility = writes_eligibility(decl)
    if eligibility == "decline":
        out.append(Mutant(rule, "delete", "delete", (None,)))
    else:
        for k, f in enumerate(decl.body):
            if k == 0 and _is_pattern(f):
                continue
            body = decl.body[:k] + decl.body[k + 1 :]
            mutated = dataclasses.replace(decl, body=body)
            out.append(Mutant(rule, "drop", show(f), (Rule(rule.ruleset, rule.name, mutated, rule.egg_name),)))
    seen: set[d.RuleDecl] = set()
    for parent, index, lit in _literal_sites(decl):
        if _skip_literal(parent, index):
            continue
        variants: list[Rule | None] = []
        for new in _perturbed(lit):
            mutated = _replace_in_rule(decl, parent, _with_child(parent, index, new))
            if mutated in seen or mutated == decl:
                continue
            seen.add(mutated)
            variants.append(Rule(rule.ruleset, rule.name, mutated, rule.egg_name))
        if variants:
            out.append(Mutant(rule, "perturb", f"{lit.value!r} in {show(parent)}", tuple(variants)))
    return out


# -- verdicts -------------------------------------------------------------------------------

LEVELS = ("fixed", "8", "16", "32", "64")
"""Widths tried in turn: a counterexample at a narrow dtype is a counterexample (`INT8` is a
dtype of the language) and costs least; a mutant is proven only when every level is."""


@dataclass(frozen=True)
class MutantVerdict:
    mutant: Mutant
    status: str
    """`refuted` (the guard or constant is load-bearing), `proven` (it is redundant),
    `timeout`, `error` or `untranslatable`."""
    detail: str = ""


def evaluate(ms: list[Mutant]) -> list[MutantVerdict]:
    """Every mutant's verdict: its own obligation and those of the rules reading `ok` (for a
    rule writing it), derived from the mutated declarations, level by level."""
    readers = consumers()
    jobs: list[tuple[int, list[Planned], World]] = []
    failed: dict[int, str] = {}
    for k, mu in enumerate(ms):
        for v in mu.variants:
            world = world_with(mu.rule, v)
            rules = ([v] if v is not None else []) + (list(readers) if writes_eligibility(mu.rule.decl) else [])
            try:
                planned = [p for r in rules for p in plan(r, world, widths=(8, 16, 32, 64))]
            except Untranslatable as exc:
                failed[k] = f"untranslatable: {exc}"
                continue
            if not planned:
                failed[k] = "no obligation at any dtype"
            jobs.append((k, planned, world))
    refuted: dict[int, str] = {}
    open_: dict[int, str] = {}
    for level in LEVELS:
        tasks: list[tuple[int, Task]] = []
        for k, planned, world in jobs:
            if k in refuted:
                continue
            tasks += [(k, Task(p.rule, p.inst, world)) for p in planned if p.width == level]
        for (k, _), verdict in zip(tasks, run([t for _, t in tasks]), strict=True):
            if verdict.status == "refuted":
                refuted.setdefault(k, str(verdict))
            elif verdict.status != "proven":
                open_.setdefault(k, str(verdict))
    out = []
    for k, mu in enumerate(ms):
        if k in refuted:
            out.append(MutantVerdict(mu, "refuted", refuted[k]))
        elif k in failed:
            out.append(MutantVerdict(mu, "error", failed[k]))
        elif k in open_:
            status = "timeout" if " timeout " in open_[k] else "error"
            out.append(MutantVerdict(mu, status, open_[k]))
        else:
            out.append(MutantVerdict(mu, "proven"))
    return out
