"""The game benchmark's section of BENCHMARKS.md, rendered from the per-game records of
:func:`referee.lab.bench.games_run.score`, so that no figure is typed by hand. Only the
held-out voices count against the targets of issue 21; the tuning voices are shown apart."""

from __future__ import annotations

from referee.lab.bench import metrics as M
from referee.lab.bench.report import _fmt_rate, _mark, _table as _plain_table

HEADING = "# Game benchmark"
SPLITS = ("held-out", "tuning")
HIGH_SNR, LOW_SNR = 15.0, 10.0
"""dB: the SNR bands the timing targets name (at and above; at and below)."""

#: (label, what, comparison, limit) judged on the held-out games.
TARGETS = (
    ("right winner and pile, rounds", "rounds", ">=", 97.0),
    ("whole games right", "games", ">=", 90.0),
    (f"|end error| p90, SNR >= {HIGH_SNR:.0f} dB", "end_high", "<=", 15.0),
    (f"|start error| p90, SNR >= {HIGH_SNR:.0f} dB", "start_high", "<=", 20.0),
    (f"|end error| p90, SNR <= {LOW_SNR:.0f} dB", "end_low", "<=", 30.0),
    (f"|start error| p90, SNR <= {LOW_SNR:.0f} dB", "start_low", "<=", 30.0),
    ("full calls heard", "calls", ">=", 98.0),
    ("dealt cards heard", "deals", ">=", 99.5),
    ("partial calls heard", "partials", ">=", 90.0),
    ("chatter turned into a partial call", "chatter_partial", "<=", 1.0),
)


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A markdown table; a "|" in a cell is escaped."""
    esc = lambda cells: [c.replace("|", "\\|") for c in cells]     # noqa: E731
    return _plain_table(esc(header), [esc(r) for r in rows])


def _flat(records: list[dict], key: str) -> list[dict]:
    return [x for r in records for x in r[key]]


def band(snr: float) -> str:
    if snr >= HIGH_SNR:
        return f">= {HIGH_SNR:.0f} dB"
    return f"<= {LOW_SNR:.0f} dB" if snr <= LOW_SNR else f"{LOW_SNR:.0f}-{HIGH_SNR:.0f} dB"


def timed(calls: list[dict]) -> list[dict]:
    """The full calls heard as said, which have timing errors."""
    return [c for c in calls if c["kind"] == "call" and c["heard"]]


def p90_ms(calls: list[dict], key: str) -> float | None:
    v = M.percentile([abs(c[key]) for c in calls], 90)
    return None if v is None else 1000 * v


def figures(records: list[dict]) -> dict:
    """The targets' figures for one split: rates as (k, n), timing as ms."""
    rounds = _flat(records, "rounds")
    calls = _flat(records, "calls")
    chat = _flat(records, "chatter")
    t = timed(calls)
    hi = [c for c in t if c["snr"] >= HIGH_SNR]
    lo = [c for c in t if c["snr"] <= LOW_SNR]
    full = [c for c in calls if c["kind"] == "call"]
    part = [c for c in calls if c["kind"] == "partial"]
    deals = _flat(records, "deals")
    return {
        "rounds": (sum(r["right"] for r in rounds), len(rounds)),
        "games": (sum(r["right"] for r in records), len(records)),
        "end_high": p90_ms(hi, "end_err"), "start_high": p90_ms(hi, "start_err"),
        "end_low": p90_ms(lo, "end_err"), "start_low": p90_ms(lo, "start_err"),
        "calls": (sum(c["heard"] for c in full), len(full)),
        "deals": (sum(d["heard"] for d in deals), len(deals)),
        "partials": (sum(c["heard"] for c in part), len(part)),
        "chatter_partial": (sum(c["as_partial"] > 0 for c in chat), len(chat)),
        "chatter_call": (sum(c["as_call"] > 0 for c in chat), len(chat)),
        "phantoms": sum(r["phantoms"] for r in records),
        "phantom_deals": sum(r.get("phantom_deals", 0) for r in records),
        "asked": (sum(q["deal_missed"] for r in records for q in r.get("questions", ())),
                  sum(len(r.get("questions", ())) for r in records)),
    }


def judged(f: dict) -> list[tuple[str, str, str, bool | None]]:
    """(label, target, figure, met?) for each target."""
    out = []
    for label, key, op, limit in TARGETS:
        v = f[key]
        if isinstance(v, tuple):
            k, n = v
            fig, x = _fmt_rate(k, n), M.pct(k, n)
            unit = " %"
        else:
            fig, x, unit = ("–" if v is None else f"{v:.0f} ms"), v, " ms"
        ok = None if x is None else (x >= limit if op == ">=" else x <= limit)
        out.append((label, f"{'≥' if op == '>=' else '≤'} {limit:g}{unit}", fig, ok))
    return out


def _ms(x: float | None, signed: bool = False) -> str:
    return "–" if x is None else (f"{1000 * x:+.0f}" if signed else f"{1000 * x:.0f}")


def timing_rows(calls: list[dict]) -> list[list[str]]:
    t = timed(calls)
    groups: list[tuple[str, list[dict]]] = [("all", t)]
    for label, key in (("family", "family"), ("noise", "noise")):
        for v in sorted({c[key] for c in t}):
            groups.append((f"{label} {v}", [c for c in t if c[key] == v]))
    for b in sorted({band(c["snr"]) for c in t}):
        groups.append((f"SNR {b}", [c for c in t if band(c["snr"]) == b]))
    groups.append(("a neighbour talking at the start", [c for c in t if c["neighbour"]]))
    groups.append(("nobody else talking at the start", [c for c in t if not c["neighbour"]]))
    rows = []
    for label, cs in groups:
        s = [c["start_err"] for c in cs]
        e = [c["end_err"] for c in cs]
        rows.append([label, str(len(cs)),
                     _ms(M.percentile([abs(x) for x in s], 50)), _ms(M.percentile([abs(x) for x in s], 90)),
                     _ms(M.percentile(s, 50), True),
                     _ms(M.percentile([abs(x) for x in e], 50)), _ms(M.percentile([abs(x) for x in e], 90)),
                     _ms(M.percentile(e, 50), True)])
    return rows


def render(records: list[dict], meta: dict) -> str:
    """The whole section."""
    present = [s for s in SPLITS if any(r["split"] == s for r in records)]
    by = {s: [r for r in records if r["split"] == s] for s in present}
    figs = {s: figures(by[s]) for s in present}
    L = [HEADING, "",
         "Written by `referee bench --games`; every figure is computed from the run's results "
         "file. Do not edit by hand: re-run the command.", "",
         f"- **Command:** `{meta['command']}`", f"- **Date:** {meta['date']}",
         f"- **Machine:** {meta['machine']}",
         f"- **Games:** {meta['games']}"]
    if meta.get("quick"):
        L.append("- **Quick run:** four short games; the figures are rough.")
    audio = sum(r["duration"] for r in records)
    chs = sum(r["duration"] * r["channels"] for r in records)
    L += [f"- **Run time:** {meta['elapsed']:.0f} s wall in all ({meta.get('built', 0):.0f} s of "
          f"it making games not yet cached); refereeing {sum(r['wall'] for r in records):.0f} s "
          f"wall, {sum(r['cpu'] for r in records):.0f} s CPU for {len(records)} games "
          f"({meta.get('jobs', 1)} at a time), "
          f"{audio:.0f} s of audio on {chs:.0f} s of channels", "",
          ABOUT, ""]
    if "held-out" in figs:
        L += ["## Targets (issue 21), held-out voices", ""]
        rows = [[lab, tgt, fig, _mark(ok)] for lab, tgt, fig, ok in judged(figs["held-out"])]
        L += _table(["target", "wanted", "held-out", ""], rows) + [""]
        short = [lab for lab, _, _, ok in judged(figs["held-out"]) if ok is False]
        L += [("**Falls short:** " + "; ".join(short) + ".") if short else "All targets met.", ""]
    L += ["## Hearing and verdicts", ""]
    keys = (("rounds right (winner and pile)", "rounds"), ("whole games right", "games"),
            ("full calls heard", "calls"), ("dealt cards heard", "deals"),
            ("partial calls heard", "partials"),
            ("chatter turned into a call", "chatter_call"),
            ("chatter turned into a partial call", "chatter_partial"))
    rows = [[label] + [_fmt_rate(*figs[s][key]) for s in present] for label, key in keys]
    rows.append(["calls heard that nobody made"] + [str(figs[s]["phantoms"]) for s in present])
    rows.append(["deals heard that nobody made (a call taken for the dealer's)"]
                + [str(figs[s]["phantom_deals"]) for s in present])
    rows.append(["the dealer asked for a card: times (of them over a deal not heard)"]
                + ["{1} ({0})".format(*figs[s]["asked"]) for s in present])
    for s_label, fn in (("deal time error (heard − true start), median / p90 of |·|", _deal_err),):
        rows.append([s_label] + [fn(by[s]) for s in present])
    L += _table(["", *present], rows) + [""]
    L += ["Rounds right by kind:", ""]
    kinds = sorted({r["kind"] for x in records for r in x["rounds"]})
    rows = []
    for k in kinds:
        rows.append([k] + [_fmt_rate(sum(r["right"] for r in _flat(by[s], "rounds") if r["kind"] == k),
                                     sum(1 for r in _flat(by[s], "rounds") if r["kind"] == k))
                           for s in present])
    L += _table(["round", *present], rows) + [""]
    for s in present:
        L += [f"## Timing errors, {s} voices", "",
              "Heard minus true, in ms, over the full calls heard as said: |error| median "
              "and p90, and the bias (median signed error).", ""]
        L += _table(["calls", "n", "|start| med", "|start| p90", "start bias",
                     "|end| med", "|end| p90", "end bias"],
                    timing_rows(_flat(by[s], "calls"))) + [""]
    return "\n".join(L).rstrip() + "\n"


def _deal_err(records: list[dict]) -> str:
    e = [abs(d["err"]) for d in _flat(records, "deals") if d["heard"]]
    return f"{_ms(M.percentile(e, 50))} / {_ms(M.percentile(e, 90))} ms"


ABOUT = (
    "Synthetic Stroop games made offline by `referee.lab.bench.games` from one seed: a dealer and "
    "2 to 5 players, one mic each, voices of the hearing corpus (tuning and held-out voices in "
    "separate games). Every voice leaks into every other mic 10 to 22 dB down and 1 to 4 ms "
    "late; mic gains vary by ±6 dB; babble, card clatter and shuffling, pink noise, or a "
    "reverberant room, at 8 to 25 dB SNR (each mic's own voice over its noise); table talk "
    "between the rounds. Every game has one round of each kind: a single call, a race (ends "
    "60–300 ms apart), a tie on completion won by the earlier start (starts ≥ 80 ms apart) or "
    "drawn (starts ≤ 15 ms apart), a miscall then a win, an inactive player beaten, the "
    "all-miscalled reset, a partial call (\"queen\", \"jack of\"), and silence. The truth is "
    "the generator's: a call's start and end are the first and last 10 ms frame (1 ms hop) "
    "within 40 dB of its loudest, on the clean voice; the right verdicts are the core's on "
    "those events. Each game is refereed by the code of `referee play stroop --audio "
    "GAME.wav --names dealer,... --json`; a heard call belongs to a true one on the same "
    "mic within 150 ms of it; a dealt card is heard when its deal is journaled from 1 s "
    "before the dealer's words to their end. A recording answers no question: when the referee "
    "asks the dealer for a card (words read as no card, or calls long after a won round with "
    "no card heard), the question counts as over a deal not heard when the last deal begun by "
    "then was not heard.")
