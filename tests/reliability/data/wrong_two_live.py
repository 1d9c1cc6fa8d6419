# ruff: noqa  (kernel text: one statement per line, never wrapped, 10-dsl.md §9.1)
import pypto.language as pl

PP = pl.MemRef(slots=2)


@pl.program
class WrongTwoLive:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[256, 64], pl.FP32],
        y: pl.Tensor[[256, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[256, 64], pl.FP32]],
    ) -> pl.Tensor[[256, 64], pl.FP32]:
        for i, (dst,) in pl.range(4, init_values=(out,)):
            t: pl.Tile[[64, 64], pl.FP32, PP[i % 2], pl.Mem.Vec] = pl.load(x, [i * 64, 0], [64, 64])
            u: pl.Tile[[64, 64], pl.FP32, PP[i % 2], pl.Mem.Vec] = pl.load(y, [i * 64, 0], [64, 64])
            s: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.sub(t, u)
            nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(s, [i * 64, 0], dst)
            res = pl.yield_(nxt)
        return res
