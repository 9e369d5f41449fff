"""The edge network: where a call's own voice is, frame by frame, as its clean voice would
give it (within 40 dB of its loudest), from one mic's audio with the leaks taken out.

Call timing (:mod:`.timing`) finds a call's edges where its voice rises over the noise and
moves them out by median offsets; in babble, clatter and reverberation those medians fit
few calls (docs/timing.md). This small network was taught instead, on calls said by the
training voices in such noise (``python -m referee.lab.train edges`` and ``fit-edges``),
what the clean voice's span was: it hears every frame's mel bands against the call's
loudest part and against the stretch's noise floor, with about a quarter second either side,
and gives the probability that the frame lies within the call's 40 dB span.

Features: 10 ms frames every 4 ms (:data:`HOP`), the level in dB of :data:`BANDS` mel bands
and of the whole band above 150 Hz, less the call's loudest (smoothed) level; and per band
the noise floor (a low percentile over the stretch) less that level. The network: dilated
1-D convolutions over time ("same" zero padding, ReLU), a sigmoid per frame. The model file
(``models/edges.npz``) holds its weights and, as JSON, its layer shapes.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import numpy as np

from referee.hearing.checks import bridged_run
from referee.hearing.classifier import ClassifierError
from referee.hearing.features import mel_filters
from referee.hearing.model_file import read_model

RATE = 16000
"""Hz the features are made at."""
WIN = 160
"""Samples per frame (10 ms, as in the definition of a call's time)."""
HOP = 64
"""Samples between frames (4 ms)."""
BANDS = 16
"""Mel bands from 100 Hz to 8 kHz."""
NFFT = 256
FLOOR_PERCENTILE = 20
"""The noise floor per band: this percentile of the stretch's frames."""
PEAK_SMOOTH = 13
"""Frames (52 ms) the whole band's level is averaged over to find the call's loudest."""
SCALE = 20.0
"""dB per unit of a feature."""
MODEL_PATH = Path(__file__).resolve().parents[2] / "models" / "edges.npz"


_MEL = mel_filters(NFFT, BANDS, 100.0, 8000.0)
_BROAD = (np.fft.rfftfreq(NFFT, 1 / RATE) >= 150).astype(float)


def levels(y: np.ndarray) -> np.ndarray:
    """dB per frame (frames, BANDS + 1) of ``y`` (16 kHz): the mel bands, then the whole
    band above 150 Hz; frame i holds samples [i * HOP, i * HOP + WIN)."""
    y = np.asarray(y, np.float64)
    if len(y) < WIN:
        return np.zeros((0, BANDS + 1))
    frames = np.lib.stride_tricks.sliding_window_view(y, WIN)[::HOP]
    spec = np.abs(np.fft.rfft(frames * np.hanning(WIN), NFFT)) ** 2
    power = np.concatenate([spec @ _MEL, (spec @ _BROAD)[:, None]], axis=1)
    return 10 * np.log10(power + 1e-10)


def features(lev: np.ndarray, peak_in: tuple[int, int], pad_end: int = 0) -> np.ndarray:
    """The network's input (frames, 2 * (BANDS + 1)) from :func:`levels`: each frame's
    levels and the stretch's floor, less the loudest smoothed whole-band level found in
    frames ``peak_in`` (the call's voiced part); ``pad_end`` more frames at the floor after
    the last (what is not heard yet is taken to be the noise, not the loudest sound)."""
    floor = np.percentile(lev, FLOOR_PERCENTILE, axis=0)
    if pad_end:
        lev = np.concatenate([lev, np.tile(floor, (pad_end, 1))])
    broad = lev[:, -1]
    smooth = np.convolve(broad, np.ones(PEAK_SMOOTH) / PEAK_SMOOTH, mode="same")
    a, b = max(0, peak_in[0]), min(len(lev), max(peak_in[1], peak_in[0] + 1))
    peak = float(np.max(smooth[a:b])) if b > a else float(np.max(smooth))
    rel = np.clip((lev - peak) / SCALE, -4.0, 1.0)
    fl = np.broadcast_to(np.clip((floor - peak) / SCALE, -4.0, 1.0), rel.shape)
    return np.concatenate([rel, fl], axis=1).astype(np.float32)


def _conv(x: np.ndarray, w: np.ndarray, b: np.ndarray, dilation: int) -> np.ndarray:
    k = w.shape[0]
    pad = dilation * (k - 1) // 2
    xp = np.pad(x, ((pad, pad), (0, 0)))
    t = len(x)
    return sum(xp[j * dilation:j * dilation + t] @ w[j] for j in range(k)) + b


class EdgeNet:
    """A loaded model; ``prob(features)`` -> per frame, the probability that it lies within
    the call's span."""

    def __init__(self, params: dict[str, np.ndarray], dilations: list[int],
                 path: Path | None = None) -> None:
        self.params, self.dilations, self.path = params, list(dilations), path

    @classmethod
    def load(cls, path: str | Path | None = None) -> "EdgeNet":
        """The model at ``path``, else ``$REFEREE_EDGES``, else :data:`MODEL_PATH`;
        :class:`ClassifierError` names the file when it is missing or not such a model."""
        p = Path(path or os.environ.get("REFEREE_EDGES") or MODEL_PATH)
        if not p.exists():
            raise ClassifierError(f"{p}: no edge network there (it ships in models/; `python -m "
                                  f"referee.lab.train edges` and `fit-edges` rebuild it)")
        try:
            meta, params = read_model(p, np.float32)
            if meta.get("kind") != "edges":
                raise KeyError("kind")
            dil = [int(d) for d in meta["dilations"]]
            for i in range(len(dil) + 1):
                params[f"w{i}"], params[f"b{i}"]  # noqa: B018 (present)
        except (KeyError, ValueError, OSError, zipfile.BadZipFile) as e:
            raise ClassifierError(f"{p}: not an edge network ({e})") from e
        return cls(params, dil, p)

    @property
    def reach(self) -> int:
        """Frames after a frame that its probability depends on."""
        return (self.params["w0"].shape[0] - 1) // 2 * sum(self.dilations)

    def prob(self, feats: np.ndarray) -> np.ndarray:
        h = np.asarray(feats, np.float32)
        for i, d in enumerate(self.dilations):
            h = np.maximum(_conv(h, self.params[f"w{i}"], self.params[f"b{i}"], d), 0)
        n = len(self.dilations)
        z = h @ self.params[f"w{n}"][0] + self.params[f"b{n}"]
        return 0.5 * (1 + np.tanh(z[:, 0] / 2))  # the sigmoid, without overflow


def span(p: np.ndarray, around: tuple[int, int], gap: int) -> tuple[float, float] | None:
    """(start, end) seconds, from the stretch's first sample, of the run of frames with
    ``p`` over one half that holds the most probable frame in ``around`` (frames), dips
    shorter than ``gap`` frames bridged; the crossings placed between frames by linear
    interpolation. None where no frame there is over one half."""
    a, b = max(0, around[0]), min(len(p), around[1])
    if b <= a:
        return None
    c = a + int(np.argmax(p[a:b]))
    if p[c] <= 0.5:
        return None
    i, k = bridged_run(p > 0.5, c, 0, len(p), gap)

    def cross(lo: int, hi: int) -> float:  # fraction of the way from frame lo to hi
        d = p[hi] - p[lo]
        return float(np.clip((0.5 - p[lo]) / d, 0, 1)) if d else 0.5

    s = (i - 1 + cross(i - 1, i)) if i > 0 else float(i)
    e = (k + cross(k, k + 1)) if k + 1 < len(p) else float(k)
    return s * HOP / RATE, (e * HOP + WIN) / RATE
