"""Game records (RECORD.md, version 1): round trip, the deal as deck or hands, rejected records and
the index of the first offending action."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from engine_helpers import codes, random_game
from engine_oracle import DECK, deal, hand_sizes

from niugui import Card, Game, IllegalMove, RecordError
from niugui.record import RecordPlayer, meta_of_record, new_meta, record_of_game
from niugui.series import decide_first_drawer


def views(game: Game) -> list[dict[str, Any]]:
    return [game.view(s) for s in (None, 0, 1, 2, 3)]


def played_record(seed: int = 4, steps: int | None = None) -> dict[str, Any]:
    game, _ = random_game(seed)
    record = game.to_record()
    if steps is not None:
        record["actions"] = record["actions"][:steps]
        del record["result"]
    return record


def test_record_round_trip_of_finished_and_unfinished_games_through_json() -> None:
    """RECORD.md: to_record → JSON → from_record gives the identical state and record, at every step."""
    game, _ = random_game(9)
    full = game.to_record()
    assert full["format"] == "niugui-record" and full["version"] == 1 and full["variant"] == {}
    assert len(full["deck"]) == 54 and full["result"] == game.result.to_dict()  # type: ignore[union-attr]
    for steps in range(0, len(full["actions"]) + 1, 7):
        partial = {**full, "actions": full["actions"][:steps]}
        partial.pop("result")
        again = Game.from_record(json.loads(json.dumps(partial)))
        assert again.to_record() == partial
        assert not again.over or steps == len(full["actions"])
    again = Game.from_record(json.loads(json.dumps(full)))
    assert again.to_record() == full and views(again) == views(game)


def test_record_hands_form_round_trips_and_equals_the_deck_form() -> None:
    record = played_record(5)
    first_drawer = record["first_drawer"]
    hands = deal(record["deck"], first_drawer)
    by_hands = {k: v for k, v in record.items() if k != "deck"} | {"hands": hands}
    game = Game.from_record(by_hands)
    assert game.to_record()["hands"] == [sorted(h, key=DECK.index) for h in hands]
    assert game.result == Game.from_record(record).result
    assert Game.from_record(game.to_record()).to_record() == game.to_record()


def test_record_play_lists_cards_in_any_order_and_meta_and_unknown_keys_are_kept_or_ignored() -> None:
    record = played_record(6, steps=5)
    record["actions"] = [
        {**a, "play": list(reversed(a["play"]))} if "play" in a else a for a in record["actions"]
    ]
    record["meta"] = {"table": "t1"}
    record["something_new"] = [1, 2, 3]
    game = Game.from_record(record)
    assert "meta" not in game.to_record() and "something_new" not in game.to_record()
    assert meta_of_record(record) is None  # a free-form meta of older records is not the schema
    assert record_of_game(game, record["meta"])["meta"] == {"table": "t1"}
    del record["variant"]
    Game.from_record(record)  # variant absent: the default rules


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"format": "chess"}, "format"),
        ({"format": None}, "format"),
        ({"version": 2}, "version"),
        ({"version": 0}, "version"),
        ({"version": "1"}, "version"),
        ({"variant": {"jokers_pair": True}}, "variant"),
        ({"first_drawer": 4}, "first_drawer"),
        ({"first_drawer": True}, "first_drawer"),
        ({"actions": "none"}, "actions"),
    ],
)
def test_record_rejects_other_format_higher_version_and_bad_fields(
    change: dict[str, Any], field: str
) -> None:
    record = played_record(7, steps=3) | change
    with pytest.raises(RecordError, match=field):
        Game.from_record(record)


def test_record_rejects_missing_format_and_non_objects() -> None:
    assert issubclass(RecordError, ValueError)
    record = played_record(7, steps=3)
    del record["format"]
    with pytest.raises(RecordError, match="format"):
        Game.from_record(record)
    with pytest.raises(RecordError):
        Game.from_record([])  # type: ignore[arg-type]


def test_record_result_must_match_the_replay() -> None:
    record = played_record(8)
    Game.from_record(record)
    for wrong in (
        {**record["result"], "scores": [s + 1 for s in record["result"]["scores"]]},
        {**record["result"], "black": [0, 1, 2, 3]},
        {**record["result"], "outcome": "escape"},
        {**record["result"], "finish": list(reversed(record["result"]["finish"]))},
    ):
        with pytest.raises(RecordError, match="result"):
            Game.from_record({**record, "result": wrong})
    unfinished = {**record, "actions": record["actions"][:-1]}
    with pytest.raises(RecordError, match="result"):
        Game.from_record(unfinished)  # says over, but the replay is still in progress


def test_record_deal_is_exactly_one_of_deck_or_hands() -> None:
    record = played_record(10, steps=0)
    both = record | {"hands": deal(record["deck"], record["first_drawer"])}
    with pytest.raises(RecordError, match="deck"):
        Game.from_record(both)
    neither = {k: v for k, v in record.items() if k != "deck"}
    with pytest.raises(RecordError, match="deck"):
        Game.from_record(neither)


@pytest.mark.parametrize(
    "deck",
    [
        DECK[:53],  # a card missing
        [*DECK[:53], "D4"],  # a card twice
        [*DECK, "D4"],  # 55 cards
        [*DECK[:53], "X9"],  # not a card
        "D4 C4",  # not a list
    ],
)
def test_R1_record_deck_must_hold_each_card_once(deck: Any) -> None:
    record = played_record(10, steps=0) | {"deck": deck}
    with pytest.raises(RecordError, match="deck"):
        Game.from_record(record)


@pytest.mark.parametrize("first_drawer", range(4))
def test_R9_record_hands_sizes_follow_the_first_drawer(first_drawer: int) -> None:
    """RECORD.md/R9: with hands, 14 for the first drawer and (first_drawer-1)%4, 13 for the others."""
    hands = deal(DECK, first_drawer)
    assert [len(h) for h in hands] == hand_sizes(first_drawer)
    base = {"format": "niugui-record", "version": 1, "first_drawer": first_drawer, "actions": []}
    Game.from_record(base | {"hands": hands})
    wrong = [hands[1], hands[2], hands[3], hands[0]]  # right cards, sizes for another first drawer
    with pytest.raises(RecordError, match="R9"):
        Game.from_record(base | {"hands": wrong})
    moved = copy.deepcopy(hands)
    moved[(first_drawer + 1) % 4].append(moved[first_drawer].pop())  # a 13-card seat gets 14
    with pytest.raises(RecordError, match="hands"):
        Game.from_record(base | {"hands": moved})


def test_R1_record_hands_with_a_duplicate_or_a_missing_card_are_rejected() -> None:
    hands = deal(DECK, 0)
    base = {"format": "niugui-record", "version": 1, "first_drawer": 0, "actions": []}
    twice = copy.deepcopy(hands)
    twice[1][0] = twice[0][0]  # one card dealt to two seats, another missing
    with pytest.raises(RecordError, match="hands"):
        Game.from_record(base | {"hands": twice})
    repeated = copy.deepcopy(hands)
    repeated[2][1] = repeated[2][0]  # one seat lists a card twice
    with pytest.raises(RecordError, match="hands"):
        Game.from_record(base | {"hands": repeated})
    with pytest.raises(RecordError, match="hands"):
        Game.from_record(base | {"hands": hands[:3]})
    with pytest.raises(RecordError, match="hands"):
        Game.from_record(base | {"hands": [*hands[:3], [*hands[3][:-1], "Z1"]]})


def test_record_illegal_action_names_the_first_offending_index_and_rule() -> None:
    """RECORD.md: replaying a record that breaks a rule names the 0-based index of the first
    offending action and the rule; nothing after it is applied (later bad actions are not reported)."""
    record = played_record(12)
    n = len(record["actions"])
    for index in (0, 1, 5, n // 2, n - 1):
        actions = copy.deepcopy(record["actions"])
        seat = actions[index]["seat"]
        actions[index] = {"seat": (seat + 1) % 4, "pass": True}  # out of turn
        if index + 1 < n:
            actions[index + 1] = {"seat": 9, "pass": True}  # malformed, after the first offence
        bad = {k: v for k, v in record.items() if k != "result"} | {"actions": actions}
        with pytest.raises(IllegalMove) as info:
            Game.from_record(bad)
        assert info.value.index == index and info.value.rule == "R27"
        assert isinstance(info.value, ValueError)
        assert f"actions[{index}]" in str(info.value) and "R27" in str(info.value)
        # the prefix before it replays fine and is the state the engine stopped at
        prefix = Game.from_record(bad | {"actions": actions[:index]})
        assert len(prefix.actions()) == index


@pytest.mark.parametrize(
    ("action", "rule"),
    [
        ({"play": ["C4"]}, "R26"),  # the first play must contain ♦4 (if the mover holds C4)
        ({"play": ["D4", "D4"]}, "R1"),
        ({"play": ["ZZ"]}, "R6"),
        ({"pass": True}, "R27"),  # no pass on a free lead
    ],
)
def test_record_illegal_first_action_rules(action: dict[str, Any], rule: str) -> None:
    record = played_record(13, steps=0)
    game = Game.from_record(record)
    seat = game.to_move
    if rule == "R26" and "C4" not in codes(game.hand(seat)):  # type: ignore[arg-type]
        action = {"play": [codes(game.hand(seat))[-1]]}  # type: ignore[arg-type]
    bad = record | {"actions": [{"seat": seat, **action}]}
    with pytest.raises(IllegalMove) as info:
        Game.from_record(bad)
    assert info.value.index == 0 and info.value.rule == rule, str(info.value)


def test_record_malformed_actions_are_record_errors_naming_the_field() -> None:
    record = played_record(13, steps=0)
    seat = Game.from_record(record).to_move
    for action, field in [
        ("pass", "actions[0]"),
        ({"seat": seat}, "actions[0]"),
        ({"seat": seat, "pass": True, "play": ["D4"]}, "actions[0]"),
        ({"seat": "0", "play": ["D4"]}, "actions[0].seat"),
        ({"seat": seat, "play": "D4"}, "actions[0].play"),
        ({"seat": seat, "pass": 1}, "actions[0].pass"),
        ({"seat": seat, "escape": "yes"}, "actions[0].escape"),
    ]:
        with pytest.raises(RecordError) as info:
            Game.from_record(record | {"actions": [action]})
        assert field in str(info.value), (action, str(info.value))


def test_R35_record_escape_by_any_seat_at_any_moment() -> None:
    record = played_record(14, steps=4)
    game = Game.from_record(record)
    bystander = next(s for s in range(4) if s != game.to_move and game.count(s))
    escaped = record | {"actions": [*record["actions"], {"seat": bystander, "escape": True}]}
    again = Game.from_record(escaped)
    assert again.result is not None and again.result.outcome == "escape"
    assert again.to_record()["result"]["scores"][bystander] == -9
    Game.from_record(again.to_record())
    after = escaped | {"actions": [*escaped["actions"], {"seat": bystander, "escape": True}]}
    with pytest.raises(IllegalMove) as info:
        Game.from_record(after)
    assert info.value.index == 5 and info.value.rule == "R31"


def test_record_from_record_does_not_change_its_input() -> None:
    record = played_record(15)
    before = copy.deepcopy(record)
    Game.from_record(record)
    assert record == before


def test_record_meta_is_copied_not_shared() -> None:
    """A record written or read never shares its meta with the caller."""
    meta = new_meta("niugui play", 1, PLAYERS, decide_first_drawer(2, lambda: Card.parse("S3")))
    game = Game.from_record(played_record(16, steps=2))
    written = record_of_game(game, meta)
    meta["players"][0]["nickname"] = "changed"
    assert written["meta"]["players"][0]["nickname"] == "me"
    read = meta_of_record(written)
    assert read is not None and read == written["meta"]
    read["players"].append(read["players"][0])
    assert meta_of_record(written) == written["meta"] and len(written["meta"]["players"]) == 4


PLAYERS = [RecordPlayer(id=None, nickname="me", bot=None)] + [
    RecordPlayer(id=None, nickname="b", bot="basic")
] * 3


def test_R8_one_meta_schema_records_how_the_first_drawer_was_chosen() -> None:
    """R8: the meta says whether 翻牌 (and which card) or the previous 上游 chose the first drawer."""
    by_flip = new_meta("niugui serve", 1, PLAYERS, decide_first_drawer(None, lambda: Card.parse("HK")),
                       table="t1", started_at="2026-01-01T00:00:00+00:00")
    assert by_flip["first_drawer_by"] == "flip"
    assert by_flip["flip"] == {"card": "HK", "value": 13, "first_drawer": 0}
    later = new_meta("niugui play", 2, PLAYERS, decide_first_drawer(3, lambda: Card.parse("HK")), seed=7)
    assert later["first_drawer_by"] == "previous_first" and later["flip"] is None and later["game_no"] == 2
    for meta in (by_flip, later):
        record = record_of_game(Game.deal(seed=1, first_drawer=0), meta)
        assert meta_of_record(json.loads(json.dumps(record))) == meta
    with pytest.raises(ValueError, match="unknown keys"):
        new_meta("niugui play", 1, PLAYERS, decide_first_drawer(3, lambda: Card.parse("HK")), colour="red")


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"version": 2}, "meta.version"),
        ({"app": "chess"}, "meta.app"),
        ({"game_no": 0}, "meta.game_no"),
        ({"players": [{"nickname": "x"}] * 4}, "meta.players"),
        ({"players": []}, "meta.players"),
        ({"first_drawer_by": "coin"}, "meta.first_drawer_by"),
        ({"flip": {"card": "HK", "value": 13, "first_drawer": 0}}, "meta.flip"),
        ({"first_drawer_by": "flip"}, "meta.flip"),
        ({"table": 5}, "meta.table"),
        ({"fairness": "yes"}, "meta.fairness"),
    ],
)
def test_record_a_meta_that_breaks_the_schema_is_refused_naming_its_field(
    change: dict[str, Any], field: str
) -> None:
    meta = new_meta("niugui play", 2, PLAYERS, decide_first_drawer(3, lambda: Card.parse("HK")))
    record = record_of_game(Game.deal(seed=1, first_drawer=3), {**meta, **change})
    with pytest.raises(RecordError, match=field.replace(".", r"\.")):
        meta_of_record(record)
    Game.from_record(record)  # the game itself still replays: meta is not the game


def test_record_a_meta_nested_too_deeply_is_refused_naming_the_meta() -> None:
    """JSON nests deeper than a copy can follow: the reader names ``meta``, it does not crash."""
    record = json.loads(json.dumps(record_of_game(Game.deal(seed=1, first_drawer=3))))
    nested: dict[str, Any] = {}
    for _ in range(900):
        nested = {"a": nested}
    meta = new_meta("niugui play", 1, PLAYERS, decide_first_drawer(3, lambda: Card.parse("HK")))
    record["meta"] = {**meta, "arena": nested}
    with pytest.raises(RecordError, match="meta: nested too deeply"):
        meta_of_record(record)
