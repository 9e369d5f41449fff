"""Cross-talk: with one microphone per player, each call also reaches the
neighbours' microphones, 10 to 20 dB down. Each utterance is given to the
channel where it is loudest, and its copies on the other channels dropped.

A heard utterance on channel *c* is a copy from channel *k* when, over the
utterance's time span, *k* is clearly louder (``margin_db``) and *c*'s signal is a scaled,
delayed copy of *k*'s (normalised cross-correlation within 5 ms at least
``min_correlation``), or *k* is louder by ``copy_db`` whatever the shape. With the leaks
taken out (``cancel``), it is also a copy when *c*'s raw signal is a later copy of *k*'s
(``LEAD_CORRELATION``, *k* ahead by the leak's delay), whatever their levels; and an
utterance is never moved to a mic with no voice of its own there (``TALKER_DB``). A copy is
moved to the loudest channel (so a call that only the neighbour's recogniser caught still
counts for the right player), and dropped if that channel already has the same phrase
overlapping it. The same :class:`CrossTalk` serves whole files
(:func:`attribute`) and live audio (``add_audio`` blocks, then ``filter``
utterances as they come).

The filter learns the leaks between the mics from the audio added
(:class:`referee.hearing.leaks.LeakModel`) and, with ``cancel`` (the default), takes them
out of every channel as it comes (:class:`referee.hearing.leaks.LeakCanceller`): the
listener feeds the recognisers that audio. With ``refine`` (the default), each utterance
passed on gets its start and end from :class:`referee.hearing.timing.CallTimer`, which
times the call on its own channel with the leaks taken out.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Iterable, Sequence

import numpy as np

from referee.core.events import Utterance
from referee.hearing import checks
from referee.hearing.edge_net import EdgeNet
from referee.hearing.leaks import LeakCanceller, LeakModel
from referee.hearing.timing import CallTimer


ACTIVE_DB = 10.0
"""dB under its loudest 10 ms frame within which a frame of an utterance's own mic counts
when mics are compared (with the leaks taken out)."""
CLEAN_COPY_DB = 15.0
"""dB by which another mic, the leaks taken out, must be louder for an utterance to be a
copy of its voice whatever their shapes (what a canceller leaves of a leak is more than
this under it; a neighbour whose mic is set louder may be 9 dB over)."""

LEAD_CORRELATION = 0.6
"""Normalised correlation of the raw signals over which a mic's utterance is a copy of the
mic whose signal leads it by 1 sample to ``LeakModel.lags`` (a leak reaches the other mics
later than the talker's own): a mic with its own voice on it correlates with a neighbour's
at about 0.3 at most (a leak is 10 dB down or more), while a neighbour's leak on a mic whose
gain is set higher can be as loud as the talker's own (docs/timing.md, "Copies told by which
mic leads")."""
LEAD_AGREE = 0.0006
"""Seconds within which the lead must agree with the learnt leak's delay, where it is
learnt (the room's noise reaches every mic too, with delays of its own)."""

TALKER_DB = 10.0
"""dB over its mic's noise floor (:meth:`referee.hearing.leaks.LeakModel.floor`) by which a
mic, the leaks taken out, must be heard where an utterance is loudest to have a voice of its
own there: an utterance is never moved to a mic without one, and one heard on a mic
without one is the loudest talker's (docs/timing.md, "Copies told by which mic leads")."""

VOICE_PITCH = 0.5
"""The pitch strength over which a 10 ms step has a voice in :meth:`CrossTalk.own_voice`
(:func:`referee.hearing.checks.voiced`'s threshold, without its level test: a weak voice
counts)."""
OWN_TAIL = 0.25
"""Seconds after the end of a call its own mic's recogniser reported within which a pitched
step far under that call (``OWN_TAIL_DB``) is the call fading, not a new voice: the
recogniser's end can come 0.1 s before the sound's (docs/timing.md, "A call's own tail")."""
OWN_TAIL_DB = 30.0
"""dB under the call's loudest 40 ms that makes a step after it its fading tail."""
OWN_OVER_DB = 12.0
"""dB over the median level of its mic's last ``OWN_OVER_SPAN`` seconds by which a pitched step
must stand to be a voice of the mic's own in :meth:`CrossTalk.own_voice`: talk in the room is
voiced too, but at the level the mic always hears, and a call's loud vowels stand over it
(docs/timing.md, "Talk in the room no longer holds verdicts")."""
OWN_OVER_SPAN = 10.0
"""Seconds of a mic's audio before a step whose median level ``OWN_OVER_DB`` is over."""
VOICE_STEPS = 2
"""Such steps in a row that make a voice: a call has at least 3 on the recogniser's own
10 ms grid (``SURE_VOICED_RUN``), which lies up to a step off this one; white noise has one
step in 15 (docs/timing.md)."""


class CrossTalk:
    def __init__(self, rate: int, channels: int, players: Sequence[str | None] | None = None,
                 keep: float = 30.0, margin_db: float = 3.0, copy_db: float = 9.0,
                 min_correlation: float = 0.5, refine: bool = True, cancel: bool = True,
                 edges: EdgeNet | None | bool = True,
                 alike: Iterable[tuple[str, str]] = ()) -> None:
        self.rate, self.channels = rate, channels
        self.players = list(players) if players else [None] * channels
        self.alike: set[frozenset[int]] = set()
        """Pairs of channels (by ``players``) that hear one talker alike: an array's seats
        too alike to tell apart. The same phrase at once on both is one utterance, the
        first reported (see :meth:`set_alike`)."""
        self.set_alike(alike)
        self.keep = int(keep * rate)
        self.margin_db, self.copy_db, self.min_corr = margin_db, copy_db, min_correlation
        self.audio = np.zeros((0, channels), np.float32)
        self.clean = np.zeros((0, channels), np.float32) if cancel else None
        """``audio`` with the leaks between the mics taken out (None without ``cancel``):
        who is loudest is judged on it, so a mic whose gain is higher than its
        neighbour's does not take the neighbour's calls."""
        self.first = 0  # sample index of self.audio[0]
        self.accepted: list[Utterance] = []
        self.leaks = LeakModel(rate, channels)
        """The leaks between the mics, learnt from the audio added (timing and the
        listener's canceller use them)."""
        self.cancel = LeakCanceller(self.leaks) if cancel else None
        if edges is True:
            edges = EdgeNet.load()
        self.timer = CallTimer(rate, channels, leaks=self.leaks, edges=edges or None) \
            if refine else None
        """Times calls from every mic; ``edges``: the edge network it times them by (True:
        the shipped one; None or False: by the envelopes alone, docs/timing.md)."""
        self._refined: tuple | None = None  # the last refine's key and result
        # loudest() per (channel, start, end) on the audio added so far (the listener asks
        # it up to three times a decision; cleared when audio is added)
        self._loudest: dict[tuple[int, float, float], int] = {}
        # per channel: [seconds looked from, next sample to look at, first voice or None]
        self._voice: dict[int, list] = {}
        # the loudest 40 ms (dB) of each (channel, start, end) a recogniser reported
        self._peak: dict[tuple[int, float, float], float] = {}
        # over_floor() and levels() per (channels, start, end, which), kept: both mics of a
        # pair get one answer
        self._over: dict[tuple, dict[int, float]] = {}

    def set_alike(self, pairs: Iterable[tuple[str, str]]) -> None:
        """Hear each pair of players' channels in ``pairs`` as one talker's (see
        :attr:`alike`) from now on, and no others: a live array's seats learnt again."""
        self.alike = {frozenset((self.players.index(a), self.players.index(b)))
                      for a, b in pairs}

    def add_audio(self, block: np.ndarray, first: int | None = None) -> np.ndarray | None:
        """Append a block shaped (frames, channels) (int16 or float); ``first`` is
        its first sample's index on the shared clock (default: straight after). Returns
        the block (float) with the leaks between the mics taken out, or None without
        ``cancel``."""
        b = np.asarray(block)
        b = b.astype(np.float32) / 32768.0 if b.dtype == np.int16 else b.astype(np.float32)
        if b.ndim == 1:
            b = b[:, None]
        if first is not None and first != self.first + len(self.audio):
            gap = first - (self.first + len(self.audio))
            if gap > 0:
                b = np.concatenate([np.zeros((gap, self.channels), np.float32), b])
            else:
                b = b[-gap:]
        self.audio = np.concatenate([self.audio, b])
        self._loudest.clear()
        self.leaks.observe(b)
        own = None
        if self.cancel is not None:
            own = self.cancel.process(b).astype(np.float32)
            self.clean = np.concatenate([self.clean, own])
        if len(self.audio) > self.keep:
            cut = len(self.audio) - self.keep
            self.audio = self.audio[cut:]
            if self.clean is not None:
                self.clean = self.clean[cut:]
            self.first += cut
        return own

    def loudest(self, u: Utterance) -> int:
        """The channel ``u`` most likely came from (kept until more audio is added)."""
        key = (u.channel, u.start, u.end)
        if key not in self._loudest:
            self._loudest[key] = self._loudest_now(u)
        return self._loudest[key]

    def _loudest_now(self, u: Utterance) -> int:
        a = int(u.start * self.rate) - self.first
        b = int(np.ceil(u.end * self.rate)) - self.first
        a, b = max(a, 0), min(b, len(self.audio))
        if b - a < self.rate // 50 or not (0 <= u.channel < self.channels):
            return u.channel
        span = self.audio[a:b].astype(np.float64)
        level = span if self.clean is None else self.clean[a:b].astype(np.float64)
        env = _frame_rms(level, self.rate // 100)  # (n, channels)
        own = u.channel
        if self.clean is not None:
            # where the utterance is: its own mic's loudest frames (a recogniser's segment
            # may run on through the noise well past the voice)
            busy = env[:, own] >= env[:, own].max() * 10 ** (-ACTIVE_DB / 20)
            env = env[busy]
        energy = 10 * np.log10(np.mean(env ** 2, axis=0))
        # with the leaks taken out, levels and shapes are compared on what is left: what
        # a canceller leaves of a leak is still a copy of the voice, while another player
        # talking at the same time into a mic set louder is not
        shape = span if self.clean is None else level
        talks = [self.clean is None or energy[k] >= self.leaks.floor(k) + TALKER_DB
                 for k in range(self.channels)]
        # separate mics, each leaking into the others a little later (an array's seat
        # channels are masks of one sound: see referee.app.inputs)
        led = self._leader(own, a, b, talks, energy) if self.cancel is not None else None
        if led is not None:
            return led
        best, best_db = own, energy[own]
        for k in range(self.channels):
            if k == own or not talks[k]:
                continue
            louder = energy[k] - energy[own]
            if louder < self.margin_db or energy[k] <= best_db:
                continue
            copy_db = self.copy_db if self.clean is None or not talks[own] else CLEAN_COPY_DB
            if louder >= copy_db or _similarity(shape[:, own], shape[:, k],
                                                      self.rate // 200) >= self.min_corr:
                best, best_db = k, energy[k]
        return best

    def over_floor(self, channels: Sequence[int], start: float, end: float
                   ) -> dict[int, float]:
        """dB by which each of ``channels``, the leaks taken out, stands over its noise
        floor from ``start`` to ``end`` (seconds), over its own loudest frames there (within
        ``ACTIVE_DB`` of its loudest 10 ms frame): where a voice heard on two mics at once
        is its talker's own, whatever the mics' gains. Asked again for the same channels and
        span, it answers the same."""
        return self._measured(channels, start, end, True)

    def levels(self, channels: Sequence[int], start: float, end: float) -> dict[int, float]:
        """dB level of each of ``channels``, the leaks taken out, from ``start`` to ``end``
        (seconds), over the whole span, the same frames for every channel: an array's seats
        are masks of one sound, on one scale, each with a floor of its own and peaks where
        its mask lets another voice through, so their floors and loudest frames mislead."""
        return self._measured(channels, start, end, False)

    def _measured(self, channels: Sequence[int], start: float, end: float,
                  floor: bool) -> dict[int, float]:
        """:meth:`over_floor` (``floor``) or :meth:`levels`, kept per question."""
        key = (tuple(sorted(channels)), start, end, floor)
        if key not in self._over:
            if len(self._over) > 256:
                self._over.pop(next(iter(self._over)))
            a = max(int(start * self.rate) - self.first, 0)
            b = min(int(np.ceil(end * self.rate)) - self.first, len(self.audio))
            level = (self.audio if self.clean is None else self.clean)[a:b].astype(np.float64)
            envs = _frame_rms(level, self.rate // 100)
            out = {}
            for c in key[0]:
                if len(envs) == 0:
                    out[c] = -np.inf
                    continue
                env = envs[:, c]
                busy = env >= env.max() * 10 ** (-ACTIVE_DB / 20) if floor else slice(None)
                under = self.leaks.floor(c) if floor else 0.0
                out[c] = float(10 * np.log10(np.mean(env[busy] ** 2))
                               - (under if np.isfinite(under) else 0.0))
            self._over[key] = out
        return self._over[key]

    def _leader(self, own: int, a: int, b: int, talks: Sequence[bool],
                energy: np.ndarray) -> int | None:
        """The mic with a voice of its own (``talks``) whose raw signal ``own``'s, from
        sample ``a`` to ``b`` of ``audio``, is a later copy of (``LEAD_CORRELATION``), the
        loudest (``energy``, dB, the leaks taken out) where several are, followed from copy
        to source; None if it is a copy of none. (The noise of the room reaches every mic
        too, a few samples apart: a mic of noise alone is never taken.)"""
        span = self.audio[a:b].astype(np.float64)
        lags = self.leaks.lags
        best, seen = own, {own}
        while True:
            found = []
            for k in range(self.channels):
                if k in seen or not talks[k]:
                    continue
                corr, lag = _lead(span[:, best], span[:, k], lags)
                if corr < LEAD_CORRELATION or not 1 <= lag <= lags:
                    continue
                known = self.leaks.gain_delay(k, best)
                if known is not None and abs(lag / self.rate - known[1]) > LEAD_AGREE:
                    continue
                found.append((energy[k], k))
            if not found:
                return None if best == own else best
            best = max(found)[1]
            seen.add(best)

    def filter(self, utterances: Iterable[Utterance]) -> list[Utterance]:
        """Attribute each utterance to its loudest channel; drop copies of one
        already accepted there. Call with utterances as they are reported."""
        out = []
        for u in utterances:
            k = self.loudest(u)
            if k != u.channel:
                u = replace(u, channel=k, player=self.players[k] if k < len(self.players)
                            else None)
            if any((v.channel == u.channel or frozenset((v.channel, u.channel)) in self.alike)
                   and v.said == u.said and v.kind == u.kind
                   and v.start < u.end and u.start < v.end for v in self.accepted):
                continue
            self.accepted.append(u)
            out.append(self.timed(u))
        horizon = (self.first / self.rate) - 1.0
        self.accepted = [v for v in self.accepted if v.end >= horizon]
        return out


    def timed(self, u: Utterance) -> Utterance:
        """``u`` with its start and end refined from every channel (see ``refine``)."""
        if self.timer is None or u.kind == "unknown" or not 0 <= u.channel < self.channels:
            return u
        start, end = self.refined(u.channel, u.start, u.end, u.said)
        return replace(u, start=start, end=end)

    def own_voice(self, channel: int, since: float,
                  calls: Sequence[tuple[int, float, float]] = (),
                  over_db: float | None = OWN_OVER_DB) -> tuple[float | None, float]:
        """Where ``channel``'s own voice is first heard at or after ``since`` (seconds):
        the first of ``VOICE_STEPS`` 10 ms steps in a row of its audio, the leaks taken out, with a
        pitch (:func:`referee.hearing.checks.pitch_strength`; clatter, hiss and slaps have none)
        and ``over_db`` over the mic's median level (``OWN_OVER_SPAN``; None: any level),
        but not where another mic is ``CLEAN_COPY_DB`` louder during one of ``calls``
        ((channel, start, end) of what that mic's recogniser reported: what is left of its
        leak, whose copies are dropped), nor within ``OWN_TAIL`` after one of ``channel``'s
        own ``calls`` and ``OWN_TAIL_DB`` under it (the call fading). Returns (that second or
        None, seconds looked at up to)."""
        size, hop = int(0.04 * self.rate), int(0.01 * self.rate)
        level = self.audio if self.clean is None else self.clean
        got = self._voice.get(channel)
        if got is None or got[0] != (since, over_db):
            # [(since, over_db), next sample to look at, (second, level in each mic) of the
            # pitched steps loud enough]
            got = self._voice[channel] = [(since, over_db), int(round(since * self.rate)), []]
        got[1] = max(got[1], self.first)
        if got[1] + size <= self.first + len(level):
            x = level[got[1] - self.first:, channel]
            peak, _ = checks.pitch_strength(x, self.rate)
            steps = np.flatnonzero(peak > VOICE_PITCH)
            if len(steps):
                # the mic's median level over the span before these steps' end
                b = got[1] - self.first + len(peak) * hop + size
                ref = _median_db(level[max(0, b - int(OWN_OVER_SPAN * self.rate)):b, channel],
                                 size, hop)
            for i in steps:
                a = got[1] - self.first + i * hop
                e = np.mean(level[a:a + size].astype(np.float64) ** 2, axis=0) + 1e-12
                db = 10 * np.log10(e)
                if over_db is None or db[channel] >= ref + over_db:
                    got[2].append(((self.first + a) / self.rate, db))
            got[1] += len(peak) * hop
        run: list[float] = []
        # steps are at ``since`` or later: only calls whose tail reaches there can excuse one
        own = [(f, self._call_peak(level, channel, s, f)) for k, s, f in calls
               if k == channel and f + OWN_TAIL >= since]
        for t, db in got[2]:
            if any(k != channel and s - 0.05 <= t <= f + 0.05
                   and db[k] - db[channel] >= CLEAN_COPY_DB for k, s, f in calls):
                continue
            if any(f <= t <= f + OWN_TAIL and db[channel] < peak - OWN_TAIL_DB
                   for f, peak in own):
                continue
            run = (run if run and t - run[-1] < 0.015 else []) + [t]
            if len(run) >= VOICE_STEPS:
                return run[0], got[1] / self.rate
        return None, got[1] / self.rate

    def _call_peak(self, level: np.ndarray, channel: int, start: float, end: float) -> float:
        """The loudest 40 ms (10 ms hop; dB, as :meth:`own_voice` gives steps) of ``channel``
        in ``level`` from ``start`` to ``end`` seconds (-inf when none of it is kept)."""
        key = (channel, start, end)
        if key not in self._peak:
            size, hop = int(0.04 * self.rate), int(0.01 * self.rate)
            a = max(int(start * self.rate) - self.first, 0)
            x = level[a:max(a, int(end * self.rate) - self.first), channel].astype(np.float64)
            if len(x) < size:
                return -math.inf
            e = np.lib.stride_tricks.sliding_window_view(x ** 2, size)[::hop].mean(axis=1)
            horizon = self.first / self.rate
            self._peak = {k: v for k, v in self._peak.items() if k[2] >= horizon}
            self._peak[key] = float(10 * np.log10(e.max() + 1e-12))
        return self._peak[key]

    def refined(self, channel: int, start: float, end: float, said: str = ""
                ) -> tuple[float, float]:
        """The timer's (start, end) for a call ``said`` heard on ``channel`` from ``start``
        to ``end``, on the audio added so far (kept until more is added: the listener asks
        whether a call can be passed on, then times it, on the same audio)."""
        key = (channel, start, end, said, self.first, len(self.audio))
        if self._refined is None or self._refined[0] != key:
            self._refined = (key, self.timer.refine(self.audio, self.first, channel, start, end,
                                                    said))
        return self._refined[1]


def _median_db(x: np.ndarray, size: int, hop: int) -> float:
    """The median power (dB) of ``x``'s ``size``-sample windows ``hop`` apart."""
    if len(x) < size:
        return -math.inf
    c = np.concatenate([[0.0], np.cumsum(x.astype(np.float64) ** 2)])
    a = np.arange(0, len(x) - size + 1, hop)
    return float(np.median(10 * np.log10((c[a + size] - c[a]) / size + 1e-12)))


def _frame_rms(x: np.ndarray, frame: int) -> np.ndarray:
    """RMS of each whole ``frame`` of samples of ``x`` (frames, channels): (n, channels)."""
    n = len(x) // frame
    return np.sqrt(np.mean(x[: n * frame].reshape(n, frame, x.shape[1]) ** 2, axis=1) + 1e-12)


def _similarity(a: np.ndarray, b: np.ndarray, max_lag: int) -> float:
    """Largest normalised cross-correlation of two signals within +-max_lag
    samples: near 1 when ``a`` is a scaled, delayed copy of ``b``."""
    return _lead(a, b, max_lag)[0]


def _lead(a: np.ndarray, b: np.ndarray, max_lag: int) -> tuple[float, int]:
    """The largest normalised cross-correlation of ``a`` and ``b`` within +-max_lag samples,
    and its lag: positive where ``a`` is a later copy of ``b``."""
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    if na == 0 or nb == 0:
        return 0.0, 0
    size = 1 << int(np.ceil(np.log2(len(a) + len(b))))
    c = np.fft.irfft(np.fft.rfft(a, size) * np.conj(np.fft.rfft(b, size)), size)
    lags = np.concatenate([c[: max_lag + 1], c[-max_lag:]])
    j = int(np.argmax(np.abs(lags)))
    return float(abs(lags[j]) / (na * nb)), j if j <= max_lag else j - len(lags)


def attribute(utterances: Iterable[Utterance], audio: np.ndarray, rate: int,
              players: Sequence[str | None] | None = None, **options) -> list[Utterance]:
    """Whole-file cross-talk filtering: ``audio`` shaped (frames, channels)."""
    a = np.asarray(audio)
    ct = CrossTalk(rate, a.shape[1], players, keep=len(a) / rate + 1, **options)
    ct.add_audio(a, 0)
    ordered = sorted(utterances, key=lambda u: (u.end, u.start, u.channel))
    # A channel's own phrase beats a copy reported earlier: judge own-channel
    # utterances (loudest where heard) first.
    own = [u for u in ordered if ct.loudest(u) == u.channel]
    moved = [u for u in ordered if ct.loudest(u) != u.channel]
    kept = ct.filter(own) + ct.filter(moved)
    return sorted(kept, key=lambda u: (u.start, u.channel))
