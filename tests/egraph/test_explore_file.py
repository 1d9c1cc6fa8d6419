"""`slotsat explore FILE` and `--dot` (issue 12 item 5; `60-egraph-engine.md` §9.4).

Groups: the listing of every bundled kernel (JSON schema, and the pick is the cheapest
proven form of every listed expression: accepted first for a slot operand); the text
listing; `--function`; `--dot` to DOT and SVG, and the clean errors (an unknown function, a
bad `--select`, a missing `dot` program, a bad suffix); the single-expression form's pick
against its listed forms.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from slotsat.app.cli import main

ROOT = Path(__file__).resolve().parents[2]
KERNELS = sorted(p for p in (ROOT / "examples" / "kernels").glob("*.py") if not p.name.startswith("_"))


def _explore(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["explore", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def _cheapest_is_picked(expression: dict[str, Any]) -> None:
    forms = expression["forms"]
    (picked,) = [f for f in forms if f["picked"]]
    pool = forms
    if expression["slots"] is not None and any(f["matcher_accepts"] for f in forms):
        pool = [f for f in forms if f["matcher_accepts"]]
        assert picked["matcher_accepts"], expression
    assert picked["ops"] == min(f["ops"] for f in pool), expression
    assert expression["picked"] == picked["form"]


@pytest.mark.parametrize("kernel", KERNELS, ids=[k.stem for k in KERNELS])
def test_every_expression_of_a_kernel_picks_its_cheapest_proven_form(
    kernel: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = _explore(capsys, str(kernel))
    assert doc["file"] == str(kernel)
    expressions = [e for fn in doc["functions"] for e in fn["expressions"]]
    assert expressions, "every bundled kernel has index arithmetic"
    assert [e["id"] for e in expressions] == list(range(1, len(expressions) + 1))
    for e in expressions:
        assert set(e) == {"id", "line", "kind", "expr", "slots", "loops", "forms", "picked"}
        assert e["line"] >= 1
        _cheapest_is_picked(e)


def test_a_slotted_kernel_lists_its_slot_operands_with_loop_facts(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _explore(capsys, str(ROOT / "examples" / "kernels" / "unaligned_start.py"))
    (slot,) = [e for fn in doc["functions"] for e in fn["expressions"] if e["slots"] is not None]
    assert slot["kind"] == "slot operand of 't'"
    assert slot["expr"] == "(i - 3) % 4"
    assert slot["loops"] == [{"iv": "i", "start": "3", "stop": "19", "step": "1"}]
    assert slot["picked"] == "remui((i - 3), 4)"
    assert {"remui((i + 1), 4)", "floormod((i - 3), 4)"} <= {f["form"] for f in slot["forms"]}


def test_the_text_listing_numbers_lines_and_loops(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explore", str(ROOT / "examples" / "kernels" / "unaligned_start.py")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("function kernel\n")
    assert "  #1 line 15: slot operand of 't', 4 slots: (i - 3) % 4" in out
    assert "     loops: i in range(3, 19, 1)" in out
    assert "     * remui((i - 3), 4)" in out


@pytest.mark.parametrize(
    ("variable", "value", "said"),
    [
        ("SLOTSAT_CAP_CODEGEN_SLOTS", "1",
         "its index e-graph stopped before its rules settled (CODEGEN_SLOTS: round limit of 1"),
        ("SLOTSAT_EXTRACT_SECONDS", "1e-9",
         "choosing its index forms stopped at a limit (extraction time limit"),
    ],
)
def test_a_function_whose_engine_stopped_at_a_limit_is_a_warning(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, variable: str, value: str, said: str
) -> None:
    # The listing is then what the stopped engine reached, as codegen's program is.
    path = str(ROOT / "examples" / "kernels" / "unaligned_start.py")
    assert main(["explore", path]) == 0
    assert capsys.readouterr().err == ""
    monkeypatch.setenv(variable, value)
    assert main(["explore", path, "--json"]) == 0
    err = capsys.readouterr().err
    assert err.startswith(f"slotsat: warning: function 'kernel': {said}")
    assert len(err.splitlines()) == 1


def test_function_selects_one_function_and_an_unknown_one_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = str(ROOT / "examples" / "kernels" / "two_programs.py")
    names = {fn["name"] for fn in _explore(capsys, path)["functions"]}
    first = sorted(names)[0]
    only = _explore(capsys, path, "--function", first)
    assert [fn["name"] for fn in only["functions"]] == [first]
    assert main(["explore", path, "--function", "nope"]) == 2
    assert "slotsat: error: --function nope: no kernel function of that name" in capsys.readouterr().err


def test_dot_draws_the_classes_with_the_picked_nodes_highlighted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "e.dot"
    assert (
        main(["explore", str(ROOT / "examples" / "kernels" / "unaligned_start.py"), "--dot", str(out)]) == 0
    )
    capsys.readouterr()
    text = out.read_text()
    assert text.startswith("digraph egraph {")
    assert "picked: remui((i - 3), 4)" in text
    assert text.count("subgraph cluster_") >= 4  # the remainder, i - 3, i, and the literals
    assert text.count("fillcolor=gold") == 5  # remui, -, the iv and the literals 3 and 4
    assert "[label=remui fillcolor=gold" in text
    assert '[label="%"]' in text  # the floor-mod node of the same class, not picked


def test_dot_of_one_expression_and_svg(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dot = tmp_path / "x.dot"
    assert main(["explore", "(i + 3) % 4", "--loop", "i=0:64", "--dot", str(dot)]) == 0
    assert "[label=remui fillcolor=gold" in dot.read_text()
    if shutil.which("dot") is None:
        pytest.skip("graphviz's dot program is not installed")
    svg = tmp_path / "x.svg"
    assert main(["explore", "(i + 3) % 4", "--loop", "i=0:64", "--dot", str(svg)]) == 0
    capsys.readouterr()
    assert svg.read_text().lstrip().startswith(("<?xml", "<svg"))


def test_svg_without_dot_fails_cleanly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shutil, "which", lambda _name: None)
    svg = tmp_path / "x.svg"
    assert main(["explore", "(i + 3) % 4", "--loop", "i=0:64", "--dot", str(svg)]) == 2
    err = capsys.readouterr().err
    assert "slotsat: error: --dot: writing .svg needs graphviz's dot program" in err
    assert not svg.exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--dot", "x.png"], "the file must end in .dot or .svg"),
        (["--dot", "x.dot", "--select", "99"], "--select 99: the file lists"),
    ],
)
def test_bad_dot_arguments_are_usage_errors(
    argv: list[str],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["explore", str(ROOT / "examples" / "kernels" / "unaligned_start.py"), *argv]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    ("expr", "loop", "slots"),
    [
        ("(i + 3) % 4", "i=0:64:1", None),
        ("(i - 2) % 2", "i=-2:10:1", None),
        ("((k - 1) // 4) % 2", "k=0:24:4", "2"),
        ("(i - 8) // 4 % 4", "i=8:40:4", "4"),
        ("(i + 1) % 2", "i=0:?:1", "2"),
    ],
)
def test_the_single_expression_form_picks_its_cheapest_proven_form(
    expr: str, loop: str, slots: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [expr, "--loop", loop, *(["--slots", slots] if slots is not None else [])]
    doc = _explore(capsys, *argv)
    _cheapest_is_picked(
        {
            "forms": doc["forms"],
            "slots": slots,
            "picked": next(f["form"] for f in doc["forms"] if f["picked"]),
        }
    )


def test_the_issue_examples_now_pick_the_cheap_forms(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 12: `(i + 3) % 4` over `[0, 64)` listed `remui` at 2 ops yet picked the 5-op
    floormod; `(i - 2) % 2` over `[-2, 10)` listed a 4-op form and picked the 5-op one."""
    first = _explore(capsys, "(i + 3) % 4", "--loop", "i=0:64:1")
    assert next(f for f in first["forms"] if f["picked"])["form"] == "remui((i + 3), 4)"
    second = _explore(capsys, "(i - 2) % 2", "--loop", "i=-2:10:1")
    assert next(f for f in second["forms"] if f["picked"])["ops"] == min(f["ops"] for f in second["forms"])


def test_a_construct_codegen_declines_is_codegen_s_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A scalar operation codegen does not lower (a cast to a packed 4-bit integer) is
    codegen's located error, in explore as in codegen (exit 1), never a listing of what
    codegen would not emit."""
    src = (ROOT / "examples" / "kernels" / "runtime_stop.py").read_text().replace(
        "        for b, (dst,) in pl.pipeline(0, n, stage=3, init_values=(out,)):",
        "        m: pl.Scalar[pl.INT4] = pl.cast(n, pl.INT4)\n"
        "        for b, (dst,) in pl.pipeline(0, pl.cast(m, pl.INDEX), stage=3, init_values=(out,)):",
    )
    path = tmp_path / "int4.py"
    path.write_text(src)
    assert main(["codegen", str(path)]) == 1
    codegen_err = capsys.readouterr().err
    assert main(["explore", str(path)]) == 1
    err = capsys.readouterr().err
    assert err == codegen_err
    assert err.startswith(f"{path}:16:")
    assert "does not lower the cast 'pl.cast(n, pl.INT4)'" in err


def test_an_operation_codegen_emits_itself_is_an_opaque_value_of_the_listing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`n & 7` is emitted by codegen itself (`arith.andi`) before the index engine sees the
    rest: explore lists it as an opaque value, as the engine sees it."""
    src = (ROOT / "examples" / "kernels" / "runtime_stop.py").read_text().replace(
        "        for b, (dst,) in pl.pipeline(0, n, stage=3, init_values=(out,)):",
        "        m: pl.Scalar[pl.INDEX] = n & 7\n"
        "        for b, (dst,) in pl.pipeline(0, m, stage=3, init_values=(out,)):",
    )
    path = tmp_path / "bitop.py"
    path.write_text(src)
    assert main(["codegen", str(path)]) == 0
    assert "arith.andi" in capsys.readouterr().out
    assert main(["explore", str(path)]) == 0
    out = capsys.readouterr().out
    assert "* (n & 7)  ops=0" in out, out


def test_text_the_file_system_cannot_look_up_is_an_expression() -> None:
    from slotsat.app.commands.explore import is_file_argument

    assert not is_file_argument("k" + " + k" * 2000)  # longer than a file name may be
    assert not is_file_argument("i\x00 + 1")
    assert is_file_argument("missing_kernel.py")  # a .py path: its read error is reported
    assert is_file_argument(str(ROOT / "examples" / "kernels" / "unaligned_start.py"))
