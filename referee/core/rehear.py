"""A resumed recording heard again from a little before where its journal stops.

``referee resume --audio GAME.wav`` goes on in the recording the game was played on, some
time before the journal's last happening (``referee.app.recorded.REHEAR``; with a virtual
deck, from the start), so that what the crash cut off is heard whole, and heard as before.
The table settles the journal only up to where the recording is heard again from
(``TableOptions.rehear``), so that a call the crash kept out of the journal though it ended
before the last happening (reported after a rival's) is judged in its place as it comes.
What each microphone says again is already in the journal: :class:`Reheard` tells the table
which utterances those are (by each stream's last journaled happening), and which verdicts
the journal already holds (those the game gives again as the recording goes on), and which
notes (one mic's "who was that?", a call counted for nobody), so that nothing is judged,
journaled or announced twice.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from typing import Any, Iterable, Sequence

from referee.core.clock import seconds
from referee.core.events import Deal

#: Seconds: an utterance heard again may begin this much later than the journaled happening
#: it is (the recogniser, started afresh, times speech a little differently).
TOLERANCE = 0.3


class Reheard:
    """What a resumed recording hears again. ``history``: the journal's happenings;
    ``channels``: the table's listening streams ('dealer', 'table' or a player);
    ``time_key``: the game's (its first element in microseconds)."""

    def __init__(self, history: Sequence[Any], channels: list[str], time_key) -> None:
        self.upto: dict[str, float] = {}
        """Stream -> seconds: the end (or time) of its last journaled happening."""
        self.dropped = 0
        """Utterances not judged again."""
        self.deals = sum(isinstance(h, Deal) for h in history)
        """A virtual deck's deals the journal holds, not yet made again (a game with the
        referee's own deck is heard again from the recording's start: its deals are timed by
        what is heard, as they were)."""
        self._verdicts: Counter = Counter()
        self._notes: Counter = Counter()
        for h in history:
            stream = _stream(h, channels)
            if stream is None:
                continue
            t = max(seconds(time_key(h)[0]), getattr(h, "end", -math.inf))
            self.upto[stream] = max(self.upto.get(stream, -math.inf), t)

    def heard_before(self, stream: str, start: float) -> bool:
        """An utterance of ``stream`` beginning at ``start`` (seconds) is one the journal
        holds: it begins before the end of the stream's last journaled happening (or no
        later than ``TOLERANCE`` after it: the same speech, timed afresh)."""
        if start < self.upto.get(stream, -math.inf) + TOLERANCE:
            self.dropped += 1
            return True
        return False

    def journaled(self, lines: Iterable[str]) -> None:
        """The journal's verdict lines (as written) that the rebuilt game has not given yet,
        and its notes."""
        for line in lines:
            self._verdicts[line] += 1
            o = json.loads(line)
            if isinstance(o, dict) and o.get("type") == "note":
                self._notes[o.get("text")] += 1

    def noted(self, text: str) -> bool:
        """A note the journal holds already (once per journaled copy): what made it is
        heard again (a note's time in the journal is when it was written, not its text's)."""
        if self._notes[text] > 0:
            self._notes[text] -= 1
            return True
        return False

    def already(self, line: str) -> bool:
        """A verdict the journal holds already (once per journaled copy)."""
        if self._verdicts[line] > 0:
            self._verdicts[line] -= 1
            return True
        return False


def _stream(h: Any, channels: list[str]) -> str | None:
    """The listening stream a happening was heard on, if it was heard."""
    player = None if isinstance(h, Deal) else getattr(h, "player", None)
    if player in channels:
        return player
    for shared in ("dealer", "table"):
        if shared in channels:
            return shared
    return None
