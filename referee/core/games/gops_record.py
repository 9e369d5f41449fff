"""GOPS in the journal: its happenings and verdicts as JSON objects, and the
readable line `referee replay` prints for each verdict.

Input lines::

    {"type":"game","game":"gops","players":["ann","bob"],
     "options":{"setup":"purple","virtual_prizes":false}}
    {"type":"prize","card":"green five","at":3.2}
    {"type":"bid","player":"ann","value":9,"at":7.4}

Output lines: the types in :data:`OUTPUT_TYPES` (``won``, ``tied``,
``tie-stands`` and ``final`` are the decisions).
"""

from __future__ import annotations

import math
from typing import Any

from referee.core.account import names
from referee.core.cards import RANK_WORDS
from referee.core.errors import RefereeError
from referee.core.games import gops

INPUT_TYPES = ("prize", "bid")
OUTPUT_TYPES = frozenset({"prize-up", "reshuffle", "bid-taken", "bid-refused", "prize-refused",
                          "won", "tied", "tie-stands", "hands-back", "gops-undone"})
SUMMARY_TYPES = ("won", "tied", "tie-stands")


class GopsLogError(RefereeError, ValueError):
    """A GOPS line that cannot be read; the message names the field."""


def encode(event: Any) -> dict:
    if isinstance(event, gops.PrizeTurned):
        return {"type": "prize", "card": event.card, "at": event.at}
    return {"type": "bid", "player": event.player, "value": event.value, "at": event.at}


def _time(obj: dict, name: str) -> float:
    value = obj.get(name)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise GopsLogError(f"field {name!r} must be a number of seconds, not {value!r}")
    return float(value)


def decode(obj: dict, players) -> Any:
    """The happening of a ``prize`` or ``bid`` line."""
    if obj["type"] == "prize":
        card = obj.get("card")
        if not isinstance(card, str) or not card:
            raise GopsLogError(f"a prize line needs the card's name, not {card!r}")
        return gops.PrizeTurned(card, _time(obj, "at"))
    player, value = obj.get("player"), obj.get("value")
    if player not in players:
        raise GopsLogError(f"unknown player {player!r} (players: {', '.join(players)})")
    if isinstance(value, bool) or not isinstance(value, int) or value not in RANK_WORDS:
        raise GopsLogError(f"a bid's value must be a rank from 1 (ace) to 13 (king), not {value!r}")
    return gops.Bid(player, value, _time(obj, "at"))


def _bids(bids) -> dict:
    return {p: list(b) for p, b in bids.items()}


VERDICT_ENCODERS = {
    gops.PrizeUp: lambda v: {"type": "prize-up", "prize": v.prize, "points": v.points,
                             "tie_break": v.tie_break, "pile": v.pile},
    gops.Reshuffled: lambda v: {"type": "reshuffle", "cards": list(v.cards)},
    gops.BidTaken: lambda v: {"type": "bid-taken", "player": v.player, "value": v.value,
                              "stage": v.stage, "replaced": v.replaced},
    gops.BidRefused: lambda v: {"type": "bid-refused", "player": v.player, "value": v.value,
                                "reason": v.reason},
    gops.PrizeRefused: lambda v: {"type": "prize-refused", "prize": v.prize, "reason": v.reason,
                                  "waiting": list(v.waiting)},
    gops.PrizeWon: lambda v: {"type": "won", "winner": v.winner, "prizes": list(v.prizes),
                              "points": v.points, "bids": _bids(v.bids), "totals": dict(v.totals)},
    gops.Tied: lambda v: {"type": "tied", "players": list(v.players), "bids": _bids(v.bids),
                          "prize": v.prize, "then": v.then},
    gops.TieStands: lambda v: {"type": "tie-stands", "players": list(v.players),
                               "bids": _bids(v.bids), "prizes": list(v.prizes)},
    gops.HandsBack: lambda v: {"type": "hands-back", "players": list(v.players)},
    gops.GopsUndone: lambda v: {"type": "gops-undone", "what": v.what},
    gops.GopsPaused: lambda v: {"type": "paused", "paused": v.paused, "at": v.at},
    gops.GopsOver: lambda v: {"type": "final", "scores": dict(v.totals), "winners": list(v.winners),
                              "complete": v.complete},
}

VERDICTS = tuple(VERDICT_ENCODERS)

REFUSALS = {
    "discard": "is in the bid discard pile",
    "in place": "is already in place as the first bid of this tie",
    "not held": "is not a card of the hand",
    "no prize": "came while no prize was up",
    "paused": "came while the game was paused",
}


def word(value: int) -> str:
    return RANK_WORDS[value]


def _show(bids) -> str:
    return ", ".join(f"{p} {' + '.join(word(v) for v in b)}" for p, b in bids.items())


def describe(v: Any) -> str | None:
    """The readable line `referee replay` prints for a GOPS verdict."""
    if isinstance(v, gops.PrizeUp):
        what = "tie-break prize" if v.tie_break else "prize"
        return f"{what}: the {v.prize} ({v.points} points); {v.pile} left in the prize pile"
    if isinstance(v, gops.Reshuffled):
        return f"the prize pile ran out: the prize discard pile ({', '.join(v.cards)}) is shuffled into a new one"
    if isinstance(v, gops.BidTaken):
        fixed = f" (instead of {word(v.replaced)})" if v.replaced is not None else ""
        return f"{v.player} bids {word(v.value)}{fixed}" + (" as a second card" if v.stage == 2 else "")
    if isinstance(v, gops.BidRefused):
        return f"{v.player}'s bid of {word(v.value)} is refused: it {REFUSALS[v.reason]}"
    if isinstance(v, gops.PrizeRefused):
        waiting = f" (waiting for {names(v.waiting)})" if v.waiting else ""
        return f"the {v.prize or 'prize'} turned is refused: {v.reason}{waiting}"
    if isinstance(v, gops.PrizeWon):
        two = len(v.prizes) == 2
        why = ("the highest total of two bids" if two else "the highest bid")
        return (f"{v.winner} wins the {' and the '.join(v.prizes)} ({v.points} points) with {why} "
                f"({_show(v.bids)}); totals: " + ", ".join(f"{p} {n}" for p, n in v.totals.items()))
    if isinstance(v, gops.Tied):
        then = ("every bid stays in place; the next prize is turned and everyone bids a second card"
                if v.then == "tie break" else
                "no other prize is left: the bids go back and the same prize is bid for again")
        return f"{names(v.players)} tie for the {v.prize} ({_show(v.bids)}): {then}"
    if isinstance(v, gops.TieStands):
        return (f"{names(v.players)} tie again ({_show(v.bids)}): the {' and the '.join(v.prizes)} go "
                "to the prize discard pile and everyone takes both bid cards back")
    if isinstance(v, gops.HandsBack):
        return f"{names(v.players)} used every bid card and pick{'s' if len(v.players) == 1 else ''} up the bid discard pile"
    if isinstance(v, gops.GopsUndone):
        return f"undo: {v.what} is taken back" if v.what else "undo: there is nothing to undo"
    if isinstance(v, gops.GopsPaused):
        return f"{'paused' if v.paused else 'resumed'} at {v.at:.2f} s"
    if isinstance(v, gops.GopsOver):
        ranked = sorted(v.totals.items(), key=lambda kv: -kv[1])
        line = "final: " + ", ".join(f"{p} {n}" for p, n in ranked)
        line += f"; {names(v.winners)} {'wins' if len(v.winners) == 1 else 'tie and split the win'}"
        return line + ("" if v.complete else " (ended before every prize was won)")
    return None
