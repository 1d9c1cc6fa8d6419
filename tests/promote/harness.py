"""Run `slotsat promote` in-process and check a catalog file's embedded expectations.

A catalog file (`data/NN_name.pto`) is MLIR text carrying its own expectations in comments:

    // RUN P: --split-input-file            one run, tagged P, with these extra arguments
    // P EXIT: 1                            its exit status
    // P DIAG: @loop_j: error: MESSAGE      exact stderr lines, in order; `@anchor` is the line
                                            holding the comment `// @anchor`, the column is where
                                            the op name starts on it; `LINE:COL` is literal
    // P LOOP: j {pto.persistent_unroll, pto.unroll = "full"}
                                            the `scf.for %j` loop exists and ends with exactly
                                            these attributes (`-` for none)
    // P NO-LOOP: j                         no `scf.for %j` loop in the output
    // P COUNT: 2 pto.section.simt          substring count in the output
    // P HAS: text / P NOT: text            substring present / absent

Every run asserts its exit status and its exact stderr; a run that exits non-zero must print
no IR, unless it splits its input (then every chunk's result is printed, a failed chunk as a
comment line).
"""

from __future__ import annotations

import contextlib
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

from slotsat.app.cli import main

DATA = Path(__file__).parent / "data"

_RUN = re.compile(r"^\s*// RUN (\w+):(.*)$")
_DIRECTIVE = re.compile(r"^\s*// (\w+) (EXIT|DIAG|LOOP|NO-LOOP|COUNT|HAS|NOT): (.*)$")
_ANCHOR = re.compile(r"// @([\w-]+)\s*$")
_OP_NAME = re.compile(r"^(\s*)((?:%[\w.$-]+(?::\d+)?\s*,\s*)*%[\w.$-]+(?::\d+)?\s*=\s*)?")
DIAG_LINE = re.compile(r"^.+:\d+:\d+: (error|note|remark|warning): ")


@dataclass
class Run:
    tag: str
    args: list[str]
    exit: int = 0
    diags: list[str] = field(default_factory=list[str])
    checks: list[tuple[str, str]] = field(default_factory=list[tuple[str, str]])


@dataclass(frozen=True)
class Result:
    status: int
    stdout: str
    stderr: str


def promote(path: Path | str, *args: str) -> Result:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["promote", str(path), *args])
    return Result(status, out.getvalue(), err.getvalue())


def _anchors(lines: list[str]) -> dict[str, tuple[int, int]]:
    found: dict[str, tuple[int, int]] = {}
    for number, line in enumerate(lines, start=1):
        match = _ANCHOR.search(line)
        if match is None:
            continue
        head = _OP_NAME.match(line)
        assert head is not None
        found[match[1]] = (number, head.end() + 1)
    return found


def load_runs(path: Path) -> list[Run]:
    lines = path.read_text().splitlines()
    anchors = _anchors(lines)
    runs: dict[str, Run] = {}
    for line in lines:
        if (match := _RUN.match(line)) is not None:
            runs[match[1]] = Run(match[1], match[2].split())
    for line in lines:
        match = _DIRECTIVE.match(line)
        if match is None:
            continue
        run = runs[match[1]]
        kind, value = match[2], match[3].strip()
        if kind == "EXIT":
            run.exit = int(value)
        elif kind == "DIAG":
            where, rest = value.split(": ", 1)
            if where.startswith("@"):
                line_no, col = anchors[where[1:]]
                where = f"{line_no}:{col}"
            run.diags.append(f"{path}:{where}: {rest}")
        else:
            run.checks.append((kind, value))
    assert runs, f"{path.name} has no RUN line"
    return list(runs.values())


def loop_attributes(text: str, iv: str) -> str | None:
    """The attributes printed after the closing brace of `scf.for %iv` (`-` for none), or
    `None` if there is no such loop."""
    lines = text.splitlines()
    head = re.compile(rf"^(\s*)(?:%[\w.]+ = )?scf\.for %{re.escape(iv)} = ")
    for index, line in enumerate(lines):
        match = head.match(line)
        if match is None:
            continue
        indent = match[1]
        for closing in lines[index + 1:]:
            if closing.startswith(indent + "}") and not closing.startswith(indent + " "):
                rest = closing[len(indent) + 1:].strip()
                return rest if rest else "-"
        raise AssertionError(f"loop %{iv} has no closing brace")
    return None


def check_run(path: Path, run: Run) -> Result:
    result = promote(path, *run.args)
    assert result.status == run.exit, result.stderr
    assert result.stderr.splitlines() == run.diags
    if run.exit != 0 and "--split-input-file" not in run.args:
        assert result.stdout == ""
    if run.exit != 0 and "--split-input-file" in run.args:
        assert "failed: see its diagnostics" in result.stdout
    for kind, value in run.checks:
        if kind == "LOOP":
            iv, attrs = value.split(" ", 1)
            assert loop_attributes(result.stdout, iv) == attrs, (iv, result.stdout)
        elif kind == "NO-LOOP":
            assert loop_attributes(result.stdout, value) is None, (value, result.stdout)
        elif kind == "COUNT":
            count, text = value.split(" ", 1)
            assert result.stdout.count(text) == int(count), (text, result.stdout)
        elif kind == "HAS":
            assert value in result.stdout, result.stdout
        elif kind == "NOT":
            assert value not in result.stdout, result.stdout
    return result
