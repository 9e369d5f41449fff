"""A deal the dealer's mic did not read (Stroop with a dealer's mic): the referee asks for the
card again and holds the race at the dealer's first words until the card is heard, so the
calls made for that card meanwhile are judged against it, not against the card before.
A deal the mic heard nothing of shows only in the players' calls for it, long after the last
round was won: then the dealer is asked for the card too (:meth:`UnclearDeal.called`), and the
players call again once it is said. A deal the mic read in part ("four of") is completed from
what the other mics heard of it (:func:`completed`).

The table tells this object each utterance of the dealer's that is no deal
(:meth:`UnclearDeal.heard`); passes every mark of the dealer's mic through :meth:`mark`, which
holds it at the start of those words while it waits, and :meth:`ask_now`, which says when to
ask; and times a deal made while it waits at that start when it is the card said again
(:meth:`deal_at`): the card was on the table from then. It waits ``wait`` seconds after the
words, then lets the race go on as before. For a card heard not at all, the table tells it
each deal (:meth:`dealt`), each verdict (:meth:`verdict`) and each player's call
(:meth:`called`), and asks when :meth:`ask_missed` says so. See docs/timing.md, "A deal the
dealer's mic did not read" and "A deal the dealer's mic heard nothing of".
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.core.cards import Card, Partial, Suit, rank_from_token, read_call, suit_from_token, words_of
from referee.core.games.stroop_verdicts import RoundOutcome, RoundOver, Undone


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


def completed(said: str, elsewhere: tuple[str, ...], dealt: set[Card]) -> Card | None:
    """The card a partial reading of the dealer's words ("four of") is, when other mics heard
    that voice as one card (``elsewhere``) that agrees with it and is not ``dealt`` yet; else
    None (a dealer's partial is no deal: docs/timing.md, "The dealer's words cut short")."""
    part = read_call(said)
    if not isinstance(part, Partial):
        return None
    cards = {c for c in map(Card.find, elsewhere) if c is not None and c not in dealt
             and part.rank in (None, c.rank) and part.suit in (None, c.suit)}
    return cards.pop() if len(cards) == 1 else None


def dealer_card(said: str, whole: bool, elsewhere: tuple[str, ...], dealt: set[Card]
                ) -> tuple[Card | None, str]:
    """The card the dealer's words read as ``said`` name (``whole``: read as a whole card, else
    as a partial one), helped by what other mics heard of that voice (``elsewhere``), and a note
    when those chose it ('' otherwise): a partial reading is :func:`completed` from them, and a
    card ``dealt`` already, read so on the dealer's mic, is the one they heard if that is not."""
    card = Card.find(said) if whole else completed(said, elsewhere, dealt)
    other = next((c for c in map(Card.find, elsewhere) if c is not None and c not in dealt), None)
    if card in dealt and other is not None:     # no reading of this deal: another mic's is
        return other, (f"the dealer's mic heard the {card.symbol}, dealt already; the "
                       f"{other.symbol} as another mic heard it")
    return card, ""


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
    missed_after: float = 2.0
    """Seconds after a round was won or drawn from which a player's call means a card was
    dealt that the dealer's mic did not hear (sooner, it is a late call for that round)."""
    last_deal: float = float("-inf")
    """When the last card dealt was turned."""
    settled: float | None = None
    """When the last round was won or drawn (None: none yet, or reopened by an undo); a deal
    after it opens the next round."""
    missed: float | None = None
    """The end of the first call made since then for a card not heard, until asked."""
    asked_for: float | None = None
    """The round (its ``settled``) whose next card has been asked for."""

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
        self.questioned, self.asked_for = True, self.settled
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

    def dealt(self, at: float) -> None:
        """A card dealt, turned at ``at``: a round is open."""
        self.last_deal = max(self.last_deal, at)

    def round_over(self, at: float | None) -> None:
        """The open round won or drawn at ``at`` (None: reopened by an undo)."""
        self.settled, self.missed = at, None

    def verdict(self, v, now: float) -> None:
        """Follows the rounds in the game's verdicts: a round won or drawn (at its winning
        call's end, else ``now``), a round reopened by an undo."""
        if isinstance(v, RoundOver) and v.outcome in (RoundOutcome.WON, RoundOutcome.DRAW):
            self.round_over(v.winning_call.end if v.winning_call else now)
        elif isinstance(v, Undone) and v.reopened:
            self.round_over(None)

    def dealt_twice(self) -> None:
        """A card heard from the dealer was dealt already, and the dealer asked to say the card
        again: no other question for this round's card."""
        self.asked_for, self.missed = self.settled, None

    def called(self, start: float, end: float) -> bool:
        """Whether a player's call from ``start`` to ``end`` is one for a card not heard: it
        begins ``missed_after`` or more after the last round was won or drawn, no card has
        been dealt since, and neither that card nor the dealer's unclear words have been asked
        for. If so, :meth:`ask_missed` says when to ask."""
        if not self._may_ask_missed() or start - self.settled < self.missed_after:
            return False
        self.missed = end if self.missed is None else min(self.missed, end)
        return True

    def ask_missed(self, upto: float) -> float | None:
        """The end of such a call when the dealer is to be asked for the card now, the
        dealer's mic heard to ``upto``; else None. Asked once that mic has been heard to the
        end of the call with still no card dealt (its recogniser may be late with the deal),
        once a round."""
        if self.missed is None or upto < self.missed:
            return None
        end, self.missed = self.missed, None
        if not self._may_ask_missed():
            return None
        self.asked_for = self.settled
        return end

    def _may_ask_missed(self) -> bool:
        """Whether a card not heard may be asked for now: a round was won or drawn, no card
        has been dealt since, and the dealer has not been asked for the next card (nor is being
        asked about unclear words)."""
        return self.settled is not None and self.last_deal <= self.settled \
            and self.held_from is None and self.asked_for != self.settled
