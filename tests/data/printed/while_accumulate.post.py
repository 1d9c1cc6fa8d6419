# pypto.program: WhileAccumulate
import pypto.language as pl

@pl.program
class WhileAccumulate:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(x__ssa_v0: pl.Tensor[[256, 64], pl.FP32], out__ssa_v0: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        acc__ssa_v0: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
        j__ssa_v0: pl.Scalar[pl.INDEX] = 1
        for (acc__iter_v1, j__iter_v1) in pl.while_(init_values=(acc__ssa_v0, j__ssa_v0)):
            pl.cond(j__iter_v1_1__FREE_VAR < 4)
            for k__idx_v0, (acc__iter_v3,) in pl.range(2, init_values=(acc__iter_v1,)):
                t__ssa_v0: pl.Tile[[32, 64], pl.FP32, pl.MemRef("pipe_t__ssa_v0", slots=2)[k__idx_v0 % 2], pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [j__iter_v1_1__FREE_VAR * 64 + k__idx_v0 * 32, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
                acc__ssa_v5: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc__iter_v3, t__ssa_v0)
                acc__rv_v4: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(acc__ssa_v5)
            j__ssa_v3: pl.Scalar[pl.INDEX] = j__iter_v1_1__FREE_VAR + 1
            acc__rv_v2, j__rv_v2 = pl.yield_(acc__rv_v4, j__ssa_v3)
        out__ssa_v1: pl.Tensor[[32, 64], pl.FP32] = pl.tile.store(acc__rv_v2, [0, 0], out__ssa_v0)
        return out__ssa_v0
