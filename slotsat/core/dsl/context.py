"""What the type and call readers (`annotations.py`, `calls.py`) need from the parser of the
function they read in: its name scopes, its expression parser and its diagnostics. The
parser (`parser.py`) implements these protocols; the readers never import it, so the
modules of the front end import one way (parser -> calls -> annotations -> context)."""


from __future__ import annotations

import ast
from typing import NoReturn, Protocol

from slotsat.core import ir, ops
from slotsat.core.errors import Span

ABOVE_TILE = ("{what} is above tile level: slotsat reads the tile-level IR that PyPTO prints at the "
              "hand-off point (just before LowerPipelineToSlots); compile this kernel with --via-pypto")
"""The one message for constructs that exist only above the hand-off point (issue 16 item 5)."""

BEFORE_HAND_OFF = ("{what} is the IR of an earlier stage: the reference's {stage} removes it before the "
                   "hand-off point, where slotsat takes over (just before LowerPipelineToSlots); compile "
                   "this kernel with --via-pypto")
"""The one message for tile-level constructs that passes before the hand-off point remove."""

AFTER_HAND_OFF = ("{what} is the IR of a later stage: the reference's {stage} runs after the hand-off "
                  "point, and slotsat reads the IR that PyPTO prints just before LowerPipelineToSlots")
"""The one message for constructs that only passes after the hand-off point introduce."""


class ModuleContext(Protocol):
    """The module being parsed: its text and the program's functions and constants."""

    function_names: set[str]
    function_params: dict[str, tuple[ir.Type, ...]]
    function_returns: dict[str, tuple[ir.Type, ...]]
    constants: dict[str, int | float | bool]

    def source(self, node: ast.AST) -> str: ...


class FunctionContext(Protocol):
    """The function being parsed."""

    NON_OPS: frozenset[str]
    pending: list[ir.Stmt]

    @property
    def mp(self) -> ModuleContext: ...

    def error(self, message: str, node: ast.AST | Span) -> NoReturn: ...

    def span(self, node: ast.AST) -> Span: ...

    def lookup(self, name: str, node: ast.AST) -> ir.Var: ...

    def lookup_optional(self, name: str) -> ir.Var | None: ...

    def temp(self, typ: ir.Type, node: ast.AST) -> ir.Var: ...

    def is_tile_cast(self, node: ast.Call) -> bool: ...

    def unknown_pl(self, name: str, node: ast.AST) -> NoReturn: ...

    def unknown_pl_above_tile(self, name: str, node: ast.AST) -> None: ...

    def index_expr(self, node: ast.expr, allow_any: bool = False, allow_float: bool = False,
                   dims: bool = False, shape: bool = False) -> ir.Expr: ...

    def index_literal(self, node: ast.expr) -> int | None: ...

    def expr_list(self, node: ast.expr, dims: bool = False) -> tuple[ir.Expr, ...]: ...

    def memref(self, node: ast.expr) -> ir.MemRef: ...

    def call_attrs(self, node: ast.expr) -> list[tuple[str, ir.AttrValue]]: ...

    def typed_call(self, node: ast.Call, spec: ops.OpSpec, annot: ir.Type | None) -> tuple[ir.Call, ir.Type]:
        """A call of an op slotsat models (its argument checks, normal form and result type)."""
        ...
