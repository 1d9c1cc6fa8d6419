# pypto.program: DistRemote
import pypto.language as pl

@pl.program
class DistRemote:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(inp__ssa_v0: pl.Tensor[[16, 64], pl.FP32], out__ssa_v0: pl.Out[pl.Tensor[[16, 64], pl.FP32]], data__ssa_v0: pl.Out[pld.DistributedTensor[[2, 16, 64], pl.FP32]], recv__ssa_v0: pl.InOut[pld.DistributedTensor[[32, 64], pl.FP32]], signal__ssa_v0: pl.InOut[pld.DistributedTensor[[4, 8], pl.INT32]], me__ssa_v0: pl.Scalar[pl.INT32], n__ssa_v0: pl.Scalar[pl.INT32]) -> pl.Tensor[[16, 64], pl.FP32]:
        t__ssa_v0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(inp__ssa_v0, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        for p__idx_v0 in pl.range(2):
            if p__idx_v0 != pl.cast(me__ssa_v0, pl.INDEX):
                pld.tile.remote_store(t__ssa_v0, data__ssa_v0, p__idx_v0, [me__ssa_v0, 0, 0], atomic=pl.AtomicType.Add)
                pld.tile.remote_store(t__ssa_v0, recv__ssa_v0, p__idx_v0, [pl.cast(me__ssa_v0, pl.INDEX) * 16, 0])
                pld.system.notify(signal__ssa_v0, p__idx_v0, [me__ssa_v0, 0], n__ssa_v0, op=1)
        for p__idx_v0_1 in pl.range(2):
            if p__idx_v0_1 != pl.cast(me__ssa_v0, pl.INDEX):
                pld.system.wait(signal__ssa_v0, [p__idx_v0_1, 0], n__ssa_v0, cmp=0)
        acc__ssa_v0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(inp__ssa_v0, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        for p__idx_v0_2, (acc__iter_v1,) in pl.range(2, init_values=(acc__ssa_v0,)):
            if p__idx_v0_2 != pl.cast(me__ssa_v0, pl.INDEX):
                r__ssa_v0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pld.tile.remote_load(recv__ssa_v0, p__idx_v0_2, [p__idx_v0_2 * 16, 0], [16, 64])
                acc__ssa_v3: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc__iter_v1, r__ssa_v0)
                acc__phi_v4: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(acc__ssa_v3)
            else:
                acc__phi_v4: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(acc__iter_v1)
            acc__rv_v2: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(acc__phi_v4)
        out__ssa_v1: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(acc__rv_v2, [0, 0], out__ssa_v0)
        return out__ssa_v0
