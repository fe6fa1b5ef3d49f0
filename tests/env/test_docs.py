"""The README's environment example runs, and docs/env.md says what the code does."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest
from env_helpers import EXTRA

from niugui.env.actions import KIND_IDS, PASS

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "env.md"


def readme_example() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Research environment", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 1, "the README's environment section has one example"
    return str(blocks[0])


def test_the_readme_example_runs_an_episode(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pettingzoo", reason=EXTRA)
    code = readme_example()
    lines = [line for line in code.splitlines() if line.strip()]
    assert len(lines) <= 10, "the README promises a ten-line example"
    exec(compile(code, "README.md", "exec"), {})
    outcome, scores = capsys.readouterr().out.split(" ", 1)
    assert outcome in {"sweep", "win", "draw", "double_win", "double_draw", "double_caught"}
    assert sum(eval(scores)) == 0  # R33, R34: every outcome's score changes sum to 0


def doc_table(heading: str) -> list[list[str]]:
    """The rows of the first table after ``heading`` in docs/env.md, cells stripped of backquotes."""
    text = DOC.read_text(encoding="utf-8").split(heading, 1)[1]
    rows = [line for line in text.splitlines() if line.startswith("|")]
    start = text.splitlines().index(rows[0])
    table = []
    for line in text.splitlines()[start:]:
        if not line.startswith("|"):
            break
        table.append([cell.strip().strip("`") for cell in line.strip("|").split("|")])
    return table[2:]


def test_the_documented_action_table_is_the_encoding() -> None:
    rows = doc_table("## The action encoding")
    documented = {kind: (int(count.replace(",", "")), ids) for kind, count, ids in rows}
    for kind, ids in KIND_IDS.items():
        assert documented[kind] == (len(ids), f"{ids.start}–{ids.stop - 1}"), kind
    assert documented["pass"] == (1, str(PASS))


def test_the_documented_observation_layout_is_the_encoding() -> None:
    pytest.importorskip("numpy", reason=EXTRA)
    from niugui.env.observation import DESCRIPTIONS, LAYOUT

    rows = doc_table("## The observation encoding")
    assert [row[0] for row in rows] == list(LAYOUT)
    for name, offset, size, content in rows:
        part = LAYOUT[name]
        assert (int(offset), int(size)) == (part.start, part.stop - part.start), name
        assert content == DESCRIPTIONS[name], name


def test_the_examples_in_docs_env_md_hold() -> None:
    failures, tried = doctest.testfile(str(DOC), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failures == 0
