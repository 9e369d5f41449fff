"""End to end through the real audio server (issue 29, mode 1): one 4-mic array in the middle
of the table, simulated in a reverberant room (pyroomacoustics, ``array_room``), its sound
played into a 4-channel null sink whose monitor is the referee's only input device.
``referee play stroop --array`` asks each talker aloud for their name, refuses two seats it
cannot tell apart (bob first says his name from ann's side), learns the seats, and referees
rounds said from the seats, with the real PocketSphinx; "referee seats" mid-game learns the
seats again with the game as it stood."""

from __future__ import annotations

import time

import numpy as np
import pytest

from array_room import RATE, piece, said
from live_game import VOICES, Referee, journal_lines, stroop_round

from referee.audio.wav import write_wav

pytest.importorskip("pyroomacoustics")

SINK = "array4"
#: where each talker sits: (azimuth in degrees, metres from the array)
SEATS = {"dealer": (90.0, 0.7), "ann": (210.0, 0.7), "bob": (330.0, 0.7)}
#: bob's first seat, squeezed in at ann's elbow: nearly her direction, which is what the array
#: refuses (talkers 10-30 degrees apart are not: docs/one-device.md, "Refusing seats")
BEHIND_ANN = (212.0, 0.75)


@pytest.fixture(scope="module")
def array(pulse):
    if SINK not in pulse.sinks:
        pulse.add_sink(SINK, 4)
    return pulse


class Room:
    """Pieces of the table's sound as the array hears them, played into the sink."""

    def __init__(self, pulse, tmp_path) -> None:
        self.pulse, self.tmp, self.n = pulse, tmp_path, 0

    def piece(self, lines: list[tuple[str, str, float]], where: dict | None = None) -> np.ndarray:
        """``lines`` = [(who, text, at seconds)], each from their seat in ``where`` (default
        :data:`SEATS`)."""
        self.n += 1
        return piece(self.tmp, [(*(where or SEATS)[who], text, VOICES[who], at)
                                for who, text, at in lines], 4, self.n)

    def play(self, lines, where=None) -> None:
        path = self.tmp / f"piece{self.n + 1}.wav"
        write_wav(path, self.piece(lines, where), RATE)
        self.pulse.play(path, SINK)


def asked(ref: Referee, who: str, count: int = 1, timeout: float = 30.0) -> None:
    """Until the referee has asked ``who`` for their name the ``count``-th time and listens.
    (The question is printed as it begins to be spoken; after a fixed wait from there the
    name came before or just after the referee began to listen, as the machine's load had it:
    docs/one-device.md, "Asking for the seats".)"""
    name = who.capitalize()
    ref.wait_err(f"{name}, please say: {name} here.", timeout, count)
    ref.wait_err(f"listening for {who}:", 20, count)


def test_a_one_channel_device_is_no_array(pulse, tmp_path):
    ref = Referee("play", "stroop", "--players", "ann,bob", "--array", "--devices", "mic1",
                  "--speak-to", "text", data=tmp_path / "data")
    assert ref.finish(30) == 2
    assert ref.stderr.strip().splitlines()[-1] == (
        "referee: --array: the input device mic1 has 1 channel; an array needs two or more")


def race(tmp_path, first, second, margin: float = 0.4) -> list[tuple[str, str, float]]:
    """Two overlapping calls, ``first`` ending ``margin`` seconds before ``second``."""
    d1, d2 = (len(said(tmp_path, text, VOICES[who])) / RATE for who, text in (first, second))
    lag = d2 - margin - d1           # from second's start to first's
    return [(*first, max(0.0, lag)), (*second, max(0.0, -lag))]


def _put_out_by_a_call_nobody_made(data, n: int, player: str, said: str) -> list[str]:
    """The calls other than ``said`` that put ``player`` out in round ``n`` (they said only
    ``said``) when ``said`` was then heard as theirs and judged inactive; else []."""
    _, lines = journal_lines(data)
    judged = [o for o in lines if o["type"] == "judged" and o.get("round") == n
              and o["player"] == player]
    own = [o for o in judged if o["said"] == said]
    others = [o["said"] for o in judged if o["said"] != said and o["outcome"] == "miscall"]
    if own and all(o["outcome"] == "inactive" for o in own) and others:
        return others
    return []


@pytest.mark.slow
def test_a_stroop_game_refereed_live_by_one_array(array, tmp_path):
    pulse, data = array, tmp_path / "data"
    room = Room(pulse, tmp_path)
    rec = pulse.record("speaker")
    ref = Referee("play", "stroop", "--names", "dealer,ann,bob", "--array", "--devices", SINK,
                  "--json", "--speak-to", "speakers", "--engine", "pocketsphinx", data=data)
    try:
        # -- the seats: bob first speaks from behind ann, is refused, moves ---------------
        for who in ("dealer", "ann"):
            asked(ref, who, timeout=60)
            room.play([(who, f"{who} here", 0.0)])
        asked(ref, "bob")
        room.play([("bob", "bob here", 0.0)], where={**SEATS, "bob": BEHIND_ANN})
        ref.wait_err("Ann and Bob, I cannot tell your seats apart", 20)
        for who in ("ann", "bob"):
            asked(ref, who, count=2)
            room.play([(who, f"{who} here", 0.0)])
        ref.wait_err("Seats learnt.", 20)
        time.sleep(0.5)

        # -- the rounds ---------------------------------------------------------------
        # 7D: bob names a court card (out), ann a good card
        r1, t1 = stroop_round(room, ref, data, "seven of diamonds",
                              [("bob", "queen of hearts", 0.0), ("ann", "two of clubs", 1.6)], 1)
        time.sleep(2.5)
        # KD: a race; ann completes her call 0.4 s before bob
        r2, t2 = stroop_round(room, ref, data, "king of diamonds",
                              race(tmp_path, ("ann", "queen of clubs"), ("bob", "ace of clubs")), 2)
        time.sleep(2.5)
        # -- "referee seats": the seats learnt again, the game as it stood -----------------
        room.play([("ann", "referee learn the seats", 0.0)])
        for who in ("dealer", "ann", "bob"):
            asked(ref, who, count=3 if who != "dealer" else 2)
            room.play([(who, f"{who} here", 0.0)])
        ref.wait_err("Seats learnt.", 20, count=2)
        time.sleep(0.5)
        # 9H: bob alone. His call must be heard as his on the seats learnt again; it wins
        # unless a call nobody made put him out first (the dealer's words heard again on his
        # seat's channel, as the array benchmark counts them: docs/one-device.md)
        try:
            r3, t3 = stroop_round(room, ref, data, "nine of hearts",
                                  [("bob", "two of clubs", 0.0)], 3)
        except AssertionError:
            r3, phantom = None, _put_out_by_a_call_nobody_made(data, 3, "bob", "two of clubs")
            if not phantom:
                raise
            print(f"round 3: bob put out by a call nobody made: {phantom}")
        time.sleep(2.0)
        ref.type("end")
        final = ref.wait_objects("final", 1, 20)[0]
        assert ref.finish() == 0, ref.stderr
    finally:
        ref.kill()
        rec.stop()
    stderr = ref.stderr
    assert "Traceback" not in stderr, stderr
    assert (r1["top"], r1["winner"], r1["call"]["said"]) == ("7D", "ann", "two of clubs"), stderr
    assert (r2["top"], r2["winner"]) == ("KD", "ann"), (r2, stderr)
    if r3 is not None:
        assert (r3["top"], r3["winner"]) == ("9H", "bob"), (r3, stderr)
        assert final["rounds"] == 3 and final["scores"]["ann"] > final["scores"]["bob"] > 0, final
    else:
        assert final["scores"]["ann"] > final["scores"]["bob"] == 0, final
    _, lines = journal_lines(data)
    assert lines[0]["setup"]["array"] is True
    outs = [o for o in lines if o["type"] == "out"]
    # bob's miscall put him out in round 1; a call nobody made may put someone out later
    # (the array's seat channels hear some: docs/one-device.md), but not bob in round 1 alone
    assert [(o["round"], o["player"]) for o in outs if o["round"] == 1] == [(1, "bob")], lines
    assert any(o["type"] == "command" and o["command"] == "seats" for o in lines), lines


@pytest.mark.slow
def test_a_goop_shout_heard_live_by_one_array_then_resumed(array, tmp_path):
    """Goop on the array: the seats asked for and learnt, then cai shouts "goop" from his
    seat: cai goops, and the count begins with the first player. The referee is killed;
    `referee resume` listens to the array again and asks for the seats again."""
    pulse, data = array, tmp_path / "data"
    room = Room(pulse, tmp_path)
    seats = {"ann": SEATS["ann"], "bob": SEATS["bob"], "cai": SEATS["dealer"]}
    args = ["--json", "--speak-to", "speakers", "--engine", "pocketsphinx"]
    ref = Referee("play", "goop", "--players", "ann,bob,cai", "--array", "--devices", SINK,
                  *args, data=data)
    try:
        for who in ("ann", "bob", "cai"):
            asked(ref, who, timeout=60)
            room.play([(who, f"{who} here", 0.0)], where=seats)
        ref.wait_err("Seats learnt.", 20)
        time.sleep(1.0)
        room.play([("cai", "goop", 0.0)], where=seats)
        gooped = ref.wait_objects("gooped", 1, 20)[0]
        ref.wait_err("Count!", 20)
    finally:
        ref.kill()
    assert "Traceback" not in ref.stderr, ref.stderr
    assert gooped["goopers"] == ["cai"], (gooped, ref.stderr)
    assert "Count! Ann, how many of your cards are in the centre?" in ref.stderr

    ref2 = Referee("resume", *args, data=data)
    try:
        for who in ("ann", "bob", "cai"):
            asked(ref2, who, timeout=60)
            room.play([(who, f"{who} here", 0.0)], where=seats)
        ref2.wait_err("Seats learnt.", 20)
        ref2.wait_err("Resuming.", 20)
        ref2.type("end")
        ref2.wait_objects("final", 1, 20)
        assert ref2.finish() == 0, ref2.stderr
    finally:
        ref2.kill()
    assert "Traceback" not in ref2.stderr, ref2.stderr
    assert "array of 4 channels (array4)" in ref2.stderr
