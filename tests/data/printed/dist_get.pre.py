# pypto.program: DistGet
import pypto.language as pl

@pl.program
class DistGet:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(src__ssa_v0: pl.Tensor[[32, 128], pl.BF16], window__ssa_v0: pl.InOut[pld.DistributedTensor[[32, 128], pl.BF16]], signal__ssa_v0: pl.InOut[pld.DistributedTensor[[2, 1], pl.INT32]], out__ssa_v0: pl.Out[pl.Tensor[[64, 128], pl.BF16]], whole__ssa_v0: pl.Out[pl.Tensor[[32, 128], pl.BF16]], me__ssa_v0: pl.Scalar[pl.INT32], peer__ssa_v0: pl.Scalar[pl.INT32]) -> pl.Tensor[[64, 128], pl.BF16]:
        t__ssa_v0: pl.Tile[[32, 128], pl.BF16, pl.Mem.Vec] = pl.tile.load(src__ssa_v0, [0, 0], [32, 128], [32, 128], target_memory=pl.Mem.Vec)
        window__ssa_v1: pld.DistributedTensor[[32, 128], pl.BF16] = pl.tile.store(t__ssa_v0, [0, 0], window__ssa_v0)
        pld.system.notify(signal__ssa_v0, peer__ssa_v0, [me__ssa_v0, 0], pl.const(1, pl.INT32), op=0)
        pld.system.wait(signal__ssa_v0, [peer__ssa_v0, 0], pl.const(1, pl.INT32), cmp=1)
        tget_stage: pl.Tile[[8, 128], pl.BF16, pl.Mem.Vec] = pl.tile.create([8, 128], dtype=pl.BF16, target_memory=pl.Mem.Vec)
        pld.tile.get(out__ssa_v0, peer__ssa_v0, window__ssa_v1, tget_stage, [pl.cast(me__ssa_v0, pl.INDEX) * 32, 0], [0, 0], [32, 128])
        tget_stage_1: pl.Tile[[8, 128], pl.BF16, pl.Mem.Vec] = pl.tile.create([8, 128], dtype=pl.BF16, target_memory=pl.Mem.Vec)
        pld.tile.get(whole__ssa_v0, peer__ssa_v0, window__ssa_v1, tget_stage_1)
        return out__ssa_v0
