"""Commands: a request (or what the clock says is due) → the events it causes.

Each command reads the table's state, checks the request (actions with the engine's ``check_play`` /
``check_pass``, which change nothing) and returns the :class:`Step` s to store — it neither applies
nor sends them; a refused request raises :class:`Fault` and returns nothing. The glue stores the
steps, applies them with :func:`~niugui.server.tables.state.reduce`, then asks :func:`follow_up`
what the new state makes due (the end of a game, the next deal).

>>> from niugui.server.tables.state import TableModel
>>> state = TableModel("t1", creator="a1", code=None)
>>> seat, steps = sit(state, "a1", "阿丽", None)
>>> seat, steps[0].event.kind, state.seat_of("a1")   # returned, not applied
(0, 'seat_taken', None)
>>> act(state, "a1", ["D4"])
Traceback (most recent call last):
...
niugui.server.tables.commands.Fault: you hold no seat at this table; you cannot act for another seat
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from niugui import fairness
from niugui.cards import Card, codes_of
from niugui.game import Game, IllegalMove
from niugui.ratings import BOT_RATINGS
from niugui.record import RecordPlayer, new_meta, record_of_game

from ..protocol import (
    PROTOCOL_VERSION,
    AnyEvent,
    By,
    EvAutoplay,
    EvChat,
    EvDeal,
    EvDissolveEnded,
    EvDissolveProposed,
    EvDissolveVote,
    EvEscape,
    EvFlip,
    EvGameOver,
    EvLeaving,
    EvPass,
    EvPlay,
    EvPresence,
    EvReady,
    EvSeatLeft,
    EvSeatTaken,
    EvSettings,
    EvTableFinished,
    FlipInfo,
    LeaveReason,
    PhraseId,
    PlayerRef,
    ResultView,
    Reveal,
    TableSettings,
)
from ..store import LedgerEntry, PlayerCard, RatedGame
from ..timer import AUTOPLAY_AFTER_TIMEOUTS
from .state import Deal, TableModel, status_after


class Fault(Exception):
    """A refused request: becomes an ``error`` message with this code (and rule)."""

    def __init__(self, code: str, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.rule = rule


@dataclass(frozen=True, slots=True)
class Finish:
    """What a finished game adds to the store besides its ``game_over`` event."""

    record: dict[str, Any]
    entries: list[LedgerEntry]
    rated: RatedGame | None = None


@dataclass(slots=True)
class Step:
    """One event to store, with what the store keeps beside it (a deal's hidden part, a game's end)."""

    event: AnyEvent
    deal: Deal | None = None
    finish: Finish | None = None


REVEALED = ("scheme", "protocol", "commitment", "salt", "statement", "seal_key", "chain", "seal")
"""The fairness proof's fields that the game_over event reveals (protocol ``Reveal``)."""


class Dealer(Protocol):
    """Where a deal's randomness comes from (:mod:`niugui.fairness`; seeded in tests)."""

    def turn_up(self) -> Card: ...

    def shuffled_deck(self) -> list[str]: ...

    def new_secret(self) -> str: ...


def iso(now: float) -> str:
    """A record's time: ISO 8601, UTC, to the second."""
    return datetime.fromtimestamp(now, UTC).isoformat(timespec="seconds")


def steps(*events: AnyEvent) -> list[Step]:
    return [Step(event) for event in events]


# ---- seats -------------------------------------------------------------------------------------------


def sit(
    state: TableModel,
    account_id: str,
    nickname: str,
    seat: int | None,
    card: PlayerCard | None = None,
    bot_account: bool = False,
) -> tuple[int, list[Step]]:
    """Take ``seat`` (a free one when None); a bot account's seat is labelled ``bot_account``."""
    if state.status == "finished":
        raise Fault("bad_state", "this table has finished its games")
    if state.seat_of(account_id) is not None:
        raise Fault("already_seated", "you already hold a seat at this table (one seat per player)")
    if state.status == "playing":
        raise Fault("bad_state", "a game is in progress; watch until it ends")
    if seat is None:
        free = [n for n, slot in enumerate(state.seats) if slot.player is None]
        if not free:
            raise Fault("table_full", "no free seat at this table")
        seat = free[0]
    elif state.seats[seat].player is not None:
        raise Fault("seat_taken", f"seat {seat} is taken")
    player = person(account_id, nickname, card, bot_account)
    return seat, steps(EvSeatTaken(kind="seat_taken", seat=seat, player=player))


def person(account_id: str, nickname: str, card: PlayerCard | None, bot_account: bool = False) -> PlayerRef:
    """A person in a seat, with what the others see of them (their rating and escape rate); a bot
    account's seat is labelled ``bot_account``."""
    if card is None:
        return PlayerRef(id=account_id, nickname=nickname, bot=None, bot_account=bot_account)
    rate = None if card.escape_rate is None else round(card.escape_rate, 3)
    return PlayerRef(
        id=account_id,
        nickname=nickname,
        bot=None,
        rating=card.rating,
        escape_rate=rate,
        bot_account=bot_account,
    )


def bot(level: str, seat: int) -> PlayerRef:
    """A bot in a seat, with its level's fixed, published rating."""
    return PlayerRef(id=None, nickname=f"{level} bot {seat}", bot=level, rating=BOT_RATINGS[level].shown)


def seat_group(
    state: TableModel,
    people: Sequence[tuple[str, str, PlayerCard | None]],
    level: str | None,
    seats: Sequence[int] = (),
) -> list[Step]:
    """Quick play: seat ``people`` (account id, nickname, card) in the first free seats of a new
    table — or in ``seats``, one each (an event's board, issue 30) — and bots of ``level`` in the
    seats left (none when ``level`` is None)."""
    free = [n for n, slot in enumerate(state.seats) if slot.player is None]
    if seats:
        free = [*seats, *(n for n in free if n not in seats)]
    if state.status != "waiting" or len(free) < len(people) or any(state.seats[n].player for n in seats):
        raise Fault("bad_state", "this table cannot take the group")
    events: list[AnyEvent] = []
    for seat, (account_id, nickname, card) in zip(free, people, strict=False):
        events.append(EvSeatTaken(kind="seat_taken", seat=seat, player=person(account_id, nickname, card)))
    if level is not None:
        for seat in free[len(people) :]:
            events.append(EvSeatTaken(kind="seat_taken", seat=seat, player=bot(level, seat)))
    return steps(*events)


def invitation(
    state: TableModel, account_id: str, guest_id: str, seat: int | None, friend: bool = False
) -> int:
    """The seat ``account_id`` may invite ``guest_id`` to now: a bot account (by the creator only) or,
    when ``friend``, a friend (by the creator or anyone seated). It causes no event (the seat stays
    free until the guest sits)."""
    if friend:
        if account_id != state.creator and state.seat_of(account_id) is None:
            raise Fault("forbidden", "only the table's creator or a seated player can invite a friend")
    elif account_id != state.creator:
        raise Fault("forbidden", "only the table's creator can invite a bot account")
    if state.status in ("playing", "finished"):
        raise Fault("bad_state", f"the table is {state.status}; invite between games")
    held = state.seat_of(guest_id)
    if held is not None:
        raise Fault("already_seated", f"they hold seat {held} at this table already")
    if seat is None:
        free = [n for n, slot in enumerate(state.seats) if slot.player is None]
        if not free:
            raise Fault("table_full", "no free seat at this table")
        return free[0]
    if state.seats[seat].player is not None:
        raise Fault("seat_taken", f"seat {seat} is taken")
    return seat


def seated(state: TableModel, account_id: str) -> int:
    """The requester's seat; refused when they hold none."""
    seat = state.seat_of(account_id)
    if seat is None:
        raise Fault("forbidden", "you hold no seat at this table")
    return seat


def vacate(state: TableModel, seat: int, reason: LeaveReason) -> list[Step]:
    """Free a seat. During a game, while it holds cards, that is an escape (R35) which ends the game;
    a seat that has gone out already is ``leaving``. Either way the seat leaves when the game is over
    (:attr:`TableModel.leaving <niugui.server.tables.state.TableModel.leaving>`, kept across restarts)."""
    game = state.game
    if state.status == "playing" and game is not None and not game.over:
        if game.count(seat) > 0:
            return steps(EvEscape(kind="escape", seat=seat, reason=reason))
        if seat in state.leaving:
            return []
        return steps(EvLeaving(kind="leaving", seat=seat, reason=reason))
    return steps(EvSeatLeft(kind="seat_left", seat=seat, reason=reason))


def removed(state: TableModel, seat: int) -> list[Step]:
    """The seat's player is no longer a member of the club whose room this is (issue 29): the seat is
    freed now, or, during a game, once the game is over — they play it out, since a removal by the
    club is no escape of theirs (R35 is for a player who abandons a game)."""
    game = state.game
    if state.status == "playing" and game is not None and not game.over:
        if seat in state.leaving:
            return []
        return steps(EvLeaving(kind="leaving", seat=seat, reason="removed"))
    return steps(EvSeatLeft(kind="seat_left", seat=seat, reason="removed"))


def fill_bots(state: TableModel, account_id: str) -> list[Step]:
    if account_id != state.creator:
        raise Fault("forbidden", "only the table's creator can fill seats with bots")
    if state.status in ("playing", "finished"):
        raise Fault("bad_state", f"the table is {state.status}")
    level = state.settings.bot_level
    return steps(
        *(
            EvSeatTaken(kind="seat_taken", seat=n, player=bot(level, n))
            for n, slot in enumerate(state.seats)
            if slot.player is None
        )
    )


def free_seat(state: TableModel, account_id: str, seat: int) -> list[Step]:
    """The creator frees the seat of an absent player between games (or before the first), so that
    a table is not held by someone who went away; ``seat_left`` with reason ``freed``."""
    if account_id != state.creator:
        raise Fault("forbidden", "only the table's creator can free a seat")
    if state.status in ("playing", "finished"):
        raise Fault("bad_state", f"the table is {state.status}")
    slot = state.seats[seat]
    if not slot.human:
        raise Fault("bad_state", "no player holds that seat")
    if slot.account_id == account_id:
        raise Fault("bad_state", "that is your own seat; stand up instead")
    if slot.online or slot.ready:
        raise Fault("bad_state", "that player is here (connected or ready); only an absent seat can be freed")
    return steps(EvSeatLeft(kind="seat_left", seat=seat, reason="freed"))


def update_settings(state: TableModel, account_id: str, settings: TableSettings) -> list[Step]:
    if account_id != state.creator:
        raise Fault("forbidden", "only the table's creator can change its settings")
    if state.status in ("playing", "finished"):
        raise Fault("bad_state", f"settings cannot change while the table is {state.status}")
    if settings.private != state.settings.private:
        raise Fault("bad_state", "a table is public or private from its creation; create a new table")
    if settings.club != state.settings.club:  # issue 29: a club's room stays the club's
        raise Fault("bad_state", "a table is a club's room or not from its creation; create a new table")
    return steps(EvSettings(kind="settings_changed", settings=settings))


def ready(state: TableModel, account_id: str) -> list[Step]:
    seat = seated(state, account_id)
    if state.status == "playing":
        raise Fault("bad_state", "a game is in progress")
    return [] if state.seats[seat].ready else steps(EvReady(kind="ready", seat=seat))


def chat(state: TableModel, account_id: str, phrase: PhraseId) -> list[Step]:
    """A quick-chat phrase from the requester's seat (spectators only read)."""
    seat = state.seat_of(account_id)
    if seat is None:
        raise Fault("forbidden", "only a seated player can send quick chat")
    if state.status == "finished":
        raise Fault("bad_state", "this table has finished its games")
    return steps(EvChat(kind="chat", seat=seat, phrase=phrase))


# ---- dissolve by vote (解散, issue 29) ----------------------------------------------------------


def dissolve(state: TableModel, account_id: str, agree: bool, seconds: float, now: float) -> list[Step]:
    """The first ``agree`` proposes to end the session (a vote open ``seconds``; a seat proposes
    again only ``seconds`` after its last proposal); later ones answer it. A refusal cancels it at
    once; its end when everyone agreed is :func:`follow_up`'s. Never an escape: nobody leaves, and
    the totals so far stand (R35 does not apply)."""
    seat = state.seat_of(account_id)
    if seat is None or not state.seats[seat].human:
        raise Fault("forbidden", "only a seated player can dissolve the session")
    if state.status in ("waiting", "finished"):
        what = "no game has been played yet; stand up to leave" if state.status == "waiting" else "it is over"
        raise Fault("bad_state", f"there is no session to dissolve: {what}")
    if state.dissolved:
        raise Fault("bad_state", "the session is dissolved already; it ends with the game in progress")
    vote = state.vote
    if vote is None:
        if not agree:
            raise Fault("bad_state", "no dissolve vote is open; send agree: true to propose one")
        wait = state.proposed.get(seat, -seconds) + seconds - now
        if wait > 0:
            raise Fault("bad_state", f"you proposed to dissolve a moment ago; propose again in {wait:.0f} s")
        return steps(EvDissolveProposed(kind="dissolve_proposed", seat=seat, seconds=seconds))
    if seat in vote.agreed:
        raise Fault("bad_state", "you have agreed already; the others are asked")
    answer = EvDissolveVote(kind="dissolve_vote", seat=seat, agree=agree)
    if agree:
        return steps(answer)
    return steps(answer, EvDissolveEnded(kind="dissolve_ended", outcome="refused"))


def vote_passed(state: TableModel) -> bool:
    """Every seat the vote waits for has agreed (when every person is in 托管, nobody answers and
    the vote runs out instead)."""
    vote = state.vote
    voters = state.voters()
    return vote is not None and bool(voters) and vote.agreed.issuperset(voters)


def vote_expired(state: TableModel) -> list[Step]:
    """The vote's time ran out before everyone agreed: cancelled."""
    if state.vote is None:
        return []
    return steps(EvDissolveEnded(kind="dissolve_ended", outcome="expired"))


# ---- presence and 托管 ----------------------------------------------------------------------------


def free_unready(state: TableModel) -> list[Step]:
    """Between games, the ready timeout ran out: every human seat not ready is freed for someone
    else (``seat_left`` with reason ``not_ready``; not an escape — no game is in progress)."""
    if state.status != "between":
        return []
    return steps(
        *(
            EvSeatLeft(kind="seat_left", seat=n, reason="not_ready")
            for n, slot in enumerate(state.seats)
            if slot.human and not slot.ready
        )
    )


def came_online(state: TableModel, seat: int) -> list[Step]:
    """A seated player is connected again: online, and 托管 from the disconnect ends."""
    slot = state.seats[seat]
    events: list[AnyEvent] = []
    if not slot.online:
        events.append(EvPresence(kind="presence", seat=seat, online=True))
    if slot.autoplay and slot.autoplay_reason == "offline":
        events.append(EvAutoplay(kind="autoplay", seat=seat, on=False, reason="back"))
    return steps(*events)


def went_offline(state: TableModel, seat: int) -> list[Step]:
    """A seated player's last connection dropped: offline, and 托管 at once during a game (the grace
    period before it counts as an escape is the clock's)."""
    slot = state.seats[seat]
    events: list[AnyEvent] = []
    if slot.online:
        events.append(EvPresence(kind="presence", seat=seat, online=False))
    if state.status == "playing" and not slot.autoplay:
        events.append(EvAutoplay(kind="autoplay", seat=seat, on=True, reason="offline"))
    return steps(*events)


def resume(state: TableModel) -> list[Step]:
    """After a restart nobody is connected: every human seat is offline (托管 during a game)."""
    result: list[Step] = []
    status = state.status
    for n, slot in enumerate(state.seats):
        if slot.human:
            if slot.online:
                result.append(Step(EvPresence(kind="presence", seat=n, online=False)))
            if status == "playing" and not slot.autoplay:
                result.append(Step(EvAutoplay(kind="autoplay", seat=n, on=True, reason="offline")))
    return result


def set_autoplay(state: TableModel, account_id: str, on: bool) -> list[Step]:
    seat = seated(state, account_id)
    if state.seats[seat].autoplay == on:
        return []
    return steps(EvAutoplay(kind="autoplay", seat=seat, on=on, reason="player"))


def timed_out(state: TableModel, seat: int) -> list[Step]:
    """The seat's turn timer ran out (the bot then plays this turn, ``by: "timeout"``): the
    :data:`~niugui.server.timer.AUTOPLAY_AFTER_TIMEOUTS`-th time in a row the seat stays in 托管."""
    slot = state.seats[seat]
    if slot.timeouts + 1 >= AUTOPLAY_AFTER_TIMEOUTS and not slot.autoplay:
        return steps(EvAutoplay(kind="autoplay", seat=seat, on=True, reason="timeout"))
    return []


# ---- actions --------------------------------------------------------------------------------------


def act(state: TableModel, account_id: str, cards: Sequence[str] | None) -> list[Step]:
    """A player's play (``cards``) or pass (None) in their own seat; their 托管 ends."""
    seat = state.seat_of(account_id)
    if seat is None:
        raise Fault("forbidden", "you hold no seat at this table; you cannot act for another seat")
    game = _game_in_progress(state)
    action = checked_action(game, seat, cards, "player")
    if state.seats[seat].autoplay:
        return steps(EvAutoplay(kind="autoplay", seat=seat, on=False, reason="player"), action)
    return steps(action)


def bot_action(state: TableModel, seat: int, cards: Sequence[str] | None, by: By) -> list[Step]:
    """A bot's (or 托管's) answer for ``seat``, checked like a player's."""
    return steps(checked_action(_game_in_progress(state), seat, cards, by))


def checked_action(game: Game, seat: int, cards: Sequence[str] | None, by: By) -> EvPlay | EvPass:
    """The event of an action, checked by the engine (which changes nothing); canonical card codes."""
    try:
        if cards is None:
            game.check_pass(seat)
            return EvPass(kind="pass", seat=seat, by=by)
        combo = game.check_play(cards, seat)
    except IllegalMove as error:
        raise Fault("illegal_move", str(error), error.rule) from None
    except ValueError as error:  # not a card code
        raise Fault("illegal_move", f"{error} (R6)", "R6") from None
    return EvPlay(kind="play", seat=seat, play=codes_of(combo.mask), by=by)


def _game_in_progress(state: TableModel) -> Game:
    game = state.game
    if state.status != "playing" or game is None or game.over:
        raise Fault("bad_state", "no game is in progress at this table")
    return game


# ---- what a new state makes due ---------------------------------------------------------------------


def follow_up(state: TableModel, dealer: Dealer, now: float) -> list[Step]:
    """What the state makes due by itself: the end of a game that is over, or the next deal."""
    game = state.game
    if state.status == "playing" and game is not None and game.over:
        return finish_game(state, now)
    if vote_passed(state):
        return steps(EvDissolveEnded(kind="dissolve_ended", outcome="agreed"))
    if abandoned(state):
        return end_abandoned(state)
    if state.dissolved and state.status in ("waiting", "between"):
        return steps(EvTableFinished(kind="table_finished", totals=list(state.series.totals)))
    return start_game(state, dealer, now)


def abandoned(state: TableModel) -> bool:
    """Between games (or before the first), bots hold seats and no human does: every human has left
    (stood up, escaped, or was not ready in time), so the table ends rather than linger in the lobby
    with bots nobody plays against (issue 10)."""
    if state.status not in ("waiting", "between"):
        return False
    players = [slot.player for slot in state.seats if slot.player is not None]
    return bool(players) and all(p.bot is not None for p in players)


def end_abandoned(state: TableModel) -> list[Step]:
    """An abandoned table ends: its bots stand up (``seat_left``, reason ``left``), then
    ``table_finished`` — nobody is left seated at a table that is over (issue 10)."""
    return steps(
        *(
            EvSeatLeft(kind="seat_left", seat=n, reason="left")
            for n, slot in enumerate(state.seats)
            if slot.player is not None
        ),
        EvTableFinished(kind="table_finished", totals=list(state.series.totals)),
    )


def start_game(state: TableModel, dealer: Dealer, now: float) -> list[Step]:
    """翻牌 (when the first drawer is not known, R8) and the deal, once four seats are taken, every
    seat is ready and at least one is human (bots alone do not play)."""
    if state.status not in ("waiting", "between"):
        return []
    if not all(slot.player is not None and slot.ready for slot in state.seats):
        return []
    if not any(slot.human for slot in state.seats):
        return []
    result: list[Step] = []
    first = state.series.first_drawer(dealer.turn_up)  # 翻牌, or the previous 上游 (R8)
    if first.flip is not None:
        flip = FlipInfo.model_validate(first.flip)
        result.append(Step(EvFlip(kind="flip", card=flip.card, value=flip.value, first_drawer=first.seat)))
    deck = dealer.shuffled_deck()
    secret = dealer.new_secret()  # kept in the store's game row until the game is over
    game_no = state.game_no + 1
    players = [RecordPlayer(id=p.id, nickname=p.nickname, bot=p.bot) for s in state.seats if (p := s.player)]
    meta: dict[str, Any] = dict(
        new_meta("niugui serve", game_no, players, first, table=state.id, started_at=iso(now))
    )
    # The commitment covers the deck, the first drawer and how it was chosen, the seats, the variant
    # and the protocol version; it is published in the deal event, before any action.
    dealt = Game.from_deck(deck, first.seat)
    meta["fairness"] = fairness.commit(secret, record_of_game(dealt, meta), PROTOCOL_VERSION)
    commitment: str = meta["fairness"]["commitment"]
    deal = EvDeal(
        kind="deal",
        game_no=game_no,
        game_id=0,  # the store gives the game its id
        first_drawer=first.seat,
        first_drawer_by=first.by,
        commitment=commitment,
    )
    result.append(Step(deal, deal=Deal(game_no, first.seat, tuple(deck), secret, commitment, meta)))
    return result


def distinct_people(accounts: Sequence[str], origins: Mapping[str, str]) -> int:
    """How many people ``accounts`` are: one per distinct known origin, one for each unknown.

    >>> distinct_people(["a", "b", "c", "d"], {"a": "203.0.113.7", "b": "203.0.113.7", "c": ""})
    3
    """
    known = {origins.get(a, "") for a in accounts} - {""}
    return len(known) + sum(1 for a in accounts if not origins.get(a, ""))


def rated_game(state: TableModel) -> RatedGame | None:
    """What a finished game moves in the ratings: at a rated table, with at least two people (one
    person against bots alone is not rated, so nobody farms a rating from bots). A bot account is no
    person here (issue 33, finding 8: one person, their bot account and two bots were a rated game);
    its own rating still moves in a game rated by two people. People are counted by where they sat
    down from: four guests of one address at a creator's rated table are one person (review of
    finding 8; quick play never seats them together). A private table (a join code) is never
    rated: its games are seen only by its players, and a rating, its history and the leaderboard would
    show them to everyone (review of finding 11)."""
    game = state.game
    people = [p.id for p in state.players if p is not None and p.bot is None and p.id and not p.bot_account]
    if not state.settings.rated or state.code is not None:
        return None
    if game is None or game.result is None or distinct_people(people, state.origins) < 2:
        return None
    return RatedGame(
        game.result,
        tuple(None if p is None or p.bot is not None else p.id for p in state.players),
        tuple(None if p is None else p.bot for p in state.players),
    )


def finish_game(state: TableModel, now: float) -> list[Step]:
    """A game that is over: its ``game_over`` (record, ledger, the deal revealed), the seats that
    leave with it, and ``table_finished`` after the table's last game."""
    game, deal = state.game, state.deal
    assert game is not None and game.result is not None and deal is not None and state.game_id is not None
    result = game.result
    meta = {**deal.meta, "finished_at": iso(now)}
    record = record_of_game(game, meta)
    proof = meta.get("fairness")
    if isinstance(proof, dict) and proof.get("scheme") == fairness.SCHEME:
        # revealed now it is over: the salt, the statement, the chain over the actions and its seal
        record["meta"]["fairness"] = proof = fairness.reveal(deal.salt, record)
    else:  # a game dealt before scheme 2 (its meta has the proof at the top): reveal its salt
        record["meta"]["salt"] = deal.salt
        proof = {"scheme": fairness.SCHEME_V1, "commitment": deal.commitment, "salt": deal.salt}
    entries = [
        LedgerEntry(seat, None if p is None else p.id, "" if p is None else p.nickname, result.scores[seat])
        for seat, p in enumerate(state.players)
    ]
    totals = state.series.totals_with(result)
    reveal = Reveal.model_validate(
        {**{k: v for k, v in proof.items() if k in REVEALED}, "deck": list(deal.deck)}
    )
    over = EvGameOver(
        kind="game_over",
        game_no=state.game_no,
        game_id=state.game_id,
        result=ResultView.model_validate(result.to_dict()),
        totals=totals,
        reveal=reveal,
    )
    done = [Step(over, finish=Finish(record, entries, rated_game(state)))]
    for seat, reason in sorted(state.leaving.items()):
        if state.seats[seat].player is not None:
            done.append(Step(EvSeatLeft(kind="seat_left", seat=seat, reason=reason)))
    if status_after(state.status, state, over) == "finished":
        done.append(Step(EvTableFinished(kind="table_finished", totals=totals)))
    return done
