# ruff: noqa: E501  (DSL statements in the kernel texts are one line each, as printed)
"""`slotsat slots` (`00-overview.md` §8) and `slots_report`, plus the printing rows of the
catalog (A: round_trip, synthesized_name_collision).

Groups: text output (program first, then the table); `--json`; options; errors; printing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from slotsat.analysis.budget import Backend
from slotsat.app.cli import main
from slotsat.app.commands.slots import slots_report
from slotsat.core import ir
from slotsat.core.dsl.parser import parse_source
from slotsat.core.dsl.printer import print_module
from slotsat.core.options import Planner
from tests.slots.harness import SIG, program, sl_body

BASIC = program(sl_body("pipeline(0, 4, 1, stage=2"))


def _write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "k.py"
    path.write_text(text)
    return str(path)


def test_text_output_prints_the_program_then_the_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["slots", _write(tmp_path, BASIC)]) == 0
    out = capsys.readouterr().out
    program_text, table = out.split("pipeline loops", 1)
    assert 'pl.MemRef("pipe_t", slots=2)[i % 2]' in program_text
    assert "for i, (acc,) in pl.range(4, init_values=(out,)):" in program_text
    assert "slotted" in table
    assert "t -> pipe_t[2]" in table


def test_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["slots", _write(tmp_path, BASIC), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (fn,) = data["functions"]
    assert fn["name"] == "main"
    assert fn["loops"] == [{"iv": "i", "line": 8, "stages": 2, "decision": "slotted", "reason": None,
                            "message": None, "slot_index": "i % 2",
                            "tiles": [{"tile": "t", "memref": "pipe_t", "slots": 2}]}]
    assert "pl.range(4" in data["program"]


def test_options_reach_the_pass(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    big = _write(tmp_path, program(sl_body("pipeline(0, 4, 1, stage=2", shape="[93, 256]")))
    assert main(["slots", big, "--json", "--backend", "950"]) == 0
    assert json.loads(capsys.readouterr().out)["functions"][0]["loops"][0]["decision"] == "slotted"
    assert main(["slots", big, "--json", "--backend", "910b"]) == 0
    assert json.loads(capsys.readouterr().out)["functions"][0]["loops"][0]["reason"] == "capacity"
    assert main(["slots", big, "--json", "--planner", "pypto", "--replicate"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["functions"][0]["loops"][0]["reason"] == "planner"
    assert "pl.pipeline" not in data["program"]
    assert data["program"].count("pl.tile.load") == 2


def test_compat_pypto_declines_load_then_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = program("""
    for i, (acc,) in pl.pipeline(0, 4, 1, stage=2, init_values=(out,)):
        t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
        nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(t, [i * 64, 0], acc)
        y = pl.yield_(nxt)
    return y
    """)
    assert main(["slots", _write(tmp_path, src), "--json", "--compat", "pypto"]) == 0
    assert json.loads(capsys.readouterr().out)["functions"][0]["loops"][0]["reason"] == "tile-view"


def test_a_replication_error_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, program(sl_body("pipeline(0, 4, n, stage=2"), SIG + ", n: pl.Scalar[pl.INDEX]"))
    assert main(["slots", path, "--replicate"]) == 1
    err = capsys.readouterr().err.strip()
    assert err == f"{path}:8:9: error: LowerPipelineLoops: step must be a compile-time integer constant, got Var"


def test_an_unknown_backend_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["slots", _write(tmp_path, BASIC), "--backend", "310p"]) == 2
    assert "unknown backend '310p'" in capsys.readouterr().err


def test_a_round_trip_of_the_basic_rewrite() -> None:
    module = slots_report(parse_source(BASIC, "k.py"), Planner.PTOAS, Backend.ASCEND950).module
    text = print_module(module)
    assert 't: pl.Tile[[64, 64], pl.FP32, pl.MemRef("pipe_t", slots=2)[i % 2], pl.Mem.Vec]' in text
    assert "pl.range(4, init_values=(out,))" in text
    reparsed = parse_source(text, "k2.py")
    ir.assert_structural_equal(reparsed, module)
    assert print_module(reparsed) == text


def test_a_synthesized_name_collision_prints_distinct_allocations() -> None:
    src = program("""
    s0: pl.Tile[[64, 64], pl.FP32, pipe_t[0], pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
    for i, (acc,) in pl.pipeline(0, 4, 1, stage=2, init_values=(out,)):
        t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
        e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.add(t, s0)
        nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(e, [i * 64, 0], acc)
        y = pl.yield_(nxt)
    return y
    """, prelude="\npipe_t = pl.MemRef(slots=2)")
    module = slots_report(parse_source(src, "k.py")).module
    text = print_module(module)
    assert 'pl.MemRef("pipe_t", slots=2)[0]' in text
    assert 'pl.MemRef("pipe_t_1", slots=2)[i % 2]' in text
    reparsed = parse_source(text, "k2.py")
    ir.assert_structural_equal(reparsed, module)
