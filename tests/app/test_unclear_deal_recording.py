"""`referee play stroop --audio` on a recording (espeak-ng voices, three mics, each voice
leaking into the other mics at -16 dB, the real PocketSphinx) where the dealer's words for a
card are read as no card: the referee asks for the card again, and bob's call, made before the
dealer says it again, counts for that card."""

from __future__ import annotations

import json
import subprocess

from referee.lab.bench.kill_resume import recorded_game, referee

LINES = [   # (mic: 0 dealer, 1 ann, 2 bob; words; seconds)
    (0, "three of spades", 0.5), (1, "four of hearts", 2.0),     # ann wins the 3♠
    (0, "i have seven club", 4.5),       # the 7♣ turned, its words read as no card
    (2, "six of diamonds", 6.3),          # bob calls for the 7♣
    (0, "seven of clubs", 8.5),           # said again, as asked
]


def test_a_card_read_as_no_card_is_asked_for_and_the_call_meanwhile_counts(tmp_path):
    wav = recorded_game(tmp_path / "game.wav", LINES)
    p = referee(tmp_path / "data", "play", "stroop", "--audio", str(wav),
                "--names", "dealer,ann,bob", stdout=subprocess.PIPE)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    (path,) = (tmp_path / "data").rglob("*.jsonl")
    objs = [json.loads(line) for line in path.read_text().splitlines()]
    deals = [(o["card"], o["at"]) for o in objs if o["type"] == "deal"]
    assert [c for c, _ in deals] == ["3S", "7C"], (objs, err)
    assert 4.4 <= deals[1][1] <= 4.7, deals           # when the 7♣ was turned, not said again
    assert any(o["type"] == "note" and "asked again" in o["text"] for o in objs), objs
    rounds = [(o["top"], o["winner"]) for o in objs if o["type"] == "round"]
    assert rounds == [("3S", "ann"), ("7C", "bob")], (rounds, err)
    assert "Dealer, I did not catch the card. Say it again." in out + err
