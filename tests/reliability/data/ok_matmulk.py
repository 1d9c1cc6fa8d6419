# ruff: noqa  (kernel text: one statement per line, never wrapped, 10-dsl.md §9.1)
import pypto.language as pl


@pl.program
class MatmulK:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        a: pl.Tensor[[64, 256], pl.BF16],
        b: pl.Tensor[[256, 64], pl.BF16],
        c: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        a0: pl.Tile[[64, 64], pl.BF16, pl.Mem.Mat] = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        b0: pl.Tile[[64, 64], pl.BF16, pl.Mem.Mat] = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        l0: pl.Tile[[64, 64], pl.BF16, pl.Mem.Left] = pl.tile.move(a0, target_memory=pl.Mem.Left)
        r0: pl.Tile[[64, 64], pl.BF16, pl.Mem.Right] = pl.tile.move(b0, target_memory=pl.Mem.Right)
        c0: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(l0, r0)
        for k, (acc,) in pl.pipeline(1, 4, stage=2, init_values=(c0,)):
            ak: pl.Tile[[64, 64], pl.BF16, pl.Mem.Mat] = pl.load(a, [0, k * 64], [64, 64], target_memory=pl.Mem.Mat)
            bk: pl.Tile[[64, 64], pl.BF16, pl.Mem.Mat] = pl.load(b, [k * 64, 0], [64, 64], target_memory=pl.Mem.Mat)
            lk: pl.Tile[[64, 64], pl.BF16, pl.Mem.Left] = pl.tile.move(ak, target_memory=pl.Mem.Left)
            rk: pl.Tile[[64, 64], pl.BF16, pl.Mem.Right] = pl.tile.move(bk, target_memory=pl.Mem.Right)
            nxt: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc, lk, rk)
            total = pl.yield_(nxt)
        res: pl.Tensor[[64, 64], pl.FP32] = pl.store(total, [0, 0], c)
        return res
