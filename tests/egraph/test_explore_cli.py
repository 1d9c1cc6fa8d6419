"""`slotsat explore` (`60-egraph-engine.md` §9.4): text and JSON outputs on catalog cases."""

from __future__ import annotations

import json

import pytest

from slotsat.app.cli import main


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    assert main(["explore", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_interval_sum_json(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(capsys, "(i + 3) % 4", "--loop", "i=0:64", "--slots", "4")
    forms = out["forms"]
    assert isinstance(forms, list)
    picked = [f for f in forms if f["picked"]]
    assert len(picked) == 1
    assert picked[0] == {
        "form": "remui((i + 3), 4)",
        "ops": 2,
        "nonneg": "interval",
        "matcher_accepts": True,
        "picked": True,
    }
    assert out["emitted"][-2:] == [
        "%0 = arith.addi %i, %c3_index : index",  # type: ignore[index]
        "%1 = arith.remui %0, %c4_index : index",
    ]


def test_stepped_slot_lists_the_rotation_forms(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(capsys, "(i - 8) // 4 % 4", "--loop", "i=8:40:4", "--slots", "4")
    forms = {f["form"] for f in out["forms"]}  # type: ignore[attr-defined]
    assert {"remui(divui((i - 8), 4), 4)", "remui((divui(i, 4) + 2), 4)"} <= forms


def test_runtime_stop_and_pypto_mode(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(capsys, "i % 2", "--loop", "i=0:?", "--slots", "2", "--mode", "pypto")
    assert out["emitted"][-1] == "%0 = arith.remsi %i, %c2_index : index"  # type: ignore[index]


def test_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explore", "x % 24"]) == 0
    text = capsys.readouterr().out
    assert "* floormod(x, 24)" in text
    assert "arith.select" in text


def test_int32_names(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(capsys, "k % 4", "--dtype", "int32", "--slots", "4")
    assert out["forms"][0]["matcher_accepts"] is False  # type: ignore[index]


def test_bad_expression_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explore", "i +* 2"]) == 2
    assert "error: cannot parse the expression" in capsys.readouterr().err
