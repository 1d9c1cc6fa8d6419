"""The index engine: the e-graph of a kernel function's integer expressions (slot operands,
offsets, bounds, scalar index expressions) and the choice of their emitted forms
(`60-egraph-engine.md`, `30-pto-codegen.md` §6–§8, `40-ptoas-slot-matcher.md` §7,
`05-decisions.md` item 15).

Usage (codegen, `slotsat explore`, the benchmark's probe):

    engine = IndexEngine(Mode.SLOTSAT)
    engine.add_loop(LoopInfo(i, start, stop, step))       # every enclosing loop
    r = engine.add_root(expr, slots=2)                     # a slot operand (or a plain expression)
    engine.saturate()                                      # one session: insert, run, read
                                                           # (or saturate_together(engines))
    chosen = engine.choose(r, scope)                       # in emission order; CSE-aware

What goes where:

- Every root is constant-folded first (`slotsat.core.semantics.fold`, §7.5; its errors are
  `PassError`s at the expression's position).
- Every integer root, in both modes, becomes an index-language term
  (`slotsat.egraph_rules.ir_terms`), and so does every signed subexpression of a leaf (a
  comparison's operands, say); `saturate` inserts them in one batch with the loop facts
  (`slotsat.egraph_rules.loops`) into one session (`slotsat.egraph_rules.session`), runs
  `CODEGEN_SLOTS` (`CODEGEN_SYNTACTIC` in `Mode.PYPTO`) and reads the saturated tables once
  (`Session.view`, `slotsat.egraph_rules.view`).
- `choose` picks the form. Default mode: the CSE-aware extraction
  (`slotsat.egraph_rules.extract`) against the `EmittedScope` for every root, restricted to
  matcher-accepted forms (searched at every depth) for a slot operand. `Mode.PYPTO`: the
  written-form extraction, the inserted term node by node, where a floor node becomes its
  `rems` / `divs` alternative exactly when the syntactic rules unioned one in; never shared,
  as the reference emits it. Op selection happens there and only there; the proof a form
  reports is read from the e-graph's facts. Once an engine's choices have taken longer than
  `Limits.extract_seconds` (`slotsat.core.limits` (j)), the default mode takes the written
  form too, for every later root, with its own proven alternatives (`remu` / `divu`).

The result of a saturation is a `Saturated` graph, immutable, with its own generation; the
engine keeps the latest and builds a new one when roots or loops were added since (a late
root builds a new graph). Choices and emitted-value scopes are keyed by generation, so a
value emitted for one graph is never reused for another.

Codegen saturates the engines of every kernel function of a module in one e-graph
(`saturate_together`: one session, one insert, one run and one read of the tables per
module; each function keyed apart, each with a generation of its own, and one e-graph per
function again when the joint run hits a limit), or, for a large module, in two e-graphs of
unconnected terms on two threads, with the same result. Its pre-pass registers every root emission
will ask for, including the operands of hoisted operations, so a function saturates once.
"""

from __future__ import annotations

import atexit
import itertools
import queue
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import Future, wait
from dataclasses import dataclass, field
from typing import NewType, TypeVar, cast

from networkx.utils import UnionFind

from slotsat.analysis.matcher import MatcherClass, ValueGraph, accepted, classify
from slotsat.core import ir, phases
from slotsat.core.options import Mode
from slotsat.core.semantics import fold
from slotsat.egraph_rules.calls import Action, Call, Set
from slotsat.egraph_rules.costs import CASTS, EmitConst, EmitNode, EmitTerm, describe, op_count, to_value
from slotsat.egraph_rules.extract import Completion, Extractor, emission_op, is_remui
from slotsat.egraph_rules.ir_terms import TermBuilder
from slotsat.egraph_rules.lang import SIGNED_DTYPES, dtype_of
from slotsat.egraph_rules.loops import LoopInfo, loop_facts
from slotsat.egraph_rules.schedules import CODEGEN_SLOTS, CODEGEN_SYNTACTIC, INDEX_ENGINE, NamedSchedule
from slotsat.egraph_rules.scope import ScopedMemo
from slotsat.egraph_rules.session import Limits, ScheduleRun, command_path, drop_templates, session
from slotsat.egraph_rules.view import EGraphView, ENode, NodeKey
from slotsat.egraph_rules.written import LeafLowering, cast_op

RootId = NewType("RootId", int)
_T = TypeVar("_T")

NOT_A_SLOT = "not-a-slot"

_WRITTEN_ALTERNATIVES: dict[Mode, dict[str, tuple[str, str]]] = {
    Mode.PYPTO: {"floormod": ("rems", "arith.remsi"), "floordiv": ("divs", "arith.divsi")},
    Mode.SLOTSAT: {"floormod": ("remu", "arith.remui"), "floordiv": ("divu", "arith.divui")},
}
"""Per mode, a written floor node's proven alternative (its node kind and op): the one the
mode's rules union into its e-class when its proof holds (`CODEGEN_SYNTACTIC`'s signed ones,
the default mode's unsigned ones)."""


@dataclass(frozen=True)
class SaturationReport:
    iterations: int
    nodes: int
    seconds: float
    limit_hit: str | None
    schedule: str = ""
    matches: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Chosen:
    """The form chosen for one root.

    `cost`: ops emitted here (values already materialized in scope are free); `nonneg`: which
    ruleset proves the remainder's / quotient's dividend (or the value) non-negative;
    `matcher_class`: a `MatcherClass` value, or "not-a-slot"; `reused`: the sharing keys of
    e-classes this term takes from earlier emissions in scope.
    """

    term: EmitTerm
    cost: int
    nonneg: str | None
    matcher_class: str
    accepted: bool
    reused: tuple[Hashable, ...] = ()


@dataclass(frozen=True)
class FormInfo:
    form: str
    ops: int
    nonneg: str | None
    matcher_accepts: bool
    matcher_class: str
    picked: bool
    term: EmitTerm


class EmittedScope(ScopedMemo[EmitTerm]):
    """Block scopes of e-classes already materialized (keys of `EmitNode`s, with their terms)."""


@dataclass(frozen=True)
class Root:
    """A registered root: the folded expression and, for a slot operand, the slot count."""

    expr: ir.Expr
    slots: int | None


@dataclass(frozen=True)
class Saturated:
    """One saturation of the engine's roots: the e-graph's view, the run's report, and per root
    its inserted term (None: a comparison, which has parts but no term), its e-class and the
    nodes of its written term; likewise per part (by the part's `id`).

    E-class ids are only meaningful within one e-graph: a later saturation numbers its
    classes afresh. Every key derived from a class therefore carries the graph's
    `generation` (unique in the process): values emitted into an `EmittedScope`, names a
    renderer remembers, `Chosen.reused`. A key of an older generation never matches a class
    of a newer one, so a root added after a choice is chosen against its own graph and can
    never take an earlier value for an unrelated class (issue 13.3)."""

    generation: int
    report: SaturationReport
    view: EGraphView | None
    terms: tuple[Call | None, ...]
    classes: tuple[str | None, ...]
    written: tuple[frozenset[NodeKey], ...]
    parts: dict[int, tuple[Call, str, frozenset[NodeKey]]] = field(default_factory=dict)


_generations = itertools.count(1)


class IndexEngine:
    """The integer expressions of one kernel function (see the module docstring)."""

    def __init__(self, mode: Mode = Mode.SLOTSAT, limits: Limits | None = None) -> None:
        self.mode = mode
        self.limits = limits if limits is not None else Limits.from_env()
        self.loops: dict[int, LoopInfo] = {}
        """Induction variable id -> its loop."""
        self.loop_keys: dict[int, int] = {}
        """Induction variable id -> the loop's key in the e-graph (the order of `add_loop`)."""
        self._loop_vars: dict[int, ir.Var] = {}
        self.roots: list[Root] = []
        self.terms = TermBuilder(self.loop_keys)
        self._graph: Saturated | None = None
        self._leaf_terms: dict[tuple[int, str], tuple[EmitTerm, int]] = {}
        self._extractor_of: tuple[Saturated, Extractor] | None = None
        self.choosing_seconds = 0.0
        """Time spent in `choose` so far (saturations it started excluded): what its limit
        counts, and what codegen reports as the function's extraction time."""
        self.extraction_limit_hit: str | None = None
        """The limit that ended the extraction (`limits.extract_seconds`): every later root is
        chosen in its written form (`_written_only`)."""

    # -- building ------------------------------------------------------------------

    def add_loop(self, loop: LoopInfo) -> None:
        """Facts of one loop; add every loop that encloses a root."""
        if loop.var.id not in self.loops:
            self.loops[loop.var.id] = loop
            self._loop_vars[len(self.loop_keys)] = loop.var
            self.loop_keys[loop.var.id] = len(self.loop_keys)
            self._graph = None

    def add_root(self, expr: ir.Expr, *, slots: int | None = None) -> RootId:
        """Register a slot operand (`slots` given) or a plain expression; folds constants first."""
        folded = fold(expr)
        self.roots.append(Root(folded, slots))
        self._graph = None
        return RootId(len(self.roots) - 1)

    # -- saturation -------------------------------------------------------------------

    @property
    def schedule(self) -> NamedSchedule:
        return CODEGEN_SLOTS if self.mode is Mode.SLOTSAT else CODEGEN_SYNTACTIC

    def saturate(self) -> Saturated:
        """The saturated graph of every root added so far: the latest one, or a new one built in
        one session (batched insert, the bounded run, one read of its tables)."""
        if self._graph is not None:
            return self._graph
        saturate_together([self])
        assert self._graph is not None
        return self._graph

    def _batch(self) -> _Batch:
        """What this engine inserts: its terms, its parts and its loop facts."""
        t0 = time.perf_counter()
        with phases.phase("codegen.insert"):
            terms = [self._root_term(r) for r in self.roots]
            parts = dict(self.terms.parts)
            inserted: list[Action] = [t for t in terms if t is not None]
            inserted += [t for _, t in parts.values()]
            facts: list[Action] = []
            if inserted:
                for vid, key in self.loop_keys.items():
                    facts.extend(loop_facts(key, self.loops[vid]))
        return _Batch(self, terms, parts, facts, inserted, t0)

    def _rebase(self, base: int, prefix: str) -> None:
        """Renumber the loop keys from `base` and name the opaque leaves with `prefix`, so that
        the loops and leaves of several engines are distinct in one e-graph. Terms are built
        afresh from the new keys (a new term builder)."""
        order = sorted(self.loop_keys.items(), key=lambda kv: kv[1])
        self.loop_keys.clear()
        self._loop_vars.clear()
        for k, (vid, _) in enumerate(order):
            self.loop_keys[vid] = base + k
            self._loop_vars[base + k] = self.loops[vid].var
        self.terms = TermBuilder(self.loop_keys, prefix)
        self._leaf_terms.clear()
        self._graph = None

    def _adopt(self, batch: _Batch, view: EGraphView | None, report: SaturationReport) -> None:
        """Take the saturated graph `view` (shared with the other engines of one batch)."""
        classes: list[str | None] = []
        written: list[frozenset[NodeKey]] = []
        part_info: dict[int, tuple[Call, str, frozenset[NodeKey]]] = {}
        if view is None:
            classes = [None for _ in batch.terms]
            written = [frozenset() for _ in batch.terms]
        else:
            for t in batch.terms:
                nodes: set[NodeKey] = set()
                classes.append(view.resolve(t, nodes) if t is not None else None)
                written.append(frozenset(nodes))
            for pid, (_, t) in batch.parts.items():
                nodes = set()
                part_info[pid] = (t, view.resolve(t, nodes), frozenset(nodes))
        self._graph = Saturated(
            next(_generations), report, view, tuple(batch.terms), tuple(classes), tuple(written), part_info
        )

    def _root_term(self, root: Root) -> Call | None:
        if not (ir.expr_dtype(root.expr).is_int or root.slots is None):
            return None  # a float slot index is rejected by codegen before it is chosen
        return self.terms.root(root.expr, slot=root.slots is not None)

    # -- choosing -----------------------------------------------------------------------

    def _key(self, graph: Saturated, cls: str) -> Hashable:
        """The sharing key of e-class `cls`: emitted values and rendered names are keyed by it
        (with the graph's generation, see `Saturated`)."""
        return (graph.generation, cls)

    def release(self) -> None:
        """Drop the extractor once the engine's choices are made. Its callables point back at
        the engine, and the cycle would keep the engine, its roots and its saturated view alive
        until a full collection; inside a compilation a pass boundary freezes what is alive
        (`slotsat.core.heap.settle`), so until the compilation ends."""
        self._extractor_of = None

    def _extractor(self, graph: Saturated) -> Extractor:
        """The extractor over `graph` (one per saturation: it caches per e-class facts)."""
        cached = self._extractor_of
        if cached is not None and cached[0] is graph:
            return cached[1]
        assert graph.view is not None
        ex = Extractor(graph.view, lambda node, cls: self._leaf(graph, node), lambda c: self._key(graph, c))
        self._extractor_of = (graph, ex)
        return ex

    def _leaf(self, graph: Saturated, node: ENode) -> tuple[EmitTerm, int]:
        """The term of a leaf node and the ops it costs (nonzero only for an opaque leaf)."""
        if node.kind == "const":
            value, dtype = node.payload
            assert isinstance(value, int)
            assert isinstance(dtype, ir.DType)
            return EmitConst(value, dtype.mlir), 0
        if node.kind == "iv":
            (key,) = node.payload
            assert isinstance(key, int)
            return self._loop_vars[key], 0
        name = str(node.payload[0])
        expr = self.terms.leaves[name]
        if isinstance(expr, ir.Var):
            return expr, 0
        cached = self._leaf_terms.get((graph.generation, name))
        if cached is None:
            # An opaque leaf inside a term: its parts chosen on their own (nothing recorded).
            term = self._lowering(graph, EmittedScope()).lower(expr)
            cached = self._leaf_terms[(graph.generation, name)] = (term, op_count(term))
        return cached

    def _lowering(self, graph: Saturated, scope: EmittedScope) -> LeafLowering:
        """The leaf lowering whose parts are chosen like roots, against `scope`."""
        return LeafLowering(self.mode, lambda e: self._part(graph, e, scope))

    def _part(self, graph: Saturated, e: ir.Expr, scope: EmittedScope) -> EmitTerm:
        term, cls, written = graph.parts[id(e)]
        if self._written_only():
            return self._written_form(graph, term)
        return self._cheapest(graph, cls, written, scope).term

    def _emitted(self, graph: Saturated, scope: EmittedScope) -> Callable[[str], EmitTerm | None]:
        return lambda cls: scope.lookup(self._key(graph, cls))

    def _classify(
        self, graph: Saturated, root_id: RootId, node: ENode | None, term: EmitTerm
    ) -> MatcherClass:
        slots = self.roots[root_id].slots
        assert slots is not None
        cls = graph.classes[root_id]
        interval = None
        if graph.view is not None and cls is not None and _bare_eligible(node, term):
            interval = graph.view.interval(cls)
            if interval is not None and interval[0] > interval[1]:
                interval = None
        return classify(to_value(term, ValueGraph()), slots, interval)

    def _cheapest(
        self, graph: Saturated, cls: str, written: frozenset[NodeKey], scope: EmittedScope
    ) -> Completion:
        """The cheapest form of a plain e-class (default mode); records what it materializes."""
        emitted = self._emitted(graph, scope)
        cands = self._extractor(graph).root_candidates(cls, emitted, set(written))
        comp = min((c for _, c in cands), key=_RootOrder)
        _record(scope, comp.term)
        return comp

    def _written_only(self) -> bool:
        """Whether roots take their written form: always in `Mode.PYPTO`; in the default mode
        once this engine's choices have taken longer than `limits.extract_seconds` (each root's
        extraction is bounded by its closure, but a large unsettled e-graph makes closures
        large: `slotsat.core.limits` (j))."""
        if self.mode is Mode.PYPTO or self.extraction_limit_hit is not None:
            return True
        if self.choosing_seconds > self.limits.extract_seconds:
            self.extraction_limit_hit = (f"extraction time limit of {self.limits.extract_seconds:g} s "
                                         "(SLOTSAT_EXTRACT_SECONDS raises it)")
            return True
        return False

    def choose(self, root_id: RootId, scope: EmittedScope) -> Chosen:
        """The form of one root; call in emission order. Records what it materializes in `scope`."""
        graph = self.saturate()
        started = time.perf_counter()
        try:
            return self._choose(graph, root_id, scope)
        finally:
            self.choosing_seconds += time.perf_counter() - started

    def _choose(self, graph: Saturated, root_id: RootId, scope: EmittedScope) -> Chosen:
        root = self.roots[root_id]
        cls = graph.classes[root_id]
        term = graph.terms[root_id]
        if cls is None or term is None:  # a comparison: a leaf whose parts are chosen
            leaf = self._lowering(graph, scope).lower(root.expr)
            return Chosen(leaf, op_count(leaf), None, NOT_A_SLOT, False)
        if self._written_only():
            return self._choose_written(graph, root_id, term)
        emitted = self._emitted(graph, scope)
        if root.slots is None:
            comp = self._cheapest(graph, cls, graph.written[root_id], scope)
            reused = self._reused(graph, comp.term, emitted)
            return Chosen(comp.term, comp.cost, self._proof(graph, comp.term), NOT_A_SLOT, False, reused)
        extractor = self._extractor(graph)
        original = set(graph.written[root_id])
        best = extractor.root_completions(cls, emitted, original)
        cands = [
            *extractor.root_candidates(cls, emitted, original, best),
            *extractor.peel_candidates(cls, root.slots, emitted, original, best),
        ]
        # The cheapest candidate the matcher model accepts, else the cheapest of all: in root
        # order (stable, so ties keep the candidates' order), classified only until the first
        # accepted one.
        ranked = sorted(cands, key=lambda c: _RootOrder(c[1]))
        picked: tuple[Completion, MatcherClass] | None = None
        for node, cand in ranked:
            cand_class = self._classify(graph, root_id, node, cand.term)
            if picked is None:
                picked = (cand, cand_class)
            if accepted(cand_class):
                picked = (cand, cand_class)
                break
        assert picked is not None
        comp, mclass = picked
        reused = self._reused(graph, comp.term, emitted)
        _record(scope, comp.term)
        return Chosen(
            comp.term, comp.cost, self._proof(graph, comp.term), mclass.value, accepted(mclass), reused
        )

    def _reused(
        self, graph: Saturated, term: EmitTerm, emitted: Callable[[str], EmitTerm | None]
    ) -> tuple[Hashable, ...]:
        return tuple(
            self._key(graph, c)
            for c in sorted(_term_classes(term, graph.generation))
            if emitted(c) is not None
        )

    def _proof(self, graph: Saturated, term: EmitTerm) -> str | None:
        """The proof of the dividend of a top remainder / quotient, else of the form's own
        value (a cast's own: an `INT32` view of a non-negative `INDEX` may be negative)."""
        assert graph.view is not None
        t = term
        target = t.operands[0] if isinstance(t, EmitNode) and t.op in _DIVISION_OPS else t
        cls = self._class_of_term(graph, target)
        return graph.view.proof(cls) if cls is not None else None

    def _class_of_term(self, graph: Saturated, t: EmitTerm) -> str | None:
        view = graph.view
        assert view is not None
        if isinstance(t, EmitNode):
            key = t.key
            return str(key[1]) if isinstance(key, tuple) and len(key) == 2 else None
        if isinstance(t, ir.Var):
            key_of_loop = self.loop_keys.get(t.id)
            if key_of_loop is not None and t.dtype is ir.DType.INDEX:
                return view.find(("iv", (key_of_loop,), ()))
            return view.find(("var", (f"v{t.id}", t.dtype), ()))
        for dtype in SIGNED_DTYPES:
            if dtype.mlir == t.type:
                return view.find(("const", (t.value, dtype), ()))
        return None

    # -- the written form (`--mode pypto`, and past the extraction limit) ------------------

    def _choose_written(self, graph: Saturated, root_id: RootId, term: Call) -> Chosen:
        """`Mode.PYPTO`, or the default mode past its extraction limit: the inserted term node
        by node (see the module docstring)."""
        root = self.roots[root_id]
        assert graph.view is not None
        classes = graph.view.resolve_classes(term)
        emitted = self._written_node(graph, graph.view.holding(classes[id(term)]), term, classes)
        top = term.args[0] if term.fn in ("floordiv", "floormod") else term
        proof = graph.view.proof(classes[id(top)])
        if root.slots is None:
            return Chosen(emitted, op_count(emitted), proof, NOT_A_SLOT, False)
        mclass = classify(to_value(emitted, ValueGraph()), root.slots, None)
        return Chosen(emitted, op_count(emitted), proof, mclass.value, accepted(mclass))

    def _written_form(self, graph: Saturated, term: Call) -> EmitTerm:
        """The written term with each floor node lowered by the alternative the rules unioned
        into its e-class (`rems` / `divs` in `Mode.PYPTO`, `remu` / `divu` in the default
        mode), or else its correction; never shared. The whole term is read in the e-graph
        that holds it (a merged view holds one per e-graph, each with its own literals)."""
        assert graph.view is not None
        classes = graph.view.resolve_classes(term)
        return self._written_node(graph, graph.view.holding(classes[id(term)]), term, classes)

    def _written_node(
        self, graph: Saturated, view: EGraphView, term: Call, classes: dict[int, str]
    ) -> EmitTerm:
        """`_written_form` of `term`, a subterm of the one `classes` resolves (in `view`)."""
        cls = classes[id(term)]
        kind = term.fn
        if kind == "iv":  # its class may also hold a cast pair the rules unioned with it
            return self._leaf(graph, next(n for n in view.classes[cls] if n.kind == "iv"))[0]
        if kind in ("const", "var"):
            return self._leaf(graph, _leaf_node(term))[0]
        children = [a for a in term.args if isinstance(a, Call) and not a.fn.startswith("Dtype.")]
        kids = [self._written_node(graph, view, c, classes) for c in children]
        width = view.width.get(cls, ir.DType.INDEX)
        if kind == "cast":
            target = term.args[1]
            assert isinstance(target, Call)
            src = view.width.get(classes[id(children[0])], ir.DType.INDEX)
            return EmitNode(cast_op(src, dtype_of(target.fn)), tuple(kids), dtype_of(target.fn).mlir)
        node = ENode(kind, (), tuple(classes[id(c)] for c in children))
        op = emission_op(view, node)
        alternative = _WRITTEN_ALTERNATIVES[self.mode].get(kind)
        if alternative is not None and any(
            n.kind == alternative[0] and n.children == node.children for n in view.classes.get(cls, ())
        ):
            op = alternative[1]
        assert op is not None
        return EmitNode(op, tuple(kids), width.mlir)

    # -- explore ----------------------------------------------------------------------------

    def forms(self, root_id: RootId) -> list[FormInfo]:
        """Every form the rules reached for a root (one per node of its e-class, each also with
        every node of its first operand's class), for `explore`; the picked one is among them."""
        graph = self.saturate()
        root = self.roots[root_id]
        picked = self.choose(root_id, EmittedScope())
        picked_text = describe(picked.term)
        out: list[FormInfo] = []
        seen: set[str] = set()
        cls = graph.classes[root_id]
        if cls is not None and graph.view is not None:
            extractor = self._extractor(graph)
            original = set(graph.written[root_id])
            cands: list[tuple[ENode | None, Completion]] = list(extractor.variants(cls, original))
            if root.slots is not None:
                cands += extractor.peel_candidates(cls, root.slots, lambda _c: None, original)
            for node, comp in sorted(cands, key=lambda c: _RootOrder(c[1])):
                if comp.text in seen:
                    continue
                seen.add(comp.text)
                if root.slots is not None:
                    mclass = self._classify(graph, root_id, node, comp.term)
                    cls_name, ok = mclass.value, accepted(mclass)
                else:
                    cls_name, ok = NOT_A_SLOT, False
                out.append(
                    FormInfo(
                        comp.text,
                        comp.total,
                        self._proof(graph, comp.term),
                        ok,
                        cls_name,
                        comp.text == picked_text,
                        comp.term,
                    )
                )
        if picked_text not in seen:
            out.append(
                FormInfo(
                    picked_text,
                    op_count(picked.term),
                    picked.nonneg,
                    picked.accepted,
                    picked.matcher_class,
                    True,
                    picked.term,
                )
            )
        return out

    def picked_nodes(self, root_id: RootId) -> set[NodeKey]:
        """The e-nodes of the form `forms` marks picked (for `explore --dot`)."""
        graph = self.saturate()
        view = graph.view
        term = graph.terms[root_id]
        if view is None or term is None:
            return set()
        if self.mode is Mode.PYPTO:
            return self._written_nodes(graph, term)
        out: set[NodeKey] = set()

        def walk(t: EmitTerm) -> str | None:
            cls = self._class_of_term(graph, t)
            if isinstance(t, EmitNode) and cls is not None:
                kids = tuple(walk(o) for o in t.operands)
                kind = _OP_KIND.get(t.op, "cast" if t.op in CASTS else "floormod")
                for n in view.classes.get(cls, ()):
                    if n.kind == kind and n.children == kids:
                        out.add(n.key)
                        break
            elif cls is not None:
                out.update(n.key for n in view.classes.get(cls, ()) if n.kind in ("iv", "var", "const"))
            return cls

        walk(self.choose(root_id, EmittedScope()).term)
        return out

    def _written_nodes(self, graph: Saturated, term: Call) -> set[NodeKey]:
        """The nodes of the written form: the inserted term, a floor node replaced by the
        `rems` / `divs` node the written-form extraction took."""
        view = graph.view
        assert view is not None
        nodes: set[NodeKey] = set()
        view.resolve(term, nodes)
        out: set[NodeKey] = set()
        for key in nodes:
            alternative = {"floormod": "rems", "floordiv": "divs"}.get(key[0])
            cls = view.lookup[key]
            swap = next(
                (n.key for n in view.classes.get(cls, ()) if n.kind == alternative and n.children == key[2]),
                None,
            )
            out.add(swap if swap is not None else key)
        return out

    def slot_interval(self, root_id: RootId) -> tuple[int, int] | None:
        """The proven interval of a slot operand (default mode), for the out-of-range warning."""
        graph = self.saturate()
        cls = graph.classes[root_id]
        if graph.view is None or cls is None or self.mode is not Mode.SLOTSAT:
            return None
        return graph.view.interval(cls)

    def proven(self, root_id: RootId) -> str | None:
        """Which ruleset proves the root value non-negative in the e-graph (None: unproven, not inserted)."""
        graph = self.saturate()
        cls = graph.classes[root_id]
        if graph.view is None or cls is None:
            return None
        return graph.view.proof(cls)


@dataclass
class _Batch:
    """One engine's share of a saturation (`IndexEngine._batch`)."""

    engine: IndexEngine
    terms: list[Call | None]
    parts: dict[int, tuple[ir.Expr, Call]]
    facts: list[Action]
    inserted: list[Action]
    started: float


class _Clock:
    seconds = 0.0
    """Wall time spent in saturations so far (inserts included), process-wide."""


CLOCK = _Clock()
"""Read by codegen to keep its extraction and emission phases disjoint from the
saturations run inside them (a root added late saturates when it is chosen)."""


def saturate_together(engines: Sequence[IndexEngine]) -> None:
    """Saturate the roots of several engines (one per kernel function of a module) in one
    e-graph of one session: one batched insert, one bounded run, one read of its tables,
    instead of one of each per function.

    Scoping: each engine's loops get keys of their own (`_rebase`) and its opaque leaves a
    name prefix, so no term of one function names a loop or a leaf of another; variables are
    keyed by their process-unique id. The functions' terms then share only e-classes built
    from literals alone (hash-consed, equal in every function), and no rule unions a class
    that reads a loop or a variable with one that does not, so each function's part of the
    e-graph evolves round by round exactly as in an e-graph of its own: same classes, same
    facts, same choices. (Each engine's extraction starts from its own roots, so it only
    ever reaches its own part.)

    Two threads: the same holds for any terms that share no loop and no variable, within
    one function too (sibling loops over their own induction variables). When a module
    inserts at least `PARALLEL_MIN_ACTIONS` actions, they are cut between such connected
    components into two halves of about equal size (`_halves`), and the second half is
    saturated on a worker thread while this thread saturates the first. egglog runs a
    schedule without holding the GIL, so the two runs overlap on two cores; inserting and
    reading the tables (Python) take turns. Every engine adopts the merged view of both
    (`EGraphView.merged`: each e-graph's e-class ids under a prefix of their own). Halves
    whose rows together exceed the row limit are redone as one e-graph, so the split never
    hides a limit the single e-graph would hit. `PARALLEL` off (tests compare both) keeps
    one e-graph.

    Limits: the joint e-graph has at least the rows of each function's own and runs as many
    rounds as the slowest function's, so a joint run within the limits means every function
    alone would have been within them. When a joint run hits a limit, each engine of it is
    saturated alone instead, and the failure rule applies per function exactly as documented
    (`slotsat.egraph_rules.session`): either way every function gets the e-graph it would
    get alone.

    Engines already saturated are left as they are; engines of different modes are
    saturated in one e-graph per mode. The joint report (rows, rounds, matches, seconds) is
    the first engine's of each e-graph; the others report zero rows and rounds, so figures
    summed over functions count each e-graph once.
    """
    t0 = time.perf_counter()
    try:
        _saturate_groups([e for e in engines if e._graph is None])
    finally:
        CLOCK.seconds += time.perf_counter() - t0


PARALLEL = True
"""Split a large module's saturation between two threads (see `saturate_together`)."""

PARALLEL_MIN_ACTIONS = 1_000
"""Inserted actions (terms and loop facts) from which a module's saturation is split: below
it a second e-graph costs more (its push, pop and table read) than the overlap saves."""

SWITCH_INTERVAL = 0.0001
"""Python's thread switch interval (seconds) while the two threads saturate: each egglog
iteration returns to Python for its next call, and with the default 5 ms a thread whose
iteration ended waits up to that long for the other thread's Python to yield."""

_Job = tuple[Callable[[], object], "Future[object]"]


class _Worker:
    """The second saturation thread: runs one job at a time and keeps its own e-graph templates
    (`session` keeps one per thread: egglog's e-graph cannot move between threads). A daemon
    thread, stopped at exit (`atexit`, which runs before the interpreter tears daemon threads
    down), so its templates are dropped on it."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._loop, name="slotsat-egraph", daemon=True)
        self._thread.start()
        atexit.register(self.stop)

    def _loop(self) -> None:
        try:
            while (job := self._jobs.get()) is not None:
                fn, future = job
                if future.set_running_or_notify_cancel():
                    try:
                        future.set_result(fn())
                    except BaseException as exc:  # handed to the waiting thread
                        future.set_exception(exc)
                # Not kept while the thread waits: the job's result holds an e-graph view.
                del job, fn, future
        finally:
            drop_templates()

    def submit(self, fn: Callable[[], _T]) -> Future[_T]:
        future: Future[_T] = Future()
        self._jobs.put((fn, cast("Future[object]", future)))
        return future

    def stop(self) -> None:
        atexit.unregister(self.stop)  # (stopped early: `stop_worker`)
        self._jobs.put(None)
        self._thread.join()


_WORKER: list[_Worker] = []


def _worker() -> _Worker:
    if not _WORKER:
        _WORKER.append(_Worker())
    return _WORKER[0]


def start_worker() -> None:
    """Start the worker thread and build its index-engine template now, so that the first
    split saturation does not pay for it (a one-time cost of the process, like this thread's
    own template; the benchmark's warm-up calls it)."""

    def build() -> None:
        with session(INDEX_ENGINE):
            pass

    _worker().submit(build).result()


def stop_worker() -> None:
    """Stop the worker thread, if one runs (its templates are dropped on it); the next split
    saturation starts a new one. For a caller about to fork: the child of a process with
    threads gets none of them, and whatever lock one of them held stays held in the child."""
    if _WORKER:
        _WORKER.pop().stop()


def _saturate_groups(pending: list[IndexEngine]) -> None:
    for mode in (Mode.SLOTSAT, Mode.PYPTO):
        group = [e for e in pending if e.mode is mode]
        if len(group) > 1:
            base = 0
            for k, e in enumerate(group):
                e._rebase(base, f"f{k}.")
                base += len(e.loop_keys)
        batches = [e._batch() for e in group]
        live = [b for b in batches if b.inserted]
        for b in batches:
            if not b.inserted:
                b.engine._adopt(b, None, SaturationReport(0, 0, time.perf_counter() - b.started, None,
                                                          b.engine.schedule.name))
        if live:
            live = _saturate_split(live)
            for b in live:  # each function's own time limit starts now, not before the joint run
                b.started = time.perf_counter()
        for b in live:
            _saturate_alone(b)


def _saturate_split(batches: list[_Batch]) -> list[_Batch]:
    """Saturate `batches` jointly, in two e-graphs on two threads when they are large (see
    `saturate_together`); returns the batches to saturate alone (all of them when a joint
    run hit a limit)."""
    actions = [a for b in batches for a in b.facts] + [a for b in batches for a in b.inserted]
    halves = _halves(actions)
    first = batches[0].engine
    started = min(b.started for b in batches)
    if halves is None and len(batches) == 1:
        _saturate_alone(batches[0])
        return []
    if halves is None:
        runs = [_run_joint(actions, first, started, "")]
    else:
        interval = sys.getswitchinterval()
        sys.setswitchinterval(SWITCH_INTERVAL)
        try:
            second = halves[1]
            future = _worker().submit(lambda: _run_joint(second, first, started, "1|"))
            try:
                mine = _run_joint(halves[0], first, started, "0|")
            finally:
                with phases.phase("codegen.saturate"):
                    wait([future])
        finally:
            sys.setswitchinterval(interval)
        runs = [mine, future.result()]
    total_rows = sum(n for _, n, _ in runs)
    if any(run.limit_hit is not None for run, _, _ in runs) or total_rows > first.limits.rows:
        return batches  # (the halves' rows together are the one e-graph's rows)
    with phases.phase("codegen.saturate"):
        view = EGraphView.merged([v for _, _, v in runs if v is not None])
        matches: Counter[str] = Counter()
        for run, _, _ in runs:
            matches.update(run.matches)
        seconds = time.perf_counter() - started
        rounds = max(run.rounds for run, _, _ in runs)
        schedule = runs[0][0].schedule
        for k, b in enumerate(batches):
            if k == 0:
                report = SaturationReport(rounds, total_rows, seconds, None, schedule, dict(matches))
            else:
                report = SaturationReport(0, 0, 0.0, None, schedule)
            b.engine._adopt(b, view, report)
    return []


def _run_joint(
    actions: list[Action], engine: IndexEngine, started: float, prefix: str
) -> tuple[ScheduleRun, int, EGraphView | None]:
    """One e-graph of `actions` under `engine`'s schedule and limits: the run, its rows and its
    view (read with `prefix`; None when the run hit a limit)."""
    with session(INDEX_ENGINE) as s:
        with phases.phase("codegen.insert"):
            s.insert(actions)
        with phases.phase("codegen.saturate"):
            run = s.run(engine.schedule, engine.limits, started=started)
            if run.limit_hit is not None:
                return run, 0, None
            return run, s.rows(), s.view(prefix)


def _halves(actions: list[Action]) -> tuple[list[Action], list[Action]] | None:
    """`actions` cut into two e-graphs' worth that share no variable and no loop, of about
    equal size and each in its original order; None when they are too few
    (`PARALLEL_MIN_ACTIONS`), all connected, or the sessions are on egglog's public API
    (`session.command_path`).

    The cut is between connected components: actions are connected when they name a common
    loop (`Loop(k)`: an induction variable or a loop fact) or variable (`var`, by name).
    Components go to the first half in the order they first occur until it holds half the
    actions; actions of literals alone go to the first half too."""
    if not PARALLEL or len(actions) < PARALLEL_MIN_ACTIONS or not command_path(INDEX_ENGINE):
        return None
    comps = _components(actions)
    sizes = Counter(comps)
    in_first: set[Hashable | None] = {None}
    below = sizes[None]
    for comp in dict.fromkeys(comps):
        if 2 * below >= len(actions):
            break
        in_first.add(comp)
        below += sizes[comp]
    if below == len(actions):
        return None
    first = [a for a, c in zip(actions, comps, strict=True) if c in in_first]
    second = [a for a, c in zip(actions, comps, strict=True) if c not in in_first]
    return first, second


def _components(actions: list[Action]) -> list[Hashable | None]:
    """Per action, its connected component (see `_halves`; a networkx `UnionFind` of the
    atoms), None for literals alone."""
    sets: UnionFind = UnionFind()
    memo: dict[int, Hashable | None] = {}
    atoms = [
        _joined(sets, _atom(a.target, sets, memo), _atom(a.value, sets, memo)) if isinstance(a, Set)
        else _atom(a, sets, memo)
        for a in actions
    ]
    return [None if x is None else sets[x] for x in atoms]


# (`_components`' helpers are module functions, not closures: a recursive closure is a
# reference cycle, which would keep `memo`, a key per term of the module, until a collection)


def _joined(sets: UnionFind, found: Hashable | None, other: Hashable | None) -> Hashable | None:
    if found is None or other is None:
        return other if found is None else found
    sets.union(found, other)
    return found


def _atom(arg: object, sets: UnionFind, memo: dict[int, Hashable | None]) -> Hashable | None:
    """An atom of the term `arg` (all of its atoms are joined by then), or None."""
    if not isinstance(arg, Call):
        return None
    key = id(arg)  # the actions hold every term, so no id is reused meanwhile
    if key in memo:
        return memo[key]
    found: Hashable | None = None
    if arg.fn in ("Loop", "var"):
        found = (arg.fn, arg.args[0])
    else:
        for sub in arg.args:
            found = _joined(sets, found, _atom(sub, sets, memo))
    memo[key] = found
    return found


def _saturate_alone(b: _Batch) -> None:
    engine = b.engine
    with session(INDEX_ENGINE) as s:
        with phases.phase("codegen.insert"):
            s.insert([*b.facts, *b.inserted])
        with phases.phase("codegen.saturate"):
            run = s.run(engine.schedule, engine.limits, started=b.started)
            rows = s.rows()
            view = s.view()
    report = SaturationReport(
        iterations=run.rounds,
        nodes=rows,
        seconds=time.perf_counter() - b.started,
        limit_hit=run.limit_hit,
        schedule=run.schedule,
        matches=dict(run.matches),
    )
    with phases.phase("codegen.saturate"):
        engine._adopt(b, view, report)


def _leaf_node(term: Call) -> ENode:
    """The view's node of an inserted `const` / `var` leaf term."""
    value, dt = term.args
    assert isinstance(dt, Call)
    return ENode(term.fn, (value, dtype_of(dt.fn)), ())


# --------------------------------------------------------------------------------------
# helpers

_DIVISION_OPS = frozenset(
    {
        "arith.remui",
        "arith.divui",
        "arith.remsi",
        "arith.divsi",
        "arith.floordivsi",
        "floormod.corrected.pos",
        "floormod.corrected.neg",
        "floormod.corrected.runtime",
    }
)
_OP_KIND: dict[str, str] = {
    "arith.addi": "add",
    "arith.subi": "sub",
    "arith.muli": "mul",
    "arith.floordivsi": "floordiv",
    "arith.divui": "divu",
    "arith.remui": "remu",
    "arith.divsi": "divs",
    "arith.remsi": "rems",
}
_BARE_KINDS = frozenset({"iv", "var", "add", "sub", "mul", "divu", "divs", "floordiv"})
_BARE_OPS = frozenset({"arith.addi", "arith.subi", "arith.muli", "arith.divui", "arith.floordivsi"})


def _bare_eligible(node: ENode | None, term: EmitTerm) -> bool:
    """A top node the matcher sees as a plain symbol (not a correction chain, cast or `remsi`)."""
    if node is not None:
        return node.kind in _BARE_KINDS
    return isinstance(term, ir.Var) or (isinstance(term, EmitNode) and term.op in _BARE_OPS)


class _RootOrder:
    """The sort key of a root candidate, root tie-breaks (`40-ptoas-slot-matcher.md` §7.2):
    ops with sharing, ops ignoring sharing, `remui` first, closest to the written form, then
    the rendering, which is computed only for candidates equal on all the rest (most differ
    in their op counts, and rendering every candidate cost more than choosing)."""

    __slots__ = ("comp", "head")

    def __init__(self, comp: Completion) -> None:
        self.comp = comp
        self.head = (comp.cost, comp.total, 0 if is_remui(comp.term) else 1, comp.nonorig)

    def __lt__(self, other: _RootOrder) -> bool:
        if self.head != other.head:
            return self.head < other.head
        return self.comp.text < other.comp.text


def _record(scope: EmittedScope, term: EmitTerm) -> None:
    if isinstance(term, EmitNode):
        if term.key is not None and scope.lookup(term.key) is None:
            scope.add(term.key, term)
        for o in term.operands:
            _record(scope, o)


def _term_classes(term: EmitTerm, tag: object, out: set[str] | None = None) -> set[str]:
    """The e-classes (of the saturation tagged `tag`) of `term`'s nodes, added to `out`."""
    found: set[str] = set() if out is None else out
    if isinstance(term, EmitNode):
        if isinstance(term.key, tuple) and term.key[0] == tag:
            found.add(str(term.key[1]))
        for o in term.operands:
            _term_classes(o, tag, found)
    return found


__all__ = [
    "Chosen",
    "EmittedScope",
    "FormInfo",
    "IndexEngine",
    "LoopInfo",
    "Root",
    "RootId",
    "Saturated",
    "SaturationReport",
    "saturate_together",
    "start_worker",
    "stop_worker",
]
