"""A microphone lost and back, through a real PulseAudio server of this module's own (it is
crashed and restarted here): the lost mic is told, its channel is silence while it is out
(though the server moves its stream to the default source, which here carries a tone), the
other mics go on, and when it is back its samples are on the shared clock again."""

from __future__ import annotations

import sys
import time

import numpy as np
import pytest

from pulse import PulseServer, serving
from test_mic import beeps_wav, capture, onsets

from referee.audio.mic import MicrophoneSource
from referee.audio.mic_devices import Input
from referee.audio.wav import write_wav

pytestmark = pytest.mark.live
RATE = 16000
MICS = {"ann": "lossy_ann", "bob": "lossy_bob"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A private server (the session's is left alone): ``lossy`` split into two mics; the
    default source is ``mic1``'s monitor."""
    srv = PulseServer(tmp_path_factory.mktemp("lossy-pulse"))
    with serving(srv, [("mic1", 1), ("speaker", 2)], default_sink="speaker",
                 default_source="mic1.monitor"):
        srv.add_split_sink("lossy", list(MICS.values()))
        if "sounddevice" in sys.modules:    # imported by an earlier test: list lossy_* too
            PulseServer.refresh_sounddevice()
        yield srv
    if "sounddevice" in sys.modules:    # the session's server's devices again
        PulseServer.refresh_sounddevice()


def both_beeps(path, at):
    """A 2-channel file: the same beeps in both channels (both mics hear them at once)."""
    x = np.zeros(int((max(at) + 0.6) * RATE), np.float64)
    for a in at:
        t = np.arange(int(0.2 * RATE)) / RATE
        x[int(a * RATE):int(a * RATE) + len(t)] = 0.5 * np.sin(2 * np.pi * 800 * t)
    write_wav(path, np.stack([x, x], axis=1), RATE)
    return path


def source(changes, told):
    return MicrophoneSource(inputs=[Input(MICS["ann"]), Input(MICS["bob"])],
                            players=["ann", "bob"], notify=told.append, on_change=changes.append)


def wait(pred, timeout=15.0):
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_an_unplugged_mic_is_silence_until_it_is_back_on_the_clock(server, tmp_path):
    changes, told = [], []
    src = source(changes, told)
    tone = beeps_wav(tmp_path / "tone.wav", at=(0.2,), seconds=1.5)
    beeps = both_beeps(tmp_path / "both.wav", at=(0.3,))

    def act():
        time.sleep(2.0)                       # lined up
        server.unplug(MICS["bob"])
        wait(lambda: any(c.lost for c in changes))
        server.play(tone, "mic1")             # the default source, where bob's stream went
        server.play(beeps, "lossy")           # ann still hears; bob's mic is unplugged
        server.plug(MICS["bob"])
        wait(lambda: any(not c.lost for c in changes))
        time.sleep(2.0)
        server.play(beeps, "lossy")           # both hear it, on one clock

    x = capture(src, act, after=1.0)          # capture checks every channel is gapless
    lost = [c for c in changes if c.lost]
    back = [c for c in changes if not c.lost]
    assert [(c.stream, c.why) for c in lost] == [("bob", "its source lossy_bob went away")], changes
    assert [c.stream for c in back] == ["bob"] and back[0].at > lost[0].at
    assert any(t.startswith("lost bob's microphone (its source lossy_bob went away)") for t in told), told
    assert "listening again on bob's microphone" in told
    a, b = lost[0].at, back[0].at
    ia, ib = int(a * RATE) + RATE // 10, int(b * RATE)
    assert np.abs(x[1][ia:ib]).max() == 0.0           # not the tone of the default source
    assert np.abs(x[0][ia:ib]).max() > 0.1            # ann's mic heard the beeps meanwhile
    on_ann, on_bob = onsets(x[0]), onsets(x[1][ib:])
    assert len(on_bob) == 1, on_bob
    after = [t for t in on_ann if t > b]
    assert len(after) == 1, on_ann
    assert abs(after[0] - (b + on_bob[0])) < 0.005, (after, b + on_bob[0])   # one clock again


def test_a_lost_mic_gives_out_no_block_of_the_copy_the_server_feeds_it(server, tmp_path):
    """The server moves a lost mic's stream to the default source before the referee hears
    of it; with the listener busy, deliveries wait in the queue meanwhile. None of those that
    came after the server's word may reach the lost mic's channel: at most the few
    milliseconds delivered before it."""
    changes, told = [], []
    src = source(changes, told)
    tone = beeps_wav(tmp_path / "tone.wav", at=(0.1,), seconds=4.0)     # into the default source

    def act():
        time.sleep(2.0)                       # lined up
        player = server.play(tone, "mic1", wait=False)
        time.sleep(1.0)
        server.unplug(MICS["bob"])
        wait(lambda: any(c.lost for c in changes))
        player.wait(10)
        server.plug(MICS["bob"])
        wait(lambda: any(not c.lost for c in changes))

    x = capture(src, act, after=0.5, busy=0.02)   # 0.8 s of work per second of two mics
    lost = [c for c in changes if c.lost]
    assert lost and (lost[0].stream, lost[0].why) == ("bob", "its source lossy_bob went away"), changes
    # on a machine loaded by the other test worker PortAudio sometimes ends a stream; the
    # keeper reopens it, and that is no copy of the default source
    assert all(c.why == "its stream stopped" for c in lost[1:]), changes
    copied = np.count_nonzero(np.abs(x[1]) > 0.01)     # bob's own source is silent throughout
    assert copied <= 0.02 * RATE, f"{1000 * copied / RATE:.0f} ms of the default source on bob's mic"


def test_the_audio_server_crashing_and_coming_back(server, tmp_path):
    changes, told = [], []
    src = source(changes, told)
    beeps = both_beeps(tmp_path / "both.wav", at=(0.3,))

    def act():
        time.sleep(2.0)
        server.crash()
        wait(lambda: len([c for c in changes if c.lost]) == 2)
        time.sleep(1.5)                       # a while with no server at all
        server.restart()
        wait(lambda: len([c for c in changes if not c.lost]) == 2, timeout=20)
        time.sleep(2.0)                       # placed by its first second, refined since
        server.play(beeps, "lossy")

    x = capture(src, act, after=1.0)
    assert sorted((c.stream, c.lost, c.why) for c in changes) == [
        ("ann", False, ""), ("ann", True, "the audio server went away"),
        ("bob", False, ""), ("bob", True, "the audio server went away")], changes
    back = max(c.at for c in changes if not c.lost)
    on = [[t for t in onsets(x[ch]) if t > back] for ch in (0, 1)]
    assert len(on[0]) == 1 and len(on[1]) == 1, on
    assert abs(on[0][0] - on[1][0]) < 0.005, on
    # the clock went on through the time with no server: the channels reach the end together
    assert abs(len(x[0]) - len(x[1])) == 0


def test_a_game_goes_on_through_a_mic_unplugged_and_the_server_restarting(server, tmp_path):
    """``referee play`` on the real recogniser: bob's mic is unplugged for a round (what the
    server then feeds his stream, a call into the default source, is not taken for his),
    comes back for the next; then the audio server crashes and comes back for the last."""
    from live_game import Referee, journal_lines, voice_wav

    def says(who, text, mic):
        wav = voice_wav(tmp_path, who, text)
        if mic == "default":
            server.play(wav, "mic1")
        else:
            server.play(wav, "lossy", channel=list(MICS).index(mic))

    def deal(card, n):
        ref.type(card)
        ref.wait_for(lambda r: sum(f'"card":"{card}"' in x for x in path().read_text().splitlines()) == 1,
                     10, f"deal {card}")
        time.sleep(0.3)

    data = tmp_path / "data"
    ref = Referee("play", "stroop", "--players", "ann,bob", "--names", "ann,bob", "--devices",
                  *MICS.values(), "--json", "--speak-to", "speakers", "--engine", "pocketsphinx",
                  data=data, env=server.env)
    path = lambda: journal_lines(data)[0]      # noqa: E731
    try:
        ref.wait_err("referee: journal ", 60)
        ref.wait_err("microphones lined up", 10)
        server.unplug(MICS["bob"])
        ref.wait_err("Lost Bob's microphone.", 10)
        deal("7D", 1)
        says("bob", "two of clubs", "default")     # where bob's stream was moved: not his mic
        says("ann", "two of clubs", "ann")
        r1 = ref.wait_objects("round", 1, 20)[0]
        ref.wait_err("Bob's microphone was out: Bob may have called.", 10)
        server.plug(MICS["bob"])
        ref.wait_err("Listening again on Bob's microphone.", 15)
        deal("KD", 2)
        says("bob", "ace of clubs", "bob")
        r2 = ref.wait_objects("round", 2, 20)[1]
        server.crash()
        ref.wait_err("Lost Ann's microphone.", 10)
        ref.wait_err("Lost Bob's microphone.", 10, count=2)
        time.sleep(1.0)
        server.restart()
        ref.wait_err("Listening again on Ann's microphone.", 20)
        ref.wait_err("Listening again on Bob's microphone.", 20, count=2)
        deal("9H", 3)
        says("ann", "two of clubs", "ann")
        r3 = ref.wait_objects("round", 3, 20)[2]
        ref.type("end")
        final = ref.wait_objects("final", 1, 20)[0]
        assert ref.finish() == 0, ref.stderr
    finally:
        ref.kill()
    assert "Traceback" not in ref.stderr, ref.stderr
    # the voice went with the server, and came back with it
    assert "audio output lost" in ref.stderr and "audio output is back" in ref.stderr, ref.stderr
    assert (r1["top"], r1["winner"]) == ("7D", "ann"), (r1, ref.stderr)
    assert (r2["top"], r2["winner"]) == ("KD", "bob"), (r2, ref.stderr)
    assert (r3["top"], r3["winner"]) == ("9H", "ann"), (r3, ref.stderr)
    assert final["scores"] == {"ann": 2, "bob": 1}, final
    _, lines = journal_lines(data)
    assert not [o for o in lines if o["type"] == "call" and o["player"] == "bob" and o["start"] < r2_start(lines)]
    notes = [o["text"] for o in lines if o["type"] == "note"]
    assert sum("microphone lost" in n for n in notes) == 3 and sum("microphone back" in n for n in notes) == 3, notes


def r2_start(lines):
    """When the second card was dealt."""
    return [o["at"] for o in lines if o["type"] == "deal"][1]
