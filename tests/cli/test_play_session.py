"""The terminal game's session logic, in-process: what it shows comes from the seat's view only,
wrong entries are answered with their rule, escapes are asked for, and series follow R8 and R36."""

from __future__ import annotations

import io
import json
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest
from rich.console import Console
from rich.text import Text

from niugui import Game
from niugui.bots import load_bot
from niugui.cards import CARDS, Card
from niugui.cli import play
from niugui.cli.main import main
from niugui.series import flip_first_drawer

CARD = re.compile(r"[♦♣♥♠](?:10|[2-9JQKA])|小王|大王|\b[BR]J\b")


class GuardedGame(Game):
    """A Game whose hidden-information accessors fail: the terminal game must not need them."""

    live: ClassVar[list[GuardedGame]] = []

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        GuardedGame.live.append(self)

    def hand(self, seat: int) -> list[Card]:
        raise AssertionError("the terminal game read a hidden hand")

    def dealt(self, seat: int) -> list[Card]:
        raise AssertionError("the terminal game read a hidden dealt hand")

    @property
    def black(self) -> list[int]:
        raise AssertionError("the terminal game read the hidden sides")

    def hand_mask(self, seat: int) -> int:
        raise AssertionError("the terminal game read a hidden hand mask")


Answer = Callable[[str, dict[str, Any]], str]


def session(tmp_path: Path, answer: Answer, seed: int, lang: str = "en", human: int = 0,
            bots: str = "basic") -> tuple[play.Session, io.StringIO]:
    """A session whose keyboard is ``answer(prompt, view of the live game for your seat)``."""
    out = io.StringIO()
    console = Console(file=out, width=140, color_system=None, force_terminal=False)
    others = [s for s in range(4) if s != human]

    def read(prompt: Text) -> str:
        game = GuardedGame.live[-1]
        return answer(prompt.plain, Game.view(game, human))

    s = play.Session(
        bots={seat: load_bot(bots, seed=seat) for seat in others},
        specs=dict.fromkeys(others, bots),
        human=human, lang=lang, seed=seed, save_dir=tmp_path, console=console, read=read,
    )
    s.game_class = GuardedGame
    GuardedGame.live.clear()
    return s, out


def records(tmp_path: Path) -> list[dict[str, Any]]:
    paths = sorted(tmp_path.glob("*.json"), key=lambda p: int(p.stem.rsplit("game", 1)[1]))
    return [json.loads(p.read_text(encoding="utf-8")) for p in paths]


def weakest_or_pass(rng: random.Random) -> Answer:
    def answer(prompt: str, view: dict[str, Any]) -> str:
        if view["can_pass"] and (not view["legal_plays"] or rng.random() < 0.3):
            return "p"
        return str(rng.randrange(len(view["legal_plays"])) + 1)
    return answer


def test_two_games_seen_only_through_the_view_follow_r8_and_r36(tmp_path: Path) -> None:
    """The screen is built from game.view(your seat) only (the guarded accessors are never called);
    the 2nd game's first drawer is the 1st game's 上游 (R8); totals add up (R36); no unplayed card
    of another seat is ever printed before the game ends (R12)."""
    rng = random.Random(3)
    plays = weakest_or_pass(rng)
    leaks: list[str] = []
    seen = 0

    def answer(prompt: str, view: dict[str, Any]) -> str:
        nonlocal seen
        text = out.getvalue()
        # What was printed since this game's deal, after the lines that tell who draws and who leads:
        # the 翻牌's card is public and independent of the deal, and the ♦4 holder leads publicly (R26).
        begun = text.rfind("─ Game ")
        current_game = text[text.index("the holder of ♦4 (R26)", begun):]
        played = {Card.parse(c) for entry in view["history"] for c in entry.get("play", [])}
        shown = {Card.parse(t) for t in CARD.findall(current_game)}
        hidden = shown - played - {Card.parse(c) for c in view["hand"]}
        if not view["over"] and hidden and "Game over" not in text[seen:]:
            leaks.append(f"{sorted(hidden)} in:\n{current_game}")
        seen = len(text)
        if prompt.startswith("Another game"):
            return "y" if len(records(tmp_path)) < 2 else "n"
        return plays(prompt, view)

    s, out = session(tmp_path, answer, seed=7)
    assert s.run() == 0
    assert not leaks, leaks[0]
    first, second = records(tmp_path)
    assert first["meta"]["first_drawer_by"] == "flip" and first["meta"]["flip"]
    assert second["first_drawer"] == first["result"]["finish"][0]
    assert second["meta"]["first_drawer_by"] == "previous_first" and second["meta"]["flip"] is None
    assert s.series.totals == [a + b for a, b in zip(first["result"]["scores"], second["result"]["scores"],
                                                     strict=True)]
    text = out.getvalue()
    assert text.count("Game over") == 2 and "Running totals after 2 games" in text
    upstream = play.tv.who({"seat": 0}, second["first_drawer"], "en")
    assert f"First drawer: {upstream}, last game's 1st out (R8)" in text
    for record in (first, second):
        replayed = Game.from_record(record)
        assert replayed.result is not None and replayed.result.to_dict() == record["result"]
        assert [p["bot"] for p in record["meta"]["players"]] == [None, "basic", "basic", "basic"]


def find_seed_where_you_lead(human: int = 0) -> int:
    """A --seed whose first deal gives you ♦4 (R26), using the documented seeds: the 翻牌 card and
    the deal seed ``f"{seed}:1"`` recorded in the record's meta."""
    for seed in range(200):
        card = CARDS[random.Random(f"{seed}:flip:1").randrange(len(CARDS))]
        if Game.deal(seed=f"{seed}:1", first_drawer=flip_first_drawer(card)).to_move == human:
            return seed
    raise AssertionError("no seed found")


def test_wrong_entries_are_answered_with_their_rule_and_asked_again(tmp_path: Path) -> None:
    """Each wrong entry is refused with the rule it breaks (R6, R25, R26, R27, R17/R24), the prompt
    comes back, and nothing of it is applied."""
    seed = find_seed_where_you_lead()
    script: list[str] = []
    followed = scripted = False
    rng = random.Random(1)
    plays = weakest_or_pass(rng)

    def answer(prompt: str, view: dict[str, Any]) -> str:
        nonlocal followed, scripted
        if prompt.startswith("再来一局"):
            return "n"
        if not scripted:
            scripted = True
            hand = [Card.parse(c) for c in view["hand"]]
            not_held = next(c for c in CARDS if c.code not in view["hand"])
            other = next(c for c in hand if c.rank != hand[0].rank)
            script.extend(["", "x9", not_held.zh, f"{hand[0].code} {other.code}", hand[-1].code, "p", "0",
                           str(len(view["legal_plays"]) + 1), hand[0].code + " " + hand[0].code.lower()])
        if script:
            return script.pop(0)
        current = view["current"]
        if not followed and current and current["kind"] == "single":
            weaker = [c for c in view["hand"] if Card.parse(c) < Card.parse(current["play"][0])]
            if weaker:
                followed = True
                return weaker[0]
        return plays(prompt, view)

    s, out = session(tmp_path, answer, seed=seed, lang="zh")
    assert s.run() == 0
    text = out.getvalue()
    refusals = re.findall(r"不行：(.*)", text)
    assert "请输入要出的牌，或 p 过、h 提示、q 退出" in text  # the empty line
    assert refusals[0] == "不认识的牌：'x9'（R6：牌写作 S3、D4、HT、BJ、♠3、黑桃10、10h）"
    assert refusals[1].startswith("你手里没有") and refusals[1].endswith("（R27）")
    assert refusals[2].endswith(" 不成牌型（R25）")
    assert refusals[3] == "本局第一手牌必须包含方块4（R26）"
    assert refusals[4].startswith("你有任意出牌权，必须出牌（R27")
    assert refusals[5] == "没有第 0 个提示（共 {} 个）".format(refusals[5].split("共 ")[1].split(" ")[0])
    assert refusals[6].startswith("没有第 ")
    assert refusals[7] == "同一张牌写了两次（R1：每张牌只有一张）"
    if followed:
        assert re.fullmatch(r"单牌 \S+ 压不过单牌 \S+（R17）", refusals[8]), refusals[8]
    record = records(tmp_path)[0]
    assert record["actions"][0]["seat"] == 0 and "D4" in record["actions"][0]["play"]  # none applied before
    assert "Traceback" not in text


def test_r35_quit_asks_before_escaping(tmp_path: Path) -> None:
    """R35: `q` asks; "n" plays on; "y" escapes: -9, the game ends at once and is recorded."""
    answers = iter(["q", "n", "q", "y", "n"])
    s, out = session(tmp_path, lambda prompt, view: next(answers), seed=4, lang="en")
    assert s.run() == 0
    text = out.getvalue()
    assert "Back to the game." in text and "You (seat 0) escaped (逃跑, R35)" in text
    assert "You (seat 0) escaped: the game ended at once" in text
    assert "Outcome: escape (逃跑) — -9 for the seat that left, no other score changes" in text
    (record,) = records(tmp_path)
    assert record["actions"][-1] == {"seat": 0, "escape": True}
    assert record["result"]["scores"] == [-9, 0, 0, 0] and s.series.totals == [-9, 0, 0, 0]
    assert s.series.next_first_drawer is None  # no 上游: the next game is designated by a 翻牌 (R8)


def scripted(events: list[Any], prompts: list[str] | None = None) -> Answer:
    """A keyboard that types the strings and raises the exceptions of ``events``, in order (and
    keeps the prompts it was shown in ``prompts``)."""

    def answer(prompt: str, view: dict[str, Any]) -> str:
        if prompts is not None:
            prompts.append(prompt)
        event = events.pop(0)
        if isinstance(event, type):
            raise event
        return str(event)

    return answer


def test_r35_at_the_escape_question_ctrl_c_ctrl_d_and_enter_mean_no(tmp_path: Path) -> None:
    """R35: Ctrl-C (KeyboardInterrupt) asks first; at the question Ctrl-C, end of input (EOFError)
    and a bare Enter all answer no (the default); only a yes escapes."""
    events: list[Any] = [KeyboardInterrupt, KeyboardInterrupt, KeyboardInterrupt, EOFError, "q", "", "q", "y",
                         "n"]
    prompts: list[str] = []
    s, out = session(tmp_path, scripted(events, prompts), seed=5, lang="en")
    assert s.run() == 0
    text = out.getvalue()
    assert [p.startswith("Escape? ") for p in prompts] == [False, True] * 4 + [False]
    assert text.count("Back to the game.") == 3 and not events
    (record,) = records(tmp_path)
    assert record["result"]["outcome"] == "escape"
    assert record["actions"].count({"seat": 0, "escape": True}) == 1


def test_r35_end_of_input_at_the_move_prompt_saves_the_game_unfinished(tmp_path: Path) -> None:
    """End of input at the move prompt escapes nothing (R35 needs a yes): the game in progress is
    saved, unfinished, with the totals before it, and the session ends."""
    events: list[Any] = ["q", "n", EOFError]
    s, out = session(tmp_path, scripted(events), seed=5, lang="zh")
    assert s.run() == 0 and not events
    text = out.getvalue()
    assert "输入已结束：本局没有算逃跑，已保存到" in text and "接着打：niugui play --resume " in text
    assert "本局结束" not in text
    (record,) = records(tmp_path)
    assert "result" not in record and not any(a.get("escape") for a in record["actions"])
    assert record["meta"]["totals_before"] == [0, 0, 0, 0]
    game = Game.from_record(record)
    assert not game.over and game.to_move == 0  # it stopped at your turn


def test_resuming_a_saved_game_continues_it_and_the_running_totals(tmp_path: Path) -> None:
    """R36: a game left when input ended, resumed, is played on from where it stood; the totals before
    it carry on and the finished record replaces the unfinished one."""
    first, _ = session(tmp_path, weakest_or_pass(random.Random(1)), seed=6, lang="en")
    answers = weakest_or_pass(random.Random(1))
    played = 0

    def then_stop(prompt: str, view: dict[str, Any]) -> str:
        nonlocal played
        if prompt.startswith("Another game"):
            assert not played, "the session went on after input ended"
            return "y"
        if len(records(tmp_path)) == 1:  # the second game
            played += 1
            if played == 3:
                raise EOFError
        return answers(prompt, view)

    first._read = lambda prompt: then_stop(prompt.plain, Game.view(GuardedGame.live[-1], 0))
    assert first.run() == 0
    finished, unfinished = sorted(records(tmp_path), key=lambda r: "result" in r, reverse=True)
    assert finished["result"] and "result" not in unfinished
    totals = finished["result"]["scores"]
    assert unfinished["meta"]["totals_before"] == totals and unfinished["meta"]["game_no"] == 2
    (path,) = [p for p in tmp_path.glob("*.json") if "result" not in json.loads(p.read_text("utf-8"))]

    point = play.load_unfinished(None, tmp_path)
    game, where = point.game, point.path
    assert where == path and game.to_record()["actions"] == unfinished["actions"]
    assert (point.number, point.human, point.seed, point.totals) == (2, 0, 6, totals)
    assert point.bots == {1: "basic", 2: "basic", 3: "basic"}
    again, out = session(tmp_path, weakest_or_pass(random.Random(2)), seed=6, lang="en")
    again._read = lambda prompt, inner=again._read: "n" if prompt.plain.startswith("Another") else inner(
        prompt)
    GuardedGame.live.append(game)  # the keyboard reads the resumed game's view
    assert again.run(point) == 0
    text = out.getvalue()
    assert f"Continuing game 2 after {len(unfinished['actions'])} actions: {path}" in text
    assert "Running totals after 2 games" in text
    resumed = json.loads(path.read_text(encoding="utf-8"))
    assert resumed["actions"][:len(unfinished["actions"])] == unfinished["actions"]
    result = Game.from_record(resumed).result
    assert result is not None and resumed["result"] == result.to_dict()
    assert again.series.totals == [a + b for a, b in zip(totals, result.scores, strict=True)]
    assert len(list(tmp_path.glob("*.json"))) == 2  # the unfinished record became the finished one
    with pytest.raises(ValueError, match="no unfinished game"):
        play.load_unfinished(None, tmp_path)
    with pytest.raises(ValueError, match="that game is over"):
        play.load_unfinished(path, tmp_path)


@pytest.mark.parametrize(("args", "message"), [
    (["--bots", "nosuch"], "niugui play: --bots: unknown bot 'nosuch'"),
    (["--bots", "basic,random"], "niugui play: --bots: give one bot or three"),
    (["--delay", "-1"], "niugui play: --delay: must be 0 or more seconds"),
    (["--save", "/proc/niugui"], "niugui play: --save: cannot use '/proc/niugui' for records"),
    (["--resume", "/nonexistent/x.json"], "niugui play: --resume: cannot read /nonexistent/x.json"),
])
def test_bad_options_exit_with_one_line(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["play", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1 and "Traceback" not in err


def test_records_go_to_the_user_data_dir_by_default(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert play.default_save_dir() == tmp_path / "niugui" / "games"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert play.default_save_dir() == Path.home() / ".local" / "share" / "niugui" / "games"


@pytest.mark.parametrize(("typed", "zh", "en"), [
    ("c5s5", "对子不能压单牌（R17：散牌只能压同类型的牌，没有炸弹）",
     "a pair cannot be played on a single (R17: a loose combination beats only the same type)"),
    ("c5 s5 d5 d6 c6", "三带对不能压单牌（R24：顺牌和散牌互不相压）",
     "a full house cannot be played on a single "
     "(R24: five-card and loose combinations never beat each other)"),
    ("♣5", "单牌 ♣5 压不过单牌 ♥5（R17）", "single ♣5 does not beat single ♥5 (R17)"),
    ("d5 s4", "♠4 ♦5 不成牌型（R25）", "♠4 ♦5 is not a combination (R25)"),
    ("dk", "你手里没有 ♦K（R27）", "you do not hold ♦K (R27)"),
    ("5x", "不认识的牌：'5x'（R6：牌写作 S3、D4、HT、BJ、♠3、黑桃10、10h）",
     "not a card: '5x' (R6: write cards like S3, D4, HT, BJ, ♠3, 黑桃10, 10h)"),
])
def test_a_refused_play_says_which_rule_it_breaks(typed: str, zh: str, en: str, tmp_path: Path) -> None:
    """R17, R24, R25, R27, R6: the reason in the player's language; the game is unchanged."""
    for lang, expected in (("zh", zh), ("en", en)):
        game = Game.from_hands(
            [["D4", "S4", "D5", "C5", "S5", "D6", "C6", "H6", "S6", "D7", "C7", "H7", "S7"],
             ["DT", "CT", "HT", "ST", "DJ", "CJ", "HJ", "SJ", "DQ", "CQ", "HQ", "SQ", "DK"],
             ["H5", "C4", "H4", "D8", "C8", "H8", "S8", "D9", "C9", "H9", "S9", "CK", "HK", "SK"],
             ["DA", "CA", "HA", "SA", "D2", "C2", "H2", "S2", "D3", "C3", "H3", "S3", "BJ", "RJ"]],
            first_drawer=3,
        )
        game.play("D4")
        game.play("DT")
        game.play("CK")
        game.pass_turn()
        game.pass_turn()
        game.pass_turn()
        game.play("H5")  # seat 2 leads ♥5; seat 3 passes; seat 0 to beat it
        game.pass_turn()
        s, _ = session(tmp_path, lambda prompt, view: "", seed=1, lang=lang)
        before = game.to_record()
        assert s.try_action(game, game.view(0), typed) == expected
        assert game.to_record() == before


def test_you_may_sit_at_any_seat(tmp_path: Path) -> None:
    """--seat 3: the bots take seats 0–2 and the record says who sat where."""
    s, out = session(tmp_path, weakest_or_pass(random.Random(8)), seed=12, lang="zh", human=3, bots="random")
    s._read = lambda prompt, inner=s._read: "n" if prompt.plain.startswith("再来一局") else inner(prompt)
    assert s.run() == 0
    (record,) = records(tmp_path)
    assert [p["bot"] for p in record["meta"]["players"]] == ["random", "random", "random", None]
    assert Game.from_record(record).result is not None
    text = out.getvalue()
    assert "你（座位3）" in text and "下家（座位0）" in text  # seat 0 plays after seat 3 (R7)
