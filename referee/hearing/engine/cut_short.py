"""A call that only seems cut short: "jack of", a pause, "clubs".

A slow voice, or a player finding the suit, can leave 0.2 s of quiet between "of" and the
suit, the segmenter's hang in quiet; the segment then closes on "jack of", a call cut short,
which puts the caller out. So a segment heard as a partial call with a rank and no suit is
held back: when the next segment begins where it ends (the voice came back within the next
segment's lead-in) and alone gives no call, the two are heard again as one, or its rank and
the next one's bare suit make the call; otherwise the partial call is reported as it was, a
little later (docs/partial-calls.md, "Jack of ... clubs")."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from referee.core.cards import Card, Partial, read_call
from referee.core.events import CALLS_AND_SHOUTS, Utterance, UtteranceKind
from referee.hearing import checks
from referee.hearing.segmenter import Segment

#: Seconds of the quiet kept after the held segment's loud part, and before the next
#: one's, when they are joined: an "of" fades, and a suit's "c" or "d" begins with a closure.
KEEP_AFTER, KEEP_BEFORE = 0.06, 0.1


def partial(out: list[Utterance]) -> Partial | None:
    """What ``out`` names when it is one partial call (:func:`read_call`), else None."""
    found = read_call(out[0].said) if len(out) == 1 \
        and out[0].kind == UtteranceKind.PARTIAL else None
    return found if isinstance(found, Partial) else None


def cut_short(out: list[Utterance]) -> bool:
    """Whether ``out`` is one partial call with a rank and no suit ("jack of", "jack")."""
    found = partial(out)
    return found is not None and found.suit is None


@dataclass
class Held:
    """A segment heard as a call cut short, and what it gave."""

    seg: Segment
    out: list[Utterance]

    @property
    def end(self) -> int:
        """The stream's sample just after the segment."""
        return self.seg.first + len(self.seg.samples)

    def joins(self, seg: Segment) -> bool:
        """Whether ``seg`` begins where the held segment ends."""
        return seg.first == self.end

    def joined(self, seg: Segment, rate: int | None = None) -> tuple[Segment, int, int]:
        """The held segment and ``seg`` (which :meth:`joins` it) as one; given the ``rate``,
        with the quiet between them cut to ``KEEP_AFTER`` + ``KEEP_BEFORE`` (the models know
        calls said in one breath). Also the sample of the joined segment where the cut is,
        and how many samples it took out (a time after it is that much later)."""
        if rate is None:
            return (Segment(np.concatenate([self.seg.samples, seg.samples]), self.seg.first,
                            self.seg.speech_first, seg.forced), len(self.seg.samples), 0)
        a = checks.trim(self.seg.samples, rate, (self.seg.speech_first - self.seg.first) / rate,
                        len(self.seg.samples) / rate)[1]
        b = checks.trim(seg.samples, rate, (seg.speech_first - seg.first) / rate,
                        len(seg.samples) / rate)[0]
        keep = min(len(self.seg.samples), int((a + KEEP_AFTER) * rate))
        skip = max(0, int((b - KEEP_BEFORE) * rate))
        samples = np.concatenate([self.seg.samples[:keep], seg.samples[skip:]])
        return (Segment(samples, self.seg.first, self.seg.speech_first, seg.forced),
                keep, len(self.seg.samples) - keep + skip)


class JoinsCutShort:
    """Holding a call cut short back, and hearing it with the segment that joins it. Mixed
    into ``SegmentStream``, whose ``engine``, ``segmenter``, ``_decode``, ``_decided_now``,
    ``_mark`` and ``_held`` (a :class:`Held` or None) it uses; the stream's watermark stays
    at the held segment's start."""

    JOIN = True
    """Whether a call cut short is held back for what follows (see the module)."""
    JOIN_WAIT = 1.2
    """Seconds after a held segment at which the segment that joins it, if still open, is
    heard with it as far as it has come: a call then, else the call cut short as it was."""

    def _release(self, force: bool = False) -> list[Utterance]:
        """The held call cut short, once no segment can join it any more (or ``force``):
        none began where it ends while the segmenter's lead-in reached back to it; or the
        one that did is still open ``JOIN_WAIT`` after it, and what it has so far makes no
        call with it (if it does, that call, and the open segment is decided)."""
        held, sg, rate = self._held, self.segmenter, self.engine.rate
        if held is None:
            return []
        if not force:
            if sg.in_speech:
                if sg.current_first == held.end:
                    if sg.consumed - held.end < self.JOIN_WAIT * rate:
                        return []
                    so_far = sg.so_far()
                    call = self._joined_call(held, so_far, self._decode(so_far, whole=False))
                    if call:
                        self._held = None
                        self._decided_now(call)
                        return call
            elif sg.consumed - held.end <= sg.history.maxlen * sg.frame:
                return []
        self._held = None
        return held.out

    def _joined_call(self, held: Held, seg: Segment, out: list[Utterance]
                     ) -> list[Utterance] | None:
        """The call ``held`` and ``seg`` (which joins it; ``out``: what it gives alone) make:
        heard again as one, as they are or with the quiet between them cut, a call of the
        held rank; else that rank and ``seg``'s bare suit. None if neither, or if ``seg``
        gives a call or shout of its own."""
        if any(u.kind in CALLS_AND_SHOUTS for u in out):
            return None
        rate, rank = self.engine.rate, partial(held.out).rank
        for joined, cut, taken in (held.joined(seg), held.joined(seg, rate)):
            whole = self._decode(joined, whole=False)
            card = read_call(whole[0].said) if [u.kind for u in whole] == [UtteranceKind.CALL] \
                else None
            if isinstance(card, Card) and card.rank == rank:
                at = self.start + (joined.first + cut) / rate
                return [dataclasses.replace(u, end=u.end + taken / rate if u.end > at
                                            else u.end) for u in whole]
        suit = partial(out)
        if suit is not None and suit.rank is None:
            # each heard on its own: the rank, then its suit
            first = held.out[0]
            return [dataclasses.replace(
                first, kind=str(UtteranceKind.CALL), said=Card(rank, suit.suit).spoken,
                end=out[0].end, confidence=min(first.confidence, out[0].confidence))]
        return None

    def _heard(self, seg: Segment, last: bool = False) -> list[Utterance]:
        """A closed segment decided; heard with the call cut short held before it when it
        joins it and alone gives no call; itself held back when it is a call cut short."""
        held, self._held = self._held, None
        out = self._decode(seg)
        call = self._joined_call(held, seg, out) if held is not None and held.joins(seg) \
            else None
        if call:
            return call
        before = held.out if held is not None else []
        if self.JOIN and not last and cut_short(out) and out[0].start >= self._mark:
            self._held = Held(seg, out)
            return before
        return before + out
