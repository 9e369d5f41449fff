"""The edge network: where a call's own voice lies, frame by frame, as its clean voice
gives it. Real TTS calls in real noise, the shipped model, and its bad files."""

import numpy as np
import pytest

from referee.hearing import edge_net
from referee.hearing.classifier import MODEL_PATH as PHRASES, ClassifierError
from referee.hearing.edge_net import HOP, RATE, WIN, EdgeNet, span
from referee.hearing.timing import truth
from speech import corpus, mix_snr, pink, place

PHRASES_SAID = {
    "7c": "espeak:en-us|seven of clubs",
    "qh": "flite:kal|queen of hearts",
    "kd": "festival:kal_diphone|king of diamonds",
}


@pytest.fixture(scope="module")
def speech(tmp_path_factory):
    return corpus(tmp_path_factory.mktemp("edges"), PHRASES_SAID)


def test_the_run_holding_the_likeliest_frame_gives_the_span_dips_bridged():
    p = np.zeros(200)
    p[40:60] = 0.9
    p[63:90] = 0.9  # a dip of 3 frames: bridged with gap 5
    p[120:130] = 0.9  # 30 frames on: another voice
    p[39], p[90] = 0.3, 0.7  # the crossings lie between frames
    s, e = span(p, (70, 80), gap=5)
    assert s == pytest.approx((39 + (0.5 - 0.3) / (0.9 - 0.3)) * HOP / RATE)
    assert e == pytest.approx(((90 + (0.5 - 0.7) / (0.0 - 0.7)) * HOP + WIN) / RATE)
    s2, _ = span(p, (70, 80), gap=2)  # the dip not bridged: the run begins after it
    assert s2 > 62 * HOP / RATE
    assert span(np.full(50, 0.2), (0, 50), gap=5) is None


def test_frames_not_heard_yet_are_taken_to_be_the_noise_floor():
    rng = np.random.default_rng(0)
    lev = rng.normal(-60, 3, (300, edge_net.BANDS + 1))
    lev[100:200] += 40  # a loud stretch: the voice
    plain = edge_net.features(lev, (100, 200))
    padded = edge_net.features(lev, (100, 200), pad_end=30)
    assert padded.shape == (330, plain.shape[1])
    assert np.array_equal(padded[:300], plain)
    k = edge_net.BANDS + 1
    assert np.allclose(padded[300:, :k], plain[0, k:])  # each band at its floor
    assert EdgeNet.load().reach == 62


# espeak-ng's call within 15 ms at 15 dB; the Kal voices' edges lie 20-25 ms off even in
# quiet (flite's "hear|ts" ends early, festival's "king" begins late: docs/timing.md)
@pytest.mark.parametrize("key,snr,within", [("7c", 15, 0.015), ("qh", 20, 0.035),
                                            ("kd", 20, 0.035)])
def test_a_call_in_pink_noise_is_found_within_a_few_frames(speech, key, snr, within):
    n = int(3.0 * RATE)
    dry = place(n, speech[key], 1.2)
    mic = mix_snr(dry, pink(n, seed=3), snr)
    s, e = truth(dry, RATE)
    net = EdgeNet.load()
    lev = edge_net.levels(mic)
    voiced = (int(s * RATE / HOP) + 20, int(e * RATE / HOP) - 20)
    got = span(net.prob(edge_net.features(lev, voiced)), voiced, gap=50)
    assert got is not None
    assert abs(got[0] - s) <= within, (got, (s, e))
    assert abs(got[1] - e) <= within, (got, (s, e))


def test_a_neighbours_voice_left_20_db_down_is_not_the_call(speech):
    # what the canceller leaves of a neighbour's call, begun as this call ends
    n = int(4.0 * RATE)
    dry = place(n, speech["7c"], 1.0)
    s, e = truth(dry, RATE)
    other = place(n, speech["kd"], e - 0.1) * 0.1
    mic = mix_snr(dry, pink(n, seed=4), 25) + other
    lev = edge_net.levels(mic)
    voiced = (int(s * RATE / HOP) + 20, int(e * RATE / HOP) - 20)
    got = span(EdgeNet.load().prob(edge_net.features(lev, voiced)), voiced, gap=50)
    assert got is not None
    assert abs(got[1] - e) <= 0.03, (got, (s, e))


def test_a_missing_or_foreign_model_file_is_refused_by_name(tmp_path):
    with pytest.raises(ClassifierError, match="no edge network"):
        EdgeNet.load(tmp_path / "nothing.npz")
    with pytest.raises(ClassifierError, match="not an edge network"):
        EdgeNet.load(PHRASES)
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ClassifierError, match="bad.npz"):
        EdgeNet.load(bad)
