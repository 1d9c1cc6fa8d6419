"""Row softmax: one load per row block, max-subtract, exp, sum, divide."""

import pypto.language as pl


@pl.program
class SoftmaxRows:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[512, 256], pl.FP32],
        out: pl.Out[pl.Tensor[[512, 256], pl.FP32]],
    ) -> pl.Tensor[[512, 256], pl.FP32]:
        for i, (dst,) in pl.pipeline(0, 512, 16, stage=2, init_values=(out,)):
            t: pl.Tile[[16, 256], pl.FP32, pl.Mem.Vec] = pl.load(x, [i, 0], [16, 256])
            m: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.row_max(t)
            shifted: pl.Tile[[16, 256], pl.FP32, pl.Mem.Vec] = pl.row_expand_sub(t, m)
            e: pl.Tile[[16, 256], pl.FP32, pl.Mem.Vec] = pl.exp(shifted)
            s: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.row_sum(e)
            p: pl.Tile[[16, 256], pl.FP32, pl.Mem.Vec] = pl.row_expand_div(e, s)
            nxt: pl.Tensor[[512, 256], pl.FP32] = pl.store(p, [i, 0], dst)
            res = pl.yield_(nxt)
        return res
