"""Writes the benchmark's report: `report.json`, `report.md` and PNG plots.

Everything here is a pure function of the JSON document `slotsat.bench.run` builds from one run,
so the Markdown tables, the plots and the JSON always show the same figures, and no figure
is typed in by hand. The targets of issue 7 (and the planning targets of
`60-egraph-engine.md` §11) are evaluated from those figures: each is met or missed, and a
miss says by how much.

JSON layout (the keys the issue fixes first, then slotsat's additions):

```
{"lowerings": {"naive" | "pypto" | "swap" | "slotsat": {"index_ops", "corrections", "slot_operands",
               "matcher_accepted", "pairs_resolved", "pairs_unknown", ...}},
 "gains": {"pypto" | "swap" | "naive": {"index_ops_ratio", "matcher_accepted", ...}},
 "rules": {"<rule>": matches, ...},
 "scaling": [{"loops", "seconds", "peak_mb", "phases": {"parse", "codegen", "codegen.other", ...}, ...}],
 "scaling_single": [...same, the single-function shape...], "startup": {"parse_one_loop_seconds", ...},
 "command": {"functions" | "single": {"loops", "seconds", "times", "command", ...}},
 "kernels": [{"name", "source", "loops", "lowerings": {...}, "egraph": {...}, ...}],
 "targets": [...], "soundness_failures": [...],
 "kernel_failures": [{"name", "source", "path", "error"}], "meta": {...}}
```
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from slotsat.bench.lowerings import LOWERINGS

METRICS: tuple[str, ...] = (
    "index_ops",
    "corrections",
    "slot_operands",
    "matcher_accepted",
    "pairs_resolved",
    "pairs_unknown",
)
EXTRA_METRICS: tuple[str, ...] = (
    "index_ops_text", "slot_ops", "pairs_equal", "pairs_disjoint", "same_block_pairs", "rotation_pairs",
    "ir_unmapped_gets", "probe_mismatches",
)

OPS_RATIO_TARGET = 0.85
OPS_VS_PYPTO_TARGET = 0.80
OPS_VS_SWAP_TARGET = 0.92
SECONDS_AT_1000_TARGET = 2.0
TENFOLD_RATIO_TARGET = 12.0
SATURATE_AT_1000_TARGET = 0.5
PEAK_MB_AT_1000_TARGET = 300.0
# Issue 14's compile-time targets.
SINGLE_SECONDS_AT_1000_TARGET = 2.0
TENFOLD_14_TARGET = 11.0
TENFOLD_14_STEPS: tuple[tuple[int, int], ...] = ((100, 1000), (1000, 10000))
SECONDS_AT_10000_TARGET = 25.0
PEAK_MB_AT_10000_TARGET = 1024.0
PARSE_ONE_LOOP_TARGET = 0.3
COMMAND_AT_1000_TARGET = 2.0
"""Issue 14's 1,000-loop bound, read as the `slotsat codegen` process it measured."""
SHAPE_KEYS: dict[str, str] = {"functions": "scaling", "single": "scaling_single"}
"""The report key of each scaling shape's points."""

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@dataclass(frozen=True, slots=True)
class Target:
    """One target: what it asks, the measured value, and met / missed (or not measured)."""

    name: str
    goal: str
    measured: str
    status: str  # "met", "missed" or "not measured"
    detail: str

    def to_json(self) -> dict[str, str]:
        return {
            "name": self.name,
            "goal": self.goal,
            "measured": self.measured,
            "status": self.status,
            "detail": self.detail,
        }


# --------------------------------------------------------------------------------------
# targets


def _lowering(kernel: Mapping[str, Any], name: str) -> Mapping[str, Any] | None:
    lowerings = kernel.get("lowerings")
    if not isinstance(lowerings, Mapping):
        return None
    value = lowerings.get(name)
    return value if isinstance(value, Mapping) else None


def _measured_kernels(data: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [k for k in data.get("kernels", []) if k.get("error") is None]


def _target_per_kernel_ops(data: Mapping[str, Any]) -> Target:
    goal = "slotsat emits no more index ops than pypto on any kernel"
    worst: tuple[int, str] | None = None
    violations = 0
    kernels = _measured_kernels(data)
    for k in kernels:
        s, p = _lowering(k, "slotsat"), _lowering(k, "pypto")
        if s is None or p is None:
            continue
        excess = int(s["index_ops"]) - int(p["index_ops"])
        if excess > 0:
            violations += 1
            if worst is None or excess > worst[0]:
                worst = (excess, str(k["name"]))
    if not kernels:
        return Target("ops-per-kernel", goal, "no kernels", "not measured", "no kernel compiled")
    measured = f"{violations} of {len(kernels)} kernels exceed pypto"
    if worst is None:
        return Target("ops-per-kernel", goal, measured, "met", "every kernel: slotsat <= pypto")
    return Target(
        "ops-per-kernel", goal, measured, "missed",
        f"worst: {worst[1]} emits {worst[0]} more index op(s) than pypto",
    )


def _target_total_ratio(data: Mapping[str, Any]) -> Target:
    goal = f"slotsat index ops <= {OPS_RATIO_TARGET} x pypto's on the random corpus"
    s_total = p_total = 0
    for k in _measured_kernels(data):
        if k.get("source") != "random":
            continue
        s, p = _lowering(k, "slotsat"), _lowering(k, "pypto")
        if s is None or p is None:
            continue
        s_total += int(s["index_ops"])
        p_total += int(p["index_ops"])
    if p_total == 0:
        return Target("ops-ratio", goal, "no random kernels", "not measured", "the random corpus is empty")
    ratio = s_total / p_total
    measured = f"{s_total} / {p_total} = {ratio:.3f}"
    if ratio <= OPS_RATIO_TARGET:
        return Target("ops-ratio", goal, measured, "met", f"{OPS_RATIO_TARGET - ratio:.3f} below the bound")
    over = s_total - math.floor(OPS_RATIO_TARGET * p_total)
    return Target(
        "ops-ratio", goal, measured, "missed",
        f"ratio {ratio:.3f} is {ratio - OPS_RATIO_TARGET:.3f} above {OPS_RATIO_TARGET} "
        f"({over} op(s) too many)",
    )


def _corpus_ratio(data: Mapping[str, Any], name: str, bound: float, base: str) -> Target:
    """slotsat's total index ops against `base`'s over every measured kernel of the corpus."""
    goal = f"total index ops: slotsat <= {bound} x {base} on the bench corpus"
    totals = data.get("lowerings", {})
    s, b = totals.get("slotsat"), totals.get(base)
    if not isinstance(s, Mapping) or not isinstance(b, Mapping) or int(b.get("index_ops", 0)) == 0:
        return Target(name, goal, f"no {base} ops", "not measured", "the corpus emitted no index ops")
    s_total, b_total = int(s["index_ops"]), int(b["index_ops"])
    ratio = s_total / b_total
    measured = f"{s_total} / {b_total} = {ratio:.3f}"
    if ratio <= bound:
        return Target(name, goal, measured, "met", f"{bound - ratio:.3f} below the bound")
    over = s_total - math.floor(bound * b_total)
    return Target(name, goal, measured, "missed",
                  f"ratio {ratio:.3f} is {ratio - bound:.3f} above {bound} ({over} op(s) too many)")


def _target_vs_pypto(data: Mapping[str, Any]) -> Target:
    return _corpus_ratio(data, "ops-vs-pypto", OPS_VS_PYPTO_TARGET, "pypto")


def _target_vs_swap(data: Mapping[str, Any]) -> Target:
    return _corpus_ratio(data, "ops-vs-swap", OPS_VS_SWAP_TARGET, "swap")


def gains(data: Mapping[str, Any]) -> dict[str, dict[str, float | int]]:
    """slotsat against each other lowering, over the corpus: its index ops as a fraction of
    theirs, and the differences in correction chains, accepted operands and resolved pairs."""
    totals = data.get("lowerings", {})
    s = totals.get("slotsat")
    out: dict[str, dict[str, float | int]] = {}
    if not isinstance(s, Mapping):
        return out
    for name in LOWERINGS:
        b = totals.get(name)
        if name == "slotsat" or not isinstance(b, Mapping):
            continue
        ops = int(b.get("index_ops", 0))
        out[name] = {
            "index_ops_ratio": round(int(s["index_ops"]) / ops, 4) if ops else 0.0,
            "index_ops_saved": ops - int(s["index_ops"]),
            "corrections_saved": int(b.get("corrections", 0)) - int(s["corrections"]),
            "matcher_accepted_gained": int(s["matcher_accepted"]) - int(b.get("matcher_accepted", 0)),
            "pairs_resolved_gained": int(s["pairs_resolved"]) - int(b.get("pairs_resolved", 0)),
        }
    return out


def gain_lines(data: Mapping[str, Any]) -> list[str]:
    """One sentence per baseline: what slotsat gains over it (report.md and the console)."""
    lines: list[str] = []
    for name, g in gains(data).items():
        lines.append(
            f"slotsat over {name}: index ops x{g['index_ops_ratio']:.3f} ({g['index_ops_saved']} fewer), "
            f"{g['corrections_saved']} fewer correction chains, {g['matcher_accepted_gained']} more "
            f"accepted slot operands, {g['pairs_resolved_gained']} more resolved pairs"
        )
    return lines


def _target_slot_ratio(data: Mapping[str, Any]) -> Target:
    """Informational: the same bound on slot-operand ops only, the part the two modes lower
    differently (non-slot index expressions lower identically, `30-pto-codegen.md` §7.4)."""
    goal = f"(informational) slot-operand ops: slotsat <= {OPS_RATIO_TARGET} x pypto on the random corpus"
    s_total = p_total = 0
    for k in _measured_kernels(data):
        s, p = _lowering(k, "slotsat"), _lowering(k, "pypto")
        if k.get("source") != "random" or s is None or p is None:
            continue
        s_total += int(s.get("slot_ops", 0))
        p_total += int(p.get("slot_ops", 0))
    if p_total == 0:
        return Target("slot-ops-ratio", goal, "no slot ops", "not measured",
                      "no random kernel has slot operands")
    ratio = s_total / p_total
    status = "met" if ratio <= OPS_RATIO_TARGET else "missed"
    detail = (f"{OPS_RATIO_TARGET - ratio:.3f} below the bound" if status == "met"
              else f"{ratio - OPS_RATIO_TARGET:.3f} above the bound")
    return Target("slot-ops-ratio", goal, f"{s_total} / {p_total} = {ratio:.3f}", status, detail)


def _target_accepted(data: Mapping[str, Any]) -> Target:
    goal = "every slot operand in slotsat mode is matcher-accepted"
    total = data.get("lowerings", {}).get("slotsat")
    if not isinstance(total, Mapping) or int(total.get("slot_operands", 0)) == 0:
        return Target("accepted", goal, "no slot operands", "not measured", "no multi_tile_get was emitted")
    operands, ok = int(total["slot_operands"]), int(total["matcher_accepted"])
    measured = f"{ok} of {operands} accepted"
    if ok == operands:
        return Target("accepted", goal, measured, "met", "all accepted")
    examples = [
        f"{k['name']} ({int(s['slot_operands']) - int(s['matcher_accepted'])})"
        for k in _measured_kernels(data)
        if (s := _lowering(k, "slotsat")) is not None and int(s["matcher_accepted"]) < int(s["slot_operands"])
    ]
    return Target(
        "accepted", goal, measured, "missed",
        f"{operands - ok} operand(s) not accepted, in {', '.join(examples[:5])}"
        + (" ..." if len(examples) > 5 else ""),
    )


def _scaling_at(data: Mapping[str, Any], loops: int, key: str = "scaling") -> Mapping[str, Any] | None:
    for point in data.get(key, []):
        if int(point["loops"]) == loops:
            return point  # type: ignore[no-any-return]
    return None


def _gap(seconds: float) -> str:
    """A time between a measurement and its bound: in milliseconds under 0.01 s, where two
    decimals of a second would read "0.00 s over"."""
    return f"{seconds:.2f} s" if seconds >= 0.01 else f"{seconds * 1000:.1f} ms"


def _target_thousand(data: Mapping[str, Any]) -> Target:
    goal = f"a 1,000-loop file end to end in <= {SECONDS_AT_1000_TARGET} s"
    point = _scaling_at(data, 1000)
    if point is None:
        return Target("time-1000", goal, "not run", "not measured", "the scaling run has no 1,000-loop point")
    if point.get("seconds") is None:
        return Target("time-1000", goal, str(point.get("error")), "missed",
                      "the 1,000-loop point did not finish")
    seconds = float(point["seconds"])
    measured = f"{seconds:.2f} s"
    partial = _partial(point)
    if partial is not None:
        return Target("time-1000", goal, measured, "not measured", partial)
    if seconds <= SECONDS_AT_1000_TARGET:
        spare = SECONDS_AT_1000_TARGET - seconds
        return Target("time-1000", goal, measured, "met", f"{_gap(spare)} to spare")
    return Target(
        "time-1000", goal, measured, "missed",
        f"{_gap(seconds - SECONDS_AT_1000_TARGET)} over ({seconds / SECONDS_AT_1000_TARGET:.1f}x the budget)",
    )


def tenfold_ratios(scaling: Sequence[Mapping[str, Any]]) -> list[tuple[int, int, float]]:
    """(loops, 10 * loops, time ratio) for every tenfold step the scaling run measured."""
    by_loops = {int(p["loops"]): float(p["seconds"]) for p in scaling if p.get("seconds") is not None}
    ratios: list[tuple[int, int, float]] = []
    for loops in sorted(by_loops):
        if 10 * loops in by_loops and by_loops[loops] > 0:
            ratios.append((loops, 10 * loops, by_loops[10 * loops] / by_loops[loops]))
    return ratios


def _target_tenfold(data: Mapping[str, Any]) -> Target:
    goal = f"ten times the loops costs <= {TENFOLD_RATIO_TARGET:g}x the time (every tenfold step)"
    ratios = tenfold_ratios(data.get("scaling", []))
    if not ratios:
        return Target("scaling", goal, "no tenfold step", "not measured", "fewer than two scaling points")
    measured = ", ".join(f"{a}->{b}: {r:.2f}x" for a, b, r in ratios)
    misses = [(a, b, r) for a, b, r in ratios if r > TENFOLD_RATIO_TARGET]
    if not misses:
        worst = max(r for _, _, r in ratios)
        return Target("scaling", goal, measured, "met", f"worst step {worst:.2f}x")
    detail = "; ".join(f"{a}->{b} is {r - TENFOLD_RATIO_TARGET:.2f}x over" for a, b, r in misses)
    return Target("scaling", goal, measured, "missed", detail)


def _target_soundness(data: Mapping[str, Any]) -> Target:
    goal = "no resolved pair contradicts the exact ground truth"
    failures = data.get("soundness_failures", [])
    checked = sum(
        int(low.get("pairs_resolved", 0))
        for k in _measured_kernels(data)
        for name in LOWERINGS
        if (low := _lowering(k, name)) is not None
    )
    measured = f"{len(failures)} failure(s) among {checked} resolved pairs"
    if not failures:
        return Target("soundness", goal, measured, "met", "every resolved answer agrees with evaluation")
    return Target("soundness", goal, measured, "missed", "; ".join(str(f["pair"]) for f in failures[:3]))


def _target_kernels(data: Mapping[str, Any]) -> Target:
    goal = "every kernel of the corpus compiles under every lowering"
    failed = data.get("kernel_failures", [])
    total = len(data.get("kernels", []))
    measured = f"{total - len(failed)} of {total} kernels compiled"
    if not failed:
        return Target("kernels", goal, measured, "met", "no kernel failed")
    names = ", ".join(str(f["name"]) for f in failed[:5]) + (", ..." if len(failed) > 5 else "")
    return Target("kernels", goal, measured, "missed", f"{len(failed)} failed: {names}")


def _target_engine(data: Mapping[str, Any]) -> list[Target]:
    point = _scaling_at(data, 1000)
    targets: list[Target] = []
    goal_sat = (f"saturation <= {SATURATE_AT_1000_TARGET} s at 1,000 loops (60 §11; engine probe, its "
                "e-graphs saturated as codegen saturates the module's)")
    goal_mem = f"peak RSS <= {PEAK_MB_AT_1000_TARGET:g} MB at 1,000 loops (60 §11)"
    if point is None:
        targets.append(Target("saturate-1000", goal_sat, "not run", "not measured", "no 1,000-loop point"))
        targets.append(Target("memory-1000", goal_mem, "not run", "not measured", "no 1,000-loop point"))
        return targets
    sat = point.get("saturate_seconds")
    partial = _partial(point)
    if partial is not None:
        targets.append(Target("saturate-1000", goal_sat, "partial", "not measured", partial))
        targets.append(Target("memory-1000", goal_mem, "partial", "not measured", partial))
        return targets
    if point.get("seconds") is None:
        targets.append(Target("saturate-1000", goal_sat, "not finished", "not measured",
                              str(point.get("error"))))
    elif sat is None:
        targets.append(Target("saturate-1000", goal_sat, "not reported", "not measured",
                              str(point.get("probe_error") or "the engine reported no saturation time")))
    else:
        sat = float(sat)
        status = "met" if sat <= SATURATE_AT_1000_TARGET else "missed"
        detail = (f"{SATURATE_AT_1000_TARGET - sat:.2f} s to spare" if status == "met"
                  else f"{sat - SATURATE_AT_1000_TARGET:.2f} s over")
        targets.append(Target("saturate-1000", goal_sat, f"{sat:.2f} s", status, detail))
    if point.get("peak_mb") is None:
        targets.append(Target("memory-1000", goal_mem, "not finished", "not measured",
                              str(point.get("error"))))
        return targets
    mb = float(point["peak_mb"])
    status = "met" if mb <= PEAK_MB_AT_1000_TARGET else "missed"
    detail = (f"{PEAK_MB_AT_1000_TARGET - mb:.0f} MB to spare" if status == "met"
              else f"{mb - PEAK_MB_AT_1000_TARGET:.0f} MB over")
    targets.append(Target("memory-1000", goal_mem, f"{mb:.0f} MB", status, detail))
    return targets


def _target_seconds(data: Mapping[str, Any], shape: str, loops: int, bound: float) -> Target:
    name = f"{shape}-time-{loops}"
    goal = f"{shape} shape: {loops:,} loops end to end in <= {bound:g} s (issue 14)"
    point = _scaling_at(data, loops, SHAPE_KEYS[shape])
    missing = f"the run has no {loops:,}-loop {shape} point"
    if point is None:
        return Target(name, goal, "not run", "not measured", missing)
    if point.get("seconds") is None:
        return Target(name, goal, str(point.get("error")), "missed",
                      f"the {loops:,}-loop point did not finish")
    seconds = float(point["seconds"])
    partial = _partial(point)
    if partial is not None:
        return Target(name, goal, f"{seconds:.2f} s", "not measured", partial)
    if seconds <= bound:
        return Target(name, goal, f"{seconds:.2f} s", "met", f"{_gap(bound - seconds)} to spare")
    return Target(name, goal, f"{seconds:.2f} s", "missed",
                  f"{_gap(seconds - bound)} over ({seconds / bound:.1f}x the budget)")


def _partial(point: Mapping[str, Any]) -> str | None:
    """Why a point's figures are not those of a whole compilation (it hit an e-graph limit
    and stopped saturating early), else None."""
    hits = point.get("egraph_limits_hit") or []
    if not hits:
        return None
    return f"the compile hit an e-graph limit and did less than the whole work ({'; '.join(hits)})"


def _target_memory(data: Mapping[str, Any], shape: str, loops: int, bound: float) -> Target:
    name = f"{shape}-memory-{loops}"
    goal = f"{shape} shape: peak RSS <= {bound:g} MB at {loops:,} loops (issue 14)"
    point = _scaling_at(data, loops, SHAPE_KEYS[shape])
    if point is None:
        return Target(name, goal, "not run", "not measured",
                      f"the run has no {loops:,}-loop {shape} point")
    if point.get("peak_mb") is None:
        return Target(name, goal, "not finished", "not measured", str(point.get("error")))
    mb = float(point["peak_mb"])
    partial = _partial(point)
    if partial is not None:
        return Target(name, goal, f"{mb:.0f} MB", "not measured", partial)
    if mb <= bound:
        return Target(name, goal, f"{mb:.0f} MB", "met", f"{bound - mb:.0f} MB to spare")
    return Target(name, goal, f"{mb:.0f} MB", "missed", f"{mb - bound:.0f} MB over")


def _target_tenfold_14(data: Mapping[str, Any], shape: str) -> Target:
    name = f"{shape}-tenfold"
    steps = ", ".join(f"{a:,}->{b:,}" for a, b in TENFOLD_14_STEPS)
    goal = f"{shape} shape: ten times the loops costs <= {TENFOLD_14_TARGET:g}x the time ({steps}; issue 14)"
    points = data.get(SHAPE_KEYS[shape], [])
    partial = {int(p["loops"]) for p in points if _partial(p) is not None}
    ratios = {(a, b): r for a, b, r in tenfold_ratios(points)
              if (a, b) in TENFOLD_14_STEPS and a not in partial and b not in partial}
    if not ratios:
        return Target(name, goal, "no such step", "not measured", f"the run measured none of {steps}")
    measured = ", ".join(f"{a}->{b}: {r:.2f}x" for (a, b), r in sorted(ratios.items()))
    missing = [f"{a:,}->{b:,}" + (" (an e-graph limit was hit)" if {a, b} & partial else "")
               for a, b in TENFOLD_14_STEPS if (a, b) not in ratios]
    misses = [(a, b, r) for (a, b), r in sorted(ratios.items()) if r > TENFOLD_14_TARGET]
    if misses:
        detail = "; ".join(f"{a}->{b} is {r - TENFOLD_14_TARGET:.2f}x over" for a, b, r in misses)
        return Target(name, goal, measured, "missed", detail)
    if missing:
        return Target(name, goal, measured, "not measured", f"not measured: {', '.join(missing)}")
    return Target(name, goal, measured, "met", f"worst step {max(ratios.values()):.2f}x")


def _target_parse_one_loop(data: Mapping[str, Any]) -> Target:
    name = "parse-one-loop"
    goal = (f"`slotsat parse` of a one-loop kernel in <= {PARSE_ONE_LOOP_TARGET:g} s, process start "
            "included (issue 14)")
    startup = data.get("startup") or {}
    seconds = startup.get("parse_one_loop_seconds")
    if seconds is None:
        return Target(name, goal, "not run", "not measured", str(startup.get("error") or "no scaling run"))
    seconds = float(seconds)
    measured = f"{seconds:.3f} s"
    if seconds <= PARSE_ONE_LOOP_TARGET:
        return Target(name, goal, measured, "met", f"{PARSE_ONE_LOOP_TARGET - seconds:.3f} s to spare")
    return Target(name, goal, measured, "missed", f"{seconds - PARSE_ONE_LOOP_TARGET:.3f} s over")


def _target_command(data: Mapping[str, Any], shape: str) -> Target:
    name = f"{shape}-command-1000"
    goal = (f"{shape} shape: `slotsat codegen` of the 1,000-loop file in <= {COMMAND_AT_1000_TARGET:g} s, "
            "process start to exit (issue 14)")
    figure = (data.get("command") or {}).get(shape)
    if figure is None:
        return Target(name, goal, "not run", "not measured", f"the run timed no {shape} command")
    loops = int(figure.get("loops", 0))
    if figure.get("seconds") is None:
        return Target(name, goal, "not finished", "not measured", str(figure.get("error")))
    seconds = float(figure["seconds"])
    measured = f"{seconds:.2f} s"
    if loops != 1000:
        return Target(name, goal, measured, "not measured", f"timed at {loops:,} loops, not 1,000")
    if seconds <= COMMAND_AT_1000_TARGET:
        return Target(name, goal, measured, "met", f"{_gap(COMMAND_AT_1000_TARGET - seconds)} to spare")
    over = seconds - COMMAND_AT_1000_TARGET
    return Target(name, goal, measured, "missed",
                  f"{_gap(over)} over ({seconds / COMMAND_AT_1000_TARGET:.1f}x the budget)")


def compile_time_targets(data: Mapping[str, Any]) -> list[Target]:
    """Issue 14's targets, from the scaling points of both shapes, the timed `slotsat codegen`
    processes and the startup figures."""
    targets = [_target_seconds(data, "single", 1000, SINGLE_SECONDS_AT_1000_TARGET)]
    targets += [_target_command(data, shape) for shape in SHAPE_KEYS]
    for shape in SHAPE_KEYS:
        targets.append(_target_tenfold_14(data, shape))
        targets.append(_target_seconds(data, shape, 10000, SECONDS_AT_10000_TARGET))
        targets.append(_target_memory(data, shape, 10000, PEAK_MB_AT_10000_TARGET))
    targets.append(_target_parse_one_loop(data))
    return targets


def evaluate_targets(data: Mapping[str, Any]) -> list[Target]:
    """Every target, evaluated from the run's own figures."""
    return [
        _target_per_kernel_ops(data),
        _target_vs_pypto(data),
        _target_vs_swap(data),
        _target_total_ratio(data),
        _target_slot_ratio(data),
        _target_accepted(data),
        _target_thousand(data),
        _target_tenfold(data),
        _target_soundness(data),
        _target_kernels(data),
        *_target_engine(data),
        *compile_time_targets(data),
    ]


# --------------------------------------------------------------------------------------
# Markdown


def _table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines


def _fmt_s(x: object) -> str:
    return "-" if x is None else f"{float(str(x)):.3f}"


def _fmt_mb(x: object) -> str:
    return "-" if x is None else f"{float(str(x)):.1f}"


def summary_rows(data: Mapping[str, Any]) -> list[list[str]]:
    """The summary table (one row per lowering), shared by report.md and the console."""
    rows: list[list[str]] = []
    for name in LOWERINGS:
        low = data["lowerings"].get(name)
        if low is None:
            continue
        rows.append([name, *(str(low[m]) for m in METRICS)])
    return rows


SUMMARY_HEADER: tuple[str, ...] = ("lowering", *METRICS)
SHORT_HEADER: tuple[str, ...] = ("lowering", "index ops", "corrections", "slot operands", "accepted",
                                 "resolved", "unknown")
"""Console column titles for SUMMARY_HEADER (same order)."""

SUMMARY_LEGEND: tuple[str, ...] = (
    "naive: no proof at all, every signed floor-mod / floor-div carries its correction (derived from pypto)",
    "pypto: the reference's lowering (--mode pypto: syntactic proof, remsi / divsi, node by node)",
    "swap: pypto with remsi / divsi swapped for remui / divui wherever its syntactic proof held "
    "(derived from pypto, no e-graph)",
    "slotsat: the default mode (interval proofs, remui / divui, e-graph extraction)",
    "index ops: arith ops in the emitted .pto except constants (arith.floordivsi counts 4)",
    "corrections: floor-mod / floor-div correction chains emitted (select or floordivsi ops)",
    "slot operands: pto.multi_tile_get operands; accepted: those ptoas's (symbol + constant) mod N "
    "slot matcher accepts",
    "resolved / unknown: pairs of slot operands the matcher proves equal or disjoint / cannot decide",
)
"""One line per lowering (row) and per column of the summary table, for the console and report.md."""


_COMPARED: tuple[str, ...] = ("pypto", "swap", "slotsat")
"""The lowerings the per-kernel matcher columns compare (naive's classes equal pypto's)."""
_INITIAL: dict[str, str] = {"naive": "n", "pypto": "p", "swap": "w", "slotsat": "s"}


def render_markdown(data: Mapping[str, Any]) -> str:
    meta = data.get("meta", {})
    lines = ["# slotsat bench report", ""]
    lines.append(f"Command: `{meta.get('command', 'slotsat bench')}`  ")
    lines.append(
        f"Seed {meta.get('seed')}, {'quick' if meta.get('quick') else 'full'} run, "
        f"{meta.get('python', '?')}, egglog {meta.get('egglog', '?')}, "
        f"{meta.get('cpus', '?')} CPU(s), 1-minute load {meta.get('load_average', '?')} (before, after), "
        f"wall time {float(meta.get('wall_seconds', 0.0)):.1f} s."
    )
    lines.append("Every figure below was measured by this run.")
    lines += ["", "## Totals per lowering", ""]
    lines += _table(SUMMARY_HEADER, summary_rows(data))
    lines += ["", *(f"- {line}" for line in SUMMARY_LEGEND)]
    lines += ["", *(f"- {line}" for line in gain_lines(data))]
    extra_rows = [
        [name, *(str(data["lowerings"][name].get(m, "-")) for m in EXTRA_METRICS)]
        for name in LOWERINGS
        if name in data["lowerings"]
    ]
    lines += ["", *_table(("lowering", *EXTRA_METRICS), extra_rows)]

    lines += ["", "## Targets", ""]
    target_rows = [[t["name"], t["goal"], t["measured"], f"**{t['status']}**", t["detail"]]
                   for t in data.get("targets", [])]
    lines += _table(("target", "goal", "measured", "status", "detail"), target_rows)

    crashed = data.get("kernel_failures", [])
    if crashed:
        lines += ["", "## Kernel failures", ""]
        lines += [f"- {f['name']} ({f['source']}, {f['path']}): {f['error']}" for f in crashed]

    failures = data.get("soundness_failures", [])
    if failures:
        lines += ["", "## Soundness failures", ""]
        lines += [f"- {f['pair']}: model {f['model']}, ground truth {f['truth']}" for f in failures]

    lines += ["", "## Scaling (slotsat mode, end to end)", ""]
    ratios = {b: r for _, b, r in tenfold_ratios(data.get("scaling", []))}
    scaling_rows = [
        [p["loops"], p.get("functions", "-"), _fmt_s(p["seconds"]), _fmt_s(p.get("parse_seconds")),
         _fmt_s(p.get("compile_seconds")), _fmt_s(p.get("saturate_seconds")),
         _fmt_s(p.get("extract_seconds")), _fmt_mb(p["peak_mb"]), _fmt_mb(p.get("baseline_mb")),
         p.get("repeats", "-"),
         f"{ratios[int(p['loops'])]:.2f}x" if int(p["loops"]) in ratios else "-",
         p.get("error") or p.get("probe_error") or ""]
        for p in data.get("scaling", [])
    ]
    lines += _table(("loops", "functions", "seconds", "parse s", "compile s", "saturate s", "extract s",
                     "peak MB", "baseline MB", "runs", "ratio vs /10", "error"), scaling_rows)

    single = data.get("scaling_single", [])
    if single:
        lines += ["", "## Scaling, every loop in one function (slotsat mode, --backend none)", ""]
        single_ratios = {b: r for _, b, r in tenfold_ratios(single)}
        header = ("loops", "lines", "seconds", "CPU s", "peak MB", "baseline MB", "runs", "ratio vs /10",
                  "error")
        lines += _table(header, [
            [p["loops"], p.get("lines", "-"), _fmt_s(p["seconds"]), _fmt_s(p.get("cpu_seconds")),
             _fmt_mb(p["peak_mb"]),
             _fmt_mb(p.get("baseline_mb")), p.get("repeats", "-"),
             f"{single_ratios[int(p['loops'])]:.2f}x" if int(p["loops"]) in single_ratios else "-",
             p.get("error") or ""]
            for p in single
        ])
    phase_rows, phase_names = phase_table(data)
    if phase_rows:
        lines += ["", "## Compile-time phases (seconds of the reported run)", ""]
        lines += _table(("shape", "loops", "seconds", *phase_names), phase_rows)
        lines += ["", "Sub-phases (`codegen.saturate`, ...) are included in their parent; `X.other` is X "
                  "outside its recorded sub-phases; `unmarked` is the run outside every top-level phase."]
    startup = data.get("startup") or {}
    if startup.get("parse_one_loop_seconds") is not None:
        lines += ["", f"Startup: `slotsat --version` {_fmt_s(startup.get('version_seconds'))} s, "
                  f"`slotsat parse` of a one-loop kernel {_fmt_s(startup['parse_one_loop_seconds'])} s "
                  f"(fresh processes with a bytecode cache, the median of {startup.get('runs', '?')} "
                  f"runs); without one (every module compiled from source): "
                  f"{_fmt_s(startup.get('version_cold_seconds'))} s and "
                  f"{_fmt_s(startup.get('parse_one_loop_cold_seconds'))} s."]
    commands = data.get("command") or {}
    if commands:
        lines += ["", "`slotsat codegen` end to end (a fresh process: start, imports, e-graph templates, "
                  "parse, compile, write, exit; the median of the runs):", ""]
        lines += _table(("shape", "loops", "command", "seconds", "each run (s)", "error"), [
            [shape, f"{int(c.get('loops', 0)):,}", f"`{c.get('command', '')}`", _fmt_s(c.get("seconds")),
             ", ".join(f"{t:.2f}" for t in c.get("times", [])) or "-", c.get("error") or ""]
            for shape, c in commands.items()
        ])

    lines += ["", "## Per kernel", ""]
    kernel_rows: list[list[object]] = []
    for k in data.get("kernels", []):
        if k.get("error") is not None:
            kernel_rows.append([k["name"], k["source"], k["loops"], f"error: {k['error']}", *["-"] * 9])
            continue
        low = {x: _lowering(k, x) or {} for x in LOWERINGS}
        eg = k.get("egraph", {})

        def row(key: str, names: Sequence[str], low: dict[str, Mapping[str, Any]] = low) -> str:
            return " / ".join(str(low[x].get(key, "-")) for x in names)

        kernel_rows.append([
            k["name"], k["source"], k["loops"],
            row("index_ops", LOWERINGS), row("corrections", LOWERINGS),
            f"{row('matcher_accepted', _COMPARED)} of {low['slotsat'].get('slot_operands', '-')}",
            row("pairs_resolved", _COMPARED), row("pairs_unknown", _COMPARED),
            eg.get("nodes", "-"), eg.get("iterations", "-"),
            _fmt_s(eg.get("saturate_seconds")), _fmt_s(eg.get("extract_seconds")), _fmt_s(k.get("seconds")),
        ])
    initials = "/".join(_INITIAL[x] for x in LOWERINGS)
    lines += _table(
        ("kernel", "source", "loops", f"index ops {initials}", f"corrections {initials}",
         "accepted p/w/s of N", "resolved p/w/s", "unknown p/w/s", "e-graph nodes", "iterations",
         "saturate s", "extract s", "compile s"),
        kernel_rows,
    )

    rules = data.get("rules", {})
    if rules:
        lines += ["", "## Rules fired (default mode, every function of the corpus)", ""]
        lines += _table(("rule", "ruleset", "matches"),
                        [[name, r["ruleset"], r["matches"]] for name, r in rules.items()])
        never = [name for name, r in rules.items() if int(r["matches"]) == 0]
        lines += ["", f"{len(rules) - len(never)} of {len(rules)} rules fired"
                  + (f"; never: {', '.join(never)}" if never else "") + "."]

    notes = data.get("notes", [])
    if notes:
        lines += ["", "## Method", ""]
        lines += [f"- {note}" for note in notes]
    plots = data.get("plots", [])
    if plots:
        lines += ["", "## Plots", ""]
        lines += [f"![{Path(p).stem}]({p})" for p in plots]
    return "\n".join(lines) + "\n"


def _phase_order(names: set[str]) -> list[str]:
    """Phases in pipeline order (parse, slots, replication, init-memref, codegen, then any
    other), each followed by its sub-phases, `unmarked` last."""
    pipeline = ["parse", "slots", "replication", "init-memref", "codegen", "print"]

    def key(name: str) -> tuple[int, str, int, str]:
        top = name.split(".", maxsplit=1)[0]
        if top in pipeline:
            rank = pipeline.index(top)
        else:
            rank = len(pipeline) + 1 if top == "unmarked" else len(pipeline)
        leaf = name.rsplit(".", maxsplit=1)[-1]
        return rank, top, name.count("."), "~" if leaf == "other" else name

    return sorted(names, key=key)


def phase_table(data: Mapping[str, Any]) -> tuple[list[list[object]], list[str]]:
    """One row per measured scaling point of either shape: its seconds and every recorded
    phase (the union of the points' phase names, in pipeline order)."""
    points = [(shape, p) for shape, key in SHAPE_KEYS.items() for p in data.get(key, [])
              if p.get("seconds") is not None and p.get("phases")]
    names = _phase_order({k for _, p in points for k in p["phases"]})
    rows: list[list[object]] = [
        [shape, p["loops"], _fmt_s(p["seconds"]), *(_fmt_s(p["phases"].get(n)) for n in names)]
        for shape, p in points
    ]
    return rows, names


# --------------------------------------------------------------------------------------
# plots


def _plot_ops(data: Mapping[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [n for n in LOWERINGS if n in data["lowerings"]]
    series = [
        ("index ops", "index_ops", "#4c72b0"),
        ("slot-operand ops", "slot_ops", "#55a868"),
        ("correction chains", "corrections", "#dd8452"),
        ("matcher-accepted slot operands", "matcher_accepted", "#8172b2"),  # where swap parts from pypto
    ]
    fig, ax = plt.subplots(figsize=(7.2, 3.8), dpi=100)
    xs = range(len(names))
    width = 0.2
    for k, (label, key, color) in enumerate(series):
        values = [int(data["lowerings"][n].get(key, 0)) for n in names]
        offsets = [x + (k - (len(series) - 1) / 2) * width for x in xs]
        ax.bar(offsets, values, width=width, label=label, color=color)
        for x, v in zip(offsets, values, strict=True):
            ax.annotate(str(v), (x, v), ha="center", va="bottom", fontsize=7)
    ax.set_xticks(list(xs), names)
    ax.set_ylabel("count over the corpus")
    ax.set_title("Emitted index arithmetic and accepted slot operands per lowering")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _plot_scaling(data: Mapping[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    points = sorted((p for p in data.get("scaling", []) if p.get("seconds") is not None),
                    key=lambda p: int(p["loops"]))
    loops = [int(p["loops"]) for p in points]
    seconds = [max(float(p["seconds"]), 1e-6) for p in points]
    mb = [float(p["peak_mb"]) for p in points]
    fig, ax = plt.subplots(figsize=(6.0, 3.6), dpi=100)
    ax.loglog(loops, seconds, "o-", color="#4c72b0", label="end-to-end seconds")
    if loops:
        linear = [seconds[0] * x / loops[0] for x in loops]
        ax.loglog(loops, linear, ":", color="gray", label="linear from the first point")
    single = sorted((p for p in data.get("scaling_single", []) if p.get("seconds") is not None),
                    key=lambda p: int(p["loops"]))
    if single:
        ax.loglog([int(p["loops"]) for p in single], [max(float(p["seconds"]), 1e-6) for p in single],
                  "^-", color="#8172b2", label="end-to-end seconds, one function")
    ax.axhline(SECONDS_AT_1000_TARGET, color="#c44e52", lw=0.8, ls="--", label="2 s target (1,000 loops)")
    ax.set_xlabel("loops per file")
    ax.set_ylabel("seconds")
    ax2 = ax.twinx()
    ax2.plot(loops, mb, "s--", color="#55a868", label="peak RSS (MB)")
    ax2.set_ylabel("peak RSS (MB)")
    handles = ax.get_legend_handles_labels()[0] + ax2.get_legend_handles_labels()[0]
    labels = ax.get_legend_handles_labels()[1] + ax2.get_legend_handles_labels()[1]
    ax.legend(handles, labels, fontsize=7, loc="upper left")
    ax.set_title("Compile-time scaling (slotsat mode; circles: many functions)")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _plot_phases(data: Mapping[str, Any], path: Path) -> None:
    """Stacked bars per shape: milliseconds per loop of every leaf phase at each size (a flat
    stack is linear scaling; a phase whose share grows with the size is super-linear)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from slotsat.bench.scaling import leaf_phases

    shapes = [(shape, [p for p in data.get(key, []) if p.get("seconds") is not None and p.get("phases")])
              for shape, key in SHAPE_KEYS.items()]
    shapes = [(shape, points) for shape, points in shapes if points]
    fig, axes = plt.subplots(1, max(len(shapes), 1), figsize=(5.2 * max(len(shapes), 1), 4.0), dpi=100,
                             squeeze=False)
    leaves = _phase_order({k for _, points in shapes for p in points for k in leaf_phases(p["phases"])})
    cmap = plt.get_cmap("tab20")
    colors = {name: cmap(k % 20) for k, name in enumerate(leaves)}
    for ax, (shape, points) in zip(axes[0], shapes, strict=False):
        labels = [f"{int(p['loops']):,}" for p in points]
        bottoms = [0.0] * len(points)
        for name in leaves:
            values = [1000.0 * max(float(leaf_phases(p["phases"]).get(name, 0.0)), 0.0) / int(p["loops"])
                      for p in points]
            ax.bar(labels, values, bottom=bottoms, color=colors[name], label=name, width=0.6)
            bottoms = [b + v for b, v in zip(bottoms, values, strict=True)]
        for x, (b, p) in enumerate(zip(bottoms, points, strict=True)):
            ax.annotate(f"{float(p['seconds']):.2f} s", (x, b), ha="center", va="bottom", fontsize=7)
        ax.set_xlabel("loops")
        ax.set_ylabel("ms per loop")
        ax.set_title(f"{shape} shape: time per loop by phase")
    if not shapes:
        axes[0][0].set_title("no scaling point measured")
    handles, names = axes[0][0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, names, fontsize=7, loc="center right")
        fig.tight_layout(rect=(0.0, 0.0, 0.82, 1.0))
    else:
        fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def write_plots(data: Mapping[str, Any], out: Path) -> list[str]:
    """Write the PNG plots into `out`; returns their file names."""
    files = ["ops_per_lowering.png", "scaling.png", "phases.png"]
    _plot_ops(data, out / files[0])
    _plot_scaling(data, out / files[1])
    _plot_phases(data, out / files[2])
    return files


def write_report(data: dict[str, Any], out: Path) -> None:
    """Evaluate the targets, then write report.json, report.md and the plots into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    data["targets"] = [t.to_json() for t in evaluate_targets(data)]
    data["gains"] = gains(data)
    data["plots"] = write_plots(data, out)
    (out / "report.json").write_text(json.dumps(data, indent=2, sort_keys=False) + "\n")
    (out / "report.md").write_text(render_markdown(data))
