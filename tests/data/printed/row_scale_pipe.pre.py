# pypto.program: RowScalePipe
import pypto.language as pl

@pl.program
class RowScalePipe:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(x__ssa_v0: pl.Tensor[[256, 128], pl.FP32], g__ssa_v0: pl.Tensor[[256, 128], pl.FP32], out__ssa_v0: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
        for r__idx_v0, (out__iter_v1,) in pl.pipeline(8, stage=2, init_values=(out__ssa_v0,)):
            xt__ssa_v0: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [r__idx_v0 * 32, 0], [32, 128], [32, 128], target_memory=pl.Mem.Vec)
            gt__ssa_v0: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(g__ssa_v0, [r__idx_v0 * 32, 0], [32, 128], [32, 128], target_memory=pl.Mem.Vec)
            prod__ssa_v0: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec] = pl.tile.mul(xt__ssa_v0, gt__ssa_v0)
            out__ssa_v3: pl.Tensor[[256, 128], pl.FP32] = pl.tile.store(prod__ssa_v0, [r__idx_v0 * 32, 0], out__iter_v1)
            out__rv_v2: pl.Tensor[[256, 128], pl.FP32] = pl.yield_(out__ssa_v3)
        return out__ssa_v0
