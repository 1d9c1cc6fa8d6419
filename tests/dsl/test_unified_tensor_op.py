"""`pl.X(t, ...)` on a tensor is the reference's unified op dispatching to `tensor.X`: a
tensor-level computation, reported with the above-tile error (issue 16 item 5)."""

from __future__ import annotations

import pytest

from slotsat.core.dsl.parser import parse_source
from slotsat.core.errors import SlotsatError

_KERNEL = '''import pypto.language as pl


@pl.program
class TensorScale:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[64, 32], pl.FP32],
               y: pl.Tensor[[64, 32], pl.FP32]) -> pl.Tensor[[64, 32], pl.FP32]:
        {line}
        return z
'''


@pytest.mark.parametrize("call", ["pl.add(x, y)", "pl.mul(x, y)", "pl.exp(x)"])
def test_unified_op_on_tensor_is_above_tile(call: str) -> None:
    text = _KERNEL.format(line=f"z: pl.Tensor[[64, 32], pl.FP32] = {call}")
    with pytest.raises(SlotsatError) as err:
        parse_source(text, "k.py")
    op = call.split("(", maxsplit=1)[0]
    assert err.value.message.startswith(f"'{op}' on tensor 'x' (pl.tensor.{op[3:]}) is above tile level")
    assert "--via-pypto" in err.value.message
    assert err.value.span.line == 9


def test_unified_op_on_tile_still_reads_as_tile_op() -> None:
    text = _KERNEL.format(line="t: pl.Tile[[64, 32], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [64, 32])\n"
                          "        e: pl.Tile[[64, 32], pl.FP32, pl.Mem.Vec] = pl.exp(t)\n"
                          "        z: pl.Tensor[[64, 32], pl.FP32] = pl.store(e, [0, 0], y)")
    module = parse_source(text, "k.py")
    ops = [s.value.op for s in module.programs[0].functions[0].body.stmts[:3]]
    assert ops == ["tile.load", "tile.exp", "tile.store"]


def test_hand_off_tensor_op_on_tensor_is_not_above_tile() -> None:
    text = _KERNEL.format(line="n: pl.Scalar[pl.FP32] = pl.read(x, [0, 0])\n"
                          "        z: pl.Tensor[[64, 32], pl.FP32] = pl.add(x, y)")
    with pytest.raises(SlotsatError) as err:
        parse_source(text, "k.py")
    # tensor.read stays at the hand-off point: pl.read on a tensor is that op, and the first
    # error is the tensor computation on the next line
    assert err.value.span.line == 10
    assert "'pl.add' on tensor 'x'" in err.value.message
    module = parse_source(_KERNEL.format(line="n: pl.Scalar[pl.FP32] = pl.read(x, [0, 0])\n"
                                         "        z: pl.Tensor[[64, 32], pl.FP32] = y"), "k.py")
    assert module.programs[0].functions[0].body.stmts[0].value.op == "tensor.read"


def test_short_names_of_system_and_tensor_ops_read_as_those_ops() -> None:
    """`pypto.language` re-exports its system ops by name (`pl.reserve_buffer` is
    `pl.system.reserve_buffer`) and `pl.tensor.create` as `pl.create_tensor`: the short
    spellings read as those ops and print back namespaced."""
    from slotsat.core.dsl import print_module

    text = _KERNEL.format(
        line="b: pl.Scalar[pl.INT32] = pl.reserve_buffer(name='buf', size=4096, base=-1)\n"
             "        z: pl.Tensor[[64, 32], pl.FP32] = pl.create_tensor([64, 32], dtype=pl.FP32)")
    module = parse_source(text, "k.py")
    stmts = module.programs[0].functions[0].body.stmts
    assert [s.value.op for s in stmts[:2]] == ["system.reserve_buffer", "tensor.create"]
    printed = print_module(module)
    assert "pl.system.reserve_buffer(name='buf', size=4096, base=-1)" in printed  # the reference's quotes
    assert "pl.tensor.create([64, 32], dtype=pl.FP32" in printed
    with pytest.raises(SlotsatError, match=r"unsupported DSL construct 'pl.no_such_op'"):
        parse_source(_KERNEL.format(line="z = pl.no_such_op(x)"), "k.py")


@pytest.mark.parametrize(("call", "op"), [
    ("pl.mul(t, 2.0)", "tile.muls"),
    ("pl.add(t, -1)", "tile.adds"),
    ("pl.sub(t, s)", "tile.subs"),
    ("pl.maximum(t, 2 * s + 1)", "tile.maximums"),
    ("pl.minimum(t, K)", "tile.minimums"),
    ("pl.cmp(t, 0.0, cmp_type=2)", "tile.cmps"),
    ("pl.mul(t, t)", "tile.mul"),
    ("pl.add(t, pl.exp(t))", "tile.add"),
])
def test_unified_binary_op_with_a_scalar_is_the_scalar_form(call: str, op: str) -> None:
    """The reference's unified ops dispatch on the second argument (`unified_ops`: a tile
    gives `tile.mul`, a number or `pl.Scalar` gives `tile.muls`), as the registry records;
    hand-written DSL writes `pl.mul(t, 2.0)`, and it prints back as the scalar op."""
    from slotsat.core.dsl import print_module

    typ = "pl.Tile[[64, 32], pl.FP32, pl.Mem.Vec]"
    text = "K = 3\n" + _KERNEL.format(
        line=f"t: {typ} = pl.load(x, [0, 0], [64, 32])\n"
             "        s: pl.Scalar[pl.INT32] = 4\n"
             f"        e: {typ} = {call}\n"
             "        z: pl.Tensor[[64, 32], pl.FP32] = pl.store(e, [0, 0], y)")
    module = parse_source(text, "k.py")
    assert ops_of(module)[-3] == op  # before the store and the return
    assert f"pl.{op}(" in print_module(module)
    assert ops_of(parse_source(print_module(module), "k.py")) == ops_of(module)


def ops_of(module: object) -> list[str]:
    stmts = module.programs[0].functions[0].body.stmts  # type: ignore[attr-defined]
    return [getattr(getattr(s, "value", None), "op", "") for s in stmts]


def test_the_scalar_forms_are_the_reference_dispatch() -> None:
    from slotsat.core import ops

    forms = ops.unified_scalar()
    assert forms["mul"] == ("tile.mul", "tile.muls")
    assert forms["and_"] == ("tile.and", "tile.ands")
    assert forms["xor"] == ("tile.xor", "tile.xors")
    assert "exp" not in forms
    assert all(ops.reference(t) is not None and ops.reference(s) is not None for t, s in forms.values())
