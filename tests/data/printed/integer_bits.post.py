# pypto.program: IntegerBits
import pypto.language as pl

@pl.program
class IntegerBits:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(x__ssa_v0: pl.Tensor[[8, 16], pl.INT32], h__ssa_v0: pl.Tensor[[8, 16], pl.INT16], k__ssa_v0: pl.Scalar[pl.INT32], m__ssa_v0: pl.Scalar[pl.INT16], out__ssa_v0: pl.Out[pl.Tensor[[8, 16], pl.INT32]], half__ssa_v0: pl.Out[pl.Tensor[[8, 16], pl.INT16]]) -> tuple[pl.Tensor[[8, 16], pl.INT32], pl.Tensor[[8, 16], pl.INT16]]:
        t__ssa_v0: pl.Tile[[8, 16], pl.INT32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [0, 0], [8, 16], [8, 16], target_memory=pl.Mem.Vec)
        low__ssa_v0: pl.Tile[[8, 16], pl.INT32, pl.Mem.Vec] = pl.tile.ands(t__ssa_v0, pl.const(255, pl.INT32))
        amount__ssa_v0: pl.Tile[[8, 16], pl.INT32, pl.Mem.Vec] = pl.tile.ands(t__ssa_v0, pl.const(7, pl.INT32))
        a__ssa_v0: pl.Tile[[8, 16], pl.INT32, pl.Mem.Vec] = pl.tile.ors(low__ssa_v0, k__ssa_v0)
        tmp__ssa_v0: pl.Tile[[8, 16], pl.INT32, pl.Mem.Vec] = pl.tile.create([8, 16], dtype=pl.INT32, target_memory=pl.Mem.Vec)
        b__ssa_v0: pl.Tile[[8, 16], pl.INT32, pl.Mem.Vec] = pl.tile.xors(a__ssa_v0, pl.const(90, pl.INT32), tmp__ssa_v0)
        c__ssa_v0: pl.Tile[[8, 16], pl.INT32, pl.Mem.Vec] = pl.tile.shl(b__ssa_v0, amount__ssa_v0)
        d__ssa_v0: pl.Tile[[8, 16], pl.INT32, pl.Mem.Vec] = pl.tile.shrs(c__ssa_v0, pl.const(3, pl.INT32))
        t__tmp_v0: pl.Tile[[8, 16], pl.INT32, pl.Mem.Vec] = pl.tile.and_(d__ssa_v0, low__ssa_v0)
        e__ssa_v0: pl.Tile[[8, 16], pl.INT32, pl.Mem.Vec] = pl.tile.shls(t__tmp_v0, pl.const(2, pl.INT32))
        t__tmp_v1: pl.Tile[[8, 16], pl.INT32, pl.Mem.Vec] = pl.tile.or_(e__ssa_v0, amount__ssa_v0)
        out__ssa_v1: pl.Tensor[[8, 16], pl.INT32] = pl.tile.store(t__tmp_v1, [0, 0], out__ssa_v0)
        s__ssa_v0: pl.Tile[[8, 16], pl.INT16, pl.Mem.Vec] = pl.tile.load(h__ssa_v0, [0, 0], [8, 16], [8, 16], target_memory=pl.Mem.Vec)
        t__tmp_v2: pl.Tile[[8, 16], pl.INT16, pl.Mem.Vec] = pl.tile.ands(s__ssa_v0, m__ssa_v0)
        n__ssa_v0: pl.Tile[[8, 16], pl.INT16, pl.Mem.Vec] = pl.tile.not_(t__tmp_v2)
        t__tmp_v3: pl.Tile[[8, 16], pl.INT16, pl.Mem.Vec] = pl.tile.ands(n__ssa_v0, pl.const(4095, pl.INT16))
        t__tmp_v4: pl.Tile[[8, 16], pl.INT16, pl.Mem.Vec] = pl.tile.shrs(t__tmp_v3, pl.const(1, pl.INT16))
        half__ssa_v1: pl.Tensor[[8, 16], pl.INT16] = pl.tile.store(t__tmp_v4, [0, 0], half__ssa_v0)
        return out__ssa_v0, half__ssa_v0
