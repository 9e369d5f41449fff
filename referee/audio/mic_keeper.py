"""Keeping microphones through device loss: the part of
:class:`~referee.audio.mic.MicrophoneSource` that notices a device lost, feeds silence in its
place, opens it again when it returns and puts its samples back on the shared clock.

A device is lost when the audio server says its stream no longer reads the source it was
opened on (the server moved it to the default source, so it would hear another mic), its
stream is gone, the server does not answer (:mod:`referee.audio.pulse_watch`), or, with no
server to ask, its stream stopped or gave nothing for ``stall_seconds``. Its stream is then
closed, and its channels get silence at the pace of the wall clock: the other mics' calls
are still judged, and nothing is heard from the lost one. Every ``retry_seconds`` it is
opened again (once its source is back, when the server can say). The new stream's first
``place_blocks`` deliveries (a second) place its sample 0 on the input's own sample count, as the
source places devices at start (the smallest "arrival less samples received" is the
capture time of sample 0 plus the smallest delivery delay, on both streams); the silence fed
meanwhile is cut or padded to meet it, so the channel stays one gapless run of samples.

A device that cannot be opened when the source starts (its source not there yet) is
*absent*: its channels get silence from the shared clock's sample 0, and it is tried again
as a lost one (with a server to ask, only when the server's sources changed since the last
try: a failed open prints ALSA's errors); its first stream is placed against that sample 0.

Each change goes to ``notify`` (a line for people) and ``on_change``
(a :class:`~referee.core.mics.MicChange` per channel of the device).
"""

from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np

from referee.audio.delivery import INF, Zero
from referee.core.mics import MicChange

OK, LOST, PLACING = "ok", "lost", "placing"


class Keeper:
    """Loss and return of each input of ``source`` (a MicrophoneSource, whose internals it
    shares); ``watch`` is a :class:`~referee.audio.pulse_watch.PulseWatch` or None."""

    def __init__(self, source: Any, watch: Any, on_change: Callable[[MicChange], None] | None,
                 stall_seconds: float = 1.0, retry_seconds: float = 1.0,
                 place_blocks: int = 20, check_seconds: float = 2.0,
                 refine_blocks: int = 200) -> None:
        self.src = source
        self.watch = watch
        self.on_change = on_change
        self.stall_seconds = stall_seconds
        self.retry_seconds = retry_seconds
        self.place_blocks = place_blocks
        self.check_seconds = check_seconds
        self.refine_blocks = refine_blocks
        n = len(source.inputs)
        self.state = [OK] * n
        self.output: list[int | None] = [None] * n   # the server's index of each stream
        self.source_name: list[str | None] = [None] * n   # the source each was opened on
        self.last_seen = [time.monotonic()] * n
        self._held: list[list[np.ndarray]] = [[] for _ in range(n)]
        self._had = [0] * n
        self._zero = [Zero() for _ in range(n)]   # a reopened stream's sample 0, monotonic
        self._zero_stream = [Zero() for _ in range(n)]    # ... and on PortAudio's stream clock
        self._refine = [0] * n      # deliveries of a placed stream still used to refine it
        self._placed_at = [0.0] * n     # the sample 0 estimate it was placed by
        self._ref: list[tuple[float, float]] = [(0.0, 0.0)] * n
        """Each input's sample 0 estimate (lined-up clock, monotonic clock) when it was lost:
        a reopened stream is placed against these (the live ones would take in its own
        deliveries)."""
        self._absent = [False] * n
        """Not opened yet: missing when the source started."""
        self._tried: list[frozenset | None] = [None] * n
        """An absent input's last try: the server's sources then."""
        self._poked = False
        self._next_check = time.monotonic() + check_seconds
        self._next_try = 0.0

    # -- opening ------------------------------------------------------------------
    def before_open(self) -> Any:
        return self.watch.snapshot() if self.watch is not None else None

    def connected(self, before: Any) -> bool:
        """Whether a stream just opened reads from the server (asked when there is one). An
        ALSA device of the server whose source is missing can open without a server stream,
        and its start then never returns (docs/reliability.md)."""
        if self.watch is None or before is None:
            return True
        after = self.watch.snapshot()
        return after is None or bool(set(after.outputs) - set(before.outputs))

    def opened(self, i: int, before: Any) -> None:
        """Input ``i``'s stream was started: learn which server stream it is, and on which
        source (a reopened one is moved back to its source if the server put it elsewhere)."""
        self.last_seen[i] = time.monotonic()
        if self.watch is None or before is None:
            return
        after = self.watch.snapshot()
        new = set(after.outputs) - set(before.outputs) if after is not None else set()
        if len(new) != 1:
            return      # not told apart from another stream: watched by its flow only
        out = new.pop()
        self.output[i] = out
        name = after.source_of(out)
        if self.source_name[i] is None:
            self.source_name[i] = name
        elif name != self.source_name[i]:
            self.watch.move(out, self.source_name[i])

    def absent(self, i: int, why: str) -> None:
        """Input ``i`` could not be opened at start: silence for it, and tries, from now."""
        self._absent[i] = True
        self.state[i] = LOST
        self._next_try = time.monotonic() + self.retry_seconds
        snap = self.before_open()
        self._tried[i] = frozenset(snap.sources.values()) if snap is not None else None
        self.src._say(f"{self.src._input_label(i)}'s microphone is not there ({why}); trying "
                      f"it every {self.retry_seconds:g} s")
        self._tell(i, True, 0.0, why, True)

    def is_absent(self, i: int) -> bool:
        return self._absent[i]

    def is_placed(self, i: int) -> bool:
        """Whether input ``i`` is on the stream it was lined up with at start, still
        delivering (a reopened one is placed by :meth:`seen`)."""
        return self.state[i] == OK and not self._absent[i]

    def start(self) -> None:
        if self.watch is not None:
            self.watch.subscribe(self.poke)

    @property
    def poked(self) -> bool:
        """Whether the server changed since the last look."""
        return self._poked

    def poke(self) -> None:
        """From the watch's thread: something changed on the server."""
        self._poked = True
        self.src._queue.put(())

    def close(self) -> None:
        if self.watch is not None:
            self.watch.close()

    # -- each pass of the source's loop -------------------------------------------------
    def seen(self, i: int, frames: int, now: float, mono: float) -> None:
        """Input ``i`` delivered ``frames`` samples at ``mono`` (taken in its callback;
        ``now``: PortAudio's stream time). A stream placed after its return is placed again
        while its estimate of sample 0 improves: the samples that would overlap what was
        given out already are left out (a millisecond or so, once or twice)."""
        self.last_seen[i] = mono
        if self._refine[i] <= 0:
            return
        self._refine[i] -= 1
        zero = self._estimate(i, frames, now, mono)
        early = int(round((self._placed_at[i] - zero) * self.src._rates[i]))
        if early > 0:
            self.src._counts[i] -= early
            self._placed_at[i] = zero

    def _estimate(self, i: int, frames: int, now: float, mono: float) -> float:
        """Take a reopened stream's delivery into its estimate of sample 0; the estimate,
        on the clock the devices were lined up by."""
        src = self.src
        rate = src._rates[i]
        self._had[i] += frames
        zero = self._zero[i].add(mono - self._had[i] / rate)
        if now > 0:
            self._zero_stream[i].add(now - self._had[i] / rate)
        lined_up, mono_ref = self._ref[i]
        if src._no_stream_time or self._zero_stream[i].value == INF or lined_up == INF:
            return zero - mono_ref
        return self._zero_stream[i].value - lined_up

    def placing(self, i: int) -> bool:
        return self.state[i] == PLACING

    def tick(self) -> list:
        """Look for lost devices, feed silence for those lost, try them again when due.
        Nothing once the source is stopped: its streams end then (their callbacks abort),
        which is no device lost."""
        if self.src._stopped.is_set():
            return []
        now = time.monotonic()
        out: list = []
        stopped = any(self.state[i] == OK and _ended(st) for i, st in enumerate(self.src._streams))
        # a stream that stopped: the server is asked first, so a loss it explains (the server
        # gone, the source gone) is told as such rather than as a stream that stopped
        if self._poked or now >= self._next_check or stopped:
            self._poked = False
            self._next_check = now + self.check_seconds
            self._check_server(now)
        for i, st in enumerate(self.src._streams):
            if self.state[i] != OK:
                continue
            if _ended(st):
                self.lose(i, "its stream stopped", now)
            # (with deliveries still queued, a busy listener is late, not the device)
            elif now - self.last_seen[i] > self.stall_seconds and self.src._queue.empty():
                self.lose(i, f"nothing came from it for {self.stall_seconds:g} s", now)
        for i, state in enumerate(self.state):
            if state != OK:
                out += self._silence(i, now)
        if LOST in self.state and now >= self._next_try:
            self._next_try = now + self.retry_seconds
            for i, state in enumerate(self.state):
                if state == LOST:
                    self._reopen(i, now)
        return out

    def _check_server(self, now: float) -> None:
        if self.watch is None or not any(o is not None for o in self.output):
            return
        snap = self.watch.snapshot() or self.watch.snapshot()   # once more: a busy server, not gone
        for i, out in enumerate(self.output):
            if out is None or self.state[i] == LOST:
                continue
            if snap is None:
                self.lose(i, "the audio server went away", now)
                continue
            name = snap.source_of(out)
            if name is None:
                self.lose(i, "the audio server ended its stream", now)
            elif name != self.source_name[i]:
                # the server moves a stream when its source goes (the move is seen before the
                # source is gone); moved by hand, it is taken back when tried again
                self.lose(i, f"its source {self.source_name[i]} went away", now)

    # -- lost -----------------------------------------------------------------------
    def lose(self, i: int, why: str, now: float) -> None:
        src = self.src
        st, src._streams[i] = src._streams[i], None
        src._gen[i] += 1        # whatever the old stream still delivers is dropped
        if st is not None:
            end_stream(st)
        if self.state[i] == OK:
            self._ref[i] = (src._zeros[i], src._zero_mono[i].value)
        self._refine[i] = 0
        self.state[i] = LOST
        self.output[i] = None
        self._next_try = now + self.retry_seconds
        at = (src._offsets[i] or 0) + src._emitted[i]
        src._say(f"lost {src._input_label(i)}'s microphone ({why}); trying it again every "
                 f"{self.retry_seconds:g} s")
        self._tell(i, True, at / src._rates[i], why)

    def _silence(self, i: int, now: float) -> list:
        """Silence for a lost input up to where its samples would be now."""
        src = self.src
        rate = src._rates[i]
        if src._zero_mono[i].value == INF and not self._anchor(i):
            return []
        target = int((now - src._zero_mono[i].value) * rate)
        size = max(1, int(round(rate * src.block_seconds)))
        width = max(src.inputs[i].channels) + 1
        out = []
        while target - src._emitted[i] >= size:
            end = src._emitted[i] + size
            out += src._emit(i, np.zeros((size, width), np.int16), end)
        return out

    def _anchor(self, i: int) -> bool:
        """An absent input's sample 0: the shared clock's, once the others are lined up."""
        src = self.src
        mono = [z.value for z in src._zero_mono if z.value != INF]
        if not self._absent[i] or src._held is not None or not mono:
            return False
        src._zero_mono[i] = Zero(min(mono))
        src._zero_stream[i] = Zero(min(z.value for z in src._zero_stream))
        src._offsets[i] = 0
        self._ref[i] = (src._zeros[i], src._zero_mono[i].value)
        return True

    def _reopen(self, i: int, now: float) -> None:
        src = self.src
        before = self.before_open()
        if self.watch is not None:
            if before is None:
                return      # the server is not back
            if self.source_name[i] and self.source_name[i] not in before.sources.values():
                return      # its source is not back
            sources = frozenset(before.sources.values())
            if self._absent[i] and sources == self._tried[i]:
                return      # no new source since the last try
            self._tried[i] = sources
        try:
            st = src._open(src._sd, i, src.inputs[i], [src._rates[i]])
        except Exception:  # noqa: BLE001 - MicError, PortAudioError: not back yet
            return
        if not self.connected(before):
            st.close()
            return
        try:
            st.start()
        except Exception:  # noqa: BLE001
            try:
                st.close()
            except Exception:  # noqa: BLE001
                pass
            return
        src._streams[i] = st
        self.state[i] = PLACING
        self._held[i], self._had[i] = [], 0
        self._zero[i], self._zero_stream[i] = Zero(), Zero()
        self.opened(i, before)

    # -- back -----------------------------------------------------------------------
    def placed(self, i: int, data: np.ndarray, now: float, mono: float) -> list:
        """A delivery of a reopened stream: held until it can be placed, then the held
        samples as blocks, on the input's own count."""
        src = self.src
        rate = src._rates[i]
        self.last_seen[i] = mono
        self._held[i].append(data)
        zero = self._estimate(i, data.shape[0], now, mono)
        if len(self._held[i]) < self.place_blocks:
            return []
        base = int(round(zero * rate))
        self._placed_at[i], self._refine[i] = zero, self.refine_blocks
        end = base + self._had[i]
        src._counts[i] = end
        first = max(base, src._emitted[i])
        self.state[i] = OK
        held, self._held[i] = np.concatenate(self._held[i]), []
        out = src._emit(i, held, end)
        first_time, self._absent[i] = self._absent[i], False
        src._say(f"listening {'on' if first_time else 'again on'} {src._input_label(i)}'s microphone")
        self._tell(i, False, ((src._offsets[i] or 0) + first) / rate, "", first_time)
        return out

    def _tell(self, i: int, lost: bool, at: float, why: str, at_start: bool = False) -> None:
        if self.on_change is None:
            return
        src = self.src
        k = src._first_channel[i]
        for ch in src.channels[k:k + len(src.inputs[i].channels)]:
            self.on_change(MicChange(ch.name, lost, at, why, at_start))


def _ended(stream: Any) -> bool:
    """Whether an input's stream is gone or no longer active."""
    return stream is None or not getattr(stream, "active", True)


def end_stream(stream: Any, wait: float = 0.2) -> None:
    """Close a stream whose callback has been told to end it (it raises CallbackAbort once
    its input is stopped or lost): wait up to ``wait`` s for that, then abort and close.
    PortAudio's abort of a stream whose callback still runs cancels the callback's thread
    (pthread_cancel), in Python or numpy code; the referee then died now and then at the
    end of a game ("terminate called without an active exception", docs/reliability.md).
    Not stop(): it can wait on the host API."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            if not stream.active:
                break
        except Exception:  # noqa: BLE001 - a dead device: abort it anyway
            break
        time.sleep(0.005)
    for end in (stream.abort, stream.close):
        try:
            end()
        except Exception:  # noqa: BLE001 - a dead device may fail to close; it is dropped
            pass
