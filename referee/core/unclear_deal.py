"""A deal the dealer's mic did not read (Stroop with a dealer's mic): the referee asks for the
card again and holds the race at the dealer's first words until the card is heard, so the
calls made for that card meanwhile are judged against it, not against the card before.

The table tells this object each utterance of the dealer's that is no deal
(:meth:`UnclearDeal.heard`); passes every mark of the dealer's mic through :meth:`mark`, which
holds it at the start of those words while it waits, and :meth:`ask_now`, which says when to
ask; and times a deal made while it waits at that start when it is the card said again
(:meth:`deal_at`): the card was on the table from then. It waits ``wait`` seconds after the
words, then lets the race go on as before. See docs/timing.md, "A deal the dealer's
mic did not read".
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.core.cards import Card, Suit, rank_from_token, suit_from_token, words_of


def card_words(said: str) -> tuple[frozenset[int], frozenset[Suit]]:
    """The ranks and the suits named in words read as no card."""
    words = [w for w in words_of(said) if w not in ("a", "an")]
    return (frozenset(r for r in map(rank_from_token, words) if r),
            frozenset(s for w in words if len(w) > 1 for s in [suit_from_token(w)] if s))


def card_like(said: str) -> bool:
    """Whether words read as no card sound like an attempt at one: a rank and, after it, a
    suit ("i have seven club", "nine of diamond"). A suit or a rank alone ("of clubs",
    "seven of") is too often what card clatter or the room's talk is read as."""
    words = [w for w in words_of(said) if w not in ("a", "an")]
    ranks = [i for i, w in enumerate(words) if rank_from_token(w)]
    return any(suit_from_token(w) and len(w) > 1 and ranks and ranks[0] < i
               for i, w in enumerate(words))


@dataclass
class UnclearDeal:
    """Asking the dealer again for a card the dealer's mic did not read (times: seconds on the
    table's clock)."""

    wait: float = 5.0
    """Seconds after the unclear words that the race is held for the card said again."""
    longest: float = 2.0
    """Seconds: longer words are talk (or the room's, read on the dealer's mic), not a deal."""
    answer_after: float = 1.0
    """Seconds after the unclear words' end before a deal can be the card said again (the
    question takes longer than that to say): a deal sooner is the deal itself, timed as
    heard, and the unclear words were something else."""
    since_deal: float = 2.5
    """Seconds after the last deal began before the dealer's unclear words are taken for a
    new deal (sooner, they are the last deal's, read again, or talk)."""
    held_from: float | None = None
    """Where the dealer's words that were not read began, while the race is held for them."""
    words: str = ""
    """Those words, as read."""
    named: tuple[frozenset[int], frozenset[Suit]] = (frozenset(), frozenset())
    """The ranks and suits in them: the card said again has one of them."""
    questioned: bool = False
    """Whether the dealer has been asked for the card since they were heard."""
    asked: float = float("-inf")
    """When they ended."""
    until: float = float("-inf")
    """Until when (the dealer's mark) the race is held."""

    def heard(self, said: str, start: float, end: float, last_deal: float | None,
              mark: float) -> bool:
        """Whether words ``said`` from ``start`` to ``end`` that the dealer's mic did not
        read as a card may be a card unread: they sound like one, last at most ``longest``,
        a deal is due (no card yet, or ``since_deal`` seconds or more since the last deal
        began at ``last_deal``) and the race is not held already. If so, the race is held
        from ``start``, or from the dealer's ``mark`` (what the race was told already) if
        that is later, and :meth:`ask_now` says when to ask."""
        if self.held_from is not None or end - start > self.longest or not card_like(said):
            return False
        if last_deal is not None and start - last_deal < self.since_deal:
            return False
        self.held_from, self.asked, self.until = max(start, mark), end, end + self.wait
        self.named, self.words, self.questioned = card_words(said), said, False
        return True

    def ask_now(self, upto: float) -> bool:
        """Whether to ask for the card now, the dealer's mic heard to ``upto``: once, when
        ``answer_after`` has gone by since the unclear words with no card dealt (the room's
        talk read as card words just before a deal asks nothing)."""
        if self.held_from is None or self.questioned or upto < self.asked + self.answer_after:
            return False
        self.questioned = True
        return True

    def mark(self, upto: float) -> float:
        """The dealer's mark ``upto`` as the race may take it: held at the unclear words'
        start while the card may still be said again; the hold ends once ``upto`` passes
        the wait."""
        if self.held_from is None:
            return upto
        if upto >= self.until:
            self.held_from = None
            return upto
        return min(upto, self.held_from)

    def deal_at(self, card: Card, at: float) -> float:
        """When ``card``, dealt at ``at``, was first on the table: while the race is held,
        the start of the unclear words if it is the card said again (``answer_after`` or
        more after them, and of a rank or suit they named), else ``at``; the hold ends."""
        held, self.held_from = self.held_from, None
        ranks, suits = self.named
        if held is None or at < self.asked + self.answer_after \
                or card.rank not in ranks and card.suit not in suits:
            return at
        return min(at, held)
