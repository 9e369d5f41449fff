"""The Goop count's numbers in ``referee bench --numbers``: the answers 0 to 52 ("forty two",
"seven cards", "none"), corrections ("no fifteen") and talk with number words that is no
answer, said by the benchmark's voices in its noises and heard as ``referee play goop``
hears them (its grammar: shouts, commands and numbers).

Its own corpus (``bench/numbers-v<N>-s<seed>`` in the cache) and its own section of
BENCHMARKS.md; the voices, noises, deliveries and mixing are the main corpus's
(:mod:`referee.lab.bench.corpus`), tuning and held-out voices reported apart. With ``--dev
SET`` a development set's voices say the tuning answers (``bench/numbers-dev-SET-...``,
reported in its ``report.md``): for choosing the number check, never a benchmark figure.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from referee.core.numbers import number_words, parse_number
from referee.lab import mixing, sentences
from referee.lab.bench import corpus, phrase_run
from referee.lab.bench import metrics as M
from referee.lab.bench.report import SNR_LABEL, SNR_ORDER, SPLITS, _fmt_rate, _table

VERSION = 1
HEADING = "# Goop count numbers benchmark"
#: The numbers a Goop count asks for: cards in the centre or left in a Goop pile.
TOP = 52
#: Answers per voice (five per SNR bucket) and corrections per voice.
ANSWERS, CORRECTIONS = 20, 2
#: Targets (issue 23), held-out voices: share of answers heard exactly.
TARGETS = {"clean": 95.0, "10": 85.0}

#: How an answer is worded, in turn ({w}: the number's words); zero is also "none".
WORDINGS = ("{w}", "{w}", "{w} cards", "{w}", "{w} left")
ZEROS = ("zero", "none", "nothing")
#: How a correction is worded, per split.
CORRECTION_WORDINGS = {"tuning": ("no {w}", "correction {w}"),
                       "held-out": ("correction {w}", "no {w}")}

#: Table talk with number words that is no answer (held-out voices say other sentences).
NEGATIVES = sentences.NUMBER_TALK


def plan(seed: int = 1, dev: str | None = None) -> list[corpus.Item]:
    """Per split, every number 0-52 about three times, dealt over its voices (``ANSWERS``
    each, the conditions cycling over the SNRs and noises as in the main corpus); per voice
    ``CORRECTIONS`` corrections and 3 negatives. ``dev``: a development set's voices
    (:data:`corpus.DEV_SETS`) say the tuning split's, and there is no held-out split."""
    if dev == "near-miss":
        raise corpus.CorpusError("--dev near-miss is talk with card words: no numbers")
    items: list[corpus.Item] = []
    for split in ("tuning",) if dev else corpus.SPLITS:
        speakers = [v for v in corpus.voices_for(dev) if v.split == split]
        rng = mixing.rng_for(seed, f"numbers/{split}" + (f"/{dev}" if dev else ""))
        need = ANSWERS * len(speakers)
        values = [int(v) for v in rng.permutation([k % (TOP + 1) for k in range(need)])]
        zeros = 0
        n = 0
        for vi, voice in enumerate(speakers):
            vrng = mixing.rng_for(seed, f"numbers/{voice.id}")
            lines = []
            for i, value in enumerate(values[vi * ANSWERS:(vi + 1) * ANSWERS]):
                text = WORDINGS[(i + vi) % len(WORDINGS)].format(w=number_words(value))
                if value == 0:      # said bare: "none cards" is no answer
                    text, zeros = ZEROS[zeros % len(ZEROS)], zeros + 1
                lines.append(("answer", text, str(value)))
            for i in range(CORRECTIONS):
                value = int(vrng.integers(1, TOP + 1))
                lines.append(("correction", CORRECTION_WORDINGS[split][i % 2].format(
                    w=number_words(value)), f"no {value}"))
            talk = NEGATIVES[split]
            lines += [("negative", talk[(vi + k) % len(talk)], None) for k in range(3)]
            for i, (kind, text, expect) in enumerate(lines):
                snr, noise = corpus.snr_noise(i, vi)
                items.append(corpus.Item(
                    id=f"numbers-{split}-{n:04d}", split=split,
                    category="chatter" if expect is None else "number", text=text,
                    expect=expect, voice=voice.id, family=voice.engine, snr=snr, noise=noise,
                    extra={"said": kind}, **corpus.delivery(vrng)))
                n += 1
    return items


def score(rec: dict) -> str:
    """``'correct'`` (one thing heard, and it is what the count takes for the number said),
    ``'wrong'``, ``'extra'``, ``'missed'``; for talk, ``'false-accept'`` (a number, shout
    or call heard: the count would take it as an answer or the game would act on it) or
    ``'rejected'``. An answer heard as "no 27" is 27: the count takes a correction with no
    answer just before it as the answer."""
    acc = M.accepted(rec)
    if rec.get("expect") is None:
        return "false-accept" if any(h["kind"] in ("number", "shout", "call") for h in acc) \
            else "rejected"
    if not acc:
        return "missed"

    def right(h: dict) -> bool:
        if rec.get("said") != "answer":
            return h["said"] == rec["expect"]
        number = parse_number(h["said"]) if h["kind"] == "number" else None
        return number is not None and str(number.value) == rec["expect"]

    if not any(right(h) for h in acc):
        return "wrong"
    return "correct" if len(acc) == 1 else "extra"


def default_dir(seed: int = 1, dev: str | None = None) -> Path:
    return phrase_run.cache_dir(f"numbers-dev-{dev}" if dev else "numbers", VERSION, seed)


def run(args, measure, progress, engine_desc) -> int:
    """``referee bench --numbers``: build, measure and write the section."""
    from referee.app.inputs import KINDS as GAME_KINDS
    from referee.core.games.goop import COUNT_KINDS
    from referee.hearing.grammar import Grammar

    dev = getattr(args, "dev", None)
    cdir = Path(args.corpus) if args.corpus else default_dir(args.seed, dev)
    if dev and args.out is None:
        args.out = str(cdir / "report.md")
    split = args.split or "both"
    items = [i for i in plan(args.seed, dev) if split in ("both", i.split)]
    grammar = Grammar.load("table").subset(GAME_KINDS["goop"])
    for it in items:     # the plan must say what the game's grammar gives
        m = grammar.match(it.text)
        if (m.said if m else None) != it.expect:
            raise ValueError(f"{it.text!r}: the goop grammar gives {m}, not {it.expect!r}")
    return phrase_run.run(args, "numbers", items, grammar, {i.id: i.extra["said"] for i in items},
                          "said", render, HEADING, cdir, measure, progress, engine_desc,
                          listen_for=COUNT_KINDS, voices=corpus.voices_for(dev))


def _heard(rec: dict) -> str:
    acc = [h["said"] for h in M.accepted(rec)]
    return " + ".join(acc) if acc else "nothing"


def render(records: list[dict], meta: dict) -> str:
    """The section: answers heard exactly per SNR, corrections, talk taken for a number,
    the targets, and what the misses were."""
    present = [s for s in SPLITS if any(r["split"] == s for r in records)]
    answers = [r for r in records if r["said"] == "answer"]
    L = [HEADING, "",
         f"Written by `{meta['command']}` on {meta['date']}; engine: {meta['engine']}. "
         f"Each voice of the main corpus answers {ANSWERS} questions of the Goop count with a "
         f"number from 0 to {TOP} (\"forty two\", \"seven cards\", \"twelve left\", \"none\"; "
         f"every number about three times per split, five answers per SNR and voice), says "
         f"{CORRECTIONS} corrections (\"no fifteen\", \"correction nine\") and 3 sentences "
         "with number words that are no answer (\"give me two minutes\"); held-out voices say "
         "other sentences. Heard as `referee play goop` hears them during the count (numbers "
         "and commands; shouts only in play). Correct: one thing heard, and it is the number said (an answer heard as "
         "\"no 27\" is 27, as the count takes it; a correction must be heard as one). False "
         "accept: a number, shout or call heard in the talk.", ""]

    def ok(r):
        return score(r) == "correct"

    rows = [[SNR_LABEL[snr]] + [_fmt_rate(*M.rate(
        [r for r in answers if r["split"] == s and r["snr"] == snr], ok)) for s in present]
        for snr in SNR_ORDER]
    rows.append(["**all**"] + [_fmt_rate(*M.rate(
        [r for r in answers if r["split"] == s], ok), ci=True) for s in present])
    rows.append(["corrections"] + [_fmt_rate(*M.rate(
        [r for r in records if r["split"] == s and r["said"] == "correction"], ok))
        for s in present])
    rows.append(["talk taken for a number"] + [_fmt_rate(*M.rate(
        [r for r in records if r["split"] == s and r["expect"] is None],
        lambda r: score(r) == "false-accept")) for s in present])
    L += ["Answers heard right, by SNR:", ""] + _table(["SNR"] + present, rows) + [""]
    held = [r for r in answers if r["split"] == "held-out"]
    if held:
        for snr, target in TARGETS.items():
            k, n = M.rate([r for r in held if r["snr"] == snr], ok)
            got = M.pct(k, n)
            verdict = "–" if got is None else ("met" if got >= target else "**missed**")
            L.append(f"- Target, held-out at {SNR_LABEL[snr]}: ≥ {target:g} %; "
                     f"{_fmt_rate(k, n)}: {verdict}.")
        L.append("")
    rows = []
    for s in present:
        outcomes = Counter(score(r) for r in answers if r["split"] == s)
        rows.append([s] + [str(outcomes.get(o, 0)) for o in ("correct", "wrong", "extra", "missed")])
    L += ["Answers by outcome (wrong: another number heard; extra: the number and something "
          "more; missed: nothing):", ""]
    L += _table(["voices", "correct", "wrong", "extra", "missed"], rows) + [""]
    misses = Counter((r["expect"], _heard(r)) for r in answers
                     if r["split"] == "tuning" and not ok(r))
    if misses:
        L += ["Tuning answers not heard right (said → heard, times):", "",
              "; ".join(f"{e} → {h}" + (f" ×{c}" if c > 1 else "")
                        for (e, h), c in sorted(misses.items(), key=lambda x: (-x[1], int(x[0][0])))),
              ""]
    audio = sum(r["duration"] for r in records)
    cpu = sum(r["cpu"] for r in records)
    L += [f"Real-time factor: {cpu / audio:.3f} CPU s per audio s ({len(records)} items, "
          f"{audio:.0f} s of audio)."]
    return "\n".join(L) + "\n"
