# pypto.program: NegateInPlace
import pypto.language as pl

@pl.program
class NegateInPlace:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(x__ssa_v0: pl.Tensor[[8, 64], pl.FP32], n__ssa_v0: pl.Scalar[pl.INDEX], out__ssa_v0: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> pl.Tensor[[8, 64], pl.FP32]:
        back__ssa_v0: pl.Scalar[pl.INDEX] = -n__ssa_v0 + 64
        mask__ssa_v0: pl.Scalar[pl.INDEX] = ~n__ssa_v0 + 65
        cols__ssa_v0: pl.Scalar[pl.INDEX] = pl.max(pl.min(back__ssa_v0, mask__ssa_v0), 1)
        part__ssa_v0: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[8, cols__ssa_v0])] = pl.tile.load(x__ssa_v0, [0, 0], [8, 64], [8, cols__ssa_v0], target_memory=pl.Mem.Vec)
        full__ssa_v0: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec, pl.TileView(pad=pl.PadValue.zero)] = pl.tile.fillpad_inplace(part__ssa_v0, pad_value=pl.PadValue.zero)
        out__ssa_v1: pl.Tensor[[8, 64], pl.FP32] = pl.tile.store(full__ssa_v0, [0, 0], out__ssa_v0)
        return out__ssa_v0
