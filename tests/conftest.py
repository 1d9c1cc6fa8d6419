"""Suite-wide configuration: hypothesis profiles, the CLI runner fixture, and PyPTO.

Tests marked `pypto` need PyPTO, the reference compiler; where it is not installed they are
skipped with that reason (pytest counts them in its summary; `-rs` lists the reason), and
where `.ci/run` installed it (`SLOTSAT_REQUIRE_PYPTO`) a missing PyPTO fails the run instead.

Profiles: `dev` (50 examples, random) and `ci` (derandomized, so CI failures reproduce).
`.ci/run` runs with CI=true, which selects `ci`; set HYPOTHESIS_PROFILE to override.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, settings

if TYPE_CHECKING:
    from slotsat.bridge import Reference

settings.register_profile("dev", max_examples=50, deadline=None)
settings.register_profile(
    "ci",
    max_examples=200,
    deadline=None,
    derandomize=True,
    database=None,  # .ci/run runs two suites side by side in one checkout
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


# -- PyPTO, the reference compiler, as a live oracle (marker `pypto`) -------------------------

REQUIRE_PYPTO = "SLOTSAT_REQUIRE_PYPTO"
"""Set by `.ci/run` after it installed PyPTO: a `pypto` test must then run, never be skipped."""


def _pypto_missing() -> str | None:
    from slotsat.bridge import session

    if session.installed():
        return None
    return (f"PyPTO (the reference compiler) is not installed for {sys.executable}; .ci/run installs it "
            "where ../shared/tools/pypto/ exists (README, 'PyPTO in the loop')")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    wanted = [item for item in items if item.get_closest_marker("pypto") is not None]
    reason = _pypto_missing() if wanted else None
    if reason is None:
        return
    if os.environ.get(REQUIRE_PYPTO):
        raise pytest.UsageError(f"{REQUIRE_PYPTO} is set but {reason}")
    skip = pytest.mark.skip(reason=reason)
    for item in wanted:
        item.add_marker(skip)


@pytest.fixture(scope="session")
def reference() -> Reference:
    """The process's PyPTO worker (`slotsat.bridge.shared`), which the commands run in process
    by the tests use too: PyPTO is imported once per session."""
    from slotsat.bridge import shared

    return shared()
