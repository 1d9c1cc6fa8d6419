"""A reference interpreter for kernel IR (`10-dsl.md` §5–§8), used by `slotsat check`.

It executes one `ir.Function` on numpy arrays (tensor parameters) and Python ints (scalar
parameters) and returns the values of its `return` statement.

Values
    - scalars are Python ints held in their dtype's canonical range (two's complement for
      signed dtypes and `INDEX`, non-negative for unsigned), or floats for float scalars;
      every integer operation is exact, then wrapped to its dtype; `//` and `%` are floor
      division and floor remainder (`10-dsl.md` §7.2);
    - tensors are numpy arrays, or `paged.PagedTensor`s for arguments too large to hold
      whole (drawn page by page as the run touches them); each run binds its own copy of an
      argument; `tile.store`
      writes its destination tensor in place and returns it (`10-dsl.md` §5: its result
      reuses argument 2), so a function that returns the tensor parameter it stored into, by
      the name it had before the store as the reference prints it, returns what was stored;
    - tiles are `TileVal`s: a 2-D numpy array (a rank-1 tile `[C]` is `[1, C]`) plus the
      runtime valid extent. `BF16` is emulated in float32 rounded to bfloat16 after each op.
      A fresh result of an op is valid over the extent its variable's type declares, where
      the run can evaluate it (`Interpreter._as_declared`): the emitted tile's valid rows and
      columns are the type's, and the device computes into them whatever its operands' valid
      parts (reading their undefined data beyond those); a view or in-place result, and any
      other, over the extent the op's model derives.

Operations: `tile.load` (offsets, shape, valid shape; the part outside the valid shape is
undefined data, which a plain run sees as zeros; a read outside the tensor is an
`InterpreterError`), `tile.store` (writes the valid
part), unary / binary / tile-with-scalar elementwise ops (an integer quotient truncates toward
zero, as the device divides), row reductions and row
broadcasts over the valid columns, `tile.matmul` / `tile.matmul_acc` over the valid `K`,
`tile.move`, `tile.cast` (a float rounded to an integer by its `mode=`), `tile.reshape` (valid over the
extent its result's type declares, else over all of it), `tile.slice`
(both views of their source: see Buffers), `tile.read`; `pl.yield_`, loop-carried values, `if`.
`tile.alloc` statements (after init-memref) are no-ops; `while` loops (bounded by
`max_iterations`), runtime scopes (transparent) and returns at the end of `if` branches run as
written; the scalar operations of `ir.ScalarUnary` / `ir.ScalarBinary` compute exactly.
Also, in the reference's printed forms (`_EXTRA_FORMS`): `tile.create` (undefined data),
`tile.full`, `tile.ci` (one row), `tile.tri` (the triangular mask), `tile.get_block_idx` /
`get_block_num` / `get_subblock_idx` (the run's `identity`), the `col_expand` family and the
`expdif` (`exp(a - b)`) of both expand families, `tile.minimums`, `tile.rsqrt` with its scratch
tile, `tensor.read`, `tensor.dim`, `tile.set_validshape`, `tile.write`, `tile.extract`,
`tile.assemble`, `tile.transpose_view`, `tile.slice` with a valid-shape request, `tile.store`
with `atomic=pl.AtomicType.Add` (accumulates into the tensor), `tile.row_expand`, the max / min
broadcasts `tile.row_expand_max` / `min` and `tile.col_expand_max` / `min`, `tile.row_prod`,
`tile.matmul_bias` (the bias row added to every row), the GEMV family `tile.gemv` / `gemv_bias`
/ `gemv_acc` (a [16, N] tile valid in its first row; `acc_phase` only at its default),
`tile.fmod` (of floats, C's `fmod`), the partial ops `tile.part_add` / `mul` / `max` / `min`
(over the first operand's valid region, which keeps its own values where the second is not
valid), `tile.scatter` (flat offsets, in place on its destination), `tile.reinterpret_view` (the
bytes read as another dtype), `tile.col_prod`, `tile.col_sum`, `tensor.write` (in place on the
tensor argument), the sort family `tile.sort32`, `tile.mrgsort_format1` and
`tile.mrgsort_format2` (descending, equal values in input order, (value, raw index bits) pairs
in FP32 rows; not `exhausted=True`; see the section's facts), `tile.gather_mask`,
`tile.scatter_mask` (of fully valid tiles; see its facts), `tile.cmp` / `tile.cmps` (a packed
predicate read by `tile.sel` only, `Predicate`) and `tile.sel`, `tile.gather` (flat offsets by
fully valid indices; a source element outside its valid part is undefined data, `Undefined`),
`tile.fillpad` (the pad values pto-isa pins down, `_PAD_VALUES`), `tile.col_max` /
`tile.col_min`, the arg reductions `tile.row_argmax` / `row_argmin` / `col_argmax` /
`col_argmin` (the first of equal extremes; a row holding NaN gives undefined data),
`tile.concat` (sources of one valid row count, the second after the first one's valid columns)
and `tensor.view` (a row-major reshape, read only), `tile.transpose` (of a fully valid tile),
`tile.fillpad_inplace` (`tile.fillpad` in its source's buffer) and `tile.fillpad_expand` (into a
larger tile), `tile.random` (a repeatable stand-in held as undefined data, `Undefined.keyed`),
`tile.gatherb` (whole 32-byte blocks by byte offset), `tile.scatter_update` (rows, in order),
`tile.fmods`, `tile.expands`, `tile.sels`, `tile.prelu` / `lrelu`, and, where the reference's
sources disagree on the result, valid where they agree (`_agreed`; elsewhere undefined data):
`tile.addc` / `subc` / `addsc` / `subsc` and `tile.rem` / `rems`. Any other op, a
call of another function, a modelled op in a form of the reference the model does not cover
(`unmodelled_call`), or a tuple or array value is an `InterpreterError` naming it, raised before
the run starts (`ensure_modelled`) wherever the call sits. A tensor parameter's symbolic
dimensions take the values given under their names.

Buffers
    A fresh tile has a buffer of its own (`TileBuffer`); a view (`tile.slice`, `tile.reshape`,
    ...) and an in-place result (`tile.write`, `tile.assemble`, `tile.matmul_acc`, ...) share
    their source's, as the reference's op table says (`ops.buffer_of`). An in-place update,
    as a statement or an assignment, updates the buffer, and every older name or view of it
    reads the update (`Interpreter._current`), as on the device; a statement's update also
    rebinds the argument's name. A read of an older name after an update through a view of
    another layout (a reshape to another shape, a transposed or reinterpreted view) is not
    modelled (`Unmodelled`).

The physical-buffer model (`physical=True`, the default)
    A tile whose type carries a MemRef is not a private value: its storage is slot `k` of
    the allocation (keyed by the MemRef's base binder), where `k` is the slot index
    evaluated when the tile is defined (0 for a single-slot binding; outside `[0, N)` is an
    `InterpreterError`). Every definition writes the slot; a later read of a tile whose slot
    has since been written by another definition sees the overwriting data (or, if its
    shape or dtype differs, a poison pattern: NaN, or a fixed integer pattern). Views and
    in-place results of such a tile are tied to the same slot.

    With `prefetch=True` (default) loops also run in a pipelined order: before iteration `n`
    of a loop, each top-level slotted `tile.load` of iterations `n .. n + F - 1` (`F` the
    slot count of its allocation, which the body loads into once per iteration:
    `run_ahead_loads`) that has not run yet is issued, as the copy engine does when loads
    run ahead of compute. Only loads whose operands, slot index and valid shape
    depend on nothing but the induction variable, values defined before the loop, and
    top-level scalar assignments of the same kind are issued early; the rest run in place.
    So a slot index that makes two in-flight iterations share a slot (`(i // 2) % 2` with
    two slots, `i % 2` on a loop of step 64) makes an iteration read the data of another,
    and the differential test sees the difference.

Symbolic mode (`compute=False`) skips all tile arithmetic: tiles are shapes only and
`tile.read` gives an unknown scalar (None). The slot-privacy checker
(`analysis/privacy.py`) runs the interpreter this way with a `Tracer` that receives every
definition and use of a slot-bound tile.

Limits: `max_steps` statements per run and `max_iterations` iterations per loop instance
(see `slotsat/limits.py`). Past them a run raises `InterpreterLimit`, or, with
`truncate_loops=True` (symbolic mode), stops the loop early and reports it to the tracer. A
`for` loop whose trip count is over the limit raises on entry, before any iteration runs, and
a while loop as soon as one iteration leaves every value its condition reads unchanged (it
can never end).
`max_elements` bounds the data a computing run holds: the tensor parameters held whole
together, and any one tile, may have at most that many elements (`ensure_interpretable`); a
larger function is "too large to interpret" before any array is made. A parameter over
`paged.PAGED_ABOVE` elements is drawn in pages instead (`inputs.random_inputs`), and the pages the
runs on one input touch are bounded by the same number (`paged.PageBudget`).
"""

from __future__ import annotations

import functools
import itertools
import math
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, TypeAlias

import numpy as np
import numpy.typing as npt

from slotsat.core import ir, ops
from slotsat.core.errors import Span
from slotsat.core.interp_errors import (
    ExtentOutOfRange,
    InterpreterError,
    InterpreterLimit,
    Misfit,
    OutOfBounds,
    Overrun,
    Unmodelled,
)
from slotsat.core.ir import DType
from slotsat.core.paged import (
    PAGED_ABOVE,
    PagedTensor,
    differing_pages,
)
from slotsat.core.semantics import COMPARE

Array: TypeAlias = npt.NDArray[Any]
Scalar: TypeAlias = int | float | None
"""An int in its dtype's canonical range, a float, or None (unknown, symbolic mode)."""

DEFAULT_MAX_STEPS = 5_000_000
DEFAULT_MAX_ITERATIONS = 1_000_000
DEFAULT_MAX_ELEMENTS = 1 << 26
"""Elements of tensor data one run may hold (64 Mi: 256 MiB of FP32 per copy)."""


# --------------------------------------------------------------------------------------
# dtypes

_NP_DTYPE: dict[DType, Any] = {
    DType.INDEX: np.int64,
    DType.INT8: np.int8,
    DType.INT16: np.int16,
    DType.INT32: np.int32,
    DType.INT64: np.int64,
    DType.UINT8: np.uint8,
    DType.UINT16: np.uint16,
    DType.UINT32: np.uint32,
    DType.UINT64: np.uint64,
    DType.BOOL: np.bool_,
    DType.FP16: np.float16,
    DType.BF16: np.float32,
    DType.FP32: np.float32,
}


def numpy_dtype(dtype: DType) -> Any:
    """The numpy dtype that stores `dtype` (BF16 is float32 rounded to bfloat16)."""
    np_dtype = _NP_DTYPE.get(dtype)
    if np_dtype is None:
        raise Unmodelled(f"the interpreter does not model values of dtype pl.{dtype.value}")
    return np_dtype


def round_bf16(a: Array) -> Array:
    """Round float32 values to the nearest bfloat16 (ties to even); NaN and inf are kept."""
    f = np.asarray(a, dtype=np.float32)
    bits = f.view(np.uint32)
    # In 32-bit arithmetic: only NaN bit patterns (>= 0xFFFF8000) can wrap, and every
    # non-finite value is restored below.
    rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) & np.uint32(0xFFFF0000)
    out = rounded.view(np.float32)
    nonfinite = ~np.isfinite(f)
    out[nonfinite] = f[nonfinite]
    return out


_INT64_FLOATS = float(1 << 63)
"""Every integral float of smaller magnitude converts to int64 exactly."""


def as_dtype(a: Array, dtype: DType) -> Array:
    """`a` converted to `dtype`'s storage: integer wrap, float rounding (BF16 emulated)."""
    target = numpy_dtype(dtype)
    arr = np.asarray(a)
    if dtype.is_int and np.issubdtype(arr.dtype, np.floating):
        with np.errstate(all="ignore"):
            arr = np.trunc(np.nan_to_num(arr, nan=0.0, posinf=0.0, neginf=0.0))
        if arr.size == 0 or float(np.abs(arr).max()) < _INT64_FLOATS:  # exact in int64; casts wrap
            wrapped: Array = arr.astype(np.int64).astype(target)
            return wrapped
        ints = [dtype.wrap(int(x)) for x in arr.reshape(-1)]
        return np.array(ints, dtype=target).reshape(arr.shape)
    with np.errstate(all="ignore"):
        out = arr.astype(target)
    if dtype is DType.BF16:
        out = round_bf16(out)
    return out


def _poison(shape: tuple[int, ...], dtype: DType) -> Array:
    if dtype.is_float:
        return np.full(shape, np.nan, dtype=numpy_dtype(dtype))
    return np.full(shape, dtype.wrap(0x5A5A5A5A5A5A5A5A), dtype=numpy_dtype(dtype))


UNDEFINED_FILLINGS = 3
"""Fillings of undefined data a run can take (`Undefined.filling`): the poison pattern, and
one seeded random pattern with its mirror image."""


@dataclass
class Undefined:
    """Data a run reads that the program never defined or whose value the reference leaves
    open (a fresh tile's contents, a load's part outside its valid shape, an element
    `tile.gather` reads outside its source's valid part, a column `tile.scatter_mask` does not
    select over a non-zero destination, the values `tile.random` draws), and how the run
    fills it.

    The device leaves such data implementation-defined, so no one filling is right: `slotsat
    check` runs an original program that read some once per filling (`UNDEFINED_FILLINGS`) and
    compares its outputs exactly (`outputs_identical`); elements that differ are the ones
    undefined data reaches, set aside from the comparison (or, where a whole output or a scalar
    differs, the verdict is `unverified`). Filling 0 is the poison pattern (NaN, or
    0x5A... for integers: NaN survives arithmetic, `x * 0` included); filling 1 draws values
    from `seed` (floats of magnitude 1e3 to 1e4 with random signs, integers over the dtype's
    range), and filling 2 is filling 1 mirrored (the same draws negated, integers
    bit-inverted), so a comparison of undefined data with a modest value comes out differently
    in those two runs."""

    filling: int = 0
    seed: int = 0
    only: str | None = None
    """The one read (as `reads` names it) this filling applies to; every other read takes
    filling 0. None: all of them (`slotsat check` narrows to one to name the read that
    reaches an output)."""
    reads: list[str] = field(default_factory=list)
    """Where the run read undefined data, one line each, in order (`op at LINE:COL ...`), the
    zeros-first reads (a fresh tile's contents, a load's part outside its valid shape) after
    every other read."""
    _rng: np.random.Generator | None = field(default=None, init=False, repr=False)
    _plain: int = field(default=0, init=False, repr=False)
    """How many of `reads` are not zeros-first reads (they lead the list)."""

    def data(self, shape: tuple[int, ...], dtype: DType, what: str, *, zeros_first: bool = False) -> Array:
        """Values for `shape` elements of undefined data of `dtype`, read as `what` says.
        `zeros_first`: filling 0 is zeros rather than the poison (`tile.create`, which programs
        use as scratch, and a load's part outside its valid shape: zeros a plain interpreter
        run keeps)."""
        self._record(what, zeros_first)
        if self.filling == 0 or (self.only is not None and what != self.only):
            return np.zeros(shape, dtype=numpy_dtype(dtype)) if zeros_first else _poison(shape, dtype)
        if self._rng is None:
            self._rng = np.random.default_rng(self.seed)
        return self._draw(self._rng, shape, dtype)

    def keyed(self, key: Sequence[int], shape: tuple[int, ...], dtype: DType, what: str) -> Array:
        """`data` (not zeros first) as a function of `key`: within one filling the same key
        gives the same values, and filling 1 and 2 are each another function of it. For a
        value the program defines but the run does not reproduce (`tile.random`)."""
        self._record(what, zeros_first=False)
        if self.filling == 0 or (self.only is not None and what != self.only):
            return _poison(shape, dtype)
        rng = np.random.default_rng([self.seed, *(k % (1 << 64) for k in key)])
        return self._draw(rng, shape, dtype)

    def _record(self, what: str, zeros_first: bool) -> None:
        if not any(r == what for r in self.reads):
            # a fresh tile's contents are read by most programs, as scratch: other reads come
            # first, so the one a message names (`reads[0]`) is the more telling one
            self.reads.insert(len(self.reads) if zeros_first else self._plain, what)
            self._plain += 0 if zeros_first else 1

    def _draw(self, rng: np.random.Generator, shape: tuple[int, ...], dtype: DType) -> Array:
        """Filling 1's values from `rng` (floats of magnitude 1e3 to 1e4 with random signs,
        integers over the dtype's range), or filling 2's (their mirror image)."""
        if dtype.is_float:
            values = rng.uniform(1e3, 1e4, shape) * rng.choice([-1.0, 1.0], shape)
            return as_dtype(values if self.filling == 1 else -values, dtype)
        bits = rng.integers(0, 1 << 64, shape, dtype=np.uint64, endpoint=False)
        if self.filling == 2:
            bits = ~bits
        ints = [dtype.wrap(int(b)) for b in bits.reshape(-1)]
        return np.array(ints, dtype=numpy_dtype(dtype)).reshape(shape)


# --------------------------------------------------------------------------------------
# scalar semantics (`10-dsl.md` §7.2)


def _canon(value: int | float, dtype: DType) -> int | float:
    if dtype.is_float:
        return float(value)
    return dtype.wrap(int(value))


def _int_binop(e: ir.BinOp, a: int, b: int) -> int:
    if isinstance(e, ir.Add):
        return a + b
    if isinstance(e, ir.Sub):
        return a - b
    if isinstance(e, ir.Mul):
        return a * b
    if b == 0:
        raise InterpreterError(f"division by zero in '{ir.BINOP_SYMBOL[type(e)]}'", e.span)
    if isinstance(e, ir.FloorDiv):
        return a // b
    return a % b


def _float_binop(e: ir.BinOp, a: float, b: float) -> float:
    if isinstance(e, ir.Add):
        return a + b
    if isinstance(e, ir.Sub):
        return a - b
    if isinstance(e, ir.Mul):
        return a * b
    if b == 0:
        raise InterpreterError(f"division by zero in '{ir.BINOP_SYMBOL[type(e)]}'", e.span)
    if isinstance(e, ir.FloorDiv):
        return float(math.floor(a / b))
    return a - math.floor(a / b) * b


def eval_scalar(e: ir.Expr, lookup: Callable[[ir.Var], Scalar]) -> Scalar:
    """The exact value of a scalar expression; None if any operand is unknown.

    On integer expressions this agrees with `slotsat.core.semantics.eval_expr` (the exact evaluator
    the soundness tests use; checked by `tests/reliability/test_interpreter.py`); it adds
    unknown values (symbolic mode) and float scalars (`tile.read` of a float tile).

    Integer operations compute the exact result and wrap it to the node's dtype; `//` and `%`
    floor (Python semantics); comparisons give 0 or 1; `Cast` keeps the low bits when
    narrowing and sign-extends a signed value when widening. Division by zero raises.
    """
    if isinstance(e, ir.ConstInt):
        return e.dtype.wrap(e.value) if not e.dtype.is_float else float(e.value)
    if isinstance(e, ir.ConstFloat):
        return float(e.value)
    if isinstance(e, ir.Var):
        return lookup(e)
    if isinstance(e, ir.Cast):
        v = eval_scalar(e.a, lookup)
        return None if v is None else _canon(v, e.dtype)
    if isinstance(e, ir.Cmp):
        a, b = eval_scalar(e.a, lookup), eval_scalar(e.b, lookup)
        if a is None or b is None:
            return None
        return int(COMPARE[e.op](a, b))
    if isinstance(e, ir.ScalarUnary):
        return _eval_unary(e, eval_scalar(e.a, lookup))
    if isinstance(e, ir.ScalarBinary):
        return _eval_binary(e, eval_scalar(e.a, lookup), eval_scalar(e.b, lookup))
    if isinstance(e, ir.TupleGetItem):
        raise Unmodelled("the interpreter does not model tuple values", e.span)
    a, b = eval_scalar(e.a, lookup), eval_scalar(e.b, lookup)
    if a is None or b is None:
        return None
    if e.dtype.is_float or isinstance(a, float) or isinstance(b, float):
        return _float_binop(e, float(a), float(b))
    d = e.dtype
    a, b = d.wrap(int(a)), d.wrap(int(b))
    if isinstance(e, ir.FloorDiv | ir.FloorMod) and d.is_signed and a == d.min_value and b == -1:
        # outside the valid inputs (`10-dsl.md` §7.2), as `slotsat.core.semantics.eval_expr` says too
        raise InterpreterError(f"{d.value} minimum {ir.BINOP_SYMBOL[type(e)]} -1 overflows", e.span)
    return d.wrap(_int_binop(e, a, b))


def _eval_unary(e: ir.ScalarUnary, a: Scalar) -> Scalar:
    if a is None:
        return None
    if e.op == "not":
        return int(not a)
    if e.dtype.is_float:
        return float(-a if e.op == "neg" else abs(a))
    v = int(a)
    out = {"neg": -v, "abs": abs(v), "bitnot": ~v}.get(e.op)
    if out is None:
        raise InterpreterError(f"unknown scalar operation '{e.op}'", e.span)
    return e.dtype.wrap(out)


def _eval_binary(e: ir.ScalarBinary, a: Scalar, b: Scalar) -> Scalar:
    """`ir.ScalarBinary`: exact, then wrapped to the dtype (`/` of integers is floating point
    in Python, and the reference's FloatDiv of integers is outside what slotsat models)."""
    if a is None or b is None:
        return None
    if e.op in ("and", "or"):
        return int(bool(a) and bool(b)) if e.op == "and" else int(bool(a) or bool(b))
    if e.op in ("min", "max"):
        v: int | float = min(a, b) if e.op == "min" else max(a, b)
        return _canon(v, e.dtype)
    if e.dtype.is_float or isinstance(a, float) or isinstance(b, float):
        if e.op == "truediv":
            if b == 0:
                raise InterpreterError("division by zero in '/'", e.span)
            return float(a) / float(b)
        if e.op == "pow":
            try:
                power: float = float(a) ** float(b)
                return power
            except (OverflowError, ZeroDivisionError) as err:
                raise InterpreterError(f"'**' overflows: {err}", e.span) from None
        raise InterpreterError(f"'{ir.BINARY_OPS[e.op]}' needs integer operands", e.span)
    x, y = e.dtype.wrap(int(a)), e.dtype.wrap(int(b))
    if e.op == "truediv":
        raise Unmodelled("the interpreter does not model '/' of integers", e.span)
    if e.op == "pow":
        if y < 0 or y > e.dtype.bits:
            raise InterpreterError(f"'**' with exponent {y} is outside what the interpreter models", e.span)
        return e.dtype.wrap(x ** y)
    if e.op in ("shl", "shr"):
        if not 0 <= y < e.dtype.bits:
            raise InterpreterError(f"a shift by {y} is outside [0, {e.dtype.bits})", e.span)
        return e.dtype.wrap(x << y if e.op == "shl" else x >> y)
    ops = {"bitand": x & y, "bitor": x | y, "bitxor": x ^ y}
    if e.op not in ops:
        raise InterpreterError(f"unknown scalar operation '{e.op}'", e.span)
    return e.dtype.wrap(ops[e.op])


# --------------------------------------------------------------------------------------
# runtime values


@dataclass(frozen=True, slots=True, eq=False)
class SlotRef:
    """One write of a slot: allocation key, slot number, and the write's generation."""

    key: int
    slot: int
    gen: int
    region: str
    slot_count: int


@dataclass(eq=False, slots=True)
class TileBuffer:
    """One tile buffer of a computing run, shared by a fresh tile and every view and in-place
    result of it (`ops.buffer_of`): its whole contents as the last in-place update left them
    (`data`, `valid`), and how many in-place updates it has had (`version`). A tile value
    made before the latest update is stale; reading it reads the buffer
    (`Interpreter._current`). `opaque`: an update went through a view whose layout differs
    from the buffer's (a reshape, transposed or reinterpreted view), so the contents are not
    known element by element."""

    data: Array
    valid: tuple[int, int]
    version: int = 0
    opaque: bool = False

    def update(self, window: tuple[int, int] | None, val: TileVal) -> int:
        """Record `val`, written in place at `window` (None: through a view of another
        layout); the new version."""
        self.version += 1
        data = val.data
        if window is None or data is None or self.opaque:
            self.opaque = True
        elif window == (0, 0) and data.shape == self.data.shape:
            self.data, self.valid = data, val.valid
        else:
            whole = self.data.copy()
            r, c = window
            whole[r:r + data.shape[0], c:c + data.shape[1]] = data
            self.data = whole
        return self.version


@dataclass(frozen=True, slots=True, eq=False)
class TileVal:
    """A tile at run time. `data` is None in symbolic mode. `backing` is the slot write
    this tile's storage belongs to (None for a private, compiler-owned tile)."""

    data: Array | None
    valid: tuple[int, int]
    dtype: DType
    shape: tuple[int, int]
    backing: SlotRef | None = None
    predicate: Predicate | None = None
    """What a `tile.cmp` / `tile.cmps` result means: the tile itself is a packed predicate in a
    target-defined encoding, so only `tile.sel` may read it (`Interpreter._tile` declines
    every other reader)."""
    at: tuple[int, int] | None = (0, 0)
    """Where this tile sits in `buffer` (row, column), or None for a view of another layout;
    a view op's handler sets it relative to its source (`tile.slice`: the window's offset)."""
    buffer: TileBuffer | None = None
    version: int = 0
    """`buffer.version` when this value was made: an older one is stale."""

    def with_backing(self, ref: SlotRef | None) -> TileVal:
        return TileVal(self.data, self.valid, self.dtype, self.shape, ref, self.predicate, self.at,
                       self.buffer, self.version)

    def in_buffer(self, buffer: TileBuffer, at: tuple[int, int] | None, version: int) -> TileVal:
        return TileVal(self.data, self.valid, self.dtype, self.shape, self.backing, self.predicate, at,
                       buffer, version)


@dataclass(frozen=True, slots=True, eq=False)
class Predicate:
    """The per-element truth of a comparison over the compared tiles' shape, defined over
    `valid` (their valid region)."""

    truth: Array
    valid: tuple[int, int]


@dataclass(frozen=True, slots=True, eq=False)
class PtrVal:
    """The base pointer of an allocation (`tile.alloc`); it carries nothing."""

    name: str


@dataclass(frozen=True, slots=True, eq=False)
class TensorSym:
    """A tensor in symbolic mode (no data)."""

    shape: tuple[int, ...]


@dataclass(frozen=True, slots=True, eq=False)
class ArrayVal:
    """An on-core array (`pl.Array`): a value, as the IR's arrays are (`array.update_element`
    makes a new one and leaves its operand as it was), with which elements were written."""

    data: Array
    written: Array
    """One bool per element: whether the program wrote it (`array.create` leaves it undefined)."""
    dtype: DType


Value: TypeAlias = int | float | Array | PagedTensor | TileVal | PtrVal | TensorSym | ArrayVal | None


class Tracer(Protocol):
    """Receives the events the slot-privacy checker needs. Times are statement counters."""

    def begin_loop(self, loop: ir.ForStmt) -> None: ...

    def begin_iteration(self, loop: ir.ForStmt, ordinal: int, iv: int) -> None: ...

    def end_loop(self, loop: ir.ForStmt, truncated: bool) -> None: ...

    def define(self, var: ir.Var, ref: SlotRef, is_load: bool, span: Span,
               over: tuple[SlotRef, ...] = ()) -> None:
        """`var` written into `ref`; `over`: the slots of the operands its op reads and may
        write its result over (`Interpreter._overwritable`)."""

    def use(self, ref: SlotRef) -> None: ...

    def statement(self) -> None: ...

    def undetermined(self, what: str, span: Span) -> None: ...


# --------------------------------------------------------------------------------------
# the interpreter


@dataclass
class _Yield:
    values: tuple[Value, ...]


@dataclass
class _Return:
    values: tuple[Value, ...]


def _ints(items: Sequence[Scalar], what: str, span: Span) -> list[int]:
    out: list[int] = []
    for v in items:
        if v is None or isinstance(v, float):
            raise InterpreterError(f"{what} must be integers, got {v!r}", span)
        out.append(v)
    return out


def _rc(shape: Sequence[int]) -> tuple[int, int]:
    if len(shape) == 1:
        return 1, shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    raise InterpreterError(f"tiles of rank {len(shape)} are not supported")


def _region(extents: Sequence[int], rank: int, span: Span) -> list[int]:
    """Tile extents expressed in a rank-`rank` tensor: pad or strip leading unit dims."""
    ext = list(extents)
    while len(ext) < rank:
        ext.insert(0, 1)
    while len(ext) > rank and ext[0] == 1:
        ext.pop(0)
    if len(ext) != rank:
        raise InterpreterError(f"a tile of rank {len(extents)} does not fit a tensor of rank {rank}", span)
    return ext


@dataclass
class _PrefetchPlan:
    """The top-level slotted loads of a loop that may run ahead (see the module doc)."""

    scalars: list[ir.AssignStmt]
    loads: list[tuple[int, ir.AssignStmt, int]]  # (statement index, statement, slot count)


@dataclass
class Interpreter:
    """Runs one function; see the module docstring for the model and the options."""

    physical: bool = True
    prefetch: bool = True
    compute: bool = True
    tracer: Tracer | None = None
    max_steps: int = DEFAULT_MAX_STEPS
    max_iterations: int = DEFAULT_MAX_ITERATIONS
    max_elements: int = DEFAULT_MAX_ELEMENTS
    truncate_loops: bool = False
    identity: Mapping[str, int] = field(default_factory=dict)
    """The SPMD identity the run sees: `block_idx`, `block_num`, `subblock_idx` (what
    `tile.get_block_idx` and kin return; `slotsat check` draws them with the inputs)."""

    _env: dict[int, Value] = field(default_factory=dict, init=False)
    _slots: dict[tuple[int, int], tuple[int, TileVal]] = field(default_factory=dict, init=False)
    _gens: Any = field(default_factory=lambda: itertools.count(1), init=False)
    _steps: int = field(default=0, init=False)
    _prefetched: dict[tuple[int, int], TileVal] = field(default_factory=dict, init=False)
    _viewed: list[Array | PagedTensor] = field(default_factory=list, init=False)
    """The tensors `tensor.view` reinterpreted in this run and the views it made (held, so
    identity tests on them stay valid); a store into any of them is not modelled."""
    functions: Mapping[str, ir.Function] = field(default_factory=dict)
    """The program's functions by name: a Group function's run calls its halves from here."""
    _pipes: _Pipes | None = field(default=None, init=False)
    _lane: int = field(default=0, init=False)
    _task: int = field(default=0, init=False)
    """This half's place among its group's halves (`_Baton`)."""
    _target: ir.Var | None = field(default=None, init=False)
    undefined: Undefined = field(default_factory=Undefined)
    """How this run fills data the program never defined, and where it read some (shared with
    the halves of a group)."""
    _gm: bool = field(default=False, init=False)
    tensors_after: dict[str, Array | PagedTensor] = field(default_factory=dict, init=False)
    """The run's tensor arguments as it left them, by parameter name: what a kernel wrote to
    its tensors (GM) is an output whether it returns them or not."""

    # ---- entry

    def run(self, fn: ir.Function, args: Mapping[str, Any] | Sequence[Any]) -> tuple[Value, ...]:
        if fn.type is ir.FunctionType.GROUP and self.compute:
            return self._run_group(fn, args)
        if self.compute:  # symbolic runs hold shapes only
            ensure_interpretable(fn, self.max_elements)
        self._env = {}
        self._slots = {}
        self._viewed = []
        self._steps = 0
        self._bind_params(fn, args)
        result = self._body(fn.body)
        if not isinstance(result, _Return):
            raise InterpreterError(f"function '{fn.name}' ended without return", fn.span)
        self._keep_tensors(fn)
        return result.values

    def _keep_tensors(self, fn: ir.Function) -> None:
        self.tensors_after = {p.name_hint: v for p in fn.params
                              if isinstance(v := self._env.get(p.id), np.ndarray | PagedTensor)}

    def _run_group(self, fn: ir.Function, args: Mapping[str, Any] | Sequence[Any]) -> tuple[Value, ...]:
        """A Group function: its AIC and AIV halves (each AIV lane one) take turns, producer
        first (`group_order`), sharing the tensors (a store writes the tensor in place, as GM is
        shared) and the pipes; a half runs until it ends or pops from an empty pipe, then the
        next half that can go on runs (`_Baton`), so halves that answer each other through pipes
        in both directions interleave as they must; then the group's `return` is evaluated."""
        calls, order = group_order(fn, self.functions)
        self._env = {}
        self._slots = {}
        self._steps = 0
        self._bind_params(fn, args)
        pipes = _Pipes(dual=any(lanes == 2 for _, _, lanes in calls))
        tasks: list[tuple[Interpreter, ir.Function, list[Value]]] = []
        for k in order:
            call, half, lanes = calls[k]
            values = [self._value(a) if isinstance(a, ir.Var | ir.ConstInt) else None for a in call.args]
            for lane in range(lanes):
                child = Interpreter(physical=self.physical, prefetch=self.prefetch, max_steps=self.max_steps,
                                    max_iterations=self.max_iterations, max_elements=self.max_elements,
                                    identity={**self.identity, "subblock_idx": lane},
                                    functions=self.functions, undefined=self.undefined)
                child._pipes = pipes
                child._lane = lane
                child._task = len(tasks)
                tasks.append((child, half, values))
        pipes.baton = _Baton(len(tasks))
        pipes.baton.run([functools.partial(child._run_half, half, values) for child, half, values in tasks])
        left = [f"{n} tile(s) pushed {d} and never popped" for d, n in pipes.pending()]
        if left:
            raise InterpreterError(f"group '{fn.name}': {'; '.join(left)}", fn.span)
        for s in fn.body.stmts:
            if isinstance(s, ir.ReturnStmt):
                self._keep_tensors(fn)
                return tuple(self._value(v) for v in s.values)
        raise InterpreterError(f"function '{fn.name}' ended without return", fn.span)

    def _run_half(self, fn: ir.Function, values: Sequence[Value]) -> None:
        ensure_interpretable(fn, self.max_elements, cross_core=True)
        self._env = {}
        self._slots = {}
        self._steps = 0
        params = fn.params
        if len(values) < len(params) and all(p.type == _COMM_CTX for p in params[len(values):]):
            # the communication contexts slotsat's materialize-dist-tensor-ctx appends to a half
            # the group (checked as written) does not pass: no value, as `random_inputs` draws
            # such a parameter of a function checked alone
            values = [*values, *([None] * (len(params) - len(values)))]
        if len(values) != len(params):
            raise InterpreterError(f"'{fn.name}' takes {len(params)} argument(s); its group passes "
                                   f"{len(values)}", fn.span)
        for p, v in zip(params, values, strict=True):
            self._env[p.id] = v  # the group's tensors themselves: stores write them in place
        self._gm = True
        self._body(fn.body)

    def _bind_params(self, fn: ir.Function, args: Mapping[str, Any] | Sequence[Any]) -> None:
        if isinstance(args, Mapping):
            # a communication context has no value of its own to pass (`_param_value`)
            missing = [p.name_hint for p in fn.params if p.name_hint not in args and p.type != _COMM_CTX]
            if missing:
                raise InterpreterError(f"no value for parameter(s) {', '.join(missing)}", fn.span)
            values: list[Any] = [args.get(p.name_hint) for p in fn.params]
            # a symbolic dimension's value, and a declared valid extent's, by its name
            for v in (*ir.dynamic_dimensions(fn), *ir.valid_shape_symbols(fn)):
                if v.name_hint in args:
                    self._env[v.id] = _canon(int(args[v.name_hint]), DType.INDEX)
        else:
            if len(args) != len(fn.params):
                raise InterpreterError(f"'{fn.name}' takes {len(fn.params)} arguments, got {len(args)}")
            values = list(args)
        pairs = list(zip(fn.params, values, strict=True))
        # scalars first: a tensor's dimension may name a scalar parameter
        for p, v in sorted(pairs, key=lambda pv: isinstance(pv[0].type, ir.TensorType)):
            self._env[p.id] = self._param_value(p, v)
        if self.compute:
            # a paged tensor holds what the runs touch (`paged.PageBudget`)
            shapes = [np.shape(t) for t in self._env.values() if isinstance(t, np.ndarray)]
            total = sum(element_count(sh) for sh in shapes)
            if total > self.max_elements:
                raise InterpreterLimit(f"too large to interpret: the tensor parameters hold {total:,} "
                                       f"elements; the interpreter's limit is {self.max_elements:,} "
                                       "(SLOTSAT_INTERP_MAX_ELEMENTS)", fn.span)

    def _param_value(self, p: ir.Var, v: Any) -> Value:
        t = p.type
        if isinstance(t, ir.TensorType):
            shape = self._shape_of(t)
            if not self.compute:
                return TensorSym(tuple(-1 if d is None else d for d in shape))
            if any(d is None for d in shape):
                raise InterpreterError(f"parameter '{p.name_hint}' has a dynamic shape and the run has no "
                                       "value for its dimensions", p.span)
            if isinstance(v, PagedTensor):
                if v.shape != tuple(shape) or v.dtype != numpy_dtype(t.dtype):
                    raise InterpreterError(f"parameter '{p.name_hint}' expects shape {list(t.shape)} of "
                                           f"pl.{t.dtype.value}, got {list(v.shape)} of {v.dtype}", p.span)
                return v.fresh()
            arr = np.asarray(v)
            if tuple(arr.shape) != tuple(shape):
                raise InterpreterError(f"parameter '{p.name_hint}' expects shape {list(t.shape)}, "
                                       f"got {list(arr.shape)}", p.span)
            return as_dtype(arr, t.dtype)
        if isinstance(t, ir.ScalarType):
            if v is None:
                return None
            return _canon(v, t.dtype)
        if t == _COMM_CTX:
            return None  # a communication context: read only by the distributed ops, never computed with
        if isinstance(t, ir.TileType) and len(t.shape) <= 2:
            return self._tile_param(p, t, v)
        raise InterpreterError(f"parameter '{p.name_hint}' has unsupported type", p.span)

    def _tile_param(self, p: ir.Var, t: ir.TileType, v: Any) -> TileVal:
        """A tile parameter (a function the reference's passes give a tile argument): an array
        of the tile's `[rows, cols]`, valid over the extent its type declares (scalar
        parameters bound before it may name it)."""
        shape = t.rows_cols
        extents = [self.scalar(e) for e in t.effective_valid_shape]
        known = [n for n in extents if isinstance(n, int)]
        rc = _rc(known) if len(known) == len(extents) else None
        if rc is None or not all(0 <= x <= d for x, d in zip(rc, shape, strict=True)):
            raise InterpreterError(f"tile parameter '{p.name_hint}' has a valid shape the run cannot "
                                   "evaluate inside its shape", p.span)
        if not self.compute:
            return TileVal(None, rc, t.dtype, shape)
        arr = np.asarray(v)
        if arr.shape != shape:
            raise InterpreterError(f"tile parameter '{p.name_hint}' expects shape {list(shape)}, got "
                                   f"{list(arr.shape)}", p.span)
        return TileVal(as_dtype(arr.copy(), t.dtype), rc, t.dtype, shape)

    def _shape_of(self, t: ir.TensorType) -> list[int | None]:
        """A tensor type's dimensions in this run (None for a symbolic one with no value)."""
        out: list[int | None] = []
        for d in t.shape:
            if isinstance(d, int):
                out.append(d)
                continue
            try:
                value = eval_scalar(d, lambda v: self._env.get(v.id))  # type: ignore[arg-type,return-value]
            except InterpreterError:
                value = None
            out.append(value if isinstance(value, int) else None)
        return out

    # ---- helpers

    def _lookup(self, v: ir.Var) -> Scalar:
        if v.id not in self._env:
            raise InterpreterError(f"'{v.name_hint}' is used before it is defined", v.span)
        val = self._env[v.id]
        if val is None or isinstance(val, int | float):
            return val
        raise InterpreterError(f"'{v.name_hint}' is not a scalar", v.span)

    def scalar(self, e: ir.Expr) -> Scalar:
        return eval_scalar(e, self._lookup)

    def _value(self, e: ir.Expr) -> Value:
        if isinstance(e, ir.Var):
            if e.id not in self._env:
                raise InterpreterError(f"'{e.name_hint}' is used before it is defined", e.span)
            return self._current(e, self._env[e.id])
        return self.scalar(e)

    def _current(self, v: ir.Var, val: Value) -> Value:
        """`v`'s value as its buffer holds it now: a tile made before an in-place update of its
        buffer (through another name or view) reads the updated contents (`TileBuffer`)."""
        if not isinstance(val, TileVal) or val.buffer is None or val.version == val.buffer.version:
            return val
        buf = val.buffer
        if buf.opaque or val.at is None or val.predicate is not None:
            raise Unmodelled(f"the interpreter does not model a read of '{v.name_hint}' after its buffer was "
                             "updated in place through a view of another layout", v.span)
        r, c = val.at
        whole = val.shape == buf.data.shape
        data = buf.data if whole else buf.data[r:r + val.shape[0], c:c + val.shape[1]]
        fresh = replace(val, data=data, valid=buf.valid if whole else val.valid, predicate=None,
                        version=buf.version)
        self._env[v.id] = fresh
        return fresh

    def _placed(self, c: ir.Call, val: TileVal) -> TileVal:
        """`c`'s result `val` in its buffer: a view or an in-place result shares its source's
        (an in-place update is recorded there, making every older value of it stale), any
        other result has a buffer of its own."""
        buffer, k = ops.buffer_of(c.op)
        src: Value = None
        if buffer in (ops.Buffer.VIEW, ops.Buffer.IN_PLACE) and k is not None and k < len(c.args):
            arg = c.args[k]
            src = self._env.get(arg.id) if isinstance(arg, ir.Var) else None
        if val.data is None:
            return val
        if not isinstance(src, TileVal) or src.buffer is None:
            return val.in_buffer(TileBuffer(val.data, val.valid), (0, 0), 0)
        at = _place_in_buffer(c.op, src, val)
        version = src.buffer.update(at, val) if ops.writes_source(c.op) else src.buffer.version
        return val.in_buffer(src.buffer, at, version)

    def _updated(self, c: ir.Call, val: Value, span: Span) -> None:
        """After a call statement: an op that updates its argument in place (`tile.write`,
        `tile.assemble`, ...) rebinds that argument's name to the update."""
        if not isinstance(val, TileVal) or not ops.writes_source(c.op):
            return
        _, k = ops.buffer_of(c.op)
        arg = c.args[k] if k is not None and k < len(c.args) else None
        if isinstance(arg, ir.Var):
            self._env[arg.id] = self._bind(arg, val, c, span)

    def _tile(self, arg: ir.CallArg, span: Span) -> TileVal:
        if not isinstance(arg, ir.Var):
            raise InterpreterError("expected a tile variable", span)
        val = self._current(arg, self._env.get(arg.id))
        if not isinstance(val, TileVal):
            raise InterpreterError(f"'{arg.name_hint}' is not a tile", span)
        if val.predicate is not None:
            raise Unmodelled(f"'{arg.name_hint}', the packed predicate of a comparison, read as a tile "
                             "(its encoding is target-defined; the interpreter models it as tile.sel's mask "
                             "only)", span)
        return self._read(val)

    def _predicate(self, c: ir.Call) -> Predicate:
        """The comparison the mask of `tile.sel` / `tile.sels` (its first argument) holds; its
        buffer must not have been overwritten."""
        arg, span = c.args[0], c.span
        if not isinstance(arg, ir.Var):
            raise InterpreterError("expected a tile variable", span)
        val = self._current(arg, self._env.get(arg.id))
        if not isinstance(val, TileVal) or val.predicate is None:
            raise Unmodelled(f"{c.op} with the mask '{arg.name_hint}', which is not a tile.cmp / tile.cmps "
                             "result (a mask's encoding is target-defined)", span)
        if self._read(val) is not val:
            raise InterpreterError(f"the mask '{arg.name_hint}' of {c.op} was overwritten in its buffer",
                                   span)
        return val.predicate

    def _read(self, val: TileVal) -> TileVal:
        """The tile as storage holds it now: overwritten slots show the overwriting data."""
        ref = val.backing
        if ref is None or not self.physical:
            return val
        gen, occupant = self._slots[(ref.key, ref.slot)]
        if gen == ref.gen or occupant.backing is ref:
            return val
        if occupant.shape == val.shape and occupant.dtype == val.dtype and occupant.data is not None:
            return TileVal(occupant.data, val.valid, val.dtype, val.shape, ref)
        data = None if val.data is None else _poison(val.shape, val.dtype)
        return TileVal(data, val.valid, val.dtype, val.shape, ref)

    def _tensor(self, arg: ir.CallArg, span: Span) -> Array | PagedTensor | TensorSym:
        if not isinstance(arg, ir.Var):
            raise InterpreterError("expected a tensor variable", span)
        val = self._env.get(arg.id)
        if isinstance(val, np.ndarray | PagedTensor | TensorSym):
            return val
        raise InterpreterError(f"'{arg.name_hint}' is not a tensor", span)

    def _list(self, arg: ir.CallArg | None, what: str, span: Span) -> list[int]:
        if not isinstance(arg, ir.ExprList):
            raise InterpreterError(f"{what} must be a list", span)
        return _ints([self.scalar(x) for x in arg.items], what, span)

    def _tick(self, span: Span) -> None:
        self._steps += 1
        if self._steps > self.max_steps:
            raise InterpreterLimit(f"the interpreter's step limit ({self.max_steps} statements) was reached",
                                   span)
        if self.tracer is not None:
            self.tracer.statement()

    def _trace_uses(self, node: ir.Expr | ir.Call | ir.ExprList) -> None:
        if self.tracer is None:
            return
        for v in ir.expr_vars(node):
            val = self._env.get(v.id)
            if isinstance(val, TileVal) and val.backing is not None:
                self.tracer.use(val.backing)

    # ---- statements

    def _body(self, body: ir.SeqStmts) -> _Yield | _Return | None:
        for s in body.stmts:
            out = self._stmt(s)
            if out is not None:
                return out
        return None

    def _stmt(self, s: ir.Stmt) -> _Yield | _Return | None:
        self._tick(s.span)
        if isinstance(s, ir.AssignStmt):
            self._assign(s)
        elif isinstance(s, ir.EvalStmt):
            self._trace_uses(s.call)
            if s.call.op != "tile.alloc":
                self._updated(s.call, self._call(s.call, None), s.span)
        elif isinstance(s, ir.ForStmt):
            self._for(s)
        elif isinstance(s, ir.IfStmt):
            return self._if(s)
        elif isinstance(s, ir.WhileStmt):
            self._while(s)
        elif isinstance(s, ir.ScopeStmt):
            return self._body(s.body)
        elif isinstance(s, ir.YieldStmt):
            for v in s.values:
                self._trace_uses(v)
            return _Yield(tuple(self._value(v) for v in s.values))
        else:
            for v in s.values:
                self._trace_uses(v)
            return _Return(tuple(self._value(v) for v in s.values))
        return None

    def _assign(self, s: ir.AssignStmt, prefetched: TileVal | None = None) -> None:
        self._trace_uses(s.value)
        if prefetched is not None:
            self._env[s.var.id] = prefetched
            return
        if isinstance(s.value, ir.Call):
            if s.value.op == "tile.alloc":
                self._env[s.var.id] = PtrVal(s.var.name_hint)
                return
            val = self._call(s.value, s.var)
            if isinstance(s.var.type, ir.ScalarType) and s.var.type.dtype.is_int_arith \
                    and type(val) is int:  # an INDEX result bound at another integer dtype wraps
                val = _canon(val, s.var.type.dtype)
        else:
            val = self._value(s.value)
            if isinstance(s.var.type, ir.ScalarType) and isinstance(val, int | float):
                val = _canon(val, s.var.type.dtype)
        self._env[s.var.id] = self._bind(s.var, val, s.value, s.span)

    def _as_declared(self, c: ir.Call, var: ir.Var, val: TileVal) -> TileVal:
        """A fresh tile result over the valid extent its variable's type declares: the device
        computes into a new tile whose valid rows and columns are the type's, whatever its
        operands' valid parts, so where the type declares more than the handler derived, the
        result holds the operands' data there, undefined data included. A view or an
        in-place result keeps the extent its handler derives (the device keeps its source's
        handle: `tile.fillpad_inplace` pads within the handle's own extent though the printed
        type declares the whole tile), and so does a declared extent the run cannot
        evaluate."""
        t = var.type
        if val.data is None or not isinstance(t, ir.TileType) or len(t.shape) > 2 \
                or ops.buffer_of(c.op)[0] is not ops.Buffer.FRESH:
            return val
        declared = [self.scalar(x) for x in t.effective_valid_shape]
        if not all(isinstance(v, int) for v in declared):
            return val
        valid = _rc([int(v) for v in declared])  # type: ignore[arg-type]
        if valid == val.valid or not all(0 <= v <= d for v, d in zip(valid, val.shape, strict=True)):
            return val
        return replace(val, valid=valid)

    def _bind(self, var: ir.Var, val: Value, value: ir.Expr | ir.Call, span: Span) -> Value:
        """Place a new tile in its slot when its type carries a MemRef."""
        t = var.type
        if not (isinstance(t, ir.TileType) and isinstance(val, TileVal)):
            return val
        if t.memref is None or isinstance(value, ir.Var):
            return val  # a copy aliases its source and writes nothing
        ref = self._slot_ref(var, t.memref, span)
        if ref is None:
            return val
        bound = val.with_backing(ref)
        self._slots[(ref.key, ref.slot)] = (ref.gen, bound)
        if self.tracer is not None:
            is_load = isinstance(value, ir.Call) and value.op == "tile.load"
            over = self._overwritable(value, var) if isinstance(value, ir.Call) else ()
            self.tracer.define(var, ref, is_load, span, over)
        return bound

    def _overwritable(self, call: ir.Call, var: ir.Var) -> tuple[SlotRef, ...]:
        """The slots of the tile operands `call` may write its result `var` over while it reads
        them: every one the op table does not forbid (`ops.forbidden_args`: the reference's
        in-place rule, which its memory planner applies too), as an elementwise op computes in
        place on the device."""
        forbidden = {id(a) for a in ops.forbidden_args(call, var)}
        out: list[SlotRef] = []
        for a in call.args:
            if isinstance(a, ir.Var) and id(a) not in forbidden:
                v = self._env.get(a.id)
                if isinstance(v, TileVal) and v.backing is not None:
                    out.append(v.backing)
        return tuple(out)

    def _slot_ref(self, var: ir.Var, m: ir.MemRef, span: Span) -> SlotRef | None:
        if not self.physical and self.tracer is None:
            return None
        k: Scalar = 0
        if m.slot_index is not None:
            k = self.scalar(m.slot_index)
        if k is None or isinstance(k, float):
            if self.tracer is not None:
                self.tracer.undetermined(f"the slot index of '{var.name_hint}' depends on tile data", span)
            return None
        if not 0 <= k < m.slot_count:
            raise InterpreterError(f"slot index {k} of tile '{var.name_hint}' is out of range for "
                                   f"'{m.base.name_hint}', which has {m.slot_count} slot(s)", span)
        return SlotRef(m.base.id, k, next(self._gens), m.base.name_hint, m.slot_count)

    def _while(self, s: ir.WhileStmt) -> None:
        carried = [self._value(ia.init) for ia in s.iter_args]
        for n in itertools.count():
            for ia, val in zip(s.iter_args, carried, strict=True):
                self._env[ia.var.id] = val
            self._trace_uses(s.cond)
            c = self.scalar(s.cond)
            if c is None:
                raise InterpreterError("a while condition depends on tile data", s.span)
            if not c:
                break
            if n >= self.max_iterations:
                raise InterpreterLimit(f"a while loop ran {n} iterations; the interpreter's limit is "
                                       f"{self.max_iterations}", s.span)
            out = self._body(s.body)
            if isinstance(out, _Return):
                raise InterpreterError("return inside a loop body", s.span)
            if s.iter_args:
                if out is None or len(out.values) != len(s.iter_args):
                    raise InterpreterError("a while body did not yield its carried values", s.span)
                previous, carried = carried, list(out.values)
            else:
                previous = carried
            if _same_scalars(s, previous, carried):
                raise InterpreterLimit("a while loop never ends here: an iteration leaves every value "
                                       "its condition reads unchanged, and the condition held", s.span)
        for v, val in zip(s.return_vars, carried, strict=True):
            self._env[v.id] = val

    def _if(self, s: ir.IfStmt) -> _Return | None:
        self._trace_uses(s.cond)
        c = self.scalar(s.cond)
        if c is None:
            if self.tracer is not None:
                self.tracer.undetermined("an if condition depends on tile data; the then branch was taken",
                                         s.span)
            c = 1
        branch = s.then_body if c else s.else_body
        if branch is None:
            return None
        out = self._body(branch)
        if isinstance(out, _Return):
            return out  # a return ending a branch (the reference prints such functions)
        if s.return_vars:
            if out is None or len(out.values) != len(s.return_vars):
                raise InterpreterError("an if branch did not yield its results", s.span)
            for v, val in zip(s.return_vars, out.values, strict=True):
                self._env[v.id] = val
        return None

    def _bounds(self, s: ir.ForStmt) -> tuple[int, int, int] | None:
        for e in (s.start, s.stop, s.step):
            self._trace_uses(e)
        raw = (self.scalar(s.start), self.scalar(s.stop), self.scalar(s.step))
        if any(v is None for v in raw):
            if self.tracer is not None:
                self.tracer.undetermined(f"the bounds of loop '{s.loop_var.name_hint}' depend on tile data",
                                         s.span)
                return None
            raise InterpreterError("loop bounds are unknown", s.span)
        start, stop, step = _ints(raw, "loop bounds", s.span)
        if step == 0:
            raise InterpreterError(f"loop '{s.loop_var.name_hint}' has step 0", s.span)
        return start, stop, step

    def _for(self, s: ir.ForStmt) -> None:
        for ia in s.iter_args:
            self._trace_uses(ia.init)
        carried = [self._value(ia.init) for ia in s.iter_args]
        bounds = self._bounds(s)
        if bounds is None:  # symbolic mode only: the loop is skipped, its results are its inputs
            for v, val in zip(s.return_vars, carried, strict=True):
                self._env[v.id] = val
            return
        start, stop, step = bounds
        trips = max(0, -((start - stop) // step)) if step > 0 else max(0, -((stop - start) // -step))
        plan = self._plan(s) if self.physical and self.prefetch and self.compute else None
        if self.tracer is not None:
            self.tracer.begin_loop(s)
        if trips > self.max_iterations and not self.truncate_loops:
            # known at entry: running the first `max_iterations` iterations would only delay it
            raise InterpreterLimit(f"loop '{s.loop_var.name_hint}' runs {trips} iterations; the "
                                   f"interpreter's limit is {self.max_iterations}", s.span)
        truncated = False
        for n in range(trips):
            if n >= self.max_iterations:
                truncated = True
                break
            iv = start + n * step
            if self.tracer is not None:
                self.tracer.begin_iteration(s, n, iv)
            self._env[s.loop_var.id] = iv
            for ia, val in zip(s.iter_args, carried, strict=True):
                self._env[ia.var.id] = val
            if plan is not None and plan.loads:
                self._issue_prefetch(s, plan, n, (trips, start, step))
            out = self._loop_body(s, plan, n)
            if s.iter_args:
                if out is None or len(out.values) != len(s.iter_args):
                    raise InterpreterError(f"loop '{s.loop_var.name_hint}' body did not yield its carried "
                                           "values", s.span)
                carried = list(out.values)
        if self.tracer is not None:
            self.tracer.end_loop(s, truncated)
        for v, val in zip(s.return_vars, carried, strict=True):
            self._env[v.id] = val

    def _loop_body(self, s: ir.ForStmt, plan: _PrefetchPlan | None, n: int) -> _Yield | None:
        for idx, st in enumerate(s.body.stmts):
            pre = self._prefetched.pop((id(st), n), None) if plan is not None else None
            if pre is not None and isinstance(st, ir.AssignStmt):
                self._tick(st.span)
                self._assign(st, pre)
                continue
            out = self._stmt(st)
            if isinstance(out, _Return):
                raise InterpreterError("return inside a loop body", s.span)
            if out is not None:
                if idx != len(s.body.stmts) - 1:
                    raise InterpreterError("pl.yield_ must be the last statement", st.span)
                return out
        return None

    # ---- prefetch (see the module docstring)

    def _plan(self, s: ir.ForStmt) -> _PrefetchPlan:
        ring = run_ahead_loads(s)
        ok: set[int] = {s.loop_var.id}
        body_defined = {st.var.id for st in ir.walk_stmts(s.body) if isinstance(st, ir.AssignStmt)}
        body_defined |= {ia.var.id for ia in s.iter_args}
        for st in ir.walk_stmts(s.body):
            if isinstance(st, ir.ForStmt):
                body_defined |= {st.loop_var.id, *(ia.var.id for ia in st.iter_args),
                                 *(v.id for v in st.return_vars)}
            elif isinstance(st, ir.IfStmt):
                body_defined |= {v.id for v in st.return_vars}
            elif isinstance(st, ir.WhileStmt):
                body_defined |= {*(ia.var.id for ia in st.iter_args), *(v.id for v in st.return_vars)}

        def free(node: Any) -> bool:
            return all(v.id in ok or v.id not in body_defined for v in ir.expr_vars(node))

        plan = _PrefetchPlan([], [])
        for idx, st in enumerate(s.body.stmts):
            if not isinstance(st, ir.AssignStmt):
                continue
            t = st.var.type
            if isinstance(t, ir.ScalarType) and not isinstance(st.value, ir.Call) and free(st.value):
                ok.add(st.var.id)
                plan.scalars.append(st)
                continue
            if not (isinstance(t, ir.TileType) and t.memref is not None and t.memref.slot_count > 1):
                continue
            if st.var.id not in ring:
                continue
            if all(free(d) for d in _load_deps(st)):
                plan.loads.append((idx, st, t.memref.slot_count))
        # Keep only the scalar assignments the early loads read (transitively), in order.
        needed = {v.id for _, st, _ in plan.loads for d in _load_deps(st) for v in ir.expr_vars(d)}
        kept: list[ir.AssignStmt] = []
        for st in reversed(plan.scalars):
            if st.var.id in needed:
                kept.append(st)
                needed |= {v.id for v in ir.expr_vars(_expr(st.value))}
        plan.scalars = kept[::-1]
        return plan

    def _issue_prefetch(self, s: ir.ForStmt, plan: _PrefetchPlan, n: int,
                        shape: tuple[int, int, int]) -> None:
        trips, start, step = shape
        saved_iv = self._env[s.loop_var.id]
        saved = {st.var.id: self._env.get(st.var.id) for st in plan.scalars}
        try:
            horizon = max(f for _, _, f in plan.loads)
            for m in range(n, min(trips, n + horizon)):
                self._env[s.loop_var.id] = start + m * step
                for st in plan.scalars:
                    self._env[st.var.id] = _canon_scalar(st.var, self.scalar(_expr(st.value)))
                for _, st, f in plan.loads:
                    if m >= n + f or (id(st), m) in self._prefetched:
                        continue
                    val = self._call(_call(st.value), st.var)
                    self._prefetched[(id(st), m)] = _tile_of(self._bind(st.var, val, st.value, st.span))
        finally:
            self._env[s.loop_var.id] = saved_iv
            for k, v in saved.items():
                if v is None:
                    self._env.pop(k, None)
                else:
                    self._env[k] = v

    # ---- calls

    def _call(self, c: ir.Call, target: ir.Var | None) -> Value:
        if not self.compute:
            return self._symbolic_call(c, target)
        handler = _HANDLERS.get(c.op)
        reason = unmodelled_call(c)
        if c.op in _CROSS_CORE and self._pipes is not None and handler is not None:
            reason = _cross_core_form(c)
        if handler is None or reason is not None:
            raise Unmodelled(f"the interpreter does not model {reason}", c.span)
        self._target = target
        val = handler(self, c)
        if not isinstance(val, TileVal):
            return val
        return self._placed(c, val if target is None else self._as_declared(c, target, val))

    def _symbolic_call(self, c: ir.Call, target: ir.Var | None) -> Value:
        if target is None:
            return None
        t = target.type
        if isinstance(t, ir.TileType):
            rc = t.rows_cols
            valid = tuple(self.scalar(x) for x in t.effective_valid_shape)
            vrc = _rc([v if isinstance(v, int) else d for v, d in zip(valid, t.shape, strict=True)])
            ref: SlotRef | None = None
            spec_arg = _inherited_var(c)
            if spec_arg is not None:
                src = self._env.get(spec_arg.id)
                if isinstance(src, TileVal):
                    ref = src.backing
            return TileVal(None, vrc, t.dtype, rc, ref)
        if isinstance(t, ir.TensorType):
            return TensorSym(tuple(d if isinstance(d, int) else -1 for d in t.shape))
        return None


def _place_in_buffer(op: str, src: TileVal, val: TileVal) -> tuple[int, int] | None:
    """Where `op`'s result `val`, a view or in-place result of `src`, sits in their buffer:
    `tile.slice` at its window's offset (its handler sets `val.at`), another op of the
    source's shape and dtype where the source sits; None for a view of another layout
    (a reshape to another shape, a transposed or reinterpreted view)."""
    if src.at is None or val.at is None or val.dtype != src.dtype or op == "tile.transpose_view":
        return None
    if op == "tile.slice":
        return src.at[0] + val.at[0], src.at[1] + val.at[1]
    return src.at if val.shape == src.shape else None


def _load_deps(st: ir.AssignStmt) -> list[Any]:
    """What a slotted load reads: its call, its slot index and its valid shape."""
    deps: list[Any] = [st.value]
    t = st.var.type
    if isinstance(t, ir.TileType):
        if t.memref is not None and t.memref.slot_index is not None:
            deps.append(t.memref.slot_index)
        deps.extend(t.valid_shape or ())
    return deps


def _inherited_var(c: ir.Call) -> ir.Var | None:
    k = ops.inherited_arg(c.op)
    if k is None or k >= len(c.args) or c.op == "tile.store":
        return None
    arg = c.args[k]
    return arg if isinstance(arg, ir.Var) else None


def _expr(v: ir.Expr | ir.Call) -> ir.Expr:
    assert not isinstance(v, ir.Call)
    return v


def _call(v: ir.Expr | ir.Call) -> ir.Call:
    assert isinstance(v, ir.Call)
    return v


def _tile_of(v: Value) -> TileVal:
    assert isinstance(v, TileVal)
    return v


def _canon_scalar(var: ir.Var, v: Scalar) -> Scalar:
    if v is None or not isinstance(var.type, ir.ScalarType):
        return v
    return _canon(v, var.type.dtype)


# --------------------------------------------------------------------------------------
# op handlers


def _space_arg(c: ir.Call) -> ir.MemorySpace | None:
    sp = c.kwarg("target_memory")
    return sp.space if isinstance(sp, ir.SpaceArg) else None


def _op_load(it: Interpreter, c: ir.Call) -> Value:
    tensor = it._tensor(c.args[0], c.span)
    offsets = it._list(c.args[1], "load offsets", c.span)
    shape = it._list(c.args[2], "load shape", c.span)
    vs_arg = c.args[3] if len(c.args) > 3 else c.kwarg("valid_shape")
    valid = it._list(vs_arg, "load valid shape", c.span) if vs_arg is not None else list(shape)
    if isinstance(tensor, TensorSym):
        raise InterpreterError("symbolic tensor in a computing run", c.span)
    if len(valid) != len(shape) or any(v < 0 or v > d for v, d in zip(valid, shape, strict=True)):
        raise _misfit(c, _spelled(vs_arg), valid, shape,
                      f"load valid shape {valid} does not fit the tile shape {shape}")
    if ops.load_clamped(c) and len(offsets) == tensor.ndim == len(valid):
        # the request cut back to the source's edge (`window_reads.load_valid`'s clamp)
        valid = [max(0, min(v, d - o)) for v, d, o in zip(valid, tensor.shape, offsets, strict=True)]
    rank = tensor.ndim
    if len(offsets) != rank:
        raise InterpreterError(f"load has {len(offsets)} offsets for a tensor of rank {rank}", c.span)
    region: Array
    if len(shape) > 2:
        # A rank-N window (the reference's FlattenTileNdTo2D form): a 2-D tile of the merged
        # shape, its rows the window's leading dimensions in order.
        (rows, cols), (vr, vc) = _merged(shape), _merged(valid)
        region = _window(tensor, offsets, valid, "load reads", c)
    else:
        ext = _region(valid, rank, c.span)
        for k, (o, e, d) in enumerate(zip(offsets, ext, tensor.shape, strict=True)):
            if e > 0 and (o < 0 or o + e > d):
                raise _outside(c, k, o + e, d, f"load reads rows/columns [{o}, {o + e}) outside a tensor "
                               f"dimension of size {d} (offsets {offsets}, valid shape {valid})")
        region = tensor[tuple(slice(o, o + e) for o, e in zip(offsets, ext, strict=True))]
        (rows, cols), (vr, vc) = _rc(shape), _rc(valid)
    if (vr, vc) == (rows, cols):
        data = np.empty((rows, cols), dtype=tensor.dtype)
    else:
        # the copy engine writes the valid part only: the rest holds what the buffer held
        what = (f"tile.load at {c.span.line}:{c.span.col}: the tile's part outside its valid shape "
                f"{[vr, vc]}, which the load does not write")
        data = it.undefined.data((rows, cols), _tensor_dtype(c.args[0]), what, zeros_first=True)
    data[:vr, :vc] = region.reshape(vr, vc)
    narrowed = _narrowed_valid(it, c, (vr, vc))
    if narrowed is not None:
        # a tensor that declares a valid shape: the read is the requested extent, the tile is
        # valid in the (smaller) extent its type gives (`slotsat.core.dsl.window_reads`)
        vr, vc = narrowed
    return TileVal(data, (vr, vc), _tensor_dtype(c.args[0]), (rows, cols))


def _narrowed_valid(it: Interpreter, c: ir.Call, read: tuple[int, int]) -> tuple[int, int] | None:
    """The valid extent the load's result type gives when its source declares a valid shape
    and the type is narrower than the read, else None."""
    src, target = c.args[0], it._target
    if not (isinstance(src, ir.Var) and isinstance(src.type, ir.TensorType) and src.type.view is not None
            and src.type.view.valid_shape and target is not None and isinstance(target.type, ir.TileType)):
        return None
    valid = [it.scalar(e) for e in target.type.effective_valid_shape]
    if not all(isinstance(v, int) for v in valid):
        return None
    vr, vc = _rc([int(v) for v in valid])  # type: ignore[arg-type]
    if vr > read[0] or vc > read[1]:
        raise InterpreterError(f"the load's type is valid in {[vr, vc]}, more than the {list(read)} it reads",
                               c.span)
    return (vr, vc) if (vr, vc) != read else None


def _merged(shape: Sequence[int]) -> tuple[int, int]:
    """A rank-N window's extent as a 2-D tile: the leading entries multiplied into the rows."""
    return math.prod(shape[:-1]), shape[-1]


def _window_addresses(tensor: Array | PagedTensor, offsets: Sequence[int], extents: Sequence[int], what: str,
                      c: ir.Call) -> Array:
    """The flat element addresses of the rank-N window of `tensor` at `offsets` with
    `extents`, as `pto.partition_view` addresses it: through the tensor's row-major strides, so
    a window entry may run past its own dimension into the next (the collapsed-dims window
    FlattenTileNdTo2D writes: a [1, 6, 8] window of a [2, 3, 8] tensor is its 48 elements).
    A window that leaves the tensor's storage is an `InterpreterError`."""
    strides = [math.prod(tensor.shape[k + 1:]) for k in range(tensor.ndim)]
    address = np.zeros(tuple(extents), dtype=np.int64)
    for k, (o, e) in enumerate(zip(offsets, extents, strict=True)):
        axis = [1] * len(extents)
        axis[k] = e
        address = address + ((o + np.arange(e, dtype=np.int64)) * strides[k]).reshape(axis)
    if bool(np.any((address < 0) | (address >= tensor.size))):
        message = (f"{what} outside the tensor (offsets {list(offsets)}, window {list(extents)} "
                   f"of a tensor of shape {list(tensor.shape)})")
        past = [k for k, (o, e, d) in enumerate(zip(offsets, extents, tensor.shape, strict=True))
                if o + e > d]
        if past:  # the outermost axis the window runs past
            k = past[0]
            raise _outside(c, k, offsets[k] + extents[k], tensor.shape[k], message)
        raise InterpreterError(message, c.span)
    return address


def _window(tensor: Array | PagedTensor, offsets: Sequence[int], extents: Sequence[int], what: str,
            c: ir.Call) -> Array:
    """The elements of a rank-N window (`_window_addresses`) `c` reads, shaped as the window."""
    return np.asarray(tensor.reshape(-1)[_window_addresses(tensor, offsets, extents, what, c)])


INDEXED: dict[str, tuple[int, int]] = {
    "tensor.read": (0, 1), "tensor.write": (0, 1), "tile.read": (0, 1), "tile.write": (0, 1),
    "tile.load": (0, 1), "tile.store": (2, 1), "tile.gather_row": (1, 3),
}
"""Ops addressing an operand by indices or offsets: (the operand, the index list)."""

def _outside(c: ir.Call, axis: int, end: int, size: int, message: str) -> InterpreterError:
    """The fault of `c` reaching `end` past `axis` of its tensor argument (of `size` there): an
    `OutOfBounds` naming the tensor argument and the index expression on that axis, for an op
    that addresses a tensor by an index list (`INDEXED`)."""
    where = INDEXED.get(c.op)
    if where is None or end <= size:
        return InterpreterError(message, c.span)
    indices = c.args[where[1]] if where[1] < len(c.args) else None
    index = indices.items[axis] if isinstance(indices, ir.ExprList) and axis < len(indices.items) else None
    return OutOfBounds(message, c.span, Overrun(c.args[where[0]], axis, end, size, index))


def run_ahead_loads(loop: ir.ForStmt) -> frozenset[int]:
    """The top-level `tile.load`s of `loop`'s body (by the binder they define) that may run up to
    `F - 1` iterations ahead: each binds an allocation of `F > 1` slots that the body loads into
    once per iteration, a multi-buffer ring (the form the slots pass makes and ptoas's region
    pipelines). An allocation the body loads into twice per iteration is no ring: slotsat's code
    generator refuses it as a region when both are live at once, and the reference gives each
    tile its own computed address, whose accesses ptoas keeps in program order. Shared by the
    prefetch order and the privacy checker (`analysis/privacy.py`)."""
    loads: dict[int, int] = {}
    for st in ir.walk_stmts(loop.body):
        t = st.var.type if isinstance(st, ir.AssignStmt) else None
        if (isinstance(t, ir.TileType) and t.memref is not None and isinstance(st.value, ir.Call)  # type: ignore[union-attr]
                and st.value.op == "tile.load"):  # type: ignore[union-attr]
            loads[t.memref.base.id] = loads.get(t.memref.base.id, 0) + 1
    out: set[int] = set()
    for st in loop.body.stmts:
        t = st.var.type if isinstance(st, ir.AssignStmt) else None
        if (isinstance(t, ir.TileType) and t.memref is not None and t.memref.slot_count > 1
                and isinstance(st.value, ir.Call) and st.value.op == "tile.load"  # type: ignore[union-attr]
                and loads.get(t.memref.base.id) == 1):
            out.add(st.var.id)  # type: ignore[union-attr]
    return frozenset(out)


def _misfit(c: ir.Call, extents: Sequence[object], values: Sequence[int], limits: Sequence[int],
            message: str) -> InterpreterError:
    """The fault of `c` computing a valid extent outside `[0, limit]`: an `ExtentOutOfRange`
    naming the first such extent's expression (`extents`, as `c` spells them), a plain
    `InterpreterError` when it spells none."""
    for e, v, hi in zip(extents, values, limits, strict=False):
        if not 0 <= v <= hi and isinstance(e, ir.SCALAR_EXPRS):
            return ExtentOutOfRange(message, c.span, Misfit(e, v, 0, hi))
    return InterpreterError(message, c.span)


def _spelled(arg: object) -> list[object]:
    """The entries of an op's list argument (none for anything else)."""
    return list(arg.items) if isinstance(arg, ir.ExprList) else []


def _check_index(c: ir.Call, idx: Sequence[int], shape: Sequence[int], message: str) -> None:
    """Fault unless `idx` is one element of a tensor of `shape` (`_outside` for the first axis
    it passes the end of)."""
    if len(idx) != len(shape):
        raise InterpreterError(message, c.span)
    for k, (i, d) in enumerate(zip(idx, shape, strict=True)):
        if not 0 <= i < d:
            raise _outside(c, k, i + 1, d, message)


def _tensor_dtype(arg: ir.CallArg) -> DType:
    assert isinstance(arg, ir.Var)
    t = arg.type
    assert isinstance(t, ir.TensorType | ir.TileType | ir.ScalarType)
    return t.dtype


def _op_store(it: Interpreter, c: ir.Call) -> Value:
    tile = it._tile(c.args[0], c.span)
    offsets = it._list(c.args[1], "store offsets", c.span)
    tensor = it._tensor(c.args[2], c.span)
    _no_viewed_store(it, tensor, c)
    if isinstance(tensor, TensorSym) or tile.data is None:
        raise InterpreterError("symbolic value in a computing run", c.span)
    rank = tensor.ndim
    if len(offsets) != rank:
        raise InterpreterError(f"store has {len(offsets)} offsets for a tensor of rank {rank}", c.span)
    vr, vc = tile.valid
    if len(c.args) > 3:
        return _store_window(it, c, tile, offsets, tensor)
    dtype = _tensor_dtype(c.args[2])
    ext = _region([vr, vc], rank, c.span)
    for k, (o, e, d) in enumerate(zip(offsets, ext, tensor.shape, strict=True)):
        if e > 0 and (o < 0 or o + e > d):
            raise _outside(c, k, o + e, d, f"store writes [{o}, {o + e}) outside a tensor dimension of size "
                           f"{d} (offsets {offsets}, valid shape [{vr}, {vc}])")
    out = tensor  # the result reuses the destination's buffer: every name of it sees the store
    window = tuple(slice(o, o + e) for o, e in zip(offsets, ext, strict=True))
    out[window] = _stored(c, out[window], tile.data[:vr, :vc].reshape(ext), dtype)
    return out


def _store_window(it: Interpreter, c: ir.Call, tile: TileVal, offsets: list[int],
                  tensor: Array | PagedTensor) -> Value:
    """`tile.store` with the reference's rank-N window (its 4th argument, `shapes`): the
    window (`_window_addresses`) receives the tile's valid region, which must be exactly the
    window merged to 2-D; a tile whose valid region differs is not modelled."""
    assert tile.data is not None
    shapes = it._list(c.args[3], "store shapes", c.span)
    if len(shapes) != tensor.ndim:
        raise InterpreterError(f"store has {len(shapes)} shapes for a tensor of rank {tensor.ndim}", c.span)
    if _merged(shapes) != tile.valid:
        raise InterpreterError(f"store window {shapes} does not match the tile's valid shape "
                               f"{list(tile.valid)}: not modelled", c.span)
    address = _window_addresses(tensor, offsets, shapes, "store writes", c)
    dtype = _tensor_dtype(c.args[2])
    vr, vc = tile.valid
    if isinstance(tensor, PagedTensor):  # its flat view shares its pages: written in place
        view = tensor.reshape(-1)
        view[address] = _stored(c, view[address], tile.data[:vr, :vc].reshape(address.shape), dtype)
        return tensor
    flat = tensor.reshape(-1).copy()
    flat[address] = _stored(c, flat[address], tile.data[:vr, :vc].reshape(address.shape), dtype)
    tensor[...] = flat.reshape(tensor.shape)  # in place, as `_op_store`
    return tensor


def _stored(c: ir.Call, old: Array, part: Array, dtype: DType) -> Array:
    """What a store `c` leaves in the destination elements `old` from the tile's `part`: the
    part at the tensor's dtype, or with `atomic=pl.AtomicType.Add` the exact sum wrapped to it."""
    if _atomic(c) == "Add":
        return as_dtype(old.astype(np.float64 if dtype.is_float else object) + as_dtype(part, dtype), dtype)
    return as_dtype(part, dtype)


def _atomic(c: ir.Call) -> str:
    """The `atomic=` member of a store (`None_` when absent)."""
    value = c.kwarg("atomic")
    return value.member if isinstance(value, ir.EnumArg) else "None_"


def _need_data(t: TileVal) -> Array:
    assert t.data is not None
    return t.data


def _float_only(name: str, t: TileVal, c: ir.Call) -> None:
    if not t.dtype.is_float:
        raise InterpreterError(f"'{c.op}' on {t.dtype.value} tiles is not modelled", c.span)
    del name


_UNARY: dict[str, Callable[[Array], Array]] = {
    "tile.exp": np.exp,
    "tile.log": np.log,
    "tile.sqrt": np.sqrt,
    "tile.rsqrt": lambda a: 1.0 / np.sqrt(a),
    "tile.recip": lambda a: 1.0 / a,
    "tile.abs": np.abs,
    "tile.neg": np.negative,
    "tile.relu": lambda a: np.maximum(a, np.zeros_like(a)),
}
_FLOAT_UNARY = frozenset({"tile.exp", "tile.log", "tile.sqrt", "tile.rsqrt", "tile.recip"})


def _op_unary(it: Interpreter, c: ir.Call) -> Value:
    t = it._tile(c.args[0], c.span)
    if c.op in _FLOAT_UNARY:
        _float_only(c.op, t, c)
    with np.errstate(all="ignore"):
        data = _UNARY[c.op](_need_data(t))
    return TileVal(as_dtype(data, t.dtype), t.valid, t.dtype, t.shape)


def _int_div(a: Array, b: Array, span: Span, valid: tuple[int, int] | None) -> Array:
    """An integer tile quotient, truncated toward zero as the device divides (the golden of the
    reference's runtime test, test_div.py: `torch.div(lhs, rhs, rounding_mode="trunc")`; its
    debug torch code stores a true quotient into an integer tensor, which truncates too),
    before the caller wraps it to the dtype. A zero divisor inside `valid` (the result's valid
    region; None: the whole tile) is a fault; outside it the quotient is 0, as no element
    there is part of the result."""
    region = (slice(0, valid[0]), slice(0, valid[1])) if valid is not None else (slice(None),) * b.ndim
    if np.any(b[region] == 0):
        raise InterpreterError("integer division by zero in a tile", span)
    safe = np.where(b == 0, 1, b)
    if a.dtype.kind == "u" and safe.dtype.kind == "u":
        return np.where(b == 0, 0, a // safe)
    wa, wb = a.astype(np.int64), safe.astype(np.int64)
    quotient = np.abs(wa) // np.abs(wb)
    return np.where(b == 0, 0, np.where((wa < 0) != (wb < 0), -quotient, quotient))


def _binary(op: str, a: Array, b: Array, span: Span, valid: tuple[int, int] | None = None) -> Array:
    """`a op b` elementwise for the binary tile ops (by the op's name suffix), in the arrays'
    own dtypes; an integer division's zero divisor faults only inside `valid` (`_int_div`)."""
    with np.errstate(all="ignore"):
        if op.endswith("add"):
            return a + b
        if op.endswith("sub"):
            return a - b
        if op.endswith("mul"):
            return a * b
        if op.endswith("div"):
            return _int_div(a, b, span, valid) if a.dtype.kind in "iu" else a / b
        if op.startswith("tile.max"):
            return np.maximum(a, b)
        return np.minimum(a, b)


def _tile_pair(it: Interpreter, c: ir.Call) -> tuple[TileVal, TileVal, tuple[int, int]]:
    """The two tile operands of an elementwise op (one shape, one dtype) and the region where
    both are valid."""
    a, b = it._tile(c.args[0], c.span), it._tile(c.args[1], c.span)
    if a.shape != b.shape or a.dtype != b.dtype:
        raise InterpreterError(f"'{c.op}' operands differ in shape or dtype", c.span)
    return a, b, (min(a.valid[0], b.valid[0]), min(a.valid[1], b.valid[1]))


def _op_binary(it: Interpreter, c: ir.Call) -> Value:
    a, b, valid = _tile_pair(it, c)
    data = _binary(c.op, _need_data(a), _need_data(b), c.span, valid)
    return TileVal(as_dtype(data, a.dtype), valid, a.dtype, a.shape)


def _scalar_operand(it: Interpreter, c: ir.Call, k: int) -> int | float:
    """The value of the call's scalar argument `k`."""
    arg = c.args[k]
    if not isinstance(arg, ir.SCALAR_EXPRS):
        raise InterpreterError(f"'{c.op}' needs a scalar operand", c.span)
    s = it.scalar(arg)  # type: ignore[arg-type]
    if s is None:
        raise InterpreterError(f"'{c.op}' scalar operand is unknown", c.span)
    return s


def _op_scalar(it: Interpreter, c: ir.Call) -> Value:
    t = it._tile(c.args[0], c.span)
    s = _scalar_operand(it, c, 1)
    data = _need_data(t)
    fill = t.dtype.wrap(int(s)) if t.dtype.is_int else s
    sv = np.full(data.shape, fill, dtype=data.dtype)
    out = _binary(c.op[:-1], data, sv, c.span, t.valid)
    return TileVal(as_dtype(out, t.dtype), t.valid, t.dtype, t.shape)


_BITWISE: dict[str, Callable[[Array, Array], Array]] = {
    "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
    "shl": np.left_shift, "shr": np.right_shift,
}
"""The integer bit ops of tiles (`tile.and`, `tile.ands`, ...), by their name without the
`tile.` prefix and the scalar form's `s`."""


def _bit_operands(it: Interpreter, c: ir.Call) -> tuple[str, TileVal, Array, tuple[int, int]]:
    """The bit op's kind, its tile, its second operand as an array of the tile's shape and
    dtype (a tile, or the scalar form's scalar at every element) and the valid region. The
    scalar form's scalar is converted to the tile's dtype, as the reference's `tile.ands(t, k)`
    stamps a literal with it; `tile.xor` / `tile.xors`'s third argument is the ISA's scratch
    tile, which holds no result."""
    name = c.op.removeprefix("tile.")
    kind = name if name in _BITWISE else name[:-1]
    t = it._tile(c.args[0], c.span)
    if not t.dtype.is_int:
        raise InterpreterError(f"'{c.op}' on {t.dtype.value} tiles is not modelled", c.span)
    if kind == name:
        t, other, valid = _tile_pair(it, c)
        return kind, t, _need_data(other), valid
    s = _scalar_operand(it, c, 1)
    data = _need_data(t)
    return kind, t, np.full(data.shape, t.dtype.wrap(int(s)), dtype=data.dtype), t.valid


def _op_bitwise(it: Interpreter, c: ir.Call) -> Value:
    """`tile.and` / `or` / `xor` / `shl` / `shr` and their scalar forms, on integer tiles,
    wrapping at the dtype. A shift amount of the valid region outside `[0, bits)` is a fault
    (the ISA takes a non-negative amount; C++ leaves one of `bits` or more undefined); a right
    shift of a negative element is not modelled (the ISA's `>>` does not say whether it is
    arithmetic or logical)."""
    kind, t, b, valid = _bit_operands(it, c)
    a = _need_data(t)
    vr, vc = valid
    if kind in ("shl", "shr"):
        bits = t.dtype.bits
        amounts = b[:vr, :vc].astype(np.int64)
        outside = amounts[(amounts < 0) | (amounts >= bits)]
        if outside.size:
            bad = int(outside[0])
            raise InterpreterError(f"'{c.op}' shifts by {bad}, outside [0, {bits})", c.span)
        if kind == "shr" and t.dtype.is_signed and bool((a[:vr, :vc] < 0).any()):
            raise Unmodelled(f"'{c.op}' of a negative {t.dtype.value} element (the ISA does not say "
                             "whether its right shift is arithmetic or logical)", c.span)
        b = np.where((b >= 0) & (b < bits), b, 0).astype(a.dtype)
    if kind == "shl":  # shifted as unsigned bits, so a signed element wraps without overflow
        unsigned = np.dtype(f"u{a.dtype.itemsize}")
        data = np.left_shift(a.view(unsigned), b.astype(unsigned)).view(a.dtype)
    else:
        data = _BITWISE[kind](a, b)
    return TileVal(data, valid, t.dtype, t.shape)


def _op_not(it: Interpreter, c: ir.Call) -> Value:
    """`tile.not`: the bitwise complement of an integer tile."""
    t = it._tile(c.args[0], c.span)
    if not t.dtype.is_int:
        raise InterpreterError(f"'{c.op}' on {t.dtype.value} tiles is not modelled", c.span)
    return TileVal(np.bitwise_not(_need_data(t)), t.valid, t.dtype, t.shape)


def _op_array_create(it: Interpreter, c: ir.Call) -> Value:
    """`array.create(N, dtype=T)`: N elements, none written yet."""
    extent = c.args[0] if c.args else None
    dtype = c.kwarg("dtype")
    n = it.scalar(extent) if isinstance(extent, ir.SCALAR_EXPRS) else None  # type: ignore[arg-type]
    if not isinstance(n, int) or not isinstance(dtype, ir.DTypeArg) or n < 0:
        raise InterpreterError("array.create needs a known extent and dtype=", c.span)
    return ArrayVal(np.zeros(n, dtype=numpy_dtype(dtype.dtype)), np.zeros(n, dtype=bool), dtype.dtype)


def _array_element(it: Interpreter, c: ir.Call) -> tuple[ArrayVal, int]:
    """The array operand of `array.get_element` / `update_element` and its element index, which
    must lie inside it."""
    arr = it._value(c.args[0]) if isinstance(c.args[0], ir.Var) else None
    if not isinstance(arr, ArrayVal):
        raise InterpreterError(f"'{c.op}' needs an array", c.span)
    arg = c.args[1]
    index = it.scalar(arg) if isinstance(arg, ir.SCALAR_EXPRS) else None  # type: ignore[arg-type]
    if not isinstance(index, int):
        raise InterpreterError(f"'{c.op}' needs an integer index", c.span)
    if not 0 <= index < arr.data.size:
        raise InterpreterError(f"{c.op} index {index} is outside an array of {arr.data.size} elements",
                               c.span)
    return arr, index


def _op_array_get(it: Interpreter, c: ir.Call) -> Value:
    """`array.get_element(a, i)`: element `i`; one never written is undefined data."""
    arr, index = _array_element(it, c)
    if not arr.written[index]:
        what = f"array.get_element at {c.span.line}:{c.span.col} reads an element never written"
        return it.undefined.data((1,), arr.dtype, what).reshape(-1)[0].item()  # type: ignore[no-any-return]
    return arr.data[index].item()  # type: ignore[no-any-return]


def _op_array_update(it: Interpreter, c: ir.Call) -> Value:
    """`array.update_element(a, i, v)`: a new array, `a` with element `i` set to `v` (wrapped or
    rounded to the element's dtype)."""
    arr, index = _array_element(it, c)
    value = _scalar_operand(it, c, 2)
    data, written = arr.data.copy(), arr.written.copy()
    if arr.dtype.is_int:
        data[index] = arr.dtype.wrap(int(value))
    else:
        data[index] = as_dtype(np.array([value]), arr.dtype)[0]
    written[index] = True
    return ArrayVal(data, written, arr.dtype)


def _op_row_reduce(it: Interpreter, c: ir.Call) -> Value:
    t = it._tile(c.args[0], c.span)
    vr, vc = t.valid
    data = _need_data(t)
    rows = t.shape[0]
    out = np.zeros((rows, 1), dtype=data.dtype)
    if vc > 0:
        part = data[:vr, :vc]
        with np.errstate(all="ignore"):
            if c.op == "tile.row_sum":
                red = part.astype(np.float64).sum(axis=1) if t.dtype.is_float else part.sum(axis=1)
            elif c.op == "tile.row_prod":
                red = part.astype(np.float64).prod(axis=1) if t.dtype.is_float else part.prod(axis=1)
            elif c.op == "tile.row_max":
                red = part.max(axis=1)
            else:
                red = part.min(axis=1)
        out[:vr, 0] = as_dtype(np.asarray(red), t.dtype)
    return TileVal(as_dtype(out, t.dtype), (vr, 1), t.dtype, (rows, 1))


def _expdif(a: Array, b: Array, t: TileVal, c: ir.Call) -> Array:
    """`exp(a - b)` of the `*_expand_expdif` ops (the reference's tile_ops.py: `exp(tile[i, :] -
    row_vec[i, 0])`, `exp(tile[:, j] - col_vec[0, j])`), in the float dtype of `t`."""
    _float_only(c.op, t, c)
    with np.errstate(all="ignore"):
        return as_dtype(np.exp(a - b), t.dtype)


def _op_row_expand(it: Interpreter, c: ir.Call) -> Value:
    """The row-broadcast family `tile.row_expand_add(t, row[, tmp])` / `sub` / `mul` / `div` /
    `max` / `min` / `expdif`: `t[r, c] op row[r, 0]` for an `[R, 1]` row operand. For
    `tile.row_expand_add` the row operand may also be a row-major carrier of one 32-byte block
    per row (`[R, 32 / sizeof]`), whose lanes repeat across the row, `t[r, c] + row[r, c % K]`,
    and a scratch tile may follow (the reference's runtime test test_row_expand_add.py covers
    both PTOAS signatures and both carriers)."""
    t, r = it._tile(c.args[0], c.span), it._tile(c.args[1], c.span)
    if len(c.args) > 2:
        it._tile(c.args[2], c.span)  # the scratch tile
    lanes = 32 // t.dtype.nbytes if c.op == "tile.row_expand_add" else 1
    if r.shape[0] != t.shape[0] or r.shape[1] not in (1, lanes):
        raise InterpreterError(f"'{c.op}' needs a [{t.shape[0]}, 1] row operand", c.span)
    # a row's lanes repeated across the row (an `[R, 1]` operand has one lane)
    col = np.tile(_need_data(r), (1, -(-t.shape[1] // r.shape[1])))[:, :t.shape[1]]
    if c.op == "tile.row_expand_expdif":
        return TileVal(_expdif(_need_data(t), col, t, c), t.valid, t.dtype, t.shape)
    data = _binary(c.op.replace("row_expand_", ""), _need_data(t), col, c.span, t.valid)
    return TileVal(as_dtype(data, t.dtype), t.valid, t.dtype, t.shape)


def _matmul(lhs: TileVal, r: TileVal, c: ir.Call) -> tuple[Array, tuple[int, int]]:
    if lhs.shape[1] != r.shape[0]:
        raise InterpreterError(f"'{c.op}' inner dimensions differ: {lhs.shape} x {r.shape}", c.span)
    k = min(lhs.valid[1], r.valid[0])
    a, b = _need_data(lhs)[:, :k], _need_data(r)[:k, :]
    if lhs.dtype.is_float:
        prod = a.astype(np.float64) @ b.astype(np.float64)
    else:
        prod = _int_product(a, b)
    return prod, (lhs.valid[0], r.valid[1])


_EXACT_FLOAT = 1 << 53
"""Every integer of smaller magnitude is a float64."""


def _int_product(a: Array, b: Array) -> Array:
    """`a @ b` of integer arrays as int64, exact modulo 2**64, so exact in every integer
    accumulator (at most 64 bits) its callers wrap it to: through float64 BLAS where no partial
    sum can reach 2**53 (`K * max|a| * max|b|`; an int8 or int16 product always), else in uint64
    arithmetic, which wraps."""
    if a.size == 0 or b.size == 0:
        return np.zeros((a.shape[0], b.shape[1]), dtype=np.int64)
    a_max, b_max = (max(int(x.max()), -int(x.min())) for x in (a, b))
    if a.shape[1] * a_max * b_max < _EXACT_FLOAT:
        return (a.astype(np.float64) @ b.astype(np.float64)).astype(np.int64)
    product: Array = (a.astype(np.int64).view(np.uint64) @ b.astype(np.int64).view(np.uint64)).view(np.int64)
    return product


def _op_matmul(it: Interpreter, c: ir.Call) -> Value:
    lt, rt = it._tile(c.args[0], c.span), it._tile(c.args[1], c.span)
    prod, valid = _matmul(lt, rt, c)
    dtype = DType.FP32 if lt.dtype.is_float else DType.INT32
    return TileVal(_wrap_array(prod, dtype), valid, dtype, (lt.shape[0], rt.shape[1]))


def _op_matmul_bias(it: Interpreter, c: ir.Call) -> Value:
    """`tile.matmul_bias(lhs, rhs, bias)`: the product plus the `[1, N]` bias row on every row
    (pto-isa's TMATMUL_BIAS), accumulated as `tile.matmul` accumulates."""
    lt, rt, bias = (it._tile(a, c.span) for a in c.args[:3])
    prod, valid = _matmul(lt, rt, c)
    if bias.shape[0] != 1 or bias.shape[1] != prod.shape[1]:
        raise InterpreterError(f"'{c.op}' needs a [1, {prod.shape[1]}] bias row", c.span)
    row = _need_data(bias)[:1, :].astype(np.float64 if lt.dtype.is_float else np.int64)
    dtype = DType.FP32 if lt.dtype.is_float else DType.INT32
    return TileVal(_wrap_array(prod + row, dtype), valid, dtype, (lt.shape[0], rt.shape[1]))


def _gemv(it: Interpreter, c: ir.Call, lhs: ir.CallArg, rhs: ir.CallArg) -> tuple[Array, int, DType]:
    """The GEMV family's product row `A[0, :K] @ B[:K, :N]` (pto-isa's TGEMV: `K` and `N` are
    `B`'s valid extent, the row vector `A` one row), its column count `N` and its dtype."""
    lt, rt = it._tile(lhs, c.span), it._tile(rhs, c.span)
    if lt.shape[0] != 1:
        raise InterpreterError(f"'{c.op}' multiplies a [1, K] row vector, got a {list(lt.shape)} tile",
                               c.span)
    prod, _ = _matmul(lt, rt, c)
    return prod[0], rt.valid[1], DType.FP32 if lt.dtype.is_float else DType.INT32


def _gemv_tile(row: Array, valid_cols: int, dtype: DType) -> TileVal:
    """The reference's GEMV result: a [16, N] Acc tile whose valid part is its first row
    (`DeduceTileGemv*Type`); the other rows are not defined and read as zero here."""
    data = np.zeros((16, row.shape[0]), dtype=np.float64 if dtype.is_float else np.int64)
    data[0] = row
    return TileVal(_wrap_array(data, dtype), (1, valid_cols), dtype, (16, row.shape[0]))


def _op_gemv(it: Interpreter, c: ir.Call) -> Value:
    """`tile.gemv(lhs, rhs)`: the row vector times the matrix (TGEMV)."""
    return _gemv_tile(*_gemv(it, c, c.args[0], c.args[1]))


def _op_gemv_bias(it: Interpreter, c: ir.Call) -> Value:
    """`tile.gemv_bias(lhs, rhs, bias)`: the product plus the `[1, N]` bias row (TGEMV_BIAS)."""
    row, valid_cols, dtype = _gemv(it, c, c.args[0], c.args[1])
    bias = it._tile(c.args[2], c.span)
    if bias.shape[0] != 1 or bias.shape[1] != row.shape[0]:
        raise InterpreterError(f"'{c.op}' needs a [1, {row.shape[0]}] bias row", c.span)
    return _gemv_tile(row + _need_data(bias)[0].astype(row.dtype), valid_cols, dtype)


def _op_gemv_acc(it: Interpreter, c: ir.Call) -> Value:
    """`tile.gemv_acc(acc, lhs, rhs)`: the product added to the accumulator's first row, in
    place (TGEMV_ACC)."""
    acc = it._tile(c.args[0], c.span)
    row, _, _ = _gemv(it, c, c.args[1], c.args[2])
    if acc.shape[1] != row.shape[0] or acc.shape[0] < 1:
        raise InterpreterError(f"'{c.op}' accumulator shape {acc.shape} differs from [16, {row.shape[0]}]",
                               c.span)
    data = _need_data(acc).astype(np.float64 if acc.dtype.is_float else np.int64)
    data[0] = data[0] + row
    return TileVal(_wrap_array(data, acc.dtype), acc.valid, acc.dtype, acc.shape, acc.backing)


def _op_part(it: Interpreter, c: ir.Call) -> Value:
    """`tile.part_add(src0, src1)` and kin (`part_mul`, `part_max`, `part_min`; TPARTADD ...):
    the operation where both sources are valid, and `src0` where only it is, over the result's
    valid region, which is `src0`'s (the reference's elementwise.cpp deduces the binary type:
    the first operand's valid shape)."""
    a, b, (r, k) = _tile_pair(it, c)
    data = _need_data(a).copy()
    op = {"tile.part_add": "tile.add", "tile.part_mul": "tile.mul", "tile.part_max": "tile.maximum",
          "tile.part_min": "tile.minimum"}[c.op]
    data[:r, :k] = as_dtype(_binary(op, data[:r, :k], _need_data(b)[:r, :k], c.span), a.dtype)
    return TileVal(data, a.valid, a.dtype, a.shape)


def _op_fmod(it: Interpreter, c: ir.Call) -> Value:
    """`tile.fmod(lhs, rhs)`: the floating-point remainder with the sign of `lhs` (C's `fmod`,
    the reference's doc), elementwise over float tiles; valid where both are."""
    a, b, valid = _tile_pair(it, c)
    if not a.dtype.is_float:
        raise Unmodelled(f"the interpreter models {c.op} of float tiles only", c.span)
    with np.errstate(all="ignore"):
        data = np.fmod(_need_data(a).astype(np.float64), _need_data(b).astype(np.float64))
    return TileVal(as_dtype(data, a.dtype), valid, a.dtype, a.shape)


def _agreed(it: Interpreter, c: ir.Call, readings: Sequence[TileVal], disagreement: str) -> TileVal:
    """The first of `readings` (the op's result as each of the reference's sources states it,
    one type and valid region) where they all agree over the valid region (bit for bit: a
    zero's sign counts, and NaN agrees with NaN), and undefined data (`Undefined`) where they
    do not, so `slotsat check` confirms nothing that depends on which source is right.
    `disagreement` says what the sources say, for the read's description."""
    first = readings[0]
    data = _need_data(first)
    vr, vc = first.valid
    agree = np.ones(data.shape, dtype=bool)
    for other in readings[1:]:
        a, b = data[:vr, :vc], _need_data(other)[:vr, :vc]
        same = a == b
        if first.dtype.is_float:
            same = (same & (np.signbit(a) == np.signbit(b))) | (np.isnan(a) & np.isnan(b))
        agree[:vr, :vc] &= same
    if bool(agree.all()):
        return first
    what = f"{c.op} at {c.span.line}:{c.span.col} where {disagreement}"
    return replace(first, data=np.where(agree, data, it.undefined.data(data.shape, first.dtype, what)))


def _scalar_tile(it: Interpreter, c: ir.Call, k: int, like: TileVal) -> Array:
    """The call's scalar argument `k` at every element of a tile like `like`, converted to its
    dtype (wrapped, or rounded), as the reference stamps a scalar operand with the tile's."""
    s = _scalar_operand(it, c, k)
    fill = like.dtype.wrap(int(s)) if like.dtype.is_int else float(s)
    return as_dtype(np.full(like.shape, fill, dtype=_need_data(like).dtype), like.dtype)


def _same_tiles(c: ir.Call, tiles: Sequence[TileVal]) -> tuple[int, int]:
    """The region where all of an elementwise op's tile operands are valid; they must share one
    shape and dtype."""
    first = tiles[0]
    if any(t.shape != first.shape or t.dtype != first.dtype for t in tiles[1:]):
        raise InterpreterError(f"'{c.op}' operands differ in shape or dtype", c.span)
    return min(t.valid[0] for t in tiles), min(t.valid[1] for t in tiles)


def _op_add_carry(it: Interpreter, c: ir.Call) -> Value:
    """`tile.addc(a, b, d)` / `tile.subc(a, b, d)` and their scalar-middle forms `tile.addsc(a,
    s, d)` / `tile.subsc(a, s, d)`: `a + b + d` and a difference, each step stored at the
    dtype, over the region where the tiles are valid.

    The reference's sources disagree on the difference: its DSL docstrings and its debug torch
    code generator compute `a - b - d`, the PTO IR manual's TSUBC / TSUBSC `a - b + d`. They
    agree where `d` is zero; elsewhere the element is undefined data (`_agreed`)."""
    a, d = it._tile(c.args[0], c.span), it._tile(c.args[2], c.span)
    if c.op.endswith("sc"):
        valid = _same_tiles(c, (a, d))
        middle = _scalar_tile(it, c, 1, a)
    else:
        b = it._tile(c.args[1], c.span)
        valid = _same_tiles(c, (a, b, d))
        middle = _need_data(b)
    add = c.op.startswith("tile.add")

    def step(op: str, x: Array, y: Array) -> TileVal:
        return TileVal(as_dtype(_binary(op, x, y, c.span), a.dtype), valid, a.dtype, a.shape)

    first = _need_data(step("tile.add" if add else "tile.sub", _need_data(a), middle))
    plus = step("tile.add", first, _need_data(d))
    if add:
        return plus
    return _agreed(it, c, (step("tile.sub", first, _need_data(d)), plus),
                   "the third operand is not zero (the reference's docstring and torch code generator "
                   "subtract it, the PTO IR manual adds it)")


def _op_rem(it: Interpreter, c: ir.Call) -> Value:
    """`tile.rem(lhs, rhs, tmp)` / `tile.rems(lhs, scalar, tmp)`: the remainder of `lhs / rhs`
    over the region where the tiles are valid; `tmp` is the ISA's scratch tile. An integer
    remainder by zero is a fault.

    The reference's sources disagree on the sign: its DSL docstrings ("lhs % rhs") and its
    debug torch code generator (`%`) take the divisor's (Python's floor remainder), the PTO
    IR manual's TREM / TREMS `fmod`, the dividend's. They agree where the remainder is zero
    (with the same zero) or the operands share a sign; elsewhere the element is undefined data
    (`_agreed`)."""
    a = it._tile(c.args[0], c.span)
    it._tile(c.args[2], c.span)
    if c.op == "tile.rems":
        valid, b = a.valid, _scalar_tile(it, c, 1, a)
    else:
        other = it._tile(c.args[1], c.span)
        valid, b = _same_tiles(c, (a, other)), _need_data(other)
    x = _need_data(a)
    vr, vc = valid
    if a.dtype.is_int:
        if bool((b[:vr, :vc] == 0).any()):
            raise InterpreterError("integer remainder by zero in a tile", c.span)
        b = np.where(b == 0, 1, b).astype(x.dtype)
        with np.errstate(all="ignore"):
            truncated, floored = np.fmod(x, b), np.remainder(x, b)
    else:
        with np.errstate(all="ignore"):
            wide_x, wide_b = x.astype(np.float64), b.astype(np.float64)
            truncated = as_dtype(np.fmod(wide_x, wide_b), a.dtype)
            floored = as_dtype(np.remainder(wide_x, wide_b), a.dtype)
    readings = [TileVal(r, valid, a.dtype, a.shape) for r in (truncated, floored)]
    return _agreed(it, c, readings,
                   "the operands' signs differ (the PTO IR manual's remainder takes the dividend's sign, "
                   "the reference's docstring and torch code generator the divisor's)")


def _op_fmods(it: Interpreter, c: ir.Call) -> Value:
    """`tile.fmods(lhs, scalar)`: `tile.fmod` by a scalar (C's `fmod`: the remainder with the
    sign of `lhs`, the reference's docstring, its torch code generator's `torch.fmod`)."""
    a = it._tile(c.args[0], c.span)
    if not a.dtype.is_float:
        raise Unmodelled(f"the interpreter models {c.op} of float tiles only", c.span)
    b = _scalar_tile(it, c, 1, a)
    with np.errstate(all="ignore"):
        data = np.fmod(_need_data(a).astype(np.float64), b.astype(np.float64))
    return TileVal(as_dtype(data, a.dtype), a.valid, a.dtype, a.shape)


def _op_relu_slope(it: Interpreter, c: ir.Call) -> Value:
    """`tile.prelu(x, slope, tmp)` (a slope per element; `tmp` is the ISA's scratch tile) and
    `tile.lrelu(x, slope)` (one scalar slope): `x` where `x > 0`, else `slope * x` stored at
    the dtype (the PTO IR manual's TPRELU / TLRELU, the reference's torch code generator), over
    float tiles. The reference's DSL docstring of `tile.lrelu` says `max(x, slope * x)`, which
    differs for a slope over one; its runtime test (test_activation_ops.py, run on the device
    with a slope of 2) pins the form above ("TLRELU is true leaky-relu")."""
    x = it._tile(c.args[0], c.span)
    _float_only(c.op, x, c)
    if c.op == "tile.prelu":
        slope_tile = it._tile(c.args[1], c.span)
        it._tile(c.args[2], c.span)
        valid, slope = _same_tiles(c, (x, slope_tile)), _need_data(slope_tile)
    else:
        valid, slope = x.valid, _scalar_tile(it, c, 1, x)
    data = _need_data(x)
    with np.errstate(all="ignore"):
        scaled = as_dtype(data * slope, x.dtype)
    return TileVal(as_dtype(np.where(data > 0, data, scaled), x.dtype), valid, x.dtype, x.shape)


def _op_expands(it: Interpreter, c: ir.Call) -> Value:
    """`tile.expands(target, scalar)`: a tile of `target`'s type holding the scalar, converted
    to its dtype, at every element (the PTO IR manual's TEXPANDS; the reference's torch code
    generator's `full_like`); `target`'s values are not read."""
    t = it._tile(c.args[0], c.span)
    return TileVal(_scalar_tile(it, c, 1, t), t.valid, t.dtype, t.shape)


def _wrap_array(a: Array, dtype: DType) -> Array:
    """`a` stored at `dtype`: integers wrapped at its width (numpy's integer casts keep the low
    bits, as `DType.wrap` does; Python integers one by one), floats rounded to it."""
    arr = np.asarray(a)
    if dtype.is_int and arr.dtype.kind in "iu":
        return arr.astype(np.int64).astype(numpy_dtype(dtype))
    if dtype.is_int:
        flat = [dtype.wrap(int(x)) for x in arr.reshape(-1)]
        return np.array(flat, dtype=numpy_dtype(dtype)).reshape(arr.shape)
    return as_dtype(np.asarray(a, dtype=np.float64), dtype)


def _op_matmul_acc(it: Interpreter, c: ir.Call) -> Value:
    """`tile.matmul_acc(acc, lhs, rhs[, init_cond])`: `acc + lhs @ rhs` in the accumulator's
    buffer; where `init_cond` holds, `lhs @ rhs` alone (the accumulator is overwritten, as the
    reference's docstring and its runtime test test_matmul_acc_init_cond.py state)."""
    acc = it._tile(c.args[0], c.span)
    lt, rt = it._tile(c.args[1], c.span), it._tile(c.args[2], c.span)
    prod, _ = _matmul(lt, rt, c)
    if prod.shape != acc.shape:
        raise InterpreterError(f"'{c.op}' accumulator shape {acc.shape} differs from {prod.shape}", c.span)
    init = ops.init_condition(c)
    overwrite = it.scalar(init) if isinstance(init, ir.SCALAR_EXPRS) else init  # type: ignore[arg-type]
    if init is not None and not isinstance(overwrite, int):
        raise InterpreterError(f"{c.op}'s init_cond must be a known scalar predicate", c.span)
    base = _need_data(acc).astype(np.float64 if acc.dtype.is_float else np.int64)
    if overwrite:
        base = np.zeros_like(base)
    return TileVal(_wrap_array(base + prod, acc.dtype), acc.valid, acc.dtype, acc.shape, acc.backing)


_COMM_CTX = ir.OpaqueType("pld.CommCtxType")


def _op_memory_marker(it: Interpreter, c: ir.Call) -> Value:
    """`system.fence` / `system.cacheinvalid`: ordering and coherence of GM between ranks; in
    one rank's sequential run they change no value."""
    return None


def _op_pipe_barrier(it: Interpreter, c: ir.Call) -> Value:
    """`system.bar_v` / `bar_m` / `bar_all`: wait for this core's pipes to drain; the
    interpreter runs each op to completion in order, so a barrier changes no value."""
    return None


def _op_prefetch_handle(it: Interpreter, c: ir.Call) -> Value:
    """`prefetch.make_context` / `async_prefetch` / `session`: a GM-to-L2 prefetch and the
    handles that track it. L2 holds copies of GM, so a prefetch changes no value; the handles
    carry nothing a kernel can read."""
    return None


def _op_prefetch_wait(it: Interpreter, c: ir.Call) -> Value:
    """`prefetch.wait(event, session)`: blocks until the prefetch landed, then its BOOL done
    flag is true."""
    return 1


def _op_move(it: Interpreter, c: ir.Call) -> Value:
    t = it._tile(c.args[0], c.span)
    return TileVal(_need_data(t).copy(), t.valid, t.dtype, t.shape)


_TO_INTEGER: dict[str, Callable[[Array], Array]] = {
    "rint": np.rint,  # to nearest, ties to even
    "round": lambda a: np.sign(a) * np.floor(np.abs(a) + 0.5),  # to nearest, ties away from zero
    "floor": np.floor,
    "ceil": np.ceil,
    "trunc": np.trunc,
}
"""How `tile.cast` rounds a float to an integer dtype, by its `mode=` (the PTO IR manual's
RoundMode of `pto.tcvt`; the reference's sine and cosine lowering rounds with `round` and
`floor`). `none` and `odd` are not pinned down for that conversion, so such a cast is
declined; a cast without `mode=` takes the reference's default, `round`. A float narrowed to
another float rounds to nearest, ties to even, whatever the mode (the modes differ only at
exact ties there)."""


def _cast_mode(c: ir.Call) -> str:
    """The `mode=` of a `tile.cast` by name (`ops.CAST_MODES`), `round` when absent."""
    mode = c.kwarg("mode")
    if isinstance(mode, ir.StrArg):
        return mode.value
    if isinstance(mode, ir.ConstInt) and 0 <= mode.value < len(ops.CAST_MODES):
        return ops.CAST_MODES[mode.value]
    return "round" if mode is None else "?"


def _op_cast(it: Interpreter, c: ir.Call) -> Value:
    """`tile.cast(t, target_type=D, mode=M)`: `t`'s values converted to `D`, a float rounded to
    an integer dtype by `M` (`_TO_INTEGER`), then wrapped to it."""
    t = it._tile(c.args[0], c.span)
    dtype = ops.cast_dtype(c)
    if dtype is None:
        raise InterpreterError("tile.cast needs a dtype", c.span)
    data = _need_data(t)
    if dtype.is_int and t.dtype.is_float:
        mode = _cast_mode(c)
        if mode not in _TO_INTEGER:
            raise Unmodelled(f"tile.cast from pl.{t.dtype.value} to pl.{dtype.value} with mode='{mode}' "
                             "(how it rounds to an integer is not pinned down)", c.span)
        with np.errstate(all="ignore"):
            data = _TO_INTEGER[mode](data.astype(np.float64))
    return TileVal(as_dtype(data, dtype), t.valid, dtype, t.shape)


def _op_reinterpret_view(it: Interpreter, c: ir.Call) -> Value:
    """`tile.reinterpret_view(data[, shape], dtype=D)`: the tile's bytes read as `D`, row by row
    (the reference lowers it to ptoas's byte-preserving `pto.treshape`), in the given shape or
    in the source's rows with as many columns as its bytes hold. Modelled for fully valid tiles
    of whole-byte dtypes other than BF16 (emulated in FP32, whose bits are not the device's)."""
    t = it._tile(c.args[0], c.span)
    arg = c.kwarg("dtype")
    dtype = arg.dtype if isinstance(arg, ir.DTypeArg) else None
    if dtype is None:
        raise InterpreterError("tile.reinterpret_view needs a dtype", c.span)
    if t.valid != t.shape:
        raise Unmodelled("the interpreter models tile.reinterpret_view of a fully valid tile only", c.span)
    if DType.BF16 in (t.dtype, dtype) or t.dtype.bits % 8 or dtype.bits % 8 or DType.BOOL in (t.dtype, dtype):
        raise Unmodelled(f"tile.reinterpret_view from pl.{t.dtype.value} to pl.{dtype.value}", c.span)
    rows, cols = t.shape
    nbytes = rows * cols * t.dtype.nbytes
    shape = _rc(it._list(c.args[1], "reinterpret_view shape", c.span)) if len(c.args) > 1 else \
        (rows, cols * t.dtype.nbytes // dtype.nbytes)
    uneven = len(c.args) == 1 and (cols * t.dtype.nbytes) % dtype.nbytes
    if shape[0] * shape[1] * dtype.nbytes != nbytes or uneven:
        raise InterpreterError(f"tile.reinterpret_view of a {list(t.shape)} pl.{t.dtype.value} tile as "
                               f"{list(shape)} pl.{dtype.value} does not keep its bytes", c.span)
    raw = np.ascontiguousarray(_need_data(t).astype(numpy_dtype(t.dtype)))
    data = raw.view(numpy_dtype(dtype)).reshape(shape).copy()
    return TileVal(data, shape, dtype, shape, t.backing)


def _op_reshape(it: Interpreter, c: ir.Call) -> Value:
    t = it._tile(c.args[0], c.span)
    shape = it._list(c.args[1], "reshape shape", c.span)
    rc = _rc(shape)
    if rc[0] * rc[1] != t.shape[0] * t.shape[1]:
        raise InterpreterError(f"cannot reshape a {list(t.shape)} tile to {shape}", c.span)
    # The valid extent is the one the result's type declares (the reference deduces it; the
    # lane-1 replay of a dual-dispatch vector half reshapes `[0, 0]` tiles); without one, the
    # reshaped tile is valid over all of it (the DSL does not define a partial tile's).
    target = it._target.type if it._target is not None else None
    declared = isinstance(target, ir.TileType) and target.valid_shape is not None
    valid = _declared_valid(it) if declared else None
    if valid is not None and any(v < 0 or v > d for v, d in zip(valid, rc, strict=True)):
        raise InterpreterError(f"tile.reshape valid shape {list(valid)} does not fit the tile {list(rc)}",
                               c.span)
    return TileVal(_need_data(t).reshape(rc).copy(), valid or rc, t.dtype, rc, t.backing)


def _op_slice(it: Interpreter, c: ir.Call) -> Value:
    """`tile.slice(src, shape, offset[, valid_shape[, drop_dims]])`: the window of `src` at
    `offset` (`drop_dims`: see `_dropped_unmodelled`).

    Its valid extent per dimension is what the reference's type rule gives
    (`DeduceTileSliceType` via `InferWindowReadValidShape` in src/ir/op/tile_ops/transform.cpp
    and type_inference.cpp): the part of the source's valid extent under the window,
    `clamp(src_valid - offset, 0, shape)`; with a non-empty `valid_shape` request, the request,
    narrowed to that part (the reference narrows where it proves the source narrower; the data
    beyond the source's valid part is undefined, so the interpreter always narrows). An empty
    request (`[]`) means none. A request outside `[0, shape]` is an `InterpreterError`."""
    t = it._tile(c.args[0], c.span)
    shape = _rc(it._list(c.args[1], "slice shape", c.span))
    offs = it._list(c.args[2], "slice offsets", c.span)
    o = _rc(offs) if len(offs) == 2 else (0, offs[0])
    if o[0] < 0 or o[1] < 0 or o[0] + shape[0] > t.shape[0] or o[1] + shape[1] > t.shape[1]:
        raise InterpreterError(f"slice {list(shape)} at {offs} leaves the {list(t.shape)} tile", c.span)
    data = _need_data(t)[o[0]:o[0] + shape[0], o[1]:o[1] + shape[1]].copy()
    valid = (max(0, min(shape[0], t.valid[0] - o[0])), max(0, min(shape[1], t.valid[1] - o[1])))
    request = it._list(c.args[3], "slice valid shape", c.span) if len(c.args) > 3 else []
    if request:
        req = _rc(request)
        if not (0 <= req[0] <= shape[0] and 0 <= req[1] <= shape[1]):
            raise _misfit(c, _spelled(c.args[3]), req, shape,
                          f"slice valid shape {request} does not fit the slice shape {list(shape)}")
        valid = (min(valid[0], req[0]), min(valid[1], req[1]))
    return TileVal(data, valid, t.dtype, shape, t.backing, at=o)


def _dropped_unmodelled(c: ir.Call) -> str | None:
    """Why the interpreter does not run this `tile.slice`'s `drop_dims` (its fifth argument),
    or None: it models dropping the row axis of a one-row window, whose 2-D result (the
    reference clamps a rank-1 result back to `[1, C]`) is the window itself."""
    dropped = c.args[4] if len(c.args) > 4 else None
    if dropped is None or (isinstance(dropped, ir.ExprList) and not dropped.items):
        return None
    dims = c.args[1].items if isinstance(c.args[1], ir.ExprList) else ()
    one_row = len(dims) == 2 and ir.literal_value(dims[0]) == 1
    if one_row and isinstance(dropped, ir.ExprList) and [ir.literal_value(e) for e in dropped.items] == [0]:
        return None
    return "tile.slice with drop_dims other than the row axis of a one-row window of a 2-D tile"


def _op_read(it: Interpreter, c: ir.Call) -> Value:
    t = it._tile(c.args[0], c.span)
    idx = it._list(c.args[1], "read indices", c.span)
    r, col = (0, idx[0]) if len(idx) == 1 else (idx[0], idx[1])
    if not (0 <= r < t.shape[0] and 0 <= col < t.shape[1]):
        raise InterpreterError(f"read index {idx} is outside the {list(t.shape)} tile", c.span)
    v = _need_data(t)[r, col]
    return float(v) if t.dtype.is_float else t.dtype.wrap(int(v))


def _dtype_kwarg(c: ir.Call, key: str = "dtype") -> DType:
    value = c.kwarg(key)
    if not isinstance(value, ir.DTypeArg):
        raise InterpreterError(f"'{c.op}' needs {key}=", c.span)
    return value.dtype


def named_arg(c: ir.Call, k: int, name: str) -> ir.CallArg | None:
    """Positional argument `k` of `c`, or the keyword `name` the reference prints it as."""
    return c.args[k] if len(c.args) > k else c.kwarg(name)


def _op_create(it: Interpreter, c: ir.Call) -> Value:
    """`tile.create`: a fresh buffer. The reference's op touches no memory, so its contents are
    undefined data (`Undefined`): zeros in a plain run and in `check`'s first one, its other
    fillings after, so a program whose outputs depend on them is `unverified`. Its
    valid extent is its type's (`pl.TileView(valid_shape=...)` on the result, as the reference
    allocates it: the lane-1 replay of a dual-dispatch vector half creates a `[0, 0]` tile)."""
    rows, cols = _rc(it._list(c.args[0], "create shape", c.span))
    dtype = _dtype_kwarg(c)
    valid = (rows, cols)
    t = it._target.type if it._target is not None else None
    if isinstance(t, ir.TileType) and t.valid_shape is not None:
        valid = _rc(_ints([it.scalar(x) for x in t.effective_valid_shape], "create valid shape", c.span))
        if any(v < 0 or v > d for v, d in zip(valid, (rows, cols), strict=True)):
            raise InterpreterError(f"tile.create valid shape {list(valid)} does not fit the tile "
                                   f"{[rows, cols]}", c.span)
    what = f"tile.create at {c.span.line}:{c.span.col}: a fresh tile's contents, which nothing wrote"
    data = it.undefined.data((rows, cols), dtype, what, zeros_first=True)
    return TileVal(data, valid, dtype, (rows, cols))


def _op_random(it: Interpreter, c: ir.Call) -> Value:
    """`tile.random(key0, key1, counter0, .., counter3, shape[, valid_shape], dtype=, rounds=)`:
    pto-isa's TRANDOM, a counter-based generator whose values the reference's own runtime test
    does not reproduce (test_random.py checks only that two draws with the same seeds are
    equal). The run models what that test relies on: a deterministic function of the keys,
    counters, rounds, dtype and shape, whose values are undefined data
    (`Undefined.keyed`: each filling is another such function). So an output that depends on
    the values drawn is set aside, and one that depends only on the draws being repeatable
    (`random(s) - random(s)`) is compared. Only the valid rows and columns are written."""
    seeds = [it.scalar(a) if isinstance(a, ir.SCALAR_EXPRS) else None for a in c.args[:6]]  # type: ignore[arg-type]
    if not all(isinstance(k, int) for k in seeds):
        raise InterpreterError("tile.random needs six known integer keys and counters", c.span)
    shape = _rc(it._list(c.args[6], "random shape", c.span))
    window = named_arg(c, 7, "valid_shape")
    valid = shape if window is None else _rc(it._list(window, "random valid shape", c.span))
    value = c.kwarg("dtype")
    dtype = value.dtype if isinstance(value, ir.DTypeArg) else DType.UINT32
    rounds = c.kwarg("rounds")
    key = [*seeds, rounds.value if isinstance(rounds, ir.ConstInt) else 10, *shape, list(DType).index(dtype)]
    what = (f"tile.random at {c.span.line}:{c.span.col}: the values it draws (pto-isa's TRANDOM is not "
            "reproduced)")
    drawn = it.undefined.keyed(key, shape, dtype, what)  # type: ignore[arg-type]
    if valid == shape:
        return TileVal(drawn, valid, dtype, shape)
    data = it.undefined.data(shape, dtype, f"tile.random at {c.span.line}:{c.span.col}: the part outside "
                             "its valid shape, which it does not write", zeros_first=True)
    vr, vc = valid
    data[:vr, :vc] = drawn[:vr, :vc]
    return TileVal(data, valid, dtype, shape)


def _op_full(it: Interpreter, c: ir.Call) -> Value:
    rows, cols = _rc(it._list(c.args[0], "full shape", c.span))
    dtype = _dtype_kwarg(c)
    arg = named_arg(c, 1, "value")
    value = it.scalar(arg) if isinstance(arg, ir.SCALAR_EXPRS) else None  # type: ignore[arg-type]
    if value is None:
        raise InterpreterError("tile.full needs a known scalar value", c.span)
    fill = dtype.wrap(int(value)) if dtype.is_int else float(value)
    data = as_dtype(np.full((rows, cols), fill, dtype=numpy_dtype(dtype)), dtype)
    return TileVal(data, (rows, cols), dtype, (rows, cols))


def _op_ci(it: Interpreter, c: ir.Call) -> Value:
    """`tile.ci(start, [1, C])`: `start, start + 1, ...` along the row (`descending=True`:
    `start, start - 1, ...`), wrapped to the dtype. Tiles of more than one row are not modelled."""
    rows, cols = _rc(it._list(c.args[1], "ci shape", c.span))
    dtype = _dtype_kwarg(c)
    start = it.scalar(c.args[0]) if isinstance(c.args[0], ir.SCALAR_EXPRS) else None  # type: ignore[arg-type]
    if rows != 1 or not isinstance(start, int) or not dtype.is_int:
        raise InterpreterError("the interpreter models tile.ci of one integer row only", c.span)
    flag = c.kwarg("descending")
    step = -1 if isinstance(flag, ir.ConstInt) and flag.value else 1
    values = [dtype.wrap(start + step * j) for j in range(cols)]
    return TileVal(np.array([values], dtype=numpy_dtype(dtype)), (1, cols), dtype, (1, cols))


def _op_tri(it: Interpreter, c: ir.Call) -> Value:
    """`tile.tri(diagonal, shape[, valid_shape], upper=...)`: pto-isa's TTRI mask over the valid
    region, 1 where `j <= i + diagonal` (lower) or `j >= i + diagonal` (`upper=True`), else 0;
    outside the valid region the instruction writes nothing (zeros here)."""
    rows, cols = _rc(it._list(c.args[1], "tri shape", c.span))
    dtype = _dtype_kwarg(c)
    diagonal = it.scalar(c.args[0]) if isinstance(c.args[0], ir.SCALAR_EXPRS) else None  # type: ignore[arg-type]
    if not isinstance(diagonal, int):
        raise InterpreterError("tile.tri needs an integer diagonal", c.span)
    valid = _rc(it._list(c.args[2], "tri valid shape", c.span)) if len(c.args) > 2 else (rows, cols)
    if any(v < 0 or v > d for v, d in zip(valid, (rows, cols), strict=True)):
        raise InterpreterError(f"tile.tri valid shape {list(valid)} does not fit the tile {[rows, cols]}",
                               c.span)
    i, j = np.indices((rows, cols))
    flag = c.kwarg("upper")
    mask = (j >= i + diagonal) if isinstance(flag, ir.ConstInt) and flag.value else (j <= i + diagonal)
    mask &= (i < valid[0]) & (j < valid[1])
    return TileVal(as_dtype(mask.astype(np.float64), dtype), valid, dtype, (rows, cols))


def _op_spmd(it: Interpreter, c: ir.Call) -> Value:
    key = c.op.removeprefix("tile.get_")
    if key not in it.identity:
        raise InterpreterError(f"the run has no {key} for {c.op}", c.span)
    return it.identity[key]


def _op_col_expand(it: Interpreter, c: ir.Call) -> Value:
    """`col_expand_OP(t, col)`: `col` (`[1, C]`) broadcast down the rows of `t`; `col_expand`
    itself is the broadcast."""
    t, col = it._tile(c.args[0], c.span), it._tile(c.args[1], c.span)
    if col.shape[1] != t.shape[1]:
        raise InterpreterError(f"'{c.op}' needs a [1, {t.shape[1]}] column operand", c.span)
    rows = np.repeat(_need_data(col)[:1, :], t.shape[0], axis=0)
    if c.op == "tile.col_expand":
        return TileVal(as_dtype(rows, t.dtype), t.valid, t.dtype, t.shape)
    if c.op == "tile.col_expand_expdif":
        return TileVal(_expdif(_need_data(t), rows, t, c), t.valid, t.dtype, t.shape)
    data = _binary(c.op.replace("col_expand_", ""), _need_data(t), rows, c.span, t.valid)
    return TileVal(as_dtype(data, t.dtype), t.valid, t.dtype, t.shape)


def _op_row_expand_plain(it: Interpreter, c: ir.Call) -> Value:
    """`tile.row_expand(target, row_vec)`: `row_vec` (`[R, 1]`) broadcast along the columns
    to the shape, dtype and valid extent of `target` (the reference's broadcast.cpp: the result
    has the target's type; `target` gives only the shape)."""
    t, r = it._tile(c.args[0], c.span), it._tile(c.args[1], c.span)
    if r.shape[0] != t.shape[0] or r.shape[1] != 1:
        raise InterpreterError(f"'{c.op}' needs a [{t.shape[0]}, 1] row operand", c.span)
    data = np.repeat(_need_data(r)[:, :1], t.shape[1], axis=1)
    return TileVal(as_dtype(data, t.dtype), t.valid, t.dtype, t.shape)


def _op_col_sum(it: Interpreter, c: ir.Call) -> Value:
    """`tile.col_sum(tile[, tmp_tile])`: the sum of each column over the valid rows, a `[1, C]`
    tile with the source's valid columns (the reference's reduction.cpp; the optional second
    argument is scratch space for ptoas's binary-tree form and does not change the result).
    Float sums are taken in float64, then rounded to the dtype; integer sums wrap."""
    t = it._tile(c.args[0], c.span)
    vr, vc = t.valid
    data = _need_data(t)
    out = np.zeros((1, t.shape[1]), dtype=np.float64 if t.dtype.is_float else object)
    if vr > 0 and vc > 0:
        part = data[:vr, :vc]
        wide = part.astype(np.float64 if t.dtype.is_float else object)
        out[0, :vc] = wide.sum(axis=0)
    return TileVal(_wrap_array(out, t.dtype), (1, vc), t.dtype, (1, t.shape[1]))


def _op_col_extreme(it: Interpreter, c: ir.Call) -> Value:
    """`tile.col_max(tile)` / `tile.col_min(tile)`: the largest / smallest element of each
    column over the valid rows, a `[1, C]` tile with the source's valid columns (the reference's
    reduction.cpp, `DeduceTileColReductionType`; ptoas's TCOLMAX / TCOLMIN); `tile.col_prod`
    their product (TCOLPROD). A column with no valid row has no extreme: declined."""
    t = it._tile(c.args[0], c.span)
    vr, vc = t.valid
    if vr == 0 and vc > 0:
        raise Unmodelled(f"{c.op} of a tile with no valid row (no element to reduce)", c.span)
    data = _need_data(t)
    out = np.zeros((1, t.shape[1]), dtype=data.dtype)
    if vc > 0:
        part = data[:vr, :vc]
        if c.op == "tile.col_prod":
            with np.errstate(all="ignore"):
                out[0, :vc] = as_dtype(part.astype(np.float64).prod(axis=0), t.dtype) if t.dtype.is_float \
                    else part.prod(axis=0)
        else:
            out[0, :vc] = part.max(axis=0) if c.op == "tile.col_max" else part.min(axis=0)
    return TileVal(as_dtype(out, t.dtype), (1, vc), t.dtype, (1, t.shape[1]))


def _op_arg_extreme(it: Interpreter, c: ir.Call) -> Value:
    """`tile.row_argmax(tile, tmp)` and kin (`row_argmin`, `col_argmax`, `col_argmin`): per
    row, the column index of its largest / smallest valid element (per column, the row
    index), an INT32 `[R, 1]` (`[1, C]`) tile with the source's valid rows (columns), as the
    reference's reduction.cpp deduces it (TROWARGMAX and kin); `tmp` is scratch space. Of
    equal extremes the first wins, as pto-isa's CPU model compares (strictly greater / less,
    scanning up). Which index the device gives for a row holding NaN is not pinned down: its
    index is undefined data (`Undefined`), so a verdict never rests on it. A source with no
    valid element to reduce is declined."""
    t = it._tile(c.args[0], c.span)
    vr, vc = t.valid
    by_row = c.op.startswith("tile.row_")
    if (vc == 0 and vr > 0) if by_row else (vr == 0 and vc > 0):
        raise Unmodelled(f"{c.op} of a tile with no valid element to reduce", c.span)
    part = _need_data(t)[:vr, :vc]
    lines = part if by_row else part.T
    index = np.zeros(len(lines), dtype=np.int32)
    if lines.size:
        extreme = lines.max(axis=1) if c.op.endswith("argmax") else lines.min(axis=1)
        hits = lines == extreme[:, None]
        index = np.argmax(hits, axis=1).astype(np.int32)  # the first of equal extremes
        nan = np.isnan(lines.astype(np.float64)).any(axis=1)
        if bool(nan.any()):
            line = "row" if by_row else "column"
            what = (f"{c.op} at {c.span.line}:{c.span.col} of a {line} holding NaN (which index the device "
                    "gives is not pinned down)")
            index = np.where(nan, it.undefined.data(index.shape, DType.INT32, what), index)
    if by_row:
        out = np.zeros((t.shape[0], 1), dtype=np.int32)
        out[:vr, 0] = index
        return TileVal(out, (vr, 1), DType.INT32, (t.shape[0], 1))
    out = np.zeros((1, t.shape[1]), dtype=np.int32)
    out[0, :vc] = index
    return TileVal(out, (1, vc), DType.INT32, (1, t.shape[1]))


def _op_concat(it: Interpreter, c: ir.Call) -> Value:
    """`tile.concat(src0, src1)`: the two tiles side by side in a `[R, C0 + C1]` tile. pto-isa's
    TCONCAT copies, for each of the destination's valid rows, `src0`'s valid columns and right
    after them (not after `src0`'s shape) `src1`'s valid columns, and asserts that both sources
    have the destination's valid row count and that its valid width is the sum of theirs. So
    the result is valid over `(rows, vc0 + vc1)` (the whole shape for fully valid sources, the
    reference's `DeduceTileConcatType`), and what lies outside that is the interpreter's
    filler, as for a load. Sources of different valid row counts, or a result whose type
    declares another valid shape (the device's assertion fails), are declined."""
    a, b = it._tile(c.args[0], c.span), it._tile(c.args[1], c.span)
    if a.dtype != b.dtype or a.shape[0] != b.shape[0]:
        raise InterpreterError(f"tile.concat of a {list(a.shape)} pl.{a.dtype.value} and a {list(b.shape)} "
                               f"pl.{b.dtype.value} tile", c.span)
    shape = (a.shape[0], a.shape[1] + b.shape[1])
    valid = (a.valid[0], a.valid[1] + b.valid[1])
    declared = _declared_valid(it)
    if a.valid[0] != b.valid[0] or (declared is not None and declared != valid):
        raise Unmodelled(f"tile.concat of tiles valid over {list(a.valid)} and {list(b.valid)} into a tile "
                         f"declared valid over {list(declared or valid)} (the device asserts that both "
                         "sources have the destination's valid rows and that its valid width is their sum)",
                         c.span)
    data = np.zeros(shape, dtype=numpy_dtype(a.dtype))
    rows, vc0 = valid[0], a.valid[1]
    data[:rows, :vc0] = _need_data(a)[:rows, :vc0]
    data[:rows, vc0:valid[1]] = _need_data(b)[:rows, :b.valid[1]]
    return TileVal(data, valid, a.dtype, shape)


def _declared_valid(it: Interpreter) -> tuple[int, int] | None:
    """The valid extent the type of the op's result declares in this run, if it has one."""
    t = None if it._target is None else it._target.type
    if not isinstance(t, ir.TileType):
        return None
    extents = [it.scalar(x) for x in t.effective_valid_shape]
    if not all(isinstance(x, int) for x in extents):
        return None
    return _rc([int(x) for x in extents if x is not None])


def _op_transpose(it: Interpreter, c: ir.Call) -> Value:
    """`tile.transpose(t, axis1, axis2[, tmp])`: the 2-D tile with its axes swapped, a new tile
    valid over its whole shape (the reference's `DeduceTileTransposeType`; `tmp` is the
    scratch tile ptoas's TTRANS takes). A source valid over less than its shape is declined:
    the type rule makes the whole result valid, and what the device puts where the source was
    not valid is not documented."""
    t = it._tile(c.args[0], c.span)
    axes = [it.scalar(a) if isinstance(a, ir.ConstInt) else None for a in c.args[1:3]]
    if any(a is None for a in axes) or sorted(int(a) % 2 for a in axes if a is not None) != [0, 1]:
        raise InterpreterError("tile.transpose of a 2-D tile swaps literal axes 0 and 1", c.span)
    if t.valid != t.shape:
        raise Unmodelled("the interpreter models tile.transpose of a fully valid tile only", c.span)
    shape = (t.shape[1], t.shape[0])
    return TileVal(np.ascontiguousarray(_need_data(t).T), shape, t.dtype, shape)


def _op_tensor_view(it: Interpreter, c: ir.Call) -> Value:
    """`tensor.view(src, shape)`: `src`'s elements read in row-major order as a tensor of
    `shape` (the reference's `DeduceTensorViewType`: a canonical view over the same memory; its
    code generator makes a new `pto.make_tensor_view` of `src`'s base pointer with the result's
    row-major strides). Modelled for a shape of the same element count in the ND layout, read
    only: a store into the view or into the viewed tensor (which the other sees on the device;
    the model does not follow which arrays share memory) is declined when it runs."""
    src = it._tensor(c.args[0], c.span)
    if isinstance(src, TensorSym):
        raise InterpreterError("symbolic tensor in a computing run", c.span)
    layout = c.kwarg("layout")
    nd = layout is None or (isinstance(layout, ir.EnumArg) and layout.member == "ND")
    if len(c.args) != 2 or not nd:
        raise Unmodelled("the interpreter models tensor.view with a shape only, in the ND layout", c.span)
    shape = it._list(c.args[1], "view shape", c.span)
    if element_count(shape) != src.size or any(d <= 0 for d in shape):
        raise Unmodelled(f"tensor.view of a {list(src.shape)} tensor as {shape} (the interpreter models "
                         "views of the same element count)", c.span)
    view = src.reshape(shape)
    it._viewed.extend((src, view))
    return view


def _no_viewed_store(it: Interpreter, tensor: Array | PagedTensor | TensorSym, c: ir.Call) -> None:
    if any(tensor is v for v in it._viewed):
        raise Unmodelled(f"{c.op} into a tensor that tensor.view reinterprets (the interpreter models "
                         "views read only)", c.span)


def _op_tensor_write(it: Interpreter, c: ir.Call) -> Value:
    """`tensor.write(tensor, indices, value)`: element `indices` of the tensor set to the scalar
    `value` (converted to the tensor's dtype). The reference's op writes its argument in place
    (the registry's `reuses` argument 0); the interpreter updates the tensor the argument names
    and returns it."""
    arg = c.args[0]
    tensor = it._tensor(arg, c.span)
    _no_viewed_store(it, tensor, c)
    idx = it._list(c.args[1], "write indices", c.span)
    if isinstance(tensor, TensorSym):
        raise InterpreterError("symbolic tensor in a computing run", c.span)
    _check_index(c, idx, tensor.shape, f"write index {idx} is outside the {list(tensor.shape)} tensor")
    value_arg = c.args[2]
    value = it.scalar(value_arg) if isinstance(value_arg, ir.SCALAR_EXPRS) else None  # type: ignore[arg-type]
    if value is None:
        raise InterpreterError("tensor.write needs a known scalar value", c.span)
    dtype = _tensor_dtype(arg)
    tensor[tuple(idx)] = as_dtype(np.array([dtype.wrap(int(value)) if dtype.is_int else value]), dtype)[0]
    return tensor


def _op_tensor_read(it: Interpreter, c: ir.Call) -> Value:
    tensor = it._tensor(c.args[0], c.span)
    idx = it._list(c.args[1], "read indices", c.span)
    if isinstance(tensor, TensorSym):
        raise InterpreterError("symbolic tensor in a computing run", c.span)
    _check_index(c, idx, tensor.shape, f"read index {idx} is outside the {list(tensor.shape)} tensor")
    v = tensor[tuple(idx)]
    dtype = _tensor_dtype(c.args[0])
    return float(v) if dtype.is_float else dtype.wrap(int(v))


def _op_tensor_dim(it: Interpreter, c: ir.Call) -> Value:
    tensor = it._tensor(c.args[0], c.span)
    axis = it.scalar(c.args[1]) if isinstance(c.args[1], ir.ConstInt) else None
    shape = tensor.shape
    if not isinstance(axis, int) or not 0 <= axis < len(shape):
        raise InterpreterError("tensor.dim needs a literal axis within the rank", c.span)
    return int(shape[axis])


def _op_set_validshape(it: Interpreter, c: ir.Call) -> Value:
    t = it._tile(c.args[0], c.span)
    rows, cols = (it.scalar(a) if isinstance(a, ir.SCALAR_EXPRS) else None for a in c.args[1:3])  # type: ignore[arg-type]
    if not isinstance(rows, int) or not isinstance(cols, int) or not (0 <= rows <= t.shape[0]
                                                                      and 0 <= cols <= t.shape[1]):
        message = f"set_validshape [{rows}, {cols}] does not fit the {list(t.shape)} tile"
        if not isinstance(rows, int) or not isinstance(cols, int):
            raise InterpreterError(message, c.span)
        raise _misfit(c, c.args[1:3], (rows, cols), t.shape, message)
    return TileVal(t.data, (rows, cols), t.dtype, t.shape, t.backing)


def _op_write(it: Interpreter, c: ir.Call) -> Value:
    t = it._tile(c.args[0], c.span)
    idx = it._list(c.args[1], "write indices", c.span)
    r, col = (0, idx[0]) if len(idx) == 1 else (idx[0], idx[1])
    arg = c.args[2]
    value = it.scalar(arg) if isinstance(arg, ir.SCALAR_EXPRS) else None  # type: ignore[arg-type]
    if value is None or not (0 <= r < t.shape[0] and 0 <= col < t.shape[1]):
        raise InterpreterError(f"write index {idx} is outside the {list(t.shape)} tile", c.span)
    data = _need_data(t).copy()
    data[r, col] = t.dtype.wrap(int(value)) if t.dtype.is_int else value
    return TileVal(as_dtype(data, t.dtype), t.valid, t.dtype, t.shape, t.backing)


def _op_extract(it: Interpreter, c: ir.Call) -> Value:
    """`tile.extract(src, r, c, shape)`: a copy of the window at `(r, c)` (into another space)."""
    t = it._tile(c.args[0], c.span)
    r, col = (it.scalar(a) if isinstance(a, ir.SCALAR_EXPRS) else None for a in c.args[1:3])  # type: ignore[arg-type]
    rows, cols = _rc(it._list(c.args[3], "extract shape", c.span))
    if not isinstance(r, int) or not isinstance(col, int) or r < 0 or col < 0 \
            or r + rows > t.shape[0] or col + cols > t.shape[1]:
        raise InterpreterError(f"extract [{rows}, {cols}] at [{r}, {col}] leaves the {list(t.shape)} tile",
                               c.span)
    data = _need_data(t)[r:r + rows, col:col + cols].copy()
    valid = (max(0, min(rows, t.valid[0] - r)), max(0, min(cols, t.valid[1] - col)))
    return TileVal(data, valid, t.dtype, (rows, cols))


_WRITE_BACK = frozenset({(DType.FP32, DType.BF16), (DType.FP32, DType.FP16)})
"""The conversions `tile.assemble` models between a source and a target of two dtypes: the
cube's write-back of an FP32 accumulator into a 16-bit float tile, which the run rounds as a
`tile.store` of the accumulator into a tensor of that dtype does (both are the FIXPIPE's
conversion, `as_dtype`). Others (an integer accumulator's quantized write-back) are declined."""


def _op_assemble(it: Interpreter, c: ir.Call) -> Value:
    """`tile.assemble(target, source, [r, c])`: `target` with the valid part of `source`
    written at `(r, c)` (in place: the result is the target's buffer), converted to the
    target's dtype where they differ (`_WRITE_BACK`)."""
    t, src = it._tile(c.args[0], c.span), it._tile(c.args[1], c.span)
    r, col = _rc(it._list(c.args[2], "assemble offset", c.span))
    vr, vc = src.valid
    if src.dtype != t.dtype and (src.dtype, t.dtype) not in _WRITE_BACK:
        raise Unmodelled(f"the interpreter does not model tile.assemble of a pl.{src.dtype.value} tile into "
                         f"a pl.{t.dtype.value} one (the conversion of the cube's write-back)", c.span)
    if r < 0 or col < 0 or r + vr > t.shape[0] or col + vc > t.shape[1]:
        raise InterpreterError(f"assemble of a {list(src.shape)} tile at [{r}, {col}] leaves the "
                               f"{list(t.shape)} target", c.span)
    data = _need_data(t).copy()
    data[r:r + vr, col:col + vc] = as_dtype(_need_data(src)[:vr, :vc], t.dtype)
    return TileVal(data, t.valid, t.dtype, t.shape, t.backing)


def _op_gather_row(it: Interpreter, c: ir.Call) -> Value:
    """`tile.gather_row(dst, src, dst_offset, src_offset, [R, C][, valid_shape], transpose=)`:
    `dst` with the window of the tensor `src` at `src_offset` (its valid part: `valid_shape`,
    else `[R, C]`) written at `dst_offset` (in place: the result is the destination's buffer);
    transposed, the window's row `i` lands as column `i` (`[vr, vc]` written as `[vc, vr]`), as
    the reference's column-major source view loads it."""
    t = it._tile(c.args[0], c.span)
    tensor = it._tensor(c.args[1], c.span)
    r, col = _rc(it._list(c.args[2], "gather_row destination offset", c.span))
    offsets = it._list(c.args[3], "gather_row source offset", c.span)
    shape = it._list(c.args[4], "gather_row shape", c.span)
    vs_arg = c.args[5] if len(c.args) > 5 else c.kwarg("valid_shape")
    valid = it._list(vs_arg, "gather_row valid shape", c.span) if vs_arg is not None else list(shape)
    flag = c.kwarg("transpose")
    transpose = isinstance(flag, ir.ConstInt) and flag.value != 0
    if isinstance(tensor, TensorSym):
        raise InterpreterError("symbolic tensor in a computing run", c.span)
    if len(shape) != 2 or len(valid) != 2 or any(v < 0 or v > d for v, d in zip(valid, shape, strict=True)):
        raise _misfit(c, _spelled(vs_arg), valid, shape,
                      f"gather_row valid shape {valid} does not fit the window {shape}")
    if tensor.ndim != 2 or len(offsets) != 2:
        raise InterpreterError("gather_row reads a window of a rank-2 tensor", c.span)
    for k, (o, e, d) in enumerate(zip(offsets, valid, tensor.shape, strict=True)):
        if e > 0 and (o < 0 or o + e > d):
            raise _outside(c, k, o + e, d, f"gather_row reads rows/columns [{o}, {o + e}) outside a tensor "
                           f"dimension of size {d} (offsets {offsets}, valid shape {valid})")
    window = tensor[offsets[0]:offsets[0] + valid[0], offsets[1]:offsets[1] + valid[1]]
    if transpose:
        window = window.T
    vr, vc = window.shape
    if r < 0 or col < 0 or r + vr > t.shape[0] or col + vc > t.shape[1] \
            or _tensor_dtype(c.args[1]) != t.dtype:
        raise InterpreterError(f"gather_row of a [{vr}, {vc}] window at [{r}, {col}] leaves the "
                               f"{list(t.shape)} destination", c.span)
    data = _need_data(t).copy()
    data[r:r + vr, col:col + vc] = window
    return TileVal(data, t.valid, t.dtype, t.shape, t.backing)


def _op_transpose_view(it: Interpreter, c: ir.Call) -> Value:
    t = it._tile(c.args[0], c.span)
    return TileVal(_need_data(t).T.copy(), (t.valid[1], t.valid[0]), t.dtype, (t.shape[1], t.shape[0]),
                   t.backing)


# --------------------------------------------------------------------------------------
# the sort family (`pto.tsort32`, `pto.tmrgsort`) and the mask-pattern gather
#
# Facts (the reference, tests/st/runtime/ops/test_sort.py and its goldens; src/ir/op/tile_ops/
# sort.cpp; python/pypto/language/op/tile_ops.py): TSORT32 sorts each 32-element block of a
# row in descending order and writes (value, index) pairs interleaved into an FP32 row of twice
# the width, the index being the idx tile's element at the value's position, stored as its raw
# 32 bits (`idx[order].view(float32)`); idx is an input only. TMRGSORT format1 merges, in each
# row, every 4 consecutive sorted runs of `block_len` FP32 elements (`block_len / 2` pairs)
# into one descending run (the goldens sort 4 * 64, then 4 * 256 ... to a full descending sort);
# format2 merges its 2 to 4 sorted source rows into the destination (the tmp tile's shape).
# Equal values keep their input order (the order of the concatenated lists for a merge): the
# constraint "score[i] == score[j], i > j: score[j] is selected first, the index order follows
# the input order" of the A2/A3 Sort and MrgSort instructions (CANN 8.5.0 Ascend C API,
# atlasascendc_api_07_0847 and its Sort page), which TSORT32 / TMRGSORT issue there. A NaN, or
# zeros of both signs, in one sort stop the run with `Unmodelled` rather than guess; so do
# `exhausted=True` (the merge stops when a list runs out: what the rest of the destination
# holds is not documented), unsorted merge inputs, an FP16 source (its pair layout differs)
# and any shape the goldens do not cover.


def _sort_tile(it: Interpreter, arg: ir.CallArg, what: str, c: ir.Call) -> TileVal:
    t = it._tile(arg, c.span)
    if t.dtype is not DType.FP32:
        raise Unmodelled(f"the interpreter models {c.op} of FP32 tiles only ({what} is "
                         f"pl.{t.dtype.value})", c.span)
    if t.valid != t.shape:
        raise Unmodelled(f"the interpreter models {c.op} of a fully valid {what} only (valid "
                         f"{list(t.valid)} of {list(t.shape)})", c.span)
    return t


def _sorted_pairs(values: Array, bits: Array, c: ir.Call) -> tuple[Array, Array]:
    """The (value, index-bits) pairs in descending order of value, equal values in their input
    order; a NaN, or zeros of both signs (whose order the reference does not document), are
    `Unmodelled`."""
    if np.isnan(values).any():
        raise Unmodelled(f"{c.op} of a NaN: the reference does not document where it sorts", c.span)
    zeros = values[values == 0]
    if len(np.unique(np.signbit(zeros))) > 1:
        raise Unmodelled(f"{c.op} of +0.0 and -0.0: the reference does not document their order", c.span)
    order = np.argsort(-values.astype(np.float64), kind="stable")
    return values[order], bits[order]


def _interleave(values: Array, bits: Array) -> Array:
    out = np.empty(2 * len(values), dtype=np.uint32)
    out[0::2] = values.astype(np.float32).view(np.uint32)
    out[1::2] = bits
    return out.view(np.float32)


def _split_pairs(row: Array) -> tuple[Array, Array]:
    raw = np.ascontiguousarray(row, dtype=np.float32).view(np.uint32)
    return raw[0::2].view(np.float32).copy(), raw[1::2].copy()


def _ensure_descending(values: Array, what: str, c: ir.Call) -> None:
    if len(values) > 1 and not bool((values[:-1] >= values[1:]).all()):
        raise Unmodelled(f"{c.op} of a {what} that is not descending: the reference "
                         "documents the merge of sorted lists only", c.span)


def _op_sort32(it: Interpreter, c: ir.Call) -> Value:
    """`tile.sort32(src, idx)`: each 32-element block of each row of `src` sorted descending,
    as (value, idx bits) pairs in an FP32 row of twice the width (see the facts above)."""
    src = _sort_tile(it, c.args[0], "the source", c)
    idx = it._tile(c.args[1], c.span)
    rows, cols = src.shape
    if idx.dtype not in (DType.UINT32, DType.INT32) or idx.shape != src.shape or idx.valid != idx.shape:
        raise Unmodelled("the interpreter models tile.sort32 with a fully valid 32-bit integer index "
                         "tile of the source's shape only", c.span)
    if cols % 32:
        raise Unmodelled(f"tile.sort32 of {cols} columns (not a multiple of 32)", c.span)
    vals = _need_data(src)
    bits = _need_data(idx).astype(np.int64).astype(np.uint32)
    out = np.empty((rows, 2 * cols), dtype=np.float32)
    for r in range(rows):
        for b in range(0, cols, 32):
            v, ix = _sorted_pairs(vals[r, b:b + 32].astype(np.float32), bits[r, b:b + 32], c)
            out[r, 2 * b:2 * b + 64] = _interleave(v, ix)
    return TileVal(out, (rows, 2 * cols), DType.FP32, (rows, 2 * cols))


def _merge(runs: Sequence[Array], c: ir.Call) -> Array:
    vs, bs = [], []
    for k, run in enumerate(runs):
        v, b = _split_pairs(run)
        _ensure_descending(v, f"list {k}", c)
        vs.append(v)
        bs.append(b)
    v, b = _sorted_pairs(np.concatenate(vs), np.concatenate(bs), c)
    return _interleave(v, b)


def _op_mrgsort1(it: Interpreter, c: ir.Call) -> Value:
    """`tile.mrgsort_format1(src, block_len)`: every 4 consecutive descending runs of `block_len`
    elements of the one-row `src` merged into one descending run."""
    src = _sort_tile(it, c.args[0], "the source", c)
    arg = c.args[1]
    block = it.scalar(arg) if isinstance(arg, ir.SCALAR_EXPRS) else None  # type: ignore[arg-type]
    if not isinstance(block, int) or block <= 0 or block % 64:
        raise InterpreterError(f"tile.mrgsort_format1 needs a block_len that is a positive multiple of 64, "
                               f"not {block}", c.span)
    rows, cols = src.shape
    if rows != 1:
        raise Unmodelled(f"tile.mrgsort_format1 of {rows} rows (the reference's tests merge one row)", c.span)
    if cols % (4 * block):
        raise Unmodelled(f"tile.mrgsort_format1 of {cols} columns with block_len {block} (not whole groups "
                         "of 4 runs, which the reference's tests do not cover)", c.span)
    data = _need_data(src)
    out = np.empty((rows, cols), dtype=np.float32)
    for r in range(rows):
        for g in range(0, cols, 4 * block):
            runs = [data[r, g + k * block:g + (k + 1) * block] for k in range(4)]
            out[r, g:g + 4 * block] = _merge(runs, c)
    return TileVal(out, (rows, cols), DType.FP32, (rows, cols))


def _op_mrgsort2(it: Interpreter, c: ir.Call) -> Value:
    """`tile.mrgsort_format2(src0, src1[, src2[, src3]], tmp, exhausted=False)`: the 2 to 4
    descending one-row lists merged into one descending row of the tmp tile's shape
    (`exhausted=True` is declined by `unmodelled_call`)."""
    srcs = [_sort_tile(it, a, f"list {k}", c) for k, a in enumerate(c.args[:-1])]
    tmp = it._tile(c.args[-1], c.span)
    total = sum(s.shape[1] for s in srcs)
    if any(s.shape[0] != 1 for s in srcs) or tmp.shape != (1, total):
        raise Unmodelled("the interpreter models tile.mrgsort_format2 of one-row lists into a one-row "
                         "tmp tile as wide as the lists together only", c.span)
    if any(s.shape[1] % 2 for s in srcs):
        raise InterpreterError("tile.mrgsort_format2 needs lists of whole (value, index) pairs", c.span)
    out = _merge([_need_data(s)[0] for s in srcs], c).reshape(1, total)
    return TileVal(out, (1, total), DType.FP32, (1, total))


_MASK_PATTERNS = {1: (2, 0), 2: (2, 1), 3: (4, 0), 4: (4, 1), 5: (4, 2), 6: (4, 3), 7: (1, 0)}
"""`tile.gather_mask`'s `mask_pattern` (P0101 .. P1111): (stride, first column)."""


def _op_gather_mask(it: Interpreter, c: ir.Call) -> Value:
    """`tile.gather_mask(src, mask_pattern=P[, output_dtype=D])`: the columns the pattern selects
    (P0101: 0, 2, 4, ...; P1010: 1, 3, 5, ...; P0001 .. P1000: every fourth from 0 .. 3; P1111:
    all) of each row, compacted; `output_dtype` (of the same width) reinterprets the bits."""
    t = it._tile(c.args[0], c.span)
    pattern = c.kwarg("mask_pattern")
    if pattern is None and len(c.args) > 1:
        pattern = c.args[1]
    if not isinstance(pattern, ir.ConstInt) or pattern.value not in _MASK_PATTERNS:
        raise InterpreterError("tile.gather_mask needs a literal mask_pattern in [1, 7]", c.span)
    stride, first = _MASK_PATTERNS[pattern.value]
    rows, cols = t.shape
    if t.valid != t.shape or cols % stride:
        raise Unmodelled("the interpreter models tile.gather_mask of a fully valid tile of whole "
                         "pattern groups only", c.span)
    out_type = c.kwarg("output_dtype")
    dtype = out_type.dtype if isinstance(out_type, ir.DTypeArg) else t.dtype
    src_np, dst_np = np.dtype(numpy_dtype(t.dtype)), np.dtype(numpy_dtype(dtype))
    if t.dtype is DType.BF16 or dtype is DType.BF16 or src_np.itemsize != dst_np.itemsize:
        raise Unmodelled(f"tile.gather_mask from pl.{t.dtype.value} to pl.{dtype.value}", c.span)
    data = np.ascontiguousarray(_need_data(t)[:, first::stride]).view(dst_np).copy()
    return TileVal(data, (rows, cols // stride), dtype, (rows, cols // stride))


_CMP_TYPES: dict[int, Callable[[Array, Array], Array]] = {
    0: np.equal, 1: np.not_equal, 2: np.less, 3: np.less_equal, 4: np.greater, 5: np.greater_equal}
"""`cmp_type` of `tile.cmp` / `tile.cmps`: EQ, NE, LT, LE, GT, GE (the reference's DSL docstrings)."""


def _op_cmp(it: Interpreter, c: ir.Call) -> Value:
    """`tile.cmp(lhs, rhs, cmp_type=K)` / `tile.cmps(lhs, scalar, cmp_type=K)`: per element of
    `lhs`'s valid region, `lhs K rhs` (pto-isa's TCMPS; IEEE comparisons, so a NaN is unequal
    to everything). The result is a packed predicate tile whose encoding pto-isa leaves
    target-defined (the reference types it as UINT8 of one bit per element); the run keeps the
    truth values (`Predicate`) with the type's shape and valid extent, and only `tile.sel`
    reads them. `tile.cmp` of tiles of two shapes (a broadcast) is declined."""
    a = it._tile(c.args[0], c.span)
    kind = c.kwarg("cmp_type")
    mode = 0 if kind is None else kind.value if isinstance(kind, ir.ConstInt) else None
    if mode not in _CMP_TYPES:
        raise InterpreterError(f"{c.op} needs a literal cmp_type in [0, 5]", c.span)
    if c.op == "tile.cmps":
        arg = c.args[1]
        s = it.scalar(arg) if isinstance(arg, ir.SCALAR_EXPRS) else None  # type: ignore[arg-type]
        if s is None:
            raise InterpreterError("tile.cmps needs a known scalar operand", c.span)
        other = np.full(a.shape, a.dtype.wrap(int(s)) if a.dtype.is_int else s, dtype=_need_data(a).dtype)
        valid = a.valid
    else:
        b = it._tile(c.args[1], c.span)
        if b.shape != a.shape or b.dtype != a.dtype:
            raise Unmodelled(f"tile.cmp of a {list(a.shape)} and a {list(b.shape)} tile", c.span)
        other = _need_data(b)
        valid = (min(a.valid[0], b.valid[0]), min(a.valid[1], b.valid[1]))
    truth = _CMP_TYPES[mode](_need_data(a), other)
    t = None if it._target is None else it._target.type
    shape = t.rows_cols if isinstance(t, ir.TileType) else (a.shape[0], -(-a.shape[1] // 8))
    packed = _declared_valid(it) or (valid[0], -(-valid[1] // 8))
    return TileVal(np.zeros(shape, np.uint8), packed, DType.UINT8, shape, None, Predicate(truth, valid))


def _op_sel(it: Interpreter, c: ir.Call) -> Value:
    """`tile.sel(mask, lhs, rhs, tmp)`: `lhs` where the comparison `mask` holds, else `rhs`,
    over `lhs`'s valid region (pto-isa's TSEL selects over the destination's valid region, which
    the reference's DeduceTileSelType takes from `lhs`); `tmp` is TSEL's scratch tile. Operands
    of two shapes or dtypes, and a mask whose comparison does not cover that region, are
    declined."""
    pred = it._predicate(c)
    lhs, rhs = it._tile(c.args[1], c.span), it._tile(c.args[2], c.span)
    it._tile(c.args[3], c.span)
    vr, vc = lhs.valid
    if lhs.shape != rhs.shape or lhs.dtype != rhs.dtype or pred.truth.shape != lhs.shape:
        raise Unmodelled(f"tile.sel of {list(lhs.shape)} and {list(rhs.shape)} tiles by a "
                         f"{list(pred.truth.shape)} comparison", c.span)
    if vr > pred.valid[0] or vc > pred.valid[1] or vr > rhs.valid[0] or vc > rhs.valid[1]:
        raise Unmodelled(f"tile.sel over [{vr}, {vc}] by a comparison valid over {list(pred.valid)} of a "
                         f"tile valid over {list(rhs.valid)}", c.span)
    data = _need_data(lhs).copy()
    data[:vr, :vc] = np.where(pred.truth[:vr, :vc], data[:vr, :vc], _need_data(rhs)[:vr, :vc])
    return TileVal(data, lhs.valid, lhs.dtype, lhs.shape)


def _op_sels(it: Interpreter, c: ir.Call) -> Value:
    """`tile.sels(mask, src, tmp, scalar)`: `src` where the comparison `mask` holds, else the
    scalar converted to `src`'s dtype, over `src`'s valid region (the PTO IR manual's TSELS;
    the reference's DeduceTileSelsType types the result as `src`); `tmp` is TSELS's scratch
    tile. A mask whose comparison does not cover that region is declined, as for `tile.sel`."""
    pred = it._predicate(c)
    src = it._tile(c.args[1], c.span)
    it._tile(c.args[2], c.span)
    vr, vc = src.valid
    if pred.truth.shape != src.shape:
        raise Unmodelled(f"tile.sels of a {list(src.shape)} tile by a {list(pred.truth.shape)} comparison",
                         c.span)
    if vr > pred.valid[0] or vc > pred.valid[1]:
        raise Unmodelled(f"tile.sels over [{vr}, {vc}] by a comparison valid over {list(pred.valid)}", c.span)
    data = _need_data(src).copy()
    data[:vr, :vc] = np.where(pred.truth[:vr, :vc], data[:vr, :vc], _scalar_tile(it, c, 3, src)[:vr, :vc])
    return TileVal(data, src.valid, src.dtype, src.shape)


def _op_scatter_mask(it: Interpreter, c: ir.Call) -> Value:
    """`tile.scatter_mask(dst, src, mask_pattern=P)`: `dst` with the `k`-th column the pattern
    selects (`_MASK_PATTERNS`) of each row replaced by column `k` of `src` (the reference's
    `DeduceTileScatterMaskType`: `dst` has `src`'s rows and `stride` times its columns).

    The reference's sources disagree on the columns the pattern does not select: its op table
    says they pass through from `dst`, its code generator's notes that the emitted
    pto.tscatter zero-fills them. Where `dst` holds zero there (+0.0 for floats) both say the
    same; elsewhere such an element is undefined data (`Undefined`), so `slotsat check`
    confirms nothing that depends on which source is right. Tiles valid over less than their
    shape are declined."""
    dst, src = it._tile(c.args[0], c.span), it._tile(c.args[1], c.span)
    pattern = c.kwarg("mask_pattern")
    if not isinstance(pattern, ir.ConstInt) or pattern.value not in _MASK_PATTERNS:
        raise InterpreterError("tile.scatter_mask needs a literal mask_pattern in [1, 7]", c.span)
    stride, first = _MASK_PATTERNS[pattern.value]
    if dst.dtype != src.dtype or dst.shape != (src.shape[0], src.shape[1] * stride):
        raise InterpreterError(f"tile.scatter_mask of a {list(src.shape)} pl.{src.dtype.value} tile into a "
                               f"{list(dst.shape)} pl.{dst.dtype.value} tile with "
                               f"mask_pattern={pattern.value}", c.span)
    if dst.valid != dst.shape or src.valid != src.shape:
        raise Unmodelled("the interpreter models tile.scatter_mask of fully valid tiles only", c.span)
    old = _need_data(dst)
    unselected = np.ones(dst.shape, dtype=bool)
    unselected[:, first::stride] = False
    agreed = old == 0
    if dst.dtype.is_float:
        agreed &= ~np.signbit(old)
    data = old.copy()
    undefined = unselected & ~agreed
    if bool(undefined.any()):
        what = (f"tile.scatter_mask at {c.span.line}:{c.span.col} leaves a column its pattern does not "
                "select where the destination is not zero (passed through or zero-filled: the reference's "
                "sources disagree)")
        data = np.where(undefined, it.undefined.data(dst.shape, dst.dtype, what), data)
    data[:, first::stride] = _need_data(src)
    return TileVal(data, dst.shape, dst.dtype, dst.shape)


def _op_gather(it: Interpreter, c: ir.Call) -> Value:
    """`tile.gather(src, indices, tmp)`: `dst[i, j] = src.flat[indices[i, j]]`, the flat
    element offset into the row-major `src` (the reference's docstring of `pl.tile.gather`:
    "Computes dst[i, j] = src[indices[i, j]]", and its lowering of a last-dim gather to flat
    offsets `i * src_cols + index[i, j]`); `tmp` is scratch space. An offset outside `src` is
    an `InterpreterError` (the hardware reads whatever is there).

    A partly valid `src` is read by its buffer, as pto-isa's TGATHER reads `src0[indices[i,
    j]]` for every element of the destination's valid region whatever the source's valid
    extent: an offset inside the buffer but outside the valid region reads data the program
    never defined, so that element is the run's filling of undefined data (`Undefined`), never
    the interpreter's own filler, and `slotsat check` confirms nothing such data reaches. The
    indices must be fully valid (the reference types the result by them; the device reads
    every one)."""
    src, idx = it._tile(c.args[0], c.span), it._tile(c.args[1], c.span)
    it._tile(c.args[2], c.span)
    if idx.valid != idx.shape:
        raise Unmodelled("the interpreter models tile.gather by fully valid indices only", c.span)
    if idx.dtype not in (DType.INT32, DType.INT16) or src.dtype is DType.BF16:
        raise Unmodelled(f"tile.gather of pl.{src.dtype.value} by pl.{idx.dtype.value} offsets", c.span)
    flat = _need_data(src).reshape(-1)
    offsets = _need_data(idx).astype(np.int64)
    if bool(np.any((offsets < 0) | (offsets >= flat.size))):
        bad = int(offsets[(offsets < 0) | (offsets >= flat.size)][0])
        raise InterpreterError(f"tile.gather offset {bad} is outside the {list(src.shape)} source", c.span)
    out = flat[offsets].copy()
    rows, cols = offsets // src.shape[1], offsets % src.shape[1]
    undefined = (rows >= src.valid[0]) | (cols >= src.valid[1])
    if bool(undefined.any()):
        what = f"tile.gather at {c.span.line}:{c.span.col} reads outside its source's valid part"
        out = np.where(undefined, it.undefined.data(out.shape, src.dtype, what), out)
    return TileVal(out, idx.shape, src.dtype, idx.shape)


GATHERB_BLOCK = 32
"""The bytes one `tile.gatherb` offset moves (pto-isa's TGATHERB block)."""


def _op_gatherb(it: Interpreter, c: ir.Call) -> Value:
    """`tile.gatherb(src, offsets, output_dtype=T)`: for each valid offset `[r, b]` (UINT32, a
    byte offset into `src`'s row-major buffer), the 32 bytes from there are bytes `32 * b ..` of
    row `r` of the result, read as `T` (default: `src`'s dtype), valid over the offsets' valid
    rows and `32 / sizeof(T)` columns per valid offset (the reference's docstring and the golden
    of its runtime test, test_gatherb.py).

    A block past the end of `src` is an `InterpreterError` (pto-isa leaves it undefined); an
    offset that is not a multiple of 32 is declined (every offset the reference's test draws
    is); a byte outside `src`'s valid part is undefined data, as for `tile.gather`. BF16 is
    declined (the run holds it as float32, so its bytes are not the device's)."""
    src, idx = it._tile(c.args[0], c.span), it._tile(c.args[1], c.span)
    value = c.kwarg("output_dtype")
    dtype = value.dtype if isinstance(value, ir.DTypeArg) else src.dtype
    if idx.dtype is not DType.UINT32:
        raise InterpreterError(f"tile.gatherb takes pl.UINT32 byte offsets, not pl.{idx.dtype.value}", c.span)
    if DType.BF16 in (src.dtype, dtype):
        raise Unmodelled(f"tile.gatherb from pl.{src.dtype.value} to pl.{dtype.value} (BF16 bytes)", c.span)
    per = GATHERB_BLOCK // dtype.nbytes
    rows, blocks = idx.shape
    vr, vb = idx.valid
    data = np.ascontiguousarray(_need_data(src))
    source = data.view(np.uint8).reshape(-1)
    offsets = _need_data(idx)[:vr, :vb].astype(np.int64)
    if bool((offsets % GATHERB_BLOCK).any()):
        bad = int(offsets[offsets % GATHERB_BLOCK != 0][0])
        raise Unmodelled(f"tile.gatherb at byte offset {bad}, not a multiple of {GATHERB_BLOCK}", c.span)
    if bool((offsets + GATHERB_BLOCK > source.size).any()):
        bad = int(offsets[offsets + GATHERB_BLOCK > source.size][0])
        raise InterpreterError(f"tile.gatherb block at byte offset {bad} runs past the {source.size}-byte "
                               "source", c.span)
    picks = offsets[..., None] + np.arange(GATHERB_BLOCK)  # [vr, vb, 32] byte addresses
    out = np.zeros((rows, blocks * GATHERB_BLOCK), dtype=np.uint8)
    out[:vr, :vb * GATHERB_BLOCK] = source[picks].reshape(vr, vb * GATHERB_BLOCK)
    result = out.view(numpy_dtype(dtype)).copy()
    element = picks // src.dtype.nbytes  # the source element each byte belongs to
    by_byte = (element // src.shape[1] >= src.valid[0]) | (element % src.shape[1] >= src.valid[1])
    outside = np.asarray(by_byte).reshape(vr, vb * per, dtype.nbytes).any(axis=-1)  # per result element
    if bool(outside.any()):
        what = f"tile.gatherb at {c.span.line}:{c.span.col} reads outside its source's valid part"
        part = result[:vr, :vb * per]
        result[:vr, :vb * per] = np.where(outside, it.undefined.data(part.shape, dtype, what), part)
    return TileVal(result, (vr, vb * per), dtype, (rows, blocks * per))


def _op_scatter_update(it: Interpreter, c: ir.Call) -> Value:
    """`tile.scatter_update(input, index, src, dim=-2)`: row `index.flat[k]` of `input` becomes
    row `k` of `src`, in order (a later write of a row wins), in place on `input` (the
    reference's docstring of its 2-D form and the golden of its runtime test,
    test_scatter_update.py, duplicate indices included). A row index outside `input` is an
    `InterpreterError`; a partly valid index or source is declined."""
    dst, idx, src = (it._tile(a, c.span) for a in c.args[:3])
    dim = c.kwarg("dim")
    if dim is not None and not (isinstance(dim, ir.ConstInt) and dim.value in (-2, 0)):
        raise Unmodelled("tile.scatter_update along a dimension other than the rows (dim=-2)", c.span)
    if idx.valid != idx.shape or src.valid != src.shape:
        raise Unmodelled("the interpreter models tile.scatter_update of a fully valid index and source only",
                         c.span)
    count = idx.shape[0] * idx.shape[1]
    if src.dtype != dst.dtype or src.shape != (count, dst.shape[1]) or not idx.dtype.is_int:
        raise InterpreterError(f"tile.scatter_update of {list(src.shape)} pl.{src.dtype.value} rows by a "
                               f"{list(idx.shape)} pl.{idx.dtype.value} index into a {list(dst.shape)} "
                               f"pl.{dst.dtype.value} tile", c.span)
    rows = _need_data(idx).reshape(-1).astype(np.int64)
    if bool(((rows < 0) | (rows >= dst.shape[0])).any()):
        bad = int(rows[(rows < 0) | (rows >= dst.shape[0])][0])
        raise InterpreterError(f"tile.scatter_update row {bad} is outside the {list(dst.shape)} tile", c.span)
    data, update = _need_data(dst).copy(), _need_data(src)
    for k, row in enumerate(rows.tolist()):  # in order, so a later write of a row wins
        data[row] = update[k]
    return TileVal(data, dst.valid, dst.dtype, dst.shape, dst.backing)


def _op_scatter(it: Interpreter, c: ir.Call) -> Value:
    """`tile.scatter(dst, src, indexes)`: `dst.flat[indexes[i, j]] = src[i, j]` over `src`'s
    valid region, in place on `dst` (the reference's docstring of `pl.tile.scatter`; the result
    aliases `dst`'s buffer and keeps its valid extent). An offset outside `dst` is an
    `InterpreterError`; of two elements written to one offset the later one in row-major order
    wins (the reference's runtime tests pin it: test_scatter.py's repeated indices, "ascending-k
    last-wins", and test_scatter_update.py's repeated rows, which the reference lowers to this
    op)."""
    dst, src, idx = (it._tile(a, c.span) for a in c.args[:3])
    if idx.shape != src.shape or src.dtype != dst.dtype:
        raise InterpreterError(f"'{c.op}' needs indexes of the source's shape and a destination of its dtype",
                               c.span)
    if idx.valid[0] < src.valid[0] or idx.valid[1] < src.valid[1]:
        raise Unmodelled("the interpreter models tile.scatter by indexes valid over the source's valid part",
                         c.span)
    data = _scattered(it, c, _need_data(dst), src, idx)
    return TileVal(data, dst.valid, dst.dtype, dst.shape, dst.backing)


def _scattered(it: Interpreter, c: ir.Call, dst: Array, src: TileVal, idx: TileVal) -> Array:
    """A copy of the destination `dst` (of `src`'s dtype) with `src`'s valid elements written
    at the flat offsets `idx` holds (`tile.scatter`, `tile.mscatter`): an offset outside it is
    an `InterpreterError`. An offset written twice with different values takes the later
    element in row-major order for `tile.scatter`, which writes in that order; for
    `tile.mscatter` it is undefined data (the DMA's order decides)."""
    shape = list(dst.shape)
    vr, vc = src.valid
    offsets = _need_data(idx)[:vr, :vc].astype(np.int64).reshape(-1)
    values = _need_data(src)[:vr, :vc].reshape(-1)
    out = dst.reshape(-1).copy()
    outside = (offsets < 0) | (offsets >= out.size)
    if bool(outside.any()):
        raise InterpreterError(f"{c.op} offset {int(offsets[outside][0])} is outside the {shape} destination",
                               c.span)
    if c.op == "tile.scatter":  # the last write of each offset wins
        _, from_end = np.unique(offsets[::-1], return_index=True)
        last = offsets.size - 1 - from_end
        out[offsets[last]] = values[last]
        return out.reshape(dst.shape)
    out[offsets] = values
    written: dict[int, Any] = {}
    clash = np.zeros(out.size, dtype=bool)
    for o, v in zip(offsets.tolist(), values.tolist(), strict=True):
        if o in written and not _same_element(written[o], v):
            clash[o] = True
        written[o] = v
    if bool(clash.any()):
        what = f"{c.op} at {c.span.line}:{c.span.col} writes one offset twice with different values"
        out = np.where(clash, it.undefined.data(out.shape, src.dtype, what), out)
    return out.reshape(dst.shape)


def _op_mscatter(it: Interpreter, c: ir.Call) -> Value:
    """`tile.mscatter(src, idx, output_tensor)`: `output_tensor.flat[idx[i, j]] = src[i, j]`
    over `src`'s valid region (the ISA's MSCATTER reads an index as a linear element offset of
    the tensor, as PyPTO's runtime test of the op does), in place on the tensor, which the
    result names; offsets as `tile.scatter`'s (`_scattered`)."""
    src, idx = it._tile(c.args[0], c.span), it._tile(c.args[1], c.span)
    tensor = it._tensor(c.args[2], c.span)
    _no_viewed_store(it, tensor, c)
    if isinstance(tensor, TensorSym) or src.data is None:
        raise InterpreterError("symbolic value in a computing run", c.span)
    if isinstance(tensor, PagedTensor):
        raise Unmodelled("the interpreter models tile.mscatter into a tensor it holds whole", c.span)
    if idx.shape != src.shape or not idx.dtype.is_int or _tensor_dtype(c.args[2]) != src.dtype:
        raise InterpreterError(f"'{c.op}' needs integer indexes of the source's shape and a tensor of its "
                               "dtype", c.span)
    if idx.valid[0] < src.valid[0] or idx.valid[1] < src.valid[1]:
        raise Unmodelled("the interpreter models tile.mscatter by indexes valid over the source's valid part",
                         c.span)
    tensor[...] = _scattered(it, c, tensor, src, idx)  # in place, as `_op_store`
    return tensor


def _op_mgather(it: Interpreter, c: ir.Call) -> Value:
    """`tile.mgather(mem, idx, coalesce=, gather_oob=)` into a Vec tile (pto-isa's MGATHER, as
    the reference's op docstring and runtime test state it): in elem mode
    `dst[i, j] = mem.flat[idx[i, j]]` over the indices' shape; in row mode the indices are a
    `[1, R]` or `[R, 1]` vector and `dst[r, :] = rows[idx[r], :]`, where `rows` is `mem` as a
    matrix of its last dimension's rows. An index is read as an unsigned 32-bit integer (the
    golden of the reference's runtime test, test_mgather.py: `bitwise_and(0xFFFFFFFF)`, so a
    negative index lies past every extent). An index outside `mem` is an `InterpreterError`
    under `gather_oob` undefined (the hardware reads whatever is there); `clamp` clamps it to
    the last row or element, `wrap` takes it modulo the extent, `zero` reads 0. Entries beyond
    the indices' valid part hold undefined data. Into a Mat tile: `_mgather_mat_rows`."""
    space = c.kwarg("target_memory")  # Vec or Mat (`_mgather_unmodelled` declines the others)
    if isinstance(space, ir.SpaceArg) and space.space is ir.MemorySpace.Mat:
        return _mgather_mat_rows(it, c)
    mem = it._tensor(c.args[0], c.span)
    idx = it._tile(c.args[1], c.span)
    if isinstance(mem, TensorSym) or idx.data is None:
        raise InterpreterError("symbolic value in a computing run", c.span)
    if isinstance(mem, PagedTensor):
        raise Unmodelled("the interpreter models tile.mgather from a tensor it holds whole", c.span)
    if idx.dtype is not DType.INT32 or len(idx.shape) != 2:
        raise InterpreterError("tile.mgather reads a rank-2 tile of INT32 indices", c.span)
    modes = ops.mgather_modes(c)
    if modes is None:
        raise InterpreterError(ops.MGATHER_MODES_MESSAGE, c.span)
    elem, oob = modes
    dtype = _tensor_dtype(c.args[0])
    rows = mem.reshape(-1) if elem else mem.reshape(-1, mem.shape[-1] if mem.ndim else 1)
    if elem:
        offsets, shape = _need_data(idx).astype(np.int64), idx.shape
        valid = _valid_mask(idx.shape, idx.valid)
    else:
        if 1 not in idx.shape or mem.ndim < 2:
            raise InterpreterError("tile.mgather row mode reads a [1, R] or [R, 1] index vector of a tensor "
                                   "of rank 2 or more", c.span)
        axis = 1 if idx.shape[0] == 1 else 0
        offsets = _need_data(idx).astype(np.int64).reshape(-1)
        shape = (idx.shape[axis], mem.shape[-1])
        valid = np.zeros(shape, dtype=bool)
        valid[: idx.valid[axis], :] = True
    out = _gathered(c, rows, offsets, oob, valid if elem else valid[:, 0]).reshape(shape)
    what = f"tile.mgather at {c.span.line}:{c.span.col}: entries beyond its indices' valid part"
    out = np.where(valid, out, it.undefined.data(shape, dtype, what))
    valid_extent = idx.valid if elem else (idx.valid[1 if idx.shape[0] == 1 else 0], mem.shape[-1])
    return TileVal(out, valid_extent, dtype, shape)


def _gathered(c: ir.Call, rows: Array, offsets: Array, oob: str, active: Array) -> Array:
    """`rows[offsets]` (elements or rows of the source) under `tile.mgather`'s out-of-bounds
    mode: an index read as an unsigned 32-bit integer (`-1` lies past every extent); `clamp` to
    the last one, `wrap` modulo the extent, `zero` reads 0, and under `undefined` an index
    outside the source where `active` holds (an entry of the result's valid part) is an
    `InterpreterError`."""
    extent = rows.shape[0]
    offsets = offsets & 0xFFFFFFFF
    outside = offsets >= extent
    if oob == "clamp":
        offsets = np.clip(offsets, 0, extent - 1)
    elif oob == "wrap":
        offsets = np.mod(offsets, extent)
    elif oob == "undefined" and bool((outside & active).any()):
        bad = int(offsets[outside & active][0])
        raise InterpreterError(f"tile.mgather index {bad} is outside the {extent} "
                               f"{'elements' if rows.ndim == 1 else 'rows'} of its source", c.span)
    out = rows[np.where(outside, 0, offsets) if oob in ("zero", "undefined") else offsets].copy()
    if oob == "zero":
        out[outside] = 0
    return out


_MAT_ELEM_GATHER = "tile.mgather into a Mat tile in elem mode (staged through a GM scratch tensor)"


def _mgather_unmodelled(c: ir.Call) -> str | None:
    """Why the interpreter does not run this `tile.mgather` (into a tile other than Vec or Mat,
    or into Mat in elem mode), or None."""
    space = c.kwarg("target_memory")
    if not isinstance(space, ir.SpaceArg) or space.space is ir.MemorySpace.Vec:
        return None
    if space.space is not ir.MemorySpace.Mat:
        return f"tile.mgather with target_memory=pl.Mem.{space.space.value} (a Vec or Mat tile only)"
    modes = ops.mgather_modes(c)
    return _MAT_ELEM_GATHER if modes is not None and modes[0] else None


def _mgather_mat_rows(it: Interpreter, c: ir.Call) -> Value:
    """`tile.mgather(mem, idx, coalesce=0, target_memory=Mat, valid_shape=[R, C])` in row mode:
    row `r` of the result is row `idx.flat[r]` of `mem` (as a matrix of its last dimension's
    rows), the index vector a GM tensor, read unsigned under the out-of-bounds mode as in the
    Vec form (`_gathered`); the result is valid over `valid_shape` (the whole tile without one)
    and holds undefined data elsewhere (the golden of the reference's runtime test,
    test_mgather.py's Mat row cases). Elem mode, which stages through a GM scratch tensor the
    run would have to write, is declined."""
    modes = ops.mgather_modes(c)
    if modes is None:
        raise InterpreterError(ops.MGATHER_MODES_MESSAGE, c.span)
    _, oob = modes  # row mode (`_mgather_unmodelled` declines elem mode)
    mem, index = it._tensor(c.args[0], c.span), it._tensor(c.args[1], c.span)
    if not isinstance(mem, np.ndarray) or not isinstance(index, np.ndarray) or mem.ndim < 2:
        raise Unmodelled("tile.mgather into a Mat tile from tensors held whole, of rank 2 or more", c.span)
    if _tensor_dtype(c.args[1]) is not DType.INT32:
        raise InterpreterError("tile.mgather reads INT32 indices", c.span)
    target = it._target.type if it._target is not None else None
    if not isinstance(target, ir.TileType):
        raise InterpreterError(f"{c.op} needs a tile result", c.span)
    shape = target.rows_cols
    offsets = index.reshape(-1).astype(np.int64)
    if offsets.size < shape[0] or shape[1] != mem.shape[-1]:
        raise InterpreterError(f"tile.mgather of {offsets.size} rows of {mem.shape[-1]} into a {list(shape)} "
                               "tile", c.span)
    window = c.kwarg("valid_shape")
    valid = shape if window is None else _rc(it._list(window, "mgather valid shape", c.span))
    if not (0 <= valid[0] <= shape[0] and 0 <= valid[1] <= shape[1]):
        raise InterpreterError(f"tile.mgather valid shape {list(valid)} does not fit the tile {list(shape)}",
                               c.span)
    active = np.arange(shape[0]) < valid[0]
    out = _gathered(c, mem.reshape(-1, mem.shape[-1]), offsets[:shape[0]], oob, active)
    dtype = _tensor_dtype(c.args[0])
    what = f"tile.mgather at {c.span.line}:{c.span.col}: entries beyond its valid shape"
    out = np.where(_valid_mask(shape, valid), out, it.undefined.data(shape, dtype, what))
    return TileVal(out, valid, dtype, shape)


def _valid_mask(shape: tuple[int, ...], valid: tuple[int, ...]) -> Array:
    mask = np.zeros(shape, dtype=bool)
    mask[tuple(slice(0, v) for v in valid)] = True
    return mask


def _same_element(a: Any, b: Any) -> bool:
    """Equal elements, a NaN equal to a NaN (bits the hardware's order cannot tell apart)."""
    return bool(a == b or (math.isnan(a) and math.isnan(b)))


_PAD_VALUES: dict[str, dict[DType, float | int]] = {
    "zero": {d: 0 for d in (DType.FP32, DType.FP16, DType.BF16, DType.INT32, DType.INT16, DType.INT8,
                            DType.UINT32, DType.UINT16, DType.UINT8)},
    "max": {DType.FP32: math.inf, DType.FP16: math.inf, DType.BF16: math.inf, DType.INT32: 2**31 - 1,
            DType.INT16: 2**15 - 1, DType.INT8: 2**7 - 1, DType.UINT32: 2**32 - 1, DType.UINT16: 2**16 - 1,
            DType.UINT8: 2**8 - 1},
    "min": {DType.FP32: -math.inf, DType.FP16: -math.inf, DType.BF16: -math.inf, DType.INT32: -2**31,
            DType.INT16: -2**15, DType.UINT32: 0, DType.UINT16: 0, DType.UINT8: 0},
}
"""What `tile.fillpad` writes for `pl.PadValue.zero / max / min`, per element dtype: pto-isa's
pad-value table (`PadValueMap` in include/pto/common/constants.hpp, the bits `TFILLPAD` on
A2/A3 duplicates: FP32 0xff800000 / 0x7f800000, FP16 0xfc00 / 0x7c00, BF16 0xff80 / 0x7f80,
INT32 0x80000000 / 0x7fffffff, INT16 0x8000 / 0x7fff, unsigned 0 / all ones), which its CPU
simulator's `TFillPad` agrees with (negative / positive infinity where the dtype has one, else
the type's lowest / largest), as do the reference's ST goldens (tests/st/runtime/ops/
test_fillpad.py: FP32 max is inf, min is -inf). Left out, so declined: `min` of INT8 (pto-isa's
table has held both 0xff and 0x80 for it), 64-bit integers (the device table pads them with 0
whatever the mode, the simulator with the type's limits) and BOOL (not in the table). The
reference's debug torch code generator pads floats with the finite `finfo` limits instead; the
device's table and goldens decide."""


_PADDING = frozenset({"tile.fillpad", "tile.fillpad_inplace", "tile.fillpad_expand"})
"""The ops that pad with a `pl.PadValue` (`_PAD_VALUES`)."""


def _fillpad_mode(c: ir.Call) -> str:
    """The `pl.PadValue` member a `tile.fillpad` call pads with (`zero` when it names none)."""
    arg = c.kwarg("pad_value")
    if arg is None:
        return "zero"
    return arg.member if isinstance(arg, ir.EnumArg) and arg.enum == "pl.PadValue" else "?"


def _fillpad_unmodelled(c: ir.Call) -> str | None:
    """Why the interpreter does not run this `tile.fillpad` (its pad mode or its source's
    dtype has no pinned-down pad value), or None."""
    mode = _fillpad_mode(c)
    if mode not in _PAD_VALUES:
        return f"{c.op} other than with pad_value=pl.PadValue.zero, max or min"
    src = c.args[0] if c.args else None
    if isinstance(src, ir.Var) and isinstance(src.type, ir.TileType) \
            and src.type.dtype not in _PAD_VALUES[mode]:
        return (f"{c.op} of pl.{src.type.dtype.value} with pl.PadValue.{mode} (the value pto-isa "
                "pads with is not pinned down for this dtype)")
    return None


def _op_fillpad(it: Interpreter, c: ir.Call) -> Value:
    """`tile.fillpad(src, pad_value=pl.PadValue.P)`: a new tile of `src`'s shape whose valid
    part is `src`'s and every other element the pad value (`_PAD_VALUES`); the result is valid
    over its whole shape (the reference's type rule, `tile.fillpad` in
    src/ir/op/tile_ops/elementwise.cpp; pto-isa's TFILLPAD pads to the right of the valid
    columns and below the valid rows). On the device the columns between the valid extent and
    the next 32-byte boundary are rewritten only when the source's own pad differs from the
    requested one; a source that already carries that pad keeps whatever its buffer holds
    there, so that case is declined unless the valid columns end on a 32-byte boundary."""
    return _padded(it, c, it._tile(c.args[0], c.span).shape)


def _padded(it: Interpreter, c: ir.Call, shape: tuple[int, int]) -> TileVal:
    """A new tile of `shape` holding the valid part of the source (`c`'s first argument) at its
    top left and the pad value of `c`'s `pad_value` everywhere else, valid over all of it."""
    t = it._tile(c.args[0], c.span)
    mode = _fillpad_mode(c)
    fill = _PAD_VALUES.get(mode, {}).get(t.dtype)
    if fill is None:
        raise Unmodelled(f"the interpreter does not model {_fillpad_unmodelled(c)}", c.span)
    src = c.args[0]
    src_pad = src.type.layout.pad if isinstance(src, ir.Var) and isinstance(src.type, ir.TileType) \
        and src.type.layout is not None else None
    vr, vc = t.valid
    if src_pad == mode and vc % (32 // t.dtype.nbytes) and vc < shape[1]:
        raise Unmodelled(f"{c.op} to pl.PadValue.{mode} of a tile that already carries that pad, "
                         f"its {vc} valid columns not ending on a 32-byte boundary (the device leaves "
                         "the columns up to the boundary as they are)", c.span)
    data = np.full(shape, fill, dtype=numpy_dtype(t.dtype))
    data[:vr, :vc] = _need_data(t)[:vr, :vc]
    return TileVal(as_dtype(data, t.dtype), shape, t.dtype, shape)


def _op_fillpad_expand(it: Interpreter, c: ir.Call) -> Value:
    """`tile.fillpad_expand(src, [R, C], pad_value=...)`: `tile.fillpad` into a destination of
    `[R, C]`, each at least the source's extent (the reference's docstring and the golden of
    its runtime test, test_fillpad_expand.py: `dst[i, j] = src[i, j]` inside the source's
    valid region, the pad value elsewhere)."""
    t = it._tile(c.args[0], c.span)
    shape = _rc(it._list(c.args[1], "fillpad_expand shape", c.span))
    if shape[0] < t.shape[0] or shape[1] < t.shape[1]:
        raise InterpreterError(f"tile.fillpad_expand to {list(shape)} of a {list(t.shape)} tile (the "
                               "destination must be at least the source's shape)", c.span)
    return _padded(it, c, shape)


def _op_fillpad_inplace(it: Interpreter, c: ir.Call) -> Value:
    """`tile.fillpad_inplace(src, pad_value=...)`: `tile.fillpad`'s values (the reference's
    docstring: TFILLPAD_INPLACE, the same padding into the source's own buffer), valid over
    the source's shape, in the source's buffer."""
    t = it._tile(c.args[0], c.span)
    return replace(_padded(it, c, t.shape), backing=t.backing)


# ---- cross-core pipes (a Group function's halves; `_run_group`)
#
# Facts (the reference's debug runtime, docs/en/dev/debug/00-torch_codegen.md, and
# src/backend/common/pto_ops_crosscore.cpp): a pipe is a FIFO of tiles per direction (C2V
# `dir_mask=1`, V2C `dir_mask=2`); with `split=0` and an AIV half stamped `dual_aiv_dispatch`
# the AIV body runs on two lanes: a push to the AIV reaches both lanes' queues, a lane pops its
# own; a push to the AIC is queued per lane and the cube's pop takes one of each, the slot
# holding the lane that moved data (lane 1's zero-valid replay moves none); two lanes that
# both move different data leave the cube an unspecified one (a fault here).
# With a split code (pto-isa's TileSplitAxis: 1 up/down, 2 left/right; 3 / 4 the same axes
# over an odd valid extent, lane 0 one cell longer) the AIV body runs on two lanes and a push
# to the AIV halves the tile along the split axis: each lane gets a box of half the pushed
# box (lane 0 the first half, lane 1 the second), its valid extent the part of the pushed
# valid extent inside its half; a push to the AIC is queued per lane and the cube's pop
# joins the two lanes' tiles along the axis (valid extents added). The odd codes have no
# vector-to-cube transport; a `lane_stride` (a rebalanced ragged boundary) is not modelled.


@dataclass
class _Pipes:
    """The FIFOs of one Group run, by direction and pipe id (`id=`, 0 when absent: each id of a
    direction is a pipe of its own, with its own slot buffer), one queue per AIV lane."""

    dual: bool = False
    queues: dict[tuple[str, int], list[list[TileVal]]] = field(default_factory=dict)
    initialized: set[tuple[str, str, int]] = field(default_factory=set)
    """(direction, side, id) whose `*_initialize_pipe` ran."""
    buffers: set[str] = field(default_factory=set)
    baton: _Baton | None = None
    barriers: dict[int, int] = field(default_factory=dict)
    """How many `system.syncall` barriers each half (by task) has reached."""

    def lanes(self, direction: str, pipe: int) -> list[list[TileVal]]:
        """The per-lane queues of one pipe."""
        return self.queues.setdefault((direction, pipe), [[], []])

    def pending(self) -> list[tuple[str, int]]:
        out = []
        for (d, _), lanes in sorted(self.queues.items()):
            n = max(len(q) for q in lanes) if d == "C2V" and self.dual else sum(len(q) for q in lanes)
            if n:
                out.append(("to the AIV" if d == "C2V" else "to the AIC", n))
        return out


class _Aborted(BaseException):
    """Ends a half's thread when another half of its group failed."""


_HALF_STACK_BYTES = 64 * 1024 * 1024
"""The stack of each half's thread: as deep as the recursion limit lets a run nest."""


class _Baton:
    """The halves of one Group run, as threads that take turns: only the half holding the
    baton runs; it hands the baton on when it ends or when it must wait (a pop from an empty
    pipe), to the next half in run order that can go on. The switches happen only there, so
    every run of the same inputs interleaves the same way. When no half can go on, the
    waiting halves are woken to report their empty pipe; when a half fails, the others stop
    and its error is the run's."""

    def __init__(self, count: int) -> None:
        self._cond = threading.Condition()
        self.count = count
        """The halves taking turns."""
        self._turn = 0
        self._waiting: dict[int, Callable[[], bool]] = {}
        self._done: set[int] = set()
        self._aborted = False
        self._stuck = False
        """No half can go on: the one holding the baton reports its empty pipe."""

    def run(self, halves: Sequence[Callable[[], None]]) -> None:
        errors: list[BaseException] = []

        def body(k: int, half: Callable[[], None]) -> None:
            try:
                with self._cond:
                    self._cond.wait_for(lambda: self._turn == k or self._aborted)
                    if self._aborted:
                        return
                half()
                self._finish(k, failed=False)
            except _Aborted:
                return
            except BaseException as err:
                errors.append(err)
                self._finish(k, failed=True)

        old = threading.stack_size()
        threading.stack_size(_HALF_STACK_BYTES)
        try:
            threads = [threading.Thread(target=body, args=(k, h), daemon=True) for k, h in enumerate(halves)]
            for t in threads:
                t.start()
        finally:
            threading.stack_size(old)
        for t in threads:
            t.join()
        if errors:
            raise errors[0]

    def _next(self, k: int) -> int | None:
        for step in range(1, self.count + 1):
            j = (k + step) % self.count
            ready = self._waiting.get(j)
            if j not in self._done and (ready is None or ready()):
                return j
        return None

    def _finish(self, k: int, *, failed: bool) -> None:
        with self._cond:
            self._done.add(k)
            if failed:
                self._aborted = True
            else:
                j = self._next(k)
                if j is None and len(self._done) < self.count:
                    # every other half waits on a pipe nothing will fill: the first reports it
                    j = next(i for i in range(self.count) if i not in self._done)
                    self._stuck = True
                if j is not None:
                    self._turn = j
            self._cond.notify_all()

    def wait(self, k: int, ready: Callable[[], bool]) -> bool:
        """Half `k` cannot go on until `ready()`: hand the baton on and wait for it. False when
        no half can go on any more (the pipe stays empty)."""
        with self._cond:
            self._waiting[k] = ready
            j = self._next(k)
            if j is None:
                del self._waiting[k]
                return False  # nothing else can run: this half reports its empty pipe
            self._turn = j
            self._cond.notify_all()
            self._cond.wait_for(lambda: (self._turn == k and (ready() or self._stuck)) or self._aborted)
            del self._waiting[k]
            if self._aborted:
                raise _Aborted
            return ready()


_CROSS_CORE = frozenset({
    "system.reserve_buffer", "system.import_peer_buffer", "system.aic_initialize_pipe",
    "system.aiv_initialize_pipe", "tile.tpush_to_aiv", "tile.tpush_to_aic", "tile.tpop_from_aic",
    "tile.tpop_from_aiv", "system.tfree_to_aic", "system.tfree_to_aiv", "system.syncall",
})
_PUSH = {"tile.tpush_to_aiv": "C2V", "tile.tpush_to_aic": "V2C"}
_POP = {"tile.tpop_from_aic": "C2V", "tile.tpop_from_aiv": "V2C"}


def _cross_core_form(c: ir.Call) -> str | None:
    if c.op == "system.syncall":
        core_type = c.kwarg("core_type")
        if not (isinstance(core_type, ir.StrArg) and core_type.value == "mix"):
            return "system.syncall other than core_type='mix' (a barrier of some of the group's cores)"
        return None
    split = c.kwarg("split")
    codes = (0, 1, 2) if c.op in ("tile.tpush_to_aic", "tile.tpop_from_aiv") else (0, 1, 2, 3, 4)
    if split is not None and not (isinstance(split, ir.ConstInt) and split.value in codes):
        modelled = ", ".join(map(str, codes))
        return f"{c.op} with split={format_arg(split)} (split codes {modelled} are modelled)"
    stride = c.kwarg("lane_stride")
    if stride is not None and not (isinstance(stride, ir.ConstInt) and stride.value == 0):
        return f"{c.op} with a lane_stride (a rebalanced split boundary is not modelled)"
    pipe = c.kwarg("id")
    if pipe is not None and not (isinstance(pipe, ir.ConstInt) and pipe.value >= 0):
        return f"{c.op} with id={format_arg(pipe)} (a literal pipe id is modelled)"
    return None


def _pipe_id(c: ir.Call) -> int:
    """The call's pipe `id=` (0 when absent); `_cross_core_form` admitted it."""
    pipe = c.kwarg("id")
    return pipe.value if isinstance(pipe, ir.ConstInt) else 0


def format_arg(a: ir.CallArg) -> str:
    return str(a.value) if isinstance(a, ir.ConstInt) else type(a).__name__


def _pipes_of(it: Interpreter, c: ir.Call) -> _Pipes:
    if it._pipes is None:
        raise Unmodelled(f"the interpreter does not model '{c.op}' outside a Group function's run", c.span)
    return it._pipes


def _op_pipe_buffer(it: Interpreter, c: ir.Call) -> Value:
    pipes = _pipes_of(it, c)
    name = c.kwarg("name")
    if isinstance(name, ir.StrArg):
        pipes.buffers.add(name.value)
    return 0


def _op_init_pipe(it: Interpreter, c: ir.Call) -> Value:
    pipes = _pipes_of(it, c)
    mask = c.kwarg("dir_mask")
    if not isinstance(mask, ir.ConstInt) or mask.value not in (1, 2, 3):
        raise Unmodelled(f"the interpreter does not model {c.op} with dir_mask other than 1, 2 or 3", c.span)
    side = "AIC" if c.op == "system.aic_initialize_pipe" else "AIV"
    # bit 0: the cube-to-vector pipe, bit 1: the vector-to-cube pipe (3: both)
    for bit, direction in ((1, "C2V"), (2, "V2C")):
        if mask.value & bit:
            pipes.initialized.add((direction, side, _pipe_id(c)))
    return None


def _ready(pipes: _Pipes, direction: str, side: str, c: ir.Call) -> list[list[TileVal]]:
    """The lanes of the call's pipe, which its side must have initialized."""
    pipe = _pipe_id(c)
    if (direction, side, pipe) not in pipes.initialized:
        named = f" {pipe}" if c.kwarg("id") is not None else ""
        raise InterpreterError(f"{c.op} on the {side} before its {direction} pipe{named} was initialized",
                               c.span)
    return pipes.lanes(direction, pipe)


def _split_code(c: ir.Call) -> int:
    """The call's `split=` code (0 when absent); `_cross_core_form` admitted it."""
    split = c.kwarg("split")
    return split.value if isinstance(split, ir.ConstInt) else 0


def _op_tpush(it: Interpreter, c: ir.Call) -> Value:
    pipes = _pipes_of(it, c)
    direction = _PUSH[c.op]
    lanes = _ready(pipes, direction, "AIC" if direction == "C2V" else "AIV", c)
    tile = it._tile(c.args[0], c.span)
    split = _split_code(c)
    if direction == "C2V" and split:
        for lane, part in enumerate(_split_tile(tile, split, c)):
            lanes[lane].append(part)
    elif direction == "C2V":
        for lane in range(2 if pipes.dual else 1):
            lanes[lane].append(tile)
    else:
        lanes[it._lane].append(tile)
    return None


def _split_tile(t: TileVal, split: int, c: ir.Call) -> tuple[TileVal, TileVal]:
    """The two lanes' halves of a tile pushed to the AIV with a split code (see the facts
    above): boxes of half the pushed box along the split axis, valid extents cut there."""
    axis = 0 if split in (1, 3) else 1
    size = t.shape[axis]
    if size % 2:
        raise Unmodelled(f"{c.op} with split={split} of a tile {size} wide along the split axis "
                         "(an odd box is not modelled)", c.span)
    half = size // 2
    valid = t.valid[axis]
    lanes = (min(valid, half), min(max(valid - half, 0), half))
    if split in (3, 4) and lanes[0] != lanes[1] + 1:
        raise InterpreterError(f"{c.op} with split={split} needs lanes one cell apart, but a valid extent of "
                               f"{valid} over a half of {half} gives {lanes[0]} and {lanes[1]}", c.span)
    data = _need_data(t)
    parts = []
    for lane, extent in enumerate(lanes):
        window = (slice(lane * half, (lane + 1) * half), slice(None)) if axis == 0 else \
            (slice(None), slice(lane * half, (lane + 1) * half))
        shape = (half, t.shape[1]) if axis == 0 else (t.shape[0], half)
        part_valid = (extent, t.valid[1]) if axis == 0 else (t.valid[0], extent)
        parts.append(TileVal(data[window].copy(), part_valid, t.dtype, shape))
    return parts[0], parts[1]


def _join_tiles(lane0: TileVal, lane1: TileVal, split: int) -> TileVal:
    """The tile the cube pops from two lanes' pushes with a split code: joined along the
    split axis, their valid extents added there."""
    axis = 0 if split == 1 else 1
    data = np.concatenate([_need_data(lane0), _need_data(lane1)], axis=axis)
    valid = list(lane0.valid)
    valid[axis] = lane0.valid[axis] + lane1.valid[axis]
    return TileVal(data, (valid[0], valid[1]), lane0.dtype, (data.shape[0], data.shape[1]))


def _empty(t: TileVal) -> bool:
    return t.valid[0] == 0 or t.valid[1] == 0


def _wait(pipes: _Pipes, it: Interpreter, ready: Callable[[], bool]) -> bool:
    """Let the other halves run until `ready()` (False: no half can fill the pipe any more)."""
    return pipes.baton is not None and pipes.baton.wait(it._task, ready)


def _op_tpop(it: Interpreter, c: ir.Call) -> Value:
    pipes = _pipes_of(it, c)
    direction = _POP[c.op]
    lanes = _ready(pipes, direction, "AIV" if direction == "C2V" else "AIC", c)
    if direction == "C2V":
        queue = lanes[it._lane]
        if not queue and not _wait(pipes, it, lambda: bool(queue)):
            raise InterpreterError(f"{c.op} from an empty pipe (nothing was pushed to the AIV)", c.span)
        got = queue.pop(0)
    else:
        wanted = [0, 1] if pipes.dual else [0]
        if any(not lanes[k] for k in wanted) and not _wait(pipes, it, lambda: all(lanes[k] for k in wanted)):
            raise InterpreterError(f"{c.op} from an empty pipe (nothing was pushed to the AIC)", c.span)
        pair = [lanes[k].pop(0) for k in wanted]
        split = _split_code(c)
        if split:
            got = _join_tiles(pair[0], pair[1], split)
        moved = [] if split else [t for t in pair if not _empty(t)]
        if not split:
            got = moved[0] if moved else pair[0]
        if len(moved) == 2 and not (moved[0].valid == moved[1].valid
                                    and np.array_equal(_need_data(moved[0]), _need_data(moved[1]))):
            raise InterpreterError(f"{c.op}: both AIV lanes pushed different data into the one slot; the "
                                   "cube receives an unspecified one of them", c.span)
    target = it._target
    t = target.type if target is not None else None
    if not isinstance(t, ir.TileType):
        raise InterpreterError(f"{c.op} needs a tile result", c.span)
    shape = t.rows_cols
    if shape != got.shape or t.dtype != got.dtype:
        raise InterpreterError(f"{c.op} pops a {list(shape)} {t.dtype.value} tile, but the pushed tile is "
                               f"{list(got.shape)} {got.dtype.value}", c.span)
    valid = _rc(_ints([it.scalar(x) for x in t.effective_valid_shape], "pop valid shape", c.span))
    if any(v < 0 or v > d for v, d in zip(valid, shape, strict=True)):
        raise InterpreterError(f"{c.op} valid shape {list(valid)} does not fit the tile {list(shape)}",
                               c.span)
    # the popped tile has its type's valid shape (a lane's zero-valid replay pops no data)
    return TileVal(_need_data(got).copy(), valid, got.dtype, shape)


def _op_syncall(it: Interpreter, c: ir.Call) -> Value:
    """`system.syncall(core_type='mix')`: a barrier of every core of the group; a half goes on
    once every half of the run has reached as many barriers as it has. The run holds one
    block's halves, so the barrier orders them; what other blocks write before it is not
    modelled, as everywhere in a run."""
    pipes = _pipes_of(it, c)
    assert pipes.baton is not None
    reached = pipes.barriers[it._task] = pipes.barriers.get(it._task, 0) + 1
    tasks = range(pipes.baton.count)

    def all_reached() -> bool:
        return all(pipes.barriers.get(t, 0) >= reached for t in tasks)

    if not all_reached() and not _wait(pipes, it, all_reached):
        raise InterpreterError(f"{c.op}: a half of the group ends or waits without reaching barrier "
                               f"{reached}", c.span)
    return None


def _op_tfree(it: Interpreter, c: ir.Call) -> Value:
    _pipes_of(it, c)
    return None


def calls_of(fn: ir.Function) -> list[ir.Call]:
    out = []
    for s in ir.walk_stmts(fn.body):
        call = s.value if isinstance(s, ir.AssignStmt) else s.call if isinstance(s, ir.EvalStmt) else None
        if isinstance(call, ir.Call):
            out.append(call)
    return out


def group_order(fn: ir.Function, functions: Mapping[str, ir.Function]
                ) -> tuple[list[tuple[ir.Call, ir.Function, int]], list[int]]:
    """The halves a Group function calls (call, callee, lanes) and the order their turns
    start in: the halves that push first, those that only pop last (one-directional pipes
    then run as a serialization, every producer to its end before its consumer).
    Raises `Unmodelled` for a group the run does not cover."""
    calls: list[tuple[ir.Call, ir.Function, int]] = []
    read = {v.id for s in fn.body.stmts
            for v in (ir.expr_vars(s.call) if isinstance(s, ir.EvalStmt)
                      else ir.expr_vars(s.value) if isinstance(s, ir.AssignStmt)
                      else (x for e in s.values for x in ir.expr_vars(e)) if isinstance(s, ir.ReturnStmt)
                      else ())}
    for s in fn.body.stmts:
        if isinstance(s, ir.ReturnStmt):
            continue
        call = s.call if isinstance(s, ir.EvalStmt) else None
        if isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Call) and s.var.id not in read:
            call = s.value  # a half's result bound and never read: its outputs are the shared tensors
        if call is None or not call.op.startswith("self."):
            raise Unmodelled(f"group '{fn.name}': a statement other than a call of a half", s.span)
        half = functions.get(call.op[len("self."):])
        if half is None or half.type not in (ir.FunctionType.AIC, ir.FunctionType.AIV):
            raise Unmodelled(f"group '{fn.name}': {call.op} is not an AIC or AIV function of the program",
                             call.span)
        calls.append((call, half, 1))
    # the AIV half runs on two lanes when stamped `dual_aiv_dispatch` or when a transfer of
    # either half splits its tiles between the lanes
    codes = {_split_code(c) for _, h, _ in calls for c in calls_of(h) if c.op in _PUSH or c.op in _POP}
    split = bool(codes - {0})
    if split and 0 in codes:
        # the reference's runtime then moves the unsplit tiles through one queue both lanes
        # take from, first come first served
        raise Unmodelled(f"group '{fn.name}' moves tiles both split between the vector lanes and unsplit",
                         fn.span)
    for k, (call, half, _) in enumerate(calls):
        dual = any(key == "dual_aiv_dispatch" and bool(v) for key, v in half.attrs)
        if half.type is ir.FunctionType.AIV and (dual or split):
            calls[k] = (call, half, 2)
    ops = [{c.op for c in calls_of(h)} for _, h, _ in calls]
    pushes = [{_PUSH[o] for o in s if o in _PUSH} for s in ops]
    pops = [{_POP[o] for o in s if o in _POP} for s in ops]
    if sum(1 for _, h, _ in calls if h.type is ir.FunctionType.AIC) > 1 or \
            sum(1 for _, h, _ in calls if h.type is ir.FunctionType.AIV) > 1:
        raise Unmodelled(f"group '{fn.name}' calls more than one AIC or AIV half", fn.span)
    order = sorted(range(len(calls)), key=lambda k: 0 if pushes[k] else 1 if not pops[k] else 2)
    return calls, order


_CROSS_HANDLERS: dict[str, Callable[[Interpreter, ir.Call], Value]] = {
    "system.reserve_buffer": _op_pipe_buffer,
    "system.import_peer_buffer": _op_pipe_buffer,
    "system.aic_initialize_pipe": _op_init_pipe,
    "system.aiv_initialize_pipe": _op_init_pipe,
    **{k: _op_tpush for k in _PUSH},
    **{k: _op_tpop for k in _POP},
    "system.tfree_to_aic": _op_tfree,
    "system.tfree_to_aiv": _op_tfree,
    "system.syncall": _op_syncall,
}


_EXTRA_FORMS: dict[str, tuple[int, int, frozenset[str]]] = {
    "tile.create": (1, 1, frozenset({"dtype", "target_memory", "transpose", "flat_layout"})),
    "tile.full": (1, 2, frozenset({"dtype", "value"})),
    "tile.ci": (2, 2, frozenset({"dtype", "descending"})),
    "tile.tri": (2, 3, frozenset({"dtype", "upper"})),
    "tile.get_block_idx": (0, 0, frozenset()),
    "tile.get_block_num": (0, 0, frozenset()),
    "tile.get_subblock_idx": (0, 0, frozenset()),
    "system.fence": (0, 0, frozenset()),
    "system.bar_v": (0, 0, frozenset()),
    "system.bar_m": (0, 0, frozenset()),
    "system.bar_all": (0, 0, frozenset()),
    "system.cacheinvalid": (0, 3, frozenset()),
    "prefetch.make_context": (0, 0, frozenset()),
    "prefetch.async_prefetch": (2, 2, frozenset()),
    "prefetch.session": (1, 1, frozenset()),
    "prefetch.wait": (2, 2, frozenset()),
    **{f"tile.col_expand{k}": (2, 2, frozenset())
       for k in ("", "_add", "_sub", "_mul", "_div", "_max", "_min", "_expdif")},
    "tile.row_expand_expdif": (2, 2, frozenset()),
    "tile.row_expand_max": (2, 2, frozenset()),
    "tile.row_expand_min": (2, 2, frozenset()),
    "tile.row_prod": (2, 2, frozenset()),
    "tile.matmul_bias": (3, 3, frozenset()),
    "tile.gemv": (2, 2, frozenset()),
    "tile.gemv_bias": (3, 3, frozenset()),
    "tile.gemv_acc": (3, 3, frozenset()),
    "tile.fmod": (2, 2, frozenset()),
    "tile.fmods": (2, 2, frozenset()),
    **{f"tile.{k}": (3, 3, frozenset()) for k in ("addc", "subc", "addsc", "subsc", "rem", "rems", "prelu")},
    "tile.lrelu": (2, 2, frozenset()),
    "tile.sels": (4, 4, frozenset()),
    "tile.expands": (2, 2, frozenset()),
    "tile.fillpad_inplace": (1, 1, frozenset({"pad_value"})),
    "tile.fillpad_expand": (2, 2, frozenset({"pad_value"})),
    "tile.random": (7, 8, frozenset({"dtype", "rounds"})),
    "tile.gatherb": (2, 2, frozenset({"output_dtype"})),
    "tile.scatter_update": (3, 3, frozenset({"dim"})),
    "tile.scatter": (3, 3, frozenset()),
    "tile.mscatter": (3, 3, frozenset()),
    "tile.mgather": (2, 2, frozenset({"coalesce", "gather_oob", "target_memory", "valid_shape"})),
    "tile.reinterpret_view": (1, 2, frozenset({"dtype"})),
    "tile.col_prod": (1, 1, frozenset()),
    **{f"tile.part_{k}": (2, 2, frozenset()) for k in ("add", "mul", "max", "min")},
    "tile.minimums": (2, 2, frozenset()),
    **{f"tile.{k}": (2, 2, frozenset()) for k in ("and", "or", "shl", "shr", "ands", "ors", "shls", "shrs")},
    "tile.xor": (3, 3, frozenset()),
    "tile.xors": (3, 3, frozenset()),
    "tile.not": (1, 1, frozenset()),
    "array.create": (1, 1, frozenset({"dtype"})),
    "array.get_element": (2, 2, frozenset()),
    "array.update_element": (3, 3, frozenset()),
    "tensor.read": (2, 2, frozenset()),
    "tensor.dim": (2, 2, frozenset()),
    "tile.set_validshape": (3, 3, frozenset()),
    "tile.write": (3, 3, frozenset()),
    "tile.extract": (4, 4, frozenset({"target_memory"})),
    "tile.assemble": (3, 3, frozenset()),
    "tile.gather_row": (5, 6, frozenset({"transpose", "valid_shape"})),
    "tile.transpose_view": (1, 1, frozenset()),
    "tile.rsqrt": (1, 2, frozenset()),
    "tile.slice": (3, 5, frozenset()),
    "tile.store": (3, 4, frozenset({"atomic"})),
    "tile.row_expand": (2, 2, frozenset()),
    "tile.col_sum": (1, 2, frozenset()),
    "tensor.write": (3, 3, frozenset()),
    "tile.sort32": (2, 2, frozenset()),
    "tile.mrgsort_format1": (2, 2, frozenset()),
    "tile.mrgsort_format2": (3, 5, frozenset({"exhausted"})),
    "tile.gather_mask": (1, 2, frozenset({"mask_pattern", "output_dtype"})),
    "tile.scatter_mask": (2, 2, frozenset({"mask_pattern"})),
    "tile.cmp": (2, 2, frozenset({"cmp_type"})),
    "tile.cmps": (2, 2, frozenset({"cmp_type"})),
    "tile.sel": (4, 4, frozenset()),
    "tile.gather": (3, 3, frozenset()),
    "tile.fillpad": (1, 1, frozenset({"pad_value"})),
    "tile.col_max": (1, 1, frozenset()),
    "tile.col_min": (1, 1, frozenset()),
    **{f"tile.{k}": (2, 2, frozenset()) for k in ("row_argmax", "row_argmin", "col_argmax", "col_argmin")},
    "tile.concat": (2, 2, frozenset()),
    "tensor.view": (2, 2, frozenset({"layout"})),
    "tile.transpose": (3, 4, frozenset()),
    "tile.move": (1, 1, frozenset({"target_memory", "blayout", "slayout"})),
}
"""Ops the interpreter models beyond the DSL subset's `ops.REGISTRY`, in the reference's
printed form: (min, max) positional arguments and the keywords the model covers (any other
keyword is covered only at the reference's default value). `tile.rsqrt`'s second argument
is the reference's scratch tile. `tile.move`'s `blayout` / `slayout` pick the storage layout
of the destination (the reference's DeduceTileMoveType keeps the shape), so the values a
tile holds, which is all the interpreter models, are the source's; so do `tile.create`'s
`transpose` (a column-major Mat layout) and `flat_layout` (an unboxed one)."""


_UNPINNED: dict[str, str] = {}
"""Ops the interpreter leaves out because the reference's own sources disagree on what they
compute, with what each says."""


def unmodelled_call(c: ir.Call, cross_core: bool = False) -> str | None:
    """Why the interpreter cannot run the call `c` as the reference means it (an op it has no
    model of, or a form of the op its model does not cover), or None. Cross-core ops are
    modelled only in a half run by its Group function (`cross_core=True`)."""
    if c.op in _UNPINNED:
        return _UNPINNED[c.op]
    if c.op in _CROSS_CORE:
        if not cross_core:
            return (f"'{c.op}' (a cross-core op; the interpreter runs a half of a mixed kernel only "
                    "through the Group function that calls it with its peer)")
        return _cross_core_form(c)
    if c.op not in _HANDLERS:
        ref = ops.reference(c.op)
        if ref is not None and ref.category == "CrossCoreOp":
            # a half of a mixed kernel: its pipe's peer (the other core's function) does not run
            return f"'{c.op}' (a cross-core op; the interpreter runs one core's function without its peer)"
        return f"a call of {c.op}" if c.op.startswith("self.") else f"'{c.op}'"
    form = _EXTRA_FORMS.get(c.op)
    if form is None:
        return ops.unmodelled(c.op, len(c.args), dict(c.kwargs), numerics_ok=True)
    lo, hi, keywords = form
    if not lo <= len(c.args) <= hi:
        return f"{c.op} with {len(c.args)} arguments"
    if c.op == "tile.store" and _atomic(c) not in ("None_", "Add"):
        return f"tile.store with atomic=pl.AtomicType.{_atomic(c)}"
    if c.op in _PADDING and (why := _fillpad_unmodelled(c)) is not None:
        return why
    if c.op == "tile.mgather" and (why := _mgather_unmodelled(c)) is not None:
        return why
    if c.op == "tile.slice" and (why := _dropped_unmodelled(c)) is not None:
        return why
    flag = c.kwarg("exhausted") if c.op == "tile.mrgsort_format2" else None
    if flag is not None and not (isinstance(flag, ir.ConstInt) and flag.value == 0):
        return ("tile.mrgsort_format2 with exhausted=True (the merge stops when a list runs out; "
                "what the rest of the destination holds is not documented)")
    for key, value in c.kwargs:
        if key not in keywords and not ops.is_default_keyword(key, value) and key not in ops.NUMERIC_KEYWORDS:
            return f"{c.op} with keyword '{key}'"
    return None


_HANDLERS: dict[str, Callable[[Interpreter, ir.Call], Value]] = {
    "system.fence": _op_memory_marker,
    "system.bar_v": _op_pipe_barrier,
    "system.bar_m": _op_pipe_barrier,
    "system.bar_all": _op_pipe_barrier,
    "prefetch.make_context": _op_prefetch_handle,
    "prefetch.async_prefetch": _op_prefetch_handle,
    "prefetch.session": _op_prefetch_handle,
    "prefetch.wait": _op_prefetch_wait,
    "system.cacheinvalid": _op_memory_marker,
    "tile.load": _op_load,
    "tile.store": _op_store,
    "tile.move": _op_move,
    "tile.cast": _op_cast,
    "tile.matmul": _op_matmul,
    "tile.matmul_acc": _op_matmul_acc,
    "tile.reshape": _op_reshape,
    "tile.slice": _op_slice,
    "tile.read": _op_read,
    **{k: _op_unary for k in _UNARY},
    **{f"tile.{k}": _op_binary for k in ("add", "sub", "mul", "div", "maximum", "minimum")},
    **{f"tile.{k}": _op_scalar for k in ("adds", "subs", "muls", "divs", "maximums")},
    **{f"tile.{k}": _op_row_reduce for k in ("row_sum", "row_max", "row_min", "row_prod")},
    **{f"tile.row_expand_{k}": _op_row_expand for k in ("add", "sub", "mul", "div", "max", "min")},
    "tile.matmul_bias": _op_matmul_bias,
    "tile.gemv": _op_gemv,
    "tile.gemv_bias": _op_gemv_bias,
    "tile.gemv_acc": _op_gemv_acc,
    "tile.fmod": _op_fmod,
    "tile.fmods": _op_fmods,
    **{f"tile.{k}": _op_add_carry for k in ("addc", "subc", "addsc", "subsc")},
    "tile.rem": _op_rem,
    "tile.rems": _op_rem,
    "tile.prelu": _op_relu_slope,
    "tile.lrelu": _op_relu_slope,
    "tile.expands": _op_expands,
    "tile.scatter": _op_scatter,
    "tile.mscatter": _op_mscatter,
    "tile.mgather": _op_mgather,
    "tile.reinterpret_view": _op_reinterpret_view,
    "tile.col_prod": _op_col_extreme,
    **{f"tile.part_{k}": _op_part for k in ("add", "mul", "max", "min")},
    "tile.minimums": _op_scalar,
    **{f"tile.{k}{s}": _op_bitwise for k in _BITWISE for s in ("", "s")},
    "tile.not": _op_not,
    "array.create": _op_array_create,
    "array.get_element": _op_array_get,
    "array.update_element": _op_array_update,
    "tile.create": _op_create,
    "tile.full": _op_full,
    "tile.ci": _op_ci,
    "tile.tri": _op_tri,
    "tile.get_block_idx": _op_spmd,
    "tile.get_block_num": _op_spmd,
    "tile.get_subblock_idx": _op_spmd,
    **{f"tile.col_expand{k}": _op_col_expand
       for k in ("", "_add", "_sub", "_mul", "_div", "_max", "_min", "_expdif")},
    "tile.row_expand_expdif": _op_row_expand,
    "tensor.read": _op_tensor_read,
    "tensor.dim": _op_tensor_dim,
    "tile.set_validshape": _op_set_validshape,
    "tile.write": _op_write,
    "tile.extract": _op_extract,
    "tile.assemble": _op_assemble,
    "tile.gather_row": _op_gather_row,
    "tile.transpose_view": _op_transpose_view,
    "tile.row_expand": _op_row_expand_plain,
    "tile.col_sum": _op_col_sum,
    "tensor.write": _op_tensor_write,
    "tile.sort32": _op_sort32,
    "tile.mrgsort_format1": _op_mrgsort1,
    "tile.mrgsort_format2": _op_mrgsort2,
    "tile.gather_mask": _op_gather_mask,
    "tile.scatter_mask": _op_scatter_mask,
    "tile.cmp": _op_cmp,
    "tile.cmps": _op_cmp,
    "tile.sel": _op_sel,
    "tile.sels": _op_sels,
    "tile.gather": _op_gather,
    "tile.fillpad": _op_fillpad,
    "tile.fillpad_inplace": _op_fillpad_inplace,
    "tile.fillpad_expand": _op_fillpad_expand,
    "tile.random": _op_random,
    "tile.gatherb": _op_gatherb,
    "tile.scatter_update": _op_scatter_update,
    "tile.col_max": _op_col_extreme,
    "tile.col_min": _op_col_extreme,
    **{f"tile.{k}": _op_arg_extreme for k in ("row_argmax", "row_argmin", "col_argmax", "col_argmin")},
    "tile.concat": _op_concat,
    "tensor.view": _op_tensor_view,
    "tile.transpose": _op_transpose,
    **_CROSS_HANDLERS,
}


# --------------------------------------------------------------------------------------
# convenience


def run_function(fn: ir.Function, args: Mapping[str, Any] | Sequence[Any], *, physical: bool = True,
                 prefetch: bool = True, **limits: int) -> tuple[Value, ...]:
    """Execute `fn` on `args` (by parameter name or position) and return its results.
    `limits` may set `max_steps` and `max_iterations`."""
    it = Interpreter(physical=physical, prefetch=prefetch, **limits)  # type: ignore[arg-type]
    return it.run(fn, args)


def element_count(shape: Sequence[int]) -> int:
    return math.prod(max(d, 0) for d in shape)


def ensure_interpretable(fn: ir.Function, max_elements: int = DEFAULT_MAX_ELEMENTS, *,
                         cross_core: bool = False) -> None:
    """Raise `InterpreterLimit` ("too large to interpret") when the tensor parameters of `fn`
    together, or any one of its tiles, hold more than `max_elements` elements: the arrays a
    run would make do not fit a bounded memory."""
    ensure_tensor_parameters(fn, max_elements)
    ensure_modelled(fn, cross_core=cross_core)
    for s in ir.walk_stmts(fn.body):
        if isinstance(s, ir.AssignStmt) and isinstance(s.var.type, ir.TileType):
            n = element_count(s.var.type.shape)
            if n > max_elements:
                raise InterpreterLimit(
                    f"too large to interpret: tile '{s.var.name_hint}' is {list(s.var.type.shape)} "
                    f"({n:,} elements); the interpreter's limit is {max_elements:,} "
                    "(SLOTSAT_INTERP_MAX_ELEMENTS)", s.span)


def ensure_modelled(fn: ir.Function, *, cross_core: bool = False) -> None:
    """Raise `InterpreterError` for the first call in `fn` (on any path, taken or not) the
    interpreter does not model, so a run that completes has executed only modelled ops and a
    comparison of two runs means something for every op of the function."""
    for s in ir.walk_stmts(fn.body):
        call = s.value if isinstance(s, ir.AssignStmt) else s.call if isinstance(s, ir.EvalStmt) else None
        if isinstance(call, ir.Call) and call.op != "tile.alloc":
            reason = unmodelled_call(call, cross_core)
            if reason is not None:
                raise Unmodelled(f"the interpreter does not model {reason}", call.span)


def ensure_tensor_parameters(fn: ir.Function, max_elements: int) -> None:
    """The tensor-parameter half of `ensure_interpretable`: the static shapes held whole (at
    most `PAGED_ABOVE` elements each; larger ones are drawn in pages, bounded as a run touches
    them) together at most `max_elements` elements (checked before any array is made)."""
    shapes: list[tuple[ir.Var, tuple[int, ...]]] = []
    for p in fn.params:
        if isinstance(p.type, ir.TensorType):
            shape = p.type.static_shape
            if shape is None:
                continue  # known per run (`inputs.random_inputs` draws the dimensions; checked when bound)
            if element_count(shape) <= PAGED_ABOVE:
                shapes.append((p, shape))
    if not shapes:
        return
    total = sum(element_count(shape) for _, shape in shapes)
    if total > max_elements:
        big, big_shape = max(shapes, key=lambda ps: element_count(ps[1]))
        raise InterpreterLimit(
            f"too large to interpret: the tensor parameters hold {total:,} elements ('{big.name_hint}' "
            f"is {list(big_shape)}); the interpreter's limit is {max_elements:,} "
            "(SLOTSAT_INTERP_MAX_ELEMENTS)", big.span)


def outputs_equal(a: Sequence[Value], b: Sequence[Value], *, rtol: float = 1e-3,
                  atol: float = 1e-3, labels: Sequence[str] = ()) -> str | None:
    """None when the two result tuples agree (exactly for integers, `np.allclose` for floats,
    NaN equal to NaN, and bit for bit where both floats are subnormal: the integers
    `tile.sort32` stores in FP32 rows); otherwise a one-line description of the first difference
    (naming result `i` by `labels[i]` where given, else `result i`)."""

    def arrays(x: Array, y: Array) -> tuple[list[int], str] | None:
        if np.issubdtype(x.dtype, np.floating):
            xf, yf = x.astype(np.float64), y.astype(np.float64)
            if not np.allclose(xf, yf, rtol=rtol, atol=atol, equal_nan=True):
                bad = np.argwhere(~np.isclose(xf, yf, rtol=rtol, atol=atol, equal_nan=True))[0]
                pos = tuple(int(k) for k in bad)
                return list(pos), f"is {float(yf[pos])!r}, expected {float(xf[pos])!r}"
            bits = _tiny_bits_differ(x, y)
            if bits is not None:
                return bits, "differs in its bits (an integer stored in a float)"
        elif not np.array_equal(x, y):
            pos = tuple(int(k) for k in np.argwhere(x != y)[0])
            return list(pos), f"is {y[pos].item()!r}, expected {x[pos].item()!r}"
        return None

    def scalars(x: Value, y: Value) -> str | None:
        if x != y and not (isinstance(x, float) and isinstance(y, float)
                           and math.isclose(x, y, rel_tol=rtol, abs_tol=atol)):
            return f"{y!r}, expected {x!r}"
        return None

    return _first_difference(a, b, labels, arrays, scalars)


def outputs_identical(a: Sequence[Value], b: Sequence[Value], *, labels: Sequence[str] = ()) -> str | None:
    """None when two result tuples are the same value for value (floats equal as numbers, NaN
    equal to NaN, no tolerance); otherwise a one-line description of the first difference
    (named as by `outputs_equal`). Two runs of one program that differ only in how undefined
    data was filled are compared so."""

    def arrays(x: Array, y: Array) -> tuple[list[int], str] | None:
        nan = np.issubdtype(x.dtype, np.floating) and np.issubdtype(y.dtype, np.floating)
        same = (x == y) | (np.isnan(x) & np.isnan(y)) if nan else x == y
        if bool(np.all(same)):
            return None
        pos = tuple(int(k) for k in np.argwhere(~same)[0])
        return list(pos), f"is {y[pos].item()!r}, not {x[pos].item()!r}"

    def scalars(x: Value, y: Value) -> str | None:
        if x != y and not (isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y)):
            return f"{y!r}, not {x!r}"
        return None

    return _first_difference(a, b, labels, arrays, scalars)


ArrayDifference: TypeAlias = Callable[[Array, Array], "tuple[list[int], str] | None"]
"""Where two arrays of one shape first differ (an index) and how (the rest of the message)."""


def _first_difference(a: Sequence[Value], b: Sequence[Value], labels: Sequence[str],
                      arrays: ArrayDifference, scalars: Callable[[Value, Value], str | None]) -> str | None:
    """The first difference of two result tuples, named (see `outputs_equal`): their lengths,
    an array's shape, an array against a scalar, or what `arrays` / `scalars` say of a pair
    (two paged tensors are compared page by page, on the pages either run wrote)."""
    if len(a) != len(b):
        return f"{len(a)} results vs {len(b)}"
    tensors = np.ndarray | PagedTensor
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        name = labels[i] if i < len(labels) else f"result {i}"
        diff: str | None = None
        if isinstance(x, tensors) and isinstance(y, tensors):
            diff = f"shape {x.shape} vs {y.shape}" if x.shape != y.shape else _tensor_difference(x, y, arrays)
        elif isinstance(x, tensors) or isinstance(y, tensors):
            diff = "kinds differ"
        else:
            diff = scalars(x, y)
        if diff is not None:
            return f"{name}: {diff}"
    return None


def _tensor_difference(x: Array | PagedTensor, y: Array | PagedTensor, arrays: ArrayDifference) -> str | None:
    if isinstance(x, PagedTensor) and isinstance(y, PagedTensor) and x.source is y.source:
        for k, xp, yp in differing_pages(x, y):
            found = arrays(xp, yp)
            if found is not None:
                return f"element {x.source.index_of(k, found[0][0])} {found[1]}"
        return None
    xs = x.materialize() if isinstance(x, PagedTensor) else x
    ys = y.materialize() if isinstance(y, PagedTensor) else y
    found = arrays(xs, ys)
    return None if found is None else f"element {found[0]} {found[1]}"


def _tiny_bits_differ(x: Array, y: Array) -> list[int] | None:
    """The first element where two float arrays of one dtype both hold a subnormal (or zero,
    not both) and differ in their bits: the raw 32-bit integers `tile.sort32` stores in FP32
    rows are subnormals, which a tolerance would call equal. None when there is none."""
    if x.dtype != y.dtype or x.dtype not in (np.float32, np.float16):
        return None
    tiny = np.finfo(x.dtype).tiny
    uint = np.uint32 if x.dtype == np.float32 else np.uint16
    xa, ya = np.ascontiguousarray(x), np.ascontiguousarray(y)
    with np.errstate(invalid="ignore"):
        small = (np.abs(xa) < tiny) & (np.abs(ya) < tiny) & ~((xa == 0) & (ya == 0))
    diff = small & (xa.view(uint) != ya.view(uint))
    if not diff.any():
        return None
    return [int(k) for k in np.argwhere(diff)[0]]


def _same_scalars(s: ir.WhileStmt, before: list[Any], after: list[Any]) -> bool:
    """Whether an iteration of `s` left each carried value its condition reads exactly as it
    was (by value and type; a NaN never equals itself, so a loop carrying one is left to the
    step limit). The condition is a scalar expression of those values and of values bound
    before the loop, so it then holds on every later iteration too."""
    read = {v.id for v in ir.expr_vars(s.cond)}
    for ia, a, b in zip(s.iter_args, before, after, strict=True):
        if ia.var.id in read and not (type(a) is type(b) and a == b):
            return False
    return True
