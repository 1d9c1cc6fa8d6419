"""Slotization and the IR slot-index form (`20-lower-pipeline-to-slots.md` §4.2, §11 steps
3–5; `60-egraph-engine.md` §6.1, §9.2).

Ruleset `slotize` (runs after `gates` has saturated, so `ok(l) == True` is final): for every
candidate `t` of an eligible loop `l`, `slot_of(t)` is unioned with the canonical rotation
counter `((iv(l) - start) // step) % F`.

The term is built on the shared index language (`slotsat.egraph_rules.lang.Idx`, every literal
`INDEX`): the gates' loop `GateLoop(k)` is bridged to `Loop(str(k))`, and the rule also sets
that loop's `lang` facts (`loop_start`, `loop_step`, `stages`) from the gates' ones, which
is what the syntactic proof reads.

The schedule `SLOTS_FORMS` (`slotsat.egraph_rules.schedules`) then saturates the width analysis and
the reference's syntactic non-negativity proof (`slotsat.egraph_rules.syntactic.nonneg_syntactic`)
and applies `ir_forms` (`slotsat.egraph_rules.normalize`): exactly the three value-preserving
identities `x // 1 -> x`, `x - 0 -> x` and `(x - c) % f -> x % f` under `c >= 0`, `f > 0`,
`c % f == 0`, `nonneg_syn(x)`. None of the three grows a term, so the schedule cannot cycle.

One batched extraction (a single `Vec` root) with the IR costs (induction variables and
literals 0; `-`, `//`, `%` 1 each) then yields exactly one of the forms of §4.2, which
`slot_form` checks.

`function_egraph()` hands the pass one e-graph per function (`SlotsEGraph`): a `push` copy
of a per-thread template in which every sort, function and ruleset is declared and every
rule lowered once, popped when the function is done. Facts, schedule runs, reads and the
extraction use egglog's command objects (`_LowLevel`, resolved once per template), with the
public API as the fallback (`LOW_LEVEL`); both paths insert the same facts and run the same
rulesets, and a test checks they decide identically.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from egglog import (
    BaseExpr,
    Bool,
    EGraph,
    RewriteOrRule,
    Schedule,
    Vec,
    eq,
    function,
    get_callable_fn,
    i64,
    rule,
    ruleset,
    set_,
    union,
)

from slotsat.core import ir
from slotsat.egraph_rules import gates as g
from slotsat.egraph_rules import lang
from slotsat.egraph_rules.gates import (
    GateLoop,
    GateVar,
    callable_args,
    candidate,
    literal,
    loop_start,
    loop_step,
    ok,
    stages,
)
from slotsat.egraph_rules.lang import Dtype, Idx, Loop
from slotsat.egraph_rules.schedules import SLOTS_FORMS

FORMS_CAP = int(os.environ.get("SLOTSAT_FORMS_CAP", "64"))
"""Iteration cap of the `SLOTS_FORMS` schedule (`60-egraph-engine.md` §8)."""


@function(unextractable=True)
def slot_of(tile: GateVar) -> Idx: ...


slotize = ruleset(name="slotize")


def _k(value: i64) -> Idx:
    return Idx.const(value, Dtype.INDEX)


@slotize.register
def _rotation(t: GateVar, key: i64, f: i64, s: i64, k: i64) -> Iterable[RewriteOrRule]:
    """slot_of(t) = ((iv - start) // step) % F for every candidate of an eligible loop."""
    loop = GateLoop(key)
    lp = Loop(key.to_string())
    yield rule(
        candidate(t, loop), eq(ok(loop)).to(Bool(True)),
        eq(stages(loop)).to(f), eq(loop_start(loop)).to(s), eq(loop_step(loop)).to(k),
    ).then(
        set_(lang.loop_start(lp)).to(s), set_(lang.loop_step(lp)).to(k), set_(lang.stages(lp)).to(f),
        union(slot_of(t)).with_(((Idx.iv(lp) - _k(s)) // _k(k)) % _k(f)),
    )


def _bounded(egraph: EGraph, name: str, step: object) -> int:
    for k in range(1, FORMS_CAP + 1):
        report = egraph.run(step)  # type: ignore[call-overload]
        if not report.updated:
            return k
    raise RuntimeError(f"schedule {name} did not saturate within {FORMS_CAP} rounds")


SLOT_FORMS_ROUND: Schedule = SLOTS_FORMS.round
"""One round of `SLOTS_FORMS` after `slotize`: `(widths + nonneg_syntactic).saturate() + ir_forms`."""


def run_slot_forms(egraph: EGraph) -> None:
    """`slotize.saturate()`, then `SLOTS_FORMS` rounds until nothing changes."""
    _bounded(egraph, "SLOTS_FORMS/slotize", slotize)
    _bounded(egraph, "SLOTS_FORMS", SLOT_FORMS_ROUND)


def extract_slot_terms(egraph: EGraph, tiles: Sequence[int],
                       loop_vars: dict[int, ir.Var]) -> dict[int, ir.Expr]:
    """One batched extraction of `slot_of(t)` for every tile id; terms converted to IR."""
    if not tiles:
        return {}
    root = egraph.extract(Vec[Idx](*(slot_of(GateVar(t)) for t in tiles)))
    terms = callable_args(root)
    assert len(terms) == len(tiles), "batched slot extraction lost a root"
    return {t: _to_ir(term, loop_vars) for t, term in zip(tiles, terms, strict=True)}


def _int(x: BaseExpr) -> int:
    value = literal(x)
    assert isinstance(value, int), f"expected an i64 literal, got {x!r}"
    return value


def _loop_key(key: object) -> int:
    """The gates' loop key of a `Loop(str(key))`."""
    assert isinstance(key, str), f"expected a String loop key, got {key!r}"
    return int(key)


def _to_ir(term: BaseExpr, loop_vars: dict[int, ir.Var]) -> ir.Expr:
    fn = get_callable_fn(term)
    args = callable_args(term)
    if fn == Idx.const:
        assert get_callable_fn(args[1]) == get_callable_fn(Dtype.INDEX), f"slot literal not INDEX: {term!r}"
        return ir.ConstInt(_int(args[0]), ir.DType.INDEX)
    if fn == Idx.iv:
        (key,) = callable_args(args[0])
        return loop_vars[_loop_key(literal(key))]
    a, b = (_to_ir(x, loop_vars) for x in args)
    if fn == Idx.__sub__:
        return ir.Sub(a, b, ir.DType.INDEX)
    if fn == Idx.__floordiv__:
        return ir.FloorDiv(a, b, ir.DType.INDEX)
    if fn == Idx.__mod__:
        return ir.FloorMod(a, b, ir.DType.INDEX)
    raise AssertionError(f"unexpected slot term {term!r}")


def slot_form(iv: ir.Var, start: int, step: int, stages_: int) -> ir.Expr:
    """The §4.2 form for a loop shape (the reference the extraction is checked against)."""
    idx = ir.DType.INDEX
    f = ir.ConstInt(stages_, idx)
    if step == 1:
        if start % stages_ == 0:
            return ir.FloorMod(iv, f, idx)
        return ir.FloorMod(ir.Sub(iv, ir.ConstInt(start, idx), idx), f, idx)
    base: ir.Expr = iv if start == 0 else ir.Sub(iv, ir.ConstInt(start, idx), idx)
    return ir.FloorMod(ir.FloorDiv(base, ir.ConstInt(step, idx), idx), f, idx)


# -- the per-function e-graph ---------------------------------------------------------------

LOW_LEVEL = os.environ.get("SLOTSAT_EGGLOG_LOW_LEVEL", "1") != "0"
"""Talk to egglog through its command objects (`_LowLevel`) rather than the high-level
expression API. Both paths insert the same facts and run the same rulesets; the switch
exists for the differential test and as the fallback when the internals are missing."""

INSERT_CHUNK = 200

TEMPLATE_USES = 128
"""Functions served by one template before it is rebuilt. egglog keeps some run statistics
across `pop`, and `push` copies them, so a push + run + pop cycle gets slowly dearer with
every cycle on the same e-graph (about 50 % after 10,000 cycles); rebuilding costs one rule
lowering (about 10 ms) per `TEMPLATE_USES` functions and keeps the pass linear."""
"""Commands per `run_program` call (`60-egraph-engine.md` §10: egglog 13.2 grows memory
quadratically with the number of commands in one call)."""


class _LowLevel:
    """An adapter over egglog's underscore-prefixed internals (`EGraph._callable_to_egg`,
    `EGraph._state`, `EGraph._egraph`, `egglog.bindings`), resolved once per template: the egg
    names of the facts and constructors, and the three schedules compiled to commands.

    Saves, per function, building every fact as a high-level expression (about 0.1–0.2 ms
    per node), translating the schedules on every run, and decoding results through the
    high-level term conversion. Raises `AttributeError` / `ImportError` when egglog lacks
    the internals, and the template then keeps the public API."""

    def __init__(self, egraph: EGraph) -> None:
        from egglog import bindings
        from egglog.egraph_state import span

        self.b: Any = bindings
        self.span: Any = span()
        state: Any = egraph._state

        def name(fn: Any) -> str:
            egg: str = egraph._callable_to_egg(fn)[1]
            return egg

        self.values = {k: name(f) for k, f in g.VALUE_FACTS.items()}
        self.relations = {k: (name(f), sorts) for k, (f, sorts) in g.RELATION_FACTS.items()}
        self.loop = name(GateLoop)
        self.var = name(GateVar)
        self.ok = name(g.ok)
        self.rank = name(g.decline_rank)
        self.slot_of = name(slot_of)
        self.index = name(Dtype.INDEX)
        self.ops = {
            name(Idx.const): "lit",
            name(Idx.iv): "iv",
            name(Idx.__sub__): "sub",
            name(Idx.__floordiv__): "floordiv",
            name(Idx.__mod__): "mod",
        }
        vec: Any = Vec[Idx]()
        egraph._add_decls(vec)
        state.type_ref_to_egg(vec.__egg_typed_expr__.tp)  # declares the Vec sort
        self.gates = state.run_schedule_to_egg(g.gates.schedule)
        self.slotize = state.run_schedule_to_egg(slotize.schedule)
        self.forms = state.run_schedule_to_egg(SLOT_FORMS_ROUND.schedule)

    def lit(self, value: int | str | bool) -> Any:
        b = self.b
        if isinstance(value, bool):
            return b.Lit(self.span, b.Bool(value))
        if isinstance(value, int):
            return b.Lit(self.span, b.Int(value))
        return b.Lit(self.span, b.String(value))

    def commands(self, batch: g.FactBatch) -> list[Any]:
        b, sp = self.b, self.span
        keyed: dict[tuple[type, int], Any] = {}

        def arg(sort: type, a: g.FactArg) -> Any:
            if sort is not GateLoop and sort is not GateVar:
                return self.lit(a)
            assert isinstance(a, int)
            term = keyed.get((sort, a))
            if term is None:
                ctor = self.loop if sort is GateLoop else self.var
                term = keyed[(sort, a)] = b.Call(sp, ctor, [self.lit(a)])
            return term

        out: list[Any] = []
        for fact, key, value in batch.values:
            out.append(b.ActionCommand(b.Set(sp, self.values[fact], [arg(GateLoop, key)], self.lit(value))))
        for fact, args in batch.relations:
            rel, sorts = self.relations[fact]
            call = b.Call(sp, rel, [arg(sort, a) for sort, a in zip(sorts, args, strict=True)])
            out.append(b.ActionCommand(b.Expr_(sp, call)))
        return out

    @staticmethod
    def run(egraph: EGraph, *cmds: Any) -> list[Any]:
        out: list[Any] = egraph._egraph.run_program(*cmds)
        return out

    def updated(self, egraph: EGraph, schedule: Any) -> bool:
        (out,) = self.run(egraph, schedule)
        return bool(out.report.updated)

    def loop_values(self, egraph: EGraph, fn: str) -> dict[int, object]:
        """Every row `fn(GateLoop(k)) = v` as `k -> v` (a Python bool or int)."""
        b = self.b
        (out,) = self.run(egraph, b.PrintFunction(self.span, fn, None, None, b.DefaultPrintFunctionMode()))
        dag = out.termdag
        rows: dict[int, object] = {}
        for call, value in out.terms:
            (loop,) = dag.get(call).args
            (key,) = dag.get(loop).args
            k = dag.get(key).value.value
            assert isinstance(k, int)
            rows[k] = dag.get(value).value.value
        return rows

    def extract(self, egraph: EGraph, tiles: Sequence[int],
                loop_vars: dict[int, ir.Var]) -> dict[int, ir.Expr]:
        b, sp = self.b, self.span
        roots = [b.Call(sp, self.slot_of, [b.Call(sp, self.var, [self.lit(t)])]) for t in tiles]
        (out,) = self.run(egraph, b.Extract(sp, b.Call(sp, "vec-of", roots), self.lit(0)))
        dag = out.termdag
        terms = dag.get(out.term).args
        assert len(terms) == len(tiles), "batched slot extraction lost a root"
        memo: dict[int, ir.Expr] = {}

        def to_ir(term: int) -> ir.Expr:
            done = memo.get(term)
            if done is not None:
                return done
            node = dag.get(term)
            op = self.ops.get(node.name)
            if op is None:
                raise AssertionError(f"unexpected slot term {dag.to_string(term)}")
            expr: ir.Expr
            if op == "lit":
                v, dt = node.args
                assert dag.get(dt).name == self.index, f"slot literal not INDEX: {dag.to_string(term)}"
                expr = ir.ConstInt(_term_int(dag, v), ir.DType.INDEX)
            elif op == "iv":
                (loop,) = node.args
                (key,) = dag.get(loop).args
                expr = loop_vars[_loop_key(dag.get(key).value.value)]
            else:
                lhs, rhs = (to_ir(x) for x in node.args)
                if op == "sub":
                    expr = ir.Sub(lhs, rhs, ir.DType.INDEX)
                elif op == "floordiv":
                    expr = ir.FloorDiv(lhs, rhs, ir.DType.INDEX)
                else:
                    expr = ir.FloorMod(lhs, rhs, ir.DType.INDEX)
            memo[term] = expr
            return expr

        return {t: to_ir(term) for t, term in zip(tiles, terms, strict=True)}


def _term_int(dag: Any, term: int) -> int:
    value = dag.get(term).value.value
    assert isinstance(value, int), f"expected an i64 literal, got {value!r}"
    assert not isinstance(value, bool), f"expected an i64 literal, got {value!r}"
    return value


@dataclass
class _Template:
    """An empty e-graph in which every sort, function and ruleset of the pass is declared and
    every rule lowered, once. Each function works on a copy of it (`push`), so rule lowering
    (about 10 ms per e-graph) is paid once per thread instead of once per function."""

    egraph: EGraph
    low: _LowLevel | None
    uses: int = 0

    @classmethod
    def build(cls, low: bool) -> _Template:
        egraph = EGraph()
        for schedule in (g.gates, slotize, SLOT_FORMS_ROUND):
            egraph.run(schedule)  # declares and lowers; the e-graph is empty, nothing fires
        adapter: _LowLevel | None = None
        if low:
            try:
                adapter = _LowLevel(egraph)
            except (AttributeError, ImportError):
                adapter = None
        return cls(egraph, adapter)


_TEMPLATES = threading.local()


def _saturate(name: str, cap: int, step: Any) -> int:
    for k in range(1, cap + 1):
        if not step():
            return k
    raise RuntimeError(f"schedule {name} did not saturate within {cap} rounds")


@dataclass
class SlotsEGraph:
    """The e-graph of one function (`20-lower-pipeline-to-slots.md` §11): a fresh copy of the
    template, holding only this function's facts; discarded when the function is done.
    Obtain one with `function_egraph()`."""

    egraph: EGraph
    low: _LowLevel | None

    def insert(self, batch: g.FactBatch) -> None:
        """Insert a batch of facts (one command per fact, in chunks of `INSERT_CHUNK`)."""
        if not len(batch):
            return
        if self.low is None:
            self.egraph.register(*batch.high_level())  # type: ignore[arg-type]
            return
        cmds = self.low.commands(batch)
        for k in range(0, len(cmds), INSERT_CHUNK):
            self.low.run(self.egraph, *cmds[k:k + INSERT_CHUNK])

    def run_gates(self) -> int:
        """Saturate `gates` (bounded by `GATES_CAP`); the number of rounds."""
        low = self.low
        if low is None:
            return g.run_gates(self.egraph)
        return _saturate("SLOTS_GATES", g.GATES_CAP, lambda: low.updated(self.egraph, low.gates))

    def run_slot_forms(self) -> None:
        """`SLOTS_FORMS` (see `run_slot_forms`)."""
        low = self.low
        if low is None:
            run_slot_forms(self.egraph)
            return
        _saturate("SLOTS_FORMS/slotize", FORMS_CAP, lambda: low.updated(self.egraph, low.slotize))
        _saturate("SLOTS_FORMS", FORMS_CAP, lambda: low.updated(self.egraph, low.forms))

    def ok(self) -> dict[int, bool]:
        """Loop key -> the `ok` verdict, for every loop with one."""
        if self.low is not None:
            rows = self.low.loop_values(self.egraph, self.low.ok)
        else:
            rows = {g.loop_key(call): g.literal(value)
                    for call, value in self.egraph.function_values(g.ok).items()}
        out: dict[int, bool] = {}
        for key, value in rows.items():
            assert isinstance(value, bool)
            out[key] = value
        return out

    def decline_ranks(self) -> dict[int, int]:
        """Loop key -> the rank (`gates.CODES`) of its first decline code."""
        if self.low is not None:
            rows = self.low.loop_values(self.egraph, self.low.rank)
        else:
            rows = {g.loop_key(call): g.literal(value)
                    for call, value in self.egraph.function_values(g.decline_rank).items()}
        out: dict[int, int] = {}
        for key, value in rows.items():
            assert isinstance(value, int)
            assert not isinstance(value, bool)
            out[key] = value
        return out

    def extract_slot_terms(self, tiles: Sequence[int], loop_vars: dict[int, ir.Var]) -> dict[int, ir.Expr]:
        """One batched extraction of `slot_of(t)` for every tile id (one `Vec` root)."""
        if not tiles:
            return {}
        if self.low is None:
            return extract_slot_terms(self.egraph, tiles, loop_vars)
        return self.low.extract(self.egraph, tiles, loop_vars)


@contextmanager
def function_egraph() -> Iterator[SlotsEGraph]:
    """A fresh e-graph for one function: `push` on a per-thread template, `pop` on exit.

    The copy starts from the template's empty state every time, so a function sees exactly
    the e-graph a new `EGraph` with the rulesets registered would give it."""
    low = LOW_LEVEL
    pools: dict[bool, list[_Template]] = _TEMPLATES.__dict__.setdefault("pools", {})
    pool = pools.setdefault(low, [])
    template = pool.pop() if pool else _Template.build(low)
    template.egraph.push()
    try:
        yield SlotsEGraph(template.egraph, template.low)
    finally:
        template.egraph.pop()  # when this raises, the template is dropped rather than reused
        template.uses += 1
        if template.uses < TEMPLATE_USES:
            pool.append(template)
