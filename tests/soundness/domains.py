"""Two z3 encodings of the same arithmetic: `w`-bit two's complement values and exact integers.

The obligations of `tests/soundness/derive.py` are built against the `Domain` interface, once
per encoding:

- `BitVec`: a `w`-bit value is a z3 bit-vector of width `w`; `+ - *` are z3's wrapping
  operations, floor division is `bvsdiv` corrected towards minus infinity, the floor
  remainder is `bvsmod` (the sign of the divisor), casts are `Extract` / `SignExt`. An `i64`
  (egglog's checked 64-bit integer) is a 64-bit vector whose operations carry the
  no-overflow condition under which egglog computes them. `BigInt` has no bit-vector form
  here (`Unsupported`): rules with interval arithmetic go to the integer encoding.
- `BitVec(big_bits=N, int_bits=M)`, for *refutation only*: the same, with every `BigInt` an
  `N`-bit vector, every `i64` an `M`-bit one (`M <= 64`), and the premise that no such value
  or operation leaves its width. That premise is a restriction, not a definition: a model is
  a genuine counterexample (every value in it is exact, and no `i64` in it comes near
  egglog's overflow), `unsat` proves nothing. The mutation test finds most counterexamples this way
  (bit-blasting narrow values is fast; the integer encoding's nonlinear search is not).
- `BitVec(relaxed=True)`, for *proofs only*: every `BigInt` (a bound, `wmin`, `wmax`) is an
  unknown and every comparison involving one is a fresh Boolean, so every fact about bounds
  is dropped. Fewer premises: `unsat` is a proof (of a stronger statement), a model proves
  nothing. It proves the rewrites whose bound guards only choose where a rule pays (a
  power-of-two remainder, the split of a quotient's remainder) on bit-vectors, which the
  integer encoding's nonlinear arithmetic cannot.
- `Integer`: a `w`-bit value is the z3 integer of its signed reading, within
  `[-2**(w-1), 2**(w-1) - 1]`. Wrapping is exact: a sum or difference leaves the range by at
  most `2**w` and is brought back by one `If`; a product or a narrowing cast is
  `v - 2**w * k` for a fresh integer `k` that puts it in range. Division and remainder
  (floor, truncating, unsigned) are given by their definition, `a == b * q + r` with `r` in
  the remainder's range, for fresh `q`, `r` (truncating `divs` / `rems`: the remainder
  takes the dividend's sign). Bit-blasting a symbolic 32- or 64-bit divisor
  times out; this encoding keeps the same two's complement meaning and lets z3 reason
  arithmetically (`tests/soundness/prover.py` splits its cases).

Both encodings are checked against the project's exact evaluator
(`slotsat.core.semantics.eval_expr`) operation by operation in
`tests/soundness/test_domains.py`.

Fresh variables introduced by an encoding come with *definitions* (`Domain.side`): constraints
that any values of the inputs satisfy for exactly one choice of the fresh variables (or for
any, where the operation is undefined), so adding them to the premises never excludes a case.
The one exception is the restricted `BitVec` (`Domain.exact` is False there).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Protocol

import z3

I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1


class Unsupported(Exception):
    """The encoding cannot express this operation (the prover uses the other one)."""


def smin(w: int) -> int:
    return -(1 << (w - 1))


def smax(w: int) -> int:
    return (1 << (w - 1)) - 1


Expr = z3.ExprRef


class Domain(Protocol):
    prefix: str
    name: str
    side: list[z3.BoolRef]

    relaxed: bool
    """A relaxed encoding: fewer premises, so `unsat` proves and a model proves nothing."""

    @property
    def exact(self) -> bool:
        """False for a restricted encoding (its `unsat` proves nothing) or a relaxed one."""
        ...

    def nested(self, prefix: str) -> Domain:
        """The encoding of a quantified sub-formula, its fresh names under `prefix` (never
        restricted: a restriction under a negated quantifier would not be one)."""
        ...

    # w-bit two's complement values
    def fixed_var(self, name: str, w: int) -> Expr: ...
    def fixed_const(self, v: int, w: int) -> Expr: ...
    def fixed_fun(self, fn: z3.FuncDeclRef | None, args: list[Expr], w: int, name: str) -> Expr: ...
    def fixed_sort(self, w: int) -> z3.SortRef: ...
    def add(self, a: Expr, b: Expr, w: int) -> Expr: ...
    def sub(self, a: Expr, b: Expr, w: int) -> Expr: ...
    def mul(self, a: Expr, b: Expr, w: int) -> Expr: ...
    def floordiv(self, a: Expr, b: Expr, w: int) -> Expr: ...
    def floormod(self, a: Expr, b: Expr, w: int) -> Expr: ...
    def udiv(self, a: Expr, b: Expr, w: int) -> Expr: ...
    def urem(self, a: Expr, b: Expr, w: int) -> Expr: ...
    def sdiv(self, a: Expr, b: Expr, w: int) -> Expr: ...
    def srem(self, a: Expr, b: Expr, w: int) -> Expr: ...
    def cast(self, a: Expr, src: int, dst: int) -> Expr: ...
    def slt(self, a: Expr, b: Expr) -> z3.BoolRef: ...
    def sle(self, a: Expr, b: Expr) -> z3.BoolRef: ...
    def is_min(self, a: Expr, w: int) -> z3.BoolRef: ...

    # exact integers (egglog's i64 and BigInt); each operation returns (value, defined)
    def int_var(self, name: str, big: bool) -> Expr: ...
    def int_const(self, v: int, big: bool) -> Expr: ...
    def int_sort(self, big: bool) -> z3.SortRef: ...
    def int_range(self, v: Expr, big: bool) -> z3.BoolRef: ...
    def iop(self, op: str, a: Expr, b: Expr, big: bool) -> tuple[Expr, z3.BoolRef]: ...
    def icmp(self, op: str, a: Expr, b: Expr) -> z3.BoolRef: ...
    def big_of_i64(self, a: Expr) -> Expr: ...
    def int_of_fixed(self, a: Expr, w: int, big: bool) -> Expr: ...
    def fixed_of_int(self, a: Expr, w: int) -> Expr: ...
    def int_fits(self, a: Expr, lo: int, hi: int) -> z3.BoolRef: ...

    # iteration numbers of loops: 0 <= j < 2**64, and the exact start + j * step
    def iteration_var(self, fn: z3.FuncDeclRef, loop: Expr) -> Expr: ...
    def iteration_equation(self, iv: Expr, start: Expr, j: Expr, step: Expr) -> z3.BoolRef: ...
    def iteration_mod(self, j: Expr, f: Expr) -> tuple[Expr, z3.BoolRef]: ...


# --------------------------------------------------------------------------------------
# bit-vectors


@dataclass
class BitVec:
    prefix: str = ""
    name: str = "bit-vector"
    side: list[z3.BoolRef] = field(default_factory=list)
    big_bits: int | None = None
    """`BigInt` width of the restricted encoding (None: `BigInt` is `Unsupported`)."""
    int_bits: int = 64
    """`i64` width: below 64 in the restricted encoding only (values and results that fit)."""
    small: int | None = None
    """Restricted encoding: every `i64` variable, loop field and iteration number lies in
    `[-small, small]` (the vectors stay 64 bits wide, so 64-bit literals still fit)."""
    relaxed: bool = False
    """Relaxed encoding: every `BigInt` is an unknown (`HAVOC`) and every comparison with one a
    fresh Boolean, so the facts about bounds constrain nothing (see the module docstring)."""

    @property
    def exact(self) -> bool:
        return self.big_bits is None and self.int_bits == 64 and self.small is None and not self.relaxed

    def _havoc(self, sort: z3.SortRef) -> Expr:
        self._count = getattr(self, "_count", 0) + 1
        return z3.Const(f"{self.prefix}havoc!{self._count}", sort)

    def nested(self, prefix: str) -> Domain:
        if self.int_bits != 64:
            raise Unsupported("a quantified sub-formula in the restricted encoding")
        return BitVec(prefix=prefix)  # unrestricted: a restriction under a negation is none

    def _big(self) -> int:
        if self.big_bits is None:
            raise Unsupported("BigInt")
        return self.big_bits

    def _width(self, big: bool) -> int:
        return self._big() if big else self.int_bits

    def _narrow(self, x: z3.BitVecRef, n: int) -> z3.BitVecRef:
        """`x` at `n` bits, restricted to the values that fit there."""
        w = x.size()
        if n >= w:
            return z3.SignExt(n - w, x) if n > w else x
        low = z3.Extract(n - 1, 0, x)
        self.side.append(z3.SignExt(w - n, low) == x)
        return low

    def fixed_var(self, name: str, w: int) -> Expr:
        return z3.BitVec(name, w)

    def fixed_const(self, v: int, w: int) -> Expr:
        return z3.BitVecVal(v, w)

    def fixed_sort(self, w: int) -> z3.SortRef:
        return z3.BitVecSort(w)

    def fixed_fun(self, fn: z3.FuncDeclRef | None, args: list[Expr], w: int, name: str) -> Expr:
        assert fn is not None
        return fn(*args)

    def add(self, a: Expr, b: Expr, w: int) -> Expr:
        return _bv(a) + _bv(b)

    def sub(self, a: Expr, b: Expr, w: int) -> Expr:
        return _bv(a) - _bv(b)

    def mul(self, a: Expr, b: Expr, w: int) -> Expr:
        return _bv(a) * _bv(b)

    def floordiv(self, a: Expr, b: Expr, w: int) -> Expr:
        x, y = _bv(a), _bv(b)
        q, r = x / y, z3.SRem(x, y)
        zero = z3.BitVecVal(0, w)
        return z3.If(z3.And(r != zero, (r < zero) != (y < zero)), q - 1, q)

    def floormod(self, a: Expr, b: Expr, w: int) -> Expr:
        return _bv(a) % _bv(b)  # bvsmod: the result has the divisor's sign

    def udiv(self, a: Expr, b: Expr, w: int) -> Expr:
        return z3.UDiv(_bv(a), _bv(b))

    def urem(self, a: Expr, b: Expr, w: int) -> Expr:
        return z3.URem(_bv(a), _bv(b))

    def sdiv(self, a: Expr, b: Expr, w: int) -> Expr:
        return _bv(a) / _bv(b)  # bvsdiv: truncating

    def srem(self, a: Expr, b: Expr, w: int) -> Expr:
        return z3.SRem(_bv(a), _bv(b))  # the sign of the dividend

    def cast(self, a: Expr, src: int, dst: int) -> Expr:
        x = _bv(a)
        if dst < src:
            return z3.Extract(dst - 1, 0, x)
        if dst > src:
            return z3.SignExt(dst - src, x)
        return x

    def slt(self, a: Expr, b: Expr) -> z3.BoolRef:
        return _bv(a) < _bv(b)

    def sle(self, a: Expr, b: Expr) -> z3.BoolRef:
        return _bv(a) <= _bv(b)

    def is_min(self, a: Expr, w: int) -> z3.BoolRef:
        return _bv(a) == z3.BitVecVal(smin(w), w)

    def int_var(self, name: str, big: bool) -> Expr:
        if big and self.relaxed:
            return self._havoc(HAVOC)
        return z3.BitVec(name, self._width(big))

    def int_const(self, v: int, big: bool) -> Expr:
        if big and self.relaxed:
            return self._havoc(HAVOC)
        n = self._width(big)
        if not smin(n) <= v <= smax(n):
            raise Unsupported(f"literal {v} outside {n} bits")
        return z3.BitVecVal(v, n)

    def int_sort(self, big: bool) -> z3.SortRef:
        if big and self.relaxed:
            return HAVOC
        return z3.BitVecSort(self._width(big))

    def int_range(self, v: Expr, big: bool) -> z3.BoolRef:
        if self.small is None or big:
            return z3.BoolVal(True)
        x = _bv(v)
        return z3.And(x >= -self.small, x <= self.small)

    def iop(self, op: str, a: Expr, b: Expr, big: bool) -> tuple[Expr, z3.BoolRef]:
        if big and self.relaxed:
            return self._havoc(HAVOC), self._havoc(z3.BoolSort())  # type: ignore[return-value]
        x, y = _bv(a), _bv(b)
        if big or self.int_bits != 64:
            return self._restricted_op(op, x, y)
        if op == "+":
            return x + y, z3.And(z3.BVAddNoOverflow(x, y, True), z3.BVAddNoUnderflow(x, y))
        if op == "-":
            return x - y, z3.And(z3.BVSubNoOverflow(x, y), z3.BVSubNoUnderflow(x, y, True))
        if op == "*":
            return x * y, z3.And(z3.BVMulNoOverflow(x, y, True), z3.BVMulNoUnderflow(x, y))
        defined = z3.And(y != 0, z3.Not(z3.And(x == I64_MIN, y == -1)))
        if op == "/":
            return x / y, defined
        if op == "%":
            return z3.SRem(x, y), defined
        if op == "min":
            return z3.If(x <= y, x, y), z3.BoolVal(True)
        if op == "max":
            return z3.If(x >= y, x, y), z3.BoolVal(True)
        raise Unsupported(f"i64 {op}")

    def _restricted_op(self, op: str, x: z3.BitVecRef, y: z3.BitVecRef) -> tuple[Expr, z3.BoolRef]:
        """Exact arithmetic on narrow vectors, restricted to results that fit: a `BigInt`
        (egglog never fails on one except by a zero divisor), or an `i64` of the restricted
        encoding (whose values all lie far inside 64 bits, so egglog's overflow cannot occur)."""
        true = z3.BoolVal(True)
        if op == "+":
            self.side += [z3.BVAddNoOverflow(x, y, True), z3.BVAddNoUnderflow(x, y)]
            return x + y, true
        if op == "-":
            self.side += [z3.BVSubNoOverflow(x, y), z3.BVSubNoUnderflow(x, y, True)]
            return x - y, true
        if op == "*":
            self.side += [z3.BVMulNoOverflow(x, y, True), z3.BVMulNoUnderflow(x, y)]
            return x * y, true
        if op in ("/", "%"):
            self.side.append(z3.BVSDivNoOverflow(x, y))
            return (x / y if op == "/" else z3.SRem(x, y)), y != 0
        if op == "min":
            return z3.If(x <= y, x, y), true
        if op == "max":
            return z3.If(x >= y, x, y), true
        raise Unsupported(f"integer {op}")

    def icmp(self, op: str, a: Expr, b: Expr) -> z3.BoolRef:
        if a.sort() == HAVOC or b.sort() == HAVOC:
            out = self._havoc(z3.BoolSort())
            assert isinstance(out, z3.BoolRef)
            return out
        return _cmp(op, _bv(a), _bv(b))

    def big_of_i64(self, a: Expr) -> Expr:
        if self.relaxed:
            return self._havoc(HAVOC)
        return self._narrow(_bv(a), self._big())

    def int_of_fixed(self, a: Expr, w: int, big: bool) -> Expr:
        if big and self.relaxed:
            return self._havoc(HAVOC)
        return self._narrow(_bv(a), self._width(big))

    def fixed_of_int(self, a: Expr, w: int) -> Expr:
        x = _bv(a)
        return z3.Extract(w - 1, 0, x) if w < x.size() else self._narrow(x, w)

    def int_fits(self, a: Expr, lo: int, hi: int) -> z3.BoolRef:
        x = _bv(a)
        n = x.size()
        if not (smin(n) <= lo and hi <= smax(n)):
            raise Unsupported(f"range [{lo}, {hi}] outside {n} bits")
        return z3.And(x >= lo, x <= hi)

    def iteration_var(self, fn: z3.FuncDeclRef, loop: Expr) -> Expr:
        if self.int_bits != 64:
            raise Unsupported("loop iterations in the restricted encoding")
        j = fn(loop)  # read unsigned
        if self.small is not None:
            self.side.append(z3.ULE(j, self.small))
        return j

    def iteration_equation(self, iv: Expr, start: Expr, j: Expr, step: Expr) -> z3.BoolRef:
        n = 130
        return z3.SignExt(n - 64, _bv(iv)) == z3.SignExt(n - 64, _bv(start)) + z3.ZeroExt(
            n - 64, _bv(j)
        ) * z3.SignExt(n - 64, _bv(step))

    def iteration_mod(self, j: Expr, f: Expr) -> tuple[Expr, z3.BoolRef]:
        return z3.URem(_bv(j), _bv(f)), z3.BoolVal(True)


HAVOC = z3.DeclareSort("BigIntUnknown")
"""The sort of the relaxed encoding's unknown `BigInt`s."""


def _bv(x: Expr) -> z3.BitVecRef:
    assert isinstance(x, z3.BitVecRef), x
    return x


def _cmp(op: str, x: z3.ExprRef, y: z3.ExprRef) -> z3.BoolRef:
    a, b = x, y
    table = {
        "<": lambda: a < b,  # type: ignore[operator]
        "<=": lambda: a <= b,  # type: ignore[operator]
        ">": lambda: a > b,  # type: ignore[operator]
        ">=": lambda: a >= b,  # type: ignore[operator]
        "==": lambda: a == b,
        "!=": lambda: a != b,
    }
    if op not in table:
        raise Unsupported(f"comparison {op}")
    out = table[op]()
    assert isinstance(out, z3.BoolRef)
    return out


# --------------------------------------------------------------------------------------
# exact integers


@dataclass
class Integer:
    prefix: str = ""
    """Names of fresh variables start with it (a quantified sub-formula has its own)."""
    name: str = "integer"
    side: list[z3.BoolRef] = field(default_factory=list)
    _names: Iterator[int] = field(default_factory=itertools.count)
    relaxed: bool = False

    @property
    def exact(self) -> bool:
        return True

    def nested(self, prefix: str) -> Domain:
        return Integer(prefix=prefix)

    def _fresh(self, base: str) -> str:
        return f"{self.prefix}{base}!{next(self._names)}"

    def _in(self, v: Expr, w: int) -> z3.BoolRef:
        x = _int(v)
        return z3.And(x >= smin(w), x <= smax(w))

    def fixed_var(self, name: str, w: int) -> Expr:
        v = z3.Int(name)
        self.side.append(self._in(v, w))
        return v

    def fixed_const(self, v: int, w: int) -> Expr:
        assert smin(w) <= v <= smax(w), (v, w)
        return z3.IntVal(v)

    def fixed_sort(self, w: int) -> z3.SortRef:
        return z3.IntSort()

    def fixed_fun(self, fn: z3.FuncDeclRef | None, args: list[Expr], w: int, name: str) -> Expr:
        assert fn is not None
        v = fn(*args)
        self.side.append(self._in(v, w))
        return v

    def _wrap_once(self, s: z3.ArithRef, w: int) -> Expr:
        m = 1 << w
        return z3.If(s > smax(w), s - m, z3.If(s < smin(w), s + m, s))

    def _wrap(self, s: z3.ArithRef, w: int) -> Expr:
        k = z3.Int(self._fresh("k"))
        v = s - (1 << w) * k
        self.side.append(z3.And(v >= smin(w), v <= smax(w)))
        return v

    def add(self, a: Expr, b: Expr, w: int) -> Expr:
        return self._wrap_once(_int(a) + _int(b), w)

    def sub(self, a: Expr, b: Expr, w: int) -> Expr:
        return self._wrap_once(_int(a) - _int(b), w)

    def mul(self, a: Expr, b: Expr, w: int) -> Expr:
        return self._wrap(_int(a) * _int(b), w)

    def _floor_qr(self, a: z3.ArithRef, b: z3.ArithRef) -> tuple[z3.ArithRef, z3.ArithRef]:
        q, r = z3.Int(self._fresh("q")), z3.Int(self._fresh("r"))
        self.side.append(
            z3.Implies(
                b != 0,
                z3.And(a == b * q + r, z3.If(b > 0, z3.And(r >= 0, r < b), z3.And(r <= 0, r > b))),
            )
        )
        return q, r

    def _trunc_qr(self, a: z3.ArithRef, b: z3.ArithRef) -> tuple[z3.ArithRef, z3.ArithRef]:
        q, r = z3.Int(self._fresh("q")), z3.Int(self._fresh("r"))
        mag = z3.If(b >= 0, b, -b)
        self.side.append(
            z3.Implies(
                b != 0,
                z3.And(a == b * q + r, z3.If(a >= 0, z3.And(r >= 0, r < mag), z3.And(r <= 0, r > -mag))),
            )
        )
        return q, r

    def floordiv(self, a: Expr, b: Expr, w: int) -> Expr:
        q, _ = self._floor_qr(_int(a), _int(b))
        return z3.If(q > smax(w), q - (1 << w), q)  # MIN // -1 wraps to MIN, as bvsdiv does

    def floormod(self, a: Expr, b: Expr, w: int) -> Expr:
        _, r = self._floor_qr(_int(a), _int(b))
        return r

    def _unsigned(self, a: Expr, w: int) -> z3.ArithRef:
        x = _int(a)
        u = z3.If(x < 0, x + (1 << w), x)
        assert isinstance(u, z3.ArithRef)
        return u

    def _signed(self, u: z3.ArithRef, w: int) -> Expr:
        return z3.If(u > smax(w), u - (1 << w), u)

    def udiv(self, a: Expr, b: Expr, w: int) -> Expr:
        q, _ = self._floor_qr(self._unsigned(a, w), self._unsigned(b, w))
        return self._signed(q, w)

    def urem(self, a: Expr, b: Expr, w: int) -> Expr:
        _, r = self._floor_qr(self._unsigned(a, w), self._unsigned(b, w))
        return self._signed(r, w)

    def sdiv(self, a: Expr, b: Expr, w: int) -> Expr:
        q, _ = self._trunc_qr(_int(a), _int(b))
        return z3.If(q > smax(w), q - (1 << w), q)  # MIN / -1 wraps to MIN, as bvsdiv does

    def srem(self, a: Expr, b: Expr, w: int) -> Expr:
        _, r = self._trunc_qr(_int(a), _int(b))
        return r

    def cast(self, a: Expr, src: int, dst: int) -> Expr:
        if dst < src:
            return self._wrap(_int(a), dst)
        return a  # sign extension keeps the signed value

    def slt(self, a: Expr, b: Expr) -> z3.BoolRef:
        return _int(a) < _int(b)

    def sle(self, a: Expr, b: Expr) -> z3.BoolRef:
        return _int(a) <= _int(b)

    def is_min(self, a: Expr, w: int) -> z3.BoolRef:
        return _int(a) == smin(w)

    def int_var(self, name: str, big: bool) -> Expr:
        return z3.Int(name)

    def int_const(self, v: int, big: bool) -> Expr:
        return z3.IntVal(v)

    def int_sort(self, big: bool) -> z3.SortRef:
        return z3.IntSort()

    def int_range(self, v: Expr, big: bool) -> z3.BoolRef:
        if big:
            return z3.BoolVal(True)
        return z3.And(_int(v) >= I64_MIN, _int(v) <= I64_MAX)

    def iop(self, op: str, a: Expr, b: Expr, big: bool) -> tuple[Expr, z3.BoolRef]:
        x, y = _int(a), _int(b)

        def checked(v: z3.ArithRef) -> tuple[Expr, z3.BoolRef]:
            return v, (z3.BoolVal(True) if big else z3.And(v >= I64_MIN, v <= I64_MAX))

        if op == "+":
            return checked(x + y)
        if op == "-":
            return checked(x - y)
        if op == "*":
            return checked(x * y)
        if op in ("/", "%"):
            q, r = self._trunc_qr(x, y)
            if op == "/":
                value, ok = checked(q)
                return value, z3.And(y != 0, ok)
            overflow = z3.BoolVal(False) if big else z3.And(x == I64_MIN, y == -1)
            return r, z3.And(y != 0, z3.Not(overflow))  # egglog's checked_rem fails on MIN % -1
        if op == "min":
            return z3.If(x <= y, x, y), z3.BoolVal(True)
        if op == "max":
            return z3.If(x >= y, x, y), z3.BoolVal(True)
        raise Unsupported(f"integer {op}")

    def icmp(self, op: str, a: Expr, b: Expr) -> z3.BoolRef:
        return _cmp(op, _int(a), _int(b))

    def big_of_i64(self, a: Expr) -> Expr:
        return a

    def int_of_fixed(self, a: Expr, w: int, big: bool) -> Expr:
        return a

    def fixed_of_int(self, a: Expr, w: int) -> Expr:
        x = _int(a)
        return z3.If(z3.And(x >= smin(w), x <= smax(w)), x, self._wrap(x, w))

    def int_fits(self, a: Expr, lo: int, hi: int) -> z3.BoolRef:
        x = _int(a)
        return z3.And(x >= lo, x <= hi)

    def iteration_var(self, fn: z3.FuncDeclRef, loop: Expr) -> Expr:
        j = fn(loop)
        self.side.append(z3.And(j >= 0, j < (1 << 64)))
        return j

    def iteration_equation(self, iv: Expr, start: Expr, j: Expr, step: Expr) -> z3.BoolRef:
        return _int(iv) == _int(start) + _int(j) * _int(step)

    def iteration_mod(self, j: Expr, f: Expr) -> tuple[Expr, z3.BoolRef]:
        _, r = self._floor_qr(_int(j), _int(f))
        return r, z3.BoolVal(True)


def _int(x: Expr) -> z3.ArithRef:
    assert isinstance(x, z3.ArithRef), x
    return x


def domains() -> list[type[BitVec] | type[Integer]]:
    return [BitVec, Integer]
