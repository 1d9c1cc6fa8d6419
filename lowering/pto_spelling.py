"""How each op of the reference is spelled in ptoas's PTO dialect, as data (`pto_ops.json`).

One entry per op codegen emits, keyed by the reference's op name (`tile.add`). The entry
says which emission form the op takes and, for the destination-passing-style ops most tile
ops are, which of the call's arguments become operands, how a scalar operand is typed, and
which keywords become attributes. `pto_codegen.FunctionEmitter` reads the entry; it has one
method per form, not one branch per op. An op without an entry is not emitted (codegen
reports it as unsupported); a keyword an entry does not account for, or a keyword value
outside its table, is an `Unsupported` reason, never a guessed attribute.

The JSON's `about` field documents every field; `tests/codegen/test_pto_spelling.py` checks
that every `pto` op is declared by slotsat's xdsl dialect (`lowering/pto_dialect.py`) and
that every entry names an op and arguments the reference registers (`core/op_registry.json`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from slotsat.core import ir, ops

FORMS = frozenset({"dps", "load", "store", "alloc", "reshape", "subview", "matmul_acc", "spmd", "dim",
                   "getval", "setval", "load_scalar", "store_scalar", "set_validshape", "assemble",
                   "tensor_view", "cacheinvalid", "fence", "notify", "wait", "remote_load",
                   "remote_store", "put", "mrgsort", "gather_mask", "scatter_mask", "reserve_buffer",
                   "import_peer_buffer", "initialize_pipe", "tpush", "tpop", "tfree", "syncall",
                   "cross_core_sync", "set_ffts", "gather_row", "comm_rank", "get", "mscatter",
                   "array_create", "array_get", "array_set", "prefetch_context", "prefetch",
                   "prefetch_session", "prefetch_wait", "tri", "random", "barrier", "gatherb", "mgather"})
"""Emission forms; `dps` is the default."""


SCALAR_MODES = frozenset({"result", "source", "signed"})
"""How a scalar operand is typed besides a fixed dtype (see `pto_ops.json`'s `about`)."""

_SIGNED = {ir.DType.UINT8: ir.DType.INT8, ir.DType.UINT16: ir.DType.INT16, ir.DType.UINT32: ir.DType.INT32,
           ir.DType.UINT64: ir.DType.INT64}


def signed(dtype: ir.DType) -> ir.DType:
    """The signed integer dtype of an unsigned one's width, else `dtype` (a scalar of the
    `signed` mode: TSELS takes the bits of its unsigned source's scalar as a signed value)."""
    return _SIGNED.get(dtype, dtype)


@dataclass(frozen=True, slots=True)
class AttrSpelling:
    """An attribute made from a keyword: an enum case (`#pto<ENUM CASE>`) looked up in
    `values` by the printed keyword value (None: print no attribute), or a flag printed as
    `NAME = true` when the keyword is true (and `NAME = false` otherwise when `always`). A
    flag with an `argument` instead of a keyword is on when the call passes that argument
    (`tile.col_sum`'s optional `tmp_tile` selects ptoas's binary-tree form, `isBinary`). An
    `i32` flag prints as `NAME = 1 : i32` / `NAME = 0 : i32` (`tile.tri`'s `upperOrLower`)."""

    name: str
    keyword: str
    enum: str | None
    values: dict[str, str | None]
    default: str | None
    flag: bool
    always: bool = False
    argument: str | None = None
    i32: bool = False


@dataclass(frozen=True, slots=True)
class Spelling:
    op: str
    form: str
    pto: str | None
    ins: tuple[str, ...] | None
    """Argument names that become operands, in order; None: every positional argument."""
    index: frozenset[str]
    scalar: str
    scratch: str | None
    attrs: tuple[AttrSpelling, ...]
    attr_at: str
    type_keywords: frozenset[str]
    defaults: dict[str, Any]
    param: str | None
    required: int | None = None
    keywords: frozenset[str] = frozenset()
    """Keywords the form's emitter reads itself (the cross-core forms' pipe id, split, ...)."""
    """How many arguments a call must pass, where the reference's backend takes fewer than its
    op registry requires (`tile.mrgsort_format2`: 2 to 4 sources and the scratch tile)."""

    @property
    def arg_names(self) -> tuple[str, ...]:
        """The reference's positional argument names of the op."""
        ref = ops.reference(self.op)
        return () if ref is None else ref.args


def _attr(name: str, e: dict[str, Any]) -> AttrSpelling:
    argument = e.get("argument")
    if (argument is None) == ("keyword" not in e):
        raise ValueError(f"pto_ops.json: attribute {name} needs exactly one of 'keyword' and 'argument'")
    if argument is not None and not e.get("bool", False):
        raise ValueError(f"pto_ops.json: attribute {name} made from an argument must be a flag")
    if e.get("i32", False) and not e.get("bool", False):
        raise ValueError(f"pto_ops.json: attribute {name} printed as an i32 must be a flag")
    return AttrSpelling(name, e.get("keyword", ""), e.get("enum"), dict(e.get("values", {})),
                        e.get("default"), bool(e.get("bool", False)), bool(e.get("always", False)), argument,
                        bool(e.get("i32", False)))


def _spelling(op: str, e: dict[str, Any]) -> Spelling:
    form = e.get("form", "dps")
    if form not in FORMS:
        raise ValueError(f"pto_ops.json: {op} has an unknown form {form!r}")
    ins = e.get("ins")
    scalar = e.get("scalar", "result")
    if scalar not in SCALAR_MODES and scalar not in ir.DType.__members__:
        raise ValueError(f"pto_ops.json: {op} has an unknown scalar type {scalar!r}")
    return Spelling(
        op=op,
        form=form,
        pto=e.get("pto"),
        ins=None if ins is None else tuple(ins),
        index=frozenset(e.get("index", ())),
        scalar=scalar,
        scratch=e.get("scratch"),
        attrs=tuple(_attr(k, v) for k, v in e.get("attrs", {}).items()),
        attr_at=e.get("attr_at", "end"),
        type_keywords=frozenset(e.get("type_keywords", ())),
        defaults=dict(e.get("defaults", {})),
        param=e.get("param"),
        required=e.get("required"),
        keywords=frozenset(e.get("keywords", ())),
    )


@cache
def table() -> dict[str, Spelling]:
    text = resources.files("slotsat.lowering").joinpath("pto_ops.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return {op: _spelling(op, e) for op, e in data["ops"].items()}


def lookup(op: str) -> Spelling | None:
    return table().get(op)


def pto_ops() -> frozenset[str]:
    """Every ptoas op some entry emits."""
    return frozenset(s.pto for s in table().values() if s.pto is not None)
