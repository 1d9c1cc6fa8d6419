# pypto.program: DistRank
import pypto.language as pl

@pl.program
class DistRank:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(inp__ssa_v0: pl.Tensor[[16, 64], pl.FP32], out__ssa_v0: pl.Out[pl.Tensor[[16, 64], pl.FP32]], data__ssa_v0: pl.InOut[pld.DistributedTensor[[16, 64], pl.FP32]], signal__ssa_v0: pl.InOut[pld.DistributedTensor[[8, 1], pl.INT32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        ctx__ssa_v0: pld.CommCtxType = pld.system.get_comm_ctx(signal__ssa_v0)
        me__ssa_v0: pl.Scalar[pl.INT32] = pld.system.rank(ctx__ssa_v0)
        n__ssa_v0: pl.Scalar[pl.INT32] = pld.system.nranks(ctx__ssa_v0)
        nxt__ssa_v0: pl.Scalar[pl.INDEX] = (pl.cast(me__ssa_v0, pl.INDEX) + 1) % pl.cast(n__ssa_v0, pl.INDEX)
        t__ssa_v0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(inp__ssa_v0, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        data__ssa_v1: pld.DistributedTensor[[16, 64], pl.FP32] = pl.tile.store(t__ssa_v0, [0, 0], data__ssa_v0)
        pld.system.notify(signal__ssa_v0, nxt__ssa_v0, [me__ssa_v0, 0], pl.const(1, pl.INT32), op=0)
        pld.system.wait(signal__ssa_v0, [me__ssa_v0, 0], pl.const(1, pl.INT32), cmp=1)
        u__ssa_v0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(data__ssa_v1, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        out__ssa_v1: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(u__ssa_v0, [0, 0], out__ssa_v0)
        return out__ssa_v0
