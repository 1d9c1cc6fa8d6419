"""A seeded generator of realistic random tile kernels, written as DSL text (`10-dsl.md`).

The benchmark regenerates its random corpus from a seed on every run, so every figure in the
report comes from kernels the run itself produced; `bench/corpus/` holds a few fixed
generated files for the smoke tests and for reading.

What a generated file looks like:

- one `@pl.program` with one or more `InCore` functions; each function holds at most
  `MAX_LOOPS_PER_FUNCTION` loops, so a 10,000-loop file is a few thousand small kernels
  (slotsat builds one e-graph per function, `60-egraph-engine.md` §3, and the per-function
  capacity budget of `20-lower-pipeline-to-slots.md` §8.3 stays well within the Vec space);
- loop nests 1 to 3 deep (at most `MAX_TRIPS` iterations per level), each loop
  `pl.pipeline(START, STOP, STEP, stage=F)` (F in 2..4) or a plain `pl.range`, with literal
  starts that are aligned (`start % F == 0`) or not, steps 1, 2 or 4, literal stops or a
  runtime stop (the scalar parameter `n`);
- every loop carries the output tensor (`init_values=(...)`) and stores into it, so the
  loop bodies are live;
- loads whose offsets use `//` and `%`, with negative offsets (`(i - 3) // 2 * 8`,
  `(i + (-1)) * 8`, `(i - 2) % 16 * 8`) and sums of induction variables
  (`(i + j) % 16 * 8`, `(i * 4 + j) * 8`); each offset's range over the loop nest is
  computed with the text, and a literal shift written into the sum (`(i + 2 - 3) // 2`)
  keeps it at or above row 0, so every load and store lands inside the tensor on every
  iteration (a runtime stop is sized up to `RUNTIME_STOP_MAX`; `slotsat check` draws it in
  [0, 8]) and the kernels pass `slotsat check`;
- author-declared rotations `pl.MemRef("asK", slots=N)[(i + 1) % N]` whose subscript is the
  rotation counter `((i - start) // step + k) % N` of `20-lower-pipeline-to-slots.md` §4.2
  in one of its simplified spellings (`(i + k) % N` for a unit step, `i // step % N`,
  `(i - start) // step % N`, next / previous iteration `+ 1` / `- 1`), so consecutive
  iterations take consecutive slots and no author tile is overwritten while live; each
  declaration is bound once, in one loop body, so no region is co-live (blocker B9) and
  every file compiles under the `PTOAS` planner;
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
MAX_TRIPS = (48, 24, 12)
"""The largest literal trip count of an outermost, second and third loop of a nest: a nest
runs at most 48 * 24 * 12 iterations, so `slotsat check` interprets a kernel in seconds."""
ROW_LIMIT = TENSOR_ROWS // TILE_ROWS
"""Tile-row indices in `[0, ROW_LIMIT)` keep a load or store inside the tensor."""
ROW_WRAP = 512
"""The modulus wrapping a row index whose range could reach past `ROW_LIMIT`."""
RUNTIME_STOP_MAX = 64
"""The largest runtime stop `n` the generated offsets are sized for (`slotsat check` draws
scalars in [0, 8]; the bench never runs the kernels)."""
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
    def lo(self) -> int:
        """The smallest value the induction variable takes."""
        return self.start

    @property
    def hi(self) -> int:
        """An upper bound on the induction variable (its last value for a literal stop; for a
        runtime stop, the last value below `RUNTIME_STOP_MAX`)."""
        stop = RUNTIME_STOP_MAX if self.stop is None else self.stop
        if stop <= self.start:
            return self.start
        return self.start + (stop - 1 - self.start) // self.step * self.step


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


def _random_loop(fn: _Function, var: str, level: int) -> _Loop:
    rng = fn.rng
    stages = rng.choice((1, 2, 2, 2, 3, 4, 4))
    step = rng.choice((1, 1, 1, 2, 4))
    if rng.random() < 0.5:
        start = rng.choice((0, 0, max(stages, 2), 2 * max(stages, 2)))  # aligned: start % F == 0
    else:
        start = rng.choice((1, 3, 5, 6, 7))  # unaligned
    trips = rng.randint(2, MAX_TRIPS[level])
    stop: int | None = start + trips * step
    # A runtime stop. A pipeline loop keeps a unit step then (gate L4), so every generated
    # pipeline loop is rotated: a replicated body would clone its author-bound tiles, which
    # codegen rejects as co-live (blocker B9, `20-...` §12.5).
    if (step == 1 or stages == 1) and rng.random() < 0.2:
        stop = None
    return _Loop(var, start, stop, step, stages)


def _floordiv(lo: int, hi: int, d: int) -> tuple[int, int]:
    return lo // d, hi // d


def _floormod(lo: int, hi: int, m: int) -> tuple[int, int]:
    if lo // m == hi // m:
        return lo % m, hi % m
    return 0, m - 1


def _base(lo: int) -> int:
    """The smallest non-negative shift that lifts `lo` to 0 or above."""
    return max(0, -lo)


def _row(fn: _Function, loops: list[_Loop]) -> str:
    """A tile-row index expression over the enclosing induction variables, in bounds.

    Every form keeps its negative offsets and sums (`(i - 3) // 2`, `(i + (-1))`,
    `(j - 2) % 4`, `(i - j) // 4`), and its range over the loop nest (`_Loop.lo` / `hi`) is
    computed alongside the text. A form that could go below row 0 is lifted by a literal
    shift written into the sum (`(i + 2 - 3) // 2`), and one that could reach past the
    tensor wraps (`% ROW_WRAP`), so every load and store lands inside the tensor on every
    iteration. The text is safe to multiply (`TEXT * 8`): sums are parenthesized.
    """
    rng = fn.rng
    inner = loops[-1]
    i, a, b = inner.var, inner.lo, inner.hi
    c = rng.randint(1, min(3, a)) if a > 0 else rng.randint(1, 3)  # a halo from the start
    d = rng.choice((2, 4))
    k = rng.randint(1, 5)
    m = rng.choice((4, 8, 16, 32))
    shift = _base(a - c)
    choice = rng.randrange(10 if len(loops) > 1 else 7)
    lo, hi = a, b
    if choice in (0, 1):
        text = i
    elif choice == 2:
        text, lo, hi = (f"({i} - {inner.start})", 0, b - a) if inner.start > 0 else (i, a, b)
    elif choice == 3:
        head = f"{i} - {c}" if shift == 0 else f"{i} + {shift} - {c}"
        text = f"({head}) // {d}"
        lo, hi = _floordiv(a + shift - c, b + shift - c, d)
    elif choice == 4:
        text = f"({i} + {k}) % {m}"
        lo, hi = _floormod(a + k, b + k, m)
    elif choice == 5:
        # `i - k` is negative on the first iterations: the floor-mod wraps it back in range.
        text = f"({i} - {k}) % {m}"
        lo, hi = _floormod(a - k, b - k, m)
    elif choice == 6:
        if a >= c:
            text, lo, hi = f"({i} + (-{c}))", a - c, b - c
        else:
            text = f"({i} + (-{c})) % {m}"
            lo, hi = _floormod(a - c, b - c, m)
    else:
        outer = loops[-2]
        o, oa, ob = outer.var, outer.lo, outer.hi
        if choice == 7:
            text = f"({o} + {i}) % 16"
            lo, hi = _floormod(oa + a, ob + b, 16)
        elif choice == 8:
            text, lo, hi = f"({o} * 4 + {i})", 4 * oa + a, 4 * ob + b
        else:
            lift = _base(oa - b)
            head = f"{o} - {i}" if lift == 0 else f"{o} + {lift} - {i}"
            text = f"({head}) // 4"
            lo, hi = _floordiv(oa + lift - b, ob + lift - a, 4)
    if hi >= ROW_LIMIT:
        atom = text.isidentifier() or (text.startswith("(") and text.endswith(")") and "//" not in text)
        text = f"{text} % {ROW_WRAP}" if atom else f"({text}) % {ROW_WRAP}"
        lo, hi = 0, ROW_WRAP - 1
    assert 0 <= lo <= hi < ROW_LIMIT, (text, lo, hi)
    return text


def _offset(fn: _Function, loops: list[_Loop]) -> str:
    """A row offset expression over the enclosing induction variables, in rows of the tile."""
    return f"{_row(fn, loops)} * {TILE_ROWS}"


def _slot_subscript(fn: _Function, loops: list[_Loop], n: int) -> str:
    """An author slot subscript rotating over `n` slots, as authors write them.

    Every form is the rotation counter `((i - start) // step + k) % n` of `20-...` §4.2 with
    its identities dropped or folded differently (`(i + k) % n` for a unit step,
    `i // step % n` for any start, `(i - start) % n`, the next or previous iteration's slot
    `+ 1` / `- 1`): consecutive iterations of one loop instance take consecutive slots, so
    `n` iterations in flight never share one (the privacy checker's pipelined model,
    `analysis/privacy.py`).
    """
    rng = fn.rng
    loop = loops[-1]
    i, s, t = loop.var, loop.start, loop.step
    k = rng.randint(1, 5)
    if t == 1:
        options = [
            f"{i} % {n}",
            f"({i} + 1) % {n}",
            f"({i} + {k}) % {n}",
            f"({i} - {rng.randint(1, 3)}) % {n}",
        ]
        if s > 0:
            options.append(f"({i} - {s}) % {n}")
        if len(loops) > 1:
            options.append(f"({loops[-2].var} + {i}) % {n}")
    else:
        options = [
            f"{i} // {t} % {n}",
            f"({i} // {t} + 1) % {n}",
            f"({i} - {rng.randint(1, 3)}) // {t} % {n}",
        ]
        if s > 0:
            options += [
                f"({i} - {s}) // {t} % {n}",
                f"(({i} - {s}) // {t} + {k}) % {n}",
                f"(({i} - {s}) // {t} - 1) % {n}",
            ]
        if len(loops) > 1:
            options.append(f"({loops[-2].var} + {i} // {t}) % {n}")
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
    loop = _random_loop(fn, var, len(loops))
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


SINGLE_STAGES = (2, 3, 4)
SINGLE_STEPS = (1, 2, 8)
SINGLE_MAX_START = 64
SINGLE_MAX_TRIPS = 16
"""The shape of a loop of `generate_single_function`: stage 2-4, step 1, 2 or 8, a literal
start in [0, 64] and 2 to 16 iterations, so the largest row index is 64 + 15 * 8 = 184 and
every load and store lands inside the tensor."""


def _single_offset(rng: random.Random, start: int, step: int) -> str:
    """A row offset of one loop of the single-function shape, in elements (rows of 8)."""
    k = rng.randint(1, 7)
    m = rng.choice((5, 7, 16))
    forms = [
        f"i * {TILE_ROWS}",
        f"(i + {k}) % {m} * {TILE_ROWS}",
        f"(i - {start}) * {TILE_ROWS}",
    ]
    if step > 1:
        forms.append(f"(i - {start}) // {step} * {TILE_ROWS}")
    return rng.choice(forms)


def generate_single_function(seed: int, loops: int, name: str | None = None) -> GeneratedKernel:
    """A kernel file with exactly `loops` sibling pipeline loops in ONE function (issue 14's
    single-function scaling shape), deterministic in `seed`.

    Each loop is one load, one exp, one store and a yield, with a mixed shape (stage 2-4,
    step 1 / 2 / 8, start 0..64, offsets `i * 8`, `(i - s) // st * 8`, `(i + k) % m * 8`,
    `(i - s) * 8`). Every loop rebinds the same names, as people write sibling loops
    (`for i, (t,) in ...`, `x`, `e`, `w`, and the carried `acc`): the front end's SSA
    conversion renames them (`i_1`, `x_1`, ...), so the shape also measures that.
    """
    if loops < 1:
        raise ValueError(f"a generated kernel needs at least one loop, got {loops}")
    rng = random.Random(f"slotsat-bench-single:{seed}:{loops}")
    program = name if name is not None else f"Single{seed}L{loops}"
    indent = " " * 8
    body = " " * 12
    lines = [
        "# type: ignore",
        f"# A slotsat bench kernel: bench.generate.generate_single_function(seed={seed}, loops={loops}).",
        "import pypto.language as pl",
        "",
        "",
        "@pl.program",
        f"class {program}:",
        "    @pl.function(type=pl.FunctionType.InCore)",
        "    def kernel(",
        "        self,",
        f"        a: {_TENSOR},",
        f"        out: pl.Out[{_TENSOR}],",
        f"    ) -> {_TENSOR}:",
        f"{indent}acc: {_TENSOR} = out",
    ]
    for _ in range(loops):
        stages = rng.choice(SINGLE_STAGES)
        step = rng.choice(SINGLE_STEPS)
        start = rng.randint(0, SINGLE_MAX_START)
        stop = start + rng.randint(2, SINGLE_MAX_TRIPS) * step
        lines += [
            f"{indent}for i, (t,) in pl.pipeline({start}, {stop}, {step}, stage={stages}, "
            "init_values=(acc,)):",
            f"{body}x: {_TILE} = pl.load(a, [{_single_offset(rng, start, step)}, 0], {_SHAPE})",
            f"{body}e: {_TILE} = pl.exp(x)",
            f"{body}w: {_TENSOR} = pl.store(e, [{_single_offset(rng, start, step)}, 0], t)",
            f"{body}acc = pl.yield_(w)",
        ]
    lines.append(f"{indent}return acc")
    return GeneratedKernel(program, "\n".join(lines) + "\n", loops, seed)
