"""Measure how far slotsat gets on a directory of kernel files: counts per first-error class.

    .venv/bin/python tools/reach.py DIR_OR_FILES... [--glob '*.pre.py'] [--roundtrip] [--check] [--list]

For every file, runs `codegen` (the default pipeline and `pto-codegen`, in process), with
`--roundtrip` the printer round trip (parse, print, parse again: the two modules structurally
equal and the two printings identical), and with `--check` the `check` command's verdict too,
then prints one table per command: how many
files succeeded and, for the rest, how many stopped at each first-error class. A class is
the error message with its quoted names, numbers and expressions blanked (`parameter '_'
has a dynamic shape ...`), so one construct is one row whatever kernel it comes from.
`--list` also prints each file's outcome. The emitted module of every file codegen
succeeded on is parsed and verified with xdsl (the check of `slotsat codegen --verify`); a
module xdsl rejects is counted as its own class (`xdsl rejects: ...`), never as a success.

Reads only the files it is given (no corpus is bundled): used by hand on the reference's
printed IR (`/work/scratch/harvest/lib/*.pre.py` on the project's machine) to see which
construct to emit next.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter
from pathlib import Path

from slotsat.core.errors import SlotsatError

_QUOTED = re.compile(r"(?<![A-Za-z])'[^']*'")
_NUMBER = re.compile(r"\b\d+\b")


def error_class(message: str) -> str:
    """`message` with its quoted parts and numbers blanked."""
    text = _QUOTED.sub("'_'", message)
    return _NUMBER.sub("N", text)


def codegen_outcome(text: str, file: str) -> str:
    """`ok` or the first error's class (also an xdsl rejection of the emitted module)."""
    from slotsat.app.commands.codegen import verification_failure
    from slotsat.app.pipeline import compile_source

    try:
        result = compile_source(text, file)
    except SlotsatError as err:
        return error_class(err.message)
    except Exception as err:
        return f"internal error: {type(err).__name__}: {error_class(str(err))[:120]}"
    if "func.func" not in result.pto_text:
        return "no kernel function (nothing emitted)"
    problem = verification_failure(result.pto_text)
    if problem is not None:
        return "xdsl rejects: " + error_class(problem)[:120]
    return "ok"


def roundtrip_outcome(text: str, file: str) -> str:
    """`ok` when `parse(print(parse(text)))` equals `parse(text)` and prints the same text."""
    from slotsat.core import ir
    from slotsat.core.dsl.parser import parse_source
    from slotsat.core.dsl.printer import print_module

    try:
        first = parse_source(text, file)
    except SlotsatError as err:
        return "parse: " + error_class(err.message)
    printed = print_module(first)
    try:
        second = parse_source(printed, file + " (printed)")
    except SlotsatError as err:
        return "reparse: " + error_class(err.message)
    if not ir.structural_equal(first, second):
        return "reparsed module differs"
    if print_module(second) != printed:
        return "reprinted text differs"
    return "ok"


def check_outcome(text: str, file: str) -> str:
    """`confirmed`, `FAILED`, or `unverified: CLASS` of the first unverified function."""
    from slotsat.app.commands.check import check_module
    from slotsat.core.dsl.parser import parse_source

    try:
        result = check_module(parse_source(text, file))
    except SlotsatError as err:
        return "error: " + error_class(err.message)
    except Exception as err:
        return f"internal error: {type(err).__name__}"
    if result.failed:
        return "FAILED"
    if result.unverified:
        reason = result.unverified[0].split(": ", 1)[-1]
        return "unverified: " + error_class(reason)[:140]
    return "confirmed"


def _files(paths: list[str], pattern: str) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        path = Path(p)
        out.extend(sorted(path.glob(pattern)) if path.is_dir() else [path])
    return out


def _table(title: str, outcomes: dict[Path, str]) -> list[str]:
    counts = Counter(outcomes.values())
    ok = sum(n for k, n in counts.items() if k in ("ok", "confirmed"))
    lines = [f"{title}: {ok}/{len(outcomes)} succeeded"]
    for cls, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        if cls not in ("ok", "confirmed"):
            lines.append(f"  {n:4d}  {cls}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="files, or directories searched with --glob")
    parser.add_argument("--glob", default="*.pre.py", help="pattern for directories (default *.pre.py)")
    parser.add_argument("--roundtrip", action="store_true", help="also count printer round trips")
    parser.add_argument("--check", action="store_true", help="also run check and count its verdicts")
    parser.add_argument("--list", action="store_true", help="print every file's outcome")
    args = parser.parse_args(argv)
    files = _files(args.paths, args.glob)
    if not files:
        print("reach: no files", file=sys.stderr)
        return 2
    codegen: dict[Path, str] = {}
    check: dict[Path, str] = {}
    roundtrip: dict[Path, str] = {}
    t0 = time.perf_counter()
    for f in files:
        text = f.read_text(encoding="utf-8")
        codegen[f] = codegen_outcome(text, str(f))
        extra = ""
        if args.roundtrip:
            roundtrip[f] = roundtrip_outcome(text, str(f))
            extra += f"  | roundtrip: {roundtrip[f]}"
        if args.check:
            check[f] = check_outcome(text, str(f))
            extra += f"  | check: {check[f]}"
        if args.list:
            print(f"{f.name}: {codegen[f]}{extra}")
    for line in _table("codegen", codegen):
        print(line)
    if args.roundtrip:
        for line in _table("roundtrip", roundtrip):
            print(line)
    if args.check:
        for line in _table("check", check):
            print(line)
    print(f"({len(files)} files, {time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
