"""Parser errors (`10-dsl.md` §11, issue 2 item 6).

Groups: the §11 table and the issue's list, one case each with its exact message and
line:col; file-level failures (encoding, empty file, size, deep nesting); the CLI's one-line
`FILE:LINE:COL: error: MESSAGE` output with exit status 2 and no traceback.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from slotsat.app.cli import main
from slotsat.core import ir
from slotsat.core.dsl import parse_file, parse_source
from slotsat.core.errors import EXIT_UNREADABLE, SlotsatError, Span
from slotsat.core.limits import max_file_bytes

LOOP = """
for i, (dst,) in pl.range(4, init_values=(out,)):
    t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i * 64, 0], [64, 64])
    nxt: pl.Tensor[[256, 64], pl.FP32] = pl.store(t, [i * 64, 0], dst)
    res = pl.yield_(nxt)
return res
"""


def loop(header: str | None = None, tile: str | None = None, yield_line: str | None = None) -> str:
    """The LOOP body with its loop header, first tile annotation extras or yield replaced."""
    body = LOOP
    if header is not None:
        body = body.replace("pl.range(4, init_values=(out,))", header)
    if tile is not None:
        body = body.replace("pl.FP32, pl.Mem.Vec]", tile)
    if yield_line is not None:
        body = body.replace("res = pl.yield_(nxt)", yield_line)
    return body


TWO_DECLS = loop(tile="pl.FP32, PP[i % 2], pl.Mem.Vec]").replace(
    "return res",
    'u: pl.Tile[[64, 64], pl.FP32, pl.MemRef("PP", slots=2)[0], pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])\n'
    "return res",
)
RESOLVED_SINGLE = (
    "pp: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384, pinned=True)\n"
    "t: pl.Tile[[64, 64], pl.FP32, pl.MemRef(pp, pl.const(0, pl.INT64), 16384)[0], pl.Mem.Vec] = "
    "pl.load(a, [0, 0], [64, 64])\nreturn out"
)
RESOLVED_OOB = (
    "pp: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768, pinned=True)\n"
    "t: pl.Tile[[64, 64], pl.FP32, pl.MemRef(pp, pl.const(32768, pl.INT64), 16384, slots=2)[2], "
    "pl.Mem.Vec] = "
    "pl.load(a, [0, 0], [64, 64])\nreturn out"
)

# (id, body, prelude, message, line, col); body line k is file line 7 + k (+ prelude lines)
CASES: list[tuple[str, str, str, str, int, int]] = [
    ("python-syntax-error", "x = = 1\nreturn out", "", "syntax error: invalid syntax", 8, 13),
    (
        "unknown-pl-loop",
        loop(header="pl.loop(4, init_values=(out,))"),
        "",
        "unsupported DSL construct 'pl.loop'",
        8,
        26,
    ),
    ("unknown-pl-dtype", loop(tile="pl.FP8, pl.Mem.Vec]"), "", "unsupported DSL construct 'pl.FP8'", 9, 34),
    (
        "unknown-pl-op",
        "t = pl.load(a, [0, 0], [64, 64])\nu = pl.frobnicate(t)\nreturn out",
        "",
        "unsupported DSL construct 'pl.frobnicate'",
        9,
        13,
    ),
    (
        "pipeline-without-stage",
        loop(header="pl.pipeline(4, init_values=(out,))"),
        "",
        "pl.pipeline() requires stage= (positive integer)",
        8,
        26,
    ),
    (
        "stage-zero",
        loop(header="pl.pipeline(4, stage=0, init_values=(out,))"),
        "",
        "pl.pipeline() stage must be >= 1, got 0",
        8,
        47,
    ),
    (
        "stage-negative",
        loop(header="pl.pipeline(4, stage=-2, init_values=(out,))"),
        "",
        "pl.pipeline() stage must be >= 1, got -2",
        8,
        47,
    ),
    (
        "runtime-stage",
        loop(header="pl.pipeline(4, stage=n, init_values=(out,))"),
        "",
        "pl.pipeline() stage must be a compile-time constant integer",
        8,
        47,
    ),
    (
        "stage-on-range",
        loop(header="pl.range(4, stage=2, init_values=(out,))"),
        "",
        "stage= is only supported on pl.pipeline(), not pl.range()",
        8,
        44,
    ),
    (
        "slots-zero",
        loop(),
        "PP = pl.MemRef(slots=0)",
        "slots must be a positive integer literal, got 0",
        2,
        22,
    ),
    (
        "slots-runtime",
        loop(),
        "PP = pl.MemRef(slots=n)",
        "slots must be a positive integer literal, got n",
        2,
        22,
    ),
    (
        "name-not-string",
        loop(),
        "PP = pl.MemRef(foo, slots=2)",
        "pl.MemRef() name must be a string literal, got foo",
        2,
        16,
    ),
    (
        "subscript-single-slot",
        loop(tile="pl.FP32, buf[0], pl.Mem.Vec]"),
        "buf = pl.MemRef()",
        "'buf' was declared with a single slot, so it cannot be subscripted",
        9,
        47,
    ),
    (
        "slot-index-out-of-range",
        loop(tile="pl.FP32, PP[2], pl.Mem.Vec]"),
        "PP = pl.MemRef(slots=2)",
        "Slot index 2 is out of range for 'PP', declared with 2 slot(s)",
        9,
        46,
    ),
    (
        "memref-without-space",
        loop(tile="pl.FP32, PP[i % 2]]"),
        "PP = pl.MemRef(slots=2)",
        "Tile annotation with a memref argument must also specify explicit memory space",
        9,
        16,
    ),
    (
        "resolved-single-slot-subscript",
        RESOLVED_SINGLE,
        "",
        "'pp' holds a single slot, so it cannot be subscripted",
        9,
        83,
    ),
    (
        "resolved-index-out-of-range",
        RESOLVED_OOB,
        "",
        "Slot index 2 is out of range for 'pp', which holds 2 slot(s)",
        9,
        96,
    ),
    (
        "declaration-two-names",
        loop(),
        "A = pl.MemRef(slots=2)\nB = A",
        "Declared allocation 'A' is also referenced as 'B'",
        3,
        1,
    ),
    (
        "two-declarations-one-name",
        TWO_DECLS,
        "PP = pl.MemRef(slots=2)",
        "Two separate pl.MemRef() declarations both resolve to the name 'PP'",
        12,
        39,
    ),
    (
        "yield-arity",
        loop(yield_line="res, extra = pl.yield_(nxt, i)"),
        "",
        "pl.yield_ has 2 values but the loop carries 1",
        11,
        13,
    ),
    (
        "yield-of-another-kind",
        loop(yield_line="res = pl.yield_(t)"),
        "",
        "pl.yield_ value 0 has type pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec], but the loop carries 'dst' with "
        "type pl.Tensor[[256, 64], pl.FP32]",
        11,
        13,
    ),
    (
        "yield-binds-fewer-names",
        loop(yield_line="res = pl.yield_(nxt, i)"),
        "",
        "pl.yield_ has 2 values but binds 1 names",
        11,
        13,
    ),
    ("undefined-variable", loop(yield_line="res = pl.yield_(q)"), "", "'q' is not defined", 11, 29),
    (
        "loop-local-out-of-scope",
        loop().replace("return res", "return nxt"),
        "",
        "'nxt' is not defined here (it is bound only inside the loop at 8:9)",
        12,
        16,
    ),
    (
        "rebinding-another-type",
        "t = pl.load(a, [0, 0], [64, 64])\nt = pl.cast(t, pl.FP16)\nreturn out",
        "",
        "Cannot reassign 't' with a different type: was pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec], "
        "got pl.Tile[[64, 64], pl.FP16, pl.Mem.Vec]",
        9,
        9,
    ),
    (
        "declaration-twice",
        loop(),
        "PP = pl.MemRef(slots=2)\nPP = pl.MemRef(slots=4)",
        "pl.MemRef() declaration 'PP' is declared twice (first at 2:1)",
        3,
        1,
    ),
    (
        "keyword-repeated",
        loop(header="pl.pipeline(4, stage=2, stage=3, init_values=(out,))"),
        "",
        "syntax error: keyword argument repeated: stage",
        8,
        50,
    ),
    (
        "bound-literal-too-big",
        loop(header="pl.pipeline(1180591620717411303424, stage=2, init_values=(out,))"),
        "",
        "integer literal 1180591620717411303424 does not fit pl.INDEX "
        "(-9223372036854775808 to 9223372036854775807)",
        8,
        38,
    ),
    (
        "start-literal-too-big",
        loop(header="pl.pipeline(9223372036854775808, 9223372036854775809, stage=2, init_values=(out,))"),
        "",
        "integer literal 9223372036854775808 does not fit pl.INDEX "
        "(-9223372036854775808 to 9223372036854775807)",
        8,
        38,
    ),
    (
        "stage-literal-too-big",
        loop(header="pl.pipeline(4, stage=1000000000000000000000000000000, init_values=(out,))"),
        "",
        "integer literal 1000000000000000000000000000000 does not fit pl.INDEX "
        "(-9223372036854775808 to 9223372036854775807)",
        8,
        47,
    ),
    (
        "stage-2-to-the-63",
        loop(header="pl.pipeline(4, stage=9223372036854775808, init_values=(out,))"),
        "",
        "integer literal 9223372036854775808 does not fit pl.INDEX "
        "(-9223372036854775808 to 9223372036854775807)",
        8,
        47,
    ),
    (
        "negative-literal-too-small",
        loop(header="pl.range(-9223372036854775809, 4, init_values=(out,))"),
        "",
        "integer literal -9223372036854775809 does not fit pl.INDEX "
        "(-9223372036854775808 to 9223372036854775807)",
        8,
        35,
    ),
    (
        "offset-literal-too-big",
        "t = pl.load(a, [18446744073709551616, 0], [64, 64])\nreturn out",
        "",
        "integer literal 18446744073709551616 does not fit pl.INDEX "
        "(-9223372036854775808 to 9223372036854775807)",
        8,
        25,
    ),
    (
        "shape-literal-too-big",
        "t = pl.load(a, [0, 0], [9223372036854775808, 64])\nreturn out",
        "",
        "integer literal 9223372036854775808 does not fit pl.INDEX "
        "(-9223372036854775808 to 9223372036854775807)",
        8,
        33,
    ),
    (
        "slots-literal-too-big",
        loop(),
        "PP = pl.MemRef(slots=9223372036854775808)",
        "integer literal 9223372036854775808 does not fit pl.INDEX "
        "(-9223372036854775808 to 9223372036854775807)",
        2,
        22,
    ),
    (
        "slot-index-literal-too-big",
        loop(tile="pl.FP32, PP[18446744073709551616], pl.Mem.Vec]"),
        "PP = pl.MemRef(slots=2)",
        "integer literal 18446744073709551616 does not fit pl.INDEX "
        "(-9223372036854775808 to 9223372036854775807)",
        9,
        46,
    ),
    (
        "literal-outside-its-sibling-dtype",
        "k: pl.Scalar[pl.INT8] = pl.cast(n, pl.INT8)\nj = k + 300\nreturn out",
        "",
        "integer literal 300 does not fit pl.INT8 (-128 to 127)",
        9,
        17,
    ),
    (
        "negative-literal-unsigned",
        "k: pl.Scalar[pl.UINT32] = pl.const(5, pl.UINT32)\nj = k + -1\nreturn out",
        "",
        "integer literal -1 does not fit pl.UINT32 (0 to 4294967295)",
        9,
        17,
    ),
    (
        "alloc-size-too-big",
        "pp: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 9223372036854775808, pinned=True)\nreturn out",
        "",
        "integer literal 9223372036854775808 does not fit pl.INDEX "
        "(-9223372036854775808 to 9223372036854775807)",
        8,
        48,
    ),
    (
        "alloc-unpinned",
        "pp: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)\nreturn out",
        "",
        "the unpinned allocation 'pl.tile.alloc(pl.Mem.Vec, 4096)' is the IR of a later stage: the "
        "reference's InitMemRef runs after the hand-off point, and slotsat reads the IR that PyPTO prints "
        "just before LowerPipelineToSlots",
        8,
        22,
    ),
    (
        "const-not-a-bit-pattern",
        "k = pl.const(4294967296, pl.INT32)\nreturn out",
        "",
        "pl.const value 4294967296 is not a 32-bit pattern of pl.INT32 (-2147483648 to 4294967295)",
        8,
        22,
    ),
    (
        "attr-literal-too-big",
        loop(header='pl.range(4, init_values=(out,), attrs={"unroll": 9223372036854775808})'),
        "",
        "integer literal 9223372036854775808 does not fit pl.INT64 "
        "(-9223372036854775808 to 9223372036854775807)",
        8,
        75,
    ),
    (
        "float-literal-infinite",
        "t = pl.load(a, [0, 0], [64, 64])\nu = pl.muls(t, 1e400)\nreturn out",
        "",
        "float literal 1e400 is not finite",
        9,
        24,
    ),
    (
        "load-rank-differs",
        "t: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64])\nreturn out",
        "",
        "pl.tile.load loads a tile of rank 1 from a tensor of rank 2; the tile's shape needs one entry per "
        "tensor dimension",
        8,
        49,
    ),
    (
        "store-rank-differs",
        "t = pl.load(a, [0, 0], [64, 64])\nr = pl.reshape(t, [4096])\ns = pl.store(r, [0, 0], out)\nreturn s",
        "",
        "pl.tile.store stores a tile of rank 1 into a tensor of rank 2; the ranks must agree",
        10,
        13,
    ),
    (
        "store-offsets-differ",
        "t = pl.load(a, [0, 0], [64, 64])\ns = pl.store(t, [0], out)\nreturn s",
        "",
        "pl.tile.store has 1 offsets but the tensor has rank 2",
        9,
        13,
    ),
    ("while-else", "while n > 0:\n    pass\nelse:\n    pass\nreturn out", "",
     "unsupported syntax: while ... else", 8, 9),
    (
        "augmented-assignment",
        "k = n\nk += 1\nreturn out",
        "",
        "unsupported syntax: augmented assignment",
        9,
        9,
    ),
    ("break", "for i in pl.range(4):\n    break\nreturn out", "",
     "'break' (lowered by the reference's CtrlFlowTransform) is above tile level: slotsat reads the "
     "tile-level IR that PyPTO prints at the hand-off point (just before LowerPipelineToSlots); compile this "
     "kernel with --via-pypto", 9, 13),
    ("continue", "for i in pl.range(4):\n    continue\nreturn out", "",
     "'continue' (lowered by the reference's CtrlFlowTransform) is above tile level: slotsat reads the "
     "tile-level IR that PyPTO prints at the hand-off point (just before LowerPipelineToSlots); compile this "
     "kernel with --via-pypto", 9, 13),
    (
        "for-else",
        "for i in pl.range(4):\n    pass\nelse:\n    pass\nreturn out",
        "",
        "unsupported syntax: for ... else",
        8,
        9,
    ),
    (
        "python-range",
        "for i in range(4):\n    pass\nreturn out",
        "",
        "unsupported syntax: plain Python range (write pl.range)",
        8,
        18,
    ),
    (
        "op-argument-count",
        "t = pl.load(a, [0, 0])\nreturn out",
        "",
        "pl.tile.load expects (tensor, offsets, shape[, valid_shape], target_memory=SPACE, clamp=...), "
        "got pl.load(a, [0, 0])",
        8,
        13,
    ),
    (
        "annotation-disagrees",
        "t: pl.Tile[[64, 32], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])\nreturn out",
        "",
        "annotation says pl.Tile[[64, 32], pl.FP32, pl.Mem.Vec] but pl.tile.load produces "
        "pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec]",
        8,
        12,
    ),
    (
        "annotation-space-disagrees",
        "t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Mat] = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Vec)\n"
        "return out",
        "",
        "annotation says pl.Tile[[64, 64], pl.FP32, pl.Mem.Mat] but pl.tile.load produces "
        "pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec]",
        8,
        12,
    ),
    (
        "mixed-dtypes",
        "k: pl.Scalar[pl.FP32] = pl.cast(n, pl.FP32)\nj = k + n\nreturn out",
        "",
        "operands of '+' have dtypes pl.FP32 and pl.INDEX; insert pl.cast",
        9,
        13,
    ),
    (
        "non-literal-shape",
        "t = pl.load(a, [0, 0], [n, 64])\nreturn out",
        "",
        "tile shape entries must be positive integer literals, got n",
        8,
        33,
    ),
    (
        "init-values-count",
        loop(header="pl.range(4, init_values=(out, n))"),
        "",
        "init_values has 2 values but the loop unpacks 1 names",
        8,
        13,
    ),
    (
        "carried-without-yield",
        loop(yield_line="pass"),
        "",
        "a loop with init_values must end with pl.yield_",
        11,
        13,
    ),
    (
        "yield-not-last",
        loop(yield_line="res = pl.yield_(nxt)\n    z = pl.exp(t)"),
        "",
        "pl.yield_ must be the last statement of a loop body or an if branch",
        11,
        13,
    ),
    (
        "if-yield-names-differ",
        "if n > 0:\n    v = pl.yield_(out)\nelse:\n    w = pl.yield_(out)\nreturn v",
        "",
        "both branches of an if must yield the same names",
        11,
        13,
    ),
    (
        "if-one-branch-yields",
        "if n > 0:\n    v = pl.yield_(out)\nreturn v",
        "",
        "both branches of an if must yield the same names",
        9,
        13,
    ),
    (
        "step-zero",
        loop(header="pl.range(0, 4, 0, init_values=(out,))"),
        "",
        "loop step must not be zero",
        8,
        41,
    ),
    ("return-in-loop", "for i in pl.range(4):\n    return out\nreturn out", "",
     "a function body must end with return", 9, 13),
    (
        "return-not-last",
        "return out\nt = pl.load(a, [0, 0], [64, 64])",
        "",
        "a function body must end with return",
        9,
        9,
    ),
    (
        "alloc-not-at-top",
        "t = pl.load(a, [0, 0], [64, 64])\n"
        "pp: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384, pinned=True)\nreturn out",
        "",
        "pl.tile.alloc(..., pinned=True) statements are accepted only at the top of a function body",
        9,
        22,
    ),
    (
        "nested-call-untyped",
        "e = pl.exp(pl.tile.create([n, 64], dtype=pl.FP32))\nreturn out",
        "",
        "annotate the result of pl.tile.create: slotsat cannot infer its type (write NAME: TYPE = "
        "pl.tile.create(...))",
        8,
        20,
    ),
    ("misspelled-op", "t = pl.tile.lod(a, [0, 0], [64, 64])\nreturn out", "",
     "unsupported DSL construct 'pl.tile.lod'; did you mean 'pl.tile.load'?", 8, 13),
    ("misspelled-function", "t = kernal(a, n, out)\nreturn out", "",
     "'kernal' is not defined: a kernel calls pl operations and the program's functions (self.f(...)); "
     "did you mean self.kernel(...)?", 8, 13),
    ("function-without-self", "t = kernel(a, n, out)\nreturn out", "",
     "'kernel' is a function of the program: call it as self.kernel(...)", 8, 13),
    ("call-of-a-value", "t = n(a)\nreturn out", "",
     "'n' is a value, not a function: a kernel calls pl operations and the program's functions (self.f(...))",
     8, 13),
    ("undefined-helper-statement", "helper(a)\nreturn out", "",
     "'helper' is not defined: a kernel calls pl operations and the program's functions (self.f(...))", 8, 9),
    (
        "attrs-pipeline-stages",
        loop(header='pl.range(4, init_values=(out,), attrs={"pipeline_stages": 2})'),
        "",
        "pipeline_stages may not be given through attrs=; write pl.pipeline(..., stage=F)",
        8,
        64,
    ),
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c[0]) for c in CASES])
def test_error_message_and_position(
    kernel: Callable[..., str], case: tuple[str, str, str, str, int, int]
) -> None:
    _, body, prelude, message, line, col = case
    with pytest.raises(SlotsatError) as info:
        parse_source(kernel(body, prelude), "k.py")
    assert (info.value.message, info.value.span.line, info.value.span.col) == (message, line, col)
    assert info.value.exit_status == EXIT_UNREADABLE


def test_a_different_import_is_rejected(kernel: Callable[..., str]) -> None:
    source = kernel(loop()).replace("import pypto.language as pl", "import pypto.language as pypto")
    with pytest.raises(SlotsatError, match=r"^expected 'import pypto.language as pl'$") as info:
        parse_source(source, "k.py")
    assert (info.value.span.line, info.value.span.col) == (1, 1)


def test_a_column_counts_characters_not_bytes(kernel: Callable[..., str]) -> None:
    source = kernel('x = "é"\nreturn out')
    with pytest.raises(SlotsatError, match="unsupported syntax: literal") as info:
        parse_source(source, "k.py")
    assert (info.value.span.line, info.value.span.col) == (8, 13)


@pytest.mark.parametrize("source", ["", "\n\n", "import pypto.language as pl\n", '"""only a docstring"""\n'])
def test_an_empty_kernel_file_is_rejected(source: str) -> None:
    with pytest.raises(SlotsatError) as info:
        parse_source(source, "k.py")
    assert info.value.message == "a kernel file must import pypto.language and define a @pl.program"
    assert (info.value.span.line, info.value.span.col) == (1, 1)


def test_a_non_utf8_file_names_the_byte_and_its_position(
    write_kernel: Callable[..., Path], kernel: Callable[..., str]
) -> None:
    data = kernel("return out").encode() + b"# \xff\n"
    path = write_kernel(data)
    with pytest.raises(SlotsatError) as info:
        parse_file(path)
    assert info.value.message == "the file is not valid UTF-8 (byte 0xff)"
    assert (info.value.span.line, info.value.span.col) == (data.count(b"\n"), 3)


def test_a_null_byte_is_a_syntax_error(kernel: Callable[..., str]) -> None:
    with pytest.raises(SlotsatError, match="null bytes") as info:
        parse_source(kernel("return out") + "\x00", "k.py")
    assert info.value.span.line == 9


def _big_kernel(target_chars: int) -> str:
    head = (
        "import pypto.language as pl\n\n@pl.program\nclass Big:\n    @pl.function\n"
        "    def kernel(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n"
    )
    lines = [head]
    size = len(head)
    k = 0
    while size < target_chars:
        line = f"        v{k}: pl.Scalar[pl.INDEX] = n * {k} + (n - {k}) // 7 % 3\n"
        lines.append(line)
        size += len(line)
        k += 1
    lines.append("        return n\n")
    return "".join(lines)


def test_a_5mb_file_fails_cleanly_within_seconds(write_kernel: Callable[..., Path]) -> None:
    path = write_kernel(_big_kernel(5 * 1024 * 1024))
    start = time.perf_counter()
    with pytest.raises(SlotsatError, match="the limit is 4194304 bytes") as info:
        parse_file(path)
    assert time.perf_counter() - start < 5
    assert (info.value.span.line, info.value.span.col) == (1, 1)


def test_a_large_file_under_the_limit_parses_in_linear_time() -> None:
    source = _big_kernel(400_000)
    assert len(source) < max_file_bytes()
    start = time.perf_counter()
    module = parse_source(source, "big.py")
    assert time.perf_counter() - start < 30
    assert len(module.programs[0].functions[0].body.stmts) > 5000


def test_200_nested_loops_fail_cleanly(kernel: Callable[..., str]) -> None:
    body = "".join("    " * d + f"for i{d} in pl.range(4):\n" for d in range(200)) + "    " * 200 + "pass\n"
    with pytest.raises(SlotsatError, match="syntax error: too many levels of indentation"):
        parse_source(kernel(body + "return out"), "k.py")


def test_a_huge_expression_fails_cleanly(kernel: Callable[..., str]) -> None:
    body = "y: pl.Scalar[pl.INDEX] = n + 1\nx: pl.Scalar[pl.INDEX] = n" + " + n" * 100_000 + "\nreturn out"
    source = kernel(body)
    with pytest.raises(SlotsatError, match="nested too deeply") as info:
        parse_source(source, "k.py")
    # located at the statement CPython's parser could not nest, not at the top of the file
    line = next(k for k, text in enumerate(source.splitlines(), 1) if "x: pl.Scalar" in text)
    assert (info.value.span.line, info.value.span.col) == (line, source.splitlines()[line - 1].index("x") + 1)


def test_the_deepest_line_counts_operators_of_code_not_of_strings_or_comments() -> None:
    """`_deepest_line` names the logical line with the most operator and bracket tokens: a
    bracketed line continues across physical lines, and operators inside strings (a
    triple-quoted one across lines too) and comments do not count."""
    from slotsat.core.dsl.parser import _deepest_line

    plus = " + ".join("n" for _ in range(8))
    text = ("a = 1  # " + "+" * 50 + "\n"
            's = "' + "+" * 50 + '" + """\n' + "+" * 50 + '\n"""\n'
            "t = (n +\n     n +\n     " + plus + ")\n"
            "u = " + " + ".join("n" for _ in range(5)) + "\n")
    assert _deepest_line(text) == Span(5, 1)


def test_a_deep_but_parsable_expression_is_a_clean_error_or_parses(kernel: Callable[..., str]) -> None:
    body = "x: pl.Scalar[pl.INDEX] = " + "n - (" * 150 + "n" + ")" * 150 + "\nreturn out"
    module = parse_source(kernel(body), "k.py")
    assert module.programs[0].name == "K"


# -- the command line


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("x = = 1\nreturn out", "kernel.py:8:13: error: syntax error: invalid syntax"),
        (
            loop(header="pl.pipeline(4, stage=0, init_values=(out,))"),
            "kernel.py:8:47: error: pl.pipeline() stage must be >= 1, got 0",
        ),
        (loop(yield_line="res = pl.yield_(q)"), "kernel.py:11:29: error: 'q' is not defined"),
    ],
)
def test_the_cli_prints_one_line_and_exits_2(
    write_kernel: Callable[..., Path],
    kernel: Callable[..., str],
    capsys: pytest.CaptureFixture[str],
    body: str,
    expected: str,
) -> None:
    path = write_kernel(kernel(body))
    status = main(["parse", str(path)])
    captured = capsys.readouterr()
    assert status == 2
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1
    assert lines[0] == f"{path.parent}/{expected}"


def test_the_cli_reports_a_non_utf8_file(
    write_kernel: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_kernel(b"\xfe\xff")
    assert main(["parse", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == f"{path}:1:1: error: the file is not valid UTF-8 (byte 0xfe)\n"


def test_the_cli_reports_an_empty_file(
    write_kernel: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_kernel("")
    assert main(["parse", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == f"{path}:1:1: error: a kernel file must import pypto.language and define a @pl.program\n"


def test_the_cli_reports_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "absent.py"
    assert main(["parse", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:1:1: error: cannot read the file")
    assert "Traceback" not in err


def test_python_warnings_do_not_add_output_lines(
    write_kernel: Callable[..., Path], kernel: Callable[..., str], capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_kernel(kernel("x = 1if n > 0 else 2\nreturn out"))
    assert main(["parse", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == f"{path}:8:13: error: unsupported syntax: conditional expression\n"


@pytest.mark.parametrize("imports", [
    "from __future__ import annotations\nimport pypto.language as pl",
    "from pypto import language as pl",
    "import pypto\nimport pypto.language as pl\nfrom pypto import ir",
    "import pypto.language as pl\nfrom pypto.language import distributed as pld",
])
def test_the_imports_a_hand_written_kernel_file_keeps(kernel: Callable[..., str], imports: str) -> None:
    """A hand-written kernel file keeps `from __future__` and pypto imports it does not use;
    the program is the same as with the one required import."""
    plain = kernel("return out")
    module = parse_source(plain.replace("import pypto.language as pl", imports, 1), "k.py")
    ir.assert_structural_equal(module, parse_source(plain, "k.py"))


@pytest.mark.parametrize(("imports", "message", "line", "col"), [
    ("import torch\nimport pypto.language as pl",
     "a Python script around a kernel ('import torch') is above tile level", 1, 1),
    ("import pypto.language as pl\nfrom .helpers import tile_size",
     "a Python script around a kernel ('from .helpers import tile_size') is above tile level", 2, 1),
    ("import pypto.language as pl, os",
     "a Python script around a kernel ('import pypto.language as pl, os') is above tile level", 1, 1),
    ("import pypto.language as pl\nfrom pypto import ir as pl",
     "'from pypto import ir as pl' binds 'pl', which a kernel file keeps for pypto.language", 2, 1),
])
def test_an_import_a_kernel_file_does_not_take(kernel: Callable[..., str], imports: str, message: str,
                                               line: int, col: int) -> None:
    source = kernel("return out").replace("import pypto.language as pl", imports, 1)
    with pytest.raises(SlotsatError) as info:
        parse_source(source, "k.py")
    assert info.value.message.startswith(message)
    assert (info.value.span.line, info.value.span.col) == (line, col)
    if "above tile level" in message:
        assert "--via-pypto" in info.value.message


def test_a_pypto_name_imported_and_used_unqualified_is_located(kernel: Callable[..., str]) -> None:
    source = kernel("return out").replace("import pypto.language as pl",
                                         "import pypto.language as pl\nfrom pypto.language import Tensor", 1)
    source = source.replace("a: pl.Tensor[", "a: Tensor[", 1)
    with pytest.raises(SlotsatError) as info:
        parse_source(source, "k.py")
    assert info.value.message.startswith("'Tensor' (imported from pypto.language) is used here")
    assert info.value.span.line == 8
