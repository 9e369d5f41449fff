"""Speech made again by a plain source-filter vocoder, for training data.

Statistical parametric voices (HTS, clustergen: flite's and festival's
natural-sounding voices) are made this way: a spectral envelope per few
milliseconds, smoothed over time, is excited by a pulse train at the pitch
where the speech is voiced and by noise where it is not. Their sound (buzzy, the
fine structure of the spectrum gone) is unlike both the formant and diphone
voices and the neural ones the classifier is trained on, so :func:`vocode`
gives any training utterance that sound: the utterance's own LPC envelope and
pitch, re-excited.

Training only (it uses SciPy, in the ``train`` extra): nothing at run time
needs it.
"""

from __future__ import annotations

import numpy as np

from referee.hearing.checks import low_band_autocorrelation

RATE = 16000
HOP = RATE // 200
"""Samples per analysis step (5 ms)."""
WIN = int(0.025 * RATE)
"""Samples per envelope window (25 ms)."""
PITCH_WIN = int(0.04 * RATE)
"""Samples per pitch window (40 ms: two periods of 50 Hz)."""
PREEMPHASIS = 0.97


def _frames(x: np.ndarray, size: int, n: int) -> np.ndarray:
    """``n`` windows of ``size`` samples, one per ``HOP``, centred on each step."""
    pad = np.pad(x, (size // 2, size))
    return np.lib.stride_tricks.sliding_window_view(pad, size)[::HOP][:n]


def levinson(r: np.ndarray, order: int) -> tuple[np.ndarray, np.ndarray]:
    """LPC polynomials ``a`` (rows ``[1, a1, ..., a_order]``) and prediction
    error powers of the autocorrelation rows ``r`` (Levinson-Durbin)."""
    a = np.zeros((len(r), order + 1))
    a[:, 0] = 1.0
    e = r[:, 0] * 1.0001 + 1e-9  # a touch of white noise keeps it stable
    for i in range(1, order + 1):
        acc = r[:, i] + np.sum(a[:, 1:i] * r[:, i - 1:0:-1], axis=1)
        k = -acc / e
        prev = a[:, 1:i].copy()
        a[:, 1:i] = prev + k[:, None] * prev[:, ::-1]
        a[:, i] = k
        e = e * (1.0 - k ** 2)
    return a, np.maximum(e, 1e-9)


def pitch(x: np.ndarray, n: int, threshold: float = 0.45) -> np.ndarray:
    """F0 in Hz of each 5 ms step (0: unvoiced), from the normalised
    autocorrelation of 40 ms windows, between 60 and 400 Hz, median-smoothed."""
    ac = low_band_autocorrelation(_frames(x, PITCH_WIN, n), RATE)
    lo, hi = RATE // 400, RATE // 60
    band = ac[:, lo - 1:hi + 1]
    inner = band[:, 1:-1]
    peak = (inner > band[:, :-2]) & (inner >= band[:, 2:])
    # the shortest period whose peak is nearly the highest: the highest alone
    # is as often twice the period (an octave too low)
    near = peak & (inner >= 0.85 * inner.max(axis=1, keepdims=True))
    lag = lo + np.where(near.any(axis=1), np.argmax(near, axis=1), np.argmax(inner, axis=1))
    strength = ac[np.arange(n), lag] / (ac[:, 0] + 1e-9)
    loud = ac[:, 0] > 1e-4 * ac[:, 0].max()
    f0 = np.where((strength > threshold) & loud, RATE / lag, 0.0)
    # a median over five steps takes out single-step octave slips and blips
    padded = np.pad(f0, 2, mode="edge")
    return np.median(np.lib.stride_tricks.sliding_window_view(padded, 5), axis=1)


def vocode(x: np.ndarray, rng: np.random.Generator, order: int | None = None,
           smooth: int | None = None, breath: float | None = None) -> np.ndarray:
    """``x`` (float samples at 16 kHz) said again through a source-filter
    vocoder: its LPC envelope of ``order`` (16-24 when None) per 5 ms step,
    averaged over ``smooth`` steps (1-6), excited by a pulse train at its
    pitch where voiced, with ``breath`` (0-0.3) of noise mixed in, and by
    noise where unvoiced. The level is kept."""
    from scipy.signal import lfilter

    x = np.asarray(x, np.float64).reshape(-1)
    if len(x) < WIN:
        return x.copy()
    order = int(rng.integers(16, 25)) if order is None else order
    smooth = int(rng.integers(1, 7)) if smooth is None else smooth
    breath = float(rng.uniform(0.0, 0.3)) if breath is None else breath
    n = len(x) // HOP
    pre = np.append(x[0], x[1:] - PREEMPHASIS * x[:-1])
    f = _frames(pre, WIN, n) * np.hanning(WIN)
    r = np.fft.irfft(np.abs(np.fft.rfft(f, 2 * WIN, axis=1)) ** 2, axis=1)[:, :order + 1]
    if smooth > 1:
        # oversmoothed envelopes, as a statistical model's average makes them
        kernel = np.ones(smooth) / smooth
        r = np.apply_along_axis(lambda c: np.convolve(c, kernel, mode="same"), 0, r)
    a, err = levinson(r, order)
    gain = np.sqrt(err / WIN)
    f0 = pitch(x, n)

    # Excitation of unit power: pulses one period apart where voiced (their
    # phase carried from step to step), noise where not.
    per_sample = np.repeat(f0, HOP)[:n * HOP]
    phase = np.cumsum(per_sample / RATE)
    pulses = np.zeros(n * HOP)
    voiced = per_sample > 0
    ticks = np.flatnonzero(np.diff(np.floor(phase), prepend=0.0) > 0)
    ticks = ticks[voiced[ticks]]
    pulses[ticks] = np.sqrt(RATE / np.maximum(per_sample[ticks], 1.0))
    noise = rng.normal(0.0, 1.0, n * HOP)
    exc = np.where(voiced, np.sqrt(1 - breath) * pulses + np.sqrt(breath) * noise, noise)

    y = np.zeros(n * HOP)
    state = np.zeros(order)
    for i in range(n):
        s = slice(i * HOP, (i + 1) * HOP)
        y[s], state = lfilter([gain[i]], a[i], exc[s], zi=state)
    y = lfilter([1.0], [1.0, -PREEMPHASIS], y)
    y = np.concatenate([y, np.zeros(len(x) - len(y))])
    level = np.sqrt(np.mean(x ** 2)) / max(np.sqrt(np.mean(y ** 2)), 1e-12)
    return y * level
