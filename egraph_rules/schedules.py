"""Named schedules (`60-egraph-engine.md` §8): what each e-graph runs, in one place.

A schedule is a name and a sequence of phases. Every phase is a `Fix`: a sequence of steps
repeated until one round of them changes nothing, where a step is one iteration of one
ruleset (egglog's `run(ruleset)` once) or a nested `Fix`. The session's bounded runner
(`slotsat.egraph_rules.session.Session.run`) drives every loop in Python, one egglog
iteration per call, and checks the time and row limits after each call; a top-level phase
runs at most `Limits.rounds_for(name)` rounds (the schedule's cap, `SLOTSAT_CAP_<NAME>`). No
schedule hands egglog an unbounded loop (`.saturate()` or `until`): one iteration of a
ruleset over a finite e-graph always returns, so every limit is checked within one
iteration's work, even when a ruleset would never saturate (a lattice that keeps tightening,
a rule that keeps building terms). Analyses reach their fixpoint before the rewrites of the
same round run once.

With `A = Fix(widths, nonneg_syntactic)` (the analyses) and `I = Fix(intervals)`:

| Schedule | Phases (each a `Fix`) | Used by |
| --- | --- | --- |
| `SLOTS_GATES` | `Fix(gates)` | slots pass: eligibility (run again after the capacity facts) |
| `SLOTS_FORMS` | `Fix(slotize)`; then `Fix(A, ir_forms)` | slots pass: the slot terms |
| `CODEGEN_SYNTACTIC` | `Fix(A, lower_syntactic)` | index engine, `--mode pypto` |
| `CODEGEN_SLOTS` | `Fix(A, I, slot_forms, lower_arith)` | index engine, default mode |
| `INTERVALS_ONLY` | `Fix(A, I)` | proof comparisons |

`RULESETS` lists every ruleset, by name, and `registered_rules()` every named rule
(`lang.RuleInfo`: name, ruleset, kind, algebra); `SCHEDULES` every schedule.

A `ProgramSpec` is what one kind of e-graph holds: its schedules (whose rulesets the
session's template declares and lowers once) and the symbols Python inserts or reads
(`slotsat.egraph_rules.calls`). There are two, because egglog's `push` copies every
declared rule and table (about 5 ms for the slots pass's, 8 ms for the index engine's, 10 ms
for both together, per e-graph): `SLOTS_PASS` and `INDEX_ENGINE`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from egglog import Ruleset

from slotsat.egraph_rules import gates as gates_mod
from slotsat.egraph_rules import lang, loops
from slotsat.egraph_rules import slotize as slotize_mod
from slotsat.egraph_rules.gates import gates
from slotsat.egraph_rules.intervals import intervals
from slotsat.egraph_rules.lang import RULES, RuleInfo, widths
from slotsat.egraph_rules.lower_arith import lower_arith, lower_syntactic
from slotsat.egraph_rules.normalize import ir_forms, slot_forms
from slotsat.egraph_rules.slotize import slotize
from slotsat.egraph_rules.syntactic import nonneg_syntactic


@dataclass(frozen=True)
class Fix:
    """Repeat `steps` in order until a round of them changes nothing (see the module
    docstring). A `Ruleset` step is one iteration of that ruleset."""

    steps: tuple[Ruleset | Fix, ...]

    def rulesets(self) -> list[Ruleset]:
        """Every ruleset this loop runs, in order of first appearance."""
        out: list[Ruleset] = []
        for step in self.steps:
            for rs in step.rulesets() if isinstance(step, Fix) else [step]:
                if all(rs is not seen for seen in out):
                    out.append(rs)
        return out


@dataclass(frozen=True)
class NamedSchedule:
    name: str
    phases: tuple[Fix, ...]

    def rulesets(self) -> list[Ruleset]:
        """Every ruleset of the schedule, in order of first appearance."""
        out: list[Ruleset] = []
        for phase in self.phases:
            out.extend(rs for rs in phase.rulesets() if all(rs is not seen for seen in out))
        return out


RULESETS: dict[str, Ruleset] = {
    "widths": widths,
    "nonneg_syntactic": nonneg_syntactic,
    "intervals": intervals,
    "slot_forms": slot_forms,
    "ir_forms": ir_forms,
    "lower_arith": lower_arith,
    "lower_syntactic": lower_syntactic,
    "gates": gates,
    "slotize": slotize,
}
"""Every ruleset of the languages, by its egglog name (`ruleset(name=...)`)."""


def registered_rules() -> dict[str, RuleInfo]:
    """`lang.RULES` with every ruleset's rules generated (a ruleset registers its rules' names
    when egglog first reads its declarations): every named rule, by name."""
    for rs in RULESETS.values():
        rs.__egg_decls__  # noqa: B018 - runs the ruleset's rule generators
    return RULES


_ANALYSIS = Fix((widths, nonneg_syntactic))
_INTERVALS = Fix((intervals,))

SLOTS_GATES = NamedSchedule("SLOTS_GATES", (Fix((gates,)),))
SLOTS_FORMS = NamedSchedule("SLOTS_FORMS", (Fix((slotize,)), Fix((_ANALYSIS, ir_forms))))
CODEGEN_SYNTACTIC = NamedSchedule("CODEGEN_SYNTACTIC", (Fix((_ANALYSIS, lower_syntactic)),))
CODEGEN_SLOTS = NamedSchedule("CODEGEN_SLOTS", (Fix((_ANALYSIS, _INTERVALS, slot_forms, lower_arith)),))
INTERVALS_ONLY = NamedSchedule("INTERVALS_ONLY", (Fix((_ANALYSIS, _INTERVALS)),))

SCHEDULES: dict[str, NamedSchedule] = {
    s.name: s for s in (SLOTS_GATES, SLOTS_FORMS, CODEGEN_SYNTACTIC, CODEGEN_SLOTS, INTERVALS_ONLY)
}


@dataclass(frozen=True)
class ProgramSpec:
    """The schedules and symbols of one kind of e-graph (see the module docstring)."""

    name: str
    schedules: tuple[NamedSchedule, ...]
    symbols: dict[str, Any]

    def rulesets(self) -> list[Ruleset]:
        """Every ruleset of the spec's schedules, in order of first appearance."""
        out: list[Ruleset] = []
        for schedule in self.schedules:
            out.extend(rs for rs in schedule.rulesets() if all(rs is not seen for seen in out))
        return out


SLOTS_PASS = ProgramSpec(
    "SLOTS_PASS",
    (SLOTS_GATES, SLOTS_FORMS),
    {**loops.SYMBOLS, **lang.SYMBOLS, **gates_mod.SYMBOLS, **slotize_mod.SYMBOLS},
)
INDEX_ENGINE = ProgramSpec(
    "INDEX_ENGINE", (CODEGEN_SYNTACTIC, CODEGEN_SLOTS, INTERVALS_ONLY), {**loops.SYMBOLS, **lang.SYMBOLS}
)
