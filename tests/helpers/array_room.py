"""A table heard by one small mic array, simulated in a reverberant room (pyroomacoustics):
talkers seated around the array say TTS speech at given times, over white noise at each mic."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from speech import load, synth

RATE = 16000


def array_offsets(mics: int, spacing: float = 0.05) -> np.ndarray:
    """(mics, 3): one mic in the middle, a pair along x, or a circle whose neighbours are
    ``spacing`` apart."""
    if mics == 1:
        return np.zeros((1, 3))
    if mics == 2:
        return np.array([[-spacing / 2, 0, 0], [spacing / 2, 0, 0]])
    r = spacing / (2 * np.sin(np.pi / mics))
    k = np.arange(mics)
    return np.stack([r * np.cos(2 * np.pi * k / mics), r * np.sin(2 * np.pi * k / mics),
                     np.zeros(mics)], axis=1)


def said(tmp: Path, text: str, voice: str) -> np.ndarray:
    """``text`` said by ``voice``, without the silence before and after."""
    name = "".join(c if c.isalnum() else "_" for c in f"{voice}_{text}")
    x = load(synth(text, tmp / f"{name}.wav", voice=voice))
    on = np.flatnonzero(np.abs(x) > 0.02 * np.abs(x).max())
    return x[on[0]: on[-1] + 1]


def table(lines: list[tuple[float, float, np.ndarray, float]], mics: int = 4,
          rt60: float = 0.35, snr: float = 20.0, seed: int = 0, tail: float = 1.0
          ) -> tuple[np.ndarray, list[np.ndarray]]:
    """``lines`` = [(azimuth in degrees, distance in metres, samples, at seconds)], one talker
    per (azimuth, distance). Returns the array's recording (frames, mics), peak 0.5, and each
    line's sound at the first mic, scaled alike."""
    import pyroomacoustics as pra
    from scipy.signal import fftconvolve

    rng = np.random.default_rng(seed)
    room_dim = [5.0, 4.2, 2.8]
    centre = np.array([2.4, 2.1, 0.76])
    absorption, order = pra.inverse_sabine(rt60, room_dim)
    room = pra.ShoeBox(room_dim, fs=RATE, materials=pra.Material(absorption),
                       max_order=min(order, 12))
    for az, d, _, _ in lines:
        a = np.radians(az)
        room.add_source(list(centre + [d * np.cos(a), d * np.sin(a), 0.4]))
    room.add_microphone_array((centre + array_offsets(mics)).T)
    room.compute_rir()
    n = int((max(at + len(x) / RATE for _, _, x, at in lines) + tail) * RATE)
    images = []
    for k, (_, _, x, at) in enumerate(lines):
        dry = np.zeros(n)
        s = int(at * RATE)
        dry[s: s + len(x)] = x[: n - s]
        images.append(np.stack([fftconvolve(dry, np.asarray(room.rir[m][k]))[:n]
                                for m in range(mics)], axis=1))
    speech = sum(images)
    noise = rng.standard_normal((n, mics))
    on = np.abs(speech[:, 0]) > 1e-4
    scale = np.sqrt(np.mean(speech[on, 0] ** 2) / np.mean(noise[:, 0] ** 2) / 10 ** (snr / 10))
    out = speech + noise * scale
    g = 0.5 / np.abs(out).max()
    return out * g, [im[:, 0] * g for im in images]


def piece(tmp: Path, lines: list[tuple[float, float, str, str, float]], mics: int,
          seed: int) -> np.ndarray:
    """A piece of the table's talk as the live tests play it: ``lines`` = [(azimuth,
    distance, text, voice, at seconds)], each said 0.3 s plus ``at`` into the piece; the
    mics' recording (:func:`table`, 25 dB SNR, 0.6 s after the last word)."""
    placed = [(az, d, said(tmp, text, voice), 0.3 + at) for az, d, text, voice, at in lines]
    audio, _ = table(placed, mics=mics, snr=25.0, seed=seed, tail=0.6)
    return audio
