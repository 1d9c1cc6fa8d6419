# pypto.program: Window4d
import pypto.language as pl

@pl.program
class Window4d:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(x__ssa_v0: pl.Tensor[[4, 8, 64, 128], pl.FP32], y__ssa_v0: pl.Tensor[[4, 2, 16, 64], pl.FP32], out__ssa_v0: pl.Out[pl.Tensor[[4, 8, 64, 128], pl.FP32]], out2__ssa_v0: pl.Out[pl.Tensor[[4, 2, 16, 64], pl.FP32]]) -> tuple[pl.Tensor[[4, 8, 64, 128], pl.FP32], pl.Tensor[[4, 2, 16, 64], pl.FP32]]:
        for b__idx_v0, (out__iter_v1, out2__iter_v1) in pl.pipeline(4, stage=2, init_values=(out__ssa_v0, out2__ssa_v0)):
            t__ssa_v0: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [b__idx_v0, 2, 0, 0], [1, 1, 64, 128], [1, 1, 64, 128], target_memory=pl.Mem.Vec)
            e__ssa_v0: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t__ssa_v0)
            out__ssa_v3: pl.Tensor[[4, 8, 64, 128], pl.FP32] = pl.tile.store(e__ssa_v0, [b__idx_v0, 5, 0, 0], out__iter_v1, [1, 1, 64, 128])
            u__ssa_v0: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(y__ssa_v0, [b__idx_v0, 0, 0, 0], [1, 2, 16, 64], [1, 2, 16, 64], target_memory=pl.Mem.Vec)
            v__ssa_v0: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(u__ssa_v0, u__ssa_v0)
            out2__ssa_v3: pl.Tensor[[4, 2, 16, 64], pl.FP32] = pl.tile.store(v__ssa_v0, [3 - b__idx_v0, 0, 0, 0], out2__iter_v1, [1, 2, 16, 64])
            out__rv_v2, out2__rv_v2 = pl.yield_(out__ssa_v3, out2__ssa_v3)
        return out__ssa_v0, out2__ssa_v0
