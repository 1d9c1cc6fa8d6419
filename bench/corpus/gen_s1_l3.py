# type: ignore
# A slotsat bench kernel: bench.generate.generate_kernel(seed=1, loops=3).
import pypto.language as pl


@pl.program
class Gen1L3:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel_0(
        self,
        a: pl.Tensor[[8192, 64], pl.FP16],
        b: pl.Tensor[[8192, 64], pl.FP16],
        n: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[8192, 64], pl.FP16]],
    ) -> pl.Tensor[[8192, 64], pl.FP16]:
        c1: pl.Tile[[8, 64], pl.FP16, pl.MemRef("cs1", slots=2)[0], pl.Mem.Vec] = pl.load(a, [96, 0], [8, 64])
        c2: pl.Tile[[8, 64], pl.FP16, pl.MemRef("cs1", slots=2)[1], pl.Mem.Vec] = pl.exp(c1)
        w3: pl.Tensor[[8192, 64], pl.FP16] = pl.store(c2, [96, 0], out)
        for i4, (d4,) in pl.pipeline(0, 72, 2, stage=3, init_values=(w3,)):
            x6: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(a, [i4 * 8, 0], [8, 64])
            x7: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [i4 * 8, 0], [8, 64])
            s8: pl.Tile[[8, 64], pl.FP16, pl.MemRef("as2", slots=2)[(i4 // 2 + 1) % 2], pl.Mem.Vec] = pl.load(a, [i4 * 8, 0], [8, 64])
            y9: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.add(x6, x7)
            y10: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.add(y9, s8)
            e11: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.exp(y10)
            w12: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e11, [(i4 + 2 - 2) // 4 * 8, 0], d4)
            r5 = pl.yield_(w12)
        for i13, (d13,) in pl.pipeline(6, 23, 1, stage=2, init_values=(r5,)):
            x15: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(a, [(i13 + 4) % 16 * 8, 0], [8, 64])
            x16: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(a, [(i13 - 1) % 16 * 8, 0], [8, 64])
            y17: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.add(x15, x16)
            e18: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.abs(y17)
            w19: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e18, [(i13 - 3) % 16 * 8, 0], d13)
            r14 = pl.yield_(w19)
        for i20, (d20,) in pl.pipeline(2, 18, 1, stage=2, init_values=(r14,)):
            x22: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(a, [(i20 - 1) // 2 * 8, 0], [8, 64])
            s23: pl.Tile[[8, 64], pl.FP16, pl.MemRef("as3", slots=4)[(i20 + 5) % 4], pl.Mem.Vec] = pl.load(a, [i20 * 8, 0], [8, 64])
            y24: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.add(x22, s23)
            e25: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.exp(y24)
            w26: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e25, [(i20 - 3) % 16 * 8, 0], d20)
            r21 = pl.yield_(w26)
        return r21
