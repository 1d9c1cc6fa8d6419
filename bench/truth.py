"""Ground truth for a pair of slot operands: exact evaluation over the iteration space
(`40-ptoas-slot-matcher.md` §8).

Ground truth is the IR slot indices evaluated exactly (`slotsat.core.semantics.eval_expr`)
over the enclosing loops' iteration space, exhaustive up to 4,096 points and otherwise a
deterministic sample (`slotsat.bench.probe.Space`). When a get cannot be mapped back to its
IR slot index, the emitted chains are evaluated instead (`scan_truth`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from slotsat.analysis import matcher
from slotsat.analysis.matcher import Opaque, Value
from slotsat.bench import probe, scan
from slotsat.core import ir
from slotsat.core.semantics import eval_expr

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1


@dataclass(frozen=True, slots=True)
class Truth:
    verdict: str  # "equal", "disjoint", "mixed" or "unevaluated"
    points: int
    exhaustive: bool


@dataclass(frozen=True, slots=True)
class TruthSpec:
    """How to evaluate one pair exactly: its iteration space and the two operand values.

    `key` identifies the pair's mathematics (the expressions and the loops), so a pair that
    several lowerings share is evaluated once per run."""

    key: tuple[str, ...]
    make_dims: Callable[[random.Random], list[probe.Dim]]
    eval_a: Callable[[Mapping[Any, int]], int]
    eval_b: Callable[[Mapping[Any, int]], int]


def ground_truth(spec: TruthSpec, n: int, seed: int) -> Truth:
    """Evaluate both operands at every point (or the sample): truly equal when the values
    agree everywhere, truly disjoint when they differ modulo `n` everywhere, else mixed (a
    point can be neither: -1 against 1 under n = 2)."""
    space = probe.Space(spec.make_dims(random.Random(seed)), seed)
    points, exhaustive = space.points()
    same = differ = evaluated = 0
    for env in points:
        try:
            va, vb = spec.eval_a(env), spec.eval_b(env)
        except (ArithmeticError, KeyError):
            continue
        evaluated += 1
        same += va == vb
        differ += va % n != vb % n
    if evaluated == 0:
        return Truth("unevaluated", 0, exhaustive)
    verdict = "equal" if same == evaluated else "disjoint" if differ == evaluated else "mixed"
    return Truth(verdict, evaluated, exhaustive)


def ir_truth(a: ir.Expr, b: ir.Expr, loops: Sequence[ir.ForStmt], rotated: ir.ForStmt | None) -> TruthSpec:
    """IR semantics (`slotsat.core.semantics.eval_expr`) over the IR loops (`probe.dims_for`)."""
    key = ("ir", repr(a), repr(b), repr([loop.loop_var.id for loop in loops]),
           "" if rotated is None else str(rotated.loop_var.id))
    return TruthSpec(
        key,
        lambda rng: probe.dims_for(loops, (a, b), rotated, rng),
        lambda env: eval_expr(a, env),
        lambda env: eval_expr(b, env),
    )


def _scan_loop_dim(loop: scan.Loop, shrink: bool) -> probe.Dim:
    def values(env: Mapping[Any, int]) -> Sequence[int]:
        def bound(v: Value, default: int) -> int:
            try:
                return matcher.evaluate(v, env)
            except (KeyError, ArithmeticError):
                return default

        lb, ub, step = bound(loop.lb, INT64_MIN), bound(loop.ub, INT64_MAX), bound(loop.step, 1)
        return range(0) if step <= 0 else range(lb, ub - (step if shrink else 0), step)

    return probe.Dim(loop.iv.name, values, True)


def _opaque_free_values(o: Opaque, rng: random.Random) -> list[int]:
    bits = int(o.type[1:]) if o.type[1:].isdigit() else 64
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    edges = [lo, lo + 1, -3, -2, -1, 0, 1, 2, 3, hi - 1, hi]
    return edges + [rng.randint(lo, hi) for _ in range(8)] + [rng.randint(-64, 64) for _ in range(8)]


def scan_truth(a: Value, b: Value, loops: Sequence[scan.Loop], rotated: scan.Loop | None) -> TruthSpec:
    """Emitted-chain semantics (`matcher.evaluate`), used only when a get cannot be mapped
    back to its IR slot index."""
    key = ("emitted", matcher.render(a), matcher.render(b), repr([matcher.render(lp.iv) for lp in loops]),
           "" if rotated is None else rotated.iv.name)

    def make_dims(rng: random.Random) -> list[probe.Dim]:
        dims = [_scan_loop_dim(loop, loop is rotated) for loop in loops]
        ivs = {loop.iv for loop in loops}
        in_bounds = scan.free_opaques([v for lp in loops for v in (lp.lb, lp.ub, lp.step)])
        for o in sorted(scan.free_opaques([a, b]) - ivs - in_bounds, key=lambda o: o.name):
            dims.append(probe.Dim(o.name, probe.fixed_values(_opaque_free_values(o, rng)), False))
        return dims

    return TruthSpec(key, make_dims,
                     lambda env: matcher.evaluate(a, env), lambda env: matcher.evaluate(b, env))

