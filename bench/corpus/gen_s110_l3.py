# type: ignore
# A slotsat bench kernel: bench.generate.generate_kernel(seed=110, loops=3).
import pypto.language as pl


@pl.program
class Gen110L3:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel_0(
        self,
        a: pl.Tensor[[8192, 64], pl.FP16],
        b: pl.Tensor[[8192, 64], pl.FP16],
        n: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[8192, 64], pl.FP16]],
    ) -> pl.Tensor[[8192, 64], pl.FP16]:
        for i1, (d1,) in pl.pipeline(1, n, 1, stage=3, init_values=(out,)):
            x3: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(a, [(i1 + 3) % 16 * 8, 0], [8, 64])
            s4: pl.Tile[[8, 64], pl.FP16, pl.MemRef("as1", slots=2)[i1 % 2], pl.Mem.Vec] = pl.load(a, [(i1 + (-1)) * 8, 0], [8, 64])
            y5: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.add(x3, s4)
            e6: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.sqrt(y5)
            w7: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e6, [(i1 - 1) // 4 * 8, 0], d1)
            for j8, (d8,) in pl.range(0, 14, 1, init_values=(w7,)):
                x10: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [(j8 + 2 - 2) // 2 * 8, 0], [8, 64])
                s11: pl.Tile[[8, 64], pl.FP16, pl.MemRef("as2", slots=2)[(i1 + j8) % 2], pl.Mem.Vec] = pl.load(a, [j8 * 8, 0], [8, 64])
                y12: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.add(x10, s11)
                e13: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.exp(y12)
                w14: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e13, [j8 * 8, 0], d8)
                r9 = pl.yield_(w14)
            r2 = pl.yield_(r9)
        for i15, (d15,) in pl.range(2, n, 1, init_values=(r2,)):
            x17: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [(i15 + 2) % 16 * 8, 0], [8, 64])
            x18: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [(i15 - 1) // 2 * 8, 0], [8, 64])
            s19: pl.Tile[[8, 64], pl.FP16, pl.MemRef("as3", slots=2)[i15 % 2], pl.Mem.Vec] = pl.load(a, [(i15 - 2) * 8, 0], [8, 64])
            y20: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.add(x17, x18)
            y21: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.add(y20, s19)
            e22: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.abs(y21)
            w23: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e22, [(i15 + (-2)) * 8, 0], d15)
            r16 = pl.yield_(w23)
        return r16
