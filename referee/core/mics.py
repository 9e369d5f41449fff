"""Microphones lost and back: the event the shell sends when a mic's device goes away or
returns, and the record of which mics were out when, so that a race one of them might have
joined is announced as such.

While a mic is out the shell feeds its channel silence (so the other mics' calls are still
judged), and what the player says there is not heard: a race decided then may have had
another call in it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from referee.core.games import goop, stroop
from referee.core.spoken import spoken_name


@dataclass(frozen=True)
class MicChange:
    """A microphone's device went away (``lost``) or came back."""

    stream: str
    """The channel: a player's name, 'dealer' or 'table'."""
    lost: bool
    at: float
    """Seconds on the audio clock: where the mic stopped being heard, or started again."""
    why: str = ""
    """For people: what the shell saw ("its source was removed", "the audio server went away")."""
    at_start: bool = False
    """A mic that was not there when the game started: ``lost`` at 0, back when first found."""


@dataclass
class MicsOut:
    """Which mics are out now, and when each was out before."""

    spans: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    """Closed spans each mic was out: (from, to) seconds."""
    since: dict[str, float] = field(default_factory=dict)
    """Mics out now: stream -> since when."""

    def change(self, c: MicChange) -> bool:
        """Record ``c``; False if it changes nothing (lost twice, back while not out)."""
        if c.lost:
            if c.stream in self.since:
                return False
            self.since[c.stream] = c.at
            return True
        if c.stream not in self.since:
            return False
        self.spans.setdefault(c.stream, []).append((self.since.pop(c.stream), c.at))
        return True

    def out_during(self, start: float, end: float) -> list[str]:
        """The mics that were out at some moment of [start, end], in the order first lost."""
        hit = [(a, s) for s, spans in self.spans.items() for a, b in spans
               if a <= end and b >= start]
        hit += [(a, s) for s, a in self.since.items() if a <= end]
        return list(dict.fromkeys(s for _, s in sorted(hit)))

    def missed_race(self, verdict, start: float, end: float, players) -> list[str]:
        """For a decided race (a Stroop round won or drawn, a Goop shout race) that ran from
        ``start`` to ``end``: the players who did not win it and whose mic was out at some
        moment of it. Spans that ended before ``end`` are then forgotten."""
        if isinstance(verdict, stroop.RoundOver) and verdict.outcome in (
                stroop.RoundOutcome.WON, stroop.RoundOutcome.DRAW):
            winners = {verdict.winner, *verdict.tied}
        elif isinstance(verdict, goop.Gooped):
            winners = set(verdict.goopers)
        else:
            return []
        missed = [p for p in self.out_during(start, end) if p in players and p not in winners]
        for s in list(self.spans):
            self.spans[s] = [(a, b) for a, b in self.spans[s] if b >= end]
        return missed


def mic_words(stream: str) -> str:
    """The mic of ``stream`` as said: "Bob's microphone", "the dealer's microphone"."""
    if stream == "dealer":
        return "the dealer's microphone"
    if stream == "table":
        return "the table microphone"
    return f"{spoken_name(stream)}'s microphone"
