"""Operation calls: `pl.tile.X(...)`, `pl.tensor.X(...)`, `pl.system.X(...)`, `pld.X.Y(...)`,
calls of other functions (`self.f(...)`) and task launches (`pl.submit(self.f, ...)`).

Every op name must be one the reference registers (`slotsat.core.ops.REFERENCE`); any other
name is an error with a did-you-mean. `pl.X` is the DSL's shorthand for `pl.tile.X`, and
`pl.tile.and_` / `pl.tile.not_` / ... are the reference's spellings of `tile.and` / ...

The ops slotsat models (`slotsat.core.ops.REGISTRY`) are read against their DSL signature
(`10-dsl.md` §6.1) or the reference's, checked, normalised and typed by their rule. Every
other op keeps its arguments as written (positional arguments by their syntax: names, list
literals, memory spaces, dtypes, enum members, strings, numbers and scalar expressions; the
reference's keywords, including the ones its printer writes for positional arguments,
`ops.PRINTED_KEYWORDS`; a trailing `attrs={...}`), is checked against the reference's
argument count and keyword names, and takes its type from the assignment's annotation.

A call nested in an argument or an expression is hoisted into a temporary assigned just
before the statement (`t__tmp_vN`, the reference's FlattenCallExpr naming), which needs a
type it can derive: a modelled op, a scalar op of one dtype or of an argument's element dtype, or a function
call.
"""

from __future__ import annotations

import ast
import keyword
import math
from collections.abc import Callable, Collection
from dataclasses import replace
from functools import lru_cache
from typing import NoReturn, TypeVar, cast

from slotsat.core import ir, ops
from slotsat.core.dsl import ssa
from slotsat.core.dsl.annotations import (
    DTYPES,
    TypeReader,
    dotted,
    enum_member,
    exprs_text,
    fold_const,
    type_text,
    valid_or_none,
)
from slotsat.core.dsl.context import ABOVE_TILE, BEFORE_HAND_OFF, FunctionContext

_TENSOR_PARAMS = frozenset({"tensor"})
_TILE_PARAMS = frozenset({"tile", "lhs", "rhs", "acc", "row", "tmp", "tmp_tile", "row_vec"})
_LIST_PARAMS = frozenset({"offsets", "shape", "valid_shape", "indices", "shapes", "drop_dims"})

SCALAR_ELEMENT_RESULTS: dict[str, int] = {"tensor.read": 0, "tile.read": 0, "array.get_element": 0}
"""Scalar-result ops whose result has the element dtype of an argument (by index; the
reference's deduction rules). Ops whose scalar result has one fixed dtype take it from the
registry (`RefOp.scalar_dtype`)."""


_PL_NAMESPACES = frozenset({"tile", "tensor", "system", "array", "prefetch", "dist", "builtin"})


def op_name(name: str | None) -> str | None:
    """The canonical op name for a dotted callee (`pl.tile.load` -> `tile.load`, `pl.exp` ->
    `tile.exp`, `pl.tile.and_` -> `tile.and`, `pld.system.notify` as is), or None when the
    callee is not spelled as an op."""
    return None if name is None else _op_name(name)


@lru_cache(maxsize=4096)
def _op_name(name: str) -> str | None:
    """`op_name` of a callee's spelling, remembered (a bounded cache: the spellings come from
    the input): it reads only the fixed op registry, and a call is resolved several times
    (`is_call`, `resolve`, `_merge_sort`) in every statement."""
    parts = name.split(".")
    if name in ops.PRINTED_ALIASES:
        return ops.PRINTED_ALIASES[name][0]
    if name in ops.SHORT_NAMES:
        return ops.SHORT_NAMES[name]
    if parts[0] == "pld" and len(parts) == 3:
        canonical = name
    elif parts[0] == "pld" and len(parts) == 2:
        forms = ops.pld_short().get(parts[1])
        return forms[0] if forms is not None else None
    elif parts[0] == "pl" and len(parts) == 3 and parts[1] in _PL_NAMESPACES:
        canonical = ".".join(parts[1:])
    elif parts[0] == "pl" and len(parts) == 4 and parts[1] == "builtin":
        canonical = ".".join(parts[1:])
    elif parts[0] == "pl" and len(parts) == 2:
        canonical = f"tile.{parts[1]}"
        system = f"system.{parts[1]}"  # `pypto.language` re-exports its system ops by name too
        if ops.reference(canonical) is None and ops.lookup(canonical) is None and ops.reference(system):
            return system
        if ops.reference(canonical) is None and ops.lookup(canonical) is None and (
                parts[1] in ops.tensor_reexports()):
            return f"tensor.{parts[1]}"
    else:
        return None
    head, leaf = canonical.rsplit(".", 1)
    if leaf.endswith("_") and leaf[:-1] in ("and", "or", "not", "xor", "in", "is"):
        canonical = f"{head}.{leaf[:-1]}"
    return canonical


def spelled(op: str) -> str:
    """How the printer writes op `op`: `pl.tile.load`, `pld.system.notify`, `pl.tile.and_`."""
    head, leaf = op.rsplit(".", 1)
    if keyword.iskeyword(leaf):
        leaf += "_"
    prefix = "" if op.startswith("pld.") else "pl."
    return f"{prefix}{head}.{leaf}"


_OPERATORS: dict[str, type[ast.operator]] = {"+": ast.Add, "-": ast.Sub, "*": ast.Mult, "/": ast.Div,
                                             "//": ast.FloorDiv, "%": ast.Mod}

_POP_SPACES = {"tile.tpop_from_aic": ir.MemorySpace.Vec, "tile.tpop_from_aiv": ir.MemorySpace.Mat}
"""The memory of the tile a cross-core pop types from its `shape=` / `dtype=` keywords."""


class CallReader:
    """Reads the calls of one function."""

    def __init__(self, fp: FunctionContext) -> None:
        self.fp = fp
        self.types = TypeReader(fp)

    def error(self, message: str, node: ast.AST) -> NoReturn:
        self.fp.error(message, node)

    def source(self, node: ast.AST) -> str:
        return self.fp.mp.source(node)

    # -- resolution

    def is_call(self, node: ast.expr) -> bool:
        """Whether `node` is a call this reader handles (an op, a function call, a launch)."""
        if not isinstance(node, ast.Call):
            return False
        name = dotted(node.func)
        if name is None:
            return False
        if name.startswith("self.") and name.count(".") == 1:
            return True
        if name in ("pl.submit", "pl.spmd_submit"):
            return True
        if name == "pl.cast":
            return self.fp.is_tile_cast(node)
        return op_name(name) is not None and name not in self.fp.NON_OPS

    def resolve(self, node: ast.Call) -> str:
        """The canonical op of a call (`tile.load`, `self.f`, `submit`), or a located error."""
        name = dotted(node.func)
        assert name is not None
        if name.startswith("self."):
            callee = name[5:]
            if callee not in self.fp.mp.function_names:
                self.error(f"the program has no function '{callee}'", node.func)
            return name
        if name in ("pl.submit", "pl.spmd_submit"):
            return name[3:]
        op = op_name(name)
        assert op is not None
        op = (self._unified_on_tensor(name, node) or self._unified_on_scalar(name, node)
              or self._pld_dispatch(name, node) or op)
        if op.startswith("tensor.") and name == f"pl.{op[7:]}" and op not in ops.HAND_OFF_TENSOR_OPS:
            # `pl.create_l1(...)`: a tensor computation spelled as `pypto.language` re-exports it
            self.error(ABOVE_TILE.format(what=f"'{name}' ({spelled(op)})"), node.func)
        stage = ops.REMOVED_BEFORE_HAND_OFF.get(op)
        if stage is not None:
            what = f"'{name}'" if name == spelled(op) else f"'{name}' ({spelled(op)})"
            self.error(BEFORE_HAND_OFF.format(what=what, stage=stage), node.func)
        if ops.reference(op) is None and ops.lookup(op) is None:
            self.fp.unknown_pl_above_tile(name, node.func)
            hint = ops.suggest(op)
            alt = f"; did you mean '{spelled(hint)}'?" if hint is not None else ""
            self.error(f"unsupported DSL construct '{name}'{alt}", node.func)
        return op

    def _unified_on_tensor(self, name: str, node: ast.Call) -> str | None:
        """`pl.X(t, ...)` with a tensor `t` is the reference's unified op dispatching to
        `tensor.X` (its `unified_ops` pick the namespace by the first argument's type). One of
        the tensor ops kept at the hand-off point (`ops.HAND_OFF_TENSOR_OPS`: `pl.slice(t,
        ...)`, `pl.read(t, ...)`) is that op, returned; any other is a tensor-level
        computation, which the reference lowers to tile ops before the hand-off point, so the
        above-tile error (issue 16 item 5). None when `pl.X` is not a unified call on a tensor."""
        parts = name.split(".")
        first = node.args[0] if node.args else None
        if len(parts) != 2 or parts[0] != "pl" or not isinstance(first, ast.Name):
            return None
        tensor_op = f"tensor.{parts[1]}"
        var = self.fp.lookup_optional(first.id)
        if var is None or not isinstance(var.type, ir.TensorType) or ops.reference(tensor_op) is None:
            return None
        if tensor_op in ops.HAND_OFF_TENSOR_OPS:
            return tensor_op
        self.error(ABOVE_TILE.format(what=f"'{name}' on tensor '{first.id}' (pl.{tensor_op})"), node)

    def _pld_dispatch(self, name: str, node: ast.Call) -> str | None:
        """`pld.X(src, ...)` where the short form `pld.X` stands for one op per level
        (`pld.remote_store`: `pld.tile.remote_store` / `pld.tensor.remote_store`) is the one of
        `src`'s level, as the reference's distributed `unified_ops` dispatch on it: a tile
        picks the `pld.tile` form, anything else the last form (the reference falls through to
        the tensor form, whose own checks then speak). None for any other call."""
        parts = name.split(".")
        forms = ops.pld_short().get(parts[1]) if len(parts) == 2 and parts[0] == "pld" else None
        if forms is None or len(forms) < 2:
            return None
        first = node.args[0] if node.args else None
        var = self.fp.lookup_optional(first.id) if isinstance(first, ast.Name) else None
        if var is not None and isinstance(var.type, ir.TileType):
            return next((f for f in forms if f.startswith("pld.tile.")), forms[-1])
        return forms[-1]

    def _unified_on_scalar(self, name: str, node: ast.Call) -> str | None:
        """`pl.X(t, s)` with a scalar `s` is the reference's unified op dispatching to the
        scalar form: `pl.mul(t, 2.0)` is `tile.muls`, `pl.cmp(t, 0.0, cmp_type=2)` is
        `tile.cmps` (`ops.unified_scalar`, read off the reference's `unified_ops`). None when
        `pl.X` has no scalar form or its second argument is not a scalar."""
        parts = name.split(".")
        if len(parts) != 2 or parts[0] != "pl":
            return None
        forms = ops.unified_scalar().get(parts[1])
        rhs = node.args[1] if len(node.args) > 1 else next(
            (kw.value for kw in node.keywords if kw.arg == "rhs"), None)
        if forms is None or rhs is None or not self.is_scalar(rhs):
            return None
        return forms[1]

    def is_scalar(self, node: ast.expr) -> bool:
        """Whether `node` is a scalar value, as the reference's `_is_scalar_like` decides at
        run time: a number, a name bound to a scalar or a module constant, scalar arithmetic
        of those, or a call of an op whose result is a scalar."""
        if isinstance(node, ast.Constant):
            return isinstance(node.value, (int, float))
        if isinstance(node, ast.UnaryOp):
            return self.is_scalar(node.operand)
        if isinstance(node, ast.BinOp):
            return self.is_scalar(node.left) and self.is_scalar(node.right)
        if isinstance(node, ast.Name):
            var = self.fp.lookup_optional(node.id)
            if var is None:
                return node.id in self.fp.mp.constants
            return isinstance(var.type, ir.ScalarType)
        if isinstance(node, ast.Call):
            callee = dotted(node.func)
            op = op_name(callee) if callee is not None else None
            ref = ops.reference(op) if op is not None else None
            return ref is not None and ref.result == "scalar"
        return False

    def scalar_operator(self, node: ast.Call) -> ast.BinOp | None:
        """`pl.add(a, b)` of two scalars as the operator the reference's unified op applies to
        them (`a + b`, `ops.unified_scalar_operators`), or None for any other call."""
        parts = (dotted(node.func) or "").split(".")
        if len(parts) != 2 or parts[0] != "pl":
            return None
        symbol = ops.unified_scalar_operators().get(parts[1])
        if symbol is None or len(node.args) != 2 or node.keywords:
            return None
        if not all(self.is_scalar(a) for a in node.args):
            return None
        return ast.copy_location(ast.BinOp(node.args[0], _OPERATORS[symbol](), node.args[1]), node)

    # -- the call

    def call(self, node: ast.Call, annot: ir.Type | None, statement: bool = False) -> tuple[ir.Call, ir.Type]:
        node = self._merge_sort(node)
        op = self.resolve(node)
        node = self.positional(node, op)
        if op in ops.COMPARE_GATHER_OPS:
            node = self._compare_gather(node, op)
        if op in ops.CAST_OPS:
            node = self._cast_mode(node, op)
        spec = ops.lookup(op)
        if spec is not None:
            return self.fp.typed_call(node, spec, annot)
        if op.startswith("self."):
            return self._function_call(node, op, annot, statement)
        if op in ops.SPECIAL_CALLS:
            return self._launch(node, op, annot, statement)
        return self._generic(node, op, annot, statement)

    def _merge_sort(self, node: ast.Call) -> ast.Call:
        """`pl.tile.mrgsort(...)` / `pl.tensor.mrgsort(...)` as the op the DSL function builds
        (`ops.MERGE_SORT_FORMS`); any other call as it is."""
        merge = op_name(dotted(node.func))
        forms = ops.MERGE_SORT_FORMS.get(merge or "")
        if merge is None or forms is None:
            return node
        what = spelled(merge)
        keywords = {kw.arg: kw.value for kw in node.keywords}
        block = keywords.pop("block_len", None)
        if block is not None:
            if len(node.args) != 1 or keywords:
                self.error(f"{what}(src, block_len=N) is a one-list merge and takes no other argument",
                           node)
            if isinstance(block, ast.Constant) and type(block.value) is int:
                block = _literal_node(block.value, "INT32", block)
            return _call_of(forms[0], [node.args[0], block], [], node)
        sources = list(node.args)
        tmp = keywords.pop("tmp", None)
        if merge.startswith("tile.") and tmp is None and len(sources) == 5:
            tmp = sources.pop()
        exhausted = keywords.pop("exhausted", None) or ast.copy_location(ast.Constant(False), node)
        if keywords:
            self.error(f"{what} got an unexpected keyword '{next(iter(keywords))}'", node)
        if not 2 <= len(sources) <= 4 or merge.startswith("tile.") != (tmp is not None):
            form = "(s0, s1[, s2[, s3]], tmp=t)" if merge.startswith("tile.") else "(s0, s1[, s2[, s3]])"
            self.error(f"{what} takes block_len= (a one-list merge) or {form} (a 2- to 4-way merge), got "
                       f"{self.source(node)}", node)
        args = [*sources, *([tmp] if tmp is not None else [])]
        return _call_of(forms[1], args, [ast.copy_location(ast.keyword("exhausted", exhausted), node)], node)

    def _compare_gather(self, node: ast.Call, op: str) -> ast.Call:
        """A compare-form gather with the keywords the reference's builder stores
        (`ops.COMPARE_GATHER_MODES`): `cmp_mode="lt"` is `cmp_mode=2`, an omitted `offset` 0."""
        given = {kw.arg: kw.value for kw in node.keywords if kw.arg is not None}
        mode = given.get("cmp_mode")
        if mode is None and op.startswith("tile."):
            mode = ast.copy_location(ast.Constant("eq"), node)
        if mode is None:
            return node
        value = mode.value if isinstance(mode, ast.Constant) else None
        if isinstance(value, str) and value in ops.COMPARE_GATHER_MODES:
            value = ops.COMPARE_GATHER_MODES.index(value)
        if type(value) is not int or not 0 <= value < len(ops.COMPARE_GATHER_MODES):
            modes = ", ".join(repr(m) for m in ops.COMPARE_GATHER_MODES)
            self.error(f"{spelled(op)} cmp_mode must be one of {modes} or an integer 0-5, got "
                       f"{self.source(mode)}", mode)
        given["cmp_mode"] = ast.copy_location(ast.Constant(value), mode)
        given.setdefault("offset", ast.copy_location(ast.Constant(0), node))
        order = ("cmp_mode", "offset", "out_cols", "count_dtype")
        stored = [_keyword_node(name, given[name]) for name in order if name in given]
        rest = [kw for kw in node.keywords if kw.arg not in order]
        return ast.copy_location(ast.Call(func=node.func, args=node.args, keywords=stored + rest), node)

    def _cast_mode(self, node: ast.Call, op: str) -> ast.Call:
        """A cast's `mode=` as the name the reference prints (`ops.CAST_MODES`): `mode=2` is
        `mode='round'`; a mode outside the seven is an error. A third positional argument is the
        mode, as the DSL's `cast(input, target_type, mode)` binds it."""
        if len(node.args) == 3:
            mode_arg = _keyword_node("mode", node.args[2])
            node = ast.copy_location(ast.Call(func=node.func, args=node.args[:2],
                                              keywords=[*node.keywords, mode_arg]), node)
        mode = next((kw for kw in node.keywords if kw.arg == "mode"), None)
        if mode is None:
            return node
        value = mode.value.value if isinstance(mode.value, ast.Constant) else None
        if type(value) is int and 0 <= value < len(ops.CAST_MODES):
            value = ops.CAST_MODES[value]
        if not isinstance(value, str) or value not in ops.CAST_MODES:
            modes = ", ".join(repr(m) for m in ops.CAST_MODES)
            self.error(f"{spelled(op)} mode must be one of {modes} or an integer 0-6, got "
                       f"{self.source(mode.value)}", mode.value)
        named = _keyword_node("mode", ast.copy_location(ast.Constant(value), mode.value))
        keywords = [named if kw is mode else kw for kw in node.keywords]
        return ast.copy_location(ast.Call(func=node.func, args=node.args, keywords=keywords), node)

    def positional(self, node: ast.Call, op: str) -> ast.Call:
        """`node` with the keywords that name positional arguments of `op` moved to their
        positions, as Python binds them: `pl.tile.extract(t, 0, 1, shape=[16, 1], ...)` is
        `pl.tile.extract(t, 0, 1, [16, 1], ...)`, the form the reference's IR holds and its
        printer writes. A keyword the op also registers as a keyword, or one the reference's
        printer writes for a positional argument (`ops.PRINTED_KEYWORDS`), stays a keyword.
        An omitted argument that the reference's builder always fills in takes its literal
        (`ops.positional_defaults`: `pl.aiv_initialize_pipe(dir_mask=2, slot_size=512,
        v2c_consumer_buf=b)` holds `pl.const(0, pl.INT32)` first); otherwise the moved
        arguments must continue the positional ones without a gap (slotsat guesses no other
        default)."""
        ref = ops.reference(op)
        defaults = ops.positional_defaults().get(op, {})
        if ref is None:
            return node
        node = self._dsl_bound(node, op, ref)
        if not node.keywords and not defaults:
            return node
        keep = frozenset(ref.keywords) | ops.PRINTED_KEYWORDS.get(op, frozenset())
        moved: dict[int, ast.keyword] = {}
        for kw in node.keywords:
            if kw.arg is None or kw.arg in keep or kw.arg not in ref.args:
                continue
            k = ref.args.index(kw.arg)
            if k < len(node.args):
                self.error(f"{spelled(op)} got multiple values for argument '{kw.arg}'", kw.value)
            moved[k] = kw
        args = list(node.args)
        for k in range(len(node.args), len(ref.args)):
            if k in moved:
                args.append(moved[k].value)
            elif ref.args[k] in defaults:
                args.append(_literal_node(*defaults[ref.args[k]], node))
            elif moved and k < max(moved):
                later = ref.args[max(moved)]
                self.error(f"{spelled(op)} is given '{later}' by keyword but not '{ref.args[k]}' before it: "
                           f"write the arguments up to '{later}' (slotsat does not supply the reference's "
                           "defaults)", moved[max(moved)].value)
            else:
                break
        if len(args) == len(node.args):
            return node
        keywords = [kw for kw in node.keywords if kw not in moved.values()]
        return ast.copy_location(ast.Call(func=node.func, args=args, keywords=keywords), node)

    def _dsl_bound(self, node: ast.Call, op: str, ref: ops.RefOp) -> ast.Call:
        """A call with more positional arguments than the IR op has, bound as the op's DSL
        function binds them (`ops.dsl_positional`): `pl.tile.create([16, 64], pl.FP32,
        pl.Mem.Mat)` is `pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Mat)`, the
        form the reference's IR holds and prints; a parameter named like an argument of the op
        takes that argument's place (`pl.tile.full(shape, dtype, value)`), one named otherwise
        its own position. Not for the ops slotsat models (their DSL signature is its own) nor
        for a call within the op's own arity (the printed form)."""
        names = ops.dsl_positional().get(op)
        if names is None or ops.lookup(op) is not None or len(node.args) <= len(ref.args):
            return node
        args: dict[int, ast.expr] = {}
        keywords = list(node.keywords)
        for k, a in enumerate(node.args):
            name = names[k] if k < len(names) else None
            if name in ref.args:
                args[ref.args.index(name)] = a
            elif name in ref.keywords:
                keywords.append(ast.copy_location(ast.keyword(name, a), a))
            else:
                args[k] = a
        if sorted(args) != list(range(len(args))):
            missing = ref.args[next(k for k in range(len(ref.args)) if k not in args)]
            self.error(f"{spelled(op)} is called without its argument '{missing}'", node)
        ordered = [args[k] for k in sorted(args)]
        return ast.copy_location(ast.Call(func=node.func, args=ordered, keywords=keywords), node)

    def _keywords(self, node: ast.Call, allowed: frozenset[str] | None, what: str
                  ) -> tuple[list[tuple[str, ir.CallArg]], list[tuple[str, ir.AttrValue]]]:
        kwargs: list[tuple[str, ir.CallArg]] = []
        attrs: list[tuple[str, ir.AttrValue]] = []
        seen: set[str] = set()
        for kw in node.keywords:
            if kw.arg is None:
                self.error("unsupported syntax: **kwargs in a call", kw.value)
            if kw.arg in seen:
                self.error(f"{what} got the keyword '{kw.arg}' twice", kw.value)
            seen.add(kw.arg)
            if kw.arg == "attrs":
                attrs = self.fp.call_attrs(kw.value)
            elif allowed is not None and kw.arg not in allowed:
                takes = ", ".join(sorted(allowed)) or "no keywords"
                self.error(f"{what} got an unexpected keyword '{kw.arg}' (it takes {takes})", kw.value)
            else:
                kwargs.append((kw.arg, self.arg(kw.value)))
        return kwargs, attrs

    def _generic(self, node: ast.Call, op: str, annot: ir.Type | None, statement: bool
                 ) -> tuple[ir.Call, ir.Type]:
        ref = ops.reference(op)
        assert ref is not None
        what = spelled(op)
        printed = ops.PRINTED_KEYWORDS.get(op, frozenset())
        popped = self._pop_type(node, op, annot, what)
        if popped is not None:
            node, annot = popped
        kwargs, attrs = self._keywords(node, frozenset(ref.keywords) | printed, what)
        args = tuple(self.arg(a) for a in node.args)
        if len(args) > len(ref.args):  # no minimum: the reference prints calls that omit trailing arguments
            sig = ", ".join(ref.args[:ref.required_args]) + "".join(
                f"[, {a}]" for a in ref.args[ref.required_args:])
            self.error(f"{what} expects ({sig}), got {self.source(node)}", node)
        alias = ops.PRINTED_ALIASES.get(dotted(node.func) or "")
        if alias is not None and alias[1] not in (k for k, _ in kwargs):
            kwargs.append((alias[1], ir.ConstInt(1, ir.DType.BOOL, span=self.fp.span(node))))
        default = ops.dsl_memory_defaults().get(op)
        keyword = ref.output_memory_kwarg
        if default is not None and keyword is not None and keyword not in (k for k, _ in kwargs):
            # what the DSL function fills in (`pl.tile.create(shape, dtype)` is a Vec tile), or
            # the annotation's memory space, as slotsat reads an omitted `tile.load` space
            space = annot.memory_space if isinstance(annot, ir.TileType) else None
            kwargs.append((keyword, ir.SpaceArg(space or ir.MemorySpace(default))))
        call = ir.Call(op, args, tuple(kwargs), tuple(attrs), span=self.fp.span(node))
        return call, self._result(call, node, annot, statement, what)

    def _pop_type(self, node: ast.Call, op: str, annot: ir.Type | None, what: str
                  ) -> tuple[ast.Call, ir.Type] | None:
        """`pl.tpop_from_aic(shape=[R, C], dtype=pl.D, ...)`: the DSL wrapper's keywords that give
        the popped tile's type (the reference's `_resolve_tpop_type`: both or neither, a Vec tile
        on the vector side, a Mat tile on the cube side). They only type the result, so the call
        keeps the other keywords; an annotation beside them must say the same type."""
        space = _POP_SPACES.get(op)
        given = {kw.arg: kw for kw in node.keywords if kw.arg in ("shape", "dtype")}
        if space is None or not given:
            return None
        if len(given) != 2:
            missing = "dtype" if "shape" in given else "shape"
            self.error(f"{what} needs shape= and dtype= together (it got no {missing}=)", node)
        typ = ir.TileType(self.types.tile_shape(given["shape"].value), self.types.dtype(given["dtype"].value),
                          space)
        if annot is not None and not ssa.same_type(annot, typ):
            self.error(f"annotation says {type_text(annot)} but {what}'s shape= and dtype= give "
                       f"{type_text(typ)}", node)
        keywords = [kw for kw in node.keywords if kw.arg not in ("shape", "dtype")]
        call = ast.copy_location(ast.Call(func=node.func, args=node.args, keywords=keywords), node)
        return call, annot if annot is not None else typ

    def _result(self, call: ir.Call, node: ast.Call, annot: ir.Type | None, statement: bool,
                what: str) -> ir.Type:
        problem = _gather_problem(call) if call.op == "tile.mgather" else None
        if problem is not None:
            self.error(f"{what} {problem}, as the reference's type deduction requires", node)
        inferred = self.infer(call)
        if annot is not None:
            if inferred is not None and _index_result_rebound(annot, inferred):
                return annot
            if inferred is not None and (type(inferred) is not type(annot) or _other_dtype(annot, inferred)
                                         or _other_handle(annot, inferred)):
                self.error(f"annotation says {type_text(annot)} but {what} produces {type_text(inferred)}",
                           node)
            return _with_space(self._requested_valid(annot, call, inferred, node, what), call, inferred)
        if inferred is not None:
            return _with_space(inferred, call, inferred)
        if statement:
            return ir.TupleType(())
        self.error(f"annotate the result of {what}: slotsat cannot infer its type (write NAME: TYPE = "
                   f"{what}(...))", node)

    def _requested_valid(self, annot: ir.Type, call: ir.Call, inferred: ir.Type | None, node: ast.Call,
                         what: str) -> ir.Type:
        """The annotation of a call that states its result's valid shape (`tile.tri`,
        `tile.random`: `ops.SHAPED_RESULTS` with a `valid_shape` argument), or whose valid shape
        the reference deduces from what it reads (`pld.tile.remote_load`, where slotsat deduces
        it too): one without a valid shape takes the call's, as the reference's deduced type
        does; another one is an error."""
        ref = ops.reference(call.op)
        states = call.op in ops.SHAPED_RESULTS and ref is not None and \
            _valid_shape_argument(call, ref) is not None
        if (not (states or call.op in ops.REMOTE_LOADED_RESULTS) or not isinstance(annot, ir.TileType)
                or not isinstance(inferred, ir.TileType) or inferred.shape != annot.shape):
            return annot
        if annot.valid_shape is None:
            return replace(annot, valid_shape=inferred.valid_shape)
        if annot.effective_valid_shape != inferred.effective_valid_shape:
            self.error(f"annotation says valid_shape={exprs_text(annot.effective_valid_shape)} but {what} "
                       f"produces valid_shape={exprs_text(inferred.effective_valid_shape)}", node)
        return annot

    def infer(self, call: ir.Call) -> ir.Type | None:
        """The result type of a generic call when the reference's rule is known."""
        ref = ops.reference(call.op)
        if ref is not None and ref.scalar_dtype is not None:
            return ir.ScalarType(ir.DType(ref.scalar_dtype))
        fixed = ops.FIXED_RESULTS.get(call.op)
        if fixed is not None:
            return ir.PtrType() if fixed == "pl.Ptr" else ir.OpaqueType(fixed)
        rule = SCALAR_ELEMENT_RESULTS.get(call.op)
        if rule is not None and rule < len(call.args):
            src = call.args[rule]
            if isinstance(src, ir.Var) and isinstance(src.type, ir.TensorType | ir.TileType | ir.ArrayType):
                return ir.ScalarType(src.type.dtype)
        if ref is not None and ref.buffer == "reuses" and ref.buffer_arg is not None and ref.result in (
                "tensor", "unknown") and call.op.startswith(("tensor.", "pld.tensor.")):
            # a tensor op whose result is its destination tensor (`pld.tensor.allreduce(data,
            # signal)` returns `data`): the destination's type, as the reference deduces it
            dst = call.args[ref.buffer_arg] if ref.buffer_arg < len(call.args) else None
            if isinstance(dst, ir.Var) and isinstance(dst.type, ir.TensorType):
                return _local_type(dst.type)
        like = ops.RESULT_LIKE_ARG.get(call.op)
        if like is not None and like < len(call.args):
            src = call.args[like]
            if isinstance(src, ir.Var) and isinstance(src.type, ir.TensorType | ir.TileType):
                return _local_type(src.type)
            if isinstance(src, ir.Var) and isinstance(src.type, ir.ArrayType):
                return src.type
        if ref is not None and call.op in ops.SHAPED_RESULTS:
            return _shaped_result(call, ref)
        if ref is not None and call.op in ops.RESHAPED_RESULTS:
            return _reshaped_result(call, ref)
        if call.op in ops.SLICED_RESULTS:
            return _sliced_result(call)
        if call.op == "tile.mgather":
            return _gathered_result(call)
        if call.op in ops.ARRAY_RESULTS:
            return _array_result(call)
        return _from_operands(call, ref)

    def _function_call(self, node: ast.Call, op: str, annot: ir.Type | None, statement: bool
                       ) -> tuple[ir.Call, ir.Type]:
        callee = op[5:]
        kwargs, attrs = self._keywords(node, ops.FUNCTION_CALL_KEYWORDS, f"self.{callee}")
        node, no_dep = _without_no_dep(node)
        attrs = self._no_dep_overrides(attrs, no_dep, node)
        params = self.fp.mp.function_params.get(callee)
        if params is not None and len(node.args) != len(params):
            self.error(f"self.{callee} takes {len(params)} argument(s), got {len(node.args)}", node)
        args = tuple(self.arg(a, None if params is None else params[k]) for k, a in enumerate(node.args))
        call = ir.Call(op, args, tuple(kwargs), tuple(attrs), span=self.fp.span(node))
        returns = self.fp.mp.function_returns.get(callee)
        if annot is not None:
            return call, annot
        if returns is not None and len(returns) == 1:
            return call, returns[0]
        if returns is not None and (returns or statement):
            return call, ir.TupleType(returns)
        self.error(f"annotate the result of self.{callee}(...)", node)

    def _no_dep_overrides(self, attrs: list[tuple[str, ir.AttrValue]], no_dep: list[int], node: ast.Call
                          ) -> list[tuple[str, ir.AttrValue]]:
        """The reference's parser peels `pl.no_dep(t)` off a kernel call's argument and records
        the argument's index (among the kernel's arguments) as a NoDep direction override,
        which wins over a written one."""
        if not no_dep:
            return attrs
        listed = ast.copy_location(ast.List([ast.copy_location(ast.Constant(k), node) for k in no_dep],
                                            ast.Load()), node)
        return [*((k, v) for k, v in attrs if k != "arg_direction_overrides"),
                ("arg_direction_overrides", self.arg(listed))]

    def _launch(self, node: ast.Call, op: str, annot: ir.Type | None, statement: bool
                ) -> tuple[ir.Call, ir.Type]:
        what = f"pl.{op}"
        first = dotted(node.args[0]) if node.args else None
        if first is None or not first.startswith("self."):
            self.error(f"{what} takes the function to launch first: {what}(self.f, ...)", node)
        callee = first[5:]
        if callee not in self.fp.mp.function_names:
            self.error(f"the program has no function '{callee}'", node.args[0])
        kwargs, attrs = self._keywords(node, ops.SPECIAL_CALLS[op], what)
        node, no_dep = _without_no_dep(node)  # indices among the launched function's arguments
        attrs = self._no_dep_overrides(attrs, [k - 1 for k in no_dep if k > 0], node)
        args = (ir.FuncRef(callee), *(self.arg(a) for a in node.args[1:]))
        call = ir.Call(op, args, tuple(kwargs), tuple(attrs), span=self.fp.span(node))
        if annot is not None:
            return call, annot
        returns = self.fp.mp.function_returns.get(callee, ())
        return call, ir.TupleType((*returns, ir.ScalarType(ir.DType.TASK_ID)))

    # -- arguments

    def arg(self, node: ast.expr, expect: ir.Type | None = None) -> ir.CallArg:
        """One argument or keyword value of a call, read by its syntax. `expect` is the type
        the callee's parameter declares (a nested call there takes it as its annotation)."""
        fp = self.fp
        if expect is not None and isinstance(node, ast.Call) and self.is_call(node):
            if isinstance(expect, ir.TensorType):
                expect = ir.TensorType(expect.shape, expect.dtype, False, expect.view, False,
                                       expect.distributed)
            return self.hoist(node, expect)
        if isinstance(node, ast.List | ast.Tuple):
            items = [self.arg(e) for e in node.elts]
            if all(isinstance(i, ir.SCALAR_EXPRS) for i in items):
                exprs = tuple(cast(ir.Expr, i) for i in items)
                return ir.ExprList(exprs, span=fp.span(node))
            return ir.ArgList(tuple(items), span=fp.span(node))
        if TypeReader.is_space(node):
            return ir.SpaceArg(self.types.space(node))
        name = dotted(node)
        constant = ops.language_constants().get(name or "")
        if constant is not None:  # read as the literal the reference prints for it
            node = ast.copy_location(ast.Constant(constant), node)
        if name is not None and name.startswith("pl.") and name[3:] in DTYPES:
            return ir.DTypeArg(DTYPES[name[3:]])
        member = enum_member(name)
        if member is not None:
            return member
        if name is not None and name.startswith("self.") and name.count(".") == 1:
            self.error(f"'{name}' may only be the function a pl.submit / pl.spmd_submit launches", node)
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return ir.StrArg(node.value)
        if isinstance(node, ast.Constant) and isinstance(node.value, bool):
            return ir.ConstInt(int(node.value), ir.DType.BOOL, span=fp.span(node))
        if isinstance(node, ast.Name) and node.id not in fp.mp.constants:
            return fp.lookup(node.id, node)  # any type, pointers included (`pld.tensor.window(buf, ...)`)
        return fp.index_expr(node, allow_any=True, allow_float=True)

    def hoist(self, node: ast.Call, annot: ir.Type | None = None) -> ir.Var:
        """A nested call, assigned to a fresh temporary before the current statement."""
        call, typ = self.call(node, annot)
        var = self.fp.temp(typ, node)
        self.fp.pending.append(ir.AssignStmt(var, call, span=self.fp.span(node)))
        return var


def _without_no_dep(node: ast.Call) -> tuple[ast.Call, list[int]]:
    """`node` with every `pl.no_dep(x)` argument (nested too) replaced by `x`, and the indices of
    those arguments."""
    args: list[ast.expr] = []
    marked: list[int] = []
    for k, a in enumerate(node.args):
        inner = a
        while (isinstance(inner, ast.Call) and dotted(inner.func) == "pl.no_dep" and len(inner.args) == 1
               and not inner.keywords):
            inner = inner.args[0]
        args.append(inner)
        if inner is not a:
            marked.append(k)
    if not marked:
        return node, marked
    return ast.copy_location(ast.Call(func=node.func, args=args, keywords=node.keywords), node), marked


def _call_of(op: str, args: list[ast.expr], keywords: list[ast.keyword], at: ast.AST) -> ast.Call:
    """A call of op `op` as source, located at `at`."""
    func = ast.parse(spelled(op), mode="eval").body
    for n in ast.walk(func):
        ast.copy_location(n, at)
    return ast.copy_location(ast.Call(func=func, args=args, keywords=keywords), at)


def _keyword_node(name: str, value: ast.expr) -> ast.keyword:
    """`name=value` as source, located at `value`."""
    return ast.copy_location(ast.keyword(name, value), value)


def _literal_node(value: int, dtype: str, at: ast.AST) -> ast.expr:
    """`pl.const(VALUE, pl.DTYPE)` as source, located at `at` (a builder's default argument)."""
    expr = ast.parse(f"pl.const({value}, pl.{dtype})", mode="eval").body
    for n in ast.walk(expr):
        ast.copy_location(n, at)
    return expr


_SPACE_NAMES = frozenset(s.value for s in ir.MemorySpace)


def _other_dtype(annot: ir.Type, inferred: ir.Type) -> bool:
    """Whether an annotation names another element or scalar dtype than the call produces (the
    shape and the view stay the annotation's: the reference printed them), INDEX and another
    integer dtype aside for a scalar (`_index_result_rebound`; an INDEX annotation of another
    integer result binds the result's own dtype, as the reference's does)."""
    if not isinstance(annot, ir.ScalarType | ir.TileType | ir.TensorType) or not isinstance(
            inferred, ir.ScalarType | ir.TileType | ir.TensorType):
        return False
    if isinstance(annot, ir.ScalarType) and isinstance(inferred, ir.ScalarType) and \
            annot.dtype is ir.DType.INDEX and inferred.dtype.is_int:
        return False
    return annot.dtype != inferred.dtype


def _index_result_rebound(annot: ir.Type, inferred: ir.Type) -> bool:
    """Whether an integer scalar annotation rebinds a call's `INDEX` scalar result at its dtype
    (`d: pl.Scalar[pl.INT64] = pl.tensor.dim(t, 0)`, `b: pl.Scalar[pl.INT32] =
    pl.tile.get_block_idx()`): the reference's parser rebuilds the call at the annotated dtype
    (INDEX is compatible with every integer dtype), prints it so at the hand-off point, and
    code generation converts the op's value to it."""
    return isinstance(annot, ir.ScalarType) and isinstance(inferred, ir.ScalarType) \
        and inferred.dtype is ir.DType.INDEX and annot.dtype.is_int_arith \
        and annot.dtype is not ir.DType.INDEX


def _with_space(typ: ir.Type, call: ir.Call, inferred: ir.Type | None) -> ir.Type:
    """`typ` with the memory space the reference gives the call's tile result where `typ` (an
    annotation without `pl.Mem.X`, or a deduced type) leaves it out: the deduced type's, else
    `hand_off_space`; each tile of a tuple result likewise. No tile at the hand-off point is
    without a space."""
    if isinstance(typ, ir.TupleType):
        deduced = inferred.types if isinstance(inferred, ir.TupleType) else ()
        return ir.TupleType(tuple(_with_space(t, call, deduced[k] if k < len(deduced) else None)
                                  for k, t in enumerate(typ.types)))
    if not isinstance(typ, ir.TileType) or typ.memory_space is not None:
        return typ
    space = inferred.memory_space if isinstance(inferred, ir.TileType) else None
    return replace(typ, memory_space=space if space is not None else hand_off_space(call))


def hand_off_space(call: ir.Call) -> ir.MemorySpace:
    """The memory space the reference's InferTileMemorySpace (`InferFromOp`) gives a tile result
    whose type has none: the op's fixed output space (`tile.full`, `tile.add`: Vec; products:
    Acc), else the space its memory keyword names (`target_memory=`, or the keyword's default:
    Vec for `tile.move`, `tile.extract`, `tile.mgather`), else, for an op with a
    memory rule (`tile.reshape`, `tile.slice`, ...), the space of its first tile argument that
    has one, else Vec, as for an op without a memory rule (`pld.tile.remote_load`). (The pass
    first asks a consumer's demand for a load whose `target_memory` is absent; the DSL function
    fills that keyword in, so no such load reaches it.)"""
    ref = ops.reference(call.op)
    if ref is not None and ref.fixed_output_memory is not None:
        return ir.MemorySpace(ref.fixed_output_memory)
    if ref is not None and ref.output_memory_kwarg is not None:
        given = next((v for k, v in call.kwargs if k == ref.output_memory_kwarg), None)
        if isinstance(given, ir.SpaceArg):
            return given.space
        if ref.memory_output in _SPACE_NAMES:  # the keyword's default (`tile.move`: Vec)
            return ir.MemorySpace(ref.memory_output)
    if ref is not None and ref.memory_output is not None:
        tiles = [a.type for a in call.args if isinstance(a, ir.Var) and isinstance(a.type, ir.TileType)]
        first = next((t.memory_space for t in tiles if t.memory_space is not None), None)
        if first is not None:
            return first
    return ir.MemorySpace.Vec


def _local_type(typ: ir.TensorType | ir.TileType) -> ir.Type:
    """The type of a local binder of `typ`: a tensor loses its parameter direction."""
    if isinstance(typ, ir.TensorType) and (typ.is_out or typ.is_inout):
        return ir.TensorType(typ.shape, typ.dtype, False, typ.view, False, typ.distributed)
    return typ


def _shaped_result(call: ir.Call, ref: ops.RefOp) -> ir.Type | None:
    """The tile or tensor of `call`'s `shape` argument and `dtype=` keyword (`ops.SHAPED_RESULTS`),
    valid in its `valid_shape` argument where it has one, or None when they are not literal
    enough to state the type (a tile of a symbolic shape, a tensor of a layout other than ND)."""
    k = ref.args.index("shape")
    shape = call.args[k] if k < len(call.args) else call.kwarg("shape")
    dtype = call.kwarg("dtype")
    if not isinstance(shape, ir.ExprList) or not isinstance(dtype, ir.DTypeArg):
        return None
    requested = _valid_shape_argument(call, ref)
    if requested is not None and not isinstance(requested, ir.ExprList):
        return None
    valid = None if requested is None else tuple(requested.items)
    dims = tuple(_dim(d) for d in shape.items)
    if ref.result == "tensor":
        if any(d is None for d in dims):
            return None
        layout = call.kwarg("layout")
        if layout is not None and getattr(layout, "member", None) != "ND":
            return None
        return ir.TensorType(tuple(d for d in dims if d is not None), dtype.dtype,
                             distributed=call.op in ops.DISTRIBUTED_RESULTS)
    static = tuple(d for d in dims if isinstance(d, int))
    if ref.result != "tile" or len(static) != len(dims) or (valid is not None and len(valid) != len(static)):
        return None
    space: ir.MemorySpace | None = None
    if ref.fixed_output_memory is not None:
        space = ir.MemorySpace(ref.fixed_output_memory)
    elif ref.output_memory_kwarg is not None:
        given = call.kwarg(ref.output_memory_kwarg)
        space = given.space if isinstance(given, ir.SpaceArg) else None
    return ir.TileType(static, dtype.dtype, space, None, valid_or_none(static, valid))


def _gather_problem(call: ir.Call) -> str | None:
    """Why `tile.mgather`'s operands have no result type in the reference (DeduceTileMgatherType's
    checks on their kinds, ranks and dtypes), or None."""
    mem = call.args[0] if call.args else None
    idx = call.args[1] if len(call.args) > 1 else None
    space = call.kwarg("target_memory")
    mat = isinstance(space, ir.SpaceArg) and space.space is ir.MemorySpace.Mat
    if not isinstance(mem, ir.Var) or not isinstance(mem.type, ir.TensorType) or not mem.type.shape:
        return "gathers from a tensor of rank 1 or more (its first argument)"
    kind = ir.TensorType if mat else ir.TileType
    if not isinstance(idx, ir.Var) or not isinstance(idx.type, kind) or len(idx.type.shape) != 2:
        return f"reads its indices from a 2-D {'GM tensor' if mat else 'tile'} (its second argument)"
    if idx.type.dtype is not ir.DType.INT32:
        return f"reads INT32 indices, not {idx.type.dtype.value}"
    modes = ops.mgather_modes(call)
    if modes is not None and not modes[0] and len(mem.type.shape) < 2:
        return "row mode gathers rows of a tensor of rank 2 or more"
    if modes is not None and not modes[0] and 1 not in idx.type.shape[: 1 if mat else 2]:
        return f"row mode reads a {'[1, R]' if mat else '[1, R] or [R, 1]'} index vector"
    return None


def _gathered_result(call: ir.Call) -> ir.Type | None:
    """`tile.mgather`'s tile, as the reference deduces it (DeduceTileMgatherType): of the
    tensor's dtype; into a Vec tile, in elem mode the indices' shape and valid shape, in row mode
    one row of the tensor's last dimension per index of the `[1, R]` or `[R, 1]` index vector;
    into a Mat tile, the index tensor's shape in elem mode, `[R, last dimension]` of a `[1, R]`
    one in row mode, valid in the call's `valid_shape` where it gives one. None where the
    operands do not allow one (`_gather_problem`, which the reader reports first) or a mode or an
    extent is not a literal (the annotation then states it, and codegen checks it)."""
    modes = ops.mgather_modes(call)
    if modes is None or _gather_problem(call) is not None:
        return None
    mem, idx = call.args[0], call.args[1]
    assert isinstance(mem, ir.Var)
    assert isinstance(mem.type, ir.TensorType)
    assert isinstance(idx, ir.Var)
    assert isinstance(idx.type, ir.TileType | ir.TensorType)
    rows, cols = idx.type.shape
    last = mem.type.shape[-1]
    if not (isinstance(rows, int) and isinstance(cols, int) and isinstance(last, int)):
        return None
    elem = modes[0]
    if isinstance(idx.type, ir.TileType):  # into a Vec tile; row mode: a [1, R] or [R, 1] vector
        valid = idx.type.effective_valid_shape
        if elem:
            return ir.TileType((rows, cols), mem.type.dtype, None, None, idx.type.valid_shape)
        along = 1 if rows == 1 else 0
        shape = ((rows, cols)[along], last)
        return ir.TileType(shape, mem.type.dtype, None, None,
                           valid_or_none(shape, (valid[along], ir.ConstInt(last, ir.DType.INDEX))))
    shape = (rows, cols) if elem else (cols, last)  # into a Mat tile; row mode: a [1, R] vector
    requested = call.kwarg("valid_shape")
    if requested is None:  # positional: after the scratch tensor in elem mode, else at 2
        at = 3 if elem else 2
        requested = call.args[at] if len(call.args) > at else None
    valid_items = tuple(requested.items) if isinstance(requested, ir.ExprList) else None
    return ir.TileType(shape, mem.type.dtype, None, None, valid_or_none(shape, valid_items))


def _valid_shape_argument(call: ir.Call, ref: ops.RefOp) -> ir.CallArg | None:
    """The `valid_shape` argument the call gives (`tile.tri`, `tile.random`: the result is valid
    in that extent), or None."""
    if "valid_shape" not in ref.args:
        return None
    v = ref.args.index("valid_shape")
    return call.args[v] if v < len(call.args) else call.kwarg("valid_shape")


def _full_tile(arg: ir.CallArg) -> ir.TileType | None:
    """The type of a tile argument valid in full (no valid shape, or one equal to its shape)."""
    typ = arg.type if isinstance(arg, ir.Var) else None
    if not isinstance(typ, ir.TileType):
        return None
    if typ.valid_shape is not None and tuple(fold_const(v) for v in typ.valid_shape) != typ.shape:
        return None
    return typ


def _array_result(call: ir.Call) -> ir.Type | None:
    """A `pl.Array` of `call`'s constant extent (argument 0) and `dtype=` (`ops.ARRAY_RESULTS`)."""
    extent = call.args[0] if call.args else None
    dtype = call.kwarg("dtype")
    if not isinstance(extent, ir.ConstInt) or not isinstance(dtype, ir.DTypeArg):
        return None
    return ir.ArrayType(extent.value, dtype.dtype)


def _matmul_result(call: ir.Call, left: int, right: int) -> ir.Type | None:
    """The product tile of `call`'s arguments `left` and `right` (`ops.MATMUL_RESULTS`), or None."""
    if len(call.args) <= max(left, right):
        return None
    lhs, rhs = _full_tile(call.args[left]), _full_tile(call.args[right])
    if lhs is None or rhs is None or len(lhs.shape) != 2 or len(rhs.shape) != 2 or lhs.dtype != rhs.dtype:
        return None
    dtype = ir.DType.FP32 if lhs.dtype.is_float else ir.DType.INT32
    return ir.TileType((lhs.shape[0], rhs.shape[1]), dtype, ir.MemorySpace.Acc)


def _gemv_result(call: ir.Call, left: int, right: int) -> ir.Type | None:
    """The [16, N] Acc tile valid in [1, N] of `call`'s row vector and matrix (`ops.GEMV_RESULTS`),
    or None."""
    product = _matmul_result(call, left, right)
    if not isinstance(product, ir.TileType) or product.shape[0] != 1:
        return None
    lhs = _full_tile(call.args[left])
    if lhs is None or lhs.dtype not in (ir.DType.BF16, ir.DType.FP16, ir.DType.FP32, ir.DType.INT8):
        return None
    n = product.shape[1]
    valid = (ir.ConstInt(1, ir.DType.INDEX), ir.ConstInt(n, ir.DType.INDEX))
    return ir.TileType((16, n), product.dtype, ir.MemorySpace.Acc, valid_shape=valid)


def _shape_of_dtype_of(call: ir.Call, ref: ops.RefOp, shape_arg: int, dtype_arg: int) -> ir.Type | None:
    """A tile (a tensor) of argument `shape_arg`'s shape and `dtype_arg`'s dtype
    (`ops.SHAPE_OF_DTYPE_OF`)."""
    if len(call.args) <= max(shape_arg, dtype_arg):
        return None
    shaped, typed = call.args[shape_arg], call.args[dtype_arg]
    if not isinstance(shaped, ir.Var) or not isinstance(typed, ir.Var):
        return None
    if isinstance(shaped.type, ir.TensorType) and isinstance(typed.type, ir.TensorType):
        return ir.TensorType(shaped.type.shape, typed.type.dtype)
    if ref.fixed_output_memory is None:
        return None
    if not isinstance(shaped.type, ir.TileType) or not isinstance(typed.type, ir.TileType):
        return None
    if typed.type.layout is not None:
        return None
    return ir.TileType(shaped.type.shape, typed.type.dtype, ir.MemorySpace(ref.fixed_output_memory))


def _from_operands(call: ir.Call, ref: ops.RefOp | None) -> ir.Type | None:
    """The result type of an op the reference deduces from its operands' types, or None."""
    if call.op in ops.MATMUL_RESULTS:
        return _matmul_result(call, *ops.MATMUL_RESULTS[call.op])
    if call.op in ops.GEMV_RESULTS:
        return _gemv_result(call, *ops.GEMV_RESULTS[call.op])
    if ref is not None and call.op in ops.SHAPE_OF_DTYPE_OF:
        return _shape_of_dtype_of(call, ref, *ops.SHAPE_OF_DTYPE_OF[call.op])
    if call.op in ops.MERGE_SORTED_RESULTS:
        return _merge_sorted_result(call, ops.MERGE_SORTED_RESULTS[call.op])
    for table, deduce in _DEDUCED_FROM_CALL:
        if call.op in table:
            return deduce(call)
    return None


def _column_reduced_result(call: ir.Call) -> ir.Type | None:
    """Argument 0 reduced to one row (`ops.COLUMN_REDUCED_RESULTS`), or None."""
    if not call.args or not isinstance(call.args[0], ir.Var):
        return None
    src = call.args[0].type
    if not isinstance(src, ir.TileType) or len(src.shape) != 2:
        return None
    shape = (1, src.shape[1])
    valid = (ir.ConstInt(1, ir.DType.INDEX), src.effective_valid_shape[1])
    fixed = ops.COLUMN_REDUCED_RESULTS[call.op]
    dtype = src.dtype if fixed is None else ir.DType(fixed)
    return ir.TileType(shape, dtype, ir.MemorySpace.Vec, None, valid_or_none(shape, valid))


def _row_reduced_result(call: ir.Call) -> ir.Type | None:
    """Argument 0 reduced to one column (`ops.ROW_REDUCED_RESULTS`), or None."""
    if not call.args or not isinstance(call.args[0], ir.Var):
        return None
    src = call.args[0].type
    if not isinstance(src, ir.TileType) or len(src.shape) != 2 or src.shape[0] < 2:
        return None
    shape = (src.shape[0], 1)
    valid = (src.effective_valid_shape[0], ir.ConstInt(1, ir.DType.INDEX))
    fixed = ops.ROW_REDUCED_RESULTS[call.op]
    dtype = src.dtype if fixed is None else ir.DType(fixed)
    return ir.TileType(shape, dtype, ir.MemorySpace.Vec, None, valid_or_none(shape, valid))


def _elementwise_tile_result(call: ir.Call) -> ir.Type | None:
    """Argument 0's tile in Vec with the layout it passes on (`ops.ELEMENTWISE_TILE_RESULTS`),
    or None where the reference would promote or broadcast."""
    promoted, broadcast = ops.ELEMENTWISE_TILE_RESULTS[call.op]
    if len(call.args) <= max((0, *promoted, *broadcast)) or not isinstance(call.args[0], ir.Var):
        return None
    src = call.args[0].type
    if not isinstance(src, ir.TileType) or src.memory_space not in (None, ir.MemorySpace.Vec):
        return None
    if any(_element_dtype(call.args[k]) is not src.dtype for k in promoted):
        return None
    for k in broadcast:
        other = call.args[k]
        if not isinstance(other, ir.Var) or not isinstance(other.type, ir.TileType) or (
                other.type.shape != src.shape):
            return None
    tile = ir.TileType(src.shape, src.dtype, ir.MemorySpace.Vec, None, src.valid_shape)
    # the inherited fields do not include a view's strides or start offset
    unstrided = src if src.layout is None else replace(
        src, layout=replace(src.layout, stride=(), start_offset=None))
    return _with_layout_of(tile, unstrided)


def _element_dtype(arg: ir.CallArg) -> ir.DType | None:
    """The element dtype of a tile or scalar argument, or None."""
    if isinstance(arg, ir.Var):
        return arg.type.dtype if isinstance(arg.type, ir.TileType | ir.ScalarType) else None
    if isinstance(arg, ir.SCALAR_EXPRS) and not isinstance(arg, ir.TupleGetItem):
        return ir.expr_dtype(cast(ir.Expr, arg))
    return None


def _revalidated_result(call: ir.Call) -> ir.Type | None:
    """Argument 0 valid in `[valid_rows, valid_cols]` (`ops.REVALIDATED_RESULTS`), or None."""
    if len(call.args) != 3 or not isinstance(call.args[0], ir.Var):
        return None
    src = call.args[0].type
    extents = call.args[1:]
    if not isinstance(src, ir.TileType) or len(src.shape) != 2:
        return None
    valid: list[ir.Expr] = []
    for e in extents:
        if not isinstance(e, ir.SCALAR_EXPRS) or isinstance(e, ir.TupleGetItem):
            return None
        expr = cast(ir.Expr, e)
        if ir.expr_dtype(expr) is not ir.DType.INDEX:
            return None
        valid.append(expr)
    return ir.TileType(src.shape, src.dtype, src.memory_space, None, valid_or_none(src.shape, tuple(valid)),
                       src.layout)


def _reinterpreted_result(call: ir.Call) -> ir.Type | None:
    """Argument 0's last axis scaled by the byte ratio of its dtype to the `dtype=` keyword's
    (`ops.REINTERPRETED_RESULTS`), or None where the reference's view is not that."""
    dtype = call.kwarg("dtype")
    if not 1 <= len(call.args) <= 2 or not isinstance(call.args[0], ir.Var) or not isinstance(
            dtype, ir.DTypeArg):
        return None
    src, target = call.args[0].type, dtype.dtype
    if not isinstance(src, ir.TileType) or src.memory_space is not ir.MemorySpace.Vec:
        return None
    if src.layout is not None or _full_tile(call.args[0]) is None or src.dtype is target:
        return None
    if not {src.dtype.value, target.value} <= ops.REINTERPRETABLE_DTYPES:
        return None
    requested = call.args[1] if len(call.args) == 2 else call.kwarg("shape")
    if requested is not None:
        # a requested shape of a source valid in full: that shape, of the same byte size
        items = requested.items if isinstance(requested, ir.ExprList) else ()
        dims = [d.value for d in items if isinstance(d, ir.ConstInt)]
        if not dims or len(dims) != len(items) or (
                math.prod(dims) * target.bits != math.prod(src.shape) * src.dtype.bits):
            return None
        return ir.TileType(tuple(dims), target, src.memory_space)
    bits = src.shape[-1] * src.dtype.bits
    if bits % target.bits != 0:
        return None
    return ir.TileType((*src.shape[:-1], bits // target.bits), target, src.memory_space)


def _viewed_result(call: ir.Call) -> ir.Type | None:
    """Argument 0 reinterpreted under the `shape` argument with its packed row-major view
    (`ops.VIEWED_RESULTS`), or None where the reference's view is not that."""
    if len(call.args) != 2 or call.kwarg("layout") is not None or not isinstance(call.args[0], ir.Var):
        return None
    src, shape = call.args[0].type, call.args[1]
    if not isinstance(src, ir.TensorType) or src.view is not None or not isinstance(shape, ir.ExprList):
        return None
    dims = [_dim(d) for d in shape.items]
    trailing = [d for d in dims[1:] if isinstance(d, int)]
    if not dims or any(d is None for d in dims) or len(trailing) != len(dims) - 1:
        return None
    strides = [1]
    for d in reversed(trailing):
        strides.insert(0, strides[0] * d)
    view = ir.TensorView(tuple(ir.ConstInt(k, ir.DType.INDEX) for k in strides), "ND")
    return ir.TensorType(tuple(d for d in dims if d is not None), src.dtype, view=view,
                         distributed=src.distributed)


def _elementwise_tensor_result(call: ir.Call) -> ir.Type | None:
    """The operand tensor's shape and dtype (`ops.ELEMENTWISE_TENSOR_RESULTS`), or None where
    the reference would promote, broadcast or carry a valid shape."""
    if len(call.args) != 2 or not isinstance(call.args[0], ir.Var):
        return None
    lhs, rhs = call.args[0].type, call.args[1]
    if not isinstance(lhs, ir.TensorType) or lhs.view is not None:
        return None
    if isinstance(rhs, ir.Var) and not isinstance(rhs.type, ir.ScalarType):
        other = rhs.type
        if not isinstance(other, ir.TensorType) or other.view is not None or (other.dtype, other.shape) != (
                lhs.dtype, lhs.shape):
            return None
    elif not isinstance(rhs, ir.SCALAR_EXPRS) or isinstance(rhs, ir.TupleGetItem) or ir.expr_dtype(
            cast(ir.Expr, rhs)) != lhs.dtype:
        return None
    return ir.TensorType(lhs.shape, lhs.dtype)


def _transposed_result(call: ir.Call) -> ir.Type | None:
    """Argument 0 with the axes of arguments 1 and 2 swapped (`ops.TRANSPOSED_RESULTS`), or None."""
    if len(call.args) < 3 or not isinstance(call.args[0], ir.Var):
        return None
    src = call.args[0].type
    axes = [a.value for a in call.args[1:3] if isinstance(a, ir.ConstInt)]
    if not isinstance(src, ir.TileType) or len(axes) != 2:
        return None
    rank = len(src.shape)
    a, b = (k + rank if k < 0 else k for k in axes)
    if not (0 <= a < rank and 0 <= b < rank):
        return None
    shape = list(src.shape)
    shape[a], shape[b] = shape[b], shape[a]
    return ir.TileType(tuple(shape), src.dtype, src.memory_space)


_FLIPPED_MAJOR = {"row_major": "col_major", "col_major": "row_major", "none_box": "none_box"}

_EXTRACT_LAYOUTS: dict[ir.MemorySpace, tuple[str, str]] = {
    ir.MemorySpace.Left: ("row_major", "row_major"), ir.MemorySpace.Right: ("row_major", "col_major"),
}
"""The (block, scatter) layouts `tile.extract` gives an L0 destination instead of its implicit ones."""


def _explicit_layout(tile: ir.TileType, view: ir.TileLayoutView) -> ir.TileType:
    """`tile` with the block / scatter layouts, fractal, pad and compact mode of `view`, keeping
    only the fields that differ from the implicit layout of its shape and space, as the
    reference prints them (and an annotation of the printed type reads back)."""
    blayout, slayout, fractal = ir.implicit_layout(tile)
    view = ir.TileLayoutView(
        blayout=None if view.blayout == blayout else view.blayout,
        slayout=None if view.slayout == slayout else view.slayout,
        fractal=None if view.fractal == fractal else view.fractal,
        pad=None if view.pad == "null" else view.pad,
        compact=None if view.compact == "null" else view.compact)
    return ir.TileType(tile.shape, tile.dtype, tile.memory_space, tile.memref, tile.valid_shape,
                       None if view.is_empty else view)


def _extracted_result(call: ir.Call) -> ir.Type | None:
    """A window of argument 0 copied into the `target_memory=` space (`ops.EXTRACTED_RESULTS`),
    or None."""
    src = _full_tile(call.args[0]) if len(call.args) == 4 else None
    shape = call.args[3] if src is not None else None
    if src is None or len(src.shape) != 2 or not isinstance(shape, ir.ExprList):
        return None
    dims = [d.value for d in shape.items if isinstance(d, ir.ConstInt) and d.value > 0]
    if len(dims) != 2 or len(shape.items) != 2 or any(d > s for d, s in zip(dims, src.shape, strict=True)):
        return None
    given = call.kwarg("target_memory")
    if given is not None and not isinstance(given, ir.SpaceArg):
        return None
    space = given.space if given is not None else ir.MemorySpace.Vec
    dst = ir.TileType((dims[0], dims[1]), src.dtype, space)
    blayout, slayout, fractal = ir.implicit_layout(dst)
    blayout, slayout = _EXTRACT_LAYOUTS.get(space, (blayout, slayout))
    return _explicit_layout(dst, ir.TileLayoutView(blayout=blayout, slayout=slayout, fractal=fractal))


def _with_layout_of(tile: ir.TileType, src: ir.TileType) -> ir.TileType | None:
    """`tile` with `src`'s block / scatter layouts, pad and compact mode (the reference's
    `InheritTileViewLayout`), or None for a source with strides or a start offset."""
    if src.layout is not None and (src.layout.stride or src.layout.start_offset is not None):
        return None
    blayout, slayout, _ = ir.implicit_layout(src)
    view = src.layout or ir.TileLayoutView()
    return _explicit_layout(tile, ir.TileLayoutView(
        blayout=view.blayout or blayout, slayout=view.slayout or slayout, fractal=ir.implicit_layout(tile)[2],
        pad=view.pad, compact=view.compact))


def _merge_sorted_result(call: ir.Call, shaped: int) -> ir.Type | None:
    """Argument `shaped`'s shape in argument 0's dtype and layouts, in Vec (`ops.MERGE_SORTED_RESULTS`),
    or None."""
    if len(call.args) < 2 or not all(isinstance(a, ir.Var) for a in (call.args[0], call.args[shaped])):
        return None
    src, dst = (cast(ir.Var, call.args[k]).type for k in (0, shaped))
    if not isinstance(src, ir.TileType) or not isinstance(dst, ir.TileType):
        return None
    return _with_layout_of(ir.TileType(dst.shape, src.dtype, ir.MemorySpace.Vec), src)


def _compare_gathered_result(call: ir.Call) -> ir.Type | None:
    """The (indices, counts) tiles of a compare-form gather (`ops.COMPARE_GATHERED_RESULTS`), or
    None."""
    src = call.args[0].type if call.args and isinstance(call.args[0], ir.Var) else None
    cols, counted = call.kwarg("out_cols"), call.kwarg("count_dtype")
    if not isinstance(src, ir.TileType) or len(src.shape) != 2 or not isinstance(cols, ir.ConstInt):
        return None
    if counted is not None and not isinstance(counted, ir.DTypeArg):
        return None
    rows = src.shape[0]
    indices = _with_layout_of(ir.TileType((rows, cols.value), ir.DType.INT32, ir.MemorySpace.Vec), src)
    if indices is None:
        return None
    count_dtype = counted.dtype if counted is not None else ir.DType.INT32
    counts = ir.TileType((1, rows), count_dtype, ir.MemorySpace.Vec)
    row_major = ir.TileLayoutView(blayout="row_major", slayout=ir.implicit_layout(counts)[1],
                                  fractal=ir.implicit_layout(counts)[2])
    return ir.TupleType((indices, _explicit_layout(counts, row_major)))


def _other_handle(annot: ir.Type, inferred: ir.Type) -> bool:
    """An annotation naming another opaque handle than the one the op yields (an AsyncSession
    for the AsyncEvent of `prefetch.async_prefetch`)."""
    return isinstance(annot, ir.OpaqueType) and isinstance(inferred, ir.OpaqueType) and annot != inferred


def _remote_loaded_result(call: ir.Call) -> ir.Type | None:
    """A window of a peer's distributed tensor read into a tile (`ops.REMOTE_LOADED_RESULTS`), or
    None."""
    if len(call.args) not in (4, 5) or not isinstance(call.args[0], ir.Var):
        return None
    src, offsets, shape = call.args[0].type, call.args[2], call.args[3]
    if not isinstance(src, ir.TensorType) or not src.distributed or call.kwarg("allow_physical_tail_padding"):
        return None
    view = src.view
    if view is not None and (view.layout not in ("ND", "DN") or view.pad is not None):
        return None
    if not isinstance(offsets, ir.ExprList) or not isinstance(shape, ir.ExprList):
        return None
    # literal extents; a runtime offset only into a source valid in full (elsewhere the
    # reference's valid shape is a symbolic min: `InferWindowReadValidShape`)
    window = _literals(shape.items)
    starts = [fold_const(e) for e in offsets.items]
    physical: list[int] | None = [d for d in src.shape if isinstance(d, int)]
    if physical is not None and len(physical) != len(src.shape):
        physical = None
    source = _literals(view.valid_shape) if view is not None and view.valid_shape else physical
    wanted: list[int] | None = None
    if len(call.args) == 5:
        requested = call.args[4]
        wanted = _literals(requested.items) if isinstance(requested, ir.ExprList) else None
        if wanted is None:
            return None
    if window is None or physical is None or source is None:
        return None
    rank = len(physical)
    if any(len(x) != rank for x in (window, starts, source, wanted or window)):
        return None
    valid: list[ir.Expr] = []
    for k in range(rank):
        start, reach = starts[k], window[k] if wanted is None else wanted[k]
        if reach > window[k] or (start is not None and (start < 0 or start + reach > physical[k])):
            return None  # the reference rejects this read (`CheckWindowReadDimBounds`)
        if source[k] == physical[k]:
            available = window[k]
        elif start is not None:
            available = min(max(source[k], start) - start, window[k])
        else:
            return None
        valid.append(ir.ConstInt(min(reach, available), ir.DType.INDEX))
    dims = tuple(window)
    tile = ir.TileType(dims, src.dtype, valid_shape=valid_or_none(dims, tuple(valid)))
    blayout, slayout, fractal = ir.implicit_layout(tile)
    if view is not None:
        blayout = "row_major" if view.layout == "ND" else "col_major"
    return _explicit_layout(tile, ir.TileLayoutView(blayout=blayout, slayout=slayout, fractal=fractal))


def _literals(items: tuple[ir.Expr, ...]) -> list[int] | None:
    """The integer values of `items`, or None where one is not a literal."""
    out: list[int] = []
    for e in items:
        n = fold_const(e)
        if n is None:
            return None
        out.append(n)
    return out


_Item = TypeVar("_Item")


def _last_two_swapped(items: tuple[_Item, ...]) -> tuple[_Item, ...]:
    return (*items[:-2], items[-1], items[-2])


def _transpose_viewed_result(call: ir.Call) -> ir.Type | None:
    """Argument 0 viewed as its transpose (`ops.TRANSPOSE_VIEWED_RESULTS`), or None."""
    if len(call.args) != 1 or not isinstance(call.args[0], ir.Var):
        return None
    src = call.args[0].type
    if not isinstance(src, ir.TileType) or len(src.shape) < 2 or src.memref is not None:
        return None
    if src.layout is not None and (src.layout.stride or src.layout.start_offset is not None):
        return None
    blayout, slayout, fractal = ir.implicit_layout(src)
    view = src.layout or ir.TileLayoutView()
    blayout, slayout = view.blayout or blayout, view.slayout or slayout
    fractal = view.fractal if view.fractal is not None else fractal

    valid = None if src.valid_shape is None else _last_two_swapped(src.valid_shape)
    dst = ir.TileType(_last_two_swapped(src.shape), src.dtype, src.memory_space, None, valid)
    flipped = ir.TileLayoutView(blayout=_FLIPPED_MAJOR[blayout], slayout=_FLIPPED_MAJOR[slayout],
                                fractal=fractal, pad=view.pad, compact=view.compact)
    return _explicit_layout(dst, flipped)


def _dim(e: ir.Expr) -> int | ir.Expr | None:
    """A shape argument's entry as a type's dimension, the way the annotation reader reads the
    printed type (`TypeReader.dim`): a constant folds to an int, an INT64 value (`[pld.world_size(),
    1]`) is the reference's INDEX, cast; None for a value of another dtype."""
    value = fold_const(e)
    if value is not None:
        return value
    dtype = ir.expr_dtype(e)
    if dtype is ir.DType.INT64:
        return ir.Cast(e, ir.DType.INDEX, span=getattr(e, "span", ir.NO_SPAN))
    return e if dtype is ir.DType.INDEX else None


def _sliced_result(call: ir.Call) -> ir.Type | None:
    """A window of tensor argument 0 of the `shape` argument, valid in the `valid_shape`
    argument (`ops.SLICED_RESULTS`), or None."""
    if not 3 <= len(call.args) <= 4 or call.kwarg("pad_value") is not None:
        return None
    if not isinstance(call.args[0], ir.Var):
        return None
    src, shape = call.args[0].type, call.args[1]
    if not isinstance(src, ir.TensorType) or not isinstance(shape, ir.ExprList):
        return None
    if src.view is not None and (src.view.valid_shape or src.view.pad not in (None, "null")):
        return None
    dims = [_dim(d) for d in shape.items]
    requested = call.args[3].items if len(call.args) == 4 and isinstance(call.args[3], ir.ExprList) else None
    if len(call.args) == 4 and (requested is None or len(requested) != len(dims)):
        return None
    valid = [_dim(v) for v in requested] if requested is not None else dims
    if any(d is None for d in (*dims, *valid)):
        return None
    shape_dims = tuple(d for d in dims if d is not None)
    valid_exprs = tuple(ir.ConstInt(v, ir.DType.INDEX) if isinstance(v, int) else v for v in valid
                        if v is not None)
    full = all(isinstance(v, int) and v == d for v, d in zip(valid, dims, strict=True))
    view = None if full else ir.TensorView((), "ND", valid_exprs, None)
    return ir.TensorType(shape_dims, src.dtype, view=view, distributed=src.distributed)


def _reshaped_result(call: ir.Call, ref: ops.RefOp) -> ir.Type | None:
    """A tensor of argument 0's dtype and the `shape` argument (`ops.RESHAPED_RESULTS`), or None
    when the call also gives a valid shape (the type would carry it) or its operands are not
    literal enough."""
    k = ref.args.index("shape")
    given = ref.args.index("valid_shape") if "valid_shape" in ref.args else len(ref.args)
    if not k < len(call.args) <= given:
        return None
    src, shape = call.args[0], call.args[k]
    if not isinstance(shape, ir.ExprList) or not isinstance(src, ir.Var):
        return None
    if not isinstance(src.type, ir.TensorType):
        return None
    dims = tuple(d.value if isinstance(d, ir.ConstInt) else d for d in shape.items)
    return ir.TensorType(dims, src.type.dtype)


_DEDUCED_FROM_CALL: tuple[tuple[Collection[str], Callable[[ir.Call], ir.Type | None]], ...] = (
    (ops.TRANSPOSED_RESULTS, _transposed_result),
    (ops.TRANSPOSE_VIEWED_RESULTS, _transpose_viewed_result),
    (ops.EXTRACTED_RESULTS, _extracted_result),
    (ops.COMPARE_GATHERED_RESULTS, _compare_gathered_result),
    (ops.REMOTE_LOADED_RESULTS, _remote_loaded_result),
    (ops.ELEMENTWISE_TENSOR_RESULTS, _elementwise_tensor_result),
    (ops.VIEWED_RESULTS, _viewed_result),
    (ops.REINTERPRETED_RESULTS, _reinterpreted_result),
    (ops.REVALIDATED_RESULTS, _revalidated_result),
    (ops.COLUMN_REDUCED_RESULTS, _column_reduced_result),
    (ops.ROW_REDUCED_RESULTS, _row_reduced_result),
    (ops.ELEMENTWISE_TILE_RESULTS, _elementwise_tile_result),
)
"""The ops whose result type `_from_operands` deduces from the call alone, each table with its
deduction. No op is in two of `_from_operands`'s tables, so their order decides nothing (a test
pins it)."""
