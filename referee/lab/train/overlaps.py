"""Training data for the two-voices check: is one voice in a stretch, or two?

With one mic for the whole table (issue 29, mode 2), two players calling at once reach the
recogniser as one utterance, and the voice profiles (:mod:`referee.hearing.voiceprints`),
which know each talker alone, can give the blend to one of them with confidence. The check
(:mod:`referee.hearing.overlaps`, the phrase classifier's kind of network) is trained on the
utterances the phrase classifier's are planned from (:func:`.data.plan`): each is said once
alone and once with a second training voice saying a card (sometimes "goop", or the same
text) at the same time, starting up to 0.35 s before or after and 8 dB softer to 8 dB louder;
now and then straight after it instead (two voices one after the other in one stretch).
Most voices have a room of their own (:func:`referee.lab.mixing.reverb`) and the mix is put in
the training noises at 0 to 30 dB SNR, as :func:`.data.mix_one` mixes. The example is the
stretch from 50 ms before the first voice to 50 ms after the last.
"""

from __future__ import annotations

import numpy as np

from referee.audio.wav import to_int16
from referee.hearing.classifier import OTHER
from referee.hearing.features import log_mel
from referee.lab import mixing
from referee.lab.synth import SynthError
from referee.lab.train import data
from referee.lab.train.texts import card_texts
from referee.lab.train.voices import synthesize, training_voices

RATE = data.RATE
TWO = "two voices"
CLASSES = [TWO, OTHER]
MARGIN = 0.05
"""Seconds of the mix kept either side of the voices."""
REVERB_SHARE = 0.8
"""Share of voices put in a room: one mic in the middle of a table hears every voice from afar,
and a room's tail on one voice must not pass for a second voice."""
AFTER_SHARE = 0.2
"""Share of the two-voice examples where the second voice follows the first (0-0.3 s gap)."""


def _trim(x: np.ndarray) -> np.ndarray:
    a, b = mixing.active_span(x)
    return x[a:b]


def _second(job: data.Job, rng: np.random.Generator) -> np.ndarray | None:
    """A second training voice (not the job's) saying a card, "goop" or the job's text."""
    voices = [v for v in training_voices() if v.id != job.voice.id]
    voice = voices[int(rng.integers(len(voices)))]
    r = rng.random()
    cards = [t for t, _ in card_texts()]
    text = job.text if r < 0.2 else "goop" if r < 0.3 else cards[int(rng.integers(len(cards)))]
    try:
        return synthesize(voice, text, float(rng.uniform(0.85, 1.2)), int(rng.integers(-300, 301)))
    except SynthError:
        return None


def example(a: np.ndarray, b: np.ndarray | None, rng: np.random.Generator,
            reverb: float = REVERB_SHARE) -> tuple[np.ndarray, str, str]:
    """(features, label, condition): ``a`` alone (``b`` None), or ``a`` with ``b``;
    ``reverb``: the share of voices put in a room."""
    a = _trim(a)
    if rng.random() < reverb:
        a = mixing.reverb(a, rng)
    if b is None:
        s, label = a, OTHER
    else:
        b = _trim(b)
        if rng.random() < reverb:
            b = mixing.reverb(b, rng)
        b = b * np.max(np.abs(a)) / max(float(np.max(np.abs(b))), 1e-9) * 10 ** (rng.uniform(-8, 8) / 20)
        if rng.random() < AFTER_SHARE:
            at = len(a) + int(rng.uniform(0.0, 0.3) * RATE)
        else:
            at = int(rng.uniform(-0.35, 0.35) * RATE)
        first = min(0, at)
        s = np.zeros(max(len(a), at + len(b)) - first)
        s[-first:-first + len(a)] += a
        s[at - first: at - first + len(b)] += b
        label = TWO
    lead = trail = int(MARGIN * RATE)
    r = rng.random()
    if r < 0.15:
        kind, snr, noise = "silence", None, None
    else:
        kind = str(rng.choice(mixing.NOISE_KINDS)) if r > 0.3 else "room"
        snr = float(rng.uniform(0, 30)) if kind != "room" else float(rng.uniform(35, 55))
        noise = data._noise(kind, lead + len(s) + trail, rng)
    m = mixing.mix(s, noise, snr, lead=lead, trail=trail, peak_dbfs=float(rng.uniform(-30, -3)))
    cond = kind if snr is None else f"{kind}@{snr:.0f}"
    return log_mel(to_int16(m.audio)).astype(np.float16), label, cond


def work(job: data.Job, reverb: float = REVERB_SHARE):
    """A job's examples for :func:`.data.build`: its speech alone, and with a second voice."""
    speech = data.speech_of(job)
    if speech is None:
        return job, []
    rng = np.random.default_rng(job.seed + 17)
    out = [example(speech, None, rng, reverb)]
    other = _second(job, rng)
    if other is not None:
        out.append(example(speech, other, rng, reverb))
    return job, out
