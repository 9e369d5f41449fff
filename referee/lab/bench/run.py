"""Measure the recogniser on a synthetic corpus and write BENCHMARKS.md.

Builds (or reuses) the benchmark corpus, streams every item through the same
recogniser streams ``referee transcribe`` and ``referee listen`` use, in live-
sized blocks, and reports exact-phrase accuracy per SNR and voice, false
accepts on negatives, real-time factor and the delay from the end of a call to
its event, on held-out voices separately from tuning voices.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import importlib.metadata
import json
import os
import platform
import shlex
import sys
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

from referee.core.errors import RefereeError
from referee.lab import sentences
from referee.lab.bench import corpus
from referee.lab.bench import report
from referee.lab.bench.report import BLOCK_MS
from referee.lab.synth import SynthError, Voice

DESCRIPTION = __doc__


class BenchError(RefereeError, ValueError):
    """Bad benchmark input (an option, a corpus directory, a results file)."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--games", action="store_true",
                   help="the game benchmark instead: synthetic multi-channel Stroop games "
                   "refereed as `referee play stroop --audio` does, scored against their "
                   "truth (issue 21); takes --quick, --seed, --out, --corpus, --engine, --model")
    p.add_argument("--array", action="store_true",
                   help="the mic array benchmark instead: the game benchmark's games heard by "
                   "one simulated array in the middle of the table (issue 29); seats learnt, "
                   "calls attributed, games refereed as `referee play --array` does; takes "
                   "--quick, --seed, --jobs, --out, --corpus")
    p.add_argument("--one-mic", action="store_true",
                   help="the one-mic benchmark instead: the game benchmark's games heard by one "
                   "simulated mic in the middle of the table, clean and at 10 dB (issue 29, "
                   "mode 2); voices learnt, calls attributed, games refereed as `referee play "
                   "--one-mic` does; takes --quick, --seed, --jobs, --out, --corpus")
    p.add_argument("--jobs", type=int, metavar="N",
                   help="with --games: games refereed at once, one process each (default: 1; "
                   "the figures are the same)")
    p.add_argument("--engine", choices=("pocketsphinx", "vosk"),
                   help="recogniser to measure (default: as `referee transcribe` chooses)")
    p.add_argument("--model", help="Vosk model directory (as for `referee transcribe`)")
    p.add_argument("--quick", action="store_true",
                   help="a small subset (held-out voices, ~1 in 5 calls): a minute or two")
    p.add_argument("--split", choices=("held-out", "tuning", "both"),
                   help="which voices (default: both; held-out with --quick)")
    p.add_argument("--dev", choices=tuple(corpus.DEV_SETS),
                   help="measure a development set instead, to choose settings on: the tuning "
                   "sentences said by other voices (diphone: MBROLA's and festival's diphone "
                   "people, some trained on; kept-out: those never trained on; pico: SVOX "
                   "Pico's British voice, its American one being a training voice), or "
                   "(near-miss) 42 sentences with card words that are no call said "
                   "by 8 voices of every family. With --numbers: the count's tuning answers "
                   "said by that set's voices. Needs Debian non-free voices; never a "
                   "benchmark figure")
    p.add_argument("--out", help="report to write (default: BENCHMARKS.md; with --dev, "
                   "report.md in the corpus directory)")
    p.add_argument("--details", metavar="FILE",
                   help="also write per-item failures and confusions to FILE (markdown)")
    p.add_argument("--details-split", choices=("tuning", "held-out", "both"), default="tuning",
                   help="whose items --details lists (default: %(default)s, so nobody tunes "
                   "to the held-out voices)")
    p.add_argument("--results", metavar="FILE",
                   help="per-item results, one JSON object a line (default: in the corpus directory)")
    p.add_argument("--report-only", action="store_true",
                   help="re-render the report from --results without running the recogniser")
    p.add_argument("--corpus", metavar="DIR",
                   help="corpus directory (default: ~/.cache/referee/bench/corpus-v<N>-s<seed>)")
    p.add_argument("--seed", type=int, default=1, help="corpus seed (default: %(default)s)")
    p.add_argument("--soccer", action="store_true",
                   help="measure the soccer card game's plays instead (blocks, penalty kicks; "
                   "its own corpus and its own section of the report)")
    p.add_argument("--numbers", action="store_true",
                   help="measure the Goop count's numbers 0-52 instead (answers, corrections, "
                   "talk with number words; its own corpus and section of the report)")
    p.add_argument("--left-out-family", metavar="FAMILY",
                   choices=("espeak-ng", "festival", "flite"),
                   help="how a voice family never trained on is heard (%(choices)s): the "
                   "held-out items heard with the two classifiers of --models, fit with the "
                   "family and without it (`python -m referee.lab.train data --leave-out`); "
                   "its own section of the report")
    p.add_argument("--models", nargs=2, metavar=("WITH", "WITHOUT"),
                   help="with --left-out-family: the phrase classifiers fit with the family "
                   "and without it")
    p.add_argument("--block-ms", type=int, default=BLOCK_MS,
                   help="audio block size fed to the recogniser (default: %(default)s, "
                   "what a microphone delivers)")


def run(args: argparse.Namespace) -> int:
    try:
        if args.one_mic:
            from .games_run import PlayFailed
            from .one_mic_bench import run_one_mic

            try:
                return run_one_mic(_games_out(args))
            except PlayFailed as e:
                raise BenchError(str(e)) from None
        if args.array:
            from .array_bench import run_array
            from .games_run import PlayFailed

            try:
                return run_array(_games_out(args))
            except PlayFailed as e:
                raise BenchError(str(e)) from None
        if args.games:
            from .games_run import PlayFailed, run_games

            try:
                return run_games(_games_out(args))
            except PlayFailed as e:
                raise BenchError(str(e)) from None
        return _run(args)
    except (BenchError, corpus.CorpusError, SynthError) as e:
        print(f"referee bench: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"referee bench: {e.filename or ''}: {e.strerror or e}", file=sys.stderr)
        return 2


def _games_out(args: argparse.Namespace) -> argparse.Namespace:
    for opt in ("split", "dev", "details", "results"):
        if getattr(args, opt):
            raise BenchError(f"--{opt} is for the hearing benchmark, not with --games")
    if args.block_ms != BLOCK_MS:
        raise BenchError("--block-ms is for the hearing benchmark, not with --games")
    if args.jobs is not None and args.jobs < 1:
        raise BenchError(f"--jobs must be at least 1, not {args.jobs}")
    if args.out is None:
        args.out = "BENCHMARKS.md"
    return args


def _run(args: argparse.Namespace) -> int:
    if args.jobs is not None:
        raise BenchError("--jobs is for the game benchmark: use it with --games")
    if args.block_ms <= 0 or args.block_ms > 2000:
        raise BenchError(f"--block-ms must be between 1 and 2000, not {args.block_ms}")
    if args.dev and args.split not in (None, "tuning"):
        raise BenchError(f"--dev {args.dev} has only tuning items, not {args.split}")
    if getattr(args, "soccer", False):
        if args.dev:
            raise BenchError("--dev is for the hearing and numbers benchmarks, not with --soccer")
        from referee.lab.bench import soccer_plays
        return soccer_plays.run(args, measure, _progress, _engine_desc)
    if getattr(args, "numbers", False):
        from referee.lab.bench import numbers_bench
        return numbers_bench.run(args, measure, _progress, _engine_desc)
    if getattr(args, "left_out_family", None):
        from referee.lab.bench import left_out
        return left_out.run(args, measure, _progress, _machine, BenchError)
    if getattr(args, "models", None):
        raise BenchError("--models is for --left-out-family")
    split = "tuning" if args.dev else args.split or ("held-out" if args.quick else "both")
    voices = corpus.voices_for(args.dev)
    cdir = Path(args.corpus) if args.corpus else corpus.default_dir(args.seed, args.dev)
    if args.out is None:
        args.out = str(cdir / "report.md") if args.dev else "BENCHMARKS.md"
    engine_tag = args.engine or "default"
    results = Path(args.results) if args.results else \
        cdir / f"results-{engine_tag}-{split}{'-quick' if args.quick else ''}.jsonl"
    command = "referee bench " + " ".join(shlex.quote(a) for a in _argv_for(args))

    if args.report_only:
        if not results.exists():
            raise BenchError(f"no results file at {results}: run without --report-only first")
        records, meta = _load_results(results)
        meta["command"] = meta.get("command", command)
        meta.setdefault("dev", args.dev)
    else:
        items = corpus.select(corpus.plan_for(args.seed, args.dev), split, args.quick)
        print(f"referee bench: corpus {cdir} ({len(items)} items)", file=sys.stderr)
        items = corpus.build(items, cdir, args.seed, progress=_progress("synthesising"),
                             voices=voices)
        recogniser = _open(args)
        print(f"referee bench: engine {recogniser.name}", file=sys.stderr)
        items, skipped = check_against_grammar(items, _grammar_of(recogniser))
        for item, why in skipped:
            print(f"referee bench: skipping {item.id} ({item.text!r}): {why}", file=sys.stderr)
        load = os.getloadavg()[0]
        t0 = time.perf_counter()
        records = []
        tick = _progress("recognising")
        for k, item in enumerate(items):
            records.append(measure(recogniser, item, cdir, args.block_ms))
            tick(k + 1, len(items))
        elapsed = time.perf_counter() - t0
        meta = {
            "command": command,
            "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "machine": _machine(load, os.getloadavg()[0]),
            "engine": _engine_desc(recogniser, args),
            "classifier": _classifier_path(recogniser),
            "corpus": f"`{cdir}` (version {corpus.VERSION}, seed {args.seed}, "
                      f"{'quick subset, ' if args.quick else ''}{split} voices"
                      f"{f' of development set {args.dev}' if args.dev else ''})",
            "corpus_about": corpus_about(voices, args.dev),
            "dev": args.dev,
            "quick": args.quick,
            "elapsed": elapsed,
            "block_ms": args.block_ms,
            "skipped": [f"{i.id} {i.text!r}: {why}" for i, why in skipped],
        }
        results.parent.mkdir(parents=True, exist_ok=True)
        with open(results, "w") as f:
            f.write(json.dumps({"meta": meta}) + "\n")
            for r in records:
                f.write(json.dumps(r) + "\n")
    if not records:
        raise BenchError(f"no items to report on ({results} holds none)")
    text = report.render(records, meta)
    out = Path(args.out)
    # Only the hearing section: other benchmarks keep their own sections of the file.
    out.write_text(report.replace_section(out.read_text() if out.exists() else "", text))
    print(f"referee bench: wrote {args.out} (results in {results})", file=sys.stderr)
    if args.details:
        splits = report.SPLITS if args.details_split == "both" else (args.details_split,)
        Path(args.details).write_text(report.render_details(records, meta, splits))
    return 0


def _argv_for(args: argparse.Namespace) -> list[str]:
    out = []
    for opt in ("engine", "model", "split", "dev", "corpus", "results", "details"):
        v = getattr(args, opt)
        if v:
            out += [f"--{opt}", str(v)]
    if args.quick:
        out.append("--quick")
    if args.seed != 1:
        out += ["--seed", str(args.seed)]
    if args.block_ms != BLOCK_MS:
        out += ["--block-ms", str(args.block_ms)]
    out += ["--out", args.out]
    return out


def _open(args):
    """The recogniser, loaded as ``referee transcribe`` loads it by default."""
    try:
        from referee.hearing.engine import DEFAULT_KINDS, EngineError, open_recogniser
        from referee.hearing.grammar import Grammar, GrammarError
    except ImportError as e:
        raise BenchError(f"the recogniser is not available: {e}") from None
    try:
        grammar = Grammar.load("table").subset(DEFAULT_KINDS)
        return open_recogniser(engine=args.engine, model=args.model, grammar=grammar)
    except (EngineError, GrammarError) as e:
        raise BenchError(str(e)) from None


def _grammar_of(recogniser):
    g = getattr(recogniser, "grammar", None)
    if g is not None and hasattr(g, "match"):
        return g
    try:
        from referee.hearing.grammar import Grammar
    except ImportError:
        return None
    return Grammar.load()


def check_against_grammar(items: list[corpus.Item], grammar) -> tuple[list[corpus.Item], list]:
    """Keep the items whose expected phrase the recogniser's grammar gives for
    their text (and the negatives it gives no call or shout for); return
    (kept, [(item, why), ...]) so that a phrase the grammar lacks is reported,
    not counted as a miss. With no grammar, everything is kept."""
    if grammar is None:
        return items, []
    kept, skipped = [], []
    for it in items:
        if it.category == "noise":
            kept.append(it)
            continue
        m = grammar.match(it.text)
        if it.expect is not None and (m is None or m.said != it.expect):
            skipped.append((it, f"the grammar does not give {it.expect!r} for it"))
        elif it.expect is None and m is not None and m.kind in ("call", "shout", "partial"):
            skipped.append((it, f"the grammar takes this negative as {m.kind} {m.said!r}"))
        else:
            kept.append(it)
    return kept, skipped


def _classifier_path(recogniser) -> str | None:
    """The phrase classifier's model file working beside the engine, or None."""
    c = getattr(recogniser, "classifier", None)
    return None if c is None else str(c.path)


def _engine_desc(recogniser, args) -> str:
    desc = recogniser.description
    try:
        # "+referee.lattice1": built by .ci/setup with its lattice patch
        desc += f" ({recogniser.name} {importlib.metadata.version(recogniser.name)})"
    except importlib.metadata.PackageNotFoundError:
        pass
    model = getattr(recogniser, "model_path", None) or args.model
    if model:
        desc += f", model {model}"
    g = getattr(recogniser, "grammar", None)
    if g is not None:
        desc += f", grammar {getattr(g, 'name', '?')} ({', '.join(sorted(g.kinds))})"
    return desc


def _progress(what: str):
    last = [0.0]

    def tick(done: int, total: int) -> None:
        now = time.monotonic()
        if done == total or now - last[0] > 5:
            last[0] = now
            print(f"referee bench: {what} {done}/{total}", file=sys.stderr, flush=True)

    return tick


def _machine(load0: float, load1: float) -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"{platform.system()} {platform.release()}, {cpu}, {os.cpu_count()} cores "
            f"(shared with other work; load average {load0:.1f} at start, {load1:.1f} at end), "
            f"Python {platform.python_version()}")


def _load_results(path: Path) -> tuple[list[dict], dict]:
    lines = path.read_text().splitlines()
    try:
        meta = json.loads(lines[0])["meta"]
        return [json.loads(x) for x in lines[1:] if x.strip()], meta
    except (IndexError, KeyError, json.JSONDecodeError) as e:
        raise BenchError(f"{path} is not a results file of referee bench ({e})") from None


def measure(recogniser, item: corpus.Item, directory: Path, block_ms: int = BLOCK_MS
            ) -> dict:
    """Stream one item's WAV through a fresh stream of ``recogniser`` in blocks of
    ``block_ms`` and return its result record (see ``referee.lab.bench.metrics``)."""
    from referee.audio.wav import read_wav, resample, to_int16

    path = Path(directory) / item.file
    x, rate = read_wav(path)
    mono = x[:, 0] if x.ndim == 2 else x
    if rate != recogniser.rate:
        mono = resample(mono, rate, recogniser.rate)
    samples = to_int16(mono)
    if samples.ndim == 2:
        samples = samples[:, 0]
    block = max(1, recogniser.rate * block_ms // 1000)
    heard: list[dict] = []
    cpu = wall = 0.0
    c0, w0 = time.process_time(), time.perf_counter()
    stream = recogniser.stream(start=0.0, channel=0, source=str(path))
    c1, w1 = time.process_time(), time.perf_counter()
    cpu += c1 - c0
    wall += w1 - w0

    def note(utts, emitted: float, compute: float, flushed: bool) -> None:
        for u in utts:
            heard.append({"kind": u.kind, "said": u.said, "start": round(u.start, 3),
                          "end": round(u.end, 3), "confidence": round(float(u.confidence), 3),
                          "emitted": round(emitted, 3), "compute": round(compute, 4),
                          "flushed": flushed})

    # One core taking the blocks in order as they arrive: a block waits for the
    # work on earlier ones to finish, so CPU spent ahead of an event (on a block
    # before the one that returns it) counts towards its delay when it is still
    # running at that block's arrival. ``busy``: when the core is next free, in
    # seconds of audio time.
    busy = 0.0
    for off in range(0, len(samples), block):
        chunk = np.ascontiguousarray(samples[off: off + block])
        arrived = (off + len(chunk)) / recogniser.rate
        c0, w0 = time.process_time(), time.perf_counter()
        utts = stream.feed(chunk)
        dc, dw = time.process_time() - c0, time.perf_counter() - w0
        cpu += dc
        wall += dw
        busy = max(busy, arrived) + dc
        note(utts, arrived, busy - arrived, False)
    c0, w0 = time.process_time(), time.perf_counter()
    utts = stream.close()
    dc, dw = time.process_time() - c0, time.perf_counter() - w0
    cpu += dc
    wall += dw
    arrived = len(samples) / recogniser.rate
    busy = max(busy, arrived) + dc
    note(utts, arrived, busy - arrived, True)
    rec = {k: v for k, v in asdict(item).items() if k not in ("extra",)}
    rec.update({"heard": heard, "cpu": round(cpu, 4), "wall": round(wall, 4)})
    return rec


def corpus_about(speakers: tuple[Voice, ...] = corpus.VOICES,
                 dev: str | None = None) -> str:
    """A paragraph describing the corpus of ``speakers`` (development set ``dev``), for
    the report."""
    voices = {s: ", ".join(f"{v.engine} {v.name}" for v in speakers if v.split == s)
              for s in corpus.SPLITS}
    if dev == "near-miss":
        return (f"Synthesised offline by `referee.lab.bench.corpus`: {len(sentences.PROBE_NEAR_MISSES)}"
                " sentences with card or shout words that are no call (\"six of one\", "
                "\"ace in the hole\", \"scoop it up\"), each said once by each voice, in "
                "the benchmark's conditions and deliveries.\n\n"
                f"- **Voices:** {voices['tuning']}.\n")
    return (
        "Synthesised offline by `referee.lab.bench.corpus` from one seed and cached as 16 kHz mono "
        "WAV. Each voice says each of the 52 cards once (13 per SNR bucket), \"goop\" 8 times, "
        "4 commands (said to the referee: \"referee pause\"), 4 chatter sentences without card "
        "words and 4 near-misses (\"I have four "
        "hearts\", \"queen of the castle\", \"the goose is loose\"), and 4 sentences addressed "
        "to the referee that are no command (\"referee, who won that one\"), its split's 8 "
        "partial calls (\"queen\", \"hearts\", \"jack of\"), 10 sentences of talk with "
        "bare card words (\"five minutes\") and 4 remarks in a command's words not said to the "
        "referee (\"what's the score\"); each split also has 26 noise-only items. Speaking rate varies ×0.85–1.2, pitch ±300 cents, peak level "
        "−26 to −3 dBFS; 0.3–1.5 s before and 0.8–1.6 s after the speech. Clean items have "
        "digital silence or faint room noise (pink, 50 dB down) around the speech; noisy ones "
        "babble (four overlapping TTS talkers saying other things), card-table clatter "
        "(riffles, slaps, chips), pink or white noise at 20, 10 or 5 dB SNR (speech power over "
        "its active span against noise power over the item).\n\n" + (
            f"- **Voices:** {voices['tuning']}, saying the tuning split's sentences (development "
            f"set {dev}).\n" if dev else
            f"- **Tuning voices:** {voices['tuning']}.\n"
            f"- **Held-out voices:** {voices['held-out']}.\n\n"
            "The two sets share no speaker (Kal is tuning; AWB, RMS and SLT are held out), no "
            "chatter, near-miss, addressed, command wording or babble sentence, and no noise "
            "seed.")
    )
