# pypto.program: DynRmsNorm
import pypto.language as pl

T = pl.dynamic("T")

@pl.program
class DynRmsNorm:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(x__ssa_v0: pl.Tensor[[T, 256], pl.BF16], w__ssa_v0: pl.Tensor[[1, 256], pl.FP32], t_dim__ssa_v0: pl.Scalar[pl.INDEX], out__ssa_v0: pl.Out[pl.Tensor[[T, 256], pl.BF16]]) -> pl.Tensor[[T, 256], pl.BF16]:
        blk__ssa_v0: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        row0__ssa_v0: pl.Scalar[pl.INDEX] = blk__ssa_v0 * 8
        rows__ssa_v0: pl.Scalar[pl.INDEX] = pl.min(t_dim__ssa_v0 - row0__ssa_v0, 8)
        acc__ssa_v0: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.full([1, 8], dtype=pl.FP32, value=0.0)
        for c__idx_v0, (acc__iter_v1,) in pl.pipeline(2, stage=2, init_values=(acc__ssa_v0,)):
            xt__ssa_v0: pl.Tile[[8, 128], pl.BF16, pl.Mem.Vec, pl.TileView(valid_shape=[rows__ssa_v0, 128])] = pl.tile.load(x__ssa_v0, [row0__ssa_v0, c__idx_v0 * 128], [8, 128], [rows__ssa_v0, 128], target_memory=pl.Mem.Vec)
            xf__ssa_v0: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[rows__ssa_v0, 128])] = pl.tile.cast(xt__ssa_v0, target_type=pl.FP32, mode='round')
            sq__ssa_v0: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[rows__ssa_v0, 128])] = pl.tile.mul(xf__ssa_v0, xf__ssa_v0)
            tmp__ssa_v0: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec] = pl.tile.create([8, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            part__ssa_v0: pl.Tile[[8, 1], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[rows__ssa_v0, 1])] = pl.tile.row_sum(sq__ssa_v0, tmp__ssa_v0)
            t__tmp_v0: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[1, rows__ssa_v0])] = pl.tile.reshape(part__ssa_v0, [1, 8])
            acc__ssa_v3: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc__iter_v1, t__tmp_v0)
            acc__rv_v2: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.yield_(acc__ssa_v3)
        mean__ssa_v0: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.muls(acc__rv_v2, 0.00390625)
        ms__ssa_v0: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.maximums(mean__ssa_v0, 9.9999999999999995e-07)
        inv_row__ssa_v0: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.rsqrt(ms__ssa_v0)
        inv__ssa_v0: pl.Tile[[8, 1], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(inv_row__ssa_v0, [8, 1])
        for c__idx_v0_1, (out__iter_v1,) in pl.range(2, init_values=(out__ssa_v0,)):
            xt2__ssa_v0: pl.Tile[[8, 128], pl.BF16, pl.Mem.Vec, pl.TileView(valid_shape=[rows__ssa_v0, 128])] = pl.tile.load(x__ssa_v0, [row0__ssa_v0, c__idx_v0_1 * 128], [8, 128], [rows__ssa_v0, 128], target_memory=pl.Mem.Vec)
            wt__ssa_v0: pl.Tile[[1, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(w__ssa_v0, [0, c__idx_v0_1 * 128], [1, 128], [1, 128], target_memory=pl.Mem.Vec)
            xf2__ssa_v0: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[rows__ssa_v0, 128])] = pl.tile.cast(xt2__ssa_v0, target_type=pl.FP32, mode='round')
            y__ssa_v0: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[rows__ssa_v0, 128])] = pl.tile.row_expand_mul(xf2__ssa_v0, inv__ssa_v0)
            z__ssa_v0: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[rows__ssa_v0, 128])] = pl.tile.col_expand_mul(y__ssa_v0, wt__ssa_v0)
            yb__ssa_v0: pl.Tile[[8, 128], pl.BF16, pl.Mem.Vec, pl.TileView(valid_shape=[rows__ssa_v0, 128])] = pl.tile.cast(z__ssa_v0, target_type=pl.BF16, mode='rint')
            out__ssa_v3: pl.Tensor[[T, 256], pl.BF16] = pl.tile.store(yb__ssa_v0, [row0__ssa_v0, c__idx_v0_1 * 128], out__iter_v1)
            out__rv_v2: pl.Tensor[[T, 256], pl.BF16] = pl.yield_(out__ssa_v3)
        return out__ssa_v0
