"""Plain-Python oracles of the e-graph's decisions (a decision has one source of truth in
`egraph_rules`; its Python restatement lives here, and tests compare the two).

- `python_nonneg_syn`: the reference's syntactic non-negativity proof of
  `30-pto-codegen.md` §7.2 on IR expressions (the `nonneg_syntactic` ruleset's clauses).
"""

from __future__ import annotations

from collections.abc import Callable

from slotsat.core import ir


def python_nonneg_syn(e: ir.Expr, at: ir.DType, start_of: Callable[[ir.Var], int | None]) -> bool:
    """§7.2 on an IR expression: is `e` proven non-negative at dtype `at`?

    `start_of(v)` is the literal start of the ascending loop whose induction variable is `v`
    (None for anything that is not such a variable, whose loop does not ascend, or whose
    start is not a literal).
    """
    if isinstance(e, ir.ConstInt):
        # A literal operand is emitted at its operation's dtype (`30-pto-codegen.md` §5.3).
        return e.dtype.is_int and e.dtype.fits(e.value) and at.fits(e.value) and e.value >= 0
    if ir.expr_dtype(e) is not at:
        return False
    if isinstance(e, ir.Var):
        start = start_of(e)
        return start is not None and start >= 0
    if isinstance(e, ir.Sub) and isinstance(e.a, ir.Var) and isinstance(e.b, ir.ConstInt):
        start = start_of(e.a)
        return (
            start is not None
            and start >= 0
            and e.b.value == start
            and at is ir.DType.INDEX
            and e.a.dtype is at
            and e.b.dtype.fits(e.b.value)
        )
    if isinstance(e, ir.FloorDiv | ir.FloorMod) and isinstance(e.b, ir.ConstInt):
        c = e.b.value
        return 0 < c and at.fits(c) and e.b.dtype.fits(c) and python_nonneg_syn(e.a, at, start_of)
    return False
