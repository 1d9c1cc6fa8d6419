"""What the emitted PTO computes, run on numbers (`tests/codegen/value_oracle.py`), against
the project's interpreter on the IR: the bundled kernels, the reference-printed test kernels
and the kernels whose yielded views carry-copies moves, under both planners. The oracle is
independent of codegen's buffer classes and of the planner's addresses, so a result buffer
nothing writes (the bug the yielded-view kernels had) shows as a wrong output; a control
drops one `pto.tmov` and expects the difference."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slotsat.app.pipeline import CompileOptions, compile_source
from slotsat.core import ir
from slotsat.core.errors import SlotsatError
from slotsat.core.inputs import random_inputs
from slotsat.core.interp_errors import InterpreterError
from slotsat.core.options import Planner
from tests.codegen.test_carry_copies import IF_OF_VIEWS, LOOP_OF_A_VIEW
from tests.codegen.value_oracle import Unmodelled, compare
from tests.oracle.generate import tile_kernels

ROOT = Path(__file__).resolve().parents[2]
CORPUS = sorted([*(ROOT / "slotsat" / "examples" / "kernels").glob("*.py"),
                 *(ROOT / "tests" / "data" / "printed").glob("*.pre.py")])


def _kernels(text: str, module: ir.Module) -> list[tuple[ir.Function, str]]:
    """The IR functions the module emitted, each with its emitted name, in order."""
    emitted = re.findall(r"func\.func @(\w+)\(", text)
    fns = [fn for p in module.programs for fn in p.functions
           if any(e == fn.name or re.fullmatch(re.escape(fn.name) + r"_\d+", e) for e in emitted)]
    assert len(fns) == len(emitted)
    return list(zip(fns, emitted, strict=True))


@pytest.mark.parametrize("planner", list(Planner), ids=[p.value for p in Planner])
def test_the_corpus_computes_what_its_ir_computes(planner: Planner) -> None:
    """Under the PYPTO planner the tiles sit at the addresses it gave them, so a reuse of bytes
    still in use shows as a wrong output too."""
    compared = 0
    for path in CORPUS:
        try:
            result = compile_source(path.read_text(), str(path), CompileOptions(planner=planner))
        except SlotsatError:
            continue  # a kernel slotsat declines (its own tests say why)
        for fn, name in _kernels(result.pto_text, result.module):
            try:
                args = random_inputs(fn, np.random.default_rng(0))
                difference = compare(fn, result.pto_text, args, name)
            except (Unmodelled, InterpreterError):
                continue  # an op or a run only one of the two evaluators models
            assert difference is None, f"{path.name}: {name}: {difference}"
            compared += 1
    assert compared >= 40, compared


@pytest.mark.parametrize("src", [IF_OF_VIEWS, LOOP_OF_A_VIEW], ids=["if", "loop"])
def test_a_yielded_view_reaches_the_output(src: str) -> None:
    result = compile_source(src, "k.py", CompileOptions())
    ((fn, name),) = _kernels(result.pto_text, result.module)
    for n in (0, 1):
        args = {"x": np.linspace(0.5, 2.0, 16, dtype=np.float32).reshape(16, 1), "n": n,
                "out": np.zeros((16, 1), np.float32)}
        assert compare(fn, result.pto_text, args, name) is None
    # the control: without the moves the results never reach the store
    broken = "\n".join(line for line in result.pto_text.splitlines() if "pto.tmov" not in line)
    args = {"x": np.linspace(0.5, 2.0, 16, dtype=np.float32).reshape(16, 1), "n": 0,
            "out": np.zeros((16, 1), np.float32)}
    assert compare(fn, broken, args, name) is not None


@settings(max_examples=25)
@given(tile_kernels(), st.sampled_from(list(Planner)))
def test_generated_kernels_compute_what_their_ir_computes(src: str, planner: Planner) -> None:
    """The generated tile kernels of the reference oracle (`tests/oracle/generate.py`: pipelines
    of every shape, replicated or slotted, element-wise bodies, views, runtime valid shapes),
    compiled and run on numbers, against the interpreter on their IR."""
    try:
        result = compile_source(src, "g.py", CompileOptions(planner=planner))
    except SlotsatError:
        return  # a kernel slotsat declines; the oracle tests say why
    for fn, name in _kernels(result.pto_text, result.module):
        try:
            difference = compare(fn, result.pto_text, random_inputs(fn, np.random.default_rng(0)), name)
        except (Unmodelled, InterpreterError):
            continue
        assert difference is None, f"{name}: {difference}\n{src}"


@pytest.mark.parametrize("planner", list(Planner), ids=[p.value for p in Planner])
def test_a_gather_with_indices_outside_its_table_computes_what_its_ir_computes(planner: Planner) -> None:
    """`memory_gather`: rows out of range read as zero, element offsets wrap; indices drawn
    half outside the table. The control reads the rows clamped instead, which differs."""
    path = ROOT / "tests" / "data" / "printed" / "memory_gather.pre.py"
    result = compile_source(path.read_text(), str(path), CompileOptions(planner=planner))
    ((fn, name),) = _kernels(result.pto_text, result.module)
    rng = np.random.default_rng(7)
    args = {"table__ssa_v0": rng.standard_normal((64, 16)).astype(np.float32),
            "rows__ssa_v0": rng.integers(-64, 128, (4, 8)).astype(np.int32),
            "offsets__ssa_v0": rng.integers(-1024, 2048, (32, 16)).astype(np.int32),
            "out__ssa_v0": np.zeros((32, 16), np.float32)}
    assert compare(fn, result.pto_text, args, name) is None
    clamped = result.pto_text.replace("#pto<gather_oob zero>", "#pto<gather_oob clamp>")
    assert clamped != result.pto_text
    assert compare(fn, clamped, args, name) is not None


@pytest.mark.parametrize("planner", list(Planner), ids=[p.value for p in Planner])
def test_a_tile_carried_through_a_while_loop_keeps_what_its_body_adds(planner: Planner) -> None:
    """`while_accumulate`: a tile accumulated by a pipeline loop inside a while loop. slotsat's
    module accumulates in the carry's buffer and computes what the IR computes. The control is
    the reference's own module for the kernel (`.ref.pto`): it adds into a fresh tile that
    nothing moves back into the carry, so the store writes the first load alone."""
    path = ROOT / "tests" / "data" / "printed" / "while_accumulate.pre.py"
    result = compile_source(path.read_text(), path.name, CompileOptions(planner=planner))
    ((fn, name),) = _kernels(result.pto_text, result.module)
    args = random_inputs(fn, np.random.default_rng(0))
    assert compare(fn, result.pto_text, args, name) is None
    reference = "".join(path.with_name("while_accumulate.ref.pto").read_text().splitlines(keepends=True)[1:])
    assert compare(fn, reference, args, name) is not None
