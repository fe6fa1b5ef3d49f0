r"""Compare the installed packages with ``requirements.lock`` and print what is installed.

``make test`` runs this before the suite, so a red CI run says at once whether the environment moved:
the lock's hash, then one line per locked package with the version found. It exits 1, naming each
package, when an installed version differs from the lock or a locked package is missing.

Only the standard library and ``packaging`` (itself in the lock) are used; markers such as
``python_full_version < '3.12'`` are evaluated for this interpreter, so a lock with several versions
of one package checks the one that applies here.

>>> parse_lock('numpy==2.4.6 ; python_full_version < "3.12" \\\n    --hash=sha256:ab\n')
[('numpy', '2.4.6', 'python_full_version < "3.12"')]
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import re
import sys
from pathlib import Path

from packaging.markers import Marker
from packaging.utils import canonicalize_name

LOCK = Path(__file__).resolve().parent.parent / "requirements.lock"
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)\s*(?:;\s*([^\\]+?))?\s*\\?\s*$")


def parse_lock(text: str) -> list[tuple[str, str, str]]:
    """Return ``(name, version, marker)`` for each pinned line of a pip-format lock."""
    pins = []
    for line in text.splitlines():
        match = _PIN.match(line)
        if match:
            name, version, marker = match.groups()
            pins.append((name, version, (marker or "").strip()))
    return pins


def applicable(pins: list[tuple[str, str, str]]) -> dict[str, str]:
    """The pins whose marker holds for this interpreter, by canonical name."""
    return {
        canonicalize_name(name): version
        for name, version, marker in pins
        if not marker or Marker(marker).evaluate()
    }


def installed(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def main() -> int:
    text = LOCK.read_text(encoding="utf-8")
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    wanted = applicable(parse_lock(text))
    print(f"requirements.lock sha256 {digest}: {len(wanted)} packages for Python {sys.version.split()[0]}")
    wrong = []
    for name, version in sorted(wanted.items()):
        found = installed(name)
        print(f"  {name}=={found or '(missing)'}" + ("" if found == version else f"  (lock: {version})"))
        if found != version:
            wrong.append(name)
    if wrong:
        print(f"lock_check: {len(wrong)} installed package(s) differ from the lock: {', '.join(wrong)}; "
              "run `make setup` again", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
