"""A compilation leaves no cycle holding its IR: the function emitter (whose helpers point
back at it) is released once its lines are taken, and the passes' recursive closures drop
their self-references, so reference counting frees a finished compilation's data."""

from __future__ import annotations

import gc

from slotsat.app.pipeline import CompileOptions, compile_module
from slotsat.bench.generate import generate_single_function
from slotsat.core import ir
from slotsat.core.dsl.parser import parse_source
from slotsat.lowering.pto_codegen import FunctionEmitter


def test_a_compilation_leaves_no_ir_to_the_cyclic_collector() -> None:
    module = parse_source(generate_single_function(0, 3).text, "k.py")
    gc.collect()
    gc.disable()
    try:
        compile_module(module, CompileOptions())
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        garbage = list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    kept = (FunctionEmitter, ir.Function, ir.SeqStmts, ir.AssignStmt)
    assert not [o for o in garbage if isinstance(o, kept)]
