"""The interpreter's model of `tile.fillpad` (issue 16): the valid part kept, every other
element the pad value pto-isa's pad table gives for the dtype, the result valid over its whole
shape; and the cases the sources leave open, declined with the reason."""

# ruff: noqa: E501  (embedded kernel text keeps one statement per line, 10-dsl.md §9.1)

from __future__ import annotations

import numpy as np
import pytest

from slotsat.core import ir
from slotsat.core.interp_errors import InterpreterError, Unmodelled
from slotsat.core.interpreter import ensure_modelled
from tests.reliability.interp_harness import kernel, run


def _rows_fn(dtype: str, mode: str, rows: int = 4, cols: int = 16, valid_rows: int = 2) -> ir.Function:
    """Load `valid_rows` of a `[rows, cols]` tensor into a `[rows, cols]` tile, pad, store all."""
    return kernel(f"a: pl.Tensor[[{rows}, {cols}], pl.{dtype}], out: pl.Out[pl.Tensor[[{rows}, {cols}], pl.{dtype}]]",
                  f"pl.Tensor[[{rows}, {cols}], pl.{dtype}]", f"""
t: pl.Tile[[{rows}, {cols}], pl.{dtype}, pl.Mem.Vec, pl.TileView(valid_shape=[{valid_rows}, {cols}])] = pl.load(a, [0, 0], [{rows}, {cols}], [{valid_rows}, {cols}])
p: pl.Tile[[{rows}, {cols}], pl.{dtype}, pl.Mem.Vec, pl.TileView(pad=pl.PadValue.{mode})] = pl.tile.fillpad(t, pad_value=pl.PadValue.{mode})
r: pl.Tensor[[{rows}, {cols}], pl.{dtype}] = pl.store(p, [0, 0], out)
return r
""")


def _cols_fn(mode: str, dtype: str = "INT32", src_pad: str = "") -> ir.Function:
    """The sort kernels' form: a slice of one row with a runtime valid width `n`, padded."""
    pad = f", pad=pl.PadValue.{src_pad}" if src_pad else ""
    return kernel(f"a: pl.Tensor[[1, 64], pl.{dtype}], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[1, 64], pl.{dtype}]]",
                  f"pl.Tensor[[1, 64], pl.{dtype}]", f"""
t: pl.Tile[[1, 64], pl.{dtype}, pl.Mem.Vec] = pl.load(a, [0, 0], [1, 64], [1, 64])
s: pl.Tile[[1, 64], pl.{dtype}, pl.Mem.Vec, pl.TileView(valid_shape=[1, n]{pad})] = pl.tile.slice(t, [1, 64], [0, 0], [1, n])
p: pl.Tile[[1, 64], pl.{dtype}, pl.Mem.Vec, pl.TileView(pad=pl.PadValue.{mode})] = pl.tile.fillpad(s, pad_value=pl.PadValue.{mode})
r: pl.Tensor[[1, 64], pl.{dtype}] = pl.store(p, [0, 0], out)
return r
""")


@pytest.mark.parametrize(("mode", "fill"), [("min", -np.inf), ("max", np.inf), ("zero", 0.0)])
@pytest.mark.parametrize("dtype", ["FP32", "FP16"])
def test_float_rows_below_the_valid_part_take_the_pad_value(dtype: str, mode: str, fill: float) -> None:
    np_t = np.float32 if dtype == "FP32" else np.float16
    a = (np.arange(64).reshape(4, 16) + 1).astype(np_t)
    (r,) = run(_rows_fn(dtype, mode), {"a": a, "out": np.full((4, 16), 7, np_t)}, modelled=True)
    assert isinstance(r, np.ndarray)
    np.testing.assert_array_equal(r[:2], a[:2])  # the valid part is the source's
    np.testing.assert_array_equal(r[2:], np.full((2, 16), fill, np_t))  # the store wrote the whole tile


@pytest.mark.parametrize(("mode", "fill"), [("min", -2**31), ("max", 2**31 - 1), ("zero", 0)])
def test_int32_columns_past_a_runtime_width_take_the_pad_value(mode: str, fill: int) -> None:
    a = np.arange(100, 164, dtype=np.int32).reshape(1, 64)
    (r,) = run(_cols_fn(mode), {"a": a, "n": 13, "out": np.zeros((1, 64), np.int32)}, modelled=True)
    assert isinstance(r, np.ndarray)
    assert r[0, :13].tolist() == list(range(100, 113))
    assert r[0, 13:].tolist() == [fill] * 51


def test_unsigned_min_is_zero_and_max_all_ones() -> None:
    a = np.arange(1, 65, dtype=np.uint16).reshape(1, 64)
    (lo,) = run(_cols_fn("min", "UINT16"), {"a": a, "n": 5, "out": np.ones((1, 64), np.uint16)})
    (hi,) = run(_cols_fn("max", "UINT16"), {"a": a, "n": 5, "out": np.ones((1, 64), np.uint16)})
    assert isinstance(lo, np.ndarray)
    assert isinstance(hi, np.ndarray)
    assert lo[0, :5].tolist() == hi[0, :5].tolist() == [1, 2, 3, 4, 5]
    assert lo[0, 5:].tolist() == [0] * 59
    assert hi[0, 5:].tolist() == [0xFFFF] * 59


def test_a_fully_valid_source_is_copied_unchanged() -> None:
    a = np.arange(64, dtype=np.int32).reshape(1, 64)
    (r,) = run(_cols_fn("min"), {"a": a, "n": 64, "out": np.zeros((1, 64), np.int32)})
    assert isinstance(r, np.ndarray)
    assert r.tolist() == a.tolist()


@pytest.mark.parametrize(("dtype", "mode"), [("INT8", "min"), ("INT64", "max"), ("INT64", "min")])
def test_pad_values_the_sources_leave_open_are_declined(dtype: str, mode: str) -> None:
    fn = _cols_fn(mode, dtype)
    with pytest.raises(InterpreterError, match=f"pl.{dtype} with pl.PadValue.{mode} .*not pinned down"):
        ensure_modelled(fn)  # before the run, as `slotsat check` asks


def test_int8_zero_and_max_are_modelled() -> None:
    a = np.full((1, 64), -5, np.int8)
    (r,) = run(_cols_fn("max", "INT8"), {"a": a, "n": 3, "out": np.zeros((1, 64), np.int8)}, modelled=True)
    assert isinstance(r, np.ndarray)
    assert r[0].tolist() == [-5] * 3 + [127] * 61


def test_a_source_already_carrying_the_pad_with_unaligned_columns_is_declined() -> None:
    # 13 INT32 columns end inside a 32-byte block (8 elements); the device leaves 13..15 as they are
    fn = _cols_fn("min", src_pad="min")
    a = np.zeros((1, 64), np.int32)
    with pytest.raises(Unmodelled, match="already carries that pad, its 13 valid columns"):
        run(fn, {"a": a, "n": 13, "out": np.zeros((1, 64), np.int32)})
    # on a 32-byte boundary nothing is left over: modelled
    (r,) = run(fn, {"a": a + 1, "n": 16, "out": np.zeros((1, 64), np.int32)})
    assert isinstance(r, np.ndarray)
    assert r[0].tolist() == [1] * 16 + [-2**31] * 48


def test_a_null_pad_is_declined_before_the_run() -> None:
    fn = kernel("a: pl.Tensor[[1, 64], pl.FP32], out: pl.Out[pl.Tensor[[1, 64], pl.FP32]]", "pl.Tensor[[1, 64], pl.FP32]", """
t: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[1, 3])] = pl.load(a, [0, 0], [1, 64], [1, 3])
p: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.fillpad(t, pad_value=pl.PadValue.null)
r: pl.Tensor[[1, 64], pl.FP32] = pl.store(p, [0, 0], out)
return r
""")
    with pytest.raises(InterpreterError, match=r"other than with pad_value=pl\.PadValue\.zero, max or min"):
        ensure_modelled(fn)
