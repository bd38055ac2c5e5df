"""Shared test configuration: derandomized hypothesis, so CI runs are repeatable."""

import os

from hypothesis import settings

# "ci" (the default) replays the same examples every run; HYPOTHESIS_PROFILE=explore
# draws fresh ones.
settings.register_profile("ci", derandomize=True, deadline=None, max_examples=60, print_blob=True)
settings.register_profile("explore", deadline=None, max_examples=500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
