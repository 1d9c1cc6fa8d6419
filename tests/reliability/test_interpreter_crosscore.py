# ruff: noqa: E501 (the kernel text is the reference's printed form)
"""The interpreter's Group run: a mixed kernel's AIC and AIV halves joined by a pipe."""

from __future__ import annotations

import numpy as np
import pytest

from slotsat.app.commands.check import CheckOptions, check_module
from slotsat.core.dsl.parser import parse_source
from slotsat.core.interp_errors import InterpreterError, Unmodelled
from slotsat.core.interpreter import Interpreter

HEAD = '''import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def g_aic(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        buf: pl.Scalar[pl.INT32] = pl.system.import_peer_buffer(name='buf', peer_func='g_aiv')
        pl.system.aic_initialize_pipe(buf, pl.const(0, pl.INT32), dir_mask=1, slot_size=4096, slot_num=2)
        x: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
{aic}
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def g_aiv(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        buf: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='buf', size=8192, base=-1)
        pl.system.aiv_initialize_pipe(buf, pl.const(0, pl.INT32), dir_mask=1, slot_size=4096, slot_num=2)
{aiv}
        return out
    @pl.function(type=pl.FunctionType.Group, level=pl.Level.CORE_GROUP, role=pl.Role.SubWorker)
    def g(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        self.g_aic(a, out)
        self.g_aiv(a, out)
        return out
'''

PUSH = "        pl.tile.tpush_to_aiv({t}, split={split})"
POP = "        {v}: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec{view}] = pl.tile.tpop_from_aic(split=0)"
STORE = "        o{k}: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store({v}, [0, 0], out)"


def _run(aic: list[str], aiv: list[str]) -> np.ndarray:
    text = HEAD.replace("{aic}", "\n".join(aic)).replace("{aiv}", "\n".join(aiv))
    program = parse_source(text, "t.py").programs[0]
    functions = {f.name: f for f in program.functions}
    a = np.arange(16 * 64, dtype=np.float32).reshape(16, 64)
    out = Interpreter(functions=functions).run(functions["g"], {"a": a, "out": np.zeros((16, 64), np.float32)})
    result = out[0]
    assert isinstance(result, np.ndarray)
    return result


A = np.arange(16 * 64, dtype=np.float32).reshape(16, 64)


def test_a_pushed_tile_reaches_the_pop_and_the_store_writes_the_shared_tensor() -> None:
    got = _run([PUSH.format(t="x", split=0)], [POP.format(v="y", view=""), STORE.format(k=0, v="y")])
    assert np.array_equal(got, A)


def test_pops_take_tiles_in_push_order() -> None:
    aic = ["        x2: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(x, 1.0)",
           PUSH.format(t="x", split=0), PUSH.format(t="x2", split=0)]
    aiv = [POP.format(v="y", view=""), POP.format(v="z", view=""),
           "        d: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.sub(z, y)", STORE.format(k=0, v="d")]
    assert np.array_equal(_run(aic, aiv), np.ones((16, 64), np.float32))


def test_each_pipe_id_is_a_queue_of_its_own() -> None:
    """Two pipes of one direction (`id=0`, `id=1`, each initialized on both sides): a pop takes
    the oldest tile of its own pipe, whatever was pushed to the other one in between."""
    two = HEAD
    for side in ("aic", "aiv"):
        init = f"        pl.system.{side}_initialize_pipe(buf, pl.const(0, pl.INT32), dir_mask=1, slot_size=4096, slot_num=2)"
        assert init in two
        two = two.replace(init, f"{init[:-1]}, id=0)\n{init[:-1]}, id=1)")
    aic = ["        x2: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(x, 1.0)",
           "        pl.tile.tpush_to_aiv(x2, split=0, id=1)", "        pl.tile.tpush_to_aiv(x, split=0, id=0)"]
    aiv = ["        y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=0, id=0)",
           "        z: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=0, id=1)",
           "        d: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.sub(z, y)", STORE.format(k=0, v="d")]
    program = parse_source(two.replace("{aic}", "\n".join(aic)).replace("{aiv}", "\n".join(aiv)), "t.py").programs[0]
    functions = {f.name: f for f in program.functions}
    (got, *_) = Interpreter(functions=functions).run(functions["g"], {"a": A, "out": np.zeros((16, 64), np.float32)})
    assert np.array_equal(np.asarray(got), np.ones((16, 64), np.float32))
    # a pipe id one side never initialized
    one = two.replace("dir_mask=1, slot_size=4096, slot_num=2, id=1)", "dir_mask=1, slot_size=4096, slot_num=2, id=2)", 1)
    program = parse_source(one.replace("{aic}", "\n".join(aic)).replace("{aiv}", "\n".join(aiv)), "t.py").programs[0]
    functions = {f.name: f for f in program.functions}
    with pytest.raises(InterpreterError, match="tpush_to_aiv on the AIC before its C2V pipe 1 was initialized"):
        Interpreter(functions=functions).run(functions["g"], {"a": A, "out": np.zeros((16, 64), np.float32)})


def test_a_pop_has_its_type_s_valid_shape() -> None:
    view = ", pl.TileView(valid_shape=[4, 64])"
    got = _run([PUSH.format(t="x", split=0)], [POP.format(v="y", view=view), STORE.format(k=0, v="y")])
    assert np.array_equal(got[:4], A[:4])
    assert not got[4:].any()


def test_a_pop_from_an_empty_pipe_faults() -> None:
    with pytest.raises(InterpreterError, match="from an empty pipe"):
        _run([], [POP.format(v="y", view=""), STORE.format(k=0, v="y")])


def test_a_push_never_popped_faults() -> None:
    with pytest.raises(InterpreterError, match="never popped"):
        _run([PUSH.format(t="x", split=0), PUSH.format(t="x", split=0)], [POP.format(v="y", view="")])


_LANE = "        lane: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()"


def test_an_up_down_split_push_gives_each_lane_its_half_of_the_rows() -> None:
    # each lane pops a [8, 64] half and stores it at its own rows: together, the whole tile
    pop = "        y: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=1)"
    store = "        o0: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(y, [lane * 8, 0], out)"
    assert np.array_equal(_run([PUSH.format(t="x", split=1)], [_LANE, pop, store]), A)


def test_a_left_right_split_push_gives_each_lane_its_half_of_the_columns() -> None:
    pop = "        y: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=2)"
    store = "        o0: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(y, [0, lane * 32], out)"
    assert np.array_equal(_run([PUSH.format(t="x", split=2)], [_LANE, pop, store]), A)


def test_a_split_pop_on_the_cube_joins_the_lanes_halves() -> None:
    # each lane pushes its [8, 64] rows plus its lane number; the cube joins them and sends the
    # whole tile back, split again; each lane stores its half
    aic = ["        b: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aiv(split=1)",
           PUSH.format(t="b", split=1)]
    aiv = [_LANE,
           "        h: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [lane * 8, 0], [8, 64], [8, 64], target_memory=pl.Mem.Vec)",
           "        h1: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(h, 1.0)",
           "        pl.tile.tpush_to_aic(h1, split=1)",
           "        y: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=1)",
           "        o0: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(y, [lane * 8, 0], out)"]
    text = _both_ways(HEAD.replace("{aic}", "\n".join(aic)).replace("{aiv}", "\n".join(aiv)))
    program = parse_source(text, "t.py").programs[0]
    functions = {f.name: f for f in program.functions}
    (got,) = Interpreter(functions=functions).run(functions["g"], {"a": A, "out": np.zeros((16, 64), np.float32)})
    assert np.array_equal(got, A + 1)


def test_an_odd_split_needs_lane_zero_one_cell_longer() -> None:
    pop = "        y: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=3)"
    with pytest.raises(InterpreterError, match=r"split=3 needs lanes one cell apart, but a valid extent of 16 over a "
                                               r"half of 8 gives 8 and 8"):
        _run([PUSH.format(t="x", split=3)], [_LANE, pop])


def test_an_odd_split_to_the_cube_and_a_lane_stride_are_declined() -> None:
    with pytest.raises(Unmodelled, match=r"tpush_to_aic with split=3 \(split codes 0, 1, 2 are modelled\)"):
        _run([], ["        v: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)",
                  "        pl.tile.tpush_to_aic(v, split=3)"])
    with pytest.raises(Unmodelled, match="lane_stride"):
        _run(["        pl.tile.tpush_to_aiv(x, split=1, lane_stride=7)"], [])


def _both_ways(text: str) -> str:
    return text.replace("dir_mask=1", "dir_mask=3")


def test_halves_answering_each_other_through_both_pipes_interleave() -> None:
    # the cube sends x, waits for the vector's answer x + 1, sends that doubled; the vector
    # stores the doubled answer: each half must pause at its pop until the other has pushed
    aic = [PUSH.format(t="x", split=0),
           "        b: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aiv(split=0)",
           "        b2: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(b, b)",
           PUSH.format(t="b2", split=0)]
    aiv = [POP.format(v="y", view=""),
           "        y1: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(y, 1.0)",
           "        pl.tile.tpush_to_aic(y1, split=0)",
           POP.format(v="z", view=""), STORE.format(k=0, v="z")]
    text = _both_ways(HEAD.replace("{aic}", "\n".join(aic)).replace("{aiv}", "\n".join(aiv)))
    program = parse_source(text, "t.py").programs[0]
    functions = {f.name: f for f in program.functions}
    for _ in range(3):  # the same interleaving every run
        (got,) = Interpreter(functions=functions).run(functions["g"], {"a": A, "out": np.zeros((16, 64), np.float32)})
        assert np.array_equal(got, (A + 1) * 2)


def test_halves_waiting_on_each_other_fault_with_the_empty_pipe() -> None:
    aic = ["        b: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aiv(split=0)", PUSH.format(t="b", split=0)]
    aiv = [POP.format(v="y", view=""), "        pl.tile.tpush_to_aic(y, split=0)"]
    text = _both_ways(HEAD.replace("{aic}", "\n".join(aic)).replace("{aiv}", "\n".join(aiv)))
    program = parse_source(text, "t.py").programs[0]
    functions = {f.name: f for f in program.functions}
    with pytest.raises(InterpreterError, match=r"tile\.tpop_from_aic from an empty pipe"):
        Interpreter(functions=functions).run(functions["g"], {"a": A, "out": np.zeros((16, 64), np.float32)})


def test_a_half_run_alone_is_declined() -> None:
    text = HEAD.replace("{aic}", PUSH.format(t="x", split=0)).replace("{aiv}", "")
    program = parse_source(text, "t.py").programs[0]
    aic = program.functions[0]
    with pytest.raises(Unmodelled, match="only through the Group function"):
        Interpreter().run(aic, {"a": A, "out": A})


def _group_text(aiv_call: str, ret: str) -> str:
    text = HEAD.replace("{aic}", PUSH.format(t="x", split=0)).replace(
        "{aiv}", "\n".join([POP.format(v="y", view=""), STORE.format(k=0, v="y")]))
    return text.replace("        self.g_aiv(a, out)\n        return out\n", f"{aiv_call}\n        return {ret}\n")


def test_a_half_whose_result_is_bound_and_never_read_runs_in_its_group() -> None:
    # the reference binds the vector half's result (a tuple of the tensors it writes) to a name
    text = _group_text("        r: pl.Tensor[[16, 64], pl.FP32] = self.g_aiv(a, out)", "out")
    functions = {f.name: f for f in parse_source(text, "t.py").programs[0].functions}
    (got,) = Interpreter(functions=functions).run(functions["g"], {"a": A, "out": np.zeros((16, 64), np.float32)})
    assert np.array_equal(got, A)


def test_a_half_whose_bound_result_is_read_is_declined() -> None:
    text = _group_text("        r: pl.Tensor[[16, 64], pl.FP32] = self.g_aiv(a, out)", "r")
    functions = {f.name: f for f in parse_source(text, "t.py").programs[0].functions}
    with pytest.raises(Unmodelled, match="a statement other than a call of a half"):
        Interpreter(functions=functions).run(functions["g"], {"a": A, "out": np.zeros((16, 64), np.float32)})


def test_a_group_moving_tiles_both_split_and_unsplit_is_declined() -> None:
    pop = "        y: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=1)"
    with pytest.raises(Unmodelled, match="moves tiles both split between the vector lanes and unsplit"):
        _run([PUSH.format(t="x", split=1), PUSH.format(t="x", split=0)], [pop, POP.format(v="z", view="")])


_BARRIER = '''import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def g_aic(a: pl.Tensor[[16, 64], pl.FP32], mid: pl.InOut[pl.Tensor[[16, 64], pl.FP32]], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        x: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        m1: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(x, [0, 0], mid)
{aic}
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def g_aiv(a: pl.Tensor[[16, 64], pl.FP32], mid: pl.InOut[pl.Tensor[[16, 64], pl.FP32]], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
{aiv}
        y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(mid, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        o: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(y, [0, 0], out)
        return out
    @pl.function(type=pl.FunctionType.Group, level=pl.Level.CORE_GROUP, role=pl.Role.SubWorker)
    def g(a: pl.Tensor[[16, 64], pl.FP32], mid: pl.InOut[pl.Tensor[[16, 64], pl.FP32]], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        self.g_aiv(a, mid, out)
        self.g_aic(a, mid, out)
        return out
'''
_SYNC = "        pl.system.syncall(core_type='{t}')"


def _barrier_run(aic: str, aiv: str) -> np.ndarray:
    text = _BARRIER.replace("{aic}", aic).replace("{aiv}", aiv)
    functions = {f.name: f for f in parse_source(text, "b.py").programs[0].functions}
    args = {"a": A, "mid": np.zeros((16, 64), np.float32), "out": np.zeros((16, 64), np.float32)}
    (got,) = Interpreter(functions=functions).run(functions["g"], args)
    assert isinstance(got, np.ndarray)
    return got


def test_a_syncall_holds_each_half_until_every_half_reaches_it() -> None:
    # the vector half runs first and reads what the cube writes before the barrier
    assert np.array_equal(_barrier_run(_SYNC.format(t="mix"), _SYNC.format(t="mix")), A)


def test_a_half_that_never_reaches_the_barrier_faults() -> None:
    with pytest.raises(InterpreterError, match="a half of the group ends or waits without reaching barrier 1"):
        _barrier_run("", _SYNC.format(t="mix"))


def test_a_syncall_of_some_of_the_cores_is_declined() -> None:
    with pytest.raises(Unmodelled, match=r"system\.syncall other than core_type='mix'"):
        _barrier_run(_SYNC.format(t="vec"), _SYNC.format(t="vec"))


def test_check_runs_a_group_whose_halves_take_a_distributed_tensor() -> None:
    """materialize-dist-tensor-ctx appends a communication context to each half that takes a
    `pld.DistributedTensor`; the group, checked as written, does not pass it. The halves still
    run together (the context has no value, as for a function checked alone), where they ended
    in an internal error before."""
    signal = "signal: pld.DistributedTensor[[1], pl.INT32]"
    text = (HEAD.replace("{aic}", PUSH.format(t="x", split=0))
            .replace("{aiv}", "\n".join([POP.format(v="y", view=""), STORE.format(k=0, v="y")]))
            .replace("out: pl.Out[pl.Tensor[[16, 64], pl.FP32]])", f"out: pl.Out[pl.Tensor[[16, 64], pl.FP32]], {signal})")
            .replace("self.g_aic(a, out)", "self.g_aic(a, out, signal)")
            .replace("self.g_aiv(a, out)", "self.g_aiv(a, out, signal)"))
    text = "import pypto.language.distributed as pld\n" + text
    result = check_module(parse_source(text, "t.py"), CheckOptions(trials=1))
    assert result.confirmed, [(f.qualified, f.unverified, f.rejection) for f in result.functions]
