# pypto.program: GatherMask
import pypto.language as pl

@pl.program
class GatherMask:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(x__ssa_v0: pl.Tensor[[1, 32], pl.FP32], ids__ssa_v0: pl.Tensor[[1, 32], pl.UINT32], vals__ssa_v0: pl.Out[pl.Tensor[[1, 32], pl.FP32]], idxs__ssa_v0: pl.Out[pl.Tensor[[1, 32], pl.INT32]], quarter__ssa_v0: pl.Out[pl.Tensor[[1, 16], pl.FP32]]) -> tuple[pl.Tensor[[1, 32], pl.FP32], pl.Tensor[[1, 32], pl.INT32], pl.Tensor[[1, 16], pl.FP32]]:
        t__tmp_v0: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [0, 0], [1, 32], [1, 32], target_memory=pl.Mem.Vec)
        t__tmp_v1: pl.Tile[[1, 32], pl.UINT32, pl.Mem.Vec] = pl.tile.load(ids__ssa_v0, [0, 0], [1, 32], [1, 32], target_memory=pl.Mem.Vec)
        pairs__ssa_v0: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.sort32(t__tmp_v0, t__tmp_v1)
        v__ssa_v0: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec] = pl.tile.gather_mask(pairs__ssa_v0, mask_pattern=1)
        i__ssa_v0: pl.Tile[[1, 32], pl.INT32, pl.Mem.Vec] = pl.tile.gather_mask(pairs__ssa_v0, mask_pattern=2, output_dtype=pl.INT32)
        q__ssa_v0: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.gather_mask(pairs__ssa_v0, mask_pattern=3)
        vals__ssa_v1: pl.Tensor[[1, 32], pl.FP32] = pl.tile.store(v__ssa_v0, [0, 0], vals__ssa_v0)
        idxs__ssa_v1: pl.Tensor[[1, 32], pl.INT32] = pl.tile.store(i__ssa_v0, [0, 0], idxs__ssa_v0)
        quarter__ssa_v1: pl.Tensor[[1, 16], pl.FP32] = pl.tile.store(q__ssa_v0, [0, 0], quarter__ssa_v0)
        return vals__ssa_v0, idxs__ssa_v0, quarter__ssa_v0
