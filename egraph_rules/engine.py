"""The index engine: one e-graph per kernel for slot operands and index expressions
(`60-egraph-engine.md`, `30-pto-codegen.md` §6–§8, `40-ptoas-slot-matcher.md` §7).

Usage (codegen, the slots pass, `slotsat explore`):

    engine = IndexEngine(Mode.SLOTSAT)
    engine.add_loop(LoopInfo(i, start, stop, step))       # every enclosing loop
    r = engine.add_root(expr, slots=2)                     # a slot operand (or a plain expression)
    engine.saturate()                                      # batched insert + CODEGEN_SLOTS
    chosen = engine.choose(r, scope)                       # in emission order; CSE-aware

What goes where:

- Every root is constant-folded first (`slotsat.core.semantics.fold`, §7.5; its errors are
  `PassError`s at the expression's position).
- Plain (non-slot) roots in both modes, and slot roots in `Mode.PYPTO`, lower node by node
  as written with the syntactic proof only (§7.4, §6), and are never shared.
- Slot roots in `Mode.SLOTSAT` are inserted in one batch into the e-graph with the loop
  facts, `CODEGEN_SLOTS` runs (syntactic and interval analyses, `slot_forms`,
  `lower_arith`), the e-graph is exported once, and `choose` runs the matcher-filtered,
  CSE-aware extraction of `slotsat.egraph_rules.extract` against the `EmittedScope`.
- A slot index of another integer dtype gets a final cast to `INDEX` (§6).

Encoding decisions: an induction variable of a registered `INDEX` loop is `Idx.iv`; every
other variable is an opaque `Idx.var` leaf; unsigned, comparison and float subexpressions
are opaque leaves lowered as written; a literal operand adopts its operation's dtype when
it fits its own (§5.3), and a literal whose stored value does not fit its own dtype is an
opaque leaf (never folded, never proven, emitted as its bit pattern).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, NewType

from egglog import EGraph, i64, set_

from slotsat.analysis.matcher import MatcherClass, ValueGraph, accepted, classify
from slotsat.core import ir
from slotsat.core.options import Mode
from slotsat.core.semantics import fold
from slotsat.egraph_rules.costs import EmitConst, EmitNode, EmitTerm, describe, op_count, to_value
from slotsat.egraph_rules.extract import (
    LEAF_KINDS,
    Completion,
    EGraphView,
    ENode,
    Extractor,
    NodeKey,
    export,
    is_remui,
)
from slotsat.egraph_rules.lang import (
    DT_INDEX,
    Idx,
    Loop,
    code_dtype,
    dt_code,
    dtype_facts,
    is_signed_code,
    loop_start,
    loop_step,
    loop_stop,
    start_runtime,
    step_runtime,
    stop_runtime,
)
from slotsat.egraph_rules.limits import Limits
from slotsat.egraph_rules.schedules import (
    CODEGEN_SLOTS,
    CODEGEN_SYNTACTIC,
    NamedSchedule,
    Runner,
    run_bounded,
)
from slotsat.egraph_rules.scope import ScopedMemo
from slotsat.egraph_rules.syntactic import python_nonneg_syn


@dataclass(frozen=True)
class LoopInfo:
    var: ir.Var
    start: ir.Expr
    stop: ir.Expr
    step: ir.Expr


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


# --------------------------------------------------------------------------------------
# IR -> insertion terms

Term = tuple[str, tuple[Any, ...], tuple["Term", ...]]
"""A hash-consed insertion term: (kind, payload, children)."""

_BIN_KIND: dict[type, str] = {
    ir.Add: "add",
    ir.Sub: "sub",
    ir.Mul: "mul",
    ir.FloorDiv: "floordiv",
    ir.FloorMod: "floormod",
}


@dataclass
class _Root:
    expr: ir.Expr
    slots: int | None
    term: Term | None = None
    cls: str | None = None
    original: set[NodeKey] = field(default_factory=set)


_serials = itertools.count(1)


class IndexEngine:
    """One e-graph of index expressions per kernel (see the module docstring)."""

    def __init__(
        self, mode: Mode = Mode.SLOTSAT, limits: Limits | None = None, *, insert_plain: bool = False
    ) -> None:
        self.mode = mode
        self.limits = limits if limits is not None else Limits.from_env()
        self.insert_plain = insert_plain
        self.serial = next(_serials)
        self.loops: dict[int, LoopInfo] = {}
        self.roots: list[_Root] = []
        self.opaque: dict[str, tuple[EmitTerm, int]] = {}
        self._opaque_by_expr: dict[int, str] = {}
        self.view: EGraphView | None = None
        self.report: SaturationReport | None = None
        self._inserted_loops: set[int] = set()
        self._dirty = False
        self._started = 0.0

    # -- building ------------------------------------------------------------------

    def add_loop(self, loop: LoopInfo) -> None:
        """Facts of one loop; add every loop that encloses a root."""
        if loop.var.id not in self.loops:
            self.loops[loop.var.id] = loop
            self._dirty = True

    def add_root(self, expr: ir.Expr, *, slots: int | None = None) -> RootId:
        """Register a slot operand (`slots` given) or a plain expression; folds constants first."""
        folded = fold(expr)
        self.roots.append(_Root(folded, slots))
        self._dirty = True
        return RootId(len(self.roots) - 1)

    def _in_egraph(self, root: _Root) -> bool:
        if not ir.expr_dtype(root.expr).is_int:
            return False
        if self.insert_plain:
            return True
        return root.slots is not None and self.mode is Mode.SLOTSAT

    def start_of(self, v: ir.Var) -> int | None:
        loop = self.loops.get(v.id)
        if loop is None or v.dtype is not ir.DType.INDEX:
            return None
        return ir.literal_value(loop.start)

    # -- saturation -------------------------------------------------------------------

    @property
    def schedule(self) -> NamedSchedule:
        return CODEGEN_SLOTS if self.mode is Mode.SLOTSAT else CODEGEN_SYNTACTIC

    def saturate(self) -> SaturationReport:
        """Insert every pending root in one batch, run the schedule, export once."""
        if not self._dirty and self.report is not None:
            return self.report
        self._dirty = False
        t0 = time.perf_counter()
        pending = [r for r in self.roots if r.term is None and self._in_egraph(r)]
        for r in pending:
            r.term = self._to_term(r.expr, None, top_slot=r.slots is not None)
        if not any(r.term is not None for r in self.roots):
            self.report = SaturationReport(0, 0, time.perf_counter() - t0, None, self.schedule.name)
            return self.report
        template = _template(self.schedule)
        template.push()
        try:
            self._inserted_loops = set()
            template.inserter.insert(
                [r.term for r in self.roots if r.term is not None], self._loop_facts()
            )
            run = run_bounded(template.runner, self.schedule, self.limits, started=t0)
            rows = template.runner.rows()
            self.view = EGraphView(export(template.egraph))
        finally:
            template.pop()
        for r in self.roots:
            if r.term is not None:
                r.original = set()
                r.cls = self._resolve(r.term, r.original)
        self.report = SaturationReport(
            iterations=run.rounds,
            nodes=rows,
            seconds=time.perf_counter() - t0,
            limit_hit=run.limit_hit,
            schedule=run.schedule,
            matches=dict(run.matches),
        )
        return self.report

    def _loop_facts(self) -> list[tuple[str, str, int | None]]:
        facts: list[tuple[str, str, int | None]] = []
        for vid, loop in self.loops.items():
            if vid in self._inserted_loops:
                continue
            self._inserted_loops.add(vid)
            for expr, fact in ((loop.start, "start"), (loop.stop, "stop"), (loop.step, "step")):
                value = ir.literal_value(expr)
                if value is not None and ir.DType.INT64.fits(value):
                    facts.append((f"L{vid}", fact, value))
                else:
                    facts.append((f"L{vid}", fact, None))
        return facts

    def _resolve(self, t: Term, original: set[NodeKey]) -> str:
        assert self.view is not None
        kind, payload, children = t
        child_classes = tuple(self._resolve(c, original) for c in children)
        key: NodeKey = (kind, payload, child_classes)
        original.add(key)
        cls = self.view.find(key)
        if cls is None:
            raise RuntimeError(f"inserted term {kind}{payload} not found in the e-graph export")
        return cls

    # -- IR to terms --------------------------------------------------------------------

    def _opaque_leaf(self, e: ir.Expr, dtype: ir.DType) -> Term:
        if isinstance(e, ir.Var):
            name = f"v{e.id}"
            self.opaque[name] = (e, 0)
        else:
            name = self._opaque_by_expr.get(id(e)) or f"u{len(self.opaque)}"
            self._opaque_by_expr[id(e)] = name
            term = self.lower_as_written(e)
            self.opaque[name] = (term, op_count(term))
        return ("var", (name, dt_code(dtype)), ())

    def _to_term(self, e: ir.Expr, want: ir.DType | None, *, top_slot: bool = False) -> Term:
        """`e` as an insertion term at dtype `want` (an explicit cast where it differs)."""
        own = ir.expr_dtype(e)
        t: Term
        if isinstance(e, ir.ConstInt) and own.is_int and own.fits(e.value) and want in _SIGNED:
            assert want is not None
            t, produced = ("const", (want.wrap(e.value), dt_code(want)), ()), want
        else:
            t, produced = self._to_term_own(e), own
        if want is not None and produced is not want:
            t, produced = ("cast", (dt_code(want),), (t,)), want
        if top_slot and produced is not ir.DType.INDEX:
            t = ("cast", (DT_INDEX,), (t,))
        return t

    def _to_term_own(self, e: ir.Expr) -> Term:
        own = ir.expr_dtype(e)
        if isinstance(e, ir.ConstInt):
            if own in _SIGNED and own.fits(e.value):
                return ("const", (e.value, dt_code(own)), ())
            return self._opaque_leaf(e, own)
        if isinstance(e, ir.Var):
            if e.id in self.loops and e.dtype is ir.DType.INDEX:
                return ("iv", (f"L{e.id}",), ())
            return self._opaque_leaf(e, own)
        if own in _SIGNED and isinstance(e, ir.Add | ir.Sub | ir.Mul | ir.FloorDiv | ir.FloorMod):
            return (_BIN_KIND[type(e)], (), (self._to_term(e.a, own), self._to_term(e.b, own)))
        if own in _SIGNED and isinstance(e, ir.Cast) and ir.expr_dtype(e.a).is_int:
            inner = self._to_term(e.a, None)
            if ir.expr_dtype(e.a) is own:
                return inner
            return ("cast", (dt_code(own),), (inner,))
        return self._opaque_leaf(e, own)

    # -- as-written lowering ------------------------------------------------------------

    def lower_as_written(self, e: ir.Expr, want: ir.DType | None = None) -> EmitTerm:
        """Node-by-node lowering of §7.1 with the syntactic proof; never shared."""
        own = ir.expr_dtype(e)
        term = self._lower_own(e, want)
        produced = _term_dtype(term, own)
        if want is not None and produced is not want and want.is_int and produced.is_int:
            return EmitNode(_cast_op(produced, want), (term,), want.mlir)
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
        if isinstance(e, ir.Cast):
            inner = self.lower_as_written(e.a)
            src = ir.expr_dtype(e.a)
            if src is own:
                return inner
            return EmitNode(_cast_op(src, own), (inner,), own.mlir)
        if isinstance(e, ir.Cmp):
            at = ir.expr_dtype(e.a)
            a, b = self.lower_as_written(e.a, at), self.lower_as_written(e.b, at)
            return EmitNode(_cmp_op(e.op, at), (a, b), "i1")
        a = self.lower_as_written(e.a, own)
        b = self.lower_as_written(e.b, own)
        return EmitNode(self._binop(e, own), (a, b), own.mlir)

    def _binop(self, e: ir.Add | ir.Sub | ir.Mul | ir.FloorDiv | ir.FloorMod, d: ir.DType) -> str:
        if isinstance(e, ir.Add | ir.Sub | ir.Mul):
            base = {ir.Add: "add", ir.Sub: "sub", ir.Mul: "mul"}[type(e)]
            return f"arith.{base}{'f' if d.is_float else 'i'}"
        is_div = isinstance(e, ir.FloorDiv)
        if d.is_float:
            return "arith.divf" if is_div else "arith.remf"
        if d.is_unsigned:
            if self.mode is Mode.PYPTO:
                return "arith.divsi" if is_div else "arith.remsi"
            return "arith.divui" if is_div else "arith.remui"
        divisor = e.b.value if isinstance(e.b, ir.ConstInt) and e.b.dtype.fits(e.b.value) else None
        proven = divisor is not None and divisor > 0 and python_nonneg_syn(e.a, d, self.start_of)
        if is_div:
            return "arith.divsi" if proven else "arith.floordivsi"
        if proven:
            return "arith.remsi"
        if divisor is None or divisor == 0:
            return "floormod.corrected.runtime"
        return "floormod.corrected.pos" if divisor > 0 else "floormod.corrected.neg"

    def _written_nonneg(self, e: ir.Expr) -> str | None:
        if isinstance(e, ir.FloorDiv | ir.FloorMod):
            return "syntactic" if python_nonneg_syn(e.a, e.dtype, self.start_of) else None
        d = ir.expr_dtype(e)
        return "syntactic" if d.is_int and python_nonneg_syn(e, d, self.start_of) else None

    # -- choosing -----------------------------------------------------------------------

    def _extractor(self) -> Extractor:
        assert self.view is not None
        return Extractor(self.view, self._leaf, _mlir, self._key)

    def _key(self, cls: str) -> Hashable:
        return (self.serial, cls)

    def _leaf(self, node: ENode, cls: str) -> tuple[EmitTerm, int]:
        if node.kind == "const":
            value, code = node.payload
            return EmitConst(int(str(value)), _mlir(int(str(code)))), 0
        if node.kind == "iv":
            vid = int(str(node.payload[0])[1:])
            return self.loops[vid].var, 0
        name = str(node.payload[0])
        return self.opaque[name]

    def _emitted(self, scope: EmittedScope) -> Callable[[str], EmitTerm | None]:
        return lambda cls: scope.lookup(self._key(cls))

    def _classify(self, root: _Root, node: ENode | None, term: EmitTerm) -> MatcherClass:
        assert root.slots is not None
        interval = None
        if self.view is not None and root.cls is not None and _bare_eligible(node, term):
            interval = self.view.interval(root.cls)
            if interval is not None and interval[0] > interval[1]:
                interval = None
        return classify(to_value(term, ValueGraph()), root.slots, interval)

    def choose(self, root_id: RootId, scope: EmittedScope) -> Chosen:
        """The form of one root; call in emission order. Records what it materializes in `scope`."""
        if self._dirty:
            self.saturate()
        root = self.roots[root_id]
        if root.slots is None or self.mode is Mode.PYPTO or root.cls is None:
            return self._choose_written(root)
        emitted = self._emitted(scope)
        cands = self._extractor().root_candidates(root.cls, emitted, root.original)
        scored = [(node, comp, self._classify(root, node, comp.term)) for node, comp in cands]
        pool = [c for c in scored if accepted(c[2])] or scored
        node, comp, mclass = min(pool, key=lambda c: _root_order(c[1]))
        reused = tuple(
            self._key(c) for c in sorted(_term_classes(comp.term, self.serial)) if emitted(c) is not None
        )
        self._record(scope, comp.term)
        return Chosen(
            comp.term, comp.cost, self._proof(root, node, comp.term), mclass.value, accepted(mclass), reused
        )

    def _record(self, scope: EmittedScope, term: EmitTerm) -> None:
        if isinstance(term, EmitNode):
            if term.key is not None and scope.lookup(term.key) is None:
                scope.add(term.key, term)
            for o in term.operands:
                self._record(scope, o)

    def _proof(self, root: _Root, node: ENode | None, term: EmitTerm) -> str | None:
        """The proof of the dividend of the top remainder / quotient (through casts), else of the value."""
        assert self.view is not None
        assert root.cls is not None
        t = term
        while isinstance(t, EmitNode) and t.op in ("arith.index_cast", "arith.extsi", "arith.trunci"):
            t = t.operands[0]
        target = t.operands[0] if isinstance(t, EmitNode) and t.op in _DIVISION_OPS else t
        cls = self._class_of_term(target)
        return self.view.proof(cls) if cls is not None else None

    def _class_of_term(self, t: EmitTerm) -> str | None:
        assert self.view is not None
        if isinstance(t, EmitNode):
            key = t.key
            return str(key[1]) if isinstance(key, tuple) and len(key) == 2 else None
        if isinstance(t, ir.Var):
            if t.id in self.loops and t.dtype is ir.DType.INDEX:
                return self.view.find(("iv", (f"L{t.id}",), ()))
            return self.view.find(("var", (f"v{t.id}", dt_code(t.dtype)), ()))
        for code, dtype in ((c, code_dtype(c)) for c in (0, 8, 16, 32, 64)):
            if dtype.mlir == t.type:
                return self.view.find(("const", (t.value, code), ()))
        return None

    def _choose_written(self, root: _Root) -> Chosen:
        term = self.lower_as_written(root.expr)
        if (
            root.slots is not None
            and ir.expr_dtype(root.expr) is not ir.DType.INDEX
            and ir.expr_dtype(root.expr).is_int
        ):
            term = EmitNode(_cast_op(ir.expr_dtype(root.expr), ir.DType.INDEX), (term,), "index")
        if root.slots is None:
            return Chosen(term, op_count(term), self._written_nonneg(root.expr), NOT_A_SLOT, False)
        mclass = classify(to_value(term, ValueGraph()), root.slots, None)
        return Chosen(term, op_count(term), self._written_nonneg(root.expr), mclass.value, accepted(mclass))

    def forms(self, root_id: RootId) -> list[FormInfo]:
        """Every form the rules reached for a root (one per node of its e-class), for `explore`."""
        if self._dirty:
            self.saturate()
        root = self.roots[root_id]
        picked = self.choose(root_id, EmittedScope())
        picked_text = describe(picked.term)
        out: list[FormInfo] = []
        seen: set[str] = set()
        if root.cls is not None and self.view is not None:
            cands = self._extractor().variants(root.cls, root.original)
            for node, comp in sorted(cands, key=lambda c: _root_order(c[1])):  # type: ENode | None, Completion
                if comp.text in seen:
                    continue
                seen.add(comp.text)
                if root.slots is not None:
                    mclass = self._classify(root, node, comp.term)
                    cls_name, ok = mclass.value, accepted(mclass)
                else:
                    cls_name, ok = NOT_A_SLOT, False
                out.append(
                    FormInfo(
                        comp.text,
                        comp.total,
                        self._proof(root, node, comp.term),
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
        if self._dirty:
            self.saturate()
        root = self.roots[root_id]
        if self.view is None or root.cls is None or self.mode is not Mode.SLOTSAT:
            return None
        return self.view.interval(root.cls)

    def proven(self, root_id: RootId) -> str | None:
        """Which ruleset proves the root value non-negative in the e-graph (None: unproven, not inserted)."""
        if self._dirty:
            self.saturate()
        root = self.roots[root_id]
        if self.view is None or root.cls is None:
            return None
        return self.view.proof(root.cls)


# --------------------------------------------------------------------------------------
# helpers

_SIGNED = frozenset({ir.DType.INDEX, ir.DType.INT8, ir.DType.INT16, ir.DType.INT32, ir.DType.INT64})
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


def _term_classes(term: EmitTerm, serial: int) -> set[str]:
    out: set[str] = set()

    def walk(t: EmitTerm) -> None:
        if isinstance(t, EmitNode):
            if isinstance(t.key, tuple) and t.key[0] == serial:
                out.add(str(t.key[1]))
            for o in t.operands:
                walk(o)

    walk(term)
    return out


def _mlir(code: int) -> str:
    return code_dtype(code).mlir


def _term_dtype(term: EmitTerm, default: ir.DType) -> ir.DType:
    if isinstance(term, ir.Var):
        return term.dtype
    for d in ir.DType:
        if d.mlir == term.type:
            return d
    return default


def _cast_op(src: ir.DType, dst: ir.DType) -> str:
    if ir.DType.INDEX in (src, dst) or src.bits == dst.bits:
        return "arith.index_cast"
    return "arith.extsi" if dst.bits > src.bits else "arith.trunci"


def _cmp_op(op: ir.CmpOp, at: ir.DType) -> str:
    if at.is_float:
        return (
            "arith.cmpf "
            + {"==": "oeq", "!=": "one", "<": "olt", "<=": "ole", ">": "ogt", ">=": "oge"}[op.value]
        )
    sign = "u" if at.is_unsigned else "s"
    table = {"==": "eq", "!=": "ne", "<": f"{sign}lt", "<=": f"{sign}le", ">": f"{sign}gt", ">=": f"{sign}ge"}
    return "arith.cmpi " + table[op.value]


# --------------------------------------------------------------------------------------
# the template e-graph


@dataclass
class _Template:
    """An e-graph with every sort, function, rule and dtype fact declared.

    Declaring them costs about 0.1 s per e-graph in egglog-python, so one template per
    schedule lives for the process; each kernel's saturation runs between `push()` and
    `pop()` (cheap on the near-empty template), which keeps e-graphs per kernel without
    paying the declarations again (`60-egraph-engine.md` §3).
    """

    egraph: EGraph
    runner: Runner
    inserter: _Inserter

    def push(self) -> None:
        """`EGraph.push` without its tracing span and Python-state copy when the batched
        low-level paths are in use (they declare nothing, so the state cannot change)."""
        if self.inserter.low and self.runner.low:
            self.inserter.push()
        else:
            self.egraph.push()

    def pop(self) -> None:
        if self.inserter.low and self.runner.low:
            self.inserter.pop()
        else:
            self.egraph.pop()


_TEMPLATES: dict[str, _Template] = {}


def _template(schedule: NamedSchedule) -> _Template:
    if schedule.name not in _TEMPLATES:
        egraph = EGraph()
        egraph.register(*dtype_facts())
        runner = Runner(egraph)
        runner.prepare(schedule)
        _TEMPLATES[schedule.name] = _Template(egraph, runner, _Inserter(egraph))
    return _TEMPLATES[schedule.name]


# --------------------------------------------------------------------------------------
# batched insertion


class _Inserter:
    """Inserts terms and facts in one `run_program` call.

    Builds egglog's low-level command objects directly (Python-side term construction
    through the high-level API dominates insertion, `60-egraph-engine.md` §11); falls back
    to the high-level API when the low-level names are unavailable (another egglog
    version).
    """

    def __init__(self, egraph: EGraph) -> None:
        self.egraph = egraph
        self.low = True
        try:
            from egglog import bindings
            from egglog.egraph_state import span

            self.b: Any = bindings
            self.span = span()

            def egg(f: Any) -> str:
                return str(egraph._callable_to_egg(f)[1])

            self.names = {
                "const": egg(Idx.const),
                "iv": egg(Idx.iv),
                "var": egg(Idx.var),
                "add": egg(Idx.__add__),
                "sub": egg(Idx.__sub__),
                "mul": egg(Idx.__mul__),
                "floordiv": egg(Idx.__floordiv__),
                "floormod": egg(Idx.__mod__),
                "cast": egg(Idx.cast),
                "loop": egg(Loop),
            }
            for fact in ("start", "stop", "step"):
                self.names[f"lit_{fact}"] = egg(_LITERAL_FACT[fact])
                self.names[f"rt_{fact}"] = egg(_RUNTIME_FACT[fact])
        except (ImportError, AttributeError, KeyError, TypeError):
            self.low = False

    def push(self) -> None:
        self.egraph._egraph.run_program(self.b.Push(1))

    def pop(self) -> None:
        self.egraph._egraph.run_program(self.b.Pop(self.span, 1))

    def facts(self, facts: list[tuple[str, str, int | None]]) -> None:
        """Loop facts `(loop key, "start" | "stop" | "step", literal or None for runtime)`."""
        if not self.low:
            high: list[Any] = []
            for key, fact, value in facts:
                lp = Loop(key)
                if value is not None:
                    high.append(set_(_LITERAL_FACT[fact](lp)).to(i64(value)))
                else:
                    high.append(_RUNTIME_FACT[fact](lp))
            self.egraph.register(*high)
            return
        self.egraph._egraph.run_program(*self._fact_commands(facts))

    def _fact_commands(self, facts: list[tuple[str, str, int | None]]) -> list[Any]:
        b, sp = self.b, self.span
        cmds = []
        for key, fact, value in facts:
            lp = b.Call(sp, self.names["loop"], [self._lit(key)])
            if value is not None:
                cmds.append(b.ActionCommand(b.Set(sp, self.names[f"lit_{fact}"], [lp], self._lit(value))))
            else:
                cmds.append(b.ActionCommand(b.Expr_(sp, b.Call(sp, self.names[f"rt_{fact}"], [lp]))))
        return cmds

    def insert(self, terms: list[Term], facts: list[tuple[str, str, int | None]] | None = None) -> None:
        """Loop facts (if any), then `terms`, in that order; one `run_program` call."""
        if not self.low:
            if facts:
                self.facts(facts)
            if terms:
                self.egraph.register(*(_high_level(t, {}) for t in terms))
            return
        cmds = self._fact_commands(facts) if facts else []
        memo: dict[Term, Any] = {}
        cmds.extend(self.b.ActionCommand(self.b.Expr_(self.span, self._expr(t, memo))) for t in terms)
        if cmds:
            self.egraph._egraph.run_program(*cmds)

    def _lit(self, v: int | str) -> Any:
        b = self.b
        return b.Lit(self.span, b.String(v) if isinstance(v, str) else b.Int(v))

    def _expr(self, t: Term, memo: dict[Term, Any]) -> Any:
        if t in memo:
            return memo[t]
        kind, payload, children = t
        b, sp, names = self.b, self.span, self.names
        if kind in {"const", "var"}:
            out = b.Call(sp, names[kind], [self._lit(payload[0]), self._lit(payload[1])])
        elif kind == "iv":
            out = b.Call(sp, names["iv"], [b.Call(sp, names["loop"], [self._lit(payload[0])])])
        elif kind == "cast":
            out = b.Call(sp, names["cast"], [self._expr(children[0], memo), self._lit(payload[0])])
        else:
            out = b.Call(sp, names[kind], [self._expr(c, memo) for c in children])
        memo[t] = out
        return out


_LITERAL_FACT: dict[str, Any] = {"start": loop_start, "stop": loop_stop, "step": loop_step}
_RUNTIME_FACT: dict[str, Any] = {"start": start_runtime, "stop": stop_runtime, "step": step_runtime}


def _high_level(t: Term, memo: dict[Term, Idx]) -> Idx:
    if t in memo:
        return memo[t]
    kind, payload, children = t
    kids = [_high_level(c, memo) for c in children]
    out: Idx
    if kind == "const":
        out = Idx.const(i64(payload[0]), i64(payload[1]))
    elif kind == "var":
        out = Idx.var(str(payload[0]), i64(payload[1]))
    elif kind == "iv":
        out = Idx.iv(Loop(str(payload[0])))
    elif kind == "cast":
        out = Idx.cast(kids[0], i64(payload[0]))
    else:
        ops: dict[str, Callable[[Idx, Idx], Idx]] = {
            "add": lambda a, b: a + b,
            "sub": lambda a, b: a - b,
            "mul": lambda a, b: a * b,
            "floordiv": lambda a, b: a // b,
            "floormod": lambda a, b: a % b,
        }
        out = ops[kind](kids[0], kids[1])
    memo[t] = out
    return out


__all__ = [
    "LEAF_KINDS",
    "Chosen",
    "EmittedScope",
    "FormInfo",
    "IndexEngine",
    "LoopInfo",
    "RootId",
    "SaturationReport",
    "is_signed_code",
]
