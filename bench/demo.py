"""`slotsat demo`: the main job on the bundled kernels.

For every kernel in `examples/kernels/`: parse it, run lower-pipeline-to-slots and print one
row per pipeline loop (decision, gate, slot index), compile it to PTO under both planners and
count regions, gets and index ops; then run the quick benchmark and print its summary table.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from rich.console import Console
from rich.table import Table

from slotsat.core.errors import EXIT_OK, EXIT_REJECTED, SlotsatError


def default_corpus() -> Path:
    """The bundled kernels, shipped as package data (`slotsat.core.resources`)."""
    from slotsat.core.resources import bundled_kernels_dir

    return bundled_kernels_dir()


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--corpus", default=None, help="kernel directory (default: examples/kernels)")
    parser.add_argument("--no-bench", action="store_true", help="skip the quick benchmark at the end")
    parser.add_argument("--out", default=None, help="where the quick benchmark writes its report")


def _decision_table(console: Console, files: list[Path]) -> list[str]:
    from slotsat.analysis.budget import Backend
    from slotsat.app.commands.slots import slots_report
    from slotsat.core.dsl.parser import parse_file
    from slotsat.core.options import Planner

    table = Table(title="lower-pipeline-to-slots on the bundled kernels (planner ptoas, backend 950)")
    for col in ("kernel", "function", "loop", "line", "stages", "decision", "reason", "slot index", "tiles"):
        table.add_column(col)
    failures: list[str] = []
    for path in files:
        try:
            module = parse_file(path)
            report = slots_report(module, Planner.PTOAS, Backend.ASCEND950, replicate=True)
        except SlotsatError as err:
            failures.append(err.render(str(path)))
            continue
        for fn in report.functions:
            for lp in fn.loops:
                tiles = ", ".join(f"{t.tile}@{t.memref}" for t in lp.tiles)
                table.add_row(path.stem, fn.name, lp.iv, str(lp.line), str(lp.stages), lp.decision,
                              lp.reason or "", lp.slot_index or "", tiles)
    console.print(table)
    return failures


def _codegen_table(console: Console, files: list[Path]) -> list[str]:
    from slotsat.app.pipeline import CompileOptions, compile_module
    from slotsat.core.dsl.parser import parse_file
    from slotsat.core.options import Planner

    table = Table(title="pto-codegen (backend 910b, mode slotsat)")
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
    for line in rejections:
        console.print(line, markup=False, highlight=False)
    return []


def run(args: argparse.Namespace) -> int:
    console = Console()
    if not console.is_terminal:
        # Piped or captured: rich would assume 80 columns and truncate every cell.
        console = Console(width=160)
    corpus = Path(args.corpus) if args.corpus is not None else default_corpus()
    files = sorted(corpus.glob("*.py"))
    if not files:
        raise SlotsatError(f"no kernel files (*.py) in {corpus}", exit_status=2, file=str(corpus))
    console.print(f"[bold]slotsat demo[/bold]: {len(files)} kernels from {corpus}")
    failures = _decision_table(console, files)
    failures += _codegen_table(console, files)
    for line in failures:
        console.print(line, style="red", markup=False, highlight=False)
    status = EXIT_REJECTED if failures else EXIT_OK
    if not args.no_bench:
        from slotsat.bench.command import run_quick_summary

        out = Path(args.out) if args.out is not None else Path(tempfile.mkdtemp(prefix="slotsat-bench-"))
        console.print(f"[bold]quick benchmark[/bold] (report in {out})")
        status = max(status, run_quick_summary(console, out))
    return status
