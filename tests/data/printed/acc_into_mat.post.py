# pypto.program: AccIntoMat
import pypto.language as pl

@pl.program
class AccIntoMat:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def kernel(a__ssa_v0: pl.Tensor[[16, 32], pl.FP32], b__ssa_v0: pl.Tensor[[32, 32], pl.FP32], out__ssa_v0: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        am__ssa_v0: pl.Tile[[16, 32], pl.FP32, pl.Mem.Mat] = pl.tile.load(a__ssa_v0, [0, 0], [16, 32], [16, 32], target_memory=pl.Mem.Mat)
        bm__ssa_v0: pl.Tile[[32, 32], pl.FP32, pl.Mem.Mat] = pl.tile.load(b__ssa_v0, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Mat)
        am__ssa_v0_Left: pl.Tile[[16, 32], pl.FP32, pl.Mem.Left] = pl.tile.move(am__ssa_v0, target_memory=pl.Mem.Left)
        bm__ssa_v0_Right: pl.Tile[[32, 32], pl.FP32, pl.Mem.Right] = pl.tile.move(bm__ssa_v0, target_memory=pl.Mem.Right)
        acc__ssa_v0: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(am__ssa_v0_Left, bm__ssa_v0_Right)
        scratch__ssa_v0: pl.Tile[[32, 32], pl.FP32, pl.Mem.Mat] = pl.tile.create([32, 32], dtype=pl.FP32, target_memory=pl.Mem.Mat)
        s1__ssa_v0: pl.Tile[[32, 32], pl.FP32, pl.Mem.Mat] = pl.tile.assemble(scratch__ssa_v0, acc__ssa_v0, [0, 0])
        s2__ssa_v0: pl.Tile[[32, 32], pl.FP32, pl.Mem.Mat] = pl.tile.assemble(s1__ssa_v0, acc__ssa_v0, [16, 0])
        s2__ssa_v0_Left: pl.Tile[[32, 32], pl.FP32, pl.Mem.Left] = pl.tile.move(s2__ssa_v0, target_memory=pl.Mem.Left)
        d__ssa_v0: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(s2__ssa_v0_Left, bm__ssa_v0_Right)
        out__ssa_v1: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(d__ssa_v0, [0, 0], out__ssa_v0)
        return out__ssa_v0
