"""Slotization and the IR slot-index form (`20-lower-pipeline-to-slots.md` §4.2, §11 steps
3–5; `60-egraph-engine.md` §6.1, §9.2).

Ruleset `slotize` (runs after `gates` has saturated, so `ok(l) == True` is final): for every
candidate `t` of an eligible loop `l`, `slot_of(t)` is unioned with the canonical rotation
counter `((iv(l) - start) // step) % F` on the shared index language
(`slotsat.egraph_rules.lang.Idx`, every literal `INDEX`). The gates and the index language
read the same `Loop` and the same loop facts (`slotsat.egraph_rules.loops`), so the rule
only reads `loop_start`, `loop_step` and `stages`.

The schedule `SLOTS_FORMS` (`slotsat.egraph_rules.schedules`: `slotize`, then the width
analysis, the reference's syntactic non-negativity proof and `ir_forms`, saturated) applies
exactly the three value-preserving identities `x // 1 -> x`, `x - 0 -> x` and
`(x - c) % f -> x % f` under `c >= 0`, `f > 0`, `c % f == 0`, `nonneg_syn(x)`
(`slotsat.egraph_rules.normalize`). None of the three grows a term, so the schedule cannot
cycle.

One batched extraction (a single `Vec` root of every `slot_of(t)`,
`slotsat.egraph_rules.session.Session.extract`) with the IR costs (induction variables and
literals 0; `-`, `//`, `%` 1 each) then yields exactly one of the forms of §4.2, and the pass
writes it (`slot_expr` turns it into IR); `tests/slots/oracles.py` states the forms in
Python and the tests compare.
"""

from __future__ import annotations

from collections.abc import Iterable

from egglog import Bool, RewriteOrRule, eq, function, i64, rule, ruleset, union

from slotsat.core import ir
from slotsat.egraph_rules.calls import Call
from slotsat.egraph_rules.gates import Tile, candidate, ok, tile_ref
from slotsat.egraph_rules.lang import Dtype, Idx, rname
from slotsat.egraph_rules.loops import Loop, loop_start, loop_step, stages


@function(unextractable=True)
def slot_of(tile: Tile) -> Idx: ...


slotize = ruleset(name="slotize")

SYMBOLS: dict[str, object] = {"slot_of": slot_of}


def _k(value: i64) -> Idx:
    return Idx.const(value, Dtype.INDEX)


@slotize.register
def _rotation(t: Tile, lp: Loop, f: i64, s: i64, k: i64) -> Iterable[RewriteOrRule]:
    """slot_of(t) = ((iv - start) // step) % F for every candidate of an eligible loop."""
    yield rule(
        candidate(t, lp), eq(ok(lp)).to(Bool(True)),
        eq(stages(lp)).to(f), eq(loop_start(lp)).to(s), eq(loop_step(lp)).to(k),
        name=rname("slotize", "rewrite", "slotize_rotation", "slot_of(t) = ((iv - s) // step) % F  [ok(l)]"),
    ).then(union(slot_of(t)).with_(((Idx.iv(lp) - _k(s)) // _k(k)) % _k(f)))


def slot_root(tile: int) -> Call:
    """The extraction root `slot_of(Tile(tile))`."""
    return Call("slot_of", (tile_ref(tile),))


def slot_expr(term: Call, loop_vars: dict[int, ir.Var]) -> ir.Expr:
    """An extracted slot term as IR (`loop_vars`: loop key -> induction variable); anything
    outside the rotation's vocabulary is an internal error."""
    if term.fn == "const":
        value, dt = term.args
        assert isinstance(value, int), f"slot literal {term!r}"
        assert dt == Call("Dtype.INDEX"), f"slot literal not INDEX: {term!r}"
        return ir.ConstInt(value, ir.DType.INDEX)
    if term.fn == "iv":
        (loop,) = term.args
        assert isinstance(loop, Call)
        assert loop.fn == "Loop", f"induction variable of {loop!r}"
        (key,) = loop.args
        assert isinstance(key, int)
        return loop_vars[key]
    if term.fn not in ("sub", "floordiv", "floormod") or len(term.args) != 2:
        raise AssertionError(f"unexpected slot term {term!r}")
    a, b = term.args
    assert isinstance(a, Call)
    assert isinstance(b, Call)
    lhs, rhs, idx = slot_expr(a, loop_vars), slot_expr(b, loop_vars), ir.DType.INDEX
    if term.fn == "sub":
        return ir.Sub(lhs, rhs, idx)
    if term.fn == "floordiv":
        return ir.FloorDiv(lhs, rhs, idx)
    return ir.FloorMod(lhs, rhs, idx)
