# ruff: noqa: E501  (DSL parameter lists and emitted lines are one line each)
"""`tile.mgather`, the gather from GM into a tile: its op as the reference's PTO backend emits it
(`pto.mgather` of a whole-tensor partition view, by a Vec tile of indices or, into a Mat tile, a
GM tensor of them and in elem mode a GM scratch tensor; `coalesce` always, `gatherOob` unless
undefined), the reference's `a2a3` preconditions, and its values in the interpreter.

Groups: the printed kernel `memory_gather` compiles to the reference's own module and `check`
confirms it with its loop slotted; the `a2a3` preconditions are located errors, and the same
kernels compile for the 950; the Mat forms; the interpreter's row and element gathers under
each out-of-range mode.
"""

from __future__ import annotations

import numpy as np
import pytest

from slotsat.analysis.budget import Backend
from slotsat.app.pipeline import CompileOptions, compile_source
from slotsat.core.dsl import print_module
from slotsat.core.dsl.parser import parse_source
from slotsat.core.errors import SlotsatError
from slotsat.core.interp_errors import InterpreterError
from slotsat.core.interpreter import run_function
from slotsat.core.options import Mode
from tests.codegen.harness import confirmed, kernel, lines, references_module


def test_the_printed_kernel_compiles_to_the_references_module() -> None:
    ours, theirs = references_module("memory_gather")
    assert ours == theirs
    attrs = [line.rsplit(") ", 1)[1] for line in ours if line.startswith("pto.mgather ins(")]
    assert attrs == ["{coalesce = #pto<coalesce row>, gatherOob = #pto<gather_oob zero>}",
                     "{coalesce = #pto<coalesce elem>, gatherOob = #pto<gather_oob wrap>}"]


def test_the_printed_kernel_is_confirmed_with_its_loop_slotted(capsys: pytest.CaptureFixture[str]) -> None:
    out = confirmed("memory_gather", capsys)
    assert any("rotated: r__ssa_v0[i__idx_v0 % 2], o__ssa_v0[i__idx_v0 % 2]; outputs match" in line for line in out)


def _vec(mem: str, idx: str, result: str, dtype: str) -> str:
    return kernel(f"i: pl.Tile[{idx}, pl.INT32, pl.Mem.Vec] = pl.load(idx, [0, 0], {idx})\n"
                  f"g: pl.Tile[{result}, {dtype}, pl.Mem.Vec] = pl.tile.mgather(mem, i, coalesce=0)\n"
                  "out = pl.store(g, [0, 0], out)\nreturn out\n",
                  params=f"mem: pl.Tensor[{mem}, {dtype}], idx: pl.Tensor[{idx}, pl.INT32], "
                         f"out: pl.Out[pl.Tensor[{result}, {dtype}]]",
                  ret=f"pl.Tensor[{result}, {dtype}]")


@pytest.mark.parametrize(
    ("mem", "idx", "result", "dtype", "message"),
    [
        ("[64, 32]", "[16, 1]", "[16, 32]", "pl.FP16", "tile.mgather row mode on the 'a2a3' backend requires idx shape [1, R]"),
        ("[64, 17]", "[1, 16]", "[16, 17]", "pl.FP16", "tile.mgather Vec output on the 'a2a3' backend requires each physical row to be 32-byte aligned"),
        ("[64, 32]", "[1, 16]", "[16, 32]", "pl.FP8E4M3FN", "tile.mgather dtype FP8E4M3FN is not supported on the 'a2a3' backend; use the A5 backend (--backend 950)"),
    ],
)
def test_the_a2a3_preconditions_are_located_errors(mem: str, idx: str, result: str, dtype: str, message: str) -> None:
    """As the reference's backend for `a2a3` states them; the 950 takes the same kernel."""
    src = _vec(mem, idx, result, dtype)
    with pytest.raises(SlotsatError) as info:
        compile_source(src, "k.py", CompileOptions())
    assert info.value.message == message
    assert src.splitlines()[info.value.span.line - 1].lstrip().startswith("g: ")  # the gather's line
    text = compile_source(src, "k.py", CompileOptions(backend=Backend.ASCEND950)).pto_text
    assert len(lines(text, "pto.mgather ins(")) == 1


def test_a_vec_gather_from_a_dn_tensor_is_refused_on_a2a3() -> None:
    src = kernel("i: pl.Tile[[1, 16], pl.INT32, pl.Mem.Vec] = pl.load(idx, [0, 0], [1, 16])\n"
                 "g: pl.Tile[[16, 32], pl.FP16, pl.Mem.Vec] = pl.tile.mgather(mem, i, coalesce=0)\n"
                 "out = pl.store(g, [0, 0], out)\nreturn out\n",
                 params="mem: pl.Tensor[[32, 64], pl.FP16, pl.TensorView(stride=[1, 32], layout=pl.TensorLayout.DN)], "
                        "idx: pl.Tensor[[1, 16], pl.INT32], out: pl.Out[pl.Tensor[[16, 32], pl.FP16]]",
                 ret="pl.Tensor[[16, 32], pl.FP16]")
    with pytest.raises(SlotsatError, match="requires an ND source tensor"):
        compile_source(src, "k.py", CompileOptions())


MAT = ("mem: pl.Tensor[[256], pl.FP16], idx: pl.Tensor[[16, 16], pl.INT32], scratch: pl.Tensor[[256], pl.FP16], "
       "eye: pl.Tensor[[16, 16], pl.FP16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]")
MATMUL = ("e: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.load(eye, [0, 0], [16, 16], target_memory=pl.Mem.Mat)\n"
          "l: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.tile.move(e, target_memory=pl.Mem.Left)\n"
          "r: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.tile.move(g, target_memory=pl.Mem.Right)\n"
          "p: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(l, r)\n"
          "out = pl.store(p, [0, 0], out)\nreturn out\n")


def test_a_mat_gather_in_elem_mode_reads_gm_indices_through_gm_scratch() -> None:
    """Indices and scratch are whole-tensor partition views, as in the reference's unit test of
    the Mat elem form."""
    src = kernel("g: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.tile.mgather(mem, idx, scratch=scratch, coalesce=1, target_memory=pl.Mem.Mat, gather_oob=2)\n"
                 + MATMUL, params=MAT, ret="pl.Tensor[[16, 16], pl.FP32]", kind="(type=pl.FunctionType.AIC)")
    text = compile_source(src, "k.py", CompileOptions(mode=Mode.PYPTO)).pto_text
    (line,) = lines(text, "pto.mgather ins(")
    types = line.split(" : ", 1)[1].split(") outs(")[0]
    assert types == ("!pto.partition_tensor_view<256xf16>, !pto.partition_tensor_view<16x16xi32>, "
                     "!pto.partition_tensor_view<256xf16>")
    assert "loc=mat" in line
    assert line.endswith("{coalesce = #pto<coalesce elem>, gatherOob = #pto<gather_oob wrap>}")


def test_a_mat_gather_takes_its_valid_shape_from_the_call() -> None:
    src = kernel("g: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat, pl.TileView(valid_shape=[9, 13])] = pl.tile.mgather(mem, idx, valid_shape=[9, 13], coalesce=0, target_memory=pl.Mem.Mat)\n"
                 + MATMUL, params=MAT.replace("[[256], pl.FP16], idx", "[[64, 16], pl.FP16], idx").replace("idx: pl.Tensor[[16, 16]", "idx: pl.Tensor[[1, 16]"),
                 ret="pl.Tensor[[16, 16], pl.FP32]", kind="(type=pl.FunctionType.AIC)")
    text = compile_source(src, "k.py", CompileOptions(mode=Mode.PYPTO)).pto_text
    (alloc,) = [line for line in lines(text, "pto.alloc_tile") if "loc=mat" in line and "rows=16, cols=16" in line
                and "valid_row = %c9_index" in line]
    assert "valid_col = %c13_index" in alloc
    (line,) = lines(text, "pto.mgather ins(")
    assert line.endswith("{coalesce = #pto<coalesce row>}")


@pytest.mark.parametrize("viewed", ["mem", "idx"])
def test_a_scratch_tensor_over_mem_or_idx_is_refused(viewed: str) -> None:
    """The reference refuses a scratch that overlaps `mem` or `idx`; a `tensor.view` of either
    shares its storage."""
    dtype = "pl.FP16" if viewed == "mem" else "pl.INT32"
    src = kernel(f"s: pl.Tensor[[256], {dtype}] = pl.tensor.view({viewed}, [256])\n"
                 "g: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.tile.mgather(mem, idx, scratch=s, coalesce=1, target_memory=pl.Mem.Mat)\n"
                 + MATMUL, params=MAT.replace("[[256], pl.FP16], idx", "[[16, 16], pl.FP16], idx"),
                 ret="pl.Tensor[[16, 16], pl.FP32]", kind="(type=pl.FunctionType.AIC)")
    with pytest.raises(SlotsatError, match=f"the scratch tensor 's' must not overlap {viewed} '{viewed}'"):
        compile_source(src, "k.py", CompileOptions())


# -- values ------------------------------------------------------------------------------

TABLE = np.arange(8 * 32, dtype=np.float32).reshape(8, 32)


def _gather(idx: np.ndarray, coalesce: str, oob: str, result: str) -> np.ndarray:
    rows, cols = idx.shape
    src = kernel(f"i: pl.Tile[[{rows}, {cols}], pl.INT32, pl.Mem.Vec] = pl.load(idx, [0, 0], [{rows}, {cols}])\n"
                 f"g: pl.Tile[{result}, pl.FP32, pl.Mem.Vec] = pl.tile.mgather(mem, i, coalesce=\"{coalesce}\", gather_oob=\"{oob}\")\n"
                 "out = pl.store(g, [0, 0], out)\nreturn out\n",
                 params=f"mem: pl.Tensor[[8, 32], pl.FP32], idx: pl.Tensor[[{rows}, {cols}], pl.INT32], "
                        f"out: pl.Out[pl.Tensor[{result}, pl.FP32]]",
                 ret=f"pl.Tensor[{result}, pl.FP32]")
    fn = parse_source(src, "k.py").programs[0].functions[0]
    shape = tuple(int(d) for d in result.strip("[]").split(","))
    (out,) = run_function(fn, {"mem": TABLE, "idx": idx.astype(np.int32), "out": np.zeros(shape, np.float32)})
    assert isinstance(out, np.ndarray)
    return out


@pytest.mark.parametrize(
    ("oob", "rows"),
    # -2 is read unsigned (0xFFFFFFFE), as the reference's runtime-test golden reads it: clamped to
    # the last row, and 4294967294 % 8 == 6
    [("clamp", [3, 0, 7, 7]), ("wrap", [3, 0, 1, 6]), ("zero", [3, 0, None, None])],
)
def test_a_row_gather_reads_whole_rows_and_treats_an_outside_row_by_its_mode(oob: str, rows: list[int | None]) -> None:
    out = _gather(np.array([[3, 0, 9, -2]]), "row", oob, "[4, 32]")
    for r, want in enumerate(rows):
        np.testing.assert_array_equal(out[r], TABLE[want] if want is not None else np.zeros(32, np.float32))


def test_an_element_gather_reads_flat_offsets_and_an_outside_one_is_an_error_when_undefined() -> None:
    idx = np.array([[0, 33, 255, 40], [7, 8, 9, 10]])
    out = _gather(idx, "elem", "wrap", "[2, 4]")
    np.testing.assert_array_equal(out, TABLE.reshape(-1)[idx])
    wrapped = _gather(np.array([[256, -1, 5, 6], [0, 0, 0, 0]]), "elem", "wrap", "[2, 4]")
    np.testing.assert_array_equal(wrapped[0], [0, 255, 5, 6])
    # not a power of two: the unsigned reading of -1 wraps to 4294967295 % 96 == 63, not 95
    idx = np.array([[-1, 95, 96, 0]])
    src = kernel("i: pl.Tile[[1, 4], pl.INT32, pl.Mem.Vec] = pl.load(idx, [0, 0], [1, 4])\n"
                 "g: pl.Tile[[1, 4], pl.FP32, pl.Mem.Vec] = pl.tile.mgather(mem, i, coalesce=\"elem\", gather_oob=\"wrap\")\n"
                 "out = pl.store(g, [0, 0], out)\nreturn out\n",
                 params="mem: pl.Tensor[[3, 32], pl.FP32], idx: pl.Tensor[[1, 4], pl.INT32], out: pl.Out[pl.Tensor[[1, 4], pl.FP32]]",
                 ret="pl.Tensor[[1, 4], pl.FP32]")
    fn = parse_source(src, "k.py").programs[0].functions[0]
    (odd,) = run_function(fn, {"mem": TABLE[:3], "idx": idx.astype(np.int32), "out": np.zeros((1, 4), np.float32)})
    np.testing.assert_array_equal(odd, [TABLE[:3].reshape(-1)[[63, 95, 0, 0]]])
    with pytest.raises(InterpreterError, match=r"tile\.mgather index 256 is outside the 256 elements of its source"):
        _gather(np.array([[256, 0, 0, 0], [0, 0, 0, 0]]), "elem", "undefined", "[2, 4]")


@pytest.mark.parametrize("keywords", ["coalesce=2", "coalesce=0, gather_oob=4", "coalesce=\"rows\""])
def test_a_mode_outside_the_references_is_a_located_error(keywords: str) -> None:
    src = _vec("[64, 32]", "[1, 16]", "[16, 32]", "pl.FP32").replace("coalesce=0", keywords)
    with pytest.raises(SlotsatError) as info:
        compile_source(src, "k.py", CompileOptions())
    assert info.value.message.startswith("tile.mgather takes coalesce=0 (\"row\") or 1 (\"elem\")")


# -- the result type -----------------------------------------------------------------------

GATHERS = {
    "vec_row": ("mem: pl.Tensor[[64, 32], pl.FP32], idx: pl.Tensor[[1, 16], pl.INT32]",
                "i = pl.load(idx, [0, 0], [1, 16], [1, 12])\nr = pl.tile.mgather(mem, i, coalesce=\"row\")"),
    "vec_column": ("mem: pl.Tensor[[64, 32], pl.FP32], idx: pl.Tensor[[16, 1], pl.INT32]",
                   "i = pl.load(idx, [0, 0], [16, 1])\nr = pl.tile.mgather(mem, i, coalesce=\"row\")"),
    "vec_elem": ("mem: pl.Tensor[[256], pl.FP16], idx: pl.Tensor[[8, 32], pl.INT32]",
                 "i = pl.load(idx, [0, 0], [8, 32], [5, 32])\nr = pl.tile.mgather(mem, i, coalesce=\"elem\", gather_oob=\"clamp\")"),
    "mat_row": ("mem: pl.Tensor[[64, 32], pl.FP16], idx: pl.Tensor[[1, 16], pl.INT32]",
                "r = pl.tile.mgather(mem, idx, coalesce=\"row\", target_memory=pl.Mem.Mat, valid_shape=[9, 21])"),
    "mat_elem": ("mem: pl.Tensor[[256], pl.FP16], idx: pl.Tensor[[16, 16], pl.INT32], scratch: pl.Tensor[[256], pl.FP16]",
                 "r = pl.tile.mgather(mem, idx, coalesce=\"elem\", target_memory=pl.Mem.Mat, scratch=scratch)"),
}


def _gather_program(name: str) -> str:
    params, body = GATHERS[name]
    return kernel(body + "\nreturn out\n", params=f"{params}, out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]",
                  ret="pl.Tensor[[16, 32], pl.FP32]")


def _r_type(printed: str) -> str:
    (line,) = [line for line in printed.splitlines() if line.strip().startswith("r: ")]
    return line.strip()[3:].split(" = ")[0]


@pytest.mark.parametrize(("name", "expected"), [
    ("vec_row", "pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[12, 32])]"),
    ("vec_column", "pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec]"),
    ("vec_elem", "pl.Tile[[8, 32], pl.FP16, pl.Mem.Vec, pl.TileView(valid_shape=[5, 32])]"),
    ("mat_row", "pl.Tile[[16, 32], pl.FP16, pl.Mem.Mat, pl.TileView(valid_shape=[9, 21])]"),
    ("mat_elem", "pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat]"),
])
def test_an_unannotated_gather_gets_the_references_result_type(name: str, expected: str) -> None:
    """Rows of the tensor's last dimension per index of a row or column vector, or the indices'
    own shape in elem mode, valid where the indices are (Vec) or where `valid_shape` says (Mat)."""
    assert _r_type(print_module(parse_source(_gather_program(name), "k.py"))) == expected


@pytest.mark.pypto
@pytest.mark.parametrize("name", sorted(GATHERS))
def test_the_deduced_gather_type_is_the_references(name: str) -> None:
    import pypto.language as pl

    source = _gather_program(name)
    assert _r_type(print_module(parse_source(source, "k.py"))) == _r_type(pl.parse_program(source).as_python())


def test_a_mat_row_gather_takes_its_valid_shape_by_position_too() -> None:
    """The op's argument 2 is the valid shape in Mat row mode (the scratch tensor in elem mode)."""
    src = kernel("g = pl.tile.mgather(mem, idx, [9, 13], coalesce=0, target_memory=pl.Mem.Mat)\n" + MATMUL,
                 params=MAT.replace("[[256], pl.FP16], idx", "[[64, 16], pl.FP16], idx").replace("idx: pl.Tensor[[16, 16]", "idx: pl.Tensor[[1, 16]"),
                 ret="pl.Tensor[[16, 16], pl.FP32]", kind="(type=pl.FunctionType.AIC)")
    text = compile_source(src, "k.py", CompileOptions()).pto_text
    assert [line for line in lines(text, "%g = pto.alloc_tile") if "valid_row = %c9_index valid_col = %c13_index" in line]
    (line,) = lines(text, "pto.mgather ins(")
    assert line.endswith("{coalesce = #pto<coalesce row>}")


def test_a_mode_passed_by_position_is_a_located_error() -> None:
    src = _vec("[64, 32]", "[1, 16]", "[16, 32]", "pl.FP32").replace("coalesce=0", "1")
    with pytest.raises(SlotsatError) as info:
        compile_source(src, "k.py", CompileOptions())
    assert info.value.message == ("tile.mgather's third argument is its scratch tensor (the op's, as the reference "
                                  "prints it); pass coalesce= and gather_oob= by keyword")


@pytest.mark.parametrize(("idx", "load", "message"), [
    ("[16]", "pl.load(idx, [0], [16])", "reads its indices from a 2-D tile (its second argument)"),
    ("[4, 4]", "pl.load(idx, [0, 0], [4, 4])", "row mode reads a [1, R] or [R, 1] index vector"),
])
def test_operands_the_reference_deduces_no_type_for_are_a_parse_error(idx: str, load: str, message: str) -> None:
    src = kernel(f"i: pl.Tile[{idx}, pl.INT32, pl.Mem.Vec] = {load}\n"
                 "g: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.mgather(mem, i, coalesce=0)\n"
                 "out = pl.store(g, [0, 0], out)\nreturn out\n",
                 params=f"mem: pl.Tensor[[64, 32], pl.FP32], idx: pl.Tensor[{idx}, pl.INT32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]",
                 ret="pl.Tensor[[16, 32], pl.FP32]")
    with pytest.raises(SlotsatError) as info:
        parse_source(src, "k.py")
    assert info.value.message == f"pl.tile.mgather {message}, as the reference's type deduction requires"
