"""`slotsat explore`: every form the e-graph reaches for index expressions
(`60-egraph-engine.md` §9.4), in two forms:

- `slotsat explore EXPR --loop i=START:STOP:STEP ...`: one expression. For each form: its
  emitted op count, whether non-negativity of its dividend (or value) is proven and by which
  ruleset (`syntactic` / `interval`), whether the matcher model accepts it as a slot operand,
  and which one extraction picked; then the emitted `arith` lines of the picked form.
  `STOP` (and `START`) may be `?` (a runtime value). With `--json` the output is
  `{"expr", "forms": [{"form", "ops", "nonneg", "matcher_accepts", "picked"}], "emitted": [...]}`.
- `slotsat explore FILE [--function F] [--via-pypto ...]`: every slot operand and integer expression codegen
  lowers for the kernel file (after the slots pass, replication and init-memref, as codegen
  reads them), numbered, each with its line, what it is, the expression, its loops and the
  forms as above, the picked one marked. All of a function's expressions share one e-graph.
  `--json` prints `{"file", "functions": [{"name", "expressions": [{"id", "line", "kind",
  "expr", "slots", "loops": [{"iv", "start", "stop", "step"}], "forms": [...],
  "picked"}]}]}`. With `--via-pypto` (and `--specialize`, `--from-main`, `--kernel`, as on
  `codegen`) FILE goes through PyPTO to its hand-off IR first.

`--dot OUT.dot|OUT.svg` draws the e-classes of one expression (FILE: the one `--select N`
numbers, default 1) with the picked form's nodes highlighted; `.svg` needs graphviz's `dot`
program. A FILE argument is a path to an existing file or one ending in `.py`; anything
else is an EXPR. The FILE path (`run_file`) never touches the EXPR parser below.

EXPR is read by the DSL's own expression parser (`slotsat.core.dsl.parse_expression`), so
its syntax, dtype rules, literal ranges, nesting limit and errors are the kernels': integers,
names (loop variables are `INDEX`; every other name has `--dtype`), `+ - * // %`,
`pl.cast(E, pl.INT32)` and `pl.const(V, pl.INT32)`. A bare literal takes the dtype of the
other operand (`10-dsl.md` §7.1). `--slots` is a positive slot count.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from slotsat.app.commands import UsageError, add_backend, add_compat, add_mode, add_planner, add_pypto_options
from slotsat.app.commands.explore_forms import form_json, form_lines
from slotsat.core import ir
from slotsat.core.dsl import parse_expression
from slotsat.core.dsl.parser import fits_message
from slotsat.core.dsl.printer import print_expr
from slotsat.core.errors import EXIT_OK, SlotsatError, Span

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
        type=_slot_count,
        default=None,
        metavar="F",
        help="treat EXPR as the slot operand of an F-slot region",
    )
    add_mode(parser)
    add_planner(parser)
    add_backend(parser)
    add_compat(parser)
    add_pypto_options(parser)
    parser.add_argument("--json", action="store_true", help="print JSON")


def _slot_count(text: str) -> int:
    """`--slots F`: a region holds at least one slot (argparse reports the error, exit 2)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive slot count, got {value}")
    return value


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


def parse_expr(text: str, scope: _Scope) -> ir.Expr:
    """EXPR as an IR expression, read by the DSL's own expression parser (`10-dsl.md` §7:
    its syntax, dtype rules, literal ranges, nesting limit and errors); an integer index
    expression (no comparison, no float)."""
    expr = parse_expression(text, scope.var, "<expr>")
    for node in _walk(expr):
        if isinstance(node, ir.Cmp) or not ir.expr_dtype(node).is_int:
            what = "a comparison" if isinstance(node, ir.Cmp) else f"a {ir.expr_dtype(node).value} value"
            raise SlotsatError(f"EXPR must be an integer index expression, got {what}", Span(1, 1),
                               file="<expr>")
        if isinstance(node, ir.ScalarUnary | ir.ScalarBinary | ir.TupleGetItem):
            # Kernels may hold these (the reference prints them); the index engine does not model them.
            raise SlotsatError(f"EXPR must be an integer index expression (+ - * // % pl.cast pl.const), got "
                               f"'{print_expr(node)}'", node.span if node.span.line else Span(1, 1),
                               file="<expr>")
    return expr


def _walk(e: ir.Expr) -> list[ir.Expr]:
    out: list[ir.Expr] = []
    stack = [e]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(ir.expr_children(node))
    return out


def _bound(text: str, name: str, which: str, scope: _Scope) -> ir.Expr:
    if text.strip() == "?":
        return scope.var(f"{name}_{which}")
    try:
        value = int(text)
    except ValueError:
        raise UsageError(f"--loop {name}: {which} must be an integer or '?', got {text!r}") from None
    message = fits_message(value, ir.DType.INDEX)
    if message is not None:
        raise UsageError(f"--loop {name}: {which}: {message}")
    return ir.ConstInt(value, ir.DType.INDEX)


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
    """A FILE argument: an existing file, or a path ending in `.py` (read errors are reported).
    Text the file system cannot even look up (an expression longer than a file name may be, a
    NUL byte) is no file: it is an EXPR."""
    if text.endswith(".py"):
        return True
    try:
        return Path(text).is_file()
    except (OSError, ValueError):
        return False


def run(args: argparse.Namespace) -> int:
    if is_file_argument(args.expr):
        from slotsat.app.commands.explore_file import run_file

        return run_file(args)
    if args.via_pypto or args.specialize or args.from_main or args.kernel is not None:
        raise UsageError("--via-pypto, --specialize, --from-main and --kernel take a kernel FILE, not an "
                         "expression")
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
