"""The comparison switches, as values every layer can name (`00-overview.md` §5, §7).

Three switches say "pypto" and each changes one thing:

- `Planner` (`--planner`): who places on-chip buffers. `PYPTO` turns the slots pass off and
  makes codegen assign addresses itself; `PTOAS` leaves placement to ptoas.
- `Mode` (`--mode`): how index arithmetic is proven and emitted. `PYPTO` lowers it as the
  reference does (syntactic proof, `remsi` / `divsi`, node by node).
- `--compat pypto` (a flag of the slots pass, `05-decisions.md` item 2): the reference's
  all-arguments rule for the "consumed by a view / in-place op" gate.
"""

from __future__ import annotations

import enum


class Planner(enum.Enum):
    """Who places on-chip buffers (`00-overview.md` §5)."""

    PTOAS = "ptoas"
    PYPTO = "pypto"

    @classmethod
    def parse(cls, text: str) -> Planner:
        for p in cls:
            if p.value == text.strip().lower():
                return p
        raise ValueError(f"unknown planner '{text}'; expected ptoas or pypto")

    @property
    def display_name(self) -> str:
        return self.name


class Mode(enum.Enum):
    """How index arithmetic is proven and emitted (`00-overview.md` §7): `slotsat` adds the
    interval proof, normalization and matcher-aware extraction for slot operands; `pypto`
    lowers them as the reference does."""

    SLOTSAT = "slotsat"
    PYPTO = "pypto"

    @classmethod
    def parse(cls, text: str) -> Mode:
        for m in cls:
            if m.value == text.strip().lower():
                return m
        raise ValueError(f"unknown mode '{text}'; expected slotsat or pypto")
