"""The One-mic benchmark's section of BENCHMARKS.md (:mod:`referee.lab.bench.one_mic_bench`)."""

from __future__ import annotations

HEADING = "# One-mic benchmark (issue 29, mode 2)"
SPLITS = ("held-out", "tuning")
NOISES = ("clean", 10.0)


def _pct(k: int, n: int) -> str:
    return f"{100 * k / n:.1f} % ({k}/{n})" if n else "–"


def _of(records: list[dict], split: str, snr, players: int | None = None) -> list[dict]:
    return [r for r in records if r["split"] == split and r["snr"] == snr
            and players in (None, r["players"])]


def _alone(rs: list[dict], what: str) -> tuple[int, int]:
    us = [u for r in rs for u in r["alone"]]
    if what == "best":
        return sum(u["best"] == u["speaker"] for u in us), len(us)
    return sum(u["verdict"] == what for u in us), len(us)


def _pairs(rs: list[dict], what) -> tuple[int, int]:
    ps = [p for r in rs for p in r["pairs"]]
    return sum(p["verdict"] in what for p in ps), len(ps)


def _confident_wrong(rs: list[dict]) -> tuple[int, int]:
    """Calls counted for the wrong talker: alone ones given to another, and any two-voice span
    given to one talker with confidence (garbled audio decides nothing)."""
    k, n = _alone(rs, "wrong")
    pk, pn = _pairs(rs, ("right", "wrong"))
    return k + pk, n + pn


def _unknown(rs: list[dict], what) -> tuple[int, int]:
    us = [u for r in rs for u in r["unknown"]]
    return sum(u in what for u in us), len(us)


def _rounds(rs: list[dict]) -> tuple[int, int]:
    rounds = [x["right"] for r in rs for x in r.get("rounds", [])]
    return sum(rounds), len(rounds)


def _mark(k: int, n: int, target: float, above: bool = True) -> str:
    if not n:
        return "–"
    ok = k / n >= target if above else k / n <= target
    return "met" if ok else "**missed**"


def render(records: list[dict], meta: dict) -> str:
    L = [HEADING, "",
         "Written by `referee bench --one-mic`; do not edit by hand: re-run the command.", "",
         f"- **Command:** `{meta['command']}`", f"- **Date:** {meta['date']}",
         f"- **Machine:** {meta['machine']}",
         f"- **Run time:** {meta['elapsed']:.0f} s wall for {meta['games']} games, each clean "
         "and at 10 dB", "",
         "The game benchmark's Stroop games (same voices, talk and rounds; tuning and held-out "
         "voices in separate games) said in a simulated room (pyroomacoustics image sources, "
         "RT60 0.25–0.6 s) to one mic in the middle of the table, the dealer and 2–5 players "
         "0.5–0.9 m from it; clean, and with the game's noise (babble, clatter, pink) from a "
         "point on the table at 10 dB SNR. Each recording begins with every talker saying "
         "\"NAME here\" and three card names, at the rate and pitch they play with; the voice "
         "profiles are learnt from those as `referee play --one-mic` learns them "
         "(referee/hearing/voiceprints.py). *Alone*: a call or deal with no other voice within "
         "100 ms, attributed over its true span: *most likely right* is the likeliest voice; "
         "*counted right* / *counted wrong*: given to a talker (sure enough, one voice); *asked*: "
         "\"Who was that?\". *Overlapping calls*: two talkers' calls at once, judged over the "
         "span of both; *caught* when not given to one talker with confidence. *A voice not "
         "enrolled*: the last player left out of the profiles, their calls. *Rounds right*: the "
         "game refereed by `referee play stroop --one-mic --audio GAME.wav --names dealer,...` "
         "and judged as the game benchmark judges it. TTS voices are easier to tell apart than "
         "people: these are espeak-ng, festival and flite voices, each talker with their own "
         "rate and pitch; two talkers of one family are the hard cases.", "",
         "## Targets (issue 29), held-out voices", "",
         "| target | wanted | held-out | |", "|---|---|---|---|"]
    for snr, want, label in (("clean", 0.95, "clean"), (10.0, 0.90, "10 dB")):
        k, n = _alone(_of(records, "held-out", snr, 4), "best")
        L.append(f"| attribution, 4 players, {label} (most likely right) | ≥ {want * 100:.0f} % | "
                 f"{_pct(k, n)} | {_mark(k, n, want)} |")
    ho = [r for r in records if r["split"] == "held-out"]
    k, n = _pairs(ho, ("two", "asked"))
    L.append(f"| overlapping calls caught | ≥ 95 % | {_pct(k, n)} | {_mark(k, n, 0.95)} |")
    k, n = _confident_wrong(ho)
    L.append(f"| confident wrong award (alone and overlapping calls) | ≤ 1 % | {_pct(k, n)} | "
             f"{_mark(k, n, 0.01, above=False)} |")
    L += ["", "## Per split and noise", "",
          "| | held-out clean | held-out 10 dB | tuning clean | tuning 10 dB |",
          "|---|---|---|---|---|"]
    rows = [
        ("enrolment found (games)", lambda rs: _pct(sum(r.get("enrolled", False) for r in rs), len(rs))),
        ("alone: most likely right", lambda rs: _pct(*_alone(rs, "best"))),
        ("alone: counted right", lambda rs: _pct(*_alone(rs, "right"))),
        ("alone: asked", lambda rs: _pct(*_alone(rs, "asked"))),
        ("alone: taken for two voices", lambda rs: _pct(*_alone(rs, "two"))),
        ("alone: counted wrong", lambda rs: _pct(*_alone(rs, "wrong"))),
        ("overlapping calls: two voices found", lambda rs: _pct(*_pairs(rs, ("two",)))),
        ("overlapping calls: asked", lambda rs: _pct(*_pairs(rs, ("asked",)))),
        ("overlapping calls: given to one talker", lambda rs: _pct(*_pairs(rs, ("right", "wrong")))),
        ("a voice not enrolled: asked or two voices", lambda rs: _pct(*_unknown(rs, ("asked", "two")))),
        ("a voice not enrolled: counted for someone", lambda rs: _pct(*_unknown(rs, ("wrong",)))),
        ("rounds right (`play --one-mic`)", lambda rs: _pct(*_rounds(rs))),
        ("full calls heard", lambda rs: _pct(sum(r.get("calls_heard", [0, 0])[0] for r in rs),
                                             sum(r.get("calls_heard", [0, 0])[1] for r in rs))),
    ]
    for name, f in rows:
        L.append(f"| {name} | " + " | ".join(f(_of(records, s, snr)) for s in SPLITS
                                            for snr in NOISES) + " |")
    L += ["", "## Alone calls, most likely right, by players at the table", "",
          "| players | held-out clean | held-out 10 dB | tuning clean | tuning 10 dB |",
          "|---|---|---|---|---|"]
    for p in sorted({r["players"] for r in records}):
        L.append(f"| {p} | " + " | ".join(_pct(*_alone(_of(records, s, snr, p), "best"))
                                          for s in SPLITS for snr in NOISES) + " |")
    failed = [r for r in records if r.get("error")]
    if failed:
        L += ["", "## Games that failed", ""]
        L += [f"- {r['game']} ({r['snr']}): {r['error']}" for r in failed]
    return "\n".join(L) + "\n"
