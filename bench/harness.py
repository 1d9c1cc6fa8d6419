"""The compiler under test: parse and compile one kernel the way every lowering does.

`compile_kernel(module, mode)` runs `slotsat.app.pipeline.compile_module` in one `--mode`
and times it; `Compiled` keeps what the measurement reads back (the `.pto` text, the IR
codegen saw, the engine figures the compiler reports about itself).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from slotsat.core import ir


@dataclass(slots=True)
class Compiled:
    """What the benchmark needs from one compilation: the text, the IR codegen read, and any
    engine figures the compiler reports about itself."""

    pto: str
    module: ir.Module
    seconds: float
    engine: dict[str, float | int] = field(default_factory=dict)
    rules: dict[str, int] = field(default_factory=dict)
    """Matches per rule over the compile's index-engine saturations."""
    limits_hit: list[str] = field(default_factory=list)
    """The e-graph limits the compile hit (`limits_hit`): a compile that hit one did less than
    the whole work, so its time is not the whole compilation's."""


def parse_kernel(text: str, path: str) -> ir.Module:
    """Parse DSL text with the project's parser."""
    from slotsat.core.dsl.parser import parse_source

    return parse_source(text, path)


def engine_figures(result: Any) -> dict[str, float | int]:
    """The e-graph figures a compile result reports (nodes, iterations, seconds), summed over
    its functions. Reads `engine_reports` / `stats` when the pipeline provides them."""
    figures: dict[str, float | int] = {}
    reports = list(getattr(result, "engine_reports", None) or [])
    stats = getattr(result, "stats", None)
    if stats is not None:
        reports.append(stats)
    for rep in reports:
        items = rep.items() if isinstance(rep, Mapping) else (
            (k, getattr(rep, k)) for k in dir(rep) if not k.startswith("_")
        )
        for key, value in items:
            if isinstance(value, bool) or not isinstance(value, int | float):
                continue
            figures[key] = figures.get(key, 0) + value
    return figures


def rule_matches(result: Any) -> dict[str, int]:
    """Matches per rule name, summed over a compile result's engine reports."""
    out: dict[str, int] = {}
    for rep in getattr(result, "engine_reports", None) or []:
        matches = rep.get("matches") if isinstance(rep, Mapping) else getattr(rep, "matches", None)
        for name, count in (matches or {}).items():
            out[name] = out.get(name, 0) + int(count)
    return out


def limits_hit(result: Any) -> list[str]:
    """The e-graph limits a compile result reports: each index engine's (`limit_hit` of its
    engine report) and each loop the slots pass declined for one (`egraph-limit`)."""
    out = [str(rep["limit_hit"]) for rep in getattr(result, "engine_reports", None) or []
           if isinstance(rep, Mapping) and rep.get("limit_hit")]
    from slotsat.lowering.lower_pipeline_to_slots import EGRAPH_LIMIT

    out += [f"slots pass: {d.message}" for d in getattr(result, "declines", None) or []
            if getattr(d, "code", None) == EGRAPH_LIMIT]
    return sorted(set(out))


def compile_kernel(module: ir.Module, mode: str, backend: str = "910b") -> Compiled:
    """Compile a parsed module in `mode` ("pypto" or "slotsat") for `backend` (a `--backend`
    spelling) and time it."""
    from slotsat.analysis.budget import Backend
    from slotsat.app.pipeline import CompileOptions, compile_module
    from slotsat.core.options import Mode

    start = time.perf_counter()
    result = compile_module(module, CompileOptions(mode=Mode.parse(mode), backend=Backend.parse(backend)))
    seconds = time.perf_counter() - start
    return Compiled(result.pto_text, result.module, seconds, engine_figures(result), rule_matches(result),
                    limits_hit(result))

