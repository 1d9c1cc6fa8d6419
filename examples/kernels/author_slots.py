"""Author-declared rotations: a named three-slot module declaration and an inline form."""

import pypto.language as pl

staging = pl.MemRef("stage_buf", slots=3)


@pl.program
class AuthorSlots:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        a: pl.Tensor[[768, 64], pl.FP32],
        b: pl.Tensor[[768, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[768, 64], pl.FP32]],
    ) -> pl.Tensor[[768, 64], pl.FP32]:
        for i, (dst,) in pl.range(12, init_values=(out,)):
            at: pl.Tile[[64, 64], pl.FP32, staging[i % 3], pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
            bt: pl.Tile[[64, 64], pl.FP32, pl.MemRef("ping", slots=2)[i % 2], pl.Mem.Vec] = pl.load(b, [i * 64, 0], [64, 64])
            s: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.sub(at, bt)
            nxt: pl.Tensor[[768, 64], pl.FP32] = pl.store(s, [i * 64, 0], dst)
            res = pl.yield_(nxt)
        return res
