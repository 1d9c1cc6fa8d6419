# pypto.program: DistBarrier
import pypto.language as pl

@pl.program
class DistBarrier:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kernel(x__ssa_v0: pl.Tensor[[1, 64], pl.FP32], y__ssa_v0: pl.Out[pl.Tensor[[1, 64], pl.FP32]], data__ssa_v0: pl.InOut[pld.DistributedTensor[[1, 64], pl.FP32]], signal__ssa_v0: pl.InOut[pld.DistributedTensor[[4, 1], pl.INT32]]) -> pl.Tensor[[1, 64], pl.FP32]:
        ctx__ssa_v0: pld.CommCtxType = pld.system.get_comm_ctx(data__ssa_v0)
        me__ssa_v0: pl.Scalar[pl.INT32] = pld.system.rank(ctx__ssa_v0)
        n__ssa_v0: pl.Scalar[pl.INT32] = pld.system.nranks(ctx__ssa_v0)
        local__ssa_v0: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0, [0, 0], [1, 64], [1, 64], target_memory=pl.Mem.Vec)
        data__ssa_v1: pld.DistributedTensor[[1, 64], pl.FP32] = pl.tile.store(local__ssa_v0, [0, 0], data__ssa_v0)
        signal__ctx_tmp_v0: pld.CommCtxType = pld.system.get_comm_ctx(signal__ssa_v0)
        signal__nranks_tmp_v1: pl.Scalar[pl.INT32] = pld.system.nranks(signal__ctx_tmp_v0)
        signal__nranks_idx_tmp_v2: pl.Scalar[pl.INDEX] = pl.cast(signal__nranks_tmp_v1, pl.INDEX)
        signal__my_rank_tmp_v3: pl.Scalar[pl.INT32] = pld.system.rank(signal__ctx_tmp_v0)
        for signal__peer_tmp_v4 in pl.range(signal__nranks_idx_tmp_v2):
            if signal__peer_tmp_v4 != pl.cast(signal__my_rank_tmp_v3, pl.INDEX):
                signal__notify_ret_tmp_v5: pl.UnknownType = pld.system.notify(signal__ssa_v0, signal__peer_tmp_v4, [signal__my_rank_tmp_v3, 0], pl.const(1, pl.INT32), op=0)
        for signal__src_tmp_v6 in pl.range(signal__nranks_idx_tmp_v2):
            if signal__src_tmp_v6 != pl.cast(signal__my_rank_tmp_v3, pl.INDEX):
                signal__wait_ret_tmp_v7: pl.UnknownType = pld.system.wait(signal__ssa_v0, [signal__src_tmp_v6, 0], pl.const(1, pl.INT32), cmp=1)
        for signal__reset_src_tmp_v8 in pl.range(signal__nranks_idx_tmp_v2):
            if signal__reset_src_tmp_v8 != pl.cast(signal__my_rank_tmp_v3, pl.INDEX):
                signal__epilogue_reset_ret_tmp_v9: pl.UnknownType = pld.system.notify(signal__ssa_v0, signal__my_rank_tmp_v3, [signal__reset_src_tmp_v8, 0], pl.const(-1, pl.INT32), op=0)
        signal__ssa_v1: pld.DistributedTensor[[4, 1], pl.INT32] = signal__ssa_v0
        peer__ssa_v0: pl.Scalar[pl.INDEX] = (pl.cast(me__ssa_v0, pl.INDEX) + 1) % pl.cast(n__ssa_v0, pl.INDEX)
        recv__ssa_v0: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pld.tile.remote_load(data__ssa_v1, peer__ssa_v0, [0, 0], [1, 64])
        y__ssa_v1: pl.Tensor[[1, 64], pl.FP32] = pl.tile.store(recv__ssa_v0, [0, 0], y__ssa_v0)
        return y__ssa_v0
