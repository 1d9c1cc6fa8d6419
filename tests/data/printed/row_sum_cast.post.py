# pypto.program: RowSumCast
import pypto.language as pl

@pl.program
class RowSumCast:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(x__ssa_v0: pl.Tensor[[64, 512], pl.BF16], out__ssa_v0: pl.Out[pl.Tensor[[64, 4], pl.FP32]]) -> pl.Tensor[[64, 4], pl.FP32]:
        for k__idx_v0, (out__iter_v1,) in pl.range(4, init_values=(out__ssa_v0,)):
            t__ssa_v0: pl.Tile[[64, 128], pl.BF16, pl.MemRef("pipe_t__ssa_v0", slots=2)[k__idx_v0 % 2], pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [0, k__idx_v0 * 128], [64, 128], [64, 128], target_memory=pl.Mem.Vec)
            f__ssa_v0: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.cast(t__ssa_v0, target_type=pl.FP32, mode='round')
            sq__ssa_v0: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.mul(f__ssa_v0, f__ssa_v0)
            tmp__ssa_v0: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.create([64, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            part__ssa_v0: pl.Tile[[64, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_sum(sq__ssa_v0, tmp__ssa_v0)
            out__ssa_v3: pl.Tensor[[64, 4], pl.FP32] = pl.tile.store(part__ssa_v0, [0, k__idx_v0], out__iter_v1)
            out__rv_v2: pl.Tensor[[64, 4], pl.FP32] = pl.yield_(out__ssa_v3)
        return out__ssa_v0
