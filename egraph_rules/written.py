"""The node-by-node lowering of what the index language does not model: unsigned arithmetic,
comparisons, casts to and from unsigned dtypes, and float operands (`30-pto-codegen.md`
§7.1, `05-decisions.md` item 5), plus the cast and comparison op names every emitter uses.

Every signed integer subexpression inside such a leaf is a part of the e-graph
(`slotsat.egraph_rules.ir_terms`): its term comes from the index engine's extraction through
the `part` callback, so no proof and no op choice is made here.

| Node | Emitted |
| --- | --- |
| literal | a typed constant, at its operation's dtype when it fits its own (§5.3) |
| variable | itself |
| signed `+ - * // %`, signed `Cast` | `part(e)`: the engine's term |
| unsigned `+ - *` | `arith.addi` / `subi` / `muli` |
| unsigned `//` / `%` | `arith.divui` / `arith.remui` (`--mode pypto`: `divsi` / `remsi`, decision 5) |
| float `+ - * // %` | `arith.addf` / `subf` / `mulf` / `divf` / `remf` |
| other `Cast` | `cast_op` |
| comparison | `arith.cmpi` / `arith.cmpf` with the predicate |
"""

from __future__ import annotations

from collections.abc import Callable

from slotsat.core import ir
from slotsat.core.options import Mode
from slotsat.egraph_rules.costs import EmitConst, EmitNode, EmitTerm
from slotsat.egraph_rules.ir_terms import is_part

Part = Callable[[ir.Expr], EmitTerm]
"""The engine's term for a part (a signed integer subexpression of a leaf)."""


class LeafLowering:
    """The node-by-node lowering of leaves under one mode (see the module docstring)."""

    def __init__(self, mode: Mode, part: Part) -> None:
        self.mode = mode
        self.part = part

    def lower(self, e: ir.Expr, want: ir.DType | None = None) -> EmitTerm:
        """`e` lowered node by node, converted to `want` when given and different."""
        own = ir.expr_dtype(e)
        term = self._lower_own(e, want)
        produced = _term_dtype(term, own)
        if want is not None and produced is not want and want.is_int and produced.is_int:
            return EmitNode(cast_op(produced, want), (term,), want.mlir)
        return term

    def _lower_own(self, e: ir.Expr, want: ir.DType | None) -> EmitTerm:
        own = ir.expr_dtype(e)
        if isinstance(e, ir.ConstInt):
            if want is not None and want.is_int and own.fits(e.value):
                return EmitConst(want.wrap(e.value), want.mlir)
            return EmitConst(own.wrap(e.value), own.mlir)
        if isinstance(e, ir.Var):
            return e
        if isinstance(e, ir.ConstFloat):
            raise ValueError("float literals are not index expressions")
        if isinstance(e, ir.ScalarUnary | ir.ScalarBinary | ir.TupleGetItem):
            raise ValueError(f"{type(e).__name__} is not an index expression (codegen's preflight "
                             "declines it)")
        if is_part(e):
            return self.part(e)
        if isinstance(e, ir.Cast):
            inner = self.lower(e.a)
            src = ir.expr_dtype(e.a)
            if src is own:
                return inner
            return EmitNode(cast_op(src, own), (inner,), own.mlir)
        if isinstance(e, ir.Cmp):
            at = ir.expr_dtype(e.a)
            a, b = self.lower(e.a, at), self.lower(e.b, at)
            return EmitNode(cmp_op(e.op, at), (a, b), "i1")
        assert isinstance(e, ir.Add | ir.Sub | ir.Mul | ir.FloorDiv | ir.FloorMod), e
        a = self.lower(e.a, own)
        b = self.lower(e.b, own)
        return EmitNode(self._binop(e, own), (a, b), own.mlir)

    def _binop(self, e: ir.Add | ir.Sub | ir.Mul | ir.FloorDiv | ir.FloorMod, d: ir.DType) -> str:
        if isinstance(e, ir.Add | ir.Sub | ir.Mul):
            base = {ir.Add: "add", ir.Sub: "sub", ir.Mul: "mul"}[type(e)]
            return f"arith.{base}{'f' if d.is_float else 'i'}"
        is_div = isinstance(e, ir.FloorDiv)
        if d.is_float:
            return "arith.divf" if is_div else "arith.remf"
        assert d.is_unsigned, f"a signed {d.value} floor operation is a part, not a leaf"
        if self.mode is Mode.PYPTO:
            return "arith.divsi" if is_div else "arith.remsi"
        return "arith.divui" if is_div else "arith.remui"


def _term_dtype(term: EmitTerm, default: ir.DType) -> ir.DType:
    if isinstance(term, ir.Var):
        return term.dtype
    for d in ir.DType:
        if d.mlir == term.type:
            return d
    return default


def cast_op(src: ir.DType, dst: ir.DType) -> str:
    """The `arith` op converting an integer of dtype `src` to `dst` (`10-dsl.md` §7: narrowing
    keeps the low bits; widening extends the source's value, so an unsigned source is
    zero-extended: `extui`, `index_castui`, as the evaluator computes)."""
    if ir.DType.INDEX in (src, dst):
        return "arith.index_castui" if src.is_unsigned else "arith.index_cast"
    if src.bits == dst.bits:
        return "arith.index_cast"  # a no-op between signless types: codegen drops it
    if dst.bits > src.bits:
        return "arith.extui" if src.is_unsigned else "arith.extsi"
    return "arith.trunci"


def cmp_op(op: ir.CmpOp, at: ir.DType) -> str:
    if at.is_float:
        return (
            "arith.cmpf "
            + {"==": "oeq", "!=": "one", "<": "olt", "<=": "ole", ">": "ogt", ">=": "oge"}[op.value]
        )
    sign = "u" if at.is_unsigned else "s"
    table = {"==": "eq", "!=": "ne", "<": f"{sign}lt", "<=": f"{sign}le", ">": f"{sign}gt", ">=": f"{sign}ge"}
    return "arith.cmpi " + table[op.value]
