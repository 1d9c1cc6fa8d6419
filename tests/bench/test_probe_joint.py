"""The scaling points' engine probe saturates a module's engines together, as codegen does
(`slotsat.bench.probe.probe_functions`): every choice is the one each function's own probe
makes, and each joint e-graph's figures are counted once."""

from __future__ import annotations

import pytest

from slotsat.analysis.budget import Backend
from slotsat.app.pipeline import CompileOptions, compile_module
from slotsat.bench import probe
from slotsat.bench.generate import generate_kernel
from slotsat.core.dsl.parser import parse_source
from slotsat.core.options import Mode
from slotsat.lowering import pto_codegen


def _choices(p: probe.Probe) -> tuple[str, str]:
    return repr(p.operands), repr([(r.get, r.a, r.b, r.index, r.next_index) for r in p.rotations])


@pytest.mark.parametrize("batch_roots", [10**9, 10])
def test_joint_probes_choose_what_each_functions_own_probe_chooses(
    batch_roots: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pto_codegen, "BATCH_ROOTS", batch_roots)
    module = compile_module(parse_source(generate_kernel(11, 40).text, "k.py"),
                            CompileOptions(backend=Backend.NONE)).module
    fns = [fn for program in module.programs for fn in program.functions]
    joint = probe.probe_functions(fns, Mode.SLOTSAT)
    alone = [probe.probe_function(fn, Mode.SLOTSAT) for fn in fns]
    assert len(fns) > 3
    assert [_choices(p) for p in joint] == [_choices(p) for p in alone]
    assert sum(len(p.operands) for p in joint) > 0
    # one e-graph per batch: its first function reports it, the others report nothing
    reporting = [p for p in joint if p.nodes > 0]
    if batch_roots == 10**9:
        assert len(reporting) == 1
    else:
        assert len(reporting) > 1
    assert all(p.saturate_seconds == 0.0 for p in joint if p.nodes == 0)
