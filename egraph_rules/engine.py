"""The index engine: the e-graph of a kernel's slot operands and index expressions, and the
choice of their emitted forms (`60-egraph-engine.md`, `30-pto-codegen.md` §6–§8,
`40-ptoas-slot-matcher.md` §7).

Usage (codegen, `slotsat explore`, the benchmark's probe):

    engine = IndexEngine(Mode.SLOTSAT)
    engine.add_loop(LoopInfo(i, start, stop, step))       # every enclosing loop
    r = engine.add_root(expr, slots=2)                     # a slot operand (or a plain expression)
    engine.saturate()                                      # one session: insert, run, export
    chosen = engine.choose(r, scope)                       # in emission order; CSE-aware

What goes where:

- Every root is constant-folded first (`slotsat.core.semantics.fold`, §7.5; its errors are
  `PassError`s at the expression's position).
- Plain (non-slot) roots in both modes, and slot roots in `Mode.PYPTO`, lower node by node
  as written (`slotsat.egraph_rules.written`) and are never shared.
- Slot roots in `Mode.SLOTSAT` (every integer root with `insert_plain`) become index-language
  terms (`slotsat.egraph_rules.ir_terms`); `saturate` inserts them in one batch with the loop
  facts (`slotsat.egraph_rules.loops`) into one session (`slotsat.egraph_rules.session`),
  runs `CODEGEN_SLOTS` (`CODEGEN_SYNTACTIC` in `Mode.PYPTO`), exports once and parses the
  export (`slotsat.egraph_rules.view`); `choose` runs the matcher-filtered, CSE-aware
  extraction (`slotsat.egraph_rules.extract`) against the `EmittedScope`.

The result of a saturation is a `Saturated` graph, immutable, with its own generation; the
engine keeps the latest and builds a new one when roots or loops were added since (a late
root builds a new graph). Choices and emitted-value scopes are keyed by generation, so a
value emitted for one graph is never reused for another.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import NewType

from slotsat.analysis.matcher import MatcherClass, ValueGraph, accepted, classify
from slotsat.core import ir
from slotsat.core.options import Mode
from slotsat.core.semantics import fold
from slotsat.egraph_rules.calls import Action
from slotsat.egraph_rules.costs import EmitConst, EmitNode, EmitTerm, describe, op_count, to_value
from slotsat.egraph_rules.extract import Completion, Extractor, is_remui
from slotsat.egraph_rules.ir_terms import TermBuilder
from slotsat.egraph_rules.lang import SIGNED_DTYPES
from slotsat.egraph_rules.loops import LoopInfo, ascends, literal, loop_facts
from slotsat.egraph_rules.schedules import CODEGEN_SLOTS, CODEGEN_SYNTACTIC, INDEX_ENGINE, NamedSchedule
from slotsat.egraph_rules.scope import ScopedMemo
from slotsat.egraph_rules.session import Limits, session
from slotsat.egraph_rules.view import EGraphView, ENode, NodeKey
from slotsat.egraph_rules.written import WrittenLowering

RootId = NewType("RootId", int)

NOT_A_SLOT = "not-a-slot"


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
    """One saturation of the engine's roots: the parsed export, the run's report, and per root
    its e-class (None: not in the e-graph) and the nodes of its written term.

    E-class ids are only meaningful within one e-graph: a later saturation numbers its
    classes afresh. Every key derived from a class therefore carries the graph's
    `generation` (unique in the process): values emitted into an `EmittedScope`, names a
    renderer remembers, `Chosen.reused`. A key of an older generation never matches a class
    of a newer one, so a root added after a choice is chosen against its own graph and can
    never take an earlier value for an unrelated class (issue 13.3)."""

    generation: int
    report: SaturationReport
    view: EGraphView | None
    classes: tuple[str | None, ...]
    written: tuple[frozenset[NodeKey], ...]


_generations = itertools.count(1)


class IndexEngine:
    """The index expressions of one kernel (see the module docstring)."""

    def __init__(
        self, mode: Mode = Mode.SLOTSAT, limits: Limits | None = None, *, insert_plain: bool = False
    ) -> None:
        self.mode = mode
        self.limits = limits if limits is not None else Limits.from_env()
        self.insert_plain = insert_plain
        self.loops: dict[int, LoopInfo] = {}
        """Induction variable id -> its loop."""
        self.loop_keys: dict[int, int] = {}
        """Induction variable id -> the loop's key in the e-graph (the order of `add_loop`)."""
        self._loop_vars: dict[int, ir.Var] = {}
        self.roots: list[Root] = []
        self.written = WrittenLowering(mode, self.start_of)
        self.terms = TermBuilder(self.loop_keys, self.written)
        self._graph: Saturated | None = None

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

    def _in_egraph(self, root: Root) -> bool:
        if not ir.expr_dtype(root.expr).is_int:
            return False
        if self.insert_plain:
            return True
        return root.slots is not None and self.mode is Mode.SLOTSAT

    def start_of(self, v: ir.Var) -> int | None:
        """The literal start of `v`'s loop when `v` is a registered `INDEX` induction variable
        of an ascending loop (what the syntactic proof may use, `syntactic.python_nonneg_syn`)."""
        loop = self.loops.get(v.id)
        if loop is None or v.dtype is not ir.DType.INDEX or not ascends(loop):
            return None
        return literal(loop.start)

    def lower_as_written(self, e: ir.Expr, want: ir.DType | None = None) -> EmitTerm:
        """`e` lowered node by node (`slotsat.egraph_rules.written`); never shared."""
        return self.written.lower(e, want)

    # -- saturation -------------------------------------------------------------------

    @property
    def schedule(self) -> NamedSchedule:
        return CODEGEN_SLOTS if self.mode is Mode.SLOTSAT else CODEGEN_SYNTACTIC

    def saturate(self) -> Saturated:
        """The saturated graph of every root added so far: the latest one, or a new one built in
        one session (batched insert, the bounded run, one export)."""
        if self._graph is not None:
            return self._graph
        t0 = time.perf_counter()
        terms = [
            self.terms.root(r.expr, slot=r.slots is not None) if self._in_egraph(r) else None
            for r in self.roots
        ]
        inserted = [t for t in terms if t is not None]
        if not inserted:
            report = SaturationReport(0, 0, time.perf_counter() - t0, None, self.schedule.name)
            self._graph = Saturated(
                next(_generations),
                report,
                None,
                tuple(None for _ in terms),
                tuple(frozenset() for _ in terms),
            )
            return self._graph
        facts: list[Action] = []
        for vid, key in self.loop_keys.items():
            facts.extend(loop_facts(key, self.loops[vid]))
        with session(INDEX_ENGINE) as s:
            s.insert([*facts, *inserted])
            run = s.run(self.schedule, self.limits, started=t0)
            rows = s.rows()
            view = EGraphView(s.export())
        classes: list[str | None] = []
        written: list[frozenset[NodeKey]] = []
        for t in terms:
            nodes: set[NodeKey] = set()
            classes.append(view.resolve(t, nodes) if t is not None else None)
            written.append(frozenset(nodes))
        report = SaturationReport(
            iterations=run.rounds,
            nodes=rows,
            seconds=time.perf_counter() - t0,
            limit_hit=run.limit_hit,
            schedule=run.schedule,
            matches=dict(run.matches),
        )
        self._graph = Saturated(next(_generations), report, view, tuple(classes), tuple(written))
        return self._graph

    # -- choosing -----------------------------------------------------------------------

    def _tag(self, graph: Saturated) -> int:
        """What ties an e-class id to its e-graph: the graph's generation (see `Saturated`)."""
        return graph.generation

    def _key(self, graph: Saturated, cls: str) -> Hashable:
        """The sharing key of e-class `cls`: emitted values and rendered names are keyed by it."""
        return (self._tag(graph), cls)

    def _extractor(self, graph: Saturated) -> Extractor:
        assert graph.view is not None
        return Extractor(graph.view, self._leaf, lambda cls: self._key(graph, cls))

    def _leaf(self, node: ENode, cls: str) -> tuple[EmitTerm, int]:
        if node.kind == "const":
            value, dtype = node.payload
            assert isinstance(value, int)
            assert isinstance(dtype, ir.DType)
            return EmitConst(value, dtype.mlir), 0
        if node.kind == "iv":
            (key,) = node.payload
            assert isinstance(key, int)
            return self._loop_vars[key], 0
        return self.terms.leaves[str(node.payload[0])]

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

    def choose(self, root_id: RootId, scope: EmittedScope) -> Chosen:
        """The form of one root; call in emission order. Records what it materializes in `scope`."""
        graph = self.saturate()
        root = self.roots[root_id]
        cls = graph.classes[root_id]
        if root.slots is None or self.mode is Mode.PYPTO or cls is None:
            return self._choose_written(root)
        emitted = self._emitted(graph, scope)
        cands = self._extractor(graph).root_candidates(cls, emitted, set(graph.written[root_id]))
        scored = [(node, comp, self._classify(graph, root_id, node, comp.term)) for node, comp in cands]
        pool = [c for c in scored if accepted(c[2])] or scored
        _node, comp, mclass = min(pool, key=lambda c: _root_order(c[1]))
        reused = tuple(
            self._key(graph, c)
            for c in sorted(_term_classes(comp.term, self._tag(graph)))
            if emitted(c) is not None
        )
        _record(scope, comp.term)
        return Chosen(
            comp.term, comp.cost, self._proof(graph, comp.term), mclass.value, accepted(mclass), reused
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

    def _choose_written(self, root: Root) -> Chosen:
        term = self.written.lower(root.expr)
        dtype = ir.expr_dtype(root.expr)
        if root.slots is not None and dtype is not ir.DType.INDEX and dtype.is_int:
            term = self.written.lower(ir.Cast(root.expr, ir.DType.INDEX))
        if root.slots is None:
            return Chosen(term, op_count(term), self.written.nonneg(root.expr), NOT_A_SLOT, False)
        mclass = classify(to_value(term, ValueGraph()), root.slots, None)
        return Chosen(term, op_count(term), self.written.nonneg(root.expr), mclass.value, accepted(mclass))

    def forms(self, root_id: RootId) -> list[FormInfo]:
        """Every form the rules reached for a root (one per node of its e-class), for `explore`."""
        graph = self.saturate()
        root = self.roots[root_id]
        picked = self.choose(root_id, EmittedScope())
        picked_text = describe(picked.term)
        out: list[FormInfo] = []
        seen: set[str] = set()
        cls = graph.classes[root_id]
        if cls is not None and graph.view is not None:
            cands = self._extractor(graph).variants(cls, set(graph.written[root_id]))
            for node, comp in sorted(cands, key=lambda c: _root_order(c[1])):
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
_BARE_KINDS = frozenset({"iv", "var", "add", "sub", "mul", "divu", "floordiv"})
_BARE_OPS = frozenset({"arith.addi", "arith.subi", "arith.muli", "arith.divui", "arith.floordivsi"})


def _bare_eligible(node: ENode | None, term: EmitTerm) -> bool:
    """A top node the matcher sees as a plain symbol (not a correction chain, cast or `remsi`)."""
    if node is not None:
        return node.kind in _BARE_KINDS
    return isinstance(term, ir.Var) or (isinstance(term, EmitNode) and term.op in _BARE_OPS)


def _root_order(comp: Completion) -> tuple[int, int, int, int, str]:
    """Root tie-breaks (`40-ptoas-slot-matcher.md` §7.2): ops with sharing, ops ignoring
    sharing, `remui` first, closest to the written form, then the rendering."""
    return (comp.cost, comp.total, 0 if is_remui(comp.term) else 1, comp.nonorig, comp.text)


def _record(scope: EmittedScope, term: EmitTerm) -> None:
    if isinstance(term, EmitNode):
        if term.key is not None and scope.lookup(term.key) is None:
            scope.add(term.key, term)
        for o in term.operands:
            _record(scope, o)


def _term_classes(term: EmitTerm, tag: object) -> set[str]:
    out: set[str] = set()

    def walk(t: EmitTerm) -> None:
        if isinstance(t, EmitNode):
            if isinstance(t.key, tuple) and t.key[0] == tag:
                out.add(str(t.key[1]))
            for o in t.operands:
                walk(o)

    walk(term)
    return out


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
]
