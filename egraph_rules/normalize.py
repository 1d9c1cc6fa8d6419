"""Value-preserving rewrites of index expressions (`60-egraph-engine.md` §6).

Two rulesets:

- `slot_forms` (alias `normalize`): the emission normalization of §6.2 (with the floor-div
  residue shift, which moves a literal of a floor-div's dividend into `[0, k)` so that
  `(i - 1) // 4` over `i >= 0` becomes `(i + 3) // 4 - 1`, a quotient of a non-negative
  dividend), which reaches the
  equal forms of the rotation counter `((iv - start) // step) % F` — `iv % F`,
  `(iv - start) % F`, `(iv + k) % F` with `k = (-start) mod F`, `iv // step % F` — and
  rewrites next- and previous-iteration slots (`((iv + step) - start) // step % F`) onto the
  same symbol `(iv - start) // step` plus a constant. One family goes beyond §6.2: remainders
  by a power of two distribute over a sum that may wrap (`(i + j) % 2` with `i` under a
  runtime stop becomes `((i % 2) + (j % 2)) % 2`, every remainder proven).
- `ir_forms`: the three IR rewrites of the slots pass (`20-lower-pipeline-to-slots.md` §11
  step 4).

Semantics: `+ - *` wrap at the dtype (two's complement), so ring identities (reassociation
of literals, the sign normal form `x + c -> x - (-c)`, the exchange of two literal offsets,
`x + 0 -> x`) hold
modulo `2**w` and need no guard beyond the combined literal being representable at the
dtype. `//` and `%` are floor operations; every rule that involves one is guarded by a
positive literal divisor and by interval facts that the dividends cannot wrap (`fits`:
`lo(x) + c >= wmin(dt)` and `hi(x) + c <= wmax(dt)`), because a wrapped dividend differs
from the exact one by `2**w`, which is not a multiple of the divisor. Derived literals are
computed in the query, never in an action: egglog's `i64` is checked, and an overflow in a
query is a silent non-match (the conservative outcome). egglog's `/` and `%` truncate, so
a floor remainder is spelled `((c % f) + f) % f`.

Why this cannot cycle: reassociation and the sign normal form strictly reduce the number of
literal operands or make a negative literal positive; the residue shifts leave a literal in
`[0, k)` (or `[0, f)`), where they do not match again; the exchange only permutes two
literal offsets and only onto a symbol `x - d` that already exists (it creates no e-class,
so it cannot build an `i - 1, i - 2, ...` chain); the power-of-two rules fire only on a
dividend whose exact range exceeds the width, and their own dividends are below `2f`; the
shifts move a literal
out of a division or into `[0, f)`; eliminations and unions are idempotent. No
commutativity or associativity of non-literal operands. The iteration cap of the schedules
(`slotsat.egraph_rules.schedules`) backs this up.
"""

from __future__ import annotations

from collections.abc import Iterable

from egglog import BigInt, Fact, RewriteOrRule, Unit, eq, i64, ne, rule, ruleset, union

from slotsat.egraph_rules.intervals import hi, lo, nonneg
from slotsat.egraph_rules.lang import Dtype, Idx, bits, imax, imin, rname, width, wmax, wmin
from slotsat.egraph_rules.syntactic import nonneg_syn

FactLike = Fact | Unit

slot_forms = ruleset(name="slot_forms")
normalize = slot_forms
ir_forms = ruleset(name="ir_forms")


def _nm(name: str, algebra: str) -> str:
    return rname("slot_forms", "rewrite", name, algebra)


def K(value: i64 | int, dt: Dtype) -> Idx:
    return Idx.const(value, dt)


def floor_mod(c: i64, f: i64) -> i64:
    """The floor remainder of `c` by `f > 0` with egglog's truncating `%`."""
    return ((c % f) + f) % f


@slot_forms.register
def _reassociation(x: Idx, c: i64, d: i64, s: i64, dt: Dtype) -> Iterable[RewriteOrRule]:
    def fits(v: i64) -> tuple[FactLike, FactLike]:
        return v >= imin(dt), v <= imax(dt)

    yield rule(
        e := (x + K(c, dt)) + K(d, dt),
        eq(s).to(c + d),
        *fits(s),
        name=_nm("reassoc_add_add", "(x + c) + d -> x + (c + d)  [c + d fits]"),
    ).then(union(e).with_(x + K(s, dt)))
    yield rule(
        e := (x + K(c, dt)) - K(d, dt),
        eq(s).to(c - d),
        *fits(s),
        name=_nm("reassoc_add_sub", "(x + c) - d -> x + (c - d)  [c - d fits]"),
    ).then(union(e).with_(x + K(s, dt)))
    yield rule(
        e := (x - K(c, dt)) + K(d, dt),
        eq(s).to(d - c),
        *fits(s),
        name=_nm("reassoc_sub_add", "(x - c) + d -> x + (d - c)  [d - c fits]"),
    ).then(union(e).with_(x + K(s, dt)))
    yield rule(
        e := (x - K(c, dt)) - K(d, dt),
        eq(s).to(c + d),
        *fits(s),
        name=_nm("reassoc_sub_sub", "(x - c) - d -> x - (c + d)  [c + d fits]"),
    ).then(union(e).with_(x - K(s, dt)))
    yield rule(
        e := (x + K(c, dt)) - K(d, dt),
        x - K(d, dt),
        ne(c).to(d),
        name=_nm("exchange_add_sub", "(x + c) - d -> (x - d) + c  [c != d, x - d already a term]"),
    ).then(union(e).with_((x - K(d, dt)) + K(c, dt)))
    yield rule(
        e := (x - K(c, dt)) - K(d, dt),
        x - K(d, dt),
        ne(c).to(d),
        name=_nm("exchange_sub_sub", "(x - c) - d -> (x - d) - c  [c != d, x - d already a term]"),
    ).then(union(e).with_((x - K(d, dt)) - K(c, dt)))
    yield rule(
        e := x + K(c, dt),
        c < i64(0),
        eq(s).to(i64(0) - c),
        *fits(s),
        name=_nm("sign_add_neg", "x + c -> x - (-c)  [c < 0, -c fits]"),
    ).then(union(e).with_(x - K(s, dt)))


@slot_forms.register
def _identities(x: Idx, dt: Dtype) -> Iterable[RewriteOrRule]:
    yield rule(e := x + K(0, dt), name=_nm("id_add_zero", "x + 0 -> x")).then(union(e).with_(x))
    # reassociation reaches x + 0 from (x + c) - c; no rule builds x - 0, x * 1 or x // 1, and
    # the source never holds them on the corpus (x // 1 folds before insertion, §7.5)


@slot_forms.register
def _shifts(  # noqa: PLR0917
    x: Idx, c: i64, k: i64, f: i64, q: i64, r: i64, dt: Dtype, lx: BigInt, hx: BigInt, mn: BigInt, mx: BigInt
) -> Iterable[RewriteOrRule]:
    def bounded(*facts: FactLike) -> tuple[FactLike, ...]:
        return (eq(lx).to(lo(x)), eq(hx).to(hi(x)), eq(mn).to(wmin(dt)), eq(mx).to(wmax(dt)), *facts)

    def shifted_fits(delta: BigInt) -> tuple[FactLike, FactLike]:
        return lx + delta >= mn, hx + delta <= mx

    yield rule(
        e := (x + K(c, dt)) // K(k, dt),
        *bounded(k > i64(0), eq(c % k).to(i64(0)), eq(q).to(c / k)),
        *shifted_fits(BigInt(c)),
        name=_nm("floordiv_shift_add", "(x + c) // k -> x // k + c / k  [k > 0, k | c, x + c does not wrap]"),
    ).then(union(e).with_((x // K(k, dt)) + K(q, dt)))
    yield rule(
        e := (x - K(c, dt)) // K(k, dt),
        *bounded(k > i64(0), eq(c % k).to(i64(0)), eq(q).to(c / k)),
        *shifted_fits(BigInt(0) - BigInt(c)),
        name=_nm("floordiv_shift_sub", "(x - c) // k -> x // k - c / k  [k > 0, k | c, x - c does not wrap]"),
    ).then(union(e).with_((x // K(k, dt)) - K(q, dt)))
    yield rule(
        e := (x + K(c, dt)) // K(k, dt),
        *bounded(k > i64(0), eq(r).to(floor_mod(c, k)), ne(r).to(c), ne(r).to(i64(0))),
        eq(q).to((c - r) / k),
        *shifted_fits(BigInt(c)),
        *shifted_fits(BigInt(r)),
        name=_nm(
            "floordiv_residue_add",
            "(x + c) // k -> (x + c mod k) // k + (c - c mod k) / k  "
            "[k > 0, c outside [0, k), k does not divide c, neither sum wraps]",
        ),
    ).then(union(e).with_((x + K(r, dt)) // K(k, dt) + K(q, dt)))
    # (x + c) // k -> (x + r) // k + q  with c = q*k + r, 0 <= r < k: floor((x + r + q*k) / k)
    yield rule(
        e := (x - K(c, dt)) // K(k, dt),
        *bounded(k > i64(0), c > i64(0), eq(r).to(floor_mod(i64(0) - c, k)), ne(r).to(i64(0))),
        eq(q).to((c + r) / k),
        *shifted_fits(BigInt(0) - BigInt(c)),
        *shifted_fits(BigInt(r)),
        name=_nm(
            "floordiv_residue_sub",
            "(x - c) // k -> (x + (-c) mod k) // k - (c + (-c) mod k) / k  "
            "[k > 0, c > 0, k does not divide c, neither x - c nor x + (-c) mod k wraps]",
        ),
    ).then(union(e).with_((x + K(r, dt)) // K(k, dt) - K(q, dt)))
    # (x - c) // k -> (x + r) // k - q  with -c = r - q*k, 0 < r < k (so ((k - 1) // 4) gets a
    # dividend k + 3 that is non-negative wherever k is)
    yield rule(
        e := (x // K(k, dt)) + K(q, dt),
        *bounded(k > i64(0), q > i64(0), eq(c).to(q * k), c <= imax(dt)),
        *shifted_fits(BigInt(c)),
        name=_nm(
            "floordiv_unshift_add",
            "x // k + q -> (x + q*k) // k  [k > 0, q > 0, q*k computed in the query and a literal of dt, "
            "x + q*k does not wrap]",
        ),
    ).then(union(e).with_((x + K(c, dt)) // K(k, dt)))
    # The converse of floordiv_shift_add: a literal added to a quotient moves into its dividend,
    # so ((k + 3) // 4 + 1) % 2 (the residue shift's form of ((k - 1) // 4) % 2) also reads
    # ((k + 7) // 4) % 2, one add fewer. It creates one dividend x + q*k per quotient-plus-literal
    # term the other rules made, and floordiv_shift_add maps it straight back: no chain.
    yield rule(
        e := (x + K(c, dt)) % K(f, dt),
        *bounded(f > i64(0), eq(r).to(floor_mod(c, f)), ne(r).to(c)),
        *shifted_fits(BigInt(c)),
        *shifted_fits(BigInt(r)),
        name=_nm(
            "floormod_shift_add",
            "(x + c) % f -> (x + c mod f) % f  [f > 0, c outside [0, f), neither sum wraps]",
        ),
    ).then(union(e).with_((x + K(r, dt)) % K(f, dt)))
    yield rule(
        e := (x - K(c, dt)) % K(f, dt),
        *bounded(f > i64(0), c > i64(0), eq(r).to(floor_mod(i64(0) - c, f))),
        *shifted_fits(BigInt(0) - BigInt(c)),
        *shifted_fits(BigInt(r)),
        name=_nm(
            "floormod_shift_sub",
            "(x - c) % f -> (x + (-c) mod f) % f  [f > 0, c > 0, neither x - c nor x + (-c mod f) wraps]",
        ),
    ).then(union(e).with_((x + K(r, dt)) % K(f, dt)))


POW2_PROBE = 1 << 62
"""`f > 0` divides `2**62` exactly when `f` is a power of two of at most `2**62`; with
`f <= imax(dt)` such an `f` also divides `2**w` for the dtype's width `w` (the only query
spelling of "a power of two" that needs nothing beyond `i64`'s `%`)."""


@slot_forms.register
def _power_of_two(  # noqa: PLR0917
    a: Idx, b: Idx, x: Idx, c: i64, f: i64, r: i64, dt: Dtype, ha: BigInt, hb: BigInt, mx: BigInt
) -> Iterable[RewriteOrRule]:
    """Remainders by a power of two `f` where a sum may wrap.

    A `w`-bit sum is the exact sum minus a multiple of `2**w`, and `f` divides `2**w`, so its
    floor remainder by `f` is the exact sum's: `(a + b) % f == ((a % f) + (b % f)) % f` for
    all `a` and `b`, wrapped or not (exact modulo `2**w`, the only remainders that survive
    wrap-around). The interval rules prove nothing of a sum that may wrap (`i + j` with `i`
    under a runtime stop), so the written form keeps its correction; the distributed form has
    a dividend in `[0, 2f - 2]` whose parts are proven remainders, so it lowers to `remui`s
    the matcher accepts. Guards: `f` a power of two within the dtype (`POW2_PROBE`), both
    parts proven non-negative (otherwise `a % f` is itself a correction and nothing is won),
    and the sum's exact range over the width (only where the intervals cannot do it, which
    also keeps the rule from firing again on its own output, whose dividend is small).
    """

    def pow2(*facts: FactLike) -> tuple[FactLike, ...]:
        return (f > i64(0), eq(i64(POW2_PROBE) % f).to(i64(0)), f <= imax(dt), eq(mx).to(wmax(dt)), *facts)

    yield rule(
        e := (a + b) % K(f, dt),
        *pow2(eq(width(a)).to(dt), nonneg(a), nonneg(b), eq(ha).to(hi(a)), eq(hb).to(hi(b))),
        ha + hb > mx,
        name=_nm(
            "pow2_mod_add",
            "(a + b) % f -> ((a % f) + (b % f)) % f  [f = 2**k <= max(dt), a, b >= 0, a + b may wrap]",
        ),
    ).then(union(e).with_((a % K(f, dt) + b % K(f, dt)) % K(f, dt)))
    yield rule(
        e := (x + K(c, dt)) % K(f, dt),
        *pow2(c < i64(0), eq(r).to(floor_mod(c, f)), nonneg(x), eq(ha).to(hi(x))),
        ha + BigInt(r) > mx,
        name=_nm(
            "pow2_mod_shift_add",
            "(x + c) % f -> ((x % f) + c mod f) % f  "
            "[f = 2**k <= max(dt), c < 0, x >= 0, x + c mod f may wrap]",
        ),
    ).then(union(e).with_((x % K(f, dt) + K(r, dt)) % K(f, dt)))
    yield rule(
        e := (x - K(c, dt)) % K(f, dt),
        *pow2(c > i64(0), eq(r).to(floor_mod(i64(0) - c, f)), nonneg(x), eq(ha).to(hi(x))),
        ha + BigInt(r) > mx,
        name=_nm(
            "pow2_mod_shift_sub",
            "(x - c) % f -> ((x % f) + (-c) mod f) % f  [f = 2**k <= max(dt), c > 0, x >= 0, "
            "x + (-c) mod f may wrap]",
        ),
    ).then(union(e).with_((x % K(f, dt) + K(r, dt)) % K(f, dt)))
    # The shifts: x + c == x + (c mod f) - m*f for an integer m, and x == (x % f) + n*f, so
    # both sides are congruent modulo f (hence modulo 2**w's divisor f after wrapping); the new
    # dividend (x % f) + (c mod f) lies in [0, 2f - 2] and cannot wrap for f <= max(dt) / 2,
    # and for larger f wrapping still preserves the remainder by f (f divides 2**w).


@slot_forms.register
def _eliminations(  # noqa: PLR0917
    x: Idx, c: i64, f: i64, dt: Dtype, lx: BigInt, hx: BigInt, mn: BigInt
) -> Iterable[RewriteOrRule]:
    yield rule(
        e := (x - K(c, dt)) % K(f, dt),
        f > i64(0),
        c >= i64(0),
        eq(c % f).to(i64(0)),
        eq(lx).to(lo(x)),
        eq(mn).to(wmin(dt)),
        lx - BigInt(c) >= mn,
        name=_nm("multiple_elim", "(x - c) % f -> x % f  [f > 0, c >= 0, f | c, x - c does not wrap]"),
    ).then(union(e).with_(x % K(f, dt)))
    yield rule(
        e := x % K(f, dt),
        f > i64(0),
        eq(lx).to(lo(x)),
        eq(hx).to(hi(x)),
        lx >= BigInt(0),
        hx < BigInt(f),
        name=_nm("mod_elim", "x % f -> x  [0 <= lo(x), hi(x) < f]"),
    ).then(union(e).with_(x))


@slot_forms.register
def _casts(x: Idx, a: Idx, c: i64, n: Dtype, w: Dtype, lx: BigInt, hx: BigInt) -> Iterable[RewriteOrRule]:  # noqa: PLR0917
    yield rule(
        e := Idx.cast(Idx.cast(x, n), w),
        eq(width(x)).to(w),
        bits(n) <= bits(w),
        eq(lx).to(lo(x)),
        eq(hx).to(hi(x)),
        lx >= wmin(n),
        hx <= wmax(n),
        name=_nm("cast_elim", "cast(cast(x, n), w) -> x  [width(x) = w, bits(n) <= bits(w), x fits n]"),
    ).then(union(e).with_(x))
    yield rule(
        e := Idx.cast(a % K(c, n), w),
        eq(width(a)).to(n),
        bits(n) < bits(w),
        c > i64(0),
        name=_nm("narrow_mod_widen", "cast(a % c, w) -> cast(a, w) % c  [c > 0, n narrower than w]"),
    ).then(union(e).with_(Idx.cast(a, w) % K(c, w)))
    yield rule(
        e := Idx.cast(a // K(c, n), w),
        eq(width(a)).to(n),
        bits(n) < bits(w),
        c > i64(0),
        name=_nm("narrow_div_widen", "cast(a // c, w) -> cast(a, w) // c  [c > 0, n narrower than w]"),
    ).then(union(e).with_(Idx.cast(a, w) // K(c, w)))


@slot_forms.register
def _folding(a: i64, b: i64, r: i64, dt: Dtype) -> Iterable[RewriteOrRule]:
    """The literal remainders the power-of-two rules build (`pow2_mod_add` on `x + c`: `c % f`).

    Literals of the source are folded once, before insertion (`slotsat.core.semantics.fold`,
    `30-pto-codegen.md` §7.5, with its wrap, floor and error semantics); no rule builds a
    sum, difference, product or quotient of two literals, so this is the one folding rule."""
    yield rule(
        e := K(a, dt) % K(b, dt),
        a >= i64(0),
        b > i64(0),
        eq(r).to(a % b),
        name=_nm("fold_floormod", "a % b -> a rem b  [a >= 0, b > 0: truncation is floor]"),
    ).then(union(e).with_(K(r, dt)))


def _ir(name: str, algebra: str) -> str:
    return rname("ir_forms", "rewrite", name, algebra)


@ir_forms.register
def _ir_forms(x: Idx, c: i64, f: i64, dt: Dtype) -> Iterable[RewriteOrRule]:
    yield rule(e := x // K(1, dt), name=_ir("ir_div_one", "x // 1 -> x")).then(union(e).with_(x))
    yield rule(e := x - K(0, dt), name=_ir("ir_sub_zero", "x - 0 -> x")).then(union(e).with_(x))
    yield rule(
        e := (x - K(c, dt)) % K(f, dt),
        c >= i64(0),
        f > i64(0),
        eq(c % f).to(i64(0)),
        nonneg_syn(x),
        name=_ir("ir_mod_multiple", "(x - c) % f -> x % f  [c >= 0, f > 0, f | c, nonneg_syn(x)]"),
    ).then(union(e).with_(x % K(f, dt)))
