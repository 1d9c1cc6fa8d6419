"""The slot-privacy checker (`analysis/privacy.py`).

Groups: wrong author subscripts are caught (`(i // 2) % 2`, `i % 2` on a stepped loop, `i % 2`
with four slots in flight, two tiles in one slot); correct rotations are accepted, in every
slot-index form of `20-lower-pipeline-to-slots.md` §4.2 and on the slots pass's own output,
and two slots of one allocation loaded once each per iteration run in program order;
a wrong synthesized slot is caught; liveness follows carried values; the schedule drains at
a loop's exit; undeterminable slot indices and runtime bounds give notes, not verdicts.
"""

# ruff: noqa: E501  (embedded kernel text keeps one statement per line, 10-dsl.md §9.1)

from __future__ import annotations

from pathlib import Path

import pytest

from slotsat.analysis.budget import Backend
from slotsat.analysis.privacy import check_privacy
from slotsat.app.cli import main
from slotsat.core import ir
from slotsat.core.dsl.parser import parse_file, parse_source
from slotsat.core.dsl.printer import print_module
from slotsat.core.interpreter import run_ahead_loads
from slotsat.lowering.lower_pipeline_to_slots import LowerPipelineToSlots

DATA = Path(__file__).parent / "data"
KERNELS = Path(__file__).resolve().parents[2] / "examples" / "kernels"


def _fn(text: str) -> ir.Function:
    return parse_source(text, "k.py").programs[0].functions[0]


def _loop_kernel(header: str, slot: str, slots: int, rows: int = 1024, body_extra: str = "") -> str:
    return f"""import pypto.language as pl


@pl.program
class K:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[{rows}, 16], pl.FP32], n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[{rows}, 16], pl.FP32]]) -> pl.Tensor[[{rows}, 16], pl.FP32]:
        for i, (dst,) in {header}:
            t: pl.Tile[[1, 16], pl.FP32, pl.MemRef("buf", slots={slots})[{slot}], pl.Mem.Vec] = pl.load(x, [i, 0], [1, 16])
            e: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.exp(t){body_extra}
            nxt: pl.Tensor[[{rows}, 16], pl.FP32] = pl.store(e, [i, 0], dst)
            res = pl.yield_(nxt)
        return res
"""


# ---- wrong subscripts are caught


def test_div_two_subscript_with_two_slots_is_caught_with_the_exact_message() -> None:
    report = check_privacy(parse_file(DATA / "wrong_div2.py").programs[0].functions[0])
    assert [v.message() for v in report.violations] == [
        "loop 'i' at 13:9: tile 't' of iteration 0 is overwritten by iteration 1's load into slot 0 while "
        "still live (allocation 'pp'; 4 conflicting pairs)"
    ]


@pytest.mark.parametrize(
    ("name", "iteration", "other", "slot"),
    [("wrong_stepped.py", 0, 64, 0), ("wrong_stage4.py", 0, 2, 0), ("wrong_two_live.py", 0, 0, 0)],
)
def test_wrong_author_slots_are_caught(name: str, iteration: int, other: int, slot: int) -> None:
    report = check_privacy(parse_file(DATA / name).programs[0].functions[0])
    assert not report.ok
    v = report.violations[0]
    assert (v.loop, v.tile, v.iteration, v.other_iteration, v.slot) == ("i", "t", iteration, other, slot)


def test_two_slot_rotation_under_four_in_flight_iterations_is_caught() -> None:
    report = check_privacy(_fn(_loop_kernel("pl.range(16, init_values=(out,))", "i % 2", 4)))
    assert {(v.iteration, v.other_iteration) for v in report.violations} == {(0, 2)}
    assert report.violations[0].count == 14  # iterations (k, k + 2) for k = 0 .. 13


# ---- correct rotations are accepted


_SWAPPED = (DATA / "wrong_two_live.py").read_text().replace(
    "PP[i % 2], pl.Mem.Vec] = pl.load(y", "PP[(i + 1) % 2], pl.Mem.Vec] = pl.load(y")
"""PyPTO's own runtime test of slotted allocations, in this project's words: both slots are
live together in every iteration and swap roles the next."""


def test_two_slots_loaded_once_each_per_iteration_rotate_in_program_order() -> None:
    # An allocation loaded twice per iteration is no ring, so its loads do not run ahead
    # (`interpreter.run_ahead_loads`) and nothing conflicts.
    fn = _fn(_SWAPPED)
    report = check_privacy(fn)
    assert report.ok, [v.message() for v in report.violations]
    assert report.definitions == 8
    loop = fn.body.stmts[0]
    assert isinstance(loop, ir.ForStmt)
    assert run_ahead_loads(loop) == frozenset()


def test_check_confirms_two_slots_loaded_once_each_per_iteration(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "k.py"
    path.write_text(_SWAPPED)
    assert main(["check", str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].endswith("1 function(s), 1 loop(s): confirmed")


def test_a_ring_loaded_once_per_iteration_runs_ahead() -> None:
    loop = _fn(_loop_kernel("pl.range(16, init_values=(out,))", "i % 2", 2)).body.stmts[0]
    assert isinstance(loop, ir.ForStmt)
    assert run_ahead_loads(loop) == frozenset({loop.body.stmts[0].var.id})  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("header", "slot", "slots"),
    [
        ("pl.range(16, init_values=(out,))", "i % 2", 2),
        ("pl.range(2, 18, init_values=(out,))", "i % 4", 4),
        ("pl.range(1, 17, init_values=(out,))", "(i - 1) % 2", 2),
        ("pl.range(3, 19, init_values=(out,))", "(i - 3) % 2", 2),
        ("pl.range(0, 1024, 64, init_values=(out,))", "i // 64 % 2", 2),
        ("pl.range(8, 1000, 4, init_values=(out,))", "(i - 8) // 4 % 4", 4),
        ("pl.range(8, 264, 64, init_values=(out,))", "(i - 8) // 64 % 4", 4),
        ("pl.range(16, init_values=(out,))", "i % 16", 16),
    ],
)
def test_correct_rotations_are_accepted(header: str, slot: str, slots: int) -> None:
    report = check_privacy(_fn(_loop_kernel(header, slot, slots)))
    assert report.ok, [v.message() for v in report.violations]
    assert report.definitions > 0


@pytest.mark.parametrize("name", ["row_scale.py", "strided_exp.py", "accumulate.py", "matmul_k.py"])
def test_the_slots_pass_output_is_private(name: str) -> None:
    fn = parse_file(KERNELS / name).programs[0].functions[0]
    slotted = LowerPipelineToSlots(backend=Backend.ASCEND950).run(fn).function
    report = check_privacy(slotted)
    assert report.ok
    assert report.definitions > 0


def test_a_wrong_synthesized_slot_is_caught() -> None:
    module = parse_file(KERNELS / "row_scale.py")
    fn = module.programs[0].functions[0]
    slotted = LowerPipelineToSlots(backend=Backend.ASCEND950).run(fn).function
    program = module.programs[0]
    text = print_module(ir.Module((ir.Program(program.name, (slotted,)),)))
    assert text.count("[r % 2]") == 2
    broken = _fn(text.replace('pl.MemRef("pipe_gt", slots=2)[r % 2]', 'pl.MemRef("pipe_gt", slots=2)[r // 2 % 2]'))
    report = check_privacy(broken)
    assert [(v.tile, v.region, v.iteration, v.other_iteration) for v in report.violations] == [("gt", "pipe_gt", 0, 1)]


# ---- liveness and the schedule


def test_a_carried_tile_stays_live_into_the_next_iteration() -> None:
    text = """import pypto.language as pl


@pl.program
class K:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[64, 16], pl.FP32], out: pl.Out[pl.Tensor[[1, 16], pl.FP32]]) -> pl.Tensor[[1, 16], pl.FP32]:
        z: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [1, 16])
        for i, (prev,) in pl.range(1, 9, init_values=(z,)):
            t: pl.Tile[[1, 16], pl.FP32, pl.MemRef("buf", slots=SLOTS)[i % SLOTS], pl.Mem.Vec] = pl.load(x, [i, 0], [1, 16])
            s: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.add(prev, t)
            w = pl.yield_(t)
        r: pl.Tensor[[1, 16], pl.FP32] = pl.store(w, [0, 0], out)
        return r
"""
    # t of iteration k is read by iteration k + 1, while the load of iteration k + F (F slots,
    # F in flight) may already run: a carried slot needs F + 1 buffers, so it always conflicts
    # (the slots pass declines it, T3; codegen rejects it for author slots, decision 4).
    two = check_privacy(_fn(text.replace("SLOTS", "2")))
    assert [(v.iteration, v.other_iteration) for v in two.violations] == [(1, 3)]
    three = check_privacy(_fn(text.replace("SLOTS", "3")))
    assert [(v.iteration, v.other_iteration) for v in three.violations] == [(1, 4)]
    fresh = text.replace("SLOTS", "2").replace("w = pl.yield_(t)", "w = pl.yield_(s)")
    assert check_privacy(_fn(fresh)).ok


def test_an_inner_rotation_restarting_each_outer_iteration_is_accepted() -> None:
    text = """import pypto.language as pl


@pl.program
class K:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[64, 16], pl.FP32], out: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> pl.Tensor[[64, 16], pl.FP32]:
        for o, (d0,) in pl.range(3, init_values=(out,)):
            for j, (d1,) in pl.range(3, init_values=(d0,)):
                t: pl.Tile[[1, 16], pl.FP32, pl.MemRef("buf", slots=2)[j % 2], pl.Mem.Vec] = pl.load(x, [o * 3 + j, 0], [1, 16])
                nxt: pl.Tensor[[64, 16], pl.FP32] = pl.store(t, [o * 3 + j, 0], d1)
                r1 = pl.yield_(nxt)
            r0 = pl.yield_(r1)
        return r0
"""
    report = check_privacy(_fn(text))
    assert report.ok
    assert report.definitions == 9


def test_a_runtime_bound_needs_its_scalar() -> None:
    fn = _fn(_loop_kernel("pl.range(n, init_values=(out,))", "i // 2 % 2", 2))
    unknown = check_privacy(fn)
    assert unknown.ok
    assert any("bounds of loop 'i'" in n for n in unknown.notes)
    assert not check_privacy(fn, {"n": 6}).ok
    assert check_privacy(fn, {"n": 1}).ok


def test_a_data_dependent_slot_index_is_a_note() -> None:
    text = _loop_kernel("pl.range(4, init_values=(out,))", "k % 2", 2).replace(
        "            t: pl.Tile",
        "            s0: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [i, 0], [1, 16])\n"
        "            f: pl.Scalar[pl.FP32] = pl.tile.read(s0, [0, 0])\n"
        "            k: pl.Scalar[pl.INDEX] = i\n"
        "            t: pl.Tile")
    assert check_privacy(_fn(text)).ok
    fn = _fn(text.replace("[k % 2]", "[(k // 2) % 2]"))
    assert not check_privacy(fn).ok


def test_the_iteration_limit_truncates_with_a_note() -> None:
    fn = _fn(_loop_kernel("pl.range(0, 9223372036854775805, 3, init_values=(out,))", "i // 3 % 3", 3))
    report = check_privacy(fn, max_iterations=50)
    assert report.ok
    assert report.definitions == 50
    assert any("iteration limit" in n for n in report.notes)


_IN_PLACE = """import pypto.language as pl


@pl.program
class K:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t0: pl.Tile[[64, 64], pl.FP32, pl.MemRef("scratch", slots=2)[0], pl.Mem.Vec] = pl.load(x, [0, 0], [64, 64])
        t1: pl.Tile[[64, 64], pl.FP32, pl.MemRef("scratch", slots=2)[0], pl.Mem.Vec] = OP
        r: pl.Tensor[[64, 64], pl.FP32] = pl.store(LAST, [0, 0], out)
        return r
"""


@pytest.mark.parametrize(("op", "last", "ok"), [
    ("pl.exp(t0)", "t1", True),  # reads t0 for the last time and computes over it, in place
    ("pl.add(t0, t0)", "t1", True),
    ("pl.tile.move(t0, target_memory=pl.Mem.Vec)", "t1", False),  # the reference: distinct addresses
    ("pl.recip(t0)", "t1", False),  # not in-place safe in the reference's op registry
    ("pl.exp(t0)", "pl.add(t0, t1)", False),  # t0 is read after t1 overwrote it
])
def test_an_op_may_write_over_the_operand_it_reads_last_where_the_op_table_allows(op: str, last: str,
                                                                                  ok: bool) -> None:
    """`t1 = pl.exp(t0)` with both on one declared slot is in place, as the reference's own
    declared-memref test has it; a move (not in-place safe in the reference's op registry) or a
    later read of `t0` is still a conflict."""
    text = _IN_PLACE.replace("OP", op)
    if last != "t1":
        text = text.replace("pl.store(LAST,", "pl.store(t2,").replace(
            "        r: pl.Tensor", f"        t2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = {last}\n        r: pl.Tensor")
    report = check_privacy(_fn(text.replace("LAST", "t1")))
    assert report.ok is ok, [v.message() for v in report.violations]
