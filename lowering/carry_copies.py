"""carry-copies: copy a loop's next carried value into the carry's buffer when the carried
value is still read after that value is written (the reference's YieldFixup for loops).

Overview
--------
Codegen keeps a loop carry in one buffer: the initial value, the carried variable, the
yielded value and the result (`30-pto-codegen.md` §5.5). When the body still reads the
carried variable after the value it yields has been written, one buffer cannot hold both,
and `lowering/memory_reuse.py`'s check rejects the program. The reference compiles it: its
MaterializeSemanticAliases gives the yielded value a buffer of its own and inserts a
`tile.move` of it into the carry's buffer just before the yield (`YieldFixupMutator`, which
codegen spells `pto.tmov`). This pass does the same, and only where the check would reject
a read of the carried variable, or a yielded result written in place by an op that may not
overwrite the carried operand it reads (the reference marks it not in-place safe, or forbids
its result that operand's buffer), or a yielded view (`tile.reshape`, `tile.slice`: its
bytes are its source's, so the carry's or result's buffer would never receive them; the
reference moves each branch's reshape into the if's result): the check decides (one source
of truth), this pass repairs what it names and asks again.

Before / After (an online-softmax running maximum)
--------------------------------------------------
```python
for s, (m,) in pl.range(4, init_values=(m0,)):
    mn: T = pl.tile.maximum(m, xs)
    d: T = pl.tile.sub(m, mn)          # reads m after mn would overwrite it
    r: T = pl.yield_(mn)
# becomes
for s, (m,) in pl.range(4, init_values=(m0,)):
    mn: T = pl.tile.maximum(m, xs)
    d: T = pl.tile.sub(m, mn)
    mn_carry: T = pl.tile.move(mn, target_memory=pl.Mem.Vec)
    r: T = pl.yield_(mn_carry)
```

Requires / produces / position
------------------------------
Requires SSA form and the resolved allocations of init-memref; runs last, just before
pto-codegen, so that it sees the loops codegen emits (replicated clones included). A carry
of the `Acc` space is not copied (there is no `Acc` to `Acc` move, as in the reference): the
check's error stands. Each repair removes one conflicting read or leaves the carry alone,
so the pass runs the check at most once per carry plus once.

Related: `lowering/memory_reuse.py` (`check_shared_buffers`), `analysis/liveness.py`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from slotsat.analysis.liveness import Liveness, liveness
from slotsat.core import ir
from slotsat.lowering.common import PassResult
from slotsat.lowering.memory_reuse import SharedBufferConflict, check_shared_buffers

SUFFIX = "_carry"


@dataclass(frozen=True)
class CarryCopies:
    """See the module docstring (the pass doc)."""

    name: ClassVar[str] = "carry-copies"

    def run(self, fn: ir.Function) -> PassResult:
        if not any(isinstance(v.type, ir.TileType) for st in _joins(fn.body) for v in st.return_vars):
            return PassResult(fn)
        conflict = _conflict(fn)
        # at most one copy per yielded tile: one per loop result, one per branch of an if result
        for _ in range(sum(len(st.return_vars) * (2 if isinstance(st, ir.IfStmt) else 1)
                           for st in _joins(fn.body))):
            if conflict is None:
                break
            var, live = conflict
            repaired = None
            for stmt, k, branch in _joins_of(fn, var, live):
                new = _with_copy(stmt, k, branch)
                if new is None:
                    continue
                candidate = replace(fn, body=_replace(fn.body, stmt, new))
                after = _conflict(candidate)
                if after is None or after[0].id != var.id:
                    repaired = (candidate, after)
                    break
            if repaired is None:
                break  # no copy removes this read's conflict: codegen reports it
            fn, conflict = repaired
        return PassResult(fn)


_Join = ir.ForStmt | ir.WhileStmt | ir.IfStmt


def _joins(body: ir.SeqStmts) -> list[_Join]:
    return [s for s in ir.walk_stmts(body) if isinstance(s, ir.ForStmt | ir.WhileStmt | ir.IfStmt)]


def _conflict(fn: ir.Function) -> tuple[ir.Var, Liveness] | None:
    """The tile the buffer check rejects first, with the liveness it ran on (None: none)."""
    live = liveness(fn)
    try:
        check_shared_buffers(fn, live)
    except SharedBufferConflict as err:
        return err.var, live
    return None


def _joins_of(fn: ir.Function, var: ir.Var, live: Liveness) -> list[tuple[_Join, int, int]]:
    """The loop carries and if results whose buffer `var` names (its sharing class is theirs:
    the carried variable or result, a yielded value, or a view or copy a yielded value is),
    as (statement, result index, branch: 0 a loop body or a then branch, 1 an else branch)."""
    if var.id not in live.defined:
        return []
    key = live.find(var.id)
    out: list[tuple[_Join, int, int]] = []
    for st in _joins(fn.body):
        for k, r in enumerate(st.return_vars):
            if r.id in live.defined and live.find(r.id) == key:
                branches = (0,) if not isinstance(st, ir.IfStmt) else sorted(
                    (0, 1), key=lambda b: _local(st, k, b))
                out.extend((st, k, b) for b in branches)
    return out


def _local(stmt: ir.IfStmt, k: int, branch: int) -> bool:
    """Whether the branch's `k`-th yielded value is defined in the branch. As the reference
    does, a branch-local producer keeps writing the result's buffer, and the branch that
    passes on a value from before the if copies it (that branch is tried first)."""
    body = stmt.then_body if branch == 0 else stmt.else_body
    if body is None or not body.stmts or not isinstance(body.stmts[-1], ir.YieldStmt):
        return True
    value = body.stmts[-1].values[k] if k < len(body.stmts[-1].values) else None
    return any(isinstance(s, ir.AssignStmt) and s.var is value for s in ir.walk_stmts(body))


def _with_copy(stmt: _Join, k: int, branch: int) -> _Join | None:
    """`stmt` with the `k`-th value its body (`branch` of an if) yields moved into a fresh
    tile before the yield (None where no move can be made: no such yield, not a tile
    variable, or an accumulator)."""
    if isinstance(stmt, ir.IfStmt):
        body = stmt.then_body if branch == 0 else stmt.else_body
    else:
        body = stmt.body
    if body is None or not body.stmts or not isinstance(body.stmts[-1], ir.YieldStmt):
        return None
    stmts = body.stmts
    yld = stmts[-1]
    assert isinstance(yld, ir.YieldStmt)
    value = yld.values[k] if k < len(yld.values) else None
    result = stmt.return_vars[k].type
    if not isinstance(value, ir.Var) or not isinstance(value.type, ir.TileType) \
            or not isinstance(result, ir.TileType):
        return None
    space = value.type.memory_space or result.memory_space or ir.MemorySpace.Vec
    if space is ir.MemorySpace.Acc:
        return None
    typ = replace(value.type, memory_space=space, memref=result.memref)
    copy = ir.Var(value.name_hint + SUFFIX, typ, span=value.span)
    call = ir.Call("tile.move", (value,), (("target_memory", ir.SpaceArg(space)),), span=yld.span)
    values = tuple(copy if j == k else v for j, v in enumerate(yld.values))
    new_body = ir.SeqStmts((*stmts[:-1], ir.AssignStmt(copy, call, yld.span), ir.YieldStmt(values, yld.span)))
    if not isinstance(stmt, ir.IfStmt):
        return replace(stmt, body=new_body)
    return replace(stmt, then_body=new_body) if branch == 0 else replace(stmt, else_body=new_body)


def _replace(body: ir.SeqStmts, old: _Join, new: _Join) -> ir.SeqStmts:
    out: list[ir.Stmt] = []
    for s in body.stmts:
        if s is old:
            out.append(new)
        elif isinstance(s, ir.ForStmt | ir.WhileStmt | ir.ScopeStmt):
            out.append(replace(s, body=_replace(s.body, old, new)))
        elif isinstance(s, ir.IfStmt):
            other = None if s.else_body is None else _replace(s.else_body, old, new)
            out.append(replace(s, then_body=_replace(s.then_body, old, new), else_body=other))
        else:
            out.append(s)
    return ir.SeqStmts(tuple(out))
