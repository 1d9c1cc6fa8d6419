"""Bulk insertion through egglog's `input` command: the command path's way to put many terms and
facts into an e-graph at once (`session._Commands.insert`).

egglog runs each top-level action in 20-50 µs whatever its size (measured with egglog 13.2 on
this project's 2-core machine: 16,000 `(Num i)` actions 0.32 s, 16,000 `(Add (Num i) (Num
j))` 0.63 s), while `(input table "file")` reads 16,000 rows of a table with primitive columns
in 14 ms and a rule over those rows builds 48,000 terms in 16 ms. So `BulkLoader` states the
actions as rows and lets rules build the terms:

- every symbol of the spec whose columns are all `i64`, `String` or e-class sorts gets a
  **load relation**: one `i64` id column first for a constructor (the id Python gives the
  term), then one column per argument, where an e-class argument is the id of its term;
  a function gets one more column for the value it is set to;
- every e-class sort a constructor returns gets a **node function** from id to term;
- one **load rule** per symbol joins its load relation with the node functions of its
  e-class arguments and performs the action: `(set (node_S id) (C x1 ... xn))` for a
  constructor, `(set (f x1 ... xn) v)` for a function, `(r x1 ... xn)` for a relation.
  The load ruleset runs to its fixpoint, one tree level per iteration;
- one **clear rule** per load relation and node function deletes its rows, so after an
  insertion the e-graph holds exactly the terms and facts the commands would have made
  (its row counts, views and exports see no trace of the loader).

An insertion is all or nothing: `rows` returns None when an action cannot be stated as rows
(a symbol without a load relation, a string egglog's reader would alter, an integer outside
`i64`, a function set twice in one call) and the caller sends that insertion as commands.
Before the clear, each node function must hold exactly the number of ids handed out for its
sort; anything else is an internal error, never a silently missing term.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from slotsat.egraph_rules.calls import Action, Arg, Call, Set

PREFIX = "slotsat_bulk_"
"""Every egglog name the loader declares starts with this."""

_PRIMITIVE = ("i64", "String")
"""The column sorts egglog's `input` reads (13.2 panics on any other)."""

_I64 = (-(2**63), 2**63 - 1)


def is_node_function(egg_name: str) -> bool:
    """Whether an egglog table is one of the loader's node functions."""
    return egg_name.startswith(f"{PREFIX}node_")


@dataclass(frozen=True, slots=True)
class Signature:
    """One symbol as egglog declares it: its kind, argument sorts and result sort."""

    kind: str
    """"constructor" (a term), "function" (set to a value) or "relation" (a fact)."""
    args: tuple[str, ...]
    result: str


@dataclass(frozen=True, slots=True)
class _Load:
    """How one symbol's actions become rows of its load relation."""

    table: str
    kind: str
    columns: tuple[str, ...]
    """Per argument: a primitive sort, or the e-class sort whose id the column holds."""
    value: str | None
    """A function's value column (as `columns`), None for constructors and relations."""
    result: str
    """A constructor's e-class sort."""


class _Unloadable(Exception):
    """An action the loader cannot state as rows (the insertion goes as commands)."""


class BulkLoader:
    """The load relations, node functions and load rules of one template (see the module
    docstring), and the rows of each insertion."""

    def __init__(self, signatures: Mapping[str, Signature], egg_names: Mapping[str, str]) -> None:
        node_sorts = sorted({sig.result for sig in signatures.values() if sig.kind == "constructor"})
        self.node_fn = {sort: f"{PREFIX}node_{k}" for k, sort in enumerate(node_sorts)}
        self.ruleset = f"{PREFIX}rules"
        self.clear = f"{PREFIX}clear"
        self.loads: dict[str, _Load] = {}
        decls = [f"(ruleset {self.ruleset})", f"(ruleset {self.clear})"]
        for sort, fn in self.node_fn.items():
            decls.append(f"(function {fn} (i64) {sort} :no-merge)")
            decls.append(f"(rule ((= x ({fn} id))) ((delete ({fn} id))) :ruleset {self.clear})")
        for k, (name, sig) in enumerate(sorted(signatures.items())):
            load = self._load(f"{PREFIX}load_{k}", sig)
            if load is None:
                continue
            self.loads[name] = load
            decls.extend(self._declare(load, egg_names[name]))
        self.program = "\n".join(decls)
        self.next_id = 0
        self._dir: str | None = None

    def _load(self, table: str, sig: Signature) -> _Load | None:
        """How `sig`'s actions load, None when a column has a sort `input` cannot read."""
        value = sig.result if sig.kind == "function" else None
        for sort in (*sig.args, *((value,) if value is not None else ())):
            if sort not in _PRIMITIVE and sort not in self.node_fn:
                return None
        return _Load(table, sig.kind, sig.args, value, sig.result)

    def _declare(self, load: _Load, egg: str) -> list[str]:
        """The load relation, the load rule and the clear rule of one symbol."""
        head = ["id"] if load.kind == "constructor" else []
        sorts = ["i64"] * len(head)
        query: list[str] = []
        args: list[str] = []
        for j, col in enumerate((*load.columns, *((load.value,) if load.value else ()))):
            name = f"a{j}"
            head.append(name)
            if col in _PRIMITIVE:
                sorts.append(col)
                args.append(name)
            else:
                sorts.append("i64")
                query.append(f"(= x{j} ({self.node_fn[col]} {name}))")
                args.append(f"x{j}")
        pattern = f"({load.table} {' '.join(head)})"
        clear = f"(rule ({pattern}) ((delete {pattern})) :ruleset {self.clear})"
        if load.kind == "constructor":
            action = f"(set ({self.node_fn[load.result]} id) ({' '.join((egg, *args))}))"
        elif load.kind == "function":
            action = f"(set ({' '.join((egg, *args[:-1]))}) {args[-1]})"
        else:
            action = f"({' '.join((egg, *args))})"
        return [
            f"(relation {load.table} ({' '.join(sorts)}))",
            f"(rule ({' '.join((pattern, *query))}) ({action}) :ruleset {self.ruleset})",
            clear,
        ]

    # ----------------------------------------------------------------------------------
    # one insertion

    def rows(self, actions: Sequence[Action]) -> tuple[dict[str, list[str]], dict[str, int]] | None:
        """The rows of each load relation stating `actions`, and how many ids each node
        function receives; None when some action cannot be stated as rows."""
        state = _Rows(self)
        try:
            for action in actions:
                state.action(action)
        except _Unloadable:
            return None
        self.next_id = state.next_id
        return state.rows, state.nodes

    def files(self, rows: Mapping[str, list[str]]) -> list[tuple[str, str]]:
        """Write each load relation's rows to its file: `(relation, path)` pairs. Raises
        `OSError` when no temporary directory can be written."""
        if self._dir is None:
            self._dir = tempfile.mkdtemp(prefix="slotsat-bulk-")
            weakref.finalize(self, shutil.rmtree, self._dir, True)
        out: list[tuple[str, str]] = []
        for table, lines in rows.items():
            path = os.path.join(self._dir, f"{table}.tsv")
            with open(path, "w", encoding="utf-8", newline="\n") as f:
                f.write("\n".join(lines))
                f.write("\n")
            out.append((table, path))
        return out


class _Rows:
    """The rows of one insertion (`BulkLoader.rows`)."""

    def __init__(self, loader: BulkLoader) -> None:
        self.loader = loader
        self.next_id = loader.next_id
        self.ids: dict[Call, int] = {}
        self.rows: dict[str, list[str]] = {}
        self.nodes: dict[str, int] = {}
        self.targets: set[Call] = set()

    def action(self, action: Action) -> None:
        if isinstance(action, Set):
            if action.target in self.targets:  # the order of two sets would matter
                raise _Unloadable
            self.targets.add(action.target)
            load = self._load(action.target, "function")
            cells = self._cells(load, action.target.args)
            assert load.value is not None
            cells.append(self._cell(load.value, action.value))
            self._row(load, cells)
        elif (found := self.loader.loads.get(action.fn)) is not None and found.kind == "relation":
            load = self._load(action, "relation")  # its arity checked too
            self._row(load, self._cells(load, action.args))
        else:
            self._node(action)

    def _load(self, call: Call, kind: str) -> _Load:
        load = self.loader.loads.get(call.fn)
        if load is None or load.kind != kind or len(load.columns) != len(call.args):
            raise _Unloadable
        return load

    def _node(self, root: Call) -> int:
        """The id of `root`, giving one (children first) to each term of it that has none;
        iterative, so a term as deep as the parser allows needs no Python recursion."""
        stack = [root]
        while stack:
            call = stack[-1]
            if call in self.ids:
                stack.pop()
                continue
            load = self._load(call, "constructor")
            pending = [a for a in call.args if isinstance(a, Call) and a not in self.ids]
            if pending:
                stack.extend(pending)
                continue
            stack.pop()
            cells = self._cells(load, call.args)  # every child has its id: no recursion
            ident = self.ids[call] = self.next_id
            self.next_id += 1
            self.nodes[load.result] = self.nodes.get(load.result, 0) + 1
            self._row(load, [str(ident), *cells])
        return self.ids[root]

    def _cells(self, load: _Load, args: tuple[Arg, ...]) -> list[str]:
        return [self._cell(col, arg) for col, arg in zip(load.columns, args, strict=True)]

    def _cell(self, column: str, arg: Arg) -> str:
        if isinstance(arg, Call):
            load = self.loader.loads.get(arg.fn)
            if load is None or load.kind != "constructor" or load.result != column:
                raise _Unloadable
            return str(self._node(arg))
        if column == "i64":
            if type(arg) is not int or not _I64[0] <= arg <= _I64[1]:
                raise _Unloadable
            return str(arg)
        if column == "String" and isinstance(arg, str) and _readable(arg):
            return arg
        raise _Unloadable

    def _row(self, load: _Load, cells: list[str]) -> None:
        line = "\t".join(cells)
        if not line:  # egglog's reader would see no row
            raise _Unloadable
        self.rows.setdefault(load.table, []).append(line)


def _readable(text: str) -> bool:
    """Whether egglog's `input` reads the string back unchanged: UTF-8, one line, no tab, no
    leading or trailing white space (its reader trims each field)."""
    if "\t" in text or len(text.splitlines()) > 1 or text != text.strip():  # a lone "\n" is stripped
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate
        return False
    return True


def signatures(egraph: Any, symbols: Mapping[str, Any]) -> dict[str, Signature]:
    """The signature of every symbol, read off the egglog declarations of `egraph` (internals
    of the `egglog` package: raises `AttributeError` / `KeyError` / `TypeError` where they
    differ, and the caller inserts by commands)."""
    state: Any = egraph._state
    decls: Any = state.__egg_decls__
    sort_of: dict[Any, str] = state.type_ref_to_egg_sort
    out: dict[str, Signature] = {}
    for name, obj in symbols.items():
        ref, _egg = egraph._callable_to_egg(obj)
        decl = decls.get_callable_decl(ref)
        kind = type(decl).__name__
        if kind == "ConstantDecl":
            out[name] = Signature("constructor", (), sort_of[decl.type_ref])
            continue
        sig = decl.signature
        args = tuple(sort_of[t.to_just()] for t in sig.arg_types)
        result = sort_of[sig.semantic_return_type.to_just()]
        if kind == "ConstructorDecl":
            out[name] = Signature("constructor", args, result)
        elif kind == "RelationDecl":
            out[name] = Signature("relation", args, result)
        elif kind == "FunctionDecl":
            out[name] = Signature("function", args, result)
    return out
