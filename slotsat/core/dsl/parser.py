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
- A loop's result types are its yield's annotations as written (no `pl.TileView`: the whole
  tile, whatever valid shape the yielded value has, as the reference keeps a result's
  type); without one, the carried value's type (the reference infers it from the iter_arg).
- The `if`'s result types come from the then branch's yield (its annotation when given).
- An annotated assignment takes the annotation's type once it agrees with the value's
  (shape, dtype, kind; space when both sides give them; the valid shape of a `tile.load`),
  completed by the value's space and valid shape; an unannotated one takes the value's type.

The reference's printed IR (`05-decisions.md` item 12) is read as well:

- Module level: `N = pl.dynamic("N")` declares a symbolic dimension; `N = 128` (an int, float
  or bool literal, or integer arithmetic over earlier constants) is a constant, substituted
  where it is used, and so is `DTYPE = pl.FP16` (a name for a `pl.` attribute: a dtype, an enum
  member). In a tensor's or tile's shape such a name means the module's even where a local
  of the body rebinds it (`M = pl.tensor.dim(a, 0)`), as the reference's type resolver reads
  it; an INDEX parameter named as a `pl.dynamic` symbol is that symbol.
  `import pypto.language.distributed as pld` is accepted (`pld.` names are
  always available, as in the reference's printed text). A program class whose body the
  reference printed empty (`class P:` at the end of the file) is an empty program.
- Decorators: `@pl.program` (optionally `(strict_ssa=...)`), `@pl.function(type=, level=,
  role=, strict_ssa=, auto_scope=, external_source=, attrs=)`. `self` is optional (the
  reference drops it on `SubWorker` functions). A body may start with `pl.func_attr({...})`,
  may be `...` (an abstract function), and needs no `return` when the function returns
  nothing (kernels that write `pl.Out` parameters).
- Types: `slotsat.core.dsl.annotations`. Calls: `slotsat.core.dsl.calls` (the reference's
  whole op set; nested calls and `return pl.op(...)` are hoisted into temporaries).
- Statements: `pl.parallel` / `pl.unroll` loops, `while COND:` and the SSA form
  `for (a,) in pl.while_(init_values=(...)):` with `pl.cond(COND)` first, `with pl.scope():`.
- Expressions: `-x`, `not x`, `~x`, `abs(x)`, `/`, `**`, `&`, `|`, `^`, `<<`, `>>`, `and`,
  `or`, `pl.min`, `pl.max` (`ir.ScalarUnary` / `ir.ScalarBinary`), `t[k]` of a tuple
  (`ir.TupleGetItem`; of a tuple built from values, `NAME: pl.Tuple[...] = [a, b]`, the k-th
  value), casts between any scalar dtypes; `a, b = x, y` binds each name to its value.
- Constructs that exist only above the hand-off point (`@pl.jit`, `@pl.inline`, `with
  pl.at(...)`, `pl.spmd`, `pl.split_aiv`, tensor slicing, Python helper functions) are one
  error that names `--via-pypto` (`ABOVE_TILE`).
"""

from __future__ import annotations

import ast
import copy as copy_module
import difflib
import gc
import keyword
import math
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import NoReturn

from slotsat.core import ir, ops, phases
from slotsat.core.dsl import ssa, window_reads
from slotsat.core.dsl.annotations import DTYPES as _DTYPES
from slotsat.core.dsl.annotations import TypeReader, dotted, enum_member, exprs_text, type_text
from slotsat.core.dsl.annotations import valid_or_none as _valid_or_none
from slotsat.core.dsl.calls import CallReader, spelled
from slotsat.core.dsl.chunked import chunked_parse
from slotsat.core.dsl.context import ABOVE_TILE, AFTER_HAND_OFF, BEFORE_HAND_OFF
from slotsat.core.errors import SlotsatError, Span
from slotsat.core.limits import max_expr_depth, max_file_bytes, parsing_recursion, read_source

_BINOPS: dict[type, type] = {
    ast.Add: ir.Add, ast.Sub: ir.Sub, ast.Mult: ir.Mul, ast.FloorDiv: ir.FloorDiv, ast.Mod: ir.FloorMod,
}
_EXT_BINOPS: dict[type, str] = {
    ast.Div: "truediv", ast.Pow: "pow", ast.BitAnd: "bitand", ast.BitOr: "bitor", ast.BitXor: "bitxor",
    ast.LShift: "shl", ast.RShift: "shr",
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
    "range", "pipeline", "parallel", "unroll", "while_", "cond", "yield_", "const", "cast", "min", "max",
    "MemRef", "Tile", "Tensor", "Out", "InOut", "Scalar", "Ptr", "Tuple", "Array", "Mem", "MemorySpace",
    "TileView", "TensorView", "FunctionType", "function", "program", "dynamic", "func_attr", "submit",
    "spmd_submit", "scope", *_DTYPES,
})
NON_OPS = frozenset(f"pl.{n}" for n in _NON_OPS)
_TENSOR_PARAMS = frozenset({"tensor"})
_TILE_PARAMS = frozenset({"tile", "lhs", "rhs", "acc", "row", "tmp", "tmp_tile", "row_vec"})
_LIST_PARAMS = frozenset({"offsets", "shape", "valid_shape", "indices", "shapes", "drop_dims"})

_ABOVE_TILE_SCOPES = frozenset({"pl.at", "pl.spmd", "pl.cluster", "pl.split_aiv", "pl.incore",
                                "pl.auto_scope", "pl.manual_scope", "pl.optimizations"})
_ABOVE_TILE_DECORATORS = frozenset({"pl.jit", "pl.inline"})
_ABOVE_TILE_CALLS = frozenset({"pl.dump_tag"})
"""Markers the reference's parser consumes (`pl.dump_tag(t)` becomes the `dump_vars` of later
kernel calls): no IR holds them."""
_LOOP_KINDS: dict[str | None, ir.ForKind] = {
    "pl.range": ir.ForKind.SEQUENTIAL, "pl.pipeline": ir.ForKind.PIPELINE, "pl.parallel": ir.ForKind.PARALLEL,
    "pl.unroll": ir.ForKind.UNROLL,
}
_STMT_KINDS: dict[type, str] = {
    ast.While: "while loop", ast.AugAssign: "augmented assignment", ast.Delete: "del statement",
    ast.Break: "break", ast.Continue: "continue", ast.With: "with statement", ast.Try: "try statement",
    ast.Raise: "raise statement", ast.Assert: "assert statement", ast.Import: "import statement",
    ast.ImportFrom: "import statement", ast.Global: "global statement",
    ast.Nonlocal: "nonlocal statement", ast.FunctionDef: "nested function",
    ast.ClassDef: "nested class", ast.AsyncFor: "async for", ast.AsyncWith: "async with",
    ast.AsyncFunctionDef: "async function", ast.Match: "match statement",
}

FREE_VAR_SUFFIX = "__FREE_VAR"
"""What the reference's printer appends to a variable used where nothing in the function
defines it (`IRPythonPrinter::GetVarName`), after the name its rename map gives it: the
variable's hint, or `HINT_<k>` when a definition already prints as `HINT`. Its PTO code
generator resolves such a use by hint (`PTOCodegen::LookupVarName` falls back to the mapped
variable with the same `name_hint_`), and the device runs the result: its Simplify pass
rebuilds a while loop and leaves the condition and body reading the old iteration values,
printed as `i__iter_v1_1__FREE_VAR` beside the header's `i__iter_v1` (its while-loop system
test, at the hand-off point). `Parser.free_var` reads the use the same way where that is
unambiguous."""
_SUFFIXED = re.compile(r"(.+)_([0-9]+)")
_EMPTY_MESSAGE = "a kernel file must import pypto.language and define a @pl.program"
_IMPORT_MESSAGE = "expected 'import pypto.language as pl'"


def parse_file(path: str | Path) -> ir.Module:
    """Read a kernel file (size-checked, decoded as UTF-8; `slotsat.core.limits.read_source`) and
    parse it."""
    return parse_source(read_source(path), str(path))


def parse_source(text: str, filename: str = "<input>") -> ir.Module:
    """Parse kernel source text into an `ir.Module` (one `Program` per `@pl.program`).

    Text longer than the input-size limit (`slotsat.core.limits`) is refused up front: Python's
    own parser alone needs seconds per MiB, and real kernels are a few KiB. The time is
    recorded as the compile-time phase `parse` (`slotsat.core.phases`)."""
    with phases.phase("parse"):
        return _parse_source(text, filename)


def _parse_source(text: str, filename: str) -> ir.Module:
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
            module = parser.parse()
        # The module outlives the caller's next few thousand allocations: hand it to the
        # oldest generation now (freeze + unfreeze moves every tracked object there without
        # a scan), so the young collections after the parse do not each traverse all of it.
        # Skipped when the caller froze objects of its own, which unfreeze would release.
        if collecting and gc.get_freeze_count() == 0:
            gc.freeze()
            gc.unfreeze()
        return module
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


class _PlAliases(ast.NodeTransformer):
    """Replace each read of a module-level alias of a `pl.` name (`_ModuleParser._module_pl_alias`)
    by the name it stands for, placed where the alias is read (so errors point there); not in a
    function that binds the name itself (a parameter or a local of that name shadows it)."""

    def __init__(self, aliases: dict[str, ast.Attribute], bound: dict[int, set[str]]) -> None:
        self.aliases = aliases
        self.bound = bound
        self.shadowed: set[str] = set()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        outer = self.shadowed
        self.shadowed = outer | self.bound.get(id(node), set())
        try:
            return self.generic_visit(node)
        finally:
            self.shadowed = outer

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        return self.generic_visit(node) if self.aliases else node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        alias = self.aliases.get(node.id)
        if alias is None or node.id in self.shadowed or not isinstance(node.ctx, ast.Load):
            return node
        copy = copy_module.deepcopy(alias)
        for part in ast.walk(copy):
            ast.copy_location(part, node)
        return copy


_TRIPLE_SINGLE = "'" * 3
_TRIPLE_DOUBLE = '"' * 3
_SCAN = re.compile("|".join((
    "(?P<str>[rRbBuUfF]{0,2}(?:"
    + _TRIPLE_SINGLE + r"[\s\S]*?(?:" + _TRIPLE_SINGLE + r"|\Z)|"
    + _TRIPLE_DOUBLE + r"[\s\S]*?(?:" + _TRIPLE_DOUBLE + r"|\Z)|"
    + r"'(?:\\.|[^'\\\n])*'?|" + r'"(?:\\.|[^"\\\n])*"?))',
    r"(?P<comment>#[^\n]*)",
    r"(?P<open>[(\[{])",
    r"(?P<close>[)\]}])",
    r"(?P<cont>\\\n)",
    r"(?P<nl>\n)",
    r"(?P<op>[-+*/%@&|^~<>=!.,:;]+)",
    r"(?P<other>[^\s#'" + r'"' + r"()\[\]{}\\\-+*/%@&|^~<>=!.,:;]+|\S)",
)))
"""One pass over Python source for `_deepest_line`: strings (a triple-quoted one across its
lines), comments, brackets, line ends, operator runs and the rest, in linear time."""


def _deepest_line(text: str) -> Span:
    """Where CPython's parser most likely ran out of depth: the start of the logical line
    with the most operator and bracket tokens. A left-nested chain of 20,000 additions is
    that deep whatever its parentheses. One linear regular-expression scan: not `tokenize`,
    which reads without recursion but is quadratic in a line's length on CPython 3.12.1 (a
    100,000-term line took 27 s)."""
    best, where = -1, Span(1, 1)
    count, depth, start = 0, 0, None
    line, line_start = 1, 0
    for m in _SCAN.finditer(text):
        kind = m.lastgroup
        if kind == "nl" and depth == 0:
            if start is not None and count > best:
                best, where = count, start
            count, start = 0, None
        elif kind not in ("nl", "cont", "comment") and start is None:
            start = Span(line, m.start() - line_start + 1)
        if kind in ("open", "close"):
            depth = max(0, depth + (1 if kind == "open" else -1))
            count += 1
        elif kind == "op":
            count += 1
        newlines = m.group().count("\n")
        if newlines:
            line += newlines
            line_start = m.start() + m.group().rfind("\n") + 1
    if start is not None and count > best:
        where = start
    return where


def dtype_size(node: ast.expr) -> int | None:
    """`pl.FP32.get_byte()` / `pl.INT4.get_bit()`: a dtype's size in bytes (rounded up) or
    bits, the Python int the reference's `DataType` methods return (`alloc_window_buffer(256 *
    pl.FP32.get_byte())`); None for any other expression."""
    if not isinstance(node, ast.Call) or node.args or node.keywords:
        return None
    name = dotted(node.func)
    parts = name.split(".") if name is not None else []
    if len(parts) != 3 or parts[0] != "pl" or parts[1] not in _DTYPES or (
            parts[2] not in ("get_byte", "get_bit")):
        return None
    dtype = _DTYPES[parts[1]]
    return dtype.nbytes if parts[2] == "get_byte" else dtype.bits


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


_SAME_INT64 = frozenset({ir.DType.INDEX, ir.DType.INT64})
"""The two dtypes the reference mixes in scalar arithmetic without a cast (both 64-bit signed)."""


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
    loop_var: ir.Var | None
    """None for a while loop."""
    iter_args: list[ir.IterArg]
    rebound: frozenset[str]
    slots: dict[str, ir.Var | ssa.Carry]


def _built_tuple(node: ast.stmt) -> tuple[str, ast.Tuple | ast.List, ast.expr | None] | None:
    """`NAME = (a, b)` or `NAME: ANNOTATION = [a, b]` under a tuple annotation (`_is_built_tuple`):
    NAME, the tuple and the annotation; None for any other statement."""
    target: ast.expr
    if isinstance(node, ast.AnnAssign):
        target, annotation = node.target, node.annotation
    elif isinstance(node, ast.Assign) and len(node.targets) == 1:
        target, annotation = node.targets[0], None
    else:
        return None
    value = node.value
    if not isinstance(target, ast.Name) or value is None or not _is_built_tuple(value, annotation):
        return None
    assert isinstance(value, ast.Tuple | ast.List)
    return target.id, value, annotation


def _is_built_tuple(value: ast.expr, annotation: ast.expr | None) -> bool:
    """`(a, b)`, or `[a, b]` under a tuple annotation (the reference prints its MakeTuple so):
    a tuple built from values."""
    if isinstance(value, ast.Tuple):
        return True
    head = annotation.value if isinstance(annotation, ast.Subscript) else None
    return isinstance(value, ast.List) and head is not None and dotted(head) in ("pl.Tuple", "tuple")


def _ends_with_return(body: Sequence[ir.Stmt] | None) -> bool:
    return body is not None and len(body) > 0 and isinstance(body[-1], ir.ReturnStmt)


def _local_type(typ: ir.Type) -> ir.Type:
    """The type of a local binder: a tensor loses its parameter direction (`pl.Out` /
    `pl.InOut`), which only parameters keep."""
    if isinstance(typ, ir.TensorType) and (typ.is_out or typ.is_inout):
        return replace(typ, is_out=False, is_inout=False)
    return typ


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
        self._has_cr = "\r" in text
        """A carriage return ends lines for Python's tokenizer, not for `lines` (`_segment`)."""
        self._ascii: dict[int, bool] = {}
        self._all_ascii = text.isascii()
        """No line needs its byte offsets turned into character columns (`span`)."""
        self.last_node: ast.AST | None = None
        """The statement or definition being read (`last_span`)."""
        self.decls: dict[str, _Decl] = {}
        self.dynamics: dict[str, str] = {}
        """Module-level `NAME = pl.dynamic("HINT")`: NAME -> HINT."""
        self.constants: dict[str, int | float | bool] = {}
        """Module-level `NAME = LITERAL`: substituted where used."""
        self.pl_aliases: dict[str, ast.Attribute] = {}
        """Module-level `NAME = pl.X.Y` (a dtype, an enum member): substituted where used."""
        self.function_names: set[str] = set()
        self.function_params: dict[str, tuple[ir.Type, ...]] = {}
        self.function_returns: dict[str, tuple[ir.Type, ...]] = {}
        self.dyn_vars: dict[str, ir.Var] = {}
        """The current program's symbolic dimensions, by hint."""
        self.launch_vars: dict[tuple[str, str], ir.Var] = {}
        """The current program's launch-constant symbols (`launch_symbol`), by op."""
        self.bound_names: dict[int, set[str]] = {}
        self.last_read: dict[int, dict[str, int]] = {}

    # -- positions and errors

    @property
    def last_span(self) -> Span:
        """Where a parse that runs out of stack is reported: the statement being read (its
        span is made only then, not for every statement)."""
        return Span(1, 1) if self.last_node is None else self.span(self.last_node)

    def span(self, node: ast.AST) -> Span:
        line = getattr(node, "lineno", 1)
        col = getattr(node, "col_offset", 0)
        if self._all_ascii:
            return Span(line, col + 1)
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
        text = self._segment(node)
        if text is None:
            text = ast.unparse(node)
        text = " ".join(text.split())
        return text if len(text) <= 80 else text[:77] + "..."

    def _segment(self, node: ast.AST) -> str | None:
        """`ast.get_source_segment(self.text, node)` over the lines already split (that
        function splits the whole file on every call)."""
        first, last = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
        col, end = getattr(node, "col_offset", None), getattr(node, "end_col_offset", None)
        if self._has_cr or first is None or last is None or col is None or end is None:
            return ast.get_source_segment(self.text, node)
        lines = self.lines[first - 1 : last]
        if not 0 < first <= last or len(lines) != last - first + 1:
            return None
        if first == last:
            return lines[0].encode()[col:end].decode(errors="replace")
        head = lines[0].encode()[col:].decode(errors="replace")
        tail = lines[-1].encode()[:end].decode(errors="replace")
        return "\n".join([head, *lines[1:-1], tail])

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
            self.last_node = node
            if isinstance(node, ast.Import | ast.ImportFrom):
                imported = self._check_import(node, tree) or imported
            elif isinstance(node, ast.ClassDef):
                classes.append(node)
            elif isinstance(node, ast.Assign) and self._is_alias(node):
                pending_aliases.append(node)
            elif isinstance(node, ast.Assign | ast.AnnAssign) and (
                    self._module_constant(node) or self._module_pl_alias(node)):
                continue
            elif isinstance(node, ast.Assign):
                self._module_decl(node)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self._module_function(node)
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
        for c in classes:
            _PlAliases(self.pl_aliases, self.bound_names).visit(c)
        return ir.Module(tuple(self._program(c) for c in classes))

    def _ast(self) -> ast.Module:
        chunked = chunked_parse(self.text, self.filename)  # a large file, a group of methods at a time
        if chunked is not None:
            return chunked
        try:
            with warnings.catch_warnings():  # SyntaxWarnings would print extra lines
                warnings.simplefilter("ignore")
                try:
                    return ast.parse(self.text, self.filename)
                except IndentationError as err:
                    recovered = self._empty_program(err)
                    if recovered is None:
                        raise
                    return recovered
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
            self.error("the kernel is nested too deeply to parse; split the expression or body",
                       _deepest_line(self.text))

    def _compile_checks(self, tree: ast.Module) -> None:
        """The errors CPython's compiler (not its parser, so not `ast.parse`) reports, with its
        wording: a keyword argument given twice, a parameter named twice. The first in the
        file is reported. The same walk collects the names each function binds
        (`ssa.Names`) and the last line that reads each name (escaping names).

        One iterative walk over every node, the hottest loop of the front end after
        `ast.parse`: a `def` swaps in its own name tables and pushes `_LEAVE`, which pops
        (after everything below the `def`) to restore the enclosing function's."""
        first: _Found | None = None
        stack: list[ast.AST] = [tree]
        push = stack.append
        pop = stack.pop
        walked = _WALKED_FIELDS
        name_t, constant_t, store_t = ast.Name, ast.Constant, ast.Store
        checked = _COMPILER_CHECKED
        node_t = ast.AST
        enclosing: list[tuple[set[str] | None, dict[str, int]]] = []
        bound: set[str] | None = None  # the names the function being walked binds (None: no function)
        reads: dict[str, int] = {}  # the last line that reads each name in it
        while stack:
            node = pop()
            t = type(node)
            if t is name_t:
                if bound is not None:
                    name: ast.Name = node  # type: ignore[assignment]
                    if type(name.ctx) is store_t:
                        bound.add(name.id)
                    elif reads.get(name.id, 0) < name.lineno:
                        reads[name.id] = name.lineno
                continue
            if node is _LEAVE:
                bound, reads = enclosing.pop()
                continue
            if t in checked:
                first = _earlier_error(first, _compiler_error(node))
                if t is ast.FunctionDef:  # its own fields are read with its tables too
                    enclosing.append((bound, reads))
                    push(_LEAVE)
                    bound, reads = self._function_tables(node)  # type: ignore[arg-type]
            for field in walked[t]:
                value = getattr(node, field, None)
                if type(value) is list:
                    for v in value:
                        if isinstance(v, node_t):
                            push(v)
                elif isinstance(value, node_t) and type(value) is not constant_t:
                    push(value)
        if first is not None:
            self.error(f"syntax error: {first[1]}", first[2])

    def _function_tables(self, node: ast.FunctionDef) -> tuple[set[str], dict[str, int]]:
        """The (empty) tables of the names `node` binds and the lines that read them."""
        bound = self.bound_names[id(node)] = {"pl", "self", *(a.arg for a in node.args.args)}
        reads = self.last_read[id(node)] = {}
        return bound, reads

    def _empty_program(self, err: IndentationError) -> ast.Module | None:
        """The reference prints a program without functions as a bare `class NAME:` header at
        the end of the file. Read it as that header with an empty body (`pass`)."""
        line = err.lineno or 0
        if "expected an indented block after class definition" not in (err.msg or ""):
            return None
        if not 0 < line <= len(self.lines) or any(t.strip() and not t.lstrip().startswith("#")
                                                  for t in self.lines[line:]):
            return None
        header = self.lines[line - 1]
        indent = header[:len(header) - len(header.lstrip())]
        text = "\n".join(self.lines[:line]) + f"\n{indent}    pass\n"
        try:
            return ast.parse(text, self.filename)
        except SyntaxError:
            return None

    def _check_import(self, node: ast.Import | ast.ImportFrom, tree: ast.Module) -> bool:
        """True for the required import, `import pypto.language as pl` (or `from pypto import
        language as pl`). Accepted besides: `from __future__ import ...`, the distributed
        namespace as `pld`, and other imports from the pypto package whose names the file
        does not use (a hand-written kernel file often keeps `from pypto import ir`); a
        used one is an error, as slotsat reads the DSL through `pl.` and `pld.` only. Any
        other import makes the file a Python script around a kernel: above tile level."""
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            return False
        if isinstance(node, ast.Import):
            bound = [(a.name, a.asname or a.name.split(".")[0]) for a in node.names]
        else:
            bound = [(f"{node.module}.{a.name}", a.asname or a.name) for a in node.names]
        def script() -> str:
            return ABOVE_TILE.format(what=f"a Python script around a kernel ('{self.source(node)}')")

        if getattr(node, "level", 0):
            self.error(script(), node)
        required = False
        for full, name in bound:
            if (full, name) == ("pypto.language", "pl"):
                required = True
                continue
            if (full, name) == ("pypto.language.distributed", "pld"):
                continue
            if full == "pypto.language":  # under another name: the DSL is read through `pl.`
                self.error(_IMPORT_MESSAGE, node)
            if full.split(".")[0] != "pypto":
                self.error(script(), node)
            if name in ("pl", "pld"):
                self.error(f"'{self.source(node)}' binds '{name}', which a kernel file keeps for "
                           f"{'pypto.language' if name == 'pl' else 'pypto.language.distributed'}", node)
            use = next((n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name), None)
            if use is not None:
                self.error(f"'{name}' (imported from {full.rsplit('.', 1)[0]}) is used here: slotsat reads "
                           "the DSL through 'pl.' and 'pld.' only, as the reference prints it", use)
        return required

    def _module_constant(self, node: ast.Assign | ast.AnnAssign) -> bool:
        """`N = pl.dynamic("N")` or `N = LITERAL` (int arithmetic over earlier constants, also
        chained: `TR = TC = 128` binds both, and unpacked: `M, N = 64, 128` binds each name to
        its element); False for any other module-level assignment."""
        targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
        value = node.value
        if (isinstance(node, ast.Assign) and len(targets) == 1 and isinstance(targets[0], ast.Tuple)
                and isinstance(value, ast.Tuple)):
            return self._module_constants(targets[0], value)
        names = [t for t in targets if isinstance(t, ast.Name)]
        if not names or len(names) != len(targets) or value is None:
            return False
        if len(names) == 1 and isinstance(value, ast.Call) and dotted(value.func) == "pl.dynamic":
            if (len(value.args) != 1 or value.keywords or not isinstance(value.args[0], ast.Constant)
                    or not isinstance(value.args[0].value, str) or not value.args[0].value.isidentifier()):
                self.error('pl.dynamic takes the dimension\'s name: NAME = pl.dynamic("NAME")', value)
            if self.dynamics.get(names[0].id) == value.args[0].value:
                return True  # the same dimension again: Python rebinds the name to an equal one
            self._define_module_name(names[0].id, names[0])
            self.dynamics[names[0].id] = value.args[0].value
            return True
        constant = self._constant_value(value)
        if constant is None:
            return False
        if isinstance(constant, float) and not math.isfinite(constant):
            self.error(f"float literal {self.source(value)} is not finite", value)
        for name in names:
            self._define_module_name(name.id, name)
            self.constants[name.id] = constant
        return True

    def _module_constants(self, target: ast.Tuple, value: ast.Tuple) -> bool:
        """`A, B = X, Y`: every target a name and every element a constant (evaluated before
        any name is bound, as Python does), else False; a count mismatch is Python's error."""
        names = [t for t in target.elts if isinstance(t, ast.Name)]
        if len(names) != len(target.elts) or any(isinstance(e, ast.Starred) for e in value.elts):
            return False
        values = [self._constant_value(e) for e in value.elts]
        if any(v is None for v in values):
            return False
        if len(values) != len(names):
            self.error(f"cannot unpack {len(values)} values into {len(names)} names", value)
        for name, constant in zip(names, values, strict=True):
            assert constant is not None
            if isinstance(constant, float) and not math.isfinite(constant):
                self.error(f"float literal {self.source(value)} is not finite", value)
            self._define_module_name(name.id, name)
            self.constants[name.id] = constant
        return True

    def _module_pl_alias(self, node: ast.Assign | ast.AnnAssign) -> bool:
        """`DTYPE = pl.FP16`, `PAD = pl.PadValue.max`: a name for a DSL constant (a dtype, an enum
        member; a `pl.` / `pld.` attribute, not a call), read wherever the name is (`_PlAliases`),
        as Python reads the module's globals. Also `B = A` of such a name. False for any other
        assignment."""
        if (not isinstance(node, ast.Assign) or len(node.targets) != 1
                or not isinstance(node.targets[0], ast.Name)):
            return False
        value = node.value
        if isinstance(value, ast.Name) and value.id in self.pl_aliases:
            value = self.pl_aliases[value.id]
        name = dotted(value) if isinstance(value, ast.Attribute) else None
        if name is None or not name.startswith(("pl.", "pld.")):
            return False
        assert isinstance(value, ast.Attribute)
        self._define_module_name(node.targets[0].id, node.targets[0])
        self.pl_aliases[node.targets[0].id] = value
        return True

    def _define_module_name(self, name: str, node: ast.AST) -> None:
        if (name in self.dynamics or name in self.constants or name in self.decls or name in self.pl_aliases
                or name in ("pl", "pld")):
            self.error(f"'{name}' is already defined at module level", node)

    def _constant_value(self, node: ast.expr) -> int | float | bool | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float | bool):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = self._constant_value(node.operand)
            return None if inner is None or isinstance(inner, bool) else -inner
        if isinstance(node, ast.Name) and node.id in self.constants:
            return self.constants[node.id]
        size = dtype_size(node)
        if size is not None:
            return size
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            a, b = self._constant_value(node.left), self._constant_value(node.right)
            if type(a) is not int or type(b) is not int:
                return None
            if isinstance(node.op, ast.Add):
                return a + b
            if isinstance(node.op, ast.Sub):
                return a - b
            if isinstance(node.op, ast.Mult):
                return a * b
            if b == 0:
                return None
            return a // b if isinstance(node.op, ast.FloorDiv) else a % b
        return None

    def _module_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> NoReturn:
        for deco in node.decorator_list:
            head = dotted(deco.func if isinstance(deco, ast.Call) else deco) or ""
            if head in _ABOVE_TILE_DECORATORS or head.startswith("pl.jit."):
                self.error(ABOVE_TILE.format(what=f"@{head} function '{node.name}'"), deco)
        self.error(ABOVE_TILE.format(what=f"the Python function '{node.name}' outside a @pl.program class"),
                   node)

    def _is_alias(self, node: ast.Assign) -> bool:
        """`B = A` naming something other than an earlier constant (`SIZE = _SIZE` is a
        constant of the same value, read by `_module_constant`)."""
        return (isinstance(node.value, ast.Name) and node.value.id not in self.constants
                and node.value.id not in self.pl_aliases)

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
        self.last_node = node
        deco = node.decorator_list[0] if len(node.decorator_list) == 1 else None
        if isinstance(deco, ast.Call) and dotted(deco.func) == "pl.program":
            if deco.args or any(kw.arg != "strict_ssa" or not _is_bool_literal(kw.value)
                                for kw in deco.keywords):
                self.error("unsupported syntax: @pl.program takes no arguments besides strict_ssa=True/False",
                           deco)
        elif deco is None or dotted(deco) != "pl.program":
            if node.decorator_list and isinstance(node.decorator_list[0], ast.Call):
                self.error("unsupported syntax: @pl.program takes no arguments", node.decorator_list[0])
            self.error("a program class must be decorated with @pl.program", node)
        if node.bases or node.keywords:
            self.error("unsupported syntax: a program class has no base classes", node)
        body = list(node.body)
        if body and _is_docstring(body[0]):
            body = body[1:]
        parsers: list[_FunctionParser] = []
        seen: dict[str, Span] = {}
        items = [item for item in body if not isinstance(item, ast.Pass)]
        for item in items:
            if not isinstance(item, ast.FunctionDef):
                self.error(f"unsupported syntax: {_stmt_kind(item)} in a program class "
                           "(only @pl.function methods)", item)
            if item.name in seen:
                prev = seen[item.name]
                self.error(f"function '{item.name}' is already defined at {prev.line}:{prev.col}", item)
            seen[item.name] = self.span(item)
        self.function_names = set(seen)
        self.function_params = {}
        self.function_returns = {}
        self.dyn_vars = {}
        self.launch_vars = {}
        for item in items:  # signatures first: a call may name a function defined later
            assert isinstance(item, ast.FunctionDef)
            fp = _FunctionParser(self, item)
            fp.header()
            self.function_params[item.name] = tuple(p.type for p in fp.params)
            self.function_returns[item.name] = fp.returns
            parsers.append(fp)
        if not parsers and not any(isinstance(item, ast.Pass) for item in node.body):
            self.error(f"program '{node.name}' defines no @pl.function", node)
        functions: list[ir.Function] = []
        for fp in parsers:
            functions.append(fp.parse())
            # Its statements are read: they go now rather than with the whole tree, so the
            # next functions' IR reuses their memory (a large file's peak; the signatures and
            # name tables the other functions read are kept).
            fp.node.body = []
            fp.release()
        dyn = tuple(sorted([*self.dyn_vars.values(), *self.launch_vars.values()], key=lambda v: v.name_hint))
        return ir.Program(node.name, tuple(functions), span=self.span(node), dynamic_vars=dyn)

    def launch_symbol(self, op: str, node: ast.AST) -> ir.Var:
        """The program's symbol for the nullary launch-constant op `op` (`ir.LAUNCH_SYMBOLS`),
        kept with its symbolic dimensions under a name no `pl.dynamic` declaration reaches."""
        key = ("launch", op)
        var = self.launch_vars.get(key)
        if var is None:
            var = self.launch_vars[key] = ir.Var(ir.LAUNCH_SYMBOLS[op], ir.ScalarType(ir.DType.INT64),
                                                 span=self.span(node))
        return var

    def dynamic(self, name: str, node: ast.AST) -> ir.Var:
        """The program's symbolic dimension `name` (declared by `pl.dynamic` or not)."""
        hint = self.dynamics.get(name, name)
        var = self.dyn_vars.get(hint)
        if var is None:
            var = self.dyn_vars[hint] = ir.Var(hint, ir.ScalarType(ir.DType.INDEX), span=self.span(node))
        return var


def _fold_early_returns(stmts: list[ast.stmt]) -> list[ast.stmt]:
    """A function body with an early return, as the reference prints one (`if c: ...; return
    x` and more statements after the if), as the if ... else that ends the function: the
    statements after an if one of whose branches ends in a return become the end of its other
    branch (Python's meaning). Folded again inside the branches of the if that now ends the
    body; an if both of whose branches return, followed by more, is left for the parser's
    error."""
    for k, node in enumerate(stmts):
        if not isinstance(node, ast.If):
            continue
        rest = stmts[k + 1:]
        then_returns, else_returns = _returns(node.body), bool(node.orelse) and _returns(node.orelse)
        if rest and then_returns == else_returns:
            continue
        body, orelse = node.body, node.orelse
        if rest and then_returns:
            orelse = [*orelse, *rest]
        elif rest:
            body = [*body, *rest]
        folded = ast.If(test=node.test, body=_fold_early_returns(body),
                        orelse=_fold_early_returns(orelse) if orelse else [])
        if not rest and folded.body == node.body and folded.orelse == node.orelse:
            return stmts
        return [*stmts[:k], ast.copy_location(folded, node)]
    return stmts


def _returns(body: list[ast.stmt]) -> bool:
    """Whether a statement list ends in a return on every path (a return, or an if whose
    branches both do)."""
    last = body[-1] if body else None
    if isinstance(last, ast.Return):
        return True
    return isinstance(last, ast.If) and bool(last.orelse) and _returns(last.body) and _returns(last.orelse)


def _is_bool_literal(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, bool)


def _is_ellipsis(node: ast.stmt) -> bool:
    return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            and node.value.value is Ellipsis)


_UNWALKED_FIELDS = frozenset({"ctx", "op", "type_comment", "attr", "arg"})
"""Fields `_compile_checks` does not descend into: a load / store context and an operator
are argument-less singletons, a type comment is a string, and an attribute's, keyword's or
parameter's name (`attr`, `arg`) an identifier: no node below them."""


class _WalkedFields(dict[type[ast.AST], tuple[str, ...]]):
    """Per AST node type, the fields `_compile_checks` descends into (filled on first use)."""

    def __missing__(self, t: type[ast.AST]) -> tuple[str, ...]:
        # a constant's fields are values (a tuple or frozenset constant holds values too)
        walked = () if t is ast.Constant else tuple(f for f in t._fields if f not in _UNWALKED_FIELDS)
        self[t] = walked
        return walked


_WALKED_FIELDS = _WalkedFields()

_Found = tuple[tuple[int, int], str, ast.AST]
"""A compile-time error found by `_compile_checks`: its position, message and node."""


def _earlier_error(first: _Found | None, found: tuple[str, ast.AST] | None) -> _Found | None:
    """The first in the file of the error found so far and a new one (the earlier-found on a tie)."""
    if found is None:
        return first
    key = (getattr(found[1], "lineno", 0), getattr(found[1], "col_offset", 0))
    return (key, *found) if first is None or key < first[0] else first


_LEAVE = ast.AST()
"""`_compile_checks`'s marker: the walk has left a `def`."""


def _compiler_error(node: ast.AST) -> tuple[str, ast.AST] | None:
    """A call's repeated keyword, a function's repeated parameter or a starred target
    outside a tuple (`_BINDERS`)."""
    if isinstance(node, ast.Call):
        return _repeated_keyword(node)
    if type(node) in _BINDERS:
        return _starred_target(node)
    assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
    return _repeated_parameter(node.args)


def _repeated_keyword(call: ast.Call) -> tuple[str, ast.AST] | None:
    seen: set[str] = set()
    for kw in call.keywords:
        if kw.arg is not None and kw.arg in seen:
            return (f"keyword argument repeated: {kw.arg}", kw)
        if kw.arg is not None:
            seen.add(kw.arg)
    return None


_BINDERS = (ast.Assign, ast.For, ast.AsyncFor, ast.withitem, ast.comprehension)
"""The nodes whose targets CPython's compiler checks for a bare starred name (`*x = v`,
`for *x in v`), which its parser accepts."""
_COMPILER_CHECKED = frozenset({ast.Call, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, *_BINDERS})
"""The nodes `_compiler_error` checks."""


def _starred_target(node: ast.AST) -> tuple[str, ast.AST] | None:
    targets = node.targets if isinstance(node, ast.Assign) else \
        [node.optional_vars] if isinstance(node, ast.withitem) else [getattr(node, "target", None)]
    for target in targets:
        if isinstance(target, ast.Starred):
            return ("starred assignment target must be in a list or tuple", target)
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


def _dtype_text(d: ir.DType) -> str:
    return f"pl.{d.value}"


# --------------------------------------------------------------------------------------
# functions


class _FunctionParser:
    """Parses one `@pl.function`: names, SSA, types, declarations."""

    NON_OPS = NON_OPS

    def __init__(self, mp: _ModuleParser, node: ast.FunctionDef) -> None:
        self.mp = mp
        self.node = node
        self.env = ssa.Scope()
        known = mp.bound_names.get(id(node))
        self.names = ssa.Names(known if known is not None else ssa.function_names(node))
        self.last_read = mp.last_read.get(id(node), {})
        self.analysis = ssa.Analysis()
        self.params: tuple[ir.Var, ...] = ()
        self.scalar_params: set[ir.Var] = set()
        """The function's scalar parameters, bound before the other parameters' types read them."""
        self.ptrs: dict[str, ir.Var] = {}
        self.bases: dict[object, ir.Var] = {}
        self.alloc_names: dict[str, object] = {}
        self.pending: list[ir.Stmt] = []
        """Hoisted nested calls, emitted before the statement being parsed."""
        self.types = TypeReader(self)
        self.calls = CallReader(self)
        self._temps = 0
        self.returns: tuple[ir.Type, ...] = ()
        self._header: tuple[ir.FunctionType, dict[str, object]] | None = None
        self._yield_types: dict[int, ir.Type] = {}
        self._built_tuples: dict[int, tuple[ast.expr | None, ast.stmt]] = {}
        """The returns `_fold_returned_tuple` made, by id, with the assignment they replace."""
        self._function_tail = False
        """The function body has no final return, so an if ending it may end its branches with
        returns (the reference's printed form)."""
        self._returns_here = False
        """The branch being read belongs to an if whose branches may end with a return."""
        self.depth = 0
        self.max_depth = max_expr_depth()

    def release(self) -> None:
        """Drop everything the parse held (the function's AST, scopes, readers) once its IR is
        built: the type and call readers point back at this parser, so the cycle would keep
        the AST alive until a full collection (hundreds of MB at 10,000 loops)."""
        vars(self).clear()

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
        if b is None and name in self.mp.dynamics:
            return self.mp.dynamic(name, node)
        if name.endswith(FREE_VAR_SUFFIX):
            return self.free_var(name, node)
        self.error(f"'{name}' is not defined", node)

    def free_var(self, name: str, node: ast.AST) -> ir.Var:
        """A use the reference printed as free (`FREE_VAR_SUFFIX`), read as its code generator
        reads it: as the variable whose hint the printed name carries. The hint is the printed
        name, or that name without the `_<k>` the printer added to tell it from a definition
        printed with the hint itself. It resolves when exactly one of the two names is bound in
        the function, nothing else there could print from the same hint (`HINT_<j>`), and that
        binding is in scope here; otherwise there is no reading to choose, and it is an error."""
        printed = name[: -len(FREE_VAR_SUFFIX)]
        m = _SUFFIXED.fullmatch(printed)
        hints = [h for h in (printed, m.group(1) if m else None) if h is not None and h in self.names.taken]
        if len(hints) == 1:
            hint = hints[0]
            family = re.compile(re.escape(hint) + r"_[0-9]+")
            alike = [n for n in self.names.taken if n != printed and family.fullmatch(n)]
            var = self.lookup_optional(hint)
            if not alike and var is not None:
                return var
        self.error(f"'{name}' is a free variable: the reference marks with '{FREE_VAR_SUFFIX}' a value "
                   "its IR uses where no statement in scope defines it, and no one binding in scope "
                   "carries its name, so there is no program here to read", node)

    def lookup_optional(self, name: str) -> ir.Var | None:
        """The binder `name` resolves to here, or None when it has none (not bound in the
        function, or without a value at this point)."""
        b = self.env.get(name)
        if isinstance(b, ir.Var):
            return b
        if isinstance(b, ssa.Carry):
            return b.var
        return None

    def temp(self, typ: ir.Type, node: ast.AST) -> ir.Var:
        """A fresh binder for a hoisted call: `t__tmp_vN`, a name the function's source does not
        bind and no binder has (`ssa.Names`: an SSA fresh name is `NAME_<n>`, so it never takes
        this form, and every temporary is recorded as taken)."""
        while True:
            name = f"t__tmp_v{self._temps}"
            self._temps += 1
            if name not in self.names.taken:
                return self.bind(name, typ, node)

    def typed_call(self, node: ast.Call, spec: ops.OpSpec, annot: ir.Type | None) -> tuple[ir.Call, ir.Type]:
        return _OpCall(self, node, spec, annot).build()

    def unknown_pl_above_tile(self, name: str, node: ast.AST) -> None:
        """The above-tile error when `name` is a construct above the hand-off point."""
        if (name in _ABOVE_TILE_SCOPES or name in _ABOVE_TILE_DECORATORS or name in _ABOVE_TILE_CALLS
                or name.startswith("pl.jit.")):
            self.error(ABOVE_TILE.format(what=f"'{name}'"), node)

    def unknown_call(self, func: ast.expr) -> NoReturn:
        """The error for a call of something that is neither an op nor `self.f`: for a `pl.` /
        `pld.` name, `unknown_pl`'s; for a bare name, what the name is (a function of the
        program called without `self.`, a value, or nothing: Python's "not defined", with a
        did-you-mean among the program's functions)."""
        name = dotted(func)
        if name is not None and name.startswith(("pl.", "pld.")):
            self.unknown_pl(name, func)
        if isinstance(func, ast.Name):
            name = func.id
            functions = sorted(self.mp.function_names)
            if name in self.mp.function_names:
                self.error(f"'{name}' is a function of the program: call it as self.{name}(...)", func)
            if self.env.get(name) is not None or name in self.mp.constants:
                self.error(f"'{name}' is a value, not a function: a kernel calls pl operations and the "
                           "program's functions (self.f(...))", func)
            close = difflib.get_close_matches(name, functions, n=1, cutoff=0.7)
            hint = f"; did you mean self.{close[0]}(...)?" if close else ""
            self.error(f"'{name}' is not defined: a kernel calls pl operations and the program's functions "
                       f"(self.f(...)){hint}", func)
        self.error(f"unsupported syntax: call of '{self.mp.source(func)}'", func)

    def unknown_pl(self, name: str, node: ast.AST) -> NoReturn:
        """The error for an unknown `pl.` / `pld.` name: above tile level, a misspelled op
        (with a did-you-mean), or an unsupported construct."""
        self.unknown_pl_above_tile(name, node)
        self.error(f"unsupported DSL construct '{name}'", node)

    def bind(self, name: str, typ: ir.Type, node: ast.AST, param: bool = False) -> ir.Var:
        """A fresh binder for `name` (every binding is one, `slotsat.core.dsl.ssa`), now the
        binding in scope. Only parameters keep `is_out` / `is_inout` (the normal form)."""
        if not param:
            typ = _local_type(typ)
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
        return ir.Var(self.names.hint(name), _local_type(typ), span=span)

    def materialize(self, c: ssa.Carry, typ: ir.Type, node: ast.AST | Span) -> ir.Var:
        """The binder of a lazily carried value, created with `typ` on first need."""
        if c.var is None:
            c.var = ir.Var(c.hint, _local_type(typ), span=c.loop)
            if c.outer is not None:
                c.init = self.materialize(c.outer, typ, node)
        elif not ssa.same_type(c.var.type, typ):
            self.error(f"Cannot reassign '{c.name}' with a different type: was {type_text(c.var.type)}, "
                       f"got {type_text(typ)}", node)
        return c.var

    # -- the function

    def header(self) -> None:
        """The decorator, the parameters and the return types (before any body is read)."""
        node = self.node
        self.mp.last_node = node
        ftype, extras = self._decorator(node)
        self._header = (ftype, extras)
        self.params = self._params(node)
        self.returns = self._returns(node.returns)

    def parse(self) -> ir.Function:
        node = self.node
        if self._header is None:
            self.header()
        assert self._header is not None
        ftype, extras = self._header
        params, returns = self.params, self.returns
        self.mp.last_node = node
        stmts = [s for s in node.body if not isinstance(s, ast.Pass)]
        if stmts and _is_docstring(stmts[0]):
            stmts = stmts[1:]
        attrs: list[tuple[str, ir.AttrValue]] = []
        if stmts and self._is_func_attr(stmts[0]):
            attrs = self._func_attr(stmts[0])
            stmts = stmts[1:]
        fields: dict[str, object] = {**extras, "attrs": tuple((*extras.get("attrs", ()), *attrs))}  # type: ignore[misc]
        if len(stmts) == 1 and _is_ellipsis(stmts[0]):
            return ir.Function(node.name, ftype, params, returns, ir.SeqStmts(()), span=self.span(node),
                               abstract=True, **fields)  # type: ignore[arg-type]
        if extras.get("level") == "HOST" and extras.get("role") == "SubWorker" and stmts:
            # a host callback: Python the host runs, kept as Python as the reference keeps it (each
            # statement as Python's own unparser writes it: the meaning exactly, comments not)
            host = node.body[next(k for k, s in enumerate(node.body) if s is stmts[0]):]
            return ir.Function(node.name, ftype, params, returns, ir.SeqStmts(()), span=self.span(node),
                               inline_body="\n".join(ast.unparse(s) for s in host), **fields)  # type: ignore[arg-type]
        stmts = self._fold_returned_tuple(_fold_early_returns(stmts))
        has_return = bool(stmts) and isinstance(stmts[-1], ast.Return)
        if any(isinstance(s, ast.Return) for s in stmts[:-1]):
            self.error("a function body must end with return", stmts[-1])
        prefix: list[ir.Stmt] = []
        index = 0
        while index < len(stmts) and self._is_alloc(stmts[index]):
            prefix.append(self._alloc(stmts[index]))
            index += 1
        self._function_tail = not has_return
        body, info = self.block(stmts[index:-1] if has_return else stmts[index:], "function",
                                after=ssa.statement_reads(stmts[-1]) if has_return else frozenset())
        assert info is None
        tail: list[ir.Stmt] = []
        if has_return:
            ret = self._return(stmts[-1], returns)
            tail = [*self.pending, ret]
            self.pending.clear()
        return ir.Function(node.name, ftype, params, returns, ir.SeqStmts((*prefix, *body, *tail)),
                           span=self.span(node), **fields)  # type: ignore[arg-type]

    def _is_func_attr(self, node: ast.stmt) -> bool:
        return isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and dotted(
            node.value.func) == "pl.func_attr"

    def _func_attr(self, node: ast.stmt) -> list[tuple[str, ir.AttrValue]]:
        assert isinstance(node, ast.Expr)
        call = node.value
        assert isinstance(call, ast.Call)
        if len(call.args) != 1 or call.keywords:
            self.error('pl.func_attr takes one dict literal: pl.func_attr({"KEY": VALUE})', call)
        return self.call_attrs(call.args[0])

    def _decorator(self, node: ast.FunctionDef) -> tuple[ir.FunctionType, dict[str, object]]:
        """The function type and the other decorator fields of `ir.Function` (level, role,
        auto_scope, external_source, attrs). `strict_ssa=` is accepted and has no effect:
        slotsat converts to SSA either way."""
        for deco in node.decorator_list:
            head = dotted(deco.func if isinstance(deco, ast.Call) else deco) or ""
            if head in _ABOVE_TILE_DECORATORS or head.startswith("pl.jit."):
                self.error(ABOVE_TILE.format(what=f"@{head} function '{node.name}'"), deco)
        if len(node.decorator_list) != 1:
            self.error("a program method must be decorated with @pl.function", node)
        deco = node.decorator_list[0]
        if dotted(deco) == "pl.function":
            return ir.FunctionType.OPAQUE, {}
        if isinstance(deco, ast.Call) and dotted(deco.func) == "pl.function" and not deco.args:
            return self._decorator_keywords(deco)
        if dotted(deco) is not None and (dotted(deco) or "").startswith("pl."):
            self.unknown_pl(dotted(deco) or "", deco)
        self.error("a program method must be decorated with @pl.function or "
                   "@pl.function(type=pl.FunctionType.InCore)", deco)

    def _decorator_keywords(self, deco: ast.Call) -> tuple[ir.FunctionType, dict[str, object]]:
        ftype = ir.FunctionType.OPAQUE
        extras: dict[str, object] = {}
        seen: set[str] = set()
        for kw in deco.keywords:
            if kw.arg is None or kw.arg in seen:
                self.error(f"@pl.function got a repeated or unnamed keyword {kw.arg!r}", kw.value)
            seen.add(kw.arg)
            value = kw.value
            if kw.arg in ("type", "level", "role"):
                enum = {"type": "pl.FunctionType", "level": "pl.Level", "role": "pl.Role"}[kw.arg]
                member = enum_member(dotted(value))
                if member is None or member.enum != enum:
                    name = dotted(value)
                    if name is not None and name.startswith(enum + "."):
                        self.error(f"unsupported DSL construct '{name}'", value)
                    self.error(f"@pl.function({kw.arg}=...) takes a member of {enum}, got "
                               f"{self.mp.source(value)}", value)
                if kw.arg == "type":
                    ftype = ir.FunctionType(member.member)
                else:
                    extras[kw.arg] = member.member
            elif kw.arg in ("strict_ssa", "auto_scope"):
                if not (isinstance(value, ast.Constant) and isinstance(value.value, bool)):
                    self.error(f"@pl.function({kw.arg}=...) takes True or False, got {self.mp.source(value)}",
                               value)
                if kw.arg == "auto_scope":
                    extras["auto_scope"] = value.value
            elif kw.arg == "external_source":
                if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
                    self.error(f"@pl.function(external_source=...) takes a string, got "
                               f"{self.mp.source(value)}", value)
                extras["external_source"] = value.value
            elif kw.arg == "attrs":
                extras["attrs"] = tuple(self.call_attrs(value))
            else:
                self.error(f"@pl.function got an unexpected keyword '{kw.arg}'", value)
        return ftype, extras

    def _params(self, node: ast.FunctionDef) -> tuple[ir.Var, ...]:
        args = node.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
            self.error("unsupported syntax: *args, **kwargs and keyword-only parameters", node)
        if args.defaults or args.kw_defaults:
            self.error("unsupported syntax: parameter default values", args.defaults[0] if args.defaults
                       else node)
        given = list(args.args)
        if given and given[0].arg == "self" and given[0].annotation is None:
            given = given[1:]
        for arg in given:
            if arg.annotation is None:
                self.error(f"parameter '{arg.arg}' needs a type annotation", arg)
        # Scalar parameters first: a tensor's dimension may name a scalar parameter that comes
        # later in the signature (the reference prints the dimension by the parameter's name).
        bound: dict[int, ir.Var] = {}
        for first in (True, False):
            for k, arg in enumerate(given):
                assert arg.annotation is not None
                ann = arg.annotation
                is_scalar = isinstance(ann, ast.Subscript) and dotted(ann.value) == "pl.Scalar"
                if is_scalar == first:
                    bound[k] = self.bind(arg.arg, self.type(arg.annotation), arg, param=True)
                    if is_scalar:
                        self.scalar_params.add(bound[k])
        return tuple(bound[k] for k in range(len(given)))

    def _returns(self, node: ast.expr | None) -> tuple[ir.Type, ...]:
        if node is None:
            return ()
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "tuple":
            elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            return tuple(self.type(e) for e in elts)
        return (self.type(node),)

    def _return(self, node: ast.stmt, returns: tuple[ir.Type, ...]) -> ir.ReturnStmt:
        assert isinstance(node, ast.Return)
        self.mp.last_node = node
        held = self._built(node.value) if node.value is not None else None
        if node.value is None:
            values: tuple[ir.Expr, ...] = ()
        elif held is not None:
            values = held.values
        elif isinstance(node.value, ast.Tuple):
            values = tuple(self._return_value(e, want) for e, want in zip(
                node.value.elts, (*returns, *([None] * len(node.value.elts))), strict=False))
        else:
            values = (self._return_value(node.value, returns[0] if len(returns) == 1 else None),)
        built = self._built_tuples.get(id(node))
        if built is not None:
            self._check_built_tuple(built, values)
        if self.node.returns is None:
            return ir.ReturnStmt(values, span=self.span(node))  # the reference prints such returns
        whole = _expr_type(values[0]) if len(values) == 1 and len(returns) > 1 else None
        if isinstance(whole, ir.TupleType) and len(whole.types) == len(returns) and all(
                _same_kind_shape_dtype(got, want) for got, want in zip(whole.types, returns, strict=True)):
            # one tuple of the function's results (`return self.f(...)`, printed by the
            # reference's FlattenCallExpr as `t__tmp_v0: pl.Tuple[...] = self.f(...)`; `return
            # t__tmp_v0`)
            return ir.ReturnStmt(values, span=self.span(node))
        if len(values) != len(returns):
            self.error(f"return has {len(values)} values but the function is annotated with "
                       f"{len(returns)}", node)
        for value, want in zip(values, returns, strict=True):
            got = _expr_type(value)
            if not _same_kind_shape_dtype(got, want):
                self.error(f"return value has type {type_text(got)} but the function returns "
                           f"{type_text(want)}", node)
        return ir.ReturnStmt(values, span=self.span(node))

    def _fold_returned_tuple(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        """`NAME = (a, b)` (or the reference's printed `NAME: pl.Tuple[...] = [a, b]`) right
        before `return NAME` is `return a, b`, the form slotsat reads: a tuple built from
        values (the reference's MakeTuple) that is only returned. The assignment's annotation
        is checked against the values (`_check_built_tuple`); each value is typed by the
        function's return annotation. Any other tuple built from values is read element by
        element (`_build_tuple`), as slotsat's IR has no tuple construction."""
        ret = stmts[-1] if stmts else None
        if len(stmts) < 2 or not isinstance(ret, ast.Return) or not isinstance(ret.value, ast.Name):
            return stmts
        bound = stmts[-2]
        built = _built_tuple(bound)
        if built is None or built[0] != ret.value.id:
            return stmts
        _, value, annotation = built
        values = ast.copy_location(ast.Tuple(value.elts, ast.Load()), value)
        folded = ast.copy_location(ast.Return(values), bound)
        self._built_tuples[id(folded)] = (annotation, bound)
        return [*stmts[:-2], folded]

    def _build_tuple(self, node: ast.stmt, name: str, value: ast.Tuple | ast.List,
                     annotation: ast.expr | None) -> None:
        """`NAME = (a, b)`, or the reference's printed `NAME: pl.Tuple[...] = [a, b]` (a tuple built
        from values, its MakeTuple; a Python tuple assignment `x, y = f(a), g(b)` prints as one,
        read back as `x = NAME[0]`, ...): its values are read here, in order (a call is hoisted
        into a temporary), and checked against the annotation; the statement leaves none of its
        own, as slotsat's IR has no tuple construction. NAME then reads element by element,
        `NAME[K]` being the K-th value (`ssa.Built`), or in a return; any other read is an error.
        A tuple that is never read (an orchestration loop's assembled results, read value by
        value after it) is just its values."""
        values = tuple(self._return_value(element, None) for element in value.elts)
        self._check_built_tuple((annotation, node), values)
        self.env[name] = ssa.Built(f"it holds a tuple built from values, which slotsat reads element by "
                                   f"element ({name}[K]) or returns", values, self.env)

    def _built(self, node: ast.expr) -> ssa.Built | None:
        """The tuple built from values that the name `node` holds here (`_build_tuple`), if any;
        one built in a block that has ended (a loop body, an if branch or a scope body, read
        after it) is an error."""
        b = self.env.get(node.id) if isinstance(node, ast.Name) else None
        if not isinstance(b, ssa.Built):
            return None
        assert isinstance(node, ast.Name)
        if not self.env.within(b.scope):
            self.error(f"'{node.id}' holds a tuple built from values inside a loop, an if or a scope, "
                       "and is read after it: slotsat reads such a tuple only in the block that builds it",
                       node)
        return b

    def _check_built_tuple(self, built: tuple[ast.expr | None, ast.stmt], values: tuple[ir.Expr, ...]
                           ) -> None:
        annotation, bound = built
        if annotation is None:
            return
        annot = self.type(annotation)
        held = ir.TupleType(tuple(_expr_type(v) for v in values))
        if not isinstance(annot, ir.TupleType) or len(annot.types) != len(values) or not all(
                _same_kind_shape_dtype(got, want) for got, want in zip(held.types, annot.types, strict=True)):
            self.error(f"annotation says {type_text(annot)} but the tuple holds {type_text(held)}", bound)

    def _return_value(self, node: ast.expr, want: ir.Type | None) -> ir.Expr:
        """A returned value; `return pl.op(...)` hoists the call into a temporary typed by the
        return annotation, and a returned integer literal takes the annotation's dtype (`return
        0` from a function returning `pl.Scalar[pl.INT32]`), as in an annotated assignment."""
        if isinstance(node, ast.Call) and self.calls.is_call(node):
            call, typ = self.calls.call(node, want)
            var = self.temp(typ, node)
            self.pending.append(ir.AssignStmt(var, call, span=self.span(node)))
            return var
        if isinstance(want, ir.ScalarType) and want.dtype.is_int and self._is_literal(node):
            return self.settle(self.expr(node), want.dtype)
        return self.index_expr(node, allow_any=True)

    # -- the allocation prefix

    def _is_alloc(self, node: ast.stmt) -> bool:
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        return isinstance(value, ast.Call) and dotted(value.func) == "pl.tile.alloc"

    def _alloc(self, node: ast.stmt) -> ir.AssignStmt:
        assert isinstance(node, ast.Assign | ast.AnnAssign)
        self.mp.last_node = node
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
        pin = next((kw.value for kw in call.keywords if kw.arg == "pinned"), None)
        if len(call.args) == 2 and len(call.keywords) <= 1 and (
                pin is None if not call.keywords else isinstance(pin, ast.Constant) and pin.value is False):
            # an allocation the reference's InitMemRef makes for a tile, not one the author declared
            what = f"the unpinned allocation '{self.mp.source(call)}'"
            self.error(AFTER_HAND_OFF.format(what=what, stage="InitMemRef"), call)
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

    # -- types (`slotsat.core.dsl.annotations`)

    def dtype(self, node: ast.expr) -> ir.DType:
        return self.types.dtype(node)

    def space(self, node: ast.expr) -> ir.MemorySpace:
        return self.types.space(node)

    def is_space(self, node: ast.expr) -> bool:
        return self.types.is_space(node)

    def shape(self, node: ast.expr) -> tuple[int, ...]:
        """A tile shape: rank 1 or 2, positive static entries."""
        return self.types.tile_shape(node)

    def type(self, node: ast.expr) -> ir.Type:
        return self.types.type(node)

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
        read after the list (the escaping rule of `slotsat.core.dsl.ssa`). Calls hoisted out of
        a statement (`self.pending`) come just before it."""
        items = self._fold_returned_tuple([s for s in stmts if not isinstance(s, ast.Pass)])
        needs = ssa.Needs(self.analysis, items, after)
        out: list[ir.Stmt] = []
        outer, self.pending = self.pending, []  # a header's hoisted calls belong before the header
        try:
            info = self._block_items(items, kind, out, needs)
        finally:
            self.pending = outer
        return out, info

    def _block_items(self, items: list[ast.stmt], kind: str, out: list[ir.Stmt], needs: ssa.Needs
                     ) -> _YieldInfo | None:
        info: _YieldInfo | None = None
        for position, node in enumerate(items):
            self.mp.last_node = node
            last = position == len(items) - 1
            is_yield = self._is_yield(node)
            if (is_yield and isinstance(node, ast.Expr) and kind in ("loop", "branch")
                    and last and isinstance(node.value, ast.Call)
                    and not node.value.args and not node.value.keywords):
                continue  # `pl.yield_()`: the reference's empty yield ends a body that carries nothing
            if is_yield:
                if kind not in ("loop", "branch") or not last:
                    self.error("pl.yield_ must be the last statement of a loop body or an if branch", node)
                info = self._yield(node)
                out.extend(self.pending)
                self.pending.clear()
                continue
            if (isinstance(node, ast.With) and kind in ("loop", "branch") and last
                    and node.body and self._is_yield(node.body[-1])):
                # `with pl.scope(): ...; x = pl.yield_(...)` as a whole loop body (the reference's
                # printed form): the yield is not a runtime operation, so it moves after the scope.
                scope, info = self.with_stmt(node, needs, tail=True)
                out.extend(self.pending)
                self.pending.clear()
                out.append(scope)
                continue
            if isinstance(node, ast.Return) and kind in ("branch", "scope") and last:
                if not self._returns_here:
                    where, what = ("an if branch", "if") if kind == "branch" else ("a pl.scope body", "scope")
                    self.error(f"a return may end {where} only when the {what} is the last statement of "
                               "the function", node)
                ret = self._return(node, self.returns)
                out.extend(self.pending)
                self.pending.clear()
                out.append(ret)
                continue
            built = _built_tuple(node)
            if built is not None:
                self._build_tuple(node, *built)
                out.extend(self.pending)
                self.pending.clear()
                continue
            if self._is_scalar_statement(node):
                # The reference keeps it as an EvalStmt of a scalar expression, which has no
                # effect: it is read (names resolve, dtypes check) and leaves no statement.
                assert isinstance(node, ast.Expr)
                value = node.value
                operator = self.calls.scalar_operator(value) if isinstance(value, ast.Call) else None
                self.index_expr(operator if operator is not None else value, allow_float=True)
                out.extend(self.pending)
                self.pending.clear()
                continue
            saved = self._returns_here
            # an if or a scope that ends the function may end with return (the reference's
            # printed orchestration code returns from inside its outermost `with pl.scope()`)
            self._returns_here = isinstance(node, ast.If | ast.With) and last and (
                (kind == "function" and self._function_tail) or (kind in ("branch", "scope") and saved))
            try:
                stmt = self.stmt(node, needs)
            finally:
                self._returns_here = saved
            out.extend(self.pending)
            self.pending.clear()
            out.append(stmt)
        return info

    def stmt(self, node: ast.stmt, needs: ssa.Needs | None = None) -> ir.Stmt:
        """One statement; `needs` knows the names read after each loop or scope of the list it
        stands in (`slotsat.core.dsl.ssa`)."""
        if isinstance(node, ast.For):
            return self.for_stmt(node, needs)
        if isinstance(node, ast.If):
            return self.if_stmt(node)
        if isinstance(node, ast.While):
            return self.while_stmt(node, needs)
        if isinstance(node, ast.With):
            return self.with_stmt(node, needs)[0]
        if isinstance(node, ast.Assign | ast.AnnAssign):
            return self.assign(node)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            return self.eval_stmt(node, node.value)
        if isinstance(node, ast.Return):
            self.error("a function body must end with return", node)
        if self._is_alloc(node):
            self.error("pl.tile.alloc(..., pinned=True) statements are accepted only at the top of a "
                       "function body", node)
        if self._is_func_attr(node):
            self.error("pl.func_attr({...}) must be the first statement of a function body", node)
        if isinstance(node, ast.Break | ast.Continue):
            # The reference's CtrlFlowTransform rewrites them into loop state long before the
            # hand-off point, so they never reach LowerPipelineToSlots.
            self.error(ABOVE_TILE.format(what=f"'{_stmt_kind(node)}' (lowered by the reference's "
                                              "CtrlFlowTransform)"), node)
        self.error(f"unsupported syntax: {_stmt_kind(node)}", node)

    def _is_scalar_statement(self, node: ast.stmt) -> bool:
        """An expression statement that is a scalar expression (`pl.const(0, pl.INT64)`, `n + 1`),
        not an op call, a docstring or `...`."""
        if not isinstance(node, ast.Expr):
            return False
        value = node.value
        if isinstance(value, ast.Constant):
            return type(value.value) in (int, float, bool)
        if not isinstance(value, ast.Call):
            return True
        if self.calls.scalar_operator(value) is not None:
            return True
        scalar_calls = ("pl.const", "pl.cast", "pl.min", "pl.max")
        return dotted(value.func) in scalar_calls and not self.is_tile_cast(value)

    def _is_yield(self, node: ast.stmt) -> bool:
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign | ast.Expr) else None
        # the attribute name first: asked of every statement, and most are not yields
        return (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
                and value.func.attr == "yield_" and dotted(value.func) == "pl.yield_")

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
            # Read inside the body: the result's type may name the body's scalars (a valid shape).
            self._yield_types[id(node.annotation)] = self.type(node.annotation)
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

    def _result_type(self, value: ir.Expr, annotation: ast.expr | None, node: ast.AST,
                     carried: ir.Type | None = None) -> ir.Type:
        """A loop or if result's type: its annotation as written, once it agrees with the
        yielded value's shape, dtype and space (an annotation without a `pl.TileView` is the
        whole tile: the reference's result keeps the type it has, whatever valid shape the
        body's value carries); without one, the loop's carried value's type (`carried`, as the
        reference infers a loop result from its iter_arg) or the yielded value's (an if)."""
        got = _expr_type(value)
        if annotation is None:
            return got if carried is None else carried
        annot = self._yield_types.get(id(annotation)) or self.type(annotation)
        self.agree(annot, got, "pl.yield_", annotation)
        if isinstance(annot, ir.TileType) and isinstance(got, ir.TileType) and annot.memory_space is None:
            return replace(annot, memory_space=got.memory_space)
        return annot

    # -- loops

    def for_stmt(self, node: ast.For, needs: ssa.Needs | None) -> ir.ForStmt | ir.WhileStmt:
        """A loop; `needs` knows the names read after it (`slotsat.core.dsl.ssa`: the body's
        rebindings of names bound before the loop, and of names read after it, become
        carried values after the author's)."""
        call = node.iter
        if isinstance(call, ast.Call) and dotted(call.func) == "pl.while_":
            return self.ssa_while(node, call, needs)
        fname = self._loop_call(node)
        assert isinstance(call, ast.Call)
        is_pipeline = fname == "pl.pipeline"
        start, stop, step = self._bounds(call, fname)
        # a pl.unroll loop may carry values: the reference's DSL does not let an author write
        # init_values there, but it unrolls such loops before its SSA conversion, and slotsat's
        # SSA conversion of a name the body rebinds (`for _ in pl.unroll(3): s = f(s)`) makes a
        # carried unroll loop, which it prints with init_values and must read back
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
        if info is not None:
            self._check_yield_types(info, loop)
        values = [*(info.values if info is not None else ()), *self._close_carries(loop, before)]
        results = self._loop_results(loop, info, before, iv_node, carried_nodes)
        if values:
            body.append(ir.YieldStmt(tuple(values), span=info.span if info is not None else loop.span))
        assert loop.loop_var is not None
        all_attrs = ((ir.PIPELINE_STAGES, stages), *attrs) if is_pipeline else attrs
        return ir.ForStmt(_LOOP_KINDS[fname], loop.loop_var, start, stop, step, tuple(loop.iter_args),
                          tuple(results), ir.SeqStmts(tuple(body)), tuple(all_attrs), span=loop.span)

    def _loop_call(self, node: ast.For) -> str:
        """`pl.range`, `pl.pipeline`, `pl.parallel` or `pl.unroll`: what the loop iterates over."""
        if node.orelse:
            self.error("unsupported syntax: for ... else", node)
        call = node.iter
        fname = dotted(call.func) if isinstance(call, ast.Call) else None
        if fname == "range":
            self.error("unsupported syntax: plain Python range (write pl.range)", call)
        if not isinstance(call, ast.Call) or fname not in _LOOP_KINDS:
            if fname in _ABOVE_TILE_SCOPES:
                self.error(ABOVE_TILE.format(what=f"'for ... in {fname}(...)'"), call)
            if fname is not None and fname.startswith("pl."):
                self.error(f"unsupported DSL construct '{fname}'", call)
            self.error("unsupported syntax: a loop must iterate over pl.range(...) or pl.pipeline(...)", call)
        assert fname is not None
        return fname

    def _enter_loop(self, node: ast.For | ast.While, iv_node: ast.Name | None, carried_nodes: list[ast.Name],
                    inits: tuple[ir.Expr, ...], needs: ssa.Needs | None) -> _Loop:
        """Bind the loop's header and decide what it carries besides the author's values:
        the names its body rebinds that are bound before it, then (without `init_values`)
        the names first bound inside it and read after it. A while loop has no loop
        variable (`iv_node` None)."""
        span = self.span(node)
        before = self.env
        own = {*([iv_node.id] if iv_node is not None else []), *(n.id for n in carried_nodes)}
        rebound = self.analysis.loop_binds(node) - own
        implicit = sorted(n for n in rebound if ssa.is_live(before.get(n)))
        # escaping: first bound inside, read after (only names read on a later line can be)
        end = node.end_lineno or node.lineno
        later = [] if inits or needs is None else [
            n for n in rebound if not ssa.is_live(before.get(n)) and self.last_read.get(n, 0) > end]
        escaping = sorted(n for n in later if n in needs.of(node)) if later and needs is not None else []
        self.env = before.child()
        loop_var: ir.Var | None = None
        if iv_node is not None and iv_node.id == "_":
            loop_var = ir.Var("_", ir.ScalarType(ir.DType.INDEX), span=self.span(iv_node))
            self.env["_"] = ssa.Unbound("a loop variable spelled _ cannot be read")
        elif iv_node is not None:
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

    def _check_yield_types(self, info: _YieldInfo, loop: _Loop) -> None:
        """Each yielded value is of the kind of the value it carries on (a tile for a tile, a
        tensor for a tensor, a scalar for a scalar), and a tile or tensor has its shape and
        dtype (`ssa.same_type`, the rebinding test): the next iteration reads it as that. A
        scalar's dtype is not compared."""
        for k, (value, it) in enumerate(zip(info.values, loop.iter_args, strict=False)):
            got, carried = _expr_type(value), it.var.type
            scalar = isinstance(carried, ir.ScalarType)
            same = type(got) is type(carried) if scalar else ssa.same_type(carried, got)
            if not same:
                self.error(f"pl.yield_ value {k} has type {type_text(got)}, but the loop carries "
                           f"'{it.var.name_hint}' with type {type_text(carried)}", info.node)

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
                      iv_node: ast.Name | None, carried_nodes: list[ast.Name]) -> list[ir.Var]:
        """Bind the loop's results (the author's yield targets, then one per added carried
        value) in the scope after the loop, where its own names have no value."""
        where = loop.where
        after = before
        for name in loop.rebound:
            if name not in loop.slots and not ssa.is_live(before.get(name)):
                after[name] = ssa.Unbound(f"it is bound only inside the loop at {where}")
        if iv_node is not None:
            after[iv_node.id] = ssa.Unbound(f"it is the loop variable of the loop at {where}")
        for n in carried_nodes:
            after[n.id] = ssa.Unbound(f"it is carried by the loop at {where}; its result is the name "
                                      "its pl.yield_ binds")
        self.env = after
        results: list[ir.Var] = []
        explicit: set[str] = set()
        if info is not None:
            results = [self.bind(name, self._result_type(v, ann, tnode, it.var.type), tnode)
                       for (name, ann, tnode), v, it in zip(info.targets, info.values,
                                                            loop.iter_args[:len(info.values)], strict=True)]
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
        given = [a for a in self.node.args.args if not (a.arg == "self" and a.annotation is None)]
        for param, arg in zip(self.params, given, strict=True):
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
            dtype = ir.expr_dtype(bound)
            if dtype is not ir.DType.INDEX and dtype.is_int_arith and not isinstance(bound, ir.ConstInt):
                bound = ir.Cast(bound, ir.DType.INDEX, span=self.span(arg))  # the reference's implicit cast
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
                    self.error(f"stage= is only supported on pl.pipeline(), not {dotted(call.func)}()",
                               kw.value)
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
                name = dotted(call.func) or "pl.range"
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
            elif isinstance(value, ast.Constant) and type(value.value) is float:
                attr = self.finite(value.value, value)
            elif isinstance(value, ast.Constant) and isinstance(value.value, bool | str):
                attr = value.value
            elif (isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub)
                  and isinstance(value.operand, ast.Constant) and type(value.operand.value) is float):
                attr = -self.finite(value.operand.value, value)
            else:
                self.error(f"attrs values must be int, float, bool or string literals, got "
                           f"{self.mp.source(value)}", value)
            out.append((key.value, attr))
        return out

    def call_attrs(self, node: ast.expr) -> list[tuple[str, ir.AttrValue]]:
        """A call's or function's `attrs={...}` / `pl.func_attr({...})`: literal values as in
        loop attributes, and the reference's other attribute values (dtypes, memory spaces,
        enum members, lists, variables, expressions) as call arguments."""
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
            elif isinstance(value, ast.Constant) and type(value.value) is float:
                attr = self.finite(value.value, value)
            elif isinstance(value, ast.Constant) and isinstance(value.value, bool | str):
                attr = value.value
            else:
                attr = self.calls.arg(value)
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

    # -- while and scopes

    def while_stmt(self, node: ast.While, needs: ssa.Needs | None) -> ir.WhileStmt:
        """`while COND:`. Its body does not yield; the names it rebinds that are bound before
        it (and, as for a for loop, the names first bound in it and read after it) become
        carried values, which the condition reads, as the reference's ConvertToSSA does."""
        if node.orelse:
            self.error("unsupported syntax: while ... else", node)
        before = self.env
        loop = self._enter_loop(node, None, [], (), needs)
        cond = self._condition(node.test, "a while condition")
        if self.pending:
            self.error("a while condition is evaluated on every iteration; assign the call to a name in the "
                       "loop body instead", node.test)
        body, info = self.block(node.body, "while")
        assert info is None
        values = self._close_carries(loop, before)
        results = self._loop_results(loop, None, before, None, [])
        if values:
            body.append(ir.YieldStmt(tuple(values), span=loop.span))
        return ir.WhileStmt(cond, tuple(loop.iter_args), tuple(results), ir.SeqStmts(tuple(body)),
                            span=loop.span)

    def ssa_while(self, node: ast.For, call: ast.Call, needs: ssa.Needs | None) -> ir.WhileStmt:
        """`for (a, b) in pl.while_(init_values=(A0, B0)):` whose body starts with
        `pl.cond(COND)` and ends with `x, y = pl.yield_(...)` (the names its body rebinds
        besides are carried after the author's values, as in a for loop)."""
        if node.orelse:
            self.error("unsupported syntax: for ... else", node)
        if call.args or len(call.keywords) != 1 or call.keywords[0].arg != "init_values":
            self.error("pl.while_ takes only init_values=(...)", call)
        init_node = call.keywords[0].value
        if not isinstance(init_node, ast.Tuple | ast.List) or not init_node.elts:
            self.error("init_values must be a non-empty tuple: init_values=(A,)", init_node)
        inits = tuple(self.index_expr(e, allow_any=True) for e in init_node.elts)
        target = node.target
        elts = target.elts if isinstance(target, ast.Tuple | ast.List) else []
        names = [n for n in elts if isinstance(n, ast.Name)]
        if not names or len(names) != len(elts):
            self.error("unsupported syntax: loop target (write for (a, b) in pl.while_(...))", target)
        if len(names) != len(inits):
            self.error(f"init_values has {len(inits)} values but the loop unpacks {len(names)} names", target)
        body_nodes = [s for s in node.body if not isinstance(s, ast.Pass)]
        first = body_nodes[0] if body_nodes else None
        if not (isinstance(first, ast.Expr) and isinstance(first.value, ast.Call)
                and dotted(first.value.func) == "pl.cond" and len(first.value.args) == 1
                and not first.value.keywords):
            self.error("the body of a pl.while_ loop must start with pl.cond(CONDITION)", first or node)
        before = self.env
        loop = self._enter_loop(node, None, names, inits, needs)
        cond = self._condition(first.value.args[0], "pl.cond")
        if self.pending:
            self.error("pl.cond is evaluated on every iteration; it cannot contain a call", first)
        body, info = self.block(body_nodes[1:], "loop")
        if info is None:
            self.error("a loop with init_values must end with pl.yield_", node.body[-1])
        if len(info.values) != len(inits):
            self.error(f"pl.yield_ has {len(info.values)} values but the loop carries {len(inits)}",
                       info.node)
        self._check_yield_types(info, loop)
        values = [*info.values, *self._close_carries(loop, before)]
        results = self._loop_results(loop, info, before, None, names)
        body.append(ir.YieldStmt(tuple(values), span=info.span))
        return ir.WhileStmt(cond, tuple(loop.iter_args), tuple(results), ir.SeqStmts(tuple(body)),
                            span=loop.span)

    def _condition(self, node: ast.expr, what: str) -> ir.Expr:
        cond = self.index_expr(node)
        if ir.expr_dtype(cond) is not ir.DType.BOOL:
            self.error(f"{what} must be a comparison or a pl.BOOL scalar", node)
        return cond

    def with_stmt(self, node: ast.With, needs: ssa.Needs | None, tail: bool = False
                  ) -> tuple[ir.ScopeStmt, _YieldInfo | None]:
        """`with pl.scope():` / `with pl.scope(mode=pl.ScopeMode.MANUAL):`. With `tail` (the
        scope ends a loop body or a branch) its body may end with the yield, returned apart.
        A scope does not scope names: its body binds in the enclosing scope, and the names
        read after the scope are read after its body (`needs`)."""
        if len(node.items) != 1:
            self.error("unsupported syntax: a with statement with several items", node)
        item = node.items[0]
        ctx = item.context_expr
        name = dotted(ctx.func) if isinstance(ctx, ast.Call) else dotted(ctx)
        if name in _ABOVE_TILE_SCOPES:
            self.error(ABOVE_TILE.format(what=f"'with {name}(...)'"), ctx)
        if name != "pl.scope" or not isinstance(ctx, ast.Call):
            if name is not None and name.startswith("pl."):
                self.unknown_pl(name, ctx)
            self.error("unsupported syntax: with statement (only with pl.scope(): ...)", node)
        if item.optional_vars is not None:
            self.error("unsupported syntax: with pl.scope() as NAME", item.optional_vars)
        manual = False
        if ctx.args or len(ctx.keywords) > 1:
            self.error("pl.scope takes only mode=pl.ScopeMode.X", ctx)
        for kw in ctx.keywords:
            if kw.arg != "mode":
                self.error(f"pl.scope() got an unexpected keyword '{kw.arg}'", kw.value)
            manual = self.types.enum(kw.value, "pl.ScopeMode") == "MANUAL"
        after = needs.of(node) if needs is not None else frozenset()
        body, info = self.block(node.body, "branch" if tail else "scope", after=after)
        return ir.ScopeStmt(manual, ir.SeqStmts(tuple(body)), span=self.span(node)), info

    # -- if

    def if_stmt(self, node: ast.If) -> ir.IfStmt:
        """An if; names its branches rebind become its results, ahead of the author's
        (`slotsat.core.dsl.ssa`)."""
        cond = self._condition(node.test, "an if condition")
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
        # A branch that ends with return leaves nothing to the code after the if.
        returns = [_ends_with_return(b) for b in (then_body, else_body)]
        then_env = before.child() if returns[0] else then_env
        else_env = before.child() if returns[1] else else_env
        explicit = None if then_info is None else {t[0] for t in then_info.targets}
        after, phis = self._if_merge(before, then_env, else_env, explicit, span)
        if phis and any(returns):
            self.error(f"'{phis[0][0]}' is rebound in the if at {span.line}:{span.col}, one of whose "
                       "branches ends with return, so the if would need a result that branch never "
                       f"yields; bind '{phis[0][0]}' after the if instead", span)
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
        for var, (_, ann, _tnode), value, first in zip(results, else_info.targets, else_info.values,
                                                      then_info.values, strict=True):
            got = self._result_type(value, ann, _tnode)
            if not _same_kind_shape_dtype(got, var.type):
                self.error(f"both branches of an if must yield the same types: {type_text(var.type)} and "
                           f"{type_text(got)}", else_info.node)
            a, b = _expr_type(first), _expr_type(value)
            if (isinstance(a, ir.TileType) and isinstance(b, ir.TileType) and a.memory_space is not None
                    and b.memory_space is not None and a.memory_space != b.memory_space):
                # one if result has one memory space; the reference's InferTileMemorySpace moves a
                # branch's tile into the space of the other before the hand-off point
                what = (f"an if whose branches yield tiles in different memory spaces "
                        f"({type_text(a)} and {type_text(b)})")
                self.error(BEFORE_HAND_OFF.format(what=what, stage="InferTileMemorySpace"), else_info.node)
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
            if annotation is None and all(isinstance(e, ast.Name) for e in target.elts):
                if isinstance(node.value, ast.Call) and self.calls.is_call(node.value):
                    return self._unpack(target, node.value, node)
                if isinstance(node.value, ast.Tuple | ast.List) and target.elts:
                    return self._unpack_values(target, node.value, node)
            self.error("unsupported syntax: tuple unpacking (only NAME1, NAME2 = VALUE1, VALUE2, NAME1, "
                       "NAME2 = pl.yield_(...) or NAME1, NAME2 = CALL(...) of several results)", target)
        if isinstance(target, ast.Subscript):
            if _has_slice(target.slice):
                self.error(ABOVE_TILE.format(what=f"tensor slicing '{self.mp.source(target)}'"), target)
            # the reference's parser desugars `arr[i] = v` / `t[i, j] = s` before ConvertToSSA
            # (`array.update_element`, `assemble`) and rejects it under strict SSA
            what = f"the subscript write '{self.mp.source(target)} = ...'"
            self.error(ABOVE_TILE.format(what=what), target)
        if isinstance(target, ast.Attribute):
            self.error("unsupported syntax: attribute assignment target", target)
        assert isinstance(target, ast.Name)
        value_node = node.value
        assert value_node is not None
        annot = None if annotation is None else self.type(annotation)
        value, inferred, what = self.value(value_node, annot)
        if isinstance(value, ir.TupleGetItem) and annot is not None and type(annot) is type(inferred):
            typ = annot  # the reference's element annotation is the binder's type
        else:
            typ = inferred if annot is None else self.agree(annot, inferred, what, annotation or node)
        self.rebinding(target.id, typ, target)
        var = self.bind(target.id, typ, target)
        return ir.AssignStmt(var, value, span=self.span(node))

    def _unpack(self, target: ast.Tuple | ast.List, value: ast.Call, node: ast.stmt) -> ir.AssignStmt:
        """`a, b = self.f(...)` / `out, tid = pl.submit(...)`: the call's results bound to a
        tuple temporary and each name to its element, as the reference's parser writes it
        (`_tuple_tmp: pl.Tuple[...] = self.f(...)`, `a = _tuple_tmp[0]`, ...; a launch's
        temporary is `_submit_tmp`). The statements before the last go to `pending`."""
        call, typ = self.op_call(value, None)
        names = [e for e in target.elts if isinstance(e, ast.Name)]
        if not isinstance(typ, ir.TupleType) or len(typ.types) != len(names):
            count = len(typ.types) if isinstance(typ, ir.TupleType) else 1
            self.error(f"{len(names)} names unpack {_call_text(call)}, which has {count} result(s)", target)
        hint = "_submit_tmp" if call.op in ("submit", "spmd_submit") else "_tuple_tmp"
        tmp = self.binder(hint, typ, self.span(value))
        self.pending.append(ir.AssignStmt(tmp, call, span=self.span(node)))
        stmts: list[ir.AssignStmt] = []
        for k, (name, item_type) in enumerate(zip(names, typ.types, strict=True)):
            self.rebinding(name.id, item_type, name)
            var = self.bind(name.id, item_type, name)
            item = ir.TupleGetItem(tmp, k, span=self.span(name))
            stmts.append(ir.AssignStmt(var, item, span=self.span(node)))
        self.pending.extend(stmts[:-1])
        return stmts[-1]

    def _unpack_values(self, target: ast.Tuple | ast.List, value: ast.Tuple | ast.List, node: ast.stmt
                       ) -> ir.AssignStmt:
        """`a, b = x, y`: every value is read first, in order (a call is hoisted into a
        temporary), then each name is bound to its value, as Python assigns (`a, b = b, a`
        swaps; the reference's parser builds the tuple and reads it back by index). The
        statements before the last go to `pending`."""
        names = [e for e in target.elts if isinstance(e, ast.Name)]
        if len(value.elts) != len(names):
            self.error(f"{len(names)} names unpack {len(value.elts)} values", target)
        values = [self._return_value(element, None) for element in value.elts]
        stmts: list[ir.AssignStmt] = []
        for name, item in zip(names, values, strict=True):
            typ = _expr_type(item)
            self.rebinding(name.id, typ, name)
            var = self.bind(name.id, typ, name)
            stmts.append(ir.AssignStmt(var, item, span=self.span(node)))
        self.pending.extend(stmts[:-1])
        return stmts[-1]

    def value(self, node: ast.expr, annot: ir.Type | None) -> tuple[ir.Expr | ir.Call, ir.Type, str]:
        """The value of an assignment, its type, and what to call it in messages."""
        operator = self.calls.scalar_operator(node) if isinstance(node, ast.Call) else None
        if operator is not None:
            expr = self._same_int64(self.index_expr(operator, allow_float=True), annot)
            return expr, _expr_type(expr), "the expression"
        if isinstance(node, ast.Call):
            name = dotted(node.func)
            if name in ("pl.const", "pl.cast", "pl.min", "pl.max") and not self.is_tile_cast(node):
                expr = self.index_expr(node, allow_float=True)
                return expr, _expr_type(expr), "the expression"
            if name == "pl.tile.alloc":
                self.error("pl.tile.alloc(..., pinned=True) statements are accepted only at the top of a "
                           "function body", node)
            if self.calls.is_call(node):
                call, typ = self.calls.call(node, annot)
                return call, typ, _call_text(call)
        if isinstance(annot, ir.ScalarType) and annot.dtype.is_int and self._is_literal(node):
            # `x: pl.Scalar[pl.INT64] = 0`: the literal takes the annotation's dtype, as the
            # reference reads it (it prints `pl.const(0, pl.INT64)`); it must fit
            expr = self.settle(self.expr(node), annot.dtype)
            return expr, _expr_type(expr), "the expression"
        if isinstance(node, ast.Name):
            var = self.lookup(node.id, node)
            if isinstance(var.type, ir.PtrType):
                self.error(f"'{node.id}' is a pointer; it may only appear as a MemRef base", node)
            if self._converts(var, annot):
                assert annot is not None
                return self._same_int64(var, annot), annot, f"'{node.id}'"
            return var, var.type, f"'{node.id}'"
        expr = self.index_expr(node, allow_float=True, allow_any=True)
        expr = self._same_int64(expr, annot)
        return expr, _expr_type(expr), "the expression"

    def _is_literal(self, node: ast.expr) -> bool:
        """An integer literal, `-literal`, or a module constant not shadowed by a local."""
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            node = node.operand
        if isinstance(node, ast.Constant):
            return type(node.value) is int
        return (isinstance(node, ast.Name) and type(self.mp.constants.get(node.id)) is int
                and self.lookup_optional(node.id) is None)

    @staticmethod
    def _converts(value: ir.Expr, annot: ir.Type | None) -> bool:
        """Whether an INDEX value is annotated INT64 or an INT64 one INDEX: the reference binds
        it at the annotation's dtype without a printed cast (one 64-bit signed integer)."""
        if not isinstance(annot, ir.ScalarType) or annot.dtype not in _SAME_INT64:
            return False
        if isinstance(value, ir.Var) and not isinstance(value.type, ir.ScalarType):
            return False
        return {ir.expr_dtype(value), annot.dtype} == _SAME_INT64

    def _same_int64(self, value: ir.Expr, annot: ir.Type | None) -> ir.Expr:
        """`value` at the annotation's dtype when `_converts` (the value-preserving cast slotsat
        spells, as it does for the reference's mixed INDEX / INT64 arithmetic)."""
        if not self._converts(value, annot):
            return value
        assert isinstance(annot, ir.ScalarType)
        return ir.Cast(value, annot.dtype, span=getattr(value, "span", ir.NO_SPAN))

    def eval_stmt(self, node: ast.Expr, call: ast.Call) -> ir.EvalStmt:
        name = dotted(call.func)
        if name == "pl.tile.alloc":
            self.error("pl.tile.alloc(..., pinned=True) statements are accepted only at the top of a "
                       "function body", node)
        if not self.calls.is_call(call):
            self.unknown_call(call.func)
        op_call, _ = self.calls.call(call, None, statement=True)
        return ir.EvalStmt(op_call, span=self.span(node))

    def is_tile_cast(self, node: ast.Call) -> bool:
        """`pl.cast(t, DTYPE)` of a tile (the op `tile.cast`), not the scalar cast."""
        if dotted(node.func) != "pl.cast" or not node.args or not isinstance(node.args[0], ast.Name):
            return False
        b = self.env.get(node.args[0].id)
        var = b.var if isinstance(b, ssa.Carry) else b
        return isinstance(var, ir.Var) and isinstance(var.type, ir.TileType)

    def agree(self, annot: ir.Type, got: ir.Type, what: str, node: ast.AST) -> ir.Type:
        """Check an annotation against the value's type (§6.3); return the binder's type.

        The annotation is the reference's type for printed IR, so it wins where slotsat's
        rule is only a default: the valid shape (checked for `tile.load`, whose valid shape is
        an argument; `tile.tri` and `tile.random` are checked where the call is read) and the
        explicit `pl.TileView` layout fields."""
        def mismatch() -> str:  # only spelled for an error: every assignment comes here
            return f"annotation says {type_text(annot)} but {what} produces {type_text(got)}"

        if isinstance(annot, ir.TileType):
            if not isinstance(got, ir.TileType) or got.shape != annot.shape or got.dtype != annot.dtype:
                self.error(mismatch(), node)
            if annot.memory_space is not None and got.memory_space is not None and (
                    annot.memory_space != got.memory_space):
                self.error(mismatch(), node)
            is_load = what == "pl.tile.load"
            if is_load and annot.valid_shape is not None and annot.valid_shape != got.valid_shape:
                self.error(f"annotation says valid_shape={exprs_text(annot.effective_valid_shape)} "
                           f"but {what} "
                           f"produces valid_shape={exprs_text(got.effective_valid_shape)}", node)
            valid = annot.valid_shape if annot.valid_shape is not None else got.valid_shape
            if what != "pl.tile.load" and annot.valid_shape is None and annot.layout is not None:
                valid = None  # the reference printed the whole view; an absent valid shape is the full one
            return ir.TileType(annot.shape, annot.dtype, annot.memory_space or got.memory_space, annot.memref,
                               valid, annot.layout)
        if (isinstance(annot, ir.TupleType) and isinstance(got, ir.TupleType)
                and len(annot.types) == len(got.types)):
            # element by element, so a tile element without a memory space takes the value's
            return ir.TupleType(tuple(self.agree(a, g, what, node) for a, g in zip(annot.types, got.types,
                                                                                    strict=True)))
        if not _same_kind_shape_dtype(annot, got):
            self.error(mismatch(), node)
        return annot

    # -- operation calls

    def op_call(self, node: ast.Call, annot: ir.Type | None,
                statement: bool = False) -> tuple[ir.Call, ir.Type]:
        if not self.calls.is_call(node):
            self.unknown_call(node.func)
        return self.calls.call(node, annot, statement)

    def opaque_arg(self, node: ast.expr) -> ir.CallArg:
        return self.calls.arg(node)

    def expr_list(self, node: ast.expr, dims: bool = False) -> tuple[ir.Expr, ...]:
        if not isinstance(node, ast.List | ast.Tuple):
            self.error(f"expected a list literal [...], got {self.mp.source(node)}", node)
        return tuple(self.index_expr(e, dims=dims) for e in node.elts)

    # -- scalar expressions

    def index_expr(self, node: ast.expr, allow_any: bool = False, allow_float: bool = False,
                   dims: bool = False, shape: bool = False) -> ir.Expr:
        """A scalar expression whose bare literals are INDEX (§7.1). With `allow_any`, a name
        of any type (tile, tensor) is accepted at the top. With `dims` (a type annotation's
        dimension), a name that is not defined is a symbolic dimension of the program. With
        `shape` (an entry of a tensor's or tile's shape; implies `dims`), a module-level
        constant or `pl.dynamic` name wins over a local of the same name, as the reference's
        type resolver reads shapes (a view's valid shape reads the local first)."""
        if allow_any and isinstance(node, ast.Name) and node.id not in self.mp.constants:
            var = self.lookup_dim(node.id, node) if dims else self.lookup(node.id, node)
            if isinstance(var.type, ir.PtrType):
                self.error(f"'{node.id}' is a pointer; it may only appear as a MemRef base", node)
            return var
        if allow_any and isinstance(node, ast.Call) and self.calls.is_call(node) and not dims:
            return self.calls.hoist(node)
        if allow_any and isinstance(node, ast.Subscript):
            return self._subscript(node)
        value = self.index_literal(node)
        if value is not None:
            # the commonest operand (an offset, a bound, a shape entry): what `settle(expr(node))`
            # makes of it, without the walk and the bare literal in between
            return ir.ConstInt(value, ir.DType.INDEX, span=self.span(node))
        saved = self._dims, self._shape
        self._dims, self._shape = dims or shape, shape
        try:
            return self.settle(self.expr(node, allow_float), ir.DType.INDEX)
        finally:
            self._dims, self._shape = saved

    _dims = False
    _shape = False

    def index_literal(self, node: ast.expr) -> int | None:
        """The value of an integer literal that `index_expr` reads as that INDEX constant;
        None for any other expression and for a literal it rejects (out of range, or nested
        too deeply), which `index_expr` reports."""
        if type(node) is ast.Constant and type(node.value) is int and self.depth < self.max_depth and (
                ir.DType.INDEX.fits(node.value)):
            return node.value
        return None

    def lookup_dim(self, name: str, node: ast.AST) -> ir.Var:
        """A name in a type's dimension: a local, else a symbolic dimension of the program."""
        var = self.lookup_optional(name)
        return var if var is not None else self.mp.dynamic(name, node)

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

    def _literal(self, node: ast.Constant, allow_float: bool) -> _Typed:
        if type(node.value) is int:
            return _Bare(node.value, self.span(node))
        if type(node.value) is float and allow_float:
            return _Bare(self.finite(node.value, node), self.span(node))
        if type(node.value) is bool:
            return ir.ConstInt(int(node.value), ir.DType.BOOL, span=self.span(node))
        self.error(f"unsupported syntax: literal {self.mp.source(node)}", node)

    def _name(self, node: ast.Name) -> _Typed:
        constant = self.mp.constants.get(node.id)
        if constant is not None and (self._shape or self.lookup_optional(node.id) is None):
            if isinstance(constant, bool):
                return ir.ConstInt(int(constant), ir.DType.BOOL, span=self.span(node))
            return _Bare(constant, self.span(node))
        if self._shape and node.id in self.mp.dynamics:
            # An INDEX parameter named as a `pl.dynamic` symbol is that symbol (the reference's
            # parser rebinds the declaration to the parameter); a local of the name is not.
            local = self.lookup_optional(node.id)
            if local is not None and local in self.scalar_params:
                return local
            return self.mp.dynamic(node.id, node)
        var = self.lookup_dim(node.id, node) if self._dims else self.lookup(node.id, node)
        if not isinstance(var.type, ir.ScalarType):
            kind = {ir.TileType: "a tile", ir.TensorType: "a tensor", ir.PtrType: "a pointer"}.get(
                type(var.type), "not a scalar")
            self.error(f"'{node.id}' is {kind}, not a scalar", node)
        return var

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
            return self._literal(node, allow_float)
        if isinstance(node, ast.Name):
            return self._name(node)
        if isinstance(node, ast.UnaryOp):
            return self._unary(node, allow_float)
        if isinstance(node, ast.BinOp):
            return self._binop(node)
        if isinstance(node, ast.BoolOp):
            return self._boolop(node)
        if isinstance(node, ast.Compare):
            return self._compare(node)
        if isinstance(node, ast.Call):
            return self._scalar_call(node)
        if isinstance(node, ast.Subscript):
            return self._scalar_subscript(node)
        name = dotted(node)
        if name is not None and name.startswith(("pl.", "pld.")):
            self.unknown_pl(name, node)
        self.error(f"unsupported syntax: {_expr_kind(node)}", node)

    def _subscript(self, node: ast.Subscript) -> ir.Expr:
        """`t[k]` of a tuple-typed value (`ir.TupleGetItem`), or the k-th value of a tuple built
        from values (`_build_tuple`)."""
        if _has_slice(node.slice):
            self.error(ABOVE_TILE.format(what=f"tensor slicing '{self.mp.source(node)}'"), node)
        built = self._built(node.value)
        if built is not None:
            k = _is_int_literal(node.slice)
            if k is None or not 0 <= k < len(built.values):
                self.error(f"a tuple index must be an integer literal in [0, {len(built.values)}), got "
                           f"{self.mp.source(node.slice)}", node.slice)
            return built.values[k]
        base = self.index_expr(node.value, allow_any=True) if not isinstance(node.value, ast.Subscript) else (
            self._subscript(node.value))
        index = _is_int_literal(node.slice)
        t = base.type if isinstance(base, ir.Var) else None
        if isinstance(t, ir.TensorType):
            # `t[i]` of a tensor is tensor slicing, as `t[a:b]` is (the reference's parser reads it
            # as a `tensor.slice` dropping that dimension)
            self.error(ABOVE_TILE.format(what=f"tensor slicing '{self.mp.source(node)}'"), node)
        if not isinstance(t, ir.TupleType):
            self.error(f"unsupported syntax: subscript of {self.mp.source(node.value)} (only t[K] of a "
                       "tuple-typed value)", node)
        if index is None or not 0 <= index < len(t.types):
            self.error(f"a tuple index must be an integer literal in [0, {len(t.types)}), got "
                       f"{self.mp.source(node.slice)}", node.slice)
        return ir.TupleGetItem(base, index, span=self.span(node))

    def _scalar_subscript(self, node: ast.Subscript) -> ir.Expr:
        e = self._subscript(node)
        if not isinstance(_expr_type(e), ir.ScalarType):
            self.error(f"'{self.mp.source(node)}' is not a scalar", node)
        return e

    def _unary(self, node: ast.UnaryOp, allow_float: bool) -> _Typed:
        if isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
            value = node.operand.value
            if type(value) is int:
                return _Bare(-value, self.span(node))
            if type(value) is float and allow_float:
                return _Bare(-self.finite(value, node), self.span(node))
        if isinstance(node.op, ast.UAdd):
            return self.expr(node.operand, allow_float)
        op = {ast.USub: "neg", ast.Not: "not", ast.Invert: "bitnot"}[type(node.op)]
        a = self.settle(self.expr(node.operand, allow_float), ir.DType.INDEX)
        dtype = ir.expr_dtype(a)
        if op == "not" and not (dtype is ir.DType.BOOL or dtype.is_int or dtype.is_float):
            self.error(f"'not' needs a numeric or pl.BOOL operand, got {_dtype_text(dtype)}", node)
        if op == "not":
            # the reference's Not: any scalar, a BOOL result (its code generator compares with 0)
            return ir.ScalarUnary(op, a, ir.DType.BOOL, span=self.span(node))
        if op == "bitnot" and not dtype.is_int:
            self.error(f"'~' needs an integer operand, got {_dtype_text(dtype)}", node)
        if op == "neg" and not (dtype.is_int or dtype.is_float):
            self.error(f"unary minus needs a numeric operand, got {_dtype_text(dtype)}", node)
        return ir.ScalarUnary(op, a, dtype, span=self.span(node))

    def _pair(self, left: ast.expr, right: ast.expr, symbol: str, node: ast.AST) -> tuple[ir.Expr, ir.Expr]:
        a = self.expr(left, allow_float=True)
        b = self.expr(right, allow_float=True)
        if isinstance(a, _Bare) and isinstance(b, _Bare):
            return self.settle(a, ir.DType.INDEX), self.settle(b, ir.DType.INDEX)
        if isinstance(a, _Bare):
            assert not isinstance(b, _Bare)
            return self._settle_to(a, b, symbol, node), b
        if isinstance(b, _Bare):
            return a, self._settle_to(b, a, symbol, node)
        da, db = ir.expr_dtype(a), ir.expr_dtype(b)
        if {da, db} == _SAME_INT64:
            # The reference's scalar promotion: INDEX and INT64 are one 64-bit signed integer and
            # mix without a printed cast, at the left operand's dtype (`PromoteBinaryOperands`);
            # slotsat spells that conversion as the value-preserving cast it is.
            return a, ir.Cast(b, da, span=getattr(b, "span", self.span(node)))
        if da is not db and ((da.is_int and db.is_int) or (da.is_float and db.is_float)):
            # The reference's scalar promotion (`PromoteBinaryOperands`): operands of one
            # category meet at the wider dtype, the left one's when they are equally wide, and
            # the other operand is cast (`n != m` of an INDEX and an INT32 is
            # `n != pl.cast(m, pl.INDEX)`, as the reference prints it).
            if db.bits > da.bits:
                return ir.Cast(a, db, span=getattr(a, "span", self.span(node))), b
            return a, ir.Cast(b, da, span=getattr(b, "span", self.span(node)))
        if da is not db:
            self.error(f"operands of '{symbol}' have dtypes {_dtype_text(da)} and {_dtype_text(db)}; "
                       "insert pl.cast", node)
        return a, b

    def _settle_to(self, bare: _Bare, other: ir.Expr, symbol: str, node: ast.AST) -> ir.Expr:
        """A bare literal takes its sibling's dtype (a float literal needs a float sibling)."""
        dtype = ir.expr_dtype(other)
        if isinstance(bare.value, float):
            if not dtype.is_float:
                self.error(f"operands of '{symbol}' have dtypes pl.FP32 and {_dtype_text(dtype)}; "
                           "insert pl.cast", node)
            return ir.ConstFloat(bare.value, dtype, span=bare.span)
        if dtype.is_float:
            return ir.ConstFloat(float(bare.value), dtype, span=bare.span)
        return self.settle(bare, dtype)

    def _binop(self, node: ast.BinOp) -> ir.Expr:
        cls = _BINOPS.get(type(node.op))
        symbol = _OP_SYMBOL.get(type(node.op), type(node.op).__name__)
        ext = _EXT_BINOPS.get(type(node.op))
        if cls is None and ext is None:
            self.error(f"unsupported syntax: operator '{symbol}'", node)
        a, b = self._pair(node.left, node.right, symbol, node)
        dtype = ir.expr_dtype(a)
        if ext is not None:
            bitwise = ext in ("bitand", "bitor", "bitxor", "shl", "shr")
            if bitwise and not (dtype.is_int or dtype is ir.DType.BOOL):
                self.error(f"operator '{symbol}' needs integer operands, got {_dtype_text(dtype)}", node)
            if ext in ("truediv", "pow") and not (dtype.is_int or dtype.is_float):
                self.error(f"operator '{symbol}' needs numeric operands, got {_dtype_text(dtype)}", node)
            return ir.ScalarBinary(ext, a, b, dtype, span=self.span(node))
        assert cls is not None
        if not (dtype.is_int or dtype.is_float):
            self.error(f"operator '{symbol}' needs numeric operands, got {_dtype_text(dtype)}", node)
        expr: ir.Expr = cls(a, b, dtype, span=self.span(node))
        return expr

    def _boolop(self, node: ast.BoolOp) -> ir.Expr:
        op = "and" if isinstance(node.op, ast.And) else "or"
        values = [self.settle(self.expr(v), ir.DType.INDEX) for v in node.values]
        for v, vnode in zip(values, node.values, strict=True):
            if ir.expr_dtype(v) is not ir.DType.BOOL:
                self.error(f"'{op}' needs pl.BOOL operands, got {_dtype_text(ir.expr_dtype(v))}", vnode)
        out = values[0]
        for v in values[1:]:
            out = ir.ScalarBinary(op, out, v, ir.DType.BOOL, span=self.span(node))
        return out

    def _compare(self, node: ast.Compare) -> ir.Expr:
        if len(node.ops) != 1:
            self.error("unsupported syntax: chained comparison", node)
        op = _CMPOPS.get(type(node.ops[0]))
        if op is None:
            self.error(f"unsupported syntax: comparison {type(node.ops[0]).__name__}", node)
        a, b = self._pair(node.left, node.comparators[0], op.value, node)
        dtype = ir.expr_dtype(a)
        if not (dtype.is_int or dtype is ir.DType.BOOL or dtype.is_float):
            self.error(f"comparison '{op.value}' needs numeric operands, got {_dtype_text(dtype)}", node)
        return ir.Cmp(op, a, b, span=self.span(node))

    def _scalar_call(self, node: ast.Call) -> _Typed:
        name = dotted(node.func)
        size = dtype_size(node)
        if size is not None:  # a Python int of the reference's DSL: a bare literal
            return _Bare(size, self.span(node))
        operator = self.calls.scalar_operator(node)
        if operator is not None:
            return self.expr(operator, allow_float=True)
        if name == "pl.const":
            return self._const(node)
        if name == "pl.cast":
            return self._cast(node)
        if name in ("pl.min", "pl.max", "abs"):
            return self._minmax(node, name)
        if self._dims and name in ir.LAUNCH_SYMBOLS and not node.args and not node.keywords:
            return self.mp.launch_symbol(name, node)  # elsewhere the call is hoisted, as FlattenCallExpr does
        if self.calls.is_call(node) and not self._dims:
            var = self.calls.hoist(node)
            if not isinstance(var.type, ir.ScalarType):
                self.error(f"{dotted(node.func)}(...) is not a scalar; assign it to a name first", node)
            return var
        if name in NON_OPS:
            self.error(f"{name} is not an expression", node)
        self.unknown_call(node.func)

    def _minmax(self, node: ast.Call, name: str) -> ir.Expr:
        if name == "abs":
            if len(node.args) != 1 or node.keywords:
                self.error(f"abs expects one value, got {self.mp.source(node)}", node)
            a = self.settle(self.expr(node.args[0], allow_float=True), ir.DType.INDEX)
            return ir.ScalarUnary("abs", a, ir.expr_dtype(a), span=self.span(node))
        if len(node.args) != 2 or node.keywords:
            self.error(f"{name} expects (a, b), got {self.mp.source(node)}", node)
        a, b = self._pair(node.args[0], node.args[1], name, node)
        return ir.ScalarBinary(name[3:], a, b, ir.expr_dtype(a), span=self.span(node))

    def _const(self, node: ast.Call) -> ir.Expr:
        if len(node.args) != 2 or node.keywords:
            self.error(f"pl.const expects (value, dtype), got {self.mp.source(node)}", node)
        dtype = self.dtype(node.args[1])
        value_node = node.args[0]
        value = _is_int_literal(value_node)
        if isinstance(value_node, ast.Constant) and type(value_node.value) is bool and dtype is ir.DType.BOOL:
            return ir.ConstInt(int(value_node.value), dtype, span=self.span(node))
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
        """`pl.cast(x, DTYPE)` of a scalar: any scalar dtype to any other (the reference's
        casts include int <-> float and signed <-> unsigned; slotsat's index engine reasons
        about integer casts of one signedness only, `ir.is_index_expr`). The arguments bind
        as the reference's `pl.cast(input, target_type, mode="round")` binds them
        (`pl.cast(i, target_type=pl.INDEX)`); a scalar takes the default mode only."""
        bound = _bind(node, ("input", "target_type", "mode"))
        if bound is None or "input" not in bound or "target_type" not in bound:
            self.error(f"pl.cast expects (value, dtype), got {self.mp.source(node)}", node)
        source = bound["input"]
        var = self.lookup_optional(source.id) if isinstance(source, ast.Name) else None
        if isinstance(source, ast.Name) and var is not None and isinstance(var.type, ir.TensorType):
            # the reference's unified cast on a tensor is tensor.cast, lowered before the hand-off point
            self.error(ABOVE_TILE.format(what=f"'pl.cast' on tensor '{source.id}' (pl.tensor.cast)"), node)
        mode = bound.get("mode")
        if mode is not None and not (isinstance(mode, ast.Constant) and mode.value in ("round", 2)):
            # the reference's scalar cast takes the default rounding only (it raises for any other)
            self.error(f"pl.cast of a scalar rounds as mode='round' only, got mode={self.mp.source(mode)}",
                       mode)
        dtype = self.dtype(bound["target_type"])
        value = self.settle(self.expr(bound["input"], allow_float=True), ir.DType.INDEX)
        src = ir.expr_dtype(value)
        if src is ir.DType.TASK_ID or dtype is ir.DType.TASK_ID:
            self.error(f"pl.cast does not convert task ids ({_dtype_text(src)} to {_dtype_text(dtype)})",
                       node)
        return ir.Cast(value, dtype, span=self.span(node))


def _bind(node: ast.Call, params: tuple[str, ...]) -> dict[str, ast.expr] | None:
    """The arguments of `node` by parameter name, as Python binds them to `params`, or None
    when they do not bind (too many, an unknown or repeated keyword, `**kwargs`)."""
    if len(node.args) > len(params):
        return None
    bound = dict(zip(params, node.args, strict=False))
    for kw in node.keywords:
        if kw.arg is None or kw.arg not in params or kw.arg in bound:
            return None
        bound[kw.arg] = kw.value
    return bound


def _has_slice(node: ast.expr) -> bool:
    if isinstance(node, ast.Slice):
        return True
    return isinstance(node, ast.Tuple) and any(isinstance(e, ast.Slice) for e in node.elts)


def _call_text(call: ir.Call) -> str:
    if call.op.startswith("self."):
        return call.op
    if call.op in ops.SPECIAL_CALLS:
        return f"pl.{call.op}"
    return spelled(call.op)


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



def _expr_kind(node: ast.AST) -> str:
    kinds = {ast.Subscript: "subscript", ast.Attribute: "attribute", ast.List: "list literal",
             ast.Tuple: "tuple", ast.Dict: "dict literal", ast.Lambda: "lambda",
             ast.IfExp: "conditional expression",
             ast.BoolOp: "boolean operator", ast.JoinedStr: "f-string", ast.Starred: "starred expression"}
    return kinds.get(type(node), type(node).__name__)


def _expr_type(e: ir.Expr) -> ir.Type:
    if isinstance(e, ir.Var):
        return e.type
    if isinstance(e, ir.TupleGetItem):
        return e.type
    return ir.ScalarType(ir.expr_dtype(e))


def _same_dims(a: tuple[int | ir.Expr, ...], b: tuple[int | ir.Expr, ...]) -> bool:
    """Equal ranks and equal static entries; a dynamic entry agrees with anything (the
    reference prints a symbolic dimension by name, and one name may stand for a parameter in
    one function and an undeclared symbol in another)."""
    return len(a) == len(b) and all(
        x == y or not isinstance(x, int) or not isinstance(y, int) for x, y in zip(a, b, strict=True))


def _same_kind_shape_dtype(a: ir.Type, b: ir.Type) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, ir.TensorType):
        assert isinstance(b, ir.TensorType)
        return _same_dims(a.shape, b.shape) and a.dtype == b.dtype
    if isinstance(a, ir.TileType):
        assert isinstance(b, ir.TileType)
        return a.shape == b.shape and a.dtype == b.dtype
    if isinstance(a, ir.ScalarType):
        assert isinstance(b, ir.ScalarType)
        return a.dtype == b.dtype
    return True


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
        ref = ops.reference(spec.name)
        accepted = {*spec.keywords, *(ref.keywords if ref is not None else ())}
        positional = list(node.args)
        keywords: dict[str, ast.expr] = {}
        attrs: list[tuple[str, ir.AttrValue]] = []
        for kw in node.keywords:
            if kw.arg == "attrs":
                attrs = self.fp.call_attrs(kw.value)
            elif kw.arg is None or kw.arg not in accepted or kw.arg in keywords:
                self.expects()
            else:
                keywords[kw.arg] = kw.value
        required = [p for p in spec.params if p not in spec.optional]
        names = [*required, *(o for o in spec.optional), *spec.ref_extra]
        for opt in spec.optional:  # an optional parameter may be given as a keyword instead
            if opt in keywords and opt in spec.keywords:
                if len(positional) != names.index(opt):
                    self.expects()
                positional.append(keywords.pop(opt))
        if spec.rule is ops.TypeRule.CAST:
            if ("target_type" in keywords) == (len(positional) == 2):
                self.expects()
        elif not len(required) <= len(positional) <= len(names):
            self.expects()
        if len(positional) > len(names):
            self.expects()
        args = [self.arg(p, a) for p, a in zip(names, positional, strict=False)]
        space = None if "target_memory" not in keywords else self.fp.space(keywords["target_memory"])
        others = [(k, self.fp.calls.arg(v)) for k, v in keywords.items() if k != "target_memory"]
        return self.finish(args, space, attrs, others)

    def arg(self, param: str, node: ast.expr) -> ir.CallArg:
        fp = self.fp
        if param in _TENSOR_PARAMS or param in _TILE_PARAMS:
            want = ir.TensorType if param in _TENSOR_PARAMS else ir.TileType
            if isinstance(node, ast.Call) and fp.calls.is_call(node):
                var = fp.calls.hoist(node)
            elif not isinstance(node, ast.Name):
                fp.error(f"{self.name} argument '{param}' must be the name of a "
                         f"{'tensor' if want is ir.TensorType else 'tile'}, got {fp.mp.source(node)}", node)
            else:
                var = fp.lookup(node.id, node)
            if not isinstance(var.type, want):
                fp.error(f"{self.name} argument '{param}' must be a "
                         f"{'tensor' if want is ir.TensorType else 'tile'}, got "
                         f"'{fp.mp.source(node)}' of type {type_text(var.type)}", node)
            return var
        if param in _LIST_PARAMS:
            if param == "shape":
                # The rank-N window of the reference's FlattenTileNdTo2D form: read as such only
                # under the 2-D tile annotation the reference prints for it (without one, a rank-N
                # shape is the tile of an earlier stage, one located error).
                window = self.spec.rule is ops.TypeRule.LOAD and isinstance(self.annot, ir.TileType)
                dims = fp.types.tile_shape(node, window=window)
                return ir.ExprList(tuple(ir.ConstInt(d, ir.DType.INDEX) for d in dims), span=fp.span(node))
            return ir.ExprList(fp.expr_list(node), span=fp.span(node))
        if param == "dtype":
            return ir.DTypeArg(fp.dtype(node))
        if isinstance(node, ast.Constant) and isinstance(node.value, bool):
            return ir.ConstInt(int(node.value), ir.DType.BOOL, span=fp.span(node))
        return fp.index_expr(node, allow_float=True)

    def finish(self, args: list[ir.CallArg], space: ir.MemorySpace | None,
               attrs: list[tuple[str, ir.AttrValue]],
               others: list[tuple[str, ir.CallArg]] | None = None) -> tuple[ir.Call, ir.Type]:
        rule = self.spec.rule
        kwargs: tuple[tuple[str, ir.CallArg], ...] = ()
        if rule is ops.TypeRule.LOAD:
            args, space = self._load(args, space)
            kwargs = (("target_memory", ir.SpaceArg(space)),)
        elif "target_memory" in self.spec.keywords:
            if space is None:
                self.expects()
            kwargs = (("target_memory", ir.SpaceArg(space)),)
        kwargs = (*kwargs, *(others or ()))
        call = ir.Call(self.spec.name, tuple(args), kwargs, tuple(attrs), span=self.fp.span(self.node))
        if "drop_dims" in self.spec.ref_extra[:max(0, len(args) - len(self.spec.params))] and len(args) >= 5:
            if self.annot is None:
                self.fp.error(f"annotate the result of {self.name} with drop_dims: slotsat does not derive "
                              "its type", self.node)
            return call, self.annot
        typ = _result_type(self, args, space, call)
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


def _load_type(oc: _OpCall, args: list[ir.CallArg], space: ir.MemorySpace | None, clamp: bool) -> ir.Type:
    tensor = args[0]
    assert isinstance(tensor, ir.Var)
    assert isinstance(tensor.type, ir.TensorType)
    valid = args[3]
    offsets = args[1]
    assert isinstance(valid, ir.ExprList)
    assert isinstance(offsets, ir.ExprList)
    window = _shape_of(args[2])
    items = valid.items
    if clamp or (tensor.type.view is not None and tensor.type.view.valid_shape):
        # a tensor that declares a valid shape, or a clamped read: the reference's window-read rule
        annot = oc.annot.valid_shape if isinstance(oc.annot, ir.TileType) and len(window) <= 2 else None
        items, why = window_reads.load_valid(
            tensor.type, window_reads.Window(offsets.items, window, valid.items), annot, clamp=clamp)
        if why is not None:
            oc.fp.error(why, oc.node)
    shape, valid_shape = flattened_window(window, items)
    return ir.TileType(shape, tensor.type.dtype, space, None, _valid_or_none(shape, valid_shape))


def _store_type(oc: _OpCall, args: list[ir.CallArg]) -> ir.Type:
    """The stored-into tensor's type. A tile of lower rank than the tensor needs the window
    of the reference's rank-N form (the 4th argument, `shapes`)."""
    tensor = args[2]
    assert isinstance(tensor, ir.Var)
    assert isinstance(tensor.type, ir.TensorType)
    offsets = args[1]
    assert isinstance(offsets, ir.ExprList)
    rank = len(tensor.type.shape)
    if len(offsets.items) != rank:
        oc.fp.error(f"{oc.name} has {len(offsets.items)} offsets but the tensor has rank {rank}", oc.node)
    shapes = args[3] if len(args) > 3 else None
    if isinstance(shapes, ir.ExprList):
        if len(shapes.items) != rank:
            oc.fp.error(f"{oc.name} has {len(shapes.items)} shapes but the tensor has rank {rank}",
                        oc.node)
    elif len(_tile_arg(args, 0).shape) != rank:
        oc.fp.error(f"{oc.name} stores a tile of rank {len(_tile_arg(args, 0).shape)} into a tensor of "
                    f"rank {rank}; the ranks must agree", oc.node)
    why = unstorable(_tile_arg(args, 0), tensor.type.dtype)
    if why is not None:
        oc.fp.error(f"{oc.name} stores a {type_text(_tile_arg(args, 0))} into a pl.{tensor.type.dtype.value} "
                    f"tensor: {why}", oc.node)
    return tensor.type


_ACC_STORE_DTYPES = frozenset({ir.DType.INT32, ir.DType.FP32, ir.DType.FP16, ir.DType.BF16})
"""What an Acc tile stores into without quantization (PTO-ISA's TSTORE constraints)."""


def unstorable(tile: ir.TileType, dtype: ir.DType) -> str | None:
    """Why the hardware's store cannot write `tile` into a tensor of `dtype` (PTO-ISA's TSTORE
    constraints), or None. A Vec or Mat tile is copied bit for bit, so its element size must be
    the tensor's; an Acc tile converts on the way out, into 32-bit integers or a float of at
    least 16 bits."""
    if tile.memory_space is ir.MemorySpace.Acc:
        if dtype in _ACC_STORE_DTYPES:
            return None
        return "an Acc tile stores into INT32, FP32, FP16 or BF16 only"
    if tile.memory_space in (ir.MemorySpace.Vec, ir.MemorySpace.Mat) and tile.dtype.bits != dtype.bits:
        return (f"a {tile.memory_space.value} tile's store copies elements bit for bit, so their sizes "
                f"must agree ({tile.dtype.bits} and {dtype.bits} bits); cast the tile first (pl.cast)")
    return None


def _result_type(oc: _OpCall, args: list[ir.CallArg], space: ir.MemorySpace | None, call: ir.Call) -> ir.Type:
    rule = oc.spec.rule
    if rule is ops.TypeRule.LOAD:
        return _load_type(oc, args, space, ops.load_clamped(call))
    if rule is ops.TypeRule.STORE:
        return _store_type(oc, args)
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
        sliced: tuple[ir.Expr, ...] | None = None
        given = args[3] if rule is ops.TypeRule.SLICE and len(args) > 3 else None
        if isinstance(given, ir.ExprList) and given.items:
            sliced = _valid_or_none(shape, given.items)
        return ir.TileType(shape, t0.dtype, t0.memory_space, None, sliced)
    if rule is ops.TypeRule.ROW_REDUCE:
        rows = t0.shape[0] if len(t0.shape) == 2 else 1
        reduced = None if t0.valid_shape is None or len(t0.valid_shape) != 2 else (
            t0.valid_shape[0], ir.ConstInt(1, ir.DType.INDEX))
        return ir.TileType((rows, 1), t0.dtype, t0.memory_space, None, _valid_or_none((rows, 1), reduced))
    if rule is ops.TypeRule.CAST:
        dtype = ops.cast_dtype(call)
        assert dtype is not None
        return ir.TileType(t0.shape, dtype, t0.memory_space, None, t0.valid_shape)
    if oc.spec.params[:2] == ("lhs", "rhs"):
        t1 = _tile_arg(args, 1)
        if t1.shape != t0.shape or t1.dtype != t0.dtype:
            oc.fp.error(f"operands of {oc.name} have types {type_text(t0)} and {type_text(t1)}; they must "
                        "agree in shape and dtype", oc.node)
    return ir.TileType(t0.shape, t0.dtype, t0.memory_space, None, t0.valid_shape)


def flattened_window(window: tuple[int, ...], valid: tuple[ir.Expr, ...]
                     ) -> tuple[tuple[int, ...], tuple[ir.Expr, ...]]:
    """The tile a `tile.load` of a rank-N window produces and its valid shape: a window of rank
    1 or 2 is the tile's shape; a longer one is merged to 2-D as the reference's
    FlattenTileNdTo2D does, all leading entries multiplied into the rows (its valid shape: the
    product of the leading literal entries times the product of the others, in order; a
    literal 1 is dropped)."""
    if len(window) <= 2:
        return window, valid
    shape = (_count(window[:-1]), window[-1])
    literal = 1
    dynamic: ir.Expr | None = None
    for v in valid[:-1]:
        if isinstance(v, ir.ConstInt):
            literal *= v.value
        else:
            dynamic = v if dynamic is None else ir.Mul(dynamic, v, ir.DType.INDEX)
    rows: ir.Expr
    if dynamic is None:
        rows = ir.ConstInt(literal, ir.DType.INDEX)
    elif literal == 1:
        rows = dynamic
    else:
        rows = ir.Mul(ir.ConstInt(literal, ir.DType.INDEX), dynamic, ir.DType.INDEX)
    return shape, (rows, valid[-1])


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
    # the reference's DeduceMatmulProductInfo (and slotsat's interpreter): FP32 for float
    # operands, INT32 for any other (INT8, INT4, ...)
    dtype = ir.DType.FP32 if lhs.dtype.is_float else ir.DType.INT32
    return ir.TileType((lm, rn), dtype, ir.MemorySpace.Acc)

