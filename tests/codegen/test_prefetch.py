# ruff: noqa: E501  (DSL parameter lists and emitted lines are one line each)
"""The asynchronous GM-to-L2 prefetch family (`prefetch.make_context`, `async_prefetch`,
`session`, `wait`): the handles it yields, its code and the hidden SDMA workspace parameter.

Groups: the reference's printed kernel compiles to the reference's own module (up to SSA
names); hand-written DSL deduces the handle types, emits the four ops in order with the
workspace after every other parameter but the SPMD identities, and `check` runs it (a prefetch
changes no value); what stays a located error (a source that is not one flat run of GM, a
handle carried through a loop, an annotation naming another handle); a prefetch inside a
pipelined body leaves the loop slotted.
"""

from __future__ import annotations

import pytest

from slotsat.app.commands.check import check_module
from slotsat.core import ir
from slotsat.core.dsl.parser import parse_source
from slotsat.core.dsl.printer import print_module
from slotsat.core.errors import SlotsatError
from tests.codegen.harness import compile_, error, kernel, lines, references_module

TABLE = "table: pl.Tensor[[1, 4096], pl.FP32], a: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]"
PREFETCH = """
ctx = pl.prefetch.make_context()
evt = pl.prefetch.async_prefetch(table, ctx)
session = pl.prefetch.session(ctx)
pl.prefetch.wait(evt, session)
"""
LOOP = """
for i, (dst,) in pl.pipeline(4, stage=2, init_values=(out,)):
    t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
    e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(t)
    nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(e, [i * 64, 0], dst)
    res = pl.yield_(nxt)
return res
"""


def test_the_printed_kernel_compiles_to_the_references_module() -> None:
    """`prefetch_rows` of `tools/printed_kernels.py`, as the reference prints it at the hand-off
    point, in `--mode pypto`: the reference's `.pto` operation for operation."""
    ours, theirs = references_module("prefetch_rows")
    assert ours == theirs


def test_hand_written_prefetch_deduces_the_handles_and_round_trips() -> None:
    module = parse_source(kernel(PREFETCH + LOOP, params=TABLE), "k.py")
    (fn,) = module.programs[0].functions
    types = {s.var.name_hint: s.var.type for s in ir.walk_stmts(fn.body) if isinstance(s, ir.AssignStmt)}
    assert types["ctx"] == ir.OpaqueType("pl.PrefetchAsyncContext")
    assert types["evt"] == ir.OpaqueType("pl.AsyncEvent")
    assert types["session"] == ir.OpaqueType("pl.AsyncSession")
    text = print_module(module)
    assert "ctx: pl.PrefetchAsyncContext = pl.prefetch.make_context()" in text
    ir.assert_structural_equal(module, parse_source(text, "again.py"))


def test_the_four_ops_are_emitted_in_order_over_the_hidden_workspace() -> None:
    text = compile_(kernel(PREFETCH + LOOP, params=TABLE)).pto_text
    (header,) = lines(text, "func.func @kernel")
    assert "%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<f32>, %arg2: !pto.ptr<f32>, %arg3: !pto.ptr<i8>)" in header
    body = [line.strip() for line in text.splitlines()]
    order = [k for k, line in enumerate(body) if "prefetch" in line or "wait_async_event" in line]
    assert [body[k].split(" = ")[1].split("(")[0].split(" ")[0] for k in order] == [
        "pto.make_prefetch_async_context", "pto.tprefetch_async", "pto.get_prefetch_async_session",
        "pto.comm.wait_async_event"]
    assert body[order[0]] == "%ctx = pto.make_prefetch_async_context(%arg3 : !pto.ptr<i8>) -> !pto.prefetch_async_context"
    pv = body[order[1] - 1]
    assert pv.startswith("%")
    assert "pto.partition_view %table_view, offsets = [%c0_index, %c0_index]" in pv
    assert pv.endswith("-> !pto.partition_tensor_view<1x4096xf32>")
    assert body[order[3]].endswith("(%evt, %session : !pto.async_event, !pto.async_session) -> i1")
    assert "pto.multi_tile_get" in text  # the pipeline loop is slotted as before


def test_a_function_without_a_context_has_no_workspace_parameter() -> None:
    (header,) = lines(compile_(kernel(LOOP, params=TABLE)).pto_text, "func.func @kernel")
    assert "!pto.ptr<i8>" not in header


def test_a_context_made_by_a_bare_statement_still_gets_the_workspace() -> None:
    """`pl.prefetch.make_context()` whose context nobody reads (the reference's own test of a
    kernel without parameters): the reference emits it over the workspace all the same."""
    text = compile_(kernel("pl.prefetch.make_context()\nreturn out\n", params="out: pl.Out[pl.Tensor[[8, 8], pl.FP32]]",
                           ret="pl.Tensor[[8, 8], pl.FP32]")).pto_text
    (header,) = lines(text, "func.func @kernel")
    assert "%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<i8>)" in header
    assert lines(text, "pto.make_prefetch_async_context") == [
        "%0 = pto.make_prefetch_async_context(%arg1 : !pto.ptr<i8>) -> !pto.prefetch_async_context"]


def test_the_workspace_comes_before_the_spmd_identities() -> None:
    body = PREFETCH + "b: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()\n" + LOOP.replace("[i * 64, 0], [64, 64])", "[i * 64 + b, 0], [64, 64])", 1)
    (header,) = lines(compile_(kernel(body, params=TABLE)).pto_text, "func.func @kernel")
    params = header[header.index("(") + 1 : header.index(")")]
    assert params.endswith("%arg3: !pto.ptr<i8>, %__pypto_spmd_block_idx: i32, %__pypto_spmd_block_num: i32")


def test_the_done_flag_is_a_value_the_kernel_can_read() -> None:
    body = PREFETCH.replace("pl.prefetch.wait(", "done = pl.prefetch.wait(") + "if done:\n    pl.system.fence()\n" + LOOP
    text = compile_(kernel(body, params=TABLE)).pto_text
    assert lines(text, "%done = pto.comm.wait_async_event")
    assert lines(text, "scf.if %done")


def test_check_runs_a_prefetching_kernel() -> None:
    """L2 holds copies of GM: the prefetch changes no value, and the slotted loop is confirmed."""
    result = check_module(parse_source(kernel(PREFETCH + LOOP, params=TABLE), "k.py"))
    (fc,) = result.functions
    assert fc.unverified is None
    assert not result.failed
    assert fc.trials_run > 0


@pytest.mark.parametrize("shape", ["[64, 64]", "[2, 2048]"])
def test_a_source_that_is_not_one_flat_run_is_a_located_error(shape: str) -> None:
    params = TABLE.replace("[[1, 4096]", f"[{shape}")
    err = error(kernel(PREFETCH + LOOP, params=params))
    assert "prefetch.async_prefetch prefetches a flat region of a static size" in str(err)
    assert f"got {shape}" in str(err)
    assert err.span.line == 11


def test_a_handle_carried_through_a_loop_is_a_located_error() -> None:
    body = PREFETCH + """
for j, (c,) in pl.range(2, init_values=(ctx,)):
    c2 = pl.yield_(c)
""" + LOOP
    err = error(kernel(body, params=TABLE))
    assert "has an opaque type, which slotsat's code generator does not emit" in str(err)


@pytest.mark.parametrize(("line", "message"), [
    ("evt: pl.AsyncSession = pl.prefetch.async_prefetch(table, ctx)",
     "annotation says pl.AsyncSession but pl.prefetch.async_prefetch produces pl.AsyncEvent"),
    ("ctx: pl.Scalar[pl.INDEX] = pl.prefetch.make_context()",
     "annotation says pl.Scalar[pl.INDEX] but pl.prefetch.make_context produces pl.PrefetchAsyncContext"),
])
def test_an_annotation_naming_another_handle_is_a_located_error(line: str, message: str) -> None:
    name = line.split(":", maxsplit=1)[0]
    body = "\n".join(line if s.startswith(f"{name} = ") else s for s in PREFETCH.strip().splitlines())
    with pytest.raises(SlotsatError) as info:
        parse_source(kernel(body + "\n" + LOOP, params=TABLE), "k.py")
    assert str(info.value) == message


def test_a_prefetch_each_iteration_leaves_the_pipeline_loop_slotted() -> None:
    """A prefetch and its wait inside the pipelined body (the handles made before the loop):
    the loop is still slotted, as the reference decides it, and each iteration prefetches."""
    body = """
ctx = pl.prefetch.make_context()
session = pl.prefetch.session(ctx)
""" + LOOP.replace("    t: pl.Tile", "    evt = pl.prefetch.async_prefetch(table, ctx)\n    pl.prefetch.wait(evt, session)\n    t: pl.Tile", 1)
    result = compile_(kernel(body, params=TABLE))
    assert [d.reason for d in result.declines] == []
    text = result.pto_text
    loop = text[text.index("scf.for"):]
    assert "pto.tprefetch_async" in loop
    assert "pto.comm.wait_async_event" in loop
    assert "pto.multi_tile_get" in loop


@pytest.mark.parametrize(("old", "new", "message"), [
    ("session(ctx)", "session(table)", "expected a pl.PrefetchAsyncContext made by its prefetch op here"),
    ("wait(evt, session)", "wait(session, evt)", "expected a pl.AsyncEvent made by its prefetch op here"),
])
def test_a_handle_operand_of_another_kind_is_a_located_error(old: str, new: str, message: str) -> None:
    err = error(kernel(PREFETCH.replace(old, new) + LOOP, params=TABLE))
    assert str(err) == message
