"""The live table's settings: the virtual deck's timers, the clock offset of a resumed
game, and each game's prompts and dialogue timings (see :class:`~referee.core.table.Table`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class TableOptions:
    """How one game is run at the table; every setting has a default."""

    deal_pause: float = 1.5
    """Seconds after a round is decided before the virtual deck deals again."""
    round_timeout: float = 12.0
    """Seconds without a winner before the virtual deck deals the next card."""
    offset: float = 0.0
    """Seconds added to every audio time (a resumed game continues its clock)."""
    confirm: float = 2.0
    """Goop count: seconds to correct a number after it is read back."""
    hears_itself: bool = True
    """The mics can pick up the referee's voice (live play): drop what they
    hear of its announcements. False for recordings it never spoke into."""
    lock_reminder: float = 0.0
    """Goop with three players: remind the table of the lock rule after this
    many seconds with nothing heard (0: never)."""
    prize_seed: int = 0
    """GOPS with the referee's own prize pile: the seed of its draws."""
    bid_question: float = 10.0
    """GOPS: seconds of quiet before the referee asks for a missing bid."""
    reask: float = 10.0
    """Soccer: ask again for the play awaited after this many quiet seconds (0: never)."""
    table_talk: Any = None
    """Swoop: ``said -> bool``, true for what the grammar marks as table talk (never
    asked to be said again); None: nothing is."""
    settle: float = 0.0
    """A resumed game: seconds between saying where it stands and the virtual deck's next deal."""
    rehear: float | None = None
    """A resumed game heard again from this second of its recording on (see :mod:`.rehear`)."""
