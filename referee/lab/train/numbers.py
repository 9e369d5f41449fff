"""Training data for the number check: the Goop count's answers 0 to 52, and talk that is no
answer.

PocketSphinx alone used to read the count's answers, and it mixes up numbers that sound alike
("fourteen" and "forty", "sixteen" and "fifteen"). The number check
(:mod:`referee.hearing.number_check`) is a small network of the phrase classifier's kind that
hears a whole answer and gives each number and ``other`` a probability. Its examples are the
answers as the grammar has them ("forty two", "seven cards", "twelve left", "none", "no
fifteen"), each labelled with its number's words, and talk labelled ``other``: everyday talk
with number words in it ("we need four more chairs"), card calls, "goop" and commands. They are
planned, synthesised and mixed as the phrase classifier's are (:func:`.data.assign`,
:func:`.data.mixes`), by training voices only, and no sentence of the numbers benchmark's is
said (:data:`~referee.lab.sentences.NUMBER_TALK`).
"""

from __future__ import annotations

import random

from referee.core.numbers import number_words
from referee.hearing.classifier import OTHER
from referee.hearing.grammar import Grammar
from referee.lab import sentences
from referee.lab.train import data
from referee.lab.train.texts import COMMANDS, DECOYS, EVERYDAY, card_texts

#: The numbers a Goop count asks for.
TOP = 52
CLASSES = [number_words(v) for v in range(TOP + 1)] + [OTHER]

#: How an answer is worded ({w}: the number's words), and how a correction begins.
WORDINGS = ("{w}", "{w}", "{w}", "{w} cards", "{w} left")
ZEROS = ("zero", "none", "nothing", "zero cards", "none left")
CORRECTIONS = ("no", "correction", "sorry", "nope")

#: Talk with a number word in it ({n}: any number's words, {w}: an everyday word).
TALK = ("{n} {w} {w}", "i need {n} {w}", "{w} {w} {n} {w}", "we had {n} of them",
        "it was {n} {w} ago", "about {n} {w}", "the {w} is {n}", "{n} {w}s please",
        "only {n} more {w}s", "{w} at {n}", "is it {n} or {n}", "my {w} has {n} {w}s")


def answer(value: int, rng: random.Random) -> str:
    """One way of saying ``value`` as an answer, now and then as a correction."""
    text = rng.choice(ZEROS) if value == 0 else \
        rng.choice(WORDINGS).format(w=number_words(value))
    if rng.random() < 0.15:
        text = f"{rng.choice(CORRECTIONS)} {text}"
    return text


def talk(rng: random.Random) -> str:
    """Talk that is no answer: mostly with number words in it."""
    r = rng.random()
    if r < 0.55:
        t = rng.choice(TALK)
        return " ".join(number_words(rng.randint(1, 59 if rng.random() < 0.2 else TOP))
                        if p == "{n}" else rng.choice(EVERYDAY) if p in ("{w}", "{w}s")
                        else p for p in t.split())
    if r < 0.7:
        return " ".join(rng.choice(EVERYDAY) for _ in range(rng.randint(2, 6)))
    if r < 0.85:
        return rng.choice(card_texts())[0]
    if r < 0.93:
        return rng.choice(DECOYS + ("goop",))
    return rng.choice(COMMANDS)


def plan(per_number: int = 40, others: int = 1500, seed: int = 7, **shares) -> list[data.Job]:
    """``per_number`` answers of each number 0..52 and ``others`` items of talk, with voices
    drawn as :func:`.data.assign` draws them (``shares``: its shares of voices)."""
    banned = {t.lower() for split in sentences.NUMBER_TALK.values() for t in split}
    rng = random.Random(seed)
    lines = [(answer(v, rng), number_words(v)) for v in range(TOP + 1)
             for _ in range(per_number)]
    lines += data.talk_lines(talk, others, rng, banned, Grammar.load().subset(["number"]))
    return data.assign(lines, rng, seed, **shares)
