# pypto.program: GatherRowsMat
import pypto.language as pl

@pl.program
class GatherRowsMat:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def kernel(a__ssa_v0: pl.Tensor[[64, 128], pl.BF16], b__ssa_v0: pl.Tensor[[64, 128], pl.BF16], c__ssa_v0: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        am__ssa_v0: pl.Tile[[16, 128], pl.BF16, pl.Mem.Mat] = pl.tile.create([16, 128], dtype=pl.BF16, target_memory=pl.Mem.Mat)
        bm__ssa_v0: pl.Tile[[128, 16], pl.BF16, pl.Mem.Mat] = pl.tile.create([128, 16], dtype=pl.BF16, target_memory=pl.Mem.Mat)
        for r__idx_v0, (am__iter_v1, bm__iter_v1) in pl.range(16, init_values=(am__ssa_v0, bm__ssa_v0)):
            am__ssa_v3: pl.Tile[[16, 128], pl.BF16, pl.Mem.Mat] = pl.tile.gather_row(am__iter_v1, a__ssa_v0, [r__idx_v0, 0], [r__idx_v0 * 4, 0], [1, 128], transpose=False)
            bm__ssa_v3: pl.Tile[[128, 16], pl.BF16, pl.Mem.Mat] = pl.tile.gather_row(bm__iter_v1, b__ssa_v0, [0, r__idx_v0], [r__idx_v0 * 2, 0], [1, 128], transpose=True)
            am__rv_v2, bm__rv_v2 = pl.yield_(am__ssa_v3, bm__ssa_v3)
        lhs__ssa_v0: pl.Tile[[16, 128], pl.BF16, pl.Mem.Left] = pl.tile.move(am__rv_v2, target_memory=pl.Mem.Left)
        rhs__ssa_v0: pl.Tile[[128, 16], pl.BF16, pl.Mem.Right] = pl.tile.move(bm__rv_v2, target_memory=pl.Mem.Right)
        acc__ssa_v0: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(lhs__ssa_v0, rhs__ssa_v0)
        c__ssa_v1: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(acc__ssa_v0, [0, 0], c__ssa_v0)
        return c__ssa_v0
