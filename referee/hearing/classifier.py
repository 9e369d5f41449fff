"""The phrase classifier: which card call (or "goop", or nothing of ours) a
stretch of speech is, from its log-mel features, by a small convolutional
network run in numpy.

PocketSphinx's acoustic model is general English; this network knows only our
54 answers (52 cards, "goop", ``OTHER``) and was trained on speech synthesised
by many TTS voices in many kinds of noise (``python -m referee.lab.train``; the
voices and noises of the benchmark's held-out set are never used). The engine
uses it beside PocketSphinx (see :class:`~referee.hearing.engine.PocketSphinx`).

The model file (``models/phrases.npz``) holds the weights and, as JSON, the
layer shapes and the class names, so this module needs no other description
of it. ``PhraseClassifier.load()`` raises :class:`ClassifierError` naming the
file when it is missing or not such a model.

The network: 1-D convolutions over time (kernel 5, "same" zero padding, ReLU,
some with stride 2), activations zeroed past the end of the input, then the
maximum and the mean over time of the last layer, a hidden dense layer and a
softmax. Training (``referee/train/fit.py``) computes the same thing in JAX
on padded batches; the zeroing makes a padded row give what the row alone gives.
"""

from __future__ import annotations

import os
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from referee.core.errors import RefereeError
from referee.hearing.features import log_mel
from referee.hearing.model_file import read_model

OTHER = "other"
"""The class of anything that is not one of our phrases: chatter, near-misses,
commands, noise."""

MODEL_PATH = Path(__file__).resolve().parents[2] / "models" / "phrases.npz"


def _blas_on_one_thread() -> None:
    """Give the process's BLAS one thread. The network's matrices are small:
    OpenBLAS's extra threads only spin waiting for work, and a table runs one
    stream per microphone (figures: docs/hearing-decisions.md, "The classifier
    on one BLAS thread")."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(1, user_api="blas")


class ClassifierError(RefereeError, ValueError):
    """A phrase-classifier model file that cannot be used; names the file."""


@dataclass(frozen=True)
class Layer:
    kernel: int
    stride: int
    channels: int


def _conv(x: np.ndarray, w: np.ndarray, b: np.ndarray, stride: int) -> np.ndarray:
    k = w.shape[0]
    pad = (k - 1) // 2
    xp = np.pad(x, ((pad, k - 1 - pad), (0, 0)))
    win = np.lib.stride_tricks.sliding_window_view(xp, k, axis=0)[::stride]  # (T', C, k)
    return np.tensordot(win, w, axes=([2, 1], [0, 1])) + b


class PhraseClassifier:
    """A loaded model. ``probabilities(samples)`` -> one probability per class."""

    def __init__(self, params: dict[str, np.ndarray], layers: list[Layer],
                 classes: list[str], path: Path | None = None) -> None:
        self.params = params
        self.layers = layers
        self.classes = list(classes)
        self.path = path

    @classmethod
    def load(cls, path: str | Path | None = None) -> PhraseClassifier:
        """The model at ``path``, else at $REFEREE_PHRASES, else ``models/phrases.npz``."""
        p = Path(path or os.environ.get("REFEREE_PHRASES") or MODEL_PATH)
        try:
            meta, params = read_model(p, np.float32)
            layers = [Layer(int(k), int(s), int(c)) for k, s, c in meta["layers"]]
            classes = [str(c) for c in meta["classes"]]
        except FileNotFoundError:
            raise ClassifierError(f"{p}: no phrase-classifier model there (it ships in "
                                  "models/; `python -m referee.lab.train` rebuilds it)") from None
        except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile) as e:
            raise ClassifierError(f"{p}: not a phrase-classifier model ({e})") from None
        needed = [f"conv{i}_{w}" for i in range(len(layers)) for w in "wb"]
        for name in needed + ["hid_w", "hid_b", "out_w", "out_b"]:
            if name not in params:
                raise ClassifierError(f"{p}: not a phrase-classifier model (no {name} weights)")
        if params["out_w"].shape[1] != len(classes):
            raise ClassifierError(f"{p}: not a phrase-classifier model (output does not "
                                  f"match its {len(classes)} classes)")
        _blas_on_one_thread()
        return cls(params, layers, classes, p)

    def logits_of_features(self, feats: np.ndarray) -> np.ndarray:
        h = np.asarray(feats, dtype=np.float32)
        for i, layer in enumerate(self.layers):
            h = np.maximum(0.0, _conv(h, self.params[f"conv{i}_w"], self.params[f"conv{i}_b"],
                                      layer.stride))
        pooled = np.concatenate([h.max(axis=0), h.mean(axis=0)])
        hid = np.maximum(0.0, pooled @ self.params["hid_w"] + self.params["hid_b"])
        return hid @ self.params["out_w"] + self.params["out_b"]

    def probabilities(self, samples: np.ndarray) -> np.ndarray:
        """One probability per class (in ``classes`` order) for ``samples``:
        int16 mono at 16 kHz, a segment of speech with a little audio round it."""
        return self.probabilities_of_features(log_mel(samples))

    def probabilities_of_features(self, feats: np.ndarray) -> np.ndarray:
        """The same, from the segment's :func:`~.features.log_mel` features."""
        z = self.logits_of_features(feats).astype(np.float64)
        z = np.exp(z - z.max())
        return z / z.sum()

    def classify(self, samples: np.ndarray) -> tuple[str, float]:
        """The most likely class and its probability."""
        p = self.probabilities(samples)
        i = int(np.argmax(p))
        return self.classes[i], float(p[i])

    def __repr__(self) -> str:
        if self.path is None:
            return "PhraseClassifier(...)"
        return f"PhraseClassifier.load({str(self.path)!r})"


def load_check(path: str | Path | None, env: str, default: Path, what: str, train: str,
               classes: set[str]) -> PhraseClassifier:
    """A check of the classifier's kind (the suit, number, partial-call and two-voices
    checks): the model at ``path``, else at ``$env``, else ``default``.
    :class:`ClassifierError` names the file when it is missing (``train``: the
    ``referee.lab.train`` step that makes its data, and ``fit --train`` fits it) or its
    classes are not ``classes`` (``what``: "suit check" ...)."""
    p = Path(path or os.environ.get(env) or default)
    if not p.exists():
        raise ClassifierError(f"{p}: no {what} there (it ships in models/; `python -m "
                              f"referee.lab.train {train}` and `fit --{train}` rebuild it)")
    model = PhraseClassifier.load(p)
    if set(model.classes) != classes:
        shown = ", ".join(model.classes[:6]) + (", ..." if len(model.classes) > 6 else "")
        raise ClassifierError(f"{p}: not a {what} (its classes are {shown})")
    return model
