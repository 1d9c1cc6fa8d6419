"""Rank-N load and store windows (issue 16): the reference's FlattenTileNdTo2D keeps a
tile.load's tensor-rank window and makes the tile 2-D, and gives tile.store the window as a
4th argument. The parser derives the merged tile type; the interpreter addresses a window as
`pto.partition_view` does, through the tensor's strides, so an entry of a collapsed window
may run past its own dimension into the next. Each case against a hand-computed expectation."""

# ruff: noqa: E501  (embedded kernel text keeps one statement per line, 10-dsl.md §9.1)

from __future__ import annotations

import numpy as np
import pytest

from slotsat.core import ir
from slotsat.core.dsl.printer import print_expr
from slotsat.core.errors import SlotsatError
from slotsat.core.interp_errors import InterpreterError
from tests.reliability.interp_harness import kernel, run

_fn = kernel


def _run(fn: ir.Function, args: dict[str, object]) -> tuple[object, ...]:
    return run(fn, args, modelled=True)


T3 = "pl.Tensor[[2, 3, 8], pl.FP32]"
X = np.arange(48, dtype=np.float32).reshape(2, 3, 8)


def test_a_rank_3_window_loads_a_merged_tile_and_stores_it_back() -> None:
    fn = _fn(f"a: {T3}, out: pl.Out[{T3}]", T3, """
t: pl.Tile[[3, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [1, 0, 0], [1, 3, 8], [1, 3, 8], target_memory=pl.Mem.Vec)
r: pl.Tensor[[2, 3, 8], pl.FP32] = pl.tile.store(t, [0, 0, 0], out, [1, 3, 8])
return r
""")
    (r,) = _run(fn, {"a": X, "out": np.zeros((2, 3, 8), np.float32)})
    want = np.zeros((2, 3, 8), np.float32)
    want[0] = X[1]
    np.testing.assert_array_equal(r, want)


def test_a_window_merges_its_leading_entries_into_the_rows() -> None:
    fn = _fn(f"a: {T3}, out: pl.Out[{T3}]", T3, """
t: pl.Tile[[6, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0, 0], [2, 3, 8], [2, 3, 8], target_memory=pl.Mem.Vec)
e: pl.Tile[[6, 8], pl.FP32, pl.Mem.Vec] = pl.tile.add(t, t)
r: pl.Tensor[[2, 3, 8], pl.FP32] = pl.tile.store(e, [0, 0, 0], out, [2, 3, 8])
return r
""")
    (r,) = _run(fn, {"a": X, "out": np.zeros((2, 3, 8), np.float32)})
    np.testing.assert_array_equal(r, 2 * X)


def test_a_collapsed_window_runs_past_its_own_dimension_as_partition_view_addresses_it() -> None:
    # The reference's example (memory.cpp, DeduceTileStoreType): a [6, 8] tile stored through
    # the window [1, 6, 8] of a [2, 3, 8] tensor covers both of its [3, 8] slices.
    fn = _fn(f"a: {T3}, out: pl.Out[{T3}]", T3, """
t: pl.Tile[[6, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0, 0], [2, 3, 8], [2, 3, 8], target_memory=pl.Mem.Vec)
r: pl.Tensor[[2, 3, 8], pl.FP32] = pl.tile.store(t, [0, 0, 0], out, [1, 6, 8])
return r
""")
    (r,) = _run(fn, {"a": X, "out": np.zeros((2, 3, 8), np.float32)})
    np.testing.assert_array_equal(r, X)


def test_a_window_outside_the_tensor_is_an_interpreter_error() -> None:
    fn = _fn(f"a: {T3}, out: pl.Out[{T3}]", T3, """
t: pl.Tile[[6, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [1, 0, 0], [1, 6, 8], [1, 6, 8], target_memory=pl.Mem.Vec)
r: pl.Tensor[[2, 3, 8], pl.FP32] = pl.tile.store(t, [0, 0, 0], out, [1, 6, 8])
return r
""")
    with pytest.raises(InterpreterError, match="outside the tensor"):
        _run(fn, {"a": X, "out": np.zeros((2, 3, 8), np.float32)})


def test_a_store_window_that_is_not_the_tiles_valid_shape_is_not_modelled() -> None:
    fn = _fn(f"a: {T3}, out: pl.Out[{T3}]", T3, """
t: pl.Tile[[3, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [1, 0, 0], [1, 3, 8], [1, 3, 8], target_memory=pl.Mem.Vec)
r: pl.Tensor[[2, 3, 8], pl.FP32] = pl.tile.store(t, [0, 0, 0], out, [1, 2, 8])
return r
""")
    with pytest.raises(InterpreterError, match="not modelled"):
        _run(fn, {"a": X, "out": np.zeros((2, 3, 8), np.float32)})


def test_the_merged_valid_shape_is_the_references() -> None:
    # ComputeMergedValidShape: leading literals multiplied, a literal 1 dropped, the rest in order.
    fn = _fn(f"a: {T3}, n: pl.Scalar[pl.INDEX]", "pl.Scalar[pl.INDEX]", """
t: pl.Tile[[6, 8], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[n, 8])] = pl.tile.load(a, [0, 0, 0], [1, 6, 8], [1, n, 8], target_memory=pl.Mem.Vec)
u: pl.Tile[[6, 8], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[2 * n, 8])] = pl.tile.load(a, [0, 0, 0], [2, 3, 8], [2, n, 8], target_memory=pl.Mem.Vec)
return n
""")
    valid = [print_expr(d) for s in fn.body.stmts[:2] if isinstance(s, ir.AssignStmt)
             for d in s.var.type.effective_valid_shape]  # type: ignore[union-attr]
    assert valid == ["n", "8", "2 * n", "8"]


def test_an_annotation_that_is_not_the_merged_tile_is_an_error() -> None:
    with pytest.raises(SlotsatError, match=r"annotation says .* produces pl.Tile\[\[6, 8\]"):
        _fn(f"a: {T3}", "pl.Scalar[pl.INDEX]", """
t: pl.Tile[[3, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0, 0], [2, 3, 8], [2, 3, 8], target_memory=pl.Mem.Vec)
return 0
""")
