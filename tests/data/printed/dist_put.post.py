# pypto.program: DistPut
import pypto.language as pl

@pl.program
class DistPut:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(src__ssa_v0: pl.Tensor[[32, 128], pl.BF16], window__ssa_v0: pl.InOut[pld.DistributedTensor[[64, 128], pl.BF16]], signal__ssa_v0: pl.InOut[pld.DistributedTensor[[2, 1], pl.INT32]], out__ssa_v0: pl.Out[pl.Tensor[[64, 128], pl.BF16]], me__ssa_v0: pl.Scalar[pl.INT32]) -> pl.Tensor[[64, 128], pl.BF16]:
        for p__idx_v0 in pl.range(2):
            tput_stage: pl.Tile[[8, 128], pl.BF16, pl.Mem.Vec] = pl.tile.create([8, 128], dtype=pl.BF16, target_memory=pl.Mem.Vec)
            pld.tile.put(window__ssa_v0, p__idx_v0, src__ssa_v0, tput_stage, [pl.cast(me__ssa_v0, pl.INDEX) * 32, 0], [0, 0], [32, 128], atomic=pl.AtomicType.None_)
        for p__idx_v0_1 in pl.range(2):
            if p__idx_v0_1 != pl.cast(me__ssa_v0, pl.INDEX):
                pld.system.notify(signal__ssa_v0, p__idx_v0_1, [me__ssa_v0, 0], pl.const(1, pl.INT32), op=0)
        for p__idx_v0_2 in pl.range(2):
            if p__idx_v0_2 != pl.cast(me__ssa_v0, pl.INDEX):
                pld.system.wait(signal__ssa_v0, [p__idx_v0_2, 0], pl.const(1, pl.INT32), cmp=1)
        t__ssa_v0: pl.Tile[[64, 128], pl.BF16, pl.Mem.Vec] = pl.tile.load(window__ssa_v0, [0, 0], [64, 128], [64, 128], target_memory=pl.Mem.Vec)
        out__ssa_v1: pl.Tensor[[64, 128], pl.BF16] = pl.tile.store(t__ssa_v0, [0, 0], out__ssa_v0)
        return out__ssa_v0
