"""Files shipped inside the package: the bundled kernels (`examples/kernels/`).

They are package data of `slotsat` (`slotsat/examples` maps to the top-level `examples/`
folder), so an installed wheel finds them from any working directory, and an editable
install finds the checkout's copy.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def bundled_kernels_dir() -> Path:
    """The directory of the bundled kernel files (`slotsat demo`, the benchmark, the tests)."""
    return Path(str(resources.files("slotsat") / "examples" / "kernels"))


def bundled_kernels() -> list[Path]:
    """Every bundled kernel file, sorted by name."""
    return sorted(bundled_kernels_dir().glob("*.py"))
