"""Print the reference's IR for slotsat's own test kernels (`tools/printed_kernels.py`).

Run with the Python that has the reference (PyPTO) installed:

    .venv/bin/python tools/gen_printed.py [-o tests/data/printed] [NAME ...]

(only the kernels NAME of `PROGRAMS` / `JIT` when given: a kernel added to the corpus is
generated without rewriting the others, and a kernel the reference's code generator stops on is
reported by name.)

For each kernel it runs the reference's default pass pipeline under the PTOAS memory planner
in one run (as `ir.compile` does, `../shared/tools/pypto/README.md`) and writes what
`program.as_python()` prints just before LowerPipelineToSlots (`NAME.pre.py`, the hand-off
point slotsat reads) and just after it (`NAME.post.py`, the reference's decisions), and the
PTO module the reference's own code generator emits for it (`NAME.ref.pto`: `ir.compile` with
the PTOAS memory planner and `skip_ptoas`, every kernel's `.pto` in path order, source
locations removed). The printed text is the reference's rendering of this project's kernels;
it is committed as test data (`tests/dsl/test_printed.py` reads the IR,
`tests/codegen/test_printed_codegen.py` compares slotsat's codegen with the `.ref.pto`).
Without PyPTO the script says so and exits 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "tests" / "data" / "printed"


class _Stop(BaseException):
    """Ends the pipeline once both snapshots are taken."""


def snapshots(program: Any) -> dict[str, Any]:
    """The program just before and just after the reference's LowerPipelineToSlots."""
    from pypto import passes
    from pypto.backend import BackendType
    from pypto.ir.pass_manager import OptimizationStrategy, PassManager
    from pypto.pypto_core import backend as backend_core

    backend_core.set_backend_type(BackendType.Ascend910B)
    snaps: dict[str, Any] = {}

    def before(p: Any, prog: Any) -> None:
        if p.get_name() == "LowerPipelineToSlots":
            snaps["pre"] = prog

    def after(p: Any, prog: Any) -> None:
        if p.get_name() == "LowerPipelineToSlots":
            snaps["post"] = prog
            raise _Stop

    ctx = passes.PassContext([passes.CallbackInstrument(before_pass=before, after_pass=after)],
                             memory_planner=passes.MemoryPlanner.PTOAS)
    with ctx:
        manager = PassManager.get_strategy(OptimizationStrategy.Default)
        try:
            manager.run_passes(program)
        except _Stop:
            pass
    return snaps


def reference_pto(program: Any) -> str:
    """The reference's own PTO text for `program` (every kernel module, in path order)."""
    import re
    import tempfile

    from pypto import ir, passes

    with tempfile.TemporaryDirectory() as out:
        ir.compile(program, out, skip_ptoas=True, memory_planner=passes.MemoryPlanner.PTOAS,
                   dump_passes=False)
        modules = sorted(Path(out, "kernels").rglob("*.pto"))
        text = "".join(f"// {m.relative_to(out)}\n{m.read_text()}" for m in modules)
    return re.sub(r" loc\([^\n]*\)$", "", text, flags=re.MULTILINE)


def jit_program(fn: Any) -> Any:
    """The `ir.Program` of a `@pl.jit` kernel specialized from its annotations; its scalar
    parameters stay runtime values (`pl.RUNTIME`)."""
    import re

    import pypto.language as pl

    kwargs: dict[str, Any] = {}
    for _ in range(32):
        try:
            spec, _ = fn._resolve_specialization((), kwargs, allow_signature_mode=True)
            break
        except TypeError as err:
            missing = re.search(r"scalar parameter '(\w+)' has no value", str(err))
            if missing is None:
                raise
            kwargs[missing.group(1)] = pl.RUNTIME
    program, _ = fn._compile_to_program_with_rename_map(spec.tensor_meta, spec.scalar_values,
                                                        spec.scalar_dtypes, spec.per_func_dyn, pl)
    return program


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--out", type=Path, default=OUT)
    ap.add_argument("names", nargs="*", metavar="NAME", help="only these kernels (default: every one)")
    args = ap.parse_args(argv)
    try:
        sys.path.insert(0, str(HERE))
        import printed_kernels as kernels
    except ImportError as err:
        print(f"gen_printed: the reference compiler is not installed ({err}); see "
              "../shared/tools/pypto/README.md", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    wanted = set(args.names) or set(kernels.PROGRAMS) | set(kernels.JIT)
    unknown = sorted(wanted - set(kernels.PROGRAMS) - set(kernels.JIT))
    if unknown:
        print(f"gen_printed: no kernel named {', '.join(unknown)}", file=sys.stderr)
        return 2
    programs: dict[str, Any] = {n: p for n, p in kernels.PROGRAMS.items() if n in wanted}
    programs.update({name: jit_program(fn) for name, fn in kernels.JIT.items() if name in wanted})
    for name, program in programs.items():
        snaps = snapshots(program)
        if "pre" not in snaps:
            print(f"gen_printed: {name} did not reach LowerPipelineToSlots", file=sys.stderr)
            return 1
        for key, prog in snaps.items():
            path = args.out / f"{name}.{key}.py"
            path.write_text(prog.as_python() + "\n")
            print(f"wrote {path}")
        path = args.out / f"{name}.ref.pto"
        try:
            text = reference_pto(program)
        except RuntimeError as err:  # the reference's code generator stops on this kernel
            print(f"gen_printed: {name}: the reference's code generator stopped: {err}", file=sys.stderr)
            return 1
        path.write_text(text)
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
