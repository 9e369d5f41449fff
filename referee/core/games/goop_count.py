"""Goop's end-of-hand count by voice, as a pure dialogue.

After a Goop, the referee asks each player in seat order for the cards of
theirs in the centre, then the cards left in their Goop pile. It reads each
answer back with the player and the quantity ("Bob: seven in the centre.");
within ``confirm`` seconds the player can correct it ("no, twelve", or just
another number). Silence past ``confirm`` accepts it and the next question
follows. A correction ("no, fifteen", "correction fifteen") said within
``correct`` seconds of an answer still corrects that answer after the next
question has been asked (the last answer waits that long before the tally).
No answer for ``reask`` seconds asks again, at most ``asks`` times; then the
referee waits quietly (the screen shows the question). Numbers can be typed at
any time during the count. After the last number the dialogue tallies the hand.

Time arrives with the calls (seconds on the audio clock): ``heard`` for what a
player said, ``tick`` for how far the microphones have heard.
"""

from __future__ import annotations

from referee.core.events import Count
from referee.core.games.goop import CENTRE_MAX, FIELDS, LEFT_MAX
from referee.core.games.turns import InTurn, Say
from referee.core.numbers import number_words, parse_number
from referee.core.announce import question_sentence, sentence
from referee.core.spoken import spoken_name


def read_back(player: str, field: str, value: int) -> str:
    """``'Bob: seven in the centre.'``"""
    return sentence("read-back-centre" if field == "centre" else "read-back-left",
                    player=spoken_name(player), number=number_words(value))


class CountDialogue(InTurn):
    def __init__(self, players, start: float, confirm: float = 2.0, reask: float = 8.0,
                 correct: float = 5.0, asks: int = 2) -> None:
        self.questions = [(p, f) for p in players for f in FIELDS]
        super().__init__(len(self.questions), start, confirm, reask, asks)
        self.correct = correct
        """Seconds after an answer in which "no, N" corrects it, even once the next question is on."""
        self.value: int | None = None
        self.last: tuple[str, str, float] | None = None
        """(player, field, when) of the latest answer, for a late correction."""
        self.opening = [Say(sentence("count-start", question=self.question()), start)]

    @property
    def asking(self) -> tuple[str, str] | None:
        """(player, field) being asked, or None when done."""
        return None if self.done else self.questions[self.index]

    def question(self) -> str:
        """The question on now, as the referee asks it."""
        return question_sentence(*self.questions[self.index])

    def heard(self, player: str | None, said: str, end: float) -> list:
        """A player said something; ``player`` None for a shared microphone (or typed)."""
        if self.done:
            return []
        number = parse_number(said)
        if number is None:
            return []
        if number.correction and self.value is None and self.last is not None \
                and end - self.last[2] <= self.correct and player in (None, self.last[0]):
            asked_player, field, _ = self.last        # corrects the answer before this question
            again = " " + self.question()
        else:
            asked_player, field = self.questions[self.index]
            again = ""
            if player is not None and player != asked_player:
                return []
        top = CENTRE_MAX if field == "centre" else LEFT_MAX
        if number.value > top:
            self.asked_at = end
            question = question_sentence(asked_player, field)
            return [Say(sentence("out-of-range", top=number_words(top), question=question), end)]
        self.last = (asked_player, field, end)
        if not again:
            self.value = number.value
            last = self.index == len(self.questions) - 1
            self.until = end + (max(self.confirm, self.correct) if last else self.confirm)
        else:
            self.asked_at = end
        return [Count(asked_player, field, number.value, end),
                Say(read_back(asked_player, field, number.value) + again, end)]

    @property
    def answered(self) -> bool:
        return self.value is not None

    def _forget(self) -> None:
        self.value = None
