"""A unit-step pipeline whose start is not a multiple of the stage count (slot (i - 3) % 4)."""

import pypto.language as pl


@pl.program
class UnalignedStart:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[1216, 32], pl.FP16],
        out: pl.Out[pl.Tensor[[1216, 32], pl.FP16]],
    ) -> pl.Tensor[[1216, 32], pl.FP16]:
        for i, (dst,) in pl.pipeline(3, 19, stage=4, init_values=(out,)):
            t: pl.Tile[[64, 32], pl.FP16, pl.Mem.Vec] = pl.load(x, [i * 64, 0], [64, 32])
            r: pl.Tile[[64, 32], pl.FP16, pl.Mem.Vec] = pl.relu(t)
            nxt: pl.Tensor[[1216, 32], pl.FP16] = pl.store(r, [i * 64, 0], dst)
            res = pl.yield_(nxt)
        return res
