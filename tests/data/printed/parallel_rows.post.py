# pypto.program: ParallelRows
import pypto.language as pl

@pl.program
class ParallelRows:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(x__ssa_v0: pl.Tensor[[256, 128], pl.FP32], out__ssa_v0: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
        for r__idx_v0, (out__iter_v1,) in pl.parallel(0, 256, 64, init_values=(out__ssa_v0,)):
            for c__idx_v0, (out__iter_v3,) in pl.pipeline(0, 128, 32, stage=2, init_values=(out__iter_v1,)):
                t__ssa_v0: pl.Tile[[64, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [r__idx_v0, c__idx_v0], [64, 32], [64, 32], target_memory=pl.Mem.Vec)
                e__ssa_v0: pl.Tile[[64, 32], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t__ssa_v0)
                out__ssa_v5: pl.Tensor[[256, 128], pl.FP32] = pl.tile.store(e__ssa_v0, [r__idx_v0, c__idx_v0], out__iter_v3)
                out__rv_v4: pl.Tensor[[256, 128], pl.FP32] = pl.yield_(out__ssa_v5)
            out__rv_v2: pl.Tensor[[256, 128], pl.FP32] = pl.yield_(out__rv_v4)
        return out__ssa_v0
