"""A pure-Python model of ptoas's slot matcher (`40-ptoas-slot-matcher.md`).

ptoas decides whether two accesses to a multi-buffer region can touch the same slot by
reducing each slot operand to `(symbol + offset) mod M` and comparing. This module models
that matcher exactly, quirks included, over a minimal SSA value graph:

- **Value graph** (§6): `Const`, `Opaque` (induction variables, parameters, block
  arguments) and `Op` (an op result). Every value carries an explicit id; `==` and `hash`
  mean "the same SSA value" (§4, row 2), never structural equality, which is
  `structurally_equal`. `ValueGraph` allocates ids; the emitter records every slot-operand
  chain it emits through it.
- **Finding a slot** (§2): `find_slot` walks back from a tile value through `pto.subview`,
  `pto.treshape` and `pto.bitcast`, at most `HOP_LIMIT` hops, to a `pto.multi_tile_get`.
- **The canonical form** (§3): `slot_form` returns `Unrepresentable`, `ConstantOnly` or
  `Symbolic`: a `remui` is unwrapped, at most `PEEL_LIMIT` constant `addi` / `subi`
  layers are peeled, a peel whose running sum would leave signed 64-bit stops peeling, and
  an inner constant keeps its un-reduced value.
- **Comparison** (§4): `compare` applies the rules of the §4 table in order. What the
  matcher does not recognise (§5) falls out of the form: `remsi`, divisions, casts and
  `select` chains are opaque symbols, compared by SSA identity only.
- **Acceptance** (§7.1): `classify` / `accepted` give the class extraction filters on.
- **Verifiers** (§1): the region-count and constant-slot messages, exact.
- **Evaluator**: `evaluate` computes the modelled `arith` ops exactly (64-bit `index`,
  wrap at the type's width, truncating signed division, unsigned ops on the two's
  complement bit pattern); it is the ground truth of the "pairs resolved" metric (§8) and
  of the differential tests.

`PEEL_LIMIT`, `HOP_LIMIT` and `REMAINDER_OPS` are module constants read at call time, and
`slot_form` / `compare` / `classify` take `remainder_ops`, so a test can model a future
ptoas that also unwraps `remsi` (§6).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Final, Literal, TypeAlias

PEEL_LIMIT: Final = 4
"""Constant `addi` / `subi` layers peeled under a remainder (§3)."""

HOP_LIMIT: Final = 32
"""View hops `find_slot` follows back from a tile value (§2)."""

REMAINDER_OPS: Final[frozenset[str]] = frozenset({"arith.remui"})
"""Remainder ops the matcher unwraps (§3, §5: `arith.remsi` is not one of them)."""

VIEW_OPS: Final[frozenset[str]] = frozenset({"pto.subview", "pto.treshape", "pto.bitcast"})
"""Ops `find_slot` looks through, each to its first operand (the source)."""

MULTI_TILE_GET: Final = "pto.multi_tile_get"

MIN_REGION_COUNT: Final = 2
MAX_REGION_COUNT: Final = 16

INT64_MIN: Final = -(1 << 63)
INT64_MAX: Final = (1 << 63) - 1


# --------------------------------------------------------------------------------------
# The value graph


@dataclass(frozen=True, slots=True, eq=False)
class Const:
    """An `arith.constant` of `type` holding the signed value `value`.

    `id` defaults to the literal itself (`"%c<value>:<type>"`): slotsat hoists and shares
    literals (§7.2), so two constants with one value and type are one SSA value. Whether
    two constants are one value never changes a comparison (§4 compares constants by
    value).
    """

    value: int
    type: str = "index"
    id: int | str = ""

    def __post_init__(self) -> None:
        if self.id == "":
            object.__setattr__(self, "id", f"%c{self.value}:{self.type}")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Const) and other.id == self.id

    def __hash__(self) -> int:
        return hash((Const, self.id))


@dataclass(frozen=True, slots=True, eq=False)
class Opaque:
    """A value the matcher cannot see into: an induction variable, parameter or block argument.

    `id` defaults to `name`: SSA names are unique in a function, so the name is the value.
    `evaluate` reads it from its environment under `name`.
    """

    name: str
    type: str = "index"
    id: int | str = ""

    def __post_init__(self) -> None:
        if self.id == "":
            object.__setattr__(self, "id", self.name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Opaque) and other.id == self.id

    def __hash__(self) -> int:
        return hash((Opaque, self.id))


@dataclass(frozen=True, slots=True, eq=False)
class Op:
    """The result of the op `name` (`"arith.remui"`, `"pto.subview"`, ...) applied to `operands`.

    `result_id` is the SSA identity: two ops with equal operands are different values
    unless their ids agree. `predicate` is `arith.cmpi`'s predicate (`"slt"`, `"eq"`, ...)
    and must be None on every other op. Known ops have their operand count checked.
    """

    name: str
    operands: tuple[Value, ...]
    result_id: int | str
    type: str = "index"
    predicate: str | None = None

    def __post_init__(self) -> None:
        arity = _ARITY.get(self.name)
        if arity is not None and len(self.operands) != arity:
            raise ValueError(f"{self.name} takes {arity} operands, got {len(self.operands)}")
        if self.name == "pto.subview" and not self.operands:
            raise ValueError("pto.subview needs a source operand")
        if self.name == "arith.cmpi":
            if self.predicate not in _CMPI_PREDICATES:
                raise ValueError(f"arith.cmpi needs a predicate in {sorted(_CMPI_PREDICATES)}")
        elif self.predicate is not None:
            raise ValueError(f"{self.name} takes no predicate")

    @property
    def id(self) -> int | str:
        """The SSA identity, `result_id`."""
        return self.result_id

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Op) and other.result_id == self.result_id

    def __hash__(self) -> int:
        return hash((Op, self.result_id))


Value: TypeAlias = Const | Opaque | Op
"""An SSA value. `a == b` means "the same SSA value"."""


class ValueGraph:
    """Builds values with fresh ids; the emitter records each slot-operand chain through one.

    `const` and `opaque` intern (one value per literal, one per name); every `op` call is a
    new SSA value, so two `arith.remui` with equal operands are distinct (§10 S4).
    """

    def __init__(self) -> None:
        self._next_id = 0
        self._consts: dict[tuple[int, str], Const] = {}
        self._opaques: dict[str, Opaque] = {}
        self.ops: list[Op] = []
        """Every op built, in creation order."""

    def const(self, value: int, type: str = "index") -> Const:
        """The shared constant `value : type`."""
        key = (value, type)
        if key not in self._consts:
            self._consts[key] = Const(value, type)
        return self._consts[key]

    def opaque(self, name: str, type: str = "index") -> Opaque:
        """The opaque value named `name`, created on first use; the type must not change."""
        existing = self._opaques.get(name)
        if existing is not None:
            if existing.type != type:
                raise ValueError(f"opaque value {name} has type {existing.type}, not {type}")
            return existing
        value = Opaque(name, type)
        self._opaques[name] = value
        return value

    def op(self, name: str, *operands: Value, type: str | None = None, predicate: str | None = None) -> Op:
        """A new result of `name` over `operands`, with a fresh integer `result_id`.

        Without `type`: `i1` for `arith.cmpi`, the second operand's type for `arith.select`,
        the first operand's type otherwise. Casts need an explicit `type`.
        """
        if type is None:
            if name in _CASTS:
                raise ValueError(f"{name} needs an explicit result type")
            if name == "arith.cmpi":
                type = "i1"
            elif name == "arith.select" and len(operands) == 3:
                type = operands[1].type
            else:
                type = operands[0].type if operands else "index"
        result = Op(name, tuple(operands), self._next_id, type, predicate)
        self._next_id += 1
        self.ops.append(result)
        return result


def structurally_equal(a: Value, b: Value) -> bool:
    """Whether `a` and `b` are the same expression, ignoring op result ids.

    Constants compare by value and type, opaque values by identity (they are leaves), ops by
    name, type, predicate and operands.
    """
    seen: set[tuple[int | str, int | str]] = set()

    def walk(x: Value, y: Value) -> bool:
        if isinstance(x, Const) and isinstance(y, Const):
            return (x.value, x.type) == (y.value, y.type)
        if isinstance(x, Opaque) or isinstance(y, Opaque):
            return x == y
        if not (isinstance(x, Op) and isinstance(y, Op)):
            return False
        if (x.id, y.id) in seen:
            return True
        head_x = (x.name, x.type, x.predicate, len(x.operands))
        head_y = (y.name, y.type, y.predicate, len(y.operands))
        same = head_x == head_y and all(walk(p, q) for p, q in zip(x.operands, y.operands, strict=True))
        if same:
            seen.add((x.id, y.id))
        return same

    return walk(a, b)


def render(v: Value) -> str:
    """A one-line rendering for messages: `remui(addi(%i, 1), 2)`."""
    if isinstance(v, Const):
        return str(v.value)
    if isinstance(v, Opaque):
        return v.name
    short = v.name.removeprefix("arith.")
    if v.predicate is not None:
        short = f"{short} {v.predicate}"
    if v.name in _CASTS:
        short = f"{short}:{v.type}"
    return f"{short}({', '.join(render(o) for o in v.operands)})"


# --------------------------------------------------------------------------------------
# Finding the slot of an access (§2)


def find_slot(tile: Value, *, hop_limit: int | None = None) -> Value | None:
    """The slot operand of the `pto.multi_tile_get` that `tile` is a view of, or None.

    Walks from `tile` to the source of `pto.subview` / `pto.treshape` / `pto.bitcast`,
    following at most `HOP_LIMIT` (or `hop_limit`) such hops: a get behind 32 views is
    found, one behind 33 is not. Any other defining op, or an opaque value (a block
    argument), means no slot.
    """
    limit = HOP_LIMIT if hop_limit is None else hop_limit
    value = tile
    for _ in range(limit + 1):
        if not isinstance(value, Op):
            return None
        if value.name == MULTI_TILE_GET:
            return value.operands[1]
        if value.name not in VIEW_OPS:
            return None
        value = value.operands[0]
    return None


# --------------------------------------------------------------------------------------
# The canonical form (§3)


@dataclass(frozen=True, slots=True)
class Unrepresentable:
    """A remainder whose divisor is not a positive constant: every comparison is unknown."""


@dataclass(frozen=True, slots=True)
class ConstantOnly:
    """`offset mod m`, with no symbol. `offset` is not reduced (§4, first quirk)."""

    offset: int
    m: int


@dataclass(frozen=True, slots=True)
class Symbolic:
    """`(symbol + offset) mod m`; `symbol` compares by SSA identity."""

    symbol: Value
    offset: int
    m: int


SlotForm: TypeAlias = Unrepresentable | ConstantOnly | Symbolic


def _fits_i64(x: int) -> bool:
    return INT64_MIN <= x <= INT64_MAX


def _remainder_set(remainder_ops: AbstractSet[str] | None) -> AbstractSet[str]:
    return REMAINDER_OPS if remainder_ops is None else remainder_ops


def _peel_layer(x: Value) -> tuple[Value, int, int] | None:
    """One peelable layer as (inner, constant, sign): `x + c`, `c + x` -> (x, c, 1);
    `x - c` -> (x, c, -1). `c - x` is not a layer."""
    if not isinstance(x, Op):
        return None
    if x.name == "arith.addi":
        lhs, rhs = x.operands
        if isinstance(rhs, Const):
            return lhs, rhs.value, 1
        if isinstance(lhs, Const):
            return rhs, lhs.value, 1
    if x.name == "arith.subi":
        lhs, rhs = x.operands
        if isinstance(rhs, Const):
            return lhs, rhs.value, -1
    return None


def _peel(x: Value) -> tuple[Value, int]:
    """Peel at most `PEEL_LIMIT` layers, summing their signed constants.

    ptoas rejects constants wider than 64 bits and checks the running sum in 128-bit
    arithmetic: a layer whose constant or new sum leaves signed 64-bit stops the peel, and
    that layer becomes the symbol.
    """
    offset = 0
    for _ in range(PEEL_LIMIT):
        layer = _peel_layer(x)
        if layer is None:
            break
        inner, constant, sign = layer
        if not _fits_i64(constant) or not _fits_i64(offset + sign * constant):
            break
        x, offset = inner, offset + sign * constant
    return x, offset


def slot_form(v: Value, n: int, *, remainder_ops: AbstractSet[str] | None = None) -> SlotForm:
    """The §3 reduction of slot operand `v` for a region of `n` slots.

    1. `v = remui(X, C)`: unrepresentable unless `C` is a constant in `(0, INT64_MAX]`;
       else `M = C` and up to `PEEL_LIMIT` constant layers are peeled from `X`. A constant
       remainder gives `ConstantOnly(constant + peeled sum, C)`, un-reduced (an exact sum
       outside int64 is unrepresentable); anything else is the symbol.
    2. `v` a constant: `ConstantOnly(value, n)`.
    3. otherwise `Symbolic(v, 0, n)`: nothing is peeled.

    `remainder_ops` replaces `REMAINDER_OPS` as the set of ops case 1 unwraps.
    """
    if n < 0:
        raise ValueError(f"region count must be non-negative, got {n}")
    if isinstance(v, Op) and v.name in _remainder_set(remainder_ops):
        dividend, divisor = v.operands
        if not isinstance(divisor, Const) or not 0 < divisor.value <= INT64_MAX:
            return Unrepresentable()
        rest, offset = _peel(dividend)
        if isinstance(rest, Const):
            total = rest.value + offset
            return ConstantOnly(total, divisor.value) if _fits_i64(total) else Unrepresentable()
        return Symbolic(rest, offset, divisor.value)
    if isinstance(v, Const):
        return ConstantOnly(v.value, n)
    return Symbolic(v, 0, n)


# --------------------------------------------------------------------------------------
# Comparing two slot operands (§4)


class Relation(enum.Enum):
    """The matcher's answer; only DISJOINT lets ptoas drop a dependency (§2)."""

    EQUAL = "equal"
    DISJOINT = "disjoint"
    UNKNOWN = "unknown"


def _by_residue(offset_a: int, offset_b: int, n: int) -> Relation:
    return Relation.EQUAL if offset_a % n == offset_b % n else Relation.DISJOINT


def compare(
    a: Value | None, b: Value | None, n: int, *, remainder_ops: AbstractSet[str] | None = None
) -> Relation:
    """Whether slot operands `a` and `b` of a region with `n` slots name the same slot (§4).

    The first rule that applies decides: a missing operand or `n == 0` is unknown; one SSA
    value is equal; an unrepresentable form is unknown; with some `M != n`, two constant
    forms compare `offset mod n` (the un-reduced offset) and anything else is unknown; two
    constants compare mod `n`; constant against symbol is unknown; two symbolic forms are
    unknown unless they share the symbol, then `(offset_a - offset_b) mod n` decides. A bare
    symbol compares by offset against a `remui` form of itself (§4, second quirk).
    """
    if n < 0:
        raise ValueError(f"region count must be non-negative, got {n}")
    if a is None or b is None or n == 0:
        return Relation.UNKNOWN
    if a == b:
        return Relation.EQUAL
    form_a = slot_form(a, n, remainder_ops=remainder_ops)
    form_b = slot_form(b, n, remainder_ops=remainder_ops)
    if isinstance(form_a, Unrepresentable) or isinstance(form_b, Unrepresentable):
        return Relation.UNKNOWN
    if isinstance(form_a, ConstantOnly) and isinstance(form_b, ConstantOnly):
        # Both the `M != n` row and the both-constant row compare the offsets mod n.
        return _by_residue(form_a.offset, form_b.offset, n)
    if form_a.m != n or form_b.m != n:
        return Relation.UNKNOWN
    if isinstance(form_a, Symbolic) and isinstance(form_b, Symbolic) and form_a.symbol == form_b.symbol:
        return _by_residue(form_a.offset, form_b.offset, n)
    return Relation.UNKNOWN


# --------------------------------------------------------------------------------------
# Extraction acceptance (§7.1)


class MatcherClass(enum.Enum):
    """How the matcher sees a candidate slot-operand form (§7.1)."""

    PEELABLE = "peelable"
    BARE = "bare"
    OPAQUE = "opaque"
    MISMATCHED = "mismatched"
    UNREPRESENTABLE = "unrepresentable"


def classify(
    v: Value,
    n: int,
    interval: tuple[int, int] | None,
    *,
    remainder_ops: AbstractSet[str] | None = None,
) -> MatcherClass:
    """The §7.1 class of slot operand `v` for a region of `n` slots.

    `interval` is the caller's inclusive `[lo, hi]` bound on `v` (None: unknown); only a
    case-3 form uses it, and it is `BARE` when the interval lies within `[0, n)`.

    - remainder, divisor not a positive constant: `UNREPRESENTABLE`;
    - remainder with `C != n`: `MISMATCHED`;
    - remainder with `C == n`: `PEELABLE` when peeling ends at a symbol that is not itself a
      peelable layer (or at a constant), `OPAQUE` when the peel limit or the 64-bit check
      cut it off;
    - constant: `PEELABLE` in `[0, n)`, else `UNREPRESENTABLE` (ptoas's verifier rejects it);
    - anything else: `BARE` or `OPAQUE` by the interval.
    """
    if interval is not None and interval[0] > interval[1]:
        raise ValueError(f"empty interval {interval}")
    if isinstance(v, Op) and v.name in _remainder_set(remainder_ops):
        form = slot_form(v, n, remainder_ops=remainder_ops)
        if isinstance(form, Unrepresentable):
            return MatcherClass.UNREPRESENTABLE
        if form.m != n:
            return MatcherClass.MISMATCHED
        if isinstance(form, Symbolic) and _peel_layer(form.symbol) is not None:
            return MatcherClass.OPAQUE
        return MatcherClass.PEELABLE
    if isinstance(v, Const):
        return MatcherClass.PEELABLE if 0 <= v.value < n else MatcherClass.UNREPRESENTABLE
    if interval is not None and 0 <= interval[0] and interval[1] < n:
        return MatcherClass.BARE
    return MatcherClass.OPAQUE


def accepted(cls: MatcherClass) -> bool:
    """Whether extraction may choose a form of class `cls` (§7.1): peelable or bare."""
    return cls in (MatcherClass.PEELABLE, MatcherClass.BARE)


# --------------------------------------------------------------------------------------
# Verifiers (§1)


class VerifierError(ValueError):
    """A ptoas verifier diagnostic; the message is ptoas's, exact."""


CountSite: TypeAlias = Literal["type", "alloc"]


def region_count_error(n: int, site: CountSite = "type") -> str | None:
    """ptoas's message for region count `n`, or None when `2 <= n <= 16`.

    `site="type"` is the `!pto.multi_tile_buf` type verifier (two messages), `"alloc"` the
    `pto.alloc_multi_tile` op verifier (one message).
    """
    if MIN_REGION_COUNT <= n <= MAX_REGION_COUNT:
        return None
    if site == "alloc":
        return f"multi_tile_buf count must be in [{MIN_REGION_COUNT}, {MAX_REGION_COUNT}] (got {n})"
    if n < MIN_REGION_COUNT:
        return f"multi_tile_buf count must be >= {MIN_REGION_COUNT} (got {n})"
    return f"multi_tile_buf count must be <= {MAX_REGION_COUNT} (got {n})"


def check_region_count(n: int, site: CountSite = "type") -> None:
    """Raise `VerifierError` with `region_count_error(n, site)` when there is one."""
    message = region_count_error(n, site)
    if message is not None:
        raise VerifierError(message)


def constant_slot_error(k: int, n: int) -> str | None:
    """ptoas's message for a `pto.multi_tile_get` with constant slot `k` on `count=n`, or None."""
    if 0 <= k < n:
        return None
    return f"constant slot {k} is out of range for multi_tile_buf count={n}"


def check_constant_slot(k: int, n: int) -> None:
    """Raise `VerifierError` with `constant_slot_error(k, n)` when there is one."""
    message = constant_slot_error(k, n)
    if message is not None:
        raise VerifierError(message)


# --------------------------------------------------------------------------------------
# The exact evaluator


class UndefinedBehavior(ArithmeticError):
    """An evaluated op has no defined result: division by zero, `MIN / -1`, an oversized shift."""


_WIDTHS: Final[dict[str, int]] = {"index": 64, "i64": 64, "i32": 32, "i16": 16, "i8": 8, "i1": 1}

_CMPI_PREDICATES: Final = frozenset({"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"})

_SIGN_EXTENDING_CASTS: Final = frozenset({"arith.index_cast", "arith.extsi", "arith.trunci"})
_ZERO_EXTENDING_CASTS: Final = frozenset({"arith.index_castui", "arith.extui"})
_CASTS: Final = _SIGN_EXTENDING_CASTS | _ZERO_EXTENDING_CASTS


def _width(type: str) -> int:
    width = _WIDTHS.get(type)
    if width is None:
        raise ValueError(f"cannot evaluate values of type {type}")
    return width


def _unsigned(x: int, width: int) -> int:
    return x & ((1 << width) - 1)


def _signed(x: int, width: int) -> int:
    u = _unsigned(x, width)
    return u - (1 << width) if u >> (width - 1) else u


def _canonical(x: int, type: str) -> int:
    """`x` wrapped to `type`: signed, except `i1`, which is 0 or 1."""
    width = _width(type)
    return _unsigned(x, 1) if width == 1 else _signed(x, width)


def _signed_operands(a: int, b: int, w: int) -> tuple[int, int]:
    sa, sb = _signed(a, w), _signed(b, w)
    if sb == 0:
        raise UndefinedBehavior("signed division by zero")
    if sa == -(1 << (w - 1)) and sb == -1:
        raise UndefinedBehavior("signed division overflow: MIN / -1")
    return sa, sb


def _unsigned_operands(a: int, b: int, w: int) -> tuple[int, int]:
    ua, ub = _unsigned(a, w), _unsigned(b, w)
    if ub == 0:
        raise UndefinedBehavior("unsigned division by zero")
    return ua, ub


def _divsi(a: int, b: int, w: int) -> int:
    sa, sb = _signed_operands(a, b, w)
    quotient = abs(sa) // abs(sb)
    return quotient if (sa < 0) == (sb < 0) else -quotient


def _remsi(a: int, b: int, w: int) -> int:
    sa, sb = _signed_operands(a, b, w)
    return sa - sb * _divsi(a, b, w)


def _floordivsi(a: int, b: int, w: int) -> int:
    sa, sb = _signed_operands(a, b, w)
    return sa // sb


def _ceildivsi(a: int, b: int, w: int) -> int:
    sa, sb = _signed_operands(a, b, w)
    return -(-sa // sb)


def _divui(a: int, b: int, w: int) -> int:
    ua, ub = _unsigned_operands(a, b, w)
    return ua // ub


def _remui(a: int, b: int, w: int) -> int:
    ua, ub = _unsigned_operands(a, b, w)
    return ua % ub


def _ceildivui(a: int, b: int, w: int) -> int:
    ua, ub = _unsigned_operands(a, b, w)
    return -(-ua // ub)


def _shift_amount(b: int, w: int) -> int:
    amount = _unsigned(b, w)
    if amount >= w:
        raise UndefinedBehavior(f"shift by {amount} at width {w}")
    return amount


_BINARY: Final[dict[str, Callable[[int, int, int], int]]] = {
    "arith.addi": lambda a, b, w: a + b,
    "arith.subi": lambda a, b, w: a - b,
    "arith.muli": lambda a, b, w: a * b,
    "arith.divsi": _divsi,
    "arith.remsi": _remsi,
    "arith.floordivsi": _floordivsi,
    "arith.ceildivsi": _ceildivsi,
    "arith.divui": _divui,
    "arith.remui": _remui,
    "arith.ceildivui": _ceildivui,
    "arith.andi": lambda a, b, w: _unsigned(a, w) & _unsigned(b, w),
    "arith.ori": lambda a, b, w: _unsigned(a, w) | _unsigned(b, w),
    "arith.xori": lambda a, b, w: _unsigned(a, w) ^ _unsigned(b, w),
    "arith.shli": lambda a, b, w: a << _shift_amount(b, w),
    "arith.shrui": lambda a, b, w: _unsigned(a, w) >> _shift_amount(b, w),
    "arith.shrsi": lambda a, b, w: _signed(a, w) >> _shift_amount(b, w),
    "arith.maxsi": lambda a, b, w: max(_signed(a, w), _signed(b, w)),
    "arith.minsi": lambda a, b, w: min(_signed(a, w), _signed(b, w)),
    "arith.maxui": lambda a, b, w: max(_unsigned(a, w), _unsigned(b, w)),
    "arith.minui": lambda a, b, w: min(_unsigned(a, w), _unsigned(b, w)),
}

_CMPI: Final[dict[str, Callable[[int, int], bool]]] = {
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b,
}

_ARITY: Final[dict[str, int]] = {
    **dict.fromkeys(_BINARY, 2),
    "arith.cmpi": 2,
    "arith.select": 3,
    **dict.fromkeys(_CASTS, 1),
    "pto.treshape": 1,
    "pto.bitcast": 1,
    MULTI_TILE_GET: 2,
}


def _apply(op: Op, args: list[int]) -> int:
    if op.name in _BINARY:
        width = _width(op.operands[0].type)
        return _canonical(_BINARY[op.name](args[0], args[1], width), op.type)
    if op.name == "arith.cmpi":
        assert op.predicate is not None
        width = _width(op.operands[0].type)
        convert = _unsigned if op.predicate.startswith("u") else _signed
        relation = op.predicate if op.predicate in _CMPI else op.predicate[1:]
        return int(_CMPI[relation](convert(args[0], width), convert(args[1], width)))
    if op.name == "arith.select":
        return args[1] if _unsigned(args[0], 1) else args[2]
    if op.name in _SIGN_EXTENDING_CASTS:
        return _canonical(_signed(args[0], _width(op.operands[0].type)), op.type)
    if op.name in _ZERO_EXTENDING_CASTS:
        return _canonical(_unsigned(args[0], _width(op.operands[0].type)), op.type)
    raise ValueError(f"cannot evaluate {op.name}")


def evaluate(v: Value, env: Mapping[str, int]) -> int:
    """The exact value of `v`, with each `Opaque` read from `env` by name.

    Integers wrap at their type's width (`index` is 64-bit). Results are signed, except `i1`
    (0 or 1). `divsi` / `remsi` truncate, `floordivsi` / `ceildivsi` round down / up;
    `divui` / `remui` / `ceildivui`, the `u` comparisons, `shrui`, `minui` / `maxui` and the
    zero-extending casts read the two's-complement bit pattern as unsigned. Raises
    `UndefinedBehavior` for division by zero, `MIN / -1` (and `MIN % -1`) and shifts by the
    width or more, `KeyError` for an opaque value missing from `env` and `ValueError` for
    an op or type the evaluator does not model (`pto.*`, `affine.apply`).
    """
    memo: dict[Value, int] = {}

    def walk(x: Value) -> int:
        if x in memo:
            return memo[x]
        if isinstance(x, Const):
            result = _canonical(x.value, x.type)
        elif isinstance(x, Opaque):
            if x.name not in env:
                raise KeyError(f"no value for {x.name}")
            result = _canonical(env[x.name], x.type)
        else:
            result = _apply(x, [walk(operand) for operand in x.operands])
        memo[x] = result
        return result

    return walk(v)
