# type: ignore
# A slotsat bench kernel: bench.generate.generate_kernel(seed=2, loops=8).
import pypto.language as pl


@pl.program
class Gen2L8:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel_0(
        self,
        a: pl.Tensor[[8192, 64], pl.FP16],
        b: pl.Tensor[[8192, 64], pl.FP16],
        n: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[8192, 64], pl.FP16]],
    ) -> pl.Tensor[[8192, 64], pl.FP16]:
        for i1, (d1,) in pl.pipeline(4, 96, 2, stage=2, init_values=(out,)):
            x3: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [(i1 + (-2)) * 8, 0], [8, 64])
            e4: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.exp(x3)
            w5: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e4, [i1 * 8, 0], d1)
            for j6, (d6,) in pl.pipeline(6, 26, 1, stage=3, init_values=(w5,)):
                x8: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [(j6 - 1) // 4 * 8, 0], [8, 64])
                x9: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [j6 * 8, 0], [8, 64])
                y10: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.add(x8, x9)
                e11: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.exp(y10)
                w12: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e11, [(j6 + (-1)) * 8, 0], d6)
                r7 = pl.yield_(w12)
            r2 = pl.yield_(r7)
        return r2

    @pl.function(type=pl.FunctionType.InCore)
    def kernel_1(
        self,
        a: pl.Tensor[[8192, 64], pl.FP16],
        b: pl.Tensor[[8192, 64], pl.FP16],
        n: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[8192, 64], pl.FP16]],
    ) -> pl.Tensor[[8192, 64], pl.FP16]:
        for i1, (d1,) in pl.pipeline(0, 180, 4, stage=3, init_values=(out,)):
            x3: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [(i1 + 1 - 1) // 2 * 8, 0], [8, 64])
            e4: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.abs(x3)
            w5: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e4, [(i1 - 1) % 32 * 8, 0], d1)
            r2 = pl.yield_(w5)
        return r2

    @pl.function(type=pl.FunctionType.InCore)
    def kernel_2(
        self,
        a: pl.Tensor[[8192, 64], pl.FP16],
        b: pl.Tensor[[8192, 64], pl.FP16],
        n: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[8192, 64], pl.FP16]],
    ) -> pl.Tensor[[8192, 64], pl.FP16]:
        for i1, (d1,) in pl.pipeline(3, 5, 1, stage=4, init_values=(out,)):
            x3: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [(i1 - 3) * 8, 0], [8, 64])
            s4: pl.Tile[[8, 64], pl.FP16, pl.MemRef("as1", slots=2)[(i1 + 4) % 2], pl.Mem.Vec] = pl.load(a, [(i1 + 3) % 16 * 8, 0], [8, 64])
            y5: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.add(x3, s4)
            e6: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.exp(y5)
            w7: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e6, [i1 * 8, 0], d1)
            r2 = pl.yield_(w7)
        return r2

    @pl.function(type=pl.FunctionType.InCore)
    def kernel_3(
        self,
        a: pl.Tensor[[8192, 64], pl.FP16],
        b: pl.Tensor[[8192, 64], pl.FP16],
        n: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[8192, 64], pl.FP16]],
    ) -> pl.Tensor[[8192, 64], pl.FP16]:
        for i1, (d1,) in pl.pipeline(6, 9, 1, stage=3, init_values=(out,)):
            x3: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [(i1 - 3) % 8 * 8, 0], [8, 64])
            x4: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [(i1 + (-1)) * 8, 0], [8, 64])
            s5: pl.Tile[[8, 64], pl.FP16, pl.MemRef("as1", slots=3)[(i1 + 1) % 3], pl.Mem.Vec] = pl.load(a, [(i1 + 4) % 32 * 8, 0], [8, 64])
            y6: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.add(x3, x4)
            y7: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.add(y6, s5)
            e8: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.exp(y7)
            w9: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e8, [(i1 - 1) % 16 * 8, 0], d1)
            for j10, (d10,) in pl.pipeline(0, 40, 4, stage=3, init_values=(w9,)):
                x12: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(a, [(i1 + j10) % 16 * 8, 0], [8, 64])
                e13: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.exp(x12)
                w14: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e13, [j10 * 8, 0], d10)
                r11 = pl.yield_(w14)
            r2 = pl.yield_(r11)
        for i15, (d15,) in pl.range(6, 51, 1, init_values=(r2,)):
            for j17, (d17,) in pl.pipeline(6, n, 1, stage=4, init_values=(d15,)):
                x19: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(a, [j17 * 8, 0], [8, 64])
                s20: pl.Tile[[8, 64], pl.FP16, pl.MemRef("as2", slots=2)[(j17 - 2) % 2], pl.Mem.Vec] = pl.load(a, [(i15 + 57 - j17) // 4 * 8, 0], [8, 64])
                y21: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.add(x19, s20)
                e22: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.exp(y21)
                w23: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e22, [j17 * 8, 0], d17)
                r18 = pl.yield_(w23)
            r16 = pl.yield_(r18)
        return r16
