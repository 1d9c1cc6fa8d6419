"""Rule coverage (`60-egraph-engine.md` §12, issue 13 item 12): every named rule of every
ruleset fires on the corpus the project ships, compiled the way a user compiles it; plus the
pinned iteration counts of the schedules and the export adapter.

The corpus is every bundled kernel (`examples/kernels/*.py`) and every checked-in benchmark
kernel (`bench/corpus/*.py`), each through `compile_source` in both modes under both
planners. Every e-graph the compilation builds (the slots pass's, the index engine's) is a
`Session`, so the matches are read from `Session.run`. A rule that fires nowhere fails the
test: it is removed, or a kernel that needs it joins the corpus. `EXEMPT` lists the rules no
compiling kernel can reach, each with the reason (reviewed; a stale entry fails).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from slotsat.app.pipeline import CompileOptions, compile_source
from slotsat.core import ir
from slotsat.core.options import Mode, Planner
from slotsat.egraph_rules import session as session_mod
from slotsat.egraph_rules.calls import Call
from slotsat.egraph_rules.engine import EmittedScope, IndexEngine
from slotsat.egraph_rules.lang import dtype_ref
from slotsat.egraph_rules.loops import LoopInfo, loop_facts
from slotsat.egraph_rules.schedules import CODEGEN_SLOTS, INDEX_ENGINE, registered_rules
from slotsat.egraph_rules.session import Limits, session
from slotsat.egraph_rules.view import EGraphView
from tests.egraph.helpers import C, add, fdiv, fmod, sub, var

INT64_MAX = (1 << 63) - 1
ROOT = Path(__file__).resolve().parents[2]
CORPUS = [
    *sorted((ROOT / "examples" / "kernels").glob("*.py")),
    *sorted((ROOT / "bench" / "corpus").glob("*.py")),
]

_REJECTED_LATER = "the pipeline rejects every kernel that reaches it, after the slots pass ({})"
EXEMPT: dict[str, str] = {
    "gate_tile_space": "unreachable from the DSL: the parser rejects a load outside Vec and Mat",
    "gate_capacity_size": "unreachable from the DSL: a load of no static size (rank-1 Acc) does not parse",
    "gate_runtime_step": _REJECTED_LATER.format("lower-pipeline-loops needs a literal step"),
    "gate_non_positive_step": _REJECTED_LATER.format("codegen needs a positive literal step"),
    "gate_cross_core": _REJECTED_LATER.format("codegen has no tpush / tpop"),
}
"""Rule -> why no compiling kernel of the corpus can make it fire (each decline is pinned by its
negative test in tests/slots)."""


@pytest.fixture(scope="module")
def fired() -> Counter[str]:
    counts: Counter[str] = Counter()
    run = session_mod.Session.run

    def counting(self: session_mod.Session, *args: object, **kwargs: object) -> session_mod.ScheduleRun:
        result = run(self, *args, **kwargs)  # type: ignore[arg-type]
        counts.update(result.matches)
        return result

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(session_mod.Session, "run", counting)
        for path in CORPUS:
            for planner in Planner:
                for mode in Mode:
                    compile_source(path.read_text(), path.name, CompileOptions(planner=planner, mode=mode))
    return counts


def test_the_corpus_holds_the_bundled_and_the_benchmark_kernels() -> None:
    assert {p.parent.name for p in CORPUS} == {"kernels", "corpus"}


def test_every_rule_fires_on_the_shipped_corpus(fired: Counter[str]) -> None:
    never = sorted(name for name in registered_rules() if fired[name] == 0 and name not in EXEMPT)
    assert not never, f"rules that never fire on the corpus (remove each or add a kernel needing it): {never}"


def test_the_exempt_rules_are_current_and_never_fire(fired: Counter[str]) -> None:
    rules = registered_rules()
    assert all(name in rules for name in EXEMPT), sorted(set(EXEMPT) - set(rules))
    assert not [name for name in EXEMPT if fired[name]], "an exempt rule fires: drop its exemption"


def test_iteration_counts_are_pinned() -> None:
    i = var("i")
    engine = IndexEngine()
    engine.add_loop(LoopInfo(i, C(8), C(40), C(4)))
    engine.add_root(fmod(fdiv(sub(i, C(8)), C(4)), C(4)), slots=4)
    engine.add_root(fmod(fdiv(sub(add(i, C(4)), C(8)), C(4)), C(4)), slots=4)
    report = engine.saturate().report
    assert report.iterations == 6  # floordiv_unshift_add unions (i - 8) // 4 + 1 with (i - 4) // 4
    assert report.limit_hit is None
    engine = IndexEngine()
    engine.add_loop(LoopInfo(i, C(0), C(4), C(1)))
    engine.add_root(fmod(i, C(2)), slots=2)
    assert engine.saturate().report.iterations == 2


def test_a_hit_limit_is_reported_and_the_form_stays_correct() -> None:
    i = var("i")
    engine = IndexEngine(limits=Limits(rounds=1))
    engine.add_loop(LoopInfo(i, C(8), C(40), C(4)))
    root = engine.add_root(fmod(fdiv(sub(add(i, C(4)), C(8)), C(4)), C(4)), slots=4)
    report = engine.saturate().report
    assert report.limit_hit is not None
    assert report.limit_hit.startswith("CODEGEN_SLOTS: round limit of 1")
    chosen = engine.choose(root, EmittedScope())
    from slotsat.core.semantics import eval_expr
    from slotsat.egraph_rules.costs import evaluate_term

    for v in range(8, 40, 4):
        assert evaluate_term(chosen.term, {i.id: v}) == eval_expr(engine.roots[root].expr, {i.id: v})


def test_export_adapter_reads_classes_and_facts() -> None:
    iv = Call("iv", (Call("Loop", (7,)),))
    with session(INDEX_ENGINE) as s:
        s.insert(
            [
                *loop_facts(7, LoopInfo(var("i"), C(0), C(10), C(1))),
                Call("floormod", (iv, Call("const", (4, dtype_ref(ir.DType.INDEX))))),
            ]
        )
        s.run(CODEGEN_SLOTS, Limits())
        view = EGraphView.from_json(s.export())
    iv_cls = view.find(("iv", (7,), ()))
    assert iv_cls is not None
    assert view.interval(iv_cls) == (0, 9)
    assert view.proof(iv_cls) == "syntactic"
    kinds = {n.kind for nodes in view.classes.values() for n in nodes}
    assert {"iv", "const", "floormod", "remu"} <= kinds
