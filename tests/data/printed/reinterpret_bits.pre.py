# pypto.program: ReinterpretBits
import pypto.language as pl

@pl.program
class ReinterpretBits:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(x__ssa_v0: pl.Tensor[[8, 16], pl.FP32], signs__ssa_v0: pl.Out[pl.Tensor[[8, 16], pl.INT32]], halves__ssa_v0: pl.Out[pl.Tensor[[8, 32], pl.INT16]]) -> tuple[pl.Tensor[[8, 16], pl.INT32], pl.Tensor[[8, 32], pl.INT16]]:
        t__ssa_v0: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [0, 0], [8, 16], [8, 16], target_memory=pl.Mem.Vec)
        bits__ssa_v0: pl.Tile[[8, 16], pl.INT32, pl.Mem.Vec] = pl.tile.reinterpret_view(t__ssa_v0, dtype=pl.INT32)
        masked__ssa_v0: pl.Tile[[8, 16], pl.INT32, pl.Mem.Vec] = pl.tile.neg(bits__ssa_v0)
        signs__ssa_v1: pl.Tensor[[8, 16], pl.INT32] = pl.tile.store(masked__ssa_v0, [0, 0], signs__ssa_v0)
        parts__ssa_v0: pl.Tile[[8, 32], pl.INT16, pl.Mem.Vec] = pl.tile.reinterpret_view(t__ssa_v0, dtype=pl.INT16)
        halves__ssa_v1: pl.Tensor[[8, 32], pl.INT16] = pl.tile.store(parts__ssa_v0, [0, 0], halves__ssa_v0)
        return signs__ssa_v0, halves__ssa_v0
