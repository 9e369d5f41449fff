"""A pause inside a call ("seven of ... clubs") does not make it a call cut short, a miscall
that puts the caller out; a call really cut short still is one, and the judge is not told
it has heard past it while it is held back."""

import numpy as np
import pytest

from referee.audio.wav import to_int16
from referee.hearing.checks import frame_power
from referee.hearing.engine.pocketsphinx import PocketSphinx
from speech import corpus, feed, speech_bounds

RATE = 16000


def spoken(tmp_path, voice: str, text: str) -> np.ndarray:
    x = corpus(tmp_path, {"w": f"{voice}|{text}"})["w"]
    a, b = speech_bounds(x, rel_db=-40)
    return x[int(a * RATE):int(b * RATE)]


def with_pause(x: np.ndarray, pause: float) -> np.ndarray:
    """``x`` with ``pause`` seconds of silence at its quietest 10 ms between 45 and 80 % of
    its length (after the "of", or before it)."""
    e = frame_power(x, RATE)
    lo, hi = int(0.45 * len(e)), int(0.8 * len(e))
    k = (lo + int(np.argmin(np.convolve(e[lo:hi], np.ones(3) / 3, "same")))) * (RATE // 100)
    return np.concatenate([x[:k], np.zeros(int(pause * RATE)), x[k:]])


def heard(x: np.ndarray, join: bool = True, lead: float = 0.5) -> list:
    """What a fresh PocketSphinx stream reports for ``x`` after ``lead`` s of silence (its
    noise estimate carries from one segment to the next: a recogniser of its own)."""
    stream = PocketSphinx().stream()
    stream.JOIN = join
    y = np.concatenate([np.zeros(int(lead * RATE)), x, np.zeros(RATE)])
    return [u for u in feed(stream, y, block=800) if u.kind != "unknown"]


@pytest.mark.parametrize("voice,text", [("festival:kal_diphone", "jack of clubs"),
                                        ("flite:slt", "queen of diamonds"),
                                        ("espeak:en-gb+m3", "seven of clubs"),
                                        ("flite:kal", "seven of clubs")])
def test_a_call_with_a_pause_inside_is_one_call(tmp_path, voice, text):
    whole = spoken(tmp_path, voice, text)
    x = with_pause(whole, 0.25)
    before = heard(x, join=False)
    assert before and before[0].kind == "partial"   # what it was: a miscall
    got = heard(x)
    assert [(u.kind, u.said) for u in got] == [("call", text)]
    # timed as the call said in one breath, but for the pause
    (one,) = heard(whole)
    assert abs(got[0].start - one.start) <= 0.03 and abs(got[0].end - 0.25 - one.end) <= 0.05


def test_a_call_cut_short_is_still_a_partial_call(tmp_path):
    cut = spoken(tmp_path, "flite:kal", "jack of")
    call = spoken(tmp_path, "flite:kal", "queen of hearts")
    alone = heard(cut)
    assert [(u.kind, u.said) for u in alone] == [("partial", "jack of")]
    for pause in (1.0, 0.3):   # another call after it, later or at once: both count
        got = heard(np.concatenate([cut, np.zeros(int(pause * RATE)), call]))
        assert [(u.kind, u.said) for u in got] == [("partial", "jack of"),
                                                   ("call", "queen of hearts")], pause


def test_the_watermark_waits_for_a_held_call_cut_short(tmp_path):
    cut = spoken(tmp_path, "flite:kal", "jack of")
    y = to_int16(np.concatenate([np.zeros(RATE // 2), cut, np.zeros(2 * RATE)]))
    stream = PocketSphinx().stream()
    marks, out = [], []
    for i in range(0, len(y), 800):
        got = [u for u in stream.feed(y[i:i + 800]) if u.kind != "unknown"]
        out += [((i + 800) / RATE, u) for u in got]
        marks.append(((i + 800) / RATE, stream.watermark))
    assert [u.said for _, u in out] == ["jack of"]
    at, u = out[0]
    # held past its segment's close (the hang after its end), let go within 0.6 s more
    assert u.end + 0.25 < at < u.end + 0.25 + 0.6
    assert all(m <= u.start for t, m in marks if t < at)
    assert marks[-1][1] > u.end


def test_a_call_with_a_pause_inside_in_noise_that_holds_its_end_open(tmp_path):
    """Pink noise at 20 dB holds the segment after the pause open: ``JOIN_WAIT`` after the
    call cut short, the call is heard from what has come by then, before that segment
    closes, so a partial call held back does not hold verdicts back for as long."""
    from speech import mix_snr, pink

    x = with_pause(spoken(tmp_path, "flite:awb", "jack of clubs"), 0.3)
    y = np.concatenate([np.zeros(RATE // 2), x, np.zeros(RATE)])
    y = mix_snr(y, pink(len(y), 3), 20)

    def heard_in_noise(wait):
        stream = PocketSphinx().stream()
        stream.JOIN_WAIT = wait
        return [(t, (u.kind, u.said)) for t, u in feed(stream, y, block=800, timed=True)
                if u.kind != "unknown"]

    (soon, call), = heard_in_noise(1.2)
    (late, same), = heard_in_noise(5.0)   # at the segment's close
    assert call == same == ("call", "jack of clubs")
    assert soon < late - 0.05
