# pypto.program: ValidRows
import pypto.language as pl

@pl.program
class ValidRows:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(x__ssa_v0: pl.Tensor[[256, 128], pl.FP32], n__ssa_v0: pl.Scalar[pl.INDEX], out__ssa_v0: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
        for r__idx_v0, (out__iter_v1,) in pl.pipeline(8, stage=2, init_values=(out__ssa_v0,)):
            rows__ssa_v0: pl.Scalar[pl.INDEX] = pl.min(n__ssa_v0 - r__idx_v0 * 32, 32)
            t__ssa_v0: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[rows__ssa_v0, 128])] = pl.tile.load(x__ssa_v0, [r__idx_v0 * 32, 0], [32, 128], [rows__ssa_v0, 128], target_memory=pl.Mem.Vec)
            e__ssa_v0: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[rows__ssa_v0, 128])] = pl.tile.exp(t__ssa_v0)
            out__ssa_v3: pl.Tensor[[256, 128], pl.FP32] = pl.tile.store(e__ssa_v0, [r__idx_v0 * 32, 0], out__iter_v1)
            out__rv_v2: pl.Tensor[[256, 128], pl.FP32] = pl.yield_(out__ssa_v3)
        return out__ssa_v0
