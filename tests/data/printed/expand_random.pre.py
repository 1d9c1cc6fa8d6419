# pypto.program: ExpandRandom
import pypto.language as pl

@pl.program
class ExpandRandom:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(a__ssa_v0: pl.Tensor[[48, 64], pl.FP32], seed__ssa_v0: pl.Scalar[pl.INT32], out__ssa_v0: pl.Out[pl.Tensor[[64, 64], pl.FP32]], bits__ssa_v0: pl.Out[pl.Tensor[[16, 64], pl.UINT32]]) -> tuple[pl.Tensor[[64, 64], pl.FP32], pl.Tensor[[16, 64], pl.UINT32]]:
        t__ssa_v0: pl.Tile[[48, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a__ssa_v0, [0, 0], [48, 64], [48, 64], target_memory=pl.Mem.Vec)
        full__ssa_v0: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec, pl.TileView(pad=pl.PadValue.max)] = pl.tile.fillpad_expand(t__ssa_v0, [64, 64], pad_value=pl.PadValue.max)
        out__ssa_v1: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(full__ssa_v0, [0, 0], out__ssa_v0)
        r__ssa_v0: pl.Tile[[16, 64], pl.UINT32, pl.Mem.Vec] = pl.tile.random(seed__ssa_v0, pl.const(2, pl.INT32), pl.const(3, pl.INT32), pl.const(4, pl.INT32), pl.const(5, pl.INT32), pl.const(6, pl.INT32), [16, 64], dtype=pl.UINT32, rounds=7)
        bits__ssa_v1: pl.Tensor[[16, 64], pl.UINT32] = pl.tile.store(r__ssa_v0, [0, 0], bits__ssa_v0)
        return out__ssa_v0, bits__ssa_v0
