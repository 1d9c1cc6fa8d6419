# pypto.program: ValidView
import pypto.language as pl

VALID_COLS = pl.dynamic("VALID_COLS")

@pl.program
class ValidView:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(s__ssa_v0: pl.Tensor[[16, 128], pl.FP32, pl.TensorView(valid_shape=[16, VALID_COLS], stride=[], layout=pl.TensorLayout.ND)], n__ssa_v0: pl.Scalar[pl.INDEX], out__ssa_v0: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        t__ssa_v0: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[16, n__ssa_v0])] = pl.tile.load(s__ssa_v0, [0, 0], [16, 128], [16, n__ssa_v0], target_memory=pl.Mem.Vec)
        padded__ssa_v0: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec, pl.TileView(pad=pl.PadValue.min)] = pl.tile.fillpad(t__ssa_v0, pad_value=pl.PadValue.min)
        scaled__ssa_v0: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec, pl.TileView(pad=pl.PadValue.min)] = pl.tile.muls(padded__ssa_v0, 0.5)
        out__ssa_v1: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store(scaled__ssa_v0, [0, 0], out__ssa_v0)
        return out__ssa_v0
