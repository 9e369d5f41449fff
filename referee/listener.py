"""The listener: an audio source (microphones or a recording) and a recogniser in, an ordered
stream of :class:`~referee.events.Utterance` and :class:`~referee.events.Heard` events out.

One recogniser stream per channel (one loaded model serves them all). Blocks whose rate
differs from the recogniser's are resampled on the way. Times stay on the source's shared
clock: a channel's recogniser stream starts at the time of the channel's first block.

Cross-talk: with one mic per player, a call is also picked up by the neighbours' mics. An
utterance heard on channel *c* is compared with the level of every channel over the same
span (:func:`referee.hearing.crosstalk` decides, when that module is present; see
``_attribute``). If *c* is within ``margin_db`` of the loudest channel it is *c*'s own and is
passed on at once. Otherwise it is a copy of the loudest channel's speech: it is dropped when
that channel's recogniser reported an overlapping utterance of its own, and otherwise passed
on as the loudest channel's (that recogniser missed it). Deciding a copy waits until every
channel has been decoded ``hold`` seconds past its end. Two players calling at once each
dominate their own mic, so both calls are kept.

Watermarks: ``Heard(stream, upto)`` promises that no later utterance of ``stream`` (the
player's name, or ``ch<index>``) will have a start or end before ``upto``. With cross-talk
filtering any channel's recogniser can produce an utterance for any player, so every
stream's watermark is the smallest of all recognisers' watermarks and of the starts of
utterances still being decided.

Use it synchronously (``for event in listener.events(): ...``, as fast as the source gives
blocks: faster than real time on a recording), or in a thread feeding a queue
(``listener.start(q)``; ``q.get()`` returns events, then ``None`` at the end;
``listener.stop()`` ends it; ``listener.error`` holds an exception that ended it).
"""

from __future__ import annotations

import dataclasses
import math
import queue
import threading
from typing import Any, Iterator, Sequence

import numpy as np

from .audio.blocks import AudioSource, Block, Channel
from .audio.resampler import StreamResampler
from .events import Heard, Utterance

Event = Utterance | Heard


class _Levels:
    """The recent samples of one channel, to measure its level over a span."""

    def __init__(self, keep_seconds: float = 30.0) -> None:
        self.keep = keep_seconds
        self.rate: int | None = None
        self.base = 0  # sample index of _x[0]
        self._x = np.zeros(0, np.float32)
        self.end = 0.0  # seconds: how far audio has arrived

    def add(self, block: Block) -> None:
        if self.rate is None:
            self.rate, self.base = block.rate, block.index
        x = block.samples.astype(np.float32) / 32768.0
        gap = block.index - (self.base + len(self._x))
        if gap > 0:
            x = np.concatenate([np.zeros(gap, np.float32), x])
        elif gap < 0:
            x = x[-gap:]
        self._x = np.concatenate([self._x, x])
        self.end = (self.base + len(self._x)) / self.rate
        excess = len(self._x) - int(self.keep * self.rate)
        if excess > self.rate:  # trim in chunks
            self._x = self._x[excess:]
            self.base += excess

    def db(self, start: float, end: float) -> float:
        """Mean power over [start, end] in dB full scale (-inf for silence or no audio)."""
        if self.rate is None:
            return -math.inf
        i0 = max(0, int(start * self.rate) - self.base)
        i1 = max(i0, min(len(self._x), int(math.ceil(end * self.rate)) - self.base))
        if i1 <= i0:
            return -math.inf
        p = float(np.mean(np.square(self._x[i0:i1], dtype=np.float64)))
        return 10 * math.log10(p) if p > 0 else -math.inf


class Listener:
    """Turns ``source`` blocks into utterance and watermark events with ``recogniser``.

    ``crosstalk``: suppress copies of a call on other players' mics (only matters with
    more than one channel). ``margin_db``: how far below the loudest channel an utterance's
    own channel may be and still count as its own. ``hold``: seconds every channel must be
    decoded past a suspected copy before it is decided.
    """

    def __init__(self, source: AudioSource, recogniser: Any, crosstalk: bool = True,
                 margin_db: float = 6.0, hold: float = 0.25) -> None:
        self.source = source
        self.recogniser = recogniser
        self.channels: list[Channel] = list(source.channels)
        if not self.channels:
            raise ValueError("the source has no channels")
        self.crosstalk = crosstalk and len(self.channels) > 1
        self.margin_db = margin_db
        self.hold = hold
        self.rate = int(recogniser.rate)
        self._streams: dict[int, Any] = {}
        self._resamplers: dict[int, StreamResampler | None] = {}
        self._levels = {c.index: _Levels() for c in self.channels}
        self._pending: list[Utterance] = []  # suspected copies, waiting
        self._recent: list[Utterance] = []  # what each channel's recogniser reported
        self._sent: dict[str, float] = {}  # stream name -> last Heard sent
        self._thread: threading.Thread | None = None
        self.error: BaseException | None = None

    @property
    def stream_names(self) -> list[str]:
        """The ``Heard.stream`` names, one per channel (the player, or ``ch<index>``)."""
        return [c.name for c in self.channels]

    # -- running ----------------------------------------------------------------
    def events(self) -> Iterator[Event]:
        """Utterances and watermarks, as the source is read; ends with the source."""
        last_time = 0.0
        for block in self.source:
            yield from self._block(block)
            last_time = max(last_time, block.end)
        yield from self._finish(last_time)

    def start(self, out: "queue.Queue[Event | None]") -> threading.Thread:
        """Run in a thread, putting events into ``out`` and ``None`` at the end."""
        def run() -> None:
            try:
                for ev in self.events():
                    out.put(ev)
            except BaseException as e:  # handed to the consumer
                self.error = e
            finally:
                out.put(None)

        self._thread = threading.Thread(target=run, name="referee-listener", daemon=True)
        self._thread.start()
        return self._thread

    def stop(self) -> None:
        """Stop the source; the events end soon after (the recognisers are flushed)."""
        self.source.stop()

    def join(self, timeout: float | None = None) -> None:
        if self._thread:
            self._thread.join(timeout)

    # -- internals --------------------------------------------------------------
    def _stream(self, block: Block) -> Any:
        s = self._streams.get(block.channel)
        if s is None:
            ch = self.channels[block.channel]
            s = self.recogniser.stream(start=block.start, channel=ch.index, player=ch.player,
                                       source=ch.source)
            self._streams[block.channel] = s
            self._resamplers[block.channel] = (
                None if block.rate == self.rate else StreamResampler(block.rate, self.rate))
        return s

    def _block(self, block: Block) -> list[Event]:
        stream = self._stream(block)
        self._levels[block.channel].add(block)
        rs = self._resamplers[block.channel]
        samples = block.samples if rs is None else _int16(rs.process(block.samples))
        heard = stream.feed(samples) if len(samples) else []
        out = self._take(heard)
        out += self._decide(final=False)
        out += self._watermarks()
        return out

    def _finish(self, end: float) -> list[Event]:
        heard: list[Utterance] = []
        for ch, stream in self._streams.items():
            rs = self._resamplers[ch]
            if rs is not None:
                tail = rs.flush()
                if len(tail):
                    heard += stream.feed(_int16(tail))
            heard += stream.close()
        out = self._take(heard)
        out += self._decide(final=True)
        end = max([end] + [s.watermark for s in self._streams.values()])
        for c in self.channels:
            out.append(Heard(c.name, end))
        return out

    def _take(self, heard: list[Utterance]) -> list[Event]:
        """New utterances: pass on those that are their channel's own, hold the rest."""
        out: list[Event] = []
        for u in sorted(heard, key=lambda u: (u.end, u.start)):
            self._recent.append(u)
            if not self.crosstalk:
                out.append(u)
            else:
                self._pending.append(u)
        # forget what no decision can need any more
        horizon = min((s.watermark for s in self._streams.values()), default=0.0) - 30.0
        self._recent = [u for u in self._recent if u.end >= horizon]
        return out

    def _decide(self, final: bool) -> list[Event]:
        if not self._pending:
            return []
        decoded = self._decoded()
        out: list[Event] = []
        keep: list[Utterance] = []
        for u in self._pending:
            if not final and min(lv.end for lv in self._levels.values()) < u.end:
                keep.append(u)  # not all channels' audio is in yet
                continue
            verdict = self._attribute(u, decoded, final)
            if verdict is None:
                keep.append(u)
            elif verdict is not False:
                out.append(verdict)
        self._pending = keep
        return out

    def _decoded(self) -> float:
        """Seconds: every channel's recogniser has decoded this far."""
        if len(self._streams) < len(self.channels):
            return 0.0
        return min(s.watermark for s in self._streams.values())

    def _attribute(self, u: Utterance, decoded: float, final: bool) -> Utterance | bool | None:
        """``u`` itself or re-attributed (pass it on), False (a copy: drop), None (wait)."""
        levels = {c: lv.db(u.start, u.end) for c, lv in self._levels.items()}
        loudest = max(levels, key=lambda c: levels[c])
        if loudest == u.channel or levels[u.channel] >= levels[loudest] - self.margin_db:
            return u
        if not final and decoded < u.end + self.hold:
            return None
        for v in self._recent:
            if v.channel == loudest and _overlap(u, v) > 0.3:
                return False  # the loudest mic's recogniser has its own version
        owner = self.channels[loudest]
        return dataclasses.replace(u, channel=owner.index, player=owner.player,
                                   source=owner.source)

    def _watermarks(self) -> list[Event]:
        if len(self._streams) < len(self.channels):
            return []
        if self.crosstalk:
            common = min([self._decoded()] + [u.start for u in self._pending])
            marks = {c.name: common for c in self.channels}
        else:
            marks = {self.channels[ch].name: s.watermark for ch, s in self._streams.items()}
        out: list[Event] = []
        for name, upto in marks.items():
            if upto > self._sent.get(name, -math.inf):
                self._sent[name] = upto
                out.append(Heard(name, upto))
        return out


def _overlap(a: Utterance, b: Utterance) -> float:
    """The overlap of two spans as a fraction of the shorter one."""
    inter = min(a.end, b.end) - max(a.start, b.start)
    shorter = max(1e-3, min(a.end - a.start, b.end - b.start))
    return max(0.0, inter) / shorter


def _int16(x: np.ndarray) -> np.ndarray:
    return np.clip(np.round(x * 32768.0), -32768, 32767).astype(np.int16)
