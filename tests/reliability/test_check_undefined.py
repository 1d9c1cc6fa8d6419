"""Undefined data in `slotsat check`: no verdict rests on a value the device leaves
implementation-defined (issue 16).

Groups: the fillings of undefined data (`interpreter.Undefined`: the poison pattern, a seeded
random pattern and its mirror image, and where a run read some); the verdicts of check on a
`tile.gather` from a partly valid source: undefined data that reaches an output (also through
`x * 0`) leaves the function `unverified` with the reason, undefined data that reaches none is
`confirmed`, and a transformed program whose outputs depend on undefined data the original's
do not differs; `tile.scatter_mask`, whose unselected columns the reference's sources disagree on
(passed through or zero-filled): exact over a zero destination, undefined data elsewhere.
"""

# ruff: noqa: E501  (embedded kernel text keeps one statement per line, 10-dsl.md §9.1)

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from slotsat.app.cli import main
from slotsat.core.interpreter import UNDEFINED_FILLINGS, Interpreter, Undefined, ensure_modelled
from slotsat.core.ir import DType
from tests.reliability.interp_harness import kernel

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


def _checked(tmp_path: Path, capsys: pytest.CaptureFixture[str], source: str) -> tuple[int, list[str]]:
    """`slotsat check` of `source` (two trials): its exit status and its output lines."""
    path = tmp_path / "k.py"
    path.write_text(source)
    status = main(["check", str(path), "--trials", "2"])
    return status, capsys.readouterr().out.splitlines()


def _with_side(n: int, tail: str) -> str:
    """The gather kernel with a second output, `side` ([1, 8], not returned), that `g` is stored
    into; then `tail`, which stores `r` into `out`."""
    lines = "".join("        " + ln + "\n" for ln in tail.strip().splitlines())
    return _GATHER.format(n=n, tail="").replace(
        f"out: pl.Out[pl.Tensor[[1, {n}], pl.FP32]])",
        f"out: pl.Out[pl.Tensor[[1, {n}], pl.FP32]], side: pl.Out[pl.Tensor[[1, 8], pl.FP32]])").replace(
        "\n\n        return r", "\n        stored: pl.Tensor[[1, 8], pl.FP32] = pl.store(g, [0, 0], side)\n"
        f"{lines}        return r")


def _check(tmp_path: Path, capsys: pytest.CaptureFixture[str], n: int, tail: str) -> tuple[int, str]:
    source = _GATHER.format(n=n, tail="\n".join("        " + ln for ln in tail.strip().splitlines()))
    status, out = _checked(tmp_path, capsys, source)
    return status, out[-1]


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


def test_output_elements_undefined_data_reaches_are_set_aside(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    # columns 4 .. 7 of the gather read row 1, never defined; columns 0 .. 3 are compared
    path = tmp_path / "k.py"
    path.write_text(_GATHER.format(n=8, tail="        r: pl.Tensor[[1, 8], pl.FP32] = pl.store(g, [0, 0], out)"))
    assert main(["check", str(path), "--trials", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "K.kernel: no loops; outputs match where defined (2 trials)" in out[0]
    assert out[1].endswith("note: K.kernel: undefined data reaches some output elements (result 0: 4 of 8, tensor "
                           "'out': 4 of 8): tile.gather at 11:51 reads outside its source's valid part; they are open "
                           "on the device and were not compared (outputs match where defined)")
    assert out[-1].endswith(": confirmed where defined (undefined data reaches some output elements of K.kernel)")


def test_undefined_data_that_reaches_every_output_element_leaves_the_check_unverified(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # only columns 4 .. 7 of the gather are stored: nothing defined is left to compare
    status, last = _check(tmp_path, capsys, 4, """
h: pl.Tile[[1, 4], pl.FP32, pl.Mem.Vec] = pl.tile.slice(g, [1, 4], [0, 4])
r: pl.Tensor[[1, 4], pl.FP32] = pl.store(h, [0, 0], out)
""")
    assert status == 1
    assert "K.kernel: undefined data reaches an output: tile.gather at 11:51 reads outside its source's valid part; " \
           "with another filling of it, result 0: element [0, 0] is " in last


def test_undefined_data_in_a_tensor_the_kernel_does_not_return_reaches_an_output(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # what a kernel writes to a tensor argument is an output, returned or not: `side` is not returned
    status, out = _checked(tmp_path, capsys, _with_side(8, "r: pl.Tensor[[1, 8], pl.FP32] = pl.store(s, [0, 0], out)"))
    assert status == 0
    assert "undefined data reaches some output elements (tensor 'side': 4 of 8): tile.gather at 11:51 reads " \
           "outside its source's valid part" in "\n".join(out)


def test_an_output_with_no_defined_element_leaves_the_check_unverified(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # `side` holds columns 0 .. 3 defined, but `out` only the undefined columns 4 .. 7
    status, out = _checked(tmp_path, capsys, _with_side(4, """
h: pl.Tile[[1, 4], pl.FP32, pl.Mem.Vec] = pl.tile.slice(g, [1, 4], [0, 4])
r: pl.Tensor[[1, 4], pl.FP32] = pl.store(h, [0, 0], out)"""))
    assert status == 1
    assert "unverified: K.kernel: undefined data reaches an output: tile.gather at 11:51" in out[-1]


def test_undefined_data_times_zero_still_reaches_the_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # NaN * 0 is NaN: the poison pattern keeps what a finite filling would lose
    status, last = _check(tmp_path, capsys, 4, """
z: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.muls(g, 0.0)
h: pl.Tile[[1, 4], pl.FP32, pl.Mem.Vec] = pl.tile.slice(z, [1, 4], [0, 4])
r: pl.Tensor[[1, 4], pl.FP32] = pl.store(h, [0, 0], out)
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


_SCATTER = ("x: pl.Tensor[[2, 4], pl.FP32], out: pl.Out[pl.Tensor[[2, 8], pl.FP32]]", "pl.Tensor[[2, 8], pl.FP32]", """
s: pl.Tile[[2, 4], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [2, 4])
d: pl.Tile[[2, 8], pl.FP32, pl.Mem.Vec] = pl.tile.full([2, 8], dtype=pl.FP32, value={fill})
g: pl.Tile[[2, 8], pl.FP32, pl.Mem.Vec] = pl.tile.scatter_mask(d, s, mask_pattern=2)
r: pl.Tensor[[2, 8], pl.FP32] = pl.store(g, [0, 0], out)
return r
""")
X = np.arange(1, 9, dtype=np.float32).reshape(2, 4)


def _scatter(fill: str, filling: int = 0) -> tuple[np.ndarray, Undefined]:
    fn = kernel(_SCATTER[0], _SCATTER[1], _SCATTER[2].format(fill=fill))
    ensure_modelled(fn)
    undefined = Undefined(filling=filling, seed=3)
    (r,) = Interpreter(physical=False, prefetch=False, undefined=undefined).run(
        fn, {"x": X, "out": np.zeros((2, 8), np.float32)})
    assert isinstance(r, np.ndarray)
    return r, undefined


def test_a_mask_scatter_onto_zeros_places_the_source_in_the_selected_columns() -> None:
    # P1010 selects columns 1, 3, 5, 7; the others hold zero, as both of the reference's readings say
    r, undefined = _scatter("0.0")
    expected = np.zeros((2, 8), np.float32)
    expected[:, 1::2] = X
    np.testing.assert_array_equal(r, expected)
    assert undefined.reads == []


@pytest.mark.parametrize("filling", range(UNDEFINED_FILLINGS))
def test_the_unselected_columns_of_a_mask_scatter_onto_non_zeros_are_undefined(filling: int) -> None:
    # passed through (2.0) by the reference's op table, zero-filled by its code generator's notes
    r, undefined = _scatter("2.0", filling)
    np.testing.assert_array_equal(r[:, 1::2], X)
    assert (r[:, 0::2] != 2.0).all()
    assert (r[:, 0::2] != 0.0).all()
    assert undefined.reads == [
        "tile.scatter_mask at 10:51 leaves a column its pattern does not select where the destination is "
        "not zero (passed through or zero-filled: the reference's sources disagree)"]


def test_a_transformed_program_that_depends_on_undefined_data_differs() -> None:
    # the original's outputs do not depend on undefined data (checked first), so the transformed
    # program's must not either: each filling it reads is compared with the original's outputs
    from slotsat.app.commands.check import _transformed_differs, _Trial

    def run(undefined: Undefined, hidden: bool = False) -> tuple[object, ...]:
        undefined.data((1,), DType.FP32, "tile.gather at 3:4 reads outside its source's valid part")
        return (np.array([0.0 if hidden or undefined.filling != 1 else 5.0], np.float32),)

    trial = _Trial((np.array([0.0], np.float32),), ["result 0"], "on trial 1", 1)
    assert _transformed_differs(lambda u: run(u, hidden=True), trial) is None
    assert _transformed_differs(run, trial) == (
        "the transformed program differs on trial 1 with another filling of undefined data (tile.gather at 3:4 "
        "reads outside its source's valid part): result 0: element [0] is 5.0, expected 0.0")


_CREATED = """import pypto.language as pl


@pl.program
class K:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        {body}
        r: pl.Tensor[[16, 16], pl.FP32] = pl.store(u, [0, 0], out)
        return r
"""


@pytest.mark.parametrize(("body", "verdict"), [
    # the tile as a reduction's scratch: its contents reach no output
    ("s: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_sum(t, c)\n        u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_mul(t, s)",
     "confirmed"),
    # added into the output without being written: the device adds whatever the buffer held
    ("u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.add(t, c)",
     "unverified: K.kernel: undefined data reaches an output: tile.create at 9:53: a fresh tile's contents, which nothing wrote; with another filling of it, result 0: element [0, 0] is "),
    # two fresh tiles read, the first only as scratch: the message names the second, whose
    # contents make the difference, not the first one read
    ("s: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_sum(t, c)\n        d: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec)\n        u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.add(t, d)",
     "unverified: K.kernel: undefined data reaches an output: tile.create at 11:53: a fresh tile's contents, which nothing wrote; with another filling of it, result 0: element [0, 0] is "),
])
def test_a_fresh_tiles_contents_are_undefined_data(tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str,
                                                   verdict: str) -> None:
    """The reference's `tile.create` touches no memory, so its contents are the device's: a
    program whose outputs read them is unverified, one that only uses the tile as scratch is
    confirmed (a plain run still sees zeros)."""
    status, out = _checked(tmp_path, capsys, _CREATED.format(body=body))
    assert (status == 0) == (verdict == "confirmed")
    assert verdict in out[-1]


_PARTIAL = """import pypto.language as pl


@pl.program
class K:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[8, 16])] = pl.load(x, [0, 0], [16, 16], [8, 16])
        {body}
        r: pl.Tensor[[16, 16], pl.FP32] = pl.store(u, [0, 0], out)
        return r
"""


@pytest.mark.parametrize(("body", "verdict"), [
    # the valid rows only reach the output
    ("u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[8, 16])] = pl.tile.exp(t)", "confirmed"),
    # widened to the whole tile: the rows the load did not write reach the output, and are set aside
    ("u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[16, 16])] = pl.tile.set_validshape(t, 16, 16)",
     "note: K.kernel: undefined data reaches some output elements (result 0: 128 of 256, tensor 'out': 128 of 256): tile.load at 8:87: the tile's part outside its valid shape [8, 16], which the load does not write;"),
    # widened, then only the rows the load did not write are stored: nothing defined to compare
    ("v: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[16, 16])] = pl.tile.set_validshape(t, 16, 16)\n        w: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.slice(v, [8, 16], [8, 0])\n        u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 16], dtype=pl.FP32, value=0.0)\n        pl.tile.assemble(u, w, [0, 0])\n        pl.tile.assemble(u, w, [8, 0])",
     "unverified: K.kernel: undefined data reaches an output: tile.load at 8:87: the tile's part outside its valid shape [8, 16], which the load does not write; with another filling of it, result 0: element [0, 0] is "),
])
def test_a_load_leaves_the_part_outside_its_valid_shape_undefined(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                  body: str, verdict: str) -> None:
    """pto's TLOAD copies the valid part only (`tile.fillpad` exists to give the rest values):
    a program whose outputs read the rest is unverified."""
    status, out = _checked(tmp_path, capsys, _PARTIAL.format(body=body))
    assert (status == 0) == (not verdict.startswith("unverified"))
    assert verdict in "\n".join(out)


_WIDER = """import pypto.language as pl


@pl.program
class K:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t0: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        t1: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[32, 64])] = pl.tile.load(a, [0, 0], [64, 64], [32, 64], target_memory=pl.Mem.Vec)
        t2: {result} = pl.tile.add(t0, t1)
        r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(t2, [0, 0], out)
        return r
"""


@pytest.mark.parametrize(("result", "verdict"), [
    # the type declares the rows both operands hold
    ("pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[32, 64])]", "confirmed"),
    # the type declares all 64 rows (as PyPTO's MixedSlotValidShapes test program does): the
    # device adds rows 32..63 of t1, which its load did not write, and stores them
    ("pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec]",
     "confirmed where defined (undefined data reaches some output elements of K.kernel)"),
])
def test_a_fresh_result_is_valid_where_its_type_declares(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         result: str, verdict: str) -> None:
    """The emitted tile's valid rows are its type's, not the intersection of its operands'."""
    status, out = _checked(tmp_path, capsys, _WIDER.format(result=result))
    assert status == 0
    assert out[-1].endswith(f": {verdict}")
