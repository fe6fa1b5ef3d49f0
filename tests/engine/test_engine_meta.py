"""The engine's foundation: it imports only the standard library, and every rule R1–R36 is named by
at least one test of this directory."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ("cards", "combos", "moves", "game", "record", "series", "fairness")


def modules_after(code: str, *flags: str) -> list[str]:
    """``sys.modules`` of a fresh, isolated interpreter after running ``code``."""
    script = f"import sys, json\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-I", *flags, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return list(json.loads(out.stdout))


def test_engine_modules_import_only_the_standard_library() -> None:
    """Issue 2: the engine is pure Python with no third-party runtime dependency. Without site
    (-S: no .pth hooks), importing the engine modules loads only stdlib and niugui modules."""
    imports = "import " + ", ".join(f"niugui.{m}" for m in ENGINE)
    modules = modules_after(f"sys.path.insert(0, {str(ROOT)!r})\n{imports}", "-S")
    stdlib = set(sys.stdlib_module_names) | set(sys.builtin_module_names)
    foreign = sorted(m for m in modules if m.split(".")[0] not in stdlib | {"niugui", "__main__"})
    assert not foreign, f"the engine imports third-party modules: {foreign}"
    assert all(f"niugui.{m}" in modules for m in ENGINE)
    # and no other part of the package: no bots, server or command line
    assert {m for m in modules if m.startswith("niugui.")} <= {f"niugui.{m}" for m in ENGINE}
    # the same through the installed package (site on): nothing beyond what site itself loads
    added = set(modules_after(imports)) - set(modules_after(""))
    assert {m for m in added if m.split(".")[0] not in stdlib | {"niugui"}} == set()


def test_engine_sources_have_no_third_party_import_statement() -> None:
    stdlib = set(sys.stdlib_module_names)
    for name in ENGINE:
        tree = ast.parse((ROOT / "niugui" / f"{name}.py").read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                tops = [alias.name.split(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                tops = [] if node.level else [(node.module or "").split(".")[0]]
            else:
                continue
            for top in tops:
                assert top in stdlib or top == "niugui", f"niugui/{name}.py imports {top}"


def test_every_rule_R1_to_R36_is_named_by_a_test() -> None:
    """Each rule id appears in the name or docstring of a test function in tests/engine."""
    named: set[int] = set()
    for path in Path(__file__).parent.glob("test_*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                text = node.name + " " + (ast.get_docstring(node) or "")
                named |= {int(n) for n in re.findall(r"R(\d+)(?!\d)", text)}
                for a, b in re.findall(r"R(\d+)[–-]R(\d+)", text):  # ranges like R26–R35
                    named |= set(range(int(a), int(b) + 1))
    missing = sorted(set(range(1, 37)) - named)
    assert not missing, f"rules no test names: {missing}"
