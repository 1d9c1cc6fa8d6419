# ruff: noqa: E501  (DSL statements in the kernel texts are one line each, as printed)
"""lower-pipeline-loops and resolve-pipeline-markers: the catalog of
`20-lower-pipeline-to-slots.md` §16 group F, plus chaining with the slots pass.

Groups: Before/Expected replications (static divide, static tail, pure tail, dynamic
cascade); membership tags; nesting; errors (one test per failure, exact messages); markers.
"""

from __future__ import annotations

import pytest

from slotsat.core import ir
from slotsat.core.dsl.printer import print_function, print_module
from slotsat.core.errors import PassError
from slotsat.core.interpreter import eval_scalar
from slotsat.core.options import Planner
from slotsat.lowering.lower_pipeline_loops import LowerPipelineLoops
from slotsat.lowering.lower_pipeline_to_slots import LowerPipelineToSlots
from slotsat.lowering.resolve_pipeline_markers import ResolvePipelineMarkers
from tests.slots.harness import SIG, count_calls, full_pipeline, function, pipeline_loops, program, sl_body

N_SIG = SIG + ", n: pl.Scalar[pl.INDEX]"


def replicate(src: str, planner: Planner = Planner.PYPTO) -> ir.Function:
    fn = LowerPipelineToSlots(planner=planner).run(function(src)).function
    return LowerPipelineLoops().run(fn).function


def scalar_loop(args: str) -> str:
    return program(f"for i in pl.pipeline({args}):\n    _y: pl.Scalar[pl.INDEX] = i\nreturn out", N_SIG)


def assert_replicates(before: str, expected: str, planner: Planner = Planner.PYPTO) -> ir.Function:
    out = replicate(before, planner)
    ir.assert_structural_equal(out, function(expected))
    return out


def tags(fn: ir.Function) -> list[str | None]:
    out: list[str | None] = []
    for s in ir.walk_stmts(fn.body):
        if isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Call) and isinstance(s.var.type, ir.TileType):
            v = s.value.attr(ir.PIPELINE_MEMBERSHIP)
            assert v is None or isinstance(v, str)
            out.append(v)
    return out


def test_f_a_declined_loop_is_replicated_and_its_marker_resolved() -> None:
    src = program("""
    for i, (acc,) in pl.pipeline(0, 256, 64, stage=2, init_values=(out,)):
        t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i, 0], [64, 64])
        r: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.reshape(t, [64, 64])
        nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(r, [i, 0], acc)
        y = pl.yield_(nxt)
    return y
    """)
    fn = function(src)
    out = replicate(src, Planner.PTOAS)
    assert count_calls(out, "tile.load") == 2 * count_calls(fn, "tile.load")
    (loop,) = pipeline_loops(out)
    assert (ir.index_literal(loop.start), ir.index_literal(loop.stop), ir.index_literal(loop.step)) == (0, 256, 128)
    assert loop.stages == 1
    resolved = ResolvePipelineMarkers().run(out).function
    assert not pipeline_loops(resolved)
    assert "pl.range(0, 256, 128, init_values=(out,))" in print_function(resolved)


def test_f_clean_divide() -> None:
    assert_replicates(scalar_loop("0, 8, 1, stage=4"), program("""
    for i in pl.pipeline(0, 8, 4, stage=1):
        _y: pl.Scalar[pl.INDEX] = i
        _y1: pl.Scalar[pl.INDEX] = i + 1
        _y2: pl.Scalar[pl.INDEX] = i + 2
        _y3: pl.Scalar[pl.INDEX] = i + 3
    return out
    """, N_SIG))


def test_f_static_remainder() -> None:
    assert_replicates(scalar_loop("0, 10, 1, stage=4"), program("""
    for i in pl.pipeline(0, 8, 4, stage=1):
        _y: pl.Scalar[pl.INDEX] = i
        _y1: pl.Scalar[pl.INDEX] = i + 1
        _y2: pl.Scalar[pl.INDEX] = i + 2
        _y3: pl.Scalar[pl.INDEX] = i + 3
    _y4: pl.Scalar[pl.INDEX] = 8
    _y5: pl.Scalar[pl.INDEX] = 9
    return out
    """, N_SIG))


def test_f_static_remainder_carried_chains_results_and_tags_groups() -> None:
    out = replicate(program(sl_body("pipeline(0, 10, 1, stage=4")))
    text = print_function(out)
    assert "y_main: pl.Tensor[[256, 64], pl.FP32] = pl.yield_(nxt_3)" in text
    assert "pl.tile.store(e_4, [pl.const(8, pl.INDEX) * pl.const(64, pl.INDEX), 0], y_main)" in text
    assert "pl.tile.store(e_5, [pl.const(9, pl.INDEX) * pl.const(64, pl.INDEX), 0], nxt_4)" in text
    assert "    y: pl.Tensor[[256, 64], pl.FP32] = nxt_5\n    return y" in text
    assert tags(out) == [f"0:{k}" for k in range(4) for _ in range(2)] + [f"1:{k}" for k in range(2) for _ in range(2)]


def test_f_stage_1_loop_is_left_to_the_markers() -> None:
    fn = function(scalar_loop("0, 8, 1, stage=1"))
    assert LowerPipelineLoops().run(fn).function is fn
    resolved = ResolvePipelineMarkers().run(fn).function
    assert "for i in pl.range(8):" in print_function(resolved)


def test_f_trip_equals_f_keeps_result_names() -> None:
    out = replicate(program(sl_body("pipeline(0, 4, 1, stage=4")))
    (loop,) = pipeline_loops(out)
    assert [v.name_hint for v in loop.return_vars] == ["y"]
    assert ir.index_literal(loop.step) == 4
    assert count_calls(out, "tile.load") == 4


def test_f_runtime_stop_f4() -> None:
    """Runtime bounds (`lowering/lower_pipeline_loops.py`, "Runtime bounds"): everything under
    `if start < stop:`, the split from residues (no `stop - start`), and a remainder of
    `F - 1` guarded clones, linear in `F` (§12.4's cascade of `F - 1` branches was
    quadratic)."""
    assert_replicates(scalar_loop("0, n, 1, stage=4"), program("""
    if 0 < n:
        unroll_rem: pl.Scalar[pl.INDEX] = n % 4
        unroll_main_end: pl.Scalar[pl.INDEX] = n - unroll_rem
        for i in pl.pipeline(0, unroll_main_end, 4, stage=1):
            _y: pl.Scalar[pl.INDEX] = i
            _y1: pl.Scalar[pl.INDEX] = i + 1
            _y2: pl.Scalar[pl.INDEX] = i + 2
            _y3: pl.Scalar[pl.INDEX] = i + 3
        if unroll_rem > 0:
            _y4: pl.Scalar[pl.INDEX] = unroll_main_end
        if unroll_rem > 1:
            _y5: pl.Scalar[pl.INDEX] = unroll_main_end + 1
        if unroll_rem > 2:
            _y6: pl.Scalar[pl.INDEX] = unroll_main_end + 2
    return out
    """, N_SIG))


def test_f_runtime_start_residues_are_both_taken() -> None:
    text = print_function(replicate(scalar_loop("n, 20, 1, stage=3")))
    assert "unroll_rem: pl.Scalar[pl.INDEX] = (2 - n % 3) % 3" in text
    assert "unroll_main_end: pl.Scalar[pl.INDEX] = 20 - unroll_rem" in text


def test_f_runtime_stop_step_2() -> None:
    text = print_function(replicate(scalar_loop("0, n, 2, stage=4")))
    assert "    if 0 < n:\n        unroll_off: pl.Scalar[pl.INDEX] = n % 8\n" in text
    assert "unroll_main_end: pl.Scalar[pl.INDEX] = n - unroll_off" in text
    assert "for i in pl.pipeline(0, unroll_main_end, 8, stage=1):" in text
    assert "unroll_rem: pl.Scalar[pl.INDEX] = (unroll_off + 1) // 2" in text
    assert "_y_3: pl.Scalar[pl.INDEX] = i + 6" in text
    assert "        if unroll_rem > 3:\n            _y_7: pl.Scalar[pl.INDEX] = unroll_main_end + 6\n" in text


def test_f_runtime_stop_carried_f2() -> None:
    src = program(sl_body("pipeline(0, n, 2, stage=2"), N_SIG)
    assert LowerPipelineToSlots().run(function(src)).declines[0].code == "stepped-runtime-stop"
    out = assert_replicates(src, program("""
    if 0 < n:
        unroll_off: pl.Scalar[pl.INDEX] = n % 4
        unroll_main_end: pl.Scalar[pl.INDEX] = n - unroll_off
        for i, (acc,) in pl.pipeline(0, unroll_main_end, 4, stage=1, init_values=(out,)):
            t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64], attrs={"pipeline_membership": "0:0"})
            e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(t, attrs={"pipeline_membership": "0:0"})
            nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(e, [i * 64, 0], acc)
            t1: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [(i + 2) * 64, 0], [64, 64], attrs={"pipeline_membership": "0:1"})
            e1: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(t1, attrs={"pipeline_membership": "0:1"})
            nxt1: pl.Tensor[[256, 64], pl.FP32] = pl.store(e1, [(i + 2) * 64, 0], nxt)
            y_main = pl.yield_(nxt1)
        unroll_rem: pl.Scalar[pl.INDEX] = (unroll_off + 1) // 2
        if unroll_rem > 0:
            t2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [unroll_main_end * 64, 0], [64, 64], attrs={"pipeline_membership": "1:0"})
            e2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(t2, attrs={"pipeline_membership": "1:0"})
            nxt2: pl.Tensor[[256, 64], pl.FP32] = pl.store(e2, [unroll_main_end * 64, 0], y_main)
            y_rem1 = pl.yield_(nxt2)
        else:
            y_rem1 = pl.yield_(y_main)
        if unroll_rem > 1:
            t3: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [(unroll_main_end + 2) * 64, 0], [64, 64], attrs={"pipeline_membership": "1:1"})
            e3: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(t3, attrs={"pipeline_membership": "1:1"})
            nxt3: pl.Tensor[[256, 64], pl.FP32] = pl.store(e3, [(unroll_main_end + 2) * 64, 0], y_rem1)
            y_rem2 = pl.yield_(nxt3)
        else:
            y_rem2 = pl.yield_(y_rem1)
        y = pl.yield_(y_rem2)
    else:
        y = pl.yield_(out)
    return y
    """, N_SIG), Planner.PTOAS)
    assert tags(out) == ["0:0", "0:0", "0:1", "0:1", "1:0", "1:0", "1:1", "1:1"]


def test_f_cascade_names_f4() -> None:
    text = print_function(replicate(program(sl_body("pipeline(0, n, 2, stage=4"), N_SIG)))
    for line in ("y_main: pl.Tensor[[256, 64], pl.FP32] = pl.yield_(nxt_3)",
                 "y_rem1: pl.Tensor[[256, 64], pl.FP32] = pl.yield_(nxt_4)",
                 "y_rem1: pl.Tensor[[256, 64], pl.FP32] = pl.yield_(y_main)",
                 "y_rem2: pl.Tensor[[256, 64], pl.FP32] = pl.yield_(nxt_5)",
                 "y_rem2: pl.Tensor[[256, 64], pl.FP32] = pl.yield_(y_rem1)",
                 "y_rem4: pl.Tensor[[256, 64], pl.FP32] = pl.yield_(y_rem3)",
                 "        y: pl.Tensor[[256, 64], pl.FP32] = pl.yield_(y_rem4)\n"
                 "    else:\n"
                 "        y: pl.Tensor[[256, 64], pl.FP32] = pl.yield_(out)\n"
                 "    return y"):
        assert line in text


class _Run:
    """A small evaluator over the scalar IR of the iteration tests: the values bound to `_y`
    (one per visited iteration, in execution order) and the function's returned values."""

    def __init__(self, fn: ir.Function, n: int) -> None:
        self.env: dict[int, int] = {p.id: n for p in fn.params if p.name_hint == "n"}
        self.visited: list[int] = []
        self.returned: tuple[int, ...] = ()
        self.seq(fn.body)

    def val(self, e: ir.Expr | ir.Call) -> int:
        assert not isinstance(e, ir.Call)
        v = eval_scalar(e, lambda var: self.env[var.id])
        assert isinstance(v, int)
        return v

    def seq(self, b: ir.SeqStmts) -> tuple[int, ...] | None:
        """Runs `b`; the values of its trailing yield, if any."""
        for s in b.stmts:
            if isinstance(s, ir.AssignStmt):
                self.env[s.var.id] = self.val(s.value)
                if s.var.name_hint.startswith("_y"):
                    self.visited.append(self.env[s.var.id])
            elif isinstance(s, ir.ForStmt):
                carried = tuple(self.val(it.init) for it in s.iter_args)
                start, stop, step = self.val(s.start), self.val(s.stop), self.val(s.step)
                for i in range(start, stop, step):
                    self.env[s.loop_var.id] = i
                    self.env.update({it.var.id: v for it, v in zip(s.iter_args, carried, strict=True)})
                    carried = self.seq(s.body) or ()
                self.env.update({v.id: x for v, x in zip(s.return_vars, carried, strict=True)})
            elif isinstance(s, ir.IfStmt):
                branch = s.then_body if self.val(s.cond) else s.else_body
                out = () if branch is None else self.seq(branch) or ()
                self.env.update({v.id: x for v, x in zip(s.return_vars, out, strict=True)})
            elif isinstance(s, ir.YieldStmt):
                return tuple(self.val(v) for v in s.values)
            elif isinstance(s, ir.ReturnStmt):
                self.returned = tuple(self.val(v) for v in s.values if v.dtype is ir.DType.INDEX)
            else:
                raise AssertionError(s)
        return None


ITER_SIG = "n: pl.Scalar[pl.INDEX]"


def iter_loop(header: str) -> str:
    """A loop visiting `i` (bound to `_y`) and carrying an order-sensitive fold of the ivs."""
    return program(f"""
    for i, (s,) in pl.pipeline({header}, init_values=(n,)):
        _y: pl.Scalar[pl.INDEX] = i
        b: pl.Scalar[pl.INDEX] = s * 7 + i
        r = pl.yield_(b)
    return r
    """, ITER_SIG, "pl.Scalar[pl.INDEX]")


@pytest.mark.parametrize("f", [2, 3, 4])
@pytest.mark.parametrize("bounds", ["0, n, 1", "3, n, 2", "n, 5, 1", "n, 4, 3", "n - 2, 2 * n + 1, 2", "n, n, 1"])
def test_f_runtime_bounds_visit_the_original_iterations_in_order(bounds: str, f: int) -> None:
    """Stop below, equal to and above the start: the replicated loop (also after a print /
    parse round trip) visits exactly the original induction values, in order, and returns
    the same carried value."""
    src = iter_loop(f"{bounds}, stage={f}")
    fn = function(src)
    out = replicate(src)
    assert not any(isinstance(s, ir.ForStmt) and s.stages == f for s in ir.walk_stmts(out.body))
    reparsed = function(print_module(ir.Module((ir.Program("P", (out,)),))))
    ir.assert_structural_equal(reparsed, out)
    (loop,) = [s for s in ir.walk_stmts(fn.body) if isinstance(s, ir.ForStmt)]
    relations = set()
    for n in range(-6, 15):
        gap = eval_scalar(ir.Sub(loop.stop, loop.start, ir.DType.INDEX), lambda v, n=n: n)
        assert isinstance(gap, int)
        relations.add((gap > 0) - (gap < 0))
        want = _Run(fn, n)
        assert len(want.visited) == max(0, -(-gap // ir.index_literal(loop.step)))  # type: ignore[operator]
        for got in (_Run(out, n), _Run(reparsed, n)):
            assert got.visited == want.visited, (bounds, f, n)
            assert got.returned == want.returned, (bounds, f, n)
    assert relations == ({0} if bounds == "n, n, 1" else {-1, 0, 1})  # stop below, at, above the start


@pytest.mark.parametrize(("header", "n"), [("3, n, 2, stage=3", 0), ("0, n, 1, stage=4", -3)])
def test_f_runtime_stop_below_the_start_runs_no_clone(header: str, n: int) -> None:
    """The brief's examples: §12.4's unguarded cascade would visit i = -3, -1 and i = -4."""
    run = _Run(replicate(iter_loop(header)), n)
    assert run.visited == []
    assert run.returned == (n,)


def test_f_zero_trip_is_demoted_without_clones() -> None:
    out = replicate(program(sl_body("pipeline(0, 0, 1, stage=4")))
    assert not pipeline_loops(out)
    assert count_calls(out, "tile.load") == 1
    assert tags(out) == [None, None]


def test_f_pure_tail() -> None:
    assert_replicates(scalar_loop("0, 2, 1, stage=4"), program("""
    _y: pl.Scalar[pl.INDEX] = 0
    _y1: pl.Scalar[pl.INDEX] = 1
    return out
    """, N_SIG))


def test_f_pure_tail_carried() -> None:
    before = program("""
    for i, (s,) in pl.pipeline(0, 3, 1, stage=4, init_values=(n,)):
        b: pl.Scalar[pl.INDEX] = s + i
        r = pl.yield_(b)
    return out
    """, N_SIG)
    assert_replicates(before, program("""
    b: pl.Scalar[pl.INDEX] = n + 0
    b1: pl.Scalar[pl.INDEX] = b + 1
    b2: pl.Scalar[pl.INDEX] = b1 + 2
    r: pl.Scalar[pl.INDEX] = b2
    return out
    """, N_SIG))


def test_f_nested_pipelines_replicate_inner_first() -> None:
    src = program("""
    for o in pl.pipeline(0, 2, 1, stage=2):
        for i in pl.pipeline(0, 2, 1, stage=2):
            t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
    return out
    """)
    out = replicate(src)
    (outer, inner_a, inner_b) = pipeline_loops(out)
    assert ir.index_literal(outer.step) == 2
    assert ir.index_literal(inner_a.step) == ir.index_literal(inner_b.step) == 2
    assert tags(out) == ["0:0;1:0", "0:1;1:0", "0:0;1:1", "0:1;1:1"]


ACC = """
for i in pl.pipeline(0, 64, 32, stage=2{ATTRS}):
    am: pl.Tile[[32, 32], pl.BF16, pl.Mem.Mat] = pl.load(x, [0, i], [32, 32], target_memory=pl.Mem.Mat)
    bm: pl.Tile[[32, 32], pl.BF16, pl.Mem.Mat] = pl.load(w, [i, 0], [32, 32], target_memory=pl.Mem.Mat)
    al: pl.Tile[[32, 32], pl.BF16, pl.Mem.Left] = pl.tile.move(am, target_memory=pl.Mem.Left)
    br: pl.Tile[[32, 32], pl.BF16, pl.Mem.Right] = pl.tile.move(bm, target_memory=pl.Mem.Right)
    c: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(al, br)
    nxt: pl.Tensor[[32, 32], pl.FP32] = pl.store(c, [0, 0], o)
return o
"""
ACC_SIG = "x: pl.Tensor[[32, 64], pl.BF16], w: pl.Tensor[[64, 32], pl.BF16], o: pl.Out[pl.Tensor[[32, 32], pl.FP32]]"


@pytest.mark.parametrize(("attrs", "tagged"), [("", False), (', attrs={"pipeline_double_buffer_c": True}', True)],
                         ids=["accumulator_untagged", "accumulator_tagged_dbc"])
def test_f_cube_accumulators_are_tagged_only_with_double_buffer_c(attrs: str, tagged: bool) -> None:
    out = replicate(program(ACC.format(ATTRS=attrs), ACC_SIG, "pl.Tensor[[32, 32], pl.FP32]", incore=True))
    expected: list[str | None] = []
    for k in range(2):
        expected += [f"0:{k}"] * 4 + [f"0:{k}" if tagged else None]  # am, bm, al, br, then c
    assert tags(out) == expected


def test_f_author_declaration_is_replicated_with_shifted_slots() -> None:
    src = program(sl_body("pipeline(0, 4, 1, stage=2", memref='pl.MemRef("mine", slots=2)[i % 2]'))
    assert LowerPipelineToSlots().run(function(src)).declines[0].code == "no-candidates"
    text = print_function(replicate(src, Planner.PTOAS))
    assert 'pl.MemRef("mine", slots=2)[i % 2]' in text
    assert 'pl.MemRef("mine", slots=2)[(i + 1) % 2]' in text


def test_f_a_runtime_step_fails_with_the_node_kind() -> None:
    src = program(sl_body("pipeline(0, 4, n, stage=2"), N_SIG)
    with pytest.raises(PassError, match=r"^LowerPipelineLoops: step must be a compile-time integer constant, got Var$"):
        replicate(src, Planner.PTOAS)


def test_f_runtime_bounds_with_a_negative_step_fail() -> None:
    with pytest.raises(PassError, match=r"^LowerPipelineLoops: a pipeline loop with runtime bounds needs a "
                                        r"positive step, got -1$"):
        replicate(scalar_loop("n, 0, -1, stage=2"))


def test_f_a_negative_step_with_static_bounds_is_replicated() -> None:
    out = replicate(program(sl_body("pipeline(8, 0, -1, stage=2")), Planner.PTOAS)
    (loop,) = pipeline_loops(out)
    assert (ir.index_literal(loop.start), ir.index_literal(loop.stop), ir.index_literal(loop.step)) == (8, 0, -2)
    assert count_calls(out, "tile.load") == 2


def test_f_chaining_slots_and_replication_leaves_no_pipeline_loop() -> None:
    src = program("""
    for o, (acc0,) in pl.pipeline(0, 4, 1, stage=2, init_values=(out,)):
        s: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [o * 64, 0], [64, 64])
        for i, (acc,) in pl.pipeline(0, 4, 1, stage=2, init_values=(acc0,)):
            t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
            r: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.reshape(t, [64, 64])
            e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.add(s, r)
            nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(e, [i * 64, 0], acc)
            y = pl.yield_(nxt)
        z = pl.yield_(y)
    return z
    """)
    out = full_pipeline(function(src))
    assert not pipeline_loops(out)
    text = print_function(out)
    assert 'pl.MemRef("pipe_s", slots=2)[o % 2]' in text
    assert count_calls(out, "tile.load") == 3
    # the pass chain is idempotent once markers are resolved
    assert full_pipeline(out) is out


def test_markers_a_surviving_multi_stage_loop_is_an_internal_error() -> None:
    with pytest.raises(RuntimeError, match="stage=2 survived"):
        ResolvePipelineMarkers().run(function(scalar_loop("0, 8, 1, stage=2")))


# --------------------------------------------------------------------------------------
# bounds near the INT64 edges (issue 13.4)

INT64_MAX = (1 << 63) - 1
INT64_MIN = -(1 << 63)


def _literals(node: object) -> list[int]:
    """Every INDEX literal of a function, at any depth (bounds, steps, offsets, tags aside)."""
    out: list[int] = []
    seen: set[int] = set()

    def walk(x: object) -> None:
        if id(x) in seen:
            return
        seen.add(id(x))
        if isinstance(x, ir.ConstInt):
            if x.dtype is ir.DType.INDEX:
                out.append(x.value)
        elif isinstance(x, tuple):
            for y in x:
                walk(y)
        elif hasattr(x, "__dataclass_fields__") and not isinstance(x, ir.Var):
            for name in x.__dataclass_fields__:  # type: ignore[attr-defined]
                walk(getattr(x, name))

    walk(node)
    return out


_TEMPLATE = function(iter_loop("0, 4, 1, stage=2"))


def _edge_loop(start: int, stop: int, step: int, f: int) -> ir.Function:
    """`iter_loop` with literal bounds (built as IR: the parser's literal checks aside)."""
    from dataclasses import replace

    (loop,) = [s for s in _TEMPLATE.body.stmts if isinstance(s, ir.ForStmt)]
    new = replace(loop, start=ir.const(start), stop=ir.const(stop), step=ir.const(step)).with_stages(f)
    stmts = tuple(new if s is loop else s for s in _TEMPLATE.body.stmts)
    return replace(_TEMPLATE, body=ir.SeqStmts(stmts))


def test_f_a_two_iteration_loop_ending_at_int64_max_is_replicated_without_overflow() -> None:
    """The reproducer: `pl.pipeline(INT64_MAX - 3, INT64_MAX, 2, stage=2)` was replicated into
    `pl.range(INT64_MAX - 3, INT64_MAX + 1, 4)`, a stop codegen emitted as a negative number.
    Its only block's increment would land above INT64_MAX, so it runs as two tail clones."""
    fn = _edge_loop(INT64_MAX - 3, INT64_MAX, 2, 2)
    out = LowerPipelineLoops().run(fn).function
    assert not any(isinstance(s, ir.ForStmt) for s in ir.walk_stmts(out.body))
    assert all(ir.DType.INDEX.fits(v) for v in _literals(out))
    for n in (0, 5):
        assert _Run(out, n).visited == [INT64_MAX - 3, INT64_MAX - 1]
        assert _Run(out, n).returned == _Run(fn, n).returned


def test_f_a_stop_near_int64_max_keeps_a_main_loop_that_fits() -> None:
    """`(INT64_MAX - 807, INT64_MAX, 7, stage=4)`: 116 iterations, 29 blocks; the loop keeps
    28 of them (the 29th block's increment would wrap) and the tail runs 4 clones."""
    fn = _edge_loop(INT64_MAX - 807, INT64_MAX, 7, 4)
    out = LowerPipelineLoops().run(fn).function
    (loop,) = pipeline_loops(out)
    assert ir.index_literal(loop.stop) == INT64_MAX - 807 + 28 * 28
    assert all(ir.DType.INDEX.fits(v) for v in _literals(out))
    assert _Run(out, 1).visited == _Run(fn, 1).visited


@pytest.mark.parametrize("f", [2, 3, 4, 5])
@pytest.mark.parametrize("step", [1, 2, 3, 5, -1, -2, -3, -5])
def test_f_static_splits_at_the_int64_edges_fit_and_visit_the_original_iterations(step: int, f: int) -> None:
    """Exhaustive over bounds within 14 of INT64_MAX (ascending) or INT64_MIN (descending):
    every literal the replication writes fits INDEX, every main loop's stop is where its last
    increment lands, and the iterations visited (and the carried value) are the original's."""
    edge, sign = (INT64_MAX, -1) if step > 0 else (INT64_MIN, 1)
    for a in range(15):
        for b in range(a):
            start, stop = edge + sign * a, edge + sign * b
            fn = _edge_loop(start, stop, step, f)
            out = LowerPipelineLoops().run(fn).function
            assert all(ir.DType.INDEX.fits(v) for v in _literals(out)), (start, stop)
            for loop in pipeline_loops(out):
                lo, hi, st = (ir.index_literal(x) for x in (loop.start, loop.stop, loop.step))
                assert lo is not None
                assert hi is not None
                assert st is not None
                assert (hi - lo) % st == 0
            want, got = _Run(fn, 3), _Run(out, 3)
            assert got.visited == want.visited, (start, stop)
            assert got.returned == want.returned


# --------------------------------------------------------------------------------------
# runtime bounds: the split proven for every pair of 64-bit bounds (z3)


def _z3_value(e: ir.Expr, env: dict[int, object], side: list[object]) -> object:
    """`e` as an exact z3 integer with Python's floor semantics (z3's `/` and `%` on integers
    floor for a positive divisor); `side` collects, for every node, that its value fits
    INDEX. While no value leaves the range, 64-bit two's complement computes exactly these
    integers, so the claims below hold for the emitted 64-bit arithmetic."""
    import z3

    def fits(v: object) -> object:
        return z3.And(v >= INT64_MIN, v <= INT64_MAX)  # type: ignore[operator]

    if isinstance(e, ir.Var):
        return env[e.id]
    if isinstance(e, ir.ConstInt):
        assert ir.DType.INDEX.fits(e.value)
        return z3.IntVal(e.value)
    a, b = _z3_value(e.a, env, side), _z3_value(e.b, env, side)  # type: ignore[union-attr]
    if isinstance(e, ir.Cmp):
        return {ir.CmpOp.LT: a < b, ir.CmpOp.GT: a > b}[e.op]  # type: ignore[operator]
    if isinstance(e, ir.FloorMod | ir.FloorDiv):
        divisor = ir.literal_value(e.b)
        assert divisor is not None
        assert divisor > 0
    ops = {ir.Add: lambda: a + b, ir.Sub: lambda: a - b, ir.Mul: lambda: a * b,  # type: ignore[operator]
           ir.FloorMod: lambda: a % b, ir.FloorDiv: lambda: a / b}  # type: ignore[operator]
    v = ops[type(e)]()  # type: ignore[index, no-untyped-call]
    side.append(fits(v))
    return v


@pytest.mark.parametrize(("step", "f"), [(1, 2), (1, 3), (1, 4), (1, 7), (2, 2), (2, 4), (3, 3), (8, 5)])
@pytest.mark.parametrize("bounds", ["s, e", "0, e", "s, 100", "5, e"])
def test_f_runtime_split_cannot_overflow_and_covers_every_iteration(bounds: str, step: int, f: int) -> None:
    """For every pair of 64-bit bounds with `start < stop` (z3): no value the replicated
    loop computes leaves INDEX (the split, the main loop's stop, the induction values of its
    clones and of its last increment, every remainder clone's), the main loop runs whole
    blocks of `F` original iterations from the start, and the guarded remainder runs, in
    order, exactly the iterations left."""
    import z3

    sig = "s: pl.Scalar[pl.INDEX], e: pl.Scalar[pl.INDEX]"
    src = program(f"""
    for i in pl.pipeline({bounds}, {step}, stage={f}):
        _y: pl.Scalar[pl.INDEX] = i
    return 0
    """, sig, "pl.Scalar[pl.INDEX]")
    fn = function(src)
    (loop,) = [x for x in fn.body.stmts if isinstance(x, ir.ForStmt)]
    out = LowerPipelineLoops().run(fn).function
    (guard,) = [x for x in out.body.stmts if isinstance(x, ir.IfStmt)]
    assert ir.structural_equal(guard.cond, ir.Cmp(ir.CmpOp.LT, loop.start, loop.stop))
    env: dict[int, object] = {p.id: z3.Int(p.name_hint) for p in fn.params}
    inputs = [z3.And(v >= INT64_MIN, v <= INT64_MAX) for v in env.values()]  # type: ignore[operator]
    side: list[object] = []
    start, stop = _z3_value(loop.start, env, side), _z3_value(loop.stop, env, side)
    main: ir.ForStmt | None = None
    clones: list[tuple[object, object]] = []  # (condition, induction value)
    for x in guard.then_body.stmts:
        if isinstance(x, ir.AssignStmt):
            env[x.var.id] = _z3_value(x.value, env, side)
        elif isinstance(x, ir.ForStmt):
            main = x
        elif isinstance(x, ir.IfStmt):
            (clone,) = x.then_body.stmts
            assert isinstance(clone, ir.AssignStmt)
            cond = _z3_value(x.cond, env, side)
            guarded: list[object] = []
            clones.append((cond, _z3_value(clone.value, env, guarded)))
            side.append(z3.Implies(cond, z3.And(*guarded)))  # type: ignore[arg-type]
    assert main is not None
    assert isinstance(main.stop, ir.Var)
    main_stop = env[main.stop.id]
    q = ir.index_literal(main.step)
    assert q == f * step
    # a main-loop iteration at iv (start <= iv < main_stop, iv = start (mod q)): its clones'
    # induction values iv + k * step and its increment iv + q fit
    iv = z3.Int("iv")
    body: list[object] = []
    for s in main.body.stmts:
        assert isinstance(s, ir.AssignStmt)
        _z3_value(s.value, {**env, main.loop_var.id: iv}, body)
    in_loop = z3.And(iv >= start, iv < main_stop, (iv - start) % q == 0)  # type: ignore[operator]
    side.append(z3.ForAll([iv], z3.Implies(in_loop, z3.And(iv + q <= INT64_MAX, *body))))  # type: ignore[operator]
    left = stop - main_stop  # type: ignore[operator]
    ran = z3.Sum([z3.If(c, 1, 0) for c, _ in clones])  # type: ignore[arg-type]
    claims = z3.And(
        *side,  # type: ignore[arg-type]
        main_stop >= start,  # type: ignore[operator]
        (main_stop - start) % q == 0,  # type: ignore[operator]
        left >= 0,
        ran * step >= left,  # every iteration left runs ...
        (ran - 1) * step < left,  # ... and no more
        *[z3.Implies(clones[j + 1][0], clones[j][0]) for j in range(len(clones) - 1)],  # type: ignore[arg-type]
        *[z3.Implies(c, v == main_stop + j * step) for j, (c, v) in enumerate(clones)],  # type: ignore[arg-type, operator]
    )
    solver = z3.Solver()
    solver.set("timeout", 60_000)
    solver.add(*inputs, start < stop, z3.Not(claims))  # type: ignore[arg-type, operator]
    result = solver.check()
    assert result == z3.unsat, solver.model() if result == z3.sat else result


# --------------------------------------------------------------------------------------
# copies replication makes (issue 13.9)


def test_f_a_billion_stage_loop_is_a_located_error_before_any_copy_is_made() -> None:
    """`pipeline(0, 10**8, 1, stage=10**9)` built 10**8 copies and died of MemoryError after
    48 s."""
    import time

    fn = _edge_loop(0, 10**8, 1, 10**9)
    t0 = time.perf_counter()
    with pytest.raises(PassError, match=r"^LowerPipelineLoops: replicating this stage=1000000000 loop makes "
                                        r"100000000 copies of its 3-statement body \(300000000 statements\), "
                                        r"more than the limit of 100000 statements per function"):
        LowerPipelineLoops().run(fn)
    assert time.perf_counter() - t0 < 5


def test_f_the_replication_limit_follows_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    fn = function(scalar_loop("0, 8, 1, stage=4"))
    monkeypatch.setenv("SLOTSAT_MAX_REPLICATED_STMTS", "3")
    with pytest.raises(PassError, match=r"limit of 3 statements per function; .* SLOTSAT_MAX_REPLICATED_STMTS"):
        LowerPipelineLoops().run(fn)
    monkeypatch.setenv("SLOTSAT_MAX_REPLICATED_STMTS", "4")
    assert len(pipeline_loops(LowerPipelineLoops().run(fn).function)) == 1


def test_f_nested_replication_counts_the_copies_of_copies(monkeypatch: pytest.MonkeyPatch) -> None:
    """The outer loop copies the already replicated inner loop: 2 inner copies of 1
    statement, then 2 outer copies of a 3-statement body (the loop and its 2 copies)."""
    src = program("""
    for o in pl.pipeline(0, 2, 1, stage=2):
        for i in pl.pipeline(0, 2, 1, stage=2):
            _y: pl.Scalar[pl.INDEX] = i
    return out
    """)
    monkeypatch.setenv("SLOTSAT_MAX_REPLICATED_STMTS", "7")
    with pytest.raises(PassError, match=r"makes 2 copies of its 3-statement body \(6 statements\)"):
        LowerPipelineLoops().run(function(src))
    monkeypatch.setenv("SLOTSAT_MAX_REPLICATED_STMTS", "8")
    assert LowerPipelineLoops().run(function(src)).function is not None


@pytest.mark.parametrize("f", [256, 1024])
def test_f_a_runtime_stop_remainder_is_linear_in_f(f: int) -> None:
    """stage=256 ended in "recursion limit reached" and stage=1024 took 90 s and 1.4 GB (a
    cascade of F - 1 nested branches holding 1 + 2 + ... + (F - 1) clones)."""
    import time

    t0 = time.perf_counter()
    out = replicate(scalar_loop(f"0, n, 1, stage={f}"))
    copies = sum(1 for s in ir.walk_stmts(out.body) if isinstance(s, ir.AssignStmt) and s.var.name_hint == "_y")
    assert copies == 2 * f - 1
    depth = max(_if_depth(s) for s in out.body.stmts)
    assert depth == 2  # the guard and one remainder branch
    assert time.perf_counter() - t0 < 20


def _if_depth(s: ir.Stmt) -> int:
    if isinstance(s, ir.IfStmt):
        inner = [*s.then_body.stmts, *(s.else_body.stmts if s.else_body is not None else ())]
        return 1 + max((_if_depth(x) for x in inner), default=0)
    if isinstance(s, ir.ForStmt):
        return max((_if_depth(x) for x in s.body.stmts), default=0)
    return 0


@pytest.mark.parametrize("bounds", ["0, 3, 1", "0, n, 1"])
def test_f_a_loop_result_keeps_its_type_when_the_yield_has_a_valid_shape(bounds: str) -> None:
    """The reference keeps a loop result's type (its carried value's, as printed) through
    LowerPipelineLoops: the tail's binding of the result and the runtime guard's results
    keep the whole tile although the last clone's value has a runtime valid shape, so a
    store of the result writes the whole tile, as the reference's does."""
    src = program(f"""
    z: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([64, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
    for i, (acc,) in pl.pipeline({bounds}, stage=2, init_values=(z,)):
        t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[n, 64])] = pl.tile.load(a, [i * 64, 0], [64, 64], [n, 64], target_memory=pl.Mem.Vec)
        e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[n, 64])] = pl.tile.add(t, acc)
        y: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(e)
    o: pl.Tensor[[256, 64], pl.FP32] = pl.tile.store(y, [0, 0], out)
    return o
    """, N_SIG)
    whole = ir.TileType((64, 64), ir.DType.FP32, ir.MemorySpace.Vec)
    out = replicate(src)
    results = [v for s in ir.walk_stmts(out.body) if isinstance(s, ir.ForStmt | ir.IfStmt) for v in s.return_vars]
    bound = [s.var for s in ir.walk_stmts(out.body) if isinstance(s, ir.AssignStmt) and s.var.name_hint == "y"]
    assert results + bound
    assert {v.name_hint for v in results + bound} >= {"y_main", "y"}
    assert all(v.type == whole for v in results + bound), [v.type for v in results + bound]
    (store,) = [s for s in ir.walk_stmts(out.body) if isinstance(s, ir.AssignStmt) and s.var.name_hint == "o"]
    assert isinstance(store.value, ir.Call)
    stored = store.value.args[0]
    assert isinstance(stored, ir.Var)
    assert stored.type == whole
