"""A microphone that is not there when `referee play` starts (its PulseAudio source not
loaded yet): the game starts with the other mics, says which one is missing, and hears it
from when its source appears, on the shared clock. With no mic at all: one line, exit 2."""

from __future__ import annotations

import pytest

from live_game import Referee, journal_lines, mix_wav, voice_wav

pytestmark = pytest.mark.live


def referee(data, names, devices):
    return Referee("play", "stroop", "--names", names, "--devices", *devices, "--json",
                   "--speak-to", "text", "--engine", "pocketsphinx", data=data)


def test_with_no_mic_there_at_all_play_is_one_line_and_exit_2(pulse, tmp_path):
    if "gone" not in pulse.sinks:
        pulse.add_split_sink("gone", ["gone_ann", "gone_bob"])
        pulse.unplug("gone_ann")
        pulse.unplug("gone_bob")
    ref = referee(tmp_path / "data", "ann,bob", ["gone_ann", "gone_bob"])
    assert ref.finish(30) == 2
    lines = [line for _, line in ref.err if line.startswith("referee:")]
    assert len(lines) == 1 and lines[0].startswith("referee: no microphone could be opened: "), ref.stderr
    assert "gone_ann" in lines[0] and "gone_bob" in lines[0]
    assert not list((tmp_path / "data").rglob("*.jsonl"))       # no game begun


@pytest.mark.slow
def test_a_mic_missing_at_the_start_is_heard_once_it_appears(pulse, tmp_path):
    pulse.add_split_sink("late", ["late_ann", "late_bob"])
    pulse.unplug("late_bob")                    # bob's USB mic is not plugged in yet
    data = tmp_path / "data"
    ref = referee(data, "dealer,ann,bob", ["dealer", "late_ann", "late_bob"])

    def deal(card, words, n):
        pulse.play(voice_wav(tmp_path, "dealer", words), "dealer")
        try:
            ref.wait_for(lambda r: sum(o["type"] == "deal" for o in journal_lines(data)[1]) == n,
                         2, "the deal")
        except AssertionError:
            ref.type(card)                      # the recogniser missed it: the dealer types it
        ref.wait_for(lambda r: sum(o["type"] == "deal" for o in journal_lines(data)[1]) == n, 5, "deal")

    def calls(name, parts):
        wav = mix_wav(tmp_path / f"{name}.wav", [(ch, voice_wav(tmp_path, who, text), at)
                                                 for ch, who, text, at in parts], 2)
        pulse.play(wav, "late")

    try:
        ref.wait_err("referee: journal ", 60)
        ref.wait_err("Bob's microphone is not there. Starting without it.", 10)
        ref.wait_err("microphones lined up", 10)
        deal("7D", "seven of diamonds", 1)
        # bob calls first, but into a mic that is not there: ann's later call wins
        calls("r1", [(1, "bob", "two of clubs", 0.3), (0, "ann", "three of clubs", 2.4)])
        r1 = ref.wait_objects("round", 1, 20)[0]
        pulse.plug("late_bob")
        ref.wait_err("Listening on Bob's microphone now.", 20)
        deal("KD", "king of diamonds", 2)
        # now bob's call, first, is heard and wins; ann's later one does not
        calls("r2", [(1, "bob", "ace of clubs", 0.3), (0, "ann", "two of clubs", 2.4)])
        r2 = ref.wait_objects("round", 2, 20)[1]
        ref.type("end")
        ref.wait_objects("final", 1, 20)
        assert ref.finish() == 0, ref.stderr
    finally:
        ref.kill()
    assert "Traceback" not in ref.stderr, ref.stderr
    assert "referee: bob's microphone is not there (cannot open input device" in ref.stderr, ref.stderr
    assert (r1["top"], r1["winner"]) == ("7D", "ann"), (r1, ref.stderr)
    assert (r2["top"], r2["winner"], r2["call"]["said"]) == ("KD", "bob", "ace of clubs"), (r2, ref.stderr)
    _, lines = journal_lines(data)
    notes = [o["text"] for o in lines if o["type"] == "note"]
    assert any(n.startswith("bob's microphone not there at the start") for n in notes), notes
    back = [n for n in notes if n.startswith("bob's microphone found at ")]
    assert len(back) == 1, notes
    at_found = float(back[0].split(" at ")[1].split(" s")[0])
    bob = [o for o in lines if o["type"] == "call" and o["player"] == "bob"]
    assert bob and all(o["start"] > at_found for o in bob), (bob, at_found)
    # on the shared clock: bob's call and ann's begin in the journal as far apart as in the
    # file played into their two mics
    ann = [o for o in lines if o["type"] == "call" and o["player"] == "ann" and o["start"] > at_found]
    want = (2.4 + spoken(tmp_path, "ann", "two of clubs")) - (0.3 + spoken(tmp_path, "bob", "ace of clubs"))
    assert len(ann) == 1 and abs(ann[0]["start"] - bob[0]["start"] - want) < 0.05, (ann, bob, want)


def spoken(tmp_path, who, text):
    """Where ``text`` in ``who``'s voice begins in its WAV, as the referee times calls."""
    from referee.audio.wav import read_pcm16
    from referee.hearing.timing import truth

    x, rate = read_pcm16(voice_wav(tmp_path, who, text))
    return truth(x[:, 0].astype(float), rate)[0]
