"""The fits a model file's meta records (the file itself is read by
:func:`referee.hearing.model_file.read_model`)."""

from __future__ import annotations


def fits(meta: dict) -> list[dict]:
    """The fits that made a model, first to last: those it was continued from (its
    ``history``), then its own, each with its data files and epochs (an edge network's meta
    names its data files ``data``)."""
    return meta.get("history", []) + [{"trained_on": meta.get("trained_on", meta.get("data")),
                                       "epochs": meta.get("epochs")}]
