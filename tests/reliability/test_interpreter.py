"""The interpreter (`slotsat/interpreter.py`).

Groups: scalar semantics (floor division, wrap at the dtype, casts, comparisons, against a
hypothesis reference); tile operations (load/store with offsets and valid shapes, elementwise,
row ops, matmul, cast, views, read); control flow (loops with carried values, ifs); the
physical-buffer model and its pipelined loads; run-time faults as `InterpreterError`.
"""

# ruff: noqa: E501  (embedded kernel text keeps one statement per line, 10-dsl.md §9.1)

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from slotsat.core import ir
from slotsat.core.dsl.parser import parse_file, parse_source
from slotsat.core.inputs import random_inputs
from slotsat.core.interp_errors import InterpreterError
from slotsat.core.interpreter import as_dtype, eval_scalar, outputs_equal, round_bf16, run_function
from slotsat.core.ir import DType
from slotsat.core.semantics import EvalError, eval_expr

DATA = Path(__file__).parent / "data"
KERNELS = Path(__file__).resolve().parents[2] / "examples" / "kernels"


def _kernel(params: str, ret: str, body: str, decls: str = "") -> ir.Function:
    lines = body.strip("\n").splitlines()
    indented = "\n".join("        " + ln for ln in lines)
    text = (f"import pypto.language as pl\n{decls}\n\n@pl.program\nclass K:\n"
            f"    @pl.function(type=pl.FunctionType.InCore)\n"
            f"    def kernel(self, {params}) -> {ret}:\n{indented}\n")
    return parse_source(text, "k.py").programs[0].functions[0]


def _no_env(v: ir.Var) -> int:
    raise AssertionError(v)


# ---- scalar semantics


@pytest.mark.parametrize(
    ("node", "expected"),
    [
        (ir.FloorMod(ir.const(-97), ir.const(24), DType.INDEX), 23),
        (ir.FloorMod(ir.const(7), ir.const(-3), DType.INDEX), -2),
        (ir.FloorDiv(ir.const(-7), ir.const(2), DType.INDEX), -4),
        (ir.Add(ir.const(2**31 - 1, DType.INT32), ir.const(1, DType.INT32), DType.INT32), -(2**31)),
        (ir.Mul(ir.const(100, DType.INT8), ir.const(3, DType.INT8), DType.INT8), 44),
        (ir.Sub(ir.const(0, DType.UINT8), ir.const(1, DType.UINT8), DType.UINT8), 255),
        (ir.Cast(ir.const(300, DType.INT32), DType.INT8), 44),
        (ir.Cast(ir.const(-5, DType.INT8), DType.INT64), -5),
        (ir.const(2147483648, DType.INT32), -2147483648),
        (ir.Cmp(ir.CmpOp.LT, ir.const(-1), ir.const(0)), 1),
        (ir.Cmp(ir.CmpOp.GE, ir.const(3), ir.const(4)), 0),
    ],
)
def test_scalar_semantics(node: ir.Expr, expected: int) -> None:
    assert eval_scalar(node, _no_env) == expected


def test_division_by_zero_is_an_interpreter_error() -> None:
    with pytest.raises(InterpreterError, match="division by zero"):
        eval_scalar(ir.FloorMod(ir.const(3), ir.const(0), DType.INDEX), _no_env)


def test_min_floordiv_minus_one_is_an_interpreter_error() -> None:
    node = ir.FloorDiv(ir.const(-(2**63), DType.INT64), ir.const(-1, DType.INT64), DType.INT64)
    with pytest.raises(InterpreterError, match="overflows"):
        eval_scalar(node, _no_env)


_INT_DTYPES = [DType.INDEX, DType.INT8, DType.INT16, DType.INT32, DType.INT64, DType.UINT8, DType.UINT32]
_OPS = [ir.Add, ir.Sub, ir.Mul, ir.FloorDiv, ir.FloorMod]
_PY = {ir.Add: lambda a, b: a + b, ir.Sub: lambda a, b: a - b, ir.Mul: lambda a, b: a * b,
       ir.FloorDiv: lambda a, b: a // b, ir.FloorMod: lambda a, b: a % b}


@given(st.sampled_from(_INT_DTYPES), st.sampled_from(_OPS), st.integers(-(2**64), 2**64),
       st.integers(-(2**64), 2**64))
def test_binary_ops_are_exact_then_wrapped(dtype: DType, op: type, a: int, b: int) -> None:
    wa, wb = dtype.wrap(a), dtype.wrap(b)
    node = op(ir.const(a, dtype), ir.const(b, dtype), dtype)
    if op in (ir.FloorDiv, ir.FloorMod) and wb == 0:
        with pytest.raises(InterpreterError):
            eval_scalar(node, _no_env)
        return
    assert eval_scalar(node, _no_env) == dtype.wrap(_PY[op](wa, wb))


_LEAVES = st.builds(ir.const, st.integers(-(2**40), 2**40), st.just(DType.INT64))


def _trees(leaf: st.SearchStrategy[ir.Expr]) -> st.SearchStrategy[ir.Expr]:
    return st.builds(lambda op, a, b: op(a, b, DType.INT64), st.sampled_from(_OPS), leaf, leaf)


@given(st.recursive(_LEAVES, _trees, max_leaves=8))
def test_eval_scalar_agrees_with_the_exact_evaluator(e: ir.Expr) -> None:
    try:
        expected: int | None = eval_expr(e, {})
    except EvalError:
        expected = None
    if expected is None:
        with pytest.raises(InterpreterError):
            eval_scalar(e, _no_env)
    else:
        assert eval_scalar(e, _no_env) == expected


def test_variables_come_from_the_environment() -> None:
    i = ir.Var("i", ir.ScalarType(DType.INDEX))
    slot = ir.FloorMod(ir.FloorDiv(ir.Sub(i, ir.const(8), DType.INDEX), ir.const(64), DType.INDEX),
                       ir.const(4), DType.INDEX)
    assert [eval_scalar(slot, lambda v, x=x: x) for x in (8, 72, 136, 200, 264)] == [0, 1, 2, 3, 0]


# ---- tile operations


def test_load_store_with_offsets_round_trips_a_region() -> None:
    fn = _kernel("a: pl.Tensor[[8, 16], pl.INT32], out: pl.Out[pl.Tensor[[8, 16], pl.INT32]]",
                 "pl.Tensor[[8, 16], pl.INT32]", """
t: pl.Tile[[4, 8], pl.INT32, pl.Mem.Vec] = pl.load(a, [2, 4], [4, 8])
r: pl.Tensor[[8, 16], pl.INT32] = pl.store(t, [0, 0], out)
return r
""")
    a = np.arange(128, dtype=np.int32).reshape(8, 16)
    out = np.full((8, 16), -1, dtype=np.int32)
    (r,) = run_function(fn, {"a": a, "out": out})
    assert isinstance(r, np.ndarray)
    np.testing.assert_array_equal(r[:4, :8], a[2:6, 4:12])
    assert (r[4:, :] == -1).all()
    assert (out == -1).all()  # stores are functional


def test_a_tile_parameter_is_drawn_and_bound_over_its_declared_valid_shape() -> None:
    """A function the reference's passes give a tile argument: `random_inputs` draws its
    elements, the run binds it valid over the extent its type declares."""
    fn = _kernel("t: pl.Tile[[4, 8], pl.INT32, pl.Mem.Vec, pl.TileView(valid_shape=[3, 8])], out: pl.Out[pl.Tensor[[4, 8], pl.INT32]]",
                 "pl.Tensor[[4, 8], pl.INT32]", """
u: pl.Tile[[4, 8], pl.INT32, pl.Mem.Vec] = pl.tile.adds(t, 1)
r: pl.Tensor[[4, 8], pl.INT32] = pl.store(u, [0, 0], out)
return r
""")
    args = random_inputs(fn, np.random.default_rng(5))
    assert args["t"].shape == (4, 8)
    out = np.full((4, 8), -1, dtype=np.int32)
    (r,) = run_function(fn, {"t": args["t"], "out": out})
    assert isinstance(r, np.ndarray)
    np.testing.assert_array_equal(r[:3], args["t"][:3] + 1)
    assert (r[3] == -1).all()


def test_store_writes_only_the_valid_part() -> None:
    fn = _kernel("a: pl.Tensor[[8, 8], pl.FP32], out: pl.Out[pl.Tensor[[8, 8], pl.FP32]]",
                 "pl.Tensor[[8, 8], pl.FP32]", """
t: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[2, 8])] = pl.load(a, [0, 0], [4, 8], [2, 8])
e: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[2, 8])] = pl.exp(t)
r: pl.Tensor[[8, 8], pl.FP32] = pl.store(e, [0, 0], out)
return r
""")
    a = np.ones((8, 8), dtype=np.float32)
    (r,) = run_function(fn, {"a": a, "out": np.zeros((8, 8), np.float32)})
    assert isinstance(r, np.ndarray)
    np.testing.assert_allclose(r[:2], np.e, rtol=1e-6)
    assert (r[2:] == 0).all()


def test_an_out_of_range_load_is_a_clean_error() -> None:
    fn = _kernel("a: pl.Tensor[[8, 8], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[8, 8], pl.FP32]]",
                 "pl.Tensor[[8, 8], pl.FP32]", """
t: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec] = pl.load(a, [n, 0], [4, 8])
r: pl.Tensor[[8, 8], pl.FP32] = pl.store(t, [0, 0], out)
return r
""")
    z = np.zeros((8, 8), np.float32)
    run_function(fn, {"a": z, "n": 4, "out": z})
    with pytest.raises(InterpreterError, match="outside a tensor dimension of size 8"):
        run_function(fn, {"a": z, "n": 5, "out": z})


def test_row_reduction_and_broadcast_normalise_rows() -> None:
    fn = _kernel("a: pl.Tensor[[4, 8], pl.FP32], out: pl.Out[pl.Tensor[[4, 8], pl.FP32]]",
                 "pl.Tensor[[4, 8], pl.FP32]", """
t: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [4, 8])
s: pl.Tile[[4, 1], pl.FP32, pl.Mem.Vec] = pl.row_sum(t)
n: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec] = pl.row_expand_div(t, s)
m: pl.Tile[[4, 1], pl.FP32, pl.Mem.Vec] = pl.row_max(n)
q: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec] = pl.row_expand_sub(n, m)
r: pl.Tensor[[4, 8], pl.FP32] = pl.store(q, [0, 0], out)
return r
""")
    a = np.random.default_rng(1).uniform(1, 2, (4, 8)).astype(np.float32)
    (r,) = run_function(fn, {"a": a, "out": np.zeros_like(a)})
    n = a / a.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(r, n - n.max(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)


def _matmul_twice(m: int, k: int, n: int, dtype: str) -> ir.Function:
    """`c = a @ b` by `tile.matmul` then `tile.matmul_acc` onto it (so `2 * a @ b`), INT32
    accumulator, operands of `dtype`."""
    return _kernel(f"a: pl.Tensor[[{m}, {k}], pl.{dtype}], b: pl.Tensor[[{k}, {n}], pl.{dtype}], "
                   f"c: pl.Out[pl.Tensor[[{m}, {n}], pl.INT32]]", f"pl.Tensor[[{m}, {n}], pl.INT32]", f"""
am: pl.Tile[[{m}, {k}], pl.{dtype}, pl.Mem.Mat] = pl.load(a, [0, 0], [{m}, {k}], target_memory=pl.Mem.Mat)
bm: pl.Tile[[{k}, {n}], pl.{dtype}, pl.Mem.Mat] = pl.load(b, [0, 0], [{k}, {n}], target_memory=pl.Mem.Mat)
al: pl.Tile[[{m}, {k}], pl.{dtype}, pl.Mem.Left] = pl.tile.move(am, target_memory=pl.Mem.Left)
br: pl.Tile[[{k}, {n}], pl.{dtype}, pl.Mem.Right] = pl.tile.move(bm, target_memory=pl.Mem.Right)
c0: pl.Tile[[{m}, {n}], pl.INT32, pl.Mem.Acc] = pl.tile.matmul(al, br)
c1: pl.Tile[[{m}, {n}], pl.INT32, pl.Mem.Acc] = pl.tile.matmul_acc(c0, al, br)
r: pl.Tensor[[{m}, {n}], pl.INT32] = pl.store(c1, [0, 0], c)
return r
""")


def test_int8_matmul_accumulates_in_int32() -> None:
    fn = _matmul_twice(16, 16, 16, "INT8")
    rng = np.random.default_rng(2)
    a = rng.integers(-128, 128, (16, 16)).astype(np.int8)
    b = rng.integers(-128, 128, (16, 16)).astype(np.int8)
    (r,) = run_function(fn, {"a": a, "b": b, "c": np.zeros((16, 16), np.int32)})
    np.testing.assert_array_equal(r, 2 * (a.astype(np.int64) @ b.astype(np.int64)))


@given(st.integers(0, 2**32 - 1), st.sampled_from([1, 1000, 2**20, 2**31 - 1]))
def test_an_integer_matmul_is_exact_at_its_accumulator_however_large_the_products(seed: int,
                                                                                  top: int) -> None:
    """INT32 operands up to `top` in magnitude: `matmul` then `matmul_acc` equals the exact
    product sum wrapped at INT32 (small operands take the float64 path, large ones the wrapping
    uint64 one)."""
    fn = _matmul_twice(16, 32, 16, "INT32")
    rng = np.random.default_rng(seed)
    a = rng.integers(-top, top + 1, (16, 32)).astype(np.int32)
    b = rng.integers(-top, top + 1, (32, 16)).astype(np.int32)
    (r,) = run_function(fn, {"a": a, "b": b, "c": np.zeros((16, 16), np.int32)})
    exact = 2 * (a.astype(object) @ b.astype(object))
    assert r.reshape(-1).tolist() == [DType.INT32.wrap(int(x)) for x in exact.reshape(-1)]


@given(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=64), max_size=12),
       st.sampled_from([DType.INT8, DType.INT16, DType.INT32, DType.INT64, DType.UINT8, DType.UINT32,
                        DType.UINT64]))
def test_a_float_array_cast_to_an_integer_dtype_truncates_and_wraps(values: list[float], dtype: DType) -> None:
    """Toward zero, NaN and infinities as 0, then wrapped at the dtype, element by element as
    Python integers would; magnitudes past 2**63 included."""
    arr = np.array(values, dtype=np.float64)
    expected = [dtype.wrap(int(x)) if np.isfinite(x) else 0 for x in np.trunc(arr)]
    assert as_dtype(arr, dtype).tolist() == expected


def test_views_cast_read_and_scalar_ops() -> None:
    fn = _kernel("a: pl.Tensor[[4, 8], pl.FP32], out: pl.Out[pl.Tensor[[2, 16], pl.INT32]]",
                 "pl.Tensor[[2, 16], pl.INT32]", """
t: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [4, 8])
v: pl.Scalar[pl.FP32] = pl.tile.read(t, [1, 2])
s: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec] = pl.adds(t, v)
h: pl.Tile[[2, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(s, [2, 8], [2, 0])
w: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(h, [1, 16])
x: pl.Tile[[1, 16], pl.INT32, pl.Mem.Vec] = pl.tile.cast(w, pl.INT32)
r: pl.Tensor[[2, 16], pl.INT32] = pl.store(x, [1, 0], out)
return r
""")
    a = np.arange(32, dtype=np.float32).reshape(4, 8) - 7.5
    (r,) = run_function(fn, {"a": a, "out": np.zeros((2, 16), np.int32)})
    expected = np.trunc((a + a[1, 2])[2:4].reshape(16)).astype(np.int32)
    np.testing.assert_array_equal(r[1], expected)
    assert (r[0] == 0).all()


def test_bf16_values_are_rounded_to_bfloat16() -> None:
    # 7 fraction bits: ties go to the even neighbour, others to the nearest.
    x = np.array([1.0 + 2**-8, 1.0 + 2**-7 + 2**-8, 1.0 + 2**-7 + 2**-9, 3.0], dtype=np.float32)
    expected = np.array([1.0, 1.0 + 2**-6, 1.0 + 2**-7, 3.0], dtype=np.float32)
    np.testing.assert_array_equal(round_bf16(x), expected)


# ---- control flow


def test_loop_with_scalar_and_tile_carries_and_an_if() -> None:
    fn = _kernel("a: pl.Tensor[[64, 8], pl.INT32], n: pl.Scalar[pl.INDEX], "
                 "out: pl.Out[pl.Tensor[[8, 8], pl.INT32]]", "pl.Tensor[[8, 8], pl.INT32]", """
z: pl.Tile[[8, 8], pl.INT32, pl.Mem.Vec] = pl.load(a, [0, 0], [8, 8])
for i, (acc, off) in pl.range(1, n, init_values=(z, 8)):
    t: pl.Tile[[8, 8], pl.INT32, pl.Mem.Vec] = pl.load(a, [off, 0], [8, 8])
    if i % 2 == 0:
        u: pl.Tile[[8, 8], pl.INT32, pl.Mem.Vec] = pl.add(acc, t)
        w = pl.yield_(u)
    else:
        u2: pl.Tile[[8, 8], pl.INT32, pl.Mem.Vec] = pl.sub(acc, t)
        w = pl.yield_(u2)
    acc2, off2 = pl.yield_(w, off + 8)
r: pl.Tensor[[8, 8], pl.INT32] = pl.store(acc2, [0, 0], out)
return r
""")
    a = np.random.default_rng(3).integers(-50, 50, (64, 8)).astype(np.int32)
    for n in (0, 1, 2, 5, 8):
        (r,) = run_function(fn, {"a": a, "n": n, "out": np.zeros((8, 8), np.int32)})
        expected = a[0:8].astype(np.int64)
        for i in range(1, n):
            blk = a[8 * i:8 * i + 8]
            expected = expected + blk if i % 2 == 0 else expected - blk
        np.testing.assert_array_equal(r, expected, err_msg=f"n={n}")


# ---- the physical-buffer model


def test_two_tiles_in_one_slot_read_the_overwriting_data() -> None:
    fn = parse_file(DATA / "wrong_two_live.py").programs[0].functions[0]
    args = random_inputs(fn, np.random.default_rng(0))
    (logical,) = run_function(fn, args, physical=False)
    (physical,) = run_function(fn, args, physical=True, prefetch=False)
    np.testing.assert_allclose(logical, args["x"] - args["y"], rtol=1e-6)
    assert (physical == 0).all()  # t's slot holds u when sub(t, u) reads it


def test_pipelined_loads_expose_a_slot_shared_by_two_in_flight_iterations() -> None:
    fn = parse_file(DATA / "wrong_div2.py").programs[0].functions[0]
    args = random_inputs(fn, np.random.default_rng(0))
    logical = run_function(fn, args, physical=False)
    assert outputs_equal(logical, run_function(fn, args, physical=True, prefetch=False)) is None
    assert outputs_equal(logical, run_function(fn, args, physical=True, prefetch=True)) is not None


@pytest.mark.parametrize("name", ["row_scale.py", "strided_exp.py", "accumulate.py", "matmul_k.py"])
def test_correct_rotations_agree_under_the_physical_model(name: str) -> None:
    fn = parse_file(KERNELS / name).programs[0].functions[0]
    args = random_inputs(fn, np.random.default_rng(5))
    assert outputs_equal(run_function(fn, args, physical=False), run_function(fn, args)) is None


def test_an_out_of_range_slot_index_is_a_clean_error() -> None:
    fn = _kernel("a: pl.Tensor[[64, 8], pl.FP32], out: pl.Out[pl.Tensor[[64, 8], pl.FP32]]",
                 "pl.Tensor[[64, 8], pl.FP32]", """
for i, (dst,) in pl.range(4, init_values=(out,)):
    t: pl.Tile[[8, 8], pl.FP32, pl.MemRef("pp", slots=2)[i], pl.Mem.Vec] = pl.load(a, [i * 8, 0], [8, 8])
    nxt: pl.Tensor[[64, 8], pl.FP32] = pl.store(t, [i * 8, 0], dst)
    res = pl.yield_(nxt)
return res
""")
    z = np.zeros((64, 8), np.float32)
    with pytest.raises(InterpreterError, match="slot index 2 of tile 't' is out of range for 'pp'"):
        run_function(fn, {"a": z, "out": z})


def test_the_step_limit_stops_a_long_run() -> None:
    fn = parse_file(KERNELS / "row_scale.py").programs[0].functions[0]
    args = random_inputs(fn, np.random.default_rng(0))
    with pytest.raises(InterpreterError, match="step limit"):
        run_function(fn, args, max_steps=10)
