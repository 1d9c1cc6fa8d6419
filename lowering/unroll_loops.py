"""pto-unroll-loops: selective, marker-aware native unroll (`50-persistent-promotion.md` §9).

Overview
--------
Phase 1 validates the hints of every hinted loop of a function (the validator of
`slotsat.lowering.promote_persistent`) and fails before unrolling anything. Phase 2 repeats rounds
until one changes nothing: the hinted loops are collected in post-order (innermost first)
and handled one by one; the first hard error stops the function.

A loop carrying `pto.persistent_unroll` (set by promotion) must be fully unrolled: every
case that would otherwise drop the hint with a remark (empty body, non-index induction
variable, no constant trip count, failed unroll) is a hard error instead. Loops without a
hint are never changed; a marker without `pto.unroll` is ignored and stays.

Gates
-----
| Gate | Why |
| --- | --- |
| `pto.unroll = "enable"`: skipped | left to the compiler's cost model |
| empty body | nothing to unroll; marked: error, unmarked: remark and drop |
| non-`index` induction variable | native unroll handles `index` loops; marked: error |
| no static trip count (§8) | cannot unroll; marked: error, unmarked: remark and drop |
| trip count above `max-full-unroll-trip-count` | warning only; unrolled anyway |
| body times trip count above `MAX_UNROLLED_OPS` | the unroll fails; marked: error |

Why a size limit
----------------
ptoas's unroll can fail; slotsat's own unroll only fails when the copy would exceed
`MAX_UNROLLED_OPS` operations, so a mutated input with a huge trip count on an unmarked
loop ends in a clean result instead of exhausting memory.

Related passes
--------------
`slotsat.lowering.promote_persistent.PromotePersistentFragmentLoops` runs before it and sets the
marker.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, cast

from xdsl.dialects.arith import AddiOp, ConstantOp
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp
from xdsl.dialects.scf import ForOp, YieldOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from slotsat.analysis.pointer_flow import loop_bounds
from slotsat.lowering.mlir_io import Diagnostic, Positions, sorted_attributes
from slotsat.lowering.promote_persistent import (
    MARKER,
    UNROLL,
    UNROLL_FACTOR,
    factor_value,
    has_hint,
    static_trip_count,
    validate_hint,
)

MAX_UNROLLED_OPS = 20_000
"""Largest number of operations one unroll may create (trip count times body size)."""

MAX_ROUNDS = 10_000
"""Bound on the phase-2 fixpoint; every round that changes something removes a hint."""


class _HardError(Exception):
    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def _post_order(op: Operation) -> Iterator[Operation]:
    for region in op.regions:
        for block in region.blocks:
            for inner in list(block.ops):
                yield from _post_order(inner)
    yield op


def _body_ops(loop: ForOp) -> list[Operation]:
    ops = list(loop.body.block.ops)
    if ops and isinstance(ops[-1], YieldOp):
        ops.pop()
    return ops


def _size(ops: Sequence[Operation]) -> int:
    return sum(sum(1 for _ in op.walk()) for op in ops)


def _wrap(value: int, kind: Attribute) -> int:
    width = 64 if isinstance(kind, IndexType) else cast(IntegerType, kind).width.data
    raw = value & ((1 << width) - 1)
    return raw - (1 << width) if raw >> (width - 1) else raw


def _type_name(kind: Attribute) -> str:
    return str(kind)


@dataclass
class _Builder:
    """Inserts clones before `anchor` and keeps source positions on them."""

    anchor: Operation
    positions: Positions
    created: int = 0

    def constant(self, value: int, kind: Attribute) -> SSAValue:
        attr = IntegerAttr(_wrap(value, kind), cast(IntegerType | IndexType, kind))
        op = ConstantOp(attr)
        self._insert(op, self.anchor)
        return op.result

    def _insert(self, op: Operation, original: Operation) -> None:
        block = self.anchor.parent_block()
        assert block is not None
        block.insert_op_before(op, self.anchor)
        if original in self.positions.by_op:
            self.positions.by_op[op] = self.positions.by_op[original]

    def iteration(self, loop: ForOp, iv: SSAValue, carried: list[SSAValue]) -> list[SSAValue]:
        """Clone one iteration of `loop`'s body before the anchor; return its yielded values."""
        mapping: dict[SSAValue, SSAValue] = {loop.body.block.args[0]: iv}
        for arg, value in zip(loop.body.block.args[1:], carried, strict=True):
            mapping[arg] = value
        for op in _body_ops(loop):
            clone = op.clone(value_mapper=mapping)
            self.positions.copy_onto(op, clone)
            block = self.anchor.parent_block()
            assert block is not None
            block.insert_op_before(clone, self.anchor)
            self.created += 1
        terminator = loop.body.block.last_op
        if isinstance(terminator, YieldOp):
            return [mapping.get(v, v) for v in terminator.operands]
        return []


def _replace_loop(loop: ForOp, values: Sequence[SSAValue]) -> None:
    for result, value in zip(loop.results, values, strict=True):
        result.replace_all_uses_with(value)
    block = loop.parent_block()
    assert block is not None
    block.erase_op(loop)


def full_unroll(loop: ForOp, count: int, positions: Positions) -> bool:
    """Replace `loop` by `count` copies of its body (§9.3); `False` if it is too large."""
    bounds = loop_bounds(loop)
    if bounds is None or count * _size(_body_ops(loop)) > MAX_UNROLLED_OPS:
        return False
    lb, _, step = bounds
    kind = loop.body.block.args[0].type
    builder = _Builder(loop, positions)
    carried = list(loop.iter_args)
    for k in range(count):
        carried = builder.iteration(loop, builder.constant(lb + k * step, kind), carried)
    _replace_loop(loop, carried)
    return True


def factor_unroll(loop: ForOp, count: int, factor: int, positions: Positions) -> bool:
    """One loop striding by `factor * step` over `(count // factor) * factor` iterations, its
    body `factor` clones, then the `count % factor` remaining iterations inline."""
    bounds = loop_bounds(loop)
    body = _body_ops(loop)
    if bounds is None or max(factor, count % factor) * _size(body) > MAX_UNROLLED_OPS:
        return False
    lb, _, step = bounds
    kind = loop.body.block.args[0].type
    main = (count // factor) * factor
    outer = _Builder(loop, positions)
    carried: list[SSAValue] = list(loop.iter_args)
    if main:
        new_body = Block(arg_types=[kind, *(v.type for v in loop.iter_args)])
        for new_arg, old_arg in zip(new_body.args, loop.body.block.args, strict=True):
            new_arg.name_hint = old_arg.name_hint
        new_loop = ForOp(outer.constant(lb, kind), outer.constant(lb + main * step, kind),
                         outer.constant(factor * step, kind), carried, Region(new_body))
        for new_result, old_result in zip(new_loop.results, loop.results, strict=True):
            new_result.name_hint = old_result.name_hint
        new_loop.attributes = {k: v for k, v in loop.attributes.items() if k != UNROLL_FACTOR}
        sorted_attributes(new_loop)
        outer._insert(new_loop, loop)
        yield_op = YieldOp()
        new_body.add_op(yield_op)
        inner = _Builder(yield_op, positions)
        iv: SSAValue = new_body.args[0]
        values: list[SSAValue] = list(new_body.args[1:])
        for j in range(factor):
            iv_j = iv
            if j:
                add = AddiOp(iv, inner.constant(j * step, kind))
                inner._insert(add, loop)
                iv_j = add.result
            values = inner.iteration(loop, iv_j, values)
        yield_op.operands = tuple(values)
        carried = list(new_loop.results)
    for k in range(main, count):
        carried = outer.iteration(loop, outer.constant(lb + k * step, kind), carried)
    _replace_loop(loop, carried)
    return True


@dataclass
class _FunctionRun:
    max_full: int
    positions: Positions
    notes: list[Diagnostic] = field(default_factory=list[Diagnostic])

    def _drop(self, loop: ForOp, message: str) -> None:
        self.notes.append(Diagnostic("remark", message, self.positions.of(loop)))
        loop.attributes.pop(UNROLL, None)
        loop.attributes.pop(UNROLL_FACTOR, None)

    def _fail(self, loop: ForOp, message: str) -> None:
        raise _HardError(Diagnostic("error", message, self.positions.of(loop)))

    def handle(self, loop: ForOp) -> bool:
        """§9.2, one loop; `True` if the IR changed."""
        factor = loop.attributes.get(UNROLL_FACTOR)
        if isinstance(factor, IntegerAttr):
            return self._handle_factor(loop, factor_value(cast(IntegerAttr[IntegerType], factor)))
        unroll = loop.attributes.get(UNROLL)
        if not isinstance(unroll, StringAttr) or unroll.data != "full":
            return False
        marked = MARKER in loop.attributes
        full = "'pto.unroll = \"full\"' loop"
        if not _body_ops(loop):
            if marked:
                self._fail(loop, "persistent fragment loop requires full unroll but has an empty body")
            self._drop(loop, f"{full} has an empty body; dropping the hint")
            return True
        kind = loop.body.block.args[0].type
        if not isinstance(kind, IndexType):
            name = _type_name(kind)
            if marked:
                self._fail(loop, "persistent fragment loop requires full unroll but has a non-index "
                                 f"induction variable ('{name}')")
            self._drop(loop, f"{full} has a non-index induction variable ('{name}'); cannot unroll "
                             "natively, dropping the hint")
            return True
        count = static_trip_count(loop)
        if count is None:
            if marked:
                self._fail(loop, "persistent fragment loop requires full unroll but has no constant "
                                 "trip count")
            self._drop(loop, f"{full} has no constant trip count; cannot unroll natively, dropping "
                             "the hint")
            return True
        if 0 <= self.max_full < count:
            self.notes.append(Diagnostic(
                "warning", f"{full} has trip count {count}, above max-full-unroll-trip-count="
                           f"{self.max_full}; unrolling anyway", self.positions.of(loop)))
        if full_unroll(loop, count, self.positions):
            return True
        if marked:
            self._fail(loop, "persistent fragment loop could not be fully unrolled")
        return False

    def _handle_factor(self, loop: ForOp, factor: int) -> bool:
        if factor == 1:
            loop.attributes.pop(UNROLL_FACTOR, None)
            return True
        count = static_trip_count(loop)
        if count is None:
            self._drop(loop, "'pto.unroll_factor' loop has no constant trip count; dropping the hint")
            return True
        if factor_unroll(loop, count, factor, self.positions):
            return True
        self._drop(loop, f"'pto.unroll_factor' loop is too large to unroll (over {MAX_UNROLLED_OPS} "
                         "operations); dropping the hint")
        return True


@dataclass(frozen=True)
class UnrollLoops:
    """Unroll `pto.unroll = "full"` and `pto.unroll_factor` loops, marker-aware (module doc)."""

    name: ClassVar[str] = "pto-unroll-loops"

    max_full_unroll_trip_count: int = -1
    """When `>= 0`, unrolling a loop above this trip count warns (and still unrolls)."""

    def run(self, module: ModuleOp, positions: Positions) -> list[Diagnostic]:
        diagnostics: list[Diagnostic] = []
        for op in list(module.walk()):
            if isinstance(op, FuncOp):
                diagnostics.extend(self.run_on_function(op, positions))
        return diagnostics

    def run_on_function(self, func: FuncOp, positions: Positions) -> list[Diagnostic]:
        errors = [Diagnostic("error", message, positions.of(loop))
                  for loop in func.walk() if isinstance(loop, ForOp) and has_hint(loop)
                  if (message := validate_hint(loop)) is not None]
        if errors:
            return errors
        state = _FunctionRun(self.max_full_unroll_trip_count, positions)
        try:
            for _ in range(MAX_ROUNDS):
                loops = [op for op in _post_order(func) if isinstance(op, ForOp) and has_hint(op)]
                changed = False
                for loop in loops:
                    changed = state.handle(loop) or changed
                if not changed:
                    break
        except _HardError as err:
            return [*state.notes, err.diagnostic]
        return state.notes
