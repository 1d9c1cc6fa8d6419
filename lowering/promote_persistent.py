"""pto-promote-persistent-fragment-loops: mark every loop a persistent fragment needs unrolled.

Overview
--------
ptoas keeps a SIMT kernel's persistent fragments (per-thread buffers allocated by an
`llvm.alloca` carrying `pto.persistent`) resident in registers across sections. That needs
every access to resolve to a constant element index, hence every loop around an access to
be fully unrolled. This pass finds those loops by pointer flow (`slotsat.analysis.pointer_flow`,
spec `50-persistent-promotion.md` §4, §5), validates their hints and marks them
`pto.unroll = "full"` plus the internal marker `pto.persistent_unroll`, which makes
`pto-unroll-loops` turn every fallback into a hard error. It only discovers and annotates.

Before / After
--------------
```mlir
%frag = llvm.alloca %n x f32 {pto.persistent} : (i32) -> !llvm.ptr
scf.for %row = %lo to %hi step %one {
  pto.section.simt<<<32, 1, 1>>> {
    %k = arith.index_cast %row : index to i64
    %p = llvm.getelementptr %frag[%k] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %v = llvm.load %p : !llvm.ptr -> f32
  }
}
```
becomes the same loop ending `} {pto.persistent_unroll, pto.unroll = "full"}`.

Requires / produces and position
--------------------------------
Requires verified MLIR (`slotsat.lowering.mlir_io`); produces marked loops. In ptoas it runs in the
VPTO-emission preparation immediately before `pto-unroll-loops` (spec §2); in slotsat it is
`slotsat promote FILE`, followed by `slotsat.lowering.unroll_loops` with `--unroll`.

Gates
-----
| Gate | Why |
| --- | --- |
| no persistent allocation: function untouched | nothing to resolve (§4.1) |
| access under `scf.while`: error, once per while | no trip count to unroll (§5.1) |
| zero-trip loop on the chain: chain skipped | the access never runs (§5.3) |
| wraps a section, IV feeds no related GEP: skipped | unrolling clones SIMT entries for nothing (§5.4) |
| malformed hint (H1-H6): error | a hint is never silently repaired (§6.1) |
| valid `pto.unroll_factor`: error | a partial unroll leaves the index dynamic (§6.2) |
| trip count above the cap: error, a note per allocation | code-size guardrail (§6.3) |

Why collect before failing
--------------------------
Every diagnostic of a function is collected (while errors first, in related-op order, then
per-loop errors in loop-list order) and the pass fails once (§7). Loops that passed their
checks are marked even when the pass fails, as in ptoas.

Why the trip count is unsigned
------------------------------
`ub - lb` of two signed 64-bit values can exceed `INT64_MAX`; ptoas computes the span in
unsigned 64-bit arithmetic with a ceiling division that never forms `span + step - 1`
(§8). Python integers are exact, so `static_trip_count` only has to reject counts above
`INT64_MAX`.

Emitted
-------
Only attributes change: `pto.unroll = "full"` and the unit attribute
`pto.persistent_unroll`, the loop's dictionary rebuilt in sorted key order so the output
matches MLIR's printing (§7).

Related passes
--------------
`slotsat.lowering.unroll_loops.UnrollLoops` (`pto-unroll-loops`, §9) consumes the marker and shares
`validate_hint` and `static_trip_count`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, cast

from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp, Signedness, StringAttr, UnitAttr
from xdsl.dialects.func import FuncOp
from xdsl.dialects.scf import ForOp
from xdsl.ir import Attribute, Operation

from slotsat.analysis.pointer_flow import discover, loop_bounds
from slotsat.lowering.mlir_io import Diagnostic, Positions, sorted_attributes

UNROLL = "pto.unroll"
UNROLL_FACTOR = "pto.unroll_factor"
MARKER = "pto.persistent_unroll"
INT64_MAX = 2**63 - 1
U64_MASK = 2**64 - 1

WHILE_ERROR = ("persistent fragment buffer is accessed inside scf.while, which cannot be fully "
               "unrolled; persistent fragment loops must use scf.for")
FIXED_FACTOR_ERROR = ("persistent fragment loop requires full unroll; a fixed 'pto.unroll_factor' "
                      "is not supported")


def _mlir(attr: Attribute) -> str:
    return str(attr)


def validate_hint(loop: Operation) -> str | None:
    """The first failing hint check of §6 step 1 (H1-H6), or `None` if the hints are valid."""
    unroll = loop.attributes.get(UNROLL)
    factor = loop.attributes.get(UNROLL_FACTOR)
    if unroll is not None and not isinstance(unroll, StringAttr):
        return f"'pto.unroll' must be a string attribute, got {_mlir(unroll)}"
    if factor is not None and not isinstance(factor, IntegerAttr):
        return f"'pto.unroll_factor' must be a signless i32 attribute, got {_mlir(factor)}"
    if unroll is not None and factor is not None:
        return "'pto.unroll' and 'pto.unroll_factor' are mutually exclusive on one loop"
    if isinstance(unroll, StringAttr) and unroll.data not in ("full", "enable"):
        return (f"unknown 'pto.unroll' value '{unroll.data}'; expected \"full\" (native full "
                "unroll) or \"enable\" (forwarded to the compiler's cost model by "
                "pto-convert-scf-to-cf-with-loop-hints)")
    if isinstance(factor, IntegerAttr):
        typed = cast(IntegerAttr[IntegerType], factor)
        kind = typed.type
        if not (isinstance(kind, IntegerType) and kind.width.data == 32
                and kind.signedness.data == Signedness.SIGNLESS):
            return f"'pto.unroll_factor' must be a signless i32 attribute, got '{_mlir(kind)}'"
        value = factor_value(typed)
        if value < 1:
            return f"'pto.unroll_factor' must be a positive integer, got {value}"
    return None


def factor_value(attr: IntegerAttr[IntegerType]) -> int:
    """A signless `i32` factor read as signed."""
    raw = attr.value.data & 0xFFFFFFFF
    return raw - 2**32 if raw >> 31 else raw


def static_trip_count(loop: ForOp) -> int | None:
    """§8: constant bounds, step > 0, ub > lb, span in unsigned 64-bit, ceiling division,
    unknown above INT64_MAX. No folding."""
    bounds = loop_bounds(loop)
    if bounds is None:
        return None
    lb, ub, step = bounds
    if step <= 0 or ub <= lb:
        return None
    span = (ub - lb) & U64_MASK
    count = span // step + (1 if span % step else 0)
    return count if count <= INT64_MAX else None


def has_hint(loop: Operation) -> bool:
    return UNROLL in loop.attributes or UNROLL_FACTOR in loop.attributes


def _function_name(func: FuncOp) -> str:
    return func.sym_name.data


@dataclass(frozen=True)
class PromotePersistentFragmentLoops:
    """Mark every loop a persistent fragment access needs fully unrolled (module docstring)."""

    name: ClassVar[str] = "pto-promote-persistent-fragment-loops"

    max_persistent_unroll_trip_count: int = 128
    """Guardrail on the static trip count of a promoted loop; negative disables it."""

    def run(self, module: ModuleOp, positions: Positions) -> list[Diagnostic]:
        """Promote in place; return every diagnostic, functions in program order."""
        diagnostics: list[Diagnostic] = []
        for op in module.walk():
            if isinstance(op, FuncOp):
                diagnostics.extend(self.run_on_function(op, positions))
        return diagnostics

    def run_on_function(self, func: FuncOp, positions: Positions) -> list[Diagnostic]:
        found = discover(func)
        if not found.allocas:
            return []
        errors = [Diagnostic("error", WHILE_ERROR, positions.of(w)) for w in found.whiles]
        for loop in found.loops:
            error = self._check(func, loop, found.allocas, positions)
            if error is not None:
                errors.append(error)
                continue
            loop.attributes[UNROLL] = StringAttr("full")
            loop.attributes[MARKER] = UnitAttr()
            sorted_attributes(loop)
        return errors

    def _check(self, func: FuncOp, loop: ForOp, allocas: list[Operation],
               positions: Positions) -> Diagnostic | None:
        at = positions.of(loop)
        if has_hint(loop) and (message := validate_hint(loop)) is not None:
            return Diagnostic("error", message, at)
        if UNROLL_FACTOR in loop.attributes:
            return Diagnostic("error", FIXED_FACTOR_ERROR, at)
        cap = self.max_persistent_unroll_trip_count
        count = static_trip_count(loop)
        if cap >= 0 and count is not None and count > cap:
            notes = tuple(Diagnostic("note", "persistent fragment allocation", positions.of(a))
                          for a in allocas)
            return Diagnostic(
                "error",
                f"persistent fragment loop in '{_function_name(func)}' has trip count {count}, "
                f"which exceeds max-persistent-unroll-trip-count={cap}",
                at, notes)
        return None
