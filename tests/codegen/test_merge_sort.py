"""`tile.mrgsort_format1` (ptoas `pto.tmrgsort` format 1): the source tile and an `i32` block
length become the operands, as the reference's PTO backend emits them; a literal block
length is the shared `%c<N>_i32` constant, whatever its printed dtype, and a runtime integer
of another dtype is cast to i32."""

# ruff: noqa: E501  (embedded kernel text keeps one statement per line, 10-dsl.md §9.1)

from __future__ import annotations

from tests.codegen.harness import compile_, error, kernel, lines

ROW = "!pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=256, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>"
PARAMS = "x: pl.Tensor[[1, 256], pl.FP32], out: pl.Out[pl.Tensor[[1, 256], pl.FP32]]"
RET = "pl.Tensor[[1, 256], pl.FP32]"


def _body(block: str) -> str:
    return f"""
s: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [1, 256], target_memory=pl.Mem.Vec)
m: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.mrgsort_format1(s, {block})
out = pl.tile.store(m, [0, 0], out)
return out
"""


def test_merge_sort_format1_passes_the_block_length_as_i32() -> None:
    text = compile_(kernel(_body("pl.const(64, pl.INT32)"), params=PARAMS, ret=RET)).pto_text
    (sort,) = lines(text, "pto.tmrgsort")
    assert sort.strip() == f"pto.tmrgsort ins(%s, %c64_i32 : {ROW}, i32) outs(%m : {ROW})"
    assert lines(text, "%c64_i32 = arith.constant 64 : i32")


def test_an_index_literal_block_length_is_still_i32() -> None:
    text = compile_(kernel(_body("16"), params=PARAMS, ret=RET)).pto_text
    (sort,) = lines(text, "pto.tmrgsort")
    assert "%c16_i32 : " in sort
    assert sort.rstrip().endswith(f"outs(%m : {ROW})")
    assert not lines(text, "%c16_index")


def test_a_runtime_index_block_length_is_cast_to_i32() -> None:
    # the reference's EmitCastToI32: a runtime block length of another integer dtype is converted
    src = kernel(_body("n"), params=PARAMS + ", n: pl.Scalar[pl.INDEX]", ret=RET)
    text = compile_(src).pto_text
    (cast,) = lines(text, "arith.index_cast")
    name = cast.strip().split(" = ")[0]
    assert cast.rstrip().endswith(": index to i32")
    (sort,) = lines(text, "pto.tmrgsort")
    assert f"ins(%s, {name} : {ROW}, i32)" in sort


def test_a_float_block_length_is_declined() -> None:
    src = kernel(_body("f"), params=PARAMS + ", f: pl.Scalar[pl.FP32]", ret=RET)
    err = error(src)
    assert "argument 'block_len' of tile.mrgsort_format1 only as a literal or an integer scalar, got FP32" in err.render("k.py")
