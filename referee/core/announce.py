"""What the referee says aloud about each verdict: short, plain sentences.

Pure: verdicts in, sentences out. Which verdicts are spoken depends on the
verbosity: ``quiet`` (wins, draws, the end), ``normal`` (also forfeits,
undo, pause) or ``verbose`` (also every miscall and reset).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from referee.core.games import goop

from referee.core.games import stroop
from referee.core.games import soccer_talk
from referee.core.account import names as _names

VERBOSITY = ("quiet", "normal", "verbose")


def _cards(n: int) -> str:
    return "one card" if n == 1 else f"{n} cards"


def scores_sentence(scores: Mapping[str, int], unit: str = "") -> str:
    """``'Score: Bob 5, Ann 3.'``: highest first."""
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])
    return "Score: " + ", ".join(f"{p} {n}{unit}" for p, n in ranked) + "."


@dataclass
class Announcer:
    """Turns verdicts into sentences to speak, and counts rounds for the
    score announcements every ``scores_every`` rounds (0: never)."""

    verbosity: str = "normal"
    scores_every: int = 1
    hair: float = 0.3
    """Seconds: a qualifying call this late after the winner makes the win
    "by a hair", and the referee says so."""

    def __post_init__(self) -> None:
        if self.verbosity not in VERBOSITY:
            raise ValueError(f"verbosity must be one of {', '.join(VERBOSITY)}, not {self.verbosity!r}")
        if self.scores_every < 0:
            raise ValueError(f"scores_every must be 0 or more, not {self.scores_every}")
        self._decided = 0
        self._haired: set[int] = set()

    def say(self, verdict: Any) -> str | None:
        """The sentence for a verdict, or None when it is not spoken."""
        v = verdict
        soccer = soccer_talk.sentence(v)
        if soccer is not None:
            return soccer
        verbose = self.verbosity == "verbose"
        normal = self.verbosity != "quiet"
        if isinstance(v, stroop.RoundOver):
            if v.outcome == "unwon":
                return None
            self._decided += 1
            text = self._round(v)
            if self.scores_every and self._decided % self.scores_every == 0:
                text += " " + scores_sentence(v.scores)
            return text
        if isinstance(v, stroop.CallJudged):
            if v.late_by is not None and v.late_by <= self.hair and v.round not in self._haired:
                self._haired.add(v.round)
                return f"By a hair: {v.call.player} finished {round(v.late_by * 1000)} milliseconds later."
            return None
        if isinstance(v, stroop.PlayerOut):
            return f"{v.player} is out this round." if verbose else None
        if isinstance(v, stroop.AllActive):
            return "Everyone missed. All back in." if verbose else None
        if isinstance(v, stroop.Undone):
            if not normal:
                return None
            if v.round is None:
                return "Nothing to undo."
            if v.winner is None:
                return "Draw undone."
            return f"Undone: {v.winner} gives back {_cards(v.cards)}." + (
                " The round is open." if v.reopened else "")
        if isinstance(v, stroop.Paused):
            return ("Paused." if v.paused else "Resumed.") if normal else None
        if isinstance(v, stroop.GameOver):
            return self._game_over(v.scores, "card")
        if isinstance(v, goop.Gooped):
            return f"Goop! {_names(v.goopers)} {'is' if len(v.goopers) == 1 else 'are'} out."
        if isinstance(v, goop.HandOver):
            return self._hand(v)
        if isinstance(v, goop.GoopOver):
            return None if v.winner else "Game ended before anyone reached the target. " + scores_sentence(v.totals)
        return None

    def _round(self, v: stroop.RoundOver) -> str:
        if v.outcome == "draw":
            return f"Draw between {_names(v.tied)}! The cards stay."
        if v.decided_by == "forfeit":
            loser = v.winning_call.player if v.winning_call else "the other player"
            return f"{loser} miscalled. {v.winner} takes {_cards(v.pile)}."
        if v.decided_by == "beginning":
            return f"{v.winner}, by a hair: started first. {_cards(v.pile).capitalize()}."
        return f"{v.winner} wins {_cards(v.pile)}."

    def _hand(self, v: goop.HandOver) -> str:
        parts = []
        if v.false_goop:
            parts.append(f"False Goop by {_names(v.false_goop)}!")
        parts.append(scores_sentence(v.totals))
        if v.game_over:
            best = max(v.totals.values())
            winner = next(p for p, n in v.totals.items() if n == best)
            parts.append(f"Game over. {winner} wins with {best} points.")
            return " ".join(parts)
        if v.tied_at_top:
            parts.append(f"{_names(v.tied_at_top)} tie at the top: one more hand.")
        parts.append(f"Decks: {', '.join(v.pick_order)}. {v.says_go} says go.")
        return " ".join(parts)

    @staticmethod
    def _game_over(scores: Mapping[str, int], unit: str) -> str:
        best = max(scores.values())
        leaders = [p for p, n in scores.items() if n == best]
        amount = f"{best} {unit}" + ("" if best == 1 else "s")
        head = (f"Game over. {leaders[0]} wins with {amount}." if len(leaders) == 1
                else f"Game over. {_names(leaders)} tie with {amount}.")
        others = {p: n for p, n in scores.items() if p not in leaders}
        return head + (" " + scores_sentence(others, "") if others else "")
