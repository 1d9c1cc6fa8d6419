"""Compile-time scaling: end-to-end time and peak memory of one generated file per size.

Each size (1, 10, 100, 1,000 and, in a full run, 10,000 loops) runs in a fresh subprocess
(`python -m slotsat.bench.scaling --scaling-point N`) so that
`resource.getrusage(RUSAGE_SELF).ru_maxrss` is that size's own peak RSS and no tracing
slows the timed code. `SHAPES` names how a size becomes a kernel file; the subprocess
takes the shape's name, so a further shape (issue 14's single function) is one more entry.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from slotsat.bench import probe, scan
from slotsat.bench.generate import GeneratedKernel, generate_kernel
from slotsat.bench.harness import Compiled, compile_kernel, parse_kernel
from slotsat.core.options import Mode

SHAPES: dict[str, Callable[[int, int], GeneratedKernel]] = {
    "functions": generate_kernel,
}
"""How a scaling size becomes one kernel file, by name: `functions` spreads the loops over
generated functions of at most `generate.MAX_LOOPS_PER_FUNCTION` loops each."""

DEFAULT_SHAPE = "functions"

MIN_TIMED_SECONDS = 0.5
MAX_REPEATS = 25
SCALING_MAX_FILE_BYTES = 64 * 1024 * 1024
"""`SLOTSAT_MAX_FILE_BYTES` for the scaling subprocesses (the parser's default is 4 MiB)."""


def scaling_point(
    loops: int,
    seed: int,
    shape: str = DEFAULT_SHAPE,
    *,
    timed: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Time parse + compile (slotsat mode) of one generated file; run in a fresh process.

    A size whose first run takes under `MIN_TIMED_SECONDS` is repeated (at most
    `MAX_REPEATS` times, until that much time has passed) and the median run is reported,
    so the small sizes' ratios are not clock noise. `timed` receives the timing and memory
    figures as soon as they are measured, before the e-graph probe runs.
    """
    warm = generate_kernel(seed, 1, name="Warmup")
    compile_kernel(parse_kernel(warm.text, "warmup.py"), "slotsat")
    baseline_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kernel = SHAPES[shape](seed, loops)
    runs: list[tuple[float, float, Compiled]] = []
    spent = 0.0
    while not runs or (spent < MIN_TIMED_SECONDS and len(runs) < MAX_REPEATS):
        start = time.perf_counter()
        module = parse_kernel(kernel.text, f"{kernel.name}.py")
        parsed = time.perf_counter()
        compiled = compile_kernel(module, "slotsat")
        end = time.perf_counter()
        runs.append((end - start, parsed - start, compiled))
        spent += end - start
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    runs.sort(key=lambda r: r[0])
    seconds, parse_seconds, compiled = runs[len(runs) // 2]
    point: dict[str, Any] = {
        "loops": loops,
        "functions": len(scan.scan_module(compiled.pto)),
        "lines": kernel.text.count("\n"),
        "seconds": seconds,
        "parse_seconds": parse_seconds,
        "compile_seconds": seconds - parse_seconds,
        "compiler_reported": compiled.engine,
        "repeats": len(runs),
        "peak_mb": peak_kb / 1024.0,
        "baseline_mb": baseline_kb / 1024.0,
    }
    if timed is not None:
        timed(dict(point))
    # The e-graph figures at this size, from the engine probe (after the timed runs and the
    # memory reading, so neither includes it).
    probes = [probe.probe_function(fn, Mode.SLOTSAT) for program in compiled.module.programs
              for fn in program.functions]
    point.update({
        "saturate_seconds": sum(p.saturate_seconds for p in probes),
        "extract_seconds": sum(p.extract_seconds for p in probes),
        "egraph_nodes": sum(p.nodes for p in probes),
        "egraph_iterations": max((p.iterations for p in probes), default=0),
    })
    return point


def run_scaling_point(loops: int, seed: int, timeout: float, shape: str = DEFAULT_SHAPE) -> dict[str, Any]:
    """`scaling_point` in a fresh subprocess; a crash is a point without figures, and so is a
    timeout before the timed runs end (one after them keeps the timing and memory figures,
    which the child prints first, and lacks only the e-graph probe's)."""
    cmd = [sys.executable, "-m", "slotsat.bench.scaling", "--scaling-point", str(loops), "--seed", str(seed),
           "--shape", shape]
    env = dict(os.environ)
    # The 10,000-loop file (about 5.5 MB) is over the parser's default 4 MiB input limit.
    limit = max(SCALING_MAX_FILE_BYTES, int(env.get("SLOTSAT_MAX_FILE_BYTES", "0") or 0))
    env["SLOTSAT_MAX_FILE_BYTES"] = str(limit)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, check=False)
    except subprocess.TimeoutExpired as err:
        out = err.stdout.decode() if isinstance(err.stdout, bytes) else (err.stdout or "")
        timed = [line for line in out.splitlines() if line.startswith("{")]
        if timed:
            partial: dict[str, Any] = json.loads(timed[-1])
            partial["probe_error"] = f"the e-graph probe timed out (the point's budget is {timeout:.0f} s)"
            return partial
        return {"loops": loops, "seconds": None, "peak_mb": None, "error": f"timed out after {timeout:.0f} s"}
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"loops": loops, "seconds": None, "peak_mb": None, "error": tail[:300]}
    point: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return point



def _main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m slotsat.bench.scaling")
    parser.add_argument("--scaling-point", type=int, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--shape", choices=sorted(SHAPES), default=DEFAULT_SHAPE)
    args = parser.parse_args(argv)

    def timed(point: dict[str, Any]) -> None:
        print(json.dumps(point), flush=True)  # kept by the parent if the probe runs out of time

    print(json.dumps(scaling_point(args.scaling_point, args.seed, args.shape, timed=timed)))
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
