"""``python -m referee.lab.train data|fit``: rebuild the phrase classifier.

    python -m referee.lab.train data [--out FILE] [--per-card N] [--seed S] [--hibari F] [--piper F]
                                 [--vocode F] [--diphone F] [--pico F]
                                 [--talk-after F] [--near F] [--leave-out FAMILY]
    python -m referee.lab.train tails [the options of data]
    python -m referee.lab.train overlaps [the options of data] [--reverb F]
    python -m referee.lab.train numbers [--per-number N] [--others N] [--seed S] [--out FILE]
    python -m referee.lab.train partials [--per-partial N] [--others N] [--seed S] [--out FILE]
    python -m referee.lab.train plays [--per-play N] [--others N] [--seed S] [--out FILE]
    python -m referee.lab.train edges [--per-card N] [--seed S] [the voice shares of data]
    python -m referee.lab.train fit-edges [--data FILE ...] [--out models/edges.npz] [--epochs N]
                                 [--init MODEL --lr RATE]
    python -m referee.lab.train fit  [--data FILE ...] [--out models/phrases.npz] [--epochs N]
                                 [--init MODEL --lr RATE] [--suits | --overlaps | --numbers | --partials | --plays]
    python -m referee.lab.train average FIRST SECOND [--weight W] --out FILE

``tails`` makes the suit check's examples (the ends of the same utterances,
see referee/train/tails.py); ``fit --suits`` fits the suit check from them
(default --out models/suits.npz, --data ~/.cache/referee/train/tails.npz).
``overlaps`` makes the two-voices check's (the same utterances alone and with a second
voice at once, see referee/lab/train/overlaps.py); ``fit --overlaps`` fits it (default
--out models/overlaps.npz, --data ~/.cache/referee/train/overlaps.npz).
``numbers`` makes the number check's (the Goop count's answers and talk that is none, see
referee/lab/train/numbers.py); ``fit --numbers`` fits it (default --out models/numbers.npz,
--data ~/.cache/referee/train/numbers.npz). ``partials`` and ``fit --partials``: the same for
the partial-call check (referee/lab/train/partials.py; models/partials.npz); ``plays`` and
``fit --plays``: Swoop's play check (referee/lab/train/plays.py; models/plays.npz). ``edges`` and
``fit-edges``: the edge network of call timing (referee/lab/train/edges.py; models/edges.npz).
``average``: the weighted mean of two models of one network (referee/lab/train/average.py).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from referee.lab.cache import cache_root
from referee.lab.train.voices import FAMILIES

CACHE = cache_root() / "train"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m referee.lab.train", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    d = sub.add_parser("data", help="synthesise the training data")
    t = sub.add_parser("tails", help="synthesise the suit check's training data")
    o = sub.add_parser("overlaps", help="synthesise the two-voices check's training data")
    _data_options(d, CACHE / "data.npz")
    _data_options(t, CACHE / "tails.npz")
    _data_options(o, CACHE / "overlaps.npz")
    o.add_argument("--reverb", type=float, default=0.8,
                   help="share of voices put in a room of their own (default %(default)s)")
    n = sub.add_parser("numbers", help="synthesise the number check's training data")
    _data_options(n, CACHE / "numbers.npz")
    n.add_argument("--per-number", type=int, default=40,
                   help="answers of each number 0-52 (default %(default)s)")
    pc = sub.add_parser("partials", help="synthesise the partial-call check's training data")
    _data_options(pc, CACHE / "partials.npz")
    pc.add_argument("--per-partial", type=int, default=40,
                    help="of each partial call (default %(default)s)")
    pc.add_argument("--calls", type=int, default=10,
                    help="of each whole card call (default %(default)s)")
    pl = sub.add_parser("plays", help="synthesise Swoop's play check's training data")
    _data_options(pl, CACHE / "plays.npz")
    pl.add_argument("--per-play", type=int, default=25,
                    help="of each of Swoop's plays (default %(default)s)")
    ed = sub.add_parser("edges", help="synthesise the edge network's training data")
    _data_options(ed, CACHE / "edges.npz")
    fe = sub.add_parser("fit-edges", help="train the edge network and write its model file")
    fe.add_argument("--data", type=Path, nargs="+", default=[CACHE / "edges.npz"])
    fe.add_argument("--out", type=Path)
    fe.add_argument("--epochs", type=int, default=16)
    fe.add_argument("--seed", type=int, default=0)
    fe.add_argument("--lr", type=float, default=2e-3, help="peak learning rate")
    fe.add_argument("--init", type=Path, help="start from this edge network (fine-tuning)")
    av = sub.add_parser("average", help="write one model whose weights are a weighted mean "
                        "of two of one network (a fine-tune and the model it began from)")
    av.add_argument("first", type=Path, help="a model file (.npz), e.g. the shipped one")
    av.add_argument("second", type=Path, help="a model file of the same network, e.g. a "
                    "fine-tune of the first")
    av.add_argument("--weight", type=float, default=0.5,
                    help="the second model's share, 0 to 1 (default %(default)s)")
    av.add_argument("--out", type=Path, required=True, help="the model file to write")
    f = sub.add_parser("fit", help="train the network and write the model file")
    f.add_argument("--data", type=Path, nargs="+")
    f.add_argument("--out", type=Path)
    f.add_argument("--epochs", type=int, default=12)
    f.add_argument("--seed", type=int, default=0)
    f.add_argument("--init", type=Path, help="start from this model's weights (fine-tuning)")
    f.add_argument("--lr", type=float, default=3e-3, help="peak learning rate")
    f.add_argument("--suits", action="store_true",
                   help="fit the suit check (from `tails` data) instead of the phrase classifier")
    f.add_argument("--overlaps", action="store_true",
                   help="fit the two-voices check (from `overlaps` data) instead")
    f.add_argument("--numbers", action="store_true",
                   help="fit the number check (from `numbers` data) instead")
    f.add_argument("--partials", action="store_true",
                   help="fit the partial-call check (from `partials` data) instead")
    f.add_argument("--plays", action="store_true",
                   help="fit Swoop's play check (from `plays` data) instead")
    a = ap.parse_args(argv)
    if a.what == "average":
        from referee.lab.train.average import AverageError, average
        try:
            average(a.first, a.second, a.weight, a.out)
        except AverageError as e:
            ap.error(str(e))
        print(f"wrote {a.out}")
        return 0
    if a.what not in ("edges", "fit", "fit-edges"):
        a.goops = 400 if a.goops is None else a.goops
        a.others = 2000 if a.others is None else a.others
    t0 = time.time()
    if a.what == "edges":
        from referee.lab.train import edges
        if a.leave_out or a.talk_after or a.near or a.goops is not None or a.others is not None:
            ap.error("edges: --leave-out, --talk-after, --near, --goops and --others are the "
                     "phrase classifier's (the edge network learns from card calls alone)")
        jobs = edges.plan(a.per_card, a.seed, **_shares(a))
        edges.build(a.out, jobs, a.seed, a.workers)
        print(f"wrote {a.out} in {time.time() - t0:.0f} s")
    elif a.what == "fit-edges":
        from referee.lab.train import fit_edges
        out = a.out or Path(__file__).resolve().parents[3] / "models" / "edges.npz"
        fit_edges.main(a.data, out, a.epochs, a.seed, a.lr, init=a.init)
    elif a.what in ("data", "tails", "overlaps", "numbers", "partials", "plays"):
        from referee.lab.train import data
        if a.what == "numbers":
            from referee.lab.train import numbers
            jobs = numbers.plan(a.per_number, a.others, a.seed, leave_out=a.leave_out,
                                **_shares(a))
        elif a.what == "partials":
            from referee.lab.train import partials
            jobs = partials.plan(a.per_partial, a.calls, a.others, a.seed,
                                 leave_out=a.leave_out, **_shares(a))
        elif a.what == "plays":
            from referee.lab.train import plays
            jobs = plays.plan(a.per_play, a.others, a.seed, leave_out=a.leave_out, **_shares(a))
        else:
            jobs = data.plan(a.per_card, a.goops, a.others, a.seed, talk_after=a.talk_after,
                             near=a.near, leave_out=a.leave_out, **_shares(a))
        work = None
        if a.what == "tails":
            from referee.lab.train import tails
            work = tails.work
        if a.what == "overlaps":
            from functools import partial

            from referee.lab.train import overlaps
            work = partial(overlaps.work, reverb=a.reverb)
        data.build(a.out, jobs, a.seed, a.workers,
                   progress=lambda s: print(f"[{time.time() - t0:6.0f} s] {s}", flush=True),
                   work=work, leave_out=a.leave_out)
        print(f"wrote {a.out} in {time.time() - t0:.0f} s")
    else:
        from referee.lab.train import fit
        models = Path(__file__).resolve().parents[3] / "models"
        names = None
        kind = "suits" if a.suits else "overlaps" if a.overlaps else \
            "numbers" if a.numbers else "partials" if a.partials else \
            "plays" if a.plays else "phrases"
        if a.suits:
            from referee.lab.train.tails import CLASSES
            names = CLASSES
        if a.overlaps:
            from referee.lab.train.overlaps import CLASSES
            names = CLASSES
        if a.numbers:
            from referee.lab.train.numbers import CLASSES
            names = CLASSES
        if a.partials:
            from referee.lab.train.partials import CLASSES
            names = CLASSES
        if a.plays:
            from referee.lab.train.plays import classes
            names = classes()
        data_file = {"suits": "tails.npz", "overlaps": "overlaps.npz",
                     "numbers": "numbers.npz", "partials": "partials.npz",
                     "plays": "plays.npz"}.get(kind, "data.npz")
        fit.main(a.data or [CACHE / data_file], a.out or models / f"{kind}.npz",
                 a.epochs, a.seed, a.init, a.lr, names)
    return 0


def _shares(a: argparse.Namespace) -> dict[str, float]:
    """A set's voice shares (options of :func:`_data_options`), as ``data.assign`` takes them."""
    return {k: getattr(a, k) for k in ("hibari", "piper", "vocode", "diphone", "pico")}


def _data_options(d: argparse.ArgumentParser, out: Path) -> None:
    d.add_argument("--out", type=Path, default=out)
    d.add_argument("--per-card", type=int, default=60)
    d.add_argument("--goops", type=int, help="of \"goop\" (default 400)")
    d.add_argument("--others", type=int, help="items of talk (default 2000)")
    d.add_argument("--seed", type=int, default=7)
    d.add_argument("--hibari", type=float, default=0.15,
                   help="share of utterances said by hibari-tts (default %(default)s)")
    d.add_argument("--piper", type=float, default=0.0,
                   help="share of utterances said by piper's Joe (default %(default)s)")
    d.add_argument("--vocode", type=float, default=0.0,
                   help="share of utterances made again by a source-filter vocoder, as "
                        "statistical parametric voices sound (default %(default)s)")
    d.add_argument("--diphone", type=float, default=0.0,
                   help="share of utterances said by more people's diphone voices: MBROLA's "
                        "us1 and us3 (Debian non-free mbrola-us1, mbrola-us3, festvox-us1, "
                        "festvox-us3) and festival's RAB (default %(default)s)")
    d.add_argument("--pico", type=float, default=0.0,
                   help="share of utterances said by SVOX Pico's American voice, an HMM voice "
                        "(Debian non-free libttspico-utils; default %(default)s)")
    d.add_argument("--talk-after", type=float, default=0.0,
                   help="share of calls and shouts whose second mix has talk straight after "
                        "them (default %(default)s)")
    d.add_argument("--near", type=float, default=0.0,
                   help="share of the other talk that is a rank followed by words that are not "
                        "a suit: 'jack of all trades', 'ace up my sleeve' (default %(default)s)")
    d.add_argument("--leave-out", metavar="FAMILY", choices=FAMILIES,
                   help="no voice of this family (%(choices)s): its share is espeak-ng's, as "
                        "for measuring how a kind of voice never trained on is heard "
                        "(docs/model-history.md)")
    d.add_argument("--workers", type=int, default=os.cpu_count() or 1)


if __name__ == "__main__":
    raise SystemExit(main())
