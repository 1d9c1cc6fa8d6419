"""`slotsat bench [--quick] [--corpus DIR] [--out DIR] [--json] [--seed N]`.

Runs the benchmark of `slotsat.bench.run` (three lowerings of the bundled and generated corpus,
matcher resolution, compile-time scaling), writes `DIR/report.md`, `DIR/report.json` and
PNG plots, and prints the summary table (or, with `--json`, the report document). Progress
goes to standard error. Exit status: 0 success; 1 a soundness failure (a resolved slot pair
that exact evaluation contradicts) or a kernel that did not compile, each named on standard
error and in the report; 2 bad arguments.

`run_quick_summary(console)` runs the quick benchmark and prints only its summary table;
`slotsat demo` ends with it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from slotsat.app.commands import UsageError
from slotsat.core.errors import EXIT_OK, EXIT_REJECTED

DEFAULT_OUT = "bench-report"


def writable_dir(path: Path, option: str = "--out") -> Path:
    """`path` as an output directory, created if need be and checked writable before any
    work starts; a `UsageError` otherwise."""
    import tempfile

    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as err:
        raise UsageError(f"{option} {path}: cannot write there ({err.strerror or err})") from None
    return path


def kernel_dir(path: Path, option: str = "--corpus") -> list[Path]:
    """The kernel files (`*.py`) of `path`; a `UsageError` when it is not a directory or has none."""
    if not path.is_dir():
        raise UsageError(f"{option} {path} is not a directory")
    files = sorted(path.glob("*.py"))
    if not files:
        raise UsageError(f"{option} {path} has no kernel files (*.py)")
    return files


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--quick", action="store_true",
                        help="a smaller corpus and scaling up to 1,000 loops in both shapes")
    parser.add_argument("--corpus", type=Path, default=None, metavar="DIR",
                        help="measure every kernel file in DIR instead of the bundled and generated corpus")
    parser.add_argument("--out", type=Path, default=Path(DEFAULT_OUT), metavar="DIR",
                        help=f"where report.md, report.json and the plots go (default {DEFAULT_OUT})")
    parser.add_argument("--json", action="store_true", help="print report.json instead of the summary table")
    parser.add_argument("--seed", type=int, default=0, metavar="N", help="seed of the generated corpus")
    # Size hooks for tests and experiments; not part of the documented interface.
    parser.add_argument("--kernels", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--max-loops", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--scaling", type=str, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--single-scaling", type=str, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--no-bundled", action="store_true", help=argparse.SUPPRESS)


def _sizes(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(",") if x.strip())


def _config(args: argparse.Namespace) -> Any:
    from dataclasses import replace

    from slotsat.bench.config import BenchConfig

    argv = " ".join(sys.argv[1:]) if sys.argv[1:2] == ["bench"] else "bench"
    config = BenchConfig.for_args(quick=bool(args.quick), seed=int(args.seed), corpus=args.corpus,
                                  command=f"slotsat {argv}")
    if args.corpus is not None:
        kernel_dir(args.corpus)
    if args.kernels is not None:
        config = replace(config, random_kernels=int(args.kernels))
    if args.max_loops is not None:
        config = replace(config, max_loops=int(args.max_loops))
    if args.scaling is not None:  # both shapes, unless --single-scaling says otherwise
        config = replace(config, scaling=_sizes(args.scaling), single_scaling=_sizes(args.scaling))
    if args.single_scaling is not None:
        config = replace(config, single_scaling=_sizes(args.single_scaling))
    if args.no_bundled:
        config = replace(config, include_bundled=False)
    return config


def summary_table(data: dict[str, Any]) -> Table:
    """The per-lowering totals, as the report's first table."""
    from slotsat.bench.report import SHORT_HEADER, summary_rows

    table = Table(title="slotsat bench: totals per lowering")
    for k, column in enumerate(SHORT_HEADER):
        table.add_column(column, justify="left" if k == 0 else "right")
    for row in summary_rows(data):
        table.add_row(*row)
    return table


def print_summary(console: Console, data: dict[str, Any]) -> None:
    """The summary table and, below it, one line per lowering and per column saying what it is."""
    from slotsat.bench.report import SUMMARY_LEGEND, gain_lines

    console.print(summary_table(data))
    for line in SUMMARY_LEGEND:
        console.print(f"  {line}", markup=False, highlight=False)
    for line in gain_lines(data):
        console.print(f"  {line}", markup=False, highlight=False)


def _targets_table(data: dict[str, Any]) -> Table:
    table = Table(title="targets")
    for column in ("target", "measured", "status", "detail"):
        table.add_column(column)
    for t in data.get("targets", []):
        style = {"met": "green", "missed": "red"}.get(t["status"], "yellow")
        table.add_row(t["name"], t["measured"], f"[{style}]{t['status']}[/{style}]", t["detail"])
    return table


def _run(config: Any, out: Path, console: Console) -> tuple[dict[str, Any], list[Any]]:
    from slotsat.bench.report import write_report
    from slotsat.bench.run import run_bench

    # No refresh thread: a garbage collection on rich's thread could drop an egglog e-graph
    # there, and egglog's e-graphs must be dropped on the thread that made them.
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  TimeElapsedColumn(), console=console, transient=True, auto_refresh=False) as bar:
        task = bar.add_task("bench", total=1)

        def progress(label: str, done: int, total: int) -> None:
            bar.update(task, description=label, completed=done, total=total)
            bar.refresh()

        report_progress: Callable[[str, int, int], None] = progress
        data, failures = run_bench(config, progress=report_progress)
    write_report(data, out)
    return data, failures


def run(args: argparse.Namespace) -> int:
    config = _config(args)
    out = writable_dir(Path(args.out))
    err = Console(stderr=True)
    data, failures = _run(config, out, err)
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        console = Console()
        print_summary(console, data)
        console.print(_targets_table(data))
        console.print(f"report: {out / 'report.md'}, {out / 'report.json'}, "
                      + ", ".join(str(out / p) for p in data.get("plots", [])))
    for f in failures:
        print(f"slotsat: soundness failure: {f.pair}: the model answers {f.model}, "
              f"evaluation gives {f.truth}", file=sys.stderr)
    crashed = data.get("kernel_failures", [])
    for k in crashed:
        print(f"slotsat: kernel failure: {k['name']} ({k['path']}): {k['error']}", file=sys.stderr)
    return EXIT_REJECTED if failures or crashed else EXIT_OK


def run_quick_summary(console: Console, out: Path | None = None, config: Any = None) -> int:
    """Run `slotsat bench --quick` and print its summary table on `console` (for `slotsat demo`).

    Returns the bench's exit status (1 on a soundness failure). The report files go to
    `out` (default `bench-report/`); `config` (a `slotsat.bench.config.BenchConfig`) replaces the
    quick sizes, for tests.
    """
    from slotsat.bench.config import BenchConfig

    if config is None:
        config = BenchConfig.for_args(quick=True, seed=0, corpus=None, command="slotsat bench --quick")
    data, failures = _run(config, writable_dir(out if out is not None else Path(DEFAULT_OUT)), console)
    print_summary(console, data)
    for f in failures:
        console.print(f"soundness failure: {f.pair}")
    crashed = data.get("kernel_failures", [])
    for k in crashed:
        console.print(f"kernel failure: {k['name']}: {k['error']}", markup=False, highlight=False)
    return EXIT_REJECTED if failures or crashed else EXIT_OK
