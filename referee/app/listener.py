"""The listener: an audio source (microphones or a recording) and a recogniser in, an ordered
stream of :class:`~referee.core.events.Utterance` and :class:`~referee.core.events.Heard` events
out.

One recogniser stream per channel (one loaded model serves them all). Blocks whose rate
differs from the recogniser's are resampled on the way. Times stay on the source's shared
clock: a channel's recogniser stream starts at the time of the channel's first block.

Cross-talk: with one mic per player, a call is also picked up by the neighbours' mics.
:class:`referee.hearing.crosstalk.CrossTalk` (fed every channel's audio, at the recogniser's
rate, on the shared clock) names the channel each utterance is loudest on. An utterance
loudest on its own channel is passed on at once. Otherwise it is a copy: once the loudest
channel's recogniser has decoded ``hold`` seconds past its end, it is dropped if that
recogniser reported an overlapping utterance of its own (with separate mics, talk it read as
no phrase counts only against a copy read as no phrase too), and otherwise passed on as the
loudest channel's (that recogniser missed it, or misread it: docs/timing.md, "A copy read
better than the talker's own mic"). Two players calling at once each dominate their own
mic, so both calls are kept. A card is never dealt and called at the same moment:
the same words heard at once on the dealer's mic and a player's are one voice, kept on the
mic where they stand higher over its noise, or on an array's louder seat (the dealer's words
wait, up to ``DEALER_WAIT``, for the players' recognisers to report what they heard
meanwhile).

Leaks: with cross-talk filtering the recognisers get a span of audio once every channel
has it, each channel with the others' leaks, as learnt from the audio so far, taken out
(the cross-talk filter's :class:`referee.hearing.leaks.LeakCanceller`): two players
calling at once each hear their own call, not both.

Timing: with cross-talk filtering, each call passed on is timed from every channel
(:mod:`referee.hearing.timing`), once the filter has ``TIMING_CONFIRM`` seconds of audio
after the end so found (``TIMING_TAIL`` after the recogniser's at the latest); that may
move its start up to ``CallTimer.max_earlier`` earlier than the recogniser's.

Watermarks: ``Heard(stream, upto)`` promises that no later utterance of ``stream`` (the
player's name, or ``ch<index>``) will end before ``upto``: the games order what they hear by
its end (a deal, ordered by its start, is timed no earlier than the dealer's mark by the
table). With cross-talk filtering any channel's recogniser can produce an utterance for any
player, so every stream's watermark is the smallest of all recognisers' watermarks and of the
starts of utterances still being decided (less how far timing may move a start earlier); a
recogniser holding a segment open with no voice of its mic's own in it (clatter, noise, what
is left of a reported call's leak, talk in the room at the level the mic always hears) holds
it only to ``UNVOICED_LEAD`` before where that voice could begin. An utterance is never passed on ending before a watermark already sent; its
start may lie before one (the unvoiced "s" of "six" begins before the voice detector opens:
docs/timing.md, "Marks on ends").

Use it synchronously (``for event in listener.events(): ...``, as fast as the source gives
blocks: faster than real time on a recording), or in a thread feeding a queue
(``listener.start(q)``; ``q.get()`` returns events, then ``None`` at the end;
``listener.stop()`` ends it; ``listener.error`` holds an exception that ended it).
"""

from __future__ import annotations

import math
import queue
import threading
from dataclasses import replace
from typing import Any, Iterator, Sequence

import numpy as np

from referee.audio.blocks import AudioSource, Block, Channel
from referee.audio.resampler import StreamResampler
from referee.audio.wav import to_int16
from referee.core.events import Heard, Utterance
from referee.core.table import DEALER
from referee.hearing.crosstalk import CrossTalk
from referee.hearing.timing import UNVOICED_LEAD

Event = Utterance | Heard


class Listener:
    """Turns ``source`` blocks into utterance and watermark events with ``recogniser``.

    ``crosstalk``: suppress copies of a call on other players' mics (only matters with
    more than one channel); ``cancel``: with it, feed the recognisers each channel with the
    learnt leaks of the others taken out; ``crosstalk_options`` go to
    :class:`~referee.hearing.crosstalk.CrossTalk`. ``hold``: seconds the loudest channel must
    be decoded past a suspected copy before it is decided. ``twins``: the source's channels
    are two sets, the second what the first's recognisers hear (a mic array's seats: the
    first set decides who spoke and times it, the second, less masked, is decoded).
    ``dealer``: the player name of the dealer's channel, if one is (None: no such rule;
    with separate mics and ``cancel``, or with ``twins``).
    """

    TIMING_CONFIRM = 0.05
    """Seconds of every channel's audio past a call's end (as timed from every mic) before
    the call is passed on: its end is where its sound stops, which is only known after."""
    TIMING_TAIL = 0.3
    """Seconds past the recogniser's end after which a call is passed on whatever its
    timing says (sound going on after a call)."""
    DEALER_WAIT = 1.0
    """Seconds past the end of words heard on the dealer's mic that the listener waits at
    most for the players' recognisers, which may be hearing the same words as a call."""
    DEALER_OVER_DB = 9.0
    """dB over its mic's median level by which the dealer's voice must stand to hold the
    marks (``CrossTalk.own_voice``; a player's: ``OWN_OVER_DB``). A deal is ordered by its
    start, so the dealer's mic must hold before the first loud step of a card said in noise
    (docs/timing.md, "Talk in the room no longer holds verdicts")."""
    DEALER_LEAD = 0.2
    """Seconds held on the dealer's mic, beyond ``UNVOICED_LEAD``, before its first step so
    loud: how far into a card said at 8-10 dB that step may come."""

    def __init__(self, source: AudioSource, recogniser: Any, crosstalk: bool = True,
                 hold: float = 0.25, cancel: bool = True, twins: bool = False,
                 dealer: str | None = DEALER, **crosstalk_options: Any) -> None:
        self.source = source
        self.recogniser = recogniser
        width = len(source.channels)
        self.channels: list[Channel] = list(source.channels)[: width // 2 if twins else width]
        self.twins = twins
        if not self.channels:
            raise ValueError("the source has no channels")
        self.crosstalk = crosstalk and len(self.channels) > 1
        # separate mics with the leaks taken out, or an array's seats (twins); not mics
        # whose leaks are left in
        self._dealer = next((k for k, c in enumerate(self.channels)
                             if dealer is not None and c.player == dealer), None) \
            if self.crosstalk and (cancel or twins) else None
        self.hold = hold
        self.earlier = 0.0  # seconds timing may move a start before the recogniser's
        self.rate = int(recogniser.rate)
        self._streams: dict[int, Any] = {}
        self._resamplers: dict[int, StreamResampler | None] = {}
        n = len(self.channels)
        self._ct = CrossTalk(self.rate, n, [c.player for c in self.channels], cancel=cancel,
                             **crosstalk_options) if self.crosstalk else None
        if self._ct is not None and self._ct.timer is not None:
            self.earlier = self._ct.timer.max_earlier
        # audio waiting to go to the cross-talk filter: per channel, pieces at self.rate
        self._mix: list[list[np.ndarray]] = [[] for _ in range(width)]
        self._mix_start: list[int | None] = [None] * width  # index of the first sample in _mix
        self._mix_end: list[int] = [0] * width
        self._ct_end: int | None = None  # samples: the cross-talk filter has audio to here
        self._fed: dict[int, int] = {}  # samples fed to each recogniser stream
        self._first: dict[int, int] = {}  # index (at self.rate) of each stream's sample 0
        self.position = 0.0
        """Seconds on the shared clock: the end of the latest block read (the audio clock
        "now" for the live loop)."""
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

    def seats_alike(self, pairs: Sequence[tuple[str, str]]) -> None:
        """Hear the channels of each pair of players in ``pairs`` as one talker's from now
        on (an array's seats too alike, learnt live: :meth:`CrossTalk.set_alike`)."""
        if self._ct is not None:
            self._ct.set_alike(pairs)

    # -- internals --------------------------------------------------------------
    def _resampler(self, block: Block) -> StreamResampler | None:
        ch = block.channel
        if ch not in self._resamplers:
            self._resamplers[ch] = (
                None if block.rate == self.rate else StreamResampler(block.rate, self.rate))
            self._first[ch] = int(round(block.start * self.rate))
            self._fed[ch] = 0
        return self._resamplers[ch]

    def _stream(self, ch: int, start: float) -> Any:
        s = self._streams.get(ch)
        if s is None:
            c = self.channels[ch]
            s = self.recogniser.stream(start=start, channel=c.index, player=c.player,
                                       source=c.source)
            self._streams[ch] = s
        return s

    def clock(self) -> float:
        """Seconds on the shared clock: how far the audio has been read."""
        return self.position

    def _block(self, block: Block) -> list[Event]:
        self.position = max(self.position, block.end)
        rs = self._resampler(block)
        samples = block.samples if rs is None else to_int16(rs.process(block.samples))
        pushed = self._ct_end
        heard = self._feed(block.channel, samples)
        if self._ct is not None and not heard and self._ct_end == pushed:
            return []  # no channel's recogniser heard more: nothing to decide again
        out = self._take(heard)
        out += self._decide(final=False)
        out += self._watermarks()
        return out

    def _feed(self, ch: int, samples: np.ndarray) -> list[Utterance]:
        """Give a channel's next samples to its recogniser, or with cross-talk filtering
        to the filter, whose span of every channel then goes to the recognisers with the
        leaks taken out."""
        if not len(samples):
            return []
        at = self._first[ch] + self._fed[ch]
        self._fed[ch] += len(samples)
        if self._ct is None:
            return self._stream(ch, at / self.rate).feed(samples)
        if self._mix_start[ch] is None:
            self._mix_start[ch] = at
        self._mix[ch].append(samples)
        self._mix_end[ch] = at + len(samples)
        return self._push_audio()

    def _push_audio(self, final: bool = False) -> list[Utterance]:
        """Give the cross-talk filter the span every channel has audio for (with
        ``final``, all there is, the shorter channels padded with silence), and the
        recognisers that span with the leaks between the mics taken out."""
        if any(s is None for s in self._mix_start):
            return []
        if self._ct_end is None:
            self._ct_end = min(self._mix_start)
            self._ct.first = self._ct_end
        upto = max(self._mix_end) if final else min(self._mix_end)
        if upto <= self._ct_end:
            return []
        n = upto - self._ct_end
        m = np.zeros((n, len(self._mix)), np.int16)
        for c, pieces in enumerate(self._mix):
            if not pieces:
                continue
            x = np.concatenate(pieces) if len(pieces) > 1 else pieces[0]
            i0 = self._mix_start[c]  # index of x[0]
            lo = max(i0, self._ct_end)
            if lo >= upto:
                # this channel's audio begins after the span (its device started later):
                # silence here, and its samples wait for the next span
                continue
            got = x[lo - i0:upto - i0]
            m[lo - self._ct_end:lo - self._ct_end + len(got), c] = got
            rest = x[upto - i0:]
            self._mix[c] = [rest] if len(rest) else []
            self._mix_start[c] = upto
        start = self._ct_end / self.rate
        n = len(self.channels)
        clean = self._ct.add_audio(np.ascontiguousarray(m[:, :n]), self._ct_end)
        self._ct_end = upto
        own = m[:, n:] if self.twins else m if clean is None else to_int16(clean)
        heard: list[Utterance] = []
        for c in range(len(self.channels)):
            heard += self._stream(c, start).feed(np.ascontiguousarray(own[:, c]))
        return heard

    def _finish(self, end: float) -> list[Event]:
        heard: list[Utterance] = []
        for ch, rs in self._resamplers.items():
            if rs is not None:
                tail = rs.flush()
                if len(tail):
                    heard += self._feed(ch, to_int16(tail))
        if self._ct is not None:
            heard += self._push_audio(final=True)
        for stream in self._streams.values():
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
        heard_to = (self._ct_end or 0) / self.rate  # the filter has every channel's audio
        out: list[Event] = []
        keep: list[Utterance] = []
        for u in self._pending:
            if not final and (heard_to < u.end or not self._timed_to(u, heard_to)):
                keep.append(u)  # not all channels' audio is in yet
                continue
            verdict = self._attribute(u, final)
            if verdict is None:
                keep.append(u)
            else:
                out += [self._not_before_sent(v) for v in verdict]
        self._pending = keep
        return out

    def _timed_to(self, u: Utterance, heard_to: float) -> bool:
        """Whether every channel has audio far enough past ``u`` to time it."""
        timer = self._ct.timer if self._ct is not None else None
        if timer is None or heard_to >= u.end + self.TIMING_TAIL:
            return True
        if heard_to < u.end - timer.end_no_earlier + self.TIMING_CONFIRM:
            return False  # a timed end is never earlier than that
        end = self._ct.refined(self._ct.loudest(u), u.start, u.end, u.said)[1]
        return heard_to >= end + self.TIMING_CONFIRM

    def _not_before_sent(self, u: Utterance) -> Utterance:
        """``u``, its end moved no earlier than any watermark already sent (a promise); its
        start stays where it was timed, though a mark lies after it."""
        sent = max(self._sent.values(), default=-math.inf)
        if u.end >= sent:
            return u
        return replace(u, start=min(u.start, sent), end=sent)

    def _held_from(self, ch: int) -> float:
        """Seconds: where channel ``ch``'s recogniser may still report something from: its
        watermark, or, when that is older than ``UNVOICED_LEAD`` before
        the first voice of its own in the audio after it, that far before that voice (a
        segment held open by clatter, noise, a known call's leak or talk in the room at the
        mic's usual level has none: every call is voiced, its loud vowels stand over that
        level, and its sound begins at most that far before its voice; the dealer's mic
        ``DEALER_LEAD`` further). See docs/timing.md, "Verdict latency" and "Talk in the
        room no longer holds verdicts"."""
        mark = self._streams[ch].watermark
        heard = (self._ct_end or 0) / self.rate
        dealer = ch == self._dealer
        lead = UNVOICED_LEAD + (self.DEALER_LEAD if dealer else 0.0)
        if mark >= heard - lead:
            return mark
        first, upto = self._ct.own_voice(
            ch, mark, [(u.channel, u.start, u.end) for u in self._recent],
            **({"over_db": self.DEALER_OVER_DB} if dealer else {}))
        return max(mark, (upto if first is None else first) - lead)

    def _attribute(self, u: Utterance, final: bool) -> list[Utterance] | None:
        """What to pass on for ``u`` (itself, re-attributed, or nothing); None: wait."""
        loudest = self._ct.loudest(u)
        if loudest != u.channel:
            if not final and self._streams[loudest].watermark < u.end + self.hold:
                return None  # the loudest mic's recogniser may still report its own
            own = [v for v in self._recent if v.channel == loudest and _overlap(u, v) > 0.3]
            if own:
                if u.kind == "unknown" or loudest == self._dealer or self.twins \
                        or any(v.kind != "unknown" for v in own):
                    return []  # the loudest mic's recogniser has its own version
                if not final and any(s.watermark < u.end + self.hold
                                     for s in self._streams.values()):
                    return None  # every mic's reading of that voice is wanted (below)
                if u.channel != self._dealer and self._same_words(u, (self._dealer,)):
                    return []  # the dealer's words (dealt, not called), read as talk there
                if any(v.channel not in (u.channel, loudest) and v.kind != "unknown"
                       and v.said != u.said and _overlap(u, v) > 0.3
                       and self._ct.loudest(v) == loudest for v in self._recent):
                    return []  # other mics read that voice as other words: none is sure
            return self._ct.filter([u])
        copy = self._dealer_copy(u, final)
        if copy is None:
            return None
        if copy:
            return []
        if u.channel == self._dealer:
            u = replace(u, heard_elsewhere=self._heard_elsewhere(u))
        return self._ct.filter([u])

    def _heard_elsewhere(self, u: Utterance) -> tuple[str, ...]:
        """What other mics' recognisers heard of ``u``'s voice in other words: their
        utterances of its kind (of a partial call: calls too) overlapping it whose loudest
        mic is ``u``'s (its leaks)."""
        kinds = {u.kind, "call"} if u.kind == "partial" else {u.kind}
        return tuple(dict.fromkeys(
            v.said for v in self._recent
            if v.channel != u.channel and v.kind in kinds and v.said != u.said
            and _overlap(u, v) > 0.3 and self._ct.loudest(v) == u.channel))

    def _dealer_copy(self, u: Utterance, final: bool) -> bool | None:
        """Whether ``u``, kept on its own mic, is one voice with the same words heard at
        once between the dealer's mic and a player's (a card is never dealt and called
        at the same moment: one of them is the other's leak), and the other mic's
        stands higher over its noise (an array's other seat is louder); None: wait for the
        players' recognisers. Separate mics with the leaks taken out, or an array's seats."""
        d = self._dealer
        if d is None or u.kind == "unknown":
            return False
        others = [d] if u.channel != d else [k for k in range(len(self.channels)) if k != d]
        if u.channel == d and not final \
                and (self._ct_end or 0) / self.rate < u.end + self.DEALER_WAIT \
                and any(k not in self._streams or self._streams[k].watermark < u.end
                        for k in others):
            return None
        for v in self._same_words(u, others):
            measure = self._ct.levels if self.twins else self._ct.over_floor
            level = measure((u.channel, v.channel), max(u.start, v.start), min(u.end, v.end))
            if level[v.channel] >= level[u.channel]:
                return True
        return False

    def _same_words(self, u: Utterance, channels) -> list[Utterance]:
        """What ``channels``' recognisers heard at once with ``u``'s words and kind
        (overlapping it over 30 % of the shorter)."""
        return [v for v in self._recent if v.channel in channels and v.said == u.said
                and v.kind == u.kind and _overlap(u, v) > 0.3]

    def _watermarks(self) -> list[Event]:
        if len(self._streams) < len(self.channels):
            return []
        if self.crosstalk:
            common = min([self._held_from(ch) for ch in self._streams]
                         + [u.start - self.earlier for u in self._pending])
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

