"""The reference's op set as data (issue 16 item 3): `slotsat/core/op_registry.json`.

Groups: the committed data against the installed reference (skipped without it); the buffer
facts T4 and codegen aliasing read; the modelled subset agrees with the reference's table;
names outside the set.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from slotsat.core import ops

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "slotsat" / "core" / "op_registry.json"


def test_the_committed_data_matches_the_installed_reference() -> None:
    if importlib.util.find_spec("pypto") is None:
        pytest.skip("the reference compiler (pypto) is not installed; see ../shared/tools/pypto/README.md")
    sys.path.insert(0, str(REPO / "tools"))
    try:
        import gen_op_registry
    finally:
        sys.path.pop(0)
    committed = json.loads(DATA.read_text())
    assert gen_op_registry.check(committed) == []


def test_the_data_is_package_data_with_every_namespace() -> None:
    names = ops.reference_names()
    assert len(names) == 312
    prefixes = {n.rsplit(".", 1)[0] for n in names}
    assert {"tile", "tensor", "system", "array", "pld.tile", "pld.tensor", "pld.system"} <= prefixes
    assert ops.enums()["pl.TileLayout"] == ("none_box", "row_major", "col_major")
    assert ops.pld_short()["window"] == ("pld.tensor.window",)
    assert ops.positional_defaults()["system.aiv_initialize_pipe"]["c2v_consumer_buf"] == (0, "INT32")
    assert ops.dsl_positional()["tile.create"] == ("shape", "dtype", "target_memory", "transpose")
    assert ops.pld_short()["remote_store"] == ("pld.tile.remote_store", "pld.tensor.remote_store")
    assert "output_existing" in ops.enums()["pl.adir"]


@pytest.mark.parametrize(("op", "buffer", "arg"), [
    ("tile.slice", "view", 0), ("tile.reshape", "view", 0), ("tile.reinterpret_view", "view", 0),
    ("tile.transpose_view", "view", 0), ("tile.assemble", "view", 0), ("tile.set_validshape", "view", 0),
    ("tile.matmul_acc", "in_place", 0), ("tile.gemv_acc", "in_place", 0),
    ("tile.batch_matmul_acc", "in_place", 0),
    ("tile.matmul_mx_acc", "in_place", 0), ("tile.fillpad_inplace", "in_place", 0),
    ("tile.gather_row", "in_place", 0), ("tile.scatter", "in_place", 0), ("tile.scatter_mask", "in_place", 0),
    ("tile.scatter_update", "in_place", 0), ("tile.tget_scale_addr", "in_place", 0),
    ("tile.write", "in_place", 0),
    ("tile.store", "reuses", 2), ("tile.mscatter", "reuses", 2), ("tensor.write", "reuses", 0),
    ("tile.tpop_from_aic", "pipe", None), ("tile.tpop_from_aiv", "pipe", None),
    ("tile.load", "fresh", None), ("tile.transpose", "fresh", None), ("tile.move", "fresh", None),
    ("tile.extract", "fresh", None), ("tile.concat", "fresh", None), ("tile.exp", "fresh", None),
    ("tile.read", "none", None), ("tile.get_block_idx", "none", None),
])
def test_buffer_behaviour(op: str, buffer: str, arg: int | None) -> None:
    ref = ops.reference(op)
    assert ref is not None
    assert (ref.buffer, ref.buffer_arg) == (buffer, arg)
    assert ops.inherited_arg(op) == (arg if buffer in ("view", "in_place", "reuses") else None)


def test_the_cross_core_ops_have_their_roles() -> None:
    roles = {n: ops.reference(n).cross_core_role for n in  # type: ignore[union-attr]
             ("tile.tpush_to_aiv", "tile.tpush_to_aic", "tile.tpop_from_aic", "system.tfree_to_aic",
              "system.aiv_initialize_pipe")}
    assert roles == {"tile.tpush_to_aiv": "TPush", "tile.tpush_to_aic": "TPush", "tile.tpop_from_aic": "TPop",
                     "system.tfree_to_aic": "TFree", "system.aiv_initialize_pipe": "InitializePipe"}


def test_signatures_and_memory_rules_of_the_load() -> None:
    load = ops.reference("tile.load")
    assert load is not None
    assert load.args == ("tensor", "offsets", "shapes", "valid_shape")
    assert set(load.keywords) == {"target_memory", "clamp"}
    assert load.memory_output == "deferred"
    matmul = ops.reference("tile.matmul")
    assert matmul is not None
    assert matmul.memory_output == "Acc"
    assert matmul.memory_inputs == (("Left",), ("Right",))


def test_every_modelled_op_is_one_of_the_reference() -> None:
    for name, spec in ops.REGISTRY.items():
        ref = ops.reference(name)
        assert ref is not None, name
        assert spec.inherited == ops.inherited_arg(name)


def test_the_printed_keyword_forms_name_registered_ops() -> None:
    for name in ops.PRINTED_KEYWORDS:
        assert ops.reference(name) is not None, name


@pytest.mark.parametrize(("name", "hint"), [
    ("tile.lod", "tile.load"), ("tile.exp2", "tile.exp"), ("tensor.creat", "tensor.create"),
    ("tile.dim", "tensor.dim"), ("tile.frobnicate", None),
])
def test_did_you_mean(name: str, hint: str | None) -> None:
    assert ops.suggest(name) == hint


def test_a_function_call_has_no_known_effect() -> None:
    assert ops.effect_known("tile.store")
    assert not ops.effect_known("self.kernel")
    assert not ops.effect_known("submit")


def test_unmodelled_forms_of_modelled_ops() -> None:
    assert ops.unmodelled("tile.load", 4, {}) is None
    assert ops.unmodelled("tile.row_sum", 2, {}) is None  # the scratch tile is modelled
    assert ops.unmodelled("tile.rsqrt", 2, {}) == "tile.rsqrt with argument 'tmp'"
    assert ops.unmodelled("tile.cast", 1, {"mode": object()}) == "tile.cast with keyword 'mode'"
    assert ops.unmodelled("tile.cast", 1, {"mode": object()}, numerics_ok=True) is None
    assert ops.unmodelled("tile.gather", 2, {}) == "slotsat does not model tile.gather"
