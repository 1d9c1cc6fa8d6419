"""Codegen saturates and emits a module's functions a batch at a time
(`slotsat.lowering.pto_codegen.BATCH_ROOTS`): the module, its notes, gets and figures are
the ones one batch gives, an error in a later batch comes after the earlier batches'
output as it does unbatched, and the worker thread keeps no e-graph view between jobs."""

from __future__ import annotations

import gc

import pytest

from slotsat.analysis.budget import Backend
from slotsat.app.pipeline import CompileOptions, function_passes, run_passes
from slotsat.bench.generate import generate_kernel
from slotsat.core import ir
from slotsat.core.dsl.parser import parse_source
from slotsat.core.options import Mode
from slotsat.egraph_rules import engine as engine_mod
from slotsat.egraph_rules.view import EGraphView
from slotsat.lowering import pto_codegen
from slotsat.lowering.pto_codegen import CodegenResult, PtoCodegen


def _lowered(text: str) -> ir.Module:
    module = parse_source(text, "gen.py")
    lowered, _ = run_passes(module, function_passes(CompileOptions(backend=Backend.NONE)))
    return lowered


def _run(module: ir.Module, mode: Mode, monkeypatch: pytest.MonkeyPatch, batch_roots: int,
         saturations: list[int]) -> CodegenResult:
    real = pto_codegen.saturate_together

    def spy(engines: list[engine_mod.IndexEngine]) -> None:
        saturations.append(len(engines))
        real(engines)

    with monkeypatch.context() as m:
        m.setattr(pto_codegen, "BATCH_ROOTS", batch_roots)
        m.setattr(pto_codegen, "saturate_together", spy)
        return PtoCodegen(mode=mode, backend=Backend.NONE).run(module)


def _get(g: pto_codegen.GetRecord) -> tuple[object, ...]:
    return g.function, g.tile, g.region, g.matcher_class, g.block, g.ops, repr(g.term)


@pytest.mark.parametrize("mode", [Mode.SLOTSAT, Mode.PYPTO])
def test_batches_emit_what_one_batch_emits(mode: Mode, monkeypatch: pytest.MonkeyPatch) -> None:
    module = _lowered(generate_kernel(3, 40).text)
    one: list[int] = []
    many: list[int] = []
    whole = _run(module, mode, monkeypatch, 10**9, one)
    batched = _run(module, mode, monkeypatch, 12, many)
    assert len(one) == 1
    assert len(many) > 2
    assert sum(many) == one[0]
    assert batched.text == whole.text
    assert [(n.severity, n.message, n.span) for n in batched.notes] == \
        [(n.severity, n.message, n.span) for n in whole.notes]
    assert [_get(g) for g in batched.gets] == [_get(g) for g in whole.gets]
    assert batched.function_ops == whole.function_ops
    assert [r.function for r in batched.engine_reports] == [r.function for r in whole.engine_reports]


def test_an_error_in_a_later_batch_follows_the_earlier_output(monkeypatch: pytest.MonkeyPatch) -> None:
    module = _lowered(generate_kernel(4, 30).text)
    functions = [fn for program in module.programs for fn in program.functions]
    failing = functions[len(functions) // 2].name
    emitted: list[str] = []
    real_prepare = pto_codegen.FunctionEmitter.prepare
    real_finish = pto_codegen.FunctionEmitter.finish

    def prepare(self: pto_codegen.FunctionEmitter) -> None:
        if self.fn.name == failing:
            raise pto_codegen.PassError("stop here", self.fn.span)
        real_prepare(self)

    def finish(self: pto_codegen.FunctionEmitter) -> list[str]:
        emitted.append(self.fn.name)
        return real_finish(self)

    monkeypatch.setattr(pto_codegen.FunctionEmitter, "prepare", prepare)
    monkeypatch.setattr(pto_codegen.FunctionEmitter, "finish", finish)
    before = [fn.name for fn in functions[: len(functions) // 2]]
    for batch_roots in (10**9, 5):
        emitted.clear()
        with pytest.raises(pto_codegen.PassError, match="stop here"):
            _run(module, Mode.SLOTSAT, monkeypatch, batch_roots, [])
        assert emitted == before


def test_the_worker_keeps_no_view_between_jobs(monkeypatch: pytest.MonkeyPatch) -> None:
    module = _lowered(generate_kernel(5, 40).text)
    monkeypatch.setattr(engine_mod, "PARALLEL_MIN_ACTIONS", 1)
    result = _run(module, Mode.SLOTSAT, monkeypatch, 10**9, [])
    assert result.text
    del result
    gc.collect()
    assert not [o for o in gc.get_objects() if isinstance(o, EGraphView)]
