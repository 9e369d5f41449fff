"""WAV files in and out, sample-rate conversion, and int16 conversion.

``read_wav`` reads any rate and any channel count, 8/16/24/32-bit integer PCM
and 32/64-bit float WAV (``WAVE_FORMAT_EXTENSIBLE`` included), into a float32
array shaped ``(frames, channels)`` in [-1, 1]. ``resample`` converts the rate
with a windowed-sinc polyphase filter (numpy only), per channel.
"""

from __future__ import annotations

import io
import math
import os
import struct
import wave
from functools import lru_cache
from typing import BinaryIO

import numpy as np

from referee.core.errors import RefereeError

_PCM, _FLOAT, _EXTENSIBLE = 1, 3, 0xFFFE


class AudioFileError(RefereeError, ValueError):
    """A file that is not a WAV this module can read; the message names it."""

    def __init__(self, path: str | os.PathLike, why: str) -> None:
        self.path = str(path)
        super().__init__(f"{self.path}: {why}")


MIN_RATE = 8000
"""The lowest sample rate (Hz) at which speech can be heard."""


def check_hearable(path: str | os.PathLike, frames: int, rate: int) -> None:
    """Raise :class:`AudioFileError` for a recording with no samples or a rate too low
    for speech: it would be heard as nothing, and say nothing."""
    if frames == 0:
        raise AudioFileError(path, "holds no audio (a header and no samples)")
    if rate < MIN_RATE:
        raise AudioFileError(path, f"its sample rate, {rate} Hz, is too low to hear speech "
                                   f"({MIN_RATE} Hz or more)")


def read_wav(path: str | os.PathLike) -> tuple[np.ndarray, int]:
    """Samples shaped ``(frames, channels)``, float32 in [-1, 1], and the rate in Hz."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise AudioFileError(path, f"cannot read ({e.strerror or e})") from None
    return decode_wav(data, path)


def _layout(f: BinaryIO, path: str | os.PathLike) -> tuple[int, int, int, int, int, int]:
    """Read a WAV file's header chunks from ``f`` (seeking past everything else): the format
    tag, channels, rate, bytes per sample, and where the sample data begins and how many
    whole frames it holds."""
    f.seek(0, os.SEEK_END)
    total = f.tell()
    f.seek(0)
    head = f.read(12)
    if len(head) < 12 or head[:4] not in (b"RIFF", b"RF64") or head[8:12] != b"WAVE":
        raise AudioFileError(path, "not a WAV file (no RIFF/WAVE header)")
    fmt = None
    data_at = data_size = None
    pos = 12
    while pos + 8 <= total:
        f.seek(pos)
        cid, size_bytes = f.read(4), f.read(4)
        (size,) = struct.unpack("<I", size_bytes)
        if cid == b"fmt ":
            fmt = f.read(min(size, 64))
        elif cid == b"data":
            data_at = pos + 8
            data_size = size
            if size == 0xFFFFFFFF or data_at + size > total:
                data_size = total - data_at  # streamed / truncated: take what is there
            break
        pos += 8 + size + (size & 1)
    if fmt is None or len(fmt) < 16:
        raise AudioFileError(path, "WAV file has no format chunk")
    if data_at is None:
        raise AudioFileError(path, "WAV file has no data chunk")
    tag, channels, rate, _, align, bits = struct.unpack("<HHIIHH", fmt[:16])
    if tag == _EXTENSIBLE and len(fmt) >= 26:
        (tag,) = struct.unpack("<H", fmt[24:26])
    if channels < 1 or rate < 1:
        raise AudioFileError(path, f"bad WAV header ({channels} channels at {rate} Hz)")
    width = bits // 8
    if bits % 8 or width < 1 or align != width * channels:
        raise AudioFileError(path, f"unsupported sample layout ({bits}-bit, block {align})")
    return tag, channels, rate, width, data_at, data_size // align


def _parse(data: bytes, path: str | os.PathLike) -> tuple[int, int, int, int, bytes]:
    """The format tag, channels, rate, bytes per sample and the whole frames' bytes."""
    tag, channels, rate, width, at, frames = _layout(io.BytesIO(data), path)
    return tag, channels, rate, width, data[at:at + frames * width * channels]


def _samples(raw: bytes, tag: int, width: int, channels: int,
             path: str | os.PathLike) -> np.ndarray:
    """Frames' bytes as float32 (frames, channels) in [-1, 1]."""
    bits = width * 8
    if tag == _PCM:
        if width == 1:
            x = (np.frombuffer(raw, np.uint8).astype(np.float32) - 128.0) / 128.0
        elif width == 2:
            x = np.frombuffer(raw, "<i2").astype(np.float32) / 32768.0
        elif width == 3:
            b = np.frombuffer(raw, np.uint8).reshape(-1, 3).astype(np.int32)
            v = b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16)
            v = np.where(v >= 1 << 23, v - (1 << 24), v)
            x = v.astype(np.float32) / float(1 << 23)
        elif width == 4:
            x = (np.frombuffer(raw, "<i4").astype(np.float64) / 2147483648.0).astype(np.float32)
        else:
            raise AudioFileError(path, f"unsupported PCM sample width: {bits} bits")
    elif tag == _FLOAT:
        if width == 4:
            x = np.frombuffer(raw, "<f4").astype(np.float32)
        elif width == 8:
            x = np.frombuffer(raw, "<f8").astype(np.float32)
        else:
            raise AudioFileError(path, f"unsupported float sample width: {bits} bits")
        x = np.clip(np.nan_to_num(x), -1.0, 1.0)
    else:
        raise AudioFileError(path, f"unsupported WAV encoding (format tag {tag:#x})")
    return np.ascontiguousarray(x.reshape(-1, channels))


def decode_wav(data: bytes, path: str | os.PathLike = "WAV data") -> tuple[np.ndarray, int]:
    """:func:`read_wav` of a WAV file's bytes; ``path`` names it in errors."""
    tag, channels, rate, width, raw = _parse(data, path)
    return _samples(raw, tag, width, channels, path), int(rate)


def read_pcm16(path: str | os.PathLike) -> tuple[np.ndarray, int]:
    """Samples shaped ``(frames, channels)`` as int16 (16-bit PCM exactly as stored; any
    other encoding converted), and the rate in Hz."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise AudioFileError(path, f"cannot read ({e.strerror or e})") from None
    return decode_pcm16(data, path)


def decode_pcm16(data: bytes, path: str | os.PathLike = "WAV data") -> tuple[np.ndarray, int]:
    """:func:`read_pcm16` of a WAV file's bytes."""
    tag, channels, rate, width, raw = _parse(data, path)
    return _pcm16(raw, tag, width, channels, path), int(rate)


def _pcm16(raw: bytes, tag: int, width: int, channels: int, path: str | os.PathLike) -> np.ndarray:
    if tag == _PCM and width == 2:
        return np.frombuffer(raw, "<i2").reshape(-1, channels).copy()
    x = _samples(raw, tag, width, channels, path)
    return np.clip(np.round(x.astype(np.float64) * 32768.0), -32768, 32767).astype(np.int16)


class WavReader:
    """A WAV file read a stretch at a time, so a recording of hours never sits in memory.
    ``frames``, ``channels`` and ``rate`` (Hz) come from its header."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = path
        try:
            self._f = open(path, "rb")
        except OSError as e:
            raise AudioFileError(path, f"cannot read ({e.strerror or e})") from None
        try:
            (self._tag, self.channels, self.rate, self._width, self._at,
             self.frames) = _layout(self._f, path)
        except BaseException:
            self._f.close()
            raise
        _samples(b"", self._tag, self._width, self.channels, path)  # an encoding it can read

    def read_pcm16(self, start: int, stop: int) -> np.ndarray:
        """Frames ``start`` to ``stop`` (clipped to the file) as int16 (frames, channels)."""
        start, stop = max(0, start), min(self.frames, stop)
        if stop <= start:
            return np.zeros((0, self.channels), np.int16)
        align = self._width * self.channels
        self._f.seek(self._at + start * align)
        raw = self._f.read((stop - start) * align)
        return _pcm16(raw[: len(raw) // align * align], self._tag, self._width, self.channels,
                      self.path)

    def close(self) -> None:
        self._f.close()


def write_wav(path: str | os.PathLike, x: np.ndarray, rate: int) -> None:
    """Write float ([-1, 1]) or int16 samples, shaped (frames,) or (frames, channels),
    as 16-bit PCM."""
    a = np.asarray(x)
    with WavWriter(path, rate, channels=1 if a.ndim == 1 else a.shape[1]) as w:
        w.write(a)


class WavWriter:
    """A 16-bit PCM WAV written a piece at a time, ``rate`` in Hertz; the
    header is completed by :meth:`close`. Opening raises OSError."""

    def __init__(self, path: str | os.PathLike, rate: int, channels: int = 1) -> None:
        self.path = os.fspath(path)
        self.channels = int(channels)
        self.frames = 0
        """Frames written so far."""
        self._file = open(path, "wb")
        try:
            self._w = wave.open(self._file, "wb")
            self._w.setnchannels(self.channels)
            self._w.setsampwidth(2)
            self._w.setframerate(int(rate))
        except BaseException:
            self._file.close()
            raise

    def write(self, x: np.ndarray) -> None:
        """Append float ([-1, 1]) or int16 samples, shaped (frames,) or
        (frames, channels)."""
        a = np.asarray(x)
        if a.ndim == 1:
            a = a[:, None]
        pcm = a if a.dtype == np.int16 else to_int16(a)
        self._w.writeframes(np.ascontiguousarray(pcm).astype("<i2").tobytes())
        self.frames += len(pcm)

    def close(self) -> None:
        try:
            self._w.close()
        finally:
            self._file.close()

    def __enter__(self) -> WavWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def to_int16(x: np.ndarray) -> np.ndarray:
    """Float samples in [-1, 1] to int16 (clipped, rounded); int16 passes through."""
    a = np.asarray(x)
    if a.dtype == np.int16:
        return a
    return np.clip(np.round(a.astype(np.float64) * 32767.0), -32768, 32767).astype(np.int16)


@lru_cache(maxsize=16)
def _filter(up: int, down: int, half: int = 16) -> np.ndarray:
    """Polyphase windowed-sinc low-pass, shaped (up, 2*half): row p is phase p."""
    cutoff = 0.475 / max(up, down)  # cycles per sample at the upsampled rate
    n = 2 * half * up
    t = np.arange(n) - half * up  # centred on a whole tap: no fractional delay
    h = 2 * cutoff * np.sinc(2 * cutoff * t) * np.kaiser(n + 1, 8.0)[:n]
    h *= up / h.sum()
    # Tap k of phase p sits at upsampled index k*up + p.
    return h.reshape(2 * half, up).T.copy()


def resample(x: np.ndarray, src_rate: int, dst_rate: int) -> np.ndarray:
    """Convert ``x`` (frames,) or (frames, channels) from ``src_rate`` to ``dst_rate``,
    band-limited, per channel. Returns float32 (float input) or the same shape's
    float32 for int16 input scaled to [-1, 1]."""
    a = np.asarray(x)
    if a.dtype == np.int16:
        a = a.astype(np.float32) / 32768.0
    a = a.astype(np.float32, copy=False)
    if src_rate <= 0 or dst_rate <= 0:
        raise ValueError(f"sample rates must be positive: {src_rate} -> {dst_rate}")
    if src_rate == dst_rate or a.shape[0] == 0:
        return a.copy()
    g = math.gcd(int(src_rate), int(dst_rate))
    up, down = dst_rate // g, src_rate // g
    mono = a.ndim == 1
    if mono:
        a = a[:, None]
    half = 16
    taps = _filter(up, down, half)  # (up, 2*half)
    n_in = a.shape[0]
    n_out = int(math.ceil(n_in * up / down))
    pad = np.zeros((2 * half + 1, a.shape[1]), np.float32)
    padded = np.concatenate([pad, a, pad])
    out = np.empty((n_out, a.shape[1]), np.float32)
    # y[m] = sum_i h[i] u[m*down + c - i], u the zero-stuffed input and c the
    # filter's centre; only taps i = p + k*up (p = (m*down + c) mod up) meet a
    # real sample, x[(m*down + c)//up - k].
    c = half * up
    P = pad.shape[0]
    k = np.arange(2 * half)
    step = 8192
    for s in range(0, n_out, step):
        m = np.arange(s, min(n_out, s + step))
        d = m * down + c
        base, phase = d // up, d % up
        idx = base[:, None] - k[None, :] + P
        out[s:s + len(m)] = np.einsum("mk,mkc->mc", taps[phase], padded[idx])
    return out[:, 0] if mono else out
