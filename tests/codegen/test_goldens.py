"""Goldens for every corpus kernel (`examples/kernels/*.py`), both planners, both modes.

`tests/golden/<case>.<planner>.<mode>.pto` holds the exact module; a program the pipeline
rejects has `<case>.<planner>.<mode>.err` with the one-line error instead. Files are
rewritten only with `pytest --update-goldens`. Every emitted module must also parse,
verify and print back identically through the xdsl `pto` dialect (`lowering/pto_dialect.py`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from slotsat.app.pipeline import CompileOptions, compile_source
from slotsat.core.errors import SlotsatError
from slotsat.core.options import Mode, Planner
from slotsat.lowering.pto_dialect import normalize, parse_and_verify

ROOT = Path(__file__).resolve().parents[2]
KERNELS = sorted((ROOT / "examples" / "kernels").glob("*.py"))
GOLDEN = ROOT / "tests" / "golden"
CASES = [(k, p, m) for k in KERNELS for p in Planner for m in Mode]


def _compile(kernel: Path, planner: Planner, mode: Mode) -> tuple[str, str]:
    """(suffix, text): (".pto", module) or (".err", the rendered error line)."""
    rel = kernel.relative_to(ROOT).as_posix()
    try:
        result = compile_source(kernel.read_text(), rel, CompileOptions(planner=planner, mode=mode))
    except SlotsatError as err:
        return ".err", err.render(rel) + "\n"
    return ".pto", result.pto_text


def test_the_corpus_is_not_empty() -> None:
    assert KERNELS, "examples/kernels holds no kernel"


@pytest.mark.parametrize(
    ("kernel", "planner", "mode"), CASES, ids=[f"{k.stem}-{p.value}-{m.value}" for k, p, m in CASES]
)
def test_golden(kernel: Path, planner: Planner, mode: Mode, update_goldens: bool) -> None:
    suffix, text = _compile(kernel, planner, mode)
    stem = f"{kernel.stem}.{planner.value}.{mode.value}"
    path = GOLDEN / f"{stem}{suffix}"
    other = GOLDEN / f"{stem}{'.err' if suffix == '.pto' else '.pto'}"
    if update_goldens:
        GOLDEN.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        if other.exists():
            other.unlink()
    assert path.exists(), f"no golden {path.name}; run pytest --update-goldens"
    assert text == path.read_text()
    if suffix == ".pto":
        assert normalize(parse_and_verify(text)) == normalize(text)


@pytest.mark.parametrize("kernel", KERNELS, ids=[k.stem for k in KERNELS])
def test_output_is_deterministic(kernel: Path) -> None:
    assert _compile(kernel, Planner.PTOAS, Mode.SLOTSAT) == _compile(kernel, Planner.PTOAS, Mode.SLOTSAT)


@pytest.mark.parametrize("kernel", KERNELS, ids=[k.stem for k in KERNELS])
def test_every_slot_operand_is_accepted_in_the_default_mode(kernel: Path) -> None:
    result = compile_source(kernel.read_text(), kernel.name, CompileOptions())
    rejected = [(g.tile, g.matcher_class.value) for g in result.gets if not g.accepted]
    assert not rejected


def test_pypto_mode_emits_the_reference_remsi_for_aligned_unit_step_loops() -> None:
    """A rotation on a step-1 loop with `start % F == 0` (F = 2) selects `arith.remsi %i, %c2_index`."""
    import re

    header = re.compile(r"scf\.for (%\w+) = %c(\d+)_index to \S+ step %c1_index")
    seen = 0
    for kernel in KERNELS:
        text = compile_source(kernel.read_text(), kernel.name, CompileOptions(mode=Mode.PYPTO)).pto_text
        defs: dict[str, str] = {}
        loops: list[tuple[int, str | None]] = []
        for raw in text.splitlines():
            line = raw.strip()
            depth = len(raw) - len(raw.lstrip())
            while loops and loops[-1][0] >= depth:
                loops.pop()
            match = header.search(line)
            if "scf.for" in line:
                aligned = match is not None and int(match.group(2)) % 2 == 0
                loops.append((depth, match.group(1) if match is not None and aligned else None))
            if " = " in line:
                defs[line.split(" = ")[0]] = line.split(" = ", 1)[1]
            get = re.search(r"multi_tile_get %pipe_\w+\[(%\w+)\] .*count=2>", line)
            if get is not None and loops and loops[-1][1] is not None:
                seen += 1
                assert defs[get.group(1)] == f"arith.remsi {loops[-1][1]}, %c2_index : index"
    assert seen
