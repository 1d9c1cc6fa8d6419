# pypto.program: WhileRows
import pypto.language as pl

@pl.program
class WhileRows:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(a__ssa_v0: pl.Tensor[[256, 64], pl.FP32], b__ssa_v0: pl.Tensor[[256, 64], pl.FP32], c__ssa_v0: pl.Out[pl.Tensor[[256, 64], pl.FP32]]) -> pl.Tensor[[256, 64], pl.FP32]:
        i__ssa_v0: pl.Scalar[pl.INDEX] = 0
        for (c__iter_v1, i__iter_v1) in pl.while_(init_values=(c__ssa_v0, i__ssa_v0)):
            pl.cond(i__iter_v1_1__FREE_VAR < 4)
            ta__ssa_v0: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a__ssa_v0, [i__iter_v1_1__FREE_VAR * 64, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
            tb__ssa_v0: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(b__ssa_v0, [i__iter_v1_1__FREE_VAR * 64, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
            s__ssa_v0: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(ta__ssa_v0, tb__ssa_v0)
            c__ssa_v3: pl.Tensor[[256, 64], pl.FP32] = pl.tile.store(s__ssa_v0, [i__iter_v1_1__FREE_VAR * 64, 0], c__iter_v1)
            i__ssa_v3: pl.Scalar[pl.INDEX] = i__iter_v1_1__FREE_VAR + 1
            c__rv_v2, i__rv_v2 = pl.yield_(c__ssa_v3, i__ssa_v3)
        return c__ssa_v0
