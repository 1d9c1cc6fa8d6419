"""Type annotations of the DSL (`10-dsl.md` §3) and of the reference's printed IR.

`TypeReader(fp).type(node)` reads:

| Form | Type |
| --- | --- |
| `pl.Scalar[DTYPE]` | `ScalarType` |
| `pl.Tensor[[D0, ...], DTYPE(, pl.TensorView(...))]`, `pld.DistributedTensor[...]` | `TensorType` |
| `pl.Out[T]`, `pl.InOut[T]` (parameters) | `TensorType` with `is_out` / `is_inout` |
| `pl.Tile[[R, C], DTYPE, EXTRA...]` | `TileType` |
| `pl.Tuple[T1, ...]`, `pl.Tuple[()]` | `TupleType` |
| `pl.Array[N, DTYPE]` | `ArrayType` |
| `pl.Ptr` | `PtrType` |
| `pl.MemRefType`, `pl.AsyncEvent`, `pld.CommCtxType` (`pld.CommCtx`), ... | `OpaqueType` |

A tensor dimension is an int literal, a module-level integer constant, or an INDEX
expression over the function's scalars and symbolic dimensions: a name that is neither a
local nor a constant is a symbolic dimension of the program (`N = pl.dynamic("N")` at module
level, or a name the reference printed without its definition). A dimension whose leaves are
all literals (`pl.const(8, pl.INDEX) * pl.const(64, pl.INDEX)`, the reference's spelling of
an unfolded constant dimension) folds to an int. A tile's physical shape must be static.

The extras of a tile annotation, in any order and each at most once: a memory space
(`pl.Mem.X` / `pl.MemorySpace.X`), a MemRef (`slotsat.core.dsl.parser`), and
`pl.TileView(valid_shape=[...], stride=[...], start_offset=E, blayout=pl.TileLayout.X,
slayout=pl.TileLayout.X, fractal=N, pad=pl.PadValue.X, compact=pl.CompactMode.X)`, keywords
only, `valid_shape` and `stride` as list literals (the reference's `_resolve_tileview`). A field
left out is the tile's implicit one, so `pl.TileView()` is the tile without a view. A tensor
layout (`pl.NZ`) is no tile argument.
"""

from __future__ import annotations

import ast
from typing import NoReturn

from slotsat.core import ir, ops
from slotsat.core.dsl.context import AFTER_HAND_OFF, FunctionContext

DTYPES: dict[str, ir.DType] = {d.value: d for d in ir.DType}
SPACES: dict[str, ir.MemorySpace] = {s.value: s for s in ir.MemorySpace if s is not ir.MemorySpace.DDR}
OPAQUE_TYPES = frozenset({
    "pl.MemRefType", "pl.PrefetchAsyncContext", "pl.AsyncEvent", "pl.AsyncSession", "pl.UnknownType",
    "pld.WindowBufferType", "pld.CommCtxType",
})
TILE_VIEW_FIELDS = ("valid_shape", "stride", "start_offset", "blayout", "slayout", "fractal", "pad",
                    "compact")
OPAQUE_ALIASES = {"pld.CommCtx": "pld.CommCtxType"}
"""The DSL's names for opaque types the reference prints under another name: a parameter
`ctx: pld.CommCtx` (the distributed DSL's type wrapper) prints `ctx: pld.CommCtxType`."""
_VIEW_ENUMS = {"blayout": "pl.TileLayout", "slayout": "pl.TileLayout", "pad": "pl.PadValue",
               "compact": "pl.CompactMode"}


def _layout_marker(node: ast.expr) -> str | None:
    """The layout a tensor annotation's bare layout item names (`pl.NZ`, `pl.MX_A_ZZ`,
    `pl.TensorLayout.NZ`), or None."""
    name = dotted(node) or ""
    members = ops.enums()["pl.TensorLayout"]
    for prefix in ("pl.TensorLayout.", "pl."):
        if name.startswith(prefix) and name[len(prefix):] in members:
            return name[len(prefix):]
    return None


def dotted(node: ast.expr) -> str | None:
    """`pl.tile.load` for an attribute chain rooted at a name, else None."""
    if type(node) is ast.Attribute and type(node.value) is ast.Name:  # `pl.x`, most of them
        return f"{node.value.id}.{node.attr}"
    parts: list[str] = []
    cur: ast.expr = node
    while isinstance(cur, ast.Attribute):
        parts.append(cur.attr)
        cur = cur.value
    if not isinstance(cur, ast.Name):
        return None
    parts.append(cur.id)
    return ".".join(reversed(parts))


def enum_member(name: str | None) -> ir.EnumArg | None:
    """`pl.TileLayout.row_major` -> `EnumArg("pl.TileLayout", "row_major")` for a member of
    one of the reference's enums (`op_registry.json`), else None."""
    if name is None or "." not in name:
        return None
    head, member = name.rsplit(".", 1)
    members = ops.enums().get(head)
    if members is None or member not in members:
        return None
    return ir.EnumArg(head, member)


def exprs_text(items: tuple[ir.Expr, ...]) -> str:
    """A list of expressions as the DSL prints it (`[9, n]`), for messages."""
    from slotsat.core.dsl.printer import print_expr

    return "[" + ", ".join(print_expr(e) for e in items) + "]"


def valid_or_none(shape: tuple[int, ...], valid: tuple[ir.Expr, ...] | None) -> tuple[ir.Expr, ...] | None:
    """`None` when the valid shape equals the physical shape (the normal form)."""
    if valid is None:
        return None
    if len(valid) == len(shape) and all(
            isinstance(v, ir.ConstInt) and v.dtype is ir.DType.INDEX and v.value == d
            for v, d in zip(valid, shape, strict=True)):
        return None
    return valid


def type_text(t: ir.Type) -> str:
    """A short spelling of a type for messages (the printer's spelling without MemRefs)."""
    if isinstance(t, ir.ScalarType):
        return f"pl.Scalar[pl.{t.dtype.value}]"
    if isinstance(t, ir.TensorType):
        from slotsat.core.dsl.printer import print_expr

        dims = ", ".join(str(d) if isinstance(d, int) else print_expr(d) for d in t.shape)
        inner = f"pl.Tensor[[{dims}], pl.{t.dtype.value}]"
        return f"pl.Out[{inner}]" if t.is_out else inner
    if isinstance(t, ir.TileType):
        parts = [f"[{', '.join(map(str, t.shape))}]", f"pl.{t.dtype.value}"]
        if t.memory_space is not None:
            parts.append(f"pl.Mem.{t.memory_space.value}")
        return f"pl.Tile[{', '.join(parts)}]"
    if isinstance(t, ir.TupleType):
        return f"pl.Tuple[{', '.join(type_text(e) for e in t.types)}]"
    if isinstance(t, ir.OpaqueType):
        return t.spelling
    return "pl.Ptr" if isinstance(t, ir.PtrType) else type(t).__name__


def fold_const(e: ir.Expr) -> int | None:
    """The value of an expression whose leaves are all integer literals (+ - * // %), else None."""
    if isinstance(e, ir.ConstInt):
        return e.value if e.dtype.is_int else None
    if isinstance(e, ir.Add | ir.Sub | ir.Mul | ir.FloorDiv | ir.FloorMod):
        a, b = fold_const(e.a), fold_const(e.b)
        if a is None or b is None:
            return None
        if isinstance(e, ir.Add):
            return e.dtype.wrap(a + b)
        if isinstance(e, ir.Sub):
            return e.dtype.wrap(a - b)
        if isinstance(e, ir.Mul):
            return e.dtype.wrap(a * b)
        if b == 0:
            return None
        return e.dtype.wrap(a // b) if isinstance(e, ir.FloorDiv) else e.dtype.wrap(a % b)
    return None


class TypeReader:
    """Reads type annotations inside one function (names resolve in its scopes)."""

    def __init__(self, fp: FunctionContext) -> None:
        self.fp = fp

    def error(self, message: str, node: ast.AST) -> NoReturn:
        self.fp.error(message, node)

    def source(self, node: ast.AST) -> str:
        return self.fp.mp.source(node)

    # -- leaves

    def dtype(self, node: ast.expr) -> ir.DType:
        name = dotted(node)
        if name is not None and name.startswith("pl.") and name[3:] in DTYPES:
            return DTYPES[name[3:]]
        if name is not None and name.startswith("pl."):
            self.fp.unknown_pl(name, node)
        self.error(f"expected a dtype such as pl.FP32, got {self.source(node)}", node)

    def space(self, node: ast.expr) -> ir.MemorySpace:
        name = dotted(node) or ""
        for prefix in ("pl.Mem.", "pl.MemorySpace."):
            if name.startswith(prefix) and name[len(prefix):] in SPACES:
                return SPACES[name[len(prefix):]]
        if name.startswith("pl."):
            self.fp.unknown_pl(name, node)
        self.error(f"expected a memory space such as pl.Mem.Vec, got {self.source(node)}", node)

    @staticmethod
    def is_space(node: ast.expr) -> bool:
        name = dotted(node) or ""
        return name.startswith(("pl.Mem.", "pl.MemorySpace."))

    def enum(self, node: ast.expr, enum: str) -> str:
        member = enum_member(dotted(node))
        if member is None or member.enum != enum:
            self.error(f"expected a member of {enum} such as {enum}.{ops.enums()[enum][0]}, got "
                       f"{self.source(node)}", node)
        return member.member

    def dim(self, node: ast.expr) -> int | ir.Expr:
        """One tensor dimension: an int (literals fold) or a runtime INDEX expression."""
        literal = self.fp.index_literal(node)
        if literal is not None:  # most dimensions: what the general path folds them to
            return literal
        e = self.fp.index_expr(node, shape=True)
        value = fold_const(e)
        if value is not None:
            if value < 0:
                self.error(f"tensor dimensions must be non-negative, got {self.source(node)}", node)
            return value
        if ir.expr_dtype(e) is ir.DType.INT64:  # the reference's INDEX, as it prints it (no cast)
            return ir.Cast(e, ir.DType.INDEX, span=getattr(e, "span", ir.NO_SPAN))
        if ir.expr_dtype(e) is not ir.DType.INDEX:
            self.error(f"a dimension must be a pl.INDEX expression, got {self.source(node)}", node)
        return e

    def dims(self, node: ast.expr, what: str) -> tuple[int | ir.Expr, ...]:
        if not isinstance(node, ast.List | ast.Tuple):
            self.error(f"{what} shape must be a list literal [D0, D1, ...], got {self.source(node)}", node)
        return tuple(self.dim(e) for e in node.elts)

    def tile_shape(self, node: ast.expr, window: bool = False) -> tuple[int, ...]:
        """A tile shape: rank 1 or 2, positive static entries. With `window`, the shape of a
        `tile.load` window, which has one entry per dimension of the tensor it reads (the
        reference's FlattenTileNdTo2D keeps a rank-N window and makes the tile 2-D)."""
        if not isinstance(node, ast.List | ast.Tuple):
            self.error(f"tile shape entries must be positive integer literals, got {self.source(node)}", node)
        dims: list[int] = []
        for elt in node.elts:
            d = self.dim(elt)
            if not isinstance(d, int) or d < 1:
                self.error(f"tile shape entries must be positive integer literals, got {self.source(elt)}",
                           elt)
            dims.append(d)
        if len(dims) > 2 and not window:
            # PTO-ISA takes 2-D tiles; the reference's FlattenTileNdTo2D flattens higher ranks
            # (merging the leading axes) before the hand-off point, though not every one: its
            # printed IR can still hold a rank-3 reshape between two 2-D tiles
            self.error(f"a tile of rank {len(dims)} ({self.source(node)}): slotsat reads tiles of rank 1 or "
                       "2, the form the reference's FlattenTileNdTo2D gives tiles before the hand-off point "
                       "(just before LowerPipelineToSlots); compile a kernel written above that point with "
                       "--via-pypto (a tile of higher rank the reference itself prints there is declined)",
                       node)
        if not dims:
            self.error(f"a tile shape has rank 1 or 2, got rank {len(dims)}", node)
        return tuple(dims)

    # -- annotations

    def type(self, node: ast.expr) -> ir.Type:
        name = dotted(node)
        if name == "pl.Ptr":
            return ir.PtrType()
        if name in OPAQUE_TYPES or name in OPAQUE_ALIASES:
            return ir.OpaqueType(OPAQUE_ALIASES.get(name, name))
        if not isinstance(node, ast.Subscript):
            if name is not None and name.startswith(("pl.", "pld.")):
                self.fp.unknown_pl(name, node)
            self.error(f"expected a type annotation such as pl.Tile[...], got {self.source(node)}", node)
        head = dotted(node.value)
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if head == "pl.Scalar":
            if len(items) != 1:
                self.error("pl.Scalar takes one dtype: pl.Scalar[pl.INDEX]", node)
            return ir.ScalarType(self.dtype(items[0]))
        if head in ("pl.Tensor", "pld.DistributedTensor"):
            return self.tensor_type(node, items, head == "pld.DistributedTensor")
        if head in ("pl.Out", "pl.InOut"):
            return self.direction(node, head)
        if head == "pl.Tile":
            return self.tile_type(node, items)
        if head in ("pl.Tuple", "tuple"):  # Python's `tuple[A, B]` is the reference's pl.Tuple[A, B]
            if isinstance(node.slice, ast.Tuple) and not node.slice.elts:
                return ir.TupleType(())
            return ir.TupleType(tuple(self.type(e) for e in items))
        if head == "pl.Array":
            if len(items) != 2:
                self.error("pl.Array takes a size and a dtype: pl.Array[4, pl.INT32]", node)
            size = self.dim(items[0])
            return ir.ArrayType(size, self.dtype(items[1]))
        if head is not None and head.startswith(("pl.", "pld.")):
            self.fp.unknown_pl(head, node.value)
        self.error(f"expected a type annotation such as pl.Tile[...], got {self.source(node)}", node)

    def direction(self, node: ast.Subscript, head: str) -> ir.TensorType:
        """`pl.Out[T]` / `pl.InOut[T]` of a tensor type T. The reference also takes a direction
        on other parameters, except `pl.InOut` on a scalar (`resolve_param_type`); slotsat
        keeps a direction on tensors only, so it says so for the others. (Its kernel code
        generator passes a scalar by value whatever the direction, so nothing would be written
        back through `pl.Out[pl.Scalar[...]]`.)"""
        inner = self.type(node.slice)
        if isinstance(inner, ir.ScalarType) and head == "pl.InOut":
            self.error("Scalar parameters cannot have InOut direction", node)
        if isinstance(inner, ir.ScalarType):
            self.error(f"slotsat does not support scalar output parameters yet ({self.source(node)}); "
                       "return the value or write it to a pl.Out tensor", node)
        if not isinstance(inner, ir.TensorType):
            self.error(f"slotsat does not support {head} on a parameter that is not a tensor yet "
                       f"({self.source(node)}); it keeps a direction on pl.Tensor parameters only", node)
        return ir.TensorType(inner.shape, inner.dtype, head == "pl.Out", inner.view, head == "pl.InOut",
                             inner.distributed)

    def tensor_type(self, node: ast.Subscript, items: list[ast.expr], distributed: bool) -> ir.TensorType:
        head = "pld.DistributedTensor" if distributed else "pl.Tensor"
        if len(items) < 2:
            self.error(f"{head} takes a shape and a dtype: {head}[[D0, D1], pl.FP32]", node)
        shape = self.dims(items[0], "a tensor")
        dtype = self.dtype(items[1])
        view: ir.TensorView | None = None
        for extra in items[2:]:
            if isinstance(extra, ast.Call) and dotted(extra.func) == "pl.TensorView" and view is None:
                view = self.tensor_view(extra)
            elif _layout_marker(extra) is not None and view is None:
                view = self.layout_view(extra)
            elif isinstance(extra, ast.Constant) and isinstance(extra.value, str) and distributed:
                continue  # the reference's informational "window_buffer=NAME" marker
            elif isinstance(extra, ast.Call) and dotted(extra.func) == "pl.MemRef":
                # a tensor bound to its DDR buffer: memory planning, after the hand-off point
                what = f"a tensor with a memory reference ({self.source(extra)})"
                self.error(AFTER_HAND_OFF.format(what=what, stage="InitMemRef"), extra)
            else:
                self.error(f"expected pl.TensorView(...) in a tensor annotation, got {self.source(extra)}",
                           extra)
        return ir.TensorType(shape, dtype, False, view, False, distributed)

    def layout_view(self, node: ast.expr) -> ir.TensorView | None:
        """A bare layout in a tensor annotation (`pl.NZ`, `pl.TensorLayout.MX_A_ZZ`): the
        reference widens it to a stride-less view of that layout (`pl.TensorView(stride=[],
        layout=pl.TensorLayout.NZ)`, as it prints it); `pl.ND` is the default, no view. It
        rejects the DN shorthand, and so does slotsat."""
        layout = _layout_marker(node)
        if layout == "DN":
            self.error(f"the layout-only shorthand {self.source(node)} is not supported, as in the "
                       "reference: write pl.TensorView(stride=[...], layout=pl.TensorLayout.DN)", node)
        return None if layout == "ND" else ir.TensorView((), layout or "ND", (), None)

    def tensor_view(self, node: ast.Call) -> ir.TensorView:
        if node.args:
            self.error("pl.TensorView takes keywords: stride=[...], layout=pl.TensorLayout.X", node)
        stride: tuple[ir.Expr, ...] = ()
        valid: tuple[ir.Expr, ...] = ()
        layout = "ND"
        pad: str | None = None
        seen: set[str] = set()
        for kw in node.keywords:
            if kw.arg is None or kw.arg in seen:
                self.error(f"pl.TensorView got a repeated or unnamed keyword {kw.arg!r}", kw.value)
            seen.add(kw.arg)
            if kw.arg == "stride":
                stride = self.fp.expr_list(kw.value, dims=True)
            elif kw.arg == "valid_shape":
                valid = self.fp.expr_list(kw.value, dims=True)
            elif kw.arg == "layout":
                layout = self.enum(kw.value, "pl.TensorLayout")
            elif kw.arg == "pad":
                pad = self.enum(kw.value, "pl.PadValue")
            else:
                self.error(f"pl.TensorView got an unexpected keyword '{kw.arg}'", kw.value)
        return ir.TensorView(stride, layout, valid, pad)

    def tile_type(self, node: ast.Subscript, items: list[ast.expr]) -> ir.TileType:
        if len(items) < 2:
            self.error("pl.Tile takes a shape and a dtype: pl.Tile[[R, C], pl.FP32, ...]", node)
        shape = self.tile_shape(items[0])
        dtype = self.dtype(items[1])
        space: ir.MemorySpace | None = None
        memref: ir.MemRef | None = None
        valid: tuple[ir.Expr, ...] | None = None
        layout: ir.TileLayoutView | None = None
        seen: set[str] = set()
        for extra in items[2:]:
            if self.is_space(extra):
                kind = "memory space"
                space = self.space(extra)
            elif isinstance(extra, ast.Call) and dotted(extra.func) == "pl.TileView":
                kind = "TileView"
                valid, layout = self.tile_view(extra, shape)
            elif _layout_marker(extra) is not None:
                self.error(f"a tile annotation does not take a tensor layout like {self.source(extra)}; "
                           "give the tile's layout as pl.TileView(blayout=..., slayout=...)", extra)
            else:
                kind = "MemRef"
                memref = self.fp.memref(extra)
            if kind in seen:
                self.error(f"a tile annotation gives its {kind} twice", extra)
            seen.add(kind)
        if memref is not None and space is None:
            self.error("Tile annotation with a memref argument must also specify explicit memory space", node)
        return ir.TileType(shape, dtype, space, memref, valid_or_none(shape, valid), layout)

    def tile_view(self, node: ast.Call, shape: tuple[int, ...]
                  ) -> tuple[tuple[ir.Expr, ...] | None, ir.TileLayoutView | None]:
        if node.args:
            self.error("pl.TileView takes keywords only: pl.TileView(valid_shape=[...], ...)", node)
        valid: tuple[ir.Expr, ...] | None = None
        fields: dict[str, object] = {}
        seen: set[str] = set()
        for kw in node.keywords:
            if kw.arg is None or kw.arg not in TILE_VIEW_FIELDS:
                self.error(f"pl.TileView got an unexpected keyword '{kw.arg}' (it takes "
                           f"{', '.join(TILE_VIEW_FIELDS)})", kw.value)
            if kw.arg in seen:
                self.error(f"pl.TileView got the keyword '{kw.arg}' twice", kw.value)
            seen.add(kw.arg)
            if kw.arg in ("valid_shape", "stride") and not isinstance(kw.value, ast.List):
                # The reference reads these two fields from a list literal only.
                self.error(f"pl.TileView's {kw.arg} takes a list literal [...], got {self.source(kw.value)}",
                           kw.value)
            if kw.arg == "valid_shape":
                valid = self.fp.expr_list(kw.value, dims=True)
                if len(valid) != len(shape):
                    self.error(f"valid_shape has {len(valid)} entries but the tile has rank {len(shape)}",
                               node)
            elif kw.arg == "stride":
                fields["stride"] = self.fp.expr_list(kw.value, dims=True)
            elif kw.arg == "start_offset":
                fields["start_offset"] = self.fp.index_expr(kw.value, dims=True)
            elif kw.arg == "fractal":
                value = ir.literal_value(self.fp.index_expr(kw.value))
                if value is None or value < 0:
                    self.error(f"fractal must be a non-negative integer literal, got {self.source(kw.value)}",
                               kw.value)
                fields["fractal"] = value
            else:
                fields[kw.arg] = self.enum(kw.value, _VIEW_ENUMS[kw.arg])
        layout = ir.TileLayoutView(**fields)  # type: ignore[arg-type]
        return valid, (None if layout.is_empty else layout)
