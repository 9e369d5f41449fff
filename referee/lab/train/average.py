"""``python -m referee.lab.train average``: one model whose weights are a weighted mean of two.

The two must be one network (the same arrays, shapes and classes): in practice a fine-tune
and the model it started from, whose mean keeps more of what the first knew than the
fine-tune alone (docs/model-history.md, "The shipped classifier and its Pico fine-tune,
averaged")."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np

from referee.core.errors import RefereeError
from referee.hearing.model_file import read_model
from referee.lab.train.model_meta import fits


class AverageError(RefereeError, ValueError):
    """The two model files are not one network, or a weight is out of range."""


def _load(path: Path) -> tuple[dict, dict[str, np.ndarray]]:
    try:
        return read_model(path)
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as e:
        raise AverageError(f"{path}: not a model file ({e})") from None


def average(first: Path, second: Path, weight: float, out: Path) -> dict:
    """Write ``(1 - weight) * first + weight * second`` to ``out`` and return its meta: the
    second's, with ``averaged`` naming the first, the weight and the first's own fits."""
    if not 0.0 <= weight <= 1.0:
        raise AverageError(f"weight {weight}: must be from 0 to 1 (the second model's share)")
    meta_a, a = _load(first)
    meta_b, b = _load(second)
    if sorted(a) != sorted(b):
        raise AverageError(f"{first} and {second}: not one network (arrays "
                           f"{sorted(set(a) ^ set(b))} are in only one)")
    for k in a:
        if a[k].shape != b[k].shape:
            raise AverageError(f"{first} and {second}: not one network ({k} is "
                               f"{a[k].shape} and {b[k].shape})")
    for k in ("classes", "layers", "hidden"):
        if meta_a.get(k) != meta_b.get(k):
            raise AverageError(f"{first} and {second}: not one network (their {k} differ)")
    mean = {k: ((1 - weight) * a[k].astype(np.float64)
                + weight * b[k].astype(np.float64)).astype(np.float32) for k in a}
    meta = {**meta_b, "averaged": {"with": str(first), "weight": weight,
                                   "its_fits": fits(meta_a)}}
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, meta=np.array(json.dumps(meta)), **mean)
    return meta
