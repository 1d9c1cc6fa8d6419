"""The kernel DSL: parser and printer (`10-dsl.md`)."""

from __future__ import annotations

from slotsat.core.dsl.parser import parse_expression, parse_file, parse_source
from slotsat.core.dsl.printer import print_function, print_module, print_program

__all__ = [
    "parse_expression", "parse_file", "parse_source", "print_function", "print_module", "print_program",
]
