"""``referee bench --one-mic``: the game benchmark's Stroop games (:mod:`referee.lab.bench.games`)
heard by one mic in the middle of the table (:mod:`referee.lab.bench.array_table` with one
mic), clean and at 10 dB SNR; who said what told by the voice alone (issue 29, mode 2).

Per game and noise: each talker's "NAME here" and three card names at the start, found and
learnt as ``referee play --one-mic`` does (:func:`referee.app.one_mic.enrol`); every call and
deal said alone (no other voice within 100 ms) attributed over its true span; every pair of
overlapping calls (a race on one mic) checked over the span of both; a voice never enrolled
(the last player left out of a second enrolment) checked on that player's calls; and the game
refereed by the code of ``referee play stroop --one-mic --audio GAME.wav`` and scored as the
game benchmark scores it. Figures: docs/one-device.md.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from referee.lab.bench import array_table
from referee.lab.bench.games import Game, Voices

from referee.lab.bench.one_mic_report import HEADING, render
from referee.lab.cache import bench_dir
NOISES = (None, 10.0)
"""Table noise: none (clean), and 10 dB SNR at the mic."""
ENROL_CARDS = 3
ALONE = 0.1
"""Seconds of clearance from any other talker for an utterance to count as said alone."""
CALLS = ("call", "deal", "partial")


def default_dir(seed: int) -> Path:
    return bench_dir(f"onemic-v{array_table.VERSION}-s{seed}")


def _verdict(at, two: float, truth: str) -> str:
    """``right`` / ``wrong`` (counted for that talker), ``asked``, or ``two`` (two voices),
    as ``referee play --one-mic`` decides (:func:`referee.app.one_mic.decide`)."""
    from referee.app.one_mic import decide

    v = decide(at, two)
    return ("right" if at.player == truth else "wrong") if v == "counted" else v


def attributions(game: Game, audio: np.ndarray, wav: Path, table) -> dict:
    """Enrolment found as ``play --one-mic`` finds it; each call attributed."""
    from referee.app.one_mic import enrol, heard_by
    from referee.hearing.overlaps import OverlapCheck
    from referee.hearing.voiceprints import VoiceBook

    rate = array_table.RATE
    mono = audio[:, 0] if audio.ndim > 1 else audio

    def clip(a: float, b: float) -> np.ndarray:
        return mono[int(round(a * rate)): int(round(b * rate))]

    check = OverlapCheck.load()
    book, spans = enrol(str(wav), game.channels, ENROL_CARDS)
    truth = [(w, s) for w, s, _ in table.enrol] + [(w, s) for w, s, _, _ in table.enrol_cards]
    truth.sort(key=lambda x: x[1])
    enrol_err = max(abs(s - t) for (_, s, _), (_, t) in zip(spans, truth))
    shifted = array_table.shifted(game, table.offset)
    calls = [u for u in shifted.utts if u.kind in CALLS]
    alone, pairs = [], []
    for u in calls:
        if any(o.speaker != u.speaker and o.start < u.end + ALONE and u.start < o.end + ALONE
               for o in shifted.utts):
            continue
        at, two = heard_by(clip, book, check, u.start, u.end)
        alone.append({"speaker": u.speaker, "best": at.player, "confidence": round(at.confidence, 3),
                      "two": round(two, 3), "voices": list(at.voices),
                      "verdict": _verdict(at, two, u.speaker)})
    for i, u in enumerate(calls):
        for o in calls[i + 1:]:
            if o.speaker != u.speaker and o.start < u.end and u.start < o.end:
                at, two = heard_by(clip, book, check, min(u.start, o.start), max(u.end, o.end))
                pairs.append({"speakers": [u.speaker, o.speaker], "voices": list(at.voices),
                              "confidence": round(at.confidence, 3), "two": round(two, 3),
                              "verdict": _verdict(at, two, "")})
    # a voice never enrolled: the last player left out of the profiles
    left = game.players[-1]
    own = {w: f for w, f in book.frames.items() if w != left}
    unknown = []
    if len(own) >= 2:
        book2 = VoiceBook.from_features(own)
        for u in calls:
            if u.speaker == left:
                at, two = heard_by(clip, book2, check, u.start, u.end)
                unknown.append(_verdict(at, two, u.speaker))
    return {"enrol_err": round(enrol_err, 3), "alone": alone, "pairs": pairs, "unknown": unknown}


def one(job: tuple) -> dict:
    """One game at one noise: built, attributed, refereed and scored (a worker's task)."""
    from referee.hearing.voiceprints import VoicesError
    from referee.lab.bench.games import talk_settings
    from referee.lab.bench.games_run import PlayFailed, play, score

    game, spec, snr, directory, utt, seed = job
    with tempfile.TemporaryDirectory(prefix="referee-tts-") as td:
        table, wav = array_table.build(game, 1, snr, directory, Voices(utt, Path(td)), seed,
                                       ENROL_CARDS, talk_settings(spec))
    audio = array_table.read(wav)
    rec = {"game": game.id, "split": game.split, "players": len(game.players),
           "snr": "clean" if snr is None else snr, "rt60": table.rt60}
    try:
        rec.update(attributions(game, audio, wav, table))
    except VoicesError as e:
        return {**rec, "enrolled": False, "error": str(e), "alone": [], "pairs": [],
                "unknown": [], "rounds": []}
    shifted = array_table.shifted(game, table.offset)
    try:
        ran = play(shifted, wav, ["--one-mic"])
    except PlayFailed as e:
        return {**rec, "enrolled": True, "played": False, "error": str(e), "rounds": []}
    s = score(shifted, ran)
    heard = [c["heard"] for c in s["calls"] if c["kind"] == "call"]
    return {**rec, "enrolled": True, "played": True, "rounds": s["rounds"],
            "calls_heard": [sum(heard), len(heard)], "phantoms": s["phantoms"]}


def run_one_mic(args) -> int:
    """``referee bench --one-mic [--quick] [--seed N] [--jobs N] [--out FILE]``."""
    from referee.lab.bench.games_run import default_dir as games_dir, run_on_games

    directory = Path(args.corpus) if args.corpus else default_dir(args.seed)

    def work_of(built, specs):
        by_id = {s["id"]: s for s in specs}
        return [(g, by_id[g.id], snr, directory, games_dir(args.seed) / "utt", args.seed)
                for g in built for snr in NOISES]

    return run_on_games(args, "--one-mic", directory, one, work_of, "one-mic games", render,
                        HEADING)
