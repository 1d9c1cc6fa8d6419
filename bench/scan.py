"""Reads emitted `.pto` text back into the matcher model's value graph.

The benchmark measures what was actually emitted, not what a pass says it emitted: every
`arith` op, `scf.for` header and `pto.multi_tile_get` of a function is read back into an
`slotsat.analysis.matcher.ValueGraph`, so the matcher model (`40-ptoas-slot-matcher.md` §3–§4)
compares the exact SSA values ptoas would see, and `slotsat.analysis.matcher.evaluate` computes
their exact values for the ground truth of the "pairs resolved" metric (§8).

The text grammar is the one `30-pto-codegen.md` §5 fixes: one op per line, constants
`%cV_T = arith.constant V : T`, loops `scf.for %i = LB to UB step ST [iter_args(...)] {`,
regions opened by a line ending in `{` and closed by a line starting with `}`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from slotsat.analysis.matcher import Const, Op, Opaque, Value, ValueGraph

_FUNC = re.compile(r"^\s*func\.func @([\w.$-]+)\((.*)\)")
_CONST = re.compile(r"^\s*(%[\w.$-]+) = arith\.constant (-?\d+) : (\w+)")
_ARITH = re.compile(r"^\s*(%[\w.$-]+) = (arith\.\w+) (.*)$")
_FOR = re.compile(
    r"^\s*(?:(%[\w.$-]+)(?::\d+)? = )?scf\.for (%[\w.$-]+) = (%[\w.$-]+) to (%[\w.$-]+) step (%[\w.$-]+)"
    r"(?: iter_args\((.*?)\))?"
)
_GET = re.compile(r"^\s*(%[\w.$-]+) = pto\.multi_tile_get (%[\w.$-]+)\[(%[\w.$-]+)\]")
_REGION = re.compile(r"^\s*(%[\w.$-]+) = pto\.alloc_multi_tile .*count=(\d+)>\s*$")
_RESULT = re.compile(r"^\s*(%[\w.$-]+)(?::\d+)? = ")
_SSA = re.compile(r"%[\w.$-]+")

FLOORDIV_EXPANSION = 4
"""ptoas expands `arith.floordivsi` into a truncating division and a three-op correction
(`40-ptoas-slot-matcher.md` §7.2), so it counts 4 in `index_ops`."""


@dataclass(frozen=True, slots=True)
class Loop:
    """An `scf.for`: its induction variable and bound values (constants or opaque)."""

    iv: Opaque
    lb: Value
    ub: Value
    step: Value


@dataclass(frozen=True, slots=True)
class Get:
    """One `pto.multi_tile_get`: region, slot count, slot operand, block and enclosing loops."""

    handle: str
    region: str
    count: int
    operand: Value
    block: int
    loops: tuple[Loop, ...]
    index: int
    """The position of the get in the function's emission order."""


@dataclass(slots=True)
class Function:
    """A scanned `func.func`: its arith ops (emission order), gets and value graph."""

    name: str
    graph: ValueGraph
    ops: list[Op] = field(default_factory=list)
    gets: list[Get] = field(default_factory=list)
    loops: list[Loop] = field(default_factory=list)
    args: dict[str, Opaque] = field(default_factory=dict)


class ScanError(ValueError):
    """The text does not follow the emitted grammar."""


@dataclass(slots=True)
class _State:
    fn: Function
    env: dict[str, Value] = field(default_factory=dict)
    blocks: list[int] = field(default_factory=lambda: [0])
    loops: list[tuple[int, Loop]] = field(default_factory=list)
    next_block: int = 1
    regions: dict[str, int] = field(default_factory=dict)
    names: dict[str, int] = field(default_factory=dict)

    def value(self, name: str) -> Value:
        found = self.env.get(name)
        if found is not None:
            return found
        return self.opaque(name)

    def opaque(self, name: str, type: str = "index") -> Opaque:
        # A redefined name (sibling loops reusing %i in hand-written text) gets a fresh identity.
        count = self.names.get(name, 0)
        self.names[name] = count + 1
        value = Opaque(name if count == 0 else f"{name}#{count}", type)
        self.env[name] = value
        return value


def _operands_and_type(rest: str) -> tuple[str | None, list[str], str]:
    """Split `slt, %a, %b : index` or `%a : i32 to index` into (predicate, operands, type)."""
    body, _, typ = rest.rpartition(" : ")
    if not body:
        body, typ = rest, "index"
    if " to " in typ:
        typ = typ.split(" to ")[-1]
    predicate = None
    match = re.match(r"^(eq|ne|slt|sle|sgt|sge|ult|ule|ugt|uge),\s*", body)
    if match is not None:
        predicate = match.group(1)
        body = body[match.end():]
    return predicate, _SSA.findall(body), typ.strip()


def _scan_arith(state: _State, name: str, opname: str, rest: str) -> None:
    predicate, operands, typ = _operands_and_type(rest)
    values = tuple(state.value(o) for o in operands)
    result_type = "i1" if opname == "arith.cmpi" else typ
    try:
        op = Op(opname, values, f"{state.fn.name}:{name}", result_type, predicate)
    except ValueError as err:
        raise ScanError(f"{state.fn.name}: cannot read {name} = {opname} {rest}: {err}") from err
    state.fn.ops.append(op)
    state.env[name] = op


def _scan_line(state: _State, line: str) -> None:
    stripped = line.strip()
    if stripped.startswith("}"):
        state.blocks.pop()
        while state.loops and state.loops[-1][0] > len(state.blocks):
            state.loops.pop()
        if stripped.endswith("{"):  # } else {
            state.blocks.append(state.next_block)
            state.next_block += 1
        return
    if (m := _CONST.match(line)) is not None:
        state.env[m.group(1)] = Const(int(m.group(2)), m.group(3))
    elif (m := _ARITH.match(line)) is not None:
        _scan_arith(state, m.group(1), m.group(2), m.group(3))
    elif (m := _FOR.match(line)) is not None:
        lb, ub, step = (state.value(m.group(k)) for k in (3, 4, 5))
        iv = state.opaque(m.group(2))
        loop = Loop(iv, lb, ub, step)
        state.fn.loops.append(loop)
        if m.group(6):
            for carried in re.findall(r"(%[\w.$-]+)\s*=", m.group(6)):
                state.opaque(carried)
        if m.group(1):
            state.opaque(m.group(1))
        state.loops.append((len(state.blocks) + 1, loop))
    elif (m := _REGION.match(line)) is not None:
        state.regions[m.group(1)] = int(m.group(2))
    elif (m := _GET.match(line)) is not None:
        region = m.group(2)
        if region not in state.regions:
            raise ScanError(f"{state.fn.name}: {m.group(1)} reads {region}, which is not a region")
        state.fn.gets.append(Get(
            m.group(1), region, state.regions[region], state.value(m.group(3)), state.blocks[-1],
            tuple(loop for _, loop in state.loops), len(state.fn.gets),
        ))
        state.env[m.group(1)] = state.opaque(m.group(1))
    elif (m := _RESULT.match(line)) is not None:
        state.opaque(m.group(1))
    if stripped.endswith("{"):
        state.blocks.append(state.next_block)
        state.next_block += 1


def scan_module(text: str) -> list[Function]:
    """Every `func.func` of an emitted `.pto` module, read back into matcher values."""
    functions: list[Function] = []
    state: _State | None = None
    depth_at_func = 0
    for line in text.splitlines():
        m = _FUNC.match(line)
        if m is not None:
            fn = Function(m.group(1), ValueGraph())
            state = _State(fn)
            for arg, typ in re.findall(r"(%[\w.$-]+)\s*:\s*([^,)]+)", m.group(2)):
                fn.args[arg] = state.opaque(arg, _arg_type(typ))
            functions.append(fn)
            depth_at_func = len(state.blocks)
            continue
        if state is None:
            continue
        _scan_line(state, line)
        if len(state.blocks) < depth_at_func:
            state = None
    return functions


def _arg_type(text: str) -> str:
    text = text.strip()
    return text if re.fullmatch(r"index|i\d+", text) else "ptr"


# --------------------------------------------------------------------------------------
# counting


def op_weight(op: Op) -> int:
    """Ops an emitted `arith` op costs after ptoas's expansion (`floordivsi` counts 4)."""
    return FLOORDIV_EXPANSION if op.name == "arith.floordivsi" else 1


def chain_ops(values: list[Value]) -> set[Op]:
    """Every op the given values depend on (their emitted chains, shared ops once)."""
    seen: set[Op] = set()
    stack = list(values)
    while stack:
        v = stack.pop()
        if isinstance(v, Op) and v not in seen:
            seen.add(v)
            stack.extend(v.operands)
    return seen


def is_correction(op: Op) -> bool:
    """A correction chain ends in the `select` of `30-pto-codegen.md` §7.1, or is a `floordivsi`."""
    return op.name in ("arith.select", "arith.floordivsi")


def depends_on(v: Value, iv: Opaque) -> bool:
    """Whether the value `v` reads the induction variable `iv`."""
    stack: list[Value] = [v]
    seen: set[Value] = set()
    while stack:
        x = stack.pop()
        if x == iv:
            return True
        if isinstance(x, Op) and x not in seen:
            seen.add(x)
            stack.extend(x.operands)
    return False


def free_opaques(values: list[Value]) -> set[Opaque]:
    """The opaque leaves the values read."""
    found: set[Opaque] = set()
    stack = list(values)
    seen: set[Value] = set()
    while stack:
        x = stack.pop()
        if x in seen:
            continue
        seen.add(x)
        if isinstance(x, Opaque):
            found.add(x)
        elif isinstance(x, Op):
            stack.extend(x.operands)
    return found
