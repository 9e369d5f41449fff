"""A model file of `models/` as training reads it: its meta (JSON) and its weight arrays, and
the fits its meta records."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np


def read(path: Path) -> tuple[dict, dict[str, np.ndarray]]:
    """The meta and the weight arrays (by name) of the model file at ``path``."""
    with np.load(path, allow_pickle=False) as z:
        return json.loads(str(z["meta"])), {k: z[k] for k in z.files if k != "meta"}


def fits(meta: dict) -> list[dict]:
    """The fits that made a model, first to last: those it was continued from (its
    ``history``), then its own, each with its data files and epochs (an edge network's meta
    names its data files ``data``)."""
    return meta.get("history", []) + [{"trained_on": meta.get("trained_on", meta.get("data")),
                                       "epochs": meta.get("epochs")}]
