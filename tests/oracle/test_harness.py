"""The oracle's comparison machinery on hand-made verdicts (no PyPTO needed): what counts as
agreement, which differences `05-decisions.md` explains, and that nothing else passes."""

from __future__ import annotations

from dataclasses import replace

import pytest

from slotsat.bridge import Kernel, RefLoop, RefTile
from tests.oracle.harness import Verdict, compare, reference_verdicts


def _v(decision: str, *, position: int = 0, start: int | str = 0, step: int | str = 1, stages: int = 2,
       reason: str | None = None, index: str | None = None, tiles: int = 0, depth: int = 0,
       ancestors: tuple[int, ...] = (), function: str = "f") -> Verdict:
    if decision == "slotted" and index is None:
        index = "IV % 2"
        tiles = tiles or 1
    return Verdict(function, position, 10 + position, depth, stages, start, step, decision, reason, index,
                   tiles, ancestors)


def _only(ref: Verdict, mine: Verdict, **kw: object) -> str:
    c = compare([ref], [mine], **kw)  # type: ignore[arg-type]
    if c.agreed:
        return "agreed"
    if c.explained:
        return c.explained[0][2]
    return "unexplained"


def test_equal_decisions_and_slot_indices_agree() -> None:
    assert _only(_v("slotted"), _v("slotted")) == "agreed"
    assert _only(_v("declined"), _v("declined", reason="tile-view")) == "agreed"
    assert _only(_v("untouched", stages=1), _v("untouched", stages=1)) == "agreed"


def test_a_different_slot_index_where_the_designs_agree_is_unexplained() -> None:
    assert _only(_v("slotted", index="IV % 2"), _v("slotted", index="(IV - 0) % 2")) == "unexplained"
    assert _only(_v("slotted", tiles=2), _v("slotted", tiles=1)) == "unexplained"


@pytest.mark.parametrize(("start", "step", "stages"), [(1, 1, 2), (3, 1, 4), (0, 64, 2), (8, 4, 4)])
def test_decision_1_explains_a_shape_only_slotsat_rotates(start: int, step: int, stages: int) -> None:
    ref = _v("declined", start=start, step=step, stages=stages)
    mine = _v("slotted", start=start, step=step, stages=stages, index="(IV - 1) % 2")
    assert _only(ref, mine) == "decision 1: loop shapes"


def test_decision_1_does_not_explain_a_shape_both_designs_rotate() -> None:
    assert _only(_v("declined", start=4, stages=2), _v("slotted", start=4, stages=2)) == "unexplained"


def test_decision_8_explains_a_negative_multiple_of_f_only_the_reference_rotates() -> None:
    ref = _v("slotted", start=-2)
    assert _only(ref, _v("declined", start=-2, reason="negative-start")) == "decision 8: negative start"
    assert _only(ref, _v("declined", start=-2, reason="tile-view")) == "unexplained"


def test_decision_2_explains_the_view_gate_only_where_compat_declines() -> None:
    ref, mine = _v("declined"), _v("slotted")
    assert _only(ref, mine) == "unexplained"
    assert _only(ref, mine, view_gate_differs={("f", 0)}) == "decision 2: view gate"
    assert _only(ref, mine, view_gate_differs={("g", 0)}) == "unexplained"


def test_an_inner_loop_follows_its_outer_loop_decided_differently() -> None:
    outer_ref, outer_mine = _v("declined", start=1), _v("slotted", start=1, index="(IV - 1) % 2")
    inner_ref = _v("declined", position=1, depth=1, ancestors=(0,))
    inner_mine = _v("slotted", position=1, depth=1, ancestors=(0,))
    c = compare([outer_ref, inner_ref], [outer_mine, inner_mine])
    assert [why for _, _, why in c.explained] == [
        "decision 1: loop shapes", "a consequence (§7) of an enclosing loop only the reference declined"]
    assert c.unexplained == []
    # a sibling, not a child, of the loop decided differently is not excused
    sibling = replace(inner_mine, depth=0, ancestors=())
    c = compare([outer_ref, replace(inner_ref, depth=0, ancestors=())], [outer_mine, sibling])
    assert len(c.unexplained) == 1


def test_a_later_loop_follows_a_budget_spent_differently() -> None:
    first_ref, first_mine = _v("declined", start=1), _v("slotted", start=1, index="(IV - 1) % 2")
    later_ref, later_mine = _v("slotted", position=1), _v("declined", position=1, reason="capacity")
    c = compare([first_ref, later_ref], [first_mine, later_mine])
    assert [why for _, _, why in c.explained][1] == \
        "a consequence (§8.3) of an earlier loop only slotsat slotted"
    # without the earlier difference the capacity decline is unexplained
    c = compare([replace(later_ref, position=0)], [replace(later_mine, position=0)])
    assert len(c.unexplained) == 1


def test_functions_are_matched_by_name_whatever_order_each_side_lists_them_in() -> None:
    f, g = _v("slotted", function="f"), _v("declined", function="g")
    c = compare([g, f], [f, replace(g, reason="tile-view")])
    assert len(c.agreed) == 2


def test_loops_are_matched_by_position_and_must_correspond() -> None:
    with pytest.raises(AssertionError, match="different pipeline loops"):
        compare([_v("slotted")], [_v("slotted"), _v("slotted", position=1)])
    with pytest.raises(AssertionError, match="different pipeline loops"):
        compare([_v("slotted", stages=2)], [_v("slotted", stages=4)])


def _row(kind: str, depth: int, stages: int | None, tiles: tuple[RefTile, ...] = (),
         line: int = 1) -> RefLoop:
    return RefLoop("f", line, 5, depth, kind, stages, "i__idx_v0", 0, 8, 1, tiles)


def test_the_reference_decisions_are_read_from_its_ir_before_and_after_its_slot_pass() -> None:
    slot = RefTile("t__ssa_v0", "pipe_t__ssa_v0", 2, "i__idx_v0 % 2", "tile.load")
    mine = RefTile("m__ssa_v0", "mine", 2, "i__idx_v0 % 2", "tile.load")  # the author's, before the pass
    pre = (_row("Pipeline", 0, 2, (mine,), 1), _row("Sequential", 1, None, (), 2),
           _row("Pipeline", 2, 2, (), 3), _row("Pipeline", 0, 1, (), 4))
    post = (_row("Sequential", 0, None, (mine, slot), 1), pre[1], pre[2], pre[3])
    kernel = Kernel("K", "program", 1, "", summary=(("pre", pre), ("slots", post)))
    outer, inner, marker = reference_verdicts(kernel)
    assert (outer.decision, outer.index, outer.tiles, outer.ancestors) == ("slotted", "IV % 2", 1, ())
    assert (inner.decision, inner.position, inner.depth, inner.ancestors) == ("declined", 1, 2, (0,))
    assert (marker.decision, marker.position, marker.ancestors) == ("untouched", 2, ())
