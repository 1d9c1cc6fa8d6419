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
            x3: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [(i1 - 1) % 4 * 8, 0], [8, 64])
            s4: pl.Tile[[8, 64], pl.FP16, pl.MemRef("as1", slots=2)[(i1 + 2) % 2], pl.Mem.Vec] = pl.load(a, [(i1 - 4) * 8, 0], [8, 64])
            y5: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.add(x3, s4)
            e6: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.exp(y5)
            w7: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e6, [i1 * 8, 0], d1)
            for j8, (d8,) in pl.range(0, 6, 1, init_values=(w7,)):
                x10: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(a, [(i1 * 4 + j8) * 8, 0], [8, 64])
                e11: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.exp(x10)
                w12: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e11, [(j8 - 3) // 2 * 8, 0], d8)
                r9 = pl.yield_(w12)
            r2 = pl.yield_(r9)
        return r2

    @pl.function(type=pl.FunctionType.InCore)
    def kernel_1(
        self,
        a: pl.Tensor[[8192, 64], pl.FP16],
        b: pl.Tensor[[8192, 64], pl.FP16],
        n: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[8192, 64], pl.FP16]],
    ) -> pl.Tensor[[8192, 64], pl.FP16]:
        for i1, (d1,) in pl.pipeline(3, 9, 2, stage=2, init_values=(out,)):
            x3: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(a, [(i1 - 2) // 2 * 8, 0], [8, 64])
            s4: pl.Tile[[8, 64], pl.FP16, pl.MemRef("as1", slots=2)[(i1 - 3) % 2], pl.Mem.Vec] = pl.load(a, [(i1 - 3) * 8, 0], [8, 64])
            y5: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.add(x3, s4)
            e6: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.exp(y5)
            w7: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e6, [(i1 - 3) % 4 * 8, 0], d1)
            for j8, (d8,) in pl.pipeline(1, n, 1, stage=2, init_values=(w7,)):
                x10: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [(j8 - 1) * 8, 0], [8, 64])
                x11: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [(j8 - 4) % 16 * 8, 0], [8, 64])
                y12: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.add(x10, x11)
                e13: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.abs(y12)
                w14: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e13, [j8 // 2 * 8, 0], d8)
                r9 = pl.yield_(w14)
            r2 = pl.yield_(r9)
        for i15, (d15,) in pl.range(2, 32, 1, init_values=(r2,)):
            for j17, (d17,) in pl.pipeline(1, 23, 1, stage=2, init_values=(d15,)):
                x19: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [(i15 * 4 + j17) * 8, 0], [8, 64])
                x20: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [(j17 - 1) * 8, 0], [8, 64])
                y21: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.add(x19, x20)
                e22: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.exp(y21)
                w23: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e22, [j17 * 8, 0], d17)
                r18 = pl.yield_(w23)
            r16 = pl.yield_(r18)
        return r16

    @pl.function(type=pl.FunctionType.InCore)
    def kernel_2(
        self,
        a: pl.Tensor[[8192, 64], pl.FP16],
        b: pl.Tensor[[8192, 64], pl.FP16],
        n: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[8192, 64], pl.FP16]],
    ) -> pl.Tensor[[8192, 64], pl.FP16]:
        for i1, (d1,) in pl.pipeline(7, 99, 2, stage=2, init_values=(out,)):
            x3: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [(i1 - 1) // 2 * 8, 0], [8, 64])
            e4: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.sqrt(x3)
            w5: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e4, [i1 * 8, 0], d1)
            for j6, (d6,) in pl.range(4, 17, 1, init_values=(w5,)):
                x8: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(a, [(j6 - 1) % 16 * 8, 0], [8, 64])
                s9: pl.Tile[[8, 64], pl.FP16, pl.MemRef("as1", slots=4)[(i1 + j6) % 4], pl.Mem.Vec] = pl.load(a, [(i1 * 4 + j6) * 8, 0], [8, 64])
                y10: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.add(x8, s9)
                e11: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.abs(y10)
                w12: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e11, [(j6 + 1) % 8 * 8, 0], d6)
                r7 = pl.yield_(w12)
            r2 = pl.yield_(r7)
        return r2
