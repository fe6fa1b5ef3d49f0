"""Build the guided first game (新手教学, issue 28): one fixed, friendly deal played out by bots, with
the step of each line the page says, and your view at each step as the engine gives it (the page
computes nothing). Writes niugui/web/static/tutorial.json; ``--check`` (a test runs it) checks that
the file's lines and views are what the engine gives for its stored game, and that the game shows
every topic — a later change of the bots leaves the stored game as it is.

You are seat 0 (the page's player): you hold ♦4 (you lead, R26) and one black card (黑方, R10), you
pass at least once (R27, R28), play a five-card combination (R18–R24), see 接风 (R29) and go out
first (上游, R30, R32). Run: ``python scripts/make_tutorial.py [--check]``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from niugui import Game, arena
from niugui.bots import load_bot
from niugui.combos import FIVE_KINDS

OUT = Path(__file__).resolve().parents[1] / "niugui" / "web" / "static" / "tutorial.json"
YOU = 0
BOT = "basic"


def play_out(seed: int) -> Game | None:
    """The seed's deal played by bots, when it teaches everything (else None)."""
    game = Game.deal(seed=seed, first_drawer=YOU)
    dealt = {c.code for c in game.dealt(YOU)}
    if "D4" not in dealt or len(dealt & {"S3", "S2"}) != 1:
        return None
    arena.play_out(game, [load_bot(BOT, seed=seed * 4 + s) for s in range(4)])
    return game if not missing(game) else None


def lines(game: Game) -> list[dict[str, Any]]:
    """Each line and the step (actions done) at which the page says it: ``{"step", "key"}``."""
    history = game.view(None)["history"]
    said: dict[str, int] = {"tut_welcome": 0, "tut_lead": 0, "tut_side": 0}
    out_before: set[int] = set()
    leads = set(game.leads())
    counts = [len(game.dealt(s)) for s in range(4)]
    last_play_seat = None
    for i, entry in enumerate(history):
        seat = entry["seat"]
        if i in leads and last_play_seat in out_before and seat != last_play_seat:  # 接风 (R29)
            said.setdefault("tut_jiefeng", i)
        if seat == YOU and "pass" in entry:
            said.setdefault("tut_pass", i)
        if seat == YOU and "play" in entry:
            if i not in leads:
                said.setdefault("tut_follow", i)
            if entry["kind"] in FIVE_KINDS and i > 0:  # (not the opening lead: one thing at a time)
                said.setdefault("tut_five", i)
            if {"S3", "S2"} & set(entry["play"]):
                said.setdefault("tut_black", i)
        if "play" in entry:
            last_play_seat = seat
            counts[seat] -= len(entry["play"])
            if counts[seat] == 0:
                out_before.add(seat)
                if seat == YOU:
                    said.setdefault("tut_out", i + 1)
    said["tut_score"] = len(history)
    order = {key: n for n, key in enumerate(ORDER)}
    ranked = sorted(said.items(), key=lambda item: (item[1], order[item[0]]))
    return [{"step": step, "key": key} for key, step in ranked]


TOPICS = ("tut_pass", "tut_follow", "tut_five", "tut_black", "tut_jiefeng", "tut_out")
ORDER = ("tut_welcome", "tut_side", "tut_lead", *TOPICS, "tut_score")
"""The order of lines said at one step."""


def missing(game: Game) -> list[str]:
    """The topics this game does not show (empty: it teaches them all), and a lost game."""
    keys = {line["key"] for line in lines(game)}
    gaps = [t for t in TOPICS if t not in keys]
    result = game.result
    if result is None or result.finish[0] != YOU or result.outcome != "sweep":
        gaps.append("a sweep with you 上游")
    return gaps


def views(record: dict[str, Any]) -> list[dict[str, Any]]:
    """Your view (the engine's, seat ``YOU``, without history) after each number of actions; on your
    turns its legal plays are narrowed to the scripted move, so the page offers just that one."""
    game = Game.from_record({**{k: v for k, v in record.items() if k != "result"}, "actions": []})
    out = []
    for action in [*record["actions"], None]:
        view: dict[str, Any] = dict(game.view(YOU, history=False))
        if action is not None and action["seat"] == YOU:
            view["legal_plays"] = [action["play"]] if "play" in action else []
            view["can_pass"] = "pass" in action
        out.append(view)
        if action is None:
            break
        if "play" in action:
            game.play(" ".join(action["play"]), action["seat"])
        else:
            game.pass_turn(action["seat"])
    return out


def script_of(record: dict[str, Any]) -> dict[str, Any]:
    """The file's content for a game's record: its lines and your views, all from the engine."""
    return {"you": YOU, "lines": lines(Game.from_record(record)), "record": record, "views": views(record)}


def build() -> dict[str, Any]:
    for seed in range(1, 5000):
        game = play_out(seed)
        if game is not None:
            record = game.to_record()
            record["meta"] = {"tutorial": True, "seed": seed, "bots": BOT}
            return script_of(record)
    raise SystemExit("no deal teaches every topic")


def text_of(script: dict[str, Any]) -> str:
    return json.dumps(script, ensure_ascii=False, separators=(",", ":")) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check",
        action="store_true",
        help="fail unless the file's lines and views are what the engine gives for its own record "
        "(whatever the bots would choose today) and its game teaches every topic",
    )
    args = parser.parse_args()
    if args.check:
        record = json.loads(OUT.read_text(encoding="utf-8"))["record"]
        gaps = missing(Game.from_record(record))
        if gaps:
            sys.exit(f"{OUT}: its game does not show {gaps}")
        if OUT.read_text(encoding="utf-8") != text_of(script_of(record)):
            sys.exit(f"{OUT} is stale: run python scripts/make_tutorial.py")
        return
    OUT.write_text(text_of(build()), encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
