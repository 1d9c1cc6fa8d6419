"""A small evaluator for the MLIR that `pto-unroll-loops` emits, used as the oracle of the
unroll tests: integer `arith` ops on `index` (64-bit, wrapping), `scf.for` with carried
values, and `memref.store`, which records `(value, index)` in a trace.

A run returns the function's results and the trace, so a loop and its unrolled form can be
compared on the same arguments. `scf.for` iterates while `iv < ub` (signed) and stops with an
error after `max_iterations`, so a wrong bound cannot hang a test.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import cast

from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp
from xdsl.ir import Block, Operation, SSAValue

MASK = (1 << 64) - 1


def _signed(v: int) -> int:
    v &= MASK
    return v - (1 << 64) if v >> 63 else v


def _unsigned(v: int) -> int:
    return v & MASK


def _ceildivui(a: int, b: int) -> int:
    a, b = _unsigned(a), _unsigned(b)
    return -(-a // b)


_BINARY: dict[type[Operation], Callable[[int, int], int]] = {
    arith.AddiOp: lambda a, b: a + b,
    arith.SubiOp: lambda a, b: a - b,
    arith.MuliOp: lambda a, b: a * b,
    arith.MaxSIOp: max,
    arith.RemUIOp: lambda a, b: _unsigned(a) % _unsigned(b),
    arith.DivUIOp: lambda a, b: _unsigned(a) // _unsigned(b),
    arith.CeilDivUIOp: _ceildivui,
}


class EvalError(Exception):
    pass


@dataclass
class Run:
    max_iterations: int = 10_000
    trace: list[tuple[int, tuple[int, ...]]] = field(default_factory=list[tuple[int, tuple[int, ...]]])

    def block(self, block: Block, env: dict[SSAValue, int]) -> list[int]:
        for op in block.ops:
            if isinstance(op, scf.YieldOp | func.ReturnOp):
                return [env[v] for v in op.operands]
            self.op(op, env)
        return []

    def op(self, op: Operation, env: dict[SSAValue, int]) -> None:
        if isinstance(op, arith.ConstantOp):
            value = cast(IntegerAttr[IntegerType], op.value).value.data
            env[op.result] = _signed(value)
        elif type(op) in _BINARY:
            a, b = (env[v] for v in op.operands)
            env[op.results[0]] = _signed(_BINARY[type(op)](a, b))
        elif isinstance(op, memref.StoreOp):
            self.trace.append((env[op.value], tuple(env[i] for i in op.indices)))
        elif isinstance(op, memref.AllocOp):
            pass
        elif isinstance(op, scf.ForOp):
            self.loop(op, env)
        else:
            raise EvalError(f"cannot evaluate {op.name}")

    def loop(self, loop: scf.ForOp, env: dict[SSAValue, int]) -> None:
        iv, ub, step = env[loop.lb], env[loop.ub], env[loop.step]
        carried = [env[v] for v in loop.iter_args]
        count = 0
        while iv < ub:
            count += 1
            if count > self.max_iterations:
                raise EvalError("loop ran away")
            inner = dict(env)
            inner[loop.body.block.args[0]] = iv
            inner.update(zip(loop.body.block.args[1:], carried, strict=True))
            carried = self.block(loop.body.block, inner)
            iv = _signed(iv + step)
        env.update(zip(loop.results, carried, strict=True))


Trace = list[tuple[int, tuple[int, ...]]]


def run_function(module: ModuleOp, name: str, args: Sequence[int]) -> tuple[list[int], Trace]:
    """Results and store trace of `@name` on `args`."""
    fn = next(op for op in module.walk() if isinstance(op, func.FuncOp) and op.sym_name.data == name)
    block = fn.body.block
    env: dict[SSAValue, int] = dict(zip(block.args, args, strict=True))
    run = Run()
    results = run.block(block, env)
    return results, run.trace
