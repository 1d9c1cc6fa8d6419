"""The two non-negativity proofs (`60-egraph-engine.md` §5.2, §5.3, §12): the `nonneg_syntactic`
ruleset equals its plain-Python statement, it is a subset of the interval proof, and the
interval ruleset proves strictly more on a seeded random corpus; the width rule and the
product guard."""

from __future__ import annotations

import random

from slotsat.core import ir
from slotsat.core.options import Mode
from slotsat.core.semantics import fold
from slotsat.egraph_rules.engine import IndexEngine
from slotsat.egraph_rules.loops import LoopInfo
from tests.egraph.helpers import C, add, fdiv, fmod, mul, sub, var
from tests.egraph.oracles import python_nonneg_syn

D = ir.DType.INDEX


def _random_expr(rng: random.Random, leaves: list[ir.Expr], depth: int) -> ir.Expr:
    if depth == 0 or rng.random() < 0.3:
        return rng.choice(leaves)
    a = _random_expr(rng, leaves, depth - 1)
    kind = rng.randrange(7)
    if kind == 0:
        return add(a, rng.choice([C(rng.randrange(-4, 9)), _random_expr(rng, leaves, depth - 1)]))
    if kind == 1:
        return sub(a, C(rng.randrange(-4, 9)))
    if kind == 2:
        return mul(a, C(rng.choice([2, 3, 4611686018427387904])))
    if kind == 3:
        return fdiv(a, C(rng.choice([1, 2, 3, 4, -2])))
    if kind == 4:
        return ir.Cast(fmod(ir.Cast(a, ir.DType.INT32), C(rng.randrange(2, 5), ir.DType.INT32)), D)
    return fmod(a, C(rng.choice([2, 3, 4, -3])))


def _corpus(seed: int, count: int) -> list[tuple[tuple[int, int, int], ir.Var, ir.Expr]]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        i, x = var("i"), var("x")
        start = rng.choice([0, 1, 2, 3, 8, 2**31])
        loop = (start, start + rng.randrange(1, 64), rng.randrange(1, 5))
        out.append((loop, i, _random_expr(rng, [i, i, x, C(rng.randrange(0, 9)), sub(i, C(start))], 3)))
    return out


def _proofs(mode: Mode, corpus: list[tuple[tuple[int, int, int], ir.Var, ir.Expr]]) -> list[str | None]:
    engine = IndexEngine(mode)
    ids = []
    for (start, stop, step), i, e in corpus:
        engine.add_loop(LoopInfo(i, C(start), C(stop), C(step)))
        ids.append(engine.add_root(e))
    engine.saturate()
    return [engine.proven(r) for r in ids]


def test_syntactic_ruleset_equals_the_python_clauses() -> None:
    corpus = _corpus(seed=7, count=300)
    egraph = _proofs(Mode.PYPTO, corpus)
    for ((start, _, _), i, e), proof in zip(corpus, egraph, strict=True):
        f = fold(e)
        expected = python_nonneg_syn(f, ir.expr_dtype(f), lambda v, i=i, s=start: s if v is i else None)
        assert (proof == "syntactic") == expected, f"{f}: e-graph {proof}, python {expected}"


def test_interval_proves_strictly_more_than_syntactic() -> None:
    corpus = _corpus(seed=2024, count=400)
    syntactic = _proofs(Mode.PYPTO, corpus)
    either = _proofs(Mode.SLOTSAT, corpus)
    n_syn = sum(p is not None for p in syntactic)
    n_int = sum(p is not None for p in either)
    print(f"seeded corpus of {len(corpus)}: syntactic proves {n_syn}, syntactic + interval proves {n_int}")
    for s, b in zip(syntactic, either, strict=True):
        assert s is None or b is not None, "the syntactic proof must be a subset"
    assert n_int > n_syn


def _slot_proof(e: ir.Expr, i: ir.Var, start: int, stop: int) -> str | None:
    engine = IndexEngine()
    engine.add_loop(LoopInfo(i, C(start), C(stop), C(1)))
    r = engine.add_root(e, slots=2)
    assert engine.saturate().classes[r] is not None
    return engine.proven(r)


def test_interval_never_proves_a_wrapping_product() -> None:
    i = var("i")
    assert _slot_proof(mul(i, C(4611686018427387904)), i, 0, 64) is None
    assert _slot_proof(mul(i, C(4611686018427387904)), i, 0, 2) == "interval"


def test_interval_never_proves_an_int32_view_of_a_large_index() -> None:
    i = var("i")
    e = ir.Cast(ir.Cast(i, ir.DType.INT32), D)
    assert _slot_proof(e, i, 2**31, 2**31 + 10) is None
    assert _slot_proof(i, i, 2**31, 2**31 + 10) == "syntactic"


def test_interval_proves_the_next_iteration_slot() -> None:
    i = var("i")
    assert _slot_proof(add(i, C(3)), i, 0, 64) == "interval"


def test_a_loop_that_does_not_ascend_proves_nothing_from_its_start() -> None:
    # issue 13.5: the start bounds the induction variable only for a positive literal step
    from slotsat.core.semantics import eval_expr
    from slotsat.egraph_rules.costs import describe, evaluate_term
    from slotsat.egraph_rules.engine import EmittedScope

    for mode in Mode:
        for step in (C(-1), C(-3), var("s")):
            i = var("i")
            engine = IndexEngine(mode)
            engine.add_loop(LoopInfo(i, C(0), C(-10), step))
            unproven = [i, sub(i, C(0)), fdiv(i, C(4)), add(i, C(3))]
            exprs = [*unproven, fmod(i, C(3)), fmod(sub(i, C(0)), C(2))]
            roots = [engine.add_root(e, slots=4) for e in exprs]
            scope = EmittedScope()
            for e, r in zip(exprs, roots, strict=True):
                if e in unproven:
                    assert engine.proven(r) is None, (mode, step, e)
                chosen = engine.choose(r, scope)
                assert "remui" not in describe(chosen.term)
                assert "divui" not in describe(chosen.term)
                for v in range(0, -10, -1):
                    env = {i.id: v}
                    assert evaluate_term(chosen.term, env) == D.wrap(eval_expr(e, env)), (mode, e, v)
