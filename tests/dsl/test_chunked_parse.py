"""A large file parsed a group of methods at a time gives the tree `ast.parse` gives, or
nothing (the caller then parses it whole): `slotsat.core.dsl.chunked`."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import pytest

from slotsat.bench.generate import generate_kernel, generate_single_function
from slotsat.core.dsl.chunked import _groups, _statement_groups, chunked_parse
from slotsat.core.dsl.parser import parse_source
from slotsat.core.dsl.printer import print_module
from slotsat.core.errors import SlotsatError

ROOT = Path(__file__).resolve().parents[2]

METHODS = '''\
import pypto.language as pl


@pl.program
class P:
    """A program."""

    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[64, 64], pl.FP16]) -> pl.Tensor[[64, 64], pl.FP16]:
        return a

    # a comment between methods
    @pl.function(
        type=pl.FunctionType.InCore,
    )
    def g(self, a: pl.Tensor[[64, 64], pl.FP16]) -> pl.Tensor[[64, 64], pl.FP16]:
        x = """text
        def not_a_method(self):
            pass
        """
        return a

    def h(self): return 1; pass

    @pl.function
    def k(self, a: pl.Tensor[[64, 64], pl.FP16]) -> pl.Tensor[[64, 64], pl.FP16]:
        return a


@pl.program
class Q:
    @pl.function
    def f(self, a: pl.Tensor[[64, 64], pl.FP16]) -> pl.Tensor[[64, 64], pl.FP16]:
        return a
'''


def _same_tree(text: str, **kwargs: int) -> bool:
    """Chunked parse (every method a group) equals `ast.parse`; False when it declined."""
    tree = chunked_parse(text, "k.py", **{"min_lines": 0, "group_lines": 1, **kwargs})
    if tree is None:
        return False
    whole = ast.parse(text, "k.py")
    assert ast.dump(tree, include_attributes=True) == ast.dump(whole, include_attributes=True)
    return True


def _whole_or_equal(base: str, change: Callable[[str], str]) -> None:
    """`change(base)` is declined when it is a syntax error, else parses to the whole file's
    tree (`_same_tree`: equal, or declined)."""
    text = change(base)
    assert text != base
    try:
        ast.parse(text, "k.py")
    except SyntaxError:
        assert chunked_parse(text, "k.py", min_lines=0, group_lines=1) is None
        return
    _same_tree(text)


def test_methods_of_every_shape_give_the_whole_files_tree() -> None:
    assert _same_tree(METHODS)


@pytest.mark.parametrize("group_lines", [1, 7, 40])
def test_generated_kernels_give_the_whole_files_tree(group_lines: int) -> None:
    for seed in range(3):
        assert _same_tree(generate_kernel(seed, 60).text, group_lines=group_lines)
        # one function: cut between the statements of its body
        assert _same_tree(generate_single_function(seed, 30).text, group_lines=group_lines)
        # all methods in one group: cut inside each method instead (one group per method)
        assert _same_tree(generate_kernel(seed, 60).text, group_lines=10_000)
        # one method in one group: parsed whole
        single = generate_single_function(seed, 30).text
        assert chunked_parse(single, "k.py", min_lines=0, group_lines=10_000) is None


ONE_METHOD = '''\
import pypto.language as pl


@pl.program
class P:
    @pl.function(
        type=pl.FunctionType.InCore,
    )
    def kernel(
        self,
        a: pl.Tensor[[64, 64], pl.FP16],  # a comment
    ) -> pl.Tensor[[64, 64], pl.FP16]:  # a comment after the colon
        """A docstring,
            for i in a string indented deeper than the body
        """
        acc = a
        for i in pl.range(4):
            acc = acc
        else:
            acc = acc
        if acc:
            acc = acc
        elif acc:
            acc = acc
        with pl.section():
            acc = acc
        while acc:
            break
        for j in pl.range(4):
            def inner():
                return 1
        return acc
'''


def test_a_methods_statements_of_every_shape_give_the_whole_files_tree() -> None:
    lines = ONE_METHOD.split("\n")
    assert len(_groups(lines, 1)) == 1  # one method: cut inside it
    assert len(_statement_groups(lines, 1)) == 5  # for, if, with, while, for
    assert _same_tree(ONE_METHOD)


@pytest.mark.parametrize(
    "change",
    [
        # a compound statement's line inside a string at the body's indentation
        lambda t: t.replace("        acc = a\n", '        acc = """\n        for k in x:\n        """\n'),
        # a bracket open across a cut
        lambda t: t.replace("        acc = a\n", "        acc = (a,\n"),
        # a header whose brackets the naive count gets wrong
        lambda t: t.replace("# a comment\n", "# a comment (with a bracket\n"),
        # a one-line method after it
        lambda t: t + "\n    def one_line(self): return 1\n",
        # the body's first line deeper than the rest
        lambda t: t.replace('        """A docstring,', '            """A docstring,'),
    ],
)
def test_edits_inside_a_method_are_parsed_whole_or_equal(change: Callable[[str], str]) -> None:
    _whole_or_equal(ONE_METHOD, change)


def test_bundled_and_test_kernels_give_the_whole_files_tree() -> None:
    chunked = 0
    for path in sorted([*ROOT.glob("examples/**/*.py"), *ROOT.glob("tests/data/**/*.py")]):
        text = path.read_text(encoding="utf-8", errors="replace")
        try:
            ast.parse(text)
        except (SyntaxError, ValueError):
            assert chunked_parse(text, path.name, min_lines=0, group_lines=1) is None
            continue
        chunked += _same_tree(text)
    assert chunked >= 10  # the files with two methods or more


@pytest.mark.parametrize(
    "change",
    [
        # a cut inside a string: the group before it is unterminated
        lambda t: t.replace('        x = """text', '        x = """text\n    def fake(self):\n        pass'),
        # a string at column 0 inside the class: the class ends there for the scan
        lambda t: t.replace('        x = """text', '        x = """text\nclass Fake:\n    def fake(self):'),
        # a string left open across the rest of the class
        lambda t: t.replace("        return a\n\n    def h", '        y = """\n\n    def h'),
        # a bracket open across a cut
        lambda t: t.replace("        return a\n\n    def h", "        y = (1,\n\n    def h"),
        # a backslash continuation into a cut
        lambda t: t.replace("        return a\n\n    def h", "        y = 1 + \\\n    def h"),
        # a decorator with nothing to decorate
        lambda t: t.replace("    def h(self)", "    @pl.function\n\n# c\n    def h(self)").replace(
            "    @pl.function\n    def k", "    @pl.function\n    @pl.function\n    def k"),
        # a line at column 0 inside the class: the class ends there for the scan
        lambda t: t.replace("return 1; pass", "return (1,\n2)"),
        # an indentation that matches no level
        lambda t: t.replace("    def h(self)", "  def h(self)"),
    ],
)
def test_edits_that_cross_a_cut_are_parsed_whole_or_equal(change: Callable[[str], str]) -> None:
    _whole_or_equal(METHODS, change)


@pytest.mark.parametrize("extra", ["\t", "\f", "\r", "from __future__ import annotations\n"])
def test_text_the_scan_does_not_handle_is_parsed_whole(extra: str) -> None:
    if extra.startswith("from"):
        text = extra + METHODS
    else:
        text = METHODS.replace("return 1", "return" + extra + "1")
    assert chunked_parse(text, "k.py", min_lines=0, group_lines=1) is None


def test_short_files_are_parsed_whole() -> None:
    assert chunked_parse(METHODS, "k.py") is None  # under MIN_LINES


def test_a_syntax_error_in_a_large_file_is_reported_as_the_whole_parse_reports_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from slotsat.core.dsl import parser

    text = generate_kernel(0, 600).text
    assert text.count("\n") > 4_000
    lines = text.split("\n")
    k = len(lines) // 2
    while not lines[k].startswith("            x"):
        k += 1
    lines[k] = lines[k].replace("pl.load(", "pl.load((", 1)
    broken = "\n".join(lines)
    with pytest.raises(SlotsatError) as chunked_err:
        parse_source(broken, "k.py")
    monkeypatch.setattr(parser, "chunked_parse", lambda *args, **kwargs: None)
    with pytest.raises(SlotsatError) as whole_err:
        parse_source(broken, "k.py")
    assert (str(chunked_err.value), chunked_err.value.span) == (str(whole_err.value), whole_err.value.span)
    assert "never closed" in str(chunked_err.value)


@pytest.mark.parametrize("shape", ["functions", "single"])
def test_a_large_file_parses_to_the_same_ir_chunked_or_whole(
    shape: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from slotsat.core.dsl import parser

    text = generate_kernel(1, 600).text if shape == "functions" else generate_single_function(1, 900).text
    assert text.count("\n") > 4_000
    calls: list[object] = []
    real = parser.chunked_parse
    monkeypatch.setattr(parser, "chunked_parse", lambda *a, **k: calls.append(real(*a, **k)) or calls[-1])
    chunked = print_module(parse_source(text, "k.py"))
    assert calls
    assert calls[0] is not None  # the large file was parsed in groups
    monkeypatch.setattr(parser, "chunked_parse", lambda *args, **kwargs: None)
    assert chunked == print_module(parse_source(text, "k.py"))
