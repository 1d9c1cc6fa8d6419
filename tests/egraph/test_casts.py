"""Integer casts against the exact evaluator, for every ordered pair of integer dtypes
(issue 13.6; `10-dsl.md` §7: narrowing keeps the low bits, widening extends the source's
value, so an unsigned source zero-extends): a plain root in both modes, the e-graph's
emission of a slot operand through `Idx.cast`, and codegen of a scalar `pl.cast`."""

from __future__ import annotations

import itertools

import pytest

from slotsat.core import ir
from slotsat.core.options import Mode
from slotsat.core.semantics import eval_expr
from slotsat.egraph_rules.costs import EmitTerm, describe, evaluate_term, signless
from slotsat.egraph_rules.engine import EmittedScope, IndexEngine
from tests.codegen.harness import compile_, kernel

INTS = [d for d in ir.DType if d.is_int_arith]
PAIRS = [(s, d) for s, d in itertools.product(INTS, INTS) if s is not d]


SAMPLES = (0, 1, 127, 128, 200, 255, 256, 2**15, 2**31 - 1, 2**31, 2**63 - 1, -1, -56)


def _samples(d: ir.DType) -> list[int]:
    return sorted({d.wrap(v) for v in SAMPLES})


def _check(term: EmitTerm, e: ir.Expr, x: ir.Var, src: ir.DType) -> None:
    """The emitted bits, read at the expression's dtype (`arith` is signless), equal the value."""
    dst = ir.expr_dtype(e)
    for v in _samples(src):
        env = {x.id: v}
        assert dst.wrap(evaluate_term(signless(term), env)) == eval_expr(e, env), (describe(term), v)


@pytest.mark.parametrize("mode", list(Mode))
@pytest.mark.parametrize(("src", "dst"), PAIRS, ids=[f"{s.name}-{d.name}" for s, d in PAIRS])
def test_the_plain_cast_matches_the_evaluator(src: ir.DType, dst: ir.DType, mode: Mode) -> None:
    """A plain root (an e-graph cast to a signed dtype, a leaf's cast to an unsigned one)."""
    x = ir.Var("x", ir.ScalarType(src))
    e = ir.Cast(x, dst)
    engine = IndexEngine(mode)
    root = engine.add_root(e)
    _check(engine.choose(root, EmittedScope()).term, e, x, src)


TO_SIGNED = [(s, d) for s, d in PAIRS if d.is_signed]
"""The pairs the e-graph sees: `Idx` operations are signed (an unsigned value is an opaque leaf)."""


@pytest.mark.parametrize(("src", "dst"), TO_SIGNED, ids=[f"{s.name}-{d.name}" for s, d in TO_SIGNED])
def test_the_egraph_cast_matches_the_evaluator(src: ir.DType, dst: ir.DType) -> None:
    x = ir.Var("x", ir.ScalarType(src))
    e: ir.Expr = ir.Cast(x, dst)
    if dst is not ir.DType.INDEX:
        e = ir.Cast(e, ir.DType.INDEX)  # a slot operand is an INDEX value
    engine = IndexEngine()
    root = engine.add_root(e, slots=4)
    assert engine.saturate().classes[root] is not None
    _check(engine.choose(root, EmittedScope()).term, e, x, src)


@pytest.mark.parametrize(
    ("src", "dst", "op"),
    [
        ("UINT8", "UINT32", "arith.extui"),
        ("UINT16", "UINT64", "arith.extui"),
        ("INT8", "INT32", "arith.extsi"),
        ("UINT32", "UINT8", "arith.trunci"),
    ],
)
def test_codegen_widens_an_unsigned_scalar_by_zero_extension(src: str, dst: str, op: str) -> None:
    src_t = f"pl.Scalar[pl.{src}]"
    body = f"""
t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
k: pl.Scalar[pl.{dst}] = pl.cast(u, pl.{dst})
return out
"""
    params = f"a: pl.Tensor[[256, 64], pl.FP32], u: {src_t}, out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]"
    text = compile_(kernel(body, params=params)).pto_text
    (line,) = [ln for ln in text.splitlines() if "= arith." in ln and " : i" in ln and "constant" not in ln]
    assert f"= {op} " in line
