"""z3 proof obligations, one per named rule of `egraph_rules` (`60-egraph-engine.md` §12).

Each obligation builds, for a bit width `w`, a list of premises (the rule's guard, or a
weaker condition the guard implies, such as "this sum does not wrap") and a claim:

- `rewrite`: under the guard the two sides are equal as `w`-bit values;
- `proof`: under the guard the value is `>= 0` (signed);
- `bound`: under the guard the value lies within the bounds the rule sets.

Floor division and floor remainder are spelled out on bit-vectors (z3's `/` and `SRem`
truncate). "Does not wrap" is stated exactly with a sign extension to `2w` bits. Typing
rules (`width_*`) carry no value claim.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import z3

Premises = list[z3.BoolRef]


@dataclass(frozen=True)
class Obligation:
    premises: Premises
    claim: z3.BoolRef


def bv(name: str, w: int) -> z3.BitVecRef:
    return z3.BitVec(name, w)


def fdiv(a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BitVecRef:
    """Floor division (defined for b != 0, not MIN / -1)."""
    q = a / b  # truncating signed division
    r = z3.SRem(a, b)
    zero = z3.BitVecVal(0, a.size())
    fix = z3.And(r != zero, (r < zero) != (b < zero))
    return z3.If(fix, q - 1, q)


def fmod(a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BitVecRef:
    """Floor remainder: the sign of a nonzero result is the divisor's."""
    r = z3.SRem(a, b)
    zero = z3.BitVecVal(0, a.size())
    fix = z3.And(r != zero, (r < zero) != (b < zero))
    return z3.If(fix, r + b, r)


def wide(x: z3.BitVecRef) -> z3.BitVecRef:
    return z3.SignExt(x.size(), x)


def no_wrap_add(x: z3.BitVecRef, c: z3.BitVecRef) -> z3.BoolRef:
    return wide(x) + wide(c) == wide(x + c)


def no_wrap_sub(x: z3.BitVecRef, c: z3.BitVecRef) -> z3.BoolRef:
    return wide(x) - wide(c) == wide(x - c)


def K(v: int, w: int) -> z3.BitVecRef:
    return z3.BitVecVal(v, w)


def _ring(
    make: Callable[[z3.BitVecRef, z3.BitVecRef, z3.BitVecRef], tuple[z3.BitVecRef, z3.BitVecRef]],
) -> Callable[[int], Obligation]:
    def build(w: int) -> Obligation:
        x, c, d = bv("x", w), bv("c", w), bv("d", w)
        lhs, rhs = make(x, c, d)
        return Obligation([], lhs == rhs)

    return build


def _range(w: int, *vals: z3.ArithRef) -> list[z3.BoolRef]:
    """Each value lies in the signed `w`-bit range: the `w`-bit operation computing it does not wrap."""
    lo, hi = -(1 << (w - 1)), (1 << (w - 1)) - 1
    return [z3.And(v >= lo, v <= hi) for v in vals]


# Rules with a symbolic divisor are stated on integers: every intermediate lies in the
# w-bit range (the interval guards' "does not wrap"), so each w-bit operation equals its
# exact integer counterpart. Floor division and remainder by a positive `f` are given by
# their definition, `a == f * q + r` with `0 <= r < f` (`floor_qr`), which z3 handles far
# better than its `/` and `%` on a symbolic divisor. A literal divisible by `k` is written
# `q * k`, and a literal `c` is written `r + m * f` with `r = c mod f`.

_fresh = iter(range(1, 1 << 30))


def floor_qr(a: z3.ArithRef, f: z3.ArithRef) -> tuple[z3.ArithRef, z3.ArithRef, list[z3.BoolRef]]:
    """Fresh (q, r) with a == f * q + r, 0 <= r < f: floor(a / f) and a mod f for f > 0."""
    n = next(_fresh)
    q, r = z3.Int(f"q{n}"), z3.Int(f"r{n}")
    return q, r, [a == f * q + r, r >= 0, r < f]


def _floordiv_shift(sign: int) -> Callable[[int], Obligation]:
    def build(w: int) -> Obligation:
        x, qk, k = z3.Ints("x qk k")
        c = qk * k
        shifted = x + c if sign > 0 else x - c
        q1, _, p1 = floor_qr(shifted, k)
        q0, _, p0 = floor_qr(x, k)
        prem = [k > 0, *_range(w, x, c, k, qk, shifted), *p1, *p0]
        return Obligation(prem, q1 == (q0 + qk if sign > 0 else q0 - qk))

    return build


def _floordiv_residue(sign: int) -> Callable[[int], Obligation]:
    """(x + c) // k -> (x + r) // k + q with c = q*k + r; (x - c) // k -> (x + r) // k - q with
    -c = r - q*k; 0 <= r < k; no sum wraps."""

    def build(w: int) -> Obligation:
        x, r, q, k = z3.Ints("x r q k")
        c = q * k + r if sign > 0 else q * k - r
        shifted = x + c if sign > 0 else x - c
        q1, _, p1 = floor_qr(shifted, k)
        q0, _, p0 = floor_qr(x + r, k)
        prem = [k > 0, r >= 0, r < k, *_range(w, x, c, k, r, q, shifted, x + r), *p1, *p0]
        return Obligation(prem, q1 == (q0 + q if sign > 0 else q0 - q))

    return build


def _same_mod(w: int, a: z3.ArithRef, b: z3.ArithRef, f: z3.ArithRef, extra: list[z3.BoolRef]) -> Obligation:
    _, ra, pa = floor_qr(a, f)
    _, rb, pb = floor_qr(b, f)
    return Obligation([f > 0, *extra, *_range(w, a, b, f), *pa, *pb], ra == rb)


def _floormod_shift_add(w: int) -> Obligation:
    x, r, m, f = z3.Ints("x r m f")
    c = r + m * f
    return _same_mod(w, x + c, x + r, f, [r >= 0, r < f, *_range(w, x, c)])


def _floormod_shift_sub(w: int) -> Obligation:
    # (x - c) % f -> (x + r) % f with r = (-c) mod f, i.e. -c = r + m * f
    x, r, m, f = z3.Ints("x r m f")
    c = -(r + m * f)
    return _same_mod(w, x - c, x + r, f, [c > 0, r >= 0, r < f, *_range(w, x, c)])


def _multiple_elim(w: int) -> Obligation:
    x, m, f = z3.Ints("x m f")
    c = m * f
    return _same_mod(w, x - c, x, f, [c >= 0, *_range(w, x, c)])


def _ir_mod_multiple(w: int) -> Obligation:
    x, m, f = z3.Ints("x m f")
    c = m * f
    return _same_mod(w, x - c, x, f, [c >= 0, x >= 0, *_range(w, x, c)])


def _ir_mod_multiple_no_wrap(w: int) -> Obligation:
    """nonneg_syn(x) and a literal c >= 0: x - c cannot wrap, so the integer statement applies."""
    x, c = z3.Ints("x c")
    return Obligation([x >= 0, c >= 0, *_range(w, x, c)], z3.And(*_range(w, x - c)))


def _narrow_widen_int(w: int) -> Obligation:
    """cast(a op c, w) == cast(a, w) op c: the narrow (n-bit) floor op cannot wrap for c > 0, and a
    sign extension keeps every n-bit value, so both sides are the exact a op c."""
    n = _narrow(w)
    a, c = z3.Ints("a c")
    q, r, p = floor_qr(a, c)
    return Obligation([c > 0, *_range(n, a, c), *p], z3.And(*_range(n, q, r)))


# Remainders by a power of two (`pow2_mod_*`). z3 is slow on a remainder by a symbolic
# divisor, so the proof has two steps, each an obligation of its own: `_pow2_mask` shows that
# the floor remainder by a power of two `f` is the low bits, `x & (f - 1)`, for every `w`-bit
# `x`; the rules' obligations then state their two sides with every remainder replaced by
# its low bits (exactly the lemma's instances), which is pure bit arithmetic. `_pow2_probe`
# shows that the rules' query guard (`f > 0`, `2**62 % f == 0` on egglog's `i64`,
# `f <= max(dt)`) selects powers of two.


def _is_pow2(f: z3.BitVecRef) -> list[z3.BoolRef]:
    return [f > 0, f & (f - 1) == 0]


def _pow2_mask(w: int) -> Obligation:
    x, f = bv("x", w), bv("f", w)
    return Obligation(_is_pow2(f), fmod(x, f) == x & (f - 1))


def _pow2_probe(w: int) -> Obligation:
    f = bv("f", 64)  # the guard is computed on egglog's i64
    return Obligation(
        [f > 0, f <= K((1 << (w - 1)) - 1, 64), z3.SRem(K(1 << 62, 64), f) == 0], f & (f - 1) == 0
    )


def _pow2_mod(kind: str) -> Callable[[int], Obligation]:
    """`(a + b) % f == ((a % f) + (b % f)) % f` (`add`), `(x + c) % f == ((x % f) + c mod f) % f`
    (`shift_add`), `(x - c) % f == ((x % f) + (-c) mod f) % f` (`shift_sub`), for all `w`-bit
    operands (no non-negativity or wrap premise: the rules' guards only choose where they
    pay), each `y % f` written as `y & (f - 1)` (`_pow2_mask`)."""

    def build(w: int) -> Obligation:
        a, b, f = bv("a", w), bv("b", w), bv("f", w)
        m = f - 1
        lhs = {"add": a + b, "shift_add": a + b, "shift_sub": a - b}[kind]
        part = b & m if kind != "shift_sub" else (-b) & m  # b % f, c mod f, (-c) mod f
        return Obligation(_is_pow2(f), lhs & m == ((a & m) + part) & m)

    return build


def _unique(a: z3.ArithRef, n: z3.ArithRef, q: z3.ArithRef, r: z3.ArithRef,  # noqa: PLR0917
            q2: z3.ArithRef, r2: z3.ArithRef) -> z3.BoolRef:
    """Floor division by `a > 0` is unique: two quotient-remainder pairs of `n` are equal."""
    return z3.Implies(
        z3.And(a > 0, n == a * q + r, n == a * q2 + r2, r >= 0, r < a, r2 >= 0, r2 < a),
        z3.And(q == q2, r == r2),
    )


def _below(a: z3.ArithRef, b: z3.ArithRef, n: z3.ArithRef, q: z3.ArithRef, r: z3.ArithRef) -> z3.BoolRef:
    """The floor quotient by `a > 0` of an `n` in `[0, a*b)` lies in `[0, b)`."""
    return z3.Implies(
        z3.And(a > 0, n == a * q + r, r >= 0, r < a, n >= 0, n < a * b), z3.And(q >= 0, q < b)
    )


def _unique_lemma(w: int) -> Obligation:
    a, n, q, r, q2, r2 = z3.Ints("a n q r q2 r2")
    return Obligation([], _unique(a, n, q, r, q2, r2))


def _below_lemma(w: int) -> Obligation:
    a, b, n, q, r = z3.Ints("a b n q r")
    return Obligation([], _below(a, b, n, q, r))


def _floordiv_mod_split(w: int) -> Obligation:
    """`(x // a) % b == (x % (a*b)) // a` in integers (no operation on either side wraps for
    positive literals with `a*b` in range); z3's nonlinear arithmetic needs the instances of
    `_unique` and `_below` it uses, each proven on its own."""
    x, a, b = z3.Ints("x a b")
    q1, r1, p1 = floor_qr(x, a)  # x // a, x % a
    q2, r2, p2 = floor_qr(q1, b)  # (x // a) % b is r2
    q3, r3, p3 = floor_qr(x, a * b)  # x % (a*b) is r3
    q4, r4, p4 = floor_qr(r3, a)  # (x % (a*b)) // a is q4
    lemmas = [
        _unique(a, x, q1, r1, b * q3 + q4, r4),  # x == a * (b * q3 + q4) + r4
        _below(a, b, r3, q4, r4),  # 0 <= q4 < b
        _unique(b, q1, q2, r2, q3, q4),  # q1 == b * q3 + q4
    ]
    prem = [a > 0, b > 0, *_range(w, x, a, b, a * b), *p1, *p2, *p3, *p4, *lemmas]
    return Obligation(prem, r2 == q4)


def _mod_elim(w: int) -> Obligation:
    x, f = bv("x", w), bv("f", w)
    return Obligation([f > 0, x >= 0, x < f], fmod(x, f) == x)


def _narrow(w: int) -> int:
    return w // 2


def _cast_elim(w: int) -> Obligation:
    x = bv("x", w)
    n = _narrow(w)
    lo, hi = -(1 << (n - 1)), (1 << (n - 1)) - 1
    round_trip = z3.SignExt(w - n, z3.Extract(n - 1, 0, x))
    return Obligation([x >= K(lo, w), x <= K(hi, w)], round_trip == x)


def _narrow_widen(div: bool) -> Callable[[int], Obligation]:
    def build(w: int) -> Obligation:
        n = _narrow(w)
        a, c = bv("a", n), bv("c", n)
        op = fdiv if div else fmod
        return Obligation(
            [c > 0], z3.SignExt(w - n, op(a, c)) == op(z3.SignExt(w - n, a), z3.SignExt(w - n, c))
        )

    return build


def _fold(kind: str) -> Callable[[int], Obligation]:
    def build(w: int) -> Obligation:
        a, b = bv("a", w), bv("b", w)
        if kind == "floordiv":
            return Obligation([a >= 0, b > 0], fdiv(a, b) == a / b)
        if kind == "floormod":
            return Obligation([a >= 0, b > 0], fmod(a, b) == z3.SRem(a, b))
        # + - * of two literals: the folded literal is the same bit pattern
        op = {"add": lambda p, q: p + q, "sub": lambda p, q: p - q, "mul": lambda p, q: p * q}[kind]
        r = bv("r", w)
        return Obligation([r == op(a, b)], op(a, b) == r)

    return build


def _proven(div: bool) -> Callable[[int], Obligation]:
    def build(w: int) -> Obligation:
        a, c = bv("a", w), bv("c", w)
        if div:
            return Obligation([c > 0, a >= 0], fdiv(a, c) == z3.UDiv(a, c))
        return Obligation([c > 0, a >= 0], fmod(a, c) == z3.URem(a, c))

    return build


def _proven_signed(div: bool) -> Callable[[int], Obligation]:
    """`a % c -> rems(a, c)`, `a // c -> divs(a, c)` under a >= 0 and c > 0 (truncation is floor)."""

    def build(w: int) -> Obligation:
        a, c = bv("a", w), bv("c", w)
        if div:
            return Obligation([c > 0, a >= 0], fdiv(a, c) == a / c)
        return Obligation([c > 0, a >= 0], fmod(a, c) == z3.SRem(a, c))

    return build


# -- proof rules -------------------------------------------------------------------------


def _loop(w: int) -> tuple[z3.BitVecRef, z3.BitVecRef, Premises]:
    """An induction variable `iv` of a loop with start `s` and positive step: `iv >= s`."""
    iv, s = bv("iv", w), bv("s", w)
    return iv, s, [iv >= s]


def _syn_iv(w: int) -> Obligation:
    iv, s, prem = _loop(w)
    return Obligation([*prem, s >= 0], iv >= 0)


def _syn_counter(w: int) -> Obligation:
    iv, s, prem = _loop(w)
    return Obligation([*prem, s >= 0], iv - s >= 0)


def _syn_div(div: bool) -> Callable[[int], Obligation]:
    def build(w: int) -> Obligation:
        a, c = z3.Ints("a c")
        q, r, p = floor_qr(a, c)
        return Obligation([a >= 0, c > 0, *_range(w, a, c), *p], (q if div else r) >= 0)

    return build


def _syn_const(w: int) -> Obligation:
    v = bv("v", w)
    return Obligation([v >= 0], v >= 0)


def _nonneg_from_lo(w: int) -> Obligation:
    x, lo = bv("x", w), bv("lo", w)
    return Obligation([lo <= x, lo >= 0], x >= 0)


# -- bound rules ---------------------------------------------------------------------------


def _in(x: z3.BitVecRef, lo: z3.BitVecRef, hi: z3.BitVecRef) -> list[z3.BoolRef]:
    return [lo <= x, x <= hi]


def _interval_binop(kind: str) -> Callable[[int], Obligation]:
    def build(w: int) -> Obligation:
        a, b, la, ha, lb, hb = (bv(n, w) for n in ("a", "b", "la", "ha", "lb", "hb"))
        mn, mx = K(-(1 << (w - 1)), 2 * w), K((1 << (w - 1)) - 1, 2 * w)
        A, B, LA, HA, LB, HB = (wide(v) for v in (a, b, la, ha, lb, hb))
        prem = [*_in(a, la, ha), *_in(b, lb, hb)]
        if kind == "add":
            lo, hi, val = LA + LB, HA + HB, a + b
        elif kind == "sub":
            lo, hi, val = LA - HB, HA - LB, a - b
        else:
            corners = [LA * LB, LA * HB, HA * LB, HA * HB]
            lo = corners[0]
            hi = corners[0]
            for c in corners[1:]:
                lo = z3.If(c < lo, c, lo)
                hi = z3.If(c > hi, c, hi)
            val = a * b
        del A, B
        return Obligation([*prem, lo >= mn, hi <= mx], z3.And(wide(val) >= lo, wide(val) <= hi))

    return build


def _iv_floordiv(w: int) -> Obligation:
    a, c, la, ha = z3.Ints("a c la ha")
    q, _, p = floor_qr(a, c)
    ql, _, pl = floor_qr(la, c)
    qh, _, ph = floor_qr(ha, c)
    prem = [c > 0, la <= a, a <= ha, *_range(w, a, c, la, ha), *p, *pl, *ph]
    return Obligation(prem, z3.And(ql <= q, q <= qh))


def _iv_mul(w: int) -> Obligation:
    """In integers: with the corner range inside the w-bit range the product does not wrap."""
    a, b, la, ha, lb, hb = z3.Ints("a b la ha lb hb")
    corners = [la * lb, la * hb, ha * lb, ha * hb]
    lo, hi = corners[0], corners[0]
    for c in corners[1:]:
        lo = z3.If(c < lo, c, lo)
        hi = z3.If(c > hi, c, hi)
    prem = [la <= a, a <= ha, lb <= b, b <= hb, *_range(w, a, b, la, ha, lb, hb, lo, hi)]
    return Obligation(prem, z3.And(lo <= a * b, a * b <= hi, *_range(w, a * b)))


def _iv_floormod(w: int) -> Obligation:
    a, c = bv("a", w), bv("c", w)
    return Obligation([c > 0], z3.And(fmod(a, c) >= 0, fmod(a, c) <= c - 1))


def _iv_cast_full(w: int) -> Obligation:
    n = _narrow(w)
    a = bv("a", w)
    v = z3.Extract(n - 1, 0, a)
    return Obligation([], z3.And(v >= K(-(1 << (n - 1)), n), v <= K((1 << (n - 1)) - 1, n)))


def _iv_cast_fits(w: int) -> Obligation:
    n = _narrow(w)
    a, la, ha = bv("a", w), bv("la", w), bv("ha", w)
    v = z3.SignExt(w - n, z3.Extract(n - 1, 0, a))
    prem = [*_in(a, la, ha), la >= K(-(1 << (n - 1)), w), ha <= K((1 << (n - 1)) - 1, w)]
    return Obligation(prem, z3.And(la <= v, v <= ha))


def _iv_ints(kind: str) -> Callable[[int], Obligation]:
    """Induction-variable bounds, in integers: iv = s + j * p (j >= 0, p > 0), iv < t <= MAX."""

    def build(w: int) -> Obligation:
        iv, s, j, p, t = z3.Ints("iv s j p t")
        mx = (1 << (w - 1)) - 1
        prem = [iv == s + j * p, j >= 0, p > 0, iv < t, t <= mx, s >= -(1 << (w - 1))]
        claim = {"lo": iv >= s, "hi_stop": iv <= t - 1, "hi_runtime": iv <= mx - 1}[kind]
        return Obligation(prem, claim)

    return build


def _trivial(w: int) -> Obligation:
    x = bv("x", w)
    return Obligation([], x + 0 == x)


def _iv_var(w: int) -> Obligation:
    x = bv("x", w)
    return Obligation([], z3.And(x >= K(-(1 << (w - 1)), w), x <= K((1 << (w - 1)) - 1, w)))


OBLIGATIONS: dict[str, Callable[[int], Obligation]] = {
    # slot_forms: reassociation, exchange, sign normal form, identities
    "reassoc_add_add": _ring(lambda x, c, d: ((x + c) + d, x + (c + d))),
    "reassoc_add_sub": _ring(lambda x, c, d: ((x + c) - d, x + (c - d))),
    "reassoc_sub_add": _ring(lambda x, c, d: ((x - c) + d, x + (d - c))),
    "reassoc_sub_sub": _ring(lambda x, c, d: ((x - c) - d, x - (c + d))),
    "exchange_add_sub": _ring(lambda x, c, d: ((x + c) - d, (x - d) + c)),
    "exchange_sub_sub": _ring(lambda x, c, d: ((x - c) - d, (x - d) - c)),
    "sign_add_neg": _ring(lambda x, c, d: (x + c, x - (-c))),
    "sign_sub_neg": _ring(lambda x, c, d: (x - c, x + (-c))),
    "id_add_zero": _ring(lambda x, c, d: (x + 0, x)),
    "id_sub_zero": _ring(lambda x, c, d: (x - 0, x)),
    "id_mul_one": _ring(lambda x, c, d: (x * 1, x)),
    "id_div_one": _ring(lambda x, c, d: (fdiv(x, K(1, x.size())), x)),
    "floordiv_shift_add": _floordiv_shift(1),
    "floordiv_shift_sub": _floordiv_shift(-1),
    "floordiv_unshift_add": _floordiv_shift(1),  # the same equation, read right to left
    "floordiv_residue_add": _floordiv_residue(1),
    "floordiv_residue_sub": _floordiv_residue(-1),
    "floormod_shift_add": _floormod_shift_add,
    "floormod_shift_sub": _floormod_shift_sub,
    "pow2_mod_add": _pow2_mod("add"),
    "pow2_mod_shift_add": _pow2_mod("shift_add"),
    "pow2_mod_shift_sub": _pow2_mod("shift_sub"),
    "pow2_mod_* (a remainder by a power of two is its low bits)": _pow2_mask,
    "pow2_mod_* (the query guard selects powers of two)": _pow2_probe,
    "floordiv_mod_split": _floordiv_mod_split,
    "floordiv_mod_split (floor division is unique)": _unique_lemma,
    "floordiv_mod_split (a quotient of a value below a*b is below b)": _below_lemma,
    "multiple_elim": _multiple_elim,
    "mod_elim": _mod_elim,
    "cast_elim": _cast_elim,
    "narrow_mod_widen": _narrow_widen_int,
    "narrow_div_widen": _narrow_widen_int,
    "fold_add": _fold("add"),
    "fold_sub": _fold("sub"),
    "fold_mul": _fold("mul"),
    "fold_floordiv": _fold("floordiv"),
    "fold_floormod": _fold("floormod"),
    # ir_forms
    "ir_div_one": _ring(lambda x, c, d: (fdiv(x, K(1, x.size())), x)),
    "ir_sub_zero": _ring(lambda x, c, d: (x - 0, x)),
    "ir_mod_multiple": _ir_mod_multiple,
    "ir_mod_multiple (its guard excludes a wrap)": _ir_mod_multiple_no_wrap,
    # lower_arith, lower_syntactic
    "proven_remainder": _proven(div=False),
    "proven_quotient": _proven(div=True),
    "syntactic_remainder": _proven_signed(div=False),
    "syntactic_quotient": _proven_signed(div=True),
    # nonneg_syntactic
    "syn_const": _syn_const,
    "syn_iv": _syn_iv,
    "syn_counter": _syn_counter,
    "syn_floordiv": _syn_div(div=True),
    "syn_floormod": _syn_div(div=False),
    # intervals
    "iv_const": _trivial,
    "iv_lo": _iv_ints("lo"),
    "iv_lo_runtime_stop": _iv_ints("lo"),
    "iv_hi_stop": _iv_ints("hi_stop"),
    "iv_hi_stop_runtime_start": _iv_ints("hi_stop"),
    "iv_hi_runtime": _iv_ints("hi_runtime"),
    "iv_var": _iv_var,
    "iv_add": _interval_binop("add"),
    "iv_sub": _interval_binop("sub"),
    "iv_mul": _iv_mul,
    "iv_floordiv": _iv_floordiv,
    "iv_floormod": _iv_floormod,
    "iv_cast_full": _iv_cast_full,
    "iv_cast_fits": _iv_cast_fits,
    "nonneg_from_syntactic": _trivial,
    "nonneg_from_lo": _nonneg_from_lo,
}


def counterexample(ob: Obligation, timeout_ms: int = 60_000) -> str | None:
    """None when the claim follows from the premises; otherwise the model (or 'unknown')."""
    solver = z3.Solver()
    solver.set("timeout", timeout_ms)
    solver.add(*ob.premises)
    solver.add(z3.Not(ob.claim))
    result = solver.check()
    if result == z3.unsat:
        return None
    if result == z3.sat:
        return str(solver.model())
    return "unknown (timeout)"
