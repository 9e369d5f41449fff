"""Echo matching: whether a recognised phrase could be the referee's own announcement heard
back by its microphones."""

from __future__ import annotations

import math
import re

from referee.core.numbers import number_words


def words(text: str) -> list[str]:
    """Lower-case words, numbers up to 59 spelled out ("42" -> "forty", "two"), punctuation
    dropped."""
    out = []
    for w in re.findall(r"[^\W_]+", text.lower()):
        out += number_words(int(w)).split() if w.isdigit() and int(w) < 60 else [w]
    return out


def sounds_like(said: str, announcement: str, share: float = 0.6) -> bool:
    """Whether a recognised phrase could be the referee's own announcement
    heard back: at least ``share`` of its words occur, in order, in the
    announcement (a recogniser drops and changes words)."""
    a, b = words(said), words(announcement)
    if not a:
        return False
    # longest common subsequence
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1] >= max(1, math.ceil(share * len(a)))
