# pypto.program: ScatterToMemory
import pypto.language as pl

@pl.program
class ScatterToMemory:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(src__ssa_v0: pl.Tensor[[64, 32], pl.FP32], idx__ssa_v0: pl.Tensor[[64, 32], pl.INT32], out__ssa_v0: pl.Out[pl.Tensor[[4096], pl.FP32]]) -> pl.Tensor[[4096], pl.FP32]:
        for i__idx_v0, (out__iter_v1,) in pl.pipeline(8, stage=2, init_values=(out__ssa_v0,)):
            vals__ssa_v0: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(src__ssa_v0, [i__idx_v0 * 8, 0], [8, 32], [8, 32], target_memory=pl.Mem.Vec)
            offs__ssa_v0: pl.Tile[[8, 32], pl.INT32, pl.Mem.Vec] = pl.tile.load(idx__ssa_v0, [i__idx_v0 * 8, 0], [8, 32], [8, 32], target_memory=pl.Mem.Vec)
            out__ssa_v3: pl.Tensor[[4096], pl.FP32] = pl.tile.mscatter(vals__ssa_v0, offs__ssa_v0, out__iter_v1)
            out__rv_v2: pl.Tensor[[4096], pl.FP32] = pl.yield_(out__ssa_v3)
        return out__ssa_v0
