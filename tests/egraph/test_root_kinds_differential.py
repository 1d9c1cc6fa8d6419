"""Differential test of every root kind the index engine extracts (issue 12 item 2) against
the exact evaluator (`slotsat.core.semantics.eval_expr`: floor semantics, wrap at the dtype).

`tests/soundness/test_differential.py` covers single-loop INDEX roots; this covers what
extraction for all integer arithmetic added: two nested loops, offsets of another dtype
converted to `INDEX` (`Cast` roots, as codegen registers them), comparison roots whose
signed operands are parts of the e-graph, unsigned leaves with signed parts inside, and
slot operands, all in one engine per case with one shared scope (CSE between roots), in both
modes. Each emitted term is evaluated with the emitted semantics (`costs.evaluate_term`), also
at iterations near `INT64_MAX` under a runtime stop (where a sum of the variable wraps).
Under `--mode pypto` an unsigned floor operation is the reference's `remsi` / `divsi`
(`05-decisions.md` item 5), equal to the floor result only below `2**31`, so the unsigned
scalar is sampled there in that mode.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slotsat.analysis.matcher import UndefinedBehavior
from slotsat.core import ir
from slotsat.core.options import Mode
from slotsat.core.semantics import EvalError, eval_expr
from slotsat.egraph_rules.costs import evaluate_term, signless
from slotsat.egraph_rules.engine import EmittedScope, IndexEngine
from slotsat.egraph_rules.loops import LoopInfo

D, I32, U32 = ir.DType.INDEX, ir.DType.INT32, ir.DType.UINT32
COUNT = {"compared": 0}

I = ir.Var("i", ir.ScalarType(D))  # noqa: E741 - the loop variable i
J = ir.Var("j", ir.ScalarType(D))
X = ir.Var("x", ir.ScalarType(D))
Y = ir.Var("y", ir.ScalarType(I32))
U = ir.Var("u", ir.ScalarType(U32))


def _index_exprs() -> st.SearchStrategy[ir.Expr]:
    leaves = st.one_of(st.sampled_from([I, J, X]), st.integers(-9, 9).map(lambda v: ir.ConstInt(v, D)))

    def extend(children: st.SearchStrategy[ir.Expr]) -> st.SearchStrategy[ir.Expr]:
        k = st.one_of(st.integers(1, 8), st.integers(-4, -1)).map(lambda v: ir.ConstInt(v, D))
        return st.one_of(
            st.tuples(children, children).map(lambda p: ir.Add(p[0], p[1], D)),
            st.tuples(children, children).map(lambda p: ir.Sub(p[0], p[1], D)),
            st.tuples(children, st.integers(-3, 70)).map(lambda p: ir.Mul(p[0], ir.ConstInt(p[1], D), D)),
            st.tuples(children, k).map(lambda p: ir.FloorDiv(p[0], p[1], D)),
            st.tuples(children, k).map(lambda p: ir.FloorMod(p[0], p[1], D)),
        )

    return st.recursive(leaves, extend, max_leaves=5)


INDEX_EXPRS = _index_exprs()
INT32_EXPRS = st.tuples(INDEX_EXPRS, st.integers(1, 6), st.booleans()).map(
    lambda p: ir.FloorMod(
        ir.Add(ir.Cast(p[0], I32), Y if p[2] else ir.ConstInt(1, I32), I32), ir.ConstInt(p[1], I32), I32
    )
)
UNSIGNED_EXPRS = st.integers(1, 7).map(lambda c: ir.FloorMod(U, ir.ConstInt(c, U32), U32))
CMP = st.sampled_from(list(ir.CmpOp))


def _roots() -> st.SearchStrategy[tuple[ir.Expr, int | None]]:
    plain = st.one_of(
        INDEX_EXPRS,
        INT32_EXPRS.map(lambda e: ir.Cast(e, D)),  # an INT32 offset converted to index
        UNSIGNED_EXPRS.map(lambda e: ir.Cast(e, D)),  # an unsigned offset (zero-extended)
        st.tuples(INDEX_EXPRS, INDEX_EXPRS, CMP).map(lambda p: ir.Cmp(p[2], p[0], p[1])),  # parts
        st.tuples(UNSIGNED_EXPRS, CMP).map(lambda p: ir.Cmp(p[1], p[0], ir.ConstInt(1, U32))),
    )
    return st.one_of(
        plain.map(lambda e: (e, None)),
        st.tuples(INDEX_EXPRS, st.integers(2, 4)).map(
            lambda p: (ir.FloorMod(p[0], ir.ConstInt(p[1], D), D), p[1])
        ),
    )


@st.composite
def cases(
    draw: st.DrawFn,
) -> tuple[Mode, list[tuple[ir.Expr, int | None]], LoopInfo, LoopInfo, list[dict[int, int]]]:
    start_i = draw(st.sampled_from([0, 1, 3, 8]))
    start_j = draw(st.sampled_from([0, 2, 5]))
    runtime = draw(st.booleans())
    outer = LoopInfo(
        I, ir.ConstInt(start_i, D), ir.ConstInt(start_i + 12, D), ir.ConstInt(draw(st.integers(1, 3)), D)
    )
    stop_j: ir.Expr = ir.Var("n", ir.ScalarType(D)) if runtime else ir.ConstInt(start_j + 9, D)
    inner = LoopInfo(J, ir.ConstInt(start_j, D), stop_j, ir.ConstInt(1, D))
    roots = draw(st.lists(_roots(), min_size=3, max_size=6))
    mode = draw(st.sampled_from(list(Mode)))
    u_max = 2**31 - 1 if mode is Mode.PYPTO else 2**32 - 1
    envs = []
    for _ in range(4):
        envs.append(
            {
                I.id: start_i + draw(st.integers(0, 11)),
                # under a runtime stop j reaches INT64_MAX - 1, where sums of j wrap
                J.id: draw(st.integers(2**63 - 9, 2**63 - 2)) if runtime and draw(st.booleans())
                else start_j + draw(st.integers(0, 8)),
                X.id: draw(st.one_of(st.integers(-50, 50), st.sampled_from([-(2**62), 2**62, 2**63 - 1]))),
                Y.id: draw(st.integers(-(2**31), 2**31 - 1)),
                U.id: draw(st.integers(0, u_max)),
            }
        )
    return mode, roots, outer, inner, envs


def _check(
    case: tuple[Mode, list[tuple[ir.Expr, int | None]], LoopInfo, LoopInfo, list[dict[int, int]]],
) -> None:
    mode, roots, outer, inner, envs = case
    engine = IndexEngine(mode)
    engine.add_loop(outer)
    engine.add_loop(inner)
    ids = [engine.add_root(e, slots=s) for e, s in roots]
    scope = EmittedScope()
    chosen = [engine.choose(r, scope) for r in ids]
    for r, c in zip(ids, chosen, strict=True):
        expr = engine.roots[r].expr
        dtype = ir.expr_dtype(expr)
        for env in envs:
            try:
                expected = int(eval_expr(expr, env))
            except EvalError:
                continue
            if dtype.is_int:
                expected = dtype.wrap(expected)
            try:
                got = evaluate_term(signless(c.term), env)
            except UndefinedBehavior as err:
                raise AssertionError(f"{expr}: the emitted form is undefined ({err}) at {env}") from None
            if dtype.is_int:
                got = dtype.wrap(got)
            assert got == expected, (
                f"{mode.value} {expr}: emitted {c.term} gives {got}, expected {expected} at {env}"
            )
            COUNT["compared"] += 1


@settings(max_examples=100, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(cases())
def test_every_root_kind_matches_the_exact_evaluator(case: tuple) -> None:  # type: ignore[type-arg]
    _check(case)


def test_enough_cases_were_compared() -> None:
    print(f"root kinds differential: {COUNT['compared']} cases compared")
    assert COUNT["compared"] >= 500
