"""A runtime-length row loop whose last block has a runtime valid shape, chosen by an if;
and a pipeline whose every load has a runtime valid shape, declined `tile-valid-shape`."""

import pypto.language as pl


@pl.program
class TailMask:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[1024, 128], pl.FP32],
        rows: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[1024, 128], pl.FP32]],
    ) -> pl.Tensor[[1024, 128], pl.FP32]:
        blocks: pl.Scalar[pl.INDEX] = (rows + 31) // 32
        for b, (dst,) in pl.pipeline(0, blocks, stage=2, init_values=(out,)):
            if (b + 1) * 32 <= rows:
                full: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec] = pl.load(x, [b * 32, 0], [32, 128])
                e: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec] = pl.exp(full)
                nxt: pl.Tensor[[1024, 128], pl.FP32] = pl.store(e, [b * 32, 0], dst)
                written: pl.Tensor[[1024, 128], pl.FP32] = pl.yield_(nxt)
            else:
                part: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[rows - b * 32, 128])] = pl.load(x, [b * 32, 0], [32, 128], valid_shape=[rows - b * 32, 128])
                pe: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[rows - b * 32, 128])] = pl.exp(part)
                pn: pl.Tensor[[1024, 128], pl.FP32] = pl.store(pe, [b * 32, 0], dst)
                written: pl.Tensor[[1024, 128], pl.FP32] = pl.yield_(pn)
            res = pl.yield_(written)
        return res

    @pl.function(type=pl.FunctionType.InCore)
    def runtime_valid_shape(
        self, a: pl.Tensor[[256, 64], pl.FP32], rows: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]
    ) -> pl.Tensor[[256, 64], pl.FP32]:
        for i, (acc,) in pl.pipeline(0, 4, 1, stage=2, init_values=(out,)):
            t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[rows, 64])] = pl.load(a, [i * 16, 0], [16, 64], valid_shape=[rows, 64])
            e: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[rows, 64])] = pl.exp(t)
            nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(e, [i * 16, 0], acc)
            y = pl.yield_(nxt)
        return y
