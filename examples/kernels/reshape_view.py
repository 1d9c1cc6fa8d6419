"""A load consumed by a view: the loaded tile is reshaped before the exp (the slots pass declines)."""

import pypto.language as pl


@pl.program
class ReshapeView:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[256, 128], pl.FP16],
        out: pl.Out[pl.Tensor[[512, 64], pl.FP16]],
    ) -> pl.Tensor[[512, 64], pl.FP16]:
        for i, (dst,) in pl.pipeline(8, stage=2, init_values=(out,)):
            t: pl.Tile[[32, 128], pl.FP16, pl.Mem.Vec] = pl.load(x, [i * 32, 0], [32, 128])
            v: pl.Tile[[64, 64], pl.FP16, pl.Mem.Vec] = pl.tile.reshape(t, [64, 64])
            e: pl.Tile[[64, 64], pl.FP16, pl.Mem.Vec] = pl.exp(v)
            nxt: pl.Tensor[[512, 64], pl.FP16] = pl.store(e, [i * 64, 0], dst)
            res = pl.yield_(nxt)
        return res
