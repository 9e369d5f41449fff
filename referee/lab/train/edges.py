"""Training data for the edge network (:mod:`referee.hearing.edge_net`): card calls said by
the training voices, each put on one mic as the call timer hears it (the leaks taken out),
with what is left of a neighbour's call, in noise, and labelled frame by frame from the
clean voice: within 40 dB of its loudest or not (the definition of a call's time, issue 21).

Each call is mixed ``copies`` times: played a little faster or slower half the time, in a
reverberant room a third of the time (labels stay the dry voice's, as the game benchmark's
truth does), with another training voice's card call 10 to 35 dB down overlapping or beside
it six times in ten (the canceller's leftover of a neighbour, or a leak it missed), in
babble, clatter, pink or white noise at 3 to 28 dB SNR (the call's power over its span
against the noise's) or in a quiet room. The stretch is 0.6 to 1.6 s of noise before the
call and 0.3 to 0.7 s after (the timer reads 1.5 s before the recogniser's start); the
frames kept are those from 0.7 s before the call to 0.6 s after it.

Nothing of the benchmark's held-out or tuning sets is used: training voices only (see
:mod:`.voices`), babble and neighbours' calls from :func:`.data._talk_and_leaks`.
"""

from __future__ import annotations

import multiprocessing as mp
import random
import time
from pathlib import Path

import numpy as np

from referee.audio.wav import resample
from referee.hearing import edge_net
from referee.hearing.timing import HOP as ENV_HOP
from referee.hearing.timing import SPAN_DB, envelope_db, truth
from referee.lab import mixing
from referee.lab.mixing import RATE
from referee.lab.train import data
from referee.lab.train.texts import card_texts

KINDS = ("babble", "clatter", "pink", "white", "quiet")


def plan(per_card: int = 30, seed: int = 51, **shares) -> list[data.Job]:
    """``per_card`` of each card call, voices drawn as :func:`.data.assign` draws them."""
    rng = random.Random(seed)
    lines = [(text, text) for text, _ in card_texts() for _ in range(per_card)]
    rng.shuffle(lines)
    return data.assign(lines, rng, seed, **shares)


def example(speech: np.ndarray, rng: np.random.Generator
            ) -> tuple[np.ndarray, np.ndarray, str] | None:
    """(features, labels per frame, condition) of one mix of ``speech`` (see the module)."""
    s = np.asarray(speech, np.float64)
    if rng.random() < 0.5:
        s = resample(s, RATE, int(round(RATE * rng.uniform(0.9, 1.12)))).astype(np.float64)
    t = truth(s, RATE)
    if t is None:
        return None
    lead, trail = int(rng.uniform(0.6, 1.6) * RATE), int(rng.uniform(0.3, 0.7) * RATE)
    a, b = int(t[0] * RATE), int(t[1] * RATE)
    s = s[max(0, a - int(0.05 * RATE)):b + int(0.05 * RATE)]
    n = lead + len(s) + trail
    dry = np.zeros(n)
    dry[lead:lead + len(s)] = s
    voice = mixing.reverb(dry, rng)[:n] if rng.random() < 0.33 else dry
    t = truth(dry, RATE)
    ts, te = int(t[0] * RATE), int(t[1] * RATE)
    own = mixing.power(dry[ts:te])
    mic = voice.copy()
    if data._CALLS and rng.random() < 0.6:
        other = np.asarray(data._CALLS[int(rng.integers(len(data._CALLS)))], np.float64)
        at = int(rng.integers(ts - len(other), te + int(0.3 * RATE)))
        placed = np.zeros(n)
        lo, hi = max(0, at), min(n, at + len(other))
        if hi > lo:
            placed[lo:hi] = other[lo - at:hi - at]
        level = mixing.power(other) or 1e-12
        mic += placed * np.sqrt(own / level) * 10 ** (-rng.uniform(10, 35) / 20)
    kind = str(rng.choice(KINDS))
    if kind == "quiet":
        noise, snr = mixing.pink(n, rng), float(rng.uniform(30, 45))
    else:
        noise, snr = mixing.make_noise(kind, n, rng, data._POOL), float(rng.uniform(3, 28))
    mic += noise * np.sqrt(own / max(mixing.power(noise), 1e-30) / 10 ** (snr / 10))
    mic *= 10 ** (rng.uniform(-40, -6) / 20) / max(float(np.max(np.abs(mic))), 1e-9)
    lev = edge_net.levels(mic)
    per = edge_net.HOP // int(ENV_HOP * RATE)
    hint = (int((ts / RATE + rng.uniform(-0.15, 0.1)) * RATE / edge_net.HOP),
            int((te / RATE + rng.uniform(-0.2, 0.05)) * RATE / edge_net.HOP))
    feats = edge_net.features(lev, hint)
    env = envelope_db(dry, RATE)
    inside = env >= env.max() - SPAN_DB
    labels = np.zeros(len(lev), np.uint8)
    k = np.arange(len(lev)) * per
    labels[k < len(inside)] = inside[k[k < len(inside)]]
    lo = max(0, int((ts / RATE - 0.7) * RATE / edge_net.HOP))
    hi = min(len(lev), int((te / RATE + 0.6) * RATE / edge_net.HOP))
    return feats[lo:hi].astype(np.float16), labels[lo:hi], f"{kind}@{snr:.0f}"


def work(job: data.Job, copies: int = 3):
    speech = data.speech_of(job)
    if speech is None:
        return job, []
    rng = np.random.default_rng(job.seed)
    return job, [e for e in (example(speech, rng) for _ in range(copies)) if e is not None]


def build(out: Path, jobs: list[data.Job], seed: int, workers: int = 2) -> Path:
    """Synthesise and mix every job; save the frames, labels and lengths to ``out``."""
    t0 = time.time()
    pools = data._talk_and_leaks(seed)
    feats, labels, lengths, conds = [], [], [], []
    with mp.get_context("fork").Pool(workers, initializer=data._init, initargs=(pools,)) as p:
        for k, (_job, ex) in enumerate(p.imap_unordered(work, jobs, chunksize=8)):
            for f, lab, cond in ex:
                feats.append(f)
                labels.append(lab)
                lengths.append(len(f))
                conds.append(cond)
            if k % 200 == 0:
                print(f"[{time.time() - t0:6.0f} s] {k}/{len(jobs)} calls", flush=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, feats=np.concatenate(feats), labels=np.concatenate(labels),
                        lengths=np.array(lengths, np.int32), conds=np.array(conds))
    return out
