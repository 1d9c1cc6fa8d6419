"""Parsing a large kernel file a group of methods at a time, into the tree `ast.parse` builds.

`ast.parse` holds two copies of a file's syntax tree at its peak: CPython's own (C) tree
and the Python objects made from it. For a 10,000-loop file (5.5 MB) together they are
about 1 GB, against 0.56 GB for the Python tree alone, and the big C tree is also slower
to walk (measured: 3.5 s against 2.7 s for that file). A kernel file is almost all
methods of `@pl.program` classes, so `chunked_parse` parses the methods of a class in
groups of about `GROUP_LINES` lines and the rest of the file (the skeleton) on its own,
and assembles the tree the whole file would give: the same nodes, with the same
positions.

**The cut.** Lines are scanned, not tokenized: a cut goes before a line, indented as the
first line of a column-0 `class` statement's body, that starts a `def` (or its first
decorator). A group is every line from one cut to the next one used, or to the next
line at column 0. The skeleton is the file with each group's lines blanked, its first
line replaced by a `pass` at the cut's indentation (the placeholder). Every piece keeps
its line numbers (a group is parsed after as many blank lines, under a `class _:` line
standing for its class header) and its columns (its lines are not changed).

**Why the result is the whole file's tree.** The scan can be fooled (a line inside a
string, a decorator that spans lines, tabs), but the parses check it: a cut inside a
string, a bracket or a continuation line leaves the group before it unterminated, so its
parse fails; and every placeholder must come out of the skeleton as a `pass` statement
directly in the body of a class at column 0. Given that, at the first line of every group
CPython's tokenizer is in the same state in the whole file as in the group's own text (a
new statement, indented one level inside the class), by induction over the groups in
file order, so the group's statements are the ones the whole file has there; at its end
no bracket, string or continuation is open (the group's parse reached its end), and the
skeleton resumes after it as the whole file does. Any failed check, any syntax error and
any text this does not handle (tabs, form feeds or carriage returns, a `__future__`
import: `barry_as_FLUFL` changes the grammar) returns None, and the caller parses the
whole file, which also reports any error with CPython's own message.
"""

from __future__ import annotations

import ast
import warnings
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
    """The columns of its cut line: the indentation of the class body."""


def chunked_parse(text: str, filename: str, *, min_lines: int = MIN_LINES,
                  group_lines: int = GROUP_LINES) -> ast.Module | None:
    """The tree `ast.parse(text, filename)` returns, parsed in groups of methods; None when
    the file is short, not of that shape, or any check or parse fails (see the module
    docstring): the caller then parses it whole."""
    if text.count("\n") < min_lines or any(c in text for c in ("\t", "\f", "\r")):
        return None
    if "__future__" in text:
        return None
    lines = text.split("\n")
    groups = _groups(lines, group_lines)
    if len(groups) < 2:  # one group is the whole file's parse and more
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
    for (cls, line), body in zip(places, bodies, strict=True):
        assert body is not None
        k = next(i for i, s in enumerate(cls.body) if isinstance(s, ast.Pass) and s.lineno == line)
        cls.body[k : k + 1] = body
    for cls, _ in places:
        last = cls.body[-1]
        cls.end_lineno, cls.end_col_offset = last.end_lineno, last.end_col_offset
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

    for i, line in enumerate(lines):
        stripped = line.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(stripped)
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


def _placeholders(tree: ast.Module, groups: list[_Group]) -> list[tuple[ast.ClassDef, int]] | None:
    """For each group, the column-0 class whose body holds its placeholder `pass` (and the
    placeholder's line); None when one is missing."""
    passes: dict[int, ast.ClassDef] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.col_offset == 0:
            for s in node.body:
                if isinstance(s, ast.Pass):
                    passes[s.lineno] = node
    out: list[tuple[ast.ClassDef, int]] = []
    for g in groups:
        cls = passes.get(g.start + 1)
        if cls is None:
            return None
        placeholder = next(s for s in cls.body if isinstance(s, ast.Pass) and s.lineno == g.start + 1)
        if placeholder.col_offset != g.indent:
            return None
        out.append((cls, g.start + 1))
    return out


def _group_body(lines: list[str], g: _Group, filename: str) -> list[ast.stmt] | None:
    """The statements of group `g`, parsed under a stand-in class header on the line before
    it (so that its lines keep their numbers); None unless that is all the text holds."""
    if g.start < 1:
        return None
    text = "\n" * (g.start - 1) + "class _:\n" + "\n".join(lines[g.start : g.end])
    tree = ast.parse(text, filename)
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.ClassDef):
        return None
    body = tree.body[0].body
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
