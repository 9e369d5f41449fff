"""Seats around one microphone array: who is where, learnt from each player saying their
name, and each seat's voice pulled out of the array's channels.

The array's geometry is not needed: a seat is learnt as the phase differences its voice
makes between every pair of mics, per frequency (the PHAT-weighted cross-spectrum of GCC-PHAT
/ SRP-PHAT, averaged over the loudest time-frequency bins of the talker's "NAME here"). Two
seats are refused when the array cannot tell their own "NAME here"s apart
(:meth:`SeatMap.check`: two talkers in one direction; on a stereo pair, any two seats mirrored
about the line of the mics).

A stretch of audio is given to the seat whose phases its loud bins match best
(:meth:`SeatMap.attribute`, with the share of the votes as a confidence); overlapping callers
are pulled apart by a soft time-frequency mask per seat over a beam steered at it
(:meth:`SeatMap.separate`), which turns M array channels into one channel per seat for the
multi-mic pipeline (cross-talk, timing, judge). See docs/one-device.md for the figures.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from referee.core.errors import RefereeError
from referee.hearing import checks

FRAME = 512
"""Samples per STFT frame at 16 kHz (32 ms); the hop is half of it."""
BAND = (200.0, 7000.0)
"""Hz: the bins a seat is learnt and judged on (below it the phases of mics 5 cm apart hardly
differ; above it there is little voice)."""
LOUD_SHARE = 0.2
"""The share of a stretch's time-frequency bins, loudest first, that learn or judge a seat."""
MIN_APART = 0.7
"""Two seats are told apart when, of each one's "NAME here", at least this share of the loud
bins matches its own seat better than the other (docs/one-device.md: 0.67 for two talkers in
one direction, 0.71 to 0.72 for 10 to 30 degrees apart, 0.69 to 0.92 for seats 60 degrees or
more apart in the tuning rooms)."""
SHARPNESS = 40.0
"""How sharply a bin goes to the seat it matches best in :meth:`SeatMap.separate`."""
VOICED = 0.5
"""The pitch strength of a voiced 10 ms step (:func:`referee.hearing.checks.voiced`'s)."""
MASK_FLOOR = 0.02
"""What a seat's channel keeps of the bins that go to other seats (-34 dB)."""


class SeatsError(RefereeError, ValueError):
    """The seats cannot be learnt or told apart; the message says which and why."""


@dataclass(frozen=True)
class Attribution:
    seat: str
    """The seat the stretch came from."""
    confidence: float
    """The energy-weighted share of its loud bins that match that seat best (0 to 1)."""
    second: str | None
    """The runner-up seat, None with one seat."""
    second_share: float
    """The runner-up's share: high when two seats talk at once."""


def stft(x: np.ndarray) -> np.ndarray:
    """``x`` shaped (frames,) or (frames, channels) -> (channels, time, bins) complex, with a
    square-root Hann window at half overlap (:func:`istft` inverts it exactly)."""
    x = np.asarray(x, np.float64)
    if x.ndim == 1:
        x = x[:, None]
    hop = FRAME // 2
    n = max(1, int(np.ceil(len(x) / hop)) + 1)
    pad = np.zeros(((n + 1) * hop, x.shape[1]))
    pad[hop: hop + len(x)] = x
    idx = np.arange(n)[:, None] * hop + np.arange(FRAME)[None, :]
    frames = pad[idx] * _window()[None, :, None]           # (time, FRAME, channels)
    return np.fft.rfft(frames, axis=1).transpose(2, 0, 1)


def istft(spec: np.ndarray, length: int) -> np.ndarray:
    """(time, bins) complex -> ``length`` samples (the inverse of :func:`stft`'s framing)."""
    hop = FRAME // 2
    frames = np.fft.irfft(spec, FRAME, axis=1) * _window()[None, :]
    out = np.zeros((len(frames) + 1) * hop)
    for i, f in enumerate(frames):
        out[i * hop: i * hop + FRAME] += f
    return out[hop: hop + length]


def _window() -> np.ndarray:
    return np.sqrt(0.5 - 0.5 * np.cos(2 * np.pi * np.arange(FRAME) / FRAME))


class SeatMap:
    """The seats of one array: per seat, per pair of mics and frequency bin, the unit phasor
    of the learnt cross-spectrum (``phase``) and how steady it was (``weight``, 0 to 1)."""

    def __init__(self, rate: int, names: Sequence[str], phase: np.ndarray,
                 weight: np.ndarray) -> None:
        self.rate, self.names = rate, list(names)
        self.phase, self.weight = phase, weight          # (seats, pairs, bins)
        self.apart = np.ones((len(self.names), len(self.names)))
        """apart[i, j]: the share of i's enrolment (loud bins, by power) that matches seat i
        better than seat j, seat i learnt on every other frame and tried on the frames
        between (set by :meth:`learn`; 1 when unknown)."""
        self.mics = _mics_for(phase.shape[1])
        self.pairs = [(i, j) for i in range(self.mics) for j in range(i + 1, self.mics)]
        f = np.fft.rfftfreq(FRAME, 1 / rate)
        self.band = (f >= BAND[0]) & (f <= BAND[1])

    # -- learning ----------------------------------------------------------------------
    @classmethod
    def learn(cls, audio: np.ndarray, rate: int,
              spans: Sequence[tuple[str, float, float]]) -> "SeatMap":
        """Seats from ``audio`` (frames, mics) where each (name, start, end) in ``spans``
        (seconds) is that talker alone, e.g. saying "NAME here"."""
        a = _float(audio)
        if a.ndim != 2 or a.shape[1] < 2:
            raise SeatsError("an array needs two or more channels; this audio has "
                             f"{1 if a.ndim == 1 else a.shape[1]}")
        if len({n for n, _, _ in spans}) != len(spans):
            raise SeatsError("each seat is learnt once: a name is given twice")
        phases, weights, halves = [], [], []
        for name, start, end in spans:
            x = a[int(start * rate): int(np.ceil(end * rate))]
            if len(x) < FRAME * 4:
                raise SeatsError(f"{name}'s enrolment is too short to learn a seat from "
                                 f"({len(x) / rate:.2f} s)")
            cross, loud = _cross(stft(x), rate)
            phase, weight = _learnt(cross, loud)
            phases.append(phase)
            weights.append(weight)
            # learnt on every other frame, to be tried on the frames between (below)
            halves.append((_learnt(cross[:, ::2], loud[::2]), cross[:, 1::2], loud[1::2]))
        seats = cls(rate, [n for n, _, _ in spans], np.array(phases), np.array(weights))
        for i, ((phase, weight), cross, loud) in enumerate(halves):
            own = _match(cross, phase, weight)
            for j in range(len(halves)):
                if j != i:
                    other = _match(cross, seats.phase[j], seats.weight[j])
                    seats.apart[i, j] = (loud * (own > other)).sum() / max(loud.sum(), 1e-12)
        return seats

    def similarity(self) -> np.ndarray:
        """(seats, seats): how well each two seats' learnt phases agree (1: the same place)."""
        n = len(self.names)
        out = np.eye(n)
        for i in range(n):
            for j in range(i + 1, n):
                w = (self.weight[i] * self.weight[j])[:, self.band]
                agree = np.real(self.phase[i] * np.conj(self.phase[j]))[:, self.band]
                out[i, j] = out[j, i] = float((w * agree).sum() / max(w.sum(), 1e-12))
        return out

    def too_close(self, min_apart: float = MIN_APART) -> tuple[str, str, float] | None:
        """The two talkers whose seats are least apart, and how far (the share of their
        names told apart), when the array cannot tell them apart (see :data:`MIN_APART`)."""
        s = np.minimum(self.apart, self.apart.T) + 2 * np.eye(len(self.names))
        i, j = np.unravel_index(int(np.argmin(s)), s.shape)
        if len(self.names) > 1 and s[i, j] < min_apart:
            return self.names[i], self.names[j], float(s[i, j])
        return None

    @staticmethod
    def alike_line(close: tuple[str, str, float]) -> str:
        """The line that names two seats too alike (a :meth:`too_close` answer) for people:
        the game goes on, and it says what that costs."""
        a, b, share = close
        return (f"seats too alike: {a} and {b} sit in directions the array can hardly tell "
                f"apart (only {share:.0%} of their names told apart): a call of one may be "
                "given to the other")

    # -- hearing -----------------------------------------------------------------------
    def _scores(self, spec: np.ndarray) -> np.ndarray:
        """(seats, time, bins): how well each bin's phases match each seat (-1 to 1)."""
        cross, _ = _cross(spec, self.rate, loud_only=False)
        return np.array([_match(cross, self.phase[k], self.weight[k])
                         for k in range(len(self.names))])

    def attribute(self, audio: np.ndarray, start: float = 0.0, end: float | None = None
                  ) -> Attribution:
        """The seat ``audio[start:end]`` (seconds) came from: its loud bins vote."""
        a = _float(audio)
        x = a[int(start * self.rate): None if end is None else int(np.ceil(end * self.rate))]
        if len(x) < FRAME:
            x = np.concatenate([x, np.zeros((FRAME - len(x), a.shape[1]))])
        spec = stft(x)
        scores = self._scores(spec)
        _, loud = _cross(spec, self.rate)
        best = np.argmax(scores, axis=0)                         # (time, bins)
        votes = np.array([(loud * (best == k)).sum() for k in range(len(self.names))])
        share = votes / max(votes.sum(), 1e-12)
        order = np.argsort(-share)
        second = None if len(order) < 2 else self.names[order[1]]
        return Attribution(self.names[order[0]], float(share[order[0]]), second,
                           float(share[order[1]]) if len(order) > 1 else 0.0)

    def separate(self, audio: np.ndarray, sharpness: float = SHARPNESS,
                 floor: float = MASK_FLOOR, hear: float | None = None) -> np.ndarray:
        """(frames, mics) -> (frames, seats): per seat, a beam steered at it (the mics
        aligned to mic 1 by the seat's learnt phases, summed) under a soft mask of the bins
        whose phases match it best (a whole recording, through :class:`SeatSplitter`).
        ``hear``: then (frames, 2 x seats), each seat's beam again after them, under its mask
        softened to the floor ``hear`` (what its recogniser hears: docs/one-device.md)."""
        a = _float(audio)
        split = SeatSplitter(self, sharpness=sharpness, floor=floor, hear=hear)
        step = 10 * self.rate        # long recordings in pieces, as a live stream comes
        parts = [split.feed(a[s: s + step]) for s in range(0, len(a), step)]
        return np.concatenate(parts + [split.flush()])

    def _separate(self, a: np.ndarray, sharpness: float, floor: float,
                  hear: float | None = None) -> np.ndarray:
        spec = stft(a)                                            # (mics, time, bins)
        scores = self._scores(spec)
        # a bin's match judged with its neighbours in time and frequency
        smooth = scores.copy()
        smooth[:, 1:] += scores[:, :-1]
        smooth[:, :-1] += scores[:, 1:]
        smooth[:, :, 1:] += scores[:, :, :-1]
        smooth[:, :, :-1] += scores[:, :, 1:]
        e = np.exp(sharpness * (smooth / 5 - smooth.max(axis=0, keepdims=True) / 5))
        mask = floor + (1 - floor) * e / e.sum(axis=0, keepdims=True)
        n = len(self.names)
        out = np.zeros((len(a), n * (1 if hear is None else 2)), np.float32)
        for k in range(n):
            beam = spec[0].copy()
            for p, (i, j) in enumerate(self.pairs):
                if i == 0:   # phase[k, (0, j)] ~ exp(i(phi_0 - phi_j)): align mic j to mic 0
                    beam += spec[j] * self.phase[k, p][None, :]
            out[:, k] = istft(mask[k] * beam / self.mics, len(a))
            if hear is not None:     # what the recogniser hears: the beam, less masked
                soft = (mask[k] - floor) / (1 - floor)
                out[:, n + k] = istft((hear + (1 - hear) * soft) * beam / self.mics, len(a))
        return out


class SeatSplitter:
    """:meth:`SeatMap.separate` block by block, for a live stream: ``feed`` the array's
    next samples (frames, mics), get the seat channels (frames, seats) as far as they are
    final, :data:`LAG` samples behind what was fed; ``flush`` at the end gives the rest.
    The output is the same, sample for sample, as one separation of the whole stream: each
    piece is separated with :data:`CONTEXT` samples before it on the same frame grid, and
    an output sample depends only on the frames over it and their neighbours."""

    LAG = FRAME + FRAME // 2
    """Samples a seat sample waits for the frames after it (48 ms at 16 kHz)."""
    CONTEXT = 2 * FRAME
    """Samples of what came before a piece that it is separated with."""

    def __init__(self, seats: SeatMap, start: int = 0, sharpness: float = SHARPNESS,
                 floor: float = MASK_FLOOR, hear: float | None = None) -> None:
        self.seats, self.sharpness, self.floor, self.hear = seats, sharpness, floor, hear
        self.width = len(seats.names) * (1 if hear is None else 2)
        self.done = start
        """The index (samples since the stream's start) of the next seat sample out."""
        self._buf = np.zeros((0, seats.mics))
        self._buf_start = start       # the index of _buf[0], a multiple of the hop from start
        self._origin = start

    def feed(self, audio: np.ndarray) -> np.ndarray:
        a = _float(audio)
        if a.ndim != 2 or a.shape[1] != self.seats.mics:
            raise SeatsError(f"the seats were learnt on {self.seats.mics} mics; this audio "
                             f"has {1 if a.ndim == 1 else a.shape[1]}")
        self._buf = np.concatenate([self._buf, a])
        return self._upto(self._buf_start + len(self._buf) - self.LAG, final=False)

    def flush(self) -> np.ndarray:
        return self._upto(self._buf_start + len(self._buf), final=True)

    def _upto(self, upto: int, final: bool) -> np.ndarray:
        if upto <= self.done:
            return np.zeros((0, self.width), np.float32)
        hop = FRAME // 2
        lo = max(self._buf_start, self.done - self.CONTEXT)
        lo -= (lo - self._origin) % hop                   # on the frame grid
        lo = max(lo, self._buf_start)
        end = self._buf_start + len(self._buf) if final else upto + self.LAG
        y = self.seats._separate(self._buf[lo - self._buf_start: end - self._buf_start],
                                 self.sharpness, self.floor, self.hear)
        out = y[self.done - lo: upto - lo]
        self.done = upto
        keep = max(self._buf_start, self.done - self.CONTEXT - hop)
        keep -= (keep - self._origin) % hop
        self._buf = self._buf[keep - self._buf_start:]
        self._buf_start = keep
        return out


def _learnt(cross: np.ndarray, loud: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A seat's (phase, weight), each (pairs, bins), from its cross-spectra (pairs, time,
    bins) and their bins' weights (time, bins)."""
    w = loud[None, :, :]
    mean = (cross * w).sum(axis=1) / np.maximum(w.sum(axis=1), 1e-12)
    return mean / np.maximum(np.abs(mean), 1e-12), np.abs(mean)


def _match(cross: np.ndarray, phase: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """(time, bins): how well each bin of ``cross`` (pairs, time, bins) matches a seat's
    learnt ``phase`` and ``weight`` (pairs, bins), -1 to 1."""
    w = weight[:, None, :]
    agree = np.real(cross * np.conj(phase)[:, None, :])
    return (w * agree).sum(axis=0) / np.maximum(w.sum(axis=0), 1e-12)


def _mics_for(pairs: int) -> int:
    m = int(round((1 + np.sqrt(1 + 8 * pairs)) / 2))
    if m * (m - 1) // 2 != pairs:
        raise SeatsError(f"{pairs} mic pairs make no whole array")
    return m


def _float(audio: np.ndarray) -> np.ndarray:
    a = np.asarray(audio)
    return a.astype(np.float64) / 32768.0 if a.dtype == np.int16 else a.astype(np.float64)


def _cross(spec: np.ndarray, rate: int, loud_only: bool = True
           ) -> tuple[np.ndarray, np.ndarray]:
    """PHAT-weighted cross-spectra per pair of mics, (pairs, time, bins), and each bin's
    weight (its power, among the loudest ``LOUD_SHARE`` of the band, else 0)."""
    m = spec.shape[0]
    cross = np.array([spec[i] * np.conj(spec[j]) for i in range(m) for j in range(i + 1, m)])
    cross = cross / np.maximum(np.abs(cross), 1e-20)
    f = np.fft.rfftfreq(FRAME, 1 / rate)
    power = (np.abs(spec) ** 2).mean(axis=0) * ((f >= BAND[0]) & (f <= BAND[1]))[None, :]
    if loud_only and power.any():
        cut = np.quantile(power[power > 0], 1 - LOUD_SHARE)
        power = np.where(power >= cut, power, 0.0)
    return cross, power


def voice_spans(audio: np.ndarray, rate: int, count: int, min_voiced: float = 0.1,
                gap: float = 0.3, over_db: float = 6.0) -> list[tuple[float, float]]:
    """The first ``count`` stretches of voice in ``audio`` (:func:`voice_runs`). Raises
    :class:`SeatsError` with fewer."""
    spans = voice_runs(audio, rate, min_voiced, gap, over_db)
    if len(spans) < count:
        raise SeatsError(f"heard {len(spans)} of the {count} names at the start: each player "
                         "says their name in turn (\"Ann here\"), with a pause between")
    return spans[:count]


def voice_runs(audio: np.ndarray, rate: int, min_voiced: float = 0.1, gap: float = 0.3,
               over_db: float = 6.0, floor: float | None = None) -> list[tuple[float, float]]:
    """Every stretch of voice in ``audio`` (frames, channels), seconds: runs of 10 ms steps
    with a pitch (:func:`referee.hearing.checks.pitch_strength`: clatter and slaps have none)
    ``over_db`` over the recording's median level (babble under the voices has a pitch too),
    or over ``floor`` (:func:`quiet_level` of a quiet stretch) when given, pauses under
    ``gap`` bridged, at least ``min_voiced`` seconds of pitch, with 50 ms before and 100 ms
    after."""
    a = _float(audio)
    if a.ndim == 1:
        a = a[:, None]
    peak, level = checks.pitch_strength(a[:, 0] * 32768.0, rate)   # its levels are int16's
    if floor is None:
        floor = float(np.median(level)) if len(level) else 0.0
    steps = np.flatnonzero((peak > VOICED) & (level > floor + over_db))
    runs: list[list[int]] = []
    for i in steps:
        if runs and i - runs[-1][1] <= gap * 100:
            runs[-1][1] = i
            runs[-1][2] += 1
        else:
            runs.append([i, i, 1])
    return [(max(0, s - 5) / 100, min(len(a) / rate, (e + 10) / 100))
            for s, e, k in runs if k >= min_voiced * 100]


def quiet_level(audio: np.ndarray, rate: int) -> float | None:
    """The median level of ``audio`` (frames, channels) as :func:`voice_runs` measures it:
    a ``floor`` for it when ``audio`` is quiet. None when it is under 40 ms."""
    a = _float(audio)
    _, level = checks.pitch_strength((a if a.ndim == 1 else a[:, 0]) * 32768.0, rate)
    return float(np.median(level)) if len(level) else None
