"""The parser pauses the cyclic garbage collector around `ast.parse` and the tree walk
(most of a 10,000-loop parse was collection) and always restores the caller's setting."""

from __future__ import annotations

import gc
from collections.abc import Callable

import pytest

from slotsat.core.dsl.parser import parse_source
from slotsat.core.errors import SlotsatError


def test_the_collector_is_back_on_after_a_parse(kernel: Callable[..., str]) -> None:
    assert gc.isenabled()
    parse_source(kernel("return out"), "k.py")
    assert gc.isenabled()


def test_the_collector_is_back_on_after_an_error(kernel: Callable[..., str]) -> None:
    with pytest.raises(SlotsatError):
        parse_source(kernel("x = ("), "k.py")
    assert gc.isenabled()
    with pytest.raises(SlotsatError):
        parse_source(kernel("x: pl.Scalar[pl.INDEX] = nope\nreturn out"), "k.py")
    assert gc.isenabled()


def test_a_caller_that_disabled_the_collector_keeps_it_off(kernel: Callable[..., str]) -> None:
    gc.disable()
    try:
        parse_source(kernel("return out"), "k.py")
        assert not gc.isenabled()
    finally:
        gc.enable()


def _cyclic_garbage(build: Callable[[], object]) -> list[object]:
    """What only the cyclic collector would free of what `build` left behind."""
    gc.collect()
    gc.disable()
    try:
        build()
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        return list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


def test_a_parse_leaves_its_ast_to_reference_counting(kernel: Callable[..., str]) -> None:
    """The function parser and its type and call readers point at each other; `release`
    breaks that cycle, so the AST is freed when the parse returns, not at a full collection."""
    import ast

    text = kernel("x: pl.Tile[[8, 64], pl.FP32] = pl.load(a, [0, 0], [8, 64])\nreturn out")
    garbage = _cyclic_garbage(lambda: parse_source(text, "k.py"))
    assert not [o for o in garbage if isinstance(o, ast.AST)]
