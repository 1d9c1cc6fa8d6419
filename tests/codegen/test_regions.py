"""Regions, gets and blockers (`30-pto-codegen.md` §3, §4, catalog H).

Groups: region emission (rotating author slot, constant slots, sibling loops, compiler
slotted); one test per blocker B1, B3–B9; first-reason-wins and discovery order; every
blocked program compiles under PYPTO.
"""

from __future__ import annotations

import re

import pytest

from slotsat.core.errors import EXIT_REJECTED
from slotsat.core.options import Mode, Planner
from tests.codegen.harness import compile_, error, kernel, lines

LOAD = "pl.load(a, [0, 0], [64, 64])"

CONSTANT_SLOTS = kernel(
    f"""
t0: pl.Tile[[64, 64], pl.FP32, CS[0], pl.Mem.Vec] = {LOAD}
t1: pl.Tile[[64, 64], pl.FP32, CS[1], pl.Mem.Vec] = pl.exp(t0)
res: pl.Tensor[[256, 64], pl.FP32] = pl.store(t1, [0, 0], out)
return res
""",
    decls="CS = pl.MemRef(slots=2)",
)

COMPILER_SLOTTED = kernel("""
seed: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
for i, (acc,) in pl.pipeline(4, stage=2, init_values=(seed,)):
    t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
    nxt: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.add(acc, t)
    y = pl.yield_(nxt)
res: pl.Tensor[[256, 64], pl.FP32] = pl.store(y, [0, 0], out)
return res
""")

TWO_LOADS = kernel(
    """
for i, (acc,) in pl.pipeline(4, stage=2, init_values=(out,)):
    t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
    u: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(b, [i * 64, 0], [64, 64])
    s: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.add(t, u)
    nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(s, [i * 64, 0], acc)
    y = pl.yield_(nxt)
return y
""",
    params="a: pl.Tensor[[256, 64], pl.FP32], b: pl.Tensor[[256, 64], pl.FP32], "
    "out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]",
)


def _accumulate() -> str:
    from pathlib import Path

    return (Path(__file__).resolve().parents[2] / "examples" / "kernels" / "accumulate.py").read_text()


# -- region emission -------------------------------------------------------------------


def test_rotating_author_slot_is_one_region_and_one_get() -> None:
    text = compile_(_accumulate()).pto_text
    assert len(lines(text, "pto.alloc_multi_tile")) == 1
    assert "count=2>" in lines(text, "pto.alloc_multi_tile")[0]
    assert "addr" not in lines(text, "pto.alloc_multi_tile")[0]
    assert len(lines(text, "pto.multi_tile_get")) == 1


def test_the_get_operand_is_the_slot_index_not_the_byte_offset() -> None:
    text = compile_(_accumulate()).pto_text
    body = text.splitlines()
    get = next(k for k, line in enumerate(body) if "multi_tile_get" in line)
    assert re.search(r"= arith\.subi %i, %c1_index : index", body[get - 2])
    assert re.search(r"= arith\.remui %1, %c2_index : index", body[get - 1])
    assert "16384" not in "\n".join(body[get - 2 : get + 1])


def test_constant_slots_share_the_constants() -> None:
    text = compile_(CONSTANT_SLOTS).pto_text
    assert len(lines(text, "pto.alloc_multi_tile")) == 1
    gets = lines(text, "pto.multi_tile_get")
    assert [g.split("[")[1].split("]")[0] for g in gets] == ["%c0_index", "%c1_index"]
    assert all(
        g.startswith(("%t0 = pto.multi_tile_get %CS_mb", "%t1 = pto.multi_tile_get %CS_mb")) for g in gets
    )


def test_no_handle_is_both_a_get_and_an_alloc_tile() -> None:
    text = compile_(CONSTANT_SLOTS).pto_text
    got = {g.split(" ")[0] for g in lines(text, "pto.multi_tile_get")}
    allocated = {g.split(" ")[0] for g in lines(text, "pto.alloc_tile")}
    assert got
    assert not got & allocated


def test_sibling_loops_take_one_slot_each() -> None:
    src = kernel(
        """
for i in pl.range(2):
    lo: pl.Tile[[64, 64], pl.FP32, SB[i % 2], pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
    _s = pl.store(lo, [0, 0], out)
for j in pl.range(2):
    hi: pl.Tile[[64, 64], pl.FP32, SB[j % 2], pl.Mem.Vec] = pl.load(a, [j * 64, 0], [64, 64])
    _t = pl.store(hi, [0, 0], out)
return out
""",
        decls="SB = pl.MemRef(slots=2)",
    )
    text = compile_(src).pto_text
    assert len(lines(text, "pto.alloc_multi_tile")) == 1
    assert len(lines(text, "pto.multi_tile_get")) == 2


def test_compiler_slotted_region_and_loop_header() -> None:
    text = compile_(COMPILER_SLOTTED).pto_text
    assert lines(text, "pto.alloc_multi_tile") == [
        "%pipe_t_mb = pto.alloc_multi_tile valid_row = %c64_index valid_col = %c64_index : "
        "!pto.multi_tile_buf<!pto.tile_buf<loc=vec, dtype=f32, rows=64, cols=64, v_row=?, v_col=?, "
        "blayout=row_major, slayout=none_box, fractal=512, pad=0>, count=2>"
    ]
    assert len(lines(text, "pto.multi_tile_get")) == 1
    assert lines(text, "arith.rem") == ["%1 = arith.remui %i, %c2_index : index"]
    assert len(lines(text, "pto.tload")) == 2
    assert "scf.for %i = %c0_index to %c4_index step %c1_index {" in lines(text, "scf.for")


def test_compiler_slotted_compat_differs_only_in_remsi() -> None:
    default = compile_(COMPILER_SLOTTED).pto_text
    compat = compile_(COMPILER_SLOTTED, mode=Mode.PYPTO).pto_text
    assert compat == default.replace("arith.remui %i, %c2_index", "arith.remsi %i, %c2_index")
    assert "arith.remsi %i, %c2_index : index" in compat


def test_compiler_slotted_under_the_pypto_planner() -> None:
    text = compile_(COMPILER_SLOTTED, planner=Planner.PYPTO).pto_text
    assert "alloc_multi_tile" not in text
    assert "multi_tile_get" not in text
    assert len(lines(text, "pto.tload")) == 3
    assert "step %c2_index {" in lines(text, "scf.for")[0]
    allocs = lines(text, "pto.alloc_tile")
    assert allocs
    assert all(re.search(r"alloc_tile addr = %c\d+_i64 ", a) for a in allocs)


def test_two_loads_share_one_remui_in_the_default_mode() -> None:
    result = compile_(TWO_LOADS)
    text = result.pto_text
    assert len(lines(text, "pto.alloc_multi_tile")) == 2
    assert len(lines(text, "arith.remui")) == 1
    gets = lines(text, "pto.multi_tile_get")
    assert gets[0].startswith("%t = pto.multi_tile_get %pipe_t_mb[%0]")
    assert gets[1].startswith("%u = pto.multi_tile_get %pipe_u_mb[%0]")
    assert sum(g.ops for g in result.gets) == 1


def test_two_loads_compat_has_one_remsi_per_get() -> None:
    text = compile_(TWO_LOADS, mode=Mode.PYPTO).pto_text
    assert len(lines(text, "arith.remsi")) == 2


@pytest.mark.parametrize(("mode", "rem"), [(Mode.PYPTO, "remsi"), (Mode.SLOTSAT, "remui")])
def test_pypto_keeps_addresses_of_the_rotating_slot(mode: Mode, rem: str) -> None:
    """The address is plain arithmetic: as written under `--mode pypto`, extracted otherwise."""
    text = compile_(_accumulate(), planner=Planner.PYPTO, mode=mode).pto_text
    assert "alloc_multi_tile" not in text
    assert "multi_tile_get" not in text
    loop = text[text.index("scf.for") :]
    chain = [line.strip() for line in loop.splitlines()[1:7]]
    assert chain[0] == "%1 = arith.subi %i, %c1_index : index"
    assert chain[1] == f"%2 = arith.{rem} %1, %c2_index : index"
    assert chain[2] == "%3 = arith.muli %2, %c16384_index : index"
    assert chain[3] == "%4 = arith.index_cast %3 : index to i64"
    assert chain[4] == "%5 = arith.addi %c0_i64, %4 : i64"
    assert chain[5].startswith("%t = pto.alloc_tile addr = %5 valid_row")


def test_sixteen_slots_make_one_region() -> None:
    src = kernel(
        """
t0: pl.Tile[[32, 32], pl.FP32, TM[0], pl.Mem.Vec] = pl.load(a, [0, 0], [32, 32])
t1: pl.Tile[[32, 32], pl.FP32, TM[15], pl.Mem.Vec] = pl.exp(t0)
res: pl.Tensor[[256, 64], pl.FP32] = pl.store(t1, [0, 0], out)
return res
""",
        decls="TM = pl.MemRef(slots=16)",
    )
    assert "count=16>" in lines(compile_(src).pto_text, "pto.alloc_multi_tile")[0]


def test_view_in_codegen_is_one_treshape() -> None:
    src = kernel(f"""
t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = {LOAD}
r: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(t, [32, 128])
e: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec] = pl.exp(r)
return out
""")
    text = compile_(src).pto_text
    assert len(lines(text, "pto.treshape")) == 1
    assert lines(text, "pto.treshape")[0].startswith("%r = pto.treshape %t : ")
    assert "alloc_multi_tile" not in text


def test_unsupported_op_in_codegen() -> None:
    src = kernel(f"""
t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = {LOAD}
x: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.expands(t, 2.0)
return out
""")
    err = error(src)
    assert err.message == "slotsat's code generator does not support tile.expands"
    assert err.exit_status == EXIT_REJECTED


MIXED = f"""
t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = {LOAD}
m: pl.Tile[[64, 64], pl.FP32, pl.Mem.Mat] = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
return out
"""


@pytest.mark.parametrize(("kind", "name"), [("(type=pl.FunctionType.AIC)", "AIC"), ("", "Opaque")])
def test_a_function_the_split_does_not_take_holding_tiles_of_both_cores_is_rejected_as_such(
        kind: str, name: str) -> None:
    """An AIC / AIV function is a half the split already made (the reference's own hand-off IR
    can leave dead tiles of the other core in one), and the reference's ExpandMixedKernel does
    not split a plain function: neither is an earlier stage's IR."""
    err = error(kernel(MIXED, kind=kind))
    assert err.message == (f"the {name} function 'kernel' uses Vec and Mat, tiles of both a vector and a "
                           "cube core, which no one core runs")


def test_mixed_kernel_is_rejected() -> None:
    src = kernel(MIXED)
    assert error(src).message == (
        "a mixed vector/cube kernel ('kernel' uses Vec and Mat) is the IR of an earlier stage: the "
        "reference's ExpandMixedKernel removes it before the hand-off point, where slotsat takes over (just "
        "before LowerPipelineToSlots); compile this kernel with --via-pypto"
    )


# -- blockers ----------------------------------------------------------------------------

BLOCKED = {
    "seventeen_slots": (
        kernel(
            """
t0: pl.Tile[[32, 32], pl.FP32, TM[0], pl.Mem.Vec] = pl.load(a, [0, 0], [32, 32])
t1: pl.Tile[[32, 32], pl.FP32, TM[1], pl.Mem.Vec] = pl.exp(t0)
return out
""",
            decls="TM = pl.MemRef(slots=17)",
        ),
        'pl.MemRef("TM", slots=17)',
        "ptoas supports 2 to 16 slots, and it declares 17",
    ),
    "mixed_shapes": (
        kernel(
            """
big: pl.Tile[[64, 64], pl.FP32, MS[0], pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
small: pl.Tile[[32, 32], pl.FP32, MS[1], pl.Mem.Vec] = pl.load(a, [0, 0], [32, 32])
return out
""",
            decls="MS = pl.MemRef(slots=2)",
        ),
        'pl.MemRef("MS", slots=2)',
        "its slots hold differently shaped tiles, and ptoas slots are uniform",
    ),
    "mixed_valid_shapes": (
        kernel(
            """
t0: pl.Tile[[64, 64], pl.FP32, MV[0], pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64], [64, 64])
t1: pl.Tile[[64, 64], pl.FP32, MV[1], pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64], [32, 64])
return out
""",
            decls="MV = pl.MemRef(slots=2)",
        ),
        'pl.MemRef("MV", slots=2)',
        "its slots declare different valid shapes (64x64 and 32x64), and a region declares one valid extent "
        "for all of them",
    ),
    "runtime_valid_shape": (
        kernel(
            """
t0: pl.Tile[[64, 64], pl.FP32, RV[0], pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64], [rows, 64])
t1: pl.Tile[[64, 64], pl.FP32, RV[1], pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64], [rows, 64])
return out
""",
            decls="RV = pl.MemRef(slots=2)",
            params="a: pl.Tensor[[256, 64], pl.FP32], rows: pl.Scalar[pl.INDEX], "
            "out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]",
        ),
        'pl.MemRef("RV", slots=2)',
        "tile 't0' has a runtime valid shape, and a region declares one static extent for all its slots",
    ),
    "co_live_in_loop": (
        kernel(
            """
for i in pl.range(4):
    lo: pl.Tile[[64, 64], pl.FP32, CO[i % 2], pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
    hi: pl.Tile[[64, 64], pl.FP32, CO[(i + 1) % 2], pl.Mem.Vec] = pl.load(a, [64, 0], [64, 64])
    s: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.add(lo, hi)
    _r = pl.store(s, [0, 0], out)
return out
""",
            decls="CO = pl.MemRef(slots=2)",
        ),
        'pl.MemRef("CO", slots=2)',
        "two of its slots are live at once inside a loop",
    ),
    "co_live_in_if_branches": (
        kernel(
            """
for i in pl.range(4):
    if f > 0:
        x: pl.Tile[[64, 64], pl.FP32, CO[0], pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
        _r = pl.store(x, [0, 0], out)
    else:
        y: pl.Tile[[64, 64], pl.FP32, CO[1], pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
        _s = pl.store(y, [0, 0], out)
return out
""",
            decls="CO = pl.MemRef(slots=2)",
            params="a: pl.Tensor[[256, 64], pl.FP32], f: pl.Scalar[pl.INDEX], "
            "out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]",
        ),
        'pl.MemRef("CO", slots=2)',
        "two of its slots are live at once inside a loop",
    ),
    "unsubscripted_binding": (
        kernel(
            """
t0: pl.Tile[[64, 64], pl.FP32, UB[0], pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
t1: pl.Tile[[64, 64], pl.FP32, UB, pl.Mem.Vec] = pl.exp(t0)
return out
""",
            decls="UB = pl.MemRef(slots=2)",
        ),
        'pl.MemRef("UB", slots=2)',
        "tile 't1' binds it without selecting a slot",
    ),
    "slot_as_loop_carry": (
        kernel(
            """
seed: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
for i, (c,) in pl.range(4, init_values=(seed,)):
    t: pl.Tile[[64, 64], pl.FP32, PH[i % 2], pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
    r = pl.yield_(t)
res: pl.Tensor[[256, 64], pl.FP32] = pl.store(r, [0, 0], out)
return res
""",
            decls="PH = pl.MemRef(slots=2)",
        ),
        'pl.MemRef("PH", slots=2)',
        "one of its slots is carried out of an if or a loop as a phi",
    ),
    "slot_out_of_if": (
        kernel(
            """
for i in pl.range(4):
    if flag > 0:
        t: pl.Tile[[64, 64], pl.FP32, PH[i % 2], pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
        v = pl.yield_(t)
    else:
        w: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
        v = pl.yield_(w)
    e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(v)
    _r = pl.store(e, [0, 0], out)
return out
""",
            decls="PH = pl.MemRef(slots=2)",
            params="a: pl.Tensor[[256, 64], pl.FP32], flag: pl.Scalar[pl.INDEX], "
            "out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]",
        ),
        'pl.MemRef("PH", slots=2)',
        "one of its slots is carried out of an if or a loop as a phi",
    ),
    "right_space_slot": (
        kernel(
            """
bm: pl.Tile[[32, 32], pl.BF16, pl.Mem.Mat] = pl.load(a, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
r0: pl.Tile[[32, 32], pl.BF16, RR[0], pl.Mem.Right] = pl.tile.move(bm, target_memory=pl.Mem.Right)
r1: pl.Tile[[32, 32], pl.BF16, RR[1], pl.Mem.Right] = pl.tile.move(bm, target_memory=pl.Mem.Right)
return out
""",
            decls="RR = pl.MemRef(slots=2)",
            params="a: pl.Tensor[[256, 64], pl.BF16], out: pl.Out[pl.Tensor[[256, 64], pl.BF16]]",
            ret="pl.Tensor[[256, 64], pl.BF16]",
        ),
        'pl.MemRef("RR", slots=2)',
        "ptoas multi-buffer covers the Vec, Mat and Acc memory spaces only",
    ),
}


@pytest.mark.parametrize("name", sorted(BLOCKED))
def test_blocker(name: str) -> None:
    src, decl, reason = BLOCKED[name]
    err = error(src)
    assert err.exit_status == EXIT_REJECTED
    assert err.message.startswith(
        f"The declared allocation '{decl}' cannot be lowered to a ptoas multi-buffer region because {reason}"
    )
    assert err.message.endswith(
        "Under memory_planner=PTOAS the slots have no other way to stay apart — adjust "
        "the declaration, or compile with the default PyPTO memory planner."
    )


@pytest.mark.parametrize("name", sorted(BLOCKED))
def test_blocked_programs_compile_under_pypto(name: str) -> None:
    text = compile_(BLOCKED[name][0], planner=Planner.PYPTO).pto_text
    assert "alloc_multi_tile" not in text
    assert all(" addr = " in a for a in lines(text, "pto.alloc_tile"))


def test_the_blocker_is_reported_at_the_anchor_tile() -> None:
    src = BLOCKED["mixed_shapes"][0]
    err = error(src)
    big = next(n for n, line in enumerate(src.splitlines(), 1) if "big:" in line)
    assert (err.span.line, err.span.col) == (big, 9)  # the first tile of the allocation


def test_the_first_blocker_wins() -> None:
    src = kernel(
        """
t0: pl.Tile[[64, 64], pl.FP32, FB[0], pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
t1: pl.Tile[[32, 32], pl.FP32, FB[1], pl.Mem.Vec] = pl.load(a, [0, 0], [32, 32])
seed: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
for i, (c,) in pl.range(4, init_values=(seed,)):
    t: pl.Tile[[64, 64], pl.FP32, FB[i % 2], pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
    r = pl.yield_(t)
res: pl.Tensor[[256, 64], pl.FP32] = pl.store(r, [0, 0], out)
return res
""",
        decls="FB = pl.MemRef(slots=2)",
    )
    assert "because its slots hold differently shaped tiles" in error(src).message


def test_discovery_order_names_the_first_allocation() -> None:
    src = kernel(
        """
x0: pl.Tile[[64, 64], pl.FP32, AA[0], pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
y0: pl.Tile[[64, 64], pl.FP32, BB[0], pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
y1: pl.Tile[[32, 32], pl.FP32, BB[1], pl.Mem.Vec] = pl.load(a, [0, 0], [32, 32])
x1: pl.Tile[[32, 32], pl.FP32, AA[1], pl.Mem.Vec] = pl.load(a, [0, 0], [32, 32])
return out
""",
        decls="AA = pl.MemRef(slots=2)\nBB = pl.MemRef(slots=2)",
    )
    assert "'pl.MemRef(\"AA\", slots=2)'" in error(src).message


def test_non_integer_slot_index_through_the_api() -> None:
    from slotsat.core import ir
    from slotsat.core.errors import PassError
    from slotsat.lowering.pto_codegen import FunctionEmitter
    from slotsat.lowering.regions import Region

    fn = ir.Function("k", ir.FunctionType.INCORE, (), (), ir.SeqStmts(()))
    emitter = FunctionEmitter(
        fn,
        mode=Mode.SLOTSAT,
        planner=Planner.PTOAS,
        backend=__import__("slotsat.analysis.budget", fromlist=["Backend"]).Backend.ASCEND910B,
    )
    region = Region(ir.Var("X", ir.PtrType()), 2, "T", 64, 64, "X_mb")
    with pytest.raises(PassError, match=r"^A slot index must be an integer or index expression, got FP32$"):
        emitter.slot_operand(ir.Var("t", ir.ScalarType(ir.DType.FP32)), ir.ConstFloat(1.0), region)
