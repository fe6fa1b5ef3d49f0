"""``niugui replay``: good records are reported in human terms and as JSON; bad ones exit 1 with one line.

Every case runs twice: in-process (``niugui.cli.main.main``) and through a real subprocess
(``python -m niugui.cli.main``), so what a user sees — exit status, stdout, stderr — is what is tested.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from niugui import Game
from niugui.cards import Card
from niugui.cli.main import main
from niugui.cli.replay import describe

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

# Glossary names (shared/docs/GLOSSARY.md), written out here so that a wrong name in the code fails.
OUTCOME_NAMES = {
    "sweep": ("牛鬼完胜", "sweep"),
    "win": ("牛鬼小胜", "win"),
    "draw": ("免炒", "draw"),
    "double_win": ("双牛成功", "Double Niugui wins"),
    "double_draw": ("双牛逃跑", "Double Niugui gets away"),
    "double_caught": ("活抓双牛", "Double Niugui caught"),
    "escape": ("逃跑", "escape"),
}
PLACES = (("上游", "1st out"), ("二游", "2nd out"), ("三游", "3rd out"), ("下游", "last"))


@dataclass
class Run:
    status: int
    out: str
    err: str


def run_in_process(
    args: list[str], stdin: str | None, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Run:
    if stdin is not None:
        import io

        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode("utf-8"))))
    status = main(["replay", *args])
    captured = capsys.readouterr()
    return Run(status, captured.out, captured.err)


def run_subprocess(args: list[str], stdin: str | None) -> Run:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "niugui.cli.main", "replay", *args],
        input=(stdin or "").encode("utf-8"),
        capture_output=True,
        cwd=ROOT,
        env=env,
        timeout=60,
    )
    return Run(done.returncode, done.stdout.decode("utf-8"), done.stderr.decode("utf-8"))


@pytest.fixture(params=["in-process", "subprocess"])
def replay(
    request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Callable[..., Run]:
    """``replay(*args, stdin=None)`` runs ``niugui replay`` one way or the other."""

    def call(*args: str, stdin: str | None = None) -> Run:
        if request.param == "in-process":
            return run_in_process(list(args), stdin, capsys, monkeypatch)
        return run_subprocess(list(args), stdin)

    return call


def load(name: str) -> dict[str, Any]:
    record: dict[str, Any] = json.loads((EXAMPLES / name).read_text(encoding="utf-8"))
    return record


def weakest_play_game(seed: int, first_drawer: int, limit: int | None = None) -> Game:
    """A deterministic game: lead the weakest card's biggest combination, follow with the weakest beat."""
    game = Game.deal(seed=seed, first_drawer=first_drawer)
    while not game.over and (limit is None or len(game.actions()) < limit):
        combos = game.legal_combos()
        if game.current is None:
            low = min(c.mask & -c.mask for c in combos)
            game.play(max((c for c in combos if c.mask & low), key=lambda c: (c.size, -c.value)))
        elif combos:
            game.play(min(combos, key=lambda c: c.value))
        else:
            game.pass_turn()
    return game


def game_with_outcome(outcome: str) -> Game:
    if outcome == "escape":
        game = weakest_play_game(5, 1, limit=10)
        game.escape(next(s for s in range(4) if game.count(s)))
        return game
    for seed in range(500):
        game = weakest_play_game(seed, seed % 4)
        assert game.result is not None
        if game.result.outcome == outcome:
            return game
    raise AssertionError(f"no seed gives {outcome}")


def write(tmp_path: Path, record: Any, name: str = "record.json") -> str:
    path = tmp_path / name
    path.write_text(record if isinstance(record, str) else json.dumps(record), encoding="utf-8")
    return str(path)


# ---- good records ---------------------------------------------------------------------------------


def test_sample_game_in_human_terms(replay: Callable[..., Run]) -> None:
    record = load("sample-game.json")
    result = Game.from_record(record).result
    assert result is not None
    run = replay(str(EXAMPLES / "sample-game.json"))
    assert run.status == 0 and run.err == ""
    zh, en = OUTCOME_NAMES[result.outcome]
    assert f"{zh} {en}" in run.out
    assert "二对二" in run.out if result.mode == "2v2" else "一打三" in run.out
    lines = run.out.splitlines()
    # One row per seat: its side (R10), its place (R30) and its score change (R33).
    for seat in range(4):
        row = next(line for line in lines if line.startswith(f"{seat} "))
        side = "黑方 Black side" if seat in result.black else "红方 Red side"
        place = result.finish.index(seat) if seat in result.finish else 3
        score = result.scores[seat]
        assert side in row and " ".join(PLACES[place]) in row, row
        assert (f"+{score}" if score > 0 else str(score)) in row.split(), row


@pytest.mark.parametrize("outcome", sorted(OUTCOME_NAMES))
def test_every_outcome_is_named_in_chinese_and_english(
    outcome: str, replay: Callable[..., Run], tmp_path: Path
) -> None:
    """R33–R35: each outcome's name, Chinese beside English, and each seat's score change."""
    game = game_with_outcome(outcome)
    run = replay(write(tmp_path, game.to_record()))
    assert run.status == 0, run.err
    zh, en = OUTCOME_NAMES[outcome]
    assert f"{zh} {en}" in run.out
    assert game.result is not None
    shown = [line for line in run.out.splitlines() if line[:1] in "0123" and line[1:2] == " "]
    assert len(shown) == 4
    for seat, line in enumerate(shown):
        score = game.result.scores[seat]
        assert (f"+{score}" if score > 0 else str(score)) in line.split(), line
    if outcome != "escape":  # R32: the side of the 上游 wins, unless the game is a draw
        winner = next(line for line in run.out.splitlines() if line.startswith("胜方 winner"))
        first, black = game.result.finish[0], game.result.black
        seats = black if first in black else [s for s in range(4) if s not in black]
        if outcome in ("draw", "double_draw"):
            assert "none" in winner
        else:
            assert winner.endswith(f"{', '.join(map(str, seats))} (R32)"), winner


def test_one_against_three_names_the_double(replay: Callable[..., Run]) -> None:
    run = replay(str(EXAMPLES / "one-against-three.json"))
    assert run.status == 0
    result = Game.from_record(load("one-against-three.json")).result
    assert result is not None and result.mode == "1v3"
    assert "一打三" in run.out and "双牛鬼 Double Niugui" in run.out  # R10
    assert "双牛成功 Double Niugui wins (R34)" in run.out


def test_escaped_game_names_who_escaped(replay: Callable[..., Run]) -> None:
    run = replay(str(EXAMPLES / "escaped.json"))
    result = Game.from_record(load("escaped.json")).result
    assert run.status == 0 and result is not None
    escaper = result.scores.index(-9)
    assert "逃跑 escape (R35)" in run.out
    assert f"seat {escaper}, -9 (R35)" in run.out


@pytest.mark.parametrize("name", ["sample-game.json", "one-against-three.json", "escaped.json"])
def test_json_is_exactly_result_to_dict(name: str, replay: Callable[..., Run]) -> None:
    result = Game.from_record(load(name)).result
    assert result is not None
    run = replay("--json", str(EXAMPLES / name))
    assert run.status == 0 and run.err == ""
    assert json.loads(run.out) == result.to_dict()
    assert run.out == json.dumps(result.to_dict()) + "\n"


def test_game_in_progress_shows_only_public_state(replay: Callable[..., Run]) -> None:
    """R11, R12: whose turn, counts, marks, the current trick — and no card still in a hand."""
    record = load("in-progress.json")
    game = Game.from_record(record)
    assert game.result is None and game.current is not None
    run = replay(str(EXAMPLES / "in-progress.json"))
    assert run.status == 0
    assert f"seat {game.to_move}" in next(line for line in run.out.splitlines() if "to move" in line)
    rows = [line.split() for line in run.out.splitlines() if line[:1] in "0123" and line[1:2] == " "]
    assert [int(row[1]) for row in rows] == [game.count(seat) for seat in range(4)]
    for seat, row in enumerate(rows):
        assert [Card.parse(c) for c in row[2:] if c.startswith("♠")] == game.marks(seat)  # R11
    assert "to beat:" in run.out
    unplayed = [card for seat in range(4) for card in game.hand(seat)]
    for card in unplayed:
        assert card.symbol not in run.out, f"{card} is in a hand and must not be shown (R12)"
    assert "hidden until both 牛鬼 cards are played" in run.out  # the sides and the mode are not public (R11)


@pytest.mark.parametrize("double", [True, False])
def test_mode_is_told_once_both_marks_are_shown(double: bool, tmp_path: Path) -> None:
    """R11: the mode is public once ♠3 and ♠2 have both been played (by one seat: 1v3)."""
    for seed in range(300):
        game = weakest_play_game(seed, seed % 4, limit=200)
        if game.result is None or (game.result.mode == "1v3") != double:
            continue
        for stop in range(len(game.actions())):
            record = {**game.to_record(), "result": None}
            partial = Game.from_record({**record, "actions": record["actions"][:stop]})
            if partial.result is None and sum(len(partial.marks(s)) for s in range(4)) == 2:
                view = partial.view(None)
                mode = next(line for line in describe(view) if line.startswith("模式"))
                assert ("一打三" if double else "二对二") in mode and "(R11)" in mode
                return
    raise AssertionError("no game shows both marks before its end")


def test_doctests_of_the_replay_and_text_modules() -> None:
    import doctest

    import niugui.cli.replay
    import niugui.cli.text

    for module in (niugui.cli.replay, niugui.cli.text):
        failed, tried = doctest.testmod(module)
        assert failed == 0 and tried > 0, module.__name__


def test_game_in_progress_json_is_null(replay: Callable[..., Run]) -> None:
    run = replay("--json", str(EXAMPLES / "in-progress.json"))
    assert run.status == 0 and run.out == "null\n"


def test_standard_input(replay: Callable[..., Run]) -> None:
    text = (EXAMPLES / "sample-game.json").read_text(encoding="utf-8")
    run = replay("--json", "-", stdin=text)
    assert run.status == 0
    assert json.loads(run.out) == load("sample-game.json")["result"]


def test_actions_lists_every_action(replay: Callable[..., Run]) -> None:
    record = load("sample-game.json")
    run = replay("--actions", str(EXAMPLES / "sample-game.json"))
    assert run.status == 0
    listed = [line.split() for line in run.out.splitlines() if line.strip().startswith("#")]
    assert len(listed) == len(record["actions"])
    assert listed[0][:3] == ["#0", "seat", str(record["actions"][0]["seat"])]


def test_a_record_without_result_is_checked_and_reported(replay: Callable[..., Run], tmp_path: Path) -> None:
    record = load("sample-game.json")
    del record["result"]  # optional on input (RECORD.md)
    run = replay("--json", write(tmp_path, record))
    assert run.status == 0 and json.loads(run.out) == load("sample-game.json")["result"]


def test_make_run_target_replays_the_sample() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "niugui replay examples/sample-game.json" in makefile
    assert (EXAMPLES / "sample-game.json").is_file()


# ---- bad records ------------------------------------------------------------------------------------


def _set(path: list[Any], value: Any) -> Callable[[dict[str, Any]], Any]:
    def change(record: dict[str, Any]) -> Any:
        target = record
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        return record

    return change


def _drop(key: str) -> Callable[[dict[str, Any]], Any]:
    def change(record: dict[str, Any]) -> Any:
        del record[key]
        return record

    return change


def _hands_record(change: Callable[[list[list[str]]], None]) -> Callable[[dict[str, Any]], Any]:
    def build(record: dict[str, Any]) -> Any:
        game = Game.from_record(record)
        hands = [[str(c) for c in game.dealt(seat)] for seat in range(4)]
        change(hands)
        del record["deck"]
        record["hands"] = hands
        record["actions"] = []
        del record["result"]
        return record

    return build


def _deck_twice(record: dict[str, Any]) -> Any:
    record["deck"][1] = record["deck"][0]
    return record


def _move_card(hands: list[list[str]]) -> None:
    hands[1].append(hands[0].pop())


def _duplicate_across(hands: list[list[str]]) -> None:
    hands[1][-1] = hands[0][-1]


def _duplicate_within(hands: list[list[str]]) -> None:
    hands[0][-1] = hands[0][0]


def _first_action(action: dict[str, Any]) -> Callable[[dict[str, Any]], Any]:
    def change(record: dict[str, Any]) -> Any:
        record["actions"] = [action]
        del record["result"]
        return record

    return change


def _append(action: dict[str, Any]) -> Callable[[dict[str, Any]], Any]:
    def change(record: dict[str, Any]) -> Any:
        record["actions"].append(action)
        return record

    return change


def _wrong_result(record: dict[str, Any]) -> Any:
    record["result"]["scores"] = [0, 0, 0, 0]
    return record


def _result_too_soon(record: dict[str, Any]) -> Any:
    del record["actions"][-1]
    return record


def _result_extra(record: dict[str, Any]) -> Any:
    record["result"]["winner"] = "black"
    return record


def _opening_seat(record: dict[str, Any]) -> int:
    return int(record["actions"][0]["seat"])


SAMPLE = load("sample-game.json")
LEADER = _opening_seat(SAMPLE)
NEXT = (LEADER + 1) % 4
DEAL = Game.from_record({**SAMPLE, "actions": [], "result": None})
LEADER_HAND = [str(c) for c in DEAL.dealt(LEADER)]
NOT_D4 = next(c for c in LEADER_HAND if c != "D4")
NOT_HELD = str(DEAL.dealt(NEXT)[0])
NO_COMBO = ["D4", next(c for c in LEADER_HAND if c[1] != "4" and c not in ("BJ", "RJ"))]

BAD: dict[str, tuple[Callable[[dict[str, Any]], Any] | str, list[str]]] = {
    # case: (how to spoil the sample record, or raw file text; what the one line must say)
    "bad json": ('{"format": "niugui-record", ', ["not valid JSON", "line 1"]),
    "not an object": ("[1, 2, 3]", ["expected a JSON object"]),
    "not utf-8": ("\udcff", ["UTF-8"]),
    "nested too deeply": ("[" * 100000 + "]" * 100000, ["nested too deeply"]),
    "wrong format": (_set(["format"], "pgn"), ["format"]),
    "future version": (_set(["version"], 2), ["version"]),
    "missing first_drawer": (_drop("first_drawer"), ["first_drawer", "seat 0..3"]),
    "first_drawer is text": (_set(["first_drawer"], "2"), ["first_drawer"]),
    "missing deal": (_drop("deck"), ["deck/hands"]),
    "deck is text": (_set(["deck"], "S3 S2"), ["deck"]),
    "deck too short": (lambda r: {**r, "deck": r["deck"][:53]}, ["deck", "54", "R1"]),
    "deck has a card twice": (_deck_twice, ["deck", "R1"]),
    "deck has a bad code": (_set(["deck", 0], "X9"), ["deck", "X9", "R6"]),
    "hands: wrong sizes": (_hands_record(_move_card), ["hands[", "R9"]),
    "hands: a card dealt twice": (_hands_record(_duplicate_across), ["hands", "twice", "R1"]),
    "hands: a card twice in one hand": (_hands_record(_duplicate_within), ["hands[0]", "R1"]),
    "hands: three hands": (lambda r: _hands_record(lambda h: h.pop())(r), ["hands", "four"]),
    "actions is an object": (_set(["actions"], {}), ["actions"]),
    "action is a list": (_set(["actions", 0], ["D4"]), ["actions[0]"]),
    "seat is text": (_set(["actions", 3, "seat"], "1"), ["actions[3].seat"]),
    "seat out of range": (_set(["actions", 3, "seat"], 4), ["actions[3].seat"]),
    "play is text": (_set(["actions", 0, "play"], "D4"), ["actions[0].play"]),
    "pass is not true": (_set(["actions", 5], {"seat": 1, "pass": 1}), ["actions[5].pass"]),
    "two kinds of action": (_set(["actions", 0, "pass"], True), ["actions[0]", "exactly one"]),
    "unknown card": (_first_action({"seat": LEADER, "play": ["Z9"]}), ["actions[0]", "Z9", "R6"]),
    "opening without D4": (_first_action({"seat": LEADER, "play": [NOT_D4]}), ["actions[0]", "R26"]),
    "out of turn": (_first_action({"seat": NEXT, "play": ["D4"]}), ["actions[0]", "R27"]),
    "card not held": (_first_action({"seat": LEADER, "play": ["D4", NOT_HELD]}), ["actions[0]", "R27"]),
    "not a combination": (_first_action({"seat": LEADER, "play": NO_COMBO}), ["actions[0]", "R25"]),
    "pass on the lead": (_first_action({"seat": LEADER, "pass": True}), ["actions[0]", "R27"]),
    "card listed twice": (_first_action({"seat": LEADER, "play": ["D4", "D4"]}), ["actions[0]", "R1"]),
    "action after the end": (
        _append({"seat": 0, "pass": True}),
        [f"actions[{len(SAMPLE['actions'])}]", "R31"],
    ),
    "result disagrees": (_wrong_result, ["wrong result: result.scores", "[0, 0, 0, 0]", "(R33)"]),
    "result for a game in progress": (_result_too_soon, ["result", "in progress", "R31"]),
    "result with an extra field": (_result_extra, ["result", "'winner'"]),
    "result is a list": (_set(["result"], [1]), ["result", "expected an object"]),
}


def _bad_file(tmp_path: Path, spoil: Callable[[dict[str, Any]], Any] | str) -> str:
    if isinstance(spoil, str):
        path = tmp_path / "bad.json"
        path.write_bytes(spoil.encode("utf-8", "surrogateescape"))
        return str(path)
    return write(tmp_path, spoil(copy.deepcopy(SAMPLE)), "bad.json")


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_record_exits_1_with_one_clear_line(
    case: str, replay: Callable[..., Run], tmp_path: Path
) -> None:
    spoil, words = BAD[case]
    path = _bad_file(tmp_path, spoil)
    run = replay(path)
    assert run.status == 1, (run.out, run.err)
    assert run.out == ""
    assert "Traceback" not in run.err
    lines = run.err.splitlines()
    assert len(lines) == 1, run.err
    assert lines[0].startswith(f"niugui replay: {path}: ")
    for word in words:
        assert word in lines[0], (word, lines[0])


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_record_with_json_exits_1_too(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _bad_file(tmp_path, BAD[case][0])
    assert main(["replay", "--json", path]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1


def test_an_illegal_action_names_its_index_and_rule(replay: Callable[..., Run], tmp_path: Path) -> None:
    """RECORD.md: the first offending action's 0-based index and the rule it breaks (R27 here)."""
    record = copy.deepcopy(SAMPLE)
    index = 7
    record["actions"][index] = {
        **record["actions"][index],
        "seat": (record["actions"][index]["seat"] + 1) % 4,
    }
    run = replay(write(tmp_path, record))
    assert run.status == 1
    assert f"illegal action: actions[{index}]: " in run.err and "(R27" in run.err


@pytest.mark.parametrize("where", ["missing file", "a directory"])
def test_unreadable_file(where: str, replay: Callable[..., Run], tmp_path: Path) -> None:
    path = str(tmp_path / "nothing.json") if where == "missing file" else str(tmp_path)
    run = replay(path)
    assert run.status == 1 and run.out == ""
    assert run.err.count("\n") == 1 and "cannot read" in run.err and "Traceback" not in run.err


def test_a_reader_that_goes_away_is_no_error() -> None:
    """``niugui replay FILE | head -1``: the closed pipe gives no traceback."""
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "PYTHONPATH": str(ROOT)}
    command = [
        sys.executable,
        "-m",
        "niugui.cli.main",
        "replay",
        "--actions",
        str(EXAMPLES / "sample-game.json"),
    ]
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT
    ) as child:
        assert child.stdout is not None and child.stderr is not None
        child.stdout.close()  # before the program writes anything
        err = child.stderr.read().decode("utf-8")
        status = child.wait(timeout=60)
    assert status == 0 and err == ""


def test_bad_standard_input(replay: Callable[..., Run]) -> None:
    run = replay("-", stdin="not json")
    assert run.status == 1 and run.err.startswith("niugui replay: <stdin>: not valid JSON")


# ---- no traceback, whatever the record holds ---------------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 60) | st.sampled_from(["S3", "D4", "x", "", "pass"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)
PATHS = st.sampled_from(
    [
        ["format"],
        ["version"],
        ["variant"],
        ["first_drawer"],
        ["deck"],
        ["deck", 3],
        ["actions"],
        ["actions", 0],
        ["actions", 0, "seat"],
        ["actions", 0, "play"],
        ["actions", 2, "pass"],
        ["actions", 4, "play", 0],
        ["result"],
        ["result", "finish"],
        ["meta"],
        ["hands"],
    ]
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(changes=st.lists(st.tuples(PATHS, JSON), min_size=1, max_size=3))
def test_any_spoiled_record_gives_status_0_or_1_never_an_exception(
    changes: list[tuple[list[Any], Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    import tempfile

    record: Any = copy.deepcopy(SAMPLE)
    for path, value in changes:
        try:
            _set(path, value)(record)
        except (KeyError, IndexError, TypeError):
            continue  # the path no longer exists in the spoiled record
    with tempfile.TemporaryDirectory() as folder:
        status = main(["replay", write(Path(folder), record)])
    captured = capsys.readouterr()
    assert status in (0, 1)
    if status == 1:
        assert captured.out == "" and len(captured.err.splitlines()) == 1


@pytest.mark.parametrize("breaker", ["\n", "\x85", "\u2028", "\r"])
def test_text_quoted_from_a_bad_record_cannot_split_the_error_line(
    breaker: str, tmp_path: Path, replay: Callable[..., Run]
) -> None:
    """The one-line error quotes the record's wrong value; a line break inside it is escaped."""
    record = load("sample-game.json")
    record["result"]["finish"] = {f"a{breaker}b": None}
    run = replay(write(tmp_path, record))
    assert run.status == 1 and run.out == ""
    assert len(run.err.splitlines()) == 1 and "result.finish" in run.err and "R30" in run.err
