"""materialize-dist-tensor-ctx and insert-comm-fence: what a distributed kernel needs after
the hand-off point.

Overview
--------
A kernel that takes `pld.DistributedTensor` parameters (window buffers a peer rank reads or
writes) needs two things the hand-off IR does not have yet; the reference adds them in its
passes after LowerPipelineToSlots, `MaterializeDistTensorCtx` and `InsertCommFence`
(`src/ir/transforms/materialize_dist_tensor_ctx_pass.cpp`, `insert_comm_fence_pass.cpp`), and
these two passes re-implement them:

1. **materialize-dist-tensor-ctx** gives every function with distributed tensor parameters
   one communication-context parameter per such tensor (`NAME_ctx: pld.CommCtxType`, the
   tensor's base name plus `_ctx`, made unique; appended after every other parameter, in the
   tensors' order). Codegen pairs the k-th distributed tensor with the k-th context and
   passes the context as `!pto.ptr<i64>` (the runtime's CommContext); peer addresses are read
   from it (`pld.system.notify`). A `pld.system.get_comm_ctx(t)` of such a tensor becomes the
   context itself. A call of such a function (`self.f(...)`, `pl.submit(self.f, ...)`) passes
   the contexts on: the caller's own context when the argument is (a writeback or view of) one
   of its distributed parameters, else `NAME_ctx = pld.system.get_comm_ctx(arg)` just before
   the call, the reference's host-orchestration form (orchestration is passed through, never
   emitted, so such a query never reaches a kernel's code).
2. **insert-comm-fence** (every function codegen emits) puts ptoas's data-before-signal markers around the
   publish and consume points, one statement at a time with no control-flow state:

   - after a local publishing write (a `tile.store` / `tensor.write` into a distributed
     tensor, a `pld.tile.get` / `pld.tensor.get` into a distributed destination): a
     `system.cacheinvalid` of the whole written tensor (its shape at zero offsets), then a
     `system.fence`;
   - after a remote write (`pld.tile.remote_store`, `pld.tile.put`, `pld.tensor.put`): a
     `system.fence` only (the op's own code invalidates the peer region);
   - after a call of another function or a task launch (an effect the pass cannot see): a
     whole-GM `system.cacheinvalid()` and a `system.fence`;
   - after a `pld.system.wait`: a whole-GM `system.cacheinvalid()`, so the reads that follow
     see the peer's fresh data.

   A marker already in place (the same statements right after the write or wait) is not
   added again, so the pass is idempotent.

Before / After
--------------
```python
def kernel(inp, data: pld.DistributedTensor[[16, 64], pl.FP32],
           signal: pld.DistributedTensor[[2, 1], pl.INT32], me: pl.Scalar[pl.INT32],
           peer: pl.Scalar[pl.INT32]):
    data_1 = pl.tile.store(t, [0, 0], data)
    pld.system.notify(signal, peer, [me, 0], pl.const(1, pl.INT32), op=0)
    pld.system.wait(signal, [peer, 0], pl.const(1, pl.INT32), cmp=1)
    u = pl.tile.load(data_1, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
# becomes
def kernel(inp, data, signal, me, peer, data_ctx: pld.CommCtxType, signal_ctx: pld.CommCtxType):
    data_1 = pl.tile.store(t, [0, 0], data)
    pl.system.cacheinvalid(data, [16, 64], [0, 0])
    pl.system.fence()
    pld.system.notify(signal, peer, [me, 0], pl.const(1, pl.INT32), op=0)
    pld.system.wait(signal, [peer, 0], pl.const(1, pl.INT32), cmp=1)
    pl.system.cacheinvalid()
    u = pl.tile.load(data_1, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
```

Requires / produces / position
------------------------------
Requires SSA and the resolved allocations (they change nothing here). Produces "every
distributed tensor has its context parameter" and "every publish and consume point has its
markers". Position: last, after carry-copies, right before pto-codegen, as the reference runs
them after every statement-reordering pass so the markers stay next to their writes.

Gate | Why
---------
| Gate | Why |
|------|-----|
| kernels only (insert-comm-fence) | the markers are InCore GM builtins; orchestration only dispatches |

A kernel is what codegen emits (`common.emitted_as_kernel`): the reference's InCore / AIC /
AIV functions, and a plain `@pl.function` of tile ops, which slotsat compiles as one.
| a write's target is a tensor variable | the region invalidation names the written tensor |

Why whole tensors
-----------------
The region invalidation covers the whole written tensor (its shape at zero offsets), as the
reference's pass does; narrowing it to the written sub-region is the reference's planned
follow-up, not slotsat's decision.

Emitted `.pto`
--------------
`system.cacheinvalid(t, shapes, offsets)` is a `pto.partition_view` of `t` and
`pto.cmo.cacheinvalid %pv single_cache_line : PV`; `system.cacheinvalid()` is
`pto.cmo.cacheinvalid all #pto.address_space<gm>`; `system.fence()` is
`pto.fence.barrier_all #pto.fence_scope<gm>` (`lowering/pto_codegen.py`).

Related passes
--------------
`slotsat.lowering.pto_codegen` emits the markers, the context parameters and the distributed
ops; `slotsat.lowering.carry_copies.CarryCopies` runs just before.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import ClassVar

from slotsat.core import ir
from slotsat.core.errors import PassError
from slotsat.lowering.common import PassResult, Rewriter, emitted_as_kernel

COMM_CTX_TYPE = ir.OpaqueType("pld.CommCtxType")
"""The type of a communication-context parameter (the reference's `CommCtxType`)."""

_REMOTE_WRITES = frozenset({"pld.tile.remote_store", "pld.tile.put", "pld.tensor.put"})
_OPAQUE_CALLS = ("self.",)
_LAUNCHES = frozenset({"submit", "spmd_submit"})
_WRITEBACK_ARG = {"tile.store": 2, "tensor.write": 0, "tensor.assemble": 0, "tile.assemble": 0}
"""Ops whose result is the tensor they write (argument k): it keeps that tensor's context."""
_VIEW_OPS = frozenset({"tensor.view", "tensor.reshape", "tensor.slice", "tensor.transpose", "tile.slice"})
"""Zero-copy views: the result keeps argument 0's window and context."""


def is_comm_ctx(v: ir.Var) -> bool:
    return v.type == COMM_CTX_TYPE


def is_distributed(v: ir.Var) -> bool:
    return isinstance(v.type, ir.TensorType) and v.type.distributed


def _base_name(hint: str) -> str:
    """The reference's `auto_name::GetBaseName`: the name without its printed SSA suffix
    (`data__ssa_v0` -> `data`, `x__rv_v2` -> `x`)."""
    return re.sub(r"__[A-Za-z]+(_v\d+)?$", "", hint)


def _names(fn: ir.Function) -> set[str]:
    out = {p.name_hint for p in fn.params}
    for s in ir.walk_stmts(fn.body):
        if isinstance(s, ir.AssignStmt):
            out.add(s.var.name_hint)
    return out


def _unique(base: str, used: set[str]) -> str:
    name, k = base, 1
    while name in used:
        name = f"{base}_{k}"
        k += 1
    used.add(name)
    return name


# --------------------------------------------------------------------------------------
# materialize-dist-tensor-ctx


def _callee(c: ir.Call) -> str | None:
    if c.op.startswith("self."):
        return c.op.removeprefix("self.")
    if c.op in _LAUNCHES and c.args and isinstance(c.args[0], ir.FuncRef):
        return c.args[0].name
    return None


def _contexts(fn: ir.Function, own: dict[int, ir.Var]) -> dict[int, ir.Var]:
    """The context of every distributed variable of `fn` that traces to a parameter: the
    parameters themselves, writebacks and views of them, and loop carries seeded from them."""
    ctx = dict(own)
    for s in ir.walk_stmts(fn.body):
        if isinstance(s, ir.AssignStmt) and is_distributed(s.var):
            src: ir.CallArg | None
            if isinstance(s.value, ir.Call):
                k = _WRITEBACK_ARG.get(s.value.op, 0 if s.value.op in _VIEW_OPS else None)
                src = None if k is None else _arg(s.value, k)
            else:
                src = s.value
            if isinstance(src, ir.Var) and src.id in ctx:
                ctx[s.var.id] = ctx[src.id]
        elif isinstance(s, ir.ForStmt | ir.WhileStmt):
            for k, it in enumerate(s.iter_args):
                if isinstance(it.init, ir.Var) and it.init.id in ctx and is_distributed(it.var):
                    ctx[it.var.id] = ctx[it.init.id]
                    if k < len(s.return_vars):
                        ctx[s.return_vars[k].id] = ctx[it.init.id]
    return ctx


@dataclass
class _CtxRewriter(Rewriter):
    plans: dict[str, tuple[int, ...]] = field(default_factory=dict)
    """Callee name -> the positions of its distributed parameters."""
    ctx: dict[int, ir.Var] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)

    def body(self, b: ir.SeqStmts) -> ir.SeqStmts:
        out: list[ir.Stmt] = []
        changed = False
        for s in b.stmts:
            if isinstance(s, ir.AssignStmt) and s.var.id in self.env:
                changed = True  # a resolved `pld.system.get_comm_ctx`: its uses read the context
                continue
            prefix: list[ir.Stmt] = []
            call = s.value if isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Call) else \
                s.call if isinstance(s, ir.EvalStmt) else None
            new = self.stmt(s)
            if call is not None:
                new = self._pass_contexts(new, call, prefix)
            changed = changed or new is not s or bool(prefix)
            out.extend(prefix)
            out.append(new)
        return ir.SeqStmts(tuple(out)) if changed else b

    def _pass_contexts(self, s: ir.Stmt, call: ir.Call, prefix: list[ir.Stmt]) -> ir.Stmt:
        name = _callee(call)
        if name is None or name not in self.plans:
            return s
        rebuilt = s.value if isinstance(s, ir.AssignStmt) else s.call  # type: ignore[union-attr]
        assert isinstance(rebuilt, ir.Call)
        first = 1 if call.op in _LAUNCHES else 0
        extra: list[ir.CallArg] = []
        for k in self.plans[name]:
            arg = call.args[first + k] if first + k < len(call.args) else None
            if isinstance(arg, ir.Var) and arg.id in self.ctx:
                extra.append(self.ctx[arg.id])
                continue
            if arg is None:
                raise PassError(f"the call of '{name}' passes no argument for its distributed "
                                f"tensor parameter {k}", call.span)
            base = _base_name(arg.name_hint) if isinstance(arg, ir.Var) else "dist"
            where = getattr(arg, "span", ir.NO_SPAN)
            v = ir.Var(_unique(f"{base}_ctx", self.used), COMM_CTX_TYPE, span=where)
            query = ir.Call("pld.system.get_comm_ctx", (arg,), span=call.span)
            prefix.append(ir.AssignStmt(v, query, call.span))
            extra.append(v)
        new_call = replace(rebuilt, args=rebuilt.args + tuple(extra))
        if isinstance(s, ir.AssignStmt):
            return ir.AssignStmt(s.var, new_call, s.span)
        return ir.EvalStmt(new_call, s.span)


@dataclass(frozen=True)
class MaterializeDistTensorCtx:
    """See the module docstring (the pass doc)."""

    name: ClassVar[str] = "materialize-dist-tensor-ctx"

    def run(self, fn: ir.Function) -> PassResult:
        return self.run_all([fn])[0]

    def run_all(self, functions: Sequence[ir.Function]) -> list[PassResult]:
        plans = {fn.name: tuple(k for k, p in enumerate(fn.params) if is_distributed(p)) for fn in functions}
        plans = {name: ks for name, ks in plans.items() if ks}
        if not plans:
            return [PassResult(fn) for fn in functions]
        return [PassResult(self._function(fn, plans)) for fn in functions]

    @staticmethod
    def _function(fn: ir.Function, plans: dict[str, tuple[int, ...]]) -> ir.Function:
        used = _names(fn)
        own: dict[int, ir.Var] = {}
        params = list(fn.params)
        if not any(is_comm_ctx(p) for p in fn.params):  # idempotent: already materialized
            for p in fn.params:
                if is_distributed(p):
                    name = _unique(f"{_base_name(p.name_hint)}_ctx", used)
                    param = ir.Var(name, COMM_CTX_TYPE, span=p.span)
                    own[p.id] = param
                    params.append(param)
        else:
            dists = [p for p in fn.params if is_distributed(p)]
            ctxs = [p for p in fn.params if is_comm_ctx(p)]
            own = {d.id: c for d, c in zip(dists, ctxs, strict=False)}
        ctx = _contexts(fn, own)
        env: dict[int, ir.Expr] = {}
        for s in ir.walk_stmts(fn.body):
            if isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Call) and \
                    s.value.op == "pld.system.get_comm_ctx" and s.value.args:
                arg = s.value.args[0]
                if isinstance(arg, ir.Var) and arg.id in ctx:
                    env[s.var.id] = ctx[arg.id]
        body = _CtxRewriter(env=env, plans=plans, ctx=ctx, used=used).body(fn.body)
        if body is fn.body and len(params) == len(fn.params):
            return fn
        return replace(fn, params=tuple(params), body=body)


# --------------------------------------------------------------------------------------
# insert-comm-fence


def _leaf_call(s: ir.Stmt) -> ir.Call | None:
    if isinstance(s, ir.EvalStmt):
        return s.call
    if isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Call):
        return s.value
    return None


def _arg(c: ir.Call, k: int) -> ir.CallArg | None:
    return c.args[k] if k < len(c.args) else None


def _local_write_target(c: ir.Call) -> ir.Var | None:
    """The distributed tensor a local publishing write writes (None: not one)."""
    k = {"tile.store": 2, "tensor.write": 0, "pld.tile.get": 0, "pld.tensor.get": 0}.get(c.op)
    target = None if k is None else _arg(c, k)
    if isinstance(target, ir.Var) and is_distributed(target):
        return target
    return None


def _opaque_write(c: ir.Call) -> bool:
    return c.op.startswith(_OPAQUE_CALLS) or c.op in _LAUNCHES


def _is_op(s: ir.Stmt | None, op: str, nargs: int | None = None) -> bool:
    c = None if s is None else _leaf_call(s)
    return c is not None and c.op == op and (nargs is None or len(c.args) == nargs)


def _invalidates(s: ir.Stmt | None, target: ir.Var) -> bool:
    c = None if s is None else _leaf_call(s)
    return c is not None and c.op == "system.cacheinvalid" and bool(c.args) and \
        isinstance(c.args[0], ir.Var) and c.args[0].id == target.id


def _eval(op: str, args: tuple[ir.CallArg, ...], span: ir.Span) -> ir.EvalStmt:
    return ir.EvalStmt(ir.Call(op, args, span=span), span)


def region_invalidation(target: ir.Var, span: ir.Span) -> ir.EvalStmt:
    """`pl.system.cacheinvalid(t, SHAPE, [0, ...])`: the whole tensor `t`."""
    t = target.type
    assert isinstance(t, ir.TensorType)
    shape = tuple(ir.ConstInt(d, ir.DType.INDEX) if isinstance(d, int) else d for d in t.shape)
    zeros = tuple(ir.ConstInt(0, ir.DType.INDEX) for _ in t.shape)
    return _eval("system.cacheinvalid", (target, ir.ExprList(shape), ir.ExprList(zeros)), span)


@dataclass
class _Marker(Rewriter):
    def body(self, b: ir.SeqStmts) -> ir.SeqStmts:
        stmts = b.stmts
        out: list[ir.Stmt] = []
        changed = False
        for i, s in enumerate(stmts):
            new = self.stmt(s)
            changed = changed or new is not s
            out.append(new)
            added = self._markers(s, stmts[i + 1] if i + 1 < len(stmts) else None,
                                  stmts[i + 2] if i + 2 < len(stmts) else None)
            changed = changed or bool(added)
            out.extend(added)
        return ir.SeqStmts(tuple(out)) if changed else b

    @staticmethod
    def _markers(s: ir.Stmt, nxt: ir.Stmt | None, nxt2: ir.Stmt | None) -> list[ir.Stmt]:
        c = _leaf_call(s)
        if c is None:
            return []
        span = getattr(s, "span", ir.NO_SPAN)
        target = _local_write_target(c)
        if target is not None:
            if _invalidates(nxt, target) and _is_op(nxt2, "system.fence"):
                return []
            return [region_invalidation(target, span), _eval("system.fence", (), span)]
        if c.op in _REMOTE_WRITES:
            return [] if _is_op(nxt, "system.fence") else [_eval("system.fence", (), span)]
        if _opaque_write(c):
            if _is_op(nxt, "system.cacheinvalid", 0) and _is_op(nxt2, "system.fence"):
                return []
            return [_eval("system.cacheinvalid", (), span), _eval("system.fence", (), span)]
        if c.op == "pld.system.wait":
            return [] if _is_op(nxt, "system.cacheinvalid", 0) else [_eval("system.cacheinvalid", (), span)]
        return []


@dataclass(frozen=True)
class InsertCommFence:
    """See the module docstring (the pass doc)."""

    name: ClassVar[str] = "insert-comm-fence"

    def run(self, fn: ir.Function) -> PassResult:
        # `_markers` with no following statements marks every site it orders: a function with
        # none skips the rewrite walk over every expression (a fixed cost per function).
        if not emitted_as_kernel(fn) or not any(_Marker._markers(s, None, None)
                                                for s in ir.walk_stmts(fn.body)):
            return PassResult(fn)
        body = _Marker().body(fn.body)
        return PassResult(fn if body is fn.body else replace(fn, body=body))
