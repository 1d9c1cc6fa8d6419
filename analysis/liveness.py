"""Live ranges of the tile buffers of one function (`05-decisions.md` item 14).

The facts the reference's MemoryReuse computes (its `LifetimeAnalyzer`), on slotsat's IR,
for the tile buffers pto-codegen emits.

Buffers
-------
Tile variables that name one buffer form a *sharing class* (the rules of
`30-pto-codegen.md` §5.5): a bare copy (`v = t`), the result of an op that updates an
argument in place (`matmul_acc`), a loop carry (initial value, carried variable, yielded
value and loop result) and an `if` result with the values its branches yield. A class
whose first definition (in program order) is a fresh write owns a buffer: it is one tile
handle, one `pto.alloc_tile`. A class whose first definition is a view (`reshape`,
`slice`) owns none: it lives in its source's buffer, and so do its uses.

Program points
--------------
Every statement gets one position, in program order (a loop's and an `if`'s own position
comes before its body; the then branch before the else branch): an assignment defines
its tile there and reads its operands there, a yield or return reads there, a loop reads
its initial values there, an `if` defines its tile results there (codegen allocates them
before the `scf.if`). Positions number program points, not time: the two branches of an
`if` are numbered one after the other although only one runs, which is safe (a tile
defined before the `if` and last read in the then branch is dead on the else path).

Live ranges (the reference's rules)
-----------------------------------
- A variable is live from its definition to its last read (a variable never read is live
  at its definition only).
- Loop extension: a variable defined before a loop and read inside it stays live to the
  loop's last position, because the next iteration reads it again. A loop-carried value
  is read by the loop (its initial value), so a carry's buffer is live across the whole
  loop; a replicated loop's clones are ordinary statements, so each clone's tiles are live
  where that clone reads them.
- A buffer is live from its owning class's first definition to the last point any
  variable in it (class members, views, classes living in it) is live.
- Two ranges overlap unless one ends where (or before) the other starts: within one
  statement the operands are read before the result is written, so a result may take the
  buffer of an operand read there for the last time (whether the op allows that is the
  allocator's question, `lowering/memory_reuse.py`).

Complexity: one walk, then O(N · D) for the loop extension (D the loop nesting depth at a
variable's last read). Sharing classes are a networkx `UnionFind`.

Related: `lowering/memory_reuse.py` (the PYPTO planner's placement and the declared-slot
check), `lowering/pto_codegen.py` (which allocates one buffer per owning class).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from networkx.utils import UnionFind

from slotsat.core import ir, ops
from slotsat.core.errors import NO_SPAN, Span

Membership = tuple[tuple[int, int], ...]
"""`pipeline_membership` pairs `(group, stage)` of a replicated clone's tile."""


def parse_membership(value: object) -> Membership:
    """`"0:1;2:0"` -> `((0, 1), (2, 0))`; a malformed pair is skipped, as the reference does."""
    if not isinstance(value, str):
        return ()
    out: list[tuple[int, int]] = []
    for token in value.split(";"):
        group, sep, stage = token.partition(":")
        if sep and group.strip().lstrip("-").isdigit() and stage.strip().lstrip("-").isdigit():
            out.append((int(group), int(stage)))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Buffer:
    """One tile buffer: an owning sharing class and everything that lives in it."""

    index: int
    owner: ir.Var
    """The class's first definition: the tile codegen allocates the buffer for."""
    members: tuple[ir.Var, ...]
    """Every variable that names this buffer (class members, views, aliasing classes)."""
    start: int
    end: int
    producer: str | None
    """The op that writes the owner (None for an `if` result)."""
    membership: Membership
    """The first `pipeline_membership` among the members' defining calls."""

    @property
    def tile(self) -> ir.TileType:
        t = self.owner.type
        assert isinstance(t, ir.TileType)
        return t

    def overlaps(self, other: Buffer) -> bool:
        """The reference's `LifetimesOverlap`: touching ranges do not overlap."""
        return not (self.end <= other.start or other.end <= self.start)


@dataclass
class Liveness:
    """The buffers of one function and the program points they are live at."""

    points: list[Span] = field(default_factory=list)
    """The span of the statement at each position."""
    classes: UnionFind = field(default_factory=UnionFind)
    """Sharing classes over tile variable ids (`find(id)` gives the class key)."""
    buffers: list[Buffer] = field(default_factory=list)
    """Owned buffers, in order of their start."""
    buffer_of: dict[int, int] = field(default_factory=dict)
    """Tile variable id -> index of the buffer it names."""
    positions: dict[int, int] = field(default_factory=dict)
    """`id(stmt)` -> the statement's position."""
    defined: dict[int, int] = field(default_factory=dict)
    """Tile variable id -> the position of its definition."""
    live: dict[int, tuple[int, int]] = field(default_factory=dict)
    """Tile variable id -> its own live range `(definition, last read)`, loop-extended."""
    views: dict[int, int] = field(default_factory=dict)
    """View variable id -> the id of the tile it views (a view writes no buffer; a view op
    that updates its source is a class member instead, `ops.writes_source`)."""

    def find(self, vid: int) -> int:
        """The sharing-class key of a tile variable (itself when it shares with nothing)."""
        key: int = self.classes[vid]
        return key

    def buffer(self, v: ir.Var) -> Buffer | None:
        k = self.buffer_of.get(v.id)
        return None if k is None else self.buffers[k]

    def line(self, position: int) -> int:
        span = self.points[position] if 0 <= position < len(self.points) else NO_SPAN
        return span.line

    def live_at(self, position: int) -> Iterator[Buffer]:
        """Buffers live across `position` (including those defined or last read there)."""
        for b in self.buffers:
            if b.start <= position <= b.end:
                yield b


# --------------------------------------------------------------------------------------
# the walk


def _is_tile(v: object) -> bool:
    return isinstance(v, ir.Var) and isinstance(v.type, ir.TileType)


@dataclass
class _Walk:
    out: Liveness
    reads: dict[int, int] = field(default_factory=dict)
    """Tile variable id -> its last read (raw, without loop extension)."""
    enclosing: dict[int, tuple[int, ...]] = field(default_factory=dict)
    """Position -> the loops around it (indices into `scopes`), outermost first."""
    scopes: list[tuple[int, int]] = field(default_factory=list)
    """Each loop's `(first, last)` position: its own position through its body's end."""
    views: dict[int, int] = field(default_factory=dict)
    """View variable id -> the id of the tile it views."""
    writes: dict[int, tuple[str | None, object]] = field(default_factory=dict)
    """Tile variable id -> (defining op, its `pipeline_membership`) for assignments."""
    variables: dict[int, ir.Var] = field(default_factory=dict)
    loops: list[int] = field(default_factory=list)

    def point(self, span: Span, stmt: ir.Stmt) -> int:
        p = len(self.out.points)
        self.out.points.append(span)
        self.out.positions[id(stmt)] = p
        self.enclosing[p] = tuple(self.loops)
        return p

    def define(self, v: ir.Var, p: int) -> None:
        if _is_tile(v):
            self.variables[v.id] = v
            self.out.defined.setdefault(v.id, p)
            self.out.classes[v.id]

    def read(self, e: ir.Expr | ir.CallArg | ir.Call, p: int) -> None:
        for v in ir.expr_vars(e):
            if _is_tile(v):
                self.reads[v.id] = max(self.reads.get(v.id, p), p)

    def union(self, a: ir.Var, b: object) -> None:
        if _is_tile(b):
            assert isinstance(b, ir.Var)
            self.out.classes.union(a.id, b.id)

    def body(self, b: ir.SeqStmts) -> None:
        for s in b.stmts:
            self.stmt(s)

    def stmt(self, s: ir.Stmt) -> None:
        if isinstance(s, ir.AssignStmt):
            p = self.point(s.span, s)
            self.read(s.value, p)
            self.define(s.var, p)
            if _is_tile(s.var):
                self.assign(s, p)
        elif isinstance(s, ir.EvalStmt):
            self.read(s.call, self.point(s.span, s))
        elif isinstance(s, ir.YieldStmt | ir.ReturnStmt):
            p = self.point(s.span, s)
            for e in s.values:
                self.read(e, p)
        elif isinstance(s, ir.ForStmt | ir.WhileStmt):
            self.loop(s)  # a while loop's condition reads scalars only
        elif isinstance(s, ir.IfStmt):
            p = self.point(s.span, s)
            self.read(s.cond, p)
            for r in s.return_vars:
                self.define(r, p)
            for k, r in enumerate(s.return_vars):
                if not _is_tile(r):
                    continue
                for branch in (s.then_body, s.else_body):
                    last = branch.stmts[-1] if branch is not None and branch.stmts else None
                    if isinstance(last, ir.YieldStmt) and k < len(last.values):
                        self.union(r, last.values[k])
            self.body(s.then_body)
            if s.else_body is not None:
                self.body(s.else_body)

    def assign(self, s: ir.AssignStmt, p: int) -> None:
        value = s.value
        if isinstance(value, ir.Var):
            self.union(s.var, value)
            return
        if not isinstance(value, ir.Call):
            return
        self.writes[s.var.id] = (value.op, value.attr(ir.PIPELINE_MEMBERSHIP))
        buffer, inherited = ops.buffer_of(value.op)  # the reference's facts, for every op
        if inherited is None or inherited >= len(value.args):
            return
        src = value.args[inherited]
        if not _is_tile(src):
            return
        assert isinstance(src, ir.Var)
        if ops.writes_source(value.op):
            # an in-place result, or a view that updates what it views (`assemble` writes a
            # window of it, `set_validshape` its valid extent), is the source's buffer itself
            self.union(s.var, src)
        elif buffer is ops.Buffer.VIEW:
            self.views[s.var.id] = src.id

    def loop(self, s: ir.ForStmt | ir.WhileStmt) -> None:
        p = self.point(s.span, s)
        for it in s.iter_args:
            self.read(it.init, p)
            self.define(it.var, p)
        for r in s.return_vars:
            self.define(r, p)
        last = s.body.stmts[-1] if s.body.stmts else None
        yielded = last.values if isinstance(last, ir.YieldStmt) else ()
        for k, it in enumerate(s.iter_args):
            if not _is_tile(it.var):
                continue
            self.union(it.var, it.init)
            if k < len(yielded):
                self.union(it.var, yielded[k])
            if k < len(s.return_vars):
                self.union(it.var, s.return_vars[k])
        index = len(self.scopes)
        self.scopes.append((p, p))
        self.loops.append(index)
        self.body(s.body)
        self.loops.pop()
        self.scopes[index] = (p, len(self.out.points) - 1)


def _extended(walk: _Walk, vid: int) -> tuple[int, int]:
    """A variable's live range with the loop extension (see the module docstring)."""
    d = walk.out.defined[vid]
    r = max(walk.reads.get(vid, d), d)
    # the outermost loop around the last read that starts after the definition; a carried
    # variable is defined at its own loop's position, so that loop does not extend it (its
    # class is extended through the initial value, read by the loop)
    for index in walk.enclosing.get(r, ()):
        start, end = walk.scopes[index]
        if start > d:
            return d, max(r, end)
    return d, r


def liveness(fn: ir.Function) -> Liveness:
    """The sharing classes, buffers and live ranges of `fn` (see the module docstring)."""
    walk = _Walk(Liveness())
    walk.body(fn.body)
    out = walk.out
    out.views = dict(walk.views)
    for vid in out.defined:
        out.live[vid] = _extended(walk, vid)
    members: dict[int, list[int]] = {}
    for vid in out.defined:
        members.setdefault(out.find(vid), []).append(vid)
    order = sorted(members, key=lambda key: min(out.defined[v] for v in members[key]))
    owner_of: dict[int, int] = {}
    for key in order:
        owner_of[key] = min(members[key], key=lambda v: (out.defined[v], v))
    home: dict[int, int] = {}

    def home_class(key: int) -> int:
        """The class whose buffer `key`'s class lives in (itself when it owns one): the end
        of its chain of views, at most `len(order)` steps. A loop, not a recursion: a
        recursive closure holds itself, so the walk would stay in a cycle after the call."""
        chain: list[int] = []
        while True:
            if key in home:
                result = home[key]
                break
            chain.append(key)
            src = walk.views.get(owner_of[key])
            if src is None or src not in out.defined or len(chain) > len(order):
                result = key
                break
            key = out.find(src)
        for k in chain:
            home[k] = result
        return result

    grouped: dict[int, list[int]] = {}
    for key in order:
        grouped.setdefault(home_class(key), []).extend(members[key])
    for key in order:
        if key not in grouped:
            continue
        vids = sorted(grouped[key], key=lambda v: (out.defined[v], v))
        owner = walk.variables[owner_of[key]]
        start = out.defined[owner.id]
        end = max(out.live[v][1] for v in vids)
        producer, _ = walk.writes.get(owner.id, (None, None))
        membership: Membership = ()
        for v in vids:
            found = parse_membership(walk.writes.get(v, (None, None))[1])
            if found:
                membership = found
                break
        index = len(out.buffers)
        out.buffers.append(
            Buffer(index, owner, tuple(walk.variables[v] for v in vids), start, end, producer, membership)
        )
        for v in vids:
            out.buffer_of[v] = index
    return out
