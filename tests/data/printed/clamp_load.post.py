# pypto.program: ClampLoad
import pypto.language as pl

@pl.program
class ClampLoad:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(x__ssa_v0: pl.Tensor[[100, 64], pl.FP32], out__ssa_v0: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        for r__idx_v0, (out__iter_v1,) in pl.pipeline(4, stage=2, init_values=(out__ssa_v0,)):
            t__ssa_v0: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[pl.min(pl.max(pl.const(100, pl.INDEX) - r__idx_v0 * pl.const(32, pl.INDEX), pl.const(0, pl.INDEX)), pl.const(32, pl.INDEX)), 64])] = pl.tile.load(x__ssa_v0, [r__idx_v0 * 32, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec, clamp=True)
            e__ssa_v0: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[pl.min(pl.max(pl.const(100, pl.INDEX) - r__idx_v0 * pl.const(32, pl.INDEX), pl.const(0, pl.INDEX)), pl.const(32, pl.INDEX)), 64])] = pl.tile.exp(t__ssa_v0)
            out__ssa_v3: pl.Tensor[[128, 64], pl.FP32] = pl.tile.store(e__ssa_v0, [r__idx_v0 * 32, 0], out__iter_v1)
            out__rv_v2: pl.Tensor[[128, 64], pl.FP32] = pl.yield_(out__ssa_v3)
        return out__ssa_v0
