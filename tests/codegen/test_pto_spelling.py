"""The PTO spelling table (`lowering/pto_ops.json`) against the reference's op set and the
xdsl dialect, and (where a ptoas checkout is at hand) against ptoas's op definitions.

Every entry names an op the reference registers and only arguments and keywords that op
has; every ptoas op an entry emits is declared by slotsat's xdsl `pto` dialect, so whatever
codegen emits can be parsed and verified; every enum case the table can print is a case the
dialect's attribute accepts. With `SLOTSAT_PTOAS` pointing at a ptoas checkout (or the
project's reference checkout present), each dialect op and enum case is also found in
ptoas's `PTOOps.td` / `PTOAttrs.td`; ops the reference emits for a newer ptoas than the
checkout are listed in `NEWER_THAN_CHECKOUT`.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from slotsat.core import ops
from slotsat.lowering import pto_dialect, pto_spelling

DIALECT_OPS = frozenset(op.name for op in pto_dialect.PTO.operations)
NEWER_THAN_CHECKOUT = frozenset({"pto.subview", "pto.alloc_multi_tile", "pto.multi_tile_get", "pto.syncall"})
"""Ops of the ptoas slotsat targets (and the reference's code generator emits: `pto.subview`
for tile.slice, the multi-buffer region ops, `pto.syncall` for system.syncall) that the
project's ptoas checkout predates (it spells a tile window `pto.subset` and has no
multi-buffer ops; hw-native-sys/PTOAS as of 2026-04-17 has no `pto.syncall` either)."""

NEWER_ENUMS_THAN_CHECKOUT = frozenset({"coalesce", "div_precision", "log_precision", "recip_precision"})
"""Enum attributes the reference emits for a newer ptoas than the project's checkout, which
hw-native-sys/PTOAS as of 2026-04-17 does not define: `pto.mgather`'s `coalesce = #pto<coalesce
row|elem>` and the `precisionType` of `pto.tdiv` / `tlog` / `trecip` (the dialect declares the one
case the reference emits, `high_precision`)."""

TABLE = pto_spelling.table()


def _ptoas() -> Path | None:
    root = os.environ.get("SLOTSAT_PTOAS", "/work/scratch/PTOAS")
    path = Path(root) / "include" / "PTO" / "IR"
    return path if (path / "PTOOps.td").exists() else None


def test_the_table_covers_the_constructs_of_printed_kernels() -> None:
    for op in ("tile.load", "tile.store", "tile.create", "tile.full", "tile.cast", "tile.get_block_idx",
               "tile.extract", "tile.assemble", "tile.col_expand_mul", "tensor.read", "tensor.dim"):
        assert op in TABLE


@pytest.mark.parametrize("op", sorted(TABLE))
def test_entry_names_the_reference_op_and_its_arguments(op: str) -> None:
    sp = TABLE[op]
    ref = ops.reference(op)
    assert ref is not None, f"{op} is not an op of the reference"
    names = set(ref.args)
    for name in (*(sp.ins or ()), *sp.index, *((sp.scratch,) if sp.scratch else ()),
                 *(a.argument for a in sp.attrs if a.argument is not None)):
        assert name in names, f"{op} has no argument '{name}'"
    keywords = set(ref.keywords)
    for key in (*(a.keyword for a in sp.attrs if a.argument is None), *sp.type_keywords, *sp.defaults):
        assert key in keywords, f"{op} has no keyword '{key}'"


@pytest.mark.parametrize("op", sorted(TABLE))
def test_the_dialect_declares_what_the_entry_emits(op: str) -> None:
    sp = TABLE[op]
    if sp.form in ("alloc", "spmd", "dim"):
        assert sp.pto is None  # no op of its own: an allocation, a parameter, a value
        return
    assert sp.pto in DIALECT_OPS, f"{op} emits {sp.pto}, which the xdsl dialect does not declare"
    if sp.form == "dps" and sp.attrs and sp.attr_at == "ins":
        assert sp.pto in pto_dialect.DPS_ATTR_INS_OP_NAMES
    elif sp.form == "dps":
        # pto.tmrgsort, pto.tgather and pto.tscatter have classes of their own (format 2 writes a
        # second destination; the mask form's syntax), with the destination-style syntax of the others
        assert sp.pto in (*pto_dialect.DPS_OP_NAMES, pto_dialect.TMrgSortOp.name, pto_dialect.TGatherOp.name,
                          pto_dialect.TScatterOp.name)


def test_every_enum_case_the_table_prints_is_a_case_of_the_dialect() -> None:
    seen = 0
    for sp in TABLE.values():
        for a in sp.attrs:
            if a.enum is None:
                continue
            # the mask forms' pattern is a parameter attribute, #pto.mask_pattern<CASE>
            cases = (pto_dialect.MaskPatternAttr.ALLOWED if sp.form in ("gather_mask", "scatter_mask")
                     else pto_dialect.ENUM_CASES[a.enum])
            for case in a.values.values():
                if case is not None:
                    assert case in cases, f"{sp.op}: #pto<{a.enum} {case}>"
                    seen += 1
    assert seen > 10


def test_an_unknown_form_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown form"):
        pto_spelling._spelling("tile.x", {"form": "teleport"})


def _td_mnemonics(path: Path) -> set[str]:
    text = (path / "PTOOps.td").read_text()
    return {f"pto.{m}" for m in re.findall(r'PTO_T?Op<"([\w.]+)"', text)}


@pytest.mark.skipif(_ptoas() is None, reason="no ptoas checkout (set SLOTSAT_PTOAS)")
def test_dialect_ops_exist_in_ptoas() -> None:
    path = _ptoas()
    assert path is not None
    declared = _td_mnemonics(path)
    assert len(declared) > 100
    missing = sorted(DIALECT_OPS - declared - NEWER_THAN_CHECKOUT)
    assert missing == []


@pytest.mark.skipif(_ptoas() is None, reason="no ptoas checkout (set SLOTSAT_PTOAS)")
def test_enum_cases_exist_in_ptoas() -> None:
    path = _ptoas()
    assert path is not None
    text = (path / "PTOAttrs.td").read_text()
    for mnemonic, cases in pto_dialect.ENUM_CASES.items():
        if mnemonic in NEWER_ENUMS_THAN_CHECKOUT:
            continue
        m = re.search(r"def (\w+) : EnumAttr<PTO_Dialect, (\w+), \"" + mnemonic + '"', text)
        assert m is not None, mnemonic
        enum_def = re.search(r"def " + m.group(2) + r" : PTO_I32Enum<(.*?)\]>;", text, re.S)
        assert enum_def is not None, m.group(2)
        spelled = set()
        for case in re.finditer(r'I32EnumAttrCase<"(\w+)",\s*\d+(?:,\s*"(\w+)")?>', enum_def.group(1)):
            spelled.add(case.group(2) or case.group(1))
        assert set(cases) == spelled, mnemonic
