"""The op registry, as data (`10-dsl.md` §6, `20-lower-pipeline-to-slots.md` §6).

Every tile operation slotsat knows, with its argument signature, its buffer behaviour
(fresh result, view of an argument, in place on an argument, output reuses an argument, or
no buffer), the kind of its result, the rule for its result type and memory space, and its
PTO spelling. The slots pass (T4), codegen (aliasing) and the front end all read this one
table. An op that is not listed parses as an opaque call with a fresh result.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Buffer(enum.Enum):
    FRESH = "fresh"
    VIEW = "view"  # the result is a view of `inherited`
    IN_PLACE = "in-place"  # the result is `inherited`, updated in place
    REUSES = "reuses"  # the result reuses `inherited` (stores: the destination tensor)
    NONE = "none"  # no buffer (a scalar result)


class Result(enum.Enum):
    TILE = "tile"
    TENSOR = "tensor"
    SCALAR = "scalar"


class TypeRule(enum.Enum):
    """How the result type is derived from the arguments."""

    LOAD = "load"  # shape arg, tensor dtype, target_memory (Vec or Mat; default Vec)
    STORE = "store"  # the destination tensor's type
    LIKE_ARG0 = "like-arg0"  # same shape, dtype, space as argument 0
    MOVE = "move"  # argument 0's shape and dtype in target_memory
    MATMUL = "matmul"  # [M, N] in Acc; FP32 for float inputs, INT32 for INT8
    MATMUL_ACC = "matmul-acc"  # like argument 0
    RESHAPE = "reshape"  # argument 0's dtype and space, shape argument 1
    SLICE = "slice"  # argument 0's dtype and space, shape argument 1
    READ = "read"  # a scalar of argument 0's dtype
    ROW_REDUCE = "row-reduce"  # [M, 1] from [M, N]
    CAST = "cast"  # argument 0's shape in dtype argument 1
    OPAQUE = "opaque"  # unknown result kind; only in the extended registry


@dataclass(frozen=True, slots=True)
class OpSpec:
    name: str
    params: tuple[str, ...]
    """Positional parameter names; trailing names in `optional` may be omitted."""
    optional: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    buffer: Buffer = Buffer.FRESH
    inherited: int | None = None
    result: Result = Result.TILE
    rule: TypeRule = TypeRule.LIKE_ARG0
    pto: str | None = None
    """The ptoas operation codegen emits, or None when codegen does not support the op."""
    in_subset: bool = True
    """False for ops only listed so the buffer rules stay right (`10-dsl.md` §6.2)."""

    @property
    def inherits(self) -> bool:
        return self.buffer in (Buffer.VIEW, Buffer.IN_PLACE, Buffer.REUSES)


def _spec(name: str, params: tuple[str, ...], **kw: object) -> OpSpec:
    return OpSpec(name, params, **kw)  # type: ignore[arg-type]


_UNARY = ("exp", "log", "sqrt", "rsqrt", "abs", "neg", "relu", "recip")
_BINARY = {"add": "tadd", "sub": "tsub", "mul": "tmul", "div": "tdiv", "maximum": "tmax", "minimum": "tmin"}
_SCALAR = {"adds": "tadds", "subs": "tsubs", "muls": "tmuls", "divs": "tdivs", "maximums": "tmaxs"}
_ROW_REDUCE = {"row_sum": "trowsum", "row_max": "trowmax", "row_min": "trowmin"}
_ROW_EXPAND = {
    "row_expand_add": "trowexpandadd",
    "row_expand_sub": "trowexpandsub",
    "row_expand_mul": "trowexpandmul",
    "row_expand_div": "trowexpanddiv",
}


def _build() -> dict[str, OpSpec]:
    ops: list[OpSpec] = [
        _spec("tile.load", ("tensor", "offsets", "shape"), optional=("valid_shape",),
              keywords=("target_memory", "valid_shape"), rule=TypeRule.LOAD, pto="pto.tload"),
        _spec("tile.store", ("tile", "offsets", "tensor"), buffer=Buffer.REUSES, inherited=2,
              result=Result.TENSOR, rule=TypeRule.STORE, pto="pto.tstore"),
        _spec("tile.move", ("tile",), keywords=("target_memory",), rule=TypeRule.MOVE, pto="pto.tmov"),
        _spec("tile.matmul", ("lhs", "rhs"), rule=TypeRule.MATMUL, pto="pto.tmatmul"),
        _spec("tile.matmul_acc", ("acc", "lhs", "rhs"), buffer=Buffer.IN_PLACE, inherited=0,
              rule=TypeRule.MATMUL_ACC, pto="pto.tmatmul.acc"),
        _spec("tile.reshape", ("tile", "shape"), buffer=Buffer.VIEW, inherited=0,
              rule=TypeRule.RESHAPE, pto="pto.treshape"),
        _spec("tile.slice", ("tile", "shape", "offsets"), buffer=Buffer.VIEW, inherited=0,
              rule=TypeRule.SLICE, pto="pto.subview"),
        _spec("tile.read", ("tile", "indices"), buffer=Buffer.NONE, result=Result.SCALAR,
              rule=TypeRule.READ),
        _spec("tile.cast", ("tile", "dtype"), rule=TypeRule.CAST, pto="pto.tcvt"),
    ]
    ops += [_spec(f"tile.{n}", ("tile",), pto=f"pto.t{n}") for n in _UNARY]
    ops += [_spec(f"tile.{n}", ("lhs", "rhs"), pto=f"pto.{p}") for n, p in _BINARY.items()]
    ops += [_spec(f"tile.{n}", ("tile", "scalar"), pto=f"pto.{p}") for n, p in _SCALAR.items()]
    ops += [_spec(f"tile.{n}", ("tile",), rule=TypeRule.ROW_REDUCE, pto=f"pto.{p}")
            for n, p in _ROW_REDUCE.items()]
    ops += [_spec(f"tile.{n}", ("tile", "row"), pto=f"pto.{p}") for n, p in _ROW_EXPAND.items()]
    # The reference's complete buffer-inheriting set, so that T4 and codegen aliasing stay
    # right when an op joins the subset later (`10-dsl.md` §6.2).
    views = ("reinterpret_view", "transpose_view", "assemble", "set_validshape", "tget_scale_addr")
    in_place = ("gemv_acc", "batch_matmul_acc", "matmul_mx_acc", "fillpad_inplace", "gather_row",
                "scatter", "scatter_mask", "scatter_update")
    ops += [_spec(f"tile.{n}", (), buffer=Buffer.VIEW, inherited=0, rule=TypeRule.OPAQUE, in_subset=False)
            for n in views]
    ops += [_spec(f"tile.{n}", (), buffer=Buffer.IN_PLACE, inherited=0, rule=TypeRule.OPAQUE,
                  in_subset=False) for n in in_place]
    ops.append(_spec("tile.mscatter", (), buffer=Buffer.REUSES, inherited=2, result=Result.TENSOR,
                     rule=TypeRule.OPAQUE, in_subset=False))
    return {op.name: op for op in ops}


REGISTRY: dict[str, OpSpec] = _build()


def lookup(op: str) -> OpSpec | None:
    return REGISTRY.get(op)


def inherited_arg(op: str) -> int | None:
    """The argument whose buffer the result inherits, or None for a fresh result."""
    spec = REGISTRY.get(op)
    if spec is None or not spec.inherits:
        return None
    return spec.inherited


def is_matmul_family(op: str) -> bool:
    return op.startswith("tile.matmul")


class CrossCore(enum.Enum):
    """The role of a cross-core transfer op (the reference's `CrossCoreRole`)."""

    PUSH = "push"  # sends a tile to the peer core's pipe
    POP = "pop"  # receives a tile from the peer core's pipe


_CROSS_CORE: dict[str, CrossCore] = {
    "tile.tpush_to_aiv": CrossCore.PUSH,
    "tile.tpush_to_aic": CrossCore.PUSH,
    "tile.tpop_from_aic": CrossCore.POP,
    "tile.tpop_from_aiv": CrossCore.POP,
}
"""The reference's four cross-core ops (`set_cross_core_role(TPush / TPop)` in its
`tile_ops/cross_core.cpp`). The one place slotsat recognises them: until `REGISTRY` carries
every op of the reference with its cross-core role, this table stands in for that field, and
`cross_core_role` becomes a read of it."""


def cross_core_role(op: str) -> CrossCore | None:
    """PUSH or POP for a cross-core transfer op, None for every other op."""
    return _CROSS_CORE.get(op)
