"""The WAV file sink: announcements placed at their audio-clock time in one WAV file, and the
timeline that says where they fall when nothing real plays them."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np

from referee.audio.wav import WavWriter, resample, to_int16
from referee.core.errors import RefereeError
from referee.voice.voices import WAV_RATE, Audio


@dataclass
class _Item:
    n: int
    text: str
    urgent: bool
    at: float
    audio: Audio | None = None
    droppable: bool = False
    cuts_scores: bool = True


class _Timeline:
    """Where announcements fall on the audio clock when nothing real plays
    them (the WAV sink): one at a time, in order asked, urgent ones first;
    an urgent one cuts short a non-urgent one that is playing (unless it is
    droppable and the urgent one does not ``cuts_scores``) and drops the
    droppable ones waiting (into :attr:`dropped`), as the live speaker does.
    Pure bookkeeping, so a recorded game gives the same WAV however fast it
    is processed."""

    def __init__(self):
        self.current: tuple[_Item, float, float] | None = None
        self.pending: list[_Item] = []
        self.dropped: list[_Item] = []
        """Droppable items that an urgent one came before; never placed."""
        self.last_at = 0.0

    def add(self, item: _Item) -> list[tuple[_Item, float, float, bool]]:
        """Add an item with audio; return the items that finished by its time
        as ``(item, start, end, interrupted)``, in order of start."""
        at = max(item.at, self.last_at)
        self.last_at = at
        done = self._advance(at)
        cur = self.current
        if cur and item.urgent and not cur[0].urgent and cur[2] > at and \
                (item.cuts_scores or not cur[0].droppable):
            done.append((cur[0], cur[1], max(at, cur[1]), True))
            self.current = None
        if item.urgent:
            self.dropped += [p for p in self.pending if p.droppable]
            self.pending = [p for p in self.pending if not p.droppable]
            k = next((i for i, p in enumerate(self.pending) if not p.urgent), len(self.pending))
            self.pending.insert(k, item)
        else:
            self.pending.append(item)
        if self.current is None:
            self._start_next(at)
        return done

    def finish(self) -> list[tuple[_Item, float, float, bool]]:
        return self._advance(math.inf)

    def _start_next(self, t: float) -> None:
        if self.pending:
            nxt = self.pending.pop(0)
            start = max(t, nxt.at)
            self.current = (nxt, start, start + nxt.audio.duration)

    def _advance(self, t: float) -> list[tuple[_Item, float, float, bool]]:
        done = []
        while self.current and self.current[2] <= t:
            item, start, end = self.current
            done.append((item, start, end, False))
            self.current = None
            self._start_next(end)
        return done


class SinkError(RefereeError, ValueError):
    """Somewhere announcements cannot go: not speakers, a .wav file or nothing,
    or a file that cannot be written; the message names it."""


class _WavSink:
    """One mono 16-bit WAV; audio is written at its audio-clock position."""

    def __init__(self, path: str, rate: int = WAV_RATE):
        self.rate = rate
        try:
            self._w = WavWriter(path, rate)
        except OSError as e:
            raise SinkError(f"cannot write the announcements to {os.fspath(path)!r}: "
                            f"{e.strerror}") from None

    @property
    def _written(self) -> int:
        """Samples written so far."""
        return self._w.frames

    def _resampled(self, audio: Audio) -> bytes:
        if audio.rate == self.rate:
            return audio.samples
        x = np.frombuffer(audio.samples, dtype="<i2")
        return to_int16(resample(x, audio.rate, self.rate)).astype("<i2").tobytes()

    def silence_until(self, t: float) -> None:
        n = round(t * self.rate) - self._written
        if n > 0:
            self._w.write(np.zeros(n, np.int16))

    def place(self, audio: Audio, start: float, end: float) -> None:
        self.silence_until(start)
        data = self._resampled(audio)
        n = max(0, min(len(data) // 2, round(end * self.rate) - self._written))
        self._w.write(np.frombuffer(data[: 2 * n], dtype="<i2"))

    def close(self) -> None:
        self._w.close()
