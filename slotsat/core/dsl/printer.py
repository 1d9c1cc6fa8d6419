"""The DSL printer: `ir.Module` to canonical kernel source (`10-dsl.md` §9).

`parse_source(print_module(m))` is structurally equal to `m`, and printing is idempotent
through a reparse, for every IR in the parser's normal form (see `slotsat.core.dsl.parser`):
`tile.load` calls carry four positional arguments and `target_memory=`, a tile's
`valid_shape` is `None` when it equals the shape, a pinned MemRef has `byte_offset ==
ConstInt(0, INDEX)` and `size == 0`, pointer binders have type `PtrType(None)`, and loop
and if result types match what the parser derives from the yielded values.

Printing is total on that IR: a node outside the DSL (a yield in a non-final position, a
non-`tile.` op name, a non-finite float, ...) raises `AssertionError` naming the node.

An integer literal that does not fit its dtype (a bit pattern, `pl.const(2147483648,
pl.INT32)`) always prints as `pl.const`, and loop bounds print as written.

Names (§9.4): binders print their hints (the parser gives later bindings of a name hints
`NAME_<n>` that are unique in the function, so they print unchanged); a later binder whose
hint is already printed in the function gets `<hint>_<n>`, the smallest `n >= 1` not yet
printed. `pl`, `self` and the program's symbolic dimensions are reserved, except that a
`pl.Scalar[pl.INDEX]` parameter keeps the name of a dimension its function never reads
(the reference's parameter standing for that symbol). A loop variable hinted `_` prints as
`_`. Allocation names of pinned MemRefs are disambiguated the same way in their own namespace.
"""

from __future__ import annotations

import json
import keyword
import math
import re

from slotsat.core import ir, ops

# Python's precedence, lowest first (`or` < `and` < `not` < comparisons < `|` < `^` < `&` <
# shifts < `+ -` < `* / // %` < unary < `**` < atoms).
_PREC_OR = -3
_PREC_AND = -2
_PREC_NOT = -1
_PREC_CMP = 1
_PREC_BITOR = 10
_PREC_BITXOR = 11
_PREC_BITAND = 12
_PREC_SHIFT = 13
_PREC_ADD = 20
_PREC_MUL = 30
_PREC_UNARY = 40
_PREC_POW = 41
_PREC_ATOM = 50
_PREC: dict[type, int] = {ir.Add: _PREC_ADD, ir.Sub: _PREC_ADD, ir.Mul: _PREC_MUL, ir.FloorDiv: _PREC_MUL,
                          ir.FloorMod: _PREC_MUL}
_EXT_PREC: dict[str, int] = {
    "or": _PREC_OR, "and": _PREC_AND, "bitor": _PREC_BITOR, "bitxor": _PREC_BITXOR,
    "bitand": _PREC_BITAND, "shl": _PREC_SHIFT, "shr": _PREC_SHIFT, "truediv": _PREC_MUL, "pow": _PREC_POW,
    "min": _PREC_ATOM, "max": _PREC_ATOM,
}
_INDENT = "    "


def print_module(m: ir.Module) -> str:
    """The whole file: each program in its §9.1 layout, separated by one blank line."""
    if not m.programs:
        return "import pypto.language as pl\n"
    declared: set[str] = set()
    return "\n".join(print_program(p, declared) for p in m.programs)


def print_program(p: ir.Program, declared: set[str] | None = None) -> str:
    """One program. Its symbolic dimensions print first as `N = pl.dynamic("N")` (once per
    file: `declared` collects the names already printed by earlier programs)."""
    lines = [f"# pypto.program: {p.name}", "import pypto.language as pl", ""]
    dyn = dynamic_names(p)
    fresh = [dyn[v.id] for v in p.dynamic_vars if not ir.is_launch_symbol(v)
             and (declared is None or dyn[v.id] not in declared)]
    for name in sorted(fresh):
        lines.append(f"{name} = pl.dynamic({_string(name)})")
    if fresh:
        lines.append("")
    if declared is not None:
        declared.update(fresh)
    lines += ["@pl.program", f"class {p.name}:"]
    for i, fn in enumerate(p.functions):
        if i:
            lines.append("")
        lines.extend(_INDENT + line for line in _function_lines(fn, dyn))
    if not p.functions:
        lines.append(_INDENT + "pass")
    return "\n".join(lines) + "\n"


def _function_lines(fn: ir.Function, dyn: dict[int, str]) -> list[str]:
    """`fn`'s lines. A `pl.Scalar[pl.INDEX]` parameter named like a symbolic dimension that
    the function never reads otherwise keeps that name: that is how the reference prints a
    dimension it made a parameter (its parser binds the symbol to the parameter), and a
    suffixed name would not resolve in the annotations naming it."""
    printer = FunctionPrinter(dyn)
    lines = printer.function(fn)
    shadow = printer.collided - {dyn[k] for k in printer.dynamic_read}
    if not shadow:
        return lines
    return FunctionPrinter(dyn, shadow=frozenset(shadow)).function(fn)


def dynamic_names(p: ir.Program) -> dict[int, str]:
    """Printed names of a program's symbolic dimensions (unique, first come first served)."""
    namer = _Namer(("pl", "pld", "self"))
    return {v.id: v.name_hint if ir.is_launch_symbol(v) else namer.fresh(_sanitize(v.name_hint))
            for v in p.dynamic_vars}


def print_function(f: ir.Function) -> str:
    """One function (decorator, signature, body) at indentation 0."""
    return "\n".join(FunctionPrinter().function(f)) + "\n"


def print_expr(e: ir.Expr, names: dict[int, str] | None = None) -> str:
    """An expression in a standalone position (a bare literal reads back as INDEX).
    `names` maps binder ids to printed names; missing binders print their hints."""
    printer = FunctionPrinter()
    if names is not None:
        printer.names.update(names)
    return printer.expr(e)


def print_type(t: ir.Type, names: dict[int, str] | None = None) -> str:
    printer = FunctionPrinter()
    if names is not None:
        printer.names.update(names)
    return printer.type(t)


def _dtype(d: ir.DType) -> str:
    return f"pl.{d.value}"


def _sanitize(hint: str) -> str:
    name = re.sub(r"\W", "_", hint, flags=re.ASCII)
    if not name or name[0].isdigit():
        name = "v" + name
    if keyword.iskeyword(name):
        name += "_"
    return name


def _string(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def _kwarg_string(s: str) -> str:
    """A keyword's string value as the reference prints it (`mode='round'`, `name='buf'`):
    single-quoted, Python's own quoting where the text needs escapes."""
    return repr(s)


def _callee(op: str) -> str:
    """How a call's op prints: `pl.tile.load`, `pld.system.notify`, `pl.tile.and_`,
    `self.f`, `pl.submit`."""
    if op.startswith("self.") and op[5:].isidentifier():
        return op
    if op in ("submit", "spmd_submit"):
        return f"pl.{op}"
    parts = op.split(".")
    if len(parts) < 2 or not all(p.isidentifier() for p in parts) or (
            ops.reference(op) is None and ops.lookup(op) is None):
        raise AssertionError(f"unprintable call {op!r}: not an op the reference registers")
    if keyword.iskeyword(parts[-1]):
        parts[-1] += "_"
    return ".".join(parts) if parts[0] == "pld" else "pl." + ".".join(parts)


def _float(v: float) -> str:
    if not math.isfinite(v):
        raise AssertionError(f"unprintable non-finite float literal {v!r}")
    return repr(v)


class _Namer:
    """One printed namespace: hints to unique names, first come first served."""

    def __init__(self, reserved: tuple[str, ...] = ()) -> None:
        self.used: set[str] = set(reserved)
        self.next: dict[str, int] = {}

    def fresh(self, hint: str) -> str:
        if hint not in self.used:
            self.used.add(hint)
            return hint
        n = self.next.get(hint, 1)
        while f"{hint}_{n}" in self.used:
            n += 1
        self.next[hint] = n + 1
        name = f"{hint}_{n}"
        self.used.add(name)
        return name


class FunctionPrinter:
    """Prints one function. After `function(f)` every binder of `f` has its printed name,
    so `name`, `type`, `memref` and `expr` print fragments consistently with the text
    (`slotsat parse --json` uses this)."""

    def __init__(self, dynamic: dict[int, str] | None = None, *,
                 shadow: frozenset[str] = frozenset()) -> None:
        """`dynamic`: the printed names of the program's symbolic dimensions, reserved in the
        function except those in `shadow` (dimensions it does not read, whose names its own
        binders may take)."""
        self.names: dict[int, str] = dict(dynamic or {})
        self.dynamic = dict(dynamic or {})
        self.vars = _Namer(("pl", "pld", "self", *(n for n in self.dynamic.values() if n not in shadow)))
        self.allocs = _Namer()
        self.alloc_names: dict[int, str] = {}
        self.dynamic_read: set[int] = set()
        """The symbolic dimensions the printed text names."""
        self.collided: set[str] = set()
        """Names of symbolic dimensions a `pl.Scalar[pl.INDEX]` parameter's hint asked for (it
        gets the name only when shadowing them is allowed)."""

    # -- names

    def bind(self, v: ir.Var, *, param: bool = False) -> str:
        name = self.names.get(v.id)
        if name is None:
            hint = _sanitize(v.name_hint)
            if param and hint in self.dynamic.values() and v.type == ir.ScalarType(ir.DType.INDEX):
                self.collided.add(hint)
            name = self.names[v.id] = self.vars.fresh(hint)
        elif v.id in self.dynamic:
            self.dynamic_read.add(v.id)
        return name

    def bind_loop_var(self, v: ir.Var) -> str:
        if v.name_hint == "_" and v.id not in self.names:
            self.names[v.id] = "_"
            return "_"
        return self.bind(v)

    def name(self, v: ir.Var) -> str:
        return self.bind(v)

    def alloc_name(self, base: ir.Var) -> str:
        name = self.alloc_names.get(base.id)
        if name is None:
            name = self.alloc_names[base.id] = self.allocs.fresh(base.name_hint)
        return name

    # -- expressions

    def expr(self, e: ir.Expr, sibling: ir.Expr | None = None, standalone: bool = True) -> str:
        """Print `e`; `sibling` is the other operand when `e` is an operand of a binary op."""
        if isinstance(e, ir.ConstInt):
            return self.int_literal(e, sibling, standalone)
        if isinstance(e, ir.ConstFloat):
            if e.dtype is ir.DType.FP32 and sibling is None:
                return _float(e.value)
            return f"pl.const({_float(e.value)}, {_dtype(e.dtype)})"
        if isinstance(e, ir.Var):
            return self.name(e)
        if isinstance(e, ir.Cast):
            return f"pl.cast({self.expr(e.a)}, {_dtype(e.dtype)})"
        if isinstance(e, ir.Cmp):
            return (f"{self.operand(e.a, e.b, _PREC_CMP + 1)} {e.op.value} "
                    f"{self.operand(e.b, e.a, _PREC_CMP + 1)}")
        if isinstance(e, ir.Add | ir.Sub | ir.Mul | ir.FloorDiv | ir.FloorMod):
            prec = _PREC[type(e)]
            symbol = ir.BINOP_SYMBOL[type(e)]
            return f"{self.operand(e.a, e.b, prec)} {symbol} {self.operand(e.b, e.a, prec + 1)}"
        if isinstance(e, ir.ScalarBinary):
            if e.op in ("min", "max"):
                a, b = self.expr(e.a, e.b, standalone=False), self.expr(e.b, e.a, standalone=False)
                return f"pl.{e.op}({a}, {b})"
            prec = _EXT_PREC[e.op]
            symbol = ir.BINARY_OPS[e.op]
            right = prec if e.op == "pow" else prec + 1  # `**` is right-associative
            left = prec + 1 if e.op == "pow" else prec
            return f"{self.operand(e.a, e.b, left)} {symbol} {self.operand(e.b, e.a, right)}"
        if isinstance(e, ir.ScalarUnary):
            if e.op == "abs":
                return f"abs({self.expr(e.a)})"
            text = self.operand(e.a, e.a, _PREC_UNARY if e.op != "not" else _PREC_NOT)
            return {"neg": "-", "not": "not ", "bitnot": "~"}[e.op] + text
        if isinstance(e, ir.TupleGetItem):
            return f"{self.operand(e.tuple_value, e.tuple_value, _PREC_ATOM)}[{e.index}]"
        raise AssertionError(f"unprintable expression {e!r}")

    def operand(self, e: ir.Expr, sibling: ir.Expr, min_prec: int) -> str:
        text = self.expr(e, sibling, standalone=False)
        if _prec(e) < min_prec:
            return f"({text})"
        return text

    def int_literal(self, e: ir.ConstInt, sibling: ir.Expr | None, standalone: bool) -> str:
        if e.dtype.is_int and not e.dtype.fits(e.value):
            return f"pl.const({e.value}, {_dtype(e.dtype)})"  # a bit pattern (§7.2); bare would not parse
        if standalone or sibling is None:
            bare = e.dtype is ir.DType.INDEX
        elif isinstance(sibling, ir.ConstInt | ir.ConstFloat):
            bare = False  # both literals: both explicit, so a folding parser reads the same tree
        else:
            bare = e.dtype is ir.expr_dtype(sibling)
        if bare:
            return str(e.value)
        return f"pl.const({e.value}, {_dtype(e.dtype)})"

    def call_arg(self, a: ir.CallArg) -> str:
        if isinstance(a, ir.ExprList):
            return "[" + ", ".join(self.expr(x) for x in a.items) + "]"
        if isinstance(a, ir.ArgList):
            return "[" + ", ".join(self.call_arg(x) for x in a.items) + "]"
        if isinstance(a, ir.SpaceArg):
            return f"pl.Mem.{a.space.value}"
        if isinstance(a, ir.DTypeArg):
            return _dtype(a.dtype)
        if isinstance(a, ir.StrArg):
            return _string(a.value)
        if isinstance(a, ir.EnumArg):
            return f"{a.enum}.{a.member}"
        if isinstance(a, ir.FuncRef):
            return f"self.{a.name}"
        if isinstance(a, ir.ConstInt) and a.dtype is ir.DType.BOOL and a.value in (0, 1):
            return "True" if a.value else "False"
        return self.expr(a)

    def call(self, c: ir.Call) -> str:
        parts = [self.call_arg(a) for a in c.args]
        parts += [f"{k}={_kwarg_string(v.value) if isinstance(v, ir.StrArg) else self.call_arg(v)}"
                  for k, v in c.kwargs]
        if c.attrs:
            parts.append(f"attrs={self.attrs(c.attrs)}")
        return f"{_callee(c.op)}({', '.join(parts)})"

    def attrs(self, attrs: tuple[tuple[str, ir.AttrValue], ...]) -> str:
        items = []
        for k, v in attrs:
            if isinstance(v, bool):
                text = "True" if v else "False"
            elif isinstance(v, int):
                text = str(v)
            elif isinstance(v, float):
                text = _float(v)
            elif isinstance(v, str):
                text = _string(v)
            else:
                text = self.call_arg(v)
            items.append(f"{_string(k)}: {text}")
        return "{" + ", ".join(items) + "}"

    # -- types

    def type(self, t: ir.Type) -> str:
        if isinstance(t, ir.ScalarType):
            return f"pl.Scalar[{_dtype(t.dtype)}]"
        if isinstance(t, ir.TensorType):
            head = "pld.DistributedTensor" if t.distributed else "pl.Tensor"
            parts = [f"[{', '.join(self.dim(d) for d in t.shape)}]", _dtype(t.dtype)]
            if t.view is not None:
                parts.append(self.tensor_view(t.view))
            inner = f"{head}[{', '.join(parts)}]"
            if t.is_out:
                return f"pl.Out[{inner}]"
            return f"pl.InOut[{inner}]" if t.is_inout else inner
        if isinstance(t, ir.PtrType):
            return "pl.Ptr"
        if isinstance(t, ir.TupleType):
            return "pl.Tuple[()]" if not t.types else f"pl.Tuple[{', '.join(self.type(x) for x in t.types)}]"
        if isinstance(t, ir.ArrayType):
            return f"pl.Array[{self.dim(t.size)}, {_dtype(t.dtype)}]"
        if isinstance(t, ir.OpaqueType):
            return t.spelling
        parts = [f"[{', '.join(map(str, t.shape))}]", _dtype(t.dtype)]
        if t.memref is not None:
            parts.append(self.memref(t.memref))
        if t.memory_space is not None:
            parts.append(f"pl.Mem.{t.memory_space.value}")
        view: list[str] = []
        if t.valid_shape is not None and not _is_full(t.shape, t.valid_shape):
            view.append(f"valid_shape=[{', '.join(self.expr(e) for e in t.valid_shape)}]")
        if t.layout is not None:
            view += self.layout_fields(t.layout)
        if view:
            parts.append(f"pl.TileView({', '.join(view)})")
        return f"pl.Tile[{', '.join(parts)}]"

    def dim(self, d: int | ir.Expr) -> str:
        """A type's dimension. An INT64 value cast to INDEX prints bare, as the reference prints
        it (`[pld.system.world_size(), 1]`); the reader casts it back (`TypeReader.dim`)."""
        if isinstance(d, ir.Cast) and d.dtype is ir.DType.INDEX and ir.expr_dtype(d.a) is ir.DType.INT64:
            return self.expr(d.a)
        return str(d) if isinstance(d, int) else self.expr(d)

    def layout_fields(self, v: ir.TileLayoutView) -> list[str]:
        out: list[str] = []
        if v.stride:
            out.append(f"stride=[{', '.join(self.expr(e) for e in v.stride)}]")
        if v.start_offset is not None:
            out.append(f"start_offset={self.expr(v.start_offset)}")
        for name, enum in (("blayout", "pl.TileLayout"), ("slayout", "pl.TileLayout")):
            value = getattr(v, name)
            if value is not None:
                out.append(f"{name}={enum}.{value}")
        if v.fractal is not None:
            out.append(f"fractal={v.fractal}")
        if v.pad is not None:
            out.append(f"pad=pl.PadValue.{v.pad}")
        if v.compact is not None:
            out.append(f"compact=pl.CompactMode.{v.compact}")
        return out

    def tensor_view(self, v: ir.TensorView) -> str:
        parts: list[str] = []
        if v.valid_shape:
            parts.append(f"valid_shape=[{', '.join(self.expr(e) for e in v.valid_shape)}]")
        parts.append(f"stride=[{', '.join(self.expr(e) for e in v.stride)}]")
        parts.append(f"layout=pl.TensorLayout.{v.layout}")
        if v.pad is not None:
            parts.append(f"pad=pl.PadValue.{v.pad}")
        return f"pl.TensorView({', '.join(parts)})"

    def memref(self, m: ir.MemRef) -> str:
        slots = f", slots={m.slot_count}" if m.slot_count > 1 else ""
        index = "" if m.slot_index is None else f"[{self.expr(m.slot_index)}]"
        if m.is_pinned:
            if m.byte_offset != ir.ConstInt(0, ir.DType.INDEX) or m.size != 0:
                raise AssertionError(f"unprintable pinned MemRef with an offset or size: {m!r}")
            return f"pl.MemRef({_string(self.alloc_name(m.base))}{slots}){index}"
        return f"pl.MemRef({self.name(m.base)}, {self.expr(m.byte_offset)}, {m.size}{slots}){index}"

    # -- statements

    def function(self, f: ir.Function) -> list[str]:
        keywords: list[str] = []
        if f.type is not ir.FunctionType.OPAQUE:
            keywords.append(f"type=pl.FunctionType.{f.type.value}")
        if f.level is not None:
            keywords.append(f"level=pl.Level.{f.level}")
        if f.role is not None:
            keywords.append(f"role=pl.Role.{f.role}")
        if not f.auto_scope:
            keywords.append("auto_scope=False")
        if f.external_source is not None:
            keywords.append(f"external_source={_string(f.external_source)}")
        deco = f"@pl.function({', '.join(keywords)})" if keywords else "@pl.function"
        params = [] if f.role == "SubWorker" else ["self"]
        params += [f"{self.bind(p, param=True)}: {self.type(p.type)}" for p in f.params]
        if not f.return_types:
            ret = ""
        elif len(f.return_types) == 1:
            ret = f" -> {self.type(f.return_types[0])}"
        else:
            ret = f" -> tuple[{', '.join(self.type(t) for t in f.return_types)}]"
        lines = [deco, f"def {f.name}({', '.join(params)}){ret}:"]
        if f.attrs:
            lines.append(f"{_INDENT}pl.func_attr({self.attrs(f.attrs)})")
        if f.inline_body is not None:
            lines.extend(_INDENT + line if line else line for line in f.inline_body.split("\n"))
            return lines
        if f.abstract:
            if f.body.stmts:
                raise AssertionError(f"unprintable abstract function '{f.name}' with a body")
            lines.append(f"{_INDENT}...")
            return lines
        if not f.body.stmts and f.attrs:
            lines.append(f"{_INDENT}pass")
            return lines
        self.body(f.body, (), 1, lines, returns=True)
        return lines

    def body(self, body: ir.SeqStmts, results: tuple[ir.Var, ...] | None, depth: int, out: list[str],
             returns: bool = False) -> None:
        """Print a block; `results` are the binders a final yield defines (None: no yield allowed).
        A return may end the function body or (`returns`) an `if` branch or a scope's body."""
        if not body.stmts:
            out.append(_INDENT * depth + "pass")
            return
        last = len(body.stmts) - 1
        for i, stmt in enumerate(body.stmts):
            if isinstance(stmt, ir.YieldStmt):
                if i != last or not results:
                    raise AssertionError(f"unprintable yield (not final, or nothing to bind): {stmt!r}")
                out.append(_INDENT * depth + self.yield_stmt(stmt, results))
            elif isinstance(stmt, ir.ReturnStmt) and (i != last or not returns):
                raise AssertionError(f"unprintable return (not final in the function or a branch): {stmt!r}")
            elif isinstance(stmt, ir.IfStmt):
                self.if_stmt(stmt, depth, out, returns=returns and i == last)
            elif isinstance(stmt, ir.ScopeStmt):
                self.scope_stmt(stmt, depth, out, returns=returns and i == last)
            else:
                self.stmt(stmt, depth, out)

    def yield_stmt(self, y: ir.YieldStmt, results: tuple[ir.Var, ...]) -> str:
        if len(results) != len(y.values):
            raise AssertionError(f"unprintable yield: {len(y.values)} values for {len(results)} results")
        values = ", ".join(self.yield_value(v) for v in y.values)
        if len(results) == 1:
            r = results[0]
            return f"{self.bind(r)}: {self.type(r.type)} = pl.yield_({values})"
        return f"{', '.join(self.bind(r) for r in results)} = pl.yield_({values})"

    def yield_value(self, v: ir.Expr) -> str:
        return self.expr(v)

    def stmt(self, s: ir.Stmt, depth: int, out: list[str]) -> None:
        pad = _INDENT * depth
        if isinstance(s, ir.AssignStmt):
            value = self.call(s.value) if isinstance(s.value, ir.Call) else self.expr(s.value)
            out.append(f"{pad}{self.bind(s.var)}: {self.type(s.var.type)} = {value}")
        elif isinstance(s, ir.EvalStmt):
            out.append(pad + self.call(s.call))
        elif isinstance(s, ir.ForStmt):
            self.for_stmt(s, depth, out)
        elif isinstance(s, ir.IfStmt):
            self.if_stmt(s, depth, out)
        elif isinstance(s, ir.WhileStmt):
            self.while_stmt(s, depth, out)
        elif isinstance(s, ir.ScopeStmt):
            self.scope_stmt(s, depth, out)
        elif isinstance(s, ir.ReturnStmt):
            values = ", ".join(self.expr(v) for v in s.values)
            out.append(f"{pad}return {values}" if values else f"{pad}return")
        else:
            raise AssertionError(f"unprintable statement {s!r}")

    def scope_stmt(self, s: ir.ScopeStmt, depth: int, out: list[str], returns: bool = False) -> None:
        mode = "mode=pl.ScopeMode.MANUAL" if s.manual else ""
        out.append(f"{_INDENT * depth}with pl.scope({mode}):")
        self.body(s.body, None, depth + 1, out, returns=returns)

    def for_stmt(self, s: ir.ForStmt, depth: int, out: list[str]) -> None:
        start, step = _written_index(s.start), _written_index(s.step)
        if start == 0 and step == 1:
            args = [self.expr(s.stop)]
        elif step == 1:
            args = [self.expr(s.start), self.expr(s.stop)]
        else:
            args = [self.expr(s.start), self.expr(s.stop), self.expr(s.step)]
        if s.kind is ir.ForKind.PIPELINE:
            args.append(f"stage={s.stages}")
        if s.iter_args:
            inits = [self.expr(a.init) for a in s.iter_args]
            args.append(f"init_values=({', '.join(inits)}{',' if len(inits) == 1 else ''})")
        if s.other_attrs:
            args.append(f"attrs={self.attrs(s.other_attrs)}")
        target = self.bind_loop_var(s.loop_var)
        if s.iter_args:
            carried = [self.bind(a.var) for a in s.iter_args]
            target += f", ({', '.join(carried)}{',' if len(carried) == 1 else ''})"
        func = _LOOP_FUNCS[s.kind]
        out.append(f"{_INDENT * depth}for {target} in {func}({', '.join(args)}):")
        if len(s.return_vars) != len(s.iter_args):
            raise AssertionError(f"unprintable loop: {len(s.iter_args)} carried values, "
                                 f"{len(s.return_vars)} results")
        if s.iter_args and not (s.body.stmts and isinstance(s.body.stmts[-1], ir.YieldStmt)):
            raise AssertionError("unprintable loop: carried values without a final yield")
        self.body(s.body, s.return_vars, depth + 1, out)

    def if_stmt(self, s: ir.IfStmt, depth: int, out: list[str], returns: bool = False) -> None:
        pad = _INDENT * depth
        if s.return_vars:
            for branch in (s.then_body, s.else_body):
                if branch is None or not branch.stmts or not isinstance(branch.stmts[-1], ir.YieldStmt):
                    raise AssertionError("unprintable if: results without a yield in both branches")
        out.append(f"{pad}if {self.expr(s.cond)}:")
        self.body(s.then_body, s.return_vars, depth + 1, out, returns=returns)
        if s.else_body is not None:
            out.append(f"{pad}else:")
            self.body(s.else_body, s.return_vars, depth + 1, out, returns=returns)

    def while_stmt(self, s: ir.WhileStmt, depth: int, out: list[str]) -> None:
        pad = _INDENT * depth
        if len(s.return_vars) != len(s.iter_args):
            raise AssertionError(f"unprintable while: {len(s.iter_args)} carried values, "
                                 f"{len(s.return_vars)} results")
        if not s.iter_args:
            out.append(f"{pad}while {self.expr(s.cond)}:")
            self.body(s.body, None, depth + 1, out)
            return
        inits = [self.expr(a.init) for a in s.iter_args]
        carried = [self.bind(a.var) for a in s.iter_args]
        one = "," if len(carried) == 1 else ""
        loop = f"for ({', '.join(carried)}{one}) in pl.while_(init_values=({', '.join(inits)}{one})):"
        out.append(pad + loop)
        out.append(f"{pad}{_INDENT}pl.cond({self.expr(s.cond)})")
        if not (s.body.stmts and isinstance(s.body.stmts[-1], ir.YieldStmt)):
            raise AssertionError("unprintable while: carried values without a final yield")
        self.body(s.body, s.return_vars, depth + 1, out)


_LOOP_FUNCS: dict[ir.ForKind, str] = {
    ir.ForKind.SEQUENTIAL: "pl.range", ir.ForKind.PIPELINE: "pl.pipeline", ir.ForKind.PARALLEL: "pl.parallel",
    ir.ForKind.UNROLL: "pl.unroll",
}


def _written_index(e: ir.Expr) -> int | None:
    """The value an INDEX literal is written with (not its bit pattern's: `pl.const(2**64,
    pl.INDEX)` denotes 0 but must print as written)."""
    return e.value if isinstance(e, ir.ConstInt) and e.dtype is ir.DType.INDEX else None


def _prec(e: ir.Expr) -> int:
    if isinstance(e, ir.Cmp):
        return _PREC_CMP
    if isinstance(e, ir.ScalarBinary):
        return _EXT_PREC[e.op]
    if isinstance(e, ir.ScalarUnary):
        return {"not": _PREC_NOT, "abs": _PREC_ATOM}.get(e.op, _PREC_UNARY)
    if isinstance(e, ir.ConstInt | ir.ConstFloat) and e.value < 0:
        return _PREC_UNARY  # `-3` binds like a unary minus (`(-3) ** 2`, `-(x)`)
    prec = _PREC.get(type(e))
    if prec is not None:
        return prec
    return _PREC_ATOM


def _is_full(shape: tuple[int, ...], valid: tuple[ir.Expr, ...]) -> bool:
    return len(valid) == len(shape) and all(
        isinstance(v, ir.ConstInt) and v.dtype is ir.DType.INDEX and v.value == d
        for v, d in zip(valid, shape, strict=True))
