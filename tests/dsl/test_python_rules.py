"""Python's own rules, as CPython applies them to a kernel file (issue 15 section 3).

`ast.parse` accepts what CPython's compiler rejects (a keyword given twice, a parameter named
twice); the parser reports both with CPython's wording, located where CPython locates them.
A UTF-8 byte order mark at the start of a file is skipped, as CPython skips it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from slotsat.app.cli import main
from slotsat.core import ir
from slotsat.core.dsl import parse_file, parse_source, print_module
from slotsat.core.errors import EXIT_UNREADABLE, SlotsatError

REPO = Path(__file__).resolve().parents[2]


def _cpython(source: str) -> tuple[str, int, int]:
    try:
        compile(source, "k.py", "exec", dont_inherit=True)
    except SyntaxError as err:
        return err.msg, err.lineno or 0, err.offset or 0
    raise AssertionError("CPython accepted the source")


@pytest.mark.parametrize(
    "call",
    [
        "pl.pipeline(4, stage=2, stage=3, init_values=(out,))",
        "pl.range(4, init_values=(out,), init_values=(out,))",
    ],
)
def test_a_repeated_keyword_is_cpythons_error(kernel: Callable[..., str], call: str) -> None:
    body = (
        f"for i, (dst,) in {call}:\n"
        "    t = pl.load(a, [0, 0], [64, 64])\n"
        "    nxt = pl.store(t, [0, 0], dst)\n"
        "    res = pl.yield_(nxt)\n"
        "return res"
    )
    source = kernel(body)
    with pytest.raises(SlotsatError) as info:
        parse_source(source, "k.py")
    message, line, col = _cpython(source)
    got = (info.value.message, info.value.span.line, info.value.span.col)
    assert got == (f"syntax error: {message}", line, col)
    assert info.value.exit_status == EXIT_UNREADABLE


def test_a_repeated_keyword_of_an_op_or_a_memref_is_an_error(kernel: Callable[..., str]) -> None:
    for body in (
        "t = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Vec, target_memory=pl.Mem.Mat)\nreturn out",
        't: pl.Tile[[64, 64], pl.FP32, pl.MemRef("P", slots=2, slots=3)[0], pl.Mem.Vec] = '
        "pl.load(a, [0, 0], [64, 64])\nreturn out",
    ):
        pattern = r"^syntax error: keyword argument repeated: (target_memory|slots)$"
        with pytest.raises(SlotsatError, match=pattern):
            parse_source(kernel(body), "k.py")


@pytest.mark.parametrize(
    "line",
    [
        "* pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])",
        "for *i in pl.range(4):\n    pass",
    ],
)
def test_a_bare_starred_target_is_cpythons_error(kernel: Callable[..., str], line: str) -> None:
    """CPython's parser accepts `*x = v` and `for *x in v`; its compiler rejects them (found by
    mutating a printed kernel, which ended in an internal error)."""
    source = kernel(f"{line}\nreturn out")
    with pytest.raises(SlotsatError) as info:
        parse_source(source, "k.py")
    message, line_no, col = _cpython(source)
    assert message == "starred assignment target must be in a list or tuple"
    assert (info.value.message, info.value.span.line, info.value.span.col) == (f"syntax error: {message}",
                                                                                line_no, col)


def test_a_repeated_parameter_is_cpythons_error() -> None:
    source = (
        "import pypto.language as pl\n\n\n@pl.program\nclass K:\n    @pl.function\n"
        "    def kernel(self, n: pl.Scalar[pl.INDEX], m: pl.Scalar[pl.INDEX], n: pl.Scalar[pl.INDEX]"
        ") -> pl.Scalar[pl.INDEX]:\n"
        "        return n\n"
    )
    with pytest.raises(SlotsatError) as info:
        parse_source(source, "k.py")
    message, line, col = _cpython(source)
    assert message == "duplicate argument 'n' in function definition"
    got = (info.value.message, info.value.span.line, info.value.span.col)
    assert got == (f"syntax error: {message}", line, col)


def test_the_first_of_two_errors_in_the_file_is_reported(kernel: Callable[..., str]) -> None:
    body = (
        "for i in pl.range(4, attrs={}, attrs={}):\n    pass\n"
        "for j in pl.pipeline(4, stage=2, stage=2):\n    pass\nreturn out"
    )
    with pytest.raises(SlotsatError) as info:
        parse_source(kernel(body), "k.py")
    assert info.value.span.line == 8


def test_a_utf8_bom_is_accepted_as_cpython_accepts_it(
    write_kernel: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    plain = REPO / "examples" / "kernels" / "row_scale.py"
    data = b"\xef\xbb\xbf" + plain.read_bytes()
    compile(data, "bom.py", "exec", dont_inherit=True)  # CPython accepts it
    path = write_kernel(data, "bom.py")
    ir.assert_structural_equal(parse_file(path), parse_file(plain))
    assert main(["parse", str(path)]) == 0
    assert capsys.readouterr().out == print_module(parse_file(plain))


def test_a_bom_does_not_shift_the_columns_of_line_one(write_kernel: Callable[..., Path]) -> None:
    path = write_kernel(b"\xef\xbb\xbfimport pypto.language as plx\n", "bom.py")
    with pytest.raises(SlotsatError) as info:
        parse_file(path)
    assert (info.value.message, info.value.span.line, info.value.span.col) == (
        "expected 'import pypto.language as pl'",
        1,
        1,
    )


def test_a_bom_elsewhere_is_still_a_syntax_error(kernel: Callable[..., str]) -> None:
    with pytest.raises(SlotsatError, match="U\\+FEFF"):
        parse_source(kernel("x = n\n\ufeffreturn out"), "k.py")
