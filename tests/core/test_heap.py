"""`heap.compiling` / `heap.settle`: pass boundaries freeze the compilation's long-lived data
out of the collector's scans, and the block hands it all back."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from slotsat.core import heap


@pytest.fixture(autouse=True)
def _nothing_frozen() -> Iterator[None]:
    """Each test starts and ends with nothing frozen.

    Some interpreters start with frozen objects (CPython 3.12 as built here freezes 375 at
    start-up); those are handed back to the collector here for good. They cannot be frozen
    again on their own: `gc.freeze()` at the end would freeze every object the suite holds by
    then, garbage cycles included, and `gc.get_freeze_count()` walks that whole list on every
    call (each parse and each compilation asks it): on Python 3.12 that made every later test
    module several times slower."""
    gc.unfreeze()
    yield
    gc.unfreeze()


def test_settle_freezes_inside_a_compilation_and_the_end_unfreezes() -> None:
    assert gc.get_freeze_count() == 0
    with heap.compiling():
        kept = [object() for _ in range(10)]
        heap.settle()
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0
    assert len(kept) == 10


def test_settle_outside_a_compilation_does_nothing() -> None:
    heap.settle()
    assert gc.get_freeze_count() == 0


def test_a_nested_block_leaves_the_outer_one_in_charge() -> None:
    with heap.compiling():
        with heap.compiling():
            heap.settle()
        assert gc.get_freeze_count() > 0  # the inner block did not unfreeze
    assert gc.get_freeze_count() == 0


def test_a_caller_that_froze_objects_keeps_them_frozen_and_still_gets_the_thresholds() -> None:
    gc.freeze()
    try:
        before = gc.get_freeze_count()
        threshold = gc.get_threshold()
        with heap.compiling():
            heap.settle()
            assert gc.get_threshold()[0] >= heap.COMPILING_THRESHOLDS[0]
        assert gc.get_freeze_count() == before
        assert gc.get_threshold() == threshold
    finally:
        gc.unfreeze()


def test_the_collector_off_means_no_freezing() -> None:
    gc.disable()
    try:
        with heap.compiling():
            heap.settle()
            assert gc.get_freeze_count() == 0
    finally:
        gc.enable()


def test_a_compilation_raises_the_thresholds_and_restores_the_callers() -> None:
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 500)  # a caller's own: the third is above COMPILING_THRESHOLDS
        with heap.compiling():
            assert gc.get_threshold() == (heap.COMPILING_THRESHOLDS[0], heap.COMPILING_THRESHOLDS[1], 500)
        assert gc.get_threshold() == (700, 10, 500)
    finally:
        gc.set_threshold(*before)


@pytest.mark.parametrize("collecting", [True, False])
def test_the_outermost_block_clears_the_memos_when_it_ends(
    collecting: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    cleared: list[int] = []
    monkeypatch.setattr(heap, "_MEMOS", [lambda: cleared.append(1)])
    if not collecting:
        gc.disable()
    try:
        with heap.compiling():
            with heap.compiling():
                pass
            assert cleared == []  # a nested block ends: the compilation goes on
        assert cleared == [1]
    finally:
        gc.enable()


def test_a_compilation_leaves_no_folded_expression_alive() -> None:
    from slotsat.app.pipeline import CompileOptions, compile_source
    from slotsat.bench.generate import generate_kernel
    from slotsat.core import semantics

    compile_source(generate_kernel(5, 6).text, "k.py", CompileOptions())
    assert (semantics._FoldMemo.size, semantics._FoldMemo.table.get(object())) == (0, None)
    assert not semantics._FoldMemo.table._items


def test_a_compilation_leaves_no_reference_cycle_of_slotsat_objects() -> None:
    """The passes free what they are done with by reference counting (the module docstring):
    nothing of slotsat's is left for the collector, where a pass boundary would freeze it until
    the compilation ends (an index engine's saturated view, a recursive closure's captures,
    a networkx graph whose cached views point back at it)."""
    import types

    from slotsat.app.pipeline import CompileOptions, compile_source
    from slotsat.bench.generate import generate_kernel, generate_single_function
    from slotsat.core.options import Mode

    kernels = [generate_kernel(3, 40).text, generate_single_function(3, 40).text]
    runs = [(text, CompileOptions(mode=mode)) for text in kernels for mode in Mode]
    for text, options in runs:  # the e-graph templates are built once, outside the count
        compile_source(text, "k.py", options)
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for text, options in runs:
            compile_source(text, "k.py", options)
        gc.collect()
        garbage = list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()

    def ours(o: object) -> bool:
        module = o.__module__ if isinstance(o, types.FunctionType) else type(o).__module__
        return (module or "").split(".")[0] in ("slotsat", "networkx")

    assert [type(o).__qualname__ for o in garbage if ours(o)] == []
