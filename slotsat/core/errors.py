"""Diagnostics shared by every front end and pass.

Exit statuses (`00-overview.md` §8): 0 success; 1 the input was read but a pass rejected it;
2 the input could not be read; 3 an internal failure.
"""

from __future__ import annotations

from dataclasses import dataclass

EXIT_OK = 0
EXIT_REJECTED = 1
EXIT_UNREADABLE = 2
EXIT_INTERNAL = 3


@dataclass(frozen=True, slots=True)
class Span:
    """A source position: 1-based line, 1-based column."""

    line: int
    col: int


NO_SPAN = Span(0, 0)


class SlotsatError(Exception):
    """A one-line user-facing error at a source position.

    `exit_status` is 2 for input that could not be read (syntax, semantics of the DSL or
    MLIR) and 1 for input that was read but rejected by a pass.
    """

    def __init__(self, message: str, span: Span = NO_SPAN, *, exit_status: int = EXIT_UNREADABLE,
                 file: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.span = span
        self.exit_status = exit_status
        self.file = file

    def with_file(self, file: str) -> SlotsatError:
        if self.file is None:
            self.file = file
        return self

    def render(self, default_file: str = "<input>") -> str:
        file = self.file if self.file is not None else default_file
        line = max(self.span.line, 1)
        col = max(self.span.col, 1)
        text = " ".join(self.message.split("\n"))
        return f"{file}:{line}:{col}: error: {text}"


class PassError(SlotsatError):
    """A pass rejected input it could read (exit status 1)."""

    def __init__(self, message: str, span: Span = NO_SPAN, *, file: str | None = None) -> None:
        super().__init__(message, span, exit_status=EXIT_REJECTED, file=file)
