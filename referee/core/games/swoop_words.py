"""Swoop's verdicts in words: a line of the replay's account (``describe``), and the
sentence the referee speaks (``sentence``). Pure."""

from __future__ import annotations

from typing import Mapping

from referee.core.cards import RANK_WORDS
from referee.core.games.swoop import rank_words
from referee.core.games.swoop_events import (
    Paused, PickedUp, Played, Refused, Reported, RoundScored, SwoopNote, SwoopOver, Undone, WentOut,
)

VERDICTS = (Played, Refused, PickedUp, WentOut, Reported, RoundScored, SwoopOver, Undone,
            Paused, SwoopNote)


def _names(players) -> str:
    players = list(players)
    return players[0] if len(players) == 1 else ", ".join(players[:-1]) + " and " + players[-1]


def _cards(n: int) -> str:
    return "one card" if n == 1 else f"{n} cards"


def _what(v: Played) -> str:
    return ("blind " if v.play.blind else "") + rank_words(v.play.rank, v.play.count)


def standings(totals: Mapping[str, int]) -> str:
    """``'ann 10, cai 57, bob 86'``: lowest (best) first."""
    order = list(totals)
    ranked = sorted(totals.items(), key=lambda kv: (kv[1], order.index(kv[0])))
    return ", ".join(f"{p} {n}" for p, n in ranked)


def describe(v) -> str | None:
    """One line of ``referee replay``'s account: what was decided and why."""
    if isinstance(v, Played):
        head = f"round {v.round}: {v.play.player} plays {_what(v)} at {v.play.at:.2f} s"
        if v.swoop == "ten":
            return f"{head}: a ten swoops the pile; {v.play.player} plays again"
        if v.swoop == "four":
            return (f"{head}: {v.run} {RANK_WORDS[v.play.rank]}s in a row swoop the pile; "
                    f"{v.play.player} plays again")
        tail = f"; {v.next}'s turn" if v.next else ""
        return f"{head}: it goes (pile {v.pile}, run {v.run}; {v.play.player} holds {v.held}){tail}"
    if isinstance(v, Refused):
        return f"round {v.round}: {v.player}'s {v.what!r} is refused: {v.reason}"
    if isinstance(v, PickedUp):
        why = (f"the blind {RANK_WORDS[v.blind]} does not go, so " if v.blind else "")
        return (f"round {v.round}: {why}{v.player} picks up {_cards(v.cards)} "
                f"(holds {v.held}); {v.next} leads")
    if isinstance(v, WentOut):
        return f"round {v.round}: {v.player} is out of cards; {_names(v.to_report)} report their hands"
    if isinstance(v, Reported):
        r = v.report
        what = f"total {r.total}" if r.total is not None else " ".join(RANK_WORDS[c] for c in r.cards)
        line = f"round {v.round}: {r.player} reports {what or 'nothing'} = {v.points} points"
        if v.corrected is not None:
            line += f" (was {v.corrected})"
        return line + (f"; doubt: {v.doubt}" if v.doubt else "")
    if isinstance(v, RoundScored):
        pts = ", ".join(f"{p} {n}" for p, n in v.points.items())
        line = f"round {v.round} scored ({v.out} went out): {pts}; totals {standings(v.totals)}"
        if v.missing:
            line += f"; no report from {_names(v.missing)} (0)"
        return line + ("" if v.game_over else f"; {v.next} leads round {v.round + 1}")
    if isinstance(v, SwoopOver):
        if not v.winners:
            return "final: no round was scored"
        verb = "wins" if len(v.winners) == 1 else "tie"
        return f"final after {v.rounds} round(s): {standings(v.totals)}; {_names(v.winners)} {verb} (lowest)"
    if isinstance(v, Undone):
        return f"undo round {v.round}: " + (f"took back {v.what}; {v.next}'s turn" if v.what
                                            else "there is nothing to undo")
    if isinstance(v, Paused):
        return f"{'paused' if v.paused else 'resumed'} at {v.at:.2f} s"
    if isinstance(v, SwoopNote):
        return f"note at {v.at:.2f} s: {v.text}"
    return None


def sentence(v, verbosity: str = "normal") -> str | None:
    """What the referee says about a verdict; None when it says nothing.

    ``terse`` and ``quiet``: swoops (with the play that swooped, so a misheard one is
    caught), refusals, pick-ups, going out, scores; ``normal``: also whose turn it is;
    ``verbose``: also a read-back of each play."""
    turn = verbosity in ("normal", "verbose")
    if isinstance(v, Played):
        back = _what(v).capitalize() + ". " if verbosity == "verbose" or v.swoop else ""
        if v.swoop:
            return f"{back}Swoop! {v.play.player} plays again."
        if v.next and turn:
            return f"{back}{v.next}'s turn."
        return back.strip() or None
    if isinstance(v, Refused):
        if v.what in ("report",):
            return f"No: {v.reason}."
        again = " Play again or pick up." if "does not go" in v.reason else ""
        return f"No, {v.player}: {v.reason}.{again}"
    if isinstance(v, PickedUp):
        why = f"The blind {RANK_WORDS[v.blind]} does not go. " if v.blind else ""
        return f"{why}{v.player} picks up {_cards(v.cards)}. {v.next} leads."
    if isinstance(v, WentOut):
        return f"{v.player} is out!"
    if isinstance(v, Reported):
        name = v.report.player
        text = f"{name}, {v.points} point{'s' if v.points != 1 else ''}."
        return text + (f" But {v.doubt}." if v.doubt else "")
    if isinstance(v, RoundScored):
        pts = ", ".join(f"{p} {n}" for p, n in v.points.items() if p != v.out)
        text = f"Round {v.round}: {pts}. Totals: {standings(v.totals)}."
        return text + ("" if v.game_over else f" {v.next} leads.")
    if isinstance(v, SwoopOver):
        if not v.winners:
            return "Game ended before any round was scored."
        best = v.totals[v.winners[0]]
        if len(v.winners) == 1:
            return f"Game over. {v.winners[0]} wins with {best} points."
        return f"Game over. {_names(v.winners)} tie with {best} points."
    if isinstance(v, Undone):
        if not v.what:
            return "Nothing to undo."
        return f"Undone: {v.what}. {v.next}'s turn."
    if isinstance(v, Paused):
        return "Paused." if v.paused else "Resumed."
    return None
