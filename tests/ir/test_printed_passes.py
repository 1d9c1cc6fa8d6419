"""The IR of the reference's printed form through every pass (issue 16 item 2).

Groups: the slots pass's decisions on the printed corpus of this project's kernels
(`tests/data/printed/`); it declines what it does not understand (a load passed to another
function, a load written in place); replication, markers and the rewriter carry while
loops, scopes and the new expressions; the interpreter runs them; codegen declines, in one
located line, what it does not emit; the CLI takes a printed file through parse, slots,
codegen and check.
"""

# ruff: noqa: E501  (printed IR is one statement per line, never wrapped)
from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

from slotsat.app.cli import main
from slotsat.app.pipeline import compile_source
from slotsat.core import ir
from slotsat.core.dsl import parse_file, parse_source, print_module
from slotsat.core.dsl.printer import print_expr
from slotsat.core.errors import PassError
from slotsat.core.inputs import random_inputs
from slotsat.core.interp_errors import InterpreterError
from slotsat.core.interpreter import Interpreter
from slotsat.core.paged import PagedTensor
from slotsat.lowering.common import Rewriter
from slotsat.lowering.lower_pipeline_loops import LowerPipelineLoops
from slotsat.lowering.lower_pipeline_to_slots import Decision, LowerPipelineToSlots
from slotsat.lowering.pto_codegen import preflight
from slotsat.lowering.pto_dialect import round_trips
from slotsat.lowering.resolve_pipeline_markers import ResolvePipelineMarkers

REPO = Path(__file__).resolve().parents[2]
PRINTED = REPO / "tests" / "data" / "printed"

# file -> (decision, decline code or slot index, slotted tiles) of its one pipeline loop
EXPECTED = {
    "row_scale_pipe": ("slotted", "r__idx_v0 % 2", ["xt__ssa_v0", "gt__ssa_v0"]),
    "row_sum_cast": ("slotted", "k__idx_v0 % 2", ["t__ssa_v0"]),
    "valid_rows": ("declined", "tile-valid-shape", []),
    "branches": ("slotted", "(r__idx_v0 - 32) // 64 % 2", ["t__ssa_v0"]),
    "matmul_k": ("slotted", "(k__idx_v0 - 1) % 2", ["ak__ssa_v0", "bk__ssa_v0"]),
    "reshape_view": ("declined", "tile-view", []),
    "write_read": ("slotted", "i__idx_v0 % 2", ["t__ssa_v0"]),
    "jit_add_rows": ("slotted", "c__idx_v0 // 64 % 2", ["t__tile"]),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_slots_decision_on_printed_kernel(name: str) -> None:
    module = parse_file(PRINTED / f"{name}.pre.py")
    decisions = []
    for fn in module.programs[0].functions:
        decisions += [d for d in LowerPipelineToSlots().plan(fn).loops if d.stages > 1]
    (d,) = decisions
    decision, detail, tiles = EXPECTED[name]
    assert d.decision.value == decision
    if d.decision is Decision.SLOTTED:
        assert print_expr(d.slot_index) == detail  # type: ignore[arg-type]
        assert [t.old.name_hint for t in d.tiles] == tiles
        assert all(t.memref.base.name_hint == "pipe_" + t.old.name_hint for t in d.tiles)
    else:
        assert d.decline is not None
        assert d.decline.code == detail


PARAMS = "x: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]"


def source(body: str, params: str = PARAMS, prelude: str = "") -> str:
    return ("import pypto.language as pl\n\n@pl.program\nclass P:\n" + prelude
            + "    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)\n"
            f"    def k({params}) -> pl.Tensor[[256, 64], pl.FP32]:\n"
            + textwrap.indent(textwrap.dedent(body).strip("\n") + "\n", " " * 8))


def kernel(body: str, params: str = PARAMS, prelude: str = "") -> ir.Function:
    module = parse_source(source(body, params, prelude))
    return next(f for f in module.programs[0].functions if f.name == "k")


LOOP = """
for i, (o,) in pl.pipeline(4, stage=2, init_values=(out,)):
    t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [i * 64, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
    {use}
    o2: pl.Tensor[[256, 64], pl.FP32] = pl.tile.store(u, [i * 64, 0], o)
    r: pl.Tensor[[256, 64], pl.FP32] = pl.yield_(o2)
return r
"""
HELPER = ("    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)\n"
          "    def h(t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec]) -> pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec]:\n"
          "        return t\n")


def only_decision(fn: ir.Function) -> object:
    (d,) = [d for d in LowerPipelineToSlots().plan(fn).loops if d.stages > 1]
    return d


def test_a_load_passed_to_another_function_declines_the_loop() -> None:
    fn = kernel(LOOP.format(use="u: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = self.h(t)"), prelude=HELPER)
    d = only_decision(fn)
    assert d.decline is not None  # type: ignore[attr-defined]
    assert d.decline.code == "tile-view"  # type: ignore[attr-defined]
    assert d.decline.message == ("load 't' is passed to self.h, whose effect on its arguments slotsat does not "  # type: ignore[attr-defined]
                                 "analyse")


def test_a_load_written_in_place_declines_the_loop() -> None:
    use = "u: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.write(t, [0, 0], pl.const(1.0, pl.FP32))"
    d = only_decision(kernel(LOOP.format(use=use)))
    assert d.decline is not None  # type: ignore[attr-defined]
    assert d.decline.message == "load 't' is consumed by tile.write, whose result shares its buffer"  # type: ignore[attr-defined]


def test_a_load_read_by_an_op_of_the_reference_only_is_slotted() -> None:
    use = ("s: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.sel(t, t, t)\n"
           "    u: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(s)")
    d = only_decision(kernel(LOOP.format(use=use)))
    assert d.decision is Decision.SLOTTED  # type: ignore[attr-defined]


WHILE = """
b: pl.Scalar[pl.INDEX] = 0
for (n,) in pl.while_(init_values=(0,)):
    pl.cond(n < 2)
    for i, (o,) in pl.pipeline(3, stage=2, init_values=(out,)):
        t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [i * 64 + pl.min(n, 1), 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        u: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(t, [64, 64])
        o2: pl.Tensor[[256, 64], pl.FP32] = pl.tile.store(u, [i * 64, 0], o)
        r: pl.Tensor[[256, 64], pl.FP32] = pl.yield_(o2)
    m: pl.Scalar[pl.INDEX] = n + 1
    nn: pl.Scalar[pl.INDEX] = pl.yield_(m)
return out
"""


def test_replication_and_markers_reach_into_while_loops() -> None:
    fn = kernel(WHILE)
    declined = LowerPipelineToSlots().run(fn)
    assert [d.code for d in declined.declines] == ["tile-view"]
    replicated = LowerPipelineLoops().run(declined.function).function
    resolved = ResolvePipelineMarkers().run(replicated).function
    (loop,) = [s for s in ir.walk_stmts(resolved.body) if isinstance(s, ir.ForStmt)]
    assert loop.kind is ir.ForKind.SEQUENTIAL
    assert sum(1 for s in ir.walk_stmts(loop.body) if isinstance(s, ir.AssignStmt)
               and isinstance(s.value, ir.Call) and s.value.op == "tile.load") == 2  # 2 clones
    text = print_module(ir.Module((ir.Program("P", (resolved,)),)))
    again = parse_source(text)
    ir.assert_structural_equal(again.programs[0].functions[0], resolved)


def test_the_rewriter_clones_the_new_nodes_with_fresh_binders() -> None:
    fn = kernel(WHILE)
    clone = Rewriter(fresh=True).body(fn.body)
    ir.assert_structural_equal(clone, fn.body)
    old = {id(v) for s in ir.walk_stmts(fn.body) if isinstance(s, ir.AssignStmt) for v in [s.var]}
    assert not any(id(s.var) in old for s in ir.walk_stmts(clone) if isinstance(s, ir.AssignStmt))


def test_the_interpreter_runs_while_loops_scopes_and_returns_in_branches() -> None:
    src = textwrap.dedent("""
        import pypto.language as pl

        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.AIV)
            def f(self, a: pl.Scalar[pl.INT32]) -> pl.Scalar[pl.INT32]:
                for (n, s) in pl.while_(init_values=(0, a)):
                    pl.cond(n < 5)
                    with pl.scope():
                        t: pl.Scalar[pl.INT32] = pl.max(s << 1, -7) ^ 3
                    n2: pl.Scalar[pl.INDEX] = n + 1
                    nn, ss = pl.yield_(n2, t)
                while ss > 1000 and not ss == 0:
                    pass
                if ss > 100:
                    return -ss
                else:
                    return ss
    """)
    fn = parse_source(src).programs[0].functions[0]

    def reference(a: int) -> int:
        s = a
        for _ in range(5):
            s = ir.DType.INT32.wrap(max(ir.DType.INT32.wrap(s << 1), -7) ^ 3)
        assert not (s > 1000 and s != 0)
        return ir.DType.INT32.wrap(-s) if s > 100 else s

    for a in (-50, 0, 3, 1 << 28):
        (got,) = Interpreter().run(fn, {"a": a})
        want = reference(a)
        if want > 1000:
            continue  # the natural while loop would not end
        assert got == want


def test_the_interpreter_declines_what_it_does_not_model(monkeypatch: pytest.MonkeyPatch) -> None:
    fn = kernel(LOOP.format(use="u: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.sin(t)"))
    args = random_inputs(fn, np.random.default_rng(0))
    with pytest.raises(InterpreterError, match=r"the interpreter does not model 'tile\.sin'"):
        Interpreter().run(fn, args)
    dyn = kernel("return out", params="x: pl.Tensor[[N, 64], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]")
    drawn = random_inputs(dyn, np.random.default_rng(0))  # a symbolic dimension is drawn and named
    assert drawn["x"].shape == (drawn["N"], 64)
    big = kernel("return out", params="x: pl.Tensor[[8192, 8192], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]")
    assert isinstance(random_inputs(big, np.random.default_rng(0))["x"], PagedTensor)  # drawn as touched
    held = kernel("return out", params="x: pl.Tensor[[512, 256], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]")
    monkeypatch.setenv("SLOTSAT_INTERP_MAX_ELEMENTS", "100000")
    with pytest.raises(InterpreterError, match=r"^too large to interpret: the tensor parameters hold 147,456 "
                       r"elements \('x' is \[512, 256\]\); the interpreter's limit is 100,000"):
        random_inputs(held, np.random.default_rng(0))


@pytest.mark.parametrize(("use", "message"), [
    ("u: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.expands(t, 2.0)",
     "slotsat's code generator does not support tile.expands"),
    ("u: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.sel(t, t, t)",
     "slotsat's code generator does not support tile.sel with 3 arguments (it takes 4)"),
    ("u: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [64, 64], [i ** 2, 0])",
     "slotsat's code generator does not lower 'i ** 2'"),
    ("u: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t, pl.cast(pl.cast(i, pl.FP16), pl.BF16))",
     "slotsat's code generator does not lower the cast 'pl.cast(pl.cast(i, pl.FP16), pl.BF16)' (pl.FP16 to "
     "pl.BF16)"),
    # a slot index is an index-engine root: the hoisted scalar operations have no slot form
    *((f"u: pl.Tile[[64, 64], pl.FP32, pl.MemRef(\"m\", slots=2)[{index}], pl.Mem.Vec] = pl.tile.exp(t)",
       f"slotsat's code generator does not lower the slot index '{index}' of tile 'u': a slot index is an "
       "integer expression of + - * // % and casts")
      for index in ("i / 2", "pl.min(i, 1)", "(i ^ 1) % 2")),
])
def test_codegen_declines_in_one_located_line(use: str, message: str) -> None:
    fn = kernel(LOOP.format(use=use))
    with pytest.raises(PassError) as info:
        preflight(fn)
    assert info.value.message == message
    assert info.value.span.line == 9


def test_codegen_emits_while_loops() -> None:
    """A while loop is an `scf.while` over its carried scalars (`test_printed_codegen`'s
    `while_*` kernels), also when its condition reads none of them (`pl.cond(True)`, which the
    reference prints for its composite ops' persistent loops): then the assignment list is
    `()`, which ptoas's parser and xdsl's read."""
    preflight(kernel(WHILE))
    persistent = """
    b: pl.Scalar[pl.INDEX] = 0
    for (o,) in pl.while_(init_values=(out,)):
        pl.cond(b < 2)
        t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        o2: pl.Tensor[[256, 64], pl.FP32] = pl.tile.store(t, [0, 0], o)
        r: pl.Tensor[[256, 64], pl.FP32] = pl.yield_(o2)
    return out
    """
    text = compile_source(source(persistent), "k.py").pto_text
    assert "scf.while () : () -> () {" in text
    assert "scf.condition(%" in text
    assert round_trips(text)


def test_a_printed_file_goes_through_parse_slots_codegen_and_check(capsys: pytest.CaptureFixture[str],
                                                                  tmp_path: Path) -> None:
    path = str(PRINTED / "row_scale_pipe.pre.py")
    assert main(["parse", path]) == 0
    assert "def kernel(x__ssa_v0: pl.Tensor[[256, 128], pl.FP32]" in capsys.readouterr().out
    assert main(["slots", "--json", path]) == 0
    out = capsys.readouterr().out
    assert '"decision": "slotted"' in out
    assert '"slot_index": "r__idx_v0 % 2"' in out
    pto = tmp_path / "k.pto"
    assert main(["codegen", path, "-o", str(pto)]) == 0
    assert "pto.alloc_multi_tile" in pto.read_text()
    assert "pto.multi_tile_get %pipe_xt__ssa_v0_mb" in pto.read_text()
    assert main(["check", path]) == 0
    assert "rotated: xt__ssa_v0[r__idx_v0 % 2], gt__ssa_v0[r__idx_v0 % 2]; outputs match (3 trials)" in \
        capsys.readouterr().out


def test_codegen_of_a_printed_file_with_a_rounding_mode(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(PRINTED / "row_sum_cast.pre.py")
    assert main(["codegen", "--backend", "none", path]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert "pto.tcvt ins(%t__ssa_v0 {rmode = #pto<round_mode ROUND>} : " in captured.out
