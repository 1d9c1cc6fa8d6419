"""One kernel, every lowering: parse, compile in each compiled mode, derive the derived
lowerings, and measure each (`slotsat.bench.metrics`).

A kernel that does not compile keeps its error in `KernelResult.error` (the exception's type
and message); the run lists it as a failure and leaves it out of the totals.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from slotsat.bench import probe, scan
from slotsat.bench.config import KernelSource
from slotsat.bench.harness import compile_kernel, parse_kernel
from slotsat.bench.lowerings import COMPILED, DERIVED, LOWERINGS
from slotsat.bench.metrics import (
    Failure,
    Metrics,
    PairRewrite,
    Recorder,
    Unit,
    measure_units,
    probe_rotations,
    substituted_rotations,
)
from slotsat.bench.truth import Truth
from slotsat.core import ir
from slotsat.core.options import Mode


@dataclass(slots=True)
class KernelResult:
    name: str
    source: str
    path: str
    loops: int
    functions: int = 0
    lowerings: dict[str, Metrics] = field(default_factory=dict)
    egraph: dict[str, float | int] = field(default_factory=dict)
    engine: dict[str, float | int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    rules: dict[str, int] = field(default_factory=dict)
    """Matches per rule in the default-mode compile (every function's index engine)."""
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "source": self.source,
            "path": self.path,
            "loops": self.loops,
            "functions": self.functions,
            "lowerings": {k: v.to_json() for k, v in self.lowerings.items()},
            "egraph": self.egraph,
            "compiler_reported": self.engine,
            "seconds": self.seconds.get("slotsat"),
            "seconds_by_mode": self.seconds,
            "error": self.error,
        }


def _units(scanned: list[scan.Function], module: ir.Module, mode: Mode,
           probes: dict[int, probe.Probe], rewrite: PairRewrite | None = None) -> list[Unit]:
    """Pair each emitted function with its IR function and build its rotation pairs. Both lists
    are in program order; an emitted name may carry the `_N` suffix codegen adds when two
    programs define one function name."""
    pending = [f for program in module.programs for f in program.functions]
    units: list[Unit] = []
    for k, fn in enumerate(scanned):
        ir_fn = None
        for j, f in enumerate(pending):
            if fn.name == f.name or re.fullmatch(re.escape(f.name) + r"_\d+", fn.name) is not None:
                ir_fn = f
                del pending[: j + 1]
                break
        irg = probe.ir_gets(ir_fn) if ir_fn is not None else None
        if ir_fn is None or irg is None or len(irg) != len(fn.gets):
            units.append(Unit(fn, None, substituted_rotations(fn)))
            continue
        if k not in probes:
            probes[k] = probe.probe_function(ir_fn, mode)
        units.append(Unit(fn, irg, probe_rotations(fn, irg, probes[k], rewrite)))
    return units


def measure_kernel(src: KernelSource, failures: list[Failure],
                   truth_cache: dict[tuple[str, ...], Truth]) -> KernelResult:
    """Parse, compile in every compiled mode, derive the derived lowerings, measure them all."""
    result = KernelResult(src.name, src.source, src.path, src.loops)
    try:
        module = parse_kernel(src.text, src.path)
        compiled = {name: compile_kernel(module, mode.value) for name, mode in COMPILED.items()}
    except Exception as err:
        result.error = " ".join(f"{type(err).__name__}: {err}".split())[:300]
        return result
    scanned = {name: scan.scan_module(c.pto) for name, c in compiled.items()}
    probes: dict[str, dict[int, probe.Probe]] = {name: {} for name in COMPILED}
    units: dict[str, list[Unit]] = {}
    for name, mode in COMPILED.items():
        units[name] = _units(scanned[name], compiled[name].module, mode, probes[name])
    for name, derived in DERIVED.items():
        units[name] = _units(derived.functions(scanned[derived.base]), compiled[derived.base].module,
                             COMPILED[derived.base], probes[derived.base], derived.pair)
    result.functions = len(scanned["slotsat"])
    for name in LOWERINGS:
        rec = Recorder(src.name, name, failures, truth_cache)
        # The probe's operands mirror the compiled lowerings' emission, not a derived rewrite.
        result.lowerings[name] = measure_units(units[name], rec, None if name in DERIVED else probes[name])
    sat = probes["slotsat"].values()
    result.egraph = {
        "nodes": sum(p.nodes for p in sat),
        "iterations": max((p.iterations for p in sat), default=0),
        "saturate_seconds": sum(p.saturate_seconds for p in sat),
        "extract_seconds": sum(p.extract_seconds for p in sat),
    }
    result.engine = compiled["slotsat"].engine
    result.rules = compiled["slotsat"].rules
    result.seconds = {name: c.seconds for name, c in compiled.items()}
    return result

