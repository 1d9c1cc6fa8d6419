"""`slotsat check FILE`: run the slots pass and check it with the interpreter and the
slot-privacy checker (`00-overview.md` §8).

For every function with tile operations:

1. run the DSL passes in pipeline order (lower-pipeline-to-slots, lower-pipeline-loops for
   the loops it declined, resolve-pipeline-markers, init-memref); a rejection by a pass is
   a one-line error (exit 1); init-memref's rejection only means the check runs on the
   program before it (a note says so);
2. interpret the original program with private tiles (what the author means) and the
   transformed program with the physical-buffer model and pipelined loads
   (`slotsat/interpreter.py`) on `--trials` seeded random inputs (`--seed`); the outputs
   are the returned values and every tensor argument as the run left it (a kernel's writes to
   GM, returned or not); integer outputs must agree exactly, float outputs within
   `np.allclose(rtol=1e-3, atol=1e-3)`.
   Inputs on which the original itself faults (an out-of-range load for a random runtime
   scalar) are redrawn; a run that reaches one of the interpreter's limits (statements, loop
   iterations, elements: `interpreter.InterpreterLimit`) ends the function's check as
   `unverified`, whichever program reached it. An original run that read undefined data
   (a fresh tile's contents, a load's part outside its valid shape, `tile.gather` outside
   its source's valid part, `tile.scatter_mask`'s unselected columns over a non-zero
   destination) runs again under the other fillings of that data (`interpreter.Undefined`).
   The output elements that change are the ones the device leaves open (garbage in a
   padding row, say): they are not compared, the function's line says `outputs match where
   defined` and a note names the read that reaches them and how many there are. If a run
   faults, a scalar output or a paged tensor changes, or every element of an output is open,
   the device's result is not pinned down and the function is `unverified` with that reason. A
   transformed run that read some is compared with the original's outputs under every
   filling. When the transformed run differs or
   faults and the author bound tiles to slots of declarations of their own, the original is
   also run on those declarations (as the device runs it); if that run already departs from
   the private-tile meaning and the transformed run does the same, the mismatch is reported
   as the program's own (`... not caused by the slots pass`), still a failure;
3. run the slot-privacy checker (`analysis/privacy.py`) on the transformed program and on
   the original (author-declared slots), with the scalar parameters of the first trial.

Output: one verdict line per loop (`FILE:LINE:COL: loop 'i' in P.f: DECISION; outputs
...; privacy ...`), followed for a declined loop by a `note:` line with the reason's
sentence, an `error:` line per mismatch or privacy violation, and a summary line.
The summary says `confirmed` only when every function's outputs were compared on at least
one input and nothing failed (`confirmed where defined`, naming the functions, when some
output elements were open and set aside); `FAILED` on a mismatch, a privacy violation or a pass
rejection; otherwise `unverified: REASON`: a function uses an op (on any path) or a form of
an op the interpreter does not model, has no random inputs (a dynamic or too large shape),
reached an interpreter limit, or faulted on every random input, or the file has no
function with tile operations. The
SPMD identity a kernel reads (`tile.get_block_idx` and kin) is drawn with each trial's
inputs and is the same for both runs. The AIC and AIV halves of a mixed kernel (joined by
cross-core pipes) get the passes and the privacy check one by one, but their outputs are
compared through the Group function that calls them: the original halves against the
transformed ones, each run by the interpreter with the halves taking turns (the producer
half first; a half hands on at its end or at a pop from an empty pipe, so halves answering
each other through pipes in both directions interleave; a pipe is a FIFO per direction); a
half no group calls is `unverified`. Exit
status 0 when confirmed, 1 when failed or unverified, 2 for unreadable input.
"""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import numpy as np

from slotsat.analysis.budget import Backend
from slotsat.analysis.privacy import PrivacyReport, check_privacy
from slotsat.app.commands import (
    UsageError,
    add_backend,
    add_compat,
    add_pypto_options,
    backend_option,
    kernel_source,
)
from slotsat.core import ir, limits
from slotsat.core.errors import EXIT_OK, EXIT_REJECTED, SlotsatError, Span
from slotsat.core.inputs import (
    Bounds,
    Draw,
    learn_bounds,
    random_identity,
    random_inputs,
    sentinel_parameters,
)
from slotsat.core.interp_errors import InterpreterError, InterpreterLimit, Unmodelled
from slotsat.core.interpreter import (
    UNDEFINED_FILLINGS,
    Array,
    Interpreter,
    TileVal,
    Undefined,
    Value,
    ensure_interpretable,
    group_order,
    outputs_equal,
    outputs_identical,
)
from slotsat.core.options import Planner
from slotsat.lowering.common import Decline, format_expr


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file", help="a kernel file in the tile-level DSL (with --via-pypto: any PyPTO kernel file)")
    add_compat(parser)
    parser.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    add_backend(parser)
    parser.add_argument("--trials", type=int, default=limits.DEFAULT_CHECK_TRIALS,
                        help=f"random inputs per function (default {limits.DEFAULT_CHECK_TRIALS})")
    add_pypto_options(parser)


@dataclass
class LoopVerdict:
    loop: ir.ForStmt
    decision: str
    violations: list[str] = field(default_factory=list)
    decline: Decline | None = None
    """Why the slots pass declined the loop, if it did."""


@dataclass
class FunctionCheck:
    program: str
    function: ir.Function
    transformed: ir.Function | None = None
    loops: list[LoopVerdict] = field(default_factory=list)
    trials_run: int = 0
    mismatch: str | None = None
    rejection: str | None = None
    unverified: str | None = None
    notes: list[str] = field(default_factory=list)
    open_outputs: str | None = None
    """What undefined data reaches among the original's outputs, where it reaches only some
    elements (they are open, not compared: `outputs match where defined`)."""
    privacy_errors: list[str] = field(default_factory=list)
    by_span: dict[tuple[int, int], LoopVerdict] = field(default_factory=dict)
    """Loop verdicts by the span of the loop in the original or the transformed program."""

    @property
    def failed(self) -> bool:
        return self.mismatch is not None or self.rejection is not None or bool(self.privacy_errors)

    @property
    def qualified(self) -> str:
        return f"{self.program}.{self.function.name}"


@dataclass
class CheckResult:
    functions: list[FunctionCheck]

    @property
    def failed(self) -> bool:
        return any(f.failed for f in self.functions)

    @property
    def unverified(self) -> list[str]:
        """Why some function's outputs were compared on no input (`confirmed` needs one, and a
        file with no function with tile operations compares nothing)."""
        if not self.functions:
            return ["the file has no function with tile operations, so nothing was compared"]
        return [f"{f.qualified}: {f.unverified}" for f in self.functions
                if f.unverified is not None and not f.failed]

    @property
    def confirmed(self) -> bool:
        return not self.failed and not self.unverified


def _has_tile_ops(fn: ir.Function) -> bool:
    for s in ir.walk_stmts(fn.body):
        call = s.value if isinstance(s, ir.AssignStmt) else s.call if isinstance(s, ir.EvalStmt) else None
        if isinstance(call, ir.Call) and call.op.startswith("tile.") and call.op != "tile.alloc":
            return True
    return False


def _transform(fn: ir.Function, backend: Backend, compat: bool, fc: FunctionCheck) -> list[Decline]:
    from slotsat.app.pipeline import CompileOptions, function_passes

    opts = CompileOptions(planner=Planner.PTOAS, backend=backend, compat=compat)
    declines: list[Decline] = []
    current = fn
    for p in function_passes(opts):
        try:
            result = p.run(current)
        except SlotsatError as err:
            if p.name == "init-memref":
                fc.notes.append(f"init-memref rejected the program ({err.message}); checked the program "
                                "before it")
                break
            fc.rejection = f"{p.name}: {err.message}"
            return declines
        declines.extend(result.declines)
        current = result.function
    fc.transformed = current
    return declines


def _run_transformed(fn: ir.Function, args: dict[str, Any], identity: dict[str, int],
                     functions: dict[str, ir.Function] | None, undefined: Undefined) -> tuple[Value, ...]:
    """The transformed program's `_outputs` (the physical-buffer model, pipelined loads),
    filling undefined data as `undefined` says."""
    it = _interpreter(identity, True, functions, undefined)
    return _outputs(fn, it, it.run(fn, args))


def _outputs(fn: ir.Function, it: Interpreter, values: tuple[Value, ...]) -> tuple[Value, ...]:
    """What a run of `fn` produced: the values it returned (a returned tile as the elements of
    its valid part), then each tensor parameter as the run left it, in parameter order (a
    kernel's writes to its tensors are outputs whether it returns them or not; `_labels` names
    them)."""
    returned = [_valid_part(v) if isinstance(v, TileVal) else v for v in values]
    tensors = [it.tensors_after.get(p.name_hint) for p in fn.params if isinstance(p.type, ir.TensorType)]
    return (*returned, *tensors)


def _valid_part(t: TileVal) -> Value:
    """A returned tile's value: the elements of its valid part (the tile itself in a symbolic
    run)."""
    return t if t.data is None else t.data[:t.valid[0], :t.valid[1]].copy()


def _labels(fn: ir.Function, outputs: tuple[Value, ...]) -> list[str]:
    """Names for the entries of `_outputs(fn, ...)` in a difference."""
    tensors = [f"tensor '{p.name_hint}'" for p in fn.params if isinstance(p.type, ir.TensorType)]
    return [f"result {i}" for i in range(len(outputs) - len(tensors))] + tensors


def _interpreter(identity: dict[str, int], physical: bool, functions: dict[str, ir.Function] | None,
                 undefined: Undefined) -> Interpreter:
    return Interpreter(physical=physical, prefetch=physical, max_steps=limits.interp_max_steps(),
                       max_iterations=limits.interp_max_iterations(),
                       max_elements=limits.interp_max_elements(), identity=identity,
                       functions=functions or {}, undefined=undefined)


def _run_original(fn: ir.Function, args: dict[str, Any], identity: dict[str, int],
                  functions: dict[str, ir.Function] | None, undefined: Undefined) -> tuple[Value, ...]:
    """The original program's `_outputs` (private tiles), filling undefined data as `undefined`
    says."""
    it = _interpreter(identity, False, functions, undefined)
    return _outputs(fn, it, it.run(fn, args))


Functions: TypeAlias = dict[str, ir.Function]
Rerun: TypeAlias = Callable[[Undefined], tuple[Value, ...]]
"""The original program on one trial's inputs, run with the given filling of undefined data."""


@dataclass(frozen=True)
class _Open:
    """The output elements of the original that undefined data reaches (they change with its
    filling): not compared (`_defined_part`)."""

    masks: tuple[Array | None, ...]
    """Per output, True where the element is open; None where none is."""
    note: str
    """What reaches them, as a note on the function."""


def _undefined_reaches(rerun: Rerun, expected: tuple[Value, ...], undefined: Undefined, seed: int,
                       labels: list[str]) -> str | _Open | None:
    """How undefined data reaches the outputs of the original program (the run that gave
    `expected` used `undefined`, filling 0; see `interpreter.Undefined`): None when it read
    none or its outputs are exactly the same under every other filling of that data; the
    elements that change (`_Open`); or why the outputs are not pinned down (a run faults, a
    scalar output or a paged tensor changes, or every element of some output changes)."""
    if not undefined.reads:
        return None
    others: list[tuple[Value, ...]] = []
    for filling in range(1, UNDEFINED_FILLINGS):
        try:
            others.append(rerun(Undefined(filling=filling, seed=seed)))
        except InterpreterLimit:
            raise
        except InterpreterError as err:
            fill = functools.partial(Undefined, filling=filling, seed=seed)
            what = _culprit(rerun, expected, undefined, fill, labels) or "; ".join(undefined.reads)
            return (f"undefined data reaches the program's control: {what}; with another filling of it the "
                    f"run faults: {err.message}")
    diffs = [(k, d) for k, other in enumerate(others, 1)
             if (d := outputs_identical(expected, other, labels=labels)) is not None]
    if not diffs:
        return None
    filling, detail = diffs[0]
    fill = functools.partial(Undefined, filling=filling, seed=seed)
    what = _culprit(rerun, expected, undefined, fill, labels) or "; ".join(undefined.reads)
    masks = _open_masks(expected, others)
    reaches = f"undefined data reaches an output: {what}; with another filling of it, {detail}"
    if masks is None or any(m is not None and bool(m.all()) for m in masks):
        return reaches  # an output with no defined element: nothing of it to compare
    counts = ", ".join(f"{labels[i] if i < len(labels) else f'result {i}'}: {int(m.sum())} of {m.size}"
                       for i, m in enumerate(masks) if m is not None)
    return _Open(masks, f"undefined data reaches some output elements ({counts}): {what}; they are open on "
                        "the device and were not compared (outputs match where defined)")


def _culprit(rerun: Rerun, expected: tuple[Value, ...], undefined: Undefined, fill: Callable[..., Undefined],
             labels: list[str]) -> str | None:
    """The undefined read whose filling alone (`fill(only=read)`) changes the outputs or makes
    the run fault (refilled one read at a time, in `reads` order), or None when no one read
    does alone."""
    if len(undefined.reads) == 1:
        return undefined.reads[0]
    for read in undefined.reads:
        try:
            other = rerun(fill(only=read))
        except InterpreterLimit:
            raise
        except InterpreterError:
            return read
        if outputs_identical(expected, other, labels=labels) is not None:
            return read
    return None


def _open_masks(expected: tuple[Value, ...],
                others: list[tuple[Value, ...]]) -> tuple[Array | None, ...] | None:
    """Per output, where any other filling's run differs from `expected` (None where none
    does); None when an output that differs is not an array held whole (a scalar, a paged
    tensor), so no part of it can be set aside."""
    masks: list[Array | None] = []
    for i, x in enumerate(expected):
        mask: Array | None = None
        for other in others:
            y = other[i] if i < len(other) else None
            if outputs_identical((x,), (y,)) is None:
                continue
            if not (isinstance(x, np.ndarray) and isinstance(y, np.ndarray) and x.shape == y.shape):
                return None
            same = (x == y) | (np.isnan(x) & np.isnan(y)) if np.issubdtype(x.dtype, np.floating) else x == y
            mask = ~same if mask is None else mask | ~same
        masks.append(mask)
    return tuple(masks)


def _defined_part(got: tuple[Value, ...], trial: _Trial) -> tuple[Value, ...]:
    """`got` with the original's values where its outputs are open (`_Open`), so a
    comparison looks at the defined elements only."""
    if not trial.open:
        return got
    out: list[Value] = []
    for i, y in enumerate(got):
        mask = trial.open[i] if i < len(trial.open) else None
        x = trial.expected[i]
        if mask is not None and isinstance(y, np.ndarray) and isinstance(x, np.ndarray) \
                and x.shape == y.shape:
            out.append(np.where(mask, x, y))
        else:
            out.append(y)
    return tuple(out)


@dataclass(frozen=True)
class _Trial:
    """One trial's reference point: the original's outputs (private tiles), their labels, the
    trial's name in messages and the seed of its other fillings of undefined data."""

    expected: tuple[Value, ...]
    labels: list[str]
    where: str
    seed: int
    open: tuple[Array | None, ...] = ()
    """Per output, the elements undefined data reaches in the original (`_Open`), not compared."""


def _transformed_differs(run: Rerun, trial: _Trial, subject: str = "the transformed program") -> str | None:
    """How `subject`'s outputs (the transformed program's, by default) differ from the
    original's `trial.expected` (or that it faults); None when they agree under every filling
    of the undefined data it reads: the original's outputs do not depend on that data, so
    the transformed program's must not either."""
    where = trial.where
    fillings = [Undefined()]
    for undefined in fillings:  # grows by the other fillings once the first run read undefined data
        other = f" with another filling of undefined data ({fillings[0].reads[0]})" if undefined.filling \
            else ""
        try:
            got = run(undefined)
        except InterpreterLimit:
            raise  # `_differential` says unverified: a limit says nothing of the transformation
        except InterpreterError as err:
            return f"{subject} faults {where}{other} where the original does not: {err.message}"
        diff = outputs_equal(trial.expected, _defined_part(got, trial), labels=trial.labels)
        if diff is not None:
            return f"{subject} differs {where}{other}: {diff}"
        if undefined.filling == 0 and undefined.reads:
            fillings.extend(Undefined(filling=k, seed=trial.seed) for k in range(1, UNDEFINED_FILLINGS))
    return None


def _authors_own(written: Rerun, transformed: Rerun, trial: _Trial) -> str | None:
    """The transformed program's mismatch restated as the program's own, when the program as
    written, run on the slot declarations its author wrote (`written`, as the device runs it),
    already departs from its private-tile meaning and the transformed program does exactly
    what it does: then the slots pass did not cause the difference. None otherwise (the
    program as written agrees, or the transformed program does something else again)."""
    own = _transformed_differs(written, trial,
                               subject="the program as written, on its own slot declarations,")
    if own is None:
        return None
    outcomes: list[tuple[Value, ...] | str] = []
    for run in (written, transformed):
        try:
            outcomes.append(run(Undefined()))
        except InterpreterLimit:
            raise
        except InterpreterError as err:
            outcomes.append(err.message)
    a, b = outcomes
    if isinstance(a, str) or isinstance(b, str):
        same = a == b
    else:
        same = outputs_identical(a, b, labels=trial.labels) is None
    return f"{own}; the transformed program does the same (not caused by the slots pass)" if same else None


def _compare_transformed(fc: FunctionCheck, run: Rerun, written: Rerun | None, trial: _Trial) -> None:
    """Set `fc.mismatch` when the transformed program departs from the original on `trial`
    (as the program's own mismatch where `_authors_own` says so; `written`: the program as
    written on its author's slot declarations, None without any), or `fc.unverified` when a
    run reached an interpreter limit (a limit is no fault: it says nothing of either)."""
    try:
        fc.mismatch = _transformed_differs(run, trial)
    except InterpreterLimit as err:
        fc.unverified = f"the transformed program: {err.message}"
        return
    if fc.mismatch is None or written is None:
        return
    try:
        fc.mismatch = _authors_own(written, run, trial) or fc.mismatch
    except InterpreterLimit as err:
        fc.mismatch = None
        fc.unverified = f"the program as written: {err.message}"


def _declares_slots(fn: ir.Function) -> bool:
    """Whether a tile of `fn` is bound to a slot of a declaration the author wrote."""
    for s in ir.walk_stmts(fn.body):
        if isinstance(s, ir.AssignStmt) and isinstance(s.var.type, ir.TileType):
            m = s.var.type.memref
            if m is not None and m.slot_index is not None:
                return True
    return False


def _differential(fc: FunctionCheck, seed: int, trials: int,
                  group: tuple[Functions, Functions] | None = None) -> dict[str, int]:
    """Compare original and transformed on seeded inputs; the scalars of the first good trial.
    With `group` (the program's functions, original and with the transformed halves), `fc` is
    a Group function's check: the group runs its halves together (`Interpreter._run_group`)."""
    assert fc.transformed is not None
    originals, transformed = group if group is not None else (None, None)
    try:
        if group is None:
            for fn in (fc.function, fc.transformed):
                ensure_interpretable(fn, limits.interp_max_elements())
        else:
            group_order(fc.function, originals or {})
    except InterpreterError as err:
        fc.unverified = err.message
        return {}
    rng = np.random.default_rng(seed)
    bounds = Bounds()  # learned from draws the original faulted on (a tensor's end, a tile's extent)
    scalars: dict[str, int] = {}
    attempts = 0
    last_error = ""
    faults = 0
    # sparse draws only for a function that tests its entries for sentinels
    cycle = _CYCLE if sentinel_parameters(fc.function) else _CYCLE[:2]
    while fc.trials_run < trials and attempts < max(trials, 1) * 8:
        attempts += 1
        try:
            # after faulted trials the draws cycle: sized as padded kernels expect, then sparse
            # as the padded maps of LLM kernels are (mostly -1), then plain again
            args = random_inputs(fc.function, rng, draw=cycle[faults % len(cycle)], bounds=bounds)
        except InterpreterError as err:  # no inputs can be drawn (dynamic or too large shapes)
            fc.unverified = f"no random inputs: {err.message}"
            return scalars
        identity = random_identity(rng)
        undefined = Undefined()
        rerun = functools.partial(_run_original, fc.function, args, identity, originals)
        try:
            expected = rerun(undefined)
        except Unmodelled as err:  # another input would meet the same construct
            fc.unverified = f"the interpreter cannot run the original program: {err.message}"
            return scalars
        except InterpreterLimit as err:  # not retried: each attempt could cost the whole limit
            fc.unverified = err.message
            return scalars
        except InterpreterError as err:
            last_error = err.message
            faults += 1
            learn_bounds(fc.function, err, args, bounds, originals)
            continue
        # the device leaves undefined data implementation-defined: no verdict rests on it
        labels = _labels(fc.function, expected)
        try:
            reason = _undefined_reaches(rerun, expected, undefined, abs(seed) * 1_000_003 + attempts, labels)
        except InterpreterLimit as err:
            fc.unverified = err.message
            return scalars
        if isinstance(reason, str):
            fc.unverified = reason
            return scalars
        if reason is not None:
            fc.open_outputs = fc.open_outputs or reason.note
        if not scalars:
            scalars = {k: v for k, v in args.items() if isinstance(v, int)}
        run = functools.partial(_run_transformed, fc.transformed, args, identity, transformed)
        trial = _Trial(expected, labels, f"on trial {attempts} (seed {seed})",
                       abs(seed) * 1_000_003 + attempts, () if reason is None else reason.masks)
        written = functools.partial(_run_transformed, fc.function, args, identity, originals) \
            if _declares_slots(fc.function) else None
        _compare_transformed(fc, run, written, trial)
        if fc.mismatch is not None or fc.unverified is not None:
            return scalars
        fc.trials_run += 1
    if fc.trials_run == 0:
        fc.unverified = f"the original program faults on every random input: {last_error}"
    return scalars


_CYCLE = (Draw.PLAIN, Draw.SIZED, Draw.SPARSE)
"""The input draws `check` cycles through, one step per faulted trial (the sparse one only
where `sentinel_parameters` finds a tensor whose entries the function tests for -1)."""


def _privacy(fc: FunctionCheck, scalars: dict[str, int]) -> list[tuple[str, PrivacyReport]]:
    out: list[tuple[str, PrivacyReport]] = []
    targets = [("as written", fc.function)]
    if fc.transformed is not None:
        targets.append(("after the slots pass", fc.transformed))
    for label, fn in targets:
        try:
            report = check_privacy(fn, scalars, max_iterations=limits.privacy_max_iterations(),
                                   max_steps=limits.privacy_max_steps())
        except InterpreterError as err:
            fc.notes.append(f"privacy check {label} stopped: {err.message}")
            continue
        out.append((label, report))
        fc.notes.extend(f"privacy {label}: {n}" for n in report.notes)
    return out


def _slot_text(loop: ir.ForStmt) -> str:
    parts = []
    for s in loop.body.stmts:
        if isinstance(s, ir.AssignStmt) and isinstance(s.var.type, ir.TileType):
            m = s.var.type.memref
            if m is not None and m.slot_count > 1 and m.slot_index is not None:
                parts.append(f"{s.var.name_hint}[{format_expr(m.slot_index)}]")
    return ", ".join(parts)


def _decisions(fc: FunctionCheck, declines: list[Decline]) -> None:
    by_span = {(d.span.line, d.span.col): d for d in declines if d.loop is not None}
    before = [s for s in ir.walk_stmts(fc.function.body) if isinstance(s, ir.ForStmt)]
    transformed = [] if fc.transformed is None else \
        [s for s in ir.walk_stmts(fc.transformed.body) if isinstance(s, ir.ForStmt)]
    after: dict[tuple[int, int], ir.ForStmt] = {}
    for s in transformed:
        after.setdefault((s.span.line, s.span.col), s)
    same_shape = len(before) == len(transformed)  # no replication: loops correspond in pre-order
    for index, s in enumerate(before):
        key = (s.span.line, s.span.col)
        stages = s.stages
        d = by_span.get(key)
        if d is not None:
            decision = f"declined ({d.code}), replicated"
        elif stages is not None and stages > 1:
            t = transformed[index] if same_shape else after.get(key)
            slots = _slot_text(t) if t is not None else ""
            decision = f"rotated: {slots}" if slots else "rotated"
        else:
            slots = _slot_text(s)
            decision = "pipeline stage=1" if stages == 1 else "range"
            if slots:
                decision += f", author slots {slots}"
        verdict = LoopVerdict(s, decision, decline=d)
        fc.loops.append(verdict)
        fc.by_span.setdefault(key, verdict)
        if same_shape:
            t_span = transformed[index].span
            fc.by_span.setdefault((t_span.line, t_span.col), verdict)


def _attach_violations(fc: FunctionCheck, reports: list[tuple[str, PrivacyReport]]) -> None:
    for label, report in reports:
        for v in report.violations:
            text = f"privacy {label}: {v.message()}"
            fc.privacy_errors.append(text)
            lv = fc.by_span.get((v.loop_span.line, v.loop_span.col))
            if lv is not None:
                lv.violations.append(text)


@dataclass(frozen=True)
class CheckOptions:
    seed: int = 0
    trials: int = limits.DEFAULT_CHECK_TRIALS
    backend: Backend = Backend.ASCEND910B
    compat: bool = False


def check_function(program: str, fn: ir.Function, options: CheckOptions | None = None, *,
                   in_group: bool = False) -> FunctionCheck:
    """Everything `slotsat check` does for one function (`in_group`: a half of a mixed kernel
    whose outputs `check_module` compares through its Group function)."""
    opts = options if options is not None else CheckOptions()
    seed, trials, backend, compat = opts.seed, opts.trials, opts.backend, opts.compat
    fc = FunctionCheck(program, fn)
    with limits.deep_recursion(f"function '{fn.name}'", fn.span):
        declines = _transform(fn, backend, compat, fc)
        _decisions(fc, declines)
        if fc.transformed is None:
            return fc
        if in_group:  # `_check_group` compares it (and clears this) or leaves this reason
            fc.unverified = "its outputs are compared only through the Group function that calls it, " \
                            "which did not run"
            return fc
        scalars = _differential(fc, seed, trials)
        _attach_violations(fc, _privacy(fc, scalars))
    return fc


def check_module(module: ir.Module, options: CheckOptions | None = None) -> CheckResult:
    """`check_function` for every function with tile operations."""
    opts = options if options is not None else CheckOptions()
    out: list[FunctionCheck] = []
    for program in module.programs:
        functions = {fn.name: fn for fn in program.functions}
        halves: dict[str, ir.Function] = {}  # a half of a mixed kernel -> the Group function calling it
        for fn in program.functions:
            if fn.type is ir.FunctionType.GROUP:
                for name in _half_calls(fn):
                    halves.setdefault(name, fn)
        checks: dict[str, FunctionCheck] = {}
        for fn in program.functions:
            if _has_tile_ops(fn):
                fc = check_function(program.name, fn, opts, in_group=fn.name in halves)
                checks[fn.name] = fc
                out.append(fc)
        for group in dict.fromkeys(halves.values()):
            _check_group(program.name, group, functions, checks, opts)
    return CheckResult(out)


def _half_calls(group: ir.Function) -> dict[str, ir.Call]:
    """The functions a Group function calls, by name: as a statement or bound to a name (the
    reference binds the AIV half's tuple result)."""
    out: dict[str, ir.Call] = {}
    for s in ir.walk_stmts(group.body):
        call = s.call if isinstance(s, ir.EvalStmt) else s.value if isinstance(s, ir.AssignStmt) else None
        if isinstance(call, ir.Call) and call.op.startswith("self."):
            out.setdefault(call.op[len("self."):], call)
    return out


def _check_group(program: str, group: ir.Function, functions: dict[str, ir.Function],
                 checks: dict[str, FunctionCheck], opts: CheckOptions) -> None:
    """Compare a Group function's outputs, its halves as written against its halves after the
    passes, and record the verdict on each half's check."""
    calls = _half_calls(group)
    mine = [fc for name, fc in checks.items() if name in calls]
    if any(fc.failed or fc.transformed is None for fc in mine):
        return
    transformed = dict(functions)
    for fc in mine:
        assert fc.transformed is not None
        transformed[fc.function.name] = fc.transformed
    gc = FunctionCheck(program, group, transformed=group)
    with limits.deep_recursion(f"function '{group.name}'", group.span):
        scalars = _differential(gc, opts.seed, opts.trials, (functions, transformed))
    for fc in mine:
        # the privacy check of each half, with the scalars the group passed it on the first trial
        args = calls[fc.function.name].args
        passed = {p.name_hint: scalars[a.name_hint] for p, a in zip(fc.function.params, args, strict=False)
                  if isinstance(a, ir.Var) and a.name_hint in scalars}
        with limits.deep_recursion(f"function '{fc.function.name}'", fc.function.span):
            _attach_violations(fc, _privacy(fc, passed))
        fc.trials_run, fc.mismatch, fc.open_outputs = gc.trials_run, gc.mismatch, gc.open_outputs
        fc.unverified = None if gc.unverified is None else f"through group '{group.name}': {gc.unverified}"
        if gc.unverified is None:
            fc.notes.append(f"outputs compared through group function '{group.name}' (its AIC and AIV halves "
                            "run together, the producer first)")


def _pos(span: Span) -> str:
    return f"{max(span.line, 1)}:{max(span.col, 1)}"


def render(result: CheckResult, file: str) -> list[str]:
    """The report lines (see the module docstring)."""
    lines: list[str] = []
    for fc in result.functions:
        if fc.rejection is not None:
            lines.append(f"{file}:{_pos(fc.function.span)}: error: {fc.qualified}: {fc.rejection}")
            continue
        if fc.mismatch is not None:
            outputs = "outputs DIFFER"
        elif fc.unverified is not None:
            outputs = "outputs not verified"
        else:
            defined = " where defined" if fc.open_outputs is not None else ""
            outputs = f"outputs match{defined} ({fc.trials_run} trials)"
        if not fc.loops:
            privacy = "privacy ok" if not fc.privacy_errors else "privacy VIOLATED"
            lines.append(f"{file}:{_pos(fc.function.span)}: {fc.qualified}: no loops; {outputs}; {privacy}")
        for lv in fc.loops:
            privacy = "privacy ok" if not lv.violations else f"privacy VIOLATED ({len(lv.violations)})"
            name = lv.loop.loop_var.name_hint
            lines.append(f"{file}:{_pos(lv.loop.span)}: loop '{name}' in {fc.qualified}: "
                         f"{lv.decision}; {outputs}; {privacy}")
            if lv.decline is not None:
                lines.append(f"{file}:{_pos(lv.loop.span)}: note: loop '{name}' declined "
                             f"({lv.decline.code}): {lv.decline.message}")
        if fc.mismatch is not None:
            lines.append(f"{file}:{_pos(fc.function.span)}: error: {fc.qualified}: {fc.mismatch}")
        where = f"{file}:{_pos(fc.function.span)}"
        lines.extend(f"{where}: error: {fc.qualified}: {e}" for e in fc.privacy_errors)
        if fc.unverified is not None:
            lines.append(f"{file}:{_pos(fc.function.span)}: note: {fc.qualified}: {fc.unverified}")
        if fc.open_outputs is not None and fc.unverified is None and fc.mismatch is None:
            lines.append(f"{file}:{_pos(fc.function.span)}: note: {fc.qualified}: {fc.open_outputs}")
        lines.extend(f"{file}:{_pos(fc.function.span)}: note: {fc.qualified}: {n}" for n in fc.notes)
    failed = sum(1 for f in result.functions if f.failed)
    loops = sum(len(f.loops) for f in result.functions)
    if failed:
        verdict = f"FAILED ({failed} failing)"
    elif result.unverified:
        verdict = "unverified: " + "; ".join(result.unverified)
    else:
        opened = [f.qualified for f in result.functions if f.open_outputs is not None]
        verdict = "confirmed" if not opened else \
            f"confirmed where defined (undefined data reaches some output elements of {', '.join(opened)})"
    lines.append(f"check: {file}: {len(result.functions)} function(s), {loops} loop(s): {verdict}")
    return lines


def run(args: argparse.Namespace) -> int:
    from slotsat.core.dsl.parser import parse_source

    backend = backend_option(args)
    if args.trials < 1:
        raise UsageError(f"--trials must be at least 1, got {args.trials}")
    text, file = kernel_source(args)
    with limits.deep_recursion("the kernel file", Span(1, 1)):
        module = parse_source(text, file)
    result = check_module(module, CheckOptions(seed=args.seed, trials=args.trials, backend=backend,
                                               compat=args.compat == "pypto"))
    for line in render(result, file):
        print(line)
    return EXIT_OK if result.confirmed else EXIT_REJECTED
