"""One tile kernel from its parameter list, return type and body, and its run in the
interpreter: the shared set-up of the interpreter's op-model tests."""

from __future__ import annotations

from slotsat.core import ir
from slotsat.core.dsl.parser import parse_source
from slotsat.core.interpreter import Interpreter, ensure_modelled


def kernel(params: str, ret: str, body: str) -> ir.Function:
    """The InCore function `kernel(self, PARAMS) -> RET` with BODY (one statement a line)."""
    indented = "\n".join("        " + ln for ln in body.strip("\n").splitlines())
    src = (f"import pypto.language as pl\n\n\n@pl.program\nclass K:\n"
           f"    @pl.function(type=pl.FunctionType.InCore)\n"
           f"    def kernel(self, {params}) -> {ret}:\n{indented}\n")
    return parse_source(src, "k.py").programs[0].functions[0]


def run(fn: ir.Function, args: dict[str, object], *, modelled: bool = False) -> tuple[object, ...]:
    """`fn`'s outputs on `args` (logical buffers, no prefetch); with `modelled`, first the check
    `slotsat check` makes that the interpreter models every op of `fn`."""
    if modelled:
        ensure_modelled(fn)
    return Interpreter(physical=False, prefetch=False).run(fn, args)
