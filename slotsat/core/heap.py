"""Keeping the cyclic garbage collector off the compiler's long-lived data.

The IR, the analyses and the index engines a compilation builds live until it ends, and
reference counting frees them (the passes leave no cycles behind them: see the `release`
methods of the parser, the emitter and the index engine, and the test that a compilation
leaves no slotsat object in a cycle, `tests/core/test_heap.py`). CPython's collector cannot
know that: every full collection rescans all of it, and as the heap grows such collections
come often enough to cost a few seconds of a 10,000-loop compilation. `compiling()` lets a
pass boundary `settle()` what exists so far into the collector's permanent generation
(`gc.freeze`), which no collection scans; objects there are still freed by reference counting
as soon as nothing refers to them. So a cycle would matter: one that becomes garbage before a
pass boundary is frozen there and kept until the compilation ends. When the block ends
everything is handed back (`gc.unfreeze`).

Inside the block the collector's thresholds are also raised (`COMPILING_THRESHOLDS`, never
lowered), and restored when it ends: a compilation allocates millions of small, mostly acyclic
objects, and the default young-generation threshold of 700 runs a collection every few
thousand of them (measured on the 1,000-loop single-function bench point: 6.4 s with the
defaults, 5.2 s raised; peak memory the same).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager

COMPILING_THRESHOLDS = (10_000, 50, 100)
"""`gc.set_threshold` inside a `compiling()` block (each at least the caller's own)."""


class _State:
    owner = False
    """A `compiling()` block is open (the outermost one)."""
    freezing = False
    """That block may freeze: its caller had frozen nothing of its own."""


_STATE = _State()


_MEMOS: list[Callable[[], None]] = []


def memo(clear: Callable[[], None]) -> None:
    """Register `clear`, which empties a process-wide memo of IR objects (keyed by identity):
    it runs when the outermost `compiling()` block ends. Nothing asks a memo about a finished
    compilation's objects again (the next one parses anew), so kept, its entries would only
    keep that compilation's IR alive: 10 MB more resident after each compile of the 1,000-loop
    many-functions bench file, until `semantics.fold`'s bound."""
    _MEMOS.append(clear)


@contextmanager
def compiling() -> Iterator[None]:
    """A compilation: the collector's thresholds raised, and `settle()` inside it freezing; at
    the end the caller's thresholds are restored, the frozen objects unfrozen and the memos
    cleared (`memo`).

    Nested, it does nothing. With the collector off it only clears the memos at the end. When
    the caller froze objects of its own (unfreezing would release those too; some interpreters
    start with frozen objects), it raises the thresholds but does not freeze."""
    if _STATE.owner:
        yield
        return
    _STATE.owner = True
    collecting = gc.isenabled()
    _STATE.freezing = collecting and gc.get_freeze_count() == 0
    before = gc.get_threshold()
    if collecting:
        gc.set_threshold(*(max(a, b) for a, b in zip(before, COMPILING_THRESHOLDS, strict=True)))
    try:
        yield
    finally:
        if collecting:
            gc.set_threshold(*before)
        if _STATE.freezing:
            gc.unfreeze()
        _STATE.owner = False
        _STATE.freezing = False
        for clear in _MEMOS:
            clear()


def settle() -> None:
    """Move every object the collector tracks into its permanent generation, inside a
    `compiling()` block that may freeze (else nothing): for a pass boundary, after which what
    exists is either the compilation's long-lived data or freed by reference counting."""
    if _STATE.owner and _STATE.freezing:
        gc.freeze()
