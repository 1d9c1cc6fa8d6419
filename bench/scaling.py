"""Compile-time scaling: end-to-end time, peak memory and the per-phase breakdown of one
generated file per size.

Each size (1, 10, 100, 1,000 and, in a full run, 10,000 loops) runs in a fresh subprocess
(`python -m slotsat.bench.scaling --scaling-point N --shape NAME`) so that
`resource.getrusage(RUSAGE_SELF).ru_maxrss` is that size's own peak RSS and no tracing
slows the timed code. `SHAPES` names how a size becomes a kernel file: `functions` spreads
the loops over many small functions, `single` puts them all in one function (issue 14).

Every timed compilation runs inside its own `slotsat.core.phases.recording()`, so the point
reports the phases the passes marked (`parse`, `slots`, `replication`, `init-memref`,
`codegen` and their dotted sub-phases) for the run whose time it reports (`phase_breakdown`
adds, per parent, `<parent>.other`: its time outside its recorded sub-phases, and
`unmarked`: the run's time outside every top-level phase).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from slotsat.bench import probe, scan
from slotsat.bench.generate import GeneratedKernel, generate_kernel, generate_single_function
from slotsat.bench.harness import Compiled, compile_kernel, parse_kernel
from slotsat.core import phases
from slotsat.core.options import Mode
from slotsat.egraph_rules.engine import start_worker


@dataclass(frozen=True, slots=True)
class Shape:
    """How a scaling size becomes one kernel file, and how it is compiled."""

    generate: Callable[[int, int], GeneratedKernel]
    backend: str
    """`--backend` of the timed compile."""
    probe: bool
    """Run the e-graph probe after the timed runs (its saturate / extract / node figures)."""
    description: str


SHAPES: dict[str, Shape] = {
    "functions": Shape(generate_kernel, "910b", True,
                       "the loops spread over generated functions of at most 8 loops each "
                       "(bench.generate.generate_kernel), default backend 910b"),
    "single": Shape(generate_single_function, "none", False,
                    "every loop in one function, each one load, one exp, one store and a yield, "
                    "sibling loops rebinding the same names (bench.generate.generate_single_function), "
                    "--backend none as issue 14 measures it"),
}
"""The scaling shapes, by name."""

DEFAULT_SHAPE = "functions"

MIN_TIMED_SECONDS = 0.5
MAX_REPEATS = 25
FULL_MIN_RUNS = 3
"""Timed runs of each point up to `COMMAND_LOOPS` loops in a full run (`--min-runs`; one under
`--quick`): at 1,000 loops one run decides a 2.0 s target, and on a shared machine identical
code measured from 1.93 to 2.88 s within an hour, so the point reports the median of three."""
SCALING_MAX_FILE_BYTES = 64 * 1024 * 1024
"""`SLOTSAT_MAX_FILE_BYTES` for the scaling subprocesses (the parser's default is 4 MiB)."""
SCALING_EGRAPH_ROWS = 8_000_000
SCALING_EGRAPH_SECONDS = 600.0
"""`SLOTSAT_EGRAPH_NODES`, and `SLOTSAT_EGRAPH_SECONDS` and `SLOTSAT_EXTRACT_SECONDS` (the
choices' own time limit), for the scaling subprocesses: the 10,000-loop single function's
index e-graph holds about 600,000 rows, over the 500,000 a compile stops saturating at by
default, and a compile that stops early does less than the whole work, so its time would
flatter the compiler. A point that still hits a limit says so (`egraph_limits_hit`) and the
report does not count it as a measurement of its targets."""


def scaling_point(
    loops: int,
    seed: int,
    shape: str = DEFAULT_SHAPE,
    *,
    timed: Callable[[dict[str, Any]], None] | None = None,
    min_runs: int = 1,
) -> dict[str, Any]:
    """Time parse + compile (slotsat mode) of one generated file; run in a fresh process.

    The file is compiled `min_runs` times, and a size whose runs take under
    `MIN_TIMED_SECONDS` together is repeated (at most `MAX_REPEATS` times, until that much time
    has passed); the median run is reported, with that run's phases. `timed` receives the
    timing, memory and phase figures as soon as they are measured, before the e-graph probe
    runs.
    """
    spec = SHAPES[shape]
    warm = generate_kernel(seed, 1, name="Warmup")
    compile_kernel(parse_kernel(warm.text, "warmup.py"), "slotsat", spec.backend)
    start_worker()  # the index engine's second thread and its template, built once per process
    baseline_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kernel = spec.generate(seed, loops)
    # per run: seconds, parse seconds, CPU seconds, the engine figures, the limits hit, the phases
    runs: list[tuple[float, float, float, dict[str, float | int], list[str], dict[str, float]]] = []
    spent = 0.0
    compiled: Compiled | None = None
    while len(runs) < min_runs or (spent < MIN_TIMED_SECONDS and len(runs) < MAX_REPEATS):
        # The last run's results are dropped, and its cyclic garbage collected (the compilation
        # hands its frozen objects back to the collector's oldest generation, which only a full
        # collection scans), before the next run. So each run starts from the first's heap,
        # but for what the e-graph templates keep of earlier sessions (`session.TEMPLATE_ROWS`): at
        # 1,000 loops, 214 MB peak over three runs against 200 MB for one.
        compiled = None
        if runs:
            gc.collect()
        with phases.recording() as recorded:
            cpu = time.process_time()
            start = time.perf_counter()
            module = parse_kernel(kernel.text, f"{kernel.name}.py")
            parsed = time.perf_counter()
            compiled = compile_kernel(module, "slotsat", spec.backend)
            end = time.perf_counter()
            cpu = time.process_time() - cpu
        del module
        runs.append((end - start, parsed - start, cpu, compiled.engine, compiled.limits_hit, recorded))
        spent += end - start
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert compiled is not None  # (the text and the IR are the same in every run)
    runs.sort(key=lambda r: r[0])
    seconds, parse_seconds, cpu_seconds, engine, limits_hit, recorded = runs[len(runs) // 2]
    point: dict[str, Any] = {
        "shape": shape,
        "loops": loops,
        "functions": len(scan.scan_module(compiled.pto)),
        "lines": kernel.text.count("\n"),
        "seconds": seconds,
        "parse_seconds": parse_seconds,
        "compile_seconds": seconds - parse_seconds,
        "cpu_seconds": cpu_seconds,
        "phases": phase_breakdown(recorded, seconds),
        "compiler_reported": engine,
        "egraph_limits_hit": limits_hit,
        "repeats": len(runs),
        "peak_mb": peak_kb / 1024.0,
        "baseline_mb": baseline_kb / 1024.0,
    }
    if timed is not None:
        timed(dict(point))
    if not spec.probe:
        return point
    # The e-graph figures at this size, from the engine probe (after the timed runs and the
    # memory reading, so neither includes it).
    probes = probe.probe_functions([fn for program in compiled.module.programs for fn in program.functions],
                                   Mode.SLOTSAT)
    point.update({
        "saturate_seconds": sum(p.saturate_seconds for p in probes),
        "extract_seconds": sum(p.extract_seconds for p in probes),
        "egraph_nodes": sum(p.nodes for p in probes),
        "egraph_iterations": max((p.iterations for p in probes), default=0),
    })
    return point


def phase_breakdown(recorded: Mapping[str, float], total: float) -> dict[str, float]:
    """The recorded phases (seconds), plus for every phase with recorded sub-phases
    `<phase>.other` (its time outside them) and `unmarked` (`total` outside every top-level
    phase), so the leaves (`leaf_phases`) sum to `total`.

    A sub-phase is a name with one more dotted component than its parent (`codegen.saturate`
    under `codegen`); a sub-phase recorded without its parent is kept as it is."""
    out = dict(recorded)
    for name, seconds in recorded.items():
        depth = name.count(".") + 1
        children = [v for k, v in recorded.items() if k.startswith(name + ".") and k.count(".") == depth]
        if children:
            out[f"{name}.other"] = seconds - sum(children)
    top = sum(v for k, v in recorded.items() if "." not in k)
    out["unmarked"] = total - top
    return out


def leaf_phases(breakdown: Mapping[str, float]) -> dict[str, float]:
    """The phases of a `phase_breakdown` that no other entry subdivides: they sum to the
    point's seconds (a stacked plot stacks these)."""
    return {k: v for k, v in breakdown.items()
            if not any(other.startswith(k + ".") for other in breakdown)}


def scaling_env(env: Mapping[str, str]) -> dict[str, str]:
    """`env` with the limits a scaling point runs under raised to their floors: the
    10,000-loop file (about 5.5 MB) is over the parser's default 4 MiB input limit, and its
    e-graph over the default row limit (`SCALING_EGRAPH_ROWS`); higher settings are kept."""
    out = dict(env)
    floors: tuple[tuple[str, int | float], ...] = (
        ("SLOTSAT_MAX_FILE_BYTES", SCALING_MAX_FILE_BYTES),
        ("SLOTSAT_EGRAPH_NODES", SCALING_EGRAPH_ROWS),
        ("SLOTSAT_EGRAPH_SECONDS", SCALING_EGRAPH_SECONDS),
        ("SLOTSAT_EXTRACT_SECONDS", SCALING_EGRAPH_SECONDS),
    )
    for name, floor in floors:
        try:
            own = type(floor)(out.get(name, "0") or 0)
        except ValueError:
            own = floor  # not a number: the floor replaces it
        out[name] = str(max(floor, own))
    return out


def run_scaling_point(
    loops: int, seed: int, timeout: float, shape: str = DEFAULT_SHAPE, min_runs: int = 1
) -> dict[str, Any]:
    """`scaling_point` in a fresh subprocess; a crash is a point without figures, and so is a
    timeout before the timed runs end (one after them keeps the timing and memory figures,
    which the child prints first, and lacks only the e-graph probe's)."""
    cmd = [sys.executable, "-m", "slotsat.bench.scaling", "--scaling-point", str(loops), "--seed", str(seed),
           "--shape", shape, "--min-runs", str(min_runs)]
    env = scaling_env(os.environ)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, check=False)
    except subprocess.TimeoutExpired as err:
        out = err.stdout.decode() if isinstance(err.stdout, bytes) else (err.stdout or "")
        timed = [line for line in out.splitlines() if line.startswith("{")]
        if timed:
            partial: dict[str, Any] = json.loads(timed[-1])
            partial["probe_error"] = f"the e-graph probe timed out (the point's budget is {timeout:.0f} s)"
            return partial
        return {"shape": shape, "loops": loops, "seconds": None, "peak_mb": None,
                "error": f"timed out after {timeout:.0f} s"}
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"shape": shape, "loops": loops, "seconds": None, "peak_mb": None, "error": tail[:300]}
    point: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return point



STARTUP_RUNS = 5


def _bytecode_envs(tmp: Path) -> tuple[dict[str, str], dict[str, str]]:
    """(warm, cold) environments of a timed `slotsat` process: warm reads bytecode from a cache
    under `tmp` (`PYTHONPYCACHEPREFIX`, which an untimed run fills), as an installed package
    does; cold has `PYTHONDONTWRITEBYTECODE=1` and no cache prefix, so a module without a
    `__pycache__` next to it (the project's, in a checkout that never wrote one) is compiled
    from source."""
    warm = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    warm["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    cold = {k: v for k, v in os.environ.items() if k != "PYTHONPYCACHEPREFIX"}
    cold["PYTHONDONTWRITEBYTECODE"] = "1"
    return warm, cold


def startup_seconds(seed: int, timeout: float = 60.0) -> dict[str, Any]:
    """Wall clock of `python -m slotsat --version` and of `python -m slotsat parse FILE` on a
    one-loop kernel, each in a fresh process (interpreter start and imports included), the
    median of `STARTUP_RUNS` runs; a failed run is an `error`. The `_seconds` figures read
    bytecode from a cache, the `_cold_seconds` ones compile every module from source
    (`_bytecode_envs`)."""
    import statistics
    import tempfile

    kernel = generate_single_function(seed, 1, name="OneLoop")
    out: dict[str, Any] = {"runs": STARTUP_RUNS}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "one_loop.py"
        path.write_text(kernel.text)
        warm, cold = _bytecode_envs(Path(tmp))
        commands = (("version", ["--version"]), ("parse_one_loop", ["parse", str(path)]))
        settings = (("_seconds", warm, STARTUP_RUNS + 1), ("_cold_seconds", cold, STARTUP_RUNS))
        for suffix, env, runs in settings:
            for key, args in commands:
                times: list[float] = []
                for _ in range(runs):
                    start = time.perf_counter()
                    try:
                        proc = subprocess.run([sys.executable, "-m", "slotsat", *args], capture_output=True,
                                              timeout=timeout, check=False, env=env)
                    except subprocess.TimeoutExpired:
                        out["error"] = f"slotsat {args[0]} timed out after {timeout:.0f} s"
                        return out
                    times.append(time.perf_counter() - start)
                    if proc.returncode != 0:
                        out["error"] = f"slotsat {args[0]} exited {proc.returncode}"
                        return out
                out[key + suffix] = statistics.median(times[len(times) - STARTUP_RUNS:])
    return out


COMMAND_LOOPS = 1_000
"""The size whose `slotsat codegen` process `command_seconds` times (or the largest size of a
run below it)."""
COMMAND_RUNS = 3
"""Timed `slotsat codegen` processes per shape in a full run (one under `--quick`)."""


def command_seconds(shape: str, loops: int, seed: int, runs: int, timeout: float = 300.0) -> dict[str, Any]:
    """Wall clock of `python -m slotsat codegen FILE --backend B -o OUT` on the shape's
    `loops`-loop file, in a fresh process: interpreter start, imports, the e-graph templates a
    process builds once, parse, compile, writing the module and the exit. What a user of the
    command waits for, and what issue 14 measured (`slotsat codegen big1000.py --backend
    none`); the scaling points time parse + compile in a warmed-up process.

    Bytecode comes from a cache (`_bytecode_envs`) that one untimed run, on the shape's
    one-loop file, fills first. The median of `runs` runs; a failed or timed-out run is an
    `error` (with the figures of the runs before it)."""
    import statistics
    import tempfile

    spec = SHAPES[shape]
    out: dict[str, Any] = {"shape": shape, "loops": loops, "runs": runs,
                           "command": f"slotsat codegen FILE --backend {spec.backend} -o OUT.pto"}
    times: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        warm, _ = _bytecode_envs(Path(tmp))
        env = scaling_env(warm)
        files = []
        for n in (1, loops):
            path = Path(tmp) / f"{shape}_{n}.py"
            path.write_text(spec.generate(seed, n).text)
            files.append(path)
        for k in range(runs + 1):
            path = files[0] if k == 0 else files[1]
            cmd = [sys.executable, "-m", "slotsat", "codegen", str(path), "--backend", spec.backend,
                   "-o", str(Path(tmp) / "out.pto")]
            start = time.perf_counter()
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False,
                                      env=env)
            except subprocess.TimeoutExpired:
                out["error"] = f"slotsat codegen timed out after {timeout:.0f} s"
                break
            if proc.returncode != 0:
                tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
                out["error"] = f"slotsat codegen exited {proc.returncode}: {tail[:300]}"
                break
            if k > 0:
                times.append(time.perf_counter() - start)
    out["seconds"] = statistics.median(times) if times and "error" not in out else None
    out["times"] = times
    return out


def _main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m slotsat.bench.scaling")
    parser.add_argument("--scaling-point", type=int, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--shape", choices=sorted(SHAPES), default=DEFAULT_SHAPE)
    parser.add_argument("--min-runs", type=int, default=1, help="time the compile at least this many times")
    args = parser.parse_args(argv)

    def timed(point: dict[str, Any]) -> None:
        print(json.dumps(point), flush=True)  # kept by the parent if the probe runs out of time

    # The same limits however the point is started; the caller's environment is restored.
    saved = dict(os.environ)
    os.environ.update(scaling_env(os.environ))
    try:
        print(json.dumps(scaling_point(args.scaling_point, args.seed, args.shape, timed=timed,
                                       min_runs=max(1, args.min_runs))))
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
