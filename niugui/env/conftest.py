"""pytest: without the env extra, leave out the doctests of the modules that need it (tests/env skips
its own tests, each with the reason)."""

from __future__ import annotations

import importlib


def _extra_installed() -> bool:
    try:
        for name in ("numpy", "gymnasium", "pettingzoo"):
            importlib.import_module(name)
    except ImportError:
        return False
    return True


EXTRA_INSTALLED = _extra_installed()
NEEDS_EXTRA = ["aec.py", "observation.py", "render.py", "seat_env.py", "spaces.py"]
collect_ignore = [] if EXTRA_INSTALLED else NEEDS_EXTRA


def pytest_report_header() -> list[str]:
    if EXTRA_INSTALLED:
        return []
    return ["niugui.env: no env extra, so its doctests and tests are skipped (pip install -e '.[env]')"]
