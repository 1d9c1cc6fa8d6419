"""The lowerings one benchmark run compares, and how each is produced.

- `pypto`: `compile_module` with `--mode pypto` (the reference's syntactic proof, `remsi`);
- `slotsat`: `compile_module` in the default mode (intervals, normalization, matcher-aware
  extraction);
- `naive`: no proof at all: every signed floor-mod / floor-div gets its correction
  (`30-pto-codegen.md` §7.1). It is derived from the `pypto` output: each `remsi` by a
  positive constant becomes `remsi, cmpi, addi, select` and each `divsi` becomes
  `floordivsi`; the rewritten ops are then measured by the same code as the other two.
- `swap`: the honest no-e-graph baseline: the `pypto` output with each bare `remsi` / `divsi`
  by a positive constant (exactly where the reference's syntactic proof held, so it
  skipped the correction) swapped for `remui` / `divui`, which the matcher unwraps. No
  interval proof, no rewriting, no sharing: what slotsat gains over `swap` is what the
  e-graph adds beyond one opcode choice.

A lowering is either compiled (`COMPILED`: a name and the `Mode` the pipeline runs in) or
derived (`DERIVED`: a rewrite of a compiled lowering's scanned output, plus the same rewrite
of one rotation pair). A further lowering is one more entry in one of the two tables and in
`LOWERINGS`, the report's column order; nothing else names the lowerings (but the report's
prose, which compares slotsat with each baseline).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from slotsat.analysis.matcher import Const, Op, Value
from slotsat.bench import scan
from slotsat.core.options import Mode

LOWERINGS: tuple[str, ...] = ("naive", "pypto", "swap", "slotsat")
"""Every lowering, in the order the reports list them."""

COMPILED: dict[str, Mode] = {"pypto": Mode.PYPTO, "slotsat": Mode.SLOTSAT}
"""Lowerings the pipeline compiles, by name, with the mode it runs in (compile order)."""


@dataclass(frozen=True, slots=True)
class Derived:
    """A lowering rewritten from a compiled one's scanned output."""

    base: str
    """The compiled lowering it rewrites (its IR and engine probes are shared)."""
    functions: Callable[[list[scan.Function]], list[scan.Function]]
    """The rewrite of every scanned function of the base lowering."""
    pair: Callable[[Value, Value, str], tuple[Value, Value]]
    """The same rewrite of one rotation pair of the base lowering (shared values stay shared)."""


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



class _Swap:
    """Rebuilds pypto-emitted values with each bare `remsi` / `divsi` by a positive constant
    (a `remsi` a correction's `cmpi` reads is not bare) swapped for `remui` / `divui`. One
    instance keeps shared values shared."""

    def __init__(self, tag: str, ops: Sequence[Op]) -> None:
        self.tag = tag
        self.memo: dict[Value, Value] = {}
        self.ops: list[Op] = []
        self.counter = 0
        self.corrected = {
            o for op in ops if op.name == "arith.cmpi"
            for o in op.operands if isinstance(o, Op) and o.name == "arith.remsi"
        }

    def value(self, v: Value) -> Value:
        if not isinstance(v, Op):
            return v
        done = self.memo.get(v)
        if done is not None:
            return done
        operands = tuple(self.value(o) for o in v.operands)
        divisor = v.operands[1] if len(v.operands) == 2 else None
        positive = isinstance(divisor, Const) and divisor.value > 0
        name = v.name
        if positive and name == "arith.remsi" and v not in self.corrected:
            name = "arith.remui"
        elif positive and name == "arith.divsi":
            name = "arith.divui"
        self.counter += 1
        result = Op(name, operands, f"swap:{self.tag}:{self.counter}", v.type, v.predicate)
        self.ops.append(result)
        self.memo[v] = result
        return result


def swap_function(fn: scan.Function) -> scan.Function:
    """A scanned pypto function as the swap lowering would emit it."""
    swap = _Swap(fn.name, fn.ops)
    for op in fn.ops:
        swap.value(op)
    gets = [
        scan.Get(g.handle, g.region, g.count, swap.value(g.operand), g.block, g.loops, g.index)
        for g in fn.gets
    ]
    return scan.Function(fn.name, fn.graph, list(swap.ops), gets, fn.loops, fn.args)


def swap_functions(pypto: list[scan.Function]) -> list[scan.Function]:
    return [swap_function(fn) for fn in pypto]


def swap_pair(a: Value, b: Value, tag: str) -> tuple[Value, Value]:
    """A pypto rotation pair as the swap lowering would emit it (shared values stay shared)."""
    swap = _Swap(tag, list(scan.chain_ops([a, b])))
    return swap.value(a), swap.value(b)


DERIVED: dict[str, Derived] = {
    "naive": Derived("pypto", naive_functions, naive_pair),
    "swap": Derived("pypto", swap_functions, swap_pair),
}
"""Lowerings derived from a compiled one, by name."""
