"""Log-mel features of a stretch of audio, for the phrase classifier.

``log_mel(samples)`` takes int16 (or float in int16 units) mono samples at
16 kHz and gives a ``(frames, N_MELS)`` float32 array: one row per 10 ms hop
of a 25 ms Hamming window, the log of the power in each of ``N_MELS`` mel
bands from 60 to 7600 Hz, then normalised per segment (each band's mean taken
out, scaled by the whole segment's standard deviation) so that the level of
the voice and the colour of the microphone drop out.

The same function makes the training data and runs at inference: keep them
one.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

RATE = 16000
"""Samples per second the features are defined at."""
WINDOW = 400
"""Samples per analysis window (25 ms)."""
HOP = 160
"""Samples per frame step (10 ms)."""
N_FFT = 512
N_MELS = 40
FLOOR = 1.0
"""Power floor added to every band (int16 units squared): digital silence
becomes a flat floor instead of minus infinity."""


def _hz_to_mel(f):
    return 2595.0 * np.log10(1.0 + np.asarray(f, dtype=np.float64) / 700.0)


def _mel_to_hz(m):
    return 700.0 * (10 ** (np.asarray(m, dtype=np.float64) / 2595.0) - 1.0)


@lru_cache(maxsize=4)
def mel_filters(n_fft: int = N_FFT, n_mels: int = N_MELS, low: float = 60.0,
                high: float = 7600.0) -> np.ndarray:
    """``(n_fft // 2 + 1, n_mels)`` triangular filters from ``low`` to ``high`` Hz (the
    defaults: the phrase classifier's)."""
    edges = _mel_to_hz(np.linspace(_hz_to_mel(low), _hz_to_mel(high), n_mels + 2))
    bins = np.fft.rfftfreq(n_fft, 1.0 / RATE)
    fb = np.zeros((len(bins), n_mels))
    for m in range(n_mels):
        lo, mid, hi = edges[m], edges[m + 1], edges[m + 2]
        up = (bins - lo) / (mid - lo)
        down = (hi - bins) / (hi - mid)
        fb[:, m] = np.maximum(0.0, np.minimum(up, down))
    return fb


@lru_cache(maxsize=1)
def _window() -> np.ndarray:
    return np.hamming(WINDOW)


def log_mel(samples: np.ndarray) -> np.ndarray:
    """Normalised log-mel features, ``(frames, N_MELS)`` float32 (at least one frame)."""
    return normalise(raw_log_mel(samples))


def raw_log_mel(samples: np.ndarray) -> np.ndarray:
    """Log-mel frames before normalisation: frame ``i`` covers samples
    ``i * HOP`` to ``i * HOP + WINDOW``, so the frames of a longer stretch
    begin with those of its beginning (an open segment's frames can be kept
    and only the new ones added). Shorter than a window: padded with zeros."""
    x = np.asarray(samples, dtype=np.float64).reshape(-1)
    if len(x) < WINDOW:
        x = np.concatenate([x, np.zeros(WINDOW - len(x))])
    n = 1 + (len(x) - WINDOW) // HOP
    frames = np.lib.stride_tricks.sliding_window_view(x, WINDOW)[::HOP][:n]
    frames = frames - frames.mean(axis=1, keepdims=True)
    spec = np.abs(np.fft.rfft(frames * _window(), N_FFT)) ** 2
    return np.log(spec @ mel_filters() + FLOOR)


def normalise(raw: np.ndarray) -> np.ndarray:
    """Each band's mean taken out, scaled by the standard deviation of all."""
    mel = raw - raw.mean(axis=0, keepdims=True)
    mel /= max(float(mel.std()), 1e-3)
    return mel.astype(np.float32)
