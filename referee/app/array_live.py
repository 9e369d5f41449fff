"""``--array`` on a live device: one mic array of two or more channels in the middle of the
table instead of a mic per player.

:class:`ArraySource` reads every channel of the array in a thread of its own, keeps the last
minutes of it for learning seats (the pump of :class:`~referee.app.live_source.LiveSource`),
and gives the listener one channel per seat, split block by block
(:class:`~referee.hearing.seats.SeatSplitter`, made for :data:`RATE`). Until seats are learnt, and while they
are learnt again ("referee seats"), the seat channels are silence: nothing is heard or judged.

:func:`enrol` asks each talker aloud, in turn, to say "NAME here", finds their voice in the
array's audio after the question was spoken, learns the seats, and when two seats are too
alike names the two aloud, asks one to move, and asks both again; after :data:`MOVES` moves
the game goes on with the two named. See docs/one-device.md.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Sequence

import numpy as np

from referee.app.live_source import KEEP, RATE, LiveSource, ask_and_hear
from referee.audio.blocks import Channel
from referee.core.announce import sentence
from referee.core.spoken import spoken_name, spoken_names
from referee.hearing.seats import SeatMap, SeatSplitter, SeatsError

QUIET_AFTER = 0.6
"""Seconds without voice after a name before it is taken as said."""
ANSWER_WITHIN = 8.0
"""Seconds a talker has to say their name once asked."""
ASKS = 3
"""How often a talker is asked for their name before the referee gives up."""
MOVES = 3
"""How often two seats too alike are asked to move before the game goes on with them."""


class ArraySource(LiveSource):
    """Seat channels from a live array: ``mic`` gives the array's channels (every channel of
    one device), ``names`` the talkers, one seat channel each, in order (and with ``hear``,
    each seat's channel for its recogniser after them). :meth:`use` gives it seats to split
    by (None: silence); the rest is :class:`~referee.app.live_source.LiveSource`'s."""

    LAG = SeatSplitter.LAG
    kind = "array"

    def __init__(self, mic: Any, names: Sequence[str], keep: float = KEEP,
                 hear: float | None = None) -> None:
        self.names = list(names)
        if len(mic.channels) < 2:
            raise SeatsError(f"an array needs two or more channels; this device has "
                             f"{len(mic.channels)}")
        self.hear = hear
        heard = [] if hear is None else [f"{n}/heard" for n in self.names]
        super().__init__(mic, [Channel(k, n, self.kind, k)
                               for k, n in enumerate(self.names + heard)], keep)

    def use(self, seats: SeatMap | None) -> None:
        """Split by ``seats`` from the samples not yet given out (None: silence until
        seats are given again)."""
        if seats is not None and seats.mics != self.mics:
            raise SeatsError(f"the seats were learnt on {seats.mics} mics; the array has "
                             f"{self.mics}")
        super().use(seats)

    @property
    def seats(self) -> SeatMap | None:
        return self._how

    def _splitter(self, seats: SeatMap, start: int) -> SeatSplitter:
        return SeatSplitter(seats, start=start, hear=self.hear)


def enrol(source: ArraySource, say: Callable[[str], None], names: Sequence[str],
          notify: Callable[[str], None] | None = None, answer_within: float = ANSWER_WITHIN
          ) -> tuple[SeatMap, tuple[str, str] | None]:
    """Ask each of ``names`` aloud to say "NAME here" (``say`` speaks a sentence and
    returns once it is spoken), learn their seats from the array's audio, re-ask two seats
    too alike after asking one of them to move, and start ``source`` splitting by them.
    Returns the seats and the two still too alike after :data:`MOVES` moves (None when
    every seat is told apart): the game goes on with them named, as a recording's does.
    Raises :class:`SeatsError` when a name is not heard."""
    source.use(None)
    heard: dict[str, np.ndarray] = {}
    todo, moves = list(names), 0
    while True:
        for name in todo:
            heard[name] = _hear_name(source, say, name, answer_within, notify)
        parts = [heard[n] for n in names]
        spans, t = [], 0.0
        for n, x in zip(names, parts):
            spans.append((n, t, t + len(x) / RATE))
            t += len(x) / RATE
        seats = SeatMap.learn(np.concatenate(parts), RATE, spans)
        close = seats.too_close()
        if close is None or moves == MOVES:
            source.use(seats)
            if notify is not None:
                notify("seats learnt: " + ", ".join(names))
            if close is None:
                say(sentence("seats-learnt"))
                return seats, None
            # nowhere left to move to, perhaps (a laptop's pair hears only in front of it)
            if notify is not None:
                notify(SeatMap.alike_line(close))
            say(sentence("seats-alike", players=spoken_names(close[:2])))
            return seats, close[:2]
        a, b, share = close
        if notify is not None:
            notify(f"{a} and {b}: seats too alike ({share:.0%} of their names told apart)")
        say(sentence("seats-too-close", players=spoken_names([a, b])))
        todo, moves = [a, b], moves + 1


def seats_by_voice(source: ArraySource, voice: Any, names: Sequence[str],
                   notify: Callable[[str], None],
                   alike: Callable[[Sequence[tuple[str, str]]], None] | None = None
                   ) -> Callable[..., None]:
    """``reseat(first=False)``: learn ``source``'s seats by asking each of ``names`` aloud
    with ``voice`` (a :class:`~referee.voice.speaker.Speaker`), and tell ``alike`` the seats
    still too alike (an empty list: none). The first time a failure is the caller's (exit
    2); mid-game ("referee seats") it is said, and the seats learnt before are kept."""
    def say(text: str) -> None:
        voice.say(text, urgent=True)
        voice.wait(30)

    def reseat(first: bool = False) -> None:
        before = source.seats
        try:
            _, close = enrol(source, say, names, notify)
        except SeatsError as e:
            if first:
                raise
            notify(f"seats not learnt again ({e}); the seats as they were")
            source.use(before)
            say(sentence("seats-kept"))
            return
        if alike is not None:
            alike([] if close is None else [close])

    return reseat


def _hear_name(source: ArraySource, say: Callable[[str], None], name: str,
               within: float, notify: Callable[[str], None] | None = None) -> np.ndarray:
    """The array's audio of ``name`` saying their name, asked for aloud."""
    for ask in range(ASKS):
        _a_second_in(source)
        # the first stretch of voice after the question, then a pause
        heard = ask_and_hear(
            source, say, sentence("seat-ask" if ask == 0 else "seat-unheard",
                                  player=spoken_name(name)),
            within, lambda runs, now: now - runs[0][1] >= QUIET_AFTER,
            notify, f"listening for {name}: \"{name} here\"")
        if heard is not None:
            a, runs = heard
            s, e = runs[0]
            return a[int(s * RATE): int(e * RATE)]
    raise SeatsError(f"{name}'s name was not heard: asked {ASKS} times to say \"{name} here\"")


def _a_second_in(source: ArraySource, wait: float = 2.0) -> None:
    """Until a second of the array's audio is in (the quiet that voice is judged against; at
    the start the first question comes sooner), or ``wait`` seconds on."""
    end = time.monotonic() + wait
    while source.heard() < RATE and time.monotonic() < end:
        time.sleep(0.05)
