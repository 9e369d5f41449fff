"""Stroop: the rules, as RULINGS.md reads the seed, and a pure state machine
that turns time-ordered deals and calls into verdicts.

The rules in our own words:

* A call **qualifies** against the top card when it names a full card of a
  different rank, a different colour and the same class (court: A, J, Q, K;
  number: 2 to 10) as the top card. The seed's table lists 9♧ on 3♠ and A♦ on
  Q♡ as qualifying; both break its own rule text, and the rule text wins.
* A call that names no full card is a **miscall**: a partial call (a bare
  rank or suit, "a heart", a call cut short like "jack of") or no card words.
* Each deal starts a round with every player active. A call takes effect when
  it is completed (its end time). An active player who miscalls becomes
  inactive, unless every other player has already miscalled this round: then
  all players are active again for the rest of the round, and later miscalls
  change nothing. An inactive player's calls have no effect.
* Option ``two_player_miscall``: ``inactive`` (default, the rule above) or
  ``forfeit`` (in a two-player game a miscall gives the round to the other
  player at once).
* **Ties**: among qualifying calls by active players, the one completed first
  wins; ends within ``tie_window_ms`` (default 40) of each other are tied, and
  then the one begun first wins, with the same window; tied on both is a
  **draw**. A draw, or a new deal while no one has won, leaves the stake pile
  for the next round's winner. Calls after a round is won have no effect.
* The score is the number of cards collected. A pile left unwon when the game
  ends belongs to no one.
* **Match cards** (variant): for a player with match card M and top card T,
  if T has M's suit a qualifying call names T's suit, a different rank, the
  same class; otherwise if T has M's rank it names T's rank in T's colour.

Commands at the table: **undo** reverts the latest win or draw not yet
undone. The winner gives the cards back to the stake pile; if that round is
still the current one it is open again, with every player active. **pause**
makes calls count for nothing until **resume**. **end** ends the game.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from referee.core.errors import RefereeError
from referee.core.events import COMMANDS, Asked, Call, Command, Deal
from referee.core.judge import first_to_finish
from referee.core.options import OptionError, check_known, tie_window_ms
from referee.core.cards import Card, DealtTwice, Partial, read_call
from referee.core.clock import seconds, us, us_from_ms
from referee.core.games.stroop_verdicts import (  # noqa: F401  (the game's vocabulary, re-exported)
    NOT_DEALT, AllActive, CallJudged, CallOutcome, DecidedBy, GameOver, Paused, PlayerOut,
    RoundOutcome, RoundOver, Undone)


@dataclass(frozen=True)
class StroopOptions:
    tie_window_ms: float = 40.0
    """Milliseconds: ends (or starts) this close count as the same moment."""
    two_player_miscall: str = "inactive"
    """``'inactive'`` or ``'forfeit'``."""

    @classmethod
    def from_dict(cls, options: Mapping) -> StroopOptions:
        check_known("Stroop", options, {"tie_window_ms", "two_player_miscall"})
        window = tie_window_ms(options, cls.tie_window_ms)
        mode = options.get("two_player_miscall", cls.two_player_miscall)
        if mode not in ("inactive", "forfeit"):
            raise OptionError(f"two_player_miscall must be 'inactive' or 'forfeit', not {mode!r}")
        return cls(window, mode)

    @property
    def tie_window(self) -> float:
        """Seconds."""
        return self.tie_window_ms / 1000.0

    @property
    def window_us(self) -> int:
        """The tie window in whole microseconds: every deadline is taken on it."""
        return us_from_ms(self.tie_window_ms)


# --- The qualifying rule -----------------------------------------------------

def miscall_reason(said: str, top: Card, match: Card | None = None) -> str | None:
    """Why the call ``said`` does not qualify on ``top`` (for a player with
    match card ``match``), in plain words; None when it qualifies."""
    card = read_call(said)
    if isinstance(card, Partial):       # a partial call is a miscall (RULINGS Stroop 3)
        return "was cut short" if card.cut_short else f"names {card.what}"
    if card is None:
        return "names no full card"
    if match is not None and top.suit == match.suit:
        if card.suit != top.suit:
            return f"the match card {match.symbol} asks for {top.suit.word}"
        if card.rank == top.rank:
            return "same rank as the top card"
        if card.is_court != top.is_court:
            return "a court card is needed" if top.is_court else "a number card is needed"
        return None
    if match is not None and top.rank == match.rank:
        if card.rank != top.rank or card.colour != top.colour:
            return f"the match card {match.symbol} asks for a {top.colour.value} {_rank_word(top)}"
        return None
    if card.rank == top.rank:
        return "same rank as the top card"
    if card.colour == top.colour:
        return "same colour as the top card"
    if card.is_court != top.is_court:
        return "a court card is needed" if top.is_court else "a number card is needed"
    return None


def qualifies(said: str, top: Card, match: Card | None = None) -> bool:
    """Whether the call ``said`` qualifies on ``top``."""
    return miscall_reason(said, top, match) is None


def _rank_word(card: Card) -> str:
    return card.spoken.split(" of ")[0]


# --- The state machine -------------------------------------------------------

# Round phases and the one table of their transitions: (phase, happening) -> phase.
WAITING, OPEN, RACING, SETTLED = "waiting", "open", "racing", "settled"
TRANSITIONS = {
    (WAITING, "deal"): OPEN,
    (OPEN, "deal"): OPEN,        # the round closes unwon; the pile carries
    (RACING, "deal"): OPEN,      # the race is settled first
    (SETTLED, "deal"): OPEN,
    (SETTLED, "undo"): OPEN,     # the round is open for calls again
    (OPEN, "qualifying"): RACING,
    (RACING, "qualifying"): RACING,
    (OPEN, "forfeit"): SETTLED,
    (RACING, "window-closed"): SETTLED,
    (OPEN, "end"): WAITING,
    (RACING, "end"): WAITING,
    (SETTLED, "end"): WAITING,
    (WAITING, "end"): WAITING,
}


class StroopError(RefereeError, ValueError):
    """An event the game cannot take (an unknown player, a deal out of order)."""


class DealtAgain(StroopError, DealtTwice):
    """A deal of a card already dealt in this game (one deck)."""


class StroopGame:
    """Stroop as a pure state machine. Feed it deals and calls in time order
    (:class:`referee.core.judge.Judge` does the ordering); it returns verdicts."""

    def __init__(
        self,
        players: list[str] | tuple[str, ...],
        options: StroopOptions | None = None,
        match_cards: Mapping[str, Card] | None = None,
    ) -> None:
        if len(players) < 2:
            raise StroopError("Stroop needs at least two players")
        if len(set(players)) != len(players):
            raise StroopError("player names must differ")
        self.players = tuple(players)
        self.options = options or StroopOptions()
        self.match_cards = dict(match_cards or {})
        for p in self.match_cards:
            if p not in self.players:
                raise StroopError(f"match card for unknown player {p!r}")
        self.scores = {p: 0 for p in self.players}
        self.phase = WAITING
        self.round = 0
        self.top: Card | None = None
        self.pile = 0
        self.inactive: set[str] = set()
        self.miscalled: set[str] = set()
        self.reset = False
        self.candidates: list[Call] = []
        self.won_by: Call | None = None
        """The call that won this round."""
        self.forfeited: Call | None = None
        """The miscall that gave this round away (``two_player_miscall: forfeit``)."""
        self.deadline = 0
        """Microseconds: the race closes after this."""
        self.now = float("-inf")
        """Microseconds: the time of the latest event fed."""
        self.pending: list[Call] = []
        """Calls completed at the instant ``now``, judged together once it has passed."""
        self.dealt: dict[Card, int] = {}
        """Card -> the round it was dealt in: one deck, so no card twice."""
        self.paused = False
        self.ended = False
        self.decided: list[tuple[int, str | None, int]] = []
        """(round, winner or None for a draw, cards won) of each verdict, for undo."""

    # The judge's protocol --------------------------------------------------
    @staticmethod
    def time_key(event: Deal | Call | Command) -> tuple:
        """Calls by end time; at the same instant calls, then commands, then
        deals (a call belongs to the last deal *before* its end). The rest
        makes the order total, so the same events always come out in the same
        order."""
        if isinstance(event, Deal):
            return (us(event.at), 3, 0, "", "", str(event.card))
        if isinstance(event, Call):
            return (us(event.end), 0, us(event.start), event.player, event.said, "")
        if isinstance(event, Command):
            return (us(event.at), 2, 0, event.player or "", event.name, "")
        raise StroopError(f"Stroop takes deals, calls and commands, not {type(event).__name__}")

    def feed(self, event: Deal | Call | Command) -> list:
        t = self.time_key(event)[0]
        if t < self.now:
            raise StroopError(f"event at {seconds(t):.3f} s fed after {seconds(self.now):.3f} s: "
                              "feed in time order")
        out = self.advance(t, strict=True)
        if not isinstance(event, Call):
            out += self._flush()        # calls of this instant come before commands and deals
        self.now = t
        if self.ended:
            return out + ([CallJudged(self.round, event, CallOutcome.NO_ROUND,
                                            "the game has ended")]
                          if isinstance(event, Call) else [])
        if isinstance(event, Call):
            self.pending.append(event)
            return out
        if isinstance(event, Deal):
            return out + self._deal(event)
        return out + self._command(event)

    def advance(self, now: int, strict: bool = False) -> list:
        """Judge the calls of an instant that has passed, and settle a race
        whose tie window closed before ``now`` (microseconds). With ``strict``,
        an event at exactly ``now`` may still come: calls completed then wait,
        and a race whose deadline is ``now`` stays open."""
        out: list = []
        if self.pending and (self.now < now if strict else self.now <= now):
            out += self._flush()
        if self.phase == RACING and (now > self.deadline if strict else now >= self.deadline):
            out += self._settle_race()
        return out

    def _flush(self) -> list:
        """Judge the calls completed at one instant: miscalls first, then by
        start (RULINGS Stroop 4), so the order of lines never matters."""
        calls, self.pending = self.pending, []

        def order(c: Call) -> tuple:
            miscall = self.top is not None and \
                miscall_reason(c.said, self.top, self.match_cards.get(c.player)) is not None
            return (not miscall, us(c.start), c.player, c.said)

        out: list = []
        for c in sorted(calls, key=order):
            out += self._call(c)
        return out

    def finish(self) -> list:
        if self.ended:
            return []
        out = self._flush()
        self.ended = True
        out += self._close_round()
        self._go("end")
        return out + [GameOver(dict(self.scores), self.pile, self.round)]

    def _command(self, command: Command) -> list:
        if command.name not in COMMANDS:
            raise StroopError(f"unknown command {command.name!r}")
        if command.name == "undo":
            return self._undo()
        if command.name in ("pause", "resume") and self.paused != (command.name == "pause"):
            self.paused = command.name == "pause"
            return [Paused(self.paused, command.at)]
        if command.name == "end":
            return self.finish()
        if command.name in ("score", "repeat", "new-game", "seats"):
            return [Asked(command)]
        return []

    def _undo(self) -> list:
        out = self._close_round() if self.phase == RACING else []
        if not self.decided:
            return out + [Undone(None, None, 0, False, dict(self.scores))]
        round_, winner, cards = self.decided.pop()
        if winner is not None:
            self.scores[winner] -= cards
            self.pile += cards
        reopened = round_ == self.round and self.phase == SETTLED
        if reopened:
            self._go("undo")
            self._open_round()
        return out + [Undone(round_, winner, cards, reopened, dict(self.scores))]

    # Happenings ------------------------------------------------------------
    def _go(self, happening: str) -> None:
        self.phase = TRANSITIONS[(self.phase, happening)]

    def _deal(self, deal: Deal) -> list:
        if deal.card in self.dealt:
            raise DealtAgain(deal.card, f"round {self.dealt[deal.card]}")
        out = self._close_round()
        self._go("deal")
        self.round += 1
        self.dealt[deal.card] = self.round
        self.top = deal.card
        self.pile += 1
        self._open_round()
        return out

    def _open_round(self) -> None:
        """A round starts (or an undo opens it again): every player active, no calls in it."""
        self.inactive.clear()
        self.miscalled.clear()
        self.reset = False
        self.candidates = []
        self.won_by = self.forfeited = None

    def _close_round(self) -> list:
        if self.phase == RACING:
            return self._settle_race()
        if self.phase == OPEN:
            return [self._round_over(RoundOutcome.UNWON)]
        return []

    def _call(self, call: Call) -> list:
        if call.player not in self.scores:
            raise StroopError(f"unknown player {call.player!r}")
        if self.phase == WAITING:
            return [CallJudged(0, call, CallOutcome.NO_ROUND, NOT_DEALT)]
        if self.phase == SETTLED:
            late_by, late_to = None, None
            if (self.won_by is not None and call.player not in self.inactive
                    and call.player != self.won_by.player and self.top is not None
                    and qualifies(call.said, self.top, self.match_cards.get(call.player))):
                late_by = seconds(us(call.end) - us(self.won_by.end))
                late_to = self.won_by.player
            return [CallJudged(self.round, call, CallOutcome.LATE, self._too_late(call),
                               late_by, late_to)]
        if self.paused:
            return [CallJudged(self.round, call, CallOutcome.PAUSED, "the game is paused")]
        if call.player in self.inactive:
            return [CallJudged(self.round, call, CallOutcome.INACTIVE,
                               f"{call.player} is out this round")]
        assert self.top is not None
        why = miscall_reason(call.said, self.top, self.match_cards.get(call.player))
        if why is None:
            if self.phase == OPEN:
                self.deadline = us(call.end) + self.options.window_us
            self.candidates.append(call)
            self._go("qualifying")
            return [CallJudged(self.round, call, CallOutcome.QUALIFIES,
                               f"qualifies on {self.top.symbol}")]
        return [CallJudged(self.round, call, CallOutcome.MISCALL, why)] + self._miscall(call)

    def _too_late(self, call: Call) -> str:
        if self.forfeited is not None:
            return f"{self.forfeited.player}'s miscall had already given the round away"
        if self.won_by is None:
            return "the round had already ended in a draw"
        ms = round((us(call.end) - us(self.won_by.end)) / 1000)
        return f"finished {ms} ms after {self.won_by.player}'s winning call"

    def _miscall(self, call: Call) -> list:
        if (
            self.options.two_player_miscall == "forfeit"
            and len(self.players) == 2
            and self.phase == OPEN
        ):
            other = next(p for p in self.players if p != call.player)
            self._go("forfeit")
            return [self._win(other, DecidedBy.FORFEIT, None, (), miscall=call)]
        if self.reset or call.player in self.miscalled:
            return []
        self.miscalled.add(call.player)
        if len(self.miscalled) == len(self.players):  # every other player had miscalled
            self.reset = True
            self.inactive.clear()
            return [AllActive(self.round, call.end)]
        self.inactive.add(call.player)
        return [PlayerOut(self.round, call.player, call.end)]

    def _settle_race(self) -> list:
        race = first_to_finish(self.candidates, self.options.tie_window)
        self._go("window-closed")
        if race.decided_by == DecidedBy.DRAW:
            tied = tuple(c.player for c in race.winners)
            self.decided.append((self.round, None, 0))
            return [self._round_over(RoundOutcome.DRAW, decided_by=DecidedBy.DRAW,
                                     rivals=race.winners, tied=tied)]
        call = race.winners[0]
        return [self._win(call.player, DecidedBy(race.decided_by), call, race.rivals,
                          race.margin_us)]

    def _win(self, player: str, decided_by: DecidedBy, call: Call | None, rivals: tuple,
             margin_us: int | None = None, miscall: Call | None = None) -> RoundOver:
        won = self.pile
        self.won_by = call
        self.forfeited = miscall
        self.decided.append((self.round, player, won))
        self.scores[player] += won
        self.pile = 0
        return self._round_over(RoundOutcome.WON, winner=player, won=won, decided_by=decided_by,
                                call=call, rivals=rivals, margin_us=margin_us, miscall=miscall)

    def _round_over(self, outcome: RoundOutcome, winner: str | None = None, won: int = 0,
                    decided_by: DecidedBy | None = None, call: Call | None = None,
                    rivals: tuple = (), tied: tuple = (), margin_us: int | None = None,
                    miscall: Call | None = None) -> RoundOver:
        assert self.top is not None
        return RoundOver(self.round, self.top, outcome, winner, won, self.pile, decided_by,
                         call, tuple(rivals), tied, dict(self.scores), margin_us, miscall)
