"""The index engine's shortcuts in `choose` pick exactly what the plain definition picks
(issue 14): one bottom-up pass shared by a slot root's candidates and its peeled ones, terms
built lazily, and the matcher model run only until the first accepted candidate in root
order. The reference below recomputes every candidate from scratch, classifies all of them
and takes the cheapest accepted one (else the cheapest) under the root tie-breaks spelled
out (`40-ptoas-slot-matcher.md` §7), against the same scope as `choose` sees, root after
root.
"""

from __future__ import annotations

from slotsat.analysis.matcher import accepted
from slotsat.core import ir
from slotsat.core.options import Mode
from slotsat.egraph_rules.costs import describe
from slotsat.egraph_rules.engine import EmittedScope, IndexEngine
from slotsat.egraph_rules.extract import Completion, is_remui
from slotsat.egraph_rules.loops import LoopInfo

D = ir.DType.INDEX


def _c(v: int) -> ir.ConstInt:
    return ir.ConstInt(v, D)


def _order(comp: Completion) -> tuple[int, int, int, int, str]:
    """The root tie-breaks (§7.2) spelled out: ops with sharing, ops, `remui` first, closest
    to the written form, the rendering."""
    return (comp.cost, comp.total, 0 if is_remui(comp.term) else 1, comp.nonorig, comp.text)


def _reference(engine: IndexEngine, root_id: int, scope: EmittedScope) -> tuple[str, str, int]:
    graph = engine.saturate()
    cls = graph.classes[root_id]
    slots = engine.roots[root_id].slots
    assert cls is not None
    assert slots is not None
    extractor = engine._extractor(graph)
    emitted = engine._emitted(graph, scope)
    original = set(graph.written[root_id])
    cands = [
        *extractor.root_candidates(cls, emitted, original),
        *extractor.peel_candidates(cls, slots, emitted, original),
    ]
    scored = [(comp, engine._classify(graph, root_id, node, comp.term)) for node, comp in cands]
    pool = [c for c in scored if accepted(c[1])] or scored
    comp, mclass = min(pool, key=lambda c: _order(c[0]))
    return describe(comp.term), mclass.value, comp.cost


def test_slot_choices_match_the_exhaustive_definition() -> None:
    engine = IndexEngine(Mode.SLOTSAT)
    loops = []
    shapes_of_loops = [(0, 16, 1, 2), (3, 40, 2, 3), (5, 70, 8, 4), (0, 9, 1, 3)]
    for k, (start, stop, step, stages) in enumerate(shapes_of_loops):
        var = ir.Var(f"i{k}", ir.ScalarType(D))
        loops.append((var, start, step, stages))
        engine.add_loop(LoopInfo(var, _c(start), _c(stop), _c(step), stages))
    roots = []
    for var, start, step, stages in loops:
        shapes: list[ir.Expr] = [
            ir.FloorMod(ir.FloorDiv(ir.Sub(var, _c(start), D), _c(step), D), _c(stages), D),
            ir.FloorMod(ir.Add(var, _c(1), D), _c(stages), D),
            ir.FloorMod(ir.Sub(ir.Add(var, _c(7), D), _c(3), D), _c(stages), D),
            ir.FloorMod(ir.Mul(var, _c(3), D), _c(stages), D),
        ]
        roots += [(engine.add_root(e, slots=stages), e) for e in shapes]
        engine.add_root(ir.Mul(ir.Sub(var, _c(start), D), _c(8), D))  # a plain root between them
    shared = EmittedScope()
    for rid, _ in roots:
        for scope in (EmittedScope(), shared):
            want = _reference(engine, rid, scope)
            got = engine.choose(rid, scope)
            assert (describe(got.term), got.matcher_class, got.cost) == want
