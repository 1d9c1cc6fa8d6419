"""The xdsl `pto` dialect (`lowering/pto_dialect.py`): the §5.8 module round-trips, and the
ptoas verifier checks of `40-ptoas-slot-matcher.md` §1 are op / type verifiers."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.utils.exceptions import ParseError, VerifyException

from slotsat.app.pipeline import compile_source
from slotsat.lowering.pto_dialect import normalize, parse_and_verify
from tests.codegen.harness import TT

ROOT = Path(__file__).resolve().parents[2]


def _spec_example() -> str:
    spec = ROOT.parent / "shared" / "spec" / "30-pto-codegen.md"
    if not spec.exists():
        spec = Path("/work/shared/spec/30-pto-codegen.md")
    text = spec.read_text()
    start = text.index("```\nmodule", text.index("### 5.8")) + 4
    block = text[start : text.index("```\n", start)]
    import re

    block = re.sub(r"\bTT\b", TT, block)
    return re.sub(r"\bPV\b", "!pto.partition_tensor_view<64x64xf32>", block)


def test_accumulate_is_exactly_the_spec_module() -> None:
    src = (ROOT / "examples" / "kernels" / "accumulate.py").read_text()
    assert compile_source(src, "accumulate.py").pto_text == _spec_example()


def test_accumulate_pypto_mode_changes_only_the_remainder() -> None:
    from slotsat.app.pipeline import CompileOptions
    from slotsat.core.options import Mode

    src = (ROOT / "examples" / "kernels" / "accumulate.py").read_text()
    text = compile_source(src, "accumulate.py", CompileOptions(mode=Mode.PYPTO)).pto_text
    assert text == _spec_example().replace("%2 = arith.remui %1", "%2 = arith.remsi %1")


def test_the_spec_module_round_trips() -> None:
    text = _spec_example()
    assert normalize(parse_and_verify(text)) == normalize(text)


def _module(body: str) -> str:
    return (
        "module {\n  func.func @k() {\n  %c0_index = arith.constant 0 : index\n"
        "  %c5_index = arith.constant 5 : index\n  %c64_index = arith.constant 64 : index\n"
        f"{body}\n  return\n  }}\n}}\n"
    )


@pytest.mark.parametrize(
    ("count", "message"),
    [(1, "multi_tile_buf count must be >= 2 (got 1)"), (17, "multi_tile_buf count must be <= 16 (got 17)")],
)
def test_region_count_is_verified(count: int, message: str) -> None:
    text = _module(
        f"  %m = pto.alloc_multi_tile valid_row = %c64_index valid_col = %c64_index : "
        f"!pto.multi_tile_buf<{TT}, count={count}>"
    )
    with pytest.raises(VerifyException, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_and_verify(text)


def test_constant_slot_out_of_range_is_verified() -> None:
    mtb = f"!pto.multi_tile_buf<{TT}, count=2>"
    text = _module(
        f"  %m = pto.alloc_multi_tile valid_row = %c64_index valid_col = %c64_index : {mtb}\n"
        f"  %t = pto.multi_tile_get %m[%c5_index] : {mtb} -> {TT}"
    )
    with pytest.raises(VerifyException, match="constant slot 5 is out of range for multi_tile_buf count=2"):
        parse_and_verify(text)


def test_get_result_type_must_be_the_slot_type() -> None:
    mtb = f"!pto.multi_tile_buf<{TT}, count=2>"
    other = TT.replace("rows=64", "rows=32")
    text = _module(
        f"  %m = pto.alloc_multi_tile valid_row = %c64_index valid_col = %c64_index : {mtb}\n"
        f"  %t = pto.multi_tile_get %m[%c0_index] : {mtb} -> {other}"
    )
    with pytest.raises(VerifyException, match="result type must equal the slot type"):
        parse_and_verify(text)


def test_a_tensor_views_pointer_has_the_views_element_type() -> None:
    # The custom syntax prints no type for the pointer; the format infers `!pto.ptr<f32>` from
    # the view, so a pointer of another element type is an error, not a silent retype.
    text = _module("").replace("@k()", "@k(%p: !pto.ptr<f16>)").replace(
        "  return", "  %tv = pto.make_tensor_view %p, shape = [%c64_index], strides = [%c64_index] : "
        "!pto.tensor_view<?xf32>\n  return")
    with pytest.raises(ParseError, match=r"used with type !pto.ptr<f32>, but has been previously used or "
                                         r"defined with type !pto.ptr<f16>"):
        parse_and_verify(text)


def test_a_destination_op_needs_one_type_per_operand() -> None:
    text = _module(f"  %a = pto.alloc_tile valid_row = %c64_index valid_col = %c64_index : {TT}\n"
                   f"  pto.tadd ins(%a, %a : {TT}) outs(%a : {TT})")
    with pytest.raises(ParseError, match="expected 1 operand types but had 2"):
        parse_and_verify(text)


def test_a_format_2_merge_sort_writes_its_tile_and_the_executed_status_vector() -> None:
    alloc = f"  %a = pto.alloc_tile valid_row = %c64_index valid_col = %c64_index : {TT}\n"
    merge = (f"  pto.tmrgsort ins(%a, %a, %a {{exhausted = false}} : {TT}, {TT}, {TT}) "
             f"outs(%a, %e : {TT}, VEC)")
    good = alloc + "  %e = arith.constant dense<0> : vector<4xi16>\n" + merge.replace("VEC", "vector<4xi16>")
    parse_and_verify(_module(good))
    bad = alloc + "  %e = arith.constant dense<0> : vector<4xi32>\n" + merge.replace("VEC", "vector<4xi32>")
    with pytest.raises(VerifyException, match="executed-status vector<4xi16>"):
        parse_and_verify(_module(bad))


def test_a_mask_gather_names_its_pattern_and_axis_and_the_index_form_has_neither() -> None:
    alloc = f"  %a = pto.alloc_tile valid_row = %c64_index valid_col = %c64_index : {TT}\n"
    mask = alloc + (f"  pto.tgather ins(%a, {{maskPattern = #pto.mask_pattern<P1010>}} : {TT}, \"row\") "
                    f"outs(%a : {TT})")
    assert "#pto.mask_pattern<P1010>" in parse_and_verify(_module(mask))
    index = alloc + f"  pto.tgather ins(%a, %a, %a : {TT}, {TT}, {TT}) outs(%a : {TT})"
    parse_and_verify(_module(index))
    with pytest.raises(VerifyException, match="must be one of"):
        parse_and_verify(_module(mask.replace("P1010", "P0110")))
    with pytest.raises(VerifyException, match="gathers along row"):
        parse_and_verify(_module(mask.replace('"row"', '"col"')))
    masked = f"outs(%a : {TT}) {{maskPattern = #pto.mask_pattern<P1010>}}"
    with pytest.raises(VerifyException, match="names its axis"):
        parse_and_verify(_module(index.replace(f"outs(%a : {TT})", masked)))


def test_a_mask_scatter_has_the_gathers_syntax_and_the_index_form_takes_its_indexes() -> None:
    alloc = f"  %a = pto.alloc_tile valid_row = %c64_index valid_col = %c64_index : {TT}\n"
    mask = alloc + (f"  pto.tscatter ins(%a, {{maskPattern = #pto.mask_pattern<P0101>}} : {TT}, \"row\") "
                    f"outs(%a : {TT})")
    printed = parse_and_verify(_module(mask))
    assert f"pto.tscatter ins(%a, {{maskPattern = #pto.mask_pattern<P0101>}} : {TT}, \"row\")" in printed
    index = alloc + f"  pto.tscatter ins(%a, %a : {TT}, {TT}) outs(%a : {TT})"
    parse_and_verify(_module(index))
    with pytest.raises(VerifyException, match="scatters along row"):
        parse_and_verify(_module(mask.replace('"row"', '"col"')))
    with pytest.raises(VerifyException, match="index form takes a source and its indexes"):
        parse_and_verify(_module(index.replace(f"%a, %a : {TT}, {TT}", f"%a : {TT}")))
