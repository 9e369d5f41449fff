"""Leaks between the microphones: with one mic per player each voice also reaches the
other mics, a little later and 10 to 22 dB down. :class:`LeakModel` learns, from the audio
itself, a short filter per ordered pair of mics (the leak's gain and delay), and
:class:`LeakCanceller` takes the learnt leaks out of every channel as the audio streams in,
so each recogniser hears its own player's voice with the neighbours' leaks removed.
See docs/timing.md for how the model is learnt and what it does not cover.
"""

from __future__ import annotations

import numpy as np

from referee.hearing import checks

VOICE_HANG = 4
"""Windows after a voiced one that still count as the voice's."""
NOISE_PRIOR = 20
"""Noise-only windows assumed to have put no pair's peak anywhere, before any are seen (a
few windows of a voice's quiet tail are no measure of the room's noise)."""
MAX_GAINS = 2000
"""Windows per pair whose own gain is kept (for the median)."""


class LeakModel:
    """Per ordered pair of channels (k into c), a short filter predicting what of mic k's
    signal reaches mic c: learnt online (:meth:`observe`) by least squares over the
    windows where k's talker talks alone: k's signal is a voice (voiced, ``over_floor`` dB
    over its mic's noise floor), some mic's signal is a clear delayed copy of k's
    (normalised correlation ``min_corr`` or more at a lag of 1 to ``max_delay`` seconds
    with k ahead) and k's is a copy of none. Only the windows that agree on the delay
    count, less as many as the room's noise alone puts there (it reaches every mic, with
    delays of its own); a pair on whose delay too few agree (``agreement``) has no leak."""

    def __init__(self, rate: int, channels: int, max_delay: float = 0.006,
                 window: float = 0.064, min_corr: float = 0.6, taps: int = 5,
                 over_floor: float = 10.0, agreement: float = 0.5) -> None:
        self.rate, self.channels = rate, channels
        self.agreement = agreement
        self.over_floor = over_floor
        self._levels: list[list[float]] = [[] for _ in range(channels)]  # recent windows, dB
        self._count = 0  # windows seen
        self._last_voiced = np.full(channels, -10 ** 9)  # per channel, its last voiced window
        self.lags = max(2, int(round(max_delay * rate)))
        self.window = int(window * rate)
        self.min_corr, self.taps = min_corr, taps
        n = channels
        m = self.lags + 1
        # by the window's own peak lag p: [k, c, p, lag] sum x_c[t] x_k[t-lag], and
        # [k, c, p, j] sum x_k[t] x_k[t-j] over the same windows, and their count
        self.cross = np.zeros((n, n, m, m))
        self.auto = np.zeros((n, n, m, taps))
        self.counts = np.zeros((n, n, m), int)
        self.noise = np.zeros((n, n, m), int)  # [k, c, p]: noise-only windows peaking at p
        self.noise_windows = np.zeros((n, n), int)
        # [k][c]: (peak lag, gain) of each window, the latest MAX_GAINS
        self.gains: list[list[list[tuple[int, float]]]] = [[[] for _ in range(n)]
                                                           for _ in range(n)]
        self._tail = np.zeros((0, channels))  # audio not yet in a window (plus lags before)
        self._size = 1 << int(np.ceil(np.log2(self.window + 2 * self.lags + 1)))

    def observe(self, audio: np.ndarray) -> None:
        """Learn from the next samples (frames, channels), float, consecutive."""
        x = np.concatenate([self._tail, np.asarray(audio, np.float64)])
        L, W = self.lags, self.window
        i = L
        while i + W + L <= len(x):
            self._window(x[i - L:i + W + L])
            i += W
        self._tail = x[i - L:]

    def _window(self, b: np.ndarray) -> None:
        L, W = self.lags, self.window
        a = b[L:L + W]
        e = np.einsum("tc,tc->c", a, a)
        live = e > 1e-7 * W
        level = 10 * np.log10(e / W + 1e-20)
        floor = self._floor(level)
        if live.sum() < 2:
            return
        fa = np.fft.rfft(a, self._size, axis=0)
        fb = np.fft.rfft(b, self._size, axis=0)
        cross, found = {}, set()  # found: (k, c) where c is a clear delayed copy of k
        for k in np.flatnonzero(live):
            for c in np.flatnonzero(live):
                if k == c:
                    continue
                # full[m] = sum_t b_k[t + m] a_c[t], so r[j] is the sum at lag j - L
                full = np.fft.irfft(fb[:, k] * np.conj(fa[:, c]), self._size)[:2 * L + 1]
                r = cross[k, c] = full[::-1]
                ncc = r / np.sqrt(e[k] * e[c])
                j = int(np.argmax(np.abs(ncc)))
                if j - L >= 1 and abs(ncc[j]) >= self.min_corr:
                    found.add((k, c))
        # The talker: copied by another mic and a copy of none. Only its windows count
        # (while k talks, its leaks into c and d are copies of each other too), and in
        # them every other mic's, clear copy or not: a weak leak under the noise looks
        # clear only in windows where the noise happens to add to it, and would come out
        # too loud.
        led = {c for _, c in found}
        # and a voice at its own mic: loud over that mic's floor and voiced (the room's
        # noise, clatter or babble, reaches every mic alike and is a copy too)
        self._count += 1
        for k in np.flatnonzero(live):
            if level[k] >= floor[k] + self.over_floor and self._voiced(a[:, k]):
                self._last_voiced[k] = self._count
        # the unvoiced sounds next to a voice ("six", "hearts") count with it: voiced
        # windows alone, narrow in band, would leave the filter poorly determined
        voice = {k for k in np.flatnonzero(live) if level[k] >= floor[k] + self.over_floor
                 and self._count - self._last_voiced[k] <= VOICE_HANG}
        if not voice:
            # the room's noise alone: where it puts each pair's peak, and how often
            for (k, c), r in cross.items():
                self.noise[k, c, int(np.argmax(np.abs(r[L + 1:]))) + 1] += 1
                self.noise_windows[k, c] += 1
            return
        talkers = {k for k, _ in found if k in voice} - led
        for k in talkers:
            bk = b[:, k]
            acf = [float(bk[L:L + W] @ bk[L - q:L + W - q]) for q in range(self.taps)]
            for c in np.flatnonzero(live):
                if c == k or c in talkers or level[c] > level[k]:
                    continue
                r = cross[k, c]
                p = int(np.argmax(np.abs(r[L + 1:]))) + 1  # k ahead by p samples
                self.cross[k, c, p] += r[L:]
                self.auto[k, c, p] += acf
                self.counts[k, c, p] += 1
                g = self.gains[k][c]
                g.append((p, float(r[L + p] / max(acf[0], 1e-20))))
                if len(g) > 2 * MAX_GAINS:
                    del g[:MAX_GAINS]

    def _floor(self, level: np.ndarray) -> np.ndarray:
        """Per channel, the noise floor: the 10th percentile of its last windows' levels."""
        out = np.empty(self.channels)
        for c in range(self.channels):
            hist = self._levels[c]
            hist.append(float(level[c]))
            if len(hist) > 600:
                del hist[:100]
            out[c] = self.floor(c)
        return out

    def floor(self, c: int) -> float:
        """Channel ``c``'s noise floor in dB (mean square of a 64 ms window): the 10th
        percentile of its last windows' levels, -inf before 20 windows."""
        hist = self._levels[c]
        return float(np.percentile(hist, 10)) if len(hist) >= 20 else -np.inf

    def _voiced(self, x: np.ndarray) -> bool:
        """Whether most 10 ms steps of the window ``x`` have a pitch."""
        peak, _ = checks.pitch_strength(x, self.rate)
        return len(peak) > 0 and np.mean(peak > 0.5) >= 0.5

    def leak(self, k: int, c: int, min_windows: int = 4) -> tuple[int, np.ndarray] | None:
        """(first lag in samples, filter taps) of k's leak into c, or None if not learnt."""
        counts = self.counts[k, c]
        total = counts.sum()
        # the windows that agree on the leak's delay, less those the room's noise alone
        # would put there (it reaches both mics with a delay of its own)
        noise = total * self.noise[k, c] / (self.noise_windows[k, c] + NOISE_PRIOR)
        d = int(np.argmax(np.convolve(counts - noise, np.ones(3), mode="same")))
        near = slice(max(1, d - 1), d + 2)
        agree = float((counts - noise)[near].sum())
        if agree < min_windows or agree < self.agreement * total:
            return None
        r = self.cross[k, c, near].sum(axis=0)
        lo = max(0, min(d - self.taps // 2, len(r) - self.taps))
        acf = self.auto[k, c, near].sum(axis=0)
        toe = acf[np.abs(np.subtract.outer(np.arange(self.taps), np.arange(self.taps)))]
        try:
            h = np.linalg.solve(toe + 1e-9 * acf[0] * np.eye(self.taps), r[lo:lo + self.taps])
        except np.linalg.LinAlgError:
            return None
        # least squares gives the filter's shape; its level is pulled about by the few
        # loudest windows (loud noise reaching both mics, another voice at c), the median
        # window's is not
        kept = [abs(g) for p, g in self.gains[k][c] if near.start <= p < near.stop]
        norm = float(np.sqrt(np.sum(h ** 2)))
        if norm <= 0:
            return None
        if not kept:  # the agreeing windows are older than those whose gains are kept
            return lo, h
        return lo, h * (float(np.median(kept)) / norm)

    def gain_delay(self, k: int, c: int) -> tuple[float, float] | None:
        """The leak of k into c as (gain in dB, delay in seconds), or None."""
        got = self.leak(k, c)
        if got is None:
            return None
        lo, h = got
        j = int(np.argmax(np.abs(h)))
        return 20 * np.log10(max(np.sqrt(np.sum(h ** 2)), 1e-12)), (lo + j) / self.rate

    def own(self, audio: np.ndarray, c: int) -> np.ndarray:
        """Channel ``c`` of ``audio`` (frames, channels) with every learnt leak into it
        subtracted (the first ``lags`` samples lack their history)."""
        x = np.asarray(audio, np.float64)
        y = x[:, c].copy()
        for k in range(self.channels):
            got = None if k == c else self.leak(k, c)
            if got is None:
                continue
            lo, h = got
            pred = np.convolve(x[:, k], np.concatenate([np.zeros(lo), h]))[:len(y)]
            y -= pred
        return y


MAX_LEAK_DB = 6.0
"""dB: a learnt leak louder than this is not taken out. A leak can be louder on the other
mic than on the talker's own when that mic's gain is higher (a leak 10 dB down with mic
gains 6 dB apart either way is 2 dB up), but a mic that hears another player much louder
than its own is in the wrong place, and a wrong filter would put that voice into the
channel instead of taking it out."""


class LeakCanceller:
    """Every channel with the learnt leaks of the other channels subtracted, block by
    block (audio on the shared clock, all channels at once). It only reads ``model``; the
    caller feeds the model the same audio (:meth:`LeakModel.observe`)."""

    def __init__(self, model: LeakModel, refresh: float = 0.5, passes: int = 2) -> None:
        self.model = model
        self.passes = passes
        n = model.channels
        # per pass, the last samples of what it subtracted from (the filters' memory)
        self._history = [np.zeros((model.lags + model.taps, n)) for _ in range(passes)]
        self._filters: dict[tuple[int, int], np.ndarray] = {}
        self._refresh = int(refresh * model.rate)
        self._since = self._refresh  # samples since the filters were last taken

    def process(self, block: np.ndarray) -> np.ndarray:
        """``block`` (frames, channels), float, the samples straight after the previous
        block's: the same shape with the leaks into each channel subtracted."""
        x = np.asarray(block, np.float64)
        if self._since >= self._refresh:
            self._filters = self._learnt()
            self._since = 0
        self._since += len(x)
        # The neighbour's mic holds this mic's own voice too (its leak back), so taking
        # the neighbours' signals out as they are also takes out a faint echo of the
        # neighbours' leaks through each other: a second pass subtracts the leaks as
        # estimated from the first pass's output instead (each pass one order smaller).
        y = x
        for p in range(self.passes):
            full = np.concatenate([self._history[p], y])
            self._history[p] = full[-len(self._history[p]):]
            y = self._subtract(x, full)
        return y

    def _subtract(self, x: np.ndarray, full: np.ndarray) -> np.ndarray:
        h = len(full) - len(x)
        y = x.copy()
        for (k, c), taps in self._filters.items():
            y[:, c] -= np.convolve(full[:, k], taps)[h:h + len(x)]
        return y

    def _learnt(self) -> dict[tuple[int, int], np.ndarray]:
        """Per (k, c), the filter (from lag 0) of k's leak into c, where one is learnt."""
        out = {}
        m = self.model
        for k in range(m.channels):
            for c in range(m.channels):
                got = None if k == c else m.leak(k, c)
                if got is None:
                    continue
                lo, h = got
                if 20 * np.log10(max(float(np.sqrt(np.sum(h ** 2))), 1e-12)) > MAX_LEAK_DB:
                    continue
                out[k, c] = np.concatenate([np.zeros(lo), h])
        return out
