"""Index arithmetic in INT32: a 32-bit row counter widened to INDEX for each offset and slot,
and a tail loop that starts at a runtime row."""

import pypto.language as pl


@pl.program
class Int32Index:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[2048, 64], pl.FP32],
        start: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[2048, 64], pl.FP32]],
    ) -> pl.Tensor[[2048, 64], pl.FP32]:
        for i, (dst,) in pl.range(16, init_values=(out,)):
            t: pl.Tile[[64, 64], pl.FP32, pl.MemRef("rows", slots=2)[pl.cast(pl.cast(i, pl.INT32) % 2, pl.INDEX)], pl.Mem.Vec] = pl.load(x, [pl.cast(pl.cast(i, pl.INT32) // 2, pl.INDEX) * 64, 0], [64, 64])
            e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(t)
            nxt: pl.Tensor[[2048, 64], pl.FP32] = pl.store(e, [pl.cast(pl.cast(i, pl.INT32), pl.INDEX) * 64, 0], dst)
            res = pl.yield_(nxt)
        for j, (acc,) in pl.range(start, 32, init_values=(res,)):
            u: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(x, [j * 64, 0], [64, 64])
            a: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.abs(u)
            nxt2: pl.Tensor[[2048, 64], pl.FP32] = pl.store(a, [j * 64, 0], acc)
            res2 = pl.yield_(nxt2)
        return res2
