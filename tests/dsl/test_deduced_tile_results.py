"""The result types slotsat deduces for the reference's generic tile ops (elementwise, broadcast
and reduction ops outside slotsat's own model) are the ones the reference deduces, checked
against the installed reference (marker `pypto`); and an annotation naming another dtype than
the op produces is a located error, not a module that stores the wrong element type."""

from __future__ import annotations

import re
import textwrap

import pytest

from slotsat.core import ops
from slotsat.core.dsl import parse_source, print_module
from slotsat.core.dsl.calls import spelled
from slotsat.core.errors import SlotsatError

INTEGER_ONLY = frozenset({
    "tile.not", "tile.and", "tile.or", "tile.xor", "tile.ands", "tile.ors", "tile.xors",
    "tile.shl", "tile.shr", "tile.shls", "tile.shrs",
})
"""Ops the reference defines on integer tiles only (on INT32 here, `tile.not` on INT16, the
only width it takes); every other op here is checked on FP32."""

DEDUCED = sorted({*ops.ELEMENTWISE_TILE_RESULTS, *ops.ROW_REDUCED_RESULTS, *ops.COLUMN_REDUCED_RESULTS})


def _source(op: str, result: str = "r", *, partial: bool = False) -> str:
    """A kernel applying `op` to a 16 x 16 tile and operands of matching kind: a tile where the
    reference's registry gives the argument a memory space, else a scalar; a `[16, 1]` row or
    a `[1, 16]` column where the op broadcasts one. With `partial`, argument 0 is valid in
    `[8, 16]` only, and so is the other 16 x 16 tile (`tile.prelu` needs them alike)."""
    ref = ops.reference(op)
    assert ref is not None
    dtype = "INT16" if op == "tile.not" else "INT32" if op in INTEGER_ONLY else "FP32"
    operands = []
    for k in range(ref.required_args):
        if k >= len(ref.memory_inputs) or not ref.memory_inputs[k]:
            operands.append("s")
        elif k == 1 and op.startswith("tile.row_expand"):
            operands.append("row")
        elif k == 1 and op.startswith("tile.col_expand"):
            operands.append("col")
        else:
            operands.append("a" if k == 0 else "b")
    a, b = ("a = pl.load(x, [0, 0], [16, 16], [8, 16])",
            "b = pl.load(x, [0, 0], [16, 16], [8, 16])") if partial else (
        f"a: pl.Tile[[16, 16], pl.{dtype}, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])",
        f"b: pl.Tile[[16, 16], pl.{dtype}, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])")
    return _program(f"x: pl.Tensor[[16, 16], pl.{dtype}], s: pl.Scalar[pl.{dtype}]", f"""
            {a}
            {b}
            row: pl.Tile[[16, 1], pl.{dtype}, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 1])
            col: pl.Tile[[1, 16], pl.{dtype}, pl.Mem.Vec] = pl.load(x, [0, 0], [1, 16])
            {result} = {spelled(op)}({", ".join(operands)})
    """)


def _program(params: str, body: str) -> str:
    """A program of one InCore function `k(self, PARAMS)` with `body`."""
    return "import pypto.language as pl\n\n@pl.program\nclass P:\n" + textwrap.indent(
        f"@pl.function(type=pl.FunctionType.InCore)\ndef k(self, {params}):\n"
        + textwrap.indent(textwrap.dedent(body).strip("\n") + "\n", "    "), "    ")


def _result_type(printed: str) -> str:
    match = re.search(r"^\s*r: (.*) = pl\.tile\.", printed, re.MULTILINE)
    assert match is not None, printed
    return match.group(1)


@pytest.mark.pypto
@pytest.mark.parametrize("partial", [False, True], ids=["full", "partial"])
@pytest.mark.parametrize("op", DEDUCED)
def test_a_deduced_result_is_the_type_the_reference_deduces(op: str, partial: bool) -> None:
    import pypto.language as pl

    source = _source(op, partial=partial)
    expected = _result_type(pl.parse_program(source).as_python())
    assert _result_type(print_module(parse_source(source, "k.py"))) == expected


@pytest.mark.parametrize("op", ["tile.fmods", "tile.rems", "tile.shls", "tile.col_expand_max",
                                "tile.row_argmax"])
def test_an_annotation_of_another_dtype_than_the_op_produces_is_an_error(op: str) -> None:
    """`t: pl.Tile[..., pl.UINT8] = pl.tile.fmods(fp32_tile, 3.0)` used to emit a `tfmods` from
    f32 into ui8 (its scalar narrowed to `i8`) and store the bytes into the FP32 tensor."""
    produced = "INT32" if op in INTEGER_ONLY or op == "tile.row_argmax" else "FP32"
    shape = "[16, 1]" if op == "tile.row_argmax" else "[16, 16]"
    source = _source(op, f"r: pl.Tile[{shape}, pl.UINT8, pl.Mem.Vec]")
    with pytest.raises(SlotsatError) as info:
        parse_source(source, "k.py")
    assert info.value.span.line == 11  # the call's line
    assert info.value.message == (f"annotation says pl.Tile[{shape}, pl.UINT8, pl.Mem.Vec] but {spelled(op)} "
                                  f"produces pl.Tile[{shape}, pl.{produced}, pl.Mem.Vec]")


def test_a_promoting_call_keeps_needing_its_annotation() -> None:
    """Where the reference would promote (an FP32 and an FP16 tile) slotsat deduces nothing: the
    result is the annotation's, and without one it asks for it."""
    loaded = "b: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])"
    cast = "b: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.cast(a, pl.FP16)"
    source = _source("tile.fmod").replace(loaded, cast)
    with pytest.raises(SlotsatError) as info:
        parse_source(source, "k.py")
    assert info.value.message.startswith("annotate the result of pl.tile.fmod")


SIZES = "a Vec tile's store copies elements bit for bit, so their sizes must agree"
MATMUL = "pl.matmul(pl.move(m, target_memory=pl.Mem.Left), pl.move(m, target_memory=pl.Mem.Right))"


@pytest.mark.parametrize(("tile", "make", "tensor", "why"), [
    ("pl.Tile[[16, 16], pl.UINT8, pl.Mem.Vec]", "pl.cast(v, pl.UINT8)", "FP32",
     f"{SIZES} (8 and 32 bits); cast the tile first (pl.cast)"),
    ("pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec]", "pl.load(x, [0, 0], [16, 16])", "FP32",
     f"{SIZES} (16 and 32 bits); cast the tile first (pl.cast)"),
    ("pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc]", MATMUL, "INT8",
     "an Acc tile stores into INT32, FP32, FP16 or BF16 only"),
])
def test_a_store_the_hardware_cannot_do_is_an_error(tile: str, make: str, tensor: str, why: str) -> None:
    """PTO-ISA's TSTORE: a Vec tile of another element size, or an accumulator into an INT8
    tensor, is a located error, where the reference's tile.store would take it."""
    source = _program(f"x: pl.Tensor[[16, 16], pl.FP16], y: pl.Out[pl.Tensor[[16, 16], pl.{tensor}]]", f"""
        v: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        m: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        a: {tile} = {make}
        y = pl.store(a, [0, 0], y)
    """)
    with pytest.raises(SlotsatError) as info:
        parse_source(source, "k.py")
    assert (info.value.message, info.value.span.line) == (
        f"pl.tile.store stores a {tile} into a pl.{tensor} tensor: {why}", 10)


def test_a_store_of_one_element_size_and_an_accumulator_store_are_kept() -> None:
    """The hardware stores an INT32 Vec tile into an FP32 tensor bit for bit, and converts an
    FP32 accumulator into an FP16 tensor on the way out."""
    params = ("x: pl.Tensor[[16, 16], pl.INT32], w: pl.Tensor[[16, 16], pl.FP16], "
              "y: pl.Out[pl.Tensor[[16, 16], pl.FP32]], z: pl.Out[pl.Tensor[[16, 16], pl.FP16]]")
    source = _program(params, """
        a: pl.Tile[[16, 16], pl.INT32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        y = pl.store(a, [0, 0], y)
        m: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.load(w, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        c = pl.matmul(pl.move(m, target_memory=pl.Mem.Left), pl.move(m, target_memory=pl.Mem.Right))
        z = pl.store(c, [0, 0], z)
    """)
    printed = print_module(parse_source(source, "k.py"))
    assert printed.count("pl.tile.store(") == 2


def test_a_deduced_result_inherits_its_sources_layout_pad_and_compact_mode() -> None:
    """The reference's `InheritTileViewLayout`: block / scatter layout, pad and compact mode pass
    on, a view's strides do not. (The reference's own parser cannot read this annotation back,
    so this is checked against the rule, not its print.)"""
    view = "pl.TileView(blayout=pl.TileLayout.col_major, pad=pl.PadValue.zero)"
    source = _program("x: pl.Tensor[[16, 16], pl.FP32]", f"""
        a: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, {view}] = pl.load(x, [0, 0], [16, 16])
        r = pl.tile.fmods(a, 2.0)
    """)
    printed = print_module(parse_source(source, "k.py"))
    assert f"r: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, {view}] = pl.tile.fmods(a, 2.0)" in printed
