# pypto.program: GemvDecode
import pypto.language as pl

@pl.program
class GemvDecode:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def kernel(x__ssa_v0: pl.Tensor[[1, 512], pl.BF16], w__ssa_v0: pl.Tensor[[512, 64], pl.BF16], bias__ssa_v0: pl.Tensor[[1, 64], pl.FP32], y__ssa_v0: pl.Out[pl.Tensor[[1, 64], pl.FP32]]) -> pl.Tensor[[1, 64], pl.FP32]:
        bm__ssa_v0: pl.Tile[[1, 64], pl.FP32, pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.none_box)] = pl.tile.load(bias__ssa_v0, [0, 0], [1, 64], [1, 64], target_memory=pl.Mem.Mat)
        x0__ssa_v0: pl.Tile[[1, 128], pl.BF16, pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.none_box)] = pl.tile.load(x__ssa_v0, [0, 0], [1, 128], [1, 128], target_memory=pl.Mem.Mat)
        w0__ssa_v0: pl.Tile[[128, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(w__ssa_v0, [0, 0], [128, 64], [128, 64], target_memory=pl.Mem.Mat)
        _tuple_tmp__ssa_v0: pl.Tuple[pl.Tile[[1, 128], pl.BF16, pl.Mem.Left], pl.Tile[[128, 64], pl.BF16, pl.Mem.Right]] = [pl.tile.move(x0__ssa_v0, target_memory=pl.Mem.Left), pl.tile.move(w0__ssa_v0, target_memory=pl.Mem.Right)]
        left__ssa_v0: pl.Tile[[1, 128], pl.BF16, pl.Mem.Left] = _tuple_tmp__ssa_v0[0]
        right__ssa_v0: pl.Tile[[128, 64], pl.BF16, pl.Mem.Right] = _tuple_tmp__ssa_v0[1]
        t__tmp_v0: pl.Tile[[1, 64], pl.FP32, pl.Mem.Bias] = pl.tile.move(bm__ssa_v0, target_memory=pl.Mem.Bias)
        acc__ssa_v0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc, pl.TileView(valid_shape=[1, 64])] = pl.tile.gemv_bias(left__ssa_v0, right__ssa_v0, t__tmp_v0, acc_phase='unspecified')
        for k__idx_v0, (acc__iter_v1,) in pl.range(3, init_values=(acc__ssa_v0,)):
            xk__ssa_v0: pl.Tile[[1, 128], pl.BF16, pl.MemRef("pipe_xk__ssa_v0", slots=2)[k__idx_v0 % 2], pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.none_box)] = pl.tile.load(x__ssa_v0, [0, k__idx_v0 * 128 + 128], [1, 128], [1, 128], target_memory=pl.Mem.Mat)
            wk__ssa_v0: pl.Tile[[128, 64], pl.BF16, pl.MemRef("pipe_wk__ssa_v0", slots=2)[k__idx_v0 % 2], pl.Mem.Mat] = pl.tile.load(w__ssa_v0, [k__idx_v0 * 128 + 128, 0], [128, 64], [128, 64], target_memory=pl.Mem.Mat)
            t__tmp_v1: pl.Tile[[1, 128], pl.BF16, pl.Mem.Left] = pl.tile.move(xk__ssa_v0, target_memory=pl.Mem.Left)
            t__tmp_v2: pl.Tile[[128, 64], pl.BF16, pl.Mem.Right] = pl.tile.move(wk__ssa_v0, target_memory=pl.Mem.Right)
            acc__ssa_v3: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc, pl.TileView(valid_shape=[1, 64])] = pl.tile.gemv_acc(acc__iter_v1, t__tmp_v1, t__tmp_v2, acc_phase='unspecified')
            acc__rv_v2: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc, pl.TileView(valid_shape=[1, 64])] = pl.yield_(acc__ssa_v3)
        y__ssa_v1: pl.Tensor[[1, 64], pl.FP32] = pl.tile.store(acc__rv_v2, [0, 0], y__ssa_v0)
        return y__ssa_v0
