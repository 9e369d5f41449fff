"""The soccer card game at the table: spoken and typed plays in, sentences out.

Whose turn it is tells who is speaking: with one microphone for the table
(the ``table`` channel) every play is the player the game waits for; with
one microphone per player, the mic's owner (the game refuses a play out of
turn, aloud). A card name means what the moment asks for: the forward when
the attacker is to flip, a one-card block when the defender is to block,
the second goalie after a goalie forward. The phrases (``grammars/table.json``,
kind ``play``):

* ``block with five of diamonds``, ``nine of diamonds and four of diamonds``
  (``block with`` optional), ``no block``;
* ``penalty queen of hearts``, ``no penalty``.

Typed, the same in short forms: ``5S``, ``block 9D 4D``, ``9D 4D``, ``no block``,
``penalty QH``, ``no penalty``.

When the game waits for a play and nothing is heard for ``reask`` seconds,
the referee asks again, once (:class:`Prompter`).
"""

from __future__ import annotations

import re

from referee.core.cards import Card
from referee.core.errors import RefereeError
from referee.core.games import soccer_events as ev
from referee.core.games.soccer import ATTACK, DEFEND, PENALTY, SoccerGame
from referee.core.numbers import spoken_number
from referee.core.spoken import spoken_name

#: The channel name of one microphone shared by the whole table.
SHARED_MIC = "table"


class PlayError(RefereeError, ValueError):
    """Typed text that is no soccer play; the message names it."""


def _cards(text: str) -> tuple[Card, ...] | None:
    """The cards of ``'nine of diamonds and four of diamonds'`` or ``'9D 4D'``; None if unreadable."""
    parts = [p for p in re.split(r"\s+and\s+|\s*,\s*|\s*\+\s*", text.strip()) if p]
    if len(parts) == 1 and Card.find(parts[0]) is None:
        parts = parts[0].split()
    cards = tuple(Card.find(p) for p in parts)
    return cards if cards and all(c is not None for c in cards) else None


def read(game: SoccerGame, said: str, player: str | None, at: float):
    """The happening for a phrase (canonical grammar form or typed text) said
    by ``player`` (None: the shared mic, so the player the game waits for).
    None when it means nothing now (the game is over)."""
    who = player or game.expects
    if who is None:
        return None
    t = " ".join(said.lower().split())
    if t == "no block":
        return ev.Block(who, (), at)
    if t == "no penalty":
        return ev.Penalty(who, None, at)
    for word, make in (("block", lambda cs: ev.Block(who, cs, at)),
                       ("penalty", lambda cs: ev.Penalty(who, cs[0], at) if len(cs) == 1 else None)):
        if t.startswith(word + " "):
            rest = re.sub(r"^with\s+", "", t[len(word) + 1:])
            cards = _cards(rest)
            return make(cards) if cards else None
    cards = _cards(t)
    if not cards:
        return None
    if len(cards) > 1:
        return ev.Block(who, cards, at)
    card = cards[0]
    if game.phase == ATTACK:
        return ev.Forward(who, card, at)
    if game.phase == PENALTY:
        return ev.Penalty(who, card, at)
    if game.phase == DEFEND:
        return ev.Block(who, (card,), at)
    return None


def read_typed(game: SoccerGame, text: str, at: float):
    """A typed play by the player whose turn it is; raises :class:`PlayError`."""
    happening = read(game, text, None, at)
    if happening is None:
        raise PlayError(f"not a soccer play: {text.strip()!r} (a card like 5S, "
                        "'block 9D 4D', 'no block', 'penalty QH', 'no penalty')")
    return happening


def question(game: SoccerGame) -> str | None:
    """What the referee asks the player it waits for."""
    if game.phase == ATTACK:
        return f"{spoken_name(game.attacker)}, your forward?"
    if game.phase == DEFEND:
        return f"{spoken_name(game.defender)}, block the {game.forward.spoken}, or no block?"
    if game.phase == PENALTY:
        return f"{spoken_name(game.attacker)}, name your second goalie, or say no penalty."
    return None


def _score(goals) -> str:
    return ", ".join(f"{spoken_name(p)} {spoken_number(n)}" for p, n in goals.items())


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def sentence(v) -> str | None:
    """What the referee says for a soccer verdict; None for other verdicts."""
    if isinstance(v, ev.Attack):
        if v.goalie:
            return (f"{_cap(v.forward.spoken)}: a goalie. {spoken_name(v.attacker)}, penalty kick? "
                    "Name your second goalie, or say no penalty.")
        return f"{_cap(v.forward.spoken)}. {spoken_name(v.defender)}, block?"
    if isinstance(v, ev.Blocked):
        return f"Blocked: {v.reason}."
    if isinstance(v, ev.Goal):
        head = {"no block": "Goal!", "penalty kick": "Penalty kick: goal!",
                "failed block": f"{_cap(v.reason)}: goal!"}[v.how]
        return f"{head} {_score(v.goals)}."
    if isinstance(v, ev.BlockFailed):
        return f"{_cap(v.reason)}. {spoken_name(v.defender)}, another block, or no block?"
    if isinstance(v, ev.Fizzled):
        return f"No second goalie: the {v.forward.spoken} is discarded."
    if isinstance(v, ev.Rejected):
        return f"{_cap(v.reason)}. {v.question}".strip() if v.reason != "the game is over" else None
    if isinstance(v, ev.RoundOver):
        text = f"{'Overtime round' if v.overtime else 'Round'} {spoken_number(v.round)} over."
        if v.drawn:
            text += f" Both draw {spoken_number(v.drawn)}: {spoken_number(v.pile)} left."
        if v.last_round_next:
            text += " Last round!"
        return text
    if isinstance(v, ev.Overtime):
        n = next(iter(v.goals.values()))
        return (f"Tied at {spoken_number(n)}: overtime! The discard pile is shuffled in: "
                f"{spoken_number(v.reshuffled)} cards. "
                f"Both draw {spoken_number(v.drawn)}: {spoken_number(v.pile)} left.")
    if isinstance(v, ev.Undone):
        return f"Undone: {v.what}." if v.what else "Nothing to undo."
    if isinstance(v, ev.SoccerPaused):
        return "Paused." if v.paused else "Resumed."
    if isinstance(v, ev.SoccerOver):
        if v.winner is None:
            return f"Game over: a tie, {_score(v.goals)}."
        a, b = sorted(v.goals.values(), reverse=True)
        return f"Game over. {spoken_name(v.winner)} wins, {spoken_number(a)} to {spoken_number(b)}."
    return None


def standing(game: SoccerGame) -> list[str]:
    """Where the game stands, for a resumed game."""
    if game.phase == "over":
        return []
    out = [f"Round {spoken_number(game.round)}, {spoken_number(game.pile)} cards in the draw pile."]
    q = question(game)
    return out + ([q] if q else [])


class Prompter:
    """Asks again, once, when the game waits for a play and nothing is heard for ``reask``
    seconds (a player thinking over a block is not nagged again)."""

    def __init__(self, reask: float = 10.0) -> None:
        self.reask = reask
        self.since: float | None = None
        self.asked = False

    def heard(self, at: float) -> None:
        """Something was said or decided at ``at``: the wait starts again."""
        self.since = at if self.since is None else max(self.since, at)
        self.asked = False

    def tick(self, game: SoccerGame, now: float) -> str | None:
        if self.since is None:
            self.since = now
        if self.reask <= 0 or self.asked or now - self.since < self.reask:
            return None
        self.asked = True
        q = question(game)
        return f"Still waiting: {q}" if q else None
