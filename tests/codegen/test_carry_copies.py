# ruff: noqa: E501  (DSL statements in the kernel texts are one line each, as printed)
"""carry-copies (`lowering/carry_copies.py`): a carried value still read after its next
value is written, and an if result whose branch-local value would overwrite a value still
read, get a `tile.move` into the shared buffer, as the reference's YieldFixup and PTO
codegen do; what no copy repairs stays the buffer check's error.

Groups: the loop carry (the module's Before / After, codegen's `pto.tmov` as the loop
body's last op, both planners, the address oracle, the interpreter's outputs unchanged);
the if result (the branch that passes a value on copies it); what stays an error (an `Acc`
carry, an initial value read in the loop); a carried result its op may not write in place.
"""

from __future__ import annotations

import numpy as np
import pytest

from slotsat.app.pipeline import CompileOptions, function_passes, run_passes
from slotsat.core import ir
from slotsat.core.dsl.parser import parse_source
from slotsat.core.interpreter import outputs_equal, run_function
from slotsat.core.options import Planner
from slotsat.lowering.carry_copies import CarryCopies
from tests.codegen.address_oracle import check_module
from tests.codegen.harness import compile_, error, kernel, lines

T = "pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec]"
PARAMS = "a: pl.Tensor[[256, 64], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]"

RUNNING_MAX = kernel(f"""
m0: {T} = pl.load(a, [0, 0], [64, 64])
z: {T} = pl.tile.full([64, 64], dtype=pl.FP32, value=0.0)
for i, (m, s) in pl.range(4, init_values=(m0, z)):
    x: {T} = pl.load(a, [i * 64, 0], [64, 64])
    mn: {T} = pl.tile.maximum(m, x)
    d: {T} = pl.tile.sub(m, mn)
    s1: {T} = pl.tile.add(s, d)
    r, q = pl.yield_(mn, s1)
o1: pl.Tensor[[256, 64], pl.FP32] = pl.store(r, [0, 0], out)
o2: pl.Tensor[[256, 64], pl.FP32] = pl.store(q, [64, 0], o1)
return o2
""", params=PARAMS)

BRANCH_MAX = kernel(f"""
m: {T} = pl.load(a, [0, 0], [64, 64])
if n > 0:
    x: {T} = pl.load(a, [64, 0], [64, 64])
    mn: {T} = pl.tile.maximum(m, x)
    d: {T} = pl.tile.sub(m, mn)
    o0: pl.Tensor[[256, 64], pl.FP32] = pl.store(d, [128, 0], out)
    r, o1 = pl.yield_(mn, o0)
else:
    r, o1 = pl.yield_(m, out)
o2: pl.Tensor[[256, 64], pl.FP32] = pl.store(r, [0, 0], o1)
return o2
""", params=PARAMS)


def lowered(src: str) -> ir.Function:
    module, _ = run_passes(parse_source(src, "k.py"), function_passes(CompileOptions()))
    return module.programs[0].functions[0]


def moves(fn: ir.Function) -> list[ir.AssignStmt]:
    return [s for s in ir.walk_stmts(fn.body)
            if isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Call) and s.value.op == "tile.move"]


def body_ops(text: str, opener: str) -> list[str]:
    """The PTO ops of the first block that `opener` starts, in order."""
    out: list[str] = []
    lines = text.splitlines()
    k = next(j for j, line in enumerate(lines) if opener in line)
    depth = 0
    for line in lines[k + 1:]:
        stripped = line.strip()
        if stripped.startswith("}") and depth == 0:
            break
        depth += stripped.endswith("{") - stripped.startswith("}")
        if stripped.startswith("pto.") or " = pto." in stripped:
            out.append(stripped)
    return out


def test_a_carried_value_read_after_its_next_value_is_moved_into_the_carry() -> None:
    fn = lowered(RUNNING_MAX)
    (move,) = moves(fn)
    loop = next(s for s in fn.body.stmts if isinstance(s, ir.ForStmt))
    assert loop.body.stmts[-2] is move
    yld = loop.body.stmts[-1]
    assert isinstance(yld, ir.YieldStmt)
    assert yld.values[0] is move.var
    assert isinstance(move.value, ir.Call)
    assert [a.name_hint for a in move.value.args if isinstance(a, ir.Var)] == ["mn"]
    # the accumulating carry `s` needs none: its next value is written after its last read
    assert yld.values[1].name_hint == "s1"  # type: ignore[union-attr]


@pytest.mark.parametrize("planner", list(Planner), ids=[p.value for p in Planner])
def test_codegen_moves_the_next_value_into_the_carry_as_the_loop_ends(planner: Planner) -> None:
    text = compile_(RUNNING_MAX, planner=planner).pto_text
    ops = body_ops(text, "scf.for")
    assert ops[-1].startswith("pto.tmov ins(%mn : "), ops
    assert ops[-1].split("outs(")[1].startswith("%m0 : ")
    assert any(op.startswith("pto.tsub ins(%m0, %mn : ") for op in ops)
    if planner is Planner.PYPTO:
        assert check_module(text, ((0,), (1,))) == []


def test_the_copy_keeps_what_the_program_computes() -> None:
    src = parse_source(RUNNING_MAX, "k.py").programs[0].functions[0]
    fn = lowered(RUNNING_MAX)
    rng = np.random.default_rng(7)
    for _ in range(3):
        a = rng.standard_normal((256, 64)).astype(np.float32)
        args = {"a": a, "n": 1, "out": np.zeros_like(a)}
        assert outputs_equal(run_function(src, args, physical=False), run_function(fn, args)) is None


def test_an_if_result_is_copied_in_the_branch_that_passes_a_value_on() -> None:
    """As the reference's codegen does: the branch-local maximum keeps writing the result's
    buffer, and the else branch copies the value from before the if into it."""
    fn = lowered(BRANCH_MAX)
    (move,) = moves(fn)
    branch = next(s for s in fn.body.stmts if isinstance(s, ir.IfStmt))
    assert branch.else_body is not None
    assert move in branch.else_body.stmts
    assert isinstance(move.value, ir.Call)
    assert [a.name_hint for a in move.value.args if isinstance(a, ir.Var)] == ["m"]
    text = compile_(BRANCH_MAX).pto_text
    (copy,) = [line.strip() for line in text.splitlines() if "pto.tmov" in line]
    assert copy.startswith("pto.tmov ins(%m : ")
    args = {"a": np.arange(256 * 64, dtype=np.float32).reshape(256, 64), "out": np.zeros((256, 64), np.float32)}
    src = parse_source(BRANCH_MAX, "k.py").programs[0].functions[0]
    for n in (0, 1):
        assert outputs_equal(run_function(src, {**args, "n": n}, physical=False), run_function(fn, {**args, "n": n})) is None


def test_a_function_without_a_conflict_is_returned_unchanged() -> None:
    src = kernel(f"""
a0: {T} = pl.load(a, [0, 0], [64, 64])
for i, (acc,) in pl.range(4, init_values=(a0,)):
    x: {T} = pl.load(a, [i * 64, 0], [64, 64])
    v: {T} = pl.add(acc, x)
    r = pl.yield_(v)
o: pl.Tensor[[256, 64], pl.FP32] = pl.store(r, [0, 0], out)
return o
""", params=PARAMS)
    fn = parse_source(src, "k.py").programs[0].functions[0]
    assert CarryCopies().run(fn).function is fn


def test_an_accumulator_carry_read_after_its_next_value_stays_an_error() -> None:
    """No `Acc` to `Acc` move exists (the reference rejects it too)."""
    src = kernel("""
m: pl.Tile[[64, 64], pl.BF16, pl.Mem.Mat] = pl.load(x, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
l: pl.Tile[[64, 64], pl.BF16, pl.Mem.Left] = pl.tile.move(m, target_memory=pl.Mem.Left)
r: pl.Tile[[64, 64], pl.BF16, pl.Mem.Right] = pl.tile.move(m, target_memory=pl.Mem.Right)
c0: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(l, r)
for i, (c,) in pl.range(2, init_values=(c0,)):
    c1: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(l, r)
    n0: pl.Tensor[[64, 64], pl.FP32] = pl.store(c, [0, 0], out)
    y = pl.yield_(c1)
o: pl.Tensor[[64, 64], pl.FP32] = pl.store(y, [0, 0], out)
return o
""", params="x: pl.Tensor[[64, 64], pl.BF16], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]",
                 ret="pl.Tensor[[64, 64], pl.FP32]")
    assert error(src).message.startswith("tile 'c' is read after its buffer was overwritten by 'c1'")


@pytest.mark.parametrize("planner", list(Planner), ids=[p.value for p in Planner])
@pytest.mark.parametrize(("op", "pto"), [("pl.recip(acc)", "pto.trecip"), ("pl.tile.fmods(acc, 3.0)", "pto.tfmods")])
def test_a_carried_result_its_op_may_not_write_in_place_gets_a_buffer_and_a_move(op: str, pto: str,
                                                                                 planner: Planner) -> None:
    """The reference's YieldFixup for an op it marks not in-place safe (checked against its own
    codegen of `pl.recip` and `tile.mrgsort_format1` carries): the op writes a fresh tile,
    which is moved into the carry's buffer, where before it overwrote the operand it read."""
    src = kernel(f"""
a0: {T} = pl.load(a, [0, 0], [64, 64])
for i, (acc,) in pl.range(4, init_values=(a0,)):
    v: {T} = {op}
    r = pl.yield_(v)
o: pl.Tensor[[256, 64], pl.FP32] = pl.store(r, [0, 0], out)
return o
""", params=PARAMS)
    text = compile_(src, planner=planner).pto_text
    ops = body_ops(text, "scf.for")
    (written,) = [o for o in ops if o.startswith(pto + " ")]
    assert written.startswith(f"{pto} ins(%a0")
    assert written.split("outs(")[1].startswith("%v : ")
    assert ops[-1].startswith("pto.tmov ins(%v : ")
    assert ops[-1].split("outs(")[1].startswith("%a0 : ")
    if planner is Planner.PYPTO:
        assert check_module(text, ((0,), (1,))) == []
    before = parse_source(src, "k.py").programs[0].functions[0]
    args = {"a": np.linspace(1.0, 2.0, 256 * 64, dtype=np.float32).reshape(256, 64), "n": 1,
            "out": np.zeros((256, 64), np.float32)}
    if "recip" in op:  # the interpreter computes recip; the copy changes nothing it computes
        assert outputs_equal(run_function(before, args, physical=False), run_function(lowered(src), args)) is None


COL = "pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec]"
ROW = "pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec]"
COL_PARAMS = ("x: pl.Tensor[[16, 1], pl.FP32], n: pl.Scalar[pl.INDEX], "
              "out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]")
COL_RET = "pl.Tensor[[16, 1], pl.FP32]"

IF_OF_VIEWS = kernel(f"""
a: {COL} = pl.load(x, [0, 0], [16, 1])
if n == 0:
    r1: {ROW} = pl.tile.reshape(a, [1, 16])
    m1: {ROW} = pl.tile.mul(r1, r1)
    v1: {COL} = pl.tile.reshape(m1, [16, 1])
    p = pl.yield_(v1)
else:
    r2: {ROW} = pl.tile.reshape(a, [1, 16])
    m2: {ROW} = pl.tile.add(r2, r2)
    v2: {COL} = pl.tile.reshape(m2, [16, 1])
    p = pl.yield_(v2)
o: pl.Tensor[[16, 1], pl.FP32] = pl.store(p, [0, 0], out)
return o
""", params=COL_PARAMS, ret=COL_RET)

LOOP_OF_A_VIEW = kernel(f"""
a: {COL} = pl.load(x, [0, 0], [16, 1])
for i, (acc,) in pl.range(4, init_values=(a,)):
    r: {ROW} = pl.tile.reshape(acc, [1, 16])
    m: {ROW} = pl.tile.mul(r, r)
    v: {COL} = pl.tile.reshape(m, [16, 1])
    nxt = pl.yield_(v)
o: pl.Tensor[[16, 1], pl.FP32] = pl.store(nxt, [0, 0], out)
return o
""", params=COL_PARAMS, ret=COL_RET)


@pytest.mark.parametrize("src", [IF_OF_VIEWS, LOOP_OF_A_VIEW], ids=["if", "loop"])
def test_a_yielded_view_is_moved_into_the_result_buffer(src: str) -> None:
    """A reshape's bytes are its source's: yielded into an if result or a loop carry that has a
    buffer of its own, it is copied in (the reference moves each branch's reshape into the
    if's result). Before, nothing wrote the result and the store read a buffer never set."""
    fn = lowered(src)
    copied = [a.name_hint for m in moves(fn) for a in m.value.args  # type: ignore[union-attr]
              if isinstance(a, ir.Var)]
    assert copied == (["v1", "v2"] if src is IF_OF_VIEWS else ["v"])
    text = compile_(src).pto_text
    target = "%p" if src is IF_OF_VIEWS else "%a"
    stores = lines(text, "pto.tstore")
    assert stores[-1].startswith(f"pto.tstore ins({target} : ")
    for line in lines(text, "pto.tmov"):
        assert line.split("outs(")[1].startswith(f"{target} : ")
    original = parse_source(src, "k.py").programs[0].functions[0]
    rng = np.random.default_rng(3)
    for n in (0, 1):
        args = {"x": rng.standard_normal((16, 1)).astype(np.float32), "n": n, "out": np.zeros((16, 1), np.float32)}
        assert outputs_equal(run_function(original, args, physical=False), run_function(fn, args)) is None


def test_a_yielded_view_the_copy_cannot_take_stays_an_error() -> None:
    """The check names the view; without a repair its message stands (no silent result buffer
    that nothing writes)."""
    from slotsat.analysis.liveness import liveness
    from slotsat.lowering.memory_reuse import SharedBufferConflict, check_shared_buffers

    fn = parse_source(IF_OF_VIEWS, "k.py").programs[0].functions[0]
    with pytest.raises(SharedBufferConflict) as info:
        check_shared_buffers(fn, liveness(fn))
    assert info.value.var.name_hint == "v1"
    assert "is a view of the buffer of 'm1'" in str(info.value)
