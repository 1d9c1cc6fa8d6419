"""The bridge's worker: runs inside an interpreter that has PyPTO, never inside slotsat.

Started by `slotsat.bridge.session` as `PYTHON worker.py` (by path, so the interpreter
needs PyPTO but not slotsat). It imports only the standard library at module level and
PyPTO once at start-up, then answers one JSON request per line on its standard input with
one JSON line on its original standard output. Everything else the reference or a kernel
file prints goes to standard error: file descriptor 1 is pointed at 2 before anything runs,
and standard input at /dev/null, so a kernel that prints or reads cannot corrupt the
protocol.

Protocol (every message one line of JSON):

- first, unasked: `{"hello": true, "version": V, "python": P}`, or `{"hello": false,
  "missing": MODULE | null, "message": M}` when PyPTO cannot be imported (the worker exits);
- `{"op": "compile", "path": FILE, "kernel": NAME | null, "specialize": {NAME: VALUE},
  "oracle": BOOL}`: run FILE as Python, find its kernels (every `@pl.program` class and
  every `@pl.jit` entry it defines, or the one named), and run the reference's pass
  pipeline once per kernel under `memory_planner=PTOAS` with an instrument that prints the
  IR just before `LowerPipelineToSlots` (the hand-off point) and stops there; with
  `oracle` it runs on and also prints the IR after `LowerPipelineToSlots` and after
  `LowerPipelineLoops`, with a summary of every loop in each. A VALUE is `{"int": N}`,
  `{"float": X}`, `{"bool": B}`, `{"runtime": true}` (`pl.RUNTIME`) or `{"tensor": {"shape":
  [D, ...], "dtype": NAME}}` (a tensor parameter: the kernel is specialized the way the
  reference does it from sample tensors, `lower(**samples)`, with shape-only tensors of that
  shape and dtype on torch's `meta` device);
- with `"from_main": true` in a compile request, a `@pl.jit` kernel takes its arguments
  instead from the first call (`kernel(...)`, `kernel.lower(...)` or `kernel.compile(...)`)
  the file's `if __name__ == "__main__":` block makes to it: the worker runs that block (as
  `python -O` would) with those methods replaced by a recorder that runs and builds nothing
  (`lower` still returns the program), and stops it once every kernel that needs arguments has
  been called; the kernel is then lowered with the recorded arguments (a `config=` keyword,
  PyPTO's run configuration, is dropped);
- `{"op": "parse", "text": T}`: `pl.parse_program(T)`, answered with the program printed
  back;
- every answer is `{"ok": true, ...}` or `{"ok": false, "error": {"file", "line", "col",
  "message", "kind"}}` with the reference's own message and the best location it gives.
"""

from __future__ import annotations

import importlib.util
import inspect
import itertools
import json
import os
import re
import sys
import traceback
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple, TextIO

HANDOFF_PASS = "LowerPipelineToSlots"
LOOPS_PASS = "LowerPipelineLoops"
MAX_MESSAGE = 600
"""Characters of a reference message passed on (its own diagnostics can run to pages)."""


class Failure(Exception):
    """A request that cannot be answered: a located, one-line error."""

    def __init__(self, message: str, file: str, line: int = 1, col: int = 1, kind: str = "reference") -> None:
        super().__init__(message)
        self.payload = {"file": file, "line": max(line, 1), "col": max(col, 1),
                        "message": _one_line(message), "kind": kind}


class _Stop(BaseException):
    """Ends a pass-pipeline run once the snapshots are taken (not an `Exception`, so the
    reference's own `except Exception` handlers let it through)."""


class _Called(BaseException):
    """Ends a run of the file's `__main__` block once it has called every kernel asked for
    (not an `Exception`, so the block's own handlers let it through)."""


JIT_ENTRY_POINTS = ("__call__", "lower", "compile")
"""The methods of a jit kernel through which a file's `__main__` block specializes it: running
it on the device, lowering it, compiling it. `--from-main` records the first such call."""


def _one_line(text: str) -> str:
    line = " ".join(part.strip() for part in text.strip().splitlines() if part.strip())
    return line if len(line) <= MAX_MESSAGE else line[: MAX_MESSAGE - 3] + "..."


def _chain(err: BaseException) -> list[BaseException]:
    """`err` and its causes / contexts, outermost first."""
    out: list[BaseException] = []
    seen: set[int] = set()
    cur: BaseException | None = err
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        out.append(cur)
        cur = cur.__cause__ if cur.__cause__ is not None else cur.__context__
    return out


def _span_of(err: BaseException) -> tuple[str, int, int] | None:
    """The location a PyPTO diagnostic or a SyntaxError carries, if any."""
    if isinstance(err, SyntaxError) and err.filename and err.lineno:
        return err.filename, err.lineno, err.offset or 1
    span = getattr(err, "span", None)
    if isinstance(span, dict) and span.get("filename") and span.get("line"):
        return str(span["filename"]), int(span["line"]), int(span.get("column") or 1)
    return None


def _message_of(err: BaseException) -> str:
    if isinstance(err, SyntaxError):
        return f"{type(err).__name__}: {err.msg}"  # str() adds "(FILE, line N)"
    message = getattr(err, "message", None)
    text = message if isinstance(message, str) and message else str(err)
    hint = getattr(err, "hint", None)
    if isinstance(hint, str) and hint:
        text = f"{text} ({hint})"
    if isinstance(err, (SyntaxError, NameError, ImportError, AttributeError, TypeError, KeyError)) \
            and not type(err).__module__.startswith("pypto"):
        return f"{type(err).__name__}: {text}"
    return text


def _package_of(path: str) -> tuple[str, str] | None:
    """For a file that uses relative imports (`from .config import ...`) inside a package
    (folders with `__init__.py`): the folder above its outermost package and its dotted module
    name. None for any other file, which loads as `python FILE` would."""
    import ast

    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError, ValueError):
        return None  # loading reports it, located
    if not any(isinstance(n, ast.ImportFrom) and n.level > 0 for n in ast.walk(tree)):
        return None
    folder = os.path.dirname(os.path.abspath(path))
    parts = [os.path.splitext(os.path.basename(path))[0]]
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        parts.append(os.path.basename(folder))
        folder = os.path.dirname(folder)
    if len(parts) == 1:
        return None  # not in a package: the relative import fails as it would under python FILE
    return folder, ".".join(reversed(parts))


def _locate(err: BaseException, path: str, fallback: int = 1, *, text: bool = False) -> Failure:
    """A located failure for an exception raised while running `path` or its kernels.

    The reference often wraps the diagnostic that explains a failure in a vaguer one (a
    parse error in a loop body surfaces as "For loop has 1 iteration arguments but 0 return
    variables"), so the innermost located diagnostic of the chain wins, preferring one in
    the kernel file; without one, the innermost frame of the kernel file in the traceback
    gives the line, and the outermost message is reported. With `text` (parsing a string,
    whose diagnostics name a pseudo file) any located diagnostic counts."""
    chain = _chain(err)
    located = [(e, s) for e in chain if (s := _span_of(e)) is not None]
    real = os.path.realpath(path)
    in_file = [(e, s) for e, s in located if os.path.realpath(s[0]) == real]
    pick = in_file[-1] if in_file else located[-1] if located else None
    if pick is not None and (text or os.path.exists(pick[1][0])):
        e, (file, line, col) = pick
        message = _with_cause(_message_of(e), chain[chain.index(e):])
        return Failure(message, path if os.path.realpath(file) == real else file, line, col)
    line = fallback
    for frame in traceback.extract_tb(err.__traceback__):
        if os.path.realpath(frame.filename) == real and frame.lineno:
            line = frame.lineno
    inner = pick[0] if pick is not None else err
    return Failure(_with_cause(_message_of(inner), chain), path, line, 1)


def _with_cause(message: str, chain: list[BaseException]) -> str:
    """`message`, and the first line of the innermost error below it when that one carries
    no location of its own (a bug inside the reference surfacing as a vague parse error)."""
    root = chain[-1] if chain else None
    if root is None or _span_of(root) is not None or len(chain) < 2:
        return message
    first = next((ln.strip() for ln in str(root).splitlines() if ln.strip()), "")
    if not first or first in message:
        return message
    return f"{message} (caused by {type(root).__name__}: {first})"


class Reference:
    """PyPTO, imported once; answers requests."""

    def __init__(self) -> None:
        import pypto
        import pypto.language as pl
        from pypto import ir, passes
        from pypto.backend import BackendType
        from pypto.ir.pass_manager import OptimizationStrategy, PassManager
        from pypto.jit import JITFunction
        from pypto.pypto_core import backend as backend_core

        backend_core.set_backend_type(BackendType.Ascend910B)  # what ir.compile does first
        self.pl: Any = pl
        self.ir: Any = ir
        self.passes: Any = passes
        self.strategy: Any = OptimizationStrategy.Default
        self.manager: Any = PassManager
        self.jit_type: Any = JITFunction
        self.version = str(getattr(pypto, "__version__", "unknown"))
        self._names = itertools.count()
        self._folders: list[str] = []
        """The folders of earlier requests' kernel files."""
        self._inserted: list[str] = []
        """Those of them this worker put on `sys.path`."""

    # -- requests ---------------------------------------------------------------------

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        op = request.get("op")
        if op == "compile":
            return self.compile(request)
        if op == "parse":
            return self.parse(str(request["text"]))
        raise Failure(f"unknown request {op!r}", "<bridge>", kind="internal")

    def parse(self, text: str) -> dict[str, Any]:
        try:
            program = self.pl.parse_program(text)
        except Exception as err:  # the reference's parser speaks through exceptions
            failure = _locate(err, "<text>", text=True)
            return {"ok": False, "error": failure.payload}
        return {"ok": True, "text": program.as_python()}

    def compile(self, request: dict[str, Any]) -> dict[str, Any]:
        path = str(request["path"])
        module = self._load(path)
        values = dict(request.get("specialize") or {})
        wanted = request.get("kernel")
        from_main = bool(request.get("from_main"))
        builder = self._builder(module, wanted)
        if builder is not None:
            if from_main:
                raise Failure(f"--from-main takes the arguments of @pl.jit kernels; program builder "
                              f"'{wanted}' takes its values from --specialize", path,
                              self._def_line_of(builder), kind="usage")
            kernels = [(str(wanted), self._build(str(wanted), builder, values, path))]
        else:
            kernels = self._kernels(module, path, wanted)
            self._check_specialize(kernels, values, path)
        if from_main and values:
            raise Failure("--from-main takes every argument of a kernel from its call in the file's "
                          "__main__ block; drop --specialize, or drop --from-main and give each argument "
                          "with --specialize", path, kind="usage")
        calls = self._main_calls(path, kernels) if from_main else {}
        oracle = bool(request.get("oracle"))
        out = []
        for name, obj in kernels:
            call = calls.get(name)
            if call is None and isinstance(obj, self.jit_type):
                call = _Call(obj, (), self._arguments(name, obj, values, path, self._def_line(obj)))
            out.append(self._run(name, obj, path, oracle, call))
        return {"ok": True, "kernels": out}

    # -- loading ----------------------------------------------------------------------

    def _forget_earlier_kernels(self) -> None:
        """Each request sees a fresh import state for the kernel's own modules: two model
        folders each with a `config.py` must not share the first one imported. Modules loaded
        from an earlier kernel's folder leave `sys.modules` and the folder leaves `sys.path`;
        PyPTO, torch and the standard library stay (re-importing them would split their
        classes in two)."""
        folders = [os.path.join(f, "") for f in self._folders]
        for name, module in list(sys.modules.items()):
            file = getattr(module, "__file__", None)
            if isinstance(file, str) and any(os.path.abspath(file).startswith(f) for f in folders) \
                    and "site-packages" not in file:
                del sys.modules[name]
        sys.path[:] = [p for p in sys.path if p not in self._inserted]
        self._folders, self._inserted = [], []

    def _load(self, path: str) -> Any:
        if not os.path.isfile(path):
            raise Failure("cannot read the file: no such file", path, kind="usage")
        self._forget_earlier_kernels()
        directory = os.path.dirname(os.path.abspath(path))
        self._folders.append(directory)
        if directory not in sys.path:
            sys.path.insert(0, directory)  # as `python FILE` would: sibling modules import
            self._inserted.append(directory)
        package = _package_of(path)
        if package is not None:
            return self._load_member(path, *package)
        name = f"_slotsat_kernel_{next(self._names)}"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise Failure("cannot load the file as a Python module", path, kind="usage")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except SystemExit as err:
            raise Failure(f"the kernel file exited (SystemExit: {err.code}) while it ran", path) from None
        except Exception as err:
            raise _locate(err, path) from None
        return module

    def _load_member(self, path: str, root: str, dotted: str) -> Any:
        """A file with relative imports, imported as the package member it is (`python -m
        DOTTED` from `root`): its package's `__init__` modules run first, as they would there."""
        self._folders.append(root)
        if root not in sys.path:
            sys.path.insert(0, root)
            self._inserted.append(root)
        try:
            return importlib.import_module(dotted)
        except SystemExit as err:
            raise Failure(f"the kernel file exited (SystemExit: {err.code}) while it ran", path) from None
        except Exception as err:
            raise _locate(err, path) from None

    def _defined_here(self, obj: Any, module: Any, path: str) -> bool:
        if isinstance(obj, self.ir.Program):
            span = getattr(obj, "span", None)
            filename = getattr(span, "filename", "") if span is not None else ""
            return not filename or os.path.realpath(filename) == os.path.realpath(path)
        return bool(getattr(obj, "__module__", None) == module.__name__)

    def _kernels(self, module: Any, path: str, wanted: str | None) -> list[tuple[str, Any]]:
        found: list[tuple[str, Any]] = []
        every: dict[str, Any] = {}
        helpers: dict[str, str] = {}
        for attr, obj in vars(module).items():
            is_program = isinstance(obj, self.ir.Program)
            is_jit = isinstance(obj, self.jit_type)
            if not (is_program or is_jit) or not self._defined_here(obj, module, path):
                continue
            every[attr] = obj
            # A `@pl.jit.incore` / `.inline` / `.opaque` function is compiled through the
            # `@pl.jit` entry that calls it; only entries are kernels by default.
            kind = getattr(obj, "_func_type", "orchestration")
            if is_program or kind == "orchestration":
                found.append((attr, obj))
            else:
                helpers[attr] = str(kind)
        builders = self._builders(module)
        also = f"; program builders, for --kernel with --specialize: {', '.join(builders)}" \
            if builders else ""
        if builders and not found and wanted is None:
            also = "; it has program builders: compile one with " + "; or ".join(
                self._builder_call(b, vars(module)[b]) for b in builders)
        if wanted is not None:
            if wanted not in every:
                names = ", ".join(every) or "none"
                raise Failure(f"no @pl.program class or @pl.jit kernel named '{wanted}' "
                              f"(kernels: {names}{also})", path, kind="usage")
            if helpers.get(wanted) == "inline":
                # Lowered alone, an inline function is an empty program: it has no function of
                # its own, its body is spliced into each caller.
                raise Failure(f"--kernel {wanted}: '{wanted}' is a @pl.jit.inline function, spliced into the "
                              "@pl.jit entry that calls it, with no program of its own: compile the file of "
                              "that entry", path, self._def_line(every[wanted]), kind="usage")
            return [(wanted, every[wanted])]
        if not found and helpers:
            listing = ", ".join(f"{n} (@pl.jit.{k})" for n, k in helpers.items())
            raise Failure("the file defines no @pl.program class and no @pl.jit entry, only functions an "
                          f"entry calls: {listing}; compile the file of the @pl.jit entry that calls "
                          f"them{also}", path, kind="usage")
        if not found:
            raise Failure(f"the file defines no @pl.program class and no @pl.jit kernel{also}", path,
                          kind="usage")
        return found

    # -- program builders: module-level functions that return a @pl.program -----------

    def _builder(self, module: Any, wanted: Any) -> Any:
        """The plain function `--kernel NAME` names, when it is one defined in the file (a
        program builder such as `build_x_program(batch, heads)`); None otherwise."""
        obj = vars(module).get(wanted) if isinstance(wanted, str) else None
        if inspect.isfunction(obj) and obj.__module__ == module.__name__:
            return obj
        return None

    def _builders(self, module: Any) -> list[str]:
        """The file's module-level functions whose body defines a `@pl.program` class."""
        out = []
        for attr, obj in vars(module).items():
            if not (inspect.isfunction(obj) and obj.__module__ == module.__name__):
                continue
            try:
                source = inspect.getsource(obj)
            except (OSError, TypeError):
                continue
            if re.search(r"^\s*@(pl\.)?program\b", source, re.MULTILINE):
                out.append(attr)
        return out

    @staticmethod
    def _builder_call(name: str, fn: Any) -> str:
        """The options that compile builder `name`: `--kernel` and a `--specialize` for each
        parameter without a default (nothing in the file gives those values to the bridge)."""
        params = inspect.signature(fn).parameters.values()
        need = [p.name for p in params if p.default is inspect.Parameter.empty
                and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        return " ".join([f"--kernel {name}", *(f"--specialize {p}=VALUE" for p in need)])

    def _build(self, name: str, fn: Any, values: dict[str, Any], path: str) -> Any:
        """The program `fn(**values)` returns: `--specialize NAME=VALUE` gives each argument."""
        line = self._def_line_of(fn)
        params = inspect.signature(fn).parameters
        listing = ", ".join(params) or "none"
        for pname, spec in values.items():
            if pname not in params:
                raise Failure(f"--specialize {pname}: program builder '{name}' has no parameter '{pname}' "
                              f"(parameters: {listing})", path, line, kind="usage")
            if "tensor" in spec or spec.get("runtime"):
                raise Failure(f"--specialize {pname}: the arguments of program builder '{name}' are "
                              "integers, floats or booleans", path, line, kind="usage")
        missing = [p for p, prm in params.items() if prm.default is inspect.Parameter.empty
                   and p not in values and prm.kind in (prm.POSITIONAL_OR_KEYWORD, prm.KEYWORD_ONLY)]
        if missing:
            spelled = " ".join(f"--specialize {p}=VALUE" for p in missing)
            raise Failure(f"program builder '{name}' needs a value for each parameter without a default: "
                          f"{spelled}", path, line, kind="usage")
        try:
            program = fn(**{k: self._value(v) for k, v in values.items()})
        except Failure:
            raise
        except Exception as err:
            raise _locate(err, path, line) from None
        if not isinstance(program, self.ir.Program):
            raise Failure(f"program builder '{name}' returned {type(program).__name__}, not a @pl.program",
                          path, line, kind="usage")
        return program

    def _value(self, spec: dict[str, Any]) -> Any:
        if spec.get("runtime"):
            return self.pl.RUNTIME
        for key in ("int", "float", "bool"):
            if key in spec:
                return spec[key]
        raise Failure(f"bad --specialize value {spec!r}", "<bridge>", kind="internal")

    def _sample(self, name: str, spec: dict[str, Any], path: str) -> Any:
        """A shape-only torch tensor for `--specialize NAME=pl.Tensor[SHAPE, DTYPE]`."""
        from pypto.jit import decorator

        torch = decorator._get_torch()
        if torch is None:
            raise Failure("--specialize with a tensor type needs torch beside PyPTO", path, kind="usage")
        by_dtype = {v: k for k, v in decorator._TORCH_DTYPE_MAP.items()}
        names = {n: d for n in dir(self.pl) if isinstance(d := getattr(self.pl, n), type(self.pl.FP32))}
        wanted = str(spec["dtype"])
        dtype = names.get(wanted.upper())
        if dtype not in by_dtype:
            known = ", ".join(sorted(n for n, d in names.items() if d in by_dtype))
            raise Failure(f"--specialize {name}: no tensor dtype pl.{wanted} (dtypes: {known})", path,
                          kind="usage")
        shape = [int(d) for d in spec["shape"]]
        if dtype == self.pl.FP4:  # torch holds two FP4 values per element of the last dimension
            if shape[-1] % 2:
                raise Failure(f"--specialize {name}: an FP4 tensor's last dimension is even", path,
                              kind="usage")
            shape[-1] //= 2
        return torch.empty(shape, dtype=by_dtype[dtype], device="meta")

    def _kinds(self, obj: Any) -> dict[str, tuple[str, Any]]:
        """Each parameter of a jit kernel: (`tensor` | `bare` | `scalar` | `other`, annotation)."""
        from pypto.jit import decorator
        from pypto.language.typing.tensor import Tensor

        func = obj._func
        sig = inspect.signature(func)
        ns = decorator._annotation_namespace(func, sig)
        out: dict[str, tuple[str, Any]] = {}
        for pname, param in sig.parameters.items():
            if pname == "self":
                continue
            ann = decorator._resolve_annotation(param.annotation, ns)
            if isinstance(ann, Tensor):
                kind = "bare" if ann.shape is None or ann.dtype is None else "tensor"
            elif isinstance(ann, type) and issubclass(ann, Tensor):
                kind = "bare"
            elif param.annotation is inspect.Parameter.empty:
                kind = "other"
            else:
                kind = "scalar"
            out[pname] = (kind, ann)
        return out

    def _arguments(self, name: str, obj: Any, specs: dict[str, Any], path: str, line: int) -> dict[str, Any]:
        """The keyword arguments of `obj.lower`: scalar values only (the reference reads tensor
        shapes off the annotations), or, when a tensor parameter has a bare `pl.Tensor`
        annotation or is given a shape, a sample tensor for every tensor parameter (the
        reference's sample-tensor specialization)."""
        kinds = self._kinds(obj)
        mine = {k: v for k, v in specs.items() if k in kinds}
        for pname, spec in mine.items():
            kind = kinds[pname][0]
            if "tensor" in spec and kind == "scalar":
                raise Failure(f"--specialize {pname}: kernel '{name}' takes '{pname}' as a scalar, not a "
                              "tensor", path, line, kind="usage")
            if "tensor" not in spec and kind in ("tensor", "bare"):
                raise Failure(f"--specialize {pname}: kernel '{name}' takes '{pname}' as a tensor; give "
                              f"its shape and dtype: --specialize '{pname}=pl.Tensor[[D0, ...], pl.FP32]'",
                              path, line, kind="usage")
        samples = any(k == "bare" for k, _ in kinds.values()) or any("tensor" in v for v in mine.values())
        if not samples:
            return {k: self._value(v) for k, v in mine.items()}
        missing = [p for p, (k, _) in kinds.items() if k == "bare" and p not in mine]
        if missing:
            p = missing[0]
            more = f" (so do {', '.join(missing[1:])})" if len(missing) > 1 else ""
            example = f"'{p}=pl.Tensor[[128, 128], pl.FP32]'"
            raise Failure(f"kernel '{name}': tensor parameter '{p}' has a bare 'pl.Tensor' annotation, no "
                          f"shape: add --specialize '{p}=pl.Tensor[[D0, D1, ...], pl.DTYPE]' with its shape "
                          f"and dtype, e.g. {example}{more}{self._main_hint(path)}", path, line, kind="usage")
        kwargs: dict[str, Any] = {}
        for pname, (kind, ann) in kinds.items():
            spec = mine.get(pname)
            if kind == "tensor" and spec is None:
                dims = list(ann.shape)
                if not all(isinstance(d, int) for d in dims):
                    raise Failure(f"kernel '{name}': tensor parameter '{pname}' has a dynamic shape; with "
                                  "sample tensors for the others it needs one too: --specialize "
                                  f"'{pname}=pl.Tensor[[D0, D1, ...], pl.DTYPE]'", path, line, kind="usage")
                dtype = next(n for n in dir(self.pl) if getattr(self.pl, n) is ann.dtype or
                             getattr(self.pl, n) == ann.dtype)
                spec = {"tensor": {"shape": dims, "dtype": dtype}}
            if spec is None:
                continue
            if spec.get("runtime"):
                raise Failure(f"--specialize {pname}=RUNTIME: the reference keeps a scalar a runtime value "
                              f"only when every tensor parameter of kernel '{name}' has a shaped annotation; "
                              f"with sample tensors '{pname}' needs a value", path, line, kind="usage")
            tensor = spec.get("tensor")
            kwargs[pname] = self._sample(pname, tensor, path) if tensor is not None else self._value(spec)
        for pname, (kind, _) in kinds.items():
            if kind == "scalar" and pname not in kwargs and \
                    inspect.signature(obj._func).parameters[pname].default is inspect.Parameter.empty:
                raise self._scalar_missing(name, pname, path, line)
        return kwargs

    def _scalar_missing(self, name: str, p: str, path: str, line: int) -> Failure:
        return Failure(f"kernel '{name}': scalar parameter '{p}' needs a value: --specialize {p}=VALUE "
                       f"(an integer, a float, True or False) or --specialize {p}=RUNTIME to keep it a "
                       f"runtime scalar{self._main_hint(path)}", path, line, kind="usage")

    @staticmethod
    def _main_hint(path: str) -> str:
        """The other way to give a kernel's arguments, when the file has a `__main__` block."""
        return "; or --from-main to take every argument from the call the file's __main__ block " \
            "makes" if _main_block_line(path) is not None else ""

    def _params(self, obj: Any) -> list[str]:
        func = getattr(obj, "_func", None)
        if func is None:
            return []
        return [n for n in inspect.signature(func).parameters if n != "self"]

    def _check_specialize(self, kernels: list[tuple[str, Any]], values: dict[str, Any], path: str) -> None:
        if not values:
            return
        jits = [(n, o) for n, o in kernels if isinstance(o, self.jit_type)]
        if not jits:
            raise Failure("--specialize applies to @pl.jit kernels; this file's kernels are @pl.program "
                          "classes", path, kind="usage")
        known = {p for _, o in jits for p in self._params(o)}
        for name in values:
            if name not in known:
                listing = ", ".join(sorted(known)) or "none"
                raise Failure(f"--specialize {name}: no @pl.jit kernel of the file has a parameter "
                              f"'{name}' (parameters: {listing})", path, kind="usage")

    # -- --from-main: the arguments a file's `__main__` block calls a kernel with --------

    def _main_calls(self, path: str, kernels: list[tuple[str, Any]]) -> dict[str, _Call]:
        """The first call the file's `if __name__ == "__main__":` block makes to each jit
        kernel of `kernels`, keyed by kernel name. Runs the block (the whole file again, as
        `python FILE` does) with `JIT_ENTRY_POINTS` recording instead of compiling or running,
        and stops it once every kernel has been called. A kernel the block does not call but
        whose annotations give every argument (shaped tensors, no scalar without a default)
        compiles as it does without `--from-main`. Raises a located `Failure` when the file has
        no such block, or when the block ends or fails before calling a kernel that needs
        arguments."""
        jits = {name: obj for name, obj in kernels if isinstance(obj, self.jit_type)}
        if not jits:
            raise Failure("--from-main takes the arguments of @pl.jit kernels; this file's kernels are "
                          "@pl.program classes, which take none", path, kind="usage")
        block = _main_block_line(path)
        if block is None:
            raise Failure("--from-main: the file has no `if __name__ == \"__main__\":` block to take the "
                          "kernel's arguments from; give them with --specialize", path, kind="usage")
        calls, stopped = self._record_main(path, block, {_jit_key(obj): name for name, obj in jits.items()})
        missing = []
        for name, obj in jits.items():
            if name in calls:
                continue
            if self._needs_arguments(obj):
                missing.append(name)
            else:  # its annotations give every argument: it compiles as without --from-main
                calls[name] = _Call(obj, (), self._arguments(name, obj, {}, path, self._def_line(obj)))
        if not missing:
            return calls
        name = missing[0]
        called = [n for n in jits if n in calls and calls[n].jit is not jits[n]]
        also = f"; it called {', '.join(called)}: select one with --kernel, or" if called else ";"
        if stopped is None:
            raise Failure(f"--from-main: the file's __main__ block ran to its end without calling kernel "
                          f"'{name}'{also} give its arguments with --specialize", path, block, kind="usage")
        stopped.payload["message"] = _one_line(
            f"--from-main: the file's __main__ block stopped before it called kernel '{name}' "
            f"({stopped.payload['message']}){also} give its arguments with --specialize")
        stopped.payload["kind"] = "usage"
        raise stopped

    def _needs_arguments(self, obj: Any) -> bool:
        """Whether a jit kernel needs a value from its caller: a bare tensor annotation, or a
        scalar parameter without a default."""
        params = inspect.signature(obj._func).parameters
        return any(kind == "bare" or (kind == "scalar" and params[p].default is inspect.Parameter.empty)
                   for p, (kind, _) in self._kinds(obj).items())

    def _record_main(self, path: str, block: int, wanted: dict[tuple[str, str], str]
                     ) -> tuple[dict[str, _Call], Failure | None]:
        """Run the file's `__main__` block with `JIT_ENTRY_POINTS` recording the first call of
        each kernel of `wanted` (by `_jit_key`), until all are called: the calls, by kernel
        name, and why the block stopped before that (a located failure), if it did."""
        calls: dict[str, _Call] = {}
        saved = {m: self.jit_type.__dict__[m] for m in JIT_ENTRY_POINTS if m in self.jit_type.__dict__}

        def recorder(method: str) -> Callable[..., Any]:
            def record(jit: Any, *args: Any, **kwargs: Any) -> Any:
                name = wanted.get(_jit_key(jit))
                if name is not None and name not in calls:
                    given = {k: v for k, v in kwargs.items() if k != "config"}  # PyPTO's RunConfig
                    calls[name] = _Call(jit, args, given)
                    if len(calls) == len(wanted):
                        raise _Called
                if method == "lower":  # compiles nothing past the IR; the block may read it
                    return saved[method](jit, *args, **kwargs)
                return None  # running or building a kernel: nothing is run or built
            return record

        stopped: Failure | None = None
        try:
            for m in saved:
                setattr(self.jit_type, m, recorder(m))
            self._run_main(path)
        except _Called:
            pass
        except SystemExit as err:
            stopped = _locate(err, path, block)
            stopped.payload["message"] = f"exited (SystemExit: {err.code})"
        except Exception as err:
            stopped = _locate(err, path, block)
        finally:
            for m, method in saved.items():
                setattr(self.jit_type, m, method)
        return calls, stopped

    def _run_main(self, path: str) -> None:
        """The file as `python -O FILE` runs it (`python -O -m PACKAGE.MODULE` for a package
        member with relative imports), with `sys.argv` holding only its name. Its asserts are
        skipped, as under `-O`: a recorded call computes nothing, so a check of its result
        would stop the block before it reaches the next kernel."""
        import types

        package = _package_of(path)
        name = package[1] if package is not None else None
        spec = importlib.util.find_spec(name) if name is not None else None
        with open(spec.origin if spec is not None and spec.origin else path, encoding="utf-8") as f:
            code = compile(f.read(), path, "exec", optimize=1)
        module = types.ModuleType("__main__")
        module.__dict__.update({"__file__": path, "__builtins__": __builtins__, "__cached__": None,
                                "__spec__": spec, "__loader__": spec.loader if spec is not None else None,
                                "__package__": name.rpartition(".")[0] if name is not None else None})
        argv, main = sys.argv[:], sys.modules.get("__main__")
        sys.argv[:] = [path]
        sys.modules["__main__"] = module
        try:
            exec(code, module.__dict__)
        finally:
            sys.argv[:] = argv
            if main is not None:
                sys.modules["__main__"] = main
            else:
                del sys.modules["__main__"]

    # -- running ----------------------------------------------------------------------

    def _def_line(self, obj: Any) -> int:
        func = getattr(obj, "_func", None)
        return self._def_line_of(func) if func is not None else 1

    @staticmethod
    def _def_line_of(func: Any) -> int:
        try:
            return inspect.getsourcelines(func)[1]
        except (OSError, TypeError):
            return 1

    def _program_line(self, obj: Any) -> int:
        span = getattr(obj, "span", None)
        line = getattr(span, "begin_line", 1) if span is not None else 1
        return line if isinstance(line, int) and line > 0 else 1

    def _run(self, name: str, obj: Any, path: str, oracle: bool, call: _Call | None) -> dict[str, Any]:
        """The reference's pass pipeline on a program, or on jit kernel `call.jit` lowered with
        the call's arguments, up to the hand-off point (with `oracle`, through LowerPipelineLoops)."""
        snaps: dict[str, Any] = {}
        current: list[str] = []

        def before(p: Any, program: Any) -> None:
            current[:] = [p.get_name()]
            if p.get_name() == HANDOFF_PASS:
                snaps["pre"] = program
                if not oracle:
                    raise _Stop

        def after(p: Any, program: Any) -> None:
            if p.get_name() == HANDOFF_PASS:
                snaps["slots"] = program
            elif p.get_name() == LOOPS_PASS:
                snaps["loops"] = program
                raise _Stop

        instrument = self.passes.CallbackInstrument(before_pass=before, after_pass=after)
        ctx = self.passes.PassContext([instrument], memory_planner=self.passes.MemoryPlanner.PTOAS)
        jit = isinstance(obj, self.jit_type)
        line = self._def_line(obj) if jit else self._program_line(obj)
        failure: str | None = None
        try:
            with ctx:
                if call is not None:
                    call.jit.lower(*call.args, **call.kwargs)  # the specialization API: one pipeline run
                else:
                    self.manager.get_strategy(self.strategy).run_passes(obj)
        except _Stop:
            pass
        except Exception as err:
            if "pre" not in snaps:
                raise self._failure(err, path, line, name, current) from None
            failure = _one_line(_message_of(err))
        if "pre" not in snaps:
            raise Failure(f"kernel '{name}': the reference's pass pipeline ended without reaching "
                          f"{HANDOFF_PASS}", path, line)
        if not list(snaps["pre"].functions.values()):
            raise Failure(f"kernel '{name}': the reference's program has no function at {HANDOFF_PASS} "
                          "(nothing to compile)", path, line, kind="usage")
        out: dict[str, Any] = {"name": name, "kind": "jit" if jit else "program", "line": line,
                               "handoff": snaps["pre"].as_python()}
        if oracle:
            stage = "loops" if "slots" in snaps else "slots"
            out["errors"] = {stage: failure} if failure is not None else {}
            out["after_slots"] = snaps["slots"].as_python() if "slots" in snaps else None
            out["after_loops"] = snaps["loops"].as_python() if "loops" in snaps else None
            out["summary"] = {k: self._summary(v) for k, v in snaps.items()}
        return out

    def _failure(self, err: Exception, path: str, line: int, name: str, current: list[str]) -> Failure:
        text = str(err)
        m = re.search(r"scalar parameter '(\w+)' has no value", text)
        if isinstance(err, TypeError) and m:
            return self._scalar_missing(name, m.group(1), path, line)
        failure = _locate(err, path, line)
        where = current[0] if current else None
        message = str(failure.payload["message"])
        if where and _span_of(err) is None and where not in message:
            failure.payload["message"] = _one_line(f"{where}: {message}")
        return failure

    # -- the reference's decisions, read off its IR -----------------------------------

    def _summary(self, program: Any) -> list[dict[str, Any]]:
        """Every loop of every function, in pre-order: kind, stages, bounds, and the tiles of
        its own body that carry a MemRef (the slots the reference bound)."""
        rows: list[dict[str, Any]] = []
        for fn in program.functions.values():
            for depth, loop in self._loops(fn.body, 0):
                rows.append(self._loop_row(fn.name, depth, loop))
        return rows

    def _loops(self, stmt: Any, depth: int) -> Iterator[tuple[int, Any]]:
        ir = self.ir
        if stmt is None:
            return
        if isinstance(stmt, ir.SeqStmts):
            for s in stmt.stmts:
                yield from self._loops(s, depth)
            return
        if isinstance(stmt, ir.ForStmt):
            yield depth, stmt
            yield from self._loops(stmt.body, depth + 1)
            return
        for attr in ("then_body", "else_body", "body"):  # if, while and the scope statements
            child = getattr(stmt, attr, None)
            if isinstance(child, ir.Stmt):
                yield from self._loops(child, depth)

    def _text(self, expr: Any) -> str | int:
        if isinstance(expr, self.ir.ConstInt):
            return int(expr.value)
        return str(self.ir.python_print(expr))

    def _loop_row(self, function: str, depth: int, loop: Any) -> dict[str, Any]:
        attrs = dict(loop.attrs)
        stages = attrs.get("pipeline_stages")
        tiles = []
        for s in self.ir.flatten_to_stmts(loop.body):
            if not isinstance(s, self.ir.AssignStmt):
                continue
            ty = s.var.type
            memref = getattr(ty, "memref", None) if isinstance(ty, self.ir.TileType) else None
            if memref is None:
                continue
            index = memref.slot_index_
            tiles.append({"tile": s.var.name_hint, "base": memref.name_hint, "slots": int(memref.slot_count_),
                          "index": None if index is None else self._text(index),
                          "op": _call_name(s.value)})
        span = loop.span
        return {"function": function, "line": int(span.begin_line), "col": int(span.begin_column),
                "depth": depth, "kind": loop.kind.name, "stages": None if stages is None else int(stages),
                "iv": loop.loop_var.name_hint, "start": self._text(loop.start), "stop": self._text(loop.stop),
                "step": self._text(loop.step), "tiles": tiles}


class _Call(NamedTuple):
    """A call of a jit kernel recorded in a run of its file's `__main__` block."""

    jit: Any
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


def _jit_key(jit: Any) -> tuple[str, str]:
    """A jit kernel by its function's file and qualified name: the same kernel, whichever run
    of its file defined the object."""
    func = getattr(jit, "_func", None)
    code = getattr(func, "__code__", None)
    file = os.path.realpath(code.co_filename) if code is not None else ""
    return file, str(getattr(func, "__qualname__", id(jit)))


def _main_block_line(path: str) -> int | None:
    """The line of the file's module-level `if __name__ == "__main__":`, if it has one."""
    import ast

    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError, ValueError):
        return None
    for node in tree.body:
        test = node.test if isinstance(node, ast.If) else None
        if isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__" \
                and len(test.comparators) == 1 and isinstance(test.comparators[0], ast.Constant) \
                and test.comparators[0].value == "__main__":
            return node.lineno
    return None


def _call_name(value: Any) -> str | None:
    op = getattr(value, "op", None)
    name = getattr(op, "name", None)
    return name if isinstance(name, str) else None


def _channels() -> tuple[TextIO, TextIO]:
    """The protocol's input and output; fd 0 becomes /dev/null and fd 1 a copy of fd 2."""
    proto_in = os.fdopen(os.dup(0), "r", encoding="utf-8")
    proto_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    sys.stdin = open(os.devnull, encoding="utf-8")  # lives as long as the process
    return proto_in, proto_out


def _send(out: TextIO, message: dict[str, Any]) -> None:
    out.write(json.dumps(message) + "\n")
    out.flush()


def serve(proto_in: TextIO, proto_out: TextIO, make: Callable[[], Reference] = Reference) -> int:
    try:
        reference = make()
    except ImportError as err:
        _send(proto_out, {"hello": False, "missing": err.name, "message": f"{type(err).__name__}: {err}"})
        return 0
    except Exception as err:  # PyPTO is there but does not start
        message = _one_line(f"{type(err).__name__}: {err}")
        _send(proto_out, {"hello": False, "missing": None, "message": message})
        return 0
    _send(proto_out, {"hello": True, "version": reference.version, "python": sys.version.split()[0]})
    for line in proto_in:
        if not line.strip():
            continue
        try:
            answer = reference.handle(json.loads(line))
        except Failure as failure:
            answer = {"ok": False, "error": failure.payload}
        except Exception as err:  # a bug of the bridge or of the reference outside any kernel
            where = traceback.extract_tb(err.__traceback__)[-1:]
            at = f" at {os.path.basename(where[0].filename)}:{where[0].lineno}" if where else ""
            answer = {"ok": False, "error": {"file": "<bridge>", "line": 1, "col": 1, "kind": "internal",
                                             "message": _one_line(f"{type(err).__name__}: {err}{at}")}}
        _send(proto_out, answer)
    return 0


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0] or ".") == here:
        sys.path.pop(0)  # run by path: this folder must not shadow anything a kernel imports
    proto_in, proto_out = _channels()
    return serve(proto_in, proto_out)


if __name__ == "__main__":
    raise SystemExit(main())
