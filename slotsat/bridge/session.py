"""The client side of the bridge: a PyPTO worker process, its requests, its time limit.

slotsat never imports PyPTO. `Reference` starts `worker.py` under an interpreter that has
it (`SLOTSAT_PYPTO_PYTHON`, else the interpreter running slotsat) and talks to it over
pipes; the worker's own output (the reference's log lines, whatever a kernel prints) goes to
a temporary file that is read only to explain a crash. Every request is bounded in time
(`SLOTSAT_PYPTO_SECONDS`, default 120 s, start-up included): past it the worker's process
group is killed and the request is a one-line error; the next request starts a fresh
worker. So is a crash of the reference (a signal, an exit): a one-line error, never a
traceback, never a hang.
"""

from __future__ import annotations

import ast
import atexit
import importlib.util
import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from slotsat.core.errors import EXIT_INTERNAL, EXIT_UNREADABLE, SlotsatError, Span
from slotsat.core.limits import env_int, read_source

ENV_PYTHON = "SLOTSAT_PYPTO_PYTHON"
ENV_SECONDS = "SLOTSAT_PYPTO_SECONDS"
DEFAULT_SECONDS = 120
"""Importing torch and PyPTO takes 3 to 10 s on a loaded machine; a real kernel reaches the
hand-off point in well under a second."""
WORKER = Path(__file__).with_name("worker.py")

INSTALL = ('install torch\'s CPU build, then the PyPTO wheel without its dependencies '
           '(pip install "torch==2.13.0+cpu" "numpy>=2"; pip install --no-deps '
           'pypto-0.1.0-cp311-cp311-linux_x86_64.whl, built from github.com/hw-native-sys/pypto; '
           f'README, "PyPTO in the loop"), or set {ENV_PYTHON} to a Python that has it')
"""How to get PyPTO, in the one line every PyPTO option prints without it."""


class PyptoMissing(SlotsatError):
    """PyPTO cannot be imported by the worker's interpreter (exit status 2)."""

    def __init__(self, python: str, reason: str, file: str | None = None) -> None:
        super().__init__(f"PyPTO (the reference compiler) is not available to {python} ({reason}): {INSTALL}",
                         Span(1, 1), exit_status=EXIT_UNREADABLE, file=file)


def interpreter() -> str:
    """The Python the worker runs under."""
    return os.environ.get(ENV_PYTHON, "").strip() or sys.executable


def seconds() -> int:
    return env_int(ENV_SECONDS, DEFAULT_SECONDS)


def _pypto_here() -> bool:
    """Whether the interpreter running slotsat can find PyPTO (without importing it)."""
    return importlib.util.find_spec("pypto") is not None


def installed() -> bool:
    """True when the worker's interpreter is this one and can find PyPTO, or is another one
    (which only starting the worker can tell)."""
    return interpreter() != sys.executable or _pypto_here()


# -- what the worker answers --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RefTile:
    """A tile of a loop's own body that carries a MemRef in the reference's IR."""

    tile: str
    base: str
    slots: int
    index: str | int | None
    op: str | None


@dataclass(frozen=True, slots=True)
class RefLoop:
    """One loop of the reference's IR, in pre-order per function."""

    function: str
    line: int
    col: int
    depth: int
    kind: str
    """`Pipeline`, `Sequential`, `Parallel`, ... (the reference's `ForKind`)."""
    stages: int | None
    iv: str
    start: str | int
    stop: str | int
    step: str | int
    tiles: tuple[RefTile, ...]


@dataclass(frozen=True, slots=True)
class Kernel:
    """One kernel of a file, compiled by the reference."""

    name: str
    kind: str
    """`program` (a `@pl.program` class) or `jit` (a `@pl.jit` kernel)."""
    line: int
    handoff: str
    """The printed IR just before the reference's LowerPipelineToSlots."""
    after_slots: str | None = None
    """With `oracle`: the printed IR just after its LowerPipelineToSlots."""
    after_loops: str | None = None
    """With `oracle`: the printed IR just after its LowerPipelineLoops."""
    errors: tuple[tuple[str, str], ...] = ()
    """With `oracle`: (stage, message) when LowerPipelineToSlots (`slots`) or
    LowerPipelineLoops (`loops`) rejected the hand-off IR."""
    summary: tuple[tuple[str, tuple[RefLoop, ...]], ...] = ()
    """With `oracle`: the loops of the IR at `pre`, `slots` and `loops`."""

    def loops(self, stage: str) -> tuple[RefLoop, ...]:
        return dict(self.summary).get(stage, ())

    def error(self, stage: str) -> str | None:
        return dict(self.errors).get(stage)


def _kernel(d: dict[str, Any]) -> Kernel:
    summary = tuple(
        (stage, tuple(RefLoop(r["function"], r["line"], r["col"], r["depth"], r["kind"], r["stages"], r["iv"],
                              r["start"], r["stop"], r["step"],
                              tuple(RefTile(t["tile"], t["base"], t["slots"], t["index"], t["op"])
                                    for t in r["tiles"]))
                      for r in rows))
        for stage, rows in dict(d.get("summary") or {}).items())
    errors = tuple((k, v) for k, v in dict(d.get("errors") or {}).items() if v is not None)
    return Kernel(d["name"], d["kind"], d["line"], d["handoff"], d.get("after_slots"), d.get("after_loops"),
                  errors, summary)


# -- --specialize ----------------------------------------------------------------------------


TENSOR_SPELLING = "pl.Tensor[[D0, D1, ...], pl.DTYPE] or [D0, D1, ...]:DTYPE"
"""How a tensor parameter's shape and dtype are written after `--specialize NAME=`."""


def _tensor_spec(raw: str) -> dict[str, Any] | None:
    """`pl.Tensor[[128, 64], pl.FP32]` or `[128, 64]:FP32` as `{"tensor": {"shape", "dtype"}}`;
    None when `raw` is not written as a tensor at all; a ValueError when it is, wrongly."""
    text = raw.strip()
    if text.startswith("["):
        shape_text, colon, dtype_text = text.rpartition(":")
        if not colon:
            raise ValueError("a shape needs its dtype")
    elif text.startswith(("pl.Tensor[", "Tensor[")) and text.endswith("]"):
        inner = text[text.index("[") + 1: -1]
        shape_text, comma, dtype_text = inner.rpartition(",")
        if not comma:
            raise ValueError("a shape needs its dtype")
    else:
        return None
    try:
        shape = ast.literal_eval(shape_text.strip())
    except (ValueError, SyntaxError):
        shape = None
    if not isinstance(shape, list) or not all(type(d) is int and d > 0 for d in shape):
        raise ValueError("the shape is a list of positive integers")
    dtype = dtype_text.strip().removeprefix("pl.")
    if not dtype.isidentifier():
        raise ValueError("the dtype is a name such as pl.FP32")
    return {"tensor": {"shape": shape, "dtype": dtype}}


def parse_specialize(items: Iterable[str], file: str | None = None) -> dict[str, dict[str, Any]]:
    """`NAME=VALUE` pairs: for a scalar parameter VALUE is an integer, a float, True / False,
    or RUNTIME (`pl.RUNTIME`, the parameter stays a runtime scalar); for a tensor parameter it
    is its shape and dtype, written as the DSL writes a tensor type
    (`pl.Tensor[[128, 64], pl.FP32]`) or short (`[128, 64]:FP32`)."""
    out: dict[str, dict[str, Any]] = {}
    for item in items:
        name, eq, raw = item.partition("=")
        name, raw = name.strip(), raw.strip()
        if not eq or not name.isidentifier() or not raw:
            raise SlotsatError(f"--specialize {item}: expected NAME=VALUE", Span(1, 1), file=file)
        if raw in ("RUNTIME", "pl.RUNTIME"):
            out[name] = {"runtime": True}
            continue
        try:
            tensor = _tensor_spec(raw)
        except ValueError as err:
            raise SlotsatError(f"--specialize {item}: {err}; a tensor is written {TENSOR_SPELLING}, e.g. "
                               f"'{name}=pl.Tensor[[128, 64], pl.FP32]'", Span(1, 1), file=file) from None
        if tensor is not None:
            out[name] = tensor
            continue
        try:
            value = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            value = None
        if isinstance(value, bool):
            out[name] = {"bool": value}
        elif isinstance(value, int):
            out[name] = {"int": value}
        elif isinstance(value, float):
            out[name] = {"float": value}
        else:
            raise SlotsatError(f"--specialize {item}: VALUE must be an integer, a float, True, False, "
                               f"RUNTIME or a tensor type ({TENSOR_SPELLING})", Span(1, 1), file=file)
    return out


# -- the worker ------------------------------------------------------------------------------


class Reference:
    """A PyPTO worker, started on first use; a context manager that ends it."""

    def __init__(self, python: str | None = None, limit: int | None = None) -> None:
        self.python = python or interpreter()
        self.limit = limit if limit is not None else seconds()
        self.version: str | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None
        self._buffer = b""

    def __enter__(self) -> Reference:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- requests -------------------------------------------------------------------------

    def compile(self, path: str, *, kernel: str | None = None,
                specialize: dict[str, dict[str, Any]] | None = None, oracle: bool = False,
                from_main: bool = False) -> list[Kernel]:
        """Run the kernel file and compile its kernels to the hand-off point (with `oracle`,
        through LowerPipelineLoops); with `from_main`, a jit kernel takes its arguments from
        the first call the file's `__main__` block makes to it. Raises `SlotsatError` located
        in the file."""
        answer = self._ask({"op": "compile", "path": path, "kernel": kernel,
                            "specialize": specialize or {}, "oracle": oracle, "from_main": from_main}, path)
        return [_kernel(k) for k in answer["kernels"]]

    def parse(self, text: str) -> tuple[bool, str]:
        """`pl.parse_program(text)`: (True, the program printed back) or (False, the
        reference's located message as `LINE:COL: MESSAGE`)."""
        answer = self._ask({"op": "parse", "text": text}, "<text>", raise_errors=False)
        if answer.get("ok"):
            return True, str(answer["text"])
        err = answer["error"]
        return False, f"{err['line']}:{err['col']}: {err['message']}"

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            if proc.stdin is not None:
                try:
                    proc.stdin.close()
                except OSError:
                    pass
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._kill(proc)
            for stream in (proc.stdout,):
                if stream is not None:
                    stream.close()
        if self._log is not None:
            self._log.close()
            self._log = None
        self._buffer = b""

    # -- plumbing -------------------------------------------------------------------------

    def _ask(self, request: dict[str, Any], file: str, *, raise_errors: bool = True) -> dict[str, Any]:
        deadline = time.monotonic() + self.limit
        if self._proc is None:
            self._start(deadline, file)
        proc = self._proc
        assert proc is not None
        assert proc.stdin is not None
        try:
            proc.stdin.write((json.dumps(request) + "\n").encode())
            proc.stdin.flush()
        except OSError:
            raise self._died(file) from None
        answer = self._read(deadline, file)
        if answer.get("ok") or not raise_errors:
            return answer
        err = answer["error"]
        status = EXIT_INTERNAL if err.get("kind") == "internal" else EXIT_UNREADABLE
        where = err["file"] if err["file"] not in ("<bridge>", "<text>") else file
        prefix = "" if status != EXIT_INTERNAL else "the PyPTO bridge failed: "
        raise SlotsatError(prefix + err["message"], Span(err["line"], err["col"]), exit_status=status,
                           file=where)

    def _start(self, deadline: float, file: str) -> None:
        if self.python == sys.executable and not _pypto_here():
            raise PyptoMissing(self.python, "No module named 'pypto'", file)
        self._log = tempfile.TemporaryFile()
        try:
            self._proc = subprocess.Popen(
                [self.python, str(WORKER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log,
                start_new_session=True)
        except OSError as err:
            raise PyptoMissing(self.python, f"cannot run it: {err.strerror or err}", file) from None
        hello = self._read(deadline, file, starting=True)
        if not hello.get("hello"):
            self.close()
            raise PyptoMissing(self.python, str(hello.get("message", "it cannot be imported")), file)
        self.version = str(hello.get("version"))

    def _read(self, deadline: float, file: str, *, starting: bool = False) -> dict[str, Any]:
        proc = self._proc
        assert proc is not None
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(timeout=left):
                    self._kill(proc)
                    self.close()
                    what = "start" if starting else "finish"
                    raise SlotsatError(f"PyPTO did not {what} within {self.limit} s ({ENV_SECONDS} raises "
                                       "the limit)", Span(1, 1), file=file)
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    raise self._died(file)
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            answer = json.loads(line)
        except ValueError:
            raise self._died(file) from None
        if not isinstance(answer, dict):
            raise self._died(file)
        return answer

    def _died(self, file: str) -> SlotsatError:
        proc = self._proc
        status = proc.wait(timeout=5) if proc is not None else None
        tail = self._log_tail()
        self.close()
        how = (f"signal {signal.Signals(-status).name}" if status is not None and status < 0
               else f"exit status {status}")
        detail = f"; its last words: {tail}" if tail else ""
        return SlotsatError(f"PyPTO stopped unexpectedly ({how}){detail}", Span(1, 1), file=file)

    def _log_tail(self) -> str:
        if self._log is None:
            return ""
        try:
            self._log.seek(0)
            text = self._log.read().decode(errors="replace")
            lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        except OSError:
            return ""
        return lines[-1][:300] if lines else ""

    @staticmethod
    def _kill(proc: subprocess.Popen[bytes]) -> None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the worker's own session (start_new_session)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass


# -- one-shot use ----------------------------------------------------------------------------


def join_programs(texts: Sequence[str]) -> str:
    """Printed programs as one module: module-level lines (imports, `pl.dynamic` names) once,
    in order, then each program."""
    if len(texts) == 1:
        return texts[0] if texts[0].endswith("\n") else texts[0] + "\n"
    header: list[str] = []
    bodies: list[str] = []
    for text in texts:
        lines = text.splitlines()
        first = next((k for k, ln in enumerate(lines) if ln.startswith(("@", "class "))), len(lines))
        titles = [ln for ln in lines[:first] if ln.startswith("# pypto.program")]
        for ln in lines[:first]:
            if ln.strip() and ln not in header and ln not in titles:
                header.append(ln)
        bodies.append("\n".join([*titles, *lines[first:]]).strip("\n"))
    return "\n".join(header) + "\n\n" + "\n\n\n".join(bodies) + "\n"


_SHARED: dict[str, Reference] = {}
"""The process's worker, by interpreter (at most one entry)."""


def _close_shared() -> None:
    for ref in _SHARED.values():
        ref.close()
    _SHARED.clear()


atexit.register(_close_shared)


def shared() -> Reference:
    """The process's worker: started on first use, ended at exit, replaced when
    `SLOTSAT_PYPTO_PYTHON` names another interpreter; its time limit is re-read on every
    call. A command makes one request, a test session many (PyPTO takes seconds to import)."""
    python = interpreter()
    if python not in _SHARED:
        _close_shared()
        _SHARED[python] = Reference(python)
    ref = _SHARED[python]
    ref.limit = seconds()
    return ref


def handoff(path: str, *, kernel: str | None = None, specialize: Sequence[str] = (),
            from_main: bool = False) -> str:
    """The hand-off IR of the kernels of `path`, printed by the reference, as one module."""
    read_source(path)  # the size, existence and encoding checks every command makes
    values = parse_specialize(specialize, path)
    kernels = shared().compile(path, kernel=kernel, specialize=values, from_main=from_main)
    return join_programs([k.handoff for k in kernels])
