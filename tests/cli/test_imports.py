"""The CLI imports only what a command uses (issue 14: lazy imports).

Each case runs the command in a fresh interpreter and lists the heavy third-party packages
that ended up in `sys.modules`: `slotsat --version` and `slotsat parse` (text and `--json`)
import none of xdsl, matplotlib, egglog, z3, rich or networkx; `slotsat slots` (e-graph
rules and a rich table) imports neither xdsl nor matplotlib. A property of the import
graph, not a timing.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from slotsat.bench.generate import generate_single_function

HEAVY = ("xdsl", "matplotlib", "egglog", "z3", "rich", "networkx")

_PROBE = """
import contextlib, io, json, sys
from slotsat.app.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    try:
        status = main(sys.argv[1:])
    except SystemExit as exit:  # --version exits from argparse
        status = exit.code
heavy = sorted({m.split(".")[0] for m in sys.modules} & set(HEAVY))
print(json.dumps({"status": status, "heavy": heavy, "printed": len(out.getvalue())}))
"""


def _imported(args: list[str]) -> dict[str, object]:
    code = f"HEAVY = {HEAVY!r}\n{_PROBE}"
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    result: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


@pytest.fixture(scope="module")
def one_loop(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("imports") / "one_loop.py"
    path.write_text(generate_single_function(0, 1).text)
    return path


def test_the_version_imports_no_heavy_package() -> None:
    assert _imported(["--version"]) == {"status": 0, "heavy": [], "printed": len("slotsat 0.1.0\n")}


@pytest.mark.parametrize("flags", [[], ["--json"]])
def test_parse_imports_no_heavy_package(one_loop: Path, flags: list[str]) -> None:
    result = _imported(["parse", *flags, str(one_loop)])
    assert result["status"] == 0
    assert result["heavy"] == []
    assert isinstance(result["printed"], int)
    assert result["printed"] > 0


def test_slots_imports_neither_xdsl_nor_matplotlib(one_loop: Path) -> None:
    result = _imported(["slots", str(one_loop)])
    assert result["status"] == 0
    heavy = result["heavy"]
    assert isinstance(heavy, list)
    assert "xdsl" not in heavy
    assert "matplotlib" not in heavy
    assert "egglog" in heavy  # the slots pass's rules run: the probe saw the command work
