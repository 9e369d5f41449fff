"""``referee play --array --audio``: a Stroop game recorded by one mic array in the middle of
the table (TTS voices in a simulated reverberant room), the seats learnt from the names at the
start, refereed by the real recogniser."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from array_room import RATE, piece, said, table

from referee.audio.wav import write_wav

pytest.importorskip("pyroomacoustics")


def referee(*args, tmp_path):
    env = dict(os.environ, REFEREE_DATA=str(tmp_path / "data"))
    return subprocess.run([sys.executable, "-m", "referee", *args], capture_output=True,
                          text=True, timeout=180, env=env)


def recording(tmp_path, lines, mics=4):
    """``lines`` = [(azimuth, text, voice)], said in turn, 0.8 s apart."""
    placed, t = [], 0.4
    for az, text, voice in lines:
        x = said(tmp_path, text, voice)
        placed.append((az, 0.7, x, t))
        t += len(x) / RATE + 0.8
    audio, _ = table(placed, mics=mics, snr=25.0)
    path = tmp_path / "array.wav"
    write_wav(path, audio, RATE)
    return path


SEATS = {"dealer": (90.0, "espeak:en-us"), "ann": (210.0, "flite:slt"),
         "bob": (330.0, "espeak:en-gb+m3")}


def test_a_game_recorded_by_one_array_is_refereed_by_seat(tmp_path):
    lines = [(SEATS[w][0], f"{w} here", SEATS[w][1]) for w in ("dealer", "ann", "bob")]
    lines += [(SEATS["dealer"][0], "seven of diamonds", SEATS["dealer"][1]),   # 7D is turned
              (SEATS["bob"][0], "queen of hearts", SEATS["bob"][1]),           # bob miscalls
              (SEATS["ann"][0], "two of clubs", SEATS["ann"][1])]              # ann qualifies
    wav = recording(tmp_path, lines)
    r = referee("play", "stroop", "--array", "--audio", str(wav), "--names", "dealer,ann,bob",
                "--json", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "seats learnt: dealer at" in r.stderr
    rounds = [json.loads(x) for x in r.stdout.splitlines() if '"round"' in x]
    assert [(o["top"], o["winner"]) for o in rounds] == [("7D", "ann")]


def test_two_seats_the_array_cannot_tell_apart_are_named_and_the_game_refereed(tmp_path):
    """Ann and Bob mirrored on a stereo pair: nobody can move in a recording, so the two are
    named and the game is refereed all the same (live, one of them is asked to move). Their
    calls may be given to each other; the dealer's card is the dealer's."""
    lines = [(180.0, "dealer here", "espeak:en-us"), (60.0, "ann here", "flite:slt"),
             (-60.0, "bob here", "espeak:en-gb+m3"),
             (180.0, "seven of diamonds", "espeak:en-us"),     # 7D is turned
             (60.0, "two of clubs", "flite:slt")]              # ann qualifies
    wav = recording(tmp_path, lines, mics=2)
    r = referee("play", "stroop", "--array", "--audio", str(wav), "--names", "dealer,ann,bob",
                "--json", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "seats too alike: ann and bob sit in directions the array can hardly tell " \
        "apart" in r.stderr
    rounds = [json.loads(x) for x in r.stdout.splitlines() if '"round"' in x]
    assert len(rounds) == 1 and rounds[0]["top"] == "7D", r.stdout
    assert rounds[0]["winner"] in ("ann", "bob")


def test_the_dealers_card_heard_on_two_seats_is_a_deal_and_no_call(tmp_path):
    """The live array test's third round (tests/live/test_array_live.py), its pieces made as
    that test makes them and put end to end: seats learnt from the names said again, then
    the dealer's "nine of hearts", which those seats let through to ann's and bob's
    channels nearly as loud (3 dB and less under the dealer's), and bob's "two of clubs".
    The card is the dealer's deal, not also bob's miscall of it (a card is never dealt and
    called at the same moment), and bob wins the round."""
    import numpy as np
    from live_game import VOICES

    seats = {"dealer": 90.0, "ann": 210.0, "bob": 330.0}
    pieces = [(11, "dealer", "dealer here"), (12, "ann", "ann here"), (13, "bob", "bob here"),
              (14, "dealer", "nine of hearts"), (15, "bob", "two of clubs")]
    parts = []
    for seed, who, text in pieces:
        parts += [piece(tmp_path, [(seats[who], 0.7, text, VOICES[who], 0.0)], 4, seed),
                  np.zeros((int(0.8 * RATE), 4))]
    wav = tmp_path / "array.wav"
    write_wav(wav, np.concatenate(parts), RATE)
    r = referee("play", "stroop", "--array", "--audio", str(wav), "--names", "dealer,ann,bob",
                "--json", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    journal = [json.loads(x) for p in (tmp_path / "data").rglob("*.jsonl")
               for x in p.read_text().splitlines()]
    assert [o["card"] for o in journal if o["type"] == "deal"] == ["9H"], journal
    assert [(o["player"], o["said"]) for o in journal if o["type"] == "call"] == \
        [("bob", "two of clubs")], journal
    rounds = [json.loads(x) for x in r.stdout.splitlines() if '"round"' in x]
    assert [(o["top"], o["winner"]) for o in rounds] == [("9H", "bob")], rounds
