"""Two programs in one file sharing a module-level declaration (scoped per function)."""

import pypto.language as pl

PP = pl.MemRef(slots=2)


@pl.program
class Scale:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[256, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[256, 64], pl.FP32]],
    ) -> pl.Tensor[[256, 64], pl.FP32]:
        for i, (dst,) in pl.range(4, init_values=(out,)):
            t: pl.Tile[[64, 64], pl.FP32, PP[i % 2], pl.Mem.Vec] = pl.load(x, [i * 64, 0], [64, 64])
            s: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.muls(t, 0.5)
            nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(s, [i * 64, 0], dst)
            res = pl.yield_(nxt)
        return res


@pl.program
class Shift:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[256, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[256, 64], pl.FP32]],
    ) -> pl.Tensor[[256, 64], pl.FP32]:
        for i, (dst,) in pl.pipeline(4, stage=2, init_values=(out,)):
            t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(x, [i * 64, 0], [64, 64])
            s: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.adds(t, 1.0)
            nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(s, [i * 64, 0], dst)
            res = pl.yield_(nxt)
        return res

    @pl.function
    def helper(
        self,
        x: pl.Tensor[[256, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[256, 64], pl.FP32]],
    ) -> pl.Tensor[[256, 64], pl.FP32]:
        for i, (dst,) in pl.range(4, init_values=(out,)):
            t: pl.Tile[[64, 64], pl.FP32, PP[i % 2], pl.Mem.Vec] = pl.load(x, [i * 64, 0], [64, 64])
            nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(t, [i * 64, 0], dst)
            res = pl.yield_(nxt)
        return res
