# pypto.program: ScalarsAndCasts
import pypto.language as pl

@pl.program
class ScalarsAndCasts:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(x__ssa_v0: pl.Tensor[[16, 64], pl.FP32], idx__ssa_v0: pl.Tensor[[16], pl.INT32], n__ssa_v0: pl.Scalar[pl.INDEX], out__ssa_v0: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        first__tile: pl.Scalar[pl.INT32] = pl.tensor.read(idx__ssa_v0, [0])
        t__ssa_v0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        s__ssa_v0: pl.Scalar[pl.FP32] = pl.tile.read(t__ssa_v0, [0, 0])
        k__ssa_v0: pl.Scalar[pl.INT32] = pl.cast(s__ssa_v0, pl.INT32)
        scale__ssa_v0: pl.Scalar[pl.FP32] = pl.cast(k__ssa_v0 + first__tile, pl.FP32)
        u__ssa_v0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(t__ssa_v0, scale__ssa_v0)
        lanes__ssa_v0: pl.Tile[[1, 64], pl.INT32, pl.Mem.Vec] = pl.tile.ci(pl.const(0, pl.INT32), [1, 64], dtype=pl.INT32, descending=False)
        lf__ssa_v0: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.cast(lanes__ssa_v0, target_type=pl.FP32, mode='none')
        v__ssa_v0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_add(u__ssa_v0, lf__ssa_v0)
        cols__ssa_v0: pl.Scalar[pl.INDEX] = pl.max(pl.min(n__ssa_v0, 64), 1)
        w__ssa_v0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[16, cols__ssa_v0])] = pl.tile.set_validshape(v__ssa_v0, 16, cols__ssa_v0)
        out__ssa_v1: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(w__ssa_v0, [0, 0], out__ssa_v0)
        return out__ssa_v0
