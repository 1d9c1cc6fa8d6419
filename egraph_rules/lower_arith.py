"""Lowering alternatives to PTO `arith` ops (`30-pto-codegen.md` §7, §8.1; `60-egraph-engine.md` §6.2).

Two rulesets add the proven forms, the only lowering choices that need a proof; extraction
then picks between the floor node and its alternative (op selection happens once, there):

- `lower_arith` (default mode): `a % c` is unioned with `Idx.remu(a, c)` (`arith.remui`) and
  `a // c` with `Idx.divu(a, c)` (`arith.divui`), when `c` is a positive literal and
  `nonneg(a)` (syntactic or interval proof at the operation's dtype).
- `lower_syntactic` (`--mode pypto`): `a % c` with `Idx.rems(a, c)` (`arith.remsi`) and
  `a // c` with `Idx.divs(a, c)` (`arith.divsi`) under the reference's syntactic proof alone
  (`nonneg_syn(a)`), exactly where the reference skips its correction.

Why they hold: with `a >= 0` and `c > 0` the floor result, the truncating `remsi` / `divsi`
and the unsigned `remui` / `divui` agree bit for bit (a non-negative signed value has the
same bit pattern as the unsigned one). The unions are idempotent, so neither ruleset can
cycle.

Every other lowering alternative is a fixed expansion of one node whose emitted op count is
its emission cost (`slotsat.egraph_rules.extract.emission_cost`) and whose exact op sequence is
rendered by `slotsat.lowering.floor_lowering`:

| Node | Emitted | Ops |
| --- | --- | --- |
| `a % c`, `c > 0` literal | `remsi`, `cmpi slt`, `addi`, `select` (`floormod.corrected.pos`) | 4 |
| `a % c`, `c < 0` literal | `remsi` + `cmpi sgt` + `addi` + `select` (`floormod.corrected.neg`) | 4 |
| `a % b`, runtime `b` | the eight-op sequence (`floormod.corrected.runtime`) | 8 |
| `a // b` | `arith.floordivsi` (ptoas expands it into four ops) | 4 |
| `remu` / `divu` / `rems` / `divs` | `arith.remui` / `arith.divui` / `arith.remsi` / `arith.divsi` | 1 |
| `cast(a, dt)` | `written.cast_op`: `index_cast(ui)`, `extsi` / `extui`, `trunci` | 1 |

Unsigned operations never enter the e-graph (they are opaque leaves) and lower to
`remui` / `divui` (`--mode pypto`: `remsi` / `divsi`), `05-decisions.md` item 5.
"""

from __future__ import annotations

from collections.abc import Iterable

from egglog import RewriteOrRule, i64, rule, ruleset, union

from slotsat.egraph_rules.intervals import nonneg
from slotsat.egraph_rules.lang import Dtype, Idx, rname
from slotsat.egraph_rules.syntactic import nonneg_syn

lower_arith = ruleset(name="lower_arith")
lower_syntactic = ruleset(name="lower_syntactic")


@lower_arith.register
def _proven(a: Idx, c: i64, dt: Dtype) -> Iterable[RewriteOrRule]:
    yield rule(
        e := a % Idx.const(c, dt),
        c > i64(0),
        nonneg(a),
        name=rname("lower_arith", "rewrite", "proven_remainder", "a % c -> remu(a, c)  [c > 0, nonneg(a)]"),
    ).then(union(e).with_(Idx.remu(a, Idx.const(c, dt))))
    yield rule(
        e := a // Idx.const(c, dt),
        c > i64(0),
        nonneg(a),
        name=rname("lower_arith", "rewrite", "proven_quotient", "a // c -> divu(a, c)  [c > 0, nonneg(a)]"),
    ).then(union(e).with_(Idx.divu(a, Idx.const(c, dt))))


@lower_syntactic.register
def _syntactic(a: Idx, c: i64, dt: Dtype) -> Iterable[RewriteOrRule]:
    yield rule(
        e := a % Idx.const(c, dt),
        c > i64(0),
        nonneg_syn(a),
        name=rname(
            "lower_syntactic", "rewrite", "syntactic_remainder", "a % c -> rems(a, c)  [c > 0, nonneg_syn(a)]"
        ),
    ).then(union(e).with_(Idx.rems(a, Idx.const(c, dt))))
    yield rule(
        e := a // Idx.const(c, dt),
        c > i64(0),
        nonneg_syn(a),
        name=rname(
            "lower_syntactic", "rewrite", "syntactic_quotient", "a // c -> divs(a, c)  [c > 0, nonneg_syn(a)]"
        ),
    ).then(union(e).with_(Idx.divs(a, Idx.const(c, dt))))
