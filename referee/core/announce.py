"""What the referee says aloud: every sentence, from one table of templates.

A verdict is heard once, over table noise, by people holding cards, so each
sentence is short, has a verb and leads with the winner. Names are spoken
capitalised; numbers are written as words where espeak-ng would misread the
digits (a score of -2 is "minus two"). "By a hair" is said only of a race
that was really won, and really close.

Pure: verdicts in, sentences out. Which verdicts are spoken depends on the
verbosity: ``terse`` (only who won, in the fewest words, and the end),
``quiet`` (wins, forfeits, draws, the end), ``normal`` (also undo, pause) or
``verbose`` (also every miscall and reset). The running score is its own
utterance (a :class:`Line` with ``score`` set), said every ``scores_every``
rounds, so that the speaker can drop or cut it when a verdict or the next
card is ready (docs/announcements.md).

``python -m referee.core.announce --sentences`` prints the list of every sentence
(docs/sentences.md is that output).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, Mapping

from referee.core.games import goop, gops_events, soccer_talk, stroop, swoop_words
from referee.core.clock import ms
from referee.core.numbers import spoken_number
from referee.core.spoken import amount_words, spoken_name, spoken_names

VERBOSITY = ("terse", "quiet", "normal", "verbose")

#: Every sentence the referee can say in Stroop and Goop: name -> template. The fields are filled
#: with spoken text (names capitalised, numbers in words); see :data:`SAMPLES`.
TEMPLATES = {
    # Stroop
    "deal": "{card}.",
    "win": "{winner} wins {cards}.",
    "win-terse": "{winner} wins.",
    "draw-terse": "{players} tie.",
    "win-began-first": "{winner} wins {cards}: {winner} began {margin} milliseconds sooner.",
    "won-by-a-hair": "{winner} won by a hair: {rival} was {margin} milliseconds later.",
    "draw": "{players} tie! The cards stay.",
    "forfeit": "{winner} takes {cards}: {loser} miscalled.",
    "out": "{player} is out this round.",
    "all-back": "Everyone missed: all players are back in.",
    "nothing-to-undo": "There is nothing to undo.",
    "draw-undone": "The draw is undone.",
    "undone": "{player} gives back {cards}.",
    "undone-open": "{player} gives back {cards}. The round is open again.",
    "paused": "The game is paused.",
    "resumed": "The game goes on.",
    "game-won": "Game over. {winner} wins with {amount}.",
    "game-tied": "Game over. {players} tie with {amount}.",
    "dealt-again": "That card was already dealt. Say the card again.",
    "deal-unclear": "Dealer, I did not catch the card. Say it again.",
    "deal-missed": "I missed the card. Dealer, say it again, then call again.",
    "already-dealt": "The {top_card} was already dealt.",
    "top-card": "Round {round} is on: the top card is the {top_card}.",
    "state-top-card": "The top card is the {top_card}.",
    "waiting-for-dealer": "Waiting for the dealer: name the card, or type it.",
    # Both games
    "scores": "{standings}.",
    "new-game": "A new game starts.",
    # Every game: a microphone's device lost and back (core/mics.py)
    "mic-lost": "Lost {mic}. Trying to get it back.",
    "mic-back": "Listening again on {mic}.",
    "mic-absent": "{mic} is not there. Starting without it.",
    "mic-found": "Listening on {mic} now.",
    "race-without-mic": "{player}'s microphone was out: {player} may have called.",
    # One mic for the table (issue 29, mode 2): a call whose voice is not told apart
    "who-was-that": "Who was that? Say it again.",
    # Goop
    "gooped": "{player} gooped!",
    "gooped-began-first": "{player} gooped! {player} began {margin} milliseconds sooner.",
    "gooped-together": "{players} gooped together!",
    "false-goop": "{players} made a false Goop!",
    "goop-won": "Game over. {winner} wins with {points}.",
    "top-tied": "{players} tie at the top: play one more hand.",
    "pick-decks": "Pick decks: {order}. {player} says go.",
    "goop-ended-tied": "The game ends with {players} tied at the top.",
    "goop-ended-early": "The game ends before anyone won.",
    "count-start": "Count! {question}",
    "ask-centre": "{player}, how many of your cards are in the centre?",
    "ask-left": "{player}, how many cards are left in your Goop pile?",
    "out-of-range": "That can't be: say zero to {top}. {question}",
    "read-back-centre": "{player}: {number} in the centre.",
    "read-back-left": "{player}: {number} left.",
    "lock-reminder": "All quiet. If nobody can play, shuffle your decks and deal three.",
    # One mic array for the table (--array): learning the seats
    "seat-ask": "{player}, please say: {player} here.",
    "seat-unheard": "{player}, I did not hear you. Please say: {player} here.",
    "seats-too-close": "{players}, I cannot tell your seats apart. One of you please take another seat, then say your names again.",
    "seats-learnt": "Seats learnt.",
    "seats-alike": "Seats learnt, but {players} I still cannot tell apart: a call of one may count for the other. Say: referee seats, to try again.",
    "seats-kept": "The seats stay as they were.",
    # "referee seats" without a live array or one live mic
    "nothing-to-learn": "There are no seats or voices to learn with these microphones.",
    # One mic for the table (--one-mic): learning the voices
    "voice-ask": "{player}, please say: {player} here. Then name any {cards}, with a pause after each.",
    "voice-unheard": "{player}, I did not hear enough of your voice. Please say: {player} here. Then name any {cards}.",
    "voices-learnt": "Voices learnt.",
    "voices-kept": "The voices stay as they were.",
    # Swoop
    "say-again": "Say that again.",
}

#: Sample fields for every template: the sentence list and the speech test use them.
SAMPLES = {
    "card": "Queen of hearts", "winner": "Ann", "rival": "Bob", "loser": "Bob",
    "player": "Ann", "players": "Ann and Bob", "cards": "two cards",
    "margin": "sixty", "amount": "twelve cards", "standings": "Bob has five, Ann has minus two",
    "order": "Cai first, then Bob, then Ann", "question": "Ann, how many cards are left in your Goop pile?",
    "top": "thirteen", "number": "twelve", "round": "three", "top_card": "queen of hearts",
    "points": "one hundred and four points", "mic": "Bob's microphone",
}


def sentence(name: str, **fields: str) -> str:
    """The sentence of template ``name`` with its fields filled."""
    return TEMPLATES[name].format(**fields)


def _cards(n: int) -> str:
    return f"{spoken_number(n)} card" + ("" if n == 1 else "s")


def scores_sentence(scores: Mapping[str, int], unit: str = "") -> str:
    """``'Bob has five, Ann has three.'``: highest first, in seat order on ties."""
    order = list(scores)
    ranked = sorted(scores.items(), key=lambda kv: (-kv[1], order.index(kv[0])))
    parts = [f"{spoken_name(p)} has " + (amount_words(n, unit) if unit else spoken_number(n)) for p, n in ranked]
    return sentence("scores", standings=", ".join(parts))


def deal_sentence(card) -> str:
    return sentence("deal", card=card.spoken.capitalize())


def top_card_sentence(round_: int, card) -> str:
    return sentence("top-card", round=spoken_number(round_), top_card=card.spoken)


def question_sentence(player: str, field: str) -> str:
    """The count dialogue's question to ``player`` about ``field``."""
    return sentence("ask-centre" if field == "centre" else "ask-left", player=spoken_name(player))


@dataclass(frozen=True)
class Line:
    """One utterance about a verdict. ``score``: a running-score readout, which
    may be dropped or cut short when something urgent is to be said."""

    text: str
    score: bool = False


@dataclass
class Announcer:
    """Turns verdicts into sentences to speak, and counts rounds for the
    score announcements every ``scores_every`` rounds (0: never; None: the
    verbosity's default, never when ``terse``, else every round)."""

    verbosity: str = "normal"
    scores_every: int | None = None
    hair: float = 0.3
    """Seconds: a qualifying call this late after a winning call makes the
    win "by a hair", and the referee says so."""

    def __post_init__(self) -> None:
        if self.verbosity not in VERBOSITY:
            raise ValueError(f"verbosity must be one of {', '.join(VERBOSITY)}, not {self.verbosity!r}")
        if self.scores_every is None:
            self.scores_every = 0 if self.verbosity == "terse" else 1
        if self.scores_every < 0:
            raise ValueError(f"scores_every must be 0 or more, not {self.scores_every}")
        self._decided = 0
        self._haired: set[int] = set()

    def say(self, verdict: Any) -> str | None:
        """What is said of a verdict as one string, or None when nothing is."""
        return " ".join(line.text for line in self.lines(verdict)) or None

    def lines(self, verdict: Any) -> list[Line]:
        """The utterances for a verdict, in order: the verdict's sentence, then
        the running score when it is due; empty when nothing is said."""
        v = verdict
        if isinstance(v, stroop.RoundOver):
            if v.outcome == stroop.RoundOutcome.UNWON:
                return []
            self._decided += 1
            lines = [Line(self._round(v))]
            if self.scores_every and self._decided % self.scores_every == 0:
                lines.append(Line(scores_sentence(v.scores), score=True))
            return lines
        text = self._sentence(v)
        return [Line(text)] if text else []

    def _sentence(self, v: Any) -> str | None:
        if isinstance(v, swoop_words.VERDICTS):
            return swoop_words.sentence(v, self.verbosity)
        soccer = soccer_talk.sentence(v)
        if soccer is not None:
            return soccer
        verbose = self.verbosity == "verbose"
        normal = self.verbosity in ("normal", "verbose")
        if isinstance(v, stroop.CallJudged):
            return self._late(v) if self.verbosity != "terse" else None
        if isinstance(v, stroop.PlayerOut):
            return sentence("out", player=spoken_name(v.player)) if verbose else None
        if isinstance(v, stroop.AllActive):
            return sentence("all-back") if verbose else None
        if isinstance(v, stroop.Undone):
            return self._undone(v) if normal else None
        if isinstance(v, stroop.Paused):
            return sentence("paused" if v.paused else "resumed") if normal else None
        if isinstance(v, stroop.GameOver):
            return self._game_over(v.scores, "card")
        if isinstance(v, goop.Gooped):
            return self._gooped(v)
        if isinstance(v, goop.HandOver):
            return self._hand(v)
        if isinstance(v, gops_events.VERDICTS):
            from referee.core.games import gops_talk   # (imports scores_sentence from here)
            if isinstance(v, gops_events.PrizeWon):
                self._decided += 1
            return gops_talk.sentence(v, bool(self.scores_every) and self._decided % max(self.scores_every, 1) == 0)
        if isinstance(v, goop.GoopOver):
            return None if v.winner else self._goop_ended(v)
        return None

    def _late(self, v: stroop.CallJudged) -> str | None:
        """A qualifying call just after a real win: say the win was by a hair."""
        if v.late_by is None or v.late_by > self.hair or v.round in self._haired:
            return None
        self._haired.add(v.round)
        assert v.late_to is not None
        return sentence("won-by-a-hair", winner=spoken_name(v.late_to), rival=spoken_name(v.call.player),
                        margin=spoken_number(round(v.late_by * 1000)))

    def _round(self, v: stroop.RoundOver) -> str:
        terse = self.verbosity == "terse"
        if v.outcome == stroop.RoundOutcome.DRAW:
            return sentence("draw-terse" if terse else "draw", players=spoken_names(v.tied))
        assert v.winner is not None
        winner, cards = spoken_name(v.winner), _cards(v.pile)
        if terse:
            return sentence("win-terse", winner=winner)
        if v.decided_by == stroop.DecidedBy.FORFEIT:
            loser = spoken_name(v.miscall.player) if v.miscall else "The other player"
            return sentence("forfeit", winner=winner, cards=cards, loser=loser)
        if v.decided_by == stroop.DecidedBy.BEGINNING and v.margin_us is not None:
            return sentence("win-began-first", winner=winner, cards=cards,
                            margin=spoken_number(ms(v.margin_us)))
        return sentence("win", winner=winner, cards=cards)

    @staticmethod
    def _undone(v: stroop.Undone) -> str:
        if v.round is None:
            return sentence("nothing-to-undo")
        if v.winner is None:
            return sentence("draw-undone")
        return sentence("undone-open" if v.reopened else "undone", player=spoken_name(v.winner),
                        cards=_cards(v.cards))

    @staticmethod
    def _gooped(v: goop.Gooped) -> str:
        if len(v.goopers) > 1:
            return sentence("gooped-together", players=spoken_names(v.goopers))
        if v.decided_by == "beginning" and v.margin_us is not None:
            return sentence("gooped-began-first", player=spoken_name(v.goopers[0]),
                            margin=spoken_number(ms(v.margin_us)))
        return sentence("gooped", player=spoken_name(v.goopers[0]))

    def _hand(self, v: goop.HandOver) -> str:
        parts = []
        if v.false_goop:
            parts.append(sentence("false-goop", players=spoken_names(v.false_goop)))
        parts.append(scores_sentence(v.totals))
        if v.game_over:
            best = max(v.totals.values())
            winner = next(p for p, n in v.totals.items() if n == best)
            parts.append(sentence("goop-won", winner=spoken_name(winner), points=amount_words(best, "point")))
            return " ".join(parts)
        if v.tied_at_top:
            parts.append(sentence("top-tied", players=spoken_names(v.tied_at_top)))
        order = [spoken_name(p) for p in v.pick_order]
        parts.append(sentence("pick-decks", order=", then ".join([order[0] + " first", *order[1:]]),
                              player=spoken_name(v.says_go)))
        return " ".join(parts)

    @staticmethod
    def _goop_ended(v: goop.GoopOver) -> str:
        best = max(v.totals.values())
        top = [p for p, n in v.totals.items() if n == best]
        head = (sentence("goop-ended-tied", players=spoken_names(top)) if len(top) > 1
                else sentence("goop-ended-early"))
        return head + " " + scores_sentence(v.totals)

    @staticmethod
    def _game_over(scores: Mapping[str, int], unit: str) -> str:
        best = max(scores.values())
        leaders = [p for p, n in scores.items() if n == best]
        amount = amount_words(best, unit) + ("" if len(leaders) == 1 else " each")
        head = (sentence("game-won", winner=spoken_name(leaders[0]), amount=amount) if len(leaders) == 1
                else sentence("game-tied", players=spoken_names(leaders), amount=amount))
        others = {p: n for p, n in scores.items() if p not in leaders}
        return head + (" " + scores_sentence(others) if others else "")


def sentence_list() -> str:
    """docs/sentences.md: every template and the sentence it makes with :data:`SAMPLES`."""
    lines = [
        "<!-- Generated by `python -m referee.core.announce --sentences > docs/sentences.md`;"
        " tests/voice/test_sentences.py fails when it drifts from referee/core/announce.py. -->",
        "# Every sentence the referee can say in Stroop and Goop",
        "",
        "Each line: the template's name, the template (fields in braces), and an example.",
        "Names are spoken capitalised; numbers are written as words. Swoop, GOPS and soccer"
        " make most of their sentences in `referee/core/games/swoop_words.py`, `gops_talk.py`"
        " and `soccer_talk.py`; the new-game line and GOPS's game-over line come from here.",
        "",
        "| name | template | example |",
        "|---|---|---|",
    ]
    for name, template in TEMPLATES.items():
        lines.append(f"| {name} | {template} | {sentence(name, **SAMPLES)} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    if sys.argv[1:] != ["--sentences"]:
        print("usage: python -m referee.core.announce --sentences", file=sys.stderr)
        raise SystemExit(2)
    sys.stdout.write(sentence_list())
