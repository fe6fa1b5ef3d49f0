"""The page's modules, read as text (no browser needed): one copy of the DOM helpers, and no copy of
the trick rules (R26–R35: whose turn, tricks, 接风, going out, scores) — the page shows the server's
views, replays included, and judges a selection (rules.js) and nothing more (docs/ARCHITECTURE.md).
"""

from __future__ import annotations

import re
from pathlib import Path

JS = Path(__file__).resolve().parents[2] / "niugui" / "web" / "static" / "js"

SELECTION_API = {"LOOSE_KINDS", "FIVE", "classify", "beats", "noCardPlayed", "judgeSelection", "displayOrder"}
"""What rules.js may export: a selection's combination (R13–R25) and why it cannot be played."""

ENGINE_FIELDS = "to_move|counts|marks|finish|trick|current|over|result|hands|dealt|legal_plays|can_pass"
TRICK_LOGIC = [
    (re.compile(rf"\b(?:view|v)\.(?:{ENGINE_FIELDS})\s*(?:=(?!=)|\+=|-=|\.push\(|\.splice\()"),
     "changes a field of the engine's view"),
    (re.compile(r"[{,]\s*(?:to_move|counts|finish|trick|current|legal_plays|can_pass)\s*:"),
     "builds a view of its own"),
    (re.compile(r"\b(?:toMove|nextHolding|next_holding|sideOut|passes|needed)\b"), "tracks turns or passes"),
    (re.compile(r"接风|\bfinish\.push\(|\bscores?\s*=\s*\["), "ends tricks, records going out or scores"),
]

OLD_REPLAYER = """
    if (action.pass) {
      this.trick.push({ seat, pass: true });
      this.passes++;
      if (this.passes < this.needed) {
        this.toMove = this.nextHolding(seat);
        return;
      }
      const lastSeat = this.current.seat;
      this.toMove = this.hands[lastSeat].length ? lastSeat : this.nextHolding(lastSeat); // 接风 (R29)
    }
    if (!this.hands[seat].length) this.finish.push(seat);
    const v = { seat, to_move: this.toMove, counts: this.hands.map((h) => h.length) };
    if (this.result) v.result = this.result;
"""
"""A piece of the ReplayGame that rules.js held before the server computed replays."""


def code_of(text: str) -> str:
    """JavaScript without its comments and the text of its strings (so words in messages do not count)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"(?m)^\s*//.*$|\s//\s.*$", "", text)
    strings = r""""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`"""
    return re.sub(strings, '""', text)


def trick_logic(text: str) -> list[str]:
    code = code_of(text)
    return [why for pattern, why in TRICK_LOGIC if pattern.search(code)]


def modules() -> dict[str, str]:
    found = {path.name: path.read_text(encoding="utf-8") for path in sorted(JS.glob("*.js"))}
    assert {"rules.js", "replay.js", "dom.js", "table.js"} <= set(found)
    return found


def test_the_check_catches_the_old_replayer() -> None:
    """The patterns below are not vacuous: the trick state machine the page used to hold trips them."""
    assert len(trick_logic(OLD_REPLAYER)) == len(TRICK_LOGIC)
    assert trick_logic('const note = "接风: seat 2 leads";  // a word in a string is not logic') == []


def test_no_module_of_the_page_holds_trick_logic() -> None:
    for name, text in modules().items():
        if name in ("i18n.js", "i18n-en.js"):  # words only: the key `over:` is a sentence, not a view
            continue
        assert trick_logic(text) == [], f"{name}: {trick_logic(text)}"


def test_rules_js_only_judges_a_selection() -> None:
    text = modules()["rules.js"]
    exported = set(re.findall(r"^export (?:const|function|class) (\w+)", text, flags=re.M))
    assert exported == SELECTION_API
    assert "class " not in code_of(text)


def test_the_combination_rules_live_in_rules_js_alone() -> None:
    """classify / beats (R13–R25) are defined in rules.js and called nowhere else."""
    for name, text in modules().items():
        if name == "rules.js":
            continue
        assert not re.search(r"\b(?:classify|beats)\b", code_of(text)), name


def test_one_copy_of_the_dom_helpers() -> None:
    """dom.js alone makes elements; every other module imports el from it."""
    for name, text in modules().items():
        code = code_of(text)
        if name == "dom.js":
            assert "export function el(" in code
            continue
        assert "document.createElement" not in code, name
        assert not re.search(r"\b(?:const|let|function)\s+el\b", code), f"{name} has its own el"
        if re.search(r"\bel\(", code):
            imported = re.search(r'import \{[^}]*\bel\b[^}]*\} from ""', code)
            assert imported, f"{name} uses el without importing it"
