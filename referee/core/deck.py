"""The referee's own deck, for Stroop without a dealer, and when it deals.

:class:`VirtualDeck` is the shuffled stock. :class:`DealTimer` says when the next
card is due: ``deal_pause`` seconds after a round is decided, ``round_timeout``
seconds after a deal that no one wins, and never while the game is paused. On
resume after a pause the timer starts afresh: an open round gets its whole
timeout again, and a due deal waits ``deal_pause`` from then.

Pure: times come in as arguments (seconds on the table's clock).
"""

from __future__ import annotations

import random

from referee.core.cards import Card, DealtTwice, full_deck


class VirtualDeck:
    """The referee's own shuffled deck, for games without a dealer."""

    def __init__(self, seed: int | None = None, cards: list[Card] | None = None) -> None:
        """The 52 cards shuffled by ``seed``, or ``cards`` in order (each once)."""
        self.cards = list(cards) if cards is not None else full_deck()
        if cards is None:
            random.Random(seed).shuffle(self.cards)
        seen: set[Card] = set()
        for c in self.cards:
            if c in seen:
                raise DealtTwice(c, "this stock")
            seen.add(c)

    def __len__(self) -> int:
        return len(self.cards)

    def draw(self, skip: set[Card] | frozenset[Card] = frozenset()) -> Card | None:
        """The next card not in ``skip`` (cards dealt otherwise), or None when none is left."""
        while self.cards:
            card = self.cards.pop(0)
            if card not in skip:
                return card
        return None

    def take(self, card: Card) -> bool:
        """Take ``card`` out of the stock (it was dealt by hand); False if it is not in it."""
        if card in self.cards:
            self.cards.remove(card)
            return True
        return False


class DealTimer:
    """When the virtual deck deals next."""

    def __init__(self, deal_pause: float, round_timeout: float) -> None:
        self.deal_pause = deal_pause
        self.round_timeout = round_timeout
        self.next: float | None = None
        """Seconds: a deal due at this time (after a decided round, or the first)."""
        self.open_since: float | None = None
        """Seconds: the current round is open, unwon, since this time."""

    def start(self, at: float) -> None:
        """The next deal is due at ``at`` (the first deal, or after a restart)."""
        self.next, self.open_since = at, None

    def due(self, now: float, paused: bool = False) -> bool:
        """Whether a card is to be dealt at ``now``. Nothing is due while paused."""
        if paused:
            return False
        if self.next is None and self.open_since is not None and \
                now - self.open_since >= self.round_timeout:
            self.next = now
        return self.next is not None and now >= self.next

    def dealt(self, now: float) -> None:
        self.next, self.open_since = None, now

    def decided(self, now: float) -> None:
        """The round was won or drawn: the next card follows after ``deal_pause``."""
        self.next, self.open_since = now + self.deal_pause, None

    def reopened(self, now: float) -> None:
        """An undo opened the round again: no deal is due; its timeout starts now."""
        self.next, self.open_since = None, now

    def resumed(self, now: float) -> None:
        """The game goes on after a pause at ``now``: an open round gets its whole timeout
        from now, and a deal that was due comes ``deal_pause`` seconds from now."""
        if self.open_since is not None:
            self.open_since = now
        elif self.next is not None:
            self.next = now + self.deal_pause

    def ended(self) -> None:
        self.next = self.open_since = None
