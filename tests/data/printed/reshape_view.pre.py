# pypto.program: ReshapeView
import pypto.language as pl

@pl.program
class ReshapeView:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(x__ssa_v0: pl.Tensor[[256, 128], pl.FP32], out__ssa_v0: pl.Out[pl.Tensor[[128, 256], pl.FP32]]) -> pl.Tensor[[128, 256], pl.FP32]:
        for r__idx_v0, (out__iter_v1,) in pl.pipeline(4, stage=2, init_values=(out__ssa_v0,)):
            t__ssa_v0: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [r__idx_v0 * 64, 0], [64, 128], [64, 128], target_memory=pl.Mem.Vec)
            v__ssa_v0: pl.Tile[[32, 256], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(t__ssa_v0, [32, 256])
            e__ssa_v0: pl.Tile[[32, 256], pl.FP32, pl.Mem.Vec] = pl.tile.exp(v__ssa_v0)
            out__ssa_v3: pl.Tensor[[128, 256], pl.FP32] = pl.tile.store(e__ssa_v0, [r__idx_v0 * 32, 0], out__iter_v1)
            out__rv_v2: pl.Tensor[[128, 256], pl.FP32] = pl.yield_(out__ssa_v3)
        return out__ssa_v0
