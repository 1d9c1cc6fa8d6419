"""Rendering emitted index terms into MLIR `arith` lines (`30-pto-codegen.md` §5.3, §5.7,
§7.1).

The terms and their costs are `slotsat.egraph_rules.costs`; extraction chooses them.
`render(term, namer)` returns the lines and the SSA name of the result, in the **exact**
order of §7.1. The namer (protocol `Namer`) owns constant names (`%c24_index`,
`%cn3_index`), numbered temporaries (`%0`, `%1`, ...), the names of IR variables, and the
memo of already-emitted e-classes (scoped by the caller). With a `ValueRecorder`, every
rendered op is also recorded in the matcher model's `ValueGraph`
(`slotsat.analysis.matcher`), so the emitted slot chain can be classified and compared.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Protocol

from slotsat.analysis.matcher import Value, ValueGraph
from slotsat.core import ir
from slotsat.egraph_rules.costs import (
    CASTS,
    CORRECTED,
    EmitConst,
    EmitNode,
    EmitTerm,
    signless,
    signless_type,
    term_type,
)
from slotsat.egraph_rules.scope import ScopedMemo

# --------------------------------------------------------------------------------------
# rendering


class Namer(Protocol):
    """What `render` needs from the emitter."""

    def const(self, value: int, mlir_type: str) -> str: ...

    def temp(self) -> str: ...

    def value(self, var: ir.Var) -> str: ...

    def lookup(self, key: Hashable) -> str | None: ...

    def remember(self, key: Hashable, name: str) -> None: ...


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
                self.values[name] = self.graph.opaque(name, signless_type(term_type(t)))
        return self.values[name]

    def op(self, result: str, op: str, operands: list[str], type: str, predicate: str | None = None) -> None:
        vals = [self.values[o] for o in operands]
        self.values[result] = self.graph.op(op, *vals, type=type, predicate=predicate)


def render(
    term: EmitTerm, namer: Namer, recorder: ValueRecorder | None = None, *, signless_types: bool = False
) -> tuple[list[str], str]:
    """The `arith` lines computing `term` (exact §7.1 order) and the SSA name of its value.

    With `signless_types` (codegen: `arith` takes signless integers), unsigned types are
    spelled signless (`ui8` as `i8`) and a cast that becomes a no-op is dropped; the ops
    (`remui`, `extui`, ...) carry the signedness."""
    spell = signless_type if signless_types else _same
    if signless_types:
        term = signless(term)
    walk = _Render(namer, recorder, spell)
    result = walk.term(term)
    return walk.lines, result


class _Render:
    """One `render` call. A class, not recursive closures: a closure that calls itself holds
    itself (and with it the namer, the recorder and so the emitter) in a cycle."""

    __slots__ = ("lines", "namer", "recorder", "spell")

    def __init__(self, namer: Namer, recorder: ValueRecorder | None, spell: Callable[[str], str]) -> None:
        self.lines: list[str] = []
        self.namer = namer
        self.recorder = recorder
        self.spell = spell

    def emit(  # noqa: PLR0913, PLR0917
        self, result: str, op: str, operands: list[str], type: str, text: str, predicate: str | None = None
    ) -> None:
        self.lines.append(f"{result} = {text}")
        if self.recorder is not None:
            self.recorder.op(result, op, operands, type, predicate)

    def term(self, t: EmitTerm) -> str:
        namer, recorder = self.namer, self.recorder
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
        args = [self.term(o) for o in t.operands]
        result = _render_node(t, args, namer, self.emit, self.spell)
        if t.key is not None:
            namer.remember(t.key, result)
        return result


class _Emit(Protocol):
    def __call__(  # noqa: PLR0913, PLR0917
        self, result: str, op: str, operands: list[str], type: str, text: str, predicate: str | None = None
    ) -> None: ...


def _same(t: str) -> str:
    return t


def _render_node(t: EmitNode, args: list[str], namer: Namer, emit: _Emit, spell: Callable[[str], str]) -> str:
    ty = t.type
    if t.op in CORRECTED:
        return _render_corrected(t, args, namer, emit)
    if t.op.startswith(("arith.cmpi ", "arith.cmpf ")):
        op, pred = t.op.split(" ", 1)
        r = namer.temp()
        operand_type = spell(term_type(t.operands[0]))
        emit(r, op, args, "i1", f"{op} {pred}, {args[0]}, {args[1]} : {operand_type}", predicate=pred)
        return r
    if t.op in CASTS:
        r = namer.temp()
        src = spell(term_type(t.operands[0]))
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
