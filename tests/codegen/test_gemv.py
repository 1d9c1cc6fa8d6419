# ruff: noqa: E501  (DSL parameter lists and emitted lines are one line each)
"""The GEMV family (`tile.gemv`, `tile.gemv_bias`, `tile.gemv_acc`): a row vector times a matrix
on the cube, as the reference's PTO backend emits it (`pto.tgemv`, `pto.tgemv.bias`,
`pto.tgemv.acc` with an `accPhase` attribute unless `acc_phase` is `'unspecified'`).

Groups: the reference's printed decode kernel compiles to the reference's own module (up to
SSA names) and `check` confirms its slotted loop; the `accPhase` attribute of each op, omitted
at the default, parsed back and verified by slotsat's dialect; the interpreter's values (the
product row, the bias row, the accumulation in place) against numpy, and what it declines
(an `acc_phase` other than the default, a left operand of more than one row).
"""

from __future__ import annotations

import numpy as np
import pytest

from slotsat.core.interp_errors import InterpreterError, Unmodelled
from slotsat.core.interpreter import ensure_modelled
from tests.codegen.harness import compile_, confirmed, kernel, lines, references_module
from tests.reliability.interp_harness import kernel as interp_kernel
from tests.reliability.interp_harness import run

PARAMS = "x: pl.Tensor[[1, 256], pl.FP32], w: pl.Tensor[[256, 32], pl.FP32], bias: pl.Tensor[[1, 32], pl.FP32], y: pl.Out[pl.Tensor[[1, 32], pl.FP32]]"
RET = "pl.Tensor[[1, 32], pl.FP32]"
OPERANDS = """
xm: pl.Tile[[1, 128], pl.FP32, pl.Mem.Mat] = pl.load(x, [0, 0], [1, 128], target_memory=pl.Mem.Mat)
wm: pl.Tile[[128, 32], pl.FP32, pl.Mem.Mat] = pl.load(w, [0, 0], [128, 32], target_memory=pl.Mem.Mat)
bm: pl.Tile[[1, 32], pl.FP32, pl.Mem.Mat] = pl.load(bias, [0, 0], [1, 32], target_memory=pl.Mem.Mat)
l: pl.Tile[[1, 128], pl.FP32, pl.Mem.Left] = pl.move(xm, target_memory=pl.Mem.Left)
r: pl.Tile[[128, 32], pl.FP32, pl.Mem.Right] = pl.move(wm, target_memory=pl.Mem.Right)
b: pl.Tile[[1, 32], pl.FP32, pl.Mem.Bias] = pl.move(bm, target_memory=pl.Mem.Bias)
xm2: pl.Tile[[1, 128], pl.FP32, pl.Mem.Mat] = pl.load(x, [0, 128], [1, 128], target_memory=pl.Mem.Mat)
wm2: pl.Tile[[128, 32], pl.FP32, pl.Mem.Mat] = pl.load(w, [128, 0], [128, 32], target_memory=pl.Mem.Mat)
l2: pl.Tile[[1, 128], pl.FP32, pl.Mem.Left] = pl.move(xm2, target_memory=pl.Mem.Left)
r2: pl.Tile[[128, 32], pl.FP32, pl.Mem.Right] = pl.move(wm2, target_memory=pl.Mem.Right)
"""
ACC = "pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc, pl.TileView(valid_shape=[1, 32])]"


def _body(ops: str) -> str:
    return OPERANDS + ops + "out: pl.Tensor[[1, 32], pl.FP32] = pl.store(c, [0, 0], y)\nreturn out\n"


def test_the_printed_decode_kernel_compiles_to_the_references_module() -> None:
    """`gemv_decode` of `tools/printed_kernels.py`, as the reference prints it at the hand-off
    point, in `--mode pypto`: the reference's `.pto` operation for operation."""
    ours, theirs = references_module("gemv_decode")
    assert ours == theirs


def test_the_printed_decode_kernel_is_confirmed_with_its_loop_slotted(capsys: pytest.CaptureFixture[str]) -> None:
    out = confirmed("gemv_decode", capsys)
    assert any("rotated: xk__ssa_v0[k__idx_v0 % 2], wk__ssa_v0[k__idx_v0 % 2]; outputs match" in line for line in out)


@pytest.mark.parametrize(("phase", "attr"), [("'unspecified'", ""), ("'partial'", " {accPhase = #pto<acc_phase partial>}"),
                                             ("'final'", " {accPhase = #pto<acc_phase final>}")])
def test_each_gemv_op_spells_its_acc_phase(phase: str, attr: str) -> None:
    src = kernel(_body(f"""
g: {ACC} = pl.tile.gemv(l, r, acc_phase={phase})
gb: {ACC} = pl.tile.gemv_bias(l, r, b, acc_phase={phase})
c: {ACC} = pl.tile.gemv_acc(g, l2, r2, acc_phase={phase})
"""), params=PARAMS, ret=RET, kind="(type=pl.FunctionType.AIC)")
    text = compile_(src).pto_text
    (gemv,) = lines(text, "pto.tgemv ins(")
    (bias,) = lines(text, "pto.tgemv.bias ins(")
    (acc,) = lines(text, "pto.tgemv.acc ins(")
    assert gemv.startswith("pto.tgemv ins(%l, %r : ")
    assert bias.startswith("pto.tgemv.bias ins(%l, %r, %b : ")
    # in place: the accumulator is both the first operand and the destination
    assert acc.startswith("pto.tgemv.acc ins(%g, %l2, %r2 : ")
    assert "outs(%g : " in acc
    assert all(line.endswith(")" + attr) for line in (gemv, bias, acc))


def test_the_interpreter_computes_the_product_row_the_bias_and_the_accumulation() -> None:
    fn = interp_kernel(PARAMS, RET, _body(f"""
g: {ACC} = pl.tile.gemv_bias(l, r, b)
c: {ACC} = pl.tile.gemv_acc(g, l2, r2)
"""))
    rng = np.random.default_rng(7)
    x = rng.integers(-4, 5, (1, 256)).astype(np.float32)
    w = rng.integers(-4, 5, (256, 32)).astype(np.float32)
    bias = rng.integers(-4, 5, (1, 32)).astype(np.float32)
    (out,) = run(fn, {"x": x, "w": w, "bias": bias, "y": np.zeros((1, 32), np.float32)})
    np.testing.assert_array_equal(out, x @ w + bias)  # the two K halves summed, plus the bias


def test_plain_gemv_is_the_row_times_the_matrix() -> None:
    fn = interp_kernel(PARAMS, RET, _body(f"c: {ACC} = pl.tile.gemv(l, r)\n"))
    x = np.arange(256, dtype=np.float32).reshape(1, 256) % 7
    w = np.arange(256 * 32, dtype=np.float32).reshape(256, 32) % 5
    (out,) = run(fn, {"x": x, "w": w, "bias": np.zeros((1, 32), np.float32), "y": np.zeros((1, 32), np.float32)})
    np.testing.assert_array_equal(out, x[:, :128] @ w[:128])


def test_an_acc_phase_other_than_the_default_is_not_modelled() -> None:
    fn = interp_kernel(PARAMS, RET, _body(f"c: {ACC} = pl.tile.gemv(l, r, acc_phase='partial')\n"))
    with pytest.raises(Unmodelled, match=r"tile\.gemv with keyword 'acc_phase'"):
        ensure_modelled(fn)


def test_a_left_operand_of_several_rows_is_an_interpreter_error() -> None:
    body = OPERANDS + f"""
xs: pl.Tile[[2, 128], pl.FP32, pl.Mem.Mat] = pl.load(x, [0, 0], [2, 128], target_memory=pl.Mem.Mat)
ls: pl.Tile[[2, 128], pl.FP32, pl.Mem.Left] = pl.move(xs, target_memory=pl.Mem.Left)
c: {ACC} = pl.tile.gemv(ls, r)
out: pl.Tensor[[1, 32], pl.FP32] = pl.store(c, [0, 0], y)
return out
"""
    fn = interp_kernel(PARAMS.replace("x: pl.Tensor[[1, 256]", "x: pl.Tensor[[2, 256]"), RET, body)
    with pytest.raises(InterpreterError, match=r"multiplies a \[1, K\] row vector, got a \[2, 128\] tile"):
        run(fn, {"x": np.ones((2, 256), np.float32), "w": np.ones((256, 32), np.float32),
                 "bias": np.zeros((1, 32), np.float32), "y": np.zeros((1, 32), np.float32)})
