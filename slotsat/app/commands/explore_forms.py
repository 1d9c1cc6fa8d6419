"""The listing of one expression's forms, shared by both forms of `slotsat explore` (EXPR:
`slotsat.app.commands.explore`, FILE: `slotsat.app.commands.explore_file`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from slotsat.egraph_rules.engine import FormInfo


def form_json(f: FormInfo) -> dict[str, object]:
    return {"form": f.form, "ops": f.ops, "nonneg": f.nonneg, "matcher_accepts": f.matcher_accepts,
            "picked": f.picked}


def form_lines(forms: list[FormInfo]) -> list[str]:
    """One line per form, the picked one marked `*`."""
    width = max(len(f.form) for f in forms)
    out = []
    for f in forms:
        mark = "*" if f.picked else " "
        matcher = f.matcher_class + (" (accepted)" if f.matcher_accepts else "")
        out.append(f"{mark} {f.form:<{width}}  ops={f.ops:<2} nonneg={f.nonneg or '-':<9} matcher={matcher}")
    return out
