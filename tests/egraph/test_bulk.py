"""The bulk loader (`slotsat.egraph_rules.bulk`): inserting through egglog's `input` and load
rules gives the e-graph one command per action gives, table for table, and leaves nothing of
its own behind; what it cannot state as rows goes as commands."""

from __future__ import annotations

import sys
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slotsat.core import ir
from slotsat.core.options import Mode
from slotsat.egraph_rules import session as session_mod
from slotsat.egraph_rules.bulk import BulkLoader, Signature
from slotsat.egraph_rules.calls import Action, Call, Set
from slotsat.egraph_rules.lang import dtype_ref
from slotsat.egraph_rules.loops import LoopInfo, loop_facts
from slotsat.egraph_rules.schedules import INDEX_ENGINE, SLOTS_PASS, ProgramSpec
from slotsat.egraph_rules.session import session
from tests.egraph.helpers import C, var
from tests.egraph.test_session import _choices

K = dtype_ref(ir.DType.INDEX)


def _snapshot(spec: ProgramSpec, actions: Sequence[Action], *, bulk: bool, mp: pytest.MonkeyPatch) -> object:
    """Every table of `spec`'s symbols and the row count after inserting `actions`."""
    mp.setattr(session_mod, "BULK", bulk)
    with session(spec) as s:
        assert s.low
        assert s._path.bulk is not None  # type: ignore[attr-defined]  # the loader is in use
        s.insert(actions)
        tables = {name: sorted(map(repr, s.table(name))) for name in spec.symbols if _readable_table(name)}
        return tables, s.rows()


def _readable_table(name: str) -> bool:
    return not name.startswith("Dtype.")


def _loop(key: int, start: int, stop: int, step: int) -> list[Action]:
    return list(loop_facts(key, LoopInfo(var(f"i{key}"), C(start), C(stop), C(step))))


def _slots_pass_actions() -> list[Action]:
    """Every kind of action the slots pass inserts: loop facts, tiles, relations over two
    e-classes, a relation with a string, a function set to an integer, and index terms."""
    loop, inner = Call("Loop", (1,)), Call("Loop", (2,))
    tile, other = Call("Tile", (10,)), Call("Tile", (11,))
    iv = Call("iv", (loop,))
    return [
        *_loop(1, 0, 64, 1),
        *_loop(2, 4, 40, 4),
        Set(Call("stages", (loop,)), 2),
        Set(Call("candidate_count", (loop,)), 1),
        Call("encloses", (loop, inner)),
        Call("candidate", (tile, loop)),
        Call("tile_var", (tile,)),
        Call("alias_edge", (tile, other)),
        Call("capacity_declined", (inner, "needs 3 buffers of 64 KiB")),
        Call("floormod", (Call("sub", (iv, Call("const", (0, K)))), Call("const", (2, K)))),
        Call("add", (Call("var", ("n", K)), Call("mul", (iv, Call("const", (-8, K)))))),
    ]


def test_the_loader_gives_the_e_graph_commands_give(monkeypatch: pytest.MonkeyPatch) -> None:
    actions = _slots_pass_actions()
    bulk = _snapshot(SLOTS_PASS, actions, bulk=True, mp=monkeypatch)
    commands = _snapshot(SLOTS_PASS, actions, bulk=False, mp=monkeypatch)
    assert bulk == commands
    tables, rows = bulk
    for name in ("capacity_declined", "encloses", "stages"):
        assert tables[name], name  # type: ignore[index]
    assert rows > len(actions)


@pytest.mark.parametrize("mode", list(Mode))
def test_the_engine_decides_alike_with_and_without_the_loader(
    mode: Mode, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(session_mod, "BULK", True)
    loaded = _choices(mode)
    monkeypatch.setattr(session_mod, "BULK", False)
    assert _choices(mode) == loaded


@pytest.mark.parametrize(
    "name",
    ["\tx", " lead", "trail ", "two\nlines", "cr\rlf", "tab\tinside", "\u2028sep"],
)
def test_a_string_the_reader_would_alter_goes_as_commands(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    actions: list[Action] = [Call("var", (name, K)), Call("var", ("plain", K))]
    assert _snapshot(INDEX_ENGINE, actions, bulk=True, mp=monkeypatch) == _snapshot(
        INDEX_ENGINE, actions, bulk=False, mp=monkeypatch
    )
    monkeypatch.setattr(session_mod, "BULK", True)
    with session(INDEX_ENGINE) as s:
        s.insert(actions)
        (term,) = s.extract([Call("var", (name, K))])
    assert term == Call("var", (name, K))


def test_rows_refuses_what_it_cannot_state() -> None:
    sigs = {
        "Loop": Signature("constructor", ("i64",), "L"),
        "start": Signature("function", ("L",), "i64"),
        "flag": Signature("function", ("L",), "bool"),
        "named": Signature("relation", ("L", "String"), "Unit"),
    }
    loader = BulkLoader(sigs, {name: f"egg_{name}" for name in sigs})
    assert "flag" not in loader.loads  # bool: egglog's input reads i64 and String only
    loop = Call("Loop", (1,))
    ok = loader.rows([Set(Call("start", (loop,)), 3), Call("named", (loop, "x"))])
    assert ok is not None
    tables, nodes = ok
    assert sorted(len(lines) for lines in tables.values()) == [1, 1, 1]
    assert list(nodes.values()) == [1]
    for refused in (
        [Set(Call("flag", (loop,)), True)],
        [Set(Call("start", (loop,)), 1), Set(Call("start", (loop,)), 2)],  # order would matter
        [Call("Loop", (2**63,))],
        [Call("Loop", (True,))],
        [Call("named", (loop, " x"))],
        [Call("unknown", ())],
        [Call("named", (Call("start", (loop,)), "x"))],  # a function where a term must be
    ):
        assert loader.rows(refused) is None
    assert loader.next_id == 1  # a refused insertion hands out no ids


_leaf = st.one_of(
    st.builds(lambda v: Call("const", (v, K)), st.integers(-(2**63), 2**63 - 1)),
    st.builds(lambda n: Call("var", (n, K)), st.sampled_from(["n", "m", "k_1"])),
    st.builds(lambda key: Call("iv", (Call("Loop", (key,)),)), st.integers(0, 2)),
)
_terms = st.recursive(
    _leaf,
    lambda sub: st.builds(
        lambda op, a, b: Call(op, (a, b)),
        st.sampled_from(["add", "sub", "mul", "floordiv", "floormod"]),
        sub,
        sub,
    ),
    max_leaves=12,
)


@settings(max_examples=40, deadline=None)
@given(st.lists(_terms, min_size=1, max_size=6), st.integers(0, 2))
def test_random_terms_load_as_commands_insert_them(terms: list[Call], key: int) -> None:
    actions: list[Action] = [*_loop(key, 0, 16, 1), *terms]
    with pytest.MonkeyPatch.context() as mp:
        assert _snapshot(INDEX_ENGINE, actions, bulk=True, mp=mp) == _snapshot(
            INDEX_ENGINE, actions, bulk=False, mp=mp
        )


def test_a_deep_term_needs_no_recursion() -> None:
    """The parser allows sums deeper than Python's recursion limit in other walks; the loader
    states them iteratively."""
    sigs = {
        "const": Signature("constructor", ("i64",), "I"),
        "add": Signature("constructor", ("I", "I"), "I"),
    }
    loader = BulkLoader(sigs, {name: f"egg_{name}" for name in sigs})
    depth = sys.getrecursionlimit() + 200
    term = Call("const", (0,))
    for k in range(1, depth):
        term = Call("add", (term, Call("const", (k,))))
    out = loader.rows([term])
    assert out is not None
    assert out[1] == {"I": 2 * depth - 1}
