"""Discharging obligations: z3 on bit-vectors first, then on the exact integer encoding.

`check(rule, inst)` derives the rule's obligation in the bit-vector encoding and asks z3 for
a counterexample to `premises => claim`. Bit-blasting handles ring identities, casts and
constant divisors at once, but a 32- or 64-bit symbolic divisor or a `BigInt` interval makes
it time out; then the obligation is derived again in the integer encoding
(`tests/soundness/domains.py`: the same two's complement values, read as integers) and solved
by `split_solve`.

`split_solve` is a small case splitter in front of z3's nonlinear arithmetic, which gives up
on formulas full of `If`s (each wrap, each sign case of a division) even when the guards
decide them. Repeatedly: every comparison that occurs inside a connective is decided, where
the linear top-level facts entail it or its negation, and replaced by its truth value; when
none can be decided, the search splits on one (both branches must be refuted). A leaf without
undecided comparisons goes to z3 with the full per-query timeout. Each step replaces a formula
by an equivalent one or by its two cases, so `unsat` means proven and a model of a branch is
a model of the obligation.

A verdict is `proven`, `refuted` (with z3's model) or `timeout`: a timeout is never a pass.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any

import z3

from slotsat.egraph_rules.engine import stop_worker
from tests.soundness.derive import Instance, Obligation, Untranslatable, World, constants, derive
from tests.soundness.domains import BitVec, Integer, Unsupported
from tests.soundness.rules import Rule

LEAF_TIMEOUT_MS = int(os.environ.get("SLOTSAT_Z3_LEAF_MS", "10000"))
"""Per-query timeout of a leaf of the case split."""
RLIMIT_PER_MS = 400
"""Resource units per millisecond of budget. z3's resource limit is deterministic, so a
budget is a number of units and the wall-clock timeout, `TIMEOUT_SLACK` times longer, is a
safety net: a loaded machine makes a query slower, never its answer different. (z3 spends
1,000 to 2,500 units per ms of an idle core on these obligations, so a budget ends in about
a third of its nominal time; the budgets below were tuned at this rate.)"""
TIMEOUT_SLACK = 10
QUICK_MS = int(os.environ.get("SLOTSAT_Z3_QUICK_MS", "300"))
"""Budget of the plain attempt at each node of the case split."""
ATTEMPT_MS = int(os.environ.get("SLOTSAT_Z3_ATTEMPT_MS", "1000"))
"""Budget of each short attempt before the case splitter (measured: z3 decides most
obligations and finds most counterexamples of the mutants within a second in one of them)."""
MAX_DEPTH = 12
RULE_BUDGET_S = float(os.environ.get("SLOTSAT_Z3_BUDGET_S", "30"))
"""Wall-clock budget of one obligation in the integer encoding."""


PIPELINES: tuple[tuple[str, ...], ...] = (
    (
        "simplify",
        "ackermannize_bv",
        "propagate-values",
        "solve-eqs",
        "elim-uncnstr",
        "simplify",
        "propagate-ineqs",
        "smt",
    ),
    ("simplify", "ackermannize_bv", "propagate-values", "solve-eqs", "elim-uncnstr", "simplify", "qfnia"),
    ("simplify", "propagate-values", "solve-eqs", "elim-uncnstr", "simplify", "smt"),
    (),
)
"""z3 configurations tried in turn on a hard query. The obligations define many terms by
equations (`iv == start + j * step`, the fields of a loop), so Ackermann's reduction of the
uninterpreted functions (the loop fields become constants) and equation solving come first,
in front of the SMT core or the nonlinear integer tactic; then without the reduction; then the
plain solver."""


@dataclass(frozen=True)
class Verdict:
    rule: str
    instance: str
    status: str
    """`proven`, `refuted` or `timeout`."""
    encoding: str
    seconds: float
    detail: str = ""
    query: str = ""
    """`prove` mode: whether the premises alone are satisfiable (`matches`: the rule's query can
    match, so its proof is not vacuous; `vacuous`; `timeout`), decided in the same child."""

    def __str__(self) -> str:
        extra = f": {self.detail}" if self.detail else ""
        return f"{self.rule} [{self.instance}] {self.status} ({self.encoding}, {self.seconds:.2f} s){extra}"


def _solve(
    fs: list[z3.BoolRef], timeout_ms: int, pipelines: tuple[tuple[str, ...], ...] = PIPELINES[:1]
) -> tuple[z3.CheckSatResult, z3.ModelRef | None]:
    """z3 on the conjunction `fs`. When that is `unknown` and some conjuncts are quantified (the
    completion of the gates: "no declining rule matched"), the conjuncts without quantifiers
    alone are tried: fewer premises, so `unsat` there is still a proof (a model there proves
    nothing and is not reported)."""
    r, model = _solve_once(fs, timeout_ms, pipelines)
    if r == z3.unknown:
        free = [f for f in fs if not _has_quantifier(f)]
        if len(free) < len(fs):
            r2, _ = _solve_once(free, timeout_ms, pipelines)
            if r2 == z3.unsat:
                return r2, None
    return r, model


def _has_quantifier(e: z3.ExprRef) -> bool:
    stack, seen = [e], set()
    while stack:
        x = stack.pop()
        if x.get_id() in seen:
            continue
        seen.add(x.get_id())
        if z3.is_quantifier(x):
            return True
        stack.extend(x.children())
    return False


def _solver(pipeline: tuple[str, ...]) -> z3.Solver:
    return z3.Then(*pipeline).solver() if pipeline else z3.Solver()


def _solve_once(
    fs: list[z3.BoolRef], timeout_ms: int, pipelines: tuple[tuple[str, ...], ...] = PIPELINES[:1]
) -> tuple[z3.CheckSatResult, z3.ModelRef | None]:
    each = max(50, timeout_ms // len(pipelines))
    for pipeline in pipelines:
        s = _solver(pipeline)
        s.set("timeout", each * TIMEOUT_SLACK)
        s.set("rlimit", each * RLIMIT_PER_MS)
        s.add(*fs)
        r = s.check()
        if r != z3.unknown:
            return r, (s.model() if r == z3.sat else None)
    return z3.unknown, None


def _goal(ob: Obligation) -> list[z3.BoolRef]:
    return [*ob.premises, z3.Not(ob.claim)]


@dataclass(frozen=True)
class Task:
    """One obligation to discharge: `prove` (premises => claim, and whether the premises alone
    are satisfiable: `Verdict.query`) or `refute` (premises => claim, looking for a
    counterexample first: the mutation test)."""

    rule: Rule
    inst: Instance
    world: World | None = None
    mode: str = "prove"


JOBS = max(1, min(2, int(os.environ.get("SLOTSAT_Z3_JOBS", str(os.cpu_count() or 1)))))
"""Obligations discharged at once (one forked process each)."""


def run(tasks: Sequence[Task], jobs: int = JOBS) -> list[Verdict]:
    """Every task, each in a forked child that is killed after the budget (z3's nonlinear
    arithmetic does not always honour its own timeout, and a hung query must end as a reported
    timeout), up to `jobs` at a time; verdicts in task order."""
    out = run_groups([[t] for t in tasks], lambda v: False, jobs)
    return [v for (v,) in out]


def run_groups(
    groups: Sequence[Sequence[Task]], stop: Callable[[Verdict], bool], jobs: int = JOBS
) -> list[list[Verdict]]:
    """Each group's tasks in order, one at a time per group, groups side by side (up to `jobs`
    children at once, as `run`); a group ends at its first verdict `v` with `stop(v)` (the
    mutation test: a mutant ends at its first counterexample). The verdicts of each group, in
    order, up to and including the stopping one."""
    ctx = multiprocessing.get_context("fork")
    stop_worker()  # fork a process without the index engine's worker thread (see stop_worker)
    out: list[list[Verdict]] = [[] for _ in groups]
    waiting = [k for k, g in enumerate(groups) if g]
    running: dict[Connection, tuple[int, Task, Any, float]] = {}
    budget = RULE_BUDGET_S + 4 * ATTEMPT_MS * TIMEOUT_SLACK / 1000
    while waiting or running:
        while waiting and len(running) < jobs:
            k = waiting.pop(0)
            task = groups[k][len(out[k])]
            parent, child = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_in_child, args=(child, task), daemon=True)
            proc.start()
            child.close()
            running[parent] = (k, task, proc, time.perf_counter())
        ready = wait(list(running), timeout=1.0)
        now = time.perf_counter()
        for conn in list(running):
            k, task, proc, t0 = running[conn]
            verdict: Verdict | None = None
            if conn in ready:
                try:
                    verdict = conn.recv()
                except EOFError:
                    verdict = Verdict(
                        task.rule.name, task.inst.label, "error", "-", now - t0, "the prover died"
                    )
            elif now - t0 > budget:
                verdict = Verdict(
                    task.rule.name, task.inst.label, "timeout", "-", now - t0, "killed after the budget"
                )
            if verdict is None:
                continue
            if proc.is_alive():
                proc.kill()
            proc.join()
            conn.close()
            del running[conn]
            out[k].append(verdict)
            if not stop(verdict) and len(out[k]) < len(groups[k]):
                waiting.insert(0, k)  # finish a started group first: its verdict comes sooner
    return out


def check(rule: Rule, inst: Instance, world: World | None = None) -> Verdict:
    """One obligation, in a guarded child process."""
    (v,) = run([Task(rule, inst, world)], jobs=1)
    return v


def _in_child(conn: Connection, task: Task) -> None:
    t0 = time.perf_counter()
    try:
        verdict = _check(task.rule, task.inst, task.world, task.mode == "refute")
        if task.mode == "prove":
            verdict = dataclasses.replace(verdict, query=_match(task.rule, task.inst, task.world).status)
    except Untranslatable as exc:
        verdict = Verdict(
            task.rule.name, task.inst.label, "untranslatable", "-", time.perf_counter() - t0, str(exc)
        )
    except BaseException as exc:
        verdict = Verdict(
            task.rule.name,
            task.inst.label,
            "error",
            "-",
            time.perf_counter() - t0,
            f"{type(exc).__name__}: {exc}",
        )
    try:
        conn.send(verdict)
    finally:
        conn.close()


def _bounded(inst: Instance) -> BitVec:
    """The restricted encoding for `inst`: `BigInt`s at twice the widest dtype plus 8 bits (a
    product of two bounds and a few sums fit exactly), `i64`s as wide, up to 64."""
    n = 2 * (inst.max_bits or 64) + 8
    return BitVec(big_bits=n, int_bits=min(n, 64))


def _derive_in(rule: Rule, inst: Instance, world: World | None, dom: BitVec) -> Obligation | None:
    try:
        return derive(rule, inst, dom, world)
    except Unsupported:
        return None


def _check(rule: Rule, inst: Instance, world: World | None, refute: bool = False) -> Verdict:
    """`premises => claim`, in short attempts, then the case splitter.

    Proving: the bit-vector encoding (where it has no `BigInt`), the integer encoding alone
    (z3 decides most interval obligations there at once), then the integer encoding through
    `split_solve`. With `refute` (the mutation test looks for counterexamples): the integer
    encoding alone under each of the `PIPELINES` (z3's model search is erratic: one of them
    mostly finds a model at once), the restricted bit-vector encoding (a model is a
    counterexample, `unsat` is no proof), the exact one, then the splitter."""
    t0 = time.perf_counter()

    def verdict(status: str, encoding: str, detail: str = "") -> Verdict:
        return Verdict(rule.name, inst.label, status, encoding, time.perf_counter() - t0, detail)

    iob = derive(rule, inst, Integer(), world)
    if iob.static_failure is not None:
        return verdict("refuted", "typing", iob.static_failure)
    domains: list[BitVec | None] = (
        [None, _bounded(inst), BitVec()] if refute else [BitVec(), None, BitVec(relaxed=True)]
    )
    for dom in domains:
        ob = iob if dom is None else _derive_in(rule, inst, world, dom)
        if ob is None:
            continue
        pipelines = PIPELINES if refute and dom is None else PIPELINES[:1]
        r, model = _solve(_goal(ob), ATTEMPT_MS * len(pipelines), pipelines)
        encoding = _encoding(ob)
        if r == z3.unsat and not ob.restricted:
            return verdict("proven", encoding)
        if r == z3.sat and not ob.relaxed:
            return verdict("refuted", encoding, _show(model))
    if not refute:
        r, model = _finite_cases(rule, inst, world, iob)
        if r != z3.unknown:
            return verdict("proven" if r == z3.unsat else "refuted", "integer, by cases", _show(model))
    r, model = split_solve(
        _goal(iob), time.perf_counter() + RULE_BUDGET_S, focus=z3.simplify(z3.Not(iob.claim))
    )
    status = "proven" if r == z3.unsat else "refuted" if r == z3.sat else "timeout"
    return verdict(status, "integer", _show(model))


MAX_CASES = 64
"""The most cases `_finite_cases` splits an obligation into."""


def _finite_cases(
    rule: Rule, inst: Instance, world: World | None, iob: Obligation
) -> tuple[z3.CheckSatResult, z3.ModelRef | None]:
    """Case analysis over a variable the query confines to a few values.

    A premise `K % v == 0` (egglog's `%` of a literal `K` by an `i64` variable `v` of the
    rule: `2**62 % f == 0`, "`f` is a power of two") confines `v` to the divisors of `K`;
    those the other premises about `v` alone admit (evaluated value by value) are the cases,
    at most `MAX_CASES`. The integer obligation is split into one case `v == d` per value: the
    premises imply `v` is one of them, so every case refuted is a proof, and a case's model is
    a counterexample. This decides the rules whose divisor is a symbolic power of two, where
    z3 gives up on `x % f` (bit-blasting a 64-bit divider, or nonlinear integer search)."""
    bv = _derive_in(rule, inst, world, BitVec(relaxed=True))
    if bv is None:
        return z3.unknown, None
    best: tuple[str, list[int]] | None = None
    for v, k in _divisibility(bv.premises):
        own = [f for f in bv.premises if {str(c) for c in constants(f)} == {str(v)}]
        values = _admitted(v, own, _divisors(k))
        if values is not None and (best is None or len(values) < len(best[1])):
            best = (str(v), values)
    if best is None:
        return z3.unknown, None
    name, values = best
    var = z3.Int(name)
    goal = _goal(iob)
    for d in values:
        r, model = _solve([*goal, var == d], ATTEMPT_MS * len(PIPELINES), PIPELINES)
        if r != z3.unsat:
            return (r, model) if r == z3.sat else (z3.unknown, None)
    return z3.unsat, None


def _divisibility(fs: list[z3.BoolRef]) -> list[tuple[z3.BitVecRef, int]]:
    """(v, K) for every premise `SRem(K, v) == 0` with `K` a literal and `v` a 64-bit
    constant named as a rule variable."""
    out: list[tuple[z3.BitVecRef, int]] = []
    for f in fs:
        if not (z3.is_eq(f) and f.num_args() == 2):
            continue
        for rem, zero in ((f.arg(0), f.arg(1)), (f.arg(1), f.arg(0))):
            if not (z3.is_bv_value(zero) and zero.as_long() == 0 and z3.is_app_of(rem, z3.Z3_OP_BSREM)):
                continue
            k, v = rem.arg(0), rem.arg(1)
            if z3.is_bv_value(k) and z3.is_const(v) and str(v).isidentifier() and v.size() == 64:
                out.append((v, k.as_signed_long()))  # type: ignore[attr-defined]
    return out


def _divisors(k: int) -> list[int] | None:
    """The non-zero integers dividing `k`, or None when `k` has a prime factor beyond
    `2**16` or too many divisors (no case split then)."""
    n, primes = abs(k), []
    if n == 0:
        return None
    p = 2
    while n > 1 and p <= 1 << 16:
        while n % p == 0:
            primes.append(p)
            n //= p
        p += 1
    if n > 1:
        return None
    divs = {1}
    for p in primes:
        divs |= {d * p for d in divs}
    if 2 * len(divs) > 4 * MAX_CASES:
        return None
    return sorted(divs | {-d for d in divs})


def _admitted(v: z3.BitVecRef, own: list[z3.BoolRef], candidates: list[int] | None) -> list[int] | None:
    """The candidates every premise in `own` holds for (each evaluated at the value)."""
    if candidates is None:
        return None
    out = []
    for d in candidates:
        value = z3.BitVecVal(d, 64)
        if all(z3.is_true(z3.simplify(z3.substitute(f, (v, value)))) for f in own):
            out.append(d)
    return out if len(out) <= MAX_CASES else None


def _encoding(ob: Obligation) -> str:
    if ob.domain != "bit-vector":
        return ob.domain
    return (
        "bit-vector, restricted" if ob.restricted else "bit-vector, relaxed" if ob.relaxed else "bit-vector"
    )


def _match(rule: Rule, inst: Instance, world: World | None) -> Verdict:
    """The premises are satisfiable: a model in any encoding (the restricted one included) is
    a match; `vacuous` needs an exact encoding's `unsat`. Short attempts first, as in `refute`."""
    t0 = time.perf_counter()

    def verdict(r: z3.CheckSatResult, encoding: str) -> Verdict:
        status = "matches" if r == z3.sat else "vacuous" if r == z3.unsat else "timeout"
        return Verdict(rule.name, inst.label, status, encoding, time.perf_counter() - t0)

    iob = derive(rule, inst, Integer(), world)
    r, _ = _solve(iob.premises, ATTEMPT_MS)
    if r != z3.unknown:
        return verdict(r, "integer")
    for dom in (_bounded(inst), BitVec()):
        ob = _derive_in(rule, inst, world, dom)
        if ob is None:
            continue
        r, _ = _solve(ob.premises, ATTEMPT_MS)
        if r == z3.sat or (r == z3.unsat and not ob.restricted):
            return verdict(r, _encoding(ob))
    r, _ = split_solve(iob.premises, time.perf_counter() + RULE_BUDGET_S)
    return verdict(r, "integer")


def _show(model: z3.ModelRef | None) -> str:
    """A counterexample, readably: the rule's variables and the facts of its loops."""
    if model is None:
        return ""
    items = []
    for decl in model.decls():
        name = decl.name()
        if "!" in name or (name.endswith(".defined") and z3.is_true(model[decl])):
            continue
        if decl.arity() == 0:
            items.append(f"{name} = {model[decl]}")
        elif name.startswith("loop.") and not name.endswith(".literal"):
            interp = model[decl]
            if isinstance(interp, z3.FuncInterp):
                entries = [
                    f"{name}({','.join(str(a) for a in e.as_list()[:-1])}) = {e.value()}"
                    for e in (interp.entry(k) for k in range(interp.num_entries()))
                ]
                items += entries or [f"{name}(*) = {interp.else_value()}"]
    return ", ".join(sorted(items))[:800]


# --------------------------------------------------------------------------------------
# the case splitter


def _ground_terms(e: z3.ExprRef) -> set[int]:
    """The outermost uninterpreted constants and applications of `e` whose sort is arithmetic
    or Boolean (the values a conjunct constrains), outside quantifiers."""
    out: set[int] = set()
    stack, seen = [e], set()
    while stack:
        x = stack.pop()
        if x.get_id() in seen or z3.is_quantifier(x):
            continue
        seen.add(x.get_id())
        if z3.is_app(x) and x.decl().kind() == z3.Z3_OP_UNINTERPRETED and (z3.is_arith(x) or z3.is_bool(x)):
            out.add(x.get_id())
            continue  # `loop.step(loop(to_string(key)))` is one value; `key` inside it is not
        stack.extend(x.children())
    return out


def _is_cmp(e: z3.ExprRef) -> bool:
    if not z3.is_app(e) or e.num_args() != 2:
        return False
    k = e.decl().kind()
    if k in (z3.Z3_OP_LE, z3.Z3_OP_GE, z3.Z3_OP_LT, z3.Z3_OP_GT):
        return True
    return k == z3.Z3_OP_EQ and z3.is_arith(e.arg(0))


def _nonlinear(e: z3.ExprRef, memo: dict[int, bool]) -> bool:
    key = e.get_id()
    if key in memo:
        return memo[key]
    if z3.is_quantifier(e):
        out = True
    elif z3.is_app(e):
        k = e.decl().kind()
        if k == z3.Z3_OP_MUL:
            out = sum(1 for a in e.children() if not z3.is_int_value(a) and not z3.is_rational_value(a)) > 1
        elif k == z3.Z3_OP_UNINTERPRETED and e.num_args() > 0 and not z3.is_arith(e):
            out = False
        else:
            out = False
        out = out or any(_nonlinear(c, memo) for c in e.children())
    else:
        out = False
    memo[key] = out
    return out


def _atoms(fs: list[z3.BoolRef], focus: z3.BoolRef | None = None) -> list[z3.BoolRef]:
    """The case atoms of `fs`, outside quantifiers, in the order they are split on: Boolean
    constants, linear comparisons inside `If` conditions, the signs of the factors of
    nonlinear products, other comparisons inside connectives (a top-level conjunct is not an
    atom)."""
    bools: dict[int, z3.BoolRef] = {}
    ite: dict[int, z3.BoolRef] = {}
    signs: dict[int, z3.BoolRef] = {}
    nested: dict[int, z3.BoolRef] = {}
    seen: set[tuple[int, bool]] = set()
    memo: dict[int, bool] = {}
    stack: list[tuple[z3.ExprRef, bool]] = [(f, True) for f in fs]
    while stack:
        e, top = stack.pop()
        if (e.get_id(), top) in seen or z3.is_quantifier(e) or not z3.is_app(e):
            continue
        seen.add((e.get_id(), top))
        if not top and z3.is_bool(e) and z3.is_const(e) and e.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            bools[e.get_id()] = e  # type: ignore[assignment]
        if z3.is_app_of(e, z3.Z3_OP_ITE):
            for a in _comparisons(e.arg(0)):
                if not _nonlinear(a, memo):
                    ite[a.get_id()] = a
        if z3.is_app_of(e, z3.Z3_OP_MUL):
            factors = [c for c in e.children() if not z3.is_int_value(c)]
            if len(factors) > 1:
                for c in factors:
                    atom = c >= 0
                    signs[atom.get_id()] = atom
        if not top and _is_cmp(e) and not _nonlinear(e, memo):
            nested[e.get_id()] = e  # type: ignore[assignment]
        child_top = top and z3.is_and(e)
        stack.extend((c, child_top) for c in e.children())
    known = {f.get_id() for f in fs} | {f.arg(0).get_id() for f in fs if z3.is_not(f)}
    relevant = _relevant(fs, focus) if focus is not None else None
    out: dict[int, z3.BoolRef] = {}
    for group in (bools, ite, signs, nested):
        for k, a in group.items():
            if k in known or z3.simplify(z3.Not(a)).get_id() in known:
                continue
            if relevant is not None and not (_ground_terms(a) & relevant):
                continue  # the claim cannot depend on it: splitting would only double the work
            out.setdefault(k, a)
    return list(out.values())


def _relevant(fs: list[z3.BoolRef], focus: z3.BoolRef) -> set[int]:
    """The ground terms connected to `focus` through the conjuncts that mention them."""
    terms = [_ground_terms(f) for f in fs]
    reached = _ground_terms(focus)
    changed = True
    while changed:
        changed = False
        for t in terms:
            if t & reached and not t <= reached:
                reached |= t
                changed = True
    return reached


def _comparisons(c: z3.ExprRef) -> list[z3.BoolRef]:
    if _is_cmp(c):
        return [c]  # type: ignore[list-item]
    out: list[z3.BoolRef] = []
    if z3.is_app(c) and (z3.is_and(c) or z3.is_or(c) or z3.is_not(c)):
        for x in c.children():
            out += _comparisons(x)
    return out


def _flatten(fs: list[z3.BoolRef]) -> list[z3.BoolRef]:
    """Simplified top-level conjuncts; a conjunct that is an atom (an uninterpreted predicate
    application such as `ok(l)`, a comparison) or its negation is substituted by its truth
    value everywhere else, repeatedly."""
    while True:
        out = _conjuncts(fs)
        facts: list[tuple[z3.BoolRef, z3.BoolRef]] = []
        for f in out:
            atom, value = (f.arg(0), False) if z3.is_not(f) else (f, True)
            if _is_bool_atom(atom) or _is_cmp(atom):
                facts.append((atom, z3.BoolVal(value)))  # type: ignore[arg-type]
        if not facts:
            return out
        truth: dict[int, bool] = {}
        for a, v in facts:
            if truth.setdefault(a.get_id(), z3.is_true(v)) != z3.is_true(v):
                return [z3.BoolVal(False)]
        keep = {id_ for a, _ in facts for id_ in (a.get_id(),)}
        rest = [f for f in out if (f.arg(0) if z3.is_not(f) else f).get_id() not in keep]
        new = _conjuncts([z3.substitute(f, *facts) for f in rest])  # type: ignore[misc]
        facts_back = [a if z3.is_true(v) else z3.Not(a) for a, v in facts]
        if [g.get_id() for g in new] == [g.get_id() for g in rest]:
            return [*facts_back, *new]
        fs = [*facts_back, *new]


def _is_bool_atom(e: z3.ExprRef) -> bool:
    return z3.is_app(e) and z3.is_bool(e) and e.decl().kind() == z3.Z3_OP_UNINTERPRETED


def _conjuncts(fs: list[z3.BoolRef]) -> list[z3.BoolRef]:
    out: list[z3.BoolRef] = []
    for f in fs:
        g = z3.simplify(f)
        if z3.is_and(g):
            out += _conjuncts(list(g.children()))  # type: ignore[arg-type]
        elif not z3.is_true(g):
            out.append(g)  # type: ignore[arg-type]
    return out


def _substitute(fs: list[z3.BoolRef], pairs: list[tuple[z3.BoolRef, z3.BoolRef]]) -> list[z3.BoolRef]:
    return _flatten([z3.substitute(f, *pairs) for f in fs])  # type: ignore[misc]


def split_solve(
    fs: list[z3.BoolRef], deadline: float, depth: int = 0, focus: z3.BoolRef | None = None
) -> tuple[z3.CheckSatResult, z3.ModelRef | None]:
    fs = _flatten(fs)
    if any(z3.is_false(f) for f in fs):
        return z3.unsat, None
    while True:
        if time.perf_counter() > deadline:
            return z3.unknown, None
        r, model = _solve(fs, QUICK_MS)
        if r != z3.unknown:
            return r, model
        atoms = _atoms(fs, focus)
        if not atoms:
            break
        memo: dict[int, bool] = {}
        linear = [f for f in fs if not _nonlinear(f, memo)]
        ctx = z3.Solver()
        ctx.set("timeout", 200 * TIMEOUT_SLACK)
        ctx.set("rlimit", 200 * RLIMIT_PER_MS)
        ctx.add(*linear)
        decided: list[tuple[z3.BoolRef, z3.BoolRef]] = []
        for a in atoms:
            for value, test in ((True, z3.Not(a)), (False, a)):
                ctx.push()
                ctx.add(test)
                if ctx.check() == z3.unsat:
                    decided.append((a, z3.BoolVal(value)))
                    ctx.pop()
                    break
                ctx.pop()
        if not decided:
            break
        fs = _substitute(fs, decided) + [a if z3.is_true(v) else z3.Not(a) for a, v in decided]
        fs = _flatten(fs)
        if any(z3.is_false(f) for f in fs):
            return z3.unsat, None
    atoms = _atoms(fs, focus)
    if not atoms or depth >= MAX_DEPTH:
        remaining = max(100, int((deadline - time.perf_counter()) * 1000))
        return _solve(fs, min(LEAF_TIMEOUT_MS, remaining), PIPELINES)
    a = atoms[0]
    results = []
    for value in (True, False):
        branch = [*_substitute(fs, [(a, z3.BoolVal(value))]), a if value else z3.Not(a)]
        r, model = split_solve(branch, deadline, depth + 1, focus)
        if r == z3.sat:
            return r, model
        results.append(r)
    return (z3.unsat if all(r == z3.unsat for r in results) else z3.unknown), None
