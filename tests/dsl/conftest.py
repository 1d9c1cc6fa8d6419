"""Shared fixtures for the DSL tests: the example corpus and a kernel-file writer."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CORPUS = sorted((REPO / "examples" / "kernels").glob("*.py"))

HEAD = (
    "import pypto.language as pl\n"
    "\n"
    "\n"
    "@pl.program\n"
    "class K:\n"
    "    @pl.function(type=pl.FunctionType.InCore)\n"
    "    def kernel(self, a: pl.Tensor[[256, 64], pl.FP32], n: pl.Scalar[pl.INDEX], "
    "out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]) -> pl.Tensor[[256, 64], pl.FP32]:\n"
)
"""Seven lines: body line k (1-based) of `kernel_source` is file line 7 + k, indented 8."""


def kernel_source(body: str, prelude: str = "") -> str:
    """A one-function kernel around `body` (dedented, then indented into the method).
    `prelude` lines go between the import and the class (and shift the line numbers)."""
    text = textwrap.indent(textwrap.dedent(body).strip("\n") + "\n", " " * 8)
    head = HEAD if not prelude else HEAD.replace("\n\n\n", "\n" + prelude + "\n\n", 1)
    return head + text


@pytest.fixture
def kernel() -> Callable[..., str]:
    """`kernel(body, prelude="")`: see `kernel_source`."""
    return kernel_source


@pytest.fixture
def write_kernel(tmp_path: Path) -> Callable[[str | bytes, str], Path]:
    """Write source text (or raw bytes) to a file under tmp_path and return its path."""

    def write(source: str | bytes, name: str = "kernel.py") -> Path:
        path = tmp_path / name
        if isinstance(source, bytes):
            path.write_bytes(source)
        else:
            path.write_text(source, encoding="utf-8")
        return path

    return write
