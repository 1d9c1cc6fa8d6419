# pypto.program: GatherBarrier
import pypto.language as pl

@pl.program
class GatherBarrier:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(src__ssa_v0: pl.Tensor[[16, 256], pl.FP16], offsets__ssa_v0: pl.Tensor[[8, 8], pl.UINT32], out__ssa_v0: pl.Out[pl.Tensor[[8, 128], pl.FP16]]) -> pl.Tensor[[8, 128], pl.FP16]:
        t__ssa_v0: pl.Tile[[16, 256], pl.FP16, pl.Mem.Vec] = pl.tile.load(src__ssa_v0, [0, 0], [16, 256], [16, 256], target_memory=pl.Mem.Vec)
        outer__ssa_v0: pl.Tile[[16, 240], pl.FP16, pl.Mem.Vec] = pl.tile.slice(t__ssa_v0, [16, 240], [0, 1])
        inner__ssa_v0: pl.Tile[[16, 128], pl.FP16, pl.Mem.Vec] = pl.tile.slice(outer__ssa_v0, [16, 128], [0, 15])
        o__ssa_v0: pl.Tile[[8, 8], pl.UINT32, pl.Mem.Vec] = pl.tile.load(offsets__ssa_v0, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)
        pl.system.bar_v()
        g__ssa_v0: pl.Tile[[8, 128], pl.FP16, pl.Mem.Vec] = pl.tile.gatherb(inner__ssa_v0, o__ssa_v0)
        pl.system.bar_m()
        out__ssa_v1: pl.Tensor[[8, 128], pl.FP16] = pl.tile.store(g__ssa_v0, [0, 0], out__ssa_v0)
        pl.system.bar_all()
        return out__ssa_v0
