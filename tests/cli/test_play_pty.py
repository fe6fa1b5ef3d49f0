"""``niugui play`` played to the end through a real pseudo-terminal, reading the screen and typing.

The script makes its choices from what the program shows (the hand line, the hint list), as a
person would: wrong entries first (a bad token, cards that are no combination, a card not held, a
pass on a free lead), a pass when following, then legal plays picked from the hint list. The saved
record must replay to the result shown, and ``niugui replay`` must read it.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from play_terminal import Terminal

from niugui import Game
from niugui.cards import CARDS, parse_cards
from niugui.cli.text import OUTCOME_EN, OUTCOME_ZH

ROOT = Path(__file__).resolve().parents[2]
PROMPT_EN = r"Your play \(e\.g\. s3 s2, ♠3, 10h; p pass, h hint, q quit\)> "
PROMPT_ZH = r"出牌（如 s3 s2、♠3、黑桃3；p 过，h 提示，q 退出）> "
ROW = re.compile(r"(You|Right|Across|Left) \(seat (\d)\)\s*│\s*([^│]+?)\s*│\s*([+-]?\d+)\s*│\s*(-?\d+)\s*│")


def start(tmp_path: Path, *args: str) -> Terminal:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS", "LINES")}
    env.update(TERM="xterm-256color", PYTHONUNBUFFERED="1", XDG_DATA_HOME=str(tmp_path / "xdg"))
    argv = [sys.executable, "-m", "niugui.cli.main", "play", "--delay", "0", *args]
    return Terminal(argv, env=env, cwd=ROOT)


@pytest.fixture
def terminals() -> Iterator[list[Terminal]]:
    opened: list[Terminal] = []
    yield opened
    for terminal in opened:
        terminal.close()


def hint_numbers(t: Terminal) -> tuple[list[int], bool]:
    """Type ``h`` and read the numbered legal plays and whether passing is allowed."""
    start_at = t.position
    t.sendline("h")
    index, _ = t.expect_any([r"p = pass\n", r"You have the free lead and may not pass \(R27\)\n"])
    numbers = [int(n) for n in re.findall(r"\[(\d+)\] ", t.since(start_at))]
    assert numbers == list(range(1, len(numbers) + 1)), t.since(start_at)
    assert numbers or "Nothing you hold beats it" in t.since(start_at)
    return numbers, index == 0


def test_a_whole_game_with_wrong_entries_and_a_pass(tmp_path: Path, terminals: list[Terminal]) -> None:
    save = tmp_path / "records"
    t = start(tmp_path, "--bots", "basic", "--seed", "2024", "--lang", "en", "--save", str(save))
    terminals.append(t)
    t.expect(r"Card flip: (\S+) counts (\d+) .*first drawer: \w+ \(seat (\d)\) \(R8\)")
    turn = t.expect(r"Your turn — (.*)\n")
    hand_text = t.expect(r"Your hand \(\d+ cards\): (.*)\n").group(1)
    hand = parse_cards(hand_text)
    t.expect(PROMPT_EN)

    # Wrong entries, each answered with the rule it breaks, then the prompt again (never a traceback).
    t.sendline("x9")
    t.expect(r"Not allowed: not a card: 'x9' \(R6: ")
    t.expect(PROMPT_EN)
    first, other = hand[0], next(c for c in hand[1:] if c.rank != hand[0].rank)
    t.sendline(f"{first.code.lower()} {other.symbol if not other.is_joker else other.code}")
    t.expect(r"Not allowed: \S+ \S+ is not a combination \(R25\)")
    t.expect(PROMPT_EN)
    stranger = next(c for c in CARDS if c not in hand)
    t.sendline(stranger.zh)
    t.expect(r"Not allowed: you do not hold .* \(R27\)")
    t.expect(PROMPT_EN)

    rng = random.Random(5)
    passed = refused_pass = False
    turns = 0
    while True:
        if turns:  # the first turn's line and prompt were read above
            index, turn = t.expect_any([r"Your turn — (.*)\n", r"Another game\? \[Y/n\] "], timeout=30)
            if index == 1:
                break
            t.expect(PROMPT_EN)
        turns += 1
        leading = "free lead" in turn.group(1)
        if leading and not refused_pass:
            t.sendline("p")
            t.expect(r"Not allowed: you have the free lead and must play \(R27")
            t.expect(PROMPT_EN)
            refused_pass = True
        if not leading and not passed:
            t.sendline("p")
            t.expect(r"You \(seat 0\): pass\n")
            passed = True
            continue
        numbers, may_pass = hint_numbers(t)
        assert may_pass is not leading
        t.expect(PROMPT_EN)
        if may_pass and (not numbers or rng.random() < 0.3):
            t.sendline("pass")
            t.expect(r"You \(seat 0\): pass\n")
        else:
            t.sendline(str(rng.choice(numbers)))
            t.expect(r"You \(seat 0\): ")
    assert passed and refused_pass and turns >= 3
    end = t.screen.rindex("Game over: ")
    shown = t.screen[end:t.position]
    outcome_shown = re.search(r"Game over: (.*)\n", shown)
    assert outcome_shown
    rows = {int(m.group(2)): (m.group(3), int(m.group(4)), int(m.group(5))) for m in ROW.finditer(shown)}
    assert sorted(rows) == [0, 1, 2, 3], shown
    path = Path(re.search(r"Record saved: (\S+)\n", shown).group(1))  # type: ignore[union-attr]
    t.sendline("n")
    t.expect(r"Goodbye!")
    assert t.wait() == 0
    assert "Traceback" not in t.screen
    # Coloured cards: ♥ and ♦ in bold red, ♠ and ♣ in bold without colour.
    assert re.search(r"\x1b\[1;31m[♥♦]", t.raw) and re.search(r"\x1b\[1m[♠♣]", t.raw)

    # The record replays to exactly the result that was shown.
    record = json.loads(path.read_text(encoding="utf-8"))
    assert path.parent == save
    game = Game.from_record(record)
    assert game.result is not None
    result = game.result.to_dict()
    assert record["result"] == result
    outcome = result["outcome"]
    assert outcome_shown.group(1) == f"{OUTCOME_ZH[outcome]} {OUTCOME_EN[outcome]}"
    assert [rows[s][1] for s in range(4)] == result["scores"]
    assert [rows[s][2] for s in range(4)] == result["scores"]  # the running total after one game (R36)
    places = ("1st out", "2nd out", "3rd out")
    for place, seat in enumerate(result["finish"]):
        assert rows[seat][0] == places[place]
    assert record["meta"]["seed"] == 2024
    assert [p["bot"] for p in record["meta"]["players"]] == [None, "basic", "basic", "basic"]
    assert record["meta"]["first_drawer_by"] == "flip" and record["meta"]["flip"]  # 翻牌 (R8)
    plays_by_you = [a for a in record["actions"] if a["seat"] == 0]
    assert {"seat": 0, "pass": True} in plays_by_you and any("play" in a for a in plays_by_you)

    # And `niugui replay` reads it.
    replay = subprocess.run([sys.executable, "-m", "niugui.cli.main", "replay", str(path)], cwd=ROOT,
                            capture_output=True, text=True, timeout=60)
    assert replay.returncode == 0, replay.stderr
    assert OUTCOME_ZH[outcome] in replay.stdout


def test_ctrl_c_and_end_of_input_ask_before_escaping(tmp_path: Path, terminals: list[Terminal]) -> None:
    """R35: Ctrl-C asks first; "n" plays on, "y" escapes (−9). End of input asks too. After an
    escape there is no 上游, so the next game's first drawer is picked by a 翻牌 again (R8)."""
    t = start(tmp_path, "--bots", "random", "--seed", "11", "--save", str(tmp_path / "r"))
    terminals.append(t)
    t.expect("翻牌：")
    t.expect(PROMPT_ZH)
    t.send("\x03")
    t.expect(r"要逃跑吗？逃跑扣 9 分，本局立即结束（R35）\[y/N\] ")
    t.sendline("n")
    t.expect("继续游戏。")
    t.expect(PROMPT_ZH)
    t.send("\x03")
    t.expect(r"要逃跑吗？")
    t.sendline("y")
    t.expect(r"你（座位0）逃跑了")
    t.expect(r"本局结束：逃跑")
    first = Path(t.expect(r"牌谱已保存：(\S+)\n").group(1))
    t.expect(r"再来一局？\[Y/n\] ")
    t.sendline("")
    t.expect("第 2 局")
    t.expect("翻牌：")  # no 上游 after an escape: the drawer is designated again (R8)
    t.expect(PROMPT_ZH)
    t.send("\x04")  # Ctrl-D: end of input
    t.expect(r"要逃跑吗？")
    t.send("\x04")  # and again: the player is gone
    t.expect(r"本局结束：逃跑")
    t.expect(r"总分（2 局）")
    second = Path(t.expect(r"牌谱已保存：(\S+)\n").group(1))
    t.expect(r"再来一局？")
    t.send("\x04")
    t.expect("再见！")
    assert t.wait() == 0
    assert "Traceback" not in t.screen
    for path in (first, second):
        record = json.loads(path.read_text(encoding="utf-8"))
        assert record["actions"][-1] == {"seat": 0, "escape": True}
        assert record["result"]["outcome"] == "escape" and record["result"]["scores"] == [-9, 0, 0, 0]
        assert Game.from_record(record).result is not None
    assert re.search(r"你（座位0）\s*│\s*逃跑\s*│\s*-9\s*│\s*-18\s*│", t.screen)  # running total (R36)


def test_default_expert_bots_in_chinese_and_ctrl_c_while_the_bots_play(
    tmp_path: Path, terminals: list[Terminal]
) -> None:
    """The default game (expert bots, Chinese), played to the end from the hint list; a Ctrl-C
    typed while the bots are moving is not lost and still asks before escaping (R35)."""
    t = start(tmp_path, "--seed", "99", "--delay", "0.05", "--save", str(tmp_path / "r"))
    terminals.append(t)
    rng = random.Random(2)
    interrupted = False
    while True:
        index, _ = t.expect_any([PROMPT_ZH, r"再来一局？\[Y/n\] "], timeout=30)
        if index == 1:
            break
        start_at = t.position
        t.sendline("h")
        t.expect(r"p = 过\n|你有任意出牌权，不能过（R27）\n")
        hint = t.since(start_at)
        numbers = re.findall(r"\[(\d+)\] ", hint)
        t.expect(PROMPT_ZH)
        t.sendline(rng.choice(numbers) if numbers else "过")
        t.expect(r"你（座位0）")
        if not interrupted:
            t.send("\x03")  # while the three bots take their turns
            t.expect(r"要逃跑吗？")
            t.sendline("n")
            t.expect("继续游戏。")
            interrupted = True
    result = re.findall(r"本局结束：(\S+)", t.screen)
    assert result and result[0] in OUTCOME_ZH.values() and result[0] != "逃跑"
    t.sendline("n")
    t.expect("再见！")
    assert t.wait() == 0 and "Traceback" not in t.screen
    (path,) = (tmp_path / "r").glob("*.json")
    record = json.loads(path.read_text(encoding="utf-8"))
    assert [p["bot"] for p in record["meta"]["players"]] == [None, "expert", "expert", "expert"]
    assert OUTCOME_ZH[Game.from_record(record).result.outcome] == result[0]  # type: ignore[union-attr]
