"""A pipeline whose trip count is a runtime scalar (unit step, so the stop is not inspected)."""

import pypto.language as pl


@pl.program
class RuntimeStop:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[4096, 64], pl.FP32],
        y: pl.Tensor[[4096, 64], pl.FP32],
        n: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[4096, 64], pl.FP32]],
    ) -> pl.Tensor[[4096, 64], pl.FP32]:
        for b, (dst,) in pl.pipeline(0, n, stage=3, init_values=(out,)):
            xt: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(x, [b * 64, 0], [64, 64])
            yt: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(y, [b * 64, 0], [64, 64])
            mx: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.maximum(xt, yt)
            nxt: pl.Tensor[[4096, 64], pl.FP32] = pl.store(mx, [b * 64, 0], dst)
            res = pl.yield_(nxt)
        return res
