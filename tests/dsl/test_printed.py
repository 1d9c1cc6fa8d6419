"""What the reference prints at the hand-off point (`05-decisions.md` item 12, issue 16).

Groups: every file of `tests/data/printed/` (the reference's printed IR of this project's
kernels, `tools/gen_printed.py`) parses and round-trips; one Before / Expected case per
printed form (the source, and the canonical text slotsat prints for it); the forms slotsat
hoists (nested calls, `return pl.op(...)`); above-tile constructs are one error that names
`--via-pypto`; names outside the reference's op set.
"""

# ruff: noqa: E501  (printed IR is one statement per line, never wrapped)
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from slotsat.core import ir
from slotsat.core.dsl import parse_file, parse_source, print_module
from slotsat.core.errors import SlotsatError

REPO = Path(__file__).resolve().parents[2]
PRINTED = sorted((REPO / "tests" / "data" / "printed").glob("*.py"))


def test_the_printed_corpus_is_there() -> None:
    assert len([p for p in PRINTED if p.name.endswith(".pre.py")]) >= 8


@pytest.mark.parametrize("path", PRINTED, ids=[p.name for p in PRINTED])
def test_printed_file_round_trips(path: Path) -> None:
    module = parse_file(path)
    text = print_module(module)
    again = parse_source(text, f"{path.name} (printed)")
    ir.assert_structural_equal(module, again)
    assert print_module(again) == text


def canonical(source: str) -> str:
    """Parse, check the round trip, return the printed text without the program header."""
    module = parse_source(textwrap.dedent(source))
    text = print_module(module)
    again = parse_source(text)
    ir.assert_structural_equal(module, again)
    assert print_module(again) == text
    lines = text.split("\n")
    return "\n".join(lines[lines.index("@pl.program") + 2:])


def program(body: str, prelude: str = "") -> str:
    return f"import pypto.language as pl\n{prelude}\n@pl.program\nclass P:\n" + textwrap.indent(
        textwrap.dedent(body).strip("\n") + "\n", "    ")


AIV = "@pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)"
T = "pl.Tensor[[256, 64], pl.FP32]"
TILE = "pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec]"

CASES: list[tuple[str, str, str]] = [
    (
        "subworker-without-self",
        f"""
        {AIV}
        def k(x: {T}, out: pl.Out[{T}]) -> {T}:
            t: {TILE} = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
            o: {T} = pl.tile.store(t, [0, 0], out)
            return out
        """,
        f"""
            {AIV}
            def k(x: {T}, out: pl.Out[{T}]) -> {T}:
                t: {TILE} = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
                o: {T} = pl.tile.store(t, [0, 0], out)
                return out
        """,
    ),
    (
        "decorator-keywords-and-func-attr",
        f"""
        @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator,
                     strict_ssa=True, auto_scope=False)
        def main(self, x: {T}) -> {T}:
            pl.func_attr({{"slot_num": 2, "split_aiv": True, "dtype": pl.FP16}})
            return x
        """,
        f"""
            @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator, auto_scope=False)
            def main(self, x: {T}) -> {T}:
                pl.func_attr({{"slot_num": 2, "split_aiv": True, "dtype": pl.FP16}})
                return x
        """,
    ),
    (
        "out-without-return-and-inout",
        f"""
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: {T}, out: pl.Out[{T}], io: pl.InOut[{T}]):
            t: {TILE} = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
            pl.tile.store(t, [0, 0], out)
        """,
        f"""
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, x: {T}, out: pl.Out[{T}], io: pl.InOut[{T}]):
                t: {TILE} = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
                pl.tile.store(t, [0, 0], out)
        """,
    ),
    (
        "abstract-kernel",
        f"""
        @pl.function(type=pl.FunctionType.AIV, external_source="k.cpp")
        def k(self, x: {T}) -> {T}:
            ...
        """,
        f"""
            @pl.function(type=pl.FunctionType.AIV, external_source="k.cpp")
            def k(self, x: {T}) -> {T}:
                ...
        """,
    ),
    (
        "nested-call-and-return-call",
        f"""
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: {T}) -> {TILE}:
            t: {TILE} = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
            return pl.tile.exp(pl.tile.adds(t, 1.0))
        """,
        f"""
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, x: {T}) -> {TILE}:
                t: {TILE} = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
                t__tmp_v0: {TILE} = pl.tile.adds(t, 1.0)
                t__tmp_v1: {TILE} = pl.tile.exp(t__tmp_v0)
                return t__tmp_v1
        """,
    ),
    (
        "symbolic-and-expression-dims",
        """
        @pl.function
        def k(self, x: pl.Tensor[[N, M * 2], pl.BF16], n: pl.Scalar[pl.INDEX],
              y: pl.Tensor[[n * pl.const(64, pl.INDEX), pl.const(8, pl.INDEX) * pl.const(16, pl.INDEX)], pl.FP32]):
            pass
        """,
        """
            @pl.function
            def k(self, x: pl.Tensor[[N, M * 2], pl.BF16], n: pl.Scalar[pl.INDEX], y: pl.Tensor[[n * 64, 128], pl.FP32]):
                pass
        """,
    ),
    (
        "tile-view-fields-and-tensor-view",
        """
        @pl.function(type=pl.FunctionType.AIC)
        def k(self, a: pl.Tensor[[64, 64], pl.BF16, pl.TensorView(stride=[64, 1], layout=pl.TensorLayout.DN)],
              v: pl.Scalar[pl.INDEX]):
            t: pl.Tile[[16, 64], pl.BF16, pl.Mem.Mat, pl.TileView(valid_shape=[v, 64], blayout=pl.TileLayout.row_major, compact=pl.CompactMode.normal)] = pl.tile.load(a, [0, 0], [16, 64], [v, 64], target_memory=pl.Mem.Mat)
        """,
        """
            @pl.function(type=pl.FunctionType.AIC)
            def k(self, a: pl.Tensor[[64, 64], pl.BF16, pl.TensorView(stride=[64, 1], layout=pl.TensorLayout.DN)], v: pl.Scalar[pl.INDEX]):
                t: pl.Tile[[16, 64], pl.BF16, pl.Mem.Mat, pl.TileView(valid_shape=[v, 64], blayout=pl.TileLayout.row_major, compact=pl.CompactMode.normal)] = pl.tile.load(a, [0, 0], [16, 64], [v, 64], target_memory=pl.Mem.Mat)
        """,
    ),
    (
        "loops-while-and-scope",
        f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: {T}, n: pl.Scalar[pl.INT32]) -> {T}:
            for i, (a,) in pl.parallel(0, n, 2, init_values=(x,)):
                with pl.scope():
                    b: {T} = pl.tensor.create([256, 64], dtype=pl.FP32, layout=pl.TensorLayout.ND)
                    c: {T} = pl.yield_(b)
            for j in pl.unroll(4):
                pass
            for (k,) in pl.while_(init_values=(0,)):
                pl.cond(k < 10)
                k2: pl.Scalar[pl.INDEX] = k + 1
                kk: pl.Scalar[pl.INDEX] = pl.yield_(k2)
            while kk > 0 and not kk == 3:
                pass
            with pl.scope(mode=pl.ScopeMode.MANUAL):
                pass
            return c
        """,
        f"""
            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: {T}, n: pl.Scalar[pl.INT32]) -> {T}:
                for i, (a,) in pl.parallel(0, pl.cast(n, pl.INDEX), 2, init_values=(x,)):
                    with pl.scope():
                        b: {T} = pl.tensor.create([256, 64], dtype=pl.FP32, layout=pl.TensorLayout.ND)
                    c: {T} = pl.yield_(b)
                for j in pl.unroll(4):
                    pass
                for (k,) in pl.while_(init_values=(0,)):
                    pl.cond(k < 10)
                    k2: pl.Scalar[pl.INDEX] = k + 1
                    kk: pl.Scalar[pl.INDEX] = pl.yield_(k2)
                while kk > 0 and not kk == 3:
                    pass
                with pl.scope(mode=pl.ScopeMode.MANUAL):
                    pass
                return c
        """,
    ),
    (
        "calls-launches-tuples-and-arrays",
        f"""
        {AIV}
        def k(x: {T}, i: pl.Scalar[pl.INDEX]) -> {T}:
            return x

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: {T}):
            ret: pl.Tuple[{T}, pl.Scalar[pl.TASK_ID]] = pl.spmd_submit(self.k, x, 0, core_num=4, deps=[], attrs={{"arg_directions": [pl.adir.input, pl.adir.scalar]}})
            y: {T} = ret[0]
            tid: pl.Scalar[pl.TASK_ID] = ret[1]
            tids: pl.Array[4, pl.TASK_ID] = pl.array.create(4, dtype=pl.TASK_ID)
            u: pl.Array[4, pl.TASK_ID] = pl.array.update_element(tids, 0, tid)
            z = self.k(y, 1, attrs={{"dump_vars": [y]}})
            pl.system.fence()
        """,
        f"""
            {AIV}
            def k(x: {T}, i: pl.Scalar[pl.INDEX]) -> {T}:
                return x

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: {T}):
                ret: pl.Tuple[{T}, pl.Scalar[pl.TASK_ID]] = pl.spmd_submit(self.k, x, 0, core_num=4, deps=[], attrs={{"arg_directions": [pl.adir.input, pl.adir.scalar]}})
                y: {T} = ret[0]
                tid: pl.Scalar[pl.TASK_ID] = ret[1]
                tids: pl.Array[4, pl.TASK_ID] = pl.array.create(4, dtype=pl.TASK_ID)
                u: pl.Array[4, pl.TASK_ID] = pl.array.update_element(tids, 0, tid)
                z: {T} = self.k(y, 1, attrs={{"dump_vars": [y]}})
                pl.system.fence()
        """,
    ),
    (
        "scalar-operators-casts-and-min",
        """
        @pl.function
        def f(self, a: pl.Scalar[pl.INT32], u: pl.Scalar[pl.UINT32], x: pl.Scalar[pl.FP32]):
            b: pl.Scalar[pl.INT32] = -a
            c: pl.Scalar[pl.INT32] = ~a & 7 | a << 2 ^ a >> 1
            d: pl.Scalar[pl.FP32] = x / 2.0 + abs(x) ** 2.0
            e: pl.Scalar[pl.INDEX] = pl.min(pl.cast(a, pl.INDEX), 16) + pl.max(pl.cast(u, pl.INDEX), 0)
            g: pl.Scalar[pl.BOOL] = a < 3 or not (a == 4 and u > 2)
            h: pl.Scalar[pl.FP32] = pl.cast(a, pl.FP32)
        """,
        """
            @pl.function
            def f(self, a: pl.Scalar[pl.INT32], u: pl.Scalar[pl.UINT32], x: pl.Scalar[pl.FP32]):
                b: pl.Scalar[pl.INT32] = -a
                c: pl.Scalar[pl.INT32] = ~a & 7 | a << 2 ^ a >> 1
                d: pl.Scalar[pl.FP32] = x / pl.const(2.0, pl.FP32) + abs(x) ** pl.const(2.0, pl.FP32)
                e: pl.Scalar[pl.INDEX] = pl.min(pl.cast(a, pl.INDEX), 16) + pl.max(pl.cast(u, pl.INDEX), 0)
                g: pl.Scalar[pl.BOOL] = a < 3 or not (a == 4 and u > 2)
                h: pl.Scalar[pl.FP32] = pl.cast(a, pl.FP32)
        """,
    ),
    (
        "reference-op-forms",
        f"""
        {AIV}
        def k(x: {T}, out: pl.Out[{T}]) -> {T}:
            t: {TILE} = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
            h: pl.Tile[[64, 64], pl.BF16, pl.Mem.Vec] = pl.tile.cast(t, target_type=pl.BF16, mode='round')
            tmp: {TILE} = pl.tile.create([64, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            s: pl.Tile[[64, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_sum(t, tmp)
            z: {TILE} = pl.tile.full([64, 64], dtype=pl.FP32, value=0.0)
            m: pl.Tile[[64, 64], pl.FP32, pl.Mem.Left] = pl.tile.move(t, target_memory=pl.Mem.Left, blayout=pl.TileLayout.row_major)
            o: {T} = pl.tile.store(t, [0, 0], out, atomic=pl.AtomicType.Add)
            pl.tile.tpush_to_aic(t, split=0)
            return o
        """,
        f"""
            {AIV}
            def k(x: {T}, out: pl.Out[{T}]) -> {T}:
                t: {TILE} = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
                h: pl.Tile[[64, 64], pl.BF16, pl.Mem.Vec] = pl.tile.cast(t, target_type=pl.BF16, mode='round')
                tmp: {TILE} = pl.tile.create([64, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
                s: pl.Tile[[64, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_sum(t, tmp)
                z: {TILE} = pl.tile.full([64, 64], dtype=pl.FP32, value=0.0)
                m: pl.Tile[[64, 64], pl.FP32, pl.Mem.Left] = pl.tile.move(t, target_memory=pl.Mem.Left, blayout=pl.TileLayout.row_major)
                o: {T} = pl.tile.store(t, [0, 0], out, atomic=pl.AtomicType.Add)
                pl.tile.tpush_to_aic(t, split=0)
                return o
        """,
    ),
    (
        "hoisted-calls-in-headers-and-arguments",
        """
        @pl.function(type=pl.FunctionType.Orchestration)
        def per_rank(self, x: pl.Tensor[[8, 8], pl.FP32], r: pl.Scalar[pl.INDEX]):
            pass

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host(self, x: pl.Tensor[[4, 8, 8], pl.FP32]):
            for r in pl.range(pld.system.world_size()):
                self.per_rank(pl.tensor.slice(x, [1, 8, 8], [r, 0, 0], [], [0]), r, device=r)
        """,
        """
            @pl.function(type=pl.FunctionType.Orchestration)
            def per_rank(self, x: pl.Tensor[[8, 8], pl.FP32], r: pl.Scalar[pl.INDEX]):
                pass

            @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
            def host(self, x: pl.Tensor[[4, 8, 8], pl.FP32]):
                t__tmp_v0: pl.Scalar[pl.INT64] = pld.system.world_size()
                for r in pl.range(pl.cast(t__tmp_v0, pl.INDEX)):
                    t__tmp_v1: pl.Tensor[[8, 8], pl.FP32] = pl.tensor.slice(x, [1, 8, 8], [r, 0, 0], [], [0])
                    self.per_rank(t__tmp_v1, r, device=r)
        """,
    ),
    (
        "a-tuple-of-the-results-returned-whole",
        # the reference's FlattenCallExpr prints `return self.f(...)` of a two-result function so
        """
        @pl.function(type=pl.FunctionType.Orchestration)
        def two(self, x: pl.Tensor[[8], pl.FP32]) -> tuple[pl.Tensor[[8], pl.FP32], pl.Tensor[[8], pl.FP32]]:
            return x, x

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[8], pl.FP32]) -> tuple[pl.Tensor[[8], pl.FP32], pl.Tensor[[8], pl.FP32]]:
            t__tmp_v0: pl.Tuple[pl.Tensor[[8], pl.FP32], pl.Tensor[[8], pl.FP32]] = self.two(x)
            return t__tmp_v0

        @pl.function(type=pl.FunctionType.Orchestration)
        def nested(self, x: pl.Tensor[[8], pl.FP32]) -> tuple[pl.Tensor[[8], pl.FP32], pl.Tensor[[8], pl.FP32]]:
            return self.two(x)
        """,
        """
            @pl.function(type=pl.FunctionType.Orchestration)
            def two(self, x: pl.Tensor[[8], pl.FP32]) -> tuple[pl.Tensor[[8], pl.FP32], pl.Tensor[[8], pl.FP32]]:
                return x, x

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: pl.Tensor[[8], pl.FP32]) -> tuple[pl.Tensor[[8], pl.FP32], pl.Tensor[[8], pl.FP32]]:
                t__tmp_v0: pl.Tuple[pl.Tensor[[8], pl.FP32], pl.Tensor[[8], pl.FP32]] = self.two(x)
                return t__tmp_v0

            @pl.function(type=pl.FunctionType.Orchestration)
            def nested(self, x: pl.Tensor[[8], pl.FP32]) -> tuple[pl.Tensor[[8], pl.FP32], pl.Tensor[[8], pl.FP32]]:
                t__tmp_v0: pl.Tuple[pl.Tensor[[8], pl.FP32], pl.Tensor[[8], pl.FP32]] = self.two(x)
                return t__tmp_v0
        """,
    ),
    (
        "returns-in-branches",
        """
        @pl.function(type=pl.FunctionType.AIV)
        def k(self, i: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            if i == 0:
                return i
            else:
                return i + 1
        """,
        """
            @pl.function(type=pl.FunctionType.AIV)
            def k(self, i: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                if i == 0:
                    return i
                else:
                    return i + 1
        """,
    ),
]


@pytest.mark.parametrize(("name", "before", "expected"), CASES, ids=[c[0] for c in CASES])
def test_printed_form(name: str, before: str, expected: str) -> None:
    prelude = 'N = pl.dynamic("N")\n' if name == "symbolic-and-expression-dims" else ""
    got = canonical(program(before, prelude))
    assert got.strip("\n") == textwrap.indent(textwrap.dedent(expected).strip("\n"), "    ")


def test_symbolic_dimensions_print_their_declarations() -> None:
    src = program("""
        @pl.function
        def k(self, x: pl.Tensor[[N, M], pl.FP32]):
            pass
    """, 'N = pl.dynamic("N")\n')
    module = parse_source(src)
    assert [v.name_hint for v in module.programs[0].dynamic_vars] == ["M", "N"]
    text = print_module(module)
    assert 'M = pl.dynamic("M")\nN = pl.dynamic("N")\n\n@pl.program' in text


def test_a_symbolic_dimension_declared_twice_alike_is_one_dimension() -> None:
    """Python rebinds `N` to an equal `pl.dynamic("N")` (PyPTO's valid-shape tests repeat a
    declaration); another name for it stays an error."""
    body = """
        @pl.function
        def k(self, x: pl.Tensor[[N], pl.FP32]):
            pass
    """
    module = parse_source(program(body, 'N = pl.dynamic("N")\nN = pl.dynamic("N")\n'))
    assert [v.name_hint for v in module.programs[0].dynamic_vars] == ["N"]
    with pytest.raises(SlotsatError) as info:
        parse_source(program(body, 'N = pl.dynamic("N")\nN = pl.dynamic("M")\n'))
    assert info.value.message == "'N' is already defined at module level"


def test_an_index_parameter_shadowing_a_symbolic_dimension_keeps_its_name() -> None:
    """The reference makes an unbindable valid-shape symbol a parameter and keeps its
    `pl.dynamic()` declaration; its parser binds the symbol to the parameter. The print keeps
    the parameter's name, or the annotations naming it would not resolve in the reference
    (`B_1` is not defined)."""
    shadowing = program("""
        @pl.function(type=pl.FunctionType.AIV)
        def k(self, B: pl.Scalar[pl.INDEX], x: pl.Tensor[[B], pl.FP32]) -> pl.Scalar[pl.INDEX]:
            return B * 2

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[B], pl.FP32]):
            pass
    """, 'B = pl.dynamic("B")\n')
    module = parse_source(shadowing)
    text = print_module(module)
    assert "def k(self, B: pl.Scalar[pl.INDEX], x: pl.Tensor[[B], pl.FP32]) -> pl.Scalar[pl.INDEX]:" in text
    assert "return B * 2" in text
    assert "B_1" not in text
    ir.assert_structural_equal(parse_source(text), module)


def test_a_local_shadowing_a_symbolic_dimension_leaves_shapes_to_the_symbol() -> None:
    """The reference's type resolver reads a shape's name from the module first: after
    `M = pl.tensor.dim(a, 0)` in the body, `pl.Tensor[[M, 128], ...]` is still the symbol `M`
    (PyPTO's own dynamic-shape codegen test writes exactly this), while an expression reads
    the local. The local prints under a fresh name, so the print reads back the same."""
    shadowing = program("""
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[M, 128], pl.FP32], out: pl.Tensor[[M, 128], pl.FP32]) -> pl.Tensor[[M, 128], pl.FP32]:
            M = pl.tensor.dim(a, 0)
            for i, (acc,) in pl.range(0, M, 2, init_values=(out,)):
                t: pl.Tile[[2, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [i, 0], [2, 128])
                stored: pl.Tensor[[M, 128], pl.FP32] = pl.tile.store(t, [i, 0], acc)
                acc_next = pl.yield_(stored)
            return acc_next
    """, 'M = pl.dynamic("M")\n')
    module = parse_source(shadowing)
    fn = module.programs[0].functions[0]
    (symbol,) = {d for p in fn.params for d in p.type.shape if isinstance(d, ir.Var)}
    assert symbol.name_hint == "M"
    assert symbol not in fn.params
    text = print_module(module)
    assert "M_1: pl.Scalar[pl.INDEX] = pl.tensor.dim(a, 0)" in text
    assert "pl.range(0, M_1, 2" in text
    assert "stored: pl.Tensor[[M, 128], pl.FP32]" in text
    ir.assert_structural_equal(parse_source(text), module)


def test_module_constants_are_substituted() -> None:
    src = program("""
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[ROWS, COLS], pl.FP32]):
            t: pl.Tile[[BLOCK, COLS], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [BLOCK, 0], [BLOCK, COLS])
            u: pl.Tile[[BLOCK, COLS], pl.FP32, pl.Mem.Vec] = pl.tile.muls(t, SCALE)
    """, "ROWS = 256\nCOLS = 2 * 32\nBLOCK = ROWS // 4\nSCALE = 0.5\n")
    text = canonical(src)
    assert "def k(self, x: pl.Tensor[[256, 64], pl.FP32]):" in text
    assert "pl.tile.load(x, [64, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)" in text
    assert "pl.tile.muls(t, 0.5)" in text


def test_module_aliases_of_dsl_constants_are_substituted() -> None:
    """`DTYPE = pl.FP16` (and an alias of it), `PAD = pl.PadValue.max`: Python reads the module's
    globals, and so does the reference's parser; a parameter of the same name shadows one."""
    src = program("""
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[64, 64], DTYPE], DT: pl.Scalar[pl.INDEX]):
            t: pl.Tile[[64, 64], DT2, pl.Mem.Vec] = pl.tile.load(x, [DT, 0], [64, 64])
            u: pl.Tile[[64, 64], pl.FP16, pl.Mem.Vec, pl.TileView(pad=PAD)] = pl.tile.fillpad(t, pad_value=PAD)
    """, "DTYPE = pl.FP16\nDT2 = DTYPE\nDT = pl.FP32\nPAD = pl.PadValue.max\n")
    text = canonical(src)
    assert "def k(self, x: pl.Tensor[[64, 64], pl.FP16], DT: pl.Scalar[pl.INDEX]):" in text
    assert "t: pl.Tile[[64, 64], pl.FP16, pl.Mem.Vec] = pl.tile.load(x, [DT, 0], " in text
    assert "pl.TileView(pad=pl.PadValue.max)] = pl.tile.fillpad(t, pad_value=pl.PadValue.max)" in text


def test_a_module_alias_bound_twice_is_a_located_error() -> None:
    with pytest.raises(SlotsatError) as info:
        parse_source(program("""
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, x: pl.Tensor[[64, 64], DTYPE]):
                pass
        """, "DTYPE = pl.FP16\nDTYPE = pl.FP32\n"))
    assert (info.value.message, info.value.span.line) == ("'DTYPE' is already defined at module level", 3)


def test_an_empty_program_the_reference_printed() -> None:
    src = "# pypto.program: _jit_proj\nimport pypto.language as pl\n\n@pl.program\nclass _jit_proj:"
    module = parse_source(src)
    assert module.programs[0].name == "_jit_proj"
    assert module.programs[0].functions == ()
    assert print_module(module).endswith("class _jit_proj:\n    pass\n")


def test_a_yield_ending_a_scope_moves_after_it() -> None:
    src = program("""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
            for i, (a,) in pl.range(2, init_values=(x,)):
                with pl.scope():
                    b: pl.Tensor[[4], pl.FP32] = pl.tensor.create([4], dtype=pl.FP32, layout=pl.TensorLayout.ND)
                    c: pl.Tensor[[4], pl.FP32] = pl.yield_(b)
            return c
    """)
    loop = parse_source(src).programs[0].functions[0].body.stmts[0]
    assert isinstance(loop, ir.ForStmt)
    assert [type(s).__name__ for s in loop.body.stmts] == ["ScopeStmt", "YieldStmt"]


def test_a_name_bound_in_a_loop_may_appear_in_the_result_type() -> None:
    """The reference prints a loop result whose valid shape names a scalar of the body."""
    src = program("""
        @pl.function(type=pl.FunctionType.AIV)
        def k(self, x: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64, 64], pl.FP32]:
            z: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 64], dtype=pl.FP32, value=0.0)
            for i, (a,) in pl.range(4, init_values=(z,)):
                v: pl.Scalar[pl.INDEX] = pl.min(n - i, 16)
                t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[v, 64])] = pl.tile.load(x, [i, 0], [16, 64], [v, 64], target_memory=pl.Mem.Vec)
                r: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[v, 64])] = pl.yield_(t)
            return x
    """)
    module = parse_source(src)
    loop = module.programs[0].functions[0].body.stmts[1]
    assert isinstance(loop, ir.ForStmt)
    (result,) = loop.return_vars
    assert isinstance(result.type, ir.TileType)
    assert result.type.valid_shape is not None
    assert result.type.valid_shape[0] is loop.body.stmts[0].var  # type: ignore[union-attr]
    canonical(src)


def test_a_loop_result_has_its_printed_type_not_the_yielded_valid_shape() -> None:
    """The reference's loop result keeps its carried value's type: printed without a
    `pl.TileView`, it is the whole tile although the yielded value has a runtime valid shape
    (a store of it writes the whole tile). Unannotated results (a multi-value yield) take the
    carried values' types, as the reference's parser infers them from the iter_args."""
    src = program("""
        @pl.function(type=pl.FunctionType.AIV)
        def k(self, x: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64, 64], pl.FP32]:
            z: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 64], dtype=pl.FP32, value=0.0)
            for i, (a,) in pl.range(4, init_values=(z,)):
                t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[n, 64])] = pl.tile.load(x, [i, 0], [16, 64], [n, 64], target_memory=pl.Mem.Vec)
                r: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(t)
            for j, (b, c) in pl.range(4, init_values=(z, z)):
                u: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[n, 64])] = pl.tile.load(x, [j, 0], [16, 64], [n, 64], target_memory=pl.Mem.Vec)
                p, q = pl.yield_(u, c)
            return x
    """)
    body = parse_source(src).programs[0].functions[0].body.stmts
    whole = ir.TileType((16, 64), ir.DType.FP32, ir.MemorySpace.Vec)
    loops = [s for s in body if isinstance(s, ir.ForStmt)]
    assert [v.type for lp in loops for v in lp.return_vars] == [whole, whole, whole]
    canonical(src)


# --------------------------------------------------------------------------------------
# errors

ABOVE = ("is above tile level: slotsat reads the tile-level IR that PyPTO prints at the hand-off point "
         "(just before LowerPipelineToSlots); compile this kernel with --via-pypto")

def free_variable(name: str) -> str:
    """The error of a use printed free that resolves to no one binding (`Parser.free_var`)."""
    return (f"'{name}' is a free variable: the reference marks with '__FREE_VAR' a value its IR uses where "
            "no statement in scope defines it, and no one binding in scope carries its name, so there is no "
            "program here to read")


ERRORS: list[tuple[str, str, str, int, int]] = [
    ("jit", "import pypto.language as pl\n\n@pl.jit\ndef k(x: pl.Tensor[[4], pl.FP32]):\n    return x\n",
     f"@pl.jit function 'k' {ABOVE}", 3, 2),
    ("python-helper", "import pypto.language as pl\n\ndef helper(n):\n    return n * 2\n",
     f"the Python function 'helper' outside a @pl.program class {ABOVE}", 3, 1),
    ("with-at", program("""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[64, 64], pl.FP32]):
            with pl.at(level=pl.Level.CORE_GROUP):
                pass
    """), f"'with pl.at(...)' {ABOVE}", 7, 14),
    ("for-spmd", program("""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[64, 64], pl.FP32]):
            for b in pl.spmd(4):
                pass
    """), f"'for ... in pl.spmd(...)' {ABOVE}", 7, 18),
    ("tensor-slicing", program("""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[64, 64], pl.FP32]):
            y = x[0:32, 0:64]
    """), f"tensor slicing 'x[0:32, 0:64]' {ABOVE}", 7, 13),
    ("a-tuple-of-other-results", program("""
        @pl.function(type=pl.FunctionType.Orchestration)
        def two(self, x: pl.Tensor[[8], pl.FP32]) -> tuple[pl.Tensor[[8], pl.FP32], pl.Tensor[[8], pl.FP32]]:
            return x, x

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[8], pl.FP32]) -> tuple[pl.Tensor[[8], pl.FP32], pl.Tensor[[4], pl.FP32]]:
            return self.two(x)
    """), "return has 1 values but the function is annotated with 2", 11, 9),
    ("tensor-indexing", program("""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[2, 64], pl.FP32], r: pl.Scalar[pl.INDEX]):
            y = x[r]
    """), f"tensor slicing 'x[r]' {ABOVE}", 7, 13),
    ("slice-assignment", program("""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[64, 64], pl.FP32]):
            x[0:32, 0:64] = x
    """), f"tensor slicing 'x[0:32, 0:64]' {ABOVE}", 7, 9),
    ("array-element-write", program("""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[64], pl.FP32]):
            tids = pl.array.create(4, pl.TASK_ID)
            for n in pl.range(4):
                tids[n] = pl.array.get_element(tids, 0)
    """), f"the subscript write 'tids[n] = ...' {ABOVE}", 9, 13),
    ("inline-decorator", program("""
        @pl.inline
        def helper(self, x: pl.Tensor[[64, 64], pl.FP32]):
            pass
    """), f"@pl.inline function 'helper' {ABOVE}", 5, 6),
    ("a-tensor-reexport", program("""
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, src: pl.Tensor[[256, 128], pl.BF16]):
            kv = pl.create_l1([16, 128], pl.BF16)
    """), f"'pl.create_l1' (pl.tensor.create_l1) {ABOVE}", 7, 14),
    ("dump-tag", program("""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[64], pl.FP32]):
            pl.dump_tag(x)
    """), f"'pl.dump_tag' {ABOVE}", 7, 9),
    ("misspelled-op", program("""
        @pl.function
        def f(self, x: pl.Tensor[[64, 64], pl.FP32]):
            t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.lod(x, [0, 0], [64, 64])
    """), "unsupported DSL construct 'pl.tile.lod'; did you mean 'pl.tile.load'?", 7, 53),
    ("unknown-tensor-op", program("""
        @pl.function
        def f(self, x: pl.Tensor[[64, 64], pl.FP32]):
            d: pl.Scalar[pl.INDEX] = pl.tensor.dims(x, 0)
    """), "unsupported DSL construct 'pl.tensor.dims'; did you mean 'pl.tensor.dim'?", 7, 34),
    ("unknown-keyword", program("""
        @pl.function
        def f(self, x: pl.Tensor[[64, 64], pl.FP32]):
            d: pl.Scalar[pl.INDEX] = pl.tensor.dim(x, 0, mode=1)
    """), "pl.tensor.dim got an unexpected keyword 'mode' (it takes no keywords)", 7, 59),
    ("too-many-arguments", program("""
        @pl.function
        def f(self, x: pl.Tensor[[64, 64], pl.FP32]):
            d: pl.Scalar[pl.INDEX] = pl.tensor.dim(x, 0, 1)
    """), "pl.tensor.dim expects (tensor, axis), got pl.tensor.dim(x, 0, 1)", 7, 34),
    ("no-such-function", program("""
        @pl.function
        def f(self, x: pl.Tensor[[64, 64], pl.FP32]):
            self.g(x)
    """), "the program has no function 'g'", 7, 9),
    ("unannotated-unknown-result", program("""
        @pl.function
        def f(self, x: pl.Tensor[[64, 64], pl.FP32]):
            y = pl.tensor.create([4], dtype=pl.FP32, layout=pl.TensorLayout.NZ)
    """), "annotate the result of pl.tensor.create: slotsat cannot infer its type (write NAME: TYPE = "
          "pl.tensor.create(...))", 7, 13),
    # the reference's printer marks a use nothing in the function defines; with no binding of
    # its hint ('q') there is nothing its code generator could resolve it to
    ("free-var-without-binding", program("""
        @pl.function(type=pl.FunctionType.InCore)
        def f(self, x: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
            i__ssa_v0: pl.Scalar[pl.INDEX] = q_1__FREE_VAR + 1
            return x
    """), free_variable("q_1__FREE_VAR"), 7, 42),
    # two bindings could print from the hint 'cnt' ('cnt' and 'cnt_1'): no one reading
    ("free-var-ambiguous", program("""
        @pl.function(type=pl.FunctionType.InCore)
        def f(self, x: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
            cnt: pl.Scalar[pl.INDEX] = 0
            cnt_1: pl.Scalar[pl.INDEX] = 1
            i__ssa_v0: pl.Scalar[pl.INDEX] = cnt_2__FREE_VAR + 1
            return x
    """), free_variable("cnt_2__FREE_VAR"), 9, 42),
    # the hint's one binding is out of scope at the use (a loop variable after its loop)
    ("free-var-out-of-scope", program("""
        @pl.function(type=pl.FunctionType.InCore)
        def f(self, x: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
            for k in pl.range(4):
                j: pl.Scalar[pl.INDEX] = k + 1
            i__ssa_v0: pl.Scalar[pl.INDEX] = k_1__FREE_VAR + 1
            return x
    """), free_variable("k_1__FREE_VAR"), 9, 42),
]


@pytest.mark.parametrize(("name", "source", "message", "line", "col"), ERRORS, ids=[e[0] for e in ERRORS])
def test_error(name: str, source: str, message: str, line: int, col: int) -> None:
    with pytest.raises(SlotsatError) as info:
        parse_source(source, "k.py")
    assert (info.value.message, info.value.span.line, info.value.span.col) == (message, line, col)


def test_index_and_int64_mix_as_the_reference_prints_them() -> None:
    """The reference promotes scalar arithmetic to the wider dtype and, INDEX and INT64 being
    one 64-bit signed integer, prints no cast between them (`PromoteBinaryOperands`): the
    result has the left operand's dtype. slotsat reads that with the conversion explicit; a
    dimension given by an INT64 scalar is an INDEX dimension. A narrower integer is cast to the
    wider one (`test_reference_forms`); an integer and a float stay an error."""
    got = canonical(program(f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def k(self, c: pl.Tensor[[4], pl.INT64], a: {T}) -> {T}:
            n: pl.Scalar[pl.INT64] = pl.tensor.read(c, [0])
            for i in pl.range(4):
                off: pl.Scalar[pl.INDEX] = i * n
                wide: pl.Scalar[pl.INT64] = n + i
                buf: pl.Tensor[[16, n], pl.FP32] = pl.tensor.create([16, n], dtype=pl.FP32)
            return a
    """))
    assert "off: pl.Scalar[pl.INDEX] = i * pl.cast(n, pl.INDEX)" in got
    assert "wide: pl.Scalar[pl.INT64] = n + pl.cast(i, pl.INT64)" in got
    assert "buf: pl.Tensor[[16, n], pl.FP32]" in got  # a dimension prints bare, read back cast
    with pytest.raises(SlotsatError, match=r"operands of '\*' have dtypes pl.INDEX and pl.FP32; insert pl.cast"):
        parse_source(program(f"""
            @pl.function(type=pl.FunctionType.Orchestration)
            def k(self, n: pl.Scalar[pl.FP32], a: {T}) -> {T}:
                for i in pl.range(4):
                    off: pl.Scalar[pl.INDEX] = i * n
                return a
        """))


def test_a_free_variable_reads_as_the_reference_code_generator_reads_it() -> None:
    """The reference's Simplify pass rebuilds a while loop and leaves its condition and body
    reading the old iteration value, which its printer marks free under the name its rename
    map gives it (`i__iter_v1_1`, beside the header's `i__iter_v1`); its PTO code generator
    resolves the use by hint, to the loop's iteration value, and the device runs that (its
    while-loop system test, printed at the hand-off point). slotsat reads it the same way, and
    prints the resolved, well-formed program."""
    source = program("""
        @pl.function(type=pl.FunctionType.InCore)
        def f(self, x: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
            i__ssa_v0: pl.Scalar[pl.INDEX] = 0
            for (i__iter_v1,) in pl.while_(init_values=(i__ssa_v0,)):
                pl.cond(i__iter_v1_1__FREE_VAR < 4)
                i__ssa_v3: pl.Scalar[pl.INDEX] = i__iter_v1_1__FREE_VAR + 1
                i__rv_v2 = pl.yield_(i__ssa_v3)
            return x
    """)
    fn = parse_source(source, "k.py").programs[0].functions[0]
    loop = fn.body.stmts[1]
    assert isinstance(loop, ir.WhileStmt)
    carried = loop.iter_args[0].var
    assert isinstance(loop.cond, ir.Cmp)
    assert loop.cond.a is carried
    step = loop.body.stmts[0]
    assert isinstance(step, ir.AssignStmt)
    assert isinstance(step.value, ir.Add)
    assert step.value.a is carried
    printed = canonical(source)
    assert "FREE_VAR" not in printed
    assert "pl.cond(i__iter_v1 < 4)" in printed
    assert "= i__iter_v1 + 1" in printed
