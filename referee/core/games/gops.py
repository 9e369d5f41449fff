"""GOPS, the Game of Pure Strategy: prizes turned, bids revealed, tie breaks, totals.

The rules in our own words (seed 002, Purple Rules; RULINGS.md, GOPS 1-3):

* **Set-ups are data** (:data:`SETUPS`): the prize cards with their points, the
  bid cards every player holds, 2 to N players. *Purple*: the 14 clubs of two
  colours of seven (green and bronze) are the prizes; every player holds the
  seven cards of one colour. *Standard*: the 13 diamonds are the prizes; every
  player holds one other suit, so 2 or 3 players. A table with another deck
  gives its own set-up in the game line (:meth:`Setup.from_data`).
* **Values** are rank points: A = 1, 2-10 as marked, J = 11, Q = 12, K = 13.
  Ruling GOPS-P: the seed does not list the ranks of a Purple colour; a colour
  is seven cards ranked 1 to 7 (ace to seven), the same seven in every colour,
  so that every hand is alike, as GOPS needs.
* A **turn**: the top prize is turned face up; every player bids one card from
  their hand face down; the bids are revealed. The single highest bid wins the
  prize; its points go to the winner. Used bid cards go to the player's bid
  discard pile.
* **Tie break** (GOPS 2): when two or more players tie for the highest bid,
  every bid stays in place, the next prize is turned up and *every* player bids
  a second card. The single highest total of a player's two bids wins both
  prizes. If the top totals tie again, both prizes go to the prize discard pile
  and every player takes both bid cards back into their hand.
* When no other prize is left to turn for a tie break (prize pile and prize
  discard pile both empty), the bids go back into the hands and the same prize
  is bid for again. Ruling GOPS-L: players who had just bid their last card
  first pick up their bid discard pile (the refresh below), then take the bid
  back, so the new bid can differ and the game cannot stall.
* **Piles** (GOPS 3): when the prize pile is used up and a prize is needed, the
  prize discard pile is shuffled into a new prize pile. A player who has used
  every bid card picks up their bid discard pile as a new hand (also in the
  middle of a tie break, when their first bid was their last card).
* **Hands are known exactly**: a bid of a card in the player's bid discard
  pile, already in place, or not of their hand is refused, with the reason.
* Ruling GOPS-R: the bids are revealed together, so the referee decides when it
  has heard every player's bid of the stage; until then a player's new bid
  replaces their earlier one (a correction). ``undo`` takes back the last bid
  (and whatever it decided) or, with real prize cards, the last prize turned.
* The game ends when every prize has been won; the highest total wins, and
  a tie at the top splits the win.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from referee.core.cards import RANK_WORDS
from referee.core.clock import us
from referee.core.errors import RefereeError
from referee.core.events import Asked, Command
from referee.core.options import OptionError, check_known
from referee.core.games.gops_events import (  # noqa: F401 (read as gops.PrizeUp, ...)
    Bid, BidRefused, BidTaken, GopsOver, GopsPaused, GopsUndone, HandsBack, PrizeRefused,
    PrizeTurned, PrizeUp, PrizeWon, Reshuffled, Tied, TieStands)


class GopsError(RefereeError, ValueError):
    """An event GOPS cannot take (an unknown player, a card of no set-up)."""


# --- Set-ups ------------------------------------------------------------------

@dataclass(frozen=True)
class Setup:
    """What is dealt: prize name -> points, the bid values every hand holds."""

    name: str
    prizes: Mapping[str, int]
    hand: tuple[int, ...]
    players: tuple[int, int]
    """Fewest and most players."""

    def bid_word(self, value: int) -> str:
        return RANK_WORDS[value]

    @classmethod
    def from_data(cls, data) -> Setup:
        """A set-up of the players' own deck, as in a game line's options:
        ``{"name": .., "prizes": {name: points}, "hand": [ranks], "players": [2, 5]}``.
        Prizes are named in words ("red seven"), points and hand cards are ranks 1-13."""
        if not isinstance(data, Mapping):
            raise OptionError(f"setup must be {', '.join(SETUPS)} or a set-up object, not {data!r}")
        check_known("a GOPS set-up", data, {"name", "prizes", "hand", "players"})
        name, prizes = data.get("name", "own"), data.get("prizes")
        hand, players = data.get("hand"), data.get("players", [2, 5])

        def rank(v) -> bool:
            return isinstance(v, int) and not isinstance(v, bool) and v in RANK_WORDS

        if not isinstance(name, str) or not name:
            raise OptionError(f"a set-up's name must be a word, not {name!r}")
        if not isinstance(prizes, Mapping) or not prizes or not all(
                isinstance(k, str) and k.replace(" ", "").isalpha() and rank(v)
                for k, v in prizes.items()):
            raise OptionError(f"a set-up's prizes must map names in words to points 1-13, not {prizes!r}")
        if not isinstance(hand, list) or not hand or not all(map(rank, hand)) \
                or len(set(hand)) != len(hand):
            raise OptionError(f"a set-up's hand must be different ranks 1-13, not {hand!r}")
        if not (isinstance(players, list) and len(players) == 2 and all(
                isinstance(n, int) and not isinstance(n, bool) for n in players)
                and 2 <= players[0] <= players[1]):
            raise OptionError(f"a set-up's players must be [fewest, most], 2 or more, not {players!r}")
        return cls(name, {k.lower(): v for k, v in prizes.items()}, tuple(sorted(hand)),
                   (players[0], players[1]))


SETUPS = {
    "purple": Setup(
        "purple",
        {f"{colour} {RANK_WORDS[v]}": v for colour in ("green", "bronze") for v in range(1, 8)},
        tuple(range(1, 8)), (2, 5)),
    "standard": Setup(
        "standard", {f"{RANK_WORDS[v]} of diamonds": v for v in range(1, 14)},
        tuple(range(1, 14)), (2, 3)),
}


@dataclass(frozen=True)
class GopsOptions:
    setup: str | Setup = "purple"
    """Which set-up of :data:`SETUPS`, or the players' own."""
    virtual_prizes: bool = False
    """The referee turns the prizes itself (undo then never takes one back alone)."""

    @classmethod
    def from_dict(cls, options: Mapping) -> GopsOptions:
        check_known("GOPS", options, {"setup", "virtual_prizes"})
        setup = options.get("setup", cls.setup)
        if not isinstance(setup, str):
            setup = Setup.from_data(setup)
        elif setup not in SETUPS:
            raise OptionError(f"setup must be one of {', '.join(SETUPS)}, not {setup!r}")
        virtual = options.get("virtual_prizes", cls.virtual_prizes)
        if not isinstance(virtual, bool):
            raise OptionError(f"virtual_prizes must be true or false, not {virtual!r}")
        return cls(setup, virtual)

    @property
    def deal(self) -> Setup:
        return self.setup if isinstance(self.setup, Setup) else SETUPS[self.setup]


# --- The state machine -------------------------------------------------------

PRIZE, BIDS, OVER = "prize", "bids", "over"
PRIZE_KINDS = frozenset({"prize", "command"})
"""What is heard while a prize is awaited: the prize named, and commands."""
BID_KINDS = frozenset({"bid", "command"})
"""What is heard while bids are awaited: bids ("ann nine", "I bid seven"), and commands."""


class GopsGame:
    """GOPS as a pure state machine for :class:`referee.core.judge.Judge`."""

    def __init__(self, players, options: GopsOptions | None = None) -> None:
        self.options = options or GopsOptions()
        self.setup = self.options.deal
        low, high = self.setup.players
        if not low <= len(players) <= high:
            raise GopsError(f"GOPS ({self.setup.name}) is for {low} to {high} players, not {len(players)}")
        if len(set(players)) != len(players):
            raise GopsError("player names must differ")
        self.players = tuple(players)
        self.history: list = []
        """Accepted bids and prizes, for undo."""
        self._reset()

    def _reset(self) -> None:
        self.pile = list(self.setup.prizes)       # order unknown: the table's cards
        self.discard: list[str] = []
        self.up: list[str] = []                   # the prize(s) being bid for
        self.hands = {p: list(self.setup.hand) for p in self.players}
        self.used = {p: [] for p in self.players}
        self.placed = {p: [] for p in self.players}  # bids in place from a tied stage
        self.bids: dict[str, int] = {}
        self.won = {p: [] for p in self.players}
        self.totals = {p: 0 for p in self.players}
        self.phase = PRIZE
        self.paused = False

    @property
    def listening_for(self) -> frozenset[str]:
        """The phrase kinds to hear now: :data:`BID_KINDS` while bids are awaited, else
        :data:`PRIZE_KINDS` (a bid said while a prize is awaited is refused anyway)."""
        return BID_KINDS if self.phase == BIDS else PRIZE_KINDS

    @property
    def stage(self) -> int:
        return len(self.up)

    @property
    def waiting_for(self) -> tuple[str, ...]:
        """Players whose bid of this stage is still to come (seat order)."""
        return tuple(p for p in self.players if p not in self.bids) if self.phase == BIDS else ()

    @property
    def prizes_won(self) -> int:
        return sum(len(w) for w in self.won.values())

    @staticmethod
    def time_key(event) -> tuple:
        if isinstance(event, PrizeTurned):
            return (us(event.at), 0, "", event.card)
        if isinstance(event, Bid):
            return (us(event.at), 1, event.player, str(event.value))
        if isinstance(event, Command):
            return (us(event.at), 2, "", event.name)
        raise GopsError(f"GOPS takes prizes, bids and commands, not {type(event).__name__}")

    def feed(self, event) -> list:
        if self.phase == OVER:
            return [PrizeRefused("", "the game is over")] if isinstance(event, PrizeTurned) else []
        if isinstance(event, Command):
            return self._command(event)
        if self.paused:
            if isinstance(event, Bid):
                return [BidRefused(event.player, event.value, "paused")]
            return [PrizeRefused(event.card, "the game is paused")]
        out = self._apply(event)
        if any(isinstance(v, (PrizeUp, BidTaken)) for v in out):
            self.history.append(event)
        return out

    def advance(self, now: int, strict: bool = False) -> list:
        return []

    def finish(self) -> list:
        if self.phase == OVER:
            return []
        self.phase = OVER
        return [self._over()]

    # Happenings ------------------------------------------------------------
    def _apply(self, event) -> list:
        if isinstance(event, PrizeTurned):
            return self._prize(event.card)
        if event.player not in self.totals:
            raise GopsError(f"unknown player {event.player!r}")
        return self._bid(event.player, event.value)

    def _command(self, command: Command) -> list:
        if command.name == "undo":
            return self._undo()
        if command.name in ("pause", "resume"):
            if self.paused == (command.name == "pause"):
                return []
            self.paused = command.name == "pause"
            return [GopsPaused(self.paused, command.at)]
        if command.name == "end":
            return self.finish()
        return [Asked(command)]

    def _prize(self, card: str) -> list:
        if card not in self.setup.prizes:
            raise GopsError(f"{card!r} is not a prize card of GOPS {self.setup.name}")
        if self.phase != PRIZE:
            return [PrizeRefused(card, "the bids for the prize up are not all in", self.waiting_for)]
        out = self._reshuffle_if_empty()
        if card not in self.pile:
            where = ("is up already" if card in self.up else
                     "is in the prize discard pile" if card in self.discard else
                     f"was won by {next(p for p, w in self.won.items() if card in w)}")
            return out + [PrizeRefused(card, where)]
        self.pile.remove(card)
        self.up.append(card)
        self.phase = BIDS
        self.bids = {}
        return out + [PrizeUp(card, self.setup.prizes[card], len(self.up) == 2, len(self.pile))]

    def _reshuffle_if_empty(self) -> list:
        if self.pile or not self.discard:
            return []
        cards = tuple(self.discard)
        self.pile, self.discard = list(self.discard), []
        return [Reshuffled(cards)]

    def _bid(self, player: str, value: int) -> list:
        if self.phase != BIDS:
            return [BidRefused(player, value, "no prize")]
        before = self.bids.get(player)
        if value not in self.hands[player] and value != before:
            reason = ("in place" if value in self.placed[player] else
                      "discard" if value in self.used[player] else "not held")
            return [BidRefused(player, value, reason)]
        if before is not None:
            self.hands[player].append(before)
        self.hands[player].remove(value)
        self.bids[player] = value
        out: list = [BidTaken(player, value, self.stage, before)]
        if len(self.bids) == len(self.players):
            out += self._reveal()
        return out

    def _reveal(self) -> list:
        for p, v in self.bids.items():
            self.placed[p].append(v)
        self.bids = {}
        bids = {p: tuple(self.placed[p]) for p in self.players}
        sums = {p: sum(b) for p, b in bids.items()}
        best = max(sums.values())
        top = tuple(p for p in self.players if sums[p] == best)
        prizes = tuple(self.up)
        if len(top) == 1:
            winner = top[0]
            points = sum(self.setup.prizes[c] for c in prizes)
            self.won[winner] += prizes
            self.totals[winner] += points
            for p in self.players:
                self.used[p] += self.placed[p]
            out: list = [PrizeWon(winner, prizes, points, bids, dict(self.totals))]
            return out + self._next_turn(prizes)
        if len(prizes) == 2:
            self.discard += prizes
            self._bids_back()
            return [TieStands(top, bids, prizes)] + self._next_turn(prizes)
        if self.pile or self.discard:
            self.phase = PRIZE                    # the tie break's prize
            return [Tied(top, bids, prizes[0], "tie break")] + self._refresh()
        out = self._refresh()                     # a last card bid: the discard comes back first
        self._bids_back()
        self.phase = BIDS                         # the last prize, bid for again
        return [Tied(top, bids, prizes[0], "again")] + out

    def _bids_back(self) -> None:
        for p in self.players:
            self.hands[p] += self.placed[p]
            self.placed[p] = []

    def _next_turn(self, prizes) -> list:
        self.up = []
        for p in self.players:
            self.placed[p] = []
        if self.prizes_won == len(self.setup.prizes):
            self.phase = OVER
            return [self._over()]
        self.phase = PRIZE
        return self._refresh()

    def _refresh(self) -> list:
        empty = tuple(p for p in self.players if not self.hands[p])
        for p in empty:
            self.hands[p], self.used[p] = self.used[p], []
        return [HandsBack(empty)] if empty else []

    def _over(self) -> GopsOver:
        best = max(self.totals.values())
        winners = tuple(p for p in self.players if self.totals[p] == best)
        return GopsOver(dict(self.totals), winners, self.prizes_won == len(self.setup.prizes))

    def _undo(self) -> list:
        """Take back the last bid (or real prize turned) by replaying the rest."""
        keep = list(self.history)
        what = ""
        while keep:
            last = keep.pop()
            if isinstance(last, Bid):
                what = f"{last.player}'s bid of {self.setup.bid_word(last.value)}"
                break
            if not self.options.virtual_prizes:
                what = f"the {last.card}"
                break
        else:
            return [GopsUndone("")]
        paused = self.paused
        self._reset()
        self.history = []
        for event in keep:
            self.feed(event)
        self.paused = paused
        return [GopsUndone(what)]

    # Views for the table ------------------------------------------------------
    def next_prizes(self) -> tuple[str, ...]:
        """The cards the next prize comes from: the pile, or the discard pile to be reshuffled."""
        return tuple(self.pile or self.discard) if self.phase == PRIZE else ()

    def hand_of(self, player: str) -> tuple[int, ...]:
        return tuple(sorted(self.hands[player]))

    def where(self, player: str, value: int) -> str:
        """Where a card of a player's is: ``'hand'``, ``'bid'``, ``'in place'``, ``'discard'``."""
        if self.bids.get(player) == value:
            return "bid"
        if value in self.hands[player]:
            return "hand"
        if value in self.placed[player]:
            return "in place"
        return "discard" if value in self.used[player] else "not held"

