"""`slotsat bench`: the generator, the report's structure and the ops invariant.

Groups:
- generator: determinism per seed, exact loop counts, the checked-in corpus equals the
  generator's output, every generated kernel parses and compiles;
- scan / naive / ground truth: the measurement helpers on hand-written `.pto` text;
- a tiny end-to-end run (the `--quick` path with reduced sizes) through the CLI into
  `tmp_path`: report.md / report.json structure, the JSON schema, valid PNGs, and the
  invariant slotsat <= pypto index ops per kernel.

No test asserts a timing target (they are reported by the benchmark, never asserted).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from slotsat.analysis.matcher import MatcherClass, Relation, ValueGraph, classify, compare
from slotsat.app.cli import main
from slotsat.bench import config, harness, lowerings, measure, metrics, scan, truth
from slotsat.bench.generate import count_loops, generate_corpus, generate_kernel, generate_single_function
from slotsat.bench.report import LOWERINGS, METRICS, PNG_MAGIC, evaluate_targets, tenfold_ratios
from slotsat.core import ir
from slotsat.core.dsl.parser import parse_source

CORPUS = Path(__file__).resolve().parents[2] / "bench" / "corpus"

# --------------------------------------------------------------------------------------
# generator


def test_the_generator_is_deterministic_per_seed() -> None:
    assert generate_kernel(5, 40).text == generate_kernel(5, 40).text
    assert [k.text for k in generate_corpus(9, 4)] == [k.text for k in generate_corpus(9, 4)]
    assert generate_kernel(5, 40).text != generate_kernel(6, 40).text


@pytest.mark.parametrize("loops", [1, 2, 3, 10, 100])
def test_a_generated_file_has_exactly_the_requested_loops(loops: int) -> None:
    assert count_loops(generate_kernel(11, loops).text) == loops


def test_a_generated_file_uses_the_features_the_corpus_promises() -> None:
    text = "".join(k.text for k in generate_corpus(0, 30, 24))
    for feature in ("pl.pipeline(", "pl.range(", "stage=", ", n, ", " // ", " % ", "pl.MemRef(",
                    ") % 2]", "[0], pl.Mem.Vec]", "[1], pl.Mem.Vec]"):
        assert feature in text, feature
    assert "    for k" in text  # three-deep nests


def test_the_checked_in_corpus_is_the_generators_output() -> None:
    files = sorted(CORPUS.glob("gen_s*_l*.py"))
    assert files
    for path in files:
        seed, loops = (int(part[1:]) for part in path.stem.split("_")[1:])
        assert path.read_text() == generate_kernel(seed, loops).text, path.name


def test_generated_kernels_parse_and_compile_in_both_modes() -> None:
    for k in generate_corpus(3, 8, 12):
        module = parse_source(k.text, f"{k.name}.py")
        for mode in ("pypto", "slotsat"):
            compiled = harness.compile_kernel(module, mode)
            assert "func.func @kernel_0" in compiled.pto


def test_a_zero_loop_file_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one loop"):
        generate_kernel(0, 0)
    with pytest.raises(ValueError, match="at least one loop"):
        generate_single_function(0, 0)


def test_the_single_function_shape_is_one_function_of_sibling_loops_rebinding_one_name() -> None:
    kernel = generate_single_function(4, 60)
    assert kernel.text == generate_single_function(4, 60).text
    assert count_loops(kernel.text) == 60
    assert kernel.text.count("        for i, (t,) in pl.pipeline(") == 60  # every loop rebinds i
    for feature in ("stage=2", "stage=3", "stage=4", ", 1, stage=", ", 2, stage=", ", 8, stage=",
                    "[i * 8, 0]", ") // 2 * 8, 0]", ") // 8 * 8, 0]", ") % 7 * 8, 0]"):
        assert feature in kernel.text, feature
    module = parse_source(kernel.text, "single.py")
    ((fn,),) = [p.functions for p in module.programs]
    loops = [s for s in fn.body.stmts if isinstance(s, ir.ForStmt)]
    assert len(loops) == 60
    # The front end's SSA renaming gives every rebinding its own binder.
    assert len({loop.loop_var.id for loop in loops}) == 60
    assert [loop.loop_var.name_hint for loop in loops[:3]] == ["i", "i_1", "i_2"]
    compiled = harness.compile_kernel(module, "slotsat", "none")
    assert compiled.pto.count("pto.alloc_multi_tile") == 60


# --------------------------------------------------------------------------------------
# scan, naive, ground truth

_PTO = """\
module attributes {pto.target_arch = "a2a3"} {
  func.func @kernel(%arg0: !pto.ptr<f32>, %arg1: index) attributes {pto.kernel_kind = KIND} {
  %c0_index = arith.constant 0 : index
  %c1_index = arith.constant 1 : index
  %c2_index = arith.constant 2 : index
  %c8_index = arith.constant 8 : index
  %PP_mb = pto.alloc_multi_tile valid_row = %c8_index valid_col = %c8_index : !pto.multi_tile_buf<TT, count=2>
  %a = pto.multi_tile_get %PP_mb[%c0_index] : !pto.multi_tile_buf<TT, count=2> -> TT
  %b = pto.multi_tile_get %PP_mb[%c1_index] : !pto.multi_tile_buf<TT, count=2> -> TT
  scf.for %i = %c0_index to %c8_index step %c1_index {
    %0 = arith.REM %i, %c2_index : index
    %t = pto.multi_tile_get %PP_mb[%0] : !pto.multi_tile_buf<TT, count=2> -> TT
    %1 = arith.divsi %i, %c2_index : index
    %2 = arith.muli %1, %c8_index : index
  }
  return
  }
}
"""


def test_scan_reads_gets_blocks_loops_and_ops() -> None:
    (fn,) = scan.scan_module(_PTO.replace("REM", "remui"))
    assert [g.handle for g in fn.gets] == ["%a", "%b", "%t"]
    assert fn.gets[0].block == fn.gets[1].block != fn.gets[2].block
    assert [op.name for op in fn.ops] == ["arith.remui", "arith.divsi", "arith.muli"]
    assert fn.gets[2].loops[0].iv.name == "%i"
    assert compare(fn.gets[0].operand, fn.gets[1].operand, 2) is Relation.DISJOINT


def test_naive_corrects_every_proven_floor_op() -> None:
    (fn,) = scan.scan_module(_PTO.replace("REM", "remsi"))
    (naive,) = lowerings.naive_functions([fn])
    names = [op.name for op in naive.ops]
    assert names.count("arith.select") == 1
    assert "arith.floordivsi" in names
    assert "arith.divsi" not in names
    assert sum(scan.op_weight(op) for op in naive.ops) == 4 + 4 + 1


_CORRECTED = """\
module attributes {pto.target_arch = "a2a3"} {
  func.func @kernel(%arg0: !pto.ptr<f32>, %arg1: index) attributes {pto.kernel_kind = KIND} {
  %c0_index = arith.constant 0 : index
  %c2_index = arith.constant 2 : index
  %c8_index = arith.constant 8 : index
  %PP_mb = pto.alloc_multi_tile valid_row = %c8_index valid_col = %c8_index : !pto.multi_tile_buf<TT, count=2>
  scf.for %i = %c0_index to %c8_index step %c2_index {
    %0 = arith.remsi %arg1, %c2_index : index
    %1 = arith.cmpi slt, %0, %c0_index : index
    %2 = arith.addi %0, %c2_index : index
    %3 = arith.select %1, %2, %0 : index
    %t = pto.multi_tile_get %PP_mb[%3] : !pto.multi_tile_buf<TT, count=2> -> TT
  }
  return
  }
}
"""


def test_swap_turns_exactly_the_bare_proven_ops_unsigned() -> None:
    (fn,) = scan.scan_module(_PTO.replace("REM", "remsi"))
    (swapped,) = lowerings.swap_functions([fn])
    assert [op.name for op in swapped.ops] == ["arith.remui", "arith.divui", "arith.muli"]
    assert sum(scan.op_weight(op) for op in swapped.ops) == sum(scan.op_weight(op) for op in fn.ops)
    assert compare(swapped.gets[2].operand, swapped.gets[2].operand, 2) is Relation.EQUAL
    assert classify(swapped.gets[2].operand, 2, None) is MatcherClass.PEELABLE
    (corrected,) = scan.scan_module(_CORRECTED)
    (kept,) = lowerings.swap_functions([corrected])
    assert [op.name for op in kept.ops] == [op.name for op in corrected.ops]  # a correction stays


def _unit(text: str) -> metrics.Unit:
    (fn,) = scan.scan_module(text)
    return metrics.Unit(fn, None, metrics.substituted_rotations(fn))


def test_measured_metrics_of_a_hand_written_function() -> None:
    failures: list[metrics.Failure] = []
    rec = metrics.Recorder("k", "slotsat", failures, {})
    m = metrics.measure_units([_unit(_PTO.replace("REM", "remui"))], rec)
    assert (m.slot_operands, m.matcher_accepted) == (3, 3)
    assert (m.same_block_pairs, m.rotation_pairs) == (1, 1)
    assert (m.pairs_resolved, m.pairs_unknown) == (2, 0)
    assert failures == []
    rec = metrics.Recorder("k", "pypto", failures, {})
    m = metrics.measure_units([_unit(_PTO.replace("REM", "remsi"))], rec)
    assert (m.matcher_accepted, m.pairs_resolved, m.pairs_unknown) == (2, 1, 1)


def test_a_wrong_model_answer_is_a_soundness_failure() -> None:
    # `k % 2` over a runtime k that ranges over negatives, lowered with a bare remsi: at
    # k = -1 it gives -1, against 1 for k + 2, so a model that unwraps remsi like remui (and
    # answers "equal") is wrong there (40 §10, soundness_failure_detected).
    text = _PTO.replace("REM", "remsi").replace("%0 = arith.remsi %i", "%0 = arith.remsi %arg1")
    (fn,) = scan.scan_module(text)
    operand = fn.gets[2].operand
    following = metrics.substitute_value(operand, fn.args["%arg1"], scan.Const(2), {}, "t")
    spec = truth.scan_truth(operand, following, fn.gets[2].loops, None)
    assert truth.ground_truth(spec, 2, 0).verdict == "mixed"
    assert compare(operand, following, 2) is Relation.UNKNOWN  # the real model is conservative
    job = metrics.PairJob("same-block", operand, following, 2, "k vs k + 2", spec)
    failures: list[metrics.Failure] = []
    from slotsat.analysis import matcher

    original = matcher.REMAINDER_OPS
    try:
        matcher.REMAINDER_OPS = frozenset({"arith.remui", "arith.remsi"})  # type: ignore[misc]
        metrics.count_pair(metrics.Metrics(), job, metrics.Recorder("k", "wrong-model", failures, {}))
    finally:
        matcher.REMAINDER_OPS = original  # type: ignore[misc]
    assert len(failures) == 1
    assert "k vs k + 2" in failures[0].pair
    assert failures[0].model == "equal"


def test_ground_truth_samples_a_large_space_deterministically() -> None:
    text = _PTO.replace("REM", "remui").replace("%i = %c0_index to %c8_index", "%i = %c0_index to %arg1")
    (fn,) = scan.scan_module(text)
    g = fn.gets[2]
    nxt = metrics.substitute_value(g.operand, g.loops[0].iv, g.loops[0].step, {}, "t")
    spec = truth.scan_truth(g.operand, nxt, g.loops, g.loops[0])
    first = truth.ground_truth(spec, 2, 7)
    assert not first.exhaustive
    assert first.verdict == "disjoint"
    assert first == truth.ground_truth(spec, 2, 7)


def test_rotation_pairs_of_a_stepped_loop_follow_the_spec() -> None:
    # 40 §10 next_iteration_stepped: pipeline(8, 40, 4, stage=4). Default mode: disjoint on a
    # shared divui symbol; pypto mode: remsi against a correction chain, unknown.
    text = """\
import pypto.language as pl


@pl.program
class Stepped:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        a: pl.Tensor[[64, 32], pl.FP16],
        out: pl.Out[pl.Tensor[[64, 32], pl.FP16]],
    ) -> pl.Tensor[[64, 32], pl.FP16]:
        for i, (dst,) in pl.pipeline(8, 40, 4, stage=4, init_values=(out,)):
            t: pl.Tile[[8, 32], pl.FP16, pl.Mem.Vec] = pl.load(a, [i, 0], [8, 32])
            e: pl.Tile[[8, 32], pl.FP16, pl.Mem.Vec] = pl.exp(t)
            nxt: pl.Tensor[[64, 32], pl.FP16] = pl.store(e, [i, 0], dst)
            res = pl.yield_(nxt)
        return res
"""
    src = config.KernelSource("stepped", "corpus", text, "stepped.py", 1)
    failures: list[metrics.Failure] = []
    result = measure.measure_kernel(src, failures, {})
    assert result.error is None
    assert failures == []
    slotsat, pypto = result.lowerings["slotsat"], result.lowerings["pypto"]
    assert (slotsat.rotation_pairs, slotsat.pairs_disjoint) == (1, 1)
    assert (pypto.rotation_pairs, pypto.pairs_unknown) == (1, 1)
    assert result.lowerings["naive"].pairs_unknown == 1
    assert result.egraph["nodes"] > 0


def test_tenfold_ratios_pair_sizes_ten_apart() -> None:
    points = [{"loops": 1, "seconds": 0.1}, {"loops": 10, "seconds": 0.5}, {"loops": 100, "seconds": 6.0}]
    assert [(a, b, round(r, 2)) for a, b, r in tenfold_ratios(points)] == [(1, 10, 5.0), (10, 100, 12.0)]


def test_the_phase_breakdown_adds_other_and_unmarked_so_the_leaves_sum_to_the_total() -> None:
    from slotsat.bench.scaling import leaf_phases, phase_breakdown

    recorded = {"parse": 0.5, "codegen": 2.0, "codegen.saturate": 0.75, "codegen.emit": 0.25,
                "codegen.emit.text": 0.125, "slots": 0.25}
    breakdown = phase_breakdown(recorded, 3.0)
    assert breakdown["codegen.other"] == 1.0
    assert breakdown["codegen.emit.other"] == 0.125
    assert "parse.other" not in breakdown
    assert breakdown["unmarked"] == 0.25
    leaves = leaf_phases(breakdown)
    assert set(leaves) == {"parse", "slots", "codegen.saturate", "codegen.other", "codegen.emit.text",
                           "codegen.emit.other", "unmarked"}
    assert sum(leaves.values()) == pytest.approx(3.0)


def test_the_compile_time_targets_say_met_only_on_a_measurement() -> None:
    def point(loops: int, seconds: float | None, mb: float | None = 100.0) -> dict[str, Any]:
        return {"loops": loops, "seconds": seconds, "peak_mb": mb}

    data: dict[str, Any] = {
        "lowerings": {}, "kernels": [],
        "scaling": [point(100, 0.2), point(1000, 1.9), point(10000, 30.0, 1500.0)],
        "scaling_single": [point(100, 0.1), point(1000, 1.5)],
        "startup": {"parse_one_loop_seconds": 0.25, "version_seconds": 0.05},
        "command": {"single": {"loops": 1000, "seconds": 2.5, "times": [2.5]},
                    "functions": {"loops": 100, "seconds": 0.9, "times": [0.9]}},
    }
    targets = {t.name: t for t in evaluate_targets(data)}
    assert targets["single-time-1000"].status == "met"
    assert (targets["single-command-1000"].status, targets["single-command-1000"].detail) == (
        "missed", "0.50 s over (1.2x the budget)")
    assert (targets["functions-command-1000"].status, targets["functions-command-1000"].detail) == (
        "not measured", "timed at 100 loops, not 1,000")
    assert (targets["single-tenfold"].status, targets["single-tenfold"].detail) == (
        "missed", "100->1000 is 4.00x over")
    assert targets["functions-tenfold"].status == "missed"  # 1,000 -> 10,000 is 15.8x
    assert targets["functions-time-10000"].status == "missed"
    assert targets["functions-memory-10000"].status == "missed"
    assert targets["single-time-10000"].status == "not measured"
    assert targets["single-memory-10000"].status == "not measured"
    assert targets["parse-one-loop"].status == "met"
    data["scaling_single"] = [point(100, 0.2), point(1000, 1.5)]
    data["startup"] = {"error": "slotsat parse exited 3"}
    data["command"] = {"single": {"loops": 1000, "seconds": None, "error": "slotsat codegen exited 3: boom"}}
    targets = {t.name: t for t in evaluate_targets(data)}
    assert targets["single-command-1000"].status == "not measured"
    assert targets["functions-command-1000"].status == "not measured"
    assert targets["single-tenfold"].status == "not measured"  # 1,000 -> 10,000 not run
    assert targets["parse-one-loop"].status == "not measured"


def test_a_time_just_over_its_bound_says_so_in_milliseconds() -> None:
    data: dict[str, Any] = {"lowerings": {}, "kernels": [], "scaling": [],
                            "scaling_single": [{"loops": 1000, "seconds": 2.004, "peak_mb": 100.0}]}
    (target,) = [t for t in evaluate_targets(data) if t.name == "single-time-1000"]
    assert (target.status, target.measured, target.detail) == (
        "missed", "2.00 s", "4.0 ms over (1.0x the budget)")


def test_a_missed_target_says_by_how_much() -> None:
    data: dict[str, Any] = {
        "lowerings": {}, "scaling": [{"loops": 1000, "seconds": 3.5, "peak_mb": 100.0}], "kernels": [],
    }
    (target,) = [t for t in evaluate_targets(data) if t.name == "time-1000"]
    assert target.status == "missed"
    assert "1.50 s over" in target.detail


# --------------------------------------------------------------------------------------
# a tiny end-to-end run through the CLI


@pytest.fixture(scope="module")
def tiny_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, Path, dict[str, Any], str]:
    out = tmp_path_factory.mktemp("bench")
    import contextlib
    import io

    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        status = main(["bench", "--quick", "--json", "--out", str(out), "--seed", "3",
                       "--kernels", "4", "--max-loops", "6", "--scaling", "1,10"])
    printed = json.loads(stdout.getvalue())
    return status, out, printed, (out / "report.md").read_text()


TinyReport = tuple[int, Path, dict[str, Any], str]


def test_the_tiny_bench_exits_zero_and_prints_report_json(tiny_report: TinyReport) -> None:
    status, out, printed, _ = tiny_report
    assert status == 0
    assert printed == json.loads((out / "report.json").read_text())


def test_report_json_has_the_issue_schema(tiny_report: TinyReport) -> None:
    from slotsat.bench.scaling import leaf_phases

    _, _, data, _ = tiny_report
    assert set(data["lowerings"]) == set(LOWERINGS)
    for name in LOWERINGS:
        for metric in METRICS:
            assert isinstance(data["lowerings"][name][metric], int), (name, metric)
    assert [p["loops"] for p in data["scaling"]] == [1, 10]
    assert [p["loops"] for p in data["scaling_single"]] == [1, 10]
    for point in data["scaling"] + data["scaling_single"]:
        assert point.get("error") is None, point
        assert point["seconds"] > 0
        assert point["peak_mb"] > 0
        phases = point["phases"]
        assert {"parse", "slots", "replication", "init-memref", "codegen", "unmarked"} <= set(phases)
        assert sum(leaf_phases(phases).values()) == pytest.approx(point["seconds"])
        assert phases["parse"] <= point["parse_seconds"]
    assert {p["functions"] for p in data["scaling_single"]} == {1}
    assert data["startup"]["parse_one_loop_seconds"] > 0
    for shape in ("functions", "single"):  # this run's largest size, timed as a `slotsat codegen` process
        command = data["command"][shape]
        assert (command["loops"], command["runs"], command.get("error")) == (10, 1, None)
        assert command["seconds"] == command["times"][0] > 0
    sources = {k["source"] for k in data["kernels"]}
    assert {"bundled", "random"} <= sources
    assert sum(1 for k in data["kernels"] if k["source"] == "random") == 4
    for k in data["kernels"]:
        assert k["error"] is None, k
        assert set(k["lowerings"]) == set(LOWERINGS)
    assert {t["status"] for t in data["targets"]} <= {"met", "missed", "not measured"}
    assert data["soundness_failures"] == []


def test_totals_are_the_sum_over_kernels(tiny_report: TinyReport) -> None:
    _, _, data, _ = tiny_report
    for name in LOWERINGS:
        for metric in METRICS:
            total = sum(k["lowerings"][name][metric] for k in data["kernels"])
            assert data["lowerings"][name][metric] == total


def test_slotsat_emits_no_more_index_ops_than_pypto_on_any_kernel(
    tiny_report: TinyReport) -> None:
    _, _, data, _ = tiny_report
    for k in data["kernels"]:
        assert k["lowerings"]["slotsat"]["index_ops"] <= k["lowerings"]["pypto"]["index_ops"], k["name"]
        assert k["lowerings"]["pypto"]["index_ops"] <= k["lowerings"]["naive"]["index_ops"], k["name"]


def test_report_md_has_every_section(tiny_report: TinyReport) -> None:
    _, _, data, md = tiny_report
    for heading in ("# slotsat bench report", "## Totals per lowering", "## Targets", "## Scaling",
                    "## Scaling, every loop in one function", "## Compile-time phases", "## Per kernel",
                    "## Method", "## Plots"):
        assert heading in md
    for name in LOWERINGS:
        assert f"| {name} | {data['lowerings'][name]['index_ops']} |" in md
    for k in data["kernels"]:
        assert f"| {k['name']} |" in md
    for base in ("naive", "pypto", "swap"):
        assert f"slotsat over {base}: index ops x" in md
    assert "## Rules fired" in md


def test_the_report_states_gains_and_rules(tiny_report: TinyReport) -> None:
    _, _, data, _ = tiny_report
    assert set(data["gains"]) == {"naive", "pypto", "swap"}
    s, w = data["lowerings"]["slotsat"], data["lowerings"]["swap"]
    assert data["gains"]["swap"]["index_ops_saved"] == w["index_ops"] - s["index_ops"]
    assert data["lowerings"]["swap"]["index_ops"] == data["lowerings"]["pypto"]["index_ops"]
    assert data["lowerings"]["swap"]["matcher_accepted"] >= data["lowerings"]["pypto"]["matcher_accepted"]
    assert "proven_remainder" in data["rules"]
    assert data["rules"]["proven_remainder"]["matches"] > 0
    assert {t["name"] for t in data["targets"]} >= {"ops-vs-pypto", "ops-vs-swap"}


def test_the_plots_are_valid_pngs(tiny_report: TinyReport) -> None:
    _, out, data, _ = tiny_report
    assert data["plots"] == ["ops_per_lowering.png", "scaling.png", "phases.png"]
    for name in data["plots"]:
        blob = (out / name).read_bytes()
        assert blob.startswith(PNG_MAGIC)
        assert len(blob) > 1000


def test_corpus_dir_measures_exactly_its_files(tmp_path: Path) -> None:
    out = tmp_path / "out"
    status = main(["bench", "--corpus", str(CORPUS), "--out", str(out), "--scaling", ""])
    data = json.loads((out / "report.json").read_text())
    assert status == 0
    assert sorted(k["name"] for k in data["kernels"]) == sorted(p.stem for p in CORPUS.glob("*.py"))
    assert {k["source"] for k in data["kernels"]} == {"corpus"}


def test_run_quick_summary_prints_the_summary_table(tmp_path: Path) -> None:
    import io

    from rich.console import Console

    from slotsat.bench.command import run_quick_summary

    buffer = io.StringIO()
    sizes = config.BenchConfig(seed=1, quick=True, random_kernels=1, max_loops=2, scaling=(),
                               single_scaling=(), include_bundled=False)
    status = run_quick_summary(Console(file=buffer, width=120), tmp_path, sizes)
    text = buffer.getvalue()
    assert status == 0
    assert "totals per lowering" in text
    for name in LOWERINGS:
        assert name in text
    assert (tmp_path / "report.md").exists()


def test_the_bare_class_sees_through_unsigned_quotients_and_remainders() -> None:
    # strided_exp's bare slot divui(i - 8, 64) over range(8, 264, 64) lies in [0, 3]:
    # the benchmark's own interval must agree with the engine that accepted it.
    g = ValueGraph()
    i = g.opaque("%i")
    loop = scan.Loop(i, g.const(8), g.const(264), g.const(64))
    quotient = g.op("arith.divui", g.op("arith.subi", i, g.const(8)), g.const(64))
    assert metrics._interval(quotient, [loop]) == (0, 3)
    assert metrics._interval(g.op("arith.remui", i, g.const(4)), [loop]) == (0, 3)
    below_zero = g.op("arith.divui", g.op("arith.subi", i, g.const(9)), g.const(64))
    assert metrics._interval(below_zero, [loop]) is None


def test_a_kernel_that_does_not_compile_fails_the_run(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    good = sorted(CORPUS.glob("gen_s1_*.py"))[0]
    (corpus / good.name).write_text(good.read_text())
    (corpus / "broken.py").write_text("import pypto.language as pl\n\nx = 1\n")
    out = tmp_path / "out"
    assert main(["bench", "--corpus", str(corpus), "--out", str(out), "--scaling", ""]) == 1
    err = capsys.readouterr().err
    assert f"slotsat: kernel failure: broken ({corpus / 'broken.py'}): SlotsatError: " in err
    data = json.loads((out / "report.json").read_text())
    assert [k["name"] for k in data["kernel_failures"]] == ["broken"]
    (good_result,) = [k for k in data["kernels"] if k["error"] is None]
    assert data["lowerings"]["slotsat"] == good_result["lowerings"]["slotsat"]
    (target,) = [t for t in data["targets"] if t["name"] == "kernels"]
    assert (target["status"], target["detail"]) == ("missed", "1 failed: broken")
    assert "## Kernel failures" in (out / "report.md").read_text()


def test_a_crash_inside_the_compiler_fails_the_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def crash(module: object, mode: str) -> object:
        raise RuntimeError("boom")

    monkeypatch.setattr(measure, "compile_kernel", crash)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    good = sorted(CORPUS.glob("gen_s1_*.py"))[0]
    (corpus / good.name).write_text(good.read_text())
    out = tmp_path / "out"
    assert main(["bench", "--corpus", str(corpus), "--out", str(out), "--scaling", ""]) == 1
    assert f"slotsat: kernel failure: {good.stem} ({corpus / good.name}): RuntimeError: boom" in \
        capsys.readouterr().err


# --------------------------------------------------------------------------------------
# scaling points that run out of time


def test_a_scaling_point_that_times_out_in_the_probe_keeps_its_timing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The child prints its timing and memory figures before the e-graph probe runs; a timeout
    after them keeps those figures (the probe's are reported missing), one before them keeps
    none."""
    import subprocess

    from slotsat.bench import scaling

    timed = {"loops": 1000, "seconds": 28.5, "peak_mb": 190.0, "compile_seconds": 26.0}

    def run(cmd: list[str], **kwargs: Any) -> Any:
        raise subprocess.TimeoutExpired(cmd, kwargs["timeout"], output=json.dumps(timed) + "\n")

    monkeypatch.setattr(scaling.subprocess, "run", run)
    point = scaling.run_scaling_point(1000, 0, 34.0)
    assert point["seconds"] == 28.5
    assert point["peak_mb"] == 190.0
    assert "saturate_seconds" not in point
    assert point["probe_error"].startswith("the e-graph probe timed out")
    targets = {t.name: t for t in evaluate_targets({"scaling": [point], "lowerings": {}, "kernels": []})}
    assert targets["saturate-1000"].status == "not measured"
    assert "probe timed out" in targets["saturate-1000"].detail
    assert targets["memory-1000"].measured == "190 MB"

    def silent(cmd: list[str], **kwargs: Any) -> Any:
        raise subprocess.TimeoutExpired(cmd, kwargs["timeout"], output="")

    monkeypatch.setattr(scaling.subprocess, "run", silent)
    assert scaling.run_scaling_point(1000, 0, 34.0)["seconds"] is None


def test_a_point_reports_the_median_of_at_least_min_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    from slotsat.bench import scaling

    monkeypatch.setattr(scaling, "MIN_TIMED_SECONDS", 0.0)  # no repeats for a fast size
    assert scaling.scaling_point(1, 0, "single")["repeats"] == 1
    point = scaling.scaling_point(1, 0, "single", min_runs=3)
    assert point["repeats"] == 3
    assert point["seconds"] > 0


def test_the_scaling_child_prints_its_timing_before_the_probe(capsys: pytest.CaptureFixture[str]) -> None:
    from slotsat.bench import scaling

    assert scaling._main(["--scaling-point", "1"]) == 0
    first, last = capsys.readouterr().out.strip().splitlines()
    assert "saturate_seconds" not in json.loads(first)
    assert json.loads(first)["seconds"] == json.loads(last)["seconds"]
    assert "saturate_seconds" in json.loads(last)


def test_a_point_that_hit_an_egraph_limit_measures_no_target() -> None:
    """A compile that stopped saturating at a limit did less than the whole work: its time and
    memory are reported, and no target counts them (the ten-fold step through it neither)."""
    hit = ["CODEGEN_SLOTS: row limit of 500000 (SLOTSAT_EGRAPH_NODES raises it)"]
    data: dict[str, Any] = {
        "lowerings": {}, "kernels": [],
        "scaling": [{"loops": 1000, "seconds": 1.0, "peak_mb": 100.0, "saturate_seconds": 0.1,
                     "egraph_limits_hit": hit}],
        "scaling_single": [{"loops": 1000, "seconds": 1.5, "peak_mb": 100.0},
                           {"loops": 10000, "seconds": 5.0, "peak_mb": 500.0, "egraph_limits_hit": hit}],
    }
    targets = {t.name: t for t in evaluate_targets(data)}
    for name in ("time-1000", "saturate-1000", "memory-1000", "single-time-10000", "single-memory-10000"):
        assert targets[name].status == "not measured", name
        assert "hit an e-graph limit" in targets[name].detail
    assert targets["single-time-1000"].status == "met"
    assert targets["single-tenfold"].status == "not measured"


def test_a_compile_reports_the_egraph_limits_it_hit(monkeypatch: pytest.MonkeyPatch) -> None:
    """`Compiled.limits_hit` names each limit the index engines and the slots pass hit."""
    kernel = generate_single_function(0, 3)
    module = parse_source(kernel.text, "k.py")
    assert harness.compile_kernel(module, "slotsat", "none").limits_hit == []
    monkeypatch.setenv("SLOTSAT_EGRAPH_NODES", "50")
    hits = harness.compile_kernel(module, "slotsat", "none").limits_hit
    assert any("row limit of 50" in h for h in hits)
    assert any(h.startswith("slots pass: ") for h in hits)


def test_a_scaling_point_runs_under_raised_limits_and_keeps_higher_ones() -> None:
    from slotsat.bench.scaling import SCALING_EGRAPH_ROWS, scaling_env

    env = scaling_env({"SLOTSAT_EGRAPH_NODES": "100", "SLOTSAT_MAX_FILE_BYTES": str(10**9), "OTHER": "x"})
    assert env["SLOTSAT_EGRAPH_NODES"] == str(SCALING_EGRAPH_ROWS)
    assert env["SLOTSAT_MAX_FILE_BYTES"] == str(10**9)
    assert float(env["SLOTSAT_EGRAPH_SECONDS"]) >= 600
    assert float(env["SLOTSAT_EXTRACT_SECONDS"]) >= 600
    assert env["OTHER"] == "x"
    assert scaling_env({"SLOTSAT_EGRAPH_NODES": "many"})["SLOTSAT_EGRAPH_NODES"] == str(SCALING_EGRAPH_ROWS)


def test_a_scaling_point_run_in_process_leaves_the_environment_as_it_was(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from slotsat.bench import scaling

    monkeypatch.delenv("SLOTSAT_EGRAPH_NODES", raising=False)
    before = dict(__import__("os").environ)
    assert scaling._main(["--scaling-point", "1", "--shape", "single"]) == 0
    assert dict(__import__("os").environ) == before
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["egraph_limits_hit"] == []
