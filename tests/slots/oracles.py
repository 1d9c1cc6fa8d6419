"""Plain-Python oracles of the slots pass's e-graph decisions (the rules decide; the tests
compare them with these).

- `slot_form`: the IR slot-index form of `20-lower-pipeline-to-slots.md` §4.2 for a loop shape.
"""

from __future__ import annotations

from slotsat.core import ir


def slot_form(iv: ir.Var, start: int, step: int, stages_: int) -> ir.Expr:
    """The §4.2 form for a loop shape (the reference the extraction is checked against)."""
    idx = ir.DType.INDEX
    f = ir.ConstInt(stages_, idx)
    if step == 1:
        if start % stages_ == 0:
            return ir.FloorMod(iv, f, idx)
        return ir.FloorMod(ir.Sub(iv, ir.ConstInt(start, idx), idx), f, idx)
    base: ir.Expr = iv if start == 0 else ir.Sub(iv, ir.ConstInt(start, idx), idx)
    return ir.FloorMod(ir.FloorDiv(base, ir.ConstInt(step, idx), idx), f, idx)
