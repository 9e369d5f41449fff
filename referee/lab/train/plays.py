"""Training data for Swoop's play check: the plays ("seven", "two sevens", "blind seven",
"pick up", "I'm out"), told from talk with the same words and from the round's totals.

PocketSphinx alone read Swoop's plays and misread many of them, clean ones too ("jack" as "i
pick", "ace" as "eight"; docs/swoop-hearing.md). The check (:mod:`referee.hearing.play_check`)
is a small network of the phrase classifier's kind that hears a whole segment and gives each
play and ``other`` a probability. Its examples are the plays as grammars/swoop.json words
them, each labelled with its canonical ``said``, and talk labelled ``other``: talk with a rank,
"pick up", "out" or "blind" in it ("pick up the car", "the nine bus"; in the forms of the
benchmark's tuning near misses, never its held-out ones), totals ("forty eight",
which is not "four eights"), everyday words, commands and the grammar's decoys. They are
planned, said and mixed as the phrase classifier's are (:func:`.data.assign`,
:func:`.data.mixes`), by training voices only, and no sentence of the Swoop benchmark's near
misses (either split) nor of the hearing benchmark's held-out sets is said.
"""

from __future__ import annotations

import random

from referee.core.numbers import total_words
from referee.hearing.classifier import OTHER
from referee.hearing.grammar import Grammar
from referee.lab import sentences
from referee.lab.train import data
from referee.lab.train.texts import EVERYDAY, RANKS, banned_texts

#: Talk with Swoop's words that is no play ({r}: a rank, {w}: an everyday word): the partial
#: check's forms with a bare rank, and the forms of the Swoop benchmark's tuning near misses
#: only ("I'll pick up the kids", "I'm out of milk", "two of them", "blind as a bat").
TALK = ("{r} {w} {w}", "i have {r} {w}s", "the {r} is {w}", "give me {r}", "{w} {w} {r}",
        "{r} more {w}s", "about {r} {w}", "we need {r} {w}s", "the {r} {w}",
        "pick up the {w}", "pick up a {w}", "i'll pick up {w} {w}", "i'm out of {w}",
        "blind {w}", "blind as a {w}", "{r} of them")


def grammar() -> Grammar:
    """Swoop's plays only (what the check's classes are)."""
    return Grammar.load("swoop").subset(["call"])


def classes() -> list[str]:
    """Every play's canonical ``said``, and ``other``."""
    return sorted({p.said for p in grammar().phrases}) + [OTHER]


def talk(rng: random.Random) -> str:
    """Talk that is no play: mostly with a play's words in it, or a total."""
    r = rng.random()
    if r < 0.55:
        t = rng.choice(TALK)
        return " ".join(rng.choice(RANKS) if p == "{r}" else rng.choice(EVERYDAY)
                        if p in ("{w}", "{w}s") else p for p in t.split())
    if r < 0.72:
        v = rng.randint(14, 199)
        return ("a hundred and " + total_words(v - 100)) if v > 100 and rng.random() < 0.5 \
            else total_words(v)
    if r < 0.87:
        return " ".join(rng.choice(EVERYDAY) for _ in range(rng.randint(2, 6)))
    full = Grammar.load("swoop")
    if r < 0.94:
        # not "two nine": a play whose plural's last sound the noise took
        return rng.choice([" ".join(w) for w in full.decoys
                           if not (len(w) == 2 and set(w) <= set(RANKS))])
    return " ".join(rng.choice([p for p in full.phrases if p.kind == "command"]).words)


def banned() -> set[str]:
    """What training never says: the Swoop benchmark's near misses (both splits) and the
    hearing benchmark's held-out and development sentences."""
    return banned_texts() | {t.lower() for split in sentences.SWOOP_NEAR_MISSES.values()
                             for t in split}


def plan(per_play: int = 25, others: int = 1500, seed: int = 7, **shares) -> list[data.Job]:
    """``per_play`` of each play, in the grammar's wordings ("a seven", "i'll pick up"), and
    ``others`` items of talk, with voices drawn as :func:`.data.assign` draws them
    (``shares``)."""
    rng = random.Random(seed)
    wordings: dict[str, list[str]] = {}
    for p in grammar().phrases:
        if p.words[0] in ("a", "an") and (p.words[0] == "an") != (p.words[1][0] in "ae"):
            continue                                    # "a ace", "an seven"
        wordings.setdefault(p.said, []).append(" ".join(p.words))
    lines = [(rng.choice(wordings[said]), said) for said in sorted(wordings)
             for _ in range(per_play)]
    lines += data.talk_lines(talk, others, rng, banned(), grammar())
    return data.assign(lines, rng, seed, **shares)
