"""The PYPTO planner's buffer reuse and the shared-buffer checks of every planner
(`lowering/memory_reuse.py`, `05-decisions.md` item 14).

Groups:
- the independent oracle (`address_oracle.py`, a run of the emitted module) on every
  bundled, bench-corpus and freshly generated kernel: no two live tiles share a byte; the
  oracle itself sees a planted overlap;
- every bundled kernel compiles under both planners; RowScale gets the reference's
  addresses;
- placement: disjoint ranges reuse, touching reuses, overlapping never, declared
  allocations are never shared, the op guard, the pipeline guard and its capacity gate;
- the capacity error;
- declared slots (issue 13.1): two live tiles on one slot are an error under every planner;
- one buffer, one value: a tile read after the buffer it shares was overwritten (a carried
  value read after its next value is written is copied instead: `test_carry_copies.py`).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from slotsat.analysis.budget import Backend
from slotsat.app.pipeline import CompileOptions, compile_source
from slotsat.bench.generate import generate_corpus
from slotsat.core import ops
from slotsat.core.dsl.calls import spelled
from slotsat.core.errors import PassError
from slotsat.core.options import Mode, Planner
from slotsat.lowering import pto_spelling
from tests.codegen.address_oracle import check_module
from tests.codegen.harness import compile_, error, kernel, lines

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = sorted((ROOT / "examples" / "kernels").glob("*.py"))
BENCH = sorted((ROOT / "bench" / "corpus").glob("*.py"))
SCALARS = ((0,), (1,), (2,), (3,), (5,), (7,))
"""Runtime scalars for the oracle's runs: empty, short and remainder-taking trip counts."""


def pypto(src: str, mode: Mode = Mode.SLOTSAT, backend: Backend = Backend.ASCEND910B) -> str:
    """The PYPTO-planner module of `src` (a kernel body, or a whole program)."""
    program = src if src.startswith("import") else kernel(src)
    return compile_(program, planner=Planner.PYPTO, mode=mode, backend=backend).pto_text


def addresses(text: str) -> dict[str, str]:
    """Tile SSA name -> its `addr` operand."""
    return dict(re.findall(r"%(\w+) = pto\.alloc_tile addr = (%\w+)", text))


# --------------------------------------------------------------------------------------
# the oracle


def _sources() -> list[tuple[str, str]]:
    out = [(p.stem, p.read_text()) for p in BUNDLED + BENCH]
    out += [(k.name, k.text) for k in generate_corpus(seed=15, count=4, max_loops=12)]
    return out


SOURCES = _sources()


@pytest.mark.parametrize("mode", list(Mode), ids=[m.value for m in Mode])
@pytest.mark.parametrize(("name", "text"), SOURCES, ids=[n for n, _ in SOURCES])
def test_no_two_live_tiles_share_a_byte(name: str, text: str, mode: Mode) -> None:
    result = compile_source(text, f"{name}.py", CompileOptions(planner=Planner.PYPTO, mode=mode))
    assert check_module(result.pto_text, SCALARS) == []


def test_the_corpus_does_reuse_addresses() -> None:
    """The oracle above is not vacuous: most bundled kernels give one address to several
    tiles of one space."""
    reused = 0
    for path in BUNDLED:
        text = compile_source(path.read_text(), path.name, CompileOptions(planner=Planner.PYPTO)).pto_text
        seen: dict[tuple[str, str], int] = {}
        for addr, loc in re.findall(r"pto\.alloc_tile addr = (%c\d+_i64) .*?loc=(\w+)", text):
            seen[(addr, loc)] = seen.get((addr, loc), 0) + 1
        reused += any(n > 1 for n in seen.values())
    assert reused >= 10


def test_the_oracle_sees_a_planted_overlap() -> None:
    text = compile_source((ROOT / "examples/kernels/row_scale.py").read_text(), "row_scale.py",
                          CompileOptions(planner=Planner.PYPTO)).pto_text
    addr = addresses(text)
    gt = "%gt = pto.alloc_tile addr = "
    planted = text.replace(gt + addr["gt"], gt + addr["xt"])
    assert planted != text
    (first, *_) = check_module(planted)
    assert "'gt'" in first
    assert "'xt'" in first


# --------------------------------------------------------------------------------------
# the bundled kernels


@pytest.mark.parametrize("planner", list(Planner), ids=[p.value for p in Planner])
@pytest.mark.parametrize("path", BUNDLED, ids=[p.stem for p in BUNDLED])
def test_every_bundled_kernel_compiles_on_910b(path: Path, planner: Planner) -> None:
    result = compile_source(path.read_text(), path.name, CompileOptions(planner=planner))
    assert "func.func" in result.pto_text


def test_row_scale_gets_the_reference_addresses() -> None:
    """The reference's MemoryReuse + AllocateMemoryAddr (memory_planner=PYPTO, Ascend910B)
    place RowScale's replicated clones at xt 0, gt 32768, prod 0, xt_1 65536, gt_1 98304,
    prod_1 65536: 131,072 bytes of Vec, where a non-reusing allocator needs 196,608."""
    text = compile_source((ROOT / "examples/kernels/row_scale.py").read_text(), "row_scale.py",
                          CompileOptions(planner=Planner.PYPTO)).pto_text
    assert addresses(text) == {
        "xt": "%c0_i64", "gt": "%c32768_i64", "prod": "%c0_i64",
        "xt_1": "%c65536_i64", "gt_1": "%c98304_i64", "prod_1": "%c65536_i64",
    }


# --------------------------------------------------------------------------------------
# placement

T = "pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec]"


def test_tiles_whose_ranges_do_not_overlap_share_an_address() -> None:
    text = pypto(f"""
a0: {T} = pl.load(a, [0, 0], [64, 64])
e0: {T} = pl.exp(a0)
n0: pl.Tensor[[256, 64], pl.FP32] = pl.store(e0, [0, 0], out)
a1: {T} = pl.load(a, [64, 0], [64, 64])
e1: {T} = pl.exp(a1)
n1: pl.Tensor[[256, 64], pl.FP32] = pl.store(e1, [64, 0], n0)
return n1
""")
    addr = addresses(text)
    assert addr["a0"] == addr["a1"] == addr["e0"] == addr["e1"] == "%c0_i64"


def test_tiles_whose_ranges_overlap_never_share() -> None:
    text = pypto(f"""
a0: {T} = pl.load(a, [0, 0], [64, 64])
a1: {T} = pl.load(a, [64, 0], [64, 64])
a2: {T} = pl.load(a, [128, 0], [64, 64])
s: {T} = pl.add(a0, a1)
s2: {T} = pl.add(s, a2)
n: pl.Tensor[[256, 64], pl.FP32] = pl.store(s2, [0, 0], out)
return n
""")
    addr = addresses(text)
    assert len({addr["a0"], addr["a1"], addr["a2"]}) == 3
    assert addr["s"] in (addr["a0"], addr["a1"])  # add runs in place on an operand read last here
    assert addr["s"] != addr["a2"]


def test_a_declared_allocation_is_never_shared() -> None:
    """`u` is live only after `t`'s last read, but `t`'s bytes belong to the declaration."""
    text = pypto(f"""
t: pl.Tile[[64, 64], pl.FP32, pl.MemRef("D"), pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
n0: pl.Tensor[[256, 64], pl.FP32] = pl.store(t, [0, 0], out)
u: {T} = pl.load(a, [64, 0], [64, 64])
n1: pl.Tensor[[256, 64], pl.FP32] = pl.store(u, [64, 0], n0)
return n1
""")
    assert addresses(text) == {"t": "%c0_i64", "u": "%c16384_i64"}


@pytest.mark.parametrize(("op", "line"), [
    ("pl.recip(t)", "pto.trecip"),
    ("pl.rsqrt(t)", "pto.trsqrt"),
    # not_inplace_safe in the reference's op registry (core/op_registry.json), not in a hand list
    ("pl.tile.fmods(t, 3.0)", "pto.tfmods"),
])
def test_an_op_that_cannot_run_in_place_gets_its_own_buffer(op: str, line: str) -> None:
    text = pypto(f"""
t: {T} = pl.load(a, [0, 0], [64, 64])
r: {T} = {op}
n: pl.Tensor[[256, 64], pl.FP32] = pl.store(r, [0, 0], out)
return n
""")
    addr = addresses(text)
    assert lines(text, line)
    assert addr["r"] != addr["t"]


BROADCAST_MARKED = sorted(op for op in ops.reference_names()
                          if op.startswith(("tile.row_expand", "tile.col_expand"))
                          and 1 in ops.forbidden_operands(op) and pto_spelling.lookup(op) is not None)
"""The broadcast ops the reference marks `forbid_output_alias(1)`, read off the op registry."""


def test_every_broadcast_op_the_code_generator_emits_is_marked() -> None:
    assert len(BROADCAST_MARKED) == 16


@pytest.mark.parametrize("op", BROADCAST_MARKED)
def test_a_broadcast_operand_is_never_the_result_buffer(op: str) -> None:
    """The broadcast row (column) is re-read for every output row (column): the result may not
    take its buffer even where it dies at the op and fits (a [16, 1] row and a [16, 8] result
    both round to 512 bytes). `x` stays live, so its buffer is not free either."""
    vec = "pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec]" if "row" in op else "pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec]"
    window = "[16, 1]" if "row" in op else "[1, 8]"
    small = "pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec]"
    text = pypto(f"""
v: {vec} = pl.load(a, [0, 0], {window})
x: {small} = pl.load(a, [0, 0], [16, 8])
r: {small} = {spelled(op)}(x, v)
y: {small} = pl.add(r, x)
n: pl.Tensor[[256, 64], pl.FP32] = pl.store(y, [0, 0], out)
return n
""")
    addr = addresses(text)
    assert addr["r"] not in (addr["v"], addr["x"])
    assert check_module(text) == []


def test_a_row_reduction_and_its_scratch_share_with_nothing_at_the_statement() -> None:
    text = pypto(f"""
t: {T} = pl.load(a, [0, 0], [64, 64])
s: pl.Tile[[64, 1], pl.FP32, pl.Mem.Vec] = pl.row_sum(t)
y: {T} = pl.row_expand_mul(t, s)
n: pl.Tensor[[256, 64], pl.FP32] = pl.store(y, [0, 0], out)
return n
""")
    addr = addresses(text)
    assert len({addr["t"], addr["s"], addr["s_tmp"]}) == 3
    assert addr["y"] == addr["t"]  # the row vector `s` may not be overwritten, `t` may
    assert check_module(text) == []


def test_a_row_reduction_that_names_its_scratch_tile_gets_no_second_scratch() -> None:
    """The reference's printed form `pl.tile.row_sum(t, tmp)` names its scratch tile: that
    tile is placed like any other, and no scratch of codegen's own is placed for it: `tmp`
    stays live past the reduction, so such a scratch could share with none of `t`, `tmp`,
    `s`, and two 64 KiB tiles and the row vector fit 910B's 184 KiB Vec, a third would not."""
    wide = "pl.Tile[[64, 256], pl.FP32, pl.Mem.Vec]"
    text = pypto(kernel(f"""
t: {wide} = pl.load(a, [0, 0], [64, 256])
tmp: {wide} = pl.load(a, [64, 0], [64, 256])
s: pl.Tile[[64, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_sum(t, tmp)
y: {wide} = pl.row_expand_mul(tmp, s)
n: pl.Tensor[[256, 256], pl.FP32] = pl.store(y, [0, 0], out)
return n
""", params="a: pl.Tensor[[256, 256], pl.FP32], out: pl.Out[pl.Tensor[[256, 256], pl.FP32]]",
        ret="pl.Tensor[[256, 256], pl.FP32]"))
    addr = addresses(text)
    assert set(addr) == {"t", "tmp", "s", "y"}
    assert len({addr["t"], addr["tmp"], addr["s"]}) == 3
    assert addr["y"] != addr["s"]
    assert "ins(%t, %tmp :" in text
    assert check_module(text) == []


REPLICATED = """
for i, (dst,) in pl.pipeline(0, 4, 1, stage=2, init_values=(out,)):
    t: pl.Tile[[ROWS, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [ROWS, 64])
    e: pl.Tile[[ROWS, 64], pl.FP32, pl.Mem.Vec] = pl.exp(t)
    nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(e, [0, 0], dst)
    r = pl.yield_(nxt)
return r
"""


def test_the_clones_of_a_replicated_loop_keep_apart() -> None:
    """Clone 1's load would fit in clone 0's buffer by liveness; the pipeline guard keeps it
    apart so the two stages can overlap (two residues fit in Vec)."""
    addr = addresses(pypto(REPLICATED.replace("ROWS", "64")))
    assert addr["t"] == addr["e"] == "%c0_i64"
    assert addr["t_1"] == addr["e_1"] == "%c16384_i64"


def test_clones_merge_when_two_stages_do_not_fit() -> None:
    """A 160 KB tile: `capacity // tile` is 1, so the group keeps one residue and the clones
    share (the reference's capacity gate)."""
    big = "pl.Tensor[[1024, 64], pl.FP32]"
    src = REPLICATED.replace("ROWS", "640").replace("pl.Tensor[[256, 64], pl.FP32]", big)
    text = pypto(kernel(src, params=f"a: {big}, out: pl.Out[{big}]", ret=big))
    addr = addresses(text)
    assert addr["t"] == addr["t_1"] == "%c0_i64"


# --------------------------------------------------------------------------------------
# the capacity error


def test_a_space_that_does_not_fit_names_the_bytes_and_the_peak_line() -> None:
    big = "pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec]"
    src = kernel(f"""
a0: {big} = pl.load(x, [0, 0], [128, 128])
b0: {big} = pl.load(x, [128, 0], [128, 128])
c0: {big} = pl.add(a0, b0)
d0: {big} = pl.sub(a0, b0)
e0: {big} = pl.mul(c0, d0)
n: pl.Tensor[[512, 128], pl.FP32] = pl.store(e0, [0, 0], out)
return n
""", params="x: pl.Tensor[[512, 128], pl.FP32], out: pl.Out[pl.Tensor[[512, 128], pl.FP32]]",
                 ret="pl.Tensor[[512, 128], pl.FP32]")
    err = error(src, planner=Planner.PYPTO)
    line = src.splitlines().index(next(x for x in src.splitlines() if "c0:" in x)) + 1
    assert err.message == (
        f"PYPTO planner: Vec needs 196608 bytes but the backend provides 188416; at line {line}, "
        "196608 bytes of tiles are live at once"
    )
    assert err.span.line == line
    assert err.exit_status == 1


# --------------------------------------------------------------------------------------
# declared slots (13.1)

TWO_ON_SLOT_0 = """
t: pl.Tile[[64, 64], pl.FP32, buf[0], pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
u: pl.Tile[[64, 64], pl.FP32, buf[0], pl.Mem.Vec] = pl.load(a, [64, 0], [64, 64])
s: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.sub(t, u)
n: pl.Tensor[[256, 64], pl.FP32] = pl.store(s, [0, 0], out)
return n
"""


def _co_live_message(a: str, b: str, name: str, ra: tuple[int, int], rb: tuple[int, int]) -> str:
    return (
        f"Tiles '{a}' and '{b}' are both bound to the same slot of the declared allocation '{name}' but are "
        f"live at the same time ({a}: [{ra[0]}, {ra[1]}], {b}: [{rb[0]}, {rb[1]}]). Sharing one slot would "
        "overwrite data that is still needed — put them on different slots, declare separate allocations, "
        "or bind only tiles whose lifetimes do not overlap."
    )


@pytest.mark.parametrize("planner", list(Planner), ids=[p.value for p in Planner])
def test_two_live_tiles_on_one_declared_slot_are_an_error(planner: Planner) -> None:
    src = kernel(TWO_ON_SLOT_0, decls="buf = pl.MemRef(slots=2)")
    first = next(k for k, x in enumerate(src.splitlines(), 1) if x.strip().startswith("t:"))
    err = error(src, planner=planner)
    assert err.message == _co_live_message("t", "u", "buf", (first, first + 2), (first + 1, first + 2))
    assert err.span.line == first + 1
    assert err.exit_status == 1


def test_two_live_tiles_on_one_declared_slot_inside_a_loop_are_an_error_under_pypto() -> None:
    src = kernel(f"""
for i, (dst,) in pl.range(4, init_values=(out,)):
    t: pl.Tile[[64, 64], pl.FP32, buf[1], pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
    u: pl.Tile[[64, 64], pl.FP32, buf[1], pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
    s: {T} = pl.sub(t, u)
    nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(s, [i * 64, 0], dst)
    r = pl.yield_(nxt)
return r
""", decls="buf = pl.MemRef(slots=2)")
    assert error(src, planner=Planner.PYPTO).message.startswith(
        "Tiles 't' and 'u' are both bound to the same slot of the declared allocation 'buf' but are live"
    )


def test_one_runtime_slot_expression_is_one_slot_under_pypto() -> None:
    """`tests/reliability/data/wrong_two_live.py`: `PP[i % 2]` twice in one body (PTOAS
    rejects it with blocker B9)."""
    src = (ROOT / "tests/reliability/data/wrong_two_live.py").read_text()
    with pytest.raises(PassError, match=r"^Tiles 't' and 'u' are both bound to the same slot of the declared "
                                        r"allocation 'PP' but are live at the same time"):
        compile_source(src, "w.py", CompileOptions(planner=Planner.PYPTO))


@pytest.mark.parametrize("planner", list(Planner), ids=[p.value for p in Planner])
def test_tiles_on_one_slot_whose_ranges_touch_are_fine(planner: Planner) -> None:
    src = kernel("""
t: pl.Tile[[64, 64], pl.FP32, buf[0], pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
n0: pl.Tensor[[256, 64], pl.FP32] = pl.store(t, [0, 0], out)
u: pl.Tile[[64, 64], pl.FP32, buf[0], pl.Mem.Vec] = pl.load(a, [64, 0], [64, 64])
v: pl.Tile[[64, 64], pl.FP32, buf[1], pl.Mem.Vec] = pl.exp(u)
n1: pl.Tensor[[256, 64], pl.FP32] = pl.store(v, [64, 0], n0)
return n1
""", decls="buf = pl.MemRef(slots=2)")
    text = compile_(src, planner=planner).pto_text
    assert "func.func" in text


@pytest.mark.parametrize("planner", list(Planner), ids=[p.value for p in Planner])
@pytest.mark.parametrize(("op", "call"), [("exp", "pl.exp(t)"), ("recip", "pl.recip(t)")])
def test_a_touching_write_over_its_operand_on_one_slot_needs_an_in_place_safe_op(
    planner: Planner, op: str, call: str
) -> None:
    """`u = op(t)` with both on slot 0: `t` dies where `u` is born, which the reference allows
    for every op (and then emits `trecip` in place). slotsat allows it only where the op may
    write over its operand (`exp`), and says why otherwise (`recip`: not in-place safe)."""
    src = kernel(f"""
t: pl.Tile[[64, 64], pl.FP32, buf[0], pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
u: pl.Tile[[64, 64], pl.FP32, buf[0], pl.Mem.Vec] = {call}
n: pl.Tensor[[256, 64], pl.FP32] = pl.store(u, [0, 0], out)
return n
""", decls="buf = pl.MemRef(slots=2)")
    if op == "exp":
        text = compile_(src, planner=planner).pto_text
        ins = re.search(r"pto\.texp ins\(%(\w+) .*outs\(%(\w+) ", text)
        assert ins is not None
        assert ins.groups() == ("t", "u")
        return
    err = error(src, planner=planner)
    assert err.message == (
        "Tiles 't' and 'u' are both bound to the same slot of the declared allocation 'buf', and tile.recip "
        "would write 'u' over 't' while it reads it, which tile.recip may not do in place — put them on "
        "different slots or declare separate allocations."
    )
    assert err.span.line == next(k for k, x in enumerate(src.splitlines(), 1) if x.strip().startswith("u:"))
    assert err.exit_status == 1


# --------------------------------------------------------------------------------------
# one buffer, one value

CARRY_INIT_READ = f"""
a0: {T} = pl.load(a, [0, 0], [64, 64])
for i, (acc,) in pl.range(4, init_values=(a0,)):
    v: {T} = pl.add(acc, a0)
    r = pl.yield_(v)
n: pl.Tensor[[256, 64], pl.FP32] = pl.store(r, [0, 0], out)
return n
"""


@pytest.mark.parametrize("planner", list(Planner), ids=[p.value for p in Planner])
def test_a_carry_initial_value_read_in_the_loop_is_an_error(planner: Planner) -> None:
    """Before: `pto.tadd ins(%a0, %a0)`, i.e. acc + acc instead of acc + a0."""
    src = kernel(CARRY_INIT_READ)
    line = next(k for k, x in enumerate(src.splitlines(), 1) if x.strip().startswith("v:"))
    err = error(src, planner=planner)
    assert err.message.startswith(
        f"tile 'a0' is read after its buffer was overwritten by the loop at line {line - 1}: a loop carry"
    )
    assert err.span.line == line


def test_an_in_place_operand_read_in_a_later_iteration_is_an_error() -> None:
    src = kernel("""
m: pl.Tile[[64, 64], pl.BF16, pl.Mem.Mat] = pl.load(x, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
l: pl.Tile[[64, 64], pl.BF16, pl.Mem.Left] = pl.tile.move(m, target_memory=pl.Mem.Left)
r: pl.Tile[[64, 64], pl.BF16, pl.Mem.Right] = pl.tile.move(m, target_memory=pl.Mem.Right)
c0: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(l, r)
for i, (dst,) in pl.range(2, init_values=(out,)):
    c1: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c0, l, r)
    n: pl.Tensor[[64, 64], pl.FP32] = pl.store(c1, [0, 0], dst)
    y = pl.yield_(n)
return y
""", params="x: pl.Tensor[[64, 64], pl.BF16], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]",
                 ret="pl.Tensor[[64, 64], pl.FP32]")
    assert error(src).message.startswith("tile 'c0' is read after its buffer was overwritten by an earlier "
                                         "iteration of the loop at line")


@pytest.mark.parametrize("planner", list(Planner), ids=[p.value for p in Planner])
def test_an_ordinary_accumulating_carry_compiles(planner: Planner) -> None:
    src = kernel(f"""
a0: {T} = pl.load(a, [0, 0], [64, 64])
for i, (acc,) in pl.range(4, init_values=(a0,)):
    t: {T} = pl.load(a, [i * 64, 0], [64, 64])
    v: {T} = pl.add(acc, t)
    r = pl.yield_(v)
n: pl.Tensor[[256, 64], pl.FP32] = pl.store(r, [0, 0], out)
return n
""")
    text = compile_(src, planner=planner).pto_text
    assert lines(text, "pto.tadd")[0].startswith("pto.tadd ins(%a0, %t")
