"""Who said it, by the voice alone: one mic for the whole table (issue 29, mode 2).

Each talker enrols by saying their name and a few card names. :meth:`VoiceBook.learn` fits
a background model of every enrolled voice together (a Gaussian mixture over the voiced 10 ms
frames' cepstra and pitch) and adapts its means to each talker (MAP adaptation, as in
GMM-UBM speaker verification); five such models, their scores averaged.
:meth:`VoiceBook.attribute` scores a stretch of audio against every talker: the most likely
talker, with a confidence; and whether two enrolled voices are in it (two players calling at
once on one mic), from short windows that are each clearly one talker's. Method and figures:
docs/one-device.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from referee.core.errors import RefereeError
from referee.hearing import checks
from referee.hearing.features import raw_log_mel

RATE = 16000
"""Samples per second the voices are heard at."""
CEPSTRA = 20
"""Cepstral coefficients per frame, the first (the frame's level) left out."""
COMPONENTS = 8
"""Gaussians in the background model."""
MODELS = 5
"""Background models, each fitted from its own start, whose talkers' scores are averaged: a
single fit's profiles swing with a frame more or less of enrolment (docs/one-device.md)."""
RELEVANCE = 2.0
"""MAP adaptation's relevance factor: frames a component needs before a talker's own data
outweighs the background's."""
VOICED = 0.5
"""Pitch strength over which a frame is voiced (:func:`referee.hearing.checks.pitch_strength`)."""
SPAN_DB = 30.0
"""dB under a stretch's loudest voiced frame within which its frames are used."""
CORRELATION = 6.0
"""Neighbouring frames are far from independent: log-likelihoods summed over a stretch are
divided by this many frames before they become probabilities."""
MIN_FRAMES = 8
"""Voiced frames a stretch needs before it is attributed at all."""
ENOUGH = 100
"""Voiced frames a talker's enrolment needs (a second of voice)."""
WINDOW = 16
"""Voiced frames in a window of the two-voices check."""
SURE = 0.99
"""A window is one talker's when that talker's probability over it is at least this."""
HOLD = 3
"""Windows each of two talkers must hold before the stretch has two voices: one window alone
is often a word's edge or a room's tail (docs/one-device.md)."""


class VoicesError(RefereeError, ValueError):
    """Enrolment that cannot make voice profiles: too few talkers, or too little voice."""


@dataclass(frozen=True)
class Attribution:
    """Who said a stretch of audio, as far as the voice tells."""

    player: str | None
    """The most likely talker; None when the stretch has too little voice to tell."""
    confidence: float
    """Probability of ``player`` against the other enrolled talkers, 0 to 1."""
    second: str | None
    """The next most likely talker."""
    voices: tuple[str, ...]
    """The talkers who each clearly hold windows of the stretch, in order of first window:
    two or more when several people spoke in it."""

    @property
    def overlap(self) -> bool:
        """Two or more voices in the stretch."""
        return len(self.voices) > 1


def _as_int16_units(audio: np.ndarray) -> np.ndarray:
    x = np.asarray(audio, np.float64)
    if x.ndim > 1:
        x = x[:, 0]
    return x * 32768.0


def features(audio: np.ndarray, rate: int = RATE, start: float = 0.0,
             end: float | None = None) -> np.ndarray:
    """The voiced frames of ``audio`` (floats in [-1, 1], one channel or the first) between
    ``start`` and ``end`` seconds: ``(frames, CEPSTRA + 1)``, cepstra then log pitch. Frames
    with a pitch, within :data:`SPAN_DB` of the stretch's loudest."""
    if rate != RATE:
        raise ValueError(f"voices are heard at {RATE} Hz, not {rate}")
    x = _as_int16_units(audio)
    a = max(0, int(start * rate))
    b = len(x) if end is None else min(len(x), int(end * rate))
    x = x[a:b]
    peak, level, period = checks.pitch_track(x, rate)
    if not len(peak):
        return np.zeros((0, CEPSTRA + 1))
    mel = raw_log_mel(x)
    n = min(len(mel), len(peak))
    mel, peak, level, period = mel[:n], peak[:n], level[:n], period[:n]
    keep = (peak > VOICED) & (level > level.max() - SPAN_DB)
    ceps = _dct(mel[keep])[:, 1:CEPSTRA + 1]
    return np.concatenate([ceps, np.log(rate / period[keep])[:, None]], axis=1)


def _dct(m: np.ndarray) -> np.ndarray:
    """DCT-II of each row (orthonormal)."""
    n = m.shape[1]
    k = np.arange(n)
    basis = np.cos(np.pi * (k[:, None] + 0.5) * k[None, :] / n) * np.sqrt(2.0 / n)
    basis[:, 0] /= np.sqrt(2.0)
    return m @ basis


class _Mixture:
    """A diagonal Gaussian mixture."""

    def __init__(self, weights: np.ndarray, means: np.ndarray, variances: np.ndarray) -> None:
        self.weights, self.means, self.variances = weights, means, variances

    def component_loglik(self, x: np.ndarray) -> np.ndarray:
        """(frames, components): log weight + log density."""
        iv = 1.0 / self.variances
        d = (x[:, None, :] - self.means[None]) ** 2 * iv[None]
        return (np.log(self.weights)[None] - 0.5 * d.sum(axis=2)
                - 0.5 * np.log(2 * np.pi * self.variances).sum(axis=1)[None])

    def loglik(self, x: np.ndarray) -> np.ndarray:
        """Per frame."""
        return _logsumexp(self.component_loglik(x))

    @classmethod
    def fit(cls, x: np.ndarray, k: int, rng: np.random.Generator, iters: int = 25) -> "_Mixture":
        k = min(k, max(1, len(x) // 10))
        means = x[rng.choice(len(x), k, replace=False)]
        m = cls(np.full(k, 1.0 / k), means, np.tile(x.var(axis=0) + 1e-3, (k, 1)))
        floor = 1e-2 * x.var(axis=0) + 1e-4
        for _ in range(iters):
            resp = np.exp(m.component_loglik(x) - m.loglik(x)[:, None])
            count = resp.sum(axis=0) + 1e-9
            m.weights = count / count.sum()
            m.means = (resp.T @ x) / count[:, None]
            m.variances = np.maximum((resp.T @ x ** 2) / count[:, None] - m.means ** 2, floor)
        return m

    def adapted(self, x: np.ndarray, relevance: float) -> "_Mixture":
        """The means moved toward ``x`` (MAP), weights and variances kept."""
        resp = np.exp(self.component_loglik(x) - self.loglik(x)[:, None])
        count = resp.sum(axis=0)
        own = (resp.T @ x) / np.maximum(count, 1e-9)[:, None]
        alpha = (count / (count + relevance))[:, None]
        return _Mixture(self.weights, alpha * own + (1 - alpha) * self.means, self.variances)


def _logsumexp(a: np.ndarray, axis: int = 1) -> np.ndarray:
    top = a.max(axis=axis, keepdims=True)
    return (top + np.log(np.exp(a - top).sum(axis=axis, keepdims=True))).squeeze(axis)


class VoiceBook:
    """A voice profile per enrolled talker."""

    def __init__(self, names: list[str], centre: np.ndarray, scale: np.ndarray,
                 talkers: list[list[_Mixture]], frames: dict[str, np.ndarray]) -> None:
        self.names = list(names)
        self._centre, self._scale = centre, scale
        self._talkers = talkers
        self.frames = frames
        """Each talker's enrolment frames (:func:`features`): what a later game can learn from."""

    @classmethod
    def learn(cls, audio: np.ndarray, rate: int, spans: list[tuple[str, float, float]],
              seed: int = 0) -> "VoiceBook":
        """Profiles from ``spans``: (name, start, end) seconds of ``audio``, several spans a
        name allowed. Raises :class:`VoicesError` for a talker with under a second of voice."""
        by: dict[str, list[np.ndarray]] = {}
        for name, s, e in spans:
            by.setdefault(name, []).append(features(audio, rate, s, e))
        return cls.from_features({n: np.concatenate(f) for n, f in by.items()}, seed)

    @classmethod
    def from_features(cls, own: dict[str, np.ndarray], seed: int = 0) -> "VoiceBook":
        """Profiles from each talker's voiced frames (:func:`features`)."""
        if len(own) < 2:
            raise VoicesError("voice profiles need at least two talkers")
        short = [n for n, f in own.items() if len(f) < ENOUGH]
        if short:
            raise VoicesError(f"too little voice to know {', '.join(short)} by: each says their "
                              "name and a few card names, clearly, in turn")
        pool = np.concatenate(list(own.values()))
        centre, scale = pool.mean(axis=0), pool.std(axis=0) + 1e-6
        z = {n: (f - centre) / scale for n, f in own.items()}
        rng = np.random.default_rng(seed)
        # every talker weighs alike in the background, however long they spoke
        most = max(len(f) for f in z.values())
        talkers = []
        for _ in range(MODELS):
            even = np.concatenate([f[rng.choice(len(f), most)] for f in z.values()])
            background = _Mixture.fit(even, COMPONENTS, rng)
            talkers.append([background.adapted(z[n], RELEVANCE) for n in own])
        return cls(list(own), centre, scale, talkers, dict(own))

    def _scores(self, f: np.ndarray) -> np.ndarray:
        """(talkers, frames) log-likelihoods, averaged over the background models."""
        z = (f - self._centre) / self._scale
        return np.mean([[t.loglik(z) for t in model] for model in self._talkers], axis=0)

    def attribute(self, audio: np.ndarray, rate: int, start: float, end: float) -> Attribution:
        """Who said ``audio`` between ``start`` and ``end`` seconds."""
        return self.attribute_features(features(audio, rate, start, end))

    def attribute_features(self, f: np.ndarray) -> Attribution:
        """Who said the voiced frames ``f`` (:func:`features`)."""
        if len(f) < MIN_FRAMES:
            return Attribution(None, 0.0, None, ())
        own = self._scores(f)
        p = _probabilities(own.sum(axis=1) / CORRELATION)
        order = np.argsort(-p)
        best = int(order[0])
        return Attribution(self.names[best], float(p[best]), self.names[int(order[1])],
                           self._voices(own))

    def _voices(self, own: np.ndarray) -> tuple[str, ...]:
        """Talkers each holding :data:`HOLD` windows (:data:`WINDOW` voiced frames,
        half-overlapping) with probability :data:`SURE` or more, in the order of their first
        such window; or the one talker who holds any, when nobody else does."""
        n = own.shape[1]
        if n < WINDOW:
            return ()
        held: dict[str, int] = {}
        for a in range(0, n - WINDOW + 1, WINDOW // 2):
            p = _probabilities(own[:, a:a + WINDOW].sum(axis=1) / CORRELATION)
            k = int(np.argmax(p))
            if p[k] >= SURE:
                held[self.names[k]] = held.get(self.names[k], 0) + 1
        if len(held) == 1:
            return tuple(held)
        return tuple(n for n, c in held.items() if c >= HOLD)


def _probabilities(scores: np.ndarray) -> np.ndarray:
    e = np.exp(scores - scores.max())
    return e / e.sum()
