"""`slotsat check` confirms the benchmark's generated kernels (`bench/generate.py`).

The generator writes kernels an author could have written: every load and store lands
inside its tensor on every iteration (including for the runtime stop `n` that `check`
draws in [0, 8]), and every author-declared slot subscript rotates with its loop's shape
(the rotation counter of `20-lower-pipeline-to-slots.md` §4.2, one slot per iteration).
So the differential interpreter runs every trial (no "outputs not verified"), the outputs
match, and the slot-privacy checker finds nothing, as written and after the slots pass.

Groups: every checked-in `bench/corpus/*.py` through the CLI; freshly generated small
kernels for several seeds through `check_module`; and a static sweep over many generated
kernels that every author subscript visits its slots in rotation.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from slotsat.app.cli import main
from slotsat.app.commands.check import CheckOptions, check_module
from slotsat.bench.generate import generate_kernel
from slotsat.core.dsl.parser import parse_source

ROOT = Path(__file__).resolve().parents[2]
BENCH_CORPUS = sorted((ROOT / "bench" / "corpus").glob("*.py"))


def test_the_bench_corpus_is_not_empty() -> None:
    assert BENCH_CORPUS


@pytest.mark.parametrize("path", BENCH_CORPUS, ids=[p.name for p in BENCH_CORPUS])
def test_check_confirms_the_bench_corpus(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["check", str(path)])
    out = capsys.readouterr().out
    assert status == 0, out
    lines = out.splitlines()
    assert lines[-1].endswith(": confirmed"), out
    for bad in ("error:", "DIFFER", "VIOLATED", "not verified", "stopped", "not checked"):
        assert bad not in out, out
    assert any("outputs match" in line for line in lines), out


@pytest.mark.parametrize("seed", [7, 42, 101, 2024, 31337])
def test_check_confirms_fresh_generated_kernels(seed: int) -> None:
    for loops in (2, 5):
        kernel = generate_kernel(seed, loops)
        module = parse_source(kernel.text, f"{kernel.name}.py")
        result = check_module(module, CheckOptions(seed=seed, trials=2))
        assert result.functions
        for fc in result.functions:
            where = f"{kernel.name}.{fc.function.name}"
            assert fc.rejection is None, (where, fc.rejection)
            assert fc.mismatch is None, (where, fc.mismatch)
            assert fc.unverified is None, (where, fc.unverified)
            assert fc.privacy_errors == [], (where, fc.privacy_errors)
            assert fc.trials_run == 2, where


_HEADER = re.compile(
    r"^(?P<indent> *)for (?P<var>\w+), \(\w+,\) in pl\.(?:range|pipeline)\("
    r"(?P<start>\d+), (?P<stop>\w+), (?P<step>\d+)"
)
_AUTHOR = re.compile(r'pl\.MemRef\("as\d+", slots=(?P<slots>\d+)\)\[(?P<index>[^\]]+)\]')


def _rotations(text: str) -> list[tuple[str, int, list[int]]]:
    """Every author subscript with the slots it takes on consecutive iterations of its loop
    (outer induction variables at their first value; a runtime stop read as 64)."""
    out: list[tuple[str, int, list[int]]] = []
    stack: list[tuple[int, str, int, int, int]] = []
    for line in text.splitlines():
        indent = len(line) - len(line.lstrip(" "))
        while stack and indent <= stack[-1][0]:
            stack.pop()
        header = _HEADER.match(line)
        if header is not None:
            stop = 64 if header["stop"] == "n" else int(header["stop"])
            stack.append((indent, header["var"], int(header["start"]), stop, int(header["step"])))
            continue
        author = _AUTHOR.search(line)
        if author is None:
            continue
        assert stack, line
        env = {var: start for _, var, start, _, _ in stack}
        _, var, start, stop, step = stack[-1]
        slots: list[int] = []
        for iv in range(start, stop, step):
            env[var] = iv
            slots.append(eval(author["index"], {}, dict(env)))  # DSL `//`, `%` floor like Python
        out.append((author["index"], int(author["slots"]), slots))
    return out


def test_every_author_subscript_rotates_with_its_loop() -> None:
    seen = 0
    for seed in range(60):
        for loops in (3, 8, 24):
            for index, n, slots in _rotations(generate_kernel(seed, loops).text):
                seen += 1
                assert all(0 <= s < n for s in slots), (seed, loops, index, slots)
                for a, b in itertools.pairwise(slots):
                    assert b == (a + 1) % n, (seed, loops, index, n, slots)
    assert seen > 100
