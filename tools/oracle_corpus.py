"""Run the reference-as-oracle battery of the test suite on kernel source files nobody on this
project wrote, and count what agrees.

    .venv/bin/python tools/oracle_corpus.py JOBS [--root DIR] [--list]

`JOBS` names one kernel file per line, with the options `slotsat import` would need for it:
`PATH [--kernel NAME] [--specialize NAME=VALUE ...]` (paths relative to `--root`, blank lines
and `#` comments skipped). Every kernel each line yields is compiled by the installed
reference (PyPTO) to the hand-off point and through its LowerPipelineToSlots and
LowerPipelineLoops, then goes through the checks of `tests/oracle/test_printed_ir.py`
(`_check_printed`): slotsat parses the printed IR and round-trips it, its per-loop decisions
and slot indices are compared with the reference's (with and without `--compat pypto`), the
reference reads slotsat's slotted print back, and slotsat's replication is compared with the
reference's. Prints the loop tally (agreed, explained by `05-decisions.md`, unexplained) and
the battery's outcome per kernel (`--list`) and in total; exit status 1 when any kernel fails.

Needs PyPTO and the test suite (it reuses the suite's harness); reads only the files it is
given, no corpus is bundled. Kernel files importing their own packages need those on
`PYTHONPATH`.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from slotsat.bridge import Reference
from slotsat.bridge.session import parse_specialize
from slotsat.core.dsl.parser import parse_source
from slotsat.core.errors import SlotsatError
from tests.oracle.harness import compare, reference_verdicts, slotsat_verdicts
from tests.oracle.test_printed_ir import _check_printed


def jobs(path: Path) -> list[tuple[str, str | None, list[str]]]:
    """The (file, kernel, specialize items) of each line of a jobs file."""
    parser = argparse.ArgumentParser(prog="job line", add_help=False, exit_on_error=False)
    parser.add_argument("file")
    parser.add_argument("--kernel")
    parser.add_argument("--specialize", action="append", default=[])
    out = []
    for line in path.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            ns = parser.parse_args(shlex.split(line))
            out.append((ns.file, ns.kernel, ns.specialize))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("jobs", type=Path)
    ap.add_argument("--root", type=Path, default=Path.cwd(), help="the directory job paths are relative to")
    ap.add_argument("--list", action="store_true", help="print every kernel's outcome")
    args = ap.parse_args(argv)
    todo = jobs(args.jobs)
    loops = {"agreed": 0, "explained": 0, "unexplained": 0}
    passed: list[str] = []
    failed: list[str] = []
    unread: list[str] = []
    with Reference() as reference:
        for file, kernel, items in todo:
            try:
                kernels = reference.compile(str(args.root / file), kernel=kernel,
                                            specialize=parse_specialize(items, file), oracle=True)
            except SlotsatError as err:
                unread.append(f"{file}: {err.message}")
                continue
            for k in kernels:
                where = f"{file}:{k.name}"
                try:
                    if k.error("slots") is None:
                        module = parse_source(k.handoff, where)
                        result = compare(reference_verdicts(k), slotsat_verdicts(module))
                        loops["agreed"] += len(result.agreed)
                        loops["explained"] += len(result.explained)
                        loops["unexplained"] += len(result.unexplained)
                    _check_printed(reference, k, where)
                except (AssertionError, SlotsatError) as err:  # ir.StructuralMismatch is an AssertionError
                    message = getattr(err, "message", None) or str(err)
                    failed.append(f"{where}: {type(err).__name__}: {message.splitlines()[0][:300]}")
                    continue
                passed.append(where)
    if args.list:
        for line in [*(f"{w}: ok" for w in passed), *failed, *(f"{u} (not compiled)" for u in unread)]:
            print(line)
    print(f"pipeline loops: {loops['agreed']} agreed, {loops['explained']} explained by 05-decisions.md, "
          f"{loops['unexplained']} unexplained")
    print(f"kernels: {len(passed)} pass the oracle battery, {len(failed)} fail, "
          f"{len(unread)} job(s) the reference did not compile")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
