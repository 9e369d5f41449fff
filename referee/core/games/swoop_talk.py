"""Swoop at the table: the spoken (or typed) phrases read into game events, and the
end-of-round report dialogue. Pure.

Plays, said by whoever's turn it is (on one microphone for the whole table the
turn tells the referee who spoke)::

    "seven", "a seven", "two sevens", "three kings", "blind seven", "pick up",
    "I'm out"

Typed, the same words, or digits and letters: ``7``, ``2 7`` / ``2x7`` / ``7 7``,
``blind 7``, ``pick up``, ``out``; a name first (``bob: 2 sevens``) plays for that
player. Speech heard from the player whose turn it is that makes no play is asked for
again ("Say that again.", :class:`Misheard`), unless it is table talk.

Reports, once a player is out: the referee asks each other player in seat order
what is left in their hand. A total ("forty two", "a hundred and five") or the
cards' ranks ("king two", typed ``K 2 7``) is read back; within ``confirm``
seconds the player can correct it (just say it again). Silence past ``confirm``
takes it and the next question follows; no answer for ``reask`` seconds asks
again, at most ``asks`` times (as Goop's count); then the referee waits quietly (the
screen shows the question, and the report is taken whenever it is said or typed); after
the last player the round is tallied.
"""

from __future__ import annotations

import re
from typing import Callable

from referee.core.announce import sentence
from referee.core.cards import rank_from_token
from referee.core.events import COMMANDS, Tally
from referee.core.games.turns import InTurn, Say
from referee.core.games.swoop_events import GoOut, PickUp, Play, Report
from referee.core.numbers import UNITS, parse_total

_WORD = re.compile(r"[a-z0-9']+")
_PLURALS = {"sixes": 6, "sixs": 6}
_FILLER = {"a", "an", "i", "play", "plays", "i'll", "i'm", "um", "of"}


def _rank(token: str) -> int | None:
    return _PLURALS.get(token) or rank_from_token(token)


def read_play(text: str) -> tuple | None:
    """``('play', rank, count, blind)``, ``('pick-up',)``, ``('out',)``, or None for
    text that is no play. ``'two sevens'`` -> ``('play', 7, 2, False)``."""
    words = _WORD.findall(text.lower().replace("×", " x "))
    joined = " ".join(words)
    if joined in ("pick up", "i pick up", "i'll pick up", "pickup", "pick it up"):
        return ("pick-up",)
    if joined in ("i'm out", "i am out", "out", "im out"):
        return ("out",)
    blind = bool(words) and words[0] == "blind"
    words = [w for w in words[1:] if w not in _FILLER] if blind else words
    if words and words[0] in ("a", "an") and len(words) == 2:
        words = words[1:]
    words = [w for w in words if w != "x"]
    m = re.fullmatch(r"(\d)x(\w+)", "".join(words)) if len(words) == 1 else None
    if m:
        words = [m.group(1), m.group(2)]
    if len(words) == 1:
        rank = _rank(words[0])
        return ("play", rank, 1, blind) if rank is not None else None
    if len(words) == 2:
        first = UNITS.get(words[0]) or (int(words[0]) if words[0].isdigit() else None)
        rank = _rank(words[1])
        if rank is None or first is None:
            return None
        if words[0] == words[1] or (words[0].isdigit() and words[1].isdigit() and first == rank
                                    and words[0] == words[1]):
            return ("play", rank, 2, blind)
        # "two sevens": a count then a rank (said in the plural unless digits were typed)
        plural = words[1].endswith("s") or words[1].isdigit() or len(words[1]) == 1
        if plural and 1 <= first <= 12:
            return ("play", rank, first, blind)
        return None
    if len(words) > 2 and len(set(words)) == 1 and _rank(words[0]) is not None:
        return ("play", _rank(words[0]), len(words), blind)     # "7 7 7"
    return None


def happening(text: str, player: str, at: float):
    """The game event for a play said by ``player`` (completed at ``at``), or None.
    ``player`` empty: said on a shared microphone, so by whoever's turn it is then."""
    r = read_play(text)
    if r is None:
        return None
    if r[0] == "pick-up":
        return PickUp(player, at)
    if r[0] == "out":
        return GoOut(player, at)
    _, rank, count, blind = r
    return Play(player, rank, count, at, blind)


def typed(text: str, players, reporting: bool, asking: tuple | None, at: float):
    """Typed Swoop: a play (``7``, ``2 sevens``, ``bob: pick up``) or, while reports are
    asked for (``reporting``; ``asking``: (player, field) asked now), a report (``42``,
    ``K 2 7``, ``bob: 42``). Returns ``('report', said)``, ``('play', event)`` or, for text
    that is neither, the error message."""
    player, _, rest = text.partition(":")
    player = player.strip() if rest else ""
    said = rest if rest else text
    if player and player not in players:
        return f"unknown player {player!r} (players: {', '.join(players)})"
    if reporting and read_report(said) is not None:
        if player and asking and player != asking[0]:
            return f"{asking[0]} is asked to report now"
        return ("report", said)
    event = happening(said, player, at)
    if event is None:
        return (f"not a play or a command: {text.strip()!r} (plays: 7, 2 sevens, blind 7, "
                f"pick up, out; commands: {', '.join(COMMANDS)})")
    return ("play", event)


def read_report(text: str) -> tuple[tuple[int, ...], int | None] | None:
    """(cards, total) a report says: ``'forty two'`` -> ``((), 42)``, ``'hand king two'``
    or ``'K 2'`` -> ``((13, 2), None)``; None for anything else."""
    t = text.lower().strip()
    for lead in ("no ", "correction ", "hand "):
        if t.startswith(lead):
            t = t[len(lead):]
    total = parse_total(t)
    if total is not None:
        return (), total
    words = [w for w in _WORD.findall(t) if w not in ("and", "a", "an")]
    ranks = [rank_from_token(w) for w in words]
    if words and all(r is not None for r in ranks):
        return tuple(ranks), None
    return None


class ReportDialogue(InTurn):
    """Asks each player of ``to_report`` in turn what is left in their hand."""

    def __init__(self, to_report, start: float, confirm: float = 2.0, reask: float = 8.0,
                 asks: int = 2) -> None:
        self.players = list(to_report)
        super().__init__(len(self.players), start, confirm, reask, asks)
        self.taken = False
        self.opening = [Tally(start)] if self.done else [Say(self.question(), start)]

    @property
    def asking(self) -> tuple[str, str] | None:
        """(player, 'hand') being asked, or None when done."""
        return None if self.done else (self.players[self.index], "hand")

    def question(self) -> str:
        """The question on now, as the referee asks it."""
        return f"{self.players[self.index]}, what is left in your hand?"

    def heard(self, player: str | None, said: str, end: float) -> list:
        """A player said (or typed) something; ``player`` None on a shared microphone."""
        if self.done:
            return []
        asked = self.players[self.index]
        if player is not None and player != asked:
            return []
        report = read_report(said)
        if report is None:
            return []
        cards, total = report
        self.taken = True
        self.until = end + self.confirm
        return [Report(asked, end, cards, total)]

    @property
    def answered(self) -> bool:
        return self.taken

    def _forget(self) -> None:
        self.taken = False


#: Seconds: "Say that again." is said at most this often.
SAY_AGAIN_EVERY = 4.0


class Misheard:
    """Speech heard from the player whose turn it is that is no play: the referee asks
    for it again ("Say that again."), at most every ``every`` seconds, and never for
    table talk (``table_talk(said)`` true: what the grammar marks as decoys, such as
    "pick up the phone") or speech heard while the game is not in play."""

    def __init__(self, table_talk: Callable[[str], bool] | None = None,
                 every: float = SAY_AGAIN_EVERY) -> None:
        self.table_talk = table_talk or (lambda said: False)
        self.every = every
        self.last = float("-inf")

    def heard(self, game, player: str | None, kind: str, said: str, end: float) -> str | None:
        """The sentence to say for an utterance that made no play (``player`` None: heard
        on the table's shared microphone), or None."""
        if kind not in ("call", "number", "unknown") or not said.strip() or self.table_talk(said):
            return None
        if game.phase != "playing" or game.paused or (player is not None and player != game.turn):
            return None
        if end - self.last < self.every:
            return None
        self.last = end
        return sentence("say-again")
