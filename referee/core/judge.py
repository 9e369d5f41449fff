"""The timing judge: who finished first, and when it is safe to say so.

Two pieces, both pure:

* :func:`first_to_finish` is the tie rule every race uses (Stroop calls,
  Goop shouts): the call completed first wins; calls completed within the tie
  window of each other are tied and the one begun first wins, with the same
  window; calls tied on both are a draw.
* :class:`Judge` feeds a game its events in time order, however late each
  stream reports them. Each stream says how far it has heard (a watermark,
  :class:`~referee.core.events.Heard`); an event is passed to the game only once
  every stream has heard past it, so a call that ended earlier but was
  reported later (a slower microphone, a longer recogniser delay) is still
  judged in its place. Replay gets the same result by sorting.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from typing import Any, Iterable, Protocol, Sequence


def _us(seconds: float) -> int:
    """Whole microseconds, so that window comparisons are exact."""
    return round(seconds * 1_000_000)


@dataclass(frozen=True)
class Race:
    """The outcome of :func:`first_to_finish`."""

    winners: tuple
    """One entry for a win, several for a draw."""
    decided_by: str
    """``'alone'`` (no rival), ``'completion'`` (finished first),
    ``'beginning'`` (finished together, began first) or ``'draw'``."""
    rivals: tuple
    """The other entrants, in the order they finished."""


def first_to_finish(entries: Sequence[Any], window: float) -> Race:
    """Apply the tie rule to entries with ``.start`` and ``.end`` (seconds).

    ``window`` is the tie window in seconds: two ends (or starts) no more
    than ``window`` apart count as the same moment."""
    if not entries:
        raise ValueError("a race needs at least one entry")
    w = _us(window)
    ordered = sorted(entries, key=lambda e: (e.end, e.start))
    first_end = _us(ordered[0].end)
    finished = [e for e in ordered if _us(e.end) - first_end <= w]

    def rivals(won: list) -> tuple:
        return tuple(e for e in ordered if all(e is not w for w in won))

    if len(ordered) == 1:
        return Race(tuple(ordered), "alone", ())
    if len(finished) == 1:
        return Race(tuple(finished), "completion", rivals(finished))
    first_start = min(_us(e.start) for e in finished)
    began = [e for e in finished if _us(e.start) - first_start <= w]
    if len(began) == 1:
        return Race(tuple(began), "beginning", rivals(began))
    return Race(tuple(began), "draw", rivals(began))


class Game(Protocol):
    """What the judge drives: a game's pure state machine."""

    def time_key(self, event: Any) -> tuple:
        """The event's place in time: a tuple whose first item is seconds."""

    def feed(self, event: Any) -> list:
        """Take the next event in time order; return verdicts."""

    def advance(self, now: float) -> list:
        """Everything up to ``now`` (seconds) has been fed; return verdicts
        that this settles (for instance a race whose tie window has closed)."""

    def finish(self) -> list:
        """No more events: settle what is open and return the verdicts."""


class LateReport(Exception):
    """A stream reported an event earlier than its own watermark."""


class Judge:
    """Feeds ``game`` the events of several streams in time order.

    ``push`` an event from a stream, tell it how far a stream has ``heard``;
    both return the verdicts that become certain. ``finish`` ends the game.
    """

    def __init__(self, game: Game, streams: Iterable[str]) -> None:
        self.game = game
        self._heard: dict[str, float] = {s: -math.inf for s in streams}
        if not self._heard:
            raise ValueError("the judge needs at least one stream")
        self._queue: list[tuple[tuple, int, Any]] = []
        self._count = 0
        self._fed_upto = -math.inf

    @property
    def safe_time(self) -> float:
        """Seconds: every stream has heard at least this far."""
        return min(self._heard.values())

    def push(self, stream: str, event: Any) -> list:
        key = self.game.time_key(event)
        if stream not in self._heard:
            raise KeyError(f"unknown stream {stream!r}")
        if key[0] < self._heard[stream]:
            raise LateReport(
                f"stream {stream!r} reported an event at {key[0]:.3f} s "
                f"after saying it had heard up to {self._heard[stream]:.3f} s"
            )
        heapq.heappush(self._queue, (key, self._count, event))
        self._count += 1
        return self._release()

    def heard(self, stream: str, upto: float) -> list:
        if stream not in self._heard:
            raise KeyError(f"unknown stream {stream!r}")
        self._heard[stream] = max(self._heard[stream], upto)
        return self._release()

    def finish(self) -> list:
        for s in self._heard:
            self._heard[s] = math.inf
        out = self._release()
        return out + self.game.finish()

    def _release(self) -> list:
        safe = self.safe_time
        out: list = []
        while self._queue and self._queue[0][0][0] <= safe:
            _, _, event = heapq.heappop(self._queue)
            out += self.game.feed(event)
        if safe > self._fed_upto and math.isfinite(safe):
            self._fed_upto = safe
            out += self.game.advance(safe)
        return out
