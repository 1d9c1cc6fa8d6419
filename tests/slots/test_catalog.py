# ruff: noqa: E501  (DSL statements in the kernel texts are one line each, as printed)
"""The scenario catalog of `20-lower-pipeline-to-slots.md` §16, groups A–E.

Groups:
- A: the planner gate, the basic rewrite (Before/Expected), printing-independent shape checks;
- B: the loop-shape gate, both sides of every boundary (decision, reason, slot index);
- C: candidates and the four tile blockers, one negative test per gate;
- D: the capacity gate and the function-wide budget;
- E: nesting of pipeline loops.
"""

from __future__ import annotations

import pytest

from slotsat.analysis.budget import Backend, Budget, tile_bytes
from slotsat.core import ir
from slotsat.core.options import Planner
from slotsat.lowering.lower_pipeline_to_slots import Decision
from tests.slots.harness import (
    SIG,
    assert_declined,
    assert_expected,
    count_calls,
    decisions,
    function,
    index_text,
    only,
    pipeline_loops,
    program,
    sl_body,
    slots,
)

BASIC = program(sl_body("pipeline(0, 4, 1, stage=2"))
BASIC_EXPECTED = program(sl_body("range(4", memref='pl.MemRef("pipe_t", slots=2)[i % 2]'))


def _slotted_tile(fn: ir.Function, name: str) -> ir.TileType:
    for s in ir.walk_stmts(fn.body):
        if isinstance(s, ir.AssignStmt) and s.var.name_hint == name:
            assert isinstance(s.var.type, ir.TileType)
            return s.var.type
    raise AssertionError(name)


# ---------------------------------------------------------------------------------- A


def test_a_pypto_planner_is_a_noop_with_one_planner_record() -> None:
    fn = function(BASIC)
    plan = slots(fn, planner=Planner.PYPTO)
    assert plan.result is fn
    assert [d.code for d in plan.declines] == ["planner"]
    assert plan.declines[0].message == "memory planner is PYPTO; slot rotation needs memory_planner=PTOAS"
    assert len(pipeline_loops(plan.result)) == 1


def test_a_no_planner_is_a_noop() -> None:
    fn = function(BASIC)
    plan = slots(fn, planner=None)
    assert plan.result is fn
    assert plan.declines[0].message == "memory planner is unset; slot rotation needs memory_planner=PTOAS"


def test_a_basic_slotting_matches_expected() -> None:
    out = assert_expected(BASIC, BASIC_EXPECTED)
    t = _slotted_tile(out, "t")
    assert t.memref is not None
    assert t.memref.base.name_hint == "pipe_t"
    assert t.memref.is_pinned
    assert t.memref.slot_count == 2
    assert _slotted_tile(out, "e").memref is None  # compute_not_slotted
    assert not pipeline_loops(out)


def test_a_slot_index_is_floormod_of_the_loops_own_iv() -> None:
    out = slots(function(BASIC)).result
    (loop,) = [s for s in ir.walk_stmts(out.body) if isinstance(s, ir.ForStmt)]
    idx = _slotted_tile(out, "t").memref.slot_index  # type: ignore[union-attr]
    assert isinstance(idx, ir.FloorMod)
    assert idx.a is loop.loop_var
    assert idx.b == ir.ConstInt(2, ir.DType.INDEX)


def test_a_body_is_not_replicated() -> None:
    fn = function(BASIC)
    assert count_calls(slots(fn).result, "tile.load") == count_calls(fn, "tile.load") == 1


def test_a_running_the_pass_twice_changes_nothing() -> None:
    once = slots(function(BASIC)).result
    twice = slots(once)
    assert twice.result is once
    assert not twice.declines


def test_a_two_loads_get_two_allocations() -> None:
    src = program("""
    for i, (acc,) in pl.pipeline(0, 4, 1, stage=2, init_values=(out,)):
        t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
        u: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(b, [i * 64, 0], [64, 64])
        s: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.add(t, u)
        nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(s, [i * 64, 0], acc)
        y = pl.yield_(nxt)
    return y
    """, params=SIG + ", b: pl.Tensor[[256, 64], pl.FP32]")
    d = only(src)
    assert d.decision is Decision.SLOTTED
    assert [x.memref.base.name_hint for x in d.tiles] == ["pipe_t", "pipe_u"]
    assert d.tiles[0].memref.base is not d.tiles[1].memref.base
    assert [index_text(x.memref.slot_index) for x in d.tiles] == ["i % 2", "i % 2"]


def test_a_invariant_load_is_slotted() -> None:
    d = only(program(sl_body("pipeline(0, 4, 1, stage=2", offsets="[0, 0]")))
    assert d.decision is Decision.SLOTTED
    assert index_text(d.slot_index) == "i % 2"


def test_a_carried_address_load_is_slotted() -> None:
    src = program("""
    for i, (acc, off) in pl.pipeline(0, 4, 1, stage=2, init_values=(out, 0)):
        c: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [off, 0], [64, 64])
        g: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
        s: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.add(c, g)
        nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(s, [i * 64, 0], acc)
        y, o2 = pl.yield_(nxt, off + 64)
    return y
    """)
    d = only(src)
    assert d.decision is Decision.SLOTTED
    assert [x.old.name_hint for x in d.tiles] == ["c", "g"]


def test_a_runtime_stop_is_slotted_without_remainder() -> None:
    src = program(sl_body("pipeline(0, n, 1, stage=2"), params=SIG + ", n: pl.Scalar[pl.INDEX]")
    out = assert_expected(src, program(sl_body("range(0, n", memref='pl.MemRef("pipe_t", slots=2)[i % 2]'),
                                       params=SIG + ", n: pl.Scalar[pl.INDEX]"))
    assert not any(isinstance(s, ir.IfStmt) for s in ir.walk_stmts(out.body))


def test_a_zero_trip_loop_is_slotted() -> None:
    assert_expected(program(sl_body("pipeline(0, 0, 1, stage=2")),
                    program(sl_body("range(0", memref='pl.MemRef("pipe_t", slots=2)[i % 2]')))


MAT = """
for i in pl.pipeline(0, 2, 1, stage=2):
    am: pl.Tile[[32, 32], pl.BF16{A}, pl.Mem.Mat] = pl.load(x, [0, i * 32], [32, 32], target_memory=pl.Mem.Mat)
    bm: pl.Tile[[32, 32], pl.BF16{B}, pl.Mem.Mat] = pl.load(w, [i * 32, 0], [32, 32], target_memory=pl.Mem.Mat)
    al: pl.Tile[[32, 32], pl.BF16, pl.Mem.Left] = pl.tile.move(am, target_memory=pl.Mem.Left)
    br: pl.Tile[[32, 32], pl.BF16, pl.Mem.Right] = pl.tile.move(bm, target_memory=pl.Mem.Right)
    c: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(al, br)
    nxt: pl.Tensor[[32, 32], pl.FP32] = pl.store(c, [0, 0], o)
return o
"""
MAT_SIG = "x: pl.Tensor[[32, 64], pl.BF16], w: pl.Tensor[[64, 32], pl.BF16], o: pl.Out[pl.Tensor[[32, 32], pl.FP32]]"


def test_a_mat_loads_are_both_slotted() -> None:
    before = program(MAT.format(A="", B=""), MAT_SIG, "pl.Tensor[[32, 32], pl.FP32]", incore=True)
    expected = program(MAT.replace("pl.pipeline(0, 2, 1, stage=2)", "pl.range(2)").format(
        A=', pl.MemRef("pipe_am", slots=2)[i % 2]', B=', pl.MemRef("pipe_bm", slots=2)[i % 2]'),
        MAT_SIG, "pl.Tensor[[32, 32], pl.FP32]", incore=True)
    assert_expected(before, expected)


LOAD_STORE = """
for i, (acc,) in pl.pipeline(0, 4, 1, stage=2, init_values=(out,)):
    t: pl.Tile[[64, 64], pl.FP32{M}, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
    nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(t, [i * 64, 0], acc)
    y = pl.yield_(nxt)
return y
"""


def test_a_load_then_store_is_slotted() -> None:
    assert_expected(program(LOAD_STORE.format(M="")), program(
        LOAD_STORE.format(M=', pl.MemRef("pipe_t", slots=2)[i % 2]').replace("pl.pipeline(0, 4, 1, stage=2",
                                                                             "pl.range(4")))


def test_a_load_then_store_declines_under_compat_pypto() -> None:
    d = assert_declined(program(LOAD_STORE.format(M="")), "tile-view", compat=True)
    assert d.decline is not None
    assert d.decline.message == "load 't' is consumed by tile.store, whose result shares its buffer"


def test_a_synthesized_allocation_is_distinct_from_an_authors_with_the_same_name() -> None:
    src = program("""
    s0: pl.Tile[[64, 64], pl.FP32, pipe_t[0], pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
    for i, (acc,) in pl.pipeline(0, 4, 1, stage=2, init_values=(out,)):
        t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
        e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.add(t, s0)
        nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(e, [i * 64, 0], acc)
        y = pl.yield_(nxt)
    return y
    """, prelude="\npipe_t = pl.MemRef(slots=2)")
    out = slots(function(src)).result
    author = _slotted_tile(out, "s0").memref
    mine = _slotted_tile(out, "t").memref
    assert author is not None
    assert mine is not None
    assert author.base is not mine.base
    assert author.base.name_hint == mine.base.name_hint == "pipe_t"


# ---------------------------------------------------------------------------------- B

SHAPE_SLOTTED = [
    ("stage_16", "pipeline(0, 32, 1, stage=16", "[16, 64]", "i % 16"),
    ("stage_2_minimum", "pipeline(0, 4, 1, stage=2", "[64, 64]", "i % 2"),
    ("aligned_start", "pipeline(2, 6, 1, stage=2", "[64, 64]", "i % 2"),
    ("aligned_start_f4", "pipeline(4, 12, 1, stage=4", "[16, 64]", "i % 4"),
    ("unaligned_start", "pipeline(1, 5, 1, stage=2", "[64, 64]", "(i - 1) % 2"),
    ("unaligned_start_3", "pipeline(3, 7, 1, stage=2", "[64, 64]", "(i - 3) % 2"),
    ("step_64", "pipeline(0, 256, 64, stage=2", "[64, 64]", "i // 64 % 2"),
    ("step_2", "pipeline(0, 8, 2, stage=2", "[64, 64]", "i // 2 % 2"),
    ("step_start", "pipeline(8, 40, 4, stage=4", "[16, 64]", "(i - 8) // 4 % 4"),
    ("step_start_multiple", "pipeline(4, 20, 2, stage=2", "[64, 64]", "(i - 4) // 2 % 2"),
    ("start_zero", "pipeline(0, 4, 1, stage=2", "[64, 64]", "i % 2"),
    ("stop_overflow_boundary", "pipeline(0, 9223372036854775805, 3, stage=3", "[16, 64]", "i // 3 % 3"),
    ("unit_step_huge_stop", "pipeline(0, 9223372036854775807, 1, stage=2", "[64, 64]", "i % 2"),
]

SHAPE_DECLINED = [
    ("stage_17", "pipeline(0, 34, 1, stage=17", "stage-range", "stage=17 is outside the 2..16 slots a ptoas region holds"),
    ("stage_32", "pipeline(0, 32, 1, stage=32", "stage-range", "stage=32 is outside the 2..16 slots a ptoas region holds"),
    ("runtime_start", "pipeline(n, 32, 1, stage=2", "runtime-start", "the start is not a compile-time constant"),
    ("runtime_step", "pipeline(0, 4, n, stage=2", "runtime-step", "the step is not a compile-time constant"),
    ("negative_step", "pipeline(8, 0, -1, stage=2", "non-positive-step", "the step -1 is not positive"),
    ("negative_start", "pipeline(-2, 4, 1, stage=2", "negative-start", "the start -2 is negative"),
    ("stop_overflow", "pipeline(9223372036854775803, 9223372036854775807, 3, stage=3", "stop-overflow",
     "stop 9223372036854775807 exceeds INT64_MAX - (step - 1) = 9223372036854775805; "
     "the final increment would overflow"),
    ("stop_overflow_one_over", "pipeline(0, 9223372036854775806, 3, stage=3", "stop-overflow",
     "stop 9223372036854775806 exceeds INT64_MAX - (step - 1) = 9223372036854775805; "
     "the final increment would overflow"),
    ("stepped_runtime_stop", "pipeline(0, n, 2, stage=2", "stepped-runtime-stop",
     "a loop with step 2 > 1 needs a compile-time stop"),
]

N_SIG = SIG + ", n: pl.Scalar[pl.INDEX]"


@pytest.mark.parametrize(("name", "loop", "shape", "index"), SHAPE_SLOTTED, ids=[r[0] for r in SHAPE_SLOTTED])
def test_b_loop_shape_slotted(name: str, loop: str, shape: str, index: str) -> None:
    d = only(program(sl_body(loop, shape=shape), N_SIG))
    assert d.decision is Decision.SLOTTED, d.decline
    assert index_text(d.slot_index) == index
    assert all(x.memref.slot_index is d.slot_index for x in d.tiles)


def test_b_slotted_loop_keeps_bounds_and_is_demoted() -> None:
    loop = "pipeline(8, 40, 4, stage=4"
    before = program(sl_body(loop, shape="[16, 64]"))
    expected = program(sl_body("range(8, 40, 4", shape="[16, 64]",
                               memref='pl.MemRef("pipe_t", slots=4)[(i - 8) // 4 % 4]'))
    assert_expected(before, expected)


@pytest.mark.parametrize(("name", "loop", "code", "message"), SHAPE_DECLINED, ids=[r[0] for r in SHAPE_DECLINED])
def test_b_loop_shape_declined(name: str, loop: str, code: str, message: str) -> None:
    src = program(sl_body(loop), N_SIG)
    d = assert_declined(src, code)
    assert d.decline is not None
    assert d.decline.message == message
    fn = function(src)
    assert slots(fn).result is fn


def test_b_stage_1_is_untouched_without_a_record() -> None:
    fn = function(program(sl_body("pipeline(0, 32, 1, stage=1")))
    plan = slots(fn)
    assert plan.result is fn
    assert not plan.declines
    assert [d.decision for d in plan.loops] == [Decision.UNTOUCHED]


def test_b_unaligned_start_visits_every_slot_in_turn() -> None:
    d = only(program(sl_body("pipeline(1, 5, 1, stage=2")))
    assert d.slot_index is not None
    assert [_eval(d.slot_index, d.loop.loop_var, i) for i in range(1, 5)] == [0, 1, 0, 1]


def _eval(e: ir.Expr, iv: ir.Var, value: int) -> int:
    if isinstance(e, ir.Var):
        assert e is iv
        return value
    if isinstance(e, ir.ConstInt):
        return e.value
    a, b = _eval(e.a, iv, value), _eval(e.b, iv, value)  # type: ignore[union-attr]
    if isinstance(e, ir.Sub):
        return a - b
    if isinstance(e, ir.FloorDiv):
        return a // b
    assert isinstance(e, ir.FloorMod)
    return a % b


# ---------------------------------------------------------------------------------- C

TILE_SIG = SIG + ", seed: pl.Tensor[[64, 64], pl.FP32], flag: pl.Scalar[pl.INDEX], rows: pl.Scalar[pl.INDEX]"


def _loop_with(body: str, *, init: str = "out", ret: str = "y") -> str:
    inner = "\n".join("    " + ln for ln in body.strip("\n").splitlines())
    return f"for i, (acc,) in pl.pipeline(0, 4, 1, stage=2, init_values=({init},)):\n{inner}\nreturn {ret}\n"


LOAD_T = "t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])"
STORE_Y = ("nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store({x}, [i * 64, 0], acc)\n"
           "y = pl.yield_(nxt)")
SEEDED = "s0: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(seed, [0, 0], [64, 64])\n"
TAIL = "res: pl.Tensor[[256, 64], pl.FP32] = pl.store(y, [0, 0], out)\nreturn res\n"


def _tile_loop(body: str) -> str:
    """A loop carrying a tile `acc` seeded from `s0`, result stored after the loop."""
    inner = "\n".join("    " + ln for ln in body.strip("\n").splitlines())
    return (SEEDED + "for i, (acc,) in pl.pipeline(0, 4, 1, stage=2, init_values=(s0,)):\n"
            f"{inner}\n" + TAIL)


def test_c_a_load_yielded_by_its_loop_declines_the_loop() -> None:
    d = assert_declined(program(_tile_loop(LOAD_T + "\ny = pl.yield_(t)"), TILE_SIG), "tile-phi")
    assert d.decline is not None
    assert d.decline.message == "load 't' is carried into a phi through 't'"


def test_c_an_alias_yielded_by_an_if_declines_the_loop() -> None:
    body = LOAD_T + """
if flag > 0:
    v: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = t
    w = pl.yield_(v)
else:
    v2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(acc)
    w = pl.yield_(v2)
y = pl.yield_(w)"""
    d = assert_declined(program(_tile_loop(body), TILE_SIG), "tile-phi")
    assert d.decline is not None
    assert d.decline.message == "load 't' is carried into a phi through 'v'"


def test_c_a_view_into_a_phi_reports_the_phi_first() -> None:
    body = LOAD_T + """
r: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.reshape(t, [64, 64])
y = pl.yield_(r)"""
    assert_declined(program(_tile_loop(body), TILE_SIG), "tile-phi")


def test_c_a_load_used_as_nested_init_declines_and_keeps_ssa() -> None:
    body = LOAD_T + """
for k, (c,) in pl.range(2, init_values=(t,)):
    c2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(c)
    z = pl.yield_(c2)
""" + STORE_Y.format(x="z")
    fn = function(program(_loop_with(body), TILE_SIG))
    plan = slots(fn)
    assert plan.declines[0].code == "tile-phi"
    assert plan.result is fn


def test_c_a_load_yielded_by_an_inner_loop_declines() -> None:
    body = LOAD_T + """
z: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(t)
for k, (c,) in pl.range(2, init_values=(z,)):
    w = pl.yield_(t)
""" + STORE_Y.format(x="w")
    assert_declined(program(_loop_with(body), TILE_SIG), "tile-phi")


def test_c_a_reshape_consumer_declines_the_loop() -> None:
    body = LOAD_T + """
r: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec] = pl.reshape(t, [32, 128])
e: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec] = pl.exp(r)
r2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.reshape(e, [64, 64])
""" + STORE_Y.format(x="r2")
    d = assert_declined(program(_loop_with(body)), "tile-view")
    assert d.decline is not None
    assert d.decline.message == "load 't' is consumed by tile.reshape, whose result shares its buffer"


def test_c_a_slice_consumer_declines_the_loop() -> None:
    body = """
t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 16, 0], [16, 64])
s: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.slice(t, [8, 64], [0, 0])
e: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.exp(s)
""" + STORE_Y.format(x="e")
    d = assert_declined(program(_loop_with(body)), "tile-view")
    assert d.decline is not None
    assert "tile.slice" in d.decline.message


def test_c_one_blocked_load_declines_all_loads() -> None:
    body = """
ok: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
bad: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(b, [i * 64, 0], [64, 64])
r: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.reshape(bad, [64, 64])
s: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.add(ok, r)
""" + STORE_Y.format(x="s")
    src = program(_loop_with(body), SIG + ", b: pl.Tensor[[256, 64], pl.FP32]")
    d = assert_declined(src, "tile-view")
    assert d.decline is not None
    assert "'bad'" in d.decline.message


def test_c_move_and_read_consumers_do_not_block() -> None:
    body = """
am: pl.Tile[[32, 32], pl.BF16, pl.Mem.Mat] = pl.load(x, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
al: pl.Tile[[32, 32], pl.BF16, pl.Mem.Left] = pl.tile.move(am, target_memory=pl.Mem.Left)
t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
v: pl.Scalar[pl.FP32] = pl.tile.read(t, [0, 0])
""" + STORE_Y.format(x="t")
    d = only(program(_loop_with(body), SIG + ", x: pl.Tensor[[32, 64], pl.BF16]"))
    assert d.decision is Decision.SLOTTED
    assert [x.old.name_hint for x in d.tiles] == ["am", "t"]


VALID = """
t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[{R}, 64])] = pl.load(a, [i * 16, 0], [16, 64], valid_shape=[{R}, 64])
""" + STORE_Y.format(x="t")


def test_c_a_runtime_valid_shape_declines_the_loop() -> None:
    d = assert_declined(program(_loop_with(VALID.format(R="rows")), TILE_SIG), "tile-valid-shape")
    assert d.decline is not None
    assert d.decline.message == "load 't' has a runtime valid shape"


def test_c_a_static_valid_shape_is_slotted() -> None:
    assert only(program(_loop_with(VALID.format(R="8")), TILE_SIG)).decision is Decision.SLOTTED


def test_c_loads_only_in_an_inner_range_decline_with_no_candidates() -> None:
    body = """
for k in pl.range(2):
    t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [k * 64, 0], [64, 64])
    e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(t)
    n2: pl.Tensor[[256, 64], pl.FP32] = pl.store(e, [k * 64, 0], out)
y = pl.yield_(acc)"""
    d = assert_declined(program(_loop_with(body)), "no-candidates")
    assert d.decline is not None
    assert d.decline.message == "no top-level tile.load without a declared allocation"


def test_c_loads_only_in_an_if_decline_with_no_candidates() -> None:
    body = """
if flag > 0:
    t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
    e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(t)
    nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(e, [i * 64, 0], acc)
    w = pl.yield_(nxt)
else:
    w = pl.yield_(acc)
y = pl.yield_(w)"""
    assert_declined(program(_loop_with(body), TILE_SIG), "no-candidates")


def test_c_a_top_level_load_used_in_an_inner_loop_is_slotted() -> None:
    body = LOAD_T + """
for k in pl.range(2):
    e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(t)
""" + STORE_Y.format(x="t")
    assert only(program(_loop_with(body))).decision is Decision.SLOTTED


MINE = 't: pl.Tile[[64, 64], pl.FP32, pl.MemRef("mine", slots=2)[i % 2], pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])'


def test_c_an_author_bound_load_alone_declines_with_no_candidates() -> None:
    body = MINE + "\ne: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(t)\n" + STORE_Y.format(x="e")
    fn = function(program(_loop_with(body)))
    plan = slots(fn)
    assert plan.declines[0].code == "no-candidates"
    assert plan.result is fn


def test_c_an_author_bound_load_is_skipped_and_its_sibling_slotted() -> None:
    body = """
m: pl.Tile[[64, 64], pl.FP32, pl.MemRef("mine", slots=2)[i % 2], pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
t: pl.Tile[[64, 64], pl.FP32{M}, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
s: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.add(m, t)
""" + STORE_Y.format(x="s")
    before = program(_loop_with(body.format(M="")))
    expected = program(_loop_with(body.format(M=', pl.MemRef("pipe_t", slots=2)[i % 2]')).replace(
        "pl.pipeline(0, 4, 1, stage=2", "pl.range(4"))
    out = assert_expected(before, expected)
    assert _slotted_tile(out, "m").memref.base.name_hint == "mine"  # type: ignore[union-attr]


def test_c_tile_read_is_not_a_candidate() -> None:
    body = "x: pl.Scalar[pl.FP32] = pl.tile.read(s0, [0, 0])\ny = pl.yield_(acc)"
    src = program(SEEDED + _loop_with(body), TILE_SIG)
    assert_declined(src, "no-candidates")


# ---------------------------------------------------------------------------------- D


def _big(rows: int, cols: int = 256) -> str:
    return program(sl_body("pipeline(0, 4, 1, stage=2", shape=f"[{rows}, {cols}]"))


@pytest.mark.parametrize(("rows", "backend", "fits"), [
    (128, Backend.ASCEND950, False),
    (120, Backend.ASCEND950, True),
    (121, Backend.ASCEND950, False),
    (92, Backend.ASCEND910B, True),
    (93, Backend.ASCEND910B, False),
], ids=["over_vec_950", "exact_fit_950", "one_row_over_950", "exact_fit_910b", "one_row_over_910b"])
def test_d_capacity_boundaries(rows: int, backend: Backend, fits: bool) -> None:
    d = only(_big(rows), backend=backend)
    assert (d.decision is Decision.SLOTTED) == fits
    if not fits:
        assert d.decline is not None
        assert d.decline.code == "capacity"
        cap = backend.capacity(ir.MemorySpace.Vec)
        assert d.decline.message == f"the slots need {rows * 256 * 4 * 2} bytes of Vec, but only {cap} of {cap} remain"


def test_d_no_backend_is_ungated() -> None:
    assert only(_big(128), backend=Backend.NONE).decision is Decision.SLOTTED


def test_d_author_allocations_seed_the_budget() -> None:
    body = """
m: pl.Tile[[64, 256], pl.FP32, pl.MemRef("mine", slots=2)[i % 2], pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 256])
t: pl.Tile[[64, 256], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 256])
s: pl.Tile[[64, 256], pl.FP32, pl.Mem.Vec] = pl.add(m, t)
y = pl.yield_(acc)"""
    d = assert_declined(program(_loop_with(body)), "capacity")
    assert d.decline is not None
    assert d.decline.message == "the slots need 131072 bytes of Vec, but only 114688 of 245760 remain"


SIBLINGS = """
for i in pl.pipeline(0, 4, 1, stage=2):
    t: pl.Tile[[64, 256], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 256])
for j in pl.pipeline(0, 4, 1, stage=2):
    u: pl.Tile[[{R}, 256], pl.FP32, pl.Mem.Vec] = pl.load(a, [j * 64, 0], [{R}, 256])
return out
"""


def test_d_sibling_loops_accumulate_the_budget() -> None:
    first, second = decisions(program(SIBLINGS.format(R=64)))
    assert first.decision is Decision.SLOTTED
    assert second.decline is not None
    assert second.decline.code == "capacity"


NESTED = """
for o, (acc0,) in pl.pipeline(0, 4, 1, stage={FO}, init_values=(out,)):
    s: pl.Tile[[{SR}, 256], pl.FP32, pl.Mem.Vec] = pl.load(a, [o * 64, 0], [{SR}, 256])
    for i, (acc,) in pl.pipeline(0, 4, 1, stage=2, init_values=(acc0,)):
        t: pl.Tile[[16, 256], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [16, 256])
        e: pl.Tile[[16, 256], pl.FP32, pl.Mem.Vec] = pl.exp(t)
        nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(e, [i * 64, 0], acc)
        y = pl.yield_(nxt)
    z = pl.yield_(y)
"""


def test_d_nested_loops_both_fit() -> None:
    outer, inner = decisions(program(NESTED.format(FO=2, SR=16) + "return z"))
    assert (outer.decision, inner.decision) == (Decision.SLOTTED, Decision.SLOTTED)
    assert (index_text(outer.slot_index), index_text(inner.slot_index)) == ("o % 2", "i % 2")


def test_d_outer_capacity_decline_does_not_commit_inner_bytes() -> None:
    after = "for j in pl.pipeline(0, 4, 1, stage=2):\n" \
            "    u: pl.Tile[[120, 256], pl.FP32, pl.Mem.Vec] = pl.load(a, [j * 64, 0], [120, 256])\nreturn z"
    outer, inner, sibling = decisions(program(NESTED.format(FO=2, SR=128) + after))
    assert outer.decline is not None
    assert outer.decline.code == "capacity"
    assert inner.decline is not None
    assert inner.decline.code == "under-declined"
    sp = outer.loop.span
    assert inner.decline.message == (f"an enclosing pipeline loop at {sp.line}:{sp.col} was declined "
                                     "and will be replicated")
    assert sibling.decision is Decision.SLOTTED  # exactly 240 KiB: nothing else was committed


@pytest.mark.parametrize(("backend", "dtype", "expected"), [
    (Backend.ASCEND910B, ir.DType.FP32, 8192),
    (Backend.ASCEND910B, ir.DType.INT32, 16384),
    (Backend.ASCEND950, ir.DType.INT32, 8192),
    (Backend.NONE, ir.DType.INT32, 16384),
], ids=["acc_sizing_910b", "acc_sizing_int32_910b", "acc_sizing_int32_950", "acc_sizing_int32_none"])
def test_d_acc_tiles_round_rows_when_seeding(backend: Backend, dtype: ir.DType, expected: int) -> None:
    base = ir.Var("mine", ir.PtrType())
    mr = ir.MemRef(base, ir.ConstInt(0), 0, True, 2, ir.ConstInt(0))
    tile = ir.Var("c", ir.TileType((8, 64), dtype, ir.MemorySpace.Acc, mr))
    budget = Budget(backend)
    budget.seed([tile, tile])
    assert budget.committed == {ir.MemorySpace.Acc: expected}


def test_d_rank_1_acc_tile_has_no_static_size() -> None:
    assert tile_bytes(ir.TileType((64,), ir.DType.FP32, ir.MemorySpace.Acc), Backend.ASCEND950) is None
    assert tile_bytes(ir.TileType((64,), ir.DType.FP32, ir.MemorySpace.Vec), Backend.ASCEND950) == 256


# ---------------------------------------------------------------------------------- E


def test_e_a_loop_under_a_declined_outer_loop_is_declined() -> None:
    src = program("""
    for o, (acc0,) in pl.pipeline(0, 256, 64, stage=2, init_values=(out,)):
        s: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [o, 0], [64, 64])
        r: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.reshape(s, [64, 64])
        for i, (acc,) in pl.pipeline(0, 4, 1, stage=2, init_values=(acc0,)):
            t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
            e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.add(t, r)
            nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(e, [i * 64, 0], acc)
            y = pl.yield_(nxt)
        z = pl.yield_(y)
    return z
    """)
    fn = function(src)
    plan = slots(fn)
    assert [d.decline.code for d in plan.loops if d.decline] == ["tile-view", "under-declined"]
    assert plan.result is fn


def test_e_an_outer_loop_without_loads_declines_its_inner_loop() -> None:
    src = program("""
    for o, (acc0,) in pl.pipeline(0, 2, 1, stage=2, init_values=(out,)):
        for i, (acc,) in pl.pipeline(0, 4, 1, stage=2, init_values=(acc0,)):
            t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
            nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(t, [i * 64, 0], acc)
            y = pl.yield_(nxt)
        z = pl.yield_(y)
    return z
    """)
    assert [d.decline.code for d in decisions(src) if d.decline] == ["no-candidates", "under-declined"]


def test_e_a_stage_1_outer_loop_does_not_disqualify() -> None:
    outer, inner = decisions(program(NESTED.format(FO=1, SR=16) + "return z"))
    assert outer.decision is Decision.UNTOUCHED
    assert inner.decision is Decision.SLOTTED
    out = slots(function(program(NESTED.format(FO=1, SR=16) + "return z"))).result
    assert [loop.stages for loop in pipeline_loops(out)] == [1]


def test_e_a_plain_range_outer_loop_is_transparent() -> None:
    src = program(
        "for o in pl.range(2):\n"
        "    for i in pl.pipeline(0, 4, 1, stage=2):\n"
        "        t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])\n"
        "        e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(t)\n"
        "return out\n")
    (d,) = decisions(src)
    assert d.decision is Decision.SLOTTED
