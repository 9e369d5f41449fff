"""Blocks of samples: what every audio source (microphones, recordings) yields.

A source has one or more *channels*, numbered 0, 1, ... across all its devices or files,
each usually one player's microphone. It yields :class:`Block` objects: int16 mono samples
of one channel, and the index of the first sample on the source's clock. That clock is
shared by every channel: sample ``i`` of any channel (at rate ``r``) is at ``i / r``
seconds from the start of the session or recording, so blocks of different channels
(even from different devices) line up. Times never come from the wall clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Protocol, Sequence

import numpy as np

from referee.core.errors import RefereeError


@dataclass(frozen=True)
class Channel:
    """One channel of a source: where it comes from and whose mic it is."""

    index: int
    """0, 1, ... across the whole source."""
    player: str | None = None
    """The player whose microphone this is, if known."""
    source: str = ""
    """The device or file it comes from."""
    source_channel: int = 0
    """The channel within that device or file (0-based)."""

    @property
    def name(self) -> str:
        """The stream name for watermarks: the player, else ``ch<index>``."""
        return self.player if self.player else f"ch{self.index}"


@dataclass(frozen=True, eq=False)
class Block:
    """Consecutive samples of one channel."""

    channel: int
    """Index of the channel in its source (see :class:`Channel`)."""
    samples: np.ndarray
    """int16, shape (frames,)."""
    index: int
    """The first sample's index on the shared clock (samples at ``rate`` since the start)."""
    rate: int
    """Samples per second."""
    player: str | None = None
    source: str = ""

    @property
    def frames(self) -> int:
        return int(self.samples.shape[0])

    @property
    def start(self) -> float:
        """Seconds on the shared clock: the first sample."""
        return self.index / self.rate

    @property
    def end(self) -> float:
        """Seconds on the shared clock: just after the last sample."""
        return (self.index + self.frames) / self.rate


class AudioSource(Protocol):
    """What the listener reads: microphones (:mod:`referee.audio.mic`) or recordings
    (:mod:`referee.audio.recording`)."""

    channels: Sequence[Channel]

    def __iter__(self) -> Iterator[Block]:
        """Blocks in the order they become available; ends when the source ends or is
        stopped. Within a channel, blocks are consecutive (a gap only after lost input)."""

    def stop(self) -> None:
        """End the iteration soon (from any thread)."""


class PlayersError(RefereeError, ValueError):
    """Player names that are empty, repeated, or not one per channel."""


def parse_players(text: str | None, count: int | None = None) -> list[str | None]:
    """``'ann,bob'`` -> ``['ann', 'bob']``; checks names are unique and, with ``count``,
    that there are that many. ``None`` -> ``[None] * count``."""
    if text is None:
        return [None] * (count or 0)
    names = [n.strip() for n in text.split(",")]
    if any(not n for n in names):
        raise PlayersError(f"empty player name in {text!r}")
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise PlayersError(f"player names must differ: {', '.join(dup)} given twice")
    if count is not None and len(names) != count:
        raise PlayersError(f"{len(names)} player names ({text}) for {count} channels")
    return names
