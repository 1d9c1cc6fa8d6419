# ruff: noqa: E501  (DSL parameter lists and emitted lines are one line each)
"""A tensor parameter whose `pl.TensorView` declares a valid shape
(`lowering/valid_views.py`): the symbol only that declaration names becomes the first `index`
scalar of the signature (the reference's MaterializeValidShapeSymbols), the tensor's view is of
its physical shape, and a `tile.load` of it reads its requested extent into a tile valid in the
extent the front end deduces as the reference does (`slotsat.core.dsl.window_reads`); a
`tile.store` writes it through that view as any tensor; every other use is a located decline.

Groups: the printed kernel compiles to the reference's own module and `check` confirms it; the
signature's order; a request kept, a load narrowed to the tensor's extent (no request, a
literal extent under the request), one only the reference's analyzer decides (an error, or the
annotation's); a store into it, as the reference emits it; other uses declined; a symbol only inside a compound extent is an error, as in
the reference.
"""

from __future__ import annotations

import pytest

from slotsat.core.errors import SlotsatError
from tests.codegen.harness import compile_, confirmed, error, kernel, lines, references_module

DECLS = 'VALID = pl.dynamic("VALID")\nM = pl.dynamic("M")'
VIEW = "pl.TensorView(valid_shape=[16, VALID], stride=[], layout=pl.TensorLayout.ND)"
PARAMS = f"s: pl.Tensor[[16, 128], pl.FP32, {VIEW}], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]"
RET = "pl.Tensor[[16, 128], pl.FP32]"
STORE = "out = pl.tile.store(t, [0, 0], out)\nreturn out\n"


def src(load: str, params: str = PARAMS) -> str:
    return kernel(f"t = {load}\n{STORE}", params=params, ret=RET, decls=DECLS)


def test_the_printed_kernel_compiles_to_the_references_module() -> None:
    ours, theirs = references_module("valid_view")
    assert ours == theirs
    (head,) = [line for line in ours if line.startswith("func.func @kernel(")]
    assert "%v2: index, %v3: index)" in head  # VALID, then n


def test_the_printed_kernel_is_confirmed(capsys: pytest.CaptureFixture[str]) -> None:
    confirmed("valid_view", capsys)


def test_the_declared_symbol_is_the_first_scalar_and_the_view_is_physical() -> None:
    text = compile_(src("pl.tile.load(s, [0, 0], [16, 128], [16, n], target_memory=pl.Mem.Vec)")).pto_text
    (head,) = lines(text, "func.func @kernel")
    assert head.startswith("func.func @kernel(%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<f32>, %arg2: index, %arg3: index)")
    (view,) = lines(text, "pto.make_tensor_view %arg0")
    assert "shape = [%c16_index, %c128_index]" in view
    assert any("sizes = [%c16_index, %arg3]" in x for x in lines(text, "pto.partition_view"))


def test_a_symbol_in_a_physical_shape_is_not_a_new_parameter() -> None:
    params = "s: pl.Tensor[[16, M], pl.FP32, pl.TensorView(valid_shape=[16, M], stride=[], layout=pl.TensorLayout.ND)], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]"
    text = compile_(src("pl.tile.load(s, [0, 0], [16, 128], [16, n], target_memory=pl.Mem.Vec)", params)).pto_text
    (head,) = lines(text, "func.func @kernel")
    assert "(%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<f32>, %arg2: index, %arg3: index)" in head  # n, then M


def test_a_request_the_declared_extent_may_exceed_is_kept() -> None:
    """A literal declared extent of 100 and a request of 64: the tile is valid in 64."""
    params = PARAMS.replace("VALID]", "100]")
    text = compile_(src("pl.tile.load(s, [0, 0], [16, 128], [16, 64], target_memory=pl.Mem.Vec)", params)).pto_text
    assert any("sizes = [%c16_index, %c64_index]" in x for x in lines(text, "pto.partition_view"))
    (alloc,) = lines(text, "%t = pto.alloc_tile")
    assert "valid_col = %c64_index" in alloc


def test_a_symbolic_request_the_declared_extent_may_exceed_is_kept() -> None:
    """`min(VALID, 128) <= n` fails at VALID = 128, n = 0: no analyzer proves it."""
    text = compile_(src("pl.tile.load(s, [0, 0], [16, 128], [16, n], target_memory=pl.Mem.Vec)")).pto_text
    (alloc,) = lines(text, "%t = pto.alloc_tile")
    assert "valid_col = %arg3" in alloc


def test_a_load_of_the_whole_window_is_valid_in_the_tensors_extent() -> None:
    """No request (the window): the reference narrows to `min(VALID, 128)` (it proves
    `min(x, 128) <= 128`); the read is still the whole window, as the reference emits it."""
    text = compile_(src("pl.tile.load(s, [0, 0], [16, 128], target_memory=pl.Mem.Vec)")).pto_text
    (alloc,) = lines(text, "%t = pto.alloc_tile")
    col = alloc.split("valid_col = ")[1].split(" ")[0]
    assert f"{col} = arith.minsi %arg2, %c128_index : index" in lines(text, "arith.minsi")
    assert any("sizes = [%c16_index, %c128_index]" in x for x in lines(text, "pto.partition_view"))


def test_a_literal_declared_extent_under_the_request_narrows() -> None:
    params = PARAMS.replace("VALID]", "100]")
    text = compile_(src("pl.tile.load(s, [0, 0], [16, 128], [16, 120], target_memory=pl.Mem.Vec)", params)).pto_text
    (alloc,) = lines(text, "%t = pto.alloc_tile")
    assert "valid_col = %c100_index" in alloc


AMBIGUOUS = "pl.tile.load(s, [0, 0], [16, 128], [16, pl.min(128, VALID)], target_memory=pl.Mem.Vec)"
"""`min(VALID, 128) <= min(128, VALID)` holds for every value, but whether the reference's
analyzer proves it decides which of the two it keeps."""


def test_a_load_only_the_analyzer_decides_is_an_error_naming_the_annotation() -> None:
    with pytest.raises(SlotsatError) as info:
        compile_(src(AMBIGUOUS))
    assert info.value.message == (
        "the load requests the valid extent 'pl.min(128, VALID)' on axis 1, where the tensor declares 'VALID': "
        "the reference narrows the read to the tensor's extent where its arithmetic analyzer proves that "
        "smaller, which slotsat cannot tell here; annotate the result's valid shape "
        "(pl.TileView(valid_shape=[...])) with the one the reference deduces")
    assert (info.value.span.line, info.value.span.col) == (11, 13)


def test_the_annotation_decides_a_load_only_the_analyzer_decides() -> None:
    annotated = "t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[16, pl.min(VALID, 128)])] = "
    text = compile_(kernel(f"{annotated}{AMBIGUOUS}\n{STORE}", params=PARAMS, ret=RET, decls=DECLS)).pto_text
    (alloc,) = lines(text, "%t = pto.alloc_tile")
    col = alloc.split("valid_col = ")[1].split(" ")[0]
    assert f"{col} = arith.minsi %arg2, %c128_index : index" in lines(text, "arith.minsi")


def test_a_store_into_the_tensor_writes_through_its_physical_view() -> None:
    """As the reference emits it (`valid_store`): the tile's valid part, whatever the tensor's
    declared valid shape."""
    ours, theirs = references_module("valid_store")
    assert ours == theirs
    assert all(x.endswith("-> !pto.partition_tensor_view<16x128xf32>") for x in ours if "pto.partition_view" in x)


def test_another_use_of_the_tensor_is_declined() -> None:
    body = "t = pl.tile.load(out, [0, 0], [16, 128], target_memory=pl.Mem.Vec)\nv: pl.Tensor[[2048], pl.FP32] = pl.tensor.view(s, [2048])\nreturn out\n"
    err = error(kernel(body, params=PARAMS, ret=RET, decls=DECLS))
    assert err.message == ("tensor 's' declares a valid shape (pl.TensorView(valid_shape=...)); slotsat's code "
                           "generator emits it only as the source of tile.load, not of tensor.view")
    assert err.span.line == 12


def test_a_symbol_only_in_a_compound_extent_is_an_error() -> None:
    params = PARAMS.replace("VALID]", "VALID + 1]")
    with pytest.raises(SlotsatError) as info:
        compile_(src("pl.tile.load(s, [0, 0], [16, 128], [16, n], target_memory=pl.Mem.Vec)", params))
    assert info.value.message == (
        "parameter 's' names the symbol 'VALID' only inside the valid extent 'VALID + 1', so no caller can "
        "supply its value (the reference's MaterializeValidShapeSymbols rejects it): declare it on its own in "
        "a valid_shape, or pass the extent as a pl.Scalar[pl.INDEX] parameter")
    assert info.value.span.line == 10


def test_the_interpreter_keeps_a_narrowed_tile_to_its_valid_extent() -> None:
    """The load reads the whole window, the tile is valid in `min(VALID, 128)`: the store
    writes those columns and leaves the rest of the output as it was."""
    import numpy as np

    from slotsat.core.dsl.parser import parse_source
    from slotsat.core.interpreter import Interpreter

    fn = parse_source(src("pl.tile.load(s, [0, 0], [16, 128], target_memory=pl.Mem.Vec)"), "k.py").programs[0].functions[0]
    s = np.arange(16 * 128, dtype=np.float32).reshape(16, 128)
    out = np.full((16, 128), -1.0, dtype=np.float32)
    (result,) = Interpreter(physical=False, prefetch=False).run(fn, {"s": s, "n": 0, "out": out, "VALID": 40})
    assert np.array_equal(result[:, :40], s[:, :40])
    assert np.all(result[:, 40:] == -1.0)


def test_the_default_mode_computes_a_valid_extent_once_per_block() -> None:
    """`min(VALID, 128)` sizes the loaded tile, the result of exp and the store: one
    `arith.minsi` in the default mode (a pure op emitted earlier in scope is reused), one per
    use in `--mode pypto`, as the reference emits it."""
    from slotsat.core.options import Mode

    body = "t = pl.tile.load(s, [0, 0], [16, 128], target_memory=pl.Mem.Vec)\ne = pl.tile.exp(t)\nout = pl.tile.store(e, [0, 0], out)\nreturn out\n"
    text = kernel(body, params=PARAMS, ret=RET, decls=DECLS)
    assert len(lines(compile_(text).pto_text, "arith.minsi")) == 1
    assert len(lines(compile_(text, mode=Mode.PYPTO).pto_text, "arith.minsi")) == 3


DIST = ("data: pld.DistributedTensor[[1, 16], pl.FP32, pl.TensorView(valid_shape=[1, {v}], stride=[], "
        "layout=pl.TensorLayout.ND)], out: pl.Out[pl.Tensor[[1, 16], pl.FP32]], peer: pl.Scalar[pl.INT32]")
REMOTE = "t = pld.tile.remote_load(data, peer, [0, 0], [1, 16], [1, 16])\nout = pl.tile.store(t, [0, 0], out)\nreturn out\n"
DIST_RET = "pl.Tensor[[1, 16], pl.FP32]"


def test_a_remote_load_reads_the_peers_window_narrowed_to_a_literal_valid_shape() -> None:
    """PyPTO's distributed codegen test: a peer's `[1, 16]` tensor valid over `[1, 8]`, loaded
    whole, is read as a `1x8` partition into a tile valid over `[1, 8]` (the reference's
    module, compared operation for operation by hand)."""
    text = compile_(kernel(REMOTE, params=DIST.format(v=8), ret=DIST_RET,
                           decls="import pypto.language.distributed as pld")).pto_text
    read, write = lines(text, "pto.partition_view")  # the peer's window, then the output's
    assert "%out_view" in write
    assert "sizes = [%c1_index, %c8_index]" in read
    assert read.endswith("-> !pto.partition_tensor_view<1x8xf32>")


def test_a_remote_loads_annotation_must_say_the_deduced_valid_shape() -> None:
    body = REMOTE.replace("t = pld", "t: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[1, 4])] = pld")
    err = error(kernel(body, params=DIST.format(v=8), ret=DIST_RET, decls="import pypto.language.distributed as pld"))
    assert err.message == "annotation says valid_shape=[1, 4] but pld.tile.remote_load produces valid_shape=[1, 8]"


def test_a_remote_load_of_a_runtime_valid_shape_is_declined() -> None:
    body = REMOTE.replace("t = pld", "t: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[1, V])] = pld")
    err = error(kernel(body, params=DIST.format(v="V"), ret=DIST_RET,
                       decls='import pypto.language.distributed as pld\nV = pl.dynamic("V")'))
    assert err.message == ("tensor 'data' declares a valid shape (pl.TensorView(valid_shape=...)); slotsat's code "
                           "generator emits it only as the source of tile.load (and of pld.tile.remote_load where "
                           "the valid shape is literal), not of pld.tile.remote_load")
