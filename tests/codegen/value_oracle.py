"""An independent check of what an emitted `.pto` module computes: run it on numbers.

`address_oracle.py` checks where the bytes of each tile sit; this oracle checks what they
hold. It parses the emitted module with xdsl and executes it with numpy, for the ops it
models (below): a tensor pointer parameter is global memory laid out by the first
`pto.make_tensor_view` of it (its strides place the argument's elements), a view a strided
window of that memory, a `pto.partition_view` a window of the view, each executed
`pto.alloc_tile` (and each slot of a `pto.alloc_multi_tile`, which `pto.multi_tile_get`
selects) a fresh array filled with a poison value (NaN, or the most negative integer) so
that a read of a tile nothing wrote shows in the outputs, a `pto.treshape` a re-typed view
of the same elements (the tile's layout decides their order). After the run, each tensor
parameter's memory is what the kernel left in global memory. A tile the PYPTO planner placed
(`addr = ...`) is the bytes at that address of its space's one byte array, so two tiles the
planner overlaps overwrite each other here as on the device. Not modelled (`Unmodelled`):
hidden parameters.

`compare(fn, text, args, name)` runs the slotsat IR function `fn` in the project's
interpreter and the module's function `name` here, on the same arguments, and returns the first
output that differs (None: they agree). A module with an op this file does not model raises
`Unmodelled`: the test that calls it says how many kernels were compared.

Modelled: `scf.for` / `scf.if` and scalar `arith` (`address_oracle._Run`); `pto.tload`,
`pto.tstore`, `pto.tmov`; elementwise `tadd tsub tmul tdiv tmax tmin`, their scalar forms
`tadds tsubs tmuls tdivs tmaxs tmins`, `texp tlog tsqrt trsqrt trecip tneg tabs trelu`,
`texpands`, `tcvt` (value conversion), the row reductions `trowsum trowmax trowmin` and
column reductions `tcolsum tcolmax tcolmin` (a scratch operand ignored), the row / column
broadcasts `trowexpand*` / `tcolexpand*` of add, sub, mul, div, max and min, `tmatmul`
(`.acc`, `.bias`; in float64), `pto.subview` (a window of its source), `textract`,
`set_validshape`, `tgetval`, `mgather` into a Vec tile. Each writes the destination's valid region (its
`pto.alloc_tile` valid extent, or the static one its type gives).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects.builtin import IndexType, IntegerType
from xdsl.ir import Operation, SSAValue

from slotsat.core import ir
from slotsat.core.interpreter import outputs_equal, round_bf16, run_function
from slotsat.lowering.pto_dialect import MultiTileBufType, SubViewOp, TileBufType
from tests.codegen.address_oracle import Trace, _Run, functions


class Unmodelled(Exception):
    """The module uses an op (or a form of one) this oracle does not execute."""


_NUMPY = {"f32": np.float32, "f16": np.float16, "bf16": np.float32, "i32": np.int32, "i16": np.int16,
          "i8": np.int8, "ui8": np.uint8, "ui16": np.uint16, "ui32": np.uint32, "i64": np.int64}

_BINARY = {"tadd": np.add, "tsub": np.subtract, "tmul": np.multiply, "tdiv": np.divide,
           "tmax": np.maximum, "tmin": np.minimum}
_UNARY = {"texp": np.exp, "tlog": np.log, "tsqrt": np.sqrt, "trsqrt": lambda x: 1 / np.sqrt(x),
          "trecip": lambda x: 1 / x, "tneg": np.negative, "tabs": np.abs, "trelu": lambda x: np.maximum(x, 0)}
_REDUCE = {"trowsum": np.sum, "trowmax": np.max, "trowmin": np.min}
_COLUMN_REDUCE = {"tcolsum": np.sum, "tcolmax": np.max, "tcolmin": np.min}
_COMPUTED = frozenset({*_BINARY, *_UNARY, *_REDUCE, *_COLUMN_REDUCE})


def _dtype(t: Any) -> type:
    name = str(t)
    if name not in _NUMPY:
        raise Unmodelled(f"element type {name}")
    return _NUMPY[name]


def _poison(dtype: type) -> Any:
    return np.nan if np.issubdtype(dtype, np.floating) else np.iinfo(dtype).min


@dataclass
class _Tile:
    """A tile: a 2-D view of its buffer's elements and the extent an op reads and writes
    (`bf16`: held in float32, rounded to bfloat16 at each write, as the interpreter does)."""

    data: np.ndarray
    valid: tuple[int, int]
    bf16: bool = False
    flat: np.ndarray | None = None
    """The buffer's elements in memory order (None: a window of another tile's)."""

    def write(self, rows: int, cols: int, value: Any) -> None:
        value = np.broadcast_to(value, (rows, cols)).astype(self.data.dtype)
        self.data[:rows, :cols] = round_bf16(value) if self.bf16 else value


def _type_of(v: SSAValue) -> TileBufType:
    t = v.type
    if not isinstance(t, TileBufType):
        raise Unmodelled(f"a tile of type {t}")
    return t


def _type_valid(t: TileBufType) -> tuple[int, int]:
    """The valid extent a tile type states, or its whole shape where it states none (`?`)."""
    if t.v_row.data == "?" or t.v_col.data == "?":
        return t.rows.data, t.cols.data
    return int(t.v_row.data), int(t.v_col.data)


def _is_bf16(t: TileBufType) -> bool:
    return str(t.dtype) == "bf16"


def _view_of(flat: np.ndarray, t: TileBufType) -> np.ndarray:
    order = "F" if t.blayout.data == "col_major" and t.cols.data > 1 else "C"
    return flat.reshape((t.rows.data, t.cols.data), order=order)


def _rows(window: np.ndarray) -> np.ndarray:
    """A partition as the 2-D tile rows it loads into or stores from (a rank-1 window is one
    row; higher ranks merge their leading axes, as FlattenTileNdTo2D's tiles do), a view."""
    rows = window[None, :] if window.ndim == 1 else window.reshape(-1, window.shape[-1])
    if window.size and not np.shares_memory(rows, window):
        raise Unmodelled("a partition whose leading axes do not merge into rows of one view")
    return rows


class _Memory:
    """A tensor parameter's global memory: laid out by the first tensor view of it (its
    strides place the logical elements), read back through that view after the run."""

    def __init__(self, logical: np.ndarray) -> None:
        self.logical = logical
        self.flat: np.ndarray | None = None
        self.first: np.ndarray | None = None

    def view(self, shape: list[int], strides: list[int]) -> np.ndarray:
        if self.flat is None:
            if list(shape) != list(self.logical.shape):
                raise Unmodelled("a first tensor view of another shape than the parameter's")
            size = 1 + sum((d - 1) * st for d, st in zip(shape, strides, strict=True)) if all(shape) else 0
            self.flat = np.zeros(size, dtype=self.logical.dtype)
        itemsize = self.flat.itemsize
        view = np.lib.stride_tricks.as_strided(self.flat, shape, [st * itemsize for st in strides])
        if self.first is None:
            view[...] = self.logical
            self.first = view
        return view

    def result(self) -> np.ndarray:
        return self.logical.copy() if self.first is None else np.array(self.first)


_SPACE_BYTES = 4 << 20
"""The on-chip memory modelled per space (more than any space of the targets holds)."""


class _ValueRun(_Run):
    def __init__(self, max_iterations: int) -> None:
        super().__init__(Trace(), max_iterations)
        self.spaces: dict[str, np.ndarray] = {}

    def op(self, op: Operation) -> None:
        name = op.name
        if not name.startswith("pto."):
            super().op(op)
            return
        short = name.removeprefix("pto.")
        handler = getattr(self, "_" + short.replace(".", "_"), None)
        if handler is not None:
            handler(op)
        elif short in _COMPUTED or short.rstrip("s") in _BINARY \
                or short.startswith(("trowexpand", "tcolexpand")):
            self._compute(op, short)
        else:
            raise Unmodelled(name)

    # -- memory

    def _make_tensor_view(self, op: Operation) -> None:
        memory = self.get(op.operands[0])
        if not isinstance(memory, _Memory):
            raise Unmodelled("a tensor view of a pointer that is not a tensor parameter")
        n = (len(op.operands) - 1) // 2
        shape = [self.int_(o) for o in op.operands[1:1 + n]]
        strides = [self.int_(o) for o in op.operands[1 + n:]]
        self.env[op.results[0]] = memory.view(shape, strides)

    def _partition_view(self, op: Operation) -> None:
        view = self.get(op.operands[0])
        assert isinstance(view, np.ndarray)
        n = (len(op.operands) - 1) // 2
        offsets = [self.int_(o) for o in op.operands[1:1 + n]]
        sizes = [self.int_(o) for o in op.operands[1 + n:]]
        self.env[op.results[0]] = view[tuple(slice(o, o + s) for o, s in zip(offsets, sizes, strict=True))]

    def _alloc_tile(self, op: Operation) -> None:
        t = op.results[0].type
        assert isinstance(t, TileBufType)
        addr = getattr(op, "addr", None)
        flat = self.buffer(t, None if addr is None else self.int_(addr))
        self.env[op.results[0]] = _Tile(_view_of(flat, t), self.alloc_valid(op, t), _is_bf16(t), flat)

    def alloc_valid(self, op: Operation, t: TileBufType) -> tuple[int, int]:
        """The valid extent an allocation gives its tile: its operands, else its type's."""
        rows, cols = getattr(op, "valid_row", None), getattr(op, "valid_col", None)
        if rows is not None and cols is not None:
            return self.int_(rows), self.int_(cols)
        return _type_valid(t)

    def buffer(self, t: TileBufType, addr: int | None) -> np.ndarray:
        """A tile's elements: the bytes at `addr` of its space where the PYPTO planner placed it,
        else a fresh poisoned array."""
        if addr is not None:
            return self.placed(t, addr)
        dtype = _dtype(t.dtype)
        return np.full(t.rows.data * t.cols.data, _poison(dtype), dtype=dtype)

    def placed(self, t: TileBufType, addr: int) -> np.ndarray:
        """The elements of a tile of type `t` at byte `addr` of its on-chip memory: every space
        one byte array, filled with 0xFF at the start (a NaN, or -1, where nothing was written)."""
        count = t.rows.data * t.cols.data
        if _is_bf16(t):
            # held in float32 (as the interpreter holds it): the bfloat16 tiles of a space share
            # one array of its 2-byte cells, apart from its other tiles
            if addr < 0 or addr % 2 or addr + 2 * count > _SPACE_BYTES:
                raise Unmodelled(f"a bfloat16 tile at byte {addr} of {t.loc.data}")
            key = t.loc.data + ":bf16"
            if key not in self.spaces:
                self.spaces[key] = np.full(_SPACE_BYTES // 2, np.nan, dtype=np.float32)
            return self.spaces[key][addr // 2: addr // 2 + count]
        dtype = np.dtype(_dtype(t.dtype))
        size = count * dtype.itemsize
        if addr < 0 or addr % dtype.itemsize:
            raise AssertionError(f"a tile at byte {addr} of {t.loc.data}")
        if addr + size > _SPACE_BYTES:
            raise Unmodelled(f"a tile past the modelled {_SPACE_BYTES} bytes of {t.loc.data}")
        space = self.spaces.get(t.loc.data)
        if space is None:
            space = self.spaces[t.loc.data] = np.full(_SPACE_BYTES, 0xFF, dtype=np.uint8)
        return space[addr: addr + size].view(dtype)

    def _alloc_multi_tile(self, op: Operation) -> None:
        region = op.results[0].type
        assert isinstance(region, MultiTileBufType)
        t = region.slot
        valid = self.alloc_valid(op, t)
        addr = getattr(op, "addr", None)
        size = t.rows.data * t.cols.data * (2 if _is_bf16(t) else np.dtype(_dtype(t.dtype)).itemsize)
        flats = [self.buffer(t, None if addr is None else self.int_(addr) + k * size)
                 for k in range(region.count.data)]
        self.env[op.results[0]] = [_Tile(_view_of(flat, t), valid, _is_bf16(t), flat) for flat in flats]

    def _multi_tile_get(self, op: Operation) -> None:
        slots = self.get(op.operands[0])
        assert isinstance(slots, list)
        slot = self.int_(op.operands[1])
        if not 0 <= slot < len(slots):
            raise AssertionError(f"pto.multi_tile_get of slot {slot} of a region of {len(slots)}")
        self.env[op.results[0]] = slots[slot]

    def _treshape(self, op: Operation) -> None:
        src = self.tile(op.operands[0])
        t = op.results[0].type
        assert isinstance(t, TileBufType)
        base = src.flat
        if base is None or base.size != t.rows.data * t.cols.data or str(t.dtype) != str(
                _type_of(op.operands[0]).dtype):
            raise Unmodelled("pto.treshape of a window or across element types")
        self.env[op.results[0]] = _Tile(_view_of(base, t), _type_valid(t), _is_bf16(t), base)

    def _subview(self, op: Operation) -> None:
        assert isinstance(op, SubViewOp)
        src = self.tile(op.source)
        t = op.result.type
        assert isinstance(t, TileBufType)
        offsets = [self.int_(o) for o in op.offsets]
        valid_operands = [self.int_(o) for o in op.valid]
        row, col = offsets
        # the window may reach past its source where only its valid part is used (the
        # reference's gather_row: a whole tile's sizes, one valid row)
        window = src.data[row: row + t.rows.data, col: col + t.cols.data]
        valid = (valid_operands[0], valid_operands[1]) if len(valid_operands) == 2 else _type_valid(t)
        if valid[0] > window.shape[0] or valid[1] > window.shape[1]:
            raise AssertionError(f"pto.subview at {offsets}: its valid {valid} leaves its source")
        self.env[op.results[0]] = _Tile(window, valid, src.bf16)

    def _textract(self, op: Operation) -> None:
        src, dst = self.tile(op.operands[0]), self.tile(op.operands[-1])
        row, col = self.int_(op.operands[1]), self.int_(op.operands[2])
        rows, cols = dst.valid
        dst.write(rows, cols, src.data[row: row + rows, col: col + cols])

    def _set_validshape(self, op: Operation) -> None:
        tile = self.tile(op.operands[0])
        tile.valid = (self.int_(op.operands[1]), self.int_(op.operands[2]))

    def _tgetval(self, op: Operation) -> None:
        tile = self.tile(op.operands[0])
        if not tile.data.flags.c_contiguous:
            raise Unmodelled("pto.tgetval of a tile that is not one row-major block")
        self.env[op.results[0]] = tile.data.reshape(-1)[self.int_(op.operands[1])].item()

    def _tmatmul(self, op: Operation) -> None:
        a, b, dst = self.tile(op.operands[0]), self.tile(op.operands[1]), self.tile(op.operands[-1])
        self._product(dst, a, b)

    def _tmatmul_acc(self, op: Operation) -> None:
        acc, a, b = (self.tile(o) for o in op.operands[:3])
        self._product(self.tile(op.operands[-1]), a, b, acc.data[: acc.valid[0], : acc.valid[1]].copy())

    def _tmatmul_bias(self, op: Operation) -> None:
        a, b, bias = (self.tile(o) for o in op.operands[:3])
        self._product(self.tile(op.operands[-1]), a, b, bias.data[:1, : bias.valid[1]].copy())

    def _product(self, dst: _Tile, a: _Tile, b: _Tile, plus: np.ndarray | None = None) -> None:
        m, k = a.valid
        n = b.valid[1]
        if b.valid[0] != k or dst.valid != (m, n) or (plus is not None and plus.shape[0] not in (1, m)):
            raise Unmodelled("a matmul whose operands' valid extents differ from its result's")
        value = a.data[:m, :k].astype(np.float64) @ b.data[:k, :n].astype(np.float64)
        if plus is not None:
            value = value + plus
        dst.write(m, n, value)

    def tile(self, v: SSAValue) -> _Tile:
        x = self.get(v)
        if not isinstance(x, _Tile):
            raise Unmodelled(f"a tile operand that is {type(x).__name__}")
        return x

    def _tload(self, op: Operation) -> None:
        pv = self.get(op.operands[0])
        dst = self.tile(op.operands[1])
        assert isinstance(pv, np.ndarray)
        rows, cols = dst.valid
        dst.write(rows, cols, _rows(pv)[:rows, :cols])

    def _tstore(self, op: Operation) -> None:
        src = self.tile(op.operands[0])
        pv = self.get(op.operands[1])
        assert isinstance(pv, np.ndarray)
        if op.attributes or getattr(op, "properties", {}).get("atomicType") is not None:
            raise Unmodelled("an atomic pto.tstore")
        rows, cols = src.valid
        _rows(pv)[:rows, :cols] = src.data[:rows, :cols]

    def _mgather(self, op: Operation) -> None:
        """`pto.mgather ins(%mem, %idx) outs(%dst) {coalesce, gatherOob}` of a Vec tile: rows
        of the whole-tensor view (one per index of a `[1, R]` or `[R, 1]` index tile) or its
        elements (an index tile of the destination's shape), an index outside clamped, wrapped
        or read as zero by `gatherOob`; undefined (the default) leaves the poison."""
        if len(op.operands) != 3:
            raise Unmodelled("pto.mgather into a Mat tile (GM indices, GM scratch)")
        mem, dst = self.get(op.operands[0]), self.tile(op.operands[2])
        idx = self.tile(op.operands[1])
        assert isinstance(mem, np.ndarray)
        attrs = {k: getattr(v, "value", None) for k, v in op.attributes.items()}
        coalesce = attrs.get("coalesce")
        oob = attrs.get("gatherOob")
        elem = coalesce is not None and coalesce.data == "elem"
        mode = "undefined" if oob is None else oob.data
        source = mem.reshape(-1) if elem else mem.reshape(-1, mem.shape[-1])
        rows, cols = dst.valid
        if elem:
            index = idx.data[:rows, :cols].astype(np.int64)
        else:
            vector = idx.data[:1, : idx.valid[1]] if idx.data.shape[0] == 1 else idx.data[: idx.valid[0], :1]
            index = vector.reshape(-1)[:rows].astype(np.int64)
        extent = source.shape[0]
        outside = (index < 0) | (index >= extent)
        if mode == "clamp":
            index = np.clip(index, 0, extent - 1)
        elif mode == "wrap":
            index = np.mod(index, extent)
        value = source[np.where(outside, 0, index) if mode in ("zero", "undefined") else index]
        if mode in ("zero", "undefined") and bool(outside.any()):
            value = np.array(value, dtype=np.float64 if mode == "undefined" else value.dtype)
            value[outside] = np.nan if mode == "undefined" else 0
        dst.write(rows, cols, value if elem else value[:, :cols])

    def _tmov(self, op: Operation) -> None:
        src, dst = self.tile(op.operands[0]), self.tile(op.operands[1])
        rows, cols = dst.valid
        dst.write(rows, cols, src.data[:rows, :cols])

    def _texpands(self, op: Operation) -> None:
        dst = self.tile(op.operands[-1])
        dst.write(*dst.valid, self.get(op.operands[0]))

    def _tcvt(self, op: Operation) -> None:
        src, dst = self.tile(op.operands[0]), self.tile(op.operands[-1])
        rows, cols = dst.valid
        if not np.issubdtype(dst.data.dtype, np.floating):
            raise Unmodelled("pto.tcvt to an integer (a rounding mode)")
        dst.write(rows, cols, src.data[:rows, :cols])

    def _compute(self, op: Operation, short: str) -> None:
        ins = [self.get(o) for o in op.operands[:-1]]
        dst = self.tile(op.operands[-1])
        rows, cols = dst.valid
        with np.errstate(all="ignore"):
            if short in _COLUMN_REDUCE:
                src = ins[0]
                assert isinstance(src, _Tile)
                value = _COLUMN_REDUCE[short](src.data[: src.valid[0], :cols], axis=0, keepdims=True)
            elif short in _REDUCE:
                src = ins[0]
                assert isinstance(src, _Tile)
                value = _REDUCE[short](src.data[:rows, : src.valid[1]], axis=1, keepdims=True)
            elif short.startswith(("trowexpand", "tcolexpand")):
                kind = short.removeprefix("trowexpand").removeprefix("tcolexpand")
                if not kind:
                    raise Unmodelled(op.name)
                fn = _BINARY.get("t" + kind)
                if fn is None or len(ins) != 2:
                    raise Unmodelled(op.name)
                a, b = (x for x in ins if isinstance(x, _Tile))
                vec = b.data[:rows, :1] if short.startswith("trow") else b.data[:1, :cols]
                value = fn(a.data[:rows, :cols], vec)
            elif short in _UNARY:
                a = ins[0]
                assert isinstance(a, _Tile)
                value = _UNARY[short](a.data[:rows, :cols])
            elif short in _BINARY:
                a, b = ins
                assert isinstance(a, _Tile)
                assert isinstance(b, _Tile)
                value = _BINARY[short](a.data[:rows, :cols], b.data[:rows, :cols])
            else:
                a, s = ins
                assert isinstance(a, _Tile)
                value = _BINARY[short[:-1]](a.data[:rows, :cols], s)
        dst.write(rows, cols, value)


def run_module_function(text: str, name: str, params: list[ir.Var], args: Mapping[str, Any],
                        max_iterations: int = 64) -> dict[str, np.ndarray]:
    """Run the function `name` of the module `text` on `args` (slotsat's parameters `params`,
    in the order the module's signature takes them); each tensor parameter's array after the
    run, by parameter name."""
    fn = next((f for f in functions(text) if f.properties["sym_name"].data == name), None)  # type: ignore[attr-defined]
    if fn is None:
        raise Unmodelled(f"no function {name}")
    block = fn.regions[0].blocks[0]
    if len(block.args) != len(params):
        raise Unmodelled("hidden parameters")
    run = _ValueRun(max_iterations)
    memory: dict[str, _Memory] = {}
    # the signature takes the tensor parameters first, then the scalars, each in order
    ordered = [p for p in params if isinstance(p.type, ir.TensorType)] + \
        [p for p in params if not isinstance(p.type, ir.TensorType)]
    for arg, param in zip(block.args, ordered, strict=True):
        value = args[param.name_hint]
        if isinstance(param.type, ir.TensorType):
            memory[param.name_hint] = run.env[arg] = _Memory(np.array(value, copy=True))
        elif isinstance(arg.type, IntegerType) and arg.type.width.data == 1:
            run.env[arg] = int(value) & 1  # an i1 keeps its low bit, as the interpreter wraps it
        elif isinstance(arg.type, IntegerType | IndexType):
            run.env[arg] = int(value)
        else:
            run.env[arg] = float(value)
    run.block(block)
    return {k: m.result() for k, m in memory.items()}


def _param_of(fn: ir.Function, value: ir.Expr) -> ir.Var | None:
    """The tensor parameter a returned tensor value is (through stores and loop carries)."""
    defs: dict[int, ir.Expr] = {}
    for s in ir.walk_stmts(fn.body):
        if isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Call) and s.value.op == "tile.store" \
                and len(s.value.args) > 2:
            defs[s.var.id] = s.value.args[2]
        elif isinstance(s, ir.ForStmt | ir.WhileStmt):
            for it, r in zip(s.iter_args, s.return_vars, strict=False):
                defs[r.id] = it.init
                defs[it.var.id] = it.init
        elif isinstance(s, ir.IfStmt) and s.then_body.stmts:
            last = s.then_body.stmts[-1]
            yielded = last.values if isinstance(last, ir.YieldStmt) else ()
            for r, v in zip(s.return_vars, yielded, strict=False):
                defs[r.id] = v
        elif isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Var):
            defs[s.var.id] = s.value
    params = {p.id: p for p in fn.params}
    for _ in range(64):
        if isinstance(value, ir.Var) and value.id in params:
            return params[value.id]
        if not isinstance(value, ir.Var) or value.id not in defs:
            return None
        value = defs[value.id]
    return None


def compare(fn: ir.Function, text: str, args: Mapping[str, Any], name: str | None = None) -> str | None:
    """The first output where the emitted module's function `name` (default: `fn`'s name)
    and the IR function `fn` differ on `args` (None: every output agrees); `Unmodelled` where
    this file cannot run it."""
    expected = run_function(fn, dict(args), physical=False)
    returns = next((s for s in ir.walk_stmts(fn.body) if isinstance(s, ir.ReturnStmt)), None)
    if returns is None or len(returns.values) != len(expected):
        raise Unmodelled("no return of the written tensors")
    targets = [_param_of(fn, v) for v in returns.values]
    if any(t is None for t in targets):
        raise Unmodelled("a returned value that is not a tensor parameter")
    got = run_module_function(text, name or fn.name, list(fn.params), args)
    written = [t for t in targets if t is not None]
    # bfloat16 keeps 8 significant bits, float16 11: sums in another order differ by a few
    # rounding steps
    tolerance = 1e-2 if any(t.dtype in (ir.DType.BF16, ir.DType.FP16) for t in written) else 1e-3
    return outputs_equal(tuple(expected), tuple(got[t.name_hint] for t in written), rtol=tolerance,
                         atol=tolerance, labels=[t.name_hint for t in written])
