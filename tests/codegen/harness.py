"""Kernel builders and compile helpers for the codegen tests."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from slotsat.analysis.budget import Backend
from slotsat.app.cli import main
from slotsat.app.pipeline import CompileOptions, CompileResult, compile_source
from slotsat.core.errors import SlotsatError
from slotsat.core.options import Mode, Planner
from slotsat.lowering.pto_dialect import normalize, parse_and_verify

TT = (
    "!pto.tile_buf<loc=vec, dtype=f32, rows=64, cols=64, v_row=?, v_col=?, blayout=row_major, "
    "slayout=none_box, fractal=512, pad=0>"
)
PARAMS = "a: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]"
RET = "pl.Tensor[[256, 64], pl.FP32]"
PRINTED = Path(__file__).resolve().parents[1] / "data" / "printed"
"""The printed kernels: the reference's IR at the hand-off point (`NAME.pre.py`) and its module
(`NAME.ref.pto`, after a first line naming the file), made by `tools/gen_printed.py`."""


def kernel(
    body: str,
    *,
    params: str = PARAMS,
    ret: str = RET,
    decls: str = "",
    kind: str = "(type=pl.FunctionType.InCore)",
) -> str:
    """A one-function program around `body` (written at any indentation)."""
    inner = textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8)
    return (
        f"import pypto.language as pl\n\n{decls}\n\n\n@pl.program\nclass P:\n"
        f"    @pl.function{kind}\n    def kernel(self, {params}) -> {ret}:\n{inner}\n"
    )


def compile_(
    src: str,
    planner: Planner = Planner.PTOAS,
    mode: Mode = Mode.SLOTSAT,
    backend: Backend = Backend.ASCEND910B,
) -> CompileResult:
    result = compile_source(src, "k.py", CompileOptions(planner=planner, mode=mode, backend=backend))
    assert normalize(parse_and_verify(result.pto_text)) == normalize(result.pto_text)
    return result


def error(src: str, planner: Planner = Planner.PTOAS, mode: Mode = Mode.SLOTSAT) -> SlotsatError:
    with pytest.raises(SlotsatError) as info:
        compile_source(src, "k.py", CompileOptions(planner=planner, mode=mode))
    rendered = info.value.render("k.py")
    assert "\n" not in rendered
    return info.value


def lines(text: str, needle: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if needle in line]


def references_module(name: str) -> tuple[list[str], list[str]]:
    """The printed kernel `name` compiled in `--mode pypto`, and the reference's own module for
    it, each read by xdsl and printed back in the normal form (`normalize`): equal when slotsat
    emits the reference's module operation for operation, SSA names aside (an op either prints
    in MLIR's generic form, such as `pto.trandom` with its `rounds`, is compared as xdsl prints
    it; the spelling itself is `op_lines`' to compare)."""
    pre = PRINTED / f"{name}.pre.py"
    ours = compile_source(pre.read_text(), pre.name, CompileOptions(mode=Mode.PYPTO)).pto_text
    theirs = "".join((PRINTED / f"{name}.ref.pto").read_text().splitlines(keepends=True)[1:])
    return normalize(parse_and_verify(ours)), normalize(parse_and_verify(theirs))


def confirmed(name: str, capsys: pytest.CaptureFixture[str]) -> list[str]:
    """`slotsat check` of the printed kernel `name` (two trials): its output lines, after checking
    that it exits 0, compared outputs and ends `confirmed`."""
    status = main(["check", str(PRINTED / f"{name}.pre.py"), "--trials", "2"])
    out = capsys.readouterr().out.splitlines()
    assert status == 0, out
    assert out[-1].endswith(": confirmed")
    assert any("outputs match" in line for line in out)
    return out
