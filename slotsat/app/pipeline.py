"""The default pass pipeline (`00-overview.md` §4) and `compile_module`, which the `codegen`,
`check` and `bench` commands share.

The pipeline is one explicit list (`function_passes`), one comment per position saying why
it sits there. Each function of the module goes through every pass in order; then
pto-codegen emits the `.pto` module from the whole program.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from slotsat.analysis.budget import Backend
from slotsat.core import heap, ir, phases
from slotsat.core.options import Mode, Planner
from slotsat.lowering.common import Decline, PassResult
from slotsat.lowering.pto_codegen import GetRecord, Note, PtoCodegen


class FunctionPass(Protocol):
    @property
    def name(self) -> str: ...

    def run(self, fn: ir.Function) -> PassResult: ...


@dataclass(frozen=True)
class CompileOptions:
    """Everything the pipeline reads (`00-overview.md` §7, §8)."""

    planner: Planner = Planner.PTOAS
    mode: Mode = Mode.SLOTSAT
    backend: Backend = Backend.ASCEND910B
    compat: bool = False
    """`--compat pypto`: the slots pass's T4 counts every argument of an inheriting op."""


@dataclass
class CompileResult:
    """The `.pto` text and what the passes reported on the way."""

    pto_text: str
    module: ir.Module
    """The IR after init-memref (what codegen read)."""
    declines: list[Decline] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    gets: list[GetRecord] = field(default_factory=list)
    """Per `pto.multi_tile_get`: the matcher model's view of its slot operand."""
    function_ops: dict[str, int] = field(default_factory=dict)
    """Integer ops emitted per function (code size)."""
    engine_reports: list[dict[str, str | float | int | dict[str, int] | None]] = field(default_factory=list)
    """Per kernel function, the index engine's figures (`EngineStats.as_dict`): function, the
    e-graph limit its saturation hit (None: none), roots, slot_roots, nodes, iterations,
    saturate_seconds, extract_seconds, and matches per rule.
    `slotsat bench` sums the numeric ones and the matches."""


def function_passes(options: CompileOptions) -> list[FunctionPass]:
    """The DSL passes, in order (parsing, with memory-space completion, comes before)."""
    from slotsat.lowering.carry_copies import CarryCopies
    from slotsat.lowering.dist_comm import InsertCommFence, MaterializeDistTensorCtx
    from slotsat.lowering.init_memref import InitMemRef
    from slotsat.lowering.lower_pipeline_loops import LowerPipelineLoops
    from slotsat.lowering.lower_pipeline_to_slots import LowerPipelineToSlots
    from slotsat.lowering.resolve_pipeline_markers import ResolvePipelineMarkers
    from slotsat.lowering.stamp_tfree_split import StampTfreeSplit

    return [
        # 2. Each cross-core free takes its pop's split and pipe id (hand-written DSL leaves
        #    them off; the reference's StampTfreeSplit runs before its slot pass too).
        StampTfreeSplit(),
        # 3. Rotation before every loop pass: it needs the pipeline loops as the author wrote
        #    them, and every loop it declines still carries stage=F for replication. No-op
        #    under PYPTO.
        LowerPipelineToSlots(planner=options.planner, backend=options.backend, compat=options.compat),
        # 4. Replication of every loop still marked stage=F > 1; leaves stage=1 markers.
        LowerPipelineLoops(),
        # 5. Demote the stage=1 markers, so no pipeline loop reaches init-memref / codegen.
        ResolvePipelineMarkers(),
        # 6. Resolve every declared or synthesized allocation (author and pipe_<tile>) now
        #    that no pass adds one; hoists the allocation statements codegen reads.
        InitMemRef(planner=options.planner, backend=options.backend),
        # 7. A carried value still read after its next value is written: that value gets a
        #    buffer of its own and a move into the carry's (the reference's YieldFixup).
        CarryCopies(),
        # 8. A distributed tensor's communication-context parameter (and the callers' context
        #    arguments), after every pass that reads or rebuilds signatures, as the reference's
        #    MaterializeDistTensorCtx runs after its hand-off point.
        MaterializeDistTensorCtx(),
        # 9. The data-before-signal markers after publishing writes and waits, last, so no pass
        #    moves a statement between a write and its markers (the reference's InsertCommFence
        #    is the last pass of its pipeline too).
        InsertCommFence(),
    ]


PASS_PHASES: dict[str, str] = {
    "lower-pipeline-to-slots": "slots",
    "lower-pipeline-loops": "replication",
    "resolve-pipeline-markers": "replication",
    "init-memref": "init-memref",
}
"""The compile-time phase (`slotsat.core.phases`) each pass's time is recorded under; the
marker cleanup belongs to replication (it demotes the markers replication leaves). A pass
not listed here is recorded under its own name."""


def run_passes(
    module: ir.Module, passes: Sequence[FunctionPass], after: Callable[[str, ir.Module], None] | None = None
) -> tuple[ir.Module, list[Decline]]:
    """Run `passes` over every function of `module`; `after(pass_name, module)` sees each stage."""
    declines: list[Decline] = []
    for p in passes:
        with phases.phase(PASS_PHASES.get(p.name, p.name)):
            every = [fn for program in module.programs for fn in program.functions]
            run_all = getattr(p, "run_all", None)  # a pass that batches its functions (one e-graph)
            results = iter(run_all(every) if run_all is not None else [p.run(fn) for fn in every])
            programs = []
            for program in module.programs:
                functions = []
                for _ in program.functions:
                    result = next(results)
                    declines.extend(result.declines)
                    functions.append(result.function)
                programs.append(replace(program, functions=tuple(functions)))
            module = ir.Module(tuple(programs))
        heap.settle()
        if after is not None:
            after(p.name, module)
    return module, declines


def compile_module(module: ir.Module, options: CompileOptions | None = None) -> CompileResult:
    """Run the default pipeline on a parsed module and emit its `.pto` text.

    Raises `SlotsatError` / `PassError` (one line, exit status 1 or 2) for rejected input.
    """
    opts = options if options is not None else CompileOptions()
    with heap.compiling():
        heap.settle()
        lowered, declines = run_passes(module, function_passes(opts))
        # 10. pto-codegen last: regions, blockers and emission read the resolved allocations.
        with phases.phase("codegen"):
            out = PtoCodegen(planner=opts.planner, mode=opts.mode, backend=opts.backend).run(lowered)
    return CompileResult(
        out.text,
        lowered,
        declines,
        out.notes,
        out.gets,
        out.function_ops,
        [r.as_dict() for r in out.engine_reports],
    )


def compile_source(
    text: str, filename: str = "<input>", options: CompileOptions | None = None
) -> CompileResult:
    """Parse (step 1, which also completes memory spaces) then `compile_module`."""
    from slotsat.core.dsl.parser import parse_source

    return compile_module(parse_source(text, filename), options)
