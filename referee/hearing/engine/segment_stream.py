"""Segment-at-a-time streams: :class:`SegmentStream` cuts speech out by
voice activity and decides each piece with the classifier or the decoder
(PocketSphinx, and Vosk with the classifier)."""

from __future__ import annotations

import dataclasses

import numpy as np

from referee.core.events import CALLS_AND_SHOUTS, Utterance, UtteranceKind
from referee.hearing import checks
from referee.hearing.classifier import OTHER
from referee.hearing.engine.backing import Backed
from referee.hearing.engine.base import _as_int16
from referee.hearing.engine.checked_readings import CheckedReadings
from referee.hearing.engine.cut_short import JoinsCutShort
from referee.hearing.features import HOP, WINDOW, normalise, raw_log_mel
from referee.hearing.segmenter import Segment, Segmenter

#: The kinds that must be voiced (see :meth:`Backed.min_voiced_run`): every
#: word of a call, a shout or a partial call has a vowel.
VOICED_KINDS = CALLS_AND_SHOUTS | {UtteranceKind.PARTIAL}

#: dB under its loudest 10 ms where a phrase the classifier heard begins and ends.
CLASSIFIED_SPAN_DB = 25.0


class SegmentStream(CheckedReadings, JoinsCutShort):
    """Cuts speech out by voice activity and decodes each piece whole.

    While a segment is still open (the segmenter waits for the speech to stop,
    which in babble or clatter can be a second or more after a call), the
    classifier looks at what has come so far every ``EARLY_STEP`` seconds; when
    it is sure (``engine.backing.early``) of a call or shout, that is reported at once
    and the rest of the segment is not decoded again.

    In loud noise the segmenter waits longer (``engine.backing.hang_noisy``) before it
    closes a segment, so that a call whose weak parts sink under the noise is
    not cut in two. Once a pause there is as long as one that closes a segment
    in quiet (``settle``, ``engine.backing.hang``), the classifier's bar is the one at
    a close (``engine.backing.accept``): a call it is that sure of is reported then,
    as the shorter wait would have, and talk after the pause does not bury
    it. With no pause at all (talk or babble straight after the call), a call
    the classifier has held at that bar look after look for ``STEADY``
    seconds is reported too, ending where it began to hold it.

    A call need not wait for its segment to close at all
    (``engine.backing.decide_at_pause``): at a pause of ``QUICK_PAUSE`` seconds, in
    quiet or in noise, what has come so far is decided as at a close, with the
    classifier's bar at ``engine.backing.pause_accept``, and once more at a pause as long as
    ``settle`` in a segment that noise holds open, with the bar of a close.
    Only calls and shouts are decided so, and PocketSphinx's only when the
    classifier gives them at least ``engine.backing.pause_support``: a prefix of
    longer talk ("four of my friends") is read as a call more readily than
    the whole, and commands found at pauses were wrong one time in three.
    Anything else waits for the close.

    A pause need not be quiet (``VOICELESS``): a shuffle or slapped cards
    straight after a call hold its segment open for as long as they go on,
    and the call was decided only then, read with all that noise after it,
    and often not heard at all. Once the segment has been without a voice
    (see :class:`~.checks.VoicelessRun`) for ``VOICELESS_PAUSE`` while sound
    goes on, what has come up to ``VOICE_TAIL`` after the voice is decided as
    at the second stage, once, and ends at most ``VOICE_END`` after the
    voice.

    A segment decided while still open is not done with: from ``REARM`` after the end of
    what was decided, the rest of it is heard afresh, as a segment of its own (the dealer's
    card leaks into a player's mic, and the player's call comes before the noise lets the
    segment close). What the rest gives must be surer than a segment of its own: a partial
    call only as the partial-call check hears it, surer than elsewhere (``partial_rest``),
    and a call or shout PocketSphinx reads there needs the classifier's support at a
    pause (after a call, babble was read as a bare "nine" or as "goop").

    A segment heard as a call cut short ("jack of") is held back, and heard again with the
    next segment when that begins where it ends (``JOIN``; :mod:`.cut_short`).

    Why these settings, with the figures that chose them: docs/hearing-decisions.md."""

    EARLY_STEP = 0.1
    QUICK_PAUSE = 0.12
    """Seconds of a pause after which what has come so far is decided."""
    EARLY_MIN = 0.3
    """Seconds of speech before the first look."""
    EARLY_WINDOW = 2.5
    """Seconds (the latest) the classifier looks at in an open segment."""
    VOICELESS = True
    """Whether a stretch without voice (see :class:`~.checks.VoicelessRun`)
    ``VOICELESS_PAUSE`` long is a pause, for the decision at a pause, even
    where the segmenter hears sound: card-table clatter after a call."""
    VOICELESS_PAUSE = 0.3
    """Seconds without a voice that make such a pause: longer than ``settle``,
    as a slow voice's unvoiced consonants ("of h", the "ts" of "hearts") can
    last 0.2 s."""
    VOICE_TAIL = 0.3
    """Seconds of sound after the voice kept with what is decided at such a
    pause: a call's last consonants may have no voice."""
    VOICE_END = 0.15
    """Seconds after the voice at which a call decided at such a pause ends,
    at the latest: the clicks after it are as loud as its last consonant and
    would stretch its end (the judge orders races by ends)."""
    STEADY = 0.3
    """Seconds of audio over which the classifier has held one call or shout
    at the bar of a close (``engine.backing.accept``), look after look, before it is
    believed at that bar in a segment still open."""

    HEAD_GAP = 0.25
    """Seconds of pause in the voice that part a call from words said before it in the
    same segment (a call's own unvoiced consonants last less: "six | of")."""
    PIECES = 8
    """Pieces, at most, that a segment read as no phrase is heard again in (see
    :meth:`_pieces`; docs/partial-calls.md, "More pieces")."""
    HEAD_CALL = 0.3
    """Seconds of voice a call after such a pause has, at least."""
    LOUD_LONG, LOUD_DB, LOUD_PAD = 2.0, 6.0, 0.15
    """A segment read as no phrase, this long (seconds) with no pauses to cut, is heard
    again in its stretches ``LOUD_DB`` over its median level, ``LOUD_PAD`` seconds wider
    each side (docs/partial-calls.md, "Loud pieces")."""

    REARM = 0.25
    """Seconds after the end of a call decided in an open segment from which the rest of
    the segment is heard afresh: past the call's last consonant and past the end the
    judge's tie window needs heard."""
    REARM_MIN = 0.3
    """Seconds of a closed segment's rest, after ``REARM``, worth decoding."""

    def __init__(self, engine: Backed, start: float, channel: int, player: str | None,
                 source: str) -> None:
        self.engine = engine
        self.start, self.channel, self.player, self.source = start, channel, player, source
        self.segmenter = Segmenter(engine.rate, hang=engine.backing.hang,
                                   hang_noisy=engine.backing.hang_noisy)
        self._mark = start
        self._decided: int | None = None  # first sample of the open segment already reported
        self._rearm_at: int | None = None  # sample from which the decided segment is heard again
        self._rest_of: int | None = None  # first sample of the rest of a decided segment
        self._looked = 0  # samples consumed at the last early look
        self._frames_of: int | None = None  # first sample of the segment _frames are of
        self._frames = np.zeros((0, 0))  # its log-mel frames so far (not normalised)
        # (segment's first sample, phrase, samples consumed when it began to
        # lead at the accept bar), or None
        self._leader: tuple[int, str, int] | None = None
        self.settle = engine.backing.hang
        # (segment, pause, stage: 1 at QUICK_PAUSE, 2 at settle) last decided at
        self._paused: tuple[int, int, int] | None = None
        # how long the open segment has been without voice (VOICELESS), and
        # its first sample and frames fed to it so far
        self._voicing = checks.VoicelessRun(engine.rate)
        self._voicing_of: int | None = None
        self._voicing_frames = 0
        # (segment, start) of the last pause in the voice only decided at
        self._unvoiced: tuple[int, int] | None = None
        self._held = None  # a call cut short, held back (JOIN): a cut_short.Held

    @property
    def watermark(self) -> float:
        """Audio consumed, or the start of the segment being gathered (unless
        that segment has been reported already: it gives nothing more)."""
        sg = self.segmenter
        since = sg.open_since
        if since is None or (sg.in_speech and self._decided == sg.current_first):
            n = sg.consumed if self._rearm_at is None else min(sg.consumed, self._rearm_at)
        else:
            n = since
        if self._held is not None:
            n = min(n, self._held.seg.first)
        self._mark = max(self._mark, self.start + n / self.engine.rate)
        return self._mark

    def feed(self, samples: np.ndarray) -> list[Utterance]:
        out = []
        for seg in self.segmenter.feed(_as_int16(samples)):
            out += self._closed(seg)
        self._rearm()
        self._track_voicing()
        new = self._early() or self._at_pause()
        return out + self._release(force=bool(new)) + new

    def _decided_now(self, out: list[Utterance]) -> None:
        """The open segment has given ``out``: nothing more until ``REARM`` after its end."""
        self._decided = self.segmenter.current_first
        end = max(u.end for u in out)
        self._rearm_at = int(round((end - self.start + self.REARM) * self.engine.rate))

    def _rearm(self) -> None:
        """Hear the rest of a decided segment afresh, once it has audio past ``_rearm_at``."""
        sg = self.segmenter
        if self._rearm_at is None or not sg.in_speech or self._decided != sg.current_first:
            return
        if sg.split(self._rearm_at):
            self._rearm_at, self._rest_of = None, sg.current_first
            self._looked = sg.consumed - int(self.EARLY_STEP * self.engine.rate)
            self._leader = self._paused = self._unvoiced = None

    def _track_voicing(self) -> None:
        """Keep ``_voicing`` up with the open segment (see :meth:`_at_pause`)."""
        sg = self.segmenter
        if not self.VOICELESS or not self.engine.backing.decide_at_pause or not sg.in_speech \
                or self._decided == sg.current_first:
            return
        if self._voicing_of != sg.current_first:
            self._voicing_of, self._voicing_frames = sg.current_first, 0
            self._voicing = checks.VoicelessRun(self.engine.rate)
        if len(sg.current) > self._voicing_frames:
            self._voicing.feed(np.concatenate(sg.current[self._voicing_frames:]))
            self._voicing_frames = len(sg.current)

    def _at_pause(self) -> list[Utterance]:
        """At a pause in an open segment: the decision of a close on what has
        come so far, for calls and shouts only (see :meth:`_decode`), once
        when the pause is ``QUICK_PAUSE`` long (the classifier's bar then is
        ``engine.backing.pause_accept``) and once more, in a segment that noise holds
        open, when it is as long as one that closes a segment in quiet
        (``settle``; the bar of a close). A stretch without a voice
        ``VOICELESS_PAUSE`` long is such a pause too (``VOICELESS``), though
        the segmenter hears sound there: what is decided then is what came up
        to ``VOICE_TAIL`` after the voice, and ends ``VOICE_END`` after it at
        the latest. One found is reported (and the segment decided); anything
        else waits for the close."""
        sg, rate, eng = self.segmenter, self.engine.rate, self.engine
        if not eng.backing.decide_at_pause or not sg.in_speech \
                or self._decided == sg.current_first:
            return []
        run = sg.silent_run * sg.frame
        stage = 2 if run >= self.settle * rate else 1 if run >= self.QUICK_PAUSE * rate else 0
        kept = latest = None  # samples of the segment decided on; the latest end (seconds)
        if stage:
            pause = (sg.current_first, sg.consumed - run)
            if self._paused is not None and self._paused[:2] == pause \
                    and self._paused[2] >= stage:
                return []
            self._paused = (*pause, stage)
        else:
            # No quiet, but perhaps no voice either (a shuffle after the call)
            # for VOICELESS_PAUSE: decided once.
            run = self._voicing.run if self._voicing_of == sg.current_first else 0
            pause = (sg.current_first, sg.consumed - run)
            if not self.VOICELESS or run < self.VOICELESS_PAUSE * rate \
                    or self._unvoiced == pause:
                return []
            self._unvoiced, stage = pause, 2
            # The sound after the voice is not the call's.
            kept = max(0, pause[1] - sg.current_first + int(self.VOICE_TAIL * rate))
            latest = self.start + pause[1] / rate + self.VOICE_END
        seg = sg.so_far()
        seg = dataclasses.replace(seg, samples=seg.samples[:kept])
        out = self._decode(seg, pause=True,
                           accept=eng.backing.pause_accept if stage == 1 else eng.backing.accept)
        if out:
            self._decided_now(out)
        if latest is not None:
            out = [dataclasses.replace(u, end=max(u.start, min(u.end, latest))) for u in out]
        return out

    def close(self) -> list[Utterance]:
        out = []
        for seg in self.segmenter.flush():
            out += self._closed(seg, last=True)
        return out + self._release(force=True)

    def _closed(self, seg, last: bool = False) -> list[Utterance]:
        if self._decided == seg.first:
            self._decided, at = None, self._rearm_at
            self._rearm_at = None
            sg = self.segmenter
            if seg.forced and at is not None and sg.in_speech and at > sg.current_first:
                # cut short before its rest was to be heard: the piece that goes on open
                # holds the end of what was decided, and is heard from ``at`` as the rest
                self._decided, self._rearm_at = sg.current_first, at
                return []
            rest = len(seg.samples) if at is None else at - seg.first
            if len(seg.samples) - rest < self.REARM_MIN * self.engine.rate:
                return []
            # closed before its rest could be heard afresh: that rest is a segment of its own
            seg = Segment(seg.samples[rest:], seg.first + rest, max(seg.speech_first,
                                                                     seg.first + rest))
            self._rest_of = seg.first
        return self._heard(seg, last)

    def _early(self) -> list[Utterance]:
        eng, sg, rate = self.engine, self.segmenter, self.engine.rate
        if not eng.classifying or eng.backing.early is None or not sg.in_speech \
                or self._decided == sg.current_first \
                or sg.consumed - sg.current_speech < self.EARLY_MIN * rate \
                or sg.consumed - self._looked < self.EARLY_STEP * rate:
            return []
        self._looked = sg.consumed
        x = np.concatenate(sg.current)
        frames = self._raw_frames(sg.current_first, x)
        skip = max(0, len(frames) - int(self.EARLY_WINDOW * 100))
        best, q, _ = eng.classify(feats=normalise(frames[skip:]))
        if best == OTHER or q < eng.backing.accept:
            self._leader = None
        elif self._leader is None or self._leader[:2] != (sg.current_first, best):
            self._leader = (sg.current_first, best, sg.consumed)
        steady = self._leader is not None and \
            sg.consumed - self._leader[2] >= self.STEADY * rate
        settled = sg.silent_run * sg.frame >= self.settle * rate
        cfg = eng.backing
        if best == OTHER or q < (min(cfg.early, cfg.accept) if settled or steady else cfg.early):
            return []
        if steady and q < eng.backing.early:
            # It had heard the whole call when it began to hold it: the call
            # ends before that, not where the talk after it does.
            x = x[:self._leader[2] - sg.current_first]
        x = x[skip * HOP:]
        lead = max(0, sg.current_speech - sg.current_first - skip * HOP) / rate
        u = self._utterance(x, sg.current_first + skip * HOP, lead, best, q)
        if u:
            self._decided_now(u)
        return u

    def _raw_frames(self, first: int, x: np.ndarray) -> np.ndarray:
        """The log-mel frames (not normalised) of the segment beginning at
        sample ``first`` whose samples so far are ``x``: kept while it grows,
        so each frame is computed once, by the early looks and at its close."""
        if self._frames_of != first:
            self._frames_of, self._frames = first, np.zeros((0, 0))
        done = len(self._frames)
        new = x[done * HOP:]
        if len(new) >= WINDOW:
            more = raw_log_mel(new)
            self._frames = more if not done else np.concatenate([self._frames, more])
        if not len(self._frames):
            return raw_log_mel(x)  # shorter than a window: padded, and not kept
        # (x may be shorter than what was kept: the segment cut at a pause)
        return self._frames[:max(1, 1 + (len(x) - WINDOW) // HOP)]

    def _utterance(self, x: np.ndarray, first: int, lead: float, said: str, q: float
                   ) -> list[Utterance]:
        """The classifier's ``said`` for audio ``x`` (which starts at sample
        ``first`` of the stream, its speech ``lead`` seconds in), timed by its
        loud part; nothing if that part is not voiced."""
        rate = self.engine.rate
        # No word timings here: the phrase is where the sound is within
        # CLASSIFIED_SPAN_DB of its loudest (the lead-in's noise and the tail's
        # breath or reverberation are not).
        a, b = checks.trim(x, rate, max(0.0, lead - 0.1), len(x) / rate, CLASSIFIED_SPAN_DB)
        kind = self.engine.phrase_kinds[said]
        if not self._voiced(x, a, b, q) or not self.engine.suit_holds(said, kind, x, b):
            return []
        head = self._head(x, a, b) if kind in CALLS_AND_SHOUTS else None
        if head is not None and self.engine.classify(x[int(head * rate):])[2].get(said, 0.0) \
                < min(q, self.engine.backing.accept):
            head = None  # what follows the pause is not the whole call: no head
        before: list[Utterance] = []
        if head is not None:
            a = max(a, checks.trim(x, rate, head, b, CLASSIFIED_SPAN_DB)[0])
            before = self._decode_head(x[:int(head * rate)], first, lead)
        t0 = self.start + first / rate
        return before + [Utterance(kind, said, float(t0 + a), float(t0 + b),
                                   round(q, 3), self.channel, self.player, self.source)]

    def _head(self, x: np.ndarray, a: float, b: float) -> float | None:
        """Seconds in ``x`` where words said before the call the classifier heard
        (``a`` to ``b`` seconds) end: a voiced stretch a pause of ``HEAD_GAP`` or more
        before the one the call ends in ("hearts ... two of spades", a miscall and then
        a call in one segment); None if there is none. The cut lies mid-pause."""
        rate = self.engine.rate
        i = int(a * rate)
        groups = checks.voiced_groups(x[i:int(b * rate)], rate, self.HEAD_GAP)
        if len(groups) < 2 or groups[-1][1] - groups[-1][0] < self.HEAD_CALL:
            return None
        return a + (groups[-2][1] + groups[-1][0]) / 2

    def _decode_head(self, x: np.ndarray, first: int, lead: float) -> list[Utterance]:
        """What was said in ``x``, the head of a segment cut off before a call (see
        :meth:`_head`), decided as a segment of its own; nothing in the rest of a
        decided segment (a head there is the tail of what was decided)."""
        if first == self._rest_of or len(x) < int(0.1 * self.engine.rate):
            return []
        speech = first + min(len(x) - 1, int(lead * self.engine.rate))
        heard = self._decode(Segment(x, first, speech), whole=False)
        return [u for u in heard if u.kind != "unknown"]

    def _pieces(self, seg: Segment) -> list[Utterance]:
        """A segment that read as no phrase, heard again piece by piece, cut where its voice
        pauses for ``HEAD_GAP`` or more ("hearts ... four of diamonds": a partial call and
        then a call, which the decoder cannot read as one), each piece decided as a segment
        of its own; what the pieces give counts only if one of them is a call or shout, and
        then only calls, shouts and partial calls. Nothing if there are no such pieces, or
        where partial calls are not listened for: a play of Swoop's or soccer's said with a
        pause in it ("two ... sevens", "nine of hearts ... and two of hearts") must be asked
        again, not taken for its first piece."""
        eng, rate = self.engine, self.engine.rate
        if getattr(eng, "plays", False) or "partial" not in eng.grammar.kinds \
                or not eng.listened("partial"):
            return []
        groups = checks.voiced_groups(seg.samples, rate, self.HEAD_GAP)
        n = len(seg.samples)
        if 2 <= len(groups) <= self.PIECES:
            cuts = [0, *(int((g[1] + h[0]) / 2 * rate) for g, h in zip(groups, groups[1:])), n]
            spans = list(zip(cuts, cuts[1:]))
        elif n >= self.LOUD_LONG * rate and sum(b - a for a, b in groups) >= 0.8 * n / rate:
            # voice all through, no pause: talk around kept it open; its loud stretches
            groups = checks.loud_groups(seg.samples, rate, self.HEAD_GAP, self.LOUD_DB,
                                        self.HEAD_CALL)
            pad = int(self.LOUD_PAD * rate)
            spans = [(max(0, int(g[0] * rate) - pad), min(n, int(g[1] * rate) + pad))
                     for g in groups]
        else:
            return []
        heard: list[Utterance] = []
        for (voiced, _), (a, b) in zip(groups, spans):
            speech = seg.speech_first if a == 0 else seg.first + max(a, int(voiced * rate) - 1)
            piece = Segment(seg.samples[a:b], seg.first + a, min(speech, seg.first + b - 1))
            heard += [u for u in self._decode(piece, whole=False) if u.kind in VOICED_KINDS]
        return heard if any(u.kind in CALLS_AND_SHOUTS for u in heard) else []

    def _decode(self, seg, pause: bool = False, accept: float | None = None,
                whole: bool = True) -> list[Utterance]:
        """One segment: the classifier's phrase when it is sure of one (and
        the sound is voiced); otherwise PocketSphinx's reading, whose calls and
        shouts must pass the checks and not be ones the classifier all but
        rules out. ``pause``: the segment so far, at a pause in it (see
        :meth:`_at_pause`): only calls and shouts, and PocketSphinx's only when
        the classifier gives them ``engine.backing.pause_support`` or more.
        ``accept``: the classifier's bar (default ``engine.backing.accept``). ``whole``:
        ``seg`` is a whole segment, which when it reads as no phrase is heard again in
        pieces (:meth:`_pieces`)."""
        eng, rate = self.engine, self.engine.rate
        accept = eng.backing.accept if accept is None else accept
        t0 = self.start + seg.first / rate
        probs = None
        if eng.classifying:
            best, q, probs = eng.classify(
                feats=normalise(self._raw_frames(seg.first, seg.samples)))
            if best != OTHER and q >= accept and eng.classifier_decides():
                u = self._utterance(seg.samples, seg.first, (seg.speech_first - seg.first) / rate,
                                    best, q)
                if u and getattr(eng, "plays", False):
                    # the classifier knows single cards only: a play PocketSphinx reads
                    # in the whole segment ("block with ...", "... and ...") wins
                    read = self._decode(seg, pause, accept=1.01)
                    if read and read[0].kind == "play":
                        return read
                if u:
                    return u
        bar = eng.backing.pause_support if pause and probs is not None else None
        if bar is not None and max((v for name, v in probs.items() if name != OTHER),
                                   default=0.0) < bar:
            return []
        lead = seg.samples[:max(0, seg.speech_first - seg.first)]
        text, words, conf = eng.decode(seg.samples, lead[-int(0.25 * rate):], self.channel,
                                       probs)
        said = " ".join(w for w, _, _ in words)
        m = eng.grammar.match(said) if words else None
        if m is not None and not eng.listened(m.kind):
            m = None  # a search that lost its way part-through ("eight" of "eight of diamonds")
        if (m is None or conf <= 0 and m.kind != "number") and not pause \
                and getattr(eng, "numbers", None) is not None and eng.listened("number"):
            alone = self._number_alone(seg)
            if alone:
                return alone
        if (m is None or m.kind == "bid" and " " not in m.said) and not pause \
                and getattr(eng, "partials", None) is not None \
                and "bid" in eng.grammar.kinds and eng.listened("bid"):
            bare = self._bare_bid(seg)
            if bare is not None:
                return bare
        if (m is None or m.kind == "partial") and not pause \
                and getattr(eng, "partials", None) is not None and eng.listened("partial"):
            weighed = self._partial_weighed(seg, m, words, probs)
            if weighed is not None:
                return weighed
        if not words:
            return []
        if m is not None and m.kind == "bid" and not pause \
                and getattr(eng, "partials", None) is not None:
            m, vouched = self._bid_rank(seg, m, words)
            if vouched is not None and conf <= 0:
                conf = vouched
        a, b = checks.trim(seg.samples, rate, words[0][1], words[-1][2])
        start, end = float(t0 + a), float(t0 + b)
        if m is not None and m.kind == "number" and not pause:
            p = eng.number_probabilities(seg.samples)
            m, q = eng.number_heard(m, p)  # "forty" that was "fourteen"
            sure = eng.backing.number_sure
            if m is not None and conf > 0 and sure is not None and q >= sure:
                # the check heard the whole segment: the decoder's word times do not matter,
                # unless noise holds its loud part open too long (docs/model-history.md)
                over = self._number_over(seg, m.said, q) or self._number_over(seg, m.said, q, a, b)
                if over:
                    return over
            if m is None:
                return self._number_alone(seg, p) or [Utterance(
                    "unknown", said, start, end, 0.0, self.channel, self.player, self.source)]
        outside = eng.backing.partial_outside if m is not None and m.kind == "partial" \
            else eng.backing.max_outside
        if m is None or conf <= 0 or not checks.plausible(words, a, b) \
                or checks.speech_outside(seg.samples, rate, a, b) > outside \
                or (m.kind in VOICED_KINDS and not self._voiced(
                    seg.samples, a, b, probs.get(m.said, 0.0) if probs else 0.0)) \
                or (m.kind == "partial" and not eng.partial_holds(probs, b - a)) \
                or not eng.suit_holds(m.said, m.kind, seg.samples, b):
            if pause:
                return []
            return (whole and self._pieces(seg)) or [Utterance(
                "unknown", said, start, end, 0.0, self.channel, self.player, self.source)]
        if pause and (m.kind not in CALLS_AND_SHOUTS
                      or (bar is not None and probs.get(m.said, 0.0) < bar)):
            return []
        if seg.first == self._rest_of and (m.kind == "partial" or (
                m.kind in CALLS_AND_SHOUTS and probs is not None
                and probs.get(m.said, 0.0) < eng.backing.pause_support)):
            return []  # the rest of a decided segment (see the class)
        return [Utterance(m.kind, m.said, start, end, round(conf, 3), self.channel, self.player,
                          self.source)]
