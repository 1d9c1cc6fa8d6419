"""The emitted index terms extraction chooses between, and what each costs
(`30-pto-codegen.md` §5.3, §7.1; `40-ptoas-slot-matcher.md` §7.2).

An `EmitTerm` is a small tree of emitted ops:

- leaves: an IR `Var` (loop variable, parameter, scalar) or an `EmitConst` (a typed integer
  constant, its value already reduced to the type);
- nodes: `EmitNode(op, operands, type, key)` where `op` is one of `OPS`. `key` is the
  e-class id of the value (for sharing: a node whose key the emitter already knows is not
  emitted again) or None (never shared).

Op counts (`op_count`) are the emission costs: every `arith` op 1, `arith.floordivsi` 4
(ptoas expands it), a floor-mod correction chain what it emits (4 with a constant divisor, 8
with a runtime one). `to_value` turns a term into the matcher model's value graph and
`evaluate_term` computes its value under the emitted semantics. Rendering to MLIR text is
`slotsat.lowering.floor_lowering`.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

from slotsat.analysis.matcher import Value, ValueGraph, evaluate
from slotsat.core import ir

OPS: frozenset[str] = frozenset(
    {
        "arith.addi",
        "arith.subi",
        "arith.muli",
        "arith.remui",
        "arith.divui",
        "arith.remsi",
        "arith.divsi",
        "arith.floordivsi",
        "floormod.corrected.pos",
        "floormod.corrected.neg",
        "floormod.corrected.runtime",
        "arith.index_cast",
        "arith.index_castui",
        "arith.extsi",
        "arith.extui",
        "arith.trunci",
        "arith.remf",
        "arith.divf",
        "arith.addf",
        "arith.subf",
        "arith.mulf",
    }
)
"""Node ops; comparisons are spelled `arith.cmpi <pred>` / `arith.cmpf <pred>`."""

CASTS = frozenset({"arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui", "arith.trunci"})
CORRECTED = frozenset({"floormod.corrected.pos", "floormod.corrected.neg", "floormod.corrected.runtime"})

OP_COST: dict[str, int] = {
    "arith.floordivsi": 4,
    "floormod.corrected.pos": 4,
    "floormod.corrected.neg": 4,
    "floormod.corrected.runtime": 8,
}


@dataclass(frozen=True, slots=True)
class EmitConst:
    """A typed integer constant; `value` is already reduced to `type`."""

    value: int
    type: str


@dataclass(frozen=True, slots=True, eq=False)
class EmitNode:
    """One emitted op (or correction chain) over operands; compares by identity."""

    op: str
    operands: tuple[EmitTerm, ...]
    type: str
    key: Hashable | None = None

    def __repr__(self) -> str:
        return f"EmitNode({describe(self)})"


EmitTerm = ir.Var | EmitConst | EmitNode


def mlir_type(dtype: ir.DType) -> str:
    return dtype.mlir


def term_type(t: EmitTerm) -> str:
    if isinstance(t, ir.Var):
        return t.dtype.mlir
    return t.type


def signless_type(t: str) -> str:
    """`ui32` -> `i32`: `arith` takes signless integers; the op (`remui`, `extui`, ...) carries
    the signedness."""
    return t[1:] if t.startswith("ui") and t[2:].isdigit() else t


def signless(term: EmitTerm) -> EmitTerm:
    """`term` with unsigned type spellings made signless; a cast that becomes a no-op
    (`INT32` <-> `UINT32`) is dropped."""
    if not _has_unsigned(term):
        return term
    memo: dict[int, EmitTerm] = {}

    def walk(t: EmitTerm) -> EmitTerm:
        if isinstance(t, ir.Var):
            return t
        if isinstance(t, EmitConst):
            return EmitConst(t.value, signless_type(t.type))
        if id(t) in memo:
            return memo[id(t)]
        operands = tuple(walk(o) for o in t.operands)
        type_ = signless_type(t.type)
        out: EmitTerm
        if t.op in CASTS and signless_type(term_type(operands[0])) == type_:
            out = operands[0]
        else:
            out = EmitNode(t.op, operands, type_, t.key)
        memo[id(t)] = out
        return out

    return walk(term)


def _has_unsigned(t: EmitTerm) -> bool:
    if isinstance(t, ir.Var):
        return t.dtype.is_unsigned
    if isinstance(t, EmitConst):
        return t.type.startswith("ui")
    return t.type.startswith("ui") or any(_has_unsigned(o) for o in t.operands)


def op_cost(op: str) -> int:
    return OP_COST.get(op, 1)


def op_count(t: EmitTerm, *, shared: bool = False) -> int:
    """Emitted ops of `t`; with `shared`, a node reached twice (same object or same key) counts once."""
    return _op_count(t, set() if shared else None)


def _op_count(x: EmitTerm, seen: set[object] | None) -> int:
    # (a module function, not a closure: a recursive closure is a reference cycle, left to
    # the collector; the same for the walks below)
    if not isinstance(x, EmitNode):
        return 0
    if seen is not None:
        ident: object = x.key if x.key is not None else id(x)
        if ident in seen:
            return 0
        seen.add(ident)
    return op_cost(x.op) + sum(_op_count(o, seen) for o in x.operands)


def _short(op: str) -> str:
    return op.removeprefix("arith.")


def describe(t: EmitTerm, names: dict[int, str] | None = None) -> str:
    """A one-line rendering: `remui((i - 1), 2)`; also the deterministic tie-break key."""
    if isinstance(t, ir.Var):
        return names.get(t.id, t.name_hint) if names is not None else t.name_hint
    if isinstance(t, EmitConst):
        return str(t.value)
    args = [describe(o, names) for o in t.operands]
    infix = {"arith.addi": "+", "arith.subi": "-", "arith.muli": "*"}
    if t.op in infix:
        return f"({args[0]} {infix[t.op]} {args[1]})"
    if t.op in CASTS:
        return f"{_short(t.op)}({args[0]} : {term_type(t.operands[0])} to {t.type})"
    if t.op in CORRECTED:
        return f"floormod({args[0]}, {args[1]})"
    return f"{_short(t.op)}({', '.join(args)})"


# --------------------------------------------------------------------------------------
# terms as matcher values (no names needed)


def to_value(term: EmitTerm, graph: ValueGraph, memo: dict[object, Value] | None = None) -> Value:
    """`term` as a matcher value graph (correction chains expanded), without rendering text.

    Variables become opaque values named `%<name_hint>#<id>`; nodes with a key are shared
    through `memo` (pass the same dict for several terms to model CSE). Types are spelled
    signless, as `arith` (and the model) has them.
    """
    return _to_value(term, graph, {} if memo is None else memo)


def _to_value(t: EmitTerm, graph: ValueGraph, cache: dict[object, Value]) -> Value:
    if isinstance(t, ir.Var):
        return graph.opaque(f"%{t.name_hint}#{t.id}", signless_type(t.dtype.mlir))
    if isinstance(t, EmitConst):
        return graph.const(t.value, signless_type(t.type))
    ident: object = ("key", t.key) if t.key is not None else ("id", id(t))
    if ident in cache:
        return cache[ident]
    args = [_to_value(o, graph, cache) for o in t.operands]
    value = _node_value(t, args, graph)
    cache[ident] = value
    return value


def _node_value(t: EmitNode, args: list[Value], graph: ValueGraph) -> Value:
    ty = signless_type(t.type)
    if t.op in CORRECTED:
        a, b = args
        zero = graph.const(0, ty)
        rem = graph.op("arith.remsi", a, b, type=ty)
        if t.op == "floormod.corrected.runtime":
            nz = graph.op("arith.cmpi", rem, zero, predicate="ne")
            rn = graph.op("arith.cmpi", rem, zero, predicate="slt")
            bn = graph.op("arith.cmpi", b, zero, predicate="slt")
            x = graph.op("arith.xori", rn, bn, type="i1")
            f = graph.op("arith.andi", nz, x, type="i1")
            s = graph.op("arith.addi", rem, b, type=ty)
            return graph.op("arith.select", f, s, rem, type=ty)
        pred = "slt" if t.op == "floormod.corrected.pos" else "sgt"
        n = graph.op("arith.cmpi", rem, zero, predicate=pred)
        s = graph.op("arith.addi", rem, b, type=ty)
        return graph.op("arith.select", n, s, rem, type=ty)
    if t.op.startswith(("arith.cmpi ", "arith.cmpf ")):
        op, pred = t.op.split(" ", 1)
        if op == "arith.cmpf":
            return graph.op(op, *args, type="i1")
        return graph.op(op, *args, predicate=pred)
    return graph.op(t.op, *args, type=ty)


def evaluate_term(term: EmitTerm, env: dict[int, int]) -> int:
    """The value of `term` under the emitted semantics (wrap-around, truncating `remsi` /
    `divsi`, unsigned `remui` / `divui`), via the matcher model's evaluator; `env` maps
    variable ids to values."""
    graph = ValueGraph()
    value = to_value(term, graph)
    names: dict[str, int] = {}
    for v in _vars(term):
        names[f"%{v.name_hint}#{v.id}"] = env[v.id]
    return evaluate(value, names)


def _vars(term: EmitTerm) -> list[ir.Var]:
    out: dict[int, ir.Var] = {}

    def walk(t: EmitTerm) -> None:
        if isinstance(t, ir.Var):
            out[t.id] = t
        elif isinstance(t, EmitNode):
            for o in t.operands:
                walk(o)

    walk(term)
    return list(out.values())
