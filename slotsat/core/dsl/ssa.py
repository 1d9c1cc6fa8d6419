"""SSA conversion of kernel source, done while parsing (`05-decisions.md` item 11).

Kernels as people write them rebind names: `acc = pl.add(acc, t)` in a loop, two sibling
`for i in pl.range(...)` loops, a name reassigned in one branch of an `if`. The parser
(`slotsat.core.dsl.parser`) turns such source into SSA IR the way the reference's
ConvertToSSA pass does (PyPTO `src/ir/transforms/convert_to_ssa_pass.cpp`), in one walk:
it keeps an environment from names to their current binding and creates loop-carried
values and `if` results where the reference creates them. This module holds that
machinery; the parser calls it. The rules (pinned by `tests/dsl/test_ssa.py`):

Bindings
    Every binding of a name (parameter, assignment, loop variable, carried value, loop or
    `if` result) is a fresh binder, and a use resolves to the binding in scope. The first
    binding of a name in a function keeps the author's name as its hint; each later one is
    hinted `NAME_<n>` with the smallest `n >= 1` that names nothing in the function's
    source and was not handed out before (`Names`). So the printer (`10-dsl.md` §9.4)
    prints the hints unchanged, and a name that arrives already suffixed (`t__ssa_v0`,
    printed by the reference) stays as it is. A rebinding by assignment keeps the name's
    type (the reference's rule, with its wording: "Cannot reassign 'x' with a different
    type: was T, got U"); shape, dtype and memory space count, MemRefs and valid shapes do
    not.

Loops (the reference's "loop-carried" rule)
    A loop carries every name its body may rebind (assignments, nested loops' and ifs'
    results, nested loop variables; `Analysis.loop_binds`) that is bound when the loop
    starts, other than its own loop variable and carried names: one carried value each,
    sorted by name, after the author's `init_values`, initialised with the binding before
    the loop and yielded with the binding at the end of the body; its result rebinds the
    name after the loop. A while loop (`while COND:`, or the printed `for (a,) in
    pl.while_(...)` with `pl.cond(COND)`) follows the same rules, and its condition reads the
    carried values (the reference's ConvertWhile). A `with pl.scope():` body is no scope for
    names: it binds in the block around it.

Escaping names (the reference's "escaping" rule)
    A name first bound inside a loop and read after it (before being rebound:
    `Analysis.needs_after`, order-aware as the reference's live-in analysis) is carried
    too, after the others. Its initial value is the first output parameter (`pl.Out`)
    whose current binding has the same type, as the reference's FindInitValue prefers;
    without one it is an error (the loop may run zero times; the reference would leave a
    free variable there). Its type is the type its body gives it, so its binder is created
    lazily (`Carry`): at the first `if` merge that needs it as the value of a branch that
    does not rebind it, or at the end of the loop.

Ifs (the reference's phi rule)
    An `if` gets one result per name that a branch rebinds (and per name new in both
    branches), sorted by name, ahead of the author's explicit `pl.yield_` results; a
    branch that leaves the name alone yields its value before the `if`, and an `if`
    without `else` gets an `else` branch that only yields those values. (The reference
    mishandles an `if` with both explicit yields and such results, and a yield target
    that rebinds a name inside a loop; both follow Python's rebinding semantics here.)

No value
    After a loop its loop variable and its own carried names have no value, nor does a
    name bound only inside the loop and not read after it; after an `if` a name bound in
    one branch only has none. A use is an error that says why (`Unbound`), where Python
    would use the value of the last iteration or the branch taken and the reference would
    leave a free variable.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from slotsat.core import ir
from slotsat.core.errors import Span


@dataclass(eq=False)
class Unbound:
    """A name with no value at this point; `reason` completes "'NAME' is not defined here
    (REASON)"."""

    reason: str

    def message(self, name: str) -> str:
        return f"'{name}' is not defined here ({self.reason})"


@dataclass(eq=False)
class Carry:
    """A loop-carried value whose binder is created when its type is known.

    `outer` is the binding before the loop when that is itself a `Carry` of an enclosing
    loop (the name is carried through nested loops); `None` for an escaping name, whose
    initial value is found when the binder is made."""

    name: str
    hint: str
    loop: Span
    outer: Carry | None
    var: ir.Var | None = None
    init: ir.Expr | None = None


@dataclass(eq=False)
class Built(Unbound):
    """A tuple built from values (the reference's MakeTuple, printed `NAME: pl.Tuple[...] =
    [a, b]`), which slotsat's IR does not hold: the name has no value of its own, and `NAME[K]`
    reads the K-th value. `scope` is the block that built it: a read from outside it (after a
    loop, an if or a scope whose body built it) is an error, not a read of values bound in a
    block that has ended."""

    values: tuple[ir.Expr, ...]
    scope: Scope


Binding = ir.Var | Carry | Unbound


class Scope:
    """The bindings in scope: this block's own (re)bindings (`local`) over the enclosing
    block's. A loop body or `if` branch is a child scope; what a statement changes is
    merged into the scope it stands in, so a merge looks only at the names a block bound,
    and entering a block copies nothing."""

    __slots__ = ("local", "parent")

    def __init__(self, parent: Scope | None = None) -> None:
        self.parent = parent
        self.local: dict[str, Binding] = {}

    def get(self, name: str) -> Binding | None:
        scope: Scope | None = self
        while scope is not None:
            b = scope.local.get(name)
            if b is not None:
                return b
            scope = scope.parent
        return None

    def __getitem__(self, name: str) -> Binding:
        b = self.get(name)
        if b is None:
            raise KeyError(name)
        return b

    def __setitem__(self, name: str, b: Binding) -> None:
        self.local[name] = b

    def child(self) -> Scope:
        return Scope(self)

    def within(self, scope: Scope) -> bool:
        """Whether `scope` is this scope or one it is nested in."""
        at: Scope | None = self
        while at is not None:
            if at is scope:
                return True
            at = at.parent
        return False


def is_live(b: Binding | None) -> bool:
    """Bound here (the reference's "defined before" test): a binder or a carried value."""
    return isinstance(b, ir.Var | Carry)


def same_type(a: ir.Type, b: ir.Type) -> bool:
    """The reference's rebinding type test: kind, shape, dtype, and the memory space when
    both give one (MemRefs, valid shapes and `pl.Out` do not count)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, ir.TileType):
        assert isinstance(b, ir.TileType)
        if a.memory_space is not None and b.memory_space is not None and a.memory_space != b.memory_space:
            return False
        return a.shape == b.shape and a.dtype == b.dtype
    if isinstance(a, ir.TensorType):
        assert isinstance(b, ir.TensorType)
        return a.shape == b.shape and a.dtype == b.dtype
    if isinstance(a, ir.ScalarType):
        assert isinstance(b, ir.ScalarType)
        return a.dtype == b.dtype
    return True


# --------------------------------------------------------------------------------------
# names


class Names:
    """Binder hints for one function: the first binding of a name keeps it, each later one
    gets `NAME_<n>` (smallest `n >= 1` not in `taken` and not handed out)."""

    def __init__(self, taken: Iterable[str]) -> None:
        self.taken: set[str] = set(taken)
        self.seen: set[str] = set()
        self.next: dict[str, int] = {}

    def hint(self, name: str) -> str:
        if name not in self.seen:
            self.seen.add(name)
            self.taken.add(name)
            return name
        n = self.next.get(name, 1)
        while f"{name}_{n}" in self.taken:
            n += 1
        self.next[name] = n + 1
        fresh = f"{name}_{n}"
        self.taken.add(fresh)
        return fresh


def function_names(node: ast.FunctionDef) -> set[str]:
    """Every name the function's source binds (parameters, assignment and loop targets)."""
    names = {"pl", "self"}
    names.update(a.arg for a in node.args.args)
    stack: list[ast.AST] = [node]
    while stack:
        sub = stack.pop()
        if type(sub) is ast.Name:
            if type(sub.ctx) is ast.Store:
                names.add(sub.id)
            continue
        stack.extend(children(sub))
    return names


def children(node: ast.AST) -> list[ast.AST]:
    """A node's child nodes (`ast.iter_child_nodes`, without its generator's cost)."""
    out: list[ast.AST] = []
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            if name != "ctx":
                out.append(value)
        elif isinstance(value, list):
            out.extend(v for v in value if isinstance(v, ast.AST))
    return out


# --------------------------------------------------------------------------------------
# analyses of the source (names, not binders: a name is one Python variable)


def _is_yield(node: ast.stmt) -> bool:
    value = node.value if isinstance(node, ast.Assign | ast.AnnAssign | ast.Expr) else None
    return (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
            and value.func.attr == "yield_" and isinstance(value.func.value, ast.Name)
            and value.func.value.id == "pl")


def _targets(node: ast.stmt) -> list[str]:
    """The names an assignment statement binds."""
    exprs: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        exprs = list(node.targets)
    elif isinstance(node, ast.AnnAssign):
        exprs = [node.target]
    out: list[str] = []
    stack = list(exprs)
    while stack:
        e = stack.pop()
        if isinstance(e, ast.Name):
            out.append(e.id)
        elif isinstance(e, ast.Tuple | ast.List | ast.Starred):
            stack.extend(e.elts if isinstance(e, ast.Tuple | ast.List) else [e.value])
    return out


def loop_targets(node: ast.For) -> list[str]:
    """The loop variable and carried names a loop header binds."""
    out: list[str] = []
    stack: list[ast.expr] = [node.target]
    while stack:
        e = stack.pop()
        if isinstance(e, ast.Name):
            out.append(e.id)
        elif isinstance(e, ast.Tuple | ast.List):
            stack.extend(e.elts)
    return out


def _reads(node: ast.AST | None) -> set[str]:
    """Names an expression (or a simple statement) reads."""
    out: set[str] = set()
    stack: list[ast.AST] = [] if node is None else [node]
    while stack:
        sub = stack.pop()
        if type(sub) is ast.Name:
            if type(sub.ctx) is ast.Load:
                out.add(sub.id)
            continue
        stack.extend(children(sub))
    return out


def _annotation_reads(node: ast.expr | None) -> set[str]:
    """Names a type annotation reads: a declaration named in a tile annotation's MemRef
    position (`PP`, `PP[i % 2]`) is not a kernel variable, its index is."""
    if node is None:
        return set()
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and (
            node.value.attr == "Tile"):
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        out: set[str] = set()
        for item in items:
            if isinstance(item, ast.Name):
                continue
            if isinstance(item, ast.Subscript) and isinstance(item.value, ast.Name):
                out |= _reads(item.slice)
                continue
            out |= _reads(item)
        return out
    if isinstance(node, ast.Subscript):
        return _annotation_reads(node.slice) | _annotation_reads(node.value)
    if isinstance(node, ast.Tuple | ast.List):
        out = set()
        for elt in node.elts:
            out |= _annotation_reads(elt)
        return out
    return _reads(node)


class Analysis:
    """Order-aware live-in and binding sets of statements, memoized per AST node (each
    node is analysed once however deep it is nested)."""

    def __init__(self) -> None:
        self._live: dict[int, frozenset[str]] = {}
        self._assigns: dict[int, frozenset[str]] = {}
        self._binds: dict[int, frozenset[str]] = {}

    def assigns(self, node: ast.stmt) -> frozenset[str]:
        """Names assigned anywhere in a statement (the reference's `var_assign_defs`:
        assignment and yield targets, not loop targets)."""
        key = id(node)
        got = self._assigns.get(key)
        if got is None:
            names: set[str] = set(_targets(node))
            for body in _bodies(node):
                for s in body:
                    names |= self.assigns(s)
            got = self._assigns[key] = frozenset(names)
        return got

    def binds(self, node: ast.stmt) -> frozenset[str]:
        """Names a statement may rebind in the enclosing scope: assignment and yield targets
        and loop targets anywhere inside it."""
        key = id(node)
        got = self._binds.get(key)
        if got is None:
            names = set(_targets(node))
            if isinstance(node, ast.For):
                names.update(loop_targets(node))
            for body in _bodies(node):
                for s in body:
                    names |= self.binds(s)
            got = self._binds[key] = frozenset(names)
        return got

    def loop_binds(self, node: ast.For | ast.While) -> frozenset[str]:
        """Names a loop's body may rebind, without the body's own final `pl.yield_` (its
        targets are the loop's results, bound after the loop; the reference prints it as the
        last statement of a `with pl.scope():` that is the whole body, too)."""
        body = [s for s in node.body if not isinstance(s, ast.Pass)]
        names: set[str] = set()
        if body and _is_yield(body[-1]):
            body = body[:-1]
        elif body and isinstance(body[-1], ast.With):
            inner = [s for s in body[-1].body if not isinstance(s, ast.Pass)]
            if inner and _is_yield(inner[-1]):
                body = body[:-1]
                for s in inner[:-1]:
                    names |= self.binds(s)
        for s in body:
            names |= self.binds(s)
        return frozenset(names)

    def live_in(self, node: ast.stmt) -> frozenset[str]:
        """Names a statement reads from before it."""
        key = id(node)
        got = self._live.get(key)
        if got is not None:
            return got
        names: set[str]
        if isinstance(node, ast.For):
            names = _reads(node.iter) | (self.seq_live_in(node.body) - set(loop_targets(node)))
        elif isinstance(node, ast.While):
            names = _reads(node.test) | self.seq_live_in(node.body)
        elif isinstance(node, ast.With):
            names = set().union(*(_reads(item) for item in node.items)) | self.seq_live_in(node.body)
        elif isinstance(node, ast.If):
            names = _reads(node.test) | self.seq_live_in(node.body) | self.seq_live_in(node.orelse)
        elif isinstance(node, ast.AnnAssign):
            names = _reads(node.value) | _annotation_reads(node.annotation)
        elif isinstance(node, ast.Assign):
            names = _reads(node.value)
        else:
            names = _reads(node)
        got = self._live[key] = frozenset(names)
        return got

    def seq_live_in(self, stmts: Sequence[ast.stmt]) -> set[str]:
        defined: set[str] = set()
        live: set[str] = set()
        for s in stmts:
            live |= self.live_in(s) - defined
            defined |= self.assigns(s)
        return live

    def needs_after(self, stmts: Sequence[ast.stmt], after: Iterable[str] = ()) -> dict[int, frozenset[str]]:
        """For each loop and `with` scope of `stmts` (keyed by `id`), the names the statements
        after it read before rebinding them (plus `after`, what follows the list). Only the
        statements from the first of them on are analysed."""
        first = next((k for k, s in enumerate(stmts) if isinstance(s, _NEEDS_AFTER)), len(stmts))
        needs = set(after)
        out: dict[int, frozenset[str]] = {}
        for s in reversed(stmts[first:]):
            if isinstance(s, _NEEDS_AFTER):
                out[id(s)] = frozenset(needs)
            needs -= self.assigns(s)
            needs |= self.live_in(s)
        return out


class Needs:
    """The names read after each loop of one statement list (`Analysis.needs_after`),
    computed the first time a loop asks."""

    def __init__(self, analysis: Analysis, stmts: Sequence[ast.stmt], after: Iterable[str]) -> None:
        self.analysis = analysis
        self.stmts = stmts
        self.after = after
        self.table: dict[int, frozenset[str]] | None = None

    def of(self, loop: ast.For | ast.While | ast.With) -> frozenset[str]:
        if self.table is None:
            self.table = self.analysis.needs_after(self.stmts, self.after)
        return self.table[id(loop)]


_NEEDS_AFTER = (ast.For, ast.While, ast.With)
"""The statements whose following reads `Analysis.needs_after` records: loops (the escaping
rule) and `with pl.scope():`, whose body binds in the enclosing scope."""


def _bodies(node: ast.stmt) -> tuple[list[ast.stmt], ...]:
    if isinstance(node, ast.For | ast.While | ast.With):
        return (node.body,)
    if isinstance(node, ast.If):
        return (node.body, node.orelse)
    return ()


def statement_reads(node: ast.stmt) -> frozenset[str]:
    """Names one (return) statement reads."""
    return frozenset(_reads(node))
