"""The soccer card game's four ways to block a forward (RULINGS.md, soccer 1 and 5).

A block is one card or two, named by the defender:

1. ``goalie``: one goalie (J, Q, K) of the forward's colour;
2. ``number``: one card of the forward's number;
3. ``sum`` / ``difference``: two cards whose sum or difference is the
   forward's number (the seed's "addition and subtraction");
4. ``suit``: two cards of the forward's suit.

Goalies have no number: they count only in methods 1 and 4. An ace is 1
everywhere. A block that matches two methods (9♦ and 4♦ against a 5♦: the
difference and the suit) is one block; every method that holds is named.

    >>> from referee.core.cards import Card
    >>> check_block(Card.parse('5S'), (Card.parse('5D'),)).methods
    (<Method.NUMBER: 'number'>,)
    >>> check_block(Card.parse('5S'), (Card.parse('JH'),)).reason
    'the jack is red; the forward is black'
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from referee.core.cards import JACK, KING, QUEEN, RANK_WORDS, Card
from referee.core.numbers import number_words

GOALIE_RANKS = frozenset({JACK, QUEEN, KING})


class Method(str, enum.Enum):
    """A way a block holds."""

    GOALIE = "goalie"
    """Method 1: one goalie of the forward's colour."""
    NUMBER = "number"
    """Method 2: one card of the same number."""
    SUM = "sum"
    """Method 3: two cards adding up to the forward's number."""
    DIFFERENCE = "difference"
    """Method 3: two cards whose difference is the forward's number."""
    SUIT = "suit"
    """Method 4: two cards of the forward's suit."""


def is_goalie(card: Card) -> bool:
    """Jack, queen or king: no number, blocks only by colour or suit."""
    return card.rank in GOALIE_RANKS


def _rank(card: Card) -> str:
    return RANK_WORDS[card.rank]


def _a(word: str) -> str:
    return ("an " if word[0] in "aeiou" else "a ") + word


@dataclass(frozen=True)
class BlockCheck:
    """What a named block does against a forward."""

    methods: tuple[Method, ...]
    """Every method that holds, in the seed's order; empty when the block fails."""
    reason: str
    """Why it holds (``'same number'``) or why it fails, in words to speak."""

    @property
    def holds(self) -> bool:
        return bool(self.methods)


def method_words(forward: Card, cards: tuple[Card, ...], method: Method) -> str:
    """How one method holds, to speak: ``'five plus two is seven'``."""
    if method is Method.GOALIE:
        return f"{_a(_rank(cards[0]))} of the same colour"
    if method is Method.NUMBER:
        return "same number"
    if method is Method.SUIT:
        return f"two {forward.suit.word}"
    high, low = sorted((c.rank for c in cards), reverse=True)
    if method is Method.SUM:
        return f"{number_words(high)} plus {number_words(low)} is {number_words(forward.rank)}"
    return f"{number_words(high)} minus {number_words(low)} is {number_words(forward.rank)}"


def check_block(forward: Card, cards: tuple[Card, ...]) -> BlockCheck:
    """Check ``cards`` against ``forward`` (a number card or an ace).

    Distinct cards are the caller's to ensure; this is the arithmetic and the
    colours only."""
    if not cards:
        return BlockCheck((), "no block")
    if len(cards) > 2:
        return BlockCheck((), f"a block is one card or two, not {number_words(len(cards))}")
    methods: list[Method] = []
    if len(cards) == 1:
        card = cards[0]
        if is_goalie(card):
            if card.colour == forward.colour:
                methods.append(Method.GOALIE)
            else:
                return BlockCheck((), f"the {_rank(card)} is {card.colour.value}; "
                                      f"the forward is {forward.colour.value}")
        elif card.rank == forward.rank:
            methods.append(Method.NUMBER)
        else:
            return BlockCheck((), f"the {_rank(card)} is not {_a(_rank(forward))}")
    else:
        a, b = cards
        numbered = not (is_goalie(a) or is_goalie(b))
        if numbered and a.rank + b.rank == forward.rank:
            methods.append(Method.SUM)
        if numbered and abs(a.rank - b.rank) == forward.rank:
            methods.append(Method.DIFFERENCE)
        if a.suit == forward.suit and b.suit == forward.suit:
            methods.append(Method.SUIT)
        if not methods:
            return BlockCheck((), _two_card_failure(forward, a, b, numbered))
    return BlockCheck(tuple(methods), " and ".join(method_words(forward, cards, m) for m in methods))


def _two_card_failure(forward: Card, a: Card, b: Card, numbered: bool) -> str:
    f = number_words(forward.rank)
    if numbered:
        high, low = max(a.rank, b.rank), min(a.rank, b.rank)
        sums = (f"{number_words(high)} plus {number_words(low)} is {number_words(high + low)} and "
                f"{number_words(high)} minus {number_words(low)} is {number_words(high - low)}, not {f}")
    else:
        sums = "a goalie has no number"
    return f"{sums}; and they are not both {forward.suit.word}"
