"""Integer literals and their dtypes (issue 13 items 2 and 9, `10-dsl.md` §7).

Every integer literal that does not fit its dtype is a located parse error (exit 2); nothing
is wrapped at parse time. The one exception: `pl.const(V, DTYPE)` may hold a value outside
the dtype, which then denotes its bit pattern (§7.2), so it must be a pattern of the
dtype's width; passes read an `INDEX` one as that pattern (`ir.index_literal`), and the
printer writes it back as written. The per-position cases (bound, start, step, stage,
shape, offset, slot count, slot index, sizes, attributes) are in `test_errors.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from slotsat.app.cli import main
from slotsat.core import ir
from slotsat.core.dsl import parse_source, print_module
from slotsat.core.errors import SlotsatError

LOOP = """
for i, (dst,) in pl.pipeline({bounds}, stage={stage}, init_values=(out,)):
    t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
    nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(t, [0, 0], dst)
    res = pl.yield_(nxt)
return res
"""


def loop(bounds: str = "4", stage: str = "2") -> str:
    return LOOP.format(bounds=bounds, stage=stage)


@pytest.mark.parametrize(
    "case",
    [
        # 2**70: was compiled to a zero-trip loop (`scf.for ... to %c0_index`)
        (
            "1180591620717411303424",
            "2",
            "codegen",
            2,
            "8:38: error: integer literal 1180591620717411303424 does not fit pl.INDEX",
        ),
        # was `slotsat: internal error: OverflowError` (exit 3)
        (
            "4",
            "1000000000000000000000000000000",
            "slots",
            2,
            "8:47: error: integer literal 1000000000000000000000000000000 does not fit pl.INDEX",
        ),
        # stage 2**63: was exit 3
        ("4", "9223372036854775808", "codegen", 2, "8:47: error: integer literal 9223372036854775808"),
        # a start literal outside INT64: was an AssertionError (exit 3)
        ("18446744073709551608, 4", "2", "slots", 2, "8:38: error: integer literal 18446744073709551608"),
    ],
    ids=["stop-2-70", "stage-10-30", "stage-2-63", "start-past-int64"],
)
def test_the_reproducers_are_located_parse_errors(
    write_kernel: Callable[..., Path],
    kernel: Callable[..., str],
    capsys: pytest.CaptureFixture[str],
    case: tuple[str, str, str, int, str],
) -> None:
    bounds, stage, command, status, message = case
    path = write_kernel(kernel(loop(bounds, stage)))
    assert main([command, str(path)]) == status
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.splitlines()
    assert line.startswith(f"{path}:{message}")


def test_a_const_outside_its_dtype_denotes_its_bit_pattern_and_prints_as_written(
    kernel: Callable[..., str],
) -> None:
    module = parse_source(kernel("k = pl.const(2147483648, pl.INT32)\nj = k + 1\nreturn out"), "k.py")
    k = module.programs[0].functions[0].body.stmts[0]
    assert isinstance(k, ir.AssignStmt)
    assert k.value == ir.ConstInt(2147483648, ir.DType.INT32)
    text = print_module(module)
    assert "k: pl.Scalar[pl.INT32] = pl.const(2147483648, pl.INT32)" in text
    assert print_module(parse_source(text, "printed.py")) == text


def test_a_non_fitting_literal_prints_as_const_even_beside_its_dtype() -> None:
    """A bare literal would not read back, so the printer spells it as `pl.const`."""
    k = ir.Var("k", ir.ScalarType(ir.DType.INT32))
    e = ir.Add(k, ir.ConstInt(2147483648, ir.DType.INT32), ir.DType.INT32)
    from slotsat.core.dsl.printer import print_expr

    assert print_expr(e) == "k + pl.const(2147483648, pl.INT32)"
    assert print_expr(ir.ConstInt(2**63, ir.DType.INDEX)) == "pl.const(9223372036854775808, pl.INDEX)"


def test_an_index_bit_pattern_is_its_signed_value_to_the_passes() -> None:
    assert ir.index_literal(ir.ConstInt(2**64 - 8, ir.DType.INDEX)) == -8
    assert ir.index_literal(ir.ConstInt(7, ir.DType.INDEX)) == 7
    assert ir.index_literal(ir.ConstInt(7, ir.DType.INT64)) is None


def test_a_negative_index_bit_pattern_start_is_the_negative_start_decline(
    write_kernel: Callable[..., Path], kernel: Callable[..., str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Was an internal AssertionError (exit 3): the e-graph clamped the raw value."""
    path = write_kernel(kernel(loop("pl.const(18446744073709551608, pl.INDEX), 4")))
    assert main(["slots", str(path), "--json"]) == 0
    import json

    data = json.loads(capsys.readouterr().out)
    (loop_record,) = data["functions"][0]["loops"]
    assert (loop_record["decision"], loop_record["reason"]) == ("declined", "negative-start")
    assert loop_record["message"] == "the start -8 is negative"
    assert "pl.pipeline(pl.const(18446744073709551608, pl.INDEX), 4, stage=2" in data["program"]


def test_a_literal_takes_and_must_fit_its_siblings_dtype(kernel: Callable[..., str]) -> None:
    body = "k: pl.Scalar[pl.UINT8] = pl.const(3, pl.UINT8)\nj = k + 255\nreturn out"
    module = parse_source(kernel(body), "k.py")
    j = module.programs[0].functions[0].body.stmts[1]
    assert isinstance(j, ir.AssignStmt)
    assert isinstance(j.value, ir.Add)
    assert j.value.b == ir.ConstInt(255, ir.DType.UINT8)
    with pytest.raises(SlotsatError, match=r"^integer literal 256 does not fit pl.UINT8 \(0 to 255\)$"):
        parse_source(kernel(body.replace("255", "256")), "k.py")


@pytest.mark.parametrize(
    ("value", "dtype", "ok"),
    [
        ("-128", "INT8", True),
        ("255", "INT8", True),
        ("256", "INT8", False),
        ("-129", "UINT8", False),
        ("-1", "UINT64", True),
        ("18446744073709551615", "INDEX", True),
        ("18446744073709551616", "INDEX", False),
        ("-9223372036854775809", "INT64", False),
    ],
)
def test_a_const_must_be_a_bit_pattern_of_its_width(
    kernel: Callable[..., str], value: str, dtype: str, ok: bool
) -> None:
    source = kernel(f"k = pl.const({value}, pl.{dtype})\nreturn out")
    if ok:
        parse_source(source, "k.py")
        return
    pattern = rf"^pl.const value {value} is not a \d+-bit pattern of pl.{dtype}"
    with pytest.raises(SlotsatError, match=pattern):
        parse_source(source, "k.py")


def test_a_const_float_past_the_float_range_is_an_error(kernel: Callable[..., str]) -> None:
    big = "1" + "0" * 400  # float() of it overflows (was an internal OverflowError)
    body = f"t = pl.load(a, [0, 0], [64, 64])\nu = pl.muls(t, pl.const({big}, pl.FP32))\nreturn out"
    with pytest.raises(SlotsatError, match=r"^float literal 1000+\.\.\. is not finite$") as info:
        parse_source(kernel(body), "k.py")
    assert (info.value.span.line, info.value.span.col) == (9, 33)


def test_a_tensor_shape_literal_that_does_not_fit_is_an_error() -> None:
    source = (
        "import pypto.language as pl\n\n\n@pl.program\nclass K:\n    @pl.function\n"
        "    def kernel(self, a: pl.Tensor[[99999999999999999999, 64], pl.FP32]) -> "
        "pl.Tensor[[1, 64], pl.FP32]:\n"
        "        return a\n"
    )
    with pytest.raises(SlotsatError) as info:
        parse_source(source, "k.py")
    assert info.value.message == (
        "integer literal 99999999999999999999 does not fit pl.INDEX "
        "(-9223372036854775808 to 9223372036854775807)"
    )
    assert (info.value.span.line, info.value.span.col) == (7, 36)
