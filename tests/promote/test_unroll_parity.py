"""pto-unroll-loops matches ptoas's unroll (issue 15.2): the facts of ptoas's lit cases for
`pto.unroll_factor` and `pto.unroll = "full"`, as our own inputs checked with `// CHECK:` lines
(`tests/promote/unroll/*.pto`, run through `slotsat promote` and the `filecheck` package),
and the factor path evaluated against the loop it replaces.

Groups: the CHECK files; the unrolled program equals the original on every tried input
(static and runtime bounds, carried values, runtime stops below the start); the single
iteration left by a factor is folded.
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from slotsat.lowering.mlir_io import Chunk, make_context, parse_chunk
from tests.promote.harness import promote
from tests.promote.mlir_eval import run_function

CHECKS = sorted((Path(__file__).parent / "unroll").glob("*.pto"))


def _args(path: Path) -> list[str]:
    for line in path.read_text().splitlines():
        if line.startswith("// ARGS:"):
            return line.removeprefix("// ARGS:").split()
    raise AssertionError(f"{path.name} has no ARGS line")


@pytest.mark.parametrize("path", CHECKS, ids=lambda p: p.stem)
def test_check_file(path: Path, tmp_path: Path) -> None:
    result = promote(path, *_args(path))
    assert result.status == 0, result.stderr
    output = tmp_path / "output.txt"
    output.write_text(result.stderr + result.stdout)
    check = subprocess.run([sys.executable, "-m", "filecheck", str(path), "--input-file", str(output)],
                           capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stdout + check.stderr


def _loop_function(rng: random.Random) -> tuple[str, int, bool]:
    """A random factor loop: constant or runtime bounds, a constant step, maybe a carry."""
    factor = rng.randint(2, 6)
    step = rng.choice([1, 1, 2, 3, 5])
    lb = "%lo" if rng.random() < 0.3 else "%c_lb"
    ub = "%hi" if rng.random() < 0.6 else "%c_ub"
    carry = rng.random() < 0.5
    lines = [
        "module {",
        "  func.func @f(%lo: index, %hi: index) -> index {",
        "    %m = memref.alloc() : memref<64xindex>",
        f"    %c_lb = arith.constant {rng.randint(-6, 6)} : index",
        f"    %c_ub = arith.constant {rng.randint(-6, 30)} : index",
        f"    %c_step = arith.constant {step} : index",
        "    %c3 = arith.constant 3 : index",
        "    %c0 = arith.constant 0 : index",
    ]
    if carry:
        lines += [
            f"    %r = scf.for %i = {lb} to {ub} step %c_step iter_args(%acc = %c3) -> (index) {{",
            "      memref.store %i, %m[%acc] : memref<64xindex>",
            "      %t = arith.muli %acc, %c3 : index",
            "      %u = arith.addi %t, %i : index",
            "      scf.yield %u : index",
            f"    }} {{pto.unroll_factor = {factor} : i32}}",
            "    return %r : index",
        ]
    else:
        lines += [
            f"    scf.for %i = {lb} to {ub} step %c_step {{",
            "      memref.store %i, %m[%c0] : memref<64xindex>",
            f"    }} {{pto.unroll_factor = {factor} : i32}}",
            "    return %c0 : index",
        ]
    lines += ["  }", "}"]
    return "\n".join(lines) + "\n", factor, carry


Outcome = tuple[list[int], list[tuple[int, tuple[int, ...]]]]


def _evaluate_all(text: str, inputs: list[tuple[int, int]]) -> list[Outcome]:
    module, _ = parse_chunk(make_context(), Chunk(text, 0), "<test>")
    return [run_function(module, "f", args) for args in inputs]


def _evaluate(text: str, args: tuple[int, int]) -> Outcome:
    return _evaluate_all(text, [args])[0]


def test_the_unrolled_loop_equals_the_original_on_every_input(tmp_path: Path) -> None:
    rng = random.Random(1505)
    inputs = [(0, 0), (0, 17), (-4, 9), (3, 3), (5, -2), (2, 29), (-7, 1), (1, 13)]
    for case in range(80):
        text, factor, _ = _loop_function(rng)
        path = tmp_path / f"case{case}.pto"
        path.write_text(text)
        result = promote(path, "--unroll")
        assert result.status == 0, result.stderr
        assert "pto.unroll_factor" not in result.stdout or "dropping the hint" in result.stderr
        assert _evaluate_all(result.stdout, inputs) == _evaluate_all(text, inputs), (case, factor, text)


def test_a_runtime_stop_below_the_start_runs_no_iteration(tmp_path: Path) -> None:
    # The clamp keeps both loops empty; without it the unsigned trip count would wrap.
    text, _, _ = _loop_function(random.Random(3))
    text = text.replace("to %c_ub", "to %hi")
    path = tmp_path / "below.pto"
    path.write_text(text)
    result = promote(path, "--unroll")
    assert "arith.maxsi %hi" in result.stdout
    assert _evaluate(result.stdout, (0, -100))[1] == []


def test_no_loop_is_left_when_the_factor_covers_the_trip_count(tmp_path: Path) -> None:
    text = (
        "module {\n  func.func @f(%lo: index, %hi: index) -> index {\n"
        "    %m = memref.alloc() : memref<8xindex>\n    %c0 = arith.constant 0 : index\n"
        "    %c1 = arith.constant 1 : index\n    %c4 = arith.constant 4 : index\n"
        "    scf.for %i = %c0 to %c4 step %c1 {\n      memref.store %i, %m[%i] : memref<8xindex>\n"
        "    } {pto.unroll_factor = 4 : i32}\n    return %c0 : index\n  }\n}\n"
    )
    path = tmp_path / "covers.pto"
    path.write_text(text)
    result = promote(path, "--unroll")
    assert result.status == 0
    assert "scf.for" not in result.stdout
    assert _evaluate(result.stdout, (0, 0))[1] == [(i, (i,)) for i in range(4)]
