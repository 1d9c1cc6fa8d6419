"""Fuzzing (hypothesis, derandomized in CI, bounded; every test prints its seed).

Groups:
- random kernels through slots, replication and codegen: `check` confirms the result, or a
  pass declines or rejects it cleanly; never an unexpected exception, never a mismatch or a
  privacy violation in what the slots pass produced;
- random bytes and mutated DSL files: exit status 2 with one clean `FILE:LINE:COL: error:`
  line (or, when a mutation still parses, an ordinary check verdict), never status 3;
- mutated `.pto` files through `slotsat promote`: clean diagnostics, never status 3.
"""

# ruff: noqa: E501  (embedded kernel text keeps one statement per line, 10-dsl.md §9.1)

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slotsat.analysis.budget import Backend
from slotsat.app.cli import main
from slotsat.app.commands.check import CheckOptions, check_module
from slotsat.app.pipeline import CompileOptions, compile_module
from slotsat.core.dsl.parser import parse_source
from slotsat.core.errors import SlotsatError

ROOT = Path(__file__).resolve().parents[2]
KERNELS = sorted((ROOT / "examples" / "kernels").glob("*.py")) + sorted((Path(__file__).parent / "data").glob("*.py"))
PTO_FILES = sorted((ROOT / "tests" / "promote" / "data").glob("*.pto"))
ERROR_LINE = re.compile(r"^.+:\d+:\d+: error: \S.*$")
DIAGNOSTIC_LINE = re.compile(r"^.+:\d+:\d+: (error|note|warning): .*$")

_BOUNDED = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
_CHEAP = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


@pytest.fixture(autouse=True)
def _small_interpreter_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    # Mutations can turn `pl.range(8)` into `pl.range(88888888)`: keep every run short.
    monkeypatch.setenv("SLOTSAT_INTERP_MAX_STEPS", "200000")
    monkeypatch.setenv("SLOTSAT_PRIVACY_MAX_STEPS", "200000")
    monkeypatch.setenv("SLOTSAT_PRIVACY_MAX_ITERATIONS", "256")


# ---- random kernels

_UNARY = ["exp", "abs", "relu", "sqrt", "neg"]
_BINARY = ["add", "sub", "mul", "maximum", "minimum"]


def _loop_header(rng: random.Random, iv: str, init: str) -> str:
    start = rng.choice([0, 0, 1, 3, 8])
    step = rng.choice([1, 1, 2, 4])
    kind = rng.choice(["pipeline", "pipeline", "pipeline", "range"])
    stop = str(start + step * rng.randint(0, 6))
    if rng.random() < 0.2:
        # A runtime stop, from any start: `n` may lie below it (the loop then runs nothing,
        # which replication's remainder cascade guards, 05-decisions.md item 10).
        stop = "n"
    bounds = f"{start}, {stop}, {step}"
    stage = f", stage={rng.choice([1, 2, 2, 3, 4])}" if kind == "pipeline" else ""
    return f"pl.{kind}({bounds}{stage}, init_values=({init},))"


def _loop_body(rng: random.Random, iv: str, dst: str, ind: str, tag: str) -> list[str]:
    row = f"({iv} % 16) * 8"
    tile = "pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec]"
    lines = [f"{ind}x{tag}: {tile} = pl.load(a, [{row}, 0], [8, 64])"]
    names = [f"x{tag}"]
    if rng.random() < 0.6:
        lines.append(f"{ind}y{tag}: {tile} = pl.load(b, [{row}, 0], [8, 64])")
        names.append(f"y{tag}")
    if rng.random() < 0.15:  # a view consumer: the slots pass declines (tile-view)
        lines.append(f"{ind}v{tag}: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(x{tag}, [16, 32])")
        lines.append(f"{ind}w{tag}: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.exp(v{tag})")
        lines.append(f"{ind}u{tag}: {tile} = pl.tile.reshape(w{tag}, [8, 64])")
        names.append(f"u{tag}")
    for k in range(rng.randint(1, 3)):
        name = f"c{tag}_{k}"
        if len(names) > 1 and rng.random() < 0.5:
            a, b = rng.sample(names, 2)
            lines.append(f"{ind}{name}: {tile} = pl.{rng.choice(_BINARY)}({a}, {b})")
        else:
            lines.append(f"{ind}{name}: {tile} = pl.{rng.choice(_UNARY)}({rng.choice(names)})")
        names.append(name)
    lines.append(f"{ind}s{tag}: pl.Tensor[[128, 64], pl.FP32] = pl.store({names[-1]}, [{row}, 0], {dst})")
    return lines


def random_kernel(seed: int) -> str:
    """A valid kernel: sibling and nested loops of random shapes over [8, 64] FP32 tiles."""
    rng = random.Random(seed)
    body: list[str] = []
    prev = "out"
    for li in range(rng.randint(1, 2)):
        iv, dst, res = f"i{li}", f"d{li}", f"r{li}"
        body.append(f"        for {iv}, ({dst},) in {_loop_header(rng, iv, prev)}:")
        inner = _loop_body(rng, iv, dst, "            ", f"{li}")
        last = f"s{li}"
        if rng.random() < 0.3:
            jv, jd, jr = f"j{li}", f"e{li}", f"q{li}"
            inner.append(f"            for {jv}, ({jd},) in {_loop_header(rng, jv, last)}:")
            inner += _loop_body(rng, jv, jd, "                ", f"{li}n")
            inner.append(f"                {jr} = pl.yield_(s{li}n)")
            last = jr
        inner.append(f"            {res} = pl.yield_({last})")
        body += inner
        prev = res
    return "\n".join([
        "import pypto.language as pl", "", "", "@pl.program", f"class Fuzz{seed}:",
        "    @pl.function(type=pl.FunctionType.InCore)",
        "    def kernel(self, a: pl.Tensor[[128, 64], pl.FP32], b: pl.Tensor[[128, 64], pl.FP32], "
        "n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:",
        *body, f"        return {prev}", ""])


@_BOUNDED
@given(seed=st.integers(0, 2**32 - 1), backend=st.sampled_from([Backend.ASCEND950, Backend.ASCEND910B]),
       compat=st.booleans())
def test_random_kernels_are_confirmed_or_cleanly_declined(seed: int, backend: Backend, compat: bool) -> None:
    print(f"fuzz seed {seed} backend {backend.value} compat {compat}")
    module = parse_source(random_kernel(seed), f"fuzz_{seed}.py")
    result = check_module(module, CheckOptions(seed=seed, trials=2, backend=backend, compat=compat))
    for fc in result.functions:
        # A pass may reject a kernel (for example replication of a runtime-stop loop is fine,
        # but a codegen blocker is not a check failure); what it produced must be right.
        assert fc.mismatch is None, (seed, fc.mismatch)
        assert not fc.privacy_errors, (seed, fc.privacy_errors)
        if fc.rejection is None:
            assert fc.transformed is not None
    rendered: str | None = None
    try:
        compiled = compile_module(module, CompileOptions(backend=backend, compat=compat))
    except SlotsatError as err:  # a codegen blocker: clean, one line
        rendered = err.render(f"fuzz_{seed}.py")
    if rendered is not None:
        assert ERROR_LINE.match(rendered), rendered
    else:
        assert "func.func" in compiled.pto_text


# ---- random bytes and mutated DSL


def _assert_clean_exit_2(status: int, err: str, path: Path) -> None:
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"{path}:"), err
    assert ERROR_LINE.match(lines[0]), err


@_CHEAP
@given(data=st.binary(max_size=400))
def test_random_bytes_exit_2_with_one_clean_line(data: bytes, tmp_path_factory: pytest.TempPathFactory,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path_factory.mktemp("bytes") / "input.py"
    path.write_bytes(data)
    status = main(["check", str(path)])
    _assert_clean_exit_2(status, capsys.readouterr().err, path)


def _mutate(text: str, rng: random.Random) -> str:
    chars = "()[]:,.=+-*/%\n 0123456789_abcxyzpl\"'#@\t"
    for _ in range(rng.randint(1, 3)):
        pos = rng.randrange(len(text) + 1)
        op = rng.randrange(6)
        if op == 0:
            text = text[:pos] + text[pos + 1:]
        elif op == 1:
            text = text[:pos] + rng.choice(chars) + text[pos:]
        elif op == 2:
            text = text[:pos]
        elif op == 3:
            lines = text.splitlines(keepends=True)
            if lines:
                k = rng.randrange(len(lines))
                lines.insert(k, lines[rng.randrange(len(lines))])
                text = "".join(lines)
        elif op == 4:
            lines = text.splitlines(keepends=True)
            if lines:
                del lines[rng.randrange(len(lines))]
                text = "".join(lines)
        else:
            text = text[:pos] + rng.choice(["pl.", "slots=0", "stage=", "-1", "9" * 20, "if", "]"]) + text[pos:]
    return text


@_CHEAP
@given(seed=st.integers(0, 2**32 - 1))
def test_mutated_dsl_files_end_cleanly(seed: int, tmp_path_factory: pytest.TempPathFactory,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    rng = random.Random(seed)
    source = rng.choice(KERNELS)
    print(f"fuzz seed {seed} source {source.name}")
    path = tmp_path_factory.mktemp("mut") / source.name
    path.write_text(_mutate(source.read_text(), rng))
    status = main(["check", str(path), "--trials", "1"])
    captured = capsys.readouterr()
    assert status in (0, 1, 2), captured.err
    if status == 2:
        _assert_clean_exit_2(status, captured.err, path)
    else:
        assert captured.out.splitlines()[-1].startswith(f"check: {path}: ")
        assert all(DIAGNOSTIC_LINE.match(ln) for ln in captured.err.splitlines()), captured.err


# ---- mutated .pto files


@_CHEAP
@given(seed=st.integers(0, 2**32 - 1))
def test_mutated_pto_files_end_in_clean_diagnostics(seed: int, tmp_path_factory: pytest.TempPathFactory,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert PTO_FILES, "no .pto files under tests/promote/data"
    rng = random.Random(seed)
    source = rng.choice(PTO_FILES)
    print(f"fuzz seed {seed} source {source.name}")
    path = tmp_path_factory.mktemp("pto") / source.name
    path.write_text(_mutate(source.read_text(), rng))
    status = main(["promote", str(path), *(["--unroll"] if rng.random() < 0.5 else [])])
    captured = capsys.readouterr()
    assert status in (0, 1, 2), captured.err
    if status != 0:
        err_lines = [ln for ln in captured.err.splitlines() if ln.strip()]
        assert err_lines, "a failure must say why"
        assert all(DIAGNOSTIC_LINE.match(ln) or ln.startswith((" ", "\t")) for ln in err_lines), captured.err
        assert any(": error: " in ln for ln in err_lines), captured.err
