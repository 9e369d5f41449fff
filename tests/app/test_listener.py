"""The listener over recordings: ordering, watermarks, cross-talk, resampling, threads.

These tests use ``ToneRecogniserDouble``, a TEST DOUBLE for the speech recogniser: it finds
bursts of sound by level and names each burst by its pitch (440 Hz "queen of hearts",
660 Hz "two of spades"). It reads the real audio the listener gives it, so the listener's
timing, resampling and cross-talk decisions are tested on real signals; the real recognisers
are tested with the listener in tests/live/test_listen_live.py.
"""

from __future__ import annotations

import math
import queue

import numpy as np
import pytest

from pulse import tone
from speech import room_talk

from referee.audio.wav import read_wav, write_wav
from referee.audio.recording import RecordingSource
from referee.core.cards import Partial, read_call
from referee.core.events import Heard, Utterance
from referee.app.listener import Listener

RATE = 16000
NAMES = {440: "queen of hearts", 660: "two of spades"}
TALK_READING = "i have queen club"  # a decoy: what a recogniser reads talk as


class ToneRecogniserDouble:
    """TEST DOUBLE standing in for a Recogniser (see the module docstring)."""

    name = "tone-double"
    description = name
    rate = RATE

    def __init__(self, threshold_db: float = -45.0, deaf: frozenset[int] = frozenset(),
                 misread: dict[int, str] | None = None, talk: frozenset[int] = frozenset()):
        self.threshold_db = threshold_db
        self.deaf = deaf  # channels whose recogniser hears nothing (a miss)
        self.misread = misread or {}  # channel -> what its recogniser hears every tone as
        self.talk = talk  # channels whose recogniser reads every tone as no phrase
        self.fed: dict[int, int] = {}

    def stream(self, start=0.0, channel=0, player=None, source=""):
        return _ToneStream(self, start, channel, player, source)


class _ToneStream:
    FRAME = 160  # 10 ms

    def __init__(self, rec, start, channel, player, source):
        self.rec, self.start, self.channel, self.player, self.source = (
            rec, start, channel, player, source)
        self.n = 0  # samples consumed
        self.buf = np.zeros(0, np.int16)
        self.burst: list[np.ndarray] = []
        self.burst_start: int | None = None
        self.quiet = 0

    @property
    def watermark(self) -> float:
        at = self.n if self.burst_start is None else self.burst_start
        return self.start + at / RATE

    def feed(self, samples):
        assert samples.dtype == np.int16
        self.rec.fed[self.channel] = self.rec.fed.get(self.channel, 0) + len(samples)
        self.buf = np.concatenate([self.buf, samples])
        out = []
        while len(self.buf) >= self.FRAME:
            f, self.buf = self.buf[: self.FRAME], self.buf[self.FRAME:]
            out += self._frame(f)
        return out

    def close(self):
        out = []
        if self.burst_start is not None:
            out += self._end(self.n - self.quiet * self.FRAME)
        return out

    def _frame(self, f):
        p = np.mean((f / 32768.0) ** 2)
        loud = p > 0 and 10 * math.log10(p) > self.rec.threshold_db
        out = []
        if loud:
            if self.burst_start is None:
                self.burst_start = self.n
            self.burst.append(f)
            self.quiet = 0
        elif self.burst_start is not None:
            self.quiet += 1
            if self.quiet >= 20:  # 200 ms of quiet ends a burst
                out = self._end(self.n + self.FRAME - self.quiet * self.FRAME)
        self.n += self.FRAME
        return out

    def _end(self, end_sample):
        x = np.concatenate(self.burst).astype(np.float64)
        start = self.burst_start
        self.burst, self.burst_start, self.quiet = [], None, 0
        if self.channel in self.rec.deaf:
            return []
        spec = np.abs(np.fft.rfft(x * np.hanning(len(x))))
        if spec.max() < 50 * spec.mean():
            return []  # noise, not a tone: no call (every call is voiced)
        freq = np.argmax(spec) * RATE / len(x)
        said = min(NAMES, key=lambda f: abs(f - freq))
        said = self.rec.misread.get(self.channel, NAMES[said])
        kind = "unknown" if self.channel in self.rec.talk else \
            "partial" if isinstance(read_call(said), Partial) else "call"
        said = TALK_READING if kind == "unknown" else said
        return [Utterance(kind, said, self.start + start / RATE,
                          self.start + end_sample / RATE, 1.0, self.channel, self.player,
                          self.source)]


def table(path, calls, seconds=4.0, leak_db=-15.0, rate=RATE, n_ch=2):
    """A multi-channel recording: ``calls`` = [(channel, freq, start, end)]; each call is
    loud (-6 dBFS) on its channel and leaks into every other at ``leak_db``."""
    x = np.zeros((int(seconds * rate), n_ch))
    gain = 10 ** (leak_db / 20)
    for ch, freq, a, b in calls:
        t = tone(freq, b - a, rate, amp=0.5)
        i = int(a * rate)
        for c in range(n_ch):
            x[i:i + len(t), c] += t * (1.0 if c == ch else gain)
    write_wav(path, x, rate)
    return path


def check_order(events, streams):
    """Every stream's utterances come before any watermark past their end (the promise a
    mark makes: the games order what they hear by its end)."""
    mark = {s: -math.inf for s in streams}
    for ev in events:
        if isinstance(ev, Heard):
            assert ev.upto >= mark[ev.stream], "watermarks never go back"
            mark[ev.stream] = ev.upto
        else:
            name = ev.player or f"ch{ev.channel}"
            assert ev.end >= mark[name], f"{ev} reported after watermark {mark[name]}"
    return mark


def calls(events):
    return [(e.player, e.said, round(e.start, 2), round(e.end, 2))
            for e in events if isinstance(e, Utterance)]


def test_copies_on_other_mics_are_dropped(tmp_path):
    wav = table(tmp_path / "t.wav", [(0, 440, 0.5, 1.0), (1, 660, 2.0, 2.4)])
    src = RecordingSource(wav, players=["ann", "bob"])
    lst = Listener(src, ToneRecogniserDouble(), refine=False)  # the tones' times
    events = list(lst.events())
    assert calls(events) == [("ann", "queen of hearts", 0.5, 1.0),
                             ("bob", "two of spades", 2.0, 2.4)]
    mark = check_order(events, ["ann", "bob"])
    assert mark == {"ann": 4.0, "bob": 4.0}


def test_without_crosstalk_filter_the_copies_come_through(tmp_path):
    wav = table(tmp_path / "t.wav", [(0, 440, 0.5, 1.0)])
    events = list(Listener(RecordingSource(wav, players=["ann", "bob"]),
                           ToneRecogniserDouble(), crosstalk=False).events())
    assert sorted(calls(events)) == [("ann", "queen of hearts", 0.5, 1.0),
                                     ("bob", "queen of hearts", 0.5, 1.0)]
    check_order(events, ["ann", "bob"])


def test_two_players_calling_at_once_are_both_heard(tmp_path):
    # bob's call lies within ann's; each mic also hears the other's call at -15 dB (and the
    # double's bursts include it), but each call is loudest on its caller's mic
    wav = table(tmp_path / "t.wav", [(0, 440, 0.5, 1.0), (1, 660, 0.6, 0.95)])
    events = list(Listener(RecordingSource(wav, players=["ann", "bob"]),
                           ToneRecogniserDouble(), refine=False).events())
    assert sorted(calls(events)) == [("ann", "queen of hearts", 0.5, 1.0),
                                     ("bob", "two of spades", 0.5, 1.0)]


def test_a_call_missed_on_its_own_mic_is_credited_to_its_player(tmp_path):
    # ann's recogniser misses her call; bob's mic heard it at -15 dB: it is ann's.
    wav = table(tmp_path / "t.wav", [(0, 440, 0.5, 1.0)])
    events = list(Listener(RecordingSource(wav, players=["ann", "bob"]),
                           ToneRecogniserDouble(deaf=frozenset({0})), refine=False).events())
    assert calls(events) == [("ann", "queen of hearts", 0.5, 1.0)]
    check_order(events, ["ann", "bob"])


@pytest.mark.parametrize("talk, misread, kinds", [
    ({0}, {}, [("call", "queen of hearts"), ("unknown", TALK_READING)]),
    ({0, 1, 2}, {}, [("unknown", TALK_READING)]),
    ({0}, {2: "two of spades"}, [("unknown", TALK_READING)]),
])
def test_a_call_read_as_talk_on_its_own_mic_is_credited_from_its_copy(tmp_path, talk, misread,
                                                                       kinds):
    # ann's recogniser reads her call as no phrase; bob's and cat's mics heard it at -15 dB as
    # the call: it is ann's call, once (it was dropped as a copy, ann's mic having "its own
    # version"). When the others read it as no phrase too, one reading is kept, ann's own;
    # when they read it as different cards, none is sure, and no call is made of it.
    wav = table(tmp_path / "t.wav", [(0, 440, 0.5, 1.0)], n_ch=3)
    events = list(Listener(RecordingSource(wav, players=["ann", "bob", "cat"]),
                           ToneRecogniserDouble(talk=frozenset(talk), misread=misread),
                           refine=False).events())
    heard = [e for e in events if isinstance(e, Utterance)]
    assert sorted((e.kind, e.said) for e in heard) == kinds
    assert {(e.player, round(e.start, 2), round(e.end, 2)) for e in heard} == {("ann", 0.5, 1.0)}
    check_order(events, ["ann", "bob", "cat"])


def test_other_rates_are_resampled_and_keep_their_times(tmp_path):
    wav = table(tmp_path / "t.wav", [(0, 440, 0.5, 1.0), (1, 660, 2.0, 2.4)], rate=48000)
    rec = ToneRecogniserDouble()
    src = RecordingSource(wav, players=["ann", "bob"])  # blocks at 48 kHz
    events = list(Listener(src, rec, refine=False).events())
    assert calls(events) == [("ann", "queen of hearts", 0.5, 1.0),
                             ("bob", "two of spades", 2.0, 2.4)]
    assert rec.fed == {0: 4 * RATE, 1: 4 * RATE}  # every sample, once, at 16 kHz


def test_in_a_thread_through_a_queue(tmp_path):
    wav = table(tmp_path / "t.wav", [(1, 660, 1.0, 1.5)])
    lst = Listener(RecordingSource(wav), ToneRecogniserDouble())
    assert lst.stream_names == ["ch0", "ch1"]
    q: queue.Queue = queue.Queue()
    lst.start(q)
    events = []
    while (ev := q.get(timeout=30)) is not None:
        events.append(ev)
    assert lst.error is None
    assert [(e.channel, e.said) for e in events if isinstance(e, Utterance)] == [
        (1, "two of spades")]
    check_order(events, ["ch0", "ch1"])


def test_recording_source_blocks(tmp_path):
    x = np.zeros((RATE, 3))
    x[:, 2] = 0.25
    write_wav(tmp_path / "a.wav", x, RATE)
    write_wav(tmp_path / "b.wav", np.zeros(RATE // 2), RATE)
    src = RecordingSource([tmp_path / "a.wav", tmp_path / "b.wav"], block_seconds=0.1)
    assert [(c.index, c.source_channel) for c in src.channels] == [(0, 0), (1, 1), (2, 2),
                                                                   (3, 0)]
    blocks = list(src)
    assert [b.channel for b in blocks[:4]] == [0, 1, 2, 3]  # time order across channels
    assert sum(b.frames for b in blocks if b.channel == 2) == RATE
    assert sum(b.frames for b in blocks if b.channel == 3) == RATE // 2
    assert all(b.samples.dtype == np.int16 for b in blocks)
    assert abs(int(blocks[2].samples[0]) - 8192) <= 1  # 0.25 full scale
    b = [b for b in blocks if b.channel == 0][3]
    assert (b.index, b.start, b.end) == (4800, 0.3, 0.4)
    with pytest.raises(ValueError, match="2 player names for 4 channel"):
        RecordingSource([tmp_path / "a.wav", tmp_path / "b.wav"], players=["a", "b"])
    with pytest.raises(ValueError, match="nope.wav"):
        RecordingSource(tmp_path / "nope.wav")


class _BlocksSource:
    """A source that yields the given blocks (real samples, chosen start indices)."""

    def __init__(self, blocks, players):
        from referee.audio.blocks import Channel

        self.blocks = blocks
        self.channels = [Channel(i, p) for i, p in enumerate(players)]

    def __iter__(self):
        return iter(self.blocks)

    def stop(self):
        pass


def test_a_device_that_starts_after_another_has_delivered_a_block():
    # two mics on two devices: bob's first block begins after ann's first block ends (the
    # devices started at different times); the cross-talk mix must not break on it
    from referee.audio.blocks import Block

    n = 1600                                     # 0.1 s blocks
    loud = (tone(440, 0.5, RATE, amp=0.5) * 32767).astype(np.int16)
    ann = np.concatenate([np.zeros(4000, np.int16), loud, np.zeros(8000, np.int16)])
    blocks = []
    for k in range(0, len(ann), n):
        blocks.append(Block(0, ann[k:k + n], k, RATE, "ann"))
        j = k - 1600      # bob's device starts 0.25 s in, its first block arriving when
        if j >= 0:        # ann's mic has delivered only 0.2 s
            blocks.append(Block(1, np.zeros(n, np.int16), 4000 + j, RATE, "bob"))
    events = list(Listener(_BlocksSource(blocks, ["ann", "bob"]), ToneRecogniserDouble(),
                           refine=False).events())
    assert calls(events) == [("ann", "queen of hearts", 0.25, 0.75)]
    check_order(events, ["ann", "bob"])


def _marks_past(tmp_path, calls_, noise, upto, seconds=5.0):
    """Run the listener over ann, bob and cat's mics (``calls_`` as for ``table``, no leaks
    between the mics) with white noise on cat's mic over ``noise`` (seconds), or ``noise``
    (an array: samples, 3) added to the mics; returns the utterances, and the audio read
    (seconds) when every stream's watermark first reached ``upto``."""
    path = table(tmp_path / "t.wav", calls_, seconds=seconds, leak_db=-80.0, n_ch=3)
    from referee.audio.wav import read_wav
    x, _ = read_wav(path)
    x = x.astype(np.float64) / 32768.0 if x.dtype == np.int16 else x.astype(np.float64)
    if isinstance(noise, tuple):
        a, b = int(noise[0] * RATE), int(noise[1] * RATE)
        x[a:b, 2] += np.random.default_rng(1).normal(0, 0.05, b - a)
    else:
        x += noise
    write_wav(path, x, RATE)
    lst = Listener(RecordingSource(path, players=["ann", "bob", "cat"]), ToneRecogniserDouble(),
                   refine=False)
    events, mark, reached = [], {}, None
    for ev in lst.events():
        events.append(ev)
        if isinstance(ev, Heard):
            mark[ev.stream] = ev.upto
            if reached is None and len(mark) == 3 and min(mark.values()) >= upto:
                reached = lst.position
    check_order(events, ["ann", "bob", "cat"])
    return calls(events), reached


def test_noise_on_an_unrelated_mic_does_not_hold_a_finished_race(tmp_path):
    # ann's call ends at 1.0 s; clatter-like noise on cat's mic from inside the tie window
    # (40 ms) to 3.5 s keeps cat's recogniser's segment open. Nothing voiced is in it, so
    # it cannot hold a call ending in the window: every stream's mark passes 1.04 s soon
    # after (it held until the noise stopped, 2.5 s later, before).
    heard, reached = _marks_past(tmp_path, [(0, 440, 0.5, 1.0)], (1.02, 3.5), 1.04)
    assert heard == [("ann", "queen of hearts", 0.5, 1.0)]
    assert reached is not None and reached <= 1.5


def test_a_voice_on_another_mic_still_holds_the_race(tmp_path):
    # bob begins a call inside ann's tie window, over cat's noise: the marks wait for it
    heard, reached = _marks_past(tmp_path, [(0, 440, 0.5, 1.0), (1, 660, 1.02, 1.6)],
                                 (1.02, 3.5), 1.04)
    assert heard == [("ann", "queen of hearts", 0.5, 1.0), ("bob", "two of spades", 1.02, 1.6)]
    assert reached is not None and reached >= 1.6


@pytest.fixture(scope="module")
def talk10(tmp_path_factory):
    return room_talk(tmp_path_factory.mktemp("talk"), 10.0)


@pytest.mark.parametrize("bob_calls", [False, True])
def test_talk_in_the_room_does_not_hold_a_finished_race(tmp_path, talk10, bob_calls):
    # ann's call ends at 6.5 s. People talk by cat's mic all along (voiced, 30 dB under full
    # scale, over the double's threshold): cat's recogniser holds a segment open. The talk is
    # at the level cat's mic always hears, no voice of its own, so every stream's mark passes
    # 6.54 s soon after (it held until the talk ended, at 10 s). bob calling inside the
    # window, over the same talk, still holds it (docs/timing.md, "Talk in the room no longer
    # holds verdicts").
    calls_ = [(0, 440, 6.0, 6.5)] + ([(1, 660, 6.52, 7.1)] if bob_calls else [])
    talk = talk10[:, None] * 10 ** (np.array([-80, -50, -30]) / 20)  # bob's: under the threshold
    heard, reached = _marks_past(tmp_path, calls_, talk, 6.54, seconds=10.0)
    heard = [c for c in heard if c[0] != "cat"]
    assert heard[0] == ("ann", "queen of hearts", 6.0, 6.5)
    assert reached is not None
    if bob_calls:
        assert heard[1][:2] == ("bob", "two of spades") and reached >= 7.1
    else:
        assert len(heard) == 1 and reached <= 7.0


def test_a_call_whose_sound_begins_before_its_voice_keeps_its_timed_start(tmp_path):
    # ann's call: a soft hiss (an unvoiced "s", 34 dB under the call and under the
    # recogniser's threshold) from 0.35 s, then her voice from 0.5 to 1.0 s; it leaks into
    # bob's mic. The marks went past 0.35 s before her voice began; they promise ends, so the
    # timer's start stays where her sound began (it was moved up to the mark, 0.45 s, when
    # marks promised starts: docs/timing.md, "Marks on ends").
    x = np.zeros((3 * RATE, 2))
    a, b = int(0.35 * RATE), int(0.5 * RATE)
    h = np.random.default_rng(0).normal(0, 1, b - a)
    spec = np.fft.rfft(h)
    spec[np.fft.rfftfreq(len(h), 1 / RATE) < 4000] = 0
    h = np.fft.irfft(spec, len(h))
    x[a:b, 0] = h / np.max(np.abs(h)) * 0.5 * 10 ** (-34 / 20)
    t = tone(440, 0.5, RATE, amp=0.5)
    x[b:b + len(t), 0] += t
    x[:, 1] = x[:, 0] * 10 ** (-15 / 20)
    x += np.random.default_rng(1).normal(0, 1e-4, x.shape)
    path = tmp_path / "hiss.wav"
    write_wav(path, x, RATE)
    events = list(Listener(RecordingSource(path, players=["ann", "bob"]),
                           ToneRecogniserDouble(threshold_db=-40)).events())
    check_order(events, ["ann", "bob"])
    (u,) = [e for e in events if not isinstance(e, Heard)]
    assert (u.player, u.said) == ("ann", "queen of hearts")
    assert 0.33 <= u.start <= 0.43
    marks = [e.upto for e in events if isinstance(e, Heard) and events.index(e) < events.index(u)]
    assert max(marks) > u.start + 0.02  # a mark had passed where her sound began


def _same_words_at_once(path, own_db: float, names: list[str]) -> list[tuple]:
    """Cat calls (440 Hz, -6 dBFS) from 0.5 to 1.3 s, leaking into the other mics 15 dB
    down; the first mic holds at the same time a sound of its own (450 Hz, ``own_db`` under
    cat's) that is no copy of hers in shape, so the cross-talk filter keeps it there, and
    the double names it as cat's words. Returns the calls passed on."""
    n = int(3.0 * RATE)
    x = np.zeros((n, 3))
    i, call = int(0.5 * RATE), tone(440, 0.8, RATE, amp=0.5)
    x[i:i + len(call), 2] += call
    x[i:i + len(call), :2] += call[:, None] * 10 ** (-15 / 20)
    x[i:i + len(call), 0] += tone(450, 0.8, RATE, amp=0.5 * 10 ** (own_db / 20))[:len(call)]
    write_wav(path, x, RATE)
    events = list(Listener(RecordingSource(path, players=names),
                           ToneRecogniserDouble(), refine=False).events())
    check_order(events, names)
    return sorted(calls(events))


def _dealers_reading(tmp_path, reading):
    """The one utterance heard when the dealer's queen of hearts is read as ``reading`` on
    the dealer's mic and as itself in its leaks on ann's and bob's."""
    wav = table(tmp_path / "t.wav", [(0, 440, 0.5, 1.0)], n_ch=3)
    events = list(Listener(RecordingSource(wav, players=["dealer", "ann", "bob"]),
                           ToneRecogniserDouble(misread={0: reading}),
                           refine=False).events())
    check_order(events, ["dealer", "ann", "bob"])
    [deal] = [e for e in events if isinstance(e, Utterance)]
    return deal


def test_a_deal_carries_what_the_players_mics_heard_of_it_in_other_words(tmp_path):
    # the dealer's recogniser misreads the card; ann's mic has its leak, read right and
    # dropped as a copy: the deal carries that reading (the table takes it when the
    # dealer's cannot be, a card dealt already)
    deal = _dealers_reading(tmp_path, "three of spades")
    assert (deal.player, deal.said, deal.heard_elsewhere) == (
        "dealer", "three of spades", ("queen of hearts",))


def test_the_dealers_words_cut_short_carry_the_card_the_players_mics_heard(tmp_path):
    # the dealer's recogniser reads only "queen of" (a partial call); ann's and bob's mics
    # read the leak as the card: the deal carries that card, for the table to complete it
    deal = _dealers_reading(tmp_path, "queen of")
    assert (deal.player, deal.kind, deal.said, deal.heard_elsewhere) == (
        "dealer", "partial", "queen of", ("queen of hearts",))


def test_the_dealers_mic_naming_a_players_call_at_the_same_moment_is_no_deal(tmp_path):
    # a card is never dealt and called at the same moment: the same words on the dealer's
    # mic and a player's at once are one voice, its talker's where it stands higher
    names = ["dealer", "ann", "cat"]
    assert _same_words_at_once(tmp_path / "a.wav", -10.0, names) == [
        ("cat", "queen of hearts", 0.5, 1.3)]
    # the dealer's own, louder than the player's: the player's is the copy
    assert _same_words_at_once(tmp_path / "b.wav", 6.0, names) == [
        ("dealer", "queen of hearts", 0.5, 1.3)]
    # two players may say the same card at once: both count
    assert _same_words_at_once(tmp_path / "c.wav", -10.0, ["bob", "ann", "cat"]) == [
        ("bob", "queen of hearts", 0.5, 1.3), ("cat", "queen of hearts", 0.5, 1.3)]


def test_on_an_arrays_seats_a_copy_read_better_is_not_credited(tmp_path):
    # The same call as above, but the channels are a mic array's seats (``twins``: the first
    # three decide who spoke, the last three are decoded): seats are beams of the same mics,
    # so another seat's reading is no second opinion, and ann's own reading stands alone.
    x = table(tmp_path / "m.wav", [(0, 440, 0.5, 1.0)], n_ch=3)
    mics, rate = read_wav(x)
    wav = tmp_path / "t.wav"
    write_wav(wav, np.concatenate([mics, mics], axis=1), rate)
    events = list(Listener(RecordingSource(wav, players=["ann", "bob", "cat"] * 2),
                           ToneRecogniserDouble(talk=frozenset({0})), refine=False,
                           twins=True).events())
    heard = [e for e in events if isinstance(e, Utterance)]
    assert [(e.player, e.kind, e.said) for e in heard] == [("ann", "unknown", TALK_READING)]
