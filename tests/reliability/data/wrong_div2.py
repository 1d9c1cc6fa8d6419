# ruff: noqa  (kernel text: one statement per line, never wrapped, 10-dsl.md §9.1)
import pypto.language as pl


@pl.program
class WrongDiv2:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[512, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[512, 64], pl.FP32]],
    ) -> pl.Tensor[[512, 64], pl.FP32]:
        for i, (dst,) in pl.range(8, init_values=(out,)):
            t: pl.Tile[[64, 64], pl.FP32, pl.MemRef("pp", slots=2)[(i // 2) % 2], pl.Mem.Vec] = pl.load(x, [i * 64, 0], [64, 64])
            e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(t)
            nxt: pl.Tensor[[512, 64], pl.FP32] = pl.store(e, [i * 64, 0], dst)
            res = pl.yield_(nxt)
        return res
