"""One benchmark run: every kernel of the corpus, then the scaling points, into one report
document (`slotsat.bench.report` writes it out).

The document's layout is described in `slotsat.bench.report`; `NOTES` (its `notes`) says how
each figure is measured. A kernel that does not compile (a crash or a rejection) is a failure
of the run: it is listed in `kernel_failures`, left out of the totals, and the command exits 1.
"""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable, Sequence
from typing import Any

from slotsat.bench.config import (
    QUICK_BUDGET_SECONDS,
    SINGLE_QUICK_BUDGET_SECONDS,
    BenchConfig,
    collect_sources,
)
from slotsat.bench.lowerings import LOWERINGS
from slotsat.bench.measure import KernelResult, measure_kernel
from slotsat.bench.metrics import Failure, Metrics
from slotsat.bench.scaling import (
    COMMAND_LOOPS,
    COMMAND_RUNS,
    FULL_MIN_RUNS,
    SHAPES,
    command_seconds,
    run_scaling_point,
    startup_seconds,
)
from slotsat.bench.truth import Truth


def _totals(kernels: Sequence[KernelResult]) -> dict[str, dict[str, int]]:
    totals: dict[str, Metrics] = {name: Metrics() for name in LOWERINGS}
    for k in kernels:
        for name, m in k.lowerings.items():
            totals[name].add(m)
    return {name: m.to_json() for name, m in totals.items()}


def rule_totals(kernels: Sequence[KernelResult]) -> dict[str, dict[str, object]]:
    """Matches per registered rule of the default mode's schedule over the measured kernels,
    every rule listed (zero: it never fired on this corpus)."""
    from slotsat.egraph_rules.schedules import CODEGEN_SLOTS, RULESETS, registered_rules

    used = CODEGEN_SLOTS.rulesets()
    rulesets = {name for name, rs in RULESETS.items() if any(rs is u for u in used)}
    fired: dict[str, int] = {}
    for k in kernels:
        if k.error is None:
            for name, count in k.rules.items():
                fired[name] = fired.get(name, 0) + count
    return {
        name: {"ruleset": info.ruleset, "kind": info.kind, "matches": fired.get(name, 0)}
        for name, info in sorted(registered_rules().items())
        if info.ruleset in rulesets and info.kind != "typing"
    }


def _versions() -> dict[str, str]:
    try:
        from importlib.metadata import version

        egglog = version("egglog")
    except Exception:
        egglog = "?"
    return {"python": f"CPython {platform.python_version()}", "egglog": egglog}


NOTES: tuple[str, ...] = (
    "index_ops: every `arith` op in the emitted .pto except `arith.constant`, read back from the "
    "text (bench.scan); `arith.floordivsi` counts 4 (ptoas expands it into a truncating division and "
    "a three-op correction, 40 §7.2). index_ops_text counts it once. slot_ops: the ops of the slot "
    "operands' chains (shared ops once).",
    "corrections: correction chains emitted = `arith.select` ops (the last op of every floor-mod "
    "correction, 30 §7.1) plus `arith.floordivsi` ops (floor-division correction).",
    "naive: an op-count-and-render model, not an engine mode (the engine has no proof-off switch). "
    "It rewrites the pypto output by the unproven rows of 30 §7.1: every `remsi` by a positive "
    "constant not already corrected becomes `remsi, cmpi slt, addi, select`, every `divsi` becomes "
    "`floordivsi`; the rewritten ops are then measured (ops, corrections, matcher classes, pairs) by "
    "the same code as pypto and slotsat.",
    "swap: the no-e-graph baseline, derived from pypto like naive: every bare `remsi` / `divsi` by a "
    "positive constant (one the reference's syntactic proof made bare; a `remsi` a correction's "
    "`cmpi` reads is not bare) becomes `remui` / `divui`. Same ops, same count as pypto, but "
    "slot operands the matcher can peel: slotsat's gain over swap is what the e-graph adds beyond "
    "that opcode choice. gains: slotsat against each lowering over the corpus.",
    "rules: matches per registered rule of the default mode's schedule (CODEGEN_SLOTS) summed over "
    "every function's index engine in the slotsat compile (egglog's run report); 0 = never fired.",
    "slot_operands / matcher_accepted: one per emitted `pto.multi_tile_get`; accepted = peelable or "
    "bare under analysis.matcher.classify (40 §7.1), a bare value's interval taken from constant "
    "`scf.for` bounds.",
    "pairs (40 §8): same-block pairs are every unordered pair of emitted gets on one region in one "
    "block, compared on the emitted values. Rotation pairs: for each get and each enclosing loop its "
    "IR slot index reads, the index with iv -> iv + step is inserted into one IndexEngine per "
    "function together with the real indices (the engine probe, bench.probe), saturated in the same "
    "batch, and chosen right after its real operand against a copy of the block's emitted scope "
    "(never emitted). pypto uses IndexEngine(Mode.PYPTO) (the syntactic proof, as written); naive "
    "rewrites the pypto pair. probe_mismatches counts gets whose probe operand differs in shape from "
    "the emitted one (0 once codegen extracts through the same engine).",
    "ground truth: the IR slot indices evaluated exactly (slotsat.core.semantics.eval_expr) at every "
    "point of the enclosing loops' iteration space, exhaustive up to 4,096 points, else the first "
    "and last 64 iterations of each loop (other dimensions at seeded random values) plus 512 seeded "
    "random points; a rotation pair skips the loop's last iteration; a runtime bound is taken at its "
    "widest (iv < stop <= INT64_MAX); a free scalar read by an index is sampled over its dtype. Truly "
    "equal: the values agree at every point; truly disjoint: they differ modulo the region's count at "
    "every point; else mixed. A get that cannot be mapped to its IR index (ir_unmapped_gets) falls "
    "back to evaluating the emitted chains (analysis.matcher.evaluate).",
    "e-graph figures (nodes = table rows, iterations, saturate and extract seconds) come from the "
    "engine probe, summed over the kernel's functions (iterations: the maximum); a scaling point's "
    "probe saturates its functions' engines together, as codegen saturates a module's (each joint "
    "e-graph counted once).",
    "scaling: each size runs in a fresh subprocess after a one-loop warm-up compile (imports and "
    "egglog setup excluded); seconds = parse + compile_module (saturate, extract, emit) in slotsat "
    "mode, wall clock (time.perf_counter), the median of the runs (`repeats`): three for every size "
    "up to 1,000 loops in a full run (one under --quick), and more while they take under 0.5 s "
    "together; peak_mb = resource.getrusage(RUSAGE_SELF).ru_maxrss of that process, read right "
    "after the timed runs (whole-process peak RSS, interpreter and imports included; baseline_mb is "
    "the peak after the warm-up). The e-graph columns come from running the probe afterwards. The "
    "subprocesses run with SLOTSAT_MAX_FILE_BYTES = 64 MiB (the 10,000-loop file is over the "
    "parser's 4 MiB default), SLOTSAT_EGRAPH_NODES >= 8,000,000 and SLOTSAT_EGRAPH_SECONDS >= 600 "
    "(the 10,000-loop single function's e-graph is over the default 500,000 rows); a point whose "
    "compile still hit an e-graph limit lists it (egraph_limits_hit) and decides no target. "
    "meta.load_average is the 1-minute load before and after the run (the "
    "machine may be shared; timings are wall clock).",
    "scaling shapes: `scaling` is the `functions` shape (the loops spread over many small functions, "
    "backend 910b), `scaling_single` the `single` shape (every loop in one function, --backend none, "
    "as issue 14 measures it). Each point's `phases` is the per-phase wall clock of the reported run, "
    "recorded by slotsat.core.phases inside that one compilation: the top-level phases parse, slots, "
    "replication (lower-pipeline-loops and the marker cleanup), init-memref and codegen, the dotted "
    "sub-phases the passes mark (codegen.saturate, ...), `<phase>.other` = a phase minus its recorded "
    "sub-phases, and `unmarked` = the run's seconds outside every top-level phase; the leaves sum to "
    "the point's seconds (the stacked plot phases.png). cpu_seconds: the reported run's "
    "process CPU time (time.process_time), which a shared machine inflates less than the wall "
    "clock. parse_one_loop: wall clock of "
    "`python -m slotsat parse FILE` on a one-loop kernel in a fresh process (interpreter start and "
    "imports included), the median of 5 runs, reading bytecode from a cache one untimed run fills "
    "(as an installed package does); the `_cold` figures run with PYTHONDONTWRITEBYTECODE=1 (modules "
    "without bytecode next to them are compiled from source on every run).",
    "command: per shape, the wall clock of `python -m slotsat codegen FILE --backend B -o OUT.pto` on "
    "the shape's largest finished size up to 1,000 loops, in a fresh process (interpreter start, "
    "imports, the e-graph templates a process builds once, parse, compile, writing the module and "
    "the exit: end to end as issue 14 measured it), reading bytecode from a cache one untimed run on "
    "the one-loop file fills; the median of 3 runs (1 under --quick), `times` lists them.",
)


def kernel_failures(kernels: Sequence[KernelResult]) -> list[dict[str, str]]:
    """The kernels that did not compile: each a failure of the run, left out of the totals."""
    return [{"name": k.name, "source": k.source, "path": k.path, "error": k.error}
            for k in kernels if k.error is not None]


def run_bench(config: BenchConfig, *, progress: Callable[[str, int, int], None] | None = None,
              scaling_timeout: float | None = None) -> tuple[dict[str, Any], list[Failure]]:
    """Run everything; returns the report document and the soundness failures.

    A scaling point that exceeds `scaling_timeout` (default 900 s; in a quick run, whatever
    is left of `QUICK_BUDGET_SECONDS` for the corpus and the `functions` shape, of
    `SINGLE_QUICK_BUDGET_SECONDS` for the `single` shape) is reported as timed out and the
    larger sizes of its shape as skipped, so `--quick` stays bounded whatever the compiler's
    speed."""
    timeout = scaling_timeout if scaling_timeout is not None else 900.0
    started = time.perf_counter()
    load_before = os.getloadavg()[0]
    deadline = started + QUICK_BUDGET_SECONDS if config.quick else None
    sources = collect_sources(config)
    failures: list[Failure] = []
    truth_cache: dict[tuple[str, ...], Truth] = {}
    kernels: list[KernelResult] = []
    plan = [(loops, "functions") for loops in config.scaling]
    plan += [(loops, "single") for loops in config.single_scaling]
    total_steps = len(sources) + len(plan) + len({shape for _, shape in plan})  # + one command per shape
    for k, src in enumerate(sources):
        if progress is not None:
            progress(f"kernel {src.name}", k, total_steps)
        kernels.append(measure_kernel(src, failures, truth_cache))
    corpus_seconds = time.perf_counter() - started
    scaling: dict[str, list[dict[str, Any]]] = {"functions": [], "single": []}
    stopped: dict[str, str] = {}
    for k, (loops, shape) in enumerate(plan):
        if progress is not None:
            progress(f"scaling {loops} loops ({shape})", len(sources) + k, total_steps)
        if shape in stopped:
            scaling[shape].append({"shape": shape, "loops": loops, "seconds": None, "peak_mb": None,
                                   "error": stopped[shape]})
            continue
        if shape == "single" and deadline is not None and not scaling["single"]:
            # The single-function shape has a budget of its own, so a slow many-function point
            # does not leave it none.
            deadline = time.perf_counter() + SINGLE_QUICK_BUDGET_SECONDS
        budget = timeout if deadline is None else max(1.0, min(timeout, deadline - time.perf_counter()))
        min_runs = FULL_MIN_RUNS if not config.quick and loops <= COMMAND_LOOPS else 1
        point = run_scaling_point(loops, config.seed, budget, shape, min_runs)
        if point.get("seconds") is None:
            stopped[shape] = f"skipped: the {loops}-loop point did not finish"
        scaling[shape].append(point)
    startup = startup_seconds(config.seed) if plan else {}
    commands: dict[str, dict[str, Any]] = {}
    for k, (shape, points) in enumerate(scaling.items()):
        # `slotsat codegen` as a user runs it, at the shape's largest finished size up to
        # COMMAND_LOOPS (the scaling points time a warmed-up process)
        sizes = [int(p["loops"]) for p in points
                 if p.get("seconds") is not None and int(p["loops"]) <= COMMAND_LOOPS]
        if sizes:
            if progress is not None:
                progress(f"slotsat codegen, {max(sizes)} loops ({shape})", len(sources) + len(plan) + k,
                         total_steps)
            runs = 1 if config.quick else COMMAND_RUNS
            commands[shape] = command_seconds(shape, max(sizes), config.seed, runs)
    if progress is not None:
        progress("done", total_steps, total_steps)
    data: dict[str, Any] = {
        "lowerings": _totals([k for k in kernels if k.error is None]),
        "rules": rule_totals(kernels),
        "scaling": scaling["functions"],
        "scaling_single": scaling["single"],
        "startup": startup,
        "command": commands,
        "shapes": {name: shape.description for name, shape in SHAPES.items()},
        "kernels": [k.to_json() for k in kernels],
        "soundness_failures": [f.to_json() for f in failures],
        "kernel_failures": kernel_failures(kernels),
        "notes": list(NOTES),
        "meta": {
            "command": config.command,
            "seed": config.seed,
            "quick": config.quick,
            "random_kernels": config.random_kernels,
            "max_loops": config.max_loops,
            "corpus": None if config.corpus is None else str(config.corpus),
            "cpus": os.cpu_count(),
            "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
            "wall_seconds": time.perf_counter() - started,
            "corpus_seconds": corpus_seconds,
            "scaling_seconds": time.perf_counter() - started - corpus_seconds,
            "single_scaling": list(config.single_scaling),
            **_versions(),
        },
    }
    return data, failures

