"""The valid shape of a `tile.load` of a tensor whose `pl.TensorView` declares one
(`x: pl.Tensor[[M, N], D, pl.TensorView(valid_shape=[M, VALID], ...)]`), as the reference
deduces it (`InferWindowReadValidShape` in PyPTO's `src/ir/op/type_inference.cpp`).

Per axis, with the tensor's physical extent `P`, its declared extent `V`, the offset `o`, the
window `w` and the requested extent `r` (the load's valid-shape argument, the window when the
call gives none):

- `V` is `P`: the tile is valid in `r`, unless the load passes `clamp=True`, which makes every
  axis (and a tensor declaring no valid shape, its physical one) follow the rule below.
- Otherwise the tensor offers `available = min(max(V, o) - o, w)` (`available`: the
  reference's form of it), and the reference narrows to it exactly where a fresh arithmetic
  analyzer (no facts about any symbol beyond an index being non-negative) proves
  `available <= r`:
  - `r` is the whole window (`min(..., w) <= w` holds for every value), or both are literals
    and `available <= r`: it narrows;
  - an assignment of the symbols makes `available > r`: no sound analyzer proves the
    contrary, so it keeps `r`;
  - otherwise the outcome depends on the analyzer's strength: the load's annotation decides
    when it names one of the two (the reference's printed IR always annotates it), else the
    load is one located error.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import NamedTuple

from slotsat.core import ir

WITNESS_VALUES = (0, 1, 128, 1 << 20)
"""The values a witness tries for each symbol."""
WITNESS_SYMBOLS = 4
"""Up to this many symbols, a witness tries every combination of `WITNESS_VALUES`."""


def available(valid: ir.Expr, offset: ir.Expr, window: int) -> ir.Expr:
    """The extent the tensor offers under the window, `min(max(V, o) - o, w)`, in the form the
    reference's FoldExtent and MinExtent give it (read off its printed IR): a literal when `V`
    and `o` are; `V` at offset 0, else `pl.max(V - o, 0)`; under `pl.min(..., w)` unless `V` is
    a literal within the window (an offset is non-negative, so the rest is too)."""
    v, o = ir.literal_value(valid), ir.literal_value(offset)
    if v is not None and o is not None:
        return ir.ConstInt(min(max(v - o, 0), window), ir.DType.INDEX)
    zero = ir.ConstInt(0, ir.DType.INDEX)
    remaining = valid if o == 0 else ir.ScalarBinary(
        "max", ir.Sub(valid, offset, ir.DType.INDEX), zero, ir.DType.INDEX)
    if v is not None and v <= window:
        return remaining
    return ir.ScalarBinary("min", remaining, ir.ConstInt(window, ir.DType.INDEX), ir.DType.INDEX)


def refuted(lhs: ir.Expr, rhs: ir.Expr) -> bool:
    """Whether an assignment of the symbols (non-negative, as the reference's analyzer takes an
    index to be) makes `lhs > rhs`: then no sound analyzer proves `lhs <= rhs`. Up to
    `WITNESS_SYMBOLS` symbols try every combination of `WITNESS_VALUES`; more try the large
    values for those `lhs` reads and the small ones for the rest."""
    free: dict[int, None] = {}
    for e in (lhs, *_parts(lhs), rhs, *_parts(rhs)):
        free.update(dict.fromkeys(v.id for v in ir.expr_vars(e)))
    ids = list(free)
    if len(ids) <= WITNESS_SYMBOLS:
        envs = (dict(zip(ids, values, strict=True))
                for values in itertools.product(WITNESS_VALUES, repeat=len(ids)))
    else:
        left = {v.id for e in (lhs, *_parts(lhs)) for v in ir.expr_vars(e)}
        envs = ({vid: large if vid in left else small for vid in ids}
                for small, large in itertools.product(WITNESS_VALUES, WITNESS_VALUES))
    # the interpreter's scalar evaluator (pl.min / pl.max included), imported here: the parser
    # loads this module, and the interpreter's numpy is no part of reading a kernel
    from slotsat.core.interp_errors import InterpreterError
    from slotsat.core.interpreter import eval_scalar

    for env in envs:
        def lookup(v: ir.Var, env: dict[int, int] = env) -> int | None:
            return env.get(v.id)

        try:
            a, b = eval_scalar(lhs, lookup), eval_scalar(rhs, lookup)
        except (InterpreterError, ArithmeticError):
            continue
        if a is not None and b is not None and a > b:
            return True
    return False


def _parts(e: ir.Expr) -> list[ir.Expr]:
    if isinstance(e, ir.ScalarBinary):
        return [e.a, e.b, *_parts(e.a), *_parts(e.b)]
    if isinstance(e, ir.Sub | ir.Add | ir.Mul):
        return [*_parts(e.a), *_parts(e.b)]
    return [e]


class Window(NamedTuple):
    """What a `tile.load` reads: its offsets, its window and its requested valid extent."""

    offsets: Sequence[ir.Expr]
    shape: Sequence[int]
    requested: Sequence[ir.Expr]


def load_valid(tensor: ir.TensorType, window: Window, annotated: Sequence[ir.Expr] | None, *,
               clamp: bool = False) -> tuple[tuple[ir.Expr, ...], str | None]:
    """The valid shape of the load (see the module docstring) and, where the reference's
    analyzer decides and the annotation does not name either outcome, why slotsat cannot
    state it (None when it can). With `clamp=True` (the reference's "sanction a read that runs
    off the end of the source": the request is cut back to the source's edge) a tensor without
    a declared valid shape offers its physical one, and an axis whose declared extent is the
    physical one is narrowed too."""
    physical = tuple(ir.ConstInt(p, ir.DType.INDEX) if isinstance(p, int) else p for p in tensor.shape)
    declared = tensor.view.valid_shape if tensor.view is not None else ()
    if clamp and not declared:
        declared = physical
    if not declared or len(declared) != len(tensor.shape):
        return tuple(window.requested), None
    out: list[ir.Expr] = []
    axes = zip(physical, declared, window.offsets, window.shape, window.requested, strict=True)
    for axis, (phys, v, o, w, r) in enumerate(axes):
        if _same(phys, v) and not clamp:
            out.append(r)
            continue
        avail = available(v, o, w)
        la, lr = ir.literal_value(avail), ir.literal_value(r)
        if lr == w or _same(avail, r) or (la is not None and lr is not None and la <= lr):
            out.append(avail)
        elif refuted(avail, r):
            out.append(r)
        elif annotated is not None and axis < len(annotated) and (
                _same(annotated[axis], r) or _same(annotated[axis], avail)):
            out.append(annotated[axis])
        else:
            return tuple(window.requested), axis_reason(axis, r, v)
    return tuple(out), None


def axis_reason(axis: int, requested: ir.Expr, declared: ir.Expr) -> str:
    from slotsat.core.dsl.printer import print_expr

    return (f"the load requests the valid extent '{print_expr(requested)}' on axis {axis}, where the tensor "
            f"declares '{print_expr(declared)}': the reference narrows the read to the tensor's extent "
            "where its arithmetic analyzer proves that smaller, which slotsat cannot tell here; annotate the "
            "result's valid shape (pl.TileView(valid_shape=[...])) with the one the reference deduces")


def _same(a: ir.Expr, b: ir.Expr) -> bool:
    la, lb = ir.literal_value(a), ir.literal_value(b)
    if la is not None and lb is not None:
        return la == lb
    return a == b
