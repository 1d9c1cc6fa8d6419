# pypto.program: _jit_jit_add_rows
import pypto.language as pl

@pl.program
class _jit_jit_add_rows:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def add_rows(y__iter_v1: pl.Out[pl.Tensor[[256, 128], pl.FP32]], x__ssa_v0: pl.Tensor[[256, 128], pl.FP32], r__idx_v0: pl.Scalar[pl.INDEX], a__ssa_v0: pl.Scalar[pl.FP32]) -> pl.Tensor[[256, 128], pl.FP32]:
        for c__idx_v0, (y__iter_v3,) in pl.pipeline(0, 128, 64, stage=2, init_values=(y__iter_v1,)):
            t__tile: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [r__idx_v0, c__idx_v0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
            t__tile_1: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t__tile, a__ssa_v0)
            y__tile: pl.Tensor[[256, 128], pl.FP32] = pl.tile.store(t__tile_1, [r__idx_v0, c__idx_v0], y__iter_v3)
            y__rv_v4: pl.Tensor[[256, 128], pl.FP32] = pl.yield_(y__tile)
        return y__iter_v1
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def jit_add_rows(self, x__ssa_v0: pl.Tensor[[256, 128], pl.FP32], a__ssa_v0: pl.Scalar[pl.FP32], y__ssa_v0: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
        # A jit kernel: the reference outlines the scope into an AIV kernel called by an
        #         orchestration function (`pl.parallel`, `self.f(...)` calls, `pl.Out` returns).
        for r__idx_v0, (y__iter_v1,) in pl.parallel(0, 256, 64, init_values=(y__ssa_v0,)):
            y__rv_v4: pl.Tensor[[256, 128], pl.FP32] = self.add_rows(y__iter_v1, x__ssa_v0, r__idx_v0, a__ssa_v0)
            y__rv_v2: pl.Tensor[[256, 128], pl.FP32] = pl.yield_(y__rv_v4)
        return y__rv_v2
