"""Persistent-fragment discovery by pointer flow (`50-persistent-promotion.md` §4, §5).

For one `func.func`: the persistent `llvm.alloca`s, the ordered related-op set reached from
them through `llvm.getelementptr` chains, the `scf.while` ops that hold a related op (each
once), and the ordered list of `scf.for` loops that promotion must consider, after the
dead-chain and section rules.

Order is part of the contract (diagnostics are emitted in it): allocations in program
order, each one's worklist a LIFO stack visiting users in use-list order (most recent use
first, as in MLIR), loops innermost first within each related op's chain.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import cast

import networkx as nx
from xdsl.dialects.arith import ConstantOp
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType
from xdsl.dialects.llvm import AllocaOp, GEPOp
from xdsl.dialects.scf import ForOp, WhileOp
from xdsl.ir import Attribute, Operation, SSAValue

PERSISTENT_ATTR = "pto.persistent"
SECTION_OP = "pto.section.simt"

DEPENDENCE_OPS: frozenset[str] = frozenset({
    "arith.addi", "arith.subi", "arith.muli", "arith.divsi", "arith.remsi",
    "arith.index_cast", "arith.extsi", "arith.trunci",
})
"""Definers the dependence walk passes through (§5 step 4); any other definer stops it."""


def signed_constant(value: SSAValue) -> int | None:
    """The value of an integer `arith.constant`, read as signed and sign-extended from its
    width (`index` is 64 bits); `None` for anything else. No folding (§8)."""
    owner = value.owner
    if not isinstance(owner, ConstantOp):
        return None
    attr: Attribute = owner.value
    if not isinstance(attr, IntegerAttr):
        return None
    typed = cast(IntegerAttr[IntegerType | IndexType], attr)
    width = 64 if isinstance(typed.type, IndexType) else typed.type.width.data
    if width <= 0:
        return None
    raw = typed.value.data & ((1 << width) - 1)
    return raw - (1 << width) if raw >> (width - 1) else raw


def loop_bounds(loop: ForOp) -> tuple[int, int, int] | None:
    lb, ub, step = (signed_constant(v) for v in (loop.lb, loop.ub, loop.step))
    if lb is None or ub is None or step is None:
        return None
    return lb, ub, step


def is_statically_zero_trip(loop: ForOp) -> bool:
    bounds = loop_bounds(loop)
    if bounds is None:
        return False
    lb, ub, step = bounds
    return step > 0 and ub <= lb


def ancestors(op: Operation) -> Iterator[Operation]:
    parent = op.parent_op()
    while parent is not None:
        yield parent
        parent = parent.parent_op()


def persistent_allocas(func: Operation) -> list[Operation]:
    return [op for op in func.walk() if isinstance(op, AllocaOp) and PERSISTENT_ATTR in op.attributes]


def related_ops(allocas: list[Operation]) -> list[Operation]:
    """The ordered related-op set of §4 step 2 (a dict keeps insertion order)."""
    related: dict[Operation, None] = {}
    for alloca in allocas:
        related.setdefault(alloca, None)
        stack = [alloca]
        while stack:
            op = stack.pop()
            if len(op.results) != 1:
                continue
            for use in op.results[0].uses:
                user = use.operation
                if user in related:
                    continue
                related[user] = None
                if isinstance(user, GEPOp):
                    stack.append(user)
    return list(related)


def wraps_section(loop: ForOp) -> bool:
    return any(op.name == SECTION_OP for op in loop.walk() if op is not loop)


class DependenceGraph:
    """Edges from an SSA value to the operands of its definer, for the definers the
    dependence walk passes through; a loop depends on an index when a path reaches its
    induction variable."""

    def __init__(self, func: Operation) -> None:
        self.graph = nx.DiGraph()  # SSAValue -> SSAValue
        for op in func.walk():
            if op.name not in DEPENDENCE_OPS:
                continue
            for result in op.results:
                for operand in op.operands:
                    self.graph.add_edge(result, operand)

    def reaches(self, index: SSAValue, target: SSAValue) -> bool:
        if index is target:
            return True
        if index not in self.graph or target not in self.graph:
            return False
        return bool(nx.has_path(self.graph, index, target))


def _iv_feeds_related_gep(loop: ForOp, geps: list[GEPOp], deps: DependenceGraph) -> bool:
    iv = loop.body.block.args[0]
    for gep in geps:
        if not loop.is_ancestor(gep):
            continue
        if any(deps.reaches(index, iv) for index in gep.ssa_indices):
            return True
    return False


@dataclass
class Discovery:
    """What promotion needs to know about one function."""

    allocas: list[Operation] = field(default_factory=list[Operation])
    related: list[Operation] = field(default_factory=list[Operation])
    whiles: list[WhileOp] = field(default_factory=list[WhileOp])
    """`scf.while` ops holding a related op, each once, in related-op order (§5 step 1)."""
    loops: list[ForOp] = field(default_factory=list[ForOp])
    """Loops to promote, in related-op order, innermost first within a chain (§5 step 5)."""


def discover(func: Operation) -> Discovery:
    allocas = persistent_allocas(func)
    if not allocas:
        return Discovery()
    related = related_ops(allocas)
    geps = [op for op in related if isinstance(op, GEPOp)]
    deps = DependenceGraph(func)
    whiles: dict[WhileOp, None] = {}
    loops: dict[ForOp, None] = {}
    section_verdict: dict[ForOp, bool] = {}
    for op in related:
        enclosing_while = next((p for p in ancestors(op) if isinstance(p, WhileOp)), None)
        if enclosing_while is not None:
            whiles.setdefault(enclosing_while, None)
        chain = [p for p in ancestors(op) if isinstance(p, ForOp)]
        if any(is_statically_zero_trip(loop) for loop in chain):
            continue
        for loop in chain:
            if loop not in section_verdict:
                section_verdict[loop] = (not wraps_section(loop)
                                         or _iv_feeds_related_gep(loop, geps, deps))
            if section_verdict[loop]:
                loops.setdefault(loop, None)
    return Discovery(allocas, related, list(whiles), list(loops))
