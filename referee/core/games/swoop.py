"""Swoop: the pile, the swoops and pick-ups, and the scored rounds, as a pure
state machine that turns time-ordered plays into verdicts.

The seed's rules in our own words (RULINGS.md, Swoop 1-3):

* One deck per two players by default (option ``decks``); each player is dealt
  19 cards (4 face down, 4 face up on them, 11 in the hand). Dealing is
  physical: the referee only counts.
* Players take turns in seat order. The first play of a pile is any rank, one
  or more cards of it. Each later play must be equal or lower: K high, A low.
* A 2 goes on anything, and anything goes on a 2. A 10 goes on anything and
  swoops the pile.
* Four or more cards of one rank in a row, across players, swoop the pile.
  More than four only with more than one deck.
* Whoever swoops plays again, on an empty pile.
* A player who cannot play picks up the whole pile. A face-down card is played
  blind (one card); if it does not go, its player picks up the pile with it.
* The first player out of cards ends the round. The others score what they
  hold: J, Q, K 10; A 1; 2 25; 10 50; the rest face value. Lowest total after
  the agreed number of rounds (option ``rounds``) wins.

Our rulings (docs/rulings-swoop.md):

* A play the pile does not take ("a seven on a five") is refused with the
  reason and changes nothing: the player plays again or picks up.
* After a pick-up the pile is empty and the next player leads with any rank.
  Picking up an empty pile is refused.
* A 2 is a rank like any other for runs: four 2s in a row swoop.
* The referee counts each player's cards: 19 at the deal, minus cards played,
  plus cards picked up. Refused as impossible: a play of more cards than the
  player holds; more cards of a rank than the decks hold (counting those in
  the pile and those swooped this round); a blind play of more than one card;
  "I'm out" with cards left; any play out of turn.
* A player whose count reaches 0 is out at once (a swoop with the last card
  too); "I'm out" then only confirms it.
* Reports: each other player says what is left, as cards or as a total; a
  later report replaces an earlier one. A report that disagrees with the
  referee's count is taken, with the doubt said aloud. A tally scores the
  round; a player who never reported scores 0 and is named as missing.
* On one microphone for the whole table a play is the play of whoever's turn
  it is when the play is judged (events with no player).
* Round n is led by the n-th player in seat order (the deal moves left).
* Undo takes back the last play or pick-up of the round (going out too);
  once the round is scored there is nothing to undo. Pause refuses plays
  until resume. End scores a round whose reports have begun, then ends.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Mapping

from referee.core.cards import RANK_WORDS
from referee.core.clock import us
from referee.core.errors import RefereeError
from referee.core.events import Asked, Command, Tally
from referee.core.games.swoop_events import (  # noqa: F401  (the game's vocabulary, re-exported)
    GoOut, Paused, PickedUp, PickUp, Play, Played, Refused, Report, Reported, RoundScored,
    SwoopNote, SwoopOver, Undone, WentOut, points,
)
from referee.core.options import OptionError, check_known

HAND = 19
TEN, TWO = 10, 2


class SwoopError(RefereeError, ValueError):
    """An event Swoop cannot take (an unknown player, a rank that is no rank)."""


def rank_words(rank: int, count: int = 1) -> str:
    """``(7, 1)`` -> ``'a seven'``; ``(7, 2)`` -> ``'two sevens'``; ``(6, 2)`` -> ``'two sixes'``."""
    word = RANK_WORDS[rank]
    if count == 1:
        return ("an " if word[0] in "aeiou" else "a ") + word
    plural = word + ("es" if word.endswith("x") else "s")
    return f"{RANK_WORDS.get(count, str(count))} {plural}"


@dataclass(frozen=True)
class SwoopOptions:
    decks: int = 0
    """How many decks; 0 means one per two players (rounded up)."""
    rounds: int = 5
    """Rounds to play; the lowest total after them wins."""

    @classmethod
    def from_dict(cls, options: Mapping) -> SwoopOptions:
        check_known("Swoop", options, {"decks", "rounds"})
        values = {}
        for name, low in (("decks", 0), ("rounds", 1)):
            v = options.get(name, getattr(cls, name))
            if isinstance(v, bool) or not isinstance(v, int) or v < low:
                raise OptionError(f"{name} must be a whole number from {low}, not {v!r}")
            values[name] = v
        return cls(**values)


# --- The state machine ---------------------------------------------------------------

PLAYING, SCORING, OVER = "playing", "scoring", "over"

#: What the referee listens for (phrase kinds) in play, and while reports are asked for:
#: totals only then, or a play's words are heard as one ("four eights" as "forty eight").
PLAY_KINDS = frozenset({"call", "command"})
REPORT_KINDS = frozenset({"call", "command", "number"})


@dataclass
class _Pile:
    """The state one play changes (copied for undo)."""

    turn: int
    held: dict
    plays: list = field(default_factory=list)
    """(rank, count) at the top of the pile since it was last emptied."""
    swept: dict = field(default_factory=dict)
    """Rank -> cards swooped this round."""
    out: str = ""

    def copy(self) -> _Pile:
        return _Pile(self.turn, dict(self.held), list(self.plays), dict(self.swept), self.out)


class SwoopGame:
    """Swoop as a pure state machine for :class:`referee.core.judge.Judge`."""

    def __init__(self, players, options: SwoopOptions | None = None) -> None:
        if len(players) < 2:
            raise SwoopError("Swoop needs at least two players")
        if len(set(players)) != len(players):
            raise SwoopError("player names must differ")
        self.players = tuple(players)
        options = options or SwoopOptions()
        if not options.decks:
            options = replace(options, decks=(len(players) + 1) // 2)
        if options.decks * 52 < HAND * len(players):
            raise OptionError(f"{options.decks} deck(s) cannot deal {HAND} cards to {len(players)} players")
        self.options = options
        self.totals = {p: 0 for p in self.players}
        self.round = 1
        self.phase = PLAYING
        self.paused = False
        self.state = _Pile(0, {p: HAND for p in self.players})
        self.history: list[tuple[_Pile, str]] = []
        self.reports: dict[str, Report] = {}
        self.winners: tuple[str, ...] = ()
        self.scored = 0

    # Views ---------------------------------------------------------------------
    @property
    def listening_for(self) -> frozenset[str]:
        """The phrase kinds to hear now: :data:`PLAY_KINDS` in play, else :data:`REPORT_KINDS`."""
        return PLAY_KINDS if self.phase == PLAYING else REPORT_KINDS

    @property
    def turn(self) -> str:
        """Whose turn it is."""
        return self.players[self.state.turn]

    @property
    def held(self) -> dict:
        return dict(self.state.held)

    @property
    def pile(self) -> int:
        return sum(c for _, c in self.state.plays)

    @property
    def run(self) -> tuple[int, int] | None:
        """(rank, cards in a row) at the top of the pile, or None when it is empty."""
        plays = self.state.plays
        if not plays:
            return None
        rank, n = plays[-1][0], 0
        for r, c in reversed(plays):
            if r != rank:
                break
            n += c
        return rank, n

    @property
    def to_beat(self) -> int | None:
        """The highest rank the next play may have, or None for any (empty pile or a 2)."""
        run = self.run
        return None if run is None or run[0] == TWO else run[0]

    @property
    def scores(self) -> dict:
        return dict(self.totals)

    # The judge's interface ------------------------------------------------------------
    @staticmethod
    def time_key(event) -> tuple:
        order = {Play: 0, PickUp: 0, GoOut: 0, Report: 1, Tally: 2, Command: 3}
        kind = order.get(type(event))
        if kind is None:
            raise SwoopError(f"Swoop takes plays, pick-ups, reports, tallies and commands, "
                             f"not {type(event).__name__}")
        return (us(event.at), kind, getattr(event, "player", "") or "", getattr(event, "name", ""))

    def feed(self, event) -> list:
        if self.phase == OVER:
            return [SwoopNote(event.at, "the game is over")]
        if isinstance(event, Command):
            return self._command(event)
        if isinstance(event, Tally):
            return self._tally(event.at)
        if not event.player and not isinstance(event, Report):
            event = replace(event, player=self.turn)    # said on the table's shared mic
        player = event.player
        if player not in self.totals:
            raise SwoopError(f"unknown player {player!r}")
        if isinstance(event, Report):
            return self._report(event)
        if isinstance(event, Play) and not (1 <= event.rank <= 13 and event.count >= 1):
            raise SwoopError(f"not a play: rank {event.rank}, {event.count} card(s)")
        what = (rank_words(event.rank, event.count) if isinstance(event, Play)
                else "pick up" if isinstance(event, PickUp) else "I'm out")
        if self.paused:
            return [self._refuse(player, what, "the game is paused")]
        if self.phase == SCORING:
            return [self._refuse(player, what, f"the round is over: {self.state.out} went out")]
        if player != self.turn:
            return [self._refuse(player, what, f"it is {self.turn}'s turn")]
        if isinstance(event, GoOut):
            n = self.state.held[player]
            return [self._refuse(player, what, f"{player} still holds {n} card{'s' if n != 1 else ''}")]
        if isinstance(event, PickUp):
            if not self.state.plays:
                return [self._refuse(player, what, "the pile is empty")]
            self._keep(f"{player}: pick up")
            return [self._pick_up(player)]
        return self._play(event, what)

    def advance(self, now: int) -> list:
        return []

    def finish(self) -> list:
        if self.phase == OVER:
            return []
        out = self._score() if self.phase == SCORING and self.reports else []
        if self.phase != OVER:
            self._end()
        return out + [SwoopOver(dict(self.totals), self.winners, self.scored)]

    # Plays -------------------------------------------------------------------------
    def _refuse(self, player: str, what: str, reason: str) -> Refused:
        return Refused(self.round, player, what, reason, self.turn if self.phase == PLAYING else "")

    def _play(self, play: Play, what: str) -> list:
        s, p = self.state, play.player
        if play.blind and play.count != 1:
            return [self._refuse(p, what, "a blind card is played one at a time")]
        if play.count > s.held[p]:
            return [self._refuse(p, what, f"{p} holds only {s.held[p]} card{'s' if s.held[p] != 1 else ''}")]
        limit = 4 * self.options.decks
        seen = s.swept.get(play.rank, 0) + sum(c for r, c in s.plays if r == play.rank)
        if seen + play.count > limit:
            decks = "one deck holds" if self.options.decks == 1 else f"{self.options.decks} decks hold"
            return [self._refuse(p, what, f"{decks} only {limit} {RANK_WORDS[play.rank]}s, "
                                          f"and {seen} are out already")]
        beat = self.to_beat
        goes = beat is None or play.rank in (TWO, TEN) or play.rank <= beat
        if not goes and not play.blind:
            return [self._refuse(p, what, f"{rank_words(play.rank)} does not go on {rank_words(beat)}")]
        self._keep(f"{p}: {'blind ' if play.blind else ''}{what}")
        s.held[p] -= play.count
        s.plays.append((play.rank, play.count))
        if not goes:      # a blind card that does not go: its player takes the pile with it
            return [self._pick_up(p, blind=play.rank)]
        run = self.run[1]
        swoop = "ten" if play.rank == TEN else "four" if run >= 4 else ""
        pile = self.pile
        if swoop:
            for r, c in s.plays:
                s.swept[r] = s.swept.get(r, 0) + c
            s.plays.clear()
        elif s.held[p]:
            s.turn = (s.turn + 1) % len(self.players)
        if s.held[p] == 0:
            s.out = p
            self.phase = SCORING
            self.reports = {}
            return [Played(self.round, play, 0 if swoop else pile, run, swoop, 0, ""),
                    WentOut(self.round, p, tuple(q for q in self.players if q != p))]
        return [Played(self.round, play, 0 if swoop else pile, run, swoop, s.held[p], self.turn)]

    def _pick_up(self, player: str, blind: int | None = None) -> PickedUp:
        s = self.state
        cards = self.pile
        s.held[player] += cards
        s.plays.clear()
        s.turn = (self.players.index(player) + 1) % len(self.players)
        return PickedUp(self.round, player, cards, s.held[player], self.turn, blind)

    def _keep(self, what: str) -> None:
        self.history.append((self.state.copy(), what))

    # Scoring --------------------------------------------------------------------
    def _report(self, report: Report) -> list:
        p = report.player
        if self.phase != SCORING:
            return [self._refuse(p, "report", "no one is out yet")]
        if p == self.state.out:
            return [self._refuse(p, "report", f"{p} went out and scores nothing")]
        if report.total is not None and report.total < 0 or any(not 1 <= r <= 13 for r in report.cards):
            raise SwoopError(f"not a report: {report}")
        n = self.state.held[p]
        doubt = ""
        if report.total is None and len(report.cards) != n:
            doubt = f"I counted {n} card{'s' if n != 1 else ''}"
        elif report.total is not None and not n <= report.total <= 50 * n:
            doubt = f"{n} card{'s' if n != 1 else ''} score {n} to {50 * n}"
        before = self.reports.get(p)
        self.reports[p] = report
        return [Reported(self.round, report, report.value, before.value if before else None, doubt)]

    def _tally(self, at: float) -> list:
        if self.phase != SCORING:
            return [SwoopNote(at, "nothing to score: no one is out")]
        return self._score()

    def _score(self) -> list:
        others = [p for p in self.players if p != self.state.out]
        missing = tuple(p for p in others if p not in self.reports)
        pts = {p: (self.reports[p].value if p in self.reports else 0) for p in self.players}
        for p, n in pts.items():
            self.totals[p] += n
        self.scored += 1
        over = self.scored >= self.options.rounds
        scored_round, out = self.round, self.state.out
        self.round += 1
        self.state = _Pile((self.round - 1) % len(self.players), {p: HAND for p in self.players})
        self.history = []
        self.reports = {}
        self.phase = PLAYING
        verdict = RoundScored(scored_round, out, pts, dict(self.totals), missing, over,
                              "" if over else self.turn)
        if over:
            return [verdict] + self.finish()
        return [verdict]

    def _end(self) -> None:
        self.phase = OVER
        if self.scored:
            best = min(self.totals.values())
            self.winners = tuple(p for p in self.players if self.totals[p] == best)

    # Commands ---------------------------------------------------------------------
    def _command(self, command: Command) -> list:
        name = command.name
        if name == "end":
            return self.finish()
        if name in ("pause", "resume"):
            if self.paused == (name == "pause"):
                return []
            self.paused = name == "pause"
            return [Paused(self.paused, command.at)]
        if name == "undo":
            if not self.history:
                return [Undone(self.round, "", self.turn if self.phase == PLAYING else "")]
            self.state, what = self.history.pop()
            self.phase, self.reports = PLAYING, {}
            return [Undone(self.round, what, self.turn)]
        return [Asked(command)]
