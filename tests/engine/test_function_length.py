"""No function in niugui is longer than a reader can hold in their head: at most ``LONGEST`` lines
(its signature, docstring and body together)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "niugui"
LONGEST = 120


def test_no_function_is_longer_than_the_limit() -> None:
    long: list[str] = []
    for file in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > LONGEST:
                    where = file.relative_to(PACKAGE.parent)
                    long.append(f"{where}:{node.lineno} {node.name} ({lines} lines)")
    assert not long, "split these functions: " + "; ".join(long)
