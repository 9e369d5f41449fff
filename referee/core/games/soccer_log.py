"""The soccer card game in the journal: its happenings and verdicts as JSON objects.

Happenings (input lines; times are seconds on one clock)::

    {"type":"forward","player":"ann","card":"5S","at":12.5}
    {"type":"block","player":"bob","cards":["9D","4D"],"at":14.0}     ([] for "no block")
    {"type":"penalty","player":"ann","card":"QH","at":20.1}           (null for "no penalty")

Verdicts (output lines): ``attack``, ``blocked``, ``goal``, ``failed-block``,
``fizzled``, ``rejected``, ``round-over``, ``overtime``, and the shared
``undone``, ``paused`` and ``final``. :mod:`referee.core.journal` calls this
module; it does not import the journal (which imports it).
"""

from __future__ import annotations

import math
from typing import Any

from referee.core.cards import Card, CardError
from referee.core.errors import RefereeError
from referee.core.games import soccer_events as ev

HAPPENING_TYPES = ("forward", "block", "penalty")
VERDICT_TYPES = frozenset({"attack", "blocked", "goal", "failed-block", "fizzled", "rejected",
                           "round-over", "overtime"})
#: The decisions, printed by ``--json`` without ``--all`` and announced first.
SUMMARY_TYPES = ("goal", "blocked", "fizzled", "round-over", "overtime")


class SoccerLogError(RefereeError, ValueError):
    """A soccer line that cannot be read; the journal adds the line number."""


def encode(event: Any) -> dict | None:
    """The JSON object for a soccer happening, or None for another kind of event."""
    if isinstance(event, ev.Forward):
        return {"type": "forward", "player": event.player, "card": str(event.card), "at": event.at}
    if isinstance(event, ev.Block):
        return {"type": "block", "player": event.player, "cards": [str(c) for c in event.cards],
                "at": event.at}
    if isinstance(event, ev.Penalty):
        return {"type": "penalty", "player": event.player,
                "card": None if event.card is None else str(event.card), "at": event.at}
    return None


def _card(text: Any, what: str) -> Card:
    try:
        if not isinstance(text, str):
            raise CardError(str(text))
        return Card.parse(text)
    except CardError:
        raise SoccerLogError(f"unknown card {text!r} in {what}") from None


def _at(obj: dict) -> float:
    value = obj.get("at")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise SoccerLogError(f"field 'at' must be a number of seconds, not {value!r}")
    return float(value)


def decode(obj: dict, player: str) -> Any:
    """The happening of a ``forward``, ``block`` or ``penalty`` line whose
    player the journal has checked."""
    kind = obj["type"]
    if kind == "forward":
        if "card" not in obj:
            raise SoccerLogError("forward line is missing the field 'card'")
        return ev.Forward(player, _card(obj["card"], "forward"), _at(obj))
    if kind == "block":
        cards = obj.get("cards")
        if not isinstance(cards, list):
            raise SoccerLogError(f"field 'cards' must be a list of cards ([] for no block), not {cards!r}")
        return ev.Block(player, tuple(_card(c, "block") for c in cards), _at(obj))
    if "card" not in obj:
        raise SoccerLogError("penalty line is missing the field 'card' (null for no penalty)")
    card = obj["card"]
    return ev.Penalty(player, None if card is None else _card(card, "penalty"), _at(obj))


def _cards(cards) -> list[str]:
    return [str(c) for c in cards]


VERDICT_ENCODERS = {
    ev.Attack: lambda v: {"type": "attack", "round": v.round, "attacker": v.attacker,
                          "defender": v.defender, "forward": str(v.forward), "number": v.number,
                          "goalie": v.goalie},
    ev.Blocked: lambda v: {"type": "blocked", "round": v.round, "defender": v.defender,
                           "forward": str(v.forward), "cards": _cards(v.cards),
                           "methods": [m.value for m in v.methods], "reason": v.reason},
    ev.Goal: lambda v: {"type": "goal", "round": v.round, "attacker": v.attacker,
                        "forward": str(v.forward), "how": v.how, "cards": _cards(v.cards),
                        "reason": v.reason, "goals": dict(v.goals)},
    ev.BlockFailed: lambda v: {"type": "failed-block", "round": v.round, "defender": v.defender,
                               "forward": str(v.forward), "cards": _cards(v.cards), "reason": v.reason},
    ev.Fizzled: lambda v: {"type": "fizzled", "round": v.round, "attacker": v.attacker,
                           "forward": str(v.forward)},
    ev.Rejected: lambda v: {"type": "rejected", "at": v.at, "player": v.player, "reason": v.reason,
                            "question": v.question},
    ev.RoundOver: lambda v: {"type": "round-over", "round": v.round, "goals": dict(v.goals),
                             "drawn": v.drawn, "pile": v.pile, "last_round_next": v.last_round_next,
                             "overtime": v.overtime},
    ev.Overtime: lambda v: {"type": "overtime", "goals": dict(v.goals), "reshuffled": v.reshuffled,
                            "drawn": v.drawn, "pile": v.pile},
    ev.Undone: lambda v: {"type": "undone", "what": v.what, "round": v.round, "goals": dict(v.goals)},
    ev.SoccerPaused: lambda v: {"type": "paused", "paused": v.paused, "at": v.at},
    ev.SoccerOver: lambda v: {"type": "final", "scores": dict(v.goals), "winner": v.winner,
                              "rounds": v.rounds, "ended_early": v.ended_early},
}


def describe(v: Any) -> str | None:
    """One readable line for a soccer verdict (``referee replay`` without --json); None if not ours."""
    if isinstance(v, ev.Attack):
        then = "a goalie: penalty kick or not?" if v.goalie else f"{v.defender} to block"
        return f"round {v.round}: {v.attacker}'s forward {v.number}, the {v.forward.symbol}; {then}"
    if isinstance(v, ev.Blocked):
        block = " and ".join(c.symbol for c in v.cards)
        methods = ", ".join(m.value for m in v.methods)
        return f"round {v.round}: {v.defender} blocks the {v.forward.symbol} with {block}: {v.reason} ({methods})"
    if isinstance(v, ev.Goal):
        score = ", ".join(f"{p} {n}" for p, n in v.goals.items())
        why = {"no block": "no block",
               "penalty kick": f"penalty kick, {v.reason}",
               "failed block": f"the block fails: {v.reason}"}[v.how]
        return f"round {v.round}: goal for {v.attacker} with the {v.forward.symbol}: {why}; goals: {score}"
    if isinstance(v, ev.BlockFailed):
        block = " and ".join(c.symbol for c in v.cards)
        return (f"round {v.round}: {v.defender}'s block {block} fails against the {v.forward.symbol}: "
                f"{v.reason}; {v.defender} may block again or concede")
    if isinstance(v, ev.Fizzled):
        return (f"round {v.round}: {v.attacker}'s goalie forward, the {v.forward.symbol}, "
                f"has no second goalie: discarded, no goal")
    if isinstance(v, ev.Rejected):
        return f"{v.player or 'the table'} at {v.at:.2f} s: not taken, {v.reason}"
    if isinstance(v, ev.RoundOver):
        score = ", ".join(f"{p} {n}" for p, n in v.goals.items())
        head = f"round {v.round} over{' (overtime)' if v.overtime else ''}: goals {score}"
        if v.drawn:
            head += f"; both draw {v.drawn}, {v.pile} left"
        if v.last_round_next:
            head += "; the next round is the last"
        return head
    if isinstance(v, ev.Overtime):
        return (f"tied: overtime; the discard pile ({v.reshuffled} cards) is shuffled into the "
                f"draw pile; both draw {v.drawn}, {v.pile} left")
    if isinstance(v, ev.Undone):
        return f"undo: {v.what} is taken back" if v.what else "undo: there is nothing to undo"
    if isinstance(v, ev.SoccerPaused):
        return f"{'paused' if v.paused else 'resumed'} at {v.at:.2f} s"
    if isinstance(v, ev.SoccerOver):
        score = ", ".join(f"{p} {n}" for p, n in v.goals.items())
        result = f"{v.winner} wins" if v.winner else "no winner"
        return f"final after {v.rounds} rounds: {score}; {result}" + (" (ended early)" if v.ended_early else "")
    return None
