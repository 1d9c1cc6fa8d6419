"""An independent check of the PYPTO planner's addresses: run the emitted `.pto` module and
look at what each tile's bytes hold.

This oracle does not use slotsat's liveness analysis or allocator. It parses the emitted
module (xdsl, with the project's `pto` dialect) and executes it abstractly, op by op: scalar
`arith` ops on Python integers (wrapping at their width), `scf.for` and `scf.while` (at most
`max_iterations` iterations per loop instance), `scf.if`, and every `pto` op as reads of its `ins` tiles and
writes of its `outs` tiles at one step of a clock. Each executed `pto.alloc_tile` is one tile
instance with the byte range `[addr, addr + size)` its `addr` operand and type give; a
`treshape` / `subview` names its source's instance. A tile instance is live from its first
write to its last read (a tile never read: at its write).

Checked: two instances whose live ranges overlap (`a.write < b.last_read` and
`b.write < a.last_read`) never share a byte; within one op, the scratch tile of a row
reduction shares no byte with another operand, and the result of an op that cannot run in
place (this file's own list) shares no byte with the operands it still reads.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from xdsl.dialects.builtin import (
    AnyFloat,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
)
from xdsl.ir import Block, Operation, SSAValue
from xdsl.parser import Parser

from slotsat.lowering.pto_dialect import make_context

DTYPE_BYTES = {"f32": 4, "f16": 2, "bf16": 2, "i32": 4, "i16": 2, "i8": 1, "ui8": 1, "i64": 8, "f64": 8,
               "ui16": 2, "ui32": 4, "ui64": 8, "i1": 1}
_FLOAT_OPS = {
    "addf": lambda x, y: x + y, "subf": lambda x, y: x - y, "mulf": lambda x, y: x * y,
    "divf": lambda x, y: x / y if y else math.copysign(math.inf, x) if x else math.nan,
    "maximumf": max, "minimumf": min,
}
ROW_REDUCTIONS = frozenset({"pto.trowsum", "pto.trowmax", "pto.trowmin"})
SCRATCH_SECOND = ROW_REDUCTIONS | {"pto.tcolsum"}
"""Ops whose second operand is a scratch tile the op writes and reads (a row reduction's
`tmp`, a binary-tree column sum's)."""
SCRATCH_LAST = frozenset({"pto.txor", "pto.txors", "pto.trem", "pto.trems"})
"""Ops whose last tile operand is the ISA's scratch tile (`tile.xor(a, b, tmp)`,
`tile.xors(a, k, tmp)`, `tile.rem`, `tile.rems`)."""
NOT_IN_PLACE = frozenset(
    {"pto.trowsum", "pto.trowmax", "pto.trowmin", "pto.trecip", "pto.trsqrt", "pto.tmov",
     "pto.trowprod", "pto.trowargmax", "pto.trowargmin", "pto.tcolargmax", "pto.tcolargmin",
     "pto.tsort32", "pto.ttrans", "pto.textract", "pto.tconcat", "pto.tgather", "pto.tfmod", "pto.tfmods"}
)
"""Ops whose result may not share bytes with any operand (reductions, reciprocals, moves,
sorts, transposes, gathers: the reference's `not_inplace_safe` ops)."""
BROADCAST_ROW = frozenset(
    {"pto.trowexpandadd", "pto.trowexpandsub", "pto.trowexpandmul", "pto.trowexpanddiv"}
)
"""Ops that re-read their second operand (the row vector) for every row of the result."""


@dataclass(eq=False)
class Tile:
    """One executed `pto.alloc_tile`."""

    name: str
    loc: str
    """The memory space (`loc=` of the type): byte ranges of different spaces never meet."""
    addr: int
    size: int
    dtype: str
    write: int | None = None
    last_read: int | None = None

    def bytes_overlap(self, other: Tile) -> bool:
        return (self.loc == other.loc and self.addr < other.addr + other.size
                and other.addr < self.addr + self.size)

    @property
    def live(self) -> tuple[int, int] | None:
        if self.write is None:
            return None
        return self.write, max(self.write, self.last_read if self.last_read is not None else self.write)


@dataclass
class Violation:
    text: str


@dataclass
class Trace:
    tiles: list[Tile] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    clock: int = 0
    truncated: bool = False


def _tile_info(t: object) -> tuple[int, str, str]:
    """(bytes, dtype, loc) of a `!pto.tile_buf<...>` type, read from its printed form."""
    text = str(t)
    fields = dict(part.split("=", 1) for part in text[text.index("<") + 1 : -1].split(", ") if "=" in part)
    dtype = fields["dtype"]
    return int(fields["rows"]) * int(fields["cols"]) * DTYPE_BYTES[dtype], dtype, fields["loc"]


def _width(t: object) -> int:
    if isinstance(t, IndexType):
        return 64
    if isinstance(t, IntegerType):
        return int(t.width.data)
    raise TypeError(t)


def _wrap(v: int, bits: int) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def _unsigned(v: int, bits: int) -> int:
    return v & ((1 << bits) - 1)


class _Run:
    def __init__(self, trace: Trace, max_iterations: int) -> None:
        self.trace = trace
        self.max_iterations = max_iterations
        self.env: dict[SSAValue, object] = {}

    def get(self, v: SSAValue) -> object:
        return self.env[v]

    def int_(self, v: SSAValue) -> int:
        x = self.env[v]
        assert isinstance(x, int), (v, x)
        return x

    def block(self, block: Block) -> list[object]:
        for op in block.ops:
            if op.name == "scf.yield":
                return [self.get(o) for o in op.operands]
            self.op(op)
        return []

    def op(self, op: Operation) -> None:
        name = op.name
        if name.startswith("arith."):
            self.arith(op)
        elif name in ("scf.for", "scf.while"):
            (self.for_ if name == "scf.for" else self.while_)(op)
        elif name == "scf.if":
            region = op.regions[0] if self.int_(op.operands[0]) else op.regions[1]
            values = self.block(region.blocks[0]) if region.blocks else []
            for r, v in zip(op.results, values, strict=False):
                self.env[r] = v
        elif name == "pto.alloc_tile":
            addr_operand = getattr(op, "addr", None)
            assert addr_operand is not None, "the PYPTO planner gives every alloc_tile an addr"
            size, dtype, loc = _tile_info(op.results[0].type)
            tile = Tile(op.results[0].name_hint or "?", loc, self.int_(addr_operand), size, dtype)
            self.trace.tiles.append(tile)
            self.env[op.results[0]] = tile
        elif name in ("pto.treshape", "pto.subview"):
            self.env[op.results[0]] = self.get(op.operands[0])
        elif name in ("pto.make_tensor_view", "pto.partition_view", "pto.declare_local_array"):
            self.env[op.results[0]] = None
        elif name in ("pto.tgetval", "pto.load_scalar", "pto.local_array_get"):
            # a scalar read from a tile / a tensor / an on-core array: the data is not modelled,
            # the value is 0
            if name == "pto.tgetval":
                self.touch(self.get(op.operands[0]), op.name)
            self.env[op.results[0]] = 0 if isinstance(op.results[0].type, IntegerType | IndexType) else 0.0
            if name == "pto.load_scalar" and str(op.results[0].type) == "i64":
                # a CommContext slot: the (rankId, rankNum) pair of a one-rank group (rank 0 of 1),
                # so a rank count divides; every slot reads the same, so a peer's window is this one
                self.env[op.results[0]] = 1 << 32
        elif name == "pto.set_validshape":
            self.touch(self.get(op.operands[0]), op.name)
        elif name in ("pto.store_scalar", "pto.local_array_set"):
            return
        elif name in ("func.return", "func.func"):
            return
        elif name.startswith("pto."):
            self.dps(op)
        else:
            raise AssertionError(f"the oracle does not model {name}")

    def touch(self, tile: object, name: str) -> None:
        """A read of a tile's buffer outside a destination-style op (its value or extent)."""
        if isinstance(tile, Tile):
            tile.last_read = self.trace.clock
            if tile.write is None:
                self.trace.violations.append(Violation(f"{name} reads '{tile.name}' before it is written"))
            self.trace.clock += 1

    def for_(self, op: Operation) -> None:
        lb, ub, step = (self.int_(o) for o in op.operands[:3])
        carried = [self.get(o) for o in op.operands[3:]]
        body = op.regions[0].blocks[0]
        count = 0
        i = lb
        while i < ub:
            if count == self.max_iterations:
                self.trace.truncated = True
                break
            self.env[body.args[0]] = i
            for a, v in zip(body.args[1:], carried, strict=True):
                self.env[a] = v
            carried = self.block(body)
            i += step
            count += 1
        for r, v in zip(op.results, carried, strict=True):
            self.env[r] = v

    def while_(self, op: Operation) -> None:
        """`scf.while`: the before region's `scf.condition` decides and passes its operands on
        (to the after region, or out as the results); at most `max_iterations` bodies."""
        before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
        carried = [self.get(o) for o in op.operands]
        count = 0
        while True:
            for a, v in zip(before.args, carried, strict=True):
                self.env[a] = v
            for inner in before.ops:
                if inner.name == "scf.condition":
                    go = self.int_(inner.operands[0])
                    passed = [self.get(o) for o in inner.operands[1:]]
                    break
                self.op(inner)
            else:
                raise AssertionError("a before region ends with scf.condition")
            if not go:
                break
            if count == self.max_iterations:
                self.trace.truncated = True
                break
            for a, v in zip(after.args, passed, strict=True):
                self.env[a] = v
            carried = self.block(after)
            count += 1
        for r, v in zip(op.results, passed, strict=True):
            self.env[r] = v

    def arith(self, op: Operation) -> None:
        name = op.name.removeprefix("arith.")
        result = op.results[0]
        if name == "constant":
            value = op.properties["value"]
            if isinstance(value, IntegerAttr):
                self.env[result] = int(value.value.data)
            elif isinstance(value, DenseIntOrFPElementsAttr):
                self.env[result] = None  # tmrgsort's executed-status vector: not an address
            else:
                assert isinstance(value, FloatAttr)
                self.env[result] = float(value.value.data)
            return
        if name in _FLOAT_OPS:  # float scalars (a quantization scale): values, never addresses
            x, y = (self.get(o) for o in op.operands)
            assert isinstance(x, float)
            assert isinstance(y, float)
            self.env[result] = _FLOAT_OPS[name](x, y)
            return
        if isinstance(result.type, IntegerType | IndexType) and name != "cmpi":
            bits = _width(result.type)
        else:
            bits = _width(op.operands[0].type)
        if name in ("sitofp", "uitofp", "extf", "truncf"):
            x = self.get(op.operands[0])
            assert isinstance(x, int | float)
            src_bits = _width(op.operands[0].type) if isinstance(x, int) else 0
            self.env[result] = float(_unsigned(x, src_bits) if name == "uitofp" and isinstance(x, int) else x)
            return
        if name in ("fptosi", "fptoui"):
            x = self.get(op.operands[0])
            assert isinstance(x, int | float)
            self.env[result] = _wrap(int(x), bits)
            return
        if name == "cmpf":
            x, y = (self.get(o) for o in op.operands)
            assert isinstance(x, float)
            assert isinstance(y, float)
            pred = int(op.properties["predicate"].value.data)  # type: ignore[attr-defined]
            # arith.cmpf predicates: 1 oeq, 2 ogt, 3 oge, 4 olt, 5 ole, 6 one, 13 une
            ordered = not (math.isnan(x) or math.isnan(y))
            table = {1: x == y, 2: x > y, 3: x >= y, 4: x < y, 5: x <= y, 6: x != y and ordered, 13: x != y}
            self.env[result] = int(table[pred])
            return
        if name in ("index_cast", "extsi", "trunci"):
            self.env[result] = _wrap(self.int_(op.operands[0]), bits)
            return
        if name == "extui":
            self.env[result] = _unsigned(self.int_(op.operands[0]), _width(op.operands[0].type))
            return
        if name == "select":
            c, x, y = (self.get(o) for o in op.operands)
            self.env[result] = x if c else y
            return
        a = self.int_(op.operands[0])
        b = self.int_(op.operands[1]) if len(op.operands) > 1 else 0
        ops = {
            "addi": lambda: a + b,
            "subi": lambda: a - b,
            "muli": lambda: a * b,
            "maxsi": lambda: max(a, b),
            "minsi": lambda: min(a, b),
            "maxui": lambda: max(_unsigned(a, bits), _unsigned(b, bits)),
            "minui": lambda: min(_unsigned(a, bits), _unsigned(b, bits)),
            "divsi": lambda: int(a / b),
            "remsi": lambda: a - int(a / b) * b,
            "floordivsi": lambda: a // b,
            "ceildivsi": lambda: -(-a // b),
            "andi": lambda: a & b,
            "ori": lambda: a | b,
            "xori": lambda: a ^ b,
            "divui": lambda: _unsigned(a, bits) // _unsigned(b, bits),
            "remui": lambda: _unsigned(a, bits) % _unsigned(b, bits),
            "shrui": lambda: _unsigned(a, bits) >> b,
        }
        if name == "cmpi":
            pred = int(op.properties["predicate"].value.data)  # type: ignore[attr-defined]
            ua, ub = _unsigned(a, bits), _unsigned(b, bits)
            cmp = [a == b, a != b, a < b, a <= b, a > b, a >= b, ua < ub, ua <= ub, ua > ub, ua >= ub]
            self.env[result] = int(cmp[pred])
            return
        self.env[result] = _wrap(ops[name](), bits)

    def dps(self, op: Operation) -> None:
        ins = [self.get(o) for o in getattr(op, "ins", ())]
        outs = [self.get(o) for o in getattr(op, "outs", ())]
        if op.name in ("pto.ttri", "pto.trandom"):  # scalar operands, then the destination; no lists
            ins = [self.get(o) for o in op.operands[:-1]]
            outs = [self.get(op.operands[-1])]
        t = self.trace.clock
        self.trace.clock += 1
        read = [x for x in ins if isinstance(x, Tile)]
        written = [x for x in outs if isinstance(x, Tile)]
        scratch: list[Tile] = []
        if op.name in SCRATCH_SECOND and len(read) >= 2:
            scratch = [read[1]]
            read = [read[0]]
        elif op.name in SCRATCH_LAST and len(read) >= 2:
            scratch = [read[-1]]
            read = read[:-1]
        elif op.name == "pto.tmrgsort" and len(outs) == 2:
            scratch = [read[-1]]  # format 2: the scratch tile is the last source
            read = read[:-1]
        for x in read:
            x.last_read = t
            if x.write is None:
                self.trace.violations.append(Violation(f"{op.name} reads '{x.name}' before it is written"))
        for x in scratch:
            x.write = t if x.write is None else x.write
            x.last_read = t
        for x in written:
            x.write = t if x.write is None else x.write
        self.check_operands(op.name, read, scratch, written)

    def check_operands(self, name: str, read: Sequence[Tile], scratch: Sequence[Tile],
                       written: Sequence[Tile]) -> None:
        pairs: list[tuple[Tile, Tile]] = []
        for s in scratch:
            pairs += [(s, x) for x in [*read, *written] if x is not s]
        for w in written:
            if name in NOT_IN_PLACE:
                pairs += [(w, x) for x in read if x is not w]
            elif name in BROADCAST_ROW and len(read) > 1:
                pairs.append((w, read[1]))
            elif name == "pto.tcvt" and read and DTYPE_BYTES[w.dtype] > DTYPE_BYTES[read[0].dtype]:
                pairs.append((w, read[0]))
        for a, b in pairs:
            if a.bytes_overlap(b):
                self.trace.violations.append(
                    Violation(f"{name}: '{a.name}' at {a.addr} and '{b.name}' at {b.addr} overlap in one op")
                )


def functions(text: str) -> Iterator[Operation]:
    module = Parser(make_context(), text).parse_module()
    assert isinstance(module, ModuleOp)
    for op in module.body.block.ops:
        if op.name == "func.func":
            yield op


def run_function(fn: Operation, scalars: Sequence[int], max_iterations: int = 5) -> Trace:
    """Execute one `func.func` with its scalar parameters (in order) bound to `scalars`
    (cycled), and check the tiles' addresses."""
    trace = Trace()
    run = _Run(trace, max_iterations)
    block = fn.regions[0].blocks[0]
    k = 0
    for arg in block.args:
        if isinstance(arg.type, IntegerType | IndexType):
            run.env[arg] = scalars[k % len(scalars)] if scalars else 0
            k += 1
        elif isinstance(arg.type, AnyFloat):
            run.env[arg] = 1.0  # a float scalar parameter: a value, never an address
        else:
            run.env[arg] = None
    run.block(block)
    check_live_ranges(trace)
    return trace


def check_live_ranges(trace: Trace) -> None:
    """The sweep: instances sorted by first write; each is compared with the instances still
    live when it is written."""
    live = sorted(((t.live, t) for t in trace.tiles if t.live is not None), key=lambda x: x[0])
    active: list[tuple[tuple[int, int], Tile]] = []
    for (w, r), tile in live:
        active = [(rng, other) for rng, other in active if rng[1] > w]
        for (w2, r2), other in active:
            if (w2 < w or r > w) and tile.bytes_overlap(other):
                trace.violations.append(
                    Violation(
                        f"'{tile.name}' [{tile.addr}, {tile.addr + tile.size}) written at step {w} while "
                        f"'{other.name}' [{other.addr}, {other.addr + other.size}) is live until step {r2}"
                    )
                )
        active.append(((w, r), tile))


def check_module(text: str, scalar_sets: Sequence[Sequence[int]] = ((7,),)) -> list[str]:
    """Every violation in every function of `text`, for each set of scalar arguments."""
    out: list[str] = []
    for fn in functions(text):
        for scalars in scalar_sets:
            trace = run_function(fn, scalars)
            out += [f"{fn.properties.get('sym_name')}({list(scalars)}): {v.text}" for v in trace.violations]
    return out
