# pypto.program: TensorView2d
import pypto.language as pl

@pl.program
class TensorView2d:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(x__ssa_v0: pl.Tensor[[2, 16, 64], pl.FP32], out__ssa_v0: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        flat__ssa_v0: pl.Tensor[[32, 64], pl.FP32, pl.TensorView(stride=[64, 1], layout=pl.TensorLayout.ND)] = pl.tensor.view(x__ssa_v0, [32, 64])
        t__ssa_v0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(flat__ssa_v0, [16, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        out__ssa_v1: pl.Tensor[[32, 64], pl.FP32] = pl.tile.store(t__ssa_v0, [0, 0], out__ssa_v0)
        return out__ssa_v0
