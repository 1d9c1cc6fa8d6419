"""The `slotsat` command line (`00-overview.md` §8).

Each subcommand is a module exposing `configure(parser)` and `run(args) -> int`: the
compiler's commands live in `slotsat/app/commands/`, `bench` and `demo` (which measure the
compiler and so sit above it) in `bench/`. The CLI is the entry point: it names each command
by module path and imports only the one asked for, so `slotsat promote` never pays for
egglog and `slotsat parse` never pays for xdsl.
"""

from __future__ import annotations

import argparse
import atexit
import importlib
import os
import sys
import threading
from collections.abc import Sequence
from typing import NoReturn, Protocol, cast

from slotsat import __version__
from slotsat.app.commands import UsageError
from slotsat.core.errors import EXIT_INTERNAL, EXIT_UNREADABLE, SlotsatError

_APP = "slotsat.app.commands"
COMMANDS: dict[str, tuple[str, str]] = {
    "parse": (f"{_APP}.parse", "parse a kernel file and print it back in the DSL"),
    "slots": (f"{_APP}.slots",
              "run lower-pipeline-to-slots (and optionally replication) and print the decisions"),
    "codegen": (f"{_APP}.codegen", "compile a kernel file to PTO MLIR text"),
    "explore": (f"{_APP}.explore", "show every form the e-graph reaches for one index expression"),
    "promote": (f"{_APP}.promote", "ptoas persistent-fragment loop promotion (and unroll) on MLIR text"),
    "bench": ("slotsat.bench.command",
              "measure extracted code size, matcher resolution and compile-time scaling"),
    "check": (f"{_APP}.check",
              "run the slots pass and check it with the interpreter and the slot-privacy checker"),
    "demo": ("slotsat.bench.demo", "run the main job on the bundled kernels"),
    "import": (f"{_APP}.import_kernel",
               "write the IR PyPTO prints for a kernel file at the hand-off point (runs FILE under PyPTO)"),
}
"""Command name -> (module, one-line help)."""


class _Command(Protocol):
    def configure(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


def _load(name: str) -> _Command:
    return cast(_Command, importlib.import_module(COMMANDS[name][0]))


def build_parser(argv: Sequence[str]) -> argparse.ArgumentParser:
    from slotsat.app.commands import SWITCHES

    parser = argparse.ArgumentParser(
        prog="slotsat",
        description="Equality-saturation multi-buffering for PyPTO tile kernels and ptoas.",
        epilog="Three switches say pypto, and each changes one thing (every other default is the same):\n"
               + "\n".join(f"  {line}" for line in SWITCHES),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"slotsat {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    wanted = next((a for a in argv if a in COMMANDS), None)
    for name, (_, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if name == wanted:
            _load(name).configure(p)
    return parser


BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
"""The thread counts of the BLAS numpy may be built with. The interpreter's matrix products
(`check`) are tile-sized, and BLAS worker threads cost more than they give on them: `slotsat
check` of the library's deepseek_v4_pro expert kernel took 5.8 s with one thread and 6.3 s
(10.3 s of CPU) with two on an idle 2-core machine, 2.9 s and 5.2 s beside another job. So one
thread, where the environment does not say otherwise; numpy reads them when it is first
imported, which `main` precedes."""


def main(argv: Sequence[str] | None = None) -> int:
    for var in BLAS_THREADS:
        os.environ.setdefault(var, "1")
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(args_list)
    args = parser.parse_args(args_list)
    try:
        return _load(args.command).run(args)
    except UsageError as err:
        print(f"slotsat: error: {err}", file=sys.stderr)
        return EXIT_UNREADABLE
    except SlotsatError as err:
        print(err.render(getattr(args, "file", "<input>")), file=sys.stderr)
        return err.exit_status
    except KeyboardInterrupt:
        print("slotsat: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`slotsat explore ... | head`): not an error of ours. Point
        # stdout at devnull so the interpreter's final flush does not complain again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except RecursionError:
        print("slotsat: internal error: recursion limit reached", file=sys.stderr)
        return EXIT_INTERNAL
    except Exception as err:  # the one place a bug turns into exit status 3
        print(f"slotsat: internal error: {type(err).__name__}: {err}", file=sys.stderr)
        return EXIT_INTERNAL


def entry() -> NoReturn:
    """The `slotsat` program (console script and `python -m slotsat`): `main`, then a quick exit.

    Once `main` has returned, its output is written and the process only has to end. A normal
    interpreter exit would first tear down everything the run left (the compilation's result,
    the e-graph templates, every imported module) and run a last full collection: 0.5-0.7 s
    after the 3-3.5 s `slotsat codegen` of the 1,000-loop single-function bench kernel,
    measured on the 2-core machine. So this flushes the standard streams, runs the exit
    handlers (the index engine's worker stops, the bulk loader's temporary directories are
    removed: `weakref.finalize` runs through them) and ends the process with `os._exit`,
    as mypy does. A `SystemExit` from argparse (`--help`, a usage error) exits normally, and
    so does a process with a non-daemon thread still running (none of slotsat's own)."""
    status = main()
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except BrokenPipeError:  # the reader went away: as in `main`, not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except OSError as err:  # a full disk: the output is incomplete
        print(f"slotsat: error: cannot write standard output: {err.strerror or err}", file=sys.stderr)
        status = status or EXIT_UNREADABLE
    if sys.stderr is not None:
        sys.stderr.flush()
    main_thread = threading.main_thread()
    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not main_thread):
        sys.exit(status)  # a thread the interpreter's own exit waits for: let it finish
    atexit._run_exitfuncs()
    os._exit(status)


if __name__ == "__main__":
    entry()
