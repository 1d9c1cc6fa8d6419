"""The bundled `.pto` examples (`examples/*.pto`, used in the README) do what their header
comments say."""

from __future__ import annotations

from pathlib import Path

from tests.promote.harness import loop_attributes, promote

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_every_example_is_tested() -> None:
    assert {p.name for p in EXAMPLES.glob("*.pto")} == {
        "persistent_rows.pto", "persistent_errors.pto", "unroll_factor.pto"}


def test_persistent_rows_is_promoted_and_unrolled_into_three_sections() -> None:
    path = EXAMPLES / "persistent_rows.pto"
    marked = promote(path)
    assert marked.status == 0
    assert loop_attributes(marked.stdout, "row") == '{pto.persistent_unroll, pto.unroll = "full"}'
    assert loop_attributes(marked.stdout, "lane") == "-"
    unrolled = promote(path, "--unroll")
    assert unrolled.status == 0
    assert loop_attributes(unrolled.stdout, "row") is None
    assert unrolled.stdout.count("pto.section.simt<<<32, 1, 1>>>") == 3
    assert "pto.unroll" not in unrolled.stdout


def test_persistent_errors_reports_every_error_and_prints_no_ir() -> None:
    path = EXAMPLES / "persistent_errors.pto"
    result = promote(path)
    assert result.status == 1
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert [line.split(": ", 2)[1] for line in lines] == ["error", "error", "note", "error"]
    assert "accessed inside scf.while" in lines[0]
    assert "has trip count 200, which exceeds max-persistent-unroll-trip-count=128" in lines[1]
    assert "a fixed 'pto.unroll_factor' is not supported" in lines[3]
    relaxed = promote(path, "--max-persistent-unroll-trip-count", "-1")
    assert relaxed.status == 1
    assert len(relaxed.stderr.splitlines()) == 2


def test_unroll_factor_splits_into_main_and_epilogue_loops() -> None:
    result = promote(EXAMPLES / "unroll_factor.pto", "--unroll")
    assert result.status == 0
    assert result.stderr == ""
    constant, runtime = result.stdout.split("func.func @runtime_trip")
    assert "scf.for %i = %c0 to %0 step %1 {" in constant
    assert constant.count("memref.store") == 5
    assert "scf.for %i_1 = %0 to %c10 step %c1 {" in constant
    assert "%0 = arith.maxsi %n, %c0 : index" in runtime
    assert "iter_args(%s_1 = %sum)" in runtime
    assert "pto.unroll_factor" not in result.stdout
