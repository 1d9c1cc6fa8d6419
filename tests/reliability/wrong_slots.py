"""A slots pass that synthesizes a wrong slot: the shared set-up of the tests showing that
`slotsat check` catches one (`test_check_cli`, `test_paged`)."""

from __future__ import annotations

import dataclasses

import pytest

from slotsat.core import ir
from slotsat.core.dsl.parser import parse_source
from slotsat.core.dsl.printer import print_module
from slotsat.lowering.common import PassResult
from slotsat.lowering.lower_pipeline_to_slots import LowerPipelineToSlots


def break_slots_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make LowerPipelineToSlots write the slot index `[r // 2 % 2]` where it writes `[r % 2]`
    (two in-flight iterations then share a slot)."""
    real_run = LowerPipelineToSlots.run

    def broken_run(self: LowerPipelineToSlots, fn: ir.Function) -> PassResult:
        result = real_run(self, fn)
        text = print_module(ir.Module((ir.Program("P", (result.function,)),)))
        bad = parse_source(text.replace("[r % 2]", "[r // 2 % 2]"), "broken.py").programs[0].functions[0]
        return dataclasses.replace(result, function=bad)

    monkeypatch.setattr(LowerPipelineToSlots, "run", broken_run)
