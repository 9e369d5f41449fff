"""The readable account of verdicts: one line per decision, saying why.

Used by ``referee replay`` (without ``--json``) and by the live referee's
screen. Spoken announcements are shorter and live with the speaker.
"""

from __future__ import annotations

from typing import Any

from referee.core.games import goop
from referee.core.games import gops_events
from referee.core.games import soccer_log

from referee.core.games import stroop
from referee.core.games import swoop_words
from referee.core.events import Asked
from referee.core.clock import ms, us


def _cards(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def _stay(n: int) -> str:
    return f"{_cards(n)} {'stays' if n == 1 else 'stay'} for the next round"


def names(players) -> str:
    """``'ann'``, ``'ann and bob'``, ``'ann, bob and cai'``."""
    players = list(players)
    return players[0] if len(players) == 1 else ", ".join(players[:-1]) + " and " + players[-1]


def describe(verdict: Any, window_ms: float = 40.0) -> str | None:
    """One line for a verdict; None for verdicts not worth a line."""
    if isinstance(verdict, swoop_words.VERDICTS):
        return swoop_words.describe(verdict)
    soccer = soccer_log.describe(verdict)
    if soccer is not None:
        return soccer
    if isinstance(verdict, stroop.CallJudged):
        c = verdict.call
        head = f"round {verdict.round}: {c.player}"
        if verdict.outcome == stroop.CallOutcome.QUALIFIES:
            return f'{head} calls "{c.said}" at {c.end:.2f} s: {verdict.reason}'
        if verdict.outcome == stroop.CallOutcome.MISCALL:
            return f'{head} miscalls "{c.said}" at {c.end:.2f} s: {verdict.reason}'
        if verdict.outcome in _NO_EFFECT:
            return f'{head}\'s "{c.said}" has no effect: {verdict.reason}'
        return f'{c.player}\'s "{c.said}" at {c.end:.2f} s has no effect: {verdict.reason}'
    if isinstance(verdict, Asked):
        c = verdict.command
        return f"{c.player or 'the table'} asks for {c.name} at {c.at:.2f} s"
    if isinstance(verdict, stroop.PlayerOut):
        return f"round {verdict.round}: {verdict.player} is out for the rest of the round"
    if isinstance(verdict, stroop.AllActive):
        return f"round {verdict.round}: every player has miscalled, so all are active again"
    if isinstance(verdict, stroop.RoundOver):
        return _round(verdict, window_ms)
    if isinstance(verdict, stroop.Undone):
        if verdict.round is None:
            return "undo: there is nothing to undo"
        if verdict.winner is not None:
            what = f"{verdict.winner} gives back {_cards(verdict.cards)}"
            if not verdict.reopened:
                what += "; they go onto the stake pile"
        else:
            what = "the draw is undone"
        if verdict.reopened:
            what += "; the round is open again"
        return f"undo round {verdict.round}: {what}"
    if isinstance(verdict, stroop.Paused):
        return f"{'paused' if verdict.paused else 'resumed'} at {verdict.at:.2f} s"
    if isinstance(verdict, (goop.Gooped, goop.ShoutJudged, goop.Counted, goop.HandOver,
                            goop.GoopOver, goop.GoopNote)):
        return _goop(verdict, window_ms)
    if isinstance(verdict, gops_events.VERDICTS):
        from referee.core.games import gops_record   # (imports this module's names())
        return gops_record.describe(verdict)
    if isinstance(verdict, stroop.GameOver):
        ranked = sorted(verdict.scores.items(), key=lambda kv: (-kv[1], list(verdict.scores).index(kv[0])))
        line = "final: " + ", ".join(f"{p} {n}" for p, n in ranked)
        if verdict.unclaimed:
            line += f" ({_cards(verdict.unclaimed)} left unclaimed)"
        best = ranked[0][1]
        leaders = [p for p, n in ranked if n == best]
        line += f"; {names(leaders)} {'wins' if len(leaders) == 1 else 'tie'}"
        return line
    return None


#: The calls that did nothing (a call with no round is not accounted for).
_NO_EFFECT = (stroop.CallOutcome.INACTIVE, stroop.CallOutcome.LATE, stroop.CallOutcome.PAUSED)


def _round(v: stroop.RoundOver, window_ms: float) -> str:
    head = f"round {v.round} ({v.top.symbol}):"
    if v.outcome == stroop.RoundOutcome.UNWON:
        return f"{head} no one won; {_stay(v.carried)}"
    if v.outcome == stroop.RoundOutcome.DRAW:
        return (f"{head} draw between {names(v.tied)}, who finished and began within "
                f"{window_ms:g} ms of each other; {_stay(v.carried)}")
    won = f"{head} {v.winner} wins {_cards(v.pile)}"
    if v.decided_by == stroop.DecidedBy.FORFEIT:
        assert v.miscall is not None
        return f'{won}: {v.miscall.player} miscalled "{v.miscall.said}" in a two-player game'
    call = v.winning_call
    assert call is not None and v.winner is not None
    if v.decided_by == stroop.DecidedBy.ALONE or not v.rivals:
        return f'{won}: "{call.said}", the only qualifying call within {window_ms:g} ms'
    rival = _nearest(v.decided_by, call, v.rivals, v.margin_us)
    if v.decided_by == stroop.DecidedBy.COMPLETION:
        return f'{won}: finished "{call.said}" {ms(v.margin_us)} ms before {rival.player}'
    return (f'{won}: finished within {window_ms:g} ms of {rival.player}, but began "{call.said}" '
            f"{ms(v.margin_us)} ms earlier")


def _nearest(decided_by: str, won: Any, rivals: tuple, margin_us: int) -> Any:
    """The rival the margin was measured against."""
    if decided_by == "completion":
        return next((r for r in rivals if us(r.end) - us(won.end) == margin_us), rivals[0])
    return next((r for r in rivals if us(r.start) - us(won.start) == margin_us), rivals[0])


def _goop(v: Any, window_ms: float) -> str:
    if isinstance(v, goop.Gooped):
        head = f"hand {v.hand}: Goop!"
        if v.decided_by == "draw":
            return f"{head} {names(v.goopers)} finished and began within {window_ms:g} ms: all gooped"
        if v.decided_by == "beginning":
            rival = _nearest("beginning", v.shout, v.rivals, v.margin_us)
            return (f"{head} {v.goopers[0]} gooped: finished within {window_ms:g} ms of {rival.player}, "
                    f"but began {ms(v.margin_us)} ms earlier")
        if v.decided_by == "completion":
            rival = _nearest("completion", v.shout, v.rivals, v.margin_us)
            return f"{head} {v.goopers[0]} gooped {ms(v.margin_us)} ms before {rival.player}"
        return f"{head} {v.goopers[0]} gooped, at {v.shout.end:.2f} s"
    if isinstance(v, goop.ShoutJudged):
        return f'hand {v.hand}: {v.shout.player}\'s "{v.shout.said}" has no effect: {v.reason}'
    if isinstance(v, goop.Counted):
        what = "in the centre" if v.field == "centre" else "left in the Goop pile"
        fixed = f" (corrected from {v.corrected})" if v.corrected is not None and v.corrected != v.value else ""
        return f"hand {v.hand}: {v.player} has {v.value} {what}{fixed}"
    if isinstance(v, goop.HandOver):
        parts = [f"{p} {n:+d} ({v.counts[p]['centre']} centre, {v.counts[p]['left']} left)"
                 for p, n in v.points.items()]
        line = f"hand {v.hand} scored: " + ", ".join(parts)
        line += "; totals: " + ", ".join(f"{p} {n}" for p, n in v.totals.items())
        if v.false_goop:
            line += f"; false Goop by {names(v.false_goop)}"
        if v.missing:
            line += f"; never reported, counted as 0: {', '.join(v.missing)}"
        if v.game_over:
            return line
        if v.tied_at_top:
            line += f"; {names(v.tied_at_top)} tie at the top: another hand"
        return line + f"; decks are picked by {', '.join(v.pick_order)}; {v.says_go} says Go"
    if isinstance(v, goop.GoopOver):
        ranked = sorted(v.totals.items(), key=lambda kv: -kv[1])
        line = "final: " + ", ".join(f"{p} {n}" for p, n in ranked)
        return line + (f"; {v.winner} wins" if v.winner else "; no winner: the game was ended early")
    return f"note at {v.at:.2f} s: {v.text}"
