"""Shared test settings.

Under CI (``CI`` set, as `.ci/run` runs) hypothesis is derandomized, so main's check is the same
every time; on a developer's machine it keeps drawing new examples and so keeps finding new bugs.
"""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
