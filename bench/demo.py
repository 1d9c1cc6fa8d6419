"""`slotsat demo`: the main job on the bundled kernels.

For every kernel in `examples/kernels/` (or `--corpus DIR`): parse it, run
lower-pipeline-to-slots with replication and print one row per pipeline loop (decision,
gate, slot index), with each declined loop's reason below the table; compile it to PTO under
both planners and count regions, gets and index ops; then run the quick benchmark, which
writes its report into `--out DIR` (default `./slotsat-demo/`, reported), and print its
summary table. Every table is followed by one line per column saying what it counts.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console
from rich.table import Table

from slotsat.app.commands import DEFAULT_BACKEND, SWITCHES
from slotsat.core.errors import EXIT_OK, EXIT_REJECTED, SlotsatError

DEFAULT_OUT = "slotsat-demo"

DECISION_LEGEND = (
    "decision: slotted (one body, slot index per load), declined (replicated instead, reason below) "
    "or untouched (stage=1)",
    "reason: the gate that declined the loop; slot index: the slot each load of the slotted loop takes; "
    "tiles: tile @ allocation",
)
CODEGEN_LEGEND = (
    "regions: pto.alloc_multi_tile regions; gets: pto.multi_tile_get ops; accepted gets: slot operands "
    "ptoas's slot matcher accepts",
    "index ops: arith ops emitted per kernel except constants; rejected [n]: the compiler refused the "
    "kernel, reason [n] below",
)


def default_corpus() -> Path:
    """The bundled kernels, shipped as package data (`slotsat.core.resources`)."""
    from slotsat.core.resources import bundled_kernels_dir

    return bundled_kernels_dir()


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--corpus", type=Path, default=None, metavar="DIR",
                        help="kernel directory (default: the bundled examples/kernels)")
    parser.add_argument("--no-bench", action="store_true", help="skip the quick benchmark at the end")
    parser.add_argument("--out", type=Path, default=Path(DEFAULT_OUT), metavar="DIR",
                        help=f"where the quick benchmark writes its report (default ./{DEFAULT_OUT}/)")


def _legend(console: Console, lines: tuple[str, ...] | list[str]) -> None:
    for line in lines:
        console.print(f"  {line}", markup=False, highlight=False)


def _decision_table(console: Console, files: list[Path]) -> list[str]:
    from slotsat.analysis.budget import Backend
    from slotsat.app.commands.slots import slots_report
    from slotsat.core.dsl.parser import parse_file
    from slotsat.core.options import Planner

    backend = Backend.parse(DEFAULT_BACKEND)
    title = f"lower-pipeline-to-slots on the bundled kernels (planner ptoas, backend {backend.value})"
    table = Table(title=title)
    for col in ("kernel", "function", "loop", "line", "stages", "decision", "reason", "slot index", "tiles"):
        table.add_column(col)
    failures: list[str] = []
    reasons: list[str] = []
    for path in files:
        try:
            module = parse_file(path)
            report = slots_report(module, Planner.PTOAS, backend, replicate=True)
        except SlotsatError as err:
            failures.append(err.render(str(path)))
            continue
        for fn in report.functions:
            for lp in fn.loops:
                tiles = ", ".join(f"{t.tile}@{t.memref}" for t in lp.tiles)
                table.add_row(path.stem, fn.name, lp.iv, str(lp.line), str(lp.stages), lp.decision,
                              lp.reason or "", lp.slot_index or "", tiles)
                if lp.reason is not None:
                    reasons.append(f"{path.stem}.{fn.name} loop {lp.iv} (line {lp.line}): {lp.reason}: "
                                   f"{lp.message}")
    console.print(table)
    _legend(console, DECISION_LEGEND)
    if reasons:
        console.print("declined loops:")
        _legend(console, reasons)
    return failures


def _codegen_table(console: Console, files: list[Path]) -> None:
    from slotsat.app.pipeline import CompileOptions, compile_module
    from slotsat.core.dsl.parser import parse_file
    from slotsat.core.options import Planner

    table = Table(title=f"pto-codegen (backend {DEFAULT_BACKEND}, mode slotsat)")
    for col in ("kernel", "planner", "result", "regions", "gets", "accepted gets", "index ops"):
        table.add_column(col)
    rejections: list[str] = []
    for path in files:
        for planner in (Planner.PTOAS, Planner.PYPTO):
            try:
                result = compile_module(parse_file(path), CompileOptions(planner=planner))
            except SlotsatError as err:
                # A rejection with a stated reason (a blocker, the PYPTO allocator's capacity
                # check) is what the compiler is for; the demo lists it rather than failing.
                table.add_row(path.stem, planner.value, f"rejected [{len(rejections) + 1}]", "", "", "", "")
                rejections.append(f"[{len(rejections) + 1}] {err.render(str(path))}")
                continue
            regions = result.pto_text.count("pto.alloc_multi_tile")
            accepted = sum(1 for g in result.gets if g.accepted)
            table.add_row(path.stem, planner.value, "ok", str(regions), str(len(result.gets)),
                          str(accepted), str(sum(result.function_ops.values())))
    console.print(table)
    _legend(console, CODEGEN_LEGEND)
    _legend(console, rejections)


def run(args: argparse.Namespace) -> int:
    from slotsat.bench.command import kernel_dir, writable_dir

    console = Console()
    if not console.is_terminal:
        # Piped or captured: rich would assume 80 columns and truncate every cell.
        console = Console(width=160)
    corpus = Path(args.corpus) if args.corpus is not None else default_corpus()
    files = kernel_dir(corpus)
    out = None if args.no_bench else writable_dir(Path(args.out))
    console.print(f"[bold]slotsat demo[/bold]: {len(files)} kernels from {corpus}")
    console.print(f"settings: backend {DEFAULT_BACKEND}; --planner ptoas and pypto (both, side by side); "
                  "--mode slotsat; --compat off. The switches that say pypto:", highlight=False)
    _legend(console, SWITCHES)
    failures = _decision_table(console, files)
    _codegen_table(console, files)
    for line in failures:
        console.print(line, style="red", markup=False, highlight=False)
    status = EXIT_REJECTED if failures else EXIT_OK
    if out is not None:
        from slotsat.bench.command import run_quick_summary

        console.print(f"[bold]quick benchmark[/bold] (report in {out}/)")
        status = max(status, run_quick_summary(console, out))
    return status
