"""The CSE-aware, matcher-filtered emission extraction (`60-egraph-engine.md` §9.3, §9.4;
`40-ptoas-slot-matcher.md` §7), over the parsed export (`slotsat.egraph_rules.view`).

**Emission costs** (`emission_cost`, the objective of §7.2; egglog's declared IR costs are
ignored): literals, induction variables and other existing values 0; every `arith` op 1;
`//` (`arith.floordivsi`, which ptoas expands) 4; a floor-mod correction chain what it
emits (4 with a literal divisor, 8 with a runtime one); `remu` / `divu` 1; a cast 1.

**Extraction of one slot operand** (`Extractor.best`): a bottom-up fixpoint restricted to
the e-classes reachable from that root (so N roots cost O(total reachable), not
O(N x graph)), where e-classes already materialized in scope cost 0. Each e-class keeps
its best completion under the strictly ordered key

    (ops with sharing, ops ignoring sharing, nodes not in the written term, rendering)

and at the root only nodes whose completion the matcher model accepts are kept; the root
key adds "remui first" after the two op counts (§7.2's tie-breaks, with "closest to the
written form" before the lexicographic rendering so that `(i - 1) % 2` stays `subi` rather
than the equal-cost `(i + 1) % 2`). Ties therefore never depend on egglog's e-class
numbering. Costs are non-negative and every op costs at least 1, so a cycle in the
e-graph (`x % f` unioned with `x`) never improves a completion and the fixpoint
terminates.

**The matcher filter at every depth** (`Extractor.peel_candidates`): whether a `remui(X, N)`
is peelable depends on more than its root: peeling stops at the first node of `X` that is
not a constant `addi` / `subi` layer, and cuts off after 4 layers (`40-ptoas-slot-matcher.md`
§3). So beside the cheapest completion of each root node, a `remu` root node is also
completed with the cheapest completion of `X` whose layer chain ends within 4 layers
(`peeled(c, d)`: a class's non-layer nodes at their best, or a layer node over the peeled
completion of its operand with one layer less; a value already emitted counts with the
chain it was emitted with). Each candidate is then classified by the matcher model itself.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from slotsat.analysis import matcher
from slotsat.core import ir
from slotsat.egraph_rules.costs import EmitConst, EmitNode, EmitTerm, describe, op_cost, op_count
from slotsat.egraph_rules.view import LEAF_KINDS, EGraphView, ENode, NodeKey
from slotsat.egraph_rules.written import cast_op

# --------------------------------------------------------------------------------------
# emission costs


def divisor_literal(view: EGraphView, cls: str) -> int | None:
    for node in view.classes.get(cls, ()):
        if node.kind == "const":
            value = node.payload[0]
            assert isinstance(value, int)
            return value
    return None


_SIMPLE_OPS = {
    "add": "arith.addi",
    "sub": "arith.subi",
    "mul": "arith.muli",
    "floordiv": "arith.floordivsi",
    "divu": "arith.divui",
    "remu": "arith.remui",
    "divs": "arith.divsi",
    "rems": "arith.remsi",
}
"""The emitted op of each node kind that maps to one op whatever its operands."""


def emission_op(view: EGraphView, node: ENode) -> str | None:
    """The emitted op of a non-leaf node (None for leaves)."""
    kind = node.kind
    if kind in LEAF_KINDS:
        return None
    simple = _SIMPLE_OPS.get(kind)
    if simple is not None:
        return simple
    if kind == "floormod":
        d = divisor_literal(view, node.children[1])
        if d is None or d == 0:
            return "floormod.corrected.runtime"
        return "floormod.corrected.pos" if d > 0 else "floormod.corrected.neg"
    assert kind == "cast"
    target = node.payload[0]
    assert isinstance(target, ir.DType)
    return cast_op(view.width.get(node.children[0], ir.DType.INDEX), target)


# --------------------------------------------------------------------------------------
# the per-root extraction



class Completion:
    """The best term of an e-class: its key parts and the term. The term of a node's
    completion is built on first use (most candidates lose on the numeric parts and are never
    built), and so is the rendering (only a tie on the numeric parts needs it)."""

    __slots__ = ("_key", "_kids", "_op", "_term", "_text", "_width", "cost", "nonorig", "total")

    def __init__(self, cost: int, total: int, nonorig: int, term: EmitTerm | None) -> None:
        self.cost = cost
        self.total = total
        self.nonorig = nonorig
        self._term = term
        self._text: str | None = None
        self._op = ""
        self._kids: tuple[Completion, ...] = ()
        self._width = ""
        self._key: Hashable | None = None

    @classmethod
    def node(  # noqa: PLR0917
        cls,
        cost: int,
        total: int,
        nonorig: int,
        op: str,
        kids: tuple[Completion, ...],
        width: str,
        key: Hashable,
    ) -> Completion:
        """The completion of an op node over its children's completions (term built lazily)."""
        out = cls(cost, total, nonorig, None)
        out._op, out._kids, out._width, out._key = op, kids, width, key
        return out

    @property
    def term(self) -> EmitTerm:
        t = self._term
        if t is None:
            t = self._term = EmitNode(self._op, tuple(k.term for k in self._kids), self._width, self._key)
            self._kids = ()
        return t

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = describe(self.term)
        return self._text

    def numeric(self) -> tuple[int, int, int]:
        return (self.cost, self.total, self.nonorig)

    def better_than(self, other: Completion) -> bool:
        a, b = self.numeric(), other.numeric()
        if a != b:
            return a < b
        return self.text < other.text


LeafBuilder = Callable[[ENode, str], tuple[EmitTerm, int]]
"""Builds the term of a leaf node (and its op count, nonzero only for opaque subexpressions)."""


class Extractor:
    """Bottom-up completions over the classes reachable from one root (see the module doc)."""

    def __init__(
        self,
        view: EGraphView,
        leaf: LeafBuilder,
        key_of: Callable[[str], Hashable],
    ) -> None:
        self.view = view
        self.leaf = leaf
        self.key_of = key_of
        self._keys: dict[str, Hashable] = {}
        """`key_of` of each e-class completed so far (a completion carries its class's key)."""

    def completions(
        self, root: str, emitted: Callable[[str], EmitTerm | None], original: set[NodeKey]
    ) -> dict[str, Completion]:
        # An e-class holding a literal (other than the root) completes as that literal: it
        # costs 0 ops and 0 in total, and every other node costs at least one op, so no other
        # node can beat or tie it, and none of its other nodes' children is needed. Not
        # following them keeps the closure to the root's own terms: literal-only terms the
        # rules build (`8 % 3`) collect in the literals' e-classes, which many roots share.
        view = self.view
        order = view.reachable(root, through_literals=False)
        best: dict[str, Completion] = {}
        fresh: list[str] = []
        for cls in order:
            t = emitted(cls)
            if t is not None:
                best[cls] = Completion(0, op_count(t), 0, t)
            elif cls != root and cls in view.literal_classes:
                best[cls] = self._literal(cls, original)
            else:
                fresh.append(cls)
        # Passes in `order` until one changes nothing. A class none of whose child classes
        # changed since its last evaluation would compute the same candidates again, none
        # better than its current best, so it is skipped: same updates, same order, same
        # result, without re-completing the whole closure on the confirming pass.
        classes = self.view.classes
        kids: dict[str, frozenset[str]] = {
            cls: frozenset(c for node in classes.get(cls, ()) for c in node.children) for cls in fresh
        }
        changed_at: dict[str, int] = {}
        evaluated_at: dict[str, int] = {}
        version = 1
        changed = True
        while changed:
            changed = False
            for cls in fresh:
                seen = evaluated_at.get(cls)
                if seen is not None and all(changed_at.get(c, 0) < seen for c in kids[cls]):
                    continue
                evaluated_at[cls] = version
                for node in classes.get(cls, ()):
                    cand = self.complete(cls, node, best, original)
                    if cand is None:
                        continue
                    cur = best.get(cls)
                    if cur is None or cand.better_than(cur):
                        best[cls] = cand
                        changed = True
                        changed_at[cls] = version
                        version += 1
        return best

    def _literal(self, cls: str, original: set[NodeKey]) -> Completion:
        """The completion of a literal's e-class: its best leaf (see `completions`)."""
        found: Completion | None = None
        for node in self.view.classes[cls]:
            if node.kind in LEAF_KINDS:
                cand = self.complete(cls, node, {}, original)
                if cand is not None and (found is None or cand.better_than(found)):
                    found = cand
        assert found is not None
        return found

    def complete(
        self, cls: str, node: ENode, best: dict[str, Completion], original: set[NodeKey]
    ) -> Completion | None:
        """The completion of `node` (in e-class `cls`) from its children's best completions."""
        nonorig = 0 if node.key in original else 1
        if node.kind in LEAF_KINDS:
            term, ops = self.leaf(node, cls)
            return Completion(ops, ops, nonorig, term)
        kids: list[Completion] = []
        cost = total = 0
        for child in node.children:
            c = best.get(child)
            if c is None:
                return None
            kids.append(c)
            cost += c.cost
            total += c.total
            nonorig += c.nonorig
        info = self.view.emission.get(id(node))
        if info is None:
            op = emission_op(self.view, node)
            assert op is not None
            width = self.view.width.get(cls, ir.DType.INDEX).mlir
            info = self.view.emission[id(node)] = (op, op_cost(op), width)
        op, own, width = info
        key = self._keys.get(cls)
        if key is None:
            key = self._keys[cls] = self.key_of(cls)
        return Completion.node(cost + own, total + own, nonorig, op, tuple(kids), width, key)

    def root_completions(
        self, root: str, emitted: Callable[[str], EmitTerm | None], original: set[NodeKey]
    ) -> dict[str, Completion]:
        """The best completions below `root` (the root's own value not taken from scope): what
        `root_candidates` and `peel_candidates` start from, computed once per choice."""
        return self.completions(root, lambda c: None if c == root else emitted(c), original)

    def root_candidates(
        self,
        root: str,
        emitted: Callable[[str], EmitTerm | None],
        original: set[NodeKey],
        best: dict[str, Completion] | None = None,
    ) -> list[tuple[ENode | None, Completion]]:
        """One completion per node of the root e-class (plus the materialized value, if any);
        `best`: `root_completions` of the same arguments, when already computed."""
        if best is None:
            best = self.root_completions(root, emitted, original)
        out: list[tuple[ENode | None, Completion]] = []
        for node in self.view.classes.get(root, ()):
            cand = self.complete(root, node, best, original)
            if cand is not None:
                out.append((node, cand))
        t = emitted(root)
        if t is not None:
            out.append((None, Completion(0, op_count(t), 0, t)))
        return out

    def peel_candidates(
        self,
        root: str,
        slots: int,
        emitted: Callable[[str], EmitTerm | None],
        original: set[NodeKey],
        best: dict[str, Completion] | None = None,
    ) -> list[tuple[ENode | None, Completion]]:
        """Completions of the root's `remu(X, slots)` nodes whose `X` peels within the matcher's
        limit (see the module docstring); `best` as for `root_candidates`."""
        if best is None:
            best = self.root_completions(root, emitted, original)
        memo: dict[tuple[str, int], Completion | None] = {}
        out: list[tuple[ENode | None, Completion]] = []
        for node in self.view.classes.get(root, ()):
            if node.kind != "remu" or divisor_literal(self.view, node.children[1]) != slots:
                continue
            x = node.children[0]
            peeled = self._peeled(x, matcher.PEEL_LIMIT, best, emitted, original, memo)
            if peeled is None:
                continue
            cand = self.complete(root, node, {**best, x: peeled}, original)
            if cand is not None:
                out.append((node, cand))
        return out

    def _peeled(  # noqa: PLR0917
        self,
        cls: str,
        depth: int,
        best: dict[str, Completion],
        emitted: Callable[[str], EmitTerm | None],
        original: set[NodeKey],
        memo: dict[tuple[str, int], Completion | None],
    ) -> Completion | None:
        """The cheapest completion of `cls` whose constant layers end within `depth` layers."""
        key = (cls, depth)
        if key in memo:
            return memo[key]
        memo[key] = None  # a class reached again through its own layers adds nothing
        found: Completion | None = None
        t = emitted(cls)
        if t is not None and _layer_depth(t) <= depth:
            found = Completion(0, op_count(t), 0, t)
        for node in self.view.classes.get(cls, ()):
            operand = self._layer_operand(node)
            cand: Completion | None
            if operand is None:
                cand = self.complete(cls, node, best, original)
            elif depth == 0:
                continue
            else:
                child = node.children[operand]
                inner = self._peeled(child, depth - 1, best, emitted, original, memo)
                cand = None if inner is None else self.complete(cls, node, {**best, child: inner}, original)
            if cand is not None and (found is None or cand.better_than(found)):
                found = cand
        memo[key] = found
        return found

    def _layer_operand(self, node: ENode) -> int | None:
        """For a constant layer (`x + c`, `c + x`, `x - c`), the position of `x`; else None."""
        if node.kind not in ("add", "sub") or len(node.children) != 2:
            return None
        a, b = node.children
        if divisor_literal(self.view, b) is not None:
            return 0
        if node.kind == "add" and divisor_literal(self.view, a) is not None:
            return 1
        return None

    def variants(self, root: str, original: set[NodeKey]) -> list[tuple[ENode, Completion]]:
        """Forms for `explore`: every node of the root e-class combined with every node of its
        first operand's e-class (other operands at their best), with no value materialized."""
        best = self.completions(root, lambda _c: None, original)
        out: list[tuple[ENode, Completion]] = []
        for node in self.view.classes.get(root, ()):
            base = self.complete(root, node, best, original)
            if base is None:
                continue
            out.append((node, base))
            if not node.children:
                continue
            first = node.children[0]
            for m in self.view.classes.get(first, ()):
                alt = self.complete(first, m, best, original)
                if alt is None:
                    continue
                patched = dict(best)
                patched[first] = alt
                cand = self.complete(root, node, patched, original)
                if cand is not None:
                    out.append((node, cand))
        return out


def _layer_depth(t: EmitTerm) -> int:
    """The constant `addi` / `subi` layers at the top of an emitted term (the matcher's peel)."""
    depth = 0
    while isinstance(t, EmitNode) and t.op in ("arith.addi", "arith.subi"):
        a, b = t.operands
        if isinstance(b, EmitConst):
            t = a
        elif isinstance(a, EmitConst) and t.op == "arith.addi":
            t = b
        else:
            break
        depth += 1
    return depth


def is_remui(term: EmitTerm) -> bool:
    return isinstance(term, EmitNode) and term.op == "arith.remui"

