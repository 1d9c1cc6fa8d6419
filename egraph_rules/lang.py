"""The index-expression language of the e-graph (`60-egraph-engine.md` §4, §5.1).

Sorts:

- `Loop`: opaque, keyed by a loop's unique key (`Loop("L17")`).
- `Idx`: an integer value of an explicit dtype, wrapping (two's complement) at that dtype.
  Constructors are classmethods: `Idx.const(v, dt)`, `Idx.iv(loop)`, `Idx.var(name, dt)`,
  `Idx.cast(a, dt)` (narrowing keeps the low bits, widening sign-extends), and
  `Idx.divu` / `Idx.remu` (`arith.divui` / `arith.remui`, unioned in only under a proof,
  `slotsat.egraph_rules.lower_arith`). `+ - *` wrap at the operands' dtype; `//` and `%` are
  **floor** division and remainder (Python semantics), distinct from the truncating ops
  that are emitted for them.

Dtype codes (`dt`): the signed dtypes are coded by their bit width (`INT8 = 8` ...
`INT64 = 64`) except `INDEX`, which is `0` (64 bits, spelled `index`): the two are distinct
types in the emitted MLIR, so no rule ever unions an `INDEX` term with an `INT64` one.
Unsigned dtypes (`100 + bits`) only appear on opaque `Idx.var` leaves: no rule looks inside
an unsigned subexpression, and no dtype fact is registered for them.

`width(x)` is the dtype code of `x`, set by the `widths` ruleset (a literal's `dt`, `INDEX`
for an induction variable, a cast's target, the first operand's code for every other
operation). Unions only happen between equal values of equal dtype, so it is well defined
per e-class. The per-dtype facts `bits`, `wmin` / `wmax` (`BigInt`, for interval
arithmetic) and `imin` / `imax` (`i64`, for representability of combined constants) are
registered once per e-graph by `dtype_facts()`.

Loop facts (§5.1): `loop_start`, `loop_stop`, `loop_step` are set only for literal bounds;
the relations `start_runtime`, `stop_runtime`, `step_runtime` state the absence of a
literal (egglog has no negation); `stages` is the pipeline depth.

IR costs (`@method(cost=...)`) serve egglog's own extractor (slots pass); the emission
costs live in `slotsat.egraph_rules.extract`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from egglog import (
    ActionLike,
    BigInt,
    Expr,
    RewriteOrRule,
    String,
    StringLike,
    eq,
    function,
    i64,
    i64Like,
    method,
    relation,
    rule,
    ruleset,
    set_,
)

from slotsat.core.ir import DType

# --------------------------------------------------------------------------------------
# dtype codes

DT_INDEX = 0
DT_INT8 = 8
DT_INT16 = 16
DT_INT32 = 32
DT_INT64 = 64
DT_UNSIGNED_BASE = 100

SIGNED_CODES: dict[DType, int] = {
    DType.INDEX: DT_INDEX,
    DType.INT8: DT_INT8,
    DType.INT16: DT_INT16,
    DType.INT32: DT_INT32,
    DType.INT64: DT_INT64,
}
UNSIGNED_CODES: dict[DType, int] = {
    DType.UINT8: DT_UNSIGNED_BASE + 8,
    DType.UINT16: DT_UNSIGNED_BASE + 16,
    DType.UINT32: DT_UNSIGNED_BASE + 32,
    DType.UINT64: DT_UNSIGNED_BASE + 64,
}
CODE_DTYPE: dict[int, DType] = {v: k for k, v in (SIGNED_CODES | UNSIGNED_CODES).items()}


def dt_code(dtype: DType) -> int:
    """The dtype code of an integer dtype (`ValueError` for any other)."""
    if dtype in SIGNED_CODES:
        return SIGNED_CODES[dtype]
    if dtype in UNSIGNED_CODES:
        return UNSIGNED_CODES[dtype]
    raise ValueError(f"no e-graph dtype code for {dtype.name}")


def code_dtype(code: int) -> DType:
    return CODE_DTYPE[code]


def is_signed_code(code: int) -> bool:
    return code in (DT_INDEX, DT_INT8, DT_INT16, DT_INT32, DT_INT64)


# --------------------------------------------------------------------------------------
# sorts


class Loop(Expr):
    """A loop, keyed by its unique key."""

    def __init__(self, key: StringLike) -> None: ...


class Idx(Expr):
    """A signed integer value of an explicit dtype (see the module docstring)."""

    @method(cost=0)
    @classmethod
    def const(cls, value: i64Like, dt: i64Like) -> Idx: ...

    @method(cost=0)
    @classmethod
    def iv(cls, loop: Loop) -> Idx: ...

    @method(cost=0)
    @classmethod
    def var(cls, name: StringLike, dt: i64Like) -> Idx: ...

    @method(cost=1)
    def __add__(self, other: Idx) -> Idx: ...

    @method(cost=1)
    def __sub__(self, other: Idx) -> Idx: ...

    @method(cost=1)
    def __mul__(self, other: Idx) -> Idx: ...

    @method(cost=1)
    def __floordiv__(self, other: Idx) -> Idx: ...

    @method(cost=1)
    def __mod__(self, other: Idx) -> Idx: ...

    @method(cost=1)
    @classmethod
    def cast(cls, a: Idx, dt: i64Like) -> Idx: ...

    @method(cost=1)
    @classmethod
    def divu(cls, a: Idx, b: Idx) -> Idx: ...

    @method(cost=1)
    @classmethod
    def remu(cls, a: Idx, b: Idx) -> Idx: ...


# --------------------------------------------------------------------------------------
# facts


@function
def loop_start(loop: Loop) -> i64: ...


@function
def loop_stop(loop: Loop) -> i64: ...


@function
def loop_step(loop: Loop) -> i64: ...


@function
def stages(loop: Loop) -> i64: ...


start_runtime = relation("start_runtime", Loop)
stop_runtime = relation("stop_runtime", Loop)
step_runtime = relation("step_runtime", Loop)


@function
def width(x: Idx) -> i64: ...


@function
def bits(dt: i64Like) -> i64: ...


@function
def wmin(dt: i64Like) -> BigInt: ...


@function
def wmax(dt: i64Like) -> BigInt: ...


@function
def imin(dt: i64Like) -> i64: ...


@function
def imax(dt: i64Like) -> i64: ...


def dtype_facts() -> list[ActionLike]:
    """`bits`, `wmin`, `wmax`, `imin`, `imax` for the five signed dtype codes."""
    facts: list[ActionLike] = []
    for dtype, code in SIGNED_CODES.items():
        lo, hi = dtype.min_value, dtype.max_value
        facts += [
            set_(bits(i64(code))).to(i64(dtype.bits)),
            set_(wmin(i64(code))).to(BigInt(lo)),
            set_(wmax(i64(code))).to(BigInt(hi)),
            set_(imin(i64(code))).to(i64(lo)),
            set_(imax(i64(code))).to(i64(hi)),
        ]
    return facts


# --------------------------------------------------------------------------------------
# the rule registry


@dataclass(frozen=True)
class RuleInfo:
    """A named rule: its ruleset, its kind and its one-line algebra (with the guard).

    `kind` says what the soundness suite proves: `rewrite` (both sides equal under the
    guard), `proof` (the value is `>= 0`), `bound` (the value lies in the bounds set),
    `typing` (the width analysis: type information, nothing to prove).
    """

    name: str
    ruleset: str
    kind: str
    algebra: str


RULES: dict[str, RuleInfo] = {}
"""Every named rule of every ruleset, by name (the keys of a run report's matches)."""


def rname(ruleset_name: str, kind: str, name: str, algebra: str) -> str:
    """Register rule `name` and return it (for `rule(..., name=...)`)."""
    if name in RULES and RULES[name] != RuleInfo(name, ruleset_name, kind, algebra):
        raise ValueError(f"rule name {name} registered twice")
    RULES[name] = RuleInfo(name, ruleset_name, kind, algebra)
    return name


# --------------------------------------------------------------------------------------
# the width analysis

widths = ruleset(name="widths")


def _binary_ops() -> tuple[tuple[str, Callable[[Idx, Idx], Idx]], ...]:
    return (
        ("add", lambda a, b: a + b),
        ("sub", lambda a, b: a - b),
        ("mul", lambda a, b: a * b),
        ("floordiv", lambda a, b: a // b),
        ("floormod", lambda a, b: a % b),
        ("divu", Idx.divu),
        ("remu", Idx.remu),
    )


@widths.register
def _widths(a: Idx, b: Idx, v: i64, dt: i64, n: String, lp: Loop, w: i64) -> Iterable[RewriteOrRule]:  # noqa: PLR0917
    """`width(x)`: a literal's / variable's / cast's own code, INDEX for an induction variable,
    and the first operand's code for every other operation."""

    def nm(name: str, algebra: str) -> str:
        return rname("widths", "typing", name, algebra)

    yield rule(e := Idx.const(v, dt), name=nm("width_const", "width(const(v, dt)) = dt")).then(
        set_(width(e)).to(dt)
    )
    yield rule(e := Idx.var(n, dt), name=nm("width_var", "width(var(n, dt)) = dt")).then(
        set_(width(e)).to(dt)
    )
    yield rule(e := Idx.iv(lp), name=nm("width_iv", "width(iv(l)) = INDEX")).then(
        set_(width(e)).to(i64(DT_INDEX))
    )
    yield rule(e := Idx.cast(a, dt), name=nm("width_cast", "width(cast(a, dt)) = dt")).then(
        set_(width(e)).to(dt)
    )
    for op_name, op in _binary_ops():
        yield rule(
            e := op(a, b),
            eq(w).to(width(a)),
            name=nm(f"width_{op_name}", f"width({op_name}(a, b)) = width(a)"),
        ).then(set_(width(e)).to(w))
