"""The IR side of the "pairs resolved" metric: slot indices, rotation operands, ground truth.

For every `pto.multi_tile_get` the compiler emits, the benchmark needs the IR slot index it
came from (for the ground truth, which is IR semantics, `40-ptoas-slot-matcher.md` §8) and
the operand the next iteration would use (for the rotation pairs). Both come from the IR
`compile_module` hands back (after init-memref, what codegen read):

- `ir_gets(fn)`: the slotted tile definitions in program order, which is the emission order
  of their gets; the benchmark checks the count against the emitted text.
- `probe_function(fn, mode)`: one `IndexEngine` per function holding every root codegen's
  engine holds (slot indices, offsets, bounds, scalar expressions: `pto_codegen.emission_sites`
  and `plain_root`, so the two cannot drift) and, for each enclosing loop a slot index reads,
  the index with `iv -> iv + step` substituted. Every root is chosen in codegen's emission
  order against an `EmittedScope` (block scopes pushed and popped like codegen's), so a slot
  operand shares exactly what codegen's did; each rotation operand is chosen right after its real
  operand against a throwaway copy of that scope, so it shares what the block already
  emitted but never makes a later real operand cheaper and never reaches the `.pto` output.
  The chosen terms become matcher values (`slotsat.egraph_rules.costs.to_value`) with one memo
  per get, so the pair shares SSA values exactly where the extraction shared e-classes.
  The saturation report and the time spent choosing are the kernel's e-graph figures.
  `probe_functions(fns, mode)` probes a module's functions with their engines saturated
  together, as codegen saturates them (the compile-time scaling points' e-graph figures).
- `IrSpace`: the iteration space of a get's enclosing loops for exact evaluation
  (`slotsat.core.semantics.eval_expr`), with dependent bounds evaluated under the outer
  variables, a runtime bound taken at its widest, and free scalars sampled over their dtype.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from slotsat.analysis.matcher import Value, ValueGraph
from slotsat.core import ir
from slotsat.core.options import Mode
from slotsat.core.semantics import eval_expr
from slotsat.egraph_rules.costs import to_value
from slotsat.egraph_rules.engine import EmittedScope, IndexEngine, RootId, saturate_together
from slotsat.egraph_rules.loops import LoopInfo
from slotsat.lowering.pto_codegen import emission_sites, plain_root, root_batches

EXHAUSTIVE_POINTS = 4096
EDGE_ITERATIONS = 64
RANDOM_POINTS = 512
INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1


@dataclass(frozen=True, slots=True)
class IrGet:
    """A slotted tile definition: the IR of one emitted `pto.multi_tile_get`."""

    function: str
    tile: str
    index: ir.Expr
    count: int
    loops: tuple[ir.ForStmt, ...]


def _is_get(s: ir.Stmt) -> ir.MemRef | None:
    if not isinstance(s, ir.AssignStmt) or isinstance(s.value, ir.Var):
        return None
    t = s.var.type
    if not isinstance(t, ir.TileType) or t.memref is None:
        return None
    m = t.memref
    if m.slot_count < 2 or m.slot_index is None:
        return None
    return m


def ir_gets(fn: ir.Function) -> list[IrGet]:
    """Every slotted tile definition of `fn`, in program order."""
    gets: list[IrGet] = []

    def walk(body: ir.SeqStmts, loops: tuple[ir.ForStmt, ...]) -> None:
        for s in body.stmts:
            m = _is_get(s)
            if m is not None and m.slot_index is not None and isinstance(s, ir.AssignStmt):
                gets.append(IrGet(fn.name, s.var.name_hint, m.slot_index, m.slot_count, loops))
            if isinstance(s, ir.ForStmt):
                walk(s.body, (*loops, s))
            elif isinstance(s, ir.IfStmt):
                walk(s.then_body, loops)
                if s.else_body is not None:
                    walk(s.else_body, loops)

    walk(fn.body, ())
    return gets


def reads(e: ir.Expr, v: ir.Var) -> bool:
    return any(x is v for x in ir.expr_vars(e))


def substitute(e: ir.Expr, v: ir.Var, by: ir.Expr) -> ir.Expr:
    """`e` with every read of `v` replaced by `by`."""
    if isinstance(e, ir.Var):
        return by if e is v else e
    if isinstance(e, ir.Add | ir.Sub | ir.Mul | ir.FloorDiv | ir.FloorMod | ir.Cmp):
        return replace(e, a=substitute(e.a, v, by), b=substitute(e.b, v, by))
    if isinstance(e, ir.Cast):
        return replace(e, a=substitute(e.a, v, by))
    return e


def next_iteration(e: ir.Expr, loop: ir.ForStmt) -> ir.Expr:
    """The slot index at the next iteration of `loop`: `iv -> iv + step` (§8)."""
    return substitute(e, loop.loop_var, ir.Add(loop.loop_var, loop.step, ir.DType.INDEX))


# --------------------------------------------------------------------------------------
# the engine probe


@dataclass(slots=True)
class Rotation:
    """One rotation pair: a get's operand and its next-iteration operand along `loop`."""

    get: int
    loop: ir.ForStmt
    a: Value
    b: Value
    index: ir.Expr
    next_index: ir.Expr


@dataclass(slots=True)
class Probe:
    """A function's probe: the chosen operands, rotation pairs and e-graph figures."""

    operands: list[Value] = field(default_factory=list)
    rotations: list[Rotation] = field(default_factory=list)
    nodes: int = 0
    iterations: int = 0
    saturate_seconds: float = 0.0
    extract_seconds: float = 0.0


def _scope_copy(scope: EmittedScope) -> EmittedScope:
    copy = EmittedScope()
    for key, term in scope.items():
        copy.add(key, term)
    return copy


_Event = tuple[tuple[int, ...], int, RootId, list[tuple[ir.ForStmt, RootId, ir.Expr]]]
"""One root in codegen's emission order: its blocks, the get index (-1 for a plain root), the
root and, for a get, its rotation roots (loop, root, next-iteration index)."""


def _replay(fn: ir.Function, gets: list[IrGet], engine: IndexEngine) -> list[_Event]:
    """Codegen's emission, replayed: every root its engine holds, in the order it chooses them
    (`pto_codegen.emission_sites`, `plain_root`), so a slot operand shares what codegen's did."""
    seen: set[int] = set()

    def add_loop(info: LoopInfo) -> None:
        if info.var.id not in seen:
            seen.add(info.var.id)
            engine.add_loop(info)

    events: list[_Event] = []
    k = 0
    for site in emission_sites(fn):
        for info in site.loops:
            add_loop(info)
        if isinstance(site.item, ir.Var):
            if k >= len(gets) or gets[k].tile != site.item.name_hint:
                continue
            events.append((site.blocks, k, *_get_roots(gets[k], engine, add_loop)))
            k += 1
        else:
            root = plain_root(site.item[0], site.item[1])
            if root is not None:
                events.append((site.blocks, -1, engine.add_root(root), []))
    for index, g in enumerate(gets[k:], start=k):  # not in emission_sites (none in compiled IR)
        events.append(((), index, *_get_roots(g, engine, add_loop)))
    return events


def _get_roots(
    g: IrGet, engine: IndexEngine, add_loop: Callable[[LoopInfo], None]
) -> tuple[RootId, list[tuple[ir.ForStmt, RootId, ir.Expr]]]:
    """A get's root and its rotation roots (one per enclosing loop its index reads)."""
    rotated = []
    for loop in g.loops:
        add_loop(LoopInfo(loop.loop_var, loop.start, loop.stop, loop.step))
        if reads(g.index, loop.loop_var):
            nxt = next_iteration(g.index, loop)
            rotated.append((loop, engine.add_root(nxt, slots=g.count), nxt))
    return engine.add_root(g.index, slots=g.count), rotated


def probe_function(fn: ir.Function, mode: Mode) -> Probe:
    """Choose every root of `fn` in codegen's order and each slot operand's rotation operands
    in one engine (see above)."""
    return probe_functions([fn], mode)[0]


def probe_functions(fns: Sequence[ir.Function], mode: Mode) -> list[Probe]:
    """`probe_function` of each of `fns`, their engines saturated as codegen saturates a
    module's: together, in codegen's batches (`pto_codegen.root_batches`,
    `saturate_together`; each function's part of a joint e-graph evolves as in its own, so
    every choice is the one its own engine makes). Each joint e-graph's figures (nodes,
    rounds, seconds) are reported by its first function and zero by the others, so their sums
    over `fns` count every e-graph once."""
    prepared: list[tuple[Probe, IndexEngine | None, list[_Event], list[IrGet]]] = []
    for fn in fns:
        gets = ir_gets(fn)
        engine = IndexEngine(mode) if gets else None
        prepared.append((Probe(), engine, _replay(fn, gets, engine) if engine is not None else [], gets))
    engines = [engine for _, engine, _, _ in prepared if engine is not None]
    for batch in root_batches(engines, lambda engine: len(engine.roots)):
        saturate_together(batch)
    for probe, saturated, events, gets in prepared:
        if saturated is not None:
            _choose_all(probe, saturated, events, gets)
    return [probe for probe, _, _, _ in prepared]


def _choose_all(probe: Probe, engine: IndexEngine, events: list[_Event], gets: list[IrGet]) -> None:
    """Choose every root of a saturated engine in codegen's order (see the module docstring)."""
    report = engine.saturate().report
    probe.nodes, probe.iterations, probe.saturate_seconds = report.nodes, report.iterations, report.seconds
    started = time.perf_counter()
    scope = EmittedScope()
    open_blocks: list[int] = []
    graph = ValueGraph()
    for blocks, index, real, rotated in events:
        common = 0
        while common < min(len(open_blocks), len(blocks)) and open_blocks[common] == blocks[common]:
            common += 1
        while len(open_blocks) > common:
            scope.pop()
            open_blocks.pop()
        for b in blocks[common:]:
            scope.push()
            open_blocks.append(b)
        chosen = engine.choose(real, scope)
        if index < 0:
            continue
        memo: dict[object, Value] = {}
        a = to_value(chosen.term, graph, memo)
        probe.operands.append(a)
        for loop, side_root, nxt in rotated:
            side = engine.choose(side_root, _scope_copy(scope))
            b_value = to_value(side.term, graph, dict(memo))
            probe.rotations.append(Rotation(index, loop, a, b_value, gets[index].index, nxt))
    probe.extract_seconds = time.perf_counter() - started
    engine.release()


# --------------------------------------------------------------------------------------
# ground truth over the IR iteration space


Key = int | str
"""An environment key: a `Var` id (IR evaluation) or an SSA name (emitted-chain evaluation)."""
Env = dict[Key, int]


def _eval(e: ir.Expr, env: Mapping[Any, int], default: int) -> int:
    try:
        return eval_expr(e, env)
    except (KeyError, ArithmeticError):
        return default


def _free_values(dtype: ir.DType, rng: random.Random) -> list[int]:
    lo, hi = dtype.min_value, dtype.max_value
    edges = [lo, lo + 1, -3, -2, -1, 0, 1, 2, 3, hi - 1, hi]
    return sorted({dtype.wrap(x) for x in edges}) + [rng.randint(lo, hi) for _ in range(8)] \
        + [dtype.wrap(rng.randint(-64, 64)) for _ in range(8)]


@dataclass(frozen=True, slots=True)
class Dim:
    """One dimension of an iteration space: a loop variable, or a free runtime scalar."""

    key: Key
    values: Callable[[Mapping[Any, int]], Sequence[int]]
    is_loop: bool


def fixed_values(values: list[int]) -> Callable[[Mapping[Any, int]], Sequence[int]]:
    """A dimension whose values do not depend on the outer ones (a free scalar)."""

    def get(env: Mapping[Any, int]) -> Sequence[int]:
        return values

    return get


def _loop_dim(loop: ir.ForStmt, shrink: bool) -> Dim:
    def values(env: Mapping[Any, int]) -> Sequence[int]:
        lb = _eval(loop.start, env, INT64_MIN)
        ub = _eval(loop.stop, env, INT64_MAX)
        step = _eval(loop.step, env, 1)
        if step <= 0:
            return range(0)
        return range(lb, ub - (step if shrink else 0), step)

    return Dim(loop.loop_var.id, values, True)


def dims_for(loops: Sequence[ir.ForStmt], exprs: Sequence[ir.Expr], rotated: ir.ForStmt | None,
             rng: random.Random) -> list[Dim]:
    """Loops outermost first (the rotated loop without its last iteration), then every free
    scalar the expressions read. A scalar read only by loop bounds is a runtime bound, taken
    at its widest rather than sampled."""
    dims = [_loop_dim(loop, loop is rotated) for loop in loops]
    loop_ids = {loop.loop_var.id for loop in loops}
    bound_ids = {v.id for loop in loops for b in (loop.start, loop.stop, loop.step) for v in ir.expr_vars(b)}
    free: dict[int, ir.Var] = {}
    for e in exprs:
        for v in ir.expr_vars(e):
            if v.id not in loop_ids and v.id not in bound_ids and v.dtype.is_int:
                free.setdefault(v.id, v)
    for vid in sorted(free):
        dims.append(Dim(vid, fixed_values(_free_values(free[vid].dtype, rng)), False))
    return dims


class Space:
    """The points of an iteration space: exhaustive up to 4,096, else the §8 sample (the first
    and last 64 iterations of each loop, other dimensions at seeded random values, plus 512
    seeded random points)."""

    def __init__(self, dims: list[Dim], seed: int) -> None:
        self.dims = dims
        self.rng = random.Random(seed)

    def exhaustive(self) -> list[Env] | None:
        points: list[Env] = []

        def walk(k: int, env: Env) -> bool:
            if k == len(self.dims):
                points.append(dict(env))
                return len(points) <= EXHAUSTIVE_POINTS
            d = self.dims[k]
            values = d.values(env)
            if len(values) > EXHAUSTIVE_POINTS:
                return False
            for v in values:
                env[d.key] = v
                if not walk(k + 1, env):
                    return False
            env.pop(d.key, None)
            return True

        return points if walk(0, {}) else None

    def _point(self, pinned: tuple[int, int] | None) -> Env | None:
        env: Env = {}
        for k, d in enumerate(self.dims):
            values = d.values(env)
            if len(values) == 0:
                return None
            if pinned is not None and pinned[0] == k:
                index = pinned[1] if pinned[1] >= 0 else len(values) + pinned[1]
                if not 0 <= index < len(values):
                    return None
                env[d.key] = values[index]
            else:
                env[d.key] = values[self.rng.randrange(len(values))]
        return env

    def sample(self) -> list[Env]:
        points: list[Env] = []
        for k, d in enumerate(self.dims):
            if not d.is_loop:
                continue
            for index in [*range(EDGE_ITERATIONS), *range(-EDGE_ITERATIONS, 0)]:
                p = self._point((k, index))
                if p is not None:
                    points.append(p)
        for _ in range(RANDOM_POINTS):
            p = self._point(None)
            if p is not None:
                points.append(p)
        return points

    def points(self) -> tuple[list[Env], bool]:
        exact = self.exhaustive()
        return (exact, True) if exact is not None else (self.sample(), False)
