"""Fit the edge network (:mod:`referee.hearing.edge_net`) on :mod:`.edges` data, in JAX,
and write the model file the referee loads. The network computed here is the one
:meth:`EdgeNet.prob` computes in numpy: dilated 1-D convolutions with "same" zero padding
and ReLU, then a per-frame linear layer and a sigmoid; the loss is the binary cross-entropy
of each frame's label, padding frames masked out."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from referee.hearing.model_file import read_model
from referee.lab.train import model_meta

KERNEL = 5
CHANNELS = 64
DILATIONS = (1, 2, 4, 8, 16)


def load(paths: list[Path]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The sequences of features and of labels of every data file."""
    xs, ys = [], []
    for p in paths:
        with np.load(p, allow_pickle=False) as z:
            f, lab, n = z["feats"], z["labels"], z["lengths"]
        cut = np.cumsum(n)[:-1]
        xs += np.split(f, cut)
        ys += np.split(lab, cut)
    return xs, ys


def init_params(rng: np.random.Generator, inputs: int) -> dict[str, np.ndarray]:
    p, c = {}, inputs
    for i, _ in enumerate(DILATIONS):
        p[f"w{i}"] = (rng.standard_normal((KERNEL, c, CHANNELS)) * np.sqrt(2 / (KERNEL * c))
                      ).astype(np.float32)
        p[f"b{i}"] = np.zeros(CHANNELS, np.float32)
        c = CHANNELS
    n = len(DILATIONS)
    p[f"w{n}"] = (rng.standard_normal((1, c, 1)) * np.sqrt(1 / c)).astype(np.float32)
    p[f"b{n}"] = np.zeros(1, np.float32)
    return p


def start_from(path: Path, fresh: dict[str, np.ndarray]) -> tuple[dict[str, np.ndarray], dict]:
    """The weights and meta of the edge network at ``path``, to fine-tune; ``fresh``: a new
    network's weights, whose names and shapes it must have."""
    meta, params = read_model(path)
    if meta.get("kind") != "edges" or {k: v.shape for k, v in params.items()} != {
            k: v.shape for k, v in fresh.items()}:
        raise SystemExit(f"fit-edges: {path}: not an edge network of this shape")
    return params, meta


def main(data: list[Path], out: Path, epochs: int = 12, seed: int = 0, lr: float = 2e-3,
         batch: int = 32, init: Path | None = None) -> None:
    import jax
    import jax.numpy as jnp
    import optax

    xs, ys = load(data)
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(xs))
    val, train = order[:max(1, len(xs) // 20)], order[max(1, len(xs) // 20):]
    params = init_params(rng, xs[0].shape[1])
    history = []
    if init is not None:
        params, before = start_from(init, params)
        history = model_meta.fits(before)
        print(f"starting from {init}", flush=True)
    params = {k: jnp.asarray(v) for k, v in params.items()}

    def forward(p, x):  # x: (B, T, C)
        h = x
        for i, d in enumerate(DILATIONS):
            pad = d * (KERNEL - 1) // 2
            h = jax.lax.conv_general_dilated(h, p[f"w{i}"], (1,), [(pad, pad)],
                                             rhs_dilation=(d,),
                                             dimension_numbers=("NWC", "WIO", "NWC"))
            h = jax.nn.relu(h + p[f"b{i}"])
        n = len(DILATIONS)
        return (h @ p[f"w{n}"][0] + p[f"b{n}"])[..., 0]

    def loss(p, x, y, m):
        z = forward(p, x)
        ll = optax.sigmoid_binary_cross_entropy(z, y)
        return jnp.sum(ll * m) / jnp.sum(m)

    opt = optax.adam(optax.cosine_decay_schedule(lr, epochs * (len(train) // batch + 1)))
    state = opt.init(params)

    @jax.jit
    def step(p, s, x, y, m):
        v, g = jax.value_and_grad(loss)(p, x, y, m)
        u, s = opt.update(g, s, p)
        return optax.apply_updates(p, u), s, v

    def pad(idx):
        t = max(len(xs[i]) for i in idx)
        t = (t + 63) // 64 * 64  # few shapes, few compilations
        x = np.zeros((len(idx), t, xs[0].shape[1]), np.float32)
        y = np.zeros((len(idx), t), np.float32)
        m = np.zeros((len(idx), t), np.float32)
        for r, i in enumerate(idx):
            n = len(xs[i])
            x[r, :n], y[r, :n], m[r, :n] = xs[i], ys[i], 1
        return x, y, m

    evaluate = jax.jit(loss)
    t0 = time.time()
    for e in range(epochs):
        rng.shuffle(train)
        tot = []
        for k in range(0, len(train) - batch + 1, batch):
            params, state, v = step(params, state, *pad(train[k:k + batch]))
            tot.append(float(v))
        vl = [float(evaluate(params, *pad(val[k:k + batch]))) for k in range(0, len(val), batch)]
        print(f"[{time.time() - t0:6.0f} s] epoch {e + 1}: train {np.mean(tot):.4f}, "
              f"held back {np.mean(vl):.4f}", flush=True)
    meta = {"kind": "edges", "dilations": list(DILATIONS), "kernel": KERNEL,
            "data": [p.name for p in data], "epochs": epochs, "seed": seed,
            "history": history}
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(out, meta=np.array(json.dumps(meta)),
             **{k: np.asarray(v, np.float32) for k, v in params.items()})
    print(f"wrote {out}")
