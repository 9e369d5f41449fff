"""The soccer card game's happenings (what the players do) and verdicts (what the referee decides).

The rules are in :mod:`referee.core.games.soccer`; the journal encodes these
in :mod:`referee.core.journal`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from referee.core.cards import Card
from referee.core.games.soccer_blocks import Method


# --- Happenings -------------------------------------------------------------------

@dataclass(frozen=True)
class Forward:
    """The attacker flipped a forward and named it."""

    player: str
    card: Card
    at: float


@dataclass(frozen=True)
class Block:
    """The defender named their block; no cards: "no block"."""

    player: str
    cards: tuple[Card, ...]
    at: float


@dataclass(frozen=True)
class Penalty:
    """After a goalie forward: the second goalie discarded, or None for "no penalty"."""

    player: str
    card: Card | None
    at: float


# --- Verdicts -----------------------------------------------------------------------

@dataclass(frozen=True)
class Attack:
    """A forward is on the table: the defender is asked to block (or, for a
    goalie, the attacker is asked for the penalty kick)."""

    round: int
    attacker: str
    defender: str
    forward: Card
    number: int
    """1 or 2: the attacker's first or second forward this round."""
    goalie: bool


@dataclass(frozen=True)
class Blocked:
    round: int
    defender: str
    forward: Card
    cards: tuple[Card, ...]
    methods: tuple[Method, ...]
    reason: str
    """Every method that holds, in words: ``'same number'``."""


@dataclass(frozen=True)
class Goal:
    round: int
    attacker: str
    forward: Card
    how: str
    """``'no block'``, ``'penalty kick'`` or ``'failed block'``."""
    cards: tuple[Card, ...]
    """The failed block, or the penalty kick's second goalie."""
    reason: str
    goals: Mapping[str, int]


@dataclass(frozen=True)
class BlockFailed:
    """A block that does not hold; the defender may try again (ruling S1)."""

    round: int
    defender: str
    forward: Card
    cards: tuple[Card, ...]
    reason: str


@dataclass(frozen=True)
class Fizzled:
    """A goalie forward without a second goalie: discarded, no goal."""

    round: int
    attacker: str
    forward: Card


@dataclass(frozen=True)
class Rejected:
    """A play that cannot be taken; nothing changed, and the referee asks again."""

    at: float
    player: str
    reason: str
    question: str


@dataclass(frozen=True)
class RoundOver:
    round: int
    goals: Mapping[str, int]
    drawn: int
    """Cards each player draws now (0 after the last round)."""
    pile: int
    """Cards left in the draw pile after the draw."""
    last_round_next: bool
    """The draw took the last cards: the next round is the last."""
    overtime: bool
    """This round was played in overtime."""


@dataclass(frozen=True)
class Overtime:
    """A tie after the last round: the discard pile becomes the draw pile."""

    goals: Mapping[str, int]
    reshuffled: int
    drawn: int
    pile: int


@dataclass(frozen=True)
class Undone:
    what: str
    """What was taken back, in words; empty when there was nothing to undo."""
    round: int
    goals: Mapping[str, int]


@dataclass(frozen=True)
class SoccerPaused:
    paused: bool
    at: float


@dataclass(frozen=True)
class SoccerOver:
    goals: Mapping[str, int]
    winner: str | None
    """None for a game ended early in a tie."""
    rounds: int
    ended_early: bool
