"""``--array``: a recording made by one mic array in the middle of the table (a laptop's
stereo pair, a small USB array) instead of a mic per player. It begins with each name of
``--names`` saying "NAME here" in that order; from those the referee learns the seats
(:class:`referee.hearing.seats.SeatMap`) and turns the recording into one channel per seat,
which the multi-mic pipeline then hears as if each talker had a mic of their own. Two seats it
can hardly tell apart are named, not refused: nobody can move in a recording
(docs/one-device.md). Live arrays: :mod:`referee.app.array_live`.
"""

from __future__ import annotations

import os
import tempfile

from referee.audio.wav import read_wav, resample, write_wav
from referee.hearing.seats import SeatMap, voice_spans

HEAR = 0.05
"""What the recognisers hear of a seat: its beam under the seat's mask softened to this
floor (-26 dB), beside the seat channel (floor :data:`~referee.hearing.seats.MASK_FLOOR`)
that decides who spoke and times it. Chosen on the tuning games (docs/one-device.md)."""
COPY_DB = 3.0
"""dB: on a mic array, a call is another seat's when that seat's channel is this much louder
over it (the cross-talk filter's ``copy_db``; a mic per player needs 9 dB or a like
waveform, but masked seat channels share neither). Chosen on the tuning games."""

RATE = 16000
"""The rate seats are learnt and separated at (:data:`referee.hearing.seats.FRAME` is for it)."""


def seat_channels(path: str, names: list[str]) -> tuple[str, SeatMap, list[tuple[float, float]]]:
    """A temporary WAV (the caller removes it) with one channel per name of ``names``, in
    order, pulled out of the array recording ``path``; the seats learnt; and where each
    "NAME here" was heard (seconds). Seats too alike are not checked here
    (:meth:`~referee.hearing.seats.SeatMap.too_close` says which). Raises
    :class:`~referee.hearing.seats.SeatsError` when the names are not heard, and
    :class:`~referee.audio.wav.AudioFileError` for a file it cannot read."""
    a, rate = read_wav(path)
    if rate != RATE:
        a = resample(a, rate, RATE)
    spans = voice_spans(a, RATE, len(names))
    seats = SeatMap.learn(a, RATE, [(n, s, e) for n, (s, e) in zip(names, spans)])
    fd, out = tempfile.mkstemp(prefix="referee-seats-", suffix=".wav")
    os.close(fd)
    try:
        write_wav(out, seats.separate(a, hear=HEAR), RATE)
    except BaseException:
        os.unlink(out)
        raise
    return out, seats, spans
