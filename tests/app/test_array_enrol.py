"""The seats of a live array asked for aloud (``referee.app.array_live``): a real
:class:`ArraySource` on a four-channel device that gives, once a talker is asked for their
name, their "NAME here" as the array hears it from their seat (TTS voices in a simulated
room, ``array_room``), at four times the pace of real time, and silence otherwise, as a null
sink's monitor does. The live test through the audio server (tests/live/test_array_live.py)
covers one move; this one the seats that stay too alike."""

from __future__ import annotations

import queue
import re
import threading
import time

import numpy as np
import pytest

from array_room import RATE, piece

from referee.app.array_live import MOVES, ArraySource, seats_by_voice
from referee.audio.blocks import Block, Channel
from referee.audio.wav import to_int16
from referee.core.announce import sentence

pytest.importorskip("pyroomacoustics")

# paced at four times real time: run beside no live test (tests/conftest.py), like them
pytestmark = pytest.mark.xdist_group("live")

BLOCK = 800
PACE = 4.0
VOICES = {"dealer": "espeak:en-us", "ann": "flite:slt", "bob": "espeak:en-gb+m3"}
#: bob sits at ann's elbow, 2 degrees from her, and has nowhere else to go
SEATS = {"dealer": (90.0, 0.7), "ann": (210.0, 0.7), "bob": (212.0, 0.75)}


class Device:
    """An input device of ``mics`` channels: silence, and the pieces :meth:`play` queues."""

    def __init__(self, mics: int = 4) -> None:
        self.channels = [Channel(k, None, "test-array", k) for k in range(mics)]
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._stopped = threading.Event()

    def play(self, audio: np.ndarray) -> None:
        self._queue.put(audio)

    def start(self) -> None:
        pass

    def stop(self) -> None:
        self._stopped.set()

    close = stop

    def __iter__(self):
        pending, index = np.zeros((0, len(self.channels))), 0
        while not self._stopped.is_set():
            while len(pending) < BLOCK:
                try:
                    pending = np.concatenate([pending, self._queue.get_nowait()])
                except queue.Empty:
                    pending = np.concatenate([pending, np.zeros((BLOCK, len(self.channels)))])
            x, pending = to_int16(pending[:BLOCK]), pending[BLOCK:]
            for c in self.channels:
                yield Block(c.index, np.ascontiguousarray(x[:, c.index]), index, RATE)
            index += BLOCK
            time.sleep(BLOCK / RATE / PACE)


class Voice:
    """The referee's voice at the table: each talker asked for their name says it from their
    seat (the piece queued on the device once the question is said)."""

    def __init__(self, device: Device, pieces: dict[str, np.ndarray]) -> None:
        self.device, self.pieces, self.said = device, pieces, []

    def say(self, text: str, urgent: bool = False) -> None:
        self.said.append(text)
        asked = re.match(r"(\w+), (please say|I did not hear you)", text)
        if asked:
            self.device.play(self.pieces[asked.group(1).lower()])

    def wait(self, timeout: float) -> None:
        pass


def test_seats_that_stay_too_alike_are_named_and_the_game_goes_on(tmp_path):
    pieces = {who: piece(tmp_path, [(*SEATS[who], f"{who} here", VOICES[who], 0.0)], 4, seed)
              for seed, who in enumerate(SEATS)}
    device = Device()
    source = ArraySource(device, list(SEATS)).start()
    voice, lines, told = Voice(device, pieces), [], []
    try:
        reseat = seats_by_voice(source, voice, list(SEATS), lines.append, told.append)
        reseat(first=True)
        until = time.monotonic() + 5
        while source.seats is None and time.monotonic() < until:      # the pump takes them
            time.sleep(0.05)
    finally:
        source.close()
    # bob is asked for his name once, then with ann after each move; nobody is refused
    asks = [t.split(",")[0] for t in voice.said if "please say" in t]
    assert asks == ["Dealer", "Ann", "Bob"] + ["Ann", "Bob"] * MOVES, voice.said
    assert sum("take another seat" in t for t in voice.said) == MOVES
    # then the game goes on, split by the seats, with the two named on screen and aloud
    assert source.seats is not None and source.seats.names == list(SEATS)
    assert voice.said[-1] in (sentence("seats-alike", players="Ann and Bob"),
                              sentence("seats-alike", players="Bob and Ann")), voice.said
    assert re.match("seats too alike: (ann and bob|bob and ann) sit in directions the array "
                    "can hardly tell apart", lines[-1]), lines
    # and the listener is told the pair, so that one call heard on both seats is one call
    assert [sorted(p) for p in told[0]] == [["ann", "bob"]], told
