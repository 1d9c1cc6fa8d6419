"""The two z3 encodings of `tests/soundness/domains.py` against the project's exact evaluator
(`slotsat.core.semantics.eval_expr`) and egglog's checked `i64`, operation by operation on
concrete values at every signed dtype.

Groups: index operations (`+ - * // %`, casts) at every dtype; unsigned `divu` / `remu` on bit
patterns; truncating `divs` / `rems` against the emitted `divsi` / `remsi`; egglog's `i64`
arithmetic, defined exactly where egglog computes it.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from slotsat.analysis.matcher import UndefinedBehavior
from slotsat.core import ir
from slotsat.core.semantics import EvalError, eval_expr
from slotsat.egraph_rules.costs import EmitConst, EmitNode, evaluate_term
from tests.soundness.domains import I64_MAX, I64_MIN, BitVec, Domain, Integer

SIGNED = [ir.DType.INT8, ir.DType.INT16, ir.DType.INT32, ir.DType.INT64, ir.DType.INDEX]
ENCODINGS: list[Callable[[], Domain]] = [BitVec, Integer]


def _read(dom: Domain, e: z3.ExprRef, w: int) -> int:
    """The signed value of `e` given the encoding's definitions of its fresh variables."""
    if isinstance(e, z3.BitVecRef):
        v = z3.simplify(e)
        assert isinstance(v, z3.BitVecNumRef), v
        return v.as_signed_long()
    out = z3.Int("out")
    s = z3.Solver()
    s.add(*dom.side, out == e)
    assert s.check() == z3.sat
    value = s.model()[out]
    assert isinstance(value, z3.IntNumRef)
    s.add(out != value)
    assert s.check() == z3.unsat, "the encoding's definitions leave the value open"
    return value.as_long()


def _pair(dt: ir.DType) -> st.SearchStrategy[tuple[int, int]]:
    edge = st.sampled_from([dt.min_value, dt.min_value + 1, -1, 0, 1, dt.max_value - 1, dt.max_value])
    value = st.one_of(edge, st.integers(dt.min_value, dt.max_value))
    return st.tuples(value, value)


_OPS: dict[str, type[ir.Add | ir.Sub | ir.Mul | ir.FloorDiv | ir.FloorMod]] = {
    "add": ir.Add,
    "sub": ir.Sub,
    "mul": ir.Mul,
    "floordiv": ir.FloorDiv,
    "floormod": ir.FloorMod,
}


@pytest.mark.parametrize("make", ENCODINGS, ids=["bit-vector", "integer"])
@settings(max_examples=400)
@given(data=st.data())
def test_index_operations_match_the_exact_evaluator(make: Callable[[], Domain], data: st.DataObject) -> None:
    op = data.draw(st.sampled_from(sorted(_OPS)))
    dt = data.draw(st.sampled_from(SIGNED))
    a, b = data.draw(_pair(dt))
    try:
        expected = eval_expr(_OPS[op](ir.ConstInt(a, dt), ir.ConstInt(b, dt), dt), {})
    except EvalError:
        return  # outside the valid inputs: derive.py marks the value undefined
    dom = make()
    w = dt.bits
    fn = getattr(dom, op)
    assert _read(dom, fn(dom.fixed_const(a, w), dom.fixed_const(b, w), w), w) == expected


@pytest.mark.parametrize("make", ENCODINGS, ids=["bit-vector", "integer"])
@settings(max_examples=300)
@given(data=st.data())
def test_casts_match_the_exact_evaluator(make: Callable[[], Domain], data: st.DataObject) -> None:
    src, dst = data.draw(st.sampled_from(SIGNED)), data.draw(st.sampled_from(SIGNED))
    a, _ = data.draw(_pair(src))
    expected = eval_expr(ir.Cast(ir.ConstInt(a, src), dst), {})
    dom = make()
    assert _read(dom, dom.cast(dom.fixed_const(a, src.bits), src.bits, dst.bits), dst.bits) == expected


@pytest.mark.parametrize("make", ENCODINGS, ids=["bit-vector", "integer"])
@settings(max_examples=200)
@given(data=st.data())
def test_unsigned_division_reads_the_bit_patterns(make: Callable[[], Domain], data: st.DataObject) -> None:
    dt = data.draw(st.sampled_from(SIGNED))
    a, b = data.draw(_pair(dt))
    w = dt.bits
    ua, ub = a % (1 << w), b % (1 << w)
    if ub == 0:
        return
    dom = make()
    q = _read(dom, dom.udiv(dom.fixed_const(a, w), dom.fixed_const(b, w), w), w)
    dom = make()
    r = _read(dom, dom.urem(dom.fixed_const(a, w), dom.fixed_const(b, w), w), w)
    assert q == dt.wrap(ua // ub)
    assert r == dt.wrap(ua % ub)


@pytest.mark.parametrize("make", ENCODINGS, ids=["bit-vector", "integer"])
@settings(max_examples=200)
@given(data=st.data())
def test_truncating_division_matches_the_emitted_semantics(
    make: Callable[[], Domain], data: st.DataObject
) -> None:
    """`divs` / `rems` against `arith.divsi` / `arith.remsi` as the matcher model evaluates them
    (`slotsat.egraph_rules.costs.evaluate_term`), where they are defined."""
    dt = data.draw(st.sampled_from(SIGNED))
    a, b = data.draw(_pair(dt))
    w = dt.bits
    for name, op in (("sdiv", "arith.divsi"), ("srem", "arith.remsi")):
        ty = dt.mlir
        term = EmitNode(op, (EmitConst(a, ty), EmitConst(b, ty)), ty)
        try:
            expected = evaluate_term(term, {})
        except UndefinedBehavior:
            continue  # derive.py marks the value undefined there
        dom = make()
        fn = getattr(dom, name)
        assert _read(dom, fn(dom.fixed_const(a, w), dom.fixed_const(b, w), w), w) == dt.wrap(expected), name


def _egglog_i64(op: str, a: int, b: int) -> int | None:
    """egglog's checked i64 (Rust `checked_*`; `/` and `%` truncate): None where egglog fails."""
    if op in ("/", "%"):
        if b == 0 or (a == I64_MIN and b == -1):
            return None
        q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
        return q if op == "/" else a - b * q
    exact = {"+": a + b, "-": a - b, "*": a * b, "min": min(a, b), "max": max(a, b)}[op]
    return exact if I64_MIN <= exact <= I64_MAX else None


@pytest.mark.parametrize("make", ENCODINGS, ids=["bit-vector", "integer"])
@settings(max_examples=300)
@given(op=st.sampled_from(["+", "-", "*", "/", "%", "min", "max"]), ab=_pair(ir.DType.INT64))
def test_i64_arithmetic_is_defined_where_egglog_computes_it(
    make: Callable[[], Domain], op: str, ab: tuple[int, int]
) -> None:
    a, b = ab
    dom = make()
    value, defined = dom.iop(op, dom.int_const(a, False), dom.int_const(b, False), False)
    expected = _egglog_i64(op, a, b)
    s = z3.Solver()
    s.add(*dom.side)
    s.add(defined)
    if expected is None:
        assert s.check() == z3.unsat
        return
    assert s.check() == z3.sat
    assert _read(dom, value, 64) == expected
