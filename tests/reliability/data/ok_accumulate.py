# ruff: noqa  (kernel text: one statement per line, never wrapped, 10-dsl.md §9.1)
import pypto.language as pl

PP = pl.MemRef(slots=2)


@pl.program
class Accumulate:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        a: pl.Tensor[[256, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        seed: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
        for i, (acc,) in pl.range(1, 4, init_values=(seed,)):
            t: pl.Tile[[64, 64], pl.FP32, PP[(i - 1) % 2], pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
            nxt: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.add(acc, t)
            total = pl.yield_(nxt)
        res: pl.Tensor[[64, 64], pl.FP32] = pl.store(total, [0, 0], out)
        return res
