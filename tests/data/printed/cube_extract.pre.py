# pypto.program: CubeExtract
import pypto.language as pl

@pl.program
class CubeExtract:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def kernel(a__ssa_v0: pl.Tensor[[64, 256], pl.BF16], b__ssa_v0: pl.Tensor[[256, 64], pl.BF16], c__ssa_v0: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        am__ssa_v0: pl.Tile[[64, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(a__ssa_v0, [0, 0], [64, 256], [64, 256], target_memory=pl.Mem.Mat)
        bm__ssa_v0: pl.Tile[[256, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(b__ssa_v0, [0, 0], [256, 64], [256, 64], target_memory=pl.Mem.Mat)
        l0__ssa_v0: pl.Tile[[64, 64], pl.BF16, pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major)] = pl.tile.extract(am__ssa_v0, 0, 0, [64, 64], target_memory=pl.Mem.Left)
        r0__ssa_v0: pl.Tile[[64, 64], pl.BF16, pl.Mem.Right] = pl.tile.extract(bm__ssa_v0, 0, 0, [64, 64], target_memory=pl.Mem.Right)
        acc__ssa_v0: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(l0__ssa_v0, r0__ssa_v0)
        for k__idx_v0, (acc__iter_v1,) in pl.range(1, 4, init_values=(acc__ssa_v0,)):
            lk__ssa_v0: pl.Tile[[64, 64], pl.BF16, pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major)] = pl.tile.extract(am__ssa_v0, 0, k__idx_v0 * 64, [64, 64], target_memory=pl.Mem.Left)
            rk__ssa_v0: pl.Tile[[64, 64], pl.BF16, pl.Mem.Right] = pl.tile.extract(bm__ssa_v0, k__idx_v0 * 64, 0, [64, 64], target_memory=pl.Mem.Right)
            acc__ssa_v3: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc__iter_v1, lk__ssa_v0, rk__ssa_v0)
            acc__rv_v2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(acc__ssa_v3)
        c__ssa_v1: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(acc__rv_v2, [0, 0], c__ssa_v0)
        return c__ssa_v0
