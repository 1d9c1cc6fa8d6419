"""Tensor parameters whose `pl.TensorView` declares a valid shape
(`x: pl.Tensor[[M, N], pl.FP32, pl.TensorView(valid_shape=[M, VALID], ...)]`) in the code
generator: what the reference does with them after the hand-off point, and which of their uses
slotsat emits.

Facts (PyPTO: `src/ir/transforms/materialize_valid_shape_symbols_pass.cpp`, its PTO code
generator):

- The tensor's `pto.make_tensor_view` is of its physical shape; the declared valid shape acts
  only through the valid shape of the windows read from the tensor, which the front end
  deduces (`slotsat.core.dsl.window_reads`: the tile's valid shape in its type, the load's
  request as the extent of the GM read).
- MaterializeValidShapeSymbols, after the hand-off point: a symbol a device kernel's declared
  valid shape names bare, and that nothing else binds (not a scalar parameter, not in a tensor
  parameter's physical shape), becomes a leading parameter of the kernel, in declaration
  order; the runtime passes scalars after tensors, so it is the first `index` scalar of the
  signature. A symbol that only a compound entry (`VALID + 1`) names is an error there.

Such a tensor is emitted as the source of `tile.load`, of `pld.tile.remote_load` where the
declared valid shape is literal (the reference reads the peer's window narrowed to it), read by
`tensor.dim`, and as the destination of `tile.store`, which the reference writes through the
view of its physical shape as any tensor's (the tile's valid part, whatever the declared valid
shape); any other use (a view, a remote load of a runtime valid extent) is declined with the
reason.
"""

from __future__ import annotations

from slotsat.core import ir, ops
from slotsat.core.errors import PassError, Span
from slotsat.core.semantics import fold
from slotsat.lowering.common import format_expr


def declared_valid(t: ir.Type) -> tuple[ir.Expr, ...]:
    """The valid shape a tensor type's `pl.TensorView` declares, or `()`."""
    if isinstance(t, ir.TensorType) and t.view is not None:
        return t.view.valid_shape
    return ()


def materialized_symbols(fn: ir.Function) -> list[ir.Var]:
    """The symbols MaterializeValidShapeSymbols makes leading `index` parameters of `fn`, in
    declaration order (`ir.valid_shape_symbols`); a `PassError` at the parameter when an
    unbound symbol appears only in a compound entry of a declared valid shape (the reference
    rejects that kernel)."""
    symbols = ir.valid_shape_symbols(fn)
    known = {p.id for p in fn.params} | {v.id for v in symbols}
    known.update(v.id for v in ir.dynamic_dimensions(fn))
    for p in fn.params:
        for d in declared_valid(p.type):
            if isinstance(d, ir.Var):
                continue
            for v in ir.expr_vars(d):
                if v.id not in known:
                    raise PassError(
                        f"parameter '{p.name_hint}' names the symbol '{v.name_hint}' only inside the valid "
                        f"extent '{format_expr(d)}', so no caller can supply its value (the reference's "
                        "MaterializeValidShapeSymbols rejects it): declare it on its own in a valid_shape, "
                        "or pass the extent as a pl.Scalar[pl.INDEX] parameter", p.span)
    return symbols


def check_valid_view_use(c: ir.Call, where: Span) -> None:
    """Decline, with a located `PassError`, a call that uses a tensor with a declared valid
    shape other than as the source of `tile.load`, the source of `pld.tile.remote_load` when
    the declared valid shape is literal (the front end then deduces the tile's valid shape as
    the reference does, `calls._remote_loaded_result`, and an annotation must agree; the
    partition read is that valid region), the destination of `tile.store`, or in `tensor.dim`
    (the physical extent, which the declared valid shape leaves alone)."""
    if c.op == "tensor.dim":
        return
    for k, p in enumerate(c.args):
        # the parameter, or a value of its type (a loop-carried tensor, an alias)
        if not isinstance(p, ir.Var) or not declared_valid(p.type):
            continue
        literal = all(ir.literal_value(fold(d)) is not None for d in declared_valid(p.type))
        if c.op == "tile.store" and k == 2:
            continue  # written through a view of its physical shape, as any tensor
        if k != 0 or not (c.op == "tile.load" or (c.op in ops.REMOTE_LOADED_RESULTS and literal)):
            also = " (and of pld.tile.remote_load where the valid shape is literal)" \
                if c.op in ops.REMOTE_LOADED_RESULTS else ""
            raise PassError(f"tensor '{p.name_hint}' declares a valid shape (pl.TensorView"
                            f"(valid_shape=...)); slotsat's code generator emits it only as the "
                            f"source of tile.load{also}, not of {c.op}", where)
