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
  comparison and float subexpressions and literals outside their dtype (`u<n>`). No rule
  looks inside a leaf; a literal stored outside its dtype is never folded or proven and is
  emitted as its bit pattern.

A leaf's own nodes (unsigned ops, comparisons, casts) are lowered node by node
(`slotsat.egraph_rules.written`), but every signed integer subexpression inside it (the
operands of `i % 2 == 0`, say) is a **part**: a term inserted into the same e-graph as an
extra root, so that its proofs and its lowering come from the rules like every other
integer expression's. A comparison root (a `BOOL` value, which the language has no dtype
for) is a leaf with parts and no term of its own.
"""

from __future__ import annotations

from collections.abc import Mapping

from slotsat.core import ir
from slotsat.egraph_rules.calls import Call
from slotsat.egraph_rules.lang import DTYPE, SIGNED_DTYPES, dtype_ref
from slotsat.egraph_rules.loops import loop_ref

_SIGNED = frozenset(SIGNED_DTYPES)
_BIN_KIND: dict[type, str] = {
    ir.Add: "add",
    ir.Sub: "sub",
    ir.Mul: "mul",
    ir.FloorDiv: "floordiv",
    ir.FloorMod: "floormod",
}


def is_part(e: ir.Expr) -> bool:
    """A signed integer subexpression the index language models (not a bare leaf)."""
    return ir.expr_dtype(e) in _SIGNED and isinstance(
        e, ir.Add | ir.Sub | ir.Mul | ir.FloorDiv | ir.FloorMod | ir.Cast
    )


class TermBuilder:
    """Builds the terms of one engine's roots; remembers every opaque leaf and every part."""

    def __init__(self, loop_keys: Mapping[int, int], prefix: str = "") -> None:
        self.loop_keys = loop_keys
        """Induction variable id -> loop key (read when a term is built)."""
        self.prefix = prefix
        """Prefix of the opaque leaves' names (`u<n>`), unique per function in a joint e-graph."""
        self.leaves: dict[str, ir.Expr] = {}
        """Opaque leaf name -> the expression it stands for (a `Var`, or a subexpression)."""
        self.parts: dict[int, tuple[ir.Expr, Call]] = {}
        """`id` of a part (a signed subexpression inside a leaf) -> (the part, its term)."""
        self._by_expr: dict[int, tuple[str, ir.Expr]] = {}
        self._memo: ir.IdentityMap[Call] = ir.IdentityMap()
        self._memo_loops = len(loop_keys)

    def root(self, e: ir.Expr, *, slot: bool) -> Call | None:
        """The term of a root (a slot operand ends at `INDEX`); None for a root of a dtype the
        language has none for (a comparison), whose parts are registered instead."""
        if ir.expr_dtype(e) not in DTYPE:
            self._register_parts(e)
            return None
        return self._term(e, None, top_slot=slot)

    def _register_parts(self, e: ir.Expr) -> None:
        """Every maximal part below the leaf expression `e` (see the module docstring)."""
        for child in ir.expr_children(e):
            if is_part(child):
                if id(child) not in self.parts:
                    self.parts[id(child)] = (child, self._term(child, None))
            else:
                self._register_parts(child)

    def _leaf(self, e: ir.Expr, dtype: ir.DType) -> Call:
        if isinstance(e, ir.Var):
            name = f"v{e.id}"
        else:
            known = self._by_expr.get(id(e))
            name = known[0] if known is not None else f"{self.prefix}u{len(self._by_expr)}"
            self._by_expr[id(e)] = (name, e)  # keeps `e` alive, so its id stays its own
            self._register_parts(e)
        self.leaves[name] = e
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
        """`e` at its own dtype, memoized by identity: a subexpression shared by several roots
        (or reached twice in one) is built once. The memo holds `e`, so its `id` stays its
        own, and is dropped when a loop is registered (a variable may become an `iv`)."""
        if self._memo_loops != len(self.loop_keys):
            self._memo.clear()
            self._memo_loops = len(self.loop_keys)
        hit = self._memo.get(e)
        if hit is not None:
            return hit
        t = self._build(e)
        self._memo.set(e, t)
        return t

    def _build(self, e: ir.Expr) -> Call:
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
