"""What the referee says at a time, and a question put to each in turn: the timing shared by
Goop's end-of-hand count (:mod:`.goop_count`) and Swoop's hand reports (:mod:`.swoop_talk`).
Pure: time arrives as seconds on the audio clock."""

from __future__ import annotations

from dataclasses import dataclass

from referee.core.events import Tally


@dataclass(frozen=True)
class Say:
    """A sentence for the referee to speak at ``at`` (seconds)."""

    text: str
    at: float


class InTurn:
    """Questions ``0 .. turns-1`` asked in turn. A question left unanswered ``reask``
    seconds is asked again, at most ``asks`` times, then the referee waits quietly; an
    answer stands ``until`` (seconds, set by the subclass), then the next question is asked;
    after the last, a :class:`~referee.core.events.Tally`. A subclass says what the question
    is, whether it is answered, and forgets the answer when the next question comes."""

    def __init__(self, turns: int, start: float, confirm: float, reask: float,
                 asks: int) -> None:
        self.turns = turns
        self.confirm = confirm
        """Seconds an answer stands, open to correction, before the next question."""
        self.reask = reask
        """Seconds without an answer before a question is asked again."""
        self.asks = asks
        """How many times a question is asked again before the referee waits quietly."""
        self.index = 0
        self.until = 0.0
        self.asked_at = start
        self.asked_again = 0
        self.done = turns == 0

    def question(self) -> str:
        """The question on now, as the referee asks it."""
        raise NotImplementedError

    @property
    def answered(self) -> bool:
        """Whether the question on now has its answer."""
        raise NotImplementedError

    def _forget(self) -> None:
        """The next question is on: the answer held is no longer this one's."""
        raise NotImplementedError

    def tick(self, now: float) -> list:
        """The microphones have heard up to ``now``."""
        if self.done:
            return []
        if not self.answered:
            if now - self.asked_at >= self.reask and self.asked_again < self.asks:
                self.asked_at = now
                self.asked_again += 1
                return [Say(self.question(), now)]
            return []
        if now < self.until:
            return []
        self.index += 1
        self._forget()
        if self.index == self.turns:
            self.done = True
            return [Tally(now)]
        self.asked_at = now
        self.asked_again = 0
        return [Say(self.question(), now)]
