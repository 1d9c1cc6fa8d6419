# pypto.program: MergeSort
import pypto.language as pl

@pl.program
class MergeSort:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(x__ssa_v0: pl.Tensor[[4, 32], pl.FP32], ids__ssa_v0: pl.Tensor[[4, 32], pl.UINT32], out__ssa_v0: pl.Out[pl.Tensor[[2, 256], pl.FP32]]) -> pl.Tensor[[2, 256], pl.FP32]:
        t__tmp_v0: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [0, 0], [1, 32], [1, 32], target_memory=pl.Mem.Vec)
        t__tmp_v1: pl.Tile[[1, 32], pl.UINT32, pl.Mem.Vec] = pl.tile.load(ids__ssa_v0, [0, 0], [1, 32], [1, 32], target_memory=pl.Mem.Vec)
        r0__ssa_v0: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.sort32(t__tmp_v0, t__tmp_v1)
        t__tmp_v2: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [1, 0], [1, 32], [1, 32], target_memory=pl.Mem.Vec)
        t__tmp_v3: pl.Tile[[1, 32], pl.UINT32, pl.Mem.Vec] = pl.tile.load(ids__ssa_v0, [1, 0], [1, 32], [1, 32], target_memory=pl.Mem.Vec)
        r1__ssa_v0: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.sort32(t__tmp_v2, t__tmp_v3)
        t__tmp_v4: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [2, 0], [1, 32], [1, 32], target_memory=pl.Mem.Vec)
        t__tmp_v5: pl.Tile[[1, 32], pl.UINT32, pl.Mem.Vec] = pl.tile.load(ids__ssa_v0, [2, 0], [1, 32], [1, 32], target_memory=pl.Mem.Vec)
        r2__ssa_v0: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.sort32(t__tmp_v4, t__tmp_v5)
        t__tmp_v6: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [3, 0], [1, 32], [1, 32], target_memory=pl.Mem.Vec)
        t__tmp_v7: pl.Tile[[1, 32], pl.UINT32, pl.Mem.Vec] = pl.tile.load(ids__ssa_v0, [3, 0], [1, 32], [1, 32], target_memory=pl.Mem.Vec)
        r3__ssa_v0: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.sort32(t__tmp_v6, t__tmp_v7)
        tmp2__ssa_v0: pl.Tile[[1, 128], pl.FP32, pl.Mem.Vec] = pl.tile.create([1, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        two__ssa_v0: pl.Tile[[1, 128], pl.FP32, pl.Mem.Vec] = pl.tile.mrgsort_format2(r0__ssa_v0, r1__ssa_v0, tmp2__ssa_v0, exhausted=False)
        tmp4__ssa_v0: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.create([1, 256], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        four__ssa_v0: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.mrgsort_format2(r0__ssa_v0, r1__ssa_v0, r2__ssa_v0, r3__ssa_v0, tmp4__ssa_v0, exhausted=True)
        out__ssa_v1: pl.Tensor[[2, 256], pl.FP32] = pl.tile.store(two__ssa_v0, [0, 0], out__ssa_v0)
        out__ssa_v2: pl.Tensor[[2, 256], pl.FP32] = pl.tile.store(four__ssa_v0, [1, 0], out__ssa_v1)
        return out__ssa_v0
