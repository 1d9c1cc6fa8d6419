"""SSA conversion in the front end (`05-decisions.md` item 11, `slotsat/core/dsl/ssa.py`).

Before/Expected, as PyPTO's own ConvertToSSA tests (`tests/ut/ir/transforms/
test_convert_to_ssa_pass.py` in PyPTO) are written: a non-SSA kernel is parsed, the SSA
kernel it must equal is parsed too, and the two are compared with
`ir.assert_structural_equal` (binders by position, names ignored). The cases follow the
reference's: rebinding, loop-carried values added where the reference adds them (sorted by
name, after the author's), sibling loops reusing a loop variable, `if` results for names a
branch rebinds (both branches, one branch, no `else`), escaping names, and the cases where
the reference leaves a free variable, which are errors here. Names: the first binding keeps
the author's name, later ones print `NAME_<n>`.
"""

from __future__ import annotations

import textwrap

import pytest

from slotsat.core import ir
from slotsat.core.dsl import parse_source, print_module
from slotsat.core.errors import EXIT_UNREADABLE, SlotsatError

SIGNATURE = (
    "self, a: pl.Tensor[[256, 64], pl.FP32], n: pl.Scalar[pl.INDEX], "
    "out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]"
)
TENSOR = "pl.Tensor[[256, 64], pl.FP32]"
SCALAR = "pl.Scalar[pl.INDEX]"


def source(body: str, ret: str = TENSOR) -> str:
    text = textwrap.indent(textwrap.dedent(body).strip("\n") + "\n", " " * 8)
    return (
        "import pypto.language as pl\n\n\n@pl.program\nclass P:\n"
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        f"    def kernel({SIGNATURE}) -> {ret}:\n" + text
    )


def function(body: str, ret: str = TENSOR) -> ir.Function:
    return parse_source(source(body, ret), "k.py").programs[0].functions[0]


def convert(before: str, expected: str, ret: str = TENSOR) -> ir.Function:
    """Parse both, compare them, and check the conversion prints as SSA that reads back
    equal; returns the converted function."""
    got = function(before, ret)
    want = function(expected, ret)
    ir.assert_structural_equal(got, want)
    module = parse_source(source(before, ret), "k.py")
    text = print_module(module)
    again = parse_source(text, "printed.py")
    ir.assert_structural_equal(module, again)
    assert print_module(again) == text
    return got


def printed(body: str, ret: str = TENSOR) -> str:
    """The converted kernel's printed body (the lines after the signature)."""
    text = print_module(parse_source(source(body, ret), "k.py"))
    return textwrap.dedent(text.split(f"-> {ret}:\n", 1)[1])


LOAD = "pl.load(a, [0, 0], [64, 64])"


# --------------------------------------------------------------------------------------
# straight-line code


def test_a_single_rebinding_gets_a_fresh_binder() -> None:
    convert(
        f"""
        t = {LOAD}
        t = pl.exp(t)
        out = pl.store(t, [0, 0], out)
        return out
        """,
        f"""
        t = {LOAD}
        t_1 = pl.exp(t)
        out_1 = pl.store(t_1, [0, 0], out)
        return out_1
        """,
    )


def test_a_right_hand_side_reads_the_previous_binding() -> None:
    convert(
        f"""
        t = {LOAD}
        t = pl.mul(t, t)
        t = pl.add(t, t)
        r = pl.store(t, [0, 0], out)
        return r
        """,
        f"""
        t = {LOAD}
        t1 = pl.mul(t, t)
        t2 = pl.add(t1, t1)
        r = pl.store(t2, [0, 0], out)
        return r
        """,
    )


def test_interleaved_rebindings_of_two_names() -> None:
    convert(
        """
        x = n + 1
        y = n * 2
        x = x + 3
        y = y * 4
        z = x + y
        return z
        """,
        """
        x0 = n + 1
        y0 = n * 2
        x1 = x0 + 3
        y1 = y0 * 4
        z = x1 + y1
        return z
        """,
        SCALAR,
    )


def test_a_parameter_can_be_rebound() -> None:
    convert(
        """
        n = n + 1
        for i in pl.range(4):
            n = n + i
        return n
        """,
        """
        n1 = n + 1
        for i, (n2,) in pl.range(4, init_values=(n1,)):
            n3 = n2 + i
            n4 = pl.yield_(n3)
        return n4
        """,
        SCALAR,
    )


def test_ssa_source_is_unchanged_and_keeps_its_names() -> None:
    body = f"""
        t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = {LOAD}
        e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(t)
        r: pl.Tensor[[256, 64], pl.FP32] = pl.store(e, [0, 0], out)
        return r
        """
    convert(body, body)
    assert "t_1" not in printed(body)


def test_later_bindings_print_name_underscore_n_and_skip_names_the_source_uses() -> None:
    text = printed(
        f"""
        t_1 = {LOAD}
        t = pl.exp(t_1)
        t = pl.exp(t)
        t = pl.exp(t)
        r = pl.store(t, [0, 0], out)
        return r
        """
    )
    assert text.splitlines()[:4] == [
        "t_1: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = "
        "pl.tile.load(a, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)",
        "t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t_1)",
        "t_2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)",
        "t_3: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t_2)",
    ]


def test_suffixed_names_from_the_reference_are_kept_as_they_are() -> None:
    text = printed(
        """
        x__ssa_v0: pl.Scalar[pl.INDEX] = n + 1
        for i__idx_v0, (x__iter_v1,) in pl.range(4, init_values=(x__ssa_v0,)):
            x__ssa_v3: pl.Scalar[pl.INDEX] = x__iter_v1 + i__idx_v0
            x__rv_v2: pl.Scalar[pl.INDEX] = pl.yield_(x__ssa_v3)
        return x__rv_v2
        """,
        SCALAR,
    )
    assert text.splitlines() == [
        "x__ssa_v0: pl.Scalar[pl.INDEX] = n + 1",
        "for i__idx_v0, (x__iter_v1,) in pl.range(4, init_values=(x__ssa_v0,)):",
        "    x__ssa_v3: pl.Scalar[pl.INDEX] = x__iter_v1 + i__idx_v0",
        "    x__rv_v2: pl.Scalar[pl.INDEX] = pl.yield_(x__ssa_v3)",
        "return x__rv_v2",
    ]


def test_a_rebinding_keeps_the_type_with_the_references_wording() -> None:
    with pytest.raises(SlotsatError) as info:
        function(
            """
            x = n + 1
            x = pl.cast(x, pl.INT32)
            return n
            """,
            SCALAR,
        )
    assert info.value.message == (
        "Cannot reassign 'x' with a different type: was pl.Scalar[pl.INDEX], got pl.Scalar[pl.INT32]"
    )
    assert (info.value.span.line, info.value.span.col, info.value.exit_status) == (9, 9, EXIT_UNREADABLE)


# --------------------------------------------------------------------------------------
# loops


def test_a_name_rebound_in_a_loop_becomes_a_carried_value() -> None:
    fn = convert(
        f"""
        acc = {LOAD}
        for i in pl.range(1, 4):
            t = pl.load(a, [i * 64, 0], [64, 64])
            acc = pl.add(acc, t)
        r = pl.store(acc, [0, 0], out)
        return r
        """,
        f"""
        acc = {LOAD}
        for i, (acc_it,) in pl.range(1, 4, init_values=(acc,)):
            t = pl.load(a, [i * 64, 0], [64, 64])
            acc_new = pl.add(acc_it, t)
            acc_rv = pl.yield_(acc_new)
        r = pl.store(acc_rv, [0, 0], out)
        return r
        """,
    )
    loop = fn.body.stmts[1]
    assert isinstance(loop, ir.ForStmt)
    assert [v.name_hint for v in (loop.iter_args[0].var, *loop.return_vars)] == ["acc_1", "acc_3"]


def test_a_name_rebound_in_an_unroll_loop_is_carried_and_reads_back() -> None:
    """The reference unrolls `pl.unroll` loops before its SSA conversion, so its DSL never needs
    `init_values` there; slotsat converts first, carries the rebound name, and prints the loop
    with `init_values`, which it reads back (the round trip failed on exactly that)."""
    fn = convert(
        f"""
        acc = {LOAD}
        for i in pl.unroll(3):
            acc = pl.add(acc, acc)
        r = pl.store(acc, [0, 0], out)
        return r
        """,
        f"""
        acc = {LOAD}
        for i, (acc_it,) in pl.unroll(3, init_values=(acc,)):
            acc_new = pl.add(acc_it, acc_it)
            acc_rv = pl.yield_(acc_new)
        r = pl.store(acc_rv, [0, 0], out)
        return r
        """,
    )
    loop = fn.body.stmts[1]
    assert isinstance(loop, ir.ForStmt)
    assert (loop.kind, len(loop.iter_args)) == (ir.ForKind.UNROLL, 1)


def test_carried_values_are_sorted_by_name_after_the_authors() -> None:
    convert(
        """
        b = n * 2
        a2 = n + 1
        for i, (s,) in pl.range(3, init_values=(n,)):
            b = b * 3
            a2 = a2 + i
            s2 = s + b
            res = pl.yield_(s2)
        z = a2 + b + res
        return z
        """,
        """
        b = n * 2
        a2 = n + 1
        for i, (s, a2_it, b_it) in pl.range(3, init_values=(n, a2, b)):
            b_new = b_it * 3
            a2_new = a2_it + i
            s2 = s + b_new
            res, a2_rv, b_rv = pl.yield_(s2, a2_new, b_new)
        z = a2_rv + b_rv + res
        return z
        """,
        SCALAR,
    )


def test_a_loop_without_rebindings_gets_no_carried_values() -> None:
    convert(
        """
        for i in pl.range(5):
            t = pl.load(a, [i * 64, 0], [64, 64])
            pl.store(t, [i * 64, 0], out)
        return out
        """,
        """
        for i in pl.range(5):
            t = pl.load(a, [i * 64, 0], [64, 64])
            pl.store(t, [i * 64, 0], out)
        return out
        """,
    )


def test_a_value_rebound_but_unused_after_the_loop_is_still_carried() -> None:
    convert(
        """
        x = n
        for i in pl.range(4):
            x = i
        return n
        """,
        """
        x = n
        for i, (x_it,) in pl.range(4, init_values=(x,)):
            x_new = i
            x_rv = pl.yield_(x_new)
        return n
        """,
        SCALAR,
    )


def test_sibling_loops_reuse_a_loop_variable_and_body_names() -> None:
    fn = convert(
        f"""
        acc = {LOAD}
        for i in pl.pipeline(1, 4, stage=2):
            t = pl.load(a, [i * 64, 0], [64, 64])
            acc = pl.add(acc, t)
        for i in pl.pipeline(4, stage=2):
            t = pl.load(a, [i * 64, 0], [64, 64])
            t = pl.mul(t, acc)
            out = pl.store(t, [i * 64, 0], out)
        return out
        """,
        f"""
        acc = {LOAD}
        for i, (acc1,) in pl.pipeline(1, 4, stage=2, init_values=(acc,)):
            t = pl.load(a, [i * 64, 0], [64, 64])
            acc2 = pl.add(acc1, t)
            acc3 = pl.yield_(acc2)
        for i2, (out1,) in pl.pipeline(4, stage=2, init_values=(out,)):
            t1 = pl.load(a, [i2 * 64, 0], [64, 64])
            t2 = pl.mul(t1, acc3)
            out2 = pl.store(t2, [i2 * 64, 0], out1)
            out3 = pl.yield_(out2)
        return out3
        """,
    )
    second = fn.body.stmts[2]
    assert isinstance(second, ir.ForStmt)
    assert second.loop_var.name_hint == "i_1"


def test_nested_loops_carry_through_both_levels() -> None:
    convert(
        """
        r = n
        for i in pl.range(3):
            for j in pl.range(2):
                r = r + j
        return r
        """,
        """
        r = n
        for i, (r1,) in pl.range(3, init_values=(r,)):
            for j, (r2,) in pl.range(2, init_values=(r1,)):
                r3 = r2 + j
                r4 = pl.yield_(r3)
            r5 = pl.yield_(r4)
        return r5
        """,
        SCALAR,
    )


def test_nested_loops_carry_what_each_level_rebinds() -> None:
    convert(
        """
        outer = n
        inner = n * 2
        for i in pl.range(2):
            for j in pl.range(3):
                inner = inner + 1
            outer = outer + inner
        return outer
        """,
        """
        outer = n
        inner = n * 2
        for i, (inner1, outer1) in pl.range(2, init_values=(inner, outer)):
            for j, (inner2,) in pl.range(3, init_values=(inner1,)):
                inner3 = inner2 + 1
                inner4 = pl.yield_(inner3)
            outer2 = outer1 + inner4
            inner5, outer3 = pl.yield_(inner4, outer2)
        return outer3
        """,
        SCALAR,
    )


def test_sequential_loops_chain_their_carried_values() -> None:
    convert(
        """
        r = n
        for i in pl.range(2):
            r = r + 1
        for j in pl.range(3):
            r = r * 2
        return r
        """,
        """
        r = n
        for i, (r1,) in pl.range(2, init_values=(r,)):
            r2 = r1 + 1
            r3 = pl.yield_(r2)
        for j, (r4,) in pl.range(3, init_values=(r3,)):
            r5 = r4 * 2
            r6 = pl.yield_(r5)
        return r6
        """,
        SCALAR,
    )


def test_loop_local_temporaries_of_sibling_loops_are_not_carried() -> None:
    """The reference's issue #592: `tmp` in two sibling loops is local to each."""
    convert(
        """
        x = n
        y = n * 2
        for i in pl.range(4):
            tmp = n + 1
            x = x + tmp
        for j in pl.range(4):
            tmp = n + 2
            y = y + tmp
        z = x + y
        return z
        """,
        """
        x = n
        y = n * 2
        for i, (x1,) in pl.range(4, init_values=(x,)):
            tmp = n + 1
            x2 = x1 + tmp
            x3 = pl.yield_(x2)
        for j, (y1,) in pl.range(4, init_values=(y,)):
            tmp1 = n + 2
            y2 = y1 + tmp1
            y3 = pl.yield_(y2)
        z = x3 + y3
        return z
        """,
        SCALAR,
    )


def test_a_value_created_fresh_in_each_iteration_is_not_carried() -> None:
    """The reference's issue #642 pattern."""
    convert(
        """
        r = n
        r = r * 3
        for b0 in pl.range(0, 16, 4):
            r = r * 2
        o = r * 2
        for b0 in pl.range(0, 16, 4):
            lv = b0 + 1
            lv = lv * 5
            for kb in pl.range(0, 40):
                lv = lv + 1
            tmp = lv * 3
        return o
        """,
        """
        r = n
        r1 = r * 3
        for b0, (r2,) in pl.range(0, 16, 4, init_values=(r1,)):
            r3 = r2 * 2
            r4 = pl.yield_(r3)
        o = r4 * 2
        for b1 in pl.range(0, 16, 4):
            lv = b1 + 1
            lv1 = lv * 5
            for kb, (lv2,) in pl.range(0, 40, init_values=(lv1,)):
                lv3 = lv2 + 1
                lv4 = pl.yield_(lv3)
            tmp = lv4 * 3
        return o
        """,
        SCALAR,
    )


def test_the_authors_init_values_come_first_and_the_body_may_rebind_its_carried_name() -> None:
    convert(
        """
        acc = n
        x = n
        for i, (acc,) in pl.range(4, init_values=(acc,)):
            acc = acc + i
            x = x + acc
            acc = pl.yield_(acc)
        z = acc + x
        return z
        """,
        """
        acc = n
        x = n
        for i, (acc1, x1) in pl.range(4, init_values=(acc, x)):
            acc2 = acc1 + i
            x2 = x1 + acc2
            acc3, x3 = pl.yield_(acc2, x2)
        z = acc3 + x3
        return z
        """,
        SCALAR,
    )


def test_rebinding_the_loop_variable_is_not_carried() -> None:
    convert(
        """
        x = n
        for i in pl.range(4):
            i = i + 1
            x = x + i
        return x
        """,
        """
        x = n
        for i, (x1,) in pl.range(4, init_values=(x,)):
            i1 = i + 1
            x2 = x1 + i1
            x3 = pl.yield_(x2)
        return x3
        """,
        SCALAR,
    )


def test_a_yield_target_that_rebinds_a_name_is_carried_by_the_enclosing_loop() -> None:
    """The reference leaves a free variable here; Python's rebinding semantics carry `r`."""
    convert(
        """
        r = n
        for i in pl.range(4):
            for j, (c,) in pl.range(3, init_values=(r,)):
                c2 = c + j
                r = pl.yield_(c2)
        return r
        """,
        """
        r = n
        for i, (r1,) in pl.range(4, init_values=(r,)):
            for j, (c,) in pl.range(3, init_values=(r1,)):
                c2 = c + j
                r2 = pl.yield_(c2)
            r3 = pl.yield_(r2)
        return r3
        """,
        SCALAR,
    )


def test_a_store_into_the_output_rebinding_it_is_carried() -> None:
    convert(
        """
        for i in pl.pipeline(4, stage=2):
            t = pl.load(a, [i * 64, 0], [64, 64])
            out = pl.store(t, [i * 64, 0], out)
        return out
        """,
        """
        for i, (o,) in pl.pipeline(4, stage=2, init_values=(out,)):
            t = pl.load(a, [i * 64, 0], [64, 64])
            o2 = pl.store(t, [i * 64, 0], o)
            o3 = pl.yield_(o2)
        return o3
        """,
    )


# --------------------------------------------------------------------------------------
# escaping names (first bound inside a loop, read after it)


def test_an_escaping_store_result_is_carried_from_the_output_parameter() -> None:
    convert(
        """
        for i in pl.range(4):
            t = pl.load(a, [i * 64, 0], [64, 64])
            res = pl.store(t, [i * 64, 0], out)
        return res
        """,
        """
        for i, (res,) in pl.range(4, init_values=(out,)):
            t = pl.load(a, [i * 64, 0], [64, 64])
            res1 = pl.store(t, [i * 64, 0], out)
            res2 = pl.yield_(res1)
        return res2
        """,
    )


def test_an_escaping_name_takes_the_output_parameters_current_binding() -> None:
    convert(
        """
        t0 = pl.load(a, [0, 0], [64, 64])
        out = pl.store(t0, [0, 0], out)
        for i in pl.range(4):
            res = pl.store(t0, [i * 64, 0], out)
        return res
        """,
        """
        t0 = pl.load(a, [0, 0], [64, 64])
        out1 = pl.store(t0, [0, 0], out)
        for i, (res,) in pl.range(4, init_values=(out1,)):
            res1 = pl.store(t0, [i * 64, 0], out1)
            res2 = pl.yield_(res1)
        return res2
        """,
    )


def test_an_escaping_name_bound_in_one_branch_passes_its_carried_value_through() -> None:
    """The reference's issue #600: the branch that does not bind it yields the carried value."""
    convert(
        """
        for i in pl.range(4):
            if i % 2 != 0:
                pass
            else:
                t = pl.load(a, [i * 64, 0], [64, 64])
                res = pl.store(t, [i * 64, 0], out)
        return res
        """,
        """
        for i, (res,) in pl.range(4, init_values=(out,)):
            if i % 2 != 0:
                res2 = pl.yield_(res)
            else:
                t = pl.load(a, [i * 64, 0], [64, 64])
                res1 = pl.store(t, [i * 64, 0], out)
                res2 = pl.yield_(res1)
            res3 = pl.yield_(res2)
        return res3
        """,
    )


def test_an_escaping_name_is_carried_through_nested_loops() -> None:
    convert(
        """
        for i in pl.range(2):
            for j in pl.range(3):
                t = pl.load(a, [j * 64, 0], [64, 64])
                res = pl.store(t, [i * 64, 0], out)
        return res
        """,
        """
        for i, (res,) in pl.range(2, init_values=(out,)):
            for j, (res1,) in pl.range(3, init_values=(res,)):
                t = pl.load(a, [j * 64, 0], [64, 64])
                res2 = pl.store(t, [i * 64, 0], out)
                res3 = pl.yield_(res2)
            res4 = pl.yield_(res3)
        return res4
        """,
    )


def test_a_name_rebound_after_the_loop_does_not_escape() -> None:
    convert(
        """
        for i in pl.range(4):
            y = i + 1
        y = n + 7
        return y
        """,
        """
        for i in pl.range(4):
            y = i + 1
        y1 = n + 7
        return y1
        """,
        SCALAR,
    )


def test_a_loop_with_init_values_has_no_escaping_names() -> None:
    """As in the reference, where its body's names are undefined after it."""
    with pytest.raises(SlotsatError) as info:
        function(
            """
            for i, (c,) in pl.range(4, init_values=(out,)):
                t = pl.load(a, [i * 64, 0], [64, 64])
                nxt = pl.store(t, [i * 64, 0], c)
                res = pl.yield_(nxt)
            return nxt
            """
        )
    assert info.value.message == "'nxt' is not defined here (it is bound only inside the loop at 8:9)"
    assert (info.value.span.line, info.value.span.col) == (12, 16)


def test_an_escaping_name_without_an_output_of_its_type_is_an_error() -> None:
    """The reference would initialise it with a free variable."""
    with pytest.raises(SlotsatError) as info:
        function(
            """
            for i in pl.range(4):
                y = i + 1
            return y
            """,
            SCALAR,
        )
    assert info.value.message == (
        "'y' is bound inside the loop at 8:9 and read after it, but it has no value if the loop runs "
        "zero times; bind it before the loop"
    )
    assert (info.value.span.line, info.value.span.col) == (8, 9)


def test_an_escaping_name_read_before_it_is_bound_in_the_body_is_an_error() -> None:
    with pytest.raises(SlotsatError) as info:
        function(
            """
            for i in pl.range(4):
                r = res
                res = pl.store(pl.load(a, [0, 0], [64, 64]), [0, 0], out)
            return res
            """
        )
    assert info.value.message == "'res' is used before it is bound in the loop at 8:9"


# --------------------------------------------------------------------------------------
# ifs


def test_a_name_rebound_in_both_branches_becomes_an_if_result() -> None:
    convert(
        """
        x = n
        if n > 0:
            x = x * 2
        else:
            x = x + 1
        return x
        """,
        """
        x = n
        if n > 0:
            x1 = x * 2
            x3 = pl.yield_(x1)
        else:
            x2 = x + 1
            x3 = pl.yield_(x2)
        return x3
        """,
        SCALAR,
    )


def test_an_if_without_else_gets_an_else_that_yields_the_value_before_it() -> None:
    convert(
        """
        x = n
        if n > 3:
            x = x + 1
        return x
        """,
        """
        x = n
        if n > 3:
            x1 = x + 1
            x2 = pl.yield_(x1)
        else:
            x2 = pl.yield_(x)
        return x2
        """,
        SCALAR,
    )


def test_an_empty_branch_yields_the_value_before_the_if() -> None:
    """The reference's issue #561 case."""
    convert(
        """
        r = n
        for i in pl.range(10):
            if i > 5:
                pass
            else:
                r = r + 1
        return r
        """,
        """
        r = n
        for i, (r1,) in pl.range(10, init_values=(r,)):
            if i > 5:
                r3 = pl.yield_(r1)
            else:
                r2 = r1 + 1
                r3 = pl.yield_(r2)
            r4 = pl.yield_(r3)
        return r4
        """,
        SCALAR,
    )


def test_a_name_new_in_both_branches_becomes_an_if_result() -> None:
    convert(
        """
        s = n
        for i in pl.range(4):
            if i > 1:
                z = i + 1
            else:
                z = i + 2
            s = s + z
        return s
        """,
        """
        s = n
        for i, (s1,) in pl.range(4, init_values=(s,)):
            if i > 1:
                z = i + 1
                z2 = pl.yield_(z)
            else:
                z1 = i + 2
                z2 = pl.yield_(z1)
            s2 = s1 + z2
            s3 = pl.yield_(s2)
        return s3
        """,
        SCALAR,
    )


def test_branches_rebinding_different_names_yield_both_sorted() -> None:
    convert(
        """
        b = n * 2
        a2 = n
        for i in pl.range(1):
            if i == 0:
                a2 = a2 + 1
            else:
                b = b + 1
        z = a2 + b
        return z
        """,
        """
        b = n * 2
        a2 = n
        for i, (a2_1, b_1) in pl.range(1, init_values=(a2, b)):
            if i == 0:
                a2_2 = a2_1 + 1
                a2_3, b_3 = pl.yield_(a2_2, b_1)
            else:
                b_2 = b_1 + 1
                a2_3, b_3 = pl.yield_(a2_1, b_2)
            a2_4, b_4 = pl.yield_(a2_3, b_3)
        z = a2_4 + b_4
        return z
        """,
        SCALAR,
    )


def test_for_if_for_nesting() -> None:
    convert(
        """
        x = n
        y = n * 2
        for i in pl.range(2):
            if i == 0:
                for j in pl.range(2):
                    x = x + 1
            else:
                y = y * 2
        z = x + y
        return z
        """,
        """
        x = n
        y = n * 2
        for i, (x1, y1) in pl.range(2, init_values=(x, y)):
            if i == 0:
                for j, (x2,) in pl.range(2, init_values=(x1,)):
                    x3 = x2 + 1
                    x4 = pl.yield_(x3)
                x5, y3 = pl.yield_(x4, y1)
            else:
                y2 = y1 * 2
                x5, y3 = pl.yield_(x1, y2)
            x6, y4 = pl.yield_(x5, y3)
        z = x6 + y4
        return z
        """,
        SCALAR,
    )


def test_an_if_with_explicit_yields_also_yields_the_names_it_rebinds_first() -> None:
    """The reference drops the rebound name's value here (its verifier then fails); Python's
    semantics give both results."""
    convert(
        """
        x = n
        if n > 0:
            x = n + 1
            y = pl.yield_(n)
        else:
            y = pl.yield_(x)
        z = x + y
        return z
        """,
        """
        x = n
        if n > 0:
            x1 = n + 1
            x2, y = pl.yield_(x1, n)
        else:
            x2, y = pl.yield_(x, x)
        z = x2 + y
        return z
        """,
        SCALAR,
    )


def test_a_name_new_in_an_explicitly_yielding_if_is_not_a_result() -> None:
    """As in the reference, where such a name is undefined after the if."""
    with pytest.raises(SlotsatError) as info:
        function(
            """
            if n > 0:
                z = n + 1
                y = pl.yield_(n)
            else:
                z = n + 2
                y = pl.yield_(n)
            w = y + z
            return w
            """,
            SCALAR,
        )
    assert info.value.message == (
        "'z' is not defined here (it is bound inside the if at 8:9, whose results are the names its "
        "pl.yield_ binds)"
    )


def test_branch_types_of_a_new_name_must_agree() -> None:
    with pytest.raises(SlotsatError) as info:
        function(
            """
            if n > 0:
                z = n + 1
            else:
                z = pl.cast(n, pl.INT32)
            return n
            """,
            SCALAR,
        )
    assert info.value.message == (
        "'z' has type pl.Scalar[pl.INDEX] in the then branch and pl.Scalar[pl.INT32] in the else branch "
        "of the if at 8:9"
    )


# --------------------------------------------------------------------------------------
# no value: the cases where the reference leaves a free variable


@pytest.mark.parametrize(
    ("body", "message", "line", "col"),
    [
        (
            "for i in pl.range(4):\n    pass\nreturn i",
            "'i' is not defined here (it is the loop variable of the loop at 8:9)",
            10,
            16,
        ),
        (
            "if n > 0:\n    z = n + 1\nreturn z",
            "'z' is not defined here (it is bound in only one branch of the if at 8:9)",
            10,
            16,
        ),
        (
            "for i, (c,) in pl.range(4, init_values=(n,)):\n    c2 = c + 1\n    r = pl.yield_(c2)\nreturn c",
            "'c' is not defined here (it is carried by the loop at 8:9; its result is the name its "
            "pl.yield_ binds)",
            11,
            16,
        ),
        (
            "for _ in pl.range(4):\n    x = _\nreturn n",
            "'_' is not defined here (a loop variable spelled _ cannot be read)",
            9,
            9 + 8,
        ),
        (
            "j = n\nfor i in pl.range(4):\n    for j in pl.range(3):\n        pass\nreturn j",
            "'j' is carried by the loop at 9:9, but it has no value at the end of the loop body (it is "
            "the loop variable of the loop at 10:13)",
            9,
            9,
        ),
    ],
    ids=["loop-variable-after-loop", "one-branch", "own-carried-name", "underscore", "shadowed-carried"],
)
def test_a_name_without_a_value_is_a_located_error(body: str, message: str, line: int, col: int) -> None:
    with pytest.raises(SlotsatError) as info:
        function(body, SCALAR)
    assert (info.value.message, info.value.span.line, info.value.span.col) == (message, line, col)
    assert info.value.exit_status == EXIT_UNREADABLE


# --------------------------------------------------------------------------------------
# allocation names derived from tiles


def test_a_derived_allocation_is_pipe_plus_the_tiles_name_as_it_stands() -> None:
    from slotsat.lowering.lower_pipeline_to_slots import LowerPipelineToSlots

    module = parse_source(
        source(
            """
            for i in pl.pipeline(4, stage=2):
                t = pl.load(a, [i * 64, 0], [64, 64])
                out = pl.store(t, [i * 64, 0], out)
            for i in pl.pipeline(4, stage=2):
                t = pl.load(a, [i * 64, 0], [64, 64])
                out = pl.store(t, [i * 64, 0], out)
            for i__idx_v0, (o__iter_v1,) in pl.pipeline(4, stage=2, init_values=(out,)):
                t__ssa_v0: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i__idx_v0 * 64, 0], [64, 64])
                o__ssa_v2: pl.Tensor[[256, 64], pl.FP32] = pl.store(t__ssa_v0, [i__idx_v0 * 64, 0],
                                                                    o__iter_v1)
                o__rv_v3: pl.Tensor[[256, 64], pl.FP32] = pl.yield_(o__ssa_v2)
            return o__rv_v3
            """
        ),
        "k.py",
    )
    fn = LowerPipelineToSlots().run(module.programs[0].functions[0]).function
    text = print_module(ir.Module((ir.Program("P", (fn,)),)))
    assert 't: pl.Tile[[64, 64], pl.FP32, pl.MemRef("pipe_t", slots=2)[i % 2], pl.Mem.Vec]' in text
    assert 't_1: pl.Tile[[64, 64], pl.FP32, pl.MemRef("pipe_t_1", slots=2)[i_1 % 2], pl.Mem.Vec]' in text
    assert 'pl.MemRef("pipe_t__ssa_v0", slots=2)[i__idx_v0 % 2]' in text
