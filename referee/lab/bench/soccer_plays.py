"""The soccer card game's plays in ``referee bench --soccer``: blocks, penalty kicks and
forwards said by the benchmark's voices in its noises, heard as ``referee play soccer``
hears them, and talk with soccer words that must not be taken for a play.

Its own corpus (``bench/soccer-v<N>-s<seed>`` in the cache) and its own section of
BENCHMARKS.md; the voices, noises, deliveries and mixing are the main corpus's
(:mod:`referee.lab.bench.corpus`), tuning and held-out voices reported apart.
"""

from __future__ import annotations

from pathlib import Path

from referee.core.cards import full_deck
from referee.lab import mixing
from referee.lab.bench import corpus, phrase_run
from referee.lab.bench import metrics as M
from referee.lab.bench.report import SNR_LABEL, SNR_ORDER, SPLITS, _fmt_rate, _table

VERSION = 1
HEADING = "# Soccer plays benchmark"

#: How each kind of play is worded, per split (the held-out voices say other wordings).
#: ``{a}``, ``{b}``: spoken cards.
WORDINGS = {
    "tuning": (("block one", "block with {a}"), ("block two", "{a} and {b}"),
               ("no block", "no block"), ("penalty", "penalty {a}"), ("no penalty", "no penalty"),
               ("card", "{a}"), ("card", "{a}"), ("block two", "block with {a} and {b}")),
    "held-out": (("block one", "block {a}"), ("block two", "block with {a} and {b}"),
                 ("no block", "no block"), ("penalty", "penalty with {a}"),
                 ("no penalty", "no penalty"), ("card", "{a}"), ("card", "{a}"),
                 ("block two", "{a} and {b}")),
}
KINDS = ("card", "block one", "block two", "no block", "penalty", "no penalty")

#: Table talk with the game's words that is no play.
NEGATIVES = {
    "tuning": ("that was a good block", "no way that blocks", "what a penalty",
               "the nine and the two", "block out the noise", "the penalty box",
               "no blocking allowed", "I have no idea"),
    "held-out": ("nice save", "you can not block that", "is that a penalty", "no chance",
                 "two hearts and a spade", "keep the block", "a penalty shootout", "no goal"),
}


def _canonical(kind: str, a: str, b: str) -> str:
    return {"card": a, "block one": f"block {a}", "block two": f"block {a} and {b}",
            "no block": "no block", "penalty": f"penalty {a}", "no penalty": "no penalty"}[kind]


def plan(seed: int = 1) -> list[corpus.Item]:
    """Per voice: the 8 plays of its split's wordings (random cards) and 4 negatives, the
    conditions cycling over the SNRs and noises as in the main corpus."""
    items: list[corpus.Item] = []
    deck = [c.spoken for c in full_deck()]
    goalies = [c.spoken for c in full_deck() if c.rank > 10]
    for split in corpus.SPLITS:
        speakers = [v for v in corpus.VOICES if v.split == split]
        n = 0
        for vi, voice in enumerate(speakers):
            rng = mixing.rng_for(seed, f"soccer/{voice.id}")
            lines = []
            for kind, wording in WORDINGS[split]:
                a, b = (str(c) for c in rng.choice(deck, 2, replace=False))
                if kind == "penalty":
                    a = str(rng.choice(goalies))
                lines.append((kind, wording.format(a=a, b=b), _canonical(kind, a, b)))
            lines += [("negative", str(t), None) for t in rng.permutation(NEGATIVES[split])[:4]]
            for i, (kind, text, expect) in enumerate(lines):
                snr, noise = corpus.snr_noise(i, vi)
                items.append(corpus.Item(
                    id=f"soccer-{split}-{n:04d}", split=split,
                    category="near-miss" if expect is None else "play", text=text, expect=expect,
                    voice=voice.id, family=voice.engine, snr=snr, noise=noise,
                    extra={"play": kind}, **corpus.delivery(rng)))
                n += 1
    return items


def default_dir(seed: int = 1) -> Path:
    return phrase_run.cache_dir("soccer", VERSION, seed)


def run(args, measure, progress, engine_desc) -> int:
    """``referee bench --soccer``: build, measure and write the section."""
    from referee.app.inputs import KINDS as GAME_KINDS
    from referee.hearing.grammar import Grammar

    cdir = Path(args.corpus) if args.corpus else default_dir(args.seed)
    split = args.split or "both"
    items = [i for i in plan(args.seed) if split in ("both", i.split)]
    kinds = {i.id: i.extra["play"] if i.expect is not None else "negative" for i in items}
    grammar = Grammar.load("table").subset(GAME_KINDS["soccer"])
    return phrase_run.run(args, "soccer", items, grammar, kinds, "play", render, HEADING, cdir,
                          measure, progress, engine_desc, listen_for=phase_kinds)


def phase_kinds(item: corpus.Item) -> frozenset[str]:
    """What the game listens for when ``item`` is said: a forward (a bare card) while a
    forward is awaited, the other plays while a block or penalty kick is; talk in either,
    every other item in each."""
    from referee.core.games.soccer import FORWARD_KINDS, PLAY_KINDS

    if item.expect is not None:
        return FORWARD_KINDS if item.extra["play"] == "card" else PLAY_KINDS
    return FORWARD_KINDS if corpus.every_other(item) else PLAY_KINDS


def render(records: list[dict], meta: dict) -> str:
    """The section: exact-play accuracy per SNR and per kind of play, and false accepts."""
    present = [s for s in SPLITS if any(r["split"] == s for r in records)]
    L = [HEADING, "",
         f"Written by `{meta['command']}` on {meta['date']}; engine: {meta['engine']}. "
         "Each voice of the main corpus says 8 plays of the soccer card game (blocks of one and "
         "two cards, \"no block\", a penalty kick, \"no penalty\", forwards) with random cards, "
         "and 4 sentences with the game's words that are no play (\"what a penalty\", \"keep "
         "the block\"); held-out voices use other wordings and sentences. Heard as `referee "
         "play soccer` hears them: forwards as while a forward is awaited (cards and "
         "commands), the other plays as while a block or penalty kick is (cards, plays and "
         "commands), talk in either, every other sentence in each. Correct: exactly the "
         "expected play and nothing else. False accept: a card or a play heard in a negative.",
         ""]

    def ok(r):
        return M.outcome(r) == "correct"

    rows = []
    for snr in SNR_ORDER:
        rows.append([SNR_LABEL[snr]] + [
            _fmt_rate(*M.rate([r for r in records if r["split"] == s and r["snr"] == snr
                               and r["expect"] is not None], ok)) for s in present])
    rows.append(["**all**"] + [_fmt_rate(*M.rate(
        [r for r in records if r["split"] == s and r["expect"] is not None], ok), ci=True)
        for s in present])
    L += ["Plays heard exactly, by SNR:", ""] + _table(["SNR"] + present, rows) + [""]
    rows = [[kind] + [_fmt_rate(*M.rate([r for r in records if r["split"] == s and
                                         r["play"] == kind], ok)) for s in present]
            for kind in KINDS]
    L += ["By kind of play (all SNRs):", ""] + _table(["play"] + present, rows) + [""]
    rows = [["false accepts"] + [_fmt_rate(*M.rate(
        [r for r in records if r["split"] == s and r["expect"] is None],
        lambda r: M.outcome(r) == "false-accept")) for s in present]]
    L += _table(["negatives"] + present, rows) + [""]
    audio = sum(r["duration"] for r in records)
    cpu = sum(r["cpu"] for r in records)
    L += [f"Real-time factor: {cpu / audio:.3f} CPU s per audio s ({len(records)} items, "
          f"{audio:.0f} s of audio)."]
    return "\n".join(L) + "\n"
