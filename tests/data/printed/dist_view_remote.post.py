# pypto.program: DistViewRemote
import pypto.language as pl

@pl.program
class DistViewRemote:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(inp__ssa_v0: pl.Tensor[[1, 64], pl.FP32], out__ssa_v0: pl.Out[pl.Tensor[[1, 64], pl.FP32]], data__ssa_v0: pld.DistributedTensor[[64], pl.FP32], me__ssa_v0: pl.Scalar[pl.INT32]) -> pl.Tensor[[1, 64], pl.FP32]:
        rows__ssa_v0: pld.DistributedTensor[[1, 64], pl.FP32, pl.TensorView(stride=[64, 1], layout=pl.TensorLayout.ND)] = pl.tensor.view(data__ssa_v0, [1, 64])
        acc__ssa_v0: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(inp__ssa_v0, [0, 0], [1, 64], [1, 64], target_memory=pl.Mem.Vec)
        for p__idx_v0, (acc__iter_v1,) in pl.range(2, init_values=(acc__ssa_v0,)):
            if p__idx_v0 != pl.cast(me__ssa_v0, pl.INDEX):
                r__ssa_v0: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pld.tile.remote_load(rows__ssa_v0, p__idx_v0, [0, 0], [1, 64])
                acc__ssa_v3: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc__iter_v1, r__ssa_v0)
                acc__phi_v4: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(acc__ssa_v3)
            else:
                acc__phi_v4: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(acc__iter_v1)
            acc__rv_v2: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(acc__phi_v4)
        out__ssa_v1: pl.Tensor[[1, 64], pl.FP32] = pl.tile.store(acc__rv_v2, [0, 0], out__ssa_v0)
        return out__ssa_v0
