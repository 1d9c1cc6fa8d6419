"""Named schedules and the bounded-repetition runner (`60-egraph-engine.md` §8).

A schedule is a named list of steps making up one *round*; analyses saturate before the
rewrites of the same round run once. The runner repeats the round in Python (at most the
schedule's cap, `Limits.cap_for(name)`, overridable by `SLOTSAT_CAP_<NAME>`), stopping at
the first round whose run report says nothing was updated: the cap never depends on
egglog's `until` handling, which `run(schedule, until)` ignores (§10). Reaching a cap, the
row limit or the time limit stops the run and is reported in `ScheduleRun`.

With `A = (widths + nonneg_syntactic).saturate()` (the analyses, saturated first):

| Schedule | One round | Used by |
| --- | --- | --- |
| `SLOTS_FORMS` | `A`, then `ir_forms` | slots pass (after its own `slotize`) |
| `CODEGEN_SYNTACTIC` | `A` | `--mode pypto` (explore) |
| `CODEGEN_SLOTS` | `A`, `intervals.saturate()`, then `slot_forms + lower_arith` | default-mode slots |
| `INTERVALS_ONLY` | `A`, `intervals.saturate()` | proof comparisons |
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from egglog import EGraph, Schedule

from slotsat.egraph_rules.intervals import intervals
from slotsat.egraph_rules.lang import widths
from slotsat.egraph_rules.limits import Limits
from slotsat.egraph_rules.lower_arith import lower_arith
from slotsat.egraph_rules.normalize import ir_forms, slot_forms
from slotsat.egraph_rules.syntactic import nonneg_syntactic


@dataclass(frozen=True)
class NamedSchedule:
    name: str
    round: Schedule


_ANALYSIS = (widths + nonneg_syntactic).saturate()

SLOTS_FORMS = NamedSchedule("SLOTS_FORMS", _ANALYSIS + ir_forms)
CODEGEN_SYNTACTIC = NamedSchedule("CODEGEN_SYNTACTIC", _ANALYSIS)
CODEGEN_SLOTS = NamedSchedule("CODEGEN_SLOTS", _ANALYSIS + intervals.saturate() + (slot_forms + lower_arith))
INTERVALS_ONLY = NamedSchedule("INTERVALS_ONLY", _ANALYSIS + intervals.saturate())

SCHEDULES: dict[str, NamedSchedule] = {
    s.name: s for s in (SLOTS_FORMS, CODEGEN_SYNTACTIC, CODEGEN_SLOTS, INTERVALS_ONLY)
}


@dataclass
class ScheduleRun:
    """What one bounded run did: rounds run, matches per rule name, and which limit (if any) stopped it."""

    schedule: str
    rounds: int = 0
    saturated: bool = False
    limit_hit: str | None = None
    matches: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0


class Runner:
    """Runs schedule rounds on one e-graph.

    Uses egglog's low-level command objects when available (the schedule is translated
    once per e-graph instead of once per round, and row counts skip the high-level name
    mapping); otherwise the public `EGraph.run` / `all_function_sizes`.
    """

    def __init__(self, egraph: EGraph) -> None:
        self.egraph = egraph
        self._compiled: dict[str, Any] = {}
        try:
            from egglog import bindings
            from egglog.egraph_state import span

            self._bindings: Any = bindings
            self._span = span()
            self.low = hasattr(egraph, "_state") and hasattr(egraph._state, "run_schedule_to_egg")
        except ImportError:
            self.low = False

    def prepare(self, schedule: NamedSchedule) -> None:
        """Declare the schedule's rulesets (and every sort and function they use)."""
        report = self.egraph.run(schedule.round)
        del report
        if self.low:
            self._compiled[schedule.name] = self.egraph._state.run_schedule_to_egg(schedule.round.schedule)

    def run_round(self, schedule: NamedSchedule) -> tuple[bool, dict[str, int]]:
        cmd = self._compiled.get(schedule.name) if self.low else None
        if cmd is None:
            report = self.egraph.run(schedule.round)
            matches: dict[str, int] = {}
            for rule_decl, count in report.num_matches_per_rule.items():
                name = getattr(rule_decl, "name", None)
                key = name if isinstance(name, str) else str(rule_decl)
                matches[key] = matches.get(key, 0) + count
            return report.updated, matches
        outputs: list[Any] = self.egraph._egraph.run_program(cmd)
        raw = outputs[0].report
        return bool(raw.updated), {str(k): int(v) for k, v in raw.num_matches_per_rule.items()}

    def rows(self) -> int:
        if self.low:
            outputs: list[Any] = self.egraph._egraph.run_program(self._bindings.PrintSize(self._span, None))
            return sum(int(size) for _, size in outputs[0].sizes)
        return sum(size for _, size in self.egraph.all_function_sizes())


def total_rows(egraph: EGraph) -> int:
    return Runner(egraph).rows()


def run_bounded(
    egraph: EGraph | Runner,
    schedule: NamedSchedule,
    limits: Limits | None = None,
    *,
    started: float | None = None,
) -> ScheduleRun:
    """Repeat `schedule.round` until a round changes nothing, or a limit is reached."""
    runner = egraph if isinstance(egraph, Runner) else Runner(egraph)
    lim = limits if limits is not None else Limits.from_env()
    cap = lim.cap_for(schedule.name)
    t0 = time.perf_counter() if started is None else started
    result = ScheduleRun(schedule.name)
    for _ in range(cap):
        updated, matches = runner.run_round(schedule)
        result.rounds += 1
        result.matches.update(matches)
        if not updated:
            result.saturated = True
            break
        if time.perf_counter() - t0 > lim.seconds:
            result.limit_hit = f"{schedule.name}: time limit of {lim.seconds:g} s"
            break
        if runner.rows() > lim.nodes:
            result.limit_hit = f"{schedule.name}: node limit of {lim.nodes} rows"
            break
    else:
        result.limit_hit = f"{schedule.name}: iteration cap of {cap} rounds"
    result.seconds = time.perf_counter() - t0
    return result
