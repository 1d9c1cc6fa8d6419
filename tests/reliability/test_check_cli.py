"""`slotsat check` (`slotsat/commands/check.py`).

Groups: every corpus kernel in `examples/kernels/` (and the spec's example kernels under
the spec §12 kernels among them) is confirmed; every seeded wrong-slot file
(`tests/reliability/data/wrong_*.py`) is caught with exit status 1; a slots pass that
synthesizes a wrong slot is caught by both the differential and the privacy checker;
arguments and unreadable input exit 2.
"""

# ruff: noqa: E501  (embedded kernel text keeps one statement per line, 10-dsl.md §9.1)

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from slotsat.app.cli import main
from slotsat.app.commands.check import check_function
from slotsat.core import ir
from slotsat.core.dsl.parser import parse_source
from slotsat.core.interpreter import outputs_equal, run_function
from tests.reliability.wrong_slots import break_slots_pass

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).parent / "data"
KERNELS = Path(__file__).resolve().parents[2] / "examples" / "kernels"
CORPUS = sorted((ROOT / "examples" / "kernels").glob("*.py"))
WRONG = sorted(DATA.glob("wrong_*.py"))


def _check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    status = main(["check", *argv])
    captured = capsys.readouterr()
    return status, captured.out.splitlines(), captured.err


def test_the_corpus_is_not_empty() -> None:
    assert len(CORPUS) >= 8
    assert len(WRONG) >= 4


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_every_corpus_kernel_is_confirmed(capsys: pytest.CaptureFixture[str], path: Path) -> None:
    status, out, err = _check(capsys, str(path))
    assert status == 0, "\n".join(out) + err
    assert out[-1].startswith(f"check: {path}: ")
    assert out[-1].endswith(": confirmed")
    verdicts = [ln for ln in out if ": loop '" in ln and ": note: " not in ln]
    assert verdicts, out
    assert all("privacy ok" in ln and ("outputs match" in ln) for ln in verdicts), out


@pytest.mark.parametrize("path", WRONG, ids=lambda p: p.name)
def test_every_seeded_wrong_slot_is_caught(capsys: pytest.CaptureFixture[str], path: Path) -> None:
    status, out, _ = _check(capsys, str(path), "--seed", "3")
    assert status == 1
    assert out[-1].endswith("FAILED (1 failing)")
    assert any("outputs DIFFER" in ln and "privacy VIOLATED (2)" in ln for ln in out), out
    errors = [ln for ln in out if ": error: " in ln]
    # the wrong slot is the author's own: the difference is the program's, not the slots pass's
    assert any("the program as written, on its own slot declarations, differs" in ln
               and ln.endswith("; the transformed program does the same (not caused by the slots pass)")
               for ln in errors), errors
    assert not any("the transformed program differs" in ln for ln in errors)
    assert any("privacy as written: loop 'i'" in ln and "while still live" in ln for ln in errors)
    assert any("privacy after the slots pass: loop 'i'" in ln for ln in errors)


def test_the_div_two_example_names_loop_tile_and_iterations(capsys: pytest.CaptureFixture[str]) -> None:
    path = DATA / "wrong_div2.py"
    _, out, _ = _check(capsys, str(path))
    assert (f"{path}:8:5: error: WrongDiv2.kernel: privacy as written: loop 'i' at 13:9: tile 't' of iteration 0 "
            "is overwritten by iteration 1's load into slot 0 while still live (allocation 'pp'; "
            "4 conflicting pairs)") in out


def test_a_slots_pass_that_synthesizes_a_wrong_slot_is_caught(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    break_slots_pass(monkeypatch)
    status, out, _ = _check(capsys, str(KERNELS / "row_scale.py"))
    assert status == 1
    assert any("rotated: xt[r // 2 % 2], gt[r // 2 % 2]; outputs DIFFER; privacy VIOLATED (2)" in ln
               for ln in out), out
    assert any("privacy after the slots pass: loop 'r'" in ln for ln in out)
    assert not any("privacy as written" in ln for ln in out)


_AUTHOR_ZERO_SLOTS = """import pypto.language as pl


@pl.program
class AuthorZero:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[512, 64], pl.FP32], out: pl.Out[pl.Tensor[[512, 64], pl.FP32]]) -> pl.Tensor[[512, 64], pl.FP32]:
        for i, (dst,) in pl.range(8, init_values=(out,)):
            at: pl.Tile[[64, 64], pl.FP32, pl.MemRef("ping", slots=2)[i % 0], pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
            e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(at)
            nxt: pl.Tensor[[512, 64], pl.FP32] = pl.store(e, [i * 64, 0], dst)
            res = pl.yield_(nxt)
        return res
"""


def test_a_fault_of_the_authors_own_slot_index_is_not_blamed_on_the_slots_pass(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "author_zero.py"
    path.write_text(_AUTHOR_ZERO_SLOTS)
    status, out, _ = _check(capsys, str(path))
    assert status == 1
    assert (f"{path}:7:5: error: AuthorZero.kernel: the program as written, on its own slot declarations, faults "
            "on trial 1 (seed 0) where the original does not: division by zero in '%'; the transformed program "
            "does the same (not caused by the slots pass)") in out


_BELOW_START = """import pypto.language as pl


@pl.program
class BelowStart:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[128, 64], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        for i, (d,) in pl.pipeline(3, n, 2, stage=3, init_values=(out,)):
            x: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [(i % 16) * 8, 0], [8, 64])
            e: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.exp(x)
            s: pl.Tensor[[128, 64], pl.FP32] = pl.store(e, [(i % 16) * 8, 0], d)
            r = pl.yield_(s)
        return r
"""


def test_replicating_a_runtime_stop_below_the_start_runs_no_iteration() -> None:
    """§12.4's unguarded remainder cascade would store rows for i = -3, -1 at n = 0; the
    replication guards it with `start < stop` (lowering/lower_pipeline_loops.py)."""
    fn = parse_source(_BELOW_START, "below.py").programs[0].functions[0]
    fc = check_function("BelowStart", fn)
    assert fc.loops[0].decision == "declined (stepped-runtime-stop), replicated"
    assert fc.transformed is not None
    a = np.ones((128, 64), np.float32)
    for n in (-4, 0, 3, 4, 5, 10, 14):  # stop below, at and above the start
        args = {"a": a, "n": n, "out": np.zeros_like(a)}
        assert outputs_equal(run_function(fn, args, physical=False), run_function(fc.transformed, args)) is None, n


def test_compat_seed_and_trials_are_accepted(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _check(capsys, str(KERNELS / "row_scale.py"), "--compat", "pypto", "--seed", "7",
                            "--trials", "5", "--backend", "910b")
    assert status == 0
    assert "outputs match (5 trials)" in out[0]


def test_a_missing_file_exits_2_with_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = tmp_path / "nope.py"
    status, _, err = _check(capsys, str(missing))
    assert status == 2
    assert err.strip().startswith(f"{missing}:1:1: error: cannot read the file")
    assert len(err.strip().splitlines()) == 1


def test_a_bad_backend_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = _check(capsys, str(KERNELS / "row_scale.py"), "--backend", "bogus")
    assert status == 2
    assert "error: unknown backend 'bogus'" in err


# ---- `confirmed` is earned: outputs compared on at least one input (issue 13.7)

_ROW_SCALE = (KERNELS / "row_scale.py").read_text()
_NEVER_COMPARED = {
    # an offset that divides by zero: the original faults on every input
    "zero_divisor": _ROW_SCALE.replace("[r * 64, 0], [64, 128])\n            gt",
                                       "[r * 64 // (r - r), 0], [64, 128])\n            gt"),
    # an unknown op (a typo of pl.tile.load)
    "typo": _ROW_SCALE.replace("pl.mul(xt, gt)", "pl.tile.lod(xt, gt)"),
    # a rank-2 tile loaded from a rank-1 tensor
    "rank": _ROW_SCALE.replace("x: pl.Tensor[[512, 128], pl.FP32]", "x: pl.Tensor[[65536], pl.FP32]")
                      .replace("pl.load(x, [r * 64, 0], [64, 128])", "pl.load(x, [r * 64], [64, 128])"),
}


@pytest.mark.parametrize("name", sorted(_NEVER_COMPARED))
def test_a_program_compared_on_no_input_is_never_confirmed(
        name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / f"{name}.py"
    path.write_text(_NEVER_COMPARED[name])
    status, out, err = _check(capsys, str(path))
    # The front end may reject the typo and the rank mismatch itself (exit 2); if it reads the
    # program, check must say it verified nothing.
    assert status in (1, 2), out
    if status == 1:
        assert out[-1].startswith(f"check: {path}: 1 function(s), 1 loop(s): unverified: RowScale.kernel: "
                                  "the original program faults on every random input: "), out
    else:
        assert err.startswith(f"{path}:"), err


def test_a_zero_divisor_leaves_the_outputs_unverified(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "zero_divisor.py"
    path.write_text(_NEVER_COMPARED["zero_divisor"])
    status, out, _ = _check(capsys, str(path))
    assert status == 1
    assert out[-1] == (f"check: {path}: 1 function(s), 1 loop(s): unverified: RowScale.kernel: the original "
                       "program faults on every random input: division by zero in '//'")
    assert "outputs not verified" in out[0]


def test_an_unmodelled_construct_ends_the_trials_at_the_first_input(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """What the interpreter does not model is a property of the program: `check` says so after
    one input instead of drawing (large) random inputs for every retry."""
    from slotsat.app.commands import check
    from slotsat.core.interp_errors import Unmodelled

    drawn: list[int] = []
    real = check.random_inputs

    def counting(fn: ir.Function, rng: np.random.Generator, **options: object) -> dict[str, object]:
        drawn.append(1)
        return real(fn, rng, **options)  # type: ignore[arg-type]

    def unmodelled(fn: ir.Function, args: dict[str, object], identity: dict[str, int],
                   functions: dict[str, ir.Function] | None, undefined: object) -> tuple[object, ...]:
        raise Unmodelled("the interpreter does not model 'tile.example'")

    monkeypatch.setattr(check, "random_inputs", counting)
    monkeypatch.setattr(check, "_run_original", unmodelled)
    row_scale = ROOT / "examples" / "kernels" / "row_scale.py"  # one function
    status, out, _ = _check(capsys, str(row_scale))
    assert status == 1
    assert "the interpreter cannot run the original program: the interpreter does not model 'tile.example'" \
        in out[-1], out
    assert len(drawn) == 1


def test_a_function_that_takes_and_returns_tiles_is_compared_on_the_returned_valid_part(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A function the reference's passes give a tile argument and a tile result: `check` draws
    the argument and compares the result's valid elements."""
    path = tmp_path / "tiles.py"
    path.write_text("import pypto.language as pl\n\n\n@pl.program\nclass T:\n"
                    "    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)\n"
                    "    def main(t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec]) -> pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec]:\n"
                    "        r: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.add(t, t)\n"
                    "        return r\n")
    status, out, _ = _check(capsys, str(path))
    assert status == 0
    assert out[-1].endswith("1 function(s), 0 loop(s): confirmed")
    assert "outputs match (3 trials)" in out[0]
