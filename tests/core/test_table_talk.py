"""What the table says after a win, and when: the verdict and the running score are separate
utterances, so a verdict never waits behind a score readout; ``terse`` says only who won
and the next card. The referee's voice is real (pyttsx3), placed in a WAV file on the
audio clock, as the live speaker would play it."""

import io

from referee.core.announce import Announcer
from referee.core.cards import Card
from referee.core.events import GameStart, Heard, Utterance
from referee.core.table import Table, TableOptions, VirtualDeck
from referee.voice.speaker import Speaker


def utter(player, said, start, end, kind="call"):
    return Utterance(kind=kind, said=said, start=start, end=end, player=player)


def heard_all(table, upto):
    for c in table.channels:
        table.hear(Heard(c, upto))


def table_with(tmp_path, **kw):
    speaker = Speaker(tmp_path / "referee.wav", text=io.StringIO())
    table = Table(GameStart("stroop", ("ann", "bob")), ["dealer", "ann", "bob"], speaker=speaker, **kw)
    return table, speaker


def test_a_verdict_ready_during_the_score_readout_cuts_it_and_starts_at_once(tmp_path):
    table, speaker = table_with(tmp_path)
    table.hear(utter(None, "three of spades", 0.0, 0.5))
    table.hear(utter("ann", "four of hearts", 1.0, 1.5))
    heard_all(table, 1.6)                          # ann wins: verdict, then the score
    speaker.wait()
    verdict, score = speaker.history()
    assert (verdict.text, score.text) == ("Ann wins one card.", "Ann has one, Bob has zero.")
    assert verdict.urgent and not score.urgent
    assert table.last_said == "Ann wins one card. Ann has one, Bob has zero."   # one line on the screen
    during = verdict.end + 0.3                     # bob's call ends while the score is read out
    table.hear(utter(None, "queen of hearts", during - 1.0, during - 0.6))
    table.hear(utter("bob", "king of spades", during - 0.5, during))
    heard_all(table, during + 0.05)                # decided at once
    speaker.close()
    second = speaker.history()[2]
    assert second.text == "Bob wins one card."
    assert second.start - (during + 0.05) < 0.3    # not after the whole score (1.5 s or more)
    score = speaker.history()[1]
    assert score.start == verdict.end and score.interrupted and score.end == second.start


def test_terse_says_only_the_winner_and_the_next_card(tmp_path):
    deck = VirtualDeck(cards=[Card.parse("3S"), Card.parse("QH"), Card.parse("6D")])
    table, speaker = table_with(tmp_path, deck=deck, announcer=Announcer("terse"),
                                options=TableOptions(deal_pause=1.0))
    heard_all(table, 0.5)                          # 3♠ dealt
    table.hear(utter("bob", "queen of hearts", 0.8, 1.3))        # a miscall: bob is out
    table.hear(utter("ann", "four of hearts", 1.5, 2.0))
    table.hear(utter("bob", "two of clubs", 1.6, 2.05))          # out: no race, no "by a hair"
    heard_all(table, 2.2)
    heard_all(table, 3.3)                          # Q♥ dealt
    said = [s.text for s in speaker.history()]
    assert said == ["Three of spades.", "Ann wins.", "Queen of hearts."]
    table.type("score")                            # asked for: said, terse or not
    heard_all(table, 3.5)
    speaker.close()
    assert speaker.history()[-1].text == "Ann has one, Bob has zero."


def test_terse_says_the_score_every_n_rounds_when_asked_to(tmp_path):
    table, speaker = table_with(tmp_path, announcer=Announcer("terse", scores_every=2))
    for k, (deal, call) in enumerate([("three of spades", "four of hearts"),
                                      ("queen of hearts", "king of spades")]):
        t = 3.0 * k
        table.hear(utter(None, deal, t, t + 0.5))
        table.hear(utter("ann", call, t + 1.0, t + 1.5))
        heard_all(table, t + 1.6)
    speaker.close()
    assert [s.text for s in speaker.history()] == ["Ann wins.", "Ann wins.", "Ann has two, Bob has zero."]
    assert Announcer("terse").scores_every == 0 and Announcer("quiet").scores_every == 1


def test_with_a_virtual_deck_the_next_card_follows_a_score_that_has_begun(tmp_path):
    deck = VirtualDeck(cards=[Card.parse("3S"), Card.parse("QH"), Card.parse("6D")])
    table, speaker = table_with(tmp_path, deck=deck, options=TableOptions(deal_pause=0.2, round_timeout=20))
    heard_all(table, 0.5)                          # 3♠ dealt
    table.hear(utter("ann", "four of hearts", 1.5, 2.0))
    heard_all(table, 2.1)                          # ann wins: verdict (1.2 s), then the score
    heard_all(table, 3.7)                          # Q♥ dealt while the score is said
    heard_all(table, 7.0)
    table.hear(utter("bob", "king of spades", 7.5, 8.0))
    heard_all(table, 8.1)                          # bob wins: verdict and score
    heard_all(table, 8.3)                          # 6♦ dealt during bob's verdict
    speaker.close()
    card, verdict, score, card2, verdict2, score2, card3 = speaker.history()
    assert (verdict.text, score.text, card2.text) == ("Ann wins one card.", "Ann has one, Bob has zero.",
                                                      "Queen of hearts.")
    assert not score.interrupted and card2.start == score.end      # the score is said to its end
    # a score that has not begun when the next card is dealt is dropped
    assert verdict2.start == 8.1 and score2.dropped and card3.start == verdict2.end
