"""Every rule of every ruleset of `slotsat.egraph_rules`, read from the ruleset objects.

`all_rules()` reads `slotsat.egraph_rules.schedules.RULESETS` (every ruleset of the
languages, by its egglog name), materializes each ruleset's rule generators
(`Ruleset.__egg_decls__`) and returns one `Rule` per rule declaration
(`egglog.declarations.RuleDecl`, the ruleset's entry of `Declarations._rulesets`: the same in
egglog 13.2 and 14; a `rewrite` / `birewrite` is turned into the equivalent rule with a union).
Nothing here lists rules by hand: a rule added to any ruleset appears here, and the soundness
suite derives its obligation. `module_rulesets()` finds every module-level `Ruleset` of the
package, so a test can show that `RULESETS` misses none.

A rule's `name` is the `name=` it was registered with; an unnamed rule (the gates, slotize)
is named `<ruleset>/<tag>` after the first string literal of its action (a decline code) or
the function its last action writes, with `#2`, `#3` for repeats.

`show()` prints a declaration in egglog-like text (`?x` for pattern variables); mutation ids
and failure messages use it.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from egglog import Ruleset
from egglog import declarations as d

import slotsat.egraph_rules
from slotsat.egraph_rules.schedules import RULESETS


@dataclass(frozen=True)
class Rule:
    ruleset: str
    """The ruleset's egglog name (`slot_forms`, `gates`, ...)."""
    name: str
    decl: d.RuleDecl
    egg_name: str | None
    """The `name=` egglog reports matches under (None for an unnamed rule)."""


def module_rulesets() -> dict[str, Ruleset]:
    """Every module-level `Ruleset` of `slotsat.egraph_rules`, by egglog name (aliases such as
    `normalize = slot_forms` count once)."""
    pkg = slotsat.egraph_rules
    found: dict[str, Ruleset] = {}
    for info in pkgutil.iter_modules(pkg.__path__):
        module = importlib.import_module(f"{pkg.__name__}.{info.name}")
        for value in vars(module).values():
            if isinstance(value, Ruleset):
                found.setdefault(value.__egg_ident__.name, value)
    return found


@cache
def all_rulesets() -> tuple[tuple[str, Ruleset], ...]:
    """(egglog name, ruleset) for every ruleset of `schedules.RULESETS`."""
    return tuple(sorted(RULESETS.items()))


def _as_rule(decl: d.RewriteOrRuleDecl) -> d.RuleDecl:
    if isinstance(decl, d.RuleDecl):
        return decl
    if isinstance(decl, d.RewriteDecl | d.BiRewriteDecl):
        lhs = d.TypedExprDecl(decl.tp, decl.lhs)
        return d.RuleDecl(
            (d.UnionDecl(decl.tp, decl.lhs, decl.rhs),), (d.ExprFactDecl(lhs), *decl.conditions), None
        )
    raise TypeError(f"unsupported rule declaration {type(decl).__name__}")


def ruleset_decls(rs: Ruleset) -> list[d.RuleDecl]:
    """The rule declarations of one ruleset (its deferred generators run first)."""
    entry = rs.__egg_decls__._rulesets[rs.__egg_ident__]
    if not isinstance(entry, d.RulesetDecl):
        raise TypeError(f"{rs.__egg_ident__.name} is a combined ruleset")
    return [_as_rule(r) for r in entry.rules]


def _tag(rule: d.RuleDecl) -> str:
    for action in rule.head:
        for lit in _literals(action):
            if isinstance(lit.value, str):
                return lit.value
    last = rule.head[-1]
    if isinstance(last, d.UnionDecl):
        return callable_name(last.lhs) if isinstance(last.lhs, d.CallDecl) else "union"
    if isinstance(last, d.SetDecl):
        return callable_name(last.call)
    if isinstance(last, d.ExprActionDecl) and isinstance(last.typed_expr.expr, d.CallDecl):
        return callable_name(last.typed_expr.expr)
    return type(last).__name__


@cache
def all_rules() -> tuple[Rule, ...]:
    rules: list[Rule] = []
    for short, rs in all_rulesets():
        seen: dict[str, int] = {}
        for decl in ruleset_decls(rs):
            if decl.name is not None:
                name = decl.name
            else:
                tag = f"{short}/{_tag(decl)}"
                seen[tag] = seen.get(tag, 0) + 1
                name = tag if seen[tag] == 1 else f"{tag}#{seen[tag]}"
            rules.append(Rule(short, name, decl, decl.name))
    names = [r.name for r in rules]
    dupes = sorted({n for n in names if names.count(n) > 1})
    assert not dupes, f"rule names used twice: {dupes}"
    return tuple(rules)


def rule_by_name(name: str) -> Rule:
    for r in all_rules():
        if r.name == name:
            return r
    raise KeyError(name)


# --------------------------------------------------------------------------------------
# reading declarations


def callable_name(call: d.CallDecl) -> str:
    ref = call.callable
    if isinstance(ref, d.MethodRef | d.ClassMethodRef):
        return f"{ref.ident.name}.{ref.method_name}"
    if isinstance(ref, d.FunctionRef | d.InitRef | d.ConstantRef):
        return ref.ident.name
    return type(ref).__name__


def _walk(node: object) -> Iterator[object]:
    yield node
    if isinstance(node, d.TypedExprDecl):
        yield from _walk(node.expr)
    elif isinstance(node, d.CallDecl):
        for a in node.args:
            yield from _walk(a)
    elif isinstance(node, d.EqDecl):
        yield from _walk(node.left)
        yield from _walk(node.right)
    elif isinstance(node, d.ExprFactDecl | d.ExprActionDecl):
        yield from _walk(node.typed_expr)
    elif isinstance(node, d.UnionDecl):
        yield from _walk(node.lhs)
        yield from _walk(node.rhs)
    elif isinstance(node, d.SetDecl):
        yield from _walk(node.call)
        yield from _walk(node.rhs)


def nodes(node: object) -> Iterator[object]:
    """Every node of a declaration (a rule, a fact, an action, an expression), depth first."""
    if isinstance(node, d.RuleDecl):
        for x in (*node.body, *node.head):
            yield from _walk(x)
        return
    yield from _walk(node)


def _literals(node: object) -> Iterator[d.LitDecl]:
    for n in _walk(node):
        if isinstance(n, d.LitDecl):
            yield n


_OPS = {
    "__add__": "+",
    "__sub__": "-",
    "__mul__": "*",
    "__floordiv__": "//",
    "__truediv__": "/",
    "__mod__": "%",
    "__ge__": ">=",
    "__gt__": ">",
    "__le__": "<=",
    "__lt__": "<",
    "__lshift__": "<<",
}


def show(node: object) -> str:
    """egglog-like text of a declaration node (a fact, an action, an expression)."""
    if isinstance(node, d.TypedExprDecl):
        return show(node.expr)
    if isinstance(node, d.UnboundVarDecl):
        return f"?{node.name}"
    if isinstance(node, d.LitDecl):
        return repr(node.value)
    if isinstance(node, d.CallDecl):
        ref = node.callable
        args = [show(a) for a in node.args]
        if isinstance(ref, d.MethodRef) and ref.method_name in _OPS and len(args) == 2:
            return f"({args[0]} {_OPS[ref.method_name]} {args[1]})"
        if isinstance(ref, d.FunctionRef) and ref.ident.name == "!=":
            return f"({args[0]} != {args[1]})"
        if isinstance(ref, d.MethodRef):
            return f"{args[0]}.{ref.method_name}({', '.join(args[1:])})"
        return f"{callable_name(node)}({', '.join(args)})"
    if isinstance(node, d.EqDecl):
        return f"{show(node.left)} == {show(node.right)}"
    if isinstance(node, d.ExprFactDecl | d.ExprActionDecl):
        return show(node.typed_expr)
    if isinstance(node, d.UnionDecl):
        return f"union {show(node.lhs)} := {show(node.rhs)}"
    if isinstance(node, d.SetDecl):
        return f"set {show(node.call)} := {show(node.rhs)}"
    if isinstance(node, d.RuleDecl):
        body = ", ".join(show(f) for f in node.body)
        head = "; ".join(show(a) for a in node.head)
        return f"rule({body}) => {head}"
    return type(node).__name__
