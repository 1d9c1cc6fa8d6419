# ruff: noqa: E501  (DSL parameter lists and emitted lines are one line each)
"""The tiles generated on chip: `tile.tri`, the triangular mask (an attention block's causal
mask), and `tile.random`: their result types, their ops as the reference's PTO backend emits
them (`pto.ttri`, `pto.trandom`), and the mask's values.

Groups: the reference's printed kernel compiles to the reference's own module (the masks in
MLIR's generic form, as the reference prints them) and `check` confirms it with its loop
slotted; a generated tile is valid in the call's `valid_shape` (an annotation that leaves it out
takes it, one that contradicts it is an error); the interpreter's lower and upper masks against
numpy's `tril` / `triu` over the valid region; `pto.trandom` of the six seed words, at 7 rounds
in MLIR's generic form, and a `rounds` ptoas does not take a located error.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from slotsat.app.pipeline import CompileOptions, compile_source
from slotsat.core import ir
from slotsat.core.dsl.parser import parse_source
from slotsat.core.errors import SlotsatError
from slotsat.core.interpreter import outputs_equal, run_function
from slotsat.core.options import Mode
from tests.codegen.harness import PRINTED, compile_, confirmed, kernel, lines, references_module
from tests.reliability.interp_harness import kernel as interp_kernel
from tests.reliability.interp_harness import run

PARAMS = "out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]"
RET = "pl.Tensor[[16, 32], pl.FP32]"


def test_the_printed_kernel_is_confirmed_with_its_loop_slotted(capsys: pytest.CaptureFixture[str]) -> None:
    out = confirmed("causal_mask", capsys)
    assert any("rotated: t__ssa_v0[b__idx_v0 % 2]; outputs match" in line for line in out)


def test_the_printed_kernel_compiles_to_the_references_module() -> None:
    """`causal_mask` of `tools/printed_kernels.py`, as the reference prints it at the hand-off
    point, in `--mode pypto`: the reference's `.pto` operation for operation, the masks in MLIR's
    generic form `"pto.ttri"(%d, %dst) {upperOrLower = U : i32} : (i32, TB) -> ()`."""
    ours, theirs = references_module("causal_mask")
    assert ours == theirs
    assert [line.split(")", 1)[1].split(":")[0].strip() for line in ours if line.startswith("pto.ttri(")] == [
        "{upperOrLower = 0", "{upperOrLower = 1"]
    text = compile_source((PRINTED / "causal_mask.pre.py").read_text(), "k.py", CompileOptions(mode=Mode.PYPTO)).pto_text
    assert len(lines(text, '"pto.ttri"(')) == 2


def test_an_annotation_without_a_valid_shape_takes_the_calls() -> None:
    src = kernel("m: pl.Tile[[16, 32], pl.FP32] = pl.tile.tri(1, [16, 32], valid_shape=[9, 21], dtype=pl.FP32, upper=True)\nreturn pl.store(m, [0, 0], out)\n",
                 params=PARAMS, ret=RET)
    fn = parse_source(src, "k.py").programs[0].functions[0]
    (m,) = [s.var for s in ir.walk_stmts(fn.body) if isinstance(s, ir.AssignStmt) and s.var.name_hint == "m"]
    assert isinstance(m.type, ir.TileType)
    assert m.type.valid_shape == (ir.ConstInt(9, ir.DType.INDEX), ir.ConstInt(21, ir.DType.INDEX))
    text = compile_(src).pto_text
    (ttri,) = lines(text, '"pto.ttri"(')
    assert ttri.startswith('"pto.ttri"(%c1_i32, %m) {upperOrLower = 1 : i32} : (i32, ')
    (view,) = lines(text, "pto.partition_view")
    assert "sizes = [%c9_index, %c21_index]" in view  # the store writes the valid 9 x 21


def test_an_annotation_contradicting_the_valid_shape_is_a_located_error() -> None:
    src = kernel("m: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[8, 21])] = pl.tile.tri(1, [16, 32], [9, 21], dtype=pl.FP32)\nreturn pl.store(m, [0, 0], out)\n",
                 params=PARAMS, ret=RET)
    with pytest.raises(SlotsatError) as info:
        parse_source(src, "k.py")
    assert info.value.message == "annotation says valid_shape=[8, 21] but pl.tile.tri produces valid_shape=[9, 21]"


@pytest.mark.parametrize(("diagonal", "upper"), [(0, False), (2, False), (-3, False), (0, True), (5, True), (-1, True)])
def test_the_interpreter_builds_the_ttri_mask_over_the_valid_region(diagonal: int, upper: bool) -> None:
    fn = interp_kernel(PARAMS, RET, f"""
m: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[12, 20])] = pl.tile.tri({diagonal}, [16, 32], [12, 20], dtype=pl.FP32, upper={upper})
r: pl.Tensor[[16, 32], pl.FP32] = pl.store(m, [0, 0], out)
return r
""")
    (out,) = run(fn, {"out": np.full((16, 32), 7, np.float32)}, modelled=True)
    ones = np.ones((12, 20), np.float32)
    want = np.full((16, 32), 7, np.float32)  # outside the valid region the store writes nothing
    want[:12, :20] = np.triu(ones, diagonal) if upper else np.tril(ones, diagonal)
    np.testing.assert_array_equal(out, want)


RANDOM = "out: pl.Out[pl.Tensor[[16, 64], pl.UINT32]], seed: pl.Scalar[pl.INT32]"


def test_random_emits_trandom_with_its_six_seed_words() -> None:
    """`tile.random(key0, key1, counter0..3, shape, valid_shape)`: `pto.trandom` of the six
    words as i32 values into the result (valid in its `valid_shape`), as the reference emits it
    at the default `rounds=10` (the operations of its module for this kernel, up to names)."""
    src = kernel("r = pl.tile.random(seed, 2, 3, 4, 5, 6, [16, 64], [8, 64], dtype=pl.UINT32)\nout = pl.store(r, [0, 0], out)\nreturn out\n",
                 params=RANDOM, ret="pl.Tensor[[16, 64], pl.UINT32]")
    text = compile_(src).pto_text
    (op,) = lines(text, "pto.trandom")
    assert op.startswith("pto.trandom ins(%arg1, %c2_i32, %c3_i32, %c4_i32, %c5_i32, %c6_i32 : i32, i32, i32, i32, i32, i32) outs(%r : ")
    (view,) = lines(text, "pto.partition_view")
    assert "sizes = [%c8_index, %c64_index]" in view


def test_random_at_seven_rounds_is_emitted_in_the_generic_form() -> None:
    """ptoas reads a `rounds` other than its default 10 only in MLIR's generic form, which the
    reference prints: the six words and the destination, then the attribute."""
    src = kernel("r = pl.tile.random(seed, 2, 3, 4, 5, 6, [16, 64], dtype=pl.UINT32, rounds=7)\nout = pl.store(r, [0, 0], out)\nreturn out\n",
                 params=RANDOM, ret="pl.Tensor[[16, 64], pl.UINT32]")
    text = compile_(src).pto_text
    (op,) = lines(text, "pto.trandom")
    assert op.startswith('"pto.trandom"(%arg1, %c2_i32, %c3_i32, %c4_i32, %c5_i32, %c6_i32, %r) {rounds = 7 : i32} : (i32, i32, i32, i32, i32, i32, !pto.tile_buf<')
    assert op.endswith(">) -> ()")


def test_random_at_ten_rounds_is_the_destination_style_form() -> None:
    src = kernel("r = pl.tile.random(seed, 2, 3, 4, 5, 6, [16, 64], dtype=pl.UINT32, rounds=10)\nout = pl.store(r, [0, 0], out)\nreturn out\n",
                 params=RANDOM, ret="pl.Tensor[[16, 64], pl.UINT32]")
    (op,) = lines(compile_(src).pto_text, "pto.trandom")
    assert op.startswith("pto.trandom ins(%arg1, ")


def test_random_with_rounds_ptoas_rejects_is_a_located_error() -> None:
    """ptoas's verifier takes 7 or 10 cipher rounds; any other count is refused at the call."""
    src = kernel("r = pl.tile.random(seed, 2, 3, 4, 5, 6, [16, 64], dtype=pl.UINT32, rounds=8)\nout = pl.store(r, [0, 0], out)\nreturn out\n",
                 params=RANDOM, ret="pl.Tensor[[16, 64], pl.UINT32]")
    with pytest.raises(SlotsatError) as info:
        compile_source(src, "k.py", CompileOptions())
    assert info.value.message == "tile.random takes rounds=7 or 10 (the cipher rounds ptoas accepts), got 8"
    assert (info.value.span.line, info.value.span.col) == (10, 13)


def test_the_printed_random_and_fillpad_expand_compile_to_the_references_module() -> None:
    """`expand_random` of `tools/printed_kernels.py`: `tile.fillpad_expand` into a taller tile
    (`pto.tfillpad_expand`, the pad in the destination's type) and `tile.random` at 7 rounds,
    operation for operation as the reference emits them in `--mode pypto`."""
    ours, theirs = references_module("expand_random")
    assert ours == theirs
    assert any(line.startswith("pto.tfillpad_expand ins(") for line in ours)


def test_the_printed_gatherb_and_pipe_barriers_compile_to_the_references_module() -> None:
    """`gather_barrier` of `tools/printed_kernels.py`: `tile.gatherb` (`pto.tgatherb`) of a
    slice of a slice and `system.bar_v` / `bar_m` / `bar_all` (`pto.barrier <PIPE_...>`), as
    the reference emits them in `--mode pypto`. The reference also allocates a buffer for each
    slice that nothing uses (the `pto.alloc_tile` just before each `pto.subview`); without
    those, and with values unnumbered, the two modules are the same."""
    ours, theirs = references_module("gather_barrier")
    dead = {k for k, line in enumerate(theirs) if "pto.alloc_tile" in line and k + 1 < len(theirs)
            and "pto.subview" in theirs[k + 1]}
    assert len(dead) == 2

    def unnumbered(lines: list[str]) -> list[str]:
        return [re.sub(r"%v\d+", "%v", line) for line in lines if "arith.constant" not in line]

    assert unnumbered(ours) == unnumbered([line for k, line in enumerate(theirs) if k not in dead])
    assert [line.split(" ins(")[0] for line in ours if "pto.barrier" in line or "pto.tgatherb" in line] == [
        "pto.barrier <PIPE_V>", "pto.tgatherb", "pto.barrier <PIPE_M>", "pto.barrier <PIPE_ALL>"]


GATHERB = "src: pl.Tensor[[16, 256], pl.FP16], offsets: pl.Tensor[[8, 8], pl.UINT32], out: pl.Out[pl.Tensor[[8, 128], pl.FP16]]"


@pytest.mark.parametrize(("at", "byte"), [("[0, 1]", 2), ("[1, 0]", 512 + 0), ("[0, 17]", 34)])
def test_a_gatherb_source_slice_must_start_32_byte_aligned(at: str, byte: int) -> None:
    """The reference requires tile.gatherb's source to start at a byte offset provably a
    multiple of 32; a slice one row in (512 bytes) is, one or 17 halves in is not."""
    src = kernel(f"t: pl.Tile[[16, 256], pl.FP16, pl.Mem.Vec] = pl.load(src, [0, 0], [16, 256])\n"
                 f"s: pl.Tile[[8, 128], pl.FP16, pl.Mem.Vec] = pl.tile.slice(t, [8, 128], {at})\n"
                 "o: pl.Tile[[8, 8], pl.UINT32, pl.Mem.Vec] = pl.load(offsets, [0, 0], [8, 8])\n"
                 "g: pl.Tile[[8, 128], pl.FP16, pl.Mem.Vec] = pl.tile.gatherb(s, o)\n"
                 "out = pl.store(g, [0, 0], out)\nreturn out\n", params=GATHERB, ret="pl.Tensor[[8, 128], pl.FP16]")
    if byte % 32 == 0:
        assert "pto.tgatherb ins(%s, %o : " in compile_source(src, "k.py", CompileOptions()).pto_text
        return
    with pytest.raises(SlotsatError) as info:
        compile_source(src, "k.py", CompileOptions())
    assert info.value.message.endswith(f"as the reference requires; it starts at byte {byte}")


def test_the_pipe_barriers_change_no_value_in_the_interpreter() -> None:
    """`system.bar_v` / `bar_m` / `bar_all` drain this core's pipes; the interpreter runs ops in
    order, so its outputs are those of the kernel without them."""
    body = ("t: pl.Tile[[16, 256], pl.FP16, pl.Mem.Vec] = pl.load(src, [0, 0], [16, 256])\n"
            "pl.system.bar_v()\ne: pl.Tile[[16, 256], pl.FP16, pl.Mem.Vec] = pl.exp(t)\npl.system.bar_m()\n"
            "out = pl.store(e, [0, 0], out)\npl.system.bar_all()\nreturn out\n")
    params = "src: pl.Tensor[[16, 256], pl.FP16], out: pl.Out[pl.Tensor[[16, 256], pl.FP16]]"
    with_bars = parse_source(kernel(body, params=params, ret="pl.Tensor[[16, 256], pl.FP16]"), "k.py")
    without = parse_source(kernel("\n".join(line for line in body.splitlines() if "bar_" not in line),
                                  params=params, ret="pl.Tensor[[16, 256], pl.FP16]"), "k.py")
    args = {"src": np.linspace(-1, 1, 16 * 256, dtype=np.float16).reshape(16, 256),
            "out": np.zeros((16, 256), np.float16)}
    assert outputs_equal(run_function(without.programs[0].functions[0], args),
                         run_function(with_bars.programs[0].functions[0], args)) is None
