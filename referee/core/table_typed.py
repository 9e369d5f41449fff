"""Typed input at the table: the dealer's keyboard, the one way in that needs no
recogniser. A part of :class:`~referee.core.table.Table` (its :meth:`TypedInput.type`),
kept apart because every game reads typed text its own way."""

from __future__ import annotations

from dataclasses import replace

from referee.core.announce import sentence
from referee.core.cards import Card, DealtTwice
from referee.core.clock import seconds
from referee.core.events import COMMANDS, Command, Deal, command_name
from referee.core.games import soccer_talk, swoop_talk
from referee.core.games.goop_count import CountDialogue
from referee.core.numbers import parse_number

#: The stream of typed input.
KEYBOARD = "keyboard"


class TypedInput:
    """What :class:`~referee.core.table.Table` does with typed text (it supplies the game,
    the dialogue and the ways to push, say and ask)."""

    #: The game's time key of the last typed event (see :meth:`_in_typed_order`).
    _typed_key: tuple = ()

    def _in_typed_order(self, happening):
        """A typed event that the game would order before the one typed before it (events
        at one time are judged in a fixed order of kinds: a play before an undo), moved a
        microsecond after that one: the journal then replays them in the order typed. The
        move puts it after what the mics have heard, so it is judged at the next block."""
        key = self.game.time_key(happening)
        if self._typed_key and key < self._typed_key and hasattr(happening, "at"):
            happening = replace(happening, at=seconds(self._typed_key[0] + 1))
            key = self.game.time_key(happening)
        self._typed_key = key
        return happening

    def type(self, text: str) -> str | None:
        """Typed input (the dealer's keyboard): a card deals it; a command word
        runs it. Returns an error message for text that is neither."""
        name = command_name(text)
        if name is not None:
            self._push(KEYBOARD, Command(name, self.now))
            return None
        if self.start.game == "swoop":
            return self._type_swoop(text)
        if self.talk is not None:
            said = self.talk.heard(self.game, None, text, self.now)
            if not said:
                return f"not a bid, a prize or a command: {text.strip()!r} ({self.talk.hint()})"
            self._dialogue(said)
            return None
        if self.start.game == "soccer":
            try:
                self._push(KEYBOARD, soccer_talk.read_typed(self.game, text, self.now))
            except soccer_talk.PlayError as e:
                return str(e)
            return None
        if isinstance(self.dialogue, CountDialogue) and parse_number(text) is not None:
            self._dialogue(self.dialogue.heard(None, text, self.now))     # the count, typed
            return None
        card = Card.find(text)
        if card is None:
            return f"not a card or a command: {text.strip()!r} (commands: {', '.join(COMMANDS)})"
        if self.start.game != "stroop":
            return "cards are dealt only in Stroop"
        if card in self.dealt:
            self._say(sentence("already-dealt", top_card=card.spoken), at=self.now, urgent=True)
            return str(DealtTwice(card))
        if self.deck is not None:
            self.deck.take(card)       # dealt by hand: the deck never deals it again
        self._push(KEYBOARD, Deal(card, self.now))
        return None

    def _type_swoop(self, text: str) -> str | None:
        """Typed Swoop: a play, or while reports are asked for, a report (see swoop_talk.typed)."""
        asking = self.dialogue.asking if self.dialogue is not None else None
        what = swoop_talk.typed(text, self.start.players, self.dialogue is not None, asking, self.now)
        if isinstance(what, str):
            return what
        if what[0] == "report":
            self._dialogue(self.dialogue.heard(None, what[1], self.now))
        else:
            self._push(KEYBOARD, what[1])
        return None
