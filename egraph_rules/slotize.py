"""Slotization and the IR slot-index form (`20-lower-pipeline-to-slots.md` §4.2, §11 steps
3–5; `60-egraph-engine.md` §6.1, §9.2).

Ruleset `slotize` (runs after `gates` has saturated, so `ok(l) == True` is final): for every
candidate `t` of an eligible loop `l`, `slot_of(t)` is unioned with the canonical rotation
counter `((iv(l) - start) // step) % F`.

Ruleset `slot_ir_forms` then applies exactly three value-preserving identities, guarded by
the reference's syntactic non-negativity proof (`slot_nonneg_syn`, the subset of
`30-pto-codegen.md` §7.2 that slot terms need; every literal here is `INDEX`):

| Rewrite | Guard |
| --- | --- |
| `x // 1 -> x` | — |
| `x - 0 -> x` | — |
| `(x - c) % f -> x % f` | `c >= 0`, `f > 0`, `c % f == 0`, `nonneg_syn(x)` |

The third holds in floor semantics because `x - c` and `x` differ by a multiple of `f`;
the guard keeps `x - c` from wrapping (`x >= 0`, `c >= 0`). None of the three grows a term,
so the ruleset cannot cycle.

One batched extraction (a single `Vec` root) with the IR costs (induction variables and
literals 0; `-`, `//`, `%` 1 each) then yields exactly one of the forms of §4.2, which
`slot_form` checks.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence

from egglog import (
    BaseExpr,
    Bool,
    EGraph,
    Expr,
    RewriteOrRule,
    Vec,
    eq,
    function,
    get_callable_args,
    get_callable_fn,
    i64,
    i64Like,
    method,
    relation,
    rewrite,
    rule,
    ruleset,
    union,
)

from egraph_rules.gates import GateLoop, GateVar, candidate, literal, loop_start, loop_step, ok, stages
from slotsat import ir

FORMS_CAP = int(os.environ.get("SLOTSAT_FORMS_CAP", "64"))
"""Iteration cap of the `SLOTS_FORMS` schedule (`60-egraph-engine.md` §8)."""


class SlotIdx(Expr):
    """An `INDEX` slot-index term."""

    @method(cost=0)
    @classmethod
    def lit(cls, value: i64Like) -> SlotIdx: ...

    @method(cost=0)
    @classmethod
    def iv(cls, loop: GateLoop) -> SlotIdx: ...

    @method(cost=1)
    def __sub__(self, other: SlotIdx) -> SlotIdx: ...

    @method(cost=1)
    def __floordiv__(self, other: SlotIdx) -> SlotIdx: ...

    @method(cost=1)
    def __mod__(self, other: SlotIdx) -> SlotIdx: ...


@function(unextractable=True)
def slot_of(tile: GateVar) -> SlotIdx: ...


slot_nonneg_syn = relation("slot_nonneg_syn", SlotIdx)

slotize = ruleset(name="slotize")
slot_syntactic = ruleset(name="slot_syntactic")
slot_ir_forms = ruleset(name="slot_ir_forms")


@slotize.register
def _rotation(t: GateVar, loop: GateLoop, f: i64, s: i64, k: i64) -> Iterable[RewriteOrRule]:
    """slot_of(t) = ((iv - start) // step) % F for every candidate of an eligible loop."""
    yield rule(
        candidate(t, loop), eq(ok(loop)).to(Bool(True)),
        eq(stages(loop)).to(f), eq(loop_start(loop)).to(s), eq(loop_step(loop)).to(k),
    ).then(union(slot_of(t)).with_(((SlotIdx.iv(loop) - SlotIdx.lit(s)) // SlotIdx.lit(k)) % SlotIdx.lit(f)))


@slot_syntactic.register
def _nonneg_syn(x: SlotIdx, loop: GateLoop, v: i64, s: i64, c: i64) -> Iterable[RewriteOrRule]:
    """The syntactic proof, one rule per clause (INDEX only)."""
    yield rule(e := SlotIdx.lit(v), v >= i64(0)).then(slot_nonneg_syn(e))
    yield rule(e := SlotIdx.iv(loop), eq(loop_start(loop)).to(s), s >= i64(0)).then(slot_nonneg_syn(e))
    yield rule(e := SlotIdx.iv(loop) - SlotIdx.lit(s), eq(loop_start(loop)).to(s), s >= i64(0)).then(
        slot_nonneg_syn(e))
    yield rule(e := x // SlotIdx.lit(c), slot_nonneg_syn(x), c > i64(0)).then(slot_nonneg_syn(e))
    yield rule(e := x % SlotIdx.lit(c), slot_nonneg_syn(x), c > i64(0)).then(slot_nonneg_syn(e))


@slot_ir_forms.register
def _identities(x: SlotIdx, c: i64, f: i64) -> Iterable[RewriteOrRule]:
    yield rewrite(x // SlotIdx.lit(1)).to(x)  # x // 1 -> x
    yield rewrite(x - SlotIdx.lit(0)).to(x)  # x - 0 -> x
    yield rule(
        e := (x - SlotIdx.lit(c)) % SlotIdx.lit(f),
        c >= i64(0), f > i64(0), eq(c % f).to(i64(0)), slot_nonneg_syn(x),
    ).then(union(e).with_(x % SlotIdx.lit(f)))  # (x - c) % f -> x % f  [c >= 0, f > 0, f | c, x >= 0]


def _bounded(egraph: EGraph, name: str, step: object) -> int:
    for k in range(1, FORMS_CAP + 1):
        report = egraph.run(step)  # type: ignore[call-overload]
        if not report.updated:
            return k
    raise RuntimeError(f"schedule {name} did not saturate within {FORMS_CAP} rounds")


def run_slot_forms(egraph: EGraph) -> None:
    """`SLOTS_FORMS`: `slotize.saturate()` then `(syntactic.saturate() + ir_forms).saturate()`."""
    _bounded(egraph, "SLOTS_FORMS/slotize", slotize)
    _bounded(egraph, "SLOTS_FORMS", slot_syntactic.saturate() + slot_ir_forms)


def extract_slot_terms(egraph: EGraph, tiles: Sequence[int],
                       loop_vars: dict[int, ir.Var]) -> dict[int, ir.Expr]:
    """One batched extraction of `slot_of(t)` for every tile id; terms converted to IR."""
    if not tiles:
        return {}
    root = egraph.extract(Vec[SlotIdx](*(slot_of(GateVar(t)) for t in tiles)))
    terms = get_callable_args(root)
    assert len(terms) == len(tiles), "batched slot extraction lost a root"
    return {t: _to_ir(term, loop_vars) for t, term in zip(tiles, terms, strict=True)}


def _int(x: BaseExpr) -> int:
    value = literal(x)
    assert isinstance(value, int), f"expected an i64 literal, got {x!r}"
    return value


def _to_ir(term: BaseExpr, loop_vars: dict[int, ir.Var]) -> ir.Expr:
    fn = get_callable_fn(term)
    args = get_callable_args(term)
    if fn == SlotIdx.lit:
        return ir.ConstInt(_int(args[0]), ir.DType.INDEX)
    if fn == SlotIdx.iv:
        (key,) = get_callable_args(args[0])
        return loop_vars[_int(key)]
    a, b = (_to_ir(x, loop_vars) for x in args)
    if fn == SlotIdx.__sub__:
        return ir.Sub(a, b, ir.DType.INDEX)
    if fn == SlotIdx.__floordiv__:
        return ir.FloorDiv(a, b, ir.DType.INDEX)
    if fn == SlotIdx.__mod__:
        return ir.FloorMod(a, b, ir.DType.INDEX)
    raise AssertionError(f"unexpected slot term {term!r}")


def slot_form(iv: ir.Var, start: int, step: int, stages_: int) -> ir.Expr:
    """The §4.2 form for a loop shape (the reference the extraction is checked against)."""
    idx = ir.DType.INDEX
    f = ir.ConstInt(stages_, idx)
    if step == 1:
        if start % stages_ == 0:
            return ir.FloorMod(iv, f, idx)
        return ir.FloorMod(ir.Sub(iv, ir.ConstInt(start, idx), idx), f, idx)
    base: ir.Expr = iv if start == 0 else ir.Sub(iv, ir.ConstInt(start, idx), idx)
    return ir.FloorMod(ir.FloorDiv(base, ir.ConstInt(step, idx), idx), f, idx)
