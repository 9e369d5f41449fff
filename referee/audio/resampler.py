"""Sample-rate conversion of a live stream, block by block.

:class:`StreamResampler` gives, for a signal fed in pieces of any size, exactly the samples
:func:`referee.audio.wav.resample` gives for the whole signal at once (the same polyphase
windowed-sinc filter, no delay): sample ``m`` of the output is at time ``m / dst_rate``
when sample 0 of the input is at time 0. Each call returns the output samples whose
filter taps are all in; ``flush()`` returns the rest at the end of the input.
"""

from __future__ import annotations

import math

import numpy as np

from referee.audio.wav import _filter


class StreamResampler:
    """Resample one channel from ``src_rate`` to ``dst_rate`` as it arrives."""

    def __init__(self, src_rate: int, dst_rate: int, half: int = 16) -> None:
        if src_rate <= 0 or dst_rate <= 0:
            raise ValueError(f"sample rates must be positive: {src_rate} -> {dst_rate}")
        g = math.gcd(int(src_rate), int(dst_rate))
        self.src_rate, self.dst_rate = int(src_rate), int(dst_rate)
        self.up, self.down = self.dst_rate // g, self.src_rate // g
        self.half = half
        self._taps = _filter(self.up, self.down, half)  # (up, 2*half)
        self._buf = np.zeros(0, np.float32)
        self._buf_start = 0  # input index of _buf[0]
        self._n_in = 0  # input samples fed so far
        self._m = 0  # next output index
        self._k = np.arange(2 * half)

    def _base(self, m: np.ndarray | int):
        return (m * self.down + self.half * self.up) // self.up

    def _run(self, m_end: int) -> np.ndarray:
        if m_end <= self._m:
            return np.zeros(0, np.float32)
        m = np.arange(self._m, m_end)
        d = m * self.down + self.half * self.up
        base, phase = d // self.up, d % self.up
        idx = base[:, None] - self._k[None, :] - self._buf_start
        valid = (idx >= 0) & (idx < len(self._buf))
        vals = np.where(valid, self._buf[np.clip(idx, 0, max(0, len(self._buf) - 1))]
                        if len(self._buf) else 0.0, 0.0)
        out = np.einsum("mk,mk->m", self._taps[phase], vals).astype(np.float32)
        self._m = m_end
        # keep only what later outputs can still need
        keep_from = int(self._base(self._m)) - 2 * self.half + 1
        drop = max(0, min(len(self._buf), keep_from - self._buf_start))
        if drop:
            self._buf = self._buf[drop:]
            self._buf_start += drop
        return out

    def process(self, x: np.ndarray) -> np.ndarray:
        """Feed samples (int16 or float in [-1, 1]); returns float32 output samples."""
        a = np.asarray(x)
        a = a.astype(np.float32) / 32768.0 if a.dtype == np.int16 else a.astype(np.float32)
        if self.up == self.down:
            self._n_in += len(a)
            return a.copy()
        self._buf = np.concatenate([self._buf, a])
        self._n_in += len(a)
        # output m is complete once input base(m) has arrived: base(m) <= n_in - 1
        # m*down <= (n_in - 1 - half)*up + up - 1  ->  m <= ((n_in - half)*up - 1) // down
        m_end = max(self._m, ((self._n_in - self.half) * self.up - 1) // self.down + 1)
        return self._run(m_end)

    def flush(self) -> np.ndarray:
        """The remaining output at the end of the input (missing taps read as zeros)."""
        if self.up == self.down:
            return np.zeros(0, np.float32)
        total = int(math.ceil(self._n_in * self.up / self.down))
        return self._run(total)
