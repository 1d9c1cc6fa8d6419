"""The loop-nest tree of one function (`20-lower-pipeline-to-slots.md` §3, §7).

Every `for` loop of a function gets a key: its position in a pre-order walk of the body
(0, 1, 2, ...). The tree is a networkx `DiGraph` whose nodes are those keys plus the root
`ROOT` (the function body), with an edge from each loop's nearest enclosing loop (or the
root) to the loop. Node data: `stmt` (the `ForStmt`), `depth`, and `under_if` is not
tracked (ifs are transparent for nesting).

Loop keys are positional, not structural: two identical loops in one function are two
nodes, and the rewrite walk of a pass recovers a loop's key by counting loops in the same
pre-order.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import chain

import networkx as nx

from slotsat.core import ir

ROOT = -1
"""The node standing for the function body."""


@dataclass(frozen=True, slots=True)
class LoopNode:
    """A loop as a node of its function's loop-nest tree (what the loop is to the e-graph
    is `slotsat.egraph_rules.loops.LoopInfo`)."""

    key: int
    stmt: ir.ForStmt
    parent: int
    """The key of the nearest enclosing loop, or `ROOT`."""
    depth: int


def iter_loops(body: ir.SeqStmts) -> Iterator[ir.ForStmt]:
    """Every `for` loop of a body in pre-order (the order that defines loop keys)."""
    for s in ir.walk_stmts(body):
        if isinstance(s, ir.ForStmt):
            yield s


def loop_tree(fn: ir.Function) -> nx.DiGraph:
    """The loop-nest tree of `fn` (see the module docstring). O(N)."""
    tree = nx.DiGraph()
    tree.add_node(ROOT, stmt=None, depth=0)
    counter = 0
    # Preorder with an explicit stack (a recursive closure would hold itself, and the tree, in
    # a cycle after the call): the statements still to visit, their loop parent and depth.
    stack: list[tuple[Iterator[ir.Stmt], int, int]] = [(iter(fn.body.stmts), ROOT, 0)]
    while stack:
        stmts, parent, depth = stack[-1]
        s = next(stmts, None)
        if s is None:
            stack.pop()
        elif isinstance(s, ir.ForStmt):
            key = counter
            counter += 1
            tree.add_node(key, stmt=s, depth=depth + 1)
            tree.add_edge(parent, key)
            stack.append((iter(s.body.stmts), key, depth + 1))
        else:
            children = ir.stmt_children_bodies(s)
            if children:
                stack.append((chain.from_iterable(b.stmts for b in children), parent, depth))
    return tree


def loop_nodes(tree: nx.DiGraph) -> list[LoopNode]:
    """The loops of a tree in pre-order (ascending key)."""
    out: list[LoopNode] = []
    for key in sorted(k for k in tree.nodes if k != ROOT):
        (parent,) = tree.predecessors(key)
        out.append(LoopNode(key, tree.nodes[key]["stmt"], parent, tree.nodes[key]["depth"]))
    return out


def pipeline_ancestors(tree: nx.DiGraph, key: int) -> list[int]:
    """Keys of the pipeline loops enclosing loop `key`, nearest first."""
    out: list[int] = []
    node = key
    while True:
        (parent,) = tree.predecessors(node)
        if parent == ROOT:
            return out
        stmt: ir.ForStmt = tree.nodes[parent]["stmt"]
        if stmt.kind is ir.ForKind.PIPELINE:
            out.append(parent)
        node = parent
