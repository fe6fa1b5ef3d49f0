"""The WebSocket protocol: one pydantic model per message, and the JSON schemas generated from them.

Every message is a JSON object with a ``type``. Client messages carry an ``id`` (the client's own
id for that request), answered by exactly one ``ack`` or ``error`` with the same id. Table events
carry a per-table sequence number ``seq``. ``docs/protocol.md`` embeds the schemas generated here:
``python -m niugui.server.protocol docs/protocol.md`` rewrites that section, and a test fails when
the committed document is stale.

>>> message = parse_client_message({"type": "play", "id": "c1", "table": "t1", "cards": ["D4"]})
>>> type(message).__name__, message.cards
('Play', ['D4'])
"""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

PROTOCOL_VERSION = 1
MAX_FRAME_BYTES = 16 * 1024
"""Frames larger than this are refused (``error`` with code ``frame_too_large``)."""

ClientId = Annotated[str, Field(min_length=1, max_length=64, description="the client's id for this request")]
TableId = Annotated[str, Field(min_length=1, max_length=32, description="a table's id")]
Seat = Annotated[int, Field(ge=0, le=3, description="a seat 0..3; play goes 0→1→2→3→0 (R7)")]
CardCode = Annotated[str, Field(min_length=1, max_length=8, description="a card code of R6, e.g. S3, HT, BJ")]
BotLevel = Literal["random", "basic", "expert", "search"]

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
    "server_error",  # a bug on the server; the connection stays up
]


class Message(BaseModel):
    model_config = ConfigDict(extra="forbid")


# ---- client → server --------------------------------------------------------------------------


class TableSettings(Message):
    """A table's settings, chosen by its creator (changeable between games)."""

    name: str = Field("", max_length=40, description="shown in the lobby")
    private: bool = Field(False, description="private tables are not listed; joining needs the code")
    turn_seconds: float = Field(20.0, ge=0.5, le=600, description="turn timer; on expiry 托管 plays")
    bot_level: BotLevel = Field("expert", description="the bot that fills empty seats")
    games: int | None = Field(None, ge=1, le=1000, description="games to play; null: endless")


class Ping(Message):
    """Check the connection; answered by an ack."""

    type: Literal["ping"]
    id: ClientId


class ListTables(Message):
    """The lobby: ack data ``{"tables": [TableSummary...]}`` (public tables not finished)."""

    type: Literal["list_tables"]
    id: ClientId


class CreateTable(Message):
    """Create a table; ack data ``{"table": TableSummary}`` (with ``code`` for a private table).
    The creator is subscribed to the table (as with ``watch``) but does not sit."""

    type: Literal["create_table"]
    id: ClientId
    settings: TableSettings = TableSettings()


class Watch(Message):
    """Subscribe to a table's events (as a spectator, or in your own seat if you hold one).

    Reconnecting: send ``last_seq``, the last event seq you saw; the server replays the events
    after it (``replay: true``) or, when they are too many, sends a ``snapshot``. Without
    ``last_seq`` you get a ``snapshot``. Ack data ``{"seat": your seat or null}``.
    """

    type: Literal["watch"]
    id: ClientId
    table: TableId
    code: str | None = Field(None, max_length=16, description="join code of a private table")
    last_seq: int | None = Field(None, ge=0)


class Sit(Message):
    """Take a seat (a free one when ``seat`` is null). Also subscribes you to the table.
    When four seats are taken and every human is ready the game starts (sitting makes you ready)."""

    type: Literal["sit"]
    id: ClientId
    table: TableId
    seat: Seat | None = None
    code: str | None = Field(None, max_length=16)


class Stand(Message):
    """Give up your seat. During a game, while you still hold cards, this is an escape (R35, −9)."""

    type: Literal["stand"]
    id: ClientId
    table: TableId


class Leave(Message):
    """Stand (if seated; see ``stand``) and stop receiving the table's events."""

    type: Literal["leave"]
    id: ClientId
    table: TableId


class Ready(Message):
    """Ready for the next game; it starts when all four seats are taken and every human is ready."""

    type: Literal["ready"]
    id: ClientId
    table: TableId


class Play(Message):
    """Play cards (出牌) in your seat; refused with the rule it breaks (``illegal_move``)."""

    type: Literal["play"]
    id: ClientId
    table: TableId
    cards: list[CardCode] = Field(min_length=1, max_length=14)


class Pass(Message):
    """Pass (过门); not allowed on a free lead (R27)."""

    type: Literal["pass"]
    id: ClientId
    table: TableId


class Autoplay(Message):
    """Turn 托管 on or off for your seat (any action of yours also turns it off)."""

    type: Literal["autoplay"]
    id: ClientId
    table: TableId
    on: bool


class FillBots(Message):
    """Creator only: bots (of the table's ``bot_level``) take every empty seat."""

    type: Literal["fill_bots"]
    id: ClientId
    table: TableId


class UpdateSettings(Message):
    """Creator only, not during a game: replace the table's settings."""

    type: Literal["update_settings"]
    id: ClientId
    table: TableId
    settings: TableSettings


ClientMessage = Annotated[
    Ping
    | ListTables
    | CreateTable
    | Watch
    | Sit
    | Stand
    | Leave
    | Ready
    | Play
    | Pass
    | Autoplay
    | FillBots
    | UpdateSettings,
    Field(discriminator="type"),
]
CLIENT_TYPES: dict[str, type[Message]] = {
    cls.model_fields["type"].annotation.__args__[0]: cls  # type: ignore[union-attr]
    for cls in (
        Ping,
        ListTables,
        CreateTable,
        Watch,
        Sit,
        Stand,
        Leave,
        Ready,
        Play,
        Pass,
        Autoplay,
        FillBots,
        UpdateSettings,
    )
}

# ---- what the server sends ----------------------------------------------------------------------


class Account(Message):
    id: str
    nickname: str
    username: str | None = Field(None, description="set for a registered account")


class PlayerRef(Message):
    """Who sits in a seat: an account (``id``) or a bot (``bot`` names its level)."""

    id: str | None
    nickname: str
    bot: str | None = None


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
    status: Literal["waiting", "playing", "between", "finished"]
    seats: list[PlayerRef | None]
    spectators: int
    games_played: int
    settings: TableSettings


class TableState(Message):
    """The table around the game, sent with every event."""

    id: TableId
    name: str
    private: bool
    code: str | None
    creator: str
    settings: TableSettings
    status: Literal["waiting", "playing", "between", "finished"]
    seats: list[SeatState]
    totals: list[int] = Field(description="running totals per seat (R36)")
    games_played: int
    game_no: int = Field(description="the current (or last) game's number, 1-based; 0 before the first")
    game_id: int | None = Field(description="the current (or last) game's id (records: /api/games/{id})")
    deadline: float | None = Field(description="UNIX time when the seat to move times out")
    commitment: str | None = Field(description="SHA-256 commitment of the current deal (hex)")
    flip: FlipInfo | None = Field(description="the 翻牌 that chose this game's first drawer, if any")
    you: Seat | None = Field(description="the recipient's seat, null for a spectator")


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


By = Literal["player", "bot", "autoplay", "timeout"]


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
    reason: Literal["left", "grace"]


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
    first_drawer_by: Literal["flip", "previous_first"] = Field(description="R8")
    commitment: str = Field(description="sha256 hex of salt:deck, published before the first action")


class EvPlay(Message):
    kind: Literal["play"]
    seat: Seat
    cards: list[CardCode]
    combo: str
    by: By


class EvPass(Message):
    kind: Literal["pass"]
    seat: Seat
    by: By


class EvEscape(Message):
    kind: Literal["escape"]
    seat: Seat
    reason: Literal["left", "grace"]


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


class EvTableFinished(Message):
    kind: Literal["table_finished"]
    totals: list[int]


TableEvent = Annotated[
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
    | EvAutoplay
    | EvPresence
    | EvGameOver
    | EvTableFinished,
    Field(discriminator="kind"),
]


class Welcome(Message):
    """First message on a connection: who you are and the tables where you hold a seat."""

    type: Literal["welcome"]
    protocol: int
    account: Account
    seats: list[dict[str, Any]] = Field(description='[{"table": id, "seat": n}...]: rejoin with watch')


class Ack(Message):
    """The request ``id`` succeeded. ``seq``: the last event it produced, if any."""

    type: Literal["ack"]
    id: str
    seq: int | None = None
    data: dict[str, Any] | None = None


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


ServerMessage = Annotated[Welcome | Ack | Error | Event | Snapshot, Field(discriminator="type")]

CLIENT_ADAPTER: TypeAdapter[Any] = TypeAdapter(ClientMessage)
SERVER_ADAPTER: TypeAdapter[Any] = TypeAdapter(ServerMessage)


def parse_client_message(data: Any) -> Message:
    """Validate a decoded client frame; raises ``pydantic.ValidationError``."""
    message: Message = CLIENT_ADAPTER.validate_python(data)
    return message


# ---- HTTP bodies ------------------------------------------------------------------------------


class GuestRequest(Message):
    nickname: str = Field(min_length=1, max_length=24)


class RegisterRequest(Message):
    username: str = Field(min_length=3, max_length=32, pattern=r"^[A-Za-z0-9_.-]+$")
    password: str = Field(min_length=8, max_length=256)
    nickname: str | None = Field(None, min_length=1, max_length=24)


class LoginRequest(Message):
    username: str = Field(min_length=1, max_length=32)
    password: str = Field(min_length=1, max_length=256)


class SessionResponse(Message):
    token: str = Field(description="send as ?token= on /ws, or Authorization: Bearer on HTTP")
    account: Account


class ReplaySeat(Message):
    """Who sat in a seat, as the record's ``meta`` says (both null when it does not say)."""

    nickname: str | None = Field(None, max_length=40)
    bot: str | None = Field(None, max_length=16, description="a bot's level, when a bot played the seat")


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


# ---- the document -------------------------------------------------------------------------------

BEGIN = "<!-- BEGIN GENERATED SCHEMAS: python -m niugui.server.protocol docs/protocol.md -->"
END = "<!-- END GENERATED SCHEMAS -->"


def schemas_markdown() -> str:
    """The generated part of docs/protocol.md: the JSON schema of every message."""
    parts = [BEGIN, ""]
    sections = [
        ("Client → server", CLIENT_ADAPTER.json_schema()),
        ("Server → client", SERVER_ADAPTER.json_schema(by_alias=True)),
        (
            "HTTP bodies",
            {
                "GuestRequest": GuestRequest.model_json_schema(),
                "RegisterRequest": RegisterRequest.model_json_schema(),
                "LoginRequest": LoginRequest.model_json_schema(),
                "SessionResponse": SessionResponse.model_json_schema(),
                "Replay": Replay.model_json_schema(by_alias=True),
                "ReplayError": ReplayError.model_json_schema(),
            },
        ),
    ]
    for title, schema in sections:
        parts += [f"### {title}", "", "```json", json.dumps(schema, indent=1, ensure_ascii=False), "```", ""]
    parts.append(END)
    return "\n".join(parts)


def render_document(text: str) -> str:
    """``text`` with its generated section replaced by the current schemas."""
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[:start] + schemas_markdown() + text[end:]


def main(argv: list[str]) -> int:
    path = argv[0] if argv else "docs/protocol.md"
    with open(path, encoding="utf-8") as file:
        text = file.read()
    with open(path, "w", encoding="utf-8") as file:
        file.write(render_document(text))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
