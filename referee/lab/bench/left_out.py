"""``referee bench --left-out-family FAMILY --models WITH.npz WITHOUT.npz``: how a kind of
voice never trained on is heard (issue 25).

The hearing benchmark's held-out items are heard twice through PocketSphinx and a phrase
classifier: once with ``WITH`` (fit on every training family) and once with ``WITHOUT`` (fit
alike on data planned alike, ``python -m referee.lab.train data --leave-out FAMILY``). On
that family's held-out voices the first is "voices like the training ones", the second "a
new kind of voice"; the difference is the generalisation gap. The other held-out voices,
heard by both, show what leaving the family out costs elsewhere. Its own section of
BENCHMARKS.md, judged against issue 25's targets (docs/model-history.md, "Leaving a
family out").
"""

from __future__ import annotations

import datetime as _dt
import json
import multiprocessing as mp
import os
import time
from pathlib import Path

from referee.hearing.model_file import read_model
from referee.lab.bench import corpus, report
from referee.lab.bench import metrics as M
from referee.lab.bench.report import SNR_LABEL, SNR_ORDER, _fmt_rate, _mark, _table
from referee.lab.train.model_meta import fits

HEADING = "# Left-out voice family (issue 25)"
RUNS = ("with", "without")


def run(args, measure, progress, machine, error) -> int:
    """Hear the held-out items with each model (or, with ``--report-only``, read the
    results back) and write the section; ``error``: the exception to raise on bad input."""
    fam = args.left_out_family
    if not args.models or len(args.models) != 2:
        raise error("--left-out-family needs --models WITH.npz WITHOUT.npz: the classifier "
                    "fit with the family and the one fit without it")
    for opt in ("dev", "games", "soccer", "numbers", "quick"):
        if getattr(args, opt, None):
            raise error(f"--{opt} is not for --left-out-family")
    if args.split not in (None, "held-out"):
        raise error("--left-out-family hears the held-out voices only")
    models = [Path(m) for m in args.models]
    cdir = Path(args.corpus) if args.corpus else corpus.default_dir(args.seed)
    results = {r: cdir / f"results-left-out-{fam}-{r}.jsonl" for r in RUNS}
    out = Path(args.out or "BENCHMARKS.md")
    command = (f"referee bench --left-out-family {fam} --models {models[0]} {models[1]}"
               + (f" --seed {args.seed}" if args.seed != 1 else "") + f" --out {out}")
    records: dict[str, list[dict]] = {}
    if args.report_only:
        for r in RUNS:
            if not results[r].exists():
                raise error(f"no results file at {results[r]}: run without --report-only first")
            lines = results[r].read_text().splitlines()
            meta = json.loads(lines[0])["meta"]
            records[r] = [json.loads(x) for x in lines[1:] if x.strip()]
        meta["models"] = {r: model_about(Path(m["path"])) if Path(m["path"]).exists() else m
                          for r, m in meta["models"].items()}
    else:
        for m in models:
            if not m.exists():
                raise error(f"{m}: no such model file")
        from referee.hearing.engine import DEFAULT_KINDS
        from referee.hearing.grammar import Grammar
        from referee.lab.bench.run import check_against_grammar

        items = corpus.select(corpus.plan(args.seed), "held-out")
        items = corpus.build(items, cdir, args.seed, progress=progress("synthesising"))
        grammar = Grammar.load("table").subset(DEFAULT_KINDS)
        items, skipped = check_against_grammar(items, grammar)
        if skipped:
            raise error(f"{len(skipped)} items the grammar does not give as the corpus expects")
        load0, t0 = os.getloadavg()[0], time.perf_counter()
        elapsed = {}
        # One process per model, at once: each item's CPU time is its own process's.
        jobs = [(m, grammar, items, cdir, args.block_ms, measure, progress) for m in models]
        with mp.get_context("fork").Pool(len(jobs)) as pool:
            for r, (recs, secs) in zip(RUNS, pool.map(_hear, jobs)):
                records[r], elapsed[r] = recs, secs
        meta = {"command": command, "family": fam,
                "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                "machine": machine(load0, os.getloadavg()[0]),
                "corpus": f"`{cdir}` (version {corpus.VERSION}, seed {args.seed}, held-out voices)",
                "models": {r: model_about(m) for r, m in zip(RUNS, models)},
                "elapsed": elapsed, "total": time.perf_counter() - t0}
        for r in RUNS:
            results[r].parent.mkdir(parents=True, exist_ok=True)
            with open(results[r], "w") as f:
                f.write(json.dumps({"meta": meta}) + "\n")
                for rec in records[r]:
                    f.write(json.dumps(rec) + "\n")
    report.write_section(out, render(records, meta), HEADING)
    print(f"referee bench: wrote the left-out family section of {out}")
    return 0


def _hear(job) -> tuple[list[dict], float]:
    """The records of every item heard with one model, and the seconds it took."""
    from referee.hearing.engine import PocketSphinx

    model, grammar, items, cdir, block_ms, measure, progress = job
    t = time.perf_counter()
    recogniser = PocketSphinx(grammar=grammar, classifier=str(model))
    tick = progress(f"hearing with {model}")
    out = []
    for k, item in enumerate(items):
        out.append(measure(recogniser, item, cdir, block_ms))
        tick(k + 1, len(items))
    return out, time.perf_counter() - t


def model_about(path: Path) -> dict:
    """What a model file says of its fit: its path, data files and epochs (those of the
    fits it was continued from first)."""
    meta = read_model(path)[0]
    epochs = " + ".join(str(f["epochs"]) for f in fits(meta))
    if "averaged" in meta:  # `python -m referee.lab.train average`
        av = meta["averaged"]
        epochs += (f" (weights averaged with `{Path(av['with']).name}`, "
                   f"{1 - av['weight']:.2g} of them)")
    return {"path": str(path), "trained_on": meta.get("trained_on", []), "epochs": epochs,
            "from_scratch": True}  # the first fit of a chain has no --init


def _figures(s: dict) -> list[tuple[str, str, tuple[int, int], bool | None]]:
    """(name, target, (k, n), met?) of one summary, as issue 25 judges it."""
    v = report.verdicts(s)
    out = [(f"Card calls, {SNR_LABEL[snr]}", f"≥ {report.ACCURACY_TARGETS[snr]:.0f} %",
            s["accuracy"][snr], v[snr]) for snr in SNR_ORDER]
    out.append(('"goop", all SNRs', f"≥ {report.GOOP_TARGET:.0f} %", s["goop"], v["goop"]))
    out.append(("False accepts (talk with a call or shout; noise is among the other voices)",
                f"≤ {report.FALSE_ACCEPT_TARGET:.0f} %", s["false_accepts"],
                v["false_accepts"]))
    out.append(("Commands from talk not addressed to the referee",
                f"≤ {report.COMMAND_TALK_TARGET:.0f} %", s["command_talk"], v["command_talk"]))
    return out


def _gap(a: tuple[int, int], b: tuple[int, int]) -> str:
    pa, pb = M.pct(*a), M.pct(*b)
    return "–" if pa is None or pb is None else f"{pb - pa:+.1f}"


def render(records: dict[str, list[dict]], meta: dict) -> str:
    """The section: the left-out family's held-out voices and the others, heard with the
    classifier fit with the family and without it, against issue 25's targets."""
    fam = meta["family"]
    mine = {r: [x for x in records[r] if x["family"] == fam] for r in RUNS}
    rest = {r: [x for x in records[r] if x["family"] != fam] for r in RUNS}
    sums = {(who, r): report.summary(recs[r]) for who, recs in (("fam", mine), ("rest", rest))
            for r in RUNS}
    voices = sorted({x["voice"] for x in mine["with"]})
    L = [HEADING, ""]
    L += [f"Written by `{meta['command']}`; every figure below is computed from its results "
          "files. Do not edit by hand: re-run the command.", ""]
    L += [f"- **Date:** {meta['date']}", f"- **Machine:** {meta['machine']}",
          f"- **Corpus:** {meta['corpus']}"]
    for r, label in zip(RUNS, (f"fit with {fam}", f"fit without {fam}")):
        m = meta["models"][r]
        L += [f"- **Classifier {label}:** `{m['path']}`, {m['epochs']} epochs "
              f"{'from scratch ' if m['from_scratch'] else ''}on "
              + ", ".join(f"`{Path(p).name}`" for p in m["trained_on"])]
    el = meta.get("elapsed", {})
    L += [f"- **Run time:** {el.get('with', 0):.0f} s and {el.get('without', 0):.0f} s wall "
          f"for {len(records['with'])} items each (the two at once, one process each)", ""]
    L += [f"**Stand-in classifiers, not the shipped one.** Both were fit from scratch alike on "
          f"smaller data sets planned alike (docs/model-history.md, \"Leaving a family out\"), "
          f"the second with no {fam} voice anywhere in its data (its share said by espeak-ng "
          f"voices). On the held-out {fam} voices ({', '.join(voices)}) the first is \"voices "
          f"like the training ones\" (other {fam} speakers were trained on), the second \"a new "
          f"kind of voice\"; the gap is the second minus the first, in percentage points. "
          "Every figure is on held-out voices and sentences; nothing was chosen on them. The "
          "suit check (models/suits.npz) is the shipped one in both runs.", ""]
    header = ["Metric", "Target", f"{fam} voices, fit with {fam}",
              f"{fam} voices, fit without {fam}", "Gap (points)", f"Target met, without {fam}?",
              f"Other held-out voices, with {fam}", f"Other held-out voices, without {fam}"]
    rows = []
    short = {r: [] for r in RUNS}
    figs = {k: _figures(s) for k, s in sums.items()}
    for i, (name, target, _, _) in enumerate(figs[("fam", "with")]):
        w, wo = figs[("fam", "with")][i], figs[("fam", "without")][i]
        rows.append([name, target, _fmt_rate(*w[2], ci=True), _fmt_rate(*wo[2], ci=True),
                     _gap(w[2], wo[2]), _mark(wo[3]),
                     _fmt_rate(*figs[("rest", "with")][i][2]),
                     _fmt_rate(*figs[("rest", "without")][i][2])])
        for r in RUNS:
            if figs[("fam", r)][i][3] is False:
                short[r].append(name)
    L += _table(header, rows) + [""]
    for r, label in (("with", f"fit with {fam}"), ("without", f"fit without {fam}: a new kind "
                                                                f"of voice")):
        L += [f"**Shortfalls, {fam} voices, {label}:** "
              + ("; ".join(short[r]) if short[r] else "none") + ".", ""]
    L += ["Card calls and \"goop\" heard exactly, all SNRs, per held-out voice:", ""]
    pos = {r: [x for x in records[r] if x["category"] in ("call", "shout")] for r in RUNS}
    rows = []
    for v in sorted({x["voice"] for x in pos["with"]}):
        cells = [_fmt_rate(*M.rate([x for x in pos[r] if x["voice"] == v],
                                   lambda x: M.outcome(x) == "correct")) for r in RUNS]
        rows.append([v, *cells])
    L += _table(["Voice", f"fit with {fam}", f"fit without {fam}"], rows)
    return "\n".join(L).rstrip() + "\n"
