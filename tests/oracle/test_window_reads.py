# ruff: noqa: E501  (the kernel's signature is one line)
"""The valid shape of a load of a tensor that declares one (`pl.TensorView(valid_shape=...)`),
slotsat's deduction (`slotsat.core.dsl.window_reads`) against the reference's, which its
printed IR carries as the load's annotation.

Every combination of a declared extent (a symbol, a literal under the physical extent, the
physical extent), an offset (0, a literal, a runtime scalar) and a request (none, the window, a
literal under it, a scalar, a `pl.min` of one) is written as a kernel; the reference compiles it
to the hand-off point. Where slotsat states the valid shape of the hand-written load, it is the
reference's (equal as numbers for every value of the symbols tried); where it declines, the
reason names the annotation, and the printed IR, which has one, parses. Either way the printed
IR parses with the annotation the reference gave it.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from slotsat.bridge import Reference
from slotsat.core import ir
from slotsat.core.dsl.parser import parse_source
from slotsat.core.errors import SlotsatError
from slotsat.core.interpreter import eval_scalar

pytestmark = pytest.mark.pypto

DECLARED = ["VALID", "100", "256"]
OFFSETS = ["0", "64", "k"]
REQUESTS = ["", ", [16, 128]", ", [16, 64]", ", [16, n]", ", [16, pl.min(n, 64)]"]
VALUES = [0, 5, 100, 300]
"""The values each symbol takes when two valid shapes are compared."""

KERNEL = """import pypto.language as pl

VALID = pl.dynamic("VALID")


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, s: pl.Tensor[[64, 256], pl.FP32, pl.TensorView(valid_shape=[64, DECL], stride=[], layout=pl.TensorLayout.ND)], n: pl.Scalar[pl.INDEX], k: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        t = pl.tile.load(s, [0, OFF], [16, 128]REQ, target_memory=pl.Mem.Vec)
        out = pl.tile.store(t, [0, 0], out)
        return out
"""


def _loaded(text: str) -> ir.TileType:
    fn = next(f for p in parse_source(text, "k.py").programs for f in p.functions if f.name == "kernel")
    (s,) = [s for s in ir.walk_stmts(fn.body) if isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Call)
            and s.value.op == "tile.load"]
    assert isinstance(s.var.type, ir.TileType)
    return s.var.type


def _value(e: ir.Expr, names: dict[str, int]) -> object:
    """`e`'s value with each symbol read by its name (a printed name without its SSA suffix)."""
    return eval_scalar(e, lambda v: names[v.name_hint.split("__")[0]])


def _equal(a: tuple[ir.Expr, ...], b: tuple[ir.Expr, ...]) -> bool:
    for values in itertools.product(VALUES, repeat=3):
        names = dict(zip(("VALID", "n", "k"), values, strict=True))
        if [_value(x, names) for x in a] != [_value(x, names) for x in b]:
            return False
    return True


def test_the_valid_shape_of_each_load_is_the_references(reference: Reference, tmp_path: Path) -> None:
    stated = 0
    reasons: list[str] = []
    for k, (decl, off, req) in enumerate(itertools.product(DECLARED, OFFSETS, REQUESTS)):
        text = KERNEL.replace("DECL", decl).replace("OFF", off).replace("REQ", req)
        path = tmp_path / f"k{k}.py"
        path.write_text(text)
        (kernel,) = reference.compile(str(path))
        theirs = _loaded(kernel.handoff)
        try:
            ours = _loaded(text)
        except SlotsatError as err:
            reasons.append(err.message)
            continue
        assert _equal(ours.effective_valid_shape, theirs.effective_valid_shape), (decl, off, req)
        stated += 1
    assert all("annotate the result's valid shape" in r for r in reasons), reasons
    assert stated == len(DECLARED) * len(OFFSETS) * len(REQUESTS), reasons  # none needs the annotation
