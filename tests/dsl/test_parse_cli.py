"""`slotsat parse FILE [--json]` (issue 2 item 8).

Groups: the plain form prints the canonical text; the `--json` summary's functions, loops
(kind, stages, bounds, nesting) and tiles (shape, dtype, space, memref).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from slotsat.app.cli import main
from slotsat.core.dsl import parse_file, print_module

REPO = Path(__file__).resolve().parents[2]
KERNELS = REPO / "examples" / "kernels"


def summary(path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["parse", str(path), "--json"]) == 0
    result: dict[str, Any] = json.loads(capsys.readouterr().out)
    return result


def test_parse_prints_the_canonical_text(capsys: pytest.CaptureFixture[str]) -> None:
    path = KERNELS / "two_programs.py"
    assert main(["parse", str(path)]) == 0
    captured = capsys.readouterr()
    assert captured.out == print_module(parse_file(path))
    assert captured.err == ""


def test_json_summary_of_row_scale(capsys: pytest.CaptureFixture[str]) -> None:
    data = summary(KERNELS / "row_scale.py", capsys)
    (program,) = data["programs"]
    assert program["name"] == "RowScale"
    (fn,) = program["functions"]
    assert fn["name"] == "kernel"
    assert fn["type"] == "InCore"
    assert fn["params"] == [
        {"name": "x", "type": "pl.Tensor[[512, 128], pl.FP32]"},
        {"name": "g", "type": "pl.Tensor[[512, 128], pl.FP32]"},
        {"name": "out", "type": "pl.Out[pl.Tensor[[512, 128], pl.FP32]]"},
    ]
    assert fn["loops"] == [
        {
            "iv": "r",
            "line": 13,
            "depth": 0,
            "kind": "Pipeline",
            "stages": 2,
            "start": 0,
            "stop": 8,
            "step": 1,
            "carried": ["dst"],
            "attrs": {},
        }
    ]
    assert [t["name"] for t in fn["tiles"]] == ["xt", "gt", "prod"]
    assert fn["tiles"][0] == {
        "name": "xt",
        "line": 14,
        "shape": [64, 128],
        "dtype": "FP32",
        "space": "Vec",
        "memref": None,
    }


def test_json_summary_of_nested_and_runtime_loops(capsys: pytest.CaptureFixture[str]) -> None:
    loops = summary(KERNELS / "nested_pipelines.py", capsys)["programs"][0]["functions"][0]["loops"]
    assert [(lp["iv"], lp["depth"], lp["kind"], lp["stages"]) for lp in loops] == [
        ("i", 0, "Pipeline", 2),
        ("j", 1, "Pipeline", 2),
    ]
    loops = summary(KERNELS / "tail_mask.py", capsys)["programs"][0]["functions"][0]["loops"]
    assert (loops[0]["start"], loops[0]["stop"], loops[0]["step"]) == (0, "blocks", 1)
    loops = summary(KERNELS / "strided_exp.py", capsys)["programs"][0]["functions"][0]["loops"]
    assert (loops[0]["start"], loops[0]["stop"], loops[0]["step"], loops[0]["stages"]) == (8, 264, 64, 4)


def test_json_summary_reports_memrefs_and_spaces(capsys: pytest.CaptureFixture[str]) -> None:
    fn = summary(KERNELS / "author_slots.py", capsys)["programs"][0]["functions"][0]
    tiles = {t["name"]: t for t in fn["tiles"]}
    assert tiles["at"]["memref"] == 'pl.MemRef("stage_buf", slots=3)[i % 3]'
    assert tiles["bt"]["memref"] == 'pl.MemRef("ping", slots=2)[i % 2]'
    assert tiles["s"]["memref"] is None
    assert fn["loops"][0]["kind"] == "Sequential"
    assert fn["loops"][0]["stages"] is None
    fn = summary(KERNELS / "matmul_k.py", capsys)["programs"][0]["functions"][0]
    spaces = {t["name"]: t["space"] for t in fn["tiles"]}
    assert (spaces["a0"], spaces["l0"], spaces["r0"], spaces["c0"], spaces["acc"], spaces["total"]) == (
        "Mat",
        "Left",
        "Right",
        "Acc",
        "Acc",
        "Acc",
    )


def test_json_summary_lists_every_program_and_function(capsys: pytest.CaptureFixture[str]) -> None:
    data = summary(KERNELS / "two_programs.py", capsys)
    assert [(p["name"], [(f["name"], f["type"]) for f in p["functions"]]) for p in data["programs"]] == [
        ("Scale", [("kernel", "InCore")]),
        ("Shift", [("kernel", "InCore"), ("helper", "Opaque")]),
    ]
