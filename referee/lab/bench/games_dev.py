"""The game benchmark's tuning games only, refereed and scored as ``referee bench --games``
does, with every wrong round explained: the tool for choosing timing and hearing settings
without ever looking at the held-out games (docs/game-benchmark.md).

    python -m referee.lab.bench.games_dev [--games tuning-00,tuning-03] [--jobs 2] [--save F]
    python -m referee.lab.bench.games_dev --unseen [--jobs 2]

``--unseen``: the same games said by voices no model trained on (``games.unseen_plan``;
Debian non-free MBROLA, festvox and SVOX Pico voices), still never the held-out games.

Prints rounds and games right, calls and deals heard, timing errors (|start| and |end|
median / p90 by SNR band), then one line per wrong round: its kind, the truth, the verdict,
and each true call of the round as heard (said, start and end errors in ms)."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from referee.core.cards import Card
from referee.lab.bench import games
from referee.lab.bench.games_report import figures, p90_ms, timed
from referee.lab.bench.games_run import build_games, default_dir, referee_games


def summary(records: list[dict]) -> list[str]:
    """The figures and the wrong rounds, as lines of text."""
    rounds = [r for rec in records for r in rec["rounds"]]
    calls = [c for rec in records for c in rec["calls"] if c["kind"] == "call"]
    parts = [c for rec in records for c in rec["calls"] if c["kind"] != "call"]
    deals = [d for rec in records for d in rec["deals"]]
    chat = [c for rec in records for c in rec["chatter"]]
    lines = [
        f"rounds right {sum(r['right'] for r in rounds)}/{len(rounds)}; games right "
        f"{sum(rec['right'] for rec in records)}/{len(records)}; full calls heard "
        f"{sum(c['heard'] for c in calls)}/{len(calls)}; partial calls heard "
        f"{sum(c['heard'] for c in parts)}/{len(parts)}; deals heard "
        f"{sum(d['heard'] for d in deals)}/{len(deals)}; chatter to call/partial "
        f"{sum(c['as_call'] > 0 for c in chat)}/{sum(c['as_partial'] > 0 for c in chat)} of "
        f"{len(chat)}; calls nobody made {sum(rec['phantoms'] for rec in records)}; deals "
        f"nobody made {sum(rec.get('phantom_deals', 0) for rec in records)}; dealer asked "
        "{1} times, {0} over a deal not heard".format(*figures(records)["asked"])]
    for band, test in (("all", lambda s: True), (">=15 dB", lambda s: s >= 15),
                       ("<=10 dB", lambda s: s <= 10)):
        hs = [c for c in timed(calls) if test(c["snr"])]
        st = [abs(c["start_err"]) * 1000 for c in hs]
        en = [abs(c["end_err"]) * 1000 for c in hs]
        if hs:
            lines.append(f"  {band:8s} n={len(hs):3d} |start| med {statistics.median(st):4.0f} "
                         f"p90 {p90_ms(hs, 'start_err'):4.0f}  |end| med "
                         f"{statistics.median(en):4.0f} p90 {p90_ms(hs, 'end_err'):4.0f}  end bias "
                         f"{statistics.median(c['end_err'] for c in hs) * 1000:+.0f} ms")
    for rec in records:
        for r in rec["rounds"]:
            if r["right"]:
                continue
            lines.append(f"{rec['game']} r{r['round']} {r['kind']} ({rec['noise']} "
                         f"{rec['snr']} dB): truth {r['truth']} heard {r['heard']}")
            deal = next((d for d in rec["deals"] if str(Card.parse(d["card"])) == r["top"]),
                        None)
            if deal is not None and not deal["heard"]:
                lines.append(f"    deal {r['top']} NOT heard")
            for c in rec["calls"]:
                if c["round"] != r["round"]:
                    continue
                if c["heard"]:
                    lines.append(f"    {c['player']:5s} {c['text']!r:22s} start "
                                 f"{c['start_err'] * 1000:+5.0f} end {c['end_err'] * 1000:+5.0f}"
                                 f"  ({c['start']:.3f}-{c['end']:.3f})")
                else:
                    lines.append(f"    {c['player']:5s} {c['text']!r:22s} MISSED, heard as "
                                 f"{c['as']} ({c['start']:.3f}-{c['end']:.3f})")
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m referee.lab.bench.games_dev",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--games", help="comma-separated tuning game ids (default: all 12)")
    p.add_argument("--unseen", action="store_true",
                   help="the tuning games said by voices no model trained on")
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--save", help="write the records (JSON lines) here")
    p.add_argument("--load", help="summarise saved records instead of refereeing")
    args = p.parse_args(argv)
    if args.load:
        records = [json.loads(x) for x in Path(args.load).read_text().splitlines() if x.strip()]
        print("\n".join(summary(records)))
        return 0
    want = set(args.games.split(",")) if args.games else None
    every = (games.unseen_plan(args.seed) if args.unseen
             else [s for s in games.plan(args.seed) if s["split"] == "tuning"])
    specs = [s for s in every if want is None or s["id"] in want]
    if want and {s["id"] for s in specs} != want:
        p.error(f"not games of this set: {sorted(want - {s['id'] for s in specs})}")
    directory = default_dir(args.seed)
    built = build_games(specs, directory, args.seed)
    records = referee_games(built, directory, [], args.jobs)
    if args.save:
        Path(args.save).write_text("".join(json.dumps(r) + "\n" for r in records))
    print("\n".join(summary(records)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
