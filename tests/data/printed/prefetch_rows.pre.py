# pypto.program: PrefetchRows
import pypto.language as pl

@pl.program
class PrefetchRows:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(table__ssa_v0: pl.Tensor[[1, 4096], pl.FP32], w__ssa_v0: pl.Tensor[[64, 128], pl.FP32], out__ssa_v0: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
        ctx__ssa_v0: pl.PrefetchAsyncContext = pl.prefetch.make_context()
        evt__ssa_v0: pl.AsyncEvent = pl.prefetch.async_prefetch(table__ssa_v0, ctx__ssa_v0)
        session__ssa_v0: pl.AsyncSession = pl.prefetch.session(ctx__ssa_v0)
        pl.prefetch.wait(evt__ssa_v0, session__ssa_v0)
        for r__idx_v0, (out__iter_v1,) in pl.pipeline(8, stage=2, init_values=(out__ssa_v0,)):
            t__ssa_v0: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(w__ssa_v0, [r__idx_v0 * 8, 0], [8, 128], [8, 128], target_memory=pl.Mem.Vec)
            e__ssa_v0: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t__ssa_v0)
            out__ssa_v3: pl.Tensor[[64, 128], pl.FP32] = pl.tile.store(e__ssa_v0, [r__idx_v0 * 8, 0], out__iter_v1)
            out__rv_v2: pl.Tensor[[64, 128], pl.FP32] = pl.yield_(out__ssa_v3)
        return out__ssa_v0
