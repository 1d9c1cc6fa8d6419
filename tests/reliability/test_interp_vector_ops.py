"""The interpreter's models of the remaining vector ops of the reference's printed form (issue
16): the fused add / subtract family (`tile.addc`, `subc`, `addsc`, `subsc`), the remainders
`tile.rem` / `rems` and `tile.fmods`, the slopes `tile.prelu` / `tile.lrelu`, `tile.sels`,
`tile.expands`, `tile.fillpad_inplace` and `tile.fillpad_expand`, the block gather `tile.gatherb`
(with the whole-block offsets `random_inputs` draws for it) and `tile.scatter_update`, each against
a hand-computed expectation; and `tile.random`, whose values are a deterministic stand-in held as
undefined data.

Where the reference's sources disagree on a result (subc's third operand, a remainder's sign),
the run holds undefined data (`interpreter.Undefined`) exactly
where they disagree: the poison filling there, the agreed value everywhere else."""

# ruff: noqa: E501  (embedded kernel text keeps one statement per line, 10-dsl.md §9.1)

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from slotsat.app.cli import main
from slotsat.core import ir
from slotsat.core.inputs import random_inputs
from slotsat.core.interp_errors import InterpreterError, Unmodelled
from slotsat.core.interpreter import Interpreter, Undefined, ensure_modelled, round_bf16
from tests.reliability.interp_harness import kernel

TWO = "a: pl.Tensor[[2, 4], pl.{t}], b: pl.Tensor[[2, 4], pl.{t}], out: pl.Out[pl.Tensor[[2, 4], pl.{t}]]"
RET = "pl.Tensor[[2, 4], pl.{t}]"


def _binary_kernel(line: str, dtype: str = "FP32") -> ir.Function:
    """`out = LINE` of the tiles `x` (from `a`) and `y` (from `b`), [2, 4] each; LINE defines `m`."""
    return kernel(TWO.format(t=dtype), RET.format(t=dtype), f"""
x: pl.Tile[[2, 4], pl.{dtype}, pl.Mem.Vec] = pl.load(a, [0, 0], [2, 4])
y: pl.Tile[[2, 4], pl.{dtype}, pl.Mem.Vec] = pl.load(b, [0, 0], [2, 4])
tmp: pl.Tile[[2, 4], pl.{dtype}, pl.Mem.Vec] = pl.tile.create([2, 4], dtype=pl.{dtype}, target_memory=pl.Mem.Vec)
{line}
r: pl.Tensor[[2, 4], pl.{dtype}] = pl.store(m, [0, 0], out)
return r
""")


def _run(fn: ir.Function, a: np.ndarray, b: np.ndarray, filling: int = 0) -> tuple[np.ndarray, list[str]]:
    """`fn`'s output on `a` and `b` with undefined data filled by `filling`, and the undefined
    data it read other than the scratch tile's contents (`tile.create`)."""
    ensure_modelled(fn)
    undefined = Undefined(filling=filling, seed=3)
    it = Interpreter(physical=False, prefetch=False, undefined=undefined)
    (r,) = it.run(fn, {"a": a, "b": b, "out": np.zeros(a.shape, a.dtype)})
    assert isinstance(r, np.ndarray)
    return r, [read for read in undefined.reads if not read.startswith("tile.create")]


F = np.array([[1.5, -2.0, 3.0, 0.25], [4.0, -1.0, -8.0, 2.0]], dtype=np.float32)
G = np.array([[0.5, 1.0, -2.0, 0.75], [-3.0, 2.0, 0.5, -1.0]], dtype=np.float32)


@pytest.mark.parametrize(("line", "want"), [
    ("m: pl.Tile[[2, 4], pl.FP32, pl.Mem.Vec] = pl.tile.addc(x, y, y)", F + G + G),
    ("m: pl.Tile[[2, 4], pl.FP32, pl.Mem.Vec] = pl.tile.addsc(x, 2.5, y)", F + 2.5 + G),
])
def test_the_fused_additions_add_all_three_operands(line: str, want: np.ndarray) -> None:
    r, undefined = _run(_binary_kernel(line), F, G)
    np.testing.assert_array_equal(r, want)
    assert undefined == []


def test_addc_wraps_integer_sums_at_the_dtype() -> None:
    a = np.array([[2**31 - 1, 5, -7, 0]] * 2, dtype=np.int32)
    b = np.array([[1, 2, 3, -2**31]] * 2, dtype=np.int32)
    r, _ = _run(_binary_kernel("m: pl.Tile[[2, 4], pl.INT32, pl.Mem.Vec] = pl.tile.addc(x, y, y)", "INT32"), a, b)
    want = ((a.astype(np.int64) + 2 * b.astype(np.int64) + 2**31) % 2**32 - 2**31).astype(np.int32)
    np.testing.assert_array_equal(r, want)


def test_subc_is_defined_where_its_sources_agree_and_undefined_elsewhere() -> None:
    """The docstring's `a - b - d` and the ISA manual's `a - b + d` agree where `d` is zero."""
    d = np.array([[0.0, 1.0, 0.0, -2.0], [0.0, 0.0, 3.0, 0.0]], dtype=np.float32)
    fn = _binary_kernel("m: pl.Tile[[2, 4], pl.FP32, pl.Mem.Vec] = pl.tile.subc(x, x, y)")
    poisoned, undefined = _run(fn, F, d)
    assert len(undefined) == 1
    assert undefined[0].startswith("tile.subc at ")
    assert "the third operand is not zero" in undefined[0]
    np.testing.assert_array_equal(np.isnan(poisoned), d != 0)
    np.testing.assert_array_equal(poisoned[d == 0], 0.0)
    drawn, _ = _run(fn, F, d, filling=1)
    assert not np.isnan(drawn).any()
    assert (drawn[d != 0] != 0).all()


def test_subsc_subtracts_the_scalar() -> None:
    zero = np.zeros((2, 4), dtype=np.float32)
    r, undefined = _run(_binary_kernel("m: pl.Tile[[2, 4], pl.FP32, pl.Mem.Vec] = pl.tile.subsc(x, 1.5, y)"), F, zero)
    np.testing.assert_array_equal(r, F - 1.5)
    assert undefined == []


def test_rem_is_defined_where_the_operands_share_a_sign() -> None:
    a = np.array([[7.5, -7.5, 7.5, -7.5], [6.0, -6.0, 1.0, 0.0]], dtype=np.float32)
    b = np.array([[2.0, -2.0, -2.0, 2.0], [3.0, 3.0, 4.0, -5.0]], dtype=np.float32)
    r, undefined = _run(_binary_kernel("m: pl.Tile[[2, 4], pl.FP32, pl.Mem.Vec] = pl.tile.rem(x, y, tmp)"), a, b)
    # fmod and the floor remainder agree on (7.5, 2), (-7.5, -2), (6, 3) and (1, 4) only:
    # (7.5, -2) and (-7.5, 2) differ in sign, (-6, 3) and (0, -5) in the zero's sign
    agreed = np.array([[True, True, False, False], [True, False, True, False]])
    np.testing.assert_array_equal(np.isnan(r), ~agreed)
    np.testing.assert_array_equal(r[agreed], [1.5, -1.5, 0.0, 1.0])
    assert "the operands' signs differ" in undefined[0]


def test_integer_rems_by_a_scalar_and_by_zero() -> None:
    a = np.array([[7, 8, 9, 10], [0, 1, 2, 3]], dtype=np.int32)
    fn = _binary_kernel("m: pl.Tile[[2, 4], pl.INT32, pl.Mem.Vec] = pl.tile.rems(x, 4, tmp)", "INT32")
    r, undefined = _run(fn, a, a)
    np.testing.assert_array_equal(r, a % 4)
    assert undefined == []
    zero = _binary_kernel("m: pl.Tile[[2, 4], pl.INT32, pl.Mem.Vec] = pl.tile.rem(x, y, tmp)", "INT32")
    with pytest.raises(InterpreterError, match="integer remainder by zero"):
        _run(zero, a, np.where(a == 9, 0, 1).astype(np.int32))


def test_fmods_keeps_the_sign_of_the_dividend() -> None:
    r, _ = _run(_binary_kernel("m: pl.Tile[[2, 4], pl.FP32, pl.Mem.Vec] = pl.tile.fmods(x, 1.25)"), F, G)
    np.testing.assert_array_equal(r, np.fmod(F, np.float32(1.25)))


def test_prelu_scales_the_elements_that_are_not_positive() -> None:
    r, _ = _run(_binary_kernel("m: pl.Tile[[2, 4], pl.FP32, pl.Mem.Vec] = pl.tile.prelu(x, y, tmp)"), F, G)
    np.testing.assert_array_equal(r, np.where(F > 0, F, F * G))


def test_lrelu_with_a_slope_under_one_is_defined_everywhere() -> None:
    r, undefined = _run(_binary_kernel("m: pl.Tile[[2, 4], pl.FP32, pl.Mem.Vec] = pl.tile.lrelu(x, 0.125)"), F, G)
    np.testing.assert_array_equal(r, np.where(F > 0, F, F * np.float32(0.125)))
    assert undefined == []


def test_lrelu_with_a_slope_over_one_keeps_positive_elements() -> None:
    """The reference's runtime test pins `x > 0 ? x : slope * x` (its docstring's
    `max(x, slope * x)` differs here)."""
    x = np.array([[1.5, -2.0, 0.0, 0.25], [-0.0, -1.0, -8.0, 0.0]], dtype=np.float32)
    r, undefined = _run(_binary_kernel("m: pl.Tile[[2, 4], pl.FP32, pl.Mem.Vec] = pl.tile.lrelu(x, 3.0)"), x, G)
    np.testing.assert_array_equal(r, np.where(x > 0, x, 3 * x))
    assert undefined == []


def test_sels_takes_the_scalar_where_the_comparison_fails() -> None:
    fn = _binary_kernel("""c: pl.Tile[[2, 1], pl.UINT8, pl.Mem.Vec] = pl.tile.cmp(x, y, cmp_type=4)
m: pl.Tile[[2, 4], pl.FP32, pl.Mem.Vec] = pl.tile.sels(c, x, tmp, -9.0)""")
    r, _ = _run(fn, F, G)
    np.testing.assert_array_equal(r, np.where(F > G, F, np.float32(-9.0)))


def test_expands_fills_the_target_type_with_the_scalar() -> None:
    fn = _binary_kernel("m: pl.Tile[[2, 4], pl.INT32, pl.Mem.Vec] = pl.tile.expands(x, 2**31 + 5)", "INT32")
    a = np.arange(8, dtype=np.int32).reshape(2, 4)
    r, _ = _run(fn, a, a)
    np.testing.assert_array_equal(r, np.full((2, 4), -2**31 + 5, dtype=np.int32))


def test_fillpad_inplace_pads_in_the_source_buffer() -> None:
    """The padded result, and the source's own name read after it (one buffer)."""
    fn = kernel(TWO.format(t="FP32"), RET.format(t="FP32"), """
x: pl.Tile[[2, 4], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[1, 4])] = pl.load(a, [0, 0], [2, 4], [1, 4])
p: pl.Tile[[2, 4], pl.FP32, pl.Mem.Vec] = pl.tile.fillpad_inplace(x, pad_value=pl.PadValue.max)
s: pl.Tile[[2, 4], pl.FP32, pl.Mem.Vec] = pl.tile.add(p, p)
r: pl.Tensor[[2, 4], pl.FP32] = pl.store(s, [0, 0], out)
return r
""")
    r, _ = _run(fn, F, G)
    np.testing.assert_array_equal(r, [2 * F[0], [np.inf] * 4])
    older = kernel(TWO.format(t="FP32"), RET.format(t="FP32"), """
x: pl.Tile[[2, 4], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[1, 4])] = pl.load(a, [0, 0], [2, 4], [1, 4])
p: pl.Tile[[2, 4], pl.FP32, pl.Mem.Vec] = pl.tile.fillpad_inplace(x, pad_value=pl.PadValue.max)
v: pl.Scalar[pl.FP32] = pl.tile.read(x, [1, 2])
s: pl.Tile[[2, 4], pl.FP32, pl.Mem.Vec] = pl.tile.adds(p, v)
r: pl.Tensor[[2, 4], pl.FP32] = pl.store(s, [0, 0], out)
return r
""")
    r, _ = _run(older, F, G)
    assert np.isposinf(r).all()  # the source's own name reads the padding: one buffer


def test_fillpad_expand_copies_the_valid_part_into_a_larger_padded_tile() -> None:
    fn = kernel("a: pl.Tensor[[2, 4], pl.INT32], out: pl.Out[pl.Tensor[[3, 8], pl.INT32]]", "pl.Tensor[[3, 8], pl.INT32]", """
x: pl.Tile[[2, 4], pl.INT32, pl.Mem.Vec, pl.TileView(valid_shape=[2, 3])] = pl.load(a, [0, 0], [2, 4], [2, 3])
e: pl.Tile[[3, 8], pl.INT32, pl.Mem.Vec] = pl.tile.fillpad_expand(x, [3, 8], pad_value=pl.PadValue.min)
r: pl.Tensor[[3, 8], pl.INT32] = pl.store(e, [0, 0], out)
return r
""")
    ensure_modelled(fn)
    a = np.arange(8, dtype=np.int32).reshape(2, 4)
    (r,) = Interpreter(physical=False, prefetch=False).run(fn, {"a": a, "out": np.zeros((3, 8), np.int32)})
    want = np.full((3, 8), -2**31, dtype=np.int32)
    want[:2, :3] = a[:, :3]
    np.testing.assert_array_equal(r, want)


_RANDOM = """import pypto.language as pl


@pl.program
class K:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, out: pl.Out[pl.Tensor[[4, 64], pl.UINT32]]) -> pl.Tensor[[4, 64], pl.UINT32]:
        a: pl.Tile[[4, 64], pl.UINT32, pl.Mem.Vec] = pl.tile.random(pl.const(9, pl.INT32), pl.const(10, pl.INT32), pl.const(3, pl.INT32), pl.const(0, pl.INT32), pl.const(0, pl.INT32), pl.const(0, pl.INT32), [4, 64], dtype=pl.UINT32, rounds=10)
        b: pl.Tile[[4, 64], pl.UINT32, pl.Mem.Vec] = pl.tile.random(pl.const(9, pl.INT32), pl.const(10, pl.INT32), pl.const({counter}, pl.INT32), pl.const(0, pl.INT32), pl.const(0, pl.INT32), pl.const(0, pl.INT32), [4, 64], dtype=pl.UINT32, rounds=10)
        d: pl.Tile[[4, 64], pl.UINT32, pl.Mem.Vec] = pl.tile.sub(a, b)
        r: pl.Tensor[[4, 64], pl.UINT32] = pl.store(d, [0, 0], out)
        return r
"""


def test_two_draws_with_the_same_seeds_cancel_in_every_filling(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The reference's own runtime test of TRANDOM (determinism), as `check` sees it."""
    path = tmp_path / "k.py"
    path.write_text(_RANDOM.format(counter=3))
    assert main(["check", str(path), "--trials", "1"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].endswith(": confirmed")


def test_an_output_that_depends_on_the_values_drawn_is_not_confirmed(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "k.py"
    path.write_text(_RANDOM.format(counter=4))
    assert main(["check", str(path), "--trials", "1"]) == 1
    last = capsys.readouterr().out.splitlines()[-1]
    assert "unverified" in last
    assert "tile.random at 8:54" in last
    assert "TRANDOM is not reproduced" in last


_GATHERB = ("s: pl.Tensor[[1, {cols}], pl.{src}], o: pl.Tensor[[2, 4], pl.UINT32], out: pl.Out[pl.Tensor[[2, {out_cols}], pl.{dst}]]",
            "pl.Tensor[[2, {out_cols}], pl.{dst}]", """
x: pl.Tile[[1, {cols}], pl.{src}, pl.Mem.Vec] = pl.load(s, [0, 0], [1, {cols}])
k: pl.Tile[[2, 4], pl.UINT32, pl.Mem.Vec, pl.TileView(valid_shape=[2, {blocks}])] = pl.load(o, [0, 0], [2, 4], [2, {blocks}])
g: pl.Tile[[2, {out_cols}], pl.{dst}, pl.Mem.Vec, pl.TileView(valid_shape=[2, {valid_cols}])] = pl.tile.gatherb(x, k, output_dtype=pl.{dst})
r: pl.Tensor[[2, {out_cols}], pl.{dst}] = pl.store(g, [0, 0], out)
return r
""")


def _gatherb(src: str, dst: str, cols: int, per: int, blocks: int = 4) -> ir.Function:
    params, ret, body = _GATHERB
    fields = {"src": src, "dst": dst, "cols": cols, "out_cols": 4 * per, "blocks": blocks, "valid_cols": blocks * per}
    return kernel(params.format(**fields), ret.format(**fields), body.format(**fields))


def _golden_gatherb(source: np.ndarray, offsets: np.ndarray, out: np.ndarray, blocks: int) -> np.ndarray:
    """The reference's runtime-test golden (test_gatherb.py): block `b` of row `r` is the 32 bytes
    at byte offset `offsets[r, b]` of the source; the rest of `out` is kept."""
    want = out.copy()
    source_bytes, want_bytes = source.view(np.uint8).reshape(-1), want.view(np.uint8).reshape(2, -1)
    for row in range(2):
        for block in range(blocks):
            at = int(offsets[row, block])
            want_bytes[row, 32 * block:32 * block + 32] = source_bytes[at:at + 32]
    return want


@pytest.mark.parametrize(("src", "dst", "np_src", "np_dst"), [
    ("FP32", "FP32", np.float32, np.float32), ("INT16", "INT32", np.int16, np.int32), ("UINT8", "FP16", np.uint8, np.float16)])
def test_gatherb_moves_32_byte_blocks_by_byte_offset(src: str, dst: str, np_src: type, np_dst: type) -> None:
    per = 32 // np.dtype(np_dst).itemsize
    cols = 8 * 32 // np.dtype(np_src).itemsize  # eight blocks
    fn = _gatherb(src, dst, cols, per, blocks=3)
    ensure_modelled(fn)
    source: np.ndarray = np.arange(cols).astype(np_src).reshape(1, cols)
    offsets = np.array([[7, 6, 5, 4], [3, 0, 1, 2]], dtype=np.uint32) * 32
    out: np.ndarray = np.zeros((2, 4 * per), dtype=np_dst)
    (r,) = Interpreter(physical=False, prefetch=False).run(fn, {"s": source, "o": offsets, "out": out})
    np.testing.assert_array_equal(np.asarray(r).view(np.uint8), _golden_gatherb(source, offsets, out, 3).view(np.uint8))


def test_a_gatherb_block_past_the_source_is_an_error_and_a_partial_one_declined() -> None:
    fn = _gatherb("FP32", "FP32", 64, 8)
    source = np.zeros((1, 64), dtype=np.float32)
    out = np.zeros((2, 32), dtype=np.float32)
    with pytest.raises(InterpreterError, match="runs past the 256-byte source"):
        Interpreter(physical=False, prefetch=False).run(fn, {"s": source, "o": np.full((2, 4), 256, np.uint32), "out": out})
    with pytest.raises(InterpreterError, match="not a multiple of 32"):
        Interpreter(physical=False, prefetch=False).run(fn, {"s": source, "o": np.full((2, 4), 4, np.uint32), "out": out})


def test_random_inputs_draw_gatherb_offsets_as_whole_blocks_of_the_source() -> None:
    fn = _gatherb("FP16", "FP16", 128, 16)  # 256 bytes: blocks at 0, 32, .., 224
    for seed in range(20):
        offsets = random_inputs(fn, np.random.default_rng(seed))["o"]
        assert (offsets % 32 == 0).all()
        assert (offsets <= 224).all()


def test_scatter_update_writes_rows_in_order() -> None:
    fn = kernel("a: pl.Tensor[[4, 8], pl.FP32], i: pl.Tensor[[1, 3], pl.INT32], b: pl.Tensor[[3, 8], pl.FP32], out: pl.Out[pl.Tensor[[4, 8], pl.FP32]]",
                "pl.Tensor[[4, 8], pl.FP32]", """
x: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [4, 8])
k: pl.Tile[[1, 3], pl.INT32, pl.Mem.Vec] = pl.load(i, [0, 0], [1, 3])
u: pl.Tile[[3, 8], pl.FP32, pl.Mem.Vec] = pl.load(b, [0, 0], [3, 8])
y: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec] = pl.tile.scatter_update(x, k, u, dim=-2)
r: pl.Tensor[[4, 8], pl.FP32] = pl.store(y, [0, 0], out)
return r
""")
    ensure_modelled(fn)
    a = np.zeros((4, 8), dtype=np.float32)
    b = np.arange(24, dtype=np.float32).reshape(3, 8)
    args = {"a": a, "b": b, "out": np.zeros((4, 8), np.float32)}
    (r,) = Interpreter(physical=False, prefetch=False).run(fn, {**args, "i": np.array([[2, 0, 2]], np.int32)})
    np.testing.assert_array_equal(r, [b[1], a[1], b[2], a[3]])  # row 2 written twice: the later write
    with pytest.raises(InterpreterError, match="row 4 is outside"):
        Interpreter(physical=False, prefetch=False).run(fn, {**args, "i": np.array([[4, 0, 1]], np.int32)})


def test_an_accumulator_assembled_into_a_bf16_tile_is_rounded_as_its_store_would_be() -> None:
    """The cube's write-back (FIXPIPE) converts FP32 to BF16 for `tile.assemble` into a Mat
    tile as for `tile.store` into a BF16 tensor: both go through `as_dtype`."""
    fn = kernel("a: pl.Tensor[[16, 16], pl.BF16], out: pl.Out[pl.Tensor[[16, 16], pl.BF16]], raw: pl.Out[pl.Tensor[[16, 16], pl.BF16]]",
                "tuple[pl.Tensor[[16, 16], pl.BF16], pl.Tensor[[16, 16], pl.BF16]]", """
m: pl.Tile[[16, 16], pl.BF16, pl.Mem.Mat] = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
l: pl.Tile[[16, 16], pl.BF16, pl.Mem.Left] = pl.tile.move(m, target_memory=pl.Mem.Left)
rt: pl.Tile[[16, 16], pl.BF16, pl.Mem.Right] = pl.tile.move(m, target_memory=pl.Mem.Right)
acc: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(l, rt)
z: pl.Tile[[16, 16], pl.BF16, pl.Mem.Mat] = pl.tile.create([16, 16], dtype=pl.BF16, target_memory=pl.Mem.Mat)
c: pl.Tile[[16, 16], pl.BF16, pl.Mem.Mat] = pl.tile.assemble(z, acc, [0, 0])
v: pl.Tile[[16, 16], pl.BF16, pl.Mem.Vec] = pl.tile.move(c, target_memory=pl.Mem.Vec)
r: pl.Tensor[[16, 16], pl.BF16] = pl.store(v, [0, 0], out)
s: pl.Tensor[[16, 16], pl.BF16] = pl.store(acc, [0, 0], raw)
return r, s
""")
    ensure_modelled(fn)
    a = np.linspace(-3.0, 3.0, 256, dtype=np.float32).reshape(16, 16)
    r, s = Interpreter(physical=False, prefetch=False).run(
        fn, {"a": a, "out": np.zeros((16, 16), np.float32), "raw": np.zeros((16, 16), np.float32)})
    np.testing.assert_array_equal(r, s)
    np.testing.assert_array_equal(round_bf16(np.asarray(r)), r)  # BF16 values
    assert not np.array_equal(np.asarray(r), np.asarray(a) @ np.asarray(a))  # rounded, not the FP32 sums


@pytest.mark.parametrize(("drop", "modelled"), [("[0]", True), ("[]", True), ("[1]", False)])
def test_a_slice_may_drop_the_row_axis_of_a_one_row_window(drop: str, modelled: bool) -> None:
    fn = kernel(TWO.format(t="FP32"), RET.format(t="FP32"), f"""
x: pl.Tile[[2, 4], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [2, 4])
row: pl.Tile[[1, 4], pl.FP32, pl.Mem.Vec] = pl.tile.slice(x, [1, 4], [1, 0], [], {drop})
r: pl.Tensor[[2, 4], pl.FP32] = pl.store(row, [0, 0], out)
return r
""")
    if not modelled:
        with pytest.raises(InterpreterError, match="drop_dims other than the row axis"):
            ensure_modelled(fn)
        return
    r, _ = _run(fn, F, G)
    np.testing.assert_array_equal(r, [F[1], [0, 0, 0, 0]])


def test_integer_tile_division_truncates_toward_zero() -> None:
    """As the device divides (the golden of the reference's runtime test test_div.py:
    `torch.div(lhs, rhs, rounding_mode="trunc")`), for the tile, scalar and broadcast forms."""
    a = np.array([[-7, 7, -7, 7], [-1, 0, 5, -9]], dtype=np.int32)
    b = np.array([[2, -2, -2, 2], [3, 4, -5, 4]], dtype=np.int32)
    want = np.trunc(a / b).astype(np.int32)
    r, _ = _run(_binary_kernel("m: pl.Tile[[2, 4], pl.INT32, pl.Mem.Vec] = pl.tile.div(x, y)", "INT32"), a, b)
    np.testing.assert_array_equal(r, want)
    r, _ = _run(_binary_kernel("m: pl.Tile[[2, 4], pl.INT32, pl.Mem.Vec] = pl.tile.divs(x, -2)", "INT32"), a, b)
    np.testing.assert_array_equal(r, np.trunc(a / -2).astype(np.int32))


def test_a_zero_divisor_outside_the_valid_region_is_not_a_fault() -> None:
    fn = kernel(TWO.format(t="INT32"), RET.format(t="INT32"), """
x: pl.Tile[[2, 4], pl.INT32, pl.Mem.Vec] = pl.load(a, [0, 0], [2, 4])
y: pl.Tile[[2, 4], pl.INT32, pl.Mem.Vec, pl.TileView(valid_shape=[1, 4])] = pl.load(b, [0, 0], [2, 4], [1, 4])
m: pl.Tile[[2, 4], pl.INT32, pl.Mem.Vec, pl.TileView(valid_shape=[1, 4])] = pl.tile.div(x, y)
r: pl.Tensor[[2, 4], pl.INT32] = pl.store(m, [0, 0], out)
return r
""")
    a = np.full((2, 4), 9, dtype=np.int32)
    b = np.array([[2, 3, -4, 9], [0, 0, 0, 0]], dtype=np.int32)
    r, _ = _run(fn, a, b)
    np.testing.assert_array_equal(r[0], [4, 3, -2, 1])
    with pytest.raises(InterpreterError, match="integer division by zero in a tile"):
        _run(fn, a, np.zeros((2, 4), np.int32))


def test_matmul_acc_init_cond_overwrites_the_accumulator_where_it_holds() -> None:
    """The split-K idiom: the first step writes the product over whatever the accumulator held
    (a fresh tile's undefined contents), the rest accumulate into it."""
    fn = kernel("a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]", "pl.Tensor[[16, 16], pl.FP32]", """
acc: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Acc)
for k in pl.range(0, 4, 1):
    m: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat] = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
    lt: pl.Tile[[16, 16], pl.FP32, pl.Mem.Left] = pl.tile.move(m, target_memory=pl.Mem.Left)
    rt: pl.Tile[[16, 16], pl.FP32, pl.Mem.Right] = pl.tile.move(m, target_memory=pl.Mem.Right)
    acc = pl.tile.matmul_acc(acc, lt, rt, init_cond=(k == 0))
out = pl.store(acc, [0, 0], out)
return out
""")
    a = np.linspace(-1.0, 1.0, 256, dtype=np.float32).reshape(16, 16)
    for filling in (1, 2):  # whatever the fresh accumulator holds
        r, _ = _run(fn, a, a, filling=filling)
        np.testing.assert_allclose(r, 4 * (a.astype(np.float64) @ a), rtol=1e-5)


@pytest.mark.parametrize(("mode", "want"), [
    ("round", [2, -2, 3, -3]), ("rint", [2, -2, 2, -2]), ("floor", [1, -2, 2, -3]),
    ("ceil", [2, -1, 3, -2]), ("trunc", [1, -1, 2, -2])])
def test_a_float_cast_to_an_integer_rounds_by_its_mode(mode: str, want: list[int]) -> None:
    """The PTO IR manual's RoundMode: `round` is to nearest with ties away from zero (the
    reference's default), `rint` ties to even."""
    fn = kernel("a: pl.Tensor[[1, 4], pl.FP32], out: pl.Out[pl.Tensor[[1, 4], pl.INT32]]", "pl.Tensor[[1, 4], pl.INT32]", f"""
x: pl.Tile[[1, 4], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [1, 4])
m: pl.Tile[[1, 4], pl.INT32, pl.Mem.Vec] = pl.tile.cast(x, target_type=pl.INT32, mode='{mode}')
r: pl.Tensor[[1, 4], pl.INT32] = pl.store(m, [0, 0], out)
return r
""")
    a = np.array([[1.5, -1.5, 2.5, -2.5]], dtype=np.float32)
    (r,) = Interpreter(physical=False, prefetch=False).run(fn, {"a": a, "out": np.zeros((1, 4), np.int32)})
    np.testing.assert_array_equal(r, [want])


def test_a_float_cast_to_an_integer_with_mode_none_is_declined() -> None:
    fn = kernel("a: pl.Tensor[[1, 4], pl.FP32], out: pl.Out[pl.Tensor[[1, 4], pl.INT32]]", "pl.Tensor[[1, 4], pl.INT32]", """
x: pl.Tile[[1, 4], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [1, 4])
m: pl.Tile[[1, 4], pl.INT32, pl.Mem.Vec] = pl.tile.cast(x, target_type=pl.INT32, mode='none')
r: pl.Tensor[[1, 4], pl.INT32] = pl.store(m, [0, 0], out)
return r
""")
    with pytest.raises(Unmodelled, match="mode='none'"):
        Interpreter(physical=False, prefetch=False).run(fn, {"a": np.ones((1, 4), np.float32),
                                                             "out": np.zeros((1, 4), np.int32)})


def test_row_expand_add_repeats_the_lanes_of_a_packed_carrier_and_takes_a_scratch_tile() -> None:
    """A row-major carrier of one 32-byte block per row (`[R, 8]` of FP32) repeats its lanes
    across the row (the golden of the reference's test_row_expand_add.py); a scratch tile may
    follow."""
    fn = kernel("a: pl.Tensor[[2, 16], pl.FP32], b: pl.Tensor[[2, 8], pl.FP32], out: pl.Out[pl.Tensor[[2, 16], pl.FP32]]",
                "pl.Tensor[[2, 16], pl.FP32]", """
x: pl.Tile[[2, 16], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [2, 16])
v: pl.Tile[[2, 8], pl.FP32, pl.Mem.Vec] = pl.load(b, [0, 0], [2, 8])
tmp: pl.Tile[[2, 16], pl.FP32, pl.Mem.Vec] = pl.tile.create([2, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec)
m: pl.Tile[[2, 16], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_add(x, v, tmp)
r: pl.Tensor[[2, 16], pl.FP32] = pl.store(m, [0, 0], out)
return r
""")
    ensure_modelled(fn)
    a = np.arange(32, dtype=np.float32).reshape(2, 16)
    b = np.arange(16, dtype=np.float32).reshape(2, 8) * 100
    (r,) = Interpreter(physical=False, prefetch=False).run(fn, {"a": a, "b": b, "out": np.zeros((2, 16), np.float32)})
    np.testing.assert_array_equal(r, a + np.tile(b, (1, 2)))


def test_a_clamped_load_is_cut_back_to_the_tensor_edge() -> None:
    """`clamp=True`: the request past the source's end is cut back (the front end deduces the
    valid rows as the reference does, `pl.min(pl.max(10 - o, 0), 4)`); without it the same read
    is a fault."""
    body = """
t = pl.tile.load(a, [8, 0], [4, 8]{clamp})
r: pl.Tensor[[4, 8], pl.FP32] = pl.store(t, [0, 0], out)
return r
"""
    params = "a: pl.Tensor[[10, 8], pl.FP32], out: pl.Out[pl.Tensor[[4, 8], pl.FP32]]"
    fn = kernel(params, "pl.Tensor[[4, 8], pl.FP32]", body.format(clamp=", clamp=True"))
    load = fn.body.stmts[0]
    assert isinstance(load, ir.AssignStmt)
    assert isinstance(load.var.type, ir.TileType)
    assert [ir.literal_value(e) for e in load.var.type.effective_valid_shape] == [2, 8]
    a = np.arange(80, dtype=np.float32).reshape(10, 8)
    out = np.full((4, 8), -1.0, dtype=np.float32)
    (r,) = Interpreter(physical=False, prefetch=False).run(fn, {"a": a, "out": out})
    np.testing.assert_array_equal(r, np.concatenate([a[8:], out[2:]]))
    plain = kernel(params, "pl.Tensor[[4, 8], pl.FP32]", body.format(clamp=""))
    with pytest.raises(InterpreterError, match="outside a tensor dimension of size 10"):
        Interpreter(physical=False, prefetch=False).run(plain, {"a": a, "out": out})


def test_a_row_gather_into_a_mat_tile_reads_its_indices_from_a_tensor() -> None:
    """Row mode into Mat (test_mgather.py's Mat row cases): rows `idx.flat[r]` of the source,
    an index read unsigned (-1 clamps to the last row), valid over the call's valid_shape."""
    fn = kernel("mem: pl.Tensor[[8, 16], pl.FP16], idx: pl.Tensor[[1, 4], pl.INT32], out: pl.Out[pl.Tensor[[4, 16], pl.FP16]]",
                "pl.Tensor[[4, 16], pl.FP16]", """
g: pl.Tile[[4, 16], pl.FP16, pl.Mem.Mat, pl.TileView(valid_shape=[3, 10])] = pl.tile.mgather(mem, idx, valid_shape=[3, 10], coalesce=0, target_memory=pl.Mem.Mat, gather_oob=1)
v: pl.Tile[[4, 16], pl.FP16, pl.Mem.Vec, pl.TileView(valid_shape=[3, 10])] = pl.tile.move(g, target_memory=pl.Mem.Vec)
r: pl.Tensor[[4, 16], pl.FP16] = pl.store(v, [0, 0], out)
return r
""")
    ensure_modelled(fn)
    mem = np.arange(128, dtype=np.float16).reshape(8, 16)
    out = np.full((4, 16), -1, dtype=np.float16)
    idx = np.array([[5, -1, 2, 0]], dtype=np.int32)
    (r,) = Interpreter(physical=False, prefetch=False).run(fn, {"mem": mem, "idx": idx, "out": out})
    want = out.copy()
    want[:3, :10] = mem[[5, 7, 2], :10]
    np.testing.assert_array_equal(r, want)



@pytest.mark.parametrize(("params", "gather", "reason"), [
    ("idx: pl.Tensor[[4, 16], pl.INT32]",
     "g: pl.Tile[[4, 16], pl.FP16, pl.Mem.Mat] = pl.tile.mgather(mem, idx, coalesce=1, "
     "target_memory=pl.Mem.Mat, gather_oob=1)", r"into a Mat tile in elem mode"),
    ("idx_t: pl.Tensor[[1, 4], pl.INT32]",
     "idx: pl.Tile[[1, 4], pl.INT32, pl.Mem.Vec] = pl.load(idx_t, [0, 0], [1, 4])\n"
     "g: pl.Tile[[4, 16], pl.FP16, pl.Mem.Acc] = pl.tile.mgather(mem, idx, coalesce=0, "
     "target_memory=pl.Mem.Acc, gather_oob=1)", r"target_memory=pl\.Mem\.Acc \(a Vec or Mat tile only\)"),
])
def test_a_gather_into_a_tile_the_interpreter_does_not_model_is_declined_with_its_reason(
        params: str, gather: str, reason: str) -> None:
    """Elem mode into Mat (staged through a GM scratch tensor) and any target other than Vec or
    Mat are declined before the run, each naming what is not modelled."""
    fn = kernel(f"mem: pl.Tensor[[8, 16], pl.FP16], {params}, out: pl.Out[pl.Tensor[[4, 16], pl.FP16]]",
                "pl.Tensor[[4, 16], pl.FP16]", f"""
{gather}
v: pl.Tile[[4, 16], pl.FP16, pl.Mem.Vec] = pl.tile.move(g, target_memory=pl.Mem.Vec)
r: pl.Tensor[[4, 16], pl.FP16] = pl.store(v, [0, 0], out)
return r
""")
    with pytest.raises(Unmodelled, match=reason):
        ensure_modelled(fn)
