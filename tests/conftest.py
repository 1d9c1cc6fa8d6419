"""Suite-wide configuration: hypothesis profiles and the CLI runner fixture.

Profiles: `dev` (50 examples, random) and `ci` (derandomized, so CI failures reproduce).
`.ci/run` runs with CI=true, which selects `ci`; set HYPOTHESIS_PROFILE to override.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile("dev", max_examples=50, deadline=None)
settings.register_profile(
    "ci",
    max_examples=200,
    deadline=None,
    derandomize=True,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))
