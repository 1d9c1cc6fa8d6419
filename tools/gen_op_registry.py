"""Generate `slotsat/core/op_registry.json`: the reference compiler's op set, as data.

Run with the Python that has the reference (PyPTO) installed, pointing at a checkout of
the same commit's sources:

    /work/pyptovenv/bin/python tools/gen_op_registry.py --source /work/scratch/pypto
    /work/pyptovenv/bin/python tools/gen_op_registry.py --source /work/scratch/pypto --check

Facts come from two places, and each entry says which:

- the installed reference (`pypto.pypto_core.ir`): which names are registered, each op's
  keyword names (`get_op(name).get_attr_keys()`), its memory-space rules
  (`get_op_memory_spec`), what it does to each positional argument (`get_op_arg_effect`,
  `op_has_declared_arg_effect(s)`) and its write channel (`get_op_write_channel`);
- the registration sites (`src/ir/op/**/*.cpp`, `REGISTER_OP("...")` chains), for what the
  Python bindings do not expose: the positional argument names in order and whether the
  description calls one optional, the keyword value types (`set_attr<T>`), which argument
  the output reuses (`set_output_reuses_input`), whether the op is in-place safe, its
  cross-core role and core affinity, whether an argument's effect depends on a keyword,
  and the result kind its type-deduction function builds.

From those facts the generator derives one buffer behaviour per op, the rule T4 of the slots
pass and codegen aliasing read (`slotsat.core.ops`): `view` of argument k (the output
inherits the input's memory space and the op is in-place safe: the reference's
IsBufferAliasingViewOp), `in_place` on k (the output reuses tile argument k, or the op
declares a write of tile argument k), `reuses` k (the same for a destination tensor k),
`pipe` (a cross-core pop: the result lives in the pipe buffer), `none` (a scalar or array
result) or `fresh`.

`--check` compares the facts the installed reference gives with the committed file and exits
1 on any difference (`tests/ir/test_op_registry.py` runs the same comparison).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent.parent / "slotsat" / "core" / "op_registry.json"
RESULT_TYPES = ("TileType", "TensorType", "DistributedTensorType", "ScalarType", "TupleType", "ArrayType",
                "PtrType", "MemRefType", "UnknownType")
KIND_OF = {"TileType": "tile", "TensorType": "tensor", "DistributedTensorType": "tensor",
           "ScalarType": "scalar",
           "TupleType": "tuple", "ArrayType": "array", "PtrType": "ptr", "MemRefType": "memref",
           "UnknownType": "unknown"}


# --------------------------------------------------------------------------------------
# the registration sites


def _strip_comments(text: str) -> str:
    """C++ text without `//` and `/* */` comments (string and character literals kept)."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in "\"'":
            j = i + 1
            while j < n and text[j] != ch:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _chains(text: str) -> dict[str, str]:
    """`REGISTER_OP("name")` -> the text of its builder chain (up to the closing `;`)."""
    out: dict[str, str] = {}
    for m in re.finditer(r'REGISTER_OP\("([^"]+)"\)', text):
        depth, i = 0, m.end()
        in_str = False
        while i < len(text):
            ch = text[i]
            if in_str:
                if ch == "\\":
                    i += 1
                elif ch == '"':
                    in_str = False
            elif ch == '"':
                in_str = True
            elif ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
            elif ch == ";" and depth == 0:
                break
            i += 1
        out[m.group(1)] = text[m.end():i]
    return out


def _functions(texts: list[str]) -> dict[str, tuple[str, str]]:
    """`[Kind]TypePtr Name(...) { body }` definitions: name -> (declared kind prefix, body)."""
    out: dict[str, tuple[str, str]] = {}
    for raw in texts:
        text = re.sub(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)'", lambda m: " " * len(m.group()), raw)
        for m in re.finditer(r"\b(\w*)TypePtr\s+(\w+)\s*\([^;{]*\)\s*(?:const\s*)?\{", text):
            depth, i = 1, m.end()
            while i < len(text) and depth:
                depth += {"{": 1, "}": -1}.get(text[i], 0)
                i += 1
            out.setdefault(m.group(2), (m.group(1), text[m.end():i]))
    return out


def _result_kinds(body: str, functions: dict[str, tuple[str, str]], seen: set[str]) -> set[str]:
    """Result kinds a type-deduction body can build: `tile`, `tensor`, ..., `none` for the
    unknown type (the assignment's annotation types the result), `arg:N` for `return args[N]->GetType()`."""
    kinds = {KIND_OF[t] for t in re.findall(r"make_shared<(?:const\s+)?(\w+)>", body) if t in KIND_OF}
    if re.search(r"\bGetUnknownType\s*\(", body):
        kinds.add("unknown")
    kinds |= {f"arg:{k}" for k in re.findall(r"return\s+args\[(\d+)\]->GetType\(\)", body)}
    for name in re.findall(r"\b((?:Deduce|Make)\w*)\s*\(", body):
        if name in functions and name not in seen:
            seen.add(name)
            prefix, fbody = functions[name]
            if prefix + "Type" in KIND_OF:
                kinds.add(KIND_OF[prefix + "Type"])
            kinds |= _result_kinds(fbody, functions, seen)
    return kinds


def _category(chain: str) -> str | None:
    m = re.search(r"\.set_op_category\(([^)]*)\)", chain)
    return _strings(m.group(1))[0] if m else None


def _scalar_dtypes(body: str, functions: dict[str, tuple[str, str]], seen: set[str]) -> set[str]:
    """The dtypes a type-deduction body builds scalars of (`ScalarType(DataType::X)`)."""
    found = set(re.findall(r"ScalarType>\(\s*(?:DataType\()?\s*DataType::(\w+)", body))
    for name in re.findall(r"\b((?:Deduce|Make)\w*)\s*\(", body):
        if name in functions and name not in seen:
            seen.add(name)
            found |= _scalar_dtypes(functions[name][1], functions, seen)
    return found


def _strings(call_args: str) -> list[str]:
    return [s.encode().decode("unicode_escape") for s in re.findall(r'"((?:[^"\\]|\\.)*)"', call_args)]


_STRING = r'"(?:[^"\\]|\\.)*"'
_ADD_ARGUMENT = rf"\.add_argument\(\s*({_STRING})\s*,\s*((?:{_STRING}\s*)+)\)"
_FROM_KWARG = r'\.set_output_memory_from_kwarg\(\s*(?:"([^"]*)")?\s*(?:,\s*MemorySpace::(\w+))?'


def source_facts(source: Path) -> dict[str, dict[str, Any]]:
    files = sorted((source / "src" / "ir" / "op").rglob("*.cpp"))
    texts = [_strip_comments(f.read_text()) for f in files]
    helpers = [_strip_comments(f.read_text()) for f in sorted((source / "src" / "ir").rglob("*.cpp"))]
    headers = sorted((source / "include" / "pypto" / "ir").rglob("*.h"))
    helpers += [_strip_comments(f.read_text()) for f in headers]
    functions = _functions(helpers)
    facts: dict[str, dict[str, Any]] = {}
    for f, text in zip(files, texts, strict=True):
        for name, chain in _chains(text).items():
            args = []
            for m in re.finditer(_ADD_ARGUMENT, chain):
                arg_name = _strings(m.group(1))[0]
                desc = "".join(_strings(m.group(2)))
                optional = bool(re.match(r"\s*(\w+ form: )?optional", desc, re.IGNORECASE))
                args.append({"name": arg_name, "description": desc, "optional": optional})
            attrs = {k: t for t, k in re.findall(r'\.set_attr<\s*([\w:]+)\s*>\(\s*"([^"]+)"', chain)}
            reuses = re.search(r"\.set_output_reuses_input\(\s*(\d+)\s*\)", chain)
            forbidden = sorted({int(k) for k in re.findall(r"\.forbid_output_alias\(\s*(\d+)\s*\)", chain)})
            role = re.search(r"CrossCoreRole::(\w+)", chain)
            affinity = re.search(r"\.set_core_affinity\([^)]*CoreAffinity::(\w+)", chain)
            fixed = re.search(r"\.set_output_memory\(\s*MemorySpace::(\w+)\s*\)", chain)
            from_kwarg = re.search(_FROM_KWARG, chain)
            resolvers = [int(k) for k in re.findall(r"\.set_arg_effect\(\s*(\d+)\s*,\s*\[", chain)]
            deduce = re.search(r"\.f_deduce_type\((.*)", chain, re.S)
            kinds = set()
            scalar_dtypes: set[str] = set()
            if deduce:
                direct = re.match(r"\s*(\w+)\s*\)", deduce.group(1))
                body = f"{direct.group(1)}()" if direct else deduce.group(1)
                kinds = _result_kinds(body, functions, set())
                scalar_dtypes = _scalar_dtypes(body, functions, set())
            for kind in [k for k in kinds if k.startswith("arg:")]:
                kinds.discard(kind)
                k = int(kind[4:])
                desc = args[k]["description"] if k < len(args) else ""
                kinds |= {KIND_OF[t] for t in re.findall(r"\b(\w+Type)\b", desc) if t in KIND_OF}
            facts[name] = {
                "file": str(f.relative_to(source)),
                "category": _category(chain),
                "args": args,
                "attr_types": attrs,
                "reuses_input": int(reuses.group(1)) if reuses else None,
                "inplace_safe": ".not_inplace_safe()" not in chain,
                "forbid_output_alias": forbidden,
                "cross_core_role": role.group(1) if role else None,
                "core_affinity": affinity.group(1) if affinity else None,
                "internal_only": bool(re.search(r"\.set_internal_only\(\s*(true)?\s*\)", chain)),
                "fixed_output_memory": fixed.group(1) if fixed else None,
                "output_memory_kwarg": ((from_kwarg.group(1) or "target_memory") if from_kwarg else None),
                "kwarg_dependent_effects": resolvers,
                "result_kinds": sorted(kinds),
                "scalar_dtype": (scalar_dtypes.pop() if kinds == {"scalar"} and len(scalar_dtypes) == 1
                                 else None),
            }
    return facts


# --------------------------------------------------------------------------------------
# the installed reference


def _space(value: Any) -> str:
    return str(value).rsplit(".", 1)[-1]


def installed_facts(name: str, nargs: int) -> dict[str, Any]:
    """What the installed reference says about op `name` (`nargs` positional arguments)."""
    from pypto.pypto_core import ir as core

    if not core.is_op_registered(name):
        return {"registered": False}
    spec = core.get_op_memory_spec(name)
    memory: dict[str, Any] | None = None
    if spec is not None:
        out = spec["output_memory"]
        memory = {
            "inputs": [[_space(s) for s in allowed] for allowed in spec["input_constraints"]],
            "output": None if out is None else (out if isinstance(out, str) else _space(out)),
        }
    declared = bool(core.op_has_declared_arg_effects(name))
    effects = None
    if declared:
        effects = [
            {"effect": str(core.get_op_arg_effect(name, k)).rsplit(".", 1)[-1],
             "declared": bool(core.op_has_declared_arg_effect(name, k))}
            for k in range(nargs)
        ]
    channel = core.get_op_write_channel(name)
    return {
        "registered": True,
        "keywords": list(core.get_op(name).get_attr_keys()),
        "memory": memory,
        "arg_effects": effects,
        "write_channel": None if channel is None else str(channel).rsplit(".", 1)[-1],
    }


ENUMS = ("TileLayout", "TensorLayout", "PadValue", "CompactMode", "AtomicType", "PipeType", "SplitMode",
         "ScopeMode", "Level", "Role", "FunctionType", "MemorySpace", "ForKind")
PLD_ENUMS = ("NotifyOp", "ReduceOp", "WaitCmp", "AtomicType")
CONSTANT_CLASSES = (("tile", "MaskPattern"),)
"""Plain classes of integer constants in `pypto.language`'s op namespaces (not enums)."""


def enum_members() -> dict[str, list[str]]:
    """The DSL's enums (`pl.TileLayout.row_major`, `pld.NotifyOp.Set`, `pl.adir.input`) and
    their member names, from the installed `pypto.language`."""
    import pypto.language as pl
    import pypto.language.distributed as pld

    out: dict[str, list[str]] = {}
    for prefix, module, names in (("pl", pl, ENUMS), ("pld", pld, PLD_ENUMS)):
        for name in names:
            out[f"{prefix}.{name}"] = list(getattr(module, name).__members__)
    out["pl.adir"] = sorted(pl.adir.NAME_TO_DIRECTION)
    return out


def language_constants() -> dict[str, int]:
    """Integer constants `pypto.language` exports, which its parser reads as their values and
    the reference prints as such: `pl.AUTO` and the members of its constant classes
    (`pl.tile.MaskPattern.P0101` is 1), from the installed `pypto.language`."""
    import pypto.language as pl

    out: dict[str, int] = {"pl.AUTO": int(pl.AUTO)}
    for namespace, name in CONSTANT_CLASSES:
        cls = getattr(getattr(pl, namespace), name)
        for member, value in vars(cls).items():
            if not member.startswith("_") and type(value) is int:
                out[f"pl.{namespace}.{name}.{member}"] = value
    return out


def _isinstance_of(test: ast.expr, param: str) -> tuple[str, ...]:
    """The type names `test` checks `param` against: `isinstance(rhs, (int, float))` gives
    ('int', 'float'), inside `and` chains too; `_is_scalar_like(rhs)` gives ('Scalar',); () when
    it does not check `param`."""
    if isinstance(test, ast.BoolOp):
        return tuple(t for v in test.values for t in _isinstance_of(v, param))
    if (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "_is_scalar_like"
            and len(test.args) == 1 and isinstance(test.args[0], ast.Name) and test.args[0].id == param):
        return ("Scalar",)
    if (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
            and len(test.args) == 2 and isinstance(test.args[0], ast.Name) and test.args[0].id == param):
        kinds = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
        return tuple(ast.unparse(k) for k in kinds)
    return ()


def unified_scalar_dispatch() -> dict[str, list[str]]:
    """The reference's unified binary ops that dispatch on their second argument: `pl.add(t, u)`
    is `tile.add` for a tile `u` and `tile.adds` for a scalar one (`int`, `float`, `Scalar`).
    Read off the installed `pypto.language.op.unified_ops`: for each function, the `_tile.X`
    its body returns under `isinstance(rhs, Tile)` and under `isinstance(rhs, (int, ...))` or
    `_is_scalar_like(rhs)`.
    Maps the DSL name (`add`, `and_`, `cmp`) to [tile op, scalar op]."""
    import inspect

    from pypto.language.op import unified_ops

    tree = ast.parse(inspect.getsource(unified_ops))
    out: dict[str, list[str]] = {}
    for fn in tree.body:
        if not isinstance(fn, ast.FunctionDef) or len(fn.args.args) < 2:
            continue
        rhs = fn.args.args[1].arg
        picks: dict[str, str] = {}
        for node in ast.walk(fn):
            if not isinstance(node, ast.If):
                continue
            kinds = _isinstance_of(node.test, rhs)
            scalar = {"int", "float", "Scalar"} & set(kinds)
            kind = "tile" if "Tile" in kinds else "scalar" if scalar else None
            ret = node.body[-1] if node.body else None
            if kind is None or not isinstance(ret, ast.Return) or not isinstance(ret.value, ast.Call):
                continue
            callee = ret.value.func
            if (isinstance(callee, ast.Attribute) and isinstance(callee.value, ast.Name)
                    and callee.value.id == "_tile"):
                picks.setdefault(kind, f"tile.{callee.attr.rstrip('_')}")
        if len(picks) == 2 and picks["tile"] != picks["scalar"]:
            out[fn.name] = [picks["tile"], picks["scalar"]]
    return dict(sorted(out.items()))


def pld_short_forms() -> dict[str, list[str]]:
    """The distributed DSL's 2-segment short forms (`pld.window`, `pld.world_size`, ...) and
    the canonical ops each stands for, from the installed `pypto.language.distributed`: a
    short name that is the same function as `pld.<ns>.NAME` is that op; one defined on its own
    (`pld.remote_store`) dispatches on its first argument to every `pld.<ns>.NAME` (tile
    first, as the reference's dispatch tries it first)."""
    import inspect

    import pypto.language.distributed as pld

    out: dict[str, list[str]] = {}
    for name in sorted(pld.__all__):
        fn = getattr(pld, name)
        if not inspect.isfunction(fn):
            continue
        spaces = [ns for ns in ("tile", "tensor", "system") if hasattr(getattr(pld, ns), name)]
        same = [ns for ns in spaces if getattr(getattr(pld, ns), name) is fn]
        out[name] = [f"pld.{ns}.{name}" for ns in (same or spaces)]
    return out


def tensor_reexports() -> list[str]:
    """The names `pypto.language` binds to a function of its tensor namespace whose op
    `tensor.NAME` the reference registers (`pl.create_l1` is `pl.tensor.create_l1`), from the
    installed `pypto.language`."""
    import inspect

    import pypto.language as pl
    from pypto.pypto_core import ir as core

    return [name for name in sorted(dir(pl))
            if inspect.isfunction(fn := getattr(pl, name)) and fn is getattr(pl.tensor, name, None)
            and core.is_op_registered(f"tensor.{name}")]


def positional_defaults(ops: dict[str, Any]) -> dict[str, dict[str, list[Any]]]:
    """The positional arguments a DSL call may omit although a later one is given, and the
    literal the reference's builder puts in their place: `aiv_initialize_pipe(dir_mask=2,
    slot_size=512, v2c_consumer_buf=buf)` holds `pl.const(0, pl.INT32)` as its first argument.
    Read off the installed `pypto.ir.op` builders: each positional parameter with a default other
    than None, its IR value found by calling the builder with zeros for its required keywords.
    Maps op -> {argument: [value, dtype name]}."""
    import inspect

    import pypto.ir.op as irop
    import pypto.language as pl

    dtypes = {getattr(pl, n).to_string(): n for n in dir(pl.FP32) if n.isupper() and hasattr(pl, n)}
    modules = {"tile": "tile_ops", "tensor": "tensor_ops", "system": "system_ops", "array": "array_ops"}
    out: dict[str, dict[str, list[Any]]] = {}
    for name, entry in ops.items():
        ns, _, leaf = name.rpartition(".")
        module = getattr(irop, modules.get(ns, ""), None)
        fn = getattr(module, leaf, None) if module is not None else None
        if fn is None:
            continue
        params = inspect.signature(fn).parameters.values()
        defaults = [p.name for p in params
                    if p.name in entry["args"] and p.default not in (inspect.Parameter.empty, None)]
        if not defaults:
            continue
        required = {p.name: 0 for p in params
                    if p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is inspect.Parameter.empty}
        call = fn(**required)
        out[name] = {}
        for arg in defaults:
            value = call.args[entry["args"].index(arg)]
            out[name][arg] = [value.value, dtypes[value.dtype.to_string()]]
    return dict(sorted(out.items()))


def dsl_positional(ops: dict[str, Any]) -> dict[str, list[str]]:
    """The positional parameters of each op's DSL function (`pl.tile.create(shape, dtype,
    target_memory, transpose)`), where they are not the op's own positional arguments: a DSL
    call may pass a keyword of the IR op (`dtype`) by position. Read off the installed
    `pypto.language` namespaces (`pl.tile`, `pl.tensor`, `pl.system`, `pl.array`, `pld.*`)."""
    import inspect

    import pypto.language as pl
    import pypto.language.distributed as pld

    spaces = {"tile": pl.tile, "tensor": pl.tensor, "system": pl.system, "array": getattr(pl, "array", None),
              "pld.tile": pld.tile, "pld.tensor": pld.tensor, "pld.system": pld.system}
    out: dict[str, list[str]] = {}
    for name, entry in ops.items():
        ns, _, leaf = name.rpartition(".")
        module = spaces.get(ns)
        fn = getattr(module, leaf, None) or getattr(module, leaf + "_", None) if module is not None else None
        if fn is None or not callable(fn):
            continue
        try:
            params = inspect.signature(fn).parameters.values()
        except (TypeError, ValueError):
            continue
        names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if any(n in entry["keywords"] and n not in entry["args"] for n in names):
            out[name] = names
    return dict(sorted(out.items()))


def dsl_memory_defaults(ops: dict[str, Any]) -> dict[str, str]:
    """The memory space an op's DSL function fills in when a call omits the op's memory-space
    keyword (`pl.tile.create(shape, dtype)` gets `target_memory=pl.Mem.Vec`): the default of
    that parameter in the installed `pypto.language` function, where it is a memory space.
    Maps op -> member name."""
    import inspect

    import pypto.language as pl
    from pypto.pypto_core import ir as core

    spaces = {"tile": pl.tile, "tensor": pl.tensor}
    out: dict[str, str] = {}
    for name, entry in ops.items():
        ns, _, leaf = name.rpartition(".")
        module = spaces.get(ns)
        kwarg = entry["output_memory_kwarg"]
        fn = getattr(module, leaf, None) if module is not None and kwarg is not None else None
        if fn is None or not callable(fn):
            continue
        param = inspect.signature(fn).parameters.get(kwarg)
        if param is not None and isinstance(param.default, core.MemorySpace):
            out[name] = param.default.name
    return dict(sorted(out.items()))


def unified_scalar_operators() -> dict[str, str]:
    """The reference's unified binary ops that, given two scalars, are a Python operator on
    them: `pl.add(a, b)` of scalars is `a + b`. Read off the installed
    `pypto.language.op.unified_ops`: a function whose body returns `Scalar(expr=L OP R)` under
    `_is_scalar_like(lhs) and _is_scalar_like(rhs)`. Maps the DSL name to the operator."""
    import inspect

    from pypto.language.op import unified_ops

    symbols = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%"}
    out: dict[str, str] = {}
    for fn in ast.parse(inspect.getsource(unified_ops)).body:
        if not isinstance(fn, ast.FunctionDef) or len(fn.args.args) < 2:
            continue
        lhs, rhs = fn.args.args[0].arg, fn.args.args[1].arg
        for node in ast.walk(fn):
            if not isinstance(node, ast.If) or set(_isinstance_of(node.test, lhs)) != {"Scalar"}:
                continue
            if set(_isinstance_of(node.test, rhs)) != {"Scalar"}:
                continue
            ret = node.body[-1] if node.body else None
            value = ret.value if isinstance(ret, ast.Return) else None
            expr = value.keywords[0].value if isinstance(value, ast.Call) and value.keywords else None
            if isinstance(expr, ast.BinOp) and type(expr.op) in symbols:
                out[fn.name] = symbols[type(expr.op)]
    return dict(sorted(out.items()))


def reference_version() -> str:
    import importlib.metadata

    return importlib.metadata.version("pypto")


# --------------------------------------------------------------------------------------
# derived: the buffer behaviour


def _to_tensor(name: str, dest: dict[str, Any], result: str) -> bool:
    """Whether argument `dest` of op `name` is a tensor (by its name, its description, or
    the op's namespace)."""
    desc = dest["description"]
    if "tensor" in dest["name"] or "Tensor" in desc:
        return True
    if "Tile" in desc or "tile" in dest["name"]:
        return False
    return result == "tensor" or ".tensor." in f".{name}" or name.startswith("pld.system.")


def buffer_of(src: dict[str, Any], inst: dict[str, Any], name: str = "") -> dict[str, Any]:
    kinds = set(src["result_kinds"])
    result = kinds.pop() if len(kinds) == 1 else ("varies" if kinds else "unknown")
    memory = inst.get("memory") or {}
    k = src["reuses_input"]
    if src["cross_core_role"] == "TPop":
        return {"result": result, "kind": "pipe", "arg": None}
    if k is not None:
        dest = src["args"][k] if k < len(src["args"]) else {"name": "", "description": ""}
        kind = "reuses" if _to_tensor(name, dest, result) else "in_place"
        return {"result": result, "kind": kind, "arg": k}
    if memory.get("output") == "inherit_from_input" and src["inplace_safe"] and result == "tile":
        return {"result": result, "kind": "view", "arg": 0}
    if result in ("tile", "tensor", "unknown"):
        for idx, eff in enumerate(inst.get("arg_effects") or []):
            if eff["declared"] and eff["effect"] in ("Write", "ReadWrite"):
                dest = src["args"][idx] if idx < len(src["args"]) else {"name": "", "description": ""}
                kind = "reuses" if _to_tensor(name, dest, result) else "in_place"
                return {"result": result, "kind": kind, "arg": idx}
    if result in ("tile", "tensor", "varies", "unknown", "tuple", "none"):
        return {"result": result, "kind": "fresh", "arg": None}
    return {"result": result, "kind": "none", "arg": None}


def build(source: Path) -> dict[str, Any]:
    ops: dict[str, Any] = {}
    for name, src in sorted(source_facts(source).items()):
        inst = installed_facts(name, len(src["args"]))
        if not inst["registered"]:
            continue
        buf = buffer_of(src, inst, name)
        positional = [a["name"] for a in src["args"]]
        required = len(positional)
        while required and src["args"][required - 1]["optional"]:
            required -= 1
        ops[name] = {
            "category": src["category"],
            "args": positional,
            "required_args": required,
            "keywords": inst["keywords"],
            "keyword_types": {k: src["attr_types"].get(k) for k in inst["keywords"]},
            "result": buf["result"],
            "scalar_dtype": src["scalar_dtype"],
            "buffer": buf["kind"],
            "buffer_arg": buf["arg"],
            "memory": inst["memory"],
            "fixed_output_memory": src["fixed_output_memory"],
            "output_memory_kwarg": src["output_memory_kwarg"],
            "inplace_safe": src["inplace_safe"],
            "forbid_output_alias": src["forbid_output_alias"],
            "arg_effects": inst["arg_effects"],
            "kwarg_dependent_effects": src["kwarg_dependent_effects"],
            "write_channel": inst["write_channel"],
            "cross_core_role": src["cross_core_role"],
            "core_affinity": src["core_affinity"],
            "internal_only": src["internal_only"],
            "source": src["file"],
        }
    return {
        "about": "The reference compiler's op set (PyPTO), generated by tools/gen_op_registry.py; "
                 "do not edit.",
        "reference_version": reference_version(),
        "enums": enum_members(),
        "language_constants": language_constants(),
        "unified_scalar": unified_scalar_dispatch(),
        "pld_short": pld_short_forms(),
        "tensor_reexports": tensor_reexports(),
        "positional_defaults": positional_defaults(ops),
        "dsl_positional": dsl_positional(ops),
        "dsl_memory_defaults": dsl_memory_defaults(ops),
        "unified_scalar_operators": unified_scalar_operators(),
        "ops": ops,
    }


INSTALLED_KEYS = ("keywords", "memory", "arg_effects", "write_channel")


def check(committed: dict[str, Any]) -> list[str]:
    """Differences between the committed data and what the installed reference says."""
    from pypto.pypto_core import ir as core

    problems: list[str] = []
    if committed.get("enums") != enum_members():
        problems.append("enums: the committed members differ from the installed reference's")
    if committed.get("language_constants") != language_constants():
        problems.append("language_constants: the committed constants differ from the installed reference's")
    if committed.get("unified_scalar") != unified_scalar_dispatch():
        problems.append("unified_scalar: the committed dispatch differs from the installed reference's")
    if committed.get("pld_short") != pld_short_forms():
        problems.append("pld_short: the committed short forms differ from the installed reference's")
    if committed.get("tensor_reexports") != tensor_reexports():
        problems.append("tensor_reexports: the committed names differ from the installed reference's")
    if committed.get("positional_defaults") != positional_defaults(committed["ops"]):
        problems.append("positional_defaults: the committed defaults differ from the installed reference's")
    if committed.get("dsl_positional") != dsl_positional(committed["ops"]):
        problems.append("dsl_positional: the committed DSL signatures differ from the installed reference's")
    if committed.get("dsl_memory_defaults") != dsl_memory_defaults(committed["ops"]):
        problems.append("dsl_memory_defaults: the committed DSL defaults differ from the installed "
                        "reference's")
    if committed.get("unified_scalar_operators") != unified_scalar_operators():
        problems.append("unified_scalar_operators: the committed operators differ from the installed "
                        "reference's")
    for name, entry in committed["ops"].items():
        if not core.is_op_registered(name):
            problems.append(f"{name}: not registered in the installed reference")
            continue
        inst = installed_facts(name, len(entry["args"]))
        for key in INSTALLED_KEYS:
            if inst[key] != entry[key]:
                problems.append(f"{name}.{key}: committed {entry[key]!r}, installed {inst[key]!r}")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", type=Path, required=True, help="a checkout of the reference's sources")
    ap.add_argument("--check", action="store_true", help="compare with the committed file instead")
    ap.add_argument("-o", "--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    if args.check:
        committed = json.loads(args.out.read_text())
        problems = check(committed)
        fresh = build(args.source)
        if fresh["ops"] != committed["ops"]:
            problems.append("regenerating from the sources gives a different file")
        for p in problems:
            print(p)
        return 1 if problems else 0
    data = build(args.source)
    args.out.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n")
    print(f"wrote {len(data['ops'])} ops to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
