"""Recognise card calls, shouts and commands in a recording: feed it to a recogniser in a
microphone's blocks, channel by channel, and give each utterance to its player. With
several channels each is heard with the other mics' leaks taken out, learnt as the file
goes, as the listener of ``referee play --audio`` does."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from referee.audio.mic import BLOCK_SECONDS
from referee.audio.wav import resample, to_int16
from referee.core.events import Utterance
from referee.hearing.crosstalk import attribute
from referee.hearing.engine import Recogniser
from referee.hearing.leaks import LeakCanceller, LeakModel

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
    heard = pcm
    if crosstalk and pcm.shape[1] > 1:
        heard = without_leaks(pcm, recogniser.rate, step)
    found: list[Utterance] = []
    for ch in range(pcm.shape[1]):
        player = players[ch] if players and ch < len(players) else None
        s = recogniser.stream(0.0, ch, player, source)
        col = np.ascontiguousarray(heard[:, ch])
        for i in range(0, len(col), step):
            found += s.feed(col[i:i + step])
        found += s.close()
    if crosstalk and pcm.shape[1] > 1:
        found = attribute(found, pcm, recogniser.rate, players)
    return sorted(found, key=lambda u: (u.start, u.channel))


def without_leaks(pcm: np.ndarray, rate: int, step: int) -> np.ndarray:
    """``pcm`` (frames, channels, int16) with each channel's leaks from the others taken
    out, the leaks learnt block by block as the file goes (what live play can know)."""
    model = LeakModel(rate, pcm.shape[1])
    cancel = LeakCanceller(model)
    out = []
    for i in range(0, len(pcm), step):
        block = pcm[i:i + step] / 32768.0
        model.observe(block)
        out.append(cancel.process(block))
    return to_int16(np.concatenate(out))
