"""Lowering alternatives to PTO `arith` ops (`30-pto-codegen.md` §7, §8.1; `60-egraph-engine.md` §6.2).

The ruleset `lower_arith` adds the proven forms, the only lowering choice that needs a
proof:

- proven remainder: `a % c` is unioned with `Idx.remu(a, c)` (`arith.remui`);
- proven quotient: `a // c` is unioned with `Idx.divu(a, c)` (`arith.divui`);

both when `c` is a positive literal and `nonneg(a)` (syntactic or interval proof at the
operation's dtype). In that domain the floor result, the truncating `remsi` / `divsi` and
the unsigned `remui` / `divui` agree bit for bit (a non-negative signed value has the same
bit pattern as the unsigned one). The unions are idempotent, so the ruleset cannot cycle.

Every other lowering alternative is a fixed expansion of one node whose emitted op count is
its emission cost (`slotsat.egraph_rules.extract.emission_cost`) and whose exact op sequence is
rendered by `slotsat.lowering.floor_lowering`:

| Node | Emitted | Ops |
| --- | --- | --- |
| `a % c`, `c > 0` literal | `remsi`, `cmpi slt`, `addi`, `select` (`floormod.corrected.pos`) | 4 |
| `a % c`, `c < 0` literal | `remsi` + `cmpi sgt` + `addi` + `select` (`floormod.corrected.neg`) | 4 |
| `a % b`, runtime `b` | the eight-op sequence (`floormod.corrected.runtime`) | 8 |
| `a // b` | `arith.floordivsi` (ptoas expands it into four ops) | 4 |
| `remu` / `divu` | `arith.remui` / `arith.divui` | 1 |
| `cast(a, dt)` | `written.cast_op`: `index_cast(ui)`, `extsi` / `extui`, `trunci` | 1 |

Unsigned operations never enter the e-graph (they are opaque leaves) and lower to
`remui` / `divui` (`--mode pypto`: `remsi` / `divsi`), `05-decisions.md` item 5.
"""

from __future__ import annotations

from collections.abc import Iterable

from egglog import RewriteOrRule, i64, rule, ruleset, union

from slotsat.egraph_rules.intervals import nonneg
from slotsat.egraph_rules.lang import Dtype, Idx, rname

lower_arith = ruleset(name="lower_arith")


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
