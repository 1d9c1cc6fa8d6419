"""Tests of the tile-buffer live ranges, `analysis/liveness.py` (`05-decisions.md` item 14).

Groups: straight-line ranges (definition to last read, touching, a tile never read);
sharing classes (copy, in-place result, loop carry, if result) and views; the loop
extension (defined before a loop and read inside it; nested loops; a tile local to the
body is not extended); replicated clones and their membership tags.
"""

from __future__ import annotations

from slotsat.analysis.liveness import Liveness, liveness, parse_membership
from slotsat.core import ir
from slotsat.core.dsl.parser import parse_source
from tests.codegen.harness import kernel


def analyse(body: str, **kw: str) -> tuple[ir.Function, Liveness]:
    fn = parse_source(kernel(body, **kw)).programs[0].functions[0]
    return fn, liveness(fn)


def var(fn: ir.Function, name: str) -> ir.Var:
    for s in ir.walk_stmts(fn.body):
        if isinstance(s, ir.AssignStmt) and s.var.name_hint == name:
            return s.var
        if isinstance(s, ir.ForStmt):
            for v in (*(it.var for it in s.iter_args), *s.return_vars):
                if v.name_hint == name:
                    return v
        if isinstance(s, ir.IfStmt):
            for v in s.return_vars:
                if v.name_hint == name:
                    return v
    raise KeyError(name)


def span_of(live: Liveness, fn: ir.Function, name: str) -> tuple[int, int]:
    """The (first, last) source lines of the buffer `name` lives in."""
    b = live.buffer(var(fn, name))
    assert b is not None
    return live.line(b.start), live.line(b.end)


STRAIGHT = """
t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
u: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(t)
w: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.add(u, t)
dead: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(w)
nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(w, [0, 0], out)
return nxt
"""


def test_a_tile_lives_from_its_definition_to_its_last_read() -> None:
    fn, live = analyse(STRAIGHT)
    first = live.line(0)  # the line of `t`
    assert span_of(live, fn, "t") == (first, first + 2)
    assert span_of(live, fn, "u") == (first + 1, first + 2)
    assert span_of(live, fn, "w") == (first + 2, first + 4)


def test_a_tile_never_read_lives_at_its_definition_only() -> None:
    fn, live = analyse(STRAIGHT)
    b = live.buffer(var(fn, "dead"))
    assert b is not None
    assert b.start == b.end


def test_ranges_that_touch_do_not_overlap() -> None:
    """`w = add(u, t)` reads `u` for the last time where it writes `w`."""
    fn, live = analyse(STRAIGHT)
    u, w, t = (live.buffer(var(fn, n)) for n in ("u", "w", "t"))
    assert u is not None
    assert w is not None
    assert t is not None
    assert u.end == w.start
    assert not u.overlaps(w)
    assert t.overlaps(u)


def test_a_copy_and_an_in_place_result_name_their_source_buffer() -> None:
    fn, live = analyse(
        """
m: pl.Tile[[64, 64], pl.BF16, pl.Mem.Mat] = pl.load(x, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
l: pl.Tile[[64, 64], pl.BF16, pl.Mem.Left] = pl.tile.move(m, target_memory=pl.Mem.Left)
r: pl.Tile[[64, 64], pl.BF16, pl.Mem.Right] = pl.tile.move(m, target_memory=pl.Mem.Right)
c0: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(l, r)
c1: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c0, l, r)
c2 = c1
nxt: pl.Tensor[[64, 64], pl.FP32] = pl.store(c2, [0, 0], out)
return nxt
""",
        params="x: pl.Tensor[[64, 64], pl.BF16], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]",
        ret="pl.Tensor[[64, 64], pl.FP32]",
    )
    buffers = {live.buffer_of[var(fn, n).id] for n in ("c0", "c1", "c2")}
    assert len(buffers) == 1
    (b,) = (live.buffers[k] for k in buffers)
    assert b.owner.name_hint == "c0"
    assert b.producer == "tile.matmul"


def test_a_view_lives_in_its_source_buffer_and_extends_it() -> None:
    fn, live = analyse(
        """
t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
v: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(t, [32, 128])
u: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec] = pl.exp(v)
nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(u, [0, 0], out)
return nxt
"""
    )
    assert live.buffer_of[var(fn, "v").id] == live.buffer_of[var(fn, "t").id]
    first = live.line(0)
    assert span_of(live, fn, "t") == (first, first + 2)


LOOP = """
g: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
seed: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [64, 0], [64, 64])
for i, (acc,) in pl.range(4, init_values=(seed,)):
    t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
    m: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.mul(t, g)
    s: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.add(acc, m)
    after: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(t)
    r = pl.yield_(s)
nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(r, [0, 0], out)
return nxt
"""


def test_a_tile_read_inside_a_loop_lives_to_the_loop_end() -> None:
    """`g` is read at the second statement of the body, and again in every later iteration."""
    fn, live = analyse(LOOP)
    loop_end = live.line(0) + 7  # the yield
    assert span_of(live, fn, "g")[1] == loop_end


def test_a_loop_carry_is_one_buffer_live_across_the_loop() -> None:
    fn, live = analyse(LOOP)
    ids = {live.buffer_of[var(fn, n).id] for n in ("seed", "acc", "s", "r")}
    assert len(ids) == 1
    first = live.line(0)
    assert span_of(live, fn, "seed") == (first + 1, first + 8)


def test_a_tile_local_to_the_body_is_not_extended() -> None:
    fn, live = analyse(LOOP)
    first = live.line(0)
    assert span_of(live, fn, "t") == (first + 3, first + 6)
    assert span_of(live, fn, "m") == (first + 4, first + 5)


def test_nested_loops_extend_to_the_outermost_loop_entered_after_the_definition() -> None:
    fn, live = analyse(
        """
g: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
for o, (d0,) in pl.range(2, init_values=(out,)):
    h: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [o * 64, 0], [64, 64])
    for i, (d1,) in pl.range(2, init_values=(d0,)):
        e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.add(g, h)
        n1: pl.Tensor[[256, 64], pl.FP32] = pl.store(e, [i * 64, 0], d1)
        y1 = pl.yield_(n1)
    last: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(h)
    n0: pl.Tensor[[256, 64], pl.FP32] = pl.store(last, [0, 0], y1)
    y0 = pl.yield_(n0)
return y0
"""
    )
    first = live.line(0)
    assert span_of(live, fn, "g")[1] == first + 9  # the outer loop's yield
    assert span_of(live, fn, "h") == (first + 2, first + 7)  # the inner loop, then `last`


def test_an_if_result_shares_the_buffer_of_what_its_branches_yield() -> None:
    fn, live = analyse(
        """
t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
if n > 0:
    p: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(t)
    r = pl.yield_(p)
else:
    q: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.relu(t)
    r = pl.yield_(q)
nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(r, [0, 0], out)
return nxt
""",
        params="a: pl.Tensor[[256, 64], pl.FP32], n: pl.Scalar[pl.INDEX], "
        "out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]",
    )
    ids = {live.buffer_of[var(fn, n).id] for n in ("r", "p", "q")}
    assert len(ids) == 1
    (b,) = (live.buffers[k] for k in ids)
    assert b.owner.name_hint == "r"  # allocated at the if, before its branches
    assert b.producer is None


def test_replicated_clones_carry_their_membership_and_their_own_ranges() -> None:
    from slotsat.lowering.lower_pipeline_loops import LowerPipelineLoops

    fn, _ = analyse(
        """
for i, (dst,) in pl.pipeline(4, stage=2, init_values=(out,)):
    t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
    e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(t)
    nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(e, [i * 64, 0], dst)
    r = pl.yield_(nxt)
return r
"""
    )
    fn = LowerPipelineLoops().run(fn).function
    live = liveness(fn)
    loads = [s.var for s in ir.walk_stmts(fn.body) if isinstance(s, ir.AssignStmt) and s.var.name_hint == "t"]
    t0, t1 = (live.buffer(v) for v in loads)
    assert t0 is not None
    assert t1 is not None
    assert (t0.membership, t1.membership) == (((0, 0),), ((0, 1),))
    assert t0.end < t1.start  # clone 0's load is dead before clone 1's


def test_membership_strings_parse_like_the_reference() -> None:
    assert parse_membership("0:1;2:0") == ((0, 1), (2, 0))
    assert parse_membership("3:x;1:2;junk") == ((1, 2),)
    assert parse_membership(None) == ()
