# pypto.program: CausalMask
import pypto.language as pl

@pl.program
class CausalMask:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(s__ssa_v0: pl.Tensor[[128, 32], pl.FP32], out__ssa_v0: pl.Out[pl.Tensor[[128, 32], pl.FP32]]) -> pl.Tensor[[128, 32], pl.FP32]:
        mask__ssa_v0: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.tri(pl.const(0, pl.INT32), [16, 32], dtype=pl.FP32, upper=False)
        upper__ssa_v0: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[12, 32])] = pl.tile.tri(pl.const(-4, pl.INT32), [16, 32], [12, 32], dtype=pl.FP32, upper=True)
        for b__idx_v0, (out__iter_v1,) in pl.pipeline(8, stage=2, init_values=(out__ssa_v0,)):
            t__ssa_v0: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(s__ssa_v0, [b__idx_v0 * 16, 0], [16, 32], [16, 32], target_memory=pl.Mem.Vec)
            t__tmp_v0: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.mul(t__ssa_v0, mask__ssa_v0)
            m__ssa_v0: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.mul(t__tmp_v0, upper__ssa_v0)
            out__ssa_v3: pl.Tensor[[128, 32], pl.FP32] = pl.tile.store(m__ssa_v0, [b__idx_v0 * 16, 0], out__iter_v1)
            out__rv_v2: pl.Tensor[[128, 32], pl.FP32] = pl.yield_(out__ssa_v3)
        return out__ssa_v0
