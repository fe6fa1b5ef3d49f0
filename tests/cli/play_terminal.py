"""A real pseudo-terminal for driving ``niugui play`` as a person would: it reads the screen and types.

The program runs in its own session with the pty as its controlling terminal, so typing Ctrl-C
(``\\x03``) sends it SIGINT and Ctrl-D (``\\x04``) on an empty line is end of input, exactly as at a
keyboard. What it prints is kept with the colour codes stripped, for matching.
"""

from __future__ import annotations

import codecs
import fcntl
import os
import re
import select
import struct
import subprocess
import termios
import time
from collections.abc import Sequence
from pathlib import Path

ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\r")


def _take_terminal() -> None:  # runs in the child after setsid: make the pty its controlling terminal
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class Terminal:
    """A program on a pseudo-terminal of ``cols`` × ``rows``."""

    def __init__(self, argv: Sequence[str], env: dict[str, str], cwd: Path, cols: int = 132, rows: int = 50):
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.process = subprocess.Popen(
            list(argv), stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd,
            start_new_session=True, preexec_fn=_take_terminal, close_fds=True,
        )
        os.close(slave)
        self.master = master
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.raw = ""
        """Everything printed so far, as printed."""
        self.screen = ""
        """Everything printed so far, colour codes stripped."""
        self.position = 0
        """How far :meth:`expect` has read."""

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return False
        try:
            data = os.read(self.master, 65536)
        except OSError:  # EIO: the program has exited and the pty is closed
            data = b""
        if not data:
            raise EOFError("the program exited")
        text = self.decoder.decode(data)
        self.raw += text
        self.screen += ANSI.sub("", text)
        return True

    def expect(self, pattern: str, timeout: float = 20.0) -> re.Match[str]:
        """Wait until ``pattern`` (a regex) appears after what was read before; return the match."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            match = regex.search(self.screen, self.position)
            if match:
                self.position = match.end()
                return match
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out waiting for {pattern!r}; screen ends:\n{self.tail()}")
            try:
                self._read(min(left, 0.5))
            except EOFError:
                message = f"program exited before {pattern!r}; screen ends:\n{self.tail()}"
                raise AssertionError(message) from None

    def expect_any(self, patterns: Sequence[str], timeout: float = 20.0) -> tuple[int, re.Match[str]]:
        """Wait for the first of ``patterns`` to appear; return its index and match."""
        joined = "|".join(f"(?P<p{i}>{p})" for i, p in enumerate(patterns))
        match = self.expect(joined, timeout)
        index = next(i for i in range(len(patterns)) if match.group(f"p{i}") is not None)
        return index, match

    def since(self, start: int) -> str:
        return self.screen[start:self.position]

    def send(self, text: str) -> None:
        os.write(self.master, text.encode())

    def sendline(self, text: str) -> None:
        self.send(text + "\r")  # the Enter key

    def tail(self, chars: int = 3000) -> str:
        return self.screen[-chars:]

    def wait(self, timeout: float = 20.0) -> int:
        """Read to the end and return the exit status."""
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                self._read(0.2)
                if self.process.poll() is not None and not select.select([self.master], [], [], 0)[0]:
                    break
        except EOFError:
            pass
        return self.process.wait(timeout=max(0.1, deadline - time.monotonic()))

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        os.close(self.master)
