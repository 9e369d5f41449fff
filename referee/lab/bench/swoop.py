"""Swoop's phrases on the benchmark's voices: plays, totals and near-miss table talk.

Uses the hearing benchmark's voices (tuning and held-out, disjoint), noise, mixing and
streaming (``corpus``, ``mixing``, ``run.measure``), with the Swoop grammar.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

from referee.lab import mixing, sentences
from referee.lab.bench import corpus
from referee.lab.bench.corpus import SNRS, SPLITS, Item
from referee.lab.synth import SynthError

DESCRIPTION = """\
Measure the Swoop phrases as `referee bench` measures the card calls: every voice of
the benchmark (tuning and held-out, reported apart) says plays ("seven", "two
sevens", "blind seven", "pick up", "I'm out"), end-of-round totals ("forty two",
"a hundred and five") and near-miss table talk ("I'll pick up the kids", "seven
o'clock"), in quiet and in babble, clatter, pink and white noise at 20, 10 and
5 dB SNR. Heard through the recogniser with grammars/swoop.json, streamed in
blocks as live, listening as `referee play swoop` does: for totals only where
reports are asked for.

A play or total is right when exactly its phrase is heard; a near miss is a false
accept when any play, total or command is heard. With --out FILE.md it rewrites that
file's "Swoop phrases (issue 26)" section (and only that section).
"""

SECTION = "# Swoop phrases (issue 26)"
RANKS = ("ace", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "jack", "queen", "king")
COUNTS = ("two", "three", "four")

#: Table talk near Swoop's phrases that is no play, per split.
NEAR_MISSES = sentences.SWOOP_NEAR_MISSES


def _plural(rank: str) -> str:
    return rank + ("es" if rank.endswith("x") else "s")


def plays(rng) -> list[tuple[str, str]]:
    """Ten plays drawn for one voice, then "pick up" and "I'm out": (said, expected)."""
    out = []
    for _ in range(10):
        rank = str(RANKS[int(rng.integers(len(RANKS)))])
        form = int(rng.integers(4))
        if form == 0:
            out.append((rank, rank))
        elif form == 1:
            out.append(("an " + rank if rank[0] in "ae" else "a " + rank, rank))
        elif form == 2:
            said = f"{COUNTS[int(rng.integers(len(COUNTS)))]} {_plural(rank)}"
            out.append((said, said))
        else:
            out.append((f"blind {rank}", f"blind {rank}"))
    return out + [("pick up", "pick up"), ("I'm out", "i'm out")]


def totals(rng) -> list[tuple[str, str]]:
    from referee.core.numbers import total_words

    out = []
    for _ in range(3):
        v = int(rng.integers(14, 200))     # below 14 a total sounds like a rank (a one-card report)
        said = total_words(v)
        if v > 100 and rng.integers(2):
            said = "a hundred and " + total_words(v - 100)
        out.append((said, total_words(v)))      # the grammar's canonical form
    return out


def plan(seed: int = 1) -> list[Item]:
    """Per voice: 12 plays, 3 totals and 4 near misses, the SNR buckets in turn."""
    items: list[Item] = []
    for split in SPLITS:
        speakers = [v for v in corpus.VOICES if v.split == split]
        for vi, voice in enumerate(speakers):
            rng = mixing.rng_for(seed, f"swoop/{voice.id}")
            lines = [("play", s, e) for s, e in plays(rng)]
            lines += [("total", s, e) for s, e in totals(rng)]
            near = rng.permutation(NEAR_MISSES[split])[:4]
            lines += [("near-miss", str(t), None) for t in near]
            for i, (category, text, expect) in enumerate(lines):
                snr, noise = corpus.snr_noise(i, vi)
                items.append(Item(id=f"swoop-{split}-{len(items):04d}", split=split,
                                  category=category, text=text, expect=expect,
                                  voice=voice.id, family=voice.engine, snr=snr, noise=noise,
                                  **corpus.delivery(rng)))
    return items


def score(rec: dict) -> bool:
    """A play or total: exactly its phrase heard. A near miss: nothing but chatter heard."""
    heard = [h["said"] for h in rec["heard"] if h["kind"] != "unknown"]
    if rec["expect"] is None:
        return not heard
    return heard == [rec["expect"]]


def _pct(ok: int, n: int) -> str:
    return f"{100 * ok / n:.1f} % ({ok}/{n})" if n else "–"


def section(records: list[dict], command: str, about: str) -> str:
    L = [SECTION, "", f"Written by `{command}`; do not edit by hand: re-run the command.", "",
         about, "",
         "Plays: exact phrase (rank, count, blind), or \"pick up\" / \"I'm out\"; totals: the exact "
         "number; near misses: a false accept is any play, total or command heard.", "",
         "| | SNR | held-out | tuning |", "|---|---|---|---|"]

    def cell(split, cat, snr=None, want=True):
        rs = [r for r in records if r["split"] == split and r["category"] == cat
              and (snr is None or r["snr"] == snr)]
        ok = sum(score(r) == want for r in rs)
        return _pct(ok, len(rs))

    for snr in SNRS:
        L.append(f"| Plays | {snr} | {cell('held-out', 'play', snr)} | {cell('tuning', 'play', snr)} |")
    L.append(f"| Plays | all | {cell('held-out', 'play')} | {cell('tuning', 'play')} |")
    L.append(f"| Totals | all | {cell('held-out', 'total')} | {cell('tuning', 'total')} |")
    L.append(f"| Near misses taken as a play (false accepts) | all | "
             f"{cell('held-out', 'near-miss', want=False)} | {cell('tuning', 'near-miss', want=False)} |")
    wrong = [r for r in records if r["split"] == "held-out" and not score(r)]
    if wrong:
        L += ["", "Held-out misses (said → heard; – nothing):", ""]
        for r in wrong[:20]:
            heard = ", ".join(h["said"] for h in r["heard"] if h["kind"] != "unknown") or "–"
            L.append(f"- {r['text']!r} ({r['voice']}, {r['snr']}"
                     f"{'' if r['snr'] == 'clean' else ' dB ' + r['noise']}) → {heard}")
    return "\n".join(L) + "\n"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--engine", choices=("pocketsphinx", "vosk"), help="force a recogniser")
    p.add_argument("--model", help="Vosk model directory")
    p.add_argument("--seed", type=int, default=1, help="corpus seed (default: %(default)s)")
    p.add_argument("--out", metavar="FILE.md", help="write the figures into this file's section")
    p.add_argument("--kinds", default=None,
                   help="phrase kinds listened for throughout, e.g. call,command,number "
                        "(default: as `referee play swoop` listens: plays and near misses "
                        "without totals, totals as when reports are asked for)")


def run(args: argparse.Namespace) -> int:
    from referee.core.games.swoop import PLAY_KINDS, REPORT_KINDS
    from referee.hearing.engine import EngineError, open_recogniser
    from referee.hearing.grammar import Grammar
    from referee.lab.bench.report import write_section
    from referee.lab.bench.run import measure

    items = plan(args.seed)
    directory = corpus.default_dir(args.seed).with_name(f"swoop-v{corpus.VERSION}-s{args.seed}")
    t0 = time.time()
    try:
        built = corpus.build(items, directory, args.seed)
        grammar = Grammar.load("swoop")
        if args.kinds:
            grammar = grammar.subset(set(args.kinds.split(",")))
        recogniser = open_recogniser(engine=args.engine, model=args.model, grammar=grammar)
    except (SynthError, EngineError, ValueError) as e:
        print(f"referee bench-swoop: {e}", file=sys.stderr)
        return 2
    records = []
    for k, item in enumerate(built):
        if not args.kinds:
            recogniser.listen_for(REPORT_KINDS if item.category == "total" else PLAY_KINDS)
        records.append(measure(recogniser, item, directory))
        if k % 25 == 24:
            print(f"referee bench-swoop: {k + 1}/{len(built)}", file=sys.stderr, flush=True)
    command = "referee bench-swoop" + (f" --engine {args.engine}" if args.engine else "") + \
        (f" --seed {args.seed}" if args.seed != 1 else "") + \
        (f" --kinds {args.kinds}" if args.kinds else "") + \
        (" --out BENCHMARKS.md" if args.out else "")
    kinds = args.kinds.replace(",", ", ") if args.kinds else \
        "plays and near misses heard as in play: " + ", ".join(sorted(PLAY_KINDS)) + \
        "; totals as when reports are asked for: " + ", ".join(sorted(REPORT_KINDS))
    root = str(Path(__file__).resolve().parents[3]) + os.sep   # models named from the repository
    about = (f"- **Date:** {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
             f"{len(records)} items, {time.time() - t0:.0f} s wall\n"
             f"- **Machine:** {platform.system()} {platform.machine()}, Python {platform.python_version()}\n"
             f"- **Engine:** {getattr(recogniser, 'description', '?').replace(root, '')}, grammar swoop "
             f"({kinds})\n"
             f"- **Voices:** the hearing benchmark's ({len(corpus.VOICES)}: 8 tuning, 8 held-out); "
             "per voice 12 plays, 3 totals, 4 near misses")
    text = section(records, command, about)
    if args.out:
        write_section(Path(args.out), text, SECTION)
    print(text)
    return 0
