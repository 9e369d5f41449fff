"""The benchmark's figures, computed from per-item result records.

A record is a dict (one JSON line of the results file) with the item's fields
(``id``, ``split``, ``category``, ``expect``, ``voice``, ``family``, ``snr``,
``noise``, ``speech_start``, ``speech_end``, ``duration``) and what the
recogniser did: ``heard`` (a list of dicts with ``kind``, ``said``,
``start``, ``end``, ``confidence``, ``emitted`` — the audio time in seconds at
which the block that produced it ended — ``compute`` — seconds from that
block's arrival until the ``feed``/``close`` call returned, on one core taking
the blocks in order (the call's CPU time plus any work on earlier blocks still
running when it arrived) — and ``flushed`` — true if it came only from
``close()``), ``cpu`` (CPU seconds of recognition) and ``wall``.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable

ACCEPT_KINDS = ("call", "shout", "command", "number", "partial", "play")
"""Utterance kinds that act on the game (``'unknown'`` does not; a partial call is a
miscall in Stroop)."""
FALSE_ACCEPT_KINDS = ("call", "shout", "play")
"""Kinds that count as a false accept when heard in a negative."""


def accepted(rec: dict) -> list[dict]:
    """The utterances of ``rec`` that would act on the game."""
    return [h for h in rec.get("heard", ()) if h.get("kind") in ACCEPT_KINDS]


def outcome(rec: dict) -> str:
    """What happened to one item.

    Positives: ``'correct'`` (exactly one accepted utterance, and it is the
    expected phrase), ``'extra'`` (the expected phrase and something else),
    ``'wrong'`` (something else only), ``'missed'`` (nothing accepted).
    Negatives: ``'false-accept'`` (a call or shout), ``'other-accept'`` (a
    command or number only) or ``'rejected'``."""
    acc = accepted(rec)
    if rec.get("expect") is None:
        if any(h["kind"] in FALSE_ACCEPT_KINDS for h in acc):
            return "false-accept"
        return "other-accept" if acc else "rejected"
    if not acc:
        return "missed"
    hits = [h for h in acc if h["said"] == rec["expect"]]
    if not hits:
        return "wrong"
    return "correct" if len(acc) == 1 else "extra"


def rate(records: Iterable[dict], success: Callable[[dict], bool]) -> tuple[int, int]:
    """(successes, total)."""
    recs = list(records)
    return sum(1 for r in recs if success(r)), len(recs)


def pct(k: int, n: int) -> float | None:
    """``k/n`` in percent, None for ``n == 0``."""
    return 100.0 * k / n if n else None


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float] | None:
    """95 % Wilson score interval for ``k`` of ``n``, in percent."""
    if n == 0:
        return None
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return 100.0 * max(0.0, c - h), 100.0 * min(1.0, c + h)


def accuracy_by(records: Iterable[dict], key: Callable[[dict], str]) -> dict[str, tuple[int, int]]:
    """Exact-phrase accuracy of the positives, grouped: key -> (correct, total)."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        if r.get("expect") is not None:
            groups[key(r)].append(r)
    return {k: rate(v, lambda r: outcome(r) == "correct") for k, v in groups.items()}


def false_accepts(records: Iterable[dict]) -> tuple[int, int]:
    """(negatives with a call or shout, negatives)."""
    return rate((r for r in records if r.get("expect") is None),
                lambda r: outcome(r) == "false-accept")


def percentile(values: Iterable[float], q: float) -> float | None:
    """The ``q``-th percentile (0-100) by linear interpolation between closest
    ranks (numpy's default); None for no values."""
    v = sorted(values)
    if not v:
        return None
    pos = (len(v) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def real_time_factor(records: Iterable[dict]) -> float | None:
    """CPU seconds of recognition per second of audio, over all items (each item
    is one channel's stream)."""
    recs = list(records)
    audio = sum(r["duration"] for r in recs)
    return sum(r["cpu"] for r in recs) / audio if audio else None


def delays(records: Iterable[dict]) -> list[float]:
    """Seconds from the end of each correctly heard phrase (the end of its
    speech in the file) to its event: the audio time at which the block that
    produced it ended, minus the speech end, plus the time from that block's
    arrival to the return of the call that produced it on one core (its CPU
    time and any work on earlier blocks still running when it arrived).
    Only the first utterance with the expected phrase of each positive counts."""
    out = []
    for r in records:
        if r.get("expect") is None:
            continue
        for h in accepted(r):
            if h["said"] == r["expect"]:
                out.append(h["emitted"] - r["speech_end"] + h["compute"])
                break
    return out


def flushed_share(records: Iterable[dict]) -> tuple[int, int]:
    """(expected phrases that only came out at ``close()``, expected phrases heard)."""
    k = n = 0
    for r in records:
        if r.get("expect") is None:
            continue
        for h in accepted(r):
            if h["said"] == r["expect"]:
                n += 1
                k += bool(h.get("flushed"))
                break
    return k, n


def timing_errors(records: Iterable[dict]) -> tuple[list[float], list[float]]:
    """Signed errors in seconds of the reported start and end of correctly heard
    phrases against the speech span in the file."""
    starts, ends = [], []
    for r in records:
        if outcome(r) in ("correct", "extra"):
            h = next(h for h in accepted(r) if h["said"] == r["expect"])
            starts.append(h["start"] - r["speech_start"])
            ends.append(h["end"] - r["speech_end"])
    return starts, ends


def confusions(records: Iterable[dict]) -> Counter:
    """(expected, heard) -> count over positives not heard correctly; heard is
    the accepted phrases joined by ' + ', or '(nothing)'."""
    c: Counter = Counter()
    for r in records:
        if r.get("expect") is None or outcome(r) == "correct":
            continue
        heard = " + ".join(h["said"] for h in accepted(r)) or "(nothing)"
        c[(r["expect"], heard)] += 1
    return c


def word_confusions(records: Iterable[dict]) -> Counter:
    """('rank' | 'suit', said, heard) -> count over card calls heard as a
    different card: which part of the card went wrong."""
    c: Counter = Counter()
    for r in records:
        if r.get("category") != "call" or r.get("expect") is None:
            continue
        for h in accepted(r):
            if h["kind"] != "call" or h["said"] == r["expect"]:
                continue
            said, heard = r["expect"].split(" of "), h["said"].split(" of ")
            if len(said) != 2 or len(heard) != 2:
                continue
            if said[0] != heard[0]:
                c[("rank", said[0], heard[0])] += 1
            if said[1] != heard[1]:
                c[("suit", said[1], heard[1])] += 1
    return c


def partials_heard(records: Iterable[dict]) -> tuple[int, int]:
    """(partial calls heard as a partial call, any one, and nothing acting on the game
    besides partial calls; partial-call items). Which partial matters less: any one is
    a miscall."""
    return rate((r for r in records if r.get("category") == "partial"),
                lambda r: bool(accepted(r))
                and all(h["kind"] == "partial" for h in accepted(r)))


def partial_accepts(records: Iterable[dict]) -> tuple[int, int]:
    """(negatives after which a partial call was heard, negatives): talk turned into a
    miscall."""
    return rate((r for r in records if r.get("expect") is None),
                lambda r: any(h["kind"] == "partial" for h in accepted(r)))


def calls_heard_as_partial(records: Iterable[dict]) -> tuple[int, int]:
    """(card calls after which a partial call was heard, card calls): a call turned
    into a miscall."""
    return rate((r for r in records if r.get("category") == "call"),
                lambda r: any(h["kind"] == "partial" for h in accepted(r)))
