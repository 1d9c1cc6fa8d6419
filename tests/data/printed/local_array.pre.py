# pypto.program: LocalArray
import pypto.language as pl

@pl.program
class LocalArray:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(idx__ssa_v0: pl.Tensor[[1, 8], pl.INT32], src__ssa_v0: pl.Tensor[[8, 32], pl.FP32], dst__ssa_v0: pl.InOut[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        it__ssa_v0: pl.Tile[[1, 8], pl.INT32, pl.Mem.Vec] = pl.tile.load(idx__ssa_v0, [0, 0], [1, 8], [1, 8], target_memory=pl.Mem.Vec)
        rows__ssa_v0: pl.Array[8, pl.INT32] = pl.array.create(8, dtype=pl.INT32)
        for i__idx_v0, (rows__iter_v1,) in pl.range(8, init_values=(rows__ssa_v0,)):
            v__ssa_v0: pl.Scalar[pl.INT32] = pl.tile.read(it__ssa_v0, [0, i__idx_v0])
            rows__ssa_v3: pl.Array[8, pl.INT32] = pl.array.update_element(rows__iter_v1, i__idx_v0, v__ssa_v0)
            rows__rv_v2: pl.Array[8, pl.INT32] = pl.yield_(rows__ssa_v3)
        first__ssa_v0: pl.Scalar[pl.INT32] = pl.array.get_element(rows__rv_v2, 0)
        if 16 < pl.cast(first__ssa_v0, pl.INDEX):
            rows__ssa_v4: pl.Array[8, pl.INT32] = pl.array.update_element(rows__rv_v2, 0, pl.cast(first__ssa_v0, pl.INDEX) - 16)
            rows__phi_v5: pl.Array[8, pl.INT32] = pl.yield_(rows__ssa_v4)
        else:
            rows__phi_v5: pl.Array[8, pl.INT32] = pl.yield_(rows__rv_v2)
        for j__idx_v0, (dst__iter_v1,) in pl.range(8, init_values=(dst__ssa_v0,)):
            t__tmp_v0: pl.Scalar[pl.INT32] = pl.array.get_element(rows__phi_v5, j__idx_v0)
            r__ssa_v0: pl.Scalar[pl.INDEX] = pl.cast(t__tmp_v0, pl.INDEX)
            st__ssa_v0: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(src__ssa_v0, [j__idx_v0, 0], [1, 32], [1, 32], target_memory=pl.Mem.Vec)
            dst__ssa_v3: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(st__ssa_v0, [r__ssa_v0, 0], dst__iter_v1)
            dst__rv_v2: pl.Tensor[[32, 32], pl.FP32] = pl.yield_(dst__ssa_v3)
        return dst__ssa_v0
