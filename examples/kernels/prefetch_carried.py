"""A load addressed through a loop-carried row offset instead of the induction variable."""

import pypto.language as pl


@pl.program
class PrefetchCarried:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[512, 64], pl.FP16],
        out: pl.Out[pl.Tensor[[512, 64], pl.FP16]],
    ) -> pl.Tensor[[512, 64], pl.FP16]:
        for i, (dst, off) in pl.pipeline(16, stage=2, init_values=(out, 0)):
            t: pl.Tile[[32, 64], pl.FP16, pl.Mem.Vec] = pl.load(x, [off, 0], [32, 64])
            e: pl.Tile[[32, 64], pl.FP16, pl.Mem.Vec] = pl.exp(t)
            nxt: pl.Tensor[[512, 64], pl.FP16] = pl.store(e, [off, 0], dst)
            next_off: pl.Scalar[pl.INDEX] = off + 32
            res, last_off = pl.yield_(nxt, next_off)
        return res
