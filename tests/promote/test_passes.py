"""The promotion and unroll passes called directly, where the CLI cannot show the state.

Groups: loops marked although the pass fails (#51, #55); nothing unrolled when validation
fails (#67); the trip-count table (§8); discovery order (§4); hint validation (§6 step 1).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects.builtin import (
    IntegerAttr,
    IntegerType,
    ModuleOp,
    Signedness,
    StringAttr,
    UnitAttr,
    i32,
    i64,
)
from xdsl.dialects.scf import ForOp

from slotsat.analysis.pointer_flow import discover
from slotsat.lowering.mlir_io import Chunk, Positions, make_context, parse_chunk
from slotsat.lowering.promote_persistent import (
    PromotePersistentFragmentLoops,
    static_trip_count,
    validate_hint,
)
from slotsat.lowering.unroll_loops import UnrollLoops
from tests.promote.harness import DATA

FM = {"pto.persistent_unroll": UnitAttr(), "pto.unroll": StringAttr("full")}


def _parse(path: Path) -> tuple[ModuleOp, Positions]:
    return parse_chunk(make_context(), Chunk(path.read_text(), 0), str(path))


def _loops(module: ModuleOp) -> dict[str, ForOp]:
    return {str(op.body.block.args[0].name_hint): op for op in module.walk() if isinstance(op, ForOp)}


def test_an_enclosing_for_is_still_marked_when_the_while_error_fails_the_pass() -> None:
    # 51
    module, positions = _parse(DATA / "51_while_inside_for.pto")
    diagnostics = PromotePersistentFragmentLoops().run(module, positions)
    assert [d.severity for d in diagnostics] == ["error"]
    assert dict(_loops(module)["o"].attributes) == FM


def test_a_good_loop_is_marked_although_another_loop_fails() -> None:
    # 55
    module, positions = _parse(DATA / "55_good_loops_still_marked.pto")
    diagnostics = PromotePersistentFragmentLoops().run(module, positions)
    assert len(diagnostics) == 1
    loops = _loops(module)
    assert dict(loops["good"].attributes) == FM
    assert list(loops["good"].attributes) == ["pto.persistent_unroll", "pto.unroll"]
    assert "pto.persistent_unroll" not in loops["bad"].attributes


def test_a_validation_error_stops_the_unroll_before_any_loop_is_unrolled() -> None:
    # 67
    module, positions = _parse(DATA / "67_validation_before_unroll.pto")
    assert PromotePersistentFragmentLoops().run(module, positions) == []
    diagnostics = UnrollLoops().run(module, positions)
    assert [d.severity for d in diagnostics] == ["error"]
    assert set(_loops(module)) == {"i", "u"}


def _trip(lb: int, ub: int, step: int, width: int = 64) -> int | None:
    text = f"""
    func.func @f() {{
      %lb = arith.constant {lb} : {"index" if width == 64 else f"i{width}"}
      %ub = arith.constant {ub} : {"index" if width == 64 else f"i{width}"}
      %st = arith.constant {step} : {"index" if width == 64 else f"i{width}"}
      scf.for %i = %lb to %ub step %st {": i" + str(width) if width != 64 else ""} {{
      }}
      return
    }}"""
    module, _ = parse_chunk(make_context(), Chunk(text, 0), "t.pto")
    (loop,) = _loops(module).values()
    return static_trip_count(loop)


INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


@pytest.mark.parametrize(("lb", "ub", "step", "count"), [
    (0, 10, 3, 4),
    (0, 257, 2, 129),
    (INT64_MIN, INT64_MAX, 1, None),
    (INT64_MIN, INT64_MAX, 2, None),
    (INT64_MIN, INT64_MAX, 4, 4611686018427387904),
    (5, 5, 1, None),
    (6, 5, 1, None),
    (-3, 3, 4, 2),
])
def test_static_trip_count_table(lb: int, ub: int, step: int, count: int | None) -> None:
    assert _trip(lb, ub, step) == count


def test_i32_bounds_are_read_as_signed() -> None:
    assert _trip(-2, 2, 1, width=32) == 4


def test_discovery_visits_the_most_recent_use_first() -> None:
    module, _ = _parse(DATA / "49_two_whiles.pto")
    found = discover(next(iter(module.ops)))
    first_use_lines = [op.name for op in found.related]
    assert first_use_lines[0] == "llvm.alloca"
    assert first_use_lines[1] == "llvm.getelementptr"  # in the later while
    assert len(found.whiles) == 2


def _loop_with(attrs: dict[str, object]) -> ForOp:
    text = """
    func.func @f() {
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %c1 = arith.constant 1 : index
      scf.for %i = %c0 to %c4 step %c1 {
      }
      return
    }"""
    module, _ = parse_chunk(make_context(), Chunk(text, 0), "t.pto")
    (loop,) = _loops(module).values()
    loop.attributes.update(attrs)  # type: ignore[arg-type]
    return loop


@pytest.mark.parametrize(("attrs", "message"), [
    ({"pto.unroll": StringAttr("full")}, None),
    ({"pto.unroll": StringAttr("enable")}, None),
    ({"pto.unroll_factor": IntegerAttr(3, i32)}, None),
    ({"pto.unroll_factor": IntegerAttr(-1, i32)}, "'pto.unroll_factor' must be a positive integer, got -1"),
    ({"pto.unroll_factor": IntegerAttr(2, IntegerType(32, Signedness.SIGNED))},
     "'pto.unroll_factor' must be a signless i32 attribute, got 'si32'"),
    ({"pto.unroll_factor": IntegerAttr(2, i64), "pto.unroll": StringAttr("x")},
     "'pto.unroll' and 'pto.unroll_factor' are mutually exclusive on one loop"),
    ({"pto.unroll": UnitAttr()}, "'pto.unroll' must be a string attribute, got unit"),
])
def test_hint_validation(attrs: dict[str, object], message: str | None) -> None:
    assert validate_hint(_loop_with(attrs)) == message
