"""MLIR text in and out for `slotsat promote` (`50-persistent-promotion.md` §12, §13).

xdsl parses, verifies and prints the MLIR; this module adds what slotsat needs on top:

- `make_context()`: a context that allows unregistered dialects, registers every dialect
  xdsl ships (loaded lazily) and loads the project's `pto.section.simt` op. Other modules
  extend it by loading more ops or dialects into the returned context.
- `SectionSimtOp`: `pto.section.simt<<<X, Y, Z>>> { ... }`, three `i32` launch dimensions,
  one block, no terminator, an optional trailing attribute dictionary (§13).
- source positions: xdsl records none, so the parser is hooked at the operation entry and
  remembers, per operation, where its name starts (MLIR's own op location); see
  `Positions`.
- `split_chunks()`: `--split-input-file` at `// -----` lines, line numbers kept relative to
  the whole file.
- `MlirInputError`: every parse or verify failure as one line with its position.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from io import StringIO
from typing import ClassVar, cast

from xdsl.context import Context
from xdsl.dialects import get_all_dialects
from xdsl.dialects.arith import ConstantOp
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, ModuleOp, UnregisteredOp, i32
from xdsl.dialects.scf import ForOp
from xdsl.ir import Attribute, Block, Operation, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    base,
    irdl_op_definition,
    operand_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.parser.generic_parser import ParserState
from xdsl.printer import Printer
from xdsl.traits import NoTerminator, Pure
from xdsl.utils.exceptions import DiagnosticException, ParseError
from xdsl.utils.lexer import Input
from xdsl.utils.lexer import Span as SourceSpan
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

from slotsat.core.errors import Span


@irdl_op_definition
class SectionSimtOp(IRDLOperation):
    """`pto.section.simt<<<X, Y, Z>>> { ... }`: an inline SIMT section (one block, no terminator)."""

    name = "pto.section.simt"

    dimX = prop_def(IntegerAttr[IntegerType])  # ptoas's property names
    dimY = prop_def(IntegerAttr[IntegerType])
    dimZ = prop_def(IntegerAttr[IntegerType])
    body = region_def("single_block")

    traits = traits_def(NoTerminator())

    DIMS: ClassVar[tuple[str, str, str]] = ("dimX", "dimY", "dimZ")

    @classmethod
    def parse(cls, parser: Parser) -> SectionSimtOp:
        dims: list[int] = []
        for _ in range(3):
            parser.parse_punctuation("<", " in 'pto.section.simt<<<X, Y, Z>>>'")
        for index in range(3):
            if index:
                parser.parse_punctuation(",", " between launch dimensions")
            dims.append(parser.parse_integer(allow_boolean=False, allow_negative=False))
        for _ in range(3):
            parser.parse_punctuation(">", " in 'pto.section.simt<<<X, Y, Z>>>'")
        region = parser.parse_region()
        if not region.blocks:
            region.add_block(Block())
        attributes = parser.parse_optional_attr_dict()
        properties: dict[str, Attribute] = {
            name: IntegerAttr(value, i32) for name, value in zip(cls.DIMS, dims, strict=True)
        }
        return cls.create(properties=properties, attributes=attributes, regions=[region])

    def print(self, printer: Printer) -> None:
        dims = ", ".join(str(cast(IntegerAttr[IntegerType], self.properties[n]).value.data)
                         for n in self.DIMS)
        printer.print_string(f"<<<{dims}>>> ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False,
                             print_block_terminators=False)
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class IndexCastUIOp(IRDLOperation):
    """`arith.index_castui`, which xdsl's arith dialect lacks (same shape as `index_cast`)."""

    name = "arith.index_castui"

    input = operand_def(base(IntegerType) | base(IndexType))
    result = result_def(base(IntegerType) | base(IndexType))

    traits = traits_def(Pure())

    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"


def make_context() -> Context:
    """The context slotsat parses MLIR in: unregistered constructs allowed, every xdsl dialect
    registered (loaded on first use), `pto.section.simt` loaded. Callers may load more."""
    ctx = Context(allow_unregistered=True)
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    ctx.load_op(SectionSimtOp)
    ctx.load_op(IndexCastUIOp)
    return ctx


class MlirInputError(Exception):
    """MLIR text that could not be read: one message at a 1-based line and column."""

    def __init__(self, message: str, span: Span) -> None:
        super().__init__(message)
        self.message = message
        self.span = span


@dataclass
class Positions:
    """Source position of each operation (where its name starts), as `Span`s in the file."""

    by_op: dict[Operation, Span] = field(default_factory=dict[Operation, Span])

    def of(self, op: Operation) -> Span:
        return self.by_op.get(op, Span(1, 1))

    def copy_onto(self, original: Operation, clone: Operation) -> None:
        """Give every op of `clone` the position of its counterpart in `original`."""
        for old, new in zip(original.walk(), clone.walk(), strict=False):
            if old in self.by_op:
                self.by_op[new] = self.by_op[old]


@dataclass(frozen=True)
class Chunk:
    """One `--split-input-file` chunk: its text and the 0-based line where it starts."""

    text: str
    first_line: int


_SPLIT_MARKER = re.compile(r"^\s*// -----")


def split_chunks(text: str, split: bool) -> list[Chunk]:
    if not split:
        return [Chunk(text, 0)]
    chunks: list[Chunk] = []
    current: list[str] = []
    start = 0
    for number, line in enumerate(text.splitlines(keepends=True)):
        if _SPLIT_MARKER.match(line):
            chunks.append(Chunk("".join(current), start))
            current = []
            start = number + 1
            continue
        current.append(line)
    chunks.append(Chunk("".join(current), start))
    return chunks


def _line_col(text: str, offset: int, first_line: int) -> Span:
    offset = max(0, min(offset, len(text)))
    line = text.count("\n", 0, offset) + 1 + first_line
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return Span(line, col)


MAX_INTEGER_WIDTH = 16777215
_UNDEFINED = re.compile(r"values used but not defined: \[(%[^\],]+)")
_NO_CUSTOM_FORMAT = re.compile(r"Operation (\S+) does not have a custom format")


def _no_custom_syntax(name: str) -> str:
    return f"operation '{name}' has no custom syntax slotsat knows; write it in generic form"


class _LinearLexer(MLIRLexer):
    """xdsl's lexer with its string-literal pattern made possessive.

    xdsl's pattern nests `+` inside `*`, so an unterminated string literal backtracks
    exponentially in the length of its line (a truncated file hangs). The two alternatives
    start with disjoint characters and neither can consume the closing quote, so the
    possessive form matches exactly the same strings, in linear time."""

    _unescaped_characters_regex = re.compile(r'"(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"')


class _PositionedParser(Parser):
    """xdsl's parser, remembering where each operation's name starts."""

    def __init__(self, ctx: Context, text: str, name: str) -> None:
        super().__init__(ctx, "", name)
        self._parser_state = ParserState(_LinearLexer(Input(text, name)))
        self.op_offsets: dict[Operation, int] = {}
        self._pending: list[int] = []

    def _parse_op_result_list(self) -> list[tuple[object, int]]:  # type: ignore[override]
        results = cast(list[tuple[object, int]], super()._parse_op_result_list())
        token = self._current_token
        self._pending.append(token.span.start)
        if token.kind == MLIRTokenKind.BARE_IDENT:
            op_type = self.ctx.get_optional_op(token.text,
                                               dialect_stack=self._parser_state.dialect_stack)
            if op_type is not None and issubclass(op_type, UnregisteredOp):
                self.raise_error(_no_custom_syntax(token.text), token.span)
        return results

    def _parse_optional_integer_or_float_type(self) -> TypeAttribute | None:
        token = self._current_token
        if token.kind == MLIRTokenKind.BARE_IDENT:
            match = self._builtin_integer_type_regex.match(token.text)
            if match is not None and int(match.group(1)) > MAX_INTEGER_WIDTH:
                # MLIR's limit; xdsl would build the bounds of an astronomically wide type.
                self.raise_error(f"integer bitwidth is limited to {MAX_INTEGER_WIDTH} bits", token.span)
        return super()._parse_optional_integer_or_float_type()

    def parse_operation(self) -> Operation:
        depth = len(self._pending)
        try:
            op = super().parse_operation()
        except ParseError as err:
            # A registered op without a custom format: report it like an unknown one, at its name.
            match = _NO_CUSTOM_FORMAT.match(err.msg)
            if match is None or len(self._pending) <= depth:
                raise
            start = self._pending[depth]
            at = SourceSpan(start, start, self.lexer.input)
            raise ParseError(at, _no_custom_syntax(match[1])) from None
        if len(self._pending) > depth:
            self.op_offsets[op] = self._pending[depth]
            del self._pending[depth:]
        return op


def _first_line(message: str) -> str:
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    return lines[0] if lines else "invalid MLIR"


def _constant_int(op: Operation | None) -> int | None:
    if isinstance(op, ConstantOp) and isinstance(op.value, IntegerAttr):
        return cast(IntegerAttr[IntegerType], op.value).value.data
    return None


def _verify(module: ModuleOp, where: dict[Operation, Span]) -> None:
    """Verify op by op, innermost last, so a failure names the op that failed."""
    for op in module.walk():
        span = where.get(op, Span(1, 1))
        try:
            op.verify(verify_nested_ops=False)
        except Exception as err:  # xdsl verifiers index into malformed IR; still bad input
            raise MlirInputError(f"'{op.name}' op {_first_line(str(err))}", span) from None
        if isinstance(op, ForOp):
            step = _constant_int(op.step.owner if isinstance(op.step.owner, Operation) else None)
            if step is not None and step <= 0:
                raise MlirInputError("constant step operand must be positive", span)


_GEP_INDICES = re.compile(r"llvm\.getelementptr\s+(?:inbounds\s+)?%[\w$.-]+(?:#\d+)?\s*\[([^\]]*)\]")
_INT32_MIN = -(1 << 31)
_INT32_MAX = (1 << 31) - 1


def _check_gep_constants(text: str, offsets: dict[Operation, int], first_line: int) -> None:
    """A constant `llvm.getelementptr` index is an `i32`, and `INT32_MIN` is the marker of a
    dynamic index (in MLIR and in xdsl). xdsl folds `[2**31, 2**32)` into negative `i32`
    values, so `%p[2147483648]` would become the marker (and crash xdsl's printer) and
    `%p[2147483649]` a silently different index: both are reported here, at the number."""
    for op, offset in offsets.items():
        if op.name != "llvm.getelementptr":
            continue
        match = _GEP_INDICES.match(text, offset)
        if match is None:
            continue
        pos = match.start(1)
        for item in match[1].split(","):
            literal = item.strip()
            if re.fullmatch(r"[-+]?\d+", literal) and not _INT32_MIN < int(literal) <= _INT32_MAX:
                where = _line_col(text, pos + item.index(literal), first_line)
                raise MlirInputError(
                    f"constant GEP index {literal} does not fit in i32 without the dynamic-index marker "
                    f"(allowed: {_INT32_MIN + 1} to {_INT32_MAX}); use an SSA index", where)
            pos += len(item) + 1


def parse_chunk(ctx: Context, chunk: Chunk, file: str) -> tuple[ModuleOp, Positions]:
    """Parse and verify one chunk; raise `MlirInputError` on any failure."""
    if not re.sub(r"//[^\n]*", "", chunk.text).strip():
        raise MlirInputError("expected a module, found no operation",
                             Span(chunk.first_line + 1, 1))
    parser: _PositionedParser | None = None
    try:
        parser = _PositionedParser(ctx, chunk.text, file)
        module = parser.parse_module()
    except ParseError as err:
        offset = err.span.start
        if (undefined := _UNDEFINED.match(err.msg)) is not None:
            # xdsl reports undefined values at the end of the input; MLIR at the first use.
            use = re.search(re.escape(undefined[1]) + r"(?![\w$.-])", chunk.text)
            offset = use.start() if use is not None else offset
        span = _line_col(chunk.text, offset, chunk.first_line)
        raise MlirInputError(_first_line(err.msg), span) from None
    except RecursionError:
        raise MlirInputError("the input is nested too deeply", Span(chunk.first_line + 1, 1)) from None
    except (DiagnosticException, ValueError, KeyError, IndexError, AssertionError, TypeError,
            OverflowError, MemoryError) as err:
        # xdsl raises a few plain exceptions on malformed constructs (e.g. attribute
        # constructors, integers of thousands of digits); they are still bad input, reported
        # at the last token read.
        offset = parser.pos if parser is not None and isinstance(parser.pos, int) else 0
        span = _line_col(chunk.text, offset, chunk.first_line)
        raise MlirInputError(_first_line(str(err) or type(err).__name__), span) from None
    _check_gep_constants(chunk.text, parser.op_offsets, chunk.first_line)
    positions = Positions({op: _line_col(chunk.text, offset, chunk.first_line)
                           for op, offset in parser.op_offsets.items()})
    _verify(module, positions.by_op)
    return module, positions


def print_module(module: Operation) -> str:
    stream = StringIO()
    Printer(stream=stream).print_op(module)
    return stream.getvalue() + "\n"


def sorted_attributes(op: Operation) -> None:
    """Rebuild `op`'s discardable attributes in sorted key order, as MLIR prints them."""
    op.attributes = dict(sorted(op.attributes.items()))


@dataclass(frozen=True)
class Diagnostic:
    """One diagnostic line at an operation's source position; notes follow their error."""

    severity: str
    """`error`, `note`, `remark` or `warning`."""
    message: str
    span: Span
    notes: tuple[Diagnostic, ...] = ()

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def render(self, file: str) -> list[str]:
        text = " ".join(self.message.split("\n"))
        lines = [f"{file}:{max(self.span.line, 1)}:{max(self.span.col, 1)}: {self.severity}: {text}"]
        for note in self.notes:
            lines.extend(note.render(file))
        return lines
