# pypto.program: MemoryGather
import pypto.language as pl

@pl.program
class MemoryGather:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(table__ssa_v0: pl.Tensor[[64, 16], pl.FP32], rows__ssa_v0: pl.Tensor[[4, 8], pl.INT32], offsets__ssa_v0: pl.Tensor[[32, 16], pl.INT32], out__ssa_v0: pl.Out[pl.Tensor[[32, 16], pl.FP32]]) -> pl.Tensor[[32, 16], pl.FP32]:
        for i__idx_v0, (out__iter_v1,) in pl.pipeline(4, stage=2, init_values=(out__ssa_v0,)):
            r__ssa_v0: pl.Tile[[1, 8], pl.INT32, pl.Mem.Vec] = pl.tile.load(rows__ssa_v0, [i__idx_v0, 0], [1, 8], [1, 8], target_memory=pl.Mem.Vec)
            o__ssa_v0: pl.Tile[[8, 16], pl.INT32, pl.Mem.Vec] = pl.tile.load(offsets__ssa_v0, [i__idx_v0 * 8, 0], [8, 16], [8, 16], target_memory=pl.Mem.Vec)
            picked__ssa_v0: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.mgather(table__ssa_v0, r__ssa_v0, coalesce=0, gather_oob=3)
            single__ssa_v0: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.mgather(table__ssa_v0, o__ssa_v0, coalesce=1, gather_oob=2)
            both__ssa_v0: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.add(picked__ssa_v0, single__ssa_v0)
            out__ssa_v3: pl.Tensor[[32, 16], pl.FP32] = pl.tile.store(both__ssa_v0, [i__idx_v0 * 8, 0], out__iter_v1)
            out__rv_v2: pl.Tensor[[32, 16], pl.FP32] = pl.yield_(out__ssa_v3)
        return out__ssa_v0
