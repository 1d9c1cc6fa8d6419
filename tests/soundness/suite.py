"""Which obligations the soundness suite discharges: every rule, at 32 and 64 bits.

A rule's free dtype classes (`derive.instances`) are instantiated with the signed dtypes of
the widths below, grouped by the widest dtype of the assignment:

- width 32: every class `INT32`;
- width 64: every class `INT32`, `INT64` or `INDEX`, one at least 64 bits (a cast rule gets
  its narrowing and widening pairs);
- a rule whose dtypes are fixed (the induction-variable rules: `INDEX`; the gates: `i64`
  facts only) has one obligation, at its own width.

Assignments whose obligations are the same formula are discharged once, and so are
assignments that differ only by exchanging `INDEX` and `INT64` in a rule that names neither
(no `Dtype` constant, no induction variable, no slot): both are 64-bit values, a dtype code
enters such an obligation only through equalities between codes and through `bits`, `wmin`,
`wmax`, `imin`, `imax`, which agree, so the exchange maps one obligation onto the other. `NARROWED` lists the
rules proven at 16 instead of 32 bits because the 32-bit query times out (each with the
measured reason); it is empty: every rule is proven at 32 bits.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import z3
from egglog import declarations as d

from tests.soundness import meaning as m
from tests.soundness.derive import Instance, Untranslatable, World, derive, instances
from tests.soundness.domains import BitVec, Integer, Unsupported
from tests.soundness.prover import Task, Verdict, run
from tests.soundness.rules import Rule, nodes

WIDTHS = (32, 64)

NARROWED: dict[str, str] = {}
"""Rule name -> why its narrow group is 16-bit (the 32-bit query times out, with the
measurement). Reviewed by hand."""


@dataclass(frozen=True)
class Planned:
    rule: Rule
    width: str
    """`32`, `64`, `16` (a `NARROWED` rule) or `fixed`."""
    inst: Instance
    same_as: tuple[str, ...] = ()
    """Labels of the assignments with the same formula, discharged by this one."""


def _codes(bits: Iterable[int]) -> tuple[int, ...]:
    allowed = set(bits)
    return tuple(c for c in m.SIGNED_CODES if m.bits_of(c) in allowed)


def _signature(rule: Rule, inst: Instance, world: World | None) -> str | None:
    """The obligation's formula as text, or None when its premises are false as written (a
    dtype guard such as `bits(n) < bits(w)` excludes the assignment)."""
    try:
        ob = derive(rule, inst, BitVec(), world)
    except Unsupported:
        ob = derive(rule, inst, Integer(), world)
    if z3.is_false(z3.simplify(z3.And(*ob.premises))):
        return None
    return z3.And(*ob.premises, z3.Not(ob.claim)).sexpr() + (ob.static_failure or "")


def plan(rule: Rule, world: World | None = None, widths: tuple[int, ...] = WIDTHS) -> list[Planned]:
    """The obligations of `rule`, one per distinct formula per width (raises `Untranslatable`).

    Width `w < 64`: every dtype class of `w` bits; width 64: every class 32 or 64 bits, one
    at least 64. A `NARROWED` rule's 32 is 16."""
    groups: list[tuple[str, Callable[[Instance], bool]]] = []
    for width in widths:
        w = 16 if width == 32 and rule.name in NARROWED else width
        if w < 64:
            groups.append((str(w), lambda i, w=w: all(m.bits_of(c) == w for _, c in i.codes)))
        else:
            groups.append(
                ("64", lambda i: i.max_bits == 64 and all(m.bits_of(c) in (32, 64) for _, c in i.codes))
            )
    insts = list(instances(rule.decl))
    if len(insts) == 1 and not insts[0].codes:
        return [Planned(rule, "fixed", insts[0])]
    symmetric = not _names_a_64_bit_dtype(rule)
    out: list[Planned] = []
    for width, keep in groups:
        seen: dict[str, int] = {}
        for inst in insts:
            if not keep(inst):
                continue
            if symmetric and _mirror(inst) < tuple(c for _, c in inst.codes):
                continue  # its mirror image (INDEX and INT64 exchanged) is planned
            sig = _signature(rule, inst, world)
            if sig is None:
                continue
            if sig in seen:
                k = seen[sig]
                out[k] = Planned(rule, width, out[k].inst, (*out[k].same_as, inst.label))
                continue
            seen[sig] = len(out)
            out.append(Planned(rule, width, inst))
    return out


_INDEX, _INT64 = m.code_of(m.DType.INDEX), m.code_of(m.DType.INT64)


def _mirror(inst: Instance) -> tuple[int, ...]:
    swap = {_INDEX: _INT64, _INT64: _INDEX}
    return tuple(swap.get(c, c) for _, c in inst.codes)


def _names_a_64_bit_dtype(rule: Rule) -> bool:
    """The rule names `INDEX` or `INT64`: a `Dtype` constant, an induction variable or a slot."""
    for node in nodes(rule.decl):
        if m.code_of_constant(node) is not None:  # type: ignore[arg-type]
            return True
        if isinstance(node, d.CallDecl) and (
            m.CONSTRUCTORS.get(node.callable) == "iv"
            or m.FUNCTIONS.get(node.callable, m.Meaning("")).kind == "rotation_slot"
        ):
            return True
    return False


def excluded(rule: Rule, width: int) -> bool:
    """Every assignment of `rule` at `width` bits has premises false as written (a dtype guard
    such as `bits(n) < bits(w)` needs two widths)."""
    insts = [i for i in instances(rule.decl) if all(m.bits_of(c) == width for _, c in i.codes)]
    return bool(insts) and all(_signature(rule, i, None) is None for i in insts)


def prove(planned: list[Planned], world: World | None = None) -> list[Verdict]:
    """Every planned obligation, each with whether its premises can hold (`Verdict.query`)."""
    return run([Task(p.rule, p.inst, world) for p in planned])


def plan_all(rules: Iterable[Rule], world: World | None = None) -> tuple[list[Planned], dict[str, str]]:
    """Every rule's plan; rules that cannot be translated map to the reason."""
    planned: list[Planned] = []
    failed: dict[str, str] = {}
    for r in rules:
        try:
            planned += plan(r, world)
        except Untranslatable as exc:
            failed[r.name] = str(exc)
    return planned, failed
