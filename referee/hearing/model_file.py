"""A model file of ``models/`` (``.npz``): its meta (JSON, under ``meta``) and its weight
arrays by name. The one reader of that format, for the hearing and for training."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np


def read_model(path: str | Path, dtype: type | None = None
               ) -> tuple[dict, dict[str, np.ndarray]]:
    """The meta and the weight arrays of the model file at ``path``: as stored, or cast to
    ``dtype`` (the networks run in float32). Raises what :func:`numpy.load` raises for a
    missing or broken file, ``KeyError`` for an archive without meta, ``ValueError`` for
    meta that is no JSON."""
    with np.load(path, allow_pickle=False) as z:
        return json.loads(str(z["meta"])), {k: z[k] if dtype is None else z[k].astype(dtype)
                                            for k in z.files if k != "meta"}
