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
