"""init-memref (`30-pto-codegen.md` §2, catalog G): geometry, resolved MemRefs, the hoisted
allocation statement, and every declaration error (one line, exit status 1)."""

# ruff: noqa: E501 - exact one-line messages read best unsplit
from __future__ import annotations

import pytest

from slotsat.analysis.budget import Backend
from slotsat.core import ir
from slotsat.core.dsl.parser import parse_source
from slotsat.core.errors import EXIT_REJECTED, PassError
from slotsat.core.options import Planner
from slotsat.lowering.init_memref import InitMemRef, is_alloc_statement
from tests.codegen.harness import compile_, error, kernel

CONSTANT_SLOTS = kernel(
    """
t0: pl.Tile[[64, 64], pl.FP32, CS[0], pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
t1: pl.Tile[[64, 64], pl.FP32, CS[1], pl.Mem.Vec] = pl.exp(t0)
return out
""",
    decls="CS = pl.MemRef(slots=2)",
)


def _run(src: str, planner: Planner = Planner.PTOAS) -> ir.Function:
    fn = parse_source(src, "k.py").programs[0].functions[0]
    return InitMemRef(planner=planner, backend=Backend.ASCEND910B).run(fn).function


def _tiles(fn: ir.Function) -> dict[str, ir.MemRef]:
    out: dict[str, ir.MemRef] = {}
    for s in ir.walk_stmts(fn.body):
        if (
            isinstance(s, ir.AssignStmt)
            and isinstance(s.var.type, ir.TileType)
            and s.var.type.memref is not None
        ):
            out[s.var.name_hint] = s.var.type.memref
    return out


def _allocs(fn: ir.Function) -> list[tuple[str, ir.MemorySpace, int]]:
    out = []
    for s in fn.body.stmts:
        if is_alloc_statement(s):
            assert isinstance(s, ir.AssignStmt)
            assert isinstance(s.value, ir.Call)
            space, size = s.value.args
            assert isinstance(space, ir.SpaceArg)
            assert isinstance(size, ir.ConstInt)
            out.append((s.var.name_hint, space.space, size.value))
    return out


def test_constant_slots_resolve_to_int64_offsets() -> None:
    fn = _run(CONSTANT_SLOTS)
    assert _allocs(fn) == [("CS", ir.MemorySpace.Vec, 32768)]
    assert is_alloc_statement(fn.body.stmts[0])
    tiles = _tiles(fn)
    assert tiles["t0"].byte_offset == ir.ConstInt(0, ir.DType.INT64)
    assert tiles["t1"].byte_offset == ir.ConstInt(16384, ir.DType.INT64)
    for m in tiles.values():
        assert (m.size, m.slot_count, m.is_pinned) == (16384, 2, False)
    assert tiles["t1"].slot_index == ir.ConstInt(1, ir.DType.INDEX)
    assert tiles["t0"].base is tiles["t1"].base


def test_constant_slots_print_resolved() -> None:
    from slotsat.core.dsl import printer

    fn = _run(CONSTANT_SLOTS)
    module = ir.Module((ir.Program("P", (fn,)),))
    text = printer.print_module(module)
    assert "CS: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768, pinned=True)" in text
    assert "pl.MemRef(CS, pl.const(16384, pl.INT64), 16384, slots=2)[1]" in text
    again = printer.print_module(parse_source(text, "k.py"))
    assert again == text


def test_slot_size_is_the_largest_binding() -> None:
    fn = _run(
        kernel(
            """
big: pl.Tile[[64, 64], pl.FP32, buf[0], pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
small: pl.Tile[[32, 32], pl.FP32, buf[1], pl.Mem.Vec] = pl.load(a, [0, 0], [32, 32])
return out
""",
            decls="buf = pl.MemRef(slots=2)",
        )
    )
    assert _allocs(fn) == [("buf", ir.MemorySpace.Vec, 32768)]
    small = _tiles(fn)["small"]
    assert (small.byte_offset, small.size) == (ir.ConstInt(16384, ir.DType.INT64), 16384)


def test_runtime_index_offset_keeps_the_index() -> None:
    fn = _run(
        kernel(
            """
for i in pl.range(4):
    t: pl.Tile[[64, 64], pl.FP32, l0c[i % 2], pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
return out
""",
            decls="l0c = pl.MemRef(slots=2)",
        )
    )
    t = _tiles(fn)["t"]
    assert isinstance(t.slot_index, ir.FloorMod)
    assert t.byte_offset == ir.Mul(t.slot_index, ir.ConstInt(16384, ir.DType.INDEX), ir.DType.INDEX)


def test_high_slot_only() -> None:
    fn = _run(
        kernel(
            """
t: pl.Tile[[64, 64], pl.FP32, H[7], pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
return out
""",
            decls="H = pl.MemRef(slots=8)",
        )
    )
    assert _allocs(fn) == [("H", ir.MemorySpace.Vec, 131072)]
    assert _tiles(fn)["t"].byte_offset == ir.ConstInt(114688, ir.DType.INT64)


def test_synthesized_allocation_resolves() -> None:
    from slotsat.lowering.lower_pipeline_to_slots import LowerPipelineToSlots

    src = kernel("""
for i, (acc,) in pl.pipeline(4, stage=2, init_values=(out,)):
    t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
    e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(t)
    nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(e, [i * 64, 0], acc)
    y = pl.yield_(nxt)
return y
""")
    fn = parse_source(src, "k.py").programs[0].functions[0]
    fn = LowerPipelineToSlots(planner=Planner.PTOAS, backend=Backend.ASCEND910B).run(fn).function
    fn = InitMemRef().run(fn).function
    assert _allocs(fn) == [("pipe_t", ir.MemorySpace.Vec, 32768)]
    t = _tiles(fn)["t"]
    assert (t.size, t.slot_count) == (16384, 2)
    assert isinstance(t.byte_offset, ir.Mul)


ERRORS = {
    "counts_disagree": (
        kernel("""
t0: pl.Tile[[64, 64], pl.FP32, pl.MemRef("buf"), pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
t1: pl.Tile[[64, 64], pl.FP32, pl.MemRef("buf", slots=2)[1], pl.Mem.Vec] = pl.exp(t0)
return out
"""),
        "References to the declared allocation 'buf' disagree on how many slots it has (1 vs 2); declare it "
        "once with pl.MemRef(slots=N)",
    ),
    "size_overflow": (
        kernel(
            """
t: pl.Tile[[64, 64], pl.FP32, X[0], pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
return out
""",
            decls="X = pl.MemRef(slots=1152921504606846976)",
        ),
        "Declared allocation 'X' is too large: 1152921504606846976 slots of 16384 bytes overflow a 64-bit size",
    ),
    "single_slot_ptoas": (
        kernel("""
t0: pl.Tile[[64, 64], pl.FP32, pl.MemRef("SINGLE"), pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
return out
"""),
        'A single-slot declared allocation (pl.MemRef("SINGLE")) is not supported under '
        "memory_planner=PTOAS, which would be free to share it with other tiles. Declare it with "
        "pl.MemRef(slots=N) to get a ptoas multi-buffer region, or compile with the default PyPTO memory planner",
    ),
    "mixed_spaces": (
        kernel(
            """
x: pl.Tile[[64, 64], pl.FP32, buf[0], pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
y: pl.Tile[[64, 64], pl.FP32, buf[1], pl.Mem.Mat] = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
return out
""",
            decls="buf = pl.MemRef(slots=2)",
        ),
        "Tiles bound to the declared allocation 'buf' must all live in the same memory space, got Vec and Mat",
    ),
    "view_output_bound": (
        kernel("""
t0: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
v: pl.Tile[[32, 128], pl.FP32, pl.MemRef("elsewhere", slots=2)[0], pl.Mem.Vec] = pl.tile.reshape(t0, [32, 128])
return out
"""),
        "Tile 'v' is the result of tile.reshape, which lands in its source tile's allocation, so it cannot also be "
        "bound to the declared allocation 'elsewhere'",
    ),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_declaration_error(name: str) -> None:
    src, message = ERRORS[name]
    err = error(src)
    assert err.message == message
    assert err.exit_status == EXIT_REJECTED
    assert err.span.line > 0


def test_single_slot_compiles_under_pypto() -> None:
    text = compile_(ERRORS["single_slot_ptoas"][0], planner=Planner.PYPTO).pto_text
    assert "%t0 = pto.alloc_tile addr = %c0_i64 valid_row = %c64_index valid_col = %c64_index" in text


def test_unbound_slots_count_under_pypto() -> None:
    src = kernel(
        """
t: pl.Tile[[64, 64], pl.FP32, U[0], pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
return out
""",
        decls="U = pl.MemRef(slots=12)",
    )
    err = error(src, planner=Planner.PYPTO)
    assert err.message.startswith("PYPTO planner: Vec needs 196608 bytes but the backend provides 188416")


def test_dynamic_shape_binding_through_the_api() -> None:
    base = ir.Var("D", ir.PtrType())
    memref = ir.MemRef(base, ir.ConstInt(0), 0, True, 2, ir.ConstInt(0))
    tile = ir.Var("t", ir.TileType((), ir.DType.FP32, ir.MemorySpace.Vec, memref))
    fn = ir.Function(
        "k", ir.FunctionType.INCORE, (), (), ir.SeqStmts((ir.AssignStmt(tile, ir.Call("tile.exp", ())),))
    )
    with pytest.raises(
        PassError,
        match=r"^Tile 't' is bound to the declared allocation 'D' but has a dynamic shape; "
        r"a declared allocation needs a static size$",
    ):
        InitMemRef().run(fn)


def test_zero_slots_through_the_api() -> None:
    with pytest.raises(ValueError, match="a MemRef must have at least one slot"):
        ir.MemRef(ir.Var("Z", ir.PtrType()), ir.ConstInt(0), 0, True, 0)
