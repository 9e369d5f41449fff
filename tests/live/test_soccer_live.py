"""End to end through the real audio server (issue 28): two rounds of the soccer card game
spoken by espeak-ng voices into ONE shared microphone (the ``mic1`` null sink), refereed by a
``referee play soccer --names table`` subprocess with the real PocketSphinx; its voice
goes to the ``speaker`` sink and is recorded there. Each player speaks once the referee has
answered the play before (as players at a table would). Should the recogniser miss a play,
the player types it; should it hear another play, the player types "undo" and then the play,
as at a table (``typed`` says so); the test allows one.

Asserted: the goals, a block by each of the four methods, the penalty kick, the spoken
verdicts heard on the output sink, and the journal replaying to what was printed live."""

from __future__ import annotations

import time

import pytest

from live_game import RATE, Referee, journal_lines, replay_json, speech_spans, voice_wav
from soccer_script import PLAYS, check_decisions

#: typed forms of the plays, for a play the recogniser missed
TYPED = {
    "block with five of diamonds": "block 5D", "penalty queen of hearts": "penalty QH",
    "nine of hearts and two of hearts": "block 9H 2H", "four of clubs and two of spades": "block 4C 2S",
    "ten of spades and king of spades": "block 10S KS", "no block": "no block",
    "no penalty": "no penalty",
}


def typed_form(text: str) -> str:
    from referee.core.cards import Card
    return TYPED.get(text) or str(Card.parse(text))


def answers(ref) -> list:
    """What the referee said in answer to plays (not its "Still waiting" reminders)."""
    return [a for a in ref.announcements() if not a[1].startswith("Still waiting")]


def cards_of(line: dict) -> list[str]:
    """The cards of a journal's forward, block or penalty line."""
    return line.get("cards") or ([line["card"]] if line.get("card") else [])


def heard_as(lines: list[dict], who: str, text: str) -> bool | None:
    """Whether the journal's new ``lines`` hold ``who`` saying ``text`` (True), another
    play (False), or no play (None: the referee did not take one)."""
    from referee.core.cards import Card
    plays = [o for o in lines if o["type"] in ("forward", "block", "penalty")]
    said = sorted(str(Card.parse(w)) for w in typed_form(text).split()
                  if w not in ("block", "no", "penalty"))
    if not plays:
        return None
    return all(o["player"] == who and sorted(cards_of(o)) == said for o in plays)


def without(items: list, spans: list[tuple[int, int]]) -> list:
    """``items`` but those in the index ``spans`` [first, past-the-end)."""
    return [x for k, x in enumerate(items) if not any(a <= k < b for a, b in spans)]


@pytest.mark.slow
def test_two_rounds_on_one_shared_mic_through_pulseaudio(pulse, tmp_path):
    data = tmp_path / "data"
    rec = pulse.record("speaker")
    ref = Referee("play", "soccer", "--players", "ann,bob", "--names", "table",
                  "--devices", "mic1", "--json", "--speak-to", "speakers",
                  "--engine", "pocketsphinx", data=data)
    typed: list[str] = []
    # (first, past-the-end) indices of the --json objects and the journal lines of a play
    # heard as another and taken back
    dropped_objs: list[tuple[int, int]] = []
    dropped_lines: list[tuple[int, int]] = []
    try:
        ref.wait_err("referee: journal ", 60)
        time.sleep(0.8)                                   # the mic's first blocks
        for who, text in PLAYS:
            before, objs, lines = len(answers(ref)), len(ref.objects()), len(journal_lines(data)[1])
            pulse.play(voice_wav(tmp_path, who, text), "mic1")
            try:
                ref.wait_for(lambda r: len(answers(r)) > before, 8.0, f"an answer to {text!r}")
                time.sleep(0.3)                           # its journal line, written first
                right = heard_as(journal_lines(data)[1][lines:], who, text)
            except AssertionError:
                right = None                              # missed
            if not right:
                typed.append(text)                        # the player types it
                if right is False:                        # heard as another play: take it back
                    ref.type("undo")
                    ref.wait_for(lambda r: any(a.startswith("Undone") for _, a in answers(r)[before:]),
                                 8.0, f"undo of a misheard {text!r}")
                    dropped_objs.append((objs, len(ref.objects())))
                    dropped_lines.append((lines, len(journal_lines(data)[1])))
                    before = len(answers(ref))
                ref.type(typed_form(text))
                ref.wait_for(lambda r: len(answers(r)) > before, 8.0, f"typed {text!r}")
            # the answer is being spoken: wait for it to end (about 14 characters a second),
            # and a moment more: a reply begun within the referee's echo margin (0.5 s) that
            # shares words with its sentence ("jack of clubs" on "Eight of clubs. Ann,
            # block?") is dropped as its own voice heard back
            t, answer = ref.announcements()[-1]
            time.sleep(max(0.0, t + len(answer) / 14.0 + 0.6 - time.monotonic()))
        ref.wait_objects("round-over", 2, 20)
        ref.type("end")
        ref.wait_objects("final", 1, 20)
        assert ref.finish() == 0, ref.stderr
    finally:
        ref.kill()
        said = rec.stop()
    stderr = ref.stderr
    assert "Traceback" not in stderr, stderr
    live = ref.objects()
    why = (typed, live, stderr[-4000:])
    assert len(typed) <= 1, why

    # -- the verdicts: every method, the penalty kick, the goals --------------------------
    check_decisions(without(live, dropped_objs), why)
    assert live[-1] == {"type": "final", "scores": {"ann": 1, "bob": 1}, "winner": None,
                        "rounds": 2, "ended_early": True}, why

    # -- the journal: one shared mic, replayed to what was printed live ---------------------
    path, lines = journal_lines(data)
    assert lines[0]["setup"]["channels"] == ["table"]
    assert replay_json(path) == live
    players = [o["player"] for o in without(lines, dropped_lines)
               if o["type"] in ("forward", "block", "penalty")]
    assert players == [who for who, _ in PLAYS], why     # whose turn it was tells who spoke

    # -- what the referee said, captured from its output sink --------------------------------
    texts = [s for _, s in ref.announcements()]
    for sentence in ("Blocked: same number.", "Penalty kick: goal! Ann one, Bob zero.",
                     "Blocked: nine minus two is seven and two hearts.",
                     "Blocked: a jack of the same colour.", "Blocked: four plus two is six.",
                     "Blocked: two spades.", "Goal! Ann one, Bob one."):
        assert sentence in texts, why
    voice = said.mean(axis=1)
    spans = speech_spans(voice)
    assert spans, "nothing came out of the speaker sink"
    # about a second of speech per announcement, at least (they are sentences)
    assert sum(b - a for a, b in spans) >= 1.0 * len(texts), (spans, texts)
    assert len(voice) / RATE > sum(b - a for a, b in spans)
