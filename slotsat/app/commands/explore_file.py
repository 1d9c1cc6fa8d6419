"""`slotsat explore FILE [--function F] [--json] [--dot OUT --select N]`: every slot operand
and integer expression of a kernel file with the forms the e-graph holds for it (see
`slotsat.app.commands.explore` for the output).

The file goes through the DSL parser and the function passes codegen runs after it (the
slots pass, replication, init-memref), so the expressions are the ones codegen lowers
(`slotsat.lowering.pto_codegen.index_sites`) for the functions it compiles (kernels;
orchestration code is not listed), and a construct codegen declines is the same located
error (`preflight`). Each function's expressions share one
`IndexEngine`, saturated once; each is listed with every form of its e-class and the one
extraction picks for it on its own (nothing emitted before it). A function whose engine stopped
at a limit (`slotsat.core.limits` (d), (j)) is named in a warning on standard error, as codegen
names it: its listing is what the engine reached.

`read_module` (the file to IR) and `explore_module` (IR to the listing) are the two halves,
so another front end can hand `explore_module` a module it produced.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from slotsat.app.commands import UsageError, backend_option
from slotsat.app.commands.explore_forms import form_json, form_lines
from slotsat.core import ir
from slotsat.core.errors import EXIT_OK, SlotsatError
from slotsat.core.options import Mode, Planner
from slotsat.egraph_rules.engine import FormInfo, IndexEngine, RootId
from slotsat.lowering.common import format_expr
from slotsat.lowering.pto_codegen import IndexSite, index_sites, kernel_functions, limit_messages, preflight


@dataclass(frozen=True)
class Explored:
    """One listed expression: its number, site, the forms of its e-class and the picked one."""

    id: int
    function: str
    site: IndexSite
    forms: list[FormInfo]
    engine: IndexEngine
    root: RootId

    @property
    def picked(self) -> FormInfo:
        return next(f for f in self.forms if f.picked)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "line": self.site.line,
            "kind": self.site.kind,
            "expr": format_expr(self.site.expr),
            "slots": self.site.slots,
            "loops": [
                {
                    "iv": loop.var.name_hint,
                    "start": format_expr(loop.start),
                    "stop": format_expr(loop.stop),
                    "step": format_expr(loop.step),
                }
                for loop in self.site.loops
            ],
            "forms": [form_json(f) for f in self.forms],
            "picked": self.picked.form,
        }


def read_module(args: argparse.Namespace) -> tuple[ir.Module, str]:
    """The kernel file as IR, and the file name diagnostics use (FILE, or with `--via-pypto`
    its hand-off IR's label); read and parse errors carry that name."""
    from slotsat.app.commands import kernel_source
    from slotsat.core.dsl.parser import parse_source

    text, file = kernel_source(args, args.expr)
    try:
        return parse_source(text, file), file
    except SlotsatError as err:
        err.with_file(file)
        raise


def explore_module(module: ir.Module, args: argparse.Namespace) -> list[Explored]:
    """Every expression of every (selected) function of `module`, numbered from 1."""
    from slotsat.app.pipeline import CompileOptions, function_passes, run_passes

    options = CompileOptions(
        planner=Planner.parse(args.planner),
        mode=Mode.parse(args.mode),
        backend=backend_option(args),
        compat=args.compat == "pypto",
    )
    lowered, _ = run_passes(module, function_passes(options))
    functions = [fn for fn, _ in kernel_functions(lowered)]  # the functions codegen compiles
    if args.function is not None:
        functions = [fn for fn in functions if fn.name == args.function]
        if not functions:
            raise UsageError(f"--function {args.function}: no kernel function of that name in {args.expr} "
                             "(explore lists the functions codegen compiles)")
    out: list[Explored] = []
    for fn in functions:
        preflight(fn)  # what codegen declines (scalar ops outside the index language, ...) is its error
        sites = index_sites(fn, options.planner)
        engine = IndexEngine(options.mode)
        for site in sites:
            for loop in site.loops:
                engine.add_loop(loop)
        roots = [engine.add_root(site.expr, slots=site.slots) for site in sites]
        engine.saturate()
        for site, root in zip(sites, roots, strict=True):
            out.append(Explored(len(out) + 1, fn.name, site, engine.forms(root), engine, root))
    return out


def _loops_text(site: IndexSite) -> str:
    if not site.loops:
        return "no loop"
    return ", ".join(
        f"{loop.var.name_hint} in range({format_expr(loop.start)}, {format_expr(loop.stop)}, "
        f"{format_expr(loop.step)})"
        for loop in site.loops
    )


def run_file(args: argparse.Namespace) -> int:
    file = args.expr
    try:
        module, file = read_module(args)
        explored = explore_module(module, args)
    except SlotsatError as err:
        err.with_file(file)
        raise
    engines = {id(x.engine): (x.function, x.engine) for x in explored}  # two programs may each have `kernel`
    for name, engine in engines.values():  # its forms listed are all it reached, not all there are
        for message in limit_messages(engine.saturate().report.limit_hit, engine.extraction_limit_hit):
            print(f"slotsat: warning: function '{name}': {message}", file=sys.stderr)
    if args.dot is not None:
        if not 1 <= args.select <= len(explored):
            raise UsageError(f"--select {args.select}: the file lists {len(explored)} expression(s)")
        chosen = explored[args.select - 1]
        title = f"#{chosen.id} {format_expr(chosen.site.expr)}  (picked: {chosen.picked.form})"
        write_dot(chosen.engine, chosen.root, args.dot, title)
    if args.json:
        functions: dict[str, list[dict[str, Any]]] = {}
        for x in explored:
            functions.setdefault(x.function, []).append(x.to_json())
        doc = {"file": args.expr, "functions": [{"name": n, "expressions": e} for n, e in functions.items()]}
        print(json.dumps(doc, indent=2))
        return EXIT_OK
    current = None
    for x in explored:
        if x.function != current:
            current = x.function
            print(f"function {current}")
        slots = f", {x.site.slots} slots" if x.site.slots is not None else ""
        print(f"  #{x.id} line {x.site.line}: {x.site.kind}{slots}: {format_expr(x.site.expr)}")
        print(f"     loops: {_loops_text(x.site)}")
        for line in form_lines(x.forms):
            print(f"     {line}")
    if not explored:
        print("no integer expression to explore", file=sys.stderr)
    return EXIT_OK


def write_dot(engine: IndexEngine, root: RootId, out: str, title: str) -> None:
    """Draw `root`'s e-classes into `out`: DOT source for `.dot`, an SVG (graphviz's `dot`
    program) for `.svg`; anything else, or `.svg` without `dot`, is a usage error."""
    graph = engine.saturate()
    cls = graph.classes[root]
    if graph.view is None or cls is None:
        raise UsageError("--dot: this expression has no e-class to draw (a comparison)")
    source = graph.view.draw(cls, engine.picked_nodes(root), title)
    suffix = Path(out).suffix
    if suffix not in (".dot", ".svg"):
        raise UsageError(f"--dot {out}: the file must end in .dot or .svg")
    try:
        if suffix == ".dot":
            Path(out).write_text(source)
            return
        dot = shutil.which("dot")
        if dot is None:
            raise UsageError(
                "--dot: writing .svg needs graphviz's dot program (apt-get install graphviz); "
                "write a .dot file instead"
            )
        done = subprocess.run(
            [dot, "-Tsvg", "-o", out], input=source, text=True, capture_output=True, check=False, timeout=120
        )
        if done.returncode != 0:
            raise UsageError(f"--dot {out}: dot failed: {done.stderr.strip().splitlines()[-1:]}")
    except OSError as err:
        raise UsageError(f"cannot write {out}: {err.strerror or err}") from None
