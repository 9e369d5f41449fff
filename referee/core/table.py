"""The live table: what the referee does with what it hears.

A :class:`Table` takes the hearing layer's events (:class:`Utterance` and
:class:`Heard`) and typed input, turns them into game events at the edge
(a card named on the dealer's mic is a deal that began when the dealer began
to speak; a card named on a player's mic is a call), journals every
happening before judging it, feeds the judge, and journals, announces, shows
and prints every verdict. Its devices are constructor arguments: a speaker
(anything with ``say`` and ``echo``), a journal (anything with ``append``), a
JSON sink and a screen, so a test can pass a WAV sink and files. Its settings are a
:class:`~referee.core.table_options.TableOptions`.

It never reads a clock: "now" is the furthest the microphones have heard.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, TextIO

from referee.core.announce import Announcer, deal_sentence, sentence
from referee.core.cards import Card, DealtTwice
from referee.core.deck import DealTimer, VirtualDeck  # noqa: F401 - VirtualDeck: part of this module's API
from referee.core.events import (Asked, Call, Command, Deal, GameStart, Heard, Shout, Unattributed,
                                 Utterance, UtteranceKind, command_name)
from referee.core.games import goop, gops, gops_talk, make_game, soccer_talk, stroop, swoop, swoop_talk
from referee.core.games.goop_count import CountDialogue
from referee.core.games.gops_events import GopsPaused
from referee.core.games.soccer_events import SoccerPaused
from referee.core.games.swoop_events import Paused as SwoopPaused
from referee.core.games.turns import Say
from referee.core.journal import SUMMARY_TYPES, dumps, encode, encode_verdict
from referee.core.judge import Judge, LateReport
from referee.core.mics import MicChange, MicsOut, mic_words
from referee.core.rehear import Reheard
from referee.core.spoken import spoken_name
from referee.core.standing import score_sentence, standing, state
from referee.core.table_options import TableOptions
from referee.core.table_resume import Resumed
from referee.core.table_typed import KEYBOARD, TypedInput
from referee.core.unclear_deal import UnclearDeal, dealer_card

#: The stream of deals the referee makes itself.
DECK = "deck"
DEALER = "dealer"
#: One microphone for the whole table (Swoop: whose turn it is tells who spoke).
TABLE = "table"
#: Seconds: a call before the first deal is told "waiting for the dealer" at most this often.
WAITING_AGAIN = 3.0
#: The verdicts of "pause" and "resume", in every game that has them.
PAUSED = (stroop.Paused, SwoopPaused, GopsPaused, SoccerPaused)


class Table(TypedInput, Resumed):
    """Runs one game at the table. Feed it with :meth:`hear` and :meth:`type`;
    call :meth:`finish` at the end."""

    def __init__(
        self,
        start: GameStart,
        channels: list[str],
        *,
        speaker: Any = None,
        journal: Any = None,
        json_out: TextIO | None = None,
        screen: Any = None,
        announcer: Announcer | None = None,
        deck: VirtualDeck | None = None,
        options: TableOptions | None = None,
        history: list | None = None,
        write_start: bool = True,
        new_game: Any = None,
        reseat: Any = None,
    ) -> None:
        """``channels`` names each listening stream: ``'dealer'`` or a player.
        ``history`` holds happenings of a resumed game, replayed silently.
        ``write_start``: journal the game line (False when the caller did).
        ``new_game``: called for the "new game" command, returns the new game's
        journal (its game line written) and virtual deck (or None); without it
        "new game" only ends the game. ``reseat``: called for the "seats" command, learns
        the seats of a mic array or the voices at one mic again (the game as it stands);
        without it the table says there are none to learn."""
        self.start = start
        self.game = make_game(start)
        self.channels = list(channels)
        for c in self.channels:
            if c not in (DEALER, TABLE) and c not in start.players:
                raise ValueError(f"channel {c!r} is neither 'dealer' nor a player ({', '.join(start.players)})")
        self.judge = Judge(self.game, self.channels + [DECK, KEYBOARD])
        self.speaker = speaker
        self.journal = journal
        self.json_out = json_out
        self.screen = screen
        self.announcer = announcer or Announcer()
        self.deck = deck
        self.new_game = new_game
        self.reseat = reseat
        self.options = options or TableOptions()
        self.now = self.options.offset
        """Seconds: the furthest every microphone has heard."""
        self.last_said: str | None = None
        self.last_heard: dict[str, str] = {}
        self.verdicts: list = []
        self.over = False
        self.timer = DealTimer(self.options.deal_pause, self.options.round_timeout)
        """When the virtual deck deals next."""
        self._mic_heard = {c: float("-inf") for c in self.channels}
        self.dialogue: CountDialogue | None = None
        """Goop's end-of-hand count, while it is on."""
        self._last_voice = self.options.offset
        self._told_waiting = float("-inf")
        self._reminded = False
        self.prompter = soccer_talk.Prompter(self.options.reask) if start.game == "soccer" else None
        self.misheard = swoop_talk.Misheard(self.options.table_talk) if start.game == "swoop" else None
        self.dropped: list[Utterance] = []
        """Utterances dropped as the referee's own voice."""
        self.dealt: set[Card] = set()
        """Cards dealt in this game (the judge may still hold a deal the game has not seen)."""
        self.talk = self._gops_talk()
        """GOPS: reading bids and prizes, asking for missing ones."""
        self.unclear = UnclearDeal() if start.game == "stroop" and deck is None \
            and DEALER in self.channels else None
        """Stroop with a dealer's mic: a deal it did not read, asked for again."""
        self.mics_out = MicsOut()
        """Which mics' devices are lost, and were, for the races they might have joined."""
        self._race_from = self.options.offset   # the open race (Stroop round, Goop hand) began
        rehear = bool(history) and self.options.rehear is not None
        self.reheard = Reheard(history, self.channels, self.game.time_key) if rehear else None
        if history:
            self._replay(history)
            if self.talk is not None:
                self.talk.resume(history, self.now)
        elif journal is not None and write_start:
            journal.append(encode(start))
        if deck is not None and not self.over:
            settle = self.options.settle if history and self.reheard is None else 0.0
            open_round = getattr(self.game, "phase", None) in (stroop.OPEN, stroop.RACING)
            if history and isinstance(self.game, stroop.StroopGame) and open_round and self.reheard is None:
                self.timer.dealt(self.now + settle)     # the open round goes on after the settle time
            else:
                self.timer.start(self.now + settle)

    # --- Input --------------------------------------------------------------
    def _echo(self, kind: str, said: str, start: float, end: float) -> bool:
        """Whether what was heard from ``start`` to ``end`` is the referee's own voice."""
        return bool(self.options.hears_itself and kind != "shout" and self.speaker is not None
                    and getattr(self.speaker, "echo", None)
                    and self.speaker.echo(said, start, end) is not None)

    def hear(self, event: Utterance | Heard | MicChange | Unattributed) -> None:
        """One event from the listener."""
        if isinstance(event, Heard):
            self._heard(event.stream, event.upto + self.options.offset)
            return
        if isinstance(event, MicChange):
            self._mic_change(event)
            return
        if isinstance(event, Unattributed):     # one mic: whose voice is not known
            at = round(event.end + self.options.offset, 6)
            # the referee's own voice is nobody's enrolled voice: no "Who was that?" for it
            if self._echo(event.kind, event.said, round(event.start + self.options.offset, 6), at):
                self._note(f"dropped {event.said!r}: the referee's own voice")
                return
            text = f"not counted: {event.said!r} at {at:.3f} s: {event.doubt()}"
            if not (self.reheard and self.reheard.noted(text)):     # not heard again on resume
                self._note(text)
                self._say(sentence("who-was-that"), at=at, urgent=True)
            return
        u = event
        # Whole microseconds: the journal then holds exactly the times judged.
        start = round(u.start + self.options.offset, 6)
        end = round(u.end + self.options.offset, 6)
        stream = u.player or DEALER
        if stream not in self.channels or self.reheard and self.reheard.heard_before(stream, start):
            return
        # A shout is never taken for the referee's echo: the referee says "Goop!" only once
        # a hand is over, when a shout changes nothing but is still worth journaling (the
        # loser of a shout race). Cards and commands it says are dropped when they echo.
        if self._echo(u.kind, u.said, start, end):
            self.dropped.append(u)
            self._note(f"dropped {u.said!r} on {stream}'s mic: the referee's own voice")
            return
        self.last_heard[stream] = u.said
        self._last_voice, self._reminded = end, False
        if self.dialogue is not None and (u.kind == "number" or self.start.game == "swoop"
                                          and u.kind == "call" and swoop_talk.read_report(u.said)):
            self._dialogue(self.dialogue.heard(None if stream in (DEALER, TABLE) else stream, u.said, end))
            return
        if u.kind in ("bid", "prize") and self.talk is not None:
            mic = None if stream in (DEALER, TABLE) else stream
            self._dialogue(self.talk.heard(self.game, mic, u.said, end))
            if self.screen is not None:
                self.screen.update(self)
            return
        happening = self._happening(u.kind, u.said, start, end, stream, u.heard_elsewhere)
        if isinstance(happening, Call) and self.unclear is not None and not self.paused:
            self.unclear.called(start, end)     # maybe for a card the dealer's mic did not hear
        if happening is not None:
            self._push(stream, happening)
        elif stream == DEALER and self.unclear is not None and u.kind != UtteranceKind.CALL \
                and not self.paused and not self.over:
            self.unclear.heard(u.said, start, end, self._race_from if self.dealt else None,
                               self._mic_heard[DEALER])
        # no play (Swoop): asked again, unless heard over the referee's voice (maybe that voice)
        elif self.misheard is not None and self.dialogue is None and not self.over and not (
                self.options.hears_itself and getattr(self.speaker, "speaking", lambda a, b: False)(start, end)):
            again = self.misheard.heard(self.game, None if stream in (DEALER, TABLE) else stream,
                                        u.kind, u.said, end)
            if again:
                self._say(again, at=end)
        if self.screen is not None:
            self.screen.update(self)

    def finish(self) -> None:
        """End of input: settle what is open and end the game."""
        if not self.over:
            self._emit(self.judge.finish())
        self.over = True

    # --- Turning heard words into game events ------------------------------------
    def _happening(self, kind: str, said: str, start: float, end: float, stream: str,
                   elsewhere: tuple[str, ...] = ()):
        if kind == "command":
            name = command_name(said)
            return Command(name, end, None if stream in (DEALER, TABLE) else stream) if name else None
        if self.start.game == "stroop":
            if kind not in (UtteranceKind.CALL, UtteranceKind.PARTIAL):  # a partial call is a miscall
                return None
            if stream == DEALER:
                card, why = dealer_card(said, kind == UtteranceKind.CALL, elsewhere, self.dealt)
                if why:
                    self._note(why)
                if card in self.dealt:      # one deck: not dealt, and the dealer is told
                    self._note(f"not dealt: {DealtTwice(card)}")
                    self._say(sentence("dealt-again"), at=end, urgent=True)
                    if self.unclear is not None:
                        self.unclear.dealt_twice()
                    return None
                # The round starts when the dealer begins to speak. The recogniser's start
                # can precede what the dealer's mic already promised (its watermark) by a
                # few tens of ms: the deal is then timed at that promise, not dropped.
                at = max(start, self._mic_heard.get(DEALER, start))
                return Deal(card, at) if card is not None else None
            return Call(stream, said, start, end)
        if self.start.game == "soccer" and kind in ("call", "play"):
            self.prompter.heard(end)
            mic = None if stream in (DEALER, TABLE) else stream
            return soccer_talk.read(self.game, said, mic, end)
        if self.start.game == "goop" and kind == "shout" and stream != DEALER:
            return Shout(stream, said, start, end)
        if self.start.game == "swoop" and kind == "call":
            return swoop_talk.happening(said, "" if stream in (DEALER, TABLE) else stream, end)
        return None

    def _push(self, stream: str, happening: Any) -> None:
        if isinstance(happening, Deal) and happening.card in self.dealt:
            self._note(f"not dealt: {DealtTwice(happening.card)}")     # one deck: never fed twice
            return
        if stream == KEYBOARD:
            happening = self._in_typed_order(happening)
        if isinstance(happening, Deal) and self.unclear is not None:
            happening = replace(happening, at=self.unclear.deal_at(happening.card, happening.at))
        try:
            verdicts = self.judge.push(stream, happening)
        except LateReport as e:
            # The hearing layer broke its watermark promise: say so, do not crash.
            self._note(f"not judged: {e}")
            return
        if isinstance(happening, Deal):
            self.dealt.add(happening.card)
            self._race_from = happening.at
            if self.unclear is not None:
                self.unclear.dealt(happening.at)
        # Journaled before any of the verdicts it brings.
        if self.journal is not None:
            self.journal.append(encode(happening))
        self._emit(verdicts)

    def _mic_change(self, c: MicChange) -> None:
        """A mic's device lost or back: said at once, noted in the journal."""
        at = round(c.at + self.options.offset, 6)
        if c.stream not in self.channels or not self.mics_out.change(MicChange(c.stream, c.lost, at, c.why)):
            return
        what = ("lost" if c.lost else "found" if c.at_start else "back") + f" at {at:.3f} s"
        if c.at_start and c.lost:
            what = "not there at the start"
        self._note(f"{c.stream}'s microphone {what}" + (f": {c.why}" if c.why else ""))
        name = ("mic-absent" if c.lost else "mic-found") if c.at_start else ("mic-lost" if c.lost else "mic-back")
        mic = mic_words(c.stream)
        self._say(sentence(name, mic=mic[0].upper() + mic[1:] if name == "mic-absent" else mic),
                  at=self.now, urgent=True, cuts_scores=False)

    def _race_without(self, v) -> None:
        """After a race is decided: name each player whose mic was out while it ran."""
        for p in self.mics_out.missed_race(v, self._race_from, self.now, self.start.players):
            self._note(f"{p}'s microphone was out during this race")
            self._say(sentence("race-without-mic", player=spoken_name(p)), at=self.now)

    def _heard(self, stream: str, upto: float) -> None:
        if stream not in self.channels:
            return
        if stream == DEALER and self.unclear is not None:
            if self.unclear.ask_now(upto):
                self._ask_dealer("deal-unclear", self.unclear.held_from, upto,
                                 f"the dealer's {self.unclear.words!r} from "
                                 f"{self.unclear.held_from:.3f} s is no card: asked again; the race waits for it")
            missed = self.unclear.ask_missed(upto)
            if missed is not None:
                self._ask_dealer("deal-missed", missed, upto, f"a call ending at {missed:.3f} s, "
                                 f"{self.unclear.missed_after:g} s or more after the last round was "
                                 "decided, and no card heard: the dealer asked for it")
            upto = self.unclear.mark(upto)
        self._mic_heard[stream] = max(self._mic_heard[stream], upto)
        self._emit(self.judge.heard(stream, upto))
        now = min(self._mic_heard.values())
        if now >= self.now:
            self.now = now
            # Nothing typed or dealt by the referee can be earlier than now.
            self._emit(self.judge.heard(KEYBOARD, now))
            if self.deck is not None:
                # What happened before now is judged first: a pause, or a win, stops this deal.
                self._emit(self.judge.heard(DECK, now - 1e-6))
            self._deal_if_due()
            self._emit(self.judge.heard(DECK, now))
            if not self.paused:       # paused: no timers
                self._tick(now)
        if self.screen is not None:
            self.screen.update(self)

    def _tick(self, now: float) -> None:
        """The timers: the count's questions, GOPS's prompts, reminders."""
        if self.dialogue is not None:
            self._dialogue(self.dialogue.tick(now))
        if self.talk is not None and not self.over:
            self._dialogue(self.talk.tick(self.game, now))
        self._remind_if_locked()
        if self.prompter is not None and not self.over:
            again = self.prompter.tick(self.game, now)
            if again:
                self._say(again, at=now)

    @property
    def listening_for(self) -> frozenset[str] | None:
        """The phrase kinds the game wants heard now (Swoop: no totals in play); None: all."""
        return getattr(self.game, "listening_for", None)

    @property
    def paused(self) -> bool:
        """The game is paused: no dealing, no timers, no verdicts until it resumes."""
        game = self.game
        return bool(getattr(game, "paused", False) or getattr(getattr(game, "s", None), "paused", False))

    def _deal_if_due(self) -> None:
        if self.deck is None or self.over or not self.timer.due(self.now, self.paused):
            return
        self.timer.dealt(self.now)
        if self.reheard is not None and self.reheard.deals:
            self.reheard.deals -= 1     # heard again: the deal the journal holds, made here
            return
        card = self.deck.draw(skip=self.dealt)
        if card is None:
            self.finish()
            return
        self._say(deal_sentence(card), at=self.now, urgent=True, cuts_scores=False)  # a score goes on
        self._push(DECK, Deal(card, self.now))

    def _resumed(self, at: float) -> None:
        """The game goes on after a pause at ``at``: every timer starts afresh."""
        self.timer.resumed(at)
        self._last_voice = at
        if self.dialogue is not None and hasattr(self.dialogue, "asked_at"):
            self.dialogue.asked_at = at
        if self.prompter is not None:
            self.prompter.heard(at)

    def _dialogue(self, outputs: list) -> None:
        for o in outputs:
            if isinstance(o, Say):
                self._say(o.text, at=o.at)
            else:
                self._push(KEYBOARD, o)   # timed at or after now: see hear()

    def _remind_if_locked(self) -> None:
        if (self.options.lock_reminder and not self._reminded and self.start.game == "goop"
                and len(self.start.players) == 3 and self.dialogue is None and not self.over
                and self.now - self._last_voice >= self.options.lock_reminder):
            self._reminded = True
            self._say(sentence("lock-reminder"), at=self.now)

    def _shell_command(self, name: str) -> None:
        if name == "score":
            self._say(score_sentence(self.game), at=self.now)
        elif name == "repeat":      # where the game stands, not only the last sentence
            self._say(" ".join(state(self.game, self.dialogue, dealer=self.deck is None)), at=self.now)
        elif name == "seats":
            if self.reseat is None:
                self._say(sentence("nothing-to-learn"), at=self.now)
            else:
                self.reseat()
        elif name == "new-game":
            self._note("new game asked for: this game ends here")
            self.finish()
            if self.new_game is not None:
                self._restart()

    def _restart(self) -> None:
        """A new game with the same players and rules, in a journal of its own."""
        if self.journal is not None and hasattr(self.journal, "close"):
            self.journal.close()
        self.journal, deck = self.new_game()
        self.game = make_game(self.start)
        self.judge = Judge(self.game, self.channels + [DECK, KEYBOARD])
        for s in self.channels + [DECK, KEYBOARD]:
            self.judge.heard(s, self.now)
        self.announcer = Announcer(self.announcer.verbosity, self.announcer.scores_every)
        self.over = False
        self.dialogue = None
        self.talk = self._gops_talk()
        self.last_heard = {}
        self.dealt = set()
        self.deck = deck
        self._say(sentence("new-game"), at=self.now, urgent=True)
        self.timer.ended()
        if deck is not None:
            self.timer.start(self.now + self.options.deal_pause)

    def _gops_talk(self) -> gops_talk.GopsTalk | None:
        if not isinstance(self.game, gops.GopsGame):
            return None
        return gops_talk.GopsTalk(self.start.players, self.game.setup, self.game.options.virtual_prizes,
                                  self.options.prize_seed, self.options.deal_pause,
                                  self.options.bid_question)

    def standing(self) -> list[str]:
        """Sentences that say where the game stands (for a resumed game)."""
        return standing(self.game, self.dialogue)

    # --- Verdicts out ---------------------------------------------------------------
    def _emit(self, verdicts: list) -> None:
        for v in verdicts:
            self.verdicts.append(v)
            obj = encode_verdict(v)
            again = self.reheard is not None and self.reheard.already(dumps(obj))  # said before
            if self.journal is not None and not again:
                self.journal.append(obj)
            if self.json_out is not None and obj["type"] in SUMMARY_TYPES and not again:
                print(dumps(obj), file=self.json_out, flush=True)
            if isinstance(v, Asked):
                self._shell_command(v.command.name)
            for line in [] if again else self.announcer.lines(v):  # a score may be dropped for what is urgent
                self._say(line.text, at=self.now, urgent=obj["type"] in SUMMARY_TYPES and not line.score,
                          droppable=line.score)
            if isinstance(v, stroop.RoundOver) and v.outcome in (
                    stroop.RoundOutcome.WON, stroop.RoundOutcome.DRAW) and self.deck is not None:
                self.timer.decided(self.now)
            if isinstance(v, stroop.Undone) and v.reopened:
                self.timer.reopened(self.now)
            if self.unclear is not None:
                self.unclear.verdict(v, self.now)
            if isinstance(v, stroop.CallJudged) and v.reason == stroop.NOT_DEALT and self.deck is None \
                    and v.call.end - self._told_waiting >= WAITING_AGAIN:
                self._told_waiting = v.call.end     # why the call does not count (once for a burst)
                self._say(sentence("waiting-for-dealer"), at=self.now)
            if isinstance(v, PAUSED) and not v.paused:
                self._resumed(v.at)
            if isinstance(v, goop.Gooped):
                self.dialogue = CountDialogue(self.start.players, self.now, self.options.confirm)
                self._dialogue(self.dialogue.opening)
            if isinstance(v, goop.HandOver):
                self.dialogue = None
                self._race_from = self.now
            self._race_without(v)
            if isinstance(v, swoop.WentOut):
                self.dialogue = swoop_talk.ReportDialogue(v.to_report, self.now, self.options.confirm)
                self._dialogue(self.dialogue.opening)
            if isinstance(v, (swoop.RoundScored, swoop.Undone)) and not isinstance(self.dialogue, CountDialogue):
                self.dialogue = None
            if self.talk is not None:
                self._dialogue(self.talk.verdict(self.game, v, self.now))
            if obj["type"] == "final":
                self.over = True
            if self.prompter is not None:
                self.prompter.heard(self.now)
        if verdicts and self.screen is not None:
            self.screen.update(self)

    def _say(self, text: str, at: float, urgent: bool = False, droppable: bool = False,
             cuts_scores: bool = True) -> None:
        self.last_said = f"{self.last_said} {text}" if droppable and self.last_said else text  # + its verdict
        if self.speaker is not None:
            self.speaker.say(text, urgent=urgent, at=at, droppable=droppable, cuts_scores=cuts_scores)

    def _note(self, text: str, **fields) -> None:
        if self.journal is not None:
            self.journal.append({"type": "note", "at": self.now, "text": text, **fields})

    def _ask_dealer(self, question: str, about: float, at: float, text: str) -> None:
        """Asks the dealer for a card (``question``: a sentence's name), noted with that name
        and ``about``, when what made it ask began (unclear words) or ended (a call)."""
        self._note(text, asked=question, about=round(about, 6))
        self._say(sentence(question), at=at, urgent=True)
