"""What an account consents to, kept with the account rather than on a device (issue 33): whose
chat it mutes (finding 5: the page asks for the list on every device) and, for a bot account, who may
invite it to a table and to how many at once (finding 6: the reference bot client sets it from its
flags). Every route needs a session; the directory's copy of a connected account is kept current."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Header
from starlette.concurrency import run_in_threadpool

from ..friends_store import MAX_MUTES, friends_of
from ..http_errors import fail
from ..protocol import InviteConsent
from ..services import AppServicesDep
from ..store import AccountRow
from .friends import AccountId, keep, other_than, signed_in, socials

router = APIRouter()


@router.get("/api/me/mutes")
async def my_mutes(svc: AppServicesDep, authorization: str | None = Header(None)) -> dict[str, Any]:
    """``{"muted": [account id, ...]}``: whose quick chat you do not see, on any of your devices."""

    def read(authorization: str | None) -> list[str]:
        return friends_of(svc.store).mutes(signed_in(svc, authorization).id)

    return {"muted": await run_in_threadpool(read, authorization)}


async def _mute(
    svc: AppServicesDep, authorization: str | None, account_id: str, muted: bool
) -> dict[str, Any]:
    def write(authorization: str | None) -> list[str]:
        me = other_than(svc, authorization, account_id)
        now = friends_of(svc.store).mute(me.id, account_id, muted)
        if now is None:
            raise fail(422, "too_many_mutes", f"you may mute at most {MAX_MUTES} players; unmute some first")
        return now

    return {"muted": await run_in_threadpool(write, authorization)}


@router.put("/api/me/mutes/{account_id}")
async def mute(
    svc: AppServicesDep, account_id: str = AccountId, authorization: str | None = Header(None)
) -> Any:
    """Mute ``account_id``'s quick chat on all your devices: ``{"muted": [...]}``. 404 ``no_player``,
    422 ``not_yourself``."""
    return await _mute(svc, authorization, account_id, True)


@router.delete("/api/me/mutes/{account_id}")
async def unmute(
    svc: AppServicesDep, account_id: str = AccountId, authorization: str | None = Header(None)
) -> Any:
    """Hear ``account_id`` again: ``{"muted": [...]}``."""
    return await _mute(svc, authorization, account_id, False)


@router.get("/api/me/invitations")
async def my_consent(svc: AppServicesDep, authorization: str | None = Header(None)) -> InviteConsent:
    """Who may invite this bot account and to how many tables at once. 403 ``bot_only`` for a
    person's account (a person answers each invitation), as for ``PUT``."""

    def read(authorization: str | None) -> InviteConsent:
        social = friends_of(svc.store).social(bot_only(svc, authorization).id)
        return InviteConsent(invitable_by=social.invite_from, max_tables=social.invite_tables)

    return await run_in_threadpool(read, authorization)


@router.put("/api/me/invitations")
async def set_consent(
    body: InviteConsent, svc: AppServicesDep, authorization: str | None = Header(None)
) -> InviteConsent:
    """A bot account's owner chooses who may invite it (``nobody``, ``friends``, ``anyone``) and to at
    most how many unfinished tables at once; the server refuses the rest (``not_invitable``,
    ``invite_limit``). 403 ``bot_only`` for a person's account (a person answers each invitation)."""

    def write(authorization: str | None) -> dict[str, Any]:
        me = bot_only(svc, authorization)
        friends_of(svc.store).consent(me.id, body.invitable_by, body.max_tables)
        return socials(svc, me.id)

    keep(svc, await run_in_threadpool(write, authorization))
    return body


def bot_only(svc: AppServicesDep, authorization: str | None) -> AccountRow:
    """The signed-in account, which must be a bot account's (403 ``bot_only``)."""
    me = signed_in(svc, authorization)
    if not me.bot:
        raise fail(403, "bot_only", "only a bot account's invitations are set here")
    return me
