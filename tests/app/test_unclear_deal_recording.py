"""`referee play stroop --audio` on recordings (espeak-ng voices, three mics, each voice
leaking into the other mics at -16 dB, the real PocketSphinx) of a card the dealer's mic did
not read: words read as no card, asked for again, bob's call meanwhile counting for that card;
and a card the dealer's mic heard nothing of, asked for once bob calls for it, bob calling
again once it is said."""

from __future__ import annotations

import json
import subprocess

from referee.lab.bench.kill_resume import recorded_game, referee


def play(tmp_path, lines) -> tuple[list[dict], str]:
    """The recording of ``lines`` (mic: 0 dealer, 1 ann, 2 bob; words; seconds) refereed:
    its journal's objects, and what the referee printed and said."""
    wav = recorded_game(tmp_path / "game.wav", lines)
    p = referee(tmp_path / "data", "play", "stroop", "--audio", str(wav),
                "--names", "dealer,ann,bob", stdout=subprocess.PIPE)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    (path,) = (tmp_path / "data").rglob("*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()], out + err


def rounds(objs):
    return [(o["top"], o["winner"]) for o in objs if o["type"] == "round"]


def test_a_card_read_as_no_card_is_asked_for_and_the_call_meanwhile_counts(tmp_path):
    objs, said = play(tmp_path, [
        (0, "three of spades", 0.5), (1, "four of hearts", 2.0),     # ann wins the 3♠
        (0, "i have seven club", 4.5),       # the 7♣ turned, its words read as no card
        (2, "six of diamonds", 6.3),          # bob calls for the 7♣
        (0, "seven of clubs", 8.5),           # said again, as asked
    ])
    deals = [(o["card"], o["at"]) for o in objs if o["type"] == "deal"]
    assert [c for c, _ in deals] == ["3S", "7C"], (objs, said)
    assert 4.4 <= deals[1][1] <= 4.7, deals           # when the 7♣ was turned, not said again
    assert any(o["type"] == "note" and "asked again" in o["text"] for o in objs), objs
    assert rounds(objs) == [("3S", "ann"), ("7C", "bob")], (objs, said)
    assert "Dealer, I did not catch the card. Say it again." in said


def test_a_call_for_a_card_the_dealer_mic_never_heard_asks_for_the_card(tmp_path):
    objs, said = play(tmp_path, [
        (0, "three of spades", 0.5), (1, "four of hearts", 2.0),     # ann wins the 3♠
        # the 7♣ is turned at about 4.5 s and the dealer's mic hears nothing of it
        (2, "six of diamonds", 6.0),          # bob calls for it
        (0, "seven of clubs", 10.0),          # said again, as asked
        (2, "six of diamonds", 11.5),         # bob calls again
    ])
    assert [o["card"] for o in objs if o["type"] == "deal"] == ["3S", "7C"], (objs, said)
    assert any(o["type"] == "note" and "the dealer asked for it" in o["text"] for o in objs), objs
    assert [o["outcome"] for o in objs if o["type"] == "judged" and o["player"] == "bob"] \
        == ["late", "qualifies"], objs
    assert rounds(objs) == [("3S", "ann"), ("7C", "bob")], (objs, said)
    assert said.count("I missed the card. Dealer, say it again, then call again.") == 1
