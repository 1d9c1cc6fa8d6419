"""The reference's syntactic non-negativity proof (`30-pto-codegen.md` §7.2, `60-egraph-engine.md` §5.2).

`nonneg_syn(x)` holds for exactly the clauses of the reference, one rule per clause:

1. a literal `>= 0` (literals are inserted reduced to their dtype, so it is representable);
2. the induction variable of an ascending loop (`ascending(l)`: a positive literal step,
   `slotsat.egraph_rules.loops`) whose start is a non-negative literal: the variable never
   drops below its start. The reference assumes every device loop ascends; codegen only
   accepts positive literal steps, and a loop `explore` is given with a negative or runtime
   step does not ascend, so its start proves nothing;
3. that variable minus its own start literal (the counter form; it cannot wrap because the
   variable never drops below a non-negative start, `05-decisions.md` item 8), same guard;
4. `a // c` and `a % c` with `a` proven, `c` a positive literal of the operation's dtype.

The dtype-width rule (§7.3) holds node by node: every clause checks the dtype of the
operation against its operand (`width(a) == dt`), `INDEX` and `INT64` are distinct dtypes,
and no clause accepts a `Cast`, an `Add` or a `Mul`, whose emitted arithmetic may wrap.
Division semantics: `//` and `%` are floor operations; with `a >= 0` and `c > 0` they
equal the truncating `divsi` / `remsi` bit for bit. The rules only add facts, so the
ruleset cannot cycle. This ruleset is the only statement of the proof outside the tests
(`tests/egraph/oracles.py` holds a plain-Python oracle of the same clauses); `--mode pypto`
reads it through `lower_arith.lower_syntactic`.
"""

from __future__ import annotations

from collections.abc import Iterable

from egglog import RewriteOrRule, eq, i64, relation, rule, ruleset

from slotsat.egraph_rules.lang import Dtype, Idx, rname, width
from slotsat.egraph_rules.loops import Loop, ascending, loop_start

nonneg_syn = relation("nonneg_syn", Idx)
"""The reference's syntactic proof holds for (some term of) this e-class."""

nonneg_syntactic = ruleset(name="nonneg_syntactic")
syntactic = nonneg_syntactic


def _nm(name: str, algebra: str) -> str:
    return rname("nonneg_syntactic", "proof", name, algebra)


@nonneg_syntactic.register
def _clauses(a: Idx, lp: Loop, v: i64, s: i64, c: i64, dt: Dtype) -> Iterable[RewriteOrRule]:  # noqa: PLR0917
    yield rule(e := Idx.const(v, dt), v >= i64(0), name=_nm("syn_const", "const(v) >= 0  [v >= 0]")).then(
        nonneg_syn(e)
    )
    yield rule(
        e := Idx.iv(lp),
        ascending(lp),
        eq(s).to(loop_start(lp)),
        s >= i64(0),
        name=_nm("syn_iv", "iv(l) >= 0  [ascending(l), start(l) = s >= 0 literal]"),
    ).then(nonneg_syn(e))
    yield rule(
        e := Idx.iv(lp) - Idx.const(s, Dtype.INDEX),
        ascending(lp),
        eq(s).to(loop_start(lp)),
        s >= i64(0),
        name=_nm("syn_counter", "iv(l) - s >= 0  [ascending(l), start(l) = s >= 0 literal]"),
    ).then(nonneg_syn(e))
    yield rule(
        e := a // Idx.const(c, dt),
        nonneg_syn(a),
        eq(width(a)).to(dt),
        c > i64(0),
        name=_nm("syn_floordiv", "a // c >= 0  [a >= 0 proven at dt, 0 < c literal of dt]"),
    ).then(nonneg_syn(e))
    yield rule(
        e := a % Idx.const(c, dt),
        nonneg_syn(a),
        eq(width(a)).to(dt),
        c > i64(0),
        name=_nm("syn_floormod", "a % c >= 0  [a >= 0 proven at dt, 0 < c literal of dt]"),
    ).then(nonneg_syn(e))
