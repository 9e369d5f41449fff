"""Playing cards: ranks, suits and cards as value objects.

A card reads from any of the forms people write or say::

    >>> Card.parse('QH') == Card.parse('Q♥') == Card.parse('queen of hearts')
    True
    >>> Card.parse('10d')
    Card.parse('10D')

Anything else raises :class:`CardError`, a :class:`ValueError` that names the
bad text. Filled and outlined suit glyphs (♠♤ ♣♧ ♥♡ ♦♢) name the same suit.

Court cards are A, J, Q, K (the "face card or ace" of Stroop); number cards
are 2 to 10.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from referee.core.errors import RefereeError


class CardError(RefereeError, ValueError):
    """Text that does not name a card. ``text`` holds the offending text."""

    def __init__(self, text: str, why: str = "not a card") -> None:
        self.text = text
        super().__init__(f"{why}: {text!r}")


class Colour(enum.Enum):
    BLACK = "black"
    RED = "red"


class Suit(enum.Enum):
    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    SPADES = "S"

    @property
    def colour(self) -> Colour:
        return Colour.RED if self in (Suit.DIAMONDS, Suit.HEARTS) else Colour.BLACK

    @property
    def word(self) -> str:
        """The spoken plural: ``'hearts'``."""
        return self.name.lower()

    @property
    def glyph(self) -> str:
        return _GLYPHS[self]


_GLYPHS = {Suit.CLUBS: "♣", Suit.DIAMONDS: "♦", Suit.HEARTS: "♥", Suit.SPADES: "♠"}

#: Rank numbers: ace is 1, jack 11, queen 12, king 13.
ACE, JACK, QUEEN, KING = 1, 11, 12, 13
COURT_RANKS = frozenset({ACE, JACK, QUEEN, KING})

RANK_LETTERS = {ACE: "A", JACK: "J", QUEEN: "Q", KING: "K", **{n: str(n) for n in range(2, 11)}}
RANK_WORDS = {
    1: "ace", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
    8: "eight", 9: "nine", 10: "ten", 11: "jack", 12: "queen", 13: "king",
}

# Every token that names a rank, written or spoken.
_RANK_TOKENS: dict[str, int] = {}
for _n, _w in RANK_WORDS.items():
    _RANK_TOKENS[_w] = _n
    _RANK_TOKENS[_w + "s"] = _n
    _RANK_TOKENS[RANK_LETTERS[_n].lower()] = _n
_RANK_TOKENS.update({"t": 10, "one": ACE, "aces": ACE})

_SUIT_TOKENS: dict[str, Suit] = {}
for _s in Suit:
    _SUIT_TOKENS[_s.word] = _s
    _SUIT_TOKENS[_s.word[:-1]] = _s  # "heart"
    _SUIT_TOKENS[_s.value.lower()] = _s
for _g, _s in {
    "♠": Suit.SPADES, "♤": Suit.SPADES, "♣": Suit.CLUBS, "♧": Suit.CLUBS,
    "♥": Suit.HEARTS, "♡": Suit.HEARTS, "♦": Suit.DIAMONDS, "♢": Suit.DIAMONDS,
}.items():
    _SUIT_TOKENS[_g] = _s

_COMPACT = re.compile(r"^(10|[2-9]|[ajqkt])\s*([cdhs♠♤♣♧♥♡♦♢])$")
_WORD = re.compile(r"[a-z0-9]+|[♠♤♣♧♥♡♦♢]")


def rank_from_token(token: str) -> int | None:
    """The rank a single written or spoken token names, or None."""
    return _RANK_TOKENS.get(token.lower())


def suit_from_token(token: str) -> Suit | None:
    """The suit a single written or spoken token names, or None."""
    return _SUIT_TOKENS.get(token.lower())


@dataclass(frozen=True, order=True)
class Card:
    """One playing card. ``rank`` is 1 (ace) to 13 (king)."""

    rank: int
    suit: Suit

    def __post_init__(self) -> None:
        if not (isinstance(self.rank, int) and 1 <= self.rank <= 13):
            raise CardError(str(self.rank), "not a rank")
        if not isinstance(self.suit, Suit):
            raise CardError(str(self.suit), "not a suit")

    # Named constructors -------------------------------------------------
    @classmethod
    def parse(cls, text: str) -> Card:
        """A card from its short form (``QH``, ``10h``, ``Q♡``) or spoken form
        (``queen of hearts``, ``ten of diamonds``, ``10 of diamonds``)."""
        card = cls.find(text)
        if card is None:
            raise CardError(text)
        return card

    @classmethod
    def find(cls, text: str) -> Card | None:
        """Like :meth:`parse`, but None where the text names no single card."""
        found = read_call(text)
        return found if isinstance(found, Card) else None

    # Views --------------------------------------------------------------
    @property
    def colour(self) -> Colour:
        return self.suit.colour

    @property
    def is_court(self) -> bool:
        """Ace, jack, queen or king."""
        return self.rank in COURT_RANKS

    @property
    def spoken(self) -> str:
        """``'queen of hearts'``."""
        return f"{RANK_WORDS[self.rank]} of {self.suit.word}"

    @property
    def symbol(self) -> str:
        """``'Q♥'``."""
        return RANK_LETTERS[self.rank] + self.suit.glyph

    def __str__(self) -> str:
        return RANK_LETTERS[self.rank] + self.suit.value

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


class DealtTwice(RefereeError, ValueError):
    """With one deck, a card dealt a second time. ``card`` holds it."""

    def __init__(self, card: Card, when: str = "") -> None:
        self.card = card
        super().__init__(f"the {card.symbol} was already dealt" + (f" (in {when})" if when else "")
                         + ": one deck holds each card once")


DECK_SIZE = 52
"""Cards in the one deck every game uses: the stock holds this many."""


def full_deck() -> list[Card]:
    """The 52 cards of a standard deck, in a fixed order."""
    return [Card(r, s) for s in Suit for r in range(1, 14)]


# --- What a call says: a full card, part of one, or nothing ---------------------------
#
# One table of words. A call is read from its words, after these are dropped:
#   * "the" before anything ("the four of hearts");
#   * the ARTICLES "a" and "an" when a rank or a suit word follows them ("a four",
#     "a heart", "an ace"): then they are articles, never a rank.
# Anywhere else "a" stands where a rank stands and IS the ace: "a of hearts", "a♠",
# "AS" (the written letter). Then the words must be one of:
#   RANK "of" SUIT, RANK SUIT  -> a full card     ("four of hearts", "4 of hearts", "four hearts")
#   RANK, SUIT, RANK "of"       -> a partial call ("ace", "a four", "a heart", "jack of")
# and anything else names nothing.

FILLERS = frozenset({"the"})
"""Words dropped wherever they stand."""
ARTICLES = frozenset({"a", "an"})
"""Words dropped when a rank or suit word follows (else "a" is the ace)."""


class CallKind(str, enum.Enum):
    """What a call names."""

    CARD = "card"
    """A full card: rank and suit."""
    PARTIAL = "partial"
    """A bare rank, a bare suit or a call cut short ("jack of"): a miscall in Stroop."""
    NOTHING = "nothing"
    """No card words at all."""


@dataclass(frozen=True)
class Partial:
    """A call that names part of a card."""

    rank: int | None
    """The rank named, or None."""
    suit: Suit | None
    """The suit named, or None."""
    cut_short: bool = False
    """Said as the start of a card, stopped after "of" ("jack of")."""

    @property
    def what(self) -> str:
        """Plain words: ``'a rank only'``, ``'a suit only'`` or ``'a call cut short'``."""
        if self.cut_short:
            return "a call cut short"
        return "a rank only" if self.suit is None else "a suit only"


def words_of(text: str) -> list[str]:
    """The lower-case words of a call, fillers dropped ("the"), and a leading article
    when a rank or suit word follows ("a queen")."""
    words = [w for w in _WORD.findall(text.lower()) if w not in FILLERS]
    if len(words) > 1 and words[0] in ARTICLES and words[1] != "of":
        words = words[1:]
    return words


def read_call(text: str) -> Card | Partial | None:
    """What the words of a call name: a :class:`Card`, a :class:`Partial` call or None."""
    if not isinstance(text, str):
        return None
    m = _COMPACT.match(text.strip().lower())
    if m:
        return Card(_RANK_TOKENS[m.group(1)], _SUIT_TOKENS[m.group(2)])
    words = words_of(text)
    ranks = [rank_from_token(w) for w in words]
    suits = [suit_from_token(w) for w in words]
    if len(words) == 3 and words[1] == "of" and ranks[0] and suits[2]:
        return Card(ranks[0], suits[2])
    if len(words) == 2 and ranks[0] and suits[1]:
        return Card(ranks[0], suits[1])
    if len(words) == 2 and ranks[0] and words[1] == "of":
        return Partial(ranks[0], None, cut_short=True)
    if len(words) == 1 and ranks[0] and _spoken_rank(words[0]):
        return Partial(ranks[0], None)
    if len(words) == 1 and suits[0] and len(words[0]) > 1:
        return Partial(None, suits[0])
    return None


def _spoken_rank(word: str) -> bool:
    """A rank said on its own: a word or a number, not a lone letter ("k", "a")."""
    return len(word) > 1 or word.isdigit()


def call_kind(text: str) -> CallKind:
    """Which :class:`CallKind` the words of a call are."""
    found = read_call(text)
    return CallKind.CARD if isinstance(found, Card) else \
        CallKind.PARTIAL if isinstance(found, Partial) else CallKind.NOTHING


def describe_call(text: str) -> str:
    """Say what a call names, for explaining a miscall: ``'a card'``,
    ``'a rank only'``, ``'a suit only'``, ``'a call cut short'`` or ``'no card'``."""
    found = read_call(text)
    if isinstance(found, Card):
        return "a card"
    return found.what if isinstance(found, Partial) else "no card"
