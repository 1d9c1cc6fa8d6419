"""`check` learns inputs a kernel accepts from draws it ran past a tensor's end on
(`inputs.learn_bounds`): a kernel's contract keeps its accesses inside its tensors.

Groups: a symbolic dimension too small for the kernel's loads grows; a scalar offset that
must stay small is capped; a valid extent computed from two parameters is fitted into its
tile; what is not a tensor parameter's dimension or a scalar parameter teaches nothing;
`check` confirms kernels whose every first draw faults.
"""

# ruff: noqa: E501  (embedded kernel text keeps one statement per line, 10-dsl.md §9.1)

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from slotsat.app.cli import main
from slotsat.core import ir
from slotsat.core.dsl.parser import parse_source
from slotsat.core.inputs import Bounds, Fit, learn_bounds, random_inputs
from slotsat.core.interp_errors import ExtentOutOfRange, InterpreterError, OutOfBounds
from slotsat.core.interpreter import Interpreter

# `t0` is a row offset into an 8-row tensor read 8 rows at a time: only 0 is inside.
_OFFSET = """import pypto.language as pl


@pl.program
class Offset:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[8, 1024], pl.FP32], t0: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[8, 1024], pl.FP32]]) -> pl.Tensor[[8, 1024], pl.FP32]:
        row: pl.Scalar[pl.INDEX] = t0 + 0
        for k, (dst,) in pl.pipeline(4, stage=2, init_values=(out,)):
            xt: pl.Tile[[8, 256], pl.FP32, pl.Mem.Vec] = pl.load(x, [row, k * 256], [8, 256])
            y: pl.Tile[[8, 256], pl.FP32, pl.Mem.Vec] = pl.exp(xt)
            nxt: pl.Tensor[[8, 1024], pl.FP32] = pl.store(y, [0, k * 256], dst)
            res = pl.yield_(nxt)
        return res
"""

# The loads read 512 rows of `x`, whose row count `N` is drawn from [16, 64] (or [64, 256]).
_DYNAMIC = """import pypto.language as pl

N = pl.dynamic("N")


@pl.program
class Rows:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[N, 128], pl.FP32], out: pl.Out[pl.Tensor[[512, 128], pl.FP32]]) -> pl.Tensor[[512, 128], pl.FP32]:
        for i, (dst,) in pl.pipeline(8, stage=2, init_values=(out,)):
            xt: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.load(x, [i * 64, 0], [64, 128])
            y: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.exp(xt)
            nxt: pl.Tensor[[512, 128], pl.FP32] = pl.store(y, [i * 64, 0], dst)
            res = pl.yield_(nxt)
        return res
"""

# The same with the row count passed as a scalar parameter (as the reference prints a
# dynamic extent passed in).
_PARAMETER = _DYNAMIC.replace('N = pl.dynamic("N")\n', "").replace(
    "x: pl.Tensor[[N, 128], pl.FP32], ", "n: pl.Scalar[pl.INDEX], x: pl.Tensor[[n, 128], pl.FP32], ")


def _kernel(text: str) -> ir.Function:
    return parse_source(text, "k.py").programs[0].functions[0]


def _fault(fn: ir.Function, args: dict[str, object]) -> InterpreterError:
    with pytest.raises(InterpreterError) as info:
        Interpreter(physical=False, prefetch=False).run(fn, args)
    return info.value


def test_a_symbolic_dimension_too_small_for_a_load_grows_at_least_double() -> None:
    fn = _kernel(_DYNAMIC)
    args = random_inputs(fn, np.random.default_rng(0))
    args["N"], args["x"] = 40, np.ones((40, 128), np.float32)
    err = _fault(fn, args)
    assert isinstance(err, OutOfBounds)
    assert err.message.startswith("load reads rows/columns [0, 64) outside a tensor dimension of size 40")
    bounds = Bounds()
    assert learn_bounds(fn, err, args, bounds)
    assert bounds.floors == {"N": 80}
    assert not bounds.caps
    assert not learn_bounds(fn, err, args, bounds)  # nothing new
    assert random_inputs(fn, np.random.default_rng(0), bounds=bounds)["N"] >= 80


def test_a_dimension_parameter_too_small_grows() -> None:
    fn = _kernel(_PARAMETER)
    args = {"n": 48, "x": np.ones((48, 128), np.float32), "out": np.zeros((512, 128), np.float32)}
    bounds = Bounds()
    assert learn_bounds(fn, _fault(fn, args), args, bounds)
    assert bounds.floors == {"n": 96}
    drawn = random_inputs(fn, np.random.default_rng(3), bounds=bounds)
    assert drawn["n"] >= 96
    assert drawn["x"].shape == (drawn["n"], 128)


def test_a_scalar_offset_past_a_static_dimension_is_capped_by_the_overrun() -> None:
    fn = _kernel(_OFFSET)
    args = {"x": np.ones((8, 1024), np.float32), "t0": 5, "out": np.zeros((8, 1024), np.float32)}
    err = _fault(fn, args)  # rows [5, 13) of 8: through `row = t0 + 0` back to `t0`
    bounds = Bounds()
    assert learn_bounds(fn, err, args, bounds)
    assert bounds.caps == {"t0": 0}
    assert not bounds.floors
    assert all(random_inputs(fn, np.random.default_rng(s), bounds=bounds)["t0"] == 0 for s in range(5))


def test_a_fault_of_anything_but_a_parameters_dimension_teaches_nothing() -> None:
    fn = _kernel(_OFFSET)
    args = {"x": np.ones((8, 1024), np.float32), "t0": 5, "out": np.zeros((8, 1024), np.float32)}
    bounds = Bounds()
    assert not learn_bounds(fn, InterpreterError("integer division by zero"), args, bounds)
    zero = {**args, "t0": 0}
    assert not learn_bounds(fn, _fault(fn, {**zero, "x": np.ones((4, 1024), np.float32)}), zero, bounds)
    assert bounds == Bounds()  # the offset was already 0: a cap cannot help


def _checked(text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], *options: str) -> str:
    """`slotsat check` of the kernel `text`, which must exit 0: its summary line."""
    path = tmp_path / "k.py"
    path.write_text(text)
    assert main(["check", str(path), *options]) == 0
    return capsys.readouterr().out.splitlines()[-1]


@pytest.mark.parametrize("text", [_OFFSET, _DYNAMIC, _PARAMETER], ids=["offset", "dynamic", "parameter"])
@pytest.mark.parametrize("seed", range(4))
def test_check_confirms_kernels_whose_first_draws_fault(text: str, seed: int, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert _checked(text, tmp_path, capsys, "--seed", str(seed)).endswith("1 function(s), 1 loop(s): confirmed")


# The offset reaches the store into the loop-carried tensor, not the parameter itself.
_CARRIED = _OFFSET.replace("[row, k * 256], [8, 256])", "[0, k * 256], [8, 256])").replace(
    "pl.store(y, [0, k * 256], dst)", "pl.store(y, [row, k * 256], dst)")

# The AIV half of a Group function loads at an offset the group passes in.
_GROUP = """import pypto.language as pl


@pl.program
class G:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def g_aiv(x: pl.Tensor[[8, 1024], pl.FP32], t0: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[8, 1024], pl.FP32]]) -> pl.Tensor[[8, 1024], pl.FP32]:
        for k, (dst,) in pl.pipeline(4, stage=2, init_values=(out,)):
            xt: pl.Tile[[8, 256], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [t0, k * 256], [8, 256], [8, 256], target_memory=pl.Mem.Vec)
            y: pl.Tile[[8, 256], pl.FP32, pl.Mem.Vec] = pl.tile.exp(xt)
            nxt: pl.Tensor[[8, 1024], pl.FP32] = pl.tile.store(y, [0, k * 256], dst)
            res: pl.Tensor[[8, 1024], pl.FP32] = pl.yield_(nxt)
        return res
    @pl.function(type=pl.FunctionType.Group, level=pl.Level.CORE_GROUP, role=pl.Role.SubWorker)
    def g(x: pl.Tensor[[8, 1024], pl.FP32], t0: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[8, 1024], pl.FP32]]) -> pl.Tensor[[8, 1024], pl.FP32]:
        self.g_aiv(x, t0, out)
        return out
"""


def test_an_overrun_into_a_loop_carried_tensor_teaches_through_the_carry() -> None:
    fn = _kernel(_CARRIED)
    args = {"x": np.ones((8, 1024), np.float32), "t0": 3, "out": np.zeros((8, 1024), np.float32)}
    err = _fault(fn, args)
    assert isinstance(err, OutOfBounds)
    assert err.message.startswith("store writes [3, 11) outside a tensor dimension of size 8")
    bounds = Bounds()
    assert learn_bounds(fn, err, args, bounds)
    assert bounds.caps == {"t0": 0}


def test_an_overrun_in_a_half_teaches_the_group_s_parameters() -> None:
    program = parse_source(_GROUP, "g.py").programs[0]
    functions = {f.name: f for f in program.functions}
    group = functions["g"]
    args = {"x": np.ones((8, 1024), np.float32), "t0": 6, "out": np.zeros((8, 1024), np.float32)}
    with pytest.raises(InterpreterError) as info:
        Interpreter(physical=False, prefetch=False, functions=functions).run(group, args)
    bounds = Bounds()
    assert not learn_bounds(group, info.value, args, bounds)  # the half's parameter, not the group's
    assert learn_bounds(group, info.value, args, bounds, functions)
    assert bounds.caps == {"t0": 0}


@pytest.mark.parametrize("text", [_CARRIED, _GROUP], ids=["carried", "group"])
def test_check_confirms_kernels_whose_overrun_is_learned_through_carries_and_groups(
        text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _checked(text, tmp_path, capsys).endswith(": confirmed")


def test_a_kernel_outrunning_every_dimension_it_is_given_stays_unverified(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the load starts at the dimension itself: no row count holds it, and the learned floor
    # stops at LEARNED_DIMENSION_LIMIT
    path = tmp_path / "k.py"
    path.write_text(_DYNAMIC.replace("pl.load(x, [i * 64, 0], [64, 128])", "pl.load(x, [N + i, 0], [64, 128])"))
    assert main(["check", str(path)]) == 1
    assert capsys.readouterr().out.splitlines()[-1].endswith(
        "the original program faults on every random input: load reads rows/columns [1048576, 1048640) outside a "
        "tensor dimension of size 1048576 (offsets [1048576, 0], valid shape [64, 128])")


# A tail handed over as two parameters: `rows - full` rows remain, and the tile holds 16.
# Only a `full` within 16 rows below `rows` (and not past it) keeps the valid shape in the tile.
_TAIL = """import pypto.language as pl


@pl.program
class Tail:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, rows: pl.Scalar[pl.INDEX], full: pl.Scalar[pl.INDEX], x: pl.Tensor[[rows, 256], pl.FP32], out: pl.Out[pl.Tensor[[16, 256], pl.FP32]]) -> pl.Tensor[[16, 256], pl.FP32]:
        tail: pl.Scalar[pl.INDEX] = rows - full
        for k, (dst,) in pl.pipeline(4, stage=2, init_values=(out,)):
            xt: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[tail, 64])] = pl.tile.load(x, [full, k * 64], [16, 64], [tail, 64], target_memory=pl.Mem.Vec)
            y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[tail, 64])] = pl.tile.exp(xt)
            nxt: pl.Tensor[[16, 256], pl.FP32] = pl.tile.store(y, [0, k * 64], dst)
            res: pl.Tensor[[16, 256], pl.FP32] = pl.yield_(nxt)
        return res
"""


def test_a_valid_extent_past_its_tile_fits_the_parameter_it_is_computed_from() -> None:
    fn = _kernel(_TAIL)
    args = {"rows": 40, "full": 3, "x": np.ones((40, 256), np.float32), "out": np.zeros((16, 256), np.float32)}
    err = _fault(fn, args)
    assert isinstance(err, ExtentOutOfRange)
    assert err.message == "load valid shape [37, 64] does not fit the tile shape [16, 64]"
    assert isinstance(err.misfit.extent, ir.Var)
    assert err.misfit.extent.name_hint == "tail"
    bounds = Bounds()
    assert learn_bounds(fn, err, args, bounds)
    assert [(f.parameter, f.lo, f.hi) for f in bounds.fits] == [("full", 1, 16)]  # `rows` is a dimension
    assert not learn_bounds(fn, err, args, bounds)  # nothing new
    for seed in range(20):
        drawn = random_inputs(fn, np.random.default_rng(seed), bounds=bounds)
        assert 1 <= drawn["rows"] - drawn["full"] <= 16


def test_an_extent_no_parameter_moves_teaches_nothing() -> None:
    # the valid rows are the loop variable's: no draw of a parameter changes them
    fn = _kernel(_TAIL.replace("[tail, 64]", "[k * 8, 64]"))
    args = {"rows": 40, "full": 3, "x": np.ones((40, 256), np.float32), "out": np.zeros((16, 256), np.float32)}
    err = _fault(fn, args)
    assert isinstance(err, ExtentOutOfRange)
    bounds = Bounds()
    assert not learn_bounds(fn, err, args, bounds)
    assert bounds == Bounds()


@pytest.mark.parametrize(("slope", "base"), [(-3, 100), (-1, 100), (1, -4), (2, -4)])
def test_a_fit_draws_inside_its_range_whatever_the_slope_sign(slope: int, base: int) -> None:
    fn = _kernel(_TAIL)
    extent = ir.Var("e", ir.ScalarType(ir.DType.INDEX))
    fit = Fit("full", extent, lambda a: base + slope * a["full"], 5, 11)
    for seed in range(10):
        drawn = random_inputs(fn, np.random.default_rng(seed), bounds=Bounds(fits=[fit]))
        assert 5 <= base + slope * drawn["full"] <= 11


def test_a_fit_no_value_meets_leaves_the_draw_as_it_was() -> None:
    fn = _kernel(_TAIL)
    odd = Fit("full", ir.Var("e", ir.ScalarType(ir.DType.INDEX)), lambda a: 2 * a["full"], 5, 5)
    for seed in range(5):
        plain = random_inputs(fn, np.random.default_rng(seed))
        assert random_inputs(fn, np.random.default_rng(seed), bounds=Bounds(fits=[odd]))["full"] == plain["full"]


# The same tail computed in the AIV half of a Group function from the group's parameters.
_TAIL_GROUP = _TAIL.replace(
    "@pl.function(type=pl.FunctionType.InCore)\n    def kernel(self, ",
    "@pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)\n    def kernel_aiv(",
) + """    @pl.function(type=pl.FunctionType.Group, level=pl.Level.CORE_GROUP, role=pl.Role.SubWorker)
    def kernel(rows: pl.Scalar[pl.INDEX], full: pl.Scalar[pl.INDEX], x: pl.Tensor[[rows, 256], pl.FP32], out: pl.Out[pl.Tensor[[16, 256], pl.FP32]]) -> pl.Tensor[[16, 256], pl.FP32]:
        self.kernel_aiv(rows, full, x, out)
        return out
"""


def test_a_valid_extent_a_half_computes_fits_the_group_s_parameter() -> None:
    program = parse_source(_TAIL_GROUP, "g.py").programs[0]
    functions = {f.name: f for f in program.functions}
    group = functions["kernel"]
    args = {"rows": 40, "full": 3, "x": np.ones((40, 256), np.float32), "out": np.zeros((16, 256), np.float32)}
    with pytest.raises(ExtentOutOfRange) as info:
        Interpreter(physical=False, prefetch=False, functions=functions).run(group, args)
    bounds = Bounds()
    assert learn_bounds(group, info.value, args, bounds, functions)
    assert [(f.parameter, f.lo, f.hi) for f in bounds.fits] == [("full", 1, 16)]
    for seed in range(10):
        drawn = random_inputs(group, np.random.default_rng(seed), bounds=bounds)
        assert 1 <= drawn["rows"] - drawn["full"] <= 16


@pytest.mark.parametrize("text", [_TAIL, _TAIL_GROUP], ids=["function", "group"])
@pytest.mark.parametrize("seed", range(4))
def test_check_confirms_a_kernel_handed_a_tail_as_two_parameters(text: str, seed: int, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert _checked(text, tmp_path, capsys, "--seed", str(seed)).endswith("1 loop(s): confirmed")
