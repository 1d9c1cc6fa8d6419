"""Small tile-level kernels written for slotsat's tests, in the reference's DSL.

`tools/gen_printed.py` runs each through the reference compiler (PyPTO) to the point just
before its LowerPipelineToSlots and commits what the reference prints there
(`tests/data/printed/*.pre.py`, and `*.post.py` just after the pass), so that the tests read
the reference's printed form of kernels of this project. Importing this module needs PyPTO.
"""

from __future__ import annotations

import pypto.language as pl
import pypto.language.distributed as pld

ROWS = 256
COLS = 128
T = pl.dynamic("T")
HID = 256


@pl.program
class RowScalePipe:
    """Two loads per iteration, multiplied and stored: both loads take slots."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[ROWS, COLS], pl.FP32],
        g: pl.Tensor[[ROWS, COLS], pl.FP32],
        out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    ) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        for r in pl.pipeline(0, ROWS // 32, 1, stage=2):
            xt: pl.Tile[[32, COLS], pl.FP32] = pl.load(x, [r * 32, 0], [32, COLS])
            gt: pl.Tile[[32, COLS], pl.FP32] = pl.load(g, [r * 32, 0], [32, COLS])
            prod: pl.Tile[[32, COLS], pl.FP32] = pl.mul(xt, gt)
            out = pl.store(prod, [r * 32, 0], out)
        return out


@pl.program
class RowSumCast:
    """A BF16 load cast to FP32, a row reduction with its scratch tile."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[64, 512], pl.BF16],
        out: pl.Out[pl.Tensor[[64, 4], pl.FP32]],
    ) -> pl.Tensor[[64, 4], pl.FP32]:
        for k in pl.pipeline(4, stage=2):
            t = pl.load(x, [0, k * 128], [64, 128])
            f = pl.tile.cast(t, pl.FP32)
            sq = pl.mul(f, f)
            tmp = pl.tile.create([64, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            part = pl.tile.row_sum(sq, tmp)
            out = pl.store(part, [0, k], out)
        return out


@pl.program
class ValidRows:
    """A runtime valid shape on the load (a tail block): the loop is declined (T2)."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[ROWS, COLS], pl.FP32],
        n: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    ) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        for r in pl.pipeline(0, ROWS // 32, 1, stage=2):
            rows = pl.min(n - r * 32, 32)
            t: pl.Tile[[32, COLS], pl.FP32] = pl.load(x, [r * 32, 0], [32, COLS], valid_shape=[rows, COLS])
            e: pl.Tile[[32, COLS], pl.FP32] = pl.exp(t)
            out = pl.store(e, [r * 32, 0], out)
        return out


@pl.program
class Branches:
    """An `if` inside a pipeline loop, scalar arithmetic and a strided pipeline."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[ROWS, COLS], pl.FP32],
        flag: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    ) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        for r in pl.pipeline(32, ROWS, 64, stage=2):
            t: pl.Tile[[64, COLS], pl.FP32] = pl.load(x, [r - 32, 0], [64, COLS])
            if flag > 0:
                y: pl.Tile[[64, COLS], pl.FP32] = pl.tile.adds(t, 1.0)
            else:
                y: pl.Tile[[64, COLS], pl.FP32] = pl.tile.muls(t, 2.0)
            out = pl.store(y, [r - 32, 0], out)
        return out


@pl.program
class MatmulK:
    """A cube kernel: Mat loads moved to Left / Right, an accumulator carried over K."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        a: pl.Tensor[[64, 256], pl.BF16],
        b: pl.Tensor[[256, 64], pl.BF16],
        c: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        a0: pl.Tile[[64, 64], pl.BF16, pl.Mem.Mat] = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        b0: pl.Tile[[64, 64], pl.BF16, pl.Mem.Mat] = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        l0: pl.Tile[[64, 64], pl.BF16, pl.Mem.Left] = pl.move(a0, target_memory=pl.Mem.Left)
        r0: pl.Tile[[64, 64], pl.BF16, pl.Mem.Right] = pl.move(b0, target_memory=pl.Mem.Right)
        acc: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.matmul(l0, r0)
        for k in pl.pipeline(1, 4, stage=2):
            ak: pl.Tile[[64, 64], pl.BF16, pl.Mem.Mat] = pl.load(a, [0, k * 64], [64, 64],
                                                               target_memory=pl.Mem.Mat)
            bk: pl.Tile[[64, 64], pl.BF16, pl.Mem.Mat] = pl.load(b, [k * 64, 0], [64, 64],
                                                               target_memory=pl.Mem.Mat)
            lk: pl.Tile[[64, 64], pl.BF16, pl.Mem.Left] = pl.move(ak, target_memory=pl.Mem.Left)
            rk: pl.Tile[[64, 64], pl.BF16, pl.Mem.Right] = pl.move(bk, target_memory=pl.Mem.Right)
            acc = pl.matmul_acc(acc, lk, rk)
        c = pl.store(acc, [0, 0], c)
        return c


@pl.program
class ReshapeView:
    """A load consumed by a view (reshape): T4 declines the loop."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[ROWS, COLS], pl.FP32],
        out: pl.Out[pl.Tensor[[ROWS // 2, COLS * 2], pl.FP32]],
    ) -> pl.Tensor[[ROWS // 2, COLS * 2], pl.FP32]:
        for r in pl.pipeline(ROWS // 64, stage=2):
            t: pl.Tile[[64, COLS], pl.FP32] = pl.load(x, [r * 64, 0], [64, COLS])
            v: pl.Tile[[32, COLS * 2], pl.FP32] = pl.reshape(t, [32, COLS * 2])
            e: pl.Tile[[32, COLS * 2], pl.FP32] = pl.exp(v)
            out = pl.store(e, [r * 32, 0], out)
        return out


@pl.program
class WriteRead:
    """Scalar reads and writes of tiles (`tile.read`, `tile.write`), nested calls."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[64, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        for i in pl.pipeline(4, stage=2):
            t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [i * 16, 0], [16, 64])
            s: pl.Scalar[pl.FP32] = pl.tile.read(pl.tile.exp(t), [0, 0])
            u: pl.Tile[[16, 64], pl.FP32] = pl.tile.adds(t, s)
            w: pl.Tile[[16, 64], pl.FP32] = pl.tile.write(u, [0, 1], s)
            out = pl.store(w, [i * 16, 0], out)
        return out


@pl.program
class DynRmsNorm:
    """A dynamic token count: each block normalises 8 rows, the last block a ragged tail."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[T, HID], pl.BF16],
        w: pl.Tensor[[1, HID], pl.FP32],
        t_dim: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[T, HID], pl.BF16]],
    ) -> pl.Tensor[[T, HID], pl.BF16]:
        blk = pl.tile.get_block_idx()
        row0 = blk * 8
        rows = pl.min(t_dim - row0, 8)
        acc = pl.tile.full([1, 8], dtype=pl.FP32, value=0.0)
        for c in pl.pipeline(HID // 128, stage=2):
            xt = pl.load(x, [row0, c * 128], [8, 128], valid_shape=[rows, 128])
            xf = pl.tile.cast(xt, target_type=pl.FP32, mode="round")
            sq = pl.tile.mul(xf, xf)
            tmp = pl.tile.create([8, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            part = pl.tile.row_sum(sq, tmp)
            acc = pl.tile.add(acc, pl.tile.reshape(part, [1, 8]))
        mean = pl.tile.muls(acc, 1.0 / HID)
        ms = pl.tile.maximums(mean, 1e-6)
        inv_row = pl.tile.rsqrt(ms)
        inv = pl.tile.reshape(inv_row, [8, 1])
        for c in pl.range(HID // 128):
            xt2 = pl.load(x, [row0, c * 128], [8, 128], valid_shape=[rows, 128])
            wt = pl.tile.load(w, [0, c * 128], [1, 128], [1, 128], target_memory=pl.Mem.Vec)
            xf2 = pl.tile.cast(xt2, target_type=pl.FP32, mode="round")
            y = pl.tile.row_expand_mul(xf2, inv)
            z = pl.tile.col_expand_mul(y, wt)
            yb = pl.tile.cast(z, target_type=pl.BF16, mode="rint")
            out = pl.tile.store(yb, [row0, c * 128], out)
        return out


@pl.program
class CubeExtract:
    """A cube kernel taking Left / Right operands out of Mat tiles with tile.extract."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        a: pl.Tensor[[64, 256], pl.BF16],
        b: pl.Tensor[[256, 64], pl.BF16],
        c: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        am = pl.tile.load(a, [0, 0], [64, 256], [64, 256], target_memory=pl.Mem.Mat)
        bm = pl.tile.load(b, [0, 0], [256, 64], [256, 64], target_memory=pl.Mem.Mat)
        l0 = pl.tile.extract(am, 0, 0, [64, 64], target_memory=pl.Mem.Left)
        r0 = pl.tile.extract(bm, 0, 0, [64, 64], target_memory=pl.Mem.Right)
        acc = pl.tile.matmul(l0, r0)
        for k in pl.range(1, 4):
            lk = pl.tile.extract(am, 0, k * 64, [64, 64], target_memory=pl.Mem.Left)
            rk = pl.tile.extract(bm, k * 64, 0, [64, 64], target_memory=pl.Mem.Right)
            acc = pl.tile.matmul_acc(acc, lk, rk)
        c = pl.tile.store(acc, [0, 0], c)
        return c


@pl.program
class ScalarsAndCasts:
    """tile.ci, comparisons, scalar casts through floats, tensor.read and set_validshape."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[16, 64], pl.FP32],
        idx: pl.Tensor[[16], pl.INT32],
        n: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        first = pl.tensor.read(idx, [0])
        t = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        s = pl.tile.read(t, [0, 0])
        k = pl.cast(s, pl.INT32)
        scale = pl.cast(k + first, pl.FP32)
        u = pl.tile.muls(t, scale)
        lanes = pl.tile.ci(pl.const(0, pl.INT32), [1, 64], dtype=pl.INT32)
        lf = pl.tile.cast(lanes, target_type=pl.FP32, mode="none")
        v = pl.tile.col_expand_add(u, lf)
        cols = pl.max(pl.min(n, 64), 1)
        w = pl.tile.set_validshape(v, 16, cols)
        out = pl.tile.store(w, [0, 0], out)
        return out



@pl.program
class FloatScalars:
    """Float scalars read from a tile: pl.max, pl.min and `/` of them (a quantization scale,
    127 over the clamped absolute maximum), which a tile scaling takes."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[16, 64], pl.FP32],
        floor: pl.Scalar[pl.FP32],
        out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        a = pl.tile.read(t, [0, 0])
        b = pl.tile.read(t, [1, 0])
        amax = pl.min(pl.max(a, floor), b)
        scale = 127.0 / amax
        u = pl.tile.muls(t, scale)
        out = pl.tile.store(u, [0, 0], out)
        return out


@pl.program
class SliceColExpand:
    """A rotary step's row halves: one-row slices of a tile at constant offsets taken by
    tile.col_expand_mul, which ptoas runs only on a materialized tile (the reference copies
    the window out with pto.textract at the first such use)."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[16, 128], pl.FP32],
        cos: pl.Tensor[[1, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[2, 64], pl.FP32]],
    ) -> pl.Tensor[[2, 64], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Vec)
        c = pl.tile.load(cos, [0, 0], [1, 64], [1, 64], target_memory=pl.Mem.Vec)
        lo = pl.tile.slice(t, [1, 64], [0, 0])
        hi = pl.tile.slice(t, [1, 64], [0, 64])
        a = pl.tile.col_expand_mul(lo, c)
        b = pl.tile.col_expand_mul(hi, c)
        d = pl.tile.col_expand_mul(lo, c)
        e = pl.tile.add(a, d)
        out = pl.tile.store(e, [0, 0], out)
        out = pl.tile.store(b, [1, 0], out)
        return out


@pl.program
class ChainedMatmul:
    """A matmul too large for one L0 pass whose BF16 result another matmul reads on-chip: the
    reference's AutoTileMatmulL0 tiles the first into Acc blocks and assembles each into a Mat
    scratch tile (`tile.assemble` from Acc into Mat, the cube's fixpipe write-back)."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        a: pl.Tensor[[256, 256], pl.BF16],
        b: pl.Tensor[[256, 256], pl.BF16],
        e: pl.Tensor[[256, 64], pl.BF16],
        out: pl.Out[pl.Tensor[[256, 64], pl.FP32]],
    ) -> pl.Tensor[[256, 64], pl.FP32]:
        a_mat = pl.tile.load(a, [0, 0], [256, 256], target_memory=pl.Mem.Mat)
        b_mat = pl.tile.load(b, [0, 0], [256, 256], target_memory=pl.Mem.Mat)
        e_mat = pl.tile.load(e, [0, 0], [256, 64], target_memory=pl.Mem.Mat)
        c = pl.tile.matmul(a_mat, b_mat)
        cb = pl.cast(c, pl.BF16, mode="rint")
        d = pl.tile.matmul(cb, e_mat)
        out = pl.store(d, [0, 0], out)
        return out


@pl.program
class AccIntoMat:
    """Two FP32 matmul results assembled from Acc into halves of an FP32 Mat tile (a window
    of the Mat result, typed as it, and pto.tmov), then fed to a matmul."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        a: pl.Tensor[[16, 32], pl.FP32],
        b: pl.Tensor[[32, 32], pl.FP32],
        out: pl.Out[pl.Tensor[[32, 32], pl.FP32]],
    ) -> pl.Tensor[[32, 32], pl.FP32]:
        am = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        bm = pl.tile.load(b, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        acc = pl.tile.matmul(am, bm)
        scratch = pl.tile.create([32, 32], dtype=pl.FP32, target_memory=pl.Mem.Mat)
        s1 = pl.tile.assemble(scratch, acc, [0, 0])
        s2 = pl.tile.assemble(s1, acc, [16, 0])
        d = pl.tile.matmul(s2, bm)
        out = pl.store(d, [0, 0], out)
        return out


@pl.program
class ColSumSort:
    """Column sums in both of ptoas's forms (sequential, and binary-tree with a scratch tile)
    and a 32-element block sort with its index tile."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[16, 64], pl.FP32],
        ids: pl.Tensor[[1, 32], pl.UINT32],
        out: pl.Out[pl.Tensor[[4, 64], pl.FP32]],
    ) -> pl.Tensor[[4, 64], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        s1 = pl.tile.col_sum(t)
        tmp = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        s2 = pl.tile.col_sum(t, tmp)
        both = pl.tile.add(s1, s2)
        row = pl.tile.load(x, [0, 0], [1, 32], [1, 32], target_memory=pl.Mem.Vec)
        idx = pl.tile.load(ids, [0, 0], [1, 32], [1, 32], target_memory=pl.Mem.Vec)
        sorted_row = pl.tile.sort32(row, idx)
        out = pl.tile.store(both, [0, 0], out)
        out = pl.tile.store(sorted_row, [1, 0], out)
        return out


@pl.program
class MergeSort:
    """32-element block sorts merged by the 2-way and the 4-way merge sort
    (tile.mrgsort_format2 with its scratch tile, `exhausted` off and on)."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[4, 32], pl.FP32],
        ids: pl.Tensor[[4, 32], pl.UINT32],
        out: pl.Out[pl.Tensor[[2, 256], pl.FP32]],
    ) -> pl.Tensor[[2, 256], pl.FP32]:
        r0 = pl.tile.sort32(pl.tile.load(x, [0, 0], [1, 32], [1, 32], target_memory=pl.Mem.Vec),
                            pl.tile.load(ids, [0, 0], [1, 32], [1, 32], target_memory=pl.Mem.Vec))
        r1 = pl.tile.sort32(pl.tile.load(x, [1, 0], [1, 32], [1, 32], target_memory=pl.Mem.Vec),
                            pl.tile.load(ids, [1, 0], [1, 32], [1, 32], target_memory=pl.Mem.Vec))
        r2 = pl.tile.sort32(pl.tile.load(x, [2, 0], [1, 32], [1, 32], target_memory=pl.Mem.Vec),
                            pl.tile.load(ids, [2, 0], [1, 32], [1, 32], target_memory=pl.Mem.Vec))
        r3 = pl.tile.sort32(pl.tile.load(x, [3, 0], [1, 32], [1, 32], target_memory=pl.Mem.Vec),
                            pl.tile.load(ids, [3, 0], [1, 32], [1, 32], target_memory=pl.Mem.Vec))
        tmp2 = pl.tile.create([1, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        two = pl.mrgsort(r0, r1, tmp=tmp2, exhausted=False)
        tmp4 = pl.tile.create([1, 256], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        four = pl.mrgsort(r0, r1, r2, r3, tmp=tmp4, exhausted=True)
        out = pl.tile.store(two, [0, 0], out)
        out = pl.tile.store(four, [1, 0], out)
        return out


@pl.program
class GatherMask:
    """A 32-element block sort's (value, index) pairs split by tile.gather_mask: the values
    (P0101), the indices reinterpreted as INT32 (P1010, output_dtype) and every fourth
    element (P0001)."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[1, 32], pl.FP32],
        ids: pl.Tensor[[1, 32], pl.UINT32],
        vals: pl.Out[pl.Tensor[[1, 32], pl.FP32]],
        idxs: pl.Out[pl.Tensor[[1, 32], pl.INT32]],
        quarter: pl.Out[pl.Tensor[[1, 16], pl.FP32]],
    ) -> tuple[pl.Tensor[[1, 32], pl.FP32], pl.Tensor[[1, 32], pl.INT32], pl.Tensor[[1, 16], pl.FP32]]:
        pairs = pl.tile.sort32(pl.tile.load(x, [0, 0], [1, 32], [1, 32], target_memory=pl.Mem.Vec),
                               pl.tile.load(ids, [0, 0], [1, 32], [1, 32], target_memory=pl.Mem.Vec))
        v = pl.tile.gather_mask(pairs, mask_pattern=1)
        i = pl.tile.gather_mask(pairs, mask_pattern=2, output_dtype=pl.INT32)
        q = pl.tile.gather_mask(pairs, mask_pattern=3)
        vals = pl.tile.store(v, [0, 0], vals)
        idxs = pl.tile.store(i, [0, 0], idxs)
        quarter = pl.tile.store(q, [0, 0], quarter)
        return vals, idxs, quarter


@pl.program
class TensorView2d:
    """A 3-D tensor parameter viewed as 2-D (`tensor.view`) and loaded through the view."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[2, 16, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[32, 64], pl.FP32]],
    ) -> pl.Tensor[[32, 64], pl.FP32]:
        flat = pl.tensor.view(x, [32, 64])
        t = pl.tile.load(flat, [16, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        out = pl.tile.store(t, [0, 0], out)
        return out

@pl.program
class AssembleTranspose:
    """tile.assemble of row blocks, a Mat transpose_view feeding a matmul, tile.write."""

    @pl.function(type=pl.FunctionType.InCore)
    def vec(
        self,
        x: pl.Tensor[[32, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[32, 64], pl.FP32]],
    ) -> pl.Tensor[[32, 64], pl.FP32]:
        buf = pl.tile.create([32, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        for r in pl.range(4):
            part = pl.tile.load(x, [r * 8, 0], [8, 64], [8, 64], target_memory=pl.Mem.Vec)
            e = pl.tile.exp(part)
            buf = pl.tile.assemble(buf, e, [r * 8, 0])
        w = pl.tile.write(buf, [0, 0], 1.0)
        out = pl.tile.store(w, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def cube(
        self,
        a: pl.Tensor[[16, 64], pl.BF16],
        b: pl.Tensor[[32, 64], pl.BF16],
        c: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
    ) -> pl.Tensor[[16, 32], pl.FP32]:
        am = pl.tile.load(a, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Mat)
        bm = pl.tile.load(b, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Mat)
        bt = pl.tile.transpose_view(bm)
        lhs = pl.tile.move(am, target_memory=pl.Mem.Left)
        rhs = pl.tile.move(bt, target_memory=pl.Mem.Right)
        acc = pl.tile.matmul(lhs, rhs)
        c = pl.tile.store(acc, [0, 0], c)
        return c


@pl.jit
def jit_add_rows(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    a: pl.Scalar[pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    """A jit kernel: the reference outlines the scope into an AIV kernel called by an
    orchestration function (`pl.parallel`, `self.f(...)` calls, `pl.Out` returns)."""
    for r in pl.parallel(0, ROWS, 64):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="add_rows"):
            for c in pl.pipeline(0, COLS, 64, stage=2):
                t = x[r : r + 64, c : c + 64]
                y[r : r + 64, c : c + 64] = pl.add(t, a)
    return y



@pl.jit
def jit_mixed_gemm_add(
    a: pl.Tensor[[16, 256], pl.BF16],
    res: pl.Tensor[[16, 256], pl.BF16],
    w: pl.Tensor[[256, 256], pl.BF16],
    out: pl.Out[pl.Tensor[[16, 256], pl.FP32]],
):
    """A mixed cube+vector kernel: a K-tiled matmul whose result a vector add consumes in the
    same scope, which the reference splits into an AIC and an AIV function joined by a
    cross-core pipe (`reserve_buffer`, `import_peer_buffer`, `*_initialize_pipe`, `tpush` /
    `tpop` / `tfree`)."""
    for n0 in pl.parallel(0, 256, 64):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="gemm_add"):
            acc = pl.create_tensor([16, 64], dtype=pl.FP32)
            for kb in pl.range(4):
                k0 = kb * 64
                ta = a[:, k0 : k0 + 64]
                tw = w[k0 : k0 + 64, n0 : n0 + 64]
                if kb == 0:
                    acc = pl.matmul(ta, tw, out_dtype=pl.FP32)
                else:
                    acc = pl.matmul_acc(acc, ta, tw)
            r = pl.cast(res[:, n0 : n0 + 64], target_type=pl.FP32)
            out[:, n0 : n0 + 64] = pl.add(acc, r)
    return out


@pl.jit
def jit_mixed_scale_gemm(
    a: pl.Tensor[[16, 64], pl.FP32],
    w: pl.Tensor[[64, 256], pl.BF16],
    out: pl.Out[pl.Tensor[[16, 256], pl.FP32]],
):
    """The other direction: a vector scale and cast whose result a matmul consumes, so the
    AIV half pushes to the AIC half (`tpush_to_aic`, `tpop_from_aiv`, a V2C pipe whose slot
    buffer the cube side reserves in Mat)."""
    for n0 in pl.parallel(0, 256, 64):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="scale_gemm"):
            s = pl.cast(pl.mul(a[:, 0:64], 2.0), target_type=pl.BF16)
            acc = pl.matmul(s, w[:, n0 : n0 + 64], out_dtype=pl.FP32)
            out[:, n0 : n0 + 64] = acc
    return out


@pl.jit
def jit_valid_carry(
    qr: pl.Tensor[[16, 384], pl.INT8],
    wq: pl.Tensor[[384, 128], pl.INT8],
    t: pl.Scalar[pl.INDEX],
    out: pl.Out[pl.Tensor[[16, 128], pl.INT32]],
):
    """A carried accumulator whose first matmul has a runtime valid shape: the reference
    prints the loop result with the carried (whole) type and the yielded value with the
    valid shape; its store writes the whole tile. Three iterations at stage 2 leave a tail
    clone after replication."""
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="valid_carry"):
        acc = pl.create_tensor([16, 128], dtype=pl.INT32)
        for kb in pl.pipeline(0, 3, stage=2):
            q0 = kb * 128
            a = pl.slice(qr, [16, 128], [0, q0], valid_shape=[t, 128])
            w = wq[q0 : q0 + 128, 0:128]
            if q0 == 0:
                acc = pl.matmul(a, w, out_dtype=pl.INT32)
            else:
                acc = pl.matmul_acc(acc, a, w)
        out[0:16, 0:128] = acc
    return out


@pl.program
class Window4d:
    """Loads and stores of rank-4 tensors: the reference's FlattenTileNdTo2D keeps each rank-4
    window and makes the tile 2-D (a [1, 1, 64, 128] window is a [64, 128] tile, a
    [1, 2, 16, 64] window a [32, 64] tile), the store gets the window as its 4th argument."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[4, 8, 64, 128], pl.FP32],
        y: pl.Tensor[[4, 2, 16, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[4, 8, 64, 128], pl.FP32]],
        out2: pl.Out[pl.Tensor[[4, 2, 16, 64], pl.FP32]],
    ) -> tuple[pl.Tensor[[4, 8, 64, 128], pl.FP32], pl.Tensor[[4, 2, 16, 64], pl.FP32]]:
        for b in pl.pipeline(4, stage=2):
            t: pl.Tile[[1, 1, 64, 128], pl.FP32] = pl.load(x, [b, 2, 0, 0], [1, 1, 64, 128])
            e = pl.exp(t)
            out = pl.store(e, [b, 5, 0, 0], out)
            u: pl.Tile[[1, 2, 16, 64], pl.FP32] = pl.load(y, [b, 0, 0, 0], [1, 2, 16, 64])
            v = pl.add(u, u)
            out2 = pl.store(v, [3 - b, 0, 0, 0], out2)
        return out, out2


@pl.program
class ParallelRows:
    """A pl.parallel loop inside a kernel around a pipeline: the reference's code generator
    emits it as a plain scf.for (only pipeline and unroll loops never reach it)."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[256, 128], pl.FP32],
        out: pl.Out[pl.Tensor[[256, 128], pl.FP32]],
    ) -> pl.Tensor[[256, 128], pl.FP32]:
        for r in pl.parallel(0, 256, 64):
            for c in pl.pipeline(0, 128, 32, stage=2):
                t: pl.Tile[[64, 32], pl.FP32] = pl.load(x, [r, c], [64, 32])
                e = pl.exp(t)
                out = pl.store(e, [r, c], out)
        return out


@pl.program
class DistExchange:
    """Publish a tile into this rank's window, signal a peer, wait for its signal, read back:
    the context parameters, the region invalidation and fence after the window store, the
    whole-GM invalidation after the wait (`lowering/dist_comm.py`)."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(  # noqa: PLR0913, PLR0917 - the windows, the tensors and the ranks
        self,
        inp: pl.Tensor[[16, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
        data: pld.DistributedTensor[[16, 64], pl.FP32],
        signal: pld.DistributedTensor[[2, 1], pl.INT32],
        me: pl.Scalar[pl.INT32],
        peer: pl.Scalar[pl.INT32],
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(inp, [0, 0], [16, 64])
        data = pl.store(t, [0, 0], data)
        pld.system.notify(signal, peer=peer, offsets=[me, 0], value=1, op=pld.NotifyOp.AtomicAdd)
        pld.system.wait(signal=signal, offsets=[peer, 0], expected=1, cmp=pld.WaitCmp.Ge)
        u = pl.load(data, [0, 0], [16, 64])
        v = pl.add(u, t)
        out = pl.store(v, [0, 0], out)
        return out


@pl.program
class DistRank:
    """A ring exchange whose ranks come from the communication context: this rank's id and
    the rank count read with pld.system.rank / nranks, the next rank signalled, this rank's
    own cell waited on."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        inp: pl.Tensor[[16, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
        data: pld.DistributedTensor[[16, 64], pl.FP32],
        signal: pld.DistributedTensor[[8, 1], pl.INT32],
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        ctx = pld.system.get_comm_ctx(signal)
        me = pld.system.rank(ctx)
        n = pld.system.nranks(ctx)
        nxt = (me + 1) % n
        t = pl.load(inp, [0, 0], [16, 64])
        data = pl.store(t, [0, 0], data)
        pld.system.notify(signal, peer=nxt, offsets=[me, 0], value=1, op=pld.NotifyOp.AtomicAdd)
        pld.system.wait(signal=signal, offsets=[me, 0], expected=1, cmp=pld.WaitCmp.Ge)
        u = pl.load(data, [0, 0], [16, 64])
        out = pl.store(u, [0, 0], out)
        return out


@pl.program
class DistBarrier:
    """pld.tensor.barrier between a store into this rank's window and a read of the next
    rank's: the reference lowers the barrier into notify / wait loops whose calls it prints
    bound to pl.UnknownType names (ops without a result)."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[1, 64], pl.FP32],
        y: pl.Out[pl.Tensor[[1, 64], pl.FP32]],
        data: pld.DistributedTensor[[1, 64], pl.FP32],
        signal: pld.DistributedTensor[[4, 1], pl.INT32],
    ) -> pl.Tensor[[1, 64], pl.FP32]:
        ctx = pld.system.get_comm_ctx(data)
        me = pld.system.rank(ctx)
        n = pld.system.nranks(ctx)
        local = pl.load(x, [0, 0], [1, 64])
        data = pl.store(local, [0, 0], data)
        signal = pld.tensor.barrier(signal)
        peer = (me + 1) % n
        recv = pld.tile.remote_load(data, peer=peer, offsets=[0, 0], shape=[1, 64])
        y = pl.store(recv, [0, 0], y)
        return y


@pl.program
class DistGet:
    """Publish rows into this rank's window, wait for the peer's signal, then copy the peer's
    rows into a local tensor through a staging tile (a region get, lowered by the reference to
    `tile.create` + `pld.tile.get`) and the whole peer window through a second."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(  # noqa: PLR0913, PLR0917 - the tensors, the windows and the ranks
        self,
        src: pl.Tensor[[32, 128], pl.BF16],
        window: pld.DistributedTensor[[32, 128], pl.BF16],
        signal: pld.DistributedTensor[[2, 1], pl.INT32],
        out: pl.Out[pl.Tensor[[64, 128], pl.BF16]],
        whole: pl.Out[pl.Tensor[[32, 128], pl.BF16]],
        me: pl.Scalar[pl.INT32],
        peer: pl.Scalar[pl.INT32],
    ) -> pl.Tensor[[64, 128], pl.BF16]:
        t = pl.load(src, [0, 0], [32, 128])
        window = pl.store(t, [0, 0], window)
        pld.system.notify(signal, peer=peer, offsets=[me, 0], value=1, op=pld.NotifyOp.AtomicAdd)
        pld.system.wait(signal=signal, offsets=[peer, 0], expected=1, cmp=pld.WaitCmp.Ge)
        pld.tensor.get(dst=out, peer=peer, src=window, dst_offsets=[me * 32, 0], src_offsets=[0, 0],
                       shape=[32, 128], chunk_rows=8, chunk_cols=128)
        pld.tensor.get(dst=whole, peer=peer, src=window, chunk_rows=8, chunk_cols=128)
        return out


@pl.program
class DistRemote:
    """Push a tile into every peer's windows (an atomic add into a rank-3 window, a plain store
    into a rank-2 one), signal, wait, then pull the peers' slices with remote loads."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(  # noqa: PLR0913, PLR0917 - the windows, the tensors and the ranks
        self,
        inp: pl.Tensor[[16, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
        data: pld.DistributedTensor[[2, 16, 64], pl.FP32],
        recv: pld.DistributedTensor[[32, 64], pl.FP32],
        signal: pld.DistributedTensor[[4, 8], pl.INT32],
        me: pl.Scalar[pl.INT32],
        n: pl.Scalar[pl.INT32],
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(inp, [0, 0], [16, 64])
        for p in pl.range(2):
            if p != me:
                pld.tile.remote_store(t, data, peer=p, offsets=[me, 0, 0], atomic=pld.AtomicType.Add)
                pld.tile.remote_store(t, recv, peer=p, offsets=[me * 16, 0])
                pld.system.notify(signal, peer=p, offsets=[me, 0], value=n, op=pld.NotifyOp.Set)
        for p in pl.range(2):
            if p != me:
                pld.system.wait(signal=signal, offsets=[p, 0], expected=n, cmp=pld.WaitCmp.Eq)
        acc = pl.load(inp, [0, 0], [16, 64])
        for p in pl.range(2):
            if p != me:
                r = pld.tile.remote_load(recv, peer=p, offsets=[p * 16, 0], shape=[16, 64])
                acc = pl.add(acc, r)
        out = pl.store(acc, [0, 0], out)
        return out


@pl.program
class DistPut:
    """Copy rows of a local tensor into every peer's window through a staging tile (a region
    put, lowered by the reference to `tile.create` + `pld.tile.put`), then signal and wait."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        src: pl.Tensor[[32, 128], pl.BF16],
        window: pld.DistributedTensor[[64, 128], pl.BF16],
        signal: pld.DistributedTensor[[2, 1], pl.INT32],
        out: pl.Out[pl.Tensor[[64, 128], pl.BF16]],
        me: pl.Scalar[pl.INT32],
    ) -> pl.Tensor[[64, 128], pl.BF16]:
        for p in pl.range(2):
            pld.tensor.put(dst=window, peer=p, src=src, dst_offsets=[me * 32, 0], src_offsets=[0, 0],
                           shape=[32, 128], chunk_rows=8, chunk_cols=128)
        for p in pl.range(2):
            if p != me:
                pld.system.notify(signal, peer=p, offsets=[me, 0], value=1, op=pld.NotifyOp.AtomicAdd)
        for p in pl.range(2):
            if p != me:
                pld.system.wait(signal=signal, offsets=[p, 0], expected=1, cmp=pld.WaitCmp.Ge)
        t = pl.load(window, [0, 0], [64, 128])
        out = pl.store(t, [0, 0], out)
        return out

@pl.program
class ScatterMask:
    """Two rows of values interleaved into one by tile.scatter_mask (P0101 into the even
    columns, P1010 into the odd ones of a zeroed destination, which the result aliases)."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        even: pl.Tensor[[4, 16], pl.FP32],
        odd: pl.Tensor[[4, 16], pl.FP32],
        out: pl.Out[pl.Tensor[[4, 32], pl.FP32]],
    ) -> pl.Tensor[[4, 32], pl.FP32]:
        e = pl.tile.load(even, [0, 0], [4, 16], [4, 16], target_memory=pl.Mem.Vec)
        o = pl.tile.load(odd, [0, 0], [4, 16], [4, 16], target_memory=pl.Mem.Vec)
        d = pl.tile.full([4, 32], dtype=pl.FP32, value=0.0)
        d1 = pl.tile.scatter_mask(d, e, mask_pattern=1)
        d2 = pl.tile.scatter_mask(d1, o, mask_pattern=2)
        out = pl.tile.store(d2, [0, 0], out)
        return out


@pl.program
class FillPad:
    """tile.fillpad as the sort kernels use it: an INT32 row sliced to a runtime width padded
    with PadValue.min, and FP32 rows loaded with fewer valid rows padded with PadValue.max."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        ids: pl.Tensor[[1, 64], pl.INT32],
        x: pl.Tensor[[8, 64], pl.FP32],
        n: pl.Scalar[pl.INDEX],
        ids_out: pl.Out[pl.Tensor[[1, 64], pl.INT32]],
        x_out: pl.Out[pl.Tensor[[8, 64], pl.FP32]],
    ) -> tuple[pl.Tensor[[1, 64], pl.INT32], pl.Tensor[[8, 64], pl.FP32]]:
        row = pl.tile.load(ids, [0, 0], [1, 64], [1, 64], target_memory=pl.Mem.Vec)
        head = pl.tile.slice(row, [1, 64], [0, 0], [1, n])
        padded = pl.tile.fillpad(head, pad_value=pl.PadValue.min)
        ids_out = pl.tile.store(padded, [0, 0], ids_out)
        part = pl.tile.load(x, [0, 0], [8, 64], [5, 64], target_memory=pl.Mem.Vec)
        full = pl.tile.fillpad(part, pad_value=pl.PadValue.max)
        x_out = pl.tile.store(full, [0, 0], x_out)
        return ids_out, x_out


@pl.program
class NegateInPlace:
    """Integer negation and bitwise not of scalars (a signal count a notify subtracts, as the
    reference's allreduce lowering computes it) and tile.fillpad_inplace of a partly valid row."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[8, 64], pl.FP32],
        n: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[8, 64], pl.FP32]],
    ) -> pl.Tensor[[8, 64], pl.FP32]:
        back = -n + 64
        mask = ~n + 65
        cols = pl.max(pl.min(back, mask), 1)
        part = pl.tile.load(x, [0, 0], [8, 64], [8, cols], target_memory=pl.Mem.Vec)
        full = pl.tile.fillpad_inplace(part, pad_value=pl.PadValue.zero)
        out = pl.tile.store(full, [0, 0], out)
        return out


@pl.program
class ScatterIndex:
    """tile.scatter (the index form): the elements of a tile written at the flat offsets an
    index tile holds into a zero-filled destination, in place on the destination."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        v: pl.Tensor[[8, 8], pl.FP32],
        idx: pl.Tensor[[8, 8], pl.INT32],
        out: pl.Out[pl.Tensor[[8, 16], pl.FP32]],
    ) -> pl.Tensor[[8, 16], pl.FP32]:
        vals = pl.tile.load(v, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)
        offs = pl.tile.load(idx, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)
        zero = pl.tile.full([8, 16], dtype=pl.FP32, value=0.0)
        dst = pl.tile.scatter(zero, vals, offs)
        out = pl.tile.store(dst, [0, 0], out)
        return out


@pl.program
class ReinterpretBits:
    """tile.reinterpret_view: the bits of an FP32 tile read as INT32 (negated as integers) and as
    INT16 halves, each a view of the same buffer."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[8, 16], pl.FP32],
        signs: pl.Out[pl.Tensor[[8, 16], pl.INT32]],
        halves: pl.Out[pl.Tensor[[8, 32], pl.INT16]],
    ) -> tuple[pl.Tensor[[8, 16], pl.INT32], pl.Tensor[[8, 32], pl.INT16]]:
        t = pl.tile.load(x, [0, 0], [8, 16], [8, 16], target_memory=pl.Mem.Vec)
        bits = pl.tile.reinterpret_view(t, dtype=pl.INT32)
        masked = pl.tile.neg(bits)
        signs = pl.tile.store(masked, [0, 0], signs)
        parts = pl.tile.reinterpret_view(t, dtype=pl.INT16)
        halves = pl.tile.store(parts, [0, 0], halves)
        return signs, halves


@pl.program
class DistViewRemote:
    """A remote load through a 2-D view of a distributed tensor (the form the reference's
    allreduce lowering prints: `pl.tensor.view` of the window, then `pld.tile.remote_load`)."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        inp: pl.Tensor[[1, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[1, 64], pl.FP32]],
        data: pld.DistributedTensor[[64], pl.FP32],
        me: pl.Scalar[pl.INT32],
    ) -> pl.Tensor[[1, 64], pl.FP32]:
        rows = pl.tensor.view(data, [1, 64])
        acc = pl.load(inp, [0, 0], [1, 64])
        for p in pl.range(2):
            if p != me:
                r = pld.tile.remote_load(rows, peer=p, offsets=[0, 0], shape=[1, 64])
                acc = pl.add(acc, r)
        out = pl.store(acc, [0, 0], out)
        return out


@pl.program
class GatherRows:
    """tile.gather_row into a Vec tile: rows of a pool picked by an index table, each loaded
    straight into its row of a loop-carried tile (written in place), a runtime column count
    as the transfer's valid shape."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        pool: pl.Tensor[[64, 128], pl.FP32],
        idx: pl.Tensor[[16], pl.INT32],
        n: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[16, 128], pl.FP32]],
    ) -> pl.Tensor[[16, 128], pl.FP32]:
        acc = pl.tile.full([16, 128], dtype=pl.FP32, value=0.0)
        for r in pl.range(16):
            row = pl.cast(pl.tensor.read(idx, [r]), pl.INDEX)
            acc = pl.tile.gather_row(acc, pool, [r, 0], [row, 0], [1, 128], valid_shape=[1, n])
        out = pl.tile.store(acc, [0, 0], out)
        return out


@pl.program
class GatherRowsMat:
    """tile.gather_row into Mat operands of a matmul: rows of `a` into a [16, 128] Mat tile
    (the window rounded up to whole boxes), rows of `b` transposed into the columns of a
    [128, 16] Mat tile (a column-major view of `b`)."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        a: pl.Tensor[[64, 128], pl.BF16],
        b: pl.Tensor[[64, 128], pl.BF16],
        c: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        am = pl.tile.create([16, 128], dtype=pl.BF16, target_memory=pl.Mem.Mat)
        bm = pl.tile.create([128, 16], dtype=pl.BF16, target_memory=pl.Mem.Mat)
        for r in pl.range(16):
            am = pl.tile.gather_row(am, a, [r, 0], [r * 4, 0], [1, 128])
            bm = pl.tile.gather_row(bm, b, [0, r], [r * 2, 0], [1, 128], transpose=True)
        lhs = pl.tile.move(am, target_memory=pl.Mem.Left)
        rhs = pl.tile.move(bm, target_memory=pl.Mem.Right)
        acc = pl.tile.matmul(lhs, rhs)
        c = pl.tile.store(acc, [0, 0], c)
        return c


@pl.program
class IntegerBits:
    """Integer bit ops of tiles: the tile forms (and, or, shl, not) and the scalar forms (ands,
    ors, xors with its scratch tile, shls, shrs), whose scalar the reference casts to i32: a
    literal, an INT32 parameter and an INT16 one; a masked shift amount keeps every shift in
    range and every right-shifted element non-negative."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(  # noqa: PLR0913, PLR0917 - two dtypes: their tensors, scalars and outputs
        self,
        x: pl.Tensor[[8, 16], pl.INT32],
        h: pl.Tensor[[8, 16], pl.INT16],
        k: pl.Scalar[pl.INT32],
        m: pl.Scalar[pl.INT16],
        out: pl.Out[pl.Tensor[[8, 16], pl.INT32]],
        half: pl.Out[pl.Tensor[[8, 16], pl.INT16]],
    ) -> tuple[pl.Tensor[[8, 16], pl.INT32], pl.Tensor[[8, 16], pl.INT16]]:
        t = pl.tile.load(x, [0, 0], [8, 16], [8, 16], target_memory=pl.Mem.Vec)
        low = pl.tile.ands(t, 255)
        amount = pl.tile.ands(t, 7)
        a = pl.tile.ors(low, k)
        tmp = pl.tile.create([8, 16], dtype=pl.INT32, target_memory=pl.Mem.Vec)
        b = pl.tile.xors(a, 90, tmp)
        c = pl.tile.shl(b, amount)
        d = pl.tile.shrs(c, 3)
        e = pl.tile.shls(pl.tile.and_(d, low), 2)
        out = pl.tile.store(pl.tile.or_(e, amount), [0, 0], out)
        s = pl.tile.load(h, [0, 0], [8, 16], [8, 16], target_memory=pl.Mem.Vec)
        n = pl.tile.not_(pl.tile.ands(s, m))
        half = pl.tile.store(pl.tile.shrs(pl.tile.ands(n, 4095), 1), [0, 0], half)
        return out, half


@pl.program
class ScatterToMemory:
    """tile.mscatter in a pipeline loop: each block of values written to the output tensor at
    the flat element offsets its block of indices holds; the output is carried by the loop."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        src: pl.Tensor[[64, 32], pl.FP32],
        idx: pl.Tensor[[64, 32], pl.INT32],
        out: pl.Out[pl.Tensor[[4096], pl.FP32]],
    ) -> pl.Tensor[[4096], pl.FP32]:
        for i in pl.pipeline(8, stage=2):
            vals = pl.tile.load(src, [i * 8, 0], [8, 32], [8, 32], target_memory=pl.Mem.Vec)
            offs = pl.tile.load(idx, [i * 8, 0], [8, 32], [8, 32], target_memory=pl.Mem.Vec)
            out = pl.tile.mscatter(vals, offs, out)
        return out


@pl.program
class LocalArray:
    """An on-core array: filled in a loop from an index tile (loop-carried), one element
    overwritten in a branch (an if result), then read in a second loop as the row each store
    writes."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        idx: pl.Tensor[[1, 8], pl.INT32],
        src: pl.Tensor[[8, 32], pl.FP32],
        dst: pl.InOut[pl.Tensor[[32, 32], pl.FP32]],
    ) -> pl.Tensor[[32, 32], pl.FP32]:
        it = pl.tile.load(idx, [0, 0], [1, 8], [1, 8], target_memory=pl.Mem.Vec)
        rows = pl.array.create(8, dtype=pl.INT32)
        for i in pl.range(8):
            v: pl.Scalar[pl.INT32] = pl.tile.read(it, [0, i])
            rows = pl.array.update_element(rows, i, v)
        first = pl.array.get_element(rows, 0)
        if first > 16:
            rows = pl.array.update_element(rows, 0, first - 16)
        for j in pl.range(8):
            r = pl.cast(pl.array.get_element(rows, j), pl.INDEX)
            st = pl.tile.load(src, [j, 0], [1, 32], [1, 32], target_memory=pl.Mem.Vec)
            dst = pl.tile.store(st, [r, 0], dst)
        return dst


@pl.program
class PrefetchRows:
    """A flat table prefetched into L2 (an asynchronous GM-to-L2 prefetch of a [1, N] tensor,
    waited for), then a pipelined loop of row loads: the function gains the hidden SDMA
    workspace parameter."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        table: pl.Tensor[[1, 4096], pl.FP32],
        w: pl.Tensor[[64, 128], pl.FP32],
        out: pl.Out[pl.Tensor[[64, 128], pl.FP32]],
    ) -> pl.Tensor[[64, 128], pl.FP32]:
        ctx = pl.prefetch.make_context()
        evt = pl.prefetch.async_prefetch(table, ctx)
        session = pl.prefetch.session(ctx)
        pl.prefetch.wait(evt, session)
        for r in pl.pipeline(8, stage=2):
            t = pl.load(w, [r * 8, 0], [8, 128])
            e = pl.exp(t)
            out = pl.store(e, [r * 8, 0], out)
        return out


@pl.program
class GemvDecode:
    """A decode-style GEMV: a row vector times a [K, N] matrix with a bias row, the matrix
    streamed over K in a pipelined loop of `tile.gemv_acc` (the accumulator carried in Acc)."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[1, 512], pl.BF16],
        w: pl.Tensor[[512, 64], pl.BF16],
        bias: pl.Tensor[[1, 64], pl.FP32],
        y: pl.Out[pl.Tensor[[1, 64], pl.FP32]],
    ) -> pl.Tensor[[1, 64], pl.FP32]:
        bm = pl.load(bias, [0, 0], [1, 64], target_memory=pl.Mem.Mat)
        x0 = pl.load(x, [0, 0], [1, 128], target_memory=pl.Mem.Mat)
        w0 = pl.load(w, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
        left, right = pl.move(x0, target_memory=pl.Mem.Left), pl.move(w0, target_memory=pl.Mem.Right)
        acc = pl.tile.gemv_bias(left, right, pl.move(bm, target_memory=pl.Mem.Bias))
        for k in pl.pipeline(0, 3, stage=2):
            xk = pl.load(x, [0, k * 128 + 128], [1, 128], target_memory=pl.Mem.Mat)
            wk = pl.load(w, [k * 128 + 128, 0], [128, 64], target_memory=pl.Mem.Mat)
            acc = pl.tile.gemv_acc(acc, pl.move(xk, target_memory=pl.Mem.Left),
                                   pl.move(wk, target_memory=pl.Mem.Right))
        y = pl.store(acc, [0, 0], y)
        return y


@pl.program
class CausalMask:
    """Rows of scores masked on chip by two `tile.tri` masks: a lower-triangular one (the causal
    mask of an attention block) and an upper one off the diagonal and valid in 12 rows; each
    block's rows streamed through a pipelined loop."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        s: pl.Tensor[[128, 32], pl.FP32],
        out: pl.Out[pl.Tensor[[128, 32], pl.FP32]],
    ) -> pl.Tensor[[128, 32], pl.FP32]:
        mask = pl.tile.tri(0, [16, 32], dtype=pl.FP32)
        upper = pl.tile.tri(-4, [16, 32], [12, 32], dtype=pl.FP32, upper=True)
        for b in pl.pipeline(8, stage=2):
            t = pl.load(s, [b * 16, 0], [16, 32])
            m = pl.mul(pl.mul(t, mask), upper)
            out = pl.store(m, [b * 16, 0], out)
        return out


@pl.program
class ExpandRandom:
    """tile.fillpad_expand of rows loaded into a taller tile (the rows below padded with
    PadValue.max) and tile.random at 7 cipher rounds, which the reference prints in MLIR's
    generic form."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        a: pl.Tensor[[48, 64], pl.FP32],
        seed: pl.Scalar[pl.INT32],
        out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
        bits: pl.Out[pl.Tensor[[16, 64], pl.UINT32]],
    ) -> tuple[pl.Tensor[[64, 64], pl.FP32], pl.Tensor[[16, 64], pl.UINT32]]:
        t = pl.tile.load(a, [0, 0], [48, 64], target_memory=pl.Mem.Vec)
        full = pl.tile.fillpad_expand(t, [64, 64], pad_value=pl.PadValue.max)
        out = pl.tile.store(full, [0, 0], out)
        r = pl.tile.random(seed, 2, 3, 4, 5, 6, [16, 64], dtype=pl.UINT32, rounds=7)
        bits = pl.tile.store(r, [0, 0], bits)
        return out, bits


@pl.program
class GatherBarrier:
    """tile.gatherb of blocks from a slice of a slice (32-byte aligned: 16 halves in), and
    the three pipe barriers, which the reference emits as pto.barrier <PIPE_V / M / ALL>."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        src: pl.Tensor[[16, 256], pl.FP16],
        offsets: pl.Tensor[[8, 8], pl.UINT32],
        out: pl.Out[pl.Tensor[[8, 128], pl.FP16]],
    ) -> pl.Tensor[[8, 128], pl.FP16]:
        t = pl.tile.load(src, [0, 0], [16, 256], target_memory=pl.Mem.Vec)
        outer = pl.tile.slice(t, [16, 240], [0, 1])
        inner = pl.tile.slice(outer, [16, 128], [0, 15])
        o = pl.tile.load(offsets, [0, 0], [8, 8], target_memory=pl.Mem.Vec)
        pl.system.bar_v()
        g = pl.tile.gatherb(inner, o)
        pl.system.bar_m()
        out = pl.tile.store(g, [0, 0], out)
        pl.system.bar_all()
        return out


@pl.program
class MemoryGather:
    """tile.mgather from GM in both of its Vec modes, in a pipeline loop: per iteration a [1, 8]
    vector of row indices gathers eight rows of a table (out-of-range rows read as zero), and
    an [8, 16] tile of element offsets gathers single elements, wrapping around the table."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        table: pl.Tensor[[64, 16], pl.FP32],
        rows: pl.Tensor[[4, 8], pl.INT32],
        offsets: pl.Tensor[[32, 16], pl.INT32],
        out: pl.Out[pl.Tensor[[32, 16], pl.FP32]],
    ) -> pl.Tensor[[32, 16], pl.FP32]:
        for i in pl.pipeline(4, stage=2):
            r = pl.tile.load(rows, [i, 0], [1, 8], target_memory=pl.Mem.Vec)
            o = pl.tile.load(offsets, [i * 8, 0], [8, 16], target_memory=pl.Mem.Vec)
            picked = pl.tile.mgather(table, r, coalesce="row", gather_oob="zero")
            single = pl.tile.mgather(table, o, coalesce="elem", gather_oob="wrap")
            both = pl.tile.add(picked, single)
            out = pl.tile.store(both, [i * 8, 0], out)
        return out


VALID_COLS = pl.dynamic("VALID_COLS")


@pl.program
class ValidView:
    """A score tensor whose pl.TensorView declares a valid shape with a symbol nothing else
    binds (the reference's MaterializeValidShapeSymbols makes it a leading index parameter),
    read with the runtime width the caller passes, padded and scaled, as the dynamic paged
    attention example's softmax does."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        s: pl.Tensor[[16, 128], pl.FP32, pl.TensorView(valid_shape=[16, VALID_COLS], stride=[],
                                                        layout=pl.TensorLayout.ND)],
        n: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[16, 128], pl.FP32]],
    ) -> pl.Tensor[[16, 128], pl.FP32]:
        t = pl.tile.load(s, [0, 0], [16, 128], [16, n], target_memory=pl.Mem.Vec)
        padded = pl.tile.fillpad(t, pad_value=pl.PadValue.min)
        scaled = pl.tile.muls(padded, 0.5)
        out = pl.tile.store(scaled, [0, 0], out)
        return out


@pl.program
class ValidStore:
    """A result tensor whose pl.TensorView declares a valid shape with a symbol nothing else
    binds, written by a store: the reference writes it through a view of its physical shape,
    the tile's valid part, as any tensor."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[16, 128], pl.FP32],
        out: pl.Out[pl.Tensor[[16, 128], pl.FP32, pl.TensorView(valid_shape=[16, VALID_COLS], stride=[],
                                                                 layout=pl.TensorLayout.ND)]],
    ) -> pl.Tensor[[16, 128], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [16, 128], target_memory=pl.Mem.Vec)
        doubled = pl.tile.add(t, t)
        pl.tile.store(doubled, [0, 0], out)
        return out


@pl.program
class MatmulInitCond:
    """Split-K accumulation with `init_cond`: the first K step overwrites the accumulator
    instead of accumulating into it (a runtime predicate: the reference branches over
    `pto.tmatmul` and `pto.tmatmul.acc`), and a literal predicate picks one form."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        a: pl.Tensor[[64, 256], pl.FP32],
        b: pl.Tensor[[256, 64], pl.FP32],
        c: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        acc = pl.tile.create([64, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for k0 in pl.range(0, 256, 64):
            a_l1 = pl.load(a, [0, k0], [64, 64], target_memory=pl.Mem.Mat)
            b_l1 = pl.load(b, [k0, 0], [64, 64], target_memory=pl.Mem.Mat)
            a_l0 = pl.move(a_l1, target_memory=pl.Mem.Left)
            b_l0 = pl.move(b_l1, target_memory=pl.Mem.Right)
            acc = pl.tile.matmul_acc(acc, a_l0, b_l0, init_cond=(k0 == 0))
        a_last = pl.move(pl.load(a, [0, 192], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        b_last = pl.move(pl.load(b, [192, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        acc = pl.tile.matmul_acc(acc, a_last, b_last, init_cond=False)
        c = pl.store(acc, [0, 0], c)
        return c


@pl.program
class ClampLoad:
    """A pipelined read whose last window runs off the end of the source, sanctioned by
    `clamp=True`: the reference deduces the cut-back valid rows into the tile's type
    (`pl.min(pl.max(100 - r * 32, 0), 32)`) and reads the window."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[100, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[128, 64], pl.FP32]],
    ) -> pl.Tensor[[128, 64], pl.FP32]:
        for r in pl.pipeline(4, stage=2):
            t = pl.tile.load(x, [r * 32, 0], [32, 64], clamp=True)
            e = pl.tile.exp(t)
            out = pl.store(e, [r * 32, 0], out)
        return out


@pl.program
class WhileRows:
    """A while loop over a counter (the reference's while-loop system test, `test_ctrl_flow`):
    its Simplify leaves the condition and body reading the old counter, printed free."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        a: pl.Tensor[[256, 64], pl.FP32],
        b: pl.Tensor[[256, 64], pl.FP32],
        c: pl.Out[pl.Tensor[[256, 64], pl.FP32]],
    ) -> pl.Tensor[[256, 64], pl.FP32]:
        i: pl.Scalar[pl.INDEX] = 0
        while i < 4:
            ta: pl.Tile[[64, 64], pl.FP32] = pl.load(a, [i * 64, 0], [64, 64])
            tb: pl.Tile[[64, 64], pl.FP32] = pl.load(b, [i * 64, 0], [64, 64])
            s: pl.Tile[[64, 64], pl.FP32] = pl.add(ta, tb)
            c = pl.store(s, [i * 64, 0], c)
            i = i + 1
        return c


@pl.program
class WhileAccumulate:
    """A tile accumulated through a while loop (a tile carry) next to its counter, and a
    pipeline loop in the while body: its loads take slots inside the while loop."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[256, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[32, 64], pl.FP32]],
    ) -> pl.Tensor[[32, 64], pl.FP32]:
        acc: pl.Tile[[32, 64], pl.FP32] = pl.load(x, [0, 0], [32, 64])
        j: pl.Scalar[pl.INDEX] = 1
        while j < 4:
            for k in pl.pipeline(2, stage=2):
                t: pl.Tile[[32, 64], pl.FP32] = pl.load(x, [j * 64 + k * 32, 0], [32, 64])
                acc = pl.add(acc, t)
            j = j + 1
        out = pl.store(acc, [0, 0], out)
        return out


PROGRAMS = {
    "row_scale_pipe": RowScalePipe,
    "row_sum_cast": RowSumCast,
    "valid_rows": ValidRows,
    "branches": Branches,
    "matmul_k": MatmulK,
    "reshape_view": ReshapeView,
    "write_read": WriteRead,
    "dyn_rms_norm": DynRmsNorm,
    "cube_extract": CubeExtract,
    "scalars_and_casts": ScalarsAndCasts,
    "chained_matmul": ChainedMatmul,
    "acc_into_mat": AccIntoMat,
    "slice_col_expand": SliceColExpand,
    "float_scalars": FloatScalars,
    "col_sum_sort": ColSumSort,
    "tensor_view_2d": TensorView2d,
    "assemble_transpose": AssembleTranspose,
    "window_4d": Window4d,
    "parallel_rows": ParallelRows,
    "merge_sort": MergeSort,
    "gather_mask": GatherMask,
    "dist_exchange": DistExchange,
    "dist_rank": DistRank,
    "dist_get": DistGet,
    "dist_barrier": DistBarrier,
    "dist_remote": DistRemote,
    "dist_put": DistPut,
    "scatter_mask": ScatterMask,
    "fill_pad": FillPad,
    "negate_in_place": NegateInPlace,
    "scatter_index": ScatterIndex,
    "reinterpret_bits": ReinterpretBits,
    "dist_view_remote": DistViewRemote,
    "gather_rows": GatherRows,
    "gather_rows_mat": GatherRowsMat,
    "integer_bits": IntegerBits,
    "scatter_to_memory": ScatterToMemory,
    "local_array": LocalArray,
    "prefetch_rows": PrefetchRows,
    "gemv_decode": GemvDecode,
    "causal_mask": CausalMask,
    "expand_random": ExpandRandom,
    "valid_view": ValidView,
    "valid_store": ValidStore,
    "matmul_init_cond": MatmulInitCond,
    "clamp_load": ClampLoad,
    "gather_barrier": GatherBarrier,
    "memory_gather": MemoryGather,
    "while_rows": WhileRows,
    "while_accumulate": WhileAccumulate,
}
JIT = {"jit_add_rows": jit_add_rows, "jit_valid_carry": jit_valid_carry,
       "jit_mixed_gemm_add": jit_mixed_gemm_add, "jit_mixed_scale_gemm": jit_mixed_scale_gemm}
