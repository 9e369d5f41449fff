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

from referee.core.clock import seconds, us
from referee.core.errors import RefereeError


@dataclass(frozen=True)
class Race:
    """The outcome of :func:`first_to_finish`."""

    winners: tuple
    """One entry for a win, one per player for a draw."""
    decided_by: str
    """``'alone'`` (no other player in the race), ``'completion'`` (finished
    first), ``'beginning'`` (finished together, began first) or ``'draw'``."""
    rivals: tuple
    """The other players' entries, in the order they finished."""
    margin_us: int | None = None
    """Microseconds: for ``'completion'``, how much earlier the winner finished
    than the nearest other player; for ``'beginning'``, how much earlier the
    winner began than the nearest other player tied on completion."""


def _who(entry: Any) -> Any:
    """The player an entry is by; an entry without one is its own player."""
    player = getattr(entry, "player", None)
    return id(entry) if player is None else player


def first_to_finish(entries: Sequence[Any], window: float) -> Race:
    """Apply the tie rule to entries with ``.start`` and ``.end`` (seconds)
    and, usually, ``.player``.

    ``window`` is the tie window in seconds: two ends (or starts) no more
    than ``window`` apart count as the same moment. Every comparison is on
    whole microseconds. Nobody races himself: when every entry still in the
    race is one player's, that player has won (RULINGS Stroop 7)."""
    if not entries:
        raise ValueError("a race needs at least one entry")
    w = us(window)
    ordered = sorted(entries, key=lambda e: (us(e.end), us(e.start)))
    first = ordered[0]

    def others(player: Any) -> tuple:
        return tuple(e for e in ordered if _who(e) != player)

    if len({_who(e) for e in ordered}) == 1:
        return Race((first,), "alone", ())
    first_end = us(first.end)
    finished = [e for e in ordered if us(e.end) - first_end <= w]
    if len({_who(e) for e in finished}) == 1:
        rivals = others(_who(first))
        return Race((first,), "completion", rivals, us(rivals[0].end) - first_end)
    first_start = min(us(e.start) for e in finished)
    began = [e for e in finished if us(e.start) - first_start <= w]
    if len({_who(e) for e in began}) == 1:
        winner = min(began, key=lambda e: (us(e.start), us(e.end)))
        rivals = others(_who(winner))
        nearest = min(us(e.start) for e in finished if _who(e) != _who(winner))
        return Race((winner,), "beginning", rivals, nearest - us(winner.start))
    seen: set = set()
    tied = tuple(e for e in began if not (_who(e) in seen or seen.add(_who(e))))
    return Race(tied, "draw", tuple(e for e in ordered if _who(e) not in seen))


class Game(Protocol):
    """What the judge drives: a game's pure state machine."""

    def time_key(self, event: Any) -> tuple:
        """The event's place in time: a tuple whose first item is whole
        microseconds on the audio clock."""

    def feed(self, event: Any) -> list:
        """Take the next event in time order; return verdicts."""

    def advance(self, now: int) -> list:
        """Everything up to ``now`` (microseconds) has been fed; return verdicts
        that this settles (for instance a race whose tie window has closed)."""

    def finish(self) -> list:
        """No more events: settle what is open and return the verdicts."""


class LateReport(RefereeError):
    """A stream reported an event earlier than its own watermark."""


class Judge:
    """Feeds ``game`` the events of several streams in time order.

    ``push`` an event from a stream, tell it how far a stream has ``heard``;
    both return the verdicts that become certain. ``finish`` ends the game.
    """

    def __init__(self, game: Game, streams: Iterable[str]) -> None:
        self.game = game
        self._heard: dict[str, float] = {s: -math.inf for s in streams}
        """Microseconds (or an infinity): how far each stream has heard."""
        if not self._heard:
            raise ValueError("the judge needs at least one stream")
        self._queue: list[tuple[tuple, int, Any]] = []
        self._count = 0
        self._fed_upto = -math.inf

    @property
    def streams(self) -> list[str]:
        """The streams the judge waits for, in the order it was given them."""
        return list(self._heard)

    @property
    def safe_time(self) -> float:
        """Seconds: every stream has heard at least this far."""
        return seconds(self._safe) if math.isfinite(self._safe) else self._safe

    @property
    def _safe(self) -> float:
        return min(self._heard.values())

    def push(self, stream: str, event: Any) -> list:
        key = self.game.time_key(event)
        if stream not in self._heard:
            raise KeyError(f"unknown stream {stream!r}")
        if key[0] < self._heard[stream]:
            raise LateReport(
                f"stream {stream!r} reported an event at {seconds(key[0]):.3f} s "
                f"after saying it had heard up to {seconds(self._heard[stream]):.3f} s"
            )
        heapq.heappush(self._queue, (key, self._count, event))
        self._count += 1
        return self._release()

    def heard(self, stream: str, upto: float) -> list:
        """``stream`` has heard up to ``upto`` (seconds)."""
        if stream not in self._heard:
            raise KeyError(f"unknown stream {stream!r}")
        self._heard[stream] = max(self._heard[stream], us(upto))
        return self._release()

    def finish(self) -> list:
        for s in self._heard:
            self._heard[s] = math.inf
        out = self._release()
        return out + self.game.finish()

    def _release(self) -> list:
        safe = self._safe
        out: list = []
        while self._queue and self._queue[0][0][0] <= safe:
            _, _, event = heapq.heappop(self._queue)
            out += self.game.feed(event)
        if safe > self._fed_upto and math.isfinite(safe):
            self._fed_upto = safe
            out += self.game.advance(safe)
        return out
