"""Builders and checks shared by the slots tests: kernel text in the DSL, parsed with
`parse_source`, run through the passes, compared with `assert_structural_equal`."""

from __future__ import annotations

import textwrap

from slotsat.analysis.budget import Backend
from slotsat.core import ir
from slotsat.core.dsl.parser import parse_source
from slotsat.core.options import Planner
from slotsat.lowering.lower_pipeline_loops import LowerPipelineLoops
from slotsat.lowering.lower_pipeline_to_slots import (
    Decision,
    FunctionPlan,
    LoopDecision,
    LowerPipelineToSlots,
)
from slotsat.lowering.resolve_pipeline_markers import ResolvePipelineMarkers

SIG = "a: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]"
RET = "pl.Tensor[[256, 64], pl.FP32]"


def program(body: str, params: str = SIG, ret: str = RET, *, incore: bool = False, prelude: str = "") -> str:
    deco = "@pl.function(type=pl.FunctionType.InCore)" if incore else "@pl.function"
    inner = textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8)
    return (f"import pypto.language as pl\n{prelude}\n\n@pl.program\nclass P:\n    {deco}\n"
            f"    def main(self, {params}) -> {ret}:\n{inner}\n")


def function(src: str) -> ir.Function:
    return parse_source(src, "test.py").programs[0].functions[0]


def sl_body(loop: str, *, shape: str = "[64, 64]", offsets: str = "[i * 64, 0]", tile_extra: str = "",
            load_extra: str = "", memref: str = "", iv: str = "i") -> str:
    """The catalog's "SL body" in a loop `for IV, (acc,) in pl.LOOP, init_values=(out,)):`."""
    mr = f", {memref}" if memref else ""
    return f"""
    for {iv}, (acc,) in pl.{loop}, init_values=(out,)):
        t: pl.Tile[{shape}, pl.FP32{mr}, pl.Mem.Vec{tile_extra}] = pl.load(a, {offsets}, {shape}{load_extra})
        e: pl.Tile[{shape}, pl.FP32, pl.Mem.Vec{tile_extra}] = pl.exp(t)
        nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(e, {offsets}, acc)
        y = pl.yield_(nxt)
    return y
    """


def slots(fn: ir.Function, planner: Planner | None = Planner.PTOAS, backend: Backend = Backend.ASCEND950,
          compat: bool = False) -> FunctionPlan:
    return LowerPipelineToSlots(planner=planner, backend=backend, compat=compat).plan(fn)


def decisions(src: str, **kw: object) -> list[LoopDecision]:
    return list(slots(function(src), **kw).loops)  # type: ignore[arg-type]


def only(src: str, **kw: object) -> LoopDecision:
    (d,) = [d for d in decisions(src, **kw) if d.stages > 1] or decisions(src, **kw)
    return d


def assert_declined(src: str, code: str, **kw: object) -> LoopDecision:
    fn = function(src)
    plan = slots(fn, **kw)  # type: ignore[arg-type]
    d = next(d for d in plan.loops if d.stages > 1)
    assert d.decision is Decision.DECLINED, d
    assert d.decline is not None
    assert d.decline.code == code, d.decline
    assert not d.tiles
    return d


def assert_expected(before: str, expected: str, **kw: object) -> ir.Function:
    """Before/Expected: the pass output equals the parsed expectation, binders by position."""
    out = slots(function(before), **kw).result  # type: ignore[arg-type]
    ir.assert_structural_equal(out, function(expected))
    return out


def index_text(e: ir.Expr | None) -> str:
    from slotsat.lowering.common import format_expr

    assert e is not None
    return format_expr(e)


def full_pipeline(fn: ir.Function, planner: Planner | None = Planner.PTOAS,
                  backend: Backend = Backend.ASCEND950) -> ir.Function:
    fn = LowerPipelineToSlots(planner=planner, backend=backend).run(fn).function
    fn = LowerPipelineLoops().run(fn).function
    return ResolvePipelineMarkers().run(fn).function


def count_calls(fn: ir.Function, op: str) -> int:
    return sum(1 for s in ir.walk_stmts(fn.body) if isinstance(s, ir.AssignStmt)
               and isinstance(s.value, ir.Call) and s.value.op == op)


def pipeline_loops(fn: ir.Function) -> list[ir.ForStmt]:
    return [s for s in ir.walk_stmts(fn.body) if isinstance(s, ir.ForStmt) and s.kind is ir.ForKind.PIPELINE]
