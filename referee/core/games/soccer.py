"""The soccer card game (Laurence Antonios): forwards, blocks, penalty kicks, overtime.

The rules in our own words (the seed, RULINGS.md soccer 1-5, and ours):

* Two players, one 52-card deck. Each draws 6 to start (40 left in the draw
  pile). The first player named attacks first, in every round.
* A round: the attacker flips their two forwards one at a time; for each
  the defender names a block (one card or two) or says "no block". Then the
  roles swap for the other player's two forwards. After the four forwards
  both players draw 4 and the referee says so.
* A forward is blocked by one of four methods (see
  :mod:`referee.core.games.soccer_blocks`): a goalie (J, Q, K) of its colour;
  a card of its number; two cards whose sum or difference is its number;
  two cards of its suit. Goalies have no number; an ace is 1. A block that
  matches two methods is one block. A blocked forward and its blockers go to
  the discard pile; an unblocked forward is a goal and the attacker keeps it.
* Penalty kick: a goalie flipped as a forward, with the attacker naming a
  second goalie to discard, is an unblockable goal (the forward scores, the
  second goalie is discarded). Without a second goalie the forward does
  nothing and is discarded. The referee asks which, after a goalie forward.
* The draw pile: 52 - 12 = 40 at the start, 8 fewer per round. The round
  that ends with 8 left is followed by the last draw, and the referee says
  the next round is the last. After the last round (nothing left to draw)
  the player with more goals wins.
* Overtime: a tie after the last round shuffles the discard pile into a new
  draw pile; play goes on round by round, each round ending with the draw,
  until one player leads (by 1 or more) at the end of a round.
* One deck: a card that is out of play (scored, discarded, used to block)
  or on the table as the current forward cannot be named again; the referee
  says so and asks again, and nothing changes.

Our rulings (docs/rulings-soccer.md says why):

* S1. A failed block is not a goal at once: the referee says why it fails and
  the defender may name another block or concede with "no block"; the cards
  stay in the hand. Option ``failed_block: "goal"`` scores it at once.
* S2. A block is one card or two, judged as named; three or more fail.
* S3. After a goalie forward the attacker is asked for the second goalie;
  a card that is no goalie, or out of play, is asked again; "no penalty"
  discards the forward.
* S4. The round that ends with 8 left is followed by the last draw; the
  referee says the next round is the last.
* S5. Overtime: at the tie the discard pile is reshuffled and both draw 4;
  each overtime round ends with a draw, the discard pile shuffled in first
  when fewer than 8 are left (then each draws half, rounded down). It ends
  with the first overtime round after which one player leads.
* S6. The first player named attacks first in every round.
* S7. Out of play: scored, discarded and blocking cards, and the forward on
  the table; after an overtime reshuffle the discarded cards are back.
* S8. Undo takes back the latest accepted play (forward, block, penalty),
  with its goal and round end; a game that is over stays over. While
  paused, plays are refused.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Mapping

from referee.core.cards import Card
from referee.core.clock import us
from referee.core.errors import RefereeError
from referee.core.events import Asked, Command
from referee.core.games.soccer_blocks import check_block, is_goalie
from referee.core.games.soccer_events import (  # noqa: F401  (the game's events, re-exported)
    Attack, Block, BlockFailed, Blocked, Fizzled, Forward, Goal, Overtime, Penalty, Rejected,
    RoundOver, SoccerOver, SoccerPaused, Undone,
)
from referee.core.options import OptionError, check_known

DECK_SIZE, FIRST_HAND, DRAW = 52, 6, 4
FAILED_BLOCK = ("retry", "goal")


class SoccerError(RefereeError, ValueError):
    """An event the soccer game cannot take (an unknown player, a bad option)."""


@dataclass(frozen=True)
class SoccerOptions:
    failed_block: str = "retry"
    """``'retry'`` (the defender may block again or concede) or ``'goal'``."""

    @classmethod
    def from_dict(cls, options: Mapping) -> SoccerOptions:
        check_known("soccer", options, {"failed_block"})
        failed = options.get("failed_block", cls.failed_block)
        if failed not in FAILED_BLOCK:
            raise OptionError(f"failed_block must be 'retry' or 'goal', not {failed!r}")
        return cls(failed)


# --- The state machine ---------------------------------------------------------------

ATTACK, DEFEND, PENALTY, OVER = "attack", "defend", "penalty", "over"
FORWARD_KINDS = frozenset({"call", "command"})
"""What is heard while a forward is awaited: the card flipped, and commands."""
PLAY_KINDS = frozenset({"call", "play", "command"})
"""What is heard while a block or a penalty kick is awaited: a card, a play ("block with
nine of hearts and two of hearts", "no block", "penalty queen of clubs"), and commands."""


@dataclass
class _State:
    round: int = 1
    attacker: int = 0
    """Index of the attacking player."""
    number: int = 1
    phase: str = ATTACK
    forward: Card | None = None
    goals: dict = field(default_factory=dict)
    pile: int = DECK_SIZE - 2 * FIRST_HAND
    out: dict = field(default_factory=dict)
    """Card -> why it is out of play: 'scored', 'discarded', 'used to block'."""
    overtime: bool = False
    last_round: bool = False
    paused: bool = False


class SoccerGame:
    """The soccer card game as a pure state machine for :class:`referee.core.judge.Judge`."""

    def __init__(self, players, options: SoccerOptions | None = None) -> None:
        if len(players) != 2:
            raise SoccerError("the soccer game is for two players")
        if len(set(players)) != 2:
            raise SoccerError("player names must differ")
        self.players = tuple(players)
        self.options = options or SoccerOptions()
        self.s = _State(goals={p: 0 for p in self.players})
        self._undo: list[tuple[_State, str]] = []
        self.last: object | None = None
        """The latest decision (Blocked, Goal, BlockFailed, Fizzled), for the screen."""

    # Views -----------------------------------------------------------------
    @property
    def scores(self) -> dict:
        return dict(self.s.goals)

    @property
    def attacker(self) -> str:
        return self.players[self.s.attacker]

    @property
    def defender(self) -> str:
        return self.players[1 - self.s.attacker]

    @property
    def phase(self) -> str:
        return self.s.phase

    @property
    def listening_for(self) -> frozenset[str]:
        """The phrase kinds to hear now: :data:`FORWARD_KINDS` while a forward is awaited
        (no block or penalty then), else :data:`PLAY_KINDS`."""
        return FORWARD_KINDS if self.s.phase == ATTACK else PLAY_KINDS

    @property
    def forward(self) -> Card | None:
        return self.s.forward

    @property
    def round(self) -> int:
        return self.s.round

    @property
    def pile(self) -> int:
        return self.s.pile

    @property
    def expects(self) -> str | None:
        """Whose play the game waits for (the one microphone's speaker)."""
        if self.s.phase in (ATTACK, PENALTY):
            return self.attacker
        return self.defender if self.s.phase == DEFEND else None

    # Judge protocol -----------------------------------------------------------
    @staticmethod
    def time_key(event) -> tuple:
        if isinstance(event, (Forward, Block, Penalty)):
            return (us(event.at), 0, event.player)
        if isinstance(event, Command):
            return (us(event.at), 1, event.name)
        raise SoccerError(f"the soccer game takes forwards, blocks, penalties and commands, "
                          f"not {type(event).__name__}")

    def advance(self, now: int) -> list:
        return []

    def feed(self, event) -> list:
        if self.s.phase == OVER:
            return [Rejected(event.at, getattr(event, "player", "") or "",
                             "the game is over", "")]
        if isinstance(event, Command):
            return self._command(event)
        if event.player not in self.players:
            raise SoccerError(f"unknown player {event.player!r}")
        if self.s.paused:
            return [Rejected(event.at, event.player, "the game is paused", "Say resume to go on.")]
        if isinstance(event, Forward):
            return self._forward(event)
        if isinstance(event, Block):
            return self._block(event)
        return self._penalty(event)

    def finish(self) -> list:
        if self.s.phase == OVER:
            return []
        self.s.phase = OVER
        return [self._over(ended_early=True)]

    # Plays ---------------------------------------------------------------------
    def _turn(self, event, phase: str) -> Rejected | None:
        """A Rejected when it is not this player's turn for this play."""
        s = self.s
        if s.phase == phase and event.player == self.expects:
            return None
        if s.phase == ATTACK:
            why, ask = f"it is {self.attacker}'s turn to flip a forward", f"{self.attacker}, your forward?"
        elif s.phase == DEFEND:
            why = f"{self.defender} has to block the {s.forward.spoken}"
            ask = f"{self.defender}, your block?"
        else:
            why = f"{self.attacker} has flipped a goalie: penalty kick or not?"
            ask = f"{self.attacker}, name your second goalie, or say no penalty."
        return Rejected(event.at, event.player, why, ask)

    def _named_twice(self, event, cards: tuple[Card, ...], ask: str) -> Rejected | None:
        seen: set[Card] = set()
        for c in cards:
            if c in seen:
                return Rejected(event.at, event.player, f"the {c.spoken} is named twice", ask)
            seen.add(c)
            if c in self.s.out:
                return Rejected(event.at, event.player,
                                f"the {c.spoken} is out of play: it was {self.s.out[c]}", ask)
            if c == self.s.forward:
                return Rejected(event.at, event.player, f"the {c.spoken} is the forward", ask)
        return None

    def _save(self, what: str) -> None:
        self._undo.append((copy.deepcopy(self.s), what))

    def _forward(self, event: Forward) -> list:
        wrong = self._turn(event, ATTACK) or self._named_twice(
            event, (event.card,), f"{event.player}, which forward?")
        if wrong:
            return [wrong]
        s = self.s
        self._save(f"{event.player}'s forward, the {event.card.spoken}")
        s.forward = event.card
        goalie = is_goalie(event.card)
        s.phase = PENALTY if goalie else DEFEND
        return [Attack(s.round, self.attacker, self.defender, event.card, s.number, goalie)]

    def _block(self, event: Block) -> list:
        wrong = self._turn(event, DEFEND) or self._named_twice(
            event, event.cards, f"{event.player}, your block?")
        if wrong:
            return [wrong]
        s = self.s
        forward = s.forward
        check = check_block(forward, event.cards)
        if not event.cards:
            self._save(f"{event.player}'s no block")
            return self._goal("no block", (), "no block")
        if not check.holds:
            if self.options.failed_block == "retry":
                self.last = BlockFailed(s.round, event.player, forward, event.cards, check.reason)
                return [self.last]
            self._save(f"{event.player}'s failed block")
            return self._goal("failed block", event.cards, check.reason)
        self._save(f"{event.player}'s block of the {forward.spoken}")
        s.out[forward] = "discarded"
        for c in event.cards:
            s.out[c] = "used to block"
        self.last = Blocked(s.round, event.player, forward, event.cards, check.methods, check.reason)
        return [self.last] + self._next()

    def _penalty(self, event: Penalty) -> list:
        ask = f"{event.player}, name your second goalie, or say no penalty."
        wrong = self._turn(event, PENALTY)
        if wrong:
            return [wrong]
        s = self.s
        if event.card is None:
            self._save(f"{event.player}'s goalie forward")
            s.out[s.forward] = "discarded"
            self.last = Fizzled(s.round, event.player, s.forward)
            return [self.last] + self._next()
        if not is_goalie(event.card):
            return [Rejected(event.at, event.player, f"the {event.card.spoken} is not a goalie", ask)]
        wrong = self._named_twice(event, (event.card,), ask)
        if wrong:
            return [wrong]
        self._save(f"{event.player}'s penalty kick")
        return self._goal("penalty kick", (event.card,), f"{event.card.spoken} discarded")

    def _goal(self, how: str, cards: tuple[Card, ...], reason: str) -> list:
        s = self.s
        s.goals[self.attacker] += 1
        s.out[s.forward] = "scored"
        if how == "penalty kick":
            s.out[cards[0]] = "discarded"
        self.last = Goal(s.round, self.attacker, s.forward, how, cards, reason, dict(s.goals))
        return [self.last] + self._next()

    def _next(self) -> list:
        """The forward is resolved: the next forward, or the end of the round."""
        s = self.s
        s.forward = None
        s.phase = ATTACK
        if s.number == 1:
            s.number = 2
            return []
        s.number = 1
        if s.attacker == 0:
            s.attacker = 1
            return []
        s.attacker = 0
        return self._round_over()

    def _round_over(self) -> list:
        s = self.s
        a, b = (s.goals[p] for p in self.players)
        played_overtime = s.overtime
        if s.overtime and a != b:
            return [RoundOver(s.round, dict(s.goals), 0, s.pile, False, True), self._end()]
        if not s.overtime and s.pile == 0:
            if a != b:
                return [RoundOver(s.round, dict(s.goals), 0, 0, False, False), self._end()]
            s.overtime = True
            reshuffled = self._reshuffle()
            drawn = self._draw()
            s.round += 1
            return [RoundOver(s.round - 1, dict(s.goals), 0, 0, False, False),
                    Overtime(dict(s.goals), reshuffled, drawn, s.pile)]
        if s.overtime and s.pile < 2 * DRAW:
            self._reshuffle()
        drawn = self._draw()
        s.round += 1
        s.last_round = not s.overtime and s.pile == 0
        return [RoundOver(s.round - 1, dict(s.goals), drawn, s.pile, s.last_round, played_overtime)]

    def _reshuffle(self) -> int:
        """The discard pile goes under the draw pile; returns its size."""
        s = self.s
        discarded = [c for c, why in s.out.items() if why != "scored"]
        for c in discarded:
            del s.out[c]
        s.pile += len(discarded)
        return len(discarded)

    def _draw(self) -> int:
        drawn = min(DRAW, self.s.pile // 2)
        self.s.pile -= 2 * drawn
        return drawn

    def _end(self) -> SoccerOver:
        self.s.phase = OVER
        return self._over(ended_early=False)

    def _over(self, ended_early: bool) -> SoccerOver:
        s = self.s
        a, b = (s.goals[p] for p in self.players)
        winner = None if a == b else self.players[0 if a > b else 1]
        begun = not (s.attacker == 0 and s.number == 1 and s.forward is None)
        rounds = s.round if begun or not ended_early else s.round - 1
        return SoccerOver(dict(s.goals), winner, rounds, ended_early)

    # Commands -------------------------------------------------------------------
    def _command(self, c: Command) -> list:
        s = self.s
        if c.name == "undo":
            if not self._undo:
                return [Undone("", s.round, dict(s.goals))]
            paused = s.paused
            self.s, what = self._undo.pop()
            self.s.paused = paused
            self.last = None
            return [Undone(what, self.s.round, dict(self.s.goals))]
        if c.name in ("pause", "resume"):
            if s.paused == (c.name == "pause"):
                return []
            s.paused = c.name == "pause"
            return [SoccerPaused(s.paused, c.at)]
        if c.name == "end":
            return self.finish()
        return [Asked(c)]
