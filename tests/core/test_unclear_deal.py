"""A deal the dealer's mic did not read: asked for again, and the race held for it."""

import io
import json

from referee.app.journal_file import JournalFile, read_journal
from referee.core.cards import Card
from referee.core.events import GameStart, Heard, Utterance
from referee.core.journal import encode_verdict
from referee.core.replay import replay_lines
from referee.core.table import Table
from referee.core.unclear_deal import UnclearDeal, card_like
from referee.voice.speaker import Speaker

ASK = "Dealer, I did not catch the card. Say it again."


def utter(player, said, start, end, kind="call"):
    return Utterance(kind=kind, said=said, start=start, end=end, player=player)


def marks(table, upto):
    for c in ("dealer", "ann", "bob"):
        table.hear(Heard(c, upto))


def make(tmp_path):
    speaker = Speaker(None, text=io.StringIO())
    journal = JournalFile.new("stroop", folder=tmp_path)
    out = io.StringIO()
    table = Table(GameStart("stroop", ("ann", "bob")), ["dealer", "ann", "bob"],
                  speaker=speaker, journal=journal, json_out=out)
    return table, speaker, journal, out


def rounds(out):
    return [(r["winner"], r["top"]) for r in map(json.loads, out.getvalue().splitlines())
            if r["type"] == "round"]


def won_round_one(table):
    table.hear(utter(None, "three of spades", 1.0, 1.6))
    table.hear(utter("ann", "four of hearts", 2.0, 2.6))          # qualifies on 3♠
    marks(table, 3.0)


def test_words_that_sound_like_a_card():
    assert card_like("i have seven club") and card_like("nine of diamond")
    assert card_like("five diamond") and not card_like("diamond five")
    assert not card_like("of clubs") and not card_like("seven of")      # clatter, talk
    assert not card_like("that was a long week") and not card_like("two kids")
    assert not card_like("undo that") and not card_like("goop") and not card_like("a club")


def test_a_deal_not_read_is_asked_for_and_the_calls_meanwhile_are_judged_against_it(tmp_path):
    table, speaker, journal, out = make(tmp_path)
    won_round_one(table)
    # the dealer turns the 7♣; the mic reads no card in those words
    table.hear(utter(None, "i have seven club", 4.0, 4.8, kind="unknown"))
    # bob calls for the 7♣ while the referee asks: before, his call came after a won round
    # and before any deal, so it counted for nothing
    table.hear(utter("bob", "six of diamonds", 5.5, 6.1))
    marks(table, 6.5)
    assert rounds(out) == [("ann", "3S")]                           # held: no verdict yet
    table.hear(utter(None, "seven of clubs", 7.0, 7.6))             # said again
    marks(table, 8.0)
    assert rounds(out) == [("ann", "3S"), ("bob", "7C")]
    table.finish()
    speaker.close()
    journal.close()
    assert ASK in [s.text for s in speaker.history()]
    objects = read_journal(journal.path).objects
    assert [(o["card"], o["at"]) for o in objects if o["type"] == "deal"] == [("3S", 1.0), ("7C", 4.0)]
    assert [(o["asked"], o["about"]) for o in objects if "asked" in o] == [("deal-unclear", 4.0)]
    lines = [json.dumps(o) for o in objects]
    assert [encode_verdict(v) for v in replay_lines(lines)] == [encode_verdict(v) for v in table.verdicts]


def test_the_race_is_held_only_for_the_wait_when_the_card_is_not_said_again(tmp_path):
    table, speaker, journal, out = make(tmp_path)
    won_round_one(table)
    table.hear(utter(None, "nine of diamond", 4.0, 4.8, kind="unknown"))
    wait = table.unclear.wait
    marks(table, 4.8 + wait - 0.1)
    assert table.now <= 4.0                                          # held at the words' start
    marks(table, 4.8 + wait + 0.1)
    assert table.now == 4.8 + wait + 0.1                              # then goes on
    table.hear(utter(None, "seven of clubs", 11.0, 11.6))           # a deal after the wait
    table.hear(utter("bob", "six of diamonds", 12.0, 12.6))
    marks(table, 13.0)
    table.finish()
    speaker.close()
    deals = [o for o in read_journal(journal.path).objects if o["type"] == "deal"]
    assert [(d["card"], d["at"]) for d in deals] == [("3S", 1.0), ("7C", 11.0)]
    assert rounds(out) == [("ann", "3S"), ("bob", "7C")]


def test_no_question_for_talk_or_for_the_words_of_the_deal_just_made(tmp_path):
    table, speaker, journal, out = make(tmp_path)
    table.hear(utter(None, "three of spades", 1.0, 1.6))
    marks(table, 1.7)
    # the round is open: the rest of the deal's own words, 1.5 s after it began
    table.hear(utter(None, "of spade", 2.5, 2.9, kind="unknown"))
    marks(table, 3.0)
    table.hear(utter("ann", "four of hearts", 3.2, 3.8))
    marks(table, 4.0)
    table.hear(utter(None, "that was a long week", 4.5, 5.5, kind="unknown"))   # talk
    table.hear(utter(None, "three of spades", 6.0, 6.6))           # a card dealt already
    marks(table, 7.0)
    # the room's talk read as card words, and the dealer deals within a second: no question
    table.hear(utter(None, "i have nine diamond", 8.0, 8.8, kind="unknown"))
    marks(table, 9.0)
    table.hear(utter(None, "six of clubs", 9.2, 9.9))
    marks(table, 11.0)
    table.finish()
    speaker.close()
    said = [s.text for s in speaker.history()]
    assert ASK not in said and "That card was already dealt. Say the card again." in said
    assert table.unclear.held_from is None
    deals = [o for o in read_journal(journal.path).objects if o["type"] == "deal"]
    assert [(d["card"], d["at"]) for d in deals] == [("3S", 1.0), ("6C", 9.2)]


def test_a_typed_card_ends_the_hold(tmp_path):
    table, speaker, journal, out = make(tmp_path)
    won_round_one(table)
    table.hear(utter(None, "seven of club", 4.0, 4.6, kind="unknown"))
    table.hear(utter("bob", "six of diamonds", 5.5, 6.1))
    marks(table, 6.5)
    table.type("7C")
    marks(table, 7.0)
    table.finish()
    speaker.close()
    assert table.unclear.held_from is None
    assert rounds(out) == [("ann", "3S"), ("bob", "7C")]


def test_the_hold_starts_no_earlier_than_what_the_dealer_mic_promised():
    u = UnclearDeal(wait=5.0)
    assert u.heard("nine of heart", 4.0, 4.8, 1.0, mark=4.3)
    assert u.mark(6.0) == 4.3 and u.deal_at(Card.parse("9H"), 7.0) == 4.3 and u.mark(6.0) == 6.0


def test_a_deal_right_after_the_unclear_words_is_the_deal_itself_and_long_talk_is_no_deal():
    u = UnclearDeal(wait=5.0, answer_after=1.0)
    # the room's talk read as a card, then the dealer deals: no answer to the question yet
    assert u.heard("five diamond", 8.1, 9.3, 1.0, mark=8.0)
    assert u.deal_at(Card.parse("5D"), 9.5) == 9.5 and u.mark(9.6) == 9.6
    assert not u.heard("i have seven club", 14.7, 19.8, 9.5, mark=14.0)   # 5 s


def test_another_card_dealt_after_the_unclear_words_is_a_new_deal_at_its_own_time():
    u = UnclearDeal(wait=5.0, answer_after=1.0)
    assert u.heard("seven diamond", 1.2, 2.2, None, mark=0.0)   # the 7♦, unread
    assert u.deal_at(Card.parse("10S"), 6.7) == 6.7        # the dealer went on to the 10♠
    assert u.heard("seven diamond", 1.2, 2.2, None, mark=0.0)
    assert u.deal_at(Card.parse("7D"), 4.0) == 1.2         # said again


def test_words_soon_after_a_deal_are_that_deal_read_again():
    u = UnclearDeal()
    assert not u.heard("three club", 32.3, 33.1, 31.4, mark=32.0)      # the 2♣ began at 31.4
    assert u.heard("three club", 34.0, 34.8, 31.4, mark=33.9)



MISSED = "I missed the card. Dealer, say it again, then call again."


def test_calls_long_after_a_won_round_with_no_card_heard_ask_the_dealer_once(tmp_path):
    table, speaker, journal, out = make(tmp_path)
    won_round_one(table)                              # ann's call ends at 2.6
    # the 7♣ turned at 4.0; the dealer's mic heard nothing of it. bob and ann call for it
    table.hear(utter("bob", "six of diamonds", 5.0, 5.6))
    marks(table, 5.5)
    assert MISSED not in [s.text for s in speaker.history()]   # the dealer's mic not yet at 5.6
    marks(table, 6.0)
    table.hear(utter("ann", "two of hearts", 6.2, 6.8))
    marks(table, 7.0)
    assert [s.text for s in speaker.history()].count(MISSED) == 1
    # said again; the calls before it were for a card not known: the players call again
    table.hear(utter(None, "seven of clubs", 8.0, 8.6))
    table.hear(utter("ann", "two of hearts", 9.0, 9.6))
    marks(table, 10.0)
    table.finish()
    speaker.close()
    journal.close()
    assert rounds(out) == [("ann", "3S"), ("ann", "7C")]
    objects = read_journal(journal.path).objects
    asked = [o for o in objects if o["type"] == "note" and "the dealer asked for it" in o["text"]]
    assert [(o["asked"], o["about"]) for o in asked] == [("deal-missed", 5.6)]   # bob's call's end
    assert [s.text for s in speaker.history()].count(MISSED) == 1


def test_no_question_for_a_late_call_or_a_call_after_a_card_heard(tmp_path):
    table, speaker, journal, out = make(tmp_path)
    won_round_one(table)
    table.hear(utter("bob", "six of diamonds", 3.1, 3.7))          # late for the 3♠
    marks(table, 4.0)
    table.hear(utter(None, "seven of clubs", 5.0, 5.6))
    table.hear(utter("bob", "six of diamonds", 6.0, 6.6))          # wins the 7♣
    marks(table, 7.0)
    # the dealer's recogniser reports the next card late: the call arrives first
    table.hear(utter("ann", "ten of hearts", 10.5, 11.1))
    table.hear(Heard("ann", 11.5))
    table.hear(Heard("bob", 11.5))
    table.hear(utter(None, "nine of clubs", 9.5, 10.1))
    marks(table, 11.5)
    table.finish()
    speaker.close()
    assert MISSED not in [s.text for s in speaker.history()]
    assert rounds(out) == [("ann", "3S"), ("bob", "7C"), ("ann", "9C")]


def test_a_card_not_heard_is_asked_for_once_a_round_and_not_after_an_undo_or_a_late_deal():
    u = UnclearDeal()
    u.dealt(1.0)
    u.round_over(2.6)
    assert not u.called(3.5, 4.1)                    # 0.9 s after: a late call
    assert u.called(4.8, 5.4) and u.ask_missed(5.0) is None and u.ask_missed(5.5) == 5.4
    assert not u.called(6.0, 6.6)                    # asked once for that card
    u.dealt(7.0)
    u.round_over(None)                               # open again (an undo)
    assert not u.called(12.0, 12.6)
    u.round_over(13.0)
    assert u.called(15.5, 16.0)
    u.dealt(15.0)                                    # the card heard after all, turned before
    assert u.ask_missed(16.5) is None


def test_one_question_when_the_unclear_words_come_after_a_call_for_that_card():
    u = UnclearDeal()
    u.dealt(1.0)
    u.round_over(2.6)
    assert u.called(5.0, 5.6)                       # reported before the dealer's words
    assert u.heard("i have ace diamond", 4.0, 4.8, 1.0, mark=3.0)
    assert u.ask_missed(6.0) is None and u.ask_now(6.0)
    assert not u.called(7.0, 7.6) and u.ask_missed(8.0) is None
