"""Paged tensor arguments (`slotsat/core/paged.py`): `slotsat check` on kernels whose tensor
parameters are too large to hold whole.

Groups: a `PagedTensor` reads and writes as the numpy array of its contents does (windows,
single elements, the flat view); runs' copies are independent and the drawn pages never
change; the page budget is a clean limit; the interpreter computes the same outputs from
paged arguments as from dense ones (every bundled kernel); `check` confirms a kernel with
a tensor too large to hold whole and still catches a wrong slot in it.
"""

# ruff: noqa: E501  (embedded kernel text keeps one statement per line, 10-dsl.md §9.1)

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from slotsat.app.cli import main
from slotsat.core import ir
from slotsat.core.dsl.parser import parse_file, parse_source
from slotsat.core.inputs import random_inputs
from slotsat.core.interp_errors import InterpreterLimit
from slotsat.core.interpreter import Interpreter, outputs_equal, outputs_identical
from slotsat.core.paged import PAGE_COLUMNS, PAGE_ELEMENTS, PAGED_ABOVE, PageBudget, PagedTensor, PageSource
from tests.reliability.wrong_slots import break_slots_pass

KERNELS = Path(__file__).resolve().parents[2] / "examples" / "kernels"


def _uniform(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.uniform(0.25, 2.0, n).astype(np.float32)


def _drawn(shape: tuple[int, ...], limit: int = 1 << 26) -> PagedTensor:
    return PagedTensor(shape, PageSource("t", shape, np.dtype(np.float32), _uniform, 7, PageBudget(limit)))


def _paged_copy(name: str, arr: np.ndarray) -> PagedTensor:
    """A paged tensor whose drawn pages hold exactly `arr`'s elements."""
    source = PageSource(name, tuple(arr.shape), arr.dtype, _uniform, 0, PageBudget(1 << 26))
    writer = PagedTensor(tuple(arr.shape), source)
    writer[...] = arr
    for k, page in writer.own.items():
        page.flags.writeable = False
        source.pages[k] = page
    return PagedTensor(tuple(arr.shape), source)


@st.composite
def _windows(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[int | slice, ...]]:
    """A shape of up to three dimensions spanning a few pages, and a key into it: per axis a
    unit-step slice or an integer (some keys shorter than the rank)."""
    rank = draw(st.integers(1, 3))
    dims = [draw(st.integers(1, 700)) for _ in range(rank)]
    while math.prod(dims) > 300_000:
        dims[dims.index(max(dims))] //= 2
    key: list[int | slice] = []
    for d in dims[:draw(st.integers(1, rank))]:
        lo = draw(st.integers(0, d - 1))
        if draw(st.booleans()):
            key.append(lo)
        else:
            key.append(slice(lo, draw(st.integers(lo, d))))
    return tuple(dims), tuple(key)


@given(_windows(), st.integers(0, 1 << 30))
def test_a_paged_tensor_reads_and_writes_as_its_array_does(window: tuple[tuple[int, ...], tuple[int | slice, ...]],
                                                          seed: int) -> None:
    shape, key = window
    paged = _drawn(shape)
    dense = paged.materialize().copy()
    assert np.array_equal(np.asarray(paged[key]), dense[key])
    values = np.random.default_rng(seed).uniform(-4, 4, np.shape(dense[key])).astype(np.float32)
    paged[key] = values
    dense[key] = values
    assert np.array_equal(paged.materialize(), dense)


@given(st.integers(1, 200_000), st.integers(0, 1 << 30))
def test_the_flat_view_gathers_and_scatters_through_the_same_pages(size: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    paged = _drawn((size,)).reshape(size)
    view = paged.reshape(-1)
    dense = paged.materialize().copy()
    addresses = rng.integers(0, size, (3, 5))
    assert np.array_equal(view[addresses], dense[addresses])
    view[addresses[0]] = -1.0
    dense[addresses[0]] = -1.0
    assert np.array_equal(paged.materialize(), dense)  # the view wrote its base


def test_a_runs_copy_writes_its_own_pages_and_never_the_drawn_ones() -> None:
    arg = _drawn((1000, 300))
    first, second = arg.fresh(), arg.fresh()
    before = arg[5:7, :].copy()
    first[5, 3] = 100.0
    assert first[5, 3] == 100.0
    assert np.array_equal(second[5:7, :], before)
    assert np.array_equal(arg[5:7, :], before)
    assert not arg.source.page(0).flags.writeable
    assert outputs_identical((first,), (second,)) == f"result 0: element [5, 3] is {float(before[0, 3])!r}, not 100.0"
    assert outputs_equal((second,), (arg.fresh(),)) is None


def test_a_difference_past_the_first_page_is_named_by_its_index_in_the_tensor() -> None:
    arg = _drawn((500, 1000))
    a, b = arg.fresh(), arg.fresh()
    b[321, 654] = 1e6  # far past the first page
    assert outputs_equal((a,), (b,), labels=["tensor 't'"]).startswith("tensor 't': element [321, 654] is 1000000.0")


def test_touching_more_pages_than_the_budget_is_a_limit_naming_the_tensor() -> None:
    arg = _drawn((4096, 4096), limit=3 * PAGE_ELEMENTS)  # pages of 64 x 64
    arg[0:32, 0:128]  # pages (0, 0) and (0, 1)
    arg[10:60, 130]  # page (0, 2)
    arg[63, 0:192]  # no new page
    with pytest.raises(InterpreterLimit, match=r"^too large to interpret: the runs on one input touched more than "
                       r"12,288 elements of the tensor parameters, drawn in pages of 4,096 \('t' is \[4096, 4096\]"):
        arg[64, 0]


def test_a_page_is_a_block_of_rows_and_columns() -> None:
    wide = _drawn((3, 1 << 22))  # one row per page would make a [3, 64] window touch three
    wide[0:3, 0:PAGE_COLUMNS]
    assert len(wide.source.pages) == 1
    flat = _drawn((1 << 21,))  # a single row: pages of PAGE_ELEMENTS consecutive elements
    flat[0:PAGE_ELEMENTS]
    assert len(flat.source.pages) == 1
    narrow = _drawn((1 << 20, 3))  # three columns: pages of PAGE_ELEMENTS // 3 rows
    narrow[0:PAGE_ELEMENTS // 3, :]
    assert len(narrow.source.pages) == 1
    narrow[PAGE_ELEMENTS // 3, 0]
    assert len(narrow.source.pages) == 2


@pytest.mark.parametrize("path", sorted(KERNELS.glob("*.py")), ids=lambda p: p.name)
def test_paged_arguments_give_every_bundled_kernel_the_outputs_dense_ones_do(path: Path) -> None:
    for program in parse_file(path).programs:
        for fn in program.functions:
            if not any(isinstance(p.type, ir.TensorType) for p in fn.params):
                continue
            args = random_inputs(fn, np.random.default_rng(11))
            paged = {k: _paged_copy(k, v) if isinstance(v, np.ndarray) else v for k, v in args.items()}
            dense_run, paged_run = Interpreter(), Interpreter()
            want = dense_run.run(fn, args)
            got = paged_run.run(fn, paged)
            assert outputs_identical(want, got) is None, fn.name
            for name, tensor in dense_run.tensors_after.items():
                assert isinstance(paged_run.tensors_after[name], PagedTensor)
                assert outputs_identical((tensor,), (paged_run.tensors_after[name],)) is None, (fn.name, name)


# Vocabulary-sized tensors: 152064 x 128 FP32 is 19.5 M elements, over PAGED_ABOVE; the
# kernel reads and writes 512 of their rows, pipelined.
_BIG = (KERNELS / "row_scale.py").read_text().replace("[[512, 128], pl.FP32]", "[[152064, 128], pl.FP32]")


def test_the_big_kernel_has_a_paged_parameter() -> None:
    fn = parse_source(_BIG, "big.py").programs[0].functions[0]
    args = random_inputs(fn, np.random.default_rng(0))
    assert 152064 * 128 > PAGED_ABOVE
    assert all(isinstance(args[name], PagedTensor) for name in ("x", "g", "out"))


def test_check_confirms_a_kernel_whose_tensor_is_too_large_to_hold_whole(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "big.py"
    path.write_text(_BIG)
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == f"check: {path}: 1 function(s), 1 loop(s): confirmed"
    assert any("outputs match (3 trials); privacy ok" in ln for ln in out), out


def test_check_still_catches_a_wrong_slot_in_a_kernel_with_a_paged_tensor(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    break_slots_pass(monkeypatch)
    path = tmp_path / "big.py"
    path.write_text(_BIG)
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert any("rotated: xt[r // 2 % 2], gt[r // 2 % 2]; outputs DIFFER" in ln for ln in out), out
    # the first difference is in the returned (paged) tensor, named by its index in it
    assert any("the transformed program differs on trial 1 (seed 0): result 0: element [0, 0] is " in ln
               for ln in out), out
