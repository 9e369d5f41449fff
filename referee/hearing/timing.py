"""Call timing from every microphone: a call's start and end on the shared clock as the
player's voice alone would give them (the first and last 10 ms frame, 1 ms hop, within
40 dB of its loudest), estimated from all channels.

With one mic per player each voice also reaches the other mics, a little later and 10 to
22 dB down. :class:`LeakModel` learns, from the audio itself, a short filter per ordered
pair of mics (the leak's gain and delay): from stretches where one mic's signal is a clear
delayed copy of another's (they stay fixed over a game). :class:`CallTimer` subtracts the
predicted leaks from the caller's own channel, then finds the call's edges on what is left,
in the whole band and in the 3-8 kHz band where the final fricatives of "clubs", "spades",
"hearts" and "diamonds" are, against the noise floor of the stretch around the call. In
noise an edge is seen only where the voice rises above the floor, not 40 dB under its
peak; the distance from there to the 40 dB point, measured on clean tuning voices for
each visible depth (:data:`START_OFFSET`, :data:`END_OFFSET`), is added back. Where the
edge network (:mod:`.edge_net`) finds the call on that channel, its start and end are taken
instead: it has learnt from many voices in many noises what the medians guess. See
docs/timing.md for how the figures were measured.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from referee.hearing import checks, edge_net
from referee.hearing.edge_net import EdgeNet
from referee.hearing.leaks import LeakModel

FRAME = 0.010
"""Seconds per envelope frame (the definition of a call's time)."""
HOP = 0.001
"""Seconds between envelope frames."""
SPAN_DB = 40.0
"""A call lasts while its voice is within this many dB of its loudest frame."""
BAND = (3000.0, 8000.0)
"""Hz: where the final fricatives are."""
LEAK_LEFT_DB = 12.0
"""dB: what is left of a neighbour's leak once the learnt leak is subtracted, at most
(a fixed filter does not follow the room exactly)."""
PEAK_SMOOTH = 51
"""Frames (1 ms) the envelope is averaged over to find the voice's loudest part."""
UNVOICED_LEAD = 0.2
"""Seconds a call's sound may begin before its voice ("six", "four", "two", "queen")."""
UNVOICED_TAIL = 0.3
"""Seconds it may go on after its voice (the "s" of "hearts")."""
VOICED_STEPS = 3
"""10 ms steps in a row that make a voice."""
VOICE_GAP = 0.25
"""Seconds without voice within one call ("six of spades")."""
CALL_GAP = 0.45
"""Seconds without voice that may still lie within one call, between words as loud."""
SAME_VOICE_DB = 8.0
"""dB: words before such a gap this much quieter than the rest are another voice's leak."""
MIN_RUN = 20
"""Frames: shorter bursts over the threshold (clicks of cards) are not the voice."""
NOISE_PERCENTILES = (97, 90, 75)
"""The noise level an edge must rise over: the first of these percentiles of the frames
around the call that the voice's peak stands 6 dB over."""
BROAD = (150.0, 8000.0)
"""Hz: the whole band less the rumble under the voice (pink noise, thumps on the table),
whose slow swings would pass for speech in 10 ms frames."""

# Median seconds between the edge seen at a depth of D dB under the peak and the edge at
# SPAN_DB, on clean tuning voices (``python -m referee.lab.bench.timing_dev --learn``), for
# D = 10, 14, ..., 38 and 40, per envelope (whole band above 150 Hz, fricative band).
DEPTHS = (10, 14, 18, 22, 26, 30, 34, 38, 40)
START_OFFSET = {
    "broad": (0.059, 0.044, 0.021, 0.014, 0.003, 0.001, 0.0, 0.0, 0.0),
    "band": (0.019, 0.005, 0.002, 0.0, 0.0, 0.0, 0.0, 0.0, -0.001),
}
END_OFFSET = {
    "broad": (0.199, 0.18, 0.149, 0.041, 0.014, 0.004, 0.001, 0.0, 0.0),
    "band": (0.028, 0.012, 0.004, 0.001, 0.0, 0.0, -0.001, -0.001, -0.002),
}


FALLBACK_LATE = 0.08
"""Seconds: where the edges cannot be seen, or are seen before the recogniser's end (in
babble at 8-12 dB the walk from the loudest frame can cover one word), the end is the
recogniser's, which is early (127 ms at the median on the tuning games: it ends before the
final /z/), moved this much later (docs/timing.md, "Fallback")."""


BAND_END_DEPTH = 10.0
"""dB under the peak: a fricative band's end seen this deep or deeper, and later than the
whole band's, is the call's end as seen, moved out by the band's own offsets only. The whole
band's end comes before the final /s/ or /z/ there, and its offset is the median tail of
the tuning voices' (espeak-ng's, slow), 150-200 ms when seen under 18 dB: far too long
for a voice whose tail is short, or whose reverberation held the whole band up
(docs/timing.md, "The fricative band's own end")."""


NET_LOOKAHEAD = 0.05
"""Seconds of audio the edge network must hear past a call's end before its end is taken
(the end of the audio heard so far looks like the end of a call to it; docs/timing.md)."""


WORD_OFFSETS_PATH = Path(__file__).resolve().parents[2] / "models" / "timing-offsets.json"
"""The same medians per word (``python -m referee.lab.bench.timing_dev --learn-words``): a
call's start by its rank word ("ace" and "eight" begin on a vowel, sharp, "four", "five"
and "three" on a weak fricative that lies long under the noise). The file has room for ends
per suit word; it holds none (they timed no better: docs/timing.md)."""


def word_offsets(path: Path = WORD_OFFSETS_PATH) -> dict:
    """{"start": {envelope: {rank word: table}}, "end": {envelope: {suit word: table}}},
    or empty tables where the file is missing (then the tables above serve every word)."""
    try:
        d = json.loads(path.read_text())
    except FileNotFoundError:
        return {"start": {}, "end": {}}
    if tuple(d["depths"]) != DEPTHS:
        raise ValueError(f"{path}: depths {d['depths']} are not {DEPTHS}")
    return {"start": d["start"], "end": d["end"]}


def envelope_db(y: np.ndarray, rate: int) -> np.ndarray:
    """RMS in dB of 10 ms frames every 1 ms; frame i starts at sample i * hop."""
    f, h = int(FRAME * rate), int(HOP * rate)
    if len(y) < f:
        return np.zeros(0)
    c = np.concatenate([[0.0], np.cumsum(np.asarray(y, np.float64) ** 2)])
    starts = np.arange(0, len(y) - f + 1, h)
    p = (c[starts + f] - c[starts]) / f
    return 10 * np.log10(p + 1e-12)


def band_pass(y: np.ndarray, rate: int, band: tuple[float, float] = BAND) -> np.ndarray:
    """``y`` with only ``band`` kept (FFT mask; the stretch is a few seconds)."""
    n = len(y)
    spec = np.fft.rfft(y)
    f = np.fft.rfftfreq(n, 1 / rate)
    spec[(f < band[0]) | (f > band[1])] = 0
    return np.fft.irfft(spec, n)


def _offset(table: tuple, depth: float) -> float:
    return float(np.interp(depth, DEPTHS, table))


def edges(env: np.ndarray, lo: int, hi: int, peak_in: tuple[int, int], floor_margin: float,
          gap: int, leak: np.ndarray | None = None) -> tuple[int, int, float, float] | None:
    """First and last frame (indices into ``env``) of the run of frames above the
    threshold that holds the loudest frame within ``peak_in``, bridging dips shorter than
    ``gap`` frames, kept within [lo, hi); and the depth (dB under the peak) of the
    threshold at each. The threshold is SPAN_DB under the peak, or ``floor_margin`` dB over
    the noise (a high percentile of the frames around the call: a low one would put
    babble's or clatter's swings over it) or over ``leak`` (what is left of the
    neighbours' voices, per frame), whichever is highest."""
    if not len(env) or peak_in[1] <= peak_in[0]:
        return None
    outside = np.concatenate([env[:max(0, lo - 50)], env[hi + 50:]])
    if len(outside) < 300:
        outside = env
    # the voice's loudest frame: found on the envelope smoothed over a syllable's
    # nucleus, which a click of the cards is too short to lead
    smooth = np.convolve(env, np.ones(PEAK_SMOOTH) / PEAK_SMOOTH, mode="same")
    c = peak_in[0] + int(np.argmax(smooth[peak_in[0]:peak_in[1]]))
    w0, w1 = max(0, c - PEAK_SMOOTH // 2), min(len(env), c + PEAK_SMOOTH // 2 + 1)
    p = w0 + int(np.argmax(env[w0:w1]))
    peak = float(env[p])
    # loud clicks may be more than the loudest few per cent of the noise: then its
    # level is taken lower, as long as the voice stands out of it
    for q in NOISE_PERCENTILES:
        floor = float(np.percentile(outside, q))
        if floor + floor_margin < peak - 6:
            break
    thr = np.full(len(env), max(peak - SPAN_DB, floor + floor_margin))
    if leak is not None:
        thr = np.maximum(thr, leak + floor_margin)
    if thr[p] >= peak - 3:
        return None
    above = checks.without_short_runs(env >= thr, MIN_RUN, p)
    a, b = checks.bridged_run(above, p, lo, hi, gap)
    return a, b, peak - float(thr[a]), peak - float(thr[b])


def call_end(seen: dict[str, tuple[int, float, float]], band_end_depth: float) -> float:
    """The call's end from each envelope's (``seen``: name -> its last frame over the
    threshold, the depth in dB it was seen at, its end moved out to the SPAN_DB point): the
    latest of the moved ends, since an envelope that loses an edge in the noise sees it early;
    but where the fricative band saw the final /s/ or /z/ itself, past the whole band's last
    frame and ``band_end_depth`` dB deep or more, the band's (see :data:`BAND_END_DEPTH`)."""
    band, broad = seen.get("band"), seen.get("broad")
    if band is not None and broad is not None and band[0] > broad[0] \
            and band[1] >= band_end_depth:
        return band[2]
    return max(end for _, _, end in seen.values())


def _voice(y: np.ndarray, rate: int, lo: int, hi: int, until: int | None = None
           ) -> tuple[float, float, float | None, float] | None:
    """Seconds (in ``y``) of the voiced stretch of ``y``'s frames ``lo`` to ``hi`` (1 ms
    envelope frames): the group of voiced steps, unvoiced gaps up to ``VOICE_GAP`` bridged,
    with the most voiced steps, of those that reach ``until`` (a frame) less
    ``UNVOICED_TAIL`` where any does, with the groups as loud before it across gaps up to
    ``CALL_GAP``: (start, end, the end of its first group when such were taken in, else
    None, and where the group that reaches ``until`` begins); None if there is no voice."""
    step = 0.01  # checks.voiced: one decision per 10 ms, of a 40 ms window
    a, b = int(lo * HOP * rate), int(hi * HOP * rate)
    # a vowel is voiced for steps on end; a click that rings at a pitch-like period, for one
    v = np.flatnonzero(checks.without_short_runs(checks.voiced(y[a:b], rate), VOICED_STEPS, -1))
    if not len(v):
        return None
    groups = np.split(v, np.flatnonzero(np.diff(v) > VOICE_GAP / step) + 1)
    every = groups
    if until is not None:
        # the recogniser's end is the call's (a little early, if anything); its start may
        # be that of a voice leaked in before the call, in the same segment
        last = (until - lo) * HOP - UNVOICED_TAIL
        groups = [g for g in groups if (g[-1] * step + 0.04) >= last] or groups
    g = max(groups, key=len)
    first, k = g[0], 0
    if until is not None:
        # words of the call itself before a longer pause ("nine of | spades" in noise) are
        # as loud as the rest of it; a leaked voice left after the leaks are taken out is not
        def level(h: np.ndarray) -> float:
            x = y[a + int(h[0] * step * rate):a + int((h[-1] * step + 0.04) * rate)]
            return 10 * np.log10(np.mean(np.asarray(x, np.float64) ** 2) + 1e-12)

        k = next(i for i, h in enumerate(every) if h[0] == g[0])
        own = level(g)
        while k > 0 and (first - every[k - 1][-1]) * step - 0.04 <= CALL_GAP \
                and level(every[k - 1]) >= own - SAME_VOICE_DB:
            k -= 1
            first = every[k][0]
    head = None if first == g[0] else every[k][-1]
    return (a / rate + first * step, a / rate + g[-1] * step + 0.04,
            None if head is None else a / rate + head * step + 0.04, a / rate + g[0] * step)


class CallTimer:
    """Refines attributed calls' times from every channel's audio (see the module)."""

    def __init__(self, rate: int, channels: int, floor_margin: float = 3.0,
                 gap: float = 0.2, before: float = 0.2, after: float = 0.3,
                 context: float = 1.5, correct: bool = True, max_earlier: float = 0.2,
                 end_no_earlier: float = 0.0, leaks: LeakModel | None = None,
                 by_word: bool = True, fallback_late: float = FALLBACK_LATE,
                 band_end_depth: float = BAND_END_DEPTH, edges: EdgeNet | None = None,
                 net_edges: tuple[str, ...] = ("start", "end")) -> None:
        self.rate, self.channels = rate, channels
        self.leaks = leaks if leaks is not None else LeakModel(rate, channels)
        self.floor_margin, self.gap = floor_margin, gap
        self.before, self.after, self.context = before, after, context
        self.correct = correct
        self.max_earlier = max_earlier
        """Seconds: a refined start is never earlier than the recogniser's by more (the
        listener holds its watermarks back by as much)."""
        self.words = word_offsets() if by_word else {"start": {}, "end": {}}
        """Offsets per rank and suit word (see :data:`WORD_OFFSETS_PATH`)."""
        self.end_no_earlier = end_no_earlier
        """Seconds: an end timed by the envelopes is never earlier than the recogniser's by
        more. The recogniser ends a call early, if anything (the weak final "s"); an end timed
        much earlier was cut where a neighbour's voice rose (docs/timing.md). The edge
        network's end is not held to it: where the recogniser's end is late (a call run
        together with talk after it), the network's came out right on the tuning games."""
        self.fallback_late = fallback_late
        """Seconds added to the recogniser's end where it is kept (see :data:`FALLBACK_LATE`)."""
        self.band_end_depth = band_end_depth
        """dB: see :data:`BAND_END_DEPTH`."""
        self.edges = edges
        """The edge network (:mod:`.edge_net`) the edges named in ``net_edges`` are taken
        from where it finds the call, or None."""
        self.net_edges = net_edges
        """Which of "start" and "end" the edge network gives (both: docs/timing.md)."""

    def _net_span(self, y: np.ndarray, lo: int, hi: int, pk: tuple[int, int]
                  ) -> tuple[float, float] | None:
        """(start, end) seconds in ``y`` of the call by the edge network, searched within
        1 ms frames ``lo`` to ``hi`` from its most probable frame in ``pk``."""
        if self.rate != edge_net.RATE:
            return None
        per = edge_net.HOP / (HOP * self.rate)  # 1 ms frames per network frame
        around = (int(pk[0] / per), int(pk[1] / per) + 1)
        lev = edge_net.levels(y)
        # what is not heard yet is taken to be the noise (docs/timing.md, "The edge network")
        p = self.edges.prob(edge_net.features(lev, around, pad_end=self.edges.reach))[:len(lev)]
        p[:max(0, int(lo / per))] = 0
        p[int(hi / per) + 1:] = 0
        return edge_net.span(p, around, int(self.gap / (edge_net.HOP / self.rate)))

    def observe(self, audio: np.ndarray) -> None:
        """Learn the leaks from the next samples (frames, channels)."""
        self.leaks.observe(audio)

    def refine(self, audio: np.ndarray, first: int, channel: int, start: float, end: float,
               said: str = "") -> tuple[float, float]:
        """(start, end) seconds of the call heard on ``channel`` from ``start`` to ``end``:
        ``audio`` (frames, channels) holds the stretch around it, its sample 0 at index
        ``first`` on the shared clock. Where the edges cannot be seen, the recogniser's start
        and its end moved ``fallback_late`` later. ``said`` (the words heard) chooses the
        offsets of its first and last word. Where the edge network cannot yet tell the end
        from where ``audio`` stops (see :data:`NET_LOOKAHEAD`), the end is past the audio:
        ask again with more."""
        words = said.split()
        r = self.rate
        fallback = start, end + self.fallback_late
        a0 = int(round((start - self.context) * r)) - first
        b0 = int(round((end + self.after + 0.1) * r)) - first
        a0, b0 = max(0, a0), min(len(audio), b0)
        if b0 - a0 < int(0.1 * r):
            return fallback
        x = np.asarray(audio[a0:b0, channel], np.float64)
        y = self.leaks.own(audio[a0:b0], channel)
        t0 = (first + a0) / r  # seconds of y[0]

        def idx(t: float) -> int:
            return int(round((t - t0) / HOP))

        gap = int(self.gap / HOP)
        lo, hi = idx(start - self.before), idx(end + self.after)
        pk = (idx(start), max(idx(end) - 10, idx(start) + 1))
        voice = _voice(y, r, max(0, lo), max(0, hi), idx(end))
        pk_start = None  # where to look for the loudest frame the start is walked from
        if voice is not None:
            # the call's sound goes little beyond its voice (clatter, a slap of cards
            # beside it have none)
            lo, hi = max(lo, idx(t0 + voice[0] - UNVOICED_LEAD)), \
                min(hi, idx(t0 + voice[1] + UNVOICED_TAIL))
            if voice[2] is not None:
                # its first words lie a long pause before the rest: the start is walked
                # from their loudest frame, the end from the rest's
                pk_start = (idx(t0 + voice[0]), idx(t0 + voice[2]))
            pk = (max(pk[0], idx(t0 + voice[3])), min(pk[1], idx(t0 + voice[1])))
        starts = []
        seen = {}  # envelope -> (its last frame over the threshold, that depth, its end moved out)
        for name, band in (("broad", BROAD), ("band", BAND)):
            env = envelope_db(band_pass(y, r, band), r)
            leak = envelope_db(band_pass(x - y, r, band), r) - LEAK_LEFT_DB
            lo, hi = max(0, lo), min(len(env), hi)
            pk = (max(lo, pk[0]), min(hi, pk[1]))
            got = edges(env, lo, hi, pk, self.floor_margin, gap, leak)
            if got is None:
                continue
            a, b, da, db = got
            if pk_start is not None:
                first = edges(env, lo, hi, (max(lo, pk_start[0]), min(hi, pk_start[1])),
                              self.floor_margin, gap, leak)
                if first is not None:
                    a, da = first[0], first[2]
            # each envelope's edges, moved out to the SPAN_DB point; the earliest start wins
            # (an envelope that loses an edge in the noise sees it late), the end: call_end
            s_table = self.words["start"].get(name, {}).get(words[0] if words else "",
                                                            START_OFFSET[name])
            e_table = self.words["end"].get(name, {}).get(words[-1] if words else "",
                                                          END_OFFSET[name])
            starts.append(t0 + a * HOP - (_offset(s_table, da) if self.correct else 0.0))
            moved = _offset(e_table, db) if self.correct else 0.0
            seen[name] = (b, db, t0 + b * HOP + FRAME + moved)
        if not starts:
            return fallback
        new_start = max(min(starts), start - self.max_earlier)
        new_end = call_end(seen, self.band_end_depth)
        net = self._net_span(y, lo, hi, pk) if self.edges is not None else None
        by_net = net is not None and "end" in self.net_edges
        if net is not None and "start" in self.net_edges:
            new_start = max(t0 + net[0], start - self.max_earlier)
        if by_net:
            new_end = t0 + net[1]
            heard = t0 + len(y) / r
            if heard < end + self.after and new_end > heard - NET_LOOKAHEAD:
                # the network saw the audio stop, not the call: its end is not known yet,
                # and the listener waits for audio past this one
                return float(new_start), float(heard + NET_LOOKAHEAD)
        if new_end <= end - self.end_no_earlier and not by_net:
            new_end = end - self.end_no_earlier + self.fallback_late
        if new_end <= new_start:
            return fallback
        return float(new_start), float(new_end)


def truth(clean: np.ndarray, rate: int) -> tuple[float, float] | None:
    """A call's (start, end) seconds in its clean voice ``clean``: the first and last
    10 ms frame (1 ms hop) within SPAN_DB of the loudest."""
    env = envelope_db(clean, rate)
    if not len(env):
        return None
    on = np.flatnonzero(env >= env.max() - SPAN_DB)
    return on[0] * HOP, on[-1] * HOP + FRAME
