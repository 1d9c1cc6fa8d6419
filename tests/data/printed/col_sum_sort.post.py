# pypto.program: ColSumSort
import pypto.language as pl

@pl.program
class ColSumSort:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(x__ssa_v0: pl.Tensor[[16, 64], pl.FP32], ids__ssa_v0: pl.Tensor[[1, 32], pl.UINT32], out__ssa_v0: pl.Out[pl.Tensor[[4, 64], pl.FP32]]) -> pl.Tensor[[4, 64], pl.FP32]:
        t__ssa_v0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        s1__ssa_v0: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_sum(t__ssa_v0)
        tmp__ssa_v0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        s2__ssa_v0: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_sum(t__ssa_v0, tmp__ssa_v0)
        both__ssa_v0: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(s1__ssa_v0, s2__ssa_v0)
        row__ssa_v0: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [0, 0], [1, 32], [1, 32], target_memory=pl.Mem.Vec)
        idx__ssa_v0: pl.Tile[[1, 32], pl.UINT32, pl.Mem.Vec] = pl.tile.load(ids__ssa_v0, [0, 0], [1, 32], [1, 32], target_memory=pl.Mem.Vec)
        sorted_row__ssa_v0: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.sort32(row__ssa_v0, idx__ssa_v0)
        out__ssa_v1: pl.Tensor[[4, 64], pl.FP32] = pl.tile.store(both__ssa_v0, [0, 0], out__ssa_v0)
        out__ssa_v2: pl.Tensor[[4, 64], pl.FP32] = pl.tile.store(sorted_row__ssa_v0, [1, 0], out__ssa_v1)
        return out__ssa_v0
