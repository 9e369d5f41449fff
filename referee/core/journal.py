"""The log and journal format: JSON Lines, one event per line.

Input lines (what happened at the table)::

    {"type":"game","game":"stroop","players":["ann","bob"],
     "options":{"tie_window_ms":40,"two_player_miscall":"inactive"},
     "match_cards":{"ann":"9S"}}
    {"type":"deal","card":"3S","at":12.5}
    {"type":"call","player":"ann","said":"four of hearts","start":13.1,"end":13.6}
    {"type":"command","command":"undo","at":15.2,"player":"bob"}

The ``game`` line comes first; ``options`` and ``match_cards`` are optional.
The other lines may come in any order. Times are seconds on one clock.

Output lines (verdicts, written by ``referee replay --json`` and into live
journals) have the types listed in :data:`OUTPUT_TYPES`; a reader of a log
passes over them, so a journal replays like a log.

This module only converts between text and events; files are the shell's.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Iterable

from referee.core.errors import RefereeError
from referee.core.games import goop
from referee.core.games import gops, gops_record
from referee.core.games import soccer_log

from referee.core.games import stroop
from referee.core.games import swoop_journal
from referee.core.cards import Card, CardError
from referee.core.events import COMMANDS, Asked, Call, Command, Count, Deal, GameStart, Shout, Tally

#: Types that are verdicts, not happenings: readers of a log skip them.
OUTPUT_TYPES = frozenset({
    "round", "final", "judged", "out", "all-active", "undone", "paused", "note",   # Stroop
    "gooped", "ignored", "counted", "hand",                                        # Goop
    "asked",                                                                       # both
    *swoop_journal.OUTPUT_TYPES,                                                   # Swoop
}) | gops_record.OUTPUT_TYPES | soccer_log.VERDICT_TYPES


#: The decisions: what `referee replay --json` and `referee play --json` print
#: (without --all), and what the live referee announces first.
SUMMARY_TYPES = (("round", "final", "gooped", "hand", *swoop_journal.SUMMARY_TYPES)
                 + gops_record.SUMMARY_TYPES + soccer_log.SUMMARY_TYPES)


class LogError(RefereeError, ValueError):
    """A log line that cannot be read. ``line`` is its 1-based number."""

    def __init__(self, line: int, message: str) -> None:
        self.line = line
        self.message = message
        super().__init__(f"line {line}: {message}")


@dataclass(frozen=True)
class Log:
    """A parsed log: its game line and the happenings after it, in file order."""

    game: GameStart
    events: tuple
    lines: tuple[int, ...]
    """The line number of each event, for error messages."""
    torn: int | None = None
    """The number of a last line cut short (a crash while it was written), dropped; else None."""


# --- Encoding ----------------------------------------------------------------

def encode(event: Any) -> dict:
    """The JSON object for a happening."""
    if isinstance(event, GameStart):
        obj: dict = {"type": "game", "game": event.game, "players": list(event.players)}
        if event.options:
            obj["options"] = dict(event.options)
        if event.match_cards:
            obj["match_cards"] = {p: str(c) for p, c in event.match_cards.items()}
        return obj
    if isinstance(event, Deal):
        return {"type": "deal", "card": str(event.card), "at": event.at}
    if isinstance(event, Call):
        return {"type": "call", "player": event.player, "said": event.said,
                "start": event.start, "end": event.end}
    if isinstance(event, Shout):
        return {"type": "shout", "player": event.player, "said": event.said,
                "start": event.start, "end": event.end}
    if isinstance(event, Count):
        return {"type": "count", "player": event.player, "field": event.field,
                "value": event.value, "at": event.at}
    if isinstance(event, Tally):
        return {"type": "tally", "at": event.at}
    if isinstance(event, (gops.PrizeTurned, gops.Bid)):
        return gops_record.encode(event)
    if isinstance(event, Command):
        obj = {"type": "command", "command": event.name, "at": event.at}
        if event.player is not None:
            obj["player"] = event.player
        return obj
    obj = swoop_journal.encode(event)
    if obj is not None:
        return obj
    soccer = soccer_log.encode(event)
    if soccer is not None:
        return soccer
    raise TypeError(f"cannot encode {type(event).__name__}")


def dumps(obj: dict) -> str:
    """One JSON line, cards and names in plain UTF-8."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


# --- Decoding ----------------------------------------------------------------

MAX_SECONDS = 1e9
"""The largest time (seconds, either sign) a log's event may carry, about 31 years: far past
any game, and far below where the core's clock in microseconds would overflow a float."""


def _field(obj: dict, name: str, line: int, kind: str) -> Any:
    if name not in obj:
        raise LogError(line, f"{obj.get('type', 'event')} line is missing the field {name!r}")
    value = obj[name]
    if kind == "str" and not isinstance(value, str):
        raise LogError(line, f"field {name!r} must be a string, not {value!r}")
    if kind == "time":
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value) or abs(value) > MAX_SECONDS:
            raise LogError(line, f"field {name!r} must be a number of seconds, not {value!r}")
        value = float(value)
    return value


def _card(text: Any, line: int, what: str) -> Card:
    try:
        if not isinstance(text, str):
            raise CardError(str(text))
        return Card.parse(text)
    except CardError:
        raise LogError(line, f"unknown card {text!r} in {what}") from None


def decode_game(obj: dict, line: int) -> GameStart:
    if obj.get("type") != "game":
        raise LogError(line, 'the first line must be the game line: {"type":"game",...}')
    game = _field(obj, "game", line, "str")
    players = _field(obj, "players", line, "list")
    if not isinstance(players, list) or not players or not all(isinstance(p, str) and p for p in players):
        raise LogError(line, f"players must be a list of names, not {players!r}")
    if len(set(players)) != len(players):
        raise LogError(line, f"players must have different names: {players!r}")
    options = obj.get("options", {})
    if not isinstance(options, dict):
        raise LogError(line, f"options must be an object, not {options!r}")
    raw_match = obj.get("match_cards", {})
    if not isinstance(raw_match, dict):
        raise LogError(line, f"match_cards must be an object, not {raw_match!r}")
    match = {}
    for player, text in raw_match.items():
        if player not in players:
            raise LogError(line, f"match card for unknown player {player!r}")
        match[player] = _card(text, line, f"{player}'s match card")
    return GameStart(game, tuple(players), options, match)


def _player(obj: dict, line: int, game: GameStart) -> str:
    player = _field(obj, "player", line, "str")
    if player not in game.players:
        raise LogError(line, f"unknown player {player!r} (players: {', '.join(game.players)})")
    return player


def decode(obj: dict, line: int, game: GameStart) -> Any | None:
    """The happening a JSON object stands for; None for a verdict line."""
    kind = obj.get("type")
    if kind in OUTPUT_TYPES:
        return None
    if kind == "deal":
        return Deal(_card(_field(obj, "card", line, "any"), line, "deal"), _field(obj, "at", line, "time"))
    if kind in ("call", "shout"):
        player = _player(obj, line, game)
        said = _field(obj, "said", line, "str")
        start, end = _field(obj, "start", line, "time"), _field(obj, "end", line, "time")
        if end < start:
            raise LogError(line, f"{kind} ends ({end}) before it starts ({start})")
        return (Call if kind == "call" else Shout)(player, said, start, end)
    if kind == "count":
        player = _player(obj, line, game)
        field = _field(obj, "field", line, "str")
        if field not in ("centre", "left"):
            raise LogError(line, f"count field must be 'centre' or 'left', not {field!r}")
        value = _field(obj, "value", line, "any")
        if isinstance(value, bool) or not isinstance(value, int):
            raise LogError(line, f"count value must be a whole number, not {value!r}")
        return Count(player, field, value, _field(obj, "at", line, "time"))
    if kind == "tally":
        return Tally(_field(obj, "at", line, "time"))
    if kind in gops_record.INPUT_TYPES:
        try:
            return gops_record.decode(obj, game.players)
        except gops_record.GopsLogError as e:
            raise LogError(line, str(e)) from None
    if kind in soccer_log.HAPPENING_TYPES:
        player = _player(obj, line, game)
        try:
            return soccer_log.decode(obj, player)
        except soccer_log.SoccerLogError as e:
            raise LogError(line, str(e)) from None
    if kind == "command":
        name = _field(obj, "command", line, "str")
        if name not in COMMANDS:
            raise LogError(line, f"unknown command {name!r} (known: {', '.join(COMMANDS)})")
        player = obj.get("player")
        if player is not None and player not in game.players:
            raise LogError(line, f"unknown player {player!r} (players: {', '.join(game.players)})")
        return Command(name, _field(obj, "at", line, "time"), player)
    if kind in swoop_journal.EVENT_TYPES:
        try:
            return swoop_journal.decode(obj, game.players)
        except swoop_journal.SwoopLogError as e:
            raise LogError(line, str(e)) from None
    if kind == "game":
        raise LogError(line, "a second game line: one log holds one game")
    if kind is None:
        raise LogError(line, "missing the field 'type'")
    raise LogError(line, f"unknown event type {kind!r}")


def parse_lines(lines: Iterable[str]) -> Log:
    """Read a whole log. Raises :class:`LogError` naming the first bad line."""
    game: GameStart | None = None
    events: list = []
    numbers: list[int] = []
    torn: int | None = None
    for number, text in enumerate(lines, start=1):
        if number == 1:
            text = text.removeprefix("\ufeff")  # a byte-order mark, as some editors write
        if not text.strip():
            continue
        if torn is not None:
            raise LogError(torn, "not valid JSON (a line cut short?)")
        try:
            obj = json.loads(text.strip())
        except json.JSONDecodeError as e:
            if not text.endswith("\n") and game is not None:
                torn = number  # the last line, cut short by a crash: dropped, if it is the last
                continue
            raise LogError(number, f"not valid JSON ({e.msg} at column {e.colno})") from None
        if not isinstance(obj, dict):
            raise LogError(number, f"each line must be a JSON object, not {text.strip()[:40]!r}")
        if not isinstance(obj.get("type"), str):
            raise LogError(number, f'"type" must be a string, not {json.dumps(obj.get("type"))[:40]}')
        if game is None:
            game = decode_game(obj, number)
            continue
        event = decode(obj, number, game)
        if event is not None:
            events.append(event)
            numbers.append(number)
    if game is None:
        raise LogError(1, 'the log is empty: it needs a game line {"type":"game",...}')
    return Log(game, tuple(events), tuple(numbers), torn)


# --- Verdicts ------------------------------------------------------------------

def _call_obj(call: Any) -> dict | None:
    if call is None:
        return None
    return {"player": call.player, "said": call.said, "start": call.start, "end": call.end}


def _round(v: stroop.RoundOver) -> dict:
    obj = {
        "type": "round", "round": v.round, "top": str(v.top), "winner": v.winner, "pile": v.pile,
        "outcome": v.outcome, "decided_by": v.decided_by, "carried": v.carried,
        "call": _call_obj(v.winning_call), "rivals": [_call_obj(c) for c in v.rivals],
        "scores": dict(v.scores),
    }
    if v.tied:
        obj["tied"] = list(v.tied)
    if v.margin_us is not None:
        obj["margin_us"] = v.margin_us
    if v.miscall is not None:
        obj["miscall"] = _call_obj(v.miscall)
    return obj


def _hand(v: goop.HandOver) -> dict:
    return {
        "type": "hand", "hand": v.hand, "goopers": list(v.goopers),
        "counts": {p: dict(c) for p, c in v.counts.items()}, "points": dict(v.points),
        "totals": dict(v.totals), "false_goop": list(v.false_goop), "missing": list(v.missing),
        "pick_order": list(v.pick_order), "says_go": v.says_go, "game_over": v.game_over,
        "tied_at_top": list(v.tied_at_top),
    }


#: Verdict class -> its JSON object. One place for every game's verdicts.
VERDICT_ENCODERS = {
    stroop.RoundOver: _round,
    stroop.GameOver: lambda v: {"type": "final", "scores": dict(v.scores),
                                "unclaimed": v.unclaimed, "rounds": v.rounds},
    stroop.CallJudged: lambda v: {"type": "judged", "round": v.round, **_call_obj(v.call),
                                  "outcome": v.outcome, "reason": v.reason,
                                  **({"late_by": v.late_by, "late_to": v.late_to}
                                     if v.late_by is not None else {})},
    stroop.PlayerOut: lambda v: {"type": "out", "round": v.round, "player": v.player, "at": v.at},
    stroop.AllActive: lambda v: {"type": "all-active", "round": v.round, "at": v.at},
    stroop.Undone: lambda v: {"type": "undone", "round": v.round, "winner": v.winner,
                              "cards": v.cards, "reopened": v.reopened, "scores": dict(v.scores)},
    stroop.Paused: lambda v: {"type": "paused", "paused": v.paused, "at": v.at},
    goop.Gooped: lambda v: {"type": "gooped", "hand": v.hand, "goopers": list(v.goopers),
                            "decided_by": v.decided_by, "shout": _call_obj(v.shout),
                            "rivals": [_call_obj(s) for s in v.rivals],
                            **({"margin_us": v.margin_us} if v.margin_us is not None else {})},
    goop.ShoutJudged: lambda v: {"type": "ignored", "hand": v.hand, **_call_obj(v.shout),
                                 "reason": v.reason},
    goop.Counted: lambda v: {"type": "counted", "hand": v.hand, "player": v.player,
                             "field": v.field, "value": v.value, "corrected": v.corrected},
    goop.HandOver: _hand,
    goop.GoopOver: lambda v: {"type": "final", "scores": dict(v.totals), "winner": v.winner,
                              "hands": v.hands},
    goop.GoopNote: lambda v: {"type": "note", "at": v.at, "text": v.text},
    **gops_record.VERDICT_ENCODERS,
    Asked: lambda v: {"type": "asked", "command": v.command.name, "at": v.command.at,
                      "player": v.command.player},
    **swoop_journal.VERDICT_ENCODERS,
    **soccer_log.VERDICT_ENCODERS,
}


def encode_verdict(verdict: Any) -> dict:
    """The JSON object for a verdict (the types in :data:`OUTPUT_TYPES`)."""
    try:
        return VERDICT_ENCODERS[type(verdict)](verdict)
    except KeyError:
        raise TypeError(f"cannot encode {type(verdict).__name__}") from None
