"""`tools/oracle_corpus.py`, which runs the suite's reference-as-oracle battery on kernel
source files the project never saw (the kernel library, on the project's machine)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tool_module import load_tool

ROOT = Path(__file__).resolve().parents[2]


def test_a_jobs_file_names_files_with_the_options_import_takes(tmp_path: Path) -> None:
    jobs = tmp_path / "jobs.txt"
    jobs.write_text("# the library\nmodels/a.py\n\nmodels/b.py --kernel build --specialize n=64 "
                    "--specialize 'x=pl.Tensor[[8, 8], pl.FP32]'\n")
    assert load_tool("oracle_corpus").jobs(jobs) == [
        ("models/a.py", None, []),
        ("models/b.py", "build", ["n=64", "x=pl.Tensor[[8, 8], pl.FP32]"]),
    ]


@pytest.mark.pypto
def test_the_battery_passes_on_a_bundled_kernel(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    jobs = tmp_path / "jobs.txt"
    jobs.write_text("row_scale.py\n")
    tool = load_tool("oracle_corpus")
    status = tool.main([str(jobs), "--root", str(ROOT / "examples" / "kernels"), "--list"])
    out = capsys.readouterr().out.splitlines()
    assert status == 0, out
    assert out[0] == "row_scale.py:RowScale: ok"
    assert out[-2] == "pipeline loops: 1 agreed, 0 explained by 05-decisions.md, 0 unexplained"
    assert out[-1] == "kernels: 1 pass the oracle battery, 0 fail, 0 job(s) the reference did not compile"
