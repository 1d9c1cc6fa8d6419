# ruff: noqa  (kernel text: one statement per line, never wrapped, 10-dsl.md §9.1)
import pypto.language as pl


@pl.program
class StridedExp:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        a: pl.Tensor[[264, 32], pl.FP16],
        out: pl.Out[pl.Tensor[[264, 32], pl.FP16]],
    ) -> pl.Tensor[[264, 32], pl.FP16]:
        for i, (dst,) in pl.pipeline(8, 264, 64, stage=4, init_values=(out,)):
            t: pl.Tile[[64, 32], pl.FP16, pl.Mem.Vec] = pl.load(a, [i, 0], [64, 32])
            e: pl.Tile[[64, 32], pl.FP16, pl.Mem.Vec] = pl.exp(t)
            nxt: pl.Tensor[[264, 32], pl.FP16] = pl.store(e, [i, 0], dst)
            res = pl.yield_(nxt)
        return res
