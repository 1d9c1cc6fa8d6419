"""Every e-graph run ends within its limits (README "Limits"; `60-egraph-engine.md` §8).

Groups:
- empty loop ranges: the facts of a loop whose literal bounds leave it empty give no
  interval, so no contradictory bounds reach the rules (the reproducers found by
  `tests/reliability/test_fuzz.py` run in a subprocess under a timeout, so a regression
  fails instead of hanging the suite);
- the bounded runner: no named schedule hands egglog an unbounded loop, and a ruleset that
  never saturates, even inside a nested fixpoint, is stopped by the time and row limits.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from collections.abc import Iterable
from pathlib import Path

import pytest
from egglog import RewriteOrRule, Ruleset, rule, ruleset

from slotsat.core import ir
from slotsat.core.options import Mode
from slotsat.egraph_rules import lang, loops
from slotsat.egraph_rules.calls import Call
from slotsat.egraph_rules.engine import IndexEngine
from slotsat.egraph_rules.lang import Idx, dtype_ref
from slotsat.egraph_rules.loops import LoopInfo
from slotsat.egraph_rules.schedules import SCHEDULES, Fix, NamedSchedule, ProgramSpec
from slotsat.egraph_rules.session import Limits, session
from tests.egraph.helpers import C, fdiv, fmod, sub, var

TIMEOUT = 120.0
"""Seconds a reproducer may take before it counts as hanging (each takes about 2 s)."""


def _slotsat(*args: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            [sys.executable, "-m", "slotsat", *args],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
            env={"SLOTSAT_EGRAPH_SECONDS": "600", "PATH": "/usr/bin:/bin"},
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"slotsat {' '.join(args)} ran past {TIMEOUT:g} s")


# -- empty loop ranges ------------------------------------------------------------------


@pytest.mark.parametrize("loop", ["i=8:8:1", "i=8:4:4", "i=0:0:1", "i=9223372036854775807:?:1"])
def test_explore_over_an_empty_range_finishes_without_a_limit(loop: str) -> None:
    done = _slotsat("explore", "(i - 8) // 4 % 2", "--loop", loop)
    assert done.returncode == 0, done.stderr
    assert "LIMIT HIT" not in done.stdout
    assert "limit hit" not in done.stderr


def test_codegen_of_an_empty_stepped_pipeline_finishes(tmp_path: Path) -> None:
    src = tmp_path / "empty.py"
    src.write_text(
        textwrap.dedent(
            """\
            import pypto.language as pl


            @pl.program
            class P:
                @pl.function(type=pl.FunctionType.InCore)
                def kernel(
                    self, a: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]
                ) -> pl.Tensor[[256, 64], pl.FP32]:
                    for i in pl.pipeline(8, 8, 4, stage=2):
                        t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
                        e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(t)
                        _s = pl.store(e, [0, 0], out)
                    return out
            """
        )
    )
    for compat in ([], ["--compat", "pypto"]):
        done = _slotsat("codegen", str(src), "--backend", "950", *compat)
        assert done.returncode == 0, done.stderr
        assert "pto.multi_tile_get" in done.stdout
        assert "limit" not in done.stderr


@pytest.mark.parametrize(("start", "stop"), [(8, 8), (8, 4), (2**63 - 1, None)])
def test_an_empty_range_gives_its_variable_no_interval(start: int, stop: int | None) -> None:
    i = var("i")
    engine = IndexEngine(Mode.SLOTSAT)
    bound: ir.Expr = C(stop) if stop is not None else var("n")
    engine.add_loop(LoopInfo(i, C(start), bound, C(1)))
    root = engine.add_root(fmod(fdiv(sub(i, C(8)), C(4)), C(2)))
    graph = engine.saturate()
    assert graph.report.limit_hit is None
    assert graph.view is not None
    iv_class = graph.view.find(("iv", (0,), ()))
    assert iv_class is not None
    assert graph.view.interval(iv_class) is None
    lo_hi = graph.view.interval(graph.classes[root] or "")
    assert lo_hi is None or lo_hi[0] <= lo_hi[1]


def test_a_non_empty_range_keeps_its_interval() -> None:
    i = var("i")
    engine = IndexEngine(Mode.SLOTSAT)
    engine.add_loop(LoopInfo(i, C(8), C(9), C(1)))
    engine.add_root(fmod(fdiv(sub(i, C(8)), C(4)), C(2)))
    graph = engine.saturate()
    assert graph.view is not None
    iv_class = graph.view.find(("iv", (0,), ()))
    assert iv_class is not None
    assert graph.view.interval(iv_class) == (8, 8)


# -- the bounded runner -------------------------------------------------------------------


def _steps(fix: Fix) -> Iterable[Ruleset | Fix]:
    for step in fix.steps:
        yield step
        if isinstance(step, Fix):
            yield from _steps(step)


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_no_schedule_hands_egglog_an_unbounded_loop(name: str) -> None:
    """Every step is one iteration of one ruleset (a `Ruleset`, run once) or a Python-driven
    `Fix`; never an egglog `saturate()`, `until` or repeat, which one call could not bound."""
    for phase in SCHEDULES[name].phases:
        for step in _steps(phase):
            assert isinstance(step, Fix) or type(step) is Ruleset, step


grow = ruleset(name="test_grow")


@grow.register
def _grow(a: Idx, b: Idx) -> Iterable[RewriteOrRule]:
    yield rule(e := a + b).then(e + b)  # a new, larger term every iteration: never saturates


DIVERGE = NamedSchedule("DIVERGE", (Fix((Fix((grow,)),)),))
"""The never-saturating ruleset inside a nested fixpoint (one top-level round)."""
SPEC = ProgramSpec("TEST_DIVERGE", (DIVERGE,), {**loops.SYMBOLS, **lang.SYMBOLS})


def _seed() -> list[Call]:
    k = dtype_ref(ir.DType.INDEX)
    return [Call("add", (Call("var", ("x", k)), Call("const", (1, k))))]


def test_a_never_saturating_ruleset_stops_at_the_time_limit() -> None:
    with session(SPEC) as s:
        s.insert(_seed())
        t0 = time.perf_counter()
        run = s.run(DIVERGE, Limits(rounds=10**6, rows=10**9, seconds=0.5))
        elapsed = time.perf_counter() - t0
    assert run.limit_hit is not None
    assert run.limit_hit.startswith("DIVERGE: time limit of 0.5 s")
    assert run.rounds == 1
    assert elapsed < 10.0


def test_a_never_saturating_ruleset_stops_at_the_row_limit() -> None:
    with session(SPEC) as s:
        s.insert(_seed())
        run = s.run(DIVERGE, Limits(rounds=10**6, rows=200, seconds=600.0))
        rows = s.rows()
    assert run.limit_hit is not None
    assert run.limit_hit.startswith("DIVERGE: row limit of 200")
    assert 200 < rows < 400
