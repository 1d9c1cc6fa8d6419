"""Mutants of a rule: each guard conjunct dropped, each constant perturbed (STYLE.md, Tests 4).

A mutant is the rule's declaration with one change; its obligation is derived again from the
changed declaration (`tests/soundness/derive.py`), and the mutation test expects z3 to refute
it: then the dropped guard or the constant was load-bearing. A mutant that z3 cannot refute
names a guard the proof does not need; it must be listed in `ALLOWED` with the reason the
guard is there anyway (termination, the reference's behaviour, a zero divisor).

- `drop`: every fact of the query except its first when that is the matched term (the
  pattern itself) is a guard conjunct: comparisons, relations, bindings (`eq(s).to(c + d)`),
  term-existence guards. A fact that is the only binding of a variable the rule still uses
  makes the mutant no rule at all (egglog rejects an unbound variable): such a fact is
  load-bearing by construction, status `binds`, and needs no solving.
- `perturb`: every integer literal of the rule, outside reports and the eligibility
  lattice's written value, becomes `v - 1` and `v + 1` (a Boolean literal is negated); the
  literal is changed in the innermost call or fact holding it, everywhere that call occurs
  in the rule (so the matched term and the action's copy of it stay the same term). The
  constant is load-bearing when one of its perturbations is refuted. `Dtype` constants are
  types, checked by the typing of the derivation, not values.
- A rule that declines the eligibility lattice (`ok(l) := False`) only ever makes the
  premise of the rules reading `ok` (the `slotize` rotation) stronger, so dropping one of its
  guards (it then declines more) cannot be refuted. Its mutant is `delete`: the rule is
  removed and the obligations of the rules reading `ok` (`consumers`) are derived again
  without it. Its constants are perturbed only when `delete` is load-bearing: a perturbed
  decline still declines a subset of what some decline did, so when no decline of that
  kind is needed at all, no perturbation of it is either.

For every rule writing `ok`, the mutant's world (`derive.World`) holds the mutated rule in
place of the original, and the obligations of the rules reading `ok` are part of the
mutant's verdict, except for a variant z3 shows to decline at least what the original
declined (or to seed at most what it seeded, `narrows_eligibility`): `ok` is then only
stronger, and the consumers read it positively, so their obligations cannot break.

Each mutant's obligations are searched in turn until one is refuted: assignments with the
most distinct dtypes first (a dropped width guard shows only where two dtypes meet), then by
level (`LEVELS`: the fixed-dtype obligations, 8 bits, 64 bits (whose assignments mix 32- and
64-bit dtypes), 16, 32). A counterexample at `INT8` is one (`INT8` is a dtype of the
language) and costs least. The prover runs in `refute` mode (`tests/soundness/prover.py`),
which also tries the restricted bit-vector encoding, where any model is a genuine
counterexample.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass

import z3
from egglog import declarations as d

from tests.soundness import meaning as m
from tests.soundness.derive import Untranslatable, World, ok_queries
from tests.soundness.domains import I64_MAX, I64_MIN, BitVec, Unsupported
from tests.soundness.prover import Task, run_groups
from tests.soundness.rules import Rule, all_rules, show
from tests.soundness.suite import Planned, plan

# -- the reviewed allow-list -------------------------------------------------------------------

_ZERO = (
    "a zero divisor leaves both sides without a value, so `>= 0` would be as sound; `> 0` keeps `x // 0` out"
)
_PARITY = (
    "reference parity (PyPTO declines it, 20-lower-pipeline-to-slots.md §4); the rotation holds without it"
)
_MEMORY = "a memory-safety gate (§6, §8): the z3 model covers the slot index, not buffer aliasing or capacity"
_TYPED = "terms are well typed (lang's insertion contract): a binary operation's operands share its dtype"
_WIDTH = _TYPED + "; kept as the reference's node-by-node width check (30-pto-codegen.md §7.3)"
_LITERAL = "slotize reads the bound as a literal itself; the decline is the code the pass reports"
_NO_OP = "the rewrite is the identity there; the guard skips a no-op union"
_CHAIN = "termination: the exchange only joins a symbol x - d that exists (no i - 1, i - 2, ... chain)"
_MINUS_ONE = "c = -1 is a multiple of f only for f = +-1, where both sides are 0"
_EMPTY = "the empty-range guard (an empty loop gets no interval: lo > hi would feed the bound rules)"
_NOT_ASCENDING = "with start < stop a loop that does not ascend runs no iteration or stays at its start"
_FITS = "implied: the matched literal f is a literal of dt (inserted literals fit their dtype)"
_PAYS_PROVEN = (
    "where it pays: the identity holds for any operand; the distributed form is won only on proven ones"
)
_PAYS_WRAP = (
    "where it pays: the identity holds whether the sum wraps or not; a sum that cannot wrap needs no rule"
)
_POW2_ZERO = "f = 0 makes 2**62 % f fail in the query"
_ANY_K = "the identity holds for any divisor k != 0 (k = 0 makes c % k fail in the query)"

ALLOWED: dict[tuple[str, str], str] = {
    # the gates: declines z3's model of the rotation does not need
    ("gate_under_declined", "delete"): "reference parity (§7: a declined outer loop disqualifies inner ones)",
    ("gate_tile_space", "delete"): _MEMORY,
    ("gate_tile_valid_shape", "delete"): _MEMORY,
    ("gate_tile_phi", "delete"): _MEMORY,
    ("gate_tile_view", "delete"): _MEMORY,
    ("gate_capacity_size", "delete"): _MEMORY,
    ("gate_capacity", "delete"): _MEMORY,
    ("gate_no_candidates", "delete"): "a loop without candidates has no slot_of to rotate; it is the code",
    ("gate_stage_range", "delete"): _PARITY + " (F <= 16)",
    ("gate_runtime_step", "delete"): _LITERAL,
    ("gate_runtime_start", "delete"): _LITERAL,
    ("gate_stepped_runtime_stop", "delete"): _PARITY + " (L4)",
    ("gate_stop_overflow", "delete"): _PARITY + " (L4; iv < stop <= INT64_MAX keeps iv - start exact)",
    ("gate_negative_start", "perturb 0 in (?s < 0)"): (
        "start -1 cannot wrap iv - start (iv < stop <= INT64_MAX); the reference declines any negative start"
    ),
    (
        "gate_cross_core",
        "delete",
    ): "a cross-core exchange is about the other core's timing; the model covers the index",
    # analyses
    ("iv_lo", "drop ascending(?lp)"): _NOT_ASCENDING,
    ("iv_lo", "drop (?s < ?t)"): _EMPTY,
    (
        "iv_lo_runtime_stop",
        "drop stop_runtime(?lp)",
    ): "iv >= start for every ascending loop; a literal stop is iv_lo's",
    ("iv_lo_runtime_stop", "drop (?s < 9223372036854775807)"): _EMPTY
    + " (start INT64_MAX: iv < stop leaves none)",
    ("iv_lo_runtime_stop", "perturb 9223372036854775807 in (?s < 9223372036854775807)"): _EMPTY,
    ("iv_hi_stop", "drop ascending(?lp)"): _NOT_ASCENDING,
    ("iv_hi_stop", "drop (?s < ?t)"): _EMPTY,
    (
        "iv_hi_stop_runtime_start",
        "drop start_runtime(?lp)",
    ): "iv < stop for every ascending loop; a literal start is iv_hi_stop's",
    ("iv_hi_runtime", "drop stop_runtime(?lp)"): (
        "iv < stop <= INT64_MAX for every ascending loop; hi merges with min, the guard skips a looser fact"
    ),
    ("iv_floormod", "perturb 0 in (?c > 0)"): _ZERO,
    ("syn_counter", "perturb 0 in (?s >= 0)"): (
        "start -1: iv + 1 >= 0 cannot wrap (iv < stop); the reference's clause 3 asks start >= 0"
    ),
    ("syn_floordiv", "drop width(?a) == ?dt"): _WIDTH,
    ("syn_floordiv", "perturb 0 in (?c > 0)"): _ZERO,
    ("syn_floormod", "drop nonneg_syn(?a)"): (
        "a floor remainder by a positive literal is >= 0 for any a; the reference's clause 4 asks a proven"
    ),
    ("syn_floormod", "drop width(?a) == ?dt"): _WIDTH,
    ("syn_floormod", "perturb 0 in (?c > 0)"): _ZERO,
    # lowering and IR forms
    ("syntactic_remainder", "perturb 0 in (?c > 0)"): _ZERO,
    ("syntactic_quotient", "perturb 0 in (?c > 0)"): _ZERO,
    ("proven_remainder", "perturb 0 in (?c > 0)"): _ZERO,
    ("proven_quotient", "perturb 0 in (?c > 0)"): _ZERO,
    ("ir_mod_multiple", "drop (?f > 0)"): (
        "(x - c) % f == x % f for any divisor f | c when x - c cannot wrap (x, c >= 0); the spec's guard"
    ),
    ("ir_mod_multiple", "perturb 0 in (?f > 0)"): _ZERO,
    ("ir_mod_multiple", "perturb 0 in (?c >= 0)"): _MINUS_ONE,
    # emission normalization
    ("fold_floormod", "perturb 0 in (?b > 0)"): _ZERO,
    ("cast_elim", "drop (bits(?n) <= bits(?w))"): (
        "x fits n, so both casts keep its value whatever the widths; the spec's n < w (§6.2)"
    ),
    ("narrow_mod_widen", "drop width(?a) == ?n"): _TYPED + " (a % const(c, n) is an n-bit operation)",
    ("narrow_mod_widen", "perturb 0 in (?c > 0)"): _ZERO,
    ("narrow_div_widen", "drop width(?a) == ?n"): _TYPED + " (a // const(c, n) is an n-bit operation)",
    ("narrow_div_widen", "perturb 0 in (?c > 0)"): _ZERO,
    ("multiple_elim", "perturb 0 in (?f > 0)"): _ZERO,
    ("multiple_elim", "perturb 0 in (?c >= 0)"): _MINUS_ONE,
    ("mod_elim", "drop (?f > 0)"): "implied: f > hi(x) >= lo(x) >= 0",
    ("mod_elim", "perturb 0 in (?f > 0)"): _ZERO,
    ("floordiv_shift_add", "perturb 0 in (?k > 0)"): _ZERO,
    ("floordiv_shift_sub", "perturb 0 in (?k > 0)"): _ZERO,
    ("floormod_shift_add", "drop (?r != ?c)"): "r == c: " + _NO_OP,
    ("floormod_shift_add", "drop ((?lx + BigInt(?r)) >= ?mn)"): "r >= 0, so x + r cannot wrap below wmin",
    ("floormod_shift_add", "perturb 0 in (?f > 0)"): _ZERO,
    ("floormod_shift_sub", "drop (?c > 0)"): (
        "periodicity holds for any c under the no-wrap guards; c > 0 leaves x - 0 and x - (-c) alone"
    ),
    (
        "floormod_shift_sub",
        "drop ((?hx + (BigInt(0) - BigInt(?c))) <= ?mx)",
    ): "c > 0: x - c cannot wrap above wmax",
    ("floormod_shift_sub", "drop ((?lx + BigInt(?r)) >= ?mn)"): "r >= 0, so x + r cannot wrap below wmin",
    ("floormod_shift_sub", "perturb 0 in (?f > 0)"): _ZERO,
    ("floormod_shift_sub", "perturb 0 in (?c > 0)"): "see `drop (?c > 0)`: c = 0 is sound and useless",
    # power-of-two remainders: the identities hold for any operands (f divides 2**w)
    ("pow2_mod_add", "drop (?f <= imax(?dt))"): _FITS,
    ("pow2_mod_add", "drop width(?a) == ?dt"): _TYPED,
    ("pow2_mod_add", "drop nonneg(?a)"): _PAYS_PROVEN,
    ("pow2_mod_add", "drop nonneg(?b)"): _PAYS_PROVEN,
    ("pow2_mod_add", "drop ((?ha + ?hb) > ?mx)"): _PAYS_WRAP,
    ("pow2_mod_add", "perturb 0 in (?f > 0)"): _POW2_ZERO,
    ("pow2_mod_shift_add", "drop (?f <= imax(?dt))"): _FITS,
    (
        "pow2_mod_shift_add",
        "drop (?c < 0)",
    ): "the identity holds for any c; c < 0 leaves c >= 0 to pow2_mod_add",
    ("pow2_mod_shift_add", "drop nonneg(?x)"): _PAYS_PROVEN,
    ("pow2_mod_shift_add", "drop ((?ha + BigInt(?r)) > ?mx)"): _PAYS_WRAP,
    ("pow2_mod_shift_add", "perturb 0 in (?f > 0)"): _POW2_ZERO,
    ("pow2_mod_shift_add", "perturb 0 in (?c < 0)"): "see `drop (?c < 0)`",
    ("pow2_mod_shift_sub", "drop (?f > 0)"): (
        "a negative power of two divides 2**62 too, and the identity holds for it (z3 proves the mutant)"
    ),
    ("pow2_mod_shift_sub", "drop (?f <= imax(?dt))"): _FITS,
    ("pow2_mod_shift_sub", "drop (?c > 0)"): (
        "the identity holds for any c (z3 proves the mutant to 32 bits, 64 times out); c > 0: the sub form"
    ),
    ("pow2_mod_shift_sub", "drop nonneg(?x)"): _PAYS_PROVEN,
    ("pow2_mod_shift_sub", "drop ((?ha + BigInt(?r)) > ?mx)"): _PAYS_WRAP,
    ("pow2_mod_shift_sub", "perturb 0 in (?f > 0)"): _POW2_ZERO,
    ("pow2_mod_shift_sub", "perturb 0 in (?c > 0)"): "see `drop (?c > 0)`",
    # floor-div residue shifts: floor((y + q*k) / k) == floor(y / k) + q for any divisor k
    ("floordiv_residue_add", "drop (?k > 0)"): _ANY_K,
    ("floordiv_residue_add", "drop (?r != ?c)"): "r == c: " + _NO_OP,
    (
        "floordiv_residue_add",
        "drop (?r != 0)",
    ): "r == 0 (k | c) is floordiv_shift_add's case; sound either way",
    ("floordiv_residue_add", "drop ((?lx + BigInt(?r)) >= ?mn)"): "r >= 0, so x + r cannot wrap below wmin",
    ("floordiv_residue_add", "perturb 0 in (?k > 0)"): "k = 0 makes c % k fail in the query",
    ("floordiv_residue_add", "perturb 0 in (?r != 0)"): "see `drop (?r != 0)`",
    ("floordiv_residue_sub", "drop (?k > 0)"): _ANY_K,
    ("floordiv_residue_sub", "drop (?c > 0)"): "the identity holds for any c; c > 0 is the subtraction form",
    (
        "floordiv_residue_sub",
        "drop (?r != 0)",
    ): "r == 0 (k | c) is floordiv_shift_sub's case; sound either way",
    (
        "floordiv_residue_sub",
        "drop ((?hx + (BigInt(0) - BigInt(?c))) <= ?mx)",
    ): "c > 0: x - c cannot wrap above wmax",
    ("floordiv_residue_sub", "drop ((?lx + BigInt(?r)) >= ?mn)"): "r >= 0, so x + r cannot wrap below wmin",
    ("floordiv_residue_sub", "perturb 0 in (?k > 0)"): "k = 0 makes (-c) % k fail in the query",
    ("floordiv_residue_sub", "perturb 0 in (?c > 0)"): "see `drop (?c > 0)`",
    ("floordiv_residue_sub", "perturb 0 in (?r != 0)"): "see `drop (?r != 0)`",
    (
        "floordiv_unshift_add",
        "drop ((?lx + BigInt(?c)) >= ?mn)",
    ): "c = q*k > 0, so x + c cannot wrap below wmin",
    ("floordiv_unshift_add", "perturb 0 in (?k > 0)"): "k = 0: x // 0 has no value on either side",
    ("floordiv_unshift_add", "perturb 0 in (?q > 0)"): "q = 0: x // k + 0 -> (x + 0) // k, sound and useless",
    ("exchange_add_sub", "drop (?x - Idx.const(?d, ?dt))"): _CHAIN,
    ("exchange_add_sub", "drop (?c != ?d)"): "c == d: " + _NO_OP,
    ("exchange_sub_sub", "drop (?x - Idx.const(?d, ?dt))"): _CHAIN,
    ("exchange_sub_sub", "drop (?c != ?d)"): "c == d: " + _NO_OP,
    (
        "sign_add_neg",
        "drop (?c < 0)",
    ): "x + c == x - (-c) for every c; c < 0 makes it a normal form (termination)",
    ("sign_add_neg", "drop (?s >= imin(?dt))"): "s = -c > 0 under c < 0",
    ("sign_add_neg", "perturb 0 in (?c < 0)"): "see `drop (?c < 0)`",
}
"""(rule, mutant id) -> why the guard or constant is there although the proof does not need
it. Reviewed by hand; a key that names no current mutant fails the mutation test."""


# -- mutants -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mutant:
    rule: Rule
    """The original rule."""
    kind: str
    """`drop`, `perturb` or `delete`."""
    what: str
    """The dropped fact or the perturbed literal and its call (`show`), or `delete`."""
    variants: tuple[Rule | None, ...]
    """The mutated rule(s): one per perturbation direction; None for a deleted rule."""

    @property
    def id(self) -> str:
        return f"{self.kind} {self.what}" if self.kind != "delete" else "delete"

    @property
    def key(self) -> tuple[str, str]:
        return (self.rule.name, self.id)


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


def reads_positively(rule: Rule) -> bool:
    """Every `ok` of the query is read as `ok(l) == True`."""
    for f in rule.decl.body:
        for n in _nodes(f):
            if not _eligibility(n):
                continue
            if not (isinstance(f, d.EqDecl) and {f.left, f.right} == {n, d.LitDecl(True)}):
                return False
    return True


def narrows_eligibility(original: Rule, variant: Rule) -> bool:
    """z3 shows the variant declines at least what the original declined (a decline), or seeds
    at most what it seeded (a seed): `ok` is then only stronger."""
    kind = writes_eligibility(original.decl)
    if kind is None or writes_eligibility(variant.decl) != kind:
        return False
    try:
        q_orig, q_var, shared = ok_queries(original, variant, BitVec())
    except (Untranslatable, Unsupported):
        return False
    implied, implies = (q_var, q_orig) if kind == "decline" else (q_orig, q_var)
    s = z3.Solver()
    s.set("timeout", 1000)
    s.add(*shared, implies, z3.Not(implied))
    return s.check() == z3.unsat


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
        return dataclasses.replace(
            node, left=replace_all(node.left, old, new), right=replace_all(node.right, old, new)
        )
    if isinstance(node, d.ExprFactDecl | d.ExprActionDecl):
        return dataclasses.replace(node, typed_expr=replace_all(node.typed_expr, old, new))
    if isinstance(node, d.UnionDecl):
        return dataclasses.replace(
            node, lhs=replace_all(node.lhs, old, new), rhs=replace_all(node.rhs, old, new)
        )
    if isinstance(node, d.SetDecl):
        return dataclasses.replace(
            node, call=replace_all(node.call, old, new), rhs=replace_all(node.rhs, old, new)
        )
    return node


def _replace_in_rule(decl: d.RuleDecl, old: object, new: object) -> d.RuleDecl:
    return dataclasses.replace(
        decl,
        body=tuple(replace_all(f, old, new) for f in decl.body),  # type: ignore[misc]
        head=tuple(replace_all(a, old, new) for a in decl.head),  # type: ignore[misc]
    )


def is_pattern(f: d.FactDecl) -> bool:
    """The fact is a matched term (not a `Unit` relation or comparison)."""
    return isinstance(f, d.ExprFactDecl) and f.typed_expr.tp.ident.name != "Unit"


def _meaning_of(call: object) -> str:
    return m.FUNCTIONS.get(call.callable, m.Meaning("")).kind if isinstance(call, d.CallDecl) else ""


def _skip_literal(parent: object) -> bool:
    """Reports and the eligibility lattice's written value are not constants a guard computes
    with (turning a decline into a seed is what `delete` already covers, and a seed into a
    decline only declines more)."""
    if isinstance(parent, d.SetDecl) and _meaning_of(parent.call) in ("report", "eligible"):
        return True
    return isinstance(parent, d.CallDecl) and _meaning_of(parent) == "report"


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


# -- binding ----------------------------------------------------------------------------------


def _is_primitive(call: d.CallDecl) -> bool:
    """An egglog primitive (i64 / BigInt / Bool arithmetic, `!=`): it computes from bound
    arguments and binds none."""
    ref = call.callable
    ident = getattr(ref, "ident", None)
    return ident is not None and ident.module == "egglog.builtins"


def _var_set(node: object) -> set[str]:
    return {n.name for n in _nodes(node) if isinstance(n, d.UnboundVarDecl)}


def _table_vars(node: object, out: set[str]) -> None:
    """Variables in argument positions of non-primitive calls (a table lookup binds them)."""
    if isinstance(node, d.TypedExprDecl):
        _table_vars(node.expr, out)
    elif isinstance(node, d.CallDecl):
        table = not _is_primitive(node)
        for a in node.args:
            if table and isinstance(a.expr, d.UnboundVarDecl):
                out.add(a.expr.name)
            _table_vars(a.expr, out)
    elif isinstance(node, d.EqDecl):
        _table_vars(node.left, out)
        _table_vars(node.right, out)
    elif isinstance(node, d.ExprFactDecl):
        _table_vars(node.typed_expr, out)


def unbound(decl: d.RuleDecl) -> set[str]:
    """The variables of `decl` its query does not bind (egglog rejects such a rule): a
    variable is bound as an argument of a table (a constructor, a function, a relation), or
    by `eq` with a table call or with an expression of bound variables."""
    bound: set[str] = set()
    for f in decl.body:
        _table_vars(f, bound)
    changed = True
    while changed:
        changed = False
        for f in decl.body:
            if not isinstance(f, d.EqDecl):
                continue
            for var, other in ((f.left, f.right), (f.right, f.left)):
                if not isinstance(var, d.UnboundVarDecl) or var.name in bound:
                    continue
                table = isinstance(other, d.CallDecl) and not _is_primitive(other)
                if table or _var_set(other) <= bound:
                    bound.add(var.name)
                    changed = True
    used: set[str] = set()
    for x in (*decl.body, *decl.head):
        used |= _var_set(x)
    return used - bound


# -- enumeration --------------------------------------------------------------------------------


def _perturbations(rule: Rule) -> list[Mutant]:
    decl = rule.decl
    out: list[Mutant] = []
    seen: set[d.RuleDecl] = set()
    for parent, index, lit in _literal_sites(decl):
        if _skip_literal(parent):
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


def mutants(rule: Rule) -> list[Mutant]:
    decl = rule.decl
    out: list[Mutant] = []
    if writes_eligibility(decl) == "decline":
        out.append(Mutant(rule, "delete", "delete", (None,)))
        if (rule.name, "delete") in ALLOWED:
            return out  # no decline of this kind is needed: none of its perturbations is
        return out + _perturbations(rule)
    for k, f in enumerate(decl.body):
        if k == 0 and is_pattern(f):
            continue
        mutated = dataclasses.replace(decl, body=decl.body[:k] + decl.body[k + 1 :])
        out.append(Mutant(rule, "drop", show(f), (Rule(rule.ruleset, rule.name, mutated, rule.egg_name),)))
    return out + _perturbations(rule)


def all_mutants() -> list[Mutant]:
    return [mu for r in all_rules() for mu in mutants(r)]


# -- verdicts -------------------------------------------------------------------------------

LEVELS = ("fixed", "8", "64", "16", "32")
"""Widths tried in turn (see the module docstring)."""


@dataclass(frozen=True)
class MutantVerdict:
    mutant: Mutant
    status: str
    """`refuted` (the guard or constant is load-bearing), `binds` (the fact is the only
    binding of a variable: load-bearing by construction), `proven` (the proof does not need
    it), `timeout`, `error` or `untranslatable`."""
    detail: str = ""

    def __str__(self) -> str:
        extra = f": {self.detail}" if self.detail else ""
        return f"{self.mutant.rule.name}: {self.mutant.id}: {self.status}{extra}"


def evaluate(ms: list[Mutant]) -> list[MutantVerdict]:
    """Every mutant's verdict: its own obligation and those of the rules reading `ok` (for a
    rule writing it), derived from the mutated declarations, level by level (every variant at
    a level before the next level) until one is refuted."""
    readers = consumers()
    assert all(reads_positively(r) for r in readers), "a consumer reads `ok` negatively"
    groups: dict[int, list[Task]] = {}
    static: dict[int, tuple[str, str]] = {}
    for k, mu in enumerate(ms):
        for v in mu.variants:
            if v is not None and (free := unbound(v.decl)):
                static[k] = ("binds", f"the query no longer binds {', '.join(sorted(free))}")
                break
        if k in static:
            continue
        planned: list[tuple[Planned, World]] = []
        for v in mu.variants:
            world = world_with(mu.rule, v)
            narrows = v is not None and narrows_eligibility(mu.rule, v)
            rules = [v] if v is not None else []
            if writes_eligibility(mu.rule.decl) and not narrows:
                rules += readers
            try:
                planned += [(p, world) for r in rules for p in plan(r, world, widths=(8, 16, 32, 64))]
            except Untranslatable as exc:
                static[k] = ("untranslatable", str(exc))
                break
        if k in static:
            continue
        if not planned:
            static[k] = ("error", "no obligation at any dtype")
            continue
        order = sorted(
            planned, key=lambda pw: (-len({c for _, c in pw[0].inst.codes}), LEVELS.index(pw[0].width))
        )
        groups[k] = [Task(p.rule, p.inst, world, "refute") for p, world in order]
    keys = list(groups)
    verdicts = dict(
        zip(keys, run_groups([groups[k] for k in keys], lambda v: v.status == "refuted"), strict=True)
    )
    out = []
    for k, mu in enumerate(ms):
        if k in static:
            out.append(MutantVerdict(mu, *static[k]))
            continue
        vs = verdicts[k]
        if vs[-1].status == "refuted":
            out.append(MutantVerdict(mu, "refuted", str(vs[-1])))
        elif open_ := [v for v in vs if v.status != "proven"]:
            out.append(MutantVerdict(mu, open_[0].status, str(open_[0])))
        else:
            out.append(MutantVerdict(mu, "proven"))
    return out
