"""Stroop's verdicts (what the referee decides), as frozen values; the rules and the
state machine are in :mod:`referee.core.games.stroop`."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Mapping

from referee.core.cards import Card
from referee.core.events import Call

#: The reason of a call made before the first deal.
NOT_DEALT = "no card has been dealt yet"


# --- Verdicts ------------------------------------------------------------------

class CallOutcome(enum.StrEnum):
    """What a call did: :attr:`CallJudged.outcome` (in the JSON, its value)."""

    QUALIFIES = "qualifies"
    """It names a card that fits the top card: it races for the round."""
    MISCALL = "miscall"
    """It names a card that does not fit."""
    INACTIVE = "inactive"
    """Its player was out for the rest of the round."""
    LATE = "late"
    """It came after the round was won, drawn or forfeited."""
    PAUSED = "paused"
    """The game was paused."""
    NO_ROUND = "no-round"
    """No card had been dealt yet, or the game had ended."""


class RoundOutcome(enum.StrEnum):
    """How a round ended: :attr:`RoundOver.outcome` (in the JSON, its value)."""

    WON = "won"
    """A player took the pile."""
    DRAW = "draw"
    """Calls tied on both completion and beginning: the pile stays."""
    UNWON = "unwon"
    """The next deal, or the end, came before any qualifying call."""


class DecidedBy(enum.StrEnum):
    """What decided a round: :attr:`RoundOver.decided_by` (in the JSON, its value)."""

    ALONE = "alone"
    """The winner's was the only qualifying call within reach."""
    COMPLETION = "completion"
    """The winner finished first, by more than the tie window."""
    BEGINNING = "beginning"
    """Calls finished together; the winner began first."""
    FORFEIT = "forfeit"
    """Two players: the other player miscalled."""
    DRAW = "draw"
    """Calls tied on both completion and beginning."""


@dataclass(frozen=True)
class CallJudged:
    """What one call did."""

    round: int
    """The round it belongs to; 0 for a call before the first deal."""
    call: Call
    outcome: CallOutcome
    """``'qualifies'``, ``'miscall'``, ``'inactive'`` (an inactive player's call),
    ``'late'`` (after the round was won), ``'paused'`` or ``'no-round'``
    (before any deal, or after the end)."""
    reason: str
    """Plain words: why."""
    late_by: float | None = None
    """For a ``'late'`` call that would have qualified: seconds after the
    winning call it was completed (a race lost by more than the tie window),
    exact to the microsecond. None after a forfeit: no call won that round."""
    late_to: str | None = None
    """For a ``'late'`` call with ``late_by``: the player whose call won."""


@dataclass(frozen=True)
class PlayerOut:
    """A miscall made a player inactive for the rest of the round."""

    round: int
    player: str
    at: float
    """Seconds: the end of the miscall."""


@dataclass(frozen=True)
class AllActive:
    """Every player had miscalled: all are active again for the rest of the round."""

    round: int
    at: float
    """Seconds."""


@dataclass(frozen=True)
class RoundOver:
    """How a round ended. One per deal, in the order of the deals."""

    round: int
    top: Card
    outcome: RoundOutcome
    """``'won'``, ``'draw'`` or ``'unwon'`` (the next deal, or the end, came first)."""
    winner: str | None = None
    pile: int = 0
    """Cards the winner collected; 0 when no one did."""
    carried: int = 0
    """Cards left on the stake pile for the next round."""
    decided_by: DecidedBy | None = None
    """For a win: ``'alone'``, ``'completion'``, ``'beginning'`` or ``'forfeit'``;
    ``'draw'`` for a draw."""
    winning_call: Call | None = None
    """The qualifying call that won; None for a forfeit (see ``miscall``)."""
    rivals: tuple[Call, ...] = ()
    """Other qualifying calls of active players within reach of the winner."""
    tied: tuple[str, ...] = ()
    """For a draw: the players tied on both completion and beginning."""
    scores: Mapping[str, int] = field(default_factory=dict)
    """Every player's cards after this round."""
    margin_us: int | None = None
    """Microseconds: how close a race won against another player was (the
    winner finished, or for ``'beginning'`` began, this much earlier); None
    when no other player's qualifying call was in the race."""
    miscall: Call | None = None
    """For a forfeit: the miscall that gave the round away."""


@dataclass(frozen=True)
class Undone:
    """An undo command reverted a verdict (``round`` None: nothing to undo)."""

    round: int | None
    winner: str | None
    """Who gave cards back (None for an undone draw)."""
    cards: int
    """How many cards went back onto the stake pile."""
    reopened: bool
    """Whether that round is open for calls again."""
    scores: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Paused:
    """Calls count for nothing from ``at`` (``paused``) or count again (not ``paused``)."""

    paused: bool
    at: float


@dataclass(frozen=True)
class GameOver:
    scores: Mapping[str, int]
    """Cards collected, per player."""
    unclaimed: int
    """Cards left on the stake pile, which belong to no one."""
    rounds: int
