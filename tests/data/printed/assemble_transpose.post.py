# pypto.program: AssembleTranspose
import pypto.language as pl

@pl.program
class AssembleTranspose:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def cube(a__ssa_v0: pl.Tensor[[16, 64], pl.BF16], b__ssa_v0: pl.Tensor[[32, 64], pl.BF16], c__ssa_v0: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        am__ssa_v0: pl.Tile[[16, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(a__ssa_v0, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Mat)
        bm__ssa_v0: pl.Tile[[32, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(b__ssa_v0, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Mat)
        bt__ssa_v0: pl.Tile[[64, 32], pl.BF16, pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.col_major)] = pl.tile.transpose_view(bm__ssa_v0)
        lhs__ssa_v0: pl.Tile[[16, 64], pl.BF16, pl.Mem.Left] = pl.tile.move(am__ssa_v0, target_memory=pl.Mem.Left)
        rhs__ssa_v0: pl.Tile[[64, 32], pl.BF16, pl.Mem.Right] = pl.tile.move(bt__ssa_v0, target_memory=pl.Mem.Right)
        acc__ssa_v0: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(lhs__ssa_v0, rhs__ssa_v0)
        c__ssa_v1: pl.Tensor[[16, 32], pl.FP32] = pl.tile.store(acc__ssa_v0, [0, 0], c__ssa_v0)
        return c__ssa_v0
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def vec(x__ssa_v0: pl.Tensor[[32, 64], pl.FP32], out__ssa_v0: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        buf__ssa_v0: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([32, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        for r__idx_v0, (buf__iter_v1,) in pl.range(4, init_values=(buf__ssa_v0,)):
            part__ssa_v0: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [r__idx_v0 * 8, 0], [8, 64], [8, 64], target_memory=pl.Mem.Vec)
            e__ssa_v0: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(part__ssa_v0)
            buf__ssa_v3: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.assemble(buf__iter_v1, e__ssa_v0, [r__idx_v0 * 8, 0])
            buf__rv_v2: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(buf__ssa_v3)
        w__ssa_v0: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.write(buf__rv_v2, [0, 0], 1.0)
        out__ssa_v1: pl.Tensor[[32, 64], pl.FP32] = pl.tile.store(w__ssa_v0, [0, 0], out__ssa_v0)
        return out__ssa_v0
