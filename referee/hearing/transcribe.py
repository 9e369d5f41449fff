"""Recognise card calls, shouts and commands in a recording: feed it to a recogniser in a
microphone's blocks, channel by channel, and give each utterance to its player."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from referee.audio.mic import BLOCK_SECONDS
from referee.audio.wav import resample, to_int16
from referee.core.events import Utterance
from referee.hearing.crosstalk import attribute
from referee.hearing.engine import Recogniser

#: Seconds of audio per feed: a microphone's block, so that a recording is
#: heard as the same audio would be live (and as ``referee bench`` measures).
BLOCK = BLOCK_SECONDS


def transcribe_audio(recogniser: Recogniser, audio: np.ndarray, rate: int, source: str = "",
                     players: Sequence[str | None] | None = None,
                     crosstalk: bool = True) -> list[Utterance]:
    """Utterances in ``audio`` (frames, channels) at ``rate``, sorted by start."""
    x = resample(audio, rate, recogniser.rate) if rate != recogniser.rate else audio
    pcm = to_int16(x)
    if pcm.ndim == 1:
        pcm = pcm[:, None]
    step = int(BLOCK * recogniser.rate)
    found: list[Utterance] = []
    for ch in range(pcm.shape[1]):
        player = players[ch] if players and ch < len(players) else None
        s = recogniser.stream(0.0, ch, player, source)
        col = np.ascontiguousarray(pcm[:, ch])
        for i in range(0, len(col), step):
            found += s.feed(col[i:i + step])
        found += s.close()
    if crosstalk and pcm.shape[1] > 1:
        found = attribute(found, pcm, recogniser.rate, players)
    return sorted(found, key=lambda u: (u.start, u.channel))
