"""Browser tests: Playwright (sync API) driving Debian's Chromium against a real ``niugui serve``.

Chromium must be at /usr/bin/chromium (``scripts/ensure-chromium.sh`` installs it); a missing browser
is a failure, never a skip. Playwright never downloads a browser here.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "niugui" / "web" / "static"
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
PHONE = {"width": 360, "height": 640}
DESKTOP = {"width": 1280, "height": 800}


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Chromium for the whole session."""
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} is missing: run scripts/ensure-chromium.sh (the browser tests need it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield _TestBrowser(chromium)
        chromium.close()


class _TestBrowser:
    """Chromium whose contexts bypass the page's Content-Security-Policy, which forbids evaluating
    strings (as Playwright's ``wait_for_function`` does); test_csp.py checks the page under it."""

    def __init__(self, chromium: Any) -> None:
        self._chromium = chromium

    def new_context(self, **options: Any) -> Any:
        options.setdefault("bypass_csp", True)
        return self._chromium.new_context(**options)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._chromium, name)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


class _QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):  # the browser left mid-file: no news
            super().handle_error(request, client_address)


@pytest.fixture(scope="session")
def static_url() -> Iterator[str]:
    """The page's static files on a loopback port (for tests of the page's own modules)."""
    handler = functools.partial(_QuietHandler, directory=str(STATIC))
    httpd = _QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def _wait_healthy(url: str, proc: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"niugui serve exited with status {proc.returncode}")
        with contextlib.suppress(OSError), urllib.request.urlopen(f"{url}/healthz", timeout=1) as response:
            if response.status == 200:
                return
        time.sleep(0.1)
    raise RuntimeError("niugui serve did not answer /healthz in time")


@contextlib.contextmanager
def run_server(data: Path, bot_delay: float, *options: str) -> Iterator[str]:
    """A real ``niugui serve`` on a free loopback port with its data in ``data`` (and ``options``);
    yields its URL."""
    port = free_port()
    cmd = [
        sys.executable, "-m", "niugui.cli.main", "serve", "--host", "127.0.0.1", "--port", str(port),
        "--data", str(data), "--bot-delay", str(bot_delay), *options,
    ]
    with open(data / "server.log", "wb") as log:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_healthy(url, proc)
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The server most tests share: bots play almost at once (so games are quick). Every test's
    phones are guests of one address (loopback), more than the hourly guest cap of a real server
    allows one address (60): the shared server's cap is raised so the last tests are not refused."""
    guests = "guests_per_address_hour=100000"
    with run_server(tmp_path_factory.mktemp("niugui-data"), 0.02, "--limit", guests) as url:
        yield url


def screenshot(page: Any, name: str) -> Path:
    """Save a screenshot under artifacts/screenshots/ (not committed)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path
