"""Per-phase compile-time accounting: where a compilation spends its wall clock.

A pass marks the work it does with `with phase("slots"):`; dotted names are sub-phases
(`codegen.saturate` runs inside `codegen`), so a phase's figure includes its sub-phases'.
Nothing is recorded unless a caller opened `recording()`: outside it `phase` costs one
global read, so passes can mark their phases unconditionally. The benchmark records one
compilation per scaling point and reports the totals (`slotsat bench`, `report.json`).

Only the thread that opened the recording records: the index engine saturates part of a
module on a second thread (`slotsat.egraph_rules.engine`), whose wall clock overlaps the
recording thread's, so its phases would be counted twice; the recording thread's wait for
it is recorded instead.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager


class _State:
    active: dict[str, float] | None = None
    owner: int | None = None
    """The thread that opened the recording (`threading.get_ident`)."""


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
    if record is not None and _STATE.owner == threading.get_ident():
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
    _STATE.owner = threading.get_ident()
    try:
        yield totals
    finally:
        _STATE.active = None
        _STATE.owner = None
