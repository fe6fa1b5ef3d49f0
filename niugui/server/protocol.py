"""The WebSocket protocol: one pydantic model per message, and the JSON schemas generated from them.

Every message is a JSON object with a ``type``. Client messages carry an ``id`` (the client's own
id for that request), answered by exactly one ``ack`` or ``error`` with the same id. Table events
carry a per-table sequence number ``seq``. Which client messages exist, and who handles each, is
the registry's (:mod:`niugui.server.handlers`); ``docs/protocol.md`` embeds the schemas of both
directions (:mod:`niugui.server.protocol_doc`).

>>> Play.model_validate({"type": "play", "id": "c1", "table": "t1", "cards": ["D4"]}).cards
['D4']
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    WithJsonSchema,
    model_validator,
)
from pydantic_core import to_json

from niugui.bots.levels import NAMES as LEVEL_NAMES
from niugui.game import SeatView

from . import timer
from .consent import DEFAULT_INVITE_FROM, DEFAULT_INVITE_TABLES, MAX_INVITE_TABLES, InviteFrom

PROTOCOL_VERSION = 2
"""2: a connection authenticates with its first message (``auth``), not a token in the URL; a play
event names its cards ``play`` (as views and records do) and no longer repeats the combination's kind
(the view sent with it has it); ``welcome.seats`` and ``ack.data`` are typed."""
MAX_FRAME_BYTES = 16 * 1024
"""Frames larger than this are refused (``error`` with code ``frame_too_large``)."""


def _no_lone_surrogates(text: str) -> str:
    """Refuse text that is not Unicode (a lone UTF-16 surrogate, e.g. from ``"\\ud800"``).

    >>> _no_lone_surrogates("牛鬼 ok")
    '牛鬼 ok'
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("not valid Unicode text (a lone surrogate)") from None
    return text


Text = Annotated[str, AfterValidator(_no_lone_surrogates)]
"""A string in a request: strict (never coerced from a number) and valid Unicode."""
ClientId = Annotated[Text, Field(min_length=1, max_length=64, description="the client's id for this request")]
TableId = Annotated[Text, Field(min_length=1, max_length=32, description="a table's id")]
NodeId = Annotated[str, Field(min_length=1, description="a cluster node's id (--node-id)")]
Seat = Annotated[int, Field(ge=0, le=3, description="a seat 0..3; play goes 0→1→2→3→0 (R7)")]
CardCode = Annotated[
    Text, Field(min_length=1, max_length=8, description="a card code of R6, e.g. S3, HT, BJ")
]


def _known_level(name: str) -> str:
    """Accept a built-in bot level (``niugui.bots.levels``) only.

    >>> _known_level("expert")
    'expert'
    """
    if name not in LEVEL_NAMES:
        raise ValueError(f"not a bot level (one of: {', '.join(LEVEL_NAMES)})")
    return name


BotLevel = Annotated[
    str, AfterValidator(_known_level), WithJsonSchema({"type": "string", "enum": list(LEVEL_NAMES)})
]
"""A built-in bot level; the list is ``niugui.bots.levels.LEVELS``'s."""
By = Literal["player", "bot", "autoplay", "timeout"]
LeaveReason = Literal["left", "grace", "removed"]
"""Why a seat is left: its player stood up (``left``), was away past the grace period (``grace``), or
was removed from the club whose room it is (``removed``, issue 29: between games at once, during a game
once it is over — not an escape)."""
SeatLeftReason = Literal[LeaveReason, "not_ready", "freed"]
"""Why a seat was freed: a ``LeaveReason``, between games not ready in time (``not_ready``), or its
absent player's seat freed by the table's creator (``freed``)."""
FirstDrawerBy = Literal["flip", "previous_first"]
TableStatus = Literal["waiting", "playing", "between", "finished"]
PhraseId = Literal[
    "hurry",  # 快点吧
    "nice",  # 好牌
    "together",  # 配合一下
    "sorry",  # 不好意思
    "thanks",  # 谢谢
    "well_played",  # 打得好
    "oops",  # 哎呀
    "again",  # 再来一局
    "emote_smile",  # ☺
    "emote_laugh",  # 哈哈
    "emote_cry",  # ☹
    "emote_angry",  # 怒
    "emote_thumbs",  # 赞
    "emote_flower",  # ✿
]
"""Quick chat: the fixed phrases and emotes a seat may send (no free text; the page owns the words)."""

ErrorCode = Literal[
    "bad_json",  # the frame is not valid JSON, or not a JSON object
    "unknown_type",  # no such message type
    "invalid_message",  # a field is missing, of the wrong type or out of range
    "frame_too_large",  # over 16 KiB
    "rate_limited",  # over the per-connection message rate; the message was dropped
    "illegal_move",  # the engine refused the action: `rule` names the rule (R1..R36)
    "not_found",  # no such table (or wrong join code)
    "forbidden",  # not allowed to you (not the creator, not seated, another seat ...)
    "seat_taken",  # that seat is occupied
    "already_seated",  # you already hold a seat at this table (one seat per account)
    "table_full",  # no free seat
    "bad_state",  # not possible now (e.g. settings during a game, play with no game)
    "bot_offline",  # invite: no bot account of that username is connected
    "not_friends",  # invite: that account is not your friend (friends: issue 29)
    "friend_offline",  # invite: that friend has no connection to this server now
    "not_invitable",  # invite: that bot account's owner does not let you invite it (issue 33)
    "seated_elsewhere",  # quick_play, sit, rematch: a seat at another table, or quick play waits or seats you
    "invite_limit",  # invite, sit: that bot account sits at as many tables as its owner allows
    "moving",  # a cluster's table between two nodes (its node died, or handed it over): try again in a moment
    "server_error",  # a bug on the server; the connection stays up
]


class Message(BaseModel):
    model_config = ConfigDict(extra="forbid")


# ---- client → server --------------------------------------------------------------------------


class Request(Message):
    """A client's message or request body: unknown fields refused, and no coercion (``"20"`` is not
    a number, ``true`` is not a seat)."""

    model_config = ConfigDict(extra="forbid", strict=True)


class TableRequest(Request):
    """A request about one table, named by ``table`` (its id, or for ``watch`` and ``sit`` the join code
    of a private table)."""

    id: ClientId
    table: TableId


class TableSettings(Request):
    """A table's settings, chosen by its creator (changeable between games)."""

    name: Text = Field("", max_length=40, description="shown in the lobby")
    private: bool = Field(False, description="private tables are not listed; joining needs the code")
    turn_seconds: float = Field(
        timer.TURN_SECONDS_DEFAULT,
        ge=timer.TURN_SECONDS_MIN,
        le=timer.TURN_SECONDS_MAX,
        description="turn timer; on expiry 托管 plays",
    )
    bot_level: BotLevel = Field("expert", description="the bot that fills empty seats")
    games: int | None = Field(None, ge=1, le=1000, description="games to play; null: endless")
    counter: bool = Field(
        True,
        description="记牌器: the page may show how many of each rank are unseen (public plays only, R12)",
    )
    rated: bool = Field(
        False,
        description="ratings move after each finished game with at least two people (a bot account is no"
        " one, one address's accounts are one); never at a private table",
    )
    club: str | None = Field(
        None,
        min_length=1,
        max_length=16,
        exclude_if=lambda club: club is None,
        description="a club's room (issue 29): only the club's members sit or watch; the club's preset "
        "settings apply; listed in the club's lobby, never the public one (the key is sent only when set)",
    )


class Auth(Request):
    """The first message on a connection: your session token (never in the URL, where logs and
    proxies keep it). Answered by ``welcome``, or by an ``error`` (``forbidden``) and close 4401."""

    type: Literal["auth"]
    id: ClientId
    token: Text = Field(min_length=1, max_length=128)


class Ping(Request):
    """Check the connection; answered by an ack."""

    type: Literal["ping"]
    id: ClientId


LobbyStatus = Literal["waiting", "playing", "between"]


class ListTables(Request):
    """The lobby, a page at a time: ack data ``{"tables": [TableSummary...], "total", "offset",
    "limit"}`` — public tables not finished that match every filter given, ``total`` of them."""

    type: Literal["list_tables"]
    id: ClientId
    offset: int = Field(0, ge=0, le=1_000_000)
    limit: int = Field(50, ge=1, le=100)
    status: LobbyStatus | None = None
    free_seats: int | None = Field(None, ge=0, le=4, description="at least this many empty seats")
    bot_level: BotLevel | None = None


class CreateTable(Request):
    """Create a table; ack data ``{"table": TableSummary}`` (with ``code`` for a private table).
    The creator is subscribed to the table (as with ``watch``) but does not sit."""

    type: Literal["create_table"]
    id: ClientId
    settings: TableSettings = TableSettings()


class Watch(TableRequest):
    """Subscribe to a table's events (as a spectator, or in your own seat if you hold one).

    Reconnecting: send ``last_seq``, the last event seq you saw; the server replays the events
    after it (``replay: true``) or, when they are too many, sends a ``snapshot``. Without
    ``last_seq`` you get a ``snapshot``. Ack data ``{"seat": your seat or null}``.
    """

    type: Literal["watch"]
    code: Text | None = Field(None, max_length=16, description="join code of a private table")
    last_seq: int | None = Field(None, ge=0)


class Sit(TableRequest):
    """Take a seat (a free one when ``seat`` is null). Also subscribes you to the table.
    When four seats are taken and every human is ready the game starts (sitting makes you ready)."""

    type: Literal["sit"]
    seat: Seat | None = None
    code: Text | None = Field(None, max_length=16)


class Stand(TableRequest):
    """Give up your seat. During a game, while you still hold cards, this is an escape (R35, −9)."""

    type: Literal["stand"]
    id: ClientId
    table: TableId


class Leave(TableRequest):
    """Stand (if seated; see ``stand``) and stop receiving the table's events."""

    type: Literal["leave"]
    id: ClientId
    table: TableId


class Ready(TableRequest):
    """Ready for the next game; it starts when all four seats are taken and every human is ready."""

    type: Literal["ready"]
    id: ClientId
    table: TableId


class Play(TableRequest):
    """Play cards (出牌) in your seat; refused with the rule it breaks (``illegal_move``)."""

    type: Literal["play"]
    cards: list[CardCode] = Field(min_length=1, max_length=14)


class Pass(TableRequest):
    """Pass (过门); not allowed on a free lead (R27)."""

    type: Literal["pass"]
    id: ClientId
    table: TableId


class Autoplay(TableRequest):
    """Turn 托管 on or off for your seat (any action of yours also turns it off)."""

    type: Literal["autoplay"]
    on: bool


class FillBots(TableRequest):
    """Creator only: bots (of the table's ``bot_level``) take every empty seat."""

    type: Literal["fill_bots"]
    id: ClientId
    table: TableId


class QuickPlay(Request):
    """快速开始: wait in the queue until four compatible players are seated together at a new rated
    table (``queue`` messages say how many wait). ``null`` preferences mean "any"; four players are
    compatible when their non-null wishes agree. Joining again keeps your place in line."""

    type: Literal["quick_play"]
    id: ClientId
    turn_seconds: int | None = Field(
        None,
        ge=timer.QUICK_TURN_SECONDS_MIN,
        le=timer.QUICK_TURN_SECONDS_MAX,
        description="the turn timer you want",
    )
    games: int | None = Field(None, ge=1, le=16, description="the number of games you want")
    bots: bool = Field(
        False,
        description="you agree to be seated when another waiting player fills the empty seats with "
        "bots (queue_bots); otherwise only your own queue_bots, or four people, seat you (issue 33)",
    )


class LeaveQueue(Request):
    """Leave the quick-play queue (answered even when you were not in it); you are never seated after."""

    type: Literal["leave_queue"]
    id: ClientId


class Rematch(TableRequest):
    """再来一局 after a quick-play table's last game: ask to play again with the same people. Once
    every person who played its last game has asked, they are seated together at a new quick-play
    table (bots again in the bots' seats), each told by ``queue`` (``seated``); until then each of
    them gets ``rematch`` (who has asked). Only at a finished quick-play table, by one who played."""

    type: Literal["rematch"]
    id: ClientId
    table: TableId


class QueueBots(Request):
    """After waiting ``bots_in`` seconds (see ``queue``): sit now, with the compatible players who
    wait and bots in the empty seats."""

    type: Literal["queue_bots"]
    id: ClientId


class PlayEvent(Request):
    """Play an event (issue 30): seats you at a table for your next board of a duplicate event (one
    person against the event's bots, the board's deal and seat) — or back at the board you have not
    finished — as any other table: you are subscribed and seated, and the deal follows. Ack data
    ``{"table": TableSummary}``. Refused (``not_found``) for an event you may not see (a club's, to
    a non-member), ``bad_state`` before its start, after its end or once every board is played."""

    type: Literal["play_event"]
    id: ClientId
    event: Text = Field(min_length=1, max_length=16, description="the event's id")


class FreeSeat(TableRequest):
    """Creator only, not during a game: free the seat of an absent player (not connected and not
    ready) for someone else — not an escape, since no game is in progress."""

    type: Literal["free_seat"]
    seat: Seat


class UpdateSettings(TableRequest):
    """Creator only, not during a game: replace the table's settings."""

    type: Literal["update_settings"]
    settings: TableSettings


class Invite(TableRequest):
    """Invite someone to a seat (a free one when ``seat`` is null), not during a game. Name exactly
    one of:

    - ``username``: a bot account; the table's creator only. Every connection of that bot account
      gets an ``invitation`` and takes the seat with ``sit`` (the seat stays free until then).
      ``bot_offline`` when no bot account of that name is connected.
    - ``friend``: a friend's account id (see ``POST /api/friends/{account_id}``); anyone seated at the
      table or its creator. Every connection of the friend gets an ``invitation`` (with the join
      code of a private table); the seat stays free until someone sits. ``not_friends`` when you are
      not friends, ``friend_offline`` when they have no connection to this server.

    Refused with ``forbidden`` when you may not invite; ack data ``{"seat": the seat offered}``."""

    type: Literal["invite"]
    username: Text | None = Field(None, min_length=1, max_length=32, description="a bot account's username")
    friend: str | None = Field(None, min_length=1, max_length=32, description="a friend's account id")
    seat: Seat | None = None

    @model_validator(mode="after")
    def _one_guest(self) -> Invite:
        if (self.username is None) == (self.friend is None):
            raise ValueError("name exactly one of username (a bot account) and friend (an account id)")
        return self


class Chat(TableRequest):
    """Quick chat: a phrase or emote of the fixed list (``PhraseId``; no free text), from your seat,
    relayed to the table's seats and spectators and stored with its events (``chat``). Seated players
    only; at most ``chat_burst`` at once, then one per ``1/chat_rate`` s per connection, and likewise
    per account (``chat_account_*``, over all its connections) and per table (``chat_table_*``, over
    all its seats) (``rate_limited``)."""

    type: Literal["chat"]
    phrase: PhraseId


# ---- sessions (issue 29): dissolve by vote -------------------------------------------------------


class Dissolve(TableRequest):
    """解散: end the session (the table's run of ``games``) early with the totals so far. The first
    ``dissolve`` proposes it (``agree`` must be true); then every seated person (not bots, not a seat
    in 托管) answers within ``DISSOLVE_SECONDS`` (60 s). It ends when all have agreed; one refusal or
    the time running out cancels it. Never an escape (no −9). Answered by the events
    ``dissolve_proposed``, ``dissolve_vote`` and ``dissolve_ended``; a game in progress is played to
    its end first."""

    type: Literal["dissolve"]
    agree: bool


# ---- what the server sends ----------------------------------------------------------------------


def _unset(flag: bool) -> bool:
    return not flag


def _is_none(value: object) -> bool:
    return value is None


class Account(Message):
    id: str
    nickname: str
    username: str | None = Field(None, description="set for a registered account")
    bot: bool = Field(False, exclude_if=_unset, description="a bot account (the key is sent only when true)")


class PlayerRef(Message):
    """Who sits in a seat: an account (``id``) or the server's bot (``bot`` names its level). A bot
    account is an account (``id``) with ``bot_account: true``: a program playing over this protocol."""

    id: str | None
    nickname: str
    bot: str | None = None
    rating: int | None = Field(
        None, description="the shown rating when they sat (a bot's fixed one); null if never rated"
    )
    escape_rate: float | None = Field(
        None, description="escapes (R35) per game played, 0..1, when they sat; null before a first game"
    )
    bot_account: bool = Field(
        False, exclude_if=_unset, description="a bot account's seat (the key is sent only when true)"
    )


class SeatState(Message):
    seat: Seat
    player: PlayerRef | None
    online: bool = Field(description="a human's connection is up (bots are always online)")
    autoplay: bool = Field(description="托管: a bot plays this seat's turns")
    ready: bool


class FlipInfo(Message):
    """翻牌 (R8): the card turned up, how far it counts, and the seat it reaches."""

    card: CardCode
    value: int
    first_drawer: Seat


class TableSummary(Message):
    id: TableId
    name: str
    private: bool
    code: str | None = Field(None, description="join code; only shown to the table's creator and players")
    status: TableStatus
    seats: list[PlayerRef | None]
    spectators: int
    games_played: int
    settings: TableSettings


# ---- sessions (issue 29): the vote in progress, shown with the table ------------------------------


class DissolveState(Message):
    """A dissolve vote in progress: who proposed it, who agreed, and when it runs out."""

    proposer: Seat
    agreed: list[Seat]
    voters: list[Seat] = Field(description="the seats whose answer is waited for (people not in 托管)")
    until: float = Field(description="UNIX time when the vote runs out (and is cancelled)")


def _absent(value: object) -> bool:
    return value is None


class TableState(Message):
    """The table around the game, sent with every event."""

    id: TableId
    name: str
    private: bool
    code: str | None
    creator: str
    settings: TableSettings
    status: TableStatus
    seats: list[SeatState]
    totals: list[int] = Field(description="running totals per seat (R36)")
    games_played: int
    game_no: int = Field(description="the current (or last) game's number, 1-based; 0 before the first")
    game_id: int | None = Field(description="the current (or last) game's id (records: /api/games/{id})")
    deadline: float | None = Field(description="UNIX time when the seat to move times out")
    commitment: str | None = Field(description="SHA-256 commitment of the current deal (hex)")
    flip: FlipInfo | None = Field(description="the 翻牌 that chose this game's first drawer, if any")
    you: Seat | None = Field(description="the recipient's seat, null for a spectator")
    dissolve: DissolveState | None = Field(
        None, exclude_if=_absent, description="a dissolve vote in progress (the key only then)"
    )
    event: str | None = Field(
        None,
        exclude_if=_absent,
        description="the id of the event (issue 30) whose table this is (the key only then): "
        "a page that lost its tab still offers the event's next board and standings",
    )


class PlayView(Message):
    seat: Seat
    play: list[CardCode]
    kind: str


class PassView(Message):
    seat: Seat
    pass_: Literal[True] = Field(alias="pass")


class EscapeView(Message):
    seat: Seat
    escape: Literal[True]


class ResultView(Message):
    mode: Literal["2v2", "1v3"]
    outcome: Literal["sweep", "win", "draw", "double_win", "double_draw", "double_caught", "escape"]
    finish: list[Seat]
    scores: list[int]
    black: list[Seat]


class GameView(Message):
    """Exactly the engine's ``game.view(seat)`` (``view(None)`` for a spectator), whose shape is
    ``niugui.game.SeatView`` (a test checks that the two have the same keys). In ``event`` messages
    ``history`` and ``leads`` are left out (the events carry them); ``snapshot`` includes them."""

    seat: Seat | None
    first_drawer: Seat
    to_move: Seat | None
    counts: list[int]
    marks: list[list[CardCode]] = Field(description="♠3/♠2 shown per seat once played (R11)")
    finish: list[Seat]
    history: list[PlayView | PassView | EscapeView] | None = None
    leads: list[int] | None = Field(
        None, description="with history: the index in it of each trick's first play (on a free lead, R29)"
    )
    trick: list[PlayView | PassView | EscapeView]
    current: PlayView | None
    over: bool
    hand: list[CardCode] | None = Field(None, description="your own hand (seat views only)")
    side: Literal["black", "red", "double"] | None = Field(
        None,
        description="what your own dealt hand tells you (R10, R11; seat views only): black (you hold one"
        " of ♠3/♠2, your partner the other), double (both: alone against three) or red (neither)",
    )
    legal_plays: list[list[CardCode]] | None = Field(None, description="on your turn: every legal play")
    can_pass: bool | None = None
    result: ResultView | None = None
    hands: list[list[CardCode]] | None = Field(None, description="when over: what each seat still held")
    dealt: list[list[CardCode]] | None = Field(None, description="when over: the dealt hands")


class Reveal(Message):
    """The fairness proof, revealed after the game (see "Fair deal"); the same as the record's
    ``meta.fairness``. Scheme 1 (``sha256(salt:deck)``) is that of games dealt before scheme 2."""

    scheme: Literal["niugui-fair/2", "sha256(salt:deck)"]
    protocol: int | None = Field(None, description="the protocol version committed to (scheme 2)")
    commitment: str
    salt: str
    statement: str | None = Field(None, description="the canonical JSON the commitment hashes (scheme 2)")
    seal_key: str | None = Field(None, description="hash of the game's one-time public key (scheme 2)")
    chain: str | None = Field(None, description="the hash chain over the game's actions (scheme 2)")
    seal: str | None = Field(None, description="the one-time signature of chain (scheme 2, hex)")
    deck: list[CardCode] = Field(description="the 54 cards in drawing order (R9)")


class EvTableCreated(Message):
    kind: Literal["table_created"]
    settings: TableSettings
    creator: str


class EvSeatTaken(Message):
    kind: Literal["seat_taken"]
    seat: Seat
    player: PlayerRef


class EvSeatLeft(Message):
    kind: Literal["seat_left"]
    seat: Seat
    reason: SeatLeftReason


class EvSettings(Message):
    kind: Literal["settings_changed"]
    settings: TableSettings


class EvReady(Message):
    kind: Literal["ready"]
    seat: Seat


class EvFlip(Message):
    kind: Literal["flip"]
    card: CardCode
    value: int
    first_drawer: Seat


class EvDeal(Message):
    kind: Literal["deal"]
    game_no: int
    game_id: int
    first_drawer: Seat
    first_drawer_by: FirstDrawerBy = Field(description="R8")
    commitment: str = Field(
        description="SHA-256 (hex) of the statement of the deal and seating (Fair deal), before any action"
    )


class EvPlay(Message):
    """A play: ``play`` lists its cards, spelled as in views (``trick``, ``current``, ``history``)
    and records (``actions``); the view sent with the event names its combination (``kind``)."""

    kind: Literal["play"]
    seat: Seat
    play: list[CardCode]
    by: By


class EvPass(Message):
    kind: Literal["pass"]
    seat: Seat
    by: By


class EvEscape(Message):
    kind: Literal["escape"]
    seat: Seat
    reason: LeaveReason


class EvLeaving(Message):
    """A seat that has gone out this game leaves when it ends (stood up, or away past the grace
    period); its ``seat_left`` comes with the game's end. (A seat that still holds cards escapes
    instead, R35, and leaves with the game's end just the same.)"""

    kind: Literal["leaving"]
    seat: Seat
    reason: LeaveReason


class EvAutoplay(Message):
    kind: Literal["autoplay"]
    seat: Seat
    on: bool
    reason: Literal["timeout", "offline", "player", "back"]


class EvPresence(Message):
    kind: Literal["presence"]
    seat: Seat
    online: bool


class EvGameOver(Message):
    kind: Literal["game_over"]
    game_no: int
    game_id: int
    result: ResultView
    totals: list[int]
    reveal: Reveal


class EvChat(Message):
    """A seat's quick-chat phrase or emote (``PhraseId``); it changes nothing at the table. A reader
    who blocks the seat's player (``POST /api/blocks/{account_id}``) gets it with ``phrase`` null."""

    kind: Literal["chat"]
    seat: Seat
    phrase: PhraseId | None = Field(description="null: from someone you block (not shown)")


class EvTableFinished(Message):
    kind: Literal["table_finished"]
    totals: list[int]


# ---- sessions (issue 29): dissolve by vote -------------------------------------------------------


class EvDissolveProposed(Message):
    """A seated person proposes to end the session (their own agreement counted)."""

    kind: Literal["dissolve_proposed"]
    seat: Seat
    seconds: float = Field(description="how long the others have to answer")


class EvDissolveVote(Message):
    kind: Literal["dissolve_vote"]
    seat: Seat
    agree: bool


class EvDissolveEnded(Message):
    """The vote's outcome: ``agreed`` ends the session (after the game in progress, if any) with the
    totals so far; ``refused`` and ``expired`` cancel it."""

    kind: Literal["dissolve_ended"]
    outcome: Literal["agreed", "refused", "expired"]


AnyEvent = (
    EvTableCreated
    | EvSeatTaken
    | EvSeatLeft
    | EvSettings
    | EvReady
    | EvFlip
    | EvDeal
    | EvPlay
    | EvPass
    | EvEscape
    | EvLeaving
    | EvAutoplay
    | EvPresence
    | EvGameOver
    | EvTableFinished
    | EvChat
    | EvDissolveProposed
    | EvDissolveVote
    | EvDissolveEnded
)
"""Any table event (the models above)."""
TableEvent = Annotated[AnyEvent, Field(discriminator="kind")]


class QueueStatus(Message):
    """Your place in the quick-play queue, sent when it changes (someone joins or leaves, you are
    seated). Counts only: who waits is never sent."""

    type: Literal["queue"]
    status: Literal["waiting", "seated", "left"]
    waiting: int = Field(description="players in the queue now (you included while you wait)")
    waited: float = Field(description="seconds you have waited so far")
    bots_in: float | None = Field(
        description="seconds until you may fill the empty seats with bots (queue_bots); 0: now; "
        "null when not waiting"
    )
    delay: float = Field(description="seconds before you can be seated, for recent escapes (fair play)")
    escapes: int = Field(description="your escapes (R35) counted for the delay")
    reason: Literal["escapes"] | None = Field(description="why you wait longer, if you do")
    turn_seconds: int | None = Field(description="your preferences (null: any)")
    games: int | None
    table: TableId | None = Field(description="seated: the new table (you are subscribed to it)")
    seat: Seat | None


class RematchStatus(Message):
    """To each person of a finished quick-play table once someone asked for 再来一局 (``rematch``):
    which of its seats have asked, of those who played its last game."""

    type: Literal["rematch"]
    table: TableId
    asked: list[Seat] = Field(description="the seats that asked to play again")
    people: list[Seat] = Field(description="the seats of the people who played (all must ask)")


class SeatRef(Message):
    table: TableId
    seat: Seat


class Welcome(Message):
    """First message on a connection: who you are and the tables where you hold a seat."""

    type: Literal["welcome"]
    protocol: int
    account: Account
    seats: list[SeatRef] = Field(description="the tables where you hold a seat: rejoin each with watch")
    node: NodeId | None = Field(
        None, exclude_if=_is_none, description="on a cluster only: the node that answered (the key only then)"
    )


class LobbyData(Message):
    """What ``list_tables`` answers: one page of the lobby."""

    tables: list[TableSummary]
    total: int = Field(0, description="tables matching the filters, on every page")
    offset: int = 0
    limit: int = 50


class TableData(Message):
    """What ``create_table`` answers."""

    table: TableSummary


class SeatData(Message):
    """What ``watch`` and ``sit`` answer: your seat at the table, or null (``invite``: the seat offered)."""

    seat: Seat | None
    node: NodeId | None = Field(
        None,
        exclude_if=_is_none,
        description="on a cluster only, in the answer to watch and sit when another node than the one "
        "that answered owns the table (the key only then): that node's id. A client may connect again "
        "with /ws?node=<id> (docs/scaling.md, table affinity) and rejoin with watch: the table's "
        "frames are then not relayed between nodes",
    )


AckData = LobbyData | TableData | SeatData


class Ack(Message):
    """The request ``id`` succeeded. ``seq``: the table's last event when it was done, if any."""

    type: Literal["ack"]
    id: str
    seq: int | None = None
    data: AckData | None = None


@dataclass(frozen=True)
class Prebuilt:
    """An answer's data already serialized (``list_tables``: the lobby's pages, shared by every asker).

    >>> ack_frame("c1", None, Prebuilt('{"tables":[]}'))
    '{"type":"ack","id":"c1","seq":null,"data":{"tables":[]}}'
    """

    json: str


class Error(Message):
    """The request ``id`` (null if unreadable) failed and changed nothing; the connection stays up."""

    type: Literal["error"]
    id: str | None
    code: ErrorCode
    rule: str | None = Field(None, description="for illegal_move: the rule broken, e.g. R27")
    message: str


class Event(Message):
    """A table event. ``view`` is the recipient's view after it (null when there is no game yet, and
    in replayed events except the last); ``state`` the table after it."""

    type: Literal["event"]
    table: TableId
    seq: int = Field(ge=1)
    time: float
    replay: bool = False
    event: TableEvent
    view: GameView | None
    state: TableState


class Snapshot(Message):
    """Everything a recipient may know of a table now, up to event ``seq``."""

    type: Literal["snapshot"]
    table: TableId
    seq: int
    view: GameView | None
    state: TableState


class Invitation(Message):
    """You are invited to ``seat`` of ``table`` (see ``invite``): by its creator when you are a bot
    account, by a friend otherwise (``by_id``: their account id). Accept by sending ``sit`` with this
    ``table``, ``seat`` and ``code``; ignore it to decline. Nobody blocked by you reaches you with one."""

    type: Literal["invitation"]
    table: TableId
    seat: Seat
    code: str | None = Field(description="the join code of a private table (null for a public one)")
    by: str = Field(description="the nickname of who invites you")
    by_id: str | None = Field(
        None, exclude_if=_is_none, description="a friend's account id (the key is sent only to a person)"
    )
    settings: TableSettings


class EventSeated(Message):
    """A Swiss tournament's round has begun (issue 30): you are seated at ``seat`` of ``table`` for
    round ``round`` of ``event``, and subscribed to it (its snapshot and events follow). Sent to each
    entrant connected at the round's start; ``play_event`` takes you back to that table."""

    type: Literal["event_seated"]
    event: str
    round: int
    table: TableId
    seat: Seat


ServerMessage = Annotated[
    Welcome | Ack | Error | Event | Snapshot | QueueStatus | RematchStatus | Invitation | EventSeated,
    Field(discriminator="type"),
]

SERVER_ADAPTER: TypeAdapter[Any] = TypeAdapter(ServerMessage)


EVENT_ADAPTER: TypeAdapter[AnyEvent] = TypeAdapter(TableEvent)
"""Reads a stored event (its JSON) back into its model."""


# ---- frames: every server message as sent, built from the models above ------------------------------
#
# A table event goes to many recipients with a different view for each seat. So that nothing is
# serialized twice, an event's frame is assembled from parts that the models serialized once each:
# the event (once), the table state (once, without ``you``), and each seat's view (once per seat).
# ``tests/server/test_protocol_frames.py`` checks that every assembled frame is exactly what the
# message model serializes to.


def event_json(event: AnyEvent) -> str:
    """An event as stored and sent."""
    return event.model_dump_json()


def view_json(view: SeatView | None) -> str:
    """A seat's view as sent: the engine's ``SeatView`` serialized as it is, keys and all (its shape
    is :class:`GameView`'s, which ``tests/server/test_seat_view_shape.py`` checks; validating every
    view again on the way out cost more than building it)."""
    return "null" if view is None else to_json(view).decode()


class StateJson:
    """A table state serialized once; :meth:`for_seat` adds ``deadline`` (which changes with every
    turn, so a table's state can be kept serialized between turns, see :meth:`at`) and each
    recipient's ``you``.

    >>> settings = TableSettings()
    >>> state = TableState(id="t", name="", private=False, code=None, creator="a", settings=settings,
    ...     status="waiting", seats=[], totals=[0, 0, 0, 0], games_played=0, game_no=0, game_id=None,
    ...     deadline=None, commitment=None, flip=None, you=None)
    >>> StateJson(state).at(12.5).for_seat(2)[-24:]
    '"deadline":12.5,"you":2}'
    """

    __slots__ = ("_head", "_text", "deadline")

    def __init__(self, state: TableState) -> None:
        self._head = state.model_dump_json(exclude={"deadline", "you"})[:-1]
        self.deadline = state.deadline
        self._text: str | None = None

    def at(self, deadline: float | None) -> StateJson:
        """The same state with another ``deadline``."""
        other = object.__new__(StateJson)
        other._head, other.deadline, other._text = self._head, deadline, None
        return other

    def for_seat(self, you: int | None) -> str:
        return f'{self._head},"deadline":{self._deadline()},"you":{"null" if you is None else you}}}'

    def _deadline(self) -> str:
        text = self._text
        if text is None:
            text = self._text = "null" if self.deadline is None else repr(self.deadline)
        return text


def event_frame(
    table: str, seq: int, time: float | str, event: str, view: str, state: str, replay: bool = False
) -> str:
    """An :class:`Event` message from its serialized parts (see :func:`event_json`, :func:`view_json`,
    :class:`StateJson`); ``time`` may come as its JSON text already (one ``repr`` per event)."""
    return event_for(event_head(table, seq, time, event, replay), view, state)


def event_head(table: str, seq: int, time: float | str, event: str, replay: bool = False) -> str:
    """What every recipient's :func:`event_frame` of one event starts with (built once per event)."""
    name = json.dumps(table, ensure_ascii=False)
    when = time if isinstance(time, str) else repr(time)
    return (
        f'{{"type":"event","table":{name},"seq":{seq},"time":{when},'
        f'"replay":{"true" if replay else "false"},"event":{event},"view":'
    )


def event_for(head: str, view: str, state: str) -> str:
    """One recipient's :func:`event_frame`: the event's :func:`event_head`, its view and state."""
    return f'{head}{view},"state":{state}}}'


def snapshot_frame(table: str, seq: int, view: str, state: str) -> str:
    """A :class:`Snapshot` message from its serialized parts."""
    name = json.dumps(table, ensure_ascii=False)
    return f'{{"type":"snapshot","table":{name},"seq":{seq},"view":{view},"state":{state}}}'


def ack_frame(request_id: str, seq: int | None = None, data: AckData | Prebuilt | None = None) -> str:
    if data is None or isinstance(data, Prebuilt):  # every play and pass: no model built
        name = json.dumps(request_id, ensure_ascii=False)
        inline = "null" if data is None else data.json
        return f'{{"type":"ack","id":{name},"seq":{_int(seq)},"data":{inline}}}'
    return Ack(type="ack", id=request_id, seq=seq, data=data).model_dump_json()


def _int(value: int | None) -> str:
    return "null" if value is None else str(int(value))


def error_frame(request_id: str | None, code: ErrorCode, message: str, rule: str | None = None) -> str:
    return Error(type="error", id=request_id, code=code, rule=rule, message=message).model_dump_json()


def welcome_frame(account: Account, seats: list[SeatRef], node: str | None = None) -> str:
    """``node``: a cluster node's id (None in one process: the key is not sent)."""
    welcome = Welcome(type="welcome", protocol=PROTOCOL_VERSION, account=account, seats=seats, node=node)
    return welcome.model_dump_json()


# ---- HTTP bodies ------------------------------------------------------------------------------


class GuestRequest(Request):
    nickname: Text = Field(min_length=1, max_length=24)


class RegisterRequest(Request):
    username: Text = Field(min_length=3, max_length=32, pattern=r"^[A-Za-z0-9_.-]+$")
    password: Text = Field(min_length=8, max_length=256)
    nickname: Text | None = Field(None, min_length=1, max_length=24)
    bot: bool = Field(
        False,
        description="register a bot account: a new account (not a guest's), labelled as a bot everywhere,"
        " that plays through this protocol (niugui bot-client) and never joins quick play",
    )


class LoginRequest(Request):
    username: Text = Field(min_length=1, max_length=32)
    password: Text = Field(min_length=1, max_length=256)


class LogoutRequest(Request):
    everywhere: bool = Field(False, description="end every session of the account, not only this one")


HttpErrorCode = Literal[
    "invalid_input",  # 422 with a list as detail: each bad field's loc, type and msg (pydantic's)
    "blank_nickname",  # 422: a nickname of spaces only
    "bad_nickname",  # 422: a nickname with control, bidi or invisible characters, or too long normalised
    "reserved_nickname",  # 422: a nickname that passes for a bot, a bot account or the system
    "too_many_guests",  # 429: new guest accounts from one address per hour
    "too_many_logins",  # 429: login or register attempts from one address per minute
    "too_many_failures",  # 429: failed logins for one username per hour
    "too_many_requests",  # 429: HTTP requests per address or session (the guard)
    "too_many_reads",  # 429: leaderboards, profiles and players' games read from one address
    "busy",  # 503: password hashing is queued up; try again in a moment
    "registered_already",  # 409: this guest account has a username already
    "bot_needs_new_account",  # 409: a bot account is registered without a session token (a new account)
    "username_taken",  # 409
    "wrong_password",  # 401: unknown username or wrong password (the same answer for both)
    "unauthorized",  # 401: missing, unknown or expired session token
    "no_table",  # 404
    "no_player",  # 404
    "no_game",  # 404
    "game_in_progress",  # 404: its record exists once the game is over
    "too_large",  # 413: the request body
    "too_deep",  # 422: the body's JSON is nested too deeply
    "not_yourself",  # 422: befriending or blocking your own account (friends: issue 29)
    # ---- clubs (issue 29) ----
    "no_club",  # 404: no such club, not a member of it, or a wrong invite code (the same answer)
    "club_role",  # 403: your role in the club does not allow this
    "club_limit",  # 403: a club's or an account's limit (members, clubs) is reached
    "registered_only",  # 403: only a registered account (not a guest, not a bot) owns a club
    "room_in_play",  # 409: a room in play cannot be closed; wait for its game to end
    # ---- events (issue 30) ----
    "no_event",  # 404: no such event, or a club's event to a non-member (the same answer)
    "event_closed",  # 409: the event is not open (before its start, after its end) or you played it all
    "event_started",  # 409: a Swiss tournament has started: its registration is closed
    "event_owner",  # 403: only the event's owner may do this (start a Swiss early)
    "event_bot",  # 403: bot accounts do not enter events
    "bot_only",  # 403: only a bot account sets who may invite it (issue 33)
    "too_many_mutes",  # 422: an account mutes at most MAX_MUTES others (issue 33)
]


class HttpError(Message):
    """Why an HTTP request failed, as ``{"detail": HttpError}`` (a 422 of field checks has a list
    instead; replays answer a ``ReplayError``). The page words it from ``code`` in its language."""

    code: HttpErrorCode
    message: str = Field(description="in English, for logs and tools; players see the page's words")


class InviteConsent(Message):
    """``PUT /api/me/invitations`` (and its answer): who may invite this bot account to a table and to
    at most how many unfinished tables at once (issue 33, finding 6). Set by its owner (the bot client
    sends its ``--invitable-by`` and ``--max-tables``); the server refuses the rest."""

    invitable_by: InviteFrom = DEFAULT_INVITE_FROM
    max_tables: int = Field(DEFAULT_INVITE_TABLES, ge=0, le=MAX_INVITE_TABLES, strict=True)


class SessionResponse(Message):
    token: str = Field(
        description="send in the first message on /ws (auth), or Authorization: Bearer on HTTP"
    )
    account: Account


class ReplaySeat(Message):
    """Who sat in a seat, as the record's ``meta`` says (both null when it does not say)."""

    nickname: str | None = Field(None, max_length=40)
    bot: str | None = Field(None, max_length=16, description="a bot's level, when a bot played the seat")
    bot_account: bool = Field(
        False,
        exclude_if=_unset,
        description="a bot account played the seat (a stored game's replay; the key is sent only when true)",
    )


class ReplayStep(Message):
    """The game after one more action of the record: the engine's spectator view ``game.view(None)``
    without ``history`` (the steps carry it: ``history`` = the ``action`` of steps 1..i)."""

    action: PlayView | PassView | EscapeView | None = Field(
        description="the action just applied; null in step 0"
    )
    view: GameView
    hands: list[list[CardCode]] | None = Field(
        description="each seat's cards now; only when the record finishes the game (the end shows them, R11)"
    )


class Replay(Message):
    """``POST /api/replay`` (a record as the body) and ``GET /api/games/{id}/replay``: every step of a
    game computed by the engine. ``steps[0]`` is the deal, ``steps[i]`` the game after action i."""

    finished: bool = Field(description="the record's actions end the game")
    first_drawer: Seat
    seats: list[ReplaySeat] = Field(min_length=4, max_length=4)
    flip: FlipInfo | None = Field(description="the 翻牌 that chose the first drawer, if the record says")
    reveal: Reveal | None = Field(description="the fairness proof: for a finished record whose meta has it")
    steps: list[ReplayStep] = Field(min_length=1)


class ReplayError(Message):
    """Why a replay was refused, as ``{"detail": ReplayError}`` with HTTP 400, 404, 413 or 422."""

    code: Literal["bad_json", "bad_record", "illegal_action", "too_large", "not_found", "in_progress"]
    message: str = Field(description="in English, naming the field or the action and the rule")
    field: str | None = Field(None, description="bad_record: the field at fault, e.g. actions[3].seat")
    index: int | None = Field(None, description="illegal_action: the 0-based index of the action")
    rule: str | None = Field(None, description="illegal_action: the rule it breaks, e.g. R27")
    limit: int | None = Field(None, description="too_large: the largest record accepted, in bytes")


class RatingInfo(Message):
    """A rating (openskill's μ and σ); ``shown`` = max(0, round((μ − 3σ) × 60)), what players see."""

    mu: float
    sigma: float
    shown: int
    games: int | None = Field(None, description="rated games that moved it")


class RatingPoint(Message):
    mu: float
    sigma: float
    shown: int
    at: float = Field(description="UNIX time of the rated game")


class ModeResults(Message):
    """Results in one mode and role: won / lost / drawn by the seat's score, and each outcome (R32–R35)."""

    games: int = 0
    won: int = 0
    lost: int = 0
    drawn: int = 0
    outcomes: dict[str, int] = Field(default_factory=dict)


class ProfileGame(Message):
    game_id: int
    table: str
    game_no: int
    seat: Seat
    delta: int
    outcome: str
    finished_at: float | None


class Profile(Message):
    """``GET /api/players/{id}/profile``: a player's rating, its history, and their results."""

    id: str
    nickname: str
    registered: bool
    rating: RatingInfo | None = Field(description="null before a first rated game")
    history: list[RatingPoint] = Field(description="the rating after each rated game, oldest first")
    games: int = Field(
        description="games played (finished or escaped) that you may see: rated or not, a private"
        " table's only for its players"
    )
    upstream_rate: float | None = Field(description="share of games finished first (上游, R32); null: none")
    escapes: int
    escape_rate: float | None = Field(description="escapes (R35) per game; null before a first game")
    modes: dict[str, ModeResults] = Field(
        description='"2v2"; "1v3 alone" (as the 双牛鬼 seat, R10); "1v3 three" (against it)'
    )
    recent: list[ProfileGame] = Field(description="the last games the asker may see (each has a replay)")


class LeaderboardRow(Message):
    id: str
    nickname: str
    games: int
    total: int | None = Field(
        None, description="by points: the sum of its rated games' points in the ledger (R36 across tables)"
    )
    mu: float | None = None
    sigma: float | None = None
    shown: int | None = Field(None, description="by rating: the shown rating")
    rank: int | None = Field(None, description="the place, null for a flagged account")
    flagged: bool | None = Field(
        None, description="its rated games come from a closed circle (listed last, unranked)"
    )


class Leaderboard(Message):
    """``GET /api/leaderboard?by=points|rating``: by points, the points of rated games only; by rating,
    players with ``min_games`` rated games."""

    by: Literal["points", "rating"]
    min_games: int | None = None
    players: list[LeaderboardRow]


# ---- clubs (issue 29): HTTP bodies --------------------------------------------------------------


class ClubCreate(Request):
    """``POST /api/clubs``: a new club, its owner the registered account that asks."""

    name: Text = Field(min_length=1, max_length=40)
    description: Text = Field("", max_length=200)


class ClubPreset(Request):
    """The rule settings a club's rooms carry (each as in ``TableSettings``; absent: the creator's)."""

    turn_seconds: float | None = Field(None, ge=timer.TURN_SECONDS_MIN, le=timer.TURN_SECONDS_MAX)
    games: int | None = Field(None, ge=1, le=1000)
    bot_level: BotLevel | None = None
    counter: bool | None = None
    rated: bool | None = None
    bots: bool | None = Field(None, description="false: no bots in the club's rooms (fill_bots refused)")
    spectators: bool | None = Field(None, description="false: only those seated at a room watch it")


class ClubUpdate(Request):
    """``PATCH /api/clubs/{id}`` (the owner): what changes; absent fields stay."""

    name: Text | None = Field(None, min_length=1, max_length=40)
    description: Text | None = Field(None, max_length=200)
    by_request: bool | None = Field(None, description="people who have the club's id may ask to join")
    preset: ClubPreset | None = None


class ClubJoin(Request):
    """``POST /api/clubs/{id}/join``: with the invite code, or (no code) a request the owner or an
    admin approves when the club takes requests."""

    code: Text | None = Field(None, max_length=16)


class ClubRoleChange(Request):
    """``POST /api/clubs/{id}/members/{account_id}``: approve a request (``member``) or, the owner
    only, make a member an admin or an admin a member."""

    role: Literal["member", "admin"] = "member"


class ClubHandOver(Request):
    """``POST /api/clubs/{id}/owner``: the owner hands the club to a member (and becomes an admin)."""

    account_id: Text = Field(min_length=1, max_length=32)


# ---- events (issue 30): HTTP bodies -------------------------------------------------------------


class EventCreate(Request):
    """``POST /api/events``: a new event of a registered account, for its club (``club``: members
    only) or as an unlisted link. Without ``starts_at`` it is open at once; ``ends_at`` defaults to a
    day after the start. A duplicate event: ``boards`` and ``bot_level`` (default 8, ``expert``).
    A kind's own settings are checked by its entry in ``niugui.server.events.kinds.EVENT_KINDS``."""

    kind: Literal["duplicate", "swiss"]
    name: Text = Field(min_length=1, max_length=60)
    boards: int | None = Field(None, ge=1, le=32, description="a duplicate event's number of boards")
    bot_level: BotLevel | None = Field(None, description="the event's bots")
    club: Text | None = Field(None, min_length=1, max_length=16, description="the club whose event it is")
    starts_at: float | None = Field(None, ge=0, description="Unix seconds; absent: now")
    ends_at: float | None = Field(None, ge=0, description="Unix seconds; absent: a day after the start")
    rounds: int | None = Field(None, ge=1, le=20, description="a Swiss's rounds (default 3)")
    games: int | None = Field(None, ge=1, le=16, description="a Swiss's games per round (default 1)")
    place_points: list[int] | None = Field(
        None,
        min_length=4,
        max_length=4,
        description="a Swiss's points for 上游, 二游, 三游, 下游 (default 3, 2, 1, 0), not increasing",
    )
