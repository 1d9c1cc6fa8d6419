"""PyPTO in the loop: the reference compiler as a front end and as an oracle.

slotsat reads tile-level IR: the IR the reference prints just before its
LowerPipelineToSlots (the hand-off point). Kernels as people write them (`@pl.jit`
functions, tensor slicing, `with pl.at(...)` scopes) reach that point only through the
reference's own front end and some fifteen of its passes, so the bridge runs them there:

- `session.Reference` starts a worker process (`worker.py`) under an interpreter that has
  PyPTO (`SLOTSAT_PYPTO_PYTHON`, else the one running slotsat) and asks it to run a kernel
  file, find its `@pl.program` classes and `@pl.jit` kernels (scalar parameters of a jit
  kernel from `--specialize NAME=VALUE`, `RUNTIME` for `pl.RUNTIME`), and run the
  reference's pass pipeline once per kernel with an instrument that prints the IR at the
  hand-off point, and for the oracle after its LowerPipelineToSlots and after its
  LowerPipelineLoops, with the loops of each read off the reference's IR objects;
- `session.handoff(path)` is the form the commands use (`--via-pypto`, `slotsat import`),
  on the process's one worker (`session.shared()`).

Running the kernel file is inherent: the reference's front end is Python that executes it.
slotsat itself never imports PyPTO (importing this package does not either); without PyPTO
every bridge call is one line saying how to install it (`session.PyptoMissing`, exit
status 2). Depends on `slotsat.core` only.
"""

from slotsat.bridge.session import (
    ENV_PYTHON,
    ENV_SECONDS,
    Kernel,
    PyptoMissing,
    Reference,
    RefLoop,
    RefTile,
    handoff,
    installed,
    join_programs,
    parse_specialize,
    shared,
)

__all__ = [
    "ENV_PYTHON",
    "ENV_SECONDS",
    "Kernel",
    "PyptoMissing",
    "RefLoop",
    "RefTile",
    "Reference",
    "handoff",
    "installed",
    "join_programs",
    "parse_specialize",
    "shared",
]
