"""`slotsat import FILE`: the IR PyPTO prints for a kernel file at the hand-off point.

```
slotsat import FILE [-o OUT.py] [--specialize NAME=VALUE ... | --from-main] [--kernel NAME]
```

Runs FILE as Python under the installed PyPTO (the reference's front end is Python: this
executes FILE), finds its `@pl.program` classes and `@pl.jit` kernels, runs the reference's
pass pipeline on each up to the point just before its LowerPipelineToSlots, and writes what
it prints there (`program.as_python()`), one module for all kernels, to standard output or
OUT.py. That is the tile-level IR every other command reads; `--via-pypto` on `slots`,
`codegen` and `check` does the same in one step. A scalar parameter of a jit kernel takes its
value from `--specialize NAME=VALUE` (`RUNTIME` keeps it a runtime scalar), a tensor parameter
with a bare `pl.Tensor` annotation its shape and dtype from `--specialize
`'NAME=pl.Tensor[[D0, ...], pl.DTYPE]'` (or `NAME=[D0, ...]:DTYPE`). With `--from-main`
instead, every argument comes from the first call the file's `if __name__ == "__main__":`
block makes to the kernel (`kernel(...)`, `kernel.lower(...)` or `kernel.compile(...)`), the
way PyPTO's own examples give their shapes: the block runs up to that call, which records its
arguments and compiles and runs nothing.

Exit status 0; 2 when PyPTO is not installed (one line saying how to install it), when the
reference rejects the kernel (its own message, located in FILE) or does not finish within
`SLOTSAT_PYPTO_SECONDS`.
"""

from __future__ import annotations

import argparse
import sys

from slotsat.app.commands import add_pypto_options
from slotsat.core.errors import EXIT_OK, SlotsatError, Span


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = ("Compile a kernel file with the installed PyPTO up to its hand-off point (just "
                          "before its LowerPipelineToSlots) and write the IR it prints there. This runs FILE "
                          "as Python, as PyPTO's own front end does.")
    parser.add_argument("file", help="a Python file with @pl.program classes or @pl.jit kernels")
    parser.add_argument("-o", "--output", metavar="OUT.py", default=None, help="write the IR here")
    add_pypto_options(parser, via=False)


def run(args: argparse.Namespace) -> int:
    from slotsat.bridge import handoff

    text = handoff(args.file, kernel=args.kernel, specialize=args.specialize, from_main=args.from_main)
    if args.output is None:
        sys.stdout.write(text)
        return EXIT_OK
    try:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as err:
        raise SlotsatError(f"cannot write {args.output}: {err.strerror or err}", Span(1, 1),
                           file=args.file) from None
    return EXIT_OK
