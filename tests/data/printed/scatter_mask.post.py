# pypto.program: ScatterMask
import pypto.language as pl

@pl.program
class ScatterMask:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(even__ssa_v0: pl.Tensor[[4, 16], pl.FP32], odd__ssa_v0: pl.Tensor[[4, 16], pl.FP32], out__ssa_v0: pl.Out[pl.Tensor[[4, 32], pl.FP32]]) -> pl.Tensor[[4, 32], pl.FP32]:
        e__ssa_v0: pl.Tile[[4, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(even__ssa_v0, [0, 0], [4, 16], [4, 16], target_memory=pl.Mem.Vec)
        o__ssa_v0: pl.Tile[[4, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(odd__ssa_v0, [0, 0], [4, 16], [4, 16], target_memory=pl.Mem.Vec)
        d__ssa_v0: pl.Tile[[4, 32], pl.FP32, pl.Mem.Vec] = pl.tile.full([4, 32], dtype=pl.FP32, value=0.0)
        d1__ssa_v0: pl.Tile[[4, 32], pl.FP32, pl.Mem.Vec] = pl.tile.scatter_mask(d__ssa_v0, e__ssa_v0, mask_pattern=1)
        d2__ssa_v0: pl.Tile[[4, 32], pl.FP32, pl.Mem.Vec] = pl.tile.scatter_mask(d1__ssa_v0, o__ssa_v0, mask_pattern=2)
        out__ssa_v1: pl.Tensor[[4, 32], pl.FP32] = pl.tile.store(d2__ssa_v0, [0, 0], out__ssa_v0)
        return out__ssa_v0
