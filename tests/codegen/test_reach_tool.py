"""`tools/reach.py`, which counts codegen / check outcomes per first-error class over a
directory of kernels (used on the reference's printed IR of its kernel library)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tool_module import load_tool

ROOT = Path(__file__).resolve().parents[2]


def test_error_classes_blank_names_and_numbers_but_keep_words() -> None:
    reach = load_tool("reach")
    assert reach.error_class("parameter 'x__ssa_v0' has a dynamic shape, which slotsat's code generator "
                             "does not emit") == ("parameter '_' has a dynamic shape, which slotsat's code "
                                                  "generator does not emit")
    assert reach.error_class("tile 'a' is 64 x 128") == "tile '_' is N x N"


def test_the_printed_kernels_all_reach_codegen(capsys: pytest.CaptureFixture[str]) -> None:
    reach = load_tool("reach")
    assert reach.main([str(ROOT / "tests" / "data" / "printed"), "--list"]) == 0
    out = capsys.readouterr().out.splitlines()
    names = sorted(p.name for p in (ROOT / "tests" / "data" / "printed").glob("*.pre.py"))
    assert [line.split(": ", 1)[0] for line in out[:len(names)]] == names
    assert all(line.endswith(": ok") for line in out[:len(names)])
    assert f"codegen: {len(names)}/{len(names)} succeeded" in out


def test_failures_are_counted_by_class(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    reach = load_tool("reach")
    kernel = ("import pypto.language as pl\n\n@pl.program\nclass P:\n"
              "    @pl.function(type=pl.FunctionType.InCore)\n"
              "    def kernel(self, a: pl.Tensor[[64, 64], pl.FP32], "
              "out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:\n"
              "        t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])\n"
              "        s: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.expands(t, 2.0)\n"
              "        out = pl.store(s, [0, 0], out)\n        return out\n")
    for name in ("a", "b"):
        (tmp_path / f"{name}.pre.py").write_text(kernel)
    (tmp_path / "c.pre.py").write_text("import pypto.language as pl\n\n@pl.program\nclass E:\n    pass\n")
    assert reach.main([str(tmp_path), "--check"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "codegen: 0/3 succeeded" in out
    assert "     2  slotsat's code generator does not support tile.expands" in out
    assert "     1  no kernel function (nothing emitted)" in out
    assert "check: 2/3 succeeded" in out  # the interpreter models tile.expands
    assert "     1  unverified: the file has no function with tile operations, so nothing was compared" in out
def test_the_printed_kernels_all_round_trip(capsys: pytest.CaptureFixture[str]) -> None:
    reach = load_tool("reach")
    assert reach.main([str(ROOT / "tests" / "data" / "printed"), "--roundtrip"]) == 0
    out = capsys.readouterr().out.splitlines()
    total = len(list((ROOT / "tests" / "data" / "printed").glob("*.pre.py")))
    assert f"roundtrip: {total}/{total} succeeded" in out


def test_a_file_that_does_not_parse_is_a_roundtrip_failure_of_its_class(tmp_path: Path) -> None:
    reach = load_tool("reach")
    bad = "import pypto.language as pl\n\n@pl.program\nclass P:\n    x = pl.frobnicate()\n"
    assert reach.roundtrip_outcome(bad, str(tmp_path / "bad.py")).startswith("parse: ")
