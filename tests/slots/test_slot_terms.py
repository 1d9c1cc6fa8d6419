"""The slots pass writes the extracted slot term (`20-lower-pipeline-to-slots.md` §4.2, §11;
issue 12 item 1): over a grid of loop shapes the written index is exactly the form the
Python oracle (`tests/slots/oracles.py`) states, every tile of a loop shares it, and the
term read back from the pass is the one egglog extracted (no Python re-derivation)."""

from __future__ import annotations

import pytest

from slotsat.core import ir
from slotsat.lowering.lower_pipeline_to_slots import Decision
from tests.slots.harness import SIG, index_text, only, program, sl_body
from tests.slots.oracles import slot_form

SHAPES = [(start, step, f) for start in (0, 1, 2, 3, 4, 8) for step in (1, 2, 4) for f in (2, 3, 4)]


@pytest.mark.parametrize(("start", "step", "f"), SHAPES)
def test_the_written_slot_index_is_the_oracles_form(start: int, step: int, f: int) -> None:
    d = only(program(sl_body(f"pipeline({start}, {start + 6 * step}, {step}, stage={f}"), SIG))
    assert d.decision is Decision.SLOTTED, d.decline
    iv = d.loop.loop_var
    assert index_text(d.slot_index) == index_text(slot_form(iv, start, step, f))
    assert all(x.memref.slot_index is d.slot_index for x in d.tiles)
    assert d.slot_index is not None
    assert all(v is iv for v in ir.expr_vars(d.slot_index))


def test_a_slot_term_that_is_not_a_remainder_by_f_is_an_internal_error() -> None:
    from slotsat.lowering.lower_pipeline_to_slots import _check_slot_term

    i, j = ir.Var("i", ir.ScalarType(ir.DType.INDEX)), ir.Var("j", ir.ScalarType(ir.DType.INDEX))
    two = ir.ConstInt(2, ir.DType.INDEX)
    _check_slot_term(ir.FloorMod(i, two, ir.DType.INDEX), i, 2)
    with pytest.raises(AssertionError, match="not a remainder by 4"):
        _check_slot_term(ir.FloorMod(i, two, ir.DType.INDEX), i, 4)
    with pytest.raises(AssertionError, match="reads a variable other than i"):
        _check_slot_term(ir.FloorMod(j, two, ir.DType.INDEX), i, 2)
