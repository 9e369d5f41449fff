"""Call timing from every mic: real TTS calls placed on a table of mics where every voice
leaks into every other mic, heard through the listener of ``referee play --audio``."""

import numpy as np
import pytest

from referee.audio.recording import RecordingSource
from referee.audio.wav import write_wav
from referee.core.events import Heard, Utterance
from referee.hearing.leaks import LeakModel
from referee.hearing.timing import truth
from referee.app.listener import Listener
from speech import corpus, pink, place, recogniser

RATE = 16000
PHRASES = {
    "ann-7c": "espeak:en-us|seven of clubs",
    "bob-qh": "flite:kal|queen of hearts",
    "ann-2s": "espeak:en-us|two of spades",
    "cat-kd": "festival:kal_diphone|king of diamonds",
}
# (from, to): (gain dB, delay samples)
LEAKS = {(0, 1): (-12.0, 30), (0, 2): (-18.0, 52), (1, 0): (-14.0, 24), (1, 2): (-11.0, 41),
         (2, 0): (-20.0, 60), (2, 1): (-16.0, 19)}
GAINS_DB = (3.0, -4.0, 0.0)


@pytest.fixture(scope="module")
def speech(tmp_path_factory):
    return corpus(tmp_path_factory.mktemp("timing"), PHRASES)


def table(dry: list[np.ndarray], snr: float | None = None) -> np.ndarray:
    """Mics (frames, 3): each player's dry voice, the others' leaks, mic gains, noise."""
    own = np.stack(dry, axis=1).astype(np.float64)
    n = len(own)
    mics = own.copy()
    for (k, c), (g, d) in LEAKS.items():
        mics[d:, c] += 10 ** (g / 20) * own[:n - d, k]
    if snr is not None:
        for c in range(3):
            level = np.sqrt(np.mean(own[np.abs(own[:, c]) > 1e-4, c] ** 2)) if c == 1 else 0.05
            mics[:, c] += pink(n, seed=c) * level * 10 ** (-snr / 20)
    return mics * 10 ** (np.array(GAINS_DB) / 20)


def true_span(x: np.ndarray, at: float) -> tuple[float, float]:
    s, e = truth(x, RATE)
    return at + s, at + e


def listen(tmp_path, mics, **options) -> list:
    path = tmp_path / "table.wav"
    write_wav(path, mics / max(1.0, np.abs(mics).max() / 0.9), RATE)
    return list(Listener(RecordingSource(path, ["ann", "bob", "cat"]), recogniser(),
                         **options).events())


def calls(events, player):
    return [e for e in events if isinstance(e, Utterance) and e.player == player
            and e.kind == "call"]


def test_the_leak_estimate_recovers_a_known_gain_and_delay(speech):
    n = RATE * 12
    dry = [place(n, speech["ann-7c"], 0.5) + place(n, speech["ann-2s"], 6.0),
           place(n, speech["bob-qh"], 2.2) + place(n, speech["bob-qh"], 8.0),
           place(n, speech["cat-kd"], 4.0) + place(n, speech["cat-kd"], 10.0)]
    mics = table(dry, snr=30)
    model = LeakModel(RATE, 3)
    for i in range(0, n, 1600):  # in blocks, as live
        model.observe(mics[i:i + 1600])
    for (k, c), (g, d) in LEAKS.items():
        got = model.gain_delay(k, c)
        assert got is not None, (k, c)
        want_db = g + GAINS_DB[c] - GAINS_DB[k]  # as the mics hear it
        assert abs(got[0] - want_db) < 1.0, ((k, c), got, want_db)
        assert abs(got[1] * RATE - d) <= 1, ((k, c), got, d)


def test_a_call_whose_neighbour_was_already_talking_gets_its_own_start(tmp_path, speech):
    # bob begins "queen of hearts" while ann's "seven of clubs" is going; earlier in the
    # game each has called alone, which is where the leaks are learnt from
    n = RATE * 11
    ann = place(n, speech["ann-2s"], 0.5) + place(n, speech["ann-7c"], 7.0)
    bob = place(n, speech["bob-qh"], 2.5) + place(n, speech["bob-qh"], 7.35)
    cat = place(n, speech["cat-kd"], 4.5)
    events = listen(tmp_path, table([ann, bob, cat], snr=30))
    s, e = true_span(speech["bob-qh"], 7.35)
    got = [u for u in calls(events, "bob") if u.end > 7.4]
    assert len(got) == 1, got
    assert abs(got[0].start - s) <= 0.03, (got[0].start, s)


def test_an_end_in_noise_is_within_tolerance(tmp_path, speech):
    n = RATE * 9
    ann = place(n, speech["ann-2s"], 0.5)
    bob = place(n, speech["bob-qh"], 2.5) + place(n, speech["bob-qh"], 6.0)
    cat = place(n, speech["cat-kd"], 4.2)
    events = listen(tmp_path, table([ann, bob, cat], snr=15))
    s, e = true_span(speech["bob-qh"], 6.0)
    got = [u for u in calls(events, "bob") if u.end > 6.1]
    assert len(got) == 1, got
    assert abs(got[0].end - e) <= 0.03, (got[0].end, e)


def test_no_call_is_reported_ending_before_a_watermark_that_passed_it(tmp_path, speech):
    # a mark promises ends (the games order calls by their end); a start may lie before it
    n = RATE * 11
    ann = place(n, speech["ann-2s"], 0.5) + place(n, speech["ann-7c"], 7.0)
    bob = place(n, speech["bob-qh"], 2.5) + place(n, speech["bob-qh"], 7.2)
    cat = place(n, speech["cat-kd"], 4.5) + place(n, speech["cat-kd"], 7.4)
    events = listen(tmp_path, table([ann, bob, cat], snr=20))
    sent: dict[str, float] = {}
    heard = 0
    for ev in events:
        if isinstance(ev, Heard):
            sent[ev.stream] = max(sent.get(ev.stream, -1.0), ev.upto)
        else:
            heard += 1
            assert ev.end >= sent.get(ev.player, -1.0), (ev, sent)
    assert heard >= 5


def test_an_end_is_not_cut_where_a_neighbour_begins_to_call(tmp_path, speech):
    # bob begins while ann is still saying "... clubs": ann's end is hers, not bob's start
    n = RATE * 11
    ann_call = speech["ann-7c"]
    s, e = true_span(ann_call, 7.0)
    ann = place(n, speech["ann-2s"], 0.5) + place(n, ann_call, 7.0)
    bob = place(n, speech["bob-qh"], 2.5) + place(n, speech["bob-qh"], e - 0.35)
    cat = place(n, speech["cat-kd"], 4.5)
    events = listen(tmp_path, table([ann, bob, cat], snr=20))
    got = [u for u in calls(events, "ann") if u.end > 7.1]
    assert len(got) == 1, got
    assert abs(got[0].end - e) <= 0.04, (got[0].end, e)


def test_a_call_is_timed_by_how_its_rank_word_begins(tmp_path):
    """The offsets from an edge seen in noise to the 40 dB point are chosen per rank word
    ("ace" and "eight" begin on a sharp vowel, "four", "five" and "three" on a weak
    fricative): starts come out closer than with one table for every word."""
    from referee.hearing.timing import CallTimer, word_offsets

    tables = word_offsets()
    ranks = {"ace", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
             "jack", "queen", "king"}
    assert set(tables["start"]["broad"]) == ranks == set(tables["start"]["band"])
    texts = ("ace of hearts", "eight of clubs", "four of clubs", "five of spades",
             "three of hearts")
    sp = corpus(tmp_path, {t: f"espeak:en-us|{t}" for t in texts})
    errors: dict[bool, list[float]] = {True: [], False: []}
    for t, x in sp.items():
        for snr in (20, 15):
            n = len(x) + 32000
            s, e = truth(x, RATE)
            s, e = s + 1.0, e + 1.0
            level = np.mean(x[np.abs(x) > 0.02 * np.abs(x).max()] ** 2) / 10 ** (snr / 10)
            noise = [z * np.sqrt(level / np.mean(z ** 2)) for z in (pink(n, 4), pink(n, 5))]
            y = place(n, x, 1.0)
            audio = np.stack([y + noise[0], 0.1 * np.roll(y, 40) + 0.2 * noise[1]], axis=1)
            for by_word in (True, False):
                got = CallTimer(RATE, 2, by_word=by_word).refine(audio, 0, 0, s + 0.05,
                                                                 e - 0.1, t)
                errors[by_word].append(got[0] - s)
                if by_word and t.split()[0] in ("ace", "eight"):
                    assert abs(got[0] - s) < 0.015, (t, snr, got[0] - s)
    with_words, without = (np.median(np.abs(errors[k])) for k in (True, False))
    assert with_words < 0.015 and with_words < without / 2, errors


def test_a_table_of_offsets_for_other_depths_is_refused(tmp_path):
    from referee.hearing.timing import word_offsets

    path = tmp_path / "offsets.json"
    path.write_text('{"depths": [10, 20], "start": {}, "end": {}}')
    with pytest.raises(ValueError, match="offsets.json"):
        word_offsets(path)
    assert word_offsets(tmp_path / "none.json") == {"start": {}, "end": {}}


def test_the_callers_voice_is_the_one_that_reaches_the_recognisers_end(tmp_path):
    """A segment can begin on another voice (a dealt card leaked in before the call): the
    call's voice is the voiced stretch that reaches the recogniser's end, even when the
    other stretch has more voiced steps."""
    from referee.hearing.timing import HOP, _voice

    sp = corpus(tmp_path, {"talk": "espeak:en-gb+m3|can I have some of those crisps please",
                           "call": "espeak:en-us|four of spades"})
    n = len(sp["talk"]) + len(sp["call"]) + 3 * RATE
    at = 0.5 + len(sp["talk"]) / RATE + 0.6
    y = place(n, sp["talk"], 0.5) + place(n, 0.5 * sp["call"], at)
    s, e = truth(sp["call"], RATE)
    hi = int(len(y) / RATE / HOP) - 20
    voice = _voice(y, RATE, 0, hi, until=int((at + e - 0.1) / HOP))
    assert voice is not None and abs(voice[0] - (at + s)) < 0.1, (voice, at + s)
    # without the end to go by, the longer talk is taken
    assert _voice(y, RATE, 0, hi)[0] < 0.6


def test_a_call_with_a_long_pause_inside_keeps_its_first_words(tmp_path):
    """ "nine of | spades" with 0.15 s between (and the unvoiced "sp": in noise "of" can sink): the
    call's start is where "nine" begins, not where "spades" does; a voice 14 dB quieter the
    same pause before the call (a leak the canceller left) is still not taken in."""
    from referee.hearing.timing import HOP, _voice

    sp = corpus(tmp_path, {"a": "flite:kal|nine of", "b": "flite:kal|spades",
                           "other": "espeak:en-us|ace of hearts"})
    a, b = (x[int(s * RATE):int(e * RATE)] for x in (sp["a"], sp["b"])
            for s, e in [truth(x, RATE)])
    at_b = 0.5 + len(a) / RATE + 0.15
    n = int((at_b + len(b) / RATE + 1.0) * RATE)
    y = place(n, a, 0.5) + place(n, b, at_b)
    hi = int(n / RATE / HOP) - 20
    until = int((at_b + len(b) / RATE - 0.05) / HOP)
    voice = _voice(y, RATE, 0, hi, until=until)
    assert voice is not None and abs(voice[0] - 0.5) < 0.1, voice
    assert voice[2] is not None and voice[3] > at_b - 0.1  # where "spades" begins
    # the same with another, quiet voice instead of "nine of"
    other = 10 ** (-14 / 20) * sp["other"][:len(a)]
    y2 = place(n, other, 0.5) + place(n, b, at_b)
    voice2 = _voice(y2, RATE, 0, hi, until=until)
    assert voice2 is not None and voice2[0] > at_b - 0.1 and voice2[2] is None, voice2


def test_where_no_edge_can_be_seen_the_recognisers_end_is_moved_later():
    """The recogniser's end is early (before the final /z/): where the timer sees no edge of
    its own (here, no voice at all on the mic), it keeps the recogniser's start and puts the
    end ``FALLBACK_LATE`` later; with the fallback off, both are the recogniser's."""
    from referee.hearing.timing import FALLBACK_LATE, CallTimer

    audio = np.stack([pink(4 * RATE, seed=c) * 0.01 for c in range(2)], axis=1)
    assert 0.05 <= FALLBACK_LATE <= 0.15
    assert CallTimer(RATE, 2).refine(audio, 0, 0, 1.0, 2.0) == (1.0, 2.0 + FALLBACK_LATE)
    assert CallTimer(RATE, 2, fallback_late=0.0).refine(audio, 0, 0, 1.0, 2.0) == (1.0, 2.0)


def test_the_fricative_band_gives_the_end_when_it_saw_the_final_s_itself():
    """Each envelope's (last frame over its threshold, depth seen at, end moved out): the
    latest moved end, unless the 3-8 kHz band saw past the whole band's last frame, deep
    enough: then the band's, not the whole band's guess at a tail it lost."""
    from referee.hearing.timing import BAND_END_DEPTH, call_end

    broad = (500, 12.0, 0.69)            # seen shallow: a long tail added
    assert call_end({"broad": broad, "band": (560, 22.0, 0.57)}, BAND_END_DEPTH) == 0.57
    # the band seen too shallow, or not past the whole band's end: the latest moved end
    assert call_end({"broad": broad, "band": (560, BAND_END_DEPTH - 1, 0.57)},
                    BAND_END_DEPTH) == 0.69
    assert call_end({"broad": broad, "band": (480, 22.0, 0.49)}, BAND_END_DEPTH) == 0.69
    assert call_end({"broad": (500, 30.0, 0.51), "band": (480, 9.0, 0.55)}, BAND_END_DEPTH) == 0.55
    assert call_end({"band": (560, 22.0, 0.57)}, BAND_END_DEPTH) == 0.57


def test_the_edge_network_waits_for_audio_past_the_end_it_finds(speech):
    """The end of the audio heard so far looks like the end of a call to the edge network:
    an end it finds within ``NET_LOOKAHEAD`` of it is not taken, and the timer asks for audio
    past it (the listener waits); with the audio there, the end comes out right."""
    from referee.hearing.edge_net import EdgeNet
    from referee.hearing.timing import NET_LOOKAHEAD, CallTimer

    n = RATE * 6
    at = 3.0
    bob = place(n, speech["bob-qh"], at)
    mics = table([place(n, speech["ann-2s"], 0.5), bob, place(n, speech["cat-kd"], 1.2)],
                 snr=25)
    s, e = true_span(speech["bob-qh"], at)
    rec = (s + 0.05, e - 0.12)  # the recogniser's: its end early, before the final /s/
    timer = CallTimer(RATE, 3, edges=EdgeNet.load())
    timer.observe(mics)
    cut = int((e - 0.02) * RATE)  # the audio so far stops before the call does
    _, end = timer.refine(mics[:cut], 0, 1, *rec, said="queen of hearts")
    assert end >= cut / RATE + NET_LOOKAHEAD - 1e-6
    start, end = timer.refine(mics, 0, 1, *rec, said="queen of hearts")
    assert abs(start - s) <= 0.03 and abs(end - e) <= 0.03, ((start, end), (s, e))
