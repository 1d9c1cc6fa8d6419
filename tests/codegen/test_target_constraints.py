"""The operand rules of `tile.prelu` per target (`lowering/target_constraints.py`), on the
cases of the reference's own codegen tests (`tests/ut/codegen/test_pto_codegen_ops.py`,
`test_tprelu_*`): each compiles on A5 and, on A2/A3, compiles or fails exactly where the
reference's backend does, with a located error naming the rule."""

from __future__ import annotations

import re

import pytest

from slotsat.analysis.budget import Backend
from slotsat.app.pipeline import CompileOptions, compile_source
from slotsat.core.errors import SlotsatError
from slotsat.core.options import Planner
from tests.codegen.harness import compile_, kernel, lines

TENSORS = ("src: pl.Tensor[[16, 16], pl.FP32], slope: pl.Tensor[[16, 16], pl.FP32], "
           "tmp_in: pl.Tensor[[17, 32], pl.UINT8], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]")
RET = "pl.Tensor[[16, 16], pl.FP32]"
LOADS = """
src_tile: pl.Tile[[16, 16], pl.FP32] = pl.load(src, [0, 0], [16, 16])
slope_tile: pl.Tile[[16, 16], pl.FP32] = pl.load(slope, [0, 0], [16, 16])
"""
PRELU = """
result: pl.Tile[[16, 16], pl.FP32] = pl.tile.prelu(src_tile, slope_tile, tmp)
return pl.store(result, [0, 0], out)
"""

CASES = {
    "exact": (LOADS + "tmp: pl.Tile[[17, 32], pl.UINT8] = pl.tile.create([17, 32], dtype=pl.UINT8)", None),
    "signed scratch": (LOADS + "tmp: pl.Tile[[17, 32], pl.INT8] = pl.tile.create([17, 32], dtype=pl.INT8)",
                       "tile.prelu on A2/A3 needs a pl.UINT8 scratch tile, but 'tmp' is pl.INT8"),
    "overlapping views": ("""
base: pl.Tile[[16, 24], pl.FP32] = pl.load(wide, [0, 0], [16, 24])
src_tile: pl.Tile[[16, 16], pl.FP32] = pl.tile.slice(base, [16, 16], [0, 0])
slope_tile: pl.Tile[[16, 16], pl.FP32] = pl.tile.slice(base, [16, 16], [0, 8])
tmp: pl.Tile[[17, 32], pl.UINT8] = pl.tile.create([17, 32], dtype=pl.UINT8)""",
                          "tile.prelu on A2/A3 needs src and slope in buffers that do not overlap, but "
                          "'src_tile' and 'slope_tile' share one"),
    "undersized scratch": (LOADS + "tmp: pl.Tile[[1, 1], pl.UINT8] = pl.tile.create([1, 1], dtype=pl.UINT8)",
                           "tile.prelu on A2/A3 needs a scratch tile of at least the source's valid rows + 1 "
                           "rows: 'src_tile' has 16 valid rows and 'tmp' has 1 rows"),
    "narrow scratch": (LOADS + "tmp: pl.Tile[[17, 32], pl.UINT8] = pl.load(tmp_in, [0, 0], [17, 32], "
                               "valid_shape=[17, 1])",
                       "tile.prelu on A2/A3 needs a scratch tile of at least ceil(valid columns / 8) valid "
                       "columns: 'src_tile' has 16 valid columns and 'tmp' has 1"),
    "runtime rows": ("""
src_tile: pl.Tile[[16, 16], pl.FP32] = pl.load(src, [0, 0], [16, 16], valid_shape=[n, 16])
slope_tile: pl.Tile[[16, 16], pl.FP32] = pl.load(slope, [0, 0], [16, 16], valid_shape=[n, 16])
tmp: pl.Tile[[17, 32], pl.UINT8] = pl.load(tmp_in, [0, 0], [17, 32])""",
                     "tile.prelu on A2/A3 needs a scratch tile of at least the source's valid rows + 1 rows: "
                     "'src_tile' has a runtime number of valid rows and 'tmp' has 17 rows"),
    "runtime columns": ("""
src_tile: pl.Tile[[16, 16], pl.FP32] = pl.load(src, [0, 0], [16, 16], valid_shape=[16, n])
slope_tile: pl.Tile[[16, 16], pl.FP32] = pl.load(slope, [0, 0], [16, 16], valid_shape=[16, n])
tmp: pl.Tile[[17, 32], pl.UINT8] = pl.load(tmp_in, [0, 0], [17, 32], valid_shape=[17, 2])""",
                        "tile.prelu on A2/A3 needs a scratch tile of at least ceil(valid columns / 8) valid "
                        "columns: 'src_tile' has a runtime number of valid columns and 'tmp' has 2"),
}


def _program(body: str) -> str:
    params = TENSORS + ", wide: pl.Tensor[[16, 24], pl.FP32], n: pl.Scalar[pl.INDEX]"
    return kernel(body + PRELU, params=params, ret=RET)


def _compile(source: str, backend: Backend, planner: Planner = Planner.PTOAS) -> str:
    return compile_source(source, "k.py", CompileOptions(planner=planner, backend=backend)).pto_text


@pytest.mark.parametrize("case", sorted(CASES))
def test_a5_emits_the_operands_in_the_references_order(case: str) -> None:
    text = compile_(_program(CASES[case][0]), backend=Backend.ASCEND950).pto_text
    (line,) = lines(text, "pto.tprelu")
    match = re.fullmatch(r"pto\.tprelu ins\((.*?) :.*\) outs\((.*?) :.*\)", line)
    assert match is not None
    ins, outs = match.groups()
    assert [name.strip() for name in ins.split(",")][2] == "%tmp"
    assert outs == "%result"


@pytest.mark.parametrize("planner", list(Planner))
@pytest.mark.parametrize("case", sorted(CASES))
def test_a2a3_compiles_or_fails_where_the_reference_does(case: str, planner: Planner) -> None:
    body, message = CASES[case]
    if message is None:
        text = compile_(_program(body), planner=planner, backend=Backend.ASCEND910B).pto_text
        assert lines(text, "pto.tprelu ins(%src_tile, %slope_tile, %tmp")
        return
    source = _program(body)
    with pytest.raises(SlotsatError) as info:
        _compile(source, Backend.ASCEND910B, planner)
    line = next(k for k, text in enumerate(source.splitlines(), 1) if "pl.tile.prelu(" in text)
    assert (info.value.message, info.value.span.line) == (message, line)


def test_without_a_backend_the_a2a3_rules_apply() -> None:
    with pytest.raises(SlotsatError) as info:
        _compile(_program(CASES["signed scratch"][0]), Backend.NONE)
    assert info.value.message == CASES["signed scratch"][1]


def test_a_result_carried_in_its_sources_buffer_gets_its_own_tile_on_every_target() -> None:
    """A loop carry keeps the carried value, the yielded value and the result in one buffer:
    `x = prelu(x, ...)` carried would write the source it reads. carry-copies gives the result
    its own tile and moves it into the carry (the reference's YieldFixup), so both targets'
    rules hold."""
    body = LOADS + """tmp: pl.Tile[[17, 32], pl.UINT8] = pl.tile.create([17, 32], dtype=pl.UINT8)
for i, (x,) in pl.range(4, init_values=(src_tile,)):
    y: pl.Tile[[16, 16], pl.FP32] = pl.tile.prelu(x, slope_tile, tmp)
    result = pl.yield_(y)
return pl.store(result, [0, 0], out)"""
    for backend in (Backend.ASCEND910B, Backend.ASCEND950):
        text = compile_(kernel(body, params=TENSORS, ret=RET), backend=backend).pto_text
        (prelu,) = lines(text, "pto.tprelu")
        assert prelu.startswith("pto.tprelu ins(%src_tile, %slope_tile, %tmp :")
        assert prelu.split("outs(")[1].startswith("%y :")
        (move,) = lines(text, "pto.tmov")
        assert move.startswith("pto.tmov ins(%y :")
        assert move.split("outs(")[1].startswith("%src_tile :")


@pytest.mark.parametrize(("slope", "why"), [
    ("pl.Tile[[16, 16], pl.FP16] = pl.cast(src_tile, pl.FP16)", "pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec]"),
    ("pl.Tile[[16, 8], pl.FP32] = pl.load(src, [0, 0], [16, 8])", "pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec]"),
])
def test_a_slope_of_another_dtype_or_shape_is_an_error(slope: str, why: str) -> None:
    body = f"""src_tile: pl.Tile[[16, 16], pl.FP32] = pl.load(src, [0, 0], [16, 16])
slope_tile: {slope}
tmp: pl.Tile[[17, 32], pl.UINT8] = pl.tile.create([17, 32], dtype=pl.UINT8)"""
    with pytest.raises(SlotsatError) as info:
        _compile(_program(body), Backend.ASCEND950)
    assert info.value.message == ("tile.prelu takes a source and a slope of one shape, both pl.FP16 or both "
                                  f"pl.FP32; got pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] and {why}")


# --------------------------------------------------------------------------------------
# tile.sels (the reference's `test_tsels_*`)

SELS_TENSORS = ("mask_in: pl.Tensor[[2, 16], pl.INT32], src: pl.Tensor[[2, 24], pl.INT32], "
                "out: pl.Out[pl.Tensor[[2, 16], pl.INT32]]")
SELS_RET = "pl.Tensor[[2, 16], pl.INT32]"
SELS_LOADS = """
mask: pl.Tile[[2, 16], pl.INT32] = pl.load(mask_in, [0, 0], [2, 16])
src_tile: pl.Tile[[2, 16], pl.INT32] = pl.load(src, [0, 0], [2, 16])
"""
SELS_RESULT = "result: pl.Tile[[2, 16], pl.INT32] = pl.tile.sels"
APART = "tile.sels on A2/A3 needs"
SELS_CASES = {
    "tmp is src": (SELS_LOADS + f"{SELS_RESULT}(mask, src_tile, src_tile, -3)",
                   f"{APART} tmp and src in buffers that do not overlap, but 'src_tile' is both"),
    "tmp is mask": (SELS_LOADS + f"{SELS_RESULT}(mask, src_tile, mask, -3)",
                    f"{APART} tmp and mask in buffers that do not overlap, but 'mask' is both"),
    "tmp view of src": ("""
mask: pl.Tile[[2, 16], pl.INT32] = pl.load(mask_in, [0, 0], [2, 16])
base: pl.Tile[[2, 24], pl.INT32] = pl.load(src, [0, 0], [2, 24])
src_view: pl.Tile[[2, 16], pl.INT32] = pl.tile.slice(base, [2, 16], [0, 0])
tmp_view: pl.Tile[[2, 16], pl.INT32] = pl.tile.slice(base, [2, 16], [0, 8])
result: pl.Tile[[2, 16], pl.INT32] = pl.tile.sels(mask, src_view, tmp_view, -3)""",
                        f"{APART} tmp and src in buffers that do not overlap, but 'tmp_view' and 'src_view' "
                        "share one"),
}


def _sels_program(body: str) -> str:
    return kernel(body + "\nreturn pl.store(result, [0, 0], out)", params=SELS_TENSORS, ret=SELS_RET)


@pytest.mark.parametrize("case", sorted(SELS_CASES))
def test_sels_operands_apart_on_a2a3_may_share_on_a5(case: str) -> None:
    body, message = SELS_CASES[case]
    source = _sels_program(body)
    with pytest.raises(SlotsatError) as info:
        _compile(source, Backend.ASCEND910B)
    assert info.value.message == message
    assert lines(compile_(source, backend=Backend.ASCEND950).pto_text, "pto.tsels")


@pytest.mark.parametrize(("dtype", "scalar", "constant"), [
    ("INT32", "-3", "-3 : i32"),
    # an unsigned source's scalar is its bits as the signed integer of its width
    ("UINT32", "0x8000000B", "-2147483637 : i32"),
])
def test_sels_takes_a_scalar_of_its_sources_signed_dtype(dtype: str, scalar: str, constant: str) -> None:
    body = f"""src_tile: pl.Tile[[16, 16], pl.{dtype}] = pl.load(src, [0, 0], [16, 16])
mask: pl.Tile[[16, 32], pl.UINT8] = pl.tile.cmps(src_tile, 0, cmp_type=4)
tmp: pl.Tile[[1, 32], pl.UINT8] = pl.tile.create([1, 32], dtype=pl.UINT8)
result: pl.Tile[[16, 16], pl.{dtype}] = pl.tile.sels(mask, src_tile, tmp, {scalar})
return pl.store(result, [0, 0], out)"""
    params = f"src: pl.Tensor[[16, 16], pl.{dtype}], out: pl.Out[pl.Tensor[[16, 16], pl.{dtype}]]"
    for backend in (Backend.ASCEND910B, Backend.ASCEND950):
        source = kernel(body, params=params, ret=f"pl.Tensor[[16, 16], pl.{dtype}]")
        text = compile_(source, backend=backend).pto_text
        (name,) = re.findall(rf"(%\w+) = arith\.constant {constant}$", text, re.MULTILINE)
        (line,) = lines(text, "pto.tsels")
        assert line.startswith(f"pto.tsels ins(%mask, %src_tile, %tmp, {name} :")


def test_sels_of_int8_is_a5_only() -> None:
    body = """src_tile: pl.Tile[[16, 16], pl.INT8] = pl.load(src, [0, 0], [16, 16])
mask: pl.Tile[[16, 32], pl.UINT8] = pl.tile.cmps(src_tile, 0, cmp_type=4)
tmp: pl.Tile[[1, 1], pl.UINT8] = pl.tile.create([1, 1], dtype=pl.UINT8)
result: pl.Tile[[16, 16], pl.INT8] = pl.tile.sels(mask, src_tile, tmp, -3)
return pl.store(result, [0, 0], out)"""
    params = "src: pl.Tensor[[16, 16], pl.INT8], out: pl.Out[pl.Tensor[[16, 16], pl.INT8]]"
    source = kernel(body, params=params, ret="pl.Tensor[[16, 16], pl.INT8]")
    with pytest.raises(SlotsatError) as info:
        _compile(source, Backend.ASCEND910B)
    assert info.value.message == ("tile.sels on A2/A3 selects pl.INT16, pl.UINT16, pl.INT32, pl.UINT32, "
                                  "pl.FP16 or pl.FP32 elements, but 'src_tile' is pl.INT8")
    assert lines(compile_(source, backend=Backend.ASCEND950).pto_text, "pto.tsels")


def test_sels_result_may_take_the_scratch_buffer_but_never_the_masks() -> None:
    """TSELS consumes its scratch before the first write of the result (so the planner may give
    the result the scratch's buffer, as the reference's does), and re-reads the mask
    throughout (the reference's `forbid_output_alias(0)`)."""
    body = """mask: pl.Tile[[2, 16], pl.INT32] = pl.load(mask_in, [0, 0], [2, 16])
src_tile: pl.Tile[[2, 16], pl.INT32] = pl.load(src, [0, 0], [2, 16])
tmp: pl.Tile[[2, 16], pl.INT32] = pl.load(src, [0, 8], [2, 16])
result: pl.Tile[[2, 16], pl.INT32] = pl.tile.sels(mask, src_tile, tmp, -3)
keep: pl.Tile[[2, 16], pl.INT32] = pl.tile.add(src_tile, result)"""
    text = compile_(kernel(body + "\nreturn pl.store(keep, [0, 0], out)", params=SELS_TENSORS, ret=SELS_RET),
                    planner=Planner.PYPTO).pto_text
    addr = dict(re.findall(r"%(\w+) = pto\.alloc_tile addr = (%\w+)", text))
    assert addr["result"] == addr["tmp"]
    assert addr["result"] != addr["mask"]
