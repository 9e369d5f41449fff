"""``kill -9`` of a live ``referee play`` at random moments of a scripted Stroop game played
through a private PulseAudio server, then ``referee resume`` and the rest of the script:
does the game end with the rounds and scores of a run never killed?

The script is played round by round: the dealer names the card into his mic, the players'
calls (one file split into their two mics, so their timing is exact) follow. A kill lands
at a random time between the journal's creation and the final verdict. On resume the round
in progress (the first whose verdict is not journaled) is played again from its start, as
players at a table redo it; the dealer does not name the card again when the referee, on
resuming, says it is on the table (docs/reliability.md, "A live game killed").

It needs the repository's ``tests/helpers`` (the PulseAudio server and the TTS voices of
the live tests), as the device-loss faults need ``tests/live``.
"""

from __future__ import annotations

import random
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from referee.core.cards import Card
from referee.lab.bench.kill_resume import journal, journal_path, outcome

HELPERS = Path(__file__).resolve().parents[3] / "tests" / "helpers"
#: The player mics: two devices fed by the channels of one sink (tests/helpers/pulse.py).
PLAYER_MICS = {"ann": "kills_ann", "bob": "kills_bob"}
SPLIT_SINK = "kills"
#: (dealer's card, [(player, call, seconds after the deal is journaled)]): a miscall then a
#: winner, a lone winner, a winner and a call too late.
SCRIPT = [("seven of diamonds", [("bob", "queen of hearts", 0.4), ("ann", "two of clubs", 2.2)]),
          ("king of diamonds", [("bob", "ace of clubs", 0.6)]),
          ("nine of hearts", [("ann", "two of clubs", 0.6), ("bob", "three of clubs", 3.0)])]
RESUMED_TOP = "is on: the top card is the "
"""What the referee says on resuming when the round's card is on the table."""


def helpers():
    """The live tests' helper modules (``pulse``, ``live_game``), or None without them."""
    if not HELPERS.exists():
        return None
    if str(HELPERS) not in sys.path:
        sys.path.insert(0, str(HELPERS))
    import live_game
    import pulse
    return pulse, live_game


def prepare(server) -> None:
    """Give ``server`` (a ``pulse.PulseServer``) the dealer's mic and the players' split
    mics the script is played into."""
    if "dealer" not in server.sinks:
        server.add_sink("dealer", 1)
    if SPLIT_SINK not in server.sinks:
        server.add_split_sink(SPLIT_SINK, list(PLAYER_MICS.values()))


@dataclass
class LiveKills:
    kills: int = 0
    same: int = 0
    """Resumed games that ended with the uninterrupted run's rounds and scores."""
    ended_first: int = 0
    """Kills that came after the final verdict was journaled (nothing to resume)."""
    named: int = 0
    """Kills before the game's first event, resumed by naming the journal."""
    redealt: int = 0
    """Resumes whose interrupted round had not its card on the table: dealt again."""
    typed: int = 0
    """Deals the recogniser missed, typed by the dealer (as at a table)."""
    failures: list[str] = field(default_factory=list)
    server_failed: int = 0
    """Runs in which the audio server itself failed (counted among the failures; the
    server was started again for the next run)."""
    rounds_at_kill: list[int] = field(default_factory=list)
    """Verdicts journaled when each kill landed."""
    whole: list = field(default_factory=list)
    """The uninterrupted run's rounds and final scores."""
    whole_seconds: float = 0.0
    seconds: float = 0.0


class _Script:
    """Plays the script's rounds to one referee."""

    def __init__(self, server, live_game, folder: Path) -> None:
        self.server, self.lg, self.folder = server, live_game, folder
        self.deals = [live_game.voice_wav(folder, "dealer", card) for card, _ in SCRIPT]
        players = list(PLAYER_MICS)
        self.calls = []
        for n, (_, calls) in enumerate(SCRIPT):
            parts = [(players.index(who), live_game.voice_wav(folder, who, text), at)
                     for who, text, at in calls]
            self.calls.append(live_game.mix_wav(folder / f"round{n}.wav", parts, len(players)))
        self.typed = 0

    def play(self, ref, data: Path, first: int, deal_first: bool = True) -> bool:
        """Rounds ``first``.. of the script, then "end"; False once the referee is gone."""
        try:
            for n in range(first, len(SCRIPT)):
                if not self._round(ref, data, n, deal=deal_first or n > first):
                    return False
            ref.type("end")
            ref.wait_for(lambda r: _final(data), 20, "the final verdict")
            return True
        except (AssertionError, OSError):     # waited on a referee that was killed
            return False

    def _round(self, ref, data: Path, n: int, deal: bool) -> bool:
        card = str(Card.find(SCRIPT[n][0]))
        if deal:
            before = _count(data, "deal")
            self.server.play(self.deals[n], "dealer")
            if not _wait(lambda: _count(data, "deal") > before, 2.0, ref):
                if ref.proc.poll() is not None:
                    return False
                self.typed += 1
                ref.type(card)
                if not _wait(lambda: _count(data, "deal") > before, 2.0, ref):
                    return False
        self.server.play(self.calls[n], SPLIT_SINK)
        rounds = len([o for o in journal(data) if o["type"] == "deal"])
        return _wait(lambda: _count(data, "round") >= rounds, 20.0, ref)


def _count(data: Path, kind: str) -> int:
    return sum(o["type"] == kind for o in journal(data))


def _final(data: Path) -> bool:
    return _count(data, "final") > 0


def _wait(pred, timeout: float, ref) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        if ref.proc.poll() is not None:
            return pred()
        time.sleep(0.05)
    return False


def _start(lg, data: Path, env, *args: str):
    ref = lg.Referee(*args, "--json", "--speak-to", "text", "--engine", "pocketsphinx",
                     data=data, env=env)
    ref.wait_err("referee: journal ", 60)
    ref.wait_err("microphones lined up", 15)
    return ref


def _play_args() -> list[str]:
    return ["play", "stroop", "--names", "dealer,ann,bob", "--devices",
            "dealer", *PLAYER_MICS.values()]


def live_kills(server, folder: Path, kills: int, seed: int = 0, log=print,
               moments: list[float] | None = None) -> LiveKills:
    """``kills`` live games killed at random and resumed, against one never killed.
    ``server``: a running ``pulse.PulseServer`` (see :func:`prepare`); ``moments``: where
    to kill instead, as fractions of the uninterrupted script's time."""
    pulse, lg = helpers()
    prepare(server)
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    script = _Script(server, lg, folder)
    env = server.env
    t0 = time.monotonic()
    ref = _start(lg, folder / "whole", env, *_play_args())
    began = time.monotonic()
    try:
        ok = script.play(ref, folder / "whole", 0)
        span = time.monotonic() - began
        if not ok or ref.finish() != 0:
            raise RuntimeError(f"the uninterrupted live game failed: {ref.stderr[-800:]}")
    finally:
        ref.kill()
    result = LiveKills(whole_seconds=time.monotonic() - t0, whole=outcome(journal(folder / "whole")))
    log(f"live kills: the uninterrupted game took {result.whole_seconds:.0f} s: {result.whole}")
    t0 = time.monotonic()
    for k in range(kills):
        at = span * (moments[k] if moments else rng.random())
        counted = result.kills
        try:
            failed = _kill_run(lg, script, folder / f"kill{k}", env, at, result)
        except pulse.PulseError as e:
            result.server_failed += 1
            failed = f"the audio server failed: {e}; its log ends: {_log_tail(server)}"
            server.stop()
            server.restart()
            if result.kills == counted:
                result.kills += 1
                result.rounds_at_kill.append(_count(folder / f"kill{k}", "round"))
        what = f"kill {k + 1}/{kills} at {at:.1f} s ({result.rounds_at_kill[-1]} verdict(s) journaled)"
        if failed:
            result.failures.append(f"{what}: {failed}")
        else:
            result.same += 1
        log(f"{what}: {failed or 'same'}")
    result.seconds = time.monotonic() - t0
    result.typed = script.typed
    return result


def _kill_run(lg, script: _Script, data: Path, env, at: float, result: LiveKills) -> str | None:
    """One game killed ``at`` seconds into the script, resumed and played to its end: what
    differed from the uninterrupted game, or None."""
    ref = lg.Referee(*_play_args(), "--json", "--speak-to", "text", "--engine",
                     "pocketsphinx", data=data, env=env)
    try:
        ref.wait_err("referee: journal ", 60)
        ref.wait_err("microphones lined up", 15)
        timer = threading.Timer(at, lambda p=ref.proc: p.send_signal(signal.SIGKILL))
        timer.start()
        script.play(ref, data, 0)
        timer.join()
        ref.proc.wait(30)
    finally:
        ref.kill()
    result.kills += 1
    done = _count(data, "round")
    result.rounds_at_kill.append(done)
    if ref.proc.returncode != -signal.SIGKILL or _final(data):
        result.ended_first += 1
    else:
        failed = _resume(lg, script, data, env, done, result)
        if failed:
            return failed
    got = outcome(journal(data))
    if got == result.whole:
        return None
    rounds = {g[0] for g, w in zip(got, result.whole) if g != w and g[0] != "final"}
    heard = [f"{o['player']} '{o['said']}' {o['outcome']}" for o in journal(data)
             if o["type"] == "judged" and o.get("round") in rounds]
    return f"{got} instead of {result.whole}; heard in round(s) {sorted(rounds)}: {heard}"


def _log_tail(server, lines: int = 4) -> str:
    try:
        return " | ".join(server.log.read_text(errors="replace").splitlines()[-lines:])
    except OSError as e:
        return str(e)


def _resume(lg, script: _Script, data: Path, env, done: int, result: LiveKills) -> str | None:
    """``referee resume`` and the rest of the script from round ``done``; what went wrong."""
    args = ["resume", "--json", "--speak-to", "text", "--engine", "pocketsphinx"]
    ref = lg.Referee(*args, data=data, env=env)
    try:
        try:
            ref.wait_err("referee: journal ", 60)
        except AssertionError:
            if "no unfinished game" not in ref.stderr or _count(data, "game") != len(journal(data)):
                return f"resume failed: {ref.stderr[-300:]}"
            # killed before the game's first event: plain `resume` passes it over
            result.named += 1
            ref.finish()
            ref = lg.Referee(args[0], str(journal_path(data)), *args[1:], data=data, env=env)
            ref.wait_err("referee: journal ", 60)
        ref.wait_err("microphones lined up", 15)
        if len(journal(data)) > 1:          # a game line alone: nothing to say where it stands
            ref.wait_err("Resuming.", 10)
        on_table = RESUMED_TOP in ref.stderr
        result.redealt += not on_table
        if not script.play(ref, data, done, deal_first=not on_table):
            return f"the resumed game stopped: {ref.stderr[-300:]}"
        code = ref.finish()
        if code != 0 or "Traceback" in ref.stderr:
            return f"resume exit {code}: {ref.stderr[-300:]}"
        return None
    except AssertionError as e:
        first = str(e).splitlines()[0] if str(e) else "failed"
        return f"resume: {first} ...{str(e)[-200:]}"
    finally:
        ref.kill()
