"""Pipeline loops the slots pass declines (`20-lower-pipeline-to-slots.md` §4-§8), one per
function, each replicated instead: a stage count beyond a ptoas region, a runtime start, a
negative start, a stepped loop with a runtime stop, a stop whose last increment would
overflow, slots beyond the Vec capacity. (A load with a runtime valid shape, the
`tile-valid-shape` decline, is in `tail_mask.py`: the reference does not parse that
annotation, and this kernel goes through the reference in the oracle tests.)"""

import pypto.language as pl


@pl.program
class DeclinedPipelines:
    @pl.function(type=pl.FunctionType.InCore)
    def stage_range(
        self, a: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]
    ) -> pl.Tensor[[256, 64], pl.FP32]:
        for i, (acc,) in pl.pipeline(0, 4, 1, stage=17, init_values=(out,)):
            t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
            e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(t)
            nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(e, [i * 64, 0], acc)
            y = pl.yield_(nxt)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def runtime_start(
        self, a: pl.Tensor[[256, 64], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]
    ) -> pl.Tensor[[256, 64], pl.FP32]:
        for i, (acc,) in pl.pipeline(n, 4, 1, stage=2, init_values=(out,)):
            t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
            e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(t)
            nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(e, [i * 64, 0], acc)
            y = pl.yield_(nxt)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def negative_start(
        self, a: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]
    ) -> pl.Tensor[[256, 64], pl.FP32]:
        for i, (acc,) in pl.pipeline(-2, 2, 1, stage=2, init_values=(out,)):
            t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [(i + 2) * 64, 0], [64, 64])
            e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(t)
            nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(e, [(i + 2) * 64, 0], acc)
            y = pl.yield_(nxt)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def stepped_runtime_stop(
        self, a: pl.Tensor[[256, 64], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]
    ) -> pl.Tensor[[256, 64], pl.FP32]:
        for i, (acc,) in pl.pipeline(0, n, 2, stage=2, init_values=(out,)):
            t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i % 4 * 64, 0], [64, 64])
            e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(t)
            nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(e, [i % 4 * 64, 0], acc)
            y = pl.yield_(nxt)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def stop_overflow(
        self, a: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]
    ) -> pl.Tensor[[256, 64], pl.FP32]:
        for i, (acc,) in pl.pipeline(9223372036854775803, 9223372036854775807, 3, stage=3, init_values=(out,)):
            t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i % 4 * 64, 0], [64, 64])
            e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(t)
            nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(e, [i % 4 * 64, 0], acc)
            y = pl.yield_(nxt)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def capacity(
        self, a: pl.Tensor[[256, 256], pl.FP32], out: pl.Out[pl.Tensor[[256, 256], pl.FP32]]
    ) -> pl.Tensor[[256, 256], pl.FP32]:
        for i, (acc,) in pl.pipeline(0, 2, 1, stage=2, init_values=(out,)):
            t: pl.Tile[[128, 256], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 128, 0], [128, 256])
            e: pl.Tile[[128, 256], pl.FP32, pl.Mem.Vec] = pl.exp(t)
            nxt: pl.Tensor[[256, 256], pl.FP32] = pl.store(e, [i * 128, 0], acc)
            y = pl.yield_(nxt)
        return y
