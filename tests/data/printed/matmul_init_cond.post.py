# pypto.program: MatmulInitCond
import pypto.language as pl

@pl.program
class MatmulInitCond:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def kernel(a__ssa_v0: pl.Tensor[[64, 256], pl.FP32], b__ssa_v0: pl.Tensor[[256, 64], pl.FP32], c__ssa_v0: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        acc__ssa_v0: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.create([64, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for k0__idx_v0, (acc__iter_v1,) in pl.range(0, 256, 64, init_values=(acc__ssa_v0,)):
            a_l1__ssa_v0: pl.Tile[[64, 64], pl.FP32, pl.Mem.Mat] = pl.tile.load(a__ssa_v0, [0, k0__idx_v0], [64, 64], [64, 64], target_memory=pl.Mem.Mat)
            b_l1__ssa_v0: pl.Tile[[64, 64], pl.FP32, pl.Mem.Mat] = pl.tile.load(b__ssa_v0, [k0__idx_v0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Mat)
            a_l0__ssa_v0: pl.Tile[[64, 64], pl.FP32, pl.Mem.Left] = pl.tile.move(a_l1__ssa_v0, target_memory=pl.Mem.Left)
            b_l0__ssa_v0: pl.Tile[[64, 64], pl.FP32, pl.Mem.Right] = pl.tile.move(b_l1__ssa_v0, target_memory=pl.Mem.Right)
            acc__ssa_v3: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc__iter_v1, a_l0__ssa_v0, b_l0__ssa_v0, k0__idx_v0 == 0)
            acc__rv_v2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(acc__ssa_v3)
        t__tmp_v0: pl.Tile[[64, 64], pl.FP32, pl.Mem.Mat] = pl.tile.load(a__ssa_v0, [0, 192], [64, 64], [64, 64], target_memory=pl.Mem.Mat)
        a_last__ssa_v0: pl.Tile[[64, 64], pl.FP32, pl.Mem.Left] = pl.tile.move(t__tmp_v0, target_memory=pl.Mem.Left)
        t__tmp_v1: pl.Tile[[64, 64], pl.FP32, pl.Mem.Mat] = pl.tile.load(b__ssa_v0, [192, 0], [64, 64], [64, 64], target_memory=pl.Mem.Mat)
        b_last__ssa_v0: pl.Tile[[64, 64], pl.FP32, pl.Mem.Right] = pl.tile.move(t__tmp_v1, target_memory=pl.Mem.Right)
        acc__ssa_v4: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc__rv_v2, a_last__ssa_v0, b_last__ssa_v0, pl.const(0, pl.BOOL))
        c__ssa_v1: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(acc__ssa_v4, [0, 0], c__ssa_v0)
        return c__ssa_v0
