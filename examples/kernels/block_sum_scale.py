"""Block sum, then scale: written as people write kernels, rebinding names.

`acc = pl.add(acc, t)` accumulates in a pipelined loop and a sibling `for i` loop reuses
`i` and `t`; nothing is in SSA form. The front end converts it (`05-decisions.md` item 11):
`acc` and `out` become carried values, the second loop's names get fresh binders (`i_1`,
`t_1`, `t_2`), and each loop's load rotates through its own allocation (`pipe_t`,
`pipe_t_1`).
"""

import pypto.language as pl


@pl.program
class BlockSumScale:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[512, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[512, 64], pl.FP32]],
    ) -> pl.Tensor[[512, 64], pl.FP32]:
        acc = pl.load(x, [0, 0], [64, 64])
        for i in pl.pipeline(1, 8, stage=2):
            t = pl.load(x, [i * 64, 0], [64, 64])
            acc = pl.add(acc, t)
        for i in pl.pipeline(8, stage=2):
            t = pl.load(x, [i * 64, 0], [64, 64])
            t = pl.mul(t, acc)
            out = pl.store(t, [i * 64, 0], out)
        return out
