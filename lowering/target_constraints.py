"""target-constraints: the operand rules of ops whose hardware instruction constrains its
buffers beyond the op's type, checked before codegen emits them.

Overview
--------
Some PTO instructions read a scratch tile of a fixed element type and size, or need their
operands and result in buffers that do not overlap; the reference's PTO backend checks
these rules as it emits the op (`src/backend/common/pto_ops_elementwise.cpp`, for
`tile.prelu` and `tile.sels`) and fails the compile when one is broken. slotsat checks the
same rules here, before any line is emitted, so a kernel that breaks one gets a located
error instead of an instruction that reads or writes the wrong bytes. The rules depend on
the target (`Backend.target_arch`): A2/A3 (`--backend 910b`) needs a scratch tile and
operands apart from each other; A5 (`--backend 950`) only a result apart from the
operands it reads. Without a backend (`--backend none`, no `pto.target_arch`) the A2/A3
rules apply, the stricter ones.

The rules (`DISJOINT` for the buffers, one function per op for the rest):
- `tile.prelu(src, slope, tmp)`: `src` and `slope` are FP16 or FP32, of one dtype and shape
  (the reference's type deduction). On A2/A3 `tmp` is UINT8 with at least
  `valid_rows(src) + 1` rows and `ceil(valid_cols(src) / 8)` valid columns, each a literal
  the check compares (a runtime extent cannot be proven, as in the reference), and `src`,
  `slope`, `tmp` and the result are pairwise apart. On A5 the result is apart from `src`
  and `slope`.
- `tile.sels(mask, src, tmp, scalar)`: the result is `src`'s tile; `src` is a 16- or 32-bit
  integer or FP16 / FP32 (A5 also takes 8-bit integers); the mask is 8-, 16- or 32-bit
  integers covering `src`'s valid rows and, eight columns a byte, its valid columns; a
  runtime scalar has `src`'s dtype read as signed (a literal is converted to it). The
  result is apart from `mask`; on A2/A3 `tmp` is apart from `mask` and `src` too.

Two operands are apart unless they name one buffer (`analysis/liveness.py`: the same
sharing class, or views of one tile) or two bindings of one declared allocation that are not
provably different slots. This is conservative: two slices of one tile are never apart,
even where their windows do not meet (the reference compares byte ranges, and the rows of a
slice taken beside another interleave with it).

Requires the liveness of the function codegen emits; runs in codegen's preparation, after
the shared-buffer check.
"""

from __future__ import annotations

from itertools import combinations
from typing import cast

from slotsat.analysis.budget import Backend
from slotsat.analysis.liveness import Liveness
from slotsat.core import ir
from slotsat.core.dsl.annotations import type_text
from slotsat.core.errors import NO_SPAN, PassError, Span
from slotsat.core.semantics import fold
from slotsat.lowering.pto_spelling import signed

RESULT = "dst"
"""The role name of an op's result in `DISJOINT` (the reference's)."""

ROLES: dict[str, tuple[str, ...]] = {
    "tile.prelu": ("src", "slope", "tmp"),
    "tile.sels": ("mask", "src", "tmp"),
}
"""The role names the reference's backend gives an op's leading tile arguments, in order."""

DISJOINT: dict[str, dict[str, tuple[tuple[str, str], ...]]] = {
    "tile.prelu": {
        "a2a3": tuple(combinations(("src", "slope", "tmp", RESULT), 2)),
        "a5": (("src", RESULT), ("slope", RESULT)),
    },
    "tile.sels": {
        "a2a3": (("mask", RESULT), ("tmp", "mask"), ("tmp", "src")),
        "a5": (("mask", RESULT),),
    },
}
"""Per op and target, the pairs of roles whose buffers may not overlap."""

SELS_DTYPES_A2A3 = frozenset({ir.DType.INT16, ir.DType.UINT16, ir.DType.INT32, ir.DType.UINT32, ir.DType.FP16,
                              ir.DType.FP32})
"""The element types `tile.sels` selects on A2/A3 (the reference's backend)."""

SELS_DTYPES = SELS_DTYPES_A2A3 | {ir.DType.INT8, ir.DType.UINT8}
"""... and on A5 (`IsTSelsDataType`)."""

SELS_MASK_DTYPES = frozenset({ir.DType.INT8, ir.DType.UINT8, ir.DType.INT16, ir.DType.UINT16, ir.DType.INT32,
                              ir.DType.UINT32})
"""The element types of a `tile.sels` mask (`IsTSelsMaskDataType`)."""

PRELU_DTYPES = frozenset({ir.DType.FP16, ir.DType.FP32})
"""The element types `tile.prelu` computes in."""

PRELU_SCRATCH = ir.DType.UINT8
"""The element type of `tile.prelu`'s scratch tile on A2/A3."""


def check_target_constraints(fn: ir.Function, live: Liveness, backend: Backend) -> None:
    """Raise `PassError` at the first call in `fn` that breaks its op's rules (see the module
    docstring)."""
    arch = "a5" if backend.target_arch == "a5" else "a2a3"
    for s in ir.walk_stmts(fn.body):
        if not isinstance(s, ir.AssignStmt) or not isinstance(s.value, ir.Call):
            continue
        call = s.value
        pairs = DISJOINT.get(call.op, {}).get(arch)
        if pairs is None:
            continue
        where = call.span if call.span != NO_SPAN else s.span
        tiles = _roles(s.var, call, where)
        if call.op == "tile.sels":
            _check_sels(tiles, call.args[3] if len(call.args) > 3 else None, arch, where)
        if call.op == "tile.prelu":
            _check_prelu_operands(tiles["src"], tiles["slope"], where)
            if arch == "a2a3":
                _check_prelu_scratch(tiles["src"], tiles["tmp"], where)
        for a, b in pairs:
            if _may_share(live, tiles[a], tiles[b]):
                rule = "" if arch == "a5" else "on A2/A3 "
                both = (f"'{tiles[a].name_hint}' is both" if tiles[a].id == tiles[b].id
                        else f"'{tiles[a].name_hint}' and '{tiles[b].name_hint}' share one")
                raise PassError(f"{call.op} {rule}needs {a} and {b} in buffers that do not overlap, "
                                f"but {both}", where)


def _roles(result: ir.Var, call: ir.Call, where: Span) -> dict[str, ir.Var]:
    """The call's tile arguments and its result by role; a located error where one is not a
    tile variable (codegen would decline the call anyway; this check runs first)."""
    roles = ROLES[call.op]
    if len(call.args) < len(roles):
        raise PassError(f"{call.op} takes {', '.join(roles)} first; it got {len(call.args)} argument(s)",
                        where)
    out: dict[str, ir.Var] = {}
    for name, v in ((RESULT, result), *zip(roles, call.args, strict=False)):
        if not isinstance(v, ir.Var) or not isinstance(v.type, ir.TileType):
            what = "result" if name == RESULT else name
            raise PassError(f"{call.op}'s {what} must be a tile variable", where)
        out[name] = v
    return out


def _check_sels(tiles: dict[str, ir.Var], scalar: ir.CallArg | None, arch: str, where: Span) -> None:
    """`tile.sels(mask, src, tmp, scalar)`: the reference's type rules (`DeduceTileSelsType`: an
    integer mask covering the source's valid rows and, eight columns a byte, its valid columns;
    a scalar of the source's dtype, signed) and its backend's (16- and 32-bit sources on A2/A3).
    The result is the source's tile."""
    mask, src, dst = (tiles[k].type for k in ("mask", "src", RESULT))
    assert isinstance(mask, ir.TileType)
    assert isinstance(src, ir.TileType)
    assert isinstance(dst, ir.TileType)
    name = tiles["src"].name_hint
    allowed = SELS_DTYPES if arch == "a5" else SELS_DTYPES_A2A3
    if src.dtype not in allowed:
        target = "" if arch == "a5" else " on A2/A3"
        names = [f"pl.{d.value}" for d in sorted(allowed, key=lambda d: (d.is_float, d.bits, d.value))]
        raise PassError(f"tile.sels{target} selects {', '.join(names[:-1])} or {names[-1]} elements, but "
                        f"'{name}' is pl.{src.dtype.value}", where)
    if (dst.dtype, dst.shape) != (src.dtype, src.shape):
        raise PassError(f"tile.sels produces its source's tile ({type_text(src)}), but its result is "
                        f"{type_text(dst)}", where)
    if mask.dtype not in SELS_MASK_DTYPES or len(mask.shape) != 2 or len(src.shape) != 2:
        raise PassError(f"tile.sels takes a 2-D mask of 8-, 16- or 32-bit integers and a 2-D source; got "
                        f"{type_text(mask)} and {type_text(src)}", where)
    want = signed(src.dtype)
    if isinstance(scalar, ir.Var) and not isinstance(scalar.type, ir.ScalarType):
        raise PassError(f"tile.sels's scalar must be a scalar, but '{scalar.name_hint}' is "
                        f"{type_text(scalar.type)}", where)
    if isinstance(scalar, ir.SCALAR_EXPRS) and not isinstance(scalar, ir.ConstInt | ir.ConstFloat):
        given = ir.expr_dtype(cast(ir.Expr, scalar))
        if given is not want:
            raise PassError(f"tile.sels's scalar must be pl.{want.value} for a pl.{src.dtype.value} source, "
                            f"but it is pl.{given.value}", where)
    rows, cols = src.effective_valid_shape
    mask_rows, mask_cols = mask.effective_valid_shape
    byte_cols = _literal(cols)
    mask_bytes = _literal(mask_cols)
    if not _at_most(rows, mask_rows) or byte_cols is None or mask_bytes is None or (
            -(-byte_cols // 8) > mask_bytes * mask.dtype.nbytes):
        raise PassError(f"tile.sels needs a mask covering its source's valid rows and, eight columns a "
                        f"byte, its valid columns (provably): '{tiles['mask'].name_hint}' is valid in "
                        f"[{_text(mask_rows)}, {_text(mask_cols)}] pl.{mask.dtype.value}, '{name}' in "
                        f"[{_text(rows)}, {_text(cols)}]", where)


def _at_most(a: ir.Expr, b: ir.Expr) -> bool:
    """`a <= b` for literals, or `a` and `b` the same expression."""
    la, lb = _literal(a), _literal(b)
    if la is not None and lb is not None:
        return la <= lb
    return ir.structural_equal(a, b)


def _text(e: ir.Expr) -> str:
    n = _literal(e)
    return str(n) if n is not None else "runtime"


def _check_prelu_operands(src: ir.Var, slope: ir.Var, where: Span) -> None:
    """`tile.prelu`'s source and slope: FP16 or FP32, one dtype and one shape (the reference's
    `DeduceTilePreluType`)."""
    s, t = src.type, slope.type
    assert isinstance(s, ir.TileType)
    assert isinstance(t, ir.TileType)
    if s.dtype not in PRELU_DTYPES or (t.dtype, t.shape) != (s.dtype, s.shape):
        raise PassError(f"tile.prelu takes a source and a slope of one shape, both pl.FP16 or both pl.FP32; "
                        f"got {type_text(s)} and {type_text(t)}", where)


def _check_prelu_scratch(src: ir.Var, tmp: ir.Var, where: Span) -> None:
    """`tile.prelu`'s A2/A3 scratch: UINT8, `valid_rows(src) + 1` rows and
    `ceil(valid_cols(src) / 8)` valid columns, as literals."""
    s, t = src.type, tmp.type
    assert isinstance(s, ir.TileType)
    assert isinstance(t, ir.TileType)
    if t.dtype is not PRELU_SCRATCH:
        raise PassError(f"tile.prelu on A2/A3 needs a pl.{PRELU_SCRATCH.value} scratch tile, but "
                        f"'{tmp.name_hint}' is pl.{t.dtype.value}", where)
    if len(s.shape) != 2 or len(t.shape) != 2:
        raise PassError("tile.prelu on A2/A3 needs 2-D tiles", where)
    rows, cols = (_literal(e) for e in s.effective_valid_shape)
    scratch_cols = _literal(t.effective_valid_shape[1])
    if rows is None or rows + 1 > t.shape[0]:
        have = "a runtime number of" if rows is None else str(rows)
        raise PassError(f"tile.prelu on A2/A3 needs a scratch tile of at least the source's valid rows + 1 "
                        f"rows: '{src.name_hint}' has {have} valid rows and '{tmp.name_hint}' has "
                        f"{t.shape[0]} rows", where)
    if cols is None or scratch_cols is None or scratch_cols < -(-cols // 8):
        have = "a runtime number of" if cols is None else str(cols)
        scratch = "a runtime number of" if scratch_cols is None else str(scratch_cols)
        raise PassError(f"tile.prelu on A2/A3 needs a scratch tile of at least ceil(valid columns / 8) "
                        f"valid columns: '{src.name_hint}' has {have} valid columns and '{tmp.name_hint}' "
                        f"has {scratch}", where)


def _literal(e: ir.Expr) -> int | None:
    folded = fold(e)
    return folded.value if isinstance(folded, ir.ConstInt) else None


def _may_share(live: Liveness, a: ir.Var, b: ir.Var) -> bool:
    """Whether tiles `a` and `b` may occupy overlapping bytes."""
    if a.id == b.id:
        return True
    ba, bb = live.buffer(a), live.buffer(b)
    if ba is not None and bb is not None and ba.index == bb.index:
        return True
    ma = a.type.memref if isinstance(a.type, ir.TileType) else None
    mb = b.type.memref if isinstance(b.type, ir.TileType) else None
    if ma is None or mb is None or ma.base.id != mb.base.id:
        return False
    sa = None if ma.slot_index is None else _literal(ma.slot_index)
    sb = None if mb.slot_index is None else _literal(mb.slot_index)
    return sa is None or sb is None or sa == sb
