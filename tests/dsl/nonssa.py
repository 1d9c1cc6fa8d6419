"""Random non-SSA kernels, as people write them, and a plain-Python model to run them with.

`kernels()` is a hypothesis strategy of kernel source texts that rebind names freely: `acc =
pl.add(acc, t)` in loops, sibling loops reusing `i`, names rebound in one or both branches
of an `if` (with and without `else`), store results escaping their loop, loops with the
author's own `init_values` and ifs with their own `pl.yield_`, nested to depth 3. The
generator tracks which names have a value at each point under the rules of
`slotsat/core/dsl/ssa.py` (which are Python's where Python's are defined), so every
kernel it draws must parse.

`run_python(source, args)` is the oracle: it rewrites the kernel into an ordinary Python
function (`pl.range(...)` is `range(...)`, `pl.yield_` binds its targets, ops are numpy
functions on float32 arrays, a store writes its tensor in place as the interpreter's do
(`10-dsl.md` §5: its result reuses the destination),
integer arithmetic wraps at 64 bits) and runs it with Python's own rebinding semantics.
"""

from __future__ import annotations

import ast
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from hypothesis import strategies as st

SCALARS = ["x", "y", "z"]
TILES = ["t", "u", "acc"]
TENSORS = ["out", "res", "o"]
LOOP_VARS = ["i", "j", "k"]
CARRIED = ["c0", "c1"]
TENSOR_TYPE = "pl.Tensor[[64, 64], pl.FP32]"
HEADER = (
    "import pypto.language as pl\n\n\n@pl.program\nclass Gen:\n"
    "    @pl.function(type=pl.FunctionType.InCore)\n"
    f"    def kernel(self, a: {TENSOR_TYPE}, n: pl.Scalar[pl.INDEX], out: pl.Out[{TENSOR_TYPE}]"
    f") -> tuple[pl.Scalar[pl.INDEX], {TENSOR_TYPE}]:\n"
)


@dataclass
class _Gen:
    """Draws one kernel body. `live` maps each name with a value to its kind: "s" an INDEX
    scalar, "t" a [16, 16] FP32 tile, "T" a [64, 64] FP32 tensor."""

    integer: Callable[[int, int], int]
    live: dict[str, str] = field(default_factory=lambda: {"a": "T", "n": "s", "out": "T"})
    lines: list[str] = field(default_factory=list)
    escapes: int = 0

    def pick(self, items: list[str]) -> str:
        return items[self.integer(0, len(items) - 1)]

    def chance(self, percent: int) -> bool:
        return bool(self.integer(0, 99) < percent)

    def emit(self, depth: int, line: str) -> None:
        self.lines.append("    " * depth + line)

    def of(self, kind: str) -> list[str]:
        return sorted(name for name, k in self.live.items() if k == kind)

    # -- expressions

    def scalar(self, depth: int = 2) -> str:
        choice = self.integer(0, 6 if depth > 0 else 1)
        if choice == 0:
            return self.pick(self.of("s"))
        if choice == 1:
            return str(self.integer(0, 9))
        if choice <= 4:
            op = self.pick(["+", "-", "*"])
            return f"({self.scalar(depth - 1)} {op} {self.scalar(depth - 1)})"
        if choice == 5:
            return f"({self.scalar(depth - 1)} % {self.integer(1, 7)})"
        return f"({self.scalar(depth - 1)} // {self.pick(['2', '3', '-4'])})"

    def offsets(self) -> str:
        return f"[({self.scalar(1)} % 4) * 16, ({self.scalar(1)} % 4) * 16]"

    def cond(self) -> str:
        return f"{self.scalar(1)} {self.pick(['<', '<=', '==', '!=', '>'])} {self.scalar(1)}"

    # -- statements

    def assign(self, depth: int) -> None:
        kind = self.integer(0, 5)
        tiles = self.of("t")
        if kind <= 1:
            name = self.pick([*SCALARS, "n"])
            self.emit(depth, f"{name} = {self.scalar()}")
            self.live[name] = "s"
        elif kind == 2 or not tiles:
            name = self.pick(TILES)
            self.emit(depth, f"{name} = pl.load({self.pick(self.of('T'))}, {self.offsets()}, [16, 16])")
            self.live[name] = "t"
        elif kind <= 4:
            name = self.pick(TILES)
            op = self.integer(0, 4)
            if op == 0:
                value = f"pl.add({self.pick(tiles)}, {self.pick(tiles)})"
            elif op == 1:
                value = f"pl.mul({self.pick(tiles)}, {self.pick(tiles)})"
            elif op == 2:
                value = f"pl.muls({self.pick(tiles)}, {self.pick(['0.5', '2.0', '-1.5'])})"
            elif op == 3:
                value = f"pl.adds({self.pick(tiles)}, {self.pick(['1.0', '-0.25'])})"
            else:
                value = self.pick(tiles)
            self.emit(depth, f"{name} = {value}")
            self.live[name] = "t"
        else:
            name = self.pick(TENSORS)
            dst = self.pick(self.of("T"))
            self.emit(depth, f"{name} = pl.store({self.pick(tiles)}, {self.offsets()}, {dst})")
            self.live[name] = "T"

    def block(self, depth: int, size: int | None = None) -> None:
        count = size if size is not None else self.integer(0, 4)
        for _ in range(count):
            choice = self.integer(0, 9 if depth < 3 else 5)
            if choice <= 5:
                self.assign(depth)
            elif choice <= 7:
                self.loop(depth)
            else:
                self.branch(depth)
        if count == 0:
            self.emit(depth, "pass")

    def loop(self, depth: int) -> None:
        free = [v for v in LOOP_VARS if v not in self.live]
        if not free:
            self.assign(depth)
            return
        iv = "i" if "i" in free and self.chance(60) else self.pick(free)  # sibling loops reuse i
        start = self.integer(0, 2)
        trips = self.integer(0, 3)
        bounds = f"{start + trips}" if start == 0 else f"{start}, {start + trips}"
        head = f"pl.pipeline({bounds}, stage=2" if self.chance(40) else f"pl.range({bounds}"
        before = dict(self.live)
        carried_free = [c for c in CARRIED if c not in self.live]
        explicit = carried_free and self.of("t") and self.chance(30)
        if explicit:
            ct = self.pick(carried_free)
            init = self.pick(self.of("t"))
            self.emit(depth, f"for {iv}, ({ct},) in {head}, init_values=({init},)):")
            self.live[iv] = "s"
            self.live[ct] = "t"
            self.block(depth + 1)
            target = self.pick(TILES)
            self.emit(depth + 1, f"{target} = pl.yield_({self.pick(self.of('t'))})")
        else:
            self.emit(depth, f"for {iv} in {head}):")
            self.live[iv] = "s"
            self.block(depth + 1)
        inside = self.live
        # names bound before keep a value (carried); the loop variable, the loop's own
        # carried names and names first bound inside have none after it
        self.live = {name: kind for name, kind in inside.items() if name in before}
        if explicit:
            self.live[target] = "t"
        escaping = sorted(name for name, kind in inside.items() if kind == "T" and name not in before)
        if not explicit and trips > 0 and escaping:
            # a store result first bound in the loop and read right after it: an escaping
            # name, carried from `out` (Python defines it: the loop runs at least once)
            name = self.pick(escaping)
            self.escapes += 1
            self.live[name] = "T"
            tiles = self.of("t")
            self.emit(depth, f"o = pl.store({self.pick(tiles)}, [0, 0], {name})" if tiles else f"o = {name}")
            self.live["o"] = "T"

    def branch(self, depth: int) -> None:
        before = dict(self.live)
        self.emit(depth, f"if {self.cond()}:")
        yields = self.chance(25)
        self.block(depth + 1)
        target = self.pick(TILES + SCALARS)
        kind = "t" if target in TILES else "s"
        if yields:
            self.emit(depth + 1, f"{target} = pl.yield_({self.yield_value(kind, depth + 1)})")
        then_live = self.live
        self.live = dict(before)
        has_else = yields or self.chance(60)
        if has_else:
            self.emit(depth, "else:")
            self.block(depth + 1)
            if yields:
                self.emit(depth + 1, f"{target} = pl.yield_({self.yield_value(kind, depth + 1)})")
        else_live = self.live
        self.live = {name: kind for name, kind in before.items()}
        if not yields:
            for name, k in then_live.items():
                if name not in before and else_live.get(name) == k:
                    self.live[name] = k
        else:
            self.live[target] = kind

    def yield_value(self, kind: str, depth: int) -> str:
        if kind == "s":
            return self.scalar(1)
        if not self.of("t"):
            name = self.pick(TILES)
            self.emit(depth, f"{name} = pl.load(a, {self.offsets()}, [16, 16])")
            self.live[name] = "t"
        return self.pick(self.of("t"))

    def kernel(self) -> str:
        self.block(2, self.integer(1, 5))
        ret = f"return {self.pick(self.of('s'))}, {self.pick(self.of('T'))}"
        self.emit(2, ret)
        return HEADER + "\n".join(self.lines) + "\n"


@st.composite
def kernels(draw: Any) -> str:
    return _Gen(lambda lo, hi: draw(st.integers(lo, hi))).kernel()


def kernel_from_seed(seed: int) -> tuple[str, int]:
    """The same generator driven by `random.Random(seed)` (for deterministic corpora): the
    source and how many escaping names it reads after their loop."""
    gen = _Gen(random.Random(seed).randint)
    return gen.kernel(), gen.escapes


# --------------------------------------------------------------------------------------
# the oracle: the kernel as a plain Python function


def _wrap(v: int) -> int:
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >= 1 << 63 else v


class _Pl:
    """The operations of the generated kernels, on numpy float32 arrays (stores in place)."""

    @staticmethod
    def load(t: Any, offs: list[int], shape: list[int]) -> Any:
        (r, c), (h, w) = offs, shape
        return np.array(t[r:r + h, c:c + w], dtype=np.float32)

    @staticmethod
    def store(tile: Any, offs: list[int], dst: Any) -> Any:
        (r, c) = offs
        dst[r:r + tile.shape[0], c:c + tile.shape[1]] = tile
        return dst

    @staticmethod
    def add(x: Any, y: Any) -> Any:
        return x + y

    @staticmethod
    def mul(x: Any, y: Any) -> Any:
        return x * y

    @staticmethod
    def muls(x: Any, s: float) -> Any:
        return x * np.float32(s)

    @staticmethod
    def adds(x: Any, s: float) -> Any:
        return x + np.float32(s)


class _ToPython(ast.NodeTransformer):
    """The DSL constructs of the generated kernels as plain Python."""

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        return ast.Call(ast.Name("_wrap", ast.Load()), [node], [])

    def visit_For(self, node: ast.For) -> Any:
        self.generic_visit(node)
        assert isinstance(node.iter, ast.Call)
        call = node.iter
        inits = next((k.value for k in call.keywords if k.arg == "init_values"), None)
        node.iter = ast.Call(ast.Name("range", ast.Load()), call.args, [])
        if inits is None:
            return node
        assert isinstance(node.target, ast.Tuple)
        iv, carried = node.target.elts
        node.target = iv
        *body, last = [s for s in node.body if not isinstance(s, ast.Pass)]
        assert isinstance(last, ast.Assign)  # `NAMES = pl.yield_(...)`, already `NAMES = VALUES`
        results = _store(last.targets[0])
        yielded = last.value if isinstance(last.value, ast.Tuple) else ast.Tuple([last.value], ast.Load())
        node.body = [*body, ast.Assign([_store(carried)], yielded)]
        return [ast.Assign([_store(carried)], inits), node, ast.Assign([results], _load(carried))]

    def visit_Assign(self, node: ast.Assign) -> Any:
        self.generic_visit(node)
        value = node.value
        if (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
                and value.func.attr == "yield_"):
            node.value = value.args[0] if len(value.args) == 1 else ast.Tuple(value.args, ast.Load())
        return node



def _names(e: ast.expr) -> list[str]:
    return [n.id for n in ast.walk(e) if isinstance(n, ast.Name)]


def _store(e: ast.expr) -> ast.expr:
    return ast.Tuple([ast.Name(n, ast.Store()) for n in _names(e)], ast.Store())


def _load(e: ast.expr) -> ast.expr:
    return ast.Tuple([ast.Name(n, ast.Load()) for n in _names(e)], ast.Load())


def python_model(source: str) -> str:
    """The kernel as a plain Python function `kernel(a, n, out)`."""
    tree = ast.parse(source)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef))
    fn = cls.body[0]
    assert isinstance(fn, ast.FunctionDef)
    fn.decorator_list = []
    fn.returns = None
    fn.args.args = [ast.arg(a.arg) for a in fn.args.args[1:]]
    for sub in ast.walk(fn):
        if isinstance(sub, ast.AnnAssign):
            raise AssertionError("the generator writes no annotations")
    fn = _ToPython().visit(fn)
    module = ast.Module([fn], [])
    ast.fix_missing_locations(module)
    return ast.unparse(module)


def run_python(source: str, args: dict[str, Any]) -> tuple[Any, ...]:
    namespace: dict[str, Any] = {"pl": _Pl, "_wrap": _wrap}
    exec(compile(python_model(source), "<model>", "exec"), namespace)
    result = namespace["kernel"](**args)
    return tuple(result)


__all__ = ["kernel_from_seed", "kernels", "python_model", "run_python"]
