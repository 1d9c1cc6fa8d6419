"""lower-pipeline-loops: multi-buffer a pipeline loop by replicating its body.

Overview
--------
Every loop still of kind `Pipeline` with `F > 1` (everything lower-pipeline-to-slots
declined, and everything under `PYPTO`) becomes a loop striding by `F * step` whose body is
`F` clones of the original, each with fresh binders, followed by a remainder: a flattened
static tail when the bounds are literals, otherwise an `if` cascade over `unroll_rem`
guarded by `start < stop` (a soundness deviation from §12.4, see below). The replicated
loop keeps `stage=1` as a marker (`20-lower-pipeline-to-slots.md` §12).

Before / After
--------------
```python
for i in pl.pipeline(0, 10, 1, stage=4):
    _y: pl.Scalar[pl.INDEX] = i
# becomes
for i in pl.pipeline(0, 8, 4, stage=1):
    _y: pl.Scalar[pl.INDEX] = i
    _y_1: pl.Scalar[pl.INDEX] = i + 1
    _y_2: pl.Scalar[pl.INDEX] = i + 2
    _y_3: pl.Scalar[pl.INDEX] = i + 3
_y_4: pl.Scalar[pl.INDEX] = 8
_y_5: pl.Scalar[pl.INDEX] = 9
```

Deviation from the reference: the runtime-bound remainder is guarded
------------------------------------------------------------------------
§12.4 emits `unroll_main_end = start + TRIP // F * (F * step)`, the main loop, `unroll_rem`
and the `unroll_rem == 1 / == 2 / ...` cascade unconditionally. When the runtime `stop` is
at or below `start`, `TRIP` is zero or negative and floor division still puts `unroll_rem`
in `[0, F)`, so the reference runs remainder clones although the original loop runs no
iteration (`pl.pipeline(3, n, 2, stage=3)` with `n = 0` visits `i = -3` and `i = -1`). The
reference has this bug; slotsat must not emit a wrong program, so as a soundness fix the
cascade is wrapped in `if start < stop:` (the main loop needs no guard: its stop
`unroll_main_end` is then `<= start`, so it runs nothing). With carried values the guard
takes the original result variables and yields the cascade's results, its else branch
yields the main loop's `_main` results, and the cascade's outermost `if` gets fresh
`<name>_rem1` results (the `== K` ifs keep `<name>_rem<K>`); without carried values nothing
yields and the guard has no else. When `start < stop` the program computes exactly what
§12.4's does. For `F = 2`, step 1, carried value `y`:

```python
unroll_main_end: pl.Scalar[pl.INDEX] = 0 + (n - 0) // 2 * 2
for i, (acc,) in pl.pipeline(0, unroll_main_end, 2, stage=1, init_values=(out,)):
    ...                                   # 2 clones
    y_main: T = pl.yield_(v_1)
unroll_rem: pl.Scalar[pl.INDEX] = n - unroll_main_end
if 0 < n:
    if unroll_rem == 1:
        ...                               # 1 clone
        y_rem1: T = pl.yield_(v_2)
    else:
        y_rem1: T = pl.yield_(y_main)
    y: T = pl.yield_(y_rem1)
else:
    y: T = pl.yield_(y_main)
```

Requires / produces / position
------------------------------
Requires SSA form. Position: immediately after lower-pipeline-to-slots, before
resolve-pipeline-markers. Runs under every planner.

Gates
-----
| Gate | Why |
| --- | --- |
| `F == 1`: left intact, body visited | asks for nothing; it is also this pass's marker (idempotence) |
| step an integer literal, else `PassError` | the clones' offsets `k * step` must be literals |
| runtime bounds need a positive step, else `PassError` | the remainder arithmetic assumes an ascending loop |
| runtime remainder cascade only if `start < stop` | an empty loop's floored `unroll_rem` is in `[0, F)` |

Why membership tags
-------------------
Every tile-producing call of clone `k` of group `G` gets `"G:K"` appended to its
`pipeline_membership` attribute (cube accumulators only with `pipeline_double_buffer_c`),
so that the reference's `PYPTO` buffer reuse keeps the clones' buffers apart (§12.2).

Related passes
--------------
`slotsat.lowering.lower_pipeline_to_slots.LowerPipelineToSlots` runs first and rotates what it can;
`slotsat.lowering.resolve_pipeline_markers.ResolvePipelineMarkers` clears the `stage=1` markers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import ClassVar

from slotsat.core import ir, ops
from slotsat.core.errors import PassError
from slotsat.lowering.common import PassResult, Rewriter

IDX = ir.DType.INDEX
DOUBLE_BUFFER_C = "pipeline_double_buffer_c"


def _lit(v: int) -> ir.ConstInt:
    return ir.ConstInt(v, IDX)


def _scalar(name: str) -> ir.Var:
    return ir.Var(name, ir.ScalarType(IDX))


@dataclass
class _Clones:
    stmts: list[ir.Stmt]
    values: tuple[ir.Expr, ...]
    """The values the last clone yields (the carried values after the clones)."""


@dataclass(frozen=True)
class LowerPipelineLoops:
    """See the module docstring (the pass doc)."""

    name: ClassVar[str] = "lower-pipeline-loops"

    def run(self, fn: ir.Function) -> PassResult:
        state = _State()
        body = state.body(fn.body)
        if body is fn.body:
            return PassResult(fn)
        return PassResult(replace(fn, body=body))


class _State:
    """One function's replication: the group counter and the recursive walk."""

    def __init__(self) -> None:
        self.groups = 0

    def body(self, b: ir.SeqStmts) -> ir.SeqStmts:
        out: list[ir.Stmt] = []
        changed = False
        for s in b.stmts:
            new = self.stmt(s)
            if len(new) != 1 or new[0] is not s:
                changed = True
            out.extend(new)
        return ir.SeqStmts(tuple(out)) if changed else b

    def stmt(self, s: ir.Stmt) -> list[ir.Stmt]:
        if isinstance(s, ir.IfStmt):
            then = self.body(s.then_body)
            other = None if s.else_body is None else self.body(s.else_body)
            if then is s.then_body and other is s.else_body:
                return [s]
            return [replace(s, then_body=then, else_body=other)]
        if isinstance(s, ir.WhileStmt | ir.ScopeStmt):
            inner = self.body(s.body)
            return [s if inner is s.body else replace(s, body=inner)]
        if not isinstance(s, ir.ForStmt):
            return [s]
        body = self.body(s.body)
        loop = s if body is s.body else replace(s, body=body)
        if loop.stages is None or loop.stages == 1:
            return [loop]
        return self.replicate(loop, loop.stages)

    # -- replication ---------------------------------------------------------------------

    def new_group(self) -> int:
        g = self.groups
        self.groups += 1
        return g

    def replicate(self, loop: ir.ForStmt, f: int) -> list[ir.Stmt]:
        step = ir.index_literal(loop.step)
        if step is None:
            raise PassError("LowerPipelineLoops: step must be a compile-time integer constant, got "
                            f"{type(loop.step).__name__}", loop.span)
        start, stop = ir.index_literal(loop.start), ir.index_literal(loop.stop)
        if start is not None and stop is not None:
            return self.static(loop, f, start, stop, step)
        if step <= 0:
            raise PassError(f"LowerPipelineLoops: a pipeline loop with runtime bounds needs a positive step, "
                            f"got {step}", loop.span)
        return self.dynamic(loop, f, step)

    def clones(self, loop: ir.ForStmt, ivs: list[ir.Expr], carried: tuple[ir.Expr, ...],
               group: int) -> _Clones:
        """Clones of `loop`'s body, clone `k` with the iv replaced by `ivs[k]`, chained
        through the carried values, each without its trailing yield."""
        stmts = loop.body.stmts
        has_yield = bool(loop.iter_args)
        core = stmts[:-1] if has_yield else stmts
        trailing = stmts[-1] if has_yield else None
        dbc = bool(dict(loop.attrs).get(DOUBLE_BUFFER_C, False))
        out: list[ir.Stmt] = []
        values = carried
        for k, iv in enumerate(ivs):
            env: dict[int, ir.Expr] = {loop.loop_var.id: iv}
            env.update({it.var.id: v for it, v in zip(loop.iter_args, values, strict=True)})
            rw = Rewriter(env=env, fresh=True, assign_hook=_tagger(f"{group}:{k}", dbc))
            out.extend(rw.stmt(s) for s in core)
            if trailing is not None:
                assert isinstance(trailing, ir.YieldStmt)
                values = tuple(rw.expr(v) for v in trailing.values)
        return _Clones(out, values)

    def static(self, loop: ir.ForStmt, f: int, start: int, stop: int, step: int) -> list[ir.Stmt]:
        trip = -((stop - start) // -step) if step > 0 else -((start - stop) // step)
        trip = max(trip, 0)
        if trip == 0:
            return [loop.demoted()]
        main, rem = divmod(trip, f)
        out: list[ir.Stmt] = []
        carried: tuple[ir.Expr, ...] = tuple(it.init for it in loop.iter_args)
        if main > 0:
            rvars = loop.return_vars if rem == 0 else tuple(
                ir.Var(v.name_hint + "_main", v.type, span=v.span) for v in loop.return_vars)
            out.append(self.main_loop(loop, f, step, _lit(start + main * f * step), rvars))
            carried = rvars
        if rem > 0:
            base = start + main * f * step
            tail = self.clones(loop, [_lit(base + j * step) for j in range(rem)], carried, self.new_group())
            out.extend(tail.stmts)
            out.extend(ir.AssignStmt(v, val, loop.span)
                       for v, val in zip(loop.return_vars, tail.values, strict=True))
        return out

    def main_loop(self, loop: ir.ForStmt, f: int, step: int, stop: ir.Expr,
                  rvars: tuple[ir.Var, ...]) -> ir.ForStmt:
        iv = loop.loop_var
        ivs: list[ir.Expr] = [iv, *(ir.Add(iv, _lit(k * step), IDX) for k in range(1, f))]
        cl = self.clones(loop, ivs, tuple(it.var for it in loop.iter_args), self.new_group())
        body = list(cl.stmts)
        if loop.iter_args:
            body.append(ir.YieldStmt(cl.values, loop.body.stmts[-1].span if loop.body.stmts else loop.span))
        return ir.ForStmt(ir.ForKind.PIPELINE, iv, loop.start, stop, _lit(f * step), loop.iter_args, rvars,
                          ir.SeqStmts(tuple(body)), loop.attrs, loop.span).with_stages(1)

    def dynamic(self, loop: ir.ForStmt, f: int, step: int) -> list[ir.Stmt]:
        span = loop.span
        diff = ir.Sub(loop.stop, loop.start, IDX)
        trip: ir.Expr = diff if step == 1 else ir.FloorDiv(ir.Add(diff, _lit(step - 1), IDX), _lit(step), IDX)
        main_end = _scalar("unroll_main_end")
        main_end_value = ir.Add(loop.start, ir.Mul(ir.FloorDiv(trip, _lit(f), IDX), _lit(f * step), IDX), IDX)
        out: list[ir.Stmt] = [ir.AssignStmt(main_end, main_end_value, span)]
        rmain = tuple(ir.Var(v.name_hint + "_main", v.type, span=v.span) for v in loop.return_vars)
        out.append(self.main_loop(loop, f, step, main_end, rmain))
        rem = _scalar("unroll_rem")
        rem_value: ir.Expr = (ir.Sub(loop.stop, main_end, IDX) if step == 1 else
                              ir.Sub(trip, ir.Mul(ir.FloorDiv(trip, _lit(f), IDX), _lit(f), IDX), IDX))
        out.append(ir.AssignStmt(rem, rem_value, span))
        branches: list[_Clones] = []
        for k in range(1, f):
            ivs: list[ir.Expr] = [main_end, *(ir.Add(main_end, _lit(j * step), IDX) for j in range(1, k))]
            branches.append(self.clones(loop, ivs, rmain, self.new_group()))
        out.append(self.guard(loop, self.cascade(loop, rem, branches, rmain, 1), rmain))
        return out

    def guard(self, loop: ir.ForStmt, cascade: ir.IfStmt, rmain: tuple[ir.Var, ...]) -> ir.IfStmt:
        """`if start < stop: <cascade> else: <the main loop's results>` (deviation from §12.4,
        see the module docstring): with `stop <= start` the floored `unroll_rem` still lands in
        `[0, F)`, so the unguarded cascade would run remainder clones the loop never runs."""
        span = loop.span
        then: list[ir.Stmt] = [cascade]
        other: ir.SeqStmts | None = None
        if loop.return_vars:
            then.append(ir.YieldStmt(cascade.return_vars, span))
            other = ir.SeqStmts((ir.YieldStmt(rmain, span),))
        cond = ir.Cmp(ir.CmpOp.LT, loop.start, loop.stop)
        return ir.IfStmt(cond, ir.SeqStmts(tuple(then)), other, loop.return_vars, span)

    def cascade(self, loop: ir.ForStmt, rem: ir.Var, branches: list[_Clones], rmain: tuple[ir.Var, ...],
                k: int) -> ir.IfStmt:
        """`if unroll_rem == k: <k clones> else: <the cascade for k + 1>`."""
        span = loop.span
        carried = bool(loop.return_vars)
        rvars = tuple(ir.Var(f"{v.name_hint}_rem{k}", v.type, span=v.span) for v in loop.return_vars)
        then = list(branches[k - 1].stmts)
        if carried:
            then.append(ir.YieldStmt(branches[k - 1].values, span))
        other: list[ir.Stmt] | None
        if k < len(branches):
            inner = self.cascade(loop, rem, branches, rmain, k + 1)
            other = [inner]
            if carried:
                other.append(ir.YieldStmt(inner.return_vars, span))
        else:
            other = [ir.YieldStmt(rmain, span)] if carried else None
        cond = ir.Cmp(ir.CmpOp.EQ, rem, _lit(k))
        return ir.IfStmt(cond, ir.SeqStmts(tuple(then)), None if other is None else ir.SeqStmts(tuple(other)),
                         rvars, span)


def _tagger(tag: str, dbc: bool) -> Callable[[ir.AssignStmt], ir.AssignStmt]:
    def hook(s: ir.AssignStmt) -> ir.AssignStmt:
        t = s.var.type
        if not isinstance(t, ir.TileType) or not isinstance(s.value, ir.Call):
            return s
        if t.memory_space is ir.MemorySpace.Acc and ops.is_matmul_family(s.value.op) and not dbc:
            return s
        old = s.value.attr(ir.PIPELINE_MEMBERSHIP)
        value = tag if old is None else f"{old};{tag}"
        return ir.AssignStmt(s.var, s.value.with_attr(ir.PIPELINE_MEMBERSHIP, value), s.span)

    return hook
