# ruff: noqa: E501  (printed IR lines are one line each, as the reference prints them)
"""The bridge with the real reference: kernel files run under PyPTO up to the hand-off point.

Every test needs PyPTO (marker `pypto`); the kernels are written here, for this project,
except the bundled `examples/kernels/*.py`. What is pinned: the text the reference prints
at the hand-off point, the loops read off its IR, `--specialize` for a `@pl.jit` kernel,
`--kernel`, and every failure as one located line with the reference's own message.
"""

from __future__ import annotations

import sys
import textwrap
import time
from pathlib import Path

import pytest

from slotsat.app import cli
from slotsat.bridge import Reference, RefLoop, RefTile
from slotsat.core.errors import SlotsatError

pytestmark = pytest.mark.pypto

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ROOT / "examples" / "kernels"
ROW_SCALE = str(KERNELS / "row_scale.py")

JIT = '''\
import pypto.language as pl

COLS = 128


@pl.jit
def stream_exp(x: pl.Tensor[[1024, COLS], pl.FP32], y: pl.Out[pl.Tensor[[1024, COLS], pl.FP32]],
               blocks: pl.Scalar[pl.INDEX]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="stream_rows"):
        for b in pl.pipeline(0, blocks, 1, stage=2):
            t = pl.load(x, [b * 64, 0], [64, COLS])
            e = pl.exp(t)
            y = pl.store(e, [b * 64, 0], y)
    return y
'''

BARE = '''\
import pypto.language as pl


@pl.jit
def scaled_add(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor], rows: pl.Scalar[pl.INDEX]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.pipeline(rows // 32, stage=2):
            ta = pl.load(a, [i * 32, 0], [32, 64])
            tb = pl.load(b, [i * 32, 0], [32, 64])
            pl.store(pl.add(ta, tb), [i * 32, 0], c)
    return c
'''

TWO = '''\
import pypto.language as pl


@pl.program
class First:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        for i, (acc,) in pl.pipeline(2, stage=2, init_values=(out,)):
            t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
            nxt: pl.Tensor[[128, 64], pl.FP32] = pl.store(t, [i * 64, 0], acc)
            y = pl.yield_(nxt)
        return y


@pl.program
class Second:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        for j, (acc,) in pl.range(2, init_values=(out,)):
            t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [j * 64, 0], [64, 64])
            nxt: pl.Tensor[[128, 64], pl.FP32] = pl.store(t, [j * 64, 0], acc)
            y = pl.yield_(nxt)
        return y
'''


BUILDER = '''\
import pypto.language as pl


def build_stream_program(rows: int, stage: int = 2):
    blocks = rows // 64

    @pl.program
    class Stream:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[rows, 64], pl.FP32], out: pl.Out[pl.Tensor[[rows, 64], pl.FP32]]) -> pl.Tensor[[rows, 64], pl.FP32]:
            for i, (acc,) in pl.pipeline(blocks, stage=stage, init_values=(out,)):
                t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
                nxt: pl.Tensor[[rows, 64], pl.FP32] = pl.store(t, [i * 64, 0], acc)
                y = pl.yield_(nxt)
            return y

    return Stream


def helper(x: int) -> int:
    return x + 1
'''

def _file(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path)


def _import(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = cli.main(["import", *argv])
    out = capsys.readouterr()
    return status, out.out, out.err


# -- the hand-off IR ---------------------------------------------------------------------------


def test_import_prints_the_hand_off_ir_of_a_program(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _import([ROW_SCALE], capsys)
    assert (status, err) == (0, "")
    assert out.startswith("# pypto.program: RowScale\nimport pypto.language as pl\n\n@pl.program\nclass RowScale:\n")
    assert "        for r__idx_v0, (dst,) in pl.pipeline(8, stage=2, init_values=(out__ssa_v0,)):\n" in out
    assert ("            xt__ssa_v0: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, "
            "[r__idx_v0 * 64, 0], [64, 128], [64, 128], target_memory=pl.Mem.Vec)\n") in out
    assert out.endswith("\n")
    target = tmp_path / "handoff.py"
    status, written, err = _import([ROW_SCALE, "-o", str(target)], capsys)
    assert (status, written, err) == (0, "", "")
    assert target.read_text() == out


def test_a_jit_kernel_takes_its_scalars_from_specialize(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kernel = _file(tmp_path, "stream.py", JIT)
    status, out, err = _import([kernel], capsys)
    assert (status, out) == (2, "")
    assert err == (f"{kernel}:6:1: error: kernel 'stream_exp': scalar parameter 'blocks' needs a value: "
                   "--specialize blocks=VALUE (an integer, a float, True or False) or --specialize "
                   "blocks=RUNTIME to keep it a runtime scalar\n")
    status, out, err = _import([kernel, "--specialize", "blocks=4"], capsys)
    assert (status, err) == (0, "")
    assert "        for b__idx_v0, (y__iter_v1,) in pl.pipeline(4, stage=2, init_values=(y__ssa_v0,)):\n" in out
    status, out, err = _import([kernel, "--specialize", "blocks=RUNTIME"], capsys)
    assert (status, err) == (0, "")
    assert "pl.pipeline(blocks__ssa_v0, stage=2, init_values=(y__ssa_v0,))" in out
    assert "blocks__ssa_v0: pl.Scalar[pl.INDEX]" in out


def test_bare_tensor_parameters_take_shape_and_dtype_from_specialize(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    kernel = _file(tmp_path, "bare.py", BARE)
    status, out, err = _import([kernel, "--specialize", "rows=128"], capsys)
    assert (status, out) == (2, "")
    assert err == (f"{kernel}:4:1: error: kernel 'scaled_add': tensor parameter 'a' has a bare 'pl.Tensor' "
                   "annotation, no shape: add --specialize 'a=pl.Tensor[[D0, D1, ...], pl.DTYPE]' with its shape "
                   "and dtype, e.g. 'a=pl.Tensor[[128, 128], pl.FP32]' (so do b, c)\n")
    shapes = ["--specialize", "a=pl.Tensor[[128, 64], pl.FP16]", "--specialize", "b=[128, 64]:FP16",
              "--specialize", "c=[128,64]:pl.FP16"]
    status, out, err = _import([kernel, *shapes, "--specialize", "rows=128"], capsys)
    assert (status, err) == (0, "")
    assert "a__ssa_v0: pl.Tensor[[128, 64], pl.FP16]" in out
    assert "c__ssa_v0: pl.Out[pl.Tensor[[128, 64], pl.FP16]]" in out
    assert "pl.pipeline(4, stage=2" in out  # rows // 32 with rows = 128
    assert "pl.tile.load(a__ssa_v0, [i__idx_v0 * 32, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)" in out
    # without the scalar: the scalar's own message; RUNTIME needs shaped annotations (the reference's rule)
    status, _, err = _import([kernel, *shapes], capsys)
    assert (status, err) == (2, f"{kernel}:4:1: error: kernel 'scaled_add': scalar parameter 'rows' needs a value: "
                                "--specialize rows=VALUE (an integer, a float, True or False) or --specialize "
                                "rows=RUNTIME to keep it a runtime scalar\n")
    status, _, err = _import([kernel, *shapes, "--specialize", "rows=RUNTIME"], capsys)
    assert status == 2
    assert err.startswith(f"{kernel}:4:1: error: --specialize rows=RUNTIME: the reference keeps a scalar a runtime "
                          "value only when every tensor parameter of kernel 'scaled_add' has a shaped annotation")


@pytest.mark.parametrize(("extra", "message"), [
    (["a=[128, 64]:FP33"], "1:1: error: --specialize a: no tensor dtype pl.FP33 (dtypes: BF16, BOOL, FP16, FP32, "),
    (["rows=[4]:FP32"], "4:1: error: --specialize rows: kernel 'scaled_add' takes 'rows' as a scalar, not a tensor"),
    (["a=3"], "4:1: error: --specialize a: kernel 'scaled_add' takes 'a' as a tensor; give its shape and dtype: "
              "--specialize 'a=pl.Tensor[[D0, ...], pl.FP32]'"),
])
def test_a_wrong_tensor_specialization_is_a_located_usage_error(tmp_path: Path, extra: list[str], message: str,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    kernel = _file(tmp_path, "bare.py", BARE)
    argv = [kernel, "--specialize", "rows=128"]
    for name in ("a", "b", "c"):
        argv += ["--specialize", f"{name}=[128, 64]:FP32"]
    for item in extra:
        argv += ["--specialize", item]
    status, out, err = _import(argv, capsys)
    assert (status, out) == (2, "")
    assert err.startswith(f"{kernel}:{message}")
    assert len(err.splitlines()) == 1


def test_specialize_names_a_parameter_of_a_jit_kernel(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kernel = _file(tmp_path, "stream.py", JIT)
    status, _, err = _import([kernel, "--specialize", "blocks=4", "--specialize", "rows=8"], capsys)
    assert status == 2
    assert err == (f"{kernel}:1:1: error: --specialize rows: no @pl.jit kernel of the file has a parameter "
                   "'rows' (parameters: blocks, x, y)\n")
    status, _, err = _import([ROW_SCALE, "--specialize", "n=1"], capsys)
    assert status == 2
    assert err == (f"{ROW_SCALE}:1:1: error: --specialize applies to @pl.jit kernels; this file's kernels "
                   "are @pl.program classes\n")


def test_every_kernel_of_a_file_is_one_module_and_kernel_picks_one(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    kernel = _file(tmp_path, "two.py", TWO)
    status, out, err = _import([kernel], capsys)
    assert (status, err) == (0, "")
    assert out.count("import pypto.language as pl\n") == 1
    assert out.index("class First:") < out.index("class Second:")
    status, out, err = _import([kernel, "--kernel", "Second"], capsys)
    assert (status, err) == (0, "")
    assert "class Second:" in out
    assert "class First:" not in out
    status, out, err = _import([kernel, "--kernel", "Third"], capsys)
    assert status == 2
    assert err == f"{kernel}:1:1: error: no @pl.program class or @pl.jit kernel named 'Third' (kernels: First, Second)\n"


# -- failures, one located line each -------------------------------------------------------------


def test_a_kernel_the_reference_rejects_gets_its_own_located_message(capsys: pytest.CaptureFixture[str]) -> None:
    rms = str(KERNELS / "rms_norm.py")
    status, out, err = _import([rms], capsys)
    assert (status, out) == (2, "")
    # the reference wraps this in "For loop has 1 iteration arguments but 0 return variables"
    assert err == (f"{rms}:22:57: error: pl.row_sum: Tile inputs require tmp_tile with the same dtype and rank "
                   "as the input, and every dimension at least as large as the corresponding input dimension\n")


@pytest.mark.parametrize(("text", "where", "message"), [
    ("import pypto.language as pl\n\nx = (1,\n", "3:5", "SyntaxError: '(' was never closed"),
    ("import pypto.language as pl\n\nx = 1\ny = undefined_thing + x\n", "4:1",
     "NameError: name 'undefined_thing' is not defined"),
    ("import pypto.language as pl\n\nimport sys\nsys.exit(3)\n", "1:1",
     "the kernel file exited (SystemExit: 3) while it ran"),
    ("import pypto.language as pl\n\nx = 1\n", "1:1",
     "the file defines no @pl.program class and no @pl.jit kernel"),
])
def test_a_kernel_file_that_fails_as_python_is_one_located_line(tmp_path: Path, text: str, where: str, message: str,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    kernel = _file(tmp_path, "bad.py", text)
    status, out, err = _import([kernel], capsys)
    assert (status, out) == (2, "")
    assert err == f"{kernel}:{where}: error: {message}\n"


def test_an_error_in_a_jit_kernel_is_located_in_the_kernel_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kernel = _file(tmp_path, "stream.py", JIT.replace("e = pl.exp(t)", "e = pl.expo(t)"))
    status, _, err = _import([kernel, "--specialize", "blocks=4"], capsys)
    assert status == 2
    assert err.startswith(f"{kernel}:12:13: error: Unknown operation 'pl.expo'")


def test_a_kernel_that_prints_and_reads_cannot_disturb_the_bridge(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    noisy = "import sys\nprint('noise on stdout')\nprint(sys.stdin.read())\n" + TWO
    kernel = _file(tmp_path, "noisy.py", noisy)
    status, out, err = _import([kernel, "--kernel", "First"], capsys)
    assert (status, err) == (0, "")
    assert out.startswith("# pypto.program: First\n")


# -- the worker session --------------------------------------------------------------------------


def test_the_loops_are_read_off_the_reference_ir_before_and_after_its_slot_pass(reference: Reference) -> None:
    (k,) = reference.compile(ROW_SCALE, oracle=True)
    assert (k.name, k.kind, k.errors) == ("RowScale", "program", ())
    tiles = (RefTile("xt__ssa_v0", "pipe_xt__ssa_v0", 2, "r__idx_v0 % 2", "tile.load"),
             RefTile("gt__ssa_v0", "pipe_gt__ssa_v0", 2, "r__idx_v0 % 2", "tile.load"))
    assert k.loops("pre") == (RefLoop("kernel", 13, 9, 0, "Pipeline", 2, "r__idx_v0", 0, 8, 1, ()),)
    assert k.loops("slots") == (RefLoop("kernel", 13, 9, 0, "Sequential", None, "r__idx_v0", 0, 8, 1, tiles),)
    assert k.loops("loops") == k.loops("slots")
    assert k.after_slots is not None
    assert 'pl.MemRef("pipe_xt__ssa_v0", slots=2)[r__idx_v0 % 2]' in k.after_slots
    ok, text = reference.parse(k.after_slots)
    assert ok, text
    assert text == k.after_slots


def test_a_pass_the_reference_fails_after_the_hand_off_is_reported_per_stage(tmp_path: Path,
                                                                            reference: Reference) -> None:
    kernel = _file(tmp_path, "step.py", '''\
        import pypto.language as pl


        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def main(self, a: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]], s: pl.Scalar[pl.INDEX]) -> pl.Tensor[[256, 64], pl.FP32]:
                for i, (acc,) in pl.pipeline(0, 4, s, stage=2, init_values=(out,)):
                    t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
                    nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(t, [i * 64, 0], acc)
                    y = pl.yield_(nxt)
                return y
        ''')
    (k,) = reference.compile(kernel, oracle=True)
    assert k.errors == (("loops", "LowerPipelineLoops: step must be a compile-time integer constant, got Var"),)
    assert k.after_loops is None
    assert [loop.kind for loop in k.loops("slots")] == ["Pipeline"]
    (plain,) = reference.compile(kernel)  # without the oracle the run stops at the hand-off point
    assert plain.handoff == k.handoff
    assert plain.errors == ()


def test_one_worker_serves_request_after_request_and_outlives_failures(reference: Reference) -> None:
    with pytest.raises(SlotsatError):
        reference.compile(str(KERNELS / "rms_norm.py"))
    (k,) = reference.compile(ROW_SCALE)
    assert k.handoff.startswith("# pypto.program: RowScale")
    ok, message = reference.parse("import pypto.language as pl\n\n@pl.program\nclass X:\n    pass\n")
    assert not ok
    assert message.startswith("1:1: ")


def test_each_kernel_file_imports_its_own_sibling_modules(tmp_path: Path, reference: Reference) -> None:
    kernel = TWO.replace("from_here", "").replace("[128, 64]", "[config.ROWS, 64]")
    kernel = "import config\n" + kernel
    texts = []
    for rows in (128, 256):
        folder = tmp_path / f"model{rows}"
        folder.mkdir()
        (folder / "config.py").write_text(f"ROWS = {rows}\n")
        (folder / "kernel.py").write_text(kernel)
        (k, _) = reference.compile(str(folder / "kernel.py"))
        texts.append(k.handoff)
    assert "pl.Tensor[[128, 64], pl.FP32]" in texts[0]
    assert "pl.Tensor[[256, 64], pl.FP32]" in texts[1]  # not the first folder's config.py


def test_a_kernel_file_that_never_finishes_is_stopped_and_the_next_request_gets_a_fresh_worker(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    forever = _file(tmp_path, "forever.py", "import pypto.language as pl\n\nwhile True:\n    pass\n")
    monkeypatch.setenv("SLOTSAT_PYPTO_PYTHON", sys.executable)  # the interpreter the environment names
    with Reference() as ref:
        assert ref.python == sys.executable
        (k,) = ref.compile(ROW_SCALE)  # started and warm
        assert ref.version == "0.1.0"
        ref.limit = 2
        start = time.monotonic()
        with pytest.raises(SlotsatError) as info:
            ref.compile(forever)
        assert time.monotonic() - start < 15
        assert info.value.render() == (f"{forever}:1:1: error: PyPTO did not finish within 2 s "
                                       "(SLOTSAT_PYPTO_SECONDS raises the limit)")
        ref.limit = 120
        (again,) = ref.compile(ROW_SCALE)
        assert again.handoff == k.handoff


def test_a_program_builder_is_a_kernel_named_by_kernel_with_its_arguments_from_specialize(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A file whose `@pl.program` is built by a function (PyPTO's model examples) names it as
    a builder; `--kernel BUILDER` calls it with `--specialize` arguments."""
    kernel = _file(tmp_path, "built.py", BUILDER)
    status, out, err = _import([kernel], capsys)
    assert (status, out) == (2, "")
    assert err == (f"{kernel}:1:1: error: the file defines no @pl.program class and no @pl.jit kernel; it has "
                   "program builders: compile one with --kernel build_stream_program --specialize rows=VALUE\n")
    status, out, err = _import([kernel, "--kernel", "build_stream_program"], capsys)
    assert (status, out) == (2, "")
    assert err == (f"{kernel}:4:1: error: program builder 'build_stream_program' needs a value for each "
                   "parameter without a default: --specialize rows=VALUE\n")
    status, out, err = _import([kernel, "--kernel", "build_stream_program", "--specialize", "rows=256",
                                "--specialize", "stage=4"], capsys)
    assert (status, err) == (0, "")
    assert "pl.pipeline(4, stage=4, init_values=(out__ssa_v0,))" in out
    assert "a__ssa_v0: pl.Tensor[[256, 64], pl.FP32]" in out
    status, out, err = _import([kernel, "--kernel", "build_stream_program", "--specialize", "cols=2"], capsys)
    assert err == (f"{kernel}:4:1: error: --specialize cols: program builder 'build_stream_program' has no "
                   "parameter 'cols' (parameters: rows, stage)\n")
    status, out, err = _import([kernel, "--kernel", "helper", "--specialize", "x=1"], capsys)
    assert (status, err) == (2, f"{kernel}:20:1: error: program builder 'helper' returned int, not a @pl.program\n")


def test_a_kernel_file_with_relative_imports_loads_as_its_package_member(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`from .config import ...` (PyPTO's qwen3_jit example) works only inside its package:
    such a file is imported as `python -m pkg.model` would import it."""
    package = tmp_path / "models" / "tiny"
    package.mkdir(parents=True)
    (tmp_path / "models" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "config.py").write_text("ROWS = 256\n")
    kernel = package / "model.py"
    kernel.write_text(TWO.replace("import pypto.language as pl\n",
                                  "import pypto.language as pl\n\nfrom .config import ROWS\n", 1)
                      .replace("pl.pipeline(2, stage=2", "pl.pipeline(ROWS // 128, stage=2"))
    status, out, err = _import([str(kernel), "--kernel", "First"], capsys)
    assert (status, err) == (0, "")
    assert "pl.pipeline(2, stage=2, init_values=(out__ssa_v0,))" in out


HELPERS = '''\
import pypto.language as pl


@pl.jit.inline
def add_rows(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.add(pl.load(a, [0, 0], [32, 64]), pl.load(b, [0, 0], [32, 64])), [0, 0], c)
    return c
'''


def test_a_file_of_inline_helpers_says_so_and_an_inline_function_is_no_kernel_alone(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """PyPTO's qwen3_jit `kernels/*.py` hold only `@pl.jit.inline` functions, which the entry in
    another file splices in: not "no @pl.jit kernel", and `--kernel` on one is not an empty
    program printed as if it were the kernel."""
    kernel = _file(tmp_path, "helpers.py", HELPERS)
    status, out, err = _import([kernel], capsys)
    assert (status, out) == (2, "")
    assert err == (f"{kernel}:1:1: error: the file defines no @pl.program class and no @pl.jit entry, only "
                   "functions an entry calls: add_rows (@pl.jit.inline); compile the file of the @pl.jit "
                   "entry that calls them\n")
    status, out, err = _import([kernel, "--kernel", "add_rows", "--specialize", "a=[32, 64]:FP32",
                                "--specialize", "b=[32, 64]:FP32", "--specialize", "c=[32, 64]:FP32"], capsys)
    assert (status, out) == (2, "")
    assert err == (f"{kernel}:4:1: error: --kernel add_rows: 'add_rows' is a @pl.jit.inline function, spliced "
                   "into the @pl.jit entry that calls it, with no program of its own: compile the file of that "
                   "entry\n")


# -- --from-main: a jit kernel's arguments from the file's own `__main__` block -------------------

MAIN = BARE.replace("import pypto.language as pl\n", "import pypto.language as pl\nimport torch\n", 1) + '''

@pl.jit
def double(x: pl.Tensor, y: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [16, 32])
        pl.store(pl.add(t, t), [0, 0], y)
    return y


if __name__ == "__main__":
    a = torch.ones((256, 64), dtype=torch.float16)
    c = torch.zeros((256, 64), dtype=torch.float16)
    scaled_add(a, a, c, 256, config=None)
    assert torch.equal(c, a + a), "the recorded call computed nothing"
    x = torch.ones((16, 32), dtype=torch.float32)
    program = double.lower(x, torch.zeros((16, 32), dtype=torch.float32))
    print(len(program.functions))
    double(x, x)
'''


def test_from_main_takes_every_argument_from_the_first_call_of_the_main_block(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """PyPTO's own examples give their shapes only in the tensors their `__main__` block passes.
    The block runs as under `python -O` (its asserts on results the recorded calls did not
    compute are skipped); a `.lower(...)` call returns the real program, which the block may read."""
    kernel = _file(tmp_path, "main.py", MAIN)
    status, out, err = _import([kernel, "--specialize", "rows=256"], capsys)
    assert (status, out) == (2, "")
    assert err.endswith("(so do b, c); or --from-main to take every argument from the call the file's __main__ "
                        "block makes\n")
    status, out, err = _import([kernel, "--from-main"], capsys)
    assert (status, err) == (0, "")
    assert "a__ssa_v0: pl.Tensor[[256, 64], pl.FP16]" in out
    assert "pl.pipeline(8, stage=2" in out  # rows // 32 with rows = 256 from the call
    assert "x__ssa_v0: pl.Tensor[[16, 32], pl.FP32]" in out  # the second kernel, after the assert
    status, out, err = _import([kernel, "--from-main", "--kernel", "double"], capsys)
    assert (status, err) == (0, "")
    assert "scaled_add" not in out
    assert "x__ssa_v0: pl.Tensor[[16, 32], pl.FP32]" in out


def test_from_main_leaves_a_kernel_that_needs_no_arguments_as_it_is(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A kernel with shaped annotations and no scalar to give compiles without a call: PyPTO's
    distributed examples call their device kernels only from inside a host kernel."""
    shaped = MAIN.replace('if __name__ == "__main__":', JIT.split("\n\n\n", 1)[1].replace(
        "blocks: pl.Scalar[pl.INDEX]", "blocks: pl.Scalar[pl.INDEX] = 4").replace("COLS", "128")
        + '\n\nif __name__ == "__main__":')
    kernel = _file(tmp_path, "main.py", shaped)
    status, out, err = _import([kernel, "--from-main"], capsys)
    assert (status, err) == (0, "")
    assert "pl.pipeline(4, stage=2, init_values=(y__ssa_v0,))" in out  # stream_exp, never called
    assert "pl.pipeline(8, stage=2" in out  # scaled_add, from its call
    # without the default, stream_exp needs a call the block never makes
    kernel = _file(tmp_path, "main.py", shaped.replace("blocks: pl.Scalar[pl.INDEX] = 4", "blocks: pl.Scalar[pl.INDEX]"))
    status, out, err = _import([kernel, "--from-main"], capsys)
    assert (status, out) == (2, "")
    assert err.startswith(f"{kernel}:")
    assert err.endswith(": error: --from-main: the file's __main__ block ran to its end without calling kernel "
                        "'stream_exp'; it called scaled_add, double: select one with --kernel, or give its "
                        "arguments with --specialize\n")


@pytest.mark.parametrize(("main", "where", "message"), [
    ('if __name__ == "__main__":\n    pass\n', "23:1",
     "--from-main: the file's __main__ block ran to its end without calling kernel 'scaled_add'; give its "
     "arguments with --specialize"),
    ('if __name__ == "__main__":\n    scaled_add(torch.ones((64, 64)), None, None, 64)\n    raise SystemExit(3)\n',
     "25:1", "--from-main: the file's __main__ block stopped before it called kernel 'double' (exited "
     "(SystemExit: 3)); it called scaled_add: select one with --kernel, or give its arguments with --specialize"),
    ('if __name__ == "__main__":\n    x = 1\n    x.shape\n', "25:1",
     "--from-main: the file's __main__ block stopped before it called kernel 'scaled_add' (AttributeError: "
     "'int' object has no attribute 'shape'); give its arguments with --specialize"),
    ("", "1:1", "--from-main: the file has no `if __name__ == \"__main__\":` block to take the kernel's "
                "arguments from; give them with --specialize"),
])
def test_from_main_says_why_a_kernel_got_no_arguments(tmp_path: Path, main: str, where: str, message: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    text = MAIN[: MAIN.index('if __name__ == "__main__":')] + main
    kernel = _file(tmp_path, "main.py", text)
    status, out, err = _import([kernel, "--from-main"], capsys)
    assert (status, out) == (2, "")
    assert err == f"{kernel}:{where}: error: {message}\n"


def test_from_main_is_not_combined_with_specialize_and_needs_the_bridge(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kernel = _file(tmp_path, "main.py", MAIN)
    status, _, err = _import([kernel, "--from-main", "--specialize", "rows=256"], capsys)
    assert (status, err) == (2, f"{kernel}:1:1: error: --from-main takes every argument of a kernel from its call "
                                "in the file's __main__ block; drop --specialize, or drop --from-main and give "
                                "each argument with --specialize\n")
    status = cli.main(["codegen", kernel, "--from-main"])
    err = capsys.readouterr().err
    assert status == 2
    assert "--specialize, --from-main and --kernel select what PyPTO compiles; they need --via-pypto" in err
    status = cli.main(["codegen", kernel, "--via-pypto", "--from-main", "--kernel", "double", "--backend", "none"])
    out = capsys.readouterr()
    assert (status, out.err) == (0, "")


def test_explore_file_goes_through_pypto_like_codegen(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`explore FILE --via-pypto` lists the expressions of the hand-off IR; its diagnostics
    name the file as `codegen --via-pypto` does."""
    kernel = _file(tmp_path, "stream.py", JIT)
    status = cli.main(["explore", kernel, "--via-pypto", "--specialize", "blocks=4"])
    out = capsys.readouterr()
    assert (status, out.err) == (0, "")
    assert "  #1 line 9: slot operand of 't__ssa_v0', 2 slots: b__idx_v0 % 2\n" in out.out
    assert "     loops: b__idx_v0 in range(0, 4, 1)\n" in out.out
    status = cli.main(["explore", kernel, "--via-pypto"])
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith(f"{kernel}:6:1: error: kernel 'stream_exp': scalar parameter 'blocks' needs a value")
