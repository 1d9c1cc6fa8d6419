"""What a new user hits first (issue 15.3), one test each: every `--help` runs, `slotsat`
alone prints usage (exit 2), every command defaults to backend 910b, the three "pypto"
switches are explained wherever they appear, argument errors are `slotsat: error: ...`
(exit 2) without a made-up location, declined loops show their reason's sentence, and
`bench` / `demo` validate their outputs and inputs before any work."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from slotsat.app.cli import COMMANDS, main
from slotsat.app.commands import COMPAT_HELP, MODE_HELP, PLANNER_HELP

KERNELS = Path(__file__).resolve().parents[2] / "examples" / "kernels"

# Two [96, 128] fp32 loads, two slots each: 196,608 bytes of Vec, which fit the 950's
# 245,760 but not the 910B's 188,416, so the default backend decides the loop.
WIDE = (KERNELS / "row_scale.py").read_text() \
    .replace("[64, 128], pl.FP32, pl.Mem.Vec]", "[96, 128], pl.FP32, pl.Mem.Vec]") \
    .replace("[r * 64, 0], [64, 128]", "[r * 96, 0], [96, 128]").replace("[r * 64, 0]", "[r * 96, 0]") \
    .replace("512, 128", "768, 128")


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_subcommand_help_runs(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([command, "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: slotsat {command}")


def test_slotsat_alone_prints_usage_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: slotsat")
    assert "slotsat: error: the following arguments are required: COMMAND" in err


def _help(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit):
        main([*argv, "--help"])
    return " ".join(capsys.readouterr().out.split())


def test_the_top_level_help_says_what_each_pypto_switch_changes(capsys: pytest.CaptureFixture[str]) -> None:
    text = _help(capsys)
    for switch in ("--planner pypto", "--mode pypto", "--compat pypto"):
        assert switch in text
    assert "the reference's planner places on-chip buffers" in text


@pytest.mark.parametrize(("command", "helps"), [
    ("slots", (PLANNER_HELP, COMPAT_HELP)),
    ("codegen", (PLANNER_HELP, MODE_HELP, COMPAT_HELP)),
    ("check", (COMPAT_HELP,)),
    ("explore", (MODE_HELP,)),
])
def test_each_pypto_switch_is_explained_where_it_appears(
        command: str, helps: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    text = _help(capsys, command)
    for line in helps:
        assert " ".join(line.split()) in text


def test_every_command_defaults_to_backend_910b(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kernel = tmp_path / "wide.py"
    kernel.write_text(WIDE)
    assert main(["slots", str(kernel), "--json"]) == 0
    (loop,) = json.loads(capsys.readouterr().out)["functions"][0]["loops"]
    assert (loop["decision"], loop["reason"]) == ("declined", "capacity")
    assert main(["slots", str(kernel), "--json", "--backend", "950"]) == 0
    (loop,) = json.loads(capsys.readouterr().out)["functions"][0]["loops"]
    assert loop["decision"] == "slotted"
    assert main(["check", str(kernel)]) == 0
    assert "declined (capacity), replicated" in capsys.readouterr().out
    assert main(["codegen", str(kernel)]) == 0
    assert "pto.alloc_multi_tile" not in capsys.readouterr().out


BOGUS = "unknown backend 'BOGUS'; expected 910b, 950 or none"


@pytest.mark.parametrize(("argv", "message"), [
    (["slots", str(KERNELS / "rms_norm.py"), "--backend", "BOGUS"], BOGUS),
    (["codegen", str(KERNELS / "rms_norm.py"), "--backend", "BOGUS"], BOGUS),
    (["check", str(KERNELS / "rms_norm.py"), "--trials", "0"], "--trials must be at least 1, got 0"),
    (["explore", "i % 2", "--loop", "i=0"], "--loop expects NAME=START:STOP[:STEP], got 'i=0'"),
    (["explore", "i % 2", "--loop", "i=0:x"], "--loop i: stop must be an integer or '?', got 'x'"),
    (["bench", "--corpus", "/nonexistent/kernels"], "--corpus /nonexistent/kernels is not a directory"),
])
def test_an_argument_error_is_slotsat_error_with_exit_2(
        argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err == f"slotsat: error: {message}\n"
    assert captured.out == ""


def test_the_slots_table_prints_each_declined_loops_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["slots", str(KERNELS / "yield_load.py")]) == 0
    out = capsys.readouterr().out
    assert "kernel loop i (line 16): tile-phi: load 't' is carried into a phi through 't'" in out


def test_check_prints_each_declined_loops_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(KERNELS / "yield_load.py")]) == 0
    out = capsys.readouterr().out
    assert "16:9: note: loop 'i' declined (tile-phi): load 't' is carried into a phi through 't'" in out


def test_bench_refuses_an_unwritable_out_before_any_work(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    start = time.perf_counter()
    assert main(["bench", "--quick", "--out", str(blocker / "report")]) == 2
    assert time.perf_counter() - start < 5
    err = capsys.readouterr().err
    assert err.startswith(f"slotsat: error: --out {blocker / 'report'}: cannot write there (")


def test_an_empty_corpus_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--corpus", str(tmp_path), "--out", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err == f"slotsat: error: --corpus {tmp_path} has no kernel files (*.py)\n"
    assert not (tmp_path / "out" / "report.json").exists()
    assert main(["demo", "--corpus", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"slotsat: error: --corpus {tmp_path} has no kernel files (*.py)\n"


def test_the_demo_writes_its_benchmark_to_a_named_folder_and_explains_its_columns(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import tempfile

    from slotsat.bench import config

    tiny = config.BenchConfig(seed=1, quick=True, random_kernels=1, max_loops=2, scaling=(),
                              single_scaling=(), include_bundled=False)
    monkeypatch.setattr(config.BenchConfig, "for_args", classmethod(lambda cls, **_: tiny))
    monkeypatch.chdir(tmp_path)
    before = set(Path(tempfile.gettempdir()).glob("slotsat-bench-*"))
    corpus = tmp_path / "kernels"
    corpus.mkdir()
    (corpus / "yield_load.py").write_text((KERNELS / "yield_load.py").read_text())
    assert main(["demo", "--corpus", str(corpus)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert (tmp_path / "slotsat-demo" / "report.json").exists()
    assert "quick benchmark (report in slotsat-demo/)" in out
    assert set(Path(tempfile.gettempdir()).glob("slotsat-bench-*")) == before
    # the header names all three settings; every table is followed by what its columns mean
    assert "settings: backend 910b; --planner ptoas and pypto (both, side by side); --mode slotsat; " \
           "--compat off" in out
    for line in ("decision: slotted (one body", "regions: pto.alloc_multi_tile regions",
                 "naive: no proof at all", "pypto: the reference's lowering", "slotsat: the default mode",
                 "accepted: those ptoas's", "resolved / unknown:", "corrections: floor-mod"):
        assert line in out, line
    assert "yield_load.kernel loop i (line 16): tile-phi: load 't' is carried into a phi" in out


# -- codegen --verify ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["row_scale.py", "nested_pipelines.py", "matmul_k.py"])
def test_codegen_verify_writes_the_same_module_once_xdsl_verifies_it(
        name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(KERNELS / name)
    assert main(["codegen", path]) == 0
    plain = capsys.readouterr().out
    out = tmp_path / "k.pto"
    assert main(["codegen", "--verify", path, "-o", str(out)]) == 0
    assert capsys.readouterr().err == ""
    assert out.read_text() == plain


def test_codegen_verify_refuses_a_module_xdsl_rejects_and_writes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A module that does not verify is slotsat's own fault: exit 3, xdsl's reason, no file."""
    from slotsat.app import pipeline

    real = pipeline.compile_source

    def broken(*args: object, **kwargs: object) -> pipeline.CompileResult:
        result = real(*args, **kwargs)  # type: ignore[arg-type]
        result.pto_text = result.pto_text.replace("pto.tload ins(", "pto.tload ins(%undefined, ", 1)
        return result

    monkeypatch.setattr(pipeline, "compile_source", broken)
    out = tmp_path / "k.pto"
    assert main(["codegen", "--verify", str(KERNELS / "row_scale.py"), "-o", str(out)]) == 3
    err = capsys.readouterr().err
    assert err.startswith(f"slotsat: internal error: the module emitted for {KERNELS / 'row_scale.py'} "
                          "does not verify (")
    assert err.rstrip().endswith("); nothing was written")
    assert "\n" not in err.rstrip()
    assert not out.exists()
