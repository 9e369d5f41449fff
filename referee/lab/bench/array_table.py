"""A synthetic game (:mod:`referee.lab.bench.games`) heard by one small mic array in the
middle of the table instead of a mic per player: a reverberant room (pyroomacoustics' image
sources), 2 to 6 mics about 5 cm apart, the dealer and the players seated around it, table
noise from a point on the table and a little hiss at each mic. The recording begins with each
talker saying "NAME here" in channel order (the enrolment), then the game as the game
benchmark laid it out, ``offset`` seconds later.

With two mics (a laptop's stereo pair) the seats are in front of it, over half a circle; with
more they go all round. With one mic (mode 2, one mic for the table) the talkers go all round
it, and each says a few card names after their name (the voice enrolment). See
docs/one-device.md.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from referee.audio.wav import read_wav, write_wav
from referee.lab import mixing
from referee.lab.bench.games import Game, Voices
from referee.lab.bench.games_table import PEAK_DBFS, dry_tracks, noise_kind
from referee.lab.mixing import RATE

VERSION = 1
"""Bump when the rooms or the mixing change, so old caches are not reused."""
SPACING = 0.05
"""Metres between neighbouring mics."""
MIC_COUNTS = (2, 3, 4, 6)
"""The arrays the games cycle through."""
ENROL_GAP = (0.5, 0.9)
"""Seconds between two talkers' "NAME here"."""
HISS_DB = -10.0
"""Each mic's own hiss under the table noise (dB)."""


@dataclass
class Table:
    """One room, array and seating; positions in metres."""

    room: list[float]
    rt60: float
    mics: list[list[float]]
    """(x, y, z) per mic."""
    seats: dict[str, list[float]]
    """Talker -> mouth position."""
    azimuth: dict[str, float]
    """Talker -> degrees around the array (0 along its first mic pair)."""
    noise_at: list[float]
    snr: float
    offset: float = 0.0
    """Seconds of enrolment before the game."""
    enrol: list[list] | None = None
    """[talker, start, end] of each "NAME here" (truth, seconds)."""
    enrol_cards: list[list] | None = None
    """[talker, start, end, text] of each card name said after it (one mic's enrolment)."""


def plan_table(game: Game, mics: int, snr: float | None, rng: np.random.Generator) -> Table:
    """A room, an array of ``mics`` on the table (one mic: in the middle), and a seat for each
    of ``game``'s talkers. ``snr`` None: no table noise."""
    room = [float(rng.uniform(4, 7)), float(rng.uniform(3.5, 6)), float(rng.uniform(2.6, 3.0))]
    centre = np.array([room[0] / 2 + rng.uniform(-0.5, 0.5),
                       room[1] / 2 + rng.uniform(-0.5, 0.5), 0.76])
    turn = float(rng.uniform(0, 2 * np.pi))
    if mics == 1:
        offsets = [np.zeros(3)]
    elif mics == 2:
        offsets = [np.array([-SPACING / 2, 0, 0]), np.array([SPACING / 2, 0, 0])]
    else:
        r = SPACING / (2 * np.sin(np.pi / mics))
        offsets = [r * np.array([np.cos(2 * np.pi * k / mics), np.sin(2 * np.pi * k / mics), 0])
                   for k in range(mics)]
    rot = np.array([[np.cos(turn), -np.sin(turn), 0], [np.sin(turn), np.cos(turn), 0], [0, 0, 1]])
    mic_pos = [list(map(float, centre + rot @ o)) for o in offsets]
    talkers = game.channels
    n = len(talkers)
    arc, first = (150.0, 15.0) if mics == 2 else (360.0, float(rng.uniform(0, 360)))
    step = arc / (n - 1 if mics == 2 else n)
    seats, azimuth = {}, {}
    for k, t in enumerate(rng.permutation(talkers)):
        az = first + k * step + float(rng.uniform(-0.15, 0.15)) * step
        d, h = float(rng.uniform(0.5, 0.9)), float(rng.uniform(0.3, 0.45))
        a = np.radians(az) + turn
        seats[str(t)] = list(map(float, centre + [d * np.cos(a), d * np.sin(a), h]))
        azimuth[str(t)] = round(az % 360, 1)
    na = float(rng.uniform(0, 2 * np.pi))
    noise_at = list(map(float, centre + [0.4 * np.cos(na), 0.4 * np.sin(na), 0.02]))
    return Table(room, round(float(rng.uniform(0.25, 0.6)), 2), mic_pos, seats, azimuth,
                 noise_at, snr)


def _rirs(table: Table) -> tuple[dict[str, list[np.ndarray]], list[np.ndarray]]:
    """The room's impulse responses: per talker per mic, and from the noise's place."""
    import pyroomacoustics as pra

    absorption, order = pra.inverse_sabine(table.rt60, table.room)
    room = pra.ShoeBox(table.room, fs=RATE, materials=pra.Material(absorption),
                       max_order=min(order, 20))
    names = list(table.seats)
    for t in names:
        room.add_source(table.seats[t])
    room.add_source(table.noise_at)
    room.add_microphone_array(np.array(table.mics).T)
    room.compute_rir()
    per = {t: [np.asarray(room.rir[m][k]) for m in range(len(table.mics))]
           for k, t in enumerate(names)}
    return per, [np.asarray(room.rir[m][len(names)]) for m in range(len(table.mics))]


def _through(x: np.ndarray, rirs: list[np.ndarray], n: int) -> np.ndarray:
    from scipy.signal import fftconvolve

    return np.stack([fftconvolve(x, h)[:n] for h in rirs], axis=1)


def render(game: Game, table: Table, voices: Voices, rng: np.random.Generator,
           directory: Path, seed: int, enrol_cards: int = 0,
           talk: dict[str, tuple[float, int]] | None = None) -> np.ndarray:
    """The array's recording, (frames, mics): the enrolment (each talker's "NAME here", then
    ``enrol_cards`` card names of theirs, at the rate and pitch of ``talk``, else the
    voice's own), then the game; fills in ``table.offset``, ``table.enrol`` and
    ``table.enrol_cards``."""
    from referee.core.cards import full_deck

    talkers = game.channels
    names, cards, t = [], [], float(rng.uniform(0.5, 0.9))
    enrol_dry = []
    deck = [c.spoken for c in full_deck()]
    for who in talkers:
        texts = [f"{who} here"]
        if enrol_cards:
            texts += [deck[i] for i in rng.choice(len(deck), enrol_cards, replace=False)]
        for k, text in enumerate(texts):
            _, x = voices.say(game.voices[who], text, *(talk or {}).get(who, (1.0, 0)))
            a, b = mixing.active_span(x, floor_db=-40.0, frame_s=0.01, hop_s=0.001)
            (names if k == 0 else cards).append(
                [who, round(t, 4), round(t + (b - a) / RATE, 4)] + ([text] if k else []))
            enrol_dry.append((who, x[a:b] * 10 ** (PEAK_DBFS / 20) / max(np.abs(x).max(), 1e-9),
                              int(round(t * RATE))))
            t += (b - a) / RATE + float(rng.uniform(*ENROL_GAP))
    table.offset, table.enrol = round(t, 4), names
    table.enrol_cards = cards or None
    lead = int(round(table.offset * RATE))
    game_dry, spans = dry_tracks(game, voices.dir, rng, reverb=False)
    n = lead + int(game.duration * RATE)
    rirs, noise_rir = _rirs(table)
    speech = np.zeros((n, len(table.mics)))
    for who in talkers:
        dry = np.zeros(n)
        dry[lead:] = game_dry[who]
        for w, x, at in enrol_dry:
            if w == who:
                dry[at: at + len(x)] += x
        speech += _through(dry, rirs[who], n)
    if table.snr is None:
        top = float(np.max(np.abs(speech)))
        return speech * (0.98 / top) if top > 0.98 else speech
    kind, pool = noise_kind(game, directory, seed, voices)
    noise = _through(mixing.make_noise(kind, n, rng, pool), noise_rir, n)
    noise /= np.sqrt(mixing.power(noise[:, 0]))
    hiss = np.stack([mixing.pink(n, rng) for _ in table.mics], axis=1) * 10 ** (HISS_DB / 20)
    noise += hiss
    voiced = np.concatenate([speech[lead + a: lead + b, 0] for s in spans.values()
                             for a, b in s] or [speech[:, 0]])
    scale = np.sqrt(mixing.power(voiced) / max(mixing.power(noise[:, 0]), 1e-30)
                    / 10 ** (table.snr / 10))
    out = speech + noise * scale
    top = float(np.max(np.abs(out)))
    return out * (0.98 / top) if top > 0.98 else out


def build(game: Game, mics: int, snr: float | None, directory: Path, voices: Voices, seed: int,
          enrol_cards: int = 0, talk: dict[str, tuple[float, int]] | None = None
          ) -> tuple[Table, Path]:
    """``game`` at a table with an array of ``mics``, made (or read back) in ``directory``:
    its table and its WAV. ``snr`` None: clean (no table noise). ``enrol_cards`` and
    ``talk``: see :func:`render`."""
    directory.mkdir(parents=True, exist_ok=True)
    key = f"{game.id}-m{mics}-snr{'clean' if snr is None else f'{snr:g}'}" + \
        (f"-c{enrol_cards}" if enrol_cards else "") + ("-t" if talk else "")
    meta, wav = directory / f"{key}.json", directory / f"{key}.wav"
    if meta.exists() and wav.exists():
        d = json.loads(meta.read_text())
        if d.get("version") == VERSION:
            return Table(**d["table"]), wav
    rng = mixing.rng_for(seed, f"array/{key}")
    table = plan_table(game, mics, snr, rng)
    audio = render(game, table, voices, rng, directory, seed, enrol_cards, talk)
    tmp = wav.with_suffix(".tmp")
    write_wav(tmp, audio, RATE)
    os.replace(tmp, wav)
    meta.write_text(json.dumps({"version": VERSION, "table": asdict(table)}, indent=0))
    return table, wav


def shifted(game: Game, offset: float) -> Game:
    """``game`` with its utterances ``offset`` seconds later (after the enrolment)."""
    return replace(game, utts=[replace(u, start=round(u.start + offset, 6),
                                       end=round(u.end + offset, 6)) for u in game.utts])


def read(wav: Path) -> np.ndarray:
    x, _ = read_wav(wav)
    return x
