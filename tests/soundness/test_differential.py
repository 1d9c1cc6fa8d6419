"""Differential test: extracted terms against the exact evaluator (`60-egraph-engine.md` §12,
`30-pto-codegen.md` §9 K `differential`).

Random loop facts (including starts near the INT32 / INT64 limits and runtime stops),
random index expressions over the induction variable and a parameter, both modes, slot and
plain roots; each emitted term is evaluated with the emitted semantics (wrap-around,
truncating `remsi` / `divsi`, unsigned `remui` / `divui`) and compared with `eval_expr`
(floor semantics, wrap at the dtype) at sampled iterations. Every root the e-graph proves
non-negative is checked `>= 0`. The last test asserts at least 10,000 compared cases.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slotsat.analysis.matcher import UndefinedBehavior
from slotsat.core import ir
from slotsat.core.errors import PassError
from slotsat.core.options import Mode
from slotsat.core.semantics import EvalError, eval_expr
from slotsat.egraph_rules.costs import evaluate_term
from slotsat.egraph_rules.engine import EmittedScope, IndexEngine, LoopInfo

D = ir.DType.INDEX
I32 = ir.DType.INT32
INT64_MAX = (1 << 63) - 1
CASES = {"compared": 0, "nonneg_checked": 0, "undefined": 0, "rejected": 0}
"""`undefined`: points where the source expression has no value (a zero divisor), so there is
nothing to compare; `rejected`: roots whose literals fold to an error the compiler reports
(`INT64_MIN // -1`); both counted and printed, never silently dropped."""

STARTS = [0, 1, 3, 5, 8, 2**31 - 3, 2**31, 2**62, INT64_MAX - 200]
CONSTS = st.one_of(
    st.integers(-20, 20), st.sampled_from([2**31 - 1, 2**31, 2**62, 4611686018427387904, -(2**31)])
)


def exprs(iv: ir.Var, x: ir.Var) -> st.SearchStrategy[ir.Expr]:
    leaves = st.one_of(st.just(iv), st.just(iv), st.just(x), CONSTS.map(lambda v: ir.ConstInt(v, D)))

    def extend(children: st.SearchStrategy[ir.Expr]) -> st.SearchStrategy[ir.Expr]:
        divisor = st.one_of(st.integers(1, 9), st.integers(-5, -1)).map(lambda v: ir.ConstInt(v, D))
        return st.one_of(
            st.tuples(children, children).map(lambda p: ir.Add(p[0], p[1], D)),
            st.tuples(children, children).map(lambda p: ir.Sub(p[0], p[1], D)),
            st.tuples(children, CONSTS.map(lambda v: ir.ConstInt(v, D))).map(lambda p: ir.Mul(p[0], p[1], D)),
            st.tuples(children, divisor).map(lambda p: ir.FloorDiv(p[0], p[1], D)),
            st.tuples(children, divisor).map(lambda p: ir.FloorMod(p[0], p[1], D)),
            st.tuples(children, st.integers(1, 8)).map(
                lambda p: ir.Cast(ir.FloorMod(ir.Cast(p[0], I32), ir.ConstInt(p[1], I32), I32), D)
            ),
            st.tuples(children, st.integers(1, 8)).map(
                lambda p: ir.Cast(ir.FloorDiv(ir.Cast(p[0], I32), ir.ConstInt(p[1], I32), I32), D)
            ),
        )

    return st.recursive(leaves, extend, max_leaves=6)


def slot_shaped(iv: ir.Var, start: int, step: int) -> st.SearchStrategy[ir.Expr]:
    """Rotation counters and their next / previous iterations."""

    def build(p: tuple[int, int, int]) -> ir.Expr:
        shift, f, which = p
        base: ir.Expr = ir.Add(iv, ir.ConstInt(shift * step, D), D) if shift else iv
        if which == 0:
            return ir.FloorMod(base, ir.ConstInt(f, D), D)
        counter = ir.Sub(base, ir.ConstInt(start, D), D)
        if which == 1:
            return ir.FloorMod(counter, ir.ConstInt(f, D), D)
        return ir.FloorMod(ir.FloorDiv(counter, ir.ConstInt(step, D), D), ir.ConstInt(f, D), D)

    return st.tuples(st.integers(-2, 2), st.integers(2, 8), st.integers(0, 2)).map(build)


@st.composite
def kernels(draw: st.DrawFn) -> tuple[LoopInfo, list[tuple[ir.Expr, int | None]], Mode, list[int], ir.Var]:
    iv, x = ir.Var("i", ir.ScalarType(D)), ir.Var("x", ir.ScalarType(D))
    start = draw(st.sampled_from(STARTS))
    step = draw(st.integers(1, 8))
    trips = draw(st.integers(1, 40))
    runtime_stop = draw(st.booleans())
    stop_value = min(start + trips * step, INT64_MAX)
    stop: ir.Expr = ir.Var("n", ir.ScalarType(D)) if runtime_stop else ir.ConstInt(stop_value, D)
    roots: list[tuple[ir.Expr, int | None]] = []
    for _ in range(draw(st.integers(3, 5))):
        e = draw(st.one_of(exprs(iv, x), slot_shaped(iv, start, step)))
        roots.append((e, draw(st.one_of(st.none(), st.integers(2, 8)))))
    mode = draw(st.sampled_from(list(Mode)))
    xs = draw(st.lists(st.integers(-(2**40), 2**40), min_size=1, max_size=2))
    return LoopInfo(iv, ir.ConstInt(start, D), stop, ir.ConstInt(step, D)), roots, mode, xs, x


def _check(kernel: tuple[LoopInfo, list[tuple[ir.Expr, int | None]], Mode, list[int], ir.Var]) -> None:
    loop, roots, mode, xs, x = kernel
    start = loop.start.value  # type: ignore[union-attr]
    step = loop.step.value  # type: ignore[union-attr]
    stop = loop.stop.value if isinstance(loop.stop, ir.ConstInt) else INT64_MAX
    engine = IndexEngine(mode)
    engine.add_loop(loop)
    ids = []
    for e, slots in roots:
        try:
            ids.append((engine.add_root(e, slots=slots), e))
        except PassError as err:
            # a literal subexpression folds to an error the compiler reports, as the source
            # would (`(2**62 + 2**62) // -1` is INT64_MIN // -1): no term to compare
            if not err.message.startswith(("Floor division", "Floor modulo")):
                raise
            CASES["rejected"] += 1
    scope = EmittedScope()
    chosen = [(engine.choose(r, scope), engine.roots[r].expr, engine.proven(r), r) for r, _ in ids]
    points = sorted({start + k * step for k in (0, 1, 2, 3, 5, 8, 13, 21, 39)})
    points = [p for p in points if p < stop]
    for c, expr, proof, r in chosen:
        slot = engine.roots[r].slots is not None
        for iv_value in points:
            for xv in xs:
                env = {loop.var.id: iv_value, x.id: xv}
                try:
                    expected = eval_expr(expr, env)
                except EvalError:
                    CASES["undefined"] += 1
                    continue
                if slot:
                    expected = D.wrap(expected)
                try:
                    got = evaluate_term(c.term, env)
                except UndefinedBehavior as err:
                    raise AssertionError(f"{expr} emitted UB {err} at i={iv_value}") from None
                assert got == expected, (
                    f"{expr}: emitted {c.term} gives {got}, expected {expected} at i={iv_value}"
                )
                CASES["compared"] += 1
                if proof is not None and engine.roots[r].slots is not None:
                    assert expected >= 0, f"{expr} proven non-negative ({proof}) but is {expected}"
                    CASES["nonneg_checked"] += 1


@settings(max_examples=180, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(kernels())
def test_extracted_terms_match_the_exact_evaluator(kernel: tuple) -> None:  # type: ignore[type-arg]
    _check(kernel)


@settings(max_examples=140, deadline=None, suppress_health_check=list(HealthCheck))
@given(kernels())
def test_extracted_terms_match_random_seed(kernel: tuple) -> None:  # type: ignore[type-arg]
    _check(kernel)


def test_at_least_ten_thousand_cases_were_compared() -> None:
    print(
        f"differential: {CASES['compared']} cases compared, {CASES['nonneg_checked']} proofs sampled, "
        f"{CASES['undefined']} points where the source is undefined"
    )
    assert CASES["compared"] >= 10_000
