"""One live input device for the whole table (issue 29): ``--array`` and ``--one-mic``.

:class:`LiveSource` reads every channel of the device (a
:class:`~referee.audio.mic.MicrophoneSource`, so device loss and the audio server's restarts
are handled as for any mic) in a thread of its own, keeps the last minutes of it for learning
who is who, and gives the listener the channels a *split* makes of it, block by block. Until
a split is given (:meth:`LiveSource.use`), and while who is who is learnt again, those
channels are silence: nothing is heard or judged. A mic array splits into a channel per seat
(:class:`referee.app.array_live.ArraySource`); one mic passes its channel through
(:class:`PassThrough`). See docs/one-device.md.
"""

from __future__ import annotations

import queue
import threading
import time
from typing import Any, Callable, Protocol, Sequence

import numpy as np

from referee.audio.blocks import Block, Channel
from referee.audio.resampler import StreamResampler
from referee.audio.wav import to_int16
from referee.hearing.seats import quiet_level, voice_runs

RATE = 16000
"""The rate the device's audio is kept and split at."""
KEEP = 60.0
"""Seconds of the device's audio kept for learning who is who."""


class Split(Protocol):
    """The device's samples (frames, mics) in, the listener's channels (frames, channels)
    out, each sample given out once ``LAG`` samples after it are in."""

    LAG: int

    def feed(self, audio: np.ndarray) -> np.ndarray: ...


class PassThrough:
    """One mic's channel as it is: the split of :class:`OneMicSource`."""

    LAG = 0

    def feed(self, audio: np.ndarray) -> np.ndarray:
        return audio[:, :1]


class LiveSource:
    """The listener's ``channels`` made from a live device by a split: ``mic`` gives the
    device's channels. Iterate (from one thread) for the channels' blocks; :meth:`audio`
    and :meth:`heard` (any thread) read the device's own audio; :meth:`use` gives it what to
    split by (None: silence). A subclass makes the split (:meth:`_splitter`)."""

    LAG = 0
    """Samples the split gives out behind what came in (silence is given out as far)."""
    kind = "live"

    def __init__(self, mic: Any, channels: Sequence[Channel], keep: float = KEEP) -> None:
        self.mic = mic
        self.mics = len(mic.channels)
        self.channels = list(channels)
        self._keep = int(keep * RATE)
        self._lock = threading.Lock()
        self._raw = np.zeros((0, self.mics), np.float32)
        self._raw_start = 0                 # the index of _raw[0] on the device's clock
        self._pending: list[list[np.ndarray]] = [[] for _ in range(self.mics)]
        self._resamplers: dict[int, StreamResampler | None] = {}
        self._how: Any = None               # what the split splits by
        self._next: list[Any] = []          # to switch to, taken by the pump
        self._split: Split | None = None
        self._emitted = 0                   # samples given out
        self._out: queue.SimpleQueue = queue.SimpleQueue()    # stop() from a signal handler
        self._stopped = threading.Event()
        self._pump: threading.Thread | None = None
        self.error: BaseException | None = None

    def _splitter(self, how: Any, start: int) -> Split:
        """The split by ``how`` from sample ``start`` on."""
        raise NotImplementedError

    # -- life cycle -----------------------------------------------------------------
    def start(self) -> "LiveSource":
        if self._pump is None:
            self.mic.start()
            self._pump = threading.Thread(target=self._run, name=f"referee-{self.kind}",
                                          daemon=True)
            self._pump.start()
        return self

    def stop(self) -> None:
        self._stopped.set()
        self.mic.stop()
        self._out.put(None)

    def close(self) -> None:
        self.stop()
        self.mic.close()
        if self._pump is not None:
            self._pump.join(5)

    def __iter__(self):
        self.start()
        while True:
            item = self._out.get()
            if item is None:
                break
            if isinstance(item, BaseException):
                raise item
            yield item

    # -- what to split by -----------------------------------------------------------
    def use(self, how: Any) -> None:
        """Split by ``how`` from the samples not yet given out (None: silence until it is
        given again)."""
        with self._lock:
            self._next.append(how)

    def heard(self) -> int:
        """Samples of the device's audio so far (at :data:`RATE`)."""
        with self._lock:
            return self._raw_start + len(self._raw)

    def audio(self, start: int, end: int) -> np.ndarray:
        """The device's audio from sample ``start`` to ``end`` (what is still kept)."""
        with self._lock:
            lo = max(0, start - self._raw_start)
            return self._raw[lo: max(lo, end - self._raw_start)].copy()

    # -- the pump -------------------------------------------------------------------
    def _run(self) -> None:
        try:
            for block in self.mic:
                for b in self._block(block):
                    self._out.put(b)
        except BaseException as e:  # noqa: BLE001 - handed to the listener
            self._out.put(e)
        self._out.put(None)

    def _block(self, block: Block) -> list[Block]:
        ch = block.channel
        if ch not in self._resamplers:
            self._resamplers[ch] = None if block.rate == RATE else StreamResampler(block.rate, RATE)
        rs = self._resamplers[ch]
        x = block.samples if rs is None else to_int16(rs.process(block.samples))
        self._pending[ch].append(np.asarray(x, np.int16))
        n = min(sum(len(p) for p in pend) for pend in self._pending)
        if n == 0:
            return []
        frames = np.empty((n, self.mics), np.float32)
        for c, pend in enumerate(self._pending):
            whole = np.concatenate(pend)
            frames[:, c] = whole[:n] / 32768.0
            self._pending[c] = [whole[n:]] if len(whole) > n else []
        return self._frames(frames)

    def _frames(self, x: np.ndarray) -> list[Block]:
        with self._lock:
            self._raw = np.concatenate([self._raw, x])
            if len(self._raw) > self._keep:
                cut = len(self._raw) - self._keep
                self._raw, self._raw_start = self._raw[cut:], self._raw_start + cut
            end = self._raw_start + len(self._raw)
            switch, self._next = self._next, []
        if switch:       # from the next sample to give out, with the audio kept since then
            self._how = switch[-1]
            self._split = None if self._how is None else self._splitter(self._how, self._emitted)
            if self._split is not None:
                x = self.audio(self._emitted, end)
        if self._split is not None:
            y = self._split.feed(x)
        else:         # silence, as far as a split would have given out
            upto = end - self.LAG
            y = np.zeros((max(0, upto - self._emitted), len(self.channels)), np.float32)
        if not len(y):
            return []
        index, self._emitted = self._emitted, self._emitted + len(y)
        s = to_int16(y)
        return [Block(c.index, np.ascontiguousarray(s[:, c.index]), index, RATE, c.player,
                      self.kind) for c in self.channels]


def hear_answer(source: LiveSource, start: int, within: float,
                done: Callable[[list[tuple[float, float]], float], bool],
                floor: float | None = None, longest: float | None = None
                ) -> tuple[np.ndarray, list[tuple[float, float]]] | None:
    """An answer in ``source``'s audio after sample ``start`` (a question was just spoken),
    as it comes: the audio from a second before ``start`` (the quiet the level is judged by,
    unless ``floor`` gives it: :func:`~referee.hearing.seats.voice_runs`) and the stretches of
    voice after ``start`` in it (seconds), once ``done(stretches, now)`` (``now``: seconds of
    that audio) holds. None when there is no voice ``within`` seconds, or it is not done
    ``longest`` seconds (default ``within``) after ``start``."""
    lead = RATE
    begun = time.monotonic()
    while True:
        time.sleep(0.1)
        waited = time.monotonic() - begun
        end = source.heard()
        a = source.audio(start - lead, end)
        got = len(a) - (end - start)         # samples of the lead there are
        runs = [(s, e) for s, e in voice_runs(a, RATE, floor=floor)
                if s * RATE >= got - 0.05 * RATE]
        if runs and done(runs, len(a) / RATE):
            return a, runs
        if waited >= (within if not runs else max(within, longest or within)):
            return None


def ask_and_hear(source: LiveSource, say: Callable[[str], None], question: str,
                 within: float, done: Callable[[list[tuple[float, float]], float], bool],
                 notify: Callable[[str], None] | None = None, listening: str = "",
                 longest: float | None = None
                 ) -> tuple[np.ndarray, list[tuple[float, float]]] | None:
    """``say`` the ``question`` (it returns once spoken), tell ``notify`` the ``listening``
    line, then :func:`hear_answer`, voice judged against the level of the second before the
    question: an answer is mostly voice, and one said soon after the question made the
    answer's own median level its voice's, so what was taken hung on how soon it came
    (docs/one-device.md, "Asking for the seats")."""
    before = source.heard()
    say(question)
    floor = quiet_level(source.audio(before - RATE, before), RATE)
    if notify is not None and listening:
        notify(listening)
    return hear_answer(source, source.heard(), within, done, floor=floor, longest=longest)


class OneMicSource(LiveSource):
    """``--one-mic`` live: the device's first channel as one channel, ``name`` (the
    listener's stream), silence until :meth:`use` (True) once the voices are learnt."""

    kind = "one-mic"

    def __init__(self, mic: Any, name: str = "table", keep: float = KEEP) -> None:
        super().__init__(mic, [Channel(0, name, self.kind, 0)], keep)

    def _splitter(self, how: Any, start: int) -> Split:
        return PassThrough()
