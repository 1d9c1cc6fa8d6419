"""slotsat subcommands: each module exposes `configure(parser)` and `run(args) -> int`.

This module holds what several commands share: the three comparison switches that say
"pypto" and the one-line help of each (`SWITCHES`), the `--backend` option, and
`UsageError`, a bad argument.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from slotsat.analysis.budget import Backend

DEFAULT_BACKEND = "910b"
"""Every command's default backend (`05-decisions.md` item 13)."""

PLANNER_HELP = ("who places on-chip buffers: ptoas (default; the slots pass multi-buffers loops and "
                "ptoas assigns addresses) or pypto (the reference's planner: codegen assigns addresses "
                "and the slots pass changes nothing)")
MODE_HELP = ("how index arithmetic is proven and emitted: slotsat (default; interval proofs, remui / "
             "divui, e-graph extraction) or pypto (the reference's syntactic proof, remsi / divsi, "
             "lowered node by node)")
COMPAT_HELP = ("pypto: the slots pass's view / in-place gate (T4) counts every argument of such an op, "
               "as the reference does (default: only the argument whose buffer the result inherits)")
BACKEND_HELP = "on-chip capacities: 910b (default), 950 or none (no capacity check)"

SWITCHES = (
    "--planner pypto  the reference's planner places on-chip buffers: codegen assigns addresses "
    "and the slots pass changes nothing",
    "--mode pypto     index arithmetic as the reference emits it: syntactic proof only, remsi / divsi, "
    "node by node",
    "--compat pypto   the slots pass's view / in-place gate counts every argument of such an op, as the "
    "reference does",
)
"""The three switches that say "pypto", one line each (the CLI's epilog, the demo header)."""


class UsageError(Exception):
    """A bad command-line argument: printed as `slotsat: error: MESSAGE`, exit status 2 (as
    argparse's own errors), with no source location (there is none)."""


def add_planner(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--planner", choices=("ptoas", "pypto"), default="ptoas", help=PLANNER_HELP)


def add_mode(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mode", choices=("slotsat", "pypto"), default="slotsat", help=MODE_HELP)


def add_compat(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--compat", choices=("pypto",), default=None, help=COMPAT_HELP)


def add_backend(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--backend", default=DEFAULT_BACKEND, help=BACKEND_HELP)


def backend_option(args: argparse.Namespace) -> Backend:
    """`--backend` as a `Backend`; an unknown name is a `UsageError`."""
    from slotsat.analysis.budget import Backend

    try:
        return Backend.parse(args.backend)
    except ValueError as err:
        raise UsageError(str(err)) from None


# -- PyPTO in the loop (`slotsat.bridge`) ---------------------------------------------------

VIA_PYPTO_HELP = ("compile FILE with the installed PyPTO up to its hand-off point (just before its "
                  "LowerPipelineToSlots) and continue on the IR it prints; this runs FILE as Python, "
                  "as PyPTO's own front end does, so use it only on files you trust")


def add_pypto_options(parser: argparse.ArgumentParser, *, via: bool = True) -> None:
    """`--via-pypto` (unless the command always goes through PyPTO), `--specialize`,
    `--from-main` and `--kernel`. A command that reads a kernel file calls this and then `kernel_source`."""
    if via:
        parser.add_argument("--via-pypto", action="store_true", help=VIA_PYPTO_HELP)
    parser.add_argument("--specialize", action="append", default=[], metavar="NAME=VALUE",
                        help="a parameter of a @pl.jit kernel: a scalar's value (an integer, a float, True, "
                             "False, or RUNTIME to keep it a runtime scalar) or a tensor's shape and dtype "
                             "('a=pl.Tensor[[128, 64], pl.FP32]' or 'a=[128, 64]:FP32'); repeatable")
    parser.add_argument("--from-main", action="store_true",
                        help="give each @pl.jit kernel the arguments of the first call the file's "
                             "`if __name__ == \"__main__\":` block makes to it (runs that block up to "
                             "there; the call itself compiles and runs nothing)")
    parser.add_argument("--kernel", default=None, metavar="NAME",
                        help="only this @pl.program class or @pl.jit function of FILE (default: every "
                             "@pl.program class and @pl.jit entry it defines)")


def handoff_label(file: str) -> str:
    """The file name diagnostics give the hand-off IR PyPTO printed for FILE (`slotsat import
    FILE` writes that text, so a location in it can be looked up)."""
    return f"{file}[hand-off]"


def kernel_source(args: argparse.Namespace, file: str | None = None) -> tuple[str, str]:
    """The text a command parses and the file name its diagnostics use: FILE (`args.file`
    unless given) itself, or with `--via-pypto` the hand-off IR PyPTO prints for it."""
    from slotsat.core.limits import read_source

    if file is None:
        file = str(args.file)
    if not getattr(args, "via_pypto", False):
        if getattr(args, "specialize", None) or getattr(args, "kernel", None) is not None \
                or getattr(args, "from_main", False):
            raise UsageError("--specialize, --from-main and --kernel select what PyPTO compiles; they need "
                             "--via-pypto")
        return read_source(file), file
    from slotsat.bridge import handoff

    return handoff(file, kernel=args.kernel, specialize=args.specialize, from_main=args.from_main), \
        handoff_label(file)
