"""The pipeline runs the cyclic collector's young generations only during a compile, and
always restores the caller's thresholds (`slotsat.app.pipeline._collector_for_a_compile`)."""

from __future__ import annotations

import gc
from dataclasses import dataclass, field

import pytest

from slotsat.app import pipeline
from slotsat.bench.generate import generate_single_function
from slotsat.core import ir
from slotsat.core.dsl.parser import parse_source
from slotsat.core.errors import PassError
from slotsat.lowering.common import PassResult


@dataclass
class _Recorder:
    name: str = "recorder"
    seen: list[tuple[int, int, int]] = field(default_factory=list)
    fail: bool = False

    def run(self, fn: ir.Function) -> PassResult:
        self.seen.append(gc.get_threshold())
        if self.fail:
            raise PassError("rejected")
        return PassResult(fn)


def _module() -> ir.Module:
    return parse_source(generate_single_function(0, 2).text, "k.py")


def test_no_full_collection_runs_during_the_passes_and_the_thresholds_come_back() -> None:
    before = gc.get_threshold()
    recorder = _Recorder()
    pipeline.run_passes(_module(), [recorder])
    assert recorder.seen == [(before[0], before[1], pipeline.FULL_COLLECTIONS_OFF)]
    assert gc.get_threshold() == before


def test_the_thresholds_come_back_after_a_rejected_input() -> None:
    before = gc.get_threshold()
    with pytest.raises(PassError):
        pipeline.run_passes(_module(), [_Recorder(fail=True)])
    assert gc.get_threshold() == before


def test_a_nested_compile_leaves_the_thresholds_to_the_outer_one() -> None:
    before = gc.get_threshold()

    @dataclass
    class _Nested(_Recorder):
        def run(self, fn: ir.Function) -> PassResult:
            pipeline.compile_module(_module(), pipeline.CompileOptions())
            self.seen.append(gc.get_threshold())  # still off after the inner compile
            return PassResult(fn)

    nested = _Nested()
    pipeline.run_passes(_module(), [nested])
    assert nested.seen == [(before[0], before[1], pipeline.FULL_COLLECTIONS_OFF)]
    assert gc.get_threshold() == before
