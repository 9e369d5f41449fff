"""Goop: the race to "Goop!", the end-of-hand count and the game to 100.

The rules in our own words (RULINGS.md, Goop):

* Everyone plays at once. A hand ends when a player completes the shout
  "Goop!". Two shouts racing are settled by the same tie rule as Stroop calls
  (completed first, then begun first, within the tie window); a full tie
  credits every tied player as a gooper.
* Then each player reports, in seat order, the cards of theirs in the centre
  (0 to 52, +1 each) and the cards left in their Goop pile (0 to 13, -2 each).
  A later report for the same number corrects the earlier one. A gooper who
  reports cards left made a **false Goop**: announced, and scored as reported.
* The hand is scored at the tally (the count is done), or when the next hand
  starts or the game ends with the count complete.
* The game ends at the end of the hand in which someone reaches the target
  (100); the highest total wins. A tie at the top plays another hand, and so
  on until the top is not tied: the highest total then wins, even below 100.
* Next hand: decks are picked lowest total first (ties in seat order), and
  the gooper says "Go".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from referee.core.errors import RefereeError
from referee.core.events import Asked, Command, Count, Shout, Tally
from referee.core.judge import first_to_finish
from referee.core.options import OptionError, check_known, tie_window_ms
from referee.core.clock import seconds, us, us_from_ms

CENTRE_MAX, LEFT_MAX = 52, 13
FIELDS = ("centre", "left")


class GoopError(RefereeError, ValueError):
    """An event Goop cannot take (an unknown player, a count out of range)."""


@dataclass(frozen=True)
class GoopOptions:
    tie_window_ms: float = 40.0
    """Milliseconds: shouts whose ends (or starts) are this close are together."""
    target: int = 100
    """Points: the game ends at the end of the hand in which someone reaches it."""

    @classmethod
    def from_dict(cls, options: Mapping) -> GoopOptions:
        check_known("Goop", options, {"tie_window_ms", "target"})
        window = tie_window_ms(options, cls.tie_window_ms)
        target = options.get("target", cls.target)
        if isinstance(target, bool) or not isinstance(target, int) or target < 1:
            raise OptionError(f"target must be a whole number of points, not {target!r}")
        return cls(window, target)


# --- Verdicts ------------------------------------------------------------------

@dataclass(frozen=True)
class Gooped:
    """The hand is over: who gooped."""

    hand: int
    goopers: tuple[str, ...]
    """One player, or several after a full tie."""
    decided_by: str
    """``'alone'``, ``'beginning'`` or ``'draw'`` (a full tie), as for Stroop."""
    shout: Shout
    """The winning shout (the first of the tied ones)."""
    rivals: tuple[Shout, ...] = ()
    margin_us: int | None = None
    """Microseconds: for ``'beginning'``, how much earlier the gooper began
    than the nearest rival; None without a rival."""


@dataclass(frozen=True)
class ShoutJudged:
    """A shout that did not end a hand."""

    hand: int
    shout: Shout
    reason: str


@dataclass(frozen=True)
class Counted:
    """A number of the end-of-hand count was taken (or corrected)."""

    hand: int
    player: str
    field: str
    value: int
    corrected: int | None = None
    """The value it replaced, for a correction."""


@dataclass(frozen=True)
class HandOver:
    """A scored hand and the standings after it."""

    hand: int
    goopers: tuple[str, ...]
    counts: Mapping[str, Mapping[str, int]]
    """Player -> {"centre": n, "left": n}."""
    points: Mapping[str, int]
    """This hand's points: centre - 2 * left."""
    totals: Mapping[str, int]
    false_goop: tuple[str, ...] = ()
    """Goopers who reported cards left."""
    missing: tuple[str, ...] = ()
    """``'player field'`` for numbers never reported (scored as 0)."""
    pick_order: tuple[str, ...] = ()
    """Who picks a deck first for the next hand: lowest total first."""
    says_go: str = ""
    """Who says "Go" for the next hand: the gooper."""
    game_over: bool = False
    tied_at_top: tuple[str, ...] = ()
    """Players tied at the top once someone has reached the target: another hand is played."""


@dataclass(frozen=True)
class GoopOver:
    totals: Mapping[str, int]
    winner: str | None
    """None when the game was ended before anyone won."""
    hands: int


@dataclass(frozen=True)
class GoopNote:
    """Something the referee noticed that changed nothing."""

    at: float
    text: str


# --- The state machine -------------------------------------------------------

PLAYING, RACING, COUNTING, OVER = "playing", "racing", "counting", "over"

#: What the referee listens for (phrase kinds) in play, and during the count: numbers only
#: then, and shouts only in play, so neither competes with the other (docs/model-history.md).
PLAY_KINDS = frozenset({"shout", "command"})
COUNT_KINDS = frozenset({"number", "command"})
TRANSITIONS = {
    (PLAYING, "shout"): RACING,
    (RACING, "shout"): RACING,
    (RACING, "window-closed"): COUNTING,
    (COUNTING, "tally"): PLAYING,
    (PLAYING, "end"): OVER,
    (RACING, "end"): OVER,
    (COUNTING, "end"): OVER,
    (OVER, "end"): OVER,
}


class GoopGame:
    """Goop as a pure state machine for :class:`referee.core.judge.Judge`."""

    def __init__(self, players, options: GoopOptions | None = None) -> None:
        if len(players) < 2:
            raise GoopError("Goop needs at least two players")
        if len(set(players)) != len(players):
            raise GoopError("player names must differ")
        self.players = tuple(players)
        self.options = options or GoopOptions()
        self.totals = {p: 0 for p in self.players}
        self.phase = PLAYING
        self.hand = 1
        self.shouts: list[Shout] = []
        self.deadline = 0
        """Microseconds: the shout race closes after this."""
        self.goopers: tuple[str, ...] = ()
        self.counts: dict[str, dict[str, int]] = {}
        self.now = float("-inf")
        """Microseconds: the time of the latest event fed."""
        self.winner: str | None = None
        self.scored = 0
        """Hands scored so far."""
        self.extra_hands = False
        """Someone has reached the target with the top tied: hands go on until it is not."""

    @property
    def listening_for(self) -> frozenset[str]:
        """The phrase kinds to hear now: :data:`COUNT_KINDS` during the count, else
        :data:`PLAY_KINDS`."""
        return COUNT_KINDS if self.phase == COUNTING else PLAY_KINDS

    @staticmethod
    def time_key(event) -> tuple:
        if isinstance(event, Shout):
            return (us(event.end), 0, us(event.start), event.player, event.said)
        if isinstance(event, Count):
            # Two numbers for one field at one instant: the value decides, not the line order.
            return (us(event.at), 1, 0, event.player, event.field, event.value)
        if isinstance(event, (Tally, Command)):
            return (us(event.at), 2, 0, "", getattr(event, "name", "tally"))
        raise GoopError(f"Goop takes shouts, counts, tallies and commands, not {type(event).__name__}")

    def _go(self, happening: str) -> None:
        self.phase = TRANSITIONS[(self.phase, happening)]

    def feed(self, event) -> list:
        t = self.time_key(event)[0]
        out = self.advance(t, strict=True)
        self.now = max(self.now, t)
        if self.phase == OVER:
            return out + [GoopNote(seconds(t), "the game is over")]
        if isinstance(event, Shout):
            return out + self._shout(event)
        if isinstance(event, Count):
            return out + self._count(event)
        if isinstance(event, Tally):
            return out + self._tally(event.at)
        if event.name == "end":
            return out + self.finish()
        if event.name in ("score", "repeat", "new-game", "seats"):
            return out + [Asked(event)]
        return out

    def advance(self, now: int, strict: bool = False) -> list:
        """Settle a shout race whose tie window closed before ``now`` (microseconds)."""
        if self.phase == RACING and (now > self.deadline if strict else now >= self.deadline):
            return self._settle()
        return []

    def finish(self) -> list:
        if self.phase == OVER:
            return []
        out = self._settle() if self.phase == RACING else []
        if self.phase == COUNTING and self.counts:
            out += self._score(final=True)
        self._go("end")
        return out + [GoopOver(dict(self.totals), self.winner, self.scored)]

    # Happenings ------------------------------------------------------------
    def _shout(self, shout: Shout) -> list:
        if shout.player not in self.totals:
            raise GoopError(f"unknown player {shout.player!r}")
        out: list = []
        if self.phase == COUNTING:
            if self._complete():
                out += self._score()     # the next hand has begun
            else:
                return [ShoutJudged(self.hand, shout, "the hand is over: the count is on")]
        if self.phase == OVER:
            return out
        if self.phase == PLAYING:
            self.deadline = us(shout.end) + us_from_ms(self.options.tie_window_ms)
        self.shouts.append(shout)
        self._go("shout")
        return out

    def _settle(self) -> list:
        race = first_to_finish(self.shouts, self.options.tie_window_ms / 1000.0)
        self.goopers = tuple(p for p in self.players if p in {s.player for s in race.winners})
        self._go("window-closed")
        self.counts = {}
        self.shouts = []
        return [Gooped(self.hand, self.goopers, race.decided_by, race.winners[0], race.rivals,
                       race.margin_us)]

    def _count(self, count: Count) -> list:
        if count.player not in self.totals:
            raise GoopError(f"unknown player {count.player!r}")
        if count.field not in FIELDS:
            raise GoopError(f"count field must be 'centre' or 'left', not {count.field!r}")
        top = CENTRE_MAX if count.field == "centre" else LEFT_MAX
        if not 0 <= count.value <= top:
            raise GoopError(f"{count.field} count must be 0 to {top}, not {count.value}")
        if self.phase != COUNTING:
            return [GoopNote(count.at, f"{count.player}'s count of {count.value} came before anyone gooped")]
        mine = self.counts.setdefault(count.player, {})
        before = mine.get(count.field)
        mine[count.field] = count.value
        return [Counted(self.hand, count.player, count.field, count.value, before)]

    def _tally(self, at: float) -> list:
        if self.phase == RACING:
            return []
        if self.phase != COUNTING:
            return [GoopNote(at, "nothing to tally: no one has gooped")]
        return self._score()

    def _complete(self) -> bool:
        return all(f in self.counts.get(p, {}) for p in self.players for f in FIELDS)

    def _score(self, final: bool = False) -> list:
        missing = tuple(f"{p} {f}" for p in self.players for f in FIELDS if f not in self.counts.get(p, {}))
        counts = {p: {f: self.counts.get(p, {}).get(f, 0) for f in FIELDS} for p in self.players}
        points = {p: c["centre"] - 2 * c["left"] for p, c in counts.items()}
        for p, n in points.items():
            self.totals[p] += n
        false_goop = tuple(p for p in self.goopers if counts[p]["left"] > 0)
        order = tuple(sorted(self.players, key=lambda p: (self.totals[p], self.players.index(p))))
        best = max(self.totals.values())
        top = tuple(p for p in self.players if self.totals[p] == best)
        # Once someone has reached the target, the game ends at the first hand whose top is
        # not tied, whatever the totals then (RULINGS Goop 3).
        self.extra_hands = self.extra_hands or best >= self.options.target
        over = self.extra_hands and len(top) == 1
        hand = HandOver(self.hand, self.goopers, counts, points, dict(self.totals), false_goop,
                        missing, order, self.goopers[0] if self.goopers else "",
                        over, top if self.extra_hands and len(top) > 1 else ())
        self.hand += 1
        self.scored += 1
        self.goopers = ()
        self.counts = {}
        self._go("tally")
        if over:
            self.winner = top[0]
            out = [hand]
            if not final:
                out += self.finish()
            return out
        return [hand]
