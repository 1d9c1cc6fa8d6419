"""The egglog session layer: one program template, one adapter over egglog, one bounded
runner with one `Limits` and one failure rule (`60-egraph-engine.md` §3, §8, §10, §11).

Every e-graph slotsat builds (the slots pass's one per function, the index engine's one per
saturation) is a `Session`, obtained with `session(spec)` for one of the two program specs
of `slotsat.egraph_rules.schedules` (`SLOTS_PASS`, `INDEX_ENGINE`):

- **Program template.** `Program(spec)` is an e-graph in which every sort, function and
  ruleset of the spec's schedules is declared, every rule lowered and the dtype facts
  registered. Declaring costs 0.3-0.9 s, so one template per spec and thread serves many
  sessions: a session is a `push` on it and ends with the `pop`, so it starts from exactly
  the e-graph a fresh `EGraph` with the rulesets would give. egglog keeps some run
  statistics across `pop` (and `push` copies them; a session gets dearer with every cycle
  on one template), so a template serves `TEMPLATE_USES` sessions and is then rebuilt,
  which keeps a long run linear; it keeps memory of each session too, so it is also rebuilt
  once its sessions have held `TEMPLATE_ROWS` rows. A session that raises still pops; a
  failed `pop` drops the template.
- **Adapter.** Callers speak call trees (`slotsat.egraph_rules.calls`) over the spec's
  symbol table (every constructor, function and relation Python inserts or reads). The
  template lowers them to egglog's command objects (`egglog.bindings`, with the egg names
  from `EGraph._callable_to_egg`, schedules compiled once by `EGraph._state`, commands run
  by `EGraph._egraph`), which saves building high-level expressions (0.1-0.2 ms per node),
  translating schedules on every round and decoding results through the high-level term
  conversion. Where those internals are missing (another egglog release, or `LOW_LEVEL`
  off) the same calls go through the public API (`register`, `run`, `function_values`,
  `extract`, `push` / `pop`). Both paths insert the same facts and run the same rulesets;
  tests check they decide identically. The view of a saturated e-graph
  (`slotsat.egraph_rules.view`) is read from egglog's frozen tables on the command path
  (`freeze()`, e-classes by their raw ids) and from the JSON export (`_serialize`; there is
  no public one) on the other; a test checks both readings are equal. The op-name mapping
  is computed once per template on the command path.
- **Bounded runner.** `Session.run(schedule, limits)` drives every loop of the schedule
  (`schedules.Fix`) in Python, one egglog iteration of one ruleset per call (the call also
  returns the table sizes after it, so a limit check costs no call of its own): a loop
  repeats its steps until a round reports no update, a top-level phase at most
  `limits.rounds_for(name)` rounds in all (`rounds` counts those), and after every call the
  runner stops when the tables hold more than `limits.rows` rows or `limits.seconds` have
  passed since `started`. One iteration over a finite e-graph always returns, so the limits
  hold even for a ruleset that would never saturate. (egglog's own `repeat` / `saturate`
  schedules would take one call per phase, but egglog checks neither a row nor a time limit
  inside them, so the runner keeps the iteration as its unit.) Callers put the terms of many
  functions into one session (`engine.saturate_together`,
  `LowerPipelineToSlots.plan_all`), so the calls are per batch of functions, not per
  function.
- **Failure rule.** Hitting a limit is never an exception: the returned `ScheduleRun`
  names the limit (`limit_hit`, with the environment variable that raises it), and the
  caller declines safely. The slots pass declines every pipeline loop of the function
  (code `egraph-limit`; the loops are replicated); the index engine keeps the best form
  proven so far (every union made is sound and every inserted term stays in its e-class),
  and reports the hit.
- **Limits** come from the environment through `slotsat.core.limits` (the one place that
  reads `SLOTSAT_EGRAPH_ITERATIONS`, `SLOTSAT_CAP_<SCHEDULE>`, `SLOTSAT_EGRAPH_NODES`,
  `SLOTSAT_EGRAPH_SECONDS`) or are passed explicitly.

Insertion on the command path goes through the bulk loader (`slotsat.egraph_rules.bulk`):
the actions become rows of load relations that egglog's `input` reads from files and load
rules turn into the same terms and facts (the 1,000-loop bench function's codegen insert: 0.61 s
as commands, 0.13 s through the loader).
An insertion the loader cannot state as rows is sent as commands, in chunks of
`INSERT_CHUNK`: egglog 13.2 grows memory quadratically with the number of commands in one
call (§10).
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

from egglog import (
    BaseExpr,
    Bool,
    EGraph,
    Ruleset,
    String,
    Vec,
    get_callable_args,
    get_callable_fn,
    i64,
    set_,
)
from egglog import get_literal_value as _get_literal_value

from slotsat.core import limits as env
from slotsat.egraph_rules.bulk import BulkLoader, is_node_function
from slotsat.egraph_rules.bulk import signatures as bulk_signatures
from slotsat.egraph_rules.calls import Action, Arg, Call, Set
from slotsat.egraph_rules.lang import Idx, dtype_facts
from slotsat.egraph_rules.schedules import Fix, NamedSchedule, ProgramSpec
from slotsat.egraph_rules.view import EGraphView, Table, wanted

LOW_LEVEL = True
"""Use egglog's command objects when available (tests switch it off to run the public path)."""

BULK = True
"""Insert through the bulk loader on the command path (tests switch it off to compare)."""

INSERT_CHUNK = 200
"""Commands per egglog call (`60-egraph-engine.md` §10)."""

TEMPLATE_USES = 128
"""Sessions served by one template before it is rebuilt (see the module docstring)."""

TEMPLATE_ROWS = 250_000
"""Table rows one template's sessions may have held in all (each session's largest count)
before it is rebuilt: egglog keeps memory of every session after its `pop`, and with large
sessions `TEMPLATE_USES` alone bounds that too late. Measured at the 10,000-loop
many-functions bench point (sessions of about 30,000 rows): 866 MB peak with `TEMPLATE_USES`
alone, 834 MB with this bound, 808 MB with a template rebuilt after every session, all in
the same time; a process compiling the 1,000-loop point again and again levels off at
234 MB after seven compiles instead of growing 3-6 MB a compile."""


# --------------------------------------------------------------------------------------
# limits and runs


@dataclass(frozen=True)
class Limits:
    """Rounds per schedule, table rows and wall time of one e-graph's runs, and the time the
    choices from it may take (`extract_seconds`, per index engine: `slotsat.core.limits` (j))."""

    rounds: int = env.DEFAULT_EGRAPH_ROUNDS
    rows: int = env.DEFAULT_EGRAPH_ROWS
    seconds: float = env.DEFAULT_EGRAPH_SECONDS
    extract_seconds: float = env.DEFAULT_EXTRACT_SECONDS

    @classmethod
    def from_env(cls) -> Limits:
        return cls(rounds=env.egraph_rounds(), rows=env.egraph_rows(), seconds=env.egraph_seconds(),
                   extract_seconds=env.extract_seconds())

    def rounds_for(self, schedule: str) -> int:
        """The cap of one schedule: `SLOTSAT_CAP_<SCHEDULE>` if set, else `rounds`."""
        return env.egraph_schedule_rounds(schedule, self.rounds)


@dataclass
class ScheduleRun:
    """What one bounded run did: rounds, matches per rule name, and the limit that stopped
    it (None: every phase reached its fixpoint)."""

    schedule: str
    rounds: int = 0
    saturated: bool = False
    limit_hit: str | None = None
    matches: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0


# --------------------------------------------------------------------------------------
# the two paths to egglog


class _Path(Protocol):
    low: bool

    def push(self) -> None: ...

    def pop(self) -> None: ...

    def insert(self, actions: Sequence[Action]) -> None: ...

    def run_once(self, ruleset: Ruleset) -> tuple[bool, dict[str, int], int]: ...

    def rows(self) -> int: ...

    def table(self, fn: str) -> list[tuple[tuple[Arg, ...], Arg]]: ...

    def extract(self, roots: Sequence[Call]) -> list[Call]: ...

    def export(self) -> str: ...

    def view(self, prefix: str = "") -> EGraphView: ...


_PRIMITIVES = {"i64": "value_to_i64", "BigInt": "value_to_bigint", "String": "value_to_string",
               "Bool": "value_to_bool"}
"""egglog's decoder of each primitive sort the view's tables hold."""


class _Commands:
    """egglog's command objects (see the module docstring); built once per template.
    Raises `AttributeError` / `ImportError` / `TypeError` / `KeyError` when the internals
    differ, and the template keeps the public API."""

    low = True

    def __init__(self, egraph: EGraph, spec: ProgramSpec) -> None:
        from egglog import bindings
        from egglog.egraph_state import span

        self.egraph = egraph
        self.b: Any = bindings
        self.span: Any = span()
        state: Any = egraph._state
        self.names = {name: str(egraph._callable_to_egg(obj)[1]) for name, obj in spec.symbols.items()}
        self.symbols = {egg: name for name, egg in self.names.items()}
        vec: Any = Vec[Idx]()
        egraph._add_decls(vec)
        state.type_ref_to_egg(vec.__egg_typed_expr__.tp)  # declares the Vec sort
        self.runs: dict[int, Any] = {}
        for ruleset in spec.rulesets():
            self.runs[id(ruleset)] = state.run_schedule_to_egg(ruleset.schedule)
        self._op_mapping: dict[str, str] | None = None
        self._print_size = bindings.PrintSize(self.span, None)
        self.bulk: BulkLoader | None = None
        try:
            bulk = BulkLoader(bulk_signatures(egraph, spec.symbols), self.names)
        except (AttributeError, KeyError, TypeError):  # other egglog internals: commands only
            pass
        else:
            self._run(*egraph._egraph.parse_program(bulk.program))
            (self._run_bulk,) = egraph._egraph.parse_program(f"(run {bulk.ruleset} 1)")
            (self._clear_bulk,) = egraph._egraph.parse_program(f"(run {bulk.clear} 1)")
            self.bulk = bulk

    def _run(self, *cmds: Any) -> list[Any]:
        out: list[Any] = self.egraph._egraph.run_program(*cmds)
        return out

    def push(self) -> None:
        self._run(self.b.Push(1))

    def pop(self) -> None:
        self._run(self.b.Pop(self.span, 1))

    def _lit(self, value: int | str | bool) -> Any:
        b = self.b
        if isinstance(value, bool):
            return b.Lit(self.span, b.Bool(value))
        if isinstance(value, int):
            return b.Lit(self.span, b.Int(value))
        return b.Lit(self.span, b.String(value))

    def _expr(self, arg: Arg, memo: dict[Call, Any]) -> Any:
        if not isinstance(arg, Call):
            return self._lit(arg)
        done = memo.get(arg)
        if done is None:
            args = [self._expr(a, memo) for a in arg.args]
            done = memo[arg] = self.b.Call(self.span, self.names[arg.fn], args)
        return done

    def insert(self, actions: Sequence[Action]) -> None:
        """Insert through the bulk loader (`slotsat.egraph_rules.bulk`) where every action can be
        stated as rows, else as one command per action."""
        rows = self.bulk.rows(actions) if BULK and self.bulk is not None else None
        if rows is None:
            self._insert_commands(actions)
            return
        assert self.bulk is not None
        tables, nodes = rows
        try:
            files = self.bulk.files(tables)
        except OSError:  # no writable temporary directory: commands from now on
            self.bulk = None
            self._insert_commands(actions)
            return
        self._run(*(self.b.Input(self.span, table, path) for table, path in files))
        for _ in range(sum(nodes.values()) + 2):  # one tree level per iteration
            (out,) = self._run(self._run_bulk)
            if not out.report.updated:
                break
        else:
            raise AssertionError("the bulk loader did not reach its fixpoint")
        (size,) = self._run(self._print_size)
        built = {str(name): int(n) for name, n in size.sizes if is_node_function(str(name))}
        for sort, count in nodes.items():
            if built.get(self.bulk.node_fn[sort], 0) != count:
                raise AssertionError(f"the bulk loader built {built.get(self.bulk.node_fn[sort], 0)} "
                                     f"of the {count} terms of sort {sort}")
        self._run(self._clear_bulk)

    def _insert_commands(self, actions: Sequence[Action]) -> None:
        b, sp = self.b, self.span
        memo: dict[Call, Any] = {}
        cmds: list[Any] = []
        for action in actions:
            if isinstance(action, Set):
                target = action.target
                args = [self._expr(a, memo) for a in target.args]
                cmds.append(
                    b.ActionCommand(b.Set(sp, self.names[target.fn], args, self._expr(action.value, memo)))
                )
            else:
                cmds.append(b.ActionCommand(b.Expr_(sp, self._expr(action, memo))))
        for k in range(0, len(cmds), INSERT_CHUNK):
            self._run(*cmds[k : k + INSERT_CHUNK])

    def run_once(self, ruleset: Ruleset) -> tuple[bool, dict[str, int], int]:
        """One iteration of `ruleset` and the table rows after it, in one egglog call."""
        out, size = self._run(self.runs[id(ruleset)], self._print_size)
        raw = out.report
        matches = {str(k): int(v) for k, v in raw.num_matches_per_rule.items()}
        return bool(raw.updated), matches, sum(int(n) for _, n in size.sizes)

    def rows(self) -> int:
        (out,) = self._run(self._print_size)
        return sum(int(size) for _, size in out.sizes)

    def _decode(self, dag: Any, term: int, memo: dict[int, Arg]) -> Arg:
        done = memo.get(term)
        if done is not None:
            return done
        node = dag.get(term)
        out: Arg
        if isinstance(node, self.b.TermLit):
            value = node.value.value
            assert isinstance(value, int | str), f"unexpected literal {value!r}"
            out = value
        else:
            out = Call(self.symbols[node.name], tuple(self._decode(dag, a, memo) for a in node.args))
        memo[term] = out
        return out

    def table(self, fn: str) -> list[tuple[tuple[Arg, ...], Arg]]:
        b = self.b
        (out,) = self._run(
            b.PrintFunction(self.span, self.names[fn], None, None, b.DefaultPrintFunctionMode())
        )
        dag = out.termdag
        memo: dict[int, Arg] = {}
        rows: list[tuple[tuple[Arg, ...], Arg]] = []
        for call, value in out.terms:
            args = tuple(self._decode(dag, a, memo) for a in dag.get(call).args)
            rows.append((args, self._decode(dag, value, memo)))
        return rows

    def extract(self, roots: Sequence[Call]) -> list[Call]:
        b, sp = self.b, self.span
        memo: dict[Call, Any] = {}
        vec = b.Call(sp, "vec-of", [self._expr(r, memo) for r in roots])
        (out,) = self._run(b.Extract(sp, vec, self._lit(0)))
        dag = out.termdag
        decoded: dict[int, Arg] = {}
        terms = [self._decode(dag, t, decoded) for t in dag.get(out.term).args]
        assert all(isinstance(t, Call) for t in terms)
        return terms  # type: ignore[return-value]

    def _ops(self) -> dict[str, str]:
        """egglog's name -> the Python-side name of every callable, computed once per template
        under `_BUILDING` (it resolves egglog's declarations, which is not thread-safe)."""
        if self._op_mapping is None:
            with _BUILDING:
                self._op_mapping = self.egraph._state.op_mapping()
        return self._op_mapping

    def export(self) -> str:
        """`EGraph._serialize(split_primitive_outputs=False)` with the op-name mapping computed
        once per template (egglog pretty-prints every callable for it, about 0.5 ms each)."""
        op_mapping = self._ops()
        serialized = self.egraph._egraph.serialize(
            [], max_functions=None, max_calls_per_function=None, include_temporary_functions=False
        )
        if serialized.discarded_functions or serialized.truncated_functions:
            return _public_export(self.egraph)
        serialized.map_ops(op_mapping)
        return str(serialized.to_json())

    def view(self, prefix: str = "") -> EGraphView:
        """The view of the frozen e-graph's tables (`tables`), or of the JSON export where
        egglog has no `freeze`."""
        try:
            tables = self.tables(prefix)
        except (AttributeError, TypeError):
            return EGraphView.from_json(self.export(), prefix)
        return EGraphView.from_tables(tables, prefix)

    def tables(self, prefix: str = "") -> list[Table]:
        """The tables the view reads, decoded from `freeze()`: no serialization, no JSON (at
        1,000 loops the export and its decoding took 0.23 s, the frozen rows 0.02 s). An
        e-class is named as the serializer names it, `<sort>-<number>`, by its raw value
        (`value_to_i64` reads an e-class's id), after `prefix` (see `Session.view`)."""
        egraph: Any = self.egraph._egraph
        op_mapping = self._ops()
        out: list[Table] = []
        decoders: dict[str, Callable[[Any], object]] = {}
        for egg, fn in egraph.freeze().functions.items():
            op = op_mapping.get(egg)
            if op is None or not wanted(op):
                continue
            ins = [self._decoder(egraph, sort, decoders, prefix) for sort in fn.input_sorts]
            res = self._decoder(egraph, fn.output_sort, decoders, prefix)
            inputs: list[Any] = []
            outputs: list[Any] = []
            for row in fn.rows:
                inputs.append(row.inputs)
                outputs.append(row.output)
            if inputs and len(inputs[0]) != len(ins):
                raise TypeError(f"a row of {egg} has {len(inputs[0])} inputs, its signature {len(ins)}")
            # column by column: one decoder per column, the rows zipped back in C
            columns = (
                [list(map(d, column)) for d, column in zip(ins, zip(*inputs, strict=True), strict=True)]
                if inputs else []
            )
            keys = list(zip(*columns, strict=True)) if ins else [() for _ in outputs]
            out.append(Table(op, egg, list(zip(keys, map(res, outputs), strict=True))))
        return out

    @staticmethod
    def _decoder(
        egraph: Any, sort: str, decoders: dict[str, Callable[[Any], object]], prefix: str
    ) -> Callable[[Any], object]:
        """How a value of `sort` reads: a primitive by egglog's decoder, an e-class as
        `<prefix><sort>-<raw id>` (each id formatted once per `tables` call: a class is the output of
        one row and an input of several)."""
        known = decoders.get(sort)
        if known is not None:
            return known
        decode: Callable[[Any], object]
        primitive = _PRIMITIVES.get(sort)
        if primitive is not None:
            decode = getattr(egraph, primitive)
        elif sort.startswith("@"):  # a relation's output: nothing to read
            decode = _nothing
        else:
            raw = egraph.value_to_i64
            names: dict[Any, str] = {}

            def decode(v: Any) -> object:
                name = names.get(v)
                if name is None:
                    name = names[v] = f"{prefix}{sort}-{raw(v)}"
                return name

        decoders[sort] = decode
        return decode


def _nothing(_v: Any) -> None:
    return None


def _public_export(egraph: EGraph) -> str:
    return egraph._serialize(split_primitive_outputs=False).to_json()


class _Public:
    """The public API (the fallback path)."""

    low = False

    def __init__(self, egraph: EGraph, spec: ProgramSpec) -> None:
        self.egraph = egraph
        self.table_of = spec.symbols
        self.symbols: dict[str, str] = {}
        for name, obj in spec.symbols.items():
            self.symbols[_callable_name(obj)] = name

    def push(self) -> None:
        self.egraph.push()

    def pop(self) -> None:
        self.egraph.pop()

    def _expr(self, arg: Arg, memo: dict[Call, Any]) -> Any:
        if isinstance(arg, bool):
            return Bool(arg)
        if isinstance(arg, int):
            return i64(arg)
        if isinstance(arg, str):
            return String(arg)
        done = memo.get(arg)
        if done is None:
            obj: Any = self.table_of[arg.fn]
            if isinstance(obj, BaseExpr):  # a constant (`Dtype.INDEX`)
                done = obj
            else:
                done = obj(*(self._expr(a, memo) for a in arg.args))
            memo[arg] = done
        return done

    def insert(self, actions: Sequence[Action]) -> None:
        memo: dict[Call, Any] = {}
        high: list[Any] = []
        for action in actions:
            if isinstance(action, Set):
                high.append(set_(self._expr(action.target, memo)).to(self._expr(action.value, memo)))
            else:
                high.append(self._expr(action, memo))
        if high:
            self.egraph.register(*high)

    def run_once(self, ruleset: Ruleset) -> tuple[bool, dict[str, int], int]:
        report = self.egraph.run(ruleset)
        matches: dict[str, int] = {}
        for rule_decl, count in report.num_matches_per_rule.items():
            name = getattr(rule_decl, "name", None)
            key = name if isinstance(name, str) else str(rule_decl)
            matches[key] = matches.get(key, 0) + count
        return report.updated, matches, self.rows()

    def rows(self) -> int:
        return sum(size for _, size in self.egraph.all_function_sizes())

    def _decode(self, x: BaseExpr) -> Arg:
        fn = get_callable_fn(x)
        if fn is None:
            value = _literal(x)
            assert isinstance(value, int | str), f"unexpected literal {x!r}"
            return value
        args = get_callable_args(x)
        return Call(self.symbols[str(fn)], tuple(self._decode(a) for a in (args or ())))

    def table(self, fn: str) -> list[tuple[tuple[Arg, ...], Arg]]:
        rows: list[tuple[tuple[Arg, ...], Arg]] = []
        values: dict[Any, Any] = self.egraph.function_values(self.table_of[fn])
        for call, value in values.items():
            args = get_callable_args(call)
            rows.append((tuple(self._decode(a) for a in (args or ())), self._decode(value)))
        return rows

    def extract(self, roots: Sequence[Call]) -> list[Call]:
        memo: dict[Call, Any] = {}
        result = self.egraph.extract(Vec[Idx](*(self._expr(r, memo) for r in roots)))
        terms = [self._decode(t) for t in (get_callable_args(result) or ())]
        assert all(isinstance(t, Call) for t in terms)
        return terms  # type: ignore[return-value]

    def export(self) -> str:
        return _public_export(self.egraph)

    def view(self, prefix: str = "") -> EGraphView:
        return EGraphView.from_json(self.export(), prefix)


def _callable_name(obj: object) -> str:
    """The printed name egglog gives a symbol's callable (`Idx.const`, `Loop`, `Dtype.INDEX`)."""
    fn = get_callable_fn(obj) if isinstance(obj, BaseExpr) else obj  # type: ignore[arg-type]
    return str(fn)


def _literal(x: BaseExpr) -> object:
    value: object = _get_literal_value(cast(Any, x))
    return value


# --------------------------------------------------------------------------------------
# the template and its sessions


class Program:
    """The program template of one `ProgramSpec`: an e-graph with the spec's rulesets declared
    and lowered and the dtype facts registered, with its path to egglog (see the module
    docstring)."""

    def __init__(self, spec: ProgramSpec, low: bool) -> None:
        egraph = EGraph()
        egraph.register(*dtype_facts())
        for ruleset in spec.rulesets():
            egraph.run(ruleset)  # declares and lowers; the e-graph holds no term, nothing fires
        path: _Path = _Public(egraph, spec)
        if low:
            try:
                path = _Commands(egraph, spec)
            except (AttributeError, ImportError, KeyError, TypeError):
                path = _Public(egraph, spec)
        self.spec = spec
        self.egraph = egraph
        self.path = path
        self.uses = 0
        self.rows = 0
        """The table rows its sessions have held (each session's largest count), in all."""

    def close(self) -> None:
        """Free egglog's e-graph now, on this thread. egglog refuses to drop an e-graph on any
        thread but the one that built it, and its Python e-graph holds reference cycles: left
        to the collector, a retired template would be freed by whichever thread collects
        next (the index engine's worker, or the main thread for the worker's templates).
        Every state of the Python e-graph (the current one and those `push` saved) refers to
        the one native e-graph; dropping those references frees it by reference counting."""
        states: list[Any] = [getattr(self.egraph, "_state", None), *getattr(self.egraph, "_state_stack", ())]
        for state in states:
            if state is not None and hasattr(state, "egraph"):
                state.egraph = None


class Session:
    """One e-graph (a `push` on the template), valid inside its `session(spec)` block."""

    def __init__(self, spec: ProgramSpec, path: _Path) -> None:
        self.spec = spec
        self._path = path
        self.rows_held = 0
        """The most table rows a round of this session has ended with."""

    @property
    def low(self) -> bool:
        """True when the command path is in use (False: the public API)."""
        return self._path.low

    def insert(self, actions: Sequence[Action]) -> None:
        """Insert facts and terms, in order (each shared subterm built once)."""
        if actions:
            self._path.insert(actions)

    def rows(self) -> int:
        """Rows in all tables (terms and facts)."""
        return self._path.rows()

    def table(self, fn: str) -> list[tuple[tuple[Arg, ...], Arg]]:
        """Every row `fn(args) = value` of the function named `fn`."""
        return self._path.table(fn)

    def extract(self, roots: Sequence[Call]) -> list[Call]:
        """The cheapest term of each root under the declared IR costs: one batched extraction
        (a single `Vec[Idx]` root, `60-egraph-engine.md` §9.1)."""
        if not roots:
            return []
        terms = self._path.extract(roots)
        assert len(terms) == len(roots), "batched extraction lost a root"
        return terms

    def export(self) -> str:
        """The e-graph as egraph-serialize JSON (`slotsat.egraph_rules.view.EGraphView` reads it)."""
        return self._path.export()

    def view(self, prefix: str = "") -> EGraphView:
        """The e-graph's `Idx` classes and facts (`slotsat.egraph_rules.view`), read from its
        tables on the command path and from the JSON export on the public one. Every e-class
        id starts with `prefix`: the views of several e-graphs then merge without a clash
        (`EGraphView.merged`)."""
        return self._path.view(prefix)

    def run(self, schedule: NamedSchedule, limits: Limits, *, started: float | None = None) -> ScheduleRun:
        """The bounded runner: each phase until a round changes nothing, within the limits."""
        if schedule not in self.spec.schedules:
            raise ValueError(f"schedule {schedule.name} is not part of the program {self.spec.name}")
        cap = limits.rounds_for(schedule.name)
        t0 = time.perf_counter() if started is None else started
        result = ScheduleRun(schedule.name)
        for phase in schedule.phases:
            while result.limit_hit is None:
                if result.rounds >= cap:
                    result.limit_hit = (
                        f"{schedule.name}: round limit of {cap} "
                        f"(SLOTSAT_CAP_{schedule.name} or SLOTSAT_EGRAPH_ITERATIONS raises it)"
                    )
                    break
                result.rounds += 1
                if not self._round(phase, result, limits, t0):
                    break
        result.saturated = result.limit_hit is None
        result.seconds = time.perf_counter() - t0
        return result

    def _round(self, fix: Fix, result: ScheduleRun, limits: Limits, t0: float) -> bool:
        """One round of `fix`'s steps (a nested `Fix` to its own fixpoint); True when anything
        changed. Stops at the first limit, which it records in `result`."""
        changed = False
        for step in fix.steps:
            if isinstance(step, Fix):
                while result.limit_hit is None and self._round(step, result, limits, t0):
                    changed = True
            else:
                updated, matches, rows = self._path.run_once(step)
                self.rows_held = max(self.rows_held, rows)
                result.matches.update(matches)
                changed = changed or updated
                result.limit_hit = self._over(result.schedule, limits, t0, rows if updated else None)
            if result.limit_hit is not None:
                return False
        return changed

    @staticmethod
    def _over(name: str, limits: Limits, t0: float, rows: int | None) -> str | None:
        """The time or row limit this e-graph is over, if any (`rows`: the table rows after an
        iteration that changed the e-graph, None when it changed nothing)."""
        if time.perf_counter() - t0 > limits.seconds:
            return f"{name}: time limit of {limits.seconds:g} s (SLOTSAT_EGRAPH_SECONDS raises it)"
        if rows is not None and rows > limits.rows:
            return f"{name}: row limit of {limits.rows} (SLOTSAT_EGRAPH_NODES raises it)"
        return None


_POOLS = threading.local()


def drop_templates() -> None:
    """Drop this thread's templates. egglog's e-graph must be dropped on the thread that built
    it, so a thread that ends (the index engine's worker) calls this before it does: each
    template is closed (`Program.close`) here, on this thread."""
    pools: dict[tuple[str, bool], list[Program]] | None = _POOLS.__dict__.pop("pools", None)
    for pool in (pools or {}).values():
        for program in pool:
            program.close()


_BUILDING = threading.Lock()
"""Held while a template is built: egglog's Python declarations resolve lazily, and two
threads resolving one at once fail ("Recursively resolving thunk")."""


def _pool(spec: ProgramSpec) -> list[Program]:
    pools: dict[tuple[str, bool], list[Program]] = _POOLS.__dict__.setdefault("pools", {})
    return pools.setdefault((spec.name, LOW_LEVEL), [])


def _program(spec: ProgramSpec) -> Program:
    """A template of `spec` from this thread's pool, or a new one."""
    pool = _pool(spec)
    if pool:
        return pool.pop()
    with _BUILDING:
        return Program(spec, LOW_LEVEL)


def command_path(spec: ProgramSpec) -> bool:
    """Whether this thread's sessions of `spec` use egglog's command objects (building its
    template if it has none). Only that path may run on two threads at once: the public API
    resolves egglog's declarations as it goes."""
    program = _program(spec)
    _pool(spec).append(program)
    return program.path.low


@contextmanager
def session(spec: ProgramSpec) -> Iterator[Session]:
    """A fresh e-graph of the kind `spec` (`schedules.SLOTS_PASS`, `schedules.INDEX_ENGINE`): a
    `push` on this thread's template of that spec, popped on exit."""
    program = _program(spec)
    program.path.push()
    kept = False
    current = Session(spec, program.path)
    try:
        yield current
    finally:
        try:
            program.path.pop()  # when this raises, the template is dropped rather than reused
            program.uses += 1
            program.rows += current.rows_held
            if program.uses < TEMPLATE_USES and program.rows < TEMPLATE_ROWS:
                _pool(spec).append(program)
                kept = True
        finally:
            if not kept:
                program.close()
