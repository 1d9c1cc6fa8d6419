"""The DSL front end: kernel source text to `ir.Module` (`10-dsl.md`).

The file is read with Python's `ast` module; it is never executed and `pypto` is never
imported. Every error is a `SlotsatError(message, Span(line, col))` at the offending node
(1-based line and column, columns counted in characters), exit status 2; messages of
`10-dsl.md` §11 are used verbatim.

Choices the spec leaves open (documented here, pinned by `tests/dsl`):

- Source need not be SSA (`05-decisions.md` item 11): names are resolved and rebound through
  the SSA conversion of `slotsat.core.dsl.ssa`, which adds carried values and if results
  where the reference's ConvertToSSA does and documents the rules.
- An integer literal must fit the dtype it takes (§7.1; a bound, start, step, offset, slot
  index: `INDEX`; a stage, shape entry, slot count or size: `INDEX`; an attribute value:
  `INT64`); `pl.const(V, D)` may lie outside `D` but must be a bit pattern of its width
  (`-2**(bits-1) <= V < 2**bits`). A float literal must be finite.
- CPython's compile-time errors that `ast.parse` lets through are reported with CPython's
  wording and position (a repeated keyword argument or parameter); a UTF-8 byte order mark
  at the start of the text is skipped, as CPython skips it in a file.
- A load's tile and a store's tile have the rank of their tensor.

- Memory-space completion happens here: a tile whose annotation gives no space takes the
  producing op's (`tile.load`: `target_memory=` or `Vec`; `tile.move`: `target_memory=`;
  `tile.matmul`: `Acc`; elementwise, view and in-place ops: the first tile operand's). An
  annotation without a `TileView` takes the op's valid shape. `TileType.valid_shape` is
  `None` exactly when the valid shape equals the physical shape (INDEX literals).
- `tile.load` is normalised to its canonical call: four positional arguments (the valid
  shape defaults to the shape) and `target_memory=` always present; `tile.move` always
  carries `target_memory=`.
- A call statement whose result is unused (`pl.store(t, [0, 0], out)`) is an `EvalStmt`.
- An unknown `pl.X(...)` / `pl.tile.X(...)` call parses as the opaque op `tile.X` when its
  result type is given by an annotation (or it is a statement); its arguments may be
  names, scalar expressions, list literals, `pl.Mem.X`, dtypes and `True`/`False`. Without
  an annotation it is `unsupported DSL construct 'pl.X'`.
- `pl.cast(x, D)` is the scalar `Cast` when `x` is a scalar and the op `tile.cast` when `x`
  is a tile. Scalar casts are between integer dtypes of the same signedness.
- Pointer binders (`pl.Ptr`) always have type `PtrType(None)`; the memory space lives in the
  `pl.tile.alloc` call. `BASE: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768, pinned=True)` is
  `AssignStmt(Var(BASE, PtrType()), Call("tile.alloc", (SpaceArg(Vec), ConstInt(32768)),
  kwargs=(("pinned", ConstInt(1, BOOL)),)))`; `True`/`False` call arguments are BOOL
  literals. Such statements must form a prefix of the function body.
- Declaration bases (pinned MemRefs) are binders of type `PtrType(None)` named after the
  declaration, one per declaration per function. All inline `pl.MemRef("NAME", ...)` forms
  with one name in a function are one allocation; a module-level declaration and an inline
  form (or two module-level declarations) with the same name used in one function are two
  separate declarations, which is an error. `B = A` at module level, for a declaration
  `A`, is the "also referenced as" error.
- A loop variable spelled `_` is a fresh binder that cannot be referenced.
- `pass` is accepted and ignored (the printer writes it for an empty body).
- `TensorType.is_out` is true only on parameters: a local binder (a store result, a carried
  value, a loop or if result) of an output tensor has `is_out=False`, whatever its
  annotation says (the printer writes `pl.Tensor[...]` for it). Carried binders take their
  initial value's type, so this keeps replicated loops printable.
- Loop bounds must be `INDEX` expressions; if conditions must have dtype `BOOL`.
- The `if`'s result types come from the then branch's yield (its annotation when given).
- An annotated assignment takes the annotation's type once it agrees with the value's
  (shape, dtype, kind; space and `TileView` when both sides give them), completed by the
  value's space and valid shape; an unannotated one takes the value's type.
"""

from __future__ import annotations

import ast
import gc
import keyword
import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from slotsat.core import ir, ops
from slotsat.core.dsl import ssa
from slotsat.core.errors import SlotsatError, Span
from slotsat.core.limits import max_expr_depth, max_file_bytes, parsing_recursion, read_source

_DTYPES: dict[str, ir.DType] = {d.value: d for d in ir.DType}
_SPACES: dict[str, ir.MemorySpace] = {s.value: s for s in ir.MemorySpace if s is not ir.MemorySpace.DDR}
_BINOPS: dict[type, type] = {
    ast.Add: ir.Add, ast.Sub: ir.Sub, ast.Mult: ir.Mul, ast.FloorDiv: ir.FloorDiv, ast.Mod: ir.FloorMod,
}
_CMPOPS: dict[type, ir.CmpOp] = {
    ast.Eq: ir.CmpOp.EQ, ast.NotEq: ir.CmpOp.NE, ast.Lt: ir.CmpOp.LT, ast.LtE: ir.CmpOp.LE,
    ast.Gt: ir.CmpOp.GT, ast.GtE: ir.CmpOp.GE,
}
_OP_SYMBOL: dict[type, str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%", ast.Div: "/",
    ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>", ast.BitOr: "|", ast.BitAnd: "&",
    ast.BitXor: "^", ast.MatMult: "@",
}
# pl names that are DSL constructs but not operations.
_NON_OPS = frozenset({
    "range", "pipeline", "yield_", "const", "MemRef", "Tile", "Tensor", "Out", "Scalar", "Ptr",
    "Mem", "MemorySpace", "TileView", "FunctionType", "function", "program", *_DTYPES,
})
_TENSOR_PARAMS = frozenset({"tensor"})
_TILE_PARAMS = frozenset({"tile", "lhs", "rhs", "acc", "row"})
_LIST_PARAMS = frozenset({"offsets", "shape", "valid_shape", "indices"})
_STMT_KINDS: dict[type, str] = {
    ast.While: "while loop", ast.AugAssign: "augmented assignment", ast.Delete: "del statement",
    ast.Break: "break", ast.Continue: "continue", ast.With: "with statement", ast.Try: "try statement",
    ast.Raise: "raise statement", ast.Assert: "assert statement", ast.Import: "import inside a function",
    ast.ImportFrom: "import inside a function", ast.Global: "global statement",
    ast.Nonlocal: "nonlocal statement", ast.FunctionDef: "nested function",
    ast.ClassDef: "nested class", ast.AsyncFor: "async for", ast.AsyncWith: "async with",
    ast.AsyncFunctionDef: "async function", ast.Match: "match statement",
}

_EMPTY_MESSAGE = "a kernel file must import pypto.language and define a @pl.program"
_IMPORT_MESSAGE = "expected 'import pypto.language as pl'"


def parse_file(path: str | Path) -> ir.Module:
    """Read a kernel file (size-checked, decoded as UTF-8; `slotsat.core.limits.read_source`) and
    parse it."""
    return parse_source(read_source(path), str(path))


def parse_source(text: str, filename: str = "<input>") -> ir.Module:
    """Parse kernel source text into an `ir.Module` (one `Program` per `@pl.program`).

    Text longer than the input-size limit (`slotsat.core.limits`) is refused up front: Python's
    own parser alone needs seconds per MiB, and real kernels are a few KiB."""
    limit = max_file_bytes()
    if len(text) > limit:
        raise SlotsatError(f"the file is too large to be a kernel: {len(text)} characters (the limit is "
                           f"{limit}; set SLOTSAT_MAX_FILE_BYTES to raise it)", Span(1, 1), file=filename)
    if text.startswith("\ufeff"):  # a UTF-8 byte order mark, which CPython skips in a file
        text = text[1:]
    parser = _ModuleParser(text, filename)
    # The AST and the IR built from it are acyclic and live until the walk ends, so the cyclic
    # collector only rescans them: at 10,000 loops it took 9.1 s of a 12.8 s `ast.parse`.
    # Reference counting still frees everything; the collector is restored on every exit.
    collecting = gc.isenabled()
    gc.disable()
    try:
        with parsing_recursion():
            return parser.parse()
    except RecursionError:
        raise SlotsatError("the kernel is nested too deeply to parse; split the expression or body",
                           parser.last_span, file=filename) from None
    finally:
        if collecting:
            gc.enable()


def parse_expression(text: str, resolve: Callable[[str], ir.Var | None],
                     filename: str = "<expr>") -> ir.Expr:
    """One scalar expression as the DSL reads it (§7: syntax, dtype rules, literal ranges,
    the nesting limit, the errors), for `slotsat explore`'s EXPR. Names resolve through
    `resolve` (None: not defined); a bare literal standing alone is INDEX."""
    text = text.strip()
    mp = _ModuleParser(text, filename)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text, filename, mode="eval")
    except SyntaxError as err:
        raise SlotsatError(f"cannot parse the expression: {err.msg}", Span(1, max(err.offset or 1, 1)),
                           file=filename) from None
    except (ValueError, RecursionError, MemoryError) as err:
        raise SlotsatError(f"cannot parse the expression: {err}", Span(1, 1), file=filename) from None
    parser = _ExprParser(mp, resolve)
    try:
        with parsing_recursion():
            return parser.index_expr(tree.body)
    except RecursionError:
        raise SlotsatError("the expression is nested too deeply to parse", Span(1, 1),
                           file=filename) from None


# --------------------------------------------------------------------------------------
# helpers


def dotted(node: ast.expr) -> str | None:
    """`pl.tile.load` for an attribute chain rooted at a name, else None."""
    parts: list[str] = []
    cur: ast.expr = node
    while isinstance(cur, ast.Attribute):
        parts.append(cur.attr)
        cur = cur.value
    if not isinstance(cur, ast.Name):
        return None
    parts.append(cur.id)
    return ".".join(reversed(parts))


def _is_int_literal(node: ast.expr) -> int | None:
    """The value of `5` or `-5` (not a bool), else None."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
            and isinstance(node.operand, ast.Constant) and type(node.operand.value) is int):
        return -node.operand.value
    return None


def fits_message(value: int, dtype: ir.DType) -> str | None:
    """Why an integer literal cannot have `dtype`, or None when it fits (`10-dsl.md` §7.1:
    nothing is wrapped at parse time)."""
    if dtype.fits(value):
        return None
    return (f"integer literal {value} does not fit pl.{dtype.value} "
            f"({dtype.min_value} to {dtype.max_value})")


def _bit_pattern_message(value: int, dtype: ir.DType) -> str | None:
    """Why `pl.const(value, dtype)` is not a literal, or None: its value may lie outside the
    dtype (it denotes its bit pattern, §7.2) but must be a pattern of the dtype's width."""
    bits = dtype.bits
    if -(1 << (bits - 1)) <= value < (1 << bits):
        return None
    return (f"pl.const value {value} is not a {bits}-bit pattern of pl.{dtype.value} "
            f"({-(1 << (bits - 1))} to {(1 << bits) - 1})")


@dataclass(frozen=True, slots=True)
class _Bare:
    """A bare numeric literal whose dtype is settled by its sibling operand (§7.1)."""

    value: int | float
    span: Span


_Typed = ir.Expr | _Bare


@dataclass(slots=True)
class _Decl:
    """A module-level `NAME = pl.MemRef(...)` declaration."""

    pyname: str
    name: str
    slots: int
    span: Span


@dataclass(slots=True)
class _YieldInfo:
    node: ast.stmt
    values: tuple[ir.Expr, ...]
    targets: list[tuple[str, ast.expr | None, ast.expr]]  # name, annotation, target node
    span: Span


@dataclass(slots=True)
class _Loop:
    """A loop being parsed: its binders so far and the carried values the conversion adds
    (`slots`, in order: the names bound before it, then the escaping names)."""

    span: Span
    where: str
    loop_var: ir.Var
    iter_args: list[ir.IterArg]
    rebound: frozenset[str]
    slots: dict[str, ir.Var | ssa.Carry]


def _binding_var(b: ssa.Binding) -> ir.Var:
    """The binder of a live binding (a carried value's once it is made)."""
    var = b.var if isinstance(b, ssa.Carry) else b
    assert isinstance(var, ir.Var)
    return var


class _ModuleParser:
    def __init__(self, text: str, filename: str) -> None:
        self.text = text
        self.filename = filename
        self.lines = text.split("\n")
        self._ascii: dict[int, bool] = {}
        self.last_span = Span(1, 1)
        self.decls: dict[str, _Decl] = {}
        self.bound_names: dict[int, set[str]] = {}
        self.last_read: dict[int, dict[str, int]] = {}

    # -- positions and errors

    def span(self, node: ast.AST) -> Span:
        line = getattr(node, "lineno", 1)
        col = getattr(node, "col_offset", 0)
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        is_ascii = self._ascii.get(line)
        if is_ascii is None:
            is_ascii = self._ascii[line] = text.isascii()
        if not is_ascii:
            col = len(text.encode("utf-8")[:col].decode("utf-8", "ignore"))
        return Span(line, col + 1)

    def error(self, message: str, node: ast.AST | Span) -> NoReturn:
        span = node if isinstance(node, Span) else self.span(node)
        raise SlotsatError(message, span, file=self.filename)

    def source(self, node: ast.AST) -> str:
        text = ast.get_source_segment(self.text, node)
        if text is None:
            text = ast.unparse(node)
        text = " ".join(text.split())
        return text if len(text) <= 80 else text[:77] + "..."

    # -- the module

    def parse(self) -> ir.Module:
        tree = self._ast()
        self._compile_checks(tree)
        if not tree.body:
            self.error(_EMPTY_MESSAGE, Span(1, 1))
        body = list(tree.body)
        if _is_docstring(body[0]):
            body = body[1:]
        imported = False
        classes: list[ast.ClassDef] = []
        pending_aliases: list[ast.Assign] = []
        for node in body:
            self.last_span = self.span(node)
            if isinstance(node, ast.Import | ast.ImportFrom):
                self._check_import(node)
                imported = True
            elif isinstance(node, ast.ClassDef):
                classes.append(node)
            elif isinstance(node, ast.Assign) and self._is_alias(node):
                pending_aliases.append(node)
            elif isinstance(node, ast.Assign):
                self._module_decl(node)
            else:
                self.error(f"unsupported syntax: {_stmt_kind(node)} at module level", node)
        for alias in pending_aliases:
            self._module_alias(alias)
        if not imported:
            if not classes:
                self.error(_EMPTY_MESSAGE, Span(1, 1))
            self.error(_IMPORT_MESSAGE, Span(1, 1))
        if not classes:
            self.error(_EMPTY_MESSAGE, Span(1, 1))
        return ir.Module(tuple(self._program(c) for c in classes))

    def _ast(self) -> ast.Module:
        try:
            with warnings.catch_warnings():  # SyntaxWarnings would print extra lines
                warnings.simplefilter("ignore")
                return ast.parse(self.text, self.filename)
        except (SyntaxError, ValueError) as err:  # ValueError: null bytes on some Pythons
            msg = err.msg if isinstance(err, SyntaxError) else str(err)
            line = getattr(err, "lineno", None) or 0
            col = getattr(err, "offset", None) or 1
            if not line and "\0" in self.text:
                offset = self.text.index("\0")
                line = self.text.count("\n", 0, offset) + 1
                col = offset - (self.text.rfind("\n", 0, offset) + 1) + 1
            self.error(f"syntax error: {msg}", Span(max(line, 1), max(col, 1)))
        except (RecursionError, MemoryError):
            self.error("the kernel is nested too deeply to parse; split the expression or body", Span(1, 1))

    def _compile_checks(self, tree: ast.Module) -> None:
        """The errors CPython's compiler (not its parser, so not `ast.parse`) reports, with its
        wording: a keyword argument given twice, a parameter named twice. The first in the
        file is reported. The same walk collects the names each function binds
        (`ssa.Names`) and the last line that reads each name (escaping names)."""
        first: tuple[tuple[int, int], str, ast.AST] | None = None
        stack: list[tuple[ast.AST, int]] = [(tree, 0)]
        while stack:
            node, owner = stack.pop()
            if type(node) is ast.Name:
                if owner:
                    self._note_name(node, owner)
                continue
            found: tuple[str, ast.AST] | None = None
            if isinstance(node, ast.Call):
                found = _repeated_keyword(node)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                found = _repeated_parameter(node.args)
                if isinstance(node, ast.FunctionDef):
                    owner = id(node)
                    self.bound_names[owner] = {"pl", "self", *(a.arg for a in node.args.args)}
                    self.last_read[owner] = {}
            if found is not None:
                key = (getattr(found[1], "lineno", 0), getattr(found[1], "col_offset", 0))
                if first is None or key < first[0]:
                    first = (key, *found)
            for field in node._fields:
                value = getattr(node, field, None)
                if type(value) is list:
                    stack.extend((v, owner) for v in value if isinstance(v, ast.AST))
                elif isinstance(value, ast.AST) and field != "ctx" and type(value) is not ast.Constant:
                    stack.append((value, owner))
        if first is not None:
            self.error(f"syntax error: {first[1]}", first[2])

    def _note_name(self, node: ast.Name, owner: int) -> None:
        if type(node.ctx) is ast.Store:
            self.bound_names[owner].add(node.id)
        elif self.last_read[owner].get(node.id, 0) < node.lineno:
            self.last_read[owner][node.id] = node.lineno

    def _check_import(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import) and len(node.names) == 1:
            alias = node.names[0]
            if alias.name == "pypto.language" and alias.asname == "pl":
                return
        self.error(_IMPORT_MESSAGE, node)

    def _is_alias(self, node: ast.Assign) -> bool:
        return isinstance(node.value, ast.Name)

    def _module_decl(self, node: ast.Assign) -> None:
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            self.error("unsupported syntax: module-level assignment other than NAME = pl.MemRef(...)", node)
        target = node.targets[0].id
        value = node.value
        if not (isinstance(value, ast.Call) and dotted(value.func) == "pl.MemRef"):
            self.error("unsupported syntax: module-level assignment other than NAME = pl.MemRef(...)", node)
        if len(value.args) > 1:
            self.error("a module-level pl.MemRef() takes an optional name and slots=", value)
        name = target
        if value.args:
            arg = value.args[0]
            if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                self.error(f"pl.MemRef() name must be a string literal, got {self.source(arg)}", arg)
            name = arg.value
        slots = self.slots_kw(value)
        if target in self.decls:
            prev = self.decls[target].span
            self.error(f"pl.MemRef() declaration '{target}' is declared twice (first at "
                       f"{prev.line}:{prev.col})", node.targets[0])
        self.decls[target] = _Decl(target, name, slots, self.span(node))

    def fits(self, value: int, dtype: ir.DType, node: ast.AST) -> None:
        """A located error when an integer literal does not fit its dtype."""
        message = fits_message(value, dtype)
        if message is not None:
            self.error(message, node)

    def slots_kw(self, call: ast.Call) -> int:
        slots = 1
        for kw in call.keywords:
            if kw.arg != "slots":
                self.error(f"pl.MemRef() got an unexpected keyword '{kw.arg}'", kw.value)
            value = _is_int_literal(kw.value)
            if value is None or value < 1:
                self.error(f"slots must be a positive integer literal, got {self.source(kw.value)}", kw.value)
            self.fits(value, ir.DType.INDEX, kw.value)
            slots = value
        return slots

    def _module_alias(self, node: ast.Assign) -> None:
        assert isinstance(node.value, ast.Name)
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            self.error("unsupported syntax: module-level assignment other than NAME = pl.MemRef(...)", node)
        source = node.value.id
        if source in self.decls:
            self.error(f"Declared allocation '{source}' is also referenced as '{node.targets[0].id}'", node)
        self.error("unsupported syntax: module-level assignment other than NAME = pl.MemRef(...)", node)

    def _program(self, node: ast.ClassDef) -> ir.Program:
        self.last_span = self.span(node)
        if len(node.decorator_list) != 1 or dotted(node.decorator_list[0]) != "pl.program":
            if node.decorator_list and isinstance(node.decorator_list[0], ast.Call):
                self.error("unsupported syntax: @pl.program takes no arguments", node.decorator_list[0])
            self.error("a program class must be decorated with @pl.program", node)
        if node.bases or node.keywords:
            self.error("unsupported syntax: a program class has no base classes", node)
        body = list(node.body)
        if body and _is_docstring(body[0]):
            body = body[1:]
        functions: list[ir.Function] = []
        seen: dict[str, Span] = {}
        for item in body:
            if isinstance(item, ast.Pass):
                continue
            if not isinstance(item, ast.FunctionDef):
                self.error(f"unsupported syntax: {_stmt_kind(item)} in a program class "
                           "(only @pl.function methods)", item)
            if item.name in seen:
                prev = seen[item.name]
                self.error(f"function '{item.name}' is already defined at {prev.line}:{prev.col}", item)
            seen[item.name] = self.span(item)
            functions.append(_FunctionParser(self, item).parse())
        if not functions:
            self.error(f"program '{node.name}' defines no @pl.function", node)
        return ir.Program(node.name, tuple(functions), span=self.span(node))


def _repeated_keyword(call: ast.Call) -> tuple[str, ast.AST] | None:
    seen: set[str] = set()
    for kw in call.keywords:
        if kw.arg is not None and kw.arg in seen:
            return (f"keyword argument repeated: {kw.arg}", kw)
        if kw.arg is not None:
            seen.add(kw.arg)
    return None


def _repeated_parameter(a: ast.arguments) -> tuple[str, ast.AST] | None:
    params = [*a.posonlyargs, *a.args, *([a.vararg] if a.vararg else []), *a.kwonlyargs,
              *([a.kwarg] if a.kwarg else [])]
    names: set[str] = set()
    for arg in params:
        if arg.arg in names:
            return (f"duplicate argument '{arg.arg}' in function definition", arg)
        names.add(arg.arg)
    return None


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(
        node.value.value, str)


def _stmt_kind(node: ast.AST) -> str:
    kind = _STMT_KINDS.get(type(node))
    if kind is not None:
        return kind
    if isinstance(node, ast.Expr):
        return "expression statement"
    if isinstance(node, ast.Assign | ast.AnnAssign):
        return "assignment"
    return type(node).__name__


def _valid_or_none(shape: tuple[int, ...], valid: tuple[ir.Expr, ...] | None) -> tuple[ir.Expr, ...] | None:
    """`None` when the valid shape equals the physical shape (the normal form)."""
    if valid is None:
        return None
    if len(valid) == len(shape) and all(
            isinstance(v, ir.ConstInt) and v.dtype is ir.DType.INDEX and v.value == d
            for v, d in zip(valid, shape, strict=True)):
        return None
    return valid


def _dtype_text(d: ir.DType) -> str:
    return f"pl.{d.value}"


def type_text(t: ir.Type) -> str:
    """A short spelling of a type for messages (the printer's spelling without MemRefs)."""
    if isinstance(t, ir.ScalarType):
        return f"pl.Scalar[{_dtype_text(t.dtype)}]"
    if isinstance(t, ir.TensorType):
        inner = f"pl.Tensor[[{', '.join(map(str, t.shape))}], {_dtype_text(t.dtype)}]"
        return f"pl.Out[{inner}]" if t.is_out else inner
    if isinstance(t, ir.TileType):
        parts = [f"[{', '.join(map(str, t.shape))}]", _dtype_text(t.dtype)]
        if t.memory_space is not None:
            parts.append(f"pl.Mem.{t.memory_space.value}")
        return f"pl.Tile[{', '.join(parts)}]"
    return "pl.Ptr"


# --------------------------------------------------------------------------------------
# functions


class _FunctionParser:
    """Parses one `@pl.function`: names, SSA, types, declarations."""

    def __init__(self, mp: _ModuleParser, node: ast.FunctionDef) -> None:
        self.mp = mp
        self.node = node
        self.env = ssa.Scope()
        known = mp.bound_names.get(id(node))
        self.names = ssa.Names(known if known is not None else ssa.function_names(node))
        self.last_read = mp.last_read.get(id(node), {})
        self.analysis = ssa.Analysis()
        self.params: tuple[ir.Var, ...] = ()
        self.ptrs: dict[str, ir.Var] = {}
        self.bases: dict[object, ir.Var] = {}
        self.alloc_names: dict[str, object] = {}
        self.depth = 0
        self.max_depth = max_expr_depth()

    # -- small utilities

    def error(self, message: str, node: ast.AST | Span) -> NoReturn:
        self.mp.error(message, node)

    def span(self, node: ast.AST) -> Span:
        return self.mp.span(node)

    def lookup(self, name: str, node: ast.AST) -> ir.Var:
        """The binder `name` resolves to here (`slotsat.core.dsl.ssa`)."""
        b = self.env.get(name)
        if isinstance(b, ir.Var):
            return b
        if isinstance(b, ssa.Carry):
            if b.var is not None:
                return b.var
            self.error(f"'{name}' is used before it is bound in the loop at {b.loop.line}:{b.loop.col}", node)
        if isinstance(b, ssa.Unbound):
            self.error(b.message(name), node)
        self.error(f"'{name}' is not defined", node)

    def bind(self, name: str, typ: ir.Type, node: ast.AST, param: bool = False) -> ir.Var:
        """A fresh binder for `name` (every binding is one, `slotsat.core.dsl.ssa`), now the
        binding in scope. Only parameters keep `is_out` (the normal form)."""
        if not param and isinstance(typ, ir.TensorType) and typ.is_out:
            typ = ir.TensorType(typ.shape, typ.dtype, False)
        if name in ("pl", "self") or keyword.iskeyword(name):
            self.error(f"'{name}' cannot be bound in a kernel", node)
        var = ir.Var(self.names.hint(name), typ, span=self.span(node))
        self.env[name] = var
        return var

    def rebinding(self, name: str, typ: ir.Type, node: ast.AST) -> None:
        """An assignment keeps the name's type (the reference's rule and wording)."""
        b = self.env.get(name)
        old = b if isinstance(b, ir.Var) else b.var if isinstance(b, ssa.Carry) else None
        if old is not None and not ssa.same_type(old.type, typ):
            self.error(f"Cannot reassign '{name}' with a different type: was {type_text(old.type)}, "
                       f"got {type_text(typ)}", node)

    def binder(self, name: str, typ: ir.Type, span: Span) -> ir.Var:
        """A fresh binder for `name` that the source does not spell (a carried value or a
        result the conversion adds)."""
        if isinstance(typ, ir.TensorType) and typ.is_out:
            typ = ir.TensorType(typ.shape, typ.dtype, False)
        return ir.Var(self.names.hint(name), typ, span=span)

    def materialize(self, c: ssa.Carry, typ: ir.Type, node: ast.AST | Span) -> ir.Var:
        """The binder of a lazily carried value, created with `typ` on first need."""
        if c.var is None:
            if isinstance(typ, ir.TensorType) and typ.is_out:
                typ = ir.TensorType(typ.shape, typ.dtype, False)
            c.var = ir.Var(c.hint, typ, span=c.loop)
            if c.outer is not None:
                c.init = self.materialize(c.outer, typ, node)
        elif not ssa.same_type(c.var.type, typ):
            self.error(f"Cannot reassign '{c.name}' with a different type: was {type_text(c.var.type)}, "
                       f"got {type_text(typ)}", node)
        return c.var

    # -- the function

    def parse(self) -> ir.Function:
        node = self.node
        self.mp.last_span = self.span(node)
        ftype = self._decorator(node)
        params = self.params = self._params(node)
        returns = self._returns(node.returns)
        stmts = [s for s in node.body if not isinstance(s, ast.Pass)]
        if stmts and _is_docstring(stmts[0]):
            stmts = stmts[1:]
        if not stmts or not isinstance(stmts[-1], ast.Return):
            self.error("a function body must end with return", stmts[-1] if stmts else node)
        prefix: list[ir.Stmt] = []
        index = 0
        while index < len(stmts) and self._is_alloc(stmts[index]):
            prefix.append(self._alloc(stmts[index]))
            index += 1
        body, info = self.block(stmts[index:-1], "function", after=ssa.statement_reads(stmts[-1]))
        assert info is None
        ret = self._return(stmts[-1], returns)
        return ir.Function(node.name, ftype, params, returns, ir.SeqStmts((*prefix, *body, ret)),
                           span=self.span(node))

    def _decorator(self, node: ast.FunctionDef) -> ir.FunctionType:
        if len(node.decorator_list) != 1:
            self.error("a program method must be decorated with @pl.function", node)
        deco = node.decorator_list[0]
        if dotted(deco) == "pl.function":
            return ir.FunctionType.OPAQUE
        if isinstance(deco, ast.Call) and dotted(deco.func) == "pl.function" and not deco.args:
            if len(deco.keywords) == 1 and deco.keywords[0].arg == "type":
                kind = dotted(deco.keywords[0].value)
                if kind == "pl.FunctionType.InCore":
                    return ir.FunctionType.INCORE
                if kind == "pl.FunctionType.Opaque":
                    return ir.FunctionType.OPAQUE
                if kind is not None and kind.startswith("pl."):
                    self.error(f"unsupported DSL construct '{kind}'", deco.keywords[0].value)
        if dotted(deco) is not None and (dotted(deco) or "").startswith("pl."):
            self.error(f"unsupported DSL construct '{dotted(deco)}'", deco)
        self.error("a program method must be decorated with @pl.function or "
                   "@pl.function(type=pl.FunctionType.InCore)", deco)

    def _params(self, node: ast.FunctionDef) -> tuple[ir.Var, ...]:
        args = node.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
            self.error("unsupported syntax: *args, **kwargs and keyword-only parameters", node)
        if args.defaults or args.kw_defaults:
            self.error("unsupported syntax: parameter default values", args.defaults[0] if args.defaults
                       else node)
        if not args.args or args.args[0].arg != "self":
            self.error("the first parameter of a @pl.function must be self", node)
        params: list[ir.Var] = []
        for arg in args.args[1:]:
            if arg.annotation is None:
                self.error(f"parameter '{arg.arg}' needs a type annotation", arg)
            typ = self.type(arg.annotation)
            if not isinstance(typ, ir.TensorType | ir.ScalarType):
                self.error(f"parameter '{arg.arg}' must be a tensor, output tensor or scalar, got "
                           f"{type_text(typ)}", arg.annotation)
            params.append(self.bind(arg.arg, typ, arg, param=True))
        return tuple(params)

    def _returns(self, node: ast.expr | None) -> tuple[ir.Type, ...]:
        if node is None:
            return ()
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "tuple":
            elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            return tuple(self.type(e) for e in elts)
        return (self.type(node),)

    def _return(self, node: ast.stmt, returns: tuple[ir.Type, ...]) -> ir.ReturnStmt:
        assert isinstance(node, ast.Return)
        self.mp.last_span = self.span(node)
        if node.value is None:
            values: tuple[ir.Expr, ...] = ()
        elif isinstance(node.value, ast.Tuple):
            values = tuple(self.index_expr(e, allow_any=True) for e in node.value.elts)
        else:
            values = (self.index_expr(node.value, allow_any=True),)
        if len(values) != len(returns):
            self.error(f"return has {len(values)} values but the function is annotated with "
                       f"{len(returns)}", node)
        for value, want in zip(values, returns, strict=True):
            got = _expr_type(value)
            if not _same_kind_shape_dtype(got, want):
                self.error(f"return value has type {type_text(got)} but the function returns "
                           f"{type_text(want)}", node)
        return ir.ReturnStmt(values, span=self.span(node))

    # -- the allocation prefix

    def _is_alloc(self, node: ast.stmt) -> bool:
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        return isinstance(value, ast.Call) and dotted(value.func) == "pl.tile.alloc"

    def _alloc(self, node: ast.stmt) -> ir.AssignStmt:
        assert isinstance(node, ast.Assign | ast.AnnAssign)
        self.mp.last_span = self.span(node)
        target = node.target if isinstance(node, ast.AnnAssign) else (
            node.targets[0] if len(node.targets) == 1 else None)
        if not isinstance(target, ast.Name):
            self.error("pl.tile.alloc(...) must be assigned to one name", node)
        if isinstance(node, ast.AnnAssign) and dotted(node.annotation) != "pl.Ptr":
            self.error(f"annotation says {self.mp.source(node.annotation)} but pl.tile.alloc produces "
                       "pl.Ptr", node.annotation)
        call = node.value
        assert isinstance(call, ast.Call)
        expects = "pl.tile.alloc expects (space, size, pinned=True)"
        if len(call.args) != 2 or len(call.keywords) != 1 or call.keywords[0].arg != "pinned":
            self.error(f"{expects}, got {self.mp.source(call)}", call)
        space = self.space(call.args[0])
        size = _is_int_literal(call.args[1])
        pinned = call.keywords[0].value
        if size is None or size < 0:
            self.error(f"{expects}, got {self.mp.source(call)}", call.args[1])
        self.mp.fits(size, ir.DType.INDEX, call.args[1])
        if not (isinstance(pinned, ast.Constant) and pinned.value is True):
            self.error(f"{expects}, got {self.mp.source(call)}", pinned)
        var = self.bind(target.id, ir.PtrType(), target)
        self.ptrs[target.id] = var
        value = ir.Call("tile.alloc", (ir.SpaceArg(space), ir.ConstInt(size, ir.DType.INDEX)),
                        (("pinned", ir.ConstInt(1, ir.DType.BOOL)),), span=self.span(call))
        return ir.AssignStmt(var, value, span=self.span(node))

    # -- types

    def dtype(self, node: ast.expr) -> ir.DType:
        name = dotted(node)
        if name is not None and name.startswith("pl.") and name[3:] in _DTYPES:
            return _DTYPES[name[3:]]
        if name is not None and name.startswith("pl."):
            self.error(f"unsupported DSL construct '{name}'", node)
        self.error(f"expected a dtype such as pl.FP32, got {self.mp.source(node)}", node)

    def space(self, node: ast.expr) -> ir.MemorySpace:
        name = dotted(node) or ""
        for prefix in ("pl.Mem.", "pl.MemorySpace."):
            if name.startswith(prefix) and name[len(prefix):] in _SPACES:
                return _SPACES[name[len(prefix):]]
        if name.startswith("pl."):
            self.error(f"unsupported DSL construct '{name}'", node)
        self.error(f"expected a memory space such as pl.Mem.Vec, got {self.mp.source(node)}", node)

    def is_space(self, node: ast.expr) -> bool:
        name = dotted(node) or ""
        return name.startswith(("pl.Mem.", "pl.MemorySpace."))

    def shape(self, node: ast.expr) -> tuple[int, ...]:
        if not isinstance(node, ast.List | ast.Tuple):
            self.error(f"tile shape entries must be positive integer literals, got {self.mp.source(node)}",
                       node)
        dims: list[int] = []
        for elt in node.elts:
            value = _is_int_literal(elt)
            if value is None or value < 1:
                self.error(f"tile shape entries must be positive integer literals, got "
                           f"{self.mp.source(elt)}", elt)
            self.mp.fits(value, ir.DType.INDEX, elt)
            dims.append(value)
        if len(dims) not in (1, 2):
            self.error(f"a tile or tensor shape has rank 1 or 2, got rank {len(dims)}", node)
        return tuple(dims)

    def type(self, node: ast.expr) -> ir.Type:
        if dotted(node) == "pl.Ptr":
            return ir.PtrType()
        if not isinstance(node, ast.Subscript):
            name = dotted(node)
            if name is not None and name.startswith("pl."):
                self.error(f"unsupported DSL construct '{name}'", node)
            self.error(f"expected a type annotation such as pl.Tile[...], got {self.mp.source(node)}", node)
        head = dotted(node.value)
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if head == "pl.Scalar":
            if len(items) != 1:
                self.error("pl.Scalar takes one dtype: pl.Scalar[pl.INDEX]", node)
            return ir.ScalarType(self.dtype(items[0]))
        if head == "pl.Tensor":
            if len(items) != 2:
                self.error("pl.Tensor takes a shape and a dtype: pl.Tensor[[D0, D1], pl.FP32]", node)
            return ir.TensorType(self.shape(items[0]), self.dtype(items[1]))
        if head == "pl.Out":
            inner = self.type(node.slice)
            if not isinstance(inner, ir.TensorType):
                self.error("pl.Out takes a tensor type: pl.Out[pl.Tensor[...]]", node)
            return ir.TensorType(inner.shape, inner.dtype, True)
        if head == "pl.Tile":
            return self._tile_type(node, items)
        if head is not None and head.startswith("pl."):
            self.error(f"unsupported DSL construct '{head}'", node.value)
        self.error(f"expected a type annotation such as pl.Tile[...], got {self.mp.source(node)}", node)

    def _tile_type(self, node: ast.Subscript, items: list[ast.expr]) -> ir.TileType:
        if len(items) < 2:
            self.error("pl.Tile takes a shape and a dtype: pl.Tile[[R, C], pl.FP32, ...]", node)
        shape = self.shape(items[0])
        dtype = self.dtype(items[1])
        space: ir.MemorySpace | None = None
        memref: ir.MemRef | None = None
        valid: tuple[ir.Expr, ...] | None = None
        seen: set[str] = set()
        for extra in items[2:]:
            if self.is_space(extra):
                kind = "memory space"
                space = self.space(extra)
            elif isinstance(extra, ast.Call) and dotted(extra.func) == "pl.TileView":
                kind = "TileView"
                valid = self._tile_view(extra, shape)
            else:
                kind = "MemRef"
                memref = self.memref(extra)
            if kind in seen:
                self.error(f"a tile annotation gives its {kind} twice", extra)
            seen.add(kind)
        if memref is not None and space is None:
            self.error("Tile annotation with a memref argument must also specify explicit memory space", node)
        return ir.TileType(shape, dtype, space, memref, _valid_or_none(shape, valid))

    def _tile_view(self, node: ast.Call, shape: tuple[int, ...]) -> tuple[ir.Expr, ...]:
        if node.args or len(node.keywords) != 1 or node.keywords[0].arg != "valid_shape":
            self.error("pl.TileView takes only valid_shape=[...]", node)
        valid = self.expr_list(node.keywords[0].value)
        if len(valid) != len(shape):
            self.error(f"valid_shape has {len(valid)} entries but the tile has rank {len(shape)}", node)
        return valid

    # -- MemRefs

    def memref(self, node: ast.expr) -> ir.MemRef:
        index_node: ast.expr | None = None
        head = node
        if isinstance(node, ast.Subscript):
            head, index_node = node.value, node.slice
        if isinstance(head, ast.Name):
            decl = self.mp.decls.get(head.id)
            if decl is None:
                self.error(f"'{head.id}' is not a pl.MemRef() declaration", head)
            base = self._base(("module", decl.pyname), decl.name, head)
            return self._pinned(base, decl.name, decl.slots, index_node)
        if isinstance(head, ast.Call) and dotted(head.func) == "pl.MemRef":
            if head.args and isinstance(head.args[0], ast.Name):
                return self._resolved(head, index_node)
            if len(head.args) != 1:
                self.error('an inline pl.MemRef() takes a name and slots=: pl.MemRef("NAME", slots=N)', head)
            arg = head.args[0]
            if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                self.error(f"pl.MemRef() name must be a string literal, got {self.mp.source(arg)}", arg)
            slots = self.mp.slots_kw(head)
            base = self._base(("inline", arg.value), arg.value, head)
            return self._pinned(base, arg.value, slots, index_node)
        name = dotted(head)
        if name is not None and name.startswith("pl."):
            self.error(f"unsupported DSL construct '{name}'", head)
        self.error(f"expected a memory space, a MemRef or pl.TileView in a tile annotation, got "
                   f"{self.mp.source(node)}", node)

    def _base(self, key: object, name: str, node: ast.AST) -> ir.Var:
        base = self.bases.get(key)
        if base is not None:
            return base
        other = self.alloc_names.get(name)
        if other is not None and other != key:
            self.error(f"Two separate pl.MemRef() declarations both resolve to the name '{name}'", node)
        base = ir.Var(name, ir.PtrType(), span=self.span(node))
        self.bases[key] = base
        self.alloc_names[name] = key
        return base

    def _slot_index(self, index_node: ast.expr | None) -> ir.Expr | None:
        return None if index_node is None else self.index_expr(index_node)

    def _pinned(self, base: ir.Var, name: str, slots: int, index_node: ast.expr | None) -> ir.MemRef:
        index = self._slot_index(index_node)
        if index_node is not None and index is not None:
            if slots == 1:
                self.error(f"'{name}' was declared with a single slot, so it cannot be subscripted",
                           index_node)
            if isinstance(index, ir.ConstInt) and not 0 <= index.value < slots:
                self.error(f"Slot index {index.value} is out of range for '{name}', declared with "
                           f"{slots} slot(s)", index_node)
        return ir.MemRef(base, ir.ConstInt(0, ir.DType.INDEX), 0, True, slots, index)

    def _resolved(self, head: ast.Call, index_node: ast.expr | None) -> ir.MemRef:
        expects = "a resolved pl.MemRef takes (BASE, OFFSET, SIZE, slots=N)"
        if len(head.args) != 3:
            self.error(f"{expects}, got {self.mp.source(head)}", head)
        base_node = head.args[0]
        assert isinstance(base_node, ast.Name)
        base = self.ptrs.get(base_node.id)
        if base is None or self.env.get(base_node.id) is not base:
            self.error(f"'{base_node.id}' is not a pointer defined by pl.tile.alloc(..., pinned=True) at "
                       "the top of the function", base_node)
        offset = self.index_expr(head.args[1])
        size = _is_int_literal(head.args[2])
        if size is None or size < 0:
            self.error(f"{expects}, got {self.mp.source(head)}", head.args[2])
        self.mp.fits(size, ir.DType.INDEX, head.args[2])
        slots = self.mp.slots_kw(head)
        index = self._slot_index(index_node)
        if index_node is not None and index is not None:
            name = base_node.id
            if slots == 1:
                self.error(f"'{name}' holds a single slot, so it cannot be subscripted", index_node)
            if isinstance(index, ir.ConstInt) and not 0 <= index.value < slots:
                self.error(f"Slot index {index.value} is out of range for '{name}', which holds "
                           f"{slots} slot(s)", index_node)
        return ir.MemRef(base, offset, size, False, slots, index)

    # -- statements

    def block(self, stmts: Sequence[ast.stmt], kind: str, after: frozenset[str] = frozenset()
              ) -> tuple[list[ir.Stmt], _YieldInfo | None]:
        """Parse a statement list. `kind` is "function", "loop" or "branch"; a yield is
        accepted only as the last statement of a loop body or branch. `after` are the names
        read after the list (the escaping rule of `slotsat.core.dsl.ssa`)."""
        items = [s for s in stmts if not isinstance(s, ast.Pass)]
        needs = ssa.Needs(self.analysis, items, after)
        out: list[ir.Stmt] = []
        info: _YieldInfo | None = None
        for position, node in enumerate(items):
            self.mp.last_span = self.span(node)
            if self._is_yield(node):
                if kind == "function" or position != len(items) - 1:
                    self.error("pl.yield_ must be the last statement of a loop body or an if branch", node)
                info = self._yield(node)
                continue
            if isinstance(node, ast.For):
                out.append(self.for_stmt(node, needs))
                continue
            out.append(self.stmt(node))
        return out, info

    def stmt(self, node: ast.stmt) -> ir.Stmt:
        if isinstance(node, ast.For):
            return self.for_stmt(node, None)
        if isinstance(node, ast.If):
            return self.if_stmt(node)
        if isinstance(node, ast.Assign | ast.AnnAssign):
            return self.assign(node)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            return self.eval_stmt(node, node.value)
        if isinstance(node, ast.Return):
            self.error("a function body must end with return", node)
        if self._is_alloc(node):
            self.error("pl.tile.alloc(..., pinned=True) statements are accepted only at the top of a "
                       "function body", node)
        self.error(f"unsupported syntax: {_stmt_kind(node)}", node)

    def _is_yield(self, node: ast.stmt) -> bool:
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign | ast.Expr) else None
        return isinstance(value, ast.Call) and dotted(value.func) == "pl.yield_"

    def _yield(self, node: ast.stmt) -> _YieldInfo:
        assert isinstance(node, ast.Assign | ast.AnnAssign | ast.Expr)
        call = node.value
        assert isinstance(call, ast.Call)
        if isinstance(node, ast.Expr):
            self.error("pl.yield_ must bind its results: NAME = pl.yield_(...)", node)
        if call.keywords:
            self.error("pl.yield_ takes only positional values", call)
        values = tuple(self.index_expr(a, allow_any=True) for a in call.args)
        targets: list[tuple[str, ast.expr | None, ast.expr]] = []
        if isinstance(node, ast.AnnAssign):
            if not isinstance(node.target, ast.Name):
                self.error("unsupported syntax: yield target", node.target)
            targets.append((node.target.id, node.annotation, node.target))
        else:
            if len(node.targets) != 1:
                self.error("unsupported syntax: chained assignment", node)
            target = node.targets[0]
            elts = target.elts if isinstance(target, ast.Tuple) else [target]
            for elt in elts:
                if not isinstance(elt, ast.Name):
                    self.error("unsupported syntax: yield target", elt)
                targets.append((elt.id, None, elt))
        if len(targets) != len(values):
            self.error(f"pl.yield_ has {len(values)} values but binds {len(targets)} names", node)
        return _YieldInfo(node, values, targets, self.span(node))

    def _result_type(self, value: ir.Expr, annotation: ast.expr | None, node: ast.AST) -> ir.Type:
        got = _expr_type(value)
        if annotation is None:
            return got
        return self.agree(self.type(annotation), got, "pl.yield_", annotation)

    # -- loops

    def for_stmt(self, node: ast.For, needs: ssa.Needs | None) -> ir.ForStmt:
        """A loop; `needs` knows the names read after it (`slotsat.core.dsl.ssa`: the body's
        rebindings of names bound before the loop, and of names read after it, become
        carried values after the author's)."""
        fname = self._loop_call(node)
        call = node.iter
        assert isinstance(call, ast.Call)
        is_pipeline = fname == "pl.pipeline"
        start, stop, step = self._bounds(call, fname)
        stages, inits, attrs = self._loop_keywords(call, is_pipeline)
        iv_node, carried_nodes = self._loop_target(node.target, len(inits), call)
        before = self.env
        loop = self._enter_loop(node, iv_node, carried_nodes, inits, needs)
        body, info = self.block(node.body, "loop")
        if inits and info is None:
            self.error("a loop with init_values must end with pl.yield_", node.body[-1])
        if info is not None and len(info.values) != len(inits):
            self.error(f"pl.yield_ has {len(info.values)} values but the loop carries {len(inits)}",
                       info.node)
        values = [*(info.values if info is not None else ()), *self._close_carries(loop, before)]
        results = self._loop_results(loop, info, before, iv_node, carried_nodes)
        if values:
            body.append(ir.YieldStmt(tuple(values), span=info.span if info is not None else loop.span))
        kind = ir.ForKind.PIPELINE if is_pipeline else ir.ForKind.SEQUENTIAL
        all_attrs = ((ir.PIPELINE_STAGES, stages), *attrs) if is_pipeline else attrs
        return ir.ForStmt(kind, loop.loop_var, start, stop, step, tuple(loop.iter_args), tuple(results),
                          ir.SeqStmts(tuple(body)), tuple(all_attrs), span=loop.span)

    def _loop_call(self, node: ast.For) -> str:
        """`pl.range` or `pl.pipeline`: what the loop iterates over."""
        if node.orelse:
            self.error("unsupported syntax: for ... else", node)
        call = node.iter
        fname = dotted(call.func) if isinstance(call, ast.Call) else None
        if fname == "range":
            self.error("unsupported syntax: plain Python range (write pl.range)", call)
        if not isinstance(call, ast.Call) or fname not in ("pl.range", "pl.pipeline"):
            if fname is not None and fname.startswith("pl."):
                self.error(f"unsupported DSL construct '{fname}'", call)
            self.error("unsupported syntax: a loop must iterate over pl.range(...) or pl.pipeline(...)", call)
        assert fname is not None
        return fname

    def _enter_loop(self, node: ast.For, iv_node: ast.Name, carried_nodes: list[ast.Name],
                    inits: tuple[ir.Expr, ...], needs: ssa.Needs | None) -> _Loop:
        """Bind the loop's header and decide what it carries besides the author's values:
        the names its body rebinds that are bound before it, then (without `init_values`)
        the names first bound inside it and read after it."""
        span = self.span(node)
        before = self.env
        own = {iv_node.id, *(n.id for n in carried_nodes)}
        rebound = self.analysis.loop_binds(node) - own
        implicit = sorted(n for n in rebound if ssa.is_live(before.get(n)))
        # escaping: first bound inside, read after (only names read on a later line can be)
        end = node.end_lineno or node.lineno
        later = [] if inits or needs is None else [
            n for n in rebound if not ssa.is_live(before.get(n)) and self.last_read.get(n, 0) > end]
        escaping = sorted(n for n in later if n in needs.of(node)) if later and needs is not None else []
        self.env = before.child()
        if iv_node.id == "_":
            loop_var = ir.Var("_", ir.ScalarType(ir.DType.INDEX), span=self.span(iv_node))
            self.env["_"] = ssa.Unbound("a loop variable spelled _ cannot be read")
        else:
            loop_var = self.bind(iv_node.id, ir.ScalarType(ir.DType.INDEX), iv_node)
        iter_args = [ir.IterArg(self.bind(n.id, _expr_type(init), n), init)
                     for n, init in zip(carried_nodes, inits, strict=True)]
        slots: dict[str, ir.Var | ssa.Carry] = {}
        for name in implicit:
            b = before[name]
            if isinstance(b, ssa.Carry) and b.var is None:
                slots[name] = ssa.Carry(name, self.names.hint(name), span, b)
            else:
                slots[name] = self.binder(name, _binding_var(b).type, span)
            self.env[name] = slots[name]
        for name in escaping:
            slots[name] = self.env[name] = ssa.Carry(name, self.names.hint(name), span, None)
        return _Loop(span, f"{span.line}:{span.col}", loop_var, iter_args, rebound, slots)

    def _close_carries(self, loop: _Loop, before: ssa.Scope) -> list[ir.Var]:
        """Append the added carried values to `loop.iter_args`; return their yield values
        (the bindings the body ends with)."""
        end = self.env
        values: list[ir.Var] = []
        for name, slot in loop.slots.items():
            value = self._carried_value(name, end.get(name), slot, loop.where, loop.span)
            if isinstance(slot, ssa.Carry):
                var = self.materialize(slot, value.type, loop.span)
                if slot.outer is None and slot.init is None:
                    slot.init = self._escaping_init(name, var.type, before, loop.where, loop.span)
                assert slot.init is not None
                loop.iter_args.append(ir.IterArg(var, slot.init))
            else:
                if not ssa.same_type(slot.type, value.type):
                    self.error(f"'{name}' is carried by the loop at {loop.where} with type "
                               f"{type_text(slot.type)}, but its body leaves it with type "
                               f"{type_text(value.type)}", loop.span)
                loop.iter_args.append(ir.IterArg(slot, _binding_var(before[name])))
            values.append(value)
        return values

    def _loop_results(self, loop: _Loop, info: _YieldInfo | None, before: ssa.Scope,
                      iv_node: ast.Name, carried_nodes: list[ast.Name]) -> list[ir.Var]:
        """Bind the loop's results (the author's yield targets, then one per added carried
        value) in the scope after the loop, where its own names have no value."""
        where = loop.where
        after = before
        for name in loop.rebound:
            if name not in loop.slots and not ssa.is_live(before.get(name)):
                after[name] = ssa.Unbound(f"it is bound only inside the loop at {where}")
        after[iv_node.id] = ssa.Unbound(f"it is the loop variable of the loop at {where}")
        for n in carried_nodes:
            after[n.id] = ssa.Unbound(f"it is carried by the loop at {where}; its result is the name "
                                      "its pl.yield_ binds")
        self.env = after
        results: list[ir.Var] = []
        explicit: set[str] = set()
        if info is not None:
            results = [self.bind(name, self._result_type(v, ann, tnode), tnode)
                       for (name, ann, tnode), v in zip(info.targets, info.values, strict=True)]
            explicit = {name for name, _, _ in info.targets}
        for name in loop.slots:
            rv = self.binder(name, loop.iter_args[len(results)].var.type, loop.span)
            results.append(rv)
            if name not in explicit:
                self.env[name] = rv
        return results

    def _carried_value(self, name: str, b: ssa.Binding | None, slot: ir.Var | ssa.Carry, where: str,
                       span: Span) -> ir.Var:
        """The binder a carried name has at the end of its loop's body (its yield value)."""
        if isinstance(b, ir.Var):
            return b
        if isinstance(b, ssa.Carry) and b.var is not None:
            return b.var
        if isinstance(b, ssa.Unbound):
            self.error(f"'{name}' is carried by the loop at {where}, but it has no value at the end of the "
                       f"loop body ({b.reason})", span)
        assert b is slot, f"carried '{name}' left with a foreign binding"
        self.error(f"'{name}' is carried by the loop at {where}, but its body never binds it", span)

    def _escaping_init(self, name: str, typ: ir.Type, before: ssa.Scope, where: str,
                       span: Span) -> ir.Var:
        """The initial value of a name first bound inside a loop and read after it: the first
        output parameter whose current binding has its type (the reference's FindInitValue)."""
        for param, arg in zip(self.params, self.node.args.args[1:], strict=True):
            if not (isinstance(param.type, ir.TensorType) and param.type.is_out):
                continue
            b = before.get(arg.arg)
            cur = b.var if isinstance(b, ssa.Carry) else b
            if isinstance(cur, ir.Var) and ssa.same_type(cur.type, typ):
                return cur
        self.error(f"'{name}' is bound inside the loop at {where} and read after it, but it has no value "
                   "if the loop runs zero times; bind it before the loop", span)

    def _bounds(self, call: ast.Call, fname: str) -> tuple[ir.Expr, ir.Expr, ir.Expr]:
        if not 1 <= len(call.args) <= 3:
            self.error(f"{fname}() takes 1 to 3 positional bounds, got {len(call.args)}", call)
        bounds: list[ir.Expr] = []
        for arg in call.args:
            bound = self.index_expr(arg)
            if ir.expr_dtype(bound) is not ir.DType.INDEX:
                self.error(f"loop bounds must be pl.INDEX, got {_dtype_text(ir.expr_dtype(bound))}; "
                           "insert pl.cast", arg)
            bounds.append(bound)
        zero = ir.ConstInt(0, ir.DType.INDEX)
        one = ir.ConstInt(1, ir.DType.INDEX)
        if len(bounds) == 1:
            return zero, bounds[0], one
        if len(bounds) == 2:
            return bounds[0], bounds[1], one
        step = bounds[2]
        if isinstance(step, ir.ConstInt) and step.value == 0:
            self.error("loop step must not be zero", call.args[2])
        return bounds[0], bounds[1], step

    def _loop_keywords(self, call: ast.Call, is_pipeline: bool
                       ) -> tuple[int, tuple[ir.Expr, ...], list[tuple[str, ir.AttrValue]]]:
        stages = 0
        inits: tuple[ir.Expr, ...] = ()
        attrs: list[tuple[str, ir.AttrValue]] = []
        has_stage = False
        for kw in call.keywords:
            if kw.arg == "stage":
                if not is_pipeline:
                    self.error("stage= is only supported on pl.pipeline(), not pl.range()", kw.value)
                stages = self._stage(kw.value)
                has_stage = True
            elif kw.arg == "init_values":
                if not isinstance(kw.value, ast.Tuple | ast.List):
                    self.error("init_values must be a tuple: init_values=(A,), got "
                               f"{self.mp.source(kw.value)}", kw.value)
                inits = tuple(self.index_expr(e, allow_any=True) for e in kw.value.elts)
            elif kw.arg == "attrs":
                attrs = self.attrs(kw.value)
                if any(k == ir.PIPELINE_STAGES for k, _ in attrs):
                    self.error("pipeline_stages may not be given through attrs=; write "
                               "pl.pipeline(..., stage=F)", kw.value)
            else:
                name = "pl.pipeline" if is_pipeline else "pl.range"
                self.error(f"{name}() got an unexpected keyword '{kw.arg}'", kw.value if kw.arg else call)
        if is_pipeline and not has_stage:
            self.error("pl.pipeline() requires stage= (positive integer)", call)
        return stages, inits, attrs

    def _stage(self, node: ast.expr) -> int:
        value = _is_int_literal(node)
        if value is None:
            self.error("pl.pipeline() stage must be a compile-time constant integer", node)
        if value < 1:
            self.error(f"pl.pipeline() stage must be >= 1, got {value}", node)
        self.mp.fits(value, ir.DType.INDEX, node)
        return value

    def attrs(self, node: ast.expr) -> list[tuple[str, ir.AttrValue]]:
        if not isinstance(node, ast.Dict):
            self.error(f'attrs must be a dict literal: attrs={{"KEY": VALUE}}, got {self.mp.source(node)}',
                       node)
        out: list[tuple[str, ir.AttrValue]] = []
        seen: set[str] = set()
        for key, value in zip(node.keys, node.values, strict=True):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                self.error(f"attrs keys must be string literals, got "
                           f"{self.mp.source(key) if key is not None else '**'}", key or node)
            if key.value in seen:
                self.error(f"attrs key '{key.value}' is given twice", key)
            seen.add(key.value)
            literal = _is_int_literal(value)
            attr: ir.AttrValue
            if literal is not None:
                self.mp.fits(literal, ir.DType.INT64, value)
                attr = literal
            elif isinstance(value, ast.Constant) and isinstance(value.value, bool | str):
                attr = value.value
            else:
                self.error(f"attrs values must be int, bool or string literals, got {self.mp.source(value)}",
                           value)
            out.append((key.value, attr))
        return out

    def _loop_target(self, target: ast.expr, count: int, call: ast.Call) -> tuple[ast.Name, list[ast.Name]]:
        if isinstance(target, ast.Name):
            if count:
                self.error(f"init_values has {count} values but the loop unpacks 0 names", target)
            return target, []
        if (isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[0], ast.Name)
                and isinstance(target.elts[1], ast.Tuple | ast.List)):
            names = target.elts[1].elts
            for n in names:
                if not isinstance(n, ast.Name):
                    self.error("unsupported syntax: loop target (write for i, (a, b) in ...)", n)
            if len(names) != count:
                self.error(f"init_values has {count} values but the loop unpacks {len(names)} names", target)
            return target.elts[0], [n for n in names if isinstance(n, ast.Name)]
        self.error("unsupported syntax: loop target (write for i in ... or for i, (a,) in ...)", target)

    # -- if

    def if_stmt(self, node: ast.If) -> ir.IfStmt:
        """An if; names its branches rebind become its results, ahead of the author's
        (`slotsat.core.dsl.ssa`)."""
        cond = self.index_expr(node.test)
        if ir.expr_dtype(cond) is not ir.DType.BOOL:
            self.error("an if condition must be a comparison or a pl.BOOL scalar", node.test)
        span = self.span(node)
        before = self.env
        self.env = before.child()
        then_body, then_info = self.block(node.body, "branch")
        then_env = self.env
        self.env = before.child()
        else_body: list[ir.Stmt] | None = None
        else_info: _YieldInfo | None = None
        if node.orelse:
            else_body, else_info = self.block(node.orelse, "branch")
        else_env = self.env
        if then_info is not None or else_info is not None:
            self._check_if_yields(then_info, else_info)
        explicit = None if then_info is None else {t[0] for t in then_info.targets}
        after, phis = self._if_merge(before, then_env, else_env, explicit, span)
        self.env = before
        before.local.update(after)
        results = [self.binder(name, tv.type, span) for name, tv, _ in phis]
        then_values: list[ir.Expr] = [tv for _, tv, _ in phis]
        else_values: list[ir.Expr] = [ev for _, _, ev in phis]
        if then_info is not None and else_info is not None:
            results.extend(self._if_results(then_info, else_info))
            then_values.extend(then_info.values)
            else_values.extend(else_info.values)
        for (name, _, _), var in zip(phis, results, strict=False):
            self.env[name] = var
        if results:
            then_body.append(ir.YieldStmt(tuple(then_values), span=then_info.span if then_info else span))
            else_body = [] if else_body is None else else_body
            else_body.append(ir.YieldStmt(tuple(else_values), span=else_info.span if else_info else span))
        return ir.IfStmt(cond, ir.SeqStmts(tuple(then_body)),
                         None if else_body is None else ir.SeqStmts(tuple(else_body)), tuple(results),
                         span=span)

    def _if_merge(self, before: ssa.Scope, then_env: ssa.Scope, else_env: ssa.Scope,
                  explicit: set[str] | None, span: Span
                  ) -> tuple[dict[str, ssa.Binding], list[tuple[str, ir.Var, ir.Var]]]:
        """What an if changes in the scope it stands in, and its added results (name, then
        value, else value): names a branch rebinds and, when the if has no explicit yields
        (`explicit` is None, else the names they bind), names new in both."""
        where = f"{span.line}:{span.col}"
        after: dict[str, ssa.Binding] = {}
        phis: list[tuple[str, ir.Var, ir.Var]] = []
        for name in sorted(set(then_env.local) | set(else_env.local)):
            b, t, e = before.get(name), then_env.get(name), else_env.get(name)
            if (explicit is not None and name in explicit) or (t is b and e is b):
                continue
            if ssa.is_live(t) and ssa.is_live(e) and (ssa.is_live(b) or explicit is None):
                tv, ev = self._branch_value(t, e, span), self._branch_value(e, t, span)
                if not ssa.same_type(tv.type, ev.type):
                    self.error(f"'{name}' has type {type_text(tv.type)} in the then branch and "
                               f"{type_text(ev.type)} in the else branch of the if at {where}", span)
                phis.append((name, tv, ev))
                continue
            lost = t if isinstance(t, ssa.Unbound) else e
            if ssa.is_live(b) and isinstance(lost, ssa.Unbound):
                after[name] = lost
            elif ssa.is_live(t) and ssa.is_live(e):
                after[name] = ssa.Unbound(f"it is bound inside the if at {where}, whose results are the "
                                          "names its pl.yield_ binds")
            elif ssa.is_live(t) or ssa.is_live(e):
                after[name] = ssa.Unbound(f"it is bound in only one branch of the if at {where}")
            elif isinstance(lost, ssa.Unbound):
                after[name] = lost
        return after, phis

    def _branch_value(self, b: ssa.Binding | None, other: ssa.Binding | None, span: Span) -> ir.Var:
        """The binder a branch leaves for a name (a lazily carried value is made now, with
        the other branch's type)."""
        if isinstance(b, ir.Var):
            return b
        assert isinstance(b, ssa.Carry)
        if b.var is not None:
            return b.var
        typ = other.type if isinstance(other, ir.Var) else other.var.type if (
            isinstance(other, ssa.Carry) and other.var is not None) else None
        assert typ is not None, "an if merge of two unbound carried values"
        return self.materialize(b, typ, span)

    def _check_if_yields(self, then_info: _YieldInfo | None, else_info: _YieldInfo | None) -> None:
        message = "both branches of an if must yield the same names"
        if then_info is None:
            assert else_info is not None
            self.error(message, else_info.node)
        if else_info is None:
            self.error(message, then_info.node)
        if [t[0] for t in then_info.targets] != [t[0] for t in else_info.targets]:
            self.error(message, else_info.node)

    def _if_results(self, then_info: _YieldInfo, else_info: _YieldInfo) -> tuple[ir.Var, ...]:
        results = tuple(self.bind(name, self._result_type(v, ann, tnode), tnode)
                        for (name, ann, tnode), v in zip(then_info.targets, then_info.values, strict=True))
        for var, (_, ann, _tnode), value in zip(results, else_info.targets, else_info.values, strict=True):
            got = self._result_type(value, ann, _tnode)
            if not _same_kind_shape_dtype(got, var.type):
                self.error(f"both branches of an if must yield the same types: {type_text(var.type)} and "
                           f"{type_text(got)}", else_info.node)
        return results

    # -- assignments

    def assign(self, node: ast.Assign | ast.AnnAssign) -> ir.AssignStmt:
        annotation: ast.expr | None = None
        target: ast.expr
        if isinstance(node, ast.AnnAssign):
            if node.value is None:
                self.error("unsupported syntax: annotation without a value", node)
            target, annotation = node.target, node.annotation
        else:
            if len(node.targets) != 1:
                self.error("unsupported syntax: chained assignment", node)
            target = node.targets[0]
        if isinstance(target, ast.Tuple | ast.List):
            self.error("unsupported syntax: tuple unpacking (only NAME1, NAME2 = pl.yield_(...))", target)
        if isinstance(target, ast.Subscript):
            self.error("unsupported syntax: subscripted assignment target", target)
        if isinstance(target, ast.Attribute):
            self.error("unsupported syntax: attribute assignment target", target)
        assert isinstance(target, ast.Name)
        value_node = node.value
        assert value_node is not None
        annot = None if annotation is None else self.type(annotation)
        value, inferred, what = self.value(value_node, annot)
        typ = inferred if annot is None else self.agree(annot, inferred, what, annotation or node)
        self.rebinding(target.id, typ, target)
        var = self.bind(target.id, typ, target)
        return ir.AssignStmt(var, value, span=self.span(node))

    def value(self, node: ast.expr, annot: ir.Type | None) -> tuple[ir.Expr | ir.Call, ir.Type, str]:
        """The value of an assignment, its type, and what to call it in messages."""
        if isinstance(node, ast.Call):
            name = dotted(node.func)
            if name in ("pl.const", "pl.cast") and not self._is_tile_cast(node):
                expr = self.index_expr(node)
                return expr, _expr_type(expr), "the expression"
            if name == "pl.tile.alloc":
                self.error("pl.tile.alloc(..., pinned=True) statements are accepted only at the top of a "
                           "function body", node)
            call, typ = self.op_call(node, annot)
            return call, typ, f"pl.{call.op}"
        if isinstance(node, ast.Name):
            var = self.lookup(node.id, node)
            if isinstance(var.type, ir.PtrType):
                self.error(f"'{node.id}' is a pointer; it may only appear as a MemRef base", node)
            return var, var.type, f"'{node.id}'"
        expr = self.index_expr(node, allow_float=True)
        return expr, _expr_type(expr), "the expression"

    def eval_stmt(self, node: ast.Expr, call: ast.Call) -> ir.EvalStmt:
        name = dotted(call.func)
        if name in ("pl.const", "pl.cast") and not self._is_tile_cast(call):
            self.error("unsupported syntax: expression statement", node)
        if name == "pl.tile.alloc":
            self.error("pl.tile.alloc(..., pinned=True) statements are accepted only at the top of a "
                       "function body", node)
        op_call, _ = self.op_call(call, None, statement=True)
        return ir.EvalStmt(op_call, span=self.span(node))

    def _is_tile_cast(self, node: ast.Call) -> bool:
        if dotted(node.func) != "pl.cast" or not node.args or not isinstance(node.args[0], ast.Name):
            return False
        b = self.env.get(node.args[0].id)
        var = b.var if isinstance(b, ssa.Carry) else b
        return isinstance(var, ir.Var) and isinstance(var.type, ir.TileType)

    def agree(self, annot: ir.Type, got: ir.Type, what: str, node: ast.AST) -> ir.Type:
        """Check an annotation against the value's type (§6.3); return the binder's type."""
        mismatch = f"annotation says {type_text(annot)} but {what} produces {type_text(got)}"
        if isinstance(annot, ir.TileType):
            if not isinstance(got, ir.TileType) or got.shape != annot.shape or got.dtype != annot.dtype:
                self.error(mismatch, node)
            if annot.memory_space is not None and got.memory_space is not None and (
                    annot.memory_space != got.memory_space):
                self.error(mismatch, node)
            if annot.valid_shape is not None and annot.valid_shape != got.valid_shape:
                self.error(f"annotation says valid_shape={_exprs_text(annot.effective_valid_shape)} "
                           f"but {what} "
                           f"produces valid_shape={_exprs_text(got.effective_valid_shape)}", node)
            return ir.TileType(annot.shape, annot.dtype, annot.memory_space or got.memory_space, annot.memref,
                               annot.valid_shape if annot.valid_shape is not None else got.valid_shape)
        if not _same_kind_shape_dtype(annot, got):
            self.error(mismatch, node)
        return annot

    # -- operation calls

    def op_call(self, node: ast.Call, annot: ir.Type | None,
                statement: bool = False) -> tuple[ir.Call, ir.Type]:
        name = dotted(node.func)
        op = _op_name(name)
        if op is None:
            if name is not None and name.startswith("pl."):
                self.error(f"unsupported DSL construct '{name}'", node.func)
            self.error(f"unsupported syntax: call of '{self.mp.source(node.func)}'", node.func)
        spec = ops.lookup(op)
        if spec is None or not spec.in_subset:
            if annot is None and not statement:
                self.error(f"unsupported DSL construct '{name}'", node.func)
            return self._opaque(node, op, annot)
        return _OpCall(self, node, spec, annot).build()

    def _opaque(self, node: ast.Call, op: str, annot: ir.Type | None) -> tuple[ir.Call, ir.Type]:
        args = tuple(self.opaque_arg(a) for a in node.args)
        kwargs: list[tuple[str, ir.CallArg]] = []
        attrs: list[tuple[str, ir.AttrValue]] = []
        for kw in node.keywords:
            if kw.arg is None:
                self.error("unsupported syntax: **kwargs in a call", kw.value)
            if kw.arg == "attrs":
                attrs = self.attrs(kw.value)
            else:
                kwargs.append((kw.arg, self.opaque_arg(kw.value)))
        call = ir.Call(op, args, tuple(kwargs), tuple(attrs), span=self.span(node))
        typ: ir.Type = annot if annot is not None else ir.ScalarType(ir.DType.INDEX)
        if isinstance(typ, ir.TileType) and typ.memory_space is None:
            first = next((a for a in args if isinstance(a, ir.Var) and isinstance(a.type, ir.TileType)), None)
            if first is not None:
                assert isinstance(first.type, ir.TileType)
                typ = ir.TileType(typ.shape, typ.dtype, first.type.memory_space, typ.memref, typ.valid_shape)
        return call, typ

    def opaque_arg(self, node: ast.expr) -> ir.CallArg:
        if isinstance(node, ast.List):
            return ir.ExprList(self.expr_list(node), span=self.span(node))
        if self.is_space(node):
            return ir.SpaceArg(self.space(node))
        name = dotted(node)
        if name is not None and name.startswith("pl.") and name[3:] in _DTYPES:
            return ir.DTypeArg(_DTYPES[name[3:]])
        if isinstance(node, ast.Constant) and isinstance(node.value, bool):
            return ir.ConstInt(int(node.value), ir.DType.BOOL, span=self.span(node))
        return self.index_expr(node, allow_any=True, allow_float=True)

    def expr_list(self, node: ast.expr) -> tuple[ir.Expr, ...]:
        if not isinstance(node, ast.List | ast.Tuple):
            self.error(f"expected a list literal [...], got {self.mp.source(node)}", node)
        return tuple(self.index_expr(e) for e in node.elts)

    # -- scalar expressions

    def index_expr(self, node: ast.expr, allow_any: bool = False, allow_float: bool = False) -> ir.Expr:
        """A scalar expression whose bare literals are INDEX (§7.1). With `allow_any`, a name
        of any type (tile, tensor) is accepted at the top."""
        if allow_any and isinstance(node, ast.Name):
            var = self.lookup(node.id, node)
            if isinstance(var.type, ir.PtrType):
                self.error(f"'{node.id}' is a pointer; it may only appear as a MemRef base", node)
            return var
        return self.settle(self.expr(node, allow_float), ir.DType.INDEX)

    def settle(self, e: _Typed, dtype: ir.DType) -> ir.Expr:
        """A bare literal takes `dtype` (§7.1); an integer that does not fit it is an error."""
        if isinstance(e, _Bare):
            if isinstance(e.value, float):
                return ir.ConstFloat(e.value, ir.DType.FP32, span=e.span)
            if dtype.is_int or dtype is ir.DType.BOOL:
                message = fits_message(e.value, dtype)
                if message is not None:
                    self.error(message, e.span)
            return ir.ConstInt(e.value, dtype, span=e.span)
        return e

    def expr(self, node: ast.expr, allow_float: bool = False) -> _Typed:
        """A scalar expression, its nesting bounded by `max_expr_depth()` (one limit for
        kernels and `slotsat explore`)."""
        self.depth += 1
        try:
            if self.depth > self.max_depth:
                self.error(f"the expression is nested too deeply: more than {self.max_depth} levels (set "
                           "SLOTSAT_MAX_EXPR_DEPTH to raise the limit)", node)
            return self._expr(node, allow_float)
        finally:
            self.depth -= 1

    def _expr(self, node: ast.expr, allow_float: bool) -> _Typed:
        if isinstance(node, ast.Constant):
            if type(node.value) is int:
                return _Bare(node.value, self.span(node))
            if type(node.value) is float and allow_float:
                return _Bare(self.finite(node.value, node), self.span(node))
            self.error(f"unsupported syntax: literal {self.mp.source(node)}", node)
        if isinstance(node, ast.Name):
            var = self.lookup(node.id, node)
            if not isinstance(var.type, ir.ScalarType):
                kind = {ir.TileType: "a tile", ir.TensorType: "a tensor", ir.PtrType: "a pointer"}.get(
                    type(var.type), "not a scalar")
                self.error(f"'{node.id}' is {kind}, not a scalar", node)
            return var
        if isinstance(node, ast.UnaryOp):
            return self._unary(node, allow_float)
        if isinstance(node, ast.BinOp):
            return self._binop(node)
        if isinstance(node, ast.Compare):
            return self._compare(node)
        if isinstance(node, ast.Call):
            return self._scalar_call(node)
        name = dotted(node)
        if name is not None and name.startswith("pl."):
            self.error(f"unsupported DSL construct '{name}'", node)
        self.error(f"unsupported syntax: {_expr_kind(node)}", node)

    def _unary(self, node: ast.UnaryOp, allow_float: bool) -> _Typed:
        if isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
            value = node.operand.value
            if type(value) is int:
                return _Bare(-value, self.span(node))
            if type(value) is float and allow_float:
                return _Bare(-self.finite(value, node), self.span(node))
        if isinstance(node.op, ast.USub):
            self.error("unary minus is supported on integer literals only; write 0 - X", node)
        self.error(f"unsupported syntax: unary operator {self.mp.source(node)}", node)

    def _pair(self, left: ast.expr, right: ast.expr, symbol: str, node: ast.AST) -> tuple[ir.Expr, ir.Expr]:
        a = self.expr(left)
        b = self.expr(right)
        if isinstance(a, _Bare) and isinstance(b, _Bare):
            return self.settle(a, ir.DType.INDEX), self.settle(b, ir.DType.INDEX)
        if isinstance(a, _Bare):
            assert not isinstance(b, _Bare)
            return self.settle(a, ir.expr_dtype(b)), b
        if isinstance(b, _Bare):
            return a, self.settle(b, ir.expr_dtype(a))
        da, db = ir.expr_dtype(a), ir.expr_dtype(b)
        if da is not db:
            self.error(f"operands of '{symbol}' have dtypes {_dtype_text(da)} and {_dtype_text(db)}; "
                       "insert pl.cast", node)
        return a, b

    def _binop(self, node: ast.BinOp) -> ir.Expr:
        cls = _BINOPS.get(type(node.op))
        symbol = _OP_SYMBOL.get(type(node.op), type(node.op).__name__)
        if cls is None:
            self.error(f"unsupported syntax: operator '{symbol}'", node)
        a, b = self._pair(node.left, node.right, symbol, node)
        dtype = ir.expr_dtype(a)
        if not dtype.is_int:
            self.error(f"operator '{symbol}' needs integer operands, got {_dtype_text(dtype)}", node)
        expr: ir.Expr = cls(a, b, dtype, span=self.span(node))
        return expr

    def _compare(self, node: ast.Compare) -> ir.Expr:
        if len(node.ops) != 1:
            self.error("unsupported syntax: chained comparison", node)
        op = _CMPOPS.get(type(node.ops[0]))
        if op is None:
            self.error(f"unsupported syntax: comparison {type(node.ops[0]).__name__}", node)
        a, b = self._pair(node.left, node.comparators[0], op.value, node)
        dtype = ir.expr_dtype(a)
        if not (dtype.is_int or dtype is ir.DType.BOOL):
            self.error(f"comparison '{op.value}' needs integer operands, got {_dtype_text(dtype)}", node)
        return ir.Cmp(op, a, b, span=self.span(node))

    def _scalar_call(self, node: ast.Call) -> ir.Expr:
        name = dotted(node.func)
        if name == "pl.const":
            return self._const(node)
        if name == "pl.cast":
            return self._cast(node)
        not_ops = ("pl.yield_", "pl.range", "pl.pipeline")
        if name is not None and name.startswith("pl.") and name not in not_ops:
            op = _op_name(name)
            if op is not None and ops.lookup(op) is not None:
                self.error(f"unsupported syntax: nested operation call (assign {name}(...) to a name first)",
                           node)
            self.error(f"unsupported DSL construct '{name}'", node.func)
        if name is not None and name.startswith("pl."):
            self.error(f"{name} is not an expression", node)
        self.error(f"unsupported syntax: call of '{self.mp.source(node.func)}'", node.func)

    def _const(self, node: ast.Call) -> ir.Expr:
        if len(node.args) != 2 or node.keywords:
            self.error(f"pl.const expects (value, dtype), got {self.mp.source(node)}", node)
        dtype = self.dtype(node.args[1])
        value_node = node.args[0]
        value = _is_int_literal(value_node)
        if value is not None:
            if dtype.is_float:
                return ir.ConstFloat(self.finite(value, value_node), dtype, span=self.span(node))
            message = _bit_pattern_message(value, dtype)
            if message is not None:
                self.error(message, value_node)
            return ir.ConstInt(value, dtype, span=self.span(node))
        fvalue: float | None = None
        if isinstance(value_node, ast.Constant) and type(value_node.value) is float:
            fvalue = value_node.value
        elif (isinstance(value_node, ast.UnaryOp) and isinstance(value_node.op, ast.USub)
              and isinstance(value_node.operand, ast.Constant) and type(value_node.operand.value) is float):
            fvalue = -value_node.operand.value
        if fvalue is None or not dtype.is_float:
            self.error(f"pl.const expects (value, dtype), got {self.mp.source(node)}", node)
        return ir.ConstFloat(self.finite(fvalue, value_node), dtype, span=self.span(node))

    def finite(self, value: int | float, node: ast.AST) -> float:
        """A float literal's value; an infinite one (`1e400`, an integer past the float range)
        is an error, since it has no printed form."""
        try:
            result = float(value)
        except OverflowError:
            result = math.inf
        if not math.isfinite(result):
            self.error(f"float literal {self.mp.source(node)} is not finite", node)
        return result

    def _cast(self, node: ast.Call) -> ir.Expr:
        if len(node.args) != 2 or node.keywords:
            self.error(f"pl.cast expects (value, dtype), got {self.mp.source(node)}", node)
        dtype = self.dtype(node.args[1])
        value = self.index_expr(node.args[0])
        src = ir.expr_dtype(value)
        if not (src.is_int and dtype.is_int):
            self.error(f"pl.cast converts between integer dtypes, got {_dtype_text(src)} to "
                       f"{_dtype_text(dtype)}", node)
        if src.is_signed != dtype.is_signed:
            self.error(f"pl.cast between signed and unsigned dtypes is outside the subset "
                       f"({_dtype_text(src)} to {_dtype_text(dtype)})", node)
        return ir.Cast(value, dtype, span=self.span(node))


class _ExprParser(_FunctionParser):
    """The expression half of a function parser, with names resolved by a callback."""

    _NO_FUNCTION = ast.FunctionDef(name="<expression>", args=ast.arguments(
        posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=[], decorator_list=[], returns=None, type_comment=None)

    def __init__(self, mp: _ModuleParser, resolve: Callable[[str], ir.Var | None]) -> None:
        super().__init__(mp, self._NO_FUNCTION)
        self.resolve = resolve

    def lookup(self, name: str, node: ast.AST) -> ir.Var:
        var = None if name in ("pl", "self") or keyword.iskeyword(name) else self.resolve(name)
        if var is None:
            self.error(f"'{name}' is not defined", node)
        return var


def _op_name(name: str | None) -> str | None:
    """`tile.X` for `pl.X` / `pl.tile.X` (X an identifier not naming another construct)."""
    if name is None:
        return None
    parts = name.split(".")
    if len(parts) == 3 and parts[:2] == ["pl", "tile"]:
        return f"tile.{parts[2]}"
    if len(parts) == 2 and parts[0] == "pl" and parts[1] not in _NON_OPS:
        return f"tile.{parts[1]}"
    return None


def _expr_kind(node: ast.AST) -> str:
    kinds = {ast.Subscript: "subscript", ast.Attribute: "attribute", ast.List: "list literal",
             ast.Tuple: "tuple", ast.Dict: "dict literal", ast.Lambda: "lambda",
             ast.IfExp: "conditional expression",
             ast.BoolOp: "boolean operator", ast.JoinedStr: "f-string", ast.Starred: "starred expression"}
    return kinds.get(type(node), type(node).__name__)


def _expr_type(e: ir.Expr) -> ir.Type:
    if isinstance(e, ir.Var):
        return e.type
    return ir.ScalarType(ir.expr_dtype(e))


def _same_kind_shape_dtype(a: ir.Type, b: ir.Type) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, ir.TileType | ir.TensorType):
        assert isinstance(b, ir.TileType | ir.TensorType)
        return a.shape == b.shape and a.dtype == b.dtype
    if isinstance(a, ir.ScalarType):
        assert isinstance(b, ir.ScalarType)
        return a.dtype == b.dtype
    return True


def _exprs_text(items: tuple[ir.Expr, ...]) -> str:
    from slotsat.core.dsl.printer import print_expr

    return "[" + ", ".join(print_expr(e) for e in items) + "]"


# --------------------------------------------------------------------------------------
# known operations


class _OpCall:
    """One call of an op in the subset: argument checks, canonical form, result type."""

    def __init__(self, fp: _FunctionParser, node: ast.Call, spec: ops.OpSpec, annot: ir.Type | None) -> None:
        self.fp = fp
        self.node = node
        self.spec = spec
        self.annot = annot
        self.name = f"pl.{spec.name}"

    def expects(self) -> NoReturn:
        spec = self.spec
        required = [p for p in spec.params if p not in spec.optional]
        text = ", ".join(required)
        for opt in spec.optional:
            text += f"[, {opt}]"
        for kw in spec.keywords:
            if kw not in spec.params and kw not in spec.optional:
                text += f", {kw}=SPACE" if kw == "target_memory" else f", {kw}=..."
        self.fp.error(f"{self.name} expects ({text}), got {self.fp.mp.source(self.node)}", self.node)

    def build(self) -> tuple[ir.Call, ir.Type]:
        node, spec = self.node, self.spec
        positional = list(node.args)
        keywords: dict[str, ast.expr] = {}
        attrs: list[tuple[str, ir.AttrValue]] = []
        for kw in node.keywords:
            if kw.arg == "attrs":
                attrs = self.fp.attrs(kw.value)
            elif kw.arg is None or kw.arg not in spec.keywords or kw.arg in keywords:
                self.expects()
            else:
                keywords[kw.arg] = kw.value
        required = [p for p in spec.params if p not in spec.optional]
        names = [*required, *(o for o in spec.optional)]
        for opt in spec.optional:  # an optional parameter may be given as a keyword instead
            if opt in keywords:
                if len(positional) != names.index(opt):
                    self.expects()
                positional.append(keywords.pop(opt))
        if not len(required) <= len(positional) <= len(names):
            self.expects()
        args = [self.arg(p, a) for p, a in zip(names, positional, strict=False)]
        space = None if "target_memory" not in keywords else self.fp.space(keywords["target_memory"])
        return self.finish(args, space, attrs)

    def arg(self, param: str, node: ast.expr) -> ir.CallArg:
        fp = self.fp
        if isinstance(node, ast.Call) and _op_name(dotted(node.func)) is not None:
            fp.error(f"unsupported syntax: nested operation call (assign {fp.mp.source(node.func)}(...) to a "
                     "name first)", node)
        if param in _TENSOR_PARAMS or param in _TILE_PARAMS:
            want = ir.TensorType if param in _TENSOR_PARAMS else ir.TileType
            if not isinstance(node, ast.Name):
                fp.error(f"{self.name} argument '{param}' must be the name of a "
                         f"{'tensor' if want is ir.TensorType else 'tile'}, got {fp.mp.source(node)}", node)
            var = fp.lookup(node.id, node)
            if not isinstance(var.type, want):
                fp.error(f"{self.name} argument '{param}' must be a "
                         f"{'tensor' if want is ir.TensorType else 'tile'}, got '{node.id}' of type "
                         f"{type_text(var.type)}", node)
            return var
        if param in _LIST_PARAMS:
            if param == "shape":
                dims = fp.shape(node)
                return ir.ExprList(tuple(ir.ConstInt(d, ir.DType.INDEX) for d in dims), span=fp.span(node))
            return ir.ExprList(fp.expr_list(node), span=fp.span(node))
        if param == "dtype":
            return ir.DTypeArg(fp.dtype(node))
        if isinstance(node, ast.Constant) and isinstance(node.value, bool):
            return ir.ConstInt(int(node.value), ir.DType.BOOL, span=fp.span(node))
        return fp.index_expr(node, allow_float=True)

    def finish(self, args: list[ir.CallArg], space: ir.MemorySpace | None,
               attrs: list[tuple[str, ir.AttrValue]]) -> tuple[ir.Call, ir.Type]:
        rule = self.spec.rule
        kwargs: tuple[tuple[str, ir.CallArg], ...] = ()
        if rule is ops.TypeRule.LOAD:
            args, space = self._load(args, space)
            kwargs = (("target_memory", ir.SpaceArg(space)),)
        elif "target_memory" in self.spec.keywords:
            if space is None:
                self.expects()
            kwargs = (("target_memory", ir.SpaceArg(space)),)
        typ = _result_type(self, args, space)
        call = ir.Call(self.spec.name, tuple(args), kwargs, tuple(attrs), span=self.fp.span(self.node))
        return call, typ

    def _load(self, args: list[ir.CallArg], space: ir.MemorySpace | None
              ) -> tuple[list[ir.CallArg], ir.MemorySpace]:
        tensor, offsets, shape = args[0], args[1], args[2]
        assert isinstance(tensor, ir.Var)
        assert isinstance(tensor.type, ir.TensorType)
        assert isinstance(offsets, ir.ExprList)
        assert isinstance(shape, ir.ExprList)
        if len(offsets.items) != len(tensor.type.shape):
            self.fp.error(f"{self.name} has {len(offsets.items)} offsets but the tensor has rank "
                          f"{len(tensor.type.shape)}", self.node)
        if len(shape.items) != len(tensor.type.shape):
            self.fp.error(f"{self.name} loads a tile of rank {len(shape.items)} from a tensor of rank "
                          f"{len(tensor.type.shape)}; the tile's shape needs one entry per tensor dimension",
                          self.node)
        if len(args) == 3:
            args.append(shape)
        valid = args[3]
        assert isinstance(valid, ir.ExprList)
        if len(valid.items) != len(shape.items):
            self.fp.error(f"{self.name} valid_shape has {len(valid.items)} entries but the shape has "
                          f"{len(shape.items)}", self.node)
        if space is None:
            annot = self.annot
            space = annot.memory_space if isinstance(annot, ir.TileType) else None
            space = space or ir.MemorySpace.Vec
        if space not in (ir.MemorySpace.Vec, ir.MemorySpace.Mat):
            self.fp.error(f"{self.name} target_memory must be pl.Mem.Vec or pl.Mem.Mat, got "
                          f"pl.Mem.{space.value}", self.node)
        return args, space


def _tile_arg(args: list[ir.CallArg], index: int) -> ir.TileType:
    arg = args[index]
    assert isinstance(arg, ir.Var)
    assert isinstance(arg.type, ir.TileType)
    return arg.type


def _shape_of(arg: ir.CallArg) -> tuple[int, ...]:
    assert isinstance(arg, ir.ExprList)
    return tuple(e.value for e in arg.items if isinstance(e, ir.ConstInt))


def _result_type(oc: _OpCall, args: list[ir.CallArg], space: ir.MemorySpace | None) -> ir.Type:
    rule = oc.spec.rule
    if rule is ops.TypeRule.LOAD:
        tensor = args[0]
        assert isinstance(tensor, ir.Var)
        assert isinstance(tensor.type, ir.TensorType)
        shape = _shape_of(args[2])
        valid = args[3]
        assert isinstance(valid, ir.ExprList)
        return ir.TileType(shape, tensor.type.dtype, space, None, _valid_or_none(shape, valid.items))
    if rule is ops.TypeRule.STORE:
        tensor = args[2]
        assert isinstance(tensor, ir.Var)
        assert isinstance(tensor.type, ir.TensorType)
        offsets = args[1]
        assert isinstance(offsets, ir.ExprList)
        rank = len(tensor.type.shape)
        if len(offsets.items) != rank:
            oc.fp.error(f"{oc.name} has {len(offsets.items)} offsets but the tensor has rank {rank}", oc.node)
        if len(_tile_arg(args, 0).shape) != rank:
            oc.fp.error(f"{oc.name} stores a tile of rank {len(_tile_arg(args, 0).shape)} into a tensor of "
                        f"rank {rank}; the ranks must agree", oc.node)
        return tensor.type
    t0 = _tile_arg(args, 0)
    if rule is ops.TypeRule.READ:
        return ir.ScalarType(t0.dtype)
    if rule is ops.TypeRule.MOVE:
        return ir.TileType(t0.shape, t0.dtype, space, None, t0.valid_shape)
    if rule is ops.TypeRule.MATMUL:
        return _matmul_type(oc, t0, _tile_arg(args, 1))
    if rule in (ops.TypeRule.RESHAPE, ops.TypeRule.SLICE):
        shape = _shape_of(args[1])
        if rule is ops.TypeRule.RESHAPE and _count(shape) != _count(t0.shape):
            oc.fp.error(f"{oc.name} changes the element count from {_count(t0.shape)} to {_count(shape)}",
                        oc.node)
        return ir.TileType(shape, t0.dtype, t0.memory_space, None, None)
    if rule is ops.TypeRule.ROW_REDUCE:
        rows = t0.shape[0] if len(t0.shape) == 2 else 1
        reduced = None if t0.valid_shape is None or len(t0.valid_shape) != 2 else (
            t0.valid_shape[0], ir.ConstInt(1, ir.DType.INDEX))
        return ir.TileType((rows, 1), t0.dtype, t0.memory_space, None, _valid_or_none((rows, 1), reduced))
    if rule is ops.TypeRule.CAST:
        dtype = args[1]
        assert isinstance(dtype, ir.DTypeArg)
        return ir.TileType(t0.shape, dtype.dtype, t0.memory_space, None, t0.valid_shape)
    if oc.spec.params[:2] == ("lhs", "rhs"):
        t1 = _tile_arg(args, 1)
        if t1.shape != t0.shape or t1.dtype != t0.dtype:
            oc.fp.error(f"operands of {oc.name} have types {type_text(t0)} and {type_text(t1)}; they must "
                        "agree in shape and dtype", oc.node)
    return ir.TileType(t0.shape, t0.dtype, t0.memory_space, None, t0.valid_shape)


def _count(shape: tuple[int, ...]) -> int:
    total = 1
    for d in shape:
        total *= d
    return total


def _matmul_type(oc: _OpCall, lhs: ir.TileType, rhs: ir.TileType) -> ir.TileType:
    lm, lk = lhs.rows_cols
    rk, rn = rhs.rows_cols
    if lk != rk:
        oc.fp.error(f"{oc.name} needs [M, K] x [K, N], got [{lm}, {lk}] x [{rk}, {rn}]", oc.node)
    if lhs.dtype is ir.DType.INT8:
        dtype = ir.DType.INT32
    elif lhs.dtype.is_float:
        dtype = ir.DType.FP32
    else:
        dtype = lhs.dtype
    return ir.TileType((lm, rn), dtype, ir.MemorySpace.Acc)

