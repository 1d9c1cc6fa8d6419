"""Interval (bounds) analysis: `lo` / `hi` lattices and the `nonneg` relation
(`60-egraph-engine.md` §5.3, `30-pto-codegen.md` §8.2, `05-decisions.md` item 7).

`lo(x)` and `hi(x)` are `BigInt` functions merged with `max` / `min`, so the tightest
proven bound survives and bound arithmetic never hits egglog's checked-`i64` panic. All
derived bounds are computed in the query. A bound is set on an operation **only where the
operation provably does not wrap at its dtype**: for `+`, `-`, `*` the exact range from the
operands' bounds must lie within `[wmin(dt), wmax(dt)]`, otherwise nothing is set. Hence
`i * 4611686018427387904` with `i` reaching 2 gets no bound, and an `INT32` cast of an
`INDEX` variable starting at 2**31 gets only the full `INT32` range.

Division semantics: `//` and `%` are floor operations; `BigInt` `/` and `%` truncate, so
the floor of `l / c` is spelled `(l - ((l % c + c) % c)) / c` (exact division). With a
positive literal divisor neither floor operation can wrap.

`nonneg(x)` holds when the syntactic proof holds or `lo(x) >= 0`. Bounds attach to
e-classes, so a fact proven through any equivalent form holds for all of them. The rules
only tighten lattices over a finite term set, so the ruleset cannot cycle.

Bounds of an induction variable hold inside its loop, which is the only place it occurs,
and only for an ascending loop (`ascending(l)`: a positive literal step): `lo = start` for
a literal start, `hi = stop - 1` for a literal stop, else `hi = INT64_MAX - 1` (`iv < stop
<= INT64_MAX`). A loop that does not ascend gets no bounds, and neither does a loop whose
literal bounds leave it empty (`start >= stop`, or a literal start of `INT64_MAX` under a
runtime stop): its body never runs, so any bound would hold, but contradictory ones
(`lo > hi`) would let sound rules union unequal values (`x` with `x - 2`), and an e-class
equal to its own shift keeps tightening `hi` forever. Every interval therefore has
`lo <= hi`.
"""

from __future__ import annotations

from collections.abc import Iterable

from egglog import BigInt, Fact, RewriteOrRule, String, eq, function, i64, relation, rule, ruleset, set_

from slotsat.egraph_rules.lang import Dtype, Idx, rname, width, wmax, wmin
from slotsat.egraph_rules.loops import Loop, ascending, loop_start, loop_stop, start_runtime, stop_runtime
from slotsat.egraph_rules.syntactic import nonneg_syn

INT64_MAX = (1 << 63) - 1


@function(merge=lambda old, new: old.max(new))
def lo(x: Idx) -> BigInt: ...


@function(merge=lambda old, new: old.min(new))
def hi(x: Idx) -> BigInt: ...


nonneg = relation("nonneg", Idx)
"""Syntactic or interval proof that the e-class is `>= 0`."""

intervals = ruleset(name="intervals")


def _nm(name: str, algebra: str, kind: str = "bound") -> str:
    return rname("intervals", kind, name, algebra)


def floor_div(a: BigInt, c: BigInt) -> BigInt:
    """floor(a / c) for c > 0 with truncating BigInt ops."""
    return (a - ((a % c) + c) % c) / c


@intervals.register
def _leaves(  # noqa: PLR0917
    lp: Loop, v: i64, dt: Dtype, s: i64, t: i64, n: String, mn: BigInt, mx: BigInt
) -> Iterable[RewriteOrRule]:
    yield rule(e := Idx.const(v, dt), name=_nm("iv_const", "const(v) in [v, v]")).then(
        set_(lo(e)).to(BigInt(v)), set_(hi(e)).to(BigInt(v))
    )
    yield rule(
        e := Idx.iv(lp),
        ascending(lp),
        eq(s).to(loop_start(lp)),
        eq(t).to(loop_stop(lp)),
        s < t,
        name=_nm("iv_lo", "iv(l) >= start  [ascending(l), literal start < literal stop]"),
    ).then(set_(lo(e)).to(BigInt(s)))
    yield rule(
        e := Idx.iv(lp),
        ascending(lp),
        eq(s).to(loop_start(lp)),
        stop_runtime(lp),
        s < i64(INT64_MAX),
        name=_nm(
            "iv_lo_runtime_stop", "iv(l) >= start  [ascending(l), literal start < INT64_MAX, runtime stop]"
        ),
    ).then(set_(lo(e)).to(BigInt(s)))
    yield rule(
        e := Idx.iv(lp),
        ascending(lp),
        eq(t).to(loop_stop(lp)),
        eq(s).to(loop_start(lp)),
        s < t,
        name=_nm("iv_hi_stop", "iv(l) <= stop - 1  [ascending(l), literal start < literal stop]"),
    ).then(set_(hi(e)).to(BigInt(t) - BigInt(1)))
    yield rule(
        e := Idx.iv(lp),
        ascending(lp),
        eq(t).to(loop_stop(lp)),
        start_runtime(lp),
        name=_nm(
            "iv_hi_stop_runtime_start", "iv(l) <= stop - 1  [ascending(l), runtime start, literal stop]"
        ),
    ).then(set_(hi(e)).to(BigInt(t) - BigInt(1)))
    yield rule(
        e := Idx.iv(lp),
        ascending(lp),
        stop_runtime(lp),
        name=_nm("iv_hi_runtime", "iv(l) <= INT64_MAX - 1  [ascending(l), runtime stop]"),
    ).then(set_(hi(e)).to(BigInt(INT64_MAX - 1)))
    yield rule(
        e := Idx.var(n, dt),
        eq(mn).to(wmin(dt)),
        eq(mx).to(wmax(dt)),
        name=_nm("iv_var", "var(n, dt) in [wmin(dt), wmax(dt)]"),
    ).then(set_(lo(e)).to(mn), set_(hi(e)).to(mx))


@intervals.register
def _arith(  # noqa: PLR0917
    a: Idx,
    b: Idx,
    la: BigInt,
    ha: BigInt,
    lb: BigInt,
    hb: BigInt,
    lr: BigInt,
    hr: BigInt,
    mn: BigInt,
    mx: BigInt,
    w: Dtype,
) -> Iterable[RewriteOrRule]:
    def bounds(x: Idx, lx: BigInt, hx: BigInt) -> tuple[Fact, Fact]:
        return eq(lx).to(lo(x)), eq(hx).to(hi(x))

    common = (*bounds(a, la, ha), *bounds(b, lb, hb))
    yield rule(
        e := a + b,
        *common,
        eq(w).to(width(e)),
        eq(mn).to(wmin(w)),
        eq(mx).to(wmax(w)),
        eq(lr).to(la + lb),
        eq(hr).to(ha + hb),
        lr >= mn,
        hr <= mx,
        name=_nm("iv_add", "a + b in [la + lb, ha + hb]  [no wrap at dt]"),
    ).then(set_(lo(e)).to(lr), set_(hi(e)).to(hr))
    yield rule(
        e := a - b,
        *common,
        eq(w).to(width(e)),
        eq(mn).to(wmin(w)),
        eq(mx).to(wmax(w)),
        eq(lr).to(la - hb),
        eq(hr).to(ha - lb),
        lr >= mn,
        hr <= mx,
        name=_nm("iv_sub", "a - b in [la - hb, ha - lb]  [no wrap at dt]"),
    ).then(set_(lo(e)).to(lr), set_(hi(e)).to(hr))
    p1, p2, p3, p4 = la * lb, la * hb, ha * lb, ha * hb
    yield rule(
        e := a * b,
        *common,
        eq(w).to(width(e)),
        eq(mn).to(wmin(w)),
        eq(mx).to(wmax(w)),
        eq(lr).to(p1.min(p2).min(p3.min(p4))),
        eq(hr).to(p1.max(p2).max(p3.max(p4))),
        lr >= mn,
        hr <= mx,
        name=_nm("iv_mul", "a * b in [min corners, max corners]  [no wrap at dt]"),
    ).then(set_(lo(e)).to(lr), set_(hi(e)).to(hr))


@intervals.register
def _division(  # noqa: PLR0917
    a: Idx, c: i64, dt: Dtype, la: BigInt, ha: BigInt, mn: BigInt, mx: BigInt
) -> Iterable[RewriteOrRule]:
    yield rule(
        e := a // Idx.const(c, dt),
        c > i64(0),
        eq(la).to(lo(a)),
        eq(ha).to(hi(a)),
        name=_nm("iv_floordiv", "a // c in [floor(la / c), floor(ha / c)]  [c > 0]"),
    ).then(set_(lo(e)).to(floor_div(la, BigInt(c))), set_(hi(e)).to(floor_div(ha, BigInt(c))))
    yield rule(
        e := a % Idx.const(c, dt),
        c > i64(0),
        name=_nm("iv_floormod", "a % c in [0, c - 1]  [c > 0]"),
    ).then(set_(lo(e)).to(BigInt(0)), set_(hi(e)).to(BigInt(c) - BigInt(1)))
    yield rule(
        e := Idx.cast(a, dt),
        eq(mn).to(wmin(dt)),
        eq(mx).to(wmax(dt)),
        name=_nm("iv_cast_full", "cast(a, dt) in [wmin(dt), wmax(dt)]"),
    ).then(set_(lo(e)).to(mn), set_(hi(e)).to(mx))
    yield rule(
        e := Idx.cast(a, dt),
        eq(mn).to(wmin(dt)),
        eq(mx).to(wmax(dt)),
        eq(la).to(lo(a)),
        eq(ha).to(hi(a)),
        la >= mn,
        ha <= mx,
        name=_nm("iv_cast_fits", "cast(a, dt) in [la, ha]  [a's bounds fit dt: the cast keeps the value]"),
    ).then(set_(lo(e)).to(la), set_(hi(e)).to(ha))


@intervals.register
def _nonneg(x: Idx, lx: BigInt) -> Iterable[RewriteOrRule]:
    yield rule(nonneg_syn(x), name=_nm("nonneg_from_syntactic", "nonneg_syn(x) -> x >= 0", "proof")).then(
        nonneg(x)
    )
    yield rule(
        eq(lx).to(lo(x)), lx >= BigInt(0), name=_nm("nonneg_from_lo", "lo(x) >= 0 -> x >= 0", "proof")
    ).then(nonneg(x))
