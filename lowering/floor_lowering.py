"""Emitted index terms and their rendering into MLIR `arith` lines (`30-pto-codegen.md` §5.3,
§5.7, §7.1).

An `EmitTerm` is a small tree of emitted ops chosen by `egraph_rules.engine`:

- leaves: an IR `Var` (loop variable, parameter, scalar) or an `EmitConst` (a typed integer
  constant, its value already reduced to the type);
- nodes: `EmitNode(op, operands, type, key)` where `op` is one of `OPS`. `key` is the
  e-class id of the value (for sharing: a node whose key the namer already knows is not
  emitted again) or None (never shared: plain expressions and `--mode pypto` slot operands
  are emitted at every occurrence).

`render(term, namer)` returns the lines and the SSA name of the result, in the **exact**
order of §7.1. The namer (protocol `Namer`) owns constant names (`%c24_index`,
`%cn3_index`), numbered temporaries (`%0`, `%1`, ...), the names of IR variables, and the
memo of already-emitted e-classes (scoped by the caller). With a `ValueRecorder`, every
rendered op is also recorded in the matcher model's `ValueGraph`
(`analysis.matcher`), so the emitted slot chain can be classified and compared.

Op counts (`op_count`) are the emission costs of `40-ptoas-slot-matcher.md` §7.2: every
`arith` op 1, `arith.floordivsi` 4 (ptoas expands it), a floor-mod correction chain what it
emits (4 with a constant divisor, 8 with a runtime one).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

from analysis.matcher import Const, Op, Opaque, Value, ValueGraph
from slotsat import ir

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
        "arith.extsi",
        "arith.trunci",
        "arith.remf",
        "arith.divf",
        "arith.addf",
        "arith.subf",
        "arith.mulf",
    }
)
"""Node ops; comparisons are spelled `arith.cmpi <pred>` / `arith.cmpf <pred>`."""

CASTS = frozenset({"arith.index_cast", "arith.extsi", "arith.trunci"})
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


def op_cost(op: str) -> int:
    return OP_COST.get(op, 1)


def op_count(t: EmitTerm, *, shared: bool = False) -> int:
    """Emitted ops of `t`; with `shared`, a node reached twice (same object or same key) counts once."""
    seen: set[object] = set()

    def walk(x: EmitTerm) -> int:
        if not isinstance(x, EmitNode):
            return 0
        if shared:
            ident: object = x.key if x.key is not None else id(x)
            if ident in seen:
                return 0
            seen.add(ident)
        return op_cost(x.op) + sum(walk(o) for o in x.operands)

    return walk(t)


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
# rendering


class Namer(Protocol):
    """What `render` needs from the emitter."""

    def const(self, value: int, mlir_type: str) -> str: ...

    def temp(self) -> str: ...

    def value(self, var: ir.Var) -> str: ...

    def lookup(self, key: Hashable) -> str | None: ...

    def remember(self, key: Hashable, name: str) -> None: ...


V = TypeVar("V")


class ScopedMemo(Generic[V]):
    """Values keyed by e-class, visible in the block that recorded them and the blocks nested
    inside it (`30-pto-codegen.md` §6: a value already emitted in scope is reused)."""

    def __init__(self) -> None:
        self._scopes: list[dict[Hashable, V]] = [{}]

    def push(self) -> None:
        self._scopes.append({})

    def pop(self) -> None:
        if len(self._scopes) == 1:
            raise RuntimeError("ScopedMemo.pop without a matching push")
        self._scopes.pop()

    def lookup(self, key: Hashable) -> V | None:
        for scope in reversed(self._scopes):
            if key in scope:
                return scope[key]
        return None

    def add(self, key: Hashable, value: V) -> None:
        self._scopes[-1][key] = value

    def items(self) -> Iterator[tuple[Hashable, V]]:
        for scope in self._scopes:
            yield from scope.items()


def const_name(value: int, mlir_type: str) -> str:
    """`%c24_index`, `%cn3_index` (`30-pto-codegen.md` §5.3)."""
    return f"%c{value}_{mlir_type}" if value >= 0 else f"%cn{-value}_{mlir_type}"


class MemoNamer:
    """The scoped half of `Namer`: e-class keys already rendered in this block or an
    enclosing one, with their SSA names. Subclasses set `memo` and name values."""

    memo: ScopedMemo[str]

    def lookup(self, key: Hashable) -> str | None:
        return self.memo.lookup(key)

    def remember(self, key: Hashable, name: str) -> None:
        self.memo.add(key, name)

    def push(self) -> None:
        self.memo.push()

    def pop(self) -> None:
        self.memo.pop()


@dataclass
class SimpleNamer(MemoNamer):
    """A self-contained namer (explore, tests): hoisted constants, `%0`-style temporaries,
    `%name` for variables, and a scoped memo of emitted e-classes."""

    constants: dict[tuple[int, str], str] = field(default_factory=dict)
    counter: int = 0
    memo: ScopedMemo[str] = field(default_factory=ScopedMemo)
    var_names: dict[int, str] = field(default_factory=dict)

    def const(self, value: int, mlir_type: str) -> str:
        key = (value, mlir_type)
        if key not in self.constants:
            self.constants[key] = const_name(value, mlir_type)
        return self.constants[key]

    def constant_lines(self) -> list[str]:
        return [f"{name} = arith.constant {v} : {t}" for (v, t), name in self.constants.items()]

    def temp(self) -> str:
        name = f"%{self.counter}"
        self.counter += 1
        return name

    def value(self, var: ir.Var) -> str:
        return self.var_names.get(var.id, f"%{var.name_hint}")



@dataclass
class ValueRecorder:
    """Records rendered values into a matcher `ValueGraph`, by SSA name."""

    graph: ValueGraph = field(default_factory=ValueGraph)
    values: dict[str, Value] = field(default_factory=dict)

    def leaf(self, name: str, t: EmitTerm) -> Value:
        if name not in self.values:
            if isinstance(t, EmitConst):
                self.values[name] = self.graph.const(t.value, t.type)
            else:
                self.values[name] = self.graph.opaque(name, term_type(t))
        return self.values[name]

    def op(self, result: str, op: str, operands: list[str], type: str, predicate: str | None = None) -> None:
        vals = [self.values[o] for o in operands]
        self.values[result] = self.graph.op(op, *vals, type=type, predicate=predicate)


def render(term: EmitTerm, namer: Namer, recorder: ValueRecorder | None = None) -> tuple[list[str], str]:
    """The `arith` lines computing `term` (exact §7.1 order) and the SSA name of its value."""
    lines: list[str] = []

    def emit(  # noqa: PLR0913, PLR0917
        result: str, op: str, operands: list[str], type: str, text: str, predicate: str | None = None
    ) -> None:
        lines.append(f"{result} = {text}")
        if recorder is not None:
            recorder.op(result, op, operands, type, predicate)

    def walk(t: EmitTerm) -> str:
        if isinstance(t, ir.Var):
            name = namer.value(t)
            if recorder is not None:
                recorder.leaf(name, t)
            return name
        if isinstance(t, EmitConst):
            name = namer.const(t.value, t.type)
            if recorder is not None:
                recorder.leaf(name, t)
            return name
        if t.key is not None:
            known = namer.lookup(t.key)
            if known is not None:
                return known
        args = [walk(o) for o in t.operands]
        result = _render_node(t, args, namer, emit)
        if t.key is not None:
            namer.remember(t.key, result)
        return result

    result = walk(term)
    return lines, result


class _Emit(Protocol):
    def __call__(  # noqa: PLR0913, PLR0917
        self, result: str, op: str, operands: list[str], type: str, text: str, predicate: str | None = None
    ) -> None: ...


def _render_node(t: EmitNode, args: list[str], namer: Namer, emit: _Emit) -> str:
    ty = t.type
    if t.op in CORRECTED:
        return _render_corrected(t, args, namer, emit)
    if t.op.startswith(("arith.cmpi ", "arith.cmpf ")):
        op, pred = t.op.split(" ", 1)
        r = namer.temp()
        operand_type = term_type(t.operands[0])
        emit(r, op, args, "i1", f"{op} {pred}, {args[0]}, {args[1]} : {operand_type}", predicate=pred)
        return r
    if t.op in CASTS:
        r = namer.temp()
        src = term_type(t.operands[0])
        emit(r, t.op, args, ty, f"{t.op} {args[0]} : {src} to {ty}")
        return r
    r = namer.temp()
    emit(r, t.op, args, ty, f"{t.op} {', '.join(args)} : {ty}")
    return r


def _render_corrected(t: EmitNode, args: list[str], namer: Namer, emit: _Emit) -> str:
    """The floor-mod correction chains of §7.1, in their exact order."""
    ty = t.type
    a, b = args
    zero = namer.const(0, ty)
    rem = namer.temp()
    emit(rem, "arith.remsi", [a, b], ty, f"arith.remsi {a}, {b} : {ty}")
    if t.op == "floormod.corrected.runtime":
        nz, rn, bn, x, f, s, v = (namer.temp() for _ in range(7))
        emit(nz, "arith.cmpi", [rem, zero], "i1", f"arith.cmpi ne, {rem}, {zero} : {ty}", "ne")
        emit(rn, "arith.cmpi", [rem, zero], "i1", f"arith.cmpi slt, {rem}, {zero} : {ty}", "slt")
        emit(bn, "arith.cmpi", [b, zero], "i1", f"arith.cmpi slt, {b}, {zero} : {ty}", "slt")
        emit(x, "arith.xori", [rn, bn], "i1", f"arith.xori {rn}, {bn} : i1")
        emit(f, "arith.andi", [nz, x], "i1", f"arith.andi {nz}, {x} : i1")
        emit(s, "arith.addi", [rem, b], ty, f"arith.addi {rem}, {b} : {ty}")
        emit(v, "arith.select", [f, s, rem], ty, f"arith.select {f}, {s}, {rem} : {ty}")
        return v
    pred = "slt" if t.op == "floormod.corrected.pos" else "sgt"
    n, s, v = namer.temp(), namer.temp(), namer.temp()
    emit(n, "arith.cmpi", [rem, zero], "i1", f"arith.cmpi {pred}, {rem}, {zero} : {ty}", pred)
    emit(s, "arith.addi", [rem, b], ty, f"arith.addi {rem}, {b} : {ty}")
    emit(v, "arith.select", [n, s, rem], ty, f"arith.select {n}, {s}, {rem} : {ty}")
    return v


# --------------------------------------------------------------------------------------
# terms as matcher values (no names needed)


def to_value(term: EmitTerm, graph: ValueGraph, memo: dict[object, Value] | None = None) -> Value:
    """`term` as a matcher value graph (correction chains expanded), without rendering text.

    Variables become opaque values named `%<name_hint>#<id>`; nodes with a key are shared
    through `memo` (pass the same dict for several terms to model CSE).
    """
    cache: dict[object, Value] = {} if memo is None else memo

    def walk(t: EmitTerm) -> Value:
        if isinstance(t, ir.Var):
            return graph.opaque(f"%{t.name_hint}#{t.id}", t.dtype.mlir)
        if isinstance(t, EmitConst):
            return graph.const(t.value, t.type)
        ident: object = ("key", t.key) if t.key is not None else ("id", id(t))
        if ident in cache:
            return cache[ident]
        args = [walk(o) for o in t.operands]
        value = _node_value(t, args, graph)
        cache[ident] = value
        return value

    return walk(term)


def _node_value(t: EmitNode, args: list[Value], graph: ValueGraph) -> Value:
    ty = t.type
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
    from analysis.matcher import evaluate

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


__all__ = [
    "OPS",
    "Const",
    "EmitConst",
    "EmitNode",
    "EmitTerm",
    "Namer",
    "Op",
    "Opaque",
    "SimpleNamer",
    "ValueRecorder",
    "const_name",
    "describe",
    "evaluate_term",
    "op_count",
    "render",
    "to_value",
]
