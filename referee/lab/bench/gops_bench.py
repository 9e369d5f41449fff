"""Measure how well the referee hears GOPS bids and prizes; writes its section of BENCHMARKS.md.

The phrases of `referee play gops` (grammars/gops.json, players ann, bob and cai): named
bids ("bob bids four"), bare bids ("seven", "I bid seven"), prizes of both set-ups
("bronze five", "queen of diamonds"), said by the benchmark's voices (tuning and held-out
apart, as in `referee bench`), in its noises and SNRs, with negatives: table talk with
GOPS words that is no bid or prize ("a bronze medal", "cai is next") and noise alone.
Each item is streamed through a recogniser with the grammar of its set-up.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import shlex
import sys
import time
from collections import Counter
from pathlib import Path

from referee.core.cards import RANK_WORDS
from referee.lab import mixing
from referee.lab.bench import corpus
from referee.lab.bench import report
from referee.lab.bench.run import _machine, _progress, measure
from referee.lab.synth import SynthError, Voice

DESCRIPTION = __doc__
HEADING = "# GOPS hearing benchmark"
VERSION = 1
PLAYERS = ("ann", "bob", "cai")
#: What acts on a GOPS game when heard.
ACTS = ("bid", "prize", "command")
#: Table talk with GOPS words that is no bid and no prize, apart per split.
NEGATIVES = {
    "tuning": ("a bronze medal", "green light means go", "I bid you good night",
               "the prize is mine", "ann is thinking", "nice bid bob", "seven is lucky",
               "king of the hill"),
    "held-out": ("the grass is green", "bronze age tools", "what a prize", "cai is next",
                 "bid higher next time", "my favourite is five", "ace in the hole",
                 "queen of the castle"),
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--engine", choices=("pocketsphinx", "vosk"), default="pocketsphinx",
                   help="recogniser to measure (default: %(default)s)")
    p.add_argument("--model", help="Vosk model directory")
    p.add_argument("--split", choices=("held-out", "tuning", "both"), default="both")
    p.add_argument("--seed", type=int, default=1, help="corpus seed (default: %(default)s)")
    p.add_argument("--corpus", metavar="DIR", help="corpus directory (default: "
                   "~/.cache/referee/bench/gops-v<N>-s<seed>)")
    p.add_argument("--out", default="BENCHMARKS.md", help="report to write (its GOPS section)")
    p.add_argument("--kinds", default=None,
                   help="phrase kinds listened for throughout, e.g. bid,prize,command "
                        "(default: as `referee play gops` listens: bids while bids are "
                        "awaited, prizes while a prize is)")


def phase_kinds(item: corpus.Item) -> frozenset[str]:
    """What the game listens for when ``item`` is said: a bid while bids are awaited, a
    prize while a prize is; talk and noise in either phase, every other item in each."""
    from referee.core.games.gops import BID_KINDS, PRIZE_KINDS

    if item.category in ("bid", "prize"):
        return BID_KINDS if item.category == "bid" else PRIZE_KINDS
    return BID_KINDS if corpus.every_other(item) else PRIZE_KINDS


def lines_for(voice: Voice, rng) -> list[tuple[str, str, str | None, str]]:
    """(category, text, expected phrase, set-up) for one voice: 8 named and 4 bare bids,
    3 prizes of each set-up, 4 negatives."""
    purple = [RANK_WORDS[v] for v in range(1, 8)]
    every = [RANK_WORDS[v] for v in range(1, 14)]
    out = []
    for k in range(8):
        setup = "purple" if k % 2 else "standard"
        rank = str(rng.choice(purple if setup == "purple" else every))
        player = PLAYERS[k % 3]
        text = f"{player} bids {rank}" if k % 4 == 3 else f"{player} {rank}"
        out.append(("bid", text, f"{player} {rank}", setup))
    for k in range(4):
        rank = str(rng.choice(purple))
        out.append(("bid", f"I bid {rank}" if k % 2 else rank, rank, "purple"))
    for k in range(3):
        colour, rank = ("green", "bronze")[k % 2], str(rng.choice(purple))
        out.append(("prize", f"{colour} {rank}", f"{colour} {rank}", "purple"))
        rank = str(rng.choice(every))
        out.append(("prize", f"{rank} of diamonds", f"{rank} of diamonds", "standard"))
    for text in rng.permutation(NEGATIVES[voice.split])[:4]:
        out.append(("negative", str(text), None, ("purple", "standard")[len(out) % 2]))
    return out


def plan(seed: int = 1) -> list[corpus.Item]:
    items: list[corpus.Item] = []
    for split in corpus.SPLITS:
        n = 0
        speakers = [v for v in corpus.VOICES if v.split == split]
        for vi, voice in enumerate(speakers):
            rng = mixing.rng_for(seed, f"gops/{voice.id}")
            per: dict[str, int] = {}
            for category, text, expect, setup in lines_for(voice, rng):
                i = per.get(category, 0)
                per[category] = i + 1
                snr, noise = corpus.snr_noise(i, vi)
                items.append(corpus.Item(
                    id=f"gops-{split}-{n:04d}", split=split, category=category, text=text,
                    expect=expect, voice=voice.id, family=voice.engine, snr=snr, noise=noise,
                    extra={"setup": setup}, **corpus.delivery(rng)))
                n += 1
        rng = mixing.rng_for(seed, f"gops/noise/{split}")
        for k, kind in enumerate(corpus.NOISE_KINDS * 2):
            snr = corpus.SNRS[1 + k % 3]
            items.append(corpus.Item(
                id=f"gops-{split}-{n:04d}", split=split, category="noise", text="", expect=None,
                voice="", family="", snr=snr, noise=kind, rate=1.0, pitch=0,
                peak_dbfs=-20.0 - float(snr), lead=round(float(rng.uniform(2.0, 4.0)), 3),
                trail=0.0, seed=int(rng.integers(2**31)), extra={"setup": ("purple", "standard")[k % 2]}))
            n += 1
    return items


def outcome(rec: dict, right=None) -> str:
    """``correct``, ``extra``, ``wrong`` or ``missed`` for a phrase; ``false-accept`` (a bid or
    prize heard), ``other-accept`` (a command) or ``rejected`` for a negative. ``right(h)``:
    whether a heard item is the phrase said (default: the same words)."""
    acted = [h for h in rec["heard"] if h["kind"] in ACTS]
    if rec["expect"] is None:
        if any(h["kind"] in ("bid", "prize") for h in acted):
            return "false-accept"
        return "other-accept" if acted else "rejected"
    if not acted:
        return "missed"
    if not any((right or (lambda h: h["said"] == rec["expect"]))(h) for h in acted):
        return "wrong"
    return "correct" if len(acted) == 1 else "extra"


def own_mic_outcome(rec: dict) -> str:
    """:func:`outcome` of a bid as heard on the bidder's own mic: the game then takes the
    mic's player for the bidder whatever name is heard with it (docs/gops-hearing.md), so
    only the rank counts ("ann six" heard as "bob six", or "six" as "cai six", is right)."""
    rank = rec["expect"].split()[-1]
    return outcome(rec, lambda h: h["kind"] == "bid" and h["said"].split()[-1] == rank)


def run(args: argparse.Namespace) -> int:
    from referee.hearing.engine import EngineError, open_recogniser
    from referee.hearing.gops_grammar import gops_grammar
    from referee.hearing.grammar import GrammarError

    cdir = Path(args.corpus) if args.corpus else \
        Path.home() / ".cache" / "referee" / "bench" / f"gops-v{VERSION}-s{args.seed}"
    items = corpus.select(plan(args.seed), args.split)
    try:
        items = corpus.build(items, cdir, args.seed, progress=_progress("synthesising"))
        recognisers = {s: open_recogniser(args.engine, args.model, gops_grammar(PLAYERS, s))
                       for s in ("purple", "standard")}
    except (SynthError, EngineError, GrammarError) as e:
        print(f"referee bench-gops: {e}", file=sys.stderr)
        return 2
    load = os.getloadavg()[0]
    t0, tick, records = time.perf_counter(), _progress("recognising"), []
    for k, item in enumerate(items):
        recogniser = recognisers[item.extra["setup"]]
        recogniser.listen_for(args.kinds.split(",") if args.kinds else phase_kinds(item))
        rec = measure(recogniser, item, cdir)
        rec["setup"] = item.extra["setup"]
        rec["outcome"] = outcome(rec)
        records.append(rec)
        tick(k + 1, len(items))
    meta = {"command": "referee bench-gops " + " ".join(
                shlex.quote(a) for a in ["--engine", args.engine, "--split", args.split,
                                         *(["--kinds", args.kinds] if args.kinds else []),
                                         "--out", args.out]),
            "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "machine": _machine(load, os.getloadavg()[0]),
            "engine": "; ".join(f"{s} set-up: {r.description}" for s, r in recognisers.items()),
            "kinds": args.kinds,
            "elapsed": time.perf_counter() - t0}
    report.write_section(Path(args.out), render(records, meta), HEADING)
    print(f"referee bench-gops: wrote {args.out}", file=sys.stderr)
    return 0


def _rate(recs: list[dict], good=("correct",)) -> str:
    k = sum(r["outcome"] in good for r in recs)
    return report._fmt_rate(k, len(recs), ci=True)


def render(records: list[dict], meta: dict) -> str:
    present = [s for s in report.SPLITS if any(r["split"] == s for r in records)]
    of = report._of
    L = [HEADING, "", "Written by `referee bench-gops`; every figure is computed from the run. "
         "Do not edit by hand: re-run the command.", "",
         f"- **Command:** `{meta['command']}`", f"- **Date:** {meta['date']}",
         f"- **Machine:** {meta['machine']}", f"- **Engine:** {meta['engine']}",
         "- **Corpus:** the voices, noises and SNRs of `referee bench`; per voice 8 named bids "
         "(\"bob four\", \"cai bids nine\"), 4 bare ones (\"seven\", \"I bid seven\"), 3 prizes "
         "of each set-up, 4 negatives with GOPS words (tuning and held-out sentences differ); "
         "8 noise-only items per split. Players ann, bob, cai.",
         "- **Heard as:** " + (f"kinds {meta['kinds']} throughout" if meta.get("kinds") else
                               "the game listens: bids while bids are awaited, prizes while "
                               "a prize is; talk and noise in either phase, every other item "
                               "in each"),
         f"- **Run time:** {meta['elapsed']:.0f} s wall for {len(records)} items", "",
         "Exact-phrase accuracy (the one phrase said, nothing else acting on the game); "
         "brackets: 95 % confidence interval.", ""]
    rows = []
    for cat, label in (("bid", "Bids"), ("prize", "Prizes")):
        for snr in corpus.SNRS:
            rows.append([f"{label}, {report.SNR_LABEL[snr]}",
                         *[_rate(of(records, split=s, category=cat, snr=snr)) for s in present]])
        rows.append([f"{label}, all", *[_rate(of(records, split=s, category=cat)) for s in present]])
    bare = lambda s: [r for r in of(records, split=s, category="bid")  # noqa: E731
                      if r["expect"] in RANK_WORDS.values()]
    rows.append(["Bare bids (\"seven\", \"I bid seven\"), all", *[_rate(bare(s)) for s in present]])
    own = lambda s: [{**r, "outcome": own_mic_outcome(r)}  # noqa: E731
                     for r in of(records, split=s, category="bid")]
    rows.append(["Bids on the bidder's own mic (the rank; a name heard does not count), all",
                 *[_rate(own(s)) for s in present]])
    for cat, label in (("negative", "Talk with GOPS words"), ("noise", "Noise alone")):
        rows.append([f"{label}: false accepts (a bid or prize heard)",
                     *[_rate(of(records, split=s, category=cat), ("false-accept",)) for s in present]])
    L += report._table(["Phrase", *present], rows)
    wrong = Counter(f"{r['expect'] or r['text']!r} → {h['said']!r}" for r in
                      of(records, split="tuning") if r["outcome"] in ("wrong", "false-accept")
                      for h in r["heard"] if h["kind"] in ("bid", "prize"))
    if wrong:
        L += ["", "Most common confusions (tuning voices only): " +
              "; ".join(f"{k} ({n})" for k, n in wrong.most_common(6)) + "."]
    return "\n".join(L) + "\n"
