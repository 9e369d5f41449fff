"""Near misses heard after different histories: the check a phrase classifier is chosen with
beside the development figures (docs/model-history.md, "The mean at 0.1").

PocketSphinx keeps a running noise estimate per decoder from one utterance to the next, so
whether talk with card words ("the queen is in the garden") is taken for a card can hang on
what that mic heard before. This hears each sentence of the near-miss development set
(``corpus.PROBE_NEAR_MISSES``, one of that set's voices each, in turn; clean) after each of
``--histories`` histories: the first none (a fresh decoder), the others 1 to 5 card calls
said by the same voices at -12 to +6 dB, drawn from ``--seed``. A recogniser of its own per
history and a decoder per sentence, so nothing else carries over. Development voices only.

    python -m referee.lab.bench.histories [--histories 4] [--seed 0] [--sentences N]

Prints, per sentence taken for a card or shout at least once, after which histories; then
the total. ``$REFEREE_PHRASES`` names the classifier to check."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

from referee.audio.wav import to_int16
from referee.core.cards import full_deck
from referee.core.events import CALLS_AND_SHOUTS
from referee.lab.bench.corpus import DEV_SETS, PROBE_NEAR_MISSES
from referee.lab.synth import synthesize

RATE = 16000
LEAD, TRAIL = 0.5, 0.8
"""Seconds of silence before and after each utterance fed."""
GAIN_DB = (-12.0, 6.0)
"""The range of a history's calls' gains."""


def plan(histories: int, seed: int) -> list[list[tuple[int, str, float]]]:
    """``histories`` histories, each [(voice index, card call, gain dB)]: the first empty."""
    rng = np.random.default_rng(seed)
    voices, deck = len(DEV_SETS["near-miss"]), full_deck()
    out: list[list[tuple[int, str, float]]] = [[]]
    for _ in range(histories - 1):
        n = int(rng.integers(1, 6))
        out.append([(int(rng.integers(voices)), deck[int(rng.integers(len(deck)))].spoken,
                     round(float(rng.uniform(*GAIN_DB)), 1)) for _ in range(n)])
    return out


def _feed(stream, x: np.ndarray) -> list:
    pcm = to_int16(np.concatenate([np.zeros(int(LEAD * RATE)), x, np.zeros(int(TRAIL * RATE))]))
    got = []
    for i in range(0, len(pcm), 1600):
        got += stream.feed(pcm[i:i + 1600])
    return got + list(stream.close())


def check(histories: int = 4, seed: int = 0, sentences: int | None = None,
          engine: str = "pocketsphinx", workdir: Path | None = None,
          texts: tuple[str, ...] = PROBE_NEAR_MISSES) -> dict[str, list[int]]:
    """{sentence: indices of the histories after which it was taken for a card or shout},
    for the first ``sentences`` of ``texts``."""
    from referee.hearing.engine import open_recogniser

    voices = DEV_SETS["near-miss"]
    texts = tuple(texts[:sentences])
    wd = Path(workdir or tempfile.mkdtemp(prefix="referee-histories-"))
    said: dict[tuple[int, str], np.ndarray] = {}

    def speech(v: int, text: str) -> np.ndarray:
        if (v, text) not in said:
            said[(v, text)] = synthesize(voices[v], text, workdir=wd)
        return said[(v, text)]

    taken: dict[str, list[int]] = {t: [] for t in texts}
    for h, history in enumerate(plan(histories, seed)):
        rec = open_recogniser(engine)
        for channel, text in enumerate(texts):
            for v, call, gain in history:
                _feed(rec.stream(channel=channel), speech(v, call) * 10 ** (gain / 20))
            got = _feed(rec.stream(channel=channel), speech(channel % len(voices), text))
            if any(u.kind in CALLS_AND_SHOUTS for u in got):
                taken[text].append(h)
        del rec
    return taken


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m referee.lab.bench.histories",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--histories", type=int, default=4, help="how many (the first: none)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--sentences", type=int, help="only the first N sentences")
    args = p.parse_args(argv)
    if args.histories < 1:
        p.error("--histories: at least 1")
    taken = check(args.histories, args.seed, args.sentences)
    for text, after in taken.items():
        if after:
            print(f"{text!r}: taken for a card after histories {after}")
    n = sum(len(a) for a in taken.values())
    print(f"taken for a card or shout: {n} of {len(taken) * args.histories} "
          f"({len(taken)} sentences x {args.histories} histories, seed {args.seed})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
