"""The interpreter's models of the sort family (issue 16): `tile.sort32`, `tile.mrgsort_format1`,
`tile.mrgsort_format2` and `tile.gather_mask`, each against a hand-computed expectation, and
the cases the reference does not document (declined with the reason, never guessed).

Expectations are closed forms, not a sort: a row holding a permutation `v[j] = (a * j + b) % n`
sorted descending holds value `n - 1 - m` at place `m`, which came from position
`j = (n - 1 - m - b) * a^-1 (mod n)`; ties keep their input order (the A2/A3 Sort / MrgSort
constraint the interpreter cites)."""

# ruff: noqa: E501  (embedded kernel text keeps one statement per line, 10-dsl.md §9.1)

from __future__ import annotations

import numpy as np
import pytest

from slotsat.core import ir
from slotsat.core.inputs import random_inputs
from slotsat.core.interp_errors import InterpreterError
from slotsat.core.interpreter import ensure_modelled, outputs_equal
from tests.reliability.interp_harness import kernel, run

_fn = kernel
_run = run


def _pairs(row: np.ndarray) -> tuple[list[float], list[int]]:
    """The values (even places) and the raw index bits (odd places) of an interleaved row."""
    raw = np.ascontiguousarray(row, dtype=np.float32)
    return raw[0::2].tolist(), raw.view(np.uint32)[1::2].tolist()


def _sort32_fn(cols: int, rows: int = 1) -> ir.Function:
    return _fn(f"x: pl.Tensor[[{rows}, {cols}], pl.FP32], ids: pl.Tensor[[{rows}, {cols}], pl.UINT32], "
               f"out: pl.Out[pl.Tensor[[{rows}, {2 * cols}], pl.FP32]]",
               f"pl.Tensor[[{rows}, {2 * cols}], pl.FP32]", f"""
v: pl.Tile[[{rows}, {cols}], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [{rows}, {cols}])
i: pl.Tile[[{rows}, {cols}], pl.UINT32, pl.Mem.Vec] = pl.load(ids, [0, 0], [{rows}, {cols}])
s: pl.Tile[[{rows}, {2 * cols}], pl.FP32, pl.Mem.Vec] = pl.tile.sort32(v, i)
r: pl.Tensor[[{rows}, {2 * cols}], pl.FP32] = pl.store(s, [0, 0], out)
return r
""")


def test_sort32_sorts_each_block_descending_with_the_index_bits_interleaved() -> None:
    # row 0: v[j] = (7 j) % 32 in both blocks (block 1 shifted by 100); 7^-1 = 23 (mod 32)
    j = np.arange(64)
    x = np.array([(7 * j) % 32 + 100 * (j // 32)], dtype=np.float32)
    ids = np.array([1000 + j], dtype=np.uint32)
    (r,) = _run(_sort32_fn(64), {"x": x, "ids": ids, "out": np.zeros((1, 128), np.float32)})
    values, index = _pairs(r[0])  # type: ignore[index]
    m = np.arange(32)
    assert values[:32] == (31 - m).tolist()
    assert index[:32] == (1000 + (23 * (31 - m)) % 32).tolist()
    assert values[32:] == (131 - m).tolist()  # block 1 sorted on its own, not merged with block 0
    assert index[32:] == (1032 + (23 * (31 - m)) % 32).tolist()


def test_sort32_sorts_rows_independently() -> None:
    x = np.array([np.arange(32), 31 - np.arange(32)], dtype=np.float32)
    ids = np.tile(np.arange(32, dtype=np.uint32), (2, 1))
    (r,) = _run(_sort32_fn(32, rows=2), {"x": x, "ids": ids, "out": np.zeros((2, 64), np.float32)})
    v0, i0 = _pairs(r[0])  # type: ignore[index]
    v1, i1 = _pairs(r[1])  # type: ignore[index]
    assert v0 == v1 == list(range(31, -1, -1))
    assert i0 == list(range(31, -1, -1))
    assert i1 == list(range(32))


def test_sort32_keeps_equal_values_in_input_order() -> None:
    # v[j] = j // 2: each value twice; the earlier position comes first
    x = np.array([np.arange(32) // 2], dtype=np.float32)
    ids = np.array([np.arange(32)], dtype=np.uint32)
    (r,) = _run(_sort32_fn(32), {"x": x, "ids": ids, "out": np.zeros((1, 64), np.float32)})
    values, index = _pairs(r[0])  # type: ignore[index]
    m = np.arange(32)
    assert values == (15 - m // 2).tolist()
    assert index == (2 * (15 - m // 2) + m % 2).tolist()


def test_sort32_of_a_nan_is_declined() -> None:
    x = np.arange(32, dtype=np.float32)[None, :]
    x[0, 5] = np.nan
    with pytest.raises(InterpreterError, match="NaN"):
        _run(_sort32_fn(32), {"x": x, "ids": np.zeros((1, 32), np.uint32), "out": np.zeros((1, 64), np.float32)})


def _format1_fn(cols: int, blocks: list[int]) -> ir.Function:
    lines = [f"v: pl.Tile[[1, {cols}], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [1, {cols}])",
             f"i: pl.Tile[[1, {cols}], pl.UINT32, pl.Mem.Vec] = pl.load(ids, [0, 0], [1, {cols}])",
             f"s0: pl.Tile[[1, {2 * cols}], pl.FP32, pl.Mem.Vec] = pl.tile.sort32(v, i)"]
    for k, b in enumerate(blocks):
        lines.append(f"s{k + 1}: pl.Tile[[1, {2 * cols}], pl.FP32, pl.Mem.Vec] = "
                     f"pl.tile.mrgsort_format1(s{k}, pl.const({b}, pl.INT32))")
    lines += [f"r: pl.Tensor[[1, {2 * cols}], pl.FP32] = pl.store(s{len(blocks)}, [0, 0], out)", "return r"]
    return _fn(f"x: pl.Tensor[[1, {cols}], pl.FP32], ids: pl.Tensor[[1, {cols}], pl.UINT32], "
               f"out: pl.Out[pl.Tensor[[1, {2 * cols}], pl.FP32]]", f"pl.Tensor[[1, {2 * cols}], pl.FP32]",
               "\n".join(lines))


def test_format1_merges_four_runs_into_one_descending_run() -> None:
    # the reference's golden input: v[j] = (37 j + 17) % 128; 37^-1 = 45 (mod 128)
    j = np.arange(128)
    x = np.array([(37 * j + 17) % 128], dtype=np.float32)
    (r,) = _run(_format1_fn(128, [64]), {"x": x, "ids": np.array([j], np.uint32),
                                          "out": np.zeros((1, 256), np.float32)})
    values, index = _pairs(r[0])  # type: ignore[index]
    k = 127 - np.arange(128)
    assert values == k.tolist()
    assert index == ((k - 17) * 45 % 128).tolist()


def test_format1_passes_sort_512_values_and_group_by_four_runs() -> None:
    j = np.arange(512)
    x = np.array([(37 * j + 17) % 512], dtype=np.float32)
    args = {"x": x, "ids": np.array([j], np.uint32), "out": np.zeros((1, 1024), np.float32)}
    (once,) = _run(_format1_fn(512, [64]), args)
    values, _ = _pairs(once[0])  # type: ignore[index]
    # after one pass each group of 4 blocks (128 values) is one descending run, not merged with the next
    for g in range(4):
        run = values[128 * g:128 * (g + 1)]
        assert run == sorted(run, reverse=True)
        assert sorted(run) == sorted(((37 * j[128 * g:128 * (g + 1)] + 17) % 512).tolist())
    (full,) = _run(_format1_fn(512, [64, 256]), args)
    values, index = _pairs(full[0])  # type: ignore[index]
    k = 511 - np.arange(512)
    assert values == k.tolist()
    assert index == ((k - 17) * 429 % 512).tolist()  # 37 * 429 = 15873 = 31 * 512 + 1


def test_format1_keeps_equal_values_in_run_order() -> None:
    # every block of 32 holds 0 .. 31: value 31 of block 0, then of block 1, 2, 3
    j = np.arange(128)
    (r,) = _run(_format1_fn(128, [64]), {"x": np.array([j % 32], np.float32), "ids": np.array([j], np.uint32),
                                          "out": np.zeros((1, 256), np.float32)})
    values, index = _pairs(r[0])  # type: ignore[index]
    m = np.arange(128)
    assert values == (31 - m // 4).tolist()
    assert index == (32 * (m % 4) + 31 - m // 4).tolist()


def test_format1_of_incomplete_groups_is_declined() -> None:
    j = np.arange(64)
    with pytest.raises(InterpreterError, match="not whole groups of 4 runs"):
        _run(_format1_fn(64, [64]), {"x": np.array([j], np.float32), "ids": np.array([j], np.uint32),
                                      "out": np.zeros((1, 128), np.float32)})


def test_format1_of_unsorted_runs_is_declined() -> None:
    fn = _fn("x: pl.Tensor[[1, 256], pl.FP32], out: pl.Out[pl.Tensor[[1, 256], pl.FP32]]", "pl.Tensor[[1, 256], pl.FP32]", """
v: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [1, 256])
s: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.mrgsort_format1(v, pl.const(64, pl.INT32))
r: pl.Tensor[[1, 256], pl.FP32] = pl.store(s, [0, 0], out)
return r
""")
    with pytest.raises(InterpreterError, match="not descending"):
        _run(fn, {"x": np.arange(256, dtype=np.float32)[None, :], "out": np.zeros((1, 256), np.float32)})


_FORMAT2 = ("x: pl.Tensor[[2, 32], pl.FP32], ids: pl.Tensor[[2, 32], pl.UINT32], out: pl.Out[pl.Tensor[[1, 128], pl.FP32]]",
            "pl.Tensor[[1, 128], pl.FP32]")


def _format2_fn(exhausted: str) -> ir.Function:
    return _fn(*_FORMAT2, f"""
v0: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [1, 32])
i0: pl.Tile[[1, 32], pl.UINT32, pl.Mem.Vec] = pl.load(ids, [0, 0], [1, 32])
s0: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.sort32(v0, i0)
v1: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec] = pl.load(x, [1, 0], [1, 32])
i1: pl.Tile[[1, 32], pl.UINT32, pl.Mem.Vec] = pl.load(ids, [1, 0], [1, 32])
s1: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.sort32(v1, i1)
tmp: pl.Tile[[1, 128], pl.FP32, pl.Mem.Vec] = pl.tile.create([1, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
m: pl.Tile[[1, 128], pl.FP32, pl.Mem.Vec] = pl.tile.mrgsort_format2(s0, s1, tmp, exhausted={exhausted})
r: pl.Tensor[[1, 128], pl.FP32] = pl.store(m, [0, 0], out)
return r
""")


def test_format2_merges_two_lists() -> None:
    # list 0 holds the even values 0 .. 62, list 1 the odd ones and one tie (value 62)
    even = 2 * np.arange(32)
    odd = 2 * np.arange(32) + 1
    odd[-1] = 62
    x = np.array([even, odd], dtype=np.float32)
    ids = np.array([np.arange(32), 100 + np.arange(32)], dtype=np.uint32)
    (r,) = _run(_format2_fn("False"), {"x": x, "ids": ids, "out": np.zeros((1, 128), np.float32)})
    values, index = _pairs(r[0])  # type: ignore[index]
    # 62 (list 0, then list 1: lists in argument order), then 61 (odd[30]), 60 (even[30]), ...
    assert values[:2] == [62.0, 62.0]
    assert index[:2] == [31, 131]
    m = np.arange(2, 64)
    assert values[2:] == (63 - m).tolist()
    assert index[2:] == [((63 - k) // 2) + (100 if (63 - k) % 2 else 0) for k in m]


def test_format2_with_exhausted_is_declined_before_the_run() -> None:
    with pytest.raises(InterpreterError, match="exhausted=True"):
        ensure_modelled(_format2_fn("True"))
    ensure_modelled(_format2_fn("False"))


def test_gather_mask_splits_values_and_index_bits() -> None:
    fn = _fn("x: pl.Tensor[[1, 32], pl.FP32], ids: pl.Tensor[[1, 32], pl.UINT32], "
             "vo: pl.Out[pl.Tensor[[1, 32], pl.FP32]], io: pl.Out[pl.Tensor[[1, 32], pl.UINT32]]",
             "tuple[pl.Tensor[[1, 32], pl.FP32], pl.Tensor[[1, 32], pl.UINT32]]", """
v: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [1, 32])
i: pl.Tile[[1, 32], pl.UINT32, pl.Mem.Vec] = pl.load(ids, [0, 0], [1, 32])
s: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.sort32(v, i)
a: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec] = pl.tile.gather_mask(s, mask_pattern=1)
b: pl.Tile[[1, 32], pl.UINT32, pl.Mem.Vec] = pl.tile.gather_mask(s, mask_pattern=2, output_dtype=pl.UINT32)
q: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.gather_mask(s, mask_pattern=5)
r1: pl.Tensor[[1, 32], pl.FP32] = pl.store(a, [0, 0], vo)
r2: pl.Tensor[[1, 32], pl.UINT32] = pl.store(b, [0, 0], io)
r3: pl.Tensor[[1, 32], pl.FP32] = pl.store(q, [0, 16], r1)
return r3, r2
""")
    j = np.arange(32)
    (vals, idx) = _run(fn, {"x": np.array([(7 * j) % 32], np.float32), "ids": np.array([500 + j], np.uint32),
                            "vo": np.zeros((1, 32), np.float32), "io": np.zeros((1, 32), np.uint32)})
    m = np.arange(32)
    # P0101: places 0, 2, 4 ... (the values); P0100 (5): every fourth from place 2 (values 30, 28, ...)
    assert vals.tolist() == [(31 - m[:16]).tolist() + (30 - 2 * m[:16]).tolist()]  # type: ignore[union-attr]
    assert idx.tolist() == [(500 + (23 * (31 - m)) % 32).tolist()]  # type: ignore[union-attr]


def test_outputs_that_differ_only_in_stored_index_bits_differ() -> None:
    a = np.array([1.5, 0.0], dtype=np.float32)
    b, c = a.copy(), a.copy()
    b.view(np.uint32)[1], c.view(np.uint32)[1] = 3, 4  # index 3 vs 4 stored in a float
    assert outputs_equal((b,), (b.copy(),)) is None
    assert outputs_equal((b,), (c,)) == "result 0: element [1] differs in its bits (an integer stored in a float)"
    assert outputs_equal((np.array([0.0], np.float32),), (np.array([-0.0], np.float32),)) is None


_GATHER = ("x: pl.Tensor[[2, 8], pl.FP32], ix: pl.Tensor[[2, 4], pl.INT32], out: pl.Out[pl.Tensor[[2, 4], pl.FP32]]",
           "pl.Tensor[[2, 4], pl.FP32]", """
s: pl.Tile[[2, 8], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [2, 8])
i: pl.Tile[[2, 4], pl.INT32, pl.Mem.Vec] = pl.load(ix, [0, 0], [2, 4])
t: pl.Tile[[2, 4], pl.INT32, pl.Mem.Vec] = pl.tile.create([2, 4], dtype=pl.INT32, target_memory=pl.Mem.Vec)
g: pl.Tile[[2, 4], pl.FP32, pl.Mem.Vec] = pl.tile.gather(s, i, t)
r: pl.Tensor[[2, 4], pl.FP32] = pl.store(g, [0, 0], out)
return r
""")


_GATHER_PARTLY_VALID_SOURCE = (_GATHER[0], _GATHER[1], _GATHER[2].replace(
    "s: pl.Tile[[2, 8], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [2, 8])",
    "s: pl.Tile[[2, 8], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[1, 8])] = pl.load(x, [0, 0], [2, 8], [1, 8])"))


def test_gather_reads_flat_offsets_into_the_source() -> None:
    x = np.arange(16, dtype=np.float32).reshape(2, 8) * 10
    ix = np.array([[7, 0, 3, 3], [8, 15, 9, 1]], dtype=np.int32)  # row 1 offsets i * 8 + column
    (r,) = _run(_fn(*_GATHER), {"x": x, "ix": ix, "out": np.zeros((2, 4), np.float32)})
    assert r.tolist() == [[70, 0, 30, 30], [80, 150, 90, 10]]  # type: ignore[union-attr]


def test_gather_outside_the_source_is_a_fault() -> None:
    ix = np.array([[0, 1, 2, 16], [0, 0, 0, 0]], dtype=np.int32)
    with pytest.raises(InterpreterError, match="offset 16 is outside the \\[2, 8\\] source"):
        _run(_fn(*_GATHER), {"x": np.zeros((2, 8), np.float32), "ix": ix, "out": np.zeros((2, 4), np.float32)})


def test_a_gather_from_a_partly_valid_source_reads_its_buffer_and_poisons_the_undefined_part() -> None:
    # pto-isa's TGATHER reads src0[indices[i, j]] for the destination's valid region whatever the
    # source's valid extent: row 1 of the source below is outside its valid part, never defined
    fn = _fn(*_GATHER_PARTLY_VALID_SOURCE)
    x = np.arange(16, dtype=np.float32).reshape(2, 8) * 10
    ix = np.array([[7, 0, 3, 3], [8, 15, 9, 1]], dtype=np.int32)
    (r,) = _run(fn, {"x": x, "ix": ix, "out": np.zeros((2, 4), np.float32)})
    assert isinstance(r, np.ndarray)
    assert r[0].tolist() == [70, 0, 30, 30]
    assert np.isnan(r[1, :3]).all()  # offsets 8, 15, 9: row 1, outside the valid part
    assert r[1, 3] == 10


def test_a_gather_by_partly_valid_indices_is_declined() -> None:
    fn = _fn(_GATHER[0], _GATHER[1], _GATHER[2].replace(
        "i: pl.Tile[[2, 4], pl.INT32, pl.Mem.Vec] = pl.load(ix, [0, 0], [2, 4])",
        "i: pl.Tile[[2, 4], pl.INT32, pl.Mem.Vec, pl.TileView(valid_shape=[1, 4])] = "
        "pl.load(ix, [0, 0], [2, 4], [1, 4])"))
    with pytest.raises(InterpreterError, match=r"tile\.gather by fully valid indices only"):
        _run(fn, {"x": np.zeros((2, 8), np.float32), "ix": np.zeros((2, 4), np.int32),
                  "out": np.zeros((2, 4), np.float32)})


def test_random_offsets_of_a_gather_are_drawn_inside_its_source() -> None:
    fn = _fn(*_GATHER)
    for seed in range(20):
        args = random_inputs(fn, np.random.default_rng(seed))
        ix = args["ix"]
        assert isinstance(ix, np.ndarray)
        assert ix.dtype == np.int32
        assert int(ix.min()) >= 0
        assert int(ix.max()) < 9  # small, and inside the 16-element source
        _run(fn, args)  # never a fault


def test_offsets_broadcast_down_a_tile_of_a_constant_are_drawn_inside_the_source() -> None:
    # the library's rotary swap: one row of offsets, col_expand_add-ed onto a tile.full of 3
    fn = _fn("x: pl.Tensor[[1, 8], pl.FP32], ix: pl.Tensor[[1, 8], pl.INT32], out: pl.Out[pl.Tensor[[1, 8], pl.FP32]]",
             "pl.Tensor[[1, 8], pl.FP32]", """
s: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [1, 8])
z: pl.Tile[[2, 8], pl.INT32, pl.Mem.Vec] = pl.tile.full([2, 8], dtype=pl.INT32, value=3)
i: pl.Tile[[1, 8], pl.INT32, pl.Mem.Vec] = pl.load(ix, [0, 0], [1, 8])
b: pl.Tile[[2, 8], pl.INT32, pl.Mem.Vec] = pl.tile.col_expand_add(z, i)
w: pl.Tile[[1, 8], pl.INT32, pl.Mem.Vec] = pl.tile.slice(b, [1, 8], [1, 0])
t: pl.Tile[[1, 8], pl.INT32, pl.Mem.Vec] = pl.tile.create([1, 8], dtype=pl.INT32, target_memory=pl.Mem.Vec)
g: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.gather(s, w, t)
r: pl.Tensor[[1, 8], pl.FP32] = pl.store(g, [0, 0], out)
return r
""")
    ix = np.stack([random_inputs(fn, np.random.default_rng(seed))["ix"] for seed in range(30)])
    assert ix.min() >= -3
    assert ix.max() < 5  # ix + 3 inside the 8-element source


def test_offsets_followed_through_a_slice_and_a_tiny_source_bound_the_draw() -> None:
    fn = _fn("x: pl.Tensor[[1, 4], pl.FP32], ix: pl.Tensor[[2, 4], pl.INT32], n: pl.Tensor[[2, 4], pl.INT32], "
             "out: pl.Out[pl.Tensor[[1, 4], pl.FP32]]", "pl.Tensor[[1, 4], pl.FP32]", """
s: pl.Tile[[1, 4], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [1, 4])
i: pl.Tile[[2, 4], pl.INT32, pl.Mem.Vec] = pl.load(ix, [0, 0], [2, 4])
h: pl.Tile[[1, 4], pl.INT32, pl.Mem.Vec] = pl.tile.slice(i, [1, 4], [1, 0])
o: pl.Tile[[2, 4], pl.INT32, pl.Mem.Vec] = pl.load(n, [0, 0], [2, 4])
t: pl.Tile[[1, 4], pl.INT32, pl.Mem.Vec] = pl.tile.create([1, 4], dtype=pl.INT32, target_memory=pl.Mem.Vec)
g: pl.Tile[[1, 4], pl.FP32, pl.Mem.Vec] = pl.tile.gather(s, h, t)
r: pl.Tensor[[1, 4], pl.FP32] = pl.store(g, [0, 0], out)
return r
""")
    draws = [random_inputs(fn, np.random.default_rng(seed)) for seed in range(20)]
    offsets = np.stack([d["ix"] for d in draws])
    others = np.stack([d["n"] for d in draws])
    assert offsets.min() >= 0
    assert offsets.max() <= 3  # the 4-element source bounds the draw
    assert others.min() < 0  # a tensor that is no gather's offsets keeps the usual draw


def test_indices_read_from_tensors_are_drawn_inside_what_they_index() -> None:
    # the library's hash routing: token ids index a table whose entries become gather offsets
    fn = _fn("ids: pl.Tensor[[4], pl.INT64], table: pl.Tensor[[6, 2], pl.INT32], x: pl.Tensor[[1, 5], pl.FP32], "
             "w: pl.Tensor[[4], pl.INT32], out: pl.Out[pl.Tensor[[1, 2], pl.FP32]]", "pl.Tensor[[1, 2], pl.FP32]", """
s: pl.Tile[[1, 5], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [1, 5])
o: pl.Tile[[1, 2], pl.INT32, pl.Mem.Vec] = pl.tile.create([1, 2], dtype=pl.INT32, target_memory=pl.Mem.Vec)
t: pl.Scalar[pl.INT64] = pl.tensor.read(ids, [1])
tok: pl.Scalar[pl.INDEX] = pl.cast(t, pl.INDEX)
for k in pl.range(2):
    e: pl.Scalar[pl.INT32] = pl.tensor.read(table, [tok, k])
    pl.tile.write(o, [0, k], e)
u: pl.Scalar[pl.INT32] = pl.tensor.read(w, [0])
tmp: pl.Tile[[1, 2], pl.INT32, pl.Mem.Vec] = pl.tile.create([1, 2], dtype=pl.INT32, target_memory=pl.Mem.Vec)
g: pl.Tile[[1, 2], pl.FP32, pl.Mem.Vec] = pl.tile.gather(s, o, tmp)
r: pl.Tensor[[1, 2], pl.FP32] = pl.store(g, [0, 0], out)
return r
""")
    draws = [random_inputs(fn, np.random.default_rng(seed)) for seed in range(30)]
    ids = np.stack([d["ids"] for d in draws])
    table = np.stack([d["table"] for d in draws])
    assert ids.min() >= 0
    assert ids.max() < 6  # rows of the table
    assert table.min() >= 0
    assert table.max() < 5  # offsets into the 5-element source
    assert np.stack([d["w"] for d in draws]).min() < 0  # read, but never an index: the usual draw
    for d in draws:
        _run(fn, d)  # never a fault


def test_a_constant_subtracted_on_the_way_raises_the_drawn_indices() -> None:
    # the library's rope position: `pos - 3` picks the row, so `pos` is drawn from 3 up
    fn = _fn("pm: pl.Tensor[[1, 4], pl.INT32], f: pl.Tensor[[16, 8], pl.FP32], out: pl.Out[pl.Tensor[[1, 8], pl.FP32]]",
             "pl.Tensor[[1, 8], pl.FP32]", """
p: pl.Scalar[pl.INT32] = pl.tensor.read(pm, [0, 2])
row: pl.Scalar[pl.INDEX] = pl.cast(pl.cast(p, pl.INDEX) + -3, pl.INDEX)
t: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.load(f, [row, 0], [1, 8])
r: pl.Tensor[[1, 8], pl.FP32] = pl.store(t, [0, 0], out)
return r
""")
    draws = [random_inputs(fn, np.random.default_rng(seed)) for seed in range(30)]
    pm = np.stack([d["pm"] for d in draws])
    assert pm.min() >= 3
    assert pm.max() < 12
    for d in draws:
        _run(fn, d)  # never a fault
