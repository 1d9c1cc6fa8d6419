# pypto.program: ScatterIndex
import pypto.language as pl

@pl.program
class ScatterIndex:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(v__ssa_v0: pl.Tensor[[8, 8], pl.FP32], idx__ssa_v0: pl.Tensor[[8, 8], pl.INT32], out__ssa_v0: pl.Out[pl.Tensor[[8, 16], pl.FP32]]) -> pl.Tensor[[8, 16], pl.FP32]:
        vals__ssa_v0: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(v__ssa_v0, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)
        offs__ssa_v0: pl.Tile[[8, 8], pl.INT32, pl.Mem.Vec] = pl.tile.load(idx__ssa_v0, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)
        zero__ssa_v0: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.full([8, 16], dtype=pl.FP32, value=0.0)
        dst__ssa_v0: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.scatter(zero__ssa_v0, vals__ssa_v0, offs__ssa_v0)
        out__ssa_v1: pl.Tensor[[8, 16], pl.FP32] = pl.tile.store(dst__ssa_v0, [0, 0], out__ssa_v0)
        return out__ssa_v0
