"""The kernel IR: binder identity, structural equality up to renaming, invariants.

Groups: dtype arithmetic; binder identity; structural equality; loop kind lockstep;
MemRef construction.
"""

from __future__ import annotations

import pytest

from slotsat.core import ir
from slotsat.core.ir import DType


def test_wrap_reduces_to_twos_complement_at_the_dtype_width() -> None:
    assert DType.INT32.wrap(2**31) == -(2**31)
    assert DType.INDEX.wrap(2**63) == -(2**63)
    assert DType.UINT8.wrap(-1) == 255
    assert DType.INT8.wrap(130) == -126


def test_dtype_ranges_and_spellings() -> None:
    assert (DType.INT32.min_value, DType.INT32.max_value) == (-(2**31), 2**31 - 1)
    assert DType.UINT16.max_value == 65535
    assert DType.INDEX.mlir == "index"
    assert DType.BF16.nbytes == 2


def test_two_binders_with_one_name_are_different_variables() -> None:
    a = ir.Var("i", ir.ScalarType(DType.INDEX))
    b = ir.Var("i", ir.ScalarType(DType.INDEX))
    assert a != b
    assert ir.Add(a, ir.const(1), DType.INDEX) != ir.Add(b, ir.const(1), DType.INDEX)


def _loop(name: str) -> ir.ForStmt:
    i = ir.Var(name, ir.ScalarType(DType.INDEX))
    x = ir.Var("x" + name, ir.ScalarType(DType.INDEX))
    body = ir.SeqStmts((ir.AssignStmt(x, ir.FloorMod(i, ir.const(2), DType.INDEX)),))
    return ir.ForStmt(ir.ForKind.SEQUENTIAL, i, ir.const(0), ir.const(4), ir.const(1), (), (), body)


def test_structural_equality_maps_binders_by_position() -> None:
    ir.assert_structural_equal(_loop("i"), _loop("k"))


def test_structural_equality_rejects_a_binder_used_inconsistently() -> None:
    a = _loop("i")
    b = _loop("i")
    stmt = b.body.stmts[0]
    assert isinstance(stmt, ir.AssignStmt)
    wrong = ir.AssignStmt(stmt.var, ir.FloorMod(stmt.var, ir.const(2), DType.INDEX))
    b2 = ir.ForStmt(b.kind, b.loop_var, b.start, b.stop, b.step, (), (), ir.SeqStmts((wrong,)))
    with pytest.raises(ir.StructuralMismatch, match="body"):
        ir.assert_structural_equal(a, b2)


def test_structural_equality_ignores_spans() -> None:
    assert ir.structural_equal(ir.ConstInt(3, DType.INDEX, ir.Span(1, 1)), ir.ConstInt(3, DType.INDEX))


def test_a_loop_cannot_be_pipeline_without_its_stage_count() -> None:
    loop = _loop("i")
    with pytest.raises(ValueError, match="exactly when"):
        ir.ForStmt(ir.ForKind.PIPELINE, loop.loop_var, loop.start, loop.stop, loop.step, (), (), loop.body)
    piped = loop.with_stages(2)
    assert piped.stages == 2
    assert piped.demoted().kind is ir.ForKind.SEQUENTIAL
    assert piped.demoted().stages is None


def test_a_memref_needs_at_least_one_slot() -> None:
    base = ir.Var("buf", ir.PtrType())
    with pytest.raises(ValueError, match="a MemRef must have at least one slot"):
        ir.MemRef(base, ir.const(0, DType.INT64), 0, True, 0)
