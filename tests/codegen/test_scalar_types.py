"""Scalars of every integer dtype as offsets, loop bounds and slot indices: the emitted module
verifies with xdsl (`lowering.pto_dialect.parse_and_verify`: every operand's type is its
op's type), in both modes and under both planners (`30-pto-codegen.md` §5.3, §6).

An offset, a bound and a slot operand are `index` values: a scalar of another dtype is
converted first (`arith.index_cast`, or `arith.index_castui` for an unsigned one), never
handed to an `index` op as it is.
"""

from __future__ import annotations

import pytest
from xdsl.utils.exceptions import VerifyException

from slotsat.core import ir
from slotsat.core.errors import PassError
from slotsat.core.options import Mode, Planner
from slotsat.lowering.pto_dialect import parse_and_verify

from .harness import compile_, kernel, lines

INT_DTYPES = [d for d in ir.DType if d.is_int_arith]
"""INDEX and the 8- to 64-bit integers (the packed 4-bit ones are declined, see below)."""


def _kernel(d: ir.DType) -> str:
    params = (
        f"a: pl.Tensor[[256, 64], pl.FP32], k: pl.Scalar[pl.{d.value}], "
        "out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]"
    )
    # A loop bound must be INDEX in the DSL; a signed scalar gets there through pl.cast (a cast
    # between signed and unsigned dtypes is outside the subset).
    literal_stop = d.is_unsigned or not d.is_int_arith
    stop = "k" if d is ir.DType.INDEX else ("4" if literal_stop else "pl.cast(k, pl.INDEX)")
    return kernel(
        f"""
for i in pl.range({stop}):
    t: pl.Tile[[64, 64], pl.FP32, SB[k % 2], pl.Mem.Vec] = pl.load(a, [k, 0], [64, 64])
    _s = pl.store(t, [k + 1, i], out)
return out
""",
        decls="SB = pl.MemRef(slots=2)",
        params=params,
    )


@pytest.mark.parametrize("planner", list(Planner))
@pytest.mark.parametrize("mode", list(Mode))
@pytest.mark.parametrize("dtype", INT_DTYPES, ids=lambda d: d.value)
def test_a_scalar_of_any_integer_dtype_verifies_as_offset_bound_and_slot(
    dtype: ir.DType, mode: Mode, planner: Planner
) -> None:
    text = compile_(_kernel(dtype), planner=planner, mode=mode).pto_text
    assert parse_and_verify(text)
    clamps = lines(text, "arith.maxsi")
    assert len(clamps) == 3  # the three runtime offsets (k, k + 1, i), clamped at index
    assert all(c.endswith(": index") for c in clamps)
    if dtype is not ir.DType.INDEX:
        cast = "arith.index_castui" if dtype.is_unsigned else "arith.index_cast"
        # k is %arg2: the tensors a and out come first in the signature
        assert any(line.startswith("%") and f"= {cast} %arg2 :" in line for line in lines(text, cast))


PACKED = [d for d in ir.DType if d.is_int and not d.is_int_arith]


@pytest.mark.parametrize("dtype", PACKED, ids=lambda d: d.value)
def test_a_packed_four_bit_scalar_in_index_arithmetic_is_a_located_error(dtype: ir.DType) -> None:
    """`pl.INT4` / `pl.UINT4` scalars have no arith type of their own in the module and no place
    in the index engine: codegen declines them at the statement, never an internal error."""
    with pytest.raises(PassError, match=rf"does not compute with pl\.{dtype.value} values \('k'\)") as err:
        compile_(_kernel(dtype))
    assert err.value.span.line > 0


def test_index_castui_verifies_only_between_index_and_an_integer() -> None:
    ok = "func.func @f(%x: i32) {\n  %0 = arith.index_castui %x : i32 to index\n  func.return\n}\n"
    assert "arith.index_castui" in parse_and_verify(ok)
    bad = "func.func @f(%x: index) {\n  %0 = arith.index_castui %x : index to index\n  func.return\n}\n"
    with pytest.raises(VerifyException, match="cast incompatible"):
        parse_and_verify(bad)


NOT_INTEGER = [d for d in ir.DType if d.is_float or d is ir.DType.BOOL]


@pytest.mark.parametrize(("site", "body"), [
    ("the offset", "t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [k, 0], [64, 64])\n"
                   "out = pl.store(t, [0, 0], out)\nreturn out"),
    ("the offset", "t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])\n"
                   "s: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [8, 64], [k, 0])\n"
                   "out = pl.store(s, [0, 0], out)\nreturn out"),
])
@pytest.mark.parametrize("dtype", NOT_INTEGER, ids=lambda d: d.value)
def test_a_float_or_bool_scalar_where_an_integer_is_needed_is_a_located_error(dtype: ir.DType, site: str,
                                                                        body: str) -> None:
    """A float or bool scalar as an offset would be an `index` operand defined as a float or an
    `i1` (a module that does not verify): codegen declines it at the statement that uses it."""
    params = (f"a: pl.Tensor[[256, 64], pl.FP32], k: pl.Scalar[pl.{dtype.value}], "
              "out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]")
    source = kernel(body, params=params)
    with pytest.raises(PassError) as err:
        compile_(source)
    assert err.value.message == f"{site} 'k' is pl.{dtype.value}; it must be an integer"
    use = next(n for n, line in enumerate(source.splitlines(), 1) if "[k, 0]" in line)
    assert err.value.span.line == use


PARAMS = "a: pl.Tensor[[256, 64], pl.{}], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]"


def test_a_float_operand_an_emitter_lowers_as_an_index_is_a_located_error() -> None:
    """The same for an operand an op's emitter lowers at INDEX itself (`tile.extract`'s row
    and column): the error names the statement."""
    body = ("m: pl.Tile[[64, 64], pl.BF16, pl.Mem.Mat] = pl.load(a, [0, 0], [64, 64], "
            "target_memory=pl.Mem.Mat)\n"
            "x: pl.Tile[[64, 64], pl.BF16, pl.Mem.Left] = pl.tile.extract(m, 0, 0.5, [64, 64], "
            "target_memory=pl.Mem.Left)\n"
            "return out")
    source = kernel(body, params=PARAMS.format("BF16"))
    with pytest.raises(PassError) as err:
        compile_(source)
    assert err.value.message == "'0.5' is pl.FP32 where an integer (pl.INDEX) is needed"
    assert err.value.span.line == next(n for n, line in enumerate(source.splitlines(), 1) if "0.5" in line)


@pytest.mark.parametrize("rows", [-1, 65, -9223372036854775808])
def test_a_literal_valid_extent_outside_the_tile_is_a_located_error(rows: int) -> None:
    """A literal valid extent past `[0, extent]` would size the transfer past the tile's buffer
    (and print a negative extent into a partition type): declined at the definition."""
    body = (f"t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [64, 64], [{rows}, 64], "
            "target_memory=pl.Mem.Vec)\nout = pl.store(t, [0, 0], out)\nreturn out")
    source = kernel(body, params=PARAMS.format("FP32"))
    with pytest.raises(PassError) as err:
        compile_(source)
    assert err.value.message == (f"tile 't' has the valid extent {rows}, outside [0, 64] "
                                 "(its extent on that axis)")
    load = next(n for n, line in enumerate(source.splitlines(), 1) if "tile.load" in line)
    assert err.value.span.line == load


@pytest.mark.parametrize(("value", "expected"), [("2.0", "%c2_i32 = arith.constant 2 : i32"),
                                                 ("-3.0", "%cn3_i32 = arith.constant -3 : i32"),
                                                 ("2.5", None), ("1e300", None), ("3e9", None)])
def test_a_float_literal_operand_of_an_integer_op_is_its_integer_value_or_an_error(
        value: str, expected: str | None) -> None:
    """`pl.tile.full(..., dtype=pl.INT32, value=2.0)`: the literal has an INT32 value (2), so it
    is that constant, never a float constant of an integer type (a module that does not
    verify); a literal without one is a located error."""
    body = (f"t: pl.Tile[[64, 64], pl.INT32, pl.Mem.Vec] = pl.tile.full([64, 64], dtype=pl.INT32, "
            f"value={value})\nout = pl.store(t, [0, 0], out)\nreturn out")
    source = kernel(body, params="out: pl.Out[pl.Tensor[[256, 64], pl.INT32]]",
                    ret="pl.Tensor[[256, 64], pl.INT32]")
    if expected is not None:
        text = compile_(source).pto_text
        assert expected in text
        assert "pto.texpands ins(" + expected.split(" =")[0] + " : i32)" in text
        return
    with pytest.raises(PassError) as err:
        compile_(source)
    assert err.value.message == f"the float literal {float(value)!r} is not a pl.INT32 value"
    full = next(n for n, line in enumerate(source.splitlines(), 1) if "tile.full" in line)
    assert err.value.span.line == full
