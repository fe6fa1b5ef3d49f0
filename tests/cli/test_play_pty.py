"""``niugui play`` through a real pseudo-terminal, reading the screen and typing, as a person would.

Every wait is on something the program shows (or a file a test bot creates), with a generous
deadline: never a fixed sleep. The scripts choose from what the screen shows (the hand line, the
hint list); each saved record must replay to the result shown.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from play_terminal import Terminal
from rich.cells import cell_len

from niugui import Game
from niugui.cards import CARDS, parse_cards
from niugui.cli.text import OUTCOME_EN, OUTCOME_ZH
from niugui.series import flip_first_drawer

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
PROMPT_EN = r"Your play \(s3 s2, ♠3, 10h; p pass, h hint, q quit\)> "
PROMPT_ZH = r"出牌（如 s3 s2、♠3、黑桃3；p 过，h 提示，q 退出）> "
AGAIN = {"en": r"Another game\? \[Y/n\] ", "zh": r"再来一局？\[Y/n\] "}
HINTS_END = (r"p = pass\n|p = 过\n|may not pass \(R27\)\n|不能过（R27）\n|type p to pass\n|输入 p 过\n")
RESULT_ROW = re.compile(
    r"(You|Right|Across|Left) \(seat (\d)\)\s+(?:\w+\s+)?(Red side|Black side|Double Niugui)\s+"
    r"(1st out|2nd out|3rd out|last|escaped|—)\s+([+-]?\d+)\s+([+-]?\d+)"
)


def environment(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS", "LINES")}
    env.update(TERM="xterm-256color", PYTHONUNBUFFERED="1", XDG_DATA_HOME=str(tmp_path / "xdg"), **extra)
    return env


def start(tmp_path: Path, *args: str, cols: int = 132, rows: int = 50, **env: str) -> Terminal:
    argv = [sys.executable, "-m", "niugui.cli.main", "play", "--delay", "0", *args]
    return Terminal(argv, env=environment(tmp_path, **env), cwd=ROOT, cols=cols, rows=rows)


@pytest.fixture
def terminals() -> Iterator[list[Terminal]]:
    opened: list[Terminal] = []
    yield opened
    for terminal in opened:
        terminal.close()


def hint_numbers(t: Terminal) -> tuple[list[int], bool]:
    """Type ``h`` and read the numbered plays it lists and whether passing is allowed."""
    start_at = t.position
    t.sendline("h")
    t.expect(HINTS_END)
    shown = t.since(start_at)
    numbers = [int(n) for n in re.findall(r"\[(\d+)\] ", shown)]
    assert numbers == sorted(set(numbers)), shown
    assert numbers or "Nothing you hold beats it" in shown or "你没有压得过的牌" in shown
    return numbers, bool(re.search(r"p = pass|p = 过|type p to pass|输入 p 过", shown))


def play_to_the_end(t: Terminal, prompt: str, lang: str, rng: random.Random) -> None:
    """Answer every move prompt with a play from the hint list, or a pass, until the game is over."""
    while True:
        index, _ = t.expect_any([prompt, AGAIN[lang]], timeout=60)
        if index == 1:
            return
        numbers, may_pass = hint_numbers(t)
        t.expect(prompt)
        if may_pass and (not numbers or rng.random() < 0.3):
            t.sendline("p")
        else:
            t.sendline(str(rng.choice(numbers)))
        t.expect(r"You \(seat 0\)|你（座位0）")


def assert_fits(screen: str, cols: int, rows: int) -> None:
    """The game-over screen, from its first line to the next question, fits ``cols`` × ``rows``
    (lines the terminal wraps counted as it shows them), and nothing in it is cut with ``…``."""
    start = max(screen.rfind("Game over\n"), screen.rfind("本局结束\n"))
    end = max(screen.rfind("Another game? [Y/n] "), screen.rfind("再来一局？[Y/n] "))
    assert 0 <= start < end, screen[-2000:]
    shown = screen[start:end].split("\n")
    taken = sum(max(1, math.ceil(cell_len(line) / cols)) for line in shown)
    assert taken <= rows, f"{taken} lines at {cols}×{rows}:\n" + "\n".join(shown)
    assert "…" not in screen[start:end]


def test_r32_r34_a_whole_game_at_100x35_with_wrong_entries_and_a_pass(
    tmp_path: Path, terminals: list[Terminal]
) -> None:
    """Wrong entries are answered with their rule and asked again; the game-over screen names the
    winner (R32), the outcome (R33/R34), the places, signed changes and totals, and fits 100×35."""
    save = tmp_path / "records"
    t = start(tmp_path, "--bots", "basic", "--seed", "2024", "--lang", "en", "--save", str(save),
              cols=100, rows=35)
    terminals.append(t)
    t.expect(r"Bots: Right \(seat 1\) basic, Across \(seat 2\) basic, Left \(seat 3\) basic")
    t.expect(r"Card flip: (\S+), worth (\d+)\. [^(]*the\s+first\s+drawer\s+is\s+\w+\s+"
             r"\(seat\s+(\d)\)\s+\(R8\)")
    turn = t.expect(r"Your turn — (.*)\n")
    hand = parse_cards(t.expect(r"Your hand \(\d+ cards?\): (.*)\n").group(1))
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
            index, turn = t.expect_any([r"Your turn — (.*)\n", AGAIN["en"]], timeout=60)
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
    shown = t.screen[t.screen.rindex("Game over\n"):t.position]
    assert_fits(t.screen, 100, 35)
    rows = {int(m.group(2)): m.groups()[2:] for m in RESULT_ROW.finditer(shown)}
    assert sorted(rows) == [0, 1, 2, 3], shown
    # (a path too long for the line comes on a line of its own: issue 28)
    path = Path(re.search(r"Record saved:\s+(\S+)\n", shown).group(1))  # type: ignore[union-attr]
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
    assert f"Outcome: {OUTCOME_EN[outcome].removesuffix(' (no score)')} ({OUTCOME_ZH[outcome]}) — " in shown
    winners = [s for s in range(4) if result["scores"][s] > 0]
    if winners:
        assert result["finish"][0] in winners  # R32: the side of the 上游 wins
        side = re.search(r"Winner: (Red side|Black side|Double Niugui) — (.*)\n", shown)
        assert side and sorted(int(s) for s in re.findall(r"seat (\d)", side.group(2))) == winners
        assert all(rows[s][0] == side.group(1) for s in winners)
    else:
        assert "No winner: a draw\n" in shown
    for seat, (_, place, change, total) in rows.items():
        assert int(change) == int(total) == result["scores"][seat]  # the running total after one game
        assert change == (f"{result['scores'][seat]:+d}" if result["scores"][seat] else "0")
        expected = ("1st out", "2nd out", "3rd out")[result["finish"].index(seat)] if seat in result[
            "finish"] else "last"
        assert place == expected
    assert record["meta"]["seed"] == 2024
    assert [p["bot"] for p in record["meta"]["players"]] == [None, "basic", "basic", "basic"]
    assert record["meta"]["first_drawer_by"] == "flip" and record["meta"]["flip"]  # 翻牌 (R8)
    plays_by_you = [a for a in record["actions"] if a["seat"] == 0]
    assert {"seat": 0, "pass": True} in plays_by_you and any("play" in a for a in plays_by_you)
    # Saved compact, as the examples are: one action a line.
    assert len(path.read_text(encoding="utf-8").splitlines()) == len(record["actions"]) + 11

    # And `niugui replay` reads it.
    replay = subprocess.run([sys.executable, "-m", "niugui.cli.main", "replay", str(path)], cwd=ROOT,
                            capture_output=True, text=True, timeout=60)
    assert replay.returncode == 0, replay.stderr
    assert OUTCOME_ZH[outcome] in replay.stdout


def test_r35_ctrl_c_and_ctrl_d_at_the_escape_question_mean_no(
    tmp_path: Path, terminals: list[Terminal]
) -> None:
    """R35: Ctrl-C or q asks before escaping; at that question Ctrl-C, Ctrl-D and Enter all answer
    no and the game goes on; only y escapes (-9). Ctrl-D at "another game?" means no as well."""
    t = start(tmp_path, "--bots", "random", "--seed", "11", "--save", str(tmp_path / "r"))
    terminals.append(t)
    t.expect("翻牌：")
    for key in ("\x03", "\x04", "\r"):  # Ctrl-C, Ctrl-D, Enter
        t.expect(PROMPT_ZH)
        t.send("\x03")
        t.expect(r"要逃跑吗？逃跑扣 9 分，本局立即结束（R35）\[y/N\] ")
        t.send(key)
        t.expect("继续游戏。")
    t.expect(PROMPT_ZH)
    t.sendline("q")
    t.expect(r"要逃跑吗？")
    t.send("\x03")
    t.expect("继续游戏。")
    t.expect(PROMPT_ZH)
    t.sendline("q")
    t.expect(r"要逃跑吗？")
    t.sendline("y")
    t.expect(r"你（座位0）逃跑了（R35）")
    t.expect(r"本局结束\n你逃跑了 -9\n你（座位0）逃跑，本局立即结束")  # what it means for you, first
    path = Path(t.expect(r"牌谱已保存：\s*(\S+)\n").group(1))
    t.expect(AGAIN["zh"])
    t.send("\x04")
    t.expect("再见！")
    assert t.wait() == 0
    assert "Traceback" not in t.screen and t.screen.count("你（座位0）逃跑了") == 1
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["actions"].count({"seat": 0, "escape": True}) == 1
    assert record["result"]["outcome"] == "escape" and record["result"]["scores"] == [-9, 0, 0, 0]
    assert re.search(r"你（座位0）\s+(?:红方|黑方|双牛鬼)\s+逃跑\s+-9\s+-9", t.screen)


def test_r35_ctrl_d_at_the_move_prompt_saves_the_game_and_resume_continues_it(
    tmp_path: Path, terminals: list[Terminal]
) -> None:
    """End of input (Ctrl-D) at the move prompt is no escape (R35): the game in progress is saved and
    the program ends; `niugui play --resume` takes it up where it stood and plays it to the end."""
    save = tmp_path / "r"
    t = start(tmp_path, "--bots", "basic", "--seed", "3", "--lang", "en", "--save", str(save))
    terminals.append(t)
    t.expect(PROMPT_EN)
    numbers, _ = hint_numbers(t)
    t.expect(PROMPT_EN)
    t.sendline(str(numbers[0]) if numbers else "p")
    t.expect(PROMPT_EN)
    t.send("\x04")
    ended = t.expect(r"Input ended: the game is not counted as an escape; it is saved in\s+(\S+)\n")
    saved = Path(ended.group(1))
    t.expect(r"To continue: niugui play --resume\s")
    t.expect("Goodbye!")
    assert t.wait() == 0 and "Escape?" not in t.screen and "Game over" not in t.screen
    left = json.loads(saved.read_text(encoding="utf-8"))
    assert "result" not in left and not any(a.get("escape") for a in left["actions"])

    again = start(tmp_path, "--resume", "--lang", "en", "--save", str(save))
    terminals.append(again)
    again.expect(rf"Continuing game 1 after {len(left['actions'])} actions: {re.escape(str(saved))}\n")
    play_to_the_end(again, PROMPT_EN, "en", random.Random(4))
    again.sendline("n")
    again.expect("Goodbye!")
    assert again.wait() == 0 and "Traceback" not in again.screen
    finished = json.loads(saved.read_text(encoding="utf-8"))
    assert finished["actions"][:len(left["actions"])] == left["actions"]
    result = Game.from_record(finished).result
    assert result is not None and finished["result"] == result.to_dict() and result.outcome != "escape"
    assert list(save.glob("*.json")) == [saved]


def run_closed(tmp_path: Path, stdin: str | None) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "niugui.cli.main", "play", "--delay", "0", "--lang", "en", "--bots",
            "random", "--seed", "7", "--save", str(tmp_path / "r")]
    return subprocess.run(argv, cwd=ROOT, env=environment(tmp_path), text=True, capture_output=True,
                          timeout=120, input=stdin, stdin=subprocess.DEVNULL if stdin is None else None)


@pytest.mark.parametrize("typed", [None, "q\n", "q\ny"],
                         ids=["no input", "q then closed", "q and a y never entered"])
def test_r35_closed_input_never_escapes(tmp_path: Path, typed: str | None) -> None:
    """Input that is closed (``< /dev/null``, or a pipe that ends) answers no at the escape question
    and, at the move prompt, saves the game unfinished: it never costs the -9 of R35; a last "y"
    that input ended before Enter is no answer either."""
    run = run_closed(tmp_path, typed)
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stdout + run.stderr
    assert "Input ended: the game is not counted as an escape" in run.stdout
    if typed:
        assert "Escape?" in run.stdout and "Back to the game." in run.stdout
    assert "escaped" not in run.stdout
    (path,) = (tmp_path / "r").glob("*.json")
    record = json.loads(path.read_text(encoding="utf-8"))
    assert "result" not in record and not any(a.get("escape") for a in record["actions"])


def seed_where_you_lead() -> int:
    """A --seed whose first deal gives you ♦4 (R26): from the 翻牌 card and the deal seed the
    record's meta documents."""
    for seed in range(200):
        card = CARDS[random.Random(f"{seed}:flip:1").randrange(len(CARDS))]
        if Game.deal(seed=f"{seed}:1", first_drawer=flip_first_drawer(card)).to_move == 0:
            return seed
    raise AssertionError("no seed found")


def wait_for_file(path: Path, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} did not appear within {timeout} s"
        time.sleep(0.01)


def test_keys_typed_while_the_bots_play_are_thrown_away(tmp_path: Path, terminals: list[Terminal]) -> None:
    """A stray `p` typed while a bot is thinking must not answer the next turn: the program discards
    what was typed before each question appears."""
    gate = tmp_path / "gate"
    gate.mkdir()
    t = start(tmp_path, "--bots", "gated_bot:GatedBot", "--seed", str(seed_where_you_lead()), "--lang", "en",
              "--save", str(tmp_path / "r"), PYTHONPATH=str(HERE), NIUGUI_TEST_GATE=str(gate))
    terminals.append(t)
    t.expect(r"Your turn — free lead")
    t.expect(PROMPT_EN)
    (gate / "armed").touch()  # the next bot to move holds its turn until "go"
    t.sendline("1")  # the first legal play: it holds ♦4 (R26)
    t.expect(r"You \(seat 0\): ")
    wait_for_file(gate / "waiting")
    t.send("p\r")  # typed ahead, while the bot holds its turn
    t.expect(r"p\n")  # the terminal echoed it: it sits in the program's unread input
    typed_at = t.position
    (gate / "go").touch()
    t.expect(PROMPT_EN)
    t.sendline("h")
    t.expect(HINTS_END)
    after = t.since(typed_at)
    assert "You (seat 0): pass" not in after and "Not allowed" not in after, after
    assert re.search(re.escape("q quit)> ") + r"h\n", after), after  # the first answer read was the h
    t.expect(PROMPT_EN)  # (what is typed before the prompt is shown would be thrown away, too)
    t.sendline("q")
    t.expect(r"Escape\?")
    t.sendline("y")
    t.expect(AGAIN["en"])
    t.sendline("n")
    assert t.wait() == 0


def test_default_expert_bots_in_chinese_at_60x30_and_ctrl_c_while_the_bots_play(
    tmp_path: Path, terminals: list[Terminal]
) -> None:
    """The default game (expert bots, Chinese) at 60×30, played to the end from the hint list; a
    Ctrl-C typed while the bots are moving is not lost and still asks before escaping (R35). The
    game-over screen names the winner and fits the screen (R32–R34)."""
    t = start(tmp_path, "--seed", "99", "--delay", "0.05", "--save", str(tmp_path / "r"), cols=60, rows=30)
    terminals.append(t)
    t.expect(r"机器人：下家（座位1）\s+expert、对家（座位2）\s+expert、上家（座位3）\s+expert")
    rng = random.Random(2)
    interrupted = False
    while True:
        index, _ = t.expect_any([PROMPT_ZH, AGAIN["zh"]], timeout=60)
        if index == 1:
            break
        numbers, _ = hint_numbers(t)
        t.expect(PROMPT_ZH)
        t.sendline(str(rng.choice(numbers)) if numbers else "过")
        t.expect(r"你（座位0）")
        if not interrupted:
            t.send("\x03")  # while the three bots take their turns
            t.expect(r"要逃跑吗？")
            t.sendline("n")
            t.expect("继续游戏。")
            interrupted = True
    assert_fits(t.screen, 60, 30)
    outcome = re.findall(r"结果：(\S+)（", t.screen)
    assert outcome and outcome[0] in OUTCOME_ZH.values() and outcome[0] != "逃跑"
    t.sendline("n")
    t.expect("再见！")
    assert t.wait() == 0 and "Traceback" not in t.screen
    (path,) = (tmp_path / "r").glob("*.json")
    record = json.loads(path.read_text(encoding="utf-8"))
    assert [p["bot"] for p in record["meta"]["players"]] == [None, "expert", "expert", "expert"]
    result = Game.from_record(record).result
    assert result is not None and OUTCOME_ZH[result.outcome] == outcome[0]
    winners = [s for s in range(4) if result.scores[s] > 0]
    if winners:
        line = re.search(r"胜方：(红方|黑方|双牛鬼) — (.*)\n", t.screen)
        assert line and [int(s) for s in re.findall(r"座位(\d)", line.group(2))] == winners
