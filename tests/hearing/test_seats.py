"""Seats around one mic array (:mod:`referee.hearing.seats`), on TTS speech said in a
simulated reverberant room (tests/helpers/array_room.py)."""

from __future__ import annotations

import numpy as np
import pytest

from array_room import RATE, said, table

from referee.hearing.seats import (MASK_FLOOR, SHARPNESS, SeatMap, SeatSplitter, SeatsError,
                                    voice_spans)

pytest.importorskip("pyroomacoustics")

SEATS = {"ann": (20.0, 0.7, "espeak:en-us"), "bob": (140.0, 0.6, "flite:slt"),
         "cai": (260.0, 0.8, "espeak:en-gb+m3")}


@pytest.fixture(scope="module")
def room(tmp_path_factory):
    """Each player says their name in turn, then a card each, alone, then ann and bob at
    once; 4 mics 5 cm apart, RT60 0.35 s, 20 dB SNR."""
    tmp = tmp_path_factory.mktemp("seats")
    lines, names, t = [], [], 0.5
    for who, (az, d, voice) in SEATS.items():
        x = said(tmp, f"{who} here", voice)
        lines.append((az, d, x, t))
        names.append((who, t, t + len(x) / RATE))
        t += len(x) / RATE + 0.7
    calls = []
    for who, card in (("bob", "seven of clubs"), ("cai", "queen of hearts"),
                      ("ann", "two of spades")):
        az, d, voice = SEATS[who]
        x = said(tmp, card, voice)
        lines.append((az, d, x, t))
        calls.append((who, t, t + len(x) / RATE))
        t += len(x) / RATE + 0.8
    a_x, b_x = said(tmp, "nine of diamonds", SEATS["ann"][2]), said(tmp, "four of clubs",
                                                                     SEATS["bob"][2])
    lines += [(*SEATS["ann"][:2], a_x, t), (*SEATS["bob"][:2], b_x, t + 0.05)]
    audio, images = table(lines, mics=4)
    return {"audio": audio, "images": images, "names": names, "calls": calls,
            "overlap": len(lines) - 2}


def learnt(room) -> SeatMap:
    spans = voice_spans(room["audio"], RATE, 3)
    return SeatMap.learn(room["audio"], RATE, [(n, s, e) for (n, _, _), (s, e)
                                               in zip(room["names"], spans)])


def test_the_names_are_found_where_they_were_said(room):
    spans = voice_spans(room["audio"], RATE, 3)
    for (_, start, end), (s, e) in zip(room["names"], spans):
        assert abs(s - start) < 0.15 and abs(e - end) < 0.25


def test_too_few_names_is_a_clear_error(room):
    with pytest.raises(SeatsError, match="heard .* of the 9 names"):
        voice_spans(room["audio"][: int(3 * RATE)], RATE, 9)


def test_each_call_said_alone_goes_to_its_seat(room):
    seats = learnt(room)
    assert seats.too_close() is None                # three seats far apart: no complaint
    for who, start, end in room["calls"]:
        got = seats.attribute(room["audio"], start, end)
        assert got.seat == who and got.confidence > 0.6, (who, got)


def test_two_players_in_one_direction_are_named(tmp_path):
    x, y, z = (said(tmp_path, f"{n} here", v) for n, v in
               (("ann", "espeak:en-us"), ("bob", "flite:slt"), ("cai", "flite:rms")))
    # cai sits behind ann, 40 cm further back
    audio, _ = table([(30.0, 0.6, x, 0.3), (150.0, 0.7, y, 1.6), (30.0, 1.0, z, 2.9)])
    spans = voice_spans(audio, RATE, 3)
    seats = SeatMap.learn(audio, RATE, [(n, s, e) for n, (s, e) in
                                        zip(("ann", "bob", "cai"), spans)])
    a, b, share = seats.too_close()
    assert {a, b} == {"ann", "cai"}
    assert SeatMap.alike_line((a, b, share)).startswith(
        f"seats too alike: {a} and {b} sit in directions the array can hardly tell apart")


def test_a_stereo_pair_cannot_tell_mirrored_seats_apart(tmp_path):
    x, y = said(tmp_path, "ann here", "espeak:en-us"), said(tmp_path, "bob here", "flite:slt")
    # mics along x: 60 and -60 degrees give the same time difference
    audio, _ = table([(60.0, 0.7, x, 0.3), (-60.0, 0.7, y, 1.6)], mics=2)
    spans = voice_spans(audio, RATE, 2)
    seats = SeatMap.learn(audio, RATE, [("ann", *spans[0]), ("bob", *spans[1])])
    a, b, _ = seats.too_close()
    assert {a, b} == {"ann", "bob"}


def test_overlapping_callers_are_pulled_apart(room):
    seats = learnt(room)
    out = seats.separate(room["audio"])
    assert out.shape == (len(room["audio"]), 3)
    ann_img, bob_img = room["images"][-2], room["images"][-1]
    span = slice(int((room["calls"][-1][2] + 0.5) * RATE), len(out))

    def share(channel, image):
        """How much of ``channel`` over the overlap is ``image`` (normalised correlation)."""
        a, b = out[span, channel], image[span]
        return float(np.dot(a, b) / np.sqrt(np.dot(a, a) * np.dot(b, b)))

    ann, bob = seats.names.index("ann"), seats.names.index("bob")
    # the array's first mic hears both alike; each seat's channel hears its own caller
    assert share(ann, ann_img) > share(ann, bob_img) + 0.3
    assert share(bob, bob_img) > share(bob, ann_img) + 0.3


def test_a_live_stream_is_split_block_by_block_as_the_whole_recording(room):
    """The live array's seat channels (:class:`SeatSplitter`, fed blocks of uneven size as
    a device gives them) are, sample for sample, one separation of the whole recording."""
    seats = learnt(room)
    audio = room["audio"]
    whole = seats._separate(audio, SHARPNESS, MASK_FLOOR)
    split, parts, i = SeatSplitter(seats), [], 0
    for n in np.random.default_rng(1).integers(100, 2000, len(audio) // 100):
        parts.append(split.feed(audio[i: i + n]))
        i += n
        if i >= len(audio):
            break
    parts.append(split.flush())
    live = np.concatenate(parts)
    assert live.shape == whole.shape
    assert np.abs(live - whole).max() < 1e-6
    # and what it gives as it goes lags the audio fed by no more than its LAG
    split = SeatSplitter(seats)
    assert len(split.feed(audio[:4000])) == 4000 - SeatSplitter.LAG
    assert np.abs(seats.separate(audio) - whole).max() < 1e-6


def test_an_answer_that_is_mostly_voice_is_found_whole_against_the_quiet_before_it(tmp_path):
    """Four phrases 0.2 s apart after a second of the room's quiet (one mic): against the
    answer's own median level, which lies in the voice, the quieter ends of the phrases are
    lost; against the quiet before it (``floor``) they are kept."""
    from referee.hearing.seats import quiet_level, voice_runs

    lines, t = [], 1.0
    for text in ("ann here", "queen of hearts", "two of clubs", "five of spades"):
        x = said(tmp_path, text, "espeak:en-us+m3")
        lines.append((210.0, 0.7, x, t))
        t += len(x) / RATE + 0.2
    audio, _ = table(lines, mics=1, snr=20.0, seed=3, tail=0.8)
    quiet, answer = audio[:RATE, 0], audio[RATE:, 0]
    spoken = t - 0.2 - 1.0
    floor = quiet_level(quiet, RATE)
    against_quiet = voice_runs(answer, RATE, floor=floor)
    against_median = voice_runs(answer, RATE)
    total = lambda runs: sum(e - s for s, e in runs)      # noqa: E731
    assert total(against_quiet) >= 0.85 * spoken, (against_quiet, spoken)
    assert total(against_median) < total(against_quiet) - 0.3, (against_median, against_quiet)
    assert quiet_level(quiet[:100], RATE) is None           # under one 40 ms window
