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


# -- issue 13.5: no proof a descending or runtime-step loop does not earn ------------------


@pytest.mark.parametrize("loop", ["i=0:-10:-1", "i=0:10:?"])
def test_a_loop_that_does_not_ascend_proves_nothing_from_its_start(
    capsys: pytest.CaptureFixture[str], loop: str
) -> None:
    out = _json(capsys, "i % 3", "--loop", loop, "--slots", "3")
    forms = out["forms"]
    assert isinstance(forms, list)
    assert [f["nonneg"] for f in forms] == [None] * len(forms)
    (picked,) = [f for f in forms if f["picked"]]
    assert picked["form"] == "floormod(i, 3)"  # 2 at i = -1, where remui(i, 3) gives 0
    assert not any("remui" in line for line in out["emitted"])  # type: ignore[attr-defined]


def test_the_nonneg_column_of_a_cast_is_the_casts_own_proof(capsys: pytest.CaptureFixture[str]) -> None:
    # i >= 2**31 is non-negative, its INT32 view is not
    out = _json(capsys, "pl.cast(i, pl.INT32)", "--loop", "i=2147483648:2147483700")
    assert [(f["form"], f["nonneg"]) for f in out["forms"]] == [  # type: ignore[attr-defined]
        ("index_cast(i : index to i32)", None)
    ]
    out = _json(capsys, "pl.cast(i, pl.INT32)", "--loop", "i=0:100")
    assert [(f["form"], f["nonneg"]) for f in out["forms"]] == [  # type: ignore[attr-defined]
        ("index_cast(i : index to i32)", "interval")
    ]


@pytest.mark.parametrize(
    ("expr", "dtype", "message"),
    [
        ("pl.cast(x, pl.UINT32) % 3", "int32", "(pl.INT32 to pl.UINT32)"),
        ("pl.cast(x, pl.INT64) % 3", "uint32", "(pl.UINT32 to pl.INT64)"),
    ],
)
def test_a_cast_between_signed_and_unsigned_is_rejected_as_in_the_dsl(
    capsys: pytest.CaptureFixture[str], expr: str, dtype: str, message: str
) -> None:
    assert main(["explore", expr, "--dtype", dtype]) == 2
    err = capsys.readouterr().err
    assert f"error: pl.cast between signed and unsigned dtypes is outside the subset {message}" in err
