"""Swoop's lines in logs and journals (JSON objects; :mod:`referee.core.journal` reads
and writes the files' lines and calls this for Swoop's types).

Happenings::

    {"type":"play","player":"ann","rank":"7","count":2,"at":12.5}
    {"type":"play","player":"bob","rank":"K","count":1,"blind":true,"at":14.0}
    {"type":"pick-up","player":"cai","at":15.1}
    {"type":"going-out","player":"ann","at":20.0}
    {"type":"report","player":"bob","cards":["K","2","7"],"at":25.0}
    {"type":"report","player":"cai","total":42,"at":27.0}

Ranks are written A, 2 .. 10, J, Q, K. ``blind`` is optional (false). A play,
pick-up or going-out without ``player`` was said on the table's shared microphone:
it is the play of whoever's turn it is when it is judged.
"""

from __future__ import annotations

import math

from referee.core.cards import RANK_LETTERS
from referee.core.errors import RefereeError
from referee.core.games.swoop_events import (
    GoOut, Paused, PickedUp, PickUp, Play, Played, Refused, Report, Reported, RoundScored,
    SwoopNote, SwoopOver, Undone, WentOut,
)

RANKS = {letter: n for n, letter in RANK_LETTERS.items()}

#: Happening types of a Swoop log.
EVENT_TYPES = ("play", "pick-up", "going-out", "report")

#: Verdict types (skipped when a log is read).
OUTPUT_TYPES = ("played", "refused", "picked-up", "went-out", "reported", "swoop-round",
                "taken-back")

#: The decisions: printed by ``--json`` without ``--all``.
SUMMARY_TYPES = ("swoop-round",)


class SwoopLogError(RefereeError, ValueError):
    """A Swoop line that cannot be read; the message names the field."""


def _rank(text) -> int:
    rank = RANKS.get(str(text).upper()) if isinstance(text, (str, int)) and not isinstance(text, bool) else None
    if rank is None:
        raise SwoopLogError(f"unknown rank {text!r} (A, 2 .. 10, J, Q, K)")
    return rank


def encode(event) -> dict | None:
    """The JSON object of a Swoop happening; None for anything else."""
    obj = _encode(event)
    if obj is not None and not obj["player"]:
        del obj["player"]       # the shared mic: whoever's turn it is
    return obj


def _encode(event) -> dict | None:
    if isinstance(event, Play):
        obj = {"type": "play", "player": event.player, "rank": RANK_LETTERS[event.rank],
               "count": event.count, "at": event.at}
        if event.blind:
            obj["blind"] = True
        return obj
    if isinstance(event, PickUp):
        return {"type": "pick-up", "player": event.player, "at": event.at}
    if isinstance(event, GoOut):
        return {"type": "going-out", "player": event.player, "at": event.at}
    if isinstance(event, Report):
        obj = {"type": "report", "player": event.player, "at": event.at}
        if event.total is not None:
            obj["total"] = event.total
        else:
            obj["cards"] = [RANK_LETTERS[r] for r in event.cards]
        return obj
    return None


def decode(obj: dict, players) -> object:
    """The happening of a Swoop line. Raises :class:`SwoopLogError`."""
    kind = obj["type"]
    needed = ("player", "at") if kind == "report" else ("at",)
    for name in needed:
        if name not in obj:
            raise SwoopLogError(f"{kind} line is missing the field {name!r}")
    player, at = obj.get("player", ""), obj["at"]
    if player and player not in players or kind == "report" and not player:
        raise SwoopLogError(f"unknown player {player!r} (players: {', '.join(players)})")
    if isinstance(at, bool) or not isinstance(at, (int, float)) or not math.isfinite(at):
        raise SwoopLogError(f"field 'at' must be a number of seconds, not {at!r}")
    at = float(at)
    if kind == "play":
        count = obj.get("count", 1)
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise SwoopLogError(f"count must be a whole number of cards, not {count!r}")
        blind = obj.get("blind", False)
        if not isinstance(blind, bool):
            raise SwoopLogError(f"blind must be true or false, not {blind!r}")
        return Play(player, _rank(obj.get("rank")), count, at, blind)
    if kind == "pick-up":
        return PickUp(player, at)
    if kind == "going-out":
        return GoOut(player, at)
    if "total" in obj:
        total = obj["total"]
        if isinstance(total, bool) or not isinstance(total, int) or total < 0:
            raise SwoopLogError(f"total must be a whole number of points, not {total!r}")
        return Report(player, at, total=total)
    cards = obj.get("cards")
    if not isinstance(cards, list):
        raise SwoopLogError("a report needs 'cards' (a list of ranks) or 'total'")
    return Report(player, at, tuple(_rank(c) for c in cards))


def _report(r: Report) -> dict:
    return ({"total": r.total} if r.total is not None
            else {"cards": [RANK_LETTERS[c] for c in r.cards]})


#: Verdict class -> its JSON object.
VERDICT_ENCODERS = {
    Played: lambda v: {**encode(v.play), "type": "played", "round": v.round,
                       "pile": v.pile, "run": v.run, "swoop": v.swoop, "held": v.held,
                       "next": v.next},
    Refused: lambda v: {"type": "refused", "round": v.round, "player": v.player, "what": v.what,
                        "reason": v.reason, "next": v.next},
    PickedUp: lambda v: {"type": "picked-up", "round": v.round, "player": v.player,
                         "cards": v.cards, "held": v.held, "next": v.next,
                         "blind": RANK_LETTERS[v.blind] if v.blind else None},
    WentOut: lambda v: {"type": "went-out", "round": v.round, "player": v.player,
                        "to_report": list(v.to_report)},
    Reported: lambda v: {"type": "reported", "round": v.round, "player": v.report.player,
                         **_report(v.report), "points": v.points, "corrected": v.corrected,
                         "doubt": v.doubt},
    RoundScored: lambda v: {"type": "swoop-round", "round": v.round, "out": v.out,
                            "points": dict(v.points), "totals": dict(v.totals),
                            "missing": list(v.missing), "game_over": v.game_over,
                            "next": v.next},
    SwoopOver: lambda v: {"type": "final", "scores": dict(v.totals), "winners": list(v.winners),
                          "rounds": v.rounds},
    Undone: lambda v: {"type": "taken-back", "round": v.round, "what": v.what, "next": v.next},
    Paused: lambda v: {"type": "paused", "paused": v.paused, "at": v.at},
    SwoopNote: lambda v: {"type": "note", "at": v.at, "text": v.text},
}

