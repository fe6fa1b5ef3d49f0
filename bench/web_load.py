"""How fast the page loads on a slow phone: Debian's Chromium (Playwright) with the network and the
CPU throttled through the DevTools protocol, against a real ``niugui serve``.

For each network profile it loads the page into an empty cache (first load) and again with the
service worker in control (repeat load), and reports the bytes transferred (encoded, as on the wire)
and when the page became interactive: the sign-in form is on the screen and the page's script has
run (``window.niugui``), measured from navigation start by the page's own clock.

    .venv/bin/python bench/web_load.py              # starts its own server on a free port
    .venv/bin/python bench/web_load.py --url http://127.0.0.1:8000 --runs 5
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
PROFILES = {
    # Chrome DevTools' "Slow 3G" preset (its latency is the request's round trip, 400 ms x 5)
    "devtools-slow-3g": {"latency": 2000, "down": 500_000 / 8 * 0.8, "up": 500_000 / 8 * 0.8},
    # the classic "slow 3G" of WebPageTest and older Lighthouse: 400 ms RTT, 400 kbit/s down
    "slow-3g-400ms": {"latency": 400, "down": 400_000 / 8, "up": 400_000 / 8},
}
READY = "() => Boolean(window.niugui && document.querySelector('[data-action=session-guest]'))"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def server() -> Iterator[str]:
    port = free_port()
    with tempfile.TemporaryDirectory() as data:
        cmd = [sys.executable, "-m", "niugui.cli.main", "serve", "--host", "127.0.0.1", "--port", str(port),
               "--data", data, "--log-level", "warning"]
        proc = subprocess.Popen(cmd, cwd=ROOT)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                with contextlib.suppress(OSError), urllib.request.urlopen(url + "/healthz", timeout=1):
                    break
                time.sleep(0.2)
            yield url
        finally:
            proc.terminate()
            proc.wait(10)


def load(browser: Any, url: str, profile: dict[str, float], cpu: float, repeat: bool) -> tuple[float, int]:
    """(ms to interactive, bytes transferred) of one load in a fresh context (a second one first when
    ``repeat``, so that the service worker controls the measured load)."""
    context = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    page = context.new_page()
    if repeat:
        page.goto(url + "/")
        page.wait_for_function(READY)
        page.wait_for_function("() => navigator.serviceWorker.controller !== null", timeout=120_000)
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": False})
    cdp.send("Network.emulateNetworkConditions", {
        "offline": False, "latency": profile["latency"],
        "downloadThroughput": profile["down"], "uploadThroughput": profile["up"],
        "connectionType": "cellular3g",
    })
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": cpu})
    sizes: dict[str, int] = {}

    def finished(event: dict[str, Any]) -> None:
        sizes[event["requestId"]] = int(event["encodedDataLength"])

    cdp.on("Network.loadingFinished", finished)
    page.goto(url + "/", wait_until="commit")
    page.wait_for_function(READY, polling="raf", timeout=120_000)
    ms = float(page.evaluate("() => performance.now()"))
    context.close()
    return ms, sum(sizes.values())


def stamp(what: str) -> str:
    """When, and how busy the machine was (the docs record both with each figure)."""
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"# {what}: {now}, load average {load}"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running server (default: start one)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cpu", type=float, default=4.0, help="CPU slowdown (DevTools' 4x by default)")
    parser.add_argument("--first-only", action="store_true", help="no repeat load (no service worker)")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    with contextlib.ExitStack() as stack:
        url = args.url or stack.enter_context(server())
        playwright = stack.enter_context(sync_playwright())
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        print(stamp("start"))
        print(f"{'profile':18} {'load':7} {'interactive ms (median, min–max)':34} {'transferred':>12}")
        for name, profile in PROFILES.items():
            for repeat in (False,) if args.first_only else (False, True):
                runs = [load(browser, url, profile, args.cpu, repeat) for _ in range(args.runs)]
                times = [r[0] for r in runs]
                kb = statistics.median(r[1] for r in runs) / 1024
                what = "repeat" if repeat else "first"
                spread = f"{statistics.median(times):7.0f} ({min(times):.0f}–{max(times):.0f})"
                print(f"{name:18} {what:7} {spread:34} {kb:9.1f} KB", flush=True)
        browser.close()
        print(stamp("end"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
