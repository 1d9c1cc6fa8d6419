"""Codegen of cross-core pipe programs (the AIC / AIV halves the reference's ExpandMixedKernel
makes of a mixed kernel): what it emits beyond the printed kernel's golden, and a located
error for each variant the reference emits in a form slotsat does not (`pto_ops_crosscore.cpp`).

Each case edits the reference's printed `jit_mixed_gemm_add.pre.py` at one call.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from slotsat.app.pipeline import compile_source
from slotsat.core.errors import PassError
from slotsat.lowering.pto_dialect import normalize, parse_and_verify

ROOT = Path(__file__).resolve().parents[2]
SOURCE = (ROOT / "tests" / "data" / "printed" / "jit_mixed_gemm_add.pre.py").read_text()

PUSH = "pl.tile.tpush_to_aiv(acc__rv_v2, split=0)"
POP = "acc__rv_v2_Vec: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=0)"
FREE = "pl.system.tfree_to_aic(acc__rv_v2_Vec, split=0)"
AIC_INIT = ("pl.system.aic_initialize_pipe(gemm_add_c2v_slot_buffer_import, pl.const(0, pl.INT32), "
            "dir_mask=1, slot_size=4096, slot_num=2)")
AIV_INIT = ("pl.system.aiv_initialize_pipe(gemm_add_c2v_slot_buffer, pl.const(0, pl.INT32), dir_mask=1, "
            "slot_size=4096, slot_num=2)")
IMPORT = "peer_func='gemm_add_aiv'"


def _edit(old: str, new: str) -> str:
    assert SOURCE.count(old) == 1, old
    return SOURCE.replace(old, new)


def _emit(text: str) -> str:
    return compile_source(text, "mixed.pre.py").pto_text


def _line_of(text: str, needle: str) -> int:
    return next(k for k, line in enumerate(text.splitlines(), 1) if needle in line)


def test_a_pipe_id_is_printed_on_every_op_of_the_pipe() -> None:
    text = SOURCE
    for old, new in ((PUSH, PUSH.replace("split=0", "split=0, id=2")),
                     (POP, POP.replace("split=0", "split=0, id=2")),
                     (FREE, FREE.replace("split=0", "split=0, id=2")),
                     (AIC_INIT, AIC_INIT.replace("dir_mask=1", "id=2, dir_mask=1")),
                     (AIV_INIT, AIV_INIT.replace("dir_mask=1", "id=2, dir_mask=1"))):
        text = text.replace(old, new)
    out = _emit(text)
    assert normalize(parse_and_verify(out)) == normalize(out)
    push = out.splitlines()[_line_of(out, "pto.tpush_to_aiv(") - 1].strip()
    assert push.startswith("pto.tpush_to_aiv(%acc__tile : ")
    assert push.endswith(") {id = 2, split = 0}")
    assert "pto.tpop_from_aic {id = 2, split = 0} -> " in out
    assert "pto.tfree_from_aic {id = 2, split = 0}" in out
    assert out.count("_initialize_pipe {id = 2, dir_mask = 1, slot_size = 4096, slot_num = 2}") == 2


def test_a_second_pipe_of_a_group_lies_past_the_first_in_the_gm_slot_buffer() -> None:
    # pipe (0, 1) takes 2 slots of 4096 bytes: pipe (1, 1)'s region starts 8192 bytes (2048 f32) in
    second = AIC_INIT.replace("dir_mask=1", "id=1, dir_mask=1")
    text = _edit(AIC_INIT, AIC_INIT + "\n        " + second)
    out = _emit(text)
    assert normalize(parse_and_verify(out)) == normalize(out)
    lines = out.splitlines()
    at = _line_of(out, "pto.aic_initialize_pipe {id = 1,")
    assert lines[at - 2].strip() == "%0 = pto.addptr %arg4, %c2048_index : !pto.ptr<f32> -> !pto.ptr<f32>"
    assert lines[at].strip().startswith("(gm_slot_buffer = %0 : !pto.ptr<f32>, ")


def test_a_pipe_without_the_gm_slot_buffer_prints_its_operands_inline() -> None:
    text = SOURCE.replace(", __gm_pipe_buffer: pl.Out[pl.Tensor[[1], pl.FP32]]", "")
    text = text.replace(", __gm_pipe_buffer)", ")").replace(", gm_pipe_buffer_0)", ")")
    out = _emit(text)
    assert normalize(parse_and_verify(out)) == normalize(out)
    assert ("pto.aiv_initialize_pipe {dir_mask = 1, slot_size = 4096, slot_num = 2} (c2v_consumer_buf = "
            "%gemm_add_c2v_slot_buffer : i32, v2c_consumer_buf = %c0_i32 : i32)") in out


def test_a_narrowed_acc_push_to_the_vector_side_moves_the_full_box() -> None:
    # EmitTpushTransportValidShape: a no-split Acc -> Vec push carries the physical box, then
    # the tile's valid extent is restored
    yielded = "acc__rv_v2: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = "
    narrowed = yielded.replace("pl.Mem.Acc]", "pl.Mem.Acc, pl.TileView(valid_shape=[8, 64])]")
    out = _emit(_edit(yielded, narrowed))
    assert normalize(parse_and_verify(out)) == normalize(out)
    lines = [line.strip() for line in out.splitlines()]
    at = _line_of(out, "pto.tpush_to_aiv(") - 1
    acc = "!pto.tile_buf<loc=acc, dtype=f32, rows=16, cols=64, v_row=?, v_col=?, blayout=col_major, " \
          "slayout=row_major, fractal=1024, pad=0>"
    assert lines[at - 1] == f"pto.set_validshape %acc__tile, %c16_index, %c64_index : {acc}"
    assert lines[at] == f"pto.tpush_to_aiv(%acc__tile : {acc}) {{split = 0}}"
    assert lines[at + 1] == f"pto.set_validshape %acc__tile, %c8_index, %c64_index : {acc}"


def test_a_narrower_static_pop_pops_the_full_box_and_reshapes_it() -> None:
    narrowed = POP.replace("pl.Mem.Vec]", "pl.Mem.Vec, pl.TileView(valid_shape=[8, 64])]")
    out = _emit(_edit(POP, narrowed))
    assert normalize(parse_and_verify(out)) == normalize(out)
    lines = [line.strip() for line in out.splitlines()]
    at = _line_of(out, "= pto.tpop_from_aic(%c16_index") - 1
    vec = "!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=64, v_row={}, v_col={}, blayout=row_major, " \
          "slayout=none_box, fractal=512, pad=0>"
    assert lines[at] == f"%tpop_transport = pto.tpop_from_aic(%c16_index, %c64_index) {{split = 0}} -> " \
                        f"{vec.format('?', '?')}"
    assert lines[at + 1] == f"%tpop_logical = pto.treshape %tpop_transport : {vec.format('?', '?')} -> " \
                            f"{vec.format(8, 64)}"
    assert f"pto.tadd ins(%tpop_logical, %r__tile : {vec.format(8, 64)}, " in lines[at + 3]


def test_a_tile_sharing_the_popped_slot_is_a_located_error() -> None:
    # the popped tile is the pipe's slot, not a buffer of the kernel: narrowing it in place
    # (set_validshape writes its source's buffer) would write the slot
    narrow = ("nar: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[8, 64])] = "
              "pl.tile.set_validshape(acc__rv_v2_Vec, 8, 64)")
    text = _edit(POP, POP + "\n            " + narrow)
    text = text.replace("(acc__rv_v2_Vec, ", "(nar, ").replace("(nar, 8, 64)", "(acc__rv_v2_Vec, 8, 64)")
    with pytest.raises(PassError, match="into a buffer another tile shares") as err:
        _emit(text)
    assert err.value.span.line == _line_of(text, POP)


@pytest.mark.parametrize(("old", "new", "message"), [
    (PUSH, PUSH.replace("split=0", "split=0, lane_stride=2"),
     "does not support tile.tpush_to_aiv with keyword 'lane_stride'"),
    (PUSH, PUSH.replace(", split=0", ""), "tile.tpush_to_aiv needs its 'split' keyword"),
    (PUSH, PUSH.replace("split=0", "split=7"), "tile.tpush_to_aiv split must be 0 (none)"),
    (FREE, FREE.replace("split=0", "split=0, id=1"),
     "system.tfree_to_aic pipe id 1 does not match originating tile.tpop_from_aic pipe id 0"),
    (FREE, FREE.replace("tfree_to_aic", "tfree_to_aiv"),
     "system.tfree_to_aiv requires its tile argument to come from tile.tpop_from_aiv, "
     "got tile.tpop_from_aic"),
    (AIC_INIT, AIC_INIT.replace("dir_mask=1", "dir_mask=4"), "system.aic_initialize_pipe dir_mask must be 1"),
    (AIC_INIT, AIC_INIT.replace(", slot_size=4096", ""), "system.aic_initialize_pipe needs its 'slot_size'"),
    (IMPORT, "peer_func='elsewhere'", "peer_func 'elsewhere' is not a kernel function of this program"),
    (POP, POP.replace("split=0", "split=3"),
     "tile.tpop_from_aic with an odd split needs per-lane valid extents"),
])
def test_an_unsupported_variant_is_a_located_error(old: str, new: str, message: str) -> None:
    text = _edit(old, new)
    with pytest.raises(PassError, match=message.replace("(", r"\(").replace(")", r"\)")) as err:
        _emit(text)
    assert err.value.span.line == _line_of(text, new)


def test_a_cross_core_op_outside_an_aic_or_aiv_function_is_a_located_error() -> None:
    text = _edit("@pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV",
                 "@pl.function(type=pl.FunctionType.InCore")
    with pytest.raises(PassError, match="belongs in an AIC or AIV function") as err:
        _emit(text)
    assert err.value.span.line == _line_of(text, "pl.system.reserve_buffer(")


SUBBLOCK = "subblock_idx: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()"


def test_barriers_and_cross_core_events_are_spelled_as_the_reference_spells_them() -> None:
    calls = ["pl.system.syncall(core_type='mix')",
             "pl.system.syncall(mode='hard', core_type='aiv_only')",
             "pl.system.sync_set(pipe=pl.PipeType.FIX, event_id=3, ffts_mode=1)",
             "pl.system.sync_wait(pipe=pl.PipeType.V, event_id=0)",
             "pl.system.sync_set(subblock_idx, pipe=pl.PipeType.MTE2)"]
    out = _emit(_edit(SUBBLOCK, SUBBLOCK + "".join("\n        " + c for c in calls)))
    assert normalize(parse_and_verify(out)) == normalize(out)
    lines = [line.strip() for line in out.splitlines()]
    at = lines.index("pto.syncall() mode = #pto.sync_all_mode<hard>, core_type = #pto.sync_core_type<mix>")
    assert lines[at + 1:at + 5] == [
        "pto.syncall() mode = #pto.sync_all_mode<hard>, core_type = #pto.sync_core_type<aiv_only>",
        "pto.sync.set <PIPE_FIX>, 3 {ffts_mode = 1 : i32}",
        "pto.sync.wait <PIPE_V>, 0",
        f"pto.sync.set <PIPE_MTE2>, {lines[at - 1].split(' = ')[0]}",
    ]
    assert lines[at - 1].endswith("= arith.index_cast %__pypto_spmd_subblock_idx : i32 to index")


@pytest.mark.parametrize(("call", "message"), [
    ("pl.system.syncall(mode='soft', core_type='mix')", "does not emit system.syncall's soft form"),
    ("pl.system.syncall(core_type='all')", "core_type must be one of aiv_only, aic_only, mix"),
    ("pl.system.sync_wait(pipe=pl.PipeType.V, event_id=14)", "event_id must be a literal in 0..13"),
    ("pl.system.sync_set(pipe=pl.PipeType.V, event_id=1, ffts_mode=3)",
     "ffts_mode must be a literal in 0..2"),
    ("pl.system.sync_set(subblock_idx, pipe=pl.PipeType.V, event_id=1)",
     "takes exactly one of an event_id= literal"),
])
def test_an_unsupported_barrier_or_event_is_a_located_error(call: str, message: str) -> None:
    text = _edit(SUBBLOCK, SUBBLOCK + "\n        " + call)
    with pytest.raises(PassError, match=message) as err:
        _emit(text)
    assert err.value.span.line == _line_of(text, call)


def _with_ffts(extent: int, dtype: str = "pl.INT64") -> str:
    """The AIV half given an FFTS workspace (its last parameter, passed down from the
    orchestration through the group) that it sets first."""
    ws = f"pl.Tensor[[{extent}], {dtype}]"
    text = _edit('pl.func_attr({"dual_aiv_dispatch": True})',
                 'pl.func_attr({"dual_aiv_dispatch": True})\n        pl.system.set_ffts(ffts)')
    gm = "__gm_pipe_buffer: pl.Out[pl.Tensor[[1], pl.FP32]])"
    for head in ("def gemm_add_aiv(", "def gemm_add("):
        at = text.index(gm, text.index(head))
        text = text[:at] + gm[:-1] + f", ffts: {ws})" + text[at + len(gm):]
    call = "out__iter_v1, __gm_pipe_buffer)\n        return"
    text = text.replace(call, call.replace("__gm_pipe_buffer)", "__gm_pipe_buffer, ffts)"))
    create = "            gm_pipe_buffer_0: pl.Tensor[[1], pl.FP32] = "
    made = f"            ffts_0: {ws} = pl.tensor.create([{extent}], dtype={dtype})\n"
    text = text.replace(create, made + create)
    return text.replace("out__iter_v1, gm_pipe_buffer_0)", "out__iter_v1, gm_pipe_buffer_0, ffts_0)")


def test_the_ffts_workspace_is_a_raw_pointer_the_kernel_sets() -> None:
    out = _emit(_with_ffts(256))
    assert normalize(parse_and_verify(out)) == normalize(out)
    aiv = out[out.index("func.func @gemm_add_aiv("):]
    assert aiv.splitlines()[0].count("!pto.ptr<i64>") == 1
    assert "pto.set_ffts %arg" in aiv
    assert "ffts_view" not in aiv


@pytest.mark.parametrize(("extent", "dtype"), [(128, "pl.INT64"), (256, "pl.INT32")])
def test_a_small_or_mistyped_ffts_workspace_is_a_located_error(extent: int, dtype: str) -> None:
    text = _with_ffts(extent, dtype)
    with pytest.raises(PassError, match="at least 256 elements") as err:
        _emit(text)
    assert err.value.span.line == _line_of(text, "pl.system.set_ffts(ffts)")
