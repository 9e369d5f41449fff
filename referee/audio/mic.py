"""Microphones, through sounddevice (PortAudio): one device, one multi-channel device with
a channel per player, or several devices, as one :class:`~referee.audio.blocks.AudioSource`.

Timestamps come from sample counts. With several devices, each device's count is placed on the
one shared clock once, at start: for the first ``align_blocks`` callbacks of every device the
source notes when each callback ran (PortAudio's stream clock, one clock for all streams of a
host API; should a callback come without it, the time the callback ran, for every device,
since two clocks cannot be compared) minus the duration of the samples received so far; the
lowest of that (the first few set aside: :mod:`referee.audio.delivery`) is when the device's
sample 0 was captured, plus the smallest delivery delay.
A device whose sample 0 came 80 ms after the first device's gets its samples numbered from
80 ms. Blocks are held back until every device is placed (about ``align_blocks`` x
``block_seconds``, 1 s), then only sample counts matter: the first deliveries are uneven, and
a second of them places devices within a millisecond (figures, and why not PortAudio's own
ADC time: docs/hearing-decisions.md, "Microphones on one clock"). A busy machine can hold
back every one of a device's first callbacks; for ``refine_blocks`` callbacks more, a device
whose estimate of sample 0 falls is placed again that much earlier (the overlap with what was
given out already is left out), so it is not timed late all game. All game, a device whose
count falls behind the others' (its input lost, PortAudio's overflow; or its clock slower, by
some tens of ppm: about 0.1 s an hour) would have its later sounds come out early: its count is
moved on by as much (``_keep_on_clock``, :class:`~referee.audio.delivery.Lows`). ``drift()``
says how far each device's deliveries moved from where it was placed.
With one device nothing is held back.

sounddevice is passed in (``MicrophoneSource(sd, ...)``) or imported on first use, never at
import of this module: it lists the devices once, when imported. Which devices there are and
which to open (``Input``, ``plan_inputs``, the errors): :mod:`referee.audio.mic_devices`.
"""

from __future__ import annotations

import queue
import threading
import time
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from referee.audio.blocks import Block, Channel
from referee.audio.delivery import INF, LOOK, LOOK_AFTER_LOSS, Lows, Zero
from referee.audio.mic_devices import (Input, MicAbsent, MicError,
                                       check_channels, device_label, load_sounddevice,
                                       query_input)
from referee.audio.mic_keeper import Keeper, end_stream
from referee.core.mics import MicChange


#: Seconds of audio in each block a microphone delivers.
BLOCK_SECONDS = 0.05


class MicrophoneSource:
    """Blocks from live microphones.

    ``inputs`` lists the devices and their channels; the source's channels are those
    channels in order, and ``players`` names them (one name per channel, or None).
    ``rate`` is asked of every device; a device that refuses it is opened at its default
    rate (blocks carry their rate; the listener resamples). ``latency``: the devices' input
    buffering, seconds (or sounddevice's 'low'/'high'); it delays blocks, never their
    times, and too little loses audio when the machine is busy (``overflows``); at 0.2 s
    PulseAudio gives the blocks four at a time, and 0.15 s put devices out of line under
    load (docs/timing.md, session 44). ``notify``,
    if given, is called from the iterating thread with a line for people: once the devices
    are lined up, where each was placed; when one is placed again 2 ms or more earlier
    (``refine_blocks``, see the module); whenever input has overflowed; when a device is
    moved 5 ms or more later to keep it on the shared clock; and when a device is lost or
    back. A lost device's channels get silence until it is back, and ``on_change``
    gets a :class:`~referee.core.mics.MicChange` for each (:mod:`referee.audio.mic_keeper`);
    ``watch``: a :class:`~referee.audio.pulse_watch.PulseWatch` telling which source each
    stream reads, None for none, "auto" for the server's if one answers. Iterate (from
    one thread) to get blocks; ``stop()`` (from any thread) ends the iteration. Use as a
    context manager, or ``start()``/``close()``.
    """

    def __init__(self, sd: Any | None = None, inputs: Sequence[Input] = (Input(),),
                 players: Sequence[str | None] | None = None, rate: int = 16000,
                 block_seconds: float = BLOCK_SECONDS, align_blocks: int = 20,
                 latency: float | str = 0.2, notify: Callable[[str], None] | None = None,
                 on_change: Callable[[MicChange], None] | None = None, watch: Any = "auto",
                 retry_seconds: float = 1.0, refine_blocks: int = 600) -> None:
        self._sd_arg = sd
        self.inputs = list(inputs)
        if not self.inputs:
            raise MicError("no input device given")
        n = sum(len(i.channels) for i in self.inputs)
        players = list(players) if players is not None else [None] * n
        if len(players) != n:
            raise MicError(f"{len(players)} player names for {n} microphone channels")
        self.rate = int(rate)
        self.block_seconds = block_seconds
        self.channels: list[Channel] = []
        self._first_channel: list[int] = []
        k = 0
        for inp in self.inputs:
            self._first_channel.append(k)
            for c in inp.channels:
                self.channels.append(Channel(k, players[k], device_label(inp.device), c))
                k += 1
        # SimpleQueue: its put is reentrant, so stop() may run in a signal handler that lands
        # while this thread waits in get (docs/reliability.md "Ctrl-C while waiting")
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._streams: list[Any] = []
        self._rates: list[int] = []
        n_in = len(self.inputs)
        self._offsets: list[int | None] = [None] * n_in
        self._counts = [0] * n_in  # samples received per input
        self._emitted = [0] * n_in  # samples of each input given out as blocks (or silence)
        self._gen = [0] * n_in  # each input's stream: a reopened one is the next
        # each input's sample 0 from its deliveries (referee.audio.delivery), by PortAudio's
        # stream clock and by time.monotonic() (taken in the callback): the first unless
        # some callback had no stream time (a host API without one), as two clocks cannot
        # be compared
        self._zero_stream = [Zero() for _ in range(n_in)]
        self._zero_mono = [Zero() for _ in range(n_in)]
        self._no_stream_time = False
        self._seen = [0] * n_in  # callbacks per input
        self.refine_blocks = refine_blocks
        # the shared clock's time of sample index 0 when the devices were lined up, and
        # whether it is on the monotonic clock (see _zeros): what placing again aims at
        self._origin: tuple[float, bool] | None = None
        self._held: list[tuple[int, np.ndarray, int]] | None = [] if n_in > 1 else None
        self._hold_deadline: float | None = None
        self._stopped = threading.Event()
        self.align_blocks = align_blocks
        self.latency = latency
        self._overflowed = [0] * n_in  # callbacks that reported lost input, per input
        self._told = 0  # overflows already told to notify
        self._measured = [0] * n_in  # overflows a look was begun after
        self._lows: Lows | None = None  # the look at the devices' deliveries (_keep_on_clock)
        self._lossy: set[int] = set()  # inputs told as lost until moved, or found not late
        self._late: dict[int, float] = {}  # how late the last look found each input
        self.notify = notify
        self._watch = watch
        self._on_change = on_change
        self._retry_seconds = retry_seconds
        self.keeper: Keeper | None = None

    # -- life cycle -----------------------------------------------------------
    def start(self) -> "MicrophoneSource":
        sd = self._sd = load_sounddevice(self._sd_arg)
        if self._watch == "auto":
            from referee.audio.pulse_watch import PulseWatch
            self._watch = PulseWatch.find()
        self.keeper = Keeper(self, self._watch, self._on_change,
                             retry_seconds=self._retry_seconds)
        absent: list[tuple[int, str]] = []
        try:
            for i, inp in enumerate(self.inputs):
                before = self.keeper.before_open()
                try:
                    self._streams.append(self._start_stream(sd, i, inp, before))
                except MicAbsent as e:
                    if len(self.inputs) == 1:
                        raise
                    self._streams.append(None)
                    self._rates.append(self.rate)   # tried at this rate until it is there
                    absent.append((i, str(e)))
                    continue
                self.keeper.opened(i, before)
            if len(absent) == len(self.inputs):
                raise MicError("no microphone could be opened: " + "; ".join(w for _, w in absent))
            for i, why in absent:
                self.keeper.absent(i, why)
            self.keeper.start()
        except Exception:
            self.close()
            raise
        return self

    def _start_stream(self, sd: Any, i: int, inp: Input, before: Any) -> Any:
        stream = self._open(sd, i, inp)
        if not self.keeper.connected(before):
            stream.close()
            raise MicAbsent(f"cannot open input device {device_label(inp.device)}: its source "
                            "on the audio server is not there")
        try:
            stream.start()
        except Exception as e:  # noqa: BLE001 - sd.PortAudioError: the device went meanwhile
            stream.close()
            raise MicAbsent(f"cannot start input device {device_label(inp.device)}: {e}") from None
        return stream

    def _open(self, sd: Any, i: int, inp: Input, rates: Sequence[int] | None = None) -> Any:
        """Input ``i``'s stream, at the first of ``rates`` it takes (default: the source's
        rate, else the device's own)."""
        info = query_input(inp.device, sd)
        need = max(inp.channels) + 1
        check_channels(info, need)
        device = inp.device
        last_error: Exception | None = None
        for rate in rates or dict.fromkeys([self.rate, int(info["default_samplerate"])]):
            try:
                stream = sd.InputStream(
                    device=device, channels=need, samplerate=rate, dtype="int16",
                    blocksize=max(1, int(round(rate * self.block_seconds))),
                    latency=self.latency, callback=self._callback(i, self._gen[i]))
            except Exception as e:  # sd.PortAudioError, ValueError
                last_error = e
                if _rate_refused(e):
                    continue
                # not the rate: the device is not there now (tried at another rate, a
                # missing PulseAudio source opened, and then its start never returned)
                break
            if i == len(self._rates):
                self._rates.append(rate)
            return stream
        raise MicAbsent(f"cannot open input device {info['name']!r}: {last_error}")

    def _callback(self, i: int, gen: int | None = None):
        gen = self._gen[i] if gen is None else gen

        def callback(indata, frames, time_info, status) -> None:
            if gen != self._gen[i] or self._stopped.is_set():
                # ends the stream from its own thread (mic_keeper.end_stream)
                raise self._sd.CallbackAbort
            if status and status.input_overflow:
                self._overflowed[i] += 1
            now = float(getattr(time_info, "currentTime", 0.0) or 0.0)
            self._queue.put((i, gen, indata.copy(), now, time.monotonic()))
        return callback

    def stop(self) -> None:
        self._stopped.set()
        self._queue.put(None)

    def close(self) -> None:
        self.stop()
        if self.keeper is not None:
            self.keeper.close()
        for s in self._streams:
            if s is not None:
                end_stream(s)
        self._streams = []

    def __enter__(self) -> "MicrophoneSource":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    # -- blocks ---------------------------------------------------------------
    def __iter__(self) -> Iterator[Block]:
        if not self._streams and not self._stopped.is_set():
            self.start()
        while not self._stopped.is_set():
            try:
                item = self._queue.get(timeout=0.1)
            except queue.Empty:
                item = ()
            if item is None:
                break
            if self.notify is not None and self.overflows > self._told:
                self._tell_overflow()
            if item and self._held is None and self.keeper.poked:
                # the server changed: look before giving out what it may have moved, a
                # lost mic's copy of another source (docs/reliability.md)
                yield from self.keeper.tick()
            if item and item[1] != self._gen[item[0]]:
                item = ()       # the last deliveries of a stream closed as lost
            if item and self.keeper.placing(item[0]):
                yield from self.keeper.placed(item[0], item[2], item[3], item[4])
                item = ()
            if item:
                i, _, data, now, mono = item
                self.keeper.seen(i, data.shape[0], now, mono)
                self._counts[i] += data.shape[0]
                self._seen[i] += 1
                had = self._counts[i] / self._rates[i]
                self._zero_mono[i].add(mono - had)
                if now > 0:
                    self._zero_stream[i].add(now - had)
                else:
                    self._no_stream_time = True
                if self._held is None:
                    self._place_again(i)
                    self._keep_on_clock(i, (mono if self._no_stream_time else now) - had)
                    yield from self._emit(i, data, self._counts[i])
                    yield from self.keeper.tick()
                    continue
                self._held.append((i, data, self._counts[i]))
            elif self._held is None:
                yield from self.keeper.tick()
            if self._held is not None and self._aligned():
                held, self._held = self._held, None
                if self.notify is not None:
                    self.notify("microphones lined up on one clock: " + ", ".join(
                        f"{self._input_label(i)} {1000 * o / r:+.0f} ms"
                        for i, (o, r) in enumerate(zip(self._offsets, self._rates))
                        if o is not None))
                for i, data, count in held:
                    yield from self._emit(i, data, count)

    @property
    def overflows(self) -> int:
        """How many callbacks reported lost input (the count cannot say how much)."""
        return sum(self._overflowed)

    @property
    def _zeros(self) -> list[float]:
        """Each input's estimate of when its sample 0 was captured, all on one clock."""
        return [z.value for z in (self._zero_mono if self._no_stream_time
                                  else self._zero_stream)]

    def _input_label(self, i: int) -> str:
        """Input ``i`` for people: its players' names, else its device."""
        k = self._first_channel[i]
        names = [c.player for c in self.channels[k:k + len(self.inputs[i].channels)]]
        return "/".join(n for n in names if n) or device_label(self.inputs[i].device)

    def _tell_overflow(self) -> None:
        which = [self._input_label(i) for i, n in enumerate(self._overflowed) if n]
        self._told = n = self.overflows
        self.notify(f"microphone input overflowed ({', '.join(which)}; {n} "
                    "time(s) so far): audio was lost (the machine is too busy); that mic is "
                    "moved back onto the shared clock within a few seconds")

    def _aligned(self) -> bool:
        """Place every input on the shared clock once each has had ``align_blocks``
        callbacks (or after 2 s: an input that gives nothing then starts where it starts)."""
        if self._hold_deadline is None:
            self._hold_deadline = time.monotonic() + 2.0
        ready = all(n >= self.align_blocks or self.keeper.is_absent(i)
                    for i, n in enumerate(self._seen))
        if not ready and time.monotonic() < self._hold_deadline:
            return False
        placed = [z for z in self._zeros if z != INF]
        if not placed:
            return False
        origin = min(placed)
        self._origin = (origin, self._no_stream_time)
        for i, z in enumerate(self._zeros):
            if z != INF:
                self._offsets[i] = int(round((z - origin) * self._rates[i]))
        return True

    def _place_again(self, i: int) -> None:
        """Input ``i``, on its first stream within ``refine_blocks`` callbacks of being lined
        up, numbered earlier by as much as its estimate of sample 0 fell since (never later:
        an estimate only falls); the samples that would overlap those given out are cut."""
        if not self._placed(i) or self._seen[i] > self.align_blocks + self.refine_blocks:
            return
        rate = self._rates[i]
        early = self._offsets[i] - int(round((self._zeros[i] - self._origin[0]) * rate))
        if early <= 0:
            return
        self._offsets[i] -= early
        self._emitted[i] += early
        if early >= rate // 500:
            self._say(f"{self._input_label(i)}'s microphone placed again, "
                      f"{1000 * early / rate:.0f} ms earlier (its first deliveries came late)")

    def _keep_on_clock(self, i: int, value: float) -> None:
        """Input ``i`` delivered, ``value`` its ``t - samples so far / rate``. Every device
        placed on the shared clock is looked at over its next deliveries
        (:class:`~referee.audio.delivery.Lows`, one look after another; after input was lost,
        one begins at once and takes a second): one whose lowest value stands over the lowest
        device's in two looks in a row, by 5 ms or more in both, is numbered early (it lost
        input, or its clock runs slow), and its count is moved on by the less of the two: its
        next block begins with that much silence."""
        window = None
        if self._overflowed[i] > self._measured[i]:
            self._measured[i] = self._overflowed[i]
            self._lossy.add(i)
            self._lows, window = None, LOOK_AFTER_LOSS     # looked at again from now, sooner
        if self._lows is not None and not all(map(self._placed, self._lows.streams)):
            self._lows = None       # a device lost meanwhile: its look would never end
        if self._lows is None:
            placed = [j for j in range(len(self.inputs)) if self._placed(j)]
            if len(placed) < 2:
                return
            self._lows = Lows(placed, window or LOOK)
        if not self._placed(i):
            return
        lows = self._lows.add(i, value - self._origin[0] - self._offsets[i] / self._rates[i])
        if lows is None:
            return
        self._lows, first, before = None, min(lows.values()), self._late
        self._late = {}
        for j, low in lows.items():
            # moved when two looks in a row find it late (one may span a jump in the
            # server's buffering unevenly), by the less of the two
            rate, late = self._rates[j], low - first
            move = int(round(min(late, before.get(j, 0.0)) * rate))
            self._late[j] = late
            if late * rate < rate // 200:
                self._lossy.discard(j)     # a loss that moved it nothing
            if move >= rate // 200:     # input is lost a buffer at a time; under 5 ms: load
                self._counts[j] += move
                self._late[j] -= move / rate
                why = "its input was lost" if j in self._lossy else \
                    "it fell behind the others: a slower clock"
                self._lossy.discard(j)
                self._say(f"{self._input_label(j)}'s microphone moved {1000 * move / rate:.0f} "
                          f"ms later ({why})")

    def _placed(self, i: int) -> bool:
        """Whether input ``i`` is numbered on the shared clock by its first stream's
        deliveries, timed by the clock it was lined up by."""
        return self._origin is not None and self._offsets[i] is not None \
            and self._gen[i] == 0 and self._origin[1] == self._no_stream_time \
            and self.keeper.is_placed(i)

    def _say(self, line: str) -> None:
        if self.notify is not None:
            self.notify(line)

    def _emit(self, i: int, data: np.ndarray, count: int) -> list[Block]:
        """Blocks of input ``i``'s samples whose last is the ``count``-th, cut or padded
        with silence to follow on from what was given out already (after a lost device)."""
        start = count - data.shape[0]
        done = self._emitted[i]
        out: list[Block] = []
        if start > done:
            out += self._blocks(i, np.zeros((start - done, data.shape[1]), np.int16), start)
        elif start < done:
            data = data[done - start:]
        if data.shape[0]:
            out += self._blocks(i, data, count)
        self._emitted[i] = max(done, count)
        return out

    def _blocks(self, i: int, data: np.ndarray, count: int) -> list[Block]:
        """Blocks of input ``i``'s callback whose last sample is the ``count``-th."""
        rate = self._rates[i]
        if self._offsets[i] is None:
            if self._held is None and len(self.inputs) == 1:
                self._offsets[i] = 0
            else:  # a late input: place it by its own arrival times against the others
                origin = min(z for z in self._zeros if z != INF)
                self._offsets[i] = int(round((self._zeros[i] - origin) * rate))
        index = self._offsets[i] + count - data.shape[0]
        if index < 0:
            data = data[-index:]
            index = 0
        if data.shape[0] == 0:
            return []
        inp = self.inputs[i]
        out = []
        for j, c in enumerate(inp.channels):
            ch = self.channels[self._first_channel[i] + j]
            out.append(Block(ch.index, np.ascontiguousarray(data[:, c]), index, rate,
                             ch.player, ch.source))
        return out

    def drift(self) -> list[float]:
        """Seconds per input: how far its delivery-time estimate of sample 0 (the lowest
        value so far) has fallen below the time its sample 0 is numbered by: a clock faster
        than the one it was placed by (the estimate only falls, so this is <= 0)."""
        if any(o is None for o in self._offsets) or self._origin is None:
            return [0.0] * len(self.inputs)
        origin = self._origin[0]
        return [(z - origin) - off / r
                for z, off, r in zip(self._zeros, self._offsets, self._rates)]


def _rate_refused(e: Exception) -> bool:
    """Whether opening a stream failed on its sample rate (PortAudio's paInvalidSampleRate)."""
    return -9997 in getattr(e, "args", ()) or "sample rate" in str(e).lower()
