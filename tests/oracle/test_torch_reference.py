"""The interpreter's op models against the reference's own executable semantics (marker
`pypto`).

PyPTO's debug code generator (`pypto.debug.torch_codegen`, docs/en/dev/debug/
00-torch_codegen.md) turns a program into PyTorch code that computes what the reference means
by each op. Each case here is one tile kernel around one op (arithmetic, unary math,
reductions and broadcasts of both axes, bit ops, a truncating cast (the reference's torch code
ignores a cast's `mode=`, so it cannot say how one rounds), comparisons and selections, views,
`write`, `concat`, `assemble`, a matmul), on fully valid tiles (the torch code has no valid
regions): the reference parses the kernel (`pl.parse_program`), its
code generator's PyTorch code runs on the inputs, and slotsat's interpreter runs the same
kernel on the same inputs; the outputs must agree, exactly for integers and to float32
rounding for floats (numpy's and torch's `exp` / `log` may differ in the last place).

Where the reference's sources disagree on an op (`interpreter._agreed`: its docstrings and
this code generator against the PTO IR manual), the interpreter holds undefined data exactly
where they disagree; the inputs there are drawn with both signs, and only the elements the
interpreter defines are compared (at least some of them must be).

The torch code runs in one child process for all cases (`_reference_outputs`), so this test
process never imports torch.
"""

# ruff: noqa: E501  (embedded kernel text keeps one statement per line, 10-dsl.md §9.1)

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable

import numpy as np
import pytest

from slotsat.core.dsl.parser import parse_source
from slotsat.core.interpreter import Interpreter, Undefined, ensure_modelled

pytestmark = pytest.mark.pypto

_KERNEL = """import pypto.language as pl


@pl.program
class K:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[4, 8], pl.{t}], b: pl.Tensor[[4, 8], pl.{t}], out: pl.Out[pl.Tensor[[{rows}, {cols}], pl.{o}]]) -> pl.Tensor[[{rows}, {cols}], pl.{o}]:
        x: pl.Tile[[4, 8], pl.{t}, pl.Mem.Vec] = pl.load(a, [0, 0], [4, 8])
        y: pl.Tile[[4, 8], pl.{t}, pl.Mem.Vec] = pl.load(b, [0, 0], [4, 8])
        tmp: pl.Tile[[4, 8], pl.{t}, pl.Mem.Vec] = pl.tile.create([4, 8], dtype=pl.{t}, target_memory=pl.Mem.Vec)
{body}
        r: pl.Tensor[[{rows}, {cols}], pl.{o}] = pl.store(m, [0, 0], out)
        return r
"""

F = "pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec]"
I = "pl.Tile[[4, 8], pl.INT32, pl.Mem.Vec]"  # noqa: E741
COL = "pl.Tile[[4, 1], pl.FP32, pl.Mem.Vec]"
MASK = "pl.Tile[[4, 32], pl.UINT8, pl.Mem.Vec]"
ROW = "pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec]"

# name: (dtype, inputs, result [rows, cols], body defining `m`)
# inputs: "pos" floats in [0.25, 2), "signed" floats in [-2, 2), "int" integers in [-8, 8],
# "count" integers in [1, 8]; a trailing "0": `b` zero at about half its elements
CASES: dict[str, tuple[str, str, tuple[int, int], str]] = {
    "add": ("FP32", "signed", (4, 8), f"m: {F} = pl.tile.add(x, y)"),
    "sub": ("FP32", "signed", (4, 8), f"m: {F} = pl.tile.sub(x, y)"),
    "mul": ("FP32", "signed", (4, 8), f"m: {F} = pl.tile.mul(x, y)"),
    "div": ("FP32", "pos", (4, 8), f"m: {F} = pl.tile.div(x, y)"),
    "maximum": ("FP32", "signed", (4, 8), f"m: {F} = pl.tile.maximum(x, y)"),
    "minimum": ("FP32", "signed", (4, 8), f"m: {F} = pl.tile.minimum(x, y)"),
    "adds": ("FP32", "signed", (4, 8), f"m: {F} = pl.tile.adds(x, 1.5)"),
    "muls": ("FP32", "signed", (4, 8), f"m: {F} = pl.tile.muls(x, -0.75)"),
    "exp": ("FP32", "signed", (4, 8), f"m: {F} = pl.tile.exp(x)"),
    "log": ("FP32", "pos", (4, 8), f"m: {F} = pl.tile.log(x)"),
    "sqrt": ("FP32", "pos", (4, 8), f"m: {F} = pl.tile.sqrt(x)"),
    "recip": ("FP32", "pos", (4, 8), f"m: {F} = pl.tile.recip(x)"),
    "abs": ("FP32", "signed", (4, 8), f"m: {F} = pl.tile.abs(x)"),
    "neg": ("FP32", "signed", (4, 8), f"m: {F} = pl.tile.neg(x)"),
    "relu": ("FP32", "signed", (4, 8), f"m: {F} = pl.tile.relu(x)"),
    "fmod": ("FP32", "signed", (4, 8), f"m: {F} = pl.tile.fmod(x, y)"),
    "fmods": ("FP32", "signed", (4, 8), f"m: {F} = pl.tile.fmods(x, 0.75)"),
    "rem": ("FP32", "signed", (4, 8), f"m: {F} = pl.tile.rem(x, y, tmp)"),
    "rems": ("INT32", "int", (4, 8), f"m: {I} = pl.tile.rems(x, 3, tmp)"),
    "addc": ("FP32", "signed", (4, 8), f"m: {F} = pl.tile.addc(x, y, y)"),
    "subc": ("FP32", "signed0", (4, 8), f"m: {F} = pl.tile.subc(x, x, y)"),
    "addsc": ("INT32", "int", (4, 8), f"m: {I} = pl.tile.addsc(x, 5, y)"),
    "subsc": ("INT32", "int0", (4, 8), f"m: {I} = pl.tile.subsc(x, 5, y)"),
    "lrelu": ("FP32", "signed", (4, 8), f"m: {F} = pl.tile.lrelu(x, 0.125)"),
    "lrelu_steep": ("FP32", "signed", (4, 8), f"m: {F} = pl.tile.lrelu(x, 3.0)"),
    "prelu": ("FP32", "signed", (4, 8), f"m: {F} = pl.tile.prelu(x, y, tmp)"),
    "expands": ("FP32", "signed", (4, 8), f"m: {F} = pl.tile.expands(x, 2.5)"),
    "sel": ("FP32", "signed", (4, 8), f"c: {MASK} = pl.tile.cmp(x, y, cmp_type=2)\n        m: {F} = pl.tile.sel(c, x, y, tmp)"),
    "sels": ("FP32", "signed", (4, 8), f"c: {MASK} = pl.tile.cmps(x, 0.5, cmp_type=5)\n        m: {F} = pl.tile.sels(c, x, tmp, -4.0)"),
    "row_sum": ("FP32", "signed", (4, 1), f"m: {COL} = pl.tile.row_sum(x, tmp)"),
    "row_max": ("FP32", "signed", (4, 1), f"m: {COL} = pl.tile.row_max(x, tmp)"),
    "row_expand_mul": ("FP32", "signed", (4, 8), f"s: {COL} = pl.tile.row_max(y, tmp)\n        m: {F} = pl.tile.row_expand_mul(x, s)"),
    "row_expand_sub": ("FP32", "signed", (4, 8), f"s: {COL} = pl.tile.row_sum(y, tmp)\n        m: {F} = pl.tile.row_expand_sub(x, s)"),
    "and": ("INT32", "int", (4, 8), f"m: {I} = pl.tile.and_(x, y)"),
    "xors": ("INT32", "int", (4, 8), f"m: {I} = pl.tile.xors(x, 6, tmp)"),
    "shls": ("INT32", "count", (4, 8), f"m: {I} = pl.tile.shls(x, 3)"),
    "subs": ("FP32", "signed", (4, 8), f"m: {F} = pl.tile.subs(x, 0.5)"),
    "divs": ("FP32", "signed", (4, 8), f"m: {F} = pl.tile.divs(x, -1.5)"),
    "row_min": ("FP32", "signed", (4, 1), f"m: {COL} = pl.tile.row_min(x, tmp)"),
    "col_expand_mul": ("FP32", "signed", (4, 8), f"s: {ROW} = pl.tile.col_max(y)\n        m: {F} = pl.tile.col_expand_mul(x, s)"),
    "or": ("INT32", "int", (4, 8), f"m: {I} = pl.tile.or_(x, y)"),
    "not": ("INT16", "int", (4, 8), "m: pl.Tile[[4, 8], pl.INT16, pl.Mem.Vec] = pl.tile.not_(x)"),
    "shrs": ("INT32", "count", (4, 8), f"m: {I} = pl.tile.shrs(x, 1)"),
    "rsqrt": ("FP32", "pos", (4, 8), f"m: {F} = pl.tile.rsqrt(x)"),
    "row_prod": ("FP32", "signed", (4, 1), f"m: {COL} = pl.tile.row_prod(x, tmp)"),
    "row_expand_add": ("FP32", "signed", (4, 8), f"s: {COL} = pl.tile.row_min(y, tmp)\n        m: {F} = pl.tile.row_expand_add(x, s)"),
    "row_expand_div": ("FP32", "pos", (4, 8), f"s: {COL} = pl.tile.row_max(y, tmp)\n        m: {F} = pl.tile.row_expand_div(x, s)"),
    "row_expand_max": ("FP32", "signed", (4, 8), f"s: {COL} = pl.tile.row_min(y, tmp)\n        m: {F} = pl.tile.row_expand_max(x, s)"),
    "row_expand_expdif": ("FP32", "signed", (4, 8), f"s: {COL} = pl.tile.row_max(x, tmp)\n        m: {F} = pl.tile.row_expand_expdif(x, s)"),
    "col_sum": ("FP32", "signed", (1, 8), f"m: {ROW} = pl.tile.col_sum(x)"),
    "col_min": ("FP32", "signed", (1, 8), f"m: {ROW} = pl.tile.col_min(x)"),
    "col_prod": ("FP32", "signed", (1, 8), f"m: {ROW} = pl.tile.col_prod(x)"),
    "col_expand_sub": ("FP32", "signed", (4, 8), f"s: {ROW} = pl.tile.col_max(y)\n        m: {F} = pl.tile.col_expand_sub(x, s)"),
    "col_expand_div": ("FP32", "pos", (4, 8), f"s: {ROW} = pl.tile.col_min(y)\n        m: {F} = pl.tile.col_expand_div(x, s)"),
    "col_expand_min": ("FP32", "signed", (4, 8), f"s: {ROW} = pl.tile.col_max(y)\n        m: {F} = pl.tile.col_expand_min(x, s)"),
    "col_expand_expdif": ("FP32", "signed", (4, 8), f"s: {ROW} = pl.tile.col_max(x)\n        m: {F} = pl.tile.col_expand_expdif(x, s)"),
    "part_add": ("FP32", "signed", (4, 8), f"m: {F} = pl.tile.part_add(x, y)"),
    "part_max": ("FP32", "signed", (4, 8), f"m: {F} = pl.tile.part_max(x, y)"),
    "shl": ("INT32", "count", (4, 8), f"m: {I} = pl.tile.shl(x, y)"),
    "shr": ("INT32", "count", (4, 8), f"m: {I} = pl.tile.shr(x, y)"),
    "ands": ("INT32", "int", (4, 8), f"m: {I} = pl.tile.ands(x, 5)"),
    "xor": ("INT32", "int", (4, 8), f"m: {I} = pl.tile.xor(x, y, tmp)"),
    "full": ("FP32", "signed", (4, 8), f"m: {F} = pl.tile.full([4, 8], dtype=pl.FP32, value=1.25)"),
    "write": ("FP32", "signed", (4, 8), f"m: {F} = pl.tile.write(x, [2, 3], 7.5)"),
    "slice": ("FP32", "signed", (2, 8), "m: pl.Tile[[2, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(x, [2, 8], [1, 0])"),
    "extract": ("FP32", "signed", (2, 4), "m: pl.Tile[[2, 4], pl.FP32, pl.Mem.Vec] = pl.tile.extract(x, 1, 4, [2, 4], target_memory=pl.Mem.Vec)"),
    "reshape": ("FP32", "signed", (8, 4), "m: pl.Tile[[8, 4], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(x, [8, 4])"),
    "concat": ("FP32", "signed", (4, 16), "m: pl.Tile[[4, 16], pl.FP32, pl.Mem.Vec] = pl.tile.concat(x, y)"),
    "assemble": ("FP32", "signed", (4, 8), "w: pl.Tile[[2, 4], pl.FP32, pl.Mem.Vec] = pl.tile.slice(y, [2, 4], [0, 0])\n        m: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec] = pl.tile.assemble(x, w, [1, 2])"),
    "matmul": ("FP32", "signed", (4, 4), "lm = pl.load(a, [0, 0], [4, 8], target_memory=pl.Mem.Mat)\n        lt = pl.tile.move(lm, target_memory=pl.Mem.Left)\n        rm = pl.load(b, [0, 0], [4, 8], target_memory=pl.Mem.Mat)\n        rt = pl.tile.move(rm, target_memory=pl.Mem.Right)\n        m = pl.tile.matmul(lt, pl.tile.transpose_view(rt))"),
    "cast": ("FP32", "signed", (4, 8), "m: pl.Tile[[4, 8], pl.INT32, pl.Mem.Vec] = pl.tile.cast(x, target_type=pl.INT32, mode='trunc')"),
}
"""One op each (and the comparison `tile.sel` / `tile.sels` read)."""

SUMMED = frozenset({"row_sum", "row_expand_sub", "row_prod", "col_sum", "col_prod", "matmul"})
"""The cases whose result is a sum or product of a row or column (an order of rounding)."""


def _source(name: str) -> str:
    dtype, _, (rows, cols), body = CASES[name]
    out = "INT32" if name.startswith("cast") else dtype
    return _KERNEL.format(t=dtype, o=out, rows=rows, cols=cols, body="        " + body)


def _inputs(name: str) -> dict[str, np.ndarray]:
    dtype, kind, (rows, cols), _ = CASES[name]
    rng = np.random.default_rng(sorted(CASES).index(name))
    zeros, kind = kind.endswith("0"), kind.removesuffix("0")
    draw: dict[str, Callable[[], np.ndarray]] = {
        "pos": lambda: rng.uniform(0.25, 2.0, (4, 8)), "signed": lambda: rng.uniform(-2.0, 2.0, (4, 8)),
        "int": lambda: rng.integers(-8, 9, (4, 8)), "count": lambda: rng.integers(1, 9, (4, 8))}
    a, b = draw[kind](), draw[kind]()
    if zeros:
        b = np.where(rng.random((4, 8)) < 0.5, 0, b)
    np_type = {"FP32": np.float32, "INT32": np.int32, "INT16": np.int16}[dtype]
    out_type = np.int32 if name.startswith("cast") else np_type
    return {"a": a.astype(np_type), "b": b.astype(np_type), "out": np.zeros((rows, cols), out_type)}


_CHILD = r"""
import json, sys
import numpy as np
import torch
import pypto.language as pl
from pypto.debug import torch_codegen

cases = json.load(open(sys.argv[1]))
results = {}
for name, case in cases.items():
    ns = {}
    try:
        exec(torch_codegen(pl.parse_program(case["source"])), ns)
        args = [torch.from_numpy(np.array(case[k], dtype=case[k + "_dtype"])) for k in ("a", "b", "out")]
        results[name] = ns["kernel"](*args).numpy().tolist()
    except Exception as err:  # reported by the case's test
        results[name] = {"error": f"{type(err).__name__}: {err}"}
json.dump(results, open(sys.argv[2], "w"))
"""


@pytest.fixture(scope="module")
def reference_outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, np.ndarray | str]:
    """Every case's output from the reference's PyTorch code (or why the reference could not
    produce it), computed in one child process."""
    folder = tmp_path_factory.mktemp("torch_reference")
    cases = {}
    for name in CASES:
        arrays = _inputs(name)
        cases[name] = {"source": _source(name),
                       **{k: v.tolist() for k, v in arrays.items()},
                       **{k + "_dtype": str(v.dtype) for k, v in arrays.items()}}
    given, taken = folder / "cases.json", folder / "outputs.json"
    given.write_text(json.dumps(cases))
    done = subprocess.run([sys.executable, "-c", _CHILD, str(given), str(taken)], capture_output=True,
                          text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return {name: values["error"] if isinstance(values, dict) else np.array(values)
            for name, values in json.loads(taken.read_text()).items()}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_interpreter_computes_what_the_reference_torch_code_computes(
        name: str, reference_outputs: dict[str, np.ndarray | str]) -> None:
    theirs = reference_outputs[name]
    assert not isinstance(theirs, str), theirs
    fn = parse_source(_source(name), f"{name}.py").programs[0].functions[0]
    ensure_modelled(fn)
    # undefined data is what differs between two fillings of it (as `slotsat check` finds it)
    runs = [np.asarray(Interpreter(physical=False, prefetch=False, undefined=Undefined(filling=k, seed=1))
                       .run(fn, _inputs(name))[0]) for k in (1, 2)]
    ours = runs[0]
    defined = (runs[0] == runs[1]) | (np.isnan(runs[0]) & np.isnan(runs[1])) if ours.dtype.kind == "f" \
        else runs[0] == runs[1]
    assert defined.any()
    theirs = theirs.astype(ours.dtype)
    assert ours.shape == theirs.shape
    if ours.dtype.kind != "f":
        np.testing.assert_array_equal(ours[defined], theirs[defined])
        return
    # a sum may round differently in another order (the interpreter adds in float64, torch in float32)
    rtol, atol = (1e-6, 1e-6) if name in SUMMED else (2e-7, 0.0)
    np.testing.assert_allclose(ours[defined], theirs[defined], rtol=rtol, atol=atol)
