"""RMSNorm over a residual sum: two streamed loads per row block, one resident gamma tile."""

import pypto.language as pl


@pl.program
class RMSNorm:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[1024, 128], pl.FP32],
        resid: pl.Tensor[[1024, 128], pl.FP32],
        gamma: pl.Tensor[[32, 128], pl.FP32],
        out: pl.Out[pl.Tensor[[1024, 128], pl.FP32]],
    ) -> pl.Tensor[[1024, 128], pl.FP32]:
        g: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec] = pl.load(gamma, [0, 0], [32, 128])
        for r, (dst,) in pl.pipeline(32, stage=2, init_values=(out,)):
            xt: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec] = pl.load(x, [r * 32, 0], [32, 128])
            rt: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec] = pl.load(resid, [r * 32, 0], [32, 128])
            h: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec] = pl.add(xt, rt)
            sq: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec] = pl.mul(h, h)
            ss: pl.Tile[[32, 1], pl.FP32, pl.Mem.Vec] = pl.row_sum(sq)
            ms: pl.Tile[[32, 1], pl.FP32, pl.Mem.Vec] = pl.muls(ss, 0.0078125)
            me: pl.Tile[[32, 1], pl.FP32, pl.Mem.Vec] = pl.adds(ms, 1e-06)
            inv: pl.Tile[[32, 1], pl.FP32, pl.Mem.Vec] = pl.rsqrt(me)
            normed: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec] = pl.row_expand_mul(h, inv)
            y: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec] = pl.mul(normed, g)
            nxt: pl.Tensor[[1024, 128], pl.FP32] = pl.store(y, [r * 32, 0], dst)
            done = pl.yield_(nxt)
        return done
