"""Floor-mod / floor-div lowering (`30-pto-codegen.md` §7, catalog I): the exact op order of
§7.1, the syntactic proof (§7.2), the dtype-width rule (§7.3), constant folding (§7.5).

Plain expressions are lowered as the reference lowers them under `--mode pypto`, so the
helper compiles in that mode unless a test names the default mode, which extracts them
(`05-decisions.md` item 15, superseding §7.4 there)."""

from __future__ import annotations

import re

import pytest

from slotsat.core.options import Mode
from tests.codegen.harness import compile_, error, kernel

LOAD = "t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])\n"


def _ops(
    expr: str,
    *,
    params: str = "x: pl.Scalar[pl.INDEX], y: pl.Scalar[pl.INDEX]",
    dtype: str = "pl.INDEX",
    loop: str | None = None,
    mode: Mode = Mode.PYPTO,
) -> list[str]:
    """The arith ops emitted for a scalar assignment `k = EXPR` (inside `loop` if given)."""
    body = LOAD
    if loop is not None:
        body += f"for i in {loop}:\n    k: pl.Scalar[{dtype}] = {expr}\n"
    else:
        body += f"k: pl.Scalar[{dtype}] = {expr}\n"
    body += "return out\n"
    src = kernel(
        body, params=f"a: pl.Tensor[[256, 64], pl.FP32], {params}, out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]"
    )
    text = compile_(src, mode=mode).pto_text
    return [
        re.sub(r"^%\d+ = ", "", line.strip())
        for line in text.splitlines()
        if re.match(r"\s*%\d+ = arith\.", line)
    ]


def _names(ops: list[str]) -> list[str]:
    return [op.split()[0] for op in ops]


@pytest.mark.parametrize(("mode", "op"), [(Mode.PYPTO, "arith.remsi"), (Mode.SLOTSAT, "arith.remui")])
def test_bare_remainder_for_a_loop_from_zero(mode: Mode, op: str) -> None:
    assert _names(_ops("i % 2", loop="pl.range(4)", mode=mode)) == [op]


def test_negative_dividend_gets_the_correction() -> None:
    # %0 is the load's partition view; x is %arg2, y %arg3 (the tensors come first)
    assert _ops("x % 24") == [
        "arith.remsi %arg2, %c24_index : index",
        "arith.cmpi slt, %1, %c0_index : index",
        "arith.addi %1, %c24_index : index",
        "arith.select %2, %3, %1 : index",
    ]


def test_negative_constant_divisor_uses_sgt() -> None:
    assert _names(_ops("x % -3")) == ["arith.remsi", "arith.cmpi", "arith.addi", "arith.select"]
    assert "sgt" in _ops("x % -3")[1]


def test_runtime_divisor_eight_ops() -> None:
    assert _ops("x % y") == [
        "arith.remsi %arg2, %arg3 : index",
        "arith.cmpi ne, %1, %c0_index : index",
        "arith.cmpi slt, %1, %c0_index : index",
        "arith.cmpi slt, %arg3, %c0_index : index",
        "arith.xori %3, %4 : i1",
        "arith.andi %2, %5 : i1",
        "arith.addi %1, %arg3 : index",
        "arith.select %6, %7, %1 : index",
    ]


def test_counter_form() -> None:
    assert _names(_ops("(i - 1) % 2", loop="pl.range(1, 5)")) == ["arith.subi", "arith.remsi"]


def test_stepped_counter() -> None:
    assert _names(_ops("(i - 8) // 4 % 4", loop="pl.range(8, 40, 4)")) == [
        "arith.subi",
        "arith.divsi",
        "arith.remsi",
    ]


def test_sum_is_not_syntactic() -> None:
    assert _names(_ops("(i + 1) % 2", loop="pl.range(4)")) == [
        "arith.addi",
        "arith.remsi",
        "arith.cmpi",
        "arith.addi",
        "arith.select",
    ]


def test_product_never_proven() -> None:
    assert "arith.select" in _names(_ops("i * 4611686018427387904 % 3", loop="pl.range(64)"))


def test_width_rule_cast_is_never_proven() -> None:
    ops = _ops("pl.cast(i, pl.INT32) % 2", dtype="pl.INT32", loop="pl.range(2147483648, 2147483650)")
    assert _names(ops)[0] == "arith.index_cast"
    assert "arith.select" in _names(ops)


def test_runtime_start_gets_the_correction() -> None:
    ops = _ops("i % 2", loop="pl.range(x, y)")
    assert "arith.select" in _names(ops)


def test_runtime_floordiv() -> None:
    assert _ops("x // y") == ["arith.floordivsi %arg2, %arg3 : index"]


def test_proven_floordiv_is_bare() -> None:
    assert _names(_ops("i // 64", loop="pl.range(4)")) == ["arith.divsi"]


def test_negative_literal_divisor_div() -> None:
    assert _names(_ops("i // -4", loop="pl.range(4)")) == ["arith.floordivsi"]


@pytest.mark.parametrize(
    ("mode", "rem", "div"),
    [(Mode.SLOTSAT, "arith.remui", "arith.divui"), (Mode.PYPTO, "arith.remsi", "arith.divsi")],
)
def test_unsigned_ops(mode: Mode, rem: str, div: str) -> None:
    params = "x: pl.Scalar[pl.UINT32], y: pl.Scalar[pl.UINT32]"
    assert _names(_ops("x % y", params=params, dtype="pl.UINT32", mode=mode)) == [rem]
    assert _names(_ops("x // y", params=params, dtype="pl.UINT32", mode=mode)) == [div]


def test_folding() -> None:
    assert _ops("pl.const(-7, pl.INDEX) // pl.const(2, pl.INDEX)") == []
    assert _ops("x % 1") == []
    assert _ops("x // 1") == []
    assert _names(_ops("0 % x")) == [
        "arith.remsi",
        "arith.cmpi",
        "arith.cmpi",
        "arith.cmpi",
        "arith.xori",
        "arith.andi",
        "arith.addi",
        "arith.select",
    ]


def test_fold_division_by_zero() -> None:
    src = kernel(
        LOAD + "k: pl.Scalar[pl.INDEX] = pl.const(7, pl.INDEX) // pl.const(0, pl.INDEX)\nreturn out\n"
    )
    assert error(src).message == "Floor division by zero"


def test_fold_overflow() -> None:
    src = kernel(
        LOAD + "k: pl.Scalar[pl.INT64] = pl.const(-9223372036854775808, pl.INT64) // "
        "pl.const(-1, pl.INT64)\nreturn out\n"
    )
    assert error(src).message == "Floor division overflow: INT64_MIN // -1"


def test_out_of_range_literal_is_not_folded() -> None:
    ops = _ops("pl.const(2147483648, pl.INT32) % pl.const(3, pl.INT32)", dtype="pl.INT32")
    assert ops[0] == "arith.remsi %cn2147483648_i32, %c3_i32 : i32"
    assert "arith.select" in _names(ops)


def test_non_slot_output_differs_between_modes_only_in_the_proven_ops() -> None:
    """The default mode extracts a plain expression too (item 15): same value, `remui` for the
    proven remainder where the reference emits `remsi`."""
    assert _names(_ops("(i - 1) % 2 * 64", loop="pl.range(1, 5)")) == [
        "arith.subi",
        "arith.remsi",
        "arith.muli",
    ]
    assert _names(_ops("(i - 1) % 2 * 64", loop="pl.range(1, 5)", mode=Mode.SLOTSAT)) == [
        "arith.subi",
        "arith.remui",
        "arith.muli",
    ]
