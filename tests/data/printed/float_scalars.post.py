# pypto.program: FloatScalars
import pypto.language as pl

@pl.program
class FloatScalars:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(x__ssa_v0: pl.Tensor[[16, 64], pl.FP32], floor__ssa_v0: pl.Scalar[pl.FP32], out__ssa_v0: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t__ssa_v0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        a__ssa_v0: pl.Scalar[pl.FP32] = pl.tile.read(t__ssa_v0, [0, 0])
        b__ssa_v0: pl.Scalar[pl.FP32] = pl.tile.read(t__ssa_v0, [1, 0])
        amax__ssa_v0: pl.Scalar[pl.FP32] = pl.min(pl.max(a__ssa_v0, floor__ssa_v0), b__ssa_v0)
        scale__ssa_v0: pl.Scalar[pl.FP32] = 127.0 / amax__ssa_v0
        u__ssa_v0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(t__ssa_v0, scale__ssa_v0)
        out__ssa_v1: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(u__ssa_v0, [0, 0], out__ssa_v0)
        return out__ssa_v0
