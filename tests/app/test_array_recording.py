"""``referee play --array --audio``: a Stroop game recorded by one mic array in the middle of
the table (TTS voices in a simulated reverberant room), the seats learnt from the names at the
start, refereed by the real recogniser."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from array_room import RATE, said, table

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


def test_two_seats_the_array_cannot_tell_apart_are_named(tmp_path):
    wav = recording(tmp_path, [(60.0, "ann here", "flite:slt"),
                               (-60.0, "bob here", "espeak:en-gb+m3")], mics=2)
    r = referee("play", "stroop", "--array", "--audio", str(wav), "--players", "ann,bob",
                tmp_path=tmp_path)
    assert r.returncode == 2
    assert "ann and bob sit in directions the array cannot tell apart" in r.stderr
    assert "Traceback" not in r.stderr
