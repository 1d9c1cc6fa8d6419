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

The factor path
---------------
`pto.unroll_factor = K` follows ptoas's factor path (`loopUnrollByFactor`, issue 15.2), with
ptoas's remarks and in its order: an empty body, a non-`index` induction variable, `K == 1`,
`K` above `max-unroll-factor` (ptoas's option, default 1024; `--max-unroll-factor`), a step
that is not a positive constant, and constant bounds with `ub <= lb` each drop the hint with
a remark and keep the loop. Otherwise the loop strides by `K * step` over the largest
multiple of `K` iterations with `K` copies of its body, and an epilogue `scf.for` (a copy of
the loop, carrying on from the main loop's results) runs the rest:

- constant bounds: the split is computed here; no epilogue when `K` divides the trip count;
  a loop left with one iteration (main or epilogue) is replaced by its body;
- runtime bounds: the upper bound is clamped to `arith.maxsi(ub, lb)`, so a runtime
  `ub < lb` runs nothing; the main loop stops at `lb + (T - T mod K) * step`, `T` the exact
  unsigned ceiling of the clamped span over the step (`arith.ceildivui`, `arith.remui`).

Copy `j` of the body reads `iv + j * step` (one `arith.addi` of a constant; ptoas multiplies
the step by `j` first, which its later folding reduces to the same). The unrolled program
equals the original whenever the original's own induction steps do not overflow.
slotsat additionally drops the hint (with a remark) where its arithmetic cannot be exact:
a constant trip count above `INT64_MAX`, or `K * step` above `INT64_MAX`.

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

from xdsl.dialects.arith import AddiOp, CeilDivUIOp, ConstantOp, MaxSIOp, MuliOp, RemUIOp, SubiOp
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp
from xdsl.dialects.scf import ForOp, YieldOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from slotsat.analysis.pointer_flow import loop_bounds, signed_constant
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

INT64_MAX = (1 << 63) - 1

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

    def op(self, op: Operation) -> SSAValue:
        """Insert one single-result op before the anchor, at the anchor's position."""
        self._insert(op, self.anchor)
        return op.results[0]

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


def _promote_single_iteration(loop: ForOp) -> None:
    """Replace a loop of exactly one iteration by its body (MLIR's `promoteIfSingleIteration`):
    the induction variable becomes the lower bound, the carried values their initial values."""
    terminator = loop.body.block.last_op
    yielded = list(terminator.operands) if isinstance(terminator, YieldOp) else []
    if isinstance(terminator, YieldOp):
        loop.body.block.erase_op(terminator)
    Rewriter.inline_block(loop.body.block, InsertPoint.before(loop), [loop.lb, *loop.iter_args])
    _replace_loop(loop, yielded)


def _unroll_body_in_place(loop: ForOp, factor: int, step: int, positions: Positions) -> None:
    """Append `factor - 1` copies of the body, iteration `j` at `iv + j * step`, each carrying
    the previous copy's yielded values (MLIR's `generateUnrolledLoop`)."""
    block = loop.body.block
    terminator = block.last_op
    assert isinstance(terminator, YieldOp)
    ops = _body_ops(loop)
    iv, carried_args = block.args[0], list(block.args[1:])
    yielded = list(terminator.operands)
    last = list(yielded)
    inner = _Builder(terminator, positions)
    iv_used = bool(iv.uses)
    for j in range(1, factor):
        mapping: dict[SSAValue, SSAValue] = dict(zip(carried_args, last, strict=True))
        if iv_used:
            add = AddiOp(iv, inner.constant(j * step, iv.type))
            inner._insert(add, loop)
            mapping[iv] = add.result
        for op in ops:
            clone = op.clone(value_mapper=mapping)
            positions.copy_onto(op, clone)
            block.insert_op_before(clone, terminator)
            inner.created += 1
        last = [mapping.get(v, v) for v in yielded]
    terminator.operands = tuple(last)


def _epilogue(loop: ForOp, start: SSAValue, stop: SSAValue, positions: Positions) -> ForOp:
    """A copy of `loop` running from `start` to `stop`, inserted after it, carrying on from
    `loop`'s results (which it takes over)."""
    epilogue = loop.clone()
    positions.copy_onto(loop, epilogue)
    block = loop.parent_block()
    assert block is not None
    block.insert_op_after(epilogue, loop)
    for result, taken in zip(loop.results, epilogue.results, strict=True):
        result.replace_all_uses_with(taken)
    epilogue.operands = (start, stop, epilogue.step, *loop.results)
    return epilogue


def factor_unroll(loop: ForOp, factor: int, positions: Positions) -> bool:
    """Unroll `loop` by `factor` as ptoas's `loopUnrollByFactor` does (§9.2): the loop strides by
    `factor * step` over the largest multiple of `factor` iterations, its body `factor`
    copies; an epilogue `scf.for` runs the remaining iterations; a loop left with exactly one
    iteration is replaced by its body. Constant bounds are computed here (no epilogue when
    the count divides); otherwise the upper bound is first clamped to `arith.maxsi(ub, lb)` and
    the split is computed at run time. The step must be a positive constant. `False` (nothing
    changed) when the copies would exceed `MAX_UNROLLED_OPS`."""
    step = signed_constant(loop.step)
    assert step is not None
    assert step > 0
    if factor * _size(_body_ops(loop)) > MAX_UNROLLED_OPS:
        return False
    kind = loop.body.block.args[0].type
    builder = _Builder(loop, positions)
    bounds = loop_bounds(loop)
    if bounds is not None:
        lb, ub, _ = bounds
        count = static_trip_count(loop)
        assert count is not None
        main_stop = lb + (count - count % factor) * step
        split = main_stop < ub
        stop = builder.constant(main_stop, kind) if split else loop.ub
        new_step = builder.constant(factor * step, kind)
        epilogue = _epilogue(loop, stop, loop.ub, positions) if split else None
        loop.operands = (loop.lb, stop, new_step, *loop.iter_args)
        _unroll_body_in_place(loop, factor, step, positions)
        if epilogue is not None and count % factor == 1:
            _promote_single_iteration(epilogue)
        if count // factor == 1:
            _promote_single_iteration(loop)
        return True
    clamped = builder.op(MaxSIOp(loop.ub, loop.lb))
    span = builder.op(SubiOp(clamped, loop.lb))
    count_value = span if step == 1 else builder.op(CeilDivUIOp(span, loop.step))
    rest = builder.op(RemUIOp(count_value, builder.constant(factor, kind)))
    main_count = builder.op(SubiOp(count_value, rest))
    offset = main_count if step == 1 else builder.op(MuliOp(main_count, loop.step))
    stop = builder.op(AddiOp(loop.lb, offset))
    new_step = builder.constant(factor * step, kind)
    _epilogue(loop, stop, clamped, positions)
    loop.operands = (loop.lb, stop, new_step, *loop.iter_args)
    _unroll_body_in_place(loop, factor, step, positions)
    return True


@dataclass
class _FunctionRun:
    max_full: int
    max_factor: int
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
        """ptoas's factor path, its gates and remarks in its order (module doc)."""
        hint = "'pto.unroll_factor'"
        if not _body_ops(loop):
            self._drop(loop, "loop with an unroll hint has an empty body; dropping the hint")
            return True
        kind = loop.body.block.args[0].type
        if not isinstance(kind, IndexType):
            self._drop(loop, f"loop with an unroll hint has a non-index induction variable ({kind}); "
                             "native unrolling only supports index loops, dropping the hint")
            return True
        if factor == 1:
            self._drop(loop, f"{hint} = 1 is a no-op; dropping the hint")
            return True
        if 0 <= self.max_factor < factor:
            self._drop(loop, f"{hint} = {factor} exceeds max-unroll-factor={self.max_factor}; cannot "
                             "unroll natively, dropping the hint")
            return True
        step = signed_constant(loop.step)
        if step is None or step <= 0:
            self._drop(loop, f"{hint} loop has no constant positive step; cannot unroll natively, "
                             "dropping the hint")
            return True
        bounds = loop_bounds(loop)
        if bounds is not None and bounds[1] <= bounds[0]:
            self._drop(loop, f"{hint} loop never iterates; dropping the hint")
            return True
        if bounds is not None and static_trip_count(loop) is None:
            self._drop(loop, f"{hint} loop has more than INT64_MAX iterations; dropping the hint")
            return True
        if factor * step > INT64_MAX:
            self._drop(loop, f"{hint} = {factor} times the step {step} does not fit in 64 bits; "
                             "dropping the hint")
            return True
        attribute = loop.attributes.pop(UNROLL_FACTOR)
        if factor_unroll(loop, factor, self.positions):
            return True
        loop.attributes[UNROLL_FACTOR] = attribute
        sorted_attributes(loop)
        self._drop(loop, f"{hint} loop is too large to unroll (over {MAX_UNROLLED_OPS} operations); "
                         "dropping the hint")
        return True


@dataclass(frozen=True)
class UnrollLoops:
    """Unroll `pto.unroll = "full"` and `pto.unroll_factor` loops, marker-aware (module doc)."""

    name: ClassVar[str] = "pto-unroll-loops"

    max_full_unroll_trip_count: int = -1
    """When `>= 0`, unrolling a loop above this trip count warns (and still unrolls)."""

    max_unroll_factor: int = 1024
    """When `>= 0`, a `pto.unroll_factor` above it is dropped with a remark (ptoas's option)."""

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
        state = _FunctionRun(self.max_full_unroll_trip_count, self.max_unroll_factor, positions)
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
