# pypto.program: FillPad
import pypto.language as pl

@pl.program
class FillPad:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(ids__ssa_v0: pl.Tensor[[1, 64], pl.INT32], x__ssa_v0: pl.Tensor[[8, 64], pl.FP32], n__ssa_v0: pl.Scalar[pl.INDEX], ids_out__ssa_v0: pl.Out[pl.Tensor[[1, 64], pl.INT32]], x_out__ssa_v0: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> tuple[pl.Tensor[[1, 64], pl.INT32], pl.Tensor[[8, 64], pl.FP32]]:
        row__ssa_v0: pl.Tile[[1, 64], pl.INT32, pl.Mem.Vec] = pl.tile.load(ids__ssa_v0, [0, 0], [1, 64], [1, 64], target_memory=pl.Mem.Vec)
        head__ssa_v0: pl.Tile[[1, 64], pl.INT32, pl.Mem.Vec, pl.TileView(valid_shape=[1, n__ssa_v0])] = pl.tile.slice(row__ssa_v0, [1, 64], [0, 0], [1, n__ssa_v0])
        padded__ssa_v0: pl.Tile[[1, 64], pl.INT32, pl.Mem.Vec, pl.TileView(pad=pl.PadValue.min)] = pl.tile.fillpad(head__ssa_v0, pad_value=pl.PadValue.min)
        ids_out__ssa_v1: pl.Tensor[[1, 64], pl.INT32] = pl.tile.store(padded__ssa_v0, [0, 0], ids_out__ssa_v0)
        part__ssa_v0: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[5, 64])] = pl.tile.load(x__ssa_v0, [0, 0], [8, 64], [5, 64], target_memory=pl.Mem.Vec)
        full__ssa_v0: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec, pl.TileView(pad=pl.PadValue.max)] = pl.tile.fillpad(part__ssa_v0, pad_value=pl.PadValue.max)
        x_out__ssa_v1: pl.Tensor[[8, 64], pl.FP32] = pl.tile.store(full__ssa_v0, [0, 0], x_out__ssa_v0)
        return ids_out__ssa_v0, x_out__ssa_v0
