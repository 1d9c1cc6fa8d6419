"""Constructs of the reference's printed IR that codegen emits (issue 16): dynamic tensor
shapes, the SPMD identity, integer `pl.min` / `pl.max`, bit operations, shifts, negation and
bitwise not, a runtime block length cast to i32, casts outside the
index engine, float comparisons, ops spelled from `lowering/pto_ops.json`, views with a
static valid extent, and the located errors for what is not emitted.

Index arithmetic of the new constructs is also run through the address oracle
(`address_oracle.py`) under the PYPTO planner; the scalar casts are checked against the
exact evaluator (`slotsat.core.interpreter.eval_scalar`), operation by operation.
"""

# ruff: noqa: E501  (embedded kernel text keeps one statement per line, 10-dsl.md §9.1)

from __future__ import annotations

import itertools
import math
import re
import struct

import numpy as np
import pytest

from slotsat.core import ir, ops
from slotsat.core.interpreter import eval_scalar
from slotsat.core.options import Planner
from slotsat.lowering.pto_codegen import _HOISTED_BINARY, _HOISTED_UNARY, _cast_ops
from tests.codegen.address_oracle import check_module
from tests.codegen.harness import compile_, error, kernel, lines

DYN = 'N = pl.dynamic("N")\nB = pl.dynamic("B")'


def _emit(body: str, params: str, ret: str, *, decls: str = DYN, planner: Planner = Planner.PTOAS) -> str:
    return compile_(kernel(body, params=params, ret=ret, decls=decls), planner=planner).pto_text


def _signature(text: str) -> str:
    (header,) = lines(text, "func.func @kernel")
    return header


# --------------------------------------------------------------------------------------
# dynamic shapes


DYN_PARAMS = "x: pl.Tensor[[N, 64], pl.FP32], out: pl.Out[pl.Tensor[[N, 64], pl.FP32]]"
DYN_RET = "pl.Tensor[[N, 64], pl.FP32]"


def test_a_symbolic_dimension_is_a_trailing_index_parameter_of_the_view() -> None:
    text = _emit("""
t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 64])
out = pl.store(t, [0, 0], out)
return out
""", DYN_PARAMS, DYN_RET)
    assert "(%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<f32>, %arg2: index)" in _signature(text)
    (view,) = lines(text, "%x_view = pto.make_tensor_view")
    assert "shape = [%arg2, %c64_index], strides = [%c64_index, %c1_index]" in view


def test_a_symbolic_inner_dimension_makes_the_outer_strides_products() -> None:
    text = _emit("""
t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [16, 64])
out = pl.store(t, [0, 0], out)
return out
""", "a: pl.Tensor[[256, 64], pl.FP32], y: pl.Tensor[[B, N, 64], pl.FP32], "
        "out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]", "pl.Tensor[[256, 64], pl.FP32]")
    assert _signature(text).count(": index") == 2  # B, then N: first-seen order
    (view,) = lines(text, "%y_view = pto.make_tensor_view")
    m = re.search(r"shape = \[%arg3, %arg4, %c64_index\], strides = \[(%\w+), %c64_index, %c1_index\]", view)
    assert m is not None, view
    (mul,) = lines(text, f"{m.group(1)} = arith.muli")
    assert "%arg4" in mul
    assert "%c64_index" in mul


def test_tensor_dim_of_a_symbolic_dimension_is_its_parameter() -> None:
    text = _emit("""
n: pl.Scalar[pl.INDEX] = pl.tensor.dim(x, 0)
rows: pl.Scalar[pl.INDEX] = pl.min(n, 16)
t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[rows, 64])] = pl.load(x, [0, 0], [16, 64], valid_shape=[rows, 64])
out = pl.store(t, [0, 0], out)
return out
""", DYN_PARAMS, DYN_RET)
    (m,) = lines(text, "arith.minsi")
    assert "%arg2, %c16_index" in m
    (pv,) = lines(text, "pto.tload ins(")
    assert "partition_tensor_view<?x64xf32>" in pv


# --------------------------------------------------------------------------------------
# the SPMD identity


def test_block_and_subblock_indices_are_the_reference_hidden_parameters() -> None:
    text = _emit("""
b: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
s: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [b * 32 + s * 16, 0], [16, 64])
out = pl.store(t, [b * 32 + s * 16, 0], out)
return out
""", "a: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]",
        "pl.Tensor[[256, 64], pl.FP32]", decls="")
    assert _signature(text).endswith(
        "%__pypto_spmd_block_idx: i32, %__pypto_spmd_block_num: i32, %__pypto_spmd_subblock_idx: i32) "
        "attributes {pto.kernel_kind = #pto.kernel_kind<vector>} {")
    assert len(lines(text, "arith.index_cast %__pypto_spmd_block_idx : i32 to index")) == 1
    assert len(lines(text, "arith.index_cast %__pypto_spmd_subblock_idx : i32 to index")) == 1


def test_an_index_result_bound_at_another_integer_dtype_is_converted_to_it() -> None:
    """`d: pl.Scalar[pl.INT64] = pl.tensor.dim(a, 0)` (as PyPTO prints its own tests' programs)
    and the block index at INT32 and INT64: the op's value converted to the variable's dtype."""
    text = _emit("""
d: pl.Scalar[pl.INT64] = pl.tensor.dim(a, 0)
b32: pl.Scalar[pl.INT32] = pl.tile.get_block_idx()
b64: pl.Scalar[pl.INT64] = pl.tile.get_block_idx()
n: pl.Scalar[pl.INDEX] = pl.cast(d, pl.INDEX) - 256 + pl.cast(b32, pl.INDEX) + pl.cast(b64, pl.INDEX)
t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [n, 0], [16, 64])
out = pl.store(t, [0, 0], out)
return out
""", "a: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]",
        "pl.Tensor[[256, 64], pl.FP32]", decls="")
    assert len(lines(text, "arith.index_cast %c256_index : index to i64")) == 1
    assert len(lines(text, "arith.extsi %__pypto_spmd_block_idx : i32 to i64")) == 1
    assert len(lines(text, "arith.index_cast %__pypto_spmd_block_idx : i32 to index")) == 1


def test_no_identity_parameter_without_an_identity_op() -> None:
    text = _emit("""
t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
out = pl.store(t, [0, 0], out)
return out
""", "a: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]",
        "pl.Tensor[[256, 64], pl.FP32]", decls="")
    assert "__pypto_spmd" not in text


GRID_STRIDE = """
b0: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
nb: pl.Scalar[pl.INDEX] = pl.tile.get_block_num()
for i, (acc,) in pl.range(b0, 16, STEP, init_values=(out,)):
    t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 16, 0], [16, 64])
    o = pl.store(t, [i * 16, 0], acc)
    r = pl.yield_(o)
return r
"""
GRID_PARAMS = "a: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]], n: pl.Scalar[pl.INDEX]"
GRID_RET = "pl.Tensor[[256, 64], pl.FP32]"


def test_a_grid_stride_loop_steps_by_the_spmd_block_count() -> None:
    """`for i in pl.range(block_idx, n, block_num)`: PyPTO's SPMD examples spread rows over the
    blocks so; the block count is at least 1, so the runtime step is a valid scf.for step."""
    text = _emit(GRID_STRIDE.replace("STEP", "nb"), GRID_PARAMS, GRID_RET, decls="", planner=Planner.PYPTO)
    (num,) = lines(text, "arith.index_cast %__pypto_spmd_block_num : i32 to index")
    (idx,) = lines(text, "arith.index_cast %__pypto_spmd_block_idx : i32 to index")
    (loop,) = lines(text, "scf.for %i")
    assert f"= {idx.split(' =')[0].strip()} to %c16_index step {num.split(' =')[0].strip()} " in loop
    check_module(text)


@pytest.mark.parametrize(("step", "message"), [
    ("n", "loops in device functions need a step known to be positive: a literal, or the SPMD block count of "
          "pl.tile.get_block_num(); got n, whose sign slotsat cannot prove"),
    ("b0", "got b0, whose sign slotsat cannot prove"),
    ("-1", "loops in device functions must have a positive step, got -1: scf.for counts upward only"),
])
def test_a_step_not_known_positive_is_refused_at_the_loop(step: str, message: str) -> None:
    err = error(kernel(GRID_STRIDE.replace("STEP", step), params=GRID_PARAMS, ret=GRID_RET))
    assert message in err.message
    assert err.span.line == 12  # the `for` line of the program around the body


# --------------------------------------------------------------------------------------
# integer min / max, bit operations, logical and / or, float comparisons


MINMAX = """
rows: pl.Scalar[pl.INDEX] = pl.min(n - i * 16, 16)
lo: pl.Scalar[pl.INDEX] = pl.max(rows, 1)
"""


def _minmax_kernel() -> str:
    body = """
for i in pl.range(0, 8):
    rows: pl.Scalar[pl.INDEX] = pl.max(pl.min(n - i * 16, 16), 1)
    t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[rows, 64])] = pl.load(a, [pl.min(i * 16, 112), 0], [16, 64], valid_shape=[rows, 64])
    e: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[rows, 64])] = pl.exp(t)
    out = pl.store(e, [pl.min(i * 16, 112), 0], out)
return out
"""
    return kernel(body, params="a: pl.Tensor[[128, 64], pl.FP32], n: pl.Scalar[pl.INDEX], "
                  "out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]", ret="pl.Tensor[[128, 64], pl.FP32]")


def test_min_and_max_are_single_arith_ops_inside_index_expressions() -> None:
    text = compile_(_minmax_kernel()).pto_text
    assert lines(text, "arith.minsi")
    assert lines(text, "arith.maxsi")
    # the offset pl.min(i * 16, 112) is an operand of the partition view's clamp
    assert any(re.search(r"arith\.minsi %\d+, %c112_index : index", ln) for ln in lines(text, "arith.minsi"))


def test_min_max_addresses_pass_the_oracle() -> None:
    text = compile_(_minmax_kernel(), planner=Planner.PYPTO).pto_text
    assert check_module(text, ((0,), (5,), (17,), (100,), (128,))) == []


def test_unsigned_min_is_minui_and_bit_operations_are_single_ops() -> None:
    text = _emit("""
m: pl.Scalar[pl.UINT32] = pl.min(u, v)
w: pl.Scalar[pl.UINT32] = (m & v) | (u ^ v)
t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [pl.cast(w, pl.UINT64) % 8, 0], [16, 64])
out = pl.store(t, [0, 0], out)
return out
""", "a: pl.Tensor[[256, 64], pl.FP32], u: pl.Scalar[pl.UINT32], v: pl.Scalar[pl.UINT32], "
        "out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]", "pl.Tensor[[256, 64], pl.FP32]", decls="")
    assert lines(text, "arith.minui %arg2, %arg3 : i32")  # u, v follow the tensors a, out
    assert lines(text, "arith.andi")
    assert lines(text, "arith.ori")
    assert lines(text, "arith.xori")


def test_logical_or_of_comparisons_is_ori_on_i1() -> None:
    text = _emit("""
if i > 3 or i < 1:
    t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
    out = pl.store(t, [0, 0], out)
return out
""", "a: pl.Tensor[[256, 64], pl.FP32], i: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]",
        "pl.Tensor[[256, 64], pl.FP32]", decls="")
    (ori,) = lines(text, "arith.ori")
    assert ori.endswith(": i1")


def test_a_float_comparison_is_cmpf() -> None:
    text = _emit("""
t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
s: pl.Scalar[pl.FP32] = pl.tile.read(t, [0, 0])
if s > 0.5:
    out = pl.store(t, [0, 0], out)
return out
""", "a: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]",
        "pl.Tensor[[256, 64], pl.FP32]", decls="")
    (cmp,) = lines(text, "arith.cmpf")
    assert cmp.startswith("%")
    assert " = arith.cmpf ogt, %s, %cf0p5_f32 : f32" in cmp
    assert lines(text, "pto.tgetval ins(%t, %c0_index")


def _signless(op: str, a: int, b: int, bits: int) -> int:
    """One MLIR integer `arith` op on two's-complement operands of `bits` (a shift amount in
    `[0, bits)`), as its result's bits."""
    mask = (1 << bits) - 1
    ua, ub = a & mask, b & mask
    sa = ua - (1 << bits) if ua >> (bits - 1) else ua
    table = {"shli": lambda: ua << b, "shrsi": lambda: sa >> b, "shrui": lambda: ua >> b,
             "subi": lambda: ua - ub, "xori": lambda: ua ^ ub}
    return table[op]() & mask


@pytest.mark.parametrize("dtype", [ir.DType.INDEX, ir.DType.INT8, ir.DType.INT32, ir.DType.UINT8, ir.DType.UINT32])
def test_shifts_negation_and_bitwise_not_lower_to_what_the_evaluator_computes(dtype: ir.DType) -> None:
    x, y = ir.Var("x", ir.ScalarType(dtype)), ir.Var("y", ir.ScalarType(dtype))
    mask = (1 << dtype.bits) - 1
    for a in _samples(dtype):
        assert isinstance(a, int)
        for op in ("shl", "shr"):
            signed, unsigned = _HOISTED_BINARY[op]
            for b in (0, 1, 3, dtype.bits - 1):
                want = eval_scalar(ir.ScalarBinary(op, x, y, dtype), lambda v, a=a, b=b: a if v is x else b)  # type: ignore[misc]
                assert isinstance(want, int)
                got = _signless(unsigned if dtype.is_unsigned else signed, a, b, dtype.bits)
                assert got == want & mask, (op, a, b)
        for op in ("neg", "bitnot"):
            arith, operand = _HOISTED_UNARY[op]
            want = eval_scalar(ir.ScalarUnary(op, x, dtype), lambda _, a=a: a)  # type: ignore[misc]
            assert isinstance(want, int)
            got = _signless(arith, operand, a, dtype.bits) if arith == "subi" else _signless(arith, a, operand, dtype.bits)
            assert got == want & mask, (op, a)


def test_shifts_and_a_runtime_block_length_are_emitted_as_the_reference_emits_them() -> None:
    text = _emit("""
row: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [1, 256])
up: pl.Scalar[pl.INDEX] = 1 << k
down: pl.Scalar[pl.INDEX] = up >> 1
m: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.mrgsort_format1(row, down * 64)
out = pl.store(m, [0, 0], out)
return out
""", "a: pl.Tensor[[1, 256], pl.FP32], k: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[1, 256], pl.FP32]]",
        "pl.Tensor[[1, 256], pl.FP32]", decls="")
    (shl,) = lines(text, "arith.shli")
    assert shl.endswith(": index")
    assert lines(text, "arith.shrsi")
    (cast,) = lines(text, "arith.index_cast")  # the block length, to the i32 the ISA takes
    assert cast.endswith(": index to i32")


# --------------------------------------------------------------------------------------
# scalar casts: the emitted chain computes what the evaluator computes


SCALAR_DTYPES = (ir.DType.INDEX, ir.DType.INT8, ir.DType.INT32, ir.DType.INT64, ir.DType.UINT8, ir.DType.UINT32,
                 ir.DType.BOOL, ir.DType.FP32, ir.DType.FP16)


def _to_fp(v: float, t: str) -> float:
    if t == "f16":
        return float(np.float16(v))
    if t == "f32":
        return float(struct.unpack("f", struct.pack("f", v))[0])
    raise AssertionError(t)


def _arith(op: str, x: int | float, src: str, dst: str) -> int | float:
    """One MLIR `arith` cast on its operand (signless integers held in two's complement)."""
    def width(t: str) -> int:
        return 64 if t == "index" else int(t[1:])

    def wrap(v: int, bits: int) -> int:
        v &= (1 << bits) - 1
        return v - (1 << bits) if bits > 1 and v >= 1 << (bits - 1) else v

    def unsigned(v: int, bits: int) -> int:
        return v & ((1 << bits) - 1)

    if op in ("index_cast", "extsi", "trunci"):
        return wrap(int(x), width(dst))
    if op == "extui":
        return wrap(unsigned(int(x), width(src)), width(dst))
    if op == "sitofp":
        return _to_fp(float(int(x)), dst)
    if op == "uitofp":
        return _to_fp(float(unsigned(int(x), width(src))), dst)
    if op in ("fptosi", "fptoui"):
        return wrap(math.trunc(float(x)), width(dst))
    if op in ("extf", "truncf"):
        return _to_fp(float(x), dst)
    raise AssertionError(op)


def _samples(d: ir.DType) -> list[int | float]:
    if d.is_float:
        return [0.0, 1.5, -2.75, 100.25, 7.0]
    if d is ir.DType.BOOL:
        return [0, 1]
    return sorted({d.min_value, -1 if d.is_signed else 0, 0, 1, 7, d.max_value})


@pytest.mark.parametrize(("src", "dst"), [(s, d) for s, d in itertools.product(SCALAR_DTYPES, SCALAR_DTYPES)
                                          if s != d and not (s.is_float and d.is_float and s.bits == d.bits)])
def test_a_hoisted_cast_computes_what_the_evaluator_computes(src: ir.DType, dst: ir.DType) -> None:
    v = ir.Var("v", ir.ScalarType(src))
    cast = ir.Cast(v, dst)
    steps = _cast_ops(cast)
    if steps is None:  # the index engine's own (same signedness): not this test's business
        assert src.is_int_arith
        assert dst.is_int_arith
        assert src.is_signed == dst.is_signed
        return
    if not steps:  # integers of one width: the same bits
        assert src.bits == dst.bits
        assert not src.is_float
        assert not dst.is_float
    for x in _samples(src):
        if src.is_float and dst.is_int and not dst.min_value <= math.trunc(float(x)) <= dst.max_value:
            continue  # out of the destination's range: poison in MLIR, outside the DSL's values
        if dst is ir.DType.FP16 and abs(float(x)) > 65504:
            continue  # beyond FP16's range (the evaluator keeps scalar floats unrounded)
        value: int | float = x
        for op, a, b in steps:
            value = _arith(op, value, a, b)
        want = eval_scalar(cast, lambda _, x=x: x)  # type: ignore[misc]
        if dst.is_float:
            assert float(value) == pytest.approx(float(want), rel=1e-3), (x, steps)
        else:  # signless bits: equal modulo the width
            mask = (1 << dst.bits) - 1
            assert isinstance(want, int)
            assert int(value) & mask == want & mask, (x, steps)


def test_float_and_bool_casts_in_a_kernel() -> None:
    text = _emit("""
t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
s: pl.Scalar[pl.FP32] = pl.tile.read(t, [0, 0])
k: pl.Scalar[pl.INT32] = pl.cast(s, pl.INT32) + pl.cast(True, pl.INT32)
u: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(t, pl.cast(k, pl.FP32))
out = pl.store(u, [0, 0], out)
return out
""", "a: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]",
        "pl.Tensor[[256, 64], pl.FP32]", decls="")
    assert lines(text, "arith.fptosi %s : f32 to i32")
    assert lines(text, "arith.extui %c1_i1 : i1 to i32")
    assert lines(text, "%c1_i1 = arith.constant true")
    assert lines(text, "arith.sitofp")


# --------------------------------------------------------------------------------------
# ops spelled from the table, views


TILE_PARAMS = "a: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]"
TILE_RET = "pl.Tensor[[256, 64], pl.FP32]"


def test_cast_modes_and_compare_modes_are_ptoas_enum_attributes() -> None:
    text = _emit("""
t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
h: pl.Tile[[64, 64], pl.FP16, pl.Mem.Vec] = pl.tile.cast(t, target_type=pl.FP16, mode='trunc')
f: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.cast(h, target_type=pl.FP32, mode='none')
out = pl.store(f, [0, 0], out)
return out
""", TILE_PARAMS, TILE_RET, decls="")
    (trunc,) = lines(text, "round_mode TRUNC")
    assert trunc.startswith("pto.tcvt ins(%t {rmode = #pto<round_mode TRUNC>} : ")
    assert lines(text, "{rmode = #pto<round_mode NONE>}")


def test_full_create_and_broadcasts() -> None:
    text = _emit("""
t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
z: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.full([1, 64], dtype=pl.FP32, value=2.0)
c: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(t, z)
tmp: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([64, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
r: pl.Tile[[64, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_max(c, tmp)
out = pl.store(c, [0, 0], out)
return out
""", TILE_PARAMS, TILE_RET, decls="")
    assert lines(text, "pto.texpands ins(%cf2p0_f32 : f32) outs(%z : ")
    assert lines(text, "pto.tcolexpandmul ins(%t, %z : ")
    assert len(lines(text, "pto.alloc_tile")) == 5  # t, z, c, tmp, r: create is a buffer only
    (rowmax,) = lines(text, "pto.trowmax")
    assert rowmax.startswith("pto.trowmax ins(%c, %tmp : ")


def test_a_reshape_to_a_column_carries_its_static_valid_extent_and_a_rank1_view_is_no_op() -> None:
    text = _emit("""
t: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.load(v, [0], [64])
row: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(t, [1, 64])
col: pl.Tile[[64, 1], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(row, [64, 1])
back: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(col, [1, 64])
e: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.exp(back)
x: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
y: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_mul(x, col)
out = pl.store(y, [0, 0], out)
return out
""", "v: pl.Tensor[[64], pl.FP32], " + TILE_PARAMS, TILE_RET, decls="")
    (reshape,) = lines(text, "pto.treshape")  # only [1, 64] -> [64, 1] needs a view
    assert reshape.startswith("%col = pto.treshape %t : ")
    assert "-> !pto.tile_buf<loc=vec, dtype=f32, rows=64, cols=1, v_row=64, v_col=1, blayout=col_major" in reshape
    assert lines(text, "pto.texp ins(%t : ")  # back is t's own buffer again
    (expand,) = lines(text, "pto.trowexpandmul")
    assert "v_row=64, v_col=1" in expand  # the use is annotated with the view's type


def test_a_slice_with_a_runtime_valid_shape_has_a_valid_clause() -> None:
    text = _emit("""
t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
s: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[n, 64])] = pl.tile.slice(t, [16, 64], [16, 0], [n, 64])
e: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[n, 64])] = pl.exp(s)
out = pl.store(e, [0, 0], out)
return out
""", "a: pl.Tensor[[256, 64], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]",
        TILE_RET, decls="")
    (sub,) = lines(text, "pto.subview")
    assert " sizes [16, 64] valid [%arg2, %c64_index] : " in sub  # n follows the tensors
    assert sub.endswith("rows=16, cols=64, v_row=?, v_col=64, blayout=row_major, slayout=none_box, fractal=512, pad=0>")


def test_a_slice_taken_by_a_column_broadcast_is_copied_out_first() -> None:
    # the library's rotary step: a row of a tile sliced, re-viewed as itself, then broadcast
    body = """
t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [16, 64])
c: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [1, 32])
s: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [1, 32], [3, 32])
r: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(s, [1, 32])
m: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(r, c)
out = pl.store(m, [0, 0], out)
return out
"""
    text = _emit(body, TILE_PARAMS, TILE_RET, decls="")
    (alloc,) = lines(text, "%s_mat = pto.alloc_tile")
    assert alloc.endswith("rows=1, cols=32, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>")
    (extract,) = lines(text, "pto.textract")
    assert extract.startswith("pto.textract ins(%t, %c3_index, %c32_index : ")
    assert lines(text, "pto.tcolexpandmul ins(%s_mat, %c : ")
    err = error(kernel(body, params=TILE_PARAMS, ret=TILE_RET, decls=""), planner=Planner.PYPTO)
    assert err.message == ("tile.col_expand_mul of a tile.slice view needs the slice copied into a buffer of its "
                           "own, which slotsat places only under the ptoas planner")


def test_an_explicit_tile_layout_reaches_the_type() -> None:
    text = _emit("""
t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec, pl.TileView(pad=pl.PadValue.min, compact=pl.CompactMode.normal)] = pl.load(a, [0, 0], [64, 64])
out = pl.store(t, [0, 0], out)
return out
""", TILE_PARAMS, TILE_RET, decls="")
    (alloc,) = lines(text, "%t = pto.alloc_tile")
    assert alloc.endswith("blayout=row_major, slayout=none_box, fractal=512, pad=3, compact=1>")


def test_a_strided_tensor_view_keeps_its_strides_and_layout() -> None:
    text = _emit("""
t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
out = pl.store(t, [0, 0], out)
return out
""", "a: pl.Tensor[[256, 64], pl.FP32, pl.TensorView(stride=[128, 1], layout=pl.TensorLayout.ND)], "
        "out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]", TILE_RET, decls="")
    (view,) = lines(text, "%a_view = pto.make_tensor_view")
    assert "strides = [%c128_index, %c1_index] {layout = #pto.layout<nd>}" in view


@pytest.mark.parametrize(("call", "op", "kind"), [
    ("pl.tile.div(t, t, high_precision=True)", "pto.tdiv", "div_precision"),
    ("pl.tile.log(t, high_precision=True)", "pto.tlog", "log_precision"),
    ("pl.tile.recip(t, high_precision=True)", "pto.trecip", "recip_precision"),
    ("pl.tile.div(t, t, high_precision=False)", "pto.tdiv", None),
])
def test_a_high_precision_op_carries_its_precision_type(call: str, op: str, kind: str | None) -> None:
    """As the reference's MakePrecisionCodegenPTO: `{precisionType = #pto<KIND high_precision>}`
    after `outs(...)`, nothing at the default."""
    text = _emit(f"""
t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
d: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = {call}
out = pl.store(d, [0, 0], out)
return out
""", TILE_PARAMS, TILE_RET, decls="")
    (line,) = lines(text, f"{op} ins(")
    if kind is None:
        assert line.endswith(">)")
    else:
        assert line.endswith(f">) {{precisionType = #pto<{kind} high_precision>}}")


# --------------------------------------------------------------------------------------
# located errors for what is not emitted


@pytest.mark.parametrize(("body", "params", "message"), [
    ("pld.system.notify(a, 1, [0, 0], v, op=0)\nreturn out",
     "a: pld.DistributedTensor[[2, 1], pl.INT32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]], "
     "v: pl.Scalar[pl.INT64]",
     "slotsat's code generator passes the value of pld.system.notify only as a literal, a pl.INT32 or a "
     "pl.INDEX scalar, got pl.INT64"),
    ("pld.tile.put(a, 1, b, [0, 0])\nreturn out",
     "a: pld.DistributedTensor[[2, 64], pl.FP32], b: pl.Tensor[[2, 64], pl.FP32], "
     "out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]",
     "pld.tile.put copies through staging tiles: argument 4 (and 5 of the double-staged form) must be a tile"),
    ("pld.tile.get(b, 1, a, [0, 0])\nreturn out",
     "a: pld.DistributedTensor[[2, 64], pl.FP32], b: pl.Tensor[[2, 64], pl.FP32], "
     "out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]",
     "pld.tile.get copies through staging tiles: argument 4 (and 5 of the double-staged form) must be a tile"),
    ("t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])\n"
     "s: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.expands(t, 2.0)\nreturn out",
     TILE_PARAMS, "slotsat's code generator does not support tile.expands"),
    ("t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])\n"
     "g: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.gather_mask(t, mask_pattern=9)\nreturn out",
     TILE_PARAMS, "slotsat's code generator does not support tile.gather_mask with mask_pattern=9 (ptoas's "
                  "patterns are 1, 2, 3, 4, 5, 6, 7)"),
    ("t: pl.Tile[[4, 16], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [4, 16])\n"
     "d: pl.Tile[[4, 32], pl.FP32, pl.Mem.Vec] = pl.tile.full([4, 32], dtype=pl.FP32, value=0.0)\n"
     "g: pl.Tile[[4, 32], pl.FP32, pl.Mem.Vec] = pl.tile.scatter_mask(d, t, mask_pattern=3)\nreturn out",
     TILE_PARAMS, "tile.scatter_mask writes a [4, 16] pl.FP32 source into a [4, 64] pl.FP32 destination with "
                  "this pattern, not into [4, 32] pl.FP32"),
    ("t: pl.Tile[[4, 16], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [4, 16])\n"
     "d: pl.Tile[[4, 32], pl.FP32, pl.Mem.Vec] = pl.tile.full([4, 32], dtype=pl.FP32, value=0.0)\n"
     "g: pl.Tile[[4, 32], pl.FP32, pl.Mem.Vec] = pl.tile.scatter_mask(d, t, mask_pattern=0)\nreturn out",
     TILE_PARAMS, "slotsat's code generator does not support tile.scatter_mask with mask_pattern=0 (ptoas's "
                  "patterns are 1, 2, 3, 4, 5, 6, 7)"),
    # the form of the library's gate kernel (deepseek_v4_pro/gate.py:157), which the reference's own
    # code generator rejects with the same reason (pto_ops_datamove.cpp, tile.set_validshape)
    ("t: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [8, 64])\n"
     "tmp: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([8, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)\n"
     "s: pl.Tile[[8, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_sum(t, tmp)\n"
     "r: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(s, [1, 8])\n"
     "v: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[1, 1])] = pl.tile.set_validshape(r, 1, 1)\n"
     "return out",
     TILE_PARAMS, "pl.set_validshape cannot narrow a tile view (a slice or reshape result); narrow the slice "
                  "itself or the tile before the view is taken"),
])
def test_what_is_not_emitted_is_one_located_error(body: str, params: str, message: str) -> None:
    err = error(kernel(body, params=params, ret=TILE_RET, decls="import pypto.language.distributed as pld"))
    assert err.message == message
    assert err.span.line > 0


COMPOSITE_SOURCE = """import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
               target: pld.DistributedTensor[[1, 16], pl.FP32], signal: pld.DistributedTensor[[2, 1], pl.INT32]
               ) -> pl.Tensor[[16, 16], pl.FP32]:
        {body}
        return out

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host_orch(self, data: pld.DistributedTensor[[1, 16], pl.FP32], signal: pld.DistributedTensor[[2, 1], pl.INT32]):
        data = pld.tensor.allreduce(data, signal, op=pld.ReduceOp.Sum)
        return 0
"""


@pytest.mark.parametrize(("body", "what"), [
    ("t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [16, 16])\n        "
     "s: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.sin(t)\n        out = pl.store(s, [0, 0], out)",
     "pl.tile.sin"),
    ("target = pld.tensor.allreduce(target, signal, op=pld.ReduceOp.Sum)", "pld.tensor.allreduce"),
    ("signal = pld.tensor.barrier(signal)", "pld.tensor.barrier"),
    ("pld.tensor.put(target, peer=1, src=target)", "pld.tensor.put"),
    ("s: pl.Tensor[[8, 16], pl.FP32] = pl.tensor.slice(a, [8, 16], [0, 0])\n        "
     "t: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.load(s, [0, 0], [8, 16])\n        "
     "out = pl.store(t, [0, 0], out)", "pl.tensor.slice"),
])
def test_an_op_a_kernel_loses_before_the_hand_off_is_named_with_its_pass(body: str, what: str) -> None:
    """The reference's LowerCompositeOps rewrites the sine and cosine everywhere and the
    cross-rank tensor collectives in every function but a HOST orchestrator, and its
    ConvertTensorToTileOps an InCore function's tensor slice and tensor-level transfers, all
    before the hand-off point: in such a kernel they are an earlier stage's IR, which the error
    says, naming the pass and --via-pypto."""
    src = COMPOSITE_SOURCE.format(body=body)
    line = next(k for k, x in enumerate(src.splitlines(), 1) if what.rsplit(".", 1)[1] + "(" in x)
    err = error(src)
    stage = ops.LOWERED_BEFORE_HAND_OFF[what.removeprefix("pl.")]
    assert stage == ("ConvertTensorToTileOps" if what in ("pld.tensor.put", "pl.tensor.slice") else "LowerCompositeOps")
    assert err.message == (
        f"'{what}' is the IR of an earlier stage: the reference's {stage} removes it before the "
        "hand-off point, where slotsat takes over (just before LowerPipelineToSlots); compile this kernel "
        "with --via-pypto"
    )
    assert err.span.line == line
    assert err.exit_status == 1


def test_a_tensor_slice_in_a_plain_function_is_not_called_an_earlier_stage() -> None:
    """ConvertTensorToTileOps rewrites InCore functions only: a plain function compiled as a
    kernel keeps its tensor slice at the hand-off, which codegen does not emit."""
    err = error(kernel("s: pl.Tensor[[8, 64], pl.FP32] = pl.tensor.slice(a, [8, 64], [0, 0])\n"
                       "t: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.load(s, [0, 0], [8, 64])\n"
                       "out = pl.store(t, [0, 0], out)\nreturn out", params=TILE_PARAMS, ret=TILE_RET, kind=""))
    assert err.message == "slotsat's code generator does not support tensor.slice"


def test_a_host_orchestrators_collective_is_passed_on() -> None:
    src = COMPOSITE_SOURCE.format(body="t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [16, 16])"
                                       "\n        out = pl.store(t, [0, 0], out)")
    text = compile_(src).pto_text
    assert "func.func @kernel(" in text
    assert "host_orch" not in text


def test_a_valid_shape_naming_a_value_out_of_scope_is_declined_where_the_tile_is_stored() -> None:
    # `rows` is printed in the loop result's type although it is defined inside the loop
    err = error(kernel("""
acc: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 64], dtype=pl.FP32, value=0.0)
for i, (c,) in pl.range(4, init_values=(acc,)):
    rows: pl.Scalar[pl.INDEX] = pl.min(n - i, 16)
    t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[rows, 64])] = pl.load(a, [0, 0], [16, 64], valid_shape=[rows, 64])
    d: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[rows, 64])] = pl.add(c, t)
    r: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[rows, 64])] = pl.yield_(d)
out = pl.store(r, [0, 0], out)
return out
""", params="a: pl.Tensor[[256, 64], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]",
        ret=TILE_RET))
    assert err.message.startswith("the valid shape of tile 'r' refers to 'rows', which has no value where the tile "
                                  "is stored")
