"""Parsing a large kernel file a group of methods (or statements) at a time, into the tree
`ast.parse` builds.

`ast.parse` holds two copies of a file's syntax tree at its peak: CPython's own (C) tree
and the Python objects made from it. For a 10,000-loop file (5.5 MB) together they are
about 1 GB, against 0.56 GB for the Python tree alone, and the big C tree is also slower
to walk (measured: 3.5 s against 2.7 s for that file). A kernel file is almost all
methods of `@pl.program` classes, so `chunked_parse` parses the methods of a class in
groups of about `GROUP_LINES` lines and the rest of the file (the skeleton) on its own,
and assembles the tree the whole file would give: the same nodes, with the same
positions. A file that is one large method (its methods make one group) is cut between
the statements of the method bodies instead.

**The cut.** Lines are scanned, not tokenized. Between methods, a cut goes before a line,
indented as the first line of a column-0 `class` statement's body, that starts a `def`
(or its first decorator); a group is every line from one cut to the next one used, or to
the next line at column 0. Inside a method, a cut goes before a compound statement
(`for`, `if`, `while`, `with`) indented as the method body's first line after its header;
a group ends at the next cut used or where the method ends (the next line indented as its
`def` or less). The skeleton is the file with each group's lines blanked, its first line
replaced by a `pass` at the cut's indentation (the placeholder). Every piece keeps its
line numbers (a group is parsed after as many blank lines, under a `class _:` line, and a
`def _(self):` line for a method's statements, standing for its headers) and its columns
(its lines are not changed).

**Why the result is the whole file's tree.** The scan can be fooled (a line inside a
string, a decorator or header that spans lines, tabs), but the parses check it: a cut
inside a string, a bracket or a continuation line leaves the group before it
unterminated, so its parse fails; and every placeholder must come out of the skeleton as
a `pass` statement directly in the body of a class at column 0 (or of a method directly
in one, indented as the group's `def`). Given that, at the first line of every group
CPython's tokenizer is in the same state in the whole file as in the group's own text (a
new statement, indented one level inside its class or method), by induction over the
groups in file order, so the group's statements are the ones the whole file has there;
at its end no bracket, string or continuation is open (the group's parse reached its
end), and the skeleton resumes after it as the whole file does. Any failed check, any
syntax error and any text this does not handle (tabs, form feeds or carriage returns, a
`__future__` import: `barry_as_FLUFL` changes the grammar) returns None, and the caller
parses the whole file, which also reports any error with CPython's own message.
"""
from __future__ import annotations

import ast
import warnings
from collections.abc import Iterator
from dataclasses import dataclass

MIN_LINES = 4_000
"""Files shorter than this are parsed whole: their trees are small."""

GROUP_LINES = 2_000
"""About how many lines of methods one `ast.parse` reads (at least one method each)."""


@dataclass(frozen=True, slots=True)
class _Group:
    start: int
    """0-based index of the group's first line (its cut)."""
    end: int
    """0-based index one past its last line."""
    indent: int
    """The columns of its cut line: the indentation of the class body (a group of methods) or
    of the method body (a group of a method's statements)."""
    outer: int | None = None
    """For a group of a method's statements, the indentation of its `def`."""


def chunked_parse(text: str, filename: str, *, min_lines: int = MIN_LINES,
                  group_lines: int = GROUP_LINES) -> ast.Module | None:
    """The tree `ast.parse(text, filename)` returns, parsed in groups of methods (or of a
    method's statements); None when the file is short, not of that shape, or any check or
    parse fails (see the module docstring): the caller then parses it whole."""
    if text.count("\n") < min_lines or any(c in text for c in ("\t", "\f", "\r")):
        return None
    if "__future__" in text:
        return None
    lines = text.split("\n")
    groups = _groups(lines, group_lines)
    if len(groups) < 2:  # one group is the whole file's parse and more: cut inside methods
        groups = _statement_groups(lines, group_lines)
    if len(groups) < 2:
        return None
    skeleton = list(lines)
    for g in groups:
        skeleton[g.start : g.end] = [" " * g.indent + "pass"] + [""] * (g.end - g.start - 1)
    try:
        with warnings.catch_warnings():  # SyntaxWarnings come from the whole file's parse
            warnings.simplefilter("ignore")
            tree = ast.parse("\n".join(skeleton), filename)
            places = _placeholders(tree, groups)
            if places is None:
                return None
            bodies = [_group_body(lines, g, filename) for g in groups]
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if any(body is None for body in bodies):
        return None
    for (holder, _, line), body in zip(places, bodies, strict=True):
        assert body is not None
        k = next(i for i, s in enumerate(holder.body) if isinstance(s, ast.Pass) and s.lineno == line)
        holder.body[k : k + 1] = body
    # a definition ends where its last statement ends: methods first, then their classes
    for holder in [*(h for h, cls, _ in places if h is not cls), *(cls for _, cls, _ in places)]:
        last = holder.body[-1]
        holder.end_lineno, holder.end_col_offset = last.end_lineno, last.end_col_offset
    return tree


def _groups(lines: list[str], group_lines: int) -> list[_Group]:
    """The groups of method lines the scan finds (see the module docstring)."""
    groups: list[_Group] = []
    in_class = False
    body_indent: int | None = None
    decorated = False  # a decorator at the body's indentation is waiting for its `def`
    start: int | None = None  # the current group's cut

    def close(end: int) -> None:
        nonlocal start
        if start is not None and body_indent is not None:
            groups.append(_Group(start, end, body_indent))
        start = None

    for i, stripped, indent in _significant(lines, 0, len(lines)):
        if indent == 0:
            close(i)
            in_class = stripped.startswith("class ")
            body_indent = None
            decorated = False
            continue
        if not in_class:
            continue
        if body_indent is None:
            body_indent = indent
        if indent != body_indent:
            continue
        is_decorator = stripped.startswith("@")
        is_def = stripped.startswith(("def ", "async def "))
        if (is_decorator or is_def) and not decorated:
            if start is None:
                start = i
            elif i - start >= group_lines:
                close(i)
                start = i
        if is_decorator:
            decorated = True
        elif is_def:
            decorated = False
    close(len(lines))
    return groups


_COMPOUND = ("for ", "while ", "if ", "with ", "async for ", "async with ")
"""The statements a method's body is cut before: compound statements, whose own lines are
indented deeper (a cut never comes before `else`, `elif`, `except` or `finally`)."""


def _statement_groups(lines: list[str], group_lines: int) -> list[_Group]:
    """The groups of a method's statements the scan finds: for a file of one large method
    (the methods together are one group), cuts at its body's indentation before compound
    statements."""
    groups: list[_Group] = []
    for def_indent, first, end in _method_bodies(lines):
        groups += _cut_body(lines, first, end, def_indent, group_lines)
    return groups


def _method_bodies(lines: list[str]) -> Iterator[tuple[int, int, int]]:
    """(indentation of the `def`, first line after its header, end) of each method of a
    column-0 class. A header may span lines; it ends at the first line whose brackets
    balance the header's and that ends with `:` (counted naively: a miscount only makes a
    parse fail or a placeholder go missing, and the file is then parsed whole). A method
    ends at the next line indented as its `def` or less."""
    in_class = False
    class_indent: int | None = None
    depth = 0  # open brackets of the header being read
    method: tuple[int, int] | None = None  # (def indentation, first body line) of the open method
    header = False
    for i, stripped, indent in _significant(lines, 0, len(lines)):
        if header:
            depth += _brackets(stripped)
            if depth <= 0:
                header = False
                method = (method[0], i + 1) if method is not None and _ends_block(stripped) else None
            continue
        if indent == 0 or (in_class and class_indent is not None and indent <= class_indent):
            if method is not None:
                yield method[0], method[1], i
                method = None
            if indent == 0:
                in_class, class_indent = stripped.startswith("class "), None
                continue
        if not in_class:
            continue
        if class_indent is None:
            class_indent = indent
        if indent == class_indent and stripped.startswith(("def ", "async def ")):
            depth = _brackets(stripped)
            method = (indent, i + 1)
            header = depth > 0
            if not header and not _ends_block(stripped):
                method = None  # a one-line method
    if method is not None and not header:  # (a header still open at the end is miscounted)
        yield method[0], method[1], len(lines)


def _cut_body(lines: list[str], first: int, end: int, def_indent: int, group_lines: int) -> list[_Group]:
    """The groups of the method body on lines [first, end): cut before compound statements
    at the body's indentation, about `group_lines` apart."""
    groups: list[_Group] = []
    body_indent: int | None = None
    start: int | None = None
    for i, stripped, indent in _significant(lines, first, end):
        if body_indent is None:
            body_indent = indent
        if indent != body_indent or not stripped.startswith(_COMPOUND):
            continue
        if start is None:
            start = i
        elif i - start >= group_lines:
            groups.append(_Group(start, i, body_indent, def_indent))
            start = i
    if start is not None and body_indent is not None:
        groups.append(_Group(start, end, body_indent, def_indent))
    return groups


def _significant(lines: list[str], first: int, end: int) -> Iterator[tuple[int, str, int]]:
    """(index, text without its indentation, indentation) of the lines in [first, end) that
    are neither blank nor only a comment: the lines whose indentation Python's tokenizer
    reads."""
    for i in range(first, end):
        stripped = lines[i].lstrip(" ")
        if stripped and not stripped.startswith("#"):
            yield i, stripped, len(lines[i]) - len(stripped)


def _brackets(text: str) -> int:
    """Opening minus closing brackets of a line (strings and comments not told apart)."""
    return sum(text.count(c) for c in "([{") - sum(text.count(c) for c in ")]}")


def _ends_block(text: str) -> bool:
    """The line ends with `:` (before a trailing comment): its block follows on the next
    lines rather than on this one."""
    return text.split("#", 1)[0].rstrip().endswith(":")


_Holder = ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef


def _placeholders(tree: ast.Module, groups: list[_Group]) -> list[tuple[_Holder, ast.ClassDef, int]] | None:
    """For each group, the definition whose body holds its placeholder `pass` (a column-0
    class, or a method of one: a direct child of its body), that class, and the
    placeholder's line; None when one is missing or not where its group was cut."""
    passes: dict[int, tuple[_Holder, ast.ClassDef, ast.Pass]] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.col_offset == 0:
            holders: list[_Holder] = [node]
            holders += [m for m in node.body if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)]
            for holder in holders:
                for stmt in holder.body:
                    if isinstance(stmt, ast.Pass):
                        passes[stmt.lineno] = (holder, node, stmt)
    out: list[tuple[_Holder, ast.ClassDef, int]] = []
    for g in groups:
        found = passes.get(g.start + 1)
        if found is None:
            return None
        holder, cls, placeholder = found
        method = holder is not cls
        if placeholder.col_offset != g.indent or method != (g.outer is not None):
            return None
        if method and holder.col_offset != g.outer:
            return None
        out.append((holder, cls, g.start + 1))
    return out


def _group_body(lines: list[str], g: _Group, filename: str) -> list[ast.stmt] | None:
    """The statements of group `g`, parsed under a stand-in class header (and method header)
    on the lines before it, so that its lines keep their numbers; None unless that is all
    the text holds."""
    header = ["class _:"] if g.outer is None else ["class _:", " " * g.outer + "def _(self):"]
    if g.start < len(header):
        return None
    text = "\n" * (g.start - len(header)) + "\n".join([*header, *lines[g.start : g.end]])
    tree = ast.parse(text, filename)
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.ClassDef):
        return None
    body = tree.body[0].body
    if g.outer is not None:
        if len(body) != 1 or not isinstance(body[0], ast.FunctionDef):
            return None
        body = body[0].body
    if not body or _first_position(body[0]) != (g.start + 1, g.indent):
        return None
    return body


def _first_position(stmt: ast.stmt) -> tuple[int, int]:
    """Where `stmt` starts (line, column): a decorated definition at its first `@`, which is a
    column before its decorator's expression."""
    decorators: list[ast.expr] = getattr(stmt, "decorator_list", [])
    if decorators:
        return decorators[0].lineno, decorators[0].col_offset - 1
    return stmt.lineno, stmt.col_offset
