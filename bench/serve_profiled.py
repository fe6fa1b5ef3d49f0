"""``niugui serve`` under cProfile, for ``bench/load_bench.py --profile FILE``: the event loop thread's
CPU time (not the wall clock), profiled between SIGUSR1 and SIGUSR2 (the bench sends them at the
start and end of its measuring window); the statistics go to FILE when the server stops (SIGTERM).

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
    profile = cProfile.Profile(time.thread_time)
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGUSR1, lambda *_: profile.enable())
    signal.signal(signal.SIGUSR2, lambda *_: profile.disable())
    try:
        code = main(sys.argv[2:])
    finally:
        profile.disable()
        profile.dump_stats(sys.argv[1])
    sys.exit(code)
