"""Region planning and the blockers B1–B9 (`30-pto-codegen.md` §3, §4), and tile type strings (§5.2).

Overview
--------
Under the `PTOAS` planner every multi-slot allocation becomes one ptoas multi-buffer region
(`pto.alloc_multi_tile` in the function head, one `pto.multi_tile_get` per slotted tile),
or the compilation fails: there is no fallback to per-slot `alloc_tile`s, because ptoas
would then be free to place the slots on top of each other. Under `PYPTO` there are no
regions at all (codegen bakes every slot's address).

Discovery (§3.3): pass 1 walks the assignment-defined tiles that carry a MemRef, in program
order, and makes every allocation with more than one slot a candidate; the first tile that
selects a slot is the *reference tile* (its type string and static valid extents become the
region's geometry). Pass 2 checks every tile of every candidate, in program order, against
B1 to B9 in order; the first failure is the allocation's blocker. The first blocked
allocation in discovery order is the error.

| # | Blocked when | Why |
| --- | --- | --- |
| B1 | a tile binds the allocation without a slot index | a region is only reachable slot by slot |
| B2 | slot counts differ (defensive; init-memref rejects it) | one region, one count |
| B3 | more than 16 slots | ptoas's type verifier |
| B4 | type strings differ | ptoas slots are uniform |
| B5 | a runtime valid extent | a region declares one static extent |
| B6 | different static valid extents | as B5 |
| B7 | not `Vec`, `Mat` or `Acc` | ptoas multi-buffer covers those spaces only |
| B8 | the tile (or an alias) is carried out of an `if` or a loop as a phi | the carry re-homes the slot |
| B9 | two slots live at once inside one loop body | ptoas guards only the first slot of an iteration |

Related: `lowering/init_memref.py` (geometry and declaration errors),
`lowering/pto_codegen.py` (which consumes the region records).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from slotsat.analysis.alias import alias_facts
from slotsat.core import ir
from slotsat.core.errors import NO_SPAN, PassError, Span

MAX_REGION_SLOTS = 16

# --------------------------------------------------------------------------------------
# type strings (§5.2, `10-dsl.md` §3.3)

PAD_VALUES: dict[str, int] = {"null": 0, "zero": 1, "max": 2, "min": 3}
"""`pl.PadValue` members and the number ptoas's `pad=` key takes (the reference's enum order)."""
COMPACT_MODES: dict[str, int] = {"null": 0, "normal": 1}
"""`pl.CompactMode` members and the number of ptoas's `compact=` key (printed when not 0)."""


def layout_of(tile: ir.TileType) -> tuple[str, str, int]:
    """(`blayout`, `slayout`, `fractal`): the explicit `pl.TileView` fields where the tile has
    them (the reference prints a field only where it differs from the implicit layout), the
    implicit layout elsewhere."""
    blayout, slayout, fractal = ir.implicit_layout(tile)
    view = tile.layout
    if view is None:
        return blayout, slayout, fractal
    return (view.blayout or blayout, view.slayout or slayout,
            view.fractal if view.fractal is not None else fractal)


def pad_and_compact(tile: ir.TileType) -> tuple[int, int]:
    """ptoas's `pad=` and `compact=` numbers of the tile (0 and 0 unless its view sets them)."""
    view = tile.layout
    if view is None:
        return 0, 0
    return PAD_VALUES[view.pad or "null"], COMPACT_MODES[view.compact or "null"]


def loc_of(tile: ir.TileType) -> str:
    space = tile.memory_space if tile.memory_space is not None else ir.MemorySpace.Vec
    return space.loc


def tile_type_string(tile: ir.TileType, valid: tuple[int | None, int | None] = (None, None),
                     dims: tuple[int, int] | None = None) -> str:
    """`!pto.tile_buf<loc=..., dtype=..., rows=R, cols=C, v_row=?, v_col=?, ...>` **(exact)**.

    The valid extent is `?` (a buffer gets it from `pto.alloc_tile`'s operands); a view op,
    which takes no such operands, passes its static `valid` extent per dimension (None: `?`).
    `dims` replaces the rows and columns and keeps the tile's layout (a window of the tile
    typed as the reference types it: the tile's type info with other dimensions)."""
    rows, cols = tile.rows_cols if dims is None else dims
    blayout, slayout, fractal = layout_of(tile)
    pad, compact = pad_and_compact(tile)
    tail = f", compact={compact}" if compact else ""
    v_row, v_col = ("?" if v is None else str(v) for v in valid)
    return (
        f"!pto.tile_buf<loc={loc_of(tile)}, dtype={tile.dtype.mlir}, rows={rows}, cols={cols}, "
        f"v_row={v_row}, v_col={v_col}, blayout={blayout}, slayout={slayout}, fractal={fractal}, "
        f"pad={pad}{tail}>"
    )


def multi_tile_type_string(slot_type: str, count: int) -> str:
    """`!pto.multi_tile_buf<SLOT, count=N>`; a count outside [2, 16] is an internal error."""
    if not 2 <= count <= MAX_REGION_SLOTS:
        raise AssertionError(f"internal error: a region with {count} slots reached emission")
    return f"!pto.multi_tile_buf<{slot_type}, count={count}>"


def valid_extents(tile: ir.TileType) -> tuple[ir.Expr, ir.Expr]:
    """(valid rows, valid cols); a rank-1 tile has one valid row."""
    valid = tile.effective_valid_shape
    if len(valid) == 1:
        return ir.ConstInt(1, ir.DType.INDEX), valid[0]
    return valid[-2], valid[-1]


def static_valid(tile: ir.TileType) -> tuple[int, int] | None:
    rows, cols = valid_extents(tile)
    r, c = ir.literal_value(rows), ir.literal_value(cols)
    if r is None or c is None:
        return None
    return r, c


# --------------------------------------------------------------------------------------
# records


@dataclass(frozen=True, slots=True)
class Region:
    """One planned region (§3.3)."""

    base: ir.Var
    slot_count: int
    slot_type: str
    valid_row: int
    valid_col: int
    ssa_name: str
    """The region's SSA name without `%` (`PP_mb`)."""

    @property
    def type_string(self) -> str:
        return multi_tile_type_string(self.slot_type, self.slot_count)


@dataclass
class _Candidate:
    base: ir.Var
    anchor: ir.Var
    anchor_span: Span
    slot_count: int
    reference: ir.Var | None = None
    blocker: str | None = None


def _assignments(body: ir.SeqStmts) -> list[ir.AssignStmt]:
    return [s for s in ir.walk_stmts(body) if isinstance(s, ir.AssignStmt)]


def _memref(v: ir.Var) -> ir.MemRef | None:
    t = v.type
    return t.memref if isinstance(t, ir.TileType) else None


def phi_tiles(body: ir.SeqStmts) -> set[int]:
    """Tiles (ids) carried into a phi, directly or through an alias (bare copies and
    buffer-inheriting results, §3.2): the alias roots of every tile a yield or a loop's
    initial value reads."""
    facts = alias_facts(body)
    out: set[int] = set()
    for v in facts.phi_reads:
        out.add(v.id)
        if v.id in facts.graph:
            out.add(facts.root(v))
    return out


def co_live_bases(body: ir.SeqStmts) -> set[int]:
    """Allocations with two slotted assignments in one loop-body scope (§3.2)."""
    out: set[int] = set()
    _co_live_scope(body, None, out)
    return out


def _co_live_scope(stmts: ir.SeqStmts, counts: dict[int, int] | None, out: set[int]) -> None:
    """`co_live_bases` of one scope (`counts`: its slotted assignments per allocation; None
    outside every loop body), added to `out`."""
    for s in stmts.stmts:
        if isinstance(s, ir.AssignStmt) and counts is not None:
            memref = _memref(s.var)
            if memref is not None and memref.slot_count > 1 and memref.slot_index is not None:
                key = memref.base.id
                counts[key] = counts.get(key, 0) + 1
                if counts[key] >= 2:
                    out.add(key)
        elif isinstance(s, ir.ForStmt | ir.WhileStmt):
            _co_live_scope(s.body, {}, out)
        elif isinstance(s, ir.IfStmt):
            _co_live_scope(s.then_body, counts, out)
            if s.else_body is not None:
                _co_live_scope(s.else_body, counts, out)


def _blocker(tile: ir.Var, cand: _Candidate, phi: set[int], co_live: set[int]) -> str | None:
    t = tile.type
    assert isinstance(t, ir.TileType)
    assert t.memref is not None
    memref = t.memref
    if memref.slot_index is None:
        return f"tile '{tile.name_hint}' binds it without selecting a slot"
    if memref.slot_count != cand.slot_count:
        return "its tiles disagree on how many slots it has"
    if memref.slot_count > MAX_REGION_SLOTS:
        return f"ptoas supports 2 to 16 slots, and it declares {memref.slot_count}"
    ref = cand.reference
    assert ref is not None
    assert isinstance(ref.type, ir.TileType)
    if tile_type_string(t) != tile_type_string(ref.type):
        return "its slots hold differently shaped tiles, and ptoas slots are uniform"
    mine, theirs = static_valid(t), static_valid(ref.type)
    if mine is None or theirs is None:
        runtime = tile if mine is None else ref
        return (
            f"tile '{runtime.name_hint}' has a runtime valid shape, and a region declares one static "
            "extent for all its slots"
        )
    if mine != theirs:
        return (
            f"its slots declare different valid shapes ({theirs[0]}x{theirs[1]} and {mine[0]}x{mine[1]}), "
            "and a region declares one valid extent for all of them"
        )
    if t.memory_space not in ir.REGION_SPACES:
        return "ptoas multi-buffer covers the Vec, Mat and Acc memory spaces only"
    if tile.id in phi:
        return "one of its slots is carried out of an if or a loop as a phi"
    if memref.base.id in co_live:
        return (
            "two of its slots are live at once inside a loop, and ptoas guards only the first slot "
            "selected in an iteration — the second would be read while the next iteration overwrites "
            "it. Take one slot per iteration, which is the shape the region form accelerates"
        )
    return None


def blocker_message(name: str, count: int, reason: str) -> str:
    return (
        f"The declared allocation 'pl.MemRef(\"{name}\", slots={count})' cannot be lowered to a ptoas "
        f"multi-buffer region because {reason}. Under memory_planner=PTOAS the slots have no other way "
        "to stay apart — adjust the declaration, or compile with the default PyPTO memory planner."
    )


def plan_regions(
    fn: ir.Function,
    *,
    ptoas: bool,
    fresh_name: Callable[[str], str],
    display_name: Callable[[ir.Var], str] | None = None,
) -> dict[int, Region]:
    """The regions of `fn`, keyed by base id, in discovery order (§3).

    `fresh_name(hint)` returns a unique SSA name for `%<hint>` in the function;
    `display_name(base)` gives the allocation's printed name (default: its name hint).
    Raises `PassError` (exit status 1) for the first blocked allocation.
    """
    if not ptoas:
        return {}
    shown = display_name if display_name is not None else (lambda v: v.name_hint)
    candidates: dict[int, _Candidate] = {}
    tiles: list[tuple[ir.Var, Span]] = []
    for s in _assignments(fn.body):
        memref = _memref(s.var)
        if memref is None or memref.slot_count <= 1:
            continue
        span = s.span if s.span != NO_SPAN else s.var.span
        tiles.append((s.var, span))
        cand = candidates.get(memref.base.id)
        if cand is None:
            cand = _Candidate(memref.base, s.var, span, memref.slot_count)
            candidates[memref.base.id] = cand
        if cand.reference is None and memref.slot_index is not None:
            cand.reference = s.var
    if not candidates:
        return {}
    phi = phi_tiles(fn.body)
    co_live = co_live_bases(fn.body)
    for tile, _ in tiles:
        memref = _memref(tile)
        assert memref is not None
        cand = candidates[memref.base.id]
        if cand.blocker is not None:
            continue
        if cand.reference is None:
            cand.blocker = f"tile '{tile.name_hint}' binds it without selecting a slot"
            continue
        cand.blocker = _blocker(tile, cand, phi, co_live)
    for cand in candidates.values():
        if cand.blocker is not None:
            raise PassError(
                blocker_message(shown(cand.base), cand.slot_count, cand.blocker), cand.anchor_span
            )
    regions: dict[int, Region] = {}
    for key, cand in candidates.items():
        ref = cand.reference
        assert ref is not None
        assert isinstance(ref.type, ir.TileType)
        valid = static_valid(ref.type)
        assert valid is not None
        regions[key] = Region(
            cand.base,
            cand.slot_count,
            tile_type_string(ref.type),
            valid[0],
            valid[1],
            fresh_name(f"{shown(cand.base)}_mb"),
        )
    return regions
