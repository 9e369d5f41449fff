"""Fitting the phrase classifier in JAX and writing ``models/phrases.npz``.

The network is the one :mod:`referee.hearing.classifier` runs in numpy; this
computes the same function on padded batches (activations past each row's end
are zeroed after every layer, as the numpy version has no frames there) and
trains it with AdamW, label smoothing, SpecAugment-style masks and bands
moved up or down a little (another vocal tract). A tenth of
the training voices is kept out of the fit to report how it does on voices it
has not seen.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from referee.core.cards import full_deck
from referee.hearing.classifier import OTHER, PhraseClassifier
from referee.hearing.features import N_MELS
from referee.hearing.model_file import read_model
from referee.lab.train import model_meta
from referee.lab.train.voices import warp_rows

LAYERS = [(5, 1, 96), (5, 2, 128), (5, 1, 128), (5, 2, 160), (3, 1, 160)]
HIDDEN = 128
MAX_FRAMES = 400
BUCKET = 50
BATCH = 128


def classes() -> list[str]:
    return [c.spoken for c in full_deck()] + ["goop", OTHER]


def load(paths: list[Path]):
    feats, labels, voices = [], [], []
    for p in paths:
        with np.load(p, allow_pickle=False) as z:
            f, lengths = z["feats"], z["lengths"]
            ends = np.cumsum(lengths)
            feats += np.split(f, ends[:-1])
            labels += list(z["labels"])
            voices += list(z["voices"])
    return feats, labels, voices


def init_params(rng: np.random.Generator, n_classes: int) -> dict[str, np.ndarray]:
    p = {}
    cin = N_MELS
    for i, (k, _, c) in enumerate(LAYERS):
        p[f"conv{i}_w"] = rng.normal(0, np.sqrt(2.0 / (k * cin)), (k, cin, c)).astype(np.float32)
        p[f"conv{i}_b"] = np.zeros(c, np.float32)
        cin = c
    p["hid_w"] = rng.normal(0, np.sqrt(2.0 / (2 * cin)), (2 * cin, HIDDEN)).astype(np.float32)
    p["hid_b"] = np.zeros(HIDDEN, np.float32)
    p["out_w"] = rng.normal(0, np.sqrt(1.0 / HIDDEN), (HIDDEN, n_classes)).astype(np.float32)
    p["out_b"] = np.zeros(n_classes, np.float32)
    return p


WARP = 0.1
"""How far (a factor) :func:`warp_bands` moves a row's bands at most."""
WARP_SHARE = 0.5
"""The share of training rows whose bands are moved."""


def warp_bands(f: np.ndarray, factor: float) -> np.ndarray:
    """``f`` (frames, bands) with its spectrum moved up by ``factor`` on the
    mel scale (the top band held): the same voice from a shorter or longer
    vocal tract, roughly (vocal tract length perturbation, on the features)."""
    return warp_rows(f.T, factor).T


def batches(idx: np.ndarray, feats, y, rng: np.random.Generator, size: int, augment: bool):
    """Padded batches of rows of similar length: (x, lengths, labels)."""
    lens = np.array([min(len(feats[i]), MAX_FRAMES) for i in idx])
    order = idx[np.argsort(lens + rng.uniform(0, BUCKET, len(lens)))]
    chunks = [order[i:i + size] for i in range(0, len(order), size)]
    rng.shuffle(chunks)
    for chunk in chunks:
        ls = [min(len(feats[i]), MAX_FRAMES) for i in chunk]
        t = int(np.ceil(max(ls) / BUCKET) * BUCKET)
        x = np.zeros((len(chunk), t, N_MELS), np.float32)
        for r, i in enumerate(chunk):
            f = feats[i]
            if len(f) > MAX_FRAMES:
                s = int(rng.integers(0, len(f) - MAX_FRAMES + 1))
                f = f[s:s + MAX_FRAMES]
            f = f.astype(np.float32)
            if augment:
                f = f.copy() if rng.random() >= WARP_SHARE else \
                    warp_bands(f, float(rng.uniform(1 - WARP, 1 + WARP)))
                for _ in range(2):
                    w = int(rng.integers(0, 6))
                    b0 = int(rng.integers(0, N_MELS - w + 1))
                    f[:, b0:b0 + w] = 0.0
                w = int(rng.integers(0, min(12, len(f) // 8) + 1))
                s0 = int(rng.integers(0, len(f) - w + 1))
                f[s0:s0 + w] = 0.0
            x[r, :len(f)] = f
        yield x, np.array(ls, np.int32), y[chunk]


def main(data: list[Path], out: Path, epochs: int = 12, seed: int = 0,
         init: Path | None = None, lr: float = 3e-3, names: list[str] | None = None) -> None:
    """Fit the network on the examples in ``data`` and write it to ``out``;
    ``names``: its classes (default: the phrase classifier's, :func:`classes`;
    the suit check's are :data:`.tails.CLASSES`)."""
    import jax
    import jax.numpy as jnp
    import optax

    t0 = time.time()
    feats, labels, voices = load(data)
    names = list(names or classes())
    index = {c: i for i, c in enumerate(names)}
    y = np.array([index[str(lab)] for lab in labels], np.int32)
    rng = np.random.default_rng(seed)
    voice_ids = sorted({v for v in voices if v})
    kept_out = set(rng.choice(voice_ids, max(1, len(voice_ids) // 10), replace=False))
    is_val = np.array([v in kept_out for v in voices])
    train_idx, val_idx = np.nonzero(~is_val)[0], np.nonzero(is_val)[0]
    print(f"{len(feats)} segments ({len(train_idx)} fit, {len(val_idx)} from "
          f"{len(kept_out)} voices kept out); loaded in {time.time() - t0:.0f} s", flush=True)

    def forward(p, x, lengths):
        h = x
        n = lengths
        for i, (k, s, _) in enumerate(LAYERS):
            pad = (k - 1) // 2
            h = jax.lax.conv_general_dilated(h, p[f"conv{i}_w"], (s,), [(pad, k - 1 - pad)],
                                             dimension_numbers=("NWC", "WIO", "NWC"))
            h = jax.nn.relu(h + p[f"conv{i}_b"])
            n = (n + s - 1) // s
            mask = (jnp.arange(h.shape[1])[None, :] < n[:, None])[..., None]
            h = h * mask
        pooled = jnp.concatenate([h.max(axis=1), h.sum(axis=1) / n[:, None]], axis=1)
        hid = jax.nn.relu(pooled @ p["hid_w"] + p["hid_b"])
        return hid @ p["out_w"] + p["out_b"]

    def loss_fn(p, x, lengths, yb):
        logits = forward(p, x, lengths)
        target = optax.smooth_labels(jax.nn.one_hot(yb, len(names)), 0.05)
        return optax.softmax_cross_entropy(logits, target).mean()

    steps_per_epoch = len(train_idx) // BATCH + 1
    sched = optax.warmup_cosine_decay_schedule(0.0, lr, steps_per_epoch // 2,
                                               steps_per_epoch * epochs, 2e-5)
    opt = optax.adamw(sched, weight_decay=1e-4)
    start = init_params(rng, len(names))
    if init is not None:
        old = PhraseClassifier.load(init)
        if old.classes != names or [(l.kernel, l.stride, l.channels) for l in old.layers] \
                != [tuple(x) for x in LAYERS]:
            raise SystemExit(f"{init}: another network; cannot start from it")
        start = old.params
        print(f"starting from {init}", flush=True)
    params = {k: jnp.asarray(v) for k, v in start.items()}
    state = opt.init(params)

    @jax.jit
    def step(p, st, x, lengths, yb):
        loss, g = jax.value_and_grad(loss_fn)(p, x, lengths, yb)
        upd, st = opt.update(g, st, p)
        return optax.apply_updates(p, upd), st, loss

    predict = jax.jit(forward)

    def evaluate(p, idx):
        if not len(idx):
            return float("nan"), float("nan"), float("nan")
        hit, fa, neg = 0, 0, 0
        for x, ls, yb in batches(idx, feats, y, np.random.default_rng(1), 128, False):
            pred = np.asarray(predict(p, x, ls)).argmax(axis=1)
            hit += int((pred == yb).sum())
            o = index[OTHER]
            neg += int((yb == o).sum())
            fa += int(((yb == o) & (pred != o)).sum())
        return hit / len(idx), fa / max(1, neg), neg

    for epoch in range(epochs):
        losses = []
        for x, ls, yb in batches(train_idx, feats, y, rng, BATCH, True):
            params, state, loss = step(params, state, x, ls, yb)
            losses.append(float(loss))
        acc, fa, _ = evaluate(params, val_idx)
        print(f"epoch {epoch + 1}/{epochs}: loss {np.mean(losses):.3f}, kept-out voices: "
              f"accuracy {acc:.3f}, other->phrase {fa:.3f} [{time.time() - t0:.0f} s]",
              flush=True)

    out.parent.mkdir(parents=True, exist_ok=True)
    history = [] if init is None else model_meta.fits(read_model(init)[0])
    meta = {"layers": LAYERS, "hidden": HIDDEN, "classes": names,
            "trained_on": [str(p) for p in data], "epochs": epochs, "seed": seed,
            "history": history}
    arrays = {k: np.asarray(v, np.float32) for k, v in params.items()}
    np.savez_compressed(out, meta=np.array(json.dumps(meta)), **arrays)
    # The numpy network must give what JAX gives.
    model = PhraseClassifier.load(out)
    x, ls, _ = next(batches(val_idx if len(val_idx) else train_idx, feats, y,
                            np.random.default_rng(2), 8, False))
    want = np.asarray(predict(params, x, ls))
    for r in range(len(x)):
        got = model.logits_of_features(x[r, :ls[r]])
        assert np.allclose(got, want[r], atol=1e-3), (got, want[r])
    print(f"wrote {out} in {time.time() - t0:.0f} s")
