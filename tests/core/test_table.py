"""The live table, fed the hearing layer's events directly (the microphones
and recognisers are tested on their own, and end to end elsewhere)."""

import io
import json

from referee.core.announce import Announcer
from referee.core.events import GameStart, Heard, Utterance
from referee.app.journal_file import JournalFile, read_journal
from referee.core.replay import replay_lines
from referee.core.journal import encode_verdict
from referee.voice.speaker import Speaker
from referee.core.table import Table, TableOptions, VirtualDeck
from referee.core.cards import Card


def utter(player, said, start, end, kind="call"):
    return Utterance(kind=kind, said=said, start=start, end=end, player=player)


def heard_all(table, upto, channels=("dealer", "ann", "bob")):
    for c in channels:
        table.hear(Heard(c, upto))


def make(tmp_path, to=None, **kw):
    text = io.StringIO()
    speaker = Speaker(to, text=text)
    journal = JournalFile.new("stroop", folder=tmp_path)
    out = io.StringIO()
    table = Table(GameStart("stroop", ("ann", "bob")), ["dealer", "ann", "bob"],
                  speaker=speaker, journal=journal, json_out=out, **kw)
    return table, speaker, journal, out, text


def test_a_short_game_is_judged_journaled_and_announced(tmp_path):
    table, speaker, journal, out, text = make(tmp_path)
    table.hear(utter(None, "three of spades", 1.0, 1.6))          # the dealer deals 3♠ at 1.0
    heard_all(table, 1.6)
    # bob's call ended first but his recogniser reports it later than ann's
    table.hear(utter("ann", "four of hearts", 2.0, 2.6))
    table.hear(Heard("ann", 3.0))
    table.hear(Heard("dealer", 3.0))
    assert not [v for v in table.verdicts if type(v).__name__ == "RoundOver"]
    table.hear(utter("bob", "five of diamonds", 1.9, 2.5))
    table.hear(Heard("bob", 3.0))
    table.hear(utter(None, "six of diamonds", 4.0, 4.5))
    table.hear(utter("ann", "queen of spades", 5.0, 5.5))         # miscall: a number is needed
    table.hear(utter("ann", "eight of clubs", 6.0, 6.5))          # inactive
    table.hear(utter("bob", "two of spades", 7.0, 7.5))
    heard_all(table, 9.0)
    table.finish()
    speaker.close()
    journal.close()

    rounds = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [(r["type"], r.get("winner"), r.get("pile")) for r in rounds] == [
        ("round", "bob", 1), ("round", "bob", 1), ("final", None, None)]
    assert rounds[-1]["scores"] == {"ann": 0, "bob": 2}
    said = [s.text for s in speaker.history()]
    assert said[:2] == ["Bob wins one card.", "Bob has one, Ann has zero."]   # two utterances
    assert said[-1].startswith("Game over. Bob wins with two cards.")
    # The journal replays to the same verdicts.
    contents = read_journal(journal.path)
    lines = [json.dumps(obj) for obj in contents.objects]
    again = [encode_verdict(v) for v in replay_lines(lines)]
    assert again == [encode_verdict(v) for v in table.verdicts]
    assert contents.finished


def test_the_referee_does_not_hear_itself(tmp_path):
    deck = VirtualDeck(cards=[Card.parse("QH"), Card.parse("3S")])
    table, speaker, journal, out, text = make(tmp_path, to=tmp_path / "referee.wav", deck=deck)
    heard_all(table, 0.5)                       # the deck deals the queen of hearts at 0.5
    speaker.wait()
    assert speaker.history()[0].text == "Queen of hearts."
    # ann's mic picks up the referee saying the card: that is no call
    table.hear(utter("ann", "queen of hearts", 0.6, 1.3))
    table.hear(utter("bob", "king of spades", 2.0, 2.5))
    heard_all(table, 3.0)
    assert [u.said for u in table.dropped] == ["queen of hearts"]
    won = [v for v in table.verdicts if type(v).__name__ == "RoundOver"]
    assert [(w.winner, w.top) for w in won] == [("bob", Card.parse("QH"))]
    speaker.close()


def test_at_one_mic_the_referee_does_not_ask_who_said_its_own_words(tmp_path):
    from referee.core.events import Unattributed

    deck = VirtualDeck(cards=[Card.parse("QH"), Card.parse("3S")])
    table, speaker, journal, out, text = make(tmp_path, to=tmp_path / "referee.wav", deck=deck)
    heard_all(table, 0.5)                       # the deck deals the queen of hearts at 0.5
    speaker.wait()
    # the one mic hears the referee saying the card, a voice nobody enrolled: no question
    table.hear(Unattributed("call", "queen of hearts", 0.6, 1.3))
    # a player's call whose voice is not sure: asked about
    table.hear(Unattributed("call", "king of spades", 4.0, 4.5))
    # the journal says why: the likeliest voice and how likely, or two voices
    table.hear(Unattributed("call", "two of clubs", 5.0, 5.6, "ann", 0.62))
    table.hear(Unattributed("shout", "goop", 6.0, 6.3, "bob", 0.99, two=True))
    heard_all(table, 7.0)
    speaker.wait()
    said = [s.text for s in speaker.history()]
    assert said.count("Who was that? Say it again.") == 3, said
    speaker.close()
    journal.close()
    notes = [o["text"] for o in read_journal(journal.path).objects if o["type"] == "note"]
    assert notes == ["dropped 'queen of hearts': the referee's own voice",
                     "not counted: 'king of spades' at 4.500 s: whose voice it was is not sure",
                     "not counted: 'two of clubs' at 5.600 s: whose voice it was is not sure "
                     "(ann's at 62 %)",
                     "not counted: 'goop' at 6.300 s: two voices at once"]


def test_virtual_deck_deals_after_a_pause_and_on_timeout(tmp_path):
    deck = VirtualDeck(cards=[Card.parse("QH"), Card.parse("3S"), Card.parse("6D")])
    table, speaker, journal, out, text = make(
        tmp_path, deck=deck, options=TableOptions(deal_pause=1.0, round_timeout=5.0))
    heard_all(table, 0.0)
    table.hear(utter("bob", "king of spades", 1.0, 1.5))
    heard_all(table, 2.0)             # decided; the next deal is due at 3.0
    heard_all(table, 3.2)             # 3♠ dealt at 3.2
    heard_all(table, 8.0)             # no winner for 4.8 s: not yet
    heard_all(table, 8.3)             # 5.1 s: 6♦ dealt
    heard_all(table, 20.0)
    heard_all(table, 30.0)            # the deck is empty: the game ends
    speaker.close()
    deals = [o for o in read_journal(journal.path).objects if o["type"] == "deal"]
    assert [(d["card"], d["at"]) for d in deals] == [("QH", 0.0), ("3S", 3.2), ("6D", 8.3)]
    assert table.over


def test_typed_cards_and_commands(tmp_path):
    table, speaker, journal, out, text = make(tmp_path)
    heard_all(table, 1.0)
    assert table.type("3S") is None
    assert "not a card or a command" in table.type("hello")
    table.hear(utter("ann", "four of hearts", 1.5, 2.0))
    heard_all(table, 3.0)
    table.type("undo")
    table.type("score")
    # typed at one audio time, "score" would be judged before "undo": it moves a microsecond
    # later (so the journal replays them as typed), and is judged at the next block
    heard_all(table, 3.1)
    speaker.close()
    said = [s.text for s in speaker.history()]
    assert "Ann gives back one card. The round is open again." in said
    assert said[-1] == "Ann has zero, Bob has zero."


def test_seats_learns_who_is_who_again_by_the_shell_or_says_there_is_nothing_to_learn(tmp_path):
    asked = []
    table, speaker, journal, out, text = make(tmp_path, reseat=lambda: asked.append(table.now))
    table.hear(utter(None, "jack of clubs", 0.0, 0.5))
    table.hear(utter("ann", "seats", 1.0, 1.5, kind="command"))   # "referee learn our voices"
    heard_all(table, 2.0)
    assert len(asked) == 1
    table.type("voices")              # typed: "voices" (one mic) is "seats" (an array)
    table.type("seats")
    assert len(asked) == 3
    table.hear(utter("bob", "queen of hearts", 3.0, 3.5))
    heard_all(table, 4.0)
    table.finish()
    speaker.close()
    assert [o["winner"] for o in map(json.loads, out.getvalue().splitlines())
            if o.get("type") == "round"] == ["bob"]       # the game goes on where it stood
    table2, speaker2, *_ = make(tmp_path / "2")
    table2.type("voices")
    heard_all(table2, 1.0)
    speaker2.close()
    assert [s.text for s in speaker2.history()] == [
        "There are no seats or voices to learn with these microphones."]


def test_commands_by_voice_and_quiet_verbosity(tmp_path):
    table, speaker, journal, out, text = make(tmp_path, announcer=Announcer("verbose", scores_every=0))
    table.hear(utter(None, "jack of clubs", 0.0, 0.5))
    table.hear(utter("ann", "two of hearts", 1.0, 1.5))
    table.hear(utter("bob", "repeat", 2.0, 2.4, kind="command"))
    heard_all(table, 3.0)
    speaker.close()
    said = [s.text for s in speaker.history()]
    # "repeat" says where the game stands: the top card, then the score
    assert said == ["Ann is out this round.", "The top card is the jack of clubs. Ann has zero, Bob has zero."]


def test_repeat_says_the_top_card_and_the_score_or_that_the_dealer_is_awaited(tmp_path):
    table, speaker, journal, out, text = make(tmp_path)
    table.type("repeat")                                           # no card yet, no virtual deck
    heard_all(table, 0.5)
    table.hear(utter(None, "four of diamonds", 1.0, 1.5))
    table.hear(utter("ann", "two of clubs", 2.0, 2.5))
    heard_all(table, 3.0)
    table.type("repeat")
    speaker.close()
    said = [s.text for s in speaker.history()]
    assert said[0] == "Waiting for the dealer: name the card, or type it. Ann has zero, Bob has zero."
    assert said[-1] == "The top card is the four of diamonds. Ann has one, Bob has zero."


def test_goop_hand_shout_race_then_the_count_with_a_correction(tmp_path):
    text = io.StringIO()
    speaker = Speaker(None, text=text)
    journal = JournalFile.new("goop", folder=tmp_path)
    out = io.StringIO()
    players = ("ann", "bob", "cai")
    table = Table(GameStart("goop", players), list(players), speaker=speaker, journal=journal,
                  json_out=out, options=TableOptions(confirm=1.5))

    def all_heard(t):
        for p in players:
            table.hear(Heard(p, t))

    table.hear(utter("cai", "goop", 10.0, 10.4, kind="shout"))
    table.hear(utter("ann", "goop", 10.1, 10.43, kind="shout"))   # within 40 ms, began later
    all_heard(10.5)
    answers = {"ann": ("seven", "zero"), "bob": ("three", "five"), "cai": ("twelve", "none")}
    t = 11.0
    for p in players:
        for i, said in enumerate(answers[p]):
            table.hear(utter(p, said, t, t + 0.4, kind="number"))
            if p == "bob" and i == 1:     # bob corrects himself
                table.hear(utter(p, "no, four", t + 0.8, t + 1.2, kind="number"))
                t += 1.0
            all_heard(t + 0.5)
            all_heard(t + 2.5)            # past the confirm window: next question
            t += 3.0
    all_heard(t + 1)
    table.finish()
    speaker.close()
    said = [s.text for s in speaker.history()]
    assert said[0] == "Cai gooped! Cai began one hundred milliseconds sooner."
    assert said[1] == "Count! Ann, how many of your cards are in the centre?"
    assert "Bob: four left." in said and "Bob, how many cards are left in your Goop pile?" in said
    objs = [json.loads(line) for line in out.getvalue().splitlines()]
    hand = next(o for o in objs if o["type"] == "hand")
    assert hand["points"] == {"ann": 7, "bob": 3 - 8, "cai": 12}
    assert hand["says_go"] == "cai" and hand["pick_order"] == ["bob", "ann", "cai"]
    assert said[-2] == ("Cai has twelve, Ann has seven, Bob has minus five. "
                        "Pick decks: Bob first, then Ann, then Cai. Cai says go.")
    assert said[-1] == "The game ends before anyone won. Cai has twelve, Ann has seven, Bob has minus five."
    # The journal replays to the same verdicts.
    lines = [json.dumps(o) for o in read_journal(journal.path).objects]
    assert [encode_verdict(v) for v in replay_lines(lines)] == [encode_verdict(v) for v in table.verdicts]


def test_the_screen_shows_top_card_activity_last_calls_and_scores(tmp_path):
    from referee.app.screen import Screen
    shown = io.StringIO()
    table, speaker, journal, out, text = make(tmp_path, screen=Screen(shown, live=False))
    table.hear(utter(None, "jack of clubs", 0.0, 0.5))
    table.hear(utter("ann", "two of hearts", 1.0, 1.5))
    heard_all(table, 2.0)
    speaker.close()
    last = shown.getvalue().split("╭")[-1]
    assert "round 1  top card J♣  pile 1" in last
    assert "ann" in last and "out" in last and "two of hearts" in last
    bob_line = next(line for line in last.splitlines() if "bob" in line)
    assert "active" in bob_line and bob_line.rstrip(" │").endswith("0")


def test_a_deal_whose_start_precedes_the_dealers_watermark_is_kept(tmp_path):
    # the recogniser's start of a dealer's utterance may lie a few ms before what the
    # dealer's mic already promised: the deal is timed at the promise, not dropped
    table, speaker, journal, out, text = make(tmp_path)
    heard_all(table, 5.03)
    table.hear(utter(None, "king of diamonds", 5.0, 5.8))
    table.hear(utter("ann", "queen of clubs", 6.5, 7.2))
    heard_all(table, 8.0)
    speaker.close()
    journal.close()
    objs = [json.loads(x) for x in journal.path.read_text().splitlines()]
    assert {"type": "deal", "card": "KD", "at": 5.03} in objs
    assert not [o for o in objs if o["type"] == "note"]
    assert json.loads(out.getvalue().splitlines()[0])["winner"] == "ann"


def test_a_resumed_table_settles_what_was_open_and_journals_only_missing_verdicts(tmp_path):
    from referee.core.journal import parse_lines

    table, speaker, journal, out, _ = make(tmp_path)
    table.hear(utter(None, "seven of diamonds", 1.0, 1.6))
    table.hear(utter("ann", "two of clubs", 2.0, 2.6))
    heard_all(table, 3.0)                      # round 1 decided
    table.hear(utter(None, "king of diamonds", 4.0, 4.6))
    table.hear(utter("bob", "ace of clubs", 5.0, 5.6))
    heard_all(table, 5.62)                     # round 2 not yet settled (tie window)
    speaker.close()
    journal.close()
    lines = journal.path.read_text().splitlines()
    log = parse_lines(lines)
    objs = [json.loads(x) for x in lines]
    assert [o["round"] for o in objs if o["type"] == "round"] == [1]
    # resumed (clock offset past the last event): round 2 is settled while rebuilding;
    # its verdicts were never journaled, so they are journaled and printed once
    out2 = io.StringIO()
    t2 = Table(log.game, ["dealer", "ann", "bob"], json_out=out2, history=list(log.events),
               options=TableOptions(offset=6.6), write_start=False)
    missing = t2.journal_missing(objs)
    assert [json.loads(x)["round"] for x in out2.getvalue().splitlines()] == [2]
    assert [encode_verdict(v)["type"] for v in missing][-1] == "round"
    # with every verdict in the journal already, nothing is journaled again
    full = objs + [encode_verdict(v) for v in missing]
    out3 = io.StringIO()
    t3 = Table(log.game, ["dealer", "ann", "bob"], json_out=out3, history=list(log.events),
               options=TableOptions(offset=6.6), write_start=False)
    assert t3.journal_missing(full) == [] and out3.getvalue() == ""
    assert t3.game.scores == {"ann": 1, "bob": 1}


def test_a_listener_that_fails_leaves_the_game_unfinished_for_resume(tmp_path):
    import pytest

    from referee.app.session import ListeningFailed, run_live

    table, speaker, journal, out, _ = make(tmp_path)

    def events():
        yield utter(None, "seven of diamonds", 1.0, 1.6)
        yield utter("ann", "two of clubs", 2.0, 2.6)
        for c in ("dealer", "ann", "bob"):
            yield Heard(c, 3.0)
        raise ValueError("the microphone went away")

    with pytest.raises(ListeningFailed, match="microphone went away"):
        run_live(table, events())
    speaker.close()
    journal.close()
    assert not table.over
    objs = [json.loads(x) for x in journal.path.read_text().splitlines()]
    assert [o["type"] for o in objs if o["type"] in ("round", "final")] == ["round"]


def test_new_game_ends_this_game_and_starts_another_in_its_own_journal(tmp_path):
    journals = []

    def new_game():
        j = JournalFile.new("stroop", folder=tmp_path)
        j.append({"type": "game", "game": "stroop", "players": ["ann", "bob"]})
        journals.append(j)
        return j, None

    text = io.StringIO()
    speaker = Speaker(None, text=text)
    first = JournalFile.new("stroop", folder=tmp_path)
    out = io.StringIO()
    table = Table(GameStart("stroop", ("ann", "bob")), ["dealer", "ann", "bob"], speaker=speaker,
                  journal=first, json_out=out, new_game=new_game)
    table.hear(utter(None, "three of spades", 0.0, 0.5))
    table.hear(utter("ann", "four of hearts", 1.0, 1.5))
    table.hear(utter("bob", "new game", 2.0, 2.6, kind="command"))
    heard_all(table, 3.0)
    assert not table.over and len(journals) == 1
    table.hear(utter(None, "six of diamonds", 4.0, 4.5))
    table.hear(utter("bob", "eight of clubs", 5.0, 5.5))
    heard_all(table, 6.0)
    table.finish()
    speaker.close()
    finals = [json.loads(line) for line in out.getvalue().splitlines() if '"final"' in line]
    assert [f["scores"] for f in finals] == [{"ann": 1, "bob": 0}, {"ann": 0, "bob": 1}]
    assert "A new game starts." in [s.text for s in speaker.history()]
    assert read_journal(first.path).finished
    second = read_journal(journals[0].path)
    assert second.finished and [o["card"] for o in second.objects if o["type"] == "deal"] == ["6D"]


def test_a_late_shout_during_the_goop_announcement_is_journaled_not_dropped(tmp_path):
    speaker = Speaker(tmp_path / "referee.wav", text=io.StringIO())
    journal = JournalFile.new("goop", folder=tmp_path)
    players = ("ann", "bob")
    table = Table(GameStart("goop", players), list(players), speaker=speaker, journal=journal)
    table.hear(utter("bob", "goop", 1.0, 1.4, kind="shout"))
    for p in players:
        table.hear(Heard(p, 1.45))
    speaker.wait()
    assert speaker.history()[0].text == "Bob gooped!"
    table.hear(utter("ann", "goop", 1.5, 1.9, kind="shout"))     # while the referee speaks
    for p in players:
        table.hear(Heard(p, 2.5))
    speaker.close()
    assert table.dropped == []
    ignored = [o for o in read_journal(journal.path).objects if o["type"] == "ignored"]
    assert [(o["player"], o["end"]) for o in ignored] == [("ann", 1.9)]


def test_a_card_dealt_twice_is_not_dealt_and_the_dealer_is_told(tmp_path):
    table, speaker, journal, out, text = make(tmp_path)
    table.hear(utter(None, "three of spades", 1.0, 1.6))
    table.hear(utter("ann", "four of hearts", 2.0, 2.6))
    heard_all(table, 3.0)
    table.hear(utter(None, "three of spades", 4.0, 4.6))       # misheard, or the wrong card
    heard_all(table, 5.0)
    assert "the 3♠ was already dealt" in table.type("3S")
    table.finish()
    speaker.close()
    assert "That card was already dealt. Say the card again." in [s.text for s in speaker.history()]
    deals = [o for o in read_journal(journal.path).objects if o["type"] == "deal"]
    assert [d["card"] for d in deals] == ["3S"]


def test_a_deal_read_as_a_card_dealt_already_is_what_another_mic_heard_of_it(tmp_path):
    # the dealer's "ace of clubs" read as the 3♠ dealt before, while ann's mic heard its leak
    # as the ace: a card dealt already is no reading of this deal, so the ace is dealt
    from dataclasses import replace
    table, speaker, journal, out, text = make(tmp_path)
    table.hear(utter(None, "three of spades", 1.0, 1.6))
    table.hear(utter("ann", "four of hearts", 2.0, 2.6))
    heard_all(table, 3.0)
    table.hear(replace(utter(None, "three of spades", 4.0, 4.6),
                       heard_elsewhere=("three of spades", "ace of clubs")))
    table.hear(utter("bob", "king of diamonds", 5.0, 5.6))
    heard_all(table, 6.0)
    table.finish()
    objs = read_journal(journal.path).objects
    assert [d["card"] for d in objs if d["type"] == "deal"] == ["3S", "AC"]
    assert any(o["type"] == "note" and "heard the 3♠, dealt already; the A♣ as another mic heard it" in o["text"]
               for o in objs)
    assert [json.loads(x)["winner"] for x in out.getvalue().splitlines()
            if json.loads(x)["type"] == "round"] == ["ann", "bob"]
    # with nothing else heard, or only cards dealt already, it is refused as before
    table, speaker, journal, out, text = make(tmp_path / "again")
    table.hear(utter(None, "three of spades", 1.0, 1.6))
    heard_all(table, 3.0)
    table.hear(replace(utter(None, "three of spades", 4.0, 4.6), heard_elsewhere=("3S",)))
    heard_all(table, 5.0)
    assert [d["card"] for d in read_journal(journal.path).objects if d["type"] == "deal"] == \
        ["3S"]


def test_the_dealers_words_cut_short_are_the_card_other_mics_heard_of_them(tmp_path):
    # the dealer's "four of spades" read on the dealer's mic as "four of" (a partial call),
    # while the players' mics heard its leak as the four of spades: that card is dealt
    from dataclasses import replace
    table, speaker, journal, out, text = make(tmp_path)
    table.hear(utter(None, "three of spades", 1.0, 1.6))
    table.hear(utter("ann", "four of hearts", 2.0, 2.6))
    heard_all(table, 3.0)
    table.hear(replace(utter(None, "four of", 4.0, 4.5, kind="partial"),
                       heard_elsewhere=("four of spades",)))
    table.hear(utter("bob", "nine of hearts", 5.0, 5.6))
    heard_all(table, 6.0)
    table.finish()
    objs = read_journal(journal.path).objects
    assert [d["card"] for d in objs if d["type"] == "deal"] == ["3S", "4S"]
    assert [json.loads(x)["winner"] for x in out.getvalue().splitlines()
            if json.loads(x)["type"] == "round"] == ["ann", "bob"]
    # no deal when nothing else was heard, when it disagrees with the words ("spades" and
    # the four of hearts), when it is dealt already, or when two cards would fit
    for said, elsewhere in (("four of", ()), ("spades", ("four of hearts",)),
                            ("three", ("three of spades",)),
                            ("four", ("four of spades", "four of clubs"))):
        table, speaker, journal, out, text = make(tmp_path / said.replace(" ", "-"))
        table.hear(utter(None, "three of spades", 1.0, 1.6))
        heard_all(table, 3.0)
        table.hear(replace(utter(None, said, 4.0, 4.5, kind="partial"),
                           heard_elsewhere=elsewhere))
        heard_all(table, 5.0)
        assert [d["card"] for d in read_journal(journal.path).objects
                if d["type"] == "deal"] == ["3S"], (said, elsewhere)


def test_the_stock_holds_each_of_52_cards_once():
    assert len(set(VirtualDeck(seed=7).cards)) == 52
    try:
        VirtualDeck(cards=[Card.parse("QH"), Card.parse("3S"), Card.parse("Q♡")])
    except ValueError as e:
        assert "Q♥ was already dealt" in str(e)
    else:
        raise AssertionError("a stock with a card twice was accepted")


def test_pause_stops_the_virtual_deck_and_resume_restarts_its_timer(tmp_path):
    from referee.app.screen import Screen
    shown = io.StringIO()
    deck = VirtualDeck(cards=[Card.parse("QH"), Card.parse("3S"), Card.parse("6D")])
    table, speaker, journal, out, text = make(
        tmp_path, deck=deck, screen=Screen(shown, live=False),
        options=TableOptions(deal_pause=1.0, round_timeout=5.0))
    heard_all(table, 0.0)                                        # QH dealt at 0.0
    table.hear(utter("ann", "pause", 0.5, 0.8, kind="command"))
    for t in range(1, 40):                                       # long past the round timeout
        heard_all(table, float(t))
    assert table.paused and len(deck) == 2
    assert "paused — say 'referee resume'" in shown.getvalue().split("╭")[-1]
    table.hear(utter("bob", "king of spades", 40.0, 40.5))       # no verdict while paused
    table.hear(utter("bob", "resume", 41.0, 41.4, kind="command"))
    heard_all(table, 46.3)                                       # the timeout starts afresh at 41.4
    assert len(deck) == 2
    heard_all(table, 46.5)
    assert len(deck) == 1
    assert "paused" not in shown.getvalue().split("╭")[-1]
    speaker.close()
    deals = [o for o in read_journal(journal.path).objects if o["type"] == "deal"]
    assert [(d["card"], d["at"]) for d in deals] == [("QH", 0.0), ("3S", 46.5)]
    judged = [o for o in read_journal(journal.path).objects if o["type"] == "judged"]
    assert [o["outcome"] for o in judged] == ["paused"]
    assert not [o for o in read_journal(journal.path).objects if o["type"] == "round"][:-1]


def test_a_deal_due_when_paused_waits_the_deal_pause_after_resume(tmp_path):
    deck = VirtualDeck(cards=[Card.parse("QH"), Card.parse("3S")])
    table, speaker, journal, out, text = make(
        tmp_path, deck=deck, options=TableOptions(deal_pause=2.0, round_timeout=5.0))
    heard_all(table, 0.0)
    table.hear(utter("bob", "king of spades", 1.0, 1.5))         # won: 3S due at 3.5
    table.hear(utter("ann", "pause", 2.0, 2.4, kind="command"))
    heard_all(table, 20.0)
    assert len(deck) == 1
    table.type("resume")
    heard_all(table, 21.9)
    assert len(deck) == 1
    heard_all(table, 22.0)
    assert len(deck) == 0
    speaker.close()


def test_a_typed_card_is_taken_out_of_the_virtual_deck(tmp_path):
    deck = VirtualDeck(cards=[Card.parse("QH"), Card.parse("QS"), Card.parse("3S")])
    table, speaker, journal, out, text = make(
        tmp_path, deck=deck, options=TableOptions(deal_pause=1.0, round_timeout=5.0))
    heard_all(table, 0.0)                                        # the deck deals QH
    assert table.type("QS") is None                              # the dealer types the next card
    assert [str(c) for c in deck.cards] == ["3S"]
    for t in range(1, 30):                                       # the deck deals on: 3S, then ends
        heard_all(table, float(t))
    assert "the Q♥ was already dealt" in table.type("QH")        # refused, and said why
    table.finish()
    speaker.close()
    assert "The queen of hearts was already dealt." in [s.text for s in speaker.history()]
    deals = [o for o in read_journal(journal.path).objects if o["type"] == "deal"]
    assert [d["card"] for d in deals] == ["QH", "QS", "3S"]
    assert read_journal(journal.path).finished


def test_a_deal_of_a_card_already_dealt_never_reaches_the_game(tmp_path):
    from referee.core.events import Deal
    table, speaker, journal, out, text = make(tmp_path, deck=VirtualDeck(cards=[Card.parse("QH")]))
    heard_all(table, 0.0)
    table._push("keyboard", Deal(Card.parse("QH"), 0.5))         # e.g. a deck that still held it
    heard_all(table, 1.0)
    speaker.close()
    notes = [o["text"] for o in read_journal(journal.path).objects if o["type"] == "note"]
    assert len(notes) == 1 and notes[0].startswith("not dealt: the Q♥ was already dealt")


def _resumed(tmp_path, settle, history_from):
    """A virtual-deck game journaled up to a crash, resumed one second after its last event."""
    from referee.core.journal import parse_lines
    first, speaker, journal, out, text = make(tmp_path, deck=VirtualDeck(cards=[Card.parse("QH")]))
    history_from(first)
    speaker.close()
    journal.close()
    log = parse_lines(journal.path.read_text().splitlines())
    last = max(e.end if hasattr(e, "end") else e.at for e in log.events)
    deck = VirtualDeck(cards=[Card.parse("3S"), Card.parse("6D")])
    return Table(log.game, ["dealer", "ann", "bob"], history=list(log.events), deck=deck,
                 options=TableOptions(offset=last + 1.0, settle=settle, deal_pause=1.0,
                                      round_timeout=5.0), write_start=False), deck


def test_a_resumed_game_waits_the_settle_time_before_it_deals(tmp_path):
    def won(t):
        heard_all(t, 0.0)                                          # QH at 0.0
        t.hear(utter("bob", "king of spades", 1.0, 1.5))           # won: crash before the next deal
        heard_all(t, 1.6)
    table, deck = _resumed(tmp_path, 4.0, won)                     # the clock goes on at 2.5
    heard_all(table, 0.0)                                          # (the mics' times start again at 0)
    heard_all(table, 3.9)
    assert len(deck) == 2                                          # not dealt during the settle time
    heard_all(table, 4.0)
    assert len(deck) == 1 and table.game.top == Card.parse("3S")
    assert table.game.dealt[Card.parse("3S")] == 2 and table.now == 6.5


def test_a_round_open_at_the_crash_stays_open_after_resume(tmp_path):
    def open_(t):
        heard_all(t, 0.0)                                          # QH at 0.0, no call yet
        heard_all(t, 0.5)
    table, deck = _resumed(tmp_path, 3.0, open_)                   # the clock goes on at 1.0
    heard_all(table, 0.0)
    heard_all(table, 6.0)                                          # settle 3 s, then the 5 s timeout
    assert len(deck) == 2 and table.game.top == Card.parse("QH")
    table.hear(utter("ann", "king of spades", 6.5, 7.0))           # the resumed round is won
    heard_all(table, 7.5)
    assert table.game.scores == {"ann": 1, "bob": 0}


def test_a_call_before_the_first_deal_is_told_why_it_does_not_count(tmp_path):
    table, speaker, journal, out, text = make(tmp_path)
    table.hear(utter("ann", "two of clubs", 1.0, 1.5))
    table.hear(utter("bob", "king of spades", 1.2, 1.8))           # the same burst: told once
    heard_all(table, 2.0)
    table.hear(utter("bob", "king of spades", 6.0, 6.5))           # later: told again
    heard_all(table, 7.0)
    table.hear(utter(None, "four of diamonds", 8.0, 8.5))
    table.hear(utter("ann", "two of spades", 9.0, 9.5))            # after the deal: a real call
    heard_all(table, 10.0)
    speaker.close()
    said = [s.text for s in speaker.history()]
    assert said[:2] == ["Waiting for the dealer: name the card, or type it."] * 2
    assert said[2:] == ["Ann wins one card.", "Ann has one, Bob has zero."]
    judged = [o["outcome"] for o in read_journal(journal.path).objects if o["type"] == "judged"]
    assert judged == ["no-round", "no-round", "no-round", "qualifies"]


def test_the_goop_count_takes_typed_numbers_and_keeps_its_question_on_screen(tmp_path):
    from referee.app.screen import Screen
    shown = io.StringIO()
    speaker = Speaker(None, text=io.StringIO())
    journal = JournalFile.new("goop", folder=tmp_path)
    players = ("ann", "bob")
    table = Table(GameStart("goop", players), list(players), speaker=speaker, journal=journal,
                  screen=Screen(shown, live=False), options=TableOptions(confirm=1.0))

    def all_heard(t):
        for p in players:
            table.hear(Heard(p, t))

    table.hear(utter("bob", "goop", 1.0, 1.4, kind="shout"))
    all_heard(1.5)
    assert table.type("7") is None                               # typed: ann's cards in the centre
    all_heard(2.0)
    all_heard(3.0)                                               # confirmed: the next question
    assert table.type("no, 9") is None                           # a late correction, typed
    all_heard(4.0)
    for t in range(5, 40):                                       # no answer: asked twice, then quiet
        all_heard(float(t))
    assert "Ann, how many cards are left in your Goop pile?" in shown.getvalue().split("╭")[-1]
    speaker.close()
    said = [s.text for s in speaker.history()]
    assert said[2:4] == ["Ann: seven in the centre.", "Ann, how many cards are left in your Goop pile?"]
    assert said[4] == "Ann: nine in the centre. Ann, how many cards are left in your Goop pile?"
    assert said[5:] == ["Ann, how many cards are left in your Goop pile?"] * 2
    counted = [(o["player"], o["field"], o["value"]) for o in read_journal(journal.path).objects
               if o["type"] == "count"]
    assert counted == [("ann", "centre", 7), ("ann", "centre", 9)]
