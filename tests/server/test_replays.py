"""Replays computed by the server (niugui/server/replays.py): every step is the engine's public view.

The function is checked against the engine directly; the routes through real HTTP on a real
``niugui serve``, with a game played there by a scripted player and bots.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from server_harness import Player, Server, drive, game_over

from niugui import Game
from niugui.cards import CARDS
from niugui.server.protocol import Replay, ReplayError
from niugui.server.replays import MAX_RECORD_BYTES, ReplayProblem, parse_record, replay_of_record

CODES = {str(card) for card in CARDS}
PUBLIC_KEYS = {"seat", "first_drawer", "to_move", "counts", "marks", "finish", "trick", "current", "over"}


def random_game(seed: int, stop: int | None = None, escape: bool = False) -> Game:
    """A game played by random legal actions (to the end, or ``stop`` actions; an escape at the end)."""
    rng = random.Random(seed)
    game = Game.deal(seed=seed, first_drawer=seed % 4)
    while not game.over and (stop is None or len(game.actions()) < stop):
        plays = game.legal_plays()
        if game.can_pass() and (not plays or rng.random() < 0.35):
            game.pass_turn()
        else:
            game.play(rng.choice(plays))
    if escape and not game.over:
        game.escape(next(s for s in range(4) if game.count(s)))
    return game


def engine_views(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The engine's spectator view after each prefix of the record's actions (the ground truth),
    less ``leads``, which a step's view (``history=False``) leaves out with the history."""
    actions = record["actions"]
    views = [
        dict(Game.from_record({**record, "actions": actions[:i], "result": None}).view(None))
        for i in range(len(actions) + 1)
    ]
    for view in views:
        del view["leads"]
    return views


def codes_in(value: Any) -> set[str]:
    text = json.dumps(value)
    return {code for code in CODES if f'"{code}"' in text}


def check_against_engine(record: dict[str, Any], answer: dict[str, Any]) -> None:
    """Each step's view (with the history the steps carry) is the engine's view(None) there."""
    Replay.model_validate(answer)  # the documented shape
    expected = engine_views(record)
    steps = answer["steps"]
    assert len(steps) == len(expected) == len(record["actions"]) + 1
    assert steps[0]["action"] is None
    for i, (step, view) in enumerate(zip(steps, expected, strict=True)):
        history = [s["action"] for s in steps[1 : i + 1]]
        assert {**step["view"], "history": history} == view, f"step {i}"
        if answer["finished"]:
            game = Game.from_record({**record, "actions": record["actions"][:i], "result": None})
            assert step["hands"] == [[str(c) for c in game.hand(s)] for s in range(4)]
        else:
            assert step["hands"] is None


@pytest.mark.parametrize("seed", range(8))
def test_every_step_of_a_finished_game_is_the_engines_view(seed: int) -> None:
    """R7–R35 stay in the engine: the steps are its views, and a finished record ends in its result."""
    game = random_game(seed)
    record = game.to_record()
    answer = replay_of_record(record)
    check_against_engine(record, answer)
    assert answer["finished"] is True
    last = answer["steps"][-1]["view"]
    assert last["over"] and last["result"] == record["result"]
    assert last["hands"] == answer["steps"][-1]["hands"]  # the end shows every hand (R11)


def test_an_escape_ends_the_replay_with_its_score() -> None:
    """R35: the escape is the last step, −9 for the seat that left."""
    game = random_game(3, stop=10, escape=True)
    record = game.to_record()
    answer = replay_of_record(record)
    check_against_engine(record, answer)
    step = answer["steps"][-1]
    assert "escape" in step["action"] and step["view"]["result"]["outcome"] == "escape"
    assert -9 in step["view"]["result"]["scores"]


@pytest.mark.parametrize("stop", [0, 1, 7, 30])
def test_a_game_in_progress_shows_no_hidden_card_in_any_step(stop: int) -> None:
    """R11, R12: a record that stops before the end gives only public information — no hand, no deck,
    no card that was not played, in any step (its uploader has the deal; nobody else learns it)."""
    game = random_game(11, stop=stop)
    assert not game.over
    record = game.to_record()
    players = [{"nickname": n} for n in "ABCD"]
    record["meta"] = {"players": players, "salt": "ab" * 32, "commitment": "cd" * 32}
    answer = replay_of_record(record)
    check_against_engine(record, answer)
    assert answer["finished"] is False and answer["reveal"] is None
    played = {c for a in record["actions"] if "play" in a for c in a["play"]}
    for step in answer["steps"]:
        assert step["hands"] is None
        assert set(step["view"]) <= PUBLIC_KEYS, step["view"].keys()
    assert codes_in(answer) <= played
    assert [s["nickname"] for s in answer["seats"]] == list("ABCD")


def test_the_leak_check_catches_a_leak() -> None:
    """The check above can fail: a step with a hand in it is caught."""
    game = random_game(11, stop=7)
    answer = replay_of_record(game.to_record())
    answer["steps"][3]["view"]["hand"] = [str(c) for c in game.hand(0)]
    played = {c for a in game.to_record()["actions"] if "play" in a for c in a["play"]}
    assert not codes_in(answer) <= played


def test_seats_flip_and_proof_come_from_the_meta() -> None:
    """The names and the 翻牌 (R8) a record's meta gives, and the fairness proof of a finished game."""
    game = random_game(2)
    record = game.to_record()
    record["meta"] = {
        "players": [{"id": "a1", "nickname": "小明"}, {"id": None, "nickname": "Bot", "bot": "expert"}, None,
                    "阿丽"],
        "flip": {"card": "S5", "value": 5, "first_drawer": record["first_drawer"]},
        "commitment": "cd" * 32, "salt": "ab" * 32, "commitment_scheme": "sha256(salt:deck)",
    }
    answer = replay_of_record(record)
    assert answer["seats"] == [
        {"nickname": "小明", "bot": None}, {"nickname": "Bot", "bot": "expert"},
        {"nickname": None, "bot": None}, {"nickname": "阿丽", "bot": None},
    ]
    assert answer["flip"] == record["meta"]["flip"]
    assert answer["reveal"] == {"scheme": "sha256(salt:deck)", "commitment": "cd" * 32, "salt": "ab" * 32,
                                "deck": record["deck"]}
    record["meta"]["flip"] = {"card": 7}  # not a flip: left out, not an error
    assert replay_of_record(record)["flip"] is None


def _problem(record: Any) -> ReplayProblem:
    with pytest.raises(ReplayProblem) as caught:
        replay_of_record(record)
    return caught.value


def _nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"a": value}
    return value


def test_malformed_records_name_their_field() -> None:
    record = random_game(4, stop=6).to_record()
    cases: list[tuple[Any, str | None]] = [
        ([1, 2], "record"),
        ({**record, "format": "chess"}, "format"),
        ({**record, "first_drawer": 9}, "first_drawer"),
        ({**record, "deck": record["deck"][:50]}, "deck"),
        ({**record, "actions": {"seat": 0}}, "actions"),
        ({**record, "actions": [*record["actions"][:2], {"seat": "x", "pass": True}]}, "actions[2].seat"),
        ({**record, "result": {"outcome": "win"}}, "result"),
    ]
    for bad, field in cases:
        problem = _problem(bad)
        assert problem.code == "bad_record", (bad, problem)
        assert problem.fields.get("field") == field, (field, str(problem))
        ReplayError.model_validate({"code": problem.code, "message": str(problem), **problem.fields})
    # A meta nested too deep to copy is not the game's business: the replay is answered, no crash.
    assert replay_of_record({**record, "meta": _nested(700)})["steps"]


def test_an_illegal_action_names_its_index_and_rule() -> None:
    """R27 (not that seat's turn), R26 (♦4 first), R17/R24 (does not beat): the index and the rule."""
    record = random_game(5, stop=8).to_record()
    actions = record["actions"]
    wrong_seat = {**actions[3], "seat": (actions[3]["seat"] + 1) % 4}
    problem = _problem({**record, "actions": [*actions[:3], wrong_seat]})
    assert (problem.code, problem.fields["index"], problem.fields["rule"]) == ("illegal_action", 3, "R27")
    first = Game.from_record({**record, "actions": []})
    seat = first.to_move
    assert seat is not None
    other = next(str(c) for c in first.hand(seat) if str(c) != "D4")  # the ♦4 holder leads (R26)
    problem = _problem({**record, "actions": [{"seat": seat, "play": [other]}]})
    assert (problem.fields["index"], problem.fields["rule"]) == (0, "R26")
    problem = _problem({**record, "actions": [*actions, {"seat": 0, "play": ["XX"]}]})
    assert problem.code == "illegal_action" and problem.fields["index"] == len(actions)


def test_a_lone_surrogate_anywhere_in_the_body_is_bad_json() -> None:
    """JSON's escapes can spell half a UTF-16 pair, which no answer (UTF-8) can carry."""
    record = random_game(4, stop=6).to_record()
    for place in ("meta", "deck", "actions"):
        body = json.dumps({**record, place: {"x": ["\udfff"]}}).encode()
        with pytest.raises(ReplayProblem, match="surrogate") as caught:
            parse_record(body)
        assert caught.value.code == "bad_json"
    assert parse_record(json.dumps({"name": "牛鬼 \U0001f402"}).encode()) == {"name": "牛鬼 \U0001f402"}


def _mutations() -> st.SearchStrategy[Any]:
    json_value = st.recursive(
        st.none() | st.booleans() | st.integers(-5, 60) | st.sampled_from([*sorted(CODES)[:6], "x", ""]),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["seat", "play", "pass"]),
                                                                    inner, max_size=3),
        max_leaves=8,
    )
    paths = st.sampled_from(["format", "version", "first_drawer", "deck", "hands", "actions", "result",
                             "meta", "variant", "one_action", "one_action.seat", "one_action.play", "deck.0"])
    return st.lists(st.tuples(paths, json_value), min_size=1, max_size=3)


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 50), mutations=_mutations())
def test_any_broken_record_gets_a_replay_problem_never_a_crash(seed: int, mutations: list[Any]) -> None:
    """Whatever a record holds, the answer is a replay or a ReplayProblem (the routes make it a 4xx)."""
    record = copy.deepcopy(random_game(seed % 6, stop=seed).to_record())
    for path, value in mutations:
        if path.startswith("one_action") and record.get("actions") and isinstance(record["actions"], list):
            index = seed % len(record["actions"])
            if path == "one_action":
                record["actions"][index] = value
            elif isinstance(record["actions"][index], dict):
                record["actions"][index][path.split(".")[1]] = value
        elif path == "deck.0" and isinstance(record.get("deck"), list) and record["deck"]:
            record["deck"][0] = value
        else:
            record[path] = value
    try:
        Replay.model_validate(replay_of_record(record))
    except ReplayProblem as problem:
        ReplayError.model_validate({"code": problem.code, "message": str(problem), **problem.fields})


# ---- the routes, over real HTTP ----------------------------------------------------------------


@pytest.fixture(scope="module")
def url(shared_server: Server) -> Iterator[str]:
    yield shared_server.url


def post(url: str, body: bytes | str, **kwargs: Any) -> httpx.Response:
    return httpx.post(url + "/api/replay", content=body, timeout=10, **kwargs)


def test_post_a_record_gets_the_engines_steps(url: str) -> None:
    record = random_game(6).to_record()
    reply = post(url, json.dumps(record), headers={"Content-Type": "application/json"})
    assert reply.status_code == 200, reply.text
    assert reply.json() == replay_of_record(record)
    check_against_engine(record, reply.json())


def _error(reply: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert reply.status_code == status, reply.text
    detail: dict[str, Any] = reply.json()["detail"]
    ReplayError.model_validate(detail)
    assert detail["code"] == code, detail
    assert "Traceback" not in reply.text
    return detail


def test_bad_posts_get_clear_errors_not_500(url: str) -> None:
    record = random_game(7, stop=9).to_record()
    _error(post(url, "{not json"), 400, "bad_json")
    _error(post(url, b"\xff\xfe"), 400, "bad_json")
    _error(post(url, "[" * 100_000), 413, "too_large")
    _error(post(url, "[" * 30_000 + "]" * 30_000), 400, "bad_json")  # nested too deeply to read
    _error(post(url, '{"a":' * 5000 + "1" + "}" * 5000), 400, "bad_json")
    assert _error(post(url, "[]"), 422, "bad_record")["field"] == "record"
    same_card = json.dumps({**record, "deck": ["S3"] * 54})
    assert _error(post(url, same_card), 422, "bad_record")["field"] == "deck"
    bad = {**record, "actions": [*record["actions"], {"seat": 0, "pass": True}, {"seat": 0, "pass": True}]}
    detail = _error(post(url, json.dumps(bad)), 422, "illegal_action")
    assert detail["index"] == len(record["actions"]) and detail["rule"].startswith("R")
    # JSON may spell a lone UTF-16 surrogate, which is no Unicode text: refused, not a 500 (it would
    # reach the answer through a seat's name, a proof or an error message).
    lone = json.dumps({**record, "meta": {"players": [{"nickname": "\ud800"}]}})
    assert "\\ud800" in lone
    assert "surrogate" in _error(post(url, lone), 400, "bad_json")["message"]
    big = {**record, "meta": {"pad": "x" * MAX_RECORD_BYTES}}
    assert _error(post(url, json.dumps(big)), 413, "too_large")["limit"] == MAX_RECORD_BYTES

    def chunks() -> Iterator[bytes]:  # no Content-Length: the limit holds while reading
        for _ in range(100):
            yield b" " * 1024

    _error(post(url, chunks()), 413, "too_large")  # type: ignore[arg-type]


def test_a_finished_game_of_the_server_replays_by_its_id(shared_server: Server) -> None:
    """GET /api/games/{id}/replay: 404 while the game is in progress (as the record), then its steps."""
    alice = Player(shared_server, "阿丽")
    table = alice.ok("create_table", settings={"name": "replay", "turn_seconds": 60})["data"]["table"]["id"]
    alice.ok("sit", table=table, seat=0)
    alice.ok("fill_bots", table=table)
    game_id = alice.wait_event("deal")["event"]["game_id"]
    in_progress = httpx.get(f"{shared_server.url}/api/games/{game_id}/replay", timeout=10)
    _error(in_progress, 404, "in_progress")
    for missing in (999999, 0, -1, 10**30):  # 10**30 fits no database integer: still just "no game"
        _error(httpx.get(f"{shared_server.url}/api/games/{missing}/replay", timeout=10), 404, "not_found")
    drive([alice], table, game_over(alice, table))
    record = shared_server.get(f"/api/games/{game_id}/record")
    answer = shared_server.get(f"/api/games/{game_id}/replay")
    check_against_engine(record, answer)
    assert answer["finished"] and answer["seats"][0] == {"nickname": "阿丽", "bot": None}
    assert all(s["bot"] for s in answer["seats"][1:])
    assert answer["reveal"] == {**record["meta"]["fairness"], "deck": record["deck"]}  # the whole proof
    alice.close()
