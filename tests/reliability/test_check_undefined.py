"""Undefined data in `slotsat check`: no verdict rests on a value the device leaves
implementation-defined (issue 16).

Groups: the fillings of undefined data (`interpreter.Undefined`: the poison pattern, a seeded
random pattern and its mirror image, and where a run read some); the verdicts of check on a
`tile.gather` from a partly valid source: undefined data that reaches an output (also through
`x * 0`) leaves the function `unverified` with the reason, undefined data that reaches none is
`confirmed`.
"""

# ruff: noqa: E501  (embedded kernel text keeps one statement per line, 10-dsl.md §9.1)

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from slotsat.app.cli import main
from slotsat.core.interpreter import UNDEFINED_FILLINGS, Undefined
from slotsat.core.ir import DType

# offsets 4 .. 11 into a [2, 8] source valid over [1, 8]: 8 .. 11 are row 1, never defined
_GATHER = """import pypto.language as pl


@pl.program
class K:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[2, 8], pl.FP32], out: pl.Out[pl.Tensor[[1, {n}], pl.FP32]]) -> pl.Tensor[[1, {n}], pl.FP32]:
        s: pl.Tile[[2, 8], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[1, 8])] = pl.load(x, [0, 0], [2, 8], [1, 8])
        i: pl.Tile[[1, 8], pl.INT32, pl.Mem.Vec] = pl.tile.ci(4, [1, 8], dtype=pl.INT32)
        t: pl.Tile[[1, 8], pl.INT32, pl.Mem.Vec] = pl.tile.create([1, 8], dtype=pl.INT32, target_memory=pl.Mem.Vec)
        g: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.gather(s, i, t)
{tail}
        return r
"""


def _check(tmp_path: Path, capsys: pytest.CaptureFixture[str], n: int, tail: str) -> tuple[int, str]:
    path = tmp_path / "k.py"
    path.write_text(_GATHER.format(n=n, tail="\n".join("        " + ln for ln in tail.strip().splitlines())))
    status = main(["check", str(path), "--trials", "2"])
    return status, capsys.readouterr().out.splitlines()[-1]


def test_the_fillings_of_undefined_data_differ_everywhere() -> None:
    fills = [Undefined(filling=k, seed=7) for k in range(UNDEFINED_FILLINGS)]
    f = [u.data((3, 5), DType.FP32, "here") for u in fills]
    assert np.isnan(f[0]).all()
    assert (np.abs(f[1]) >= 1e3).all()
    assert (f[2] == -f[1]).all()
    i = [u.data((3, 5), DType.INT32, "here") for u in fills]
    assert (i[0] == DType.INT32.wrap(0x5A5A5A5A)).all()
    assert (i[2] == ~i[1]).all()
    assert all(u.reads == ["here"] for u in fills)  # one line per place, however often it is read


def test_undefined_data_that_reaches_an_output_leaves_the_check_unverified(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, last = _check(tmp_path, capsys, 8, "r: pl.Tensor[[1, 8], pl.FP32] = pl.store(g, [0, 0], out)")
    assert status == 1
    assert "K.kernel: undefined data reaches an output: tile.gather at 11:51 reads outside its source's valid part; " \
           "with another filling of it, result 0: element [0, 4] is " in last


def test_undefined_data_times_zero_still_reaches_the_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # NaN * 0 is NaN: the poison pattern keeps what a finite filling would lose
    status, last = _check(tmp_path, capsys, 8, """
z: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.muls(g, 0.0)
r: pl.Tensor[[1, 8], pl.FP32] = pl.store(z, [0, 0], out)
""")
    assert status == 1
    assert "undefined data reaches an output: tile.gather at 11:51" in last


def test_undefined_data_that_reaches_no_output_is_confirmed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # columns 0 .. 3 of the gather read offsets 4 .. 7, all in the valid row
    status, last = _check(tmp_path, capsys, 4, """
h: pl.Tile[[1, 4], pl.FP32, pl.Mem.Vec] = pl.tile.slice(g, [1, 4], [0, 0])
r: pl.Tensor[[1, 4], pl.FP32] = pl.store(h, [0, 0], out)
""")
    assert status == 0, last
    assert last.endswith(": confirmed")
