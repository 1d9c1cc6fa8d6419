"""The interpreter's models of more printed-form ops (issue 16): `tile.slice` with a valid
shape request, `tile.store(..., atomic=pl.AtomicType.Add)`, `tile.row_expand`, `tile.col_sum`
and `tensor.write`, `tile.concat` (also of partly valid tiles), the arg reductions
`tile.row_argmax` and kin, the comparisons `tile.cmp` / `tile.cmps` with `tile.sel`, the max /
min broadcasts of both expand families, `tile.row_prod`, `tile.col_prod`, `tile.matmul_bias`,
`tile.fmod`, the partial ops `tile.part_add` and kin, `tile.reinterpret_view`, `tile.scatter` and
`tile.mscatter` (with offsets drawn all different), the integer bit ops (`tile.and`, `tile.ands`
and kin, `tile.not`) and on-core arrays (`array.create` and kin), each against a hand-computed
expectation."""

# ruff: noqa: E501  (embedded kernel text keeps one statement per line, 10-dsl.md §9.1)

from __future__ import annotations

import numpy as np
import pytest

from slotsat.core import ir
from slotsat.core.inputs import random_inputs
from slotsat.core.interp_errors import InterpreterError, Unmodelled
from slotsat.core.interpreter import Interpreter, ensure_modelled
from tests.reliability.interp_harness import kernel, run

_fn = kernel
_run = run


P = "a: pl.Tensor[[4, 4], pl.FP32], out: pl.Out[pl.Tensor[[4, 4], pl.FP32]]"
R = "pl.Tensor[[4, 4], pl.FP32]"
A = np.array([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16]], dtype=np.float32)


def test_slice_with_a_valid_shape_request_stores_only_the_requested_part() -> None:
    fn = _fn(P, R, """
t: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [4, 4])
s: pl.Tile[[2, 4], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[1, 3])] = pl.tile.slice(t, [2, 4], [1, 0], [1, 3])
r: pl.Tensor[[4, 4], pl.FP32] = pl.store(s, [2, 1], out)
return r
""")
    (r,) = _run(fn, {"a": A, "out": np.zeros((4, 4), np.float32)})
    want = np.zeros((4, 4), np.float32)
    want[2, 1:4] = [5, 6, 7]  # row 1 of a, its first three columns
    np.testing.assert_array_equal(r, want)


def test_a_slice_request_is_narrowed_to_the_source_valid_part() -> None:
    fn = _fn(P, R, """
t: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[2, 4])] = pl.load(a, [0, 0], [4, 4], [2, 4])
s: pl.Tile[[2, 4], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[2, 2])] = pl.tile.slice(t, [2, 4], [1, 0], [2, 2])
r: pl.Tensor[[4, 4], pl.FP32] = pl.store(s, [0, 0], out)
return r
""")
    (r,) = _run(fn, {"a": A, "out": np.zeros((4, 4), np.float32)})
    want = np.zeros((4, 4), np.float32)
    want[0, 0:2] = [5, 6]  # source rows valid: 0..1, so only row 1 lies under the window
    np.testing.assert_array_equal(r, want)


def test_a_slice_request_larger_than_the_window_is_an_error() -> None:
    fn = _fn(P, R, """
t: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [4, 4])
s: pl.Tile[[2, 4], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [2, 4], [0, 0], [3, 4])
r: pl.Tensor[[4, 4], pl.FP32] = pl.store(s, [0, 0], out)
return r
""")
    with pytest.raises(InterpreterError, match="does not fit the slice shape"):
        _run(fn, {"a": A, "out": np.zeros((4, 4), np.float32)})


def test_atomic_add_store_accumulates_into_the_tensor() -> None:
    fn = _fn(P, R, """
t: pl.Tile[[2, 4], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [2, 4])
r1: pl.Tensor[[4, 4], pl.FP32] = pl.store(t, [1, 0], out, atomic=pl.AtomicType.Add)
r2: pl.Tensor[[4, 4], pl.FP32] = pl.store(t, [2, 0], r1, atomic=pl.AtomicType.Add)
return r2
""")
    base = np.full((4, 4), 100, np.float32)
    (r,) = _run(fn, {"a": A, "out": base})
    want = base.copy()
    want[1] += [1, 2, 3, 4]
    want[2] += [1, 2, 3, 4]
    want[2] += [5, 6, 7, 8]
    want[3] += [5, 6, 7, 8]
    np.testing.assert_array_equal(r, want)


def test_row_expand_broadcasts_a_column_across_the_target() -> None:
    fn = _fn(P, R, """
t: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [4, 4])
c: pl.Tile[[4, 1], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 2], [4, 1])
e: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand(t, c)
r: pl.Tensor[[4, 4], pl.FP32] = pl.store(e, [0, 0], out)
return r
""")
    (r,) = _run(fn, {"a": A, "out": np.zeros((4, 4), np.float32)})
    want = np.array([[3] * 4, [7] * 4, [11] * 4, [15] * 4], dtype=np.float32)
    np.testing.assert_array_equal(r, want)


def test_col_sum_sums_the_valid_rows_of_each_column() -> None:
    fn = _fn(P, R, """
t: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[3, 4])] = pl.load(a, [0, 0], [4, 4], [3, 4])
s: pl.Tile[[1, 4], pl.FP32, pl.Mem.Vec] = pl.tile.col_sum(t)
tmp: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.tile.create([4, 4], dtype=pl.FP32, target_memory=pl.Mem.Vec)
s2: pl.Tile[[1, 4], pl.FP32, pl.Mem.Vec] = pl.tile.col_sum(t, tmp)
r1: pl.Tensor[[4, 4], pl.FP32] = pl.store(s, [0, 0], out)
r2: pl.Tensor[[4, 4], pl.FP32] = pl.store(s2, [3, 0], r1)
return r2
""")
    (r,) = _run(fn, {"a": A, "out": np.zeros((4, 4), np.float32)})
    want = np.zeros((4, 4), np.float32)
    want[0] = want[3] = [1 + 5 + 9, 2 + 6 + 10, 3 + 7 + 11, 4 + 8 + 12]  # rows 0..2 only
    np.testing.assert_array_equal(r, want)


def test_col_sum_of_integers_wraps() -> None:
    fn = _fn("a: pl.Tensor[[2, 2], pl.INT8], out: pl.Out[pl.Tensor[[1, 2], pl.INT8]]", "pl.Tensor[[1, 2], pl.INT8]", """
t: pl.Tile[[2, 2], pl.INT8, pl.Mem.Vec] = pl.load(a, [0, 0], [2, 2])
s: pl.Tile[[1, 2], pl.INT8, pl.Mem.Vec] = pl.tile.col_sum(t)
r: pl.Tensor[[1, 2], pl.INT8] = pl.store(s, [0, 0], out)
return r
""")
    a = np.array([[100, -3], [100, 1]], dtype=np.int8)
    (r,) = _run(fn, {"a": a, "out": np.zeros((1, 2), np.int8)})
    np.testing.assert_array_equal(r, np.array([[-56, -2]], dtype=np.int8))  # 200 wraps to -56


def test_tensor_write_sets_one_element_in_place() -> None:
    fn = _fn("a: pl.Tensor[[2, 3], pl.INT32], k: pl.Scalar[pl.INDEX]", "pl.Tensor[[2, 3], pl.INT32]", """
pl.tensor.write(a, [1, k], 7)
return a
""")
    a = np.zeros((2, 3), np.int32)
    (r,) = _run(fn, {"a": a, "k": 2})
    np.testing.assert_array_equal(r, np.array([[0, 0, 0], [0, 0, 7]], np.int32))
    np.testing.assert_array_equal(a, np.zeros((2, 3), np.int32))  # the caller's array is not touched


def test_tensor_write_outside_the_tensor_is_an_error() -> None:
    fn = _fn("a: pl.Tensor[[2, 3], pl.INT32], k: pl.Scalar[pl.INDEX]", "pl.Tensor[[2, 3], pl.INT32]", """
pl.tensor.write(a, [1, k], 7)
return a
""")
    with pytest.raises(InterpreterError, match="outside"):
        _run(fn, {"a": np.zeros((2, 3), np.int32), "k": 3})


def test_a_slice_pad_value_stays_unmodelled() -> None:
    fn = _fn(P, R, """
t: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [4, 4])
s: pl.Tile[[2, 4], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [2, 4], [0, 0], [2, 4], pad_value=pl.PadValue.max)
r: pl.Tensor[[4, 4], pl.FP32] = pl.store(s, [0, 0], out)
return r
""")
    with pytest.raises(InterpreterError, match="keyword 'pad_value'"):
        ensure_modelled(fn)


def test_a_scalar_parameter_that_is_a_dimension_is_drawn_as_one() -> None:
    from slotsat.core.inputs import DYNAMIC_DIMENSION, random_inputs

    fn = _fn("x: pl.Tensor[[n, 8], pl.FP32], n: pl.Scalar[pl.INDEX], k: pl.Scalar[pl.INDEX], "
             "out: pl.Out[pl.Tensor[[n, 8], pl.FP32]]", "pl.Tensor[[n, 8], pl.FP32]", """
t: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [1, 8])
r: pl.Tensor[[n, 8], pl.FP32] = pl.store(t, [0, 0], out)
return r
""")
    for seed in range(5):
        args = random_inputs(fn, np.random.default_rng(seed))
        n = args["n"]
        assert DYNAMIC_DIMENSION[0] <= n <= DYNAMIC_DIMENSION[1]
        assert args["x"].shape == (n, 8)
        assert args["out"].shape == (n, 8)
        assert 0 <= args["k"] <= 8
        (r,) = _run(fn, args)
        np.testing.assert_array_equal(r[0], args["x"][0])


@pytest.mark.parametrize(("op", "whole", "head"), [("col_max", [13, 10, 15, 16], [9, 10, 11, 12]),
                                                    ("col_min", [1, 0, 3, 4], [1, 2, 3, 4])])
def test_col_max_and_col_min_reduce_the_valid_rows_of_each_column(op: str, whole: list[int], head: list[int]) -> None:
    fn = _fn(P, R, f"""
t: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [4, 4])
m: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.tile.write(t, [3, 1], 0.0)
v: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[4, 4])] = pl.tile.set_validshape(m, 4, 4)
s: pl.Tile[[1, 4], pl.FP32, pl.Mem.Vec] = pl.tile.{op}(v)
h: pl.Tile[[3, 4], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[3, 4])] = pl.tile.slice(t, [3, 4], [0, 0])
s2: pl.Tile[[1, 4], pl.FP32, pl.Mem.Vec] = pl.tile.{op}(h)
r1: pl.Tensor[[4, 4], pl.FP32] = pl.store(s, [0, 0], out)
r2: pl.Tensor[[4, 4], pl.FP32] = pl.store(s2, [1, 0], r1)
return r2
""")
    (r,) = _run(fn, {"a": A, "out": np.zeros((4, 4), np.float32)}, modelled=True)
    assert isinstance(r, np.ndarray)
    assert r[0].tolist() == whole  # all four rows, the 0.0 written at [3, 1] among them
    assert r[1].tolist() == head  # the three valid rows of the slice only


def test_a_column_reduction_of_no_valid_row_is_declined() -> None:
    fn = _fn(P + ", n: pl.Scalar[pl.INDEX]", R, """
t: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[n, 4])] = pl.load(a, [0, 0], [4, 4], [n, 4])
s: pl.Tile[[1, 4], pl.FP32, pl.Mem.Vec] = pl.tile.col_max(t)
r: pl.Tensor[[4, 4], pl.FP32] = pl.store(s, [0, 0], out)
return r
""")
    with pytest.raises(InterpreterError, match="no valid row"):
        _run(fn, {"a": A, "n": 0, "out": np.zeros((4, 4), np.float32)})


_ARG = "a: pl.Tensor[[4, 4], pl.FP32], out: pl.Out[pl.Tensor[[4, 4], pl.INT32]]"


@pytest.mark.parametrize(("op", "want"), [("row_argmax", [3, 0, 2, 1]), ("row_argmin", [0, 1, 0, 0])])
def test_row_argmax_and_argmin_give_the_first_column_of_each_rows_extreme(op: str, want: list[int]) -> None:
    fn = _fn(_ARG, "pl.Tensor[[4, 4], pl.INT32]", f"""
t: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [4, 4])
tmp: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.tile.create([4, 4], dtype=pl.FP32, target_memory=pl.Mem.Vec)
i: pl.Tile[[4, 1], pl.INT32, pl.Mem.Vec] = pl.tile.{op}(t, tmp)
r: pl.Tensor[[4, 4], pl.INT32] = pl.store(i, [0, 0], out)
return r
""")
    a = np.array([[1, 2, 3, 9], [7, 0, 7, 5], [0, 4, 8, 8], [2, 6, 6, 5]], dtype=np.float32)  # ties: the first
    (r,) = _run(fn, {"a": a, "out": np.full((4, 4), -1, np.int32)}, modelled=True)
    assert r[:, 0].tolist() == want
    assert r[:, 1].tolist() == [-1] * 4  # a [4, 1] result


def test_col_argmax_gives_the_first_row_of_each_valid_columns_maximum() -> None:
    fn = _fn(_ARG, "pl.Tensor[[4, 4], pl.INT32]", """
t: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[3, 3])] = pl.load(a, [0, 0], [4, 4], [3, 3])
tmp: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.tile.create([4, 4], dtype=pl.FP32, target_memory=pl.Mem.Vec)
i: pl.Tile[[1, 4], pl.INT32, pl.Mem.Vec, pl.TileView(valid_shape=[1, 3])] = pl.tile.col_argmax(t, tmp)
r: pl.Tensor[[4, 4], pl.INT32] = pl.store(i, [0, 0], out)
return r
""")
    a = np.array([[1, 9, 3, 0], [5, 9, 2, 0], [4, 0, 3, 0], [99, 99, 99, 99]], dtype=np.float32)  # row 3 not valid
    (r,) = _run(fn, {"a": a, "out": np.full((4, 4), -1, np.int32)}, modelled=True)
    assert r[0].tolist() == [1, 0, 0, -1]


def test_the_argmax_of_a_row_holding_nan_is_undefined_data() -> None:
    from slotsat.core.interpreter import Interpreter, Undefined

    fn = _fn(_ARG, "pl.Tensor[[4, 4], pl.INT32]", """
t: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [4, 4])
tmp: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.tile.create([4, 4], dtype=pl.FP32, target_memory=pl.Mem.Vec)
i: pl.Tile[[4, 1], pl.INT32, pl.Mem.Vec] = pl.tile.row_argmax(t, tmp)
r: pl.Tensor[[4, 4], pl.INT32] = pl.store(i, [0, 0], out)
return r
""")
    a = A.copy()
    a[2, 1] = np.nan
    runs = []
    for filling in (0, 1):
        undefined = Undefined(filling=filling, seed=5)
        (r,) = Interpreter(physical=False, prefetch=False, undefined=undefined).run(fn, {"a": a, "out": np.zeros((4, 4), np.int32)})
        assert undefined.reads == ["tile.row_argmax at 10:52 of a row holding NaN (which index the device gives is not "
                                   "pinned down)",
                                   "tile.create at 9:53: a fresh tile's contents, which nothing wrote"]
        runs.append(r[:, 0].tolist())
    assert runs[0][:2] == runs[1][:2] == [3, 3]
    assert runs[0][2] != runs[1][2]  # the NaN row's index is whatever the filling says


def test_concat_places_the_tiles_side_by_side() -> None:
    fn = _fn("a: pl.Tensor[[4, 4], pl.BF16], b: pl.Tensor[[4, 2], pl.BF16], out: pl.Out[pl.Tensor[[4, 6], pl.BF16]]",
             "pl.Tensor[[4, 6], pl.BF16]", """
x: pl.Tile[[4, 4], pl.BF16, pl.Mem.Vec] = pl.load(a, [0, 0], [4, 4])
y: pl.Tile[[4, 2], pl.BF16, pl.Mem.Vec] = pl.load(b, [0, 0], [4, 2])
z: pl.Tile[[4, 6], pl.BF16, pl.Mem.Vec] = pl.tile.concat(x, y)
r: pl.Tensor[[4, 6], pl.BF16] = pl.store(z, [0, 0], out)
return r
""")
    b = -np.arange(8, dtype=np.float32).reshape(4, 2)
    (r,) = _run(fn, {"a": A, "b": b, "out": np.zeros((4, 6), np.float32)}, modelled=True)
    np.testing.assert_array_equal(r, np.concatenate([A, b], axis=1))


def _concat(x_valid: str, y_valid: str, z_valid: str) -> tuple[object, ...]:
    fn = _fn("a: pl.Tensor[[4, 4], pl.FP32], out: pl.Out[pl.Tensor[[4, 8], pl.FP32]]", "pl.Tensor[[4, 8], pl.FP32]", f"""
x: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape={x_valid})] = pl.load(a, [0, 0], [4, 4], {x_valid})
y: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape={y_valid})] = pl.load(a, [0, 0], [4, 4], {y_valid})
z: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape={z_valid})] = pl.tile.concat(x, y)
r: pl.Tensor[[4, 8], pl.FP32] = pl.store(z, [0, 0], out)
return r
""")
    return _run(fn, {"a": A, "out": np.full((4, 8), -1.0, np.float32)}, modelled=True)


def test_concat_places_the_second_tile_after_the_first_one_s_valid_columns() -> None:
    # pto-isa's TCONCAT: dst[i, vc0 + j] = src1[i, j]; the result is valid over (rows, vc0 + vc1)
    (r,) = _concat("[2, 3]", "[2, 4]", "[2, 7]")
    expected = np.full((4, 8), -1.0, np.float32)
    expected[:2, :7] = np.concatenate([A[:2, :3], A[:2, :4]], axis=1)
    np.testing.assert_array_equal(r, expected)  # type: ignore[arg-type]


@pytest.mark.parametrize(("x_valid", "z_valid"), [("[4, 3]", "[4, 8]"), ("[3, 4]", "[3, 8]")])
def test_concat_whose_valid_extents_the_device_asserts_against_is_declined(x_valid: str, z_valid: str) -> None:
    # a result declared valid over more than the sum of the valid widths; sources of two valid row counts
    with pytest.raises(InterpreterError, match="the device asserts that both sources have the destination's valid rows"):
        _concat(x_valid, "[4, 4]", z_valid)


@pytest.mark.parametrize(("op", "vec", "shape"), [("col_expand_expdif", "a0", "[1, 4]"), ("row_expand_expdif", "c0", "[4, 1]")])
def test_expdif_is_the_exponential_of_the_difference_with_the_broadcast_vector(op: str, vec: str, shape: str) -> None:
    fn = _fn(P, R, f"""
t: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [4, 4])
v: pl.Tile[{shape}, pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], {shape})
e: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.tile.{op}(t, v)
r: pl.Tensor[[4, 4], pl.FP32] = pl.store(e, [0, 0], out)
return r
""")
    (r,) = _run(fn, {"a": A, "out": np.zeros((4, 4), np.float32)}, modelled=True)
    # row 0 of A broadcast down the rows, or column 0 of A along the columns
    b = np.repeat(A[:1, :], 4, axis=0) if vec == "a0" else np.repeat(A[:, :1], 4, axis=1)
    np.testing.assert_allclose(r, np.exp(A - b), rtol=1e-6)


_VIEW_P = "x: pl.Tensor[[2, 4, 4], pl.FP32], out: pl.Out[pl.Tensor[[8, 4], pl.FP32]]"
_VIEW_R = "pl.Tensor[[8, 4], pl.FP32]"
_X3 = np.arange(32, dtype=np.float32).reshape(2, 4, 4)


def test_tensor_view_reads_the_elements_in_row_major_order() -> None:
    fn = _fn(_VIEW_P, _VIEW_R, """
flat: pl.Tensor[[8, 4], pl.FP32, pl.TensorView(stride=[4, 1], layout=pl.TensorLayout.ND)] = pl.tensor.view(x, [8, 4])
t: pl.Tile[[3, 4], pl.FP32, pl.Mem.Vec] = pl.load(flat, [3, 0], [3, 4])
r: pl.Tensor[[8, 4], pl.FP32] = pl.store(t, [0, 0], out)
return r
""")
    (r,) = _run(fn, {"x": _X3, "out": np.zeros((8, 4), np.float32)}, modelled=True)
    assert isinstance(r, np.ndarray)
    np.testing.assert_array_equal(r[:3], _X3.reshape(8, 4)[3:6])  # rows 3..5 cross the first dimension
    np.testing.assert_array_equal(r[3:], np.zeros((5, 4), np.float32))


def test_a_store_into_a_viewed_tensor_is_declined() -> None:
    fn = _fn("x: pl.Out[pl.Tensor[[2, 4, 4], pl.FP32]], out: pl.Out[pl.Tensor[[8, 4], pl.FP32]]", _VIEW_R, """
flat: pl.Tensor[[8, 4], pl.FP32, pl.TensorView(stride=[4, 1], layout=pl.TensorLayout.ND)] = pl.tensor.view(x, [8, 4])
t: pl.Tile[[1, 4], pl.FP32, pl.Mem.Vec] = pl.tile.full([1, 4], dtype=pl.FP32, value=1.0)
f: pl.Tensor[[8, 4], pl.FP32] = pl.store(t, [0, 0], flat)
u: pl.Tile[[1, 4], pl.FP32, pl.Mem.Vec] = pl.load(flat, [0, 0], [1, 4])
r: pl.Tensor[[8, 4], pl.FP32] = pl.store(u, [0, 0], out)
return r
""")
    with pytest.raises(InterpreterError, match=r"into a tensor that tensor\.view reinterprets"):
        _run(fn, {"x": _X3, "out": np.zeros((8, 4), np.float32)})


def test_a_view_of_another_element_count_is_declined() -> None:
    fn = _fn(_VIEW_P, _VIEW_R, """
flat: pl.Tensor[[4, 4], pl.FP32, pl.TensorView(stride=[4, 1], layout=pl.TensorLayout.ND)] = pl.tensor.view(x, [4, 4])
t: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.load(flat, [0, 0], [4, 4])
r: pl.Tensor[[8, 4], pl.FP32] = pl.store(t, [0, 0], out)
return r
""")
    with pytest.raises(InterpreterError, match="views of the same element count"):
        _run(fn, {"x": _X3, "out": np.zeros((8, 4), np.float32)})


def test_transpose_swaps_the_axes_of_a_fully_valid_tile() -> None:
    fn = _fn("a: pl.Tensor[[2, 4], pl.FP32], out: pl.Out[pl.Tensor[[4, 2], pl.FP32]]", "pl.Tensor[[4, 2], pl.FP32]", """
t: pl.Tile[[2, 4], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [2, 4])
tmp: pl.Tile[[2, 4], pl.FP32, pl.Mem.Vec] = pl.tile.create([2, 4], dtype=pl.FP32, target_memory=pl.Mem.Vec)
x: pl.Tile[[4, 2], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(t, 0, 1, tmp)
r: pl.Tensor[[4, 2], pl.FP32] = pl.store(x, [0, 0], out)
return r
""")
    a = np.arange(8, dtype=np.float32).reshape(2, 4)
    (r,) = _run(fn, {"a": a, "out": np.zeros((4, 2), np.float32)}, modelled=True)
    np.testing.assert_array_equal(r, a.T)


def test_transpose_of_a_partly_valid_tile_is_declined() -> None:
    fn = _fn("a: pl.Tensor[[2, 4], pl.FP32], out: pl.Out[pl.Tensor[[4, 2], pl.FP32]]", "pl.Tensor[[4, 2], pl.FP32]", """
t: pl.Tile[[2, 4], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[1, 4])] = pl.load(a, [0, 0], [2, 4], [1, 4])
x: pl.Tile[[4, 2], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(t, 0, 1)
r: pl.Tensor[[4, 2], pl.FP32] = pl.store(x, [0, 0], out)
return r
""")
    with pytest.raises(InterpreterError, match="fully valid tile only"):
        _run(fn, {"a": np.zeros((2, 4), np.float32), "out": np.zeros((4, 2), np.float32)})


_SEL = """
t: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [4, 4])
z: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.tile.full([4, 4], dtype=pl.FP32, value=-1.0)
m: pl.Tile[[4, 32], pl.UINT8, pl.Mem.Vec, pl.TileView(valid_shape=[4, 1])] = {compare}
tmp: pl.Tile[[1, 32], pl.UINT8, pl.Mem.Vec] = pl.tile.create([1, 32], dtype=pl.UINT8, target_memory=pl.Mem.Vec)
s: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.tile.sel(m, t, z, tmp)
r: pl.Tensor[[4, 4], pl.FP32] = pl.store(s, [0, 0], out)
return r
"""


@pytest.mark.parametrize(("compare", "holds"), [
    ("pl.tile.cmps(t, 6.0, cmp_type=4)", A > 6),  # GT
    ("pl.tile.cmps(t, 6.0, cmp_type=1)", A != 6),  # NE
    ("pl.tile.cmp(t, z, cmp_type=3)", A <= -1),  # LE: never
])
def test_sel_picks_lhs_where_the_comparison_holds(compare: str, holds: np.ndarray) -> None:
    fn = _fn(P, R, _SEL.format(compare=compare))
    (r,) = _run(fn, {"a": A, "out": np.zeros((4, 4), np.float32)}, modelled=True)
    np.testing.assert_array_equal(r, np.where(holds, A, -1.0))


def test_a_comparison_read_as_a_tile_is_declined() -> None:
    # the packed predicate's encoding is target-defined: only tile.sel reads it
    fn = _fn("a: pl.Tensor[[4, 4], pl.FP32], out: pl.Out[pl.Tensor[[4, 32], pl.UINT8]]", "pl.Tensor[[4, 32], pl.UINT8]", """
t: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [4, 4])
m: pl.Tile[[4, 32], pl.UINT8, pl.Mem.Vec, pl.TileView(valid_shape=[4, 1])] = pl.tile.cmps(t, 0.0, cmp_type=0)
r: pl.Tensor[[4, 32], pl.UINT8] = pl.store(m, [0, 0], out)
return r
""")
    with pytest.raises(InterpreterError, match="the packed predicate of a comparison, read as a tile"):
        _run(fn, {"a": A, "out": np.zeros((4, 32), np.uint8)}, modelled=True)


def test_a_reshape_result_has_the_valid_shape_its_type_declares() -> None:
    # the lane-1 replay of a dual-dispatch vector half reshapes [0, 0] tiles and concatenates
    # them into a tile declared [0, 0]; a partial declaration keeps only the declared part
    fn = _fn(P, R, """
z: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[0, 0])] = pl.tile.create([4, 4], dtype=pl.FP32, target_memory=pl.Mem.Vec)
zr: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[0, 0])] = pl.tile.reshape(z, [1, 16])
zz: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[0, 0])] = pl.tile.concat(zr, zr)
t: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [4, 4])
h: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[1, 3])] = pl.tile.reshape(t, [1, 16])
r0: pl.Tensor[[4, 4], pl.FP32] = pl.store(zz, [0, 0], out)
r1: pl.Tensor[[4, 4], pl.FP32] = pl.store(h, [1, 0], r0)
return r1
""")
    (r,) = _run(fn, {"a": A, "out": np.full((4, 4), -1, np.float32)}, modelled=True)
    assert r[0].tolist() == [-1] * 4  # nothing valid to store
    assert r[1].tolist() == [1, 2, 3, -1]  # the 3 declared valid elements only


def test_a_reshape_declaring_more_than_its_shape_is_an_error() -> None:
    fn = _fn(P, R, """
t: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [4, 4])
h: pl.Tile[[2, 8], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[2, 9])] = pl.tile.reshape(t, [2, 8])
r: pl.Tensor[[4, 4], pl.FP32] = pl.store(h, [0, 0], out)
return r
""")
    with pytest.raises(InterpreterError, match=r"tile.reshape valid shape \[2, 9\] does not fit the tile \[2, 8\]"):
        _run(fn, {"a": A, "out": np.zeros((4, 4), np.float32)})


@pytest.mark.parametrize(("op", "pick", "vector", "along"), [
    ("row_expand_max", np.maximum, "[4, 1], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 2], [4, 1])", A[:, 2:3]),
    ("row_expand_min", np.minimum, "[4, 1], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 2], [4, 1])", A[:, 2:3]),
    ("col_expand_max", np.maximum, "[1, 4], pl.FP32, pl.Mem.Vec] = pl.load(a, [2, 0], [1, 4])", A[2:3, :]),
    ("col_expand_min", np.minimum, "[1, 4], pl.FP32, pl.Mem.Vec] = pl.load(a, [2, 0], [1, 4])", A[2:3, :]),
])
def test_expand_max_and_min_meet_the_tile_with_its_broadcast_vector(op: str, pick: np.ufunc, vector: str,
                                                                      along: np.ndarray) -> None:
    fn = _fn(P, R, f"""
t: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [4, 4])
c: pl.Tile[{vector}
e: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.tile.{op}(t, c)
r: pl.Tensor[[4, 4], pl.FP32] = pl.store(e, [0, 0], out)
return r
""")
    (r,) = _run(fn, {"a": A, "out": np.zeros((4, 4), np.float32)})
    np.testing.assert_array_equal(r, pick(A, along))


def test_row_prod_multiplies_the_valid_columns_of_each_row() -> None:
    fn = _fn("a: pl.Tensor[[4, 4], pl.FP32], out: pl.Out[pl.Tensor[[4, 1], pl.FP32]]", "pl.Tensor[[4, 1], pl.FP32]", """
t: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[4, 3])] = pl.load(a, [0, 0], [4, 4], [4, 3])
tmp: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.tile.create([4, 4], dtype=pl.FP32, target_memory=pl.Mem.Vec)
p: pl.Tile[[4, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_prod(t, tmp)
r: pl.Tensor[[4, 1], pl.FP32] = pl.store(p, [0, 0], out)
return r
""")
    (r,) = _run(fn, {"a": A, "out": np.zeros((4, 1), np.float32)})
    np.testing.assert_array_equal(r[:, 0], A[:, :3].prod(axis=1))


def test_matmul_bias_adds_the_bias_row_to_every_row_of_the_product() -> None:
    fn = _fn("a: pl.Tensor[[4, 4], pl.FP32], b: pl.Tensor[[1, 4], pl.FP32], out: pl.Out[pl.Tensor[[4, 4], pl.FP32]]", R, """
lm: pl.Tile[[4, 4], pl.FP32, pl.Mem.Mat] = pl.load(a, [0, 0], [4, 4], target_memory=pl.Mem.Mat)
l: pl.Tile[[4, 4], pl.FP32, pl.Mem.Left] = pl.tile.move(lm, target_memory=pl.Mem.Left)
rt: pl.Tile[[4, 4], pl.FP32, pl.Mem.Right] = pl.tile.move(lm, target_memory=pl.Mem.Right)
bm: pl.Tile[[1, 4], pl.FP32, pl.Mem.Mat] = pl.load(b, [0, 0], [1, 4], target_memory=pl.Mem.Mat)
bias: pl.Tile[[1, 4], pl.FP32, pl.Mem.Bias] = pl.tile.move(bm, target_memory=pl.Mem.Bias)
acc: pl.Tile[[4, 4], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_bias(l, rt, bias)
r: pl.Tensor[[4, 4], pl.FP32] = pl.store(acc, [0, 0], out)
return r
""")
    bias = np.array([[1, -2, 3, -4]], dtype=np.float32)
    (r,) = _run(fn, {"a": A, "b": bias, "out": np.zeros((4, 4), np.float32)})
    np.testing.assert_array_equal(r, A @ A + bias)


def test_fmod_keeps_the_sign_of_the_dividend() -> None:
    fn = _fn("a: pl.Tensor[[4, 4], pl.FP32], b: pl.Tensor[[4, 4], pl.FP32], out: pl.Out[pl.Tensor[[4, 4], pl.FP32]]", R, """
x: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [4, 4])
y: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.load(b, [0, 0], [4, 4])
m: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.tile.fmod(x, y)
r: pl.Tensor[[4, 4], pl.FP32] = pl.store(m, [0, 0], out)
return r
""")
    x = np.array([[7.5, -7.5, 7.5, -7.5]] * 4, dtype=np.float32)
    y = np.array([[2, 2, -2, -2]] * 4, dtype=np.float32)
    (r,) = _run(fn, {"a": x, "b": y, "out": np.zeros((4, 4), np.float32)})
    np.testing.assert_array_equal(r[0], [1.5, -1.5, 1.5, -1.5])


@pytest.mark.parametrize(("op", "pick"), [("part_add", np.add), ("part_mul", np.multiply),
                                          ("part_max", np.maximum), ("part_min", np.minimum)])
def test_a_partial_op_keeps_the_first_operand_where_only_it_is_valid(op: str, pick: np.ufunc) -> None:
    fn = _fn("a: pl.Tensor[[4, 4], pl.FP32], b: pl.Tensor[[4, 4], pl.FP32], out: pl.Out[pl.Tensor[[4, 4], pl.FP32]]", R, f"""
x: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [4, 4])
y: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[2, 3])] = pl.load(b, [0, 0], [4, 4], [2, 3])
m: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.tile.{op}(x, y)
r: pl.Tensor[[4, 4], pl.FP32] = pl.store(m, [0, 0], out)
return r
""")
    b = np.full((4, 4), -3, dtype=np.float32)
    (r,) = _run(fn, {"a": A, "b": b, "out": np.zeros((4, 4), np.float32)})
    want = A.copy()
    want[:2, :3] = pick(A[:2, :3], b[:2, :3])
    np.testing.assert_array_equal(r, want)


def test_col_prod_multiplies_the_valid_rows_of_each_column() -> None:
    fn = _fn("a: pl.Tensor[[4, 4], pl.FP32], out: pl.Out[pl.Tensor[[1, 4], pl.FP32]]", "pl.Tensor[[1, 4], pl.FP32]", """
t: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[3, 4])] = pl.load(a, [0, 0], [4, 4], [3, 4])
p: pl.Tile[[1, 4], pl.FP32, pl.Mem.Vec] = pl.tile.col_prod(t)
r: pl.Tensor[[1, 4], pl.FP32] = pl.store(p, [0, 0], out)
return r
""")
    (r,) = _run(fn, {"a": A, "out": np.zeros((1, 4), np.float32)})
    np.testing.assert_array_equal(r[0], A[:3].prod(axis=0))


_SCATTER = ("a: pl.Tensor[[2, 2], pl.FP32], i: pl.Tensor[[2, 2], pl.INT32], out: pl.Out[pl.Tensor[[2, 4], pl.FP32]]",
            "pl.Tensor[[2, 4], pl.FP32]", """
v: pl.Tile[[2, 2], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [2, 2])
o: pl.Tile[[2, 2], pl.INT32, pl.Mem.Vec] = pl.load(i, [0, 0], [2, 2])
z: pl.Tile[[2, 4], pl.FP32, pl.Mem.Vec] = pl.tile.full([2, 4], dtype=pl.FP32, value=-1.0)
d: pl.Tile[[2, 4], pl.FP32, pl.Mem.Vec] = pl.tile.scatter(z, v, o)
r: pl.Tensor[[2, 4], pl.FP32] = pl.store(d, [0, 0], out)
return r
""")


def test_scatter_writes_each_element_at_its_flat_offset_of_the_destination() -> None:
    fn = _fn(*_SCATTER)
    v = np.array([[1, 2], [3, 4]], dtype=np.float32)
    (r,) = _run(fn, {"a": v, "i": np.array([[7, 0], [2, 5]], dtype=np.int32), "out": np.zeros((2, 4), np.float32)})
    np.testing.assert_array_equal(r, [[2, -1, 3, -1], [-1, 4, -1, 1]])


def test_a_scatter_offset_written_twice_takes_the_later_element() -> None:
    """Row-major order, the last write winning, as the reference's runtime tests pin it
    (test_scatter.py, "ascending-k last-wins")."""
    fn = _fn(*_SCATTER)
    v = np.array([[1, 2], [3, 4]], dtype=np.float32)
    (r,) = _run(fn, {"a": v, "i": np.array([[5, 5], [0, 5]], dtype=np.int32), "out": np.zeros((2, 4), np.float32)})
    np.testing.assert_array_equal(r, [[3, -1, -1, -1], [-1, 4, -1, -1]])


def test_an_mscatter_offset_written_twice_with_two_values_is_undefined_data() -> None:
    fn = _fn(*_MSCATTER)
    v = np.array([[1, 2], [3, 4]], dtype=np.float32)
    args = {"a": v, "i": np.array([[5, 5], [0, 6]], dtype=np.int32), "out": np.zeros(8, np.float32)}
    (r,) = _run(fn, args)  # the poison filling at the offset written twice
    assert np.isnan(np.asarray(r)[5])
    np.testing.assert_array_equal(np.asarray(r)[[0, 6]], [3, 4])


def test_a_scatter_offset_outside_the_destination_is_an_error() -> None:
    fn = _fn(*_SCATTER)
    with pytest.raises(InterpreterError, match=r"tile\.scatter offset 8 is outside the"):
        _run(fn, {"a": np.ones((2, 2), np.float32), "i": np.array([[8, 0], [1, 2]], dtype=np.int32),
                  "out": np.zeros((2, 4), np.float32)})


@pytest.mark.parametrize("kernel", ["scatter", "mscatter"])
def test_scattered_offsets_are_drawn_all_different_inside_the_destination(kernel: str) -> None:
    """`tile.scatter` into a [2, 4] tile and `tile.mscatter` into an [8] tensor: four offsets,
    all different, in [0, 8)."""
    fn = _fn(*(_SCATTER if kernel == "scatter" else _MSCATTER))
    for seed in range(20):
        offsets = random_inputs(fn, np.random.default_rng(seed))["i"].reshape(-1)
        assert len(set(offsets.tolist())) == 4
        assert offsets.min() >= 0
        assert offsets.max() < 8


# offsets made of a per-row part and a per-row base, as PyPTO's own scatter and gather tests
# build them: `idx + 16 * row` into an [8, 16] tile, `8 * idx + column` into 64 elements, and a
# row index per row (`32 * idx + column`) into a [32, 32] tile, through an INT16 cast
_ROW_BASE_SCATTER = ("a: pl.Tensor[[8, 8], pl.FP32], i: pl.Tensor[[8, 8], pl.INT32], "
                     "out: pl.Out[pl.Tensor[[8, 16], pl.FP32]]", "pl.Tensor[[8, 16], pl.FP32]", """
v: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [8, 8])
o: pl.Tile[[8, 8], pl.INT32, pl.Mem.Vec] = pl.load(i, [0, 0], [8, 8])
ci: pl.Tile[[1, 8], pl.INT32, pl.Mem.Vec] = pl.tile.ci(pl.const(0, pl.INT32), [1, 8], dtype=pl.INT32)
rows: pl.Tile[[1, 8], pl.INT32, pl.Mem.Vec] = pl.tile.muls(ci, pl.const(16, pl.INT32))
base: pl.Tile[[8, 1], pl.INT32, pl.Mem.Vec] = pl.tile.reshape(rows, [8, 1])
flat: pl.Tile[[8, 8], pl.INT32, pl.Mem.Vec] = pl.tile.row_expand_add(o, base)
z: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.full([8, 16], dtype=pl.FP32, value=0.0)
d: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.scatter(z, v, flat)
r: pl.Tensor[[8, 16], pl.FP32] = pl.store(d, [0, 0], out)
return r
""")
_SCALED_GATHER = ("a: pl.Tensor[[1, 64], pl.FP32], i: pl.Tensor[[1, 8], pl.INT32], "
                  "out: pl.Out[pl.Tensor[[1, 8], pl.FP32]]", "pl.Tensor[[1, 8], pl.FP32]", """
src: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [1, 64])
o: pl.Tile[[1, 8], pl.INT32, pl.Mem.Vec] = pl.load(i, [0, 0], [1, 8])
s: pl.Tile[[1, 8], pl.INT32, pl.Mem.Vec] = pl.tile.muls(o, pl.const(8, pl.INT32))
ci: pl.Tile[[1, 8], pl.INT32, pl.Mem.Vec] = pl.tile.ci(pl.const(0, pl.INT32), [1, 8], dtype=pl.INT32)
flat: pl.Tile[[1, 8], pl.INT32, pl.Mem.Vec] = pl.tile.add(s, ci)
tmp: pl.Tile[[1, 8], pl.INT32, pl.Mem.Vec] = pl.tile.create([1, 8], dtype=pl.INT32, target_memory=pl.Mem.Vec)
g: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.gather(src, flat, tmp)
r: pl.Tensor[[1, 8], pl.FP32] = pl.store(g, [0, 0], out)
return r
""")
_ROW_INDEX_SCATTER = ("a: pl.Tensor[[4, 32], pl.FP16], i: pl.Tensor[[1, 4], pl.INT32], "
                      "out: pl.Out[pl.Tensor[[32, 32], pl.FP16]]", "pl.Tensor[[32, 32], pl.FP16]", """
v: pl.Tile[[4, 32], pl.FP16, pl.Mem.Vec] = pl.load(a, [0, 0], [4, 32])
o: pl.Tile[[1, 4], pl.INT32, pl.Mem.Vec] = pl.load(i, [0, 0], [1, 4])
scaled: pl.Tile[[1, 4], pl.INT32, pl.Mem.Vec] = pl.tile.muls(o, pl.const(32, pl.INT32))
base: pl.Tile[[4, 1], pl.INT32, pl.Mem.Vec] = pl.tile.reshape(scaled, [4, 1])
ci: pl.Tile[[1, 32], pl.INT32, pl.Mem.Vec] = pl.tile.ci(pl.const(0, pl.INT32), [1, 32], dtype=pl.INT32)
zero: pl.Tile[[4, 32], pl.INT32, pl.Mem.Vec] = pl.tile.full([4, 32], dtype=pl.INT32, value=0)
cols: pl.Tile[[4, 32], pl.INT32, pl.Mem.Vec] = pl.tile.col_expand(zero, ci)
flat: pl.Tile[[4, 32], pl.INT32, pl.Mem.Vec] = pl.tile.row_expand_add(cols, base)
narrow: pl.Tile[[4, 32], pl.INT16, pl.Mem.Vec] = pl.tile.cast(flat, target_type=pl.INT16, mode='none')
z: pl.Tile[[32, 32], pl.FP16, pl.Mem.Vec] = pl.tile.full([32, 32], dtype=pl.FP16, value=0.0)
d: pl.Tile[[32, 32], pl.FP16, pl.Mem.Vec] = pl.tile.scatter(z, v, narrow)
r: pl.Tensor[[32, 32], pl.FP16] = pl.store(d, [0, 0], out)
return r
""")


def test_per_row_offsets_with_a_row_base_are_drawn_inside_their_row_and_different_in_it() -> None:
    """`idx + 16 * row` into an [8, 16] tile: each row of `idx` in [0, 16), all different, so
    every draw runs and writes each offset once."""
    fn = _fn(*_ROW_BASE_SCATTER)
    for seed in range(20):
        inputs = random_inputs(fn, np.random.default_rng(seed))
        offsets = inputs["i"]
        assert offsets.min() >= 0
        assert offsets.max() < 16
        assert all(len(set(row.tolist())) == 8 for row in offsets)
        _run(fn, inputs)


@pytest.mark.parametrize("program", ["scaled gather", "row index scatter"])
def test_scaled_indices_are_drawn_so_the_offsets_stay_inside(program: str) -> None:
    """`8 * idx + column` into 64 elements: `idx` in [0, 8); a row index per row of a [32, 32]
    scatter (`32 * idx + column`, narrowed to INT16): `idx` in [0, 32), all different."""
    fn = _fn(*(_SCALED_GATHER if program == "scaled gather" else _ROW_INDEX_SCATTER))
    top = 8 if program == "scaled gather" else 32
    for seed in range(20):
        inputs = random_inputs(fn, np.random.default_rng(seed))
        idx = inputs["i"].reshape(-1)
        assert idx.min() >= 0
        assert idx.max() < top
        if program == "row index scatter":
            assert len(set(idx.tolist())) == idx.size
        _run(fn, inputs)


def test_reinterpret_view_reads_the_tile_s_bytes_as_another_dtype() -> None:
    fn = _fn("a: pl.Tensor[[4, 4], pl.FP32], out: pl.Out[pl.Tensor[[4, 8], pl.INT16]]", "pl.Tensor[[4, 8], pl.INT16]", """
t: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [4, 4])
h: pl.Tile[[4, 8], pl.INT16, pl.Mem.Vec] = pl.tile.reinterpret_view(t, dtype=pl.INT16)
r: pl.Tensor[[4, 8], pl.INT16] = pl.store(h, [0, 0], out)
return r
""")
    (r,) = _run(fn, {"a": A, "out": np.zeros((4, 8), np.int16)})
    np.testing.assert_array_equal(r, A.view(np.int16))  # little-endian halves, row by row


def test_reinterpret_view_of_bf16_is_declined() -> None:
    fn = _fn("a: pl.Tensor[[4, 4], pl.BF16], out: pl.Out[pl.Tensor[[4, 4], pl.INT16]]", "pl.Tensor[[4, 4], pl.INT16]", """
t: pl.Tile[[4, 4], pl.BF16, pl.Mem.Vec] = pl.load(a, [0, 0], [4, 4])
h: pl.Tile[[4, 4], pl.INT16, pl.Mem.Vec] = pl.tile.reinterpret_view(t, dtype=pl.INT16)
r: pl.Tensor[[4, 4], pl.INT16] = pl.store(h, [0, 0], out)
return r
""")
    with pytest.raises(InterpreterError, match=r"tile\.reinterpret_view from pl\.BF16 to pl\.INT16"):
        _run(fn, {"a": A, "out": np.zeros((4, 4), np.int16)})


_BIT_DTYPES = [("INT8", np.int8), ("INT16", np.int16), ("INT32", np.int32), ("UINT16", np.uint16),
               ("UINT32", np.uint32)]
_BIT_ORACLE = {"and": lambda x, y: x & y, "or": lambda x, y: x | y, "xor": lambda x, y: x ^ y,
               "shl": lambda x, y: x << y, "shr": lambda x, y: x >> y}


def _bit_kernel(op: str, dtype: str, second: str) -> object:
    """`r = tile.<op>(x, <second>[, tmp])` on [4, 4] tiles of `dtype`; `second` is `y` (the
    tile form) or a scalar expression (the scalar form)."""
    tensor = f"pl.Tensor[[4, 4], pl.{dtype}]"
    tmp = f", pl.tile.create([4, 4], dtype=pl.{dtype}, target_memory=pl.Mem.Vec)" if op.startswith("xor") else ""
    return _fn(f"a: {tensor}, b: {tensor}, k: pl.Scalar[pl.{dtype}], out: pl.Out[{tensor}]", tensor, f"""
x: pl.Tile[[4, 4], pl.{dtype}, pl.Mem.Vec] = pl.load(a, [0, 0], [4, 4])
y: pl.Tile[[4, 4], pl.{dtype}, pl.Mem.Vec] = pl.load(b, [0, 0], [4, 4])
z: pl.Tile[[4, 4], pl.{dtype}, pl.Mem.Vec] = pl.tile.{op if op not in ("and", "or") else op + "_"}(x, {second}{tmp})
r: {tensor} = pl.store(z, [0, 0], out)
return r
""")


@pytest.mark.parametrize(("dtype", "np_dtype"), _BIT_DTYPES)
@pytest.mark.parametrize("op", sorted(_BIT_ORACLE))
def test_integer_bit_ops_wrap_at_the_dtype(op: str, dtype: str, np_dtype: type) -> None:
    """Each bit op, tile and scalar form, against Python's integers wrapped at the dtype (the
    shift amounts in [0, bits), the right-shifted elements non-negative)."""
    info = np.iinfo(np_dtype)
    bits = info.bits
    rng = np.random.default_rng(bits)
    low = 0 if op == "shr" else info.min
    x = rng.integers(low, info.max, size=(4, 4), endpoint=True).astype(np_dtype)
    y = (rng.integers(0, bits, size=(4, 4)) if op in ("shl", "shr")
         else rng.integers(info.min, info.max, size=(4, 4), endpoint=True)).astype(np_dtype)
    k = int(y[1, 2])
    scalar_dtype = ir.DType[dtype]
    for second, operand in (("y", y), ("k", np.full((4, 4), k, dtype=np_dtype))):
        name = op if second == "y" else f"{op}s"
        fn = _bit_kernel(name, dtype, second)
        (r,) = _run(fn, {"a": x, "b": y, "k": k, "out": np.zeros((4, 4), np_dtype)}, modelled=True)
        want = [[scalar_dtype.wrap(_BIT_ORACLE[op](int(p), int(q))) for p, q in zip(row, orow, strict=True)]
                for row, orow in zip(x.tolist(), operand.tolist(), strict=True)]
        np.testing.assert_array_equal(r, np.array(want, dtype=np_dtype), err_msg=name)


@pytest.mark.parametrize("amount", [-1, 32])
def test_a_tile_shift_by_an_amount_outside_the_width_is_a_fault(amount: int) -> None:
    fn = _bit_kernel("shls", "INT32", "k")
    x = np.ones((4, 4), np.int32)
    with pytest.raises(InterpreterError, match=rf"'tile\.shls' shifts by {amount}, outside \[0, 32\)"):
        _run(fn, {"a": x, "b": x, "k": amount, "out": np.zeros((4, 4), np.int32)})


def test_a_right_shift_of_a_negative_signed_element_is_not_modelled() -> None:
    fn = _bit_kernel("shrs", "INT32", "k")
    x = np.full((4, 4), -8, np.int32)
    with pytest.raises(Unmodelled, match="arithmetic or logical"):
        _run(fn, {"a": x, "b": x, "k": 1, "out": np.zeros((4, 4), np.int32)})


def test_not_complements_the_bits_and_float_bit_ops_are_declined() -> None:
    fn = _fn("a: pl.Tensor[[4, 4], pl.UINT16], out: pl.Out[pl.Tensor[[4, 4], pl.UINT16]]", "pl.Tensor[[4, 4], pl.UINT16]", """
x: pl.Tile[[4, 4], pl.UINT16, pl.Mem.Vec] = pl.load(a, [0, 0], [4, 4])
z: pl.Tile[[4, 4], pl.UINT16, pl.Mem.Vec] = pl.tile.not_(x)
r: pl.Tensor[[4, 4], pl.UINT16] = pl.store(z, [0, 0], out)
return r
""")
    x = np.arange(16, dtype=np.uint16).reshape(4, 4) * 4000
    (r,) = _run(fn, {"a": x, "out": np.zeros((4, 4), np.uint16)}, modelled=True)
    np.testing.assert_array_equal(r, ~x)
    fl = _fn(P, R, """
x: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [4, 4])
z: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.tile.and_(x, x)
r: pl.Tensor[[4, 4], pl.FP32] = pl.store(z, [0, 0], out)
return r
""")
    with pytest.raises(InterpreterError, match=r"'tile\.and' on FP32 tiles is not modelled"):
        _run(fl, {"a": A, "out": np.zeros((4, 4), np.float32)})


_MSCATTER = ("a: pl.Tensor[[2, 2], pl.FP32], i: pl.Tensor[[2, 2], pl.INT32], out: pl.Out[pl.Tensor[[8], pl.FP32]]",
             "pl.Tensor[[8], pl.FP32]", """
v: pl.Tile[[2, 2], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [2, 2])
o: pl.Tile[[2, 2], pl.INT32, pl.Mem.Vec] = pl.load(i, [0, 0], [2, 2])
r = pl.tile.mscatter(v, o, out)
return r
""")


def test_mscatter_writes_each_element_at_its_flat_offset_of_the_tensor() -> None:
    """The result's type is the tensor's (inferred: `r` has no annotation), and the tensor's
    other elements keep their values."""
    fn = _fn(*_MSCATTER)
    v = np.array([[1, 2], [3, 4]], dtype=np.float32)
    (r,) = _run(fn, {"a": v, "i": np.array([[7, 0], [2, 5]], dtype=np.int32), "out": np.full(8, -1, np.float32)},
                modelled=True)
    np.testing.assert_array_equal(r, [2, -1, 3, -1, -1, 4, -1, 1])


def test_an_mscatter_offset_outside_the_tensor_is_an_error_and_a_clash_is_undefined() -> None:
    fn = _fn(*_MSCATTER)
    with pytest.raises(InterpreterError, match=r"tile\.mscatter offset 8 is outside the \[8\] destination"):
        _run(fn, {"a": np.ones((2, 2), np.float32), "i": np.array([[8, 0], [1, 2]], dtype=np.int32),
                  "out": np.zeros(8, np.float32)})
    (r,) = _run(fn, {"a": np.array([[1, 2], [3, 4]], np.float32), "i": np.array([[1, 1], [2, 3]], dtype=np.int32),
                     "out": np.zeros(8, np.float32)})
    assert np.isnan(r[1])  # two different values at one offset: the order decides, undefined data
    np.testing.assert_array_equal(r[2:4], [3, 4])


_ARRAY = ("i: pl.Tensor[[1, 4], pl.INT32], a: pl.Tensor[[8, 4], pl.FP32], out: pl.Out[pl.Tensor[[8, 4], pl.FP32]]",
          "pl.Tensor[[8, 4], pl.FP32]")


def test_an_array_is_a_value_each_update_makes_a_new_one() -> None:
    """`array.update_element` leaves its operand as it was (the IR's arrays are values), an
    element is wrapped at the array's dtype, and the rows read back from the array are the
    rows each store writes."""
    fn = _fn(*_ARRAY, """
it: pl.Tile[[1, 4], pl.INT32, pl.Mem.Vec] = pl.load(i, [0, 0], [1, 4])
t: pl.Tile[[1, 4], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [1, 4])
arr = pl.array.create(4, dtype=pl.INT8)
for k in pl.range(4):
    v: pl.Scalar[pl.INT32] = pl.tile.read(it, [0, k])
    arr = pl.array.update_element(arr, k, v)
old = arr
arr = pl.array.update_element(arr, 0, 263)
r0 = pl.cast(pl.array.get_element(old, 0), pl.INDEX)
r1 = pl.cast(pl.array.get_element(arr, 0), pl.INDEX)
out = pl.store(t, [r0, 0], out)
out = pl.store(t, [r1, 0], out)
return out
""")
    rows = np.array([[3, 1, 2, 0]], dtype=np.int32)
    (r,) = _run(fn, {"i": rows, "a": A.repeat(2, axis=0), "out": np.zeros((8, 4), np.float32)}, modelled=True)
    written = [k for k in range(8) if r[k].any()]
    assert written == [3, 7]  # the old version's element 0, and 263 wrapped at INT8 (7)


@pytest.mark.parametrize("index", [1, 4])
def test_an_array_element_read_before_it_is_written_is_undefined_and_indexes_stay_inside(index: int) -> None:
    fn = _fn(*_ARRAY, f"""
arr = pl.array.create(4, dtype=pl.INT32)
arr = pl.array.update_element(arr, 0, 5)
g = pl.array.get_element(arr, {index})
return out
""")
    args = {"i": np.zeros((1, 4), np.int32), "a": A.repeat(2, axis=0), "out": np.zeros((8, 4), np.float32)}
    it = Interpreter(physical=False, prefetch=False)
    if index == 4:
        with pytest.raises(InterpreterError, match=r"array\.get_element index 4 is outside an array of 4 elements"):
            it.run(fn, args)
        return
    it.run(fn, args)
    assert it.undefined.reads == ["array.get_element at 10:13 reads an element never written"]


def test_indices_carried_through_an_array_are_drawn_inside_what_they_index() -> None:
    fn = _fn(*_ARRAY, """
it: pl.Tile[[1, 4], pl.INT32, pl.Mem.Vec] = pl.load(i, [0, 0], [1, 4])
t: pl.Tile[[1, 4], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [1, 4])
arr = pl.array.create(4, dtype=pl.INT32)
for k in pl.range(4):
    v: pl.Scalar[pl.INT32] = pl.tile.read(it, [0, k])
    arr = pl.array.update_element(arr, k, v)
for k in pl.range(4):
    r = pl.cast(pl.array.get_element(arr, k), pl.INDEX)
    out = pl.store(t, [r, 0], out)
return out
""")
    for seed in range(10):
        drawn = random_inputs(fn, np.random.default_rng(seed))["i"]
        assert drawn.min() >= 0
        assert drawn.max() < 8
