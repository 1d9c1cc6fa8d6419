"""Codegen of the reference's printed IR for this project's kernels (`tests/data/printed/`).

`tools/gen_printed.py` commits, per kernel of `tools/printed_kernels.py`, what the reference
prints at the hand-off point (`NAME.pre.py`) and the PTO module the reference's own code
generator emits for the kernel (`NAME.ref.pto`). For each kernel:

- slotsat's module is the golden `tests/golden/printed/NAME.pto` (rewritten only with
  `pytest --update-goldens`) and parses, verifies and prints back through the xdsl dialect;
- every PTO op line slotsat emits, with SSA names blanked (op, operand and result types,
  attributes), is one the reference emits, and the other way round: the two code
  generators spell the same ops the same way. Buffer and view set-up (`alloc_tile`,
  `make_tensor_view`, `partition_view`, multi-buffer regions) and index arithmetic are left
  out: the planners and the index engines differ by design (`05-decisions.md`);
- under the PYPTO planner, the address oracle (`address_oracle.py`) finds no two live tiles
  sharing a byte;
- for the kernels of `SAME_MODULE`, `--mode pypto` gives the reference's whole module, operation
  for operation and constant for constant (SSA names aside).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from slotsat.app.pipeline import CompileOptions, compile_source
from slotsat.core.errors import PassError
from slotsat.core.options import Planner
from slotsat.lowering.pto_dialect import normalize, parse_and_verify
from tests.codegen.address_oracle import check_module
from tests.codegen.harness import PRINTED, references_module

ROOT = Path(__file__).resolve().parents[2]
KERNELS = sorted(p.name.removesuffix(".pre.py") for p in PRINTED.glob("*.pre.py"))
GOLDEN = ROOT / "tests" / "golden" / "printed"
SETUP_OPS = frozenset({"pto.alloc_tile", "pto.make_tensor_view", "pto.partition_view", "pto.alloc_multi_tile",
                       "pto.multi_tile_get"})
_OP_LINE = re.compile(r"(?:%[\w.$-]+(?:, %[\w.$-]+)* = )?(pto\.[\w.]+)(.*)$")
_SSA = re.compile(r"%[\w.$-]+")


def op_lines(text: str) -> set[str]:
    """The PTO op lines of a module other than set-up, SSA names blanked."""
    out: set[str] = set()
    for raw in text.splitlines():
        m = _OP_LINE.match(raw.strip())
        if m is None or m.group(1) in SETUP_OPS:
            continue
        out.add(m.group(1) + " ".join(_SSA.sub("%", m.group(2)).split()))  # spacing is not spelling
    return out


def _emit(name: str) -> str:
    path = PRINTED / f"{name}.pre.py"
    return compile_source(path.read_text(), path.relative_to(ROOT).as_posix()).pto_text


def test_the_printed_corpus_has_reference_modules() -> None:
    assert KERNELS
    assert all((PRINTED / f"{name}.ref.pto").exists() for name in KERNELS)


@pytest.mark.parametrize("name", KERNELS)
def test_printed_kernel_golden(name: str, update_goldens: bool) -> None:
    text = _emit(name)
    path = GOLDEN / f"{name}.pto"
    if update_goldens:
        GOLDEN.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert path.exists(), f"no golden {path.name}; run pytest --update-goldens"
    assert text == path.read_text()
    assert normalize(parse_and_verify(text)) == normalize(text)


SAME_MODULE = ["acc_into_mat", "col_sum_sort", "cube_extract", "dist_view_remote", "fill_pad",
               "float_scalars", "gather_mask", "gather_rows", "gather_rows_mat", "merge_sort",
               "reinterpret_bits", "row_scale_pipe", "row_sum_cast", "scalars_and_casts", "scatter_index",
               "matmul_init_cond", "scatter_mask", "valid_store", "valid_view", "while_rows"]
"""The printed kernels whose `--mode pypto` module is the reference's, up to SSA names, beside
those the tests of their ops check so (`causal_mask`, `gemv_decode`, `prefetch_rows` and three
`dist_*` kernels); the rest differ by design (the planners, the index engine's sharing, the
multi-buffer regions)."""


@pytest.mark.parametrize("name", SAME_MODULE)
def test_the_pypto_mode_module_is_the_references(name: str) -> None:
    ours, theirs = references_module(name)
    assert ours == theirs


@pytest.mark.parametrize("name", KERNELS)
def test_ops_are_spelled_as_the_reference_spells_them(name: str) -> None:
    ours = op_lines(_emit(name))
    theirs = op_lines((PRINTED / f"{name}.ref.pto").read_text())
    assert ours, "slotsat emitted no op"
    assert sorted(ours - theirs) == [], "ops only slotsat emits"
    assert sorted(theirs - ours) == [], "ops only the reference emits"


def signatures(text: str) -> list[str]:
    return sorted(line.strip() for line in text.splitlines() if line.strip().startswith("func.func @"))


@pytest.mark.parametrize("name", KERNELS)
def test_signatures_are_the_references(name: str) -> None:
    """Parameters in the reference's order (tensors first, then scalars, then the symbolic
    dimensions and the SPMD identity): the runtime passes arguments in that layout."""
    assert signatures(_emit(name)) == signatures((PRINTED / f"{name}.ref.pto").read_text())


def test_the_comparison_sees_a_misspelled_attribute() -> None:
    """The comparison is not vacuous: an attribute case the reference does not print differs."""
    text = _emit("dyn_rms_norm")
    assert "round_mode ROUND" in text
    theirs = op_lines((PRINTED / "dyn_rms_norm.ref.pto").read_text())
    assert op_lines(text.replace("round_mode ROUND", "round_mode RINT", 1)) - theirs


CROSS_CORE = frozenset({"jit_mixed_gemm_add", "jit_mixed_scale_gemm"})
"""Mixed kernels split into AIC / AIV halves joined by a cross-core pipe: slotsat's PYPTO
planner does not reserve the pipe's slot buffer, so codegen declines them under it."""


PTOAS_ONLY = CROSS_CORE | {"slice_col_expand"}
"""Also declined under the PYPTO planner: a slice taken by tile.col_expand_mul is copied into
a buffer of its own, which that planner does not place."""


@pytest.mark.parametrize("name", sorted(PTOAS_ONLY))
def test_the_pypto_planner_declines_cross_core_pipes(name: str) -> None:
    path = PRINTED / f"{name}.pre.py"
    with pytest.raises(PassError, match="only under the ptoas planner") as err:
        compile_source(path.read_text(), path.name, CompileOptions(planner=Planner.PYPTO))
    assert err.value.span.line > 0


@pytest.mark.parametrize("name", [k for k in KERNELS if k not in PTOAS_ONLY])
def test_the_pypto_planner_addresses_pass_the_oracle(name: str) -> None:
    """The printed kernels' index arithmetic (symbolic dimensions, the SPMD identity,
    `pl.min` valid extents) under the PYPTO planner: no two live tiles share a byte."""
    path = PRINTED / f"{name}.pre.py"
    text = compile_source(path.read_text(), path.name, CompileOptions(planner=Planner.PYPTO)).pto_text
    assert normalize(parse_and_verify(text)) == normalize(text)
    assert check_module(text, ((0,), (3,), (7, 1, 2), (64, 5, 0, 1))) == []
