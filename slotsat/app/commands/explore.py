"""`slotsat explore`: every form the e-graph reaches for index expressions
(`60-egraph-engine.md` §9.4), in two forms:

- `slotsat explore EXPR --loop i=START:STOP:STEP ...`: one expression. For each form: its
  emitted op count, whether non-negativity of its dividend (or value) is proven and by which
  ruleset (`syntactic` / `interval`), whether the matcher model accepts it as a slot operand,
  and which one extraction picked; then the emitted `arith` lines of the picked form.
  `STOP` (and `START`) may be `?` (a runtime value). With `--json` the output is
  `{"expr", "forms": [{"form", "ops", "nonneg", "matcher_accepts", "picked"}], "emitted": [...]}`.
- `slotsat explore FILE [--function F]`: every slot operand and integer expression codegen
  lowers for the kernel file (after the slots pass, replication and init-memref, as codegen
  reads them), numbered, each with its line, what it is, the expression, its loops and the
  forms as above, the picked one marked. All of a function's expressions share one e-graph.
  `--json` prints `{"file", "functions": [{"name", "expressions": [{"id", "line", "kind",
  "expr", "slots", "loops": [{"iv", "start", "stop", "step"}], "forms": [...],
  "picked"}]}]}`.

`--dot OUT.dot|OUT.svg` draws the e-classes of one expression (FILE: the one `--select N`
numbers, default 1) with the picked form's nodes highlighted; `.svg` needs graphviz's `dot`
program. A FILE argument is a path to an existing file or one ending in `.py`; anything
else is an EXPR. The FILE path (`run_file`) never touches the EXPR parser below.

EXPR is Python-like: integers, names (loop variables are `INDEX`; every other name has
`--dtype`), `+ - * // %`, `pl.cast(E, pl.INT32)` and `pl.const(V, pl.INT32)`. A bare
literal takes the dtype of the other operand, as in the DSL (`10-dsl.md` §7.1).
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from slotsat.app.commands import UsageError, add_backend, add_compat, add_mode, add_planner
from slotsat.core import ir
from slotsat.core.errors import EXIT_OK, SlotsatError, Span

if TYPE_CHECKING:
    from slotsat.egraph_rules.engine import FormInfo

_DTYPES = {
    "index": ir.DType.INDEX,
    "int32": ir.DType.INT32,
    "int64": ir.DType.INT64,
    "int16": ir.DType.INT16,
    "int8": ir.DType.INT8,
    "uint32": ir.DType.UINT32,
    "uint64": ir.DType.UINT64,
}


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "expr", metavar="EXPR|FILE", help="an index expression, e.g. '(i + 3) %% 4', or a kernel file"
    )
    parser.add_argument("--function", default=None, metavar="F", help="FILE: only function F")
    parser.add_argument(
        "--dot", default=None, metavar="OUT.dot|OUT.svg", help="draw the e-classes of one expression"
    )
    parser.add_argument(
        "--select", type=int, default=1, metavar="N", help="FILE: the expression --dot draws (default 1)"
    )
    parser.add_argument(
        "--loop",
        action="append",
        default=[],
        metavar="i=START:STOP[:STEP]",
        help="an enclosing loop; STOP (or START) may be '?' for a runtime value",
    )
    parser.add_argument(
        "--dtype",
        choices=sorted(_DTYPES),
        default="index",
        help="dtype of names that are not loop variables (default index)",
    )
    parser.add_argument(
        "--slots",
        type=int,
        default=None,
        metavar="F",
        help="treat EXPR as the slot operand of an F-slot region",
    )
    add_mode(parser)
    add_planner(parser)
    add_backend(parser)
    add_compat(parser)
    parser.add_argument("--json", action="store_true", help="print JSON")


@dataclass
class _Scope:
    dtype: ir.DType
    loops: dict[str, ir.Var] = field(default_factory=dict)
    names: dict[str, ir.Var] = field(default_factory=dict)

    def var(self, name: str) -> ir.Var:
        if name in self.loops:
            return self.loops[name]
        if name not in self.names:
            self.names[name] = ir.Var(name, ir.ScalarType(self.dtype))
        return self.names[name]


def _error(message: str, node: ast.AST | None = None) -> SlotsatError:
    col = getattr(node, "col_offset", 0) + 1
    return SlotsatError(message, Span(1, col), file="<expr>")


def _dtype_attr(node: ast.AST) -> ir.DType:
    if isinstance(node, ast.Attribute) and node.attr in ir.DType.__members__:
        return ir.DType[node.attr]
    raise _error("expected a dtype such as pl.INT32", node)


_BINOPS: dict[type, type] = {
    ast.Add: ir.Add,
    ast.Sub: ir.Sub,
    ast.Mult: ir.Mul,
    ast.FloorDiv: ir.FloorDiv,
    ast.Mod: ir.FloorMod,
}


def _literal(node: ast.AST) -> int | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _literal(node.operand)
        return -inner if inner is not None else None
    return None


def parse_expr(text: str, scope: _Scope) -> ir.Expr:
    """EXPR as an IR expression (see the module docstring)."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as err:
        raise SlotsatError(
            f"cannot parse the expression: {err.msg}", Span(1, err.offset or 1), file="<expr>"
        ) from None
    return _convert(tree.body, scope, None)


def _convert(node: ast.AST, scope: _Scope, hint: ir.DType | None) -> ir.Expr:
    value = _literal(node)
    if value is not None:
        return ir.ConstInt(value, hint if hint is not None else ir.DType.INDEX)
    if isinstance(node, ast.Name):
        return scope.var(node.id)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        left_lit, right_lit = _literal(node.left), _literal(node.right)
        if left_lit is not None and right_lit is None:
            b = _convert(node.right, scope, hint)
            a = _convert(node.left, scope, ir.expr_dtype(b))
        else:
            a = _convert(node.left, scope, hint)
            b = _convert(node.right, scope, ir.expr_dtype(a))
        da, db = ir.expr_dtype(a), ir.expr_dtype(b)
        if da is not db:
            raise _error(f"operands have different dtypes ({da.name} and {db.name}); use pl.cast", node)
        return _BINOPS[type(node.op)](a, b, da)  # type: ignore[no-any-return]
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("cast", "const")
    ):
        if len(node.args) != 2:
            raise _error(f"pl.{node.func.attr} takes two arguments", node)
        dtype = _dtype_attr(node.args[1])
        if node.func.attr == "const":
            lit = _literal(node.args[0])
            if lit is None:
                raise _error("pl.const needs an integer literal", node)
            return ir.ConstInt(lit, dtype)
        return ir.Cast(_convert(node.args[0], scope, None), dtype)
    raise _error("unsupported expression (integers, names, + - * // %, pl.cast, pl.const)", node)


def _bound(text: str, name: str, which: str, scope: _Scope) -> ir.Expr:
    if text.strip() == "?":
        return scope.var(f"{name}_{which}")
    try:
        return ir.ConstInt(int(text), ir.DType.INDEX)
    except ValueError:
        raise UsageError(f"--loop {name}: {which} must be an integer or '?', got {text!r}") from None


def parse_loops(specs: list[str], scope: _Scope) -> list[tuple[ir.Var, ir.Expr, ir.Expr, ir.Expr]]:
    loops = []
    for spec in specs:
        name, sep, rest = spec.partition("=")
        parts = rest.split(":")
        if not sep or not name.isidentifier() or len(parts) not in (2, 3):
            raise UsageError(f"--loop expects NAME=START:STOP[:STEP], got {spec!r}")
        var = ir.Var(name, ir.ScalarType(ir.DType.INDEX))
        scope.loops[name] = var
        start = _bound(parts[0], name, "start", scope)
        stop = _bound(parts[1], name, "stop", scope)
        step = _bound(parts[2], name, "step", scope) if len(parts) == 3 else ir.ConstInt(1, ir.DType.INDEX)
        loops.append((var, start, stop, step))
    return loops


def _check_casts(e: ir.Expr) -> None:
    """The DSL's subset (`10-dsl.md` §7): no `pl.cast` between signed and unsigned dtypes."""
    for child in ir.expr_children(e):
        _check_casts(child)
    if isinstance(e, ir.Cast):
        src = ir.expr_dtype(e.a)
        if src.is_int and e.dtype.is_int and src.is_signed != e.dtype.is_signed:
            raise SlotsatError(
                "pl.cast between signed and unsigned dtypes is outside the subset "
                f"(pl.{src.value} to pl.{e.dtype.value})",
                Span(1, 1),
                file="<expr>",
            )


def is_file_argument(text: str) -> bool:
    """A FILE argument: an existing file, or a path ending in `.py` (read errors are reported)."""
    return text.endswith(".py") or Path(text).is_file()


def run(args: argparse.Namespace) -> int:
    if is_file_argument(args.expr):
        from slotsat.app.commands.explore_file import run_file

        return run_file(args)
    return run_expr(args)


def run_expr(args: argparse.Namespace) -> int:
    from slotsat.core.options import Mode
    from slotsat.egraph_rules.engine import IndexEngine
    from slotsat.egraph_rules.loops import LoopInfo
    from slotsat.lowering.floor_lowering import SimpleNamer, render

    scope = _Scope(_DTYPES[args.dtype])
    loops = parse_loops(args.loop, scope)
    expr = parse_expr(args.expr, scope)
    _check_casts(expr)
    engine = IndexEngine(Mode(args.mode))
    for var, start, stop, step in loops:
        engine.add_loop(LoopInfo(var, start, stop, step))
    root = engine.add_root(expr, slots=args.slots)
    report = engine.saturate().report
    forms = engine.forms(root)
    picked = next(f for f in forms if f.picked)
    namer = SimpleNamer()
    lines, _ = render(picked.term, namer)
    emitted = namer.constant_lines() + lines
    if args.dot is not None:
        from slotsat.app.commands.explore_file import write_dot

        write_dot(engine, root, args.dot, f"{args.expr}  (picked: {picked.form})")
    if args.json:
        print(
            json.dumps(
                {"expr": args.expr, "forms": [form_json(f) for f in forms], "emitted": emitted},
                indent=2,
            )
        )
    else:
        slots = f"slots={args.slots}" if args.slots is not None else "not a slot operand"
        print(f"expr: {args.expr}   ({slots}, mode {args.mode})")
        print(
            f"saturation: {report.iterations} rounds, {report.nodes} rows, {report.seconds * 1000:.1f} ms"
            + (f", LIMIT HIT: {report.limit_hit}" if report.limit_hit else "")
        )
        print("forms:")
        for line in form_lines(forms):
            print(f"  {line}")
        print("emitted:")
        for line in emitted:
            print(f"  {line}")
    if report.limit_hit:
        print(
            f"slotsat: warning: e-graph limit hit ({report.limit_hit}); kept the best proven form",
            file=sys.stderr,
        )
    return EXIT_OK


def form_json(f: FormInfo) -> dict[str, object]:
    return {"form": f.form, "ops": f.ops, "nonneg": f.nonneg, "matcher_accepts": f.matcher_accepts,
            "picked": f.picked}


def form_lines(forms: list[FormInfo]) -> list[str]:
    """One line per form, the picked one marked `*`."""
    width = max(len(f.form) for f in forms)
    out = []
    for f in forms:
        mark = "*" if f.picked else " "
        matcher = f.matcher_class + (" (accepted)" if f.matcher_accepts else "")
        out.append(f"{mark} {f.form:<{width}}  ops={f.ops:<2} nonneg={f.nonneg or '-':<9} matcher={matcher}")
    return out
