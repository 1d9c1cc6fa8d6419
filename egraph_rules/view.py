"""The parsed export of one e-graph (`60-egraph-engine.md` §9.3 step 1).

`Session.view()` builds it once per saturation, from the decoded tables of the frozen e-graph
(`EGraphView.from_tables`) or, where egglog's internals differ, from egraph-serialize JSON
(`EGraphView.from_json` over `Session.export`): the `Idx` e-classes with their nodes
(`ENode`: kind, payload, child e-classes; a literal's, variable's or cast's `Dtype` as its
`ir.DType`; an induction variable's loop key), a lookup from node to e-class, and per
e-class the analysis results: `width` (an `ir.DType`), `lo` / `hi`, and which proof holds
(`nonneg_syn`: syntactic, `nonneg`: interval). Op names in the export are egglog's Python
names (`"· % ·"`, `"Idx.remu"`), mapped to the kinds of `OP_KIND`. Nodes of an e-class are
sorted, so nothing downstream depends on egglog's numbering.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from slotsat.core import ir
from slotsat.egraph_rules.calls import Call
from slotsat.egraph_rules.lang import dtype_of

# Python-side op names in the export (after egglog's own op mapping).
OP_KIND: dict[str, str] = {
    "Idx.const": "const",
    "Idx.iv": "iv",
    "Idx.var": "var",
    "· + ·": "add",
    "· - ·": "sub",
    "· * ·": "mul",
    "· // ·": "floordiv",
    "· % ·": "floormod",
    "Idx.cast": "cast",
    "Idx.divu": "divu",
    "Idx.remu": "remu",
    "Idx.divs": "divs",
    "Idx.rems": "rems",
}
LEAF_KINDS = frozenset({"const", "iv", "var"})
IDX_KINDS = frozenset(OP_KIND.values())


NodeKey = tuple[str, tuple[object, ...], tuple[str, ...]]
"""(kind, payload, child e-classes): identifies an e-node."""


@dataclass(frozen=True, slots=True)
class ENode:
    kind: str
    payload: tuple[object, ...]
    children: tuple[str, ...]
    key: NodeKey = field(init=False, repr=False, compare=False)
    """`(kind, payload, children)`, built once: extraction tests it against the written term's
    nodes for every completion of every choice."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", (self.kind, self.payload, self.children))


FACT_OPS = frozenset({"width", "lo", "hi", "nonneg_syn", "nonneg"})
"""The analysis functions the view reads (per e-class facts)."""


def wanted(op: str) -> bool:
    """Whether the view reads the table of the function whose Python-side name is `op`: the
    `Idx` constructors, the facts, the `Dtype` constants and the `Loop` constructor (an
    induction variable's loop key)."""
    return op in OP_KIND or op in FACT_OPS or op == "Loop" or op.startswith("Dtype.")


@dataclass(frozen=True, slots=True)
class Table:
    """One function of an e-graph, decoded (`session._Commands.tables`): its Python-side name (`op`, as
    the export names it), egglog's name, and its rows `(inputs, output)`, each e-class as its
    export id (`<sort>-<number>`, the serializer's own naming) and each literal as its value."""

    op: str
    egg: str
    rows: Sequence[tuple[tuple[object, ...], object]]


class EGraphView:
    """The parsed export: `Idx` e-classes, their nodes and analysis facts.

    Built from egraph-serialize JSON (`from_json`) or, on the command path, from the decoded
    tables of the frozen e-graph (`from_tables`, no JSON); both read the same nodes and facts
    under the same e-class ids (a test compares them)."""

    def __init__(self) -> None:
        self.classes: dict[str, list[ENode]] = {}
        self.lookup: dict[NodeKey, str] = {}
        self.node_ids: dict[NodeKey, str] = {}
        """The export's id of each `Idx` e-node (the drawing's node names)."""
        self.width: dict[str, ir.DType] = {}
        self.emission: dict[int, tuple[str, int, str]] = {}
        """Per op node of `classes` (by identity: the view holds its nodes for its lifetime), its
        emitted op, that op's cost and its e-class's width: filled by the extractor on first use,
        since every choice over this view completes the same nodes again."""
        self.lo: dict[str, int] = {}
        self.hi: dict[str, int] = {}
        self.syn: set[str] = set()
        self.nonneg: set[str] = set()
        self.literal_classes: frozenset[str] = frozenset()
        """E-classes holding a literal (`const`): their value is that literal."""
        self._parts: tuple[EGraphView, ...] = ()
        """The views `merged` joined (empty for the view of one e-graph)."""
        self._leaf_part: dict[NodeKey, int] = {}
        """For a merged view: the part holding each induction-variable and variable leaf."""

    def _add(self, en: ENode, cls: str, node_id: str) -> None:
        self.classes.setdefault(cls, []).append(en)
        self.lookup[en.key] = cls
        self.node_ids[en.key] = node_id

    def _finish(self) -> EGraphView:
        for members in self.classes.values():
            members.sort(key=lambda n: (n.kind, repr(n.payload), n.children))
        self.literal_classes = frozenset(
            cls for cls, members in self.classes.items() if any(n.kind == "const" for n in members)
        )
        return self

    @classmethod
    def from_tables(cls, tables: Sequence[Table], prefix: str = "") -> EGraphView:
        """The view of decoded tables (see `Table`); tables the view does not read are skipped.
        `prefix`: the one the tables' e-class ids were decoded with (`Session.view`), given to
        the node ids too."""
        self = cls()
        dtypes: dict[object, ir.DType] = {}
        loop_keys: dict[object, int] = {}
        for t in tables:
            if t.op.startswith("Dtype."):
                for _, out in t.rows:
                    dtypes[out] = dtype_of(t.op)
            elif t.op == "Loop":
                for (key,), out in t.rows:
                    assert isinstance(key, int)
                    loop_keys[out] = key
        for t in tables:
            kind = OP_KIND.get(t.op)
            if kind is not None:
                self._table_nodes(kind, t, dtypes, loop_keys, prefix)
            elif t.op == "width":
                for (target, *_), out in t.rows:
                    self.width[str(target)] = dtypes[out]
            elif t.op in ("lo", "hi"):
                bound = self.lo if t.op == "lo" else self.hi
                for (target, *_), out in t.rows:
                    assert isinstance(out, int)
                    bound[str(target)] = out
            elif t.op in ("nonneg_syn", "nonneg"):
                proven = self.syn if t.op == "nonneg_syn" else self.nonneg
                proven.update(str(target) for (target, *_), _ in t.rows)
        return self._finish()

    def _table_nodes(
        self, kind: str, t: Table, dtypes: dict[object, ir.DType], loop_keys: dict[object, int], prefix: str
    ) -> None:
        for k, (inputs, out) in enumerate(t.rows):
            if kind in ("const", "var"):
                en = ENode(kind, (inputs[0], dtypes[inputs[1]]), ())
            elif kind == "iv":
                en = ENode(kind, (loop_keys[inputs[0]],), ())
            elif kind == "cast":
                en = ENode(kind, (dtypes[inputs[1]],), (str(inputs[0]),))
            else:
                en = ENode(kind, (), tuple(str(c) for c in inputs))
            self._add(en, str(out), f"{prefix}function-{k}-{t.egg}")

    @classmethod
    def from_json(cls, text: str, prefix: str = "") -> EGraphView:
        """The view of egraph-serialize JSON (`Session.export`); every e-class and node id
        after `prefix` (see `Session.view`)."""
        self = cls()
        data = json.loads(text)
        nodes: dict[str, dict[str, object]] = data["nodes"]
        value_of: dict[str, str] = {}
        for node_id, node in nodes.items():
            if not node["children"]:
                value_of[str(node["eclass"])] = str(node["op"])
                value_of[node_id] = str(node["op"])

        def literal(node_id: str) -> str:
            return value_of.get(node_id, str(nodes[node_id]["op"]))

        def eclass(node_id: str) -> str:
            return prefix + str(nodes[node_id]["eclass"])

        # A `Dtype` e-class holds its constant and the `width(x)` nodes unioned with it.
        dtypes = {
            prefix + str(n["eclass"]): dtype_of(str(n["op"]))
            for n in nodes.values()
            if str(n["op"]).startswith("Dtype.")
        }

        def dtype(node_id: str) -> ir.DType:
            return dtypes[eclass(node_id)]

        for node_id, node in nodes.items():
            op = str(node["op"])
            children = [str(c) for c in node["children"]]  # type: ignore[attr-defined]
            kind = OP_KIND.get(op)
            if kind is not None:
                en = self._enode(kind, children, literal, eclass, dtype, nodes)
                self._add(en, eclass(node_id), prefix + node_id)
            elif op == "width":
                self.width[eclass(children[0])] = dtypes[eclass(node_id)]
            elif op in ("lo", "hi"):
                target = eclass(children[0])
                value = int(value_of[str(node["eclass"])])
                getattr(self, op)[target] = value
            elif op == "nonneg_syn":
                self.syn.add(eclass(children[0]))
            elif op == "nonneg":
                self.nonneg.add(eclass(children[0]))
        return self._finish()

    @staticmethod
    def _enode(  # noqa: PLR0917
        kind: str,
        children: list[str],
        literal: Callable[[str], str],
        eclass: Callable[[str], str],
        dtype: Callable[[str], ir.DType],
        nodes: dict[str, dict[str, object]],
    ) -> ENode:
        if kind == "const":
            return ENode(kind, (int(literal(children[0])), dtype(children[1])), ())
        if kind == "var":
            return ENode(kind, (json.loads(literal(children[0])), dtype(children[1])), ())
        if kind == "iv":
            loop_node = nodes[children[0]]
            key_child = str(loop_node["children"][0])  # type: ignore[index]
            return ENode(kind, (int(literal(key_child)),), ())
        if kind == "cast":
            return ENode(kind, (dtype(children[1]),), (eclass(children[0]),))
        return ENode(kind, (), tuple(eclass(c) for c in children))

    @classmethod
    def merged(cls, parts: Sequence[EGraphView]) -> EGraphView:
        """One view of several e-graphs whose terms share no variable and no induction variable
        (the index engine's split saturation, `slotsat.egraph_rules.engine.saturate_together`),
        each read with a prefix of its own, so no two parts' e-class ids clash.

        Per e-class everything is the part's own (nodes, facts). By node, two parts share only
        the literal leaves (`const`): `find` gives the first part's class for one, which holds
        the same literal with the same facts; `resolve` resolves a term in the part that holds
        its variables (a term of literals alone: the first part, where those are inserted)."""
        if len(parts) == 1:
            return parts[0]
        self = cls()
        for k, part in enumerate(parts):
            self.classes.update(part.classes)
            for key, c in part.lookup.items():
                self.lookup.setdefault(key, c)
                if key[0] in ("iv", "var"):
                    self._leaf_part[key] = k
            self.node_ids.update(part.node_ids)
            self.width.update(part.width)
            self.lo.update(part.lo)
            self.hi.update(part.hi)
            self.syn.update(part.syn)
            self.nonneg.update(part.nonneg)
        self.literal_classes = frozenset().union(*(p.literal_classes for p in parts))
        self._parts = tuple(parts)
        return self

    def find(self, key: NodeKey) -> str | None:
        return self.lookup.get(key)

    def resolve(self, term: Call, nodes: set[NodeKey]) -> str:
        """The e-class of an inserted index-language term (`slotsat.egraph_rules.ir_terms`);
        adds the key of every node of the term to `nodes`."""
        if self._parts:
            return self._parts[self._part_of(term)].resolve(term, nodes)
        return self._resolve_into(term, {}, nodes)

    def resolve_classes(self, term: Call) -> dict[int, str]:
        """The e-class of `term` and of each of its index-language subterms, by the subterm's
        `id`, in one walk (`resolve` of each subterm in turn would walk it again: quadratic in
        a deep term). A merged view resolves the whole term in the part `resolve` picks."""
        if self._parts:
            return self._parts[self._part_of(term)].resolve_classes(term)
        out: dict[int, str] = {}
        self._resolve_into(term, out, set())
        return out

    def _resolve_into(self, term: Call, out: dict[int, str], nodes: set[NodeKey]) -> str:
        """The walk of `resolve` and `resolve_classes` (a method: a recursive closure would be
        a reference cycle): each subterm's class into `out` by `id`, its node's key into
        `nodes`."""
        kids = tuple(self._resolve_into(a, out, nodes) for a in term.args
                     if isinstance(a, Call) and a.fn in IDX_KINDS)
        key = _node_key(term, kids)
        nodes.add(key)
        cls = self.lookup.get(key)
        if cls is None:
            raise RuntimeError(f"inserted term {term.fn}{key[1]} not found in the e-graph export")
        out[id(term)] = cls
        return cls

    def holding(self, cls: str) -> EGraphView:
        """The view of the one e-graph that holds e-class `cls`: for a merged view, its part
        (resolve a literal operand of one of `cls`'s nodes there); else this view."""
        for part in self._parts:
            if cls in part.classes:
                return part
        return self

    def _part_of(self, term: Call) -> int:
        """The part of a merged view that holds `term`: the one holding its first variable
        or induction variable, else the first."""
        stack: list[Call] = [term]
        while stack:
            t = stack.pop()
            if t.fn in ("iv", "var"):
                part = self._leaf_part.get(_node_key(t, ()))
                if part is not None:
                    return part
            stack.extend(a for a in t.args if isinstance(a, Call) and a.fn in IDX_KINDS)
        return 0

    def interval(self, cls: str) -> tuple[int, int] | None:
        if cls in self.lo and cls in self.hi:
            return self.lo[cls], self.hi[cls]
        return None

    def proof(self, cls: str) -> str | None:
        """ "syntactic", "interval" or None: which ruleset proves the e-class non-negative."""
        if cls in self.syn:
            return "syntactic"
        if cls in self.nonneg:
            return "interval"
        return None

    def draw(self, root: str, picked: set[NodeKey], title: str) -> str:
        """The e-classes reachable from `root` as Graphviz DOT source: one dashed cluster per
        e-class (labelled with its interval and proof), one box per e-node, an edge from each
        node to each child's cluster; the `picked` nodes are filled and bold."""
        import graphviz  # type: ignore[import-untyped]  # no stubs; egglog depends on it

        attrs = {"compound": "true", "label": title, "fontsize": "10"}
        dot = graphviz.Digraph(name="egraph", graph_attr=attrs)
        dot.attr("node", shape="box", fontname="helvetica", fontsize="9")
        order = self.reachable(root)
        anchor: dict[str, str] = {}
        for cls in order:
            members = self.classes.get(cls, [])
            if not members:
                continue
            with dot.subgraph(name=f"cluster_{_safe(cls)}") as sub:
                interval = self.interval(cls)
                facts = [self.width[cls].value if cls in self.width else ""]
                if interval is not None:
                    facts.append(f"[{interval[0]}, {interval[1]}]")
                proof = self.proof(cls)
                if proof is not None:
                    facts.append(f">= 0 ({proof})")
                sub.attr(label=" ".join(f for f in facts if f), style="dashed,rounded", fontsize="8")
                for en in members:
                    name = _safe(self.node_ids[en.key])
                    anchor.setdefault(cls, name)
                    extra = {"style": "filled,bold", "fillcolor": "gold"} if en.key in picked else {}
                    sub.node(name, _label(en), **extra)
        for cls in order:
            for en in self.classes.get(cls, []):
                for child in en.children:
                    if child in anchor:
                        dot.edge(_safe(self.node_ids[en.key]), anchor[child], lhead=f"cluster_{_safe(child)}")
        return str(dot.source)

    def reachable(self, root: str, *, through_literals: bool = True) -> list[str]:
        """E-classes reachable from `root`, children before parents where acyclic; without
        `through_literals`, the children of a literal's e-class (other than `root`) are not
        followed."""
        order: list[str] = []
        seen: set[str] = set()
        stack: list[tuple[str, bool]] = [(root, False)]
        while stack:
            cls, done = stack.pop()
            if done:
                order.append(cls)
                continue
            if cls in seen:
                continue
            seen.add(cls)
            stack.append((cls, True))
            if not through_literals and cls != root and cls in self.literal_classes:
                continue
            for node in self.classes.get(cls, ()):
                for child in node.children:
                    if child not in seen:
                        stack.append((child, False))
        return order


def _safe(name: str) -> str:
    """A DOT identifier for an export id (`slotsat.egraph_rules.lang.Idx-12` -> `Idx_12`)."""
    tail = name.rpartition(".")[2]
    return "".join(c if c.isalnum() else "_" for c in tail)


_SYMBOL = {
    "add": "+",
    "sub": "-",
    "mul": "*",
    "floordiv": "//",
    "floormod": "%",
    "remu": "remui",
    "divu": "divui",
    "rems": "remsi",
    "divs": "divsi",
}


def _label(node: ENode) -> str:
    if node.kind == "const":
        value, dtype = node.payload
        return f"{value} : {getattr(dtype, 'value', dtype)}"
    if node.kind == "iv":
        return f"iv(loop {node.payload[0]})"
    if node.kind == "var":
        return f"var {node.payload[0]}"
    if node.kind == "cast":
        return f"cast to {getattr(node.payload[0], 'value', node.payload[0])}"
    return _SYMBOL.get(node.kind, node.kind)


def _node_key(term: Call, child_classes: tuple[str, ...]) -> NodeKey:
    """The view's key of a term's top node, given its `Idx` children's e-classes."""
    kind, args = term.fn, term.args
    if kind in ("const", "var"):
        value, dt = args
        assert isinstance(dt, Call)
        return (kind, (value, dtype_of(dt.fn)), ())
    if kind == "iv":
        (loop,) = args
        assert isinstance(loop, Call)
        return (kind, loop.args, ())
    if kind == "cast":
        dt = args[1]
        assert isinstance(dt, Call)
        return (kind, (dtype_of(dt.fn),), child_classes)
    return (kind, (), child_classes)
