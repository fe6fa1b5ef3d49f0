"""``niugui serve`` under cProfile, for ``bench/load_bench.py --profile FILE``: the statistics of the
event loop's thread are written to FILE when the server stops (SIGTERM).

    .venv/bin/python bench/serve_profiled.py FILE serve --port 8000 --data /tmp/d
"""

from __future__ import annotations

import cProfile
import signal
import sys
import time

from niugui.cli.main import main


def _stop(signum: int, frame: object) -> None:
    raise SystemExit(0)  # uvicorn re-raises the SIGTERM it caught once it has shut down


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, _stop)
    profile = cProfile.Profile(time.thread_time)  # the event loop's CPU, not the wall clock
    profile.enable()
    try:
        code = main(sys.argv[2:])
    finally:
        profile.disable()
        profile.dump_stats(sys.argv[1])
    sys.exit(code)
