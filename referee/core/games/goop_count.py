"""Goop's end-of-hand count by voice, as a pure dialogue.

After a Goop, the referee asks each player in seat order for the cards of
theirs in the centre, then the cards left in their Goop pile. It reads each
number back; within ``confirm`` seconds the player can correct it ("no,
twelve", or just another number). Silence past ``confirm`` accepts it and
the next question follows; no answer for ``reask`` seconds asks again. After
the last number the dialogue tallies the hand.

Time arrives with the calls (seconds on the audio clock): ``heard`` for what a
player said, ``tick`` for how far the microphones have heard.
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.core.events import Count, Tally
from referee.core.games.goop import CENTRE_MAX, FIELDS, LEFT_MAX
from referee.core.numbers import number_words, parse_number
from referee.core.announce import question_sentence, sentence


@dataclass(frozen=True)
class Say:
    """A sentence for the referee to speak at ``at`` (seconds)."""

    text: str
    at: float


class CountDialogue:
    def __init__(self, players, start: float, confirm: float = 2.0, reask: float = 8.0) -> None:
        self.questions = [(p, f) for p in players for f in FIELDS]
        self.confirm = confirm
        self.reask = reask
        self.index = 0
        self.value: int | None = None
        self.until = 0.0
        self.asked_at = start
        self.done = False
        self.opening = [Say(sentence("count-start", question=self._question()), start)]

    @property
    def asking(self) -> tuple[str, str] | None:
        """(player, field) being asked, or None when done."""
        return None if self.done else self.questions[self.index]

    def _question(self) -> str:
        return question_sentence(*self.questions[self.index])

    def heard(self, player: str | None, said: str, end: float) -> list:
        """A player said something; ``player`` None for a shared microphone."""
        if self.done:
            return []
        asked_player, field = self.questions[self.index]
        if player is not None and player != asked_player:
            return []
        number = parse_number(said)
        if number is None:
            return []
        top = CENTRE_MAX if field == "centre" else LEFT_MAX
        if number.value > top:
            self.asked_at = end
            return [Say(sentence("out-of-range", top=number_words(top), question=self._question()), end)]
        self.value = number.value
        self.until = end + self.confirm
        return [Count(asked_player, field, number.value, end),
                Say(sentence("read-back", number=number_words(number.value).capitalize()), end)]

    def tick(self, now: float) -> list:
        """The microphones have heard up to ``now``."""
        if self.done:
            return []
        if self.value is None:
            if now - self.asked_at >= self.reask:
                self.asked_at = now
                return [Say(self._question(), now)]
            return []
        if now < self.until:
            return []
        self.index += 1
        self.value = None
        if self.index == len(self.questions):
            self.done = True
            return [Tally(now)]
        self.asked_at = now
        return [Say(self._question(), now)]
