"""The table of a synthetic game (:mod:`referee.lab.bench.games`): each talker's clean voice at
their own mic, leaking into every other mic 10 to 22 dB down and 1 to 4 ms late, under the
game's noise at its SNR, through mics whose gains differ by up to 6 dB each way; written as
one multi-channel WAV (dealer first, then the players) with its truth beside it."""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from pathlib import Path

import numpy as np

from referee.audio.wav import read_wav, write_wav
from referee.lab import mixing
from referee.lab.bench import corpus
from referee.lab.bench.games import VERSION, Game, Schedule, Utt, Voices, judge, span
from referee.lab.mixing import RATE

LEAK_DB = (10.0, 22.0)
LEAK_MS = (1.0, 4.0)
MIC_GAIN_DB = 6.0
PEAK_DBFS = -12.0
"""Each utterance's peak at its own mic, before the talker's loudness and the mic's gain."""


def build(spec: dict, directory: Path, voices: Voices, seed: int) -> Game:
    """The game of ``spec``, made (or read back) in ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    meta, wav = directory / f"{spec['id']}.json", directory / f"{spec['id']}.wav"
    if meta.exists() and wav.exists():
        d = json.loads(meta.read_text())
        if d.get("version") == VERSION and d.get("spec") == spec:
            return load(d["game"])
    sched = Schedule(spec, voices)
    length = sched.lay_out()
    game = Game(id=spec["id"], split=spec["split"], players=list(spec["players"]),
                voices=dict(spec["voices"]), noise=spec["noise"], snr=spec["snr"],
                kinds=list(spec["kinds"]), utts=sched.utts, duration=round(length, 3),
                file=wav.name)
    judge(game)
    audio = mix(game, voices, np.random.default_rng(spec["seed"] + 1), directory, seed)
    tmp = wav.with_suffix(".tmp")
    write_wav(tmp, audio, RATE)
    os.replace(tmp, wav)
    meta.write_text(json.dumps({"version": VERSION, "spec": spec, "expect": sched.expect,
                                "game": asdict(game)}, indent=0))
    return game


def noise_kind(game: Game, directory: Path, seed: int, voices: Voices
               ) -> tuple[str, list | None]:
    """The kind of noise a table of ``game`` is mixed with (a reverberant room has pink
    noise in it) and, for babble, the pool of talk it is made from (cached in
    ``directory``)."""
    kind = "pink" if game.noise == "reverb" else game.noise
    if kind != "babble":
        return kind, None
    cache = directory / "babble"
    cache.mkdir(parents=True, exist_ok=True)
    return kind, corpus.babble_pool(game.split, seed, voices.workdir, cache)


def load(d: dict) -> Game:
    d = dict(d)
    d["utts"] = [Utt(**u) for u in d["utts"]]
    return Game(**d)


def expectations(directory: Path, game_id: str) -> list[dict]:
    """What the generator meant each round of a built game to be (kind, top, winner)."""
    return json.loads((directory / f"{game_id}.json").read_text())["expect"]


def _shift(x: np.ndarray, samples: int) -> np.ndarray:
    return np.concatenate([np.zeros(samples), x[: len(x) - samples]]) if samples else x


def dry_tracks(game: Game, utt_dir: Path, rng: np.random.Generator, reverb: bool
               ) -> tuple[dict[str, np.ndarray], dict[str, list[tuple[int, int]]]]:
    """Each talker's voice alone (``game.duration`` long, each talker at their own
    loudness, through :func:`referee.lab.mixing.reverb` with ``reverb``), and the truth
    spans (samples) of what they say."""
    n = int(game.duration * RATE)
    talkers = game.channels
    loud = {t: float(rng.uniform(-4, 4)) for t in talkers}
    dry = {t: np.zeros(n) for t in talkers}
    spans: dict[str, list[tuple[int, int]]] = {t: [] for t in talkers}
    for u in game.utts:
        x, _ = read_wav(utt_dir / u.file)
        x = x[:, 0].astype(np.float64)
        a, _b = span(x)
        x = x * 10 ** ((PEAK_DBFS + loud[u.speaker]) / 20) / max(float(np.max(np.abs(x))), 1e-9)
        if reverb:
            x = mixing.reverb(x, rng)
        s = int(round(u.start * RATE)) - a
        e = min(n, s + len(x))
        dry[u.speaker][s:e] += x[: e - s]
        spans[u.speaker].append((int(round(u.start * RATE)), int(round(u.end * RATE))))
    return dry, spans


def mix(game: Game, voices: Voices, rng: np.random.Generator, directory: Path,
        seed: int) -> np.ndarray:
    """The mics' signals, shaped (frames, channels), and the table's draws recorded in
    ``game`` (leak levels and delays, mic gains)."""
    n = int(game.duration * RATE)
    talkers = game.channels
    dry, spans = dry_tracks(game, voices.dir, rng, reverb=game.noise == "reverb")
    game.leak_db = {t: {m: round(float(rng.uniform(*LEAK_DB)), 1) for m in talkers if m != t}
                    for t in talkers}
    game.leak_ms = {t: {m: round(float(rng.uniform(*LEAK_MS)), 2) for m in talkers if m != t}
                    for t in talkers}
    game.mic_gain_db = {m: round(float(rng.uniform(-MIC_GAIN_DB, MIC_GAIN_DB)), 1)
                        for m in talkers}
    kind, pool = noise_kind(game, directory, seed, voices)
    room = mixing.make_noise(kind, n + 64, rng, pool)
    out = np.zeros((n, len(talkers)))
    for j, m in enumerate(talkers):
        sig = dry[m].copy()
        for t in talkers:
            if t != m:
                sig += _shift(dry[t], int(round(game.leak_ms[t][m] * RATE / 1000))) * \
                    10 ** (-game.leak_db[t][m] / 20)
        d = int(rng.integers(0, 64))
        noise = room[d: d + n] + 0.3 * mixing.pink(n, rng)
        own = np.concatenate([dry[m][a:b] for a, b in spans[m]]) if spans[m] else dry[m]
        scale = np.sqrt(mixing.power(own) / max(mixing.power(noise), 1e-30)
                        / 10 ** (game.snr / 10))
        out[:, j] = (sig + noise * scale) * 10 ** (game.mic_gain_db[m] / 20)
    top = float(np.max(np.abs(out))) if out.size else 0.0
    return out * (0.98 / top) if top > 0.98 else out

