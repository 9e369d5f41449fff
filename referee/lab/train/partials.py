"""Training data for the partial-call check: a bare rank or suit, or a call cut short ("queen",
"hearts", "jack of"), told from whole card calls and from talk with card words in it.

A partial call is a miscall in Stroop (RULINGS Stroop 3), and PocketSphinx alone read them
(docs/partial-calls.md): it misread most of them in noise ("spades" as "start a"). The check
(:mod:`referee.hearing.partial_check`) is a small network of the phrase classifier's kind that
hears a whole segment and gives each partial call, ``call`` (any whole card call) and ``other``
a probability. Its examples are the partial calls as the grammar has them, whole card calls,
and talk labelled ``other``: talk with a bare rank or suit in it ("we need four chairs",
"hearts are red"), everyday words, "goop", decoys and commands. They are planned, said and
mixed as the phrase classifier's are (:func:`.data.assign`, :func:`.data.mixes`), by training
voices only, and no sentence of the benchmark's held-out or development sets is said.
"""

from __future__ import annotations

import random

from referee.hearing.classifier import OTHER
from referee.hearing.grammar import Grammar
from referee.hearing.partial_check import CALL, PARTIALS
from referee.lab import sentences
from referee.lab.train import data
from referee.lab.train.texts import (COMMANDS, DECOYS, EVERYDAY, RANKS, SUITS, banned_texts,
                                     card_texts)

CLASSES = [*PARTIALS, CALL, OTHER]

#: Talk with a bare rank or suit ({r}: a rank, {s}: a suit, {w}: an everyday word).
TALK = ("{r} {w} {w}", "i have {r} {w}s", "the {r} is {w}", "{s} are {w}", "give me {r}",
        "{w} {w} {r}", "{r} more {w}s", "{w} of {s}", "the {s} {w}", "about {r} {w}",
        "{r} o'clock", "we need {r} {w}s", "my {w} is {r} {w}", "{s} for the {w}")


def talk(rng: random.Random) -> str:
    """Talk that is no partial call: mostly with a bare rank or suit in it."""
    r = rng.random()
    if r < 0.6:
        t = rng.choice(TALK)
        return " ".join(rng.choice(RANKS) if p == "{r}" else rng.choice(SUITS) if p == "{s}"
                        else rng.choice(EVERYDAY) if p in ("{w}", "{w}s") else p
                        for p in t.split())
    if r < 0.8:
        return " ".join(rng.choice(EVERYDAY) for _ in range(rng.randint(2, 6)))
    if r < 0.92:
        return rng.choice(DECOYS + ("goop",))
    return rng.choice(COMMANDS)


def banned() -> set[str]:
    """What training never says: the held-out and development sentences, and the
    benchmark's talk with bare card words (both splits)."""
    return banned_texts() | {t.lower() for split in sentences.PARTIAL_CHATTER.values()
                             for t in split}


def plan(per_partial: int = 40, calls: int = 10, others: int = 1500, seed: int = 7,
         **shares) -> list[data.Job]:
    """``per_partial`` of each partial call, ``calls`` of each whole card call, ``others``
    items of talk, with voices drawn as :func:`.data.assign` draws them (``shares``)."""
    rng = random.Random(seed)
    lines = [(p, p) for p in PARTIALS for _ in range(per_partial)]
    lines += [(text, CALL) for text, _ in card_texts() for _ in range(calls)]
    # "king of hearts" made of everyday words is a call, a bare "two" a partial call
    lines += data.talk_lines(talk, others, rng, banned(),
                             Grammar.load().subset(["call", "partial"]))
    return data.assign(lines, rng, seed, **shares)
