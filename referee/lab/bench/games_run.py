"""Run the synthetic games (:mod:`referee.lab.bench.games`) through the code path of
``referee play stroop --audio GAME.wav --names dealer,ann,... --json`` in process, and
score what it journaled and decided against the generator's truth: one record per game."""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
import time
from pathlib import Path

from referee.core.cards import Card
from referee.core.errors import RefereeError
from referee.lab.bench.games import Game, Speech
from referee.lab.cache import bench_dir

SLACK = 0.15
"""Seconds either side of a true utterance within which a heard call may belong to it."""
DEAL_LEAD = 1.0
"""Seconds before the dealer's words within which a heard deal of that card is theirs
(a recogniser's segment may open in the noise before the voice)."""
ASK_SLACK = 0.5
"""Seconds after the time a question to the dealer was about (noted with it) within which a
true deal may begin and still be the deal it asked for (its words' start may be read early)."""


class PlayFailed(RefereeError, RuntimeError):
    """``referee play`` did not run a game through (its exit status and last lines)."""


def play(game: Game, wav: Path, extra: list[str] | None = None) -> dict:
    """Referee ``wav`` as ``referee play stroop --audio`` does, in this process, with a
    private data directory; returns its --json objects, its journal's objects, and the
    wall and CPU seconds it took."""
    from referee.cli.main import build_parser

    argv = ["play", "stroop", "--audio", str(wav), "--names", ",".join(game.channels),
            "--json", "--no-screen", *(extra or [])]
    args = build_parser().parse_args(argv)
    out, err = io.StringIO(), io.StringIO()
    old = os.environ.get("REFEREE_DATA")
    with tempfile.TemporaryDirectory(prefix="referee-games-") as data:
        os.environ["REFEREE_DATA"] = data
        try:
            w0, c0 = time.perf_counter(), time.process_time()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = args._run(args)
            wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        finally:
            if old is None:
                os.environ.pop("REFEREE_DATA", None)
            else:
                os.environ["REFEREE_DATA"] = old
        journal = [json.loads(line) for p in sorted(Path(data).rglob("*.jsonl"))
                   for line in p.read_text().splitlines() if line.strip()]
    if code != 0:
        tail = " | ".join(err.getvalue().strip().splitlines()[-3:])
        raise PlayFailed(f"referee play exited {code} on {wav.name}: {tail}")
    printed = [json.loads(line) for line in out.getvalue().splitlines() if line.strip()]
    return {"printed": printed, "journal": journal, "wall": wall, "cpu": cpu}


def _overlaps(h: dict, start: float, end: float) -> bool:
    return h["start"] < end + SLACK and h["end"] > start - SLACK


def neighbour_at(game: Game, u) -> bool:
    """Whether another talker's voice is on at the start of ``u`` (truth spans)."""
    return any(o.speaker != u.speaker and o.start <= u.start < o.end for o in game.utts)


def score(game: Game, ran: dict) -> dict:
    """One game's record: its rounds right or not, every call, deal and chatter and how it
    was heard, and the time the run took."""
    heard_calls = [o for o in ran["journal"] if o.get("type") == "call"]
    heard_deals = [o for o in ran["journal"] if o.get("type") == "deal"]
    used: set[int] = set()
    used_deals: set[int] = set()
    calls, deals, chatter = [], [], []
    base = {"game": game.id, "split": game.split, "noise": game.noise, "snr": game.snr}
    for u in game.utts:
        if u.kind == Speech.DEAL:
            # the cards of a game are all different: the card names its deal, heard when
            # the dealer said it (a player's call heard as a deal is a deal nobody made)
            i, hit = next(((i, d) for i, d in enumerate(heard_deals)
                           if d["card"] == str(Card.parse(u.text))
                           and u.start - DEAL_LEAD <= d["at"] <= u.end), (None, None))
            if i is not None:
                used_deals.add(i)
            deals.append({**base, "card": u.text, "family": game.family("dealer"),
                          "heard": hit is not None,
                          "err": None if hit is None else round(hit["at"] - u.start, 4)})
            continue
        if u.kind == Speech.CHATTER:
            continue
        full = u.kind == Speech.CALL
        near = [(i, h) for i, h in enumerate(heard_calls)
                if i not in used and h["player"] == u.speaker and _overlaps(h, u.start, u.end)]
        hit = next(((i, h) for i, h in near
                    if (h["said"] == u.text if full else Card.find(h["said"]) is None)), None)
        rec = {**base, "player": u.speaker, "family": game.family(u.speaker), "kind": u.kind,
               "text": u.text, "start": u.start, "end": u.end, "round": u.round,
               "neighbour": neighbour_at(game, u), "heard": hit is not None,
               "as": [h["said"] for _, h in near if hit is None or h is not hit[1]]}
        if hit is not None:
            used.add(hit[0])
            rec.update(said=hit[1]["said"], start_err=round(hit[1]["start"] - u.start, 4),
                       end_err=round(hit[1]["end"] - u.end, 4))
        calls.append(rec)
    for u in game.utts:
        if u.kind != Speech.CHATTER:
            continue
        got = [h for i, h in enumerate(heard_calls)
               if i not in used and _overlaps(h, u.start, u.end)]
        chatter.append({**base, "player": u.speaker, "family": game.family(u.speaker),
                        "text": u.text, "as_call": sum(Card.find(h["said"]) is not None for h in got),
                        "as_partial": sum(Card.find(h["said"]) is None for h in got)})
    true_deals = [u for u in game.utts if u.kind == Speech.DEAL]
    questions = []
    for o in ran["journal"]:
        if o.get("type") == "note" and "asked" in o:
            # the deal it was about: the last begun by then (words read as no card begin
            # with it; a call for it ends after it); none before the first
            i = max((i for i, u in enumerate(true_deals) if u.start <= o["about"] + ASK_SLACK),
                    default=None)
            questions.append({"asked": o["asked"], "about": o["about"],
                              "deal_missed": i is not None and not deals[i]["heard"]})
    rounds = _rounds(game, ran["printed"])
    final = next((o for o in ran["printed"] if o.get("type") == "final"), None)
    heard_rounds = sum(o.get("type") == "round" for o in ran["printed"])
    right = (all(r["right"] for r in rounds) and heard_rounds == len(game.rounds)
             and final is not None and final["scores"] == game.final["scores"])
    return {**base, "players": len(game.players), "channels": len(game.channels),
            "duration": game.duration, "wall": round(ran["wall"], 3),
            "cpu": round(ran["cpu"], 3), "rounds": rounds, "right": right,
            "calls": calls, "deals": deals, "chatter": chatter,
            "phantom_deals": len(heard_deals) - len(used_deals), "questions": questions,
            "phantoms": len(heard_calls) - len(used)
            - sum(c["as_call"] + c["as_partial"] for c in chatter)}


def _rounds(game: Game, printed: list[dict]) -> list[dict]:
    heard = {o["top"]: o for o in printed if o.get("type") == "round"}
    out = []
    for kind, t in zip(game.kinds, game.rounds):
        h = heard.get(t["top"])
        want = {k: t[k] for k in ("winner", "pile", "outcome")}
        got = None if h is None else {k: h[k] for k in ("winner", "pile", "outcome")}
        out.append({"round": t["round"], "kind": kind, "top": t["top"], "truth": want,
                    "heard": got, "right": got == want})
    return out


# --- The command: referee bench --games ----------------------------------------------

def default_dir(seed: int) -> Path:
    """Where the games are cached: ``$REFEREE_CACHE`` or ``~/.cache/referee``, then
    ``bench/games-v{VERSION}-s{seed}``."""
    from referee.lab.bench.games import VERSION

    return bench_dir(f"games-v{VERSION}-s{seed}")


def referee_one(job: tuple[Game, Path, list[str]]) -> dict:
    """Referee and score one game (a worker's task)."""
    game, wav, extra = job
    return score(game, play(game, wav, extra))


def build_games(specs: list[dict], directory: Path, seed: int, tick=None) -> list[Game]:
    """The games of ``specs``, made (or read back) in ``directory``; ``tick(k, n)`` after each."""
    from referee.lab.bench import games, games_table

    (directory / "utt").mkdir(parents=True, exist_ok=True)
    built = []
    with tempfile.TemporaryDirectory(prefix="referee-tts-") as td:
        voices = games.Voices(directory / "utt", Path(td))
        for k, spec in enumerate(specs):
            built.append(games_table.build(spec, directory, voices, seed))
            if tick:
                tick(k + 1, len(specs))
    return built


def referee_games(built: list[Game], directory: Path, extra: list[str], jobs: int = 1,
                  tick=None) -> list[dict]:
    """Each game of ``built`` (its WAV in ``directory``) refereed and scored, ``jobs`` at once,
    one process each; ``tick(k, n)`` after each."""
    return run_jobs(referee_one, [(game, directory / game.file, extra) for game in built],
                    jobs, tick)


def run_jobs(fn, work: list, jobs: int = 1, tick=None) -> list:
    """``fn`` of each item of ``work``, in order, ``jobs`` at once (forked processes when more
    than one); ``tick(k, n)`` after each."""
    if jobs <= 1:
        done, pool = map(fn, work), None
    else:
        import multiprocessing

        pool = multiprocessing.get_context("fork").Pool(jobs)
        done = pool.imap(fn, work)
    out = []
    try:
        for k, rec in enumerate(done):
            out.append(rec)
            if tick:
                tick(k + 1, len(work))
    except BaseException:
        if pool is not None:
            pool.terminate()
        raise
    finally:
        if pool is not None:
            # closed, not terminated, once done: a worker that ran `referee play` turns
            # SIGTERM into KeyboardInterrupt, and one killed so could hang the join
            pool.close()
            pool.join()
    return out


def bench_meta(args, flag: str, load: float, elapsed: float, extra: list[str] = (), **more
               ) -> dict:
    """The first line of a game-kind benchmark's results (``referee bench --games``, ``--array``,
    ``--one-mic``): its command line, date, machine (``load``: the load average at the start)
    and run time, and ``more``."""
    import datetime as _dt
    import shlex

    from referee.lab.bench.run import _machine

    argv = list(extra) + (["--quick"] if args.quick else []) + \
        (["--jobs", str(args.jobs)] if args.jobs else []) + \
        (["--seed", str(args.seed)] if args.seed != 1 else []) + ["--out", args.out]
    return {"command": f"referee bench {flag} " + " ".join(shlex.quote(a) for a in argv),
            "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "machine": _machine(load, os.getloadavg()[0]), "elapsed": elapsed,
            "quick": args.quick, **more}


def write_results(args, results: Path, meta: dict, records: list[dict], section: str,
                  heading: str) -> None:
    """``meta`` and ``records`` into ``results`` (JSON Lines), ``section`` into the report."""
    import sys

    from referee.lab.bench.report import write_section

    with open(results, "w") as f:
        f.write(json.dumps({"meta": meta}) + "\n")
        for r in records:
            f.write(json.dumps(r) + "\n")
    write_section(Path(args.out), section, heading)
    print(f"referee bench: wrote {args.out} (results in {results}); {meta['elapsed']:.0f} s",
          file=sys.stderr)


def run_on_games(args, flag: str, directory: Path, one, work_of, label: str, render,
                 heading: str) -> int:
    """A benchmark of the game benchmark's games heard another way (``--array``,
    ``--one-mic``): the games made (or read back), ``one`` run on each item of
    ``work_of(built, specs)`` (``--jobs`` at once), the results and the report written."""
    from referee.lab.bench import games
    from referee.lab.bench.run import _progress

    w0, load = time.perf_counter(), os.getloadavg()[0]
    specs = games.plan(args.seed, quick=args.quick)
    built = build_games(specs, default_dir(args.seed), args.seed, _progress("making games"))
    directory.mkdir(parents=True, exist_ok=True)
    work = work_of(built, specs)
    records = run_jobs(one, work, max(1, min(args.jobs or 1, len(work))), _progress(label))
    meta = bench_meta(args, flag, load, time.perf_counter() - w0, games=len(built))
    write_results(args, directory / f"results{'-quick' if args.quick else ''}.jsonl", meta,
                  records, render(records, meta), heading)
    return 0


def run_games(args) -> int:
    """``referee bench --games [--quick] [--seed N] [--out FILE]``."""
    import sys

    from referee.lab.bench import games, games_report
    from referee.lab.bench.report import write_section
    from referee.lab.bench.run import _progress

    directory = Path(args.corpus) if args.corpus else default_dir(args.seed)
    results = directory / f"results{'-quick' if args.quick else ''}.jsonl"
    if args.report_only:
        lines = results.read_text().splitlines()
        meta = json.loads(lines[0])["meta"]
        records = [json.loads(x) for x in lines[1:] if x.strip()]
        write_section(Path(args.out), games_report.render(records, meta), games_report.HEADING)
        print(f"referee bench: wrote {args.out} from {results}", file=sys.stderr)
        return 0
    w0 = time.perf_counter()
    load = os.getloadavg()[0]
    specs = games.plan(args.seed, quick=args.quick)
    print(f"referee bench: games in {directory} ({len(specs)} games)", file=sys.stderr)
    built = build_games(specs, directory, args.seed, _progress("making games"))
    t_built = time.perf_counter() - w0
    extra = [x for opt in ("engine", "model") if getattr(args, opt, None)
             for x in (f"--{opt}", str(getattr(args, opt)))]
    jobs = max(1, min(args.jobs or 1, len(built)))
    records = referee_games(built, directory, extra, jobs, _progress("refereeing games"))
    meta = bench_meta(args, "--games", load, time.perf_counter() - w0, extra,
                      games=f"`{directory.name}` (version {games.VERSION}, seed {args.seed}, "
                            f"{len(specs)} games{', quick' if args.quick else ''})",
                      built=t_built, jobs=jobs)
    write_results(args, results, meta, records, games_report.render(records, meta),
                  games_report.HEADING)
    return 0
