"""The bridge without PyPTO: option parsing, joining printed programs, the worker's protocol,
and every way the worker process can fail (missing PyPTO, no answer in time, a crash), each
a one-line error. Nothing here needs PyPTO; `test_reference.py` runs the real thing.

Fake interpreters are shell scripts given as `SLOTSAT_PYPTO_PYTHON`: one runs the worker
with `-S` (no site-packages, so no PyPTO), one never answers, one dies at once.
"""

from __future__ import annotations

import io
import json
import os
import stat
import sys
import time
from pathlib import Path

import pytest

from slotsat.app import cli
from slotsat.bridge import Reference, join_programs, parse_specialize, session
from slotsat.bridge.worker import Failure, _locate, serve
from slotsat.core.errors import SlotsatError

ROOT = Path(__file__).resolve().parents[2]
ROW_SCALE = str(ROOT / "examples" / "kernels" / "row_scale.py")


def _script(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


# -- --specialize ----------------------------------------------------------------------------


def test_specialize_values_are_integers_floats_booleans_or_runtime() -> None:
    got = parse_specialize(["n=8", "m=-3", "x=0.5", "flag=True", "off=False", "k=RUNTIME", "j=pl.RUNTIME",
                            "h=0x10"])
    assert got == {"n": {"int": 8}, "m": {"int": -3}, "x": {"float": 0.5}, "flag": {"bool": True},
                   "off": {"bool": False}, "k": {"runtime": True}, "j": {"runtime": True}, "h": {"int": 16}}


def test_a_tensor_parameter_takes_a_shape_and_dtype_as_the_dsl_writes_them_or_short() -> None:
    got = parse_specialize(["a=pl.Tensor[[128, 64], pl.FP32]", "b=[32,16]:BF16", "c=Tensor[[8], pl.INT32]",
                            "d=[4, 4]:pl.FP16"])
    assert got == {"a": {"tensor": {"shape": [128, 64], "dtype": "FP32"}},
                   "b": {"tensor": {"shape": [32, 16], "dtype": "BF16"}},
                   "c": {"tensor": {"shape": [8], "dtype": "INT32"}},
                   "d": {"tensor": {"shape": [4, 4], "dtype": "FP16"}}}


@pytest.mark.parametrize(("item", "message"), [
    ("n", "--specialize n: expected NAME=VALUE"),
    ("=3", "--specialize =3: expected NAME=VALUE"),
    ("1n=3", "--specialize 1n=3: expected NAME=VALUE"),
    ("n=", "--specialize n=: expected NAME=VALUE"),
    ("n=abc", "--specialize n=abc: VALUE must be an integer, a float, True, False, RUNTIME or a tensor type "
              "(pl.Tensor[[D0, D1, ...], pl.DTYPE] or [D0, D1, ...]:DTYPE)"),
    ("a=[1]", "--specialize a=[1]: a shape needs its dtype; a tensor is written pl.Tensor[[D0, D1, ...], "
              "pl.DTYPE] or [D0, D1, ...]:DTYPE, e.g. 'a=pl.Tensor[[128, 64], pl.FP32]'"),
    ("a=pl.Tensor[[128, n], pl.FP32]", "--specialize a=pl.Tensor[[128, n], pl.FP32]: the shape is a list of "
     "positive integers; a tensor is written pl.Tensor[[D0, D1, ...], pl.DTYPE] or [D0, D1, ...]:DTYPE, "
     "e.g. 'a=pl.Tensor[[128, 64], pl.FP32]'"),
    ("a=[0, 4]:FP32", "--specialize a=[0, 4]:FP32: the shape is a list of positive integers; a tensor is "
     "written pl.Tensor[[D0, D1, ...], pl.DTYPE] or [D0, D1, ...]:DTYPE, "
     "e.g. 'a=pl.Tensor[[128, 64], pl.FP32]'"),
    ("a=pl.Tensor[[4]]", "--specialize a=pl.Tensor[[4]]: a shape needs its dtype; a tensor is written "
     "pl.Tensor[[D0, D1, ...], pl.DTYPE] or [D0, D1, ...]:DTYPE, e.g. 'a=pl.Tensor[[128, 64], pl.FP32]'"),
])
def test_a_malformed_specialization_is_a_one_line_error(item: str, message: str) -> None:
    with pytest.raises(SlotsatError) as info:
        parse_specialize([item], "k.py")
    assert info.value.render() == f"k.py:1:1: error: {message}"
    assert info.value.exit_status == 2


# -- joining printed programs --------------------------------------------------------------


def test_printed_programs_join_into_one_module_with_module_lines_once() -> None:
    a = ('# pypto.program: A\nimport pypto.language as pl\nM = pl.dynamic("M")\n\n@pl.program\n'
         "class A:\n    pass\n")
    b = ('# pypto.program: B\nimport pypto.language as pl\nM = pl.dynamic("M")\n\n@pl.program\n'
         "class B:\n    pass\n")
    assert join_programs([a, b]) == (
        'import pypto.language as pl\nM = pl.dynamic("M")\n\n'
        "# pypto.program: A\n@pl.program\nclass A:\n    pass\n\n\n"
        "# pypto.program: B\n@pl.program\nclass B:\n    pass\n")
    assert join_programs([a]) == a
    assert join_programs([a.rstrip("\n")]) == a  # the reference prints no final newline


# -- the worker, in process ------------------------------------------------------------------


def _serve(make: object, requests: list[dict[str, object]]) -> list[dict[str, object]]:
    out = io.StringIO()
    lines = "".join(json.dumps(r) + "\n" for r in requests)
    serve(io.StringIO(lines), out, make)  # type: ignore[arg-type]
    return [json.loads(ln) for ln in out.getvalue().splitlines()]


def test_a_worker_without_pypto_says_so_in_its_first_line_and_stops() -> None:
    def missing() -> object:
        raise ModuleNotFoundError("No module named 'pypto'", name="pypto")

    (hello,) = _serve(missing, [{"op": "parse", "text": ""}])
    assert hello == {"hello": False, "missing": "pypto",
                     "message": "ModuleNotFoundError: No module named 'pypto'"}


def test_a_worker_answers_every_request_even_after_a_failure() -> None:
    class Fake:
        version = "0.0"

        def handle(self, request: dict[str, object]) -> dict[str, object]:
            if request["op"] == "bad":
                raise Failure("PyPTO said no", "k.py", 3, 7)
            if request["op"] == "bug":
                raise KeyError("x")
            return {"ok": True}

    hello, bad, bug, good = _serve(Fake, [{"op": "bad"}, {"op": "bug"}, {"op": "good"}])
    assert hello["hello"] is True
    assert bad == {"ok": False, "error": {"file": "k.py", "line": 3, "col": 7, "message": "PyPTO said no",
                                          "kind": "reference"}}
    assert bug["ok"] is False
    assert bug["error"]["kind"] == "internal"  # type: ignore[index]
    assert str(bug["error"]["message"]).startswith("KeyError: 'x' at test_bridge.py:")  # type: ignore[index]
    assert good == {"ok": True}


class _Located(Exception):
    def __init__(self, message: str, file: str, line: int, col: int) -> None:
        super().__init__(message)
        self.message = message
        self.span = {"filename": file, "line": line, "column": col}


def test_the_innermost_located_diagnostic_in_the_kernel_file_is_reported() -> None:
    try:
        try:
            raise _Located("pl.row_sum: Tile inputs require tmp_tile", ROW_SCALE, 22, 57)
        except _Located as inner:
            raise _Located("For loop has 1 iteration arguments but 0 return variables", ROW_SCALE, 7, 5) \
                from inner
    except _Located as outer:
        failure = _locate(outer, ROW_SCALE)
    assert failure.payload == {"file": ROW_SCALE, "line": 22, "col": 57, "kind": "reference",
                               "message": "pl.row_sum: Tile inputs require tmp_tile"}


def test_an_unlocated_root_cause_is_named_after_the_located_message() -> None:
    try:
        try:
            raise TypeError("__init__(): incompatible function arguments.\n    1. __init__(self)")
        except TypeError as inner:
            raise _Located("For loop has 1 iteration arguments", ROW_SCALE, 7, 5) from inner
    except _Located as outer:
        failure = _locate(outer, ROW_SCALE)
    assert failure.payload["message"] == ("For loop has 1 iteration arguments (caused by TypeError: "
                                          "__init__(): incompatible function arguments.)")
    assert (failure.payload["line"], failure.payload["col"]) == (7, 5)


def test_an_error_without_a_diagnostic_is_located_at_its_frame_in_the_kernel_file(tmp_path: Path) -> None:
    kernel = tmp_path / "k.py"
    kernel.write_text("x = 1\n\ny = undefined_name\n")
    try:
        exec(compile(kernel.read_text(), str(kernel), "exec"), {})
    except NameError as err:
        failure = _locate(err, str(kernel))
    assert failure.payload == {"file": str(kernel), "line": 3, "col": 1, "kind": "reference",
                               "message": "NameError: name 'undefined_name' is not defined"}


# -- the worker process, failing -------------------------------------------------------------


def test_without_pypto_every_option_prints_one_line_saying_how_to_install_it(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv(session.ENV_PYTHON, raising=False)
    monkeypatch.setattr(session, "_pypto_here", lambda: False)
    monkeypatch.setattr(session, "_SHARED", {})  # a worker other tests started stays theirs
    for argv in (["slots", ROW_SCALE, "--via-pypto"], ["codegen", ROW_SCALE, "--via-pypto"],
                 ["check", ROW_SCALE, "--via-pypto"], ["import", ROW_SCALE]):
        assert cli.main(argv) == 2
        out = capsys.readouterr()
        assert out.out == ""
        (line,) = out.err.splitlines()
        assert line.startswith(f"{ROW_SCALE}:1:1: error: PyPTO (the reference compiler) is not available to "
                               f"{sys.executable} (No module named 'pypto'): install torch's CPU build")
        assert 'pip install --no-deps pypto-0.1.0-cp311-cp311-linux_x86_64.whl' in line
        assert "SLOTSAT_PYPTO_PYTHON" in line


def test_an_interpreter_without_pypto_is_reported_by_the_worker_itself(tmp_path: Path) -> None:
    python = _script(tmp_path, "python", f'exec "{sys.executable}" -S "$@"')  # no site-packages
    with pytest.raises(SlotsatError) as info, Reference(python=python, limit=60) as ref:
        ref.compile(ROW_SCALE)
    assert info.value.exit_status == 2
    assert info.value.render().startswith(
        f"{ROW_SCALE}:1:1: error: PyPTO (the reference compiler) is not available to {python} "
        "(ModuleNotFoundError: No module named 'pypto'): install")


def test_a_worker_that_never_answers_is_killed_at_the_time_limit(tmp_path: Path) -> None:
    marker = tmp_path / "pid"
    python = _script(tmp_path, "python", f'echo $$ > "{marker}"\nexec sleep 600')
    start = time.monotonic()
    with pytest.raises(SlotsatError) as info, Reference(python=python, limit=1) as ref:
        ref.compile(ROW_SCALE)
    assert time.monotonic() - start < 15
    assert info.value.render() == (f"{ROW_SCALE}:1:1: error: PyPTO did not start within 1 s "
                                   "(SLOTSAT_PYPTO_SECONDS raises the limit)")
    pid = int(marker.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_a_worker_that_dies_is_a_one_line_error_with_its_last_words(tmp_path: Path) -> None:
    python = _script(tmp_path, "python", 'echo "Segmentation fault in libpypto" >&2\nexit 7')
    with pytest.raises(SlotsatError) as info, Reference(python=python, limit=30) as ref:
        ref.compile(ROW_SCALE)
    assert info.value.render() == (f"{ROW_SCALE}:1:1: error: PyPTO stopped unexpectedly (exit status 7); "
                                   "its last words: Segmentation fault in libpypto")


def test_the_time_limit_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(session.ENV_SECONDS, "7")
    assert Reference().limit == 7
    monkeypatch.setenv(session.ENV_SECONDS, "junk")
    assert Reference().limit == session.DEFAULT_SECONDS


# -- the command line ------------------------------------------------------------------------


def test_specialize_and_kernel_without_via_pypto_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["slots", ROW_SCALE, "--specialize", "n=1"], ["codegen", ROW_SCALE, "--kernel", "RowScale"],
                 ["explore", ROW_SCALE, "--from-main"]):
        assert cli.main(argv) == 2
        # An argument error: no source location (there is none), as argparse's own errors.
        assert capsys.readouterr().err == ("slotsat: error: --specialize, --from-main and --kernel select "
                                           "what PyPTO compiles; they need --via-pypto\n")
    assert cli.main(["explore", "(i + 1) % 2", "--loop", "i=0:8", "--via-pypto"]) == 2
    assert capsys.readouterr().err == ("slotsat: error: --via-pypto, --specialize, --from-main and --kernel "
                                       "take a kernel FILE, not an expression\n")


def test_the_help_says_that_via_pypto_runs_the_file(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("slots", "codegen", "check", "explore"):
        with pytest.raises(SystemExit):
            cli.main([command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "--via-pypto" in text
        assert "this runs FILE as Python, as PyPTO's own front end does" in text
    with pytest.raises(SystemExit):
        cli.main(["import", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "This runs FILE as Python, as PyPTO's own front end does." in text
    assert "--specialize NAME=VALUE" in text


def test_importing_the_bridge_does_not_import_pypto() -> None:
    code = ("import sys, slotsat.bridge, slotsat.app.cli, slotsat.app.commands.import_kernel; "
            "print(any(m == 'pypto' or m.startswith('pypto.') for m in sys.modules))")
    import subprocess

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         timeout=120)
    assert out.stdout.strip() == "False"
