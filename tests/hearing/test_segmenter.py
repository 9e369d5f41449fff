"""Voice-activity segmentation on real speech: a pause inside a call closes a
segment in quiet, but in loud noise (where the weak parts of a call sink under
the floor) the segmenter waits longer, so the call stays in one piece."""

import numpy as np
import pytest

from referee.audio.wav import to_int16
from referee.hearing.segmenter import Segmenter
from speech import corpus, mix_snr, pad, pink, speech_bounds


@pytest.fixture(scope="module")
def halves(tmp_path_factory):
    s = corpus(tmp_path_factory.mktemp("seg"), {"a": "espeak:en-us+m3|queen of",
                                               "b": "espeak:en-us+m3|hearts"})
    out = []
    for x in (s["a"], s["b"]):  # espeak-ng's own silence around each half, off
        a, b = speech_bounds(x, rel_db=-40)
        out.append(x[int(a * 16000):int(b * 16000)])
    return out


def cut(x):
    seg = Segmenter(16000)
    y = to_int16(x)
    out = []
    for i in range(0, len(y), 1600):
        out += seg.feed(y[i:i + 1600])
    return out + seg.flush()


def with_gap(halves, gap):
    a, b = halves
    return pad(np.concatenate([a, np.zeros(int(gap * 16000), np.float32), b]), 1.5, 1.0)


def test_in_quiet_a_pause_of_0_3_s_ends_a_segment(halves):
    x = with_gap(halves, 0.3)
    quiet = mix_snr(x, pink(len(x), seed=2), 45)
    assert len(cut(quiet)) == 2


@pytest.mark.parametrize("snr", [10, 6])
def test_in_loud_noise_it_does_not(halves, snr):
    x = with_gap(halves, 0.3)
    segs = cut(mix_snr(x, pink(len(x), seed=2), snr))
    spans = [(s.speech_first / 16000, (s.first + len(s.samples)) / 16000) for s in segs]
    whole = [sp for sp in spans if sp[0] < 1.6 and sp[1] > len(x) / 16000 - 1.0]
    assert len(whole) == 1, spans


def test_a_longer_pause_ends_it_even_in_noise(halves):
    x = with_gap(halves, 0.7)
    segs = cut(mix_snr(x, pink(len(x), seed=2), 10))
    spans = [(s.speech_first / 16000, (s.first + len(s.samples)) / 16000) for s in segs]
    gap_from = 1.5 + len(halves[0]) / 16000          # where the 0.7 s pause begins
    gap_to = gap_from + 0.7
    # no segment runs across the pause: one holds "queen of", a later one "hearts"
    assert not [sp for sp in spans if sp[0] < gap_from and sp[1] > gap_to], spans
    assert [sp for sp in spans if sp[0] < gap_from + 0.1 and sp[1] > gap_from - 0.2], spans
    assert [sp for sp in spans if sp[0] > gap_to - 0.1], spans


def test_a_segment_grown_too_long_is_cut_at_a_pause_not_through_a_call(tmp_path):
    """Talk that never pauses long enough holds a segment open until ``max_length``; a
    call said as that runs out is kept whole in one segment (before, it was cut at the
    length: the dealer's card then went unheard)."""
    s = corpus(tmp_path, {"talk": "espeak:en-us|pass me the water please, did you see "
                                  "the match last night, it was a long week",
                          "call": "espeak:en-us|six of hearts"})
    talk, call = (x[int(a * 16000):int(b * 16000)] for x in (s["talk"], s["call"])
                  for a, b in [speech_bounds(x, rel_db=-40)])
    lead = 0.5
    seg = Segmenter(16000, max_length=3.0)
    # the call begins 0.4 s before the segment reaches 3 s (it opens a little before the
    # talk: its lead-in), after a 0.12 s pause, too short to close it
    at = lead + 3.0 - 0.4 - 0.3
    x = np.zeros(int((at + len(call) / 16000 + 1.0) * 16000))
    n = min(len(talk), int((at - lead - 0.12) * 16000))
    x[int(lead * 16000):int(lead * 16000) + n] = talk[:n]
    x[int(at * 16000):int(at * 16000) + len(call)] = call
    x = mix_snr(x, pink(len(x), seed=4), 30)
    y = to_int16(x)
    out = []
    for i in range(0, len(y), 1600):
        out += seg.feed(y[i:i + 1600])
    out += seg.flush()
    c0, c1 = at * 16000 + 0.05 * 16000, at * 16000 + len(call) - 0.05 * 16000
    assert out[0].forced
    assert any(g.first <= c0 and g.first + len(g.samples) >= c1 for g in out)
    assert all(a.first + len(a.samples) <= b.first for a, b in zip(out, out[1:]))


@pytest.mark.parametrize("rise_db", [12.0, None])
def test_a_loud_voice_after_a_faint_one_begins_a_segment_of_its_own(tmp_path, rise_db):
    """A neighbour's leak, 20 dB down, and the room's noise hold a segment open through a
    short pause; the mic's own talker's call straight after it, far louder, begins a new
    segment with the call's start as its speech (read on its own, it is heard: the dealer's
    card in a game's babble went unheard when read with the leak before it)."""
    s = corpus(tmp_path, {"leak": "espeak:en-us+f2|that was a long week",
                          "call": "espeak:en-us+m3|four of hearts"})
    leak, call = (x[int(a * 16000):int(b * 16000)] for x in (s["leak"], s["call"])
                  for a, b in [speech_bounds(x, rel_db=-40)])
    at = 0.5 + len(leak) / 16000 + 0.15
    x = np.zeros(int((at + len(call) / 16000 + 1.0) * 16000))
    x[8000:8000 + len(leak)] = 0.1 * leak
    x[int(at * 16000):int(at * 16000) + len(call)] = call
    x = mix_snr(x, pink(len(x), seed=5), 30)
    seg = Segmenter(16000, rise_db=rise_db)
    y = to_int16(x)
    out = []
    for i in range(0, len(y), 1600):
        out += seg.feed(y[i:i + 1600])
    out += seg.flush()
    spans = [(g.first / 16000, g.speech_first / 16000, (g.first + len(g.samples)) / 16000)
             for g in out]
    own = [sp for sp in spans if sp[1] <= at + 0.1 and sp[2] >= at + len(call) / 16000 - 0.05]
    assert len(own) == 1, spans
    if rise_db is None:         # as before: one segment from the leak on
        assert own[0][1] < at - 0.5, spans
    else:
        assert at - 0.15 <= own[0][1] <= at + 0.1, spans
        assert all(a[2] <= b[0] for a, b in zip(spans, spans[1:])), spans
