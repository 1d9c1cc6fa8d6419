"""Codegen through the index engine (`30-pto-codegen.md` §6, §8, catalogs I and K;
`40-ptoas-slot-matcher.md` §9 and "slotsat's use"; `60-egraph-engine.md` §9).

Slot operands are chosen by the engine (extraction in the default mode, as written under
`--mode pypto`); every plain integer expression is lowered by the same engine. The
differential test evaluates every emitted slot chain of the corpus against the IR index.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

from slotsat.app.pipeline import CompileOptions, CompileResult, compile_source
from slotsat.core import ir
from slotsat.core.options import Mode, Planner
from slotsat.core.semantics import EvalError, eval_expr, fold
from slotsat.egraph_rules.costs import evaluate_term
from slotsat.egraph_rules.loops import LoopInfo
from slotsat.lowering.pto_codegen import GetRecord

from .harness import compile_, kernel, lines

ROOT = Path(__file__).resolve().parents[2]
KERNELS = sorted((ROOT / "examples" / "kernels").glob("*.py"))
CORRECTION = ["arith.remsi", "arith.cmpi", "arith.addi", "arith.select"]
K_PARAMS = (
    "a: pl.Tensor[[256, 64], pl.FP32], k: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]"
)
K32_PARAMS = (
    "a: pl.Tensor[[256, 64], pl.FP32], k: pl.Scalar[pl.INT32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]"
)


def slot_kernel(index: str, loop: str = "pl.range(4)", slots: int = 2, params: str | None = None) -> str:
    """One loop with one slotted load whose slot index is `index`."""
    extra = {} if params is None else {"params": params}
    return kernel(
        f"""
for i in {loop}:
    t: pl.Tile[[64, 64], pl.FP32, SB[{index}], pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
    _s = pl.store(t, [0, 0], out)
return out
""",
        decls=f"SB = pl.MemRef(slots={slots})",
        **extra,
    )


def chain(result: CompileResult) -> list[str]:
    """The ops of the body's slot operand chain (the `arith` lines before the get)."""
    body = result.pto_text[result.pto_text.index("scf.for") :].splitlines()[1:]
    out: list[str] = []
    for line in body:
        if "pto.multi_tile_get" in line:
            return out
        op = line.split("=", 1)[1].split()[0]
        out.append(op)
    raise AssertionError("no get in the loop body")


def one_get(result: CompileResult) -> GetRecord:
    assert len(result.gets) == 1
    return result.gets[0]


# -- catalog I rows that differ between modes -----------------------------------------


def test_sum_slot_interval() -> None:
    src = slot_kernel("(i + 1) % 2")
    default = compile_(src)
    assert chain(default) == ["arith.addi", "arith.remui"]
    assert one_get(default).accepted
    compat = compile_(src, mode=Mode.PYPTO)
    assert chain(compat) == ["arith.addi", *CORRECTION]


def test_product_small_range() -> None:
    src = slot_kernel("(i * 4611686018427387904) % 3", "pl.range(2)", slots=3)
    assert chain(compile_(src)) == ["arith.muli", "arith.remui"]
    assert chain(compile_(src, mode=Mode.PYPTO)) == ["arith.muli", *CORRECTION]


def test_width_nested() -> None:
    src = slot_kernel("pl.cast(pl.cast(i, pl.INT32) // 4, pl.INDEX) % 2", "pl.range(64)")
    default = compile_(src)
    assert chain(default) == ["arith.divui", "arith.remui"]
    assert one_get(default).accepted
    compat = compile_(src, mode=Mode.PYPTO)
    assert chain(compat) == [
        "arith.index_cast",
        "arith.floordivsi",
        "arith.index_cast",
        *CORRECTION,
    ]


def test_width_nested_as_a_non_slot_scalar_keeps_the_correction_only_in_pypto_mode() -> None:
    """A plain expression is extracted in the default mode (`05-decisions.md` item 15): the
    INT32 floor-div of a non-negative variable widens to `divui` / `remui`; `--mode pypto`
    lowers it as the reference does, node by node with its corrections."""
    src = kernel(
        """
for i in pl.range(64):
    x: pl.Scalar[pl.INDEX] = pl.cast(pl.cast(i, pl.INT32) // 4, pl.INDEX) % 2
    t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [x, 0], [64, 64])
    _s = pl.store(t, [0, 0], out)
return out
"""
    )
    text = compile_(src, mode=Mode.PYPTO).pto_text
    assert "arith.floordivsi" in text
    assert "arith.select" in text
    assert "remui" not in text
    assert "divui" not in text
    default = compile_(src).pto_text
    assert "arith.floordivsi" not in default
    assert "arith.select" not in default
    assert "arith.divui %i, %c4_index : index" in default
    assert "arith.remui" in default


# -- catalog K ---------------------------------------------------------------------------


def test_remui_only_when_proven() -> None:
    for mode in Mode:
        result = compile_(slot_kernel("k % 2", params=K_PARAMS), mode=mode)
        assert chain(result) == CORRECTION
        assert one_get(result).matcher_class.value == "opaque"
        assert "remui" not in result.pto_text


def test_interval_sum() -> None:
    result = compile_(slot_kernel("(i + 3) % 4", "pl.range(64)", slots=4))
    assert chain(result) == ["arith.addi", "arith.remui"]
    get = one_get(result)
    assert get.accepted
    assert get.matcher_class.value == "peelable"


def test_interval_refuses_wrap() -> None:
    result = compile_(slot_kernel("(i + 1) % 2", "pl.range(0, 9223372036854775807)"))
    assert chain(result) == ["arith.addi", "arith.remui"]


def test_interval_refuses_product() -> None:
    for mode in Mode:
        result = compile_(slot_kernel("(i * 4611686018427387904) % 2"), mode=mode)
        assert chain(result) == ["arith.muli", *CORRECTION]
        assert not one_get(result).accepted


# -- the matcher's "slotsat's use" rows ------------------------------------------------------


def test_accept_bare() -> None:
    result = compile_(slot_kernel("i % 2", "pl.range(2)"))
    assert chain(result) == []
    get = one_get(result)
    assert get.matcher_class.value == "bare"
    assert get.ops == 0
    assert "pto.multi_tile_get %SB_mb[%i]" in result.pto_text or "[%i]" in result.pto_text
    compat = compile_(slot_kernel("i % 2", "pl.range(2)"), mode=Mode.PYPTO)
    assert chain(compat) == ["arith.remsi"]


def test_reject_modulus_mismatch_and_warning() -> None:
    result = compile_(slot_kernel("i % 4", "pl.range(64)"))
    assert chain(result) == ["arith.remui"]
    get = one_get(result)
    assert get.matcher_class.value == "mismatched"
    assert not get.accepted
    warnings = [n for n in result.notes if n.severity == "warning"]
    assert [w.message for w in warnings] == ["slot index of 't' ranges over [0, 3], outside [0, 2)"]
    assert warnings[0].span.line > 0


def test_reject_modulus_mismatch_warning_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from slotsat.app.cli import main

    path = tmp_path / "k.py"
    path.write_text(slot_kernel("i % 4", "pl.range(64)"))
    assert main(["codegen", str(path), "-o", str(tmp_path / "k.pto")]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    file, line, col, rest = err[0].split(":", 3)
    assert file == str(path)
    assert int(line) > 0
    assert int(col) > 0
    assert rest == " warning: slot index of 't' ranges over [0, 3], outside [0, 2)"


def test_no_warning_for_an_in_range_slot() -> None:
    result = compile_(slot_kernel("(i + 3) % 4", "pl.range(64)", slots=4))
    assert not result.notes


def test_cse_two_gets() -> None:
    src = kernel(
        """
for i, (acc,) in pl.pipeline(4, stage=2, init_values=(out,)):
    t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
    u: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(b, [i * 64, 0], [64, 64])
    s: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.add(t, u)
    nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(s, [i * 64, 0], acc)
    y = pl.yield_(nxt)
return y
""",
        params="a: pl.Tensor[[256, 64], pl.FP32], b: pl.Tensor[[256, 64], pl.FP32], "
        "out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]",
    )
    result = compile_(src)
    assert result.pto_text.count("arith.remui") == 1
    assert [g.ops for g in result.gets] == [1, 0]
    assert sum(g.ops for g in result.gets) == 1
    assert all(g.accepted for g in result.gets)
    assert result.gets[0].block == result.gets[1].block
    compat = compile_(src, mode=Mode.PYPTO)
    assert compat.pto_text.count("arith.remsi") == 2
    assert [g.ops for g in compat.gets] == [1, 1]


def test_values_are_not_shared_across_sibling_blocks() -> None:
    src = kernel(
        """
for i in pl.range(4):
    lo: pl.Tile[[64, 64], pl.FP32, SB[i % 2], pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
    _s = pl.store(lo, [0, 0], out)
for j in pl.range(4):
    hi: pl.Tile[[64, 64], pl.FP32, SB[j % 2], pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
    _t = pl.store(hi, [0, 0], out)
return out
""",
        decls="SB = pl.MemRef(slots=2)",
    )
    result = compile_(src)
    assert result.pto_text.count("arith.remui") == 2
    assert [g.ops for g in result.gets] == [1, 1]


def test_opaque_cast() -> None:
    src = kernel(
        """
t0: pl.Tile[[64, 64], pl.FP32, I32[k % 4], pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
res: pl.Tensor[[256, 64], pl.FP32] = pl.store(t0, [0, 0], out)
return res
""",
        params=K32_PARAMS,
        decls="I32 = pl.MemRef(slots=4)",
    )
    for mode in Mode:
        result = compile_(src, mode=mode)
        get = one_get(result)
        assert get.matcher_class.value == "opaque"
        text = result.pto_text
        assert "arith.remsi %arg2, %c4_i32 : i32" in text  # k follows the tensors a, out
        assert ": i32 to index" in text


def test_plain_expressions_are_extracted_in_the_default_mode_only() -> None:
    """`--mode pypto` lowers plain expressions as the reference does (`remsi` / `divsi` where
    the syntactic proof holds, corrections elsewhere, never shared); the default mode extracts
    them like slot operands (`05-decisions.md` item 15): proven remainders and quotients
    become `remui` / `divui`, and fewer ops are emitted."""
    src = kernel(
        """
for i in pl.range(1, 9):
    x: pl.Scalar[pl.INDEX] = (i + 1) % 2
    y: pl.Scalar[pl.INDEX] = (i - 1) // 4 + k % 3
    t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [x * 64 + y, 0], [64, 64])
    _s = pl.store(t, [0, 0], out)
return out
""",
        params=K_PARAMS,
    )
    pypto = compile_(src, mode=Mode.PYPTO)
    assert "remui" not in pypto.pto_text
    assert "divui" not in pypto.pto_text
    assert "arith.divsi" in pypto.pto_text  # the counter form is proven syntactically
    default = compile_(src)
    assert "arith.remui" in default.pto_text  # (i + 1) % 2, proven by the intervals
    assert "arith.divui" in default.pto_text
    assert "arith.divsi" not in default.pto_text
    assert len(lines(pypto.pto_text, "arith.select")) == 2  # (i + 1) % 2 and k % 3
    assert len(lines(default.pto_text, "arith.select")) == 1  # k % 3 only
    assert default.function_ops["kernel"] < pypto.function_ops["kernel"]


def test_engine_reports_are_exposed() -> None:
    result = compile_(slot_kernel("(i + 1) % 2"))
    assert len(result.engine_reports) == 1
    report = result.engine_reports[0]
    assert report["function"] == "kernel"
    assert report["slot_roots"] == 1
    assert int(report["roots"]) >= 1
    assert int(report["nodes"]) > 0
    assert int(report["iterations"]) > 0
    for key in ("saturate_seconds", "extract_seconds"):
        assert float(report[key]) >= 0.0


def test_bench_reads_the_engine_reports() -> None:
    from slotsat.bench.harness import engine_figures

    result = compile_(slot_kernel("(i + 1) % 2"))
    figures = engine_figures(result)
    assert figures["nodes"] == result.engine_reports[0]["nodes"]


# -- differential: emitted slot chains against the IR index ----------------------------------

SAMPLES = (0, 1, 2, 3, 7, 64, 100, -1, -5, 2**31 - 1, -(2**31))
"""Values for variables that are not loop induction variables (parameters, scalars)."""
CAP = 512
"""Iterations per loop beyond which the first and last `CAP // 2` are taken."""


def _loop_values(start: int, stop: int, step: int) -> list[int]:
    r = range(start, stop, step)
    if len(r) <= CAP:
        return list(r)
    return [*r[: CAP // 2], *r[-(CAP // 2) :]]


def _free_vars(get: GetRecord) -> list[ir.Var]:
    assert get.index is not None
    bound = {lp.var.id for lp in get.loops}
    exprs = [get.index, *(e for lp in get.loops for e in (lp.start, lp.stop, lp.step))]
    out: dict[int, ir.Var] = {}
    for e in exprs:
        for v in ir.expr_vars(e):
            if v.id not in bound:
                out[v.id] = v
    return list(out.values())


def _environments(get: GetRecord) -> Iterator[dict[int, int]]:
    free = _free_vars(get)
    for values in itertools.islice(itertools.product(SAMPLES, repeat=len(free)), 64):
        base = {v.id: v.dtype.wrap(x) for v, x in zip(free, values, strict=True)}
        yield from _nest(list(get.loops), base)


SKIPPED: dict[str, int] = {"literal slot": 0, "loop bound undefined": 0, "index undefined": 0}
"""Cases the differential cannot compare, by reason, counted rather than dropped: a literal slot
has no emitted chain (its operand is the constant); a sampled parameter value can make a loop
bound or the index itself undefined (a zero divisor), and then there is no value to compare."""


def _nest(loops: list[LoopInfo], env: dict[int, int]) -> Iterator[dict[int, int]]:
    if not loops:
        yield dict(env)
        return
    lp, rest = loops[0], loops[1:]
    try:
        start, stop, step = (eval_expr(e, env) for e in (lp.start, lp.stop, lp.step))
    except EvalError:
        SKIPPED["loop bound undefined"] += 1
        return
    for value in _loop_values(start, stop, step):
        yield from _nest(rest, {**env, lp.var.id: value})


def _corpus_results() -> Iterator[tuple[str, Mode, CompileResult]]:
    # Every bundled kernel compiles in both modes; a rejection is a failure, not a skip.
    for path in KERNELS:
        for mode in Mode:
            yield path.stem, mode, compile_source(path.read_text(), path.name, CompileOptions(mode=mode))


def _compare_gets(name: str, result: CompileResult) -> int:
    """Evaluate every emitted slot operand of `result` against its IR index; the cases compared."""
    checked = 0
    for get in result.gets:
        assert get.index is not None
        if get.term is None:
            assert isinstance(fold(get.index), ir.ConstInt), (name, get.tile)
            SKIPPED["literal slot"] += 1
            continue
        for env in _environments(get):
            try:
                expected = eval_expr(get.index, env)
            except EvalError:
                SKIPPED["index undefined"] += 1
                continue
            assert evaluate_term(get.term, env) == expected, (name, get.tile, env)
            checked += 1
    return checked


@pytest.mark.parametrize("mode", list(Mode), ids=[m.value for m in Mode])
def test_differential_corpus(mode: Mode) -> None:
    checked = sum(_compare_gets(name, result) for name, m, result in _corpus_results() if m is mode)
    print(f"differential ({mode.value}): {checked} cases compared; not comparable: {SKIPPED}")
    assert checked > 0
    assert sum(SKIPPED.values()) < checked


def test_past_the_extraction_limit_the_default_mode_lowers_as_written_and_stays_exact(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`slotsat.core.limits` (j): under a limit no choice fits in, a function's first root is
    extracted and every later one lowered as written, a proven floor operation as `remui` /
    `divui`; the slot operands still evaluate as their IR indices do, and codegen warns once
    for each function that stopped."""
    monkeypatch.setenv("SLOTSAT_EXTRACT_SECONDS", "1e-9")
    checked = stopped = 0
    unsigned = False
    for path in KERNELS:
        result = compile_source(path.read_text(), path.name, CompileOptions())
        hits = [r["function"] for r in result.engine_reports
                if "SLOTSAT_EXTRACT_SECONDS" in str(r["limit_hit"])]
        warned = [n.message.split("'")[1] for n in result.notes
                  if "choosing its index forms stopped at a limit" in n.message]
        assert warned == hits, path.name
        stopped += len(hits)
        unsigned = unsigned or "arith.remui" in result.pto_text
        checked += _compare_gets(path.stem, result)
    assert stopped > 0
    assert checked > 0
    assert unsigned


def test_differential_catalog_rows() -> None:
    """The same check on the catalog's slot indices, including runtime and narrow ones."""
    sources = [
        slot_kernel("(i + 1) % 2"),
        slot_kernel("(i + 3) % 4", "pl.range(64)", slots=4),
        slot_kernel("(i * 4611686018427387904) % 3", "pl.range(2)", slots=3),
        slot_kernel("(i * 4611686018427387904) % 2"),
        slot_kernel("pl.cast(pl.cast(i, pl.INT32) // 4, pl.INDEX) % 2", "pl.range(64)"),
        slot_kernel("pl.cast(pl.cast(i, pl.INT32) // 4, pl.INDEX) % 2", "pl.range(2147483640, 2147483656)"),
        slot_kernel("(i - 8) // 4 % 4", "pl.range(8, 40, 4)", slots=4),
        slot_kernel("k % 2", params=K_PARAMS),
        slot_kernel("(k + i) % 2", params=K_PARAMS),
        slot_kernel("i % 4", "pl.range(64)"),
        # integer dtype pairs (issue 13.6): narrowing wraps, widening sign-extends a signed source
        slot_kernel("pl.cast(pl.cast(pl.cast(i, pl.INT8), pl.INT32), pl.INDEX) % 4", "pl.range(120, 136)", 4),
        slot_kernel("pl.cast(pl.cast(i, pl.INT16), pl.INDEX) % 3", "pl.range(32760, 32776)", 3),
        slot_kernel("pl.cast(pl.cast(k, pl.INT64), pl.INDEX) % 4", slots=4, params=K32_PARAMS),
        slot_kernel("pl.cast(pl.cast(k, pl.INT8), pl.INDEX) % 2", params=K32_PARAMS),
    ]
    checked = 0
    for src in sources:
        for mode in Mode:
            for get in compile_source(src, "k.py", CompileOptions(planner=Planner.PTOAS, mode=mode)).gets:
                assert get.term is not None
                assert get.index is not None
                for env in _environments(get):
                    assert evaluate_term(get.term, env) == eval_expr(get.index, env), (src, mode, env)
                    checked += 1
    assert checked > 0


def test_a_plain_root_belongs_to_its_expression_object_not_to_its_address() -> None:
    """Plain roots are kept in an `ir.IdentityMap`: an entry holds its expression, and a
    different object at the same address (a temporary that took a dead one's place) is not
    given the dead one's root. Before this, sites were bare ids: a temporary valid extent
    could leave an id a later expression reused, and on some runs a kernel of the
    reference's library lowered a loop's value outside the loop (`has no value here`) or
    emitted a use of an undefined value, depending on where objects were allocated."""
    from slotsat.analysis.budget import Backend
    from slotsat.lowering.pto_codegen import FunctionEmitter

    fn = ir.Function("k", ir.FunctionType.INCORE, (), (), ir.SeqStmts(()))
    emitter = FunctionEmitter(fn, mode=Mode.SLOTSAT, planner=Planner.PTOAS, backend=Backend.ASCEND910B)
    i = ir.Var("i", ir.ScalarType(ir.DType.INDEX))
    first = ir.Add(i, ir.ConstInt(1, ir.DType.INDEX), ir.DType.INDEX)
    twin = ir.Add(i, ir.ConstInt(1, ir.DType.INDEX), ir.DType.INDEX)  # equal, another object
    root = emitter._add_plain_root(first, None, first)
    assert emitter._plain_root(first, None) == root
    assert twin == first
    assert emitter._plain_root(twin, None) is None
    assert emitter._plain_root(first, ir.DType.INT32) is None  # the consumer's dtype is part of the site


def test_an_identity_map_never_answers_for_another_object_at_a_reused_address() -> None:
    m: ir.IdentityMap[int] = ir.IdentityMap()
    first, other = ir.ConstInt(1, ir.DType.INDEX), ir.ConstInt(2, ir.DType.INDEX)
    m.set(first, 7)
    assert m.get(first) == 7
    m._items[(id(other), None)] = (first, 7)  # what a dead object's entry at `other`'s address looks like
    assert m.get(other) is None
    m.clear()
    assert m.get(first) is None
