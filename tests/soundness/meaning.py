"""What the e-graph's sorts, constructors, analyses and facts mean: the specification the
obligations of `tests/soundness/derive.py` are stated against.

This table is the only hand-written part of the soundness suite, and it says what each
symbol *means*, never what a rule does (Alive2 writes LLVM's semantics once, not one per
optimization). Every egglog function or constructor a rule uses must appear here; one that
does not makes the rule untranslatable, which fails the suite naming the rule.

Index language (`slotsat.egraph_rules.lang`):

- an `Idx` e-class holds one value of one dtype (a `Dtype` constant; the suite numbers them,
  `code_of` / `dtype_of_code`), a two's complement number
  of that dtype's bit width, or no value at all where an operation inside is outside its
  valid inputs (division by zero, `MIN // -1`: `slotsat.core.semantics`). Binary operations
  take and give their operands' dtype (the insertion contract of `lang`, which only builds
  well-typed terms); `cast` truncates or sign-extends; `//` and `%` are floor operations;
  `divu` / `remu` read the bit patterns unsigned; `divs` / `rems` truncate (`arith.divsi` /
  `arith.remsi`: the remainder takes the dividend's sign, no value by 0 or for MIN by -1);
- `Idx.const(v, dt)` denotes `v`, which fits `dt` (an invariant: inserted literals are
  reduced to their dtype, and every rule that builds a literal must show it fits);
- `Idx.var(n, dt)` is an arbitrary value of `dt`; `Idx.iv(l)` is loop `l`'s induction
  variable, an `INDEX` value at some iteration `j >= 0`: `iv = start + j * step` exactly,
  and `iv < stop` for a positive step, `iv > stop` for a negative one (`scf.for`).

Analyses and facts:

- `width(x)`: the `Dtype` of `x` (typing, checked statically);
- `bits`, `wmin`, `wmax`, `imin`, `imax`: the dtype's width and signed range
  (`slotsat.core.ir.DType`);
- `nonneg_syn(x)`, `nonneg(x)`: `x >= 0` wherever `x` has a value;
- `lo(x) = L`, `hi(x) = H`: `L <= x`, `x <= H` wherever `x` has a value (exact integers);
- `Loop(k)`: the loop keyed `k`; `loop_start/stop/step(l) = v`: the loop's bound is the
  literal `v`; `*_runtime(l)`: that bound is not a literal; `ascending(l)`: the step is a
  literal `> 0` (`slotsat.egraph_rules.loops.loop_facts`); `stages(l) = F`: the loop's
  pipeline depth;
- `candidate(t, l)`: tile `t` is a slot candidate of loop `l` (of that loop only);
- `slot_of(t)`: the `INDEX` slot tile `t` uses at its loop's iteration `j`: `j mod F`, for
  `F > 0`;
- `ok(l)`: an AND-lattice. After the gates saturate, `ok(l) = True` holds exactly when a rule
  seeding it (`:= True`) matched and no rule declining it (`:= False`) did: the completion of
  the rules that write it (`derive.Translator.completion`). `:= True` alone claims nothing,
  `:= False` claims the loop is not eligible;
- `alias_edge(v, s)`, `reaches(v, s)`: `v` and `s` share one buffer; `phi_root(r)`,
  `inherit_root(r)`: some tile sharing `r`'s buffer is read by a phi / an inheriting op;
  `phi_via(r, v)`, `inherit_via(r, v)`: tile `v`, sharing `r`'s buffer, is that read;
- `tile_var`, `tile_space_bad`, `tile_shape_bad`, `phi_read`, `inherit_read`, `encloses`,
  `capacity_declined`, `candidate_count`, `holds_tpush`, `holds_tpop`: structural facts
  inserted by Python, uninterpreted;
- `declined_by`, `decline_rank`, `declined_tile`, `declined_under`: reports (what the pass's
  message names), no content.

`Tile(k)` is the tile binder keyed `k`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from egglog import declarations as d

from slotsat.core.ir import DType
from slotsat.egraph_rules import gates, intervals, lang, loops, slotize, syntactic

Ref = d.CallableRef


def ref(fn: Any) -> Ref:
    """The declaration reference of an egglog function, method or class constructor."""
    tp = getattr(fn, "__egg_tp__", None)
    if tp is not None:
        return d.InitRef(tp.ident)
    r = fn.__egg_ref__
    assert isinstance(r, d.MethodRef | d.ClassMethodRef | d.FunctionRef | d.InitRef), r
    return r


# -- dtypes ------------------------------------------------------------------------------

DTYPES: tuple[DType, ...] = lang.INT_DTYPES
"""Every `Dtype` constant, numbered by its position (the suite's dtype code)."""
SIGNED_CODES: tuple[int, ...] = tuple(DTYPES.index(dt) for dt in lang.SIGNED_DTYPES)
"""The dtype codes an `Idx` operation can carry (unsigned dtypes only reach opaque leaves)."""
DTYPE_SORT = "Dtype"


def dtype_of_code(code: int) -> DType:
    return DTYPES[code]


def code_of(dt: DType) -> int:
    return DTYPES.index(dt)


def code_of_constant(e: d.ExprDecl) -> int | None:
    """The code of a `Dtype.NAME` constant, else None."""
    if isinstance(e, d.CallDecl) and isinstance(e.callable, d.ClassVariableRef) and not e.args:
        if e.callable.ident.name == DTYPE_SORT:
            return code_of(lang.dtype_of(e.callable.var_name))
    return None


def bits_of(code: int) -> int:
    return dtype_of_code(code).bits


DTYPE_FACTS: dict[Ref, str] = {
    ref(lang.bits): "bits",
    ref(lang.wmin): "wmin",
    ref(lang.wmax): "wmax",
    ref(lang.imin): "imin",
    ref(lang.imax): "imax",
}


def dtype_fact(field: str, code: int) -> int:
    dt = dtype_of_code(code)
    return {
        "bits": dt.bits,
        "wmin": dt.min_value,
        "wmax": dt.max_value,
        "imin": dt.min_value,
        "imax": dt.max_value,
    }[field]


BIG_FACTS = frozenset({"wmin", "wmax"})
"""Dtype facts of sort `BigInt` (the others are `i64`)."""

# -- the index language ----------------------------------------------------------------------

IDX_SORT = "Idx"
CONSTRUCTORS: dict[Ref, str] = {
    ref(lang.Idx.const): "const",
    ref(lang.Idx.var): "var",
    ref(lang.Idx.iv): "iv",
    ref(lang.Idx.__add__): "add",
    ref(lang.Idx.__sub__): "sub",
    ref(lang.Idx.__mul__): "mul",
    ref(lang.Idx.__floordiv__): "floordiv",
    ref(lang.Idx.__mod__): "floormod",
    ref(lang.Idx.cast): "cast",
    ref(lang.Idx.divu): "divu",
    ref(lang.Idx.remu): "remu",
    ref(lang.Idx.divs): "divs",
    ref(lang.Idx.rems): "rems",
}
BINARY = frozenset({"add", "sub", "mul", "floordiv", "floormod", "divu", "remu", "divs", "rems"})
DTYPE_ARG = {"const": 1, "var": 1, "cast": 1}
"""Constructors with an explicit dtype argument, and its position."""
IV_CODE = code_of(DType.INDEX)
"""An induction variable is an `INDEX` value."""

# -- loops and tiles ----------------------------------------------------------------------------

LOOP_BY_KEY = ref(loops.Loop)
TILE_BY_KEY = ref(gates.Tile)
LOOP_SORTS = frozenset({"Loop"})
TILE_SORTS = frozenset({"Tile"})


@dataclass(frozen=True)
class Meaning:
    kind: str
    arg: str = ""


FUNCTIONS: dict[Ref, Meaning] = {
    ref(lang.width): Meaning("width"),
    ref(intervals.lo): Meaning("lower_bound"),
    ref(intervals.hi): Meaning("upper_bound"),
    ref(syntactic.nonneg_syn): Meaning("nonneg"),
    ref(intervals.nonneg): Meaning("nonneg"),
    ref(loops.loop_start): Meaning("loop_field", "start"),
    ref(loops.loop_stop): Meaning("loop_field", "stop"),
    ref(loops.loop_step): Meaning("loop_field", "step"),
    ref(loops.stages): Meaning("loop_field", "stages"),
    ref(loops.start_runtime): Meaning("runtime", "start"),
    ref(loops.stop_runtime): Meaning("runtime", "stop"),
    ref(loops.step_runtime): Meaning("runtime", "step"),
    ref(loops.ascending): Meaning("ascending"),
    ref(gates.candidate): Meaning("candidate"),
    ref(slotize.slot_of): Meaning("rotation_slot"),
    ref(gates.ok): Meaning("eligible"),
    ref(gates.alias_edge): Meaning("same_buffer"),
    ref(gates.reaches): Meaning("same_buffer"),
    ref(gates.phi_root): Meaning("read_root", "phi_read"),
    ref(gates.inherit_root): Meaning("read_root", "inherit_read"),
    ref(gates.phi_via): Meaning("read_via", "phi_read"),
    ref(gates.inherit_via): Meaning("read_via", "inherit_read"),
    ref(gates.holds_tpush): Meaning("opaque", "holds_tpush"),
    ref(gates.holds_tpop): Meaning("opaque", "holds_tpop"),
    ref(gates.candidate_count): Meaning("opaque_value", "candidate_count"),
    ref(gates.tile_var): Meaning("opaque", "tile_var"),
    ref(gates.tile_space_bad): Meaning("opaque", "tile_space_bad"),
    ref(gates.tile_shape_bad): Meaning("opaque", "tile_shape_bad"),
    ref(gates.phi_read): Meaning("opaque", "phi_read"),
    ref(gates.inherit_read): Meaning("opaque", "inherit_read"),
    ref(gates.encloses): Meaning("opaque", "encloses"),
    ref(gates.capacity_declined): Meaning("opaque", "capacity_declined"),
    ref(gates.declined_by): Meaning("report"),
    ref(gates.declined_tile): Meaning("report"),
    ref(gates.declined_under): Meaning("report"),
    ref(gates.decline_rank): Meaning("report"),
}
SLOT_CODE = code_of(DType.INDEX)
"""`slot_of(t)` is an `INDEX` value."""
