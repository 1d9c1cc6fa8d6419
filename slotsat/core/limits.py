"""Resource limits: every bound slotsat puts on its input and its own work, in one table.

Each limit ends in a clean one-line error (`FILE:LINE:COL: error: ...`, exit status 1 or 2)
or a safe decline within a bounded time, never a wrong program. Every one can be raised
(or lowered) by an environment variable, read by this module (and nowhere else) when the
limit is consulted: an unset, empty, malformed or non-positive value means the default.

| Limit | Default | Override | When hit |
| --- | --- | --- | --- |
| input file size (bytes, or characters of parsed text) | 4 MiB | `SLOTSAT_MAX_FILE_BYTES` | (a) exit 2 |
| recursion limit inside passes | 20,000 frames (ceiling 200,000) | `SLOTSAT_RECURSION_LIMIT` | (b) exit 1 |
| DSL nesting in source text | 99 indentation levels | none (CPython) | (c) exit 2 |
| expression nesting (DSL and `explore` EXPR) | 256 levels | `SLOTSAT_MAX_EXPR_DEPTH` | (h) exit 2 |
| e-graph rounds per schedule | 64 | `SLOTSAT_EGRAPH_ITERATIONS`, `SLOTSAT_CAP_<SCHEDULE>` | (d) |
| e-graph table rows (nodes, facts) | 500,000 | `SLOTSAT_EGRAPH_NODES` | (d) |
| e-graph saturation wall time | 20 s | `SLOTSAT_EGRAPH_SECONDS` | (d) |
| codegen's choice of index forms, time per function | 20 s | `SLOTSAT_EXTRACT_SECONDS` | (j) |
| interpreter statements per run | 5,000,000 | `SLOTSAT_INTERP_MAX_STEPS` | (e) |
| interpreter iterations per loop | 1,000,000 | `SLOTSAT_INTERP_MAX_ITERATIONS` | (e) |
| interpreter tensor data (elements) | 67,108,864 | `SLOTSAT_INTERP_MAX_ELEMENTS` | (e) |
| privacy iterations per loop | 4,096 | `SLOTSAT_PRIVACY_MAX_ITERATIONS` | (f) |
| privacy statements per run | 2,000,000 | `SLOTSAT_PRIVACY_MAX_STEPS` | (e) |
| statements replication makes per function | 100,000 | `SLOTSAT_MAX_REPLICATED_STMTS` | (g) exit 1 |
| `check` random trials per function | 3 | `--trials N` | |
| PyPTO worker time per request, start-up included | 120 s | `SLOTSAT_PYPTO_SECONDS` | (i) exit 2 |

(a) `FILE:1:1: error: the file is N bytes; the limit is M bytes ...` before anything is read.
(b) `deep_recursion()` raises Python's recursion limit for the duration of a walk (never
    lowers it) and turns a `RecursionError` into `error: ... nests too deeply ...`.
(c) CPython's tokenizer stops at 100 indentation levels; the parser reports it as its
    one-line error. Loops nested 200 deep built as IR run through every pass.
(d) Saturation stops after the current round and the run names the limit it hit
    (`slotsat.egraph_rules.session`): the slots pass declines the function's pipeline loops
    (`egraph-limit`; they are replicated), codegen keeps the best form proven so far or the
    as-written lowering and warns (`FILE:LINE:COL: warning: function 'F': its index e-graph
    stopped before its rules settled (LIMIT); ...`). `<SCHEDULE>` is a schedule's name
    (`slotsat.egraph_rules.schedules`: `SLOTS_GATES`, `SLOTS_FORMS`, `CODEGEN_SLOTS`,
    `CODEGEN_SYNTACTIC`, `INTERVALS_ONLY`).
(e) `InterpreterError`: `check` reports the function as not verified (or, for the
    transformed program only, as a mismatch). The tensor-data limit counts the elements of
    all tensor parameters together, or of any one tile, before any array is made: a larger
    function is "too large to interpret".
(f) Later iterations of that loop instance are not simulated; a note says so.
(g) lower-pipeline-loops counts the statements of the copies it would make (copies of the
    body times its statements, nested ones included) before it builds any:
    `error: LowerPipelineLoops: replicating this stage=F loop makes N copies ...`.
(h) `FILE:LINE:COL: error: the expression is nested too deeply: more than N levels ...` at
    the node past the limit; one parser reads kernels and `explore`'s EXPR, so both stop at
    the same depth (a flat 300-term sum is 299 levels).
(i) `FILE:1:1: error: PyPTO did not finish within N s ...`; the worker's process group is
    killed and the next request starts a fresh one (`slotsat/bridge/session.py`).
(j) Each index expression of a function is chosen from its e-graph on its own (its closure of
    e-classes, against what is already emitted), so a large unsettled e-graph can make that
    cost seconds per expression. Once a function's choices have taken longer than this, its
    remaining index expressions are lowered as written, each floor operation by its proven
    unsigned form where the e-graph has one and else by its correction chain (a correct
    program, larger than the e-graph's best), and codegen warns (`FILE:LINE:COL: warning:
    function 'F': choosing its index forms stopped at a limit (...)`).

The e-graph limits are applied by `slotsat.egraph_rules.session.Limits.from_env()`, which
reads them here; the PyPTO worker's limit is applied in `slotsat/bridge/session.py`.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

from slotsat.core.errors import EXIT_REJECTED, EXIT_UNREADABLE, NO_SPAN, SlotsatError, Span

DEFAULT_MAX_FILE_BYTES = 4 * 1024 * 1024
"""Real kernels are a few KiB; Python's own parser needs seconds per MiB, so a 5 MB file is
a fast, clean error rather than a long wait."""
DEFAULT_RECURSION_LIMIT = 20_000
RECURSION_CEILING = 200_000
"""`SLOTSAT_RECURSION_LIMIT` is clamped to this, so an override cannot ask for an unbounded stack."""
DEFAULT_INTERP_MAX_STEPS = 5_000_000
DEFAULT_INTERP_MAX_ITERATIONS = 1_000_000
DEFAULT_INTERP_MAX_ELEMENTS = 1 << 26
DEFAULT_PRIVACY_MAX_ITERATIONS = 4096
DEFAULT_PRIVACY_MAX_STEPS = 2_000_000
DEFAULT_CHECK_TRIALS = 3
DEFAULT_EGRAPH_ROUNDS = 64
DEFAULT_EGRAPH_ROWS = 500_000
DEFAULT_EGRAPH_SECONDS = 20.0
DEFAULT_EXTRACT_SECONDS = 20.0
DEFAULT_MAX_REPLICATED_STMTS = 100_000
"""A replicated loop is `F` copies of its body plus a remainder of at most `F` more: real
kernels make hundreds of statements; `stage=10**9` would make 10**8 copies and exhaust memory."""
DEFAULT_MAX_EXPR_DEPTH = 256
"""Deeper than any real index expression. `SLOTSAT_MAX_EXPR_DEPTH` is clamped to
`EXPR_DEPTH_CEILING`; the parser raises Python's recursion limit to walk what it allows."""
EXPR_DEPTH_CEILING = 20_000


def env_int(name: str, default: int) -> int:
    """An integer limit from the environment; an unset, empty or malformed value is the default."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        return default
    return value if value > 0 else default


def env_float(name: str, default: float) -> float:
    """A real-valued limit from the environment, read like `env_int`."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        return default
    return value if value > 0 else default


def egraph_rounds() -> int:
    """Rounds per e-graph schedule (every schedule without a cap of its own)."""
    return env_int("SLOTSAT_EGRAPH_ITERATIONS", DEFAULT_EGRAPH_ROUNDS)


def egraph_schedule_rounds(schedule: str, default: int) -> int:
    """Rounds of the e-graph schedule named `schedule`: `SLOTSAT_CAP_<SCHEDULE>`, else `default`."""
    return env_int(f"SLOTSAT_CAP_{schedule.upper()}", default)


def egraph_rows() -> int:
    return env_int("SLOTSAT_EGRAPH_NODES", DEFAULT_EGRAPH_ROWS)


def egraph_seconds() -> float:
    return env_float("SLOTSAT_EGRAPH_SECONDS", DEFAULT_EGRAPH_SECONDS)


def extract_seconds() -> float:
    return env_float("SLOTSAT_EXTRACT_SECONDS", DEFAULT_EXTRACT_SECONDS)


def max_expr_depth() -> int:
    return min(env_int("SLOTSAT_MAX_EXPR_DEPTH", DEFAULT_MAX_EXPR_DEPTH), EXPR_DEPTH_CEILING)


@contextlib.contextmanager
def parsing_recursion() -> Iterator[None]:
    """Raise Python's recursion limit (never lower it) so the parser can walk an expression
    `max_expr_depth()` levels deep (a few frames per level) from any caller's stack."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 6 * max_expr_depth() + 3000))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def max_file_bytes() -> int:
    return env_int("SLOTSAT_MAX_FILE_BYTES", DEFAULT_MAX_FILE_BYTES)


def interp_max_steps() -> int:
    return env_int("SLOTSAT_INTERP_MAX_STEPS", DEFAULT_INTERP_MAX_STEPS)


def interp_max_iterations() -> int:
    return env_int("SLOTSAT_INTERP_MAX_ITERATIONS", DEFAULT_INTERP_MAX_ITERATIONS)


def interp_max_elements() -> int:
    """Elements of tensor data a computing run holds: the tensor parameters held whole together
    (also the random inputs `check` draws), any one tile, and the pages of the parameters
    drawn in pages (`paged.PagedTensor`) that the runs on one input touch."""
    return env_int("SLOTSAT_INTERP_MAX_ELEMENTS", DEFAULT_INTERP_MAX_ELEMENTS)


def privacy_max_iterations() -> int:
    return env_int("SLOTSAT_PRIVACY_MAX_ITERATIONS", DEFAULT_PRIVACY_MAX_ITERATIONS)


def privacy_max_steps() -> int:
    return env_int("SLOTSAT_PRIVACY_MAX_STEPS", DEFAULT_PRIVACY_MAX_STEPS)


def max_replicated_statements() -> int:
    return env_int("SLOTSAT_MAX_REPLICATED_STMTS", DEFAULT_MAX_REPLICATED_STMTS)


def check_file_size(path: str | Path) -> int:
    """The size of `path` in bytes; raises a one-line `SlotsatError` (exit 2) when the file
    is missing, unreadable or larger than `max_file_bytes()`."""
    try:
        size = os.stat(path).st_size
    except OSError as err:
        raise SlotsatError(f"cannot read the file: {err.strerror or err}", Span(1, 1),
                           file=str(path)) from None
    limit = max_file_bytes()
    if size > limit:
        raise SlotsatError(f"the file is {size} bytes; the limit is {limit} bytes "
                           "(set SLOTSAT_MAX_FILE_BYTES to raise it)", Span(1, 1), file=str(path))
    return size


def read_source(path: str | Path) -> str:
    """The text of a kernel or MLIR file, after the size check; a file that is not UTF-8 is
    a one-line error at the first bad byte (exit 2)."""
    check_file_size(path)
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise SlotsatError(f"cannot read the file: {err.strerror or err}", Span(1, 1),
                           file=str(path)) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        before = data[: err.start]
        line = before.count(b"\n") + 1
        col = err.start - (before.rfind(b"\n") + 1) + 1
        raise SlotsatError(f"the file is not valid UTF-8 (byte 0x{data[err.start]:02x})", Span(line, col),
                           file=str(path)) from None


def recursion_limit() -> int:
    return min(env_int("SLOTSAT_RECURSION_LIMIT", DEFAULT_RECURSION_LIMIT), RECURSION_CEILING)


@contextlib.contextmanager
def deep_recursion(what: str = "the program", span: Span = NO_SPAN) -> Iterator[None]:
    """Run a recursive walk over deeply nested IR: raise the interpreter's recursion limit
    to `recursion_limit()` for the duration (never lower it), and turn a `RecursionError`
    into a one-line `SlotsatError` (exit 1) instead of a crash."""
    old = sys.getrecursionlimit()
    new = max(old, recursion_limit())
    sys.setrecursionlimit(new)
    try:
        yield
    except RecursionError:
        raise SlotsatError(f"{what} nests too deeply for slotsat's recursion limit ({new}); "
                           "set SLOTSAT_RECURSION_LIMIT to raise it", span,
                           exit_status=EXIT_REJECTED) from None
    finally:
        sys.setrecursionlimit(old)


__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "EXIT_UNREADABLE",
    "check_file_size",
    "deep_recursion",
    "env_int",
    "max_expr_depth",
    "max_file_bytes",
    "read_source",
]
