"""The proof obligation of an egglog rule, derived from its declaration.

A rule `rule(facts...).then(actions...)` becomes, for one assignment of its dtypes:

    premises  = the meaning of every fact of the query (`tests/soundness/meaning.py`)
                + the invariants of what the query matched (literals fit their dtype,
                  bounds lie near their dtype's range)
                + the definitions of the loops the rule mentions
    claim     = the meaning of every action:
                union(a, b)       a and b have the same dtype, both have a value or neither,
                                  and then the same value at that dtype's width
                set f(x) := v     the fact's meaning (a bound holds, a literal loop bound...)
                relation(x)       the relation's meaning (x >= 0, ...)
                + every literal the action builds fits its dtype, and no checked `i64`
                  operation of the action overflows

and the obligation is `premises => claim`. Nothing is restated per rule: the query, the
guards and the actions are read from `egglog.declarations.RuleDecl`.

Typing: every `Idx` node and every dtype-valued `i64` variable gets a dtype by unification
over the query (`const` / `var` / `cast` carry one, `iv` is `INDEX`, a binary operation shares
its operands', `width(x) == dt` equates them); the classes left free are instantiated with
every signed dtype (`Instance`). The actions are typed bottom-up and checked, never unified:
a union of two dtypes is a failed claim.

`i64` arithmetic in a query is checked (egglog skips the match when it overflows or divides by
zero, so that is a premise); in an action the same condition is a claim (an overflow there
aborts the run). `BigInt` is exact.

The eligibility lattice `ok(l)` means the completion of the rules that write it
(`Translator.completion`); those rules are read from the `World`, which the mutation test
varies.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import z3
from egglog import declarations as d

from tests.soundness import meaning as m
from tests.soundness.domains import I64_MAX, I64_MIN, Domain, Unsupported, smax, smin
from tests.soundness.rules import Rule, all_rules, show


class Untranslatable(Exception):
    """The rule uses something the meaning table does not define."""


@dataclass(frozen=True)
class World:
    """The rules a derivation may consult besides its own: the writers of `ok`."""

    rules: tuple[Rule, ...]

    @staticmethod
    def current() -> World:
        return World(all_rules())


LoopSort = z3.DeclareSort("Loop")
TileSort = z3.DeclareSort("Tile")
BufferSort = z3.DeclareSort("Buffer")


@dataclass(frozen=True)
class IdxV:
    v: z3.ExprRef
    code: int
    defined: z3.BoolRef

    @property
    def w(self) -> int:
        return m.bits_of(self.code)


def _sort(tp: d.JustTypeRef) -> str:
    return tp.ident.name


# --------------------------------------------------------------------------------------
# typing


TypeKey = tuple[str, object]


class Typing:
    """Union-find over `("n", node)`, `("v", dtype variable)` and `("c", code)`."""

    def __init__(self) -> None:
        self.parent: dict[TypeKey, TypeKey] = {}
        self.conflict: str | None = None

    def find(self, k: TypeKey) -> TypeKey:
        self.parent.setdefault(k, k)
        while self.parent[k] != k:
            self.parent[k] = self.parent[self.parent[k]]
            k = self.parent[k]
        return k

    def union(self, a: TypeKey, b: TypeKey) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return
        if ra[0] == "c" and rb[0] == "c":
            self.conflict = f"dtype {ra[1]} unified with dtype {rb[1]}"
            return
        if ra[0] == "c":
            ra, rb = rb, ra
        self.parent[ra] = rb

    def classes(self) -> dict[TypeKey, list[TypeKey]]:
        out: dict[TypeKey, list[TypeKey]] = {}
        for k in list(self.parent):
            out.setdefault(self.find(k), []).append(k)
        return out


def _dtype_key(e: d.ExprDecl) -> TypeKey:
    if isinstance(e, d.UnboundVarDecl):
        return ("v", e.name)
    code = m.code_of_constant(e)
    if code is not None:
        return ("c", code)
    if isinstance(e, d.CallDecl) and m.FUNCTIONS.get(e.callable, m.Meaning("")).kind == "width":
        return ("n", e.args[0].expr)
    raise Untranslatable(f"not a dtype expression: {show(e)}")


def _dtype_vars(node: object, out: set[str]) -> None:
    """Collect the variables of sort `Dtype`."""
    if isinstance(node, d.TypedExprDecl):
        if isinstance(node.expr, d.UnboundVarDecl) and _sort(node.tp) == m.DTYPE_SORT:
            out.add(node.expr.name)
        _dtype_vars(node.expr, out)
    elif isinstance(node, d.CallDecl):
        for a in node.args:
            _dtype_vars(a, out)
    elif isinstance(node, d.EqDecl | d.UnionDecl | d.SetDecl):
        sides = (
            (node.left, node.right)
            if isinstance(node, d.EqDecl)
            else ((node.lhs, node.rhs) if isinstance(node, d.UnionDecl) else (node.call, node.rhs))
        )
        for x in sides:
            if isinstance(x, d.UnboundVarDecl) and _sort(node.tp) == m.DTYPE_SORT:
                out.add(x.name)
            _dtype_vars(x, out)
    elif isinstance(node, d.ExprFactDecl | d.ExprActionDecl):
        _dtype_vars(node.typed_expr, out)


def _type_expr(t: Typing, e: d.ExprDecl, sort: str) -> None:
    if not isinstance(e, d.CallDecl):
        if sort == m.IDX_SORT:
            t.find(("n", e))
        return
    kind = m.CONSTRUCTORS.get(e.callable)
    if kind is not None:
        node: TypeKey = ("n", e)
        if kind in m.DTYPE_ARG:
            t.union(node, _dtype_key(e.args[m.DTYPE_ARG[kind]].expr))
        elif kind == "iv":
            t.union(node, ("c", m.IV_CODE))
        elif kind in m.BINARY:
            t.union(node, ("n", e.args[0].expr))
            t.union(node, ("n", e.args[1].expr))
    elif m.FUNCTIONS.get(e.callable, m.Meaning("")).kind == "rotation_slot":
        t.union(("n", e), ("c", m.SLOT_CODE))
    for a in e.args:
        _type_expr(t, a.expr, _sort(a.tp))


def type_query(rule: d.RuleDecl) -> tuple[Typing, set[str]]:
    dtype_vars: set[str] = set()
    for f in (*rule.body, *rule.head):
        _dtype_vars(f, dtype_vars)
    t = Typing()
    for v in dtype_vars:
        t.find(("v", v))
    for f in rule.body:
        if isinstance(f, d.ExprFactDecl):
            _type_expr(t, f.typed_expr.expr, _sort(f.typed_expr.tp))
        elif isinstance(f, d.EqDecl):
            _type_expr(t, f.left, _sort(f.tp))
            _type_expr(t, f.right, _sort(f.tp))
            if _sort(f.tp) == m.DTYPE_SORT:
                t.union(_dtype_key(f.left), _dtype_key(f.right))
    return t, dtype_vars


@dataclass(frozen=True)
class Instance:
    """One dtype assignment of a rule: a code for every class of its query typing."""

    codes: tuple[tuple[str, int], ...]
    """(class label, code), for the report."""
    assign: dict[TypeKey, int] = field(hash=False, compare=False)

    @property
    def max_bits(self) -> int:
        return max((m.bits_of(c) for _, c in self.codes), default=0)

    @property
    def label(self) -> str:
        return ", ".join(f"{k}={m.dtype_of_code(c).name}" for k, c in self.codes) or "-"


def _label(members: list[TypeKey]) -> str:
    names = sorted(str(k[1]) for k in members if k[0] == "v")
    if names:
        return names[0]
    nodes = [k[1] for k in members if k[0] == "n"]
    vars_ = sorted(n.name for n in nodes if isinstance(n, d.UnboundVarDecl))
    if vars_:
        return f"dt({vars_[0]})"
    return f"dt({show(nodes[0])})" if nodes else "?"


def instances(rule: d.RuleDecl, codes: Iterable[int] = m.SIGNED_CODES) -> Iterator[Instance]:
    """Every dtype assignment of the rule's free typing classes over `codes`."""
    t, _ = type_query(rule)
    if t.conflict is not None:
        raise Untranslatable(f"the query can never match: {t.conflict}")
    classes = t.classes()
    fixed: dict[TypeKey, int] = {}
    free: list[tuple[TypeKey, list[TypeKey]]] = []
    for root, members in sorted(classes.items(), key=lambda kv: _label(kv[1])):
        if root[0] == "c":
            assert isinstance(root[1], int)
            for k in members:
                fixed[k] = root[1]
        else:
            free.append((root, members))
    codes = tuple(codes)
    for combo in itertools.product(codes, repeat=len(free)):
        assign = dict(fixed)
        for (_, members), code in zip(free, combo, strict=True):
            for k in members:
                assign[k] = code
        labels = tuple((_label(members), code) for (_, members), code in zip(free, combo, strict=True))
        yield Instance(labels, assign)


# --------------------------------------------------------------------------------------
# translation


@dataclass
class Obligation:
    rule: str
    instance: Instance
    domain: str
    premises: list[z3.BoolRef]
    claim: z3.BoolRef
    uses_eligibility: bool
    static_failure: str | None = None
    """A claim that fails without any solving (an ill-typed union, a width mismatch)."""
    restricted: bool = False
    """Derived in a restricted encoding: a model is a counterexample, `unsat` proves nothing."""
    relaxed: bool = False
    """Derived in a relaxed encoding: `unsat` is a proof, a model proves nothing."""


class Translator:
    def __init__(
        self,
        rule: Rule,
        inst: Instance,
        domain: Domain,
        world: World,
        *,
        sub: bool = False,
    ) -> None:
        self.rule = rule
        self.inst = inst
        self.dom = domain
        self.world = world
        self.sub = sub
        self.premises: list[z3.BoolRef] = []
        self.claims: list[z3.BoolRef] = []
        self.static_failures: list[str] = []
        self.env: dict[str, object] = {}
        self.memo: dict[tuple[d.ExprDecl, str], object] = {}
        self.loops: dict[str, z3.ExprRef] = {}
        self.completed: set[str] = set()
        self.uses_eligibility = False
        self.created: list[z3.ExprRef] = []
        self.names = itertools.count()
        self.root: Translator = self
        """The top-level translator (a sub-translation under a quantifier draws its fresh
        names from it)."""
        _, self.dtype_vars = type_query(rule.decl)

    # -- helpers -------------------------------------------------------------------------

    def fail(self, why: str) -> Untranslatable:
        return Untranslatable(f"{self.rule.name}: {why}")

    def cond(self, mode: str, c: z3.BoolRef) -> None:
        (self.premises if mode == "query" else self.claims).append(c)

    def name(self, base: str) -> str:
        return f"{base}!{next(self.root.names)}" if self.sub else base

    def code_of(self, node: d.ExprDecl) -> int:
        """The dtype of an `Idx` node: from the query's typing, else (a node only an action
        builds) from its constructor, bottom-up."""
        code = self.inst.assign.get(("n", node))
        if code is not None:
            return code
        if isinstance(node, d.CallDecl):
            kind = m.CONSTRUCTORS.get(node.callable)
            if kind in m.DTYPE_ARG:
                return self.dtype_code(node.args[m.DTYPE_ARG[kind]].expr)
            if kind == "iv":
                return m.IV_CODE
            if kind in m.BINARY:
                return self.code_of(node.args[0].expr)
            if m.FUNCTIONS.get(node.callable, m.Meaning("")).kind == "rotation_slot":
                return m.SLOT_CODE
        raise self.fail(f"no dtype for {show(node)}")

    def dtype_code(self, e: d.ExprDecl) -> int:
        """The code of a dtype expression (a dtype variable, a literal, `width(x)`)."""
        key = _dtype_key(e)
        if key[0] == "c":
            assert isinstance(key[1], int)
            return key[1]
        code = self.inst.assign.get(key)
        if code is None:
            raise self.fail(f"no dtype for {show(e)}")
        return code

    def fn(self, name: str, *sorts: z3.SortRef) -> z3.FuncDeclRef:
        return z3.Function(name, *sorts)

    def int_sort(self, big: bool = False) -> z3.SortRef:
        return self.dom.int_sort(big)

    # -- expressions ---------------------------------------------------------------------

    def ev(self, te: d.TypedExprDecl, mode: str) -> object:
        return self.expr(te.expr, _sort(te.tp), mode)

    def expr(self, e: d.ExprDecl, sort: str, mode: str) -> object:
        key = (e, sort)
        if key in self.memo:
            return self.memo[key]
        value = self._expr(e, sort, mode)
        self.memo[key] = value
        return value

    def _expr(self, e: d.ExprDecl, sort: str, mode: str) -> object:
        if isinstance(e, d.UnboundVarDecl):
            return self.var(e, sort)
        if isinstance(e, d.LitDecl):
            return self.lit(e, sort)
        if not isinstance(e, d.CallDecl):
            raise self.fail(f"unsupported expression {type(e).__name__}")
        kind = m.CONSTRUCTORS.get(e.callable)
        if kind is not None:
            return self.idx(e, kind, mode)
        ref = e.callable
        if ref == m.LOOP_BY_KEY:
            (key,) = (self.expr(a.expr, _sort(a.tp), mode) for a in e.args)
            return self.fn("loop", self.int_sort(), LoopSort)(key)
        code = m.code_of_constant(e)
        if code is not None:
            return self.dom.int_const(code, False)
        if ref == m.TILE_BY_KEY:
            (key,) = (self.expr(a.expr, _sort(a.tp), mode) for a in e.args)
            return self.fn("tile", self.int_sort(), TileSort)(key)
        if ref in m.DTYPE_FACTS:
            field_ = m.DTYPE_FACTS[ref]
            (arg,) = e.args
            return self.dom.int_const(m.dtype_fact(field_, self.dtype_code(arg.expr)), field_ in m.BIG_FACTS)
        meaning = m.FUNCTIONS.get(ref)
        if meaning is not None:
            return self.lookup(e, meaning, mode)
        return self.primitive(e, sort, mode)

    def to_string(self, key: object) -> z3.ExprRef:
        return self.fn("to_string", self.int_sort(), z3.StringSort())(key)

    def var(self, e: d.UnboundVarDecl, sort: str) -> object:
        if e.name in self.env:
            return self.env[e.name]
        name = self.name(e.name)
        value: object
        if sort == m.IDX_SORT:
            code = self.code_of(e)
            value = IdxV(self.dom.fixed_var(name, m.bits_of(code)), code, z3.Bool(f"{name}.defined"))
            assert isinstance(value, IdxV)
            self.created += [value.v, value.defined]
        elif sort == m.DTYPE_SORT:
            value = self.dom.int_const(self.dtype_code(e), False)
        elif sort in ("i64", "BigInt"):
            big = sort == "BigInt"
            value = self.dom.int_var(name, big)
            self.premises.append(self.dom.int_range(value, big))
            assert isinstance(value, z3.ExprRef)
            self.created.append(value)
        elif sort == "Bool":
            value = z3.Bool(name)
        elif sort == "String":
            value = z3.String(name)
        elif sort in m.LOOP_SORTS:
            value = z3.Const(name, LoopSort)
        elif sort in m.TILE_SORTS:
            value = z3.Const(name, TileSort)
        else:
            raise self.fail(f"no meaning for a variable of sort {sort}")
        if isinstance(value, z3.ExprRef) and sort not in ("i64", "BigInt"):
            self.created.append(value)
        self.env[e.name] = value
        return value

    def lit(self, e: d.LitDecl, sort: str) -> object:
        v = e.value
        if sort == "Bool" and isinstance(v, bool):
            return z3.BoolVal(v)
        if sort == "String" and isinstance(v, str):
            return z3.StringVal(v)
        if sort in ("i64", "BigInt") and isinstance(v, int) and not isinstance(v, bool):
            return self.dom.int_const(v, sort == "BigInt")
        if sort == "Unit" and v is None:
            return z3.BoolVal(True)
        raise self.fail(f"unsupported literal {v!r} of sort {sort}")

    # -- the index language -----------------------------------------------------------

    def idx(self, e: d.CallDecl, kind: str, mode: str) -> IdxV:
        code = self.code_of(e)
        w = m.bits_of(code)
        true = z3.BoolVal(True)
        if kind == "const":
            v = self.expr(e.args[0].expr, "i64", mode)
            assert isinstance(v, z3.ExprRef)
            self.cond(mode, self.dom.int_fits(v, smin(w), smax(w)))  # literals fit their dtype
            return IdxV(self.dom.fixed_of_int(v, w), code, true)
        if kind == "var":
            n = self.expr(e.args[0].expr, "String", mode)
            f = self.fn(f"var.{code}", z3.StringSort(), self.dom.fixed_sort(w))
            return IdxV(self.dom.fixed_fun(f, [n], w, f"var.{code}"), code, true)  # type: ignore[list-item]
        if kind == "iv":
            lp = self.expr(e.args[0].expr, "Loop", mode)
            assert isinstance(lp, z3.ExprRef)
            return IdxV(self.iv(lp), code, true)
        if kind == "cast":
            a = self.expr(e.args[0].expr, m.IDX_SORT, mode)
            assert isinstance(a, IdxV)
            return IdxV(self.dom.cast(a.v, a.w, w), code, a.defined)
        a, b = (self.expr(x.expr, m.IDX_SORT, mode) for x in e.args)
        assert isinstance(a, IdxV)
        assert isinstance(b, IdxV)
        if a.code != code or b.code != code:
            self.static_failures.append(
                f"{show(e)} combines {m.dtype_of_code(a.code).name} and {m.dtype_of_code(b.code).name}"
            )
        both = z3.And(a.defined, b.defined)
        zero, minus_one = self.dom.fixed_const(0, w), self.dom.fixed_const(-1, w)
        if kind == "add":
            return IdxV(self.dom.add(a.v, b.v, w), code, both)
        if kind == "sub":
            return IdxV(self.dom.sub(a.v, b.v, w), code, both)
        if kind == "mul":
            return IdxV(self.dom.mul(a.v, b.v, w), code, both)
        if kind in ("floordiv", "floormod", "divs", "rems"):
            # no value for a zero divisor or MIN by -1 (the floor operations of
            # `slotsat.core.semantics`; `arith.divsi` / `arith.remsi` are undefined there)
            ok = z3.And(both, b.v != zero, z3.Not(z3.And(self.dom.is_min(a.v, w), b.v == minus_one)))
            op = {
                "floordiv": self.dom.floordiv,
                "floormod": self.dom.floormod,
                "divs": self.dom.sdiv,
                "rems": self.dom.srem,
            }[kind]
            return IdxV(op(a.v, b.v, w), code, ok)
        ok = z3.And(both, b.v != zero)
        op = self.dom.udiv if kind == "divu" else self.dom.urem
        return IdxV(op(a.v, b.v, w), code, ok)

    # -- loops ------------------------------------------------------------------------------

    def loop_fn(self, field_: str) -> z3.FuncDeclRef:
        return self.fn(f"loop.{field_}", LoopSort, self.int_sort())

    def literal_fn(self, field_: str) -> z3.FuncDeclRef:
        return self.fn(f"loop.{field_}.literal", LoopSort, z3.BoolSort())

    def field(self, lp: z3.ExprRef, field_: str) -> z3.ExprRef:
        v = self.loop_fn(field_)(lp)
        # A loop field is an `i64`. Under a quantifier the fact stays inside it (the loop may be
        # a bound variable there); either way it only excludes values no loop has.
        self.premises.append(self.dom.int_range(v, False))
        return v

    def iv(self, lp: z3.ExprRef) -> z3.ExprRef:
        self.loops.setdefault(lp.sexpr(), lp)
        return self.dom.fixed_fun(self.fn("loop.iv", LoopSort, self.dom.fixed_sort(64)), [lp], 64, "iv")

    def iteration(self, lp: z3.ExprRef) -> z3.ExprRef:
        self.loops.setdefault(lp.sexpr(), lp)
        return self.dom.iteration_var(self.fn("loop.iteration", LoopSort, self.int_sort()), lp)

    def loop_axioms(self) -> list[z3.BoolRef]:
        """The definition of every loop whose induction variable or iteration is used."""
        out: list[z3.BoolRef] = []
        dom = self.dom
        for lp in list(self.loops.values()):
            iv = dom.int_of_fixed(self.iv(lp), 64, False)
            start, stop, step = (self.field(lp, f) for f in ("start", "stop", "step"))
            j = self.iteration(lp)
            zero = dom.int_const(0, False)
            pos, neg = dom.icmp(">", step, zero), dom.icmp("<", step, zero)
            out += [
                dom.iteration_equation(iv, start, j, step),
                z3.Implies(pos, dom.icmp("<", iv, stop)),
                z3.Implies(neg, dom.icmp(">", iv, stop)),
                # consequences of the equation (j >= 0), stated for the solver
                z3.Implies(pos, dom.icmp("<=", start, iv)),
                z3.Implies(neg, dom.icmp("<=", iv, start)),
                z3.Implies(dom.icmp("==", step, zero), dom.icmp("==", iv, start)),
            ]
        return out

    # -- functions and relations ----------------------------------------------------

    def args(self, e: d.CallDecl, mode: str) -> list[object]:
        return [self.expr(a.expr, _sort(a.tp), mode) for a in e.args]

    def lookup(self, e: d.CallDecl, meaning: m.Meaning, mode: str) -> object:
        """The value of `f(args)` in an expression (a query reads the fact), or the truth of a
        relation in fact position."""
        kind = meaning.kind
        if kind == "width":
            return self.dom.int_const(self.code_of(e.args[0].expr), False)
        if kind in ("lower_bound", "upper_bound"):
            (x,) = self.args(e, mode)
            assert isinstance(x, IdxV)
            bound = self.dom.int_var(
                self.name(f"{'lo' if kind == 'lower_bound' else 'hi'}({show(e.args[0])})"), True
            )
            self.created.append(bound)
            self.premises += self.bound_meaning(kind, x, bound)
            return bound
        if kind == "nonneg":
            (x,) = self.args(e, mode)
            assert isinstance(x, IdxV)
            return z3.Implies(x.defined, self.dom.sle(self.dom.fixed_const(0, x.w), x.v))
        if kind == "loop_field":
            (lp,) = self.args(e, mode)
            assert isinstance(lp, z3.ExprRef)
            self.premises.append(self.literal_fn(meaning.arg)(lp))
            return self.field(lp, meaning.arg)
        if kind == "runtime":
            (lp,) = self.args(e, mode)
            return z3.Not(self.literal_fn(meaning.arg)(lp))
        if kind == "ascending":
            (lp,) = self.args(e, mode)
            assert isinstance(lp, z3.ExprRef)
            step = self.field(lp, "step")
            return z3.And(self.literal_fn("step")(lp), self.dom.icmp(">", step, self.dom.int_const(0, False)))
        return self.lookup_gate(e, meaning, mode)

    def lookup_gate(self, e: d.CallDecl, meaning: m.Meaning, mode: str) -> object:
        """`lookup` for the facts of tiles, slots and eligibility."""
        kind = meaning.kind
        if kind == "candidate":
            t, lp = self.args(e, mode)
            return z3.And(
                self.fn("tile.loop", TileSort, LoopSort)(t) == lp,
                self.fn("tile.candidate", TileSort, z3.BoolSort())(t),
            )
        if kind == "rotation_slot":
            (t,) = self.args(e, mode)
            lp = self.fn("tile.loop", TileSort, LoopSort)(t)
            f = self.field(lp, "stages")
            j = self.iteration(lp)
            value, _ = self.dom.iteration_mod(j, f)
            return IdxV(
                self.dom.fixed_of_int(value, 64),
                m.SLOT_CODE,
                self.dom.icmp(">", f, self.dom.int_const(0, False)),
            )
        if kind == "eligible":
            (lp,) = self.args(e, mode)
            assert isinstance(lp, z3.ExprRef)
            self.uses_eligibility = True
            if not self.sub and lp.sexpr() not in self.completed:
                self.completed.add(lp.sexpr())
                self.premises.append(self.eligible(lp) == self.completion(lp))
            return self.eligible(lp)
        if kind == "same_buffer":
            v, s = self.args(e, mode)
            buf = self.fn("tile.buffer", TileSort, BufferSort)
            return buf(v) == buf(s)
        if kind == "read_root":
            (r,) = self.args(e, mode)
            return self.read_root(meaning.arg, r)  # type: ignore[arg-type]
        if kind == "read_via":
            r, v = self.args(e, mode)
            buf = self.fn("tile.buffer", TileSort, BufferSort)
            read = self.fn(f"opaque.{meaning.arg}", TileSort, z3.BoolSort())
            return z3.And(read(v), buf(v) == buf(r))
        if kind == "opaque":
            args = self.args(e, mode)
            sorts = [self.z3_sort(_sort(a.tp)) for a in e.args]
            return self.fn(f"opaque.{meaning.arg}", *sorts, z3.BoolSort())(*args)
        if kind == "opaque_value":
            args = self.args(e, mode)
            sorts = [self.z3_sort(_sort(a.tp)) for a in e.args]
            self.premises.append(self.fn(f"opaque.{meaning.arg}.set", *sorts, z3.BoolSort())(*args))
            v = self.fn(f"opaque.{meaning.arg}", *sorts, self.int_sort())(*args)
            self.premises.append(self.dom.int_range(v, False))
            return v
        if kind == "report":
            return z3.BoolVal(True)
        raise self.fail(f"no lookup meaning for {meaning}")

    def z3_sort(self, sort: str) -> z3.SortRef:
        if sort in m.LOOP_SORTS:
            return LoopSort
        if sort in m.TILE_SORTS:
            return TileSort
        if sort == "String":
            return z3.StringSort()
        if sort == "i64":
            return self.int_sort()
        raise self.fail(f"no z3 sort for {sort}")

    def read_root(self, reader: str, r: z3.ExprRef) -> z3.BoolRef:
        v = z3.Const(f"reader!{next(self.root.names)}", TileSort)
        buf = self.fn("tile.buffer", TileSort, BufferSort)
        read = self.fn(f"opaque.{reader}", TileSort, z3.BoolSort())
        return z3.Exists([v], z3.And(read(v), buf(v) == buf(r)))

    def bound_meaning(self, kind: str, x: IdxV, bound: z3.ExprRef) -> list[z3.BoolRef]:
        dom = self.dom
        xv = dom.int_of_fixed(x.v, x.w, True)
        holds = dom.icmp("<=", bound, xv) if kind == "lower_bound" else dom.icmp("<=", xv, bound)
        return [z3.Implies(x.defined, holds)]

    def eligible(self, lp: z3.ExprRef) -> z3.BoolRef:
        out = self.fn("ok", LoopSort, z3.BoolSort())(lp)
        assert isinstance(out, z3.BoolRef)
        return out

    def completion(self, lp: z3.ExprRef) -> z3.BoolRef:
        """`ok(lp)` after the gates saturate: some seeding rule matched and no declining rule
        did. Each rule's query is translated with its loop variable bound to `lp` and its
        other variables existentially quantified; an `ok(m)` inside refers to the lattice
        itself (the fixpoint the saturated e-graph satisfies)."""
        seeds: list[z3.BoolRef] = []
        declines: list[z3.BoolRef] = []
        for r in self.world.rules:
            for action in r.decl.head:
                if not (
                    isinstance(action, d.SetDecl)
                    and m.FUNCTIONS.get(action.call.callable, m.Meaning("")).kind == "eligible"
                ):
                    continue
                (arg,) = action.call.args
                if not isinstance(arg.expr, d.UnboundVarDecl) or not isinstance(action.rhs, d.LitDecl):
                    raise self.fail(f"{r.name}: `ok` written with a non-literal or a non-variable loop")
                body = self.query_of(r, arg.expr.name, lp)
                (seeds if action.rhs.value is True else declines).append(body)
        return z3.And(z3.Or(*seeds) if seeds else z3.BoolVal(False), *[z3.Not(b) for b in declines])

    def query_of(self, r: Rule, loop_var: str, lp: z3.ExprRef) -> z3.BoolRef:
        sub_dom = self.dom.nested(f"s{next(self.root.names)}.")
        insts = list(instances(r.decl))
        if len(insts) != 1:
            raise self.fail(f"{r.name}: a rule writing `ok` must not be dtype-polymorphic")
        sub = Translator(r, insts[0], sub_dom, self.world, sub=True)
        sub.root = self.root
        sub.env[loop_var] = lp
        for f in r.decl.body:
            sub.fact(f)
        body = z3.And(*sub.premises, *sub_dom.side)
        outer = {c.get_id() for c in constants(lp)}
        bound = [c for c in constants(body) if c.get_id() not in outer]
        return z3.Exists(bound, body) if bound else body

    # -- facts and actions ---------------------------------------------------------------

    def fact(self, f: d.FactDecl) -> None:
        if isinstance(f, d.EqDecl):
            sort = _sort(f.tp)
            for var, other in ((f.left, f.right), (f.right, f.left)):
                if self.binds(var, other):
                    assert isinstance(var, d.UnboundVarDecl)
                    # `eq(v).to(e)` with `v` not seen yet binds `v` to `e`'s value, as egglog does
                    self.env[var.name] = self.expr(other, sort, "query")
                    return
            left = self.expr(f.left, sort, "query")
            right = self.expr(f.right, sort, "query")
            self.premises.append(self.equal(left, right))
            return
        value = self.ev(f.typed_expr, "query")
        if isinstance(value, z3.BoolRef) and _sort(f.typed_expr.tp) == "Unit":
            self.premises.append(value)

    def binds(self, var: d.ExprDecl, other: d.ExprDecl) -> bool:
        return (
            isinstance(var, d.UnboundVarDecl)
            and var.name not in self.env
            and var.name not in self.dtype_vars
            and not isinstance(other, d.UnboundVarDecl)
            and var.name not in _var_names(other)
        )

    def equal(self, a: object, b: object) -> z3.BoolRef:
        if isinstance(a, IdxV) and isinstance(b, IdxV):
            if a.code != b.code:
                return z3.BoolVal(False)
            return z3.And(a.v == b.v, a.defined == b.defined)
        assert isinstance(a, z3.ExprRef), a
        assert isinstance(b, z3.ExprRef), b
        out = a == b
        assert isinstance(out, z3.BoolRef)
        return out

    def action(self, a: d.ActionDecl) -> None:
        if isinstance(a, d.UnionDecl) and _sort(a.tp) == m.DTYPE_SORT:
            have, want = self.static_dtype(a.lhs), self.static_dtype(a.rhs)
            if have != want:
                self.static_failures.append(f"union of {_dt(have)} with {_dt(want)}: {show(a)}")
            return
        if isinstance(a, d.UnionDecl):
            sort = _sort(a.tp)
            lhs = self.expr(a.lhs, sort, "action")
            rhs = self.expr(a.rhs, sort, "action")
            if not (isinstance(lhs, IdxV) and isinstance(rhs, IdxV)):
                raise self.fail(f"union of sort {sort}")
            if lhs.code != rhs.code:
                self.static_failures.append(f"union of a {_dt(lhs.code)} term with a {_dt(rhs.code)} term")
                return
            self.claims += [lhs.defined == rhs.defined, z3.Implies(lhs.defined, lhs.v == rhs.v)]
            return
        if isinstance(a, d.SetDecl):
            self.set_fact(a)
            return
        if isinstance(a, d.ExprActionDecl):
            value = self.ev(a.typed_expr, "action")
            if _sort(a.typed_expr.tp) == "Unit":
                assert isinstance(value, z3.BoolRef)
                self.claims.append(value)
            return
        raise self.fail(f"unsupported action {type(a).__name__}")

    def static_dtype(self, e: d.ExprDecl) -> int:
        """The code of a `Dtype` expression of an action (`width(x)` is the dtype of `x`)."""
        if isinstance(e, d.CallDecl) and m.FUNCTIONS.get(e.callable, m.Meaning("")).kind == "width":
            return self.code_of(e.args[0].expr)
        return self.dtype_code(e)

    def set_fact(self, a: d.SetDecl) -> None:
        call = a.call
        meaning = m.FUNCTIONS.get(call.callable)
        if meaning is None:
            raise self.fail(f"no meaning for the function {show(call)}")
        sort = _sort(a.tp)
        kind = meaning.kind
        if kind == "width":
            (x,) = call.args
            have, want = self.code_of(x.expr), self.dtype_code(a.rhs)
            if have != want:
                self.static_failures.append(f"width({show(x)}) is {_dt(have)}, the rule sets {_dt(want)}")
            return
        if kind == "report":
            self.args(call, "action")
            self.expr(a.rhs, sort, "action")
            return
        if kind == "eligible":
            if not isinstance(a.rhs, d.LitDecl) or not isinstance(a.rhs.value, bool):
                raise self.fail("`ok` set to a non-literal")
            if a.rhs.value:
                return  # the lattice's top: claims nothing (the completion carries the seed)
            (lp,) = self.args(call, "action")
            assert isinstance(lp, z3.ExprRef)
            self.uses_eligibility = True
            if lp.sexpr() not in self.completed:
                self.completed.add(lp.sexpr())
                self.premises.append(self.eligible(lp) == self.completion(lp))
            self.claims.append(z3.Not(self.eligible(lp)))
            return
        rhs = self.expr(a.rhs, sort, "action")
        if kind in ("lower_bound", "upper_bound"):
            (x,) = self.args(call, "action")
            assert isinstance(x, IdxV)
            assert isinstance(rhs, z3.ExprRef)
            self.claims += self.bound_meaning(kind, x, rhs)
            return
        if kind == "loop_field":
            (lp,) = self.args(call, "action")
            assert isinstance(lp, z3.ExprRef)
            assert isinstance(rhs, z3.ExprRef)
            self.claims += [self.literal_fn(meaning.arg)(lp), self.loop_fn(meaning.arg)(lp) == rhs]
            return
        raise self.fail(f"no meaning for setting {show(call)}")

    # -- primitives ------------------------------------------------------------------------

    def primitive(self, e: d.CallDecl, sort: str, mode: str) -> object:
        ref = e.callable
        if isinstance(ref, d.FunctionRef) and ref.ident.name == "!=":
            a, b = self.args(e, mode)
            return z3.Not(self.equal(a, b))
        if isinstance(ref, d.InitRef) and ref.ident.name == "BigInt":
            (a,) = self.args(e, mode)
            return self.dom.big_of_i64(a)  # type: ignore[arg-type]
        if isinstance(ref, d.MethodRef) and ref.ident.name in ("i64", "BigInt"):
            big = ref.ident.name == "BigInt"
            name = ref.method_name
            if name == "to_string":
                (a,) = self.args(e, mode)
                return self.to_string(a)
            args = self.args(e, mode)
            ops = {
                "__add__": "+",
                "__sub__": "-",
                "__mul__": "*",
                "__truediv__": "/",
                "__mod__": "%",
                "min": "min",
                "max": "max",
            }
            cmps = {"__lt__": "<", "__le__": "<=", "__gt__": ">", "__ge__": ">="}
            if name in ops and len(args) == 2:
                value, ok = self.dom.iop(ops[name], args[0], args[1], big)  # type: ignore[arg-type]
                self.cond(mode, ok)
                return value
            if name in cmps and len(args) == 2:
                return self.dom.icmp(cmps[name], args[0], args[1])  # type: ignore[arg-type]
        raise self.fail(f"no meaning for the primitive {show(e)}")

    # -- the whole rule ------------------------------------------------------------------------

    def derive(self) -> Obligation:
        for f in self.rule.decl.body:
            self.fact(f)
        for a in self.rule.decl.head:
            self.action(a)
        axioms = self.loop_axioms()
        premises = [*self.premises, *axioms, *self.dom.side]
        failure = "; ".join(self.static_failures) or None
        claim = z3.And(*self.claims) if self.claims else z3.BoolVal(True)
        return Obligation(
            self.rule.name,
            self.inst,
            self.dom.name,
            premises,
            claim,
            self.uses_eligibility,
            failure,
            not self.dom.exact and not self.dom.relaxed,
            self.dom.relaxed,
        )


def _dt(code: int) -> str:
    return m.dtype_of_code(code).name


def _var_names(e: object) -> set[str]:
    if isinstance(e, d.UnboundVarDecl):
        return {e.name}
    if isinstance(e, d.TypedExprDecl):
        return _var_names(e.expr)
    if isinstance(e, d.CallDecl):
        out: set[str] = set()
        for a in e.args:
            out |= _var_names(a)
        return out
    return set()


def constants(e: z3.ExprRef) -> list[z3.ExprRef]:
    """The uninterpreted constants of `e` (outside its quantifiers' bound variables)."""
    seen: set[int] = set()
    out: dict[int, z3.ExprRef] = {}
    stack = [e]
    while stack:
        x = stack.pop()
        if x.get_id() in seen:
            continue
        seen.add(x.get_id())
        if z3.is_const(x) and x.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            out[x.get_id()] = x
        elif z3.is_quantifier(x):
            stack.append(x.body())
        else:
            stack.extend(x.children())
    return list(out.values())


def ok_loop_var(rule: Rule) -> str:
    """The loop variable of a rule writing `ok` (`set ok(l) := ...`)."""
    for action in rule.decl.head:
        if (
            isinstance(action, d.SetDecl)
            and m.FUNCTIONS.get(action.call.callable, m.Meaning("")).kind == "eligible"
        ):
            (arg,) = action.call.args
            if isinstance(arg.expr, d.UnboundVarDecl):
                return arg.expr.name
    raise Untranslatable(f"{rule.name}: does not write `ok` of a loop variable")


def ok_queries(a: Rule, b: Rule, domain: Domain) -> tuple[z3.BoolRef, z3.BoolRef, list[z3.BoolRef]]:
    """The queries of two rules writing `ok`, for one loop `l` (each closed existentially over
    its other variables, as in the completion), and the facts they share (every loop field is
    an `i64`): what the mutation test compares to see that a variant declines at least (or
    seeds at most) what the original did."""
    (inst,) = list(instances(a.decl))
    root = Translator(a, inst, domain, World((a, b)))
    lp = z3.Const("l", LoopSort)
    qa = root.query_of(a, ok_loop_var(a), lp)
    qb = root.query_of(b, ok_loop_var(b), lp)
    return qa, qb, [*root.premises, *domain.side]


def derive(rule: Rule, inst: Instance, domain: Domain, world: World | None = None) -> Obligation:
    """The obligation of `rule` at dtype assignment `inst` in `domain` (raises `Untranslatable`
    for a symbol without meaning, `Unsupported` when the encoding cannot express it)."""
    try:
        return Translator(rule, inst, domain, world if world is not None else World.current()).derive()
    except Unsupported:
        raise
    except (AssertionError, ValueError, KeyError, TypeError, z3.Z3Exception) as exc:
        raise Untranslatable(f"{rule.name}: {type(exc).__name__}: {exc}") from exc


__all__ = [
    "I64_MAX",
    "I64_MIN",
    "Instance",
    "Obligation",
    "Untranslatable",
    "World",
    "constants",
    "derive",
    "instances",
    "ok_loop_var",
    "ok_queries",
]
