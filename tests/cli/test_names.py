"""Emitted MLIR names: a DSL identifier MLIR would not accept (`ξ`) is spelled
deterministically as an ASCII name, never emitted raw (issue 15.3)."""

from __future__ import annotations

from slotsat.app.pipeline import compile_source
from slotsat.lowering.pto_codegen import mlir_name
from slotsat.lowering.pto_dialect import normalize, parse_and_verify

GREEK = """\
import pypto.language as pl


@pl.program
class Greek:
    @pl.function(type=pl.FunctionType.InCore)
    def κ(
        self,
        ξ: pl.Tensor[[64, 32], pl.FP16],
        out: pl.Out[pl.Tensor[[64, 32], pl.FP16]],
    ) -> pl.Tensor[[64, 32], pl.FP16]:
        for i, (dst,) in pl.pipeline(0, 64, 8, stage=2, init_values=(out,)):
            tξ: pl.Tile[[8, 32], pl.FP16, pl.Mem.Vec] = pl.load(ξ, [i, 0], [8, 32])
            e: pl.Tile[[8, 32], pl.FP16, pl.Mem.Vec] = pl.exp(tξ)
            nxt: pl.Tensor[[64, 32], pl.FP16] = pl.store(e, [i, 0], dst)
            res = pl.yield_(nxt)
        return res
"""


def test_a_non_ascii_identifier_is_spelled_in_ascii() -> None:
    text = compile_source(GREEK, "greek.py").pto_text
    assert text.isascii()
    assert "func.func @u03ba(" in text
    assert "%u03be_view = pto.make_tensor_view" in text
    assert "%pipe_tu03be_mb = pto.alloc_multi_tile" in text
    assert normalize(parse_and_verify(text)) == normalize(text)
    assert compile_source(GREEK, "greek.py").pto_text == text


def test_a_valid_name_is_kept_and_a_mangled_one_stays_unique() -> None:
    assert mlir_name("acc_tile.2") == "acc_tile.2"
    assert mlir_name("ξ") == "u03be"
    assert mlir_name("𝑥") == "u1d465"
    # a mangled name that meets a written one is disambiguated like any other clash
    clash = GREEK.replace("e: pl.Tile", "tu03be: pl.Tile").replace("pl.store(e,", "pl.store(tu03be,")
    text = compile_source(clash, "greek.py").pto_text
    assert "%tu03be = pto.multi_tile_get" in text
    assert "outs(%tu03be_1 : " in text
