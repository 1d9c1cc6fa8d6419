"""Nested pipelines: row blocks outside, column blocks inside, a per-row-block bias tile."""

import pypto.language as pl


@pl.program
class NestedPipelines:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[256, 512], pl.FP16],
        bias: pl.Tensor[[256, 128], pl.FP16],
        out: pl.Out[pl.Tensor[[256, 512], pl.FP16]],
    ) -> pl.Tensor[[256, 512], pl.FP16]:
        for i, (d0,) in pl.pipeline(4, stage=2, init_values=(out,)):
            bt: pl.Tile[[64, 128], pl.FP16, pl.Mem.Vec] = pl.load(bias, [i * 64, 0], [64, 128])
            for j, (d1,) in pl.pipeline(4, stage=2, init_values=(d0,)):
                t: pl.Tile[[64, 128], pl.FP16, pl.Mem.Vec] = pl.load(x, [i * 64, j * 128], [64, 128])
                s: pl.Tile[[64, 128], pl.FP16, pl.Mem.Vec] = pl.add(t, bt)
                nxt: pl.Tensor[[256, 512], pl.FP16] = pl.store(s, [i * 64, j * 128], d1)
                inner = pl.yield_(nxt)
            outer = pl.yield_(inner)
        return outer
