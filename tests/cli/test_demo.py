"""`slotsat demo` and the top-level CLI: the decision table covers every bundled kernel,
codegen runs under both planners, bad arguments exit 2, a closed pipe is not an error."""

from __future__ import annotations

from pathlib import Path

import pytest

from slotsat import __version__
from slotsat.app.cli import main
from slotsat.bench.demo import default_corpus


def test_the_demo_decides_every_pipeline_loop(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--no-bench"]) == 0
    out = capsys.readouterr().out
    kernels = sorted(default_corpus().glob("*.py"))
    assert len(kernels) >= 12
    assert "lower-pipeline-to-slots on the bundled kernels" in out
    assert "pto-codegen" in out
    for word in ("slotted", "declined"):
        assert word in out
    # one codegen row per kernel and planner
    assert out.count(" ptoas ") >= len(kernels)


def test_the_demo_rejects_an_empty_corpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--no-bench", "--corpus", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"slotsat: error: --corpus {tmp_path} has no kernel files (*.py)\n"


def test_version_and_unknown_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"slotsat {__version__}"
    with pytest.raises(SystemExit) as bad:
        main(["frobnicate"])
    assert bad.value.code == 2


def test_replicated_loops_keep_their_own_names_in_the_rows(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    path = default_corpus() / "matmul_l0.py"
    assert main(["slots", str(path), "--replicate", "--json"]) == 0
    rows = [lp for fn in json.loads(capsys.readouterr().out)["functions"] for lp in fn["loops"]]
    assert [(r["iv"], r["decision"], r["reason"]) for r in rows] == [
        ("kb", "declined", "tile-view"), ("kk", "declined", "under-declined")]
