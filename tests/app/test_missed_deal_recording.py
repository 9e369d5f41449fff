"""`referee play stroop --audio` on a recording (espeak-ng voices, three mics, each voice
leaking into the other mics at -16 dB, the real PocketSphinx) where the dealer's mic hears
nothing of a card: bob's call for it, long after the last round was won, makes the referee ask
the dealer for the card, and once it is said again bob's second call wins it."""

from __future__ import annotations

import json
import subprocess

from referee.lab.bench.kill_resume import recorded_game, referee

LINES = [   # (mic: 0 dealer, 1 ann, 2 bob; words; seconds)
    (0, "three of spades", 0.5), (1, "four of hearts", 2.0),     # ann wins the 3♠
    # the 7♣ is turned at about 4.5 s and the dealer's mic hears nothing of it
    (2, "six of diamonds", 6.0),          # bob calls for it
    (0, "seven of clubs", 10.0),          # said again, as asked
    (2, "six of diamonds", 11.5),         # bob calls again
]


def test_a_call_for_a_card_the_dealer_mic_never_heard_asks_for_the_card(tmp_path):
    wav = recorded_game(tmp_path / "game.wav", LINES)
    p = referee(tmp_path / "data", "play", "stroop", "--audio", str(wav),
                "--names", "dealer,ann,bob", stdout=subprocess.PIPE)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    (path,) = (tmp_path / "data").rglob("*.jsonl")
    objs = [json.loads(line) for line in path.read_text().splitlines()]
    assert [o["card"] for o in objs if o["type"] == "deal"] == ["3S", "7C"], (objs, err)
    assert any(o["type"] == "note" and "the dealer asked for it" in o["text"] for o in objs), objs
    assert [o["outcome"] for o in objs if o["type"] == "judged" and o["player"] == "bob"] \
        == ["late", "qualifies"], objs
    rounds = [(o["top"], o["winner"]) for o in objs if o["type"] == "round"]
    assert rounds == [("3S", "ann"), ("7C", "bob")], (rounds, err)
    assert (out + err).count("I missed the card. Dealer, say it again, then call again.") == 1
