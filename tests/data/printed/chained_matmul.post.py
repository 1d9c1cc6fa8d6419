# pypto.program: ChainedMatmul
import pypto.language as pl

@pl.program
class ChainedMatmul:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def kernel(a__ssa_v0: pl.Tensor[[256, 256], pl.BF16], b__ssa_v0: pl.Tensor[[256, 256], pl.BF16], e__ssa_v0: pl.Tensor[[256, 64], pl.BF16], out__ssa_v0: pl.Out[pl.Tensor[[256, 64], pl.FP32]]) -> pl.Tensor[[256, 64], pl.FP32]:
        a_mat__ssa_v0: pl.Tile[[256, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(a__ssa_v0, [0, 0], [256, 256], [256, 256], target_memory=pl.Mem.Mat)
        b_mat__ssa_v0: pl.Tile[[256, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(b__ssa_v0, [0, 0], [256, 256], [256, 256], target_memory=pl.Mem.Mat)
        e_mat__ssa_v0: pl.Tile[[256, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(e__ssa_v0, [0, 0], [256, 64], [256, 64], target_memory=pl.Mem.Mat)
        c__ssa_v0_mat: pl.Tile[[256, 256], pl.BF16, pl.Mem.Mat] = pl.tile.create([256, 256], dtype=pl.BF16, target_memory=pl.Mem.Mat)
        for c__ssa_v0_o, (c__ssa_v0_oc,) in pl.range(0, 256, 128, init_values=(c__ssa_v0_mat,)):
            c__ssa_v0_b: pl.Tile[[256, 128], pl.BF16, pl.Mem.Right] = pl.tile.extract(b_mat__ssa_v0, 0, c__ssa_v0_o, [256, 128], target_memory=pl.Mem.Right)
            for c__ssa_v0_i, (c__ssa_v0_ic,) in pl.pipeline(0, 256, 64, stage=2, init_values=(c__ssa_v0_oc,), attrs={"pipeline_overlap_stores": False, "pipeline_double_buffer_c": True}):
                c__ssa_v0_a: pl.Tile[[64, 256], pl.BF16, pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major)] = pl.tile.extract(a_mat__ssa_v0, c__ssa_v0_i, 0, [64, 256], target_memory=pl.Mem.Left)
                c__ssa_v0_c: pl.Tile[[64, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(c__ssa_v0_a, c__ssa_v0_b)
                c__ssa_v0_mat_t0: pl.Tile[[256, 256], pl.BF16, pl.Mem.Mat] = pl.tile.assemble(c__ssa_v0_ic, c__ssa_v0_c, [c__ssa_v0_i, c__ssa_v0_o])
                c__ssa_v0_irv: pl.Tile[[256, 256], pl.BF16, pl.Mem.Mat] = pl.yield_(c__ssa_v0_mat_t0)
            c__ssa_v0_orv: pl.Tile[[256, 256], pl.BF16, pl.Mem.Mat] = pl.yield_(c__ssa_v0_irv)
        for d__ssa_v0_o, (d__ssa_v0_oc,) in pl.pipeline(0, 64, 64, stage=2, init_values=(out__ssa_v0,), attrs={"pipeline_overlap_stores": False}):
            d__ssa_v0_b: pl.Tile[[256, 64], pl.BF16, pl.Mem.Right] = pl.tile.extract(e_mat__ssa_v0, 0, d__ssa_v0_o, [256, 64], target_memory=pl.Mem.Right)
            for d__ssa_v0_i, (d__ssa_v0_ic,) in pl.pipeline(0, 256, 64, stage=2, init_values=(d__ssa_v0_oc,), attrs={"pipeline_overlap_stores": False, "pipeline_double_buffer_c": True}):
                d__ssa_v0_a: pl.Tile[[64, 256], pl.BF16, pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major)] = pl.tile.extract(c__ssa_v0_orv, d__ssa_v0_i, 0, [64, 256], target_memory=pl.Mem.Left)
                d__ssa_v0_c: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(d__ssa_v0_a, d__ssa_v0_b)
                out__ssa_v0_t0: pl.Tensor[[256, 64], pl.FP32] = pl.tile.store(d__ssa_v0_c, [d__ssa_v0_i, d__ssa_v0_o], d__ssa_v0_ic)
                d__ssa_v0_irv: pl.Tensor[[256, 64], pl.FP32] = pl.yield_(out__ssa_v0_t0)
            d__ssa_v0_orv: pl.Tensor[[256, 64], pl.FP32] = pl.yield_(d__ssa_v0_irv)
        return out__ssa_v0
