"""`slotsat slots FILE`: run lower-pipeline-to-slots (and with `--replicate` the fallback) and
report every pipeline loop's decision (`00-overview.md` §8, `20-lower-pipeline-to-slots.md`).

```
slotsat slots FILE [--planner ptoas|pypto] [--backend 910b|950|none] [--compat pypto]
                   [--replicate] [--json]
```

Defaults: planner `ptoas`, backend `910b`. Without `--json` the transformed program (DSL text
that parses back to an equal IR) goes to standard output, followed by a table with one row
per pipeline loop of the input, in pre-order per function: function, loop variable, line,
stages, decision (`slotted`, `declined`, `untouched`), reason (the decline code), slot
index, slotted tiles; below it, one line per declined loop with its code and sentence. With
`--json` only this object is printed:

```
{"functions": [{"name": "kernel", "loops": [
    {"iv": "r", "line": 13, "stages": 2, "decision": "slotted", "reason": null,
     "message": null, "slot_index": "r % 2",
     "tiles": [{"tile": "xt", "memref": "pipe_xt", "slots": 2}, ...]}]}],
 "program": "<the transformed program text>"}
```

`reason` is the decline code and `message` its sentence (`null` unless declined). Names are
the printed names of the transformed program. `--replicate` also runs lower-pipeline-loops
and resolve-pipeline-markers, so the program has no pipeline loop left; the rows still
describe the input's loops.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field, replace
from typing import Any

from slotsat.analysis.budget import Backend
from slotsat.app.commands import (
    add_backend,
    add_compat,
    add_planner,
    add_pypto_options,
    backend_option,
    kernel_source,
)
from slotsat.core import ir
from slotsat.core.errors import EXIT_OK, SlotsatError
from slotsat.core.options import Planner


@dataclass(frozen=True, slots=True)
class TileReport:
    tile: str
    memref: str
    slots: int


@dataclass(frozen=True, slots=True)
class LoopReport:
    iv: str
    line: int
    stages: int
    decision: str
    reason: str | None
    message: str | None
    slot_index: str | None
    tiles: tuple[TileReport, ...] = ()


@dataclass(frozen=True, slots=True)
class FunctionReport:
    name: str
    loops: tuple[LoopReport, ...]


@dataclass
class SlotsReport:
    """Per-loop decisions of every function and the transformed module."""

    module: ir.Module
    functions: list[FunctionReport] = field(default_factory=list)
    declines: list[Any] = field(default_factory=list)
    """The pass's `Decline` records, in order."""

    def to_json(self) -> dict[str, Any]:
        from slotsat.core.dsl.printer import print_module

        return {
            "functions": [{"name": f.name, "loops": [{
                "iv": lp.iv, "line": lp.line, "stages": lp.stages, "decision": lp.decision,
                "reason": lp.reason, "message": lp.message, "slot_index": lp.slot_index,
                "tiles": [{"tile": t.tile, "memref": t.memref, "slots": t.slots} for t in lp.tiles],
            } for lp in f.loops]} for f in self.functions],
            "program": print_module(self.module),
        }


def slots_report(module: ir.Module, planner: Planner | None = Planner.PTOAS,
                 backend: Backend = Backend.ASCEND910B, compat: bool = False,
                 replicate: bool = False) -> SlotsReport:
    """Run the slots pass (after stamp-tfree-split, which the reference also runs before it;
    with `replicate`, then the fallback and marker resolution) on every function of `module`.
    Raises `PassError` when the stamp or replication rejects a function."""
    from slotsat.core.dsl.printer import FunctionPrinter
    from slotsat.lowering.lower_pipeline_loops import LowerPipelineLoops
    from slotsat.lowering.lower_pipeline_to_slots import LowerPipelineToSlots
    from slotsat.lowering.resolve_pipeline_markers import ResolvePipelineMarkers
    from slotsat.lowering.stamp_tfree_split import StampTfreeSplit

    slots_pass = LowerPipelineToSlots(planner=planner, backend=backend, compat=compat)
    report = SlotsReport(module)
    programs: list[ir.Program] = []
    for program in module.programs:
        functions: list[ir.Function] = []
        for fn in program.functions:
            plan = slots_pass.plan(StampTfreeSplit().run(fn).function)
            out = plan.result
            if replicate:
                out = LowerPipelineLoops().run(out).function
                out = ResolvePipelineMarkers().run(out).function
            functions.append(out)
            report.declines.extend(plan.declines)
            # Rows describe the slots pass's decisions, so names come from its output (after
            # replication a declined loop's variable no longer exists under its own name).
            printer = FunctionPrinter()
            printer.function(plan.result)
            loops: list[LoopReport] = []
            for d in plan.loops:
                tiles = tuple(
                    TileReport(printer.name(t.new), printer.alloc_name(t.memref.base), t.memref.slot_count)
                    for t in d.tiles)
                loops.append(LoopReport(
                    printer.name(d.loop.loop_var), d.loop.span.line, d.stages, d.decision.value,
                    None if d.decline is None else d.decline.code,
                    None if d.decline is None else d.decline.message,
                    None if d.slot_index is None else printer.expr(d.slot_index), tiles))
            report.functions.append(FunctionReport(fn.name, tuple(loops)))
        programs.append(replace(program, functions=tuple(functions)))
    report.module = ir.Module(tuple(programs))
    return report


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file", help="a kernel file in the tile-level DSL (with --via-pypto: any PyPTO kernel file)")
    add_planner(parser)
    add_backend(parser)
    add_compat(parser)
    parser.add_argument("--replicate", action="store_true",
                        help="also run lower-pipeline-loops and resolve-pipeline-markers")
    parser.add_argument("--json", action="store_true", help="print the decisions and the program as JSON")
    add_pypto_options(parser)


def run(args: argparse.Namespace) -> int:
    from slotsat.core.dsl.parser import parse_source
    from slotsat.core.dsl.printer import print_module

    backend = backend_option(args)
    text, file = kernel_source(args)
    module = parse_source(text, file)
    try:
        report = slots_report(module, Planner.parse(args.planner), backend, args.compat == "pypto",
                              args.replicate)
    except SlotsatError as err:
        err.with_file(file)
        raise
    if args.json:
        json.dump(report.to_json(), sys.stdout, indent=2)
        sys.stdout.write("\n")
        return EXIT_OK
    sys.stdout.write(print_module(report.module))
    _table(report)
    return EXIT_OK


def _table(report: SlotsReport) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="pipeline loops")
    for col in ("function", "loop", "line", "stages", "decision", "reason", "slot index", "slotted tiles"):
        table.add_column(col)
    for f in report.functions:
        for lp in f.loops:
            tiles = ", ".join(f"{t.tile} -> {t.memref}[{t.slots}]" for t in lp.tiles)
            table.add_row(f.name, lp.iv, str(lp.line), str(lp.stages), lp.decision, lp.reason or "",
                          lp.slot_index or "", tiles)
    console = Console(file=sys.stdout, width=160)
    console.print(table)
    declined = [(f.name, lp) for f in report.functions for lp in f.loops if lp.reason is not None]
    if declined:
        console.print("declined loops (reason: why):", highlight=False)
    for name, lp in declined:
        console.print(f"  {name} loop {lp.iv} (line {lp.line}): {lp.reason}: {lp.message}", markup=False,
                      highlight=False)
