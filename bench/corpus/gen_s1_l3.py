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
            x7: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [(i4 - 1) % 4 * 8, 0], [8, 64])
            y8: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.add(x6, x7)
            e9: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.abs(y8)
            w10: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e9, [i4 * 8, 0], d4)
            r5 = pl.yield_(w10)
        for i11, (d11,) in pl.pipeline(3, n, 1, stage=2, init_values=(r5,)):
            x13: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [(i11 - 1) % 4 * 8, 0], [8, 64])
            e14: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.sqrt(x13)
            w15: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e14, [(i11 - 1) % 4 * 8, 0], d11)
            r12 = pl.yield_(w15)
        for i16, (d16,) in pl.pipeline(5, 105, 4, stage=2, init_values=(r12,)):
            x18: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(a, [(i16 - 3) % 4 * 8, 0], [8, 64])
            x19: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(a, [(i16 - 5) * 8, 0], [8, 64])
            s20: pl.Tile[[8, 64], pl.FP16, pl.MemRef("as2", slots=4)[(i16 + 5) % 4], pl.Mem.Vec] = pl.load(a, [(i16 + 1) % 16 * 8, 0], [8, 64])
            y21: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.add(x18, x19)
            y22: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.add(y21, s20)
            e23: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.exp(y22)
            w24: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e23, [i16 * 8, 0], d16)
            r17 = pl.yield_(w24)
        return r17
