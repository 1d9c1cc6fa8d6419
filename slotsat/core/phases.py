"""Per-phase compile-time accounting: where a compilation spends its wall clock.

A pass marks the work it does with `with phase("slots"):`; dotted names are sub-phases
(`codegen.saturate` runs inside `codegen`), so a phase's figure includes its sub-phases'.
Nothing is recorded unless a caller opened `recording()`: outside it `phase` costs one
global read, so passes can mark their phases unconditionally. The benchmark records one
compilation per scaling point and reports the totals (`slotsat bench`, `report.json`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager


class _State:
    active: dict[str, float] | None = None


_STATE = _State()


@contextmanager
def phase(name: str) -> Iterator[None]:
    """Add the wall-clock time of the block to phase `name` when recording is on."""
    if _STATE.active is None:
        yield
        return
    start = time.perf_counter()
    try:
        yield
    finally:
        add(name, time.perf_counter() - start)


def add(name: str, seconds: float) -> None:
    """Add `seconds` to phase `name` when recording is on: for a figure a pass computes
    itself, such as the time of a block minus that of the sub-phases run inside it, so that
    sibling sub-phases stay disjoint."""
    record = _STATE.active
    if record is not None:
        record[name] = record.get(name, 0.0) + seconds


@contextmanager
def recording() -> Iterator[dict[str, float]]:
    """Record phases for the duration of the block into the returned dict (seconds).

    Recordings do not nest: an inner `recording()` would hide the outer one's figures, so
    it is an error.
    """
    if _STATE.active is not None:
        raise RuntimeError("phases.recording() is already active")
    totals: dict[str, float] = {}
    _STATE.active = totals
    try:
        yield totals
    finally:
        _STATE.active = None
