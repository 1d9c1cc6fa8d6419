"""IR integer expressions as terms of the index language (`60-egraph-engine.md` §4.1, §5.3),
built as call trees for the session (`slotsat.egraph_rules.calls`).

Encoding:

- an `INDEX` variable that is the induction variable of a registered loop is `Idx.iv`;
- a signed literal that fits its own dtype is `Idx.const`; as an operand it adopts its
  operation's dtype (`30-pto-codegen.md` §5.3), so `i + 1` is `iv + const(1, INDEX)`;
- `+ - * // %` and `Cast` at signed dtypes are the language's own operations; an operand of
  another dtype gets an explicit `Idx.cast`, and a slot operand (`slot=True`) of a dtype
  other than `INDEX` gets a final cast to `INDEX` (`30-pto-codegen.md` §6);
- everything else is an opaque `Idx.var` leaf: other variables (`v<id>`), and unsigned,
  comparison and float subexpressions and literals outside their dtype (`u<n>`, lowered as
  written, `slotsat.egraph_rules.written`, with their op count). No rule looks inside a
  leaf; a literal stored outside its dtype is never folded or proven and is emitted as
  its bit pattern.
"""

from __future__ import annotations

from collections.abc import Mapping

from slotsat.core import ir
from slotsat.egraph_rules.calls import Call
from slotsat.egraph_rules.costs import EmitTerm, op_count
from slotsat.egraph_rules.lang import SIGNED_DTYPES, dtype_ref
from slotsat.egraph_rules.loops import loop_ref
from slotsat.egraph_rules.written import WrittenLowering

_SIGNED = frozenset(SIGNED_DTYPES)
_BIN_KIND: dict[type, str] = {
    ir.Add: "add",
    ir.Sub: "sub",
    ir.Mul: "mul",
    ir.FloorDiv: "floordiv",
    ir.FloorMod: "floormod",
}


class TermBuilder:
    """Builds the terms of one engine's roots; remembers every opaque leaf it made."""

    def __init__(self, loop_keys: Mapping[int, int], written: WrittenLowering) -> None:
        self.loop_keys = loop_keys
        """Induction variable id -> loop key (read when a term is built)."""
        self.written = written
        self.leaves: dict[str, tuple[EmitTerm, int]] = {}
        """Opaque leaf name -> (its emitted term, the ops that term costs)."""
        self._by_expr: dict[int, tuple[str, ir.Expr]] = {}

    def root(self, e: ir.Expr, *, slot: bool) -> Call:
        """The term of a root; a slot operand ends at `INDEX`."""
        return self._term(e, None, top_slot=slot)

    def _leaf(self, e: ir.Expr, dtype: ir.DType) -> Call:
        if isinstance(e, ir.Var):
            name = f"v{e.id}"
            self.leaves[name] = (e, 0)
        else:
            known = self._by_expr.get(id(e))
            name = known[0] if known is not None else f"u{len(self.leaves)}"
            self._by_expr[id(e)] = (name, e)  # keeps `e` alive, so its id stays its own
            term = self.written.lower(e)
            self.leaves[name] = (term, op_count(term))
        return Call("var", (name, dtype_ref(dtype)))

    def _term(self, e: ir.Expr, want: ir.DType | None, *, top_slot: bool = False) -> Call:
        """`e` at dtype `want` (an explicit cast where it differs)."""
        own = ir.expr_dtype(e)
        t: Call
        if isinstance(e, ir.ConstInt) and own.is_int and own.fits(e.value) and want in _SIGNED:
            assert want is not None
            t, produced = Call("const", (want.wrap(e.value), dtype_ref(want))), want
        else:
            t, produced = self._own(e), own
        if want is not None and produced is not want:
            t, produced = Call("cast", (t, dtype_ref(want))), want
        if top_slot and produced is not ir.DType.INDEX:
            t = Call("cast", (t, dtype_ref(ir.DType.INDEX)))
        return t

    def _own(self, e: ir.Expr) -> Call:
        own = ir.expr_dtype(e)
        if isinstance(e, ir.ConstInt):
            if own in _SIGNED and own.fits(e.value):
                return Call("const", (e.value, dtype_ref(own)))
            return self._leaf(e, own)
        if isinstance(e, ir.Var):
            key = self.loop_keys.get(e.id)
            if key is not None and e.dtype is ir.DType.INDEX:
                return Call("iv", (loop_ref(key),))
            return self._leaf(e, own)
        if own in _SIGNED and isinstance(e, ir.Add | ir.Sub | ir.Mul | ir.FloorDiv | ir.FloorMod):
            return Call(_BIN_KIND[type(e)], (self._term(e.a, own), self._term(e.b, own)))
        if own in _SIGNED and isinstance(e, ir.Cast) and ir.expr_dtype(e.a).is_int:
            inner = self._term(e.a, None)
            if ir.expr_dtype(e.a) is own:
                return inner
            return Call("cast", (inner, dtype_ref(own)))
        return self._leaf(e, own)
