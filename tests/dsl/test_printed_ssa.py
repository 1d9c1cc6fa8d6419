"""Where the reference's printed IR (decision 12) meets the SSA conversion (decision 11).

Printed IR is already SSA: its bindings come out as the source spells them, with no added
carried value or result. Hand-written source gets the conversion in the constructs the
printed IR brought along too: `while` loops, `with pl.scope():`, calls hoisted into
`t__tmp_vN` temporaries, returns ending the branches of a final `if`. Literal ranges apply
to printed IR as to hand-written source.
"""

# ruff: noqa: E501  (printed IR is one statement per line, never wrapped)
from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from slotsat.core import ir
from slotsat.core.dsl import parse_file, parse_source, print_module
from slotsat.core.errors import SlotsatError
from slotsat.core.interpreter import run_function

REPO = Path(__file__).resolve().parents[2]
PRINTED = sorted((REPO / "tests" / "data" / "printed").glob("*.py"))
TEMP = re.compile(r"t__tmp_v\d+")


def _binders(body: ir.SeqStmts) -> Iterator[ir.Var]:
    for s in body.stmts:
        if isinstance(s, ir.AssignStmt):
            yield s.var
        elif isinstance(s, ir.ForStmt):
            yield s.loop_var
            yield from (a.var for a in s.iter_args)
            yield from s.return_vars
            yield from _binders(s.body)
        elif isinstance(s, ir.WhileStmt):
            yield from (a.var for a in s.iter_args)
            yield from s.return_vars
            yield from _binders(s.body)
        elif isinstance(s, ir.IfStmt):
            yield from s.return_vars
            yield from _binders(s.then_body)
            if s.else_body is not None:
                yield from _binders(s.else_body)
        elif isinstance(s, ir.ScopeStmt):
            yield from _binders(s.body)


def _source_names(node: ast.FunctionDef) -> set[str]:
    return {a.arg for a in node.args.args} | {
        n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


@pytest.mark.parametrize("path", PRINTED, ids=[p.name for p in PRINTED])
def test_printed_ir_keeps_every_binding_as_the_reference_spelled_it(path: Path) -> None:
    """No binder of printed IR is one the conversion made: each is a name the source binds
    (once per function) or a hoisted call's temporary, and no loop gained a carried value."""
    tree = ast.parse(path.read_text())
    sources = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    module = parse_file(path)
    for fn in (f for p in module.programs for f in p.functions):
        names = _source_names(sources[fn.name])
        binders = [*fn.params, *_binders(fn.body)]
        hints = [v.name_hint for v in binders if v.name_hint != "_"]
        assert len(hints) == len(set(hints)), f"{fn.name}: a name bound twice"
        assert {h for h in hints if not TEMP.fullmatch(h)} <= names, fn.name
        loops = [n for n in ast.walk(sources[fn.name]) if isinstance(n, ast.For)]
        carried = sum(len(t.elts[1].elts) if isinstance(t, ast.Tuple) and len(t.elts) == 2
                      and isinstance(t.elts[1], ast.Tuple) else len(t.elts) if isinstance(t, ast.Tuple) else 0
                      for t in (loop.target for loop in loops))
        ir_carried = sum(len(s.iter_args) for s in ir.walk_stmts(fn.body)
                         if isinstance(s, ir.ForStmt | ir.WhileStmt))
        assert ir_carried == carried, fn.name


def program(body: str) -> str:
    return "import pypto.language as pl\n\n@pl.program\nclass P:\n" + textwrap.indent(
        textwrap.dedent(body).strip("\n") + "\n", "    ")


def canonical(source: str) -> str:
    """The printed text (after the class line); checks the round trip and idempotence."""
    module = parse_source(source)
    text = print_module(module)
    again = parse_source(text)
    ir.assert_structural_equal(module, again)
    assert print_module(again) == text
    lines = text.split("\n")
    return "\n".join(lines[lines.index("@pl.program") + 2:]).strip("\n")


def expected(text: str) -> str:
    return textwrap.indent(textwrap.dedent(text).strip("\n"), "    ")


TILE = "pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec]"
T = "pl.Tensor[[64, 64], pl.FP32]"
WHILE = program("""
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        s = n
        k = 0
        while s > 0:
            s = s - 1
            k = k + 2
        return k
""")


def test_a_while_loop_carries_the_names_its_body_rebinds() -> None:
    assert canonical(WHILE) == expected("""
        @pl.function
        def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            s: pl.Scalar[pl.INDEX] = n
            k: pl.Scalar[pl.INDEX] = 0
            for (k_1, s_1) in pl.while_(init_values=(k, s)):
                pl.cond(s_1 > 0)
                s_2: pl.Scalar[pl.INDEX] = s_1 - 1
                k_2: pl.Scalar[pl.INDEX] = k_1 + 2
                k_3, s_3 = pl.yield_(k_2, s_2)
            return k_3
    """)
    fn = parse_source(WHILE).programs[0].functions[0]
    for n in (0, 1, 5):
        assert run_function(fn, {"n": n}, physical=False) == (2 * n,)


def test_a_printed_while_loop_carries_what_its_body_rebinds_after_the_authors_values() -> None:
    src = program("""
        @pl.function
        def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            k = 0
            for (s,) in pl.while_(init_values=(n,)):
                pl.cond(s > 0)
                k = k + 1
                r = pl.yield_(s - 1)
            return k
    """)
    assert canonical(src) == expected("""
        @pl.function
        def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            k: pl.Scalar[pl.INDEX] = 0
            for (s, k_1) in pl.while_(init_values=(n, k)):
                pl.cond(s > 0)
                k_2: pl.Scalar[pl.INDEX] = k_1 + 1
                r, k_3 = pl.yield_(s - 1, k_2)
            return k_3
    """)
    fn = parse_source(src).programs[0].functions[0]
    assert run_function(fn, {"n": 4}, physical=False) == (4,)


def test_a_scope_binds_in_the_enclosing_block() -> None:
    """A name rebound inside `with pl.scope():` in a loop is carried by the loop; a name a
    scope rebinds is read after it without a result."""
    src = program(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def f(self, x: {T}, out: pl.Out[{T}]) -> {T}:
            t = pl.load(x, [0, 0], [64, 64])
            for i in pl.range(4):
                with pl.scope():
                    t = pl.add(t, t)
            with pl.scope():
                t = pl.exp(t)
            out = pl.store(t, [0, 0], out)
            return out
    """)
    assert canonical(src) == expected(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def f(self, x: {T}, out: pl.Out[{T}]) -> {T}:
            t: {TILE} = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
            for i, (t_1,) in pl.range(4, init_values=(t,)):
                with pl.scope():
                    t_2: {TILE} = pl.tile.add(t_1, t_1)
                t_3: {TILE} = pl.yield_(t_2)
            with pl.scope():
                t_4: {TILE} = pl.tile.exp(t_3)
            out_1: {T} = pl.tile.store(t_4, [0, 0], out)
            return out_1
    """)


def test_a_name_first_bound_in_a_loop_inside_a_scope_and_read_after_the_scope_escapes() -> None:
    src = program(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def f(self, x: {T}, out: pl.Out[{T}]) -> {T}:
            with pl.scope():
                for i in pl.range(4):
                    o = pl.store(pl.load(x, [0, 0], [64, 64]), [0, 0], out)
            return o
    """)
    assert canonical(src) == expected(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def f(self, x: {T}, out: pl.Out[{T}]) -> {T}:
            with pl.scope():
                for i, (o,) in pl.range(4, init_values=(out,)):
                    t__tmp_v0: {TILE} = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
                    o_1: {T} = pl.tile.store(t__tmp_v0, [0, 0], out)
                    o_2: {T} = pl.yield_(o_1)
            return o_2
    """)


def test_hoisted_temporaries_and_fresh_names_never_collide() -> None:
    """A temporary takes no name the source binds, and an SSA fresh name (`NAME_<n>`) is
    never of the temporaries' form: rebinding the source's own `t__tmp_v0` gives
    `t__tmp_v0_1`, and the hoisted calls skip `t__tmp_v0`."""
    src = program(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def f(self, x: {T}, out: pl.Out[{T}]) -> {T}:
            t__tmp_v0 = pl.load(x, [0, 0], [64, 64])
            t__tmp_v0 = pl.add(pl.exp(t__tmp_v0), pl.exp(t__tmp_v0))
            return pl.store(t__tmp_v0, [0, 0], out)
    """)
    assert canonical(src) == expected(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def f(self, x: {T}, out: pl.Out[{T}]) -> {T}:
            t__tmp_v0: {TILE} = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
            t__tmp_v1: {TILE} = pl.tile.exp(t__tmp_v0)
            t__tmp_v2: {TILE} = pl.tile.exp(t__tmp_v0)
            t__tmp_v0_1: {TILE} = pl.tile.add(t__tmp_v1, t__tmp_v2)
            t__tmp_v3: {T} = pl.tile.store(t__tmp_v0_1, [0, 0], out)
            return t__tmp_v3
    """)


def test_a_tile_cast_written_pl_cast_is_the_op() -> None:
    src = program(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def f(self, x: {T}, out: pl.Out[{T}]) -> {T}:
            t = pl.load(x, [0, 0], [64, 64])
            h = pl.cast(t, pl.FP16)
            return out
    """)
    assign = parse_source(src).programs[0].functions[0].body.stmts[1]
    assert isinstance(assign, ir.AssignStmt)
    assert isinstance(assign.value, ir.Call)
    assert assign.value.op == "tile.cast"
    assert assign.var.type == ir.TileType((64, 64), ir.DType.FP16, ir.MemorySpace.Vec)


def test_returns_ending_the_branches_of_a_final_if_discard_their_rebindings() -> None:
    src = program("""
        @pl.function
        def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            k = n
            if n > 0:
                k = k + 1
                return k
            else:
                k = k + 2
                return k
    """)
    assert canonical(src) == expected("""
        @pl.function
        def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            k: pl.Scalar[pl.INDEX] = n
            if n > 0:
                k_1: pl.Scalar[pl.INDEX] = k + 1
                return k_1
            else:
                k_2: pl.Scalar[pl.INDEX] = k + 2
                return k_2
    """)


EARLY_RETURNS = program("""
        @pl.function
        def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            k = n
            if n > 0:
                k = k + 1
                return k
            if n < -5:
                return k
            k = k * 3
            return k
""")
"""Two early returns: the statements after each if are its other branch."""


def test_an_early_return_makes_the_statements_after_its_if_the_other_branch() -> None:
    # the reference prints an early return as written: `if c: ...; return x`, then the rest
    assert canonical(EARLY_RETURNS) == expected("""
        @pl.function
        def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            k: pl.Scalar[pl.INDEX] = n
            if n > 0:
                k_1: pl.Scalar[pl.INDEX] = k + 1
                return k_1
            else:
                if n < -5:
                    return k
                else:
                    k_2: pl.Scalar[pl.INDEX] = k * 3
                    return k_2
    """)


def test_an_early_return_in_the_else_branch_makes_the_rest_the_then_branch() -> None:
    src = program("""
        @pl.function
        def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            k = n
            if n > 0:
                k = k + 1
            else:
                return k
            return k * 2
    """)
    assert canonical(src) == expected("""
        @pl.function
        def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            k: pl.Scalar[pl.INDEX] = n
            if n > 0:
                k_1: pl.Scalar[pl.INDEX] = k + 1
                return k_1 * 2
            else:
                return k
    """)


ERRORS: list[tuple[str, str, str, int, int]] = [
    ("both-branches-return-before-more-statements", """
        @pl.function
        def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            if n > 0:
                return n
            else:
                return n + 1
            return n
     """, "a return may end an if branch only when the if is the last statement of the function", 8, 13),
    ("a-rebinding-the-returning-branch-cannot-yield", """
        @pl.function
        def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            k = n
            if n > 0:
                return k
            else:
                k = k + 2
     """, "'k' is rebound in the if at 8:9, one of whose branches ends with return, so the if would need "
          "a result that branch never yields; bind 'k' after the if instead", 8, 9),
    ("while-rebinding-another-type", """
        @pl.function
        def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            k = n
            while k > 0:
                k = pl.cast(k, pl.INT32)
            return n
     """, "Cannot reassign 'k' with a different type: was pl.Scalar[pl.INDEX], got pl.Scalar[pl.INT32]", 9, 13),
    ("while-loop-variable-of-a-while-is-not-defined-after", """
        @pl.function
        def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            for (s,) in pl.while_(init_values=(n,)):
                pl.cond(s > 0)
                r = pl.yield_(s - 1)
            return s
     """, "'s' is not defined here (it is carried by the loop at 7:9; its result is the name its pl.yield_ "
          "binds)", 10, 16),
    # literal ranges apply to what the reference prints
    ("printed-tensor-dim-too-big", """
        @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
        def k(x: pl.Tensor[[9223372036854775808, 64], pl.FP32]):
            pass
     """, "integer literal 9223372036854775808 does not fit pl.INDEX (-9223372036854775808 to "
          "9223372036854775807)", 6, 25),
    ("printed-op-argument-too-big", """
        @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
        def k(x: pl.Tensor[[64, 64], pl.FP32]):
            d: pl.Scalar[pl.INDEX] = pl.tensor.dim(x, 18446744073709551616)
     """, "integer literal 18446744073709551616 does not fit pl.INDEX (-9223372036854775808 to "
          "9223372036854775807)", 7, 51),
    ("printed-call-attr-too-big", """
        @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
        def k(x: pl.Tensor[[64, 64], pl.FP32]):
            pl.func_attr({"n": 9223372036854775808})
     """, "integer literal 9223372036854775808 does not fit pl.INT64 (-9223372036854775808 to "
          "9223372036854775807)", 7, 28),
    ("printed-float-argument-infinite", """
        @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
        def k(x: pl.Tensor[[64, 64], pl.FP32]):
            z: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.full([64, 64], dtype=pl.FP32, value=1e999)
     """, "float literal 1e999 is not finite", 7, 97),
]


@pytest.mark.parametrize(("name", "body", "message", "line", "col"), ERRORS, ids=[e[0] for e in ERRORS])
def test_error(name: str, body: str, message: str, line: int, col: int) -> None:
    with pytest.raises(SlotsatError) as info:
        parse_source(program(body), "k.py")
    assert (info.value.message, info.value.span.line, info.value.span.col) == (message, line, col)


def test_the_while_conversion_computes_what_python_computes() -> None:
    """A while loop whose body rebinds two names (one of them in an if) and reads a name it
    does not rebind, against a plain Python run of the same loop."""
    src = program("""
        @pl.function
        def f(self, n: pl.Scalar[pl.INDEX], m: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            a = n
            b = 1
            while a < m:
                if a % 3 == 0:
                    b = b * 2
                else:
                    b = b + a
                a = a + 1
            return b
    """)
    fn = parse_source(src).programs[0].functions[0]

    def python(n: int, m: int) -> int:
        a, b = n, 1
        while a < m:
            b = b * 2 if a % 3 == 0 else b + a
            a += 1
        return b

    for n, m in ((0, 0), (0, 7), (2, 9), (5, 3)):
        assert run_function(fn, {"n": n, "m": m}, physical=False) == (python(n, m),)
    assert np.array_equal(run_function(fn, [1, 4], physical=False), [python(1, 4)])


def test_the_early_return_fold_computes_what_python_computes() -> None:
    fn = parse_source(EARLY_RETURNS).programs[0].functions[0]

    def python(n: int) -> int:
        k = n
        if n > 0:
            return k + 1
        if n < -5:
            return k
        return k * 3

    for n in (-9, -5, 0, 4):
        assert run_function(fn, {"n": n}, physical=False) == (python(n),)
