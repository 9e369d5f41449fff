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

from referee.audio.blocks import Block, Channel
from referee.audio.wav import read_wav, resample, to_int16


class RecordingSource:
    """Blocks from WAV files.

    ``players`` names the channels (one name per channel across all files, or None).
    ``rate``: resample every file to this rate (e.g. the recogniser's), or None to keep each
    file's own. ``block_seconds``: the block length. Raises
    :class:`referee.audio.wav.AudioFileError` (a ValueError naming the file) for a file
    it cannot read, ValueError for a wrong number of player names.
    """

    def __init__(self, paths: str | os.PathLike | Sequence[str | os.PathLike],
                 players: Sequence[str | None] | None = None, rate: int | None = None,
                 block_seconds: float = 0.1) -> None:
        if isinstance(paths, (str, os.PathLike)):
            paths = [paths]
        if not paths:
            raise ValueError("no recording given")
        self.block_seconds = block_seconds
        self._data: list[tuple[np.ndarray, int]] = []  # per channel: int16 samples, rate
        self.channels: list[Channel] = []
        for path in paths:
            x, r = read_wav(path)
            if rate is not None and r != rate:
                x = resample(x, r, rate)
                r = rate
            pcm = to_int16(x)
            for c in range(pcm.shape[1]):
                self.channels.append(Channel(len(self.channels), None, os.fspath(path), c))
                self._data.append((np.ascontiguousarray(pcm[:, c]), r))
        if players is not None:
            players = list(players)
            if len(players) != len(self.channels):
                raise ValueError(f"{len(players)} player names for {len(self.channels)} "
                                 f"channel(s) in {', '.join(map(os.fspath, paths))}")
            self.channels = [Channel(c.index, p, c.source, c.source_channel)
                             for c, p in zip(self.channels, players)]
        self._stopped = threading.Event()

    @property
    def duration(self) -> float:
        """Seconds: the longest channel."""
        return max(len(x) / r for x, r in self._data)

    def stop(self) -> None:
        self._stopped.set()

    def __iter__(self) -> Iterator[Block]:
        k = 0
        end = self.duration
        while k * self.block_seconds < end and not self._stopped.is_set():
            t, t_next = k * self.block_seconds, (k + 1) * self.block_seconds
            for ch, (x, r) in zip(self.channels, self._data):
                i0, i1 = int(round(t * r)), min(len(x), int(round(t_next * r)))
                if i1 > i0:
                    yield Block(ch.index, x[i0:i1], i0, r, ch.player, ch.source)
            k += 1

    def __enter__(self) -> "RecordingSource":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
