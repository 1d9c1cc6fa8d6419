"""The interpreter's errors (`slotsat.core.interpreter` re-exports them): a fault of the
interpreted kernel, an op it does not model, and a limit reached. Their own module so that
the interpreter's data model (`slotsat.core.paged`) raises them without importing the
interpreter."""

from __future__ import annotations

from slotsat.core.errors import EXIT_REJECTED, NO_SPAN, SlotsatError, Span


class InterpreterError(SlotsatError):
    """A run-time fault of the interpreted kernel (or an op the interpreter does not model)."""

    def __init__(self, message: str, span: Span = NO_SPAN) -> None:
        super().__init__(message, span, exit_status=EXIT_REJECTED)


class Unmodelled(InterpreterError):
    """The program uses something the interpreter does not model: a property of the program
    (and the path taken), not of the input values, so another random input rarely helps."""


class InterpreterLimit(InterpreterError):
    """A run reached one of the interpreter's limits (statements, loop iterations, elements):
    the program is too large to interpret, which says nothing about its correctness."""
