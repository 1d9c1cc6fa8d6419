"""`slotsat promote FILE`: ptoas persistent-fragment promotion (and unroll) on MLIR text.

Spec `50-persistent-promotion.md`; exit statuses `00-overview.md` §8: 0 success (the module
on standard output), 1 a promotion or unroll diagnostic (no IR printed), 2 input that could
not be read (unreadable file, MLIR syntax or verification). Every diagnostic is one
`FILE:LINE:COL: SEVERITY: MESSAGE` line on standard error.

With `--split-input-file` every chunk is its own module and every chunk's result is printed,
in order, joined by `// -----` lines: the module of a chunk that succeeded, a comment line
naming a chunk that failed (its diagnostics are on standard error). The exit status is the
worst chunk's.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field

from slotsat.core.errors import EXIT_OK, EXIT_REJECTED, EXIT_UNREADABLE, SlotsatError
from slotsat.core.limits import read_source


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="MLIR text (.pto or .mlir)")
    parser.add_argument("--max-persistent-unroll-trip-count", type=int, default=128, metavar="N",
                        help="guardrail on promoted loops' static trip count; negative disables")
    parser.add_argument("--max-full-unroll-trip-count", type=int, default=-1, metavar="N",
                        help="warn when unrolling a loop above this trip count; negative disables")
    parser.add_argument("--max-unroll-factor", type=int, default=1024, metavar="N",
                        help="drop (with a remark) a pto.unroll_factor above N; negative disables "
                             "(ptoas's option, default 1024)")
    parser.add_argument("--unroll", action="store_true", help="run pto-unroll-loops after promotion")
    parser.add_argument("--split-input-file", action="store_true",
                        help="process each '// -----' chunk as its own module")


@dataclass
class _Outcome:
    status: int = EXIT_OK
    stderr: list[str] = field(default_factory=list[str])
    modules: list[str] = field(default_factory=list[str])


def _process(args: argparse.Namespace, text: str) -> _Outcome:
    from slotsat.lowering.mlir_io import MlirInputError, make_context, parse_chunk, print_module, split_chunks
    from slotsat.lowering.promote_persistent import PromotePersistentFragmentLoops
    from slotsat.lowering.unroll_loops import UnrollLoops

    file: str = args.file
    outcome = _Outcome()
    promote = PromotePersistentFragmentLoops(args.max_persistent_unroll_trip_count)
    unroll = UnrollLoops(args.max_full_unroll_trip_count, args.max_unroll_factor)
    ctx = make_context()
    for chunk in split_chunks(text, args.split_input_file):
        failed = f"// chunk at line {chunk.first_line + 1} failed: see its diagnostics\n"
        try:
            module, positions = parse_chunk(ctx, chunk, file)
        except MlirInputError as err:
            outcome.stderr.append(SlotsatError(err.message, err.span, file=file).render(file))
            outcome.status = max(outcome.status, EXIT_UNREADABLE)
            outcome.modules.append(failed)
            continue
        diagnostics = promote.run(module, positions)
        if not any(d.is_error for d in diagnostics) and args.unroll:
            diagnostics += unroll.run(module, positions)
        for diagnostic in diagnostics:
            outcome.stderr.extend(diagnostic.render(file))
        if any(d.is_error for d in diagnostics):
            outcome.status = max(outcome.status, EXIT_REJECTED)
            outcome.modules.append(failed)
        else:
            outcome.modules.append(print_module(module))
    return outcome


def run(args: argparse.Namespace) -> int:
    text = read_source(args.file)
    outcome = _process(args, text)
    for line in outcome.stderr:
        print(line, file=sys.stderr)
    if outcome.status == EXIT_OK or args.split_input_file:
        sys.stdout.write("// -----\n".join(outcome.modules))
    return outcome.status
