"""``--array`` on a live device: one mic array of two or more channels in the middle of the
table instead of a mic per player.

:class:`ArraySource` reads every channel of the array (a
:class:`~referee.audio.mic.MicrophoneSource`) in a thread of its own, keeps the last
minutes of it for learning seats, and gives the listener one channel per seat, split block by
block (:class:`~referee.hearing.seats.SeatSplitter`). Until seats are learnt, and while they
are learnt again ("referee seats"), the seat channels are silence: nothing is heard or judged.

:func:`enrol` asks each talker aloud, in turn, to say "NAME here", finds their voice in the
array's audio after the question was spoken, learns the seats, and when two seats are too
alike names the two aloud, asks one to move, and asks both again. See docs/one-device.md.
"""

from __future__ import annotations

import queue
import threading
import time
from typing import Any, Callable, Sequence

import numpy as np

from referee.audio.blocks import Block, Channel
from referee.audio.resampler import StreamResampler
from referee.audio.wav import to_int16
from referee.core.announce import sentence
from referee.core.spoken import spoken_name, spoken_names
from referee.hearing.seats import SeatMap, SeatSplitter, SeatsError, voice_runs

RATE = 16000
"""The rate seats are learnt and split at (:data:`referee.hearing.seats.FRAME` is for it)."""
KEEP = 60.0
"""Seconds of the array's audio kept for learning seats."""
QUIET_AFTER = 0.6
"""Seconds without voice after a name before it is taken as said."""
ANSWER_WITHIN = 8.0
"""Seconds a talker has to say their name once asked."""
ASKS = 3
"""How often a talker is asked for their name before the referee gives up."""
MOVES = 3
"""How often two seats too alike are asked to move before the referee gives up."""


class ArraySource:
    """Seat channels from a live array: ``mic`` gives the array's channels (every channel of
    one device), ``names`` the talkers, one seat channel each, in order. Iterate (from one
    thread) for the seat channels' blocks; :meth:`audio` and :meth:`heard` (any thread) read
    the array's own audio; :meth:`use` gives it seats to split by (None: silence)."""

    def __init__(self, mic: Any, names: Sequence[str], keep: float = KEEP,
                 hear: float | None = None) -> None:
        self.mic = mic
        self.names = list(names)
        self.mics = len(mic.channels)
        if self.mics < 2:
            raise SeatsError(f"an array needs two or more channels; this device has {self.mics}")
        self.hear = hear
        heard = [] if hear is None else [f"{n}/heard" for n in self.names]
        self.channels = [Channel(k, n, "array", k) for k, n in enumerate(self.names + heard)]
        self._keep = int(keep * RATE)
        self._lock = threading.Lock()
        self._raw = np.zeros((0, self.mics), np.float32)
        self._raw_start = 0                 # the index of _raw[0] on the array's clock
        self._pending: list[list[np.ndarray]] = [[] for _ in range(self.mics)]
        self._resamplers: dict[int, StreamResampler | None] = {}
        self._seats: SeatMap | None = None
        self._next: list[SeatMap | None] = []   # seats to switch to, taken by the pump
        self._split: SeatSplitter | None = None
        self._emitted = 0                   # seat samples given out
        self._out: queue.Queue = queue.Queue()
        self._stopped = threading.Event()
        self._pump: threading.Thread | None = None
        self.error: BaseException | None = None

    # -- life cycle -----------------------------------------------------------------
    def start(self) -> "ArraySource":
        if self._pump is None:
            self.mic.start()
            self._pump = threading.Thread(target=self._run, name="referee-array", daemon=True)
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

    # -- seats ----------------------------------------------------------------------
    def use(self, seats: SeatMap | None) -> None:
        """Split by ``seats`` from the samples not yet given out (None: silence until
        seats are given again)."""
        if seats is not None and seats.mics != self.mics:
            raise SeatsError(f"the seats were learnt on {seats.mics} mics; the array has "
                             f"{self.mics}")
        with self._lock:
            self._next.append(seats)

    @property
    def seats(self) -> SeatMap | None:
        return self._seats

    def heard(self) -> int:
        """Samples of the array's audio so far (at :data:`RATE`)."""
        with self._lock:
            return self._raw_start + len(self._raw)

    def audio(self, start: int, end: int) -> np.ndarray:
        """The array's audio from sample ``start`` to ``end`` (what is still kept)."""
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
            self._seats = switch[-1]
            self._split = None if self._seats is None else SeatSplitter(
                self._seats, start=self._emitted, hear=self.hear)
            if self._split is not None:
                x = self.audio(self._emitted, end)
        if self._split is not None:
            y = self._split.feed(x)
        else:         # silence, as far as a split would have given out
            upto = end - SeatSplitter.LAG
            y = np.zeros((max(0, upto - self._emitted), len(self.channels)), np.float32)
        if not len(y):
            return []
        index, self._emitted = self._emitted, self._emitted + len(y)
        s = to_int16(y)
        return [Block(c.index, np.ascontiguousarray(s[:, c.index]), index, RATE, c.player, "array")
                for c in self.channels]


def enrol(source: ArraySource, say: Callable[[str], None], names: Sequence[str],
          notify: Callable[[str], None] | None = None, answer_within: float = ANSWER_WITHIN
          ) -> SeatMap:
    """Ask each of ``names`` aloud to say "NAME here" (``say`` speaks a sentence and
    returns once it is spoken), learn their seats from the array's audio, re-ask two seats
    too alike after asking one of them to move, and start ``source`` splitting by them.
    Raises :class:`SeatsError` when a name is not heard or the seats stay too alike."""
    source.use(None)
    heard: dict[str, np.ndarray] = {}
    todo = list(names)
    for _ in range(MOVES + 1):
        for name in todo:
            heard[name] = _hear_name(source, say, name, answer_within)
        parts = [heard[n] for n in names]
        spans, t = [], 0.0
        for n, x in zip(names, parts):
            spans.append((n, t, t + len(x) / RATE))
            t += len(x) / RATE
        seats = SeatMap.learn(np.concatenate(parts), RATE, spans)
        close = seats.too_close()
        if close is None:
            source.use(seats)
            if notify is not None:
                notify("seats learnt: " + ", ".join(names))
            say(sentence("seats-learnt"))
            return seats
        a, b, share = close
        if notify is not None:
            notify(f"{a} and {b}: seats too alike ({share:.0%} of their names told apart)")
        say(sentence("seats-too-close", players=spoken_names([a, b])))
        todo = [a, b]
    raise SeatsError(f"{a} and {b} sit in directions the array cannot tell apart, after "
                     f"{MOVES} moves")


def seats_by_voice(source: ArraySource, voice: Any, names: Sequence[str],
                   notify: Callable[[str], None]) -> Callable[..., None]:
    """``reseat(first=False)``: learn ``source``'s seats by asking each of ``names`` aloud
    with ``voice`` (a :class:`~referee.voice.speaker.Speaker`). The first time a failure is
    the caller's (exit 2); mid-game ("referee seats") it is said, and the seats learnt before
    are kept."""
    def say(text: str) -> None:
        voice.say(text, urgent=True)
        voice.wait(30)

    def reseat(first: bool = False) -> None:
        before = source.seats
        try:
            enrol(source, say, names, notify)
        except SeatsError as e:
            if first:
                raise
            notify(f"seats not learnt again ({e}); the seats as they were")
            source.use(before)
            say(sentence("seats-kept"))

    return reseat


def _hear_name(source: ArraySource, say: Callable[[str], None], name: str,
               within: float) -> np.ndarray:
    """The array's audio of ``name`` saying their name, asked for aloud."""
    for ask in range(ASKS):
        say(sentence("seat-ask" if ask == 0 else "seat-unheard", player=spoken_name(name)))
        start = source.heard()          # the question has been spoken
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            time.sleep(0.1)
            end = source.heard()
            # the level is judged against a second before the question too: the quiet
            lead = int(RATE)
            a = source.audio(start - lead, end)
            got = len(a) - (end - start)     # samples of the lead there are
            runs = [(s, e) for s, e in voice_runs(a, RATE) if s * RATE >= got - 0.05 * RATE]
            if runs and (end - start) / RATE + got / RATE - runs[0][1] >= QUIET_AFTER:
                s, e = runs[0]
                return a[int(s * RATE): int(e * RATE)]
    raise SeatsError(f"{name}'s name was not heard: asked {ASKS} times to say \"{name} here\"")
