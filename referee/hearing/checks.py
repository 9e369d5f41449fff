"""Sanity checks on a decoded segment, made on its audio and word timings.

A grammar-constrained decoder always finds *some* phrase; these checks say
whether the sound could really be that phrase: where its loud part is, whether
loud sound lies outside it, whether its words have a length a person could
say them in, and whether it is voiced at all (a card slapped on the table is
loud and short, but has no pitch; "goop" has). :class:`VoicelessRun` follows
the last of these as a segment grows: how long it has been without a voice.
"""

from __future__ import annotations

import numpy as np

#: Longest a word may last, seconds.
MAX_WORD = 1.2
#: Shortest a word may last (except the short function words), seconds.
MIN_WORD = 0.06
SHORT_WORDS = ("of", "a", "the")


def frame_power(x: np.ndarray, rate: int) -> np.ndarray:
    """Mean power of each 10 ms frame (int16 units squared)."""
    f = rate // 100
    n = len(x) // f
    return np.mean(x[: n * f].astype(np.float64).reshape(n, f) ** 2, axis=1)


def frame_levels(x: np.ndarray, rate: int) -> np.ndarray:
    """Level of each 10 ms frame, dB (of int16 units)."""
    return 10 * np.log10(frame_power(x, rate) + 1.0)


def trim(x: np.ndarray, rate: int, start: float, end: float, below: float = 35.0
         ) -> tuple[float, float]:
    """Tighten a phrase's start and end (seconds in ``x``) to the loud part
    (frames at most ``below`` dB under the loudest, and well over the floor):
    decoders stretch the edge words over trailing noise or breath."""
    e = frame_levels(x, rate)
    n = len(e)
    if n < 3:
        return start, end
    i, j = max(0, int(start * 100)), min(n, int(round(end * 100)))
    if j - i < 3:
        return start, end
    floor, peak = np.percentile(e, 10), e[i:j].max()
    thr = max(peak - below, floor + 0.4 * (peak - floor))
    on = np.flatnonzero(e[i:j] >= thr)
    if not len(on):
        return start, end
    return (i + on[0]) / 100.0, (i + on[-1] + 1) / 100.0


VOICED_NEAR = 5
"""10 ms steps: a loud frame this close to a voiced step may be speech (the
consonants round a vowel are not voiced themselves)."""


def speech_span(x: np.ndarray, rate: int, start: float, end: float) -> float:
    """Seconds of speech in [start, end] (seconds in ``x``, a loud part as :func:`trim`
    gives it): from ``VOICED_NEAR`` steps before its first voiced step (of 3 or more in a
    row: a click may ring for one) to as far after its last. Clatter at a segment's cut
    stays loud, not voiced, and is left out; with no voiced step, the whole span."""
    v = without_short_runs(voiced(x, rate), 3)
    i, j = max(0, int(start * 100)), min(len(v), int(round(end * 100)))
    on = np.flatnonzero(v[i:j])
    if not len(on):
        return end - start
    a = max(start, (i + on[0] - VOICED_NEAR) / 100.0)
    b = min(end, (i + on[-1] + 1 + VOICED_NEAR) / 100.0)
    return b - a


def speech_outside(x: np.ndarray, rate: int, start: float, end: float,
                   voiced_only: bool = True) -> float:
    """Seconds of loud sound in ``x`` outside [start, end] (plus 100 ms either
    side) that may be speech, being voiced or next to voiced sound: speech the
    phrase does not account for ("I have" before "four of hearts") that the
    decoder put down as silence. Clatter, slaps and hiss are loud but not
    voiced, and do not count (``voiced_only`` False: they do)."""
    e = frame_levels(x, rate)
    n = len(e)
    i, j = max(0, int(start * 100)), min(n, int(round(end * 100)))
    if j - i < 3:
        return 0.0
    floor, peak = np.percentile(e, 10), e[i:j].max()
    thr = max(peak - 25.0, floor + 0.6 * (peak - floor))
    loud = e >= thr
    loud[max(0, i - 10):min(n, j + 10)] = False
    if voiced_only and loud.any():
        # voiced step k spans frames k..k+3 (a 40 ms window on a 10 ms hop)
        v = np.zeros(n + 2 * VOICED_NEAR + 4, bool)
        steps = np.flatnonzero(voiced(x, rate))
        for d in range(-VOICED_NEAR, VOICED_NEAR + 4):
            idx = steps + d + VOICED_NEAR
            v[idx[(idx >= 0) & (idx < len(v))]] = True
        loud &= v[VOICED_NEAR:VOICED_NEAR + n]
    return float(loud.sum()) / 100.0


def plausible(words: list[tuple[str, float, float]], start: float | None = None,
              end: float | None = None) -> bool:
    """Word durations a person could say: ``MIN_WORD`` to ``MAX_WORD`` seconds
    each ('of' may be shorter). ``start``/``end``: the loud part of the
    segment (see :func:`trim`); the first and last word are measured only
    inside it, because decoders stretch an edge word over the noise before or
    after a phrase, which is no reason to doubt it (while a word stretched over
    more speech, "queen of diamonds" for "the queen is in the garden", is)."""
    last = len(words) - 1
    for k, (w, s, e) in enumerate(words):
        if k == 0 and start is not None:
            s = max(s, start)
        if k == last and end is not None:
            e = min(e, end)
        d = e - s
        if d > MAX_WORD or (d < MIN_WORD and w not in SHORT_WORDS):
            return False
    return True


def voiced_run(x: np.ndarray, rate: int, threshold: float = 0.5) -> int:
    """The longest run of voiced 10 ms steps in ``x`` (see :func:`voiced`):
    a vowel is voiced throughout, while clicks and rings that happen to repeat
    at a pitch-like interval do so for a step or two."""
    run = best = 0
    for v in voiced(x, rate, threshold):
        run = run + 1 if v else 0
        best = max(best, run)
    return best


def low_band_autocorrelation(frames: np.ndarray, rate: int) -> np.ndarray:
    """The autocorrelation (lags 0 to the frame length) of each row of
    ``frames``, its mean taken out and Hann-windowed, over the band under
    1 kHz: pitch lives in the low harmonics, and the ringing of chips and
    coins, which is periodic too, lies above."""
    size = frames.shape[1]
    frames = frames - frames.mean(axis=1, keepdims=True)
    power = np.abs(np.fft.rfft(frames * np.hanning(size)[None, :], 2 * size, axis=1)) ** 2
    power[:, int(1000 * 2 * size / rate) + 1:] = 0.0
    return np.fft.irfft(power, axis=1)[:, :size]


def _pitch_window(rate: int) -> tuple[int, int]:
    """Samples in a pitch analysis window (40 ms) and between windows (10 ms)."""
    return int(0.04 * rate), int(0.01 * rate)


def pitch_strength(x: np.ndarray, rate: int) -> tuple[np.ndarray, np.ndarray]:
    """For each 10 ms step of ``x`` (a 40 ms window from the step on, whole
    windows only): the normalised autocorrelation of the band under 1 kHz at
    its best pitch period between 60 and 400 Hz (0 where that is no peak), and
    the window's level in dB. Two empty arrays when ``x`` is shorter than one
    window."""
    peak, level, _ = pitch_track(x, rate)
    return peak, level


def pitch_track(x: np.ndarray, rate: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`pitch_strength`'s two arrays, and the best pitch period of each step
    (samples)."""
    x = np.asarray(x, np.float64).reshape(-1)
    size, hop = _pitch_window(rate)
    if len(x) < size:
        return np.zeros(0), np.zeros(0), np.zeros(0)
    n = 1 + (len(x) - size) // hop
    ac = low_band_autocorrelation(x[np.arange(size)[None, :] + hop * np.arange(n)[:, None]],
                                  rate)
    # Undo the window's own taper of longer lags.
    window = np.hanning(size)
    wac = np.correlate(window, window, "full")[size - 1:]
    ac = ac / np.maximum(wac[None, :], 1e-9) * wac[0]
    energy = ac[:, 0] + 1e-9
    lo, hi = rate // 400, rate // 60
    lags = ac[:, lo - 1:hi + 1]
    best = np.argmax(lags[:, 1:-1], axis=1) + 1
    rows = np.arange(len(lags))
    # A pitch period is a peak of the autocorrelation, not the tail of the
    # fall from lag 0 that low-passed noise (a slap) has.
    is_peak = (lags[rows, best] > lags[rows, best - 1]) & (lags[rows, best] >= lags[rows, best + 1])
    peak = np.where(is_peak, lags[rows, best], 0.0) / energy
    return peak, 10 * np.log10(energy / size + 1.0), (best + lo - 1).astype(np.float64)


#: dB under the loudest window within which a window with a pitch is voiced.
VOICED_SPAN_DB = 30.0


def voiced(x: np.ndarray, rate: int, threshold: float = 0.5) -> np.ndarray:
    """For each 10 ms step of ``x``, whether it is voiced: a 40 ms window whose
    normalised autocorrelation (of the band under 1 kHz) peaks above
    ``threshold`` at a pitch period between 60 and 400 Hz, and that is within
    ``VOICED_SPAN_DB`` of the loudest window.

    Vowels are voiced; clatter, slaps, riffles and hiss are not."""
    peak, level = pitch_strength(x, rate)
    if not len(peak):
        return np.zeros(0, bool)
    return (peak > threshold) & (level > level.max() - VOICED_SPAN_DB)


def without_short_runs(mask: np.ndarray, shortest: int, keep: int = -1) -> np.ndarray:
    """``mask`` with runs of True shorter than ``shortest`` cleared, but the one at ``keep``."""
    m = np.concatenate([[False], mask, [False]]).astype(np.int8)
    d = np.diff(m)
    out = mask.copy()
    for a, b in zip(np.flatnonzero(d == 1), np.flatnonzero(d == -1)):
        if b - a < shortest and not a <= keep < b:
            out[a:b] = False
    return out


def bridged_run(on: np.ndarray, at: int, lo: int, hi: int, gap: int) -> tuple[int, int]:
    """First and last index of the run of True in ``on`` through ``at``, within [lo, hi),
    dips of False shorter than ``gap`` bridged (``at`` itself need not be True)."""
    a = b = at
    while a > lo:  # walk left, bridging short dips
        j = a - 1
        while j >= lo and not on[j] and a - j <= gap:
            j -= 1
        if j < lo or not on[j]:
            break
        a = j
    while b < hi - 1:
        j = b + 1
        while j < hi and not on[j] and j - b <= gap:
            j += 1
        if j >= hi or not on[j]:
            break
        b = j
    return a, b


def voiced_groups(x: np.ndarray, rate: int, gap: float, steps: int = 3
                  ) -> list[tuple[float, float]]:
    """(start, end) seconds in ``x`` of its voiced stretches: ``steps`` or more voiced
    10 ms steps in a row (:func:`voiced`; a click that rings at a pitch-like period is
    voiced for one), unvoiced gaps up to ``gap`` seconds bridged. An end is that of the
    last voiced step's 40 ms window."""
    v = np.flatnonzero(without_short_runs(voiced(x, rate), steps))
    if not len(v):
        return []
    size, hop = _pitch_window(rate)
    groups = np.split(v, np.flatnonzero(np.diff(v) * hop > gap * rate) + 1)
    return [(g[0] * hop / rate, (g[-1] * hop + size) / rate) for g in groups]


def loud_groups(x: np.ndarray, rate: int, gap: float, over_db: float, shortest: float
                ) -> list[tuple[float, float]]:
    """(start, end) seconds in ``x`` of its stretches whose level (10 ms frames, averaged over
    50 ms) stands ``over_db`` or more over the median frame's: a voice over steady talk or
    noise that keeps a segment open without a pause (docs/partial-calls.md, "Loud pieces").
    Gaps up to ``gap`` seconds are bridged; stretches shorter than ``shortest`` are left out."""
    e = frame_levels(x, rate)
    if len(e) < 5:
        return []
    on = np.convolve(e, np.ones(5) / 5, mode="same") >= np.median(e) + over_db
    idx = np.flatnonzero(on)
    if not len(idx):
        return []
    groups = np.split(idx, np.flatnonzero(np.diff(idx) > gap * 100) + 1)
    return [(g[0] / 100, (g[-1] + 1) / 100) for g in groups
            if (g[-1] + 1 - g[0]) / 100 >= shortest]


class VoicelessRun:
    """How long the end of a growing stretch of audio has been without voice,
    worked out as it grows (each 10 ms step once).

    ``feed(samples)`` adds audio; ``run`` is the number of samples at the end
    since the last voice: a run of at least ``steps`` voiced steps (as
    :func:`voiced` judges them, against the loudest window so far), the end
    of its last window; 0 while there has been none. Silence, hiss and
    card-table clatter after speech are all without voice (the clicks of a
    shuffle have a pitch for a step or two now and then; a vowel for many)."""

    def __init__(self, rate: int, threshold: float = 0.5, steps: int = 3) -> None:
        self.rate, self.threshold, self.steps = rate, threshold, steps
        self.size, self.hop = _pitch_window(rate)
        self._tail = np.zeros(0)  # samples not yet in a whole window's step
        self._steps = 0  # steps judged
        self._total = 0  # samples fed
        self._loudest = -np.inf
        self._streak = 0  # voiced steps in a row, up to the last judged
        self._last: int | None = None  # sample where the last voice's last window ends

    def feed(self, samples: np.ndarray) -> None:
        x = np.concatenate([self._tail, np.asarray(samples, np.float64).reshape(-1)])
        self._total += len(samples)
        peak, level = pitch_strength(x, self.rate)
        for i in range(len(peak)):
            self._loudest = max(self._loudest, level[i])
            is_voiced = peak[i] > self.threshold and level[i] > self._loudest - VOICED_SPAN_DB
            self._streak = self._streak + 1 if is_voiced else 0
            if self._streak >= self.steps:
                self._last = (self._steps + i) * self.hop + self.size
        self._steps += len(peak)
        self._tail = x[len(peak) * self.hop:]

    @property
    def run(self) -> int:
        return 0 if self._last is None else max(0, self._total - self._last)
