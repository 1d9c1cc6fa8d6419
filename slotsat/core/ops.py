"""The op registry, as data (`10-dsl.md` §6, `20-lower-pipeline-to-slots.md` §6, issue 16
item 3).

Two tables, one source of truth each:

- `REFERENCE`: every op the reference compiler registers (tile, tensor, system, array,
  distributed, ...), read off the installed reference and its registration sites by
  `tools/gen_op_registry.py` into `op_registry.json` (package data). Per op: the positional
  argument names and how many are required, the keyword names and value types, the result
  kind, the buffer behaviour (`fresh`, `view` of argument k, `in_place` on k, `reuses`
  destination tensor k, `pipe` for a cross-core pop, `none`), the memory-space rules, the
  per-argument effects, the cross-core role. The parser accepts exactly these names
  (a name outside the set is an error with a did-you-mean), T4 of the slots pass and
  codegen aliasing read the buffer behaviour from here (`inherited_arg`).
- `REGISTRY`: the ops of slotsat's own DSL subset (`10-dsl.md` §6.1) that it types and
  evaluates: the argument signature as written in the DSL and the result-type rule.
  `unmodelled(call)` says when a call of such an op uses a form of the reference (an extra
  argument or keyword) that the model does not cover; the interpreter declines those, it
  never guesses. How codegen spells an op in ptoas is a third table, of its own
  (`slotsat/lowering/pto_ops.json`, read by `slotsat.lowering.pto_spelling`).
"""

from __future__ import annotations

import difflib
import enum
import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from slotsat.core import ir

# --------------------------------------------------------------------------------------
# the reference's op set


@dataclass(frozen=True, slots=True)
class RefOp:
    """One op of the reference (`op_registry.json`)."""

    name: str
    category: str | None
    args: tuple[str, ...]
    required_args: int
    keywords: tuple[str, ...]
    result: str
    """`tile`, `tensor`, `scalar`, `tuple`, `array`, `ptr`, `unknown` (typed by the
    assignment), `varies`."""
    buffer: str
    """`fresh`, `view`, `in_place`, `reuses`, `pipe`, `none`."""
    buffer_arg: int | None
    cross_core_role: str | None
    arg_effects: tuple[str, ...] | None
    """Per positional argument `Read` / `Write` / `ReadWrite`, or None if never classified."""
    memory_inputs: tuple[tuple[str, ...], ...]
    memory_output: str | None
    scalar_dtype: str | None = None
    """For a scalar result of one fixed dtype (`tensor.dim` -> `INDEX`), its name."""
    inplace_safe: bool = True
    """False where the reference marks the op `not_inplace_safe`: its result may share a
    buffer with none of its operands."""
    forbid_output_alias: tuple[int, ...] = ()
    """The positional arguments the reference marks `forbid_output_alias`: its result may not
    share a buffer with those (a broadcast operand re-read for every output row, a select's
    mask)."""
    fixed_output_memory: str | None = None
    """The memory space of every tile result (`tile.full`: `Vec`), or None."""
    output_memory_kwarg: str | None = None
    """The keyword that names the result's memory space (`target_memory`), or None."""

    @property
    def inherits(self) -> bool:
        return self.buffer in ("view", "in_place", "reuses")


def _ref_op(name: str, e: dict[str, Any]) -> RefOp:
    memory = e.get("memory") or {}
    effects = e.get("arg_effects")
    return RefOp(
        name=name,
        category=e.get("category"),
        args=tuple(e["args"]),
        required_args=int(e["required_args"]),
        keywords=tuple(e["keywords"]),
        result=e["result"],
        buffer=e["buffer"],
        buffer_arg=e["buffer_arg"],
        cross_core_role=e.get("cross_core_role"),
        arg_effects=None if effects is None else tuple(x["effect"] for x in effects),
        memory_inputs=tuple(tuple(a) for a in memory.get("inputs", ())),
        memory_output=memory.get("output"),
        scalar_dtype=e.get("scalar_dtype"),
        inplace_safe=e.get("inplace_safe") is not False,
        forbid_output_alias=tuple(e.get("forbid_output_alias", ())),
        fixed_output_memory=e.get("fixed_output_memory"),
        output_memory_kwarg=e.get("output_memory_kwarg"),
    )


@cache
def _data() -> dict[str, Any]:
    text = resources.files("slotsat.core").joinpath("op_registry.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


@cache
def _reference() -> dict[str, RefOp]:
    return {name: _ref_op(name, e) for name, e in _data()["ops"].items()}


@cache
def enums() -> dict[str, tuple[str, ...]]:
    """The reference DSL's enums (`pl.TileLayout`, `pl.PadValue`, `pld.NotifyOp`, `pl.adir`,
    ...) and their member names."""
    return {name: tuple(members) for name, members in _data()["enums"].items()}


@cache
def unified_scalar() -> dict[str, tuple[str, str]]:
    """The reference's unified binary ops with a scalar form, by DSL name: `add` ->
    (`tile.add`, `tile.adds`); `pl.add(t, s)` with a scalar `s` is the second."""
    return {name: (forms[0], forms[1]) for name, forms in _data()["unified_scalar"].items()}


@cache
def pld_short() -> dict[str, tuple[str, ...]]:
    """The distributed DSL's short forms, by name: `window` -> (`pld.tensor.window`,);
    `remote_store` -> (`pld.tile.remote_store`, `pld.tensor.remote_store`), a short form the
    reference dispatches on its first argument (read off `pypto.language.distributed`)."""
    return {name: tuple(forms) for name, forms in _data()["pld_short"].items()}


@cache
def tensor_reexports() -> frozenset[str]:
    """The names `pypto.language` binds to its tensor function `pl.tensor.NAME` (`create_l1`,
    `expand_clone`, `full`, ...; read off `pypto.language`). slotsat reads `pl.NAME` as the
    tile op `tile.NAME` where one exists (in a kernel the reference's ConvertTensorToTileOps
    makes the tensor op that tile op before the hand-off point), else as the system op, else
    as this tensor op."""
    return frozenset(_data()["tensor_reexports"])


@cache
def positional_defaults() -> dict[str, dict[str, tuple[int, str]]]:
    """The positional arguments of an op a DSL call may omit before a later one it gives, and
    the literal (value, dtype name) the reference's builder puts in their place:
    `system.aiv_initialize_pipe`'s `c2v_consumer_buf` is `pl.const(0, pl.INT32)` (read off the
    installed `pypto.ir.op` builders)."""
    return {op: {arg: (int(v[0]), str(v[1])) for arg, v in args.items()}
            for op, args in _data()["positional_defaults"].items()}


@cache
def dsl_positional() -> dict[str, tuple[str, ...]]:
    """The positional parameters of an op's DSL function where one of them is a keyword of the
    IR op: `tile.create` -> (`shape`, `dtype`, `target_memory`, `transpose`), so
    `pl.tile.create([16, 64], pl.FP32)` passes `dtype` by position (read off `pypto.language`)."""
    return {op: tuple(names) for op, names in _data()["dsl_positional"].items()}


@cache
def dsl_memory_defaults() -> dict[str, str]:
    """The memory space an op's DSL function fills in when a call omits its memory-space keyword
    (`tile.create` -> Vec: `pl.tile.create([16, 64], dtype=pl.FP32)` is a Vec tile; read off
    `pypto.language`)."""
    return dict(_data()["dsl_memory_defaults"])


@cache
def unified_scalar_operators() -> dict[str, str]:
    """The reference's unified binary ops that, on two scalars, are a Python operator: `add` ->
    `+` (`pl.add(a, b)` of scalars is `a + b`; read off its `unified_ops`)."""
    return dict(_data()["unified_scalar_operators"])


def reference(op: str) -> RefOp | None:
    """The reference's facts about `op` (a canonical name such as `tile.load`), or None."""
    return _reference().get(op)


def reference_names() -> tuple[str, ...]:
    return tuple(_reference())


NAMESPACES: tuple[str, ...] = ("tile", "tensor", "system", "array", "pld.tile", "pld.tensor", "pld.system",
                               "prefetch", "dist", "builtin.tensor")
"""Prefixes of canonical op names (`pl.<ns>.NAME` prints `<ns>.NAME`; `pld.` ones print as is)."""

PRINTED_KEYWORDS: dict[str, frozenset[str]] = {
    "tile.full": frozenset({"value"}),
    "tensor.full": frozenset({"value"}),
    "tile.reinterpret_view": frozenset({"shape"}),
    "tensor.reinterpret_view": frozenset({"shape"}),
    "tile.gather_row": frozenset({"valid_shape"}),
    "tensor.gather_row": frozenset({"valid_shape"}),
    "tile.mgather": frozenset({"scratch", "valid_shape"}),
    "system.syncall": frozenset({"mode", "core_type", "gm_workspace", "used_cores"}),
    "system.task_dummy": frozenset({"deps"}),
}
"""Keywords the reference's printer writes for positional arguments or attributes of these
ops (`python_printer.cpp`: `tile.full(shape, dtype=, value=)`, `reinterpret_view(x, dtype=,
shape=)`, `gather_row(..., valid_shape=)`, `mgather(mem, idx, scratch=, valid_shape=)`, the
soft `system.syncall(mode=, core_type=, gm_workspace=, used_cores=)`,
`system.task_dummy(deps=[...])`). slotsat keeps such a call exactly as printed."""

PRINTED_ALIASES: dict[str, tuple[str, str]] = {
    "pld.tile._remote_load_with_physical_tail_padding": (
        "pld.tile.remote_load", "allow_physical_tail_padding"),
}
"""Private op names the reference's printer writes for an op with a flag set: the alias is
read as the op with that keyword `True` (and printed back in that plain form)."""

SHORT_NAMES: dict[str, str] = {"pl.create_tensor": "tensor.create"}
"""Short spellings `pypto.language` re-exports under another name for an op outside the tile
namespace (`pl.create_tensor` is `pl.tensor.create`), read as that op and printed back in its
namespaced form. A `pl.X` that is no tile op but a system op `system.X` is that system op
(`pl.reserve_buffer`, `pl.aic_initialize_pipe`: re-exported under their own names)."""

SPECIAL_CALLS: dict[str, frozenset[str]] = {
    "submit": frozenset({"deps", "dumps", "allow_early_resolve", "predicate"}),
    "spmd_submit": frozenset({"deps", "dumps", "core_num", "sync_start", "allow_early_resolve", "predicate"}),
}
"""`pl.submit(self.f, ...)` / `pl.spmd_submit(self.f, ...)`: task launches of orchestration
code (the reference's `Submit` node), with their keywords."""

HAND_OFF_TENSOR_OPS = frozenset({
    "tensor.create", "tensor.dim", "tensor.read", "tensor.write", "tensor.slice", "tensor.reshape",
    "tensor.view", "tensor.transpose", "tensor.reinterpret_view", "tensor.assemble",
})
"""Tensor ops that remain in the IR at the hand-off point: the ones the reference's
orchestration code generation registers, and `tensor.assemble` (which it prints there). Every
other tensor op is a computation its ConvertTensorToTileOps lowers to tile ops first."""

MERGE_SORT_FORMS: dict[str, tuple[str, str]] = {
    "tile.mrgsort": ("tile.mrgsort_format1", "tile.mrgsort_format2"),
    "tensor.mrgsort": ("tensor.mrgsort_format1", "tensor.mrgsort_format2"),
}
"""DSL functions that are no op themselves but build one of two ops by their arguments
(`pypto.language`'s `mrgsort`): `mrgsort(src, block_len=B)` is the one-list merge
`*_format1(src, B)` (a literal `B` an INT32 constant, as the reference's builder makes it);
`mrgsort(s0, s1[, s2[, s3]], tmp=t, exhausted=e)` the 2- to 4-way merge `*_format2(s0, ...,
t, exhausted=e)` (`exhausted=False` when omitted; the tile form takes the workspace `tmp` last,
by keyword or as a fifth positional argument; the tensor form takes none)."""

REMOVED_BEFORE_HAND_OFF: dict[str, str] = {
    "tile.aiv_shard": "ExpandMixedKernel",
    "tile.aic_gather": "ExpandMixedKernel",
}
"""Tile ops that no IR at the hand-off point holds, with the reference pass that removes them:
ExpandMixedKernel folds every explicit split-reshape op (`tile.aiv_shard`, `tile.aic_gather`)
into the cross-core `tpush` / `tpop` pairs of the kernel's AIC / AIV halves, and asserts none
survives (its `AssertNoSplitReshapeSurvives`)."""

LOWERED_BEFORE_HAND_OFF: dict[str, str] = {
    **{op: "LowerCompositeOps"
       for op in ("tile.sin", "tile.cos", "pld.tensor.allreduce", "pld.tensor.allgather",
                  "pld.tensor.reduce_scatter", "pld.tensor.barrier", "pld.tensor.broadcast",
                  "pld.tensor.all_to_all", "pld.tensor.all_to_all_v")},
    **{op: "ConvertTensorToTileOps"
       for op in ("tensor.slice", "pld.tensor.put", "pld.tensor.get", "pld.tensor.remote_store")},
}
"""Ops a kernel at the hand-off point no longer holds, with the reference pass that rewrites
them in kernels before it: `TransformLowerCompositeOps` the sine and cosine (into tile-op
polynomials) everywhere and the cross-rank tensor collectives (into notify / wait protocols)
in every function but a HOST orchestrator; ConvertTensorToTileOps (its op-conversion registry)
an InCore function's tensor slice (a `tile.load` of a GM tensor, a `tile.slice` of a local one)
and its tensor-level transfers (`pld.tile.put` / `get` / `remote_store`). They parse
(orchestration code keeps them, a hand-written kernel may hold them, and the slots pass reads
them as opaque ops); codegen, which only emits kernels, says a kernel the pass would have
rewritten is an earlier stage's IR, naming the pass and `--via-pypto`."""

PASS_FUNCTION_TYPES: dict[str, frozenset[str]] = {"ConvertTensorToTileOps": frozenset({"InCore"})}
"""The function types (`pl.FunctionType` names) a pass of `LOWERED_BEFORE_HAND_OFF` rewrites,
for a pass that does not rewrite every kernel."""


def lowered_before_hand_off(op: str, function_type: str) -> str | None:
    """The reference pass that rewrites `op` before the hand-off point in a kernel of
    `function_type` (a `pl.FunctionType` name), or None."""
    stage = LOWERED_BEFORE_HAND_OFF.get(op)
    if stage is None:
        return None
    types = PASS_FUNCTION_TYPES.get(stage)
    return stage if types is None or function_type in types else None

SHAPED_RESULTS = frozenset({"tile.create", "tile.full", "tile.ci", "tile.random", "tile.tri", "tensor.create",
                            "tensor.full", "pld.tensor.window"})
"""Ops whose result is a new tile or tensor of their `shape` argument and `dtype=` keyword (the
reference's type deduction in `tile_ops/memory.cpp` / `tensor_ops/memory.cpp`: the index
sequence `tile.ci`, the generators `tile.random` and `tile.tri` among them); a tile's memory
space is the registry's fixed output space or the `output_memory_kwarg` keyword's. A call
that also gives a `valid_shape` argument (`tile.tri`, `tile.random`) is valid in that extent,
as the reference deduces it."""

MATMUL_RESULTS: dict[str, tuple[int, int]] = {
    "tile.matmul_bias": (0, 1),
    "tile.matmul_mx": (0, 2),
    "tile.matmul_mx_bias": (0, 2),
    "tile.matmul_mx_acc": (1, 3),
}
"""Ops whose result is the product tile of their `lhs` and `rhs` arguments (by index), as
`tile.matmul`'s: `DeduceTileMatMulBiasType` builds the same geometry as `DeduceTileMatMulType`
(physical [M, N] in Acc, FP32 for float operands and INT32 otherwise), and the MX forms the
product of their `lhs` / `rhs` (`DeduceTileMatMulMxType`, FP32; `_acc` and `_bias` return
that product of their MX operands). Deduced only when both operands are valid in full (the
product's valid shape is theirs)."""

GEMV_RESULTS: dict[str, tuple[int, int]] = {
    "tile.gemv": (0, 1), "tile.gemv_bias": (0, 1), "tile.gemv_acc": (1, 2),
}
"""Ops whose result is the matrix-vector product of their row-vector `lhs` [1, K] and `rhs`
[K, N] arguments (by index), as the reference's `BuildGemvResultType` states it: an Acc tile
of 16 physical rows, [16, N], valid in [1, N], in the product's accumulator dtype (FP32 for
float operands, INT32 for INT8), with Acc's implicit layout. Deduced when both operands are
valid in full and of one dtype."""

SHAPE_OF_DTYPE_OF: dict[str, tuple[int, int]] = {"tile.gather": (1, 0), "tensor.gather": (1, 0)}
"""Ops whose result is a tile of one argument's shape and another's dtype (by index), in the
op's fixed output space, valid in full: `tile.gather(src, indices, tmp)` is a tile of the
indices' shape holding `src` elements (`DeduceTileGatherType`; it inherits `src`'s explicit
layout, so a `src` with one is not deduced). On tensors the result is a tensor without a
view: `tensor.gather(input, index, dim=)` is the index's shape in the input's dtype
(`DeduceTensorGatherType`)."""

ELEMENTWISE_TENSOR_RESULTS = frozenset({
    "tensor.add", "tensor.sub", "tensor.mul", "tensor.div", "tensor.fmod", "tensor.maximum", "tensor.minimum",
    "tensor.adds", "tensor.subs", "tensor.muls", "tensor.divs", "tensor.fmods",
})
"""Tensor ops whose result the reference deduces elementwise (`DeduceTensorOpElementwiseBinaryType`
on two tensors, `DeduceTensorOpElementwiseScalarType` on a tensor and a scalar, in
`tensor_ops/elementwise.cpp`): the broadcast shape in the promoted dtype, a fresh tensor with
the operands' valid shape. Deduced where that is the operand's own type without promotion or
broadcasting: operands of one dtype, two tensors of one shape, no view (valid in full, so the
result is view-less); otherwise the result needs its annotation."""

TRANSPOSED_RESULTS = frozenset({"tile.transpose"})
"""Ops whose result is argument 0 with the dimensions `axis1` / `axis2` (constant arguments 1
and 2, negative from the end) swapped, in argument 0's memory space and dtype, valid in full
(`DeduceTileTransposeType`)."""

EXTRACTED_RESULTS = frozenset({"tile.extract"})
"""Ops whose result is a dense copy of a window of a 2-D argument 0 (`DeduceTileExtractType`):
the constant `shape` argument (argument 3) of argument 0's dtype in the `target_memory=` space
(Vec when omitted), with that space's implicit layout, except that a Left destination is
row-major in both layouts and a Right destination row-major blocks of column-major scatter
(the layouts the A2/A3 `pto.textract` verifier expects). Deduced for a source valid in full
(the window is then valid in full too, so no compact mode)."""

TRANSPOSE_VIEWED_RESULTS = frozenset({"tile.transpose_view"})
"""Ops whose result views argument 0's bytes as its transpose (`DeduceTileTransposeViewType`):
the last two dimensions and valid extents swapped, block and scatter layouts each flipped
between row- and column-major (`none_box` stays), fractal, pad and compact mode kept, in
argument 0's memory space and dtype."""

COMPARE_GATHER_MODES = ("eq", "ne", "lt", "le", "gt", "ge")
"""The compare modes of a compare-form gather (`tile.gather_compare`, `tensor.gather_compare`), by
the integer the reference's IR holds (`resolve_gather_compare_cmp_mode`: a name is its index,
an integer 0-5 itself). The IR holds the keywords in the builder's order `cmp_mode`, `offset`
(0 when omitted), `out_cols`, then `count_dtype` where given; the tile DSL function's
`cmp_mode` defaults to `"eq"`."""

COMPARE_GATHER_OPS = frozenset({"tile.gather_compare", "tensor.gather_compare"})

CAST_MODES = ("none", "rint", "round", "floor", "ceil", "trunc", "odd")
"""The rounding modes of `tile.cast` / `tensor.cast`, by the integer the reference's IR holds
(`resolve_cast_mode`: a name is its index, an integer 0-6 itself); its printer writes the name
(`mode='round'`), which is how slotsat holds the mode."""

CAST_OPS = frozenset({"tile.cast", "tensor.cast"})

COMPARE_GATHERED_RESULTS = frozenset({"tile.gather_compare"})
"""Ops whose result is the pair (indices, counts) of a compare-form gather of a 2-D argument 0
of R rows (`DeduceTileGatherCompareType`): an `[R, out_cols]` INT32 tile with argument 0's
block / scatter layouts, pad and compact mode, and a `[1, R]` row-major tile of the
`count_dtype=` keyword's dtype (INT32 when omitted), both in Vec and valid in full."""

REMOTE_LOADED_RESULTS = frozenset({"pld.tile.remote_load"})
"""Ops whose result is a window of a peer's distributed tensor argument 0 read into a tile
(`DeduceRemoteLoadType`): the `shape` argument (argument 3) of argument 0's dtype, without a
memory space (the parser then gives it InferTileMemorySpace's Vec), block layout the shape's
implicit one, or row-major (column-major) for a tensor with an explicit ND (DN) view. Its
valid shape is the requested one (`valid_shape`, argument 4; else the window) cut to what the
source holds past the offset (`InferWindowReadValidShape`). Deduced where that is a literal:
static source extents and literal window and request, and a literal offset wherever the source
is not valid in full; not with the tail-padding flag, nor for a read the reference rejects
(past the source's end, a request larger than the window)."""

MERGE_SORTED_RESULTS: dict[str, int] = {"tile.mrgsort_format1": 0, "tile.mrgsort_format2": -1}
"""Ops whose result is a Vec tile of one argument's shape (by index: the one-list merge's source,
the 2- to 4-way merge's last argument, its workspace `tmp`) holding argument 0's dtype, with
argument 0's layouts, valid in full (`DeduceTileMrgSort1Type` / `DeduceTileMrgSortType`)."""

DISTRIBUTED_RESULTS = frozenset({"pld.tensor.window"})
"""Of `SHAPED_RESULTS`, the ops whose result is a `pld.DistributedTensor` (the reference's
DeduceWindowType builds a DistributedTensorType of the `shape` argument and `dtype=`)."""

PREFETCH_HANDLE_RESULTS: dict[str, str] = {
    "prefetch.make_context": "pl.PrefetchAsyncContext",
    "prefetch.async_prefetch": "pl.AsyncEvent",
    "prefetch.session": "pl.AsyncSession",
}
"""Ops whose result is a handle of an asynchronous GM-to-L2 prefetch (`prefetch_async.cpp`):
the opaque type each yields, as the reference's printer spells it. The handles carry no shape
or buffer."""

FIXED_RESULTS: dict[str, str] = {
    "pld.tensor.alloc_window_buffer": "pl.Ptr",
    "pld.system.get_comm_ctx": "pld.CommCtxType",
    **PREFETCH_HANDLE_RESULTS,
}
"""Ops whose result has one type whatever the arguments, spelled as its annotation: a window
buffer's allocation-identity token (`DeduceAllocWindowBufferType` returns the PtrType), a
distributed tensor's communication context (`DeduceGetCommCtxType`, the CommCtxType), the
handles of a prefetch (`PREFETCH_HANDLE_RESULTS`)."""

RESHAPED_RESULTS = frozenset({"tensor.reshape"})
"""Ops whose result is a tensor of argument 0's dtype and their `shape` argument (without a
`valid_shape` argument; the reference's deduction in `tensor_ops/transform.cpp`)."""

SLICED_RESULTS = frozenset({"tensor.slice"})
"""Ops whose result views a window of a tensor (`DeduceTensorSliceType`): argument 0's dtype,
the `shape` argument, valid in the `valid_shape` argument (in full without one; a view
`pl.TensorView(valid_shape=[...], stride=[], layout=ND)` where that differs from the shape), a
distributed tensor staying one. Deduced for a source valid in full without a pad mode (the
reference intersects a narrower source's valid shape with the window) and without `drop_dims`
or `pad_value=`."""

RESULT_LIKE_ARG: dict[str, int] = {"tile.assemble": 0, "tensor.assemble": 0, "tile.write": 0,
                                   "tensor.write": 0, "tile.gather_row": 0, "tile.mscatter": 2,
                                   "array.update_element": 0}
"""Ops whose result has the type of an argument (by index): `assemble(target, source, offset)`
writes `source` into `target` and returns `target` updated (the reference deduces the
target's type); `write(target, indices, value)` stores one element and returns `target`
(`DeduceTileWriteType` / `DeduceTensorWriteType` return argument 0's type);
`gather_row(dst, src, ...)` loads a GM row into `dst` in place and returns it
(`DeduceTileGatherRowType` returns the destination's type: its `valid_shape` argument
narrows only the transfer); `mscatter(src, idx, output_tensor)` writes into the tensor and
returns it (`DeduceTileMscatterType`); `array.update_element(array, index, value)` returns the
array's next version."""

REINTERPRETED_RESULTS = frozenset({"tile.reinterpret_view"})
"""Ops whose result reads argument 0's bytes as the `dtype=` keyword's elements
(`DeduceTileReinterpretViewType`): without a shape argument, the physically contiguous axis
(the last one of a row-major tile) is scaled by the byte ratio, in argument 0's memory space,
with its valid shape. Deduced for a Vec tile with its implicit view, valid in full, of two
different dtypes the reference reinterprets (8- to 64-bit integers, FP16, BF16, FP32) where
the scaled extent is an integer."""

REINTERPRETABLE_DTYPES = frozenset({"INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64",
                                    "FP16", "FP32", "BF16"})
"""The dtypes the reference's reinterpret views accept (`reinterpret_view_semantics::IsSupportedDType`)."""

COLUMN_REDUCED_RESULTS: dict[str, str | None] = {
    "tile.col_sum": None, "tile.col_max": None, "tile.col_min": None, "tile.col_prod": None,
    "tile.col_argmax": "INT32", "tile.col_argmin": "INT32",
}
"""Ops whose result reduces argument 0 along its first axis (`DeduceTileColReductionType`):
`[1, N]` in Vec, valid in `[1, N_valid]`, row-major (the implicit layout of a one-row Vec tile),
of argument 0's dtype or the fixed one given (an arg-reduction's indices are INT32). Deduced for
a 2-D tile."""

ROW_REDUCED_RESULTS: dict[str, str | None] = {
    "tile.row_prod": None, "tile.row_argmax": "INT32", "tile.row_argmin": "INT32",
}
"""Ops besides the modelled row reductions whose result reduces argument 0 along its last axis
(`DeduceTileRowReductionType`): `[M, 1]` in Vec, valid in `[M_valid, 1]`, column-major, of
argument 0's dtype or the fixed one given. Deduced for a 2-D tile of more than one row, where
column-major is the implicit layout of the result (a `[1, 1]` result would print it)."""

ELEMENTWISE_TILE_RESULTS: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {
    **dict.fromkeys((
        "tile.not", "tile.sin", "tile.cos",  # DeduceTileUnaryType, DeduceTileFP32OnlyType
        "tile.fmods", "tile.minimums", "tile.lrelu",  # DeduceTileOpScalarBinaryType
        "tile.shls", "tile.shrs", "tile.ands", "tile.ors",  # DeduceTileOpIntScalarBinaryType
        "tile.xors",  # DeduceTileOpXorScalarType
        "tile.prelu",  # DeduceTilePreluType
    ), ((), ())),
    **dict.fromkeys(("tile.shl", "tile.shr"), ((), (1,))),  # DeduceTileOpShiftBinaryType
    **dict.fromkeys((
        "tile.fmod", "tile.and", "tile.or", "tile.part_add", "tile.part_mul", "tile.part_max",
        "tile.part_min",  # DeduceTileOpElementwiseBinaryType
        "tile.rem", "tile.xor",  # DeduceTileOpTernaryType (argument 2 is a scratch tile)
    ), ((1,), (1,))),
    **dict.fromkeys(("tile.addc", "tile.subc"), ((1, 2), (1, 2))),  # DeduceTileOpTriTileType
    **dict.fromkeys(("tile.rems", "tile.addsc", "tile.subsc"), ((1, 2), (2,))),  # ...TileScalarTileType
    **dict.fromkeys((
        "tile.row_expand", "tile.row_expand_max", "tile.row_expand_min",
        "tile.row_expand_expdif",  # DeduceTileRowExpandType
        "tile.col_expand", "tile.col_expand_add", "tile.col_expand_sub", "tile.col_expand_mul",
        "tile.col_expand_div", "tile.col_expand_max", "tile.col_expand_min",
        "tile.col_expand_expdif",  # DeduceTileColExpandType
        "tile.expands",  # DeduceTileExpandScalarType
    ), ((1,), ())),
}
"""Generic tile ops whose result is argument 0's tile in Vec: its shape, its valid shape, and
the block / scatter layout, pad and compact mode it inherits (`InheritTileViewLayout`), in
the dtype the reference promotes from argument 0 and the arguments listed first, broadcast
to the shapes of the tile arguments listed second (the deducers named beside each group, in
`tile_ops/elementwise.cpp`, `unary.cpp` and `broadcast.cpp`). Deduced where that promotion
and broadcast change nothing (each listed argument has argument 0's dtype, each listed tile
its shape); otherwise the result needs its annotation. The deduced dtype is what checks an
annotation: `t: pl.Tile[..., pl.UINT8] = pl.tile.fmods(fp32_tile, 3.0)` is an error."""

REVALIDATED_RESULTS = frozenset({"tile.set_validshape"})
"""Ops whose result is argument 0 (its shape, dtype, memory space and view) with the valid
shape of arguments 1 and 2, `[valid_rows, valid_cols]` (`DeduceTileSetValidShapeType`).
Deduced for a 2-D tile and INDEX extents."""

VIEWED_RESULTS = frozenset({"tensor.view"})
"""Ops whose result reinterprets a tensor under their `shape` argument with the packed
canonical view of that shape (`DeduceTensorViewType`: argument 0's dtype, a
`pl.TensorView(stride=[...], layout=ND)` of row-major strides, a distributed tensor staying
one). Deduced for a source without a view, without a `valid_shape` argument or `layout=`, and
with constant trailing dimensions (the strides are then integers)."""

ARRAY_RESULTS = frozenset({"array.create"})
"""Ops whose result is a `pl.Array` of their `extent` argument and `dtype=` keyword
(`DeduceArrayCreateType`)."""

@cache
def language_constants() -> dict[str, int]:
    """Integer constants `pypto.language` exports, read as the literal the reference prints for
    them: `pl.AUTO` (-1, "let the compiler choose", as in `pl.reserve_buffer(..., base=pl.AUTO)`)
    and the members of its constant classes (`pl.tile.MaskPattern.P0101` is 1, as in
    `pl.tile.gather_mask(t, mask_pattern=pl.tile.MaskPattern.P0101)`)."""
    return dict(_data()["language_constants"])

FUNCTION_CALL_KEYWORDS = frozenset({"device"})
"""Keywords of a `self.f(...)` call besides `attrs=`."""


def suggest(name: str) -> str | None:
    """The closest registered op to an unknown canonical name (`tile.lod` -> `tile.load`):
    the op names of the same namespace compared by their last component, else an op of
    another namespace with exactly that last component (`tile.dim` -> `tensor.dim`)."""
    ns, _, leaf = name.rpartition(".")
    names = reference_names()
    leaves = {n.rpartition(".")[2]: n for n in names if n.rpartition(".")[0] == ns}
    close = difflib.get_close_matches(leaf, list(leaves), n=1, cutoff=0.7)
    if close:
        return leaves[close[0]]
    elsewhere = sorted(n for n in names if n.rpartition(".")[2] == leaf)
    return elsewhere[0] if elsewhere else None


def inherited_arg(op: str) -> int | None:
    """The argument whose buffer the result inherits (a view of it, in place on it, or the
    destination tensor it reuses), or None for a fresh result. From the reference's table."""
    ref = reference(op)
    if ref is None or not ref.inherits:
        return None
    return ref.buffer_arg


def buffer_of(op: str) -> tuple[Buffer, int | None]:
    """What the result of `op` does with buffers, from the reference's table: (`VIEW`,
    k) a view of argument k, (`IN_PLACE`, k) argument k updated in place, (`REUSES`, k)
    destination tensor k, (`FRESH`, None) a new buffer, (`NONE`, None) no buffer; an op the
    reference does not register (a function call) is (`FRESH`, None)."""
    ref = reference(op)
    if ref is None:
        return Buffer.FRESH, None
    return _BUFFER_OF[ref.buffer], ref.buffer_arg if ref.inherits else None


ALL_OPERANDS = -1
SCRATCH_OPERANDS: dict[str, tuple[int, ...]] = {
    # the binary-tree column sum writes its scratch tile during the op
    "tile.col_sum": (1,),
}
"""Operands an op writes as scratch while it runs, which its result therefore may not share
(beside the reference's markers, which `forbidden_operands` reads off the op registry)."""


def forbidden_operands(op: str) -> tuple[int, ...]:
    """The operand positions `op`'s result may not share a buffer with (`ALL_OPERANDS`: any):
    the reference's `not_inplace_safe` marker (moves, reciprocals, reductions, sorts,
    gathers, ...) forbids them all, its `forbid_output_alias(k)` markers (a broadcast operand
    re-read for every output row, a select's mask) the ones named; a widening `tile.cast`
    is handled by dtype width (`forbidden_args`)."""
    ref = reference(op)
    if ref is not None and not ref.inplace_safe:
        return (ALL_OPERANDS,)
    marked = () if ref is None else ref.forbid_output_alias
    return tuple(sorted({*marked, *SCRATCH_OPERANDS.get(op, ())}))


def forbidden_args(call: ir.Call, result: ir.Var) -> list[object]:
    """The arguments `call`'s result (bound to `result`) may not share a buffer with
    (`forbidden_operands`; a widening `tile.cast` its source)."""
    args: list[object] = [a for a in call.args if not isinstance(a, ir.DTypeArg | ir.SpaceArg)]
    marks = forbidden_operands(call.op)
    picked = args if ALL_OPERANDS in marks else [args[k] for k in marks if k < len(args)]
    if call.op == "tile.cast" and args and _widens(result, args[0]):
        picked = [args[0]]
    return picked


def _widens(result: ir.Var, operand: object) -> bool:
    a, b = result.type, getattr(operand, "type", None)
    return isinstance(a, ir.TileType) and isinstance(b, ir.TileType) and a.dtype.bits > b.dtype.bits


UPDATES_VIEWED_TILE = frozenset({"tile.set_validshape"})
"""View ops that change the tile they view rather than making a second name for it: the
reference lowers `tile.set_validshape` to `pto.set_validshape`, which sets the valid extent
of its operand's buffer in place (every holder of the buffer sees it), although its table
entry declares no write effect."""


def writes_source(op: str) -> bool:
    """Whether `op`'s result is its inherited argument's buffer after an update (an in-place
    op, a view op that declares a write of that argument, `tile.assemble`, or one of
    `UPDATES_VIEWED_TILE`) rather than a fresh buffer or a read-only view of it."""
    buffer, k = buffer_of(op)
    if buffer is Buffer.IN_PLACE:
        return True
    if buffer is not Buffer.VIEW or k is None:
        return False
    ref = reference(op)
    effects = () if ref is None or ref.arg_effects is None else ref.arg_effects
    return op in UPDATES_VIEWED_TILE or (k < len(effects) and effects[k] in ("Write", "ReadWrite"))


def effect_known(op: str) -> bool:
    """Whether slotsat knows what the call does to the buffers of its arguments: true for
    every registered op (its buffer behaviour is in the table), false for a call of another
    function (`self.f(...)`) or a task launch, whose body is not analysed here."""
    return reference(op) is not None


def is_matmul_family(op: str) -> bool:
    return op.startswith("tile.matmul")


# --------------------------------------------------------------------------------------
# the modelled subset


class Buffer(enum.Enum):
    FRESH = "fresh"
    VIEW = "view"  # the result is a view of `inherited`
    IN_PLACE = "in-place"  # the result is `inherited`, updated in place
    REUSES = "reuses"  # the result reuses `inherited` (stores: the destination tensor)
    NONE = "none"  # no buffer (a scalar result)


_BUFFER_OF = {"fresh": Buffer.FRESH, "view": Buffer.VIEW, "in_place": Buffer.IN_PLACE,
              "reuses": Buffer.REUSES, "none": Buffer.NONE, "pipe": Buffer.FRESH}


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
    CAST = "cast"  # argument 0's shape in dtype argument 1 (or `target_type=`)


@dataclass(frozen=True, slots=True)
class OpSpec:
    """An op slotsat models. `params` is the DSL signature (`10-dsl.md` §6.1); trailing
    names in `optional` may be omitted. `ref_extra` are further positional parameters of the
    reference's signature the parser accepts (`row_sum(t, tmp_tile)`); `modelled_keywords`
    the keywords the model covers (any other registered keyword is accepted by the parser
    and makes the call `unmodelled`)."""

    name: str
    params: tuple[str, ...]
    optional: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    rule: TypeRule = TypeRule.LIKE_ARG0
    ref_extra: tuple[str, ...] = ()
    modelled_extra: tuple[str, ...] = ()
    """The `ref_extra` parameters the model covers (scratch tiles)."""
    modelled_keywords: tuple[str, ...] = ()

    @property
    def buffer(self) -> Buffer:
        ref = reference(self.name)
        return Buffer.FRESH if ref is None else _BUFFER_OF[ref.buffer]

    @property
    def inherited(self) -> int | None:
        return inherited_arg(self.name)

    @property
    def inherits(self) -> bool:
        return self.inherited is not None

    @property
    def result(self) -> Result:
        if self.rule is TypeRule.STORE:
            return Result.TENSOR
        if self.rule is TypeRule.READ:
            return Result.SCALAR
        return Result.TILE


def _spec(name: str, params: tuple[str, ...], **kw: Any) -> OpSpec:
    return OpSpec(name, params, **kw)


_UNARY = ("exp", "log", "sqrt", "rsqrt", "abs", "neg", "relu", "recip")
_BINARY = ("add", "sub", "mul", "div", "maximum", "minimum")
_SCALAR = ("adds", "subs", "muls", "divs", "maximums")
_ROW_REDUCE = ("row_sum", "row_max", "row_min")
_ROW_EXPAND = ("row_expand_add", "row_expand_sub", "row_expand_mul", "row_expand_div")


def _build() -> dict[str, OpSpec]:
    ops: list[OpSpec] = [
        _spec("tile.load", ("tensor", "offsets", "shape"), optional=("valid_shape",),
              keywords=("target_memory", "valid_shape", "clamp"), rule=TypeRule.LOAD,
              modelled_keywords=("target_memory", "clamp")),
        _spec("tile.store", ("tile", "offsets", "tensor"), rule=TypeRule.STORE,
              ref_extra=("shapes",)),
        _spec("tile.move", ("tile",), keywords=("target_memory",), rule=TypeRule.MOVE,
              modelled_keywords=("target_memory",)),
        _spec("tile.matmul", ("lhs", "rhs"), rule=TypeRule.MATMUL),
        _spec("tile.matmul_acc", ("acc", "lhs", "rhs"), rule=TypeRule.MATMUL_ACC,
              ref_extra=("init_cond",), modelled_extra=("init_cond",)),
        _spec("tile.reshape", ("tile", "shape"), rule=TypeRule.RESHAPE),
        _spec("tile.slice", ("tile", "shape", "offsets"), rule=TypeRule.SLICE,
              ref_extra=("valid_shape", "drop_dims")),
        _spec("tile.read", ("tile", "indices"), rule=TypeRule.READ),
        _spec("tile.cast", ("tile", "dtype"), optional=("dtype",), rule=TypeRule.CAST,
              modelled_keywords=("target_type",)),
    ]
    ops += [_spec(f"tile.{n}", ("tile",)) for n in _UNARY]
    ops += [_spec(f"tile.{n}", ("lhs", "rhs")) for n in _BINARY]
    ops += [_spec(f"tile.{n}", ("tile", "scalar")) for n in _SCALAR]
    ops += [_spec(f"tile.{n}", ("tile",), rule=TypeRule.ROW_REDUCE, ref_extra=("tmp_tile",),
                  modelled_extra=("tmp_tile",)) for n in _ROW_REDUCE]
    ops += [_spec(f"tile.{n}", ("tile", "row"), modelled_extra=("tmp",) if n == "row_expand_add" else ())
            for n in _ROW_EXPAND]
    out: dict[str, OpSpec] = {}
    for spec in ops:
        ref = reference(spec.name)
        if ref is not None and not spec.ref_extra and len(ref.args) > len(spec.params):
            spec = OpSpec(spec.name, spec.params, spec.optional, spec.keywords, spec.rule,  # noqa: PLW2901
                          ref_extra=ref.args[len(spec.params):], modelled_extra=spec.modelled_extra,
                          modelled_keywords=spec.modelled_keywords)
        out[spec.name] = spec
    return out


REGISTRY: dict[str, OpSpec] = _build()
"""The modelled ops (`10-dsl.md` §6.1), by canonical name."""


def lookup(op: str) -> OpSpec | None:
    """The modelled op `op`, or None (an op only the reference knows, or a function call)."""
    return REGISTRY.get(op)


def cast_dtype(call: Any) -> Any:
    """The target dtype of a `tile.cast` call (`ir.DType`): the DSL's positional
    `tile.cast(t, pl.FP16)` or the reference's `tile.cast(t, target_type=pl.FP16, mode=...)`."""
    if len(call.args) > 1 and hasattr(call.args[1], "dtype") and type(call.args[1]).__name__ == "DTypeArg":
        return call.args[1].dtype
    value = call.kwarg("target_type")
    return getattr(value, "dtype", None) if type(value).__name__ == "DTypeArg" else None


def init_condition(call: Any) -> Any:
    """The `init_cond` of a `tile.matmul_acc` call (a scalar predicate: where it holds, the
    accumulator is overwritten with the product instead of accumulated into): its fourth
    argument as the reference prints it, or the DSL's keyword; None without one."""
    if len(call.args) > 3:
        return call.args[3]
    return call.kwarg("init_cond")


def load_clamped(call: Any) -> bool:
    """Whether a `tile.load` call asks for `clamp=True` (its valid shape cut back to the source
    tensor's edge): the keyword, a constant, set to a non-zero value."""
    flag = call.kwarg("clamp")
    return isinstance(flag, ir.ConstInt) and flag.value != 0


NUMERIC_KEYWORDS = frozenset({"mode", "high_precision"})
"""Keywords that change only how a value is rounded or how precisely it is computed."""


def unmodelled(call_op: str, nargs: int, kwargs: dict[str, Any], *, numerics_ok: bool = False) -> str | None:
    """Why a call of a modelled op falls outside slotsat's model (an extra positional argument
    or a keyword the model does not cover), or None. `kwargs` maps keyword names to values
    (`ir.CallArg`); a keyword whose value is the reference's default is covered. With
    `numerics_ok` (the interpreter, which compares two programs computed the same way) the
    rounding and precision keywords are covered too."""
    spec = REGISTRY.get(call_op)
    if spec is None:
        return f"slotsat does not model {call_op}"
    extra = nargs - len({*spec.params, *spec.optional})
    if extra > 0:
        names = spec.ref_extra[:extra]
        uncovered = [n for n in names if n not in spec.modelled_extra]
        if uncovered or len(names) < extra:
            return f"{call_op} with argument '{uncovered[0] if uncovered else extra}'"
    for key, value in kwargs.items():
        if key in spec.modelled_keywords or key in spec.keywords:
            continue
        if _is_default(key, value) or (numerics_ok and key in NUMERIC_KEYWORDS):
            continue
        return f"{call_op} with keyword '{key}'"
    return None


def is_default_keyword(key: str, value: Any) -> bool:
    """A keyword whose value is the reference's default, so it changes nothing."""
    return _is_default(key, value)


def _is_default(key: str, value: Any) -> bool:
    """A keyword whose value changes nothing: `clamp=False`, `atomic=pl.AtomicType.None_`,
    `high_precision=False`, the GEMV family's `acc_phase='unspecified'` (no `accPhase` attribute,
    the reference's `GemvAccPhaseAttr`)."""
    member = getattr(value, "member", None)
    if key == "atomic" and member == "None_":
        return True
    flag = getattr(value, "value", None)
    if key == "acc_phase":
        return flag == "unspecified"
    return key in ("clamp", "high_precision") and flag in (False, 0) and not isinstance(flag, float)


class CrossCore(enum.Enum):
    """The role of a cross-core transfer op (the reference's `CrossCoreRole` TPush / TPop)."""

    PUSH = "TPush"  # sends a tile to the peer core's pipe
    POP = "TPop"  # receives a tile from the peer core's pipe


def cross_core_role(op: str) -> CrossCore | None:
    """PUSH or POP for a cross-core transfer op, read off the reference's registry; None for
    every other op (a pipe's initialisation or `tfree` has a role, but neither pushes nor pops)."""
    ref = reference(op)
    role = None if ref is None else ref.cross_core_role
    return CrossCore(role) if role in ("TPush", "TPop") else None


MGATHER_OOB = {"0": "undefined", "1": "clamp", "2": "wrap", "3": "zero",
               "undefined": "undefined", "clamp": "clamp", "wrap": "wrap", "zero": "zero"}
"""`tile.mgather`'s `gather_oob` keyword (an integer as printed, a name as written) -> its mode."""

MGATHER_MODES_MESSAGE = ("tile.mgather takes coalesce=0 (\"row\") or 1 (\"elem\") and gather_oob=0 to 3 "
                         "(\"undefined\", \"clamp\", \"wrap\", \"zero\"), as the reference's type deduction "
                         "requires")
"""The error for any other value (`mgather_modes` gives None)."""


def mgather_modes(c: ir.Call) -> tuple[bool, str] | None:
    """`tile.mgather`'s (elem mode, out-of-bounds mode) from its keywords: `coalesce=0` / `"row"`
    (the default) gathers rows, `1` / `"elem"` elements; `gather_oob` as `MGATHER_OOB`. None
    for a value outside those, which the caller reports."""
    def text(name: str) -> str | None:
        value = c.kwarg(name)
        if value is None:
            return "0"
        if isinstance(value, ir.StrArg):
            return value.value
        return str(value.value) if isinstance(value, ir.ConstInt) else None

    coalesce, oob = text("coalesce"), text("gather_oob")
    if coalesce not in ("0", "1", "row", "elem") or oob not in MGATHER_OOB:
        return None
    return coalesce in ("1", "elem"), MGATHER_OOB[oob]
