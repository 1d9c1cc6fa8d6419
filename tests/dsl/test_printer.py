"""Specific printed forms (`10-dsl.md` §9 and §10).

Groups: statements and loops (bound forms, stage=, init_values=, attrs=, elif); the
slotted, synthesized and resolved MemRef forms; literals and parentheses; name
disambiguation; printing is total (unprintable nodes are internal errors).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from slotsat.core import ir
from slotsat.core.dsl import parse_file, parse_source, print_module
from slotsat.core.dsl.printer import print_expr, print_function

REPO = Path(__file__).resolve().parents[2]
KERNELS = REPO / "examples" / "kernels"
D = ir.DType
IV = ir.Var("i", ir.ScalarType(D.INDEX))
K32 = ir.Var("k", ir.ScalarType(D.INT32))


def c(value: int, dtype: ir.DType = D.INDEX) -> ir.ConstInt:
    return ir.ConstInt(value, dtype)


def printed_lines(source: str) -> list[str]:
    return [line.strip() for line in print_module(parse_source(source, "k.py")).splitlines()]


def _loop(fn: ir.Function) -> ir.ForStmt:
    loop = next(s for s in fn.body.stmts if isinstance(s, ir.ForStmt))
    return loop


def _row_scale_slotted() -> ir.Function:
    """RowScale after lower-pipeline-to-slots, built by hand as §9 of the slots spec says."""
    fn = parse_file(KERNELS / "row_scale.py").programs[0].functions[0]
    loop = _loop(fn)
    index = ir.FloorMod(loop.loop_var, c(2), D.INDEX)
    mapping: dict[int, ir.Var] = {}
    stmts: list[ir.Stmt] = []
    for s in loop.body.stmts:
        if isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Call) and s.value.op == "tile.load":
            tt = s.var.type
            assert isinstance(tt, ir.TileType)
            base = ir.Var("pipe_" + s.var.name_hint, ir.PtrType())
            new = s.var.retyped(replace(tt, memref=ir.MemRef(base, c(0), 0, True, 2, index)))
            mapping[s.var.id] = new
            stmts.append(ir.AssignStmt(new, s.value))
        elif isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Call):
            args = tuple(mapping.get(a.id, a) if isinstance(a, ir.Var) else a for a in s.value.args)
            stmts.append(replace(s, value=replace(s.value, args=args)))
        else:
            stmts.append(s)
    new_loop = replace(loop, body=ir.SeqStmts(tuple(stmts))).demoted()
    body = tuple(new_loop if s is loop else s for s in fn.body.stmts)
    return replace(fn, body=ir.SeqStmts(body))


# -- statements and loops


def test_after_parse_loads_print_canonically() -> None:
    text = print_module(parse_file(KERNELS / "row_scale.py"))
    assert "        for r, (dst,) in pl.pipeline(8, stage=2, init_values=(out,)):\n" in text
    assert (
        "            xt: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [r * 64, 0], [64, 128], "
        "[64, 128], target_memory=pl.Mem.Vec)\n"
    ) in text
    assert "            res: pl.Tensor[[512, 128], pl.FP32] = pl.yield_(nxt)\n" in text
    assert text.startswith(
        "# pypto.program: RowScale\nimport pypto.language as pl\n\n@pl.program\nclass RowScale:\n"
    )


def test_the_slotted_tile_prints_inline_with_its_slot() -> None:
    text = print_function(_row_scale_slotted())
    assert "    for r, (dst,) in pl.range(8, init_values=(out,)):\n" in text
    assert (
        '        xt: pl.Tile[[64, 128], pl.FP32, pl.MemRef("pipe_xt", slots=2)[r % 2], pl.Mem.Vec] = '
        "pl.tile.load(x, [r * 64, 0], [64, 128], [64, 128], target_memory=pl.Mem.Vec)\n"
    ) in text
    assert '        gt: pl.Tile[[64, 128], pl.FP32, pl.MemRef("pipe_gt", slots=2)[r % 2], pl.Mem.Vec]' in text


def test_the_slotted_function_round_trips() -> None:
    fn = _row_scale_slotted()
    module = ir.Module((ir.Program("RowScale", (fn,)),))
    again = parse_source(print_module(module), "k.py")
    ir.assert_structural_equal(module, again)


@pytest.mark.parametrize(
    ("bounds", "printed"),
    [
        ("8", "pl.range(8)"),
        ("0, 8", "pl.range(8)"),
        ("0, 8, 1", "pl.range(8)"),
        ("2, 8", "pl.range(2, 8)"),
        ("2, 8, 1", "pl.range(2, 8)"),
        ("0, 8, 2", "pl.range(0, 8, 2)"),
        ("-4, n, 4", "pl.range(-4, n, 4)"),
        ("0, n, n", "pl.range(0, n, n)"),
        ("pl.const(0, pl.INDEX), 8", "pl.range(8)"),
    ],
)
def test_loop_bound_forms(kernel: Callable[..., str], bounds: str, printed: str) -> None:
    lines = printed_lines(kernel(f"for i in pl.range({bounds}):\n    pass\nreturn out"))
    assert f"for i in {printed}:" in lines


def test_pipeline_keywords_print_in_order(kernel: Callable[..., str]) -> None:
    body = (
        'for i, (d,) in pl.pipeline(0, 8, 2, attrs={"note": "x", "unroll": 2, "flag": True}, stage=1, '
        "init_values=(out,)):\n    r = pl.yield_(d)\nreturn r"
    )
    assert (
        'for i, (d,) in pl.pipeline(0, 8, 2, stage=1, init_values=(out,), attrs={"note": "x", "unroll": 2, '
        '"flag": True}):'
    ) in printed_lines(kernel(body))


def test_call_attributes_print_last(kernel: Callable[..., str]) -> None:
    body = (
        't = pl.load(a, [0, 0], [64, 64], attrs={"pipeline_membership": "0:1"}, target_memory=pl.Mem.Vec)\n'
        "return out"
    )
    assert (
        "t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [64, 64], [64, 64], "
        'target_memory=pl.Mem.Vec, attrs={"pipeline_membership": "0:1"})'
    ) in printed_lines(kernel(body))


def test_elif_prints_as_else_with_a_nested_if(kernel: Callable[..., str]) -> None:
    body = "if n == 1:\n    pass\nelif n == 2:\n    pass\nreturn out"
    text = print_module(parse_source(kernel(body), "k.py"))
    assert (
        "        if n == 1:\n            pass\n        else:\n            if n == 2:\n                pass\n"
        in text
    )


def test_a_multi_target_yield_prints_without_annotations() -> None:
    text = print_module(parse_file(KERNELS / "prefetch_carried.py"))
    assert "            res, last_off = pl.yield_(nxt, next_off)\n" in text
    assert "            next_off: pl.Scalar[pl.INDEX] = off + 32\n" in text


def test_the_valid_shape_prints_only_when_it_differs(kernel: Callable[..., str]) -> None:
    body = (
        "t = pl.load(a, [0, 0], [64, 64], valid_shape=[n, 64])\n"
        "u = pl.load(a, [0, 0], [64, 64], valid_shape=[64, 64])\nreturn out"
    )
    lines = printed_lines(kernel(body))
    assert (
        "t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[n, 64])] = "
        "pl.tile.load(a, [0, 0], [64, 64], [n, 64], target_memory=pl.Mem.Vec)"
    ) in lines
    assert (
        "u: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = "
        "pl.tile.load(a, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)"
    ) in lines


def test_the_space_is_completed_from_the_op(kernel: Callable[..., str]) -> None:
    body = (
        "t: pl.Tile[[64, 64], pl.FP32] = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)\n"
        "l = pl.tile.move(t, target_memory=pl.Mem.Left)\n"
        "m: pl.Tile[[64, 64], pl.FP32, pl.Mem.Mat] = pl.load(a, [0, 0], [64, 64])\nreturn out"
    )
    lines = printed_lines(kernel(body))
    assert lines[7].startswith("t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Mat] = ")
    assert lines[8].startswith("l: pl.Tile[[64, 64], pl.FP32, pl.Mem.Left] = ")
    assert lines[9].endswith("target_memory=pl.Mem.Mat)")  # the annotation's space becomes the target


# -- MemRefs


def test_declarations_print_inline_in_the_named_form(kernel: Callable[..., str]) -> None:
    body = (
        "t: pl.Tile[[64, 64], pl.FP32, buf, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])\n"
        "u: pl.Tile[[64, 64], pl.FP32, PP[1], pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])\n"
        'v: pl.Tile[[64, 64], pl.FP32, pl.MemorySpace.Vec, pl.MemRef("st", slots=4)] = '
        "pl.load(a, [0, 0], [64, 64])"
        "\nreturn out"
    )
    lines = printed_lines(kernel(body, "buf = pl.MemRef()\nPP = pl.MemRef(slots=2)"))
    assert any(
        line.startswith('t: pl.Tile[[64, 64], pl.FP32, pl.MemRef("buf"), pl.Mem.Vec] = ') for line in lines
    )
    assert any(
        line.startswith('u: pl.Tile[[64, 64], pl.FP32, pl.MemRef("PP", slots=2)[1], pl.Mem.Vec] = ')
        for line in lines
    )
    assert any(
        line.startswith('v: pl.Tile[[64, 64], pl.FP32, pl.MemRef("st", slots=4), pl.Mem.Vec] = ')
        for line in lines
    )


def test_one_declaration_shares_one_base_per_function_and_not_across_functions() -> None:
    module = parse_file(KERNELS / "two_programs.py")
    bases = []
    for program in module.programs:
        for fn in program.functions:
            for s in ir.walk_stmts(fn.body):
                if isinstance(s, ir.AssignStmt) and isinstance(s.var.type, ir.TileType) and s.var.type.memref:
                    bases.append(s.var.type.memref.base)
    assert len(bases) == 2
    assert bases[0] is not bases[1]
    assert all(b.name_hint == "PP" and isinstance(b.type, ir.PtrType) for b in bases)


def test_two_synthesized_allocations_with_one_name_print_distinct_names() -> None:
    a = ir.Var("a", ir.TensorType((256, 64), D.FP32))
    stmts: list[ir.Stmt] = []
    loop_var = ir.Var("i", ir.ScalarType(D.INDEX))
    for _ in range(2):
        base = ir.Var("pipe_t", ir.PtrType())
        memref = ir.MemRef(base, c(0), 0, True, 2, ir.FloorMod(loop_var, c(2), D.INDEX))
        t = ir.Var("t", ir.TileType((64, 64), D.FP32, ir.MemorySpace.Vec, memref))
        call = ir.Call(
            "tile.load",
            (a, ir.ExprList((c(0), c(0))), ir.ExprList((c(64), c(64))), ir.ExprList((c(64), c(64)))),
            (("target_memory", ir.SpaceArg(ir.MemorySpace.Vec)),),
        )
        stmts.append(ir.AssignStmt(t, call))
    loop = ir.ForStmt(ir.ForKind.SEQUENTIAL, loop_var, c(0), c(4), c(1), (), (), ir.SeqStmts(tuple(stmts)))
    fn = ir.Function("kernel", ir.FunctionType.INCORE, (a,), (), ir.SeqStmts((loop, ir.ReturnStmt(()))))
    text = print_function(fn)
    assert 'pl.MemRef("pipe_t", slots=2)[i % 2]' in text
    assert 'pl.MemRef("pipe_t_1", slots=2)[i % 2]' in text
    assert "        t_1: pl.Tile" in text
    module = ir.Module((ir.Program("P", (fn,)),))
    ir.assert_structural_equal(module, parse_source(print_module(module), "k.py"))


def test_the_resolved_form_and_the_allocation_statement_round_trip(kernel: Callable[..., str]) -> None:
    body = (
        "pipe_t: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768, pinned=True)\n"
        "CS: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768, pinned=True)\n"
        "for i in pl.range(4):\n"
        "    t: pl.Tile[[64, 64], pl.FP32, pl.MemRef(pipe_t, i % 2 * 16384, 16384, slots=2)[i % 2], "
        "pl.Mem.Vec] = "
        "pl.load(a, [i * 64, 0], [64, 64])\n"
        "    u: pl.Tile[[64, 64], pl.FP32, pl.MemRef(CS, pl.const(16384, pl.INT64), 16384, slots=2)[1], "
        "pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])\n"
        "    w: pl.Tile[[64, 64], pl.FP32, pl.MemRef(CS, pl.const(0, pl.INT64), 16384, slots=2), "
        "pl.Mem.Vec] = "
        "pl.load(a, [0, 0], [64, 64])\n"
        "return out"
    )
    module = parse_source(kernel(body), "k.py")
    lines = [line.strip() for line in print_module(module).splitlines()]
    assert "pipe_t: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768, pinned=True)" in lines
    text = "\n".join(lines)
    assert "pl.MemRef(pipe_t, i % 2 * 16384, 16384, slots=2)[i % 2], pl.Mem.Vec]" in text
    assert "pl.MemRef(CS, pl.const(16384, pl.INT64), 16384, slots=2)[1], pl.Mem.Vec]" in text
    assert "pl.MemRef(CS, pl.const(0, pl.INT64), 16384, slots=2), pl.Mem.Vec]" in text
    fn = module.programs[0].functions[0]
    alloc = fn.body.stmts[0]
    assert isinstance(alloc, ir.AssignStmt)
    assert alloc.value == ir.Call(
        "tile.alloc", (ir.SpaceArg(ir.MemorySpace.Vec), c(32768)), (("pinned", c(1, D.BOOL)),)
    )
    assert alloc.var.type == ir.PtrType()
    tile = _loop(fn).body.stmts[0]
    assert isinstance(tile, ir.AssignStmt)
    assert isinstance(tile.var.type, ir.TileType)
    memref = tile.var.type.memref
    assert memref is not None
    assert (memref.base, memref.size, memref.is_pinned, memref.slot_count) == (alloc.var, 16384, False, 2)
    assert memref.slot_index == ir.FloorMod(_loop(fn).loop_var, c(2), D.INDEX)


# -- expressions


@pytest.mark.parametrize(
    ("expr", "printed"),
    [
        (ir.FloorMod(ir.FloorDiv(IV, c(64), D.INDEX), c(2), D.INDEX), "i // 64 % 2"),
        (
            ir.FloorMod(ir.FloorDiv(ir.Sub(IV, c(8), D.INDEX), c(64), D.INDEX), c(2), D.INDEX),
            "(i - 8) // 64 % 2",
        ),
        (ir.FloorMod(ir.Sub(IV, c(1), D.INDEX), c(2), D.INDEX), "(i - 1) % 2"),
        (ir.Sub(IV, ir.Sub(IV, c(1), D.INDEX), D.INDEX), "i - (i - 1)"),
        (ir.Sub(ir.Sub(IV, c(1), D.INDEX), IV, D.INDEX), "i - 1 - i"),
        (ir.Mul(ir.Add(IV, c(2), D.INDEX), c(64), D.INDEX), "(i + 2) * 64"),
        (ir.Mul(ir.FloorMod(IV, c(2), D.INDEX), c(16384), D.INDEX), "i % 2 * 16384"),
        (ir.Mul(IV, ir.FloorMod(IV, c(2), D.INDEX), D.INDEX), "i * (i % 2)"),
        (ir.Add(IV, ir.Mul(IV, c(3), D.INDEX), D.INDEX), "i + i * 3"),
        (ir.Mul(c(8), c(64), D.INDEX), "pl.const(8, pl.INDEX) * pl.const(64, pl.INDEX)"),
        (ir.Add(K32, c(1, D.INT32), D.INT32), "k + 1"),
        (ir.Add(c(1, D.INT32), K32, D.INT32), "1 + k"),
        (c(5, D.INT32), "pl.const(5, pl.INT32)"),
        (c(-3), "-3"),
        (ir.Sub(IV, c(-3), D.INDEX), "i - -3"),
        (c(2147483648, D.INT32), "pl.const(2147483648, pl.INT32)"),
        (ir.Cast(IV, D.INT32), "pl.cast(i, pl.INT32)"),
        (ir.Cast(c(7), D.INT64), "pl.cast(7, pl.INT64)"),
        (ir.Add(ir.Cast(IV, D.INT32), c(1, D.INT32), D.INT32), "pl.cast(i, pl.INT32) + 1"),
        (ir.Cmp(ir.CmpOp.LE, ir.Add(IV, c(1), D.INDEX), c(8)), "i + 1 <= 8"),
        (ir.Cmp(ir.CmpOp.EQ, K32, c(0, D.INT32)), "k == 0"),
        (ir.Cmp(ir.CmpOp.NE, c(1), c(2)), "pl.const(1, pl.INDEX) != pl.const(2, pl.INDEX)"),
        (ir.ConstFloat(0.5), "0.5"),
        (ir.ConstFloat(0.5, D.FP16), "pl.const(0.5, pl.FP16)"),
    ],
)
def test_expression_forms(expr: ir.Expr, printed: str) -> None:
    assert print_expr(expr) == printed


@pytest.mark.parametrize(
    "text",
    [
        "i // 64 % 2",
        "(i - 8) // 64 % 2",
        "i - (i - 1)",
        "(i + 2) * 64",
        "pl.const(8, pl.INDEX) * pl.const(64, pl.INDEX)",
        "i - -3",
        "(i + 1) // (i - 1) % 4",
        "pl.cast(pl.cast(i, pl.INT32) * 2, pl.INT64) + 1",
    ],
)
def test_expression_text_is_stable_through_the_parser(kernel: Callable[..., str], text: str) -> None:
    lines = printed_lines(kernel(f"for i in pl.range(8):\n    x = {text}\nreturn out"))
    assert any(line.endswith(f"= {text}") for line in lines)


# -- names


def test_a_replicated_clone_prints_with_suffixes() -> None:
    fn = parse_file(KERNELS / "row_scale.py").programs[0].functions[0]
    loop = _loop(fn)
    clone = next(s for s in loop.body.stmts if isinstance(s, ir.AssignStmt))
    copy = ir.AssignStmt(clone.var.fresh(), clone.value)
    body = ir.SeqStmts((*loop.body.stmts[:-1], copy, loop.body.stmts[-1]))
    fn2 = replace(fn, body=ir.SeqStmts((replace(loop, body=body), *fn.body.stmts[1:])))
    text = print_function(fn2)
    assert "        xt: pl.Tile" in text
    assert "        xt_1: pl.Tile" in text


def test_reserved_and_keyword_hints_are_renamed() -> None:
    a = ir.Var("pl", ir.ScalarType(D.INDEX))
    b = ir.Var("self", ir.ScalarType(D.INDEX))
    d = ir.Var("lambda", ir.ScalarType(D.INDEX))
    body = ir.SeqStmts((ir.AssignStmt(b, a), ir.AssignStmt(d, b), ir.ReturnStmt((d,))))
    fn = ir.Function("f", ir.FunctionType.OPAQUE, (a,), (ir.ScalarType(D.INDEX),), body)
    text = print_function(fn)
    assert "def f(self, pl_1: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:" in text
    assert "    self_1: pl.Scalar[pl.INDEX] = pl_1\n" in text
    assert "    lambda_: pl.Scalar[pl.INDEX] = self_1\n" in text
    module = ir.Module((ir.Program("P", (fn,)),))
    ir.assert_structural_equal(module, parse_source(print_module(module), "k.py"))


# -- printing is total


def test_a_misplaced_yield_is_an_internal_error() -> None:
    fn = ir.Function("f", ir.FunctionType.OPAQUE, (), (), ir.SeqStmts((ir.YieldStmt(()), ir.ReturnStmt(()))))
    with pytest.raises(AssertionError, match="unprintable yield"):
        print_function(fn)


def test_a_non_tile_op_is_an_internal_error() -> None:
    fn = ir.Function(
        "f",
        ir.FunctionType.OPAQUE,
        (),
        (),
        ir.SeqStmts((ir.EvalStmt(ir.Call("foo.bar", ())), ir.ReturnStmt(()))),
    )
    with pytest.raises(AssertionError, match="unprintable call"):
        print_function(fn)


def test_an_empty_module_prints_the_import_only() -> None:
    assert print_module(ir.Module(())) == "import pypto.language as pl\n"
