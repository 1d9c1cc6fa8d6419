"""Hypothesis-generated tile kernels that both compilers read: the DSL subset slotsat parses,
written the way the reference's front end accepts it.

One `@pl.program` with one InCore function over two `[512, 256]` FP32 tensors, an output
tensor and a scalar `n`. One to three loops, nested up to three deep, each a
`pl.pipeline(START, STOP, STEP, stage=F)` or a `pl.range` that carries the output tensor:

- shapes on both sides of the reference's gate: unit and larger steps, starts that are and
  are not multiples of F, negative starts (multiples of F and not), negative steps,
  runtime bounds (`n`), stages 1 to 4 and 17;
- bodies of loads (8 to 93 rows of 256 FP32, so the Ascend910B Vec budget of the function
  is crossed on both sides), element-wise compute, a view of a load (`pl.reshape`), a load
  stored straight into the output (the reference's all-arguments view gate), a runtime valid
  shape, and nested loops;
- every row offset is a floor remainder of the loop variables times 8, so every load and
  store stays inside the tensors for any iteration;
- one kernel in four has its loops in the body of a while loop (the reference prints its
  counter as a free variable at the hand-off point, `FREE_VAR_SUFFIX`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import strategies as st

ROWS = (8, 8, 8, 32, 64, 92, 93)
"""Rows of a loaded tile (x 256 FP32): 8 KiB up to one row past half the 910B Vec budget."""
STAGES = (1, 2, 2, 2, 2, 3, 4, 4, 17)
COPIES = 34
"""At most this many copies of a body from the replication of the loops around it (the product of
their stages): a drawn stage that would go past it is 1. The reference replicates a runtime-bound
loop of stage 17 inside another into thousands of bodies and takes minutes."""
STARTS = ("0", "0", "0", "0", "0", "1", "2", "3", "4", "8", "-2", "-3", "n")
STEPS = ("1", "1", "1", "1", "1", "2", "3", "-1")
STOPS = ("0", "4", "9", "16", "n")
TENSOR = "pl.Tensor[[512, 256], pl.FP32]"
HEADER = ("import pypto.language as pl\n\n\n@pl.program\nclass Generated:\n"
          "    @pl.function(type=pl.FunctionType.InCore)\n"
          f"    def main(self, a: {TENSOR}, b: {TENSOR}, out: pl.Out[{TENSOR}], n: pl.Scalar[pl.INDEX]) "
          f"-> {TENSOR}:\n")


def _tile(rows: int) -> str:
    return f"pl.Tile[[{rows}, 256], pl.FP32, pl.Mem.Vec]"


@dataclass
class _Gen:
    draw: st.DrawFn
    lines: list[str] = field(default_factory=list)
    count: int = 0

    def fresh(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("    " * (depth + 2) + text)

    def loop(self, depth: int, carried: str, ivs: list[str], copies: int = 1) -> str:
        """One loop nested `depth` deep, carrying `carried`, inside loops whose replication
        makes `copies` copies of this one."""
        d = self.draw
        iv, acc = self.fresh("i"), self.fresh("c")
        if d(st.integers(0, 4)) == 0:
            # never empty: the reference drops a plain loop it can see has no iteration
            header = f"pl.range({d(st.sampled_from(STARTS[:7]))}, {d(st.sampled_from(('16', 'n')))}, 1"
        else:
            stage = d(st.sampled_from(STAGES))
            stage = stage if stage * copies <= COPIES else 1
            copies *= stage
            start, step = d(st.sampled_from(STARTS)), d(st.sampled_from(STEPS))
            stop = d(st.sampled_from(STOPS))
            if step.startswith("-"):
                start, stop = d(st.sampled_from(("8", "9", "16"))), d(st.sampled_from(("0", "-4")))
            header = f"pl.pipeline({start}, {stop}, {step}, stage={stage}"
        self.emit(depth, f"for {iv}, ({acc},) in {header}, init_values=({carried},)):")
        scope = [*ivs, iv]
        row = f"(({' + '.join(scope)}) % 4) * 8"
        b = depth + 1
        tiles: dict[str, int] = {}
        state = acc
        items = ["load", "load", "load", "load", "exp", "exp", "add", "store", "store", "view", "valid",
                 "loop"]
        for item in d(st.lists(st.sampled_from(items), min_size=1, max_size=6)):
            if item == "load":
                rows, src, t = d(st.sampled_from(ROWS)), d(st.sampled_from("ab")), self.fresh("t")
                self.emit(b, f"{t}: {_tile(rows)} = pl.load({src}, [{row}, 0], [{rows}, 256])")
                tiles[t] = rows
            elif item == "valid":
                t = self.fresh("v")
                # no `pl.TileView(...)` in the annotation: the reference prints one but its
                # front end cannot read it back (it fails constructing the view's defaults)
                self.emit(b, f"{t}: {_tile(8)} = pl.load(a, [{row}, 0], [8, 256], valid_shape=[n, 256])")
            elif item == "exp" and tiles:
                src, t = d(st.sampled_from(sorted(tiles))), self.fresh("e")
                self.emit(b, f"{t}: {_tile(tiles[src])} = pl.exp({src})")
                tiles[t] = tiles[src]
            elif item == "add" and tiles:
                x = d(st.sampled_from(sorted(tiles)))
                y = d(st.sampled_from(sorted(k for k, r in tiles.items() if r == tiles[x])))
                t = self.fresh("s")
                self.emit(b, f"{t}: {_tile(tiles[x])} = pl.add({x}, {y})")
                tiles[t] = tiles[x]
            elif item == "view" and tiles:
                src, t = d(st.sampled_from(sorted(tiles))), self.fresh("r")
                rows = tiles[src]
                self.emit(b, f"{t}: pl.Tile[[{rows * 2}, 128], pl.FP32, pl.Mem.Vec] = "
                             f"pl.reshape({src}, [{rows * 2}, 128])")
            elif item == "store" and tiles:
                src, t = d(st.sampled_from(sorted(tiles))), self.fresh("o")
                self.emit(b, f"{t}: {TENSOR} = pl.store({src}, [{row}, 0], {state})")
                state = t
            elif item == "loop" and depth < 2:
                state = self.loop(b, state, scope, copies)
        result = self.fresh("y")
        self.emit(b, f"{result} = pl.yield_({state})")
        return result


@st.composite
def tile_kernels(draw: st.DrawFn) -> str:
    """The text of one kernel file: its loops at the top of the function, or (one kernel in
    four) in the body of a while loop over a counter, which rebinds the output to what they
    yield."""
    g = _Gen(draw)
    state = "out"
    looped = draw(st.integers(0, 3)) == 0
    if looped:
        g.emit(0, "w0: pl.Scalar[pl.INDEX] = 0")
        g.emit(0, "while w0 < 2:")
    for _ in range(draw(st.integers(1, 2))):
        state = g.loop(int(looped), state, [])
    if looped:
        g.emit(1, f"out = {state}")
        g.emit(1, "w0 = w0 + 1")
        state = "out"
    g.emit(0, f"return {state}")
    return HEADER + "\n".join(g.lines) + "\n"
