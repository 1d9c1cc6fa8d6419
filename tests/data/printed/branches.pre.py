# pypto.program: Branches
import pypto.language as pl

@pl.program
class Branches:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(x__ssa_v0: pl.Tensor[[256, 128], pl.FP32], flag__ssa_v0: pl.Scalar[pl.INDEX], out__ssa_v0: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
        for r__idx_v0, (out__iter_v1,) in pl.pipeline(32, 256, 64, stage=2, init_values=(out__ssa_v0,)):
            t__ssa_v0: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [r__idx_v0 - 32, 0], [64, 128], [64, 128], target_memory=pl.Mem.Vec)
            if 0 < flag__ssa_v0:
                y__ssa_v0: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t__ssa_v0, 1.0)
                y__phi_v2: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.yield_(y__ssa_v0)
            else:
                y__ssa_v1: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.muls(t__ssa_v0, 2.0)
                y__phi_v2: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.yield_(y__ssa_v1)
            out__ssa_v3: pl.Tensor[[256, 128], pl.FP32] = pl.tile.store(y__phi_v2, [r__idx_v0 - 32, 0], out__iter_v1)
            out__rv_v2: pl.Tensor[[256, 128], pl.FP32] = pl.yield_(out__ssa_v3)
        return out__ssa_v0
