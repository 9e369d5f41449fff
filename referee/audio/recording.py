"""Recordings as an audio source: the blocks a microphone source would give, read from WAV
files as fast as they are asked for (``--audio GAME.wav`` runs, tests, benchmarks).

Every channel of every file is one channel of the source, in order (file 1's channels, then
file 2's, ...); all files start at 0 s on the shared clock, as if recorded together. Blocks
come in time order: block k of every channel, then block k+1 of every channel.
"""

from __future__ import annotations

import os
import threading
from typing import Iterator, Sequence

import numpy as np

from referee.audio.blocks import Block, Channel, PlayersError
from referee.audio.resampler import StreamResampler
from referee.audio.wav import WavReader, check_hearable, to_int16


class RecordingSource:
    """Blocks from WAV files, read from disk a block at a time (memory stays flat however
    long the recording).

    ``players`` names the channels (one name per channel across all files, or None).
    ``rate``: resample every file to this rate (e.g. the recogniser's), or None to keep each
    file's own. ``block_seconds``: the block length. ``start``: seconds into the recording
    where the blocks begin (the file is sought there, not read up to it: a resumed game goes
    on where its journal stops), rounded down to a whole block. Raises
    :class:`referee.audio.wav.AudioFileError` (a ValueError naming the file) for a file
    it cannot read or that holds no audio it can hear,
    :class:`~referee.audio.blocks.PlayersError` for a wrong number of player names.
    """

    def __init__(self, paths: str | os.PathLike | Sequence[str | os.PathLike],
                 players: Sequence[str | None] | None = None, rate: int | None = None,
                 block_seconds: float = 0.1, start: float = 0.0) -> None:
        if isinstance(paths, (str, os.PathLike)):
            paths = [paths]
        if not paths:
            raise ValueError("no recording given")
        self.block_seconds = block_seconds
        if not start >= 0:      # also NaN
            raise ValueError(f"a recording starts at 0 s or later, not {start}")
        self._first_block = int(start / block_seconds + 1e-9)
        self._files: list[WavReader] = []
        self.channels: list[Channel] = []
        try:
            for path in paths:
                f = WavReader(path)
                self._files.append(f)
                check_hearable(path, f.frames, f.rate)
                for c in range(f.channels):
                    self.channels.append(Channel(len(self.channels), None, os.fspath(path), c))
        except BaseException:
            self._close_files()
            raise
        self.rate = rate
        if players is not None:
            players = list(players)
            if len(players) != len(self.channels):
                self._close_files()
                raise PlayersError(f"{len(players)} player names for {len(self.channels)} "
                                   f"channel(s) in {', '.join(map(os.fspath, paths))}")
            self.channels = [Channel(c.index, p, c.source, c.source_channel)
                             for c, p in zip(self.channels, players)]
        self._stopped = threading.Event()

    @property
    def duration(self) -> float:
        """Seconds: the longest file."""
        return max(f.frames / f.rate for f in self._files)

    @property
    def start(self) -> float:
        """Seconds: where the blocks begin."""
        return self._first_block * self.block_seconds

    def stop(self) -> None:
        self._stopped.set()

    def _close_files(self) -> None:
        for f in self._files:
            f.close()

    def __iter__(self) -> Iterator[Block]:
        files = [_FileBlocks(f, self.rate, self.start) for f in self._files]
        firsts = [0]
        for f in self._files[:-1]:
            firsts.append(firsts[-1] + f.channels)
        end = self.duration
        k = self._first_block
        while k * self.block_seconds < end and not self._stopped.is_set():
            t, t_next = k * self.block_seconds, (k + 1) * self.block_seconds
            for fb, first in zip(files, firsts):
                i0, pcm = fb.block(t, t_next)
                for c in range(pcm.shape[1]):
                    ch = self.channels[first + c]
                    if len(pcm):
                        yield Block(ch.index, np.ascontiguousarray(pcm[:, c]), i0, fb.rate,
                                    ch.player, ch.source)
            k += 1

    def __enter__(self) -> "RecordingSource":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
        self._close_files()


class _FileBlocks:
    """One file's blocks, at its own rate or resampled as it is read (the stream resampler
    gives the samples a whole-file resampling would)."""

    def __init__(self, f: WavReader, rate: int | None, start: float = 0.0) -> None:
        self.f = f
        self.rate = rate or f.rate
        self._read = 0                      # input frames read so far
        self._out: np.ndarray | None = None  # resampled frames not yet given out
        self._out_first = 0                  # output index of _out[0]
        self._rs = ([StreamResampler(f.rate, self.rate) for _ in range(f.channels)]
                    if self.rate != f.rate else None)
        if self._rs and start > 0:
            # Begin where an input and an output sample fall together (every 1/gcd s), so
            # that the fresh resamplers' output is on the whole file's output grid.
            up, down = self._rs[0].up, self._rs[0].down
            m0 = int(start * self.rate) // up * up
            self._read, self._out_first = m0 // up * down, m0
        self._flushed = False

    def block(self, t: float, t_next: float) -> tuple[int, np.ndarray]:
        """The first output sample's index and the int16 frames from ``t`` to ``t_next``."""
        r = self.rate
        total = int(np.ceil(self.f.frames * r / self.f.rate)) if self._rs else self.f.frames
        i0, i1 = int(round(t * r)), min(total, int(round(t_next * r)))
        if i1 <= i0:
            return i0, np.zeros((0, self.f.channels), np.int16)
        if self._rs is None:
            return i0, self.f.read_pcm16(i0, i1)
        while self._out_first + (0 if self._out is None else len(self._out)) < i1:
            if not self._more():
                break
        if self._out is None:
            return i0, np.zeros((0, self.f.channels), np.int16)
        x = self._out[i0 - self._out_first:i1 - self._out_first]
        self._out = self._out[i1 - self._out_first:]
        self._out_first = i1
        return i0, to_int16(x)

    def _more(self) -> bool:
        step = self.f.rate // 10 or 1
        pcm = self.f.read_pcm16(self._read, self._read + step)
        self._read += len(pcm)
        if len(pcm):
            y = [rs.process(pcm[:, c]) for c, rs in enumerate(self._rs)]
        elif not self._flushed:
            self._flushed = True
            y = [rs.flush() for rs in self._rs]
        else:
            return False
        y = np.stack(y, axis=1)
        self._out = y if self._out is None else np.concatenate([self._out, y])
        return True
