"""Spectral subtraction: take a steady noise's spectrum out of a segment.

Hiss, hum and fan noise under a call fill in the gaps the recogniser listens
for (the burst of a /g/, the silence before a /p/), so "goop" in hiss sounds
like "two" or "soup". The noise's power spectrum is estimated from the
segment's own lead-in (audio the segmenter kept from before the speech
started) and subtracted, frame by frame, with a floor that keeps a little of
the original so the result does not turn into "musical" tones.
"""

from __future__ import annotations

import numpy as np

SIZE, HOP = 512, 256
#: Square-root Hann: analysis and synthesis windows that add back to one at 50 % overlap.
WINDOW = np.sqrt(np.hanning(SIZE + 1)[:SIZE])


def _frames(x: np.ndarray) -> np.ndarray:
    pad = np.concatenate([np.zeros(SIZE), x, np.zeros(SIZE)])
    n = 1 + (len(pad) - SIZE) // HOP
    idx = np.arange(SIZE)[None, :] + HOP * np.arange(n)[:, None]
    return np.fft.rfft(pad[idx] * WINDOW[None, :], axis=1)


def _overlap_add(spec: np.ndarray, n: int) -> np.ndarray:
    frames = np.fft.irfft(spec, SIZE, axis=1) * WINDOW[None, :]
    out = np.zeros(HOP * (len(frames) - 1) + SIZE)
    for k in range(2):  # frames k, k+2, k+4... do not overlap each other
        sub = frames[k::2]
        starts = HOP * (k + 2 * np.arange(len(sub)))
        idx = starts[:, None] + np.arange(SIZE)[None, :]
        out[idx.reshape(-1)] += sub.reshape(-1)
    return out[SIZE:SIZE + n]


def noise_power(noise: np.ndarray) -> np.ndarray | None:
    """Mean power spectrum of ``noise`` (None if it is shorter than a frame)."""
    noise = np.asarray(noise, np.float64)
    if len(noise) < SIZE:
        return None
    spec = _frames(noise)[1:-1]  # the first and last frames are half padding
    if not len(spec):
        return None
    return np.mean(np.abs(spec) ** 2, axis=0)


def subtract(x: np.ndarray, noise: np.ndarray, alpha: float = 1.0,
             floor: float = 0.1) -> np.ndarray:
    """``x`` with ``alpha`` times the power spectrum of ``noise`` taken out of
    each frame, never below ``floor`` of the frame's own power (float64 out)."""
    x = np.asarray(x, np.float64)
    power = noise_power(noise)
    if power is None or not len(x):
        return x
    spec = _frames(x)
    p = np.abs(spec) ** 2
    gain = np.maximum(1.0 - alpha * power[None, :] / np.maximum(p, 1e-12), floor)
    return _overlap_add(spec * np.sqrt(gain), len(x))
