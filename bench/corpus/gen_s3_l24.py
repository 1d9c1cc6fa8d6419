# type: ignore
# A slotsat bench kernel: bench.generate.generate_kernel(seed=3, loops=24).
import pypto.language as pl


@pl.program
class Gen3L24:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel_0(
        self,
        a: pl.Tensor[[8192, 64], pl.FP16],
        b: pl.Tensor[[8192, 64], pl.FP16],
        n: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[8192, 64], pl.FP16]],
    ) -> pl.Tensor[[8192, 64], pl.FP16]:
        for i1, (d1,) in pl.pipeline(1, 49, 2, stage=4, init_values=(out,)):
            x3: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(a, [(i1 + 3) % 4 * 8, 0], [8, 64])
            e4: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.exp(x3)
            w5: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e4, [(i1 + (-1)) * 8, 0], d1)
            r2 = pl.yield_(w5)
        return r2

    @pl.function(type=pl.FunctionType.InCore)
    def kernel_1(
        self,
        a: pl.Tensor[[8192, 64], pl.FP16],
        b: pl.Tensor[[8192, 64], pl.FP16],
        n: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[8192, 64], pl.FP16]],
    ) -> pl.Tensor[[8192, 64], pl.FP16]:
        for i1, (d1,) in pl.pipeline(0, 10, 1, stage=2, init_values=(out,)):
            x3: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [i1 * 8, 0], [8, 64])
            e4: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.sqrt(x3)
            w5: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e4, [(i1 + 2) % 32 * 8, 0], d1)
            r2 = pl.yield_(w5)
        for i6, (d6,) in pl.pipeline(4, 24, 1, stage=2, init_values=(r2,)):
            x8: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(a, [(i6 - 3) % 8 * 8, 0], [8, 64])
            s9: pl.Tile[[8, 64], pl.FP16, pl.MemRef("as1", slots=3)[(i6 - 2) % 3], pl.Mem.Vec] = pl.load(a, [(i6 - 4) * 8, 0], [8, 64])
            y10: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.add(x8, s9)
            e11: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.sqrt(y10)
            w12: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e11, [(i6 - 4) * 8, 0], d6)
            r7 = pl.yield_(w12)
        return r7

    @pl.function(type=pl.FunctionType.InCore)
    def kernel_2(
        self,
        a: pl.Tensor[[8192, 64], pl.FP16],
        b: pl.Tensor[[8192, 64], pl.FP16],
        n: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[8192, 64], pl.FP16]],
    ) -> pl.Tensor[[8192, 64], pl.FP16]:
        for i1, (d1,) in pl.pipeline(3, 171, 4, stage=2, init_values=(out,)):
            x3: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(a, [(i1 + (-1)) * 8, 0], [8, 64])
            e4: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.exp(x3)
            w5: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e4, [(i1 + 4) % 4 * 8, 0], d1)
            r2 = pl.yield_(w5)
        for i6, (d6,) in pl.pipeline(0, 176, 4, stage=4, init_values=(r2,)):
            x8: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(a, [(i6 + 4) % 8 * 8, 0], [8, 64])
            e9: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.sqrt(x8)
            w10: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e9, [(i6 + (-1)) % 4 * 8, 0], d6)
            r7 = pl.yield_(w10)
        for i11, (d11,) in pl.pipeline(7, 12, 1, stage=2, init_values=(r7,)):
            x13: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [(i11 - 2) % 8 * 8, 0], [8, 64])
            e14: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.exp(x13)
            w15: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e14, [(i11 + 1) % 32 * 8, 0], d11)
            r12 = pl.yield_(w15)
        for i16, (d16,) in pl.pipeline(0, 30, 1, stage=3, init_values=(r12,)):
            x18: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [i16 * 8, 0], [8, 64])
            e19: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.sqrt(x18)
            w20: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e19, [i16 * 8, 0], d16)
            r17 = pl.yield_(w20)
        for i21, (d21,) in pl.range(5, 49, 4, init_values=(r17,)):
            for j23, (d23,) in pl.pipeline(6, 11, 1, stage=3, init_values=(d21,)):
                x25: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [(j23 + (-3)) * 8, 0], [8, 64])
                x26: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [(j23 - 1) % 8 * 8, 0], [8, 64])
                s27: pl.Tile[[8, 64], pl.FP16, pl.MemRef("as1", slots=4)[(j23 + 1) % 4], pl.Mem.Vec] = pl.load(a, [(j23 - 3) // 4 * 8, 0], [8, 64])
                y28: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.add(x25, x26)
                y29: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.add(y28, s27)
                e30: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.abs(y29)
                w31: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e30, [(j23 + (-3)) * 8, 0], d23)
                r24 = pl.yield_(w31)
            r22 = pl.yield_(r24)
        return r22

    @pl.function(type=pl.FunctionType.InCore)
    def kernel_3(
        self,
        a: pl.Tensor[[8192, 64], pl.FP16],
        b: pl.Tensor[[8192, 64], pl.FP16],
        n: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[8192, 64], pl.FP16]],
    ) -> pl.Tensor[[8192, 64], pl.FP16]:
        for i1, (d1,) in pl.pipeline(7, 57, 2, stage=2, init_values=(out,)):
            x3: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(a, [(i1 + (-1)) * 8, 0], [8, 64])
            e4: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.abs(x3)
            w5: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e4, [(i1 - 2) // 2 * 8, 0], d1)
            r2 = pl.yield_(w5)
        for i6, (d6,) in pl.pipeline(3, 23, 2, stage=2, init_values=(r2,)):
            x8: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [(i6 + 2) % 4 * 8, 0], [8, 64])
            e9: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.sqrt(x8)
            w10: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e9, [i6 * 8, 0], d6)
            r7 = pl.yield_(w10)
        for i11, (d11,) in pl.range(0, 76, 4, init_values=(r7,)):
            for j13, (d13,) in pl.pipeline(1, 13, 1, stage=3, init_values=(d11,)):
                x15: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [(j13 + (-1)) * 8, 0], [8, 64])
                x16: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [(j13 + (-1)) * 8, 0], [8, 64])
                y17: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.add(x15, x16)
                e18: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.exp(y17)
                w19: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e18, [(j13 + 1) % 4 * 8, 0], d13)
                r14 = pl.yield_(w19)
            r12 = pl.yield_(r14)
        for i20, (d20,) in pl.range(1, n, 1, init_values=(r12,)):
            for j22, (d22,) in pl.pipeline(0, 5, 1, stage=2, init_values=(d20,)):
                x24: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [(j22 + 2 - 2) // 2 * 8, 0], [8, 64])
                e25: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.sqrt(x24)
                w26: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e25, [j22 * 8, 0], d22)
                r23 = pl.yield_(w26)
            r21 = pl.yield_(r23)
        for i27, (d27,) in pl.pipeline(0, 7, 1, stage=2, init_values=(r21,)):
            x29: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(a, [i27 * 8, 0], [8, 64])
            x30: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [(i27 - 3) % 8 * 8, 0], [8, 64])
            y31: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.add(x29, x30)
            e32: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.sqrt(y31)
            w33: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e32, [i27 * 8, 0], d27)
            r28 = pl.yield_(w33)
        for i34, (d34,) in pl.pipeline(2, 14, 1, stage=2, init_values=(r28,)):
            x36: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(a, [(i34 - 1) % 32 * 8, 0], [8, 64])
            x37: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [(i34 - 2) // 2 * 8, 0], [8, 64])
            s38: pl.Tile[[8, 64], pl.FP16, pl.MemRef("as1", slots=3)[(i34 - 1) % 3], pl.Mem.Vec] = pl.load(a, [(i34 + 1) % 16 * 8, 0], [8, 64])
            y39: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.add(x36, x37)
            y40: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.add(y39, s38)
            e41: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.exp(y40)
            w42: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e41, [(i34 - 2) * 8, 0], d34)
            r35 = pl.yield_(w42)
        return r35

    @pl.function(type=pl.FunctionType.InCore)
    def kernel_4(
        self,
        a: pl.Tensor[[8192, 64], pl.FP16],
        b: pl.Tensor[[8192, 64], pl.FP16],
        n: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[8192, 64], pl.FP16]],
    ) -> pl.Tensor[[8192, 64], pl.FP16]:
        for i1, (d1,) in pl.pipeline(7, 147, 4, stage=4, init_values=(out,)):
            x3: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(a, [i1 * 8, 0], [8, 64])
            s4: pl.Tile[[8, 64], pl.FP16, pl.MemRef("as1", slots=4)[((i1 - 7) // 4 + 2) % 4], pl.Mem.Vec] = pl.load(a, [(i1 + (-1)) * 8, 0], [8, 64])
            y5: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.add(x3, s4)
            e6: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.abs(y5)
            w7: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e6, [i1 * 8, 0], d1)
            r2 = pl.yield_(w7)
        for i8, (d8,) in pl.range(3, 79, 2, init_values=(r2,)):
            x10: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(a, [i8 * 8, 0], [8, 64])
            x11: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(a, [(i8 - 3) * 8, 0], [8, 64])
            s12: pl.Tile[[8, 64], pl.FP16, pl.MemRef("as2", slots=3)[(i8 // 2 + 1) % 3], pl.Mem.Vec] = pl.load(a, [(i8 - 2) // 4 * 8, 0], [8, 64])
            y13: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.add(x10, x11)
            y14: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.add(y13, s12)
            e15: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.exp(y14)
            w16: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e15, [i8 * 8, 0], d8)
            r9 = pl.yield_(w16)
        return r9

    @pl.function(type=pl.FunctionType.InCore)
    def kernel_5(
        self,
        a: pl.Tensor[[8192, 64], pl.FP16],
        b: pl.Tensor[[8192, 64], pl.FP16],
        n: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[8192, 64], pl.FP16]],
    ) -> pl.Tensor[[8192, 64], pl.FP16]:
        for i1, (d1,) in pl.pipeline(3, 15, 4, stage=3, init_values=(out,)):
            x3: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(a, [i1 * 8, 0], [8, 64])
            x4: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [(i1 + (-1)) * 8, 0], [8, 64])
            y5: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.add(x3, x4)
            e6: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.exp(y5)
            w7: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e6, [i1 * 8, 0], d1)
            for j8, (d8,) in pl.pipeline(0, 7, 1, stage=3, init_values=(w7,)):
                x10: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [(i1 + 3 - j8) // 4 * 8, 0], [8, 64])
                e11: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.abs(x10)
                w12: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e11, [(i1 * 4 + j8) * 8, 0], d8)
                r9 = pl.yield_(w12)
            r2 = pl.yield_(r9)
        for i13, (d13,) in pl.range(0, 72, 4, init_values=(r2,)):
            x15: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(a, [i13 * 8, 0], [8, 64])
            s16: pl.Tile[[8, 64], pl.FP16, pl.MemRef("as1", slots=3)[(i13 // 4 + 1) % 3], pl.Mem.Vec] = pl.load(a, [(i13 - 5) % 8 * 8, 0], [8, 64])
            y17: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.add(x15, s16)
            e18: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.exp(y17)
            w19: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e18, [i13 * 8, 0], d13)
            r14 = pl.yield_(w19)
        for i20, (d20,) in pl.pipeline(4, 39, 1, stage=2, init_values=(r14,)):
            x22: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [(i20 - 3) // 2 * 8, 0], [8, 64])
            e23: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.exp(x22)
            w24: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e23, [(i20 + 3) % 32 * 8, 0], d20)
            r21 = pl.yield_(w24)
        for i25, (d25,) in pl.pipeline(0, 2, 1, stage=2, init_values=(r21,)):
            x27: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.load(b, [(i25 + (-2)) % 8 * 8, 0], [8, 64])
            s28: pl.Tile[[8, 64], pl.FP16, pl.MemRef("as2", slots=2)[(i25 + 1) % 2], pl.Mem.Vec] = pl.load(a, [(i25 + 2 - 2) // 4 * 8, 0], [8, 64])
            y29: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.add(x27, s28)
            e30: pl.Tile[[8, 64], pl.FP16, pl.Mem.Vec] = pl.exp(y29)
            w31: pl.Tensor[[8192, 64], pl.FP16] = pl.store(e30, [(i25 + (-1)) % 16 * 8, 0], d25)
            r26 = pl.yield_(w31)
        return r26
