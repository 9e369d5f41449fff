"""GOPS's happenings (what is turned and bid) and verdicts (what the referee decides),
as frozen values. The rules that make them are in :mod:`referee.core.games.gops`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping


# --- Happenings --------------------------------------------------------------

@dataclass(frozen=True)
class PrizeTurned:
    """A prize card turned face up (named by a player, or by the referee's own pile)."""

    card: str
    at: float
    """Seconds on the audio clock."""


@dataclass(frozen=True)
class Bid:
    """A player's revealed bid: the value of the card."""

    player: str
    value: int
    at: float
    """Seconds: when it was heard (or typed)."""


# --- Verdicts -----------------------------------------------------------------

@dataclass(frozen=True)
class PrizeUp:
    prize: str
    points: int
    tie_break: bool
    """The second prize of a tie break."""
    pile: int
    """Prizes left in the prize pile."""


@dataclass(frozen=True)
class Reshuffled:
    """The prize pile ran out: the prize discard pile is shuffled into a new one."""

    cards: tuple[str, ...]


@dataclass(frozen=True)
class BidTaken:
    player: str
    value: int
    stage: int
    """1 for a first bid, 2 for a tie break's second bid."""
    replaced: int | None = None
    """The bid it corrected, if any."""


@dataclass(frozen=True)
class BidRefused:
    player: str
    value: int
    reason: str
    """``'discard'``, ``'in place'``, ``'not held'``, ``'no prize'`` or ``'paused'``."""


@dataclass(frozen=True)
class PrizeWon:
    winner: str
    prizes: tuple[str, ...]
    points: int
    bids: Mapping[str, tuple[int, ...]]
    """Each player's bid (one card, or two after a tie break)."""
    totals: Mapping[str, int]


@dataclass(frozen=True)
class Tied:
    """The first bids tied at the top."""

    players: tuple[str, ...]
    bids: Mapping[str, tuple[int, ...]]
    prize: str
    then: str
    """``'tie break'`` (a second prize and bid follow) or ``'again'`` (no prize
    is left: the bids go back and the same prize is bid for again)."""


@dataclass(frozen=True)
class TieStands:
    """The tie break tied too: both prizes to the prize discard pile, bids back."""

    players: tuple[str, ...]
    bids: Mapping[str, tuple[int, ...]]
    prizes: tuple[str, ...]


@dataclass(frozen=True)
class HandsBack:
    """Players who had used every bid card picked up their bid discard piles."""

    players: tuple[str, ...]


@dataclass(frozen=True)
class PrizeRefused:
    prize: str
    reason: str
    waiting: tuple[str, ...] = ()
    """Players whose bid for the prize up is still missing."""


@dataclass(frozen=True)
class GopsUndone:
    what: str
    """What was taken back (``'ann's bid of nine'``), or ``''`` for nothing."""


@dataclass(frozen=True)
class GopsPaused:
    paused: bool
    at: float


@dataclass(frozen=True)
class GopsOver:
    totals: Mapping[str, int]
    winners: tuple[str, ...]
    """The top totals: one player, or several who split the win."""
    complete: bool
    """Every prize was won (else the game was ended early)."""


#: Every verdict of GOPS (what the announcer and the account speak and write about).
VERDICTS = (PrizeUp, Reshuffled, BidTaken, BidRefused, PrizeWon, Tied, TieStands, HandsBack,
            PrizeRefused, GopsUndone, GopsPaused, GopsOver)
