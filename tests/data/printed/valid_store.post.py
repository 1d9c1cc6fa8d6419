# pypto.program: ValidStore
import pypto.language as pl

VALID_COLS = pl.dynamic("VALID_COLS")

@pl.program
class ValidStore:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(x__ssa_v0: pl.Tensor[[16, 128], pl.FP32], out__ssa_v0: pl.Out[pl.Tensor[[16, 128], pl.FP32, pl.TensorView(valid_shape=[16, VALID_COLS], stride=[], layout=pl.TensorLayout.ND)]]) -> pl.Tensor[[16, 128], pl.FP32, pl.TensorView(valid_shape=[16, VALID_COLS], stride=[], layout=pl.TensorLayout.ND)]:
        t__ssa_v0: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Vec)
        doubled__ssa_v0: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.add(t__ssa_v0, t__ssa_v0)
        pl.tile.store(doubled__ssa_v0, [0, 0], out__ssa_v0)
        return out__ssa_v0
