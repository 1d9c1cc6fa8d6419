# ruff: noqa: E501  (DSL statements in the kernel texts are one line each, as printed)
"""The `cross-core` gate of lower-pipeline-to-slots (issue 16 item 4).

The reference never hands its slot pass a pipeline loop whose own body both pushes a tile to
the other core (`tile.tpush_to_aiv` / `tile.tpush_to_aic`) and pops one from it
(`tile.tpop_from_aic` / `tile.tpop_from_aiv`): its SkewCrossCorePipeline, which runs just
before, software-pipelines or demotes every such loop. slotsat declines it with the code
`cross-core`, first after `planner` in the order of §10; the loop keeps its marking and is
replicated. One direction alone is an ordinary op, and a push or pop nested below the body
(in an `if` or an inner loop) does not count, exactly as in the reference's
`BodyHasCrossCorePair`.

Both sides of every boundary: push and pop (declined) against push only, pop only, and the pair
one level down (slotted); `stage=1` (untouched); the order against every later gate; nesting.
"""

from __future__ import annotations

import pytest

from slotsat.core import ir
from slotsat.core.ops import CrossCore, cross_core_role
from slotsat.core.options import Planner
from slotsat.egraph_rules.gates import CODES
from slotsat.lowering.lower_pipeline_loops import LowerPipelineLoops
from slotsat.lowering.lower_pipeline_to_slots import Decision
from tests.slots.harness import (
    assert_declined,
    assert_expected,
    decisions,
    function,
    pipeline_loops,
    program,
    slots,
)

PUSH = "pl.tile.tpush_to_aic(t, split=0)"
POP = "r: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=0)"
NO_POP = "r: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(t)"


def _loop(header: str, push: str = PUSH, pop: str = POP, memref: str = "") -> str:
    mr = f", {memref}" if memref else ""
    lines = [
        f"for i, (acc,) in pl.{header}, init_values=(out,)):",
        f"    t: pl.Tile[[64, 64], pl.FP32{mr}, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])",
    ]
    if push:
        lines.append(f"    {push}")
    lines += [
        f"    {pop}",
        "    nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(r, [i * 64, 0], acc)",
        "    y = pl.yield_(nxt)",
        "return y",
    ]
    return program("\n".join(lines))


SLOT = 'pl.MemRef("pipe_t", slots=2)[i % 2]'
CROSS = _loop("pipeline(0, 4, 1, stage=2")


def test_cross_core_is_checked_right_after_the_planner() -> None:
    assert CODES[:3] == ("planner", "cross-core", "under-declined")


@pytest.mark.parametrize(("op", "role"), [
    ("tile.tpush_to_aiv", CrossCore.PUSH), ("tile.tpush_to_aic", CrossCore.PUSH),
    ("tile.tpop_from_aic", CrossCore.POP), ("tile.tpop_from_aiv", CrossCore.POP),
    ("tile.load", None), ("system.tfree_to_aic", None), ("tile.move", None),
])
def test_the_four_transfer_ops_of_the_reference_have_a_cross_core_role(op: str, role: CrossCore | None) -> None:
    assert cross_core_role(op) is role


def test_a_loop_that_pushes_and_pops_across_cores_is_declined_and_left_as_written() -> None:
    fn = function(CROSS)
    d = assert_declined(CROSS, "cross-core")
    assert d.decline is not None
    assert d.decline.message == ("the body exchanges tiles with the other core (tile.tpush_to_aic, "
                                 "tile.tpop_from_aic); a cross-core loop is pipelined across the cores, "
                                 "not rotated through slots")
    assert_expected(CROSS, CROSS)  # Before/Expected: nothing changes
    out = slots(fn).result
    assert [loop.stages for loop in pipeline_loops(out)] == [2]


def test_a_loop_that_only_pushes_is_slotted() -> None:
    before = _loop("pipeline(0, 4, 1, stage=2", pop=NO_POP)
    assert_expected(before, _loop("range(4", pop=NO_POP, memref=SLOT))


def test_a_loop_that_only_pops_is_slotted() -> None:
    before = _loop("pipeline(0, 4, 1, stage=2", push="")
    assert_expected(before, _loop("range(4", push="", memref=SLOT))


def test_a_push_and_pop_nested_below_the_loop_body_do_not_make_it_cross_core() -> None:
    def src(header: str, memref: str = "") -> str:
        mr = f", {memref}" if memref else ""
        return program(f"""
        for i, (acc,) in pl.{header}, init_values=(out,)):
            t: pl.Tile[[64, 64], pl.FP32{mr}, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
            for k in pl.range(1):
                {PUSH}
                {POP}
            e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(t)
            nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(e, [i * 64, 0], acc)
            y = pl.yield_(nxt)
        return y
        """)

    assert_expected(src("pipeline(0, 4, 1, stage=2"), src("range(4", SLOT))


def test_a_stage_1_cross_core_loop_is_untouched_without_a_record() -> None:
    src = _loop("pipeline(0, 4, 1, stage=1")
    plan = slots(function(src))
    (d,) = plan.loops
    assert d.decision is Decision.UNTOUCHED
    assert plan.declines == ()


def test_cross_core_is_reported_before_every_loop_shape_and_tile_gate() -> None:
    # stage 17 (stage-range), a runtime start (runtime-start), a view of the load (tile-view)
    src = program(f"""
    for i, (acc,) in pl.pipeline(n, 40, 1, stage=17, init_values=(out,)):
        t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
        v: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.reshape(t, [64, 64])
        {PUSH}
        {POP}
        nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(r, [0, 0], acc)
        y = pl.yield_(nxt)
    return y
    """, params="a: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]], n: pl.Scalar[pl.INDEX]")
    assert_declined(src, "cross-core")


def test_the_planner_gate_still_comes_first() -> None:
    plan = slots(function(CROSS), planner=Planner.PYPTO)
    assert [d.code for d in plan.declines] == ["planner"]


def test_a_cross_core_outer_loop_disqualifies_an_eligible_inner_loop() -> None:
    src = program(f"""
    for o, (acc0,) in pl.pipeline(0, 2, 1, stage=2, init_values=(out,)):
        t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [o * 64, 0], [64, 64])
        {PUSH}
        {POP}
        for i, (acc,) in pl.pipeline(0, 4, 1, stage=2, init_values=(acc0,)):
            u: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
            e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.add(u, r)
            nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(e, [i * 64, 0], acc)
            y = pl.yield_(nxt)
        z = pl.yield_(y)
    return z
    """)
    assert [d.decline.code for d in decisions(src) if d.decline] == ["cross-core", "under-declined"]


def test_an_inner_cross_core_loop_leaves_its_outer_loop_slotted() -> None:
    src = program(f"""
    for o, (acc0,) in pl.pipeline(0, 2, 1, stage=2, init_values=(out,)):
        s: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [o * 64, 0], [64, 64])
        for i, (acc,) in pl.pipeline(0, 4, 1, stage=2, init_values=(acc0,)):
            t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
            {PUSH}
            {POP}
            e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.add(s, r)
            nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(e, [i * 64, 0], acc)
            y = pl.yield_(nxt)
        z = pl.yield_(y)
    return z
    """)
    outer, inner = decisions(src)
    assert outer.decision is Decision.SLOTTED
    assert inner.decline is not None
    assert inner.decline.code == "cross-core"


def test_a_declined_cross_core_loop_is_replicated_with_its_transfers_in_order() -> None:
    out = LowerPipelineLoops().run(slots(function(CROSS)).result).function
    (loop,) = [s for s in ir.walk_stmts(out.body) if isinstance(s, ir.ForStmt)]
    ops = [s.call.op if isinstance(s, ir.EvalStmt) else s.value.op
           for s in loop.body.stmts
           if isinstance(s, ir.EvalStmt) or (isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Call))]
    assert [op for op in ops if cross_core_role(op) is not None] == [
        "tile.tpush_to_aic", "tile.tpop_from_aic", "tile.tpush_to_aic", "tile.tpop_from_aic"]
    assert loop.stages == 1
