"""The interpreter's errors (`slotsat.core.interpreter` re-exports them): a fault of the
interpreted kernel, an op it does not model, and a limit reached. Their own module so that
the interpreter's data model (`slotsat.core.paged`) raises them without importing the
interpreter."""

from __future__ import annotations

from dataclasses import dataclass

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


@dataclass(frozen=True)
class Overrun:
    """Where an access ran past the end of a tensor dimension: the op's tensor argument, the
    axis, the end the access reached (exclusive), the dimension's size there, and the index
    expression on that axis (None when the op computes it)."""

    tensor: object
    axis: int
    end: int
    size: int
    index: object = None


class OutOfBounds(InterpreterError):
    """An access past the end of a tensor dimension (`overrun` says where). `check` learns its
    next inputs from it (`inputs.learn_bounds`)."""

    def __init__(self, message: str, span: Span, overrun: Overrun) -> None:
        super().__init__(message, span)
        self.overrun = overrun


@dataclass(frozen=True)
class Misfit:
    """An extent a kernel computed outside the range its op allows (a valid shape past its
    tile's shape, or negative): the expression that gave it, its value, and the range."""

    extent: object
    value: int
    lo: int
    hi: int


class ExtentOutOfRange(InterpreterError):
    """A valid extent outside its tile (`misfit` says which). `check` learns its next inputs
    from it (`inputs.learn_bounds`)."""

    def __init__(self, message: str, span: Span, misfit: Misfit) -> None:
        super().__init__(message, span)
        self.misfit = misfit
