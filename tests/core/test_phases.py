"""`slotsat.core.phases`: recorded only inside `recording()`, sub-phases counted in their parent."""

from __future__ import annotations

import time

import pytest

from slotsat.core import phases


def test_phase_records_only_while_recording() -> None:
    with phases.phase("outside"):
        pass
    with phases.recording() as totals:
        with phases.phase("codegen"):
            with phases.phase("codegen.saturate"):
                time.sleep(0.01)
        with phases.phase("codegen"):
            pass
    with phases.phase("after"):
        pass
    assert set(totals) == {"codegen", "codegen.saturate"}
    assert totals["codegen"] >= totals["codegen.saturate"] >= 0.01


def test_recordings_do_not_nest() -> None:
    with phases.recording():
        with pytest.raises(RuntimeError, match="already active"):
            with phases.recording():
                pass
    with phases.recording() as totals:
        pass
    assert totals == {}


def test_add_records_a_computed_figure_only_while_recording() -> None:
    phases.add("codegen.emit", 1.0)
    with phases.recording() as totals:
        phases.add("codegen.emit", 0.25)
        phases.add("codegen.emit", 0.5)
    assert totals == {"codegen.emit": 0.75}
