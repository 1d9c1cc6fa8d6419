"""On-core arrays (`pl.Array`, issue 16): `array.create`, `array.get_element` and
`array.update_element` become ptoas's `pto.declare_local_array`, `pto.local_array_get` and
`pto.local_array_set` on one storage per array, as the reference emits them; loop-carried and
branch-result arrays name their operand's storage. The IR's arrays are values, the emitted ones
storage written in place: a use of a version that is no longer the newest is a located error,
never a read of the later write."""

# ruff: noqa: E501  (embedded kernel text keeps one statement per line, 10-dsl.md §9.1)

from __future__ import annotations

import pytest

from tests.codegen.harness import compile_, error, kernel, lines

PARAMS = "idx: pl.Tensor[[1, 8], pl.INT32], src: pl.Tensor[[8, 32], pl.FP32], dst: pl.InOut[pl.Tensor[[32, 32], pl.FP32]]"
RET = "pl.Tensor[[32, 32], pl.FP32]"
HEAD = """
it: pl.Tile[[1, 8], pl.INT32, pl.Mem.Vec] = pl.load(idx, [0, 0], [1, 8])
st: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec] = pl.load(src, [0, 0], [1, 32])
v: pl.Scalar[pl.INT32] = pl.tile.read(it, [0, 0])
arr: pl.Array[4, pl.INT32] = pl.array.create(4, dtype=pl.INT32)
"""
TAIL = """
r: pl.Scalar[pl.INDEX] = pl.cast(got, pl.INDEX)
dst = pl.store(st, [r, 0], dst)
return dst
"""


def _emit(body: str) -> str:
    return compile_(kernel(HEAD + body + TAIL, params=PARAMS, ret=RET)).pto_text


def _error(body: str) -> str:
    err = error(kernel(HEAD + body + TAIL, params=PARAMS, ret=RET))
    return str(err)


def test_an_array_is_one_storage_written_in_place() -> None:
    text = _emit("""
a1: pl.Array[4, pl.INT32] = pl.array.update_element(arr, 0, v)
t: pl.Scalar[pl.INT32] = pl.array.get_element(a1, 0)
a2: pl.Array[4, pl.INT32] = pl.array.update_element(a1, 1, t)
got: pl.Scalar[pl.INT32] = pl.array.get_element(a2, 1)
""")
    assert lines(text, "pto.declare_local_array") == ["%arr = pto.declare_local_array -> !pto.local_array<4xi32>"]
    assert lines(text, "pto.local_array_set") == [
        "pto.local_array_set %arr[%c0_index], %v : !pto.local_array<4xi32>, i32",
        "pto.local_array_set %arr[%c1_index], %t : !pto.local_array<4xi32>, i32",
    ]
    assert lines(text, "pto.local_array_get") == [
        "%t = pto.local_array_get %arr[%c0_index] : !pto.local_array<4xi32> -> i32",
        "%got = pto.local_array_get %arr[%c1_index] : !pto.local_array<4xi32> -> i32",
    ]


def test_a_value_of_another_integer_dtype_is_converted_to_the_element_s() -> None:
    text = _emit("""
n: pl.Scalar[pl.INDEX] = pl.cast(v, pl.INDEX)
a1: pl.Array[4, pl.INT32] = pl.array.update_element(arr, 2, n)
got: pl.Scalar[pl.INT32] = pl.array.get_element(a1, 2)
""")
    (store,) = lines(text, "pto.local_array_set")
    assert store.endswith(": !pto.local_array<4xi32>, i32")
    assert "%c2_index]" in store


def test_a_loop_carried_array_and_a_branch_result_name_the_same_storage() -> None:
    text = _emit("""
for i in pl.range(4):
    w: pl.Scalar[pl.INT32] = pl.tile.read(it, [0, i])
    arr = pl.array.update_element(arr, i, w)
if v > 0:
    arr = pl.array.update_element(arr, 0, v)
got: pl.Scalar[pl.INT32] = pl.array.get_element(arr, 0)
""")
    assert len(lines(text, "pto.declare_local_array")) == 1
    sets = lines(text, "pto.local_array_set")
    assert [s.split("[")[0] for s in sets] == ["pto.local_array_set %arr"] * 2
    assert not [s for s in lines(text, "scf.") if "->" in s or "iter_args" in s]  # no array is an SSA result
    assert lines(text, "pto.local_array_get")[0].startswith("%got = pto.local_array_get %arr[")


@pytest.mark.parametrize(("body", "why"), [
    ("""
a1: pl.Array[4, pl.INT32] = pl.array.update_element(arr, 0, v)
got: pl.Scalar[pl.INT32] = pl.array.get_element(arr, 0)
""", "array 'arr' is used after a later version of it was written before this use"),
    ("""
if v > 0:
    b: pl.Array[4, pl.INT32] = pl.array.update_element(arr, 0, v)
got: pl.Scalar[pl.INT32] = pl.array.get_element(arr, 0)
""", "array 'arr' is used after a branch of an if wrote it without passing the new version out"),
])
def test_a_use_of_an_array_version_that_is_no_longer_the_newest_is_an_error(body: str, why: str) -> None:
    assert why in _error(body)


def test_an_array_written_in_a_loop_that_does_not_carry_it_is_an_error() -> None:
    message = _error("""
for i in pl.range(4):
    seen: pl.Scalar[pl.INT32] = pl.array.get_element(arr, 0)
    b: pl.Array[4, pl.INT32] = pl.array.update_element(arr, i, seen)
got: pl.Scalar[pl.INT32] = pl.array.get_element(arr, 0)
""")
    assert "is written in a loop that does not carry it" in message


def test_an_array_of_a_runtime_extent_is_an_error() -> None:
    src = kernel("""
n: pl.Scalar[pl.INDEX] = pl.tensor.dim(idx, 1)
arr: pl.Array[n, pl.INT32] = pl.array.create(n, dtype=pl.INT32)
return dst
""", params=PARAMS, ret=RET)
    assert "needs a literal extent" in str(error(src))


def test_an_array_created_in_a_loop_body_is_that_iteration_s_own() -> None:
    text = _emit("""
for i in pl.range(4):
    tmp: pl.Array[2, pl.INT32] = pl.array.create(2, dtype=pl.INT32)
    tmp = pl.array.update_element(tmp, 0, v)
    w: pl.Scalar[pl.INT32] = pl.array.get_element(tmp, 0)
    arr = pl.array.update_element(arr, i, w)
got: pl.Scalar[pl.INT32] = pl.array.get_element(arr, 3)
""")
    assert len(lines(text, "pto.declare_local_array")) == 2
