"""The reference as a live oracle on kernel source files both compilers read (marker `pypto`).

slotsat parses a kernel file of its DSL subset itself; the reference runs the same file
through its front end and passes to the hand-off point and through its LowerPipelineToSlots.
The reference's spans point into the same file, so loops are matched by function, pre-order
position and line. Per loop the decisions and slot indices must agree wherever the two designs
agree, and differ elsewhere only as `05-decisions.md` says (`harness.compare`).

- every bundled kernel (`examples/kernels`) goes through the reference, except the four that
  use slotsat-only op forms, pinned below with the reference's reason;
- a few hundred hypothesis-generated tile kernels (`generate.tile_kernels`);
- the slotted (and the replicated) program slotsat prints for each bundled kernel parses back
  in the reference (`pl.parse_program`).

The same comparisons on the IR the reference prints at the hand-off point, which slotsat
parses itself, are in `test_printed_ir.py`.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from slotsat.analysis.budget import Backend
from slotsat.app.commands.slots import slots_report
from slotsat.bridge import Reference
from slotsat.core import ir
from slotsat.core.dsl.parser import parse_file, parse_source
from slotsat.core.dsl.printer import print_module
from slotsat.core.errors import SlotsatError
from tests.oracle.generate import tile_kernels
from tests.oracle.harness import compare, reference_verdicts, slotsat_verdicts, view_gate_loops

pytestmark = pytest.mark.pypto

KERNELS = Path(__file__).resolve().parents[2] / "examples" / "kernels"
BUNDLED = sorted(p.name for p in KERNELS.glob("*.py"))

REJECTED = {
    "rms_norm.py": "22:57: error: pl.row_sum: Tile inputs require tmp_tile",
    "softmax_rows.py": "16:56: error: pl.row_max: Tile inputs require tmp_tile",
    "tail_mask.py": ("10:5: error: Failed to parse function 'kernel': For loop has 1 iteration arguments but "
                     "0 return variables. They must match. (Check your function definition for errors) "
                     "(caused by TypeError: __init__(): incompatible function arguments."),
    "two_programs.py": "18:57: error: Unknown operation 'pl.muls'",
}
"""Bundled kernels the reference does not accept: they call `pl.row_sum` / `pl.row_max`
without the reference's temporary tile, annotate a `pl.TileView`, or call `pl.muls`, forms of
slotsat's DSL subset the reference spells differently. Pinned so that a change on either side
shows up here."""

EXPLAINED = {
    "block_sum_scale.py": ["decision 1: loop shapes"],  # start 1 with stage 2
    "declined_pipelines.py": ["decision 8: negative start"],  # the reference slots pl.pipeline(-2, 2, ...)
    "matmul_k.py": ["decision 1: loop shapes"],  # start 1 with stage 2
    "strided_exp.py": ["decision 1: loop shapes"],  # step 64
    "unaligned_start.py": ["decision 1: loop shapes"],  # start 3 with stage 4
}
"""The bundled kernels whose decisions differ, and why; every other one agrees loop by loop."""


@pytest.mark.parametrize("name", BUNDLED)
def test_every_bundled_kernel_reaches_the_hand_off_point_or_is_a_pinned_rejection(
        reference: Reference, name: str) -> None:
    if name in REJECTED:
        with pytest.raises(SlotsatError) as info:
            reference.compile(str(KERNELS / name))
        assert info.value.render().startswith(f"{KERNELS / name}:{REJECTED[name]}")
        return
    kernels = reference.compile(str(KERNELS / name), oracle=True)
    assert kernels
    for k in kernels:
        assert k.handoff.startswith(f"# pypto.program: {k.name}\n")
        assert k.errors == ()


@pytest.mark.parametrize("name", [n for n in BUNDLED if n not in REJECTED])
def test_slotsat_decides_every_loop_of_a_bundled_kernel_as_the_reference_does(
        reference: Reference, name: str) -> None:
    (kernel,) = reference.compile(str(KERNELS / name), oracle=True)
    module = parse_file(KERNELS / name)
    ref = reference_verdicts(kernel)
    mine = slotsat_verdicts(module)
    result = compare(ref, mine, same_lines=True)
    result.assert_agree(name)
    assert [why for _, _, why in result.explained] == EXPLAINED.get(name, [])
    # the default view gate (decision 2) adds only its own differences
    compare(ref, slotsat_verdicts(module, compat=False), same_lines=True,
            view_gate_differs=view_gate_loops(module)).assert_agree(f"{name} without --compat pypto")


def test_the_bundled_kernels_exercise_both_decisions_and_slot_indices(reference: Reference) -> None:
    seen: Counter[str] = Counter()
    for name in BUNDLED:
        if name in REJECTED:
            continue
        for kernel in reference.compile(str(KERNELS / name), oracle=True):
            seen.update(v.decision for v in reference_verdicts(kernel))
    assert seen["slotted"] >= 4
    assert seen["declined"] >= 4


@pytest.mark.parametrize("replicate", [False, True], ids=["slotted", "replicated"])
@pytest.mark.parametrize("name", [n for n in BUNDLED if n not in REJECTED])
def test_the_program_slotsat_prints_parses_back_in_the_reference(reference: Reference, name: str,
                                                                 replicate: bool) -> None:
    report = slots_report(parse_file(KERNELS / name), backend=Backend.ASCEND910B, replicate=replicate)
    for program in report.module.programs:
        ok, message = reference.parse(print_module(ir.Module((program,))))
        assert ok, f"{name}: {message}"


@pytest.fixture(scope="module")
def kernel_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("oracle")


_SEEN: Counter[str] = Counter()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tile_kernels())
def test_generated_tile_kernels_are_decided_as_the_reference_decides_them(
        reference: Reference, kernel_dir: Path, text: str) -> None:
    path = kernel_dir / f"k{_SEEN['kernels']}.py"
    _SEEN["kernels"] += 1
    path.write_text(text)
    module = parse_source(text, str(path))
    (kernel,) = reference.compile(str(path), oracle=True)
    ref = reference_verdicts(kernel)
    result = compare(ref, slotsat_verdicts(module), same_lines=True)
    result.assert_agree(text)
    compare(ref, slotsat_verdicts(module, compat=False), same_lines=True,
            view_gate_differs=view_gate_loops(module)).assert_agree(text)
