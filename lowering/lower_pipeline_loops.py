"""lower-pipeline-loops: multi-buffer a pipeline loop by replicating its body.

Overview
--------
Every loop still of kind `Pipeline` with `F > 1` (everything lower-pipeline-to-slots
declined, and everything under `PYPTO`) becomes a loop striding by `F * step` whose body is
`F` clones of the original, each with fresh binders, followed by a remainder: a flattened
static tail when the bounds are literals, otherwise up to `F` guarded clones, all under
`if start < stop:` (deviations from §12.4, below). The replicated loop keeps `stage=1` as a
marker (`20-lower-pipeline-to-slots.md` §12).

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

Static bounds: every literal fits INDEX
---------------------------------------
§12.3's main loop is `pl.pipeline(start, start + main * F * step, F * step)`. Its stop is
where the last block's increment lands, which can lie beyond INT64_MAX although every
iteration fits (`pl.pipeline(INT64_MAX - 3, INT64_MAX, 2, stage=2)` became a stop of
INT64_MAX + 1, a loop that never ran). When the stop or `F * step` does not fit, the loop
keeps one block fewer and the last block joins the flattened tail (at most `2F - 1`
clones, each at an iteration's own literal value), so every bound, step and clone offset
is a literal that fits.

Runtime bounds: no overflow, a remainder linear in `F`
------------------------------------------------------
§12.4 computes `start + TRIP // F * (F * step)` with `TRIP = (stop - start + step - 1) //
step` outside any guard: `stop - start` overflows for far-apart bounds, the main stop can
land above INT64_MAX, the floored remainder is in `[0, F)` even for an empty loop (the
reference's bug: `pl.pipeline(3, n, 2, stage=3)` at `n = 0` visits -3 and -1), and its
cascade of `F - 1` nested branches holds `F (F - 1) / 2` clones (`stage=1024`: half a
million). slotsat emits, with `q = F * step`:

```python
if start < stop:
    unroll_rem = (stop % q - start % q) % q     # (stop - start) mod q; step 1 (unroll_off
    unroll_main_end = stop - unroll_rem          #   for step > 1, then unroll_rem =
    for i in pl.pipeline(start, unroll_main_end, q, stage=1):   # (unroll_off + step - 1) // step)
        ...                                      # F clones, as for static bounds
    if unroll_rem > 0:
        ...                                      # the clone at unroll_main_end
    if unroll_rem > 1:
        ...                                      # the clone at unroll_main_end + step
    ...                                          # F - 1 guarded clones (F for step > 1)
```

Each residue is in `[0, q)`, so no intermediate value overflows; `unroll_main_end` is in
`[start, stop]` and a multiple of `q` past `start`, so the main loop runs whole blocks and
its last increment lands on its stop; the guarded clones run exactly the iterations left,
in order (proven for every pair of 64-bit bounds in `tests/slots/test_replication.py`). A
literal start's residue is folded (`pl.pipeline(0, n, ...)`: `unroll_rem = n % q`). With
carried values each guarded `if` yields its clone's values or passes the previous ones on
(`<name>_rem<j+1>`), the main loop's results are `<name>_main`, and the guard yields the
last of them, or the initial values from its else branch. Where the loop has iterations
the program visits the reference's iterations in the reference's order.

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
| runtime bounds: `(F + 1) * step` fits INDEX, else `PassError` | the split's literals must fit |
| at most 100,000 statements made per function, else `PassError` | `stage=10**9`: 10**8 copies |

The statement limit (copies times the body's statements, nested ones included, counted
before any copy is made) is `SLOTSAT_MAX_REPLICATED_STMTS` (`slotsat/core/limits.py`).

Why membership tags
-------------------
Every tile-producing call of clone `k` of group `G` gets `"G:K"` appended to its
`pipeline_membership` attribute (cube accumulators only with `pipeline_double_buffer_c`),
so that the `PYPTO` planner's buffer reuse keeps the clones' buffers apart (§12.2,
`lowering/memory_reuse.py`). A runtime remainder is one group, its clone `j` stage `j`.

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
from slotsat.core.limits import max_replicated_statements
from slotsat.lowering.common import PassResult, Rewriter

IDX = ir.DType.INDEX
DOUBLE_BUFFER_C = "pipeline_double_buffer_c"


def _lit(v: int) -> ir.ConstInt:
    return ir.ConstInt(v, IDX)


def _scalar(name: str) -> ir.Var:
    return ir.Var(name, ir.ScalarType(IDX))


@dataclass(frozen=True)
class _Split:
    """The runtime split: the remainder count, the main loop's stop, the step and the
    remainder's membership group."""

    rem: ir.Var
    main_end: ir.Var
    step: int
    group: int


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
    """One function's replication: the group counter, the statements made so far and the
    recursive walk."""

    def __init__(self) -> None:
        self.groups = 0
        self.made = 0
        self.limit = max_replicated_statements()

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

    def budget(self, loop: ir.ForStmt, f: int, copies: int) -> None:
        """Refuse, before building anything, a replication that would make more statements
        than the per-function limit (`SLOTSAT_MAX_REPLICATED_STMTS`)."""
        size = sum(1 for _ in ir.walk_stmts(loop.body))
        made = copies * size
        if self.made + made > self.limit:
            raise PassError(
                f"LowerPipelineLoops: replicating this stage={f} loop makes {copies} copies of its "
                f"{size}-statement body ({made} statements), more than the limit of {self.limit} statements "
                "per function; lower the stage count, or set SLOTSAT_MAX_REPLICATED_STMTS to raise the limit",
                loop.span,
            )
        self.made += made

    def clones(self, loop: ir.ForStmt, ivs: list[ir.Expr], carried: tuple[ir.Expr, ...],
               group: int, first_stage: int = 0) -> _Clones:
        """Clones of `loop`'s body, clone `k` with the iv replaced by `ivs[k]` and tagged
        stage `first_stage + k`, chained through the carried values, each without its
        trailing yield."""
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
            rw = Rewriter(env=env, fresh=True, assign_hook=_tagger(f"{group}:{first_stage + k}", dbc))
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
        if main > 0 and not (_fits(f * step) and _fits(start + main * f * step)):
            # the main loop's step or its stop (where its last increment lands) would not
            # fit INDEX: run one block fewer in the loop, the last one as tail clones (its
            # first induction value is an iteration, so the shorter loop's stop fits)
            main, rem = (main - 1, rem + f) if _fits(f * step) else (0, trip)
        self.budget(loop, f, (f if main > 0 else 0) + rem)
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
        """Runtime bounds (see the module docstring): everything under `if start < stop:`,
        the split computed modulo `F * step` so that no intermediate value can overflow."""
        span = loop.span
        q = f * step
        if not _fits((f + 1) * step):
            raise PassError(f"LowerPipelineLoops: stage={f} times step {step} does not fit an INDEX value, "
                            "so the loop cannot be replicated", span)
        remainder = f - 1 if step == 1 else f
        self.budget(loop, f, f + remainder)
        then: list[ir.Stmt] = []
        # off = (stop - start) mod q, computed from the two residues: each is in [0, q), so
        # their difference cannot overflow; main_end = stop - off is then in [start, stop]
        off = _scalar("unroll_rem" if step == 1 else "unroll_off")
        then.append(ir.AssignStmt(off, _mod_difference(loop.stop, loop.start, q), span))
        main_end = _scalar("unroll_main_end")
        then.append(ir.AssignStmt(main_end, ir.Sub(loop.stop, off, IDX), span))
        rmain = tuple(ir.Var(v.name_hint + "_main", v.type, span=v.span) for v in loop.return_vars)
        then.append(self.main_loop(loop, f, step, main_end, rmain))
        rem = off
        if step > 1:
            # the remaining iterations: ceil(off / step), in [0, F]; off + step - 1 fits
            rem = _scalar("unroll_rem")
            ceil = ir.FloorDiv(ir.Add(off, _lit(step - 1), IDX), _lit(step), IDX)
            then.append(ir.AssignStmt(rem, ceil, span))
        values: tuple[ir.Expr, ...] = rmain
        split = _Split(rem, main_end, step, self.new_group())
        for j in range(remainder):
            guarded = self.guarded_clone(loop, split, j, values)
            then.append(guarded)
            values = guarded.return_vars
        other: ir.SeqStmts | None = None
        if loop.return_vars:
            then.append(ir.YieldStmt(values, span))
            other = ir.SeqStmts((ir.YieldStmt(tuple(it.init for it in loop.iter_args), span),))
        cond = ir.Cmp(ir.CmpOp.LT, loop.start, loop.stop)
        return [ir.IfStmt(cond, ir.SeqStmts(tuple(then)), other, loop.return_vars, span)]

    def guarded_clone(self, loop: ir.ForStmt, split: _Split, j: int,
                      carried: tuple[ir.Expr, ...]) -> ir.IfStmt:
        """`if unroll_rem > j: <clone j at main_end + j * step> else: <carried values>`."""
        span = loop.span
        iv: ir.Expr = split.main_end if j == 0 else ir.Add(split.main_end, _lit(j * split.step), IDX)
        clone = self.clones(loop, [iv], carried, split.group, first_stage=j)
        then = list(clone.stmts)
        rvars = tuple(ir.Var(f"{v.name_hint}_rem{j + 1}", v.type, span=v.span) for v in loop.return_vars)
        other: ir.SeqStmts | None = None
        if loop.return_vars:
            then.append(ir.YieldStmt(clone.values, span))
            other = ir.SeqStmts((ir.YieldStmt(carried, span),))
        cond = ir.Cmp(ir.CmpOp.GT, split.rem, _lit(j))
        return ir.IfStmt(cond, ir.SeqStmts(tuple(then)), other, rvars, span)


def _fits(v: int) -> bool:
    return IDX.fits(v)


def _mod_difference(stop: ir.Expr, start: ir.Expr, q: int) -> ir.Expr:
    """`(stop % q - start % q) % q` (floor semantics), which is `(stop - start) mod q`
    without computing `stop - start`; a literal operand's residue is folded."""
    def residue(e: ir.Expr) -> ir.Expr:
        v = ir.index_literal(e)
        return _lit(v % q) if v is not None else ir.FloorMod(e, _lit(q), IDX)

    a, b = residue(stop), residue(start)
    if ir.index_literal(b) == 0:
        return a
    return ir.FloorMod(ir.Sub(a, b, IDX), _lit(q), IDX)


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
