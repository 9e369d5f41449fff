"""Swoop's events (what happens at the table) and verdicts (what the referee
decides), as frozen values; the rules are in :mod:`referee.core.games.swoop`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

POINTS = {1: 1, 2: 25, 10: 50, 11: 10, 12: 10, 13: 10, **{n: n for n in range(3, 10)}}


def points(ranks) -> int:
    """What cards left in a hand score: J, Q, K 10; A 1; 2 25; 10 50; the rest face value."""
    return sum(POINTS[r] for r in ranks)


# --- Events (happenings at the table) -------------------------------------------

@dataclass(frozen=True)
class Play:
    """A player played ``count`` cards of ``rank`` (1 ace .. 13 king)."""

    player: str
    rank: int
    count: int
    at: float
    """Seconds: when the call was completed."""
    blind: bool = False
    """A face-down card, played without looking."""


@dataclass(frozen=True)
class PickUp:
    player: str
    at: float


@dataclass(frozen=True)
class GoOut:
    """A player said "I'm out"."""

    player: str
    at: float


@dataclass(frozen=True)
class Report:
    """What a player has left at the end of a round: the cards' ranks, or a total."""

    player: str
    at: float
    cards: tuple[int, ...] = ()
    total: int | None = None

    @property
    def value(self) -> int:
        return self.total if self.total is not None else points(self.cards)


# --- Verdicts --------------------------------------------------------------------

@dataclass(frozen=True)
class Played:
    """A play the pile took."""

    round: int
    play: Play
    pile: int
    """Cards in the pile after it (0 after a swoop)."""
    run: int
    """Cards of this rank in a row at the top (before a swoop cleared it)."""
    swoop: str = ""
    """``'ten'`` or ``'four'`` when it swooped the pile, else empty."""
    held: int = 0
    """Cards the player holds now."""
    next: str = ""
    """Whose turn it is now."""


@dataclass(frozen=True)
class Refused:
    """A play or claim the referee did not take; nothing changed."""

    round: int
    player: str
    what: str
    """``'a seven'``, ``'pick up'``, ``"I'm out"``, ``'report'``."""
    reason: str
    next: str = ""


@dataclass(frozen=True)
class PickedUp:
    round: int
    player: str
    cards: int
    """Cards taken from the pile."""
    held: int
    next: str
    blind: int | None = None
    """The rank of the blind card that did not go, if that was why."""


@dataclass(frozen=True)
class WentOut:
    """A player ran out of cards: the round ends; the others report."""

    round: int
    player: str
    to_report: tuple[str, ...]


@dataclass(frozen=True)
class Reported:
    round: int
    report: Report
    points: int
    corrected: int | None = None
    """The points it replaced."""
    doubt: str = ""
    """Why the referee's own count disagrees, if it does."""


@dataclass(frozen=True)
class RoundScored:
    round: int
    out: str
    points: Mapping[str, int]
    totals: Mapping[str, int]
    missing: tuple[str, ...] = ()
    game_over: bool = False
    next: str = ""
    """Who leads the next round."""


@dataclass(frozen=True)
class SwoopOver:
    totals: Mapping[str, int]
    winners: tuple[str, ...]
    """Lowest total; several on a tie; empty when no round was scored."""
    rounds: int


@dataclass(frozen=True)
class Undone:
    round: int
    what: str
    """What was taken back (``'bob: two sevens'``); empty when nothing was."""
    next: str


@dataclass(frozen=True)
class Paused:
    paused: bool
    at: float


@dataclass(frozen=True)
class SwoopNote:
    at: float
    text: str
