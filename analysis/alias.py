"""Alias roots, the phi-carried set and the inherit-consumed set of one function
(`20-lower-pipeline-to-slots.md` §6.1–§6.3).

One pre-order walk over the function body records:

- **alias edges** `v -> s` at every assignment whose target is a tile and whose value is a
  bare variable `s`, or a call of a buffer-inheriting op (`slotsat.core.ops.inherited_arg`) whose
  inherited argument is the variable `s`;
- **phi reads**: every tile variable read anywhere inside a `pl.yield_` (loop bodies and
  `if` branches, at any depth) or inside a loop's initial value;
- **inherit reads**: every tile variable read by the inherited argument of a
  buffer-inheriting call (decision 2), or with `compat=True` by any argument of such a
  call (the reference's rule); and every tile variable passed to a call whose effect on its
  arguments slotsat does not know (a call of another function, `self.f(...)`, or a task
  launch: `slotsat.core.ops.effect_known`), so that T4 declines such a loop rather than
  slot a buffer it cannot see the use of.

The walk covers the whole function rather than one loop body: the program is in SSA form,
so every read of a candidate load lies inside the body of the loop that defines it, and a
function-wide set restricted to a loop's candidates equals the per-loop set of the spec.

`root(x)` follows edges until a variable without one; SSA guarantees the alias graph (a
networkx `DiGraph` over variable ids) is a forest of in-trees, so roots are computed by
memoized chasing in O(N).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx

from slotsat.core import ir, ops


def _is_tile(v: ir.Var) -> bool:
    return isinstance(v.type, ir.TileType)


@dataclass
class AliasFacts:
    """The three analyses of one function, keyed by variable id."""

    graph: nx.DiGraph = field(default_factory=nx.DiGraph)
    """Nodes: tile variable ids (data `var`); edges `v -> s` (v aliases s)."""
    phi_reads: list[ir.Var] = field(default_factory=list)
    """Tile variables read by a yield or a loop's initial value, in walk order."""
    inherit_reads: list[tuple[ir.Var, str]] = field(default_factory=list)
    """Tile variables read by an inheriting call (T4), with the op name, in walk order."""
    _roots: dict[int, int] = field(default_factory=dict)

    def var(self, vid: int) -> ir.Var:
        v: ir.Var = self.graph.nodes[vid]["var"]
        return v

    def edges(self) -> list[tuple[ir.Var, ir.Var]]:
        return [(self.var(a), self.var(b)) for a, b in self.edge_ids()]

    def edge_ids(self) -> list[tuple[int, int]]:
        """The edges as `(v, s)` variable ids, in the order of `edges()` (the graph's own edge
        order, read through `adjacency()`: the `edges` view would be cached on the graph, a
        reference cycle that keeps the graph and its variables alive until a full collection)."""
        return [(a, b) for a, succ in self.graph.adjacency() for b in succ]

    def root(self, v: ir.Var) -> int:
        """The id of `v`'s alias root."""
        path: list[int] = []
        node = v.id
        while node not in self._roots:
            succ = list(self.graph.successors(node)) if node in self.graph else []
            if not succ:
                self._roots[node] = node
                break
            path.append(node)
            node = succ[0]
        r = self._roots[node]
        for p in path:
            self._roots[p] = r
        return r

    def phi_carried(self) -> dict[int, ir.Var]:
        """Root id -> the first variable through which it reaches a phi."""
        out: dict[int, ir.Var] = {}
        for v in self.phi_reads:
            out.setdefault(self.root(v), v)
        return out

    def inherit_consumed(self) -> dict[int, str]:
        """Root id -> the first buffer-inheriting op that consumes it."""
        out: dict[int, str] = {}
        for v, op in self.inherit_reads:
            out.setdefault(self.root(v), op)
        return out


def _add_var(g: nx.DiGraph, v: ir.Var) -> None:
    if v.id not in g:
        g.add_node(v.id, var=v)


def _record_assign(facts: AliasFacts, target: ir.Var | None, value: ir.Expr | ir.Call, compat: bool) -> None:
    if isinstance(value, ir.Call) and not ops.effect_known(value.op):
        facts.inherit_reads.extend((v, value.op) for v in ir.expr_vars(value) if _is_tile(v))
        return
    if isinstance(value, ir.Call):
        inherited = ops.inherited_arg(value.op)
        if inherited is not None:
            if compat:
                read = [v for v in ir.expr_vars(value) if _is_tile(v)]
            elif inherited < len(value.args):
                read = [v for v in ir.expr_vars(value.args[inherited]) if _is_tile(v)]
            else:
                read = []
            facts.inherit_reads.extend((v, value.op) for v in read)
            if target is not None and _is_tile(target) and inherited < len(value.args):
                src = value.args[inherited]
                if isinstance(src, ir.Var) and _is_tile(src):
                    _add_var(facts.graph, target)
                    _add_var(facts.graph, src)
                    facts.graph.add_edge(target.id, src.id)
    elif target is not None and isinstance(value, ir.Var) and _is_tile(target) and _is_tile(value):
        _add_var(facts.graph, target)
        _add_var(facts.graph, value)
        facts.graph.add_edge(target.id, value.id)


def alias_facts(body: ir.SeqStmts, *, compat: bool = False) -> AliasFacts:
    """Walk `body` (pre-order, nested statements included) and collect the facts."""
    facts = AliasFacts()
    for s in ir.walk_stmts(body):
        if isinstance(s, ir.AssignStmt):
            if _is_tile(s.var):
                _add_var(facts.graph, s.var)
            _record_assign(facts, s.var, s.value, compat)
        elif isinstance(s, ir.EvalStmt):
            _record_assign(facts, None, s.call, compat)
        elif isinstance(s, ir.YieldStmt):
            for e in s.values:
                facts.phi_reads.extend(v for v in ir.expr_vars(e) if _is_tile(v))
        elif isinstance(s, ir.ForStmt | ir.WhileStmt):
            for it in s.iter_args:
                facts.phi_reads.extend(v for v in ir.expr_vars(it.init) if _is_tile(v))
    return facts


def tile_definitions(body: ir.SeqStmts) -> list[ir.Var]:
    """Every tile binder defined in `body` (assignment targets, carried values, results)."""
    out: list[ir.Var] = []
    for s in ir.walk_stmts(body):
        if isinstance(s, ir.AssignStmt):
            out.append(s.var)
        elif isinstance(s, ir.ForStmt | ir.WhileStmt):
            out.extend(it.var for it in s.iter_args)
            out.extend(s.return_vars)
        elif isinstance(s, ir.IfStmt):
            out.extend(s.return_vars)
    return [v for v in out if _is_tile(v)]
