"""A call after table talk in one segment that card-table clatter holds open (issue 21: in
the game benchmark a dealer's card following a neighbour's leaked talk went unheard): a
pause decided with nothing found is heard past, and what follows it decided alone."""

from __future__ import annotations

import numpy as np
import pytest

from referee.hearing.engine.segment_stream import SegmentStream
from referee.lab import mixing

from speech import corpus, feed, mix_snr, place, recogniser


@pytest.fixture(scope="module")
def voices(tmp_path_factory):
    return corpus(tmp_path_factory.mktemp("tail"), {
        "talk": "espeak:en-gb+m3|I think it might rain later",
        "call": "espeak:en-us|seven of spades"})


def talk_then_call(voices, snr: float) -> tuple[np.ndarray, float]:
    """The talk, 0.4 s, then the call, under clatter; and where the call begins."""
    a, b = voices["talk"], voices["call"]
    n = len(a) + len(b) + int(2.4 * 16000)
    at = 0.5 + len(a) / 16000 + 0.4
    x = place(n, a, 0.5) + place(n, b, at)
    return mix_snr(x, mixing.clatter(n, np.random.default_rng(3)), snr), at


@pytest.mark.parametrize("snr", [15, 10])
def test_a_call_after_talk_in_one_segment_is_heard(voices, snr, monkeypatch):
    rec = recogniser("pocketsphinx")
    y, at = talk_then_call(voices, snr)
    got = feed(rec.stream(), y)
    calls = [u for u in got if u.kind == "call"]
    assert [u.said for u in calls] == ["seven of spades"], got
    assert calls[0].start >= at - 0.6 and calls[0].end <= at + len(voices["call"]) / 16000 + 0.3
    assert not [u for u in got if u.kind == "command"], got
    # without hearing past the pause, the talk and the call are read whole: the call is lost
    monkeypatch.setattr(SegmentStream, "TAIL_MIN", 99.0)
    before = feed(rec.stream(), y)
    assert not [u for u in before if u.kind == "call"], before
