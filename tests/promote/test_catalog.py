"""The scenario catalog of `50-persistent-promotion.md` §14, run through the CLI.

Groups: the embedded expectations of every `data/*.pto` file (one test per RUN line);
idempotence (#31); marker vanishing (#63); static slots after unrolling (#66); the file
set covers every scenario number.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.promote.harness import DATA, check_run, load_runs, loop_attributes, promote

FILES = sorted(DATA.glob("*.pto"))
CASES = [(path, run) for path in FILES for run in load_runs(path)]


@pytest.mark.parametrize(("path", "run"), CASES, ids=[f"{p.stem}-{r.tag}" for p, r in CASES])
def test_catalog_file(path: Path, run: object) -> None:
    from tests.promote.harness import Run

    assert isinstance(run, Run)
    check_run(path, run)


PYTHON_ONLY = {31: "test_promotion_is_idempotent", 63: "test_the_marker_vanishes_after_unrolling"}


def test_every_catalog_scenario_has_a_file_or_a_test() -> None:
    numbers = {int(p.name[:2]) for p in FILES}
    assert numbers | set(PYTHON_ONLY) == set(range(1, 72))


@pytest.mark.parametrize("path", [p for p in FILES if int(p.name[:2]) <= 10], ids=lambda p: p.stem)
def test_promotion_is_idempotent(path: Path, tmp_path: Path) -> None:
    # 31: running P twice gives the same IR as running it once.
    once = promote(path)
    assert once.status == 0
    first = tmp_path / "once.pto"
    first.write_text(once.stdout)
    twice = promote(first)
    assert twice.status == 0
    assert twice.stdout == once.stdout


@pytest.mark.parametrize("number", ["01", "02", "03", "05", "07", "10"])
def test_the_marker_vanishes_after_unrolling(number: str) -> None:
    # 63: after P+U no loop, no hint and no marker remain.
    (path,) = DATA.glob(f"{number}_*.pto")
    result = promote(path, "--unroll")
    assert result.status == 0
    assert "scf.for" not in result.stdout
    assert "pto.unroll" not in result.stdout
    assert "pto.persistent_unroll" not in result.stdout


def test_every_persistent_gep_index_is_a_constant_slot_after_unrolling() -> None:
    # 66: each GEP on the persistent allocation reads index_cast(arith.constant 0 or 1).
    result = promote(DATA / "66_static_after_unroll.pto", "--unroll")
    assert result.status == 0
    constants = dict(re.findall(r"(%\w+) = arith\.constant (-?\d+) : index", result.stdout))
    casts = dict(re.findall(r"(%\w+) = arith\.index_cast (%\w+) : index to i64", result.stdout))
    indices = re.findall(r"llvm\.getelementptr %buf\[(%\w+)\]", result.stdout)
    assert len(indices) == 4
    assert sorted(constants[casts[i]] for i in indices) == ["0", "0", "1", "1"]


def test_a_loop_without_hints_keeps_its_printed_form() -> None:
    # Loops without a hint come out unchanged by P+U (issue item 4).
    result = promote(DATA / "04_unrelated_loop.pto", "--unroll")
    assert result.status == 0
    assert loop_attributes(result.stdout, "i") == "-"
