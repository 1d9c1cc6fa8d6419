"""A seeded generator of realistic random tile kernels, written as DSL text (`10-dsl.md`).

The benchmark regenerates its random corpus from a seed on every run, so every figure in the
report comes from kernels the run itself produced; `bench/corpus/` holds a few fixed
generated files for the smoke tests and for reading.

What a generated file looks like:

- one `@pl.program` with one or more `InCore` functions; each function holds at most
  `MAX_LOOPS_PER_FUNCTION` loops, so a 10,000-loop file is a few thousand small kernels
  (slotsat builds one e-graph per function, `60-egraph-engine.md` §3, and the per-function
  capacity budget of `20-lower-pipeline-to-slots.md` §8.3 stays well within the Vec space);
- loop nests 1 to 3 deep, each loop `pl.pipeline(START, STOP, STEP, stage=F)` (F in 2..4)
  or a plain `pl.range`, with literal starts that are aligned (`start % F == 0`) or not,
  steps 1, 2 or 4, literal stops or a runtime stop (the scalar parameter `n`);
- every loop carries the output tensor (`init_values=(...)`) and stores into it, so the
  loop bodies are live;
- loads whose offsets use `//` and `%`, with negative offsets (`(i - 3) // 2 * 8`) and sums
  of induction variables (`(i + j) % 16 * 8`);
- author-declared rotations `pl.MemRef("asK", slots=N)[(i + 1) % N]` with positive and
  negative offsets and stepped counters; each declaration is bound once, in one loop body,
  so no region is co-live (blocker B9) and every file compiles under the `PTOAS` planner;
- in some functions, a straight-line prologue that ping-pongs between the constant slots
  `[0]` and `[1]` of one declaration (the same-block pairs of `40-...` §8).

Everything stays inside the DSL subset; the test suite parses every generated file.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

MAX_LOOPS_PER_FUNCTION = 8
"""Loops per generated function; the capacity budget is per function (`20-...` §8.3)."""

TILE_ROWS = 8
TILE_COLS = 64
TENSOR_ROWS = 8192
_TILE = f"pl.Tile[[{TILE_ROWS}, {TILE_COLS}], pl.FP16, pl.Mem.Vec]"
_TENSOR = f"pl.Tensor[[{TENSOR_ROWS}, {TILE_COLS}], pl.FP16]"
_SHAPE = f"[{TILE_ROWS}, {TILE_COLS}]"


@dataclass(frozen=True, slots=True)
class GeneratedKernel:
    """One generated kernel file: its name (also the program name), text and loop count."""

    name: str
    text: str
    loops: int
    seed: int


@dataclass(frozen=True, slots=True)
class _Loop:
    """The shape of one generated loop (all literal except a runtime stop)."""

    var: str
    start: int
    stop: int | None  # None: the runtime stop `n`
    step: int
    stages: int  # 1: a plain pl.range

    @property
    def trip_hi(self) -> int:
        """An upper bound on the induction variable for choosing realistic offsets."""
        return self.start + 64 * self.step if self.stop is None else self.stop


@dataclass(slots=True)
class _Function:
    """Emission state of one generated function."""

    rng: random.Random
    lines: list[str] = field(default_factory=list)
    counter: int = 0
    regions: int = 0
    loops: int = 0

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"


def _loop_header(loop: _Loop, carried: str, init: str) -> str:
    stop = "n" if loop.stop is None else str(loop.stop)
    bounds = f"{loop.start}, {stop}, {loop.step}"
    if loop.stages > 1:
        bounds += f", stage={loop.stages}"
        return f"for {loop.var}, ({carried},) in pl.pipeline({bounds}, init_values=({init},)):"
    return f"for {loop.var}, ({carried},) in pl.range({bounds}, init_values=({init},)):"


def _random_loop(fn: _Function, var: str) -> _Loop:
    rng = fn.rng
    stages = rng.choice((1, 2, 2, 2, 3, 4, 4))
    step = rng.choice((1, 1, 1, 2, 4))
    if rng.random() < 0.5:
        start = rng.choice((0, 0, max(stages, 2), 2 * max(stages, 2)))  # aligned: start % F == 0
    else:
        start = rng.choice((1, 3, 5, 6, 7))  # unaligned
    trips = rng.randint(2, 48)
    stop: int | None = start + trips * step
    # A runtime stop. A pipeline loop keeps a unit step then (gate L4), so every generated
    # pipeline loop is rotated: a replicated body would clone its author-bound tiles, which
    # codegen rejects as co-live (blocker B9, `20-...` §12.5).
    if (step == 1 or stages == 1) and rng.random() < 0.2:
        stop = None
    return _Loop(var, start, stop, step, stages)


def _offset(fn: _Function, loops: list[_Loop]) -> str:
    """A row offset expression over the enclosing induction variables, in rows of the tile."""
    rng = fn.rng
    inner = loops[-1]
    i = inner.var
    options = [
        f"{i} * {TILE_ROWS}",
        f"{i} * {TILE_ROWS}",
        f"({i} - {inner.start}) * {TILE_ROWS}",
        f"({i} - {rng.randint(1, 3)}) // 2 * {TILE_ROWS}",
        f"({i} + {rng.randint(1, 5)}) % {rng.choice((8, 16, 32))} * {TILE_ROWS}",
        f"({i} - {rng.randint(1, 4)}) % {rng.choice((4, 16))} * {TILE_ROWS}",
        f"{i} // {rng.choice((2, 4))} * {TILE_ROWS}",
    ]
    if len(loops) > 1:
        o = loops[-2].var
        options += [
            f"({o} + {i}) % 16 * {TILE_ROWS}",
            f"({o} * 4 + {i}) * {TILE_ROWS}",
            f"({o} - {i}) // 4 * {TILE_ROWS}",
        ]
    return rng.choice(options)


def _slot_subscript(fn: _Function, loops: list[_Loop], n: int) -> str:
    """An author slot subscript rotating over `n` slots, as authors write them."""
    rng = fn.rng
    loop = loops[-1]
    i = loop.var
    options = [
        f"{i} % {n}",
        f"({i} + 1) % {n}",
        f"({i} + {rng.randint(1, 5)}) % {n}",
        f"({i} - {rng.randint(1, 3)}) % {n}",
    ]
    if loop.start > 0:
        options.append(f"({i} - {loop.start}) % {n}")
    if loop.step > 1:
        if loop.start > 0:
            options.append(f"({i} - {loop.start}) // {loop.step} % {n}")
        else:
            options.append(f"{i} // {loop.step} % {n}")
        options.append(f"({i} // {loop.step} + 1) % {n}")
    if len(loops) > 1:
        options.append(f"({loops[-2].var} + {i}) % {n}")
    return rng.choice(options)


def _body(fn: _Function, loops: list[_Loop], carried: str, indent: str) -> str:
    """Loads, compute and one store into `carried`; returns the stored tensor's name."""
    rng = fn.rng
    lines = fn.lines
    loads: list[str] = []
    for _ in range(rng.choice((1, 1, 2))):
        t = fn.fresh("x")
        src = rng.choice(("a", "b"))
        lines.append(f"{indent}{t}: {_TILE} = pl.load({src}, [{_offset(fn, loops)}, 0], {_SHAPE})")
        loads.append(t)
    if rng.random() < 0.4:
        fn.regions += 1
        slots = rng.choice((2, 2, 2, 3, 4))
        t = fn.fresh("s")
        memref = f'pl.MemRef("as{fn.regions}", slots={slots})[{_slot_subscript(fn, loops, slots)}]'
        tile = f"pl.Tile[[{TILE_ROWS}, {TILE_COLS}], pl.FP16, {memref}, pl.Mem.Vec]"
        lines.append(f"{indent}{t}: {tile} = pl.load(a, [{_offset(fn, loops)}, 0], {_SHAPE})")
        loads.append(t)
    value = loads[0]
    for other in loads[1:]:
        r = fn.fresh("y")
        lines.append(f"{indent}{r}: {_TILE} = pl.add({value}, {other})")
        value = r
    e = fn.fresh("e")
    op = rng.choice(("exp", "exp", "sqrt", "abs"))
    lines.append(f"{indent}{e}: {_TILE} = pl.{op}({value})")
    nxt = fn.fresh("w")
    lines.append(f"{indent}{nxt}: {_TENSOR} = pl.store({e}, [{_offset(fn, loops)}, 0], {carried})")
    return nxt


def _constant_slots(fn: _Function, indent: str) -> str:
    """Straight-line ping-pong on constant slots of one declaration, stored to `out`."""
    fn.regions += 1
    decl = f'pl.MemRef("cs{fn.regions}", slots=2)'
    first, second = fn.fresh("c"), fn.fresh("c")
    row = fn.rng.randint(0, 16) * TILE_ROWS
    fn.lines += [
        f"{indent}{first}: pl.Tile[{_SHAPE}, pl.FP16, {decl}[0], pl.Mem.Vec] = "
        f"pl.load(a, [{row}, 0], {_SHAPE})",
        f"{indent}{second}: pl.Tile[{_SHAPE}, pl.FP16, {decl}[1], pl.Mem.Vec] = pl.exp({first})",
    ]
    stored = fn.fresh("w")
    fn.lines.append(f"{indent}{stored}: {_TENSOR} = pl.store({second}, [{row}, 0], out)")
    return stored


def _nest(fn: _Function, depth: int, loops: list[_Loop], init: str, indent: str) -> str:
    """Emit a loop nest of `depth` loops carrying `init`; returns the nest's result name."""
    var = ("i", "j", "k")[len(loops)] + str(fn.counter + 1)
    loop = _random_loop(fn, var)
    first = fn.loops == 0
    fn.loops += 1
    direct_body = first or depth == 1 or fn.rng.random() < 0.5
    if first and loop.stages == 1:
        # Every kernel pipelines something: its first loop is a pipeline loop with its own loads.
        stop = loop.stop if loop.stop is not None or loop.step == 1 else loop.start + 16 * loop.step
        loop = replace(loop, stages=fn.rng.choice((2, 3, 4)), stop=stop)
    if not direct_body and loop.stages > 1:
        # A pipeline loop with no load of its own is declined (no candidates) and replicated
        # together with everything under it, so an outer loop without loads is a plain range.
        loop = replace(loop, stages=1)
    carried = fn.fresh("d")
    result = fn.fresh("r")
    fn.lines.append(indent + _loop_header(loop, carried, init))
    inner_indent = indent + "    "
    nested = [*loops, loop]
    current = carried
    if depth > 1 and direct_body:
        current = _body(fn, nested, current, inner_indent)
    if depth > 1:
        current = _nest(fn, depth - 1, nested, current, inner_indent)
    else:
        current = _body(fn, nested, current, inner_indent)
    fn.lines.append(f"{inner_indent}{result} = pl.yield_({current})")
    return result


def _function(rng: random.Random, name: str, loops: int) -> tuple[list[str], int]:
    """One InCore function with exactly `loops` loops; returns its lines and loop count."""
    fn = _Function(rng)
    indent = " " * 8
    current = "out"
    if rng.random() < 0.25:
        current = _constant_slots(fn, indent)
    remaining = loops
    while remaining > 0:
        depth = min(remaining, rng.choice((1, 1, 2, 2, 3)))
        current = _nest(fn, depth, [], current, indent)
        remaining -= depth
    head = [
        "    @pl.function(type=pl.FunctionType.InCore)",
        f"    def {name}(",
        "        self,",
        f"        a: {_TENSOR},",
        f"        b: {_TENSOR},",
        "        n: pl.Scalar[pl.INDEX],",
        f"        out: pl.Out[{_TENSOR}],",
        f"    ) -> {_TENSOR}:",
    ]
    return [*head, *fn.lines, f"{indent}return {current}"], loops


def generate_kernel(seed: int, loops: int, name: str | None = None) -> GeneratedKernel:
    """A kernel file with exactly `loops` loops (1 to 10,000 and beyond), deterministic in `seed`."""
    if loops < 1:
        raise ValueError(f"a generated kernel needs at least one loop, got {loops}")
    rng = random.Random(f"slotsat-bench:{seed}:{loops}")
    program = name if name is not None else f"Gen{seed}L{loops}"
    lines = [
        "# type: ignore",
        f"# A slotsat bench kernel: bench.generate.generate_kernel(seed={seed}, loops={loops}).",
        "import pypto.language as pl",
        "",
        "",
        "@pl.program",
        f"class {program}:",
    ]
    remaining = loops
    index = 0
    while remaining > 0:
        count = min(remaining, rng.randint(1, MAX_LOOPS_PER_FUNCTION))
        if index > 0:
            lines.append("")
        body, used = _function(rng, f"kernel_{index}", count)
        lines += body
        remaining -= used
        index += 1
    return GeneratedKernel(program, "\n".join(lines) + "\n", loops, seed)


def generate_corpus(seed: int, count: int, max_loops: int = 24) -> list[GeneratedKernel]:
    """`count` random kernels of 1 to `max_loops` loops, deterministic in `seed`."""
    rng = random.Random(f"slotsat-bench-corpus:{seed}")
    kernels: list[GeneratedKernel] = []
    for k in range(count):
        loops = rng.randint(1, max_loops)
        kernels.append(generate_kernel(seed * 1000 + k, loops, name=f"Random{seed}_{k:03d}"))
    return kernels


def count_loops(text: str) -> int:
    """The number of `pl.range` / `pl.pipeline` loops in kernel text (for reports on --corpus)."""
    return text.count("in pl.range(") + text.count("in pl.pipeline(")
