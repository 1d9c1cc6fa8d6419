"""The interpreter's tile buffers (`interpreter.TileBuffer`): an op that updates its argument in
place (`tile.write`, `tile.assemble`, the accumulating matmuls, ...) updates that argument's
buffer, and every name and view of the buffer sees the update, as on the device. Before, a
`pl.tile.write(t, ...)` statement (the form the reference prints, inside loops too) was
computed and dropped, so a kernel that fills a fresh tile element by element stored the
fresh tile's contents, and `slotsat check` compared two runs that were equally wrong."""

# ruff: noqa: E501  (embedded kernel text keeps one statement per line, 10-dsl.md §9.1)

from __future__ import annotations

import numpy as np
import pytest

from slotsat.app.commands.check import check_module
from slotsat.core.dsl.parser import parse_source
from slotsat.core.interp_errors import Unmodelled
from tests.reliability.interp_harness import kernel, run

P = "a: pl.Tensor[[4, 4], pl.FP32], out: pl.Out[pl.Tensor[[4, 4], pl.FP32]]"
R = "pl.Tensor[[4, 4], pl.FP32]"
A = np.arange(1, 17, dtype=np.float32).reshape(4, 4)


def _out() -> np.ndarray:
    return np.zeros((4, 4), np.float32)


def test_a_write_statement_in_a_loop_fills_a_fresh_tile() -> None:
    fn = kernel(P, R, """
t: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [4, 4])
d: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.tile.full([4, 4], dtype=pl.FP32, value=0.0)
for k in pl.range(4):
    v: pl.Scalar[pl.FP32] = pl.tile.read(t, [k, k])
    pl.tile.write(d, [0, k], v)
r: pl.Tensor[[4, 4], pl.FP32] = pl.store(d, [0, 0], out)
return r
""")
    (r,) = run(fn, {"a": A, "out": _out()}, modelled=True)
    want = _out()
    want[0] = np.diag(A)
    np.testing.assert_array_equal(r, want)


def test_a_slice_taken_before_a_write_of_its_source_reads_the_write() -> None:
    fn = kernel(P, R, """
t: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [4, 4])
s: pl.Tile[[2, 2], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [2, 2], [1, 2])
pl.tile.write(t, [2, 3], 100.0)
r: pl.Tensor[[4, 4], pl.FP32] = pl.store(s, [0, 0], out)
return r
""")
    (r,) = run(fn, {"a": A, "out": _out()}, modelled=True)
    assert r[:2, :2].tolist() == [[7, 8], [11, 100]]  # [2, 3] of t is [1, 1] of the window


def test_a_write_through_a_slice_reaches_its_source() -> None:
    fn = kernel(P, R, """
t: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [4, 4])
s: pl.Tile[[2, 2], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [2, 2], [2, 0])
w: pl.Tile[[1, 2], pl.FP32, pl.Mem.Vec] = pl.tile.slice(s, [1, 2], [1, 0])
pl.tile.write(w, [0, 1], -1.0)
r: pl.Tensor[[4, 4], pl.FP32] = pl.store(t, [0, 0], out)
return r
""")
    (r,) = run(fn, {"a": A, "out": _out()}, modelled=True)
    want = A.copy()
    want[3, 1] = -1.0  # the window of a window: [2, 0] + [1, 0] + [0, 1]
    np.testing.assert_array_equal(r, want)


def test_the_name_an_assemble_updated_reads_the_assembled_tile() -> None:
    fn = kernel(P, R, """
t: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [4, 4])
z: pl.Tile[[1, 2], pl.FP32, pl.Mem.Vec] = pl.tile.full([1, 2], dtype=pl.FP32, value=0.0)
u: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.tile.assemble(t, z, [0, 0])
r: pl.Tensor[[4, 4], pl.FP32] = pl.store(t, [0, 0], out)
return r
""")
    (r,) = run(fn, {"a": A, "out": _out()}, modelled=True)
    want = A.copy()
    want[0, :2] = 0.0
    np.testing.assert_array_equal(r, want)


def test_a_read_after_a_write_through_a_view_of_another_layout_is_declined() -> None:
    fn = kernel(P, R, """
t: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [4, 4])
v: pl.Tile[[2, 8], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(t, [2, 8])
pl.tile.write(v, [1, 7], 0.0)
r: pl.Tensor[[4, 4], pl.FP32] = pl.store(t, [0, 0], out)
return r
""")
    with pytest.raises(Unmodelled, match="'t' after its buffer was updated in place through a view of another layout"):
        run(fn, {"a": A, "out": _out()}, modelled=True)


def test_the_viewing_name_itself_reads_its_own_write() -> None:
    fn = kernel(P, R, """
t: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [4, 4])
v: pl.Tile[[2, 8], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(t, [2, 8])
pl.tile.write(v, [1, 7], 0.0)
s: pl.Scalar[pl.FP32] = pl.tile.read(v, [1, 7])
w: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.tile.full([4, 4], dtype=pl.FP32, value=s)
r: pl.Tensor[[4, 4], pl.FP32] = pl.store(w, [0, 0], out)
return r
""")
    (r,) = run(fn, {"a": A, "out": _out()}, modelled=True)
    np.testing.assert_array_equal(r, _out())


KERNEL = """import pypto.language as pl


@pl.program
class Fill:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, a: pl.Tensor[[4, 32], pl.INT32], out: pl.Out[pl.Tensor[[4, 32], pl.INT32]]) -> pl.Tensor[[4, 32], pl.INT32]:
        for i, (acc,) in pl.pipeline(4, stage=2, init_values=(out,)):
            src: pl.Tile[[1, 32], pl.INT32, pl.Mem.Vec] = pl.tile.load(a, [i, 0], [1, 32], [1, 32], target_memory=pl.Mem.Vec)
            dst: pl.Tile[[1, 32], pl.INT32, pl.Mem.Vec] = pl.tile.create([1, 32], dtype=pl.INT32, target_memory=pl.Mem.Vec)
            for k in pl.range(32):
                v: pl.Scalar[pl.INT32] = pl.tile.read(src, [0, 31 - k])
                pl.tile.write(dst, [0, k], v)
            r: pl.Tensor[[4, 32], pl.INT32] = pl.tile.store(dst, [i, 0], acc)
            acc2: pl.Tensor[[4, 32], pl.INT32] = pl.yield_(r)
        return acc2
"""


def test_check_confirms_a_kernel_that_fills_a_fresh_tile_by_writes() -> None:
    """The fresh tile's contents are undefined data (stop 39); every element is written before
    the store, so no filling of them reaches the output and the verdict is earned."""
    result = check_module(parse_source(KERNEL, "fill.py"))
    (fc,) = result.functions
    assert fc.unverified is None
    assert fc.mismatch is None
    assert fc.trials_run > 0
