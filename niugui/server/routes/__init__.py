"""The HTTP routes, one :class:`~fastapi.APIRouter` per job: :mod:`.health` (``/healthz``,
``/metrics``), :mod:`.accounts` (guests, registration, sessions), :mod:`.tables` (the lobby, a
table's ledger, your seats, a game's record), :mod:`.community` (leaderboard, profiles, histories)
and :mod:`.replays`."""
