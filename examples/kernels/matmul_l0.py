"""Matmul with L1 (Mat) blocks and an L0 stage loop slicing them into Left/Right operands."""

import pypto.language as pl


@pl.program
class MatmulL0:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        a: pl.Tensor[[64, 544], pl.BF16],
        b: pl.Tensor[[544, 64], pl.BF16],
        c: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        a0: pl.Tile[[64, 32], pl.BF16, pl.Mem.Mat] = pl.load(a, [0, 0], [64, 32], target_memory=pl.Mem.Mat)
        b0: pl.Tile[[32, 64], pl.BF16, pl.Mem.Mat] = pl.load(b, [0, 0], [32, 64], target_memory=pl.Mem.Mat)
        l0: pl.Tile[[64, 32], pl.BF16, pl.Mem.Left] = pl.tile.move(a0, target_memory=pl.Mem.Left)
        r0: pl.Tile[[32, 64], pl.BF16, pl.Mem.Right] = pl.tile.move(b0, target_memory=pl.Mem.Right)
        c0: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(l0, r0)
        for kb, (acc,) in pl.pipeline(4, stage=2, init_values=(c0,)):
            a1: pl.Tile[[64, 128], pl.BF16, pl.Mem.Mat] = pl.load(a, [0, 32 + kb * 128], [64, 128], target_memory=pl.Mem.Mat)
            b1: pl.Tile[[128, 64], pl.BF16, pl.Mem.Mat] = pl.load(b, [32 + kb * 128, 0], [128, 64], target_memory=pl.Mem.Mat)
            for kk, (acc_l0,) in pl.pipeline(0, 128, 32, stage=2, init_values=(acc,)):
                a_s: pl.Tile[[64, 32], pl.BF16, pl.Mem.Mat] = pl.tile.slice(a1, [64, 32], [0, kk])
                b_s: pl.Tile[[32, 64], pl.BF16, pl.Mem.Mat] = pl.tile.slice(b1, [32, 64], [kk, 0])
                lk: pl.Tile[[64, 32], pl.BF16, pl.Mem.Left] = pl.tile.move(a_s, target_memory=pl.Mem.Left)
                rk: pl.Tile[[32, 64], pl.BF16, pl.Mem.Right] = pl.tile.move(b_s, target_memory=pl.Mem.Right)
                nxt: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc_l0, lk, rk)
                inner = pl.yield_(nxt)
            outer = pl.yield_(inner)
        res: pl.Tensor[[64, 64], pl.FP32] = pl.store(outer, [0, 0], c)
        return res
