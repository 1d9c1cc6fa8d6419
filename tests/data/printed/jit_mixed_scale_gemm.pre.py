# pypto.program: _jit_jit_mixed_scale_gemm
import pypto.language as pl

@pl.program
class _jit_jit_mixed_scale_gemm:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def scale_gemm_aic(a__ssa_v0: pl.Tensor[[16, 64], pl.FP32], w__ssa_v0: pl.Tensor[[64, 256], pl.BF16], n0__idx_v0: pl.Scalar[pl.INDEX], out__iter_v1: pl.Out[pl.Tensor[[16, 256], pl.FP32]], __gm_pipe_buffer: pl.Out[pl.Tensor[[1], pl.FP32]]):
        scale_gemm_v2c_slot_buffer: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='scale_gemm_v2c_slot_buffer', size=4096, base=-1)
        pl.system.aic_initialize_pipe(pl.const(0, pl.INT32), scale_gemm_v2c_slot_buffer, dir_mask=2, slot_size=2048, slot_num=2)
        t__tile: pl.Tile[[64, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(w__ssa_v0, [0, n0__idx_v0], [64, 64], [64, 64], target_memory=pl.Mem.Mat)
        s__tile_Left_mat: pl.Tile[[16, 64], pl.BF16, pl.Mem.Mat] = pl.tile.tpop_from_aiv(split=0)
        s__tile_Left: pl.Tile[[16, 64], pl.BF16, pl.Mem.Left] = pl.tile.move(s__tile_Left_mat, target_memory=pl.Mem.Left, blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)
        pl.system.tfree_to_aiv(s__tile_Left_mat, split=0)
        t__tile_Right: pl.Tile[[64, 64], pl.BF16, pl.Mem.Right] = pl.tile.move(t__tile, target_memory=pl.Mem.Right)
        acc__tile: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(s__tile_Left, t__tile_Right)
        out__tile: pl.Tensor[[16, 256], pl.FP32] = pl.tile.store(acc__tile, [0, n0__idx_v0], out__iter_v1)
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def scale_gemm_aiv(a__ssa_v0: pl.Tensor[[16, 64], pl.FP32], w__ssa_v0: pl.Tensor[[64, 256], pl.BF16], n0__idx_v0: pl.Scalar[pl.INDEX], out__iter_v1: pl.Out[pl.Tensor[[16, 256], pl.FP32]], __gm_pipe_buffer: pl.Out[pl.Tensor[[1], pl.FP32]]) -> pl.Tensor[[16, 256], pl.FP32]:
        pl.func_attr({"dual_aiv_dispatch": True})
        subblock_idx: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        scale_gemm_v2c_slot_buffer_import: pl.Scalar[pl.INT32] = pl.system.import_peer_buffer(name='scale_gemm_v2c_slot_buffer', peer_func='scale_gemm_aic')
        pl.system.aiv_initialize_pipe(pl.const(0, pl.INT32), scale_gemm_v2c_slot_buffer_import, dir_mask=2, slot_size=2048, slot_num=2)
        if subblock_idx == 0:
            t__tile: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a__ssa_v0, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
            t__tile_1: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(t__tile, 2.0)
            s__tile: pl.Tile[[16, 64], pl.BF16, pl.Mem.Vec] = pl.tile.cast(t__tile_1, target_type=pl.BF16, mode='round')
            pl.tile.tpush_to_aic(s__tile, split=0)
            return out__iter_v1
        else:
            t__tile_2: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[0, 0])] = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            t__tile_3: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[0, 0])] = pl.tile.muls(t__tile_2, 2.0)
            s__tile_1: pl.Tile[[16, 64], pl.BF16, pl.Mem.Vec, pl.TileView(valid_shape=[0, 0])] = pl.tile.cast(t__tile_3, target_type=pl.BF16, mode='round')
            pl.tile.tpush_to_aic(s__tile_1, split=0)
            return out__iter_v1
    @pl.function(type=pl.FunctionType.Group, level=pl.Level.CORE_GROUP, role=pl.Role.SubWorker)
    def scale_gemm(a__ssa_v0: pl.Tensor[[16, 64], pl.FP32], w__ssa_v0: pl.Tensor[[64, 256], pl.BF16], n0__idx_v0: pl.Scalar[pl.INDEX], out__iter_v1: pl.Out[pl.Tensor[[16, 256], pl.FP32]], __gm_pipe_buffer: pl.Out[pl.Tensor[[1], pl.FP32]]) -> pl.Tensor[[16, 256], pl.FP32]:
        self.scale_gemm_aic(a__ssa_v0, w__ssa_v0, n0__idx_v0, out__iter_v1, __gm_pipe_buffer)
        self.scale_gemm_aiv(a__ssa_v0, w__ssa_v0, n0__idx_v0, out__iter_v1, __gm_pipe_buffer)
        return out__iter_v1
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def jit_mixed_scale_gemm(self, a__ssa_v0: pl.Tensor[[16, 64], pl.FP32], w__ssa_v0: pl.Tensor[[64, 256], pl.BF16], out__ssa_v0: pl.Out[pl.Tensor[[16, 256], pl.FP32]]) -> pl.Tensor[[16, 256], pl.FP32]:
        # The other direction: a vector scale and cast whose result a matmul consumes, so the
        #         AIV half pushes to the AIC half (`tpush_to_aic`, `tpop_from_aiv`, a V2C pipe whose slot
        #         buffer the cube side reserves in Mat).
        for n0__idx_v0, (out__iter_v1,) in pl.parallel(0, 256, 64, init_values=(out__ssa_v0,)):
            gm_pipe_buffer_0: pl.Tensor[[1], pl.FP32] = pl.tensor.create([1], dtype=pl.FP32, layout=pl.TensorLayout.ND, manual_dep=True)
            out__ssa_v3: pl.Tensor[[16, 256], pl.FP32] = self.scale_gemm(a__ssa_v0, w__ssa_v0, n0__idx_v0, out__iter_v1, gm_pipe_buffer_0)
            out__rv_v2: pl.Tensor[[16, 256], pl.FP32] = pl.yield_(out__ssa_v3)
        return out__rv_v2
