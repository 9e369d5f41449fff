"""What the small checks read in a segment beside the decoder (the number check, the
partial-call check): :class:`CheckedReadings`, the part of
:class:`~referee.hearing.engine.segment_stream.SegmentStream` that weighs them."""

from __future__ import annotations

import numpy as np

from referee.core.events import Utterance
from referee.hearing import checks
from referee.hearing.engine.backing import MIN_VOICED_RUN
from referee.hearing.grammar import Match

#: Seconds an answer the number check hears alone may last ("forty seven cards" does).
MAX_NUMBER = 1.6


class CheckedReadings:
    """Numbers, partial calls and bare bids as the checks hear them in a segment, and the
    loudness and voicing tests they share. Mixed into ``SegmentStream``, whose ``engine``,
    ``start``, ``channel``, ``player``, ``source`` and ``_rest_of`` they read."""

    def _number_alone(self, seg, p: dict | None = None) -> list[Utterance]:
        """The number the number check is sure of in a segment where the decoder read
        no phrase, or a number the check does not believe (see :meth:`Backed.number_alone`;
        ``p``: the check's probabilities for it, when asked already), if its loud part
        lasts at most :data:`MAX_NUMBER` seconds and is voiced as a call must be."""
        eng = self.engine
        a, b = self._loud_part(seg)
        if b - a > MAX_NUMBER:
            return []  # talk: no need to ask the check
        found = eng.number_alone(eng.number_probabilities(seg.samples) if p is None else p)
        return [] if found is None else self._number_over(seg, found[0].said, found[1], a, b)

    def _number_over(self, seg, said: str, p: float, a: float | None = None,
                     b: float | None = None) -> list[Utterance]:
        """The number ``said`` (the number check gives it ``p``) over the segment's loud
        part (from ``a`` to ``b`` seconds into it, when known), if that lasts at most
        :data:`MAX_NUMBER` seconds and is voiced as a call must be; else nothing."""
        rate = self.engine.rate
        if a is None or b is None:
            a, b = self._loud_part(seg)
        if b - a > MAX_NUMBER or checks.voiced_run(
                seg.samples[int(a * rate):int(b * rate)], rate) < MIN_VOICED_RUN:
            return []
        t0 = self.start + seg.first / rate
        return [Utterance("number", said, float(t0 + a), float(t0 + b), round(p, 3),
                          self.channel, self.player, self.source)]

    def _partial_weighed(self, seg, m, words, probs) -> list[Utterance] | None:
        """A partial call as the partial-call check weighs it (see :class:`Backing`): the
        decoder's (``m``) with no more checks of the decoder's when the check gives partial
        calls ``partial_take`` or more; the check's own where the decoder read no phrase and
        it gives them ``partial_alone`` or more; nothing ("unknown") where the decoder read
        one and the check gives them under ``partial_veto``. In the rest of a decided segment
        the check's partial call stands only from ``partial_rest`` on. Either must still be
        voiced and pass :meth:`Backed.partial_holds` (short, and no whole call by the
        classifier). None: the check has no say, and the decoder's checks decide."""
        eng, rate, bk = self.engine, self.engine.rate, self.engine.backing
        t0 = self.start + seg.first / rate
        rest = seg.first == self._rest_of
        alone = bk.partial_rest if rest else bk.partial_alone
        if m is None or rest:
            heard = None if alone is None else self._partial_heard(seg)
            if heard is None:
                return None
            said, q, a, b = heard
            if q < alone:
                return None
        else:
            q = eng.partials.heard(seg.samples)[1]
            a, b = checks.trim(seg.samples, rate, words[0][1], words[-1][2])
            if bk.partial_veto is not None and q < bk.partial_veto:
                return [Utterance("unknown", " ".join(w for w, _, _ in words), float(t0 + a),
                                  float(t0 + b), 0.0, self.channel, self.player, self.source)]
            if bk.partial_take is None or q < bk.partial_take:
                return None
            said = m.said
        span = b - a
        if span > bk.partial_span and q >= bk.partial_sure:
            span = checks.speech_span(seg.samples, rate, a, b)
        if not eng.partial_holds(probs, span) or not self._voiced(seg.samples, a, b, 0.0):
            return None
        return [Utterance("partial", said, float(t0 + a), float(t0 + b), round(q, 3),
                          self.channel, self.player, self.source)]

    def _bare_bid(self, seg) -> list[Utterance] | None:
        """A bare bid ("seven") as the partial-call check hears it (it knows bare ranks):
        the rank it gives ``bid_alone`` or more, over a voiced loud part no longer than a
        partial call's, where the grammar reads that rank as a bid; None: the decoder's
        reading stands."""
        eng, rate, bk = self.engine, self.engine.rate, self.engine.backing
        heard = None if bk.bid_alone is None else self._partial_heard(seg)
        if heard is None:
            return None
        said, q, a, b = heard
        m = eng.grammar.match(said)
        if q < bk.bid_alone or m is None or m.kind != "bid" \
                or not self._voiced(seg.samples, a, b, 0.0):
            return None
        t0 = self.start + seg.first / rate
        return [Utterance("bid", m.said, float(t0 + a), float(t0 + b), round(q, 3), self.channel,
                          self.player, self.source)]

    def _bid_rank(self, seg, m: Match, words) -> tuple[Match, float | None]:
        """A bid of several words read by the decoder (``m``; its ``words`` with times in
        ``seg``) as the partial-call check hears its last word, the rank, alone: its rank
        in place of the decoder's where it gives it ``bid_rank`` or more, with that
        probability, which vouches for the reading (it stands though the decoder's
        confidence is 0); else ``m`` and None."""
        eng, bk = self.engine, self.engine.backing
        if bk.bid_rank is None or len(words) < 2:
            return m, None
        said, p = eng.partials.rank(seg.samples[int(words[-1][1] * eng.rate):])
        if p < bk.bid_rank:
            return m, None
        if said != words[-1][0]:
            m2 = eng.grammar.match(" ".join([*(w for w, _, _ in words[:-1]), said]))
            if m2 is None or m2.kind != "bid":
                return m, None
            m = m2
        return m, p

    def _partial_heard(self, seg) -> tuple[str, float, float, float] | None:
        """The partial-call check's likeliest partial call in ``seg`` and how likely one is,
        with its loud part (seconds into ``seg``); None when its speech lasts longer than a
        partial call may (``partial_span``): no need to ask the check."""
        a, b = self._loud_part(seg)
        most = self.engine.backing.partial_span
        if b - a > most and checks.speech_span(seg.samples, self.engine.rate, a, b) > most:
            return None
        said, q = self.engine.partials.heard(seg.samples)
        return said, q, a, b

    def _loud_part(self, seg) -> tuple[float, float]:
        """Seconds into ``seg`` where its loud part, from where its speech begins, starts
        and ends (see :func:`checks.trim`)."""
        rate = self.engine.rate
        return checks.trim(seg.samples, rate, (seg.speech_first - seg.first) / rate,
                           len(seg.samples) / rate)

    def _voiced(self, x: np.ndarray, a: float, b: float, q: float) -> bool:
        """Whether ``x`` between ``a`` and ``b`` seconds is voiced long enough for
        a call or shout the classifier gives probability ``q``."""
        rate = self.engine.rate
        return checks.voiced_run(x[int(a * rate):int(b * rate)], rate) \
            >= self.engine.min_voiced_run(q)
