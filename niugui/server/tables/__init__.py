"""One table of the server, split by responsibility (docs: ARCHITECTURE.md, "server"):

- :mod:`.state` — the table's state and :func:`reduce`, which applies a stored event (pure);
- :mod:`.commands` — a request → the events it causes, checked with the engine (pure);
- :mod:`.fanout` — each recipient's frame, built from the protocol models, and the replay buffer;
- :mod:`.clock` — what the table waits for (turn timers, bots' moves, grace periods) and its timers;
- :mod:`.saved_state` — the state before a deal, stored with the game: a table is rebuilt from it;
- :mod:`.table` — the glue: command → store → reduce → fan-out → clock, one job at a time.
"""

from .bots import ExecutorBots
from .clock import Clock, Due, turn_due
from .commands import Fault, Step
from .fanout import Client, FanOut, Sent, is_bot_account
from .state import Deal, SeatSlot, Stored, TableModel, reduce
from .table import Answer, Reader, Reply, Services, Table, no_reply, read_inline

__all__ = [
    "Answer",
    "Client",
    "Clock",
    "Deal",
    "Due",
    "ExecutorBots",
    "FanOut",
    "Fault",
    "Reader",
    "Reply",
    "SeatSlot",
    "Sent",
    "Services",
    "Step",
    "Stored",
    "Table",
    "TableModel",
    "is_bot_account",
    "no_reply",
    "read_inline",
    "reduce",
    "turn_due",
]
