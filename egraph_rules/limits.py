"""The e-graph engine's resource limits, in one place (`60-egraph-engine.md` §8, §10).

Every limit can be overridden by an environment variable (read when `Limits.from_env()` is
called, so tests can set it) or by passing a `Limits` to `IndexEngine`.

| Limit | Default | Environment variable |
| --- | --- | --- |
| rounds per schedule (iteration cap) | 64 | `SLOTSAT_EGRAPH_ITERATIONS`; per schedule `SLOTSAT_CAP_<NAME>` |
| table rows (nodes and facts) | 500,000 | `SLOTSAT_EGRAPH_NODES` |
| saturation wall time | 20 s | `SLOTSAT_EGRAPH_SECONDS` |

Hitting a limit stops saturation after the current round. Every union made so far is
sound and every as-written term stays in its e-class, so extraction still returns a
correct form: the best one proven so far, else the always-correct as-written lowering. The
hit is reported (`SaturationReport.limit_hit`), never silent.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

DEFAULT_ITERATIONS = 64
DEFAULT_NODES = 500_000
DEFAULT_SECONDS = 20.0


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    return default if raw is None or raw.strip() == "" else int(raw)


def _env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    return default if raw is None or raw.strip() == "" else float(raw)


@dataclass(frozen=True)
class Limits:
    """Iteration cap (rounds of a schedule), row limit and time limit of one saturation."""

    iterations: int = DEFAULT_ITERATIONS
    nodes: int = DEFAULT_NODES
    seconds: float = DEFAULT_SECONDS

    @classmethod
    def from_env(cls) -> Limits:
        return cls(
            iterations=_env_int("SLOTSAT_EGRAPH_ITERATIONS", DEFAULT_ITERATIONS),
            nodes=_env_int("SLOTSAT_EGRAPH_NODES", DEFAULT_NODES),
            seconds=_env_float("SLOTSAT_EGRAPH_SECONDS", DEFAULT_SECONDS),
        )

    def cap_for(self, schedule_name: str) -> int:
        """The iteration cap of one schedule: `SLOTSAT_CAP_<NAME>` if set, else `iterations`."""
        return _env_int(f"SLOTSAT_CAP_{schedule_name.upper()}", self.iterations)
