"""The referee's voice played live through a real PulseAudio server (a null sink
standing in for the loudspeaker), recorded back from the sink's monitor."""

from __future__ import annotations

import io
import time

import numpy as np

from referee.voice.speaker import Speaker
from referee.voice.voices import Pyttsx3Voice


def recording(pulse, sink):
    """Start recording ``sink`` and wait until the sound really flows (a
    loaded server can take a while to start a new stream)."""
    rec = pulse.record(sink)
    deadline = time.monotonic() + 10
    while not rec.path.exists() or rec.path.stat().st_size < 3200:
        assert time.monotonic() < deadline, "the recording did not start"
        time.sleep(0.05)
    return rec


def bursts(x: np.ndarray, rate: int, gap: float = 0.4, frame: float = 0.02,
           level: float = 0.01) -> list[tuple[float, float]]:
    """(start, end) seconds of the stretches with sound, joining pauses < ``gap``."""
    n = int(frame * rate)
    frames = x[: len(x) // n * n].reshape(-1, n)
    loud = np.sqrt(np.mean(frames ** 2, axis=1)) > level
    out: list[list[float]] = []
    for i in np.flatnonzero(loud):
        t = i * frame
        if out and t - out[-1][1] < gap:
            out[-1][1] = t + frame
        else:
            out.append([t, t + frame])
    return [tuple(b) for b in out]


def test_announcements_are_played_through_the_audio_server_when_the_speaker_says(pulse):
    t0 = time.monotonic()
    clock = lambda: time.monotonic() - t0  # noqa: E731
    rec = recording(pulse, "speaker")
    text = io.StringIO()
    voice = Pyttsx3Voice(rate=170)
    try:
        with Speaker("speakers", text=text, voice=voice, clock=clock) as s:
            s.say("Bob wins two cards")
            s.wait()
            time.sleep(1.0)
            s.say("Ann is out this round")
            s.wait()
        time.sleep(0.5)
    finally:
        voice.close()
        x = rec.stop()
    first, second = s.history()
    assert s.problems == []
    assert text.getvalue() == "referee: Bob wins two cards\nreferee: Ann is out this round\n"
    got = bursts(x.mean(axis=1), pulse.sinks["speaker"].rate)
    assert len(got) == 2, (got, s.history(), len(x) / pulse.sinks["speaker"].rate,
                           bursts(x.mean(axis=1), pulse.sinks["speaker"].rate, level=0.001))
    # what the speaker says about its timing matches what came out of the sink
    assert abs((got[1][0] - got[0][0]) - (second.start - first.start)) < 0.15
    for (b0, b1), r in zip(got, (first, second)):
        assert (r.end - r.start) - 0.3 < b1 - b0 < (r.end - r.start) + 0.05


def test_an_urgent_verdict_cuts_the_score_short_on_the_speaker(pulse):
    rec = recording(pulse, "speaker")
    voice = Pyttsx3Voice(rate=170)
    try:
        with Speaker("speakers", text=io.StringIO(), voice=voice) as s:
            s.say("The scores are: Ann twelve, Bob nine, Cy seven, Dee four, Eve two")
            deadline = time.monotonic() + 10
            while s.talking() is None:
                assert time.monotonic() < deadline, (s.problems, s.history())
                time.sleep(0.01)
            time.sleep(0.8)
            s.say("Cy wins", urgent=True)
        time.sleep(0.5)
    finally:
        voice.close()
        x = rec.stop()
    scores, verdict = s.history()
    assert scores.interrupted and not verdict.interrupted
    assert scores.end - scores.start < 1.6  # the whole would take over 4 s
    assert verdict.start >= scores.end
    got = bursts(x.mean(axis=1), pulse.sinks["speaker"].rate, gap=0.25)
    heard = sum(b1 - b0 for b0, b1 in got)
    assert 0.8 < heard < (scores.end - scores.start) + (verdict.end - verdict.start) + 0.1


def test_a_verdict_asked_during_a_score_readout_is_heard_at_once_and_the_stale_score_never(pulse):
    rec = recording(pulse, "speaker")
    voice = Pyttsx3Voice(rate=170)
    try:
        with Speaker("speakers", text=io.StringIO(), voice=voice) as s:
            s.say("Bob has one, Ann has zero, Cy has zero, Dee has zero.", droppable=True)
            s.say("Ann has one, Bob has one, Cy has zero, Dee has zero.", droppable=True)
            deadline = time.monotonic() + 10
            while s.talking() is None:
                assert time.monotonic() < deadline, (s.problems, s.history())
                time.sleep(0.01)
            time.sleep(0.8)
            asked = s.clock()
            s.say("Cy wins", urgent=True)
        time.sleep(0.5)
    finally:
        voice.close()
        x = rec.stop()
    score, stale, verdict = s.history()
    assert s.problems == []
    assert score.interrupted and stale.dropped and stale.start is None
    assert verdict.start - asked < 0.3                    # not after the rest of the score (2 s)
    got = bursts(x.mean(axis=1), pulse.sinks["speaker"].rate, gap=0.25)
    heard = sum(b1 - b0 for b0, b1 in got)
    # what came out: the score's first second and the verdict, never the stale score
    assert heard < (score.end - score.start) + (verdict.end - verdict.start) + 0.1
