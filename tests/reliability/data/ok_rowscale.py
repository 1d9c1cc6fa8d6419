# ruff: noqa  (kernel text: one statement per line, never wrapped, 10-dsl.md §9.1)
import pypto.language as pl


@pl.program
class RowScale:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[512, 128], pl.FP32],
        g: pl.Tensor[[512, 128], pl.FP32],
        out: pl.Out[pl.Tensor[[512, 128], pl.FP32]],
    ) -> pl.Tensor[[512, 128], pl.FP32]:
        for r, (dst,) in pl.pipeline(8, stage=2, init_values=(out,)):
            xt: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.load(x, [r * 64, 0], [64, 128])
            gt: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.load(g, [r * 64, 0], [64, 128])
            prod: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.mul(xt, gt)
            nxt: pl.Tensor[[512, 128], pl.FP32] = pl.store(prod, [r * 64, 0], dst)
            res = pl.yield_(nxt)
        return res
