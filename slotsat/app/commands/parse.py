"""`slotsat parse FILE [--json]`: parse a kernel file and print it back (`00-overview.md` §8).

Without `--json` the canonical DSL text of every program (`10-dsl.md` §9) goes to standard
output. With `--json` a structural summary is printed instead:

```
{"programs": [{"name": "RowScale", "functions": [{
    "name": "kernel", "type": "InCore",
    "params": [{"name": "x", "type": "pl.Tensor[[512, 128], pl.FP32]"}, ...],
    "loops": [{"iv": "r", "line": 13, "depth": 0, "kind": "Pipeline", "stages": 2,
               "start": 0, "stop": 8, "step": 1, "carried": ["dst"], "attrs": {}}],
    "tiles": [{"name": "xt", "line": 14, "shape": [64, 128], "dtype": "FP32",
               "space": "Vec", "memref": null}, ...]}]}]}
```

Loops are listed in pre-order (nested loops follow their parent, `depth` counts enclosing
loops); `stages` is null for a plain range; a bound is an int when it is an `INDEX` literal,
else its printed expression. Tiles are every tile binder (assignment targets, carried
values, loop and if results) in print order; `space` is null when unknown and `memref` is
the printed MemRef or null. Names are the printed (disambiguated) names.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from slotsat.core import ir
from slotsat.core.dsl.parser import parse_file
from slotsat.core.dsl.printer import FunctionPrinter, print_module
from slotsat.core.errors import EXIT_OK


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a kernel file in the PyPTO DSL subset")
    parser.add_argument("--json", action="store_true", help="print a structural summary as JSON")


def run(args: argparse.Namespace) -> int:
    module = parse_file(args.file)
    if args.json:
        json.dump(summary(module), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(print_module(module))
    return EXIT_OK


def summary(module: ir.Module) -> dict[str, Any]:
    """The `--json` summary of a module (documented in the module docstring)."""
    return {"programs": [{"name": p.name, "functions": [_function(f) for f in p.functions]}
                         for p in module.programs]}


def _function(fn: ir.Function) -> dict[str, Any]:
    printer = FunctionPrinter()
    printer.function(fn)  # assigns every printed name
    loops: list[dict[str, Any]] = []
    tiles: list[dict[str, Any]] = []
    _walk(fn.body, 0, printer, loops, tiles)
    return {
        "name": fn.name,
        "type": fn.type.value,
        "params": [{"name": printer.name(p), "type": printer.type(p.type)} for p in fn.params],
        "loops": loops,
        "tiles": tiles,
    }


def _bound(e: ir.Expr, printer: FunctionPrinter) -> int | str:
    value = ir.index_literal(e)
    return value if value is not None else str(printer.expr(e))


def _tile(v: ir.Var, printer: FunctionPrinter) -> dict[str, Any] | None:
    t = v.type
    if not isinstance(t, ir.TileType):
        return None
    return {
        "name": printer.name(v),
        "line": v.span.line,
        "shape": list(t.shape),
        "dtype": t.dtype.value,
        "space": None if t.memory_space is None else t.memory_space.value,
        "memref": None if t.memref is None else printer.memref(t.memref),
    }


def _walk(body: ir.SeqStmts, depth: int, printer: FunctionPrinter, loops: list[dict[str, Any]],
          tiles: list[dict[str, Any]]) -> None:
    def add(v: ir.Var) -> None:
        entry = _tile(v, printer)
        if entry is not None:
            tiles.append(entry)

    for stmt in body.stmts:
        if isinstance(stmt, ir.AssignStmt):
            add(stmt.var)
        elif isinstance(stmt, ir.ForStmt):
            loops.append({
                "iv": printer.name(stmt.loop_var),
                "line": stmt.span.line,
                "depth": depth,
                "kind": stmt.kind.value,
                "stages": stmt.stages,
                "start": _bound(stmt.start, printer),
                "stop": _bound(stmt.stop, printer),
                "step": _bound(stmt.step, printer),
                "carried": [printer.name(a.var) for a in stmt.iter_args],
                "attrs": dict(stmt.other_attrs),
            })
            for arg in stmt.iter_args:
                add(arg.var)
            _walk(stmt.body, depth + 1, printer, loops, tiles)
            for r in stmt.return_vars:
                add(r)
        elif isinstance(stmt, ir.IfStmt):
            _walk(stmt.then_body, depth, printer, loops, tiles)
            if stmt.else_body is not None:
                _walk(stmt.else_body, depth, printer, loops, tiles)
            for r in stmt.return_vars:
                add(r)
        elif isinstance(stmt, ir.WhileStmt | ir.ScopeStmt):  # transparent: loops keep their depth
            _walk(stmt.body, depth, printer, loops, tiles)
