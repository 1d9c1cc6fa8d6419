# pypto.program: GatherRows
import pypto.language as pl

@pl.program
class GatherRows:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(pool__ssa_v0: pl.Tensor[[64, 128], pl.FP32], idx__ssa_v0: pl.Tensor[[16], pl.INT32], n__ssa_v0: pl.Scalar[pl.INDEX], out__ssa_v0: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        acc__ssa_v0: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 128], dtype=pl.FP32, value=0.0)
        for r__idx_v0, (acc__iter_v1,) in pl.range(16, init_values=(acc__ssa_v0,)):
            t__tile: pl.Scalar[pl.INT32] = pl.tensor.read(idx__ssa_v0, [r__idx_v0])
            row__ssa_v0: pl.Scalar[pl.INDEX] = pl.cast(t__tile, pl.INDEX)
            acc__ssa_v3: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.gather_row(acc__iter_v1, pool__ssa_v0, [r__idx_v0, 0], [row__ssa_v0, 0], [1, 128], valid_shape=[1, n__ssa_v0], transpose=False)
            acc__rv_v2: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.yield_(acc__ssa_v3)
        out__ssa_v1: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store(acc__rv_v2, [0, 0], out__ssa_v0)
        return out__ssa_v0
