import pytest

from referee.core.cards import Card, CardError, Colour, Suit, describe_call, full_deck


@pytest.mark.parametrize("text", ["QH", "qh", "Q♥", "Q♡", "queen of hearts", "Queen Hearts", " queen  of hearts "])
def test_every_form_of_the_queen_of_hearts(text):
    assert Card.parse(text) == Card(12, Suit.HEARTS)


@pytest.mark.parametrize(
    "text, short",
    [("10h", "10H"), ("ten of diamonds", "10D"), ("10 of diamonds", "10D"), ("A♢", "AD"),
     ("9♧", "9C"), ("3♠", "3S"), ("3♤", "3S"), ("ace of spades", "AS"), ("two of clubs", "2C"),
     ("jack of spades", "JS"), ("king of diamonds", "KD"), ("Th", "10H")],
)
def test_written_and_spoken_forms(text, short):
    assert str(Card.parse(text)) == short


def test_repr_pastes_back():
    for card in full_deck():
        assert eval(repr(card)) == card  # noqa: S307 - the point of the repr


def test_views():
    qh = Card.parse("QH")
    assert qh.spoken == "queen of hearts"
    assert qh.symbol == "Q♥"
    assert qh.colour is Colour.RED
    assert qh.is_court and Card.parse("AS").is_court and not Card.parse("10S").is_court


@pytest.mark.parametrize("bad", ["", "Z9", "1H", "11h", "queen", "hearts", "queen of hearts and spades", "QX", "14 of clubs"])
def test_bad_text_raises_a_value_error_naming_it(bad):
    with pytest.raises(CardError) as err:
        Card.parse(bad)
    assert isinstance(err.value, ValueError)
    assert repr(bad) in str(err.value)


def test_find_returns_none_instead_of_raising():
    assert Card.find("four") is None
    assert Card.find("four of hearts") == Card.parse("4H")


def test_describe_call():
    assert describe_call("four") == "a rank only"
    assert describe_call("hearts") == "a suit only"
    assert describe_call("six") == "a rank only"
    assert describe_call("nine of clubs") == "a card"
    assert describe_call("hello there") == "no card"


def test_deck_has_52_distinct_cards():
    deck = full_deck()
    assert len(deck) == len(set(deck)) == 52
