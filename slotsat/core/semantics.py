"""The exact evaluator of integer expressions and constant folding (`10-dsl.md` §7.2,
`30-pto-codegen.md` §7.5).

`eval_expr` computes the exact mathematical result of every integer operation and reduces
it to the operation's dtype (two's complement for signed dtypes and `INDEX`): `//` and `%`
are floor division and floor remainder (Python semantics); operands are coerced into their
operation's dtype (a wider value reaching a narrower operation keeps its low bits); a
literal denotes its bit pattern at its own dtype. Division by zero raises
`DivisionByZero`; `MIN // -1` and `MIN % -1` raise `DivisionOverflow` (outside the valid
inputs). Comparisons give 0 or 1.

`fold` is the bottom-up constant folding run before lowering; its errors are
`PassError`s at the expression's position with the exact messages of §7.5.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from slotsat.core import heap, ir
from slotsat.core.errors import PassError


class EvalError(ArithmeticError):
    """An operation outside its valid inputs."""


class DivisionByZero(EvalError):
    pass


class DivisionOverflow(EvalError):
    pass


Env = Mapping[ir.Var, int] | Mapping[int, int]


def _lookup(env: Env, v: ir.Var) -> int:
    table: Mapping[object, int] = env  # type: ignore[assignment]
    if v in table:
        return table[v]
    if v.id in table:
        return table[v.id]
    raise KeyError(f"no value for {v.name_hint}#{v.id}")


def _coerce(value: int, dtype: ir.DType) -> int:
    return dtype.wrap(value)


def eval_expr(e: ir.Expr, env: Env) -> int:
    """The exact value of integer expression `e`; variables are read from `env` by `Var` or id."""
    if isinstance(e, ir.Var):
        return (
            e.dtype.wrap(_lookup(env, e)) if e.dtype.is_int or e.dtype is ir.DType.BOOL else _lookup(env, e)
        )
    if isinstance(e, ir.ConstInt):
        return e.dtype.wrap(e.value)
    if isinstance(e, ir.ConstFloat):
        raise EvalError("eval_expr evaluates integer expressions only")
    if isinstance(e, ir.Cast):
        return e.dtype.wrap(eval_expr(e.a, env))
    if isinstance(e, ir.Cmp):
        a, b = eval_expr(e.a, env), eval_expr(e.b, env)
        return int(COMPARE[e.op](a, b))
    if isinstance(e, ir.ScalarUnary | ir.ScalarBinary | ir.TupleGetItem):
        raise EvalError(f"eval_expr evaluates index expressions only, not {type(e).__name__}")
    d = e.dtype
    a = _coerce(eval_expr(e.a, env), d)
    b = _coerce(eval_expr(e.b, env), d)
    if isinstance(e, ir.Add):
        return d.wrap(a + b)
    if isinstance(e, ir.Sub):
        return d.wrap(a - b)
    if isinstance(e, ir.Mul):
        return d.wrap(a * b)
    if b == 0:
        raise DivisionByZero(
            "Floor division by zero" if isinstance(e, ir.FloorDiv) else "Floor modulo by zero"
        )
    if d.is_signed and a == d.min_value and b == -1:
        raise DivisionOverflow(f"{_min_name(d)} {'//' if isinstance(e, ir.FloorDiv) else '%'} -1")
    if isinstance(e, ir.FloorDiv):
        return d.wrap(a // b)
    return d.wrap(a % b)


COMPARE: dict[ir.CmpOp, Callable[[Any, Any], bool]] = {
    ir.CmpOp.EQ: lambda a, b: a == b,
    ir.CmpOp.NE: lambda a, b: a != b,
    ir.CmpOp.LT: lambda a, b: a < b,
    ir.CmpOp.LE: lambda a, b: a <= b,
    ir.CmpOp.GT: lambda a, b: a > b,
    ir.CmpOp.GE: lambda a, b: a >= b,
}


def _min_name(d: ir.DType) -> str:
    return "INT64_MIN" if d in (ir.DType.INDEX, ir.DType.INT64) else f"{d.name}_MIN"


# --------------------------------------------------------------------------------------
# constant folding


def _literal(e: ir.Expr) -> int | None:
    """A foldable literal: an integer `ConstInt` whose value fits its dtype."""
    return ir.literal_value(e)


_FOLD_MEMO_LIMIT = 1 << 16
"""Entries of `fold`'s memo before it starts afresh (it holds its keys: a bound on memory).
The memo is also cleared when a compilation ends (`heap.memo`)."""

class _FoldMemo:
    table: ir.IdentityMap[ir.Expr] = ir.IdentityMap()
    size = 0

    @classmethod
    def clear(cls) -> None:
        cls.table.clear()
        cls.size = 0


heap.memo(_FoldMemo.clear)


def fold(e: ir.Expr) -> ir.Expr:
    """Bottom-up constant folding of §7.5 (raises `PassError` for a literal divisor 0 and for
    `MIN // -1` / `MIN % -1` on literals).

    A subterm nothing folds in is returned as itself (not a copy), and results are memoized
    by identity (the IR is immutable and shares subterms, so passes fold the same
    expression many times); an expression whose folding raises is not memoized."""
    if type(e) not in _FOLDED:
        return e
    memo = _FoldMemo
    hit = memo.table.get(e)
    if hit is not None:
        return hit
    out = _fold(e)
    if memo.size >= _FOLD_MEMO_LIMIT:
        memo.clear()
    memo.table.set(e, out)
    memo.size += 1
    return out


def _fold(e: ir.Expr) -> ir.Expr:
    if isinstance(e, ir.Add | ir.Sub | ir.Mul | ir.FloorDiv | ir.FloorMod):
        a, b = fold(e.a), fold(e.b)
        return _fold_binop(e, a, b)
    if isinstance(e, ir.Cmp):
        a, b = fold(e.a), fold(e.b)
        return e if a is e.a and b is e.b else ir.Cmp(e.op, a, b, e.dtype, e.span)
    assert isinstance(e, ir.Cast)
    a = fold(e.a)
    return e if a is e.a else ir.Cast(a, e.dtype, e.span)


_FOLDED = frozenset({ir.Add, ir.Sub, ir.Mul, ir.FloorDiv, ir.FloorMod, ir.Cmp, ir.Cast})


def _fold_binop(e: ir.Add | ir.Sub | ir.Mul | ir.FloorDiv | ir.FloorMod, a: ir.Expr, b: ir.Expr) -> ir.Expr:
    rebuilt: ir.Expr = e if a is e.a and b is e.b else type(e)(a, b, e.dtype, e.span)
    if not e.dtype.is_int:
        return rebuilt
    va, vb = _literal(a), _literal(b)
    if isinstance(e, ir.FloorDiv | ir.FloorMod):
        is_div = isinstance(e, ir.FloorDiv)
        if isinstance(b, ir.ConstInt) and b.dtype.is_int and b.value == 0:
            raise PassError("Floor division by zero" if is_div else "Floor modulo by zero", e.span)
        if vb == 1:
            return (
                a
                if is_div
                else ir.ConstInt(0, ir.expr_dtype(a) if ir.expr_dtype(a).is_int else e.dtype, e.span)
            )
        if va is None or vb is None:
            return rebuilt
        d = ir.expr_dtype(a)
        if d.is_signed and va == d.min_value and vb == -1:
            op = "//" if is_div else "%"
            kind = "division" if is_div else "modulo"
            raise PassError(f"Floor {kind} overflow: {_min_name(d)} {op} -1", e.span)
        return ir.ConstInt(d.wrap(va // vb if is_div else va % vb), d, e.span)
    if va is None or vb is None:
        return rebuilt
    d = ir.expr_dtype(a)
    value = va + vb if isinstance(e, ir.Add) else va - vb if isinstance(e, ir.Sub) else va * vb
    return ir.ConstInt(d.wrap(value), d, e.span)
