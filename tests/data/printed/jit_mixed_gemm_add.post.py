# pypto.program: _jit_jit_mixed_gemm_add
import pypto.language as pl

@pl.program
class _jit_jit_mixed_gemm_add:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def gemm_add_aic(a__ssa_v0: pl.Tensor[[16, 256], pl.BF16], w__ssa_v0: pl.Tensor[[256, 256], pl.BF16], n0__idx_v0: pl.Scalar[pl.INDEX], res__ssa_v0: pl.Tensor[[16, 256], pl.BF16], out__iter_v1: pl.Out[pl.Tensor[[16, 256], pl.FP32]], __gm_pipe_buffer: pl.Out[pl.Tensor[[1], pl.FP32]]):
        gemm_add_c2v_slot_buffer_import: pl.Scalar[pl.INT32] = pl.system.import_peer_buffer(name='gemm_add_c2v_slot_buffer', peer_func='gemm_add_aiv')
        pl.system.aic_initialize_pipe(gemm_add_c2v_slot_buffer_import, pl.const(0, pl.INT32), dir_mask=1, slot_size=4096, slot_num=2)
        acc__tile: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for kb__idx_v0, (acc__iter_v1,) in pl.range(4, init_values=(acc__tile,)):
            k0__ssa_v0: pl.Scalar[pl.INDEX] = kb__idx_v0 * 64
            ta__tile: pl.Tile[[16, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(a__ssa_v0, [0, k0__ssa_v0], [16, 64], [16, 64], target_memory=pl.Mem.Mat)
            tw__tile: pl.Tile[[64, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(w__ssa_v0, [k0__ssa_v0, n0__idx_v0], [64, 64], [64, 64], target_memory=pl.Mem.Mat)
            if kb__idx_v0 == 0:
                ta__tile_Left: pl.Tile[[16, 64], pl.BF16, pl.Mem.Left] = pl.tile.move(ta__tile, target_memory=pl.Mem.Left)
                tw__tile_Right: pl.Tile[[64, 64], pl.BF16, pl.Mem.Right] = pl.tile.move(tw__tile, target_memory=pl.Mem.Right)
                acc__tile_1: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta__tile_Left, tw__tile_Right)
                acc__phi_v5: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(acc__tile_1)
            else:
                ta__tile_Left_1: pl.Tile[[16, 64], pl.BF16, pl.Mem.Left] = pl.tile.move(ta__tile, target_memory=pl.Mem.Left)
                tw__tile_Right_1: pl.Tile[[64, 64], pl.BF16, pl.Mem.Right] = pl.tile.move(tw__tile, target_memory=pl.Mem.Right)
                acc__tile_2: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc__iter_v1, ta__tile_Left_1, tw__tile_Right_1)
                acc__phi_v5: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(acc__tile_2)
            acc__rv_v2: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(acc__phi_v5)
        pl.tile.tpush_to_aiv(acc__rv_v2, split=0)
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def gemm_add_aiv(a__ssa_v0: pl.Tensor[[16, 256], pl.BF16], w__ssa_v0: pl.Tensor[[256, 256], pl.BF16], n0__idx_v0: pl.Scalar[pl.INDEX], res__ssa_v0: pl.Tensor[[16, 256], pl.BF16], out__iter_v1: pl.Out[pl.Tensor[[16, 256], pl.FP32]], __gm_pipe_buffer: pl.Out[pl.Tensor[[1], pl.FP32]]) -> pl.Tensor[[16, 256], pl.FP32]:
        pl.func_attr({"dual_aiv_dispatch": True})
        subblock_idx: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        gemm_add_c2v_slot_buffer: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='gemm_add_c2v_slot_buffer', size=8192, base=-1)
        pl.system.aiv_initialize_pipe(gemm_add_c2v_slot_buffer, pl.const(0, pl.INT32), dir_mask=1, slot_size=4096, slot_num=2)
        if subblock_idx == 0:
            t__tile: pl.Tile[[16, 64], pl.BF16, pl.Mem.Vec] = pl.tile.load(res__ssa_v0, [0, n0__idx_v0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
            r__tile: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.cast(t__tile, target_type=pl.FP32, mode='round')
            acc__rv_v2_Vec: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=0)
            t__tile_1: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc__rv_v2_Vec, r__tile)
            pl.system.tfree_to_aic(acc__rv_v2_Vec, split=0)
            out__tile: pl.Tensor[[16, 256], pl.FP32] = pl.tile.store(t__tile_1, [0, n0__idx_v0], out__iter_v1)
            return out__iter_v1
        else:
            t__tile_2: pl.Tile[[16, 64], pl.BF16, pl.Mem.Vec, pl.TileView(valid_shape=[0, 0])] = pl.tile.create([16, 64], dtype=pl.BF16, target_memory=pl.Mem.Vec)
            r__tile_1: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[0, 0])] = pl.tile.cast(t__tile_2, target_type=pl.FP32, mode='round')
            acc__rv_v2_Vec_1: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[0, 0])] = pl.tile.tpop_from_aic(split=0)
            t__tile_3: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[0, 0])] = pl.tile.add(acc__rv_v2_Vec_1, r__tile_1)
            pl.system.tfree_to_aic(acc__rv_v2_Vec_1, split=0)
            out__tile_1: pl.Tensor[[16, 256], pl.FP32] = out__iter_v1
            return out__iter_v1
    @pl.function(type=pl.FunctionType.Group, level=pl.Level.CORE_GROUP, role=pl.Role.SubWorker)
    def gemm_add(a__ssa_v0: pl.Tensor[[16, 256], pl.BF16], w__ssa_v0: pl.Tensor[[256, 256], pl.BF16], n0__idx_v0: pl.Scalar[pl.INDEX], res__ssa_v0: pl.Tensor[[16, 256], pl.BF16], out__iter_v1: pl.Out[pl.Tensor[[16, 256], pl.FP32]], __gm_pipe_buffer: pl.Out[pl.Tensor[[1], pl.FP32]]) -> pl.Tensor[[16, 256], pl.FP32]:
        self.gemm_add_aic(a__ssa_v0, w__ssa_v0, n0__idx_v0, res__ssa_v0, out__iter_v1, __gm_pipe_buffer)
        self.gemm_add_aiv(a__ssa_v0, w__ssa_v0, n0__idx_v0, res__ssa_v0, out__iter_v1, __gm_pipe_buffer)
        return out__iter_v1
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def jit_mixed_gemm_add(self, a__ssa_v0: pl.Tensor[[16, 256], pl.BF16], res__ssa_v0: pl.Tensor[[16, 256], pl.BF16], w__ssa_v0: pl.Tensor[[256, 256], pl.BF16], out__ssa_v0: pl.Out[pl.Tensor[[16, 256], pl.FP32]]) -> pl.Tensor[[16, 256], pl.FP32]:
        # A mixed cube+vector kernel: a K-tiled matmul whose result a vector add consumes in the
        #         same scope, which the reference splits into an AIC and an AIV function joined by a
        #         cross-core pipe (`reserve_buffer`, `import_peer_buffer`, `*_initialize_pipe`, `tpush` /
        #         `tpop` / `tfree`).
        for n0__idx_v0, (out__iter_v1,) in pl.parallel(0, 256, 64, init_values=(out__ssa_v0,)):
            gm_pipe_buffer_0: pl.Tensor[[1], pl.FP32] = pl.tensor.create([1], dtype=pl.FP32, layout=pl.TensorLayout.ND, manual_dep=True)
            out__ssa_v3: pl.Tensor[[16, 256], pl.FP32] = self.gemm_add(a__ssa_v0, w__ssa_v0, n0__idx_v0, res__ssa_v0, out__iter_v1, gm_pipe_buffer_0)
            out__rv_v2: pl.Tensor[[16, 256], pl.FP32] = pl.yield_(out__ssa_v3)
        return out__rv_v2
