"""The `slotsat` program ends with `os._exit` once `main` returns (`slotsat.app.cli.entry`),
skipping the interpreter's teardown. What that must not lose, checked on the real program in
a fresh interpreter: the output (all of it, to a file or a pipe), the exit status, the
one-line error, and the exit handlers' work (the bulk loader's temporary directories are
removed, with `TMPDIR` pointing at a folder of the test's own)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from slotsat.analysis.budget import Backend
from slotsat.app.pipeline import CompileOptions, compile_source
from slotsat.bench.generate import generate_single_function

_LOOPS = 40


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("exit") / "loops.py"
    path.write_text(generate_single_function(0, _LOOPS).text)
    return path


def _slotsat(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TMPDIR": str(tmp)}
    return subprocess.run([sys.executable, "-m", "slotsat", *args], capture_output=True, text=True,
                          env=env, timeout=300, check=False)


def test_codegen_writes_the_whole_module_and_leaves_no_temporary_directory(
    kernel: Path, tmp_path: Path
) -> None:
    expected = compile_source(kernel.read_text(), str(kernel), CompileOptions(backend=Backend.NONE)).pto_text
    out = tmp_path / "out.pto"
    to_stdout = _slotsat(tmp_path, "codegen", str(kernel), "--backend", "none")
    to_file = _slotsat(tmp_path, "codegen", str(kernel), "--backend", "none", "-o", str(out))
    assert (to_stdout.returncode, to_stdout.stderr) == (0, "")
    assert (to_file.returncode, to_file.stderr) == (0, "")
    assert to_stdout.stdout == expected
    assert out.read_text() == expected
    assert expected.count("pto.multi_tile_get") >= _LOOPS
    assert len(expected.encode()) > 1 << 16  # more than a pipe holds: the last test's writer blocks
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.pto"]


def test_a_rejected_file_keeps_its_one_line_error_and_status(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("x = (\n")
    done = _slotsat(tmp_path, "codegen", str(bad))
    assert done.returncode == 2
    assert done.stderr == f"{bad}:1:5: error: syntax error: '(' was never closed\n"
    assert done.stdout == ""


def test_a_reader_that_goes_away_is_not_an_error(kernel: Path, tmp_path: Path) -> None:
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "slotsat", "codegen", str(kernel), "--backend", "none"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None
    assert proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()  # as `| head -1` does
    err = proc.stderr.read()
    assert proc.wait(timeout=300) == 0
    assert first == b"module {\n"
    assert err == b""
    assert list(tmp_path.iterdir()) == []


_WITH_A_THREAD = """
import sys, threading, time
from pathlib import Path
from slotsat.app.cli import entry

mark = Path(sys.argv[1])

def late() -> None:
    time.sleep(0.3)
    mark.write_text("finished")

threading.Thread(target=late).start()  # not a daemon: the interpreter's exit waits for it
sys.argv = ["slotsat", "parse", sys.argv[2]]
entry()
"""


def test_a_running_non_daemon_thread_is_left_to_finish(kernel: Path, tmp_path: Path) -> None:
    mark = tmp_path / "mark"
    done = subprocess.run([sys.executable, "-c", _WITH_A_THREAD, str(mark), str(kernel)], capture_output=True,
                          text=True, timeout=300, check=False)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("# pypto.program")
    assert mark.read_text() == "finished"
