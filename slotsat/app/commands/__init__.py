"""slotsat subcommands: each module exposes `configure(parser)` and `run(args) -> int`."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from slotsat.core.errors import SlotsatError, Span

if TYPE_CHECKING:
    from slotsat.analysis.budget import Backend


def backend_option(args: argparse.Namespace) -> Backend:
    """`--backend` as a `Backend`; an unknown name is a one-line error at the input file."""
    from slotsat.analysis.budget import Backend

    try:
        return Backend.parse(args.backend)
    except ValueError as err:
        raise SlotsatError(str(err), Span(1, 1), file=args.file) from None


# -- PyPTO in the loop (`slotsat.bridge`) ---------------------------------------------------

VIA_PYPTO_HELP = ("compile FILE with the installed PyPTO up to its hand-off point (just before its "
                  "LowerPipelineToSlots) and continue on the IR it prints; this runs FILE as Python, "
                  "as PyPTO's own front end does, so use it only on files you trust")


def add_pypto_options(parser: argparse.ArgumentParser, *, via: bool = True) -> None:
    """`--via-pypto` (unless the command always goes through PyPTO), `--specialize` and
    `--kernel`. A command that reads a kernel file calls this and then `kernel_source`."""
    if via:
        parser.add_argument("--via-pypto", action="store_true", help=VIA_PYPTO_HELP)
    parser.add_argument("--specialize", action="append", default=[], metavar="NAME=VALUE",
                        help="a scalar parameter of a @pl.jit kernel: an integer, a float, True, False, or "
                             "RUNTIME to keep it a runtime scalar (pl.RUNTIME); repeatable")
    parser.add_argument("--kernel", default=None, metavar="NAME",
                        help="only this @pl.program class or @pl.jit function of FILE (default: every "
                             "@pl.program class and @pl.jit entry it defines)")


def handoff_label(file: str) -> str:
    """The file name diagnostics give the hand-off IR PyPTO printed for FILE (`slotsat import
    FILE` writes that text, so a location in it can be looked up)."""
    return f"{file}[hand-off]"


def kernel_source(args: argparse.Namespace) -> tuple[str, str]:
    """The text a command parses and the file name its diagnostics use: FILE itself, or with
    `--via-pypto` the hand-off IR PyPTO prints for it."""
    from slotsat.core.limits import read_source

    file: str = args.file
    if not getattr(args, "via_pypto", False):
        if getattr(args, "specialize", None) or getattr(args, "kernel", None) is not None:
            raise SlotsatError("--specialize and --kernel select what PyPTO compiles; they need --via-pypto",
                               Span(1, 1), file=file)
        return read_source(file), file
    from slotsat.bridge import handoff

    return handoff(file, kernel=args.kernel, specialize=args.specialize), handoff_label(file)
