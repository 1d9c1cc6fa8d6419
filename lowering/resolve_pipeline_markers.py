"""resolve-pipeline-markers: demote the `stage=1` markers to plain ranges.

Overview
--------
After lower-pipeline-to-slots and lower-pipeline-loops, the only pipeline loops left carry
`stage=1`: the marker replication leaves, or an author's `stage=1`. This pass demotes every
one of them (kind `Sequential`, attribute removed together, nothing else changed), so that
no pipeline loop remains (`20-lower-pipeline-to-slots.md` §13).

Before / After
--------------
```python
for i in pl.pipeline(0, 8, 4, stage=1): ...
# becomes
for i in pl.range(0, 8, 4): ...
```

Requires / produces / position
------------------------------
Requires lower-pipeline-loops to have run (a pipeline loop with `F > 1` here is an internal
error). Produces "no pipeline loop". Position: right after lower-pipeline-loops.

Why statement order is kept
---------------------------
The reference does this in `CanonicalizeIOOrder`, which also moves loads to the front and
stores to the back of each replicated body; slotsat keeps statement order.

Related passes
--------------
`slotsat.lowering.lower_pipeline_loops.LowerPipelineLoops` leaves the markers.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from slotsat.core import ir
from slotsat.lowering.common import PassResult, Rewriter


@dataclass
class _Demoter(Rewriter):
    def for_(self, s: ir.ForStmt) -> ir.ForStmt:
        out = super().for_(s)
        if out.stages is None:
            return out
        if out.stages != 1:
            raise RuntimeError(f"ResolvePipelineMarkers: a pipeline loop with stage={out.stages} survived "
                               "lower-pipeline-loops")
        return out.demoted()


@dataclass(frozen=True)
class ResolvePipelineMarkers:
    """See the module docstring (the pass doc)."""

    name: ClassVar[str] = "resolve-pipeline-markers"

    def run(self, fn: ir.Function) -> PassResult:
        body = _Demoter().body(fn.body)
        return PassResult(fn if body is fn.body else replace(fn, body=body))
