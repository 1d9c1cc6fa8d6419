"""stamp-tfree-split (`lowering/stamp_tfree_split.py`): a cross-core free takes the split and
pipe id of the pop whose tile it frees, as the reference's StampTfreeSplit does (the cases
of its `tests/ut/ir/transforms/test_stamp_tfree_split.py`, plus nesting, printed IR and the
whole pipeline on a printed mixed kernel with the free's split left off).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from slotsat.app.pipeline import compile_source
from slotsat.core import ir
from slotsat.core.dsl import parse_source
from slotsat.core.dsl.printer import print_module
from slotsat.core.errors import PassError
from slotsat.lowering.stamp_tfree_split import StampTfreeSplit

ROOT = Path(__file__).resolve().parents[2]
MIXED = (ROOT / "tests" / "data" / "printed" / "jit_mixed_gemm_add.pre.py").read_text()

HEADER = """import pypto.language as pl


@pl.program
class Before:
    @pl.function(type=pl.FunctionType.AIV)
    def consumer(self):
        buf = pl.reserve_buffer(name="c2v", size=4096, base=0x1000)
        pl.aiv_initialize_pipe(dir_mask=1, slot_size=512, c2v_consumer_buf=buf{init_id})
"""


def _consumer(body: str, init_id: str = "") -> str:
    return HEADER.format(init_id=init_id) + "".join(f"        {line}\n" for line in body.splitlines())


def _stamp(text: str) -> ir.Function:
    fn = parse_source(text, "stamp.py").programs[0].functions[0]
    return StampTfreeSplit().run(fn).function


def _frees(fn: ir.Function) -> list[str]:
    module = ir.Module((ir.Program("Before", (fn,)),))
    return [line.strip() for line in print_module(module).splitlines() if "tfree_to" in line]


POP = "t: pl.Tile[[16, 16], pl.FP32, pl.MemorySpace.Vec] = pl.tpop_from_aic({})"


@pytest.mark.parametrize(("pop", "free", "stamped"), [
    ("split=2", "pl.tfree_to_aic(t)", "pl.system.tfree_to_aic(t, split=2)"),
    ("split=1, id=3", "pl.tfree_to_aic(t)", "pl.system.tfree_to_aic(t, split=1, id=3)"),
    ("split=1, id=3", "pl.tfree_to_aic(t, id=3)", "pl.system.tfree_to_aic(t, split=1, id=3)"),
    ("", "pl.tfree_to_aic(t)", "pl.system.tfree_to_aic(t, split=0)"),
    # the pop decides: a split given on the free does not override it (the DSL's docs say so)
    ("split=2", "pl.tfree_to_aic(t, split=1)", "pl.system.tfree_to_aic(t, split=2)"),
])
def test_a_free_takes_the_split_and_id_of_its_pop(pop: str, free: str, stamped: str) -> None:
    init_id = ", id=3" if "id=3" in pop else ""
    fn = _stamp(_consumer(f"{POP.format(pop)}\n{free}", init_id))
    assert _frees(fn) == [stamped]


def test_a_free_in_a_loop_finds_its_pop_in_the_same_body_and_the_pass_is_idempotent() -> None:
    text = _consumer("for i in pl.range(4):\n"
                     f"    {POP.format('split=1')}\n"
                     "    pl.tfree_to_aic(t)")
    fn = _stamp(text)
    assert _frees(fn) == ["pl.system.tfree_to_aic(t, split=1)"]
    assert StampTfreeSplit().run(fn).function is fn


def test_a_function_without_a_free_is_returned_as_it_is() -> None:
    fn = parse_source(_consumer(POP.format("split=1")), "stamp.py").programs[0].functions[0]
    assert StampTfreeSplit().run(fn).function is fn


@pytest.mark.parametrize(("body", "message"), [
    (f"{POP.format('split=1, id=3')}\npl.tfree_to_aic(t, id=0)",
     "system.tfree_to_aic pipe id 0 does not match originating tile.tpop_from_aic pipe id 3"),
    (f"{POP.format('split=0')}\npl.tfree_to_aiv(t)",
     "system.tfree_to_aiv requires its tile argument to come from tile.tpop_from_aiv, "
     "got tile.tpop_from_aic"),
    ("t: pl.Tile[[16, 16], pl.FP32, pl.MemorySpace.Vec] = pl.tile.create([16, 16], dtype=pl.FP32)\n"
     "pl.tfree_to_aic(t)",
     "system.tfree_to_aic requires its tile argument to come from a matching tile.tpop_from_ai{c,v}, "
     "but no originating tpop was found"),
])
def test_a_free_its_pop_does_not_match_is_a_located_error(body: str, message: str) -> None:
    text = _consumer(body, ", id=3" if "id=3" in body else "")
    with pytest.raises(PassError) as err:
        _stamp(text)
    assert err.value.message == message
    lines = text.splitlines()
    assert "tfree_to" in lines[err.value.span.line - 1]


def test_a_printed_free_that_names_no_pop_keeps_its_split() -> None:
    body = ("t: pl.Tile[[16, 16], pl.FP32, pl.MemorySpace.Vec] = pl.tile.create([16, 16], dtype=pl.FP32)\n"
            "pl.system.tfree_to_aic(t, split=1)")
    fn = parse_source(_consumer(body), "stamp.py").programs[0].functions[0]
    assert StampTfreeSplit().run(fn).function is fn


def test_a_hand_written_free_compiles_as_the_printed_one() -> None:
    free = "pl.system.tfree_to_aic(acc__rv_v2_Vec, split=0)"
    assert MIXED.count(free) == 1
    bare = MIXED.replace(free, "pl.system.tfree_to_aic(acc__rv_v2_Vec)")
    printed = compile_source(MIXED, "mixed.pre.py").pto_text
    assert "pto.tfree_from_aic {split = 0}" in printed
    assert compile_source(bare, "mixed.pre.py").pto_text == printed
