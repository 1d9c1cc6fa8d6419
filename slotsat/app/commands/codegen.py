"""`slotsat codegen FILE`: compile a kernel file to PTO MLIR text (`30-pto-codegen.md`).

Runs the whole pipeline of `00-overview.md` §4 and writes the `.pto` module to standard
output or `-o OUT.pto`. Notes (a plain function compiled as a kernel) and warnings go to
standard error as `FILE:LINE:COL: note: ...` / `warning: ...`. Exit status 0 on success, 1
when a pass rejects the program (a blocker, a declaration error), 2 when the file cannot be
read or parsed.

`--verify` parses the module with xdsl and runs its verifier (the `pto` dialect of
`lowering/pto_dialect.py`) before anything is written: a module that does not verify is
slotsat's own error, so it is an internal error (exit 3) naming xdsl's objection, and
nothing is written. Off by default: it costs a parse of the whole module.
"""

from __future__ import annotations

import argparse
import sys

from slotsat.app.commands import (
    add_backend,
    add_compat,
    add_mode,
    add_planner,
    add_pypto_options,
    backend_option,
    kernel_source,
)
from slotsat.core.errors import EXIT_INTERNAL, EXIT_OK, SlotsatError, Span


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file", help="a kernel file in the tile-level DSL (with --via-pypto: any PyPTO kernel file)")
    add_planner(parser)
    add_mode(parser)
    add_backend(parser)
    add_compat(parser)
    parser.add_argument("-o", "--output", metavar="OUT.pto", default=None, help="write the module here")
    parser.add_argument(
        "--verify", action="store_true",
        help="parse the module with xdsl and run its verifier before writing it; a module that does not "
             "verify is an internal error (exit 3) and nothing is written")
    add_pypto_options(parser)


def verification_failure(text: str) -> str | None:
    """None when xdsl parses and verifies `text` (slotsat's `pto` dialect), else the last line
    of its objection (xdsl's message ends with the reason, after the offending source)."""
    from slotsat.lowering.pto_dialect import parse_and_verify

    try:
        parse_and_verify(text)
    except Exception as err:  # xdsl's ParseError / VerifyException / DiagnosticException
        lines = [line.strip() for line in str(err).strip().splitlines() if line.strip()]
        return lines[-1] if lines else type(err).__name__
    return None


def run(args: argparse.Namespace) -> int:
    from slotsat.app.pipeline import CompileOptions, compile_source
    from slotsat.core.options import Mode, Planner

    backend = backend_option(args)
    options = CompileOptions(
        planner=Planner.parse(args.planner),
        mode=Mode.parse(args.mode),
        backend=backend,
        compat=args.compat == "pypto",
    )
    text, file = kernel_source(args)
    try:
        result = compile_source(text, file, options)
    except SlotsatError as err:
        err.with_file(file)
        raise
    for note in result.notes:
        line, col = max(note.span.line, 1), max(note.span.col, 1)
        print(f"{file}:{line}:{col}: {note.severity}: {note.message}", file=sys.stderr)
    if args.verify:
        problem = verification_failure(result.pto_text)
        if problem is not None:
            print(f"slotsat: internal error: the module emitted for {file} does not verify ({problem}); "
                  "nothing was written", file=sys.stderr)
            return EXIT_INTERNAL
    if args.output is not None:
        try:
            with open(args.output, "w", encoding="utf-8") as handle:
                handle.write(result.pto_text)
        except OSError as err:
            raise SlotsatError(
                f"cannot write {args.output}: {err.strerror or err}", Span(1, 1), file=args.file
            ) from None
    else:
        sys.stdout.write(result.pto_text)
    return EXIT_OK
