"""``referee play --one-mic --audio``: a Stroop game recorded by one mic in the middle of the
table (TTS voices in a simulated reverberant room), each talker's voice learnt from their name
and three cards at the start, refereed by the real recogniser."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from array_room import RATE, said, table

from referee.audio.wav import write_wav

pytest.importorskip("pyroomacoustics")

TALKERS = {"dealer": (90.0, "espeak:en-us"), "ann": (210.0, "espeak:en-us+f2"),
           "bob": (330.0, "espeak:en-gb+m3")}
ENROL = ("here", "queen of hearts", "two of clubs", "five of spades")


def referee(*args, tmp_path):
    env = dict(os.environ, REFEREE_DATA=str(tmp_path / "data"))
    return subprocess.run([sys.executable, "-m", "referee", *args], capture_output=True,
                          text=True, timeout=180, env=env)


def recording(tmp_path, lines, enrol=ENROL, together=(), talkers=tuple(TALKERS)):
    """Each of ``talkers``' name and cards, then ``lines`` = [(talker, text)], in turn, 0.8 s
    apart; then ``together`` = [(talker, text)] all at once, 60 ms apart."""
    placed, t = [], 0.4
    for who in talkers:
        az, voice = TALKERS[who]
        for text in enrol:
            x = said(tmp_path, f"{who} here" if text == "here" else text, voice)
            placed.append((az, 0.7, x, t))
            t += len(x) / RATE + 0.7
    for who, text in lines:
        x = said(tmp_path, text, TALKERS[who][1])
        placed.append((TALKERS[who][0], 0.7, x, t))
        t += len(x) / RATE + 0.8
    for k, (who, text) in enumerate(together):
        placed.append((TALKERS[who][0], 0.7, said(tmp_path, text, TALKERS[who][1]), t + 0.06 * k))
    audio, _ = table(placed, mics=1, snr=25.0, tail=2.5)
    path = tmp_path / "table.wav"
    write_wav(path, audio, RATE)
    return path


def rounds_of(r) -> list[dict]:
    return [json.loads(x) for x in r.stdout.splitlines() if '"round"' in x]


def test_a_game_at_one_mic_is_refereed_by_voice(tmp_path):
    wav = recording(tmp_path, [("dealer", "seven of diamonds"),   # 7D is turned
                               ("bob", "queen of hearts"),        # bob miscalls
                               ("ann", "two of clubs")])          # ann qualifies
    r = referee("play", "stroop", "--one-mic", "--audio", str(wav), "--names", "dealer,ann,bob",
                "--json", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "voices learnt: dealer at" in r.stderr
    assert [(o["top"], o["winner"]) for o in rounds_of(r)] == [("7D", "ann")]


def test_two_calls_at_once_at_one_mic_are_given_to_neither(tmp_path):
    wav = recording(tmp_path, [("dealer", "seven of diamonds")],
                    together=[("ann", "two of clubs"), ("bob", "four of spades")])
    r = referee("play", "stroop", "--one-mic", "--audio", str(wav), "--names", "dealer,ann,bob",
                "--json", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert not [o for o in rounds_of(r) if o.get("winner")], r.stdout
    journal = [json.loads(x) for p in (tmp_path / "data").rglob("*.jsonl")
               for x in p.read_text().splitlines()]
    # the blend is heard as nothing at all, or heard and not counted ("Who was that?")
    assert not [o for o in journal if o.get("type") == "call"], journal


def test_a_stereo_recording_is_not_one_mic(tmp_path):
    import numpy as np

    path = tmp_path / "stereo.wav"
    write_wav(path, np.zeros((RATE, 2)), RATE)
    r = referee("play", "stroop", "--one-mic", "--audio", str(path), "--players", "ann,bob",
                tmp_path=tmp_path)
    assert r.returncode == 2
    assert "has 2 channels: one mic's recording has one" in r.stderr
    assert "Traceback" not in r.stderr


def test_names_alone_are_too_little_voice_and_say_so(tmp_path):
    wav = recording(tmp_path, [], enrol=("here",))
    r = referee("play", "stroop", "--one-mic", "--enrol-cards", "1", "--audio", str(wav),
                "--names", "dealer,ann,bob", tmp_path=tmp_path)
    assert r.returncode == 2
    assert "heard 3 stretches of voice at the start, not the 6 of the enrolment: each of dealer, ann, bob in turn says their name, then 1 card name," in r.stderr
    assert "Traceback" not in r.stderr


def test_learning_the_voices_again_on_a_recording_is_answered_and_the_game_goes_on(tmp_path):
    wav = recording(tmp_path, [("dealer", "seven of diamonds"),   # 7D is turned
                               ("ann", "referee learn our voices"),
                               ("bob", "queen of hearts"),        # bob miscalls
                               ("ann", "two of clubs")])          # ann qualifies
    r = referee("play", "stroop", "--one-mic", "--audio", str(wav), "--names", "dealer,ann,bob",
                "--json", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "referee: \"referee seats\" on a recording: its voices stay those learnt from its " \
           "start (they are learnt again only on a live one mic)" in r.stderr, r.stderr
    assert [(o["top"], o["winner"]) for o in rounds_of(r)] == [("7D", "ann")], r.stdout


def test_a_goop_shout_at_one_mic_is_the_shouters(tmp_path):
    wav = recording(tmp_path, [("bob", "goop")], talkers=("ann", "bob"))
    r = referee("play", "goop", "--one-mic", "--audio", str(wav), "--names", "ann,bob",
                "--players", "ann,bob", "--json", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    journal = [json.loads(x) for p in (tmp_path / "data").rglob("*.jsonl")
               for x in p.read_text().splitlines()]
    assert [o["player"] for o in journal if o.get("type") == "shout"] == ["bob"], journal


def test_voices_are_kept_for_a_later_game_without_an_enrolment(tmp_path):
    first = recording(tmp_path, [("dealer", "seven of diamonds")])
    r = referee("play", "stroop", "--one-mic", "--audio", str(first), "--names", "dealer,ann,bob",
                tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in (tmp_path / "data" / "voices").iterdir()) == \
        ["ann.npz", "bob.npz", "dealer.npz"]
    (tmp_path / "later").mkdir()
    later = recording(tmp_path / "later", [("dealer", "six of clubs"),      # 6C is turned
                                           ("ann", "three of clubs"),       # ann miscalls
                                           ("bob", "ten of diamonds")], enrol=())
    r = referee("play", "stroop", "--one-mic", "--known-voices", "--audio", str(later),
                "--names", "dealer,ann,bob", "--json", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert [(o["top"], o["winner"]) for o in rounds_of(r)] == [("6C", "bob")]


def test_known_voices_name_whoever_has_none(tmp_path):
    wav = recording(tmp_path, [("dealer", "six of clubs")], enrol=())
    r = referee("play", "stroop", "--one-mic", "--known-voices", "--audio", str(wav),
                "--names", "dealer,ann,bob", tmp_path=tmp_path)
    assert r.returncode == 2
    assert "no voice kept for dealer, ann, bob in" in r.stderr
    assert "Traceback" not in r.stderr


def test_one_mic_settings_that_do_not_go_together_are_refused(tmp_path):
    r = referee("play", "stroop", "--one-mic", "--voice-confidence", "2", "--players", "ann,bob",
                tmp_path=tmp_path)
    assert r.returncode == 2 and "--voice-confidence 2.0: give a probability, 0 to 1" in r.stderr
    r = referee("play", "stroop", "--one-mic", "--channels", "2", "--players", "ann,bob",
                tmp_path=tmp_path)
    assert r.returncode == 2
    assert "--one-mic hears the first channel of one device; --channels picks mics" in r.stderr
    # live, kept voices are looked for before any device is opened
    r = referee("play", "stroop", "--one-mic", "--known-voices", "--players", "ann,bob",
                tmp_path=tmp_path)
    assert r.returncode == 2
    assert "referee: --one-mic: no voice kept for ann, bob in" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_a_kept_voice_that_is_not_one_is_named(tmp_path):
    from referee.app.one_mic import kept
    from referee.hearing.voiceprints import VoicesError

    (tmp_path / "ann.npz").write_bytes(b"PK\x03\x04 torn")
    (tmp_path / "bob.npz").write_text("not a voice")
    with pytest.raises(VoicesError, match="no voice kept for ann, bob, ../etc in"):
        kept(["ann", "bob", "../etc"], tmp_path)


def _journal(data, setup):
    from referee.app.journal_file import JournalFile

    journal = JournalFile.new("stroop", folder=data / "games")
    journal.append({"type": "game", "game": "stroop", "players": ["ann", "bob"],
                    "setup": {"channels": ["dealer", "ann", "bob"], **setup}})
    journal.close()
    return journal.path


def test_resume_takes_known_voices_for_a_one_mic_game_only(tmp_path):
    one_mic = {"enrol_cards": 3, "confidence": 0.9, "overlap": "ask", "known_voices": False}
    path = _journal(tmp_path / "data", {"one_mic": one_mic})
    r = referee("resume", "--known-voices", str(path), tmp_path=tmp_path)
    # taken: the kept voices are looked for (none here), before any device is opened
    assert r.returncode == 2, r.stderr
    assert "referee: --one-mic: no voice kept for dealer, ann, bob in" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
    path.unlink()
    path = _journal(tmp_path / "data", {})
    r = referee("resume", "--known-voices", str(path), tmp_path=tmp_path)
    assert r.returncode == 2
    assert r.stderr == ("referee resume: --known-voices is for a game played with --one-mic; "
                        "this one was not\n"), r.stderr
