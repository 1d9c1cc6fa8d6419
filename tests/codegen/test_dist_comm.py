# ruff: noqa: E501  (DSL statements in the kernel texts are one line each, as printed)
"""materialize-dist-tensor-ctx and insert-comm-fence (`lowering/dist_comm.py`) and the codegen
of distributed kernels.

Groups: the passes (the module's Before / After, idempotence, markers inside branches and
loops, remote writes, opaque calls, orchestration untouched, callers passing contexts); the
emitted module (one `!pto.ptr<i64>` per window after the scalars, the markers' PTO, the peer
view read from the CommContext, verified by the xdsl dialect); what stays a located error;
and, with the reference installed (marker `pypto`), the reference's own `.pto` of the printed
distributed kernels, which slotsat's `--mode pypto` output equals up to SSA names.
"""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import pytest

from slotsat.app.pipeline import run_passes
from slotsat.core import ir
from slotsat.core.dsl.parser import parse_source
from slotsat.core.dsl.printer import print_module
from slotsat.lowering.dist_comm import COMM_CTX_TYPE, InsertCommFence, MaterializeDistTensorCtx
from tests.codegen.harness import PRINTED, compile_, error, kernel, lines, references_module

ROOT = Path(__file__).resolve().parents[2]
T = "pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec]"
WINDOWS = ("a: pl.Tensor[[16, 64], pl.FP32], data: pld.DistributedTensor[[16, 64], pl.FP32], "
           "signal: pld.DistributedTensor[[2, 1], pl.INT32], me: pl.Scalar[pl.INT32], peer: pl.Scalar[pl.INT32], "
           "out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]")
RET = "pl.Tensor[[16, 64], pl.FP32]"

BEFORE = kernel(f"""
t: {T} = pl.load(a, [0, 0], [16, 64])
d1: pld.DistributedTensor[[16, 64], pl.FP32] = pl.store(t, [0, 0], data)
pld.system.notify(signal, peer, [me, 0], pl.const(1, pl.INT32), op=0)
pld.system.wait(signal, [peer, 0], pl.const(1, pl.INT32), cmp=1)
u: {T} = pl.load(d1, [0, 0], [16, 64])
o: {RET} = pl.store(u, [0, 0], out)
return o
""", params=WINDOWS, ret=RET)

EXPECTED = kernel(f"""
t: {T} = pl.load(a, [0, 0], [16, 64])
d1: pld.DistributedTensor[[16, 64], pl.FP32] = pl.store(t, [0, 0], data)
pl.system.cacheinvalid(data, [16, 64], [0, 0])
pl.system.fence()
pld.system.notify(signal, peer, [me, 0], pl.const(1, pl.INT32), op=0)
pld.system.wait(signal, [peer, 0], pl.const(1, pl.INT32), cmp=1)
pl.system.cacheinvalid()
u: {T} = pl.load(d1, [0, 0], [16, 64])
o: {RET} = pl.store(u, [0, 0], out)
return o
""", params=WINDOWS + ", data_ctx: pld.CommCtxType, signal_ctx: pld.CommCtxType", ret=RET)

PASSES = [MaterializeDistTensorCtx(), InsertCommFence()]


def _kernel(src: str) -> ir.Function:
    module, _ = run_passes(parse_source(src, "k.py"), PASSES)
    return module.programs[0].functions[0]


def _ops(fn: ir.Function) -> list[str]:
    out = []
    for s in ir.walk_stmts(fn.body):
        call = s.call if isinstance(s, ir.EvalStmt) else s.value if isinstance(s, ir.AssignStmt) else None
        if isinstance(call, ir.Call):
            out.append(call.op if call.op != "system.cacheinvalid" or call.args else "system.cacheinvalid()")
    return out


# -- the passes ------------------------------------------------------------------------------


def test_contexts_and_markers_are_the_module_docstrings_after() -> None:
    ir.assert_structural_equal(_kernel(BEFORE), parse_source(EXPECTED, "e.py").programs[0].functions[0])


def test_the_passes_are_idempotent() -> None:
    once = print_module(run_passes(parse_source(BEFORE, "k.py"), PASSES)[0])
    twice = print_module(run_passes(parse_source(once, "k2.py"), PASSES)[0])
    assert twice == once


def test_the_context_parameters_follow_the_windows_in_order_with_unique_names() -> None:
    src = BEFORE.replace("peer: pl.Scalar[pl.INT32]", "data_ctx: pl.Scalar[pl.INT32], peer: pl.Scalar[pl.INT32]")
    fn = _kernel(src)
    ctxs = [p for p in fn.params if p.type == COMM_CTX_TYPE]
    assert [p.name_hint for p in ctxs] == ["data_ctx_1", "signal_ctx"]
    assert fn.params[-2:] == tuple(ctxs)


def test_a_wait_in_a_branch_gets_its_invalidation_in_the_branch() -> None:
    fn = _kernel(kernel(f"""
for p in pl.range(2):
    if p != pl.cast(me, pl.INDEX):
        pld.system.wait(signal, [p, 0], pl.const(1, pl.INT32), cmp=1)
t: {T} = pl.load(data, [0, 0], [16, 64])
o: {RET} = pl.store(t, [0, 0], out)
return o
""", params=WINDOWS, ret=RET))
    loop = next(s for s in fn.body.stmts if isinstance(s, ir.ForStmt))
    branch = loop.body.stmts[0]
    assert isinstance(branch, ir.IfStmt)
    assert _ops(ir.Function("b", fn.type, (), (), branch.then_body)) == ["pld.system.wait", "system.cacheinvalid()"]


def test_a_remote_store_gets_a_fence_only() -> None:
    fn = _kernel(kernel(f"""
t: {T} = pl.load(a, [0, 0], [16, 64])
pld.tile.remote_store(t, data, peer, [0, 0])
o: {RET} = pl.store(t, [0, 0], out)
return o
""", params=WINDOWS, ret=RET))
    assert _ops(fn) == ["tile.load", "pld.tile.remote_store", "system.fence", "tile.store"]


def test_a_put_gets_a_fence_only() -> None:
    fn = _kernel(kernel(f"""
s: {T} = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
pld.tile.put(data, peer, a, s, [0, 0], [0, 0], [16, 64], atomic=pl.AtomicType.None_)
return out
""", params=WINDOWS, ret=RET))
    assert _ops(fn) == ["tile.create", "pld.tile.put", "system.fence"]


def test_a_store_into_a_plain_tensor_gets_no_marker() -> None:
    fn = _kernel(kernel(f"""
t: {T} = pl.load(a, [0, 0], [16, 64])
o: {RET} = pl.store(t, [0, 0], out)
return o
""", params=WINDOWS, ret=RET))
    assert _ops(fn) == ["tile.load", "tile.store"]


def test_a_plain_function_of_tile_ops_is_marked_as_the_kernel_codegen_makes_of_it() -> None:
    src = BEFORE.replace("@pl.function(type=pl.FunctionType.InCore)", "@pl.function")
    assert _ops(_kernel(src)) == _ops(_kernel(BEFORE))


PROGRAM = """\
import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def step(self, data: pld.DistributedTensor[[16, 64], pl.FP32], x: pl.Scalar[pl.INT32]):
        pld.system.notify(data, x, [0, 0], pl.const(1, pl.INT32), op=0)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, win: pld.DistributedTensor[[16, 64], pl.FP32], x: pl.Scalar[pl.INT32]):
        self.step(win, x)
        self.step(win, x)
"""


def test_a_caller_passes_its_own_context_and_gets_no_markers() -> None:
    module, _ = run_passes(parse_source(PROGRAM, "p.py"), PASSES)
    step, main = module.programs[0].functions
    assert [p.name_hint for p in step.params] == ["data", "x", "data_ctx"]
    ctx = main.params[-1]
    assert ctx.name_hint == "win_ctx"
    calls = [s.call for s in main.body.stmts if isinstance(s, ir.EvalStmt)]
    assert [c.op for c in calls] == ["self.step", "self.step"]  # no fence in orchestration
    assert all(c.args[-1] is ctx for c in calls)


def test_a_call_of_another_function_in_a_kernel_is_fenced_as_an_opaque_write() -> None:
    src = PROGRAM.replace("type=pl.FunctionType.Orchestration", "type=pl.FunctionType.InCore")
    module, _ = run_passes(parse_source(src, "p.py"), PASSES)
    main = module.programs[0].functions[1]
    assert _ops(main) == ["self.step", "system.cacheinvalid()", "system.fence"] * 2


# -- the emitted module ----------------------------------------------------------------------


def test_the_signature_has_one_context_per_window_after_the_scalars() -> None:
    text = compile_(BEFORE).pto_text
    (header,) = lines(text, "func.func @kernel")
    assert ("(%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<f32>, %arg2: !pto.ptr<i32>, %arg3: !pto.ptr<f32>, "
            "%arg4: i32, %arg5: i32, %arg6: !pto.ptr<i64>, %arg7: !pto.ptr<i64>)") in header


def test_the_markers_and_the_signal_ops_are_ptoas_ops() -> None:
    text = compile_(BEFORE).pto_text
    body = [line.strip() for line in text.splitlines()]
    store = next(k for k, line in enumerate(body) if line.startswith("pto.tstore"))
    assert body[store + 2].startswith("pto.cmo.cacheinvalid %")
    assert body[store + 2].endswith("single_cache_line : !pto.partition_tensor_view<16x64xf32>")
    assert body[store + 3] == "pto.fence.barrier_all #pto.fence_scope<gm>"
    notify = next(k for k, line in enumerate(body) if line.startswith("pto.comm.tnotify"))
    assert body[notify - 1] == "pto.barrier <PIPE_ALL>"
    assert body[notify].endswith(": !pto.partition_tensor_view<1x1xi32>, i32) {notifyOp = #pto<notify_op atomic_add>}")
    wait = next(k for k, line in enumerate(body) if line.startswith("pto.comm.twait"))
    assert body[wait].endswith("{cmp = #pto<wait_cmp ge>}")
    assert body[wait + 1] == "pto.cmo.cacheinvalid all #pto.address_space<gm>"


def test_the_peer_view_is_read_from_the_signal_windows_context() -> None:
    text = compile_(BEFORE).pto_text
    assert lines(text, "pto.load_scalar %arg7[%c2_index]")  # signal's context: rankId
    assert not lines(text, "pto.load_scalar %arg6")  # data is never addressed remotely here
    (addptr,) = lines(text, "pto.addptr")
    assert addptr.startswith("%")
    assert " = pto.addptr %arg2, %" in addptr
    assert addptr.endswith(": !pto.ptr<i32> -> !pto.ptr<i32>")


def test_a_put_copies_through_its_staging_tile_between_barriers() -> None:
    text = compile_(kernel(f"""
s: {T} = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
pld.tile.put(data, peer, a, s, [0, 0], [0, 0], [16, 64], atomic=pl.AtomicType.Add)
return out
""", params=WINDOWS, ret=RET)).pto_text
    body = [line.strip() for line in text.splitlines()]
    put = next(k for k, line in enumerate(body) if line.startswith("pto.comm.tput"))
    assert body[put - 1] == body[put + 1] == "pto.barrier <PIPE_ALL>"
    assert ", buf(%s) : !pto.partition_tensor_view<16x64xf32>, !pto.partition_tensor_view<16x64xf32>, " \
        "!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=64," in body[put]
    assert body[put].endswith("{atomicType = #pto<atomic_type atomic_add>}")
    assert body[put + 2].startswith("pto.cmo.cacheinvalid %")
    assert body[put + 3] == "pto.fence.barrier_all #pto.fence_scope<gm>"


def test_a_column_vector_window_is_a_dn_view() -> None:
    text = compile_(BEFORE).pto_text
    (view,) = lines(text, "pto.make_tensor_view %arg2,")
    assert "strides = [%c1_index, %c2_index] {layout = #pto.layout<dn>}" in view


def test_a_signal_value_of_another_width_is_a_located_error() -> None:
    src = kernel("""
pld.system.notify(signal, peer, [me, 0], v, op=0)
return out
""", params=WINDOWS + ", v: pl.Scalar[pl.INT64]", ret=RET)
    err = error(src)
    assert "passes the value of pld.system.notify only as a literal, a pl.INT32 or a pl.INDEX scalar" in str(err)
    assert err.span.line == 10  # the notify, below the program and function headers


def test_check_confirms_a_window_round_trip_and_leaves_signals_unverified(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The markers change no value of one rank's run and a context is never computed with, so
    `check` compares outputs; the signal ops need other ranks, which the interpreter does not model."""
    from slotsat.app.cli import main

    path = tmp_path / "k.py"
    path.write_text(kernel(f"""
t: {T} = pl.load(a, [0, 0], [16, 64])
d1: pld.DistributedTensor[[16, 64], pl.FP32] = pl.store(t, [0, 0], data)
u: {T} = pl.load(d1, [0, 0], [16, 64])
o: {RET} = pl.store(u, [0, 0], out)
return o
""", params=WINDOWS, ret=RET))
    assert main(["check", str(path)]) == 0
    assert capsys.readouterr().out.rstrip().endswith(": confirmed")
    path.write_text(BEFORE)
    assert main(["check", str(path)]) == 1
    assert "unverified: P.kernel: the interpreter does not model 'pld.system.notify'" in capsys.readouterr().out


# -- the reference (marker `pypto`) ------------------------------------------------------------


DIST_PROGRAMS = ("dist_exchange", "dist_remote", "dist_put", "dist_get", "dist_rank", "dist_barrier")

REFERENCE_PTO = textwrap.dedent("""\
    import json, sys
    sys.path[:0] = [{tools!r}]
    import printed_kernels as kernels
    from gen_printed import reference_pto
    print(json.dumps({{name: reference_pto(kernels.PROGRAMS[name]) for name in {names!r}}}))
""")


@pytest.fixture(scope="module")
def reference_modules() -> dict[str, str]:
    """The reference's module of each distributed program, from one reference process (each
    process imports PyPTO first, which is most of its time)."""
    from slotsat.bridge import session

    script = REFERENCE_PTO.format(tools=str(ROOT / "tools"), names=DIST_PROGRAMS)
    done = subprocess.run([session.interpreter(), "-c", script], capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    modules: dict[str, str] = json.loads(done.stdout)
    return modules


@pytest.mark.pypto
@pytest.mark.parametrize("name", DIST_PROGRAMS)
def test_the_committed_reference_module_is_the_references_output(
        name: str, reference_modules: dict[str, str]) -> None:
    assert reference_modules[name] == (PRINTED / f"{name}.ref.pto").read_text()


@pytest.mark.parametrize("name", ["dist_exchange", "dist_put", "dist_get"])
def test_the_pypto_mode_module_equals_the_references_up_to_names(name: str) -> None:
    """Index arithmetic node by node, as the reference emits it: then the whole module is the
    reference's, operation for operation (SSA names aside). (`dist_remote` differs only where
    slotsat folds a rank-3 tensor's constant outer stride, which the reference multiplies out;
    `dist_rank` and `dist_barrier` where the next rank `(rank + 1) % nranks` is a floor
    remainder: the reference emits a bare `arith.remsi`, slotsat's syntactic proof does not
    see the dividend non-negative, a cast rank, and adds the sign correction.)"""
    ours, theirs = references_module(name)
    assert ours == theirs
