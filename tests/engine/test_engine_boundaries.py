"""One place for each rule (issue 8): dependencies point down, and nobody outside the engine
re-derives the trick state or a combination's value.

The engine owns turns, tricks and 接风 (R26–R31) and publishes them in the view (``current``,
``to_move``, ``trick``, ``leads``) and on ``Game`` (``current``, ``current_seat``, ``leads()``).
Bots, the server, the terminal and the arena read those; they never count passes or keep their
own "play to beat" (the check below would have failed on the old ``bots/knowledge.py``, which did).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from niugui import Game
from niugui.bots.knowledge import situation_from_game, situation_from_view

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "niugui"
ENGINE_BELOW_RECORD = ("cards", "combos", "moves", "game")
OUTSIDE = ["bots", "server", "cli", "arena.py"]
PRIVATE_TRICK_STATE = {
    "_trick", "_last", "_last_seat", "_passes", "_needed", "_leads", "_to_move", "_actions", "_hands"
}
"""``Game``'s private turn and trick bookkeeping."""


def sources(parts: list[str]) -> Iterator[tuple[Path, ast.Module]]:
    for part in parts:
        path = PACKAGE / part
        for file in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            yield file, ast.parse(file.read_text(encoding="utf-8"))


def imported(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            names.add(("." * node.level) + (node.module or ""))
        elif isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
    return names


def test_the_engine_below_record_imports_neither_record_series_nor_fairness() -> None:
    """``record`` sits on top of ``game``: the modules below it import none of the upper ones,
    not even inside a function (issue 27: ``Game.from_record`` / ``to_record`` are ``game``'s own)."""
    upper = ("record", "series", "fairness")
    for name in ENGINE_BELOW_RECORD:
        tree = ast.parse((PACKAGE / f"{name}.py").read_text(encoding="utf-8"))
        assert not [m for m in imported(tree) if m.lstrip(".").split(".")[-1] in upper], name


def test_R29_nothing_outside_the_engine_counts_passes_or_reads_trick_internals() -> None:
    """R29 (a trick ends when every other holder has passed; 接风) lives in ``game.py`` only."""
    found = []
    for file, tree in sources(OUTSIDE):
        where = file.relative_to(ROOT)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in PRIVATE_TRICK_STATE:
                found.append(f"{where}:{node.lineno} reads Game.{node.attr}")
            counting = isinstance(node, ast.AugAssign)  # x += 1: a running count
            targets: list[ast.expr] = [node.target] if isinstance(node, ast.AugAssign) else []
            if isinstance(node, ast.Assign):
                targets = list(node.targets)
            for target in targets:
                name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
                if (counting and "pass" in name) or "needed" in name or name.endswith("last_seat"):
                    found.append(f"{where}:{node.lineno} keeps its own {name!r}")
    assert not found, "trick state re-derived outside the engine:\n" + "\n".join(found)


def test_R17_R24_a_combination_value_layout_is_known_only_to_combos() -> None:
    """``combos.py`` is the only encoder of a ``Combo``'s value: nobody else uses its layout."""
    for file, tree in sources(["moves.py", "game.py", "bots", "server", "cli", "arena.py"]):
        for node in ast.walk(tree):
            if isinstance(node, ast.Name | ast.alias):
                name = node.id if isinstance(node, ast.Name) else node.name
                assert name != "CLASS_SPAN", f"{file.relative_to(ROOT)}:{getattr(node, 'lineno', '?')}"


CARD_SPELLINGS = ("♠", "黑桃", "joker", "[dchs", "[DCHS")
"""Text in a pattern that spells cards (R6): only ``cards.py`` reads cards from text."""


def test_R1_R6_R10_card_facts_and_the_card_tokenizer_live_in_cards_only() -> None:
    """Issue 27: no module but ``cards.py`` builds a table from the deck (a code → index map, the
    codes), a mask from ♠3/♠2 or the deck size (R1, R10), a function named like one of ``cards.py``'s,
    or a pattern that reads cards from text (R6)."""
    cards_tree = ast.parse((PACKAGE / "cards.py").read_text(encoding="utf-8"))
    public = {n.name for n in cards_tree.body if isinstance(n, ast.FunctionDef)} | {"codes_of_mask"}
    found = []
    for file, tree in sources(["."]):
        if file.name == "cards.py":
            continue
        where = file.relative_to(ROOT)
        for node in tree.body:
            if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                for part in ast.walk(node.value):
                    if isinstance(part, ast.comprehension) and ast.unparse(part.iter) == "CARDS":
                        found.append(f"{where}:{node.lineno} builds a table from CARDS")
                    if (isinstance(part, ast.BinOp) and isinstance(part.op, ast.LShift)
                            and ast.unparse(part.right) in ("S2", "S3", "DECK_SIZE")):
                        found.append(f"{where}:{node.lineno} makes a mask of {ast.unparse(part.right)}")
            if isinstance(node, ast.FunctionDef) and node.name in public:
                found.append(f"{where}:{node.lineno} defines {node.name} again")
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and ast.unparse(node.func) == "re.compile" and node.args
                    and any(spelling in ast.unparse(node.args[0]) for spelling in CARD_SPELLINGS)):
                found.append(f"{where}:{node.lineno} reads cards from text with its own pattern")
    assert not found, found


def test_no_two_classes_of_the_package_share_a_name() -> None:
    """Issue 27: distinct things have distinct names (a record's player is not the wire's
    ``PlayerRef``, the server's table model not the wire's ``TableState``)."""
    where: dict[str, list[str]] = {}
    for file, tree in sources(["."]):
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                where.setdefault(node.name, []).append(str(file.relative_to(ROOT)))
    shared = {name: files for name, files in where.items() if len(files) > 1}
    assert not shared, shared


def played(seed: int, steps: int) -> Game:
    game = Game.deal(seed=seed, first_drawer=seed % 4)
    for step in range(steps):
        if game.over:
            break
        if game.can_pass() and (step % 3 or not game.legal_combos()):
            game.pass_turn()
        else:
            game.play(game.legal_combos()[-1])
    return game


@pytest.mark.parametrize("seed", range(6))
def test_R29_bots_take_where_tricks_begin_from_the_view(seed: int) -> None:
    """The view's ``leads`` is what the bots' knowledge reads: move a lead and its facts change."""
    game = played(seed, 40)
    assert not game.over and len(game.leads()) > 2
    view = game.view(game.to_move)
    assert situation_from_view(view) == situation_from_game(game)
    assert view["leads"] == game.leads()
    later = view["leads"][2]
    changed = view | {"leads": [i for i in view["leads"] if i != later]}  # as if that play beat one
    assert situation_from_view(changed).overtaken != situation_from_view(view).overtaken


def test_R29_leads_are_the_plays_on_a_free_lead() -> None:
    """Each lead is a play made when there was nothing to beat; every other play beat something."""
    for seed in range(20):
        game = Game.deal(seed=seed, first_drawer=seed % 4)
        leads: list[int] = []
        while not game.over:
            if game.current is None:
                leads.append(len(game.actions()))
            if game.can_pass() and (len(game.actions()) % 2 or not game.legal_combos()):
                game.pass_turn()
            else:
                game.play(game.legal_combos()[0])
            assert game.leads() == leads
