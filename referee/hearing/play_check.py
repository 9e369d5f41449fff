"""Swoop's play check: which of Swoop's plays ("seven", "two sevens", "blind seven", "pick up",
"I'm out"), if any, a segment says.

PocketSphinx alone read Swoop's plays and misread many, clean ones too ("jack" as "i pick");
this small network (``models/plays.npz``, the phrase classifier's kind, see :mod:`.classifier`)
hears a whole segment and gives each play and ``other`` a probability. Wherever Swoop's
grammar is listened with, it stands in for the phrase classifier, and the engine weighs it
against PocketSphinx's reading as it weighs the card calls (:class:`.engine.backing.Backed`).
``python -m referee.lab.train plays`` and ``fit --plays`` rebuild it (figures:
docs/swoop-hearing.md).
"""

from __future__ import annotations

from pathlib import Path

from referee.hearing.classifier import OTHER, PhraseClassifier, load_check
from referee.hearing.grammar import Grammar

GRAMMAR = "swoop"
"""The grammar whose plays (phrases of kind ``call``) the check knows."""

MODEL_PATH = Path(__file__).resolve().parents[2] / "models" / "plays.npz"


def classes() -> set[str]:
    """What the check gives probabilities for: each play's canonical ``said``, and ``other``."""
    return {p.said for p in Grammar.load(GRAMMAR).subset(["call"]).phrases} | {OTHER}


def load(path: str | Path | None = None) -> PhraseClassifier:
    """The check at ``path``, else at $REFEREE_PLAYS, else ``models/plays.npz``;
    :class:`~referee.hearing.classifier.ClassifierError` names the file when it is not one."""
    return load_check(path, "REFEREE_PLAYS", MODEL_PATH, "Swoop play check", "plays", classes())
