"""Noise and mixing, for the benchmark corpus and the training data: white, pink,
table clatter and babble, mixed with speech at a stated signal-to-noise ratio.

All signals are float mono arrays at one rate (16 kHz in the corpus), in
[-1, 1]. Every random choice comes from a ``numpy.random.Generator`` passed
in, so the same seed gives the same samples.

SNR here means: mean power of the speech over its active span (from its first
to its last sample above -40 dB of its loudest 10 ms frame) divided by the mean
power of the noise over the whole item, in dB.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

RATE = 16000
"""Samples per second of everything in the corpus."""

NOISE_KINDS = ("babble", "clatter", "pink", "white")


def rng_for(seed: int, key: str) -> np.random.Generator:
    """A generator determined by ``seed`` and a string ``key`` (stable across runs
    and machines, unlike ``hash``)."""
    return np.random.default_rng([seed, zlib.crc32(key.encode("utf-8"))])


def power(x: np.ndarray) -> float:
    """Mean square of ``x`` (0.0 for an empty array)."""
    x = np.asarray(x, dtype=np.float64)
    return float(np.mean(x * x)) if x.size else 0.0


def db(ratio: float) -> float:
    """A power ratio in decibels."""
    return 10.0 * np.log10(max(ratio, 1e-30))


def active_span(x: np.ndarray, rate: int = RATE, floor_db: float = -40.0,
                frame_s: float = 0.01, hop_s: float | None = None) -> tuple[int, int]:
    """Sample indices ``(start, end)`` of the active part of ``x``: from the first
    to the last frame whose power is within ``floor_db`` of the loudest frame.
    Frames follow each other (``hop_s`` None) or overlap, one every ``hop_s``.
    ``(0, 0)`` for silence."""
    n = max(1, int(rate * frame_s))
    if hop_s is not None:
        return _hopped_span(x, n, max(1, int(rate * hop_s)), floor_db)
    frames = len(x) // n
    if frames == 0:
        return (0, 0)
    p = np.mean(np.asarray(x[: frames * n], dtype=np.float64).reshape(frames, n) ** 2, axis=1)
    top = p.max()
    if top <= 0:
        return (0, 0)
    loud = np.nonzero(p >= top * 10 ** (floor_db / 10))[0]
    return int(loud[0] * n), int(min(len(x), (loud[-1] + 1) * n))


def _hopped_span(x: np.ndarray, n: int, hop: int, floor_db: float) -> tuple[int, int]:
    a = np.asarray(x, dtype=np.float64)
    if len(a) < n:
        return (0, 0)
    c = np.concatenate([[0.0], np.cumsum(a * a)])
    starts = np.arange(0, len(a) - n + 1, hop)
    p = (c[starts + n] - c[starts]) / n
    top = p.max()
    if top <= 0:
        return (0, 0)
    loud = np.nonzero(p >= top * 10 ** (floor_db / 10))[0]
    return int(starts[loud[0]]), int(starts[loud[-1]] + n)


def measured_snr(speech: np.ndarray, noise: np.ndarray, start: int, end: int) -> float:
    """SNR in dB of two aligned components: speech power over ``[start, end)``,
    noise power over everything."""
    return db(power(speech[start:end]) / max(power(noise), 1e-30))


# Noise -------------------------------------------------------------------

def white(n: int, rng: np.random.Generator) -> np.ndarray:
    """Gaussian white noise, unit power."""
    x = rng.standard_normal(n)
    return x / np.sqrt(max(power(x), 1e-30))


def pink(n: int, rng: np.random.Generator) -> np.ndarray:
    """1/f noise (power falls 3 dB per octave), unit power."""
    if n == 0:
        return np.zeros(0)
    k = n // 2 + 1
    spec = rng.standard_normal(k) + 1j * rng.standard_normal(k)
    f = np.arange(k, dtype=np.float64)
    f[0] = 1.0
    spec /= np.sqrt(f)
    spec[0] = 0.0
    x = np.fft.irfft(spec, n)
    return x / np.sqrt(max(power(x), 1e-30))


def _decay(n: int, tau: float, rate: int) -> np.ndarray:
    return np.exp(-np.arange(n) / (tau * rate))


def riffle(length: int, rng: np.random.Generator, click_rate: float, rate: int = RATE
           ) -> np.ndarray:
    """A riffle shuffle ``length`` samples long: a train of short high-passed
    clicks, ``click_rate`` a second on average (the last one may ring on for
    4 ms past ``length``)."""
    m = int(0.004 * rate)
    out = np.zeros(length + m)
    c = 0.0
    while c < length:
        burst = np.diff(rng.standard_normal(m + 1)) * _decay(m, 0.0015, rate)
        burst *= rng.uniform(0.3, 1.0)
        out[int(c):int(c) + m] += burst
        c += rate / click_rate * rng.uniform(0.6, 1.4)
    return out


def clatter(n: int, rng: np.random.Generator, rate: int = RATE) -> np.ndarray:
    """Card-table noise, unit power: riffle shuffles (trains of short
    high-passed clicks), cards slapped down (low-passed decaying bursts) and
    chips (damped high sinusoids), over a faint pink floor."""
    out = np.zeros(n)
    t = int(rng.uniform(0.0, 0.4) * rate)
    while t < n:
        kind = rng.choice(["riffle", "slap", "chips"], p=[0.4, 0.35, 0.25])
        if kind == "riffle":
            length = int(rng.uniform(0.4, 1.2) * rate)
            clicks = riffle(length, rng, rng.uniform(25, 60), rate)
            end = min(n, t + len(clicks))
            out[t:end] += clicks[: end - t]
            t += length
        elif kind == "slap":
            m = int(0.05 * rate)
            burst = rng.standard_normal(m) * _decay(m, 0.008, rate)
            burst = np.convolve(burst, np.ones(4) / 4, mode="same") * 2.0
            end = min(n, t + m)
            out[t:end] += burst[: end - t]
            t += m
        else:
            for _ in range(int(rng.integers(3, 9))):
                m = int(0.06 * rate)
                f = rng.uniform(2000, 6000)
                ring = np.sin(2 * np.pi * f * np.arange(m) / rate + rng.uniform(0, 6.3))
                ring *= _decay(m, 0.012, rate) * rng.uniform(0.2, 0.8)
                end = min(n, t + m)
                if t < n:
                    out[t:end] += ring[: end - t]
                t += int(rng.uniform(0.02, 0.08) * rate)
        t += int(rng.uniform(0.05, 0.6) * rate)
    if power(out) == 0:
        out[: min(n, 10)] = 1.0
    out /= np.sqrt(power(out))
    out += 0.01 * pink(n, rng)
    return out / np.sqrt(power(out))


def babble(utterances: list[np.ndarray], n: int, rng: np.random.Generator,
           talkers: int = 4, rate: int = RATE) -> np.ndarray:
    """Several talkers at once, unit power: each talker strings randomly chosen
    ``utterances`` together with short gaps at its own level (within ±4 dB),
    starting part-way through its first one."""
    if not utterances:
        raise ValueError("babble needs at least one utterance")
    out = np.zeros(n)
    for _ in range(talkers):
        gain = 10 ** (rng.uniform(-4, 4) / 20)
        t = -int(rng.uniform(0, 1.5) * rate)
        while t < n:
            u = np.asarray(utterances[int(rng.integers(len(utterances)))], dtype=np.float64)
            u = u / np.sqrt(max(power(u), 1e-30)) * gain
            a, b = max(t, 0), min(n, t + len(u))
            if b > a:
                out[a:b] += u[a - t: b - t]
            t += len(u) + int(rng.uniform(0.05, 0.5) * rate)
    return out / np.sqrt(max(power(out), 1e-30))


def make_noise(kind: str, n: int, rng: np.random.Generator,
               babble_pool: list[np.ndarray] | None = None) -> np.ndarray:
    """``n`` samples of unit-power noise of ``kind`` (one of ``NOISE_KINDS``)."""
    if kind == "white":
        return white(n, rng)
    if kind == "pink":
        return pink(n, rng)
    if kind == "clatter":
        return clatter(n, rng)
    if kind == "babble":
        return babble(babble_pool or [], n, rng)
    raise ValueError(f"unknown noise kind: {kind!r}")


def reverb(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``x`` in a small room: convolved with decaying noise (RT60 0.15-0.6 s)
    after the direct sound, at a random direct-to-reverberant ratio."""
    rt60 = rng.uniform(0.15, 0.6)
    n = int(rt60 * RATE)
    tail = rng.standard_normal(n) * np.exp(-6.9 * np.arange(n) / n)
    tail *= 10 ** (rng.uniform(-12, 0) / 20) / np.sqrt(np.sum(tail ** 2))
    ir = np.concatenate([[1.0], np.zeros(int(rng.uniform(0.002, 0.01) * RATE)), tail])
    y = np.convolve(x, ir)
    return y * (np.max(np.abs(x)) / max(np.max(np.abs(y)), 1e-9))


# Mixing ------------------------------------------------------------------

@dataclass
class Mixed:
    """One mixed item and its parts (all the same length)."""

    audio: np.ndarray
    """The mix, float, peak at most 0.98."""
    speech: np.ndarray
    """The speech component as placed and scaled in the mix."""
    noise: np.ndarray
    """The noise component as scaled in the mix."""
    speech_start: int
    """Sample index where the speech's active span begins."""
    speech_end: int
    """Sample index where it ends."""


def mix(speech: np.ndarray, noise: np.ndarray | None, snr_db: float | None, *,
        lead: int, trail: int, peak_dbfs: float = -6.0) -> Mixed:
    """Place ``speech`` after ``lead`` samples of lead-in, with ``trail`` samples
    after it, at peak ``peak_dbfs``; add ``noise`` (at least as long as the item)
    scaled to ``snr_db``. With ``snr_db`` None the lead-in and tail are digital
    silence. If the sum would clip, the whole item is turned down (the SNR is
    unchanged)."""
    speech = np.asarray(speech, dtype=np.float64)
    n = lead + len(speech) + trail
    s = np.zeros(n)
    peak = float(np.max(np.abs(speech))) if speech.size else 0.0
    if peak > 0:
        s[lead: lead + len(speech)] = speech * (10 ** (peak_dbfs / 20) / peak)
    a, b = active_span(s)
    if snr_db is None or noise is None:
        v = np.zeros(n)
    else:
        if len(noise) < n:
            raise ValueError(f"noise too short: {len(noise)} < {n} samples")
        v = np.asarray(noise[:n], dtype=np.float64)
        ps = power(s[a:b]) if b > a else 10 ** (peak_dbfs / 10) / 8
        v = v * np.sqrt(ps / max(power(v), 1e-30) / 10 ** (snr_db / 10))
    total = s + v
    top = float(np.max(np.abs(total))) if n else 0.0
    if top > 0.98:
        k = 0.98 / top
        s, v, total = s * k, v * k, total * k
    return Mixed(total, s, v, a, b)


def noise_only(noise: np.ndarray, level_dbfs: float) -> np.ndarray:
    """``noise`` scaled to an RMS of ``level_dbfs``, turned down if it would clip."""
    x = np.asarray(noise, dtype=np.float64)
    x = x * 10 ** (level_dbfs / 20) / np.sqrt(max(power(x), 1e-30))
    top = float(np.max(np.abs(x))) if x.size else 0.0
    return x * (0.98 / top) if top > 0.98 else x



