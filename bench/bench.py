"""`slotsat bench`: three lowerings of one corpus, matcher resolution, and compile-time scaling.

What one run measures (issue 7; `40-ptoas-slot-matcher.md` §8; `60-egraph-engine.md` §11):

- **Corpus**: the bundled example kernels plus random kernels regenerated from `--seed` by
  `slotsat.bench.generate` (or, with `--corpus DIR`, every kernel file in DIR).
- **Three lowerings** of every kernel, in one run:
  - `pypto`: `compile_module` with `--mode pypto` (the reference's syntactic proof, `remsi`);
  - `slotsat`: `compile_module` in the default mode (intervals, normalization,
    matcher-aware extraction);
  - `naive`: no proof at all: every signed floor-mod / floor-div gets its correction. It is
    rendered from the `pypto` output by applying the unproven rows of
    `30-pto-codegen.md` §7.1 to every proven op (`remsi` by a positive constant becomes
    `remsi, cmpi, addi, select`; `divsi` becomes `floordivsi`), then measured by the same
    code as the other two.
- **Metrics**, read back from the emitted `.pto` text (`slotsat.bench.scan`), never from what a pass
  reports about itself: index ops (every `arith` op except constants, `floordivsi` counted
  as the 4 ops ptoas expands it to), correction chains, slot operands, matcher-accepted
  slot operands (§7.1), and pairs resolved (equal or disjoint) against unknown (§8).
- **Pairs** (§8): every unordered pair of `multi_tile_get` on one region in one block, and
  every rotation pair (the operand at iteration `j` against the operand at `j + step`).
  Ground truth is exact evaluation over the enclosing loops' iteration space, exhaustive up
  to 4,096 points and otherwise a deterministic sample; a resolved answer contradicting it
  is a soundness failure and the run exits with status 1 naming the pair.
- **Scaling**: end-to-end time (parse, saturate, extract, emit) and peak memory of one
  generated file of 1, 10, 100, 1,000 (and, in a full run, 10,000) loops, each in a fresh
  subprocess so that `resource.getrusage(RUSAGE_SELF).ru_maxrss` is that size's own peak
  RSS and no tracing slows the timed code.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from slotsat.analysis import matcher
from slotsat.analysis.matcher import Const, Op, Opaque, Relation, Value
from slotsat.bench import probe, report, scan
from slotsat.bench.generate import GeneratedKernel, count_loops, generate_corpus, generate_kernel
from slotsat.core import ir
from slotsat.core.options import Mode
from slotsat.core.resources import bundled_kernels_dir
from slotsat.core.semantics import eval_expr

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1

LOWERING_MODES: dict[str, str] = {"pypto": "pypto", "slotsat": "slotsat"}
QUICK_BUDGET_SECONDS = 52.0
"""Wall-clock budget of `--quick` before the report is written (the issue asks for < 60 s)."""


@dataclass(frozen=True, slots=True)
class BenchConfig:
    """Sizes of one run. `quick()` finishes in under a minute on two cores."""

    seed: int = 0
    quick: bool = False
    random_kernels: int = 40
    max_loops: int = 40
    scaling: tuple[int, ...] = (1, 10, 100, 1000, 10000)
    corpus: Path | None = None
    include_bundled: bool = True
    command: str = "slotsat bench"

    @classmethod
    def for_args(cls, *, quick: bool, seed: int, corpus: Path | None, command: str) -> BenchConfig:
        if quick:
            return cls(seed=seed, quick=True, random_kernels=12, max_loops=16,
                       scaling=(1, 10, 100, 1000), corpus=corpus, command=command)
        return cls(seed=seed, corpus=corpus, command=command)


@dataclass(frozen=True, slots=True)
class KernelSource:
    name: str
    source: str  # "bundled", "random" or "corpus"
    text: str
    path: str
    loops: int


# --------------------------------------------------------------------------------------
# the compiler under test (`slotsat.app.pipeline`, `slotsat.core.dsl.parser`)


@dataclass(slots=True)
class Compiled:
    """What the benchmark needs from one compilation: the text, the IR codegen read, and any
    engine figures the compiler reports about itself."""

    pto: str
    module: ir.Module
    seconds: float
    engine: dict[str, float | int] = field(default_factory=dict)


def parse_kernel(text: str, path: str) -> ir.Module:
    """Parse DSL text with the project's parser."""
    from slotsat.core.dsl.parser import parse_source

    return parse_source(text, path)


def _engine_figures(result: Any) -> dict[str, float | int]:
    """The e-graph figures a compile result reports (nodes, iterations, seconds), summed over
    its functions. Reads `engine_reports` / `stats` when the pipeline provides them."""
    figures: dict[str, float | int] = {}
    reports = list(getattr(result, "engine_reports", None) or [])
    stats = getattr(result, "stats", None)
    if stats is not None:
        reports.append(stats)
    for rep in reports:
        items = rep.items() if isinstance(rep, Mapping) else (
            (k, getattr(rep, k)) for k in dir(rep) if not k.startswith("_")
        )
        for key, value in items:
            if isinstance(value, bool) or not isinstance(value, int | float):
                continue
            figures[key] = figures.get(key, 0) + value
    return figures


def compile_kernel(module: ir.Module, mode: str) -> Compiled:
    """Compile a parsed module in `mode` ("pypto" or "slotsat") and time it."""
    from slotsat.app.pipeline import CompileOptions, compile_module
    from slotsat.core.options import Mode

    start = time.perf_counter()
    result = compile_module(module, CompileOptions(mode=Mode.parse(mode)))
    seconds = time.perf_counter() - start
    return Compiled(result.pto_text, result.module, seconds, _engine_figures(result))


# --------------------------------------------------------------------------------------
# the naive lowering: every signed floor-mod / floor-div corrected (`30-...` §7.1)


class _Naive:
    """Rebuilds pypto-emitted values with the proof disabled: each `remsi` by a positive
    constant that is not already corrected gets `cmpi slt, addi, select`; each `divsi`
    becomes `floordivsi`. One instance keeps shared values shared."""

    def __init__(self, tag: str, ops: Sequence[Op]) -> None:
        self.tag = tag
        self.memo: dict[Value, Value] = {}
        self.ops: list[Op] = []
        self.counter = 0
        self.corrected = {
            o for op in ops if op.name == "arith.cmpi"
            for o in op.operands if isinstance(o, Op) and o.name == "arith.remsi"
        }

    def _new(self, name: str, operands: tuple[Value, ...], type: str, predicate: str | None = None) -> Op:
        self.counter += 1
        op = Op(name, operands, f"naive:{self.tag}:{self.counter}", type, predicate)
        self.ops.append(op)
        return op

    def value(self, v: Value) -> Value:
        if not isinstance(v, Op):
            return v
        done = self.memo.get(v)
        if done is not None:
            return done
        operands = tuple(self.value(o) for o in v.operands)
        divisor = v.operands[1] if len(v.operands) == 2 else None
        positive = isinstance(divisor, Const) and divisor.value > 0
        result: Value
        if v.name == "arith.remsi" and positive and v not in self.corrected:
            r = self._new("arith.remsi", operands, v.type)
            n = self._new("arith.cmpi", (r, Const(0, v.type)), "i1", "slt")
            s = self._new("arith.addi", (r, operands[1]), v.type)
            result = self._new("arith.select", (n, s, r), v.type)
        elif v.name == "arith.divsi" and positive:
            result = self._new("arith.floordivsi", operands, v.type)
        else:
            result = self._new(v.name, operands, v.type, v.predicate)
        self.memo[v] = result
        return result


def naive_function(fn: scan.Function) -> scan.Function:
    """A scanned pypto function as the naive lowering would emit it."""
    naive = _Naive(fn.name, fn.ops)
    for op in fn.ops:
        naive.value(op)
    gets = [
        scan.Get(g.handle, g.region, g.count, naive.value(g.operand), g.block, g.loops, g.index)
        for g in fn.gets
    ]
    return scan.Function(fn.name, fn.graph, list(naive.ops), gets, fn.loops, fn.args)


def naive_functions(pypto: list[scan.Function]) -> list[scan.Function]:
    return [naive_function(fn) for fn in pypto]


def naive_pair(a: Value, b: Value, tag: str) -> tuple[Value, Value]:
    """A pypto rotation pair as the naive lowering would emit it (shared values stay shared)."""
    naive = _Naive(tag, list(scan.chain_ops([a, b])))
    return naive.value(a), naive.value(b)


# --------------------------------------------------------------------------------------
# ground truth: exact evaluation over the iteration space (§8)


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


# --------------------------------------------------------------------------------------
# metrics of one lowering


@dataclass(slots=True)
class Metrics:
    index_ops: int = 0
    index_ops_text: int = 0
    slot_ops: int = 0
    corrections: int = 0
    slot_operands: int = 0
    matcher_accepted: int = 0
    pairs_resolved: int = 0
    pairs_unknown: int = 0
    pairs_equal: int = 0
    pairs_disjoint: int = 0
    rotation_pairs: int = 0
    same_block_pairs: int = 0
    ir_unmapped_gets: int = 0
    probe_mismatches: int = 0

    def add(self, other: Metrics) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def to_json(self) -> dict[str, int]:
        return {name: int(getattr(self, name)) for name in self.__dataclass_fields__}


@dataclass(frozen=True, slots=True)
class Failure:
    kernel: str
    lowering: str
    pair: str
    model: str
    truth: str

    def to_json(self) -> dict[str, str]:
        return {"kernel": self.kernel, "lowering": self.lowering, "pair": self.pair,
                "model": self.model, "truth": self.truth}


def _interval(v: Value, loops: Sequence[scan.Loop]) -> tuple[int, int] | None:
    """A sound inclusive bound on `v` from constant loop bounds, for the bare class (§7.1)."""
    if isinstance(v, Const):
        return v.value, v.value
    for loop in loops:
        if v == loop.iv and isinstance(loop.lb, Const) and isinstance(loop.ub, Const):
            if loop.ub.value > loop.lb.value:
                return loop.lb.value, loop.ub.value - 1
            return None
    if isinstance(v, Op) and v.name in ("arith.addi", "arith.subi") and len(v.operands) == 2:
        x, y = (_interval(o, loops) for o in v.operands)
        if x is None or y is None:
            return None
        lo, hi = (x[0] + y[0], x[1] + y[1]) if v.name == "arith.addi" else (x[0] - y[1], x[1] - y[0])
        return (lo, hi) if INT64_MIN <= lo and hi <= INT64_MAX else None
    if isinstance(v, Op) and v.name in ("arith.divui", "arith.remui") and len(v.operands) == 2:
        # Unsigned by a positive constant over a non-negative range: the signed view agrees.
        x, d = _interval(v.operands[0], loops), v.operands[1]
        if x is None or x[0] < 0 or not isinstance(d, Const) or d.value <= 0:
            return None
        if v.name == "arith.divui":
            return x[0] // d.value, x[1] // d.value
        return (x[0], x[1]) if x[1] < d.value else (0, d.value - 1)
    return None


def substitute_value(v: Value, iv: Opaque, step: Value, memo: dict[Value, Value], tag: str) -> Value:
    """`v` with `iv -> iv + step`: a side copy sharing every subterm that does not read `iv`.
    Used for rotation pairs only when a get cannot be mapped back to the IR."""
    if v == iv:
        if iv not in memo:
            memo[iv] = Op("arith.addi", (iv, step), f"{tag}:next:{iv.name}", iv.type)
        return memo[iv]
    if not isinstance(v, Op) or not scan.depends_on(v, iv):
        return v
    if v not in memo:
        operands = tuple(substitute_value(o, iv, step, memo, tag) for o in v.operands)
        memo[v] = Op(v.name, operands, f"{tag}:next:{v.id}", v.type, v.predicate)
    return memo[v]


@dataclass(slots=True)
class PairJob:
    """One pair of slot operands on a region of `n` slots, with how to evaluate it."""

    kind: str  # "same-block" or "rotation"
    a: Value
    b: Value
    n: int
    label: str
    truth: TruthSpec


@dataclass(slots=True)
class Unit:
    """One emitted function of one lowering: its scan, its IR gets (by emission order, None
    when they do not line up with the emitted gets) and its rotation pairs."""

    scanned: scan.Function
    ir_gets: list[probe.IrGet] | None
    rotations: list[PairJob]


def same_block_jobs(unit: Unit) -> Iterator[PairJob]:
    fn = unit.scanned
    by_block: dict[tuple[int, str], list[scan.Get]] = {}
    for g in fn.gets:
        by_block.setdefault((g.block, g.region), []).append(g)
    for (_, region), gets in by_block.items():
        for x in range(len(gets)):
            for y in range(x + 1, len(gets)):
                a, b = gets[x], gets[y]
                label = f"{fn.name}: {a.handle} vs {b.handle} on {region}"
                if unit.ir_gets is not None:
                    ia, ib = unit.ir_gets[a.index], unit.ir_gets[b.index]
                    truth = ir_truth(ia.index, ib.index, ia.loops, None)
                else:
                    truth = scan_truth(a.operand, b.operand, a.loops, None)
                yield PairJob("same-block", a.operand, b.operand, a.count, label, truth)


def substituted_rotations(fn: scan.Function) -> list[PairJob]:
    """Rotation pairs built on the emitted chains (fallback when the IR does not line up)."""
    jobs: list[PairJob] = []
    for g in fn.gets:
        for loop in g.loops:
            if not scan.depends_on(g.operand, loop.iv):
                continue
            b = substitute_value(g.operand, loop.iv, loop.step, {}, f"{fn.name}:{g.index}")
            label = f"{fn.name}: {g.handle} at {loop.iv.name} vs {loop.iv.name} + step on {g.region}"
            jobs.append(PairJob("rotation", g.operand, b, g.count, label,
                                scan_truth(g.operand, b, g.loops, loop)))
    return jobs


def probe_rotations(fn: scan.Function, irg: list[probe.IrGet], pr: probe.Probe, naive: bool) -> list[PairJob]:
    """Rotation pairs from the engine probe, with IR ground truth."""
    jobs: list[PairJob] = []
    for rot in pr.rotations:
        g = fn.gets[rot.get]
        a, b = naive_pair(rot.a, rot.b, f"{fn.name}:{rot.get}") if naive else (rot.a, rot.b)
        var = rot.loop.loop_var.name_hint
        label = f"{fn.name}: {g.handle} at {var} vs {var} + step on {g.region}"
        jobs.append(PairJob("rotation", a, b, g.count, label,
                            ir_truth(rot.index, rot.next_index, irg[rot.get].loops, rot.loop)))
    return jobs


@dataclass(slots=True)
class Recorder:
    """Where one lowering of one kernel reports: its name, the run's failures, the truth cache
    (a pair evaluated once per run, whichever lowering emitted it)."""

    kernel: str
    lowering: str
    failures: list[Failure]
    truths: dict[tuple[str, ...], Truth]


def count_pair(m: Metrics, job: PairJob, rec: Recorder) -> None:
    """Ask the matcher model about one pair; check a resolved answer against ground truth."""
    if job.kind == "rotation":
        m.rotation_pairs += 1
    else:
        m.same_block_pairs += 1
    relation = matcher.compare(job.a, job.b, job.n)
    if relation is Relation.UNKNOWN:
        m.pairs_unknown += 1
        return
    m.pairs_resolved += 1
    if relation is Relation.EQUAL:
        m.pairs_equal += 1
    else:
        m.pairs_disjoint += 1
    key = (*job.truth.key, str(job.n))
    truth = rec.truths.get(key)
    if truth is None:
        truth = ground_truth(job.truth, job.n, sum(ord(c) for c in "".join(key)) & 0xFFFF)
        rec.truths[key] = truth
    expected = relation.value
    if truth.verdict not in ("unevaluated", expected):
        rec.failures.append(Failure(
            rec.kernel, rec.lowering,
            f"{rec.kernel} [{rec.lowering}] {job.kind} {job.label}: "
            f"{matcher.render(job.a)} vs {matcher.render(job.b)}",
            expected, f"{truth.verdict} over {truth.points} point(s)",
        ))


def _shape(v: Value) -> list[str]:
    return sorted(op.name for op in scan.chain_ops([v]))


def measure_units(units: list[Unit], rec: Recorder,
                  probes: Mapping[int, probe.Probe] | None = None) -> Metrics:
    """Every metric of one lowering of one kernel; soundness failures go into `rec.failures`."""
    m = Metrics()
    for k, unit in enumerate(units):
        fn = unit.scanned
        m.index_ops += sum(scan.op_weight(op) for op in fn.ops)
        m.index_ops_text += len(fn.ops)
        m.corrections += sum(1 for op in fn.ops if scan.is_correction(op))
        m.slot_ops += sum(scan.op_weight(op) for op in scan.chain_ops([g.operand for g in fn.gets]))
        if unit.ir_gets is None:
            m.ir_unmapped_gets += len(fn.gets)
        pr = probes.get(k) if probes is not None else None
        for g in fn.gets:
            m.slot_operands += 1
            cls = matcher.classify(g.operand, g.count, _interval(g.operand, g.loops))
            m.matcher_accepted += int(matcher.accepted(cls))
            if pr is not None and g.index < len(pr.operands):
                m.probe_mismatches += int(_shape(pr.operands[g.index]) != _shape(g.operand))
        for job in [*same_block_jobs(unit), *unit.rotations]:
            count_pair(m, job, rec)
    return m


# --------------------------------------------------------------------------------------
# one kernel


@dataclass(slots=True)
class KernelResult:
    name: str
    source: str
    path: str
    loops: int
    functions: int = 0
    lowerings: dict[str, Metrics] = field(default_factory=dict)
    egraph: dict[str, float | int] = field(default_factory=dict)
    engine: dict[str, float | int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "source": self.source,
            "path": self.path,
            "loops": self.loops,
            "functions": self.functions,
            "lowerings": {k: v.to_json() for k, v in self.lowerings.items()},
            "egraph": self.egraph,
            "compiler_reported": self.engine,
            "seconds": self.seconds.get("slotsat"),
            "seconds_by_mode": self.seconds,
            "error": self.error,
        }


def _units(scanned: list[scan.Function], module: ir.Module, mode: Mode,
           probes: dict[int, probe.Probe], naive: bool = False) -> list[Unit]:
    """Pair each emitted function with its IR function and build its rotation pairs. Both lists
    are in program order; an emitted name may carry the `_N` suffix codegen adds when two
    programs define one function name."""
    pending = [f for program in module.programs for f in program.functions]
    units: list[Unit] = []
    for k, fn in enumerate(scanned):
        ir_fn = None
        for j, f in enumerate(pending):
            if fn.name == f.name or re.fullmatch(re.escape(f.name) + r"_\d+", fn.name) is not None:
                ir_fn = f
                del pending[: j + 1]
                break
        irg = probe.ir_gets(ir_fn) if ir_fn is not None else None
        if ir_fn is None or irg is None or len(irg) != len(fn.gets):
            units.append(Unit(fn, None, substituted_rotations(fn)))
            continue
        if k not in probes:
            probes[k] = probe.probe_function(ir_fn, mode)
        units.append(Unit(fn, irg, probe_rotations(fn, irg, probes[k], naive)))
    return units


def measure_kernel(src: KernelSource, failures: list[Failure],
                   truth_cache: dict[tuple[str, ...], Truth]) -> KernelResult:
    """Parse, compile in both modes, derive naive, and measure all three."""
    result = KernelResult(src.name, src.source, src.path, src.loops)
    try:
        module = parse_kernel(src.text, src.path)
        compiled = {name: compile_kernel(module, mode) for name, mode in LOWERING_MODES.items()}
    except Exception as err:
        result.error = " ".join(f"{type(err).__name__}: {err}".split())[:300]
        return result
    scanned = {name: scan.scan_module(c.pto) for name, c in compiled.items()}
    probes: dict[str, dict[int, probe.Probe]] = {"pypto": {}, "slotsat": {}}
    units = {
        "slotsat": _units(scanned["slotsat"], compiled["slotsat"].module, Mode.SLOTSAT, probes["slotsat"]),
        "pypto": _units(scanned["pypto"], compiled["pypto"].module, Mode.PYPTO, probes["pypto"]),
        "naive": _units(naive_functions(scanned["pypto"]), compiled["pypto"].module, Mode.PYPTO,
                        probes["pypto"], naive=True),
    }
    result.functions = len(scanned["slotsat"])
    for name in report.LOWERINGS:
        rec = Recorder(src.name, name, failures, truth_cache)
        # The probe's operands mirror pypto's and slotsat's emission, not naive's rewrite.
        result.lowerings[name] = measure_units(units[name], rec, None if name == "naive" else probes[name])
    sat = probes["slotsat"].values()
    result.egraph = {
        "nodes": sum(p.nodes for p in sat),
        "iterations": max((p.iterations for p in sat), default=0),
        "saturate_seconds": sum(p.saturate_seconds for p in sat),
        "extract_seconds": sum(p.extract_seconds for p in sat),
    }
    result.engine = compiled["slotsat"].engine
    result.seconds = {name: c.seconds for name, c in compiled.items()}
    return result


# --------------------------------------------------------------------------------------
# scaling (one subprocess per size)


MIN_TIMED_SECONDS = 0.5
MAX_REPEATS = 25
SCALING_MAX_FILE_BYTES = 64 * 1024 * 1024
"""`SLOTSAT_MAX_FILE_BYTES` for the scaling subprocesses (the parser's default is 4 MiB)."""


def scaling_point(loops: int, seed: int) -> dict[str, Any]:
    """Time parse + compile (slotsat mode) of one generated file; run in a fresh process.

    A size whose first run takes under `MIN_TIMED_SECONDS` is repeated (at most
    `MAX_REPEATS` times, until that much time has passed) and the median run is reported,
    so the small sizes' ratios are not clock noise.
    """
    warm = generate_kernel(seed, 1, name="Warmup")
    compile_kernel(parse_kernel(warm.text, "warmup.py"), "slotsat")
    baseline_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kernel = generate_kernel(seed, loops)
    runs: list[tuple[float, float, Compiled]] = []
    spent = 0.0
    while not runs or (spent < MIN_TIMED_SECONDS and len(runs) < MAX_REPEATS):
        start = time.perf_counter()
        module = parse_kernel(kernel.text, f"{kernel.name}.py")
        parsed = time.perf_counter()
        compiled = compile_kernel(module, "slotsat")
        end = time.perf_counter()
        runs.append((end - start, parsed - start, compiled))
        spent += end - start
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    runs.sort(key=lambda r: r[0])
    seconds, parse_seconds, compiled = runs[len(runs) // 2]
    # The e-graph figures at this size, from the engine probe (after the timed runs and the
    # memory reading, so neither includes it).
    probes = [probe.probe_function(fn, Mode.SLOTSAT) for program in compiled.module.programs
              for fn in program.functions]
    return {
        "loops": loops,
        "functions": len(scan.scan_module(compiled.pto)),
        "lines": kernel.text.count("\n"),
        "seconds": seconds,
        "parse_seconds": parse_seconds,
        "compile_seconds": seconds - parse_seconds,
        "saturate_seconds": sum(p.saturate_seconds for p in probes),
        "extract_seconds": sum(p.extract_seconds for p in probes),
        "egraph_nodes": sum(p.nodes for p in probes),
        "egraph_iterations": max((p.iterations for p in probes), default=0),
        "compiler_reported": compiled.engine,
        "repeats": len(runs),
        "peak_mb": peak_kb / 1024.0,
        "baseline_mb": baseline_kb / 1024.0,
    }


def run_scaling_point(loops: int, seed: int, timeout: float) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "slotsat.bench.bench", "--scaling-point", str(loops), "--seed", str(seed)]
    env = dict(os.environ)
    # The 10,000-loop file (about 5.5 MB) is over the parser's default 4 MiB input limit.
    limit = max(SCALING_MAX_FILE_BYTES, int(env.get("SLOTSAT_MAX_FILE_BYTES", "0") or 0))
    env["SLOTSAT_MAX_FILE_BYTES"] = str(limit)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, check=False)
    except subprocess.TimeoutExpired:
        return {"loops": loops, "seconds": None, "peak_mb": None, "error": f"timed out after {timeout:.0f} s"}
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"loops": loops, "seconds": None, "peak_mb": None, "error": tail[:300]}
    point: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return point


# --------------------------------------------------------------------------------------
# the run


def _bundled_dirs() -> list[Path]:
    return [bundled_kernels_dir()]


def collect_sources(config: BenchConfig) -> list[KernelSource]:
    """The kernels of one run: `--corpus DIR`, or the bundled examples plus the random corpus."""
    sources: list[KernelSource] = []
    if config.corpus is not None:
        for path in sorted(config.corpus.glob("*.py")):
            text = path.read_text()
            sources.append(KernelSource(path.stem, "corpus", text, str(path), count_loops(text)))
        return sources
    if config.include_bundled:
        seen: set[str] = set()
        for d in _bundled_dirs():
            for path in sorted(d.glob("*.py")):
                if path.name.startswith("_") or path.stem in seen:
                    continue
                seen.add(path.stem)
                text = path.read_text()
                sources.append(KernelSource(path.stem, "bundled", text, str(path), count_loops(text)))
    kernels: list[GeneratedKernel] = generate_corpus(config.seed, config.random_kernels, config.max_loops)
    for k in kernels:
        sources.append(KernelSource(k.name, "random", k.text, f"<generated seed={k.seed}>", k.loops))
    return sources


def _totals(kernels: Sequence[KernelResult]) -> dict[str, dict[str, int]]:
    totals: dict[str, Metrics] = {name: Metrics() for name in report.LOWERINGS}
    for k in kernels:
        for name, m in k.lowerings.items():
            totals[name].add(m)
    return {name: m.to_json() for name, m in totals.items()}


def _versions() -> dict[str, str]:
    try:
        from importlib.metadata import version

        egglog = version("egglog")
    except Exception:
        egglog = "?"
    return {"python": f"CPython {platform.python_version()}", "egglog": egglog}


NOTES: tuple[str, ...] = (
    "index_ops: every `arith` op in the emitted .pto except `arith.constant`, read back from the "
    "text (bench.scan); `arith.floordivsi` counts 4 (ptoas expands it into a truncating division and "
    "a three-op correction, 40 §7.2). index_ops_text counts it once. slot_ops: the ops of the slot "
    "operands' chains (shared ops once).",
    "corrections: correction chains emitted = `arith.select` ops (the last op of every floor-mod "
    "correction, 30 §7.1) plus `arith.floordivsi` ops (floor-division correction).",
    "naive: an op-count-and-render model, not an engine mode (the engine has no proof-off switch). "
    "It rewrites the pypto output by the unproven rows of 30 §7.1: every `remsi` by a positive "
    "constant not already corrected becomes `remsi, cmpi slt, addi, select`, every `divsi` becomes "
    "`floordivsi`; the rewritten ops are then measured (ops, corrections, matcher classes, pairs) by "
    "the same code as pypto and slotsat.",
    "slot_operands / matcher_accepted: one per emitted `pto.multi_tile_get`; accepted = peelable or "
    "bare under analysis.matcher.classify (40 §7.1), a bare value's interval taken from constant "
    "`scf.for` bounds.",
    "pairs (40 §8): same-block pairs are every unordered pair of emitted gets on one region in one "
    "block, compared on the emitted values. Rotation pairs: for each get and each enclosing loop its "
    "IR slot index reads, the index with iv -> iv + step is inserted into one IndexEngine per "
    "function together with the real indices (the engine probe, bench.probe), saturated in the same "
    "batch, and chosen right after its real operand against a copy of the block's emitted scope "
    "(never emitted). pypto uses IndexEngine(Mode.PYPTO) (the syntactic proof, as written); naive "
    "rewrites the pypto pair. probe_mismatches counts gets whose probe operand differs in shape from "
    "the emitted one (0 once codegen extracts through the same engine).",
    "ground truth: the IR slot indices evaluated exactly (slotsat.core.semantics.eval_expr) at every "
    "point of the enclosing loops' iteration space, exhaustive up to 4,096 points, else the first "
    "and last 64 iterations of each loop (other dimensions at seeded random values) plus 512 seeded "
    "random points; a rotation pair skips the loop's last iteration; a runtime bound is taken at its "
    "widest (iv < stop <= INT64_MAX); a free scalar read by an index is sampled over its dtype. Truly "
    "equal: the values agree at every point; truly disjoint: they differ modulo the region's count at "
    "every point; else mixed. A get that cannot be mapped to its IR index (ir_unmapped_gets) falls "
    "back to evaluating the emitted chains (analysis.matcher.evaluate).",
    "e-graph figures (nodes = table rows, iterations, saturate and extract seconds) come from the "
    "engine probe, summed over the kernel's functions (iterations: the maximum).",
    "scaling: each size runs in a fresh subprocess after a one-loop warm-up compile (imports and "
    "egglog setup excluded); seconds = parse + compile_module (saturate, extract, emit) in slotsat "
    "mode, wall clock (time.perf_counter), the median of repeated runs for sizes under 0.5 s "
    "(`repeats`); peak_mb = resource.getrusage(RUSAGE_SELF).ru_maxrss of that process, read right "
    "after the timed runs (whole-process peak RSS, interpreter and imports included; baseline_mb is "
    "the peak after the warm-up). The e-graph columns come from running the probe afterwards. The "
    "subprocesses run with SLOTSAT_MAX_FILE_BYTES = 64 MiB: the 10,000-loop file is over the "
    "parser's 4 MiB default. meta.load_average is the 1-minute load before and after the run (the "
    "machine may be shared; timings are wall clock).",
)


def run_bench(config: BenchConfig, *, progress: Callable[[str, int, int], None] | None = None,
              scaling_timeout: float | None = None) -> tuple[dict[str, Any], list[Failure]]:
    """Run everything; returns the report document and the soundness failures.

    A scaling point that exceeds `scaling_timeout` (default 900 s; in a quick run, whatever
    is left of `QUICK_BUDGET_SECONDS`) is reported as timed out and the larger sizes as
    skipped, so `--quick` stays bounded whatever the compiler's speed."""
    timeout = scaling_timeout if scaling_timeout is not None else 900.0
    started = time.perf_counter()
    load_before = os.getloadavg()[0]
    deadline = started + QUICK_BUDGET_SECONDS if config.quick else None
    sources = collect_sources(config)
    failures: list[Failure] = []
    truth_cache: dict[tuple[str, ...], Truth] = {}
    kernels: list[KernelResult] = []
    total_steps = len(sources) + len(config.scaling)
    for k, src in enumerate(sources):
        if progress is not None:
            progress(f"kernel {src.name}", k, total_steps)
        kernels.append(measure_kernel(src, failures, truth_cache))
    corpus_seconds = time.perf_counter() - started
    scaling: list[dict[str, Any]] = []
    stopped: str | None = None
    for k, loops in enumerate(config.scaling):
        if progress is not None:
            progress(f"scaling {loops} loops", len(sources) + k, total_steps)
        if stopped is not None:
            scaling.append({"loops": loops, "seconds": None, "peak_mb": None, "error": stopped})
            continue
        budget = timeout if deadline is None else max(1.0, min(timeout, deadline - time.perf_counter()))
        point = run_scaling_point(loops, config.seed, budget)
        if point.get("seconds") is None:
            stopped = f"skipped: the {loops}-loop point did not finish"
        scaling.append(point)
    if progress is not None:
        progress("done", total_steps, total_steps)
    data: dict[str, Any] = {
        "lowerings": _totals([k for k in kernels if k.error is None]),
        "scaling": scaling,
        "kernels": [k.to_json() for k in kernels],
        "soundness_failures": [f.to_json() for f in failures],
        "notes": list(NOTES),
        "meta": {
            "command": config.command,
            "seed": config.seed,
            "quick": config.quick,
            "random_kernels": config.random_kernels,
            "max_loops": config.max_loops,
            "corpus": None if config.corpus is None else str(config.corpus),
            "cpus": os.cpu_count(),
            "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
            "wall_seconds": time.perf_counter() - started,
            "corpus_seconds": corpus_seconds,
            "scaling_seconds": time.perf_counter() - started - corpus_seconds,
            **_versions(),
        },
    }
    return data, failures


def _main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bench")
    parser.add_argument("--scaling-point", type=int, required=True)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(json.dumps(scaling_point(args.scaling_point, args.seed)))
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
