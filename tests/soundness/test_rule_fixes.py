"""Reproducers of the rule bugs the derived obligations found (each failed before its fix).

Groups: `floordiv_unshift_add` built a literal outside its dtype (`x // k + q` with `q*k`
beyond the dtype: z3's counterexample was an `INT32` `x` near `INT32_MIN`, `k = 2**30`).
"""

from __future__ import annotations

from slotsat.core import ir
from slotsat.core.options import Mode
from slotsat.core.semantics import eval_expr
from slotsat.egraph_rules.costs import evaluate_term
from slotsat.egraph_rules.engine import EmittedScope, IndexEngine
from slotsat.egraph_rules.loops import LoopInfo
from tests.egraph.helpers import C, var

I32 = ir.DType.INT32


def test_moving_a_literal_into_a_dividend_never_builds_a_literal_outside_its_dtype() -> None:
    # x in [INT32_MIN, INT32_MIN + 9]; x // 2**30 + 2 would move q*k = 2**31 into the dividend
    i = var("i")
    x = ir.Add(ir.Cast(i, I32), ir.ConstInt(-(2**31), I32), I32)
    e = ir.Add(ir.FloorDiv(x, ir.ConstInt(2**30, I32), I32), ir.ConstInt(2, I32), I32)
    engine = IndexEngine(Mode.SLOTSAT)
    engine.add_loop(LoopInfo(i, C(0), C(10), C(1)))
    root = engine.add_root(e)
    graph = engine.saturate()
    assert graph.view is not None
    literals = [
        (n.payload[0], n.payload[1])
        for nodes in graph.view.classes.values()
        for n in nodes
        if n.kind == "const"
    ]
    outside = [(v, dt) for v, dt in literals if isinstance(dt, ir.DType) and not dt.fits(v)]  # type: ignore[arg-type]
    assert not outside
    chosen = engine.choose(root, EmittedScope())
    for v in range(10):
        assert evaluate_term(chosen.term, {i.id: v}) == eval_expr(e, {i.id: v})
