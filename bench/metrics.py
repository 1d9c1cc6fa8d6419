"""The metrics of one lowering of one kernel, read back from its emitted `.pto` text.

Index ops (every `arith` op except constants, `floordivsi` counted as the 4 ops ptoas
expands it to), correction chains, slot operands, matcher-accepted slot operands
(`40-ptoas-slot-matcher.md` §7.1), and pairs resolved (equal or disjoint) against unknown
(§8). Pairs are every unordered pair of `multi_tile_get` on one region in one block
(`same_block_jobs`) and every rotation pair, the operand at iteration `j` against the one at
`j + step` (`probe_rotations`, from the engine probe; `substituted_rotations` on the
emitted chains when the IR does not line up). A resolved answer that ground truth
(`slotsat.bench.truth`) contradicts is a soundness `Failure`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from slotsat.analysis import matcher
from slotsat.analysis.matcher import Const, Op, Opaque, Relation, Value
from slotsat.bench import probe, scan
from slotsat.bench.truth import INT64_MAX, INT64_MIN, Truth, TruthSpec, ground_truth, ir_truth, scan_truth


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


PairRewrite = Callable[[Value, Value, str], tuple[Value, Value]]
"""A derived lowering's rewrite of one rotation pair (`slotsat.bench.lowerings.Derived.pair`)."""


def probe_rotations(fn: scan.Function, irg: list[probe.IrGet], pr: probe.Probe,
                    rewrite: PairRewrite | None = None) -> list[PairJob]:
    """Rotation pairs from the engine probe, with IR ground truth; a derived lowering passes
    its `rewrite` of the probe's (base lowering's) pair."""
    jobs: list[PairJob] = []
    for rot in pr.rotations:
        g = fn.gets[rot.get]
        a, b = rewrite(rot.a, rot.b, f"{fn.name}:{rot.get}") if rewrite is not None else (rot.a, rot.b)
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

