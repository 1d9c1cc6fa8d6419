"""Shared pass plumbing for the pipeline passes: the planner option, pass results and decline
records, and an identity-preserving IR rewriter (substitution and fresh-binder cloning).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from slotsat.core import ir
from slotsat.core.errors import NO_SPAN, Span


@dataclass(frozen=True, slots=True)
class Decline:
    """Why a pipeline loop (or, for `planner`, a whole function) was not rotated
    (`20-lower-pipeline-to-slots.md` §10). Never an error: the loop is replicated later."""

    loop: ir.ForStmt | None = field(repr=False)
    code: str
    message: str
    function: str = ""
    key: int | None = None
    """The loop's pre-order key in its function (`slotsat.analysis.loops`), None for `planner`."""

    @property
    def span(self) -> Span:
        return self.loop.span if self.loop is not None else NO_SPAN

    @property
    def header(self) -> str:
        return loop_header(self.loop) if self.loop is not None else f"def {self.function}(...)"


@dataclass(frozen=True, slots=True)
class PassResult:
    """A pass's output: the new function (the identical object when nothing changed) and
    its decline records."""

    function: ir.Function
    declines: tuple[Decline, ...] = ()


# --------------------------------------------------------------------------------------
# printing loop headers for decline records (names are not disambiguated)

def format_expr(e: ir.Expr) -> str:
    """An expression as the DSL printer writes it, with the binders' own name hints."""
    from slotsat.core.dsl.printer import print_expr

    return print_expr(e)


def loop_header(loop: ir.ForStmt) -> str:
    """`for i, (acc,) in pl.pipeline(0, 4, 1, stage=2, init_values=(out,))`."""
    parts = [format_expr(x) for x in (loop.start, loop.stop, loop.step)]
    if ir.index_literal(loop.start) == 0 and ir.index_literal(loop.step) == 1:
        parts = parts[1:2]
    elif ir.index_literal(loop.step) == 1:
        parts = parts[:2]
    if loop.stages is not None:
        parts.append(f"stage={loop.stages}")
    target = loop.loop_var.name_hint
    if loop.iter_args:
        one = "," if len(loop.iter_args) == 1 else ""
        parts.append("init_values=(" + ", ".join(format_expr(it.init) for it in loop.iter_args) + one + ")")
        names = ", ".join(it.var.name_hint for it in loop.iter_args)
        target += f", ({names}{one})"
    kind = {ir.ForKind.PIPELINE: "pipeline", ir.ForKind.PARALLEL: "parallel",
            ir.ForKind.UNROLL: "unroll"}.get(loop.kind, "range")
    return f"for {target} in pl.{kind}({', '.join(parts)})"


# --------------------------------------------------------------------------------------
# the rewriter


_ARITH = frozenset({ir.Add, ir.Sub, ir.Mul, ir.FloorDiv, ir.FloorMod})
"""The binary integer nodes, rebuilt alike: `(a, b, dtype, span)`."""


@dataclass
class Rewriter:
    """Rebuild IR under a substitution, sharing every unchanged node.

    `env` maps a variable id to the expression that replaces its uses (a binder maps to
    its new binder). With `fresh=True` every definition met gets a fresh binder with the
    same name hint (a clone). `assign_hook` may rewrite each rebuilt assignment (after its
    binder is settled), for example to tag it.
    """

    env: dict[int, ir.Expr] = field(default_factory=dict)
    fresh: bool = False
    assign_hook: Callable[[ir.AssignStmt], ir.AssignStmt] | None = None

    # -- expressions -------------------------------------------------------------------

    def expr(self, e: ir.Expr) -> ir.Expr:
        t = type(e)  # the common cases by class first: this runs for every node of a pass
        if t is ir.Var:
            return self.env.get(e.id, e)  # type: ignore[union-attr]
        if t is ir.ConstInt or t is ir.ConstFloat:
            return e
        if t in _ARITH:
            assert isinstance(e, ir.Add | ir.Sub | ir.Mul | ir.FloorDiv | ir.FloorMod)
            a, b = self.expr(e.a), self.expr(e.b)
            if a is e.a and b is e.b:
                return e
            return type(e)(a, b, e.dtype, e.span)
        if isinstance(e, ir.Cast):
            a = self.expr(e.a)
            return e if a is e.a else ir.Cast(a, e.dtype, e.span)
        if isinstance(e, ir.Cmp):
            a, b = self.expr(e.a), self.expr(e.b)
            return e if a is e.a and b is e.b else ir.Cmp(e.op, a, b, e.dtype, e.span)
        if isinstance(e, ir.ScalarBinary):
            a, b = self.expr(e.a), self.expr(e.b)
            return e if a is e.a and b is e.b else ir.ScalarBinary(e.op, a, b, e.dtype, e.span)
        if isinstance(e, ir.ScalarUnary):
            a = self.expr(e.a)
            return e if a is e.a else ir.ScalarUnary(e.op, a, e.dtype, e.span)
        assert isinstance(e, ir.TupleGetItem), e
        a = self.expr(e.tuple_value)
        return e if a is e.tuple_value else ir.TupleGetItem(a, e.index, e.span)

    def arg(self, a: ir.CallArg) -> ir.CallArg:
        if isinstance(a, ir.ExprList):
            items = tuple(self.expr(x) for x in a.items)
            if all(x is y for x, y in zip(items, a.items, strict=True)):
                return a
            return ir.ExprList(items, a.span)
        if isinstance(a, ir.ArgList):
            args = tuple(self.arg(x) for x in a.items)
            if all(x is y for x, y in zip(args, a.items, strict=True)):
                return a
            return ir.ArgList(args, a.span)
        if isinstance(a, ir.SpaceArg | ir.DTypeArg | ir.StrArg | ir.EnumArg | ir.FuncRef):
            return a
        return self.expr(a)

    def attr_value(self, v: ir.AttrValue) -> ir.AttrValue:
        """A call attribute: literals unchanged, variables and expressions substituted."""
        if isinstance(v, bool | int | str | float):
            return v
        return self.arg(v)

    def call(self, c: ir.Call) -> ir.Call:
        args = tuple(self.arg(a) for a in c.args)
        kwargs = tuple((k, self.arg(v)) for k, v in c.kwargs)
        attrs = tuple((k, self.attr_value(v)) for k, v in c.attrs)
        if all(x is y for x, y in zip(args, c.args, strict=True)) and all(
                x[1] is y[1] for x, y in zip(kwargs, c.kwargs, strict=True)) and all(
                x[1] is y[1] for x, y in zip(attrs, c.attrs, strict=True)):
            return c
        return ir.Call(c.op, args, kwargs, attrs, c.span)

    def _dims(self, dims: tuple[int | ir.Expr, ...]) -> tuple[int | ir.Expr, ...]:
        out = tuple(d if isinstance(d, int) else self.expr(d) for d in dims)
        return dims if all(x is y for x, y in zip(out, dims, strict=True)) else out

    def type_(self, t: ir.Type) -> ir.Type:
        """`t` with the variables of its dimensions, valid shape, layout view and MemRef
        substituted (the identical object when nothing changes)."""
        if isinstance(t, ir.TensorType):
            shape = self._dims(t.shape)
            return t if shape is t.shape else replace(t, shape=shape)
        if isinstance(t, ir.TupleType):
            types = tuple(self.type_(x) for x in t.types)
            return t if all(x is y for x, y in zip(types, t.types, strict=True)) else ir.TupleType(types)
        if isinstance(t, ir.ArrayType):
            size = t.size if isinstance(t.size, int) else self.expr(t.size)
            return t if size is t.size else ir.ArrayType(size, t.dtype)
        if not isinstance(t, ir.TileType):
            return t
        lay = t.layout
        new_lay = lay
        if lay is not None:
            stride = tuple(self.expr(x) for x in lay.stride)
            off = None if lay.start_offset is None else self.expr(lay.start_offset)
            same_stride = all(x is y for x, y in zip(stride, lay.stride, strict=True))
            if off is not lay.start_offset or not same_stride:
                new_lay = replace(lay, stride=stride, start_offset=off)
        vs = t.valid_shape
        new_vs = None if vs is None else tuple(self.expr(x) for x in vs)
        mr = t.memref
        new_mr = mr
        if mr is not None:
            off = self.expr(mr.byte_offset)
            idx = None if mr.slot_index is None else self.expr(mr.slot_index)
            if off is not mr.byte_offset or idx is not mr.slot_index:
                new_mr = ir.MemRef(mr.base, off, mr.size, mr.is_pinned, mr.slot_count, idx)
        vs_same = vs is None or all(x is y for x, y in zip(new_vs or (), vs, strict=True))
        if vs_same and new_mr is mr and new_lay is lay:
            return t
        return ir.TileType(t.shape, t.dtype, t.memory_space, new_mr, new_vs, new_lay)

    def binder(self, v: ir.Var) -> ir.Var:
        if self.fresh:
            nv = ir.Var(v.name_hint, self.type_(v.type), span=v.span)
            self.env[v.id] = nv
            return nv
        mapped = self.env.get(v.id)
        if isinstance(mapped, ir.Var):
            return mapped
        t = self.type_(v.type)
        if t is v.type:
            return v
        nv = v.retyped(t)
        self.env[v.id] = nv
        return nv

    # -- statements ----------------------------------------------------------------------

    def body(self, b: ir.SeqStmts) -> ir.SeqStmts:
        stmts = tuple(self.stmt(s) for s in b.stmts)
        return b if all(x is y for x, y in zip(stmts, b.stmts, strict=True)) else ir.SeqStmts(stmts)

    def stmt(self, s: ir.Stmt) -> ir.Stmt:
        if isinstance(s, ir.AssignStmt):
            value = self.call(s.value) if isinstance(s.value, ir.Call) else self.expr(s.value)
            var = self.binder(s.var)
            out = s if value is s.value and var is s.var else ir.AssignStmt(var, value, s.span)
            return self.assign_hook(out) if self.assign_hook is not None else out
        if isinstance(s, ir.EvalStmt):
            c = self.call(s.call)
            return s if c is s.call else ir.EvalStmt(c, s.span)
        if isinstance(s, ir.YieldStmt | ir.ReturnStmt):
            vals = tuple(self.expr(v) for v in s.values)
            if all(x is y for x, y in zip(vals, s.values, strict=True)):
                return s
            return type(s)(vals, s.span)
        if isinstance(s, ir.ForStmt):
            return self.for_(s)
        if isinstance(s, ir.WhileStmt):
            return self.while_(s)
        if isinstance(s, ir.ScopeStmt):
            body = self.body(s.body)
            return s if body is s.body else ir.ScopeStmt(s.manual, body, s.span)
        return self.if_(s)

    def while_(self, s: ir.WhileStmt) -> ir.WhileStmt:
        inits = [self.expr(it.init) for it in s.iter_args]
        ivars = [self.binder(it.var) for it in s.iter_args]
        cond = self.expr(s.cond)
        body = self.body(s.body)
        rvars = tuple(self.binder(v) for v in s.return_vars)
        iter_args = tuple(
            it if it.var is v and it.init is i else ir.IterArg(v, i)
            for it, v, i in zip(s.iter_args, ivars, inits, strict=True))
        same = (cond is s.cond and body is s.body
                and all(x is y for x, y in zip(iter_args, s.iter_args, strict=True))
                and all(x is y for x, y in zip(rvars, s.return_vars, strict=True)))
        return s if same else ir.WhileStmt(cond, iter_args, rvars, body, s.span)

    def for_(self, s: ir.ForStmt) -> ir.ForStmt:
        start, stop, step = self.expr(s.start), self.expr(s.stop), self.expr(s.step)
        inits = [self.expr(it.init) for it in s.iter_args]
        lv = self.binder(s.loop_var)
        ivars = [self.binder(it.var) for it in s.iter_args]
        body = self.body(s.body)
        rvars = tuple(self.binder(v) for v in s.return_vars)
        iter_args = tuple(
            it if it.var is v and it.init is i else ir.IterArg(v, i)
            for it, v, i in zip(s.iter_args, ivars, inits, strict=True))
        same = (start is s.start and stop is s.stop and step is s.step and lv is s.loop_var and body is s.body
                and all(x is y for x, y in zip(iter_args, s.iter_args, strict=True))
                and all(x is y for x, y in zip(rvars, s.return_vars, strict=True)))
        if same:
            return s
        return ir.ForStmt(s.kind, lv, start, stop, step, iter_args, rvars, body, s.attrs, s.span)

    def if_(self, s: ir.IfStmt) -> ir.IfStmt:
        cond = self.expr(s.cond)
        then = self.body(s.then_body)
        other = None if s.else_body is None else self.body(s.else_body)
        rvars = tuple(self.binder(v) for v in s.return_vars)
        if cond is s.cond and then is s.then_body and other is s.else_body and all(
                x is y for x, y in zip(rvars, s.return_vars, strict=True)):
            return s
        return ir.IfStmt(cond, then, other, rvars, s.span)


def emitted_as_kernel(fn: ir.Function) -> bool:
    """Whether pto-codegen compiles `fn` into a `func.func`: a kernel with a statement beyond
    its allocations, or a plain `@pl.function` that calls tile ops; orchestration, group,
    spmd, ... code, abstract functions and HOST SubWorkers (Python) pass through."""
    kinds = fn.type.is_kernel or fn.type is ir.FunctionType.OPAQUE
    if fn.abstract or fn.inline_body is not None or fn.role == "Orchestrator" or not kinds:
        return False
    body = False
    tile_ops = False
    for s in ir.walk_stmts(fn.body):
        call = s.call if isinstance(s, ir.EvalStmt) else s.value if isinstance(s, ir.AssignStmt) else None
        if not isinstance(call, ir.Call):
            continue
        body = body or isinstance(s, ir.EvalStmt) or call.op != "tile.alloc"
        tile_ops = tile_ops or (call.op.startswith("tile.") and call.op != "tile.alloc")
    return body and (fn.type is not ir.FunctionType.OPAQUE or tile_ops)
