"""Random inputs for `slotsat check`: what it feeds the interpreter (`slotsat.core.interpreter`)
to compare a program with its transformed form, and what it learns from the draws a kernel
faults on.

`random_inputs` draws one function's arguments: floats in [0.25, 2), small integers, index
tensors inside what they index (`_index_parameters`), symbolic dimensions and the scalar
parameters a shape names (`DYNAMIC_DIMENSION`, or `SIZED_DIMENSION` for kernels written for
padded sizes), and tensors over `paged.PAGED_ABOVE` elements page by page. `learn_bounds` turns
a fault past the end of a tensor dimension into floors and caps for the later draws of one
check (`Bounds`), as a kernel's contract keeps its accesses inside its tensors, and a valid
extent past its tile into a `Fit` of the parameters it is computed from.
`random_identity` draws the SPMD identity a run sees.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from slotsat.core import ir
from slotsat.core.interp_errors import ExtentOutOfRange, InterpreterError, InterpreterLimit, OutOfBounds
from slotsat.core.interpreter import (
    GATHERB_BLOCK,
    INDEXED,
    Array,
    as_dtype,
    calls_of,
    element_count,
    ensure_tensor_parameters,
    eval_scalar,
    named_arg,
    numpy_dtype,
)
from slotsat.core.ir import DType
from slotsat.core.ops import mgather_modes
from slotsat.core.paged import PAGED_ABOVE, PageBudget, PagedTensor, PageSource


class Draw(enum.Enum):
    """How `random_inputs` draws (see there): as usual, sized for padded kernels, or sparse."""

    PLAIN = "plain"
    SIZED = "sized"
    SPARSE = "sparse"


def random_inputs(fn: ir.Function, rng: np.random.Generator, scalar_range: tuple[int, int] = (0, 8), *,
                  draw: Draw = Draw.PLAIN, bounds: Bounds | None = None) -> dict[str, Any]:
    """Seeded random arguments: floats in [0.25, 2) (so log, sqrt and recip stay defined),
    small integers for integer tensors (non-negative ones inside what they index for a tensor
    whose elements the function uses as indices, `_index_parameters`), and integers in
    `scalar_range` for scalars. Each
    symbolic dimension of a tensor parameter's shape is drawn from `DYNAMIC_DIMENSION` and
    given under its name (the interpreter binds it from there); so is a scalar parameter that
    a tensor parameter's shape names (drawn before the others), and a symbol only a declared
    valid shape names (`ir.valid_shape_symbols`, drawn within its physical extent). Tensor
    parameters held whole holding more than `SLOTSAT_INTERP_MAX_ELEMENTS` elements together are an
    `InterpreterError` before any array is made.

    A tensor parameter of more than `PAGED_ABOVE` elements is a `PagedTensor`: drawn page by
    page as runs touch it, the same distribution; the pages the runs on one draw touch
    together count against `SLOTSAT_INTERP_MAX_ELEMENTS` instead.

    `Draw.SIZED` draws as kernels written for padded sizes expect (`check` alternates to it after a
    trial whose original program faulted): dimensions from `SIZED_DIMENSION` in whole
    multiples of 16, and each other integer scalar either in `scalar_range` or equal to one of
    the drawn dimensions (a row count or bound that is a tensor's extent).

    `Draw.SPARSE` draws each signed integer tensor whose entries the function tests against 0
    or -1 (`sentinel_parameters`) as the padded maps of LLM kernels hold it (`check` cycles to
    it after sized draws fault too): mostly the sentinel -1 (`SPARSE_SENTINEL_SHARE`), the rest
    as usual. A slot mapping whose non-negative entries a kernel packs into a small tile is
    written for such inputs.

    `bounds` (what `learn_bounds` learned from earlier faulting draws) raises a drawn
    dimension to its floor and lowers an integer scalar to its cap; then each of its fits
    redraws its parameter (`_fit`)."""
    from slotsat.core.limits import interp_max_elements

    sized = draw is Draw.SIZED

    ensure_tensor_parameters(fn, interp_max_elements())
    out: dict[str, Any] = {}
    dims: dict[int, int] = {}
    names = {p.name_hint for p in fn.params}
    floors, caps = (bounds.floors, bounds.caps) if bounds is not None else ({}, {})
    for v in ir.dynamic_dimensions(fn):
        if v.name_hint in names:
            raise InterpreterError(f"the symbolic dimension '{v.name_hint}' has a parameter's name", v.span)
        dims[v.id] = out[v.name_hint] = max(_draw_dimension(rng, sized), floors.get(v.name_hint, 0))
    for v in _dimension_parameters(fn):  # a scalar parameter that is a tensor's dimension
        dims[v.id] = out[v.name_hint] = max(_draw_dimension(rng, sized), floors.get(v.name_hint, 0))
    for v in ir.valid_shape_symbols(fn):
        # a declared valid extent (pl.TensorView(valid_shape=[...])): within every physical
        # extent it is declared on
        if v.name_hint in names or v.name_hint in out:
            raise InterpreterError(f"the valid-shape symbol '{v.name_hint}' has a parameter's or a "
                                   "dimension's name", v.span)
        out[v.name_hint] = int(rng.integers(0, _declared_extent(fn, v, dims) + 1))
    extents = sorted({d for p in fn.params if isinstance(p.type, ir.TensorType)
                      for d in p.type.shape if isinstance(d, int)} | set(dims.values()))
    total = 0
    budget: PageBudget | None = None
    indices = _index_parameters(fn)
    distinct = _scatter_index_parameters(fn)
    units = _block_offset_parameters(fn)
    sentinels = sentinel_parameters(fn) if draw is Draw.SPARSE else set()
    for p in fn.params:
        t = p.type
        if p.id in dims:
            continue
        if isinstance(t, ir.TensorType):
            shape = tuple(_dimension(d, dims, p) for d in t.shape)
            n = element_count(shape)
            elements = functools.partial(
                _draw_elements, t.dtype,
                _Elements(indices.get(p.id), p.id in distinct, p.id in sentinels,
                          _row_length(shape) if distinct.get(p.id) else None, units.get(p.id, 1)))
            if n > PAGED_ABOVE:
                budget = budget or PageBudget(interp_max_elements())
                source = PageSource(p.name_hint, shape, np.dtype(numpy_dtype(t.dtype)), elements,
                                    int(rng.integers(0, 1 << 62)), budget)
                out[p.name_hint] = PagedTensor(shape, source)
                continue
            total += n
            if total > interp_max_elements():
                raise InterpreterLimit(f"too large to interpret: the tensor parameters hold more than "
                                       f"{interp_max_elements():,} elements with the drawn dimensions "
                                       "(SLOTSAT_INTERP_MAX_ELEMENTS)", p.span)
            out[p.name_hint] = elements(rng, n).reshape(shape)
        elif isinstance(t, ir.ScalarType) and not t.dtype.is_float:
            if sized and extents and rng.integers(0, 2):
                value = int(rng.choice(extents))
            else:
                value = int(rng.integers(scalar_range[0], scalar_range[1] + 1))
            out[p.name_hint] = min(value, caps.get(p.name_hint, value))
        else:
            out[p.name_hint] = _plain_value(t, rng)
    for fit in bounds.fits if bounds is not None else ():
        _fit(fit, out, rng, caps.get(fit.parameter))
    return out


def _plain_value(t: ir.Type, rng: np.random.Generator) -> Any:
    """A random float scalar in [0.25, 2), a tile argument's elements (drawn as a tensor's
    plain elements), or None for a parameter of another type (a communication context)."""
    if isinstance(t, ir.ScalarType):
        return float(rng.uniform(0.25, 2.0))
    if isinstance(t, ir.TileType) and len(t.shape) <= 2:
        rows, cols = t.rows_cols
        return _draw_elements(t.dtype, _Elements(None, False, False), rng, rows * cols).reshape(rows, cols)
    return None


@dataclass(frozen=True)
class _Elements:
    """How one tensor parameter's elements are drawn (`_draw_elements`)."""

    index_range: tuple[int, int] | None
    """The `[lo, hi)` of a tensor whose elements index (`_index_parameters`)."""
    distinct: bool
    """Drawn all different, where the range holds them (a scatter's offsets)."""
    sparse: bool
    """A signed integer tensor mostly -1 (`Draw.SPARSE`)."""
    distinct_run: int | None = None
    """Where set, `distinct` holds within each run of this many elements (a row: per-row
    offsets to which a kernel adds a per-row base) instead of across the whole draw."""
    unit: int = 1
    """Index values are `lo` plus a multiple of this (the byte offsets of whole blocks)."""


def _draw_elements(dtype: DType, how: _Elements, rng: np.random.Generator, n: int) -> Array:
    """`n` random elements of a tensor parameter of `dtype` (`random_inputs` says which), as
    `how` says."""
    index_range, distinct = how.index_range, how.distinct
    if dtype.is_float:
        return as_dtype(rng.uniform(0.25, 2.0, size=n), dtype)
    if dtype is DType.BOOL:
        return rng.integers(0, 2, size=n).astype(np.bool_)
    if index_range is not None and how.unit > 1:  # block offsets: whole blocks inside the range
        first = -(-index_range[0] // how.unit) * how.unit
        blocks = max(1, -(-(index_range[1] - first) // how.unit))
        picks = rng.integers(0, min(blocks, _SMALL_INDEX), size=n)
        return (first + how.unit * picks).astype(numpy_dtype(dtype))
    if index_range is not None:  # indices: inside what they index
        lo, hi = index_range
        run = how.distinct_run
        if distinct and run is not None and 0 < run <= hi - lo and n % run == 0 \
                and n // run * (hi - lo) <= _DISTINCT_ROWS_CELLS:  # each row all different
            ranks = np.argsort(rng.random((n // run, hi - lo)), axis=1)[:, :run]
            return (lo + ranks).reshape(n).astype(numpy_dtype(dtype))
        if distinct and run is None and hi - lo >= n:
            return (lo + rng.permutation(hi - lo)[:n]).astype(numpy_dtype(dtype))
        return rng.integers(lo, lo + max(1, min(hi - lo, _SMALL_INDEX)), size=n).astype(numpy_dtype(dtype))
    lo = 0 if dtype.is_unsigned else -8
    values = rng.integers(lo, 9, size=n)
    if how.sparse and not dtype.is_unsigned:
        values = np.where(rng.random(n) < SPARSE_SENTINEL_SHARE, -1, values)
    return values.astype(numpy_dtype(dtype))


_DISTINCT_ROWS_CELLS = 1 << 22
"""The most random keys `_draw_elements` sorts to draw the rows of a tensor all different within
each (rows times the range); a larger tensor is drawn as plain indices."""


def _row_length(shape: tuple[int, ...]) -> int:
    """The elements in one row of a tensor of `shape` (its last dimension; 1 for a scalar)."""
    return shape[-1] if shape else 1


SPARSE_SENTINEL_SHARE = 15 / 16
"""The share of -1 entries in a `sparse` draw of a signed integer tensor."""


@dataclass
class Bounds:
    """What `check` learned from draws on which the original program ran past the end of a
    tensor dimension, for its later draws (`random_inputs`, `learn_bounds`): a kernel's
    contract keeps its accesses inside its tensors, so inputs that break it say nothing."""

    floors: dict[str, int] = field(default_factory=dict)
    """The least value to draw for a symbolic dimension or a dimension parameter, by name."""
    caps: dict[str, int] = field(default_factory=dict)
    """The largest value to draw for an integer scalar parameter, by name."""
    fits: list[Fit] = field(default_factory=list)
    """Extents to draw inside their range, each by choosing one integer scalar parameter."""


@dataclass(frozen=True)
class Fit:
    """A valid extent the kernel computes from its scalar parameters, learned from a draw that
    put it outside its tile (`ExtentOutOfRange`): later draws choose `parameter` so that the
    extent lies in `[lo, hi]` (`random_inputs`, after the other draws). A kernel handing a tail
    to a function as `rows - full_rows` has this contract between two of its parameters."""

    parameter: str
    extent: ir.Expr
    value: Callable[[Mapping[str, Any]], int | None]
    """The extent's value on a function's arguments (None where it cannot be computed)."""
    lo: int
    hi: int


LEARNED_DIMENSION_LIMIT = 1 << 20
"""`learn_bounds` raises a drawn dimension at most to this (a kernel whose accesses outrun any
dimension it is given faults on every draw, its message naming a size a person can read)."""


def learn_bounds(fn: ir.Function, err: InterpreterError, args: Mapping[str, Any], bounds: Bounds,
                 functions: Mapping[str, ir.Function] | None = None) -> bool:
    """Learn from `err`, a fault of `fn` on `args`, how to draw inputs the kernel accepts; True
    when a later draw changes. Only an access past the end of a dimension of a tensor
    parameter teaches (`OutOfBounds`; the tensor followed back through loop carries, copies
    and in-place results, and for a Group function, `functions` given, from a half's
    parameter to the group's argument): a dimension drawn by name (a symbolic one or a
    dimension parameter) is raised to hold the access, at least doubled, in multiples of 16
    (at most to `LEARNED_DIMENSION_LIMIT`);
    at a static dimension, the integer scalar parameters the index on that axis is computed
    from (through scalar assignments; loop variables and values read from data are not
    followed) are capped below the values they had by the overrun, at least halved.

    A valid extent outside its tile (`ExtentOutOfRange`: a load's, slice's or gather_row's
    valid shape, a set_validshape) computed from integer scalar parameters teaches a `Fit`:
    later draws choose one of those parameters so that the extent is at least 1 (0 where the
    tile's extent is) and at most the tile's extent."""
    if isinstance(err, ExtentOutOfRange):
        return _learn_fit(fn, err, args, bounds, functions or {})
    if not isinstance(err, OutOfBounds):
        return False
    over = err.overrun
    callers = _caller_arguments(fn, functions or {})
    found = _in_scope(fn, over.tensor, callers, functions or {}) if isinstance(over.tensor, ir.Var) else None
    if found is None:
        return False
    scope, tensor = found
    if not isinstance(tensor.type, ir.TensorType) or over.axis >= len(tensor.type.shape):
        return False
    dim = tensor.type.shape[over.axis]
    if isinstance(dim, ir.Var):
        want = min(-(-max(over.end, 2 * over.size) // 16) * 16, LEARNED_DIMENSION_LIMIT)
        if bounds.floors.get(dim.name_hint, 0) >= want:
            return False
        bounds.floors[dim.name_hint] = want
        return True
    if not isinstance(dim, int) or not isinstance(over.index, ir.SCALAR_EXPRS):
        return False
    changed = False
    params = {p.id for p in fn.params}
    for q in _scalar_sources(scope, over.index):  # type: ignore[arg-type]
        p = q if scope is fn else callers.get(q.id)
        value = args.get(p.name_hint) if isinstance(p, ir.Var) and p.id in params else None
        if isinstance(p, ir.Var) and isinstance(value, int) and value > 0:
            cap = max(0, min(value - (over.end - over.size), value // 2))
            if cap < bounds.caps.get(p.name_hint, value + 1):
                bounds.caps[p.name_hint] = cap
                changed = True
    return changed


def _learn_fit(fn: ir.Function, err: ExtentOutOfRange, args: Mapping[str, Any], bounds: Bounds,
               functions: Mapping[str, ir.Function]) -> bool:
    """`learn_bounds` for a valid extent outside its tile: a `Fit` of the extent by the first
    integer scalar parameter it is computed from (not a dimension parameter; in a Group
    function, through the half that computed it) whose value moves it."""
    misfit = err.misfit
    extent = misfit.extent
    callers = _caller_arguments(fn, functions)
    if not isinstance(extent, ir.SCALAR_EXPRS):
        return False
    params = {p.id: p for p in fn.params}
    scopes = [fn, *(functions[n] for n in dict.fromkeys(_half_names(fn)) if n in functions)]
    own = _scalar_defs(fn)
    for scope in scopes:
        defs = own if scope is fn else _scalar_defs(scope)
        value = _ExtentValue(extent, frozenset(params), own, defs, callers)  # type: ignore[arg-type]
        for q in _scalar_sources(scope, extent):  # type: ignore[arg-type]
            p = q if scope is fn else callers.get(q.id)
            if not isinstance(p, ir.Var) or p.id not in params or not isinstance(args.get(p.name_hint), int):
                continue
            here = args[p.name_hint]
            if value({**args, p.name_hint: here + 1}) == value(args):
                continue
            if any(f.parameter == p.name_hint and f.extent is extent for f in bounds.fits):
                return False
            bounds.fits.append(Fit(p.name_hint, extent, value, min(1, misfit.hi), misfit.hi))  # type: ignore[arg-type]
            return True
    return False


@dataclass(frozen=True)
class _ExtentValue:
    """The value of the scalar expression `extent` on a function's arguments: `extent` is an
    expression of the function (`defs` is `own`, its scalar assignments, `_scalar_defs`) or of
    a half a Group function calls (`defs` the half's, its parameters the `callers` arguments);
    None when it depends on anything else (a loop variable, data, the SPMD identity)."""

    extent: ir.Expr
    params: frozenset[int]
    own: Mapping[int, ir.Expr]
    defs: Mapping[int, ir.Expr]
    callers: Mapping[int, ir.CallArg]

    def __call__(self, args: Mapping[str, Any]) -> int | None:
        def outer(v: ir.Var) -> Any:
            if v.id in self.own:
                return eval_scalar(self.own[v.id], outer)
            value = args.get(v.name_hint) if v.id in self.params else None
            return value if isinstance(value, int) else None

        def inner(v: ir.Var) -> Any:
            if v.id in self.defs:
                return eval_scalar(self.defs[v.id], inner)
            arg = self.callers.get(v.id)
            return eval_scalar(arg, outer) if isinstance(arg, ir.SCALAR_EXPRS) else None  # type: ignore[arg-type]

        try:
            value = eval_scalar(self.extent, outer if self.defs is self.own else inner)
        except InterpreterError:
            return None
        return value if isinstance(value, int) else None


def _scalar_defs(fn: ir.Function) -> dict[int, ir.Expr]:
    """The scalar assignments of `fn`: binder id -> the expression it is assigned."""
    return {s.var.id: s.value for s in ir.walk_stmts(fn.body)  # type: ignore[misc]
            if isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.SCALAR_EXPRS)}


def _fit(fit: Fit, out: dict[str, Any], rng: np.random.Generator, cap: int | None) -> None:
    """Redraw `fit.parameter` in `out` so that its extent lies in `[fit.lo, fit.hi]`: uniformly
    among the non-negative values (at most `cap`) the extent's slope puts there, the slope
    measured at 0 and 1 and the result checked (left as drawn when none qualifies)."""
    name = fit.parameter
    if not isinstance(out.get(name), int):
        return
    e0, e1 = fit.value({**out, name: 0}), fit.value({**out, name: 1})
    if e0 is None or e1 is None or e0 == e1:
        return
    slope = e1 - e0
    low, high = (fit.lo - e0, fit.hi - e0) if slope > 0 else (fit.hi - e0, fit.lo - e0)
    first, last = max(0, -(-low // slope)), high // slope
    if cap is not None:
        last = min(last, cap)
    if first > last:
        return
    choice = int(rng.integers(first, last + 1))
    value = fit.value({**out, name: choice})
    if value is not None and fit.lo <= value <= fit.hi:
        out[name] = choice


def _in_scope(fn: ir.Function, v: ir.Var, callers: Mapping[int, ir.CallArg],
              functions: Mapping[str, ir.Function]) -> tuple[ir.Function, ir.Var] | None:
    """The function whose body the tensor `v` belongs to (`fn`, or a half a Group function
    `fn` calls) and the parameter of `fn` it is (followed through `_parameter_of`, and from a
    half's parameter to the group's argument, `callers`); None when it is none."""
    p = _parameter_of(fn, v)
    if p is not None:
        return fn, p
    for name in dict.fromkeys(_half_names(fn)):
        half = functions.get(name)
        q = _parameter_of(half, v) if half is not None else None
        arg = callers.get(q.id) if q is not None else None
        if half is not None and isinstance(arg, ir.Var):
            outer = _parameter_of(fn, arg)
            if outer is not None:
                return half, outer
    return None


def _parameter_of(fn: ir.Function, v: ir.Var) -> ir.Var | None:
    """The parameter of `fn` the tensor `v` is, followed back through loop carries (to the
    initial value), copies (`x = y`) and in-place results (`tile.store`'s destination,
    `tensor.write`'s tensor); None when it is not one."""
    params = {p.id: p for p in fn.params}
    back: dict[int, ir.Expr | ir.CallArg] = {}
    for st in ir.walk_stmts(fn.body):
        if isinstance(st, ir.ForStmt):
            back.update((a.var.id, a.init) for a in st.iter_args)
        elif isinstance(st, ir.AssignStmt):
            value = st.value
            if isinstance(value, ir.Var):
                back[st.var.id] = value
            elif isinstance(value, ir.Call) and value.op in ("tile.store", "tensor.write"):
                back[st.var.id] = value.args[2 if value.op == "tile.store" else 0]
    seen: set[int] = set()
    node: object = v
    while isinstance(node, ir.Var) and node.id not in params and node.id not in seen:
        seen.add(node.id)
        node = back.get(node.id)
    return params.get(node.id) if isinstance(node, ir.Var) else None


def _half_names(fn: ir.Function) -> list[str]:
    """The functions a Group function `fn` calls, by name (none for another function)."""
    if fn.type is not ir.FunctionType.GROUP:
        return []
    return [c.op[len("self."):] for c in calls_of(fn) if c.op.startswith("self.")]


def _caller_arguments(fn: ir.Function, functions: Mapping[str, ir.Function]) -> dict[int, ir.CallArg]:
    """For a Group function `fn`: each parameter of a half it calls (by id) -> the argument
    the call passes it."""
    out: dict[int, ir.CallArg] = {}
    for c in calls_of(fn) if fn.type is ir.FunctionType.GROUP else []:
        half = functions.get(c.op[len("self."):]) if c.op.startswith("self.") else None
        if half is not None:
            out.update((p.id, a) for p, a in zip(half.params, c.args, strict=False))
    return out


def _scalar_sources(fn: ir.Function, e: ir.Expr) -> list[ir.Var]:
    """The integer scalar parameters of `fn` (not dimension parameters) `e` is computed from,
    through the scalar assignments of `fn`, in parameter order."""
    defs = _scalar_defs(fn)
    dimensions = {v.id for v in _dimension_parameters(fn)}
    seen: set[int] = set()
    work = list(ir.expr_vars(e))
    while work:
        v = work.pop()
        if v.id in seen:
            continue
        seen.add(v.id)
        d = defs.get(v.id)
        if d is not None:
            work.extend(ir.expr_vars(d))  # type: ignore[arg-type]
    return [p for p in fn.params if p.id in seen and p.id not in dimensions
            and isinstance(p.type, ir.ScalarType) and not p.type.dtype.is_float]


SIZED_DIMENSION = (64, 256)
"""The range `random_inputs(draw=Draw.SIZED)` draws a symbolic dimension from, in multiples of 16."""


def _declared_extent(fn: ir.Function, symbol: ir.Var, dims: dict[int, int]) -> int:
    """The least physical extent of the axes whose declared valid extent is `symbol` (a
    dimension's drawn value where it is one)."""
    extents: list[int] = []
    for p in fn.params:
        t = p.type
        if isinstance(t, ir.TensorType) and t.view is not None:
            for d, v in zip(t.shape, t.view.valid_shape, strict=False):
                if isinstance(v, ir.Var) and v.id == symbol.id:
                    extents.append(d if isinstance(d, int) else _dimension(d, dims, p))
    return min(extents)


def _draw_dimension(rng: np.random.Generator, sized: bool) -> int:
    if sized:
        return 16 * int(rng.integers(SIZED_DIMENSION[0] // 16, SIZED_DIMENSION[1] // 16 + 1))
    return int(rng.integers(DYNAMIC_DIMENSION[0], DYNAMIC_DIMENSION[1] + 1))


_OFFSET_CARRIERS = frozenset({"tile.slice", "tile.reshape", "tile.move", "tensor.view"})
"""Ops whose result holds the elements of their first argument (views and copies), followed
back from an index to the tensor its elements were read from."""

_SMALL_INDEX = 9
"""`random_inputs` draws index values below this (and below the extent they index)."""


def _index_parameters(fn: ir.Function) -> dict[int, tuple[int, int]]:
    """The integer tensor parameters whose elements `fn` uses as indices, each with the range
    `[lo, hi)` its values are drawn from: elements read (`tensor.read`, `tile.read`, a load,
    through views, casts and the addition of a constant) into the index list of an op that
    addresses a tensor or a tile, or into the offsets tile of a `tile.gather` (loaded, or filled
    with `tile.write`), there or through the tile arithmetic that makes flat offsets of row and
    column indices (`_spread`). A kernel's contract is that its indices stay inside what they index (the
    hardware reads whatever lies outside), so `random_inputs` draws such tensors there instead
    of making every trial fault. `lo` undoes a constant added on the way (`pos - 3` indexes, so
    `pos` is at least 3); `hi - lo` is the indexed extent where the element is the index itself
    (`_SMALL_INDEX` where it enters an index through other arithmetic). Elements read into the
    divisor of an integer `//`, `%` or `/` (a count a position is wrapped by) are drawn from
    `[1, _SMALL_INDEX]`: a kernel divides by them, as by a block count, only when positive."""
    defs: dict[int, ir.Expr | ir.Call] = {}
    writes: dict[int, list[ir.CallArg]] = {}  # tile or array -> the values written into it
    joins = _joins(fn)
    work: list[tuple[ir.CallArg, int, int]] = []
    for st in ir.walk_stmts(fn.body):
        call = st.value if isinstance(st, ir.AssignStmt) else st.call if isinstance(st, ir.EvalStmt) else None
        if isinstance(st, ir.AssignStmt):
            defs[st.var.id] = st.value
        if isinstance(call, ir.Call):
            if call.op == "tile.write" and len(call.args) > 2 and isinstance(call.args[0], ir.Var):
                writes.setdefault(call.args[0].id, []).append(call.args[2])
            if call.op == "array.update_element" and len(call.args) > 2 and isinstance(st, ir.AssignStmt):
                writes.setdefault(st.var.id, []).append(call.args[2])  # the new version holds it
            work.extend((e, extent, 0) for e, extent in _index_uses(call))
        work.extend((d, _SMALL_INDEX, 1) for d in _divisors(st))  # a divisor is drawn positive
    params = {p.id for p in fn.params if isinstance(p.type, ir.TensorType) and p.type.dtype.is_int}
    out: dict[int, tuple[int, int]] = {}
    seen: set[tuple[int, int, int]] = set()
    joined: set[int] = set()
    while work:
        node, extent, lo = work.pop()
        inner, shift = _shifted(node)
        if inner is not node:
            work.append((inner, extent, lo - shift))
            continue
        if not isinstance(node, ir.Var):
            work.extend((v, _SMALL_INDEX, 0) for v in ir.expr_vars(node))
            continue
        if (node.id, extent, lo) in seen:
            continue
        seen.add((node.id, extent, lo))
        if node.id in params:
            old_lo, old_hi = out.get(node.id, (lo, lo + extent))
            new_lo = max(old_lo, lo)
            out[node.id] = (new_lo, max(new_lo + 1, min(old_hi, lo + extent)))
            continue
        work.extend((v, extent, lo) for v in writes.get(node.id, ()))
        if node.id not in joined:  # once: a carried `x = x + 1` would shift `lo` forever
            joined.add(node.id)
            work.extend((v, extent, lo) for v in joins.get(node.id, ()))
        d = defs.get(node.id)
        if isinstance(d, ir.Call):
            carried = _carried(d, defs)
            if carried is not None:
                work.append((carried[0], extent, lo - carried[1]))
            else:
                work.extend(_spread(d, defs, extent, lo))
        elif d is not None:
            work.append((d, extent, lo))
    return out


def _spread(d: ir.Call, defs: Mapping[int, ir.Expr | ir.Call], extent: int,
            lo: int) -> list[tuple[ir.CallArg, int, int]]:
    """The operands of the tile arithmetic `d` that makes an offset in `[lo, lo + extent)`, each
    with the range it is drawn from so that the result stays there (`_index_parameters`):
    - `tile.muls(x, c)`, `c > 0`: `x` in `[ceil(lo / c), ceil((lo + extent) / c))`;
    - `tile.adds(x, c)`: `x` shifted by `-c`;
    - `tile.row_expand_add(x, base)`, how a kernel adds a per-row base (`row * row_length`) to
      per-row offsets: `x` in its row's share of the extent (`extent // rows`), `base` in what
      the share leaves;
    - `tile.add(a, b)`: each in the extent less what the other can add (`_largest`), half of it
      where that is not known.
    Anything else: nothing (such a tensor is drawn as plain small integers)."""
    if d.op == "tile.muls" and len(d.args) > 1:
        c = _literal(d.args[1])
        if c is None or c <= 0:
            return []
        first, end = -(-lo // c), -(-(lo + extent) // c)
        return [(d.args[0], max(1, end - first), first)]
    if d.op == "tile.adds" and len(d.args) > 1:
        c = _literal(d.args[1])
        return [] if c is None else [(d.args[0], extent, lo - c)]
    if d.op == "tile.row_expand_add" and len(d.args) > 1:
        x, base = d.args[0], d.args[1]
        shape = x.type.shape if isinstance(x, ir.Var) and isinstance(x.type, ir.TileType) else ()
        rows = shape[0] if shape and isinstance(shape[0], int) and shape[0] > 0 else None
        if rows is not None:
            share = max(1, extent // rows)
            return [(x, share, lo), (base, max(1, extent - share + 1), lo)]
    if d.op in ("tile.add", "tile.row_expand_add") and len(d.args) > 1:
        out = []
        for k in (0, 1):
            other = _largest(d.args[1 - k], defs)
            room = extent - other if other is not None else extent // 2
            out.append((d.args[k], max(1, room), lo))
        return out
    return []


def _literal(e: ir.CallArg | None) -> int | None:
    """The value of an integer literal (`8`, `pl.const(8, pl.INT32)`), also under casts (which
    `_shifted` looks through the same way), else None."""
    while isinstance(e, ir.Cast):
        e = e.a
    return ir.literal_value(e) if isinstance(e, ir.ConstInt) else None


def _largest(arg: ir.CallArg, defs: Mapping[int, ir.Expr | ir.Call], depth: int = 0) -> int | None:
    """The largest element of a tile the kernel computes from literals (`tile.ci` with a
    literal start, `tile.full` of an integer literal, their views and their `tile.muls` by a
    positive literal), else None."""
    if not isinstance(arg, ir.Var) or depth > 16:
        return None
    d = defs.get(arg.id)
    if isinstance(d, ir.Var):
        return _largest(d, defs, depth + 1)
    if not isinstance(d, ir.Call) or not d.args:
        return None
    if d.op == "tile.ci":
        start = _literal(d.args[0])
        shape = d.args[1] if len(d.args) > 1 else None
        dims = [_literal(e) for e in shape.items] if isinstance(shape, ir.ExprList) else [None]
        if start is None or any(n is None for n in dims):
            return None
        return start + max(0, element_count([n for n in dims if n is not None]) - 1)
    if d.op == "tile.full":
        return _literal(named_arg(d, 1, "value"))
    if d.op in _OFFSET_CARRIERS:
        return _largest(d.args[0], defs, depth + 1)
    if d.op == "tile.muls" and len(d.args) > 1:
        c, inner = _literal(d.args[1]), _largest(d.args[0], defs, depth + 1)
        return inner * c if c is not None and c > 0 and inner is not None and inner >= 0 else None
    return None


def sentinel_parameters(fn: ir.Function) -> set[int]:
    """The signed integer tensor parameters whose elements `fn` compares with 0 or -1 (read by
    `tensor.read`, through casts and copies, into a comparison such as `0 <= x` or `x != -1`):
    a kernel that tests an entry's sign expects negative sentinels among them."""
    params = {p.id for p in fn.params if isinstance(p.type, ir.TensorType) and p.type.dtype.is_int
              and not p.type.dtype.is_unsigned}
    defs: dict[int, ir.Expr | ir.Call] = {}
    exprs: list[ir.Expr] = []
    for st in ir.walk_stmts(fn.body):
        if isinstance(st, ir.AssignStmt):
            defs[st.var.id] = st.value
            if not isinstance(st.value, ir.Call):
                exprs.append(st.value)
        elif isinstance(st, ir.IfStmt):
            exprs.append(st.cond)

    def read_of(e: ir.Expr | ir.Call, depth: int = 0) -> int | None:
        while isinstance(e, ir.Cast):
            e = e.a
        if isinstance(e, ir.Var) and depth < 16:
            d = defs.get(e.id)
            return None if d is None else read_of(d, depth + 1)
        if isinstance(e, ir.Call) and e.op == "tensor.read" and e.args and isinstance(e.args[0], ir.Var) \
                and e.args[0].id in params:
            return e.args[0].id
        return None

    out: set[int] = set()
    while exprs:
        e = exprs.pop()
        exprs.extend(ir.expr_children(e))
        if isinstance(e, ir.Cmp):
            for side, other in ((e.a, e.b), (e.b, e.a)):
                if ir.literal_value(other) in (0, -1):
                    found = read_of(side)
                    if found is not None:
                        out.add(found)
    return out


def _joins(fn: ir.Function) -> dict[int, list[ir.Expr]]:
    """The values each loop-carried value and each loop or if result joins, by var id: a loop's
    iteration value and result join its initial value and what the body yields, an if's result
    what each branch yields."""
    out: dict[int, list[ir.Expr]] = {}
    for st in ir.walk_stmts(fn.body):
        if isinstance(st, ir.ForStmt):
            yielded = _yielded(st.body)
            for k, it in enumerate(st.iter_args):
                values = [it.init, *([yielded[k]] if k < len(yielded) else [])]
                out.setdefault(it.var.id, []).extend(values)
                if k < len(st.return_vars):
                    out.setdefault(st.return_vars[k].id, []).extend(values)
        elif isinstance(st, ir.IfStmt):
            for branch in (st.then_body, st.else_body):
                yielded = _yielded(branch) if branch is not None else []
                for k, r in enumerate(st.return_vars):
                    if k < len(yielded):
                        out.setdefault(r.id, []).append(yielded[k])
    return out


def _yielded(body: ir.SeqStmts) -> list[ir.Expr]:
    last = body.stmts[-1] if body.stmts else None
    return list(last.values) if isinstance(last, ir.YieldStmt) else []


_Tag = TypeVar("_Tag")


def _parameters_behind(fn: ir.Function, roots: Iterable[tuple[ir.CallArg, _Tag]],
                       more: Callable[[ir.Call, _Tag], list[tuple[ir.CallArg, _Tag]]] | None = None,
                       ) -> Iterator[tuple[int, _Tag]]:
    """The parameters each root's elements come from, by id, each with the tag it was reached
    under: a root is followed back through what holds its elements unchanged (`_carried` with
    nothing added: loads, views, copies, integer casts) and through plain aliases, and through
    the operands `more` names for a call (with their tags)."""
    defs = {st.var.id: st.value for st in ir.walk_stmts(fn.body) if isinstance(st, ir.AssignStmt)}
    params = {p.id for p in fn.params}
    work = list(roots)
    seen: set[tuple[int, _Tag]] = set()
    while work:
        node, tag = work.pop()
        if not isinstance(node, ir.Var) or (node.id, tag) in seen:
            continue
        seen.add((node.id, tag))
        if node.id in params:
            yield node.id, tag
            continue
        d = defs.get(node.id)
        carried = _carried(d, defs) if isinstance(d, ir.Call) else None
        if carried is not None and carried[1] == 0:
            work.append((carried[0], tag))
        elif isinstance(d, ir.Call) and more is not None:
            work.extend(more(d, tag))
        elif isinstance(d, ir.Var):
            work.append((d, tag))


def _scatter_index_parameters(fn: ir.Function) -> dict[int, bool]:
    """The integer tensor parameters whose elements a scatter (`SCATTERS`) takes as its offsets,
    each with True where only each row's elements must differ: `random_inputs` draws their
    elements all different, so every drawn element lands (a `tile.mscatter` writing one
    offset twice leaves the DMA's order to decide; a `tile.scatter` keeps only the later
    write). The offsets are followed back through loads, views and copies, a multiplication
    by a positive literal (which keeps values apart), and a `tile.row_expand_add` of per-row
    offsets (distinct within each row: True) and a per-row base (distinct across rows)."""
    def apart(d: ir.Call, per_row: bool) -> list[tuple[ir.CallArg, bool]]:
        if d.op == "tile.row_expand_add" and len(d.args) > 1:
            return [(d.args[0], True), (d.args[1], per_row)]
        if d.op == "tile.muls" and len(d.args) > 1 and (_literal(d.args[1]) or 0) > 0:
            return [(d.args[0], per_row)]
        return []

    roots = [(call.args[OFFSET_OPERANDS[call.op][1]], False) for call in calls_of(fn)
             if call.op in SCATTERS and len(call.args) > 2]
    out: dict[int, bool] = {}
    for param, per_row in _parameters_behind(fn, roots, apart):
        out[param] = out.get(param, True) and per_row
    return out


def _block_offset_parameters(fn: ir.Function) -> dict[int, int]:
    """The integer tensor parameters whose elements are the byte offsets of a `tile.gatherb`
    (followed back through loads, views, copies and casts), each with the block size its
    offsets are multiples of: `random_inputs` draws whole blocks."""
    roots = [(c.args[1], None) for c in calls_of(fn) if c.op == "tile.gatherb" and len(c.args) > 1]
    return {param: GATHERB_BLOCK for param, _ in _parameters_behind(fn, roots)}


def _carried(d: ir.Call, defs: Mapping[int, ir.Expr | ir.Call]) -> tuple[ir.CallArg, int] | None:
    """The argument whose elements the result of `d` holds, and the constant `d` adds to them:
    a read, a load, a view or copy (`_OFFSET_CARRIERS`), a cast to an integer type (an index
    drawn inside what it indexes fits it), an array's element or next version
    (whose written value `_index_parameters` follows as well), and the row a `tile.col_expand_add`
    broadcasts onto a `tile.full` of an integer literal (how a kernel repeats one row of
    indices down a tile). None for anything else."""
    if d.args and (d.op in ("tensor.read", "tile.read", "tile.load") or d.op in _OFFSET_CARRIERS
                   or d.op in ("array.get_element", "array.update_element")):
        return d.args[0], 0
    target = d.kwarg("target_type")
    if d.op == "tile.cast" and d.args and isinstance(target, ir.DTypeArg) and target.dtype.is_int:
        return d.args[0], 0  # an index narrowed or widened to another integer type
    if d.op == "tile.col_expand_add" and len(d.args) > 1 and isinstance(d.args[0], ir.Var):
        base = defs.get(d.args[0].id)
        value = named_arg(base, 1, "value") if isinstance(base, ir.Call) and base.op == "tile.full" else None
        if isinstance(value, ir.ConstInt):
            return d.args[1], value.value
    return None


def _divisors(st: ir.Stmt) -> list[ir.Expr]:
    """The divisors of the integer `//`, `%` and `/` a statement evaluates (its value, call
    arguments, condition or loop bounds)."""
    roots: list[ir.Expr] = []
    if isinstance(st, ir.AssignStmt | ir.EvalStmt):
        value = st.value if isinstance(st, ir.AssignStmt) else st.call
        items = [*value.args, *(v for _, v in value.kwargs)] if isinstance(value, ir.Call) else [value]
        for item in items:
            roots.extend(item.items if isinstance(item, ir.ExprList) else
                         [item] if isinstance(item, ir.SCALAR_EXPRS) else [])  # type: ignore[list-item]
    elif isinstance(st, ir.IfStmt):
        roots.append(st.cond)
    elif isinstance(st, ir.ForStmt):
        roots.extend((st.start, st.stop, st.step))
    out: list[ir.Expr] = []
    work = list(roots)
    while work:
        e = work.pop()
        if isinstance(e, ir.FloorDiv | ir.FloorMod) and ir.expr_dtype(e).is_int:
            out.append(e.b)
        elif isinstance(e, ir.ScalarBinary) and e.op == "truediv" and e.dtype.is_int:
            out.append(e.b)
        work.extend(ir.expr_children(e))
    return out


def _shifted(e: ir.CallArg) -> tuple[ir.CallArg, int]:
    """`e` as `inner + shift` through casts and the addition or subtraction of an integer
    literal (`(e, 0)` for anything else)."""
    if isinstance(e, ir.Cast):
        return _shifted(e.a)
    if isinstance(e, ir.Add | ir.Sub) and isinstance(e.b, ir.ConstInt):
        inner, shift = _shifted(e.a)
        return inner, shift + (e.b.value if isinstance(e, ir.Add) else -e.b.value)
    if isinstance(e, ir.Add) and isinstance(e.a, ir.ConstInt):
        inner, shift = _shifted(e.b)
        return inner, shift + e.a.value
    return e, 0


OFFSET_OPERANDS: dict[str, tuple[int, int]] = {"tile.gather": (0, 1), "tile.scatter": (0, 2),
                                               "tile.mscatter": (2, 1)}
"""The ops that address a tile or tensor by a tile of flat element offsets: the argument
addressed (the gather's source, the scatter's destination tile, the mscatter's tensor) and the
offsets' argument."""

SCATTERS = frozenset({"tile.scatter", "tile.mscatter"})
"""Those that write at their offsets."""


def _index_uses(call: ir.Call) -> list[tuple[ir.CallArg, int]]:
    """What `call` uses as an index, each with the extent it indexes: the offsets tile of an op
    of `OFFSET_OPERANDS` (the element count of what it addresses) and the entries of an op's
    index list (`INDEXED`), each with the size of the dimension it indexes."""
    if call.op == "tile.mgather" and len(call.args) >= 2:  # elements or rows of the tensor
        mem = call.args[0]
        shape = mem.type.shape if isinstance(mem, ir.Var) and isinstance(mem.type, ir.TensorType) else None
        dims = [d for d in shape or () if isinstance(d, int)]
        if shape is None or len(dims) != len(shape):
            return []
        modes = mgather_modes(call)
        if modes is None:
            return []
        return [(call.args[1], element_count(dims if modes[0] else dims[:-1]))]
    if call.op == "tile.gatherb" and len(call.args) >= 2:  # whole 32-byte blocks of the source
        src = call.args[0]
        typ = src.type if isinstance(src, ir.Var) else None
        dims = [d for d in typ.shape if isinstance(d, int)] if isinstance(typ, ir.TileType) else []
        if not isinstance(typ, ir.TileType) or len(dims) != len(typ.shape):
            return []
        return [(call.args[1], max(1, element_count(dims) * typ.dtype.nbytes - GATHERB_BLOCK + 1))]
    operands = OFFSET_OPERANDS.get(call.op)
    if operands is not None:
        at, offsets = operands
        target = call.args[at] if len(call.args) > max(at, offsets) else None
        typ = target.type if isinstance(target, ir.Var) else None
        shape = typ.shape if isinstance(typ, ir.TileType | ir.TensorType) else None
        dims = [d for d in shape or () if isinstance(d, int)]
        if shape is None or len(dims) != len(shape):
            return []
        return [(call.args[offsets], element_count(dims))]
    where = INDEXED.get(call.op)
    if where is None or len(call.args) <= max(where):
        return []
    target, index = call.args[where[0]], call.args[where[1]]
    typ = target.type if isinstance(target, ir.Var) else None
    shape = typ.shape if isinstance(typ, ir.TensorType | ir.TileType) else ()
    uses: list[tuple[ir.CallArg, int]] = []
    for k, e in enumerate(index.items if isinstance(index, ir.ExprList) else ()):
        dim = shape[k] if k < len(shape) else None
        uses.append((e, dim if isinstance(dim, int) else _SMALL_INDEX))
    return uses



DYNAMIC_DIMENSION = (16, 64)
"""The range a symbolic tensor dimension is drawn from by `random_inputs`."""


def _dimension_parameters(fn: ir.Function) -> list[ir.Var]:
    """The integer scalar parameters a tensor parameter's shape names, as a whole dimension
    (`x: pl.Tensor[[n, 128], ...], n: pl.Scalar[pl.INDEX]`, as the reference prints a dynamic
    extent passed in) or inside one (`[n * 32, 128]`, a block count times the block size), in
    parameter order."""
    named = {v.id for p in fn.params if isinstance(p.type, ir.TensorType)
             for d in p.type.shape if not isinstance(d, int) for v in ir.expr_vars(d)}
    return [p for p in fn.params if p.id in named and isinstance(p.type, ir.ScalarType)
            and not p.type.dtype.is_float]


def _dimension(d: int | ir.Expr, dims: dict[int, int], p: ir.Var) -> int:
    if isinstance(d, int):
        return d
    try:
        value = eval_scalar(d, lambda v: dims.get(v.id))  # type: ignore[arg-type,return-value]
    except InterpreterError:
        value = None
    if not isinstance(value, int) or value < 0:
        raise InterpreterError(f"parameter '{p.name_hint}' has a dimension random inputs cannot draw "
                               "(it names a scalar parameter)", p.span)
    return value


def random_identity(rng: np.random.Generator) -> dict[str, int]:
    """A seeded SPMD identity for one run: a block count in [1, 4], a block index below it and
    a sub-block index in {0, 1}."""
    num = int(rng.integers(1, 5))
    return {"block_num": num, "block_idx": int(rng.integers(0, num)), "subblock_idx": int(rng.integers(0, 2))}
