"""Tensor arguments too large to hold whole, drawn page by page as a run touches them.

A real kernel's tensor parameters are the model's: a vocabulary projection's weight alone is
[152064, 5120], 778 million elements, while one run of the kernel reads a few blocks of it.
`slotsat check` draws such a parameter as a `PagedTensor`: the tensor seen as a matrix (its
last dimension the columns, the others merged into rows) cut into blocks of
`PAGE_ELEMENTS` elements, `PAGE_COLUMNS` columns wide (64 x 64: a tile's window touches a few
and wastes little past its edges), each drawn on first touch from the seed `(seed, block)`,
so every run of one trial sees the same contents wherever it reads. A run's writes go to its
own copies of the pages it writes (`PagedTensor.fresh`), never into the drawn ones; two
runs' results differ only on the pages either wrote (`differing_pages`). The pages one trial
draws and copies together are bounded by a `PageBudget`; past it the trial is too large to
interpret (`InterpreterLimit`).

A `PagedTensor` answers the part of numpy's array interface the interpreter uses on tensors:
`shape`, `ndim`, `size`, `dtype`, indexing by a tuple of integers and unit-step slices (a
rectangular window, or one element), indexing the flat view `reshape(-1)` by an array of
addresses, assignment through both, and `reshape` (a view sharing the pages). A window whose
rows are one range of the matrix view (a tile's load or store) is copied page block by page
block; any other key goes through its elements' flat addresses.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

from slotsat.core.interp_errors import InterpreterLimit

Array: TypeAlias = npt.NDArray[Any]

PAGE_ELEMENTS = 1 << 12
PAGE_COLUMNS = 64
"""A page's width where the tensor has more than one row (and at least that many columns)."""

PAGED_ABOVE = 1 << 20
"""Tensor parameters with more elements than this are drawn as `PagedTensor`s."""

_Block: TypeAlias = tuple[slice, slice]

Draw: TypeAlias = Callable[[np.random.Generator, int], Array]
"""Draws `n` elements (a 1-D array of the tensor's storage dtype) from a generator."""


@dataclass
class PageBudget:
    """The elements the pages of one trial's arguments may hold together (drawn pages and
    the runs' written copies)."""

    limit: int
    used: int = 0

    def take(self, n: int, source: PageSource) -> None:
        self.used += n
        if self.used > self.limit:
            raise InterpreterLimit(
                f"too large to interpret: the runs on one input touched more than {self.limit:,} elements "
                f"of the tensor parameters, drawn in pages of {PAGE_ELEMENTS:,} ('{source.name}' is "
                f"{list(source.shape)}; SLOTSAT_INTERP_MAX_ELEMENTS)")


@dataclass(eq=False)
class PageSource:
    """The drawn contents of one paged argument: page `k` is `draw` on a generator seeded
    `(seed, k)`, made on first touch and then kept, read only."""

    name: str
    """The parameter's name (in messages)."""
    shape: tuple[int, ...]
    dtype: np.dtype[Any]
    draw: Draw
    seed: int
    budget: PageBudget
    pages: dict[int, Array] = field(default_factory=dict, repr=False)
    size: int = field(init=False)
    _cols: int = field(init=False)
    _page_rows: int = field(init=False)
    _page_cols: int = field(init=False)
    _blocks_per_row: int = field(init=False)

    def __post_init__(self) -> None:
        self.size = math.prod(self.shape)
        self._cols = max(self.shape[-1], 1) if self.shape else 1
        rows = self.size // self._cols
        self._page_cols = min(self._cols, PAGE_COLUMNS if rows > 1 else PAGE_ELEMENTS)
        self._page_rows = PAGE_ELEMENTS // self._page_cols
        self._blocks_per_row = -(-self._cols // self._page_cols)

    def locate(self, flat: Array) -> tuple[Array, Array]:
        """The page of each flat (row-major) address and the element's place in it."""
        row, col = np.divmod(flat, self._cols)
        row_block, r = np.divmod(row, self._page_rows)
        col_block, c = np.divmod(col, self._page_cols)
        return row_block * self._blocks_per_row + col_block, r * self._page_cols + c

    def blocks(self, rows: range, cols: range) -> Iterator[tuple[int, _Block, _Block]]:
        """The pages a window of the matrix view (`rows` x `cols`, unit steps, not empty)
        touches: each page's index, the window's part as a slice of the page seen as a
        `_page_rows` x `_page_cols` block, and as a slice of the window."""
        pr, pc = self._page_rows, self._page_cols
        for rb in range(rows.start // pr, (rows.stop - 1) // pr + 1):
            r0, r1 = max(rows.start, rb * pr), min(rows.stop, (rb + 1) * pr)
            for cb in range(cols.start // pc, (cols.stop - 1) // pc + 1):
                c0, c1 = max(cols.start, cb * pc), min(cols.stop, (cb + 1) * pc)
                yield (rb * self._blocks_per_row + cb,
                       (slice(r0 - rb * pr, r1 - rb * pr), slice(c0 - cb * pc, c1 - cb * pc)),
                       (slice(r0 - rows.start, r1 - rows.start), slice(c0 - cols.start, c1 - cols.start)))

    def block_shape(self) -> tuple[int, int]:
        """A page seen as a block of the matrix view: rows by columns."""
        return self._page_rows, self._page_cols

    def index_of(self, page: int, offset: int) -> list[int]:
        """The index in the tensor of element `offset` of page `page`."""
        row_block, col_block = divmod(page, self._blocks_per_row)
        r, c = divmod(offset, self._page_cols)
        flat = (row_block * self._page_rows + r) * self._cols + col_block * self._page_cols + c
        return [int(i) for i in np.unravel_index(flat, self.shape)]

    def page(self, k: int) -> Array:
        """Page `k`: `_page_rows` x `_page_cols` elements in row-major order (a page at the
        tensor's edge holds elements past it too, which no address reaches)."""
        got = self.pages.get(k)
        if got is None:
            n = self._page_rows * self._page_cols
            self.budget.take(n, self)
            got = np.asarray(self.draw(np.random.default_rng((self.seed, k)), n), dtype=self.dtype)
            got.flags.writeable = False
            self.pages[k] = got
        return got


class PagedTensor:
    """A tensor whose elements live in pages (see the module docstring): `source`'s drawn
    pages, and those this tensor and its views wrote."""

    __slots__ = ("own", "shape", "source")

    def __init__(self, shape: tuple[int, ...], source: PageSource,
                 own: dict[int, Array] | None = None) -> None:
        if math.prod(shape) != source.size:
            raise ValueError(f"shape {list(shape)} does not hold {source.size} elements")
        self.shape = shape
        self.source = source
        self.own: dict[int, Array] = {} if own is None else own
        """The pages this tensor (and its views) wrote, by index."""

    @property
    def dtype(self) -> np.dtype[Any]:
        return self.source.dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return self.source.size

    def fresh(self) -> PagedTensor:
        """A run's own copy of the argument: the drawn contents, nothing written."""
        return PagedTensor(self.shape, self.source)

    def reshape(self, *shape: Any) -> PagedTensor:
        """The same elements in row-major order as `shape` (one `-1` allowed): a view that
        shares this tensor's pages, as numpy's reshape of a contiguous array does."""
        dims = list(shape[0]) if len(shape) == 1 and isinstance(shape[0], tuple | list) else list(shape)
        if dims.count(-1) == 1:
            known = math.prod(d for d in dims if d != -1)
            dims[dims.index(-1)] = self.size // known if known else 0
        return PagedTensor(tuple(int(d) for d in dims), self.source, self.own)

    def page(self, k: int) -> Array:
        got = self.own.get(k)
        return got if got is not None else self.source.page(k)

    def _writable(self, k: int) -> Array:
        got = self.own.get(k)
        if got is None:
            drawn = self.source.page(k)
            self.source.budget.take(drawn.size, self.source)
            got = self.own[k] = drawn.copy()
        return got

    def gather(self, addresses: Array) -> Array:
        """The elements at flat `addresses`, shaped as `addresses`."""
        pages, offsets = self.source.locate(np.asarray(addresses, dtype=np.int64).reshape(-1))
        out = np.empty(pages.size, dtype=self.dtype)
        for k, where in _by_page(pages):
            out[where] = self.page(k)[offsets[where]]
        return out.reshape(np.shape(addresses))

    def scatter(self, addresses: Array, values: Any) -> None:
        """Write `values` (broadcast to the shape of `addresses`) at flat `addresses`."""
        pages, offsets = self.source.locate(np.asarray(addresses, dtype=np.int64).reshape(-1))
        data = np.broadcast_to(np.asarray(values, dtype=self.dtype), np.shape(addresses)).reshape(-1)
        for k, where in _by_page(pages):
            self._writable(k)[offsets[where]] = data[where]

    def addresses(self, key: Any) -> Array:
        """The flat addresses `key` selects: an array of flat addresses as it is (on the flat
        view), `...` (every element), or a tuple of integers and unit-step slices, missing
        trailing entries whole."""
        if isinstance(key, np.ndarray):
            if self.ndim != 1:
                raise IndexError("an address array indexes the flat view (reshape(-1)) only")
            return key.astype(np.int64)
        items = () if key is Ellipsis else key if isinstance(key, tuple) else (key,)
        if len(items) > self.ndim:
            raise IndexError(f"{len(items)} indices for a tensor of rank {self.ndim}")
        items = (*items, *(slice(None),) * (self.ndim - len(items)))
        strides = [math.prod(self.shape[k + 1:]) for k in range(self.ndim)]
        base = 0
        ranges: list[Array] = []
        for item, dim, stride in zip(items, self.shape, strides, strict=True):
            if isinstance(item, slice):
                start, stop, step = item.indices(dim)
                if step != 1:
                    raise IndexError("a paged tensor is indexed by unit-step slices")
                ranges.append(np.arange(start, stop, dtype=np.int64) * stride)
            else:
                i = int(item)
                if not -dim <= i < dim:
                    raise IndexError(f"index {i} is out of bounds for a dimension of size {dim}")
                base += (i % dim) * stride
        if not ranges:
            return np.asarray(base, dtype=np.int64)
        grid: Array = np.asarray(base, dtype=np.int64)
        for axis in np.ix_(*ranges):
            grid = grid + axis
        return grid

    def window(self, key: Any) -> tuple[range, range, tuple[int, ...]] | None:
        """The rectangle of the matrix view (the last dimension the columns, the others
        merged into rows) that `key` selects, and the shape numpy gives the selection, where
        the rows are one unit-step range: integers before the last two entries, each of those an
        integer or a unit-step slice, and the selection not empty. None for any other key."""
        if isinstance(key, np.ndarray) or key is Ellipsis or self.ndim == 0:
            return None
        items = key if isinstance(key, tuple) else (key,)
        if len(items) > self.ndim or any(isinstance(i, slice) for i in items[:max(0, self.ndim - 2)]):
            return None
        items = (*items, *(slice(None),) * (self.ndim - len(items)))
        spans: list[range] = []
        shape: list[int] = []
        for item, dim in zip(items, self.shape, strict=True):
            if isinstance(item, slice):
                start, stop, step = item.indices(dim)
                if step != 1 or stop <= start:
                    return None
                spans.append(range(start, stop))
                shape.append(stop - start)
            elif isinstance(item, int | np.integer) and -dim <= int(item) < dim:
                i = int(item) % dim
                spans.append(range(i, i + 1))
            else:
                return None
        cols = spans[-1]
        row = 0
        for span, dim in zip(spans[:-1], self.shape[:-1], strict=True):
            row = row * dim + span.start
        rows = range(row, row + len(spans[-2]) if self.ndim > 1 else row + 1)
        return rows, cols, tuple(shape)

    def __getitem__(self, key: Any) -> Any:
        window = self.window(key)
        if window is None:
            got = self.gather(self.addresses(key))
            return got[()] if got.ndim == 0 else got
        rows, cols, shape = window
        out = np.empty((len(rows), len(cols)), dtype=self.dtype)
        block = self.source.block_shape()
        for k, in_page, in_window in self.source.blocks(rows, cols):
            out[in_window] = self.page(k).reshape(block)[in_page]
        return out.reshape(shape)[()] if not shape else out.reshape(shape)

    def __setitem__(self, key: Any, values: Any) -> None:
        window = self.window(key)
        if window is None:
            self.scatter(self.addresses(key), values)
            return
        rows, cols, shape = window
        data = np.broadcast_to(np.asarray(values, dtype=self.dtype), shape).reshape(len(rows), len(cols))
        block = self.source.block_shape()
        for k, in_page, in_window in self.source.blocks(rows, cols):
            self._writable(k).reshape(block)[in_page] = data[in_window]

    def materialize(self) -> Array:
        """The whole tensor as a numpy array (for tests and small tensors)."""
        return self.gather(np.arange(self.size, dtype=np.int64)).reshape(self.shape)


def _by_page(pages: Array) -> Iterator[tuple[int, Array]]:
    """The positions of `pages` grouped by page, page by page."""
    if pages.size == 0:
        return
    first = int(pages[0])
    if bool(np.all(pages == first)):
        yield first, np.arange(pages.size)
        return
    order = np.argsort(pages, kind="stable")
    cuts = np.flatnonzero(np.diff(pages[order])) + 1
    for where in np.split(order, cuts):
        yield int(pages[where[0]]), where


def differing_pages(x: PagedTensor, y: PagedTensor) -> Iterator[tuple[int, Array, Array]]:
    """The pages two runs' copies of one argument (one `source`) may differ in, with their
    contents: those either wrote."""
    if x.source is not y.source:
        raise ValueError("paged tensors of different draws are compared whole (materialize)")
    for k in sorted(x.own.keys() | y.own.keys()):
        yield k, x.page(k), y.page(k)
