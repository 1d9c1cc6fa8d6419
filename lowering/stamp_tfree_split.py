"""stamp-tfree-split: give every cross-core `tfree` the `split` (and pipe `id`) of the `tpop`
whose tile it frees (the reference's StampTfreeSplit).

Overview
--------
A consumer pops a tile another core pushed (`tile.tpop_from_aic` / `tile.tpop_from_aiv`) and
frees its ring slot when done (`system.tfree_to_aic` / `system.tfree_to_aiv`). Codegen spells
the free as `pto.tfree_from_X {[id = I, ]split = S}`, so the free needs the pop's split and
pipe id. Hand-written tile-level DSL leaves them off, as the DSL's own docs ask (`split`:
"Leave None"); the reference's StampTfreeSplit copies them from the originating pop, and the
IR it prints at the hand-off point already carries them. This pass does the same, so both
inputs reach codegen alike.

Before / After
--------------
```python
t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=2)
pl.system.tfree_to_aic(t)
# becomes
t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=2)
pl.system.tfree_to_aic(t, split=2)
```

Rules (each the reference's)
----------------------------
- The pop of a free is the `tpop` assignment whose variable the free's tile argument names,
  met earlier in the function's statement order (loop and branch bodies included).
- The free takes the pop's `split` (0 when the pop has none), replacing any split it was
  given, and the pop's `id` when it has one. A free with an `id` keeps it, and it must equal
  the pop's (0 for a pop without one).
- A free of a pop from the other direction (`tfree_to_aic` of a `tpop_from_aiv`) and a free
  whose tile comes from no pop are located errors. One exception keeps printed IR as it is: a
  free that already has its `split` and names no pop is left alone.

Requires / produces / position
------------------------------
Requires SSA form (the parser's). Runs first, before lower-pipeline-to-slots, as the
reference's does (and before replication clones any free). Idempotent.

Related: `lowering/pto_codegen.py` (`_emit_tfree`), `slotsat/core/interpreter.py` (pipes).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from slotsat.core import ir
from slotsat.core.errors import PassError
from slotsat.lowering.common import PassResult, Rewriter

_POP_OF_FREE = {"system.tfree_to_aic": "tile.tpop_from_aic", "system.tfree_to_aiv": "tile.tpop_from_aiv"}
"""The pop each free gives a slot back to."""

_POPS = frozenset(_POP_OF_FREE.values())


@dataclass(frozen=True, slots=True)
class _Pop:
    op: str
    split: ir.CallArg
    pipe_id: ir.CallArg | None


def _int_value(arg: ir.CallArg | None) -> int | None:
    return arg.value if isinstance(arg, ir.ConstInt) else None


class _Stamper(Rewriter):
    """Rebuilds the frees in statement order, recording each pop as it is met."""

    def __init__(self) -> None:
        super().__init__()
        self.pops: dict[int, _Pop] = {}

    def stmt(self, s: ir.Stmt) -> ir.Stmt:
        if isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Call) and s.value.op in _POPS:
            c = s.value
            split = c.kwarg("split")
            self.pops[s.var.id] = _Pop(c.op, split if split is not None else ir.ConstInt(0, span=c.span),
                                       c.kwarg("id"))
            return s
        if isinstance(s, ir.EvalStmt) and s.call.op in _POP_OF_FREE and s.call.args:
            call = self._stamped(s.call)
            return s if call is s.call else ir.EvalStmt(call, s.span)
        return super().stmt(s)

    def _stamped(self, c: ir.Call) -> ir.Call:
        tile = c.args[0]
        pop = self.pops.get(tile.id) if isinstance(tile, ir.Var) else None
        if pop is None:
            if c.kwarg("split") is not None:
                return c  # printed IR: stamped by the reference already
            raise PassError(f"{c.op} requires its tile argument to come from a matching "
                            "tile.tpop_from_ai{c,v}, but no originating tpop was found", c.span)
        if pop.op != _POP_OF_FREE[c.op]:
            raise PassError(f"{c.op} requires its tile argument to come from {_POP_OF_FREE[c.op]}, "
                            f"got {pop.op}", c.span)
        pipe_id = pop.pipe_id
        own_id = c.kwarg("id")
        if own_id is not None:
            mine = _int_value(own_id)
            theirs = _int_value(pop.pipe_id) if pop.pipe_id is not None else 0
            if mine is None or theirs is None:
                raise PassError(f"{c.op}: a pipe 'id' must be an integer literal", c.span)
            if mine != theirs:
                raise PassError(f"{c.op} pipe id {mine} does not match originating {pop.op} pipe id {theirs}",
                                c.span)
            pipe_id = own_id
        kwargs: list[tuple[str, ir.CallArg]] = [("split", pop.split)]
        if pipe_id is not None:
            kwargs.append(("id", pipe_id))
        kwargs += [(k, v) for k, v in c.kwargs if k not in ("split", "id")]
        if tuple(kwargs) == c.kwargs:
            return c
        return replace(c, kwargs=tuple(kwargs))


class StampTfreeSplit:
    """See the module docstring (the pass doc)."""

    name: ClassVar[str] = "stamp-tfree-split"

    def run(self, fn: ir.Function) -> PassResult:
        if not any(isinstance(s, ir.EvalStmt) and s.call.op in _POP_OF_FREE for s in ir.walk_stmts(fn.body)):
            return PassResult(fn)
        body = _Stamper().body(fn.body)
        return PassResult(fn if body is fn.body else replace(fn, body=body))
