# pypto.program: SliceColExpand
import pypto.language as pl

@pl.program
class SliceColExpand:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(x__ssa_v0: pl.Tensor[[16, 128], pl.FP32], cos__ssa_v0: pl.Tensor[[1, 64], pl.FP32], out__ssa_v0: pl.Out[pl.Tensor[[2, 64], pl.FP32]]) -> pl.Tensor[[2, 64], pl.FP32]:
        t__ssa_v0: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Vec)
        c__ssa_v0: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(cos__ssa_v0, [0, 0], [1, 64], [1, 64], target_memory=pl.Mem.Vec)
        lo__ssa_v0: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t__ssa_v0, [1, 64], [0, 0])
        hi__ssa_v0: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t__ssa_v0, [1, 64], [0, 64])
        a__ssa_v0: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(lo__ssa_v0, c__ssa_v0)
        b__ssa_v0: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(hi__ssa_v0, c__ssa_v0)
        d__ssa_v0: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(lo__ssa_v0, c__ssa_v0)
        e__ssa_v0: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(a__ssa_v0, d__ssa_v0)
        out__ssa_v1: pl.Tensor[[2, 64], pl.FP32] = pl.tile.store(e__ssa_v0, [0, 0], out__ssa_v0)
        out__ssa_v2: pl.Tensor[[2, 64], pl.FP32] = pl.tile.store(b__ssa_v0, [1, 0], out__ssa_v1)
        return out__ssa_v0
