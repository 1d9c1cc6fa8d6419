"""Reproducers of the rule bugs the derived obligations found (each failed before its fix).

Groups: the syntactic proof of an induction variable needs an ascending loop (`syn_iv`,
`syn_counter`: a descending loop from 0 reaches -1; z3's counterexample was a negative step).
"""

from __future__ import annotations

import pytest

from slotsat.core import ir
from slotsat.core.options import Mode
from slotsat.egraph_rules.engine import IndexEngine, LoopInfo
from slotsat.egraph_rules.syntactic import python_nonneg_syn
from tests.egraph.helpers import C, fmod, sub, var


def _proof(e: ir.Expr, i: ir.Var, start: int, stop: int, step: ir.Expr) -> str | None:
    engine = IndexEngine(Mode.PYPTO, insert_plain=True)
    engine.add_loop(LoopInfo(i, C(start), C(stop), step))
    root = engine.add_root(e)
    engine.saturate()
    return engine.proven(root)


@pytest.mark.parametrize("step", [C(-1), C(-3), var("p")], ids=["step=-1", "step=-3", "runtime step"])
def test_a_loop_that_may_descend_proves_neither_its_variable_nor_its_counter(step: ir.Expr) -> None:
    i = var("i")
    for e in (i, sub(i, C(0)), fmod(i, C(3))):
        assert _proof(e, i, 0, -10, step) is None, e
        engine = IndexEngine(Mode.PYPTO)
        engine.add_loop(LoopInfo(i, C(0), C(-10), step))
        assert not python_nonneg_syn(e, ir.DType.INDEX, engine.start_of), e


def test_an_ascending_loop_from_zero_still_proves_its_variable_and_counter() -> None:
    i = var("i")
    for e in (i, sub(i, C(2)), fmod(i, C(3))):
        start = 2 if isinstance(e, ir.Sub) else 0
        assert _proof(e, i, start, 10, C(1)) == "syntactic", e
