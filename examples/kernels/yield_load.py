"""A load yielded out of the loop: each block is added to the previous one, the last is kept."""

import pypto.language as pl


@pl.program
class YieldLoad:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[512, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[512, 64], pl.FP32]],
        tail: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> tuple[pl.Tensor[[512, 64], pl.FP32], pl.Tensor[[64, 64], pl.FP32]]:
        first: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [64, 64])
        for i, (dst, prev) in pl.pipeline(1, 8, stage=2, init_values=(out, first)):
            t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(x, [i * 64, 0], [64, 64])
            s: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.add(prev, t)
            nxt: pl.Tensor[[512, 64], pl.FP32] = pl.store(s, [i * 64, 0], dst)
            res, last = pl.yield_(nxt, t)
        kept: pl.Tensor[[64, 64], pl.FP32] = pl.store(last, [0, 0], tail)
        return res, kept
