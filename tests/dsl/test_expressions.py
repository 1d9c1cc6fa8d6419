"""One expression parser for kernels and `slotsat explore` (issue 13 item 9).

`explore` reads its EXPR with the DSL's own expression parser (`parse_expression`), so the
two share the syntax, the dtype rules, the literal ranges, the nesting limit and the error
messages. Before, `explore` had its own converter: a flat 500-term sum was an internal
error (exit 3) there while the DSL rejected it cleanly, and it accepted casts between
signed and unsigned dtypes that the DSL rejects.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from slotsat.app.cli import main
from slotsat.core import ir
from slotsat.core.dsl import parse_expression, parse_source
from slotsat.core.errors import SlotsatError
from slotsat.core.limits import DEFAULT_MAX_EXPR_DEPTH


def _kernel_error(kernel: Callable[..., str], expr: str) -> str:
    with pytest.raises(SlotsatError) as info:
        parse_source(kernel(f"k: pl.Scalar[pl.INT32] = pl.cast(n, pl.INT32)\nx = {expr}\nreturn out"), "k.py")
    return info.value.message


def _explore_error(capsys: pytest.CaptureFixture[str], expr: str, *extra: str) -> str:
    assert main(["explore", expr, "--dtype", "int32", "--loop", "n=0:4", *extra]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.splitlines()
    prefix = "<expr>:1:"
    assert line.startswith(prefix)
    return line.split(": error: ", 1)[1]


@pytest.mark.parametrize(
    "expr",
    [
        "pl.cast(k, pl.FP32) + n",  # mixed dtype categories
        "k + 1180591620717411303424",  # a literal outside its dtype
        "k + 2147483648",
        "pl.const(4294967296, pl.INT32)",
    ],
)
def test_explore_and_the_dsl_give_the_same_error(
    kernel: Callable[..., str], capsys: pytest.CaptureFixture[str], expr: str
) -> None:
    assert _explore_error(capsys, expr) == _kernel_error(kernel, expr)


@pytest.mark.parametrize(
    ("expr", "node", "message"),
    [
        # signed to unsigned: explore accepted it and emitted a sign-extending index_cast
        ("pl.cast(k, pl.UINT32)", ir.Cast,
         "pl.cast between signed and unsigned dtypes is outside the subset (pl.INT32 to pl.UINT32)"),
        ("(-k)", ir.ScalarUnary,
         "EXPR must be an integer index expression (+ - * // % pl.cast pl.const), got '-k'"),
        ("k ** 2", ir.ScalarBinary,
         "EXPR must be an integer index expression (+ - * // % pl.cast pl.const), got 'k ** 2'"),
    ],
)
def test_what_kernels_read_beyond_the_index_language_is_an_explore_error(
    kernel: Callable[..., str], capsys: pytest.CaptureFixture[str], expr: str, node: type, message: str
) -> None:
    """Kernels read the reference's printed scalar operations (decision 12: unary minus, `**`,
    casts between any scalar dtypes); the index engine explore drives does not model them, so
    explore refuses them with one located line (exit 2), never an internal error."""
    fn = parse_source(kernel(f"k: pl.Scalar[pl.INT32] = pl.cast(n, pl.INT32)\nx = {expr}\nreturn out"),
                      "k.py").programs[0].functions[0]
    x = fn.body.stmts[1]
    assert isinstance(x, ir.AssignStmt)
    assert isinstance(x.value, node)
    assert _explore_error(capsys, expr) == message


def test_one_depth_limit_for_both(kernel: Callable[..., str], capsys: pytest.CaptureFixture[str]) -> None:
    """A flat sum of 500 terms was exit 3 in explore (a RecursionError)."""
    deep = "k" + " + k" * 499
    message = _explore_error(capsys, deep)
    assert message == _kernel_error(kernel, deep)
    assert message == (
        f"the expression is nested too deeply: more than {DEFAULT_MAX_EXPR_DEPTH} levels (set "
        "SLOTSAT_MAX_EXPR_DEPTH to raise the limit)"
    )


def test_the_deepest_allowed_expression_runs_through_explore_and_the_dsl(
    kernel: Callable[..., str], capsys: pytest.CaptureFixture[str]
) -> None:
    ok = "k" + " + k" * (DEFAULT_MAX_EXPR_DEPTH - 1)  # DEFAULT_MAX_EXPR_DEPTH levels
    parse_source(kernel(f"k: pl.Scalar[pl.INT32] = pl.cast(n, pl.INT32)\nx = {ok}\nreturn out"), "k.py")
    assert main(["explore", ok, "--dtype", "int32"]) == 0
    assert "arith.addi" in capsys.readouterr().out
    assert "nested too deeply" in _explore_error(capsys, ok + " + k")


def test_the_limit_follows_the_environment(
    monkeypatch: pytest.MonkeyPatch, kernel: Callable[..., str]
) -> None:
    monkeypatch.setenv("SLOTSAT_MAX_EXPR_DEPTH", "10")
    assert "more than 10 levels" in _kernel_error(kernel, "k" + " + k" * 10)
    monkeypatch.setenv("SLOTSAT_MAX_EXPR_DEPTH", "1000")
    parse_source(kernel("x = n" + " + n" * 999 + "\nreturn out"), "k.py")


def test_parse_expression_resolves_names_through_the_callback() -> None:
    i = ir.Var("i", ir.ScalarType(ir.DType.INDEX))
    e = parse_expression("(i + 3) % 4", {"i": i}.get)
    assert e == ir.FloorMod(ir.Add(i, ir.ConstInt(3), ir.DType.INDEX), ir.ConstInt(4), ir.DType.INDEX)
    with pytest.raises(SlotsatError, match=r"^'j' is not defined$") as info:
        parse_expression("i + j", {"i": i}.get)
    assert (info.value.span.line, info.value.span.col) == (1, 5)


@pytest.mark.parametrize(
    ("expr", "what"), [("i < 3", "a comparison"), ("pl.const(1, pl.BOOL)", "a BOOL value")]
)
def test_explore_takes_an_integer_expression(
    capsys: pytest.CaptureFixture[str], expr: str, what: str
) -> None:
    assert _explore_error(capsys, expr) == f"EXPR must be an integer index expression, got {what}"


@pytest.mark.parametrize("slots", ["-1", "0"])
def test_a_slot_count_below_one_is_an_argument_error(capsys: pytest.CaptureFixture[str], slots: str) -> None:
    """`--slots -1` was an internal ValueError (exit 3); `--slots 0` ran."""
    with pytest.raises(SystemExit) as info:
        main(["explore", "i % 2", "--loop", "i=0:8", "--slots", slots])
    assert info.value.code == 2
    err = capsys.readouterr().err
    expected = f"slotsat explore: error: argument --slots: must be a positive slot count, got {slots}"
    assert err.splitlines()[-1] == expected
    assert "Traceback" not in err


def test_one_slot_is_a_slot_count(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explore", "i % 2", "--loop", "i=0:8", "--slots", "1"]) == 0
    assert "slots=1" in capsys.readouterr().out


def test_a_loop_bound_outside_index_is_an_argument_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explore", "i % 2", "--loop", "i=0:1180591620717411303424"]) == 2
    assert capsys.readouterr().err.strip().endswith(
        "error: --loop i: stop: integer literal 1180591620717411303424 does not fit pl.INDEX "
        "(-9223372036854775808 to 9223372036854775807)"
    )
