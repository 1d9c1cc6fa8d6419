"""A small `pto` dialect for xdsl: the ops and types slotsat's code generator emits.

Spec `30-pto-codegen.md` §5 (the emitted module) and `40-ptoas-slot-matcher.md` §1 (the
multi-buffer IR and its verifiers). The dialect exists so that every emitted module can be
parsed, verified and printed back by xdsl (`round_trip`), which is how the tests check that
the emitted text is well formed in shape.

Types (parametrized attributes with custom syntax, printed exactly as ptoas prints them):

- `!pto.ptr<f32>`
- `!pto.tensor_view<?x?xf32>`, `!pto.partition_tensor_view<64x64xf32>`
- `!pto.tile_buf<loc=vec, dtype=f32, rows=64, cols=64, v_row=?, v_col=?, blayout=row_major,
  slayout=none_box, fractal=512, pad=0>`, with an optional trailing `compact=N`
- `!pto.local_array<4xi32>` (an on-core scalar array)
- `!pto.multi_tile_buf<TILE_BUF, count=N>`, whose verifier is ptoas's type verifier
  (`multi_tile_buf count must be >= 2 (got N)` / `... <= 16 (got N)`).

Attributes: `#pto.kernel_kind<vector|cube>`, `#pto.layout<nd>`.

Ops, each with xdsl's declarative `assembly_format` spelling the emitted text (types keep
hand-written `parse_parameters` / `print_parameters`: xdsl's attribute formats have no
parameter directives):

- `pto.make_tensor_view %p, shape = [...], strides = [...] {layout = ...} : TV` (the
  pointer's type is not printed: it is the `!pto.ptr` of the view's element type)
- `pto.partition_view %tv, offsets = [...], sizes = [...] : TV -> PV`
- `pto.alloc_tile [addr = %a] [valid_row = %r] [valid_col = %c] : TB`
- `pto.alloc_multi_tile [addr = %a] [valid_row = %r] [valid_col = %c] : MTB` (count check)
- `pto.multi_tile_get %mb[%slot] : MTB -> TB` (constant-slot range, result type == slot type)
- `pto.treshape %src : TB -> TB`;
- `pto.subview %src[%o0, %o1] sizes [R, C] valid [%r, %c] : TB -> TB` (the `valid` clause
  optional);
- the destination-style ops of ptoas (`DPS_OP_NAMES`: `pto.tload`, `pto.tstore`, `pto.tmov`,
  the matmuls and every `pto.t*` compute op codegen's spelling table emits):
  `ins(%a, %b : A, B) outs(%c : C) {attrs}`, and those that print their attributes inside
  `ins(...)` (`DPS_ATTR_INS_OP_NAMES`: `pto.tcvt ins(%a {rmode = #pto<round_mode ROUND>} :
  A) outs(%c : C)`, `pto.tcmp`, `pto.tcmps`), `pto.ttri` (`TTriOp`, in MLIR's generic
  form: an integer diagonal and the destination) and `pto.trandom` (`TRandomOp`: six i32
  words and the destination, with a `rounds` attribute in MLIR's generic form);
- `%v = pto.tgetval ins(%t, %off : TB, index) outs : DT`, `pto.set_validshape %t, %r, %c :
  TB`, `%v = pto.load_scalar %p[%off] : !pto.ptr<DT> -> DT`, `pto.store_scalar %v, %p[%off] :
  !pto.ptr<DT>, DT`;
- the on-core arrays (`LOCAL_ARRAY_OPS`): `%a = pto.declare_local_array -> LA`,
  `%v = pto.local_array_get %a[%i] : LA -> DT`, `pto.local_array_set %a[%i], %v : LA, DT`;
- the cross-core pipe ops (`PIPE_OPS`): `pto.aic_initialize_pipe` / `pto.aiv_initialize_pipe`,
  `pto.tpush_to_aiv` / `_aic`, `pto.tpop_from_aic` / `_aiv`, `pto.tfree_from_aic` / `_aiv`,
  `pto.reserve_buffer`, `pto.import_reserved_buffer`, `pto.syncall() mode = ..., core_type =
  ...`, each in `assembly_format` (the reference's `id` / `slot_num` / `local_slot_num`
  attributes included), and `pto.sync.set` / `pto.sync.wait <PIPE_X>, EVENT` (hand-written:
  the event is a literal or an operand), `pto.set_ffts %ws : !pto.ptr<i64>`;
- ptoas's enum attributes `#pto<round_mode X>`, `#pto<cmp X>`, `#pto<atomic_type X>`
  (`ENUM_CASES`, the cases of `PTOAttrs.td`).

The op lists are ptoas's op definitions as data; `tests/codegen/test_pto_spelling.py` checks
that every op the spelling table emits is declared here, and (given a ptoas checkout) that
every op and enum case declared here is in ptoas's `.td` files.

Beside the dialect, `make_context()` loads `arith.index_castui` (`IndexCastUIOp`), which MLIR's
`arith` has and xdsl's does not: codegen widens an unsigned scalar to `index` with it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import ClassVar, Self, cast

from xdsl.context import Context
from xdsl.dialects.arith import ConstantOp
from xdsl.dialects.builtin import (
    I8,
    I32,
    I64,
    BoolAttr,
    DenseArrayBase,
    Float32Type,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    SymbolRefAttr,
    VectorType,
    i1,
    i8,
    i32,
    i64,
)
from xdsl.ir import (
    Attribute,
    Dialect,
    ParametrizedAttribute,
    SpacedOpaqueSyntaxAttribute,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    AnyAttr,
    AttrSizedOperandSegments,
    IRDLOperation,
    ParamAttrConstraint,
    VarConstraint,
    base,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_attr_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from slotsat.analysis.matcher import constant_slot_error, region_count_error

# --------------------------------------------------------------------------------------
# types


def _parse_ident(parser: AttrParser) -> str:
    ident = parser.parse_optional_identifier()
    if ident is None:
        parser.raise_error("expected an identifier")
    return ident


def _print_dims(printer: Printer, dims: Sequence[int]) -> None:
    printer.print_string("".join(("?" if d < 0 else str(d)) + "x" for d in dims))


@irdl_attr_definition
class PtrType(ParametrizedAttribute, TypeAttribute):
    """`!pto.ptr<DT>`: a global-memory pointer (a tensor parameter)."""

    name = "pto.ptr"
    element_type: Attribute

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return (parser.parse_type(),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.element_type)


class _ShapedViewType(ParametrizedAttribute, TypeAttribute):
    """Shared syntax `<D0xD1xDT>` with `?` for a dynamic dimension (stored as -1)."""

    shape: Attribute
    element_type: Attribute

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        from xdsl.dialects.builtin import ArrayAttr

        with parser.in_angle_brackets():
            dims, element = parser.parse_ranked_shape()
        return (ArrayAttr([IntAttr(d) for d in dims]), element)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            _print_dims(printer, self.dims)
            printer.print_attribute(self.element_type)

    @property
    def dims(self) -> tuple[int, ...]:
        from xdsl.dialects.builtin import ArrayAttr

        shape = cast(ArrayAttr[IntAttr], self.shape)
        return tuple(d.data for d in shape.data)


@irdl_attr_definition
class TensorViewType(_ShapedViewType):
    """`!pto.tensor_view<?x?xDT>` (rank 2) or `!pto.tensor_view<?xDT>` (rank 1)."""

    name = "pto.tensor_view"


@irdl_attr_definition
class PartitionTensorViewType(_ShapedViewType):
    """`!pto.partition_tensor_view<RxCxDT>`."""

    name = "pto.partition_tensor_view"


@irdl_attr_definition
class LocalArrayType(_ShapedViewType):
    """`!pto.local_array<NxDT>`: an on-core scalar array (`pto.declare_local_array`)."""

    name = "pto.local_array"


_TILE_KEYS = ("loc", "dtype", "rows", "cols", "v_row", "v_col", "blayout", "slayout", "fractal", "pad")


@irdl_attr_definition
class TileBufType(ParametrizedAttribute, TypeAttribute):
    """`!pto.tile_buf<loc=..., dtype=..., rows=R, cols=C, v_row=?, v_col=?, blayout=...,
    slayout=..., fractal=F, pad=P>` with the keys in exactly this order (`30-...` §5.2)."""

    name = "pto.tile_buf"
    loc: StringAttr
    dtype: Attribute
    rows: IntAttr
    cols: IntAttr
    v_row: StringAttr
    v_col: StringAttr
    blayout: StringAttr
    slayout: StringAttr
    fractal: IntAttr
    pad: IntAttr
    compact: IntAttr
    """ptoas's `compact=N` key, printed only when not 0 (the reference's CompactMode null)."""

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        values: list[Attribute] = []
        with parser.in_angle_brackets():
            for index, key in enumerate(_TILE_KEYS):
                if index:
                    parser.parse_punctuation(",")
                parser.parse_keyword(key)
                parser.parse_punctuation("=")
                if key == "dtype":
                    values.append(parser.parse_type())
                elif key in ("rows", "cols", "fractal", "pad"):
                    values.append(IntAttr(parser.parse_integer(allow_boolean=False)))
                elif key in ("v_row", "v_col"):
                    if parser.parse_optional_punctuation("?") is not None:
                        values.append(StringAttr("?"))
                    else:
                        values.append(StringAttr(str(parser.parse_integer(allow_boolean=False))))
                else:
                    values.append(StringAttr(_parse_ident(parser)))
            compact = 0
            if parser.parse_optional_punctuation(",") is not None:
                parser.parse_keyword("compact")
                parser.parse_punctuation("=")
                compact = parser.parse_integer(allow_boolean=False)
            values.append(IntAttr(compact))
        return values

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            keyed = zip(_TILE_KEYS, self.parameters[:len(_TILE_KEYS)], strict=True)
            for index, (key, value) in enumerate(keyed):
                if index:
                    printer.print_string(", ")
                printer.print_string(f"{key}=")
                if isinstance(value, StringAttr):
                    printer.print_string(value.data)
                elif isinstance(value, IntAttr):
                    printer.print_string(str(value.data))
                else:
                    printer.print_attribute(value)
            if self.compact.data:
                printer.print_string(f", compact={self.compact.data}")


@irdl_attr_definition
class MultiTileBufType(ParametrizedAttribute, TypeAttribute):
    """`!pto.multi_tile_buf<TILE_BUF, count=N>`; ptoas's type verifier checks `2 <= N <= 16`."""

    name = "pto.multi_tile_buf"
    slot: TileBufType
    count: IntAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            slot = parser.parse_type()
            parser.parse_punctuation(",")
            parser.parse_keyword("count")
            parser.parse_punctuation("=")
            count = parser.parse_integer(allow_boolean=False)
        return (slot, IntAttr(count))

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.slot)
            printer.print_string(f", count={self.count.data}")

    def verify(self) -> None:
        message = region_count_error(self.count.data, "type")
        if message is not None:
            raise VerifyException(message)


class _KeywordAttr(ParametrizedAttribute):
    """`#pto.NAME<keyword>`."""

    value: StringAttr
    ALLOWED: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return (StringAttr(_parse_ident(parser)),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(self.value.data)

    def verify(self) -> None:
        if self.value.data not in self.ALLOWED:
            raise VerifyException(f"#{self.name} must be one of {', '.join(self.ALLOWED)}")


@irdl_attr_definition
class FenceScopeAttr(_KeywordAttr):
    """`#pto.fence_scope<gm>`: the memory a `pto.fence.barrier_all` orders."""

    name = "pto.fence_scope"
    ALLOWED: ClassVar[tuple[str, ...]] = ("gm",)


@irdl_attr_definition
class AddressSpaceAttr(_KeywordAttr):
    """`#pto.address_space<gm>`: the memory a whole-space `pto.cmo.cacheinvalid all` covers;
    `vec` / `mat`: where a `pto.reserve_buffer` places a pipe's consumer slots."""

    name = "pto.address_space"
    ALLOWED: ClassVar[tuple[str, ...]] = ("gm", "vec", "mat")


@irdl_attr_definition
class KernelKindAttr(_KeywordAttr):
    name = "pto.kernel_kind"
    ALLOWED: ClassVar[tuple[str, ...]] = ("vector", "cube")


@irdl_attr_definition
class LayoutAttr(_KeywordAttr):
    name = "pto.layout"
    ALLOWED: ClassVar[tuple[str, ...]] = ("nd", "dn", "nz")


@irdl_attr_definition
class MaskPatternAttr(_KeywordAttr):
    """`#pto.mask_pattern<P0101>`: which elements of each group a mask-form `pto.tgather`
    keeps (ptoas's `MaskPattern`; PyPTO's `mask_patterns` table, keyword values 1 to 7)."""

    name = "pto.mask_pattern"
    ALLOWED: ClassVar[tuple[str, ...]] = ("P0101", "P1010", "P0001", "P0010", "P0100", "P1000", "P1111")


class _EnumAttr(ParametrizedAttribute, SpacedOpaqueSyntaxAttribute):
    """ptoas's enum attributes, printed `#pto<MNEMONIC CASE>` (`PTOAttrs.td` `EnumAttr`)."""

    value: StringAttr
    CASES: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        return (StringAttr(_parse_ident(parser)),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(self.value.data)

    def verify(self) -> None:
        if self.value.data not in self.CASES:
            raise VerifyException(
                f"#{self.name} must be one of {', '.join(self.CASES)}, got {self.value.data}")


def _enum_attr(mnemonic: str, cases: tuple[str, ...]) -> type[_EnumAttr]:
    class_name = "".join(part.capitalize() for part in mnemonic.split("_")) + "Attr"
    body = {"name": f"pto.{mnemonic}", "CASES": cases, "__module__": __name__}
    return irdl_attr_definition(type(class_name, (_EnumAttr,), body))


ENUM_CASES: dict[str, tuple[str, ...]] = {
    "round_mode": ("NONE", "RINT", "ROUND", "FLOOR", "CEIL", "TRUNC", "ODD", "CAST_RINT"),
    "cmp": ("eq", "ne", "lt", "le", "gt", "ge"),
    "atomic_type": ("atomic_none", "atomic_add"),
    "notify_op": ("set", "atomic_add"),
    "wait_cmp": ("eq", "ge"),
    "acc_phase": ("partial", "final"),
    "coalesce": ("row", "elem"),
    "gather_oob": ("undefined", "clamp", "wrap", "zero"),
    "div_precision": ("high_precision",),
    "log_precision": ("high_precision",),
    "recip_precision": ("high_precision",),
}
"""The enum attributes slotsat emits and their cases, as `PTOAttrs.td` spells them."""

ENUM_ATTRS: tuple[type[_EnumAttr], ...] = tuple(_enum_attr(m, cases) for m, cases in ENUM_CASES.items())


# --------------------------------------------------------------------------------------
# ops: xdsl's declarative `assembly_format` wherever it spells ptoas's syntax


_ELEMENT = VarConstraint("ELEMENT", AnyAttr())
"""A tensor view's element type, which is its pointer's (the pointer's type is never printed)."""


@irdl_op_definition
class MakeTensorViewOp(IRDLOperation):
    """`pto.make_tensor_view %p, shape = [...], strides = [...] {layout = ...} : TV`: ptoas
    prints no type for `%p`; it is the `!pto.ptr` of the view's element type."""

    name = "pto.make_tensor_view"
    ptr = operand_def(ParamAttrConstraint(PtrType, (_ELEMENT,)))
    shape = var_operand_def(IndexType)
    strides = var_operand_def(IndexType)
    result = result_def(ParamAttrConstraint(TensorViewType, (AnyAttr(), _ELEMENT)))
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    assembly_format = (
        "$ptr `,` `shape` `=` `[` $shape `]` `,` `strides` `=` `[` $strides `]` attr-dict `:` type($result)"
    )

    def verify_(self) -> None:
        view = self.result.type
        if len(self.shape) != len(view.dims) or len(self.strides) != len(view.dims):
            raise VerifyException("shape and strides must have one entry per tensor_view dimension")


@irdl_op_definition
class PartitionViewOp(IRDLOperation):
    """`pto.partition_view %tv, offsets = [...], sizes = [...] : TV -> PV`."""

    name = "pto.partition_view"
    source = operand_def(TensorViewType)
    offsets = var_operand_def(IndexType)
    sizes = var_operand_def(IndexType)
    result = result_def(PartitionTensorViewType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    assembly_format = (
        "$source `,` `offsets` `=` `[` $offsets `]` `,` `sizes` `=` `[` $sizes `]` attr-dict "
        "`:` type($source) `->` type($result)"
    )

    def verify_(self) -> None:
        view = self.result.type
        if len(self.offsets) != len(view.dims) or len(self.sizes) != len(view.dims):
            raise VerifyException("offsets and sizes must have one entry per partition dimension")


class _AllocBase(IRDLOperation):
    """`[addr = %a] [valid_row = %r] [valid_col = %c] : TYPE`."""

    addr = opt_operand_def(I64)
    valid_row = opt_operand_def(IndexType)
    valid_col = opt_operand_def(IndexType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    assembly_format = (
        "(`addr` `=` $addr^)? (`valid_row` `=` $valid_row^)? (`valid_col` `=` $valid_col^)? "
        "attr-dict `:` type($result)"
    )


@irdl_op_definition
class AllocTileOp(_AllocBase):
    name = "pto.alloc_tile"
    result = result_def(TileBufType)


@irdl_op_definition
class AllocMultiTileOp(_AllocBase):
    name = "pto.alloc_multi_tile"
    result = result_def(MultiTileBufType)

    def verify_(self) -> None:
        region = self.result.type
        message = region_count_error(region.count.data, "alloc")
        if message is not None:
            raise VerifyException(message)
        if region.slot.v_row.data == "?" and self.valid_row is None:
            raise VerifyException("valid_row is required when the slot type's v_row is ?")
        if region.slot.v_col.data == "?" and self.valid_col is None:
            raise VerifyException("valid_col is required when the slot type's v_col is ?")


def _constant_index(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, ConstantOp) and isinstance(owner.value, IntegerAttr):
        return cast(IntegerAttr[IntegerType], owner.value).value.data
    return None


@irdl_op_definition
class MultiTileGetOp(IRDLOperation):
    """`pto.multi_tile_get %mb[%slot] : MTB -> TB`."""

    name = "pto.multi_tile_get"
    source = operand_def(MultiTileBufType)
    slot = operand_def(IndexType)
    result = result_def(TileBufType)

    assembly_format = "$source `[` $slot `]` attr-dict `:` type($source) `->` type($result)"

    def verify_(self) -> None:
        region = cast(MultiTileBufType, self.source.type)
        if self.result.type != region.slot:
            raise VerifyException("multi_tile_get result type must equal the slot type of its region")
        constant = _constant_index(self.slot)
        if constant is not None:
            message = constant_slot_error(constant, region.count.data)
            if message is not None:
                raise VerifyException(message)


@irdl_op_definition
class TReshapeOp(IRDLOperation):
    """`%r = pto.treshape %src : SRC -> RES` (a view of the source's bytes)."""

    name = "pto.treshape"
    source = operand_def(TileBufType)
    result = result_def(TileBufType)

    assembly_format = "$source attr-dict `:` type($source) `->` type($result)"


@irdl_op_definition
class SubViewOp(IRDLOperation):
    """`%r = pto.subview %src[%o0, %o1] sizes [R, C] : SRC -> RES` (ptoas's custom format)."""

    name = "pto.subview"
    source = operand_def(TileBufType)
    offsets = var_operand_def(IndexType)
    valid = var_operand_def(IndexType)
    sizes = prop_def(DenseArrayBase.constr(i64))
    result = result_def(TileBufType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    assembly_format = (
        "$source `[` $offsets `]` `sizes` $sizes (`valid` ` ` `[` $valid^ `]`)? attr-dict "
        "`:` type($source) `->` type($result)"
    )

    def verify_(self) -> None:
        if len(self.valid) not in (0, 2):
            raise VerifyException("pto.subview takes no valid extent or a row and a column")


# --------------------------------------------------------------------------------------
# destination-style ops: `ins(%a, %b : A, B) outs(%c : C)`


class DpsOp(IRDLOperation):
    """A destination-passing-style op with no results."""

    ins = var_operand_def()
    outs = var_operand_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    assembly_format = "`ins` `(` $ins `:` type($ins) `)` `outs` `(` $outs `:` type($outs) `)` attr-dict"

    def verify_(self) -> None:
        if len(self.outs) != 1:
            raise VerifyException(f"{self.name} writes exactly one destination")


class DpsAttrInsOp(DpsOp):
    """A destination-style op whose attribute dictionary ptoas prints inside `ins(...)`, before
    the colon (`pto.tcvt ins(%a {rmode = #pto<round_mode ROUND>} : A) outs(%c : C)`)."""

    assembly_format = "`ins` `(` $ins attr-dict `:` type($ins) `)` `outs` `(` $outs `:` type($outs) `)`"


def _dps_op(op_name: str, base: type[DpsOp] = DpsOp) -> type[DpsOp]:
    class_name = "".join(part.capitalize() for part in op_name.replace(".", "_").split("_")) + "Op"
    return irdl_op_definition(type(class_name, (base,), {"name": op_name, "__module__": __name__}))


DPS_OP_NAMES: tuple[str, ...] = (
    "pto.tload", "pto.tstore", "pto.tmov", "pto.tmatmul", "pto.tmatmul.acc", "pto.tmatmul.bias",
    "pto.tgemv", "pto.tgemv.acc", "pto.tgemv.bias",
    "pto.tabs", "pto.texp", "pto.tlog", "pto.tsqrt", "pto.trsqrt", "pto.trecip", "pto.tneg", "pto.tnot",
    "pto.trelu",
    "pto.tadd", "pto.tsub", "pto.tmul", "pto.tdiv", "pto.tmax", "pto.tmin", "pto.tfmod", "pto.trem",
    "pto.tand", "pto.tor", "pto.txor", "pto.tshl", "pto.tshr",
    "pto.tadds", "pto.tsubs", "pto.tmuls", "pto.tdivs", "pto.tmaxs", "pto.tmins", "pto.tfmods", "pto.trems",
    "pto.tands", "pto.tors", "pto.txors", "pto.tshls", "pto.tshrs",
    "pto.tlrelu", "pto.tprelu", "pto.taddc", "pto.tsubc", "pto.taddsc", "pto.tsubsc",
    "pto.tpartadd", "pto.tpartmul", "pto.tpartmax", "pto.tpartmin",
    "pto.trowsum", "pto.trowmax", "pto.trowmin", "pto.trowprod", "pto.trowargmax", "pto.trowargmin",
    "pto.tcolmax", "pto.tcolmin", "pto.tcolprod", "pto.tcolargmax", "pto.tcolargmin",
    "pto.trowexpand", "pto.trowexpandadd", "pto.trowexpandsub", "pto.trowexpandmul", "pto.trowexpanddiv",
    "pto.trowexpandmax", "pto.trowexpandmin", "pto.trowexpandexpdif",
    "pto.tcolexpand", "pto.tcolexpandadd", "pto.tcolexpandsub", "pto.tcolexpandmul", "pto.tcolexpanddiv",
    "pto.tcolexpandmax", "pto.tcolexpandmin", "pto.tcolexpandexpdif",
    "pto.texpands", "pto.textract", "pto.tfillpad", "pto.tfillpad_expand", "pto.ttrans", "pto.tconcat",
    "pto.tsel", "pto.tsels", "pto.tsetval", "pto.tci", "pto.tsort32", "pto.tinsert", "pto.mscatter",
    "pto.tgatherb", "pto.mgather",
)
"""ptoas's destination-style ops of the form `ins(...) outs(...) attr-dict` (`PTOOps.td`)."""

DPS_ATTR_INS_OP_NAMES: tuple[str, ...] = ("pto.tcvt", "pto.tcmp", "pto.tcmps", "pto.tcolsum")
"""Those that print their attribute dictionary inside `ins(...)` (`PTOOps.td`, `PTO.cpp`)."""

DPS_OPS: tuple[type[DpsOp], ...] = (
    *(_dps_op(name) for name in DPS_OP_NAMES),
    *(_dps_op(name, DpsAttrInsOp) for name in DPS_ATTR_INS_OP_NAMES),
)


@irdl_op_definition
class TTriOp(IRDLOperation):
    """`"pto.ttri"(%d, %dst) {upperOrLower = U : i32} : (i32, TB) -> ()`: the triangular mask
    (ptoas's `TTriOp`, 0 lower, 1 upper) in MLIR's generic form, the one the reference prints
    (it notes ptoas accepts the selector attribute only there), so the op has no custom format
    here: its operands are the integer diagonal and the destination."""

    name = "pto.ttri"
    diagonal = operand_def(IntegerType)
    dst = operand_def()
    upper_or_lower = opt_attr_def(IntegerAttr[I32], attr_name="upperOrLower")

    def verify_(self) -> None:
        flag = self.upper_or_lower
        if flag is not None and flag.value.data not in (0, 1):
            raise VerifyException(f"{self.name} upperOrLower must be 0 (lower) or 1 (upper)")


TRANDOM_ROUNDS = (7, 10)
"""The cipher round counts `pto.trandom` takes (ptoas's `TRandomOp::verify`); without the
attribute it runs 10 (`DefaultValuedAttr`)."""


@irdl_op_definition
class TRandomOp(IRDLOperation):
    """`pto.trandom ins(%k0, %k1, %c0, %c1, %c2, %c3 : i32, ...) outs(%dst : TB)`: the random
    tile of two key and four counter words (ptoas's `TRandomOp`) at its default 10 cipher
    rounds. Another count is written in MLIR's generic form, `"pto.trandom"(%k0, ..., %c3,
    %dst) {rounds = N : i32} : (i32, ..., TB) -> ()`, as the reference prints it; this op prints
    that case as `pto.trandom(%k0, ..., %dst) {rounds = N : i32} : (...) -> ()`, the generic
    form without the quotes (it reads both, and `normalize` drops the quotes), so a module
    prints back as it was written. ptoas's own custom format, an attribute dictionary before
    the colon inside `ins(...)`, is read too."""

    name = "pto.trandom"
    key0 = operand_def(IntegerType)
    key1 = operand_def(IntegerType)
    counter0 = operand_def(IntegerType)
    counter1 = operand_def(IntegerType)
    counter2 = operand_def(IntegerType)
    counter3 = operand_def(IntegerType)
    dst = operand_def()
    rounds = opt_attr_def(IntegerAttr[I32])

    WORDS: ClassVar[int] = 6

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        if parser.parse_optional_keyword("ins") is not None:
            parser.parse_punctuation("(")
            names = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
            attrs = dict(parser.parse_optional_attr_dict())
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
            parser.parse_punctuation(")")
            parser.parse_keyword("outs")
            parser.parse_punctuation("(")
            names.append(parser.parse_unresolved_operand())
            parser.parse_punctuation(":")
            types.append(parser.parse_type())
            parser.parse_punctuation(")")
        else:
            names = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
            attrs = dict(parser.parse_optional_attr_dict())
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
            parser.parse_punctuation("->")
            parser.parse_punctuation("(")
            parser.parse_punctuation(")")
        if len(names) != cls.WORDS + 1 or len(types) != len(names):
            parser.raise_error(f"pto.trandom takes {cls.WORDS} words and a destination, each with its type")
        operands = [parser.resolve_operand(n, t) for n, t in zip(names, types, strict=True)]
        return cls.build(operands=operands, attributes=attrs)

    def print(self, printer: Printer) -> None:
        words = list(self.operands[: self.WORDS])
        if self.rounds is None:
            printer.print_string(" ins(")
            printer.print_list(words, printer.print_operand)
            printer.print_string(" : ")
            printer.print_list([v.type for v in words], printer.print_attribute)
            printer.print_string(") outs(")
            printer.print_operand(self.dst)
            printer.print_string(" : ")
            printer.print_attribute(self.dst.type)
            printer.print_string(")")
            return
        printer.print_string("(")
        printer.print_list(self.operands, printer.print_operand)
        printer.print_string(")")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : (")
        printer.print_list([v.type for v in self.operands], printer.print_attribute)
        printer.print_string(") -> ()")

    def verify_(self) -> None:
        rounds = self.rounds
        if rounds is not None and rounds.value.data not in TRANDOM_ROUNDS:
            raise VerifyException(f"{self.name} expects rounds to be 7 or 10")


class _GatherScatterSyntax(IRDLOperation):
    """The syntax `pto.tgather` and `pto.tscatter` share: `ins(%a, %b, ... : TB, TB, ...)
    outs(%dst : TB) attr-dict`, or the mask form `ins(%src, {maskPattern = ...} : TB, "row")
    outs(%dst : TB)`, whose attribute dictionary follows the source after a comma and whose
    axis string follows the source's type; not expressible in xdsl's declarative format (an
    attribute dictionary inside a comma-separated list, a literal after the types)."""

    ins = var_operand_def()
    outs = var_operand_def()
    axis = opt_prop_def(StringAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    AXES: ClassVar[tuple[str, ...]] = ("row",)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        parser.parse_keyword("ins")
        parser.parse_punctuation("(")
        names = [parser.parse_unresolved_operand()]
        attrs: dict[str, Attribute] = {}
        while parser.parse_optional_punctuation(",") is not None:
            dictionary = parser.parse_optional_attr_dict()
            if dictionary:
                attrs = dict(dictionary)
                break
            names.append(parser.parse_unresolved_operand())
        parser.parse_punctuation(":")
        types = [parser.parse_type()]
        axis: StringAttr | None = None
        while parser.parse_optional_punctuation(",") is not None:
            text = parser.parse_optional_str_literal()
            if text is not None:
                axis = StringAttr(text)
                break
            types.append(parser.parse_type())
        parser.parse_punctuation(")")
        if len(types) != len(names):
            parser.raise_error(f"expected {len(names)} operand types but had {len(types)}")
        ins = [parser.resolve_operand(n, t) for n, t in zip(names, types, strict=True)]
        parser.parse_keyword("outs")
        parser.parse_punctuation("(")
        out_names = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
        parser.parse_punctuation(":")
        out_types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        parser.parse_punctuation(")")
        if len(out_types) != len(out_names):
            parser.raise_error(f"expected {len(out_names)} operand types but had {len(out_types)}")
        outs = [parser.resolve_operand(n, t) for n, t in zip(out_names, out_types, strict=True)]
        if not attrs:
            attrs = dict(parser.parse_optional_attr_dict())
        properties: dict[str, Attribute] = {} if axis is None else {"axis": axis}
        return cls.build(operands=[ins, outs], attributes=attrs, properties=properties)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ins(")
        printer.print_list(self.ins, printer.print_operand)
        if self.axis is not None:
            printer.print_string(", ")
            printer.print_attr_dict(self.attributes)
        printer.print_string(" : ")
        printer.print_list([v.type for v in self.ins], printer.print_attribute)
        if self.axis is not None:
            printer.print_string(", ")
            printer.print_attribute(self.axis)
        printer.print_string(") outs(")
        printer.print_list(self.outs, printer.print_operand)
        printer.print_string(" : ")
        printer.print_list([v.type for v in self.outs], printer.print_attribute)
        printer.print_string(")")
        if self.axis is None:
            printer.print_op_attributes(self.attributes)


@irdl_op_definition
class TGatherOp(_GatherScatterSyntax):
    """`pto.tgather`, two of ptoas's forms: the index form `ins(%src, %indices, %tmp : TB, TB,
    TB) outs(%dst : TB)`, and the mask form `ins(%src, {maskPattern = #pto.mask_pattern<P0101>} :
    TB, "row") outs(%dst : TB)`, whose attribute dictionary follows the source after a comma and
    whose axis string follows the source's type (PyPTO's backend, `MakeGatherMaskCodegenPTO`;
    the syntax is `_GatherScatterSyntax`'s)."""

    name = "pto.tgather"

    def verify_(self) -> None:
        if len(self.outs) != 1:
            raise VerifyException("pto.tgather writes exactly one destination")
        mask = self.attributes.get("maskPattern")
        if self.axis is None:
            if mask is not None:
                raise VerifyException("pto.tgather's mask form names its axis (\"row\") after the "
                                      "source's type")
            return
        if self.axis.data not in self.AXES:
            raise VerifyException(f"pto.tgather's mask form gathers along {', '.join(self.AXES)}")
        if len(self.ins) != 1 or not isinstance(mask, MaskPatternAttr):
            raise VerifyException("pto.tgather's mask form takes one source and a "
                                  "maskPattern = #pto.mask_pattern<...>")


@irdl_op_definition
class TScatterOp(_GatherScatterSyntax):
    """`pto.tscatter`, the inverse of the gather in the same two syntaxes: the index form
    `ins(%src, %indexes : TB, TB) outs(%dst : TB)` (`PTOOps.td`) and the mask form `ins(%src,
    {maskPattern = #pto.mask_pattern<P0101>} : TB, "row") outs(%dst : TB)`, which writes `src`'s
    rows into the pattern's columns of `dst` (PyPTO's backend, `MakeScatterMaskCodegenPTO`, for
    the ptoas whose row axis it names; the project's ptoas checkout has the index form only)."""

    name = "pto.tscatter"

    def verify_(self) -> None:
        if len(self.outs) != 1:
            raise VerifyException("pto.tscatter writes exactly one destination")
        mask = self.attributes.get("maskPattern")
        if self.axis is None:
            if mask is not None or len(self.ins) != 2:
                raise VerifyException("pto.tscatter's index form takes a source and its indexes; the mask "
                                      "form names its axis (\"row\") after the source's type")
            return
        if self.axis.data not in self.AXES:
            raise VerifyException(f"pto.tscatter's mask form scatters along {', '.join(self.AXES)}")
        if len(self.ins) != 1 or not isinstance(mask, MaskPatternAttr):
            raise VerifyException("pto.tscatter's mask form takes one source and a "
                                  "maskPattern = #pto.mask_pattern<...>")


@irdl_op_definition
class TMrgSortOp(IRDLOperation):
    """`pto.tmrgsort`, both of ptoas's forms (`PTOOps.td`): format 1 `ins(%src, %block_len :
    TB, i32) outs(%dst : TB)`; format 2, a 2- to 4-way merge, `ins(%src0, ..., %tmp {exhausted
    = B} : TB...) outs(%dst, %executed : TB, vector<4xi16>)`, whose second destination is the
    executed-status vector (PyPTO's backend, `MakeMrgSortCodegenPTO`)."""

    name = "pto.tmrgsort"
    ins = var_operand_def()
    outs = var_operand_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    assembly_format = "`ins` `(` $ins attr-dict `:` type($ins) `)` `outs` `(` $outs `:` type($outs) `)`"

    def verify_(self) -> None:
        if len(self.outs) == 1:
            return
        status = VectorType(IntegerType(16), [4])
        if len(self.outs) != 2 or self.outs[1].type != status:
            raise VerifyException("pto.tmrgsort writes its destination tile and, in format 2, the "
                                  "executed-status vector<4xi16>")
        if not 3 <= len(self.ins) <= 5:
            raise VerifyException("pto.tmrgsort format 2 merges 2 to 4 sources, with a scratch tile last")


@irdl_op_definition
class TGetValOp(IRDLOperation):
    """`%v = pto.tgetval ins(%tile, %offset : TB, index) outs : DT` (a scalar of the tile)."""

    name = "pto.tgetval"
    src = operand_def(TileBufType)
    offset = operand_def(IndexType)
    result = result_def()

    assembly_format = (
        "`ins` `(` $src `,` $offset `:` type($src) `,` type($offset) `)` `outs` `:` type($result) attr-dict"
    )


@irdl_op_definition
class DeclareLocalArrayOp(IRDLOperation):
    """`%a = pto.declare_local_array -> !pto.local_array<NxDT>`."""

    name = "pto.declare_local_array"
    result = result_def(LocalArrayType)

    assembly_format = "`->` type($result) attr-dict"


@irdl_op_definition
class LocalArrayGetOp(IRDLOperation):
    """`%v = pto.local_array_get %a[%i] : !pto.local_array<NxDT> -> DT`."""

    name = "pto.local_array_get"
    array = operand_def(LocalArrayType)
    index = operand_def(IndexType)
    result = result_def()

    assembly_format = "$array `[` $index `]` attr-dict `:` type($array) `->` type($result)"


@irdl_op_definition
class LocalArraySetOp(IRDLOperation):
    """`pto.local_array_set %a[%i], %v : !pto.local_array<NxDT>, DT` (in place on the array)."""

    name = "pto.local_array_set"
    array = operand_def(LocalArrayType)
    index = operand_def(IndexType)
    value = operand_def()

    assembly_format = "$array `[` $index `]` `,` $value attr-dict `:` type($array) `,` type($value)"


LOCAL_ARRAY_OPS: tuple[type[IRDLOperation], ...] = (DeclareLocalArrayOp, LocalArrayGetOp, LocalArraySetOp)


@irdl_op_definition
class SetValidShapeOp(IRDLOperation):
    """`pto.set_validshape %tile, %rows, %cols : TB` (the tile's runtime valid extent)."""

    name = "pto.set_validshape"
    source = operand_def(TileBufType)
    valid_row = operand_def(IndexType)
    valid_col = operand_def(IndexType)

    assembly_format = "$source `,` $valid_row `,` $valid_col attr-dict `:` type($source)"


@irdl_op_definition
class LoadScalarOp(IRDLOperation):
    """`%v = pto.load_scalar %ptr[%offset] : !pto.ptr<DT> -> DT`."""

    name = "pto.load_scalar"
    ptr = operand_def(PtrType)
    offset = operand_def(IndexType)
    value = result_def()

    assembly_format = "$ptr `[` $offset `]` attr-dict `:` type($ptr) `->` type($value)"


@irdl_op_definition
class StoreScalarOp(IRDLOperation):
    """`pto.store_scalar %v, %ptr[%offset] : !pto.ptr<DT>, DT`."""

    name = "pto.store_scalar"
    value = operand_def()
    ptr = operand_def(PtrType)
    offset = operand_def(IndexType)

    assembly_format = "$value `,` $ptr `[` $offset `]` attr-dict `:` type($ptr) `,` type($value)"


# --------------------------------------------------------------------------------------
# the communication ops of distributed kernels (`pld.*`, `system.cacheinvalid` / `system.fence`)


@irdl_op_definition
class AddPtrOp(IRDLOperation):
    """`%q = pto.addptr %p, %elems : !pto.ptr<T> -> !pto.ptr<T>` (an element offset)."""

    name = "pto.addptr"
    ptr = operand_def(ParamAttrConstraint(PtrType, (_ELEMENT,)))
    offset = operand_def(IndexType)
    result = result_def(ParamAttrConstraint(PtrType, (_ELEMENT,)))

    assembly_format = "$ptr `,` $offset attr-dict `:` type($ptr) `->` type($result)"


@irdl_op_definition
class CacheInvalidOp(IRDLOperation):
    """`pto.cmo.cacheinvalid %pv single_cache_line : PV` (a region of GM) or
    `pto.cmo.cacheinvalid all #pto.address_space<gm>` (all of GM)."""

    name = "pto.cmo.cacheinvalid"
    view = opt_operand_def(PartitionTensorViewType)
    space = opt_prop_def(AddressSpaceAttr)

    @classmethod
    def parse(cls, parser: Parser) -> CacheInvalidOp:
        if parser.parse_optional_keyword("all") is not None:
            space = parser.parse_attribute()
            if not isinstance(space, AddressSpaceAttr):
                parser.raise_error("expected #pto.address_space<...>")
            return cls.build(operands=[[]], properties={"space": space})
        operand = parser.parse_unresolved_operand()
        parser.parse_keyword("single_cache_line")
        parser.parse_punctuation(":")
        value = parser.resolve_operand(operand, parser.parse_type())
        return cls.build(operands=[[value]])

    def print(self, printer: Printer) -> None:
        if self.view is None:
            printer.print_string(" all ")
            assert self.space is not None
            printer.print_attribute(self.space)
            return
        printer.print_string(" ")
        printer.print_operand(self.view)
        printer.print_string(" single_cache_line : ")
        printer.print_attribute(self.view.type)

    def verify_(self) -> None:
        if (self.view is None) == (self.space is None):
            raise VerifyException("pto.cmo.cacheinvalid takes either a partition view or `all` and a space")


@irdl_op_definition
class FenceBarrierAllOp(IRDLOperation):
    """`pto.fence.barrier_all #pto.fence_scope<gm>`."""

    name = "pto.fence.barrier_all"
    scope = prop_def(FenceScopeAttr)

    @classmethod
    def parse(cls, parser: Parser) -> FenceBarrierAllOp:
        scope = parser.parse_attribute()
        if not isinstance(scope, FenceScopeAttr):
            parser.raise_error("expected #pto.fence_scope<...>")
        return cls.build(properties={"scope": scope})

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.scope)


@irdl_op_definition
class BarrierOp(IRDLOperation):
    """`pto.barrier <PIPE_X>`: drain the named pipe of this core (ptoas's `BarrierOp`)."""

    name = "pto.barrier"
    pipe = prop_def(StringAttr)
    PIPES: ClassVar[tuple[str, ...]] = ("PIPE_S", "PIPE_V", "PIPE_M", "PIPE_MTE1", "PIPE_MTE2", "PIPE_MTE3",
                                        "PIPE_ALL", "PIPE_MTE4", "PIPE_MTE5", "PIPE_V2", "PIPE_FIX")
    """ptoas's `PTO_PipeAttr` cases that name a pipe (`PTOAttrs.td`)."""

    @classmethod
    def parse(cls, parser: Parser) -> BarrierOp:
        with parser.in_angle_brackets():
            pipe = _parse_ident(parser)
        return cls.build(properties={"pipe": StringAttr(pipe)})

    def print(self, printer: Printer) -> None:
        printer.print_string(f" <{self.pipe.data}>")

    def verify_(self) -> None:
        if self.pipe.data not in self.PIPES:
            raise VerifyException(f"pto.barrier pipe must be one of {', '.join(self.PIPES)}")


class _CommSignalOp(IRDLOperation):
    """`OP(%pv, %v : PV, i32) {attrs}`: one signal cell of a window and an `i32` value."""

    view = operand_def(PartitionTensorViewType)
    value = operand_def(IntegerType)

    assembly_format = "`(` $view `,` $value `:` type($view) `,` type($value) `)` attr-dict"

    def verify_(self) -> None:
        value_type = self.value.type
        if not isinstance(value_type, IntegerType) or value_type.width.data != 32:
            raise VerifyException(f"{self.name} takes an i32 value")


@irdl_op_definition
class TNotifyOp(_CommSignalOp):
    """`pto.comm.tnotify(%pv, %v : PV, i32) {notifyOp = #pto<notify_op atomic_add|set>}`."""

    name = "pto.comm.tnotify"


@irdl_op_definition
class TWaitOp(_CommSignalOp):
    """`pto.comm.twait(%pv, %v : PV, i32) {cmp = #pto<wait_cmp eq|ge>}`."""

    name = "pto.comm.twait"


class _CommTransferOp(IRDLOperation):
    """`NAME(%dst_pv, %src_pv, buf(%stage[, %stage2]) : PV, PV, TB[, TB]) {attrs}`: a copy
    between this rank's GM and a peer's through one or two staging tiles."""

    dst = operand_def(PartitionTensorViewType)
    src = operand_def(PartitionTensorViewType)
    stages = var_operand_def(TileBufType)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        parser.parse_punctuation("(")
        dst = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        src = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        parser.parse_keyword("buf")
        stages = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        parser.parse_punctuation(")")
        if len(types) != 2 + len(stages):
            parser.raise_error(f"{cls.name}: one type per operand")
        operands = [parser.resolve_operand(o, t) for o, t in zip([dst, src, *stages], types, strict=True)]
        attrs = parser.parse_optional_attr_dict()
        return cls.build(operands=[operands[0], operands[1], operands[2:]], attributes=attrs)

    def print(self, printer: Printer) -> None:
        values = [self.dst, self.src]
        printer.print_string("(")
        printer.print_list(values, printer.print_operand)
        printer.print_string(", buf(")
        printer.print_list(self.stages, printer.print_operand)
        printer.print_string(") : ")
        printer.print_list([v.type for v in (*values, *self.stages)], printer.print_attribute)
        printer.print_string(")")
        printer.print_op_attributes(self.attributes)

    def verify_(self) -> None:
        if len(self.stages) not in (1, 2):
            raise VerifyException(f"{self.name} takes one or two staging tiles")


@irdl_op_definition
class TPutOp(_CommTransferOp):
    """`pto.comm.tput(...)`: from this rank's GM to a peer's (`_CommTransferOp`)."""

    name = "pto.comm.tput"


@irdl_op_definition
class TGetOp(_CommTransferOp):
    """`pto.comm.tget(...)`: from a peer's GM to this rank's (`_CommTransferOp`)."""

    name = "pto.comm.tget"


COMM_OPS: tuple[type[IRDLOperation], ...] = (AddPtrOp, CacheInvalidOp, FenceBarrierAllOp, BarrierOp,
                                             TNotifyOp, TWaitOp, TPutOp, TGetOp)


# asynchronous GM-to-L2 prefetch (the reference's `pto_ops_prefetch.cpp`): a context made from
# the hidden SDMA workspace parameter, an event per prefetch, the context's session, and a wait
# that yields a done flag. The three handles are opaque, parameterless types.


@irdl_attr_definition
class PrefetchAsyncContextType(ParametrizedAttribute, TypeAttribute):
    """`!pto.prefetch_async_context`: the state of the asynchronous prefetches of a kernel."""

    name = "pto.prefetch_async_context"


@irdl_attr_definition
class AsyncEventType(ParametrizedAttribute, TypeAttribute):
    """`!pto.async_event`: one asynchronous prefetch in flight."""

    name = "pto.async_event"


@irdl_attr_definition
class AsyncSessionType(ParametrizedAttribute, TypeAttribute):
    """`!pto.async_session`: a prefetch context's session, which a wait polls."""

    name = "pto.async_session"


@irdl_op_definition
class MakePrefetchAsyncContextOp(IRDLOperation):
    """`%ctx = pto.make_prefetch_async_context(%ws : !pto.ptr<i8>) -> !pto.prefetch_async_context`."""

    name = "pto.make_prefetch_async_context"
    workspace = operand_def(PtrType)
    context = result_def(PrefetchAsyncContextType)

    assembly_format = "`(` $workspace `:` type($workspace) `)` attr-dict `->` type($context)"

    def verify_(self) -> None:
        if cast(PtrType, self.workspace.type).element_type != i8:
            raise VerifyException("pto.make_prefetch_async_context takes a !pto.ptr<i8> workspace")


@irdl_op_definition
class TPrefetchAsyncOp(IRDLOperation):
    """`%evt = pto.tprefetch_async(%pv, %ctx : PV, !pto.prefetch_async_context) -> !pto.async_event`:
    a whole tensor's partition view prefetched into L2."""

    name = "pto.tprefetch_async"
    source = operand_def(PartitionTensorViewType)
    context = operand_def(PrefetchAsyncContextType)
    event = result_def(AsyncEventType)

    assembly_format = (
        "`(` $source `,` $context `:` type($source) `,` type($context) `)` attr-dict `->` type($event)"
    )


@irdl_op_definition
class GetPrefetchAsyncSessionOp(IRDLOperation):
    """`%s = pto.get_prefetch_async_session %ctx : !pto.prefetch_async_context -> !pto.async_session`."""

    name = "pto.get_prefetch_async_session"
    context = operand_def(PrefetchAsyncContextType)
    session = result_def(AsyncSessionType)

    assembly_format = "$context attr-dict `:` type($context) `->` type($session)"


@irdl_op_definition
class WaitAsyncEventOp(IRDLOperation):
    """`%done = pto.comm.wait_async_event(%evt, %s : !pto.async_event, !pto.async_session) -> i1`."""

    name = "pto.comm.wait_async_event"
    event = operand_def(AsyncEventType)
    session = operand_def(AsyncSessionType)
    done = result_def(IntegerType)

    assembly_format = (
        "`(` $event `,` $session `:` type($event) `,` type($session) `)` attr-dict `->` type($done)"
    )

    def verify_(self) -> None:
        if self.done.type != i1:
            raise VerifyException("pto.comm.wait_async_event yields an i1 done flag")


PREFETCH_OPS: tuple[type[IRDLOperation], ...] = (
    MakePrefetchAsyncContextOp, TPrefetchAsyncOp, GetPrefetchAsyncSessionOp, WaitAsyncEventOp)


# cross-core pipes (ptoas's frontend TPUSH / TPOP ops, `PTOOps.td`; the reference's code
# generator `pto_ops_crosscore.cpp` adds `id`, `slot_num` and `local_slot_num`, which the
# newer ptoas it targets has, and wins where the two differ)

_SPLITS = range(5)
"""ptoas's split codes: 0 none, 1 up-down, 2 left-right, 3 up-down odd, 4 left-right odd."""

_PIPE_ID = "(`id` `=` $id^ `,`)? "


def _check_split(op: IRDLOperation, split: IntegerAttr[IntegerType], odd_ok: bool) -> None:
    value = split.value.data
    if value not in _SPLITS:
        raise VerifyException(f"{op.name} split must be 0 to 4, got {value}")
    if value in (3, 4) and not odd_ok:
        raise VerifyException(f"{op.name}: no odd split for the Vector -> Cube direction (split = {value})")


def _check_id(op: IRDLOperation, pipe_id: IntegerAttr[IntegerType] | None) -> None:
    if pipe_id is not None and pipe_id.value.data < 0:
        raise VerifyException(f"{op.name} id must be non-negative")


class _InitializePipeOp(IRDLOperation):
    """`pto.aX_initialize_pipe {[id = I, ]dir_mask = D, slot_size = S[, slot_num = N]
    [, local_slot_num = L]} ([gm_slot_buffer = %p : !pto.ptr<f32>, ]c2v_consumer_buf = %a :
    i32, v2c_consumer_buf = %b : i32)`; the reference prints the operand list on a line of its
    own when it has the GM slot buffer (`normalize` joins it back)."""

    id = opt_prop_def(IntegerAttr[I32])
    dir_mask = prop_def(IntegerAttr[I8])
    slot_size = prop_def(IntegerAttr[I32])
    slot_num = opt_prop_def(IntegerAttr[I32])
    local_slot_num = opt_prop_def(IntegerAttr[I32])
    gm_slot_buffer = opt_operand_def(PtrType)
    c2v_consumer_buf = operand_def(I32)
    v2c_consumer_buf = operand_def(I32)

    assembly_format = (
        "` ` `{` " + _PIPE_ID + "`dir_mask` `=` $dir_mask `,` `slot_size` `=` $slot_size "
        "(`,` `slot_num` `=` $slot_num^)? (`,` `local_slot_num` `=` $local_slot_num^)? `}` "
        "`(` (`gm_slot_buffer` `=` $gm_slot_buffer^ `:` type($gm_slot_buffer) `,`)? "
        "`c2v_consumer_buf` `=` $c2v_consumer_buf `:` type($c2v_consumer_buf) `,` "
        "`v2c_consumer_buf` `=` $v2c_consumer_buf `:` type($v2c_consumer_buf) `)` attr-dict"
    )

    def verify_(self) -> None:
        _check_id(self, self.id)
        if self.dir_mask.value.data not in (1, 2, 3):
            raise VerifyException(f"{self.name} dir_mask must be 1 (C2V), 2 (V2C) or 3 (both)")
        if self.slot_size.value.data <= 0:
            raise VerifyException(f"{self.name} slot_size must be positive")
        for attr in (self.slot_num, self.local_slot_num):
            if attr is not None and attr.value.data <= 0:
                raise VerifyException(f"{self.name} slot counts must be positive")
        ptr = self.gm_slot_buffer
        if ptr is not None and cast(PtrType, ptr.type).element_type != Float32Type():
            raise VerifyException(f"{self.name} gm_slot_buffer must be a !pto.ptr<f32>")


@irdl_op_definition
class AicInitializePipeOp(_InitializePipeOp):
    name = "pto.aic_initialize_pipe"


@irdl_op_definition
class AivInitializePipeOp(_InitializePipeOp):
    name = "pto.aiv_initialize_pipe"


class _TPushOp(IRDLOperation):
    """`pto.tpush_to_X(%t : TB) {[id = I, ]split = S}`."""

    tile = operand_def(TileBufType)
    id = opt_prop_def(IntegerAttr[I32])
    split = prop_def(IntegerAttr[I8])
    ODD_OK: ClassVar[bool] = True

    assembly_format = "`(` $tile `:` type($tile) `)` ` ` `{` " + _PIPE_ID + "`split` `=` $split `}` attr-dict"

    def verify_(self) -> None:
        _check_id(self, self.id)
        _check_split(self, self.split, self.ODD_OK)


@irdl_op_definition
class TPushToAivOp(_TPushOp):
    name = "pto.tpush_to_aiv"


@irdl_op_definition
class TPushToAicOp(_TPushOp):
    name = "pto.tpush_to_aic"
    ODD_OK: ClassVar[bool] = False


class _TPopOp(IRDLOperation):
    """`%t = pto.tpop_from_X[(%valid_row, %valid_col)] {[id = I, ]split = S} -> TB`."""

    valid_row = opt_operand_def(IndexType)
    valid_col = opt_operand_def(IndexType)
    id = opt_prop_def(IntegerAttr[I32])
    split = prop_def(IntegerAttr[I8])
    tile = result_def(TileBufType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    ODD_OK: ClassVar[bool] = True

    assembly_format = (
        "(`(` $valid_row^ `,` $valid_col `)`)? ` ` `{` " + _PIPE_ID + "`split` `=` $split `}` attr-dict "
        "`->` type($tile)"
    )

    def verify_(self) -> None:
        _check_id(self, self.id)
        _check_split(self, self.split, self.ODD_OK)
        if (self.valid_row is None) != (self.valid_col is None):
            raise VerifyException(f"{self.name} takes both valid extents or neither")


@irdl_op_definition
class TPopFromAicOp(_TPopOp):
    name = "pto.tpop_from_aic"


@irdl_op_definition
class TPopFromAivOp(_TPopOp):
    name = "pto.tpop_from_aiv"
    ODD_OK: ClassVar[bool] = False


class _TFreeOp(IRDLOperation):
    """`pto.tfree_from_X {[id = I, ]split = S}`."""

    id = opt_prop_def(IntegerAttr[I32])
    split = prop_def(IntegerAttr[I8])

    assembly_format = "` ` `{` " + _PIPE_ID + "`split` `=` $split `}` attr-dict"

    def verify_(self) -> None:
        _check_id(self, self.id)
        _check_split(self, self.split, True)


@irdl_op_definition
class TFreeFromAicOp(_TFreeOp):
    name = "pto.tfree_from_aic"


@irdl_op_definition
class TFreeFromAivOp(_TFreeOp):
    name = "pto.tfree_from_aiv"


@irdl_op_definition
class ReserveBufferOp(IRDLOperation):
    """`%b = pto.reserve_buffer {name = "N", size = S, location = #pto.address_space<vec|mat>,
    auto = true|false[, base = B]} -> i32`: a pipe's local consumer slot buffer (ptoas places
    it when `auto = true`; `base` only with `auto = false`)."""

    name = "pto.reserve_buffer"
    buffer_name = prop_def(StringAttr, prop_name="name")
    size = prop_def(IntegerAttr[I32])
    space = prop_def(AddressSpaceAttr, prop_name="location")  # `location` is xdsl's op location
    auto = prop_def(BoolAttr)
    base = opt_prop_def(IntegerAttr[I32])
    addr = result_def(I32)

    assembly_format = (
        "` ` `{` `name` `=` $name `,` `size` `=` $size `,` `location` `=` qualified($location) `,` "
        "`auto` `=` $auto (`,` `base` `=` $base^)? `}` attr-dict `->` type($addr)"
    )

    def verify_(self) -> None:
        if self.size.value.data <= 0:
            raise VerifyException("pto.reserve_buffer size must be positive")
        if self.space.value.data not in ("vec", "mat"):
            raise VerifyException("pto.reserve_buffer location must be vec or mat")
        if bool(self.auto.value.data) == (self.base is not None):
            raise VerifyException("pto.reserve_buffer takes a base exactly when auto = false")


@irdl_op_definition
class ImportReservedBufferOp(IRDLOperation):
    """`%b = pto.import_reserved_buffer {name = "N", peer_func = @f} -> i32`: the peer
    function's reserved buffer of that name."""

    name = "pto.import_reserved_buffer"
    buffer_name = prop_def(StringAttr, prop_name="name")
    peer_func = prop_def(SymbolRefAttr)
    addr = result_def(I32)

    assembly_format = "` ` `{` `name` `=` $name `,` `peer_func` `=` $peer_func `}` attr-dict `->` type($addr)"

    def verify_(self) -> None:
        if self.peer_func.nested_references.data:
            raise VerifyException("pto.import_reserved_buffer peer_func must be a flat symbol")


@irdl_attr_definition
class SyncAllModeAttr(_KeywordAttr):
    """`#pto.sync_all_mode<hard|soft>`: a `pto.syncall`'s FFTS (hard) or GM-polling (soft) form."""

    name = "pto.sync_all_mode"
    ALLOWED: ClassVar[tuple[str, ...]] = ("hard", "soft")


@irdl_attr_definition
class SyncCoreTypeAttr(_KeywordAttr):
    """`#pto.sync_core_type<aiv_only|aic_only|mix>`: the cores a `pto.syncall` joins."""

    name = "pto.sync_core_type"
    ALLOWED: ClassVar[tuple[str, ...]] = ("aiv_only", "aic_only", "mix")


@irdl_op_definition
class SyncAllOp(IRDLOperation):
    """`pto.syncall([%gm, %n : PV, i32]) mode = #pto.sync_all_mode<M>, core_type =
    #pto.sync_core_type<C>`: a barrier of every participating core (the soft form polls a GM
    workspace, optionally given the participant count)."""

    name = "pto.syncall"
    args = var_operand_def()
    mode = prop_def(SyncAllModeAttr)
    core_type = prop_def(SyncCoreTypeAttr)

    assembly_format = (
        "`(` ($args^ `:` type($args))? `)` `mode` `=` qualified($mode) `,` "
        "`core_type` `=` qualified($core_type) attr-dict"
    )

    def verify_(self) -> None:
        hard = self.mode.value.data == "hard"
        if hard and self.args:
            raise VerifyException("pto.syncall's hard form takes no operands")
        if not hard and len(self.args) not in (1, 2):
            raise VerifyException("pto.syncall's soft form takes a GM workspace and an optional core count")


PIPE_NAMES: tuple[str, ...] = ("PIPE_MTE1", "PIPE_MTE2", "PIPE_MTE3", "PIPE_M", "PIPE_V", "PIPE_S",
                               "PIPE_FIX", "PIPE_ALL")
"""ptoas's pipes a cross-core event names (`#pto.pipe`, printed `<PIPE_X>`)."""


class _CrossCoreSyncOp(IRDLOperation):
    """`pto.sync.set|wait <PIPE_X>, EVENT` with EVENT a literal in 0..13 or an `index` value
    (ptoas's hand-written syntax); `pto.sync.set` may carry `{ffts_mode = M : i32}`."""

    pipe = prop_def(StringAttr)
    event_id = opt_prop_def(IntegerAttr[I32])
    event_id_dyn = opt_operand_def(IndexType)

    @classmethod
    def parse(cls, parser: Parser) -> _CrossCoreSyncOp:
        with parser.in_angle_brackets():
            pipe = _parse_ident(parser)
        parser.parse_punctuation(",")
        operand = parser.parse_optional_unresolved_operand()
        properties: dict[str, Attribute] = {"pipe": StringAttr(pipe)}
        operands: list[SSAValue] = []
        if operand is None:
            properties["event_id"] = IntegerAttr(parser.parse_integer(), i32)
        else:
            operands.append(parser.resolve_operand(operand, IndexType()))
        attrs = parser.parse_optional_attr_dict()
        return cls.build(operands=[operands], properties=properties, attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" <{self.pipe.data}>, ")
        if self.event_id_dyn is not None:
            printer.print_operand(self.event_id_dyn)
        else:
            assert self.event_id is not None
            printer.print_string(str(self.event_id.value.data))
        printer.print_op_attributes(self.attributes)

    def verify_(self) -> None:
        if self.pipe.data not in PIPE_NAMES:
            raise VerifyException(f"{self.name} pipe must be one of {', '.join(PIPE_NAMES)}")
        if (self.event_id is None) == (self.event_id_dyn is None):
            raise VerifyException(f"{self.name} takes an event id literal or an index value")
        if self.event_id is not None and not 0 <= self.event_id.value.data <= 13:
            raise VerifyException(f"{self.name} event id must be in 0..13")
        extra = set(self.attributes) - ({"ffts_mode"} if self.name == "pto.sync.set" else set())
        if extra:
            raise VerifyException(f"{self.name} takes no attribute {', '.join(sorted(extra))}")


@irdl_op_definition
class SyncSetOp(_CrossCoreSyncOp):
    name = "pto.sync.set"


@irdl_op_definition
class SyncWaitOp(_CrossCoreSyncOp):
    name = "pto.sync.wait"


@irdl_op_definition
class SetFftsOp(IRDLOperation):
    """`pto.set_ffts %ws : !pto.ptr<i64>`: the FFTS workspace the cross-core events use (a
    raw pointer parameter, as the reference passes it)."""

    name = "pto.set_ffts"
    ffts = operand_def(PtrType)

    assembly_format = "$ffts attr-dict `:` type($ffts)"

    def verify_(self) -> None:
        if cast(PtrType, self.ffts.type).element_type != i64:
            raise VerifyException("pto.set_ffts takes a !pto.ptr<i64>")


PIPE_OPS: tuple[type[IRDLOperation], ...] = (
    AicInitializePipeOp, AivInitializePipeOp, TPushToAivOp, TPushToAicOp, TPopFromAicOp, TPopFromAivOp,
    TFreeFromAicOp, TFreeFromAivOp, ReserveBufferOp, ImportReservedBufferOp, SyncAllOp, SyncSetOp, SyncWaitOp,
    SetFftsOp)


PTO = Dialect(
    "pto",
    [
        MakeTensorViewOp,
        PartitionViewOp,
        AllocTileOp,
        AllocMultiTileOp,
        MultiTileGetOp,
        TReshapeOp,
        SubViewOp,
        *DPS_OPS,
        TTriOp,
        TRandomOp,
        TGatherOp,
        TScatterOp,
        TMrgSortOp,
        TGetValOp,
        SetValidShapeOp,
        LoadScalarOp,
        StoreScalarOp,
        *LOCAL_ARRAY_OPS,
        *COMM_OPS,
        *PIPE_OPS,
        *PREFETCH_OPS,
    ],
    [
        PtrType,
        PrefetchAsyncContextType,
        AsyncEventType,
        AsyncSessionType,
        TensorViewType,
        PartitionTensorViewType,
        TileBufType,
        MultiTileBufType,
        LocalArrayType,
        KernelKindAttr,
        LayoutAttr,
        FenceScopeAttr,
        MaskPatternAttr,
        AddressSpaceAttr,
        SyncAllModeAttr,
        SyncCoreTypeAttr,
        *ENUM_ATTRS,
    ],
)


@irdl_op_definition
class IndexCastUIOp(IRDLOperation):
    """`arith.index_castui %x : T1 to T2`: between `index` and an integer type, zero-extending
    (or truncating) as MLIR's op does; exactly one side is `index`."""

    name = "arith.index_castui"

    input = operand_def(base(IntegerType) | base(IndexType))
    result = result_def(base(IntegerType) | base(IndexType))

    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"

    def verify_(self) -> None:
        if isinstance(self.input.type, IndexType) == isinstance(self.result.type, IndexType):
            raise VerifyException(
                f"'arith.index_castui' op operand type '{self.input.type}' and result type "
                f"'{self.result.type}' are cast incompatible"
            )


def make_context() -> Context:
    """A context that knows builtin, func, arith (with `arith.index_castui`), scf and this
    `pto` dialect (and nothing unregistered, so an op or type slotsat does not model is a parse
    error)."""
    from xdsl.dialects.arith import Arith
    from xdsl.dialects.builtin import Builtin
    from xdsl.dialects.func import Func
    from xdsl.dialects.scf import Scf

    ctx = Context()
    for dialect in (Builtin, Func, Arith, Scf, PTO):
        ctx.load_dialect(dialect)
    if IndexCastUIOp.name not in {op.name for op in Arith.operations}:
        ctx.load_op(IndexCastUIOp)
    return ctx


def parse_and_verify(text: str) -> str:
    """Parse `text` with xdsl, verify it, and return xdsl's printing of it.

    Raises xdsl's `ParseError` / `VerifyException` on malformed text.
    """
    from io import StringIO

    from xdsl.dialects.builtin import ModuleOp

    module = Parser(make_context(), text).parse_module()
    assert isinstance(module, ModuleOp)
    module.verify()
    stream = StringIO()
    Printer(stream=stream).print_op(module)
    return stream.getvalue()


_QUOTED_OP = re.compile(r'^((?:%[^=]*= )?)"([a-z_]+\.[A-Za-z0-9_.]+)"\(')
"""An op in MLIR's generic form, `"pto.ttri"(...`: `normalize` drops the quotes (`TRandomOp`
prints its generic case without them)."""


def normalize(text: str) -> list[str]:
    """Lines of `text` in a form where slotsat's layout and xdsl's printing coincide.

    xdsl differs from the reference layout only in presentation: it indents the function body
    one level deeper, spells `builtin.module` / `func.return`, renumbers anonymous values
    (`%0`, `%1`, ...) module-wide, and re-suffixes names that end in `_<digits>`, reusing a
    name inside a region even where an enclosing region or a closed sibling held it. The
    normal form strips indentation, uses the short spellings and renames every SSA value
    per function by order of definition (`%v0`, `%v1`, ...): a definition (`%x = ...`, a
    loop's `%i = ...`, `iter_args(%a = ...)`) always makes a new value in its region, a use
    refers to the innermost definition in scope. A line that starts with `(` continues the
    op before it (the reference prints `pto.aic_initialize_pipe`'s operands on their own
    line). An op in MLIR's generic form loses the quotes around its name (`TRandomOp` prints
    its generic case without them). So operations, operands, attributes and types are
    compared exactly.
    """
    lines: list[str] = []
    scopes: list[dict[str, str]] = [{}]
    count = 0
    ssa_name = re.compile(r"%[A-Za-z0-9_$.-]+")
    definition = re.compile(r"(%[A-Za-z0-9_$.-]+)(?=\s*=(?!=))")

    def rename(part: str, defined: set[str]) -> str:
        def one(match: re.Match[str]) -> str:
            nonlocal count
            key = match.group(0)
            if key in defined:
                defined.discard(key)
            else:
                for scope in reversed(scopes):
                    if key in scope:
                        return scope[key]
            scopes[-1][key] = name = f"%v{count}"
            count += 1
            return name

        return ssa_name.sub(one, part)

    joined: list[str] = []
    for raw in text.splitlines():
        if raw.strip().startswith("(") and joined:
            joined[-1] += " " + raw.strip()  # an op's operand list on a line of its own
        else:
            joined.append(raw)
    for raw in joined:
        line = raw.strip()
        if not line:
            continue
        line = line.replace("builtin.module", "module", 1)
        line = _QUOTED_OP.sub(r"\1\2(", line, count=1)
        if line == "func.return":
            line = "return"
        if line.startswith("func.func"):
            scopes, count = [{}], 0
        if line.startswith("}") and len(scopes) > 1:
            scopes.pop()
        results, rest = "", line
        if line.startswith("%") and " = " in line:
            results, rest = line.split(" = ", 1)
            results = rename(results, set(ssa_name.findall(results))) + " = "
        if line.endswith("{"):
            scopes.append({})  # a region: what its opening line defines (a loop's %i) is its own
        lines.append(results + rename(rest, set(definition.findall(rest))))
    return lines


def round_trips(text: str) -> bool:
    """Whether xdsl parses and verifies `text` and prints it back identically (up to
    `normalize`)."""
    return normalize(parse_and_verify(text)) == normalize(text)
