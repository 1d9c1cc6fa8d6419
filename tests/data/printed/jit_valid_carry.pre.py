# pypto.program: _jit_jit_valid_carry
import pypto.language as pl

@pl.program
class _jit_jit_valid_carry:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def valid_carry(qr__ssa_v0: pl.Tensor[[16, 384], pl.INT8], t__ssa_v0: pl.Scalar[pl.INDEX], wq__ssa_v0: pl.Tensor[[384, 128], pl.INT8], out__ssa_v0: pl.Out[pl.Tensor[[16, 128], pl.INT32]]) -> pl.Tensor[[16, 128], pl.INT32]:
        acc__tile: pl.Tile[[16, 128], pl.INT32, pl.Mem.Acc] = pl.tile.create([16, 128], dtype=pl.INT32, target_memory=pl.Mem.Acc)
        for kb__idx_v0, (acc__iter_v1,) in pl.pipeline(3, stage=2, init_values=(acc__tile,)):
            q0__ssa_v0: pl.Scalar[pl.INDEX] = kb__idx_v0 * 128
            a__tile: pl.Tile[[16, 128], pl.INT8, pl.Mem.Mat, pl.TileView(valid_shape=[t__ssa_v0, 128])] = pl.tile.load(qr__ssa_v0, [0, q0__ssa_v0], [16, 128], [t__ssa_v0, 128], target_memory=pl.Mem.Mat)
            w__tile: pl.Tile[[128, 128], pl.INT8, pl.Mem.Mat] = pl.tile.load(wq__ssa_v0, [q0__ssa_v0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Mat)
            if q0__ssa_v0 == 0:
                a__tile_Left: pl.Tile[[16, 128], pl.INT8, pl.Mem.Left, pl.TileView(valid_shape=[t__ssa_v0, 128])] = pl.tile.move(a__tile, target_memory=pl.Mem.Left)
                w__tile_Right: pl.Tile[[128, 128], pl.INT8, pl.Mem.Right] = pl.tile.move(w__tile, target_memory=pl.Mem.Right)
                acc__tile_1: pl.Tile[[16, 128], pl.INT32, pl.Mem.Acc, pl.TileView(valid_shape=[t__ssa_v0, 128], compact=pl.CompactMode.normal)] = pl.tile.matmul(a__tile_Left, w__tile_Right)
                acc__phi_v5: pl.Tile[[16, 128], pl.INT32, pl.Mem.Acc, pl.TileView(valid_shape=[t__ssa_v0, 128], compact=pl.CompactMode.normal)] = pl.yield_(acc__tile_1)
            else:
                a__tile_Left_1: pl.Tile[[16, 128], pl.INT8, pl.Mem.Left, pl.TileView(valid_shape=[t__ssa_v0, 128])] = pl.tile.move(a__tile, target_memory=pl.Mem.Left)
                w__tile_Right_1: pl.Tile[[128, 128], pl.INT8, pl.Mem.Right] = pl.tile.move(w__tile, target_memory=pl.Mem.Right)
                acc__tile_2: pl.Tile[[16, 128], pl.INT32, pl.Mem.Acc] = pl.tile.matmul_acc(acc__iter_v1, a__tile_Left_1, w__tile_Right_1)
                acc__phi_v5: pl.Tile[[16, 128], pl.INT32, pl.Mem.Acc, pl.TileView(valid_shape=[t__ssa_v0, 128], compact=pl.CompactMode.normal)] = pl.yield_(acc__tile_2)
            acc__rv_v2: pl.Tile[[16, 128], pl.INT32, pl.Mem.Acc] = pl.yield_(acc__phi_v5)
        out__tile: pl.Tensor[[16, 128], pl.INT32] = pl.tile.store(acc__rv_v2, [0, 0], out__ssa_v0)
        return out__ssa_v0
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def jit_valid_carry(self, qr__ssa_v0: pl.Tensor[[16, 384], pl.INT8], wq__ssa_v0: pl.Tensor[[384, 128], pl.INT8], t__ssa_v0: pl.Scalar[pl.INDEX], out__ssa_v0: pl.Out[pl.Tensor[[16, 128], pl.INT32]]) -> pl.Tensor[[16, 128], pl.INT32]:
        out__ssa_v1: pl.Tensor[[16, 128], pl.INT32] = self.valid_carry(qr__ssa_v0, t__ssa_v0, wq__ssa_v0, out__ssa_v0)
        return out__ssa_v1
