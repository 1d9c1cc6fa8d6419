"""Call trees: the one form in which Python states facts and terms for egglog, and reads
results back (`slotsat.egraph_rules.session`).

A `Call(symbol, args)` names a constructor, function or relation of the languages by its
symbol (`"Loop"`, `"loop_start"`, `"const"`, `"Dtype.INDEX"`; the tables are the `SYMBOLS`
of `loops`, `lang`, `gates`, `slotize`), with arguments that are calls or `i64` / `String` /
`Bool` literals (`int`, `str`, `bool`). An action is a `Call` (insert the term or the
relation row) or a `Set(call, value)` (`set_(call).to(value)`). The session lowers them to
egglog's command objects, or to the public API on the fallback path; extraction and table
reads come back as the same trees, so callers never see which path ran.

Calls are tuples: equal calls are equal and hash alike, which the session uses to build each
shared subterm once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, TypeAlias


class Call(NamedTuple):
    fn: str
    args: tuple[Arg, ...] = ()


Arg: TypeAlias = "Call | int | str | bool"


@dataclass(frozen=True, slots=True)
class Set:
    """`set_(target).to(value)`."""

    target: Call
    value: Arg


Action: TypeAlias = "Call | Set"
