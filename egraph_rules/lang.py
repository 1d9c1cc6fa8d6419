"""The index-expression language of the e-graph (`60-egraph-engine.md` §4, §5.1).

Sorts:

- `Loop` (`slotsat.egraph_rules.loops`): a loop, with its one fact schema.
- `Idx`: an integer value of an explicit dtype, wrapping (two's complement) at that dtype.
  Constructors are classmethods: `Idx.const(v, dt)`, `Idx.iv(loop)`, `Idx.var(name, dt)`,
  `Idx.cast(a, dt)` (narrowing keeps the low bits, widening extends the operand's value:
  a signed operand is sign-extended, an unsigned one, always an opaque leaf, zero-extended), and
  `Idx.divu` / `Idx.remu` (`arith.divui` / `arith.remui`) and `Idx.divs` / `Idx.rems`
  (`arith.divsi` / `arith.remsi`), the lowering alternatives a rule unions in only under a
  proof (`slotsat.egraph_rules.lower_arith`). `+ - *` wrap at the operands' dtype; `//` and
  `%` are **floor** division and remainder (Python semantics), distinct from the truncating
  ops that are emitted for them.

Dtypes are the sort `Dtype`, one nullary constant per integer `ir.DType` of the same name
(`Dtype.INDEX`, `Dtype.INT32`, `Dtype.UINT8`, ...; `DTYPE` / `dtype_of` translate). `INDEX`
and `INT64` are distinct constants: they are distinct types in the emitted MLIR, so no rule
ever unions an `INDEX` term with an `INT64` one. Unsigned dtypes only appear on opaque
`Idx.var` leaves: no rule looks inside an unsigned subexpression, and no arithmetic fact is
registered for them.

`width(x)` is the `Dtype` of `x`, unioned in by the `widths` ruleset (a literal's dtype,
`INDEX` for an induction variable, a cast's target, the first operand's dtype for every
other operation). Unions only happen between equal values of equal dtype, so it is well
defined per e-class. The per-dtype facts `bits`, `wmin` / `wmax` (`BigInt`, for interval
arithmetic) and `imin` / `imax` (`i64`, for representability of combined constants) are
registered once per e-graph by `dtype_facts()`, with `spelling` (the MLIR type, distinct for
every dtype): were two dtypes ever unioned, the conflicting `spelling` rows would abort the
run instead of silently identifying two types.

IR costs (`@method(cost=...)`) serve egglog's own extractor (slots pass); the emission
costs live in `slotsat.egraph_rules.extract`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import ClassVar

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
    rule,
    ruleset,
    set_,
    union,
)

from slotsat.core import ir
from slotsat.egraph_rules.calls import Call
from slotsat.egraph_rules.loops import Loop

# --------------------------------------------------------------------------------------
# sorts


class Dtype(Expr):
    """An integer dtype: one constant per integer `ir.DType`, of the same name."""

    INDEX: ClassVar[Dtype]
    INT8: ClassVar[Dtype]
    INT16: ClassVar[Dtype]
    INT32: ClassVar[Dtype]
    INT64: ClassVar[Dtype]
    UINT8: ClassVar[Dtype]
    UINT16: ClassVar[Dtype]
    UINT32: ClassVar[Dtype]
    UINT64: ClassVar[Dtype]


SIGNED_DTYPES: tuple[ir.DType, ...] = (
    ir.DType.INDEX,
    ir.DType.INT8,
    ir.DType.INT16,
    ir.DType.INT32,
    ir.DType.INT64,
)
"""The dtypes whose arithmetic the rules see (`Idx` operations exist at these only)."""
INT_DTYPES: tuple[ir.DType, ...] = tuple(d for d in ir.DType if d.is_int_arith)

DTYPE: dict[ir.DType, Dtype] = {d: getattr(Dtype, d.name) for d in INT_DTYPES}
"""The `Dtype` constant of every integer `ir.DType`."""


def dtype_of(name: str) -> ir.DType:
    """The `ir.DType` of a `Dtype` constant, by the constant's name (`"INDEX"`, `"Dtype.INDEX"`)."""
    dtype = ir.DType[name.rpartition(".")[2]]
    if dtype not in DTYPE:
        raise ValueError(f"{name} is not a Dtype constant")
    return dtype


class Idx(Expr):
    """A signed integer value of an explicit dtype (see the module docstring)."""

    @method(cost=0)
    @classmethod
    def const(cls, value: i64Like, dt: Dtype) -> Idx: ...

    @method(cost=0)
    @classmethod
    def iv(cls, loop: Loop) -> Idx: ...

    @method(cost=0)
    @classmethod
    def var(cls, name: StringLike, dt: Dtype) -> Idx: ...

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
    def cast(cls, a: Idx, dt: Dtype) -> Idx: ...

    @method(cost=1)
    @classmethod
    def divu(cls, a: Idx, b: Idx) -> Idx: ...

    @method(cost=1)
    @classmethod
    def remu(cls, a: Idx, b: Idx) -> Idx: ...

    @method(cost=1)
    @classmethod
    def divs(cls, a: Idx, b: Idx) -> Idx: ...

    @method(cost=1)
    @classmethod
    def rems(cls, a: Idx, b: Idx) -> Idx: ...


SYMBOLS: dict[str, object] = {
    "const": Idx.const,
    "iv": Idx.iv,
    "var": Idx.var,
    "add": Idx.__add__,
    "sub": Idx.__sub__,
    "mul": Idx.__mul__,
    "floordiv": Idx.__floordiv__,
    "floormod": Idx.__mod__,
    "cast": Idx.cast,
    "divu": Idx.divu,
    "remu": Idx.remu,
    "divs": Idx.divs,
    "rems": Idx.rems,
    **{f"Dtype.{d.name}": c for d, c in DTYPE.items()},
}
"""The index language's constructors by symbol (`slotsat.egraph_rules.calls`): `Idx` ones by
the kind names of the export view, `Dtype` constants as `Dtype.<NAME>`."""


def dtype_ref(d: ir.DType) -> Call:
    """The `Dtype` constant of an integer dtype as a call."""
    return Call(f"Dtype.{d.name}")


# --------------------------------------------------------------------------------------
# dtype facts


@function(unextractable=True)
def width(x: Idx) -> Dtype: ...


@function
def bits(dt: Dtype) -> i64: ...


@function
def wmin(dt: Dtype) -> BigInt: ...


@function
def wmax(dt: Dtype) -> BigInt: ...


@function
def imin(dt: Dtype) -> i64: ...


@function
def imax(dt: Dtype) -> i64: ...


@function
def spelling(dt: Dtype) -> String: ...


def dtype_facts() -> list[ActionLike]:
    """`bits`, `wmin`, `wmax`, `imin`, `imax` for the signed dtypes; `spelling` for every dtype."""
    facts: list[ActionLike] = [set_(spelling(DTYPE[d])).to(String(d.mlir)) for d in INT_DTYPES]
    for d in SIGNED_DTYPES:
        dt = DTYPE[d]
        facts += [
            set_(bits(dt)).to(i64(d.bits)),
            set_(wmin(dt)).to(BigInt(d.min_value)),
            set_(wmax(dt)).to(BigInt(d.max_value)),
            set_(imin(dt)).to(i64(d.min_value)),
            set_(imax(dt)).to(i64(d.max_value)),
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
        ("divs", Idx.divs),
        ("rems", Idx.rems),
    )


@widths.register
def _widths(a: Idx, b: Idx, v: i64, dt: Dtype, n: String, lp: Loop, w: Dtype) -> Iterable[RewriteOrRule]:  # noqa: PLR0917
    """`width(x)`: a literal's / variable's / cast's own dtype, INDEX for an induction
    variable, and the first operand's dtype for every other operation."""

    def nm(name: str, algebra: str) -> str:
        return rname("widths", "typing", name, algebra)

    yield rule(e := Idx.const(v, dt), name=nm("width_const", "width(const(v, dt)) = dt")).then(
        union(width(e)).with_(dt)
    )
    yield rule(e := Idx.var(n, dt), name=nm("width_var", "width(var(n, dt)) = dt")).then(
        union(width(e)).with_(dt)
    )
    yield rule(e := Idx.iv(lp), name=nm("width_iv", "width(iv(l)) = INDEX")).then(
        union(width(e)).with_(Dtype.INDEX)
    )
    yield rule(e := Idx.cast(a, dt), name=nm("width_cast", "width(cast(a, dt)) = dt")).then(
        union(width(e)).with_(dt)
    )
    for op_name, op in _binary_ops():
        yield rule(
            e := op(a, b),
            eq(w).to(width(a)),
            name=nm(f"width_{op_name}", f"width({op_name}(a, b)) = width(a)"),
        ).then(union(width(e)).with_(w))
